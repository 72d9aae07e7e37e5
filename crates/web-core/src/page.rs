//! A fetched page as the text a model reads: numbered lines and the one [`PageText::render`]
//! that makes the `web_fetch` answer.
//!
//! [`PageText::new`] runs the extractor once over a fetched [`Page`] and lays out the lines
//! of the answer: the header (`# Title`, then `Retrieved from <final url>` when a redirect
//! moved the page, then a blank line) and the body (the extracted text, without the
//! unfinished last line of a body the byte cap, the element cap or a deadline cut). Line `n` (1-based) of
//! [`PageText::lines`] is line `n` of what `web_fetch` shows, so anything that numbers
//! lines from here (`web_grep`) agrees with `web_fetch` by construction, also for the
//! lines past the `max-chars` cut that `web_fetch` does not show. A tool call extracts
//! with [`PageText::extract_in`], on a blocking thread within the call's deadline and
//! cancellation, never on the async threads.
//!
//! ```
//! use mcp_web_core::page::PageText;
//! # fn demo(page: &mcp_web_core::fetch::Page) {
//! let text = PageText::new(page);
//! let answer = text.render(40_000, "web_grep"); // exactly what web_fetch answers
//! for (number, line) in text.numbered_body() {
//!     // `number` is the line's number in `answer` (when the cap keeps it).
//! #   let _ = (number, line);
//! }
//! # let _ = answer; }
//! ```

use ::url::Url;

use crate::error::{Deadline, Error, Phase, seconds};
use crate::extract::{BYTES_PER_ELEMENT, BodyKind, Extracted, Flags};
use crate::fetch::{Allowance, Page, Truncation};
use crate::key::ConfigKey;
use crate::url::CheckedUrl;

/// A fetched, extracted page as numbered lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageText {
    /// The page's own title, if it has one.
    title: Option<String>,
    /// The URL that answered, after redirects.
    final_url: CheckedUrl,
    /// Every line of the whole answer, header first; line `n` is `lines[n - 1]`.
    lines: Vec<String>,
    /// How many of `lines` are the header (the blank line after it included).
    header_len: usize,
    /// Why the fetched body stops before the document's end, if it does.
    cut: Option<Truncation>,
    /// Absolute http(s) links of the page, in document order, without duplicates.
    links: Vec<Url>,
    /// How the body was read.
    kind: BodyKind,
    /// What the extractor observed.
    flags: Flags,
}

impl PageText {
    /// Extracts `page` once and lays out its lines.
    pub fn new(page: &Page) -> PageText {
        PageText::from_extracted(page, page.extract())
    }

    /// Extracts `page` once, keeping its first `max_links` links.
    pub(crate) fn keeping(page: &Page, max_links: usize) -> PageText {
        PageText::from_extracted(page, page.extract_keeping(max_links))
    }

    /// Extracts `page` off the async threads ([`crate::work`]: a large page at a lower
    /// priority), within `call`:
    /// the call's cancellation answers [`Error::Cancelled`] and its deadline an
    /// [`Error::Deadline`] at once. Extraction is bounded by the body's size
    /// (`max-bytes`), so a thread left behind finishes soon and its result is dropped.
    pub async fn extract_in(page: Page, call: &Allowance) -> Result<(Page, PageText), Error> {
        PageText::extract_in_then(page, call, usize::MAX, |page, text| (page, text)).await
    }

    /// Extracts `page` as [`PageText::extract_in`] does, keeping its first `max_links`
    /// links, then hands the page and its text to `then` in the same job, off the async
    /// threads: what the caller does not keep is dropped there, before the answer reaches
    /// it.
    pub(crate) async fn extract_in_then<T, F>(
        page: Page,
        call: &Allowance,
        max_links: usize,
        then: F,
    ) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(Page, PageText) -> T + Send + 'static,
    {
        let url = page.final_url.to_string();
        let task = crate::work::run(page.bytes, move || {
            let text = PageText::keeping(&page, max_links);
            then(page, text)
        });
        tokio::select! {
            biased;
            () = call.cancellation().cancelled() => Err(Error::Cancelled),
            () = tokio::time::sleep_until(call.deadline()) => Err(extracting_too_late(url, call)),
            done = task => done.ok_or(Error::Cancelled),
        }
    }

    /// Lays out the lines of `page` from its extraction `extracted`.
    pub fn from_extracted(page: &Page, extracted: Extracted) -> PageText {
        let Extracted {
            title,
            lines: body,
            links,
            kind,
            flags,
            ..
        } = extracted;
        let title = title.map(|t| t.replace(['\r', '\n'], " "));
        let shown_title = title.clone().unwrap_or_else(|| page.final_url.to_string());
        let mut lines = vec![format!("# {shown_title}")];
        if page.redirected() {
            lines.push(format!("Retrieved from {}", page.final_url));
        }
        lines.push(String::new());
        let header_len = lines.len();
        // One entry is one line, whatever an extractor left inside it.
        let mut body: Vec<String> = if body.iter().any(|l| l.contains(['\n', '\r'])) {
            body.iter()
                .flat_map(|l| l.split(['\n', '\r']))
                .map(str::to_owned)
                .collect()
        } else {
            body
        };
        // The element cap cuts the page before the byte cap would.
        let cut = if flags.elements_cut {
            Some(Truncation::Elements {
                limit: page.max_elements,
            })
        } else {
            page.truncated
        };
        if cut.is_some() && body.len() > 1 {
            // The last line of a cut body is unfinished (a body of one line keeps it).
            body.pop();
        }
        // The text ends with its last visible character: no trailing blank lines and
        // no trailing white space on the last line.
        while body.last().is_some_and(|l| l.trim_end().is_empty()) {
            body.pop();
        }
        if let Some(last) = body.last_mut() {
            last.truncate(last.trim_end().len());
        }
        lines.extend(body);
        PageText {
            title,
            final_url: page.final_url.clone(),
            lines,
            header_len,
            cut,
            links,
            kind,
            flags,
        }
    }

    /// The page's own title (`<title>`, `og:title`, the first `h1`; a feed's title), or
    /// `None` when it has none (the `# ` line then shows the URL).
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The URL that answered, after redirects.
    pub fn final_url(&self) -> &CheckedUrl {
        &self.final_url
    }

    /// Every line of the whole answer, before any `max-chars` cut: line `n` (1-based)
    /// is `lines()[n - 1]`.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The header lines: `# Title`, `Retrieved from …` when redirected, and a blank line.
    pub fn header(&self) -> &[String] {
        &self.lines[..self.header_len]
    }

    /// The body lines: the page's text.
    pub fn body(&self) -> &[String] {
        &self.lines[self.header_len..]
    }

    /// The body lines with their 1-based numbers in the answer.
    pub fn numbered_body(&self) -> impl Iterator<Item = (usize, &str)> {
        self.body()
            .iter()
            .enumerate()
            .map(|(i, line)| (self.header_len + i + 1, line.as_str()))
    }

    /// The page's links: absolute http(s), in document order, without duplicates.
    pub fn links(&self) -> &[Url] {
        &self.links
    }

    /// How the body was read (HTML, text, JSON, XML).
    pub fn kind(&self) -> BodyKind {
        self.kind
    }

    /// What the extractor observed (a JavaScript shell, the whole-body fallback …).
    pub fn flags(&self) -> Flags {
        self.flags
    }

    /// The `web_fetch` answer: the header, the body cut head-only to at most
    /// `max_chars` characters (the `max-chars` key) on a line boundary, then — when the
    /// text is a small part of the page's — a blank line and the [`PARTIAL_NOTICE`], and
    /// — when the text stops early — a blank line and a `[truncated: …]` notice naming the
    /// cap and the key that raises it. `search` is how the reader names the search of a whole
    /// page with a pattern (a tool's name, or a command), which the notice points to.
    pub fn render(&self, max_chars: usize, search: &str) -> String {
        let body = self.body().join("\n");
        let mut kept: &str = &body;
        let mut notice = self.cut.map(|cut| fetch_notice(cut, body.chars().count()));
        if body.chars().count() > max_chars {
            kept = cut_to_line(&body, max_chars);
            // When the fetch had cut the page already, both caps are named.
            let before = match self.cut {
                Some(Truncation::ByteCap { limit }) => format!(
                    "; the server's byte cap of {limit} bytes had already cut the page, so raise max-bytes too"
                ),
                Some(Truncation::Deadline { key, limit }) => format!(
                    "; the {key} of {} had already cut the page, so raise {key} too",
                    seconds(limit)
                ),
                Some(Truncation::Elements { limit }) => format!(
                    "; the cap of {limit} elements had already cut the page, so raise max-bytes too"
                ),
                None => String::new(),
            };
            notice = Some(format!(
                "[truncated: kept the first {} characters because the answer cap of {max_chars} characters was reached; {search} searches the whole page; raise max-chars to keep more{before}]",
                kept.chars().count()
            ));
        }
        let mut out = self.header().join("\n");
        out.push('\n');
        out.push_str(kept.trim_end());
        if self.flags.partial {
            out.push_str("\n\n");
            out.push_str(PARTIAL_NOTICE);
        }
        if let Some(notice) = notice {
            out.push_str("\n\n");
            out.push_str(&notice);
        }
        out
    }
}

/// The notice of an answer that holds a small part of the text its page shows
/// ([`Flags::partial`]).
pub const PARTIAL_NOTICE: &str = "[partial: this text is under half of the text the page \
shows; the rest was taken for menus, sidebars, comments, links or another part of the page \
and left out, and may hold more of what you want]";

/// The notice of a body the fetch cut, `kept` characters long.
fn fetch_notice(cut: Truncation, kept: usize) -> String {
    match cut {
        Truncation::ByteCap { limit } => format!(
            "[truncated: kept the first {kept} characters because the server's byte cap of {limit} bytes was reached; the rest of the page was not fetched; raise max-bytes to keep more]"
        ),
        Truncation::Deadline { key, limit } => format!(
            "[truncated: kept the first {kept} characters because the {key} of {} ran out while reading the body; the rest of the page was not fetched; raise {key} to wait longer]",
            seconds(limit)
        ),
        Truncation::Elements { limit } => format!(
            "[truncated: kept the first {kept} characters because the page has more than {limit} elements, the most the server builds for its byte cap (one per {BYTES_PER_ELEMENT} bytes of max-bytes); the rest of the page was not read; raise max-bytes to keep more]"
        ),
    }
}

/// The error of a page whose extraction (or its wait for a turn) met the end of `call`'s
/// `total-timeout`; `url` is the page's final URL.
pub(crate) fn extracting_too_late(url: String, call: &Allowance) -> Error {
    Error::Deadline(Deadline {
        url,
        phase: Phase::Extracting,
        key: ConfigKey::TotalTimeout,
        limit: call.budget(),
    })
}

/// The longest prefix of `text` of at most `max` characters that ends on a line
/// boundary (the first line cut on a character boundary when no whole line fits): the one
/// head-only cut of every answer.
pub fn cut_to_line(text: &str, max: usize) -> &str {
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let prefix = &text[..end];
    if end == text.len() || text[end..].starts_with('\n') {
        return prefix;
    }
    match prefix.rfind('\n') {
        Some(nl) => &prefix[..nl],
        None => prefix,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_on_line_boundaries() {
        assert_eq!(cut_to_line("ab\ncd\nef", 5), "ab\ncd");
        assert_eq!(cut_to_line("ab\ncd\nef", 4), "ab");
        assert_eq!(cut_to_line("abcdef", 3), "abc");
        assert_eq!(cut_to_line("ab\ncd\nef", 100), "ab\ncd\nef");
        assert_eq!(cut_to_line("héllo\nwörld", 8), "héllo");
    }
}
