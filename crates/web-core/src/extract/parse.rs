//! Parsing a page's HTML into a document, without what nothing reads, without the parser's
//! error reports and without the whitespace between blocks that nothing shows.
//!
//! The tokens ([`tokens`]) leave out comments, the code of scripts and style sheets and the
//! attributes nothing reads, the start tags nested too deep to build in bounded time, and
//! the markup past the count of elements the page may build (its tree is a few hundred
//! bytes an element: [`max_elements`]).
//!
//! The tree builder reports every parse error to the tree it builds, and the document type
//! keeps each report in a list, one formatted string per error. A hostile page is
//! little but errors — two megabytes of NUL bytes or of `<` are two million of them — so
//! the list alone took hundreds of megabytes for a page whose text is a dozen
//! characters, and every copy of the document copied it again. [`parse_page`] builds the
//! document through a tree sink that drops the reports: the extractor never reads them. The
//! same sink leaves out the whitespace text that is a block's first child or stands between
//! two blocks (see `Quiet`): a fifth to a quarter of a page's nodes (18–26% on samples of
//! the development sets), which every later step would walk and every copy copy.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use dom_query::{Document, NodeData, NodeId};
use html5ever::tendril::StrTendril;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeBuilderOpts, TreeSink};
use html5ever::{Attribute, QualName};

use super::render;
use super::tokens::{self, Leave};

/// Start tags nested deeper than this (by the estimate of [`Leave::depth`]) are left out.
pub(crate) const DEPTH_LIMIT: usize = 256;

/// Bytes of `max-bytes` per element a page may build: a page's tree holds one element at
/// most per this many bytes of the cap, so its memory is a small multiple of the cap however
/// dense the markup (tens of thousands of links in two megabytes). The densest page of the
/// development sets has one element per 128 bytes of its own size.
pub const BYTES_PER_ELEMENT: usize = 128;

/// Elements a page may build whatever the cap: a small cap still reads a page's head and
/// first screens.
pub const MIN_ELEMENTS: usize = 4096;

/// The elements (start tags) a page read within a byte cap of `max_bytes` may build.
#[must_use]
pub fn max_elements(max_bytes: usize) -> usize {
    (max_bytes / BYTES_PER_ELEMENT).max(MIN_ELEMENTS)
}

/// A page parsed.
#[derive(Clone)]
pub(crate) struct Parsed {
    /// The document, without what nothing reads.
    pub(crate) doc: Document,
    /// Whether start tags nested deeper than the limit were left out.
    pub(crate) flattened: bool,
    /// Whether the markup had more elements than allowed: the document stops at the last.
    pub(crate) cut: bool,
}

/// Parses `html` as `Document::from` does (scripting disabled), without the comments, the
/// code of scripts (but JSON data islands) and style sheets, the attributes nothing reads
/// and the parser's error reports; the start tags nested deeper than `depth` are left out,
/// their text kept, and the markup ends before the start tag past the first `elements`.
pub(crate) fn parse_page(html: &str, depth: usize, elements: usize) -> Parsed {
    let opts = TreeBuilderOpts {
        scripting_enabled: false,
        ..TreeBuilderOpts::default()
    };
    let leave = Leave {
        inert: true,
        depth,
        elements,
    };
    #[cfg(test)]
    PARSES.with(|n| n.set(n.get() + 1));
    let (quiet, left) = tokens::build(html, Quiet::default(), opts, leave);
    Parsed {
        doc: quiet.doc,
        flattened: left.flattened,
        cut: left.cut,
    }
}

#[cfg(test)]
thread_local! {
    /// How many pages [`parse_page`] parsed on this thread: for tests of what parses a page
    /// again.
    pub(crate) static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Parses `html` as [`parse_page`] does, nesting and elements left as they are: for tests.
#[cfg(test)]
pub(crate) fn parse(html: &str) -> Document {
    parse_page(html, usize::MAX, usize::MAX).doc
}

/// The document as a tree sink, its error reports dropped and the whitespace nothing shows
/// or reads left out (see [`Quiet::unseen`]); every other call is the document's own.
///
/// Pretty-printed markup puts a text node of whitespace between most tags, nodes which
/// every walk of every step visits and every copy of the document copies. Whitespace that
/// is a block's first child, or that stands between two blocks in a block that holds
/// blocks, shows nothing (a block starts and ends a line, and the renderer collapses
/// whitespace) and separates no words (the blocks do): it is left out. Whitespace after a block is held until what follows says: a block made next, or
/// text for another element (the block of blocks has ended), leaves it out; anything else
/// puts it back where it was, so that a block a later step removes never joins the words
/// around it. Inside a preformatted element every space stays.
#[derive(Default)]
struct Quiet {
    /// The document being built.
    doc: Document,
    /// Whether a preformatted element has been made: whitespace is then left out only
    /// outside one.
    preformatted: Cell<bool>,
    /// Whitespace that followed a block in a block of blocks, and that block's parent.
    held: RefCell<Option<(NodeId, StrTendril)>>,
    /// The element [`Quiet::inside_preformatted`] last answered for, and its answer.
    last_inside: Cell<Option<(NodeId, bool)>>,
}

/// Elements whose whitespace is shown as written.
fn is_preformatted(name: &str) -> bool {
    matches!(name, "pre" | "listing" | "xmp" | "plaintext" | "textarea")
}

/// Blocks that hold blocks rather than a line of text: whitespace between two of their
/// blocks is neither shown nor read as a word's end. They are the renderer's blocks but
/// those that hold a line (a paragraph, a caption, a term…), and lists and quotes.
fn holds_blocks(name: &str) -> bool {
    matches!(name, "ul" | "ol" | "blockquote")
        || (render::is_block(name)
            && !matches!(
                name,
                "p" | "address"
                    | "figcaption"
                    | "summary"
                    | "dt"
                    | "dd"
                    | "legend"
                    | "hr"
                    | "caption"
                    | "output"
            ))
}

/// What follows whitespace held after a block.
enum Next<'a> {
    /// An element of this name is made.
    Element(&'a str),
    /// Text is appended to this element.
    Text(&'a NodeId),
    /// The document changes otherwise.
    Change,
}

/// Where whitespace appended to an element goes.
enum Unseen {
    /// Into the document.
    Shown,
    /// Nowhere: it is the first child of a block, or in the page's root or head.
    Dropped,
    /// Held: it follows a block in a block of blocks.
    Held,
}

impl Quiet {
    /// Whether `id` is an element whose local name `is` says yes to.
    fn element_is(&self, id: &NodeId, is: impl Fn(&str) -> bool) -> bool {
        self.doc
            .tree
            .query_node(
                id,
                |n| matches!(&n.data, NodeData::Element(e) if is(&e.name.local)),
            )
            .unwrap_or(false)
    }

    /// Where whitespace appended to `parent` now goes.
    fn unseen(&self, parent: &NodeId) -> Unseen {
        // What the parent is (the root or head, a block, a block of blocks), and its last
        // child.
        let Some((root, block, of_blocks, last)) = self
            .doc
            .tree
            .query_node(parent, |n| match &n.data {
                NodeData::Element(e) => {
                    let name: &str = &e.name.local;
                    Some((
                        matches!(name, "html" | "head"),
                        render::ends_line(name),
                        holds_blocks(name),
                        n.last_child,
                    ))
                }
                _ => None,
            })
            .flatten()
        else {
            return Unseen::Shown;
        };
        let unseen = match last {
            _ if root => Unseen::Dropped,
            None if block || of_blocks => Unseen::Dropped,
            Some(last) if of_blocks && self.element_is(&last, render::ends_line) => Unseen::Held,
            _ => return Unseen::Shown,
        };
        if self.preformatted.get() && self.inside_preformatted(parent) {
            Unseen::Shown
        } else {
            unseen
        }
    }

    /// Whether `parent` is or lies inside a preformatted element; the last answer is kept,
    /// since whitespace comes to the same parent between each of its blocks.
    fn inside_preformatted(&self, parent: &NodeId) -> bool {
        if let Some((id, inside)) = self.last_inside.get()
            && id == *parent
        {
            return inside;
        }
        let inside = std::iter::once(*parent)
            .chain(self.doc.tree.ancestor_ids_of_it(parent, None))
            .any(|a| self.element_is(&a, is_preformatted));
        self.last_inside.set(Some((*parent, inside)));
        inside
    }

    /// Settles the held whitespace before the document changes, as what comes `next` says.
    fn settle(&self, next: Next<'_>) {
        let Some((parent, text)) = self.held.borrow_mut().take() else {
            return;
        };
        let unseen = match next {
            // Between two blocks.
            Next::Element(name) => render::ends_line(name),
            // Text for another element: the block ended after its last block.
            Next::Text(to) => *to != parent,
            Next::Change => false,
        };
        if !unseen {
            self.doc.append(&parent, NodeOrText::AppendText(text));
        }
    }
}

impl TreeSink for Quiet {
    type ElemName<'a> = <Document as TreeSink>::ElemName<'a>;
    type Output = Quiet;
    type Handle = <Document as TreeSink>::Handle;

    fn finish(self) -> Quiet {
        // Whitespace after the last block of a block ends it: nothing follows to join.
        self.held.take();
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Self::Handle {
        self.doc.get_document()
    }

    fn get_template_contents(&self, target: &Self::Handle) -> Self::Handle {
        self.doc.get_template_contents(target)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.doc.set_quirks_mode(mode);
    }

    fn same_node(&self, x: &Self::Handle, y: &Self::Handle) -> bool {
        self.doc.same_node(x, y)
    }

    fn elem_name<'a>(&'a self, target: &'a Self::Handle) -> Self::ElemName<'a> {
        self.doc.elem_name(target)
    }

    fn create_element(
        &self,
        name: QualName,
        attrs: Vec<Attribute>,
        flags: ElementFlags,
    ) -> Self::Handle {
        self.settle(Next::Element(&name.local));
        if is_preformatted(&name.local) {
            self.preformatted.set(true);
        }
        self.doc.create_element(name, attrs, flags)
    }

    fn create_comment(&self, text: StrTendril) -> Self::Handle {
        self.settle(Next::Change);
        self.doc.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Self::Handle {
        self.settle(Next::Change);
        self.doc.create_pi(target, data)
    }

    fn append(&self, parent: &Self::Handle, child: NodeOrText<Self::Handle>) {
        self.settle(match child {
            NodeOrText::AppendText(_) => Next::Text(parent),
            NodeOrText::AppendNode(_) => Next::Change,
        });
        if let NodeOrText::AppendText(text) = &child
            && text.bytes().all(|b| b.is_ascii_whitespace())
        {
            match self.unseen(parent) {
                Unseen::Shown => {}
                Unseen::Dropped => return,
                Unseen::Held => {
                    if let NodeOrText::AppendText(text) = child {
                        *self.held.borrow_mut() = Some((*parent, text));
                    }
                    return;
                }
            }
        }
        self.doc.append(parent, child);
    }

    fn append_before_sibling(&self, sibling: &Self::Handle, child: NodeOrText<Self::Handle>) {
        self.settle(Next::Change);
        self.doc.append_before_sibling(sibling, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &Self::Handle,
        prev_element: &Self::Handle,
        child: NodeOrText<Self::Handle>,
    ) {
        self.settle(Next::Change);
        self.doc
            .append_based_on_parent_node(element, prev_element, child);
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.settle(Next::Change);
        self.doc
            .append_doctype_to_document(name, public_id, system_id);
    }

    fn add_attrs_if_missing(&self, target: &Self::Handle, attrs: Vec<Attribute>) {
        self.settle(Next::Change);
        self.doc.add_attrs_if_missing(target, attrs);
    }

    fn remove_from_parent(&self, target: &Self::Handle) {
        self.settle(Next::Change);
        self.doc.remove_from_parent(target);
    }

    fn reparent_children(&self, node: &Self::Handle, new_parent: &Self::Handle) {
        self.settle(Next::Change);
        self.doc.reparent_children(node, new_parent);
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Self::Handle) -> bool {
        self.doc.is_mathml_annotation_xml_integration_point(handle)
    }
}

#[cfg(test)]
mod tests {
    use dom_query::NodeRef;
    use proptest::prelude::*;

    use super::*;
    use crate::extract::render::render;

    /// The children of the first element `selector` finds, each an element's name or a
    /// text's contents.
    fn children(doc: &Document, selector: &str) -> Vec<String> {
        doc.select_single(selector)
            .nodes()
            .first()
            .map(|n| {
                n.children_it(false)
                    .map(|c| {
                        c.node_name()
                            .map_or_else(|| c.text().to_string(), |n| n.to_string())
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn whitespace_first_in_a_block_or_between_two_blocks_is_left_out() {
        let doc = parse(
            "<body>\n <div>\n  <p>a</p>\n  <h2>b</h2>\n  <ul>\n <li>c</li>\n </ul>\n</div>\n</body>",
        );
        assert_eq!(children(&doc, "div"), ["p", "h2", "ul"]);
        assert_eq!(children(&doc, "ul"), ["li"]);
        assert_eq!(children(&doc, "body"), ["div"]);
        // Between a block and what is not one, in a line of text, inside a preformatted
        // element: it stays.
        let doc = parse("<div><p>a</p> <span>b</span></div><p><b>x</b> <i>y</i></p>");
        assert_eq!(children(&doc, "div"), ["p", " ", "span"]);
        assert_eq!(children(&doc, "p:last-child"), ["b", " ", "i"]);
        let doc = parse("<pre><div>  x</div>\n<div>  y</div></pre>");
        assert_eq!(doc.select_single("pre").text().to_string(), "  x\n  y");
    }

    #[test]
    fn a_block_removed_later_never_joins_the_words_around_it() {
        // The whitespace after the block is held until the next node says it stands before
        // text, not a block: it goes back in.
        let doc = parse("<div><span>a</span><div class=ad>ad</div>\n<span>b</span></div>");
        doc.select(".ad").remove();
        assert_eq!(collapse_words(&doc.select_single("body").text()), "a b");
        // Text after it in the same block (a comment left out between them) keeps it.
        let doc = parse("<div><p>a</p>\n<!-- c -->b</div>");
        assert_eq!(children(&doc, "div"), ["p", "\nb"]);
        // Whitespace ending a block of blocks goes, with the block.
        let doc = parse("<div><p>a</p>\n</div>\ntext<p>b</p>");
        assert_eq!(children(&doc, "body"), ["div", "\ntext", "p"]);
    }

    /// The words of a text, one space apart.
    fn collapse_words(text: &str) -> String {
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The body's rendering.
    fn shown(doc: &Document) -> Vec<String> {
        doc.body().map(render).unwrap_or_default()
    }

    /// Markup pieces, each followed in the markup by one of [`SPACES`] (comments aside: one
    /// left out between `<pre>` and a newline lets the tree builder drop the newline).
    const PIECES: &[&str] = &[
        "a",
        "b c",
        "<p>",
        "</p>",
        "<div>",
        "</div>",
        "<span>",
        "</span>",
        "<b>",
        "</b>",
        "<h2>",
        "</h2>",
        "<ul>",
        "<li>",
        "</ul>",
        "<br>",
        "<pre>",
        "</pre>",
        "<table>",
        "<tr>",
        "<td>",
        "</td>",
        "</table>",
        "<section>",
        "</section>",
        "<a href=x>",
        "</a>",
        "<hr>",
        "<blockquote>",
        "</blockquote>",
        "<code>",
        "</code>",
    ];

    /// What follows each piece.
    const SPACES: &[&str] = &["", " ", "\n  "];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The whitespace left out shows nothing: the page renders as it does with it, and
        /// its text keeps every other character.
        #[test]
        fn what_is_left_out_shows_nothing(
            pieces in prop::collection::vec((prop::sample::select(PIECES), prop::sample::select(SPACES)), 0..24),
        ) {
            let html: String = pieces.iter().flat_map(|(p, s)| [*p, *s]).collect();
            let (ours, theirs) = (parse(&html), Document::from(html.as_str()));
            prop_assert_eq!(shown(&ours), shown(&theirs), "{:?}", html);
            let letters = |d: &Document| d.body().map(|b| NodeRef::text(&b).split_whitespace().collect::<String>()).unwrap_or_default();
            prop_assert_eq!(letters(&ours), letters(&theirs), "{:?}", html);
        }
    }
}
