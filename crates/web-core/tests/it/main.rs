//! Integration tests of mcp-web-core, one binary for the crate.

mod extract;
mod fetch;
mod floor;
mod operator;
mod robots_cache;
mod support;
mod tidy;
