//! `mcp-web crawl URL`: crawls one site through the floor and prints exactly the index
//! the `web_crawl` tool answers: the same operation, [`ops::crawl`]. On a terminal a
//! progress bar on stderr counts the pages requested against `--max-pages`.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use mcp_web_core::config::Settings;
use mcp_web_core::transport::{Resolve, SystemResolver};
use tokio_util::sync::CancellationToken;

use crate::cli::fetch::Failure;
use crate::cli::options::ConfigArgs;
use crate::cli::output;
use crate::cli::progress::Bar;
use crate::ops::crawl::Crawled;
use crate::ops::{self, Context, Observer};

/// The one-line help.
pub const ABOUT: &str = "Crawl one site through the floor and print the index web_crawl answers";

/// The long help.
pub const LONG_ABOUT: &str = "\
Crawl one site from URL and print the index web_crawl answers: a header line, then one
line per page, 'url  status  N bytes  title', breadth-first. Only links on the start
page's origin (scheme, host and port) are followed, --depth hops from it, at most
--max-pages pages; robots.txt is respected unless respect-robots is false, and a page it
refuses is listed with its rule. A budget that stopped the crawl says so on the last line.

Every page and every redirect goes through the floor, as web_fetch's do. On a terminal,
a progress bar on stderr counts the pages; --json prints one JSON object per page
instead of the index (url, depth, status, bytes, title, final_url, error), and the
notice of a budget that stopped the crawl on stderr.

Exit status: 0 with the index on stdout; 1 when the crawl is refused or its start page
fails (the teaching message on stderr); 2 on a usage or configuration error.";

/// Arguments of `mcp-web crawl`.
#[derive(Debug, clap::Args)]
pub struct CrawlArgs {
    /// The http or https URL to start from.
    #[arg(value_name = "URL")]
    pub url: String,

    /// How many hops of links to follow from the start page (0 to 5).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=5))]
    pub depth: u8,

    /// The most pages to fetch (1 to 100000; the tool takes at most 200, since its
    /// answer goes into a context window).
    #[arg(long = "max-pages", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_pages: u32,

    /// Print one JSON object per page instead of the index.
    #[arg(long)]
    pub json: bool,

    /// The configuration of the floor, the fetch and the traversal.
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Runs `mcp-web crawl` with the system resolver, writing the index to stdout.
pub fn exec(args: &CrawlArgs) -> ExitCode {
    let (settings, runtime) = match super::settings_and_runtime(&args.config) {
        Ok(both) => both,
        Err(code) => return code,
    };
    let bar = Bar::on_terminal(u64::from(args.max_pages));
    let answer = runtime.block_on(async {
        let cancel = super::cancel_on_interrupt();
        let observer: &dyn Observer = match &bar {
            Some(bar) => bar,
            None => &(),
        };
        crawl(args, &settings, Arc::new(SystemResolver), &cancel, observer).await
    });
    if let Some(bar) = &bar {
        bar.finish();
    }
    match answer {
        Ok(crawled) => {
            let text = if args.json {
                if let Some(notice) = crawled.notice() {
                    output::problem(notice);
                }
                json_lines(&crawled)
            } else {
                crawled.render()
            };
            let mut out = output::stdout();
            super::answer_status(writeln!(out, "{text}").and_then(|()| out.flush()))
        }
        Err(Failure::Config(e)) => super::failed(e, 2),
        Err(Failure::Fetch(e)) => super::failed(e, 1),
    }
}

/// Crawls as `args` say through the context `settings` describe (names resolved by
/// `resolver`) with [`ops::crawl`], the operation `web_crawl` runs, reporting each page
/// to `observer`.
pub async fn crawl(
    args: &CrawlArgs,
    settings: &Settings,
    resolver: Arc<dyn Resolve>,
    cancel: &CancellationToken,
    observer: &dyn Observer,
) -> Result<Crawled, Failure> {
    let context = Context::with_resolver(settings.clone(), resolver).map_err(Failure::Config)?;
    let call = context.allowance(cancel.clone());
    ops::crawl::crawl(
        &context,
        &args.url,
        usize::from(args.depth),
        usize::try_from(args.max_pages).unwrap_or(usize::MAX),
        &call,
        observer,
    )
    .await
    .map_err(Failure::Fetch)
}

/// The `--json` form: one JSON object per page, one per line.
pub fn json_lines(crawled: &Crawled) -> String {
    crawled
        .entries
        .iter()
        .map(|entry| entry.to_json().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
