//! Grep one page, or a site at a depth, for the lines that match a pattern: what
//! `web_grep` and `mcp-web grep` answer.
//!
//! Depth 0 fetches the one URL with [`ops::fetch`](super::fetch::fetch), which never
//! consults robots.txt. A depth above 0 walks the site with the same-origin crawl
//! (robots.txt respected as `respect-robots` says, one request at a time), and answers
//! [`Flow::Stop`] as soon as `max-results` lines have matched, so no page is fetched
//! after the one that completed the results.
//!
//! Within one call each page is fetched once, redirect aliases included: a link that
//! redirects to a URL already requested is not searched again, and a no-match answer
//! lists it as the `same page as` the URL it was searched under, as `web_crawl` does.
//!
//! Each page is searched over [`PageText::lines`](mcp_web_core::page::PageText::lines),
//! its header included, so the line numbers are those of the `web_fetch` answer for the
//! page: `mcp-web fetch URL | sed -n LINEp` shows the matched line.
//!
//! With `context` N, the N lines before and after each match are shown as grep `-C N`
//! shows them: `url-line-text`, groups that overlap or touch merged, `--` between
//! groups. `max-results` counts the matching lines only.

use std::sync::Arc;
use std::time::Duration;

use mcp_web_core::crawl::{self, CrawlOptions, Flow, Outcome, Stopped, Visit, Visitor};
use mcp_web_core::error::{Error, PatternCost};

use super::crawl::{deadline_notice, max_pages_notice, not_followed, pages};
use mcp_web_core::fetch::Allowance;
use mcp_web_core::grep::{self, Budget, Pattern, SearchStop};
use mcp_web_core::page::PageText;
use mcp_web_core::url::CheckedUrl;
use serde_json::{Value, json};

use super::{Context, Observer};

/// How far one grep goes: the tool's `depth`, `max-pages` and `max-results`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrepOptions {
    /// Hops from the start page that are followed (0 = the one page).
    pub depth: usize,
    /// The most pages fetched (`max-pages`; a depth of 0 fetches one).
    pub max_pages: usize,
    /// The most matching lines returned (`max-results`).
    pub max_results: usize,
    /// The lines shown before and after each match (`context`, at most
    /// [`MAX_CONTEXT`](mcp_web_core::grep::MAX_CONTEXT)).
    pub context: usize,
}

/// One line of one page shown in the answer: a matching line, or with `context` a line
/// around one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The page's final URL (after redirects).
    pub url: String,
    /// The line's number in the `web_fetch` answer for the page (its `# Title` is 1).
    pub line: usize,
    /// The line, or a window around its first match (of a context line, its start)
    /// marked with `…` where cut.
    pub text: String,
    /// Whether `text` is a window of a longer line.
    pub cut: bool,
    /// Whether the line is context around a match rather than a match.
    pub context: bool,
}

impl Found {
    /// The line the way grep reports it: `url:line:text` for a match, `url-line-text`
    /// for a context line.
    pub fn to_line(&self) -> String {
        let sep = if self.context { '-' } else { ':' };
        format!("{}{sep}{}{sep}{}", self.url, self.line, self.text)
    }

    /// The line as a JSON object: `url`, `line`, `text`, `cut`, `context`.
    pub fn to_json(&self) -> Value {
        json!({
            "url": self.url,
            "line": self.line,
            "text": self.text,
            "cut": self.cut,
            "context": self.context,
        })
    }

    /// Whether `self` is the line right after `before` on the same page.
    fn follows(&self, before: &Found) -> bool {
        self.url == before.url && self.line == before.line + 1
    }
}

/// One page the grep visited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visited {
    /// The page's URL as asked for (linked, or given).
    pub url: String,
    /// `None` when the page was searched, else why it could not be (the teaching
    /// message of its failure or robots.txt refusal).
    pub not_searched: Option<String>,
    /// The URL this page was searched under, when it redirected to a URL requested
    /// before (it was not searched twice).
    pub same_as: Option<String>,
}

/// Why a grep ended before it had searched everything within its depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// `max-results` lines matched (the limit).
    MaxResults(usize),
    /// `max-pages` pages were fetched and more were waiting (the limit).
    MaxPages(usize),
    /// The call's `total-timeout` ran out.
    Deadline {
        /// The `total-timeout`.
        budget: Duration,
        /// The pages fetched before it ran out.
        fetched: usize,
    },
}

/// What one grep found: the matching lines, the pages visited, and what stopped it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grepped {
    /// The start URL, as checked.
    pub start: String,
    /// The pattern, as messages quote it (`"x"`, `the regex "x"`, `(ignoring case)`).
    pub pattern: String,
    /// The depth searched.
    pub depth: usize,
    /// The lines shown around each match (0: none).
    pub context: usize,
    /// The matching lines (with `context`, and the lines around them), page by page in
    /// crawl order, each page's lines in order.
    pub matches: Vec<Found>,
    /// Every page visited, in crawl order.
    pub pages: Vec<Visited>,
    /// What stopped the grep early, if anything did.
    pub stopped: Option<Stop>,
}

impl Grepped {
    /// How many pages were searched.
    pub fn searched(&self) -> usize {
        self.pages
            .iter()
            .filter(|p| p.not_searched.is_none() && p.same_as.is_none())
            .count()
    }

    /// How many distinct pages were visited (aliases of a page searched under another
    /// URL not counted).
    fn distinct(&self) -> usize {
        self.pages.iter().filter(|p| p.same_as.is_none()).count()
    }

    /// The notices that follow the matches: what stopped the grep, and how many pages
    /// could not be searched. Each is one `[…]` line.
    pub fn notices(&self) -> Vec<String> {
        let mut notices = Vec::new();
        let unsearched = self.distinct() - self.searched();
        if !self.matches.is_empty() && unsearched > 0 {
            notices.push(format!(
                "[{unsearched} of {} could not be searched (an HTTP error, a refused \
                 address or robots.txt); web_crawl lists each with its reason]",
                pages(self.distinct())
            ));
        }
        match self.stopped {
            Some(Stop::MaxResults(limit)) => notices.push(format!(
                "[stopped at {}; raise max-results to see more]",
                matching_lines(limit)
            )),
            Some(Stop::MaxPages(limit)) => notices.push(max_pages_notice(limit)),
            Some(Stop::Deadline { budget, fetched }) => {
                notices.push(deadline_notice(fetched, budget));
            }
            None => {}
        }
        notices
    }

    /// The answer when nothing matched: which pages were searched, and which could
    /// not be and why.
    pub fn no_match(&self) -> String {
        let mut out = format!(
            "No line matched {} in {} from {} (depth {}).",
            self.pattern,
            pages(self.searched()),
            self.start,
            self.depth
        );
        // The pages searched, and in their place in crawl order the aliases of a page
        // searched under another URL.
        let mut listed = self.pages.iter().filter(|p| p.not_searched.is_none());
        if let Some(first) = listed.next() {
            out.push_str("\n\n");
            out.push_str(&searched_line(first));
            for page in listed {
                out.push('\n');
                out.push_str(&searched_line(page));
            }
        }
        let unsearched: Vec<&Visited> = self
            .pages
            .iter()
            .filter(|p| p.not_searched.is_some())
            .collect();
        if !unsearched.is_empty() {
            out.push_str("\n\nNot searched:");
            for page in unsearched {
                let why = page.not_searched.as_deref().unwrap_or_default();
                out.push_str(&format!("\n{}  {why}", page.url));
            }
        }
        out
    }

    /// The text answer: one `url:line:text` per match (with context, `url-line-text`
    /// per line around one, and `--` between groups apart), then a blank line and the
    /// notices; or, when nothing matched, [`Grepped::no_match`] and the notices.
    pub fn render(&self) -> String {
        let mut out = if self.matches.is_empty() {
            self.no_match()
        } else {
            let mut lines = Vec::with_capacity(self.matches.len());
            let mut before: Option<&Found> = None;
            for found in &self.matches {
                if self.context > 0 && before.is_some_and(|b| !found.follows(b)) {
                    lines.push("--".to_owned());
                }
                lines.push(found.to_line());
                before = Some(found);
            }
            lines.join("\n")
        };
        let notices = self.notices();
        if !notices.is_empty() {
            out.push_str("\n\n");
            out.push_str(&notices.join("\n"));
        }
        out
    }
}

/// A page's line in the list of pages searched: its URL, and for an alias the URL it
/// was searched under.
fn searched_line(page: &Visited) -> String {
    match &page.same_as {
        Some(same_as) => format!("{}  same page as {same_as}", page.url),
        None => page.url.clone(),
    }
}

/// `N matching lines`, or `1 matching line`.
fn matching_lines(n: usize) -> String {
    if n == 1 {
        "1 matching line".to_owned()
    } else {
        format!("{n} matching lines")
    }
}

/// Greps `raw_url` (and, at a depth, the same-origin pages it leads to) for `pattern`
/// within `call`, reporting each page to `observer`. A start page that is refused or
/// fails to fetch is the error; a page further in that fails is listed as not searched.
/// Matching runs on a blocking thread and reads the call's deadline and cancellation
/// between lines; a pattern too costly to match is the error
/// ([`Error::Pattern`]).
pub async fn grep(
    context: &Context,
    raw_url: &str,
    pattern: &Pattern,
    options: &GrepOptions,
    call: &Allowance,
    observer: &dyn Observer,
) -> Result<Grepped, Error> {
    let start = CheckedUrl::parse(raw_url)?;
    let mut grepped = Grepped {
        start: start.to_string(),
        pattern: pattern.to_string(),
        depth: options.depth,
        context: options.context,
        matches: Vec::new(),
        pages: Vec::new(),
        stopped: None,
    };
    let max_results = options.max_results.max(1);
    if options.depth == 0 {
        let fetched = super::fetch::fetch(context, raw_url, call, observer).await?;
        let asked = fetched.page.url.to_string();
        let shown = Shown {
            room: max_results,
            context: options.context,
        };
        let searched = search(&asked, Arc::new(fetched.text), pattern, shown, call).await;
        grepped.matches = searched.matches;
        grepped.pages.push(Visited {
            url: asked,
            not_searched: None,
            same_as: None,
        });
        grepped.stopped = match searched.end {
            PageEnd::Done => None,
            PageEnd::More => Some(Stop::MaxResults(max_results)),
            PageEnd::Halted(halt) => Some(halted(halt, call, 1)?),
        };
        return Ok(grepped);
    }
    let crawl_options = CrawlOptions {
        depth: options.depth,
        max_pages: options.max_pages.max(1),
        politeness: context.settings().crawl,
        concurrency: 1,
    };
    let mut visitor = Searcher {
        grepped: &mut grepped,
        pattern,
        max_results,
        context: options.context,
        matched: 0,
        call,
        observer,
        total: crawl_options.max_pages as f64,
        requested: 0,
        page_cut: false,
        halt: None,
    };
    let summary = crawl::crawl_with(
        context.fetcher(),
        context.robots(),
        &start,
        &crawl_options,
        call,
        &mut visitor,
    )
    .await?;
    let (page_cut, halt) = (visitor.page_cut, visitor.halt);
    grepped.stopped = match (halt, summary.stopped) {
        (Some(halt), _) => Some(halted(halt, call, summary.fetched)?),
        (None, Stopped::Caller) => Some(Stop::MaxResults(max_results)),
        (None, Stopped::Done) if page_cut => Some(Stop::MaxResults(max_results)),
        (None, Stopped::MaxPages) => Some(Stop::MaxPages(crawl_options.max_pages)),
        (None, Stopped::Deadline) => Some(Stop::Deadline {
            budget: call.budget(),
            fetched: summary.fetched,
        }),
        (None, Stopped::Done) => None,
    };
    Ok(grepped)
}

/// How a search that stopped short ends the grep: the deadline is a stop after
/// `fetched` pages, a cancellation or a pattern too costly the error.
fn halted(halt: Halt, call: &Allowance, fetched: usize) -> Result<Stop, Error> {
    match halt {
        Halt::Deadline => Ok(Stop::Deadline {
            budget: call.budget(),
            fetched,
        }),
        Halt::Failed(e) => Err(e),
    }
}

/// The crawl's visitor of one grep: searches each fetched page off the async threads
/// and stops the walk once `max-results` lines matched or a search stopped short.
struct Searcher<'a> {
    grepped: &'a mut Grepped,
    pattern: &'a Pattern,
    max_results: usize,
    /// The lines shown around each match.
    context: usize,
    /// The matching lines kept so far (context lines not counted).
    matched: usize,
    call: &'a Allowance,
    observer: &'a dyn Observer,
    /// `max-pages`, the total progress counts to.
    total: f64,
    /// Pages requested so far: progress rises by one per page fetched (or failed), and
    /// a page robots.txt refused, which was not requested, sends none.
    requested: usize,
    /// Whether the last page searched had more matching lines than were kept.
    page_cut: bool,
    /// Why a search stopped short, when one did.
    halt: Option<Halt>,
}

impl Visitor for Searcher<'_> {
    async fn visit(&mut self, visit: &Visit) -> Flow {
        let mut same_as = None;
        let (url, not_searched) = match &visit.outcome {
            Outcome::Fetched { page, text } => {
                let url = page.url.to_string();
                let shown = Shown {
                    room: self.max_results - self.matched.min(self.max_results),
                    context: self.context,
                };
                let searched = search(&url, text.clone(), self.pattern, shown, self.call).await;
                let found = searched.matched;
                self.matched += found;
                self.grepped.matches.extend(searched.matches);
                match searched.end {
                    PageEnd::Done => {}
                    PageEnd::More => self.page_cut = true,
                    PageEnd::Halted(halt) => self.halt = Some(halt),
                }
                self.requested += 1;
                self.observer.progress(
                    self.requested as f64,
                    Some(self.total),
                    &format!("searched {url}: {}", matching_lines(found)),
                );
                (url, None)
            }
            Outcome::Failed(error) => {
                let url = visit.url.to_string();
                self.requested += 1;
                self.observer.progress(
                    self.requested as f64,
                    Some(self.total),
                    &format!("not searched {url}: {}", error.rule()),
                );
                (url, Some(error.to_string()))
            }
            Outcome::Alias { listed_as, .. } => {
                let url = visit.url.to_string();
                self.requested += 1;
                self.observer.progress(
                    self.requested as f64,
                    Some(self.total),
                    &format!("not searched again {url}: same page as {listed_as}"),
                );
                same_as = Some(listed_as.to_string());
                (url, None)
            }
            Outcome::OffOrigin { hop } => {
                let url = visit.url.to_string();
                self.requested += 1;
                let why = not_followed(hop.as_str());
                self.observer.progress(
                    self.requested as f64,
                    Some(self.total),
                    &format!("not searched {url}: {why}"),
                );
                (url, Some(why))
            }
            Outcome::Skipped(error) => (visit.url.to_string(), Some(error.to_string())),
        };
        self.grepped.pages.push(Visited {
            url,
            not_searched,
            same_as,
        });
        if self.halt.is_some() || self.matched >= self.max_results {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

/// Why a page's search stopped before its last line.
#[derive(Debug)]
enum Halt {
    /// The call's `total-timeout` ran out.
    Deadline,
    /// The call was cancelled, or the pattern was too costly to match.
    Failed(Error),
}

/// How a page's search ended.
#[derive(Debug)]
enum PageEnd {
    /// Every line was searched.
    Done,
    /// The page had more matching lines than there was room for.
    More,
    /// The search stopped short.
    Halted(Halt),
}

/// What one page's search may show: at most `room` matching lines, each with
/// `context` lines before and after.
#[derive(Debug, Clone, Copy)]
struct Shown {
    room: usize,
    context: usize,
}

/// The lines one page's search shows, how many of them matched, and how it ended.
struct PageSearch {
    matches: Vec<Found>,
    matched: usize,
    end: PageEnd,
}

/// Searches `text`, the page fetched as `url`, for at most `shown.room` matching lines
/// with `shown.context` lines around each, off the async threads
/// ([`mcp_web_core::work`]) within `call` (its deadline and cancellation read between
/// lines). Each line names the URL as asked for, whose `web_fetch` answer has exactly
/// these lines (a redirected page's `Retrieved from` line included).
async fn search(
    url: &str,
    text: Arc<PageText>,
    pattern: &Pattern,
    shown: Shown,
    call: &Allowance,
) -> PageSearch {
    let url = url.to_owned();
    let pattern = pattern.clone();
    let budget = Budget::new(call.std_deadline(), call.cancellation().clone());
    let size = text.lines().iter().map(String::len).sum();
    let task = mcp_web_core::work::run(size, move || {
        let lines = text.lines();
        let numbered = lines
            .iter()
            .enumerate()
            .map(|(i, line)| (i + 1, line.as_str()));
        let mut matched = Vec::new();
        let mut end = PageEnd::Done;
        for found in pattern.search(numbered, &budget) {
            match found {
                Ok(_) if matched.len() >= shown.room => {
                    end = PageEnd::More;
                    break;
                }
                Ok(found) => matched.push(found),
                Err(stop) => {
                    end = PageEnd::Halted(match stop {
                        SearchStop::Deadline => Halt::Deadline,
                        SearchStop::Cancelled => Halt::Failed(Error::Cancelled),
                        SearchStop::TooCostly { line } => {
                            Halt::Failed(Error::Pattern(PatternCost {
                                url: url.clone(),
                                pattern: quoted_pattern(&pattern),
                                line,
                            }))
                        }
                    });
                    break;
                }
            }
        }
        let count = matched.len();
        let found = |line: usize, text: String, cut: bool, context: bool| Found {
            url: url.clone(),
            line,
            text,
            cut,
            context,
        };
        let matches = if shown.context == 0 {
            matched
                .into_iter()
                .map(|m| found(m.line, m.text, m.cut, false))
                .collect()
        } else {
            let numbers: Vec<usize> = matched.iter().map(|m| m.line).collect();
            let mut matched = matched.into_iter().peekable();
            let mut out = Vec::new();
            for line in grep::context_runs(&numbers, shown.context, lines.len())
                .into_iter()
                .flatten()
            {
                match matched.next_if(|m| m.line == line) {
                    Some(m) => out.push(found(m.line, m.text, m.cut, false)),
                    None => {
                        let Some(shown) = lines.get(line - 1) else {
                            continue;
                        };
                        let (text, cut) = grep::context_text(shown);
                        out.push(found(line, text, cut, true));
                    }
                }
            }
            out
        };
        PageSearch {
            matches,
            matched: count,
            end,
        }
    });
    let stopped = |halt| PageSearch {
        matches: Vec::new(),
        matched: 0,
        end: PageEnd::Halted(halt),
    };
    // The search reads the deadline and cancellation itself; these end a wait for its
    // turn (a large page's).
    tokio::select! {
        biased;
        () = call.cancellation().cancelled() => stopped(Halt::Failed(Error::Cancelled)),
        () = tokio::time::sleep_until(call.deadline()) => stopped(Halt::Deadline),
        searched = task => searched.unwrap_or_else(|| stopped(Halt::Failed(Error::Cancelled))),
    }
}

/// `pattern` as a message quotes it, cut to about 100 characters.
fn quoted_pattern(pattern: &Pattern) -> String {
    let quoted = pattern.to_string();
    if quoted.chars().count() <= 100 {
        return quoted;
    }
    let mut cut: String = quoted.chars().take(100).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grepped(matches: usize, pages: &[Option<&str>], stopped: Option<Stop>) -> Grepped {
        Grepped {
            start: "https://example.com/".into(),
            pattern: "\"x\"".into(),
            depth: 1,
            context: 0,
            matches: (1..=matches)
                .map(|line| Found {
                    url: "https://example.com/".into(),
                    line,
                    text: "x".into(),
                    cut: false,
                    context: false,
                })
                .collect(),
            pages: pages
                .iter()
                .enumerate()
                .map(|(i, why)| Visited {
                    url: format!("https://example.com/{i}"),
                    not_searched: why.map(str::to_owned),
                    same_as: None,
                })
                .collect(),
            stopped,
        }
    }

    #[test]
    fn the_deadline_notice_names_total_timeout_and_the_pages_visited() {
        let g = grepped(
            1,
            &[None, None],
            Some(Stop::Deadline {
                budget: Duration::from_millis(1500),
                fetched: 2,
            }),
        );
        assert_eq!(
            g.render(),
            "https://example.com/:1:x\n\n[stopped after 2 pages: total-timeout of 1.5 s \
             ran out; raise total-timeout to go further]"
        );
    }

    #[test]
    fn no_match_lists_the_pages_searched_and_those_that_could_not_be() {
        let g = grepped(0, &[None, Some("HTTP 404"), None], Some(Stop::MaxPages(3)));
        assert_eq!(
            g.render(),
            "No line matched \"x\" in 2 pages from https://example.com/ (depth 1).\n\n\
             https://example.com/0\nhttps://example.com/2\n\n\
             Not searched:\nhttps://example.com/1  HTTP 404\n\n\
             [stopped after 3 pages; raise max-pages to go further]"
        );
        let one = grepped(0, &[None], None);
        assert!(
            one.render().contains(" in 1 page from "),
            "{}",
            one.render()
        );
    }

    #[test]
    fn an_alias_is_listed_as_the_page_it_was_searched_under_and_counts_once() {
        let mut g = grepped(0, &[None, None], Some(Stop::MaxResults(1)));
        g.pages[1].same_as = Some("https://example.com/0".into());
        assert_eq!(
            g.render(),
            "No line matched \"x\" in 1 page from https://example.com/ (depth 1).\n\n\
             https://example.com/0\n\
             https://example.com/1  same page as https://example.com/0\n\n\
             [stopped at 1 matching line; raise max-results to see more]"
        );
        let mut g = grepped(1, &[None, Some("HTTP 404"), None], Some(Stop::MaxPages(1)));
        g.pages[2].same_as = Some("https://example.com/0".into());
        assert_eq!(
            g.notices(),
            [
                "[1 of 2 pages could not be searched (an HTTP error, a refused address or \
                 robots.txt); web_crawl lists each with its reason]",
                "[stopped after 1 page; raise max-pages to go further]"
            ]
        );
    }

    #[test]
    fn a_match_is_one_json_object() {
        let found = Found {
            url: "https://example.com/".into(),
            line: 7,
            text: "…x…".into(),
            cut: true,
            context: false,
        };
        assert_eq!(found.to_line(), "https://example.com/:7:…x…");
        assert_eq!(
            found.to_json(),
            json!({"url": "https://example.com/", "line": 7, "text": "…x…", "cut": true, "context": false})
        );
        let around = Found {
            line: 8,
            text: "y".into(),
            cut: false,
            context: true,
            ..found
        };
        assert_eq!(around.to_line(), "https://example.com/-8-y");
        assert_eq!(around.to_json()["context"], json!(true));
    }

    #[test]
    fn with_context_groups_apart_are_separated_by_two_dashes_even_across_pages() {
        let line = |url: &str, line: usize, context: bool| Found {
            url: url.into(),
            line,
            text: format!("t{line}"),
            cut: false,
            context,
        };
        let (a, b) = ("https://example.com/a", "https://example.com/b");
        let mut g = grepped(0, &[None, None], None);
        g.context = 1;
        g.matches = vec![
            line(a, 1, true),
            line(a, 2, false),
            line(a, 3, true),
            line(a, 5, false),
            line(a, 6, true),
            line(b, 7, true),
            line(b, 8, false),
        ];
        assert_eq!(
            g.render(),
            "https://example.com/a-1-t1\nhttps://example.com/a:2:t2\nhttps://example.com/a-3-t3\n\
             --\nhttps://example.com/a:5:t5\nhttps://example.com/a-6-t6\n\
             --\nhttps://example.com/b-7-t7\nhttps://example.com/b:8:t8"
        );
        // Without context, matches apart are not separated (as grep without -C).
        g.context = 0;
        g.matches.retain(|f| !f.context);
        assert_eq!(
            g.render(),
            "https://example.com/a:2:t2\nhttps://example.com/a:5:t5\nhttps://example.com/b:8:t8"
        );
    }
}
