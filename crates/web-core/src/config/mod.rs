//! Strict JSON configuration of the Web pack, turned into typed [`Settings`].
//!
//! Every key is defined once, in [`keys::KEYS`]: name, type, rule, default, doc line and
//! the value name of its command-line flag. Reading a configuration object has two
//! stages, so that nothing below this module knows the file format:
//! 1. every key is checked against the table, in the order written: an unknown key is
//!    an error listing every valid key, and a value of the wrong JSON type names the
//!    key and what it takes;
//! 2. each key's rule turns its value into [`Settings`] (durations, byte counts, parsed
//!    CIDRs, checked URLs), in the table's order, naming the key when it refuses a value.
//!
//! A key that is absent takes its default from the table. `null` means "none" for the
//! keys whose default is none (`proxy`, `ca-file`, `search-url`, `api-key`,
//! `search-country`, `search-lang`) and is a type error elsewhere.

pub mod keys;

use std::time::Duration;

use serde_json::{Map, Value};

use crate::crawl::Politeness;
use crate::error::ConfigError;
use crate::fetch::{CacheConfig, FetchOptions};
use crate::guard::Policy;
use crate::search::{Provider, SafeSearch, SearchOptions};
use crate::transport::NetworkOptions;

pub use keys::{DefaultValue, KEYS, Key, Kind, key, valid_keys};

/// What an unknown-key error names as the configuration's owner.
pub const OWNER: &str = "the Web pack";

/// The typed configuration of the Web pack: every key of the configuration, with its
/// default applied and its rule checked, held in the options of the module that reads
/// it, so that each module is handed its own options whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The address policy of the floor: `allow-private`, `allow-loopback`,
    /// `allow-hosts`, `allow-cidrs`, `nat64-prefixes` and `allow-ports`.
    pub policy: Policy,
    /// What a fetch may read and how long it may take, and how it reaches the network:
    /// `max-bytes`, `max-pdf-bytes`, `headers-timeout`, `timeout`, `total-timeout`,
    /// `cache-bytes`, `cache-max-age` and the network keys (`connect-timeout`, `proxy`,
    /// `ca-file`, `user-agent`). The search provider's client is given the network keys
    /// and `timeout` from here.
    pub fetch: FetchOptions,
    /// `max-chars`: cap on the text one tool answer returns.
    pub max_chars: usize,
    /// How traversal treats an origin: `crawl-delay` and `respect-robots`.
    pub crawl: Politeness,
    /// The search keys: `provider`, `search-url`, `api-key`, `api-key-env`,
    /// `safesearch`, `search-country`, `search-lang` and `search-rate`.
    pub search: SearchOptions,
    /// `ask-permission`: ask the user before refusing a peer that allow-private or
    /// allow-loopback could permit.
    pub ask_permission: bool,
    /// `tools`: the names of the tools served, each once.
    pub tools: Vec<String>,
}

impl Default for Settings {
    /// Every key at its default from [`KEYS`], each put through its own rule.
    fn default() -> Self {
        let mut settings = Settings::unset();
        for key in KEYS {
            if let Err(e) = key.apply(&mut settings, &key.default.to_json()) {
                // A defect of the table, not of any input: `every_key_is_listed_parsed_and_documented`
                // puts every default through its rule.
                panic!(
                    "the default of config key {:?} is refused by its own rule: {e}",
                    key.name()
                );
            }
        }
        settings
    }
}

impl Settings {
    /// Every field at a placeholder, each overwritten by its key's default in
    /// [`Settings::default`].
    fn unset() -> Settings {
        Settings {
            policy: Policy::default(),
            fetch: FetchOptions {
                max_bytes: 0,
                max_pdf_bytes: 0,
                headers_timeout: Duration::ZERO,
                timeout: Duration::ZERO,
                total_timeout: Duration::ZERO,
                network: NetworkOptions {
                    connect_timeout: Duration::ZERO,
                    proxy: None,
                    ca_file: None,
                    user_agent: String::new(),
                },
                cache: CacheConfig {
                    bytes: 0,
                    max_age: Duration::ZERO,
                    shared: false,
                },
            },
            max_chars: 0,
            crawl: Politeness {
                crawl_delay: Duration::ZERO,
                respect_robots: false,
            },
            search: SearchOptions {
                provider: Provider::Brave,
                search_url: None,
                api_key: None,
                api_key_env: String::new(),
                safesearch: SafeSearch::Moderate,
                country: None,
                lang: None,
                rate: 0,
            },
            ask_permission: false,
            tools: Vec::new(),
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
    reject_unknown_keys(map, &valid_keys(), OWNER)?;
    // Every value's type first, in the order written; then every rule, in the table's.
    for (name, value) in map {
        if let Some(key) = key(name) {
            key.check_type(value)?;
        }
    }
    let mut settings = Settings::default();
    for key in KEYS {
        if let Some(value) = map.get(key.name()) {
            key.apply(&mut settings, value)?;
        }
    }
    Ok(settings)
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

/// Refuses a JSON object holding keys outside `valid`, naming every unknown key (sorted)
/// and every valid one, for `owner` ("the Web pack").
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

fn type_error(key: &str, expected: &'static str) -> ConfigError {
    ConfigError::Type {
        key: key.to_owned(),
        expected,
    }
}

fn value_error(key: &str, rule: impl Into<String>) -> ConfigError {
    ConfigError::Value {
        key: key.to_owned(),
        rule: rule.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::ConfigKey;
    use crate::transport::ProxyUrl;
    use ipnet::{IpNet, Ipv6Net};
    use serde_json::json;
    use std::path::PathBuf;

    fn parse(v: Value) -> Result<Settings, ConfigError> {
        parse_web_config(&v)
    }

    fn err(v: Value) -> String {
        parse(v).unwrap_err().to_string()
    }

    #[test]
    fn valid_keys_are_sorted_and_unique() {
        let valid = valid_keys();
        let mut sorted = valid.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, valid);
        assert_eq!(valid.len(), KEYS.len(), "a key is in the table twice");
        for name in valid {
            assert_eq!(key(name).map(|k| k.name()), Some(name));
        }
        assert!(key("providr").is_none());
    }

    #[test]
    fn the_table_has_one_row_per_key_name_in_order() {
        let ids: Vec<ConfigKey> = KEYS.iter().map(|key| key.id).collect();
        assert_eq!(ids, ConfigKey::ALL);
    }

    /// The README's table row of a key, as the table defines it.
    fn readme_row(key: &Key) -> String {
        format!("| `{}` | {} | {} |", key.name(), key.default, key.summary())
    }

    /// The rows of the README's configuration table.
    fn readme_rows() -> Vec<&'static str> {
        include_str!("../../../../README.md")
            .lines()
            .filter(|l| l.starts_with("| `"))
            .collect()
    }

    /// The README's configuration table is the key table: every key, in its order,
    /// with its default and its doc line, and no other.
    #[test]
    fn the_readme_table_is_the_key_table() {
        let expected: Vec<String> = KEYS.iter().map(readme_row).collect();
        assert_eq!(
            readme_rows(),
            expected,
            "README.md's configuration table should read:\n{}",
            expected.join("\n")
        );
    }

    /// Each key of the table is a valid key, is read by the parser with its own type
    /// and rule, has a default its rule accepts and a row in the README: adding a key
    /// to the table is all it takes.
    #[test]
    fn every_key_is_listed_parsed_and_documented() {
        let defaults = Settings::default();
        let rows = readme_rows();
        let wrong_type = |kind: Kind| match kind {
            Kind::Bool => json!("true"),
            Kind::Strings => json!("one"),
            Kind::Count | Kind::Seconds => json!("1"),
            Kind::Text | Kind::OptionalText => json!(1),
        };
        for key in KEYS {
            assert!(valid_keys().contains(&key.name()), "{}", key.name());
            // Its default is accepted by its rule and is what an absent key gives.
            let given = parse(json!({ (key.name()): key.default.to_json() }));
            assert_eq!(given.as_ref(), Ok(&defaults), "{}", key.name());
            // The parser reads it with its type.
            let e = parse(json!({ (key.name()): wrong_type(key.kind()) })).unwrap_err();
            assert_eq!(
                e,
                ConfigError::Type {
                    key: key.name().to_owned(),
                    expected: key.expected()
                }
            );
            assert!(!key.doc.is_empty() && !key.value_name.is_empty());
            assert!(
                rows.contains(&readme_row(key).as_str()),
                "README does not document {}",
                key.name()
            );
        }
        // The defaults, spelled as the README shows them.
        let shown = |name: &str| key(name).map(|k| k.default.to_string());
        assert_eq!(shown("max-bytes").as_deref(), Some("2097152"));
        assert_eq!(shown("connect-timeout").as_deref(), Some("10"));
        assert_eq!(shown("crawl-delay").as_deref(), Some("0.5"));
        assert_eq!(shown("allow-hosts").as_deref(), Some("[]"));
        assert_eq!(shown("provider").as_deref(), Some("`brave`"));
        assert_eq!(shown("proxy").as_deref(), Some("none"));
        assert_eq!(
            key("search-url").unwrap().default.to_string(),
            "the provider's"
        );
        assert_eq!(
            key("user-agent").unwrap().default.to_string(),
            "`mcp-web/<version> (+<repository>)`"
        );
    }

    #[test]
    fn empty_object_gives_the_defaults() {
        let s = parse(json!({})).unwrap();
        assert_eq!(s, Settings::default());
        assert!(!s.policy.allow_private && !s.policy.allow_loopback && !s.ask_permission);
        assert!(s.policy.allow_hosts.is_empty() && s.policy.allow_cidrs.is_empty());
        assert_eq!(s.fetch.max_bytes, 2_097_152);
        assert_eq!(s.max_chars, 40_000);
        assert_eq!(s.fetch.network.connect_timeout, Duration::from_secs(10));
        assert_eq!(s.fetch.headers_timeout, Duration::from_secs(15));
        assert_eq!(s.fetch.timeout, Duration::from_secs(30));
        assert_eq!(s.fetch.total_timeout, Duration::from_secs(90));
        assert_eq!(s.crawl.crawl_delay, Duration::from_millis(500));
        assert!(s.crawl.respect_robots);
        assert_eq!(
            s.fetch.network.user_agent,
            format!(
                "mcp-web/{} (+https://github.com/mcp-web/mcp-web)",
                env!("CARGO_PKG_VERSION")
            )
        );
        assert_eq!(s.fetch.network.proxy, None);
        assert_eq!(s.fetch.network.ca_file, None);
        assert_eq!(s.search.provider, Provider::Brave);
        assert_eq!(s.search.search_url, None);
        assert_eq!(s.search.api_key, None);
        assert_eq!(s.search.api_key_env, "BRAVE_API_KEY");
        assert_eq!(s.search.safesearch, SafeSearch::Moderate);
        assert_eq!((s.search.country, s.search.lang), (None, None));
    }

    #[test]
    fn unknown_key_lists_every_valid_key() {
        let e = parse(json!({"providr": "brave", "allow-private": true})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Unknown config key(s) for the Web pack: providr.\nValid keys: allow-cidrs, allow-hosts, allow-loopback, allow-ports, allow-private, api-key, api-key-env, ask-permission, ca-file, cache-bytes, cache-max-age, connect-timeout, crawl-delay, headers-timeout, max-bytes, max-chars, max-pdf-bytes, nat64-prefixes, provider, proxy, respect-robots, safesearch, search-country, search-lang, search-rate, search-url, timeout, tools, total-timeout, user-agent"
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
            (
                "nat64-prefixes",
                json!("2001:db8:64::/96"),
                "a list of strings",
            ),
            ("allow-ports", json!([25]), "a list of strings"),
            ("max-bytes", json!("4096"), "a whole number of bytes"),
            ("max-bytes", json!(4096.5), "a whole number of bytes"),
            ("max-pdf-bytes", json!("4096"), "a whole number of bytes"),
            ("max-chars", json!(true), "a whole number of characters"),
            ("connect-timeout", json!("10"), "a number of seconds"),
            ("headers-timeout", json!([]), "a number of seconds"),
            ("timeout", json!(null), "a number of seconds"),
            ("total-timeout", json!({}), "a number of seconds"),
            ("cache-bytes", json!(-1.5), "a whole number of bytes"),
            ("cache-max-age", json!("3600"), "a number of seconds"),
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
            (
                "search-rate",
                json!("1"),
                "a whole number of requests per second",
            ),
            ("tools", json!("web_fetch"), "a list of strings"),
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
        for key in valid_keys() {
            assert!(cases.iter().any(|(k, ..)| *k == key), "{key} untested");
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
            ("max-pdf-bytes", json!(4095), "must be at least 4096"),
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
                "cache-bytes",
                json!(-1),
                "must be at least 0 (0 turns the cache off)",
            ),
            ("cache-max-age", json!(-1), "cannot be negative"),
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
                "nat64-prefixes",
                json!(["2001:db8:64::/64"]),
                "IPv6 /96 prefixes like \"2001:db8:64::/96\"",
            ),
            ("nat64-prefixes", json!(["10.0.0.0/8"]), "IPv6 /96 prefixes"),
            ("nat64-prefixes", json!(["64:ff9b::"]), "IPv6 /96 prefixes"),
            (
                "allow-ports",
                json!(["8080"]),
                "bad-port list only: 8080 is not on it, so it is open already",
            ),
            ("allow-ports", json!(["0"]), "port numbers 1 to 65535"),
            ("allow-ports", json!(["65536"]), "port numbers 1 to 65535"),
            ("allow-ports", json!(["+25"]), "port numbers 1 to 65535"),
            ("allow-ports", json!(["smtp"]), "\"smtp\" is not one"),
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
            "cache-bytes": 0,
            "cache-max-age": 0.5,
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
        assert!(
            s.policy.allow_private
                && s.policy.allow_loopback
                && s.ask_permission
                && !s.crawl.respect_robots
        );
        assert_eq!(
            s.policy.allow_hosts,
            [
                "wiki.corp",
                "xn--bcher-kva.example",
                "::1",
                "10.1.2.3",
                "::ffff:7f00:1",
                "corp"
            ]
        );
        let cidrs: Vec<String> = s.policy.allow_cidrs.iter().map(|c| c.to_string()).collect();
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
        assert_eq!((s.fetch.max_bytes, s.max_chars), (4096, 1000));
        assert_eq!(s.fetch.network.connect_timeout, Duration::from_millis(250));
        assert_eq!(s.fetch.headers_timeout, Duration::from_secs(1));
        assert_eq!(s.fetch.timeout, Duration::from_millis(2500));
        assert_eq!(s.fetch.total_timeout, Duration::from_secs(600));
        assert_eq!(s.crawl.crawl_delay, Duration::ZERO);
        let cache = s.fetch.cache;
        assert_eq!(
            (cache.bytes, cache.max_age, cache.shared),
            (0, Duration::from_millis(500), false)
        );
        assert_eq!(s.fetch.network.user_agent, "probe/1.0");
        let proxy = s.fetch.network.proxy.as_ref().unwrap();
        assert_eq!((proxy.host(), proxy.port()), ("proxy.corp", 3128));
        assert_eq!(
            s.fetch.network.ca_file,
            Some(PathBuf::from("/etc/corp-ca.pem"))
        );
        assert_eq!(s.search.provider, Provider::Searxng);
        assert_eq!(
            s.search.search_url.as_ref().unwrap().as_str(),
            "http://searx.lan:8080/"
        );
        assert_eq!(s.search.api_key.as_ref().unwrap().expose(), "sekrit");
        assert_eq!(s.search.api_key_env, "MY_KEY");
        assert_eq!(s.search.safesearch, SafeSearch::Strict);
        assert_eq!(s.search.country.as_deref(), Some("de"));
        assert_eq!(s.search.lang.as_deref(), Some("de-DE"));
        assert!(
            !format!("{s:?}").contains("sekrit"),
            "Debug shows the API key"
        );
    }

    /// The proxy is parsed once, into the transport's type, by the stricter of the two
    /// rule sets: the URL shape checks refuse what a bare URL parse would accept.
    #[test]
    fn proxy_is_parsed_once_by_the_url_shape_rules() {
        let s = parse(json!({"proxy": "http://[::1]:8080/"})).unwrap();
        assert_eq!(
            s.fetch.network.proxy,
            Some(ProxyUrl::parse("http://[::1]:8080").unwrap())
        );
        let s = parse(json!({"proxy": "http://Proxy.Corp"})).unwrap();
        assert_eq!(
            s.fetch.network.proxy.unwrap().to_string(),
            "http://proxy.corp:80"
        );
        for (text, rule) in [
            ("http://2130706433:3128", "four decimal numbers"),
            ("http://0.0.0.0:3128", "unspecified"),
            ("http://p:0", "port"),
        ] {
            assert!(ProxyUrl::parse(text).is_ok(), "{text}");
            let e = err(json!({ "proxy": text }));
            assert!(
                e.starts_with("config key \"proxy\" must be http://host:port") && e.contains(rule),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn policy_carries_every_floor_key() {
        assert_eq!(Settings::default().policy, Policy::default());
        let s = parse(json!({
            "allow-private": true,
            "allow-loopback": true,
            "allow-hosts": ["Wiki.Corp"],
            "allow-cidrs": ["10.0.0.0/8"],
        }))
        .unwrap();
        let p = s.policy;
        assert!(p.allow_private && p.allow_loopback);
        assert_eq!(p.allow_hosts, ["wiki.corp"]);
        assert_eq!(p.allow_cidrs, ["10.0.0.0/8".parse::<IpNet>().unwrap()]);
        let ten = "10.1.2.3".parse().unwrap();
        assert!(Policy::default().decide("10.1.2.3", ten, &[]).is_err());
        let only_cidr = parse(json!({"allow-cidrs": ["10.0.0.0/8"]}))
            .unwrap()
            .policy;
        assert!(only_cidr.decide("10.1.2.3", ten, &[]).is_ok());
        let p = parse(json!({
            "nat64-prefixes": ["2a01:4f8:64::1/96"],
            "allow-ports": ["6667", "25"],
        }))
        .unwrap()
        .policy;
        assert_eq!(
            p.nat64_prefixes,
            ["2a01:4f8:64::/96".parse::<Ipv6Net>().unwrap()]
        );
        assert_eq!(p.allow_ports, [6667, 25]);
        assert!(p.check_port(6667).is_ok() && p.check_port(6666).is_err());
        assert!(
            p.decide("x", "2a01:4f8:64::a00:1".parse().unwrap(), &[])
                .is_err()
        );
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
        assert_eq!(s.fetch.max_bytes, 10_000_000_000);
        assert_eq!(
            (s.search.provider.as_str(), s.search.safesearch.as_str()),
            ("brave", "off")
        );
        assert_eq!(Provider::Searxng.to_string(), "searxng");
        assert_eq!(SafeSearch::Moderate.to_string(), "moderate");
    }
}
