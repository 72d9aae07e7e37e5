//! Integration tests of mcp-web-core, one binary for the crate.

mod fetch;
mod floor;
mod support;
mod tidy;
