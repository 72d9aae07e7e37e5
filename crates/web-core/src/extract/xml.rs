//! XML, RSS and Atom as text: a small scanner (no recursion, only the predefined and numeric
//! entities) writes each element's text as a line; feed and item titles become `#` and `##`
//! lines, and feed links are collected for the crawler.

use std::collections::HashSet;

use ::url::Url;

use super::render::collapse;
use super::{BodyKind, Extracted};

/// Elements that hold one feed item.
const ITEM: &[&str] = &["item", "entry"];
/// Elements whose title is the feed's title.
const FEED: &[&str] = &["channel", "feed"];
/// How many open elements an end tag may search back through to find its start tag.
const END_TAG_SEARCH: usize = 64;

/// Extracts an XML body, keeping its first `max_links` links.
pub(crate) fn extract_xml(body: &str, base: &Url, max_links: usize) -> Extracted {
    let mut x = Xml {
        base,
        max_links,
        stack: Vec::new(),
        text: String::new(),
        lines: Vec::new(),
        title: None,
        links: Vec::new(),
        seen: HashSet::new(),
    };
    x.run(body);
    x.flush_text();
    Extracted {
        title: x.title,
        lines: x.lines,
        links: x.links,
        kind: BodyKind::Xml,
        ..Extracted::default()
    }
}

struct Xml<'b> {
    base: &'b Url,
    max_links: usize,
    stack: Vec<String>,
    text: String,
    lines: Vec<String>,
    title: Option<String>,
    links: Vec<Url>,
    seen: HashSet<String>,
}

impl Xml<'_> {
    fn run(&mut self, s: &str) {
        let mut rest = s;
        while let Some(lt) = rest.find('<') {
            self.text.push_str(&decode(&rest[..lt]));
            rest = &rest[lt..];
            if let Some(after) = rest.strip_prefix("<!--") {
                rest = after.find("-->").map_or("", |e| &after[e + 3..]);
            } else if let Some(after) = rest.strip_prefix("<![CDATA[") {
                let end = after.find("]]>").unwrap_or(after.len());
                self.text.push_str(&after[..end]);
                rest = after.get(end + 3..).unwrap_or("");
            } else if let Some(after) = rest.strip_prefix("<?") {
                rest = after.find("?>").map_or("", |e| &after[e + 2..]);
            } else if let Some(after) = rest.strip_prefix("<!") {
                let end = if after.contains('[') && after.find('[') < after.find('>') {
                    after.find("]>").map(|e| e + 2)
                } else {
                    after.find('>').map(|e| e + 1)
                };
                rest = end.map_or("", |e| &after[e..]);
            } else if let Some(after) = rest.strip_prefix("</") {
                let end = after.find('>').unwrap_or(after.len());
                let name = local_name(&after[..end]);
                self.end(&name);
                rest = after.get(end + 1..).unwrap_or("");
            } else {
                let after = &rest[1..];
                let Some(end) = tag_end(after) else {
                    self.text.push('<');
                    rest = after;
                    continue;
                };
                let tag = &after[..end];
                let self_closing = tag.ends_with('/');
                let tag = tag.trim_end_matches('/');
                let name_len = tag.find(|c: char| c.is_whitespace()).unwrap_or(tag.len());
                let name = local_name(&tag[..name_len]);
                self.start(&name, &tag[name_len..]);
                if self_closing {
                    self.end(&name);
                }
                rest = after.get(end + 1..).unwrap_or("");
            }
        }
        self.text.push_str(&decode(rest));
    }

    fn start(&mut self, name: &str, attrs: &str) {
        self.flush_text();
        if let Some(href) = attr_value(attrs, "href").filter(|_| name == "link") {
            self.add_link(&decode(&href));
        }
        if ITEM.contains(&name) && !self.lines.is_empty() {
            self.lines.push(String::new());
        }
        self.stack.push(name.to_owned());
    }

    fn end(&mut self, name: &str) {
        self.flush_text();
        if let Some(pos) = self
            .stack
            .iter()
            .rev()
            .take(END_TAG_SEARCH)
            .position(|n| n == name)
        {
            let keep = self.stack.len() - pos - 1;
            self.stack.truncate(keep);
        }
    }

    fn flush_text(&mut self) {
        let raw = std::mem::take(&mut self.text);
        let mut text = collapse(&raw);
        if text.contains('<') && text.contains('>') {
            text = collapse(&decode(&strip_tags(&text)));
        }
        if text.is_empty() {
            return;
        }
        let element = self.stack.last().map(String::as_str).unwrap_or("");
        let parent = self
            .stack
            .len()
            .checked_sub(2)
            .and_then(|i| self.stack.get(i))
            .map(String::as_str)
            .unwrap_or("");
        if element == "title" && ITEM.contains(&parent) {
            self.lines.push(format!("## {text}"));
        } else if element == "title" && FEED.contains(&parent) && self.title.is_none() {
            self.title = Some(text.clone());
            self.lines.push(format!("# {text}"));
            self.lines.push(String::new());
        } else {
            if element == "link" && (ITEM.contains(&parent) || FEED.contains(&parent)) {
                self.add_link(&text);
            }
            self.lines.push(text);
        }
    }

    fn add_link(&mut self, href: &str) {
        if self.links.len() >= self.max_links {
            return;
        }
        let Ok(mut url) = self.base.join(href.trim()) else {
            return;
        };
        if !matches!(url.scheme(), "http" | "https") {
            return;
        }
        url.set_fragment(None);
        if self.seen.insert(url.as_str().to_owned()) {
            self.links.push(url);
        }
    }
}

/// The end of a start tag (the index of its `>`), skipping quoted attribute values.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => return Some(i),
            (None, '<') => return None,
            _ => {}
        }
    }
    None
}

/// A tag name without its namespace prefix, lowercased.
fn local_name(raw: &str) -> String {
    let raw = raw.trim();
    raw.rsplit(':').next().unwrap_or(raw).to_ascii_lowercase()
}

/// The value of attribute `name` in a start tag's attribute text.
fn attr_value(attrs: &str, name: &str) -> Option<String> {
    let mut rest = attrs;
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim();
        let key = key.rsplit(char::is_whitespace).next().unwrap_or(key);
        let after = rest[eq + 1..].trim_start();
        let (value, next) = match after.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let body = &after[1..];
                let end = body.find(q).unwrap_or(body.len());
                (&body[..end], body.get(end + 1..).unwrap_or(""))
            }
            _ => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        if local_name(key) == name {
            return Some(value.to_owned());
        }
        rest = next;
    }
    None
}

/// Markup removed from a text (HTML carried inside a feed's description).
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => {
                in_tag = true;
                out.push(' ');
            }
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// The predefined XML entities and numeric character references decoded; anything else is
/// kept as written.
fn decode(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        // An entity is short: look for its `;` within the next few characters (a byte
        // window could end inside a multi-byte character).
        let window = rest.char_indices().nth(12).map_or(rest.len(), |(i, _)| i);
        let Some(semi) = rest[..window].find(';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..semi];
        let decoded = match entity {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some('\u{a0}'),
            e => e
                .strip_prefix("#x")
                .or_else(|| e.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| e.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
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
    fn an_ampersand_before_multibyte_text_is_kept() {
        // Found by the fuzzer: the search for `;` once ended inside a character.
        assert_eq!(decode("A & 日本語の"), "A & 日本語の");
        assert_eq!(
            decode("&\u{fffd}\u{fffd}\u{fffd}\u{fffd}"),
            "&\u{fffd}\u{fffd}\u{fffd}\u{fffd}"
        );
        assert_eq!(decode("&日本語&amp;"), "&日本語&");
    }

    #[test]
    fn entities_and_attributes() {
        assert_eq!(
            decode("a &lt;b&gt; &amp;amp; &#233;&#xE9; &bogus; &"),
            "a <b> &amp; éé &bogus; &"
        );
        assert_eq!(
            attr_value(r#" rel="alternate" href='/x?a=1&amp;b'"#, "href").as_deref(),
            Some("/x?a=1&amp;b")
        );
    }
}
