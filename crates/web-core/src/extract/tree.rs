//! Iterative walks over a parsed document (no recursion, so any depth is safe), element and
//! text helpers, and what a pass removed from its document, emptied once nothing reads it.

use dom_query::{Document, Element, LocalName, NodeData, NodeId, NodeRef, local_name};
use html5ever::ns;
use html5ever::tendril::StrTendril;

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

/// The elements a pass removed from its document, noted so that what they held can be
/// forgotten once nothing reads it: a removed node stays in the tree's list of nodes, and
/// every later copy of the document copied it (seven nodes in ten, on the development sets,
/// by the time selection copies the cleaned page).
#[derive(Default)]
pub(crate) struct Removed(Vec<NodeId>);

impl Removed {
    /// Removes `node` from its parent, noting it.
    pub(crate) fn remove(&mut self, node: &NodeRef<'_>) {
        node.remove_from_parent();
        self.0.push(node.id);
    }

    /// Empties the nodes of every noted subtree that is still out of `doc` (each becomes
    /// an empty comment, its element or text dropped), and forgets the notes: a copy of
    /// the document then copies nothing of them. Only for the document the notes were
    /// taken on, and once nothing reads what was removed.
    pub(crate) fn forget(&mut self, doc: &Document) {
        for id in self.0.drain(..) {
            let Some(top) = doc.tree.get(&id) else {
                continue;
            };
            if attached(&top) {
                continue;
            }
            walk(top, |step| {
                if let Step::Enter(node) = step {
                    node.update(|n| {
                        n.data = NodeData::Comment {
                            contents: StrTendril::new(),
                        };
                    });
                }
                true
            });
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
    let mut chunks = bytes.chunks_exact(8);
    let mut n = 0;
    let mut at = 0;
    for chunk in &mut chunks {
        if let Ok(word) = <[u8; 8]>::try_from(chunk) {
            n += visible_in(bytes, at, u64::from_le_bytes(word));
        }
        at += 8;
    }
    // The last bytes, padded with spaces (never visible) to a word.
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [b' '; 8];
        word[..rest.len()].copy_from_slice(rest);
        n += visible_in(bytes, at, u64::from_le_bytes(word));
    }
    n
}

/// Whether a node is still in its document: its ancestors reach the document node (a node
/// removed from the page, or inside a removed one, is not).
pub(crate) fn attached(node: &NodeRef<'_>) -> bool {
    node.ancestors_it(None)
        .last()
        .is_some_and(|a| a.is_document())
}

/// The visible characters of a node's text, as [`visible_len`] counts the text
/// `NodeRef::text` joins (the node's own and its descendants' text nodes), without joining
/// it: one look-up a node.
pub(crate) fn text_len(node: &NodeRef<'_>) -> usize {
    let root = node.id;
    // A node's count, first child, next sibling and parent.
    let look = |id: &NodeId| {
        node.tree.query_node(id, |t| {
            let len = match &t.data {
                NodeData::Text { contents } => visible_len(contents),
                _ => 0,
            };
            (len, t.first_child, t.next_sibling, t.parent)
        })
    };
    let Some((mut n, mut next, _, _)) = look(&root) else {
        return 0;
    };
    // Depth first, as `NodeRef::text` reads them: a node's children, then its next
    // sibling, else the nearest next sibling of an ancestor below the node.
    while let Some(id) = next {
        let Some((len, first, sibling, parent)) = look(&id) else {
            break;
        };
        n += len;
        next = first.or(sibling);
        let mut up = parent;
        while next.is_none()
            && let Some(at) = up.filter(|&p| p != root)
        {
            (next, up) = node
                .tree
                .query_node(&at, |t| (t.next_sibling, t.parent))
                .unwrap_or_default();
        }
    }
    n
}

/// The visible characters of nodes of one unchanging document, as [`text_len`] counts
/// them, each node's counted once: asking for an element and then for the elements around
/// it (or beside it) reads each text once, where [`text_len`] would read the inner ones
/// again for every element around them.
#[derive(Default)]
pub(crate) struct TextLens(foldhash::HashMap<NodeId, usize>);

impl TextLens {
    /// The visible characters of `node`'s text (see [`text_len`]).
    pub(crate) fn of(&mut self, node: &NodeRef<'_>) -> usize {
        if let Some(&n) = self.0.get(&node.id) {
            return n;
        }
        // The counts of the nodes entered and not yet left, the innermost last.
        let mut open: Vec<usize> = Vec::new();
        let mut total = 0;
        let counted = &mut self.0;
        walk(*node, |step| {
            let add = match step {
                Step::Enter(n) => {
                    let known = counted
                        .get(&n.id)
                        .copied()
                        .or_else(|| with_text(&n, visible_len));
                    if known.is_none() {
                        open.push(0);
                    }
                    known
                }
                Step::Leave(n, true) => {
                    let len = open.pop().unwrap_or(0);
                    counted.insert(n.id, len);
                    Some(len)
                }
                Step::Leave(_, false) => None,
            };
            match add {
                Some(len) => {
                    *open.last_mut().unwrap_or(&mut total) += len;
                    false
                }
                None => true,
            }
        });
        total
    }
}

/// Each byte's low bit in a word of eight bytes.
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
/// Each byte's high bit in a word of eight bytes.
pub(crate) const HIGHS: u64 = 0x8080_8080_8080_8080;
/// Each byte's seven low bits in a word of eight bytes.
const LOWS: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// The visible characters that start in `word`, the eight bytes of `text` from `at` (read
/// little-endian, so that byte `i` is the word's `i`th lowest): the bytes that start a
/// character, but ASCII whitespace and the starts of the wider whitespace characters
/// ([`wide_space`]). Per byte, without carries between bytes.
#[inline(always)]
fn visible_in(text: &[u8], at: usize, word: u64) -> usize {
    if word & HIGHS == 0 {
        return 8 - count(ascii_spaces(word));
    }
    // A byte `10xx_xxxx` goes on a character started before it; of the others, those
    // under 0x80 may be ASCII whitespace.
    let continuation = word & !(word << 1) & HIGHS;
    let spaces = ascii_spaces(word & LOWS) & !word;
    let mut n = 8 - count(continuation | spaces);
    // The wider whitespace characters start with 0xC2 or 0xE1 to 0xE3.
    let mut leads = zeros(word ^ (ONES * 0xC2)) | zeros((word | (ONES * 3)) ^ (ONES * 0xE3));
    while leads != 0 {
        let i = (leads.trailing_zeros() / 8) as usize;
        n -= usize::from(text.get(at + i..).is_some_and(wide_space));
        leads &= leads - 1;
    }
    n
}

/// Whether `bytes` start with a whitespace character outside ASCII: U+0085, U+00A0,
/// U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F, U+205F or U+3000.
fn wide_space(bytes: &[u8]) -> bool {
    matches!(
        bytes,
        [0xC2, 0x85 | 0xA0, ..]
            | [0xE1, 0x9A, 0x80, ..]
            | [0xE2, 0x80, 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF, ..]
            | [0xE2, 0x81, 0x9F, ..]
            | [0xE3, 0x80, 0x80, ..]
    )
}

/// The high bit of each zero byte of a word (exactly, without carries between bytes).
fn zeros(word: u64) -> u64 {
    !(((word & LOWS) + LOWS) | word) & HIGHS
}

/// How many bytes of a word whose bits are at most the bytes' high bits have it set.
fn count(highs: u64) -> usize {
    ((highs >> 7).wrapping_mul(ONES) >> 56) as usize
}

/// The high bit of each byte of a word of ASCII bytes that is whitespace as
/// `char::is_whitespace` has it: the space, or `\t` to `\r` (a byte to which adding
/// 0x80 − 9 sets the high bit and adding 0x80 − 14 does not).
fn ascii_spaces(word: u64) -> u64 {
    let from_tab = word + ONES * (0x80 - 9);
    let past_return = word + ONES * (0x80 - 14);
    zeros(word ^ (ONES * 0x20)) | (from_tab & !past_return & HIGHS)
}

/// Whether an element has an attribute of this name in no namespace, as an attribute
/// selector (`[name]`) reads it.
pub(crate) fn has_attr(e: &Element, name: LocalName) -> bool {
    e.attrs
        .iter()
        .any(|a| a.name.ns == ns!() && a.name.local == name)
}

/// An attribute's value. The names the extractor reads are matched as their interned names
/// (one comparison an attribute, not one of strings), which the same names always are.
#[inline(always)]
pub(crate) fn attr<'e>(e: &'e Element, name: &str) -> Option<&'e str> {
    let interned = match name {
        "class" => local_name!("class"),
        "href" => local_name!("href"),
        "role" => local_name!("role"),
        "id" => local_name!("id"),
        "alt" => local_name!("alt"),
        "type" => local_name!("type"),
        "rel" => local_name!("rel"),
        "property" => local_name!("property"),
        "name" => local_name!("name"),
        "itemtype" => local_name!("itemtype"),
        "itemprop" => local_name!("itemprop"),
        "start" => local_name!("start"),
        "http-equiv" => local_name!("http-equiv"),
        "content" => local_name!("content"),
        "aria-modal" => local_name!("aria-modal"),
        _ => {
            return e
                .attrs
                .iter()
                .find(|a| &*a.name.local == name)
                .map(|a| &*a.value);
        }
    };
    e.attrs
        .iter()
        .find(|a| a.name.local == interned)
        .map(|a| &*a.value)
}

/// An element's shape (see [`shape_of`]): its name and first class name, digits aside.
pub(crate) type Shape = Option<(LocalName, StrTendril)>;

/// A set of shapes (see [`inner_shapes`]).
pub(crate) type Shapes = foldhash::HashSet<Shape>;

/// The shapes of an element's children.
pub(crate) fn inner_shapes(node: &NodeRef<'_>) -> Shapes {
    node.element_children().iter().map(shape_of).collect()
}

/// Whether two elements' children are alike (a repeated group's members: posts, cards, rows,
/// not layout columns): at least half the shapes of either are shared.
pub(crate) fn alike(a: &Shapes, b: &Shapes) -> bool {
    let shared = a.intersection(b).count();
    shared * 2 >= a.len().max(b.len())
}

/// An element's shape, as its siblings are compared by: its name and its first class name,
/// digits aside (`post-17` is `post-`). A class name without digits is the class value's
/// own text, shared rather than copied: every element of a group is read, in several walks.
pub(crate) fn shape_of(node: &NodeRef<'_>) -> Shape {
    with_element(node, |e| {
        let value = e
            .attrs
            .iter()
            .find(|a| a.name.local == local_name!("class"))
            .map(|a| &a.value);
        let first = value.and_then(|v| v.split_whitespace().next().map(|first| (v, first)));
        let class = match first {
            None => StrTendril::new(),
            Some((value, first)) if !first.bytes().any(|b| b.is_ascii_digit()) => {
                let at = first.as_ptr() as usize - value.as_ptr() as usize;
                u32::try_from(at)
                    .ok()
                    .zip(u32::try_from(first.len()).ok())
                    .and_then(|(at, len)| value.try_subtendril(at, len).ok())
                    .unwrap_or_else(|| StrTendril::from(first))
            }
            Some((_, first)) => {
                let mut class = StrTendril::new();
                for part in first.split(|c: char| c.is_ascii_digit()) {
                    class.push_slice(part);
                }
                class
            }
        };
        (e.name.local.clone(), class)
    })
}

/// The greatest element depth under `root` and the number of elements, without recursion:
/// what the tests compare the page survey's counts with.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Forgetting what was removed empties every node of each removed subtree still out of
    /// the document, and nothing else: not the page, not an element removed and put back,
    /// not what was moved out of a removed element before it went; a copy of the document
    /// then holds none of the removed text.
    #[test]
    fn what_was_removed_is_forgotten_and_what_is_in_the_page_is_not() {
        let doc = crate::extract::parse::parse(
            "<body><div id=nav class=menu><a href=/x>Menu link</a><p id=inner>Nested</p></div>\
             <div id=back>Put back</div><div id=gone><span id=name>Kept name</span> \
             card text</div><p id=stays>Prose stays</p></body>",
        );
        let by_id = |id: &str| doc.select_single(&format!("#{id}")).nodes()[0];
        let subtree = |node: NodeRef<'_>| -> Vec<NodeId> {
            std::iter::once(node.id)
                .chain(node.descendants_it().map(|d| d.id))
                .collect()
        };
        let (nav, inner, back, gone, name, stays) = (
            by_id("nav"),
            by_id("inner"),
            by_id("back"),
            by_id("gone"),
            by_id("name"),
            by_id("stays"),
        );
        let mut removed = Removed::default();
        // A removed element inside another removed one, noted after it.
        removed.remove(&nav);
        removed.remove(&inner);
        // Removed, then put back.
        removed.remove(&back);
        stays.insert_before(&back);
        // A child moved out before its element went.
        gone.insert_before(&name);
        removed.remove(&gone);
        // `inner` left `nav` when it was removed in turn: its own subtree.
        let gone_ids: Vec<NodeId> = [subtree(nav), subtree(inner), subtree(gone)].concat();
        let page = doc.root().text().to_string();
        assert!(page.contains("Put back") && page.contains("Kept name"));
        removed.forget(&doc);

        let empty = |node: &NodeRef<'_>| {
            node.query(|n| matches!(&n.data, NodeData::Comment { contents } if contents.is_empty()))
                .unwrap_or(false)
        };
        let copy = doc.clone();
        for id in &gone_ids {
            assert!(
                empty(&NodeRef::new(*id, &doc.tree)),
                "a removed node kept its data"
            );
            assert!(
                empty(&NodeRef::new(*id, &copy.tree)),
                "a copy holds a removed node"
            );
        }
        for node in doc.root().descendants_it() {
            assert!(!empty(&node), "a node of the page was emptied");
        }
        assert_eq!(doc.root().text().to_string(), page);
        // The notes are forgotten too: the document is read the same after a second call.
        removed.forget(&doc);
        assert_eq!(copy.root().text().to_string(), page);
    }

    /// An element's shape is its name and first class name, digits aside; a class name
    /// without digits shares the class value's buffer rather than copying it.
    #[test]
    fn a_shape_is_the_name_and_first_class_digits_aside_its_text_shared() {
        let doc = crate::extract::parse::parse(
            "<div id=a class='post-17 featured'></div><div id=b class=post-18></div>\
             <div id=c class=post></div><p id=d class=post-17></p><div id=e></div>\
             <div id=f class='  '></div><div id=g class='listing-card-wide tall'></div>",
        );
        let shape = |id: &str| shape_of(&doc.select(&format!("#{id}")).nodes()[0]);
        assert_eq!(shape("a"), shape("b"));
        let Some((name, class)) = shape("a") else {
            panic!("an element has a shape");
        };
        assert_eq!((&*name, &*class), ("div", "post-"));
        assert_ne!(shape("a"), shape("c"));
        assert_ne!(shape("a"), shape("d"));
        assert_eq!(shape("e"), shape("f"));
        let g = doc.select("#g").nodes()[0];
        let Some((_, class)) = shape_of(&g) else {
            panic!("an element has a shape");
        };
        assert_eq!(&*class, "listing-card-wide");
        let shared = with_element(&g, |e| {
            e.attrs
                .iter()
                .find(|a| &*a.name.local == "class")
                .is_some_and(|a| a.value.is_shared_with(&class))
        });
        assert_eq!(shared, Some(true));
    }

    /// The counts of nodes asked in any order, inner ones first or outer ones first, are
    /// those [`text_len`] gives.
    #[test]
    fn text_lens_count_as_text_len_in_any_order() {
        let doc = dom_query::Document::from(
            "<html><body><div id=a><p>One two <b>three</b></p><!-- x --><ul><li>four \
             five</li><li> </li></ul></div><div><p>six\u{a0}seven</p>eight</div></body></html>",
        );
        let mut nodes = Vec::new();
        walk(doc.root(), |step| {
            if let Step::Enter(n) = step {
                nodes.push(n);
            }
            true
        });
        assert!(nodes.len() > 15, "{}", nodes.len());
        let want: Vec<usize> = nodes.iter().map(text_len).collect();
        assert_eq!(want[0], "Onetwothreefourfivesixseveneight".len());
        let mut outer_first = TextLens::default();
        let got: Vec<usize> = nodes.iter().map(|n| outer_first.of(n)).collect();
        assert_eq!(got, want);
        let mut inner_first = TextLens::default();
        let mut got: Vec<usize> = nodes.iter().rev().map(|n| inner_first.of(n)).collect();
        got.reverse();
        assert_eq!(got, want);
        // Every other node first, then all of them again.
        let mut mixed = TextLens::default();
        for n in nodes.iter().skip(1).step_by(2) {
            mixed.of(n);
        }
        let got: Vec<usize> = nodes.iter().map(|n| mixed.of(n)).collect();
        assert_eq!(got, want);
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
        // Every character of two or three bytes whose first byte may start a whitespace
        // character, and some of four, at every place of a text read by words.
        let wide = (0x80..=0x3FFF).chain(0x1_F600..=0x1_F610);
        for c in wide.filter_map(char::from_u32) {
            let expected = usize::from(!c.is_whitespace());
            for at in 0..20 {
                let text: String = (0..20).map(|i| if i == at { c } else { 'x' }).collect();
                assert_eq!(visible_len(&text), 19 + expected, "{c:?} at {at}");
                let text = format!("{}{c}", "\u{a0}".repeat(at));
                assert_eq!(visible_len(&text), expected, "{c:?} after {at}");
            }
        }
        assert_eq!(visible_len(""), 0);
        assert_eq!(
            visible_len(" \t\n\u{b}\u{c}\r\u{85}\u{3000}x  é\u{2009}ü "),
            3
        );
    }

    #[test]
    fn attributes_are_found_by_name_whether_the_name_is_matched_interned_or_not() {
        let names = [
            "class",
            "href",
            "role",
            "id",
            "alt",
            "type",
            "rel",
            "property",
            "name",
            "itemtype",
            "itemprop",
            "start",
            "http-equiv",
            "content",
            "aria-modal",
            "data-x",
        ];
        let attrs: Vec<String> = names.iter().map(|n| format!("{n}=\"v-{n}\"")).collect();
        let doc = dom_query::Document::from(format!("<div {}></div>", attrs.join(" ")));
        let div = doc.select("div").nodes()[0];
        with_element(&div, |e| {
            for name in names {
                assert_eq!(attr(e, name), Some(format!("v-{name}").as_str()), "{name}");
            }
            assert_eq!(attr(e, "title"), None);
        });
        let bare = dom_query::Document::from("<div></div>");
        with_element(&bare.select("div").nodes()[0], |e| {
            assert_eq!(attr(e, "class"), None);
        });
    }

    #[test]
    fn a_node_s_text_is_counted_as_its_joined_text_is() {
        let doc = dom_query::Document::from(
            "<div id=a><p>One <b>two</b></p>\n <!-- no --><ul><li>th ree<li><i><b>four</b></i>\
             </ul>five</div><p id=b>six</p><div id=c></div>",
        );
        let root = doc.root();
        walk(root, |step| {
            if let Step::Enter(n) = step {
                assert_eq!(text_len(&n), visible_len(&n.text()), "{:?}", n.id);
            }
            true
        });
        // The node's own subtree only, not its next siblings.
        let a = doc.select("#a").nodes()[0];
        assert_eq!(text_len(&a), "Onetwothreefourfive".len());
        assert_eq!(text_len(&doc.select("#c").nodes()[0]), 0);
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
