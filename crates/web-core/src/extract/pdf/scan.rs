//! The checks a PDF passes before the PDF reader sees it, on the raw bytes and then on
//! the loaded object graph, so that hostile input is refused with a reason instead of
//! exhausting memory or the stack: how far its streams inflate (counted, never kept),
//! how deep its objects nest, and whether its page tree and its form XObjects loop.

use std::collections::{HashMap, HashSet};
use std::io::Read;

use pdf_extract::{Dictionary, Document, Object, ObjectId};

/// How deep arrays and dictionaries may nest in the file's objects; the reader's parser
/// gives up at this depth too.
pub const MAX_NESTING: usize = 100;

/// How deep form XObjects may draw each other, and how long a page's chain of parents
/// (from which it inherits its resources and media box) may be.
pub const MAX_CHAIN: usize = 32;

/// What the raw bytes of a PDF told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawVerdict {
    /// Nothing wrong found.
    Fine,
    /// The Flate streams inflate, all together, past the bound.
    Inflates,
    /// Objects nest deeper than [`MAX_NESTING`].
    TooDeep,
}

/// Walks the file's syntax once: counts the nesting of arrays and dictionaries outside
/// strings, comments and stream data, and inflates every Flate (zlib) stream into a
/// counter (nothing is kept), stopping once `inflate_limit` bytes came out in all.
pub fn raw(bytes: &[u8], inflate_limit: u64) -> RawVerdict {
    let mut depth = 0usize;
    let mut inflated = 0u64;
    let mut i = 0;
    let n = bytes.len();
    while i < n {
        match bytes[i] {
            b'%' => {
                while i < n && bytes[i] != b'\n' && bytes[i] != b'\r' {
                    i += 1;
                }
            }
            b'(' => i = skip_literal_string(bytes, i),
            b'[' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return RawVerdict::TooDeep;
                }
            }
            b']' => depth = depth.saturating_sub(1),
            b'<' if bytes.get(i + 1) == Some(&b'<') => {
                depth += 1;
                if depth > MAX_NESTING {
                    return RawVerdict::TooDeep;
                }
                i += 1;
            }
            b'>' if bytes.get(i + 1) == Some(&b'>') => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'<' => {
                // A hex string.
                while i < n && bytes[i] != b'>' {
                    i += 1;
                }
            }
            b's' if bytes[i..].starts_with(b"stream") && !is_regular(bytes, i.wrapping_sub(1)) => {
                let mut start = i + b"stream".len();
                if bytes[start..].starts_with(b"\r\n") {
                    start += 2;
                } else if bytes[start..].starts_with(b"\n") || bytes[start..].starts_with(b"\r") {
                    start += 1;
                } else {
                    i += 1;
                    continue;
                }
                // Stream data is not syntax: a stream's dictionary is closed.
                depth = 0;
                inflated = inflated.saturating_add(inflate_count(
                    &bytes[start..],
                    inflate_limit.saturating_sub(inflated),
                ));
                if inflated > inflate_limit {
                    return RawVerdict::Inflates;
                }
                i = find(bytes, start, b"endstream").map_or(n, |at| at + b"endstream".len());
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    RawVerdict::Fine
}

/// Whether the byte at `at` is a regular character (part of a keyword or name).
fn is_regular(bytes: &[u8], at: usize) -> bool {
    bytes
        .get(at)
        .is_some_and(|b| !b.is_ascii_whitespace() && !b"()<>[]{}/%".contains(b) && *b != 0)
}

/// The index just past the literal string opening at `open`, balanced parentheses and
/// backslash escapes considered.
fn skip_literal_string(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The first index of `needle` in `bytes` from `from` on.
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// How many bytes the zlib stream at the start of `data` inflates to, counting no
/// further than one byte past `limit`; 0 when `data` does not start a zlib stream.
fn inflate_count(data: &[u8], limit: u64) -> u64 {
    let zlib_header = data.len() >= 2
        && data[0] & 0x0f == 8
        && (u16::from(data[0]) << 8 | u16::from(data[1])) % 31 == 0;
    if !zlib_header {
        return 0;
    }
    let mut decoder = flate2::read::ZlibDecoder::new(data).take(limit.saturating_add(1));
    let mut sink = [0u8; 16 * 1024];
    let mut total = 0u64;
    loop {
        match decoder.read(&mut sink) {
            Ok(0) | Err(_) => return total,
            Ok(k) => total += k as u64,
        }
    }
}

/// What the loaded object graph told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphVerdict {
    /// Nothing wrong found.
    Fine,
    /// A page's chain of parents loops or is longer than [`MAX_CHAIN`].
    ParentLoop,
    /// Form XObjects draw each other in a circle, or deeper than [`MAX_CHAIN`].
    FormLoop,
}

/// Checks what the reader would follow recursively: each page's `Parent` chain, and
/// which form XObjects draw which (`Do`), so that neither can recurse without end.
pub fn graph(doc: &Document, pages: &[ObjectId]) -> GraphVerdict {
    for &page in pages {
        let mut seen = HashSet::new();
        let mut at = page;
        loop {
            if !seen.insert(at) || seen.len() > MAX_CHAIN {
                return GraphVerdict::ParentLoop;
            }
            let Ok(dict) = doc.get_dictionary(at) else {
                break;
            };
            match dict.get(b"Parent").and_then(Object::as_reference) {
                Ok(parent) => at = parent,
                Err(_) => break,
            }
        }
    }
    if forms_loop(doc) {
        GraphVerdict::FormLoop
    } else {
        GraphVerdict::Fine
    }
}

/// Whether some XObject, through the `Do` operators of its content, draws itself again
/// or draws a chain deeper than [`MAX_CHAIN`]. A name an XObject without resources of
/// its own draws may be any XObject of the file (it inherits its caller's resources),
/// so it counts as an edge to each of them.
fn forms_loop(doc: &Document) -> bool {
    // Every XObject any resource dictionary names, and the names each may resolve.
    let mut all: Vec<ObjectId> = Vec::new();
    let mut by_name: HashMap<Vec<u8>, Vec<ObjectId>> = HashMap::new();
    for object in doc.objects.values() {
        let dict = match object {
            Object::Dictionary(d) => d,
            Object::Stream(s) => &s.dict,
            _ => continue,
        };
        let Some(xobjects) = xobject_dict(doc, dict) else {
            continue;
        };
        for (name, target) in xobjects {
            if let Ok(id) = target.as_reference() {
                all.push(id);
                by_name.entry(name.clone()).or_default().push(id);
            }
        }
    }
    all.sort_unstable();
    all.dedup();
    let mut edges: HashMap<ObjectId, Vec<ObjectId>> = HashMap::new();
    for &id in &all {
        let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) else {
            continue;
        };
        if stream.dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Image") {
            continue;
        }
        let names = drawn_names(&stream.content, stream);
        if names.is_empty() {
            continue;
        }
        let own = resources(doc, &stream.dict).and_then(|r| xobject_dict(doc, r));
        let mut targets = Vec::new();
        for name in names {
            match own {
                Some(own) => {
                    if let Ok(id) = own.get(&name).and_then(Object::as_reference) {
                        targets.push(id);
                    }
                }
                None => targets.extend(by_name.get(&name).into_iter().flatten().copied()),
            }
        }
        edges.insert(id, targets);
    }
    // Depth-first, iteratively: a grey node met again is a circle.
    let mut state: HashMap<ObjectId, u8> = HashMap::new();
    for &root in edges.keys() {
        if state.contains_key(&root) {
            continue;
        }
        let mut stack: Vec<(ObjectId, usize)> = vec![(root, 0)];
        state.insert(root, 1);
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let targets = edges.get(&node).map_or(&[][..], Vec::as_slice);
            if let Some(&target) = targets.get(*next) {
                *next += 1;
                match state.get(&target) {
                    Some(1) => return true,
                    Some(_) => {}
                    None => {
                        if stack.len() >= MAX_CHAIN {
                            return true;
                        }
                        state.insert(target, 1);
                        stack.push((target, 0));
                    }
                }
            } else {
                state.insert(node, 2);
                stack.pop();
            }
        }
    }
    false
}

/// A dictionary's `Resources`, followed through a reference.
fn resources<'a>(doc: &'a Document, dict: &'a Dictionary) -> Option<&'a Dictionary> {
    deref_dict(doc, dict.get(b"Resources").ok()?)
}

/// A resource dictionary's `XObject` dictionary, followed through a reference.
fn xobject_dict<'a>(doc: &'a Document, dict: &'a Dictionary) -> Option<&'a Dictionary> {
    deref_dict(doc, dict.get(b"XObject").ok()?)
}

/// The dictionary an object is or refers to.
fn deref_dict<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Dictionary> {
    match object {
        Object::Dictionary(d) => Some(d),
        Object::Reference(id) => doc.get_dictionary(*id).ok(),
        _ => None,
    }
}

/// The names a content stream draws with `Do` (`/Name Do`), read from its text without
/// parsing it (the stream inflated when it is compressed).
fn drawn_names(raw: &[u8], stream: &pdf_extract::Stream) -> Vec<Vec<u8>> {
    let inflated;
    let content: &[u8] = if stream.filters().is_ok_and(|f| !f.is_empty()) {
        match stream.decompressed_content() {
            Ok(c) => {
                inflated = c;
                &inflated
            }
            Err(_) => return Vec::new(),
        }
    } else {
        raw
    };
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(at) = find(content, i, b"Do") {
        i = at + 2;
        if is_regular(content, at + 2) {
            continue;
        }
        // Back over white space to the name before the operator.
        let mut end = at;
        while end > 0 && content[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        let mut start = end;
        while start > 0 && is_regular(content, start - 1) {
            start -= 1;
        }
        if start > 0 && content[start - 1] == b'/' && start < end {
            names.push(content[start..end].to_vec());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_counts_outside_strings_comments_and_streams() {
        let deep = "[".repeat(MAX_NESTING + 1);
        assert_eq!(raw(deep.as_bytes(), 1 << 20), RawVerdict::TooDeep);
        let shallow = "[".repeat(MAX_NESTING);
        assert_eq!(raw(shallow.as_bytes(), 1 << 20), RawVerdict::Fine);
        let in_string = format!("({}) % {}\n", "[".repeat(500), "[".repeat(500));
        assert_eq!(raw(in_string.as_bytes(), 1 << 20), RawVerdict::Fine);
        let in_stream = format!("<< /Length 5 >>\nstream\n{}\nendstream", "[".repeat(500));
        assert_eq!(raw(in_stream.as_bytes(), 1 << 20), RawVerdict::Fine);
        let dicts = "<<".repeat(MAX_NESTING + 1);
        assert_eq!(raw(dicts.as_bytes(), 1 << 20), RawVerdict::TooDeep);
    }

    #[test]
    fn inflation_is_counted_against_the_bound() {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&vec![b' '; 100_000]).unwrap();
        let data = z.finish().unwrap();
        let mut file = b"1 0 obj << /Filter /FlateDecode >>\nstream\n".to_vec();
        file.extend_from_slice(&data);
        file.extend_from_slice(b"\nendstream\nendobj\n");
        assert_eq!(raw(&file, 100_000), RawVerdict::Fine);
        assert_eq!(raw(&file, 99_999), RawVerdict::Inflates);
        assert_eq!(inflate_count(b"not zlib", 10), 0);
    }
}
