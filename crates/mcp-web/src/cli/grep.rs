//! `mcp-web grep URL PATTERN`: the lines of one page, or of a site at a depth, that
//! match a pattern, printed exactly as the `web_grep` tool answers them: the same
//! operation, [`ops::grep`]. `--json` prints one object per matching line instead. With
//! a depth, a progress bar on a terminal's stderr counts the pages of `--max-pages`.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::Arc;

use mcp_web_core::config::Settings;
use mcp_web_core::error::{ConfigError, Error};
use mcp_web_core::grep::{MAX_CONTEXT, Pattern};
use mcp_web_core::transport::{Resolve, SystemResolver};
use tokio_util::sync::CancellationToken;

use crate::cli::options::ConfigArgs;
use crate::cli::output;
use crate::cli::progress::Bar;
use crate::ops::grep::{GrepOptions, Grepped};
use crate::ops::{self, Context, Observer};

/// The one-line help.
pub const ABOUT: &str =
    "Print the lines of a page (or a site, with --depth) that match a pattern, as web_grep answers";

/// The long help.
pub const LONG_ABOUT: &str = "\
Print the lines of one page, or of a whole site with --depth, that match PATTERN, exactly
as web_grep answers: one 'url:line:text' per matching line, where line is the line's
number in what 'mcp-web fetch URL' prints for that page (so 'mcp-web fetch URL | sed -n
LINEp' shows it). A line longer than 240 characters is shown as a window around its
match, marked with '…' where it was cut. PATTERN is literal text unless --regex is given
(Rust regex syntax). With -C N (--context N, at most 5), the N lines before and after each
match are printed too, as grep -C prints them: 'url-line-text', with '--' between groups
apart; --max-results counts matching lines only.

With --depth 0 (the default) only URL is fetched and robots.txt is never consulted; a
depth above 0 follows the same-origin links as web_crawl does, respects robots.txt
(respect-robots), and fetches no page once --max-results lines matched. On a terminal,
a progress bar on stderr then counts the pages.

--json prints one JSON object per line shown ({\"url\", \"line\", \"text\", \"cut\",
\"context\"}, context true for a line around a match); the notices (what stopped the
search, no match) then go to stderr.

Exit status: 0 with an answer on stdout (no match is an answer: it names the pages
searched); 1 when the start page is refused or fails (the teaching message on stderr);
2 on a usage or configuration error, a pattern that does not compile included.";

/// Arguments of `mcp-web grep`.
#[derive(Debug, clap::Args)]
pub struct GrepArgs {
    /// The http or https URL of the page to search first.
    #[arg(value_name = "URL")]
    pub url: String,

    /// What a matching line contains: literal text, or a Rust regex with --regex.
    #[arg(value_name = "PATTERN")]
    pub pattern: String,

    /// Read PATTERN as a Rust regex instead of literal text.
    #[arg(long)]
    pub regex: bool,

    /// Match regardless of letter case.
    #[arg(long, short = 'i')]
    pub ignore_case: bool,

    /// How many links deep to follow on the same origin (0 = the page only).
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u8).range(0..=5))]
    pub depth: u8,

    /// The most pages to fetch when following links (1 to 100000; the tool takes at most
    /// 200, since its answer goes into a context window).
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_pages: u32,

    /// The most matching lines to print; no page is fetched once this many matched.
    #[arg(long, value_name = "N", default_value_t = 50,
          value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub max_results: u16,

    /// Print N lines before and after each match (at most 5).
    #[arg(long, short = 'C', value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u8).range(0..=MAX_CONTEXT as i64))]
    pub context: u8,

    /// Print one JSON object per line shown.
    #[arg(long)]
    pub json: bool,

    /// The configuration of the floor, the fetch and the crawl.
    #[command(flatten)]
    pub config: ConfigArgs,
}

impl GrepArgs {
    /// How far the search goes.
    fn options(&self) -> GrepOptions {
        GrepOptions {
            depth: usize::from(self.depth),
            max_pages: usize::try_from(self.max_pages).unwrap_or(usize::MAX),
            max_results: usize::from(self.max_results),
            context: usize::from(self.context),
        }
    }
}

/// Runs `mcp-web grep` with the system resolver, writing the answer to stdout.
pub fn exec(args: &GrepArgs) -> ExitCode {
    let pattern = match Pattern::new(&args.pattern, args.regex, args.ignore_case) {
        Ok(pattern) => pattern,
        Err(e) => {
            output::problem(format!("the pattern was refused: {e}"));
            return ExitCode::from(2);
        }
    };
    let (settings, runtime) = match super::settings_and_runtime(&args.config) {
        Ok(both) => both,
        Err(code) => return code,
    };
    // One page needs no bar; a walk shows the pages of its budget.
    let bar = (args.depth > 0)
        .then(|| Bar::on_terminal(u64::from(args.max_pages)))
        .flatten();
    let answer = runtime.block_on(async {
        let cancel = super::cancel_on_interrupt();
        let observer: &dyn Observer = match &bar {
            Some(bar) => bar,
            None => &(),
        };
        grep(
            &args.url,
            &pattern,
            &args.options(),
            &settings,
            Arc::new(SystemResolver),
            &cancel,
            observer,
        )
        .await
    });
    if let Some(bar) = &bar {
        bar.finish();
    }
    match answer {
        Ok(grepped) => {
            let mut out = output::stdout();
            super::answer_status(write_answer(&mut out, &grepped, args.json))
        }
        Err(Failure::Config(e)) => super::failed(e, 2),
        Err(Failure::Grep(e)) => super::failed(e, 1),
    }
}

/// Writes `grepped` to `out`: the text web_grep answers, or with `json` one object per
/// matching line (the notices, or the no-match answer, then go to stderr).
fn write_answer(out: &mut impl Write, grepped: &Grepped, json: bool) -> io::Result<()> {
    if json {
        for found in &grepped.matches {
            writeln!(out, "{}", found.to_json())?;
        }
        if grepped.matches.is_empty() {
            output::problem(grepped.no_match());
        }
        for notice in grepped.notices() {
            output::problem(notice);
        }
    } else {
        writeln!(out, "{}", grepped.render())?;
    }
    out.flush()
}

/// Why `grep` produced no answer.
#[derive(Debug)]
pub enum Failure {
    /// The configuration cannot build a fetcher (an unreadable `ca-file`, a bad `proxy`).
    Config(ConfigError),
    /// The start page was refused or failed, or the call was cancelled.
    Grep(Error),
}

/// Greps `raw` for `pattern` through the context `settings` describe (names resolved by
/// `resolver`) with [`ops::grep`], the operation `web_grep` runs, reporting each page
/// to `observer`.
pub async fn grep(
    raw: &str,
    pattern: &Pattern,
    options: &GrepOptions,
    settings: &Settings,
    resolver: Arc<dyn Resolve>,
    cancel: &CancellationToken,
    observer: &dyn Observer,
) -> Result<Grepped, Failure> {
    let context = Context::with_resolver(settings.clone(), resolver).map_err(Failure::Config)?;
    let call = context.allowance(cancel.clone());
    ops::grep::grep(&context, raw, pattern, options, &call, observer)
        .await
        .map_err(Failure::Grep)
}
