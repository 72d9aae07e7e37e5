//! One module per subcommand: each is a clap `Args` struct plus an `exec` that calls
//! the same library functions the MCP tools call. [`options`] is the configuration
//! surface every subcommand flattens in; [`output`] is the one path to stdout.

use std::process::ExitCode;

pub mod check;
pub mod fetch;
pub mod options;
pub mod output;
pub mod robots;
pub mod serve;

/// The subcommands of `mcp-web`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Check URLs against the floor without fetching them.
    #[command(about = check::ABOUT, long_about = check::LONG_ABOUT)]
    Check(check::CheckArgs),
    /// Fetch one page through the floor and print what web_fetch answers.
    #[command(about = fetch::ABOUT, long_about = fetch::LONG_ABOUT)]
    Fetch(fetch::FetchArgs),
    /// Explain whether robots.txt lets our user agent crawl each URL.
    #[command(about = robots::ABOUT, long_about = robots::LONG_ABOUT)]
    Robots(robots::RobotsArgs),
    /// Serve the Web pack over MCP: stdio by default, Streamable HTTP with --http.
    Serve(serve::ServeArgs),
}

/// Runs one subcommand to completion and returns the process exit status.
pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Check(args) => check::exec(&args),
        Command::Fetch(args) => fetch::exec(&args),
        Command::Robots(args) => robots::exec(&args),
        Command::Serve(args) => serve::exec(&args),
    }
}
