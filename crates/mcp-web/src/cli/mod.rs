//! One module per subcommand: each is a clap `Args` struct plus an `exec` that calls
//! the same library functions the MCP tools call.

use std::process::ExitCode;

/// The subcommands of `mcp-web`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {}

/// Runs one subcommand to completion and returns the process exit status.
pub fn run(command: Command) -> ExitCode {
    match command {}
}
