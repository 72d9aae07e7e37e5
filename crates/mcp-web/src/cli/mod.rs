//! One module per subcommand: each is a clap `Args` struct plus an `exec` that calls
//! the same library functions the MCP tools call. [`options`] is the configuration
//! surface every subcommand flattens in; [`output`] is the one path to stdout.

use std::io;
use std::process::ExitCode;

use mcp_web_core::config::Settings;
use tokio_util::sync::CancellationToken;

pub mod batch;
pub mod check;
pub mod crawl;
pub mod fetch;
pub mod grep;
pub mod options;
pub mod output;
pub mod progress;
pub mod robots;
pub mod search;
pub mod serve;

/// The subcommands of `mcp-web`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// `mcp-web batch`: its help is [`batch::ABOUT`].
    #[command(about = batch::ABOUT, long_about = batch::LONG_ABOUT)]
    Batch(batch::BatchArgs),
    /// `mcp-web check`: its help is [`check::ABOUT`].
    #[command(about = check::ABOUT, long_about = check::LONG_ABOUT)]
    Check(check::CheckArgs),
    /// `mcp-web crawl`: its help is [`crawl::ABOUT`].
    #[command(about = crawl::ABOUT, long_about = crawl::LONG_ABOUT)]
    Crawl(crawl::CrawlArgs),
    /// `mcp-web fetch`: its help is [`fetch::ABOUT`].
    #[command(about = fetch::ABOUT, long_about = fetch::LONG_ABOUT)]
    Fetch(fetch::FetchArgs),
    /// `mcp-web grep`: its help is [`grep::ABOUT`].
    #[command(about = grep::ABOUT, long_about = grep::LONG_ABOUT)]
    Grep(grep::GrepArgs),
    /// `mcp-web robots`: its help is [`robots::ABOUT`].
    #[command(about = robots::ABOUT, long_about = robots::LONG_ABOUT)]
    Robots(robots::RobotsArgs),
    /// `mcp-web search`: its help is [`search::ABOUT`].
    #[command(about = search::ABOUT, long_about = search::LONG_ABOUT)]
    Search(search::SearchArgs),
    /// Serve the Web pack over MCP: stdio by default, Streamable HTTP with --http.
    Serve(serve::ServeArgs),
}

/// Runs one subcommand to completion and returns the process exit status.
pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Batch(args) => batch::exec(&args),
        Command::Check(args) => check::exec(&args),
        Command::Crawl(args) => crawl::exec(&args),
        Command::Fetch(args) => fetch::exec(&args),
        Command::Grep(args) => grep::exec(&args),
        Command::Robots(args) => robots::exec(&args),
        Command::Search(args) => search::exec(&args),
        Command::Serve(args) => serve::exec(&args),
    }
}

/// The settings the configuration flags give, or exit status 2 once the problem is
/// said on stderr.
fn settings(config: &options::ConfigArgs) -> Result<Settings, ExitCode> {
    config.settings().map_err(|e| {
        output::problem(e);
        ExitCode::from(2)
    })
}

/// A single-threaded runtime for one command, or exit status 2 once the problem is
/// said on stderr.
fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            output::problem(format!("cannot start the async runtime: {e}"));
            ExitCode::from(2)
        })
}

/// The settings and a runtime for a command that needs both, or the exit status once the
/// problem is said on stderr.
fn settings_and_runtime(
    config: &options::ConfigArgs,
) -> Result<(Settings, tokio::runtime::Runtime), ExitCode> {
    Ok((settings(config)?, runtime()?))
}

/// A token cancelled when the user presses Ctrl-C. Call it inside the runtime, and
/// only for work that watches the token: the handler replaces the default exit.
fn cancel_on_interrupt() -> CancellationToken {
    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_interrupt.cancel();
        }
    });
    cancel
}

/// The exit status of a report written to stdout: 0 when everything in it passed, 1
/// otherwise. A failed write is said on stderr, except a closed pipe (`| head`).
fn report_status(written: io::Result<bool>) -> ExitCode {
    match written {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(1),
        Err(e) => {
            output::problem(format!("cannot write the answer: {e}"));
            ExitCode::from(1)
        }
    }
}

/// The exit status of an answer written to stdout (`fetch`, `crawl`, `grep`): 0, or 1
/// when it could not be written.
fn answer_status(written: io::Result<()>) -> ExitCode {
    report_status(written.map(|()| true))
}

/// Says `problem` on stderr and returns exit status `code`: 2 for a configuration or
/// usage error, 1 for a call that was refused or failed.
fn failed(problem: impl std::fmt::Display, code: u8) -> ExitCode {
    output::problem(problem);
    ExitCode::from(code)
}
