//! The Web pack's configuration keys, each defined once in [`KEYS`]: its name, its
//! type and rule, its default, one doc line and the value name its command-line flag
//! shows. The valid-key list, the parser, [`Settings::default`], the command-line
//! flags and the README's table all derive from this one table.

use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use ipnet::{IpNet, Ipv6Net};
use serde_json::Value;

use super::{Settings, type_error, value_error};
use crate::error::ConfigError;
use crate::key::ConfigKey;
use crate::search::{ApiKey, Provider, SafeSearch};
use crate::transport::ProxyUrl;
use crate::url::CheckedUrl;

/// The type of a key's value, in JSON and on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `true` or `false`; a flag given alone means `true`.
    Bool,
    /// A list of strings; a flag is repeated, and replaces the list of earlier sources.
    Strings,
    /// A whole number.
    Count,
    /// A number of seconds, fractions allowed.
    Seconds,
    /// A string.
    Text,
    /// A string, or `null` for none.
    OptionalText,
}

/// A key's default, as a JSON value of the key's type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DefaultValue {
    /// A boolean.
    Bool(bool),
    /// The empty list.
    Empty,
    /// A list of strings.
    List(&'static [&'static str]),
    /// A whole number.
    Count(u64),
    /// A number of seconds.
    Seconds(f64),
    /// A string, shown as it is.
    Text(&'static str),
    /// A string that holds the build's details, shown described instead.
    Described {
        /// The string.
        value: &'static str,
        /// How the README shows it.
        shown: &'static str,
    },
    /// None (`null`).
    None,
    /// None (`null`), which the module reading the key takes to mean what `shown` says.
    NoneMeaning(&'static str),
}

impl DefaultValue {
    /// The default as the JSON value a configuration would give for it.
    pub fn to_json(self) -> Value {
        match self {
            DefaultValue::Bool(b) => Value::Bool(b),
            DefaultValue::Empty => Value::Array(Vec::new()),
            DefaultValue::List(items) => {
                Value::Array(items.iter().map(|&item| Value::from(item)).collect())
            }
            DefaultValue::Count(n) => Value::from(n),
            DefaultValue::Seconds(s) => Value::from(s),
            DefaultValue::Text(text) | DefaultValue::Described { value: text, .. } => {
                Value::String(text.to_owned())
            }
            DefaultValue::None | DefaultValue::NoneMeaning(_) => Value::Null,
        }
    }
}

impl fmt::Display for DefaultValue {
    /// The default as the README's table shows it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DefaultValue::Bool(b) => write!(f, "{b}"),
            DefaultValue::Empty => f.write_str("[]"),
            DefaultValue::List(items) => {
                let quoted: Vec<String> = items.iter().map(|item| format!("`{item}`")).collect();
                f.write_str(&quoted.join(", "))
            }
            DefaultValue::Count(n) => write!(f, "{n}"),
            DefaultValue::Seconds(s) => write!(f, "{s}"),
            DefaultValue::Text(text) | DefaultValue::Described { shown: text, .. } => {
                write!(f, "`{text}`")
            }
            DefaultValue::None => f.write_str("none"),
            DefaultValue::NoneMeaning(meaning) => f.write_str(meaning),
        }
    }
}

/// Which seconds a time key accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Span {
    /// A budget: more than 0.
    Budget,
    /// A pause: 0 or more.
    Pause,
}

/// Where a whole number is stored: a count kept as written, or a size in memory
/// (saturating where `usize` is narrower than the number written).
#[derive(Clone, Copy)]
enum Whole {
    /// A `u64`.
    U64(fn(&mut Settings) -> &mut u64),
    /// A `usize`.
    Usize(fn(&mut Settings) -> &mut usize),
}

impl Whole {
    /// Stores `n` in `settings`.
    fn store(self, settings: &mut Settings, n: u64) {
        match self {
            Whole::U64(field) => *field(settings) = n,
            Whole::Usize(field) => *field(settings) = usize::try_from(n).unwrap_or(usize::MAX),
        }
    }
}

/// A key's type and rule together: how a JSON value of the key is read, checked and
/// stored in [`Settings`].
#[derive(Clone, Copy)]
enum Rule {
    /// A boolean, stored as it is.
    Bool(fn(&mut Settings) -> &mut bool),
    /// A list of strings, each entry checked.
    Strings(fn(&mut Settings, Vec<String>) -> Result<(), ConfigError>),
    /// A whole number with a floor.
    Count {
        /// What the key takes, as a type error says it.
        expected: &'static str,
        /// The smallest value accepted.
        floor: u64,
        /// Why the floor, as the refusal says it.
        why: &'static str,
        /// Where the value goes.
        field: Whole,
    },
    /// A number of seconds.
    Seconds {
        /// Which seconds are accepted.
        span: Span,
        /// Where the value goes.
        field: fn(&mut Settings) -> &mut Duration,
    },
    /// A string, checked.
    Text(fn(&mut Settings, String) -> Result<(), ConfigError>),
    /// A string or `null`, checked.
    OptionalText(fn(&mut Settings, Option<String>) -> Result<(), ConfigError>),
}

/// One configuration key of the Web pack.
pub struct Key {
    /// The key ([`Key::name`] is how JSON spells it and how its command-line flag,
    /// `--allow-private`, is named).
    pub id: ConfigKey,
    /// Its default, taken when no source gives the key.
    pub default: DefaultValue,
    /// What the key is for, in one line: the flag's help and the README's row say it.
    pub doc: &'static str,
    /// The value name the flag's help shows (`--allow-cidrs <CIDR>`).
    pub value_name: &'static str,
    rule: Rule,
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key")
            .field("name", &self.id)
            .field("kind", &self.kind())
            .field("default", &self.default)
            .finish_non_exhaustive()
    }
}

impl Key {
    /// The key's name, as JSON spells it and as its command-line flag is named.
    pub fn name(&self) -> &'static str {
        self.id.as_str()
    }

    /// The type of the key's value.
    pub fn kind(&self) -> Kind {
        match self.rule {
            Rule::Bool(_) => Kind::Bool,
            Rule::Strings(_) => Kind::Strings,
            Rule::Count { .. } => Kind::Count,
            Rule::Seconds { .. } => Kind::Seconds,
            Rule::Text(_) => Kind::Text,
            Rule::OptionalText(_) => Kind::OptionalText,
        }
    }

    /// What the key takes, in words, as a type error says it ("a list of strings").
    pub fn expected(&self) -> &'static str {
        match self.rule {
            Rule::Bool(_) => "a boolean (true or false)",
            Rule::Strings(_) => "a list of strings",
            Rule::Count { expected, .. } => expected,
            Rule::Seconds { .. } => "a number of seconds",
            Rule::Text(_) => "a string",
            Rule::OptionalText(_) => "a string (or null for none)",
        }
    }

    /// The doc line, with the bound a number must keep when the key has one: the
    /// flag's help and the README's row.
    pub fn summary(&self) -> String {
        match self.rule {
            Rule::Count { floor, .. } if floor > 0 => format!("{} (at least {floor})", self.doc),
            Rule::Seconds {
                span: Span::Budget, ..
            } => format!("{} (seconds, more than 0)", self.doc),
            Rule::Seconds {
                span: Span::Pause, ..
            } => format!("{} (seconds, 0 or more)", self.doc),
            _ => self.doc.to_owned(),
        }
    }

    /// Checks that `value` is of the key's JSON type, without applying its rule.
    pub(super) fn check_type(&self, value: &Value) -> Result<(), ConfigError> {
        let key = self.name();
        match self.rule {
            Rule::Bool(_) => boolean(key, value).map(drop),
            Rule::Strings(_) => strings(key, value).map(drop),
            Rule::Count { expected, .. } => count(key, value, expected).map(drop),
            Rule::Seconds { .. } => seconds(key, value).map(drop),
            Rule::Text(_) => string(key, value).map(drop),
            Rule::OptionalText(_) => optional_string(key, value).map(drop),
        }
    }

    /// Reads `value` as the key's type, checks it by the key's rule and stores it in
    /// `settings`.
    pub(super) fn apply(&self, settings: &mut Settings, value: &Value) -> Result<(), ConfigError> {
        let key = self.name();
        match self.rule {
            Rule::Bool(field) => *field(settings) = boolean(key, value)?,
            Rule::Strings(set) => set(settings, strings(key, value)?)?,
            Rule::Count {
                expected,
                floor,
                why,
                field,
            } => field.store(
                settings,
                at_least(key, count(key, value, expected)?, floor, why)?,
            ),
            Rule::Seconds { span, field } => {
                let secs = seconds(key, value)?;
                *field(settings) = match span {
                    Span::Budget => positive(key, secs)?,
                    Span::Pause => pause(key, secs)?,
                }
            }
            Rule::Text(set) => set(settings, string(key, value)?)?,
            Rule::OptionalText(set) => set(settings, optional_string(key, value)?)?,
        }
        Ok(())
    }
}

/// The names of the Web pack's tools, in `tools/list` order: what the `tools` key
/// takes, and its default.
pub const TOOLS: [&str; 4] = ["web_search", "web_fetch", "web_crawl", "web_grep"];

/// Every configuration key of the Web pack, in the order the README lists them; each
/// rule stores its value in the options of the module that reads it, inside
/// [`Settings`]. Rules are applied in this order.
pub static KEYS: &[Key] = &[
    Key {
        id: ConfigKey::AllowPrivate,
        default: DefaultValue::Bool(false),
        doc: "Permit every non-public address class, this machine's own addresses included, except cloud metadata",
        value_name: "BOOL",
        rule: Rule::Bool(|s| &mut s.policy.allow_private),
    },
    Key {
        id: ConfigKey::AllowLoopback,
        default: DefaultValue::Bool(false),
        doc: "Permit loopback and this machine's own addresses only (test rigs, local development servers)",
        value_name: "BOOL",
        rule: Rule::Bool(|s| &mut s.policy.allow_loopback),
    },
    Key {
        id: ConfigKey::AllowHosts,
        default: DefaultValue::Empty,
        doc: "Exact host names permitted whatever they resolve to, except cloud metadata and this machine's own addresses; no `*` or `?`, and `corp` never permits `wiki.corp`",
        value_name: "HOST",
        rule: Rule::Strings(|s, hosts| {
            s.policy.allow_hosts = hosts
                .iter()
                .map(|h| allow_host(h))
                .collect::<Result<_, _>>()?;
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::AllowCidrs,
        default: DefaultValue::Empty,
        doc: "CIDR blocks permitted, matched against the connected peer; an address carrying IPv4 (v4-mapped, NAT64, 6to4, Teredo) matches IPv4 blocks only, through that address; the only key that opens a cloud metadata endpoint (a block covering it)",
        value_name: "CIDR",
        rule: Rule::Strings(|s, cidrs| {
            s.policy.allow_cidrs = cidrs
                .iter()
                .map(|c| allow_cidr(c))
                .collect::<Result<_, _>>()?;
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::Nat64Prefixes,
        default: DefaultValue::Empty,
        doc: "Network-specific NAT64 /96 prefixes (besides `64:ff9b::/96` and `64:ff9b:1::/48`) whose addresses are also judged by the IPv4 address they carry",
        value_name: "PREFIX",
        rule: Rule::Strings(|s, prefixes| {
            s.policy.nat64_prefixes = prefixes
                .iter()
                .map(|p| nat64_prefix(p))
                .collect::<Result<_, _>>()?;
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::AllowPorts,
        default: DefaultValue::Empty,
        doc: "Ports of the Fetch standard's bad-port list (SMTP 25, IRC 6667, …) permitted anyway, as strings; every other port is open already",
        value_name: "PORT",
        rule: Rule::Strings(|s, ports| {
            s.policy.allow_ports = ports
                .iter()
                .map(|p| allow_port(p))
                .collect::<Result<_, _>>()?;
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::MaxBytes,
        default: DefaultValue::Count(2 * 1024 * 1024),
        doc: "Cap on decoded body bytes read from one response",
        value_name: "BYTES",
        rule: Rule::Count {
            expected: "a whole number of bytes",
            floor: 4096,
            why: "(below that a page cannot hold a document, and every fetch would report more truncation notice than page)",
            field: Whole::Usize(|s| &mut s.fetch.max_bytes),
        },
    },
    Key {
        id: ConfigKey::MaxPdfBytes,
        default: DefaultValue::Count(20 * 1024 * 1024),
        doc: "Cap on the size of a PDF, read whole (its index is at its end); a larger one is refused",
        value_name: "BYTES",
        rule: Rule::Count {
            expected: "a whole number of bytes",
            floor: 4096,
            why: "(below that no PDF with a page of text fits)",
            field: Whole::Usize(|s| &mut s.fetch.max_pdf_bytes),
        },
    },
    Key {
        id: ConfigKey::MaxChars,
        default: DefaultValue::Count(40_000),
        doc: "Cap on the text one tool answer returns",
        value_name: "CHARS",
        rule: Rule::Count {
            expected: "a whole number of characters",
            floor: 1000,
            why: "(below that an answer cannot hold a page's opening)",
            field: Whole::Usize(|s| &mut s.max_chars),
        },
    },
    Key {
        id: ConfigKey::ConnectTimeout,
        default: DefaultValue::Seconds(10.0),
        doc: "Budget for opening one connection, TLS included",
        value_name: "SECONDS",
        rule: Rule::Seconds {
            span: Span::Budget,
            field: |s| &mut s.fetch.network.connect_timeout,
        },
    },
    Key {
        id: ConfigKey::HeadersTimeout,
        default: DefaultValue::Seconds(15.0),
        doc: "Budget from request sent to response headers received",
        value_name: "SECONDS",
        rule: Rule::Seconds {
            span: Span::Budget,
            field: |s| &mut s.fetch.headers_timeout,
        },
    },
    Key {
        id: ConfigKey::Timeout,
        default: DefaultValue::Seconds(30.0),
        doc: "Budget for one request, body included",
        value_name: "SECONDS",
        rule: Rule::Seconds {
            span: Span::Budget,
            field: |s| &mut s.fetch.timeout,
        },
    },
    Key {
        id: ConfigKey::TotalTimeout,
        default: DefaultValue::Seconds(90.0),
        doc: "Budget for one tool call, every request included",
        value_name: "SECONDS",
        rule: Rule::Seconds {
            span: Span::Budget,
            field: |s| &mut s.fetch.total_timeout,
        },
    },
    Key {
        id: ConfigKey::CacheBytes,
        default: DefaultValue::Count(64 * 1024 * 1024),
        doc: "Bytes of responses kept in memory and reused across calls while HTTP's caching rules (RFC 9111) allow, one cache per address policy, shared over `serve --http` (`private` responses are not kept); 0 turns it off",
        value_name: "BYTES",
        rule: Rule::Count {
            expected: "a whole number of bytes",
            floor: 0,
            why: "(0 turns the cache off)",
            field: Whole::U64(|s| &mut s.fetch.cache.bytes),
        },
    },
    Key {
        id: ConfigKey::CacheMaxAge,
        default: DefaultValue::Seconds(3600.0),
        doc: "The longest a kept response is reused without asking its origin again, whatever its headers allow; past it the origin is asked with `If-None-Match` or `If-Modified-Since`",
        value_name: "SECONDS",
        rule: Rule::Seconds {
            span: Span::Pause,
            field: |s| &mut s.fetch.cache.max_age,
        },
    },
    Key {
        id: ConfigKey::CrawlDelay,
        default: DefaultValue::Seconds(0.5),
        doc: "Pause between requests to one origin while traversing; robots.txt's Crawl-delay wins when larger",
        value_name: "SECONDS",
        rule: Rule::Seconds {
            span: Span::Pause,
            field: |s| &mut s.crawl.crawl_delay,
        },
    },
    Key {
        id: ConfigKey::RespectRobots,
        default: DefaultValue::Bool(true),
        doc: "Whether traversal (crawl, grep with depth) obeys robots.txt",
        value_name: "BOOL",
        rule: Rule::Bool(|s| &mut s.crawl.respect_robots),
    },
    Key {
        id: ConfigKey::UserAgent,
        default: DefaultValue::Described {
            value: concat!(
                "mcp-web/",
                env!("CARGO_PKG_VERSION"),
                " (+",
                env!("CARGO_PKG_REPOSITORY"),
                ")"
            ),
            shown: "mcp-web/<version> (+<repository>)",
        },
        doc: "The User-Agent header, printable ASCII; its product token is matched against robots.txt groups",
        value_name: "TEXT",
        rule: Rule::Text(|s, ua| {
            s.fetch.network.user_agent = user_agent(ua)?;
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::Proxy,
        default: DefaultValue::None,
        doc: "An HTTP proxy, `http://host:port`, asked to CONNECT to the vetted address, never a name",
        value_name: "URL",
        rule: Rule::OptionalText(|s, text| {
            s.fetch.network.proxy = text.map(|p| proxy(&p)).transpose()?;
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::CaFile,
        default: DefaultValue::None,
        doc: "A PEM file of extra root certificates; verification is never skipped",
        value_name: "FILE",
        rule: Rule::OptionalText(|s, file| {
            s.fetch.network.ca_file = match file {
                Some(f) if f.is_empty() => {
                    return Err(value_error("ca-file", "must name a PEM file (it is empty)"));
                }
                other => other.map(PathBuf::from),
            };
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::Provider,
        default: DefaultValue::Text("brave"),
        doc: "The search provider: `brave` or `searxng`",
        value_name: "NAME",
        rule: Rule::Text(|s, name| {
            s.search.provider = match name.as_str() {
                "brave" => Provider::Brave,
                "searxng" => Provider::Searxng,
                other => {
                    return Err(value_error(
                        "provider",
                        format!("must be \"brave\" or \"searxng\", not {:?}", cut(other)),
                    ));
                }
            };
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::SearchUrl,
        default: DefaultValue::NoneMeaning("the provider's"),
        doc: "The search provider API's base URL",
        value_name: "URL",
        rule: Rule::OptionalText(|s, url| {
            s.search.search_url = url.map(|u| search_url(&u)).transpose()?;
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::ApiKey,
        default: DefaultValue::None,
        doc: "The search provider's API key (prefer `api-key-env`: a command line is visible to other users)",
        value_name: "KEY",
        rule: Rule::OptionalText(|s, key| {
            s.search.api_key = match key {
                Some(k) if k.trim().is_empty() => {
                    return Err(value_error(
                        "api-key",
                        "must not be empty (leave it out to read \"api-key-env\" instead)",
                    ));
                }
                other => other.map(ApiKey::new),
            };
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::ApiKeyEnv,
        default: DefaultValue::Text("BRAVE_API_KEY"),
        doc: "The environment variable read for the search API key, at call time",
        value_name: "NAME",
        rule: Rule::Text(|s, name| {
            if name.is_empty() || name.contains(['=', '\0']) {
                return Err(value_error(
                    "api-key-env",
                    "must name an environment variable (non-empty, without '=')",
                ));
            }
            s.search.api_key_env = name;
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::Safesearch,
        default: DefaultValue::Text("moderate"),
        doc: "The safe-search level: `off`, `moderate` or `strict`",
        value_name: "LEVEL",
        rule: Rule::Text(|s, level| {
            s.search.safesearch = match level.as_str() {
                "off" => SafeSearch::Off,
                "moderate" => SafeSearch::Moderate,
                "strict" => SafeSearch::Strict,
                other => {
                    return Err(value_error(
                        "safesearch",
                        format!(
                            "must be \"off\", \"moderate\" or \"strict\", not {:?}",
                            cut(other)
                        ),
                    ));
                }
            };
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::SearchCountry,
        default: DefaultValue::None,
        doc: "The country code passed to the search provider",
        value_name: "CODE",
        rule: Rule::OptionalText(|s, country| {
            s.search.country = country.map(|c| code("search-country", c)).transpose()?;
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::SearchLang,
        default: DefaultValue::None,
        doc: "The language code passed to the search provider",
        value_name: "CODE",
        rule: Rule::OptionalText(|s, lang| {
            s.search.lang = lang.map(|c| code("search-lang", c)).transpose()?;
            Ok(())
        }),
    },
    Key {
        id: ConfigKey::SearchRate,
        default: DefaultValue::Count(1),
        doc: "The most requests per second sent to the search provider (Brave's free plan allows 1); a rate limit answered with a delay is waited out once within `total-timeout`",
        value_name: "PER-SECOND",
        rule: Rule::Count {
            expected: "a whole number of requests per second",
            floor: 1,
            why: "(searches are spaced by one second divided by it)",
            field: Whole::U64(|s| &mut s.search.rate),
        },
    },
    Key {
        id: ConfigKey::AskPermission,
        default: DefaultValue::Bool(false),
        doc: "Ask the user before refusing a peer allow-private or allow-loopback could permit",
        value_name: "BOOL",
        rule: Rule::Bool(|s| &mut s.ask_permission),
    },
    Key {
        id: ConfigKey::Tools,
        default: DefaultValue::List(&TOOLS),
        doc: "The tools served; one left out is absent from `tools/list`, and a call of it is the protocol's unknown-tool error",
        value_name: "TOOL",
        rule: Rule::Strings(|s, names| {
            if names.is_empty() {
                return Err(value_error(
                    "tools",
                    format!("must name at least one tool: {}", TOOLS.join(", ")),
                ));
            }
            let mut served = Vec::new();
            for name in names {
                if !TOOLS.contains(&name.as_str()) {
                    return Err(value_error(
                        "tools",
                        format!(
                            "names {:?}, which is not a tool of this server; the tools are {}",
                            cut(&name),
                            TOOLS.join(", ")
                        ),
                    ));
                }
                if !served.contains(&name) {
                    served.push(name);
                }
            }
            s.tools = served;
            Ok(())
        }),
    },
];

/// The key named `name`, when there is one.
pub fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|key| key.name() == name)
}

/// Every key's name, sorted: what an unknown-key error lists.
pub fn valid_keys() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = KEYS.iter().map(Key::name).collect();
    names.sort_unstable();
    names
}

/// A whole number as written: non-negative, or negative (refused by the rule, not the
/// type).
#[derive(Debug, Clone, Copy)]
enum Count {
    NonNegative(u64),
    Negative,
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

fn at_least(key: &str, value: Count, floor: u64, why: &str) -> Result<u64, ConfigError> {
    match value {
        Count::NonNegative(n) if n >= floor => Ok(n),
        _ => Err(value_error(key, format!("must be at least {floor} {why}"))),
    }
}

fn duration(key: &str, secs: f64) -> Result<Duration, ConfigError> {
    Duration::try_from_secs_f64(secs)
        .map_err(|_| value_error(key, "is too large a number of seconds"))
}

fn positive(key: &str, secs: f64) -> Result<Duration, ConfigError> {
    if secs > 0.0 {
        let d = duration(key, secs)?;
        if !d.is_zero() {
            return Ok(d);
        }
    }
    Err(value_error(key, "must be greater than 0 seconds"))
}

fn pause(key: &str, secs: f64) -> Result<Duration, ConfigError> {
    if secs < 0.0 {
        return Err(value_error(
            key,
            "cannot be negative (it is a pause in seconds; 0 means none)",
        ));
    }
    duration(key, secs)
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

/// A `nat64-prefixes` entry: an IPv6 /96 block (RFC 6052's layout with the IPv4
/// address in the last 32 bits).
fn nat64_prefix(entry: &str) -> Result<Ipv6Net, ConfigError> {
    match entry.parse::<IpNet>() {
        Ok(IpNet::V6(net)) if net.prefix_len() == 96 => Ok(net.trunc()),
        _ => Err(value_error(
            "nat64-prefixes",
            format!(
                "entries are IPv6 /96 prefixes like \"2001:db8:64::/96\" (the IPv4 address in the last 32 bits): {:?} is not one",
                cut(entry)
            ),
        )),
    }
}

/// An `allow-ports` entry: a port of the bad-port list, as digits.
fn allow_port(entry: &str) -> Result<u16, ConfigError> {
    const KEY: &str = "allow-ports";
    let port = entry
        .parse::<u16>()
        .ok()
        .filter(|_| entry.bytes().all(|b| b.is_ascii_digit()));
    match port {
        Some(port) if crate::guard::BAD_PORTS.binary_search(&port).is_ok() && port != 0 => Ok(port),
        Some(port) if port != 0 => Err(value_error(
            KEY,
            format!(
                "lists ports of the Fetch standard's bad-port list only: {port} is not on it, so it is open already"
            ),
        )),
        _ => Err(value_error(
            KEY,
            format!(
                "entries are port numbers 1 to 65535 written as digits, like \"6667\": {:?} is not one",
                cut(entry)
            ),
        )),
    }
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

/// The `proxy` key: the URL shape checks every fetched URL gets (no obfuscated host, no
/// credentials, a port in range), plain http, nothing after the authority; then the
/// [`ProxyUrl`] the transport tunnels through.
fn proxy(text: &str) -> Result<ProxyUrl, ConfigError> {
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
    ProxyUrl::parse(url.as_str()).map_err(|e| match e {
        ConfigError::Value { rule: why, .. } => rule(&why),
        other => other,
    })
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
