//! Integration tests of mcp-web-kit, one binary for the crate: a test toolkit served over
//! in-memory stdio and over HTTP on loopback, spoken to as real clients do, and run
//! in process without a transport.

#![expect(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

mod batch;
mod harness;
mod http;
mod inprocess;
mod permission;
mod robust;
mod stdio;
