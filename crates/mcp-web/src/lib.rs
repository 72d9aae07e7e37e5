//! mcp-web: an MCP server of four read-only web tools — `web_search`, `web_fetch`,
//! `web_crawl`, `web_grep` — behind a floor that checks the address of the socket
//! actually opened before a byte is written to it.
//!
//! This crate glues [`mcp_web_core`] (the web library) to [`mcp_kit`] (the MCP
//! framework): [`tools`] holds the Web pack, [`cli`] one module per subcommand, each
//! calling the same functions the tools call.

pub mod app;
pub mod cli;
pub mod tools;
