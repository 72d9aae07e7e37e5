//! The checks a PDF passes before the PDF reader sees it, on the raw bytes and then on
//! the loaded object graph, so that hostile input is refused with a reason instead of
//! exhausting memory or the stack: how far its streams decode (Flate, LZW and ASCII85,
//! the filters the reader decodes, alone or chained: counted, the last stage never kept),
//! how deep its objects nest, and whether its page tree and its form XObjects loop.

use std::collections::{HashMap, HashSet};

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
    /// The compressed streams decode, all together, past the bound.
    Inflates,
    /// Objects nest deeper than [`MAX_NESTING`].
    TooDeep,
}

/// Walks the file's syntax once: counts the nesting of arrays and dictionaries outside
/// strings, comments and stream data, and decodes every stream through the filters its
/// dictionary names into a counter, stopping once `inflate_limit` bytes came out in all
/// (each stage of a chain counts: the reader keeps each).
pub fn raw(bytes: &[u8], inflate_limit: u64) -> RawVerdict {
    let mut depth = 0usize;
    let mut inflated = 0u64;
    // Where the dictionaries open (`<<`) that are not closed yet, and the last one
    // closed, with the index of its `>>`: a stream's dictionary is the one closed just
    // before its `stream` keyword.
    let mut opens: Vec<usize> = Vec::new();
    let mut last_dict: Option<(usize, usize)> = None;
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
                opens.push(i);
                i += 1;
            }
            b'>' if bytes.get(i + 1) == Some(&b'>') => {
                depth = depth.saturating_sub(1);
                if let Some(open) = opens.pop() {
                    last_dict = Some((open, i));
                }
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
                opens.clear();
                let end = find(bytes, start, b"endstream");
                let dict = last_dict
                    .filter(|&(_, close)| bytes[close + 2..i].iter().all(u8::is_ascii_whitespace))
                    .map(|(open, close)| &bytes[open..close + 2]);
                let data = &bytes[start..end.unwrap_or(n)];
                // A stream whose dictionary this walk did not find is counted as Flate
                // when its data opens as zlib, as the reader may yet find it compressed.
                let filters = match dict {
                    Some(dict) => stream_filters(dict),
                    None if zlib_header(data) => vec![Filter::Flate],
                    None => Vec::new(),
                };
                if !filters.is_empty() {
                    inflated = inflated.saturating_add(decoded_size(
                        data,
                        &filters,
                        inflate_limit.saturating_sub(inflated),
                    ));
                    if inflated > inflate_limit {
                        return RawVerdict::Inflates;
                    }
                }
                i = end.map_or(n, |at| at + b"endstream".len());
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

/// A filter the reader decodes (the others it refuses, so they cannot inflate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filter {
    /// `FlateDecode`: zlib, or raw deflate when the zlib header is wrong.
    Flate,
    /// `LZWDecode`, with the code width switching one code early (`EarlyChange` 1) or not.
    Lzw {
        /// Whether the width switches one code early, as by default.
        early_change: bool,
    },
    /// `ASCII85Decode`.
    Ascii85,
}

/// The filters a stream's dictionary (`<< … >>`, whole) names at its top level, in
/// decoding order, up to the first one the reader does not decode (it stops there). An
/// indirect `/Filter` the reader does not follow, so it names none.
fn stream_filters(dict: &[u8]) -> Vec<Filter> {
    let Some(value) = top_level_value(dict, b"/Filter") else {
        return Vec::new();
    };
    let early_change = top_level_value(dict, b"/DecodeParms")
        .and_then(|parms| top_level_value(parms, b"/EarlyChange"))
        .is_none_or(|v| !v.starts_with(b"0") || v.get(1).is_some_and(u8::is_ascii_digit));
    let names: Vec<&[u8]> = match value.first() {
        Some(b'/') => vec![name_at(value)],
        Some(b'[') => {
            let mut names = Vec::new();
            let mut j = 1;
            while j < value.len() && value[j] != b']' {
                if value[j] == b'/' {
                    let name = name_at(&value[j..]);
                    j += name.len();
                    names.push(name);
                } else if value[j].is_ascii_whitespace() {
                    j += 1;
                } else {
                    // Not a name: the reader refuses the whole array.
                    return Vec::new();
                }
            }
            names
        }
        _ => return Vec::new(),
    };
    names
        .into_iter()
        .map(|name| match name {
            b"/FlateDecode" => Some(Filter::Flate),
            b"/LZWDecode" => Some(Filter::Lzw { early_change }),
            b"/ASCII85Decode" => Some(Filter::Ascii85),
            _ => None,
        })
        .take_while(Option::is_some)
        .flatten()
        .collect()
}

/// Whether `data` opens with a zlib header.
fn zlib_header(data: &[u8]) -> bool {
    data.len() >= 2
        && data[0] & 0x0f == 8
        && (u16::from(data[0]) << 8 | u16::from(data[1])) % 31 == 0
}

/// The name (`/Name`, slash included) at the start of `text`.
fn name_at(text: &[u8]) -> &[u8] {
    let len = 1 + text[1..]
        .iter()
        .take_while(|&&b| is_regular(&[b], 0))
        .count();
    &text[..len]
}

/// What follows `key` in the dictionary `dict` (`<< … >>`) at its own top level (not in a
/// nested dictionary, array or string), white space skipped; for a dictionary value, the
/// whole `<< … >>`.
fn top_level_value<'a>(dict: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < dict.len() {
        match dict[i] {
            b'(' => i = skip_literal_string(dict, i),
            b'<' if dict.get(i + 1) == Some(&b'<') => {
                depth += 1;
                i += 1;
            }
            b'>' if dict.get(i + 1) == Some(&b'>') => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'[' => depth += 1,
            b']' => depth = depth.saturating_sub(1),
            b'/' if depth == 1
                && dict[i..].starts_with(key)
                && !is_regular(dict, i + key.len()) =>
            {
                let mut at = i + key.len();
                while at < dict.len() && dict[at].is_ascii_whitespace() {
                    at += 1;
                }
                let rest = &dict[at..];
                if rest.starts_with(b"<<") {
                    // The nested dictionary, to its matching `>>`.
                    let mut nest = 0usize;
                    let mut j = 0;
                    while j + 1 < rest.len() {
                        if rest[j..].starts_with(b"<<") {
                            nest += 1;
                            j += 1;
                        } else if rest[j..].starts_with(b">>") {
                            nest -= 1;
                            if nest == 0 {
                                return Some(&rest[..j + 2]);
                            }
                            j += 1;
                        }
                        j += 1;
                    }
                    return None;
                }
                return Some(rest);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A sink that counts what is written to it, keeps it only when asked, and fails once
/// more than `cap` bytes came.
struct Capped {
    /// What came, when kept.
    kept: Option<Vec<u8>>,
    /// How many bytes came.
    count: u64,
    /// How many may come.
    cap: u64,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.count = self.count.saturating_add(buf.len() as u64);
        if self.count > self.cap {
            return Err(std::io::Error::other("past the bound"));
        }
        if let Some(kept) = &mut self.kept {
            kept.extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How many bytes `data` decodes to through `filters`, every stage counted (the reader
/// keeps each), stopping once past `limit`; a stage the data does not
/// decode through ends the count, as it ends the reader's decoding.
fn decoded_size(data: &[u8], filters: &[Filter], limit: u64) -> u64 {
    let mut total = 0u64;
    let mut input = std::borrow::Cow::Borrowed(data);
    for (k, filter) in filters.iter().enumerate() {
        let last = k + 1 == filters.len();
        let mut sink = Capped {
            kept: (!last).then(Vec::new),
            count: 0,
            cap: limit.saturating_sub(total),
        };
        match filter {
            Filter::Flate => {
                let zlib =
                    std::io::copy(&mut flate2::read::ZlibDecoder::new(&input[..]), &mut sink);
                if zlib.is_err() && sink.count == 0 && input.len() > 2 {
                    // The reader retries as raw deflate past a bad zlib header.
                    let _ = std::io::copy(
                        &mut flate2::read::DeflateDecoder::new(&input[2..]),
                        &mut sink,
                    );
                }
            }
            Filter::Lzw { early_change } => {
                let mut decoder = if *early_change {
                    weezl::decode::Decoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8)
                } else {
                    weezl::decode::Decoder::new(weezl::BitOrder::Msb, 8)
                };
                let _ = decoder.into_stream(&mut sink).decode_all(&input[..]);
            }
            Filter::Ascii85 => {
                // At most five bytes of output for each byte of input (`z`): decoded whole,
                // by the reader's own decoder.
                let mut dict = pdf_extract::Dictionary::new();
                dict.set("Filter", Object::Name(b"ASCII85Decode".to_vec()));
                let stream = pdf_extract::Stream::new(dict, input.to_vec());
                if let Ok(out) = stream.decompressed_content() {
                    let _ = std::io::Write::write_all(&mut sink, &out);
                }
            }
        }
        total = total.saturating_add(sink.count);
        if total > limit {
            return total;
        }
        match sink.kept {
            Some(kept) if !kept.is_empty() => input = std::borrow::Cow::Owned(kept),
            _ => break,
        }
    }
    total
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
    let by_name = xobjects_by_name(doc);
    let mut all: Vec<ObjectId> = by_name.values().flatten().copied().collect();
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
    if stream.filters().is_ok_and(|f| !f.is_empty()) {
        match stream.decompressed_content() {
            Ok(c) => names_drawn_in(&c),
            Err(_) => Vec::new(),
        }
    } else {
        names_drawn_in(raw)
    }
}

/// The names `content` draws with `Do`, in order, each as often as it is drawn.
fn names_drawn_in(content: &[u8]) -> Vec<Vec<u8>> {
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

/// How many bytes of content the reader goes through for `pages`: each stream a page's
/// `/Contents` names at its decoded size, as often as it is named, and each XObject a
/// content draws (`Do`) at its decoded size plus what it draws in turn, as often as it is
/// drawn (the reader decodes a stream again each time). Counting stops past `limit`.
/// Expects drawings that do not loop ([`graph`] said so).
pub fn drawn_content(doc: &Document, pages: &[ObjectId], limit: u64) -> u64 {
    let mut drawn = Drawn {
        doc,
        limit,
        by_name: xobjects_by_name(doc),
        streams: HashMap::new(),
        xobjects: HashMap::new(),
    };
    let mut total = 0u64;
    for &page in pages {
        let xobjects = page_resources(doc, page).and_then(|r| xobject_dict(doc, r));
        for id in doc.get_page_contents(page) {
            let (size, names) = drawn.stream(id);
            total = total.saturating_add(size);
            for name in names.iter() {
                let target = xobjects.and_then(|x| x.get(name).and_then(Object::as_reference).ok());
                total = total.saturating_add(drawn.named(target, name, 0));
                if total > limit {
                    return total;
                }
            }
            if total > limit {
                return total;
            }
        }
    }
    total
}

/// The names a content draws, in order (shared: a stream is decoded once).
type Names = std::rc::Rc<Vec<Vec<u8>>>;

/// What [`drawn_content`] learnt of the document's streams, each decoded once.
struct Drawn<'a> {
    doc: &'a Document,
    limit: u64,
    /// Every XObject each name may stand for.
    by_name: HashMap<Vec<u8>, Vec<ObjectId>>,
    /// Each stream met: its decoded size and the names it draws.
    streams: HashMap<ObjectId, (u64, Names)>,
    /// Each XObject met: what drawing it once costs, what it draws included.
    xobjects: HashMap<ObjectId, u64>,
}

impl Drawn<'_> {
    /// A stream's decoded size (its raw size when it does not decode, as the reader then
    /// takes it raw) and the names its content draws (none for an image).
    fn stream(&mut self, id: ObjectId) -> (u64, Names) {
        if let Some((size, names)) = self.streams.get(&id) {
            return (*size, std::rc::Rc::clone(names));
        }
        let (size, names) = match self.doc.get_object(id).and_then(Object::as_stream) {
            Ok(stream) => {
                let image =
                    stream.dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Image");
                let decoded = if stream.filters().is_ok_and(|f| !f.is_empty()) {
                    stream.decompressed_content().ok()
                } else {
                    None
                };
                let content = decoded.as_deref().unwrap_or(&stream.content);
                let names = if image {
                    Vec::new()
                } else {
                    names_drawn_in(content)
                };
                (content.len() as u64, names)
            }
            Err(_) => (0, Vec::new()),
        };
        let names = std::rc::Rc::new(names);
        self.streams.insert(id, (size, std::rc::Rc::clone(&names)));
        (size, names)
    }

    /// What drawing `name` once costs: the XObject `target` the caller's resources give
    /// for it, else the costliest XObject of that name anywhere (a drawing without
    /// resources of its own inherits its caller's).
    fn named(&mut self, target: Option<ObjectId>, name: &[u8], depth: usize) -> u64 {
        match target {
            Some(id) => self.xobject(id, depth),
            None => {
                let candidates = self.by_name.get(name).cloned().unwrap_or_default();
                candidates
                    .into_iter()
                    .map(|id| self.xobject(id, depth))
                    .max()
                    .unwrap_or(0)
            }
        }
    }

    /// What drawing the XObject `id` once costs: its decoded size and, for a form, what
    /// its own content draws.
    fn xobject(&mut self, id: ObjectId, depth: usize) -> u64 {
        if let Some(&cost) = self.xobjects.get(&id) {
            return cost;
        }
        if depth > MAX_CHAIN {
            return self.limit.saturating_add(1);
        }
        let (mut cost, names) = self.stream(id);
        let own = self
            .doc
            .get_object(id)
            .and_then(Object::as_stream)
            .ok()
            .and_then(|s| resources(self.doc, &s.dict))
            .and_then(|r| xobject_dict(self.doc, r));
        for name in names.iter() {
            let target = own.and_then(|x| x.get(name).and_then(Object::as_reference).ok());
            cost = cost.saturating_add(self.named(target, name, depth + 1));
            if cost > self.limit {
                break;
            }
        }
        self.xobjects.insert(id, cost);
        cost
    }
}

/// Every XObject any resource dictionary of the document names, by that name.
fn xobjects_by_name(doc: &Document) -> HashMap<Vec<u8>, Vec<ObjectId>> {
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
                by_name.entry(name.clone()).or_default().push(id);
            }
        }
    }
    for ids in by_name.values_mut() {
        ids.sort_unstable();
        ids.dedup();
    }
    by_name
}

/// A page's resources, inherited from the nearest ancestor that has them.
fn page_resources(doc: &Document, page: ObjectId) -> Option<&Dictionary> {
    let mut at = page;
    for _ in 0..=MAX_CHAIN {
        let dict = doc.get_dictionary(at).ok()?;
        if let Some(r) = resources(doc, dict) {
            return Some(r);
        }
        at = dict.get(b"Parent").and_then(Object::as_reference).ok()?;
    }
    None
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
        assert_eq!(decoded_size(b"not zlib", &[Filter::Flate], 10), 0);
    }

    #[test]
    fn the_filters_are_read_from_the_stream_dictionarys_top_level() {
        assert_eq!(
            stream_filters(b"<< /Length 5 /Filter /FlateDecode >>"),
            [Filter::Flate]
        );
        assert_eq!(
            stream_filters(
                b"<< /Filter [/ASCII85Decode /LZWDecode] /DecodeParms << /EarlyChange 0 >> >>"
            ),
            [
                Filter::Ascii85,
                Filter::Lzw {
                    early_change: false
                }
            ]
        );
        assert_eq!(
            stream_filters(b"<< /Filter /LZWDecode /DecodeParms << /EarlyChange 1 >> >>"),
            [Filter::Lzw { early_change: true }]
        );
        // A nested /Filter is not the stream's; a string holding one is not either.
        assert_eq!(
            stream_filters(b"<< /X << /Filter /FlateDecode >> /T (/Filter /FlateDecode) >>"),
            []
        );
        // The reader stops at a filter it does not decode, and follows no reference.
        assert_eq!(
            stream_filters(b"<< /Filter [/FlateDecode /RunLengthDecode /FlateDecode] >>"),
            [Filter::Flate]
        );
        assert_eq!(stream_filters(b"<< /Filter 7 0 R >>"), []);
        assert_eq!(stream_filters(b"<< /Filters /FlateDecode >>"), []);
    }

    #[test]
    fn every_stage_of_a_chain_counts() {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&[b'a'; 10_000]).unwrap();
        let inner = z.finish().unwrap();
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&inner).unwrap();
        let twice = z.finish().unwrap();
        let both = (inner.len() + 10_000) as u64;
        assert_eq!(
            decoded_size(&twice, &[Filter::Flate, Filter::Flate], 1 << 20),
            both
        );
        assert!(decoded_size(&twice, &[Filter::Flate, Filter::Flate], 5_000) > 5_000);
        // Raw deflate behind a damaged zlib header, as the reader retries it.
        let mut d = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        d.write_all(&[b'b'; 3_000]).unwrap();
        let mut damaged = b"\0\0".to_vec();
        damaged.extend_from_slice(&d.finish().unwrap());
        assert_eq!(decoded_size(&damaged, &[Filter::Flate], 1 << 20), 3_000);
        let lzw = weezl::encode::Encoder::new(weezl::BitOrder::Msb, 8)
            .encode(&[b'c'; 7_000])
            .unwrap();
        let late = Filter::Lzw {
            early_change: false,
        };
        assert_eq!(decoded_size(&lzw, &[late], 1 << 20), 7_000);
    }

    #[test]
    fn a_stream_is_counted_by_its_own_dictionary() {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&[b' '; 100_000]).unwrap();
        let data = z.finish().unwrap();
        let file = |dict: &str| {
            let mut file = format!("1 0 obj {dict}\nstream\n").into_bytes();
            file.extend_from_slice(&data);
            file.extend_from_slice(b"\nendstream\nendobj\n");
            file
        };
        assert_eq!(
            raw(&file("<< /Filter /FlateDecode >>"), 1_000),
            RawVerdict::Inflates
        );
        // Declared uncompressed: the reader keeps it as it is.
        assert_eq!(raw(&file("<< /Length 9 >>"), 1_000), RawVerdict::Fine);
        // No dictionary found before it: zlib data counts all the same.
        assert_eq!(raw(&file("[ << >> ]"), 1_000), RawVerdict::Inflates);
    }
}
