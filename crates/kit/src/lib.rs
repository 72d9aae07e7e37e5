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

pub mod config;
pub mod http;
pub mod request;
pub mod server;
pub mod stdio;
pub mod toolkit;

pub use config::{ServerConfig, ServerConfigError};
pub use http::{AuthToken, HttpError, HttpListener, HttpOptions, check_bind};
pub use request::{Peer, Request};
pub use server::Server;
pub use toolkit::{Annotations, CallFuture, FromConfig, Registry, ToolSpec, Toolkit};
