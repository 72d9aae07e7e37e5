//! The command line's entry point: parse the arguments, run one subcommand, map the
//! outcome to an exit status.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::Command;

/// mcp-web: read-only web tools for language models, behind an SSRF floor.
#[derive(Debug, Parser)]
#[command(name = "mcp-web", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Runs the program with these arguments (the first is the program name) and returns
/// its exit status. Tests drive the whole program through this function.
pub fn main<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help and version to stdout and errors to stderr itself.
            let code = if err.use_stderr() { 2 } else { 0 };
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    crate::cli::run(cli.command)
}
