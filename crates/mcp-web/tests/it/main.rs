//! Integration tests of the mcp-web binary and its Web pack, one binary for the crate.

mod batch;
mod battery;
mod cache;
mod check;
mod conformance;
mod crawl;
mod examples;
mod fetch;
mod grep;
mod hostile;
mod inprocess;
mod pdf;
#[path = "../../../web-core/tests/it/pdf_fixtures.rs"]
mod pdf_fixtures;
mod permission;
mod protocol;
mod robots;
mod search;
mod serve;
mod site;
mod support;
mod tools;
