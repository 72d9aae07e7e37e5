//! `mcp-web robots URL…`: why robots.txt lets our user agent crawl a URL or not —
//! offline against a file (`--robots-file`), or by fetching each origin's robots.txt
//! through the floor with the same cache the traversing tools use.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use mcp_web_core::robots::{
    MAX_RULES, PARSE_LIMIT, Robots, Verdict, path_and_query, product_token,
};
use mcp_web_core::transport::SystemResolver;
use mcp_web_core::url::{CheckedUrl, redact};
use tokio_util::sync::CancellationToken;

use crate::cli::options::ConfigArgs;
use crate::cli::output;
use crate::ops::Context;

/// The one-line help.
pub const ABOUT: &str =
    "Explain whether robots.txt lets our user agent crawl each URL, and which line decides";

/// The long help.
pub const LONG_ABOUT: &str = "\
Explain whether robots.txt lets our user agent crawl each URL, and which line decides.

For each URL, one line: 'allowed' or 'disallowed', the URL, then the deciding line of
robots.txt with its number ('robots.txt Disallow: /private (line 3)') or why no line
decides (no group for the agent, no matching rule, robots.txt answered 404, …).

The agent is the product token of the user-agent key: its first word, up to '/'
('mcp-web/0.1 (+…)' is matched as 'mcp-web'). Set it with --user-agent.

With --robots-file FILE the URLs are checked against that file and nothing is fetched;
a URL may then also be a bare path ('/a/b?c'). Without it, each origin's /robots.txt
is fetched through the floor, exactly as web_crawl fetches it: the floor applies to it
and its redirects (up to 5), a 4xx allows everything, a 5xx disallows everything, and
a robots.txt that cannot be reached at all allows everything. web_fetch never consults
robots.txt; web_crawl and web_grep with a depth do unless respect-robots is false.

Exit status: 0 when every URL is allowed; 1 when any is disallowed or is not a URL;
2 on a usage or configuration error or an unreadable robots file.";

/// Arguments of `mcp-web robots`.
#[derive(Debug, clap::Args)]
pub struct RobotsArgs {
    /// The URLs to explain (with --robots-file, bare paths too).
    #[arg(value_name = "URL", required = true)]
    pub urls: Vec<String>,

    /// Check against this robots.txt file instead of fetching each origin's.
    #[arg(long, value_name = "FILE")]
    pub robots_file: Option<PathBuf>,

    /// The configuration of the floor, the fetch and the user agent.
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Runs `mcp-web robots`, writing one line per URL to stdout.
pub fn exec(args: &RobotsArgs) -> ExitCode {
    let settings = match super::settings(&args.config) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    let agent = product_token(&settings.fetch.network.user_agent).to_owned();
    if !settings.crawl.respect_robots {
        output::problem(
            "note: respect-robots is false, so web_crawl and web_grep do not consult robots.txt; these verdicts are what it would say",
        );
    }
    let mut out = output::stdout();
    let result = match &args.robots_file {
        Some(path) => {
            let bytes = match std::fs::read(path) {
                Ok(bytes) => bytes,
                Err(e) => {
                    output::problem(format!("cannot read {}: {e}", path.display()));
                    return ExitCode::from(2);
                }
            };
            let robots = Robots::parse(&bytes);
            if robots.truncated() {
                output::problem(format!(
                    "{} is longer than a crawler reads ({} KiB, {MAX_RULES} rules); only its beginning was read",
                    path.display(),
                    PARSE_LIMIT / 1024,
                ));
            }
            explain_offline(&robots, &agent, &args.urls, &mut out)
        }
        None => {
            let context = match Context::with_resolver(settings, Arc::new(SystemResolver)) {
                Ok(context) => context,
                Err(e) => {
                    output::problem(e);
                    return ExitCode::from(2);
                }
            };
            let runtime = match super::runtime() {
                Ok(runtime) => runtime,
                Err(code) => return code,
            };
            runtime.block_on(async {
                let cancel = super::cancel_on_interrupt();
                explain_online(&context, &args.urls, &cancel, &mut out).await
            })
        }
    };
    super::report_status(result)
}

/// Explains each of `urls` against `robots` for `agent`. Returns true when all are
/// allowed.
pub fn explain_offline(
    robots: &Robots,
    agent: &str,
    urls: &[String],
    out: &mut dyn Write,
) -> io::Result<bool> {
    let mut all_allowed = true;
    for raw in urls {
        if raw.starts_with('/') {
            let verdict = robots.check(agent, raw);
            all_allowed &= verdict.is_allowed();
            line(out, &redact(raw), &verdict)?;
            continue;
        }
        match CheckedUrl::parse(raw) {
            Ok(url) => {
                let verdict = robots.check(agent, path_and_query(&url));
                all_allowed &= verdict.is_allowed();
                line(out, &url.to_string(), &verdict)?;
            }
            Err(bad) => {
                all_allowed = false;
                writeln!(out, "disallowed {}  {bad}", redact(raw))?;
            }
        }
    }
    out.flush()?;
    Ok(all_allowed)
}

/// Explains each of `urls`, fetching each origin's robots.txt once through the
/// context's cache; each URL is a call of its own (`total-timeout` each).
/// Returns true when all are allowed.
pub async fn explain_online(
    context: &Context,
    urls: &[String],
    cancel: &CancellationToken,
    out: &mut dyn Write,
) -> io::Result<bool> {
    let mut all_allowed = true;
    for raw in urls {
        let url = match CheckedUrl::parse(raw) {
            Ok(url) => url,
            Err(bad) => {
                all_allowed = false;
                writeln!(out, "disallowed {}  {bad}", redact(raw))?;
                continue;
            }
        };
        match context
            .robots()
            .verdict(&url, &context.allowance(cancel.clone()))
            .await
        {
            Ok(verdict) => {
                all_allowed &= verdict.is_allowed();
                line(out, &url.to_string(), &verdict)?;
            }
            Err(e) => {
                // Only a cancellation or a spent total-timeout ends a verdict early: say
                // so and stop.
                writeln!(out, "disallowed {url}  {e}")?;
                out.flush()?;
                return Ok(false);
            }
        }
    }
    out.flush()?;
    Ok(all_allowed)
}

/// Writes `allowed|disallowed URL  REASON`.
fn line(out: &mut dyn Write, url: &str, verdict: &Verdict) -> io::Result<()> {
    let word = if verdict.is_allowed() {
        "allowed"
    } else {
        "disallowed"
    };
    writeln!(out, "{word} {url}  {}", verdict.reason())
}
