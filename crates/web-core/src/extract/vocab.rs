//! The class-name and element vocabulary the chrome filter (`html`) and the boilerplate
//! filter (`prune`) share, and that `render` consults: the elements that are never content,
//! the attributes that hide an element, the attributes something reads (the parser's tokens
//! leave out the others), the word and phrase lists that mark chrome, consent
//! banners, layout, content, author boxes and metadata in class names and ids, and the
//! reading of a class or id value against all of them at once ([`Sense`]): its words looked
//! up in one table, its phrases searched by one automaton, both built once from the lists.
//! Data and pure functions only; it depends on nothing in `extract` but the tree helpers.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use dom_query::{Element, NodeRef, local_name};

use super::tree::{attr, text_len, visible_len, with_element, with_text};

/// Whether an element is hidden by `aria-hidden="true"` (but a link, which that hides from
/// assistive technology alone: a card's second link around its picture or summary, shown
/// to the eye; a struck or inserted text, a sale's old and new prices, which screen
/// readers are told in words of their own; and a folded panel), or by `hidden` or an inline
/// `display: none` / `visibility: hidden` unless it is a folded panel ([`is_folded_panel`]),
/// a streamed segment ([`is_streamed_segment`]) or a cloak over the page: made invisible,
/// [`cloaks_page`]; removed from the layout, [`holds_every_h1`] or [`locks_main`].
pub(crate) fn is_hidden(node: &NodeRef<'_>) -> bool {
    with_element(node, |e| {
        // The attributes that hide an element, and its id: one pass over its attributes,
        // told apart by their interned names.
        let (mut aria_hidden, mut hidden, mut id, mut style) = (None, false, None, None);
        for a in &e.attrs {
            let name = &a.name.local;
            if *name == local_name!("aria-hidden") {
                aria_hidden = Some(&*a.value);
            } else if *name == local_name!("hidden") {
                hidden = true;
            } else if *name == local_name!("id") {
                id = Some(&*a.value);
            } else if *name == local_name!("style") {
                style = Some(&*a.value);
            }
        }
        // A server-rendered page streams its late parts in hidden segments that its script
        // moves into place (`<div hidden id="S:0">`): they are shown.
        if aria_hidden.is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
            && !matches!(&*e.name.local, "a" | "del" | "ins")
            // An accordion's folded section says it to assistive technology as well.
            && !is_folded_panel(e)
        {
            return true;
        }
        // A folded panel (a tab, an accordion's section) is hidden until the reader opens
        // it: its text is the page's. Only what is hidden otherwise is asked whether it is
        // one, not every element.
        if hidden && !id.is_some_and(is_streamed_segment) {
            return !is_folded_panel(e);
        }
        style.is_some_and(|s| {
            let [none, invisible] = style_says(s, [b"display:none", b"visibility:hidden"]);
            (none || invisible)
                && !is_folded_panel(e)
                && !(if none {
                    holds_every_h1(node) || locks_main(node)
                } else {
                    cloaks_page(node)
                })
        })
    })
    .unwrap_or(false)
}

/// Whether an inline style says each of two declarations (lowercase ASCII, each with a
/// first byte it does not repeat), its whitespace aside and ASCII case ignored: by one scan,
/// without a copy. Past a mismatch, a match can only start at the byte that broke it.
fn style_says(style: &str, needles: [&[u8]; 2]) -> [bool; 2] {
    let mut at = [0usize; 2];
    let mut found = [false; 2];
    for c in style.chars().filter(|c| !c.is_whitespace()) {
        let c = c.to_ascii_lowercase();
        for ((needle, at), found) in needles.iter().zip(&mut at).zip(&mut found) {
            if *found {
                continue;
            }
            let byte = |i: usize| char::from(needle[i]);
            *at = if c == byte(*at) {
                *at + 1
            } else {
                usize::from(c == byte(0))
            };
            *found = *at == needle.len();
        }
        if found == [true; 2] {
            break;
        }
    }
    found
}

/// Whether an element removed from the layout (`display: none`) holds every `h1` of its
/// document: the page's whole product or post held back until its script is ready (a
/// deferred block), not a hidden part of it. Asked of hidden elements alone, whose subtrees
/// do not overlap, so at most once for each `h1`.
fn holds_every_h1(node: &NodeRef<'_>) -> bool {
    let inside = node.descendants_it().filter(|d| d.has_name("h1")).count();
    inside > 0
        && node.ancestors_it(None).last().is_some_and(|root| {
            root.descendants_it()
                .filter(|d| d.has_name("h1"))
                .nth(inside)
                .is_none()
        })
}

/// Whether an element removed from the layout (`display: none`) within the page's `main`
/// holds at least [`LOCK_MIN_CHARS`] visible characters and half of the body's: the main
/// content held back until the page's script lifts a lock (a shop's grid a plugin shows
/// once it is ready), not a hidden part of it. Asked of hidden elements alone.
fn locks_main(node: &NodeRef<'_>) -> bool {
    let chars = text_len(node);
    chars >= LOCK_MIN_CHARS
        && node.ancestors_it(None).any(|a| a.has_name("main"))
        && node
            .ancestors_it(None)
            .find(|a| a.has_name("body"))
            .is_some_and(|body| holds_at_most(&body, chars * 2))
}

/// A block removed from the layout within the page's `main` is the content held back only
/// with at least this many visible characters (see [`locks_main`]).
const LOCK_MIN_CHARS: usize = 1000;

/// The most nodes [`holds_at_most`] reads: a page may hide many large blocks, and each
/// asks of the whole body.
const LOCK_SCAN_NODES: usize = 20_000;

/// Whether `root` holds at most `max` visible characters: its nodes read in order until
/// they hold more, and at most [`LOCK_SCAN_NODES`] of them (a body larger than that is taken
/// to hold more), so that asking it of each hidden block costs a bounded walk, not the page.
fn holds_at_most(root: &NodeRef<'_>, max: usize) -> bool {
    let mut seen = 0usize;
    for (read, node) in root.descendants_it().enumerate() {
        if read >= LOCK_SCAN_NODES {
            return false;
        }
        seen += with_text(&node, visible_len).unwrap_or(0);
        if seen > max {
            return false;
        }
    }
    true
}

/// Whether an element made invisible (not removed from the layout) holds an `h1` and at
/// least half of the body's text: a cloak over the page, which its script lifts once the
/// page is ready, not a hidden part of it.
fn cloaks_page(node: &NodeRef<'_>) -> bool {
    if !node.descendants_it().any(|d| d.has_name("h1")) {
        return false;
    }
    let Some(body) = node.ancestors_it(None).find(|a| a.has_name("body")) else {
        return false;
    };
    text_len(node) * 2 >= text_len(&body)
}

/// Whether an element is a panel a reader unfolds: a tab panel, an accordion's or a
/// collapsible section (by role, or by a word of its class).
fn is_folded_panel(e: &Element) -> bool {
    attr(e, "role")
        .is_some_and(|r| r.eq_ignore_ascii_case("tabpanel") || r.eq_ignore_ascii_case("region"))
        || attr(e, "class").is_some_and(|c| {
            c.split_ascii_whitespace().flat_map(words).any(|w| {
                ["collapse", "collapsible", "accordion", "tabpanel"]
                    .iter()
                    .any(|p| w.eq_ignore_ascii_case(p))
            })
        })
}

/// Whether an id is a streamed segment's (`S:` and a number), which a server-rendered page
/// holds hidden until its script moves it into place.
fn is_streamed_segment(id: &str) -> bool {
    id.strip_prefix("S:")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Elements removed with everything in them.
pub(crate) fn is_never_content(name: &str) -> bool {
    matches!(
        name,
        "script"
            | "style"
            | "template"
            | "svg"
            | "math"
            | "iframe"
            | "object"
            | "embed"
            | "canvas"
            | "video"
            | "audio"
            | "map"
            | "select"
            | "textarea"
            | "button"
            | "input"
            | "datalist"
            | "dialog"
            | "link"
            | "meta"
    )
}

/// The data attribute rendering reads: a code block's language.
pub(crate) const CODE_LANGUAGE: &str = "data-lang";

/// The attributes something reads, by name: content selection and the filters (`class`,
/// `id`, `role`, `itemprop`, `itemtype`, `style`, `hidden`, `aria-hidden`, `aria-modal`, `href`, `rel`,
/// `dir`, a tab's `aria-controls`, an accordion's `aria-expanded`, and a table's `datatable`, `summary` and `colspan`), metadata (`content`, `name`,
/// `property`, `http-equiv`, `charset`, `lang`, and `type`, which marks a data island),
/// rendering (`alt`, a list's `start`, [`CODE_LANGUAGE`]), and the tree builder, whose
/// rules read an `input`'s `type`, a `font`'s `color`, `face` and `size`, an
/// `annotation-xml`'s `encoding` and a `template`'s `shadowrootmode`.
const READ_ATTRIBUTES: [&str; 32] = [
    "class",
    "id",
    "role",
    "itemprop",
    "itemtype",
    "style",
    "hidden",
    "aria-hidden",
    "aria-modal",
    "aria-controls",
    "aria-expanded",
    "href",
    "rel",
    "dir",
    "datatable",
    "summary",
    "colspan",
    "content",
    "name",
    "property",
    "http-equiv",
    "charset",
    "lang",
    "type",
    "alt",
    "start",
    CODE_LANGUAGE,
    "color",
    "face",
    "size",
    "encoding",
    "shadowrootmode",
];

/// Whether nothing reads an attribute, by its name (see [`READ_ATTRIBUTES`]): the page's
/// data for its scripts (`data-*`), event handlers, presentation, accessibility labels and
/// the like.
pub(crate) fn is_unread_attribute(name: &[u8]) -> bool {
    // Most names share no length and first letter with a read one: told at once.
    let Some(first) = name.first() else {
        return true;
    };
    let (at, bit) = read_key(name.len(), *first);
    READ_KEYS[at] & bit == 0
        || !READ_ATTRIBUTES
            .iter()
            .any(|r| name.eq_ignore_ascii_case(r.as_bytes()))
}

/// Where a name of `len` bytes starting with `first` is marked in [`READ_KEYS`]: its
/// length's entry (modulo 16) and its first letter's bit (the lowercase byte modulo 32).
/// Names that differ may share a mark; a name with none is not read.
const fn read_key(len: usize, first: u8) -> (usize, u32) {
    (len % 16, 1 << (first.to_ascii_lowercase() % 32))
}

/// The marks of the [`READ_ATTRIBUTES`] (see [`read_key`]).
const READ_KEYS: [u32; 16] = {
    let mut keys = [0u32; 16];
    let mut i = 0;
    while i < READ_ATTRIBUTES.len() {
        let name = READ_ATTRIBUTES[i].as_bytes();
        let (at, bit) = read_key(name.len(), name[0]);
        keys[at] |= bit;
        i += 1;
    }
    keys
};

/// Elements whose attributes are all read or all matter, whatever their names:
/// - pictures and media, which content selection keeps by a lazy-loaded source in any
///   attribute, and embeds, kept when any attribute names a video (`image` is what the
///   tree builder makes `img`);
/// - the formatting elements, which the tree builder compares attribute by attribute: when
///   a fourth alike opens, it forgets the oldest of the three before, so cutting attributes
///   that differ would make alike what was not. An `a` is cut as any element: the tree
///   builder closes an open one before it opens another.
pub(crate) const KEEPS_ATTRIBUTES: [&str; 23] = [
    "img", "image", "picture", "source", "figure", "video", "audio", "object", "embed", "iframe",
    "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
];

/// Whole class names that mark hidden or screen-reader-only text.
const HIDDEN_CLASSES: &[&str] = &[
    "sr-only",
    "screen-reader-text",
    "screen-reader-only",
    "visually-hidden",
    "visuallyhidden",
    "element-invisible",
    "hidden",
    "d-none",
    "is-hidden",
    "u-hidden",
];

/// Whether a class value holds one of [`HIDDEN_CLASSES`] whole, or `hide` (a utility class
/// that hides, and on a product's page hides the store's data about the product).
pub(crate) fn has_hidden_class(value: &str) -> bool {
    value.split_ascii_whitespace().any(|t| {
        t.eq_ignore_ascii_case("hide") || HIDDEN_CLASSES.iter().any(|w| w.eq_ignore_ascii_case(t))
    })
}

/// Words in class names and ids that mark chrome wherever they appear.
const CHROME_WORDS: &[&str] = &[
    "share",
    "sharing",
    "shares",
    "sharebar",
    "shariff",
    "addthis",
    "sharethis",
    "social",
    "socials",
    "newsletter",
    "subscribe",
    "subscription",
    "signup",
    "comments",
    "disqus",
    "respond",
    "commentform",
    "advert",
    "advertisement",
    "ads",
    "ad",
    "adsbygoogle",
    "sponsored",
    "promo",
    "popup",
    "modal",
    "overlay",
    "skiplink",
    "skiplinks",
    "breadcrumb",
    "breadcrumbs",
    "outbrain",
    "taboola",
    "credit",
    "credits",
    "copyright",
    "login",
    "paywall",
    "cta",
];

/// Words in class names and ids that mark reader comments: a thread, a comment, its form.
/// Comments are never the page's content, however much of the page they fill.
const COMMENT_WORDS: &[&str] = &[
    "comment",
    "comments",
    "commentlist",
    "commentlisting",
    "commentthread",
    "commentbody",
    "commentform",
    "respond",
    "disqus",
    "discussion",
];

/// Words beside a comment word that make a name a post's state (`comments-open`), not a
/// comment.
const COMMENT_STATES: &[&str] = &["open", "closed", "enabled", "disabled", "allowed", "count"];

/// Phrases that mark reader comments when a class name or id contains them with its
/// separators removed (`comment_list`, `dsq-comments`, `CommentRating`).
const COMMENT_PHRASES: &[&str] = &[
    "commentlist",
    "commentthread",
    "commentbody",
    "commentform",
    "commentcontent",
    "commententry",
    "commentrating",
    "dsqcomment",
];

/// Words in class names and ids that mark a consent banner: removed however long its text.
/// Not `cmp` alone: a component library names every block of a page `cmp-…` (`cmp-text`,
/// `cmp-container`), the article's text included.
const CONSENT_WORDS: &[&str] = &["cookie", "cookies", "cookiebanner", "consent", "gdpr"];

/// Phrases that mark a consent banner when a class name or id contains them with its
/// separators removed: a consent manager's banner (`cmp-banner`, `cmpbox`).
const CONSENT_PHRASES: &[&str] = &[
    "cmpbanner",
    "cmpbox",
    "cmpwrapper",
    "cmpdialog",
    "cmpnotice",
    "cmppopup",
];

/// Phrases that mark chrome when a class name or id contains them with its separators
/// removed (`read-more`, `c-see-also__list`, `mostPopular`).
const CHROME_PHRASES: &[&str] = &[
    "readmore",
    "readalso",
    "alsoread",
    "seealso",
    "viewmore",
    "mostread",
    "mostpopular",
    "morestories",
    "morenews",
    "morearticles",
    "relatedposts",
    "relatedarticles",
    "relatedstories",
    "youmayalso",
    "youmightalso",
];

/// Words in class names and ids that mark layout chrome, unless the same name also says
/// content, and only when the element is mostly links or short.
const LAYOUT_WORDS: &[&str] = &[
    "nav",
    "navbar",
    "navigation",
    "menu",
    "mainmenu",
    "megamenu",
    "footer",
    "sidebar",
    "masthead",
    "topbar",
    "toolbar",
    "pagination",
    "pager",
    "related",
    "recommended",
    "recommendations",
    "widget",
];

/// Words in class names and ids that mark a product's reviews: its customers' reviews and
/// ratings, chrome on a product's page however much of it they fill (see
/// [`Names::reviews`]).
const REVIEW_WORDS: &[&str] = &["review", "reviews"];

/// Words in class names and ids that mark content.
const CONTENT_WORDS: &[&str] = &[
    "content", "article", "main", "body", "text", "story", "entry",
];

/// ARIA roles of chrome.
pub(crate) const CHROME_ROLES: &[&str] = &[
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "search",
    "dialog",
    "alertdialog",
    "menu",
    "menubar",
    "toolbar",
];

/// How a class or id value classifies an element.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct Names {
    /// Hidden text, or a cookie or consent banner: removed however long its text.
    pub(crate) always: bool,
    /// Strong chrome (share bars, ads, comment widgets).
    pub(crate) strong: bool,
    /// Layout chrome (menus, sidebars, related lists) not also named content.
    pub(crate) layout: bool,
    /// A name that says content and nothing else.
    pub(crate) content: bool,
    /// Reader comments (a thread, a comment, the comment form): removed however long.
    pub(crate) comments: bool,
    /// A product's reviews: removed however long on a product's page.
    pub(crate) reviews: bool,
}

impl Names {
    /// What two values (an element's class and id) say together.
    pub(crate) fn and(self, other: Names) -> Names {
        Names {
            always: self.always || other.always,
            strong: self.strong || other.strong,
            layout: self.layout || other.layout,
            content: self.content || other.content,
            comments: self.comments || other.comments,
            reviews: self.reviews || other.reviews,
        }
    }
}

/// Everything the filters ask of one class or id value, read in one pass over its tokens:
/// the chrome filter's [`Names`], and the boilerplate filter's author, metadata and post
/// marks.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct Sense {
    /// What the value says of the element's role as chrome or content.
    pub(crate) names: Names,
    /// A word of an author box ([`AUTHOR_WORDS`]).
    pub(crate) author: bool,
    /// A word or phrase of short metadata ([`META_WORDS`], [`META_PHRASES`]).
    pub(crate) meta: bool,
    /// The value names the element as a post or an article itself: a token whose last word
    /// is one of [`ENTRY_WORDS`] and that has no word of an author box. Blog engines name a
    /// post's container after its author as well (`entry-author-jane_doe`, `author-admin`);
    /// such a container is the post, not an author box.
    pub(crate) entry: bool,
}

impl Sense {
    /// What two values, or two tokens of one value, say together: a value says what each of
    /// its tokens says ([`Sense::of`] reads each token alone).
    pub(crate) fn and(self, other: Sense) -> Sense {
        Sense {
            names: self.names.and(other.names),
            author: self.author || other.author,
            meta: self.meta || other.meta,
            entry: self.entry || other.entry,
        }
    }

    /// Reads a class or id value. A token's words say nothing when the token is neutral
    /// ([`is_neutral`]), nor past a taxonomy word ([`role_part`]).
    pub(crate) fn of(value: &str) -> Sense {
        let mut sense = Sense::default();
        for (token, lists, last) in value.split_ascii_whitespace().map(role_part) {
            sense.entry |= last & IN_ENTRY != 0 && lists & IN_AUTHOR == 0;
            if token.is_empty() || is_neutral(token) {
                continue;
            }
            let phrases = with_joined(token, phrase_lists);
            sense.author |= lists & IN_AUTHOR != 0;
            sense.meta |= lists & IN_META != 0 || phrases & IN_META_PHRASES != 0;
            // The list is lowercase (a test checks it), so an ASCII case-insensitive match
            // against a token is a match against the token lowercased.
            if HIDDEN_CLASSES.iter().any(|w| w.eq_ignore_ascii_case(token)) {
                sense.names.always = true;
                continue;
            }
            let names = &mut sense.names;
            let (layout, content) = (lists & IN_LAYOUT != 0, lists & IN_CONTENT != 0);
            names.always |= lists & IN_CONSENT != 0 || phrases & IN_CONSENT_PHRASES != 0;
            let comments = lists & IN_COMMENT != 0 || phrases & IN_COMMENT_PHRASES != 0;
            // `comments-open` says what the post allows, not what the element is.
            names.comments |= comments && lists & IN_STATE == 0;
            names.reviews |= lists & IN_REVIEW != 0;
            // A phrase names chrome unless the same name also says content
            // (`entry-content-read-more` is the content, folded).
            let strong = lists & IN_CHROME != 0 || (!content && phrases & IN_CHROME_PHRASES != 0);
            names.strong |= strong;
            names.layout |= layout && !content;
            names.content |= content && !layout && !strong;
        }
        sense
    }
}

/// A set of the word and phrase lists, one bit each: what [`word_lists`] and
/// [`phrase_lists`] answer.
type Lists = u16;
/// [`CHROME_WORDS`].
const IN_CHROME: Lists = 1;
/// [`CONSENT_WORDS`].
const IN_CONSENT: Lists = 1 << 1;
/// [`LAYOUT_WORDS`].
const IN_LAYOUT: Lists = 1 << 2;
/// [`CONTENT_WORDS`].
const IN_CONTENT: Lists = 1 << 3;
/// [`COMMENT_WORDS`].
const IN_COMMENT: Lists = 1 << 4;
/// [`COMMENT_STATES`].
const IN_STATE: Lists = 1 << 5;
/// [`AUTHOR_WORDS`].
const IN_AUTHOR: Lists = 1 << 6;
/// [`META_WORDS`].
const IN_META: Lists = 1 << 7;
/// [`TAXONOMY_WORDS`].
const IN_TAXONOMY: Lists = 1 << 8;
/// [`ENTRY_WORDS`].
const IN_ENTRY: Lists = 1 << 9;
/// [`COMMENT_PHRASES`].
const IN_COMMENT_PHRASES: Lists = 1 << 10;
/// [`CHROME_PHRASES`].
const IN_CHROME_PHRASES: Lists = 1 << 11;
/// [`META_PHRASES`].
const IN_META_PHRASES: Lists = 1 << 12;
/// [`CONSENT_PHRASES`].
const IN_CONSENT_PHRASES: Lists = 1 << 13;
/// [`REVIEW_WORDS`].
const IN_REVIEW: Lists = 1 << 14;

/// The word lists, each with its bit.
const WORD_LISTS: [(&[&str], Lists); 11] = [
    (CHROME_WORDS, IN_CHROME),
    (CONSENT_WORDS, IN_CONSENT),
    (LAYOUT_WORDS, IN_LAYOUT),
    (CONTENT_WORDS, IN_CONTENT),
    (COMMENT_WORDS, IN_COMMENT),
    (COMMENT_STATES, IN_STATE),
    (AUTHOR_WORDS, IN_AUTHOR),
    (META_WORDS, IN_META),
    (TAXONOMY_WORDS, IN_TAXONOMY),
    (ENTRY_WORDS, IN_ENTRY),
    (REVIEW_WORDS, IN_REVIEW),
];

/// The phrase lists, each with its bit.
const PHRASE_LISTS: [(&[&str], Lists); 4] = [
    (COMMENT_PHRASES, IN_COMMENT_PHRASES),
    (CHROME_PHRASES, IN_CHROME_PHRASES),
    (CONSENT_PHRASES, IN_CONSENT_PHRASES),
    (META_PHRASES, IN_META_PHRASES),
];

/// The lists made into lookups, once per process: a class name's word is looked up among the
/// few listed words of its length and first letter, and its joined letters searched for
/// every phrase at once, instead of comparing each word with each list's words and each
/// phrase at each offset.
struct Tables {
    /// The listed words with the lists each is in, by [`bucket`] of length and first letter.
    words: Vec<Vec<(&'static str, Lists)>>,
    /// An automaton over every listed phrase (`None` only if it could not be built, which
    /// a test rules out).
    phrases: Option<AhoCorasick>,
    /// Each phrase's list, by the automaton's pattern number.
    phrase_lists: Vec<Lists>,
}

/// The longest word the lookups hold; a longer word is in no list (a test checks the lists
/// against it).
const LONGEST_WORD: usize = 16;

/// Where a word of ASCII letters and digits is kept in [`Tables::words`]: by its length and
/// its first byte, without ASCII case; `None` for a word no list can hold.
fn bucket(word: &str) -> Option<usize> {
    let first = *word.as_bytes().first()?;
    let at = match first.to_ascii_lowercase() {
        b @ b'a'..=b'z' => usize::from(b - b'a'),
        b @ b'0'..=b'9' => 26 + usize::from(b - b'0'),
        _ => return None,
    };
    (word.len() <= LONGEST_WORD).then_some(word.len() * 36 + at)
}

impl Tables {
    /// Builds the lookups from the lists.
    fn build() -> Self {
        let mut words: Vec<Vec<(&'static str, Lists)>> = vec![Vec::new(); (LONGEST_WORD + 1) * 36];
        for (list, bit) in WORD_LISTS {
            for &word in list {
                let Some(at) = bucket(word) else { continue };
                match words[at].iter_mut().find(|(w, _)| *w == word) {
                    Some((_, lists)) => *lists |= bit,
                    None => words[at].push((word, bit)),
                }
            }
        }
        let (patterns, phrase_lists): (Vec<&str>, Vec<Lists>) = PHRASE_LISTS
            .iter()
            .flat_map(|(list, bit)| list.iter().map(move |p| (*p, *bit)))
            .unzip();
        Tables {
            words,
            phrases: AhoCorasick::new(patterns).ok(),
            phrase_lists,
        }
    }
}

/// The lookups, built on first use.
static TABLES: LazyLock<Tables> = LazyLock::new(Tables::build);

/// The word lists a word of a class or id value is in, compared without ASCII case.
fn word_lists(word: &str) -> Lists {
    bucket(word).map_or(0, |at| {
        TABLES.words[at]
            .iter()
            .find(|(w, _)| w.eq_ignore_ascii_case(word))
            .map_or(0, |(_, lists)| *lists)
    })
}

/// The phrase lists with a phrase that `joined` (a token's joined letters, lowercase)
/// contains.
fn phrase_lists(joined: &str) -> Lists {
    let tables = &*TABLES;
    tables.phrases.as_ref().map_or(0, |ac| {
        ac.find_overlapping_iter(joined).fold(0, |lists, m| {
            lists | tables.phrase_lists[m.pattern().as_usize()]
        })
    })
}

/// Runs `f` on a class or id token's ASCII letters and digits, lowercased, separators
/// removed (`entry-Meta` is `entrymeta`): on the stack for a token of usual length.
fn with_joined<R>(token: &str, f: impl FnOnce(&str) -> R) -> R {
    let mut buf = [0u8; 64];
    let mut n = 0;
    for b in token.bytes().filter(u8::is_ascii_alphanumeric) {
        if n == buf.len() {
            let joined: String = token
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .map(|c| c.to_ascii_lowercase())
                .collect();
            return f(&joined);
        }
        buf[n] = b.to_ascii_lowercase();
        n += 1;
    }
    // ASCII bytes only: always UTF-8.
    f(std::str::from_utf8(&buf[..n]).unwrap_or_default())
}

/// Whether a class or id token says nothing of the element's role, so that its words do not
/// mark chrome: a negation (`no-share`, `without-sidebar`) or a script's hook (`js-social`,
/// which names what a script does with the element, not what the element is).
fn is_neutral(token: &str) -> bool {
    [
        "no-", "no_", "not-", "without-", "hide-", "has-no-", "js-", "js_",
    ]
    .iter()
    .any(|p| {
        token.len() > p.len()
            && token
                .get(..p.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(p))
    })
}

/// Words that introduce a taxonomy term in a class token (`category-social-issues`,
/// `entry-category-social_media`, `tag-cookies`): the words after them name the content's
/// subject, not the element's role. Only the singular: a plural names a list of terms
/// (`post-tags-content`, `categories-widget`).
const TAXONOMY_WORDS: &[&str] = &["category", "tag", "topic"];

/// The part of a class or id token that may say the element's role: the token up to a
/// taxonomy word followed by a term (`entry-` of `entry-category-social_media`; nothing of
/// `category-news`). A taxonomy word that ends the token (`post-tag`) is a role. With it, the
/// lists its words are in, and those its last word is in.
fn role_part(token: &str) -> (&str, Lists, Lists) {
    let (mut lists, mut last) = (0, 0);
    let builder = words(token)
        .next()
        .is_some_and(|w| BUILDERS.iter().any(|b| b.eq_ignore_ascii_case(w)));
    let mut parts = words(token).peekable();
    while let Some(word) = parts.next() {
        let word_in = if builder && is_builder_block(word) {
            0
        } else {
            word_lists(word)
        };
        if word_in & IN_TAXONOMY != 0 && parts.peek().is_some() {
            // `word` is a subslice of `token`: its offset is where the term's part begins.
            // The words before it are the part's words: a word ends before the next begins.
            let at = word.as_ptr() as usize - token.as_ptr() as usize;
            return (token.get(..at).unwrap_or_default(), lists, last);
        }
        lists |= word_in;
        last = word_in;
    }
    (token, lists, last)
}

/// The first words of a page builder's class names, which name every block of a page after
/// its kind (`elementor-widget-heading`, `elementor-widget-container`): in them, `widget`
/// is the builder's word for any block, not a sidebar's widget (see [`is_builder_block`]).
const BUILDERS: &[&str] = &["elementor"];

/// Whether a word of a page builder's class name is its word for any block.
fn is_builder_block(word: &str) -> bool {
    word.eq_ignore_ascii_case("widget") || word.eq_ignore_ascii_case("widgets")
}

/// Words in class names and ids that mark an author box.
const AUTHOR_WORDS: &[&str] = &["author", "authors", "bio", "biography", "byline", "bylines"];

/// Words in class names and ids that mark short metadata about the content.
const META_WORDS: &[&str] = &[
    "date",
    "timestamp",
    "published",
    "pubdate",
    "posted",
    "metadata",
    "tags",
    "tag",
    "caption",
    "figcaption",
    "credit",
    "credits",
];

/// Phrases in class names and ids (separators removed) that mark the metadata line of a
/// post or an article.
const META_PHRASES: &[&str] = &[
    "postmeta",
    "entrymeta",
    "articlemeta",
    "storymeta",
    "postinfo",
    "entryinfo",
    "articleinfo",
    "publishdate",
    "publicationdate",
    "postdate",
    "entrydate",
    "articledate",
];

/// Phrases (lowercase words in order) of the lines a site repeats at the end of every page:
/// legal, contact and subscription notes, share prompts, comment counters, page dates.
pub(crate) const FOOTER_PHRASES: &[&[&str]] = &[
    &["all", "rights", "reserved"],
    &["privacy", "policy"],
    &["terms", "of", "use"],
    &["terms", "of", "service"],
    &["terms", "and", "conditions"],
    &["contact", "us"],
    &["powered", "by"],
    &["follow", "us"],
    &["like", "us", "on"],
    &["leave", "a", "comment"],
    &["leave", "a", "reply"],
    &["last", "modified"],
    &["last", "updated"],
    &["share", "this"],
    &["share", "it"],
    &["tweet", "this"],
    &["tweet", "it"],
    &["print", "this"],
    &["print", "it"],
    &["email", "this"],
    &["email", "it"],
    &["e", "mail", "this"],
    &["e", "mail", "it"],
];

/// Phrases of a short heading over other products than the one a product's page sells
/// (recommendations, what others bought or viewed, what goes with it), lowercase.
pub(crate) const RECOMMENDATION_PHRASES: &[&str] = &[
    "related products",
    "related items",
    "explore related",
    "you may also like",
    "you might also like",
    "recommended for you",
    "also viewed",
    "also bought",
    "customers who bought",
    "customers who viewed",
    "similar items",
    "similar products",
    "recently viewed",
    "frequently bought together",
    "complete the look",
    "get the look",
    "how about these",
];

/// The first words of a line that opens a comment section, in the languages most pages are
/// in. A one-word opener counts only alone or before a count (`Comments`, `Kommentare (3)`);
/// `Discussion` and `Comment` are not among them, as sections of papers and reports.
pub(crate) const COMMENT_OPENERS: &[&[&str]] = &[
    &["comments"],
    &["leave", "a", "comment"],
    &["leave", "a", "reply"],
    &["leave", "your", "comment"],
    &["post", "a", "comment"],
    &["add", "a", "comment"],
    &["add", "comment"],
    &["write", "a", "comment"],
    &["no", "comments"],
    &["comments", "are", "closed"],
    &["comments", "closed"],
    &["join", "the", "discussion"],
    &["reader", "comments"],
    &["kommentare"],
    &["kommentar", "schreiben"],
    &["kommentare", "schreiben"],
    &["keine", "kommentare"],
    &["comentarios"],
    &["deja", "un", "comentario"],
    &["dejar", "un", "comentario"],
    &["commentaires"],
    &["laisser", "un", "commentaire"],
    &["komentarze"],
    &["dodaj", "komentarz"],
    &["commenti"],
    &["lascia", "un", "commento"],
];

/// The English month names, whole and in their usual shortened forms.
pub(crate) const MONTH_NAMES: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "sept",
];

/// First words of a line that dates or files a post (`Posted on …`, `Filed under …`).
pub(crate) const FOOTER_OPENERS: &[&str] = &["posted", "published", "filed"];

/// Whether a class or id value names a headline or a title: holds `headline` or `title`,
/// compared without ASCII case, anywhere (`entry-title`, `articleHeadline`, `subtitle`).
pub(crate) fn names_headline(value: &str) -> bool {
    holds_any(value, &[b"title", b"headline"])
}

/// Whether `value` holds one of `words` (lowercase ASCII, each starting with a letter)
/// anywhere, ASCII case ignored, by one pass over its bytes: a word is tried only where its
/// first letter is. A byte with its `0x20` bit set is a letter's lowercase form only if it
/// was that letter in either case, so the first letters are found without a branch on
/// case.
fn holds_any(value: &str, words: &[&[u8]]) -> bool {
    let bytes = value.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        let first = b | 0x20;
        words.iter().any(|word| {
            word.first() == Some(&first)
                && bytes
                    .get(i..i + word.len())
                    .is_some_and(|w| w.eq_ignore_ascii_case(word))
        })
    })
}

/// Whether a schema.org type (a microdata `itemtype`, or a JSON-LD island's text) names a
/// discussion thread: a forum post (`DiscussionForumPosting`) or a question page (`QAPage`),
/// whose posts are the page's content rather than reader comments.
pub(crate) fn names_thread(value: &str) -> bool {
    value.contains("DiscussionForumPosting") || value.contains("QAPage")
}

/// Whether a class value names what a thread's post carries besides its text: a token
/// holding `signature` (`message-signature`, `postsignature`: the writer's signature, or a
/// question's card of its writer).
pub(crate) fn names_post_furniture(value: &str) -> bool {
    // A token shorter than every word holds none; the others are joined in one buffer.
    let shortest = POST_FURNITURE.iter().map(|p| p.len()).min().unwrap_or(0);
    let mut joined: Vec<u8> = Vec::new();
    value.split_ascii_whitespace().any(|t| {
        if t.len() < shortest {
            return false;
        }
        joined.clear();
        joined.extend(
            t.bytes()
                .filter(u8::is_ascii_alphanumeric)
                .map(|b| b.to_ascii_lowercase()),
        );
        POST_FURNITURE
            .iter()
            .any(|p| joined.windows(p.len()).any(|w| w == p.as_bytes()))
    })
}

/// What names a thread's post's furniture in a class token, its separators removed: the
/// writer's signature, and the card of the writer's counts (`message-userExtras`,
/// `user-details`, `userstats`, `extraUserInfo`).
const POST_FURNITURE: &[&str] = &[
    "signature",
    "userextra",
    "userdetails",
    "userstats",
    "extrauserinfo",
    "postprofile",
    "authorstatistics",
    "authorpaneinfo",
    "authorpanestats",
];

/// Whether a class value names a post's writer or the pane that shows them: a token
/// holding `user`, `author`, `poster`, `profile` or `member` (`postprofile`, `userinfo`,
/// `message-userDetails`, `author_information`).
pub(crate) fn names_writer(value: &str) -> bool {
    holds_any(
        value,
        &[b"user", b"author", b"poster", b"profile", b"member"],
    )
}

/// The last words of class tokens that name a post or an article itself (`entry`, `hentry`,
/// `serendipity_entry`, `post`).
const ENTRY_WORDS: &[&str] = &["entry", "hentry", "post", "article", "story"];

/// The words of a class or id token: split at characters other than letters and digits, and
/// where a lower-case letter is followed by an upper-case one (`articleMeta`).
pub(crate) fn words(token: &str) -> Words<'_> {
    Words { rest: token }
}

/// The iterator of [`words`], which allocates nothing.
pub(crate) struct Words<'a> {
    /// What is left of the token to split.
    rest: &'a str,
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.rest.as_bytes();
        let Some(start) = bytes.iter().position(u8::is_ascii_alphanumeric) else {
            self.rest = "";
            return None;
        };
        let mut end = start + 1;
        while end < bytes.len()
            && bytes[end].is_ascii_alphanumeric()
            && !(bytes[end - 1].is_ascii_lowercase() && bytes[end].is_ascii_uppercase())
        {
            end += 1;
        }
        // Both ends sit next to an ASCII byte, so on character boundaries.
        let word = self.rest.get(start..end).unwrap_or_default();
        self.rest = self.rest.get(end..).unwrap_or_default();
        Some(word)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn names(value: &str) -> (bool, bool, bool) {
        let n = Sense::of(value).names;
        (n.strong, n.layout, n.content)
    }

    fn names_entry(value: &str) -> bool {
        Sense::of(value).entry
    }

    #[test]
    fn a_post_s_profile_and_its_writer_s_statistics_are_its_furniture() {
        assert!(names_post_furniture("postprofile"));
        assert!(names_post_furniture("author_statistics"));
        assert!(names_post_furniture("cAuthorPane_info ipsList_reset"));
        assert!(names_post_furniture("ipsList_reset cAuthorPane_stats"));
        // The pane's heading, the writer's name, is not.
        assert!(!names_post_furniture("cAuthorPane_author"));
        assert!(names_post_furniture("message-userExtras"));
        assert!(!names_post_furniture("post-body author"));
    }

    #[test]
    fn a_post_s_writer_pane_is_named_by_its_writer() {
        assert!(names_writer("postprofile"));
        assert!(names_writer("messageUserInfo"));
        assert!(names_writer("author_information"));
        assert!(names_writer("poster"));
        assert!(names_writer("memberCard"));
        assert!(!names_writer("postbody content"));
    }

    #[test]
    fn a_style_says_a_declaration_as_its_copy_without_whitespace_in_lowercase_does() {
        let needles: [&[u8]; 2] = [b"display:none", b"visibility:hidden"];
        let styles = [
            "",
            "display:none",
            "DISPLAY : None;",
            "color:red; display:\tn o n e",
            "ddisplay:none",
            "display:display:none",
            "display:nonvisibility:hidden",
            "visibility: visible; display: block",
            "visibility:hiddeN",
            "visibilityvisibility:hidden",
            "dis\u{a0}play:none",
            "display:non",
            "ÉDISPLAY:NONE",
        ];
        for style in styles {
            let copy = style
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .to_ascii_lowercase();
            let want = needles.map(|n| copy.contains(std::str::from_utf8(n).unwrap()));
            assert_eq!(style_says(style, needles), want, "{style}");
        }
        assert_eq!(style_says("display: None", needles), [true, false]);
    }

    #[test]
    fn a_folded_panel_is_shown_whatever_hides_it_and_a_visible_one_is_not_hidden() {
        let hides = [
            "",
            " hidden",
            " hidden id='S:1'",
            " style='display: None'",
            " style='visibility:hidden'",
            " aria-hidden=true",
        ];
        let folds = [
            "",
            " class='tab accordion-body'",
            " role=tabpanel",
            " role=region aria-labelledby=b1",
            " class=faq",
        ];
        for hide in hides {
            for fold in folds {
                let doc = crate::extract::parse::parse(&format!(
                    "<html><body><div{hide}{fold}><p>Text.</p></div><p>More text of \
                     the page than the panel holds.</p></body></html>"
                ));
                let node = doc.select_single("body > div").nodes()[0];
                let folded = with_element(&node, is_folded_panel).unwrap_or(false);
                let hidden = match hide {
                    "" | " hidden id='S:1'" => false,
                    _ => !folded,
                };
                assert_eq!(is_hidden(&node), hidden, "{hide} {fold}");
            }
        }
    }

    #[test]
    fn a_body_s_text_is_weighed_by_a_bounded_walk() {
        let doc = crate::extract::parse::parse("<html><body><p>Short text.</p></body></html>");
        let body = doc.select_single("body").nodes()[0];
        assert!(holds_at_most(&body, 10));
        assert!(!holds_at_most(&body, 9));
        // Past the nodes it reads, a body is taken to hold more, whatever its text.
        let doc = crate::extract::parse::parse(&format!(
            "<html><body>{}<p>Short text.</p></body></html>",
            "<i></i>".repeat(LOCK_SCAN_NODES)
        ));
        let body = doc.select_single("body").nodes()[0];
        assert!(!holds_at_most(&body, 1000));
    }

    #[test]
    fn a_hidden_wrapper_of_most_of_the_main_content_is_a_lock_its_script_lifts() {
        let grid: String = (0..30)
            .map(|i| format!("<li>Dark roast coffee number {i}, one pound bag, $19.99</li>"))
            .collect();
        let hidden = |wrapper: &str, more: &str| {
            let doc = crate::extract::parse::parse(&format!(
                "<html><body><{wrapper}><div class=locked style='display:none'><ul>{grid}\
                 </ul></div><p>{more}</p></{wrapper}></body></html>"
            ));
            is_hidden(&doc.select_single("div.locked").nodes()[0])
        };
        assert!(!hidden("main", "Fresh coffee."));
        // Outside the page's main, or holding a small part of the page, it stays hidden.
        assert!(hidden("div", "Fresh coffee."));
        assert!(hidden("main", &"Fresh coffee. ".repeat(200)));
    }

    #[test]
    fn class_names_classify_by_word_phrase_and_negation() {
        assert_eq!(names("share-bar"), (true, false, false));
        assert_eq!(names("c-read-more__list"), (true, false, false));
        assert_eq!(names("mostPopular"), (true, false, false));
        assert_eq!(names("cta-global__container"), (true, false, false));
        // A phrase beside a content word is the content, folded.
        assert_eq!(names("entry-content-read-more"), (false, false, true));
        assert_eq!(names("sidebarBlocks"), (false, true, false));
        // A page builder's word for any block is no sidebar's widget; what it names the block
        // after still counts.
        assert_eq!(names("sidebar-widget widget"), (false, true, false));
        for block in [
            "elementor-widget-container",
            "elementor-element elementor-widget elementor-widget-heading",
        ] {
            assert_eq!(names(block), (false, false, false), "{block}");
        }
        assert_eq!(names("elementor-widget-nav-menu"), (false, true, false));
        assert_eq!(
            names("elementor-widget-share-buttons"),
            (true, false, false)
        );
        assert_eq!(
            names("no-share category-social-issues tag-cookies"),
            (false, false, false)
        );
        for always in ["cookie-notice", "cmp-banner", "cmpbox", "sr-only", "d-none"] {
            assert!(Sense::of(always).names.always, "{always}");
        }
        // A component library's blocks (`cmp-text`) are not a consent manager's banner.
        for block in [
            "cmp-text",
            "cmp-container container-b99be87d7a",
            "cmp-teaser",
        ] {
            assert!(!Sense::of(block).names.always, "{block}");
        }
        // A post filed under a category named after chrome is still the post; a script's
        // hook is not a role; a taxonomy word that ends the token is one.
        assert_eq!(
            names("entry-category-social_media js-social-images"),
            (false, false, true)
        );
        assert_eq!(names("post-tags social"), (true, false, false));
        let role = |token| role_part(token).0;
        assert_eq!(role("entry-category-social_media"), "entry-");
        assert_eq!(role("category-news"), "");
        assert_eq!(role("post-tag"), "post-tag");
        assert_eq!(role("post-tags-content"), "post-tags-content");
        assert_eq!(role("entryCategorySocial"), "entry");
        assert!(names_entry("entry-category-social_media entry-type-post"));
        assert!(!is_neutral("no-"));
        assert!(!is_neutral("“item“"));
    }

    /// The lists a word is in, compared with each list's words one by one: what the
    /// sorted table must answer.
    fn listed_in(word: &str) -> Lists {
        WORD_LISTS
            .iter()
            .filter(|(list, _)| list.iter().any(|w| w.eq_ignore_ascii_case(word)))
            .fold(0, |lists, (_, bit)| lists | bit)
    }

    /// The phrase lists with a phrase `joined` contains, by `str::contains`: what the
    /// automaton must answer.
    fn phrased_in(joined: &str) -> Lists {
        PHRASE_LISTS
            .iter()
            .filter(|(list, _)| list.iter().any(|p| joined.contains(p)))
            .fold(0, |lists, (_, bit)| lists | bit)
    }

    #[test]
    fn every_listed_word_and_phrase_is_found_in_its_lists() {
        assert!(TABLES.phrases.is_some());
        for (list, _) in WORD_LISTS {
            for word in list {
                assert!(bucket(word).is_some(), "{word} is too long or not a word");
                assert!(word.bytes().all(|b| b.is_ascii_alphanumeric()), "{word}");
            }
        }
        for (list, _) in WORD_LISTS {
            for word in list {
                for spelled in [word.to_string(), word.to_ascii_uppercase()] {
                    assert_eq!(word_lists(&spelled), listed_in(word), "{spelled}");
                }
                assert_eq!(
                    word_lists(&format!("{word}x")),
                    listed_in(&format!("{word}x"))
                );
            }
        }
        for (list, bit) in PHRASE_LISTS {
            for phrase in list {
                for joined in [phrase.to_string(), format!("x{phrase}y")] {
                    assert_ne!(phrase_lists(&joined) & bit, 0, "{joined}");
                    assert_eq!(phrase_lists(&joined), phrased_in(&joined), "{joined}");
                }
            }
        }
        assert_eq!(word_lists(""), 0);
        assert_eq!(word_lists(&"a".repeat(40)), 0);
        assert_eq!(phrase_lists("dsqcommen"), 0);
    }

    /// Pieces of class and id values: listed words in several spellings, parts of phrases,
    /// negations, taxonomy words and separators.
    fn piece() -> impl Strategy<Value = String> {
        let listed: Vec<&'static str> = WORD_LISTS
            .iter()
            .chain(PHRASE_LISTS.iter())
            .flat_map(|(list, _)| list.iter().copied())
            .chain(HIDDEN_CLASSES.iter().copied())
            .collect();
        prop_oneof![
            4 => proptest::sample::select(listed.clone()).prop_map(str::to_owned),
            2 => proptest::sample::select(listed).prop_map(|w| {
                let mut c = w.chars();
                c.next().map_or(String::new(), |f| f.to_ascii_uppercase().to_string() + c.as_str())
            }),
            2 => proptest::sample::select(vec![
                "-", "_", "__", " ", "  ", "no-", "js-", "has-no-", "read", "more", "also", "x",
                "9", "é", "Ü", "comments-", "entry-", "category-", "-tag", "post",
            ])
            .prop_map(str::to_owned),
            1 => "[a-zA-Z0-9]{1,6}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// One pass with the lookups reads a value as the lists, compared one by one, say.
        #[test]
        fn the_tables_say_what_the_lists_say(pieces in proptest::collection::vec(piece(), 1..8)) {
            let value = pieces.concat();
            for token in value.split_ascii_whitespace() {
                for word in words(token) {
                    prop_assert_eq!(word_lists(word), listed_in(word), "{}", word);
                }
                with_joined(token, |joined| {
                    assert_eq!(phrase_lists(joined), phrased_in(joined), "{joined}");
                });
            }
            prop_assert_eq!(Sense::of(&value), reference::sense(&value), "{:?}", value);
        }
    }

    proptest! {
        /// Words found eight bytes at a time are those a lowercased copy holds, wherever they
        /// start or end, whatever surrounds them.
        #[test]
        fn held_words_are_those_a_lowercased_copy_holds(
            pieces in proptest::collection::vec(proptest::sample::select(&[
                "Title", "HEADLINE", "tit", "le", "head", "line", "user", "AUTHOR", "poster",
                "Profile", "membe", "r", "t", "h", "é", "日本", "-", " ", "x", "0123456",
                "\u{7f}", "T\u{301}",
            ][..]), 0..24)
        ) {
            let value = pieces.concat();
            let lower = value.to_ascii_lowercase();
            let holds = |word: &str| lower.as_bytes().windows(word.len()).any(|w| w == word.as_bytes());
            prop_assert_eq!(names_headline(&value), holds("title") || holds("headline"), "{:?}", value);
            let writer = ["user", "author", "poster", "profile", "member"].iter().any(|w| holds(w));
            prop_assert_eq!(names_writer(&value), writer, "{:?}", value);
        }
    }

    #[test]
    fn a_headline_or_title_is_named_in_any_case_anywhere() {
        for value in [
            "entry-title",
            "articleHeadline",
            "SUBTITLE",
            "x HeadLine-y",
            "title",
        ] {
            assert!(names_headline(value), "{value}");
        }
        for value in ["", "titl", "head-line", "entry-tit le", "héadline"] {
            assert!(!names_headline(value), "{value}");
        }
    }

    #[test]
    fn every_read_attribute_is_read_in_any_case_and_others_are_not() {
        for name in READ_ATTRIBUTES {
            assert!(!is_unread_attribute(name.as_bytes()), "{name}");
            let upper = name.to_ascii_uppercase();
            assert!(!is_unread_attribute(upper.as_bytes()), "{upper}");
        }
        for name in [
            "", "data-id", "onclick", "tabindex", "classes", "ids", "x", "hre",
        ] {
            assert!(is_unread_attribute(name.as_bytes()), "{name}");
        }
    }

    #[test]
    fn word_lists_are_lowercase_as_the_matchers_assume() {
        for list in [
            HIDDEN_CLASSES,
            CHROME_WORDS,
            CONSENT_WORDS,
            LAYOUT_WORDS,
            CONTENT_WORDS,
            COMMENT_WORDS,
            COMMENT_STATES,
            COMMENT_PHRASES,
            CHROME_PHRASES,
            META_PHRASES,
            CONSENT_PHRASES,
            MONTH_NAMES,
        ] {
            for w in list {
                assert_eq!(*w, w.to_ascii_lowercase(), "{w}");
            }
        }
        // Joined tokens longer than the stack buffer are read whole.
        let long = format!("{}-read-more", "x".repeat(80));
        assert!(Sense::of(&long).names.strong);
    }

    #[test]
    fn class_words_split_at_punctuation_and_case() {
        let w: Vec<_> = words("sidebarBlocks c-article__meta x").collect();
        assert_eq!(w, ["sidebar", "Blocks", "c", "article", "meta", "x"]);
        let w: Vec<_> = words("éaB--cDé9").collect();
        assert_eq!(w, ["a", "B", "c", "D", "9"]);
        assert!(Sense::of("post-byline").author);
        assert!(Sense::of("articleDate").meta);
        assert!(!Sense::of("update mandate").meta);
        assert!(!Sense::of("no-author has-no-date").author);
        assert!(!Sense::of("no-author has-no-date").meta);
        assert!(Sense::of("c-entry-meta__row").meta);
        assert!(names_entry("entry-author-jane_doe entry-type-post entry"));
        assert!(names_entry("hentry post author-admin category-news"));
        assert!(names_entry(
            "serendipity_entry serendipity_entry_author_Jane-Doe"
        ));
        assert!(!names_entry("entry-author"));
        assert!(!names_entry("author-box post-author"));
        assert!(!names_entry("post-meta entry-date"));
        assert!(Sense::of("articleInfo").meta);
        assert!(!Sense::of("recipe-meta").meta);
    }

    /// The reading of a class or id value as the lists say it, word by word and phrase by
    /// phrase, each question answered on its own pass: the model [`Sense::of`] must match.
    mod reference {
        use super::super::*;

        fn listed(list: &[&str], word: &str) -> bool {
            list.iter().any(|w| w.eq_ignore_ascii_case(word))
        }

        fn holds(joined: &str, list: &[&str]) -> bool {
            list.iter().any(|p| joined.contains(p))
        }

        fn roles(value: &str) -> impl Iterator<Item = &str> {
            value
                .split_ascii_whitespace()
                .map(|token| role_part(token).0)
                .filter(|token| !is_neutral(token))
        }

        fn names(value: &str) -> Names {
            let mut names = Names::default();
            for token in roles(value) {
                if token.is_empty() {
                    continue;
                }
                if listed(HIDDEN_CLASSES, token) {
                    names.always = true;
                    continue;
                }
                let (mut strong, mut layout, mut content) = (false, false, false);
                let (mut comments, mut state) = (false, false);
                let builder = words(token).next().is_some_and(|w| listed(BUILDERS, w));
                for part in words(token).filter(|w| !(builder && is_builder_block(w))) {
                    strong |= listed(CHROME_WORDS, part);
                    names.always |= listed(CONSENT_WORDS, part);
                    layout |= listed(LAYOUT_WORDS, part);
                    content |= listed(CONTENT_WORDS, part);
                    comments |= listed(COMMENT_WORDS, part);
                    state |= listed(COMMENT_STATES, part);
                    names.reviews |= listed(REVIEW_WORDS, part);
                }
                let (comment_phrase, chrome_phrase, consent_phrase) =
                    with_joined(token, |joined| {
                        (
                            holds(joined, COMMENT_PHRASES),
                            holds(joined, CHROME_PHRASES),
                            holds(joined, CONSENT_PHRASES),
                        )
                    });
                names.always |= consent_phrase;
                comments |= comment_phrase;
                names.comments |= comments && !state;
                strong |= !content && chrome_phrase;
                names.strong |= strong;
                names.layout |= layout && !content;
                names.content |= content && !layout && !strong;
            }
            names
        }

        fn has_word(value: &str, list: &[&str]) -> bool {
            roles(value).flat_map(words).any(|w| listed(list, w))
        }

        fn has_phrase(value: &str, list: &[&str]) -> bool {
            roles(value).any(|token| with_joined(token, |joined| holds(joined, list)))
        }

        fn names_entry(value: &str) -> bool {
            value
                .split_ascii_whitespace()
                .map(|t| role_part(t).0)
                .any(|token| {
                    words(token)
                        .last()
                        .is_some_and(|last| listed(ENTRY_WORDS, last))
                        && !words(token).any(|x| listed(AUTHOR_WORDS, x))
                })
        }

        /// What [`Sense::of`] answers, asked question by question.
        pub(super) fn sense(value: &str) -> Sense {
            Sense {
                names: names(value),
                author: has_word(value, AUTHOR_WORDS),
                meta: has_word(value, META_WORDS) || has_phrase(value, META_PHRASES),
                entry: names_entry(value),
            }
        }
    }
}
