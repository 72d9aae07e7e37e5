//! Integration tests of mcp-web-core, one binary for the crate.

mod cache;
mod call;
mod crawl;
mod extract;
mod fetch;
mod floor;
mod operator;
mod page;
mod pdf;
mod pdf_fixtures;
mod robots_cache;
mod search;
mod support;
mod tidy;
