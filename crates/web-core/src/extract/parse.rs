//! Parsing a page's HTML into a document, without what nothing reads and without the
//! parser's error reports.
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
//! document through a tree sink that drops the reports: the extractor never reads them.

use std::borrow::Cow;

use dom_query::Document;
use html5ever::tendril::StrTendril;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeBuilderOpts, TreeSink};
use html5ever::{Attribute, QualName};

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
    let (Quiet(doc), left) = tokens::build(html, Quiet(Document::default()), opts, leave);
    Parsed {
        doc,
        flattened: left.flattened,
        cut: left.cut,
    }
}

/// Parses `html` as [`parse_page`] does, nesting and elements left as they are: for tests.
#[cfg(test)]
pub(crate) fn parse(html: &str) -> Document {
    parse_page(html, usize::MAX, usize::MAX).doc
}

/// The document as a tree sink, its error reports dropped; every other call is the
/// document's own.
struct Quiet(Document);

impl TreeSink for Quiet {
    type ElemName<'a> = <Document as TreeSink>::ElemName<'a>;
    type Output = Quiet;
    type Handle = <Document as TreeSink>::Handle;

    fn finish(self) -> Quiet {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Self::Handle {
        self.0.get_document()
    }

    fn get_template_contents(&self, target: &Self::Handle) -> Self::Handle {
        self.0.get_template_contents(target)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.0.set_quirks_mode(mode);
    }

    fn same_node(&self, x: &Self::Handle, y: &Self::Handle) -> bool {
        self.0.same_node(x, y)
    }

    fn elem_name<'a>(&'a self, target: &'a Self::Handle) -> Self::ElemName<'a> {
        self.0.elem_name(target)
    }

    fn create_element(
        &self,
        name: QualName,
        attrs: Vec<Attribute>,
        flags: ElementFlags,
    ) -> Self::Handle {
        self.0.create_element(name, attrs, flags)
    }

    fn create_comment(&self, text: StrTendril) -> Self::Handle {
        self.0.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Self::Handle {
        self.0.create_pi(target, data)
    }

    fn append(&self, parent: &Self::Handle, child: NodeOrText<Self::Handle>) {
        self.0.append(parent, child);
    }

    fn append_before_sibling(&self, sibling: &Self::Handle, child: NodeOrText<Self::Handle>) {
        self.0.append_before_sibling(sibling, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &Self::Handle,
        prev_element: &Self::Handle,
        child: NodeOrText<Self::Handle>,
    ) {
        self.0
            .append_based_on_parent_node(element, prev_element, child);
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.0
            .append_doctype_to_document(name, public_id, system_id);
    }

    fn add_attrs_if_missing(&self, target: &Self::Handle, attrs: Vec<Attribute>) {
        self.0.add_attrs_if_missing(target, attrs);
    }

    fn remove_from_parent(&self, target: &Self::Handle) {
        self.0.remove_from_parent(target);
    }

    fn reparent_children(&self, node: &Self::Handle, new_parent: &Self::Handle) {
        self.0.reparent_children(node, new_parent);
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Self::Handle) -> bool {
        self.0.is_mathml_annotation_xml_integration_point(handle)
    }
}
