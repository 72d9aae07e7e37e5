//! An MCP server framework: toolkit packs, the Request object, both protocol eras
//! over stdio and Streamable HTTP. It knows nothing of the web.
//!
//! # Tutorial: a pack written twice
//!
//! A pack is a [`Toolkit`]: a name, the tools it offers, and `call`, which receives each
//! call as a [`Request`] and must answer it exactly once — with [`Request::text`],
//! [`Request::result`], [`Request::error`] and the like, each of which consumes the
//! request. When it answers is the pack's business, and that gives two styles.
//!
//! **Synchronous**: everything the answer needs is in the request, so `call` answers
//! before it even returns its future.
//!
//! ```
//! use mcp_kit::{CallFuture, Outcome, Request, Server, ToolSpec, Toolkit};
//! use serde_json::{Map, Value, json};
//!
//! /// Adds two numbers.
//! struct Adder;
//!
//! impl Toolkit for Adder {
//!     fn name(&self) -> &str {
//!         "Adder"
//!     }
//!
//!     fn tools(&self) -> Vec<ToolSpec> {
//!         vec![ToolSpec {
//!             name: "add".into(),
//!             description: "Adds a and b.".into(),
//!             input_schema: json!({
//!                 "type": "object",
//!                 "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
//!                 "required": ["a", "b"],
//!             }),
//!             annotations: Default::default(),
//!         }]
//!     }
//!
//!     fn call(&self, request: Request) -> CallFuture {
//!         let a = request.args.get("a").and_then(Value::as_f64);
//!         let b = request.args.get("b").and_then(Value::as_f64);
//!         match (a, b) {
//!             (Some(a), Some(b)) => request.text(format!("{}", a + b)),
//!             // A failure the caller can act on is a tool error, not a panic.
//!             _ => request.error("add takes two numbers, a and b"),
//!         }
//!         Box::pin(std::future::ready(()))
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let server = Server::new("calculator", "1.0").plug(Adder);
//! let args = Map::from_iter([("a".to_owned(), json!(2)), ("b".to_owned(), json!(3))]);
//! let Outcome::Answered(result) = server.call("add", args).await else {
//!     panic!("add answers");
//! };
//! assert_eq!(result.text(), "5");
//! assert!(server.call("add", Map::new()).await.result().is_some_and(|r| r.is_error()));
//! # });
//! ```
//!
//! **Asynchronous**: the pack keeps the request — here it moves it into a task of its
//! own — reports progress while it works, and answers later. A call the client
//! cancels is told so through [`Request::cancellation_token`] and gets no answer; a
//! request dropped without an answer is answered for the pack with an error saying
//! the tool ended without answering, so a forgotten reply never leaves a client
//! waiting.
//!
//! ```
//! use std::time::Duration;
//!
//! use mcp_kit::{Call, CallFuture, Notification, Outcome, Request, Server, ToolSpec, Toolkit};
//! use serde_json::{Map, Value, json};
//! use tokio::sync::mpsc;
//!
//! /// Counts to `n`, one step at a time.
//! struct Counter;
//!
//! impl Toolkit for Counter {
//!     fn name(&self) -> &str {
//!         "Counter"
//!     }
//!
//!     fn tools(&self) -> Vec<ToolSpec> {
//!         vec![ToolSpec {
//!             name: "count".into(),
//!             description: "Counts to n, reporting each step.".into(),
//!             input_schema: json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
//!             annotations: Default::default(),
//!         }]
//!     }
//!
//!     fn call(&self, request: Request) -> CallFuture {
//!         let n = request.args.get("n").and_then(Value::as_u64).unwrap_or(3);
//!         tokio::spawn(async move {
//!             let cancelled = request.cancellation_token();
//!             for step in 1..=n {
//!                 tokio::select! {
//!                     () = tokio::time::sleep(Duration::from_millis(10)) => {}
//!                     // Cancelled: stop, and send nothing.
//!                     () = cancelled.cancelled() => return,
//!                 }
//!                 let message = format!("step {step} of {n}");
//!                 request.progress(step as f64, Some(n as f64), Some(&message));
//!             }
//!             request.text(format!("counted to {n}"));
//!         });
//!         // `call` returns at once; the task answers later.
//!         Box::pin(std::future::ready(()))
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let server = Server::new("counter", "1.0").plug(Counter);
//! // In process, a call's notifications go to any sink; over a transport they are the
//! // client's `notifications/progress`, sent when the client gave a progress token.
//! let (sink, mut notes) = mpsc::unbounded_channel::<Notification>();
//! let call = Call::new("count", Map::from_iter([("n".to_owned(), json!(2))]))
//!     .with_progress_token(json!("count-1"))
//!     .with_notifications(sink);
//! let Outcome::Answered(result) = server.dispatch(call).await else {
//!     panic!("count answers");
//! };
//! assert_eq!(result.text(), "counted to 2");
//! let mut steps = Vec::new();
//! while let Ok(note) = notes.try_recv() {
//!     steps.push(note.params["message"].as_str().unwrap_or_default().to_owned());
//! }
//! assert_eq!(steps, ["step 1 of 2", "step 2 of 2"]);
//! # });
//! ```
//!
//! Serving either pack to a real client is one line more: `Server::serve_stdio` for a
//! host that starts the server as a child process, or [`HttpListener`] for Streamable
//! HTTP. Both protocol eras (the `initialize` handshake and 2026-07-28's per-request
//! envelope) reach the same `call`.
//!
//! ```no_run
//! # struct Adder;
//! # impl mcp_kit::Toolkit for Adder {
//! #     fn name(&self) -> &str { "Adder" }
//! #     fn tools(&self) -> Vec<mcp_kit::ToolSpec> { Vec::new() }
//! #     fn call(&self, request: mcp_kit::Request) -> mcp_kit::CallFuture {
//! #         request.text("0");
//! #         Box::pin(std::future::ready(()))
//! #     }
//! # }
//! # async fn serve() -> std::io::Result<()> {
//! mcp_kit::Server::new("calculator", "1.0").plug(Adder).serve_stdio().await
//! # }
//! ```
//!
//! # The parts
//!
//! A pack implements [`Toolkit`] (and [`FromConfig`] to be built by name); a
//! [`Server`] plugs packs in and serves them with [`Server::serve_stdio`] or
//! [`HttpListener::serve`]. Each tool call reaches its pack as a [`Request`], which
//! the pack answers exactly once. A server config file is read by
//! [`ServerConfig::parse`], whether [`Server::from_config`] assembles the server or a
//! program builds it itself. The MCP SDK underneath is an implementation detail:
//! no type of it appears in this crate's API.
//!
//! [`dispatch`] runs one call and returns its [`Outcome`] — the tool's [`ToolResult`],
//! its request for input ([`NeedsInput`], made with [`Request::ask`]), or why there is
//! none — apart from any transport; the SDK glue in [`server`] only maps outcomes to
//! the wire. [`Server::call`] runs a call in process, for hosts and tests:
//!
//! ```
//! use mcp_kit::{CallFuture, Outcome, Request, Server, ToolSpec, Toolkit};
//! use serde_json::json;
//!
//! struct Hello;
//!
//! impl Toolkit for Hello {
//!     fn name(&self) -> &str {
//!         "Hello"
//!     }
//!     fn tools(&self) -> Vec<ToolSpec> {
//!         vec![ToolSpec {
//!             name: "hello".into(),
//!             description: "Greets.".into(),
//!             input_schema: json!({"type": "object"}),
//!             annotations: Default::default(),
//!         }]
//!     }
//!     fn call(&self, request: Request) -> CallFuture {
//!         Box::pin(async move { request.text("hello") })
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let server = Server::new("demo", "1.0").plug(Hello);
//! let Outcome::Answered(result) = server.call("hello", Default::default()).await else {
//!     panic!("hello answers");
//! };
//! assert_eq!(result.text(), "hello");
//! # });
//! ```
//!
//! ```compile_fail
//! // Answering consumes the request, so a second answer does not compile.
//! fn twice(request: mcp_kit::Request) {
//!     request.text("one");
//!     request.text("two");
//! }
//! ```

/// The log target of the MCP SDK underneath, for log filters (its routine warnings,
/// such as a cancelled call's dropped answer, are noise to an operator).
pub const SDK_LOG_TARGET: &str = "rmcp";

pub mod batch;
pub mod config;
pub mod dispatch;
pub mod http;
pub(crate) mod jsonrpc;
pub mod outcome;
pub mod params;
pub mod permission;
pub mod request;
pub mod server;
pub mod stdio;
pub mod toolkit;

pub use batch::{DEFAULT_CONCURRENCY, ToolCall};
pub use config::{ServerConfig, ServerConfigError};
pub use dispatch::{Call, Notification, NotificationSink, SinkFuture};
pub use http::{AuthToken, HttpError, HttpListener, HttpOptions, check_bind};
pub use outcome::{Ask, CancelledBy, NeedsInput, Outcome, ToolResult};
pub use params::{Args, ArgumentError, ArgumentRule, Param, Params};
pub use permission::{Decision, Grant, Permission, Permissions, Refusal, Rule};
pub use request::{Peer, Request};
pub use server::{LIST_TTL_MS, Server};
pub use toolkit::{Annotations, CallFuture, FromConfig, Registry, ToolSpec, Toolkit};
