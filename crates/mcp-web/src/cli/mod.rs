//! One module per subcommand: each is a clap `Args` struct plus an `exec` that calls
//! the same library functions the MCP tools call. [`options`] is the configuration
//! surface every subcommand flattens in; [`output`] is the one path to stdout.

use std::process::ExitCode;

pub mod check;
pub mod fetch;
pub mod options;
pub mod output;

/// The subcommands of `mcp-web`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Check URLs against the floor without fetching them.
    #[command(about = check::ABOUT, long_about = check::LONG_ABOUT)]
    Check(check::CheckArgs),
    /// Fetch one page through the floor and print what web_fetch answers.
    #[command(about = fetch::ABOUT, long_about = fetch::LONG_ABOUT)]
    Fetch(fetch::FetchArgs),
}

/// Runs one subcommand to completion and returns the process exit status.
pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Check(args) => check::exec(&args),
        Command::Fetch(args) => fetch::exec(&args),
    }
}
