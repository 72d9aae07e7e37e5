//! The one error family of the web library.
//!
//! Every failure a tool can report is an [`Error`]. Its audience is a language model
//! deciding what to do next, and the operator reading the log, so every variant
//! carries as data
//! - its [`ErrorKind`],
//! - a stable rule id ([`Error::rule`]) naming the rule that said no, and
//! - the configuration key that would change the answer ([`Error::config_key`]), or
//!   `None` when no key would,
//!
//! and its `Display` is the teaching message: it names the rule in words, and says
//! which key would permit the request or that none would. Messages never contain
//! credentials: URLs are redacted by [`crate::url`] before they reach an error.
//!
//! Configuration problems are a separate type, [`ConfigError`], because they happen
//! once at start-up, not per call.

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use crate::addr::{self, Scope};
use crate::key::ConfigKey;

/// The kind of an [`Error`], for matching without destructuring.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The URL was refused on its shape alone.
    BadUrl,
    /// The address behind the URL is one the floor does not connect to.
    Blocked,
    /// The redirect hop budget ran out.
    TooManyRedirects,
    /// A redirect came back to a URL already visited on this fetch.
    RedirectLoop,
    /// A time budget expired.
    Deadline,
    /// The connection itself failed: DNS, refused, reset, TLS.
    Transport,
    /// robots.txt disallows the URL for our user agent.
    RobotsRefused,
    /// The server answered with a status the tool cannot use.
    Http,
    /// The body is not text the tools can read.
    Content,
    /// The search provider failed.
    Search,
    /// Matching the pattern would cost more than a call may spend.
    Pattern,
    /// The call was cancelled by the client.
    Cancelled,
}

impl ErrorKind {
    /// The kind's stable name, as it appears in a tool error's structured content.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::BadUrl => "bad_url",
            ErrorKind::Blocked => "blocked",
            ErrorKind::TooManyRedirects => "too_many_redirects",
            ErrorKind::RedirectLoop => "redirect_loop",
            ErrorKind::Deadline => "deadline",
            ErrorKind::Transport => "transport",
            ErrorKind::RobotsRefused => "robots_refused",
            ErrorKind::Http => "http",
            ErrorKind::Content => "content",
            ErrorKind::Search => "search",
            ErrorKind::Pattern => "pattern",
            ErrorKind::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One failure of a web tool. See the module documentation for what every variant
/// carries.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The URL was refused on its shape; no configuration key rescues it.
    BadUrl(BadUrl),
    /// The address the URL leads to is refused by the policy.
    Blocked(Blocked),
    /// More redirects than the hop budget allows.
    TooManyRedirects {
        /// Every URL visited, in order, the first request included.
        chain: Vec<String>,
        /// The hop budget.
        limit: usize,
    },
    /// A redirect led back to a URL already visited.
    RedirectLoop {
        /// Every URL visited, in order, ending with the repeated one.
        chain: Vec<String>,
    },
    /// A time budget expired before anything usable arrived.
    Deadline(Deadline),
    /// The connection failed.
    Transport(Transport),
    /// robots.txt disallows the URL.
    RobotsRefused(RobotsRefused),
    /// The server answered with an error status.
    Http(Http),
    /// The body is not text.
    Content(Content),
    /// The search provider failed.
    Search(Search),
    /// Matching the pattern would cost more than a call may spend.
    Pattern(PatternCost),
    /// The client cancelled the call.
    Cancelled,
}

/// A pattern whose matching on a page would cost more than a call may spend: the lazy
/// DFA gave up and the NFA simulation would run past its step budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternCost {
    /// The page being searched (redacted).
    pub url: String,
    /// The pattern as messages quote it (cut to about 100 characters).
    pub pattern: String,
    /// The number of the line the matcher gave up on.
    pub line: usize,
}

/// Why a URL was refused on its shape.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadUrlReason {
    /// The text is not a URL at all; carries the parser's words.
    Unparseable(String),
    /// The scheme is not http or https.
    Scheme(String),
    /// The URL carries a user name or password.
    Credentials,
    /// The port is 0 or above 65535; carries the port as written.
    Port(String),
    /// An IPv4 host not written as four decimal octets (decimal, hex, octal, short).
    ObfuscatedIpv4(String),
    /// A host spelled so that the URL parser would silently rewrite it (full-width or
    /// circled digits, `。`, soft hyphens, percent-encoding, a trailing dot).
    ObfuscatedHost(String),
    /// An IPv6 host with a zone id.
    ZoneId,
    /// A control character, whitespace or backslash in the URL.
    ForbiddenCharacter(char),
    /// The host is empty.
    EmptyHost,
    /// The host is the unspecified address (`0.0.0.0`, `[::]`).
    Unspecified(String),
    /// A redirect from https to http.
    HttpsDowngrade {
        /// The https URL that redirected.
        from: String,
    },
    /// The text has no scheme (`127.0.0.1:8080`, `//host/path`, `example.com/a`).
    NoScheme,
    /// The port is written with something other than digits; carries it as written.
    PortSyntax(String),
    /// A port of the Fetch standard's bad-port list, which `allow-ports` does not name.
    BadPort(u16),
    /// The URL is longer than [`MAX_URL_BYTES`]; carries its length in bytes.
    TooLong(usize),
    /// A redirect whose `Location` cannot be followed; `url` is the URL that answered.
    Location(LocationFault),
}

/// The longest URL, in bytes, the floor accepts (8 KiB), the text of a redirect's
/// `Location` included.
pub const MAX_URL_BYTES: usize = 8192;

/// What is wrong with a redirect's `Location` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LocationFault {
    /// The redirect has no `Location` header.
    Missing,
    /// The `Location` header is empty (or only spaces).
    Empty,
    /// The `Location` header is not text: bytes that are not UTF-8.
    NotText,
}

impl BadUrlReason {
    /// The reason's stable rule id.
    pub fn rule(&self) -> &'static str {
        match self {
            BadUrlReason::Unparseable(_) => "unparseable",
            BadUrlReason::Scheme(_) => "scheme",
            BadUrlReason::Credentials => "credentials",
            BadUrlReason::Port(_) => "port-range",
            BadUrlReason::ObfuscatedIpv4(_) => "obfuscated-ipv4",
            BadUrlReason::ObfuscatedHost(_) => "obfuscated-host",
            BadUrlReason::ZoneId => "ipv6-zone-id",
            BadUrlReason::ForbiddenCharacter(_) => "forbidden-character",
            BadUrlReason::EmptyHost => "empty-host",
            BadUrlReason::Unspecified(_) => "unspecified-address",
            BadUrlReason::HttpsDowngrade { .. } => "https-downgrade",
            BadUrlReason::NoScheme => "no-scheme",
            BadUrlReason::PortSyntax(_) => "port-syntax",
            BadUrlReason::BadPort(_) => "bad-port",
            BadUrlReason::TooLong(_) => "url-too-long",
            BadUrlReason::Location(LocationFault::Missing) => "redirect-without-location",
            BadUrlReason::Location(LocationFault::Empty) => "redirect-empty-location",
            BadUrlReason::Location(LocationFault::NotText) => "redirect-location-not-text",
        }
    }
}

/// A URL refused on its shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadUrl {
    /// The URL as given, redacted (credentials removed) and cut to a readable length.
    pub url: String,
    /// Why it was refused.
    pub reason: BadUrlReason,
}

/// An address the policy refuses: the host, the refused address, the row of the address
/// table that refused it, and the IPv4 address it carries when that decided.
///
/// Everything a refusal says (class, block, RFC, the key that would permit it) is read from
/// the table row, and a `Blocked` is made only from a classification ([`Blocked::new`]),
/// so a refusal cannot disagree with the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    host: String,
    address: IpAddr,
    entry: &'static addr::Entry,
    carries: Option<addr::Embedded>,
}

impl Blocked {
    /// The refusal of `address`, reached for the URL host `host`, as `classification`
    /// found it: what [`addr::classify`] says of the address (the guard classifies an
    /// IPv4-mapped address as its IPv4 address). `None` when the classification names no
    /// row, which is a public address.
    pub fn new(
        host: &str,
        address: IpAddr,
        classification: &addr::Classification,
    ) -> Option<Blocked> {
        classification.entry.map(|entry| Blocked {
            host: host.to_owned(),
            address,
            entry,
            carries: classification.via,
        })
    }

    /// The host as written in the URL.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The address refused: a resolved candidate, or the connected peer.
    pub fn address(&self) -> IpAddr {
        self.address
    }

    /// The row of the address table that refused it: block, name, class, RFC.
    pub fn entry(&self) -> &'static addr::Entry {
        self.entry
    }

    /// The IPv4 address the refused IPv6 address carries and how (NAT64, 6to4, …), when
    /// that embedded address is what was refused.
    pub fn carries(&self) -> Option<addr::Embedded> {
        self.carries
    }

    /// The class of the refused address (its [`addr::Class::id`] is the rule id).
    pub fn class(&self) -> addr::Class {
        self.entry.class
    }

    /// The broad key that would permit it, or `None` when only an `allow-cidrs` entry
    /// (or, for a class no machine can be, an `allow-hosts` entry) would (see
    /// [`Blocked::only_exact`]).
    pub fn key(&self) -> Option<ConfigKey> {
        self.entry.class.key()
    }

    /// What a broad switch, or a one-time grant standing in for it, must open to permit
    /// the refused address; `None` when no switch does (see [`Blocked::key`]).
    pub fn scope(&self) -> Option<Scope> {
        self.entry.class.scope()
    }

    /// True for classes no broad switch unlocks (cloud metadata): only an `allow-cidrs`
    /// entry covering the address, never `allow-hosts`.
    pub fn only_exact(&self) -> bool {
        self.entry.class.only_exact()
    }
}

/// The phase a deadline expired in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Opening the TCP connection (and TLS).
    Connecting,
    /// Waiting for the response headers.
    ReadingHeaders,
    /// Reading the body.
    ReadingBody,
    /// Extracting the text of the body read.
    Extracting,
}

impl Phase {
    /// The phase in words, as messages say it.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Connecting => "connecting",
            Phase::ReadingHeaders => "reading headers",
            Phase::ReadingBody => "reading the body",
            Phase::Extracting => "extracting its text",
        }
    }
}

/// A time budget that expired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deadline {
    /// The URL being fetched (redacted).
    pub url: String,
    /// Where the time ran out.
    pub phase: Phase,
    /// The key whose budget ran out (`connect-timeout`, `headers-timeout`, `timeout`,
    /// `total-timeout`).
    pub key: ConfigKey,
    /// That budget.
    pub limit: Duration,
}

/// What went wrong with a connection.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportFailure {
    /// The name did not resolve.
    Dns,
    /// The peer refused the connection.
    Refused,
    /// The connection was reset or closed mid-exchange.
    Reset,
    /// The TLS handshake failed (certificate, protocol).
    Tls,
    /// The proxy refused or failed the tunnel.
    Proxy,
    /// The server spoke something that is not HTTP.
    Protocol,
    /// Anything else at the socket level.
    Other,
}

impl TransportFailure {
    /// The failure's stable rule id.
    pub fn rule(self) -> &'static str {
        match self {
            TransportFailure::Dns => "dns",
            TransportFailure::Refused => "connection-refused",
            TransportFailure::Reset => "connection-reset",
            TransportFailure::Tls => "tls",
            TransportFailure::Proxy => "proxy",
            TransportFailure::Protocol => "protocol",
            TransportFailure::Other => "connection",
        }
    }
}

/// A connection failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transport {
    /// The URL being fetched (redacted).
    pub url: String,
    /// What failed.
    pub failure: TransportFailure,
    /// The underlying error in words.
    pub detail: String,
}

/// Why robots.txt refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RobotsReason {
    /// A rule matched.
    Rule {
        /// The deciding line as written, e.g. `Disallow: /private`.
        line: String,
        /// Its 1-based line number in robots.txt.
        line_no: usize,
    },
    /// robots.txt answered a server error, which RFC 9309 says means "disallow all".
    Unavailable {
        /// The status robots.txt answered.
        status: u16,
    },
    /// robots.txt holds more rules than one URL is matched against within the budget.
    TooCostly {
        /// How many rules were tried.
        tried: usize,
    },
}

/// A URL robots.txt disallows for our user agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsRefused {
    /// The URL refused (redacted).
    pub url: String,
    /// The product token matched against the groups.
    pub agent: String,
    /// What decided.
    pub reason: RobotsReason,
}

/// An HTTP status the tool cannot use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Http {
    /// The URL that answered (redacted).
    pub url: String,
    /// The status code.
    pub status: u16,
    /// The page's title or first line of text, if any, cut short.
    pub excerpt: Option<String>,
    /// The `Retry-After` header, when the status is 429 or 503 and it was present.
    pub retry_after: Option<String>,
}

/// A body the tools cannot read: not text, or a PDF whose text cannot be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    /// The URL that answered (redacted).
    pub url: String,
    /// The declared media type.
    pub content_type: String,
    /// The declared size in bytes, when known.
    pub bytes: Option<u64>,
    /// What is wrong with the body.
    pub problem: Problem,
}

/// What is wrong with a body the tools cannot read.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// A media type that is not text (images, archives, audio …).
    NotText,
    /// A PDF larger than `max-pdf-bytes` (a PDF is read whole or not at all).
    PdfTooLarge {
        /// The cap, in bytes.
        limit: u64,
    },
    /// A PDF whose streams would inflate past the memory bound `max-pdf-bytes` sets.
    PdfBomb {
        /// The bound on what its streams may inflate to, in bytes.
        limit: u64,
    },
    /// A PDF whose pages draw more glyphs than the bound `max-pdf-bytes` sets.
    PdfGlyphs {
        /// The bound on glyphs drawn.
        limit: u64,
    },
    /// A PDF whose reader ran past the memory `max-pdf-bytes` allows it (in the reader's
    /// own process, which was ended).
    PdfMemory {
        /// The bound, in bytes.
        limit: u64,
    },
    /// A PDF encrypted with a password.
    PdfEncrypted,
    /// A PDF whose structure is damaged: says what was wrong.
    PdfMalformed(&'static str),
    /// A PDF whose pages carry no text layer (scanned pages).
    PdfNoText {
        /// How many pages it has.
        pages: u32,
    },
    /// A PDF the reader failed on inside (it stopped where it should not).
    PdfUnreadable,
    /// A PDF not read because the process that reads PDFs could not be started (the
    /// server does not read them in its own process instead).
    PdfReaderUnavailable,
}

impl Problem {
    /// The stable rule id of the problem.
    pub fn rule(self) -> &'static str {
        match self {
            Problem::NotText => "content-type",
            Problem::PdfTooLarge { .. } => "pdf-size",
            Problem::PdfBomb { .. } => "pdf-inflation",
            Problem::PdfGlyphs { .. } => "pdf-glyphs",
            Problem::PdfMemory { .. } => "pdf-memory",
            Problem::PdfEncrypted => "pdf-encrypted",
            Problem::PdfMalformed(_) => "pdf-malformed",
            Problem::PdfNoText { .. } => "pdf-no-text",
            Problem::PdfUnreadable => "pdf-unreadable",
            Problem::PdfReaderUnavailable => "pdf-reader",
        }
    }

    /// The key that would change the answer, if any.
    pub fn key(self) -> Option<ConfigKey> {
        match self {
            Problem::PdfTooLarge { .. }
            | Problem::PdfBomb { .. }
            | Problem::PdfGlyphs { .. }
            | Problem::PdfMemory { .. } => Some(ConfigKey::MaxPdfBytes),
            _ => None,
        }
    }
}

/// A search provider's failure: which provider, and what went wrong. Its message is
/// the whole story the model gets, so its first line says what to do next. No variant
/// carries key material.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// The provider's name (`"brave"`, `"searxng"`, a custom provider's own).
    pub provider: String,
    /// What went wrong.
    pub failure: Box<SearchFailure>,
}

impl Search {
    /// A failure of the provider named `provider`.
    pub fn new(provider: impl Into<String>, failure: SearchFailure) -> Search {
        Search {
            provider: provider.into(),
            failure: Box::new(failure),
        }
    }
}

/// Where the API key of a call came from, so that a refused key names the place to
/// fix it (never the key itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyOrigin {
    /// The `api-key` configuration key.
    Config,
    /// The environment variable of this name (the one `api-key-env` names).
    Env(String),
}

/// What went wrong with a search provider.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchFailure {
    /// No API key: neither `api-key` nor the environment variable `env` (the one
    /// `api-key-env` names) holds one.
    MissingKey {
        /// The environment variable read.
        env: String,
    },
    /// The provider refused the key (Brave: 401, 403, or 422 `SUBSCRIPTION_TOKEN_INVALID`).
    KeyRefused {
        /// The status it answered.
        status: u16,
        /// Where the key came from.
        origin: KeyOrigin,
    },
    /// The key cannot be sent: it holds a character an HTTP header cannot carry.
    KeyUnsendable {
        /// Where the key came from.
        origin: KeyOrigin,
    },
    /// The provider is rate-limiting (HTTP 429).
    RateLimited {
        /// When to retry, in words (`"in 2 seconds"`, `"after Wed, 21 Oct 2026 07:28:00 GMT"`),
        /// from `Retry-After` or the provider's own reset header.
        retry: Option<String>,
        /// The same wait as a duration, when the provider gave it in seconds: what a
        /// paced search waits out before its one retry.
        wait: Option<Duration>,
    },
    /// The provider has no way to apply a filter the call asked for, so it refuses it
    /// rather than answer unfiltered results.
    Unsupported {
        /// The filter's parameter name (`freshness`, `site`, `page`).
        filter: &'static str,
        /// The value asked for.
        value: String,
        /// The values of that filter the provider does apply, in words, when it applies
        /// some (`"day, month or year"`).
        offers: Option<&'static str>,
    },
    /// Pacing (`search-rate`) would start this request only after the call's deadline:
    /// too many searches are already waiting for their turn.
    Paced {
        /// The configured rate, requests per second.
        rate: u64,
        /// How long this request would have waited for its turn.
        queued: Duration,
        /// The call's whole budget (`total-timeout`).
        budget: Duration,
    },
    /// The provider answered an error status other than the above.
    Status {
        /// The status.
        status: u16,
        /// The provider's own words about it, cut short, when it gave any.
        detail: Option<String>,
        /// What would help, when something would (a sentence naming a key or a
        /// setting of the provider).
        hint: Option<&'static str>,
    },
    /// The provider could not be reached: DNS, refused, reset, TLS, the proxy.
    Unreachable {
        /// The endpoint (without its query).
        url: String,
        /// What failed.
        failure: TransportFailure,
        /// The underlying error in words.
        detail: String,
    },
    /// The provider did not answer in time.
    Deadline {
        /// The endpoint (without its query).
        url: String,
        /// The key whose budget ran out (`connect-timeout` or `timeout`).
        key: ConfigKey,
        /// That budget.
        limit: Duration,
    },
    /// The provider answered something that is not its search API's JSON.
    Malformed {
        /// The endpoint (without its query).
        url: String,
        /// What is wrong with the answer.
        detail: String,
    },
    /// A failure of a provider outside this crate, in its own words.
    Other {
        /// Its stable rule id.
        rule: &'static str,
        /// What went wrong, in words, without any key material.
        detail: String,
        /// The key that would fix it, if any.
        key: Option<ConfigKey>,
    },
}

impl SearchFailure {
    /// The failure's stable rule id.
    pub fn rule(&self) -> &'static str {
        match self {
            SearchFailure::MissingKey { .. } => "api-key",
            SearchFailure::KeyRefused { .. } => "api-key-refused",
            SearchFailure::KeyUnsendable { .. } => "api-key-unsendable",
            SearchFailure::RateLimited { .. } => "rate-limited",
            SearchFailure::Unsupported { .. } => "filter-unsupported",
            SearchFailure::Paced { .. } => "search-rate",
            SearchFailure::Status { .. } => "provider-status",
            SearchFailure::Unreachable { .. } => "provider-unreachable",
            SearchFailure::Deadline { .. } => "provider-timeout",
            SearchFailure::Malformed { .. } => "provider-response",
            SearchFailure::Other { rule, .. } => rule,
        }
    }

    /// The configuration key that would change the answer, or `None`.
    pub fn config_key(&self) -> Option<ConfigKey> {
        match self {
            SearchFailure::MissingKey { .. } => Some(ConfigKey::ApiKeyEnv),
            SearchFailure::KeyRefused { origin, .. } | SearchFailure::KeyUnsendable { origin } => {
                match origin {
                    KeyOrigin::Config => Some(ConfigKey::ApiKey),
                    KeyOrigin::Env(_) => Some(ConfigKey::ApiKeyEnv),
                }
            }
            SearchFailure::RateLimited { .. }
            | SearchFailure::Status { .. }
            | SearchFailure::Unsupported { .. } => None,
            SearchFailure::Paced { .. } => Some(ConfigKey::SearchRate),
            SearchFailure::Unreachable { failure, .. } => Some(match failure {
                TransportFailure::Tls => ConfigKey::CaFile,
                TransportFailure::Proxy => ConfigKey::Proxy,
                _ => ConfigKey::SearchUrl,
            }),
            SearchFailure::Deadline { key, .. } => Some(*key),
            SearchFailure::Malformed { .. } => Some(ConfigKey::SearchUrl),
            SearchFailure::Other { key, .. } => *key,
        }
    }

    /// The endpoint concerned, when the failure names one.
    pub fn url(&self) -> Option<&str> {
        match self {
            SearchFailure::Unreachable { url, .. }
            | SearchFailure::Deadline { url, .. }
            | SearchFailure::Malformed { url, .. } => Some(url),
            _ => None,
        }
    }
}

impl Error {
    /// This error's kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::BadUrl(_) => ErrorKind::BadUrl,
            Error::Blocked(_) => ErrorKind::Blocked,
            Error::TooManyRedirects { .. } => ErrorKind::TooManyRedirects,
            Error::RedirectLoop { .. } => ErrorKind::RedirectLoop,
            Error::Deadline(_) => ErrorKind::Deadline,
            Error::Transport(_) => ErrorKind::Transport,
            Error::RobotsRefused(_) => ErrorKind::RobotsRefused,
            Error::Http(_) => ErrorKind::Http,
            Error::Content(_) => ErrorKind::Content,
            Error::Search(_) => ErrorKind::Search,
            Error::Pattern(_) => ErrorKind::Pattern,
            Error::Cancelled => ErrorKind::Cancelled,
        }
    }

    /// The stable id of the rule that refused or failed.
    pub fn rule(&self) -> &'static str {
        match self {
            Error::BadUrl(b) => b.reason.rule(),
            Error::Blocked(b) => b.class().id(),
            Error::TooManyRedirects { .. } => "redirect-limit",
            Error::RedirectLoop { .. } => "redirect-loop",
            Error::Deadline(d) => d.key.as_str(),
            Error::Transport(t) => t.failure.rule(),
            Error::RobotsRefused(r) => match r.reason {
                RobotsReason::Rule { .. } => "robots-disallow",
                RobotsReason::Unavailable { .. } => "robots-unavailable",
                RobotsReason::TooCostly { .. } => "robots-too-costly",
            },
            Error::Http(_) => "http-status",
            Error::Content(c) => c.problem.rule(),
            Error::Search(s) => s.failure.rule(),
            Error::Pattern(_) => "pattern-too-costly",
            Error::Cancelled => "cancelled",
        }
    }

    /// The configuration key that would change the answer, or `None` when no key
    /// would.
    pub fn config_key(&self) -> Option<ConfigKey> {
        match self {
            Error::Blocked(b) if b.only_exact() => Some(ConfigKey::AllowCidrs),
            Error::Blocked(b) => b.key(),
            Error::BadUrl(BadUrl {
                reason: BadUrlReason::BadPort(_),
                ..
            }) => Some(ConfigKey::AllowPorts),
            Error::Deadline(d) => Some(d.key),
            Error::Transport(t) if t.failure == TransportFailure::Tls => Some(ConfigKey::CaFile),
            Error::Transport(t) if t.failure == TransportFailure::Proxy => Some(ConfigKey::Proxy),
            Error::RobotsRefused(_) => Some(ConfigKey::RespectRobots),
            Error::Search(s) => s.failure.config_key(),
            Error::Content(c) => c.problem.key(),
            _ => None,
        }
    }

    /// The URL the error is about, redacted, when there is one.
    pub fn url(&self) -> Option<&str> {
        match self {
            Error::BadUrl(b) => Some(&b.url),
            Error::Blocked(_) | Error::Cancelled => None,
            Error::Search(s) => s.failure.url(),
            Error::TooManyRedirects { chain, .. } | Error::RedirectLoop { chain } => {
                chain.last().map(String::as_str)
            }
            Error::Deadline(d) => Some(&d.url),
            Error::Transport(t) => Some(&t.url),
            Error::RobotsRefused(r) => Some(&r.url),
            Error::Http(h) => Some(&h.url),
            Error::Content(c) => Some(&c.url),
            Error::Pattern(p) => Some(&p.url),
        }
    }
}

impl From<BadUrl> for Error {
    fn from(e: BadUrl) -> Self {
        Error::BadUrl(e)
    }
}

impl From<Blocked> for Error {
    fn from(e: Blocked) -> Self {
        Error::Blocked(e)
    }
}

impl From<Deadline> for Error {
    fn from(e: Deadline) -> Self {
        Error::Deadline(e)
    }
}

impl From<Transport> for Error {
    fn from(e: Transport) -> Self {
        Error::Transport(e)
    }
}

impl From<RobotsRefused> for Error {
    fn from(e: RobotsRefused) -> Self {
        Error::RobotsRefused(e)
    }
}

impl From<Http> for Error {
    fn from(e: Http) -> Self {
        Error::Http(e)
    }
}

impl From<Content> for Error {
    fn from(e: Content) -> Self {
        Error::Content(e)
    }
}

impl From<Search> for Error {
    fn from(e: Search) -> Self {
        Error::Search(e)
    }
}

/// How many characters of a URL a message quotes at most.
const QUOTE_LIMIT: usize = 200;

/// A URL as a message quotes it: whole up to 200 characters, else its first 200 and
/// `…` (a URL may be 8 KiB long; the scheme and host are at its start).
pub fn shown(url: &str) -> std::borrow::Cow<'_, str> {
    match url.char_indices().nth(QUOTE_LIMIT) {
        Some((cut, _)) => format!("{}…", &url[..cut]).into(),
        None => url.into(),
    }
}

/// How many characters of a value taken from a remote answer a message quotes at most.
pub const VALUE_LIMIT: usize = 100;

/// A value taken from a remote answer (a header such as `Retry-After`, `Content-Type`
/// or `Content-Encoding`) as a message quotes it: control characters as U+FFFD, whole
/// up to [`VALUE_LIMIT`] characters, else its first ones and `…`.
pub fn quoted(value: &str) -> String {
    let mut shown: String = value
        .chars()
        .take(VALUE_LIMIT)
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect();
    if value.chars().nth(VALUE_LIMIT).is_some() {
        shown.push('…');
    }
    shown
}

/// Writes a number of seconds the way messages and notices say it: `10 s`, `0.5 s`.
pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

impl fmt::Display for BadUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let url = &*shown(&self.url);
        match &self.reason {
            BadUrlReason::Unparseable(why) => write!(
                f,
                "refused {url:?}: not a valid URL ({why}). Give an absolute http:// or https:// URL. No configuration key changes this."
            ),
            BadUrlReason::Scheme(scheme) => write!(
                f,
                "refused {url}: the scheme '{scheme}' is not fetched; only http and https URLs are. No configuration key permits another scheme."
            ),
            BadUrlReason::Credentials => write!(
                f,
                "refused {url}: the URL carries a user name or password, which is never sent. Remove the credentials from the URL. No configuration key permits this."
            ),
            BadUrlReason::Port(port) => write!(
                f,
                "refused {url}: port out of range ({port}); a port must be 1 to 65535. No configuration key changes this."
            ),
            BadUrlReason::ObfuscatedIpv4(host) => write!(
                f,
                "refused {url}: the IPv4 host '{host}' is not written as four decimal numbers (a.b.c.d); decimal, hex, octal and shortened forms are how addresses are disguised. Write the address as a.b.c.d. No configuration key permits this spelling."
            ),
            BadUrlReason::ObfuscatedHost(host) => write!(
                f,
                "refused {url}: the host '{host}' is spelled in a way the URL parser would silently rewrite (look-alike or encoded characters, or a trailing dot). Write the host name plainly. No configuration key permits this spelling."
            ),
            BadUrlReason::ZoneId => write!(
                f,
                "refused {url}: IPv6 zone ids (the part after '%') name a local interface and are never fetched. No configuration key permits this."
            ),
            BadUrlReason::ForbiddenCharacter(c) => write!(
                f,
                "refused {url:?}: the URL contains {}, which a URL must not contain. Percent-encode it or remove it. No configuration key permits this.",
                describe_char(*c)
            ),
            BadUrlReason::EmptyHost => write!(
                f,
                "refused {url}: the URL has no host. Give an absolute URL with a host name. No configuration key changes this."
            ),
            BadUrlReason::Unspecified(host) => write!(
                f,
                "refused {url}: '{host}' is the unspecified address, which reaches this machine itself. No configuration key permits it; use a real address."
            ),
            BadUrlReason::HttpsDowngrade { from } => write!(
                f,
                "refused the redirect from {} to {url}: a redirect from https to http is never followed, because the page would travel readable and rewritable. Fetch the http URL directly if you mean it. No configuration key permits a downgrade.",
                shown(from)
            ),
            BadUrlReason::NoScheme => write!(
                f,
                "refused {url:?}: no scheme: write http:// or https:// before the host. No configuration key changes this."
            ),
            BadUrlReason::PortSyntax(port) => write!(
                f,
                "refused {url:?}: the port {port:?} is not a number; a port is written as digits only, 1 to 65535. No configuration key changes this."
            ),
            BadUrlReason::BadPort(port) => write!(
                f,
                "refused {url}: port {port} is on the Fetch standard's bad-port list (ports of mail, chat, file and other non-web protocols, which a crafted HTTP request could speak to); browsers refuse it too. To permit it, add {port} to \"allow-ports\"."
            ),
            BadUrlReason::TooLong(bytes) => write!(
                f,
                "refused {url}: the URL is {bytes} bytes long, more than the {MAX_URL_BYTES} bytes (8 KiB) a URL may have. Shorten it. No configuration key changes this."
            ),
            BadUrlReason::Location(LocationFault::Missing) => write!(
                f,
                "could not follow the redirect from {url}: the server answered with a redirect status but no Location header, so there is nowhere to go. No configuration key changes this."
            ),
            BadUrlReason::Location(LocationFault::Empty) => write!(
                f,
                "could not follow the redirect from {url}: its Location header is empty, so there is nowhere to go. No configuration key changes this."
            ),
            BadUrlReason::Location(LocationFault::NotText) => write!(
                f,
                "could not follow the redirect from {url}: its Location header holds bytes that are not text (not UTF-8), so it names no URL. No configuration key changes this."
            ),
        }
    }
}

/// Names a character a URL may not contain, in words.
fn describe_char(c: char) -> String {
    match c {
        ' ' => "a space".to_owned(),
        '\\' => "a backslash".to_owned(),
        '\t' => "a tab".to_owned(),
        '\n' => "a line feed".to_owned(),
        '\r' => "a carriage return".to_owned(),
        c if c.is_control() => format!("the control character U+{:04X}", u32::from(c)),
        c => format!("the whitespace character U+{:04X}", u32::from(c)),
    }
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Blocked {
            host,
            address,
            entry,
            carries,
        } = self;
        // An IP-literal host is the address itself, however it is spelled.
        let whom = if host.parse::<IpAddr>().ok() == Some(*address) {
            format!("{address}")
        } else {
            format!("{host} ({address})")
        };
        // What an allow-cidrs entry is matched against: the IPv4 address a peer
        // carries (an IPv4-mapped peer is its IPv4 address), else the peer.
        let cover = match (carries, address) {
            (Some(carried), _) => IpAddr::V4(carried.v4),
            (None, IpAddr::V6(v6)) => v6.to_ipv4_mapped().map_or(*address, IpAddr::V4),
            (None, IpAddr::V4(_)) => *address,
        };
        write!(f, "refused {whom}: ")?;
        if entry.class == addr::Class::ThisHost {
            return write!(
                f,
                "{}, which reaches the same services loopback does; the server does not connect to it. To permit it, set \"allow-loopback\": true or \"allow-private\": true, or add an \"allow-cidrs\" entry covering {cover}.",
                entry.class.label()
            );
        }
        if let Some(carried) = carries {
            write!(
                f,
                "it carries {} ({}, {}), a ",
                carried.v4,
                carried.how.label(),
                carried.how.rfc()
            )?;
        }
        write!(
            f,
            "{} ({}, {} {}); the server does not connect to it. ",
            entry.class.label(),
            entry.rfc,
            entry.name,
            entry.block
        )?;
        if self.only_exact() {
            write!(
                f,
                "Neither \"allow-private\" nor \"allow-hosts\" permits it; only an \"allow-cidrs\" entry covering {cover} would."
            )
        } else {
            match self.key() {
                Some(key) => write!(
                    f,
                    "To permit it, set \"{key}\": true, or add an \"allow-cidrs\" entry covering {cover}."
                ),
                None => write!(
                    f,
                    "Only an \"allow-cidrs\" entry covering {cover} would permit it."
                ),
            }
        }
    }
}

impl fmt::Display for Deadline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let advice = if self.phase == Phase::Extracting {
            "to give the page's text more time"
        } else {
            "if the server is slow rather than dead"
        };
        write!(
            f,
            "gave up on {} while {}: the {} of {} ran out. Raise \"{}\" {advice}.",
            shown(&self.url),
            self.phase.as_str(),
            self.key,
            seconds(self.limit),
            self.key
        )
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Transport {
            url,
            failure,
            detail,
        } = self;
        let url = shown(url);
        match failure {
            TransportFailure::Dns => write!(
                f,
                "could not fetch {url}: the host name did not resolve ({detail}). Check the spelling. No configuration key changes this."
            ),
            TransportFailure::Refused => write!(
                f,
                "could not fetch {url}: the server refused the connection ({detail}). No configuration key changes this."
            ),
            TransportFailure::Reset => write!(
                f,
                "could not fetch {url}: the connection was closed before the answer was complete ({detail}). Trying again may work. No configuration key changes this."
            ),
            TransportFailure::Tls => write!(
                f,
                "could not fetch {url}: the TLS handshake failed ({detail}). If the server uses a private certificate authority, add its PEM to \"ca-file\"; verification is never skipped."
            ),
            TransportFailure::Proxy => write!(
                f,
                "could not fetch {url}: the proxy did not open a tunnel ({detail}). Check the \"proxy\" setting."
            ),
            TransportFailure::Protocol => write!(
                f,
                "could not fetch {url}: the server did not speak HTTP ({detail}). No configuration key changes this."
            ),
            TransportFailure::Other => write!(
                f,
                "could not fetch {url}: the connection failed ({detail}). No configuration key changes this."
            ),
        }
    }
}

impl fmt::Display for RobotsRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let RobotsRefused { url, agent, reason } = self;
        let url = shown(url);
        match reason {
            RobotsReason::Rule { line, line_no } => write!(
                f,
                "skipped {url}: robots.txt {line} (line {line_no}) disallows it for user agent '{agent}'. A fetch of that one page reads it regardless; set \"respect-robots\": false to crawl it anyway."
            ),
            RobotsReason::Unavailable { status } => write!(
                f,
                "skipped {url}: robots.txt answered {status}, a server error, which RFC 9309 says means the whole site is disallowed until it recovers. A fetch of that one page reads it regardless; set \"respect-robots\": false to crawl it anyway."
            ),
            RobotsReason::TooCostly { tried } => write!(
                f,
                "skipped {url}: robots.txt holds more rules than one URL is matched against ({tried} tried within the budget, which no key raises), so it is treated as disallowed for user agent '{agent}'. A fetch of that one page reads it regardless; set \"respect-robots\": false to crawl it anyway."
            ),
        }
    }
}

impl fmt::Display for Http {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Http {
            url,
            status,
            excerpt,
            retry_after,
        } = self;
        let url = shown(url);
        write!(f, "{url} answered HTTP {status} {}", status_reason(*status))?;
        if let Some(excerpt) = excerpt {
            write!(f, ": \"{excerpt}\"")?;
        }
        f.write_str(".")?;
        match (status, retry_after) {
            (429 | 503, Some(after)) => write!(
                f,
                " The server asks to retry after {}; try again then.",
                quoted(after)
            )?,
            (429, None) => f.write_str(" The server is rate-limiting; try again later.")?,
            (503, None) => f.write_str(" The server is unavailable; try again later.")?,
            _ => {}
        }
        f.write_str(" No configuration key changes this.")
    }
}

/// The reason phrase of common statuses (`404` → `"Not Found"`), or `""` for others.
pub fn status_reason(status: u16) -> &'static str {
    match status {
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        410 => "Gone",
        429 => "Too Many Requests",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

impl fmt::Display for Content {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NO_KEY: &str = "No configuration key changes this.";
        let url = shown(&self.url);
        match self.problem {
            Problem::NotText => {
                write!(f, "{url} is {}", quoted(&self.content_type))?;
                if let Some(bytes) = self.bytes {
                    write!(f, " ({bytes} bytes)")?;
                }
                write!(
                    f,
                    ", not text; these tools read HTML, XML, JSON, PDF and text of any text/* type (plain text, Markdown, CSV …). {NO_KEY}"
                )
            }
            Problem::PdfTooLarge { limit } => {
                write!(f, "{url} is a PDF")?;
                if let Some(bytes) = self.bytes {
                    write!(f, " of {bytes} bytes")?;
                }
                write!(
                    f,
                    ", larger than the PDF cap of {limit} bytes; a PDF is read whole (its index is at its end), so it was not read. Raise max-pdf-bytes to read it."
                )
            }
            Problem::PdfBomb { limit } => write!(
                f,
                "{url} is a PDF whose streams inflate to more than {limit} bytes (each counted as often as its pages draw it), the memory bound max-pdf-bytes sets (a compression bomb or a very large document); it was not read. Raise max-pdf-bytes to allow more."
            ),
            Problem::PdfGlyphs { limit } => write!(
                f,
                "{url} is a PDF whose pages draw more than {limit} glyphs, the bound max-pdf-bytes sets (a very long document, or drawings repeated without end); it was not read. Raise max-pdf-bytes to allow more."
            ),
            Problem::PdfMemory { limit } => write!(
                f,
                "{url} is a PDF whose reading needed more than {limit} bytes of memory, the bound max-pdf-bytes sets for the PDF reader's process, which was ended; it was not read. Raise max-pdf-bytes to allow more."
            ),
            Problem::PdfEncrypted => write!(
                f,
                "{url} is an encrypted PDF that needs a password to open; these tools do not take passwords. {NO_KEY}"
            ),
            Problem::PdfMalformed(what) => write!(f, "{url} is a damaged PDF: {what}. {NO_KEY}"),
            Problem::PdfNoText { pages } => write!(
                f,
                "{url} is a PDF of {pages} page{} with no text layer (scanned pages or pictures of text); these tools do not run OCR. {NO_KEY}",
                if pages == 1 { "" } else { "s" }
            ),
            Problem::PdfUnreadable => write!(
                f,
                "{url} is an unreadable PDF: the PDF reader failed inside while reading it. {NO_KEY}"
            ),
            Problem::PdfReaderUnavailable => write!(
                f,
                "{url} is a PDF, and the process that reads PDFs apart from the server (so that a hostile file cannot harm it) could not be started (the machine is short of processes or memory); it was not read. Try again later. {NO_KEY}"
            ),
        }
    }
}

impl fmt::Display for KeyOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyOrigin::Config => f.write_str("the \"api-key\" of the web config"),
            KeyOrigin::Env(name) => write!(
                f,
                "the environment variable {name} (the one \"api-key-env\" names)"
            ),
        }
    }
}

impl fmt::Display for Search {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.provider;
        match &*self.failure {
            SearchFailure::MissingKey { env } => write!(
                f,
                "Searching needs a Brave Search API key. Set the environment variable {env}, or point \"api-key-env\" at the variable that holds it, or put an \"api-key\" in the web config."
            ),
            SearchFailure::KeyRefused { status, origin } => {
                write!(
                    f,
                    "search ({p}): the search provider refused the API key (HTTP {status}{}). The key came from {origin}: ",
                    reason_suffix(*status)
                )?;
                match origin {
                    KeyOrigin::Config => f.write_str(
                        "check it, or remove it so that the variable \"api-key-env\" names is read instead.",
                    ),
                    KeyOrigin::Env(_) => f.write_str(
                        "check its value, point \"api-key-env\" at the variable that holds a valid key, or put an \"api-key\" in the web config.",
                    ),
                }
            }
            SearchFailure::KeyUnsendable { origin } => write!(
                f,
                "search ({p}): the API key from {origin} holds a line break or another character an HTTP header cannot carry, so it was not sent. Set it to the key alone."
            ),
            SearchFailure::RateLimited { retry, .. } => {
                write!(
                    f,
                    "search ({p}): the search provider is rate-limiting these requests (HTTP 429 Too Many Requests); "
                )?;
                match retry {
                    Some(when) => write!(f, "retry {}.", quoted(when))?,
                    None => {
                        f.write_str("it named no time, so wait a little before trying again.")?
                    }
                }
                f.write_str(" No configuration key changes this.")
            }
            SearchFailure::Status {
                status,
                detail,
                hint,
            } => {
                let server_side = *status >= 500;
                if server_side {
                    write!(
                        f,
                        "search ({p}): the search provider failed with HTTP {status}{}, an error on its side",
                        reason_suffix(*status)
                    )?;
                } else {
                    write!(
                        f,
                        "search ({p}): the search provider refused the request with HTTP {status}{}",
                        reason_suffix(*status)
                    )?;
                }
                if let Some(detail) = detail {
                    write!(f, ": \"{detail}\"")?;
                }
                f.write_str(".")?;
                match hint {
                    Some(hint) => write!(f, " {hint}"),
                    None if server_side => {
                        f.write_str(" Try again later. No configuration key changes this.")
                    }
                    None => f.write_str(" No configuration key changes this."),
                }
            }
            SearchFailure::Unreachable {
                url,
                failure,
                detail,
            } => {
                let what = match failure {
                    TransportFailure::Dns => "the host name did not resolve",
                    TransportFailure::Refused => "the connection was refused",
                    TransportFailure::Reset => {
                        "the connection was closed before the answer was complete"
                    }
                    TransportFailure::Tls => "the TLS handshake failed",
                    TransportFailure::Proxy => "the proxy did not open a tunnel",
                    TransportFailure::Protocol => "it did not speak HTTP",
                    TransportFailure::Other => "the connection failed",
                };
                write!(
                    f,
                    "search ({p}): could not reach the search provider at {url}: {what} ({detail}). "
                )?;
                match failure {
                    TransportFailure::Tls => f.write_str(
                        "If it uses a private certificate authority, add its PEM to \"ca-file\"; verification is never skipped.",
                    ),
                    TransportFailure::Proxy => f.write_str("Check the \"proxy\" setting."),
                    _ => f.write_str(
                        "Check that \"search-url\" names the provider's address and that it is up.",
                    ),
                }
            }
            SearchFailure::Deadline { url, key, limit } => write!(
                f,
                "search ({p}): the search provider at {url} did not answer within the {key} of {}. Raise \"{key}\" if it is slow rather than down.",
                seconds(*limit)
            ),
            SearchFailure::Malformed { url, detail } => write!(
                f,
                "search ({p}): the answer from {url} is not the provider's search JSON ({detail}). Check that \"search-url\" points at the provider's API."
            ),
            SearchFailure::Unsupported {
                filter,
                value,
                offers,
            } => {
                write!(
                    f,
                    "search ({p}): this search provider cannot apply {filter} {value:?}"
                )?;
                match offers {
                    Some(offers) => write!(
                        f,
                        "; it applies {filter} {offers}: ask again with one of those, or without \"{filter}\"."
                    )?,
                    None => write!(
                        f,
                        ", it has no such filter: ask again without \"{filter}\"."
                    )?,
                }
                f.write_str(" No configuration key changes this.")
            }
            SearchFailure::Paced {
                rate,
                queued,
                budget,
            } => write!(
                f,
                "search ({p}): too many searches are waiting: at the \"search-rate\" of {rate} per second this one would start in {}, after the call's total-timeout of {}. Search less at once, or raise \"search-rate\" if the provider's plan allows more.",
                seconds(*queued),
                seconds(*budget)
            ),
            SearchFailure::Other { detail, .. } => write!(f, "search ({p}) failed: {detail}"),
        }
    }
}

/// ` Not Found` for a status with a known reason phrase, `""` otherwise.
fn reason_suffix(status: u16) -> String {
    match status_reason(status) {
        "" => String::new(),
        reason => format!(" {reason}"),
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadUrl(e) => e.fmt(f),
            Error::Blocked(e) => e.fmt(f),
            Error::TooManyRedirects { chain, limit } => {
                write!(
                    f,
                    "gave up after {limit} redirects: {}. No configuration key raises the limit; fetch the last URL directly if it is the page you want.",
                    chain
                        .iter()
                        .map(|u| shown(u))
                        .collect::<Vec<_>>()
                        .join(" -> ")
                )
            }
            Error::RedirectLoop { chain } => write!(
                f,
                "redirect loop: {}. The server sends the request in a circle. No configuration key changes this.",
                chain
                    .iter()
                    .map(|u| shown(u))
                    .collect::<Vec<_>>()
                    .join(" -> ")
            ),
            Error::Deadline(e) => e.fmt(f),
            Error::Transport(e) => e.fmt(f),
            Error::RobotsRefused(e) => e.fmt(f),
            Error::Http(e) => e.fmt(f),
            Error::Content(e) => e.fmt(f),
            Error::Search(e) => e.fmt(f),
            Error::Pattern(p) => write!(
                f,
                "gave up matching {} on {} at line {}: its automaton outgrew the matcher's cache, and matching that line another way would cost more CPU than a call may spend. Use fewer or smaller counted repetitions, or a more specific pattern (a literal piece of the line). No configuration key raises this budget.",
                p.pattern,
                shown(&p.url),
                p.line
            ),
            Error::Cancelled => f.write_str("cancelled by the client."),
        }
    }
}

impl std::error::Error for Error {}

/// A configuration that cannot be used. Raised once, at construction.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// Keys that are not configuration keys.
    UnknownKeys {
        /// What the configuration is for, as the message names it (`MCP::Web`, …).
        owner: String,
        /// The unknown keys, sorted.
        unknown: Vec<String>,
        /// Every valid key, sorted.
        valid: Vec<&'static str>,
    },
    /// A key with a value of the wrong JSON type.
    Type {
        /// The key.
        key: String,
        /// What it takes, in words ("a boolean", "a list of strings").
        expected: &'static str,
    },
    /// A key with a value its rule refuses.
    Value {
        /// The key.
        key: String,
        /// The rule, in words ("must be at least 4096").
        rule: String,
    },
    /// The configuration text is not valid JSON, or not an object.
    Syntax {
        /// Where it came from (a file name, `--tool Web`).
        source: String,
        /// The parser's words.
        detail: String,
    },
}

impl ConfigError {
    /// The key the error is about, when there is one.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Type { key, .. } | ConfigError::Value { key, .. } => Some(key),
            ConfigError::UnknownKeys { .. } | ConfigError::Syntax { .. } => None,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::UnknownKeys {
                owner,
                unknown,
                valid,
            } => write!(
                f,
                "Unknown config key(s) for {owner}: {}.\nValid keys: {}",
                unknown.join(", "),
                valid.join(", ")
            ),
            ConfigError::Type { key, expected } => {
                write!(f, "config key \"{key}\" takes {expected}.")
            }
            ConfigError::Value { key, rule } => write!(f, "config key \"{key}\" {rule}."),
            ConfigError::Syntax { source, detail } => {
                write!(
                    f,
                    "the configuration in {source} is not a JSON object: {detail}."
                )
            }
        }
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusal of `address` for `host`, from the address's real classification (an
    /// IPv4-mapped address classified as its IPv4 address, as the guard does).
    fn blocked(host: &str, address: &str) -> Blocked {
        let address: IpAddr = address.parse().unwrap();
        Blocked::new(host, address, &addr::classify(address.to_canonical())).unwrap()
    }

    /// Every message of the family, pinned to the letter.
    #[test]
    fn golden_messages() {
        let d = |phase, key, secs| {
            Error::Deadline(Deadline {
                url: "https://slow.example/".into(),
                phase,
                key,
                limit: Duration::from_secs_f64(secs),
            })
        };
        let t = |failure| {
            Error::Transport(Transport {
                url: "https://x.example/".into(),
                failure,
                detail: "os error 111".into(),
            })
        };
        let search = |failure| Error::Search(Search::new("brave", failure));
        let bad = |reason| {
            Error::BadUrl(BadUrl {
                url: "http://x.example/".into(),
                reason,
            })
        };
        let cases: Vec<(Error, &str)> = vec![
            (
                bad(BadUrlReason::Unparseable(
                    "relative URL without a base".into(),
                )),
                r#"refused "http://x.example/": not a valid URL (relative URL without a base). Give an absolute http:// or https:// URL. No configuration key changes this."#,
            ),
            (
                bad(BadUrlReason::Scheme("file".into())),
                "refused http://x.example/: the scheme 'file' is not fetched; only http and https URLs are. No configuration key permits another scheme.",
            ),
            (
                bad(BadUrlReason::Credentials),
                "refused http://x.example/: the URL carries a user name or password, which is never sent. Remove the credentials from the URL. No configuration key permits this.",
            ),
            (
                bad(BadUrlReason::Port("0".into())),
                "refused http://x.example/: port out of range (0); a port must be 1 to 65535. No configuration key changes this.",
            ),
            (
                bad(BadUrlReason::ObfuscatedIpv4("2130706433".into())),
                "refused http://x.example/: the IPv4 host '2130706433' is not written as four decimal numbers (a.b.c.d); decimal, hex, octal and shortened forms are how addresses are disguised. Write the address as a.b.c.d. No configuration key permits this spelling.",
            ),
            (
                bad(BadUrlReason::ObfuscatedHost("ｅxample.com".into())),
                "refused http://x.example/: the host 'ｅxample.com' is spelled in a way the URL parser would silently rewrite (look-alike or encoded characters, or a trailing dot). Write the host name plainly. No configuration key permits this spelling.",
            ),
            (
                bad(BadUrlReason::ZoneId),
                "refused http://x.example/: IPv6 zone ids (the part after '%') name a local interface and are never fetched. No configuration key permits this.",
            ),
            (
                bad(BadUrlReason::ForbiddenCharacter('\\')),
                r#"refused "http://x.example/": the URL contains a backslash, which a URL must not contain. Percent-encode it or remove it. No configuration key permits this."#,
            ),
            (
                bad(BadUrlReason::ForbiddenCharacter('\u{7}')),
                r#"refused "http://x.example/": the URL contains the control character U+0007, which a URL must not contain. Percent-encode it or remove it. No configuration key permits this."#,
            ),
            (
                bad(BadUrlReason::EmptyHost),
                "refused http://x.example/: the URL has no host. Give an absolute URL with a host name. No configuration key changes this.",
            ),
            (
                bad(BadUrlReason::Unspecified("0.0.0.0".into())),
                "refused http://x.example/: '0.0.0.0' is the unspecified address, which reaches this machine itself. No configuration key permits it; use a real address.",
            ),
            (
                bad(BadUrlReason::HttpsDowngrade {
                    from: "https://a.example/".into(),
                }),
                "refused the redirect from https://a.example/ to http://x.example/: a redirect from https to http is never followed, because the page would travel readable and rewritable. Fetch the http URL directly if you mean it. No configuration key permits a downgrade.",
            ),
            (
                bad(BadUrlReason::NoScheme),
                r#"refused "http://x.example/": no scheme: write http:// or https:// before the host. No configuration key changes this."#,
            ),
            (
                bad(BadUrlReason::PortSyntax(" 80".into())),
                r#"refused "http://x.example/": the port " 80" is not a number; a port is written as digits only, 1 to 65535. No configuration key changes this."#,
            ),
            (
                bad(BadUrlReason::BadPort(6667)),
                r#"refused http://x.example/: port 6667 is on the Fetch standard's bad-port list (ports of mail, chat, file and other non-web protocols, which a crafted HTTP request could speak to); browsers refuse it too. To permit it, add 6667 to "allow-ports"."#,
            ),
            (
                bad(BadUrlReason::TooLong(9000)),
                "refused http://x.example/: the URL is 9000 bytes long, more than the 8192 bytes (8 KiB) a URL may have. Shorten it. No configuration key changes this.",
            ),
            (
                bad(BadUrlReason::Location(LocationFault::Missing)),
                "could not follow the redirect from http://x.example/: the server answered with a redirect status but no Location header, so there is nowhere to go. No configuration key changes this.",
            ),
            (
                bad(BadUrlReason::Location(LocationFault::Empty)),
                "could not follow the redirect from http://x.example/: its Location header is empty, so there is nowhere to go. No configuration key changes this.",
            ),
            (
                bad(BadUrlReason::Location(LocationFault::NotText)),
                "could not follow the redirect from http://x.example/: its Location header holds bytes that are not text (not UTF-8), so it names no URL. No configuration key changes this.",
            ),
            (
                Error::Blocked(blocked("intranet.example", "10.1.2.3")),
                r#"refused intranet.example (10.1.2.3): private address (RFC 1918, Private-Use 10.0.0.0/8); the server does not connect to it. To permit it, set "allow-private": true, or add an "allow-cidrs" entry covering 10.1.2.3."#,
            ),
            (
                Error::Blocked(blocked("192.0.2.1", "192.0.2.1")),
                r#"refused 192.0.2.1: documentation address (RFC 5737, Documentation (TEST-NET-1) 192.0.2.0/24); the server does not connect to it. Only an "allow-cidrs" entry covering 192.0.2.1 would permit it."#,
            ),
            (
                Error::Blocked(blocked("metadata.example", "169.254.169.254")),
                r#"refused metadata.example (169.254.169.254): cloud metadata endpoint (AWS, Google Cloud, Azure, OCI and OpenStack documentation, Instance metadata service 169.254.169.254/32); the server does not connect to it. Neither "allow-private" nor "allow-hosts" permits it; only an "allow-cidrs" entry covering 169.254.169.254 would."#,
            ),
            (
                Error::Blocked(blocked("64:ff9b::a00:1", "64:ff9b::a00:1")),
                r#"refused 64:ff9b::a00:1: it carries 10.0.0.1 (NAT64, RFC 6052), a private address (RFC 1918, Private-Use 10.0.0.0/8); the server does not connect to it. To permit it, set "allow-private": true, or add an "allow-cidrs" entry covering 10.0.0.1."#,
            ),
            (
                Error::Blocked(blocked("::ffff:7f00:1", "::ffff:127.0.0.1")),
                r#"refused ::ffff:127.0.0.1: loopback address (RFC 1122, Loopback 127.0.0.0/8); the server does not connect to it. To permit it, set "allow-loopback": true, or add an "allow-cidrs" entry covering 127.0.0.1."#,
            ),
            (
                Error::Blocked(blocked("x", "::ffff:169.254.169.254")),
                r#"refused x (::ffff:169.254.169.254): cloud metadata endpoint (AWS, Google Cloud, Azure, OCI and OpenStack documentation, Instance metadata service 169.254.169.254/32); the server does not connect to it. Neither "allow-private" nor "allow-hosts" permits it; only an "allow-cidrs" entry covering 169.254.169.254 would."#,
            ),
            (
                Error::Blocked(blocked("x", "2002:a9fe:a9fe::1")),
                r#"refused x (2002:a9fe:a9fe::1): it carries 169.254.169.254 (6to4, RFC 3056), a cloud metadata endpoint (AWS, Google Cloud, Azure, OCI and OpenStack documentation, Instance metadata service 169.254.169.254/32); the server does not connect to it. Neither "allow-private" nor "allow-hosts" permits it; only an "allow-cidrs" entry covering 169.254.169.254 would."#,
            ),
            (
                Error::Blocked(blocked("localhost", "::1")),
                r#"refused localhost (::1): loopback address (RFC 4291, Loopback Address ::1/128); the server does not connect to it. To permit it, set "allow-loopback": true, or add an "allow-cidrs" entry covering ::1."#,
            ),
            (
                Error::TooManyRedirects {
                    chain: vec!["http://a/".into(), "http://b/".into()],
                    limit: 10,
                },
                "gave up after 10 redirects: http://a/ -> http://b/. No configuration key raises the limit; fetch the last URL directly if it is the page you want.",
            ),
            (
                Error::RedirectLoop {
                    chain: vec!["http://a/".into(), "http://b/".into(), "http://a/".into()],
                },
                "redirect loop: http://a/ -> http://b/ -> http://a/. The server sends the request in a circle. No configuration key changes this.",
            ),
            (
                d(Phase::Connecting, ConfigKey::ConnectTimeout, 10.0),
                r#"gave up on https://slow.example/ while connecting: the connect-timeout of 10 s ran out. Raise "connect-timeout" if the server is slow rather than dead."#,
            ),
            (
                d(Phase::ReadingHeaders, ConfigKey::HeadersTimeout, 0.5),
                r#"gave up on https://slow.example/ while reading headers: the headers-timeout of 0.5 s ran out. Raise "headers-timeout" if the server is slow rather than dead."#,
            ),
            (
                d(Phase::ReadingBody, ConfigKey::Timeout, 30.0),
                r#"gave up on https://slow.example/ while reading the body: the timeout of 30 s ran out. Raise "timeout" if the server is slow rather than dead."#,
            ),
            (
                t(TransportFailure::Dns),
                "could not fetch https://x.example/: the host name did not resolve (os error 111). Check the spelling. No configuration key changes this.",
            ),
            (
                t(TransportFailure::Refused),
                "could not fetch https://x.example/: the server refused the connection (os error 111). No configuration key changes this.",
            ),
            (
                t(TransportFailure::Reset),
                "could not fetch https://x.example/: the connection was closed before the answer was complete (os error 111). Trying again may work. No configuration key changes this.",
            ),
            (
                t(TransportFailure::Tls),
                r#"could not fetch https://x.example/: the TLS handshake failed (os error 111). If the server uses a private certificate authority, add its PEM to "ca-file"; verification is never skipped."#,
            ),
            (
                t(TransportFailure::Proxy),
                r#"could not fetch https://x.example/: the proxy did not open a tunnel (os error 111). Check the "proxy" setting."#,
            ),
            (
                t(TransportFailure::Protocol),
                "could not fetch https://x.example/: the server did not speak HTTP (os error 111). No configuration key changes this.",
            ),
            (
                t(TransportFailure::Other),
                "could not fetch https://x.example/: the connection failed (os error 111). No configuration key changes this.",
            ),
            (
                Error::RobotsRefused(RobotsRefused {
                    url: "https://x.example/private/a".into(),
                    agent: "mcp-web".into(),
                    reason: RobotsReason::Rule {
                        line: "Disallow: /private".into(),
                        line_no: 3,
                    },
                }),
                r#"skipped https://x.example/private/a: robots.txt Disallow: /private (line 3) disallows it for user agent 'mcp-web'. A fetch of that one page reads it regardless; set "respect-robots": false to crawl it anyway."#,
            ),
            (
                Error::RobotsRefused(RobotsRefused {
                    url: "https://x.example/a".into(),
                    agent: "mcp-web".into(),
                    reason: RobotsReason::Unavailable { status: 503 },
                }),
                r#"skipped https://x.example/a: robots.txt answered 503, a server error, which RFC 9309 says means the whole site is disallowed until it recovers. A fetch of that one page reads it regardless; set "respect-robots": false to crawl it anyway."#,
            ),
            (
                Error::Http(Http {
                    url: "https://x.example/a".into(),
                    status: 404,
                    excerpt: Some("Page not found".into()),
                    retry_after: None,
                }),
                r#"https://x.example/a answered HTTP 404 Not Found: "Page not found". No configuration key changes this."#,
            ),
            (
                Error::Http(Http {
                    url: "https://x.example/a".into(),
                    status: 429,
                    excerpt: None,
                    retry_after: Some("120 seconds".into()),
                }),
                "https://x.example/a answered HTTP 429 Too Many Requests. The server asks to retry after 120 seconds; try again then. No configuration key changes this.",
            ),
            (
                Error::Http(Http {
                    url: "https://x.example/a".into(),
                    status: 503,
                    excerpt: None,
                    retry_after: None,
                }),
                "https://x.example/a answered HTTP 503 Service Unavailable. The server is unavailable; try again later. No configuration key changes this.",
            ),
            (
                Error::Content(Content {
                    url: "https://x.example/a.png".into(),
                    content_type: "image/png".into(),
                    bytes: Some(5120),
                    problem: Problem::NotText,
                }),
                "https://x.example/a.png is image/png (5120 bytes), not text; these tools read HTML, XML, JSON, PDF and text of any text/* type (plain text, Markdown, CSV …). No configuration key changes this.",
            ),
            (
                Error::Search(Search::new(
                    "mine",
                    SearchFailure::Other {
                        rule: "quota",
                        detail: "the quota is spent".into(),
                        key: None,
                    },
                )),
                "search (mine) failed: the quota is spent",
            ),
            (
                search(SearchFailure::MissingKey {
                    env: "BRAVE_API_KEY".into(),
                }),
                r#"Searching needs a Brave Search API key. Set the environment variable BRAVE_API_KEY, or point "api-key-env" at the variable that holds it, or put an "api-key" in the web config."#,
            ),
            (
                search(SearchFailure::KeyRefused {
                    status: 401,
                    origin: KeyOrigin::Env("MY_KEY".into()),
                }),
                r#"search (brave): the search provider refused the API key (HTTP 401 Unauthorized). The key came from the environment variable MY_KEY (the one "api-key-env" names): check its value, point "api-key-env" at the variable that holds a valid key, or put an "api-key" in the web config."#,
            ),
            (
                search(SearchFailure::KeyRefused {
                    status: 422,
                    origin: KeyOrigin::Config,
                }),
                r#"search (brave): the search provider refused the API key (HTTP 422). The key came from the "api-key" of the web config: check it, or remove it so that the variable "api-key-env" names is read instead."#,
            ),
            (
                search(SearchFailure::KeyUnsendable {
                    origin: KeyOrigin::Config,
                }),
                r#"search (brave): the API key from the "api-key" of the web config holds a line break or another character an HTTP header cannot carry, so it was not sent. Set it to the key alone."#,
            ),
            (
                search(SearchFailure::RateLimited {
                    retry: Some("in 2 seconds".into()),
                    wait: Some(Duration::from_secs(2)),
                }),
                "search (brave): the search provider is rate-limiting these requests (HTTP 429 Too Many Requests); retry in 2 seconds. No configuration key changes this.",
            ),
            (
                search(SearchFailure::RateLimited {
                    retry: None,
                    wait: None,
                }),
                "search (brave): the search provider is rate-limiting these requests (HTTP 429 Too Many Requests); it named no time, so wait a little before trying again. No configuration key changes this.",
            ),
            (
                search(SearchFailure::Unsupported {
                    filter: "freshness",
                    value: "week".into(),
                    offers: Some("day, month or year"),
                }),
                r#"search (brave): this search provider cannot apply freshness "week"; it applies freshness day, month or year: ask again with one of those, or without "freshness". No configuration key changes this."#,
            ),
            (
                search(SearchFailure::Unsupported {
                    filter: "site",
                    value: "docs.rs".into(),
                    offers: None,
                }),
                r#"search (brave): this search provider cannot apply site "docs.rs", it has no such filter: ask again without "site". No configuration key changes this."#,
            ),
            (
                search(SearchFailure::Paced {
                    rate: 1,
                    queued: Duration::from_secs(95),
                    budget: Duration::from_secs(90),
                }),
                r#"search (brave): too many searches are waiting: at the "search-rate" of 1 per second this one would start in 95 s, after the call's total-timeout of 90 s. Search less at once, or raise "search-rate" if the provider's plan allows more."#,
            ),
            (
                search(SearchFailure::Status {
                    status: 502,
                    detail: None,
                    hint: None,
                }),
                "search (brave): the search provider failed with HTTP 502 Bad Gateway, an error on its side. Try again later. No configuration key changes this.",
            ),
            (
                search(SearchFailure::Status {
                    status: 400,
                    detail: Some("bad q".into()),
                    hint: None,
                }),
                r#"search (brave): the search provider refused the request with HTTP 400 Bad Request: "bad q". No configuration key changes this."#,
            ),
            (
                search(SearchFailure::Unreachable {
                    url: "https://search.example/res/v1/web/search".into(),
                    failure: TransportFailure::Refused,
                    detail: "os error 111".into(),
                }),
                r#"search (brave): could not reach the search provider at https://search.example/res/v1/web/search: the connection was refused (os error 111). Check that "search-url" names the provider's address and that it is up."#,
            ),
            (
                search(SearchFailure::Deadline {
                    url: "https://search.example/res/v1/web/search".into(),
                    key: ConfigKey::Timeout,
                    limit: Duration::from_millis(500),
                }),
                r#"search (brave): the search provider at https://search.example/res/v1/web/search did not answer within the timeout of 0.5 s. Raise "timeout" if it is slow rather than down."#,
            ),
            (
                search(SearchFailure::Malformed {
                    url: "https://search.example/search".into(),
                    detail: "not JSON".into(),
                }),
                r#"search (brave): the answer from https://search.example/search is not the provider's search JSON (not JSON). Check that "search-url" points at the provider's API."#,
            ),
            (Error::Cancelled, "cancelled by the client."),
        ];
        for (error, want) in cases {
            assert_eq!(error.to_string(), want, "{error:?}");
        }
    }

    /// A message quotes at most 200 characters of a URL, whatever carried it.
    #[test]
    fn messages_quote_a_bounded_prefix_of_a_url() {
        let long = format!("https://x.example/{}", "a".repeat(8000));
        let want = format!("{}…", &long[..200]);
        let errors = [
            Error::Http(Http {
                url: long.clone(),
                status: 404,
                excerpt: None,
                retry_after: None,
            }),
            Error::Deadline(Deadline {
                url: long.clone(),
                phase: Phase::Connecting,
                key: ConfigKey::ConnectTimeout,
                limit: Duration::from_secs(10),
            }),
            Error::Transport(Transport {
                url: long.clone(),
                failure: TransportFailure::Refused,
                detail: "os error 111".into(),
            }),
            Error::BadUrl(BadUrl {
                url: long.clone(),
                reason: BadUrlReason::Location(LocationFault::Missing),
            }),
            Error::BadUrl(BadUrl {
                url: long.clone(),
                reason: BadUrlReason::HttpsDowngrade { from: long.clone() },
            }),
            Error::RedirectLoop {
                chain: vec![long.clone(), long.clone()],
            },
            Error::Content(Content {
                url: long.clone(),
                content_type: "image/png".into(),
                bytes: None,
                problem: Problem::NotText,
            }),
            Error::Content(Content {
                url: long.clone(),
                content_type: "application/pdf".into(),
                bytes: Some(1),
                problem: Problem::PdfEncrypted,
            }),
        ];
        for e in errors {
            let text = e.to_string();
            assert!(text.contains(&want), "{e:?}");
            assert!(!text.contains(&long[..201]), "{text}");
            assert!(text.chars().count() < 1000, "{text}");
        }
        assert_eq!(shown("http://a/"), "http://a/");
    }

    #[test]
    fn config_messages() {
        let unknown = ConfigError::UnknownKeys {
            owner: "the Web pack".into(),
            unknown: vec!["providr".into()],
            valid: vec!["allow-cidrs", "allow-hosts"],
        };
        assert_eq!(
            unknown.to_string(),
            "Unknown config key(s) for the Web pack: providr.\nValid keys: allow-cidrs, allow-hosts"
        );
        let ty = ConfigError::Type {
            key: "allow-private".into(),
            expected: "a boolean",
        };
        assert_eq!(
            ty.to_string(),
            r#"config key "allow-private" takes a boolean."#
        );
        assert_eq!(ty.key(), Some("allow-private"));
        let value = ConfigError::Value {
            key: "max-bytes".into(),
            rule: "must be at least 4096 (below that a page cannot hold a document)".into(),
        };
        assert_eq!(
            value.to_string(),
            r#"config key "max-bytes" must be at least 4096 (below that a page cannot hold a document)."#
        );
        let syntax = ConfigError::Syntax {
            source: "--tool Web".into(),
            detail: "expected value at line 1 column 1".into(),
        };
        assert_eq!(
            syntax.to_string(),
            "the configuration in --tool Web is not a JSON object: expected value at line 1 column 1."
        );
    }

    #[test]
    fn kinds_rules_and_keys_are_data() {
        let e = Error::Blocked(blocked("intranet.example", "10.1.2.3"));
        assert_eq!(
            (e.kind(), e.rule(), e.config_key()),
            (ErrorKind::Blocked, "private", Some(ConfigKey::AllowPrivate))
        );
        let e = Error::Blocked(blocked("metadata.example", "169.254.169.254"));
        assert_eq!(
            (e.rule(), e.config_key()),
            ("cloud-metadata", Some(ConfigKey::AllowCidrs))
        );
        let e = Error::BadUrl(BadUrl {
            url: "file:///etc/passwd".into(),
            reason: BadUrlReason::Scheme("file".into()),
        });
        assert_eq!(
            (e.kind(), e.rule(), e.config_key()),
            (ErrorKind::BadUrl, "scheme", None)
        );
        assert_eq!(e.url(), Some("file:///etc/passwd"));
        let e = Error::Deadline(Deadline {
            url: "http://a/".into(),
            phase: Phase::ReadingHeaders,
            key: ConfigKey::HeadersTimeout,
            limit: Duration::from_secs(15),
        });
        assert_eq!(
            (e.rule(), e.config_key()),
            ("headers-timeout", Some(ConfigKey::HeadersTimeout))
        );
        assert_eq!(ErrorKind::TooManyRedirects.as_str(), "too_many_redirects");
        let e = Error::Search(Search::new(
            "brave",
            SearchFailure::Deadline {
                url: "https://search.example/res/v1/web/search".into(),
                key: ConfigKey::Timeout,
                limit: Duration::from_secs(30),
            },
        ));
        assert_eq!(
            (e.kind(), e.rule(), e.config_key(), e.url()),
            (
                ErrorKind::Search,
                "provider-timeout",
                Some(ConfigKey::Timeout),
                Some("https://search.example/res/v1/web/search")
            )
        );
        let refused = |origin| {
            Error::Search(Search::new(
                "brave",
                SearchFailure::KeyRefused {
                    status: 401,
                    origin,
                },
            ))
        };
        assert_eq!(
            refused(KeyOrigin::Config).config_key(),
            Some(ConfigKey::ApiKey)
        );
        assert_eq!(
            refused(KeyOrigin::Env("K".into())).config_key(),
            Some(ConfigKey::ApiKeyEnv)
        );
        let tls = Error::Search(Search::new(
            "searxng",
            SearchFailure::Unreachable {
                url: "https://s.example/search".into(),
                failure: TransportFailure::Tls,
                detail: "unknown issuer".into(),
            },
        ));
        assert_eq!(
            (tls.rule(), tls.config_key()),
            ("provider-unreachable", Some(ConfigKey::CaFile))
        );
    }

    /// A refusal is made from a classification, and says what its table row says.
    #[test]
    fn a_refusal_agrees_with_the_table() {
        let ip = |s: &str| -> IpAddr { s.parse().unwrap() };
        assert_eq!(
            Blocked::new("x", ip("8.8.8.8"), &addr::classify(ip("8.8.8.8"))),
            None
        );
        let metadata = addr::classify(ip("169.254.169.254"));
        let b = Blocked::new("metadata.example", ip("169.254.169.254"), &metadata).unwrap();
        assert_eq!(b.entry(), metadata.entry.unwrap());
        assert_eq!(
            (b.host(), b.address(), b.class(), b.key(), b.only_exact()),
            (
                "metadata.example",
                ip("169.254.169.254"),
                addr::Class::CloudMetadata,
                None,
                true
            )
        );
        assert_eq!(b.entry().block, "169.254.169.254/32");
        // An IPv6 address refused for the IPv4 address it carries.
        let nat64 = addr::classify(ip("64:ff9b::a00:1"));
        let b = Blocked::new("x", ip("64:ff9b::a00:1"), &nat64).unwrap();
        assert_eq!(
            b.carries(),
            Some(addr::Embedded {
                how: addr::Embedding::Nat64,
                v4: "10.0.0.1".parse().unwrap()
            })
        );
        assert_eq!(
            (b.entry().block, b.key(), b.only_exact()),
            ("10.0.0.0/8", Some(ConfigKey::AllowPrivate), false)
        );
    }

    /// The error travels through every call; it stays small.
    #[test]
    fn error_size_is_pinned() {
        assert!(
            std::mem::size_of::<Error>() <= 88,
            "{}",
            std::mem::size_of::<Error>()
        );
    }
}
