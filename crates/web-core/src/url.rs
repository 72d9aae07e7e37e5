//! URL shape checks that produce a [`CheckedUrl`], the only URL type the I/O layers
//! accept.
//!
//! A URL is refused here on its shape alone, before any name is resolved or any socket
//! opened, and no configuration key rescues it: schemes other than http and https,
//! credentials, ports outside 1–65535, IPv4 hosts not written as four decimal octets,
//! IPv6 zone ids, control characters, whitespace and backslashes, empty hosts, the
//! unspecified addresses `0.0.0.0` and `[::]`, and hosts spelled so that the URL
//! parser would silently rewrite them.
//!
//! The `url` crate follows the WHATWG URL standard, which normalises obfuscated
//! spellings on purpose (`http://2130706433/` becomes `http://127.0.0.1/`, `ｅxample。com`
//! becomes `example.com`). So the checks read the host as the user wrote it, in the
//! raw text, and compare it with what the parser made of it: a host is accepted only
//! when the parser's reading is the plain reading (lowercase, and internationalised
//! names turned into punycode).
//!
//! [`redact`] makes any user-supplied URL text safe to print in a message.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::{Host, Url};

use crate::error::{BadUrl, BadUrlReason, MAX_URL_BYTES};

/// How many characters of user text a message quotes at most.
const REDACT_LIMIT: usize = 200;

/// A URL that passed every shape check: http or https, no credentials, a plainly
/// spelled host, a port in range. Only this module constructs one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CheckedUrl {
    url: Url,
    host: String,
    ip: Option<IpAddr>,
    port: u16,
}

/// The origin of a URL: scheme, host and effective port (RFC 6454).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin {
    https: bool,
    host: String,
    port: u16,
}

impl Origin {
    /// The scheme, `"http"` or `"https"`.
    pub fn scheme(&self) -> &'static str {
        if self.https { "https" } else { "http" }
    }

    /// The host: lowercase, punycode, an IPv6 literal without brackets.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The effective port.
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}://{}",
            self.scheme(),
            authority(&self.host, self.port, self.https)
        )
    }
}

/// `host`, `[v6]`, with `:port` only when it is not the scheme's default.
fn authority(host: &str, port: u16, https: bool) -> String {
    let default = if https { 443 } else { 80 };
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    };
    if port == default {
        host
    } else {
        format!("{host}:{port}")
    }
}

impl CheckedUrl {
    /// Checks the shape of `raw` and returns the URL, or the reason it is refused.
    pub fn parse(raw: &str) -> Result<CheckedUrl, BadUrl> {
        let bad = |reason| BadUrl {
            url: redact(raw),
            reason,
        };
        check_length(raw).map_err(bad)?;
        check_port_characters(raw).map_err(bad)?;
        check_characters(raw).map_err(bad)?;
        let parts = split_raw(raw).map_err(bad)?;
        let url = Url::parse(raw).map_err(|e| bad(BadUrlReason::Unparseable(e.to_string())))?;
        from_parsed(url, &parts).map_err(bad)
    }

    /// Resolves a redirect's `Location` against this URL and checks the result exactly
    /// as [`CheckedUrl::parse`] does, the text of the `Location` included.
    pub fn join(&self, location: &str) -> Result<CheckedUrl, BadUrl> {
        let bad = |reason| BadUrl {
            url: redact(location),
            reason,
        };
        check_length(location).map_err(bad)?;
        check_characters(location).map_err(bad)?;
        let joined = self
            .url
            .join(location)
            .map_err(|e| bad(BadUrlReason::Unparseable(e.to_string())))?;
        if raw_scheme(location).is_some() {
            // An absolute URL: checked as written. A reference such as `http:foo`
            // names the scheme yet is relative to the base under WHATWG rules; the
            // two readings differ, and such a Location is refused as ambiguous.
            let checked = CheckedUrl::parse(location)?;
            if checked.url != joined {
                return Err(bad(BadUrlReason::Unparseable(
                    "a Location that names the scheme without '//' is ambiguous".into(),
                )));
            }
            Ok(checked)
        } else if location.starts_with("//") {
            // A network-path reference carries its own host: check it as written.
            CheckedUrl::parse(&format!("{}:{location}", self.url.scheme()))
        } else {
            // A path-relative reference keeps this URL's host, which was checked.
            CheckedUrl::parse(joined.as_str())
        }
    }

    /// The URL as text, serialised by the parser (punycode host, normalised path).
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// The parsed URL.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// True for https.
    pub fn is_https(&self) -> bool {
        self.url.scheme() == "https"
    }

    /// The host: lowercase, punycode, an IPv6 literal without brackets.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The address, when the host is an IP literal.
    pub fn ip(&self) -> Option<IpAddr> {
        self.ip
    }

    /// The effective port: the one given, or the scheme's default.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The origin: scheme, host and effective port.
    pub fn origin(&self) -> Origin {
        Origin {
            https: self.is_https(),
            host: self.host.clone(),
            port: self.port,
        }
    }

    /// The value of the `Host` header: the host, `[v6]`, and `:port` only when it is
    /// not the scheme's default.
    pub fn authority(&self) -> String {
        authority(&self.host, self.port, self.is_https())
    }
}

impl fmt::Display for CheckedUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A CheckedUrl carries no credentials, so its text is safe to print.
        f.write_str(self.url.as_str())
    }
}

/// Makes user-supplied URL text safe for a message: the userinfo (`user:password@`)
/// is removed in every spelling (with or without a scheme, unparsable, an `@` written
/// full-width or percent-encoded), a `data:` or `javascript:` URL shows its scheme
/// only (never its payload), control characters are replaced, and the text is cut to
/// about 200 characters.
pub fn redact(raw: &str) -> String {
    if let Some(scheme) = raw_scheme(raw) {
        let lower = scheme.to_ascii_lowercase();
        if lower == "data" || lower == "javascript" {
            return format!("{}:…", shorten_to(scheme, 32));
        }
    }
    let start = authority_start(raw);
    let rest = &raw[start..];
    let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    let mut text = match last_at(&rest[..end]) {
        Some(after) => format!("{}{}", &raw[..start], &rest[after..]),
        None => raw.to_owned(),
    };
    if text.chars().count() > REDACT_LIMIT {
        text = text.chars().take(REDACT_LIMIT).collect();
        text.push('…');
    }
    text.chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect()
}

/// Where the host starts after the last userinfo separator in `authority`: after an
/// `@`, a full-width `＠`, a small `﹫` or a percent-encoded `%40`.
fn last_at(authority: &str) -> Option<usize> {
    ["@", "\u{FF20}", "\u{FE6B}", "%40"]
        .iter()
        .filter_map(|at| authority.rfind(at).map(|i| i + at.len()))
        .max()
}

/// `text` cut to `limit` characters.
fn shorten_to(text: &str, limit: usize) -> String {
    text.chars().take(limit).collect()
}

/// Where the authority of `raw` starts: after `scheme://`, after `http:` or `https:`
/// and any slashes (the parser skips them), after the leading slashes of a
/// scheme-less `//host` reference, or at 0.
fn authority_start(raw: &str) -> usize {
    let Some(scheme) = raw_scheme(raw) else {
        return raw.len() - raw.trim_start_matches(['/', '\\']).len();
    };
    let after = scheme.len() + 1;
    let rest = &raw[after..];
    let lower = scheme.to_ascii_lowercase();
    if lower == "http" || lower == "https" {
        let slashes = rest.len() - rest.trim_start_matches(['/', '\\']).len();
        after + slashes
    } else if rest.starts_with("//") {
        after + 2
    } else {
        0
    }
}

/// Refuses a URL longer than [`MAX_URL_BYTES`] before reading it further.
fn check_length(raw: &str) -> Result<(), BadUrlReason> {
    if raw.len() > MAX_URL_BYTES {
        Err(BadUrlReason::TooLong(raw.len()))
    } else {
        Ok(())
    }
}

/// Refuses a port with a space or another character that is not a digit, naming the
/// port (the parser would only say "invalid port number", the character check "a
/// space").
fn check_port_characters(raw: &str) -> Result<(), BadUrlReason> {
    let Some(scheme) = raw_scheme(raw) else {
        return Ok(());
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Ok(());
    }
    let rest = raw[scheme.len() + 1..].trim_start_matches('/');
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let authority = &rest[..end];
    if authority.contains('@') {
        return Ok(());
    }
    let port = if authority.starts_with('[') {
        authority
            .find(']')
            .and_then(|close| authority[close + 1..].strip_prefix(':'))
    } else {
        authority.split_once(':').map(|(_, port)| port)
    };
    match port {
        Some(port) if !port.bytes().all(|b| b.is_ascii_digit()) => {
            Err(BadUrlReason::PortSyntax(shorten(port)))
        }
        _ => Ok(()),
    }
}

/// The scheme of `raw` as written, when it starts with one (`ALPHA *( ALPHA / DIGIT /
/// "+" / "-" / "." ) ":"`).
fn raw_scheme(raw: &str) -> Option<&str> {
    let colon = raw.find(':')?;
    let scheme = &raw[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// Refuses control characters, whitespace and backslashes anywhere in the text (the
/// parser would strip or rewrite them silently).
fn check_characters(raw: &str) -> Result<(), BadUrlReason> {
    match raw
        .chars()
        .find(|c| c.is_control() || c.is_whitespace() || *c == '\\')
    {
        Some(c) => Err(BadUrlReason::ForbiddenCharacter(c)),
        None => Ok(()),
    }
}

/// The parts of a URL as the user wrote them.
struct RawParts<'a> {
    /// The host text: brackets included for IPv6.
    host: &'a str,
}

/// Reads the scheme, userinfo, host and port from the raw text the way the parser
/// will, and refuses what is wrong with them as written.
fn split_raw(raw: &str) -> Result<RawParts<'_>, BadUrlReason> {
    let scheme = match raw_scheme(raw) {
        Some(scheme) => scheme,
        // No scheme: the empty text is left to the parser; any other text teaches.
        None if raw.is_empty() => return Ok(RawParts { host: "" }),
        None => return Err(BadUrlReason::NoScheme),
    };
    let lower = scheme.to_ascii_lowercase();
    // `localhost:8080/path`: a host and a port, not a scheme.
    let after = &raw[scheme.len() + 1..];
    let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if lower != "http"
        && lower != "https"
        && digits > 0
        && (after[digits..].is_empty() || after[digits..].starts_with(['/', '?', '#']))
    {
        return Err(BadUrlReason::NoScheme);
    }
    if lower != "http" && lower != "https" {
        let shown: String = lower.chars().take(32).collect();
        return Err(BadUrlReason::Scheme(shown));
    }
    // For http and https the parser skips any slashes after the colon.
    let rest = raw[scheme.len() + 1..].trim_start_matches('/');
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    if authority.contains('@') {
        return Err(BadUrlReason::Credentials);
    }
    let (host, port) = if authority.starts_with('[') {
        match authority.find(']') {
            Some(close) => {
                let host = &authority[..=close];
                if host.contains('%') {
                    return Err(BadUrlReason::ZoneId);
                }
                (host, authority[close + 1..].strip_prefix(':'))
            }
            // No closing bracket: the parser will refuse it.
            None => (authority, None),
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err(BadUrlReason::EmptyHost);
    }
    if let Some(port) = port {
        check_port(port)?;
    }
    if !host.starts_with('[') && host.contains('%') {
        return Err(BadUrlReason::ObfuscatedHost(shorten(host)));
    }
    Ok(RawParts { host })
}

/// Refuses a port written as digits that is 0 or above 65535. Other text is left to
/// the parser, which refuses it.
fn check_port(port: &str) -> Result<(), BadUrlReason> {
    if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(());
    }
    let digits = port.trim_start_matches('0');
    let in_range = digits.len() <= 5
        && digits
            .parse::<u32>()
            .is_ok_and(|p| (1..=65535).contains(&p));
    if in_range {
        Ok(())
    } else {
        Err(BadUrlReason::Port(shorten(port)))
    }
}

/// Cuts user text quoted inside a reason to a readable length.
fn shorten(text: &str) -> String {
    const LIMIT: usize = 100;
    if text.chars().count() > LIMIT {
        let mut cut: String = text.chars().take(LIMIT).collect();
        cut.push('…');
        cut
    } else {
        text.to_owned()
    }
}

/// Checks the parser's reading of the URL against the raw host and builds the
/// [`CheckedUrl`].
fn from_parsed(url: Url, raw: &RawParts<'_>) -> Result<CheckedUrl, BadUrlReason> {
    let scheme = url.scheme();
    if scheme != "http" && scheme != "https" {
        return Err(BadUrlReason::Scheme(scheme.to_owned()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(BadUrlReason::Credentials);
    }
    let (host, ip) = match url.host() {
        None => return Err(BadUrlReason::EmptyHost),
        Some(Host::Domain("")) => return Err(BadUrlReason::EmptyHost),
        Some(Host::Ipv4(addr)) => (
            addr.to_string(),
            Some(IpAddr::V4(check_ipv4(addr, raw.host)?)),
        ),
        Some(Host::Ipv6(addr)) => {
            // The parser's serialisation (`::ffff:7f00:1`), so that the host, the
            // URL text and the Host header agree.
            let text = url.host_str().unwrap_or_default();
            let host = text
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned();
            (host, Some(IpAddr::V6(check_ipv6(addr)?)))
        }
        Some(Host::Domain(domain)) => {
            check_domain(domain, raw.host)?;
            (domain.to_owned(), None)
        }
    };
    let port = url
        .port_or_known_default()
        .ok_or_else(|| BadUrlReason::Port(String::new()))?;
    if port == 0 {
        return Err(BadUrlReason::Port("0".into()));
    }
    Ok(CheckedUrl {
        url,
        host,
        ip,
        port,
    })
}

/// An IPv4 host must be written exactly as its four decimal octets.
fn check_ipv4(addr: Ipv4Addr, raw: &str) -> Result<Ipv4Addr, BadUrlReason> {
    let canonical = addr.to_string();
    if raw != canonical {
        return Err(if raw.is_ascii() {
            BadUrlReason::ObfuscatedIpv4(shorten(raw))
        } else {
            BadUrlReason::ObfuscatedHost(shorten(raw))
        });
    }
    if addr.is_unspecified() {
        return Err(BadUrlReason::Unspecified(canonical));
    }
    Ok(addr)
}

/// `[::]` and `[::ffff:0.0.0.0]` are the unspecified address.
fn check_ipv6(addr: Ipv6Addr) -> Result<Ipv6Addr, BadUrlReason> {
    if addr.is_unspecified() {
        return Err(BadUrlReason::Unspecified("[::]".into()));
    }
    if addr.to_ipv4_mapped().is_some_and(|v4| v4.is_unspecified()) {
        return Err(BadUrlReason::Unspecified(format!("[{addr}]")));
    }
    Ok(addr)
}

/// A domain is accepted only when each label the user wrote is the parser's label:
/// the same ASCII up to case, or, for an internationalised label, the same text as
/// the punycode label decodes to. Anything the parser mapped on the way (full-width
/// letters, other dots, soft hyphens, percent-encoding, a trailing dot) is refused,
/// and so is every non-ASCII character that is not a plain letter in its plain case
/// pair ([`plain_non_ascii`]): the Kelvin sign `K` would become `k`, the Ångström
/// sign `Å` the letter `å`.
fn check_domain(ascii: &str, raw: &str) -> Result<(), BadUrlReason> {
    let obfuscated = || BadUrlReason::ObfuscatedHost(shorten(raw));
    if !raw.chars().filter(|c| !c.is_ascii()).all(plain_non_ascii) {
        return Err(obfuscated());
    }
    let raw_labels: Vec<&str> = raw.split('.').collect();
    let ascii_labels: Vec<&str> = ascii.split('.').collect();
    if raw_labels.len() != ascii_labels.len() || raw_labels.iter().any(|l| l.is_empty()) {
        return Err(obfuscated());
    }
    for (raw_label, ascii_label) in raw_labels.iter().zip(&ascii_labels) {
        let same = if raw_label.is_ascii() {
            raw_label.eq_ignore_ascii_case(ascii_label)
        } else {
            let (unicode, result) = idna::domain_to_unicode(ascii_label);
            result.is_ok() && unicode == raw_label.to_lowercase()
        };
        if !same {
            return Err(obfuscated());
        }
    }
    Ok(())
}

/// Whether a non-ASCII character in a host is written as itself: its lowercase is
/// one non-ASCII character, and it is that character or that character's one
/// uppercase form. Compatibility characters (the Kelvin sign, the Ångström sign, the
/// capital sharp s, `İ`, …) fail: UTS 46 maps them onto another character, ASCII or
/// not, so the host would not be what it looks like.
fn plain_non_ascii(c: char) -> bool {
    let mut lower = c.to_lowercase();
    let (Some(l), None) = (lower.next(), lower.next()) else {
        return false;
    };
    if l.is_ascii() {
        return false;
    }
    if l == c {
        return true;
    }
    let mut upper = l.to_uppercase();
    matches!((upper.next(), upper.next()), (Some(u), None) if u == c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rule(raw: &str) -> &'static str {
        match CheckedUrl::parse(raw) {
            Ok(_) => "ok",
            Err(e) => e.reason.rule(),
        }
    }

    /// Accepted and refused spellings, each with the rule that decides it.
    #[test]
    fn table_of_spellings() {
        let cases: &[(&str, &str)] = &[
            // accepted
            ("http://example.com/", "ok"),
            ("https://example.com/a/b?q=1#frag", "ok"),
            ("HTTPS://EXAMPLE.COM/", "ok"),
            ("http://example.com:8080/", "ok"),
            ("http://example.com:65535/", "ok"),
            ("http://example.com:1/", "ok"),
            ("http://example.com:/", "ok"),
            ("http://127.0.0.1/", "ok"),
            ("http://10.1.2.3/", "ok"),
            ("http://255.255.255.255/", "ok"),
            ("http://[::1]/", "ok"),
            ("http://[::ffff:127.0.0.1]/", "ok"),
            ("http://[64:ff9b::a00:1]/", "ok"),
            ("http://[fec0::1]:8080/", "ok"),
            ("http://bücher.example/", "ok"),
            ("http://BÜCHER.example/", "ok"),
            ("http://xn--bcher-kva.example/", "ok"),
            ("http://faß.de/", "ok"),
            ("http://例え.テスト/", "ok"),
            ("http://localhost/", "ok"),
            ("http://1.2.3.4a/", "ok"),
            ("http://a-b.example/path%20with%20escapes", "ok"),
            ("http://example.com/ü?ä=ö", "ok"),
            // schemes
            ("file:///etc/passwd", "scheme"),
            ("FILE:///etc/passwd", "scheme"),
            ("ftp://example.com/", "scheme"),
            ("gopher://example.com:70/_x", "scheme"),
            ("dict://example.com:11211/stat", "scheme"),
            ("data:text/html,<script>", "scheme"),
            ("javascript:alert(1)", "scheme"),
            ("ws://example.com/", "scheme"),
            ("wss://example.com/", "scheme"),
            ("ldap://example.com/", "scheme"),
            ("jar:http://example.com/!/", "scheme"),
            ("view-source:http://example.com/", "scheme"),
            // not a URL
            ("", "unparseable"),
            ("http://exa<mple.com/", "unparseable"),
            ("http://[::1/", "unparseable"),
            // no scheme
            ("example.com/path", "no-scheme"),
            ("/relative", "no-scheme"),
            ("//host/path", "no-scheme"),
            ("127.0.0.1:8080", "no-scheme"),
            ("127.0.0.1:8080/a", "no-scheme"),
            ("localhost:8080", "no-scheme"),
            ("example.com:80/path?q", "no-scheme"),
            ("[::1]:8080/", "no-scheme"),
            // ports written with something else than digits
            ("http://example.com:8o/", "port-syntax"),
            ("http://example.com: 80/", "port-syntax"),
            ("http://example.com:80 /", "port-syntax"),
            ("http://[::1]:-1/", "port-syntax"),
            ("http://example.com:８０/", "port-syntax"),
            // credentials
            ("http://user:pass@example.com/", "credentials"),
            ("http://user@example.com/", "credentials"),
            ("http://@example.com/", "credentials"),
            ("http://:@example.com/", "credentials"),
            ("http://example.com@127.0.0.1/", "credentials"),
            ("https:user:pass@example.com/", "credentials"),
            // ports
            ("http://example.com:0/", "port-range"),
            ("http://example.com:00/", "port-range"),
            ("http://example.com:65536/", "port-range"),
            ("http://example.com:99999999999999999999/", "port-range"),
            ("http://[::1]:0/", "port-range"),
            // obfuscated IPv4
            ("http://2130706433/", "obfuscated-ipv4"),
            ("http://0x7f000001/", "obfuscated-ipv4"),
            ("http://0X7F.0.0.1/", "obfuscated-ipv4"),
            ("http://0177.0.0.1/", "obfuscated-ipv4"),
            ("http://127.1/", "obfuscated-ipv4"),
            ("http://127.0.1/", "obfuscated-ipv4"),
            ("http://0x7f.0.0.1/", "obfuscated-ipv4"),
            ("http://127.0.0.0x1/", "obfuscated-ipv4"),
            ("http://0x7f.1/", "obfuscated-ipv4"),
            ("http://127.000.000.001/", "obfuscated-ipv4"),
            ("http://010.1.2.3/", "obfuscated-ipv4"),
            ("http://127.0.0.1./", "obfuscated-ipv4"),
            ("http://0/", "obfuscated-ipv4"),
            ("http://0x/", "obfuscated-ipv4"),
            // obfuscated hosts
            ("http://example.com./", "obfuscated-host"),
            ("http://.example.com/", "obfuscated-host"),
            ("http://a..example.com/", "obfuscated-host"),
            ("http://%6c%6f%63%61%6c%68%6f%73%74/", "obfuscated-host"),
            ("http://%31%32%37.0.0.1/", "obfuscated-host"),
            ("http://ｅxample.com/", "obfuscated-host"),
            ("http://１２７.0.0.1/", "obfuscated-host"),
            ("http://①②⑦.0.0.1/", "obfuscated-host"),
            ("http://127。0。0。1/", "obfuscated-host"),
            ("http://example。com/", "obfuscated-host"),
            ("http://example．com/", "obfuscated-host"),
            ("http://example｡com/", "obfuscated-host"),
            ("http://loc\u{AD}alhost/", "obfuscated-host"),
            ("http://exa\u{200B}mple.com/", "obfuscated-host"),
            ("http://ＬＯＣＡＬＨＯＳＴ/", "obfuscated-host"),
            ("http://bu\u{308}cher.example/", "obfuscated-host"),
            // compatibility characters UTS 46 maps onto another character
            ("http://\u{212A}orp/", "obfuscated-host"),
            ("http://\u{212A}ORP/", "obfuscated-host"),
            ("http://b\u{FC}cher\u{212A}.example/", "obfuscated-host"),
            ("http://\u{212B}ngstrom.example/", "obfuscated-host"),
            ("http://gro\u{1E9E}.example/", "obfuscated-host"),
            ("http://\u{130}stanbul.example/", "obfuscated-host"),
            ("http://\u{FB01}le.example/", "obfuscated-host"),
            ("http://b\u{FC}cher\u{FB01}.example/", "obfuscated-host"),
            ("http://\u{2160}.example/", "obfuscated-host"),
            ("http://\u{3A3}\u{3B5}.example/", "ok"),
            ("http://\u{C5}ngstr\u{F6}m.example/", "ok"),
            // length
            (
                &*Box::leak(format!("http://example.com/{}", "a".repeat(8200)).into_boxed_str()),
                "url-too-long",
            ),
            // zone ids
            ("http://[fe80::1%25eth0]/", "ipv6-zone-id"),
            ("http://[fe80::1%eth0]/", "ipv6-zone-id"),
            // characters
            ("http://example.com/a b", "forbidden-character"),
            (" http://example.com/", "forbidden-character"),
            ("http://example.com/\t", "forbidden-character"),
            ("http://exam\nple.com/", "forbidden-character"),
            ("http://example.com\\@127.0.0.1/", "forbidden-character"),
            ("http:\\\\127.0.0.1\\", "forbidden-character"),
            ("http://example.com/\u{0}", "forbidden-character"),
            ("http://example.com/\u{7f}", "forbidden-character"),
            ("http://example.com/\u{a0}", "forbidden-character"),
            ("http://example.com/\u{3000}", "forbidden-character"),
            ("http://example.com/\u{2028}", "forbidden-character"),
            // empty hosts
            ("http://", "empty-host"),
            ("http:///", "empty-host"),
            ("http://:80/", "empty-host"),
            ("https://?q", "empty-host"),
            ("http://[]/", "unparseable"),
            // unspecified
            ("http://0.0.0.0/", "unspecified-address"),
            ("http://0.0.0.0:8080/", "unspecified-address"),
            ("http://[::]/", "unspecified-address"),
            ("http://[0:0:0:0:0:0:0:0]/", "unspecified-address"),
            ("http://[::ffff:0.0.0.0]/", "unspecified-address"),
        ];
        let mut wrong = Vec::new();
        for (raw, want) in cases {
            let got = rule(raw);
            if got != *want {
                wrong.push(format!("{raw:?}: want {want}, got {got}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn accessors() {
        let u = CheckedUrl::parse("https://BÜCHER.example:8443/a?b#c").unwrap();
        assert_eq!(u.as_str(), "https://xn--bcher-kva.example:8443/a?b#c");
        assert_eq!(u.host(), "xn--bcher-kva.example");
        assert!(u.is_https());
        assert_eq!(u.port(), 8443);
        assert_eq!(u.ip(), None);
        assert_eq!(u.authority(), "xn--bcher-kva.example:8443");
        assert_eq!(u.to_string(), "https://xn--bcher-kva.example:8443/a?b#c");
        assert_eq!(u.origin().to_string(), "https://xn--bcher-kva.example:8443");

        let u = CheckedUrl::parse("http://[::FFFF:127.0.0.1]/").unwrap();
        assert_eq!(u.host(), "::ffff:7f00:1");
        assert_eq!(u.ip(), Some("::ffff:127.0.0.1".parse().unwrap()));
        assert_eq!(u.port(), 80);
        assert_eq!(u.authority(), "[::ffff:7f00:1]");
        assert!(!u.is_https());
        assert_eq!(u.origin().to_string(), "http://[::ffff:7f00:1]");

        let u = CheckedUrl::parse("http://10.1.2.3:80/").unwrap();
        assert_eq!(u.ip(), Some("10.1.2.3".parse().unwrap()));
        assert_eq!(u.authority(), "10.1.2.3");
        assert_eq!(u.as_str(), "http://10.1.2.3/");
    }

    #[test]
    fn origins_compare_by_scheme_host_and_effective_port() {
        let o = |s: &str| CheckedUrl::parse(s).unwrap().origin();
        assert_eq!(o("http://a.example/x"), o("http://A.example:80/y"));
        assert_ne!(o("http://a.example/"), o("https://a.example/"));
        assert_ne!(o("http://a.example/"), o("http://a.example:8080/"));
        assert_ne!(o("http://a.example/"), o("http://b.example/"));
        let set: std::collections::HashSet<Origin> =
            [o("https://a.example/"), o("https://a.example:443/z")].into();
        assert_eq!(set.len(), 1);
        let origin = o("https://a.example:8443/");
        assert_eq!(
            (origin.scheme(), origin.host(), origin.port()),
            ("https", "a.example", 8443)
        );
    }

    #[test]
    fn join_checks_the_location_like_parse() {
        let base = CheckedUrl::parse("https://a.example/dir/page?x=1").unwrap();
        let ok = |loc: &str| base.join(loc).map(|u| u.to_string());
        assert_eq!(ok("other").unwrap(), "https://a.example/dir/other");
        assert_eq!(ok("/root").unwrap(), "https://a.example/root");
        assert_eq!(ok("?y=2").unwrap(), "https://a.example/dir/page?y=2");
        assert_eq!(ok("//b.example/p").unwrap(), "https://b.example/p");
        assert_eq!(ok("http://c.example/").unwrap(), "http://c.example/");
        assert_eq!(ok("").unwrap(), "https://a.example/dir/page?x=1");

        let reason = |loc: &str| base.join(loc).unwrap_err().reason.rule();
        assert_eq!(reason("file:///etc/passwd"), "scheme");
        assert_eq!(reason("gopher://x/"), "scheme");
        assert_eq!(reason("//2130706433/"), "obfuscated-ipv4");
        assert_eq!(reason("http://0x7f.1/"), "obfuscated-ipv4");
        assert_eq!(reason("//user:pw@b.example/"), "credentials");
        assert_eq!(reason("http://user:pw@b.example/"), "credentials");
        assert_eq!(reason("//0.0.0.0/"), "unspecified-address");
        assert_eq!(reason("//[::]/"), "unspecified-address");
        assert_eq!(reason("//b.example:0/"), "port-range");
        assert_eq!(reason("//ｅxample.com/"), "obfuscated-host");
        assert_eq!(reason("/\\127.0.0.1/"), "forbidden-character");
        assert_eq!(reason("\\\\127.0.0.1\\"), "forbidden-character");
        assert_eq!(reason("/a b"), "forbidden-character");
        assert_eq!(reason("https:foo"), "unparseable");

        let e = base.join("http://user:secret@b.example/").unwrap_err();
        assert!(!e.to_string().contains("secret"), "{e}");
        assert_eq!(reason(&format!("/{}", "a".repeat(8200))), "url-too-long");
    }

    /// A Location a redirect gives is quoted without userinfo in every spelling,
    /// without a data: payload, and cut short.
    #[test]
    fn a_refused_location_is_quoted_safely() {
        let base = CheckedUrl::parse("https://a.example/").unwrap();
        for location in [
            "//user:secret@[::1/",
            "http://user:secret@[::1/",
            "//user:secret@b.example:0/",
            "///user:secret@b.example:0/",
            "ftp://user:secret@b.example/",
            "//user:secret\u{FF20}b.example/",
            "//user%40secret@b.example:0/",
            "data:text/html;base64,c2VjcmV0",
        ] {
            let e = base.join(location).unwrap_err();
            let text = e.to_string();
            assert!(!text.contains("secret"), "{location}: {text}");
            assert!(!text.contains("c2VjcmV0"), "{location}: {text}");
        }
        let e = base
            .join("data:text/html,<script>secret</script>")
            .unwrap_err();
        assert_eq!(e.url, "data:…");
        assert_eq!(
            e.to_string(),
            "refused data:…: the scheme 'data' is not fetched; only http and https URLs are. No configuration key permits another scheme."
        );
    }

    #[test]
    fn refusals_are_redacted() {
        let e = CheckedUrl::parse("http://user:hunter2@example.com/").unwrap_err();
        assert_eq!(e.url, "http://example.com/");
        assert!(!e.to_string().contains("hunter2"));
        let e = CheckedUrl::parse("ftp://me:hunter2@example.com/").unwrap_err();
        assert_eq!(e.url, "ftp://example.com/");
        assert_eq!(e.reason, BadUrlReason::Scheme("ftp".into()));
    }

    #[test]
    fn redact_removes_userinfo_controls_and_length() {
        assert_eq!(redact("http://u:p@h.example/x@y"), "http://h.example/x@y");
        assert_eq!(redact("https:u:p@h.example/"), "https:h.example/");
        assert_eq!(redact("http:///u:p@h/"), "http:///h/");
        assert_eq!(redact("ftp://u:p@h/"), "ftp://h/");
        assert_eq!(redact("u:p@h/path"), "h/path");
        assert_eq!(redact("http://a@b@c/"), "http://c/");
        assert_eq!(redact("http://h/?next=u:p@x"), "http://h/?next=u:p@x");
        assert_eq!(redact("http://h/\nforged"), "http://h/\u{FFFD}forged");
        assert_eq!(redact("//u:p@[::1/"), "//[::1/");
        assert_eq!(redact("///u:p@h/x"), "///h/x");
        assert_eq!(redact("\\\\u:p@h\\x"), "\\\\h\\x");
        assert_eq!(redact("http://u:p\u{FF20}h/"), "http://h/");
        assert_eq!(redact("http://u:p\u{FE6B}h/"), "http://h/");
        assert_eq!(redact("http://u%40p@h/"), "http://h/");
        assert_eq!(redact("http://u:p%40h/"), "http://h/");
        assert_eq!(redact("data:text/plain,secret"), "data:…");
        assert_eq!(redact("DATA:secret"), "DATA:…");
        assert_eq!(redact("javascript:alert(secret)"), "javascript:…");
        let long = format!("http://h/{}", "a".repeat(500));
        let r = redact(&long);
        assert_eq!(r.chars().count(), REDACT_LIMIT + 1);
        assert!(r.ends_with('…'));
        assert_eq!(redact("héllo"), "héllo");
    }

    /// What a refusal says, end to end, for the spellings that matter most.
    #[test]
    fn messages_name_the_rule() {
        let msg = |raw: &str| CheckedUrl::parse(raw).unwrap_err().to_string();
        assert_eq!(
            msg("file:///etc/passwd"),
            "refused file:///etc/passwd: the scheme 'file' is not fetched; only http and https URLs are. No configuration key permits another scheme."
        );
        assert!(msg("http://2130706433/").contains("the IPv4 host '2130706433'"));
        assert!(msg("http://0.0.0.0/").contains("'0.0.0.0' is the unspecified address"));
        assert!(msg("http://example.com:0/").contains("port out of range (0)"));
        // No scheme: the message says to write one, for every way it is missing.
        for raw in [
            "127.0.0.1:8080",
            "//host/path",
            "example.com/a",
            "localhost:8080",
        ] {
            assert_eq!(
                msg(raw),
                format!(
                    "refused {raw:?}: no scheme: write http:// or https:// before the host. No configuration key changes this."
                )
            );
        }
        // A space in the port names the port, not the space.
        assert_eq!(
            msg("http://example.com: 8080/"),
            r#"refused "http://example.com: 8080/": the port " 8080" is not a number; a port is written as digits only, 1 to 65535. No configuration key changes this."#
        );
        // A long URL is refused with its length, and quoted only in part.
        let long = format!("http://example.com/{}", "a".repeat(9000));
        let text = msg(&long);
        assert!(
            text.contains("the URL is 9019 bytes long, more than the 8192 bytes (8 KiB)"),
            "{text}"
        );
        assert!(text.chars().count() < 400, "{text}");
        // The Kelvin sign: refused as a look-alike, quoted as written.
        assert_eq!(
            msg("http://\u{212A}orp/"),
            "refused http://\u{212A}orp/: the host '\u{212A}orp' is spelled in a way the URL parser would silently rewrite (look-alike or encoded characters, or a trailing dot). Write the host name plainly. No configuration key permits this spelling."
        );
    }

    /// Over every assigned plane of Unicode, in a host: an accepted host's written form
    /// equals its parsed form up to ASCII case, unless it is an internationalised name
    /// going to punycode, whose decoding is the written form lowercased with no
    /// character turned into ASCII. So nothing the parser would rewrite passes.
    #[test]
    fn every_character_in_a_host_is_taken_as_written_or_refused() {
        let mut accepted_non_ascii = 0usize;
        // ASCII other than letters, digits and '-' ends or splits the host.
        let in_host = |c: char| !c.is_ascii() || c.is_ascii_alphanumeric() || c == '-';
        // Planes 4 to 13 hold no assigned character (Unicode 16): skipped for time.
        let scalars = (0..0x4_0000u32).chain(0xE_0000..=0x10_FFFF);
        for c in scalars.filter_map(char::from_u32).filter(|c| in_host(*c)) {
            let written = format!("x{c}y");
            let Ok(url) = CheckedUrl::parse(&format!("http://{written}.example/")) else {
                continue;
            };
            let host = url.host();
            let label = host.strip_suffix(".example").unwrap_or(host);
            if c.is_ascii() {
                assert_eq!(
                    label,
                    written.to_ascii_lowercase(),
                    "U+{:04X}",
                    u32::from(c)
                );
                continue;
            }
            accepted_non_ascii += 1;
            assert!(
                label.starts_with("xn--"),
                "U+{:04X} became {label}",
                u32::from(c)
            );
            let (unicode, result) = idna::domain_to_unicode(label);
            assert!(result.is_ok(), "U+{:04X}", u32::from(c));
            let lowered: String = written.chars().flat_map(char::to_lowercase).collect();
            assert_eq!(unicode, lowered, "U+{:04X}", u32::from(c));
            assert_eq!(
                unicode.chars().filter(|c| !c.is_ascii()).count(),
                1,
                "U+{:04X} turned into ASCII",
                u32::from(c)
            );
        }
        // Plenty of letters of other scripts are accepted as written.
        assert!(accepted_non_ascii > 10_000, "{accepted_non_ascii}");
    }

    /// URL-like text: schemes, userinfo, hosts and ports from the alphabets that
    /// matter, plus arbitrary characters.
    fn url_like() -> impl Strategy<Value = String> {
        let scheme = prop_oneof![
            Just("http:".to_owned()),
            Just("https:".to_owned()),
            Just("HtTp:".to_owned()),
            "[a-z][a-z0-9+.-]{0,5}:",
            Just(String::new()),
        ];
        let slashes = prop_oneof![Just("//"), Just("/"), Just(""), Just("///"), Just("\\\\")];
        let userinfo = prop_oneof![
            3 => Just(String::new()),
            1 => "[a-z:%@]{0,6}@",
        ];
        let host = prop_oneof![
            "[a-z0-9.-]{0,12}",
            "(0x)?[0-9a-fA-F]{1,10}(\\.[0-9x]{1,4}){0,4}\\.?",
            "\\[[0-9a-f:.%]{0,20}\\]",
            "[a-zü０-９①。．\u{AD}%.]{0,8}",
            any::<String>(),
        ];
        let port = prop_oneof![
            3 => Just(String::new()),
            1 => ":[0-9]{0,7}",
        ];
        let tail = prop_oneof![Just(String::new()), "[/?#][ -~ü]{0,12}"];
        (scheme, slashes, userinfo, host, port, tail)
            .prop_map(|(s, sl, u, h, p, t)| format!("{s}{sl}{u}{h}{p}{t}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// No CheckedUrl carries another scheme or userinfo, its host is the plain
        /// host, and parsing its own text gives it back.
        #[test]
        fn checked_urls_are_http_without_userinfo(raw in url_like()) {
            if let Ok(u) = CheckedUrl::parse(&raw) {
                prop_assert!(u.url().scheme() == "http" || u.url().scheme() == "https");
                prop_assert_eq!(u.url().username(), "");
                prop_assert_eq!(u.url().password(), None);
                prop_assert!(!u.host().is_empty());
                prop_assert!(u.port() != 0);
                if let Some(ip) = u.ip() {
                    prop_assert!(!ip.is_unspecified());
                }
                let again = CheckedUrl::parse(u.as_str());
                prop_assert_eq!(again.as_ref(), Ok(&u));
            }
        }

        /// Parsing and joining never panic, whatever the text.
        #[test]
        fn parse_and_join_never_panic(raw in any::<String>(), loc in url_like()) {
            let _ = CheckedUrl::parse(&raw);
            let _ = redact(&raw);
            let base = CheckedUrl::parse("https://a.example/d/p").unwrap();
            if let Ok(u) = base.join(&loc) {
                prop_assert!(u.url().username().is_empty() && u.url().password().is_none());
            }
        }
    }
}
