//! The web library behind mcp-web: the SSRF floor (address table, URL shape, guard,
//! transport), the guarded fetch, extraction, robots.txt, grep, search and configuration.
//!
//! Modules form layers; a module imports only from the layers above it
//! (see `ARCHITECTURE.md`):
//!
//! | layer | modules |
//! |---|---|
//! | 0 pure | [`key`], [`addr`], [`error`], [`url`], [`media`], [`extract`], [`robots`] (parser), [`grep`] |
//! | 1 policy | [`guard`] |
//! | 2 I/O | [`transport`], [`fetch`], [`search`] |
//! | 3 | [`page`], `robots::cache`, [`crawl`] |
//! | 4 | [`config`] |
//!
//! Nothing in this crate knows about MCP.

pub mod addr;
pub mod config;
pub mod crawl;
pub mod error;
pub mod extract;
pub mod fetch;
pub mod grep;
pub mod guard;
pub mod key;
pub mod media;
pub mod page;
pub mod robots;
pub mod search;
pub mod transport;
pub mod url;
pub mod work;

pub use error::{Error, ErrorKind};
