//! The class-name and element vocabulary the chrome filter (`html`) and the boilerplate
//! filter (`prune`) share, and that `render` consults: the elements that are never content,
//! the attributes that hide an element, the word and phrase lists that mark chrome, consent
//! banners, layout, content, author boxes and metadata in class names and ids, and the
//! matchers that split a class or id value into words and test it against a list. Data and
//! pure functions only; it depends on nothing in `extract` but the tree helpers.

use dom_query::NodeRef;

use super::tree::{attr, with_element};

/// Whether an element is hidden by `hidden`, `aria-hidden="true"` or an inline
/// `display: none` / `visibility: hidden`.
pub(crate) fn is_hidden(node: &NodeRef<'_>) -> bool {
    with_element(node, |e| {
        if attr(e, "hidden").is_some() {
            return true;
        }
        if attr(e, "aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
            return true;
        }
        attr(e, "style").is_some_and(|s| {
            let s: String = s
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .to_ascii_lowercase();
            s.contains("display:none") || s.contains("visibility:hidden")
        })
    })
    .unwrap_or(false)
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
const CONSENT_WORDS: &[&str] = &[
    "cookie",
    "cookies",
    "cookiebanner",
    "consent",
    "gdpr",
    "cmp",
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
#[derive(Clone, Copy, Default)]
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
}

/// Adds what the tokens of a class or id value say about an element to `names`.
pub(crate) fn classify_names(value: &str, names: &mut Names) {
    // The word lists are lowercase (a test checks it), so an ASCII case-insensitive match
    // against a token is a match against the token lowercased, without lowercasing it.
    let listed = |list: &[&str], word: &str| list.iter().any(|w| w.eq_ignore_ascii_case(word));
    for token in value.split_ascii_whitespace().map(role_part) {
        if token.is_empty() || is_neutral(token) {
            continue;
        }
        if listed(HIDDEN_CLASSES, token) {
            names.always = true;
            continue;
        }
        let (mut strong, mut layout, mut content) = (false, false, false);
        let (mut comments, mut state) = (false, false);
        for part in words(token) {
            strong |= listed(CHROME_WORDS, part);
            names.always |= listed(CONSENT_WORDS, part);
            layout |= listed(LAYOUT_WORDS, part);
            content |= listed(CONTENT_WORDS, part);
            comments |= listed(COMMENT_WORDS, part);
            // `comments-open` says what the post allows, not what the element is.
            state |= listed(COMMENT_STATES, part);
        }
        let (comment_phrase, chrome_phrase) = with_joined(token, |joined| {
            (
                COMMENT_PHRASES.iter().any(|p| holds(joined, p)),
                CHROME_PHRASES.iter().any(|p| holds(joined, p)),
            )
        });
        comments |= comment_phrase;
        names.comments |= comments && !state;
        // A phrase names chrome unless the same name also says content
        // (`entry-content-read-more` is the content, folded).
        strong |= !content && chrome_phrase;
        names.strong |= strong;
        names.layout |= layout && !content;
        names.content |= content && !layout && !strong;
    }
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
/// `category-news`). A taxonomy word that ends the token (`post-tag`) is a role.
fn role_part(token: &str) -> &str {
    let mut parts = words(token).peekable();
    while let Some(word) = parts.next() {
        if parts.peek().is_some() && TAXONOMY_WORDS.iter().any(|t| t.eq_ignore_ascii_case(word)) {
            // `word` is a subslice of `token`: its offset is where the term's part begins.
            let at = word.as_ptr() as usize - token.as_ptr() as usize;
            return token.get(..at).unwrap_or_default();
        }
    }
    token
}

/// Words in class names and ids that mark an author box.
pub(crate) const AUTHOR_WORDS: &[&str] =
    &["author", "authors", "bio", "biography", "byline", "bylines"];

/// Words in class names and ids that mark short metadata about the content.
pub(crate) const META_WORDS: &[&str] = &[
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
pub(crate) const META_PHRASES: &[&str] = &[
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

/// Whether a token of a class or id value, with its separators removed, contains a phrase of
/// `list` (`entry-meta` contains `entrymeta`).
pub(crate) fn has_phrase(value: &str, list: &[&str]) -> bool {
    value
        .split_ascii_whitespace()
        .map(role_part)
        .filter(|token| !is_neutral(token))
        .any(|token| with_joined(token, |joined| list.iter().any(|p| holds(joined, p))))
}

/// Whether `joined` (a token's joined letters, a few bytes) contains `phrase`: compared in
/// place, window by window, which for so short a text is cheaper than preparing a search,
/// and costs nothing when the phrase is the longer.
fn holds(joined: &str, phrase: &str) -> bool {
    let (hay, needle) = (joined.as_bytes(), phrase.as_bytes());
    needle.is_empty()
        || (hay.len() >= needle.len() && hay.windows(needle.len()).any(|w| w == needle))
}

/// Whether one of the words of a class or id value (split at punctuation and at
/// lower-to-upper case changes) is in `list`.
pub(crate) fn has_word(value: &str, list: &[&str]) -> bool {
    value
        .split_ascii_whitespace()
        .map(role_part)
        .filter(|token| !is_neutral(token))
        .flat_map(words)
        .any(|w| list.iter().any(|m| m.eq_ignore_ascii_case(w)))
}

/// The last words of class tokens that name a post or an article itself (`entry`, `hentry`,
/// `serendipity_entry`, `post`).
const ENTRY_WORDS: &[&str] = &["entry", "hentry", "post", "article", "story"];

/// Whether a class value names the element as a post or an article itself: a token whose last
/// word is one of [`ENTRY_WORDS`] and that has no word of an author box. Blog engines name a
/// post's container after its author as well (`entry-author-jane_doe`, `author-admin`); such a
/// container is the post, not an author box.
pub(crate) fn names_entry(value: &str) -> bool {
    value.split_ascii_whitespace().map(role_part).any(|token| {
        words(token)
            .last()
            .is_some_and(|last| ENTRY_WORDS.iter().any(|e| e.eq_ignore_ascii_case(last)))
            && !words(token).any(|x| AUTHOR_WORDS.iter().any(|a| a.eq_ignore_ascii_case(x)))
    })
}

/// The words of a class or id token: split at characters other than letters and digits, and
/// where a lower-case letter is followed by an upper-case one (`articleMeta`).
fn words(token: &str) -> Words<'_> {
    Words { rest: token }
}

/// The iterator of [`words`], which allocates nothing.
struct Words<'a> {
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
    use super::*;

    fn names(value: &str) -> (bool, bool, bool) {
        let mut n = Names::default();
        classify_names(value, &mut n);
        (n.strong, n.layout, n.content)
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
        assert_eq!(
            names("no-share category-social-issues tag-cookies"),
            (false, false, false)
        );
        for always in ["cookie-notice", "cmp-banner", "sr-only", "d-none"] {
            let mut n = Names::default();
            classify_names(always, &mut n);
            assert!(n.always, "{always}");
        }
        // A post filed under a category named after chrome is still the post; a script's
        // hook is not a role; a taxonomy word that ends the token is one.
        assert_eq!(
            names("entry-category-social_media js-social-images"),
            (false, false, true)
        );
        assert_eq!(names("post-tags social"), (true, false, false));
        assert_eq!(role_part("entry-category-social_media"), "entry-");
        assert_eq!(role_part("category-news"), "");
        assert_eq!(role_part("post-tag"), "post-tag");
        assert_eq!(role_part("post-tags-content"), "post-tags-content");
        assert!(names_entry("entry-category-social_media entry-type-post"));
        assert!(!is_neutral("no-"));
        assert!(!is_neutral("“item“"));
    }

    #[test]
    fn a_phrase_is_held_where_str_contains_finds_it() {
        let texts = [
            "",
            "c",
            "comment",
            "commentlist",
            "xcommentlistx",
            "dsqcommen",
            "sharebar",
        ];
        for hay in texts {
            for needle in texts.iter().chain(COMMENT_PHRASES).chain(CHROME_PHRASES) {
                assert_eq!(
                    holds(hay, needle),
                    hay.contains(needle),
                    "{hay:?} {needle:?}"
                );
            }
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
            MONTH_NAMES,
        ] {
            for w in list {
                assert_eq!(*w, w.to_ascii_lowercase(), "{w}");
            }
        }
        // Joined tokens longer than the stack buffer are read whole.
        let long = format!("{}-read-more", "x".repeat(80));
        let mut n = Names::default();
        classify_names(&long, &mut n);
        assert!(n.strong);
    }

    #[test]
    fn class_words_split_at_punctuation_and_case() {
        let w: Vec<_> = words("sidebarBlocks c-article__meta x").collect();
        assert_eq!(w, ["sidebar", "Blocks", "c", "article", "meta", "x"]);
        let w: Vec<_> = words("éaB--cDé9").collect();
        assert_eq!(w, ["a", "B", "c", "D", "9"]);
        assert!(has_word("post-byline", AUTHOR_WORDS));
        assert!(has_word("articleDate", META_WORDS));
        assert!(!has_word("update mandate", META_WORDS));
        assert!(!has_word("no-author has-no-date", AUTHOR_WORDS));
        assert!(!has_word("no-author has-no-date", META_WORDS));
        assert!(has_phrase("c-entry-meta__row", META_PHRASES));
        assert!(names_entry("entry-author-jane_doe entry-type-post entry"));
        assert!(names_entry("hentry post author-admin category-news"));
        assert!(names_entry(
            "serendipity_entry serendipity_entry_author_Jane-Doe"
        ));
        assert!(!names_entry("entry-author"));
        assert!(!names_entry("author-box post-author"));
        assert!(!names_entry("post-meta entry-date"));
        assert!(has_phrase("articleInfo", META_PHRASES));
        assert!(!has_phrase("recipe-meta", META_PHRASES));
    }
}
