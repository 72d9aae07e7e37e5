//! `mcp-web search QUERY`: asks the configured search provider and prints exactly the
//! JSON the `web_search` tool answers: the same operation, [`ops::search`]. Pretty on
//! a terminal, one line otherwise (for `jq` and scripts). What the tool reports as
//! progress (a rate limit it waits out) is a line on stderr.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use mcp_web_core::config::Settings;
use mcp_web_core::search::{Filters, Freshness, MAX_PAGE, site_host};
use mcp_web_core::transport::{Resolve, SystemResolver};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::cli::fetch::Failure;
use crate::cli::options::ConfigArgs;
use crate::cli::output;
use crate::ops::{self, Context, Observer};

/// What the search reports while it runs (a rate limit waited out), each a line on
/// stderr.
struct Said;

impl Observer for Said {
    fn progress(&self, _done: f64, _total: Option<f64>, message: &str) {
        output::problem(message);
    }
}

/// The one-line help.
pub const ABOUT: &str = "Ask the search provider and print the JSON web_search answers";

/// The long help.
pub const LONG_ABOUT: &str = "\
Ask the configured search provider (provider: brave or searxng) for QUERY and print the
JSON web_search answers: {\"count\",\"page\",\"provider\",\"query\",\"results\":[{\"title\",
\"url\",\"snippet\",\"age\"?}]}, with \"freshness\" and \"site\" when given, keys in alphabetical
order. A query that matches nothing prints an empty results list and a notice; that is not
a failure. The JSON is pretty-printed on a terminal and one line otherwise.

--freshness, --site and --page narrow the search as web_search's parameters of the same
names do; a provider that cannot apply one fails with a message saying so.

Searches are spaced by search-rate (requests per second). A provider that answers HTTP 429
with a delay (Retry-After) that ends within total-timeout is waited out and asked once
more; a line on stderr says how long the wait is. A delay past total-timeout fails at once.

Brave needs an API key, read when the search runs: the environment variable named by
api-key-env (BRAVE_API_KEY by default), or api-key. SearXNG needs search-url, the base
URL of the instance. The provider's endpoint is the operator's, so it is not checked
against the floor; the environment's proxy variables are never read, only proxy.

Exit status: 0 with the JSON on stdout; 1 when the provider fails (the teaching message
on stderr); 2 on a usage or configuration error.";

/// Arguments of `mcp-web search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// What to search for.
    #[arg(value_name = "QUERY")]
    pub query: String,

    /// How many results to return at most (1 to 20).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u8).range(1..=20))]
    pub count: u8,

    /// Only pages published or updated within the last day, week, month or year.
    #[arg(long, value_parser = ["day", "week", "month", "year"])]
    pub freshness: Option<String>,

    /// Only pages of this one host (and its subdomains), such as docs.rs.
    #[arg(long, value_name = "HOST")]
    pub site: Option<String>,

    /// Which page of COUNT results (1 to 10): 2 is results COUNT+1 to 2×COUNT.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=MAX_PAGE as i64))]
    pub page: u8,

    /// The configuration of the search provider and its connection.
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Runs `mcp-web search` with the system resolver, writing the JSON to stdout.
pub fn exec(args: &SearchArgs) -> ExitCode {
    if args.query.trim().is_empty() {
        return super::failed("the query is empty; give the words to search for", 2);
    }
    let site = match args.site.as_deref().map(site_host).transpose() {
        Ok(site) => site,
        Err(why) => return super::failed(format!("--site was refused: {why}"), 2),
    };
    let filters = Filters {
        freshness: args.freshness.as_deref().and_then(Freshness::parse),
        site,
        page: usize::from(args.page),
    };
    let (settings, runtime) = match super::settings_and_runtime(&args.config) {
        Ok(both) => both,
        Err(code) => return code,
    };
    let answer = runtime.block_on(async {
        let cancel = super::cancel_on_interrupt();
        search(
            &args.query,
            usize::from(args.count),
            &filters,
            &settings,
            Arc::new(SystemResolver),
            &cancel,
            &Said,
        )
        .await
    });
    match answer {
        Ok(json) => {
            let mut out = output::stdout();
            let text = if out.is_terminal() {
                serde_json::to_string_pretty(&json)
            } else {
                serde_json::to_string(&json)
            };
            let text = text.unwrap_or_else(|_| json.to_string());
            super::answer_status(writeln!(out, "{text}").and_then(|()| out.flush()))
        }
        Err(Failure::Config(e)) => super::failed(e, 2),
        Err(Failure::Fetch(e)) => super::failed(e, 1),
    }
}

/// Searches for `query` under `filters` through the context `settings` describe (names
/// resolved by `resolver`) with [`ops::search`], the operation `web_search` runs,
/// reporting to `observer` what the tool reports as progress, and returns the answer
/// `web_search` gives.
pub async fn search(
    query: &str,
    count: usize,
    filters: &Filters,
    settings: &Settings,
    resolver: Arc<dyn Resolve>,
    cancel: &CancellationToken,
    observer: &dyn Observer,
) -> Result<Value, Failure> {
    let context = Context::with_resolver(settings.clone(), resolver).map_err(Failure::Config)?;
    let searched = ops::search::search(&context, query, count, filters, observer, cancel)
        .await
        .map_err(Failure::Fetch)?;
    Ok(Value::Object(searched.to_json()))
}
