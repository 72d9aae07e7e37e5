//! mcp-web: an MCP server of four read-only web tools — `web_search`, `web_fetch`,
//! `web_crawl`, `web_grep` — behind a floor that checks the address of the socket
//! actually opened before a byte is written to it.
//!
//! This crate glues [`mcp_web_core`] (the web library) to [`mcp_kit`] (the MCP
//! framework): [`ops`] holds the operations over one [`ops::Context`], [`tools`] the Web
//! pack (one module per tool), [`cli`] one module per subcommand; a tool and its
//! subcommand call the same operation.

pub mod app;
pub mod cli;
pub mod ops;
pub mod tools;
