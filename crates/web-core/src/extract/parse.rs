//! Parsing HTML into a document without keeping the parser's error reports.
//!
//! The HTML parser reports every parse error to the tree it builds, and the document type
//! keeps each report in a list, one formatted string per error. A hostile page is
//! little but errors — two megabytes of NUL bytes or of `<` are two million of them — so
//! the list alone took hundreds of megabytes for a page whose text is a dozen
//! characters, and every copy of the document copied it again. [`parse`] builds the same
//! document through a tree sink that drops the reports: the extractor never reads them.

use std::borrow::Cow;

use dom_query::Document;
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeBuilderOpts, TreeSink};
use html5ever::{Attribute, ParseOpts, QualName, parse_document};

/// Parses `html` as a document, exactly as `Document::from` does (scripting disabled),
/// without keeping the parser's error reports.
pub(crate) fn parse(html: &str) -> Document {
    let opts = ParseOpts {
        tree_builder: TreeBuilderOpts {
            scripting_enabled: false,
            ..TreeBuilderOpts::default()
        },
        ..ParseOpts::default()
    };
    parse_document(Quiet(Document::default()), opts)
        .one(StrTendril::from(html))
        .0
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_the_one_document_from_builds_without_its_error_reports() {
        for (html, errors) in [
            (
                "<title>T</title><h1>Hello</h1><p>World <a href='b'>link</a></p>",
                true,
            ),
            (
                "<!doctype html><table><tr><td>cell<p>para</table><template><b>t</b></template>",
                false,
            ),
            (
                "<p>a\0b</p><<<<</></p><svg><foreignObject><p>x</p></foreignObject></svg>",
                true,
            ),
        ] {
            let ours = parse(html);
            let theirs = Document::from(html);
            assert_eq!(ours.html(), theirs.html(), "{html}");
            assert!(ours.errors.borrow().is_empty());
            assert_eq!(!theirs.errors.borrow().is_empty(), errors, "{html}");
        }
    }
}
