//! An MCP server framework: toolkit packs, the Request object, both protocol eras
//! over stdio and Streamable HTTP. It knows nothing of the web.
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
pub use server::Server;
pub use toolkit::{Annotations, CallFuture, FromConfig, Registry, ToolSpec, Toolkit};
