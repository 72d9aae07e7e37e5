//! Integration tests of mcp-kit, one binary for the crate.
