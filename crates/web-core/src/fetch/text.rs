//! Media types: which bodies are text the tools read, and sniffing an undeclared one.

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
}
