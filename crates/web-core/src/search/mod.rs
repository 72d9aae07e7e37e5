//! Web search: the [`SearchProvider`] seam `web_search` asks, and the two providers
//! the configuration can name, [`Brave`] (the Brave Search API) and [`Searxng`] (a
//! SearXNG instance's JSON API).
//!
//! A provider is two methods: [`SearchProvider::name`] and [`SearchProvider::search`],
//! which answers [`SearchResult`]s or an [`Error::Search`] whose message is the whole
//! story the model gets, and a third, [`SearchProvider::search_filtered`], for the
//! [`Filters`] a call may add (freshness, one site, a page): a provider that cannot
//! apply one refuses it with [`SearchFailure::Unsupported`] rather than answer
//! unfiltered results, which is what the seam's default does. A host can pass any
//! provider of its own in place of the configured one.
//!
//! The shipped providers talk to an endpoint the operator wrote in the configuration
//! (`search-url`, or Brave's public API host), so their HTTP client goes through
//! [`OperatorConnector`](crate::transport::operator::OperatorConnector), not the
//! guard: the only code path of this crate that skips it. It has its own deadlines
//! (`connect-timeout`, `timeout`), the same trust roots and `ca-file`, pooled
//! keep-alive connections and the `proxy` when one is set. An API key is resolved at
//! every call, never at construction, and never appears in a URL or a message.
//!
//! [`Paced`] wraps whichever provider is asked: its requests are spaced by
//! `search-rate`, and a rate limit answered with a delay is waited out and retried once
//! within the call's deadline.

mod brave;
mod client;
mod pace;
mod searxng;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::error::{ConfigError, Error, Search, SearchFailure};
use crate::transport::{NetworkOptions, Resolve};
use crate::url::CheckedUrl;

pub use brave::{BRAVE_API, Brave, Environment, ProcessEnvironment};
pub use pace::{Paced, Pacing};
pub use searxng::Searxng;

/// One search result, as every provider normalises it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult {
    /// The page's title, as plain text.
    pub title: String,
    /// The page's URL.
    pub url: String,
    /// The engine's excerpt of the page, as plain text (highlighting markup removed).
    pub snippet: String,
    /// How old the page is, in the engine's words (`"2 days ago"`, a date), when it
    /// says.
    pub age: Option<String>,
}

/// How recent a result must be (`freshness`): published or updated within the last
/// day, week, month or year.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Freshness {
    /// The last 24 hours.
    Day,
    /// The last 7 days.
    Week,
    /// The last 31 days.
    Month,
    /// The last 365 days.
    Year,
}

impl Freshness {
    /// Every value, in the order the schema lists them.
    pub const ALL: [Freshness; 4] = [
        Freshness::Day,
        Freshness::Week,
        Freshness::Month,
        Freshness::Year,
    ];

    /// The value as the `freshness` parameter spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Freshness::Day => "day",
            Freshness::Week => "week",
            Freshness::Month => "month",
            Freshness::Year => "year",
        }
    }

    /// The value `name` spells, when it is one.
    pub fn parse(name: &str) -> Option<Freshness> {
        Freshness::ALL.into_iter().find(|f| f.as_str() == name)
    }
}

impl fmt::Display for Freshness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The most pages a search reaches (Brave serves at most ten pages of one query).
pub const MAX_PAGE: usize = 10;

/// The filters of one search, beyond its query and count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filters {
    /// Only results this recent.
    pub freshness: Option<Freshness>,
    /// Only results from this host (or its subdomains), as [`site_host`] wrote it.
    pub site: Option<String>,
    /// Which page of `count` results, 1-based, at most [`MAX_PAGE`]: page 2 of 10
    /// is results 11 to 20.
    pub page: usize,
}

/// No filter: the first page.
pub static NO_FILTERS: Filters = Filters {
    freshness: None,
    site: None,
    page: 1,
};

impl Default for Filters {
    /// No filter: the first page.
    fn default() -> Self {
        NO_FILTERS.clone()
    }
}

impl Filters {
    /// The first filter set, as a provider without filters would refuse it: its
    /// parameter name and value.
    pub fn first_set(&self) -> Option<(&'static str, String)> {
        if let Some(freshness) = self.freshness {
            return Some(("freshness", freshness.to_string()));
        }
        if let Some(site) = &self.site {
            return Some(("site", site.clone()));
        }
        (self.page != 1).then(|| ("page", self.page.to_string()))
    }

    /// `query` restricted to the site with the `site:` operator both shipped engines
    /// read, when a site is set.
    pub fn query_with_site(&self, query: &str) -> String {
        match &self.site {
            Some(site) => format!("site:{site} {query}"),
            None => query.to_owned(),
        }
    }

    /// Whether `url` is on the site (the host itself or a subdomain of it), or no site
    /// is set. The `site:` operator is a request to the engine; this keeps the answer
    /// to it whatever the engine did.
    pub fn admits(&self, url: &str) -> bool {
        let Some(site) = &self.site else {
            return true;
        };
        let Ok(parsed) = url::Url::parse(url) else {
            return false;
        };
        let Some(host) = parsed.host_str() else {
            return false;
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        host == *site
            || host
                .strip_suffix(site.as_str())
                .is_some_and(|rest| rest.ends_with('.'))
    }
}

/// The host a `site` filter names, lowercase and in ASCII (punycode), without a
/// trailing dot; or why it is not one (a scheme, a path, a port, a space, an IP
/// address is refused: the filter is one host name).
pub fn site_host(site: &str) -> Result<String, &'static str> {
    let site = site.trim();
    if site.is_empty() {
        return Err("it is empty; give a host name such as \"docs.rs\"");
    }
    if site.contains("://") || site.contains(['/', '?', '#', '@', ':', ' ', '*']) {
        return Err(
            "it is not a bare host name: give the host alone, such as \"docs.rs\" (no scheme, port, path or wildcard)",
        );
    }
    let parsed = url::Url::parse(&format!("http://{site}/"))
        .map_err(|_| "it is not a valid host name, such as \"docs.rs\"")?;
    match parsed.host() {
        Some(url::Host::Domain(host)) => {
            let host = host.trim_end_matches('.');
            if !host.contains('.') {
                return Err("it is not a host name with a dot in it, such as \"docs.rs\"");
            }
            Ok(host.to_owned())
        }
        _ => Err("it is an IP address; give a host name such as \"docs.rs\""),
    }
}

/// The failure a provider answers for a filter it cannot apply.
pub fn unsupported(
    provider: &str,
    filter: &'static str,
    value: String,
    offers: Option<&'static str>,
) -> Error {
    Error::Search(Search::new(
        provider,
        SearchFailure::Unsupported {
            filter,
            value,
            offers,
        },
    ))
}

/// What [`SearchProvider::search`] returns: the results, at most as many as asked for.
pub type Searching<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<SearchResult>, Error>> + Send + 'a>>;

/// A search engine behind a seam of two methods. `web_search` asks whichever provider
/// the pack was built with: the configured one, or one a host passed in code.
pub trait SearchProvider: Send + Sync + 'static {
    /// The provider's name, as answers show it (`"brave"`, `"searxng"`, `"my-provider"`).
    fn name(&self) -> &str;

    /// At most `count` results for `query`, best first; an empty list when the engine
    /// matched nothing. A failure is an [`Error::Search`] whose first line teaches.
    fn search<'a>(&'a self, query: &'a str, count: usize) -> Searching<'a>;

    /// At most `count` results for `query` under `filters`, each applied through the
    /// engine's own parameter; a filter the provider cannot apply is refused with
    /// [`SearchFailure::Unsupported`], never ignored. The default applies none: it
    /// searches when no filter is set and refuses the first one set otherwise.
    fn search_filtered<'a>(
        &'a self,
        query: &'a str,
        count: usize,
        filters: &'a Filters,
    ) -> Searching<'a> {
        match filters.first_set() {
            None => self.search(query, count),
            Some((filter, value)) => {
                let error = unsupported(self.name(), filter, value, None);
                Box::pin(async move { Err(error) })
            }
        }
    }
}

/// A provider built into this crate: its name and one search under filters that fails
/// with its own [`SearchFailure`]. The [`SearchProvider`] seam is written once for every
/// engine: the failure becomes an [`Error::Search`] naming the engine.
pub(crate) trait Engine: Send + Sync + 'static {
    /// The engine's name, as answers show it.
    const NAME: &'static str;

    /// At most `count` results for `query` under `filters`.
    fn run(
        &self,
        query: &str,
        count: usize,
        filters: &Filters,
    ) -> impl Future<Output = Result<Vec<SearchResult>, SearchFailure>> + Send;
}

impl<E: Engine> SearchProvider for E {
    fn name(&self) -> &str {
        E::NAME
    }

    fn search<'a>(&'a self, query: &'a str, count: usize) -> Searching<'a> {
        self.search_filtered(query, count, &NO_FILTERS)
    }

    fn search_filtered<'a>(
        &'a self,
        query: &'a str,
        count: usize,
        filters: &'a Filters,
    ) -> Searching<'a> {
        Box::pin(async move {
            self.run(query, count, filters)
                .await
                .map_err(|failure| Error::Search(Search::new(E::NAME, failure)))
        })
    }
}

/// The search keys of the configuration: which provider, where, with which key and
/// preferences, and how often it may be asked. How the shipped providers' client
/// reaches the network (`connect-timeout`, `proxy`, `ca-file`, `user-agent`, and
/// `timeout` for one request) is the fetch's, given to them beside these.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOptions {
    /// Which provider (`provider`).
    pub provider: Provider,
    /// The provider API's base URL (`search-url`); `None` means the provider's own
    /// (Brave's public API; SearXNG has none).
    pub search_url: Option<CheckedUrl>,
    /// The API key from the configuration (`api-key`).
    pub api_key: Option<ApiKey>,
    /// The environment variable read for the key at every call (`api-key-env`).
    pub api_key_env: String,
    /// The safe-search level (`safesearch`).
    pub safesearch: SafeSearch,
    /// The country passed to the provider (`search-country`).
    pub country: Option<String>,
    /// The language passed to the provider (`search-lang`).
    pub lang: Option<String>,
    /// The most requests per second sent to the provider (`search-rate`): what
    /// [`Paced`] spaces them by.
    pub rate: u64,
}

/// The provider `options` name, its client reaching the network as `network` says,
/// each request within `timeout`, resolving names with `resolver`. Fails when
/// `ca-file` cannot be read, or when SearXNG is chosen without a `search-url`.
pub fn configured(
    options: &SearchOptions,
    network: &NetworkOptions,
    timeout: Duration,
    resolver: Arc<dyn Resolve>,
) -> Result<Arc<dyn SearchProvider>, ConfigError> {
    Ok(match options.provider {
        Provider::Brave => Arc::new(Brave::new(options, network, timeout, resolver)?),
        Provider::Searxng => Arc::new(Searxng::new(options, network, timeout, resolver)?),
    })
}

/// The results in a provider's JSON list `results`, in order: each entry's `url`,
/// `title`, the snippet under `snippet_field` and the age under `age_field`, markup
/// stripped; an entry without a URL is skipped.
pub(crate) fn results_from(
    results: &[serde_json::Value],
    snippet_field: &str,
    age_field: &str,
) -> impl Iterator<Item = SearchResult> {
    results.iter().filter_map(move |r| {
        let text = |name: &str| r.get(name).and_then(serde_json::Value::as_str);
        let url = text("url")?.trim();
        if url.is_empty() {
            return None;
        }
        Some(SearchResult {
            title: strip_markup(text("title").unwrap_or_default()),
            url: url.to_owned(),
            snippet: strip_markup(text(snippet_field).unwrap_or_default()),
            age: text(age_field)
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(str::to_owned),
        })
    })
}

/// An engine's snippet or title as plain text: tags removed (Brave wraps the matched
/// words in `<strong>`), character references decoded, runs of whitespace made one
/// space. Linear in the text: a tag runs from a `<` to the next `>` with no `<`
/// between, so each `<` looks no further than the next one.
pub fn strip_markup(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['<', '&']) {
        plain.push_str(&rest[..at]);
        rest = &rest[at..];
        if rest.starts_with('<') {
            // A tag runs to its '>'; a '<' that opens none is text.
            match rest[1..].find(['<', '>']).map(|end| end + 1) {
                Some(end) if rest.as_bytes()[end] == b'>' && is_tag(&rest[1..end]) => {
                    rest = &rest[end + 1..];
                }
                _ => {
                    plain.push('<');
                    rest = &rest[1..];
                }
            }
        } else {
            match reference(rest) {
                Some((decoded, len)) => {
                    plain.push(decoded);
                    rest = &rest[len..];
                }
                None => {
                    plain.push('&');
                    rest = &rest[1..];
                }
            }
        }
    }
    plain.push_str(rest);
    plain.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What a provider's redirect answer says to do: the client follows no redirects,
/// since only the endpoint the operator wrote may be reached without the guard.
const REDIRECT_HINT: &str = "The search client follows no redirects (only the endpoint in the configuration is reached): point \"search-url\" at the API itself.";

/// How much of a provider's error text is read for its words, in bytes.
const EXCERPT_READ: usize = 16 * 1024;

/// A provider's own words about a failure, on one line and cut to 200 characters; only
/// the first [`EXCERPT_READ`] bytes of the text are read.
fn excerpt(text: &str) -> String {
    let mut end = text.len().min(EXCERPT_READ);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let line = strip_markup(&text[..end]);
    match line.char_indices().nth(200) {
        Some((at, _)) => format!("{} …", &line[..at]),
        None => line,
    }
}

/// The start of an error answer's body as words, when it holds any (a JSON body's
/// `message`, `detail` or `error` text, or the text of an HTML or plain page).
fn text_excerpt(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) {
        let said = ["message", "detail", "error"]
            .iter()
            .find_map(|k| json.get(*k).and_then(serde_json::Value::as_str))?;
        return Some(excerpt(said)).filter(|s| !s.is_empty());
    }
    // Drop an HTML page's head (its styles and title are not the message).
    let visible = match text.find("<body") {
        Some(at) => &text[at..],
        None => &text,
    };
    Some(excerpt(visible)).filter(|s| !s.is_empty())
}

/// When a `Retry-After` header asks to retry: `in N seconds`, or `after <date>`.
fn retry_after(reply: &client::Reply) -> Option<String> {
    let value = reply.header("retry-after")?;
    if value.is_empty() {
        return None;
    }
    Some(match value.parse::<u64>() {
        Ok(s) => in_seconds(s),
        Err(_) => format!("after {}", crate::error::quoted(value)),
    })
}

/// A `Retry-After` header's delay in seconds, when it gives one (not a date).
fn retry_after_seconds(reply: &client::Reply) -> Option<Duration> {
    reply
        .header("retry-after")?
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

/// `in 1 second`, `in 90 seconds`.
fn in_seconds(s: u64) -> String {
    if s == 1 {
        "in 1 second".to_owned()
    } else {
        format!("in {s} seconds")
    }
}

/// Whether the text between `<` and `>` is a tag (`strong`, `/strong`, `br /`).
fn is_tag(inner: &str) -> bool {
    let name = inner.strip_prefix('/').unwrap_or(inner);
    name.starts_with(|c: char| c.is_ascii_alphabetic()) && !name.contains('<')
}

/// The character a reference at the start of `text` stands for, and its length.
fn reference(text: &str) -> Option<(char, usize)> {
    let end = text.bytes().take(12).position(|b| b == b';')?;
    let body = &text[1..end];
    let c = match body {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        _ => {
            let code =
                if let Some(hex) = body.strip_prefix("#x").or_else(|| body.strip_prefix("#X")) {
                    u32::from_str_radix(hex, 16).ok()?
                } else {
                    body.strip_prefix('#')?.parse::<u32>().ok()?
                };
            char::from_u32(code)?
        }
    };
    Some((c, end + 1))
}

/// The search provider `web_search` talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// The Brave Search API.
    Brave,
    /// A SearXNG instance's JSON API.
    Searxng,
}

impl Provider {
    /// The provider's name, as the `provider` key spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Brave => "brave",
            Provider::Searxng => "searxng",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The safe-search level passed to the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SafeSearch {
    /// No filtering.
    Off,
    /// The provider's default filtering.
    Moderate,
    /// Strict filtering.
    Strict,
}

impl SafeSearch {
    /// The level's name, as the `safesearch` key spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            SafeSearch::Off => "off",
            SafeSearch::Moderate => "moderate",
            SafeSearch::Strict => "strict",
        }
    }
}

impl fmt::Display for SafeSearch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An API key from the configuration. Its `Debug` never shows it; only
/// [`ApiKey::expose`] does, for the request that needs it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key itself, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_config_spellings() {
        assert_eq!(Provider::Searxng.to_string(), "searxng");
        assert_eq!(Provider::Brave.as_str(), "brave");
        assert_eq!(SafeSearch::Moderate.to_string(), "moderate");
        assert_eq!(SafeSearch::Off.as_str(), "off");
    }

    /// The CPU time this thread has used, from `/proc/thread-self/stat` (Linux).
    fn thread_cpu() -> Option<std::time::Duration> {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let ticks: u64 =
            fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(std::time::Duration::from_millis(ticks * 10))
    }

    /// 1 MiB of `<` (each opening no tag) and of `<<…b>` once took about half a
    /// minute each: every `<` looked for a `>` to the end of the text. Now one pass,
    /// under a second of CPU time even unoptimised.
    #[test]
    fn stripping_is_linear_on_pathological_markup() {
        let Some(before) = thread_cpu() else {
            return;
        };
        let lone = "<".repeat(1 << 20);
        assert_eq!(strip_markup(&lone).len(), lone.len());
        let nested = format!("{}b>", "<".repeat(1 << 20));
        assert_eq!(strip_markup(&nested), "<".repeat((1 << 20) - 1));
        let spent = thread_cpu().unwrap_or_default().saturating_sub(before);
        assert!(
            spent < std::time::Duration::from_secs(2),
            "{spent:?} of CPU"
        );
        // The error excerpt reads only the start of a provider's body.
        assert_eq!(excerpt(&lone).chars().count(), 202);
    }

    #[test]
    fn markup_is_stripped_from_snippets() {
        assert_eq!(
            strip_markup("The <strong>Raku</strong> grammars &amp; regexes&#x27; docs"),
            "The Raku grammars & regexes' docs"
        );
        assert_eq!(
            strip_markup("a <b>c</b>\n  d &lt;tag&gt; &#233; &bogus; 1 < 2 & 3"),
            "a c d <tag> é &bogus; 1 < 2 & 3"
        );
        assert_eq!(strip_markup("line<br/>break"), "linebreak");
        assert_eq!(strip_markup(""), "");
    }

    #[test]
    fn a_site_is_one_host_name() {
        assert_eq!(site_host(" Docs.RS. ").as_deref(), Ok("docs.rs"));
        assert_eq!(
            site_host("bücher.example").as_deref(),
            Ok("xn--bcher-kva.example")
        );
        for bad in [
            "",
            "https://docs.rs",
            "docs.rs/x",
            "docs.rs:443",
            "*.docs.rs",
            "a b.rs",
            "localhost",
            "127.0.0.1",
            "2130706433",
            "[::1]",
        ] {
            assert!(site_host(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_site_admits_its_host_and_subdomains_only() {
        let filters = Filters {
            site: Some("docs.rs".into()),
            ..Filters::default()
        };
        for (url, admitted) in [
            ("https://docs.rs/serde", true),
            ("https://DOCS.rs./serde", true),
            ("https://x.docs.rs/", true),
            ("https://evildocs.rs/", false),
            ("https://docs.rs.evil.example/", false),
            ("not a url", false),
        ] {
            assert_eq!(filters.admits(url), admitted, "{url}");
        }
        assert!(Filters::default().admits("not a url"));
        assert_eq!(filters.query_with_site("serde"), "site:docs.rs serde");
        assert_eq!(Filters::default().query_with_site("serde"), "serde");
        assert_eq!(Filters::default().first_set(), None);
        assert_eq!(filters.first_set(), Some(("site", "docs.rs".to_owned())));
    }

    #[test]
    fn api_key_debug_is_redacted() {
        let key = ApiKey::new("sekrit");
        assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
        assert_eq!(key.expose(), "sekrit");
    }
}
