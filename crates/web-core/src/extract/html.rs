//! HTML: metadata (title, language, links), the chrome filter, main-content selection with
//! `dom_smoothie`, widening to the page's main container, the whole-body fallback, and the
//! JavaScript-shell notice.

use std::collections::{HashMap, HashSet};

use ::url::Url;
use dom_query::{Document, Element, LocalName, NodeId, NodeRef, local_name};
use dom_smoothie::{Config, Readability};
use html5ever::ns;

use super::parse::{DEPTH_LIMIT, Parsed, parse_page};
use super::prune::{
    Memo, TITLE_MARK, dateline, drop_comment_section, drop_orphan_headings, drop_tail_chrome,
    is_list_line, prune,
};
use super::render::{collapse, render};
use super::tree::{Step, attr, visible_len, walk, with_element, with_text};
use super::vocab::{CHROME_ROLES, is_hidden, is_never_content, names_headline};
use super::{BodyKind, Extracted, Flags, JAVASCRIPT_SHELL_NOTICE};

/// Trees deeper than this skip content selection (its cost grows with depth × size).
const SELECT_MAX_DEPTH: usize = 180;
/// Trees with more elements than this skip content selection.
const SELECT_MAX_ELEMENTS: usize = 60_000;
/// A chrome candidate holding more than this share of the page's text is kept anyway.
const CHROME_MAX_SHARE: f64 = 0.4;
/// Chrome by class name holding a paragraph of at least this many visible characters is kept.
const NAMED_CHROME_MAX_PARAGRAPH: usize = 400;
/// Layout chrome by name is removed when at least a quarter of its text is links, or when
/// it has no more visible characters than this.
const LAYOUT_SHORT: usize = 200;
/// Selection keeping less than this share of the body's text falls back to the whole body…
const SELECTION_MIN_SHARE: f64 = 0.1;
/// …and selection keeping less than this share does when what the whole body adds reads as
/// the article's own text (see [`adds_article_text`]): at this share, what it adds is as
/// often teasers and sidebars as the rest of a story.
const SELECTION_SHORT_SHARE: f64 = 0.3;
/// The whole body adds the article's text when it adds at least this many prose paragraphs…
const ADDED_MIN_PARAGRAPHS: usize = 3;
/// …of which less than this share are teasers (a paragraph under a short title line).
const ADDED_MAX_TEASER_SHARE: f64 = 0.6;
/// …when the body has at least this many more characters than the selection.
const SELECTION_MIN_LOSS: usize = 600;
/// …and the whole body has at least this many characters of prose the selection lacks.
const FALLBACK_MIN_PROSE: usize = 200;
/// The fallback uses the page's main container when it holds at least this share of the
/// body's text, else the region that holds its prose.
const CONTAINER_MIN_SHARE: f64 = 0.3;
/// The whole-body fallback narrows to the smallest element holding this share of the
/// body's prose.
const REGION_MIN_PROSE: f64 = 0.95;
/// A selection is widened to the page's main container only when at least this share of its
/// text is found there…
const WIDEN_MIN_COVER: f64 = 0.8;
/// …and the container has at most this many times its text.
const WIDEN_MAX_GROWTH: f64 = 3.0;
/// When widening, a container line the selection did not keep joins it if it has at least
/// this many visible characters (prose, not a label or a teaser title).
const PROSE_MIN_CHARS: usize = 80;
/// When widening, a container's table of at least this many rows joins the selection however
/// short its cells.
const TABLE_MIN_ROWS: usize = 3;
/// The post under the headline is looked for only when it has at most this many visible
/// characters.
const POST_MAX_CHARS: usize = 3000;
/// A title of more parts than this is left whole (a real one has a few), so cutting it
/// stays cheap however a page writes its `<title>`.
const TITLE_MAX_PARTS: usize = 12;
/// An element with more visible characters than this says no headline; its text is not
/// read further, so a page of many large elements named "title" costs no more than its size.
const HEADLINE_MAX_CHARS: usize = 400;
/// A selection away from the headline's post gives way to the post when it has at most this
/// many times the post's visible characters.
const POST_MAX_GROWTH: f64 = 2.0;
/// An `h1` restored as the headline has at least this many words.
const HEADLINE_MIN_WORDS: usize = 3;
/// Images whose `alt` says the title, from this many on, are a gallery's repeated title.
const TITLE_ALTS_MIN: usize = 3;
/// The dateline is looked for, and put back, among this many lines at the top.
const DATELINE_TOP_LINES: usize = 8;
/// A page with scripts and less visible text than this looks like a JavaScript shell.
const SHELL_MAX_TEXT: usize = 200;
/// …provided its markup is at least this large.
const SHELL_MIN_BYTES: usize = 512;

/// Extracts an HTML body.
pub(crate) fn extract_html(body: &str, base: &Url) -> Extracted {
    let Parsed { doc, flattened } = parse_page(body, DEPTH_LIMIT);
    let url = matches!(base.scheme(), "http" | "https").then(|| base.as_str());
    let (doc, readable) = readable_title(doc, url);
    let marks = Marks::of(&doc);
    let raw_title = marks.title(&doc);
    let site = readable
        .site
        .clone()
        .or_else(|| site_from_title(raw_title.as_deref(), readable.title.as_deref()));
    let raw = raw_title.clone();
    let title = readable.title.or(raw_title);
    // The elements that may say the headline, found by one walk, their words read once: for
    // cutting the title and for marking the headings that say it.
    let headlines = title
        .is_some()
        .then(|| Headlines::read(&doc, &marks.headlines));
    let title = title
        .zip(headlines.as_ref())
        .map(|(t, h)| h.title_of(t, raw, site.as_deref()));
    let lang = marks.lang(&doc);
    let links = marks.links(&doc, base);
    // Each link is resolved against the page once, and each class or id value read once,
    // however many of the filters' walks ask.
    let mut memo = Memo::new(base);

    let (depth, elements) = (marks.depth, marks.elements);
    // The headings that say the title, marked for pruning and kept to find the dateline by.
    let marked = match (title.as_deref(), headlines.as_ref()) {
        (Some(title), Some(headlines)) => headlines.mark_title_headings(&doc, title),
        _ => Vec::new(),
    };
    drop_repeated_alts(&doc, title.as_deref());
    let cleaned = clean_and_prune(&doc, &mut memo);
    let body_chars = cleaned.text_chars;
    let selectable = depth <= SELECT_MAX_DEPTH && elements <= SELECT_MAX_ELEMENTS;
    // Selection consumes the document. A page that marks no main container would need its
    // prose region, should selection keep under a third of it: a copy of the cleaned page
    // is kept for that, cheaper than parsing and cleaning the page again.
    let (marks_container, h1) = container_and_h1(&doc);
    let spare = (selectable && !marks_container).then(|| doc.clone());

    let mut flags = Flags {
        flattened,
        ..Flags::default()
    };
    // What widening and the fallback read of the cleaned page is taken before content
    // selection rewrites the one document: its first h1 and its own containers, rendered.
    let h1 = h1.map(|id| collapse(&NodeRef::new(id, &doc.tree).text()));
    let dateline = first_attached(&doc, &marked).and_then(dateline);
    // Nothing changes the document between here and the look above: a page that marks no
    // container has none to render.
    let containers = if marks_container {
        Containers::render(&doc, &mut memo)
    } else {
        Containers {
            renders: Default::default(),
        }
    };
    let post = headline_post(&doc, title.as_deref(), &mut memo);
    let (selected, unselected) = if selectable {
        (select(doc, &mut memo), spare)
    } else {
        (None, Some(doc))
    };
    // The selection with its visible characters, counted once.
    let selected = selected.map(|narrow| {
        let lines = widen(narrow, &containers);
        let chars = visible_chars(&lines);
        (lines, chars)
    });
    let mut lines = match selected {
        Some((lines, chars))
            if !(chars < (body_chars as f64 * SELECTION_SHORT_SHARE) as usize
                && body_chars.saturating_sub(chars) >= SELECTION_MIN_LOSS) =>
        {
            lines
        }
        selected => {
            let kept = selected.as_ref().map_or(0, |(_, chars)| *chars);
            let whole = containers.main().cloned().filter(|lines| {
                let chars = visible_chars(lines);
                chars > kept && chars >= (body_chars as f64 * CONTAINER_MIN_SHARE) as usize
            });
            let whole = whole
                .or_else(|| {
                    // Selection consumed the document and the page marks a main container
                    // too small to stand for it: the rare page that falls back to its prose
                    // region is parsed and cleaned again.
                    let doc = unselected.unwrap_or_else(|| {
                        let doc = parse_page(body, DEPTH_LIMIT).doc;
                        if let Some(title) = title.as_deref() {
                            mark_title_headings(&doc, title);
                        }
                        clean_and_prune(&doc, &mut memo);
                        doc
                    });
                    prose_region(&doc).map(|n| prune_render(n, &mut memo))
                })
                .unwrap_or_default();
            match selected {
                // The body's extra text is labels, menus and teasers, not prose: the
                // selection lost nothing worth the noise.
                Some((lines, _)) if lost_prose(&lines, &whole) < FALLBACK_MIN_PROSE => lines,
                // A selection of a tenth to less than a third of the body stays unless the
                // body adds the article's text, not teasers and sidebar blocks.
                Some((lines, chars))
                    if chars >= (body_chars as f64 * SELECTION_MIN_SHARE) as usize
                        && !adds_article_text(&lines, &whole) =>
                {
                    lines
                }
                _ => {
                    flags.whole_body = true;
                    whole
                }
            }
        }
    };

    if !flags.whole_body
        && let Some(post) = post
        && anchored_elsewhere(&lines, &post)
        && visible_chars(&lines) as f64 <= visible_chars(&post) as f64 * POST_MAX_GROWTH
    {
        // A short selection away from the headline's post is a sidebar block that outscored
        // a short post: the post is the page's text.
        lines = post;
    }

    if !flags.whole_body
        && let Some(h1) = headline(h1, title.as_deref(), &lines)
    {
        lines.splice(0..0, [format!("# {h1}"), String::new()]);
    }

    if !flags.whole_body
        && let Some(dateline) = dateline
    {
        put_dateline(&mut lines, dateline, title.as_deref());
    }

    drop_repeated_headings(&mut lines, title.as_deref(), site.as_deref());
    drop_comment_section(&mut lines);
    drop_tail_chrome(&mut lines);

    if cleaned.scripts > 0
        && body.len() >= SHELL_MIN_BYTES
        && cleaned.all_chars < SHELL_MAX_TEXT
        && visible_chars(&lines) < SHELL_MAX_TEXT
    {
        flags.javascript_shell = true;
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(JAVASCRIPT_SHELL_NOTICE.to_owned());
    }

    Extracted {
        title,
        lines,
        links,
        lang,
        kind: BodyKind::Html,
        flags,
    }
}

/// Drops the `alt` text that repeats rather than describes: on the images that say the
/// page's title (all its words, a title of at least [`HEADLINE_MIN_WORDS`] words) when at
/// least [`TITLE_ALTS_MIN`] images do, the title repeated on every picture of a gallery for
/// search engines (one or two pictures named after the article are its own, and stay); and
/// on every image but the first with the same `alt` text, a picture shown again (its
/// thumbnail, a gallery's strip).
fn drop_repeated_alts(doc: &Document, title: Option<&str>) {
    let images = doc.select("img[alt]");
    let words = title.map(heading_words).unwrap_or_default();
    if words.len() >= HEADLINE_MIN_WORDS {
        let saying: Vec<NodeRef<'_>> = images
            .nodes()
            .iter()
            .filter(|img| {
                with_element(img, |e| {
                    attr(e, "alt").is_some_and(|alt| {
                        heading_words(alt)
                            .windows(words.len())
                            .any(|w| w == words.as_slice())
                    })
                })
                .unwrap_or(false)
            })
            .copied()
            .collect();
        if saying.len() >= TITLE_ALTS_MIN {
            for img in saying {
                img.remove_attr("alt");
            }
        }
    }
    let mut seen: HashSet<String> = HashSet::new();
    for img in images.nodes() {
        if let Some(alt) = with_element(img, |e| attr(e, "alt").map(collapse)).flatten()
            && !alt.is_empty()
            && !seen.insert(alt)
        {
            img.remove_attr("alt");
        }
    }
}

/// The page's headline when content selection dropped it: `h1`, the first left after the
/// chrome filter, if it is the title's headline (one contains the other, so a site name in
/// an `h1` does not count), has at least this many words, and is not in the lines already.
fn headline(h1: Option<String>, title: Option<&str>, lines: &[String]) -> Option<String> {
    let h1 = h1?;
    let title = title?;
    let related = title.contains(h1.as_str()) || h1.contains(title);
    let present = lines.iter().any(|l| l.contains(h1.as_str()));
    (h1.split_whitespace().count() >= HEADLINE_MIN_WORDS && related && !present).then_some(h1)
}

/// Puts the headline's dateline (its date and byline) back under the heading that says the
/// title, or first when no heading near the top does, unless the lines near the top hold its
/// words already.
fn put_dateline(lines: &mut Vec<String>, dateline: String, title: Option<&str>) {
    let top = &lines[..lines.len().min(DATELINE_TOP_LINES)];
    let words: HashSet<String> = top.iter().flat_map(|l| heading_words(l)).collect();
    let own = heading_words(&dateline);
    if own.is_empty() || own.iter().all(|w| words.contains(w)) {
        return;
    }
    let title = title.map(heading_words);
    let at = top
        .iter()
        .position(|l| {
            l.starts_with('#')
                && title
                    .as_ref()
                    .is_some_and(|t| heading_words(l.trim_start_matches('#')) == *t)
        })
        .map_or(0, |i| i + 1);
    // A heading is followed by a blank line; the dateline goes after it.
    let at = if lines.get(at).is_some_and(String::is_empty) {
        at + 1
    } else {
        at
    };
    lines.splice(at..at, [dateline, String::new()]);
}

/// The post under the page's headline: the smallest element around the first heading
/// (`h1` to `h3`) whose words are the title's that holds more text than the heading,
/// rendered, when it has at most [`POST_MAX_CHARS`] visible characters.
fn headline_post(doc: &Document, title: Option<&str>, memo: &mut Memo<'_>) -> Option<Vec<String>> {
    let words = heading_words(title?);
    if words.is_empty() {
        return None;
    }
    let heading = doc
        .select("h1, h2, h3")
        .nodes()
        .iter()
        .find(|n| text_within(**n, HEADLINE_MAX_CHARS).is_some_and(|t| heading_words(&t) == words))
        .copied()?;
    let own = visible_len(&heading.text());
    let mut node = heading;
    loop {
        node = node
            .parent()
            .filter(|p| p.is_element() && !p.has_name("body") && !p.has_name("html"))?;
        let n = visible_len(&text_within(node, POST_MAX_CHARS)?);
        if n > own {
            return Some(prune_render(node, memo));
        }
    }
}

/// Whether the selection lies away from the headline's post: no text line of the post
/// (headings aside) is among the selected lines.
fn anchored_elsewhere(selected: &[String], post: &[String]) -> bool {
    let kept: HashSet<&str> = selected.iter().map(String::as_str).collect();
    let mut text = post
        .iter()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .peekable();
    text.peek().is_some() && text.all(|l| !kept.contains(l.as_str()))
}

/// Marks with [`TITLE_MARK`] the headings (`h1` to `h6`) whose words are the title's, so
/// that pruning tells the page's own post, its title a link to itself, from a teaser.
fn mark_title_headings(doc: &Document, title: &str) {
    Headlines::of(doc).mark_title_headings(doc, title);
}

/// The first of `marked` still in the document (not removed with chrome or boilerplate).
fn first_attached<'a>(doc: &'a Document, marked: &[NodeId]) -> Option<NodeRef<'a>> {
    marked
        .iter()
        .map(|id| NodeRef::new(*id, &doc.tree))
        .find(|n| n.ancestors_it(None).last().is_some_and(|a| a.is_document()))
}

/// Whether the document marks a main container (exactly one element matches one of
/// [`CONTAINERS`]), and its first `h1`, by one walk: the selectors matched as the selector
/// engine matches them (local names in any namespace, attributes in no namespace, their
/// values compared exactly).
fn container_and_h1(doc: &Document) -> (bool, Option<NodeId>) {
    // Matches of each of [`CONTAINERS`], counted up to two.
    let mut matches = [0u8; 4];
    let mut h1 = None;
    walk(doc.root(), |step| {
        if let Step::Enter(node) = step {
            with_element(&node, |e| {
                let local = &e.name.local;
                let value_is = |name: LocalName, value: &str| {
                    e.attrs
                        .iter()
                        .any(|a| a.name.ns == ns!() && a.name.local == name && &*a.value == value)
                };
                let hits = [
                    value_is(local_name!("itemprop"), "articleBody"),
                    *local == local_name!("article"),
                    value_is(local_name!("role"), "main"),
                    *local == local_name!("main"),
                ];
                for (count, hit) in matches.iter_mut().zip(hits) {
                    if hit {
                        *count = (*count + 1).min(2);
                    }
                }
                if *local == local_name!("h1") {
                    h1.get_or_insert(node.id);
                }
            });
        }
        true
    });
    (matches.contains(&1), h1)
}

/// The attribute that marks a page's own `h1` elements through content selection.
const H1_MARK: &str = "data-mcp-web-h1";

/// Runs content selection on a cleaned document and renders what it kept.
fn select(doc: Document, memo: &mut Memo<'_>) -> Option<Vec<String>> {
    let config = Config {
        disable_json_ld: true,
        keep_classes: true,
        ..Config::default()
    };

    // The selector writes every `h1` it keeps as `h2`; marking them first lets the page's own
    // levels be restored afterwards.
    doc.select("h1").set_attr(H1_MARK, "");
    let base = memo.page();
    let url = matches!(base.scheme(), "http" | "https").then(|| base.as_str());
    let mut readability = Readability::with_document(doc, url, Some(config)).ok()?;
    readability.parse().ok()?;
    let marked = readability.doc.select(&format!("[{H1_MARK}]"));
    marked.rename("h1");
    marked.remove_attr(H1_MARK);
    let root = readability.doc.select_single("#readability-page-1");
    let node = root.nodes().first().copied()?;
    Some(prune_render(node, memo))
}

/// The one element matching `selector`, if exactly one does.
fn unique<'a>(doc: &'a Document, selector: &str) -> Option<NodeRef<'a>> {
    match doc.select(selector).nodes() {
        [node] => Some(*node),
        _ => None,
    }
}

/// The page's own main containers, each rendered (pruned) when exactly one element matches
/// its selector, taken from the cleaned document before content selection rewrites it.
struct Containers {
    /// Renders by selector, the most specific container first: an article body, an
    /// article, the main role, the main element.
    renders: [Option<Vec<String>>; 4],
}

/// The selectors of the page's own containers, the most specific first.
const CONTAINERS: [&str; 4] = [
    r#"[itemprop="articleBody"]"#,
    "article",
    r#"[role="main"]"#,
    "main",
];

impl Containers {
    /// Renders the page's unique containers.
    fn render(doc: &Document, memo: &mut Memo<'_>) -> Self {
        Self {
            renders: CONTAINERS
                .map(|selector| unique(doc, selector).map(|n| prune_render(n, memo))),
        }
    }

    /// The container the page itself marks as its main content: an article body, else the
    /// main region, else the article.
    fn main(&self) -> Option<&Vec<String>> {
        [0, 3, 2, 1]
            .into_iter()
            .find_map(|i| self.renders[i].as_ref())
    }
}

/// Widens a selection to the page's own main container when the selection lies within it
/// and kept only part of it (an abstract beside the references, a lead beside the body, the
/// several blocks of a recipe): the container's prose and the headings over it join the
/// selected lines, in the page's order. Returns the selection unchanged otherwise.
fn widen(narrow: Vec<String>, containers: &Containers) -> Vec<String> {
    let n = visible_chars(&narrow);
    for wide in containers.renders.iter().flatten() {
        let w = visible_chars(wide);
        let lines: HashSet<&str> = wide.iter().map(String::as_str).collect();
        let covered: usize = narrow
            .iter()
            .filter(|l| lines.contains(l.as_str()))
            .map(|l| visible_len(l))
            .sum();
        if covered as f64 >= n as f64 * WIDEN_MIN_COVER {
            if w > n && w as f64 <= n as f64 * WIDEN_MAX_GROWTH {
                return merge(&narrow, wide.clone());
            }
            // A larger container holding this one would only grow more.
            return narrow;
        }
    }
    narrow
}

/// The smallest element of the body that holds nearly all of its prose (blocks of at least
/// [`PROSE_MIN_CHARS`] visible characters): the body without the site's header, sidebars
/// and footer when the page does not mark them. The body itself when no child qualifies.
fn prose_region(doc: &Document) -> Option<NodeRef<'_>> {
    let body = doc.body()?;
    // Prose characters under each element, by a post-order walk.
    let mut prose: HashMap<NodeId, usize> = HashMap::new();
    // Open elements: id, visible characters, prose below, whether a prose block is inside.
    let mut frames: Vec<(NodeId, usize, usize, bool)> = Vec::new();
    walk(body, |step| match step {
        Step::Enter(node) => {
            if let Some(n) = with_text(&node, visible_len) {
                if let Some(top) = frames.last_mut() {
                    top.1 += n;
                }
                return false;
            }
            if node.is_element() {
                frames.push((node.id, 0, 0, false));
                return true;
            }
            false
        }
        Step::Leave(node, entered) => {
            if entered
                && node.is_element()
                && let Some((id, chars, mut below, mut inner)) = frames.pop()
            {
                let block = with_element(&node, |e| is_prose_block(&e.name.local)).unwrap_or(false);
                if block && !inner && chars >= PROSE_MIN_CHARS {
                    below += chars;
                    inner = true;
                }
                prose.insert(id, below);
                if let Some(parent) = frames.last_mut() {
                    parent.1 += chars;
                    parent.2 += below;
                    parent.3 |= inner;
                }
            }
            true
        }
    });
    let total = prose.get(&body.id).copied().unwrap_or(0);
    let mut region = body;
    'descend: loop {
        for child in region.element_children() {
            if prose.get(&child.id).copied().unwrap_or(0) as f64 >= total as f64 * REGION_MIN_PROSE
                && total > 0
            {
                region = child;
                continue 'descend;
            }
        }
        return Some(region);
    }
}

/// Elements whose text, when long enough, counts as prose.
fn is_prose_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "li" | "dd" | "td" | "th" | "blockquote" | "pre" | "div" | "section" | "article"
    )
}

/// Visible characters of the prose lines of `whole` (lines of at least
/// [`PROSE_MIN_CHARS`]) that `selected` does not have.
fn lost_prose(selected: &[String], whole: &[String]) -> usize {
    let kept: HashSet<&str> = selected.iter().map(String::as_str).collect();
    whole
        .iter()
        .filter(|l| !kept.contains(l.as_str()))
        .map(|l| visible_len(l))
        .filter(|&n| n >= PROSE_MIN_CHARS)
        .sum()
}

/// Whether `whole` adds to `selected` the article's own text: at least
/// [`ADDED_MIN_PARAGRAPHS`] prose paragraphs the selection lacks (lines of at least
/// [`PROSE_MIN_CHARS`] visible characters, neither headings nor list items; table rows of that
/// length count, as the cells of a page laid out in a table), of which less than
/// [`ADDED_MAX_TEASER_SHARE`] are teasers: a paragraph whose line before is a short line the
/// selection lacks too (a teaser's title over its summary, in a list of other stories).
fn adds_article_text(selected: &[String], whole: &[String]) -> bool {
    let kept: HashSet<&str> = selected.iter().map(String::as_str).collect();
    let (mut paragraphs, mut teasers) = (0usize, 0usize);
    let mut before: Option<&String> = None;
    for line in whole.iter().filter(|l| !l.is_empty()) {
        let added = !kept.contains(line.as_str());
        let paragraph = !line.starts_with('#')
            && (line.starts_with('|') || !is_list_line(line))
            && visible_len(line) >= PROSE_MIN_CHARS;
        if added && paragraph {
            paragraphs += 1;
            let under_title = before.is_some_and(|b| {
                !kept.contains(b.as_str())
                    && !b.starts_with('#')
                    && !is_list_line(b)
                    && visible_len(b) < PROSE_MIN_CHARS
            });
            teasers += usize::from(under_title);
        }
        before = Some(line);
    }
    paragraphs >= ADDED_MIN_PARAGRAPHS
        && (teasers as f64) < paragraphs as f64 * ADDED_MAX_TEASER_SHARE
}

/// The lines of `wide` worth keeping beside `narrow`: those also in `narrow`, prose lines,
/// and headings over kept lines.
fn merge(narrow: &[String], wide: Vec<String>) -> Vec<String> {
    let set: HashSet<&str> = narrow.iter().map(String::as_str).collect();
    let mut keep: Vec<bool> = wide
        .iter()
        .map(|l| {
            l.is_empty()
                || set.contains(l.as_str())
                || (!l.starts_with('#') && visible_len(l) >= PROSE_MIN_CHARS)
        })
        .collect();
    // A list or a table (consecutive item or row lines) with as much text as a prose line is
    // kept whole, and so is a table of a few rows however short: the steps of a recipe, a
    // table of figures or of ingredients. Link lists were pruned already. The label that
    // introduces it ("For the dough:") goes with it.
    let mut i = 0;
    while i < wide.len() {
        let end = (i..wide.len())
            .find(|&j| !is_list_line(&wide[j]))
            .unwrap_or(wide.len());
        if end > i {
            let chars: usize = wide[i..end].iter().map(|l| visible_len(l)).sum();
            let table = wide[i].starts_with('|') && end - i >= TABLE_MIN_ROWS;
            if chars >= PROSE_MIN_CHARS || table {
                keep[i..end].iter_mut().for_each(|k| *k = true);
                if let Some(label) = (0..i).rev().find(|&j| !wide[j].is_empty())
                    && wide[label].trim_end().ends_with(':')
                {
                    keep[label] = true;
                }
            }
            i = end;
        } else {
            i += 1;
        }
    }
    // Headings over kept text: walk backwards remembering whether the next text line is kept.
    let mut next_kept = false;
    for i in (0..wide.len()).rev() {
        let l = &wide[i];
        if l.is_empty() {
            continue;
        }
        if l.starts_with('#') {
            keep[i] = keep[i] || next_kept;
        } else {
            next_kept = keep[i];
        }
    }
    let mut out: Vec<String> = Vec::new();
    for (l, k) in wide.into_iter().zip(keep) {
        if !k || (l.is_empty() && out.last().is_none_or(String::is_empty)) {
            continue;
        }
        out.push(l);
    }
    drop_orphan_headings(&mut out);
    out
}

/// Prunes boilerplate from a subtree of the page `memo` resolves links against, then
/// renders it.
fn prune_render(node: NodeRef<'_>, memo: &mut Memo<'_>) -> Vec<String> {
    prune(node, memo);
    let mut lines = render(node);
    drop_orphan_headings(&mut lines);
    lines
}

/// Characters other than whitespace in the lines.
fn visible_chars(lines: &[String]) -> usize {
    lines.iter().map(|l| visible_len(l)).sum()
}

/// What Readability's metadata says of a page.
struct Readable {
    /// The article's title: JSON-LD `headline`/`name`, else `og:title` and its kin, else the
    /// `<title>` without the site name its separators mark off.
    title: Option<String>,
    /// The site's name (JSON-LD publisher, `og:site_name`).
    site: Option<String>,
}

/// The page's title as Readability defines it, read from the document (which is given back).
fn readable_title(doc: Document, url: Option<&str>) -> (Document, Readable) {
    let r = Readability {
        doc,
        doc_url: url.map(str::to_owned),
        config: Config::default(),
    };
    let meta = r.get_article_metadata(r.parse_json_ld());
    let clean = |t: &str| Some(collapse(t)).filter(|t| !t.is_empty());
    let readable = Readable {
        title: clean(&meta.title),
        site: meta.site_name.as_deref().and_then(clean),
    };
    (r.doc, readable)
}

/// The site's name as the `<title>` gives it beside the article's title
/// (`Headline | Site Name`): what is left of `raw` once `title` and the separators are cut.
fn site_from_title(raw: Option<&str>, title: Option<&str>) -> Option<String> {
    let (raw, title) = (raw?, title?);
    let rest = raw
        .strip_prefix(title)
        .or_else(|| raw.strip_suffix(title))?;
    let rest = rest.trim_matches(|c: char| c.is_whitespace() || TITLE_SEPARATORS.contains(&c));
    (!rest.is_empty() && rest.len() < raw.len()).then(|| rest.to_owned())
}

/// The part of a title that a heading of the page says (see
/// [`Headlines::headline_of_title`]).
#[cfg(test)]
fn headline_of_title(doc: &Document, title: String, site: Option<&str>) -> String {
    Headlines::of(doc).headline_of_title(title, site)
}

/// The elements of a page that may say its headline (headings, and elements whose class or
/// id names a headline or a title), in document order, each with the words of its text when
/// that text has at most [`HEADLINE_MAX_CHARS`] visible characters.
struct Headlines {
    /// The element, whether it is a heading (`h1` to `h6`), and its words.
    elements: Vec<(NodeId, bool, Option<Vec<String>>)>,
}

impl Headlines {
    /// The page's elements that may say its headline, by one walk of the document.
    fn of(doc: &Document) -> Self {
        let mut candidates = Vec::new();
        walk(doc.root(), |step| {
            if let Step::Enter(node) = step
                && let Some(Some(heading)) = with_element(&node, Self::candidate)
            {
                candidates.push((node.id, heading));
            }
            true
        });
        Self::read(doc, &candidates)
    }

    /// Whether an element may say the headline (`Some`) and whether it is a heading: `h1`
    /// to `h6`, or an element whose class or id names a headline or a title.
    fn candidate(e: &Element) -> Option<bool> {
        let heading = matches!(&*e.name.local, "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
        let named = || {
            [attr(e, "class"), attr(e, "id")]
                .into_iter()
                .flatten()
                .any(names_headline)
        };
        (heading || named()).then_some(heading)
    }

    /// The words of the candidates found (element, whether it is a heading), in their order.
    fn read(doc: &Document, candidates: &[(NodeId, bool)]) -> Self {
        let elements = candidates
            .iter()
            .map(|&(id, heading)| {
                let node = NodeRef::new(id, &doc.tree);
                let words = text_within(node, HEADLINE_MAX_CHARS).map(|t| heading_words(&t));
                (id, heading, words)
            })
            .collect();
        Self { elements }
    }

    /// The page's title: the readable title cut to the part a heading says; when no heading
    /// says it and the raw `<title>` differs (a generic `og:title`, a readable title cut to
    /// the site's sections), the part of the raw title a heading says, if one does and has
    /// at least [`HEADLINE_MIN_WORDS`] words (a site's one-word logo is not a headline).
    fn title_of(&self, readable: String, raw: Option<String>, site: Option<&str>) -> String {
        let cut = self.headline_of_title(readable, site);
        if self.says(&cut) {
            return cut;
        }
        raw.filter(|r| *r != cut)
            .map(|r| self.headline_of_title(r, site))
            .filter(|r| self.says(r) && r.split_whitespace().count() >= HEADLINE_MIN_WORDS)
            .unwrap_or(cut)
    }

    /// Whether an element that may say the headline has exactly the words of `text`.
    fn says(&self, text: &str) -> bool {
        let words = heading_words(text);
        !words.is_empty()
            && self
                .elements
                .iter()
                .any(|(_, _, w)| w.as_ref() == Some(&words))
    }

    /// The part of a title that a heading of the page says, when the title holds more: the
    /// title cut at its separators (`Headline | Site Name`, `Site - Section - Headline`) to
    /// the longest run of its parts whose words are a heading's (`h1` to `h6`, or an element
    /// named for a headline or a title) and not the site's name. The title itself when no
    /// heading says a part of it.
    fn headline_of_title(&self, title: String, site: Option<&str>) -> String {
        let parts = title_parts(&title);
        if parts.len() < 2 || parts.len() > TITLE_MAX_PARTS {
            return title;
        }
        let headings: HashSet<&[String]> = self
            .elements
            .iter()
            .filter_map(|(_, _, words)| words.as_deref())
            .filter(|w| !w.is_empty())
            .collect();
        let whole = heading_words(&title);
        if headings.contains(whole.as_slice()) {
            return title;
        }
        let site = site.map(heading_words);
        let mut best: Option<(usize, &str)> = None;
        for i in 0..parts.len() {
            for j in i..parts.len() {
                if i == 0 && j == parts.len() - 1 {
                    continue;
                }
                let run = title[parts[i].0..parts[j].1].trim();
                let words = heading_words(run);
                if words.is_empty()
                    || site.as_ref() == Some(&words)
                    || !headings.contains(words.as_slice())
                {
                    continue;
                }
                if best.is_none_or(|(n, _)| words.len() > n) {
                    best = Some((words.len(), run));
                }
            }
        }
        best.map_or(title.clone(), |(_, run)| run.to_owned())
    }

    /// Marks with [`TITLE_MARK`] the headings (`h1` to `h6`) whose words are the title's, so
    /// that pruning tells the page's own post, its title a link to itself, from a teaser.
    /// Returns them in document order.
    fn mark_title_headings(&self, doc: &Document, title: &str) -> Vec<NodeId> {
        let words = heading_words(title);
        if words.is_empty() {
            return Vec::new();
        }
        let mut marked = Vec::new();
        for (id, heading, w) in &self.elements {
            if *heading && w.as_ref() == Some(&words) {
                NodeRef::new(*id, &doc.tree).set_attr(TITLE_MARK, "");
                marked.push(*id);
            }
        }
        marked
    }
}

/// The text of `node` when it has at most `max` visible characters; `None`, having read
/// no further, when it has more.
fn text_within(node: NodeRef<'_>, max: usize) -> Option<String> {
    let mut text = String::new();
    let mut visible = 0;
    walk(node, |step| {
        if visible > max {
            return false;
        }
        if let Step::Enter(n) = step {
            with_text(&n, |t| {
                visible += visible_len(t);
                text.push_str(t);
            });
        }
        true
    });
    (visible <= max).then_some(text)
}

/// The byte ranges of a title's parts: the text between separators that have whitespace on
/// at least one side (`A | B`, `A: B`, `A » B`), so a hyphen inside a word does not split.
fn title_parts(title: &str) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = title.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (at, c) = chars[k];
        if TITLE_SEPARATORS.contains(&c) || c == '«' {
            let mut end = k;
            while end + 1 < chars.len()
                && (TITLE_SEPARATORS.contains(&chars[end + 1].1) || chars[end + 1].1 == '«')
            {
                end += 1;
            }
            let before = k == 0 || chars[k - 1].1.is_whitespace();
            let after = end + 1 == chars.len() || chars[end + 1].1.is_whitespace();
            if before || after {
                if title[start..at].trim().chars().any(char::is_alphanumeric) {
                    parts.push((start, at));
                }
                start = chars.get(end + 1).map_or(title.len(), |&(i, _)| i);
            }
            k = end + 1;
        } else {
            k += 1;
        }
    }
    if title[start..].trim().chars().any(char::is_alphanumeric) {
        parts.push((start, title.len()));
    }
    parts
}

/// Characters that separate an article's title from the site's name in a `<title>`.
const TITLE_SEPARATORS: &[char] = &[
    '|', '-', '–', '—', '\\', '/', '>', '»', '·', ':', '›', '‹', '•', '●', '~', '(', '[',
];

/// The words of a text, lowercased, for comparing headings with titles.
fn heading_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Drops the body headings that a `# Title` line above the text already says: the first
/// heading that repeats the title, and every heading that is only the site's name. The
/// blank line after a dropped heading goes with it.
fn drop_repeated_headings(lines: &mut Vec<String>, title: Option<&str>, site: Option<&str>) {
    // Text made only of headings keeps them all.
    if lines.iter().all(|l| l.is_empty() || l.starts_with('#')) {
        return;
    }
    let title = title.map(heading_words).filter(|w| !w.is_empty());
    let site = site.map(heading_words).filter(|w| !w.is_empty());
    let mut title_seen = false;
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut skip_blank = false;
    for line in lines.drain(..) {
        if skip_blank && line.is_empty() {
            skip_blank = false;
            continue;
        }
        skip_blank = false;
        let hashes = line.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&hashes) && line.as_bytes().get(hashes) == Some(&b' ') {
            let words = heading_words(&line[hashes..]);
            let is_title = !title_seen && title.as_ref() == Some(&words);
            if is_title || site.as_ref() == Some(&words) {
                title_seen |= is_title;
                skip_blank = true;
                continue;
            }
        }
        out.push(line);
    }
    while out.first().is_some_and(String::is_empty) {
        out.remove(0);
    }
    *lines = out;
}

/// The elements the page's metadata is read from, found by one walk of the parsed page: each
/// is the first element in document order that a selector of the page's metadata matches
/// (named in each field), matched as the selector engine matches it: by local name in any
/// namespace, attributes in no namespace, `rel` words ASCII case-insensitively on HTML
/// elements only.
#[derive(Default)]
struct Marks {
    /// `head title`.
    head_title: Option<NodeId>,
    /// `title`.
    title: Option<NodeId>,
    /// `meta[property="og:title"], meta[name="og:title"]`.
    og_title: Option<NodeId>,
    /// `h1`.
    h1: Option<NodeId>,
    /// `html[lang]`.
    html_lang: Option<NodeId>,
    /// The first of `meta[http-equiv][content]` whose `http-equiv` says `Content-Language`.
    content_language: Option<NodeId>,
    /// `base[href]`.
    base: Option<NodeId>,
    /// Every match of `a[href], area[href], link[rel~=next][href]`, in document order.
    links: Vec<NodeId>,
    /// The elements that may say the headline ([`Headlines::candidate`]) and whether each
    /// is a heading, in document order.
    headlines: Vec<(NodeId, bool)>,
    /// The greatest element depth.
    depth: usize,
    /// The number of elements.
    elements: usize,
}

impl Marks {
    /// The page's metadata elements, by one walk of the document.
    fn of(doc: &Document) -> Self {
        let mut marks = Self::default();
        // Open `head` elements around the node entered, and open elements.
        let mut in_head = 0usize;
        let mut depth = 0usize;
        walk(doc.root(), |step| {
            match step {
                Step::Enter(node) => {
                    with_element(&node, |e| {
                        depth += 1;
                        marks.elements += 1;
                        marks.depth = marks.depth.max(depth);
                        if let Some(heading) = Headlines::candidate(e) {
                            marks.headlines.push((node.id, heading));
                        }
                        let local = &e.name.local;
                        let html = e.name.ns == ns!(html);
                        // An attribute in no namespace, as an attribute selector reads it.
                        let has = |name: LocalName| {
                            e.attrs
                                .iter()
                                .any(|a| a.name.ns == ns!() && a.name.local == name)
                        };
                        let first = |slot: &mut Option<NodeId>| {
                            slot.get_or_insert(node.id);
                        };
                        if *local == local_name!("head") {
                            in_head += 1;
                        } else if *local == local_name!("title") {
                            if in_head > 0 {
                                first(&mut marks.head_title);
                            }
                            first(&mut marks.title);
                        } else if *local == local_name!("meta") {
                            if marks.og_title.is_none()
                                && e.attrs.iter().any(|a| {
                                    a.name.ns == ns!()
                                        && (a.name.local == local_name!("property")
                                            || a.name.local == local_name!("name"))
                                        && &*a.value == "og:title"
                                })
                            {
                                marks.og_title = Some(node.id);
                            }
                            if marks.content_language.is_none()
                                && has(local_name!("http-equiv"))
                                && has(local_name!("content"))
                                && attr(e, "http-equiv").is_some_and(|v| {
                                    v.trim().eq_ignore_ascii_case("content-language")
                                })
                            {
                                marks.content_language = Some(node.id);
                            }
                        } else if *local == local_name!("h1") {
                            first(&mut marks.h1);
                        } else if *local == local_name!("html") {
                            if has(local_name!("lang")) {
                                first(&mut marks.html_lang);
                            }
                        } else if *local == local_name!("base") {
                            if has(local_name!("href")) {
                                first(&mut marks.base);
                            }
                        } else if *local == local_name!("a") || *local == local_name!("area") {
                            if has(local_name!("href")) {
                                marks.links.push(node.id);
                            }
                        } else if *local == local_name!("link")
                            && has(local_name!("href"))
                            && e.attrs.iter().any(|a| {
                                a.name.ns == ns!()
                                    && a.name.local == local_name!("rel")
                                    && a.value.split(SELECTOR_WHITESPACE).any(|w| {
                                        if html {
                                            w.eq_ignore_ascii_case("next")
                                        } else {
                                            w == "next"
                                        }
                                    })
                            })
                        {
                            marks.links.push(node.id);
                        }
                    });
                }
                Step::Leave(node, _) => {
                    with_element(&node, |e| {
                        depth = depth.saturating_sub(1);
                        if e.name.local == local_name!("head") {
                            in_head -= 1;
                        }
                    });
                }
            }
            true
        });
        marks
    }

    /// The title when Readability finds none: `<title>`, else `og:title`, else the first
    /// `h1`.
    fn title(&self, doc: &Document) -> Option<String> {
        let text = |id: Option<NodeId>| id.map(|id| collapse(&NodeRef::new(id, &doc.tree).text()));
        let og = || {
            self.og_title
                .and_then(|id| NodeRef::new(id, &doc.tree).attr("content"))
                .map(|c| collapse(&c))
        };
        // Each source is read only when the ones before it gave no text.
        text(self.head_title.or(self.title))
            .filter(|t| !t.is_empty())
            .or_else(|| og().filter(|t| !t.is_empty()))
            .or_else(|| text(self.h1).filter(|t| !t.is_empty()))
    }

    /// The declared language: `<html lang>`, else a `Content-Language` meta.
    fn lang(&self, doc: &Document) -> Option<String> {
        let value = |id: Option<NodeId>, name: &str| {
            id.and_then(|id| NodeRef::new(id, &doc.tree).attr(name))
                .map(|l| l.trim().to_owned())
        };
        value(self.html_lang, "lang")
            .filter(|l| !l.is_empty())
            .or_else(|| value(self.content_language, "content"))
            .filter(|l| !l.is_empty() && l.len() <= 64)
    }

    /// Absolute http(s) links in document order (`<a href>`, `<area href>`,
    /// `<link rel=next>`), fragments removed, duplicates dropped.
    fn links(&self, doc: &Document, base: &Url) -> Vec<Url> {
        let base = self
            .base
            .and_then(|id| NodeRef::new(id, &doc.tree).attr("href"))
            .and_then(|h| base.join(h.trim()).ok())
            .unwrap_or_else(|| base.clone());
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for id in &self.links {
            let Some(href) = NodeRef::new(*id, &doc.tree).attr("href") else {
                continue;
            };
            let Ok(mut url) = base.join(href.trim()) else {
                continue;
            };
            if !matches!(url.scheme(), "http" | "https") {
                continue;
            }
            url.set_fragment(None);
            if seen.insert(url.as_str().to_owned()) {
                out.push(url);
            }
        }
        out
    }
}

/// Whitespace as the selector engine splits an attribute's words (`[rel~=next]`).
const SELECTOR_WHITESPACE: &[char] = &[' ', '\t', '\n', '\r', '\x0C'];

/// What the chrome filter saw.
struct Cleaned {
    /// Visible characters (not whitespace) left in the body.
    text_chars: usize,
    /// Visible characters before chrome was removed (hidden and never-content elements
    /// excluded).
    all_chars: usize,
    /// Script elements in the page.
    scripts: usize,
}

/// What kind of element the chrome filter sees.
enum Verdict {
    /// Removed with its subtree, no questions asked.
    Remove,
    /// Chrome, removed unless it holds the main content or much of the page's text.
    Chrome,
    /// Chrome by class name or id: removed like chrome, but only when no paragraph inside is
    /// as long as an article's (a name like `Section--Ads` can mark a block of the article).
    NamedChrome,
    /// Layout chrome by name: removed like chrome, but only when mostly links or short.
    Layout,
    /// `noscript`: removed, unless it holds much of the page's text and more than a short
    /// message (broken markup can leave a page's content inside it).
    Noscript,
    /// Reader comments by class name or id: removed however much of the page's text they
    /// hold, unless they hold the main content.
    Comments,
    /// Marks main content (`article`, `main`, `role=main`, `itemprop=articleBody`).
    Main,
    /// Anything else.
    Other,
}

fn verdict(node: &NodeRef<'_>, in_main: bool, memo: &mut Memo<'_>) -> Verdict {
    if with_element(node, |e| is_never_content(&e.name.local)).unwrap_or(false) {
        return Verdict::Remove;
    }
    if is_hidden(node) {
        return Verdict::Remove;
    }
    with_element(node, |e| {
        let name = &*e.name.local;
        if name == "noscript" {
            return Verdict::Noscript;
        }
        let class = attr(e, "class").map(|v| memo.sense(v)).unwrap_or_default();
        let names = attr(e, "id").map_or(class.names, |id| class.names.and(memo.sense(id).names));
        // A reader's comment is often an `article` of its own; it is still a comment.
        if names.comments && !names.content && !matches!(name, "html" | "body" | "main") {
            return Verdict::Comments;
        }
        let role = attr(e, "role").map(str::to_ascii_lowercase);
        if matches!(name, "article" | "main")
            || role.as_deref() == Some("main")
            || attr(e, "itemprop").is_some_and(|p| p.eq_ignore_ascii_case("articleBody"))
        {
            return Verdict::Main;
        }
        // A page's form may wrap all of it (a site built on one server-side form): chrome
        // only without an article's paragraph.
        if name == "form" {
            return Verdict::NamedChrome;
        }
        // An aside named as the post is the post, laid out beside the site's menus.
        if name == "aside" && class.entry {
            return Verdict::Other;
        }
        if matches!(name, "nav" | "aside")
            || (matches!(name, "header" | "footer") && !in_main)
            || role.is_some_and(|r| CHROME_ROLES.contains(&r.as_str()))
        {
            return Verdict::Chrome;
        }
        if matches!(name, "html" | "body") {
            return Verdict::Other;
        }
        if names.always {
            Verdict::Chrome
        } else if names.strong {
            Verdict::NamedChrome
        } else if names.layout && !names.content {
            Verdict::Layout
        } else {
            Verdict::Other
        }
    })
    .unwrap_or(Verdict::Other)
}

/// An open element during the chrome walk.
struct Frame {
    id: NodeId,
    chars: usize,
    link_chars: usize,
    /// Visible characters of the longest paragraph inside.
    longest_paragraph: usize,
    paragraph: bool,
    has_main: bool,
    verdict: Verdict,
    main: bool,
    link: bool,
    code: bool,
}

/// Removes chrome from the document: never-content elements, hidden elements, and chrome
/// (navigation, site headers and footers, asides, banners, share bars, …) unless it holds the
/// main content or a large share of the text.
fn clean(doc: &Document, memo: &mut Memo<'_>) -> Cleaned {
    let mut remove: Vec<NodeId> = Vec::new();
    // Chrome candidates: the element, its visible characters, and whether it is removed
    // even above the share cap (a short `noscript`, reader comments).
    let mut candidates: Vec<(NodeId, usize, bool)> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut in_main = 0usize;
    let mut in_link = 0usize;
    let mut in_code = 0usize;
    let mut scripts = 0usize;
    let mut total = 0usize;
    walk(doc.root(), |step| match step {
        Step::Enter(node) => {
            if let Some(n) = with_text(&node, visible_len) {
                total += n;
                if let Some(top) = frames.last_mut() {
                    top.chars += n;
                    if in_link > 0 {
                        top.link_chars += n;
                    }
                }
                return false;
            }
            if !node.is_element() {
                return node.is_document() || node.is_fragment();
            }
            let name = with_element(&node, |e| e.name.local.clone());
            // An `a` without `href` is an anchor (`<a name>`), not a link; broken markup can
            // leave one open around whole sections.
            let link = name.as_ref().is_some_and(|n| &**n == "a")
                && with_element(&node, |e| attr(e, "href").is_some()).unwrap_or(false);
            if name.as_ref().is_some_and(|n| &**n == "script") {
                scripts += 1;
            }
            let code = name
                .as_ref()
                .is_some_and(|n| matches!(&**n, "pre" | "code"));
            let v = match verdict(&node, in_main > 0, memo) {
                // Inside code, class names are highlighting (`token comment`), not chrome.
                Verdict::Remove => Verdict::Remove,
                _ if in_code > 0 || code => Verdict::Other,
                v => v,
            };
            if matches!(v, Verdict::Remove) {
                remove.push(node.id);
                return false;
            }
            let main = matches!(v, Verdict::Main);
            in_main += usize::from(main);
            in_link += usize::from(link);
            in_code += usize::from(code);
            frames.push(Frame {
                id: node.id,
                chars: 0,
                link_chars: 0,
                longest_paragraph: 0,
                paragraph: name.as_ref().is_some_and(|n| &**n == "p"),
                has_main: main,
                verdict: v,
                main,
                link,
                code,
            });
            true
        }
        Step::Leave(node, entered) => {
            if entered
                && node.is_element()
                && let Some(frame) = frames.pop()
            {
                in_main -= usize::from(frame.main);
                in_link -= usize::from(frame.link);
                in_code -= usize::from(frame.code);
                let longest = if frame.paragraph {
                    frame.longest_paragraph.max(frame.chars)
                } else {
                    frame.longest_paragraph
                };
                let chrome = match frame.verdict {
                    Verdict::Chrome | Verdict::Noscript | Verdict::Comments => true,
                    Verdict::NamedChrome => longest < NAMED_CHROME_MAX_PARAGRAPH,
                    Verdict::Layout => {
                        frame.link_chars * 4 >= frame.chars || frame.chars <= LAYOUT_SHORT
                    }
                    _ => false,
                };
                if chrome && !frame.has_main {
                    let forced = (matches!(frame.verdict, Verdict::Noscript)
                        && frame.chars <= LAYOUT_SHORT)
                        || matches!(frame.verdict, Verdict::Comments);
                    candidates.push((frame.id, frame.chars, forced));
                }
                if let Some(parent) = frames.last_mut() {
                    parent.chars += frame.chars;
                    parent.link_chars += frame.link_chars;
                    parent.longest_paragraph = parent.longest_paragraph.max(longest);
                    parent.has_main |= frame.has_main;
                }
            }
            true
        }
    });
    let cap = (total as f64 * CHROME_MAX_SHARE) as usize;
    let mut removed_chars = 0usize;
    // Candidates arrive innermost first; an outer removal covers inner ones.
    let mut removed: HashSet<NodeId> = HashSet::new();
    for (id, chars, forced) in candidates.iter().rev() {
        if *chars <= cap || *forced {
            let node = NodeRef::new(*id, &doc.tree);
            if node.ancestors_it(None).any(|a| removed.contains(&a.id)) {
                continue;
            }
            removed.insert(*id);
            removed_chars += chars;
        }
    }
    for id in remove.iter().chain(removed.iter()) {
        NodeRef::new(*id, &doc.tree).remove_from_parent();
    }
    Cleaned {
        text_chars: total.saturating_sub(removed_chars),
        all_chars: total,
        scripts,
    }
}

/// Removes chrome from the document, then prunes boilerplate from its body.
fn clean_and_prune(doc: &Document, memo: &mut Memo<'_>) -> Cleaned {
    let cleaned = clean(doc, memo);
    if let Some(body) = doc.body() {
        prune(body, memo);
    }
    cleaned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::parse::parse;

    fn lines(text: &str) -> Vec<String> {
        text.split('\n').map(str::to_owned).collect()
    }

    /// The page's metadata as the selector queries read it, one query each.
    fn by_selectors(doc: &Document, base: &Url) -> (Option<String>, Option<String>, Vec<Url>) {
        let first_text = |selector: &str| {
            doc.select_single(selector)
                .nodes()
                .first()
                .map(|n| collapse(&n.text()))
        };
        let og = || {
            doc.select_single(r#"meta[property="og:title"], meta[name="og:title"]"#)
                .attr("content")
                .map(|c| collapse(&c))
        };
        let title = first_text("head title")
            .or_else(|| first_text("title"))
            .filter(|t| !t.is_empty())
            .or_else(|| og().filter(|t| !t.is_empty()))
            .or_else(|| first_text("h1").filter(|t| !t.is_empty()));
        let from_meta = || {
            doc.select("meta[http-equiv][content]")
                .nodes()
                .iter()
                .find(|n| {
                    n.attr("http-equiv")
                        .is_some_and(|v| v.trim().eq_ignore_ascii_case("content-language"))
                })
                .and_then(|n| n.attr("content"))
                .map(|l| l.trim().to_owned())
        };
        let lang = doc
            .select_single("html[lang]")
            .attr("lang")
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
            .or_else(from_meta)
            .filter(|l| !l.is_empty() && l.len() <= 64);
        let base = doc
            .select_single("base[href]")
            .attr("href")
            .and_then(|h| base.join(h.trim()).ok())
            .unwrap_or_else(|| base.clone());
        let mut seen = HashSet::new();
        let links = doc
            .select("a[href], area[href], link[rel~=next][href]")
            .nodes()
            .iter()
            .filter_map(|n| base.join(n.attr("href")?.trim()).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .map(|mut u| {
                u.set_fragment(None);
                u
            })
            .filter(|u| seen.insert(u.as_str().to_owned()))
            .collect();
        (title, lang, links)
    }

    #[test]
    fn one_walk_finds_the_metadata_the_selectors_find() {
        let base = Url::parse("https://example.com/a/page").unwrap();
        let pages = [
            // Foreign elements: an `html` with `lang`, a `title` and links inside SVG and
            // MathML; `rel` words compared case-insensitively on HTML elements only; an
            // `xlink:href` is in a namespace, not an `href`.
            "<html><head><meta name=og:title content=' OG  title '></head><body>\
             <svg><title>Drawing</title><html lang=fr></html><a xlink:href=/svg-x>x</a>\
             <a href=/svg-a>a</a><link rel=NEXT href=/svg-upper /><link rel='prev next' \
             href=/svg-next /></svg><math><title>M</title></math>\
             <link rel=NEXT href=/upper><link rel='next&#12;page' href=/ff><link rel=nexts \
             href=/no><a href='#top'>t</a><a name=n>anchor</a><area href=/map>\
             <h1>  Heading   one </h1><h1>Two</h1><div class=PostTitle>Named</div></body></html>",
            // A `<title>` outside `head` before the one inside it; an empty `html lang`
            // gives way to the meta, whose `http-equiv` is trimmed and read in any case.
            "<!doctype html><html lang=' '><body><p>x</p></body></html>",
            "<html lang=''><head><meta http-equiv=refresh content=5>\
             <meta http-equiv=' Content-LANGUAGE ' content=' de-AT '><title> </title>\
             <meta property=og:title content=Og><base href='/root/'></head>\
             <body><title>Body title</title><a href=rel>r</a><a href='https://example.com/a/page#x'>\
             self</a><a href=mailto:x@y>m</a><a href=rel>again</a><base href=/second/></body></html>",
            "<html><head><meta property=OG:TITLE content=no><meta name=og:title content=''>\
             </head><body><h1></h1><h1>Late</h1><template><a href=/in-template>t</a>\
             <title>T</title></template></body></html>",
            // Markup foreign content cannot hold breaks out of it.
            "<svg><p><html lang=en-GB><title>Out</title></html><a href=/after>after</a></svg>",
        ];
        for page in pages {
            let doc = parse(page);
            let marks = Marks::of(&doc);
            let walked = (
                marks.title(&doc),
                marks.lang(&doc),
                marks.links(&doc, &base),
            );
            assert_eq!(walked, by_selectors(&doc, &base), "{page}");
            assert_eq!(
                (marks.depth, marks.elements),
                crate::extract::tree::depth_and_count(doc.root()),
                "{page}"
            );
            assert_eq!(
                Headlines::read(&doc, &marks.headlines).elements,
                Headlines::of(&doc).elements,
                "{page}"
            );
        }
        // The answers themselves, on the first page (links by path) and the third.
        let answers = |page: &str, title, lang, links: &[&str], show: fn(&Url) -> String| {
            let doc = parse(page);
            let marks = Marks::of(&doc);
            assert_eq!(marks.title(&doc).as_deref(), Some(title));
            assert_eq!(marks.lang(&doc).as_deref(), Some(lang));
            let got: Vec<String> = marks.links(&doc, &base).iter().map(show).collect();
            assert_eq!(got, links);
        };
        answers(
            pages[0],
            "Drawing",
            "fr",
            &["/svg-a", "/svg-next", "/upper", "/ff", "/a/page", "/map"],
            |u| u.path().to_owned(),
        );
        answers(
            pages[2],
            "Og",
            "de-AT",
            &["https://example.com/root/rel", "https://example.com/a/page"],
            |u| u.as_str().to_owned(),
        );
    }

    #[test]
    fn one_walk_finds_the_container_and_the_first_h1_the_selectors_find() {
        let pages = [
            "<body><main><h1>A</h1></main><h1>B</h1></body>",
            "<body><article>1</article><article>2</article><div role=MAIN>x</div></body>",
            "<body><div itemprop=articlebody>x</div><div role=main>y</div><div role=main>z</div></body>",
            "<body><div itemprop=articleBody>x</div><svg><main/><h1>in svg</h1></svg></body>",
            "<body><p>none</p></body>",
        ];
        for page in pages {
            let doc = parse(page);
            let by_selectors = (
                CONTAINERS.iter().any(|s| unique(&doc, s).is_some()),
                doc.select_single("h1").nodes().first().map(|n| n.id),
            );
            assert_eq!(container_and_h1(&doc), by_selectors, "{page}");
        }
        let doc = parse(pages[1]);
        assert!(!container_and_h1(&doc).0);
        let doc = parse(pages[3]);
        assert!(container_and_h1(&doc).0);
    }

    #[test]
    fn headings_the_title_line_says_are_dropped_once() {
        let mut l = lines(
            "# Coast Herald\n\n# Storm closes the harbour\n\nThe port is shut.\n\n\
             ## Storm closes the harbour\n\nIt was the second storm.",
        );
        drop_repeated_headings(
            &mut l,
            Some("Storm closes the  harbour"),
            Some("coast herald"),
        );
        assert_eq!(
            l,
            lines("The port is shut.\n\n## Storm closes the harbour\n\nIt was the second storm.")
        );
        // A heading that only contains the title or the site name is the text's own.
        let mut l = lines("# Storm closes the harbour again\n\nText\n\n## Coast Herald archive");
        let before = l.clone();
        drop_repeated_headings(
            &mut l,
            Some("Storm closes the harbour"),
            Some("Coast Herald"),
        );
        assert_eq!(l, before);
        // Text made of the title heading alone keeps it.
        let mut l = lines("# Storm");
        drop_repeated_headings(&mut l, Some("Storm"), None);
        assert_eq!(l, lines("# Storm"));
    }

    #[test]
    fn a_title_of_many_parts_or_a_long_named_element_costs_no_search() {
        // Thousands of parts and of elements named "title", each holding the page's rest:
        // the title is left whole, having compared nothing (cutting it part by part against
        // every element's whole text was quadratic twice over).
        let title: Vec<String> = (0..3000).map(|i| format!("p{i}")).collect();
        let title = title.join(" | ");
        let body = format!(
            "{}<h1>p7</h1><p>Text.</p>{}",
            "<div class=title>x ".repeat(5000),
            "</div>".repeat(5000)
        );
        let doc = parse(&format!(
            "<html><head><title>{title}</title></head><body>{body}</body></html>"
        ));
        assert_eq!(headline_of_title(&doc, title.clone(), None), title);
        // Up to the bound a title is cut as before.
        let twelve: Vec<String> = (0..TITLE_MAX_PARTS).map(|i| format!("p{i}")).collect();
        let twelve = twelve.join(" | ");
        assert_eq!(headline_of_title(&doc, twelve, None), "p7");
        // An element's text is read up to the bound only.
        let doc = parse("<html><body><div id=a>abc <b>def</b></div></body></html>");
        let node = doc.select("#a").nodes()[0];
        assert_eq!(text_within(node, 6).as_deref(), Some("abc def"));
        assert_eq!(text_within(node, 5), None);
    }

    #[test]
    fn the_title_is_cut_to_the_part_a_heading_of_the_page_says() {
        let page = |title: &str, body: &str| {
            parse(&format!(
                "<html><head><title>{title}</title></head><body>{body}</body></html>"
            ))
        };
        let cut =
            |doc: &Document, title: &str, site| headline_of_title(doc, title.to_owned(), site);
        let doc = page(
            "Just Keep Going « Rand's Blog",
            "<h1>Rand's Blog</h1><h2>Just Keep Going</h2><p>Text.</p>",
        );
        assert_eq!(
            cut(&doc, "Just Keep Going « Rand's Blog", Some("Rand's Blog")),
            "Just Keep Going"
        );
        // The site's name is never the title, however long.
        let doc = page(
            "A B | Coast Herald Daily News",
            "<h1>Coast Herald Daily News</h1><h2>A B</h2>",
        );
        assert_eq!(
            cut(
                &doc,
                "A B | Coast Herald Daily News",
                Some("Coast Herald Daily News")
            ),
            "A B"
        );
        // A chevron, a bullet, or a bracket after a space sets the site's name apart too.
        let doc = page(
            "",
            "<h2>One of those birthdays</h2><h3>The Columns of Liberty</h3>",
        );
        assert_eq!(
            cut(&doc, "Free Range Librarian › One of those birthdays", None),
            "One of those birthdays"
        );
        assert_eq!(
            cut(&doc, "One of those birthdays ● As We Travel", None),
            "One of those birthdays"
        );
        assert_eq!(
            cut(&doc, "The Columns of Liberty (Harpers.org)", None),
            "The Columns of Liberty"
        );
        // Several parts joined: the run of parts the heading says.
        let doc = page("", "<h1>Lassen: There's much to learn</h1>");
        assert_eq!(
            cut(
                &doc,
                "Lassen: There's much to learn : Columnists : County Star",
                None
            ),
            "Lassen: There's much to learn"
        );
        // A hyphen inside a word does not split; no heading, no cut.
        let doc = page("", "<h1>Apple unveils fastest</h1>");
        assert_eq!(
            cut(
                &doc,
                "Pre-Macworld move: Apple unveils fastest-ever Macs",
                None
            ),
            "Pre-Macworld move: Apple unveils fastest-ever Macs"
        );
        let doc = page("", "<h1>fastest-ever Macs</h1>");
        assert_eq!(
            cut(&doc, "Pre-Macworld move: fastest-ever Macs", None),
            "fastest-ever Macs"
        );
        // An element named for the headline says it as well as a heading.
        let doc = page("", "<div class=StoryHeadline>Kerry endorses Obama</div>");
        assert_eq!(
            cut(&doc, "Eagle Online - Kerry endorses Obama", None),
            "Kerry endorses Obama"
        );
        let doc = page("", "<p>No heading.</p>");
        assert_eq!(
            cut(&doc, "Storm | Coast Herald", None),
            "Storm | Coast Herald"
        );
        // A heading that says the whole title keeps it whole.
        let doc = page("", "<h1>Storm | Coast Herald</h1><h2>Storm</h2>");
        assert_eq!(
            cut(&doc, "Storm | Coast Herald", None),
            "Storm | Coast Herald"
        );
    }

    #[test]
    fn the_post_under_the_headline_is_found_and_a_selection_elsewhere_seen() {
        let base = Url::parse("https://example.com/post").unwrap();
        let doc = parse(
            "<html><body><div><div class=x><h3>Fall Leaf Bunting</h3><div><p>Simple shares \
             this easy fall leaf bunting.</p></div></div><div><p>Tip jar: thank you for \
             every coin you give.</p></div></div></body></html>",
        );
        let post = headline_post(&doc, Some("Fall Leaf Bunting"), &mut Memo::new(&base)).unwrap();
        assert_eq!(
            post,
            lines("### Fall Leaf Bunting\n\nSimple shares this easy fall leaf bunting.")
        );
        assert!(anchored_elsewhere(
            &lines("Tip jar: thank you for every coin you give."),
            &post
        ));
        assert!(!anchored_elsewhere(
            &lines("Simple shares this easy fall leaf bunting.\n\nMore."),
            &post
        ));
        // No heading says the title: no post.
        assert!(headline_post(&doc, Some("Winter"), &mut Memo::new(&base)).is_none());
    }

    #[test]
    fn the_site_name_is_what_the_title_leaves_beside_the_headline() {
        let site = |raw, title| site_from_title(Some(raw), Some(title));
        assert_eq!(
            site(
                "Storm closes the harbour | Coast Herald",
                "Storm closes the harbour"
            )
            .as_deref(),
            Some("Coast Herald")
        );
        assert_eq!(
            site(
                "Coast Herald - Storm closes the harbour",
                "Storm closes the harbour"
            )
            .as_deref(),
            Some("Coast Herald")
        );
        assert_eq!(site("Storm", "Storm"), None);
        assert_eq!(site("Other words", "Storm"), None);
    }

    #[test]
    fn a_generic_readable_title_gives_way_to_the_raw_title_s_headline() {
        let doc = parse(
            "<html><body><h1>Selectism</h1><h2>Week 9 fantasy feedback</h2><p>Text.</p>\
             </body></html>",
        );
        let h = Headlines::of(&doc);
        let raw = || Some("Week 9 fantasy feedback - NFL.com".to_owned());
        // A generic og:title that no heading says: the raw title's part a heading says.
        assert_eq!(
            h.title_of("Official Blog of the League".into(), raw(), None),
            "Week 9 fantasy feedback"
        );
        // A readable title a heading says stays.
        assert_eq!(h.title_of("Selectism".into(), raw(), None), "Selectism");
        // A site's one-word logo is not taken for the headline.
        assert_eq!(
            h.title_of(
                "Some Generic Blog".into(),
                Some("Selectism | Watch".into()),
                None
            ),
            "Some Generic Blog"
        );
    }

    #[test]
    fn a_gallery_s_repeated_title_is_not_read_as_its_pictures_alt_text() {
        let alts = |html: &str| {
            let doc = parse(html);
            drop_repeated_alts(&doc, Some("Modern Home In San Diego"));
            doc.select("img[alt]").length()
        };
        let gallery = "<html><body><img alt='Kitchen Modern Home In San Diego'>\
                       <img alt='Modern Home in San Diego, the pool'><img alt='Night View - \
                       Modern Home In San Diego'><img alt='A red door'></body></html>";
        assert_eq!(alts(gallery), 1);
        // One or two pictures named after the article are its own pictures.
        let lead = "<html><body><img alt='Modern Home In San Diego'><img alt='Modern Home In \
                    San Diego at night'><img alt='A red door'></body></html>";
        assert_eq!(alts(lead), 3);
        // Without a title of three words, only repeats go.
        for title in [None, Some(""), Some("Home")] {
            let doc = parse(gallery);
            drop_repeated_alts(&doc, title);
            assert_eq!(doc.select("img[alt]").length(), 4);
        }
        // A picture shown twice keeps its description the first time only.
        let again = "<html><body><img alt='A red door'><p>Text.</p><img alt=' A red  door'>\
                     </body></html>";
        let doc = parse(again);
        drop_repeated_alts(&doc, Some("Modern Home In San Diego"));
        assert_eq!(doc.select("img[alt]").length(), 1);
        assert_eq!(
            doc.select_single("img").attr("alt").as_deref(),
            Some("A red door")
        );
    }

    #[test]
    fn the_first_title_heading_left_in_the_page_is_found_without_a_query() {
        let doc = parse(
            "<html><body><nav><h2>The Title Here</h2></nav><h1>The Title Here</h1>\
             </body></html>",
        );
        let marked = Headlines::of(&doc).mark_title_headings(&doc, "The Title Here");
        assert_eq!(marked.len(), 2);
        let first = |doc: &Document| first_attached(doc, &marked).map(|n| n.id);
        assert_eq!(first(&doc), Some(marked[0]));
        // A heading removed with its block is not the page's any more.
        doc.select("nav").remove();
        assert_eq!(first(&doc), Some(marked[1]));
    }

    #[test]
    fn the_headline_s_dateline_is_put_back_under_it() {
        let base = Url::parse("https://example.com/post").unwrap();
        let para = "The article's own paragraph, which says a good deal about the matter at \
                    hand, with commas, clauses, and enough words to be scored as prose. ";
        let page = format!(
            "<html><head><title>A Headline Of Some Length - Site</title></head><body>\
             <div class=post><h1>A Headline Of Some Length</h1><div class=byline>November \
             12th, 2012 by Linda Bustos | 3 Comments</div><div class=entry-content><p>{p}</p>\
             <p>{p}</p><p>{p}</p></div></div></body></html>",
            p = para.repeat(3)
        );
        let out = extract_html(&page, &base);
        let at = out
            .lines
            .iter()
            .position(|l| l == "November 12th, 2012 by Linda Bustos")
            .unwrap_or_else(|| panic!("{:?}", out.lines));
        // First in the text, or right under the headline when the text prints it.
        assert!(
            at == 0
                || out.lines[..at]
                    .iter()
                    .all(|l| l.is_empty() || l.starts_with("# ")),
            "{:?}",
            out.lines
        );
        assert!(
            !out.lines.iter().any(|l| l.contains("Comments")),
            "{:?}",
            out.lines
        );
        // Without a date, a byline is not put back.
        let page = page.replace("November 12th, 2012 by ", "");
        let out = extract_html(&page, &base);
        assert!(
            !out.lines.iter().any(|l| l.contains("Linda Bustos")),
            "{:?}",
            out.lines
        );
    }

    #[test]
    fn a_post_in_a_page_wide_form_an_aside_or_a_category_named_after_chrome_is_kept() {
        let text = |html: &str| {
            let doc = parse(html);
            let base = Url::parse("https://example.com/").unwrap();
            clean(&doc, &mut Memo::new(&base));
            render(doc.body().unwrap()).join("\n")
        };
        let filler = "<p>Filler so that each block is a small share of the page. Filler so \
                      that each block is a small share of the page. Filler so that each block \
                      is a small share of the page. Filler so that each block is small.</p>"
            .repeat(3);
        let long = "A paragraph as long as an article's. ".repeat(12);
        // A form around the article's paragraphs (a page built on one server-side form) is
        // kept; a login form is not.
        let page = format!(
            "<html><body><form id=aspnetForm><p>{long}</p></form><form id=login><p>Sign in \
             to comment on this story.</p></form>{filler}</body></html>"
        );
        let out = text(&page);
        assert!(out.contains("as long as an article"), "{out}");
        assert!(!out.contains("Sign in"), "{out}");
        // An aside named as the post is the post; one named as a sidebar is chrome.
        let page = format!(
            "<html><body><aside class=blogPost><p>The post laid out beside the menus.</p>\
             </aside><aside class=sidebar><p>Archives and links.</p></aside>{filler}</body>\
             </html>"
        );
        let out = text(&page);
        assert!(out.contains("The post laid out"), "{out}");
        assert!(!out.contains("Archives"), "{out}");
        // A post filed under a category named like chrome, and a script's hook, say nothing
        // of the element's role; a share bar is still chrome.
        let page = format!(
            "<html><body><div class='entry-category-social_media entry'><p>The post about \
             social media.</p></div><div class='module js-social-images'><p>The article's \
             own text.</p></div><div class=social-share><p>Share this post.</p></div>\
             {filler}</body></html>"
        );
        let out = text(&page);
        assert!(out.contains("The post about social media."), "{out}");
        assert!(out.contains("The article's own text."), "{out}");
        assert!(!out.contains("Share this post."), "{out}");
    }

    #[test]
    fn a_post_titled_as_the_page_or_named_after_its_author_is_not_pruned() {
        let base = Url::parse("https://example.com/").unwrap();
        let text = |html: &str, title: &str| {
            let doc = parse(html);
            mark_title_headings(&doc, title);
            let body = doc.body().unwrap();
            prune(body, &mut Memo::new(&base));
            render(body).join("\n")
        };
        // The post's heading links to the post itself: its title, not another page's teaser.
        let post = "<html><body><div class=post><h2><a href='/2012/11/bunting.html'>Fall Leaf \
                    Bunting</a></h2><p>Simple shares this easy bunting.</p></div>\
                    <div class=more><h2><a href='/other.html'>Corn Necklace</a></h2>\
                    <p>Another craft.</p></div><p>Filler text so that the teasers are small.\
                    Filler text so that the teasers are small. Filler text.</p></body></html>";
        let out = text(post, "Fall Leaf Bunting");
        assert!(out.contains("Simple shares this easy bunting."), "{out}");
        assert!(!out.contains("Another craft."), "{out}");
        // A container named after the post's author is the post; an author box is removed.
        let entry = "<html><body><div class='entry-author-jane_doe entry'><h3>Notes</h3>\
                     <p>The post's own text.</p></div><div class=author-box>Jane writes about \
                     crafts.</div><p>Filler text so that both blocks are small. Filler text so \
                     that both blocks are small. Filler text.</p></body></html>";
        let out = text(entry, "Other");
        assert!(out.contains("The post's own text."), "{out}");
        assert!(!out.contains("Jane writes"), "{out}");
        // A box named for the author that holds the page's headline is not an author box.
        let boxed = "<html><body><div class=author><h3>Fall Leaf Bunting</h3><p>The post.</p>\
                     </div><p>Filler text so that the box is small. Filler text so that the box \
                     is small. Filler text.</p></body></html>";
        let out = text(boxed, "Fall Leaf Bunting");
        assert!(out.contains("The post."), "{out}");
    }

    #[test]
    fn the_whole_body_adds_the_article_s_text_not_its_teasers() {
        let para = |n: usize| {
            format!(
                "Paragraph {n} of the story goes on with more than eighty visible characters of \
                 plain prose, as the paragraph of a story has."
            )
        };
        let selected = lines(&format!("{}\n\n{}", para(0), para(1)));
        // The rest of the story: three more paragraphs under one subheading.
        let story = lines(&format!(
            "{}\n\n{}\n\n## More\n\n{}\n\n{}\n\n{}",
            para(0),
            para(1),
            para(2),
            para(3),
            para(4)
        ));
        assert!(adds_article_text(&selected, &story));
        // Other stories: each summary under its short title line.
        let teasers = lines(&format!(
            "{}\n\n{}\n\n## More headlines\n\nStorm closes the harbour\n\n{}\n\n\
             Council votes on the budget\n\n{}\n\nSchool opens a new wing\n\n{}",
            para(0),
            para(1),
            para(2),
            para(3),
            para(4)
        ));
        assert!(!adds_article_text(&selected, &teasers));
        // Two paragraphs more are not worth the body's noise; rows of prose in a table are
        // paragraphs too.
        let two = lines(&format!("{}\n\n{}\n\n{}", para(0), para(2), para(3)));
        assert!(!adds_article_text(&selected, &two));
        let table = lines(&format!(
            "| {} |\n| {} |\n| {} |",
            para(2),
            para(3),
            para(4)
        ));
        assert!(adds_article_text(&selected, &table));
    }

    #[test]
    fn merging_keeps_prose_lists_and_tables_and_drops_labels() {
        let long = "A paragraph long enough to count as prose in the page's main container, \
                    well over eighty visible characters.";
        let narrow = lines(&format!("Kept by selection.\n\n{long}"));
        let wide = lines(&format!(
            "# Headline\n\nKept by selection.\n\nShare this\n\n## Steps\n\n1. Heat the oil in the wok.\n\
             2. Fry the garlic until it turns golden.\n3. Add the greens and toss for a minute.\n\n## Tags\n\n\
             - a\n- b\n\n| Size | Weight |\n| --- | --- |\n| Small tomatoes | 120 grams |\n\
             | Large tomatoes | 240 grams |\n| Beefsteak tomatoes | 400 grams |\n\n{long}\n\nRead more"
        ));
        assert_eq!(
            merge(&narrow, wide),
            lines(&format!(
                "# Headline\n\nKept by selection.\n\n## Steps\n\n1. Heat the oil in the wok.\n\
                 2. Fry the garlic until it turns golden.\n3. Add the greens and toss for a minute.\n\n\
                 | Size | Weight |\n| --- | --- |\n| Small tomatoes | 120 grams |\n| Large tomatoes | 240 grams |\n| Beefsteak tomatoes | 400 grams |\n\n{long}"
            ))
        );
    }

    #[test]
    fn merging_keeps_a_short_table_whole_with_its_label() {
        let long = "A paragraph long enough to count as prose in the page's main container, \
                    well over eighty visible characters.";
        let narrow = lines(long);
        let wide = lines(&format!(
            "For the dough:\n\n| 125 g | Flour |\n| 65 g | Sugar |\n| 1 | Egg |\n\nServes:\n\n\
             | 2 | People |\n\nTags:\n\n- a\n- b\n\n{long}"
        ));
        assert_eq!(
            merge(&narrow, wide),
            lines(&format!(
                "For the dough:\n\n| 125 g | Flour |\n| 65 g | Sugar |\n| 1 | Egg |\n\n{long}"
            ))
        );
    }
}
