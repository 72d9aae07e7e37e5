//! Crawl one site from a start page and lay the pages out as the index `web_crawl`
//! answers: one line per page, never the pages themselves.
//!
//! The index, as [`Crawled::render`] writes it:
//!
//! ```text
//! Crawled 4 pages from https://docs.example.com/ (depth 1, same origin only).
//!
//! https://docs.example.com/  200  4213 bytes  Documentation
//! https://docs.example.com/old  200  2288 bytes  Installing  [redirected to https://docs.example.com/install]
//! https://docs.example.com/faq  200  1024 bytes  FAQ  (cached)
//! https://docs.example.com/missing  404  Not Found
//! https://docs.example.com/private/  skipped: robots.txt line 2 "Disallow: /private/"
//! https://docs.example.com/setup  same page as https://docs.example.com/old
//! https://docs.example.com/forum  redirects to https://forum.example.com/ (another origin, not followed)
//! https://docs.example.com/admin  skipped: redirected to https://docs.example.com/private/admin, robots.txt line 2 "Disallow: /private/"
//! https://docs.example.com/slow  failed: timeout (raise timeout)
//!
//! [stopped after 4 pages; raise max-pages to go further]
//! ```
//!
//! Fields are separated by two spaces. A fetched page shows its status, the bytes read
//! and its title (nothing after the bytes when it has none), and the URL it was
//! retrieved from when a redirect moved it, and `(cached)` when its body came from the
//! server's HTTP cache. A page that answered an HTTP error shows the
//! status and its reason phrase; a page robots.txt refused shows the deciding line; any
//! other failure shows its rule and the configuration key that would change it. A link
//! that redirects to a URL the crawl already requested is listed as the `same page as`
//! the line that requested it (each URL is requested once per crawl, so a page is listed
//! once); a redirect to a hop robots.txt refuses names the hop and the rule; a redirect
//! to another origin names the hop, which was not requested. `N` counts
//! the pages requested (a page robots.txt refused is listed, not counted), as progress
//! does.

use std::time::Duration;

use mcp_web_core::crawl::{self, CrawlOptions, Flow, Outcome, Stopped, Summary, Visit};
use mcp_web_core::error::{Error, RobotsReason, seconds, status_reason};
use mcp_web_core::fetch::Allowance;
use mcp_web_core::url::CheckedUrl;
use serde_json::{Value, json};

use super::{Context, Observer};

/// Requests a crawl makes at once when no politeness delay applies.
pub const CONCURRENCY: usize = 4;

/// One line of the index.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The URL as linked.
    pub url: String,
    /// Hops from the start page.
    pub depth: usize,
    /// The HTTP status, when the server answered one.
    pub status: Option<u16>,
    /// Decoded body bytes read, for a fetched page.
    pub bytes: Option<usize>,
    /// The page's title, when it has one.
    pub title: Option<String>,
    /// The URL that answered, when a redirect moved the page.
    pub final_url: Option<String>,
    /// The line this page is listed as, when it redirected to a URL requested before.
    pub same_as: Option<String>,
    /// The hop on another origin this page redirected to, which was not requested.
    pub other_origin: Option<String>,
    /// Why the page was skipped or failed.
    pub error: Option<Error>,
    /// True when the page's body came from the server's HTTP cache.
    pub cached: bool,
}

impl Entry {
    /// The entry of one visit.
    fn of(visit: &Visit) -> Entry {
        let mut entry = Entry {
            url: visit.url.to_string(),
            depth: visit.depth,
            status: None,
            bytes: None,
            title: None,
            final_url: None,
            same_as: None,
            other_origin: None,
            error: None,
            cached: false,
        };
        match &visit.outcome {
            Outcome::Fetched { page, text } => {
                entry.status = Some(page.status);
                entry.bytes = Some(page.bytes);
                entry.title = text.title().map(str::to_owned);
                entry.final_url = (page.final_url != visit.url).then(|| page.final_url.to_string());
                entry.cached = page.cached;
            }
            Outcome::Skipped(e) | Outcome::Failed(e) => {
                if let Error::Http(http) = e {
                    entry.status = Some(http.status);
                }
                entry.error = Some(e.clone());
            }
            Outcome::Alias { listed_as, .. } => {
                entry.same_as = Some(listed_as.to_string());
            }
            Outcome::OffOrigin { hop } => entry.other_origin = Some(hop.to_string()),
        }
        entry
    }

    /// The entry's line of the index.
    pub fn line(&self) -> String {
        let mut line = self.url.clone();
        match (&self.error, self.status, self.bytes) {
            (None, Some(status), Some(bytes)) => {
                line.push_str(&format!("  {status}  {bytes} bytes"));
                if let Some(title) = &self.title {
                    line.push_str("  ");
                    line.push_str(title);
                }
                if let Some(final_url) = &self.final_url {
                    line.push_str(&format!("  [redirected to {final_url}]"));
                }
                if self.cached {
                    line.push_str("  (cached)");
                }
            }
            (Some(error), _, _) => {
                line.push_str("  ");
                line.push_str(&failure(&self.url, error));
            }
            _ => {
                if let Some(same_as) = &self.same_as {
                    line.push_str(&format!("  same page as {same_as}"));
                }
                if let Some(hop) = &self.other_origin {
                    line.push_str(&format!("  {}", not_followed(hop)));
                }
            }
        }
        line
    }

    /// The entry as one JSON object (`--json`): `url`, `depth`, `status`, `bytes`,
    /// `title`, `final_url`, `same_as`, `other_origin`, and for a page skipped or failed
    /// its `error`
    /// (`kind`, `rule`, `config_key`, `message`); absent fields are null.
    pub fn to_json(&self) -> Value {
        json!({
            "url": self.url,
            "depth": self.depth,
            "status": self.status,
            "bytes": self.bytes,
            "title": self.title,
            "final_url": self.final_url,
            "same_as": self.same_as,
            "other_origin": self.other_origin,
            "error": self.error.as_ref().map(|e| json!({
                "kind": e.kind().as_str(),
                "rule": e.rule(),
                "config_key": e.config_key(),
                "message": e.to_string(),
            })),
        })
    }
}

/// What the index says of a page that redirected to `hop`, on another origin.
pub fn not_followed(hop: &str) -> String {
    format!("redirects to {hop} (another origin, not followed)")
}

/// The compact form of the failure of the page linked as `url` in the index (see the
/// module documentation).
fn failure(url: &str, error: &Error) -> String {
    match error {
        Error::Http(http) => {
            let reason = status_reason(http.status);
            if reason.is_empty() {
                format!("{}", http.status)
            } else {
                format!("{}  {reason}", http.status)
            }
        }
        Error::RobotsRefused(refused) => {
            let hop = if refused.url == url {
                String::new()
            } else {
                format!("redirected to {}, ", refused.url)
            };
            match &refused.reason {
                RobotsReason::Rule { line, line_no } => {
                    format!("skipped: {hop}robots.txt line {line_no} {line:?}")
                }
                RobotsReason::Unavailable { status } => {
                    format!("skipped: {hop}robots.txt answered {status}")
                }
                RobotsReason::TooCostly { tried } => {
                    format!("skipped: {hop}robots.txt too costly to match ({tried} rules tried)")
                }
            }
        }
        other => match other.config_key() {
            Some(key) if matches!(other, Error::Deadline(_)) => {
                format!("failed: {} (raise {key})", other.rule())
            }
            Some(key) => format!("failed: {} (see {key})", other.rule()),
            None => format!("failed: {}", other.rule()),
        },
    }
}

/// A finished crawl: what was asked, every page in breadth-first order, how it ended.
#[derive(Debug, Clone)]
pub struct Crawled {
    /// The start URL, checked.
    pub start: CheckedUrl,
    /// The depth asked for.
    pub depth: usize,
    /// One entry per page, in the order visited.
    pub entries: Vec<Entry>,
    /// Pages requested and why the crawl ended.
    pub summary: Summary,
    /// The call's `total-timeout`, which the deadline notice names.
    pub budget: Duration,
}

impl Crawled {
    /// The `web_crawl` answer: the header line, a blank line, one line per page, and
    /// when a budget stopped the crawl, a blank line and the notice naming the key to
    /// raise.
    pub fn render(&self) -> String {
        let mut out = format!(
            "Crawled {} from {} (depth {}, same origin only).\n",
            pages(self.summary.fetched),
            self.start,
            self.depth
        );
        if !self.entries.is_empty() {
            out.push('\n');
        }
        for entry in &self.entries {
            out.push_str(&entry.line());
            out.push('\n');
        }
        if let Some(notice) = self.notice() {
            out.push('\n');
            out.push_str(&notice);
            out.push('\n');
        }
        out.truncate(out.trim_end().len());
        out
    }

    /// The notice of a budget that stopped the crawl, if one did.
    pub fn notice(&self) -> Option<String> {
        let n = self.summary.fetched;
        match self.summary.stopped {
            Stopped::MaxPages => Some(max_pages_notice(n)),
            Stopped::Deadline => Some(deadline_notice(n, self.budget)),
            Stopped::Done | Stopped::Caller => None,
        }
    }
}

/// The notice of a walk that `max-pages` stopped after `fetched` pages (crawl and grep).
pub fn max_pages_notice(fetched: usize) -> String {
    format!(
        "[stopped after {}; raise max-pages to go further]",
        pages(fetched)
    )
}

/// The notice of a walk the call's `total-timeout` of `budget` stopped after `fetched`
/// pages (crawl and grep).
pub fn deadline_notice(fetched: usize, budget: Duration) -> String {
    format!(
        "[stopped after {}: total-timeout of {} ran out; raise total-timeout to go further]",
        pages(fetched),
        seconds(budget)
    )
}

/// `N pages`, or `1 page`.
pub fn pages(n: usize) -> String {
    if n == 1 {
        "1 page".to_owned()
    } else {
        format!("{n} pages")
    }
}

/// Crawls from `raw_url` within `call`, `depth` hops and at most `max_pages` pages,
/// with the context's `crawl-delay` and `respect-robots`, reporting each page to
/// `observer` (`done` pages requested of `max_pages`, the page's URL as the message).
pub async fn crawl(
    context: &Context,
    raw_url: &str,
    depth: usize,
    max_pages: usize,
    call: &Allowance,
    observer: &dyn Observer,
) -> Result<Crawled, Error> {
    let start = CheckedUrl::parse(raw_url)?;
    let options = CrawlOptions {
        depth,
        max_pages,
        politeness: context.settings().crawl,
        concurrency: CONCURRENCY,
    };
    let mut entries = Vec::new();
    let mut requested = 0usize;
    let total = max_pages as f64;
    observer.progress(0.0, Some(total), &format!("crawling {start}"));
    let summary = crawl::crawl(
        context.fetcher(),
        context.robots(),
        &start,
        &options,
        call,
        &mut |visit| {
            // One notification per page requested, so progress always rises; a page
            // robots.txt refused was not requested.
            if !matches!(visit.outcome, Outcome::Skipped(_)) {
                requested += 1;
                observer.progress(requested as f64, Some(total), visit.url.as_str());
            }
            entries.push(Entry::of(visit));
            Flow::Continue
        },
    )
    .await?;
    Ok(Crawled {
        start,
        depth,
        entries,
        summary,
        budget: call.budget(),
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_web_core::error::{Deadline, Phase};

    use super::*;

    fn failed(url: &str, error: Error) -> Entry {
        Entry {
            url: url.into(),
            depth: 1,
            status: None,
            bytes: None,
            title: None,
            final_url: None,
            same_as: None,
            other_origin: None,
            error: Some(error),
            cached: false,
        }
    }

    #[test]
    fn a_deadline_stop_names_total_timeout_and_failures_name_their_rule_and_key() {
        let timeout = Error::Deadline(Deadline {
            url: "https://example.com/slow".into(),
            phase: Phase::ReadingHeaders,
            key: mcp_web_core::key::ConfigKey::Timeout,
            limit: Duration::from_secs(30),
        });
        let crawled = Crawled {
            start: CheckedUrl::parse("https://example.com/").expect("a valid URL"),
            depth: 1,
            entries: vec![failed("https://example.com/slow", timeout)],
            summary: Summary {
                fetched: 1,
                queued: 2,
                stopped: Stopped::Deadline,
            },
            budget: Duration::from_secs(90),
        };
        assert_eq!(
            crawled.render(),
            "Crawled 1 page from https://example.com/ (depth 1, same origin only).\n\n\
             https://example.com/slow  failed: timeout (raise timeout)\n\n\
             [stopped after 1 page: total-timeout of 90 s ran out; raise total-timeout to go further]"
        );
    }
}
