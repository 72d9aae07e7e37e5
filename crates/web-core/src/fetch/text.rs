//! Media types, and the small text helpers the fetch needs: the title or first line
//! of an error page, and a minimal HTML-to-text used until the extractor is wired in.

/// What a body is, by its media type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// HTML or XHTML: goes to the extractor.
    Html,
    /// Plain text, Markdown, CSV: passes through.
    Text,
    /// JSON (UTF-8 by definition): passes through.
    Json,
    /// XML: passes through.
    Xml,
}

/// Classifies a Content-Type value; `None` for types that are not text (images,
/// archives, PDF …). A missing Content-Type is sniffed by the caller.
pub fn kind_of(media_type: &str) -> Option<Kind> {
    let essence = media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "text/html" | "application/xhtml+xml" => Some(Kind::Html),
        "application/json" | "text/json" | "application/ld+json" => Some(Kind::Json),
        "application/xml" | "text/xml" | "application/rss+xml" | "application/atom+xml" => {
            Some(Kind::Xml)
        }
        "text/plain" | "text/markdown" | "text/x-markdown" | "text/csv" | "" => Some(Kind::Text),
        e if e.ends_with("+json") => Some(Kind::Json),
        e if e.ends_with("+xml") => Some(Kind::Xml),
        _ => None,
    }
}

/// Sniffs a body without a Content-Type: HTML if it opens like HTML, text if it has
/// no NUL byte in its first 1024 bytes, otherwise not text.
pub fn sniff(head: &[u8]) -> Option<Kind> {
    let start = &head[..head.len().min(1024)];
    let trimmed: Vec<u8> = start
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take(15)
        .map(u8::to_ascii_lowercase)
        .collect();
    if trimmed.starts_with(b"<!doctype html")
        || trimmed.starts_with(b"<html")
        || trimmed.starts_with(b"<head")
    {
        Some(Kind::Html)
    } else if start.contains(&0) {
        None
    } else {
        Some(Kind::Text)
    }
}

/// The title of an HTML page, whitespace collapsed, or `None`.
pub fn html_title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let title = collapse(&decode_entities(&html[start..end]));
    (!title.is_empty()).then_some(title)
}

/// A short excerpt of an error page: its title, else its first non-empty text line,
/// cut to 200 characters.
pub fn excerpt(body: &str, kind: Option<Kind>) -> Option<String> {
    let line = match kind {
        Some(Kind::Html) => html_title(body).or_else(|| {
            html_to_text(body)
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_owned)
        }),
        _ => body
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_owned),
    }?;
    let mut cut: String = line.chars().take(200).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    Some(cut)
}

/// The minimal HTML-to-text: drops comments and the contents of `head`, `title`, `script`,
/// `style`, `noscript`, `template`, `svg`, `nav`; block elements and `<br>` end
/// lines; entities are decoded; whitespace inside a line is collapsed and empty lines
/// are squeezed to one. The extractor replaces it.
pub fn html_to_text(html: &str) -> String {
    const SKIP: &[&str] = &[
        "head", "title", "script", "style", "noscript", "template", "svg", "nav",
    ];
    const BLOCK: &[&str] = &[
        "p",
        "div",
        "br",
        "li",
        "ul",
        "ol",
        "tr",
        "table",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "section",
        "article",
        "header",
        "footer",
        "main",
        "aside",
        "pre",
        "blockquote",
        "hr",
        "dt",
        "dd",
        "dl",
        "form",
        "figure",
        "figcaption",
        "body",
        "html",
    ];
    let mut out = String::with_capacity(html.len() / 2);
    let lower = html.to_ascii_lowercase();
    let mut i = 0;
    let mut text_start = 0;
    while let Some(rel) = lower[i..].find('<') {
        let lt = i + rel;
        push_text(&mut out, &html[text_start..lt]);
        let rest = &lower[lt..];
        if rest.starts_with("<!--") {
            i = rest.find("-->").map_or(lower.len(), |e| lt + e + 3);
            text_start = i;
            continue;
        }
        let Some(gt) = rest.find('>') else {
            i = lower.len();
            text_start = i;
            break;
        };
        let tag = &rest[1..gt];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        i = lt + gt + 1;
        if !closing && SKIP.contains(&name.as_str()) && !tag.ends_with('/') {
            let close = format!("</{name}");
            i = lower[i..].find(&close).map_or(lower.len(), |e| {
                let at = i + e;
                lower[at..].find('>').map_or(lower.len(), |g| at + g + 1)
            });
            out.push('\n');
        } else if BLOCK.contains(&name.as_str()) {
            out.push('\n');
        } else if name == "td" || name == "th" {
            out.push(' ');
        }
        text_start = i;
    }
    if text_start < html.len() {
        push_text(&mut out, &html[text_start..]);
    }
    let mut text = String::with_capacity(out.len());
    for line in out.lines().map(str::trim).filter(|l| !l.is_empty()) {
        text.push_str(line);
        text.push('\n');
    }
    text.truncate(text.trim_end().len());
    text
}

/// Appends a run of character data: source whitespace (newlines included) is one
/// space, as a browser lays it out; entities are decoded.
fn push_text(out: &mut String, raw: &str) {
    let mut last_space = out.ends_with([' ', '\n']);
    for c in decode_entities(raw).chars() {
        if c.is_whitespace() && c != '\u{a0}' {
            if !last_space {
                out.push(' ');
                last_space = true;
            }
        } else {
            out.push(c);
            last_space = false;
        }
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Decodes the common named entities and numeric references.
fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let end = after.find(';').filter(|&e| e <= 10);
        let decoded = end.and_then(|e| {
            let name = &after[..e];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                "mdash" => Some('—'),
                "ndash" => Some('–'),
                "hellip" => Some('…'),
                "copy" => Some('©'),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            };
            c.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &after[e + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(kind_of("text/html; charset=utf-8"), Some(Kind::Html));
        assert_eq!(kind_of("application/xhtml+xml"), Some(Kind::Html));
        assert_eq!(kind_of("text/markdown"), Some(Kind::Text));
        assert_eq!(kind_of("text/csv"), Some(Kind::Text));
        assert_eq!(kind_of("application/vnd.api+json"), Some(Kind::Json));
        assert_eq!(kind_of("image/svg+xml"), Some(Kind::Xml));
        for not_text in [
            "image/png",
            "application/pdf",
            "application/zip",
            "application/octet-stream",
            "video/mp4",
        ] {
            assert_eq!(kind_of(not_text), None, "{not_text}");
        }
        assert_eq!(sniff(b"  <!DOCTYPE html><p>x"), Some(Kind::Html));
        assert_eq!(sniff(b"hello"), Some(Kind::Text));
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0"), None);
    }

    #[test]
    fn html_text_drops_markup_scripts_and_navigation() {
        let html = "<html><head><title>T &amp; U</title><style>p{}</style></head><body>\
            <nav><a href=/>Home</a></nav><h1>Heading</h1><p>One &lt;two&gt;\n   three</p>\
            <script>var x = '<p>no</p>';</script><!-- hidden --><ul><li>a</li><li>b&#233;</li></ul></body></html>";
        assert_eq!(html_to_text(html), "Heading\nOne <two> three\na\nbé");
        assert_eq!(html_title(html).as_deref(), Some("T & U"));
        assert_eq!(excerpt(html, Some(Kind::Html)).as_deref(), Some("T & U"));
        assert_eq!(
            excerpt("<p>Not found</p>", Some(Kind::Html)).as_deref(),
            Some("Not found")
        );
        assert_eq!(
            excerpt("\n\n  oops  \nmore", Some(Kind::Text)).as_deref(),
            Some("oops")
        );
    }
}
