//! Media types: the one classifier that says what a body is, from its declared
//! `Content-Type` and its first bytes. Pure.
//!
//! `fetch` asks it whether a response is text the tools read (and how to pick its
//! charset); `extract` asks it how to read the text. Both get the same answer because
//! there is one function, [`classify`].
//!
//! ```
//! use mcp_web_core::media::{Kind, classify};
//! assert_eq!(classify("text/html; charset=utf-8", b""), Some(Kind::Html));
//! assert_eq!(classify("text/x-rst", b"Title\n====="), Some(Kind::Text));
//! assert_eq!(classify("", b"  <!doctype html><p>hi"), Some(Kind::Html));
//! assert_eq!(classify("application/pdf", b""), Some(Kind::Pdf));
//! assert_eq!(classify("application/octet-stream", b"%PDF-1.7\n"), Some(Kind::Pdf));
//! assert_eq!(classify("image/png", b"\x89PNG"), None);
//! ```

/// How many leading bytes [`classify`] looks at when it sniffs (JSON is the exception:
/// it is recognised only when the whole body parses).
pub const SNIFF_LEN: usize = 1024;

/// What a readable body is, and so how it is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Kind {
    /// HTML or XHTML: main-content extraction.
    #[default]
    Html,
    /// Plain text, Markdown, CSV, TSV, reStructuredText and any other `text/*`: kept
    /// as it is.
    Text,
    /// JSON (UTF-8 by definition): pretty-printed when it arrived minified.
    Json,
    /// XML, RSS, Atom, SVG: their text, feed items as headings.
    Xml,
    /// PDF: the text layer of its pages, read whole (never cut at `max-bytes`).
    Pdf,
}

impl Kind {
    /// The kind's name, as messages and tests say it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Html => "html",
            Kind::Text => "text",
            Kind::Json => "json",
            Kind::Xml => "xml",
            Kind::Pdf => "pdf",
        }
    }
}

/// The essence of a `Content-Type` value: its `type/subtype`, lowercased, without
/// parameters (`"text/html; charset=utf-8"` → `"text/html"`).
pub fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// What a declared `Content-Type` says on its own, before the body is seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declared {
    /// A type the tools read: the body is this kind.
    Text(Kind),
    /// A type that is not text (images, archives, audio …): the body need not be
    /// read to know the tools cannot use it.
    NotText,
    /// No type, or a generic one (`application/octet-stream`, `text/unknown`,
    /// `unknown/unknown`): only the body can tell.
    Unknown,
}

/// What the declared `content_type` (empty when none was sent) says of a body.
pub fn declared(content_type: &str) -> Declared {
    let essence = essence(content_type);
    let kind = match essence.as_str() {
        "text/html" | "application/xhtml+xml" => Kind::Html,
        "application/json" | "text/json" | "application/ld+json" => Kind::Json,
        "application/xml"
        | "text/xml"
        | "application/rss+xml"
        | "application/atom+xml"
        | "application/rdf+xml"
        | "image/svg+xml" => Kind::Xml,
        "application/pdf" | "application/x-pdf" => Kind::Pdf,
        "" | "application/octet-stream" | "text/unknown" | "unknown/unknown" => {
            return Declared::Unknown;
        }
        e if e.ends_with("+json") => Kind::Json,
        e if e.ends_with("+xml") => Kind::Xml,
        e if e.starts_with("text/") => Kind::Text,
        _ => return Declared::NotText,
    };
    Declared::Text(kind)
}

/// The kind of a body from its declared `content_type` (empty when none was sent) and
/// its bytes (the whole body, or as much as has been read); `None` when the tools
/// cannot read it (images, archives, audio …).
///
/// A declared type decides ([`declared`]). A missing or generic type is sniffed from
/// the body ([`sniff`]).
pub fn classify(content_type: &str, body: &[u8]) -> Option<Kind> {
    match declared(content_type) {
        Declared::Text(kind) => Some(kind),
        Declared::NotText => None,
        Declared::Unknown => sniff(body),
    }
}

/// The kind of a body no useful type was declared for, from its bytes: a body that
/// starts with `%PDF-` is a PDF; a body that opens as HTML (`<!doctype html`, `<html`)
/// is HTML; otherwise a NUL byte in the first [`SNIFF_LEN`] bytes means binary
/// (`None`); otherwise [`sniff_text`] decides.
pub fn sniff(body: &[u8]) -> Option<Kind> {
    if is_pdf(body) {
        return Some(Kind::Pdf);
    }
    let body = body.strip_prefix(b"\xef\xbb\xbf").unwrap_or(body);
    if body.starts_with(b"\xfe\xff") || body.starts_with(b"\xff\xfe") {
        // UTF-16 with its byte order mark: text, whose NULs are half its characters.
        return Some(Kind::Text);
    }
    let head = head(body);
    if head.starts_with(b"<!doctype html") || head.starts_with(b"<html") {
        // Opens as HTML: HTML, even with a stray NUL in it.
        return Some(Kind::Html);
    }
    if body[..body.len().min(SNIFF_LEN)].contains(&0) {
        return None;
    }
    Some(sniff_text(body))
}

/// The kind of a body already known to be text, from its bytes: markup is HTML or XML,
/// a body that parses as JSON is JSON, and anything else is text. (The extractor reads
/// any body it is given; this is how it reads one whose type says nothing.)
pub fn sniff_text(body: &[u8]) -> Kind {
    let body = body.strip_prefix(b"\xef\xbb\xbf").unwrap_or(body);
    let head = head(body);
    let contains = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    if head.starts_with(b"<?xml") {
        if contains(b"<html") || contains(b"<!doctype html") {
            Kind::Html
        } else {
            Kind::Xml
        }
    } else if head.starts_with(b"<rss") || head.starts_with(b"<feed") {
        Kind::Xml
    } else if head.starts_with(b"<") {
        Kind::Html
    } else if (head.starts_with(b"{") || head.starts_with(b"["))
        && serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok()
    {
        Kind::Json
    } else {
        Kind::Text
    }
}

/// Whether a body (or its first bytes) starts as a PDF file does: `%PDF-`.
pub fn is_pdf(body: &[u8]) -> bool {
    body.starts_with(PDF_MAGIC)
}

/// The bytes a PDF file starts with.
pub const PDF_MAGIC: &[u8] = b"%PDF-";

/// The first 512 bytes after leading white space, lowercased.
fn head(body: &[u8]) -> Vec<u8> {
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    body[start..]
        .iter()
        .take(512)
        .map(u8::to_ascii_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_decide() {
        let cases: &[(&str, Option<Kind>)] = &[
            ("text/html; charset=utf-8", Some(Kind::Html)),
            ("TEXT/HTML", Some(Kind::Html)),
            ("application/xhtml+xml", Some(Kind::Html)),
            ("text/plain", Some(Kind::Text)),
            ("text/markdown", Some(Kind::Text)),
            ("text/x-markdown", Some(Kind::Text)),
            ("text/csv", Some(Kind::Text)),
            ("text/tab-separated-values", Some(Kind::Text)),
            ("text/x-rst", Some(Kind::Text)),
            ("text/x-org", Some(Kind::Text)),
            ("text/css", Some(Kind::Text)),
            ("application/json", Some(Kind::Json)),
            ("text/json", Some(Kind::Json)),
            ("application/ld+json", Some(Kind::Json)),
            ("application/vnd.api+json", Some(Kind::Json)),
            ("application/xml", Some(Kind::Xml)),
            ("text/xml", Some(Kind::Xml)),
            ("application/rss+xml", Some(Kind::Xml)),
            ("application/atom+xml", Some(Kind::Xml)),
            ("application/rdf+xml", Some(Kind::Xml)),
            ("image/svg+xml", Some(Kind::Xml)),
            ("image/png", None),
            ("application/pdf", Some(Kind::Pdf)),
            ("application/x-pdf", Some(Kind::Pdf)),
            ("application/zip", None),
            ("video/mp4", None),
            ("audio/mpeg", None),
        ];
        for (content_type, kind) in cases {
            // The declared type wins over what the body looks like.
            assert_eq!(classify(content_type, b"<html>{}"), *kind, "{content_type}");
        }
    }

    #[test]
    fn undeclared_and_generic_types_are_sniffed() {
        for generic in [
            "",
            "application/octet-stream",
            "text/unknown",
            "unknown/unknown",
        ] {
            assert_eq!(
                classify(generic, b"  <!DOCTYPE html><p>x"),
                Some(Kind::Html)
            );
            assert_eq!(classify(generic, b"\x89PNG\r\n\x1a\n\0\0"), None);
        }
        let cases: &[(&[u8], Option<Kind>)] = &[
            (b"hello", Some(Kind::Text)),
            (b"", Some(Kind::Text)),
            (b"<p>para</p>", Some(Kind::Html)),
            (b"<?xml version='1.0'?><feed>", Some(Kind::Xml)),
            (
                b"<?xml version='1.0'?><!DOCTYPE html><html>",
                Some(Kind::Html),
            ),
            (b"<rss version='2.0'>", Some(Kind::Xml)),
            (
                b"<feed xmlns='http://www.w3.org/2005/Atom'>",
                Some(Kind::Xml),
            ),
            (b"[1,2]", Some(Kind::Json)),
            (b" {\"a\": 1}", Some(Kind::Json)),
            (b"[1,2", Some(Kind::Text)),
            (b"\xef\xbb\xbf<html>", Some(Kind::Html)),
            (b"\xff\xfeh\0i\0", Some(Kind::Text)),
            (b"a\0b", None),
            (b"<!DOCTYPE html>\0<p>", Some(Kind::Html)),
            (b"<p>\0", None),
            (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n\0", Some(Kind::Pdf)),
            (b" %PDF-1.4", Some(Kind::Text)),
            (b"%PDF", Some(Kind::Text)),
        ];
        for (body, kind) in cases {
            assert_eq!(sniff(body), *kind, "{:?}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn a_nul_past_the_sniffed_head_is_not_binary() {
        let mut body = vec![b'a'; SNIFF_LEN];
        body.push(0);
        assert_eq!(sniff(&body), Some(Kind::Text));
        body[SNIFF_LEN - 1] = 0;
        assert_eq!(sniff(&body), None);
    }

    #[test]
    fn essence_drops_parameters_and_case() {
        assert_eq!(essence(" Text/HTML ; charset=UTF-8"), "text/html");
        assert_eq!(essence(""), "");
    }
}
