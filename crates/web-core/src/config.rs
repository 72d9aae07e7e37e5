//! Strict JSON configuration of the Web pack, turned into typed [`Settings`].
//!
//! Two stages, so that nothing below this module knows the file format:
//! 1. the JSON object is read into a raw form, key by key: an unknown key is an error
//!    listing every valid key, and a value of the wrong JSON type names the key and
//!    what it takes;
//! 2. the raw form is turned into [`Settings`] (durations, byte counts, parsed CIDRs,
//!    checked URLs), each rule naming its key when a value is refused.
//!
//! A key that is absent takes its default. `null` means "none" for the keys whose
//! default is none (`proxy`, `ca-file`, `search-url`, `api-key`, `search-country`,
//! `search-lang`) and is a type error elsewhere.

use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use ipnet::IpNet;
use serde_json::{Map, Value};

use crate::error::ConfigError;
use crate::fetch::FetchOptions;
use crate::guard::Policy;
use crate::transport::ProxyUrl;
use crate::url::CheckedUrl;

/// What an unknown-key error names as the configuration's owner.
pub const OWNER: &str = "the Web pack";

/// Every configuration key of the Web pack, sorted.
pub const VALID_KEYS: &[&str] = &[
    "allow-cidrs",
    "allow-hosts",
    "allow-loopback",
    "allow-private",
    "api-key",
    "api-key-env",
    "ask-permission",
    "ca-file",
    "connect-timeout",
    "crawl-delay",
    "headers-timeout",
    "max-bytes",
    "max-chars",
    "provider",
    "proxy",
    "respect-robots",
    "safesearch",
    "search-country",
    "search-lang",
    "search-url",
    "timeout",
    "total-timeout",
    "user-agent",
];

/// The keys whose value is a list of strings.
pub const LIST_KEYS: &[&str] = &["allow-cidrs", "allow-hosts"];

/// The keys whose value is a boolean.
pub const BOOL_KEYS: &[&str] = &[
    "allow-loopback",
    "allow-private",
    "ask-permission",
    "respect-robots",
];

/// The keys whose value is a number.
pub const NUMBER_KEYS: &[&str] = &[
    "connect-timeout",
    "crawl-delay",
    "headers-timeout",
    "max-bytes",
    "max-chars",
    "timeout",
    "total-timeout",
];

/// Default `max-bytes`: 2 MiB of decoded body.
pub const DEFAULT_MAX_BYTES: u64 = 2 * 1024 * 1024;
/// The floor of `max-bytes`.
pub const MIN_MAX_BYTES: u64 = 4096;
/// Default `max-chars`.
pub const DEFAULT_MAX_CHARS: u64 = 40_000;
/// The floor of `max-chars`.
pub const MIN_MAX_CHARS: u64 = 1000;
/// Default `connect-timeout`.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default `headers-timeout`.
pub const DEFAULT_HEADERS_TIMEOUT: Duration = Duration::from_secs(15);
/// Default `timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default `total-timeout`.
pub const DEFAULT_TOTAL_TIMEOUT: Duration = Duration::from_secs(90);
/// Default `crawl-delay`.
pub const DEFAULT_CRAWL_DELAY: Duration = Duration::from_millis(500);
/// Default `api-key-env`.
pub const DEFAULT_API_KEY_ENV: &str = "BRAVE_API_KEY";

/// The default `user-agent`: `mcp-web/<version> (+<repository>)`.
pub fn default_user_agent() -> String {
    format!(
        "mcp-web/{} (+{})",
        env!("CARGO_PKG_VERSION"),
        env!("CARGO_PKG_REPOSITORY")
    )
}

/// The search provider `web_search` talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Provider {
    /// The Brave Search API.
    #[default]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SafeSearch {
    /// No filtering.
    Off,
    /// The provider's default filtering.
    #[default]
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

/// The typed configuration of the Web pack: every key of the configuration, with its
/// default applied and its rule checked. Each module builds its own options from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// `allow-private`: permit every non-public address class except cloud metadata.
    pub allow_private: bool,
    /// `allow-loopback`: permit loopback addresses only.
    pub allow_loopback: bool,
    /// `allow-hosts`: exact host names permitted whatever they resolve to; lowercase,
    /// punycode, IPv6 literals without brackets.
    pub allow_hosts: Vec<String>,
    /// `allow-cidrs`: blocks permitted, matched against the connected peer.
    pub allow_cidrs: Vec<IpNet>,
    /// `max-bytes`: cap on decoded body bytes read from one response.
    pub max_bytes: u64,
    /// `max-chars`: cap on the text one tool answer returns.
    pub max_chars: u64,
    /// `connect-timeout`: budget for opening one connection (TCP and TLS).
    pub connect_timeout: Duration,
    /// `headers-timeout`: budget from request sent to response headers received.
    pub headers_timeout: Duration,
    /// `timeout`: budget for one request, body included.
    pub timeout: Duration,
    /// `total-timeout`: budget for one tool call, every request included.
    pub total_timeout: Duration,
    /// `crawl-delay`: pause between requests to one origin while traversing;
    /// robots.txt's Crawl-delay wins when larger.
    pub crawl_delay: Duration,
    /// `respect-robots`: whether traversal (crawl, grep with depth) obeys robots.txt.
    pub respect_robots: bool,
    /// `user-agent`: the User-Agent header; its product token is matched against
    /// robots.txt groups.
    pub user_agent: String,
    /// `proxy`: an HTTP proxy (`http://host:port`) tunnelled through with CONNECT.
    pub proxy: Option<CheckedUrl>,
    /// `ca-file`: a PEM file of extra root certificates.
    pub ca_file: Option<PathBuf>,
    /// `provider`: the search provider.
    pub provider: Provider,
    /// `search-url`: the provider API's base URL; `None` means the provider's own.
    pub search_url: Option<CheckedUrl>,
    /// `api-key`: the provider's API key, when given in the configuration.
    pub api_key: Option<ApiKey>,
    /// `api-key-env`: the environment variable read for the API key at call time.
    pub api_key_env: String,
    /// `safesearch`: the safe-search level.
    pub safesearch: SafeSearch,
    /// `search-country`: the country passed to the provider.
    pub search_country: Option<String>,
    /// `search-lang`: the language passed to the provider.
    pub search_lang: Option<String>,
    /// `ask-permission`: ask the user before refusing a peer that allow-private or
    /// allow-loopback could permit.
    pub ask_permission: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            allow_private: false,
            allow_loopback: false,
            allow_hosts: Vec::new(),
            allow_cidrs: Vec::new(),
            max_bytes: DEFAULT_MAX_BYTES,
            max_chars: DEFAULT_MAX_CHARS,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            headers_timeout: DEFAULT_HEADERS_TIMEOUT,
            timeout: DEFAULT_TIMEOUT,
            total_timeout: DEFAULT_TOTAL_TIMEOUT,
            crawl_delay: DEFAULT_CRAWL_DELAY,
            respect_robots: true,
            user_agent: default_user_agent(),
            proxy: None,
            ca_file: None,
            provider: Provider::Brave,
            search_url: None,
            api_key: None,
            api_key_env: DEFAULT_API_KEY_ENV.to_owned(),
            safesearch: SafeSearch::Moderate,
            search_country: None,
            search_lang: None,
            ask_permission: false,
        }
    }
}

impl Settings {
    /// The address policy of the floor: `allow-private`, `allow-loopback`,
    /// `allow-hosts` and `allow-cidrs`.
    pub fn policy(&self) -> Policy {
        Policy {
            allow_private: self.allow_private,
            allow_loopback: self.allow_loopback,
            allow_hosts: self.allow_hosts.clone(),
            allow_cidrs: self.allow_cidrs.clone(),
        }
    }
}

/// Reads the Web pack's configuration object into [`Settings`], refusing unknown
/// keys, values of the wrong type and values a rule refuses.
pub fn parse_web_config(value: &Value) -> Result<Settings, ConfigError> {
    let map = value.as_object().ok_or_else(|| ConfigError::Syntax {
        source: OWNER.to_owned(),
        detail: format!("it is {}", json_type(value)),
    })?;
    Raw::read(map)?.settings()
}

/// The configuration as JSON types, every key known and of the right type.
#[derive(Debug, Default)]
struct Raw {
    allow_private: Option<bool>,
    allow_loopback: Option<bool>,
    allow_hosts: Option<Vec<String>>,
    allow_cidrs: Option<Vec<String>>,
    max_bytes: Option<Count>,
    max_chars: Option<Count>,
    connect_timeout: Option<f64>,
    headers_timeout: Option<f64>,
    timeout: Option<f64>,
    total_timeout: Option<f64>,
    crawl_delay: Option<f64>,
    respect_robots: Option<bool>,
    user_agent: Option<String>,
    proxy: Option<String>,
    ca_file: Option<String>,
    provider: Option<String>,
    search_url: Option<String>,
    api_key: Option<String>,
    api_key_env: Option<String>,
    safesearch: Option<String>,
    search_country: Option<String>,
    search_lang: Option<String>,
    ask_permission: Option<bool>,
}

/// A whole number as written: non-negative, or negative (refused by the rule, not the
/// type).
#[derive(Debug, Clone, Copy)]
enum Count {
    NonNegative(u64),
    Negative,
}

/// A JSON value's type in words, as configuration errors say it ("a boolean", "a list").
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn type_error(key: &str, expected: &'static str) -> ConfigError {
    ConfigError::Type {
        key: key.to_owned(),
        expected,
    }
}

/// Refuses a JSON object holding keys outside `valid`, naming every unknown key (sorted)
/// and every valid one, for `owner` ("the Web pack", "the server config FILE").
pub fn reject_unknown_keys(
    map: &Map<String, Value>,
    valid: &[&'static str],
    owner: &str,
) -> Result<(), ConfigError> {
    let mut unknown: Vec<String> = map
        .keys()
        .filter(|k| !valid.contains(&k.as_str()))
        .cloned()
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    unknown.sort();
    Err(ConfigError::UnknownKeys {
        owner: owner.to_owned(),
        unknown,
        valid: valid.to_vec(),
    })
}

fn value_error(key: &str, rule: impl Into<String>) -> ConfigError {
    ConfigError::Value {
        key: key.to_owned(),
        rule: rule.into(),
    }
}

impl Raw {
    fn read(map: &Map<String, Value>) -> Result<Raw, ConfigError> {
        reject_unknown_keys(map, VALID_KEYS, OWNER)?;
        let mut raw = Raw::default();
        for (key, value) in map {
            let key = key.as_str();
            match key {
                "allow-private" => raw.allow_private = Some(boolean(key, value)?),
                "allow-loopback" => raw.allow_loopback = Some(boolean(key, value)?),
                "respect-robots" => raw.respect_robots = Some(boolean(key, value)?),
                "ask-permission" => raw.ask_permission = Some(boolean(key, value)?),
                "allow-hosts" => raw.allow_hosts = Some(strings(key, value)?),
                "allow-cidrs" => raw.allow_cidrs = Some(strings(key, value)?),
                "max-bytes" => raw.max_bytes = Some(count(key, value, "a whole number of bytes")?),
                "max-chars" => {
                    raw.max_chars = Some(count(key, value, "a whole number of characters")?)
                }
                "connect-timeout" => raw.connect_timeout = Some(seconds(key, value)?),
                "headers-timeout" => raw.headers_timeout = Some(seconds(key, value)?),
                "timeout" => raw.timeout = Some(seconds(key, value)?),
                "total-timeout" => raw.total_timeout = Some(seconds(key, value)?),
                "crawl-delay" => raw.crawl_delay = Some(seconds(key, value)?),
                "user-agent" => raw.user_agent = Some(string(key, value)?),
                "provider" => raw.provider = Some(string(key, value)?),
                "api-key-env" => raw.api_key_env = Some(string(key, value)?),
                "safesearch" => raw.safesearch = Some(string(key, value)?),
                "proxy" => raw.proxy = optional_string(key, value)?,
                "ca-file" => raw.ca_file = optional_string(key, value)?,
                "search-url" => raw.search_url = optional_string(key, value)?,
                "api-key" => raw.api_key = optional_string(key, value)?,
                "search-country" => raw.search_country = optional_string(key, value)?,
                "search-lang" => raw.search_lang = optional_string(key, value)?,
                _ => {
                    return Err(ConfigError::UnknownKeys {
                        owner: OWNER.to_owned(),
                        unknown: vec![key.to_owned()],
                        valid: VALID_KEYS.to_vec(),
                    });
                }
            }
        }
        Ok(raw)
    }

    fn settings(self) -> Result<Settings, ConfigError> {
        let d = Settings::default();
        Ok(Settings {
            allow_private: self.allow_private.unwrap_or(d.allow_private),
            allow_loopback: self.allow_loopback.unwrap_or(d.allow_loopback),
            allow_hosts: match self.allow_hosts {
                Some(hosts) => hosts
                    .iter()
                    .map(|h| allow_host(h))
                    .collect::<Result<_, _>>()?,
                None => d.allow_hosts,
            },
            allow_cidrs: match self.allow_cidrs {
                Some(cidrs) => cidrs
                    .iter()
                    .map(|c| allow_cidr(c))
                    .collect::<Result<_, _>>()?,
                None => d.allow_cidrs,
            },
            max_bytes: at_least(
                "max-bytes",
                self.max_bytes,
                MIN_MAX_BYTES,
                d.max_bytes,
                "(below that a page cannot hold a document, and every fetch would report more truncation notice than page)",
            )?,
            max_chars: at_least(
                "max-chars",
                self.max_chars,
                MIN_MAX_CHARS,
                d.max_chars,
                "(below that an answer cannot hold a page's opening)",
            )?,
            connect_timeout: positive("connect-timeout", self.connect_timeout, d.connect_timeout)?,
            headers_timeout: positive("headers-timeout", self.headers_timeout, d.headers_timeout)?,
            timeout: positive("timeout", self.timeout, d.timeout)?,
            total_timeout: positive("total-timeout", self.total_timeout, d.total_timeout)?,
            crawl_delay: match self.crawl_delay {
                Some(s) if s < 0.0 => {
                    return Err(value_error(
                        "crawl-delay",
                        "cannot be negative (it is a pause in seconds; 0 means none)",
                    ));
                }
                Some(s) => duration("crawl-delay", s)?,
                None => d.crawl_delay,
            },
            respect_robots: self.respect_robots.unwrap_or(d.respect_robots),
            user_agent: match self.user_agent {
                Some(ua) => user_agent(ua)?,
                None => d.user_agent,
            },
            proxy: self.proxy.map(|p| proxy(&p)).transpose()?,
            ca_file: match self.ca_file {
                Some(f) if f.is_empty() => {
                    return Err(value_error("ca-file", "must name a PEM file (it is empty)"));
                }
                Some(f) => Some(PathBuf::from(f)),
                None => None,
            },
            provider: match self.provider.as_deref() {
                None | Some("brave") => Provider::Brave,
                Some("searxng") => Provider::Searxng,
                Some(other) => {
                    return Err(value_error(
                        "provider",
                        format!("must be \"brave\" or \"searxng\", not {:?}", cut(other)),
                    ));
                }
            },
            search_url: self.search_url.map(|u| search_url(&u)).transpose()?,
            api_key: match self.api_key {
                Some(k) if k.trim().is_empty() => {
                    return Err(value_error(
                        "api-key",
                        "must not be empty (leave it out to read \"api-key-env\" instead)",
                    ));
                }
                Some(k) => Some(ApiKey(k)),
                None => None,
            },
            api_key_env: match self.api_key_env {
                Some(name) if name.is_empty() || name.contains(['=', '\0']) => {
                    return Err(value_error(
                        "api-key-env",
                        "must name an environment variable (non-empty, without '=')",
                    ));
                }
                Some(name) => name,
                None => d.api_key_env,
            },
            safesearch: match self.safesearch.as_deref() {
                None | Some("moderate") => SafeSearch::Moderate,
                Some("off") => SafeSearch::Off,
                Some("strict") => SafeSearch::Strict,
                Some(other) => {
                    return Err(value_error(
                        "safesearch",
                        format!(
                            "must be \"off\", \"moderate\" or \"strict\", not {:?}",
                            cut(other)
                        ),
                    ));
                }
            },
            search_country: self
                .search_country
                .map(|c| code("search-country", c))
                .transpose()?,
            search_lang: self
                .search_lang
                .map(|c| code("search-lang", c))
                .transpose()?,
            ask_permission: self.ask_permission.unwrap_or(d.ask_permission),
        })
    }
}

fn boolean(key: &str, value: &Value) -> Result<bool, ConfigError> {
    value
        .as_bool()
        .ok_or_else(|| type_error(key, "a boolean (true or false)"))
}

fn string(key: &str, value: &Value) -> Result<String, ConfigError> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| type_error(key, "a string"))
}

fn optional_string(key: &str, value: &Value) -> Result<Option<String>, ConfigError> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        _ => Err(type_error(key, "a string (or null for none)")),
    }
}

fn strings(key: &str, value: &Value) -> Result<Vec<String>, ConfigError> {
    let expected = "a list of strings";
    value
        .as_array()
        .ok_or_else(|| type_error(key, expected))?
        .iter()
        .map(|v| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| type_error(key, expected))
        })
        .collect()
}

fn count(key: &str, value: &Value, expected: &'static str) -> Result<Count, ConfigError> {
    let Value::Number(n) = value else {
        return Err(type_error(key, expected));
    };
    if let Some(u) = n.as_u64() {
        return Ok(Count::NonNegative(u));
    }
    if n.as_i64().is_some() {
        return Ok(Count::Negative);
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f < 0.0 => Ok(Count::Negative),
        // Written with an exponent (`1e7`); `as` saturates at u64::MAX.
        Some(f) if f.fract() == 0.0 && f >= 0.0 => Ok(Count::NonNegative(f as u64)),
        _ => Err(type_error(key, expected)),
    }
}

fn seconds(key: &str, value: &Value) -> Result<f64, ConfigError> {
    value
        .as_f64()
        .ok_or_else(|| type_error(key, "a number of seconds"))
}

fn at_least(
    key: &str,
    value: Option<Count>,
    floor: u64,
    default: u64,
    why: &str,
) -> Result<u64, ConfigError> {
    match value {
        None => Ok(default),
        Some(Count::NonNegative(n)) if n >= floor => Ok(n),
        Some(_) => Err(value_error(key, format!("must be at least {floor} {why}"))),
    }
}

fn duration(key: &str, secs: f64) -> Result<Duration, ConfigError> {
    Duration::try_from_secs_f64(secs)
        .map_err(|_| value_error(key, "is too large a number of seconds"))
}

fn positive(key: &str, value: Option<f64>, default: Duration) -> Result<Duration, ConfigError> {
    match value {
        None => Ok(default),
        Some(s) if s > 0.0 => {
            let d = duration(key, s)?;
            if d.is_zero() {
                Err(value_error(key, "must be greater than 0 seconds"))
            } else {
                Ok(d)
            }
        }
        Some(_) => Err(value_error(key, "must be greater than 0 seconds")),
    }
}

/// Cuts a value quoted in a message.
fn cut(text: &str) -> String {
    crate::url::redact(text)
}

/// An `allow-hosts` entry: an exact host name, stored as the URL parser writes hosts
/// (lowercase, punycode, IPv6 without brackets).
fn allow_host(entry: &str) -> Result<String, ConfigError> {
    const KEY: &str = "allow-hosts";
    if entry.contains(['*', '?']) {
        return Err(value_error(
            KEY,
            format!(
                "entries are exact host names, not patterns: {:?} contains '*' or '?', which would match nothing and look like it matched everything",
                cut(entry)
            ),
        ));
    }
    if entry.is_empty() {
        return Err(value_error(KEY, "entries must not be empty"));
    }
    let not_a_host = || {
        value_error(
            KEY,
            format!(
                "entries are exact host names (like \"wiki.corp\"), not URLs: {:?} is not one",
                cut(entry)
            ),
        )
    };
    let bare = entry
        .strip_prefix('[')
        .and_then(|e| e.strip_suffix(']'))
        .unwrap_or(entry);
    if let Ok(ip) = bare.parse::<IpAddr>() {
        if bare.contains('%') {
            return Err(not_a_host());
        }
        // The host as a URL spells it: `::ffff:7f00:1`, not `::ffff:127.0.0.1`.
        return match CheckedUrl::parse(&format!(
            "http://{}/",
            match ip {
                IpAddr::V4(v4) => v4.to_string(),
                IpAddr::V6(v6) => format!("[{v6}]"),
            }
        )) {
            Ok(url) => Ok(url.host().to_owned()),
            Err(_) => Err(not_a_host()),
        };
    }
    if entry.contains(['/', ':', '@', '[', ']']) {
        return Err(not_a_host());
    }
    // The same shape checks a URL's host gets: a host the URL parser would rewrite
    // could never match.
    match CheckedUrl::parse(&format!("http://{entry}/")) {
        Ok(url) if url.ip().is_none() => Ok(url.host().to_owned()),
        Ok(_) => Err(not_a_host()),
        Err(e) => Err(value_error(
            KEY,
            format!(
                "entries are exact host names: {:?} is not one ({})",
                cut(entry),
                e.reason.rule()
            ),
        )),
    }
}

/// An `allow-cidrs` entry: a CIDR block, or a single address (a /32 or /128).
fn allow_cidr(entry: &str) -> Result<IpNet, ConfigError> {
    if let Ok(net) = entry.parse::<IpNet>() {
        return Ok(net.trunc());
    }
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return Ok(IpNet::from(ip));
    }
    Err(value_error(
        "allow-cidrs",
        format!(
            "entries are IPv4 or IPv6 CIDR blocks like \"10.0.0.0/8\" or \"fd00::/8\": {:?} is not one",
            cut(entry)
        ),
    ))
}

fn user_agent(ua: String) -> Result<String, ConfigError> {
    if ua.trim().is_empty() {
        return Err(value_error(
            "user-agent",
            "must not be empty: robots.txt groups are matched against its product token, and an origin cannot tell who visited it if it is blank",
        ));
    }
    if !ua.chars().all(|c| c == ' ' || c.is_ascii_graphic()) {
        return Err(value_error(
            "user-agent",
            "must be printable ASCII on one line (it is sent as an HTTP header)",
        ));
    }
    Ok(ua)
}

fn proxy(text: &str) -> Result<CheckedUrl, ConfigError> {
    let rule = |why: &str| {
        value_error(
            "proxy",
            format!("must be http://host:port, the address of an HTTP proxy: {why}"),
        )
    };
    let url = CheckedUrl::parse(text).map_err(|e| rule(&e.to_string()))?;
    if url.is_https() {
        return Err(rule("the connection to the proxy is plain http"));
    }
    if url.url().path() != "/" || url.url().query().is_some() || url.url().fragment().is_some() {
        return Err(rule(&format!(
            "{:?} has a path, query or fragment",
            cut(text)
        )));
    }
    Ok(url)
}

fn search_url(text: &str) -> Result<CheckedUrl, ConfigError> {
    CheckedUrl::parse(text).map_err(|e| {
        value_error(
            "search-url",
            format!("must be an http:// or https:// URL: {e}"),
        )
    })
}

fn code(key: &str, text: String) -> Result<String, ConfigError> {
    if text.is_empty()
        || !text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(value_error(
            key,
            format!(
                "must be a country or language code like \"us\" or \"en\", not {:?}",
                cut(&text)
            ),
        ));
    }
    Ok(text)
}

impl Settings {
    /// The options of a [`Fetcher`](crate::fetch::Fetcher) built from these settings.
    pub fn fetch_options(&self) -> Result<FetchOptions, ConfigError> {
        let proxy = match &self.proxy {
            Some(url) => Some(ProxyUrl::parse(url.as_str())?),
            None => None,
        };
        Ok(FetchOptions {
            max_bytes: usize::try_from(self.max_bytes).unwrap_or(usize::MAX),
            connect_timeout: self.connect_timeout,
            headers_timeout: self.headers_timeout,
            timeout: self.timeout,
            total_timeout: self.total_timeout,
            user_agent: self.user_agent.clone(),
            proxy,
            ca_file: self.ca_file.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Settings, ConfigError> {
        parse_web_config(&v)
    }

    fn err(v: Value) -> String {
        parse(v).unwrap_err().to_string()
    }

    #[test]
    fn valid_keys_are_sorted_unique_and_classified() {
        let mut sorted = VALID_KEYS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, VALID_KEYS);
        for k in LIST_KEYS.iter().chain(BOOL_KEYS).chain(NUMBER_KEYS) {
            assert!(VALID_KEYS.contains(k), "{k}");
        }
    }

    /// The README's configuration table names every key, and no key that is not one.
    #[test]
    fn every_key_is_documented_in_the_readme() {
        let readme = include_str!("../../../README.md");
        let rows: Vec<&str> = readme
            .lines()
            .filter_map(|l| l.strip_prefix("| `"))
            .filter_map(|l| l.split_once('`').map(|(key, _)| key))
            .collect();
        assert_eq!(rows.len(), VALID_KEYS.len(), "{rows:?}");
        for key in VALID_KEYS {
            assert!(rows.contains(key), "README does not document {key}");
        }
    }

    #[test]
    fn empty_object_gives_the_defaults() {
        let s = parse(json!({})).unwrap();
        assert_eq!(s, Settings::default());
        assert!(!s.allow_private && !s.allow_loopback && !s.ask_permission);
        assert!(s.allow_hosts.is_empty() && s.allow_cidrs.is_empty());
        assert_eq!(s.max_bytes, 2_097_152);
        assert_eq!(s.max_chars, 40_000);
        assert_eq!(s.connect_timeout, Duration::from_secs(10));
        assert_eq!(s.headers_timeout, Duration::from_secs(15));
        assert_eq!(s.timeout, Duration::from_secs(30));
        assert_eq!(s.total_timeout, Duration::from_secs(90));
        assert_eq!(s.crawl_delay, Duration::from_millis(500));
        assert!(s.respect_robots);
        assert_eq!(
            s.user_agent,
            format!(
                "mcp-web/{} (+https://github.com/mcp-web/mcp-web)",
                env!("CARGO_PKG_VERSION")
            )
        );
        assert_eq!(s.proxy, None);
        assert_eq!(s.ca_file, None);
        assert_eq!(s.provider, Provider::Brave);
        assert_eq!(s.search_url, None);
        assert_eq!(s.api_key, None);
        assert_eq!(s.api_key_env, "BRAVE_API_KEY");
        assert_eq!(s.safesearch, SafeSearch::Moderate);
        assert_eq!((s.search_country, s.search_lang), (None, None));
    }

    #[test]
    fn unknown_key_lists_every_valid_key() {
        let e = parse(json!({"providr": "brave", "allow-private": true})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Unknown config key(s) for the Web pack: providr.\nValid keys: allow-cidrs, allow-hosts, allow-loopback, allow-private, api-key, api-key-env, ask-permission, ca-file, connect-timeout, crawl-delay, headers-timeout, max-bytes, max-chars, provider, proxy, respect-robots, safesearch, search-country, search-lang, search-url, timeout, total-timeout, user-agent"
        );
        let e = parse(json!({"zeta": 1, "alpha": 2, "timeout": "x"})).unwrap_err();
        assert!(
            matches!(&e, ConfigError::UnknownKeys { unknown, .. } if unknown == &["alpha", "zeta"]),
            "{e:?}"
        );
        // Keys are case-sensitive and kebab-case.
        assert!(matches!(
            parse(json!({"allow_private": true})),
            Err(ConfigError::UnknownKeys { .. })
        ));
        assert!(matches!(
            parse(json!({"Allow-Private": true})),
            Err(ConfigError::UnknownKeys { .. })
        ));
    }

    #[test]
    fn not_an_object_is_a_syntax_error() {
        assert_eq!(
            err(json!([1])),
            "the configuration in the Web pack is not a JSON object: it is a list."
        );
        assert!(matches!(
            parse(json!(null)),
            Err(ConfigError::Syntax { .. })
        ));
    }

    /// Every key's wrong JSON type names the key and what it takes.
    #[test]
    fn type_errors_name_key_and_type() {
        let cases: &[(&str, Value, &str)] = &[
            ("allow-private", json!("yes"), "a boolean (true or false)"),
            ("allow-loopback", json!(1), "a boolean (true or false)"),
            ("respect-robots", json!(null), "a boolean (true or false)"),
            ("ask-permission", json!("true"), "a boolean (true or false)"),
            ("allow-hosts", json!("wiki.corp"), "a list of strings"),
            ("allow-hosts", json!(["a", 1]), "a list of strings"),
            ("allow-cidrs", json!("10.0.0.0/8"), "a list of strings"),
            ("max-bytes", json!("4096"), "a whole number of bytes"),
            ("max-bytes", json!(4096.5), "a whole number of bytes"),
            ("max-chars", json!(true), "a whole number of characters"),
            ("connect-timeout", json!("10"), "a number of seconds"),
            ("headers-timeout", json!([]), "a number of seconds"),
            ("timeout", json!(null), "a number of seconds"),
            ("total-timeout", json!({}), "a number of seconds"),
            ("crawl-delay", json!("0.5"), "a number of seconds"),
            ("user-agent", json!(1), "a string"),
            ("provider", json!(null), "a string"),
            ("api-key-env", json!(false), "a string"),
            ("safesearch", json!(0), "a string"),
            ("proxy", json!(8080), "a string (or null for none)"),
            ("ca-file", json!(true), "a string (or null for none)"),
            ("search-url", json!([]), "a string (or null for none)"),
            ("api-key", json!(123), "a string (or null for none)"),
            ("search-country", json!(1), "a string (or null for none)"),
            ("search-lang", json!(1), "a string (or null for none)"),
        ];
        for (key, value, expected) in cases {
            let e = parse(json!({ *key: value.clone() })).unwrap_err();
            assert_eq!(e.key(), Some(*key), "{e}");
            assert_eq!(
                e.to_string(),
                format!("config key \"{key}\" takes {expected}.")
            );
        }
        // Every key has a type error in the table.
        for key in VALID_KEYS {
            assert!(cases.iter().any(|(k, ..)| k == key), "{key} untested");
        }
    }

    /// Every rule refuses what it must and accepts its boundary.
    #[test]
    fn value_rules_name_key_and_rule() {
        let refused: &[(&str, Value, &str)] = &[
            (
                "max-bytes",
                json!(4095),
                "must be at least 4096 (below that a page cannot hold a document",
            ),
            ("max-bytes", json!(0), "must be at least 4096"),
            ("max-bytes", json!(-1), "must be at least 4096"),
            ("max-chars", json!(999), "must be at least 1000"),
            ("max-chars", json!(-5), "must be at least 1000"),
            (
                "connect-timeout",
                json!(0),
                "must be greater than 0 seconds",
            ),
            (
                "headers-timeout",
                json!(-1),
                "must be greater than 0 seconds",
            ),
            ("timeout", json!(0.0), "must be greater than 0 seconds"),
            (
                "total-timeout",
                json!(-0.5),
                "must be greater than 0 seconds",
            ),
            ("timeout", json!(1e300), "is too large a number of seconds"),
            ("timeout", json!(1e-12), "must be greater than 0 seconds"),
            ("crawl-delay", json!(-0.1), "cannot be negative"),
            ("crawl-delay", json!(1e300), "is too large"),
            (
                "user-agent",
                json!(""),
                "must not be empty: robots.txt groups",
            ),
            ("user-agent", json!("   "), "must not be empty"),
            (
                "user-agent",
                json!("bot\r\nX-Injected: 1"),
                "must be printable ASCII",
            ),
            (
                "allow-hosts",
                json!(["*.corp"]),
                "not patterns: \"*.corp\" contains '*' or '?'",
            ),
            ("allow-hosts", json!(["wiki?.corp"]), "not patterns"),
            ("allow-hosts", json!([""]), "must not be empty"),
            ("allow-hosts", json!(["https://wiki.corp/"]), "not URLs"),
            ("allow-hosts", json!(["wiki.corp:8080"]), "not URLs"),
            ("allow-hosts", json!(["user@wiki.corp"]), "not URLs"),
            ("allow-hosts", json!(["wiki.corp."]), "obfuscated-host"),
            ("allow-hosts", json!(["ｗiki.corp"]), "obfuscated-host"),
            ("allow-hosts", json!(["2130706433"]), "obfuscated-ipv4"),
            ("allow-hosts", json!(["wiki corp"]), "forbidden-character"),
            ("allow-cidrs", json!(["10.0.0.0/33"]), "CIDR blocks"),
            ("allow-cidrs", json!(["10.0.0/8"]), "CIDR blocks"),
            ("allow-cidrs", json!(["corp"]), "\"corp\" is not one"),
            ("allow-cidrs", json!([""]), "CIDR blocks"),
            (
                "provider",
                json!("google"),
                "must be \"brave\" or \"searxng\", not \"google\"",
            ),
            (
                "provider",
                json!("Brave"),
                "must be \"brave\" or \"searxng\"",
            ),
            (
                "safesearch",
                json!("none"),
                "must be \"off\", \"moderate\" or \"strict\"",
            ),
            (
                "proxy",
                json!("socks5://p:1080"),
                "must be http://host:port",
            ),
            ("proxy", json!("https://p:3128"), "plain http"),
            (
                "proxy",
                json!("http://p:3128/path"),
                "path, query or fragment",
            ),
            (
                "proxy",
                json!("http://u:pw@p:3128"),
                "user name or password",
            ),
            ("proxy", json!("p:3128"), "must be http://host:port"),
            ("ca-file", json!(""), "must name a PEM file"),
            (
                "search-url",
                json!("ftp://s/"),
                "must be an http:// or https:// URL",
            ),
            ("api-key", json!(""), "must not be empty"),
            (
                "api-key-env",
                json!(""),
                "must name an environment variable",
            ),
            (
                "api-key-env",
                json!("A=B"),
                "must name an environment variable",
            ),
            ("search-country", json!(""), "country or language code"),
            ("search-lang", json!("en US"), "country or language code"),
        ];
        for (key, value, rule) in refused {
            let e = parse(json!({ *key: value.clone() })).unwrap_err();
            assert!(
                matches!(e, ConfigError::Value { .. }),
                "{key}={value}: {e:?}"
            );
            assert_eq!(e.key(), Some(*key));
            let text = e.to_string();
            assert!(
                text.starts_with(&format!("config key \"{key}\" ")) && text.contains(rule),
                "{key}={value}: {text}"
            );
        }
    }

    #[test]
    fn accepted_values_are_typed() {
        let s = parse(json!({
            "allow-private": true,
            "allow-loopback": true,
            "allow-hosts": ["Wiki.Corp", "bücher.example", "[::1]", "10.1.2.3", "::ffff:127.0.0.1", "corp"],
            "allow-cidrs": ["10.0.0.0/8", "10.1.2.3/8", "fd00::/8", "192.0.2.7", "::1"],
            "max-bytes": 4096,
            "max-chars": 1000,
            "connect-timeout": 0.25,
            "headers-timeout": 1,
            "timeout": 2.5,
            "total-timeout": 600,
            "crawl-delay": 0,
            "respect-robots": false,
            "user-agent": "probe/1.0",
            "proxy": "http://proxy.corp:3128",
            "ca-file": "/etc/corp-ca.pem",
            "provider": "searxng",
            "search-url": "http://searx.lan:8080/",
            "api-key": "sekrit",
            "api-key-env": "MY_KEY",
            "safesearch": "strict",
            "search-country": "de",
            "search-lang": "de-DE",
            "ask-permission": true,
        }))
        .unwrap();
        assert!(s.allow_private && s.allow_loopback && s.ask_permission && !s.respect_robots);
        assert_eq!(
            s.allow_hosts,
            [
                "wiki.corp",
                "xn--bcher-kva.example",
                "::1",
                "10.1.2.3",
                "::ffff:7f00:1",
                "corp"
            ]
        );
        let cidrs: Vec<String> = s.allow_cidrs.iter().map(ToString::to_string).collect();
        assert_eq!(
            cidrs,
            [
                "10.0.0.0/8",
                "10.0.0.0/8",
                "fd00::/8",
                "192.0.2.7/32",
                "::1/128"
            ]
        );
        assert_eq!((s.max_bytes, s.max_chars), (4096, 1000));
        assert_eq!(s.connect_timeout, Duration::from_millis(250));
        assert_eq!(s.headers_timeout, Duration::from_secs(1));
        assert_eq!(s.timeout, Duration::from_millis(2500));
        assert_eq!(s.total_timeout, Duration::from_secs(600));
        assert_eq!(s.crawl_delay, Duration::ZERO);
        assert_eq!(s.user_agent, "probe/1.0");
        let proxy = s.proxy.as_ref().unwrap();
        assert_eq!((proxy.host(), proxy.port()), ("proxy.corp", 3128));
        assert_eq!(s.ca_file, Some(PathBuf::from("/etc/corp-ca.pem")));
        assert_eq!(s.provider, Provider::Searxng);
        assert_eq!(
            s.search_url.as_ref().unwrap().as_str(),
            "http://searx.lan:8080/"
        );
        assert_eq!(s.api_key.as_ref().unwrap().expose(), "sekrit");
        assert_eq!(s.api_key_env, "MY_KEY");
        assert_eq!(s.safesearch, SafeSearch::Strict);
        assert_eq!(s.search_country.as_deref(), Some("de"));
        assert_eq!(s.search_lang.as_deref(), Some("de-DE"));
        assert!(
            !format!("{s:?}").contains("sekrit"),
            "Debug shows the API key"
        );
    }

    #[test]
    fn policy_carries_the_four_switches() {
        assert_eq!(Settings::default().policy(), Policy::default());
        let s = parse(json!({
            "allow-private": true,
            "allow-loopback": true,
            "allow-hosts": ["Wiki.Corp"],
            "allow-cidrs": ["10.0.0.0/8"],
        }))
        .unwrap();
        let p = s.policy();
        assert!(p.allow_private && p.allow_loopback);
        assert_eq!(p.allow_hosts, ["wiki.corp"]);
        assert_eq!(p.allow_cidrs, ["10.0.0.0/8".parse::<IpNet>().unwrap()]);
        let ten = "10.1.2.3".parse().unwrap();
        assert!(Policy::default().decide("10.1.2.3", ten).is_err());
        let only_cidr = parse(json!({"allow-cidrs": ["10.0.0.0/8"]}))
            .unwrap()
            .policy();
        assert!(only_cidr.decide("10.1.2.3", ten).is_ok());
    }

    #[test]
    fn null_means_none_for_optional_keys() {
        let s = parse(json!({
            "proxy": null, "ca-file": null, "search-url": null,
            "api-key": null, "search-country": null, "search-lang": null,
        }))
        .unwrap();
        assert_eq!(s, Settings::default());
    }

    #[test]
    fn large_counts_are_accepted_and_providers_spelled() {
        let s =
            parse(json!({"max-bytes": 1e10, "provider": "brave", "safesearch": "off"})).unwrap();
        assert_eq!(s.max_bytes, 10_000_000_000);
        assert_eq!(
            (s.provider.as_str(), s.safesearch.as_str()),
            ("brave", "off")
        );
        assert_eq!(Provider::Searxng.to_string(), "searxng");
        assert_eq!(SafeSearch::Moderate.to_string(), "moderate");
    }
}
