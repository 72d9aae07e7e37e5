//! Bodies turned into the text a model reads: the title, the text as stable lines with light
//! Markdown structure, the page's links for the crawler, the declared language, and flags.
//!
//! Pure: no I/O, no async. [`extract`] takes a body already decoded to UTF-8, its content
//! type and the final URL, and always answers: it never panics and runs in bounded time on
//! any input (start tags nested too deep are left out of the parse, and trees too deep for the content
//! selector fall back to the whole body).
//!
//! HTML goes through main-content selection (`dom_smoothie`, a Readability port, run on a
//! document from which this module first removes chrome: scripts, hidden elements,
//! navigation, site headers and footers, cookie banners, share bars, comment widgets,
//! "related" lists). When the page marks a main container (`main`, `article`,
//! `itemprop=articleBody`) and the selection kept only part of it, the container's other prose
//! joins the selection (a lead beside the body, an abstract beside the references). What
//! survives is pruned once more of boilerplate inside the content: link lists, teasers,
//! "read also" promotions, bylines, dates, captions and author boxes. When selection keeps under a
//! tenth of a page with much text (under a third, when what the rest adds is paragraphs of
//! prose rather than teasers under their titles), the whole body minus chrome is used
//! instead, so content is never silently lost. Plain text,
//! Markdown and CSV pass through as they are; minified JSON is pretty-printed; XML, RSS and
//! Atom become their text, with feed items as `##` title lines. A PDF is read by the fetch
//! (whole, off the async threads: [`pdf::read`]) into its pages' text under `[page N]`
//! marker lines, which is what this module gets as its body.
//!
//! Headings keep the page's own levels (`h1` is `#`, `h2` is `##`, …), whether the text came
//! from content selection or from the whole-body fallback. The title is the article's own
//! (Readability's, cut to the part of it a heading of the page says), and the text does
//! not repeat it: a body heading equal to the title, and
//! one that is only the site's name, are dropped, since an answer prints the title above
//! the text. Reader comments (a thread, a comment, its form) are never content.

mod clean;
mod html;
mod keyed;
mod meta;
mod parse;
pub mod pdf;
mod prune;
mod render;
mod select;
mod text;
mod title;
mod tokens;
mod tree;
mod vocab;
mod xml;

use ::url::Url;

use crate::media;

pub use parse::{BYTES_PER_ELEMENT, MIN_ELEMENTS, max_elements};

/// The elements a page may build when no byte cap is given ([`extract`], [`extract_as`]):
/// those of `max-bytes`' default, 2 MiB.
pub const DEFAULT_MAX_ELEMENTS: usize = 2 * 1024 * 1024 / BYTES_PER_ELEMENT;

/// What [`extract`] found in a body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    /// The article's title as Readability defines it: JSON-LD `headline`, else `og:title` and
    /// its kin, else the `<title>` without the site name its separators mark off (the one
    /// `h1` when the `<title>` is too short or too long to be the article's); the raw
    /// `<title>`, `og:title` or first `h1` when that finds none (feeds: the feed title).
    pub title: Option<String>,
    /// The text, one entry per line, without line terminators; the same body always gives
    /// the same lines (grep line numbers rely on it).
    pub lines: Vec<String>,
    /// Absolute http(s) links found in the body, in document order, without fragments and
    /// without duplicates.
    pub links: Vec<Url>,
    /// The language the document declares (`<html lang>` or `Content-Language` meta), if any.
    pub lang: Option<String>,
    /// What kind of body this was treated as.
    pub kind: BodyKind,
    /// Observations about the extraction.
    pub flags: Flags,
}

impl Extracted {
    /// The text: the lines joined with `\n` (no trailing newline).
    #[must_use]
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }
}

/// How a body was interpreted: the one media classifier's kind (see [`crate::media`]).
pub use crate::media::Kind as BodyKind;

/// Observations about an extraction, for callers that want to explain the result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    /// The page looks like the shell of a client-side JavaScript application: much markup,
    /// almost no text. The last line of the text then says so.
    pub javascript_shell: bool,
    /// Main-content selection kept too little (or could not run), so the text is the whole
    /// body minus chrome.
    pub whole_body: bool,
    /// The markup nested deeper than the extractor follows; the excess tags were dropped and
    /// their text kept.
    pub flattened: bool,
    /// JSON that arrived minified and was pretty-printed.
    pub reformatted: bool,
    /// The text holds a small part of the text the page shows (under a tenth of its visible
    /// characters, hidden elements aside, or under half of what is left of them once menus
    /// and boilerplate are filtered out): the rest was taken for chrome (menus, sidebars,
    /// reader comments, related links) or not chosen, and may hold what the reader wants.
    pub partial: bool,
    /// The page has more elements than its byte cap lets the extractor build (see
    /// [`max_elements`]): its markup was read up to the last one, and the text stops there.
    pub elements_cut: bool,
}

/// The line appended to the text of a page that looks like a JavaScript application shell.
pub const JAVASCRIPT_SHELL_NOTICE: &str = "[This page has almost no text in its HTML: it is \
probably built in the browser by JavaScript, and these tools do not run JavaScript (they \
fetch the static HTML only). Try a server-rendered version of the page, the site's API, an \
RSS feed, or another source.]";

/// Extracts the readable text, title, links and language from a decoded body.
///
/// `content_type` is the response's `Content-Type` value (parameters such as `charset` are
/// ignored; an empty or generic type is sniffed from the body). `base` is the final URL,
/// against which relative links are resolved (a `<base href>` in the page takes precedence).
///
/// ```
/// use mcp_web_core::extract::extract;
/// let base = url::Url::parse("https://example.com/a/").unwrap();
/// let page = "<title>Notes on growing tomatoes indoors | Example</title>\
///             <h1>Notes on growing tomatoes indoors</h1><p>World <a href='b'>link</a></p>";
/// let out = extract(page, "text/html; charset=utf-8", &base);
/// // The heading that repeats the title is not printed again below a `# Title` line.
/// assert_eq!(out.title.as_deref(), Some("Notes on growing tomatoes indoors"));
/// assert_eq!(out.text(), "World link");
/// assert_eq!(out.links[0].as_str(), "https://example.com/a/b");
/// ```
#[must_use]
pub fn extract(body: &str, content_type: &str, base: &Url) -> Extracted {
    let kind = media::classify(content_type, body.as_bytes())
        .unwrap_or_else(|| media::sniff_text(body.as_bytes()));
    extract_as(body, kind, base)
}

/// Extracts a body whose kind is already known (a fetched page carries the kind the
/// media classifier gave it, so it is not classified twice). An HTML page builds at most
/// [`DEFAULT_MAX_ELEMENTS`] elements.
#[must_use]
pub fn extract_as(body: &str, kind: BodyKind, base: &Url) -> Extracted {
    extract_keeping(body, kind, base, usize::MAX, DEFAULT_MAX_ELEMENTS)
}

/// Extracts as [`extract_as`] does, keeping the first `max_links` links of the page (a
/// walk reads no more of them, and a page may name hundreds of thousands) and building at
/// most `max_elements` elements of an HTML page (see [`max_elements`]).
pub(crate) fn extract_keeping(
    body: &str,
    kind: BodyKind,
    base: &Url,
    max_links: usize,
    max_elements: usize,
) -> Extracted {
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    match kind {
        BodyKind::Html => html::extract_html(body, base, max_links, max_elements),
        BodyKind::Text => text::extract_text(body),
        BodyKind::Json => text::extract_json(body),
        BodyKind::Xml => xml::extract_xml(body, base, max_links),
        BodyKind::Pdf => pdf::extract_read(body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(body: &str, content_type: &str) -> BodyKind {
        extract(
            body,
            content_type,
            &Url::parse("https://example.com/").unwrap(),
        )
        .kind
    }

    #[test]
    fn kinds_follow_the_media_type_then_the_body() {
        assert_eq!(kind("x", "text/html; charset=utf-8"), BodyKind::Html);
        assert_eq!(kind("<p>", "text/plain"), BodyKind::Text);
        assert_eq!(kind("{}", "application/vnd.api+json"), BodyKind::Json);
        assert_eq!(kind("<rss/>", "application/rss+xml"), BodyKind::Xml);
        assert_eq!(kind("  <!doctype html><p>", ""), BodyKind::Html);
        assert_eq!(kind("<?xml version='1.0'?><feed>", ""), BodyKind::Xml);
        assert_eq!(kind("[1,2]", "application/octet-stream"), BodyKind::Json);
        assert_eq!(kind("[1,2", ""), BodyKind::Text);
        assert_eq!(kind("a,b\n1,2", "text/csv"), BodyKind::Text);
        // A type that is not text is still read: sniffed, never refused.
        assert_eq!(kind("<p>hi", "application/x-unknown"), BodyKind::Html);
        assert_eq!(kind("a\0b", "application/x-unknown"), BodyKind::Text);
        assert_eq!(kind("<p>\0", ""), BodyKind::Html);
    }
}
