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
    log_contained_panics();
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

/// Installs the panic hook: a panic the PDF reader contains (a flaw of the file it met:
/// the page it was on is left out, and a file of which no page was read is answered as
/// unreadable) is logged on stderr as one line naming where it stopped; any other panic
/// is a bug and is reported as Rust reports it. The PDF reader child installs it too.
pub fn log_contained_panics() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if mcp_web_core::extract::pdf::panic_is_contained() {
            let at = info
                .location()
                .map_or_else(String::new, |l| format!(" at {}:{}", l.file(), l.line()));
            let payload = info.payload();
            let what = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("no message");
            crate::cli::output::problem(format_args!(
                "the PDF reader stopped{at} ({what}): the page it was reading is left out, and a file with no page read is answered as unreadable"
            ));
        } else {
            report(info);
        }
    }));
}
