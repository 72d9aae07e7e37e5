//! robots.txt per RFC 9309: parsing and matching, sans I/O.
//!
//! [`Robots::parse`] reads the bytes of a robots.txt into groups of rules;
//! [`Robots::check`] answers, for one product token and one path, whether the path may
//! be crawled and which line decided, as a [`Verdict`]. Nothing here touches the
//! network: the per-origin cache that fetches robots.txt through the floor lives in
//! [`cache`].
//!
//! ```
//! use mcp_web_core::robots::{product_token, Robots};
//!
//! let robots = Robots::parse(b"User-agent: *\nDisallow: /private\n");
//! let agent = product_token("mcp-web/0.1.0 (+https://example.org)");
//! let verdict = robots.check(agent, "/private/a?b=c");
//! assert!(!verdict.is_allowed());
//! assert_eq!(verdict.reason().to_string(), "robots.txt Disallow: /private (line 2)");
//! assert!(robots.check(agent, "/public").is_allowed());
//! ```
//!
//! The rules, with the RFC 9309 section each comes from:
//!
//! - Lines end with CR, LF or CRLF; a UTF-8 byte order mark at the start is skipped;
//!   `#` starts a comment; keys are case-insensitive; a line without a colon is read
//!   when its first word is a known key (§2.1, §2.2.4 leniency).
//! - A group is a run of user-agent lines and the rules after them; only an Allow or
//!   Disallow line ends the run of user-agent lines, so blank lines, Sitemap,
//!   Crawl-delay and unknown lines between user-agent lines keep them in one group
//!   (§2.1, §2.2.4). Rules before the first user-agent line belong to no group and are
//!   ignored (§2.2.2).
//! - A user-agent value names a product token: its leading run of letters, `_` and
//!   `-`, compared case-insensitively; `*` names every crawler (§2.2.1). All groups
//!   naming our token are merged; the `*` groups apply only when none does; a matched
//!   group without rules allows everything (§2.2.1, §2.2.2).
//! - Patterns and paths are compared after the same percent-encoding normalisation:
//!   escapes of unreserved characters decoded, other escapes upper-cased, octets
//!   outside ASCII encoded; `%2A` and `%24` stay the characters `*` and `$`, never
//!   wildcards (§2.2.2, §2.2.3). The fragment is not matched.
//! - The most specific matching rule decides, and Allow wins a tie (§2.2.2).
//!   Specificity is the pattern's octets after normalisation, not counting `*` (a
//!   wildcard narrows nothing) but counting a final `$` (it does). `/robots.txt`
//!   itself is always allowed.
//! - Only the first [`PARSE_LIMIT`] bytes are parsed (§2.5); a line cut by the limit
//!   is dropped rather than read half. Of a longer line only the first [`LINE_LIMIT`]
//!   bytes are read, where Google's parser cuts it.
//! - At most [`MAX_RULES`] Allow and Disallow rules are kept: the file is read as if it
//!   ended before the next one; and matching one URL compares at most
//!   [`MATCH_BUDGET`] bytes, past which the URL is treated as disallowed.

pub mod cache;
mod parse;
mod pattern;

use std::fmt;
use std::time::Duration;

use ::url::Position;

use crate::error::{RobotsReason, RobotsRefused};
use crate::url::CheckedUrl;
use pattern::{Pattern, normalize_path};

/// How many bytes of a robots.txt are parsed: RFC 9309 §2.5 asks for at least 500 KiB.
pub const PARSE_LIMIT: usize = 500 * 1024;

/// How many bytes of a line are read: Google's parser copies a line into a buffer of
/// `2083 * 8` bytes (eight times the longest URL some browsers take), the last for
/// the terminating NUL, and ignores what does not fit.
pub const LINE_LIMIT: usize = 2083 * 8 - 1;

/// How many bytes matching one URL may compare: each rule tried costs the normalised
/// path's length and its pattern's. Past it the URL is treated as disallowed
/// ([`Reason::TooCostly`]), so a file of wildcard rules and a long path cost
/// milliseconds, not seconds.
pub const MATCH_BUDGET: usize = 4 << 20;

/// How many Allow and Disallow rules of one robots.txt are kept; a file with more is
/// read as if it ended before the next one (and says it was cut, like one longer
/// than [`PARSE_LIMIT`]).
pub const MAX_RULES: usize = 10_000;

/// The longest a deciding line is quoted in a verdict, in characters.
const QUOTE_LIMIT: usize = 200;

/// A parsed robots.txt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Robots {
    groups: Vec<Group>,
    sitemaps: Vec<String>,
    truncated: bool,
}

/// One group: the product tokens its user-agent lines name, and its rules.
#[derive(Debug, Clone, Default, PartialEq)]
struct Group {
    /// Lower-cased product tokens named by the group's user-agent lines.
    agents: Vec<String>,
    /// True when a user-agent line of the group is `*`.
    any: bool,
    /// Most specific first, Allow before Disallow among equals, then in file order:
    /// the first rule that matches a path decides it.
    rules: Vec<Rule>,
    crawl_delay: Option<Duration>,
}

/// One Allow or Disallow line with a non-empty pattern.
#[derive(Debug, Clone, PartialEq)]
struct Rule {
    allow: bool,
    pattern: Pattern,
    /// [`Pattern::specificity`], computed once.
    specificity: usize,
    /// The line as written, comment and surrounding whitespace removed, quotable.
    line: String,
    /// 1-based.
    line_no: usize,
}

/// Which groups apply to a product token.
enum Applicable<'a> {
    /// Groups naming the token, merged.
    Named(Vec<&'a Group>),
    /// The `*` groups, merged, because no group names the token.
    Any(Vec<&'a Group>),
    /// No group names the token and there is no `*` group.
    None,
}

impl Robots {
    /// Parses robots.txt bytes. Never fails: lines that cannot be read are skipped, as
    /// RFC 9309 §2.3.1.5 asks. Only the first [`PARSE_LIMIT`] bytes are read.
    pub fn parse(bytes: &[u8]) -> Robots {
        parse::parse(bytes)
    }

    /// Decides whether `agent` (a product token, see [`product_token`]) may crawl
    /// `path_and_query` (a URL's path and query, as in `/a/b?c=d`; a fragment is
    /// ignored).
    pub fn check(&self, agent: &str, path_and_query: &str) -> Verdict {
        let path = normalize_path(path_and_query);
        if path == "/robots.txt" {
            return Verdict::new(Reason::RobotsTxt);
        }
        let (groups, any) = match self.applicable(agent) {
            Applicable::Named(groups) => (groups, false),
            Applicable::Any(groups) => (groups, true),
            Applicable::None => return Verdict::new(Reason::NoGroup),
        };
        // Each group's rules are sorted so that its first match is its deciding rule;
        // the groups merged for the agent then compare their deciding rules.
        let mut best: Option<&Rule> = None;
        let (mut spent, mut tried) = (0usize, 0usize);
        for group in groups {
            let mut found = None;
            for rule in &group.rules {
                spent = spent.saturating_add(path.len() + rule.pattern.len());
                if spent > MATCH_BUDGET {
                    return Verdict::new(Reason::TooCostly { tried });
                }
                tried += 1;
                if rule.pattern.matches(&path) {
                    found = Some(rule);
                    break;
                }
            }
            let Some(rule) = found else {
                continue;
            };
            let better = match best {
                None => true,
                Some(current) => {
                    rule.specificity > current.specificity
                        || (rule.specificity == current.specificity && rule.allow && !current.allow)
                }
            };
            if better {
                best = Some(rule);
            }
        }
        match best {
            Some(rule) => Verdict::new(Reason::Rule {
                allow: rule.allow,
                line: rule.line.clone(),
                line_no: rule.line_no,
            }),
            None => Verdict::new(Reason::NoMatchingRule { any }),
        }
    }

    /// The Crawl-delay of the groups that apply to `agent`, the largest when several
    /// are given; `None` when they give none.
    pub fn crawl_delay(&self, agent: &str) -> Option<Duration> {
        let groups = match self.applicable(agent) {
            Applicable::Named(groups) | Applicable::Any(groups) => groups,
            Applicable::None => return None,
        };
        groups.iter().filter_map(|g| g.crawl_delay).max()
    }

    /// The Sitemap URLs, in file order, as written.
    pub fn sitemaps(&self) -> &[String] {
        &self.sitemaps
    }

    /// True when the file was longer than [`PARSE_LIMIT`] or held more than
    /// [`MAX_RULES`] rules, and its tail was not read.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// How many Allow and Disallow rules were kept, in all groups.
    pub fn rule_count(&self) -> usize {
        self.groups.iter().map(|group| group.rules.len()).sum()
    }

    /// An estimate of the memory the rules take, in bytes: what the cache of
    /// robots.txt files counts against its bound.
    pub fn footprint(&self) -> usize {
        let strings = |items: &[String]| {
            items
                .iter()
                .map(|item| item.len() + std::mem::size_of::<String>())
                .sum::<usize>()
        };
        let groups: usize = self
            .groups
            .iter()
            .map(|group| {
                std::mem::size_of::<Group>()
                    + strings(&group.agents)
                    + group
                        .rules
                        .iter()
                        .map(|rule| {
                            std::mem::size_of::<Rule>() + rule.line.len() + rule.pattern.len()
                        })
                        .sum::<usize>()
            })
            .sum();
        std::mem::size_of::<Robots>() + groups + strings(&self.sitemaps)
    }

    /// The groups that apply to `agent`.
    fn applicable(&self, agent: &str) -> Applicable<'_> {
        let named: Vec<&Group> = if agent.is_empty() {
            Vec::new()
        } else {
            self.groups
                .iter()
                .filter(|g| g.agents.iter().any(|a| a.eq_ignore_ascii_case(agent)))
                .collect()
        };
        if !named.is_empty() {
            return Applicable::Named(named);
        }
        let any: Vec<&Group> = self.groups.iter().filter(|g| g.any).collect();
        if any.is_empty() {
            Applicable::None
        } else {
            Applicable::Any(any)
        }
    }
}

/// A URL's path and query, the part robots.txt rules are matched against
/// (`https://a.example/p?q#f` → `/p?q`).
pub fn path_and_query(url: &CheckedUrl) -> &str {
    &url.url()[Position::BeforePath..Position::AfterQuery]
}

/// The product token of a User-Agent string: its first token, up to the first `/`
/// or whitespace (`mcp-web/0.1.0 (+https://…)` → `mcp-web`). robots.txt groups are
/// matched against it.
pub fn product_token(user_agent: &str) -> &str {
    let trimmed = user_agent.trim_start();
    let end = trimmed
        .find(|c: char| c == '/' || c.is_whitespace())
        .unwrap_or(trimmed.len());
    &trimmed[..end]
}

/// The answer for one URL: allowed or not, and why. Whether it allows follows from
/// its [`Reason`], so the two cannot disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    reason: Reason,
}

impl Verdict {
    /// The verdict this reason gives.
    pub fn new(reason: Reason) -> Verdict {
        Verdict { reason }
    }

    /// True when the URL may be crawled: every reason allows except a matching
    /// Disallow line and a robots.txt that answered a server error.
    pub fn is_allowed(&self) -> bool {
        match self.reason {
            Reason::Rule { allow, .. } => allow,
            Reason::ServerError { .. } | Reason::TooCostly { .. } => false,
            Reason::RobotsTxt
            | Reason::NoMatchingRule { .. }
            | Reason::NoGroup
            | Reason::ClientError { .. }
            | Reason::Unreachable { .. } => true,
        }
    }

    /// What decided.
    pub fn reason(&self) -> &Reason {
        &self.reason
    }

    /// The refusal to report for `url` (redacted) and `agent`, or `None` when the
    /// verdict allows.
    pub fn refusal(&self, url: &str, agent: &str) -> Option<RobotsRefused> {
        let reason = match &self.reason {
            Reason::Rule {
                allow: false,
                line,
                line_no,
            } => RobotsReason::Rule {
                line: line.clone(),
                line_no: *line_no,
            },
            Reason::ServerError { status } => RobotsReason::Unavailable { status: *status },
            Reason::TooCostly { tried } => RobotsReason::TooCostly { tried: *tried },
            _ => return None,
        };
        Some(RobotsRefused {
            url: url.to_owned(),
            agent: agent.to_owned(),
            reason,
        })
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = if self.is_allowed() {
            "allowed"
        } else {
            "disallowed"
        };
        write!(f, "{word}: {}", self.reason)
    }
}

/// Why a [`Verdict`] came out the way it did.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The most specific matching Allow or Disallow line.
    Rule {
        /// True for an Allow line.
        allow: bool,
        /// The line as written (comment and surrounding whitespace removed, long lines
        /// cut, control characters escaped), e.g. `Disallow: /private`.
        line: String,
        /// Its 1-based line number.
        line_no: usize,
    },
    /// The URL is `/robots.txt`, which is always allowed (RFC 9309 §2.2.2).
    RobotsTxt,
    /// The applicable group has no rule matching the path (or no rules at all).
    NoMatchingRule {
        /// True when the group is the `*` group, because none names the agent.
        any: bool,
    },
    /// No group names the agent and there is no `*` group.
    NoGroup,
    /// robots.txt answered a client error (4xx): no rules apply (RFC 9309 §2.3.1.3).
    ClientError {
        /// The status.
        status: u16,
    },
    /// robots.txt answered a server error (5xx): everything is disallowed
    /// (RFC 9309 §2.3.1.4).
    ServerError {
        /// The status.
        status: u16,
    },
    /// robots.txt could not be fetched or read (no connection, a deadline, the floor
    /// refusing, too many redirects, not text): no rules apply.
    Unreachable {
        /// Why, in words.
        detail: String,
    },
    /// Matching the URL would compare more than [`MATCH_BUDGET`] bytes: it is treated
    /// as disallowed.
    TooCostly {
        /// How many rules were tried within the budget.
        tried: usize,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Rule { line, line_no, .. } => {
                write!(f, "robots.txt {line} (line {line_no})")
            }
            Reason::RobotsTxt => f.write_str("/robots.txt itself is always allowed"),
            Reason::TooCostly { tried } => write!(
                f,
                "robots.txt holds more rules than one URL is matched against ({tried} tried within the budget), so the URL is treated as disallowed"
            ),
            Reason::NoMatchingRule { any: false } => {
                f.write_str("no rule of the group for this user agent matches")
            }
            Reason::NoMatchingRule { any: true } => {
                f.write_str("no rule of the '*' group matches (no group names this user agent)")
            }
            Reason::NoGroup => {
                f.write_str("robots.txt has no group for this user agent and no '*' group")
            }
            Reason::ClientError { status } => {
                write!(f, "robots.txt answered {status}, so no rules apply")
            }
            Reason::ServerError { status } => write!(
                f,
                "robots.txt answered {status}, a server error, which RFC 9309 says disallows the whole site"
            ),
            Reason::Unreachable { detail } => write!(
                f,
                "robots.txt could not be read ({detail}), so no rules apply"
            ),
        }
    }
}

/// Makes a line quotable: lossy UTF-8, control characters escaped, cut to
/// [`QUOTE_LIMIT`] characters.
fn quote_line(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let mut out = String::with_capacity(text.len().min(QUOTE_LIMIT * 4));
    for (count, c) in text.chars().enumerate() {
        if count == QUOTE_LIMIT {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
