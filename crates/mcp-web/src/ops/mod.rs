//! The operations behind the tools and the command line: `web_fetch` and `mcp-web fetch`,
//! `web_crawl` and `mcp-web crawl`, `web_grep` and `mcp-web grep`, `web_search` and
//! `mcp-web search` are one function each here, over one [`Context`], so a tool and its
//! subcommand cannot drift apart.
//!
//! A tool module parses its arguments, calls its operation and maps the outcome to an
//! MCP answer; a subcommand parses its flags, calls the same operation and prints the
//! outcome. Progress goes to an [`Observer`]: the MCP request for a tool, nothing for
//! the command line.

use std::fmt;
use std::sync::Arc;

use mcp_web_core::config::Settings;
use mcp_web_core::error::ConfigError;
use mcp_web_core::fetch::{Allowance, Fetcher};
use mcp_web_core::page;
use mcp_web_core::robots::cache::RobotsCache;
use mcp_web_core::search::{self as core_search, Paced, SearchProvider};
use mcp_web_core::transport::{Resolve, SystemResolver};
use tokio_util::sync::CancellationToken;

pub mod crawl;
pub mod fetch;
pub mod grep;
pub mod search;

/// What every operation works with: the settings, the guarded fetcher (one pool and one
/// HTTP cache for the configured policy), the robots.txt cache that fetches through it
/// and the search provider. Built in one place; clones share the pool, the caches and
/// the provider.
#[derive(Clone)]
pub struct Context {
    settings: Arc<Settings>,
    fetcher: Fetcher,
    robots: Arc<RobotsCache>,
    search: Paced,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("settings", &self.settings)
            .field("fetcher", &self.fetcher)
            .field("search", &self.search.provider().name())
            .finish_non_exhaustive()
    }
}

impl Context {
    /// The context `settings` describe, resolving names with the system resolver.
    /// Fails when `ca-file` cannot be read, or when the configured search provider
    /// cannot be built (SearXNG without a `search-url`).
    pub fn new(settings: Settings) -> Result<Context, ConfigError> {
        Context::with_resolver(settings, Arc::new(SystemResolver))
    }

    /// The context `settings` describe, resolving names with `resolver`, the search
    /// provider's included (tests resolve names to loopback addresses with a static
    /// resolver).
    pub fn with_resolver(
        settings: Settings,
        resolver: Arc<dyn Resolve>,
    ) -> Result<Context, ConfigError> {
        let fetcher = fetcher(&settings, Arc::clone(&resolver), false)?;
        let search = search(&settings, resolver)?;
        Ok(Context::from_parts(settings, fetcher, search))
    }

    /// The context of a server that may answer many users (`serve --http`): as
    /// [`Context::new`], with a shared HTTP cache (`private` responses are not kept,
    /// `s-maxage` applies).
    pub fn shared(settings: Settings) -> Result<Context, ConfigError> {
        let fetcher = fetcher(&settings, Arc::new(SystemResolver), true)?;
        Context::with_fetcher(settings, fetcher)
    }

    /// The context `settings` describe whose searches ask `provider` in place of the
    /// configured one (a host's own engine, a test's fake), resolving names with the
    /// system resolver. Fails only when `ca-file` cannot be read.
    pub fn with_search_provider(
        settings: Settings,
        provider: Arc<dyn SearchProvider>,
    ) -> Result<Context, ConfigError> {
        let fetcher = fetcher(&settings, Arc::new(SystemResolver), false)?;
        Ok(Context::from_parts(settings, fetcher, provider))
    }

    /// The context of `settings` around a prepared `fetcher`, whose transport, pool and
    /// policy are shared as they are; the configured search provider resolves names
    /// with the system resolver.
    pub fn with_fetcher(settings: Settings, fetcher: Fetcher) -> Result<Context, ConfigError> {
        let search = search(&settings, Arc::new(SystemResolver))?;
        Ok(Context::from_parts(settings, fetcher, search))
    }

    /// The context of `settings` around a prepared `fetcher` and a `search` provider
    /// used in place of the configured one (a host's own engine, a test's fake).
    pub fn from_parts(
        settings: Settings,
        fetcher: Fetcher,
        search: Arc<dyn SearchProvider>,
    ) -> Context {
        let robots = Arc::new(RobotsCache::new(&fetcher));
        let search = Paced::new(search, settings.search.rate);
        Context {
            settings: Arc::new(settings),
            fetcher,
            robots,
            search,
        }
    }

    /// The search provider `web_search` asks.
    pub fn search_provider(&self) -> &Arc<dyn SearchProvider> {
        self.search.provider()
    }

    /// The search provider as searches ask it: paced by `search-rate`, a rate limit
    /// waited out once within the call's deadline.
    pub fn paced_search(&self) -> &Paced {
        &self.search
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The guarded fetcher.
    pub fn fetcher(&self) -> &Fetcher {
        &self.fetcher
    }

    /// The robots.txt cache.
    pub fn robots(&self) -> &Arc<RobotsCache> {
        &self.robots
    }

    /// This context for one call carrying a one-time grant: the same settings, fetcher
    /// and provider, and a robots.txt cache of that call's own (what a grant lets it
    /// read is never shared).
    pub fn for_granted_call(&self) -> Context {
        Context {
            robots: Arc::new(RobotsCache::new(&self.fetcher).for_granted_call()),
            ..self.clone()
        }
    }

    /// A new call's allowance: `total-timeout` from now for everything it fetches,
    /// stopped early when `cancel` fires. One tool call or one command makes one.
    pub fn allowance(&self, cancel: CancellationToken) -> Allowance {
        self.fetcher.allowance(cancel)
    }

    /// The `max-chars` cap on the text one answer returns.
    pub fn max_chars(&self) -> usize {
        self.settings.max_chars
    }
}

/// The guarded fetcher `settings` describe, resolving names with `resolver`, its HTTP
/// cache shared between users when `shared`: the one place the program builds one.
fn fetcher(
    settings: &Settings,
    resolver: Arc<dyn Resolve>,
    shared: bool,
) -> Result<Fetcher, ConfigError> {
    let mut options = settings.fetch.clone();
    options.cache.shared = shared;
    Fetcher::new(options, settings.policy.clone(), resolver)
}

/// The search provider `settings` configure, its client reaching the network as the
/// fetcher does, resolving names with `resolver`.
fn search(
    settings: &Settings,
    resolver: Arc<dyn Resolve>,
) -> Result<Arc<dyn SearchProvider>, ConfigError> {
    let fetch = &settings.fetch;
    core_search::configured(&settings.search, &fetch.network, fetch.timeout, resolver)
}

/// Where an operation reports how far it got.
pub trait Observer: Sync {
    /// `done` of `total` steps (when the total is known), and what is happening.
    fn progress(&self, done: f64, total: Option<f64>, message: &str);
}

/// Reports go nowhere (the command line prints only the outcome).
impl Observer for () {
    fn progress(&self, _done: f64, _total: Option<f64>, _message: &str) {}
}

/// `answer` cut head-only to at most `max_chars` characters (the `max-chars` key) on a line
/// boundary, ending in a `[truncated: …]` notice that names the cap, the key that raises it
/// and `narrow` (what else gives a shorter answer, such as "lower max-results"). An answer
/// within the cap is returned as it is.
pub fn cap(answer: String, max_chars: usize, narrow: &str) -> String {
    if answer.chars().nth(max_chars).is_none() {
        return answer;
    }
    let kept = page::cut_to_line(&answer, max_chars).trim_end();
    format!(
        "{kept}\n\n[truncated: kept the first {} characters because the answer cap of {max_chars} characters was reached; raise max-chars to keep more, or {narrow}]",
        kept.chars().count()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_over_the_cap_is_cut_on_a_line_and_says_so() {
        let answer = "first line\nsecond line\nthird line".to_owned();
        assert_eq!(cap(answer.clone(), 1000, "lower max-results"), answer);
        assert_eq!(
            cap(answer, 15, "lower max-results"),
            "first line\n\n[truncated: kept the first 10 characters because the answer cap of 15 characters was reached; raise max-chars to keep more, or lower max-results]"
        );
        assert!(cap("é".repeat(20), 5, "x").starts_with("ééééé\n\n[truncated: kept the first 5"));
    }

    #[test]
    fn the_cap_keeps_a_whole_line_that_ends_at_the_cap() {
        // The answer cap and the page cut are one cutter: a line that ends exactly at the
        // cap is kept whole by both.
        let text = "ab\ncd\nef";
        assert!(
            cap(text.to_owned(), 5, "x").starts_with("ab\ncd\n\n[truncated: kept the first 5 ")
        );
        assert_eq!(page::cut_to_line(text, 5), "ab\ncd");
    }
}
