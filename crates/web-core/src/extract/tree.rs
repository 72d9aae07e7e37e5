//! Iterative walks over a parsed document (no recursion, so any depth is safe), element
//! helpers, and the pre-parse pass that flattens markup nested too deep to parse in
//! bounded time.

use std::borrow::Cow;

use dom_query::{Element, NodeData, NodeRef};

/// A step of a depth-first walk.
pub(crate) enum Step<'a> {
    /// Entering a node; the visitor answers whether to descend into its children.
    Enter(NodeRef<'a>),
    /// Leaving a node; `entered` is false when the visitor declined to descend.
    Leave(NodeRef<'a>, bool),
}

/// Walks the subtree of `root` depth first without recursion. The visitor returns, for an
/// `Enter` step, whether to visit the node's children (the value is ignored for `Leave`).
pub(crate) fn walk<'a>(root: NodeRef<'a>, mut visit: impl FnMut(Step<'a>) -> bool) {
    let mut node = root;
    loop {
        if visit(Step::Enter(node)) {
            if let Some(child) = node.first_child() {
                node = child;
                continue;
            }
            visit(Step::Leave(node, true));
        } else {
            visit(Step::Leave(node, false));
        }
        loop {
            if node.id == root.id {
                return;
            }
            if let Some(next) = node.next_sibling() {
                node = next;
                break;
            }
            match node.parent() {
                Some(parent) => {
                    node = parent;
                    visit(Step::Leave(node, true));
                }
                None => return,
            }
        }
    }
}

/// Runs `f` on the node's element data; `None` for non-elements.
pub(crate) fn with_element<R>(node: &NodeRef<'_>, f: impl FnOnce(&Element) -> R) -> Option<R> {
    node.query(|n| match &n.data {
        NodeData::Element(e) => Some(f(e)),
        _ => None,
    })
    .flatten()
}

/// The text of a text node; `None` for other nodes.
pub(crate) fn with_text<R>(node: &NodeRef<'_>, f: impl FnOnce(&str) -> R) -> Option<R> {
    node.query(|n| match &n.data {
        NodeData::Text { contents } => Some(f(contents)),
        _ => None,
    })
    .flatten()
}

/// Characters other than whitespace in a text: what the extractor counts as text's size.
pub(crate) fn visible_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight ASCII bytes at a time; a character at a time elsewhere. Either way `i`
        // stays at the start of a character.
        if let Some(Ok(word)) = bytes.get(i..i + 8).map(<[u8; 8]>::try_from) {
            let word = u64::from_ne_bytes(word);
            if word & HIGHS == 0 {
                n += 8 - ascii_spaces(word);
                i += 8;
                continue;
            }
        }
        let Some(c) = text.get(i..).and_then(|t| t.chars().next()) else {
            break;
        };
        n += usize::from(!c.is_whitespace());
        i += c.len_utf8();
    }
    n
}

/// Each byte's low bit in a word of eight bytes.
const ONES: u64 = 0x0101_0101_0101_0101;
/// Each byte's high bit in a word of eight bytes.
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// How many of a word's eight ASCII bytes are whitespace as `char::is_whitespace` has it:
/// the space, or `\t` to `\r`. Per byte, without carries between bytes (each is below
/// 0x80): a byte is the space when it XOR 0x20 is zero, and in `\t..=\r` when adding
/// 0x80 − 9 sets its high bit and adding 0x80 − 14 does not.
fn ascii_spaces(word: u64) -> usize {
    const LOWS: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let y = word ^ (ONES * 0x20);
    let space = !(((y & LOWS) + LOWS) | y) & HIGHS;
    let from_tab = (word + ONES * (0x80 - 9)) & HIGHS;
    let past_return = (word + ONES * (0x80 - 14)) & HIGHS;
    ((from_tab & !past_return) | space).count_ones() as usize
}

/// An attribute's value.
pub(crate) fn attr<'e>(e: &'e Element, name: &str) -> Option<&'e str> {
    e.attrs
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| &*a.value)
}

/// The greatest element depth under `root` and the number of elements, without recursion.
#[cfg(test)]
pub(crate) fn depth_and_count(root: NodeRef<'_>) -> (usize, usize) {
    let (mut depth, mut max, mut count) = (0usize, 0usize, 0usize);
    walk(root, |step| match step {
        Step::Enter(n) => {
            if n.is_element() {
                depth += 1;
                count += 1;
                max = max.max(depth);
            }
            true
        }
        Step::Leave(n, _) => {
            if n.is_element() {
                depth = depth.saturating_sub(1);
            }
            true
        }
    });
    (max, count)
}

/// Elements that never have content (no end tag).
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "keygen", "basefont", "bgsound", "frame",
];

/// Elements whose content is raw text up to their end tag.
const RAW_TEXT: &[&str] = &[
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
];

/// Elements an opening tag of the same name implicitly closes.
const SELF_CLOSING_SIBLINGS: &[&str] = &[
    "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "rt", "rp", "tbody", "thead",
    "tfoot",
];

/// How many open elements an end tag may search back through to find its start tag.
const END_TAG_SEARCH: usize = 64;

/// Rewrites markup whose (estimated) element nesting exceeds `limit`: start tags beyond the
/// limit are dropped, their text kept. HTML tree construction costs time proportional to the
/// depth for every tag, so unbounded nesting would mean quadratic time. Returns the input
/// unchanged (borrowed) when nothing is deeper than the limit.
pub(crate) fn flatten_deep(html: &str, limit: usize) -> Cow<'_, str> {
    if scan(html, limit, None) {
        let mut out = String::with_capacity(html.len());
        scan(html, limit, Some(&mut out));
        Cow::Owned(out)
    } else {
        Cow::Borrowed(html)
    }
}

/// One pass of the estimating tokenizer. Returns whether the limit was exceeded; when `out`
/// is given, writes the input minus the start tags beyond the limit.
fn scan(html: &str, limit: usize, mut out: Option<&mut String>) -> bool {
    let bytes = html.as_bytes();
    // Open elements by name as the markup writes them, compared ASCII case-insensitively
    // (no lowercased copy per tag).
    let mut stack: Vec<&str> = Vec::new();
    let mut exceeded = false;
    let mut copied = 0usize; // bytes of `html` already written to `out`
    let mut i = 0usize;
    while let Some(off) = memchr_lt(&bytes[i..]) {
        let start = i + off;
        let rest = &bytes[start..];
        if rest.starts_with(b"<!--") {
            i = find(bytes, start + 4, b"-->").map_or(bytes.len(), |e| e + 3);
            continue;
        }
        if rest.len() < 2 {
            break;
        }
        let closing = rest[1] == b'/';
        let name_start = start + if closing { 2 } else { 1 };
        if name_start >= bytes.len() || !bytes[name_start].is_ascii_alphabetic() {
            i = start + 1;
            continue;
        }
        let mut name_end = name_start;
        while name_end < bytes.len()
            && !matches!(
                bytes[name_end],
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>'
            )
        {
            name_end += 1;
        }
        let Some(gt) = memchr_gt(&bytes[name_end..]).map(|o| name_end + o) else {
            break;
        };
        let name = html.get(name_start..name_end).unwrap_or("");
        let end = gt + 1;
        if closing {
            if let Some(pos) = stack
                .iter()
                .rev()
                .take(END_TAG_SEARCH)
                .position(|n| n.eq_ignore_ascii_case(name))
            {
                stack.truncate(stack.len() - pos - 1);
            }
            i = end;
            continue;
        }
        let self_closed = bytes[gt - 1] == b'/';
        let listed = |list: &[&str]| list.iter().any(|l| l.eq_ignore_ascii_case(name));
        if listed(VOID) || self_closed {
            i = end;
            continue;
        }
        if listed(RAW_TEXT) {
            i = find_end_tag(bytes, end, name.as_bytes()).unwrap_or(bytes.len());
            continue;
        }
        if stack.len() < limit
            && listed(SELF_CLOSING_SIBLINGS)
            && stack
                .last()
                .is_some_and(|top| top.eq_ignore_ascii_case(name))
        {
            stack.pop();
        }
        if stack.len() >= limit {
            exceeded = true;
            match out.as_deref_mut() {
                Some(o) => {
                    o.push_str(html.get(copied..start).unwrap_or(""));
                    copied = end;
                }
                None => return true,
            }
        } else {
            stack.push(name);
        }
        i = end;
    }
    if let Some(o) = out {
        o.push_str(html.get(copied..).unwrap_or(""));
    }
    exceeded
}

fn memchr_lt(b: &[u8]) -> Option<usize> {
    find_byte(b, b'<')
}

fn memchr_gt(b: &[u8]) -> Option<usize> {
    find_byte(b, b'>')
}

/// The first position of `byte` in `hay`, looked for eight bytes at a time: a word holds
/// the byte when the word XOR the byte repeated has a zero byte, which the usual
/// subtract-and-mask test tells exactly.
pub(crate) fn find_byte(hay: &[u8], byte: u8) -> Option<usize> {
    let repeated = ONES * u64::from(byte);
    let mut chunks = hay.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let x = u64::from_ne_bytes(word) ^ repeated;
        if x.wrapping_sub(ONES) & !x & HIGHS != 0 {
            return chunk.iter().position(|&c| c == byte).map(|p| offset + p);
        }
        offset += 8;
    }
    hay[offset..]
        .iter()
        .position(|&c| c == byte)
        .map(|p| offset + p)
}

/// The first position at or after `from` where `needle` (not empty) starts in `hay`.
pub(crate) fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut i = from;
    loop {
        let p = i + find_byte(hay.get(i..)?, first)?;
        if hay.get(p + 1..)?.starts_with(rest) {
            return Some(p);
        }
        i = p + 1;
    }
}

/// The index just past `</name ...>` at or after `from`, case-insensitively.
fn find_end_tag(hay: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut i = from;
    loop {
        let p = find(hay, i, b"</")?;
        let after = p + 2;
        if hay
            .get(after..after + name.len())
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
        {
            return Some(memchr_gt(&hay[after..]).map_or(hay.len(), |o| after + o + 1));
        }
        i = after;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_runs_are_found_where_a_plain_search_finds_them() {
        let text = b"ab<c>--><d>\x80\xff<<!-- x -->12345678</scRipt>--!>";
        for start in 0..text.len() {
            for end in start..=text.len() {
                let hay = &text[start..end];
                for byte in [b'<', b'>', b'-', b'x', b'\xff', 0] {
                    let plain = hay.iter().position(|&c| c == byte);
                    assert_eq!(find_byte(hay, byte), plain, "{start}..{end} {byte}");
                }
                for needle in [&b"-->"[..], b"</", b"<", b"--!>", b"zz"] {
                    for from in 0..=hay.len() + 1 {
                        let plain = hay
                            .get(from..)
                            .and_then(|h| h.windows(needle.len()).position(|w| w == needle))
                            .map(|p| from + p);
                        assert_eq!(find(hay, from, needle), plain, "{start}..{end} {from}");
                    }
                }
            }
        }
    }

    #[test]
    fn shallow_markup_is_borrowed_unchanged() {
        let html = "<div><p>a<p>b<ul><li>x<li>y</ul></div><script>if (a<b) {}</script>";
        assert!(matches!(flatten_deep(html, 8), Cow::Borrowed(_)));
    }

    #[test]
    fn deep_markup_loses_tags_beyond_the_limit_and_keeps_text() {
        let html = "<div>a<div>b<div>c<div>d</div></div></div></div>";
        let flat = flatten_deep(html, 2);
        assert_eq!(flat, "<div>a<div>bcd</div></div></div></div>");
    }

    #[test]
    fn visible_characters_are_the_characters_other_than_whitespace() {
        // Every character, alone and between others, counts as `char::is_whitespace` says.
        for c in (0..=char::MAX as u32).filter_map(char::from_u32) {
            let expected = usize::from(!c.is_whitespace());
            assert_eq!(visible_len(&c.to_string()), expected, "{c:?}");
            assert_eq!(visible_len(&format!("a{c}\u{a0}b")), expected + 2, "{c:?}");
        }
        // Every ASCII byte at every place of a text long enough to be read by words.
        for b in 0..0x80u8 {
            let expected = usize::from(!char::from(b).is_whitespace());
            for at in 0..20 {
                let mut text = vec![b'x'; 20];
                text[at] = b;
                let text = String::from_utf8(text).unwrap();
                assert_eq!(visible_len(&text), 19 + expected, "{b} at {at}");
                assert_eq!(
                    visible_len(&format!("é{text}ü")),
                    21 + expected,
                    "{b} at {at}"
                );
            }
        }
        assert_eq!(visible_len(""), 0);
        assert_eq!(
            visible_len(" \t\n\u{b}\u{c}\r\u{85}\u{3000}x  é\u{2009}ü "),
            3
        );
    }

    #[test]
    fn walk_visits_every_node_in_order_without_recursion() {
        let mut html = String::new();
        for _ in 0..5000 {
            html.push_str("<span>");
        }
        html.push('x');
        let doc = dom_query::Document::from(html.as_str());
        let (depth, count) = depth_and_count(doc.root());
        assert!(depth > 5000, "{depth}");
        assert!(count > 5000, "{count}");
    }
}
