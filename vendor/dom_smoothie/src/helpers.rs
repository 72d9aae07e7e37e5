use std::collections::HashSet;

use foldhash::HashMap;
use unicode_segmentation::UnicodeSegmentation;

use dom_query::{Matcher, NodeId, NodeRef, Selection};

use tendril::StrTendril;

use crate::glob::{MINI_ARIA_HIDDEN, MINI_FALLBACK_IMG, PHRASING_ELEMS};
use crate::matching::is_invisible_style;

pub(crate) fn text_similarity(text_a: &str, text_b: &str) -> f64 {
    if text_a.is_empty() || text_b.is_empty() {
        return 0.0;
    }

    let a = text_a.to_lowercase();
    let b = text_b.to_lowercase();

    if a.contains(&b) {
        return 1.0;
    }

    let tokens_a: HashSet<&str> = a.unicode_words().collect();
    let tokens_b: Vec<&str> = b.unicode_words().collect();

    let b_chars_total: usize = tokens_b.iter().map(|s| s.chars().count()).sum();
    if b_chars_total == 0 {
        return 0.0;
    }
    let b_chars_unique: usize = tokens_b
        .iter()
        .filter(|&&s| !tokens_a.contains(s))
        .map(|s| s.chars().count())
        .sum();

    let distance_b = b_chars_unique as f64 / b_chars_total as f64;
    1.0 - distance_b
}

pub(crate) fn is_phrasing_content(node: &NodeRef) -> bool {
    if node.is_text() {
        return true;
    }

    // only elements has a node name
    let Some(qual_name) = node.qual_name_ref() else {
        return false;
    };
    let node_name = qual_name.local.as_ref();
    if PHRASING_ELEMS.contains(node_name) {
        return true;
    }

    if matches!(node_name, "a" | "del" | "ins") {
        // There is no big sense to consider link content as phrasing content if they doesn't have children element.
        let children = node.children();
        return !children.is_empty() && children.into_iter().all(|n| is_phrasing_content(&n));
    }
    false
}

pub(crate) fn is_whitespace(node: &NodeRef) -> bool {
    if node.is_text() && !node.is_nonempty_text() {
        return true;
    }
    // only an element node has a node_name
    node.has_name("br")
}

pub(crate) fn has_ancestor<F>(node: &NodeRef, max_depth: Option<usize>, filter_fn: F) -> bool
where
    F: Fn(&NodeRef) -> bool,
{
    let max_depth = max_depth.map(|max_depth| if max_depth == 0 { 3 } else { max_depth });
    node.ancestors_it(max_depth).any(|a| filter_fn(&a))
}

pub(crate) fn normalize_spaces(text: &str) -> String {
    let mut result = String::with_capacity(text.len());
    let mut iter = text.split_whitespace();

    if let Some(first) = iter.next() {
        result.push_str(first);
        for word in iter {
            result.push(' ');
            result.push_str(word);
        }
    }
    result
}

pub(crate) fn link_density_fn<F>(node: &NodeRef, char_count: Option<usize>, mut count_fn: F) -> f32
where
    F: FnMut(&NodeRef) -> usize,
{
    let mut link_length = 0f32;

    // The links within, in document order as `find_descendants("a")` finds them, by one
    // walk and without copying their targets.
    for a in node.descendants_it() {
        let coeff = a.query_or(None, |t| {
            let e = t.as_element().filter(|e| &*e.name.local == "a")?;
            let href = e.attr_ref(dom_query::local_name!("href")).unwrap_or("");
            Some(if href.len() > 1 && href.starts_with('#') {
                0.3
            } else {
                1.0
            })
        });
        let Some(coeff) = coeff else {
            continue;
        };
        link_length += count_fn(&a) as f32 * coeff;
    }

    if link_length == 0.0 {
        return 0.0;
    }

    let text_length = char_count.unwrap_or_else(|| count_fn(node)) as f32;
    if text_length == 0.0 {
        return 0.0;
    }

    link_length / text_length
}

pub(crate) fn link_density(node: &NodeRef, char_count: Option<usize>) -> f32 {
    link_density_fn(node, char_count, normalized_char_count)
}

/// Returns the child element if the node contains exactly one element child with the given tag
/// and no non-empty text nodes.
pub(crate) fn single_child_element<'a>(node: &NodeRef<'a>, tag: &str) -> Option<NodeRef<'a>> {
    // There should be exactly 1 element child with given tag
    let children = node.element_children();
    if children.len() != 1 {
        return None;
    }

    let first = children.first()?;

    if !first.has_name(tag) {
        return None;
    }
    if node.children_it(false).any(|n| n.is_nonempty_text()) {
        return None;
    }
    Some(*first)
}

pub(crate) fn is_element_without_content(node: &NodeRef) -> bool {
    // since this function calls only for elements check `node.is_element()` is redundant
    let has_text = node.descendants_it().any(|n| n.is_nonempty_text());
    if has_text {
        return false;
    }

    let el_children_count = node.children_it(false).filter(|n| n.is_element()).count();
    if el_children_count == 0 {
        return true;
    }

    let line_breaks = node.find_descendants("br").len() + node.find_descendants("hr").len();
    el_children_count == line_breaks
}

pub(crate) fn get_dir_attr(node: &NodeRef) -> Option<String> {
    if let Some(first_child) = node.first_child() {
        if let Some(dir_attr) = first_child.attr("dir") {
            return Some(dir_attr.to_string());
        }

        let dir_attr = first_child.ancestors_it(None).find_map(|a| a.attr("dir"));
        if let Some(dir_attr) = dir_attr {
            return Some(dir_attr.to_string());
        }
    }
    None
}

pub(crate) fn node_name_in(node: &NodeRef, names: &phf::Set<&str>) -> bool {
    node.qual_name_ref()
        .is_some_and(|name| names.contains(name.local.as_ref()))
}

pub(crate) fn is_probably_visible(node: &NodeRef) -> bool {
    if node.has_attr("hidden") {
        return false;
    }
    if is_invisible_style(node) {
        return false;
    }
    !MINI_ARIA_HIDDEN.match_node(node) || MINI_FALLBACK_IMG.match_node(node)
}

pub(crate) fn get_node_matching_string(node: &NodeRef) -> StrTendril {
    let mut buf = StrTendril::new();
    let Some(el) = node.element_ref() else {
        return buf;
    };

    for attr in &el.attrs {
        if !matches!(attr.name.local.as_ref(), "class" | "id") {
            continue;
        }
        buf.push_tendril(&attr.value);
        buf.push_char(' ');
    }

    buf.make_ascii_lowercase();
    buf
}

/// Whether `MATCHER_DIALOGS` (`dialog,[aria-modal="true"][role="dialog"]`) matches an
/// element, read as the selector engine reads it (a local name in any namespace, attributes
/// in no namespace, their values compared exactly) without matching a selector.
pub(crate) fn is_dialog(node: &NodeRef) -> bool {
    node.query_or(false, |n| match &n.data {
        dom_query::NodeData::Element(e) => {
            let valued = |name: dom_query::LocalName, value: &str| {
                e.attrs
                    .iter()
                    .any(|a| a.name.ns.is_empty() && a.name.local == name && &*a.value == value)
            };
            e.name.local == dom_query::local_name!("dialog")
                || (valued(dom_query::local_name!("aria-modal"), "true")
                    && valued(dom_query::local_name!("role"), "dialog"))
        }
        _ => false,
    })
}

/// Whether `MATCHER_HEADING` (`h1,h2`) matches an element, by its local name.
pub(crate) fn is_h1_or_h2(node: &NodeRef) -> bool {
    node.query_or(false, |n| match &n.data {
        dom_query::NodeData::Element(e) => matches!(
            e.name.local,
            dom_query::local_name!("h1") | dom_query::local_name!("h2")
        ),
        _ => false,
    })
}

pub(crate) fn next_child_or_sibling<'a>(
    node: &NodeRef<'a>,
    ignore_child: bool,
) -> Option<NodeRef<'a>> {
    if !ignore_child {
        if let Some(first_child) = node.first_element_child() {
            return Some(first_child);
        }
    }

    if let Some(sibling) = node.next_element_sibling() {
        return Some(sibling);
    }
    let mut parent = node.parent();
    while let Some(parent_node) = parent {
        if let Some(next_sibling) = parent_node.next_element_sibling() {
            return Some(next_sibling);
        }
        parent = parent_node.parent();
    }
    None
}

#[cfg(not(feature = "aho-corasick"))]
/// A lightweight byte-level pre-checker used to quickly skip patterns
/// that cannot occur in the haystack.
pub(crate) struct BytePatternCheck<'a> {
    haystack: &'a str,
    char_map: [u8; 256],
}

#[cfg(not(feature = "aho-corasick"))]
impl<'a> BytePatternCheck<'a> {
    pub(crate) fn new(haystack: &'a str) -> Self {
        let mut char_map = [0u8; 256];

        for &b in haystack.as_bytes() {
            char_map[b as usize] = 1;
        }
        Self { haystack, char_map }
    }
    #[inline]
    fn pre_check(&self, pat: &str) -> bool {
        for &b in pat.as_bytes() {
            if self.char_map[b as usize] == 0 {
                return false;
            }
        }
        true
    }
    /// Checks if the haystack contains any of the given patterns.
    /// Performs a cheap bitmap pre-check before `str::contains`.
    pub(crate) fn contains_any(&self, pats: &[&str]) -> bool {
        pats.iter()
            .any(|pat| self.pre_check(pat) && self.haystack.contains(pat))
    }
}

/// The elements under `root` that `may` lets through and `matcher` matches, in document
/// order: what `select_matcher` finds for a matcher whose selector matches only elements
/// `may` lets through (of the names it requires, with the attributes it requires), the
/// selector matched against those alone rather than against every element.
pub(crate) fn matches_among<'a>(
    root: &NodeRef<'a>,
    may: impl Fn(&NodeRef) -> bool,
    matcher: &Matcher,
) -> Vec<NodeRef<'a>> {
    root.descendants_it()
        .filter(|n| may(n) && matcher.match_element(n))
        .collect()
}

/// `sel.select_matcher(matcher)` for a matcher whose selector matches only elements `may`
/// lets through, by [`matches_among`] when `sel` is one element.
pub(crate) fn select_among<'a>(
    sel: &Selection<'a>,
    may: impl Fn(&NodeRef) -> bool,
    matcher: &Matcher,
) -> Selection<'a> {
    match sel.nodes() {
        [root] => Selection::from(matches_among(root, may, matcher)),
        _ => sel.select_matcher(matcher),
    }
}

/// Whether an element is named one of `names`, compared as interned names: for
/// [`matches_among`].
pub(crate) fn named<'n>(names: &'n [dom_query::LocalName]) -> impl Fn(&NodeRef) -> bool + 'n {
    move |n| {
        n.query_or(false, |t| {
            matches!(&t.data, dom_query::NodeData::Element(e) if names.contains(&e.name.local))
        })
    }
}

/// Whether an element has one of the attributes `names`: for [`matches_among`].
pub(crate) fn holding<'n>(names: &'n [&'n str]) -> impl Fn(&NodeRef) -> bool + 'n {
    move |n| names.iter().any(|name| n.has_attr(name))
}

/// Normalized character counts (`NodeRef::normalized_char_count`) of every node under a
/// root, computed by one walk of the tree: scoring asks for the count of every element it
/// scores and of each of their ancestors, each of which walked its whole subtree again.
pub(crate) struct CharCounterCache {
    counts: HashMap<NodeId, usize>,
}

/// What a run of text nodes adds to a normalized count, given whether the text before it
/// ended in whitespace, and whether the run leaves the text ending in whitespace: a run's
/// figures follow from its parts' ([`Summary::then`]), so an element's follow from its
/// children's.
#[derive(Clone, Copy)]
struct Summary {
    /// The count, after text that ended in whitespace (or at the start).
    after_ws: usize,
    /// The count, after text that did not.
    after_text: usize,
    /// Whether the text ends in whitespace, after text that did.
    last_after_ws: bool,
    /// Whether the text ends in whitespace, after text that did not.
    last_after_text: bool,
}

impl Summary {
    /// No text: nothing added, the state before unchanged.
    const EMPTY: Self = Self {
        after_ws: 0,
        after_text: 0,
        last_after_ws: true,
        last_after_text: false,
    };

    /// One text node's figures, as `normalized_char_count` reads it.
    fn text(contents: &str) -> Self {
        let after_text = count_normalized(contents, false);
        // Only a first character of whitespace is counted differently after whitespace.
        let starts_ws = contents.starts_with(char::is_whitespace);
        let last = contents.ends_with(char::is_whitespace);
        Self {
            after_ws: after_text - usize::from(starts_ws),
            after_text,
            last_after_ws: last,
            last_after_text: last,
        }
    }

    /// This run followed by `next`.
    fn then(self, next: Self) -> Self {
        let after = |ws: bool| {
            if ws {
                (next.after_ws, next.last_after_ws)
            } else {
                (next.after_text, next.last_after_text)
            }
        };
        let (a, last_a) = after(self.last_after_ws);
        let (b, last_b) = after(self.last_after_text);
        Self {
            after_ws: self.after_ws + a,
            after_text: self.after_text + b,
            last_after_ws: last_a,
            last_after_text: last_b,
        }
    }

    /// The normalized count of a node whose text this is.
    fn count(self) -> usize {
        let c = self.after_ws;
        if self.last_after_ws && c > 0 { c - 1 } else { c }
    }
}

/// Characters of `text`, each run of whitespace counted as one, as dom_query counts them
/// (`char::is_whitespace`, a run at the start not counted after `start_whitespace`): eight
/// bytes at a time while they are ASCII, a byte or a character at a time otherwise.
pub(crate) fn count_normalized(text: &str, start_whitespace: bool) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut prev_ws = start_whitespace;
    let mut at = 0;
    while at < bytes.len() {
        if let Some(word) = bytes.get(at..at + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
            let word = u64::from_le_bytes(word);
            if word & HIGHS == 0 {
                // Each whitespace byte's high bit: the space (its bits clear after `^ 0x20`,
                // so adding 0x7F to them does not set the high bit), or `\t` to `\r`.
                let x = word ^ (ONES * 0x20);
                let space = !((x + ONES * 0x7F) | x) & HIGHS;
                let tab_to_return =
                    (word + ONES * (0x80 - 9)) & !(word + ONES * (0x80 - 14)) & HIGHS;
                let ws = space | tab_to_return;
                // Whitespace after whitespace (the byte before, or the text before) is not
                // counted.
                let after_ws = (ws << 8) | (u64::from(prev_ws) << 7);
                count += 8 - (ws & after_ws).count_ones() as usize;
                prev_ws = ws >> 63 != 0;
                at += 8;
                continue;
            }
        }
        // A byte of ASCII, else a character.
        let (is_ws, len) = match bytes[at] {
            b @ 0..0x80 => (matches!(b, b'\t'..=b'\r' | b' '), 1),
            _ => match text.get(at..).and_then(|rest| rest.chars().next()) {
                Some(c) => (c.is_whitespace(), c.len_utf8()),
                None => break,
            },
        };
        if !(prev_ws && is_ws) {
            count += 1;
        }
        prev_ws = is_ws;
        at += len;
    }
    count
}

/// The normalized character count of a node, as `NodeRef::normalized_char_count` gives it:
/// its own text and its descendants', in document order, each run of whitespace counted as
/// one, whitespace at the start and at the end not counted.
pub(crate) fn normalized_char_count(node: &NodeRef) -> usize {
    let mut count = 0;
    let mut last_ws = true;
    for n in std::iter::once(*node).chain(node.descendants_it()) {
        n.query(|t| {
            if let dom_query::NodeData::Text { contents } = &t.data {
                count += count_normalized(contents, last_ws);
                last_ws = contents.ends_with(char::is_whitespace);
            }
        });
    }
    if last_ws && count > 0 {
        count - 1
    } else {
        count
    }
}

impl CharCounterCache {
    /// The counts of `root` and every node under it, by one walk.
    pub(crate) fn primed(root: &NodeRef) -> Self {
        let mut counts: HashMap<NodeId, usize> = HashMap::default();
        counts.reserve(root.tree.len());
        // Post-order walk: each frame a node, its next child and what its children add.
        let mut stack: Vec<(NodeRef, Option<NodeRef>, Summary)> =
            vec![(*root, root.first_child(), Summary::EMPTY)];
        while let Some(frame) = stack.last_mut() {
            if let Some(child) = frame.1 {
                frame.1 = child.next_sibling();
                let text = child
                    .query(|n| match &n.data {
                        dom_query::NodeData::Text { contents } => Some(Summary::text(contents)),
                        _ => None,
                    })
                    .flatten();
                match text {
                    Some(t) => {
                        frame.2 = frame.2.then(t);
                        counts.insert(child.id, t.count());
                    }
                    None => stack.push((child, child.first_child(), Summary::EMPTY)),
                }
                continue;
            }
            let Some((node, _, summary)) = stack.pop() else {
                break;
            };
            counts.insert(node.id, summary.count());
            if let Some(parent) = stack.last_mut() {
                parent.2 = parent.2.then(summary);
            }
        }
        Self { counts }
    }

    /// The node's normalized character count: primed, else counted.
    pub(crate) fn char_count(&mut self, node: &NodeRef) -> usize {
        match self.counts.get(&node.id) {
            Some(&c) => c,
            None => normalized_char_count(node),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn test_text_similarity() {
        let text_a = "The quick brown fox";
        let text_b = "The quick fox";
        let similarity = text_similarity(text_a, text_b);
        assert!(similarity > 0.75);
    }

    #[test]
    fn test_text_similarity_contains() {
        let text_a = "the quick brown fox jumps over the lazy dog";
        let text_b = "The Quick Brown Fox";
        let similarity = text_similarity(text_a, text_b);
        assert!(1.0 - similarity < FLOAT_TOLERANCE);
    }

    #[test]
    fn test_text_similarity_similar() {
        let text_a = "DeepMind新电脑已可利用记忆自学 人工智能迈上新台阶_科技_腾讯网";
        let text_b = "DeepMind新电脑已可利用记忆自学 人工智能迈上新台阶";
        let similarity = text_similarity(text_a, text_b);
        assert!(1.0 - similarity < FLOAT_TOLERANCE);
    }

    #[test]
    fn test_text_similarity_no_words() {
        // `text_b` has no unicode words, so the char totals are zero.
        let similarity = text_similarity("Some title", "...");
        assert!(similarity < FLOAT_TOLERANCE);
    }

    #[test]
    fn test_normalize_spaces() {
        let text = "    The quick  brown  fox\n jumps over the lazy dog. ";
        let normalized_text = normalize_spaces(text);
        let expected = "The quick brown fox jumps over the lazy dog.";
        assert_eq!(expected, normalized_text);
    }

    #[test]
    #[cfg(not(feature = "aho-corasick"))]
    fn test_ascii_pattern_check() {
        let class = "article primary main äußerlich konnen";
        let check = BytePatternCheck::new(class);
        assert!(check.contains_any(&["äußerlich"]));
        assert!(check.contains_any(&["article", "post"]));
        assert!(!check.contains_any(&["können"]));
    }
}
