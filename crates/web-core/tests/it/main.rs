//! Integration tests of mcp-web-core, one binary for the crate.
mod extract;
