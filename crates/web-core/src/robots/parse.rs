//! The robots.txt line parser: bytes → groups, rules, Crawl-delay and Sitemap lines.
//!
//! Lenient where RFC 9309 allows it (§2.2.4, §2.3.1.5): any line that cannot be read
//! is skipped, keys are case-insensitive, a missing colon is tolerated after a known
//! key, and a few common misspellings of the keys are read as the key meant.

use std::cmp::Reverse;
use std::time::Duration;

use super::pattern::Pattern;
use super::{Group, LINE_LIMIT, MAX_RULES, PARSE_LIMIT, Robots, Rule, quote_line};

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    UserAgent,
    Allow,
    Disallow,
    CrawlDelay,
    Sitemap,
}

impl Key {
    /// Reads a key, case-insensitively, accepting common misspellings.
    fn read(raw: &[u8]) -> Option<Key> {
        const KEYS: &[(&[u8], Key)] = &[
            (b"user-agent", Key::UserAgent),
            (b"useragent", Key::UserAgent),
            (b"user agent", Key::UserAgent),
            (b"allow", Key::Allow),
            (b"disallow", Key::Disallow),
            (b"dissallow", Key::Disallow),
            (b"dissalow", Key::Disallow),
            (b"disalow", Key::Disallow),
            (b"diasllow", Key::Disallow),
            (b"disallaw", Key::Disallow),
            (b"crawl-delay", Key::CrawlDelay),
            (b"crawldelay", Key::CrawlDelay),
            (b"sitemap", Key::Sitemap),
            (b"site-map", Key::Sitemap),
        ];
        KEYS.iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(raw))
            .map(|&(_, key)| key)
    }
}

/// Parses robots.txt bytes; see [`Robots::parse`].
pub(super) fn parse(bytes: &[u8]) -> Robots {
    let (bytes, truncated) = within_limit(bytes);
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let mut robots = Robots {
        truncated,
        ..Robots::default()
    };
    // The group rules are added to, if any.
    let mut current: Option<Group> = None;
    // True while the lines since the last user-agent line contain no rule, so that a
    // further user-agent line joins the same group.
    let mut in_agents = false;
    let mut kept = 0usize;
    for (index, line) in lines(bytes).enumerate() {
        let line_no = index + 1;
        // Google's parser keeps the first LINE_LIMIT bytes of a line and drops the rest.
        let line = &line[..line.len().min(LINE_LIMIT)];
        let content = trim(strip_comment(before_nul(line)));
        let Some((key, value)) = split_key_value(content) else {
            continue;
        };
        match key {
            Key::UserAgent => {
                if !in_agents {
                    if let Some(group) = current.take() {
                        robots.groups.push(finish(group));
                    }
                    current = Some(Group::default());
                    in_agents = true;
                }
                if let Some(group) = current.as_mut() {
                    add_agent(group, value);
                }
            }
            Key::Allow | Key::Disallow => {
                in_agents = false;
                let Some(group) = current.as_mut() else {
                    // A rule before the first user-agent line belongs to no group.
                    continue;
                };
                if kept == MAX_RULES {
                    // The file is read as if it ended before this line.
                    robots.truncated = true;
                    break;
                }
                if let Some(pattern) = Pattern::compile(value) {
                    kept += 1;
                    group.rules.push(Rule {
                        allow: key == Key::Allow,
                        specificity: pattern.specificity(),
                        pattern,
                        line: quote_line(content),
                        line_no,
                    });
                }
            }
            Key::CrawlDelay => {
                if let (Some(group), Some(delay)) = (current.as_mut(), crawl_delay(value)) {
                    group.crawl_delay = group.crawl_delay.max(Some(delay));
                }
            }
            Key::Sitemap => {
                if !value.is_empty() {
                    robots
                        .sitemaps
                        .push(String::from_utf8_lossy(value).into_owned());
                }
            }
        }
    }
    if let Some(group) = current {
        robots.groups.push(finish(group));
    }
    robots
}

/// Orders a group's rules so that the first one matching a path is the one that
/// decides it: most specific first, Allow before Disallow among equals (RFC 9309
/// §2.2.2), then in file order.
fn finish(mut group: Group) -> Group {
    group
        .rules
        .sort_by_key(|r| (Reverse(r.specificity), !r.allow, r.line_no));
    group
}

/// The part of `bytes` to parse, and whether anything was left out. A line the limit
/// cuts is dropped whole: half a pattern would match a different set of paths.
fn within_limit(bytes: &[u8]) -> (&[u8], bool) {
    if bytes.len() <= PARSE_LIMIT {
        return (bytes, false);
    }
    if matches!(bytes[PARSE_LIMIT], b'\n' | b'\r') {
        return (&bytes[..PARSE_LIMIT], true);
    }
    let head = &bytes[..PARSE_LIMIT];
    let end = head
        .iter()
        .rposition(|&b| matches!(b, b'\n' | b'\r'))
        .map_or(0, |at| at + 1);
    (&head[..end], true)
}

/// Splits into lines at CR, LF and CRLF. A final line without an end is a line; an
/// end at the very end of the input does not start another.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.iter().position(|&b| matches!(b, b'\n' | b'\r')) {
            Some(at) => {
                let line = &rest[..at];
                let skip = if rest[at] == b'\r' && rest.get(at + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                rest = &rest[at + skip..];
                Some(line)
            }
            None => {
                let line = rest;
                rest = &[];
                Some(line)
            }
        }
    })
}

/// The line up to its first NUL byte: Google's parser reads each line as a C string,
/// so a NUL ends what the line says and the bytes after it are ignored.
fn before_nul(line: &[u8]) -> &[u8] {
    match line.iter().position(|&b| b == 0) {
        Some(at) => &line[..at],
        None => line,
    }
}

/// The line up to its first `#`.
fn strip_comment(line: &[u8]) -> &[u8] {
    match line.iter().position(|&b| b == b'#') {
        Some(at) => &line[..at],
        None => line,
    }
}

/// Whitespace for the purpose of trimming: space, tab, and the other ASCII blanks.
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\x0B' | b'\x0C')
}

/// Removes leading and trailing whitespace.
fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|&b| !is_blank(b))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| !is_blank(b))
        .map_or(start, |at| at + 1);
    &bytes[start..end]
}

/// Reads `key: value`, or `key value` when the colon is missing and the first word is
/// a known key.
fn split_key_value(content: &[u8]) -> Option<(Key, &[u8])> {
    if content.is_empty() {
        return None;
    }
    if let Some(colon) = content.iter().position(|&b| b == b':')
        && let Some(key) = Key::read(trim(&content[..colon]))
    {
        return Some((key, trim(&content[colon + 1..])));
    }
    let space = content.iter().position(|&b| is_blank(b))?;
    let key = Key::read(&content[..space])?;
    Some((key, trim(&content[space..])))
}

/// Adds the product token a user-agent value names to the group.
fn add_agent(group: &mut Group, value: &[u8]) {
    // `*`, alone or followed by whitespace and anything, names every crawler.
    if value.first() == Some(&b'*') && value.get(1).is_none_or(|&b| is_blank(b)) {
        group.any = true;
        return;
    }
    // The product token is the value's leading run of letters, `_` and `-` (§2.2.1):
    // `Googlebot/2.1` and `Foo Bar` name `Googlebot` and `Foo`.
    let end = value
        .iter()
        .position(|&b| !(b.is_ascii_alphabetic() || b == b'_' || b == b'-'))
        .unwrap_or(value.len());
    if end > 0 {
        let token = String::from_utf8_lossy(&value[..end]).to_ascii_lowercase();
        if !group.agents.contains(&token) {
            group.agents.push(token);
        }
    }
}

/// Reads a Crawl-delay value: a non-negative decimal number of seconds. Anything else
/// (negative, exponent, `inf`, too large for a duration) is ignored.
fn crawl_delay(value: &[u8]) -> Option<Duration> {
    let digits = value.iter().filter(|&&b| b == b'.').count() <= 1
        && value.iter().any(u8::is_ascii_digit)
        && value.iter().all(|&b| b.is_ascii_digit() || b == b'.');
    if !digits {
        return None;
    }
    let text = std::str::from_utf8(value).ok()?;
    let seconds: f64 = text.parse().ok()?;
    Duration::try_from_secs_f64(seconds).ok()
}
