mod config;
mod glob;
mod grab;
mod grab_flags;
mod helpers;
mod matching;
mod prep_article;
mod readability;
mod readable;
mod score;
#[cfg(feature = "serde")]
mod serde_helpers;
mod url_helpers;

#[cfg(feature = "aho-corasick")]
mod ac_automat;

pub use config::{CandidateSelectMode, Config, ParsePolicy, TextMode};
pub use readability::Article;
pub use readability::Metadata;
pub use readability::Readability;
pub use readable::is_probably_readable;

use thiserror::Error;

#[derive(Error, Debug)]
pub enum ReadabilityError {
    #[error("the document URL must be absolute")]
    BadDocumentURL,
    #[error("failed to grab the article")]
    GrabFailed,
    #[error("too many elements in the document to parse (found {0}, maximum {1})")]
    TooManyElements(usize, usize),
}

/// The normalized character count of each of `nodes` as content scoring reads it, from the
/// counts of every node under `root` primed by one walk: for tests of that walk against
/// `NodeRef::normalized_char_count`.
#[doc(hidden)]
pub fn primed_char_counts(root: &dom_query::NodeRef, nodes: &[dom_query::NodeRef]) -> Vec<usize> {
    let mut cache = helpers::CharCounterCache::primed(root);
    nodes.iter().map(|n| cache.char_count(n)).collect()
}

/// The elements under `root` named one of `names`, or holding one of the attributes `attrs`
/// when there are no names, that `selector` matches, found as the patched crate finds the
/// page's JSON-LD scripts, its `meta` elements and the elements of the article it cleans:
/// for tests against `select_matcher`. Nothing when the selector does not parse.
#[doc(hidden)]
pub fn matches_among<'a>(
    root: &dom_query::NodeRef<'a>,
    names: &[&str],
    attrs: &[&str],
    selector: &str,
) -> Vec<dom_query::NodeRef<'a>> {
    let Ok(matcher) = dom_query::Matcher::new(selector) else {
        return Vec::new();
    };
    if names.is_empty() {
        helpers::matches_among(root, helpers::holding(attrs), &matcher)
    } else {
        let names: Vec<dom_query::LocalName> =
            names.iter().map(|n| dom_query::LocalName::from(*n)).collect();
        helpers::matches_among(root, helpers::named(&names), &matcher)
    }
}

/// Whether an element is a dialog and whether it is an `h1` or `h2`, as the patched crate
/// reads them while it collects the elements to score: for tests against the selectors
/// `dialog,[aria-modal="true"][role="dialog"]` and `h1,h2`.
#[doc(hidden)]
pub fn dialog_and_heading(node: &dom_query::NodeRef) -> (bool, bool) {
    (helpers::is_dialog(node), helpers::is_h1_or_h2(node))
}

/// The normalized character count of each of `nodes` as the patched crate counts it one
/// node at a time: for tests of that count against `NodeRef::normalized_char_count`.
#[doc(hidden)]
pub fn counted_char_counts(nodes: &[dom_query::NodeRef]) -> Vec<usize> {
    nodes.iter().map(helpers::normalized_char_count).collect()
}
