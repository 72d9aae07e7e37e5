//! Content selection on the cleaned page: `dom_smoothie` (a Readability port) picks the
//! main content; a selection whose own cleaning dropped most of the elements it kept gives
//! way to those elements as the filters left them; a short selection within one of a
//! repeated group of alike siblings (a thread's posts, a listing's cards) widens to the group, and one within one of a page's
//! sections (a landing page's features, each under a heading of one level) to the
//! sections; the selection widens to the page's own main container when it kept only part
//! of it; a short selection away from the headline's post gives way to the post; and when
//! selection kept too little of the page's prose, the fallback answers with the page's main
//! container or the region of the body that holds its prose; a page whose answer kept no
//! prose may answer with its largest repeated group.

use foldhash::{HashMap, HashMapExt, HashSet};

use dom_query::{Document, Element, LocalName, NodeId, NodeRef, local_name};
use dom_smoothie::{Config, ParsePolicy, Readability};
use html5ever::ns;

use super::prune::{Memo, drop_orphan_headings, is_list_line, prune};
use super::render::{collapse, render};
use super::title::{HEADLINE_MAX_CHARS, heading_words, text_within};
use super::tree::{
    Shape, Step, TextLens, alike, attached, attr, inner_shapes, shape_of, text_len, visible_len,
    walk, with_element, with_text,
};

/// Trees deeper than this skip content selection (its cost grows with depth × size).
const SELECT_MAX_DEPTH: usize = 180;
/// Trees with more elements than this skip content selection.
const SELECT_MAX_ELEMENTS: usize = 60_000;
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
/// A selection that holds less than this share of the grid of cards its pass kept for gives
/// way to the element around both (see [`with_kept_grid`])…
const GRID_MIN_HELD: f64 = 0.5;
/// …when that holds at most this many times the two together…
const GRID_MAX_EXTRA: f64 = 1.5;
/// …and the selection, a lead, has at most this many visible characters of prose.
const LEAD_MAX_PROSE: usize = 1500;
/// A grid is priced when at least one in this many of its lines names a price (see
/// [`priced`])…
const PRICED_MAX_LINES: usize = 6;
/// …a line of at most this many characters.
const PRICE_MAX_CHARS: usize = 40;
/// A grid of priced cards the filters left joins a short lead beside it when its members
/// hold at least this share of the cleaned body's visible characters.
const PRICED_GROUP_MIN_SHARE: f64 = 0.5;
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
/// A selection away from the headline's post gives way to the post when it has at most this
/// many times the post's visible characters.
const POST_MAX_GROWTH: f64 = 2.0;
/// A selection keeping less than this share of the body's text is compared with the
/// elements it kept, as the filters left them (see [`kept_whole`])…
const KEPT_CHECK_SHARE: f64 = 0.8;
/// …which replace it when they show at least this many times its visible characters…
const KEPT_MIN_GROWTH: f64 = 2.0;
/// …or this many times, when one of them holds a page's sections as its blocks
/// ([`sectioned`]): selection's own cleaning dropped whole sections of a landing page.
const SECTIONED_MIN_GROWTH: f64 = 1.3;
/// Elements selection kept whose cards' names (headings over nothing but a picture and a
/// link) it dropped, at least this many, replace it with those names (see [`lost_names`]).
const NAMES_MIN_LOST: usize = 6;
/// Sibling elements of one shape are a repeated group (posts, cards, rows) when at least
/// this many of them hold text, their children alike (see [`alike`])…
const GROUP_MIN_MEMBERS: usize = 3;
/// …and the selection, lying within one of them, is widened to them all when they hold at
/// least this many times the text of the one it lies in (and add prose, see
/// [`FALLBACK_MIN_PROSE`]), provided it kept less than [`SELECTION_SHORT_SHARE`] of the body.
const GROUP_MIN_GROWTH: f64 = 1.5;
/// A selection keeping less than this share of the body's text, within one of a page's
/// sections, widens to them all (see [`section_group`]).
const SECTIONS_MAX_SHARE: f64 = 0.6;
/// The sections add short paragraphs worth their noise when these hold at least this part
/// of the selection's visible characters (see [`sections_add`]).
const SECTIONS_MIN_ADDED_PART: usize = 2;
/// Selection's blocks, nested in the blocks of one element, widen to their sections when
/// at least this many of these are sections of the heading level of one holding a kept block
/// (see [`sections_around`]).
const SECTIONS_AROUND_MIN_MEMBERS: usize = 2;
/// A section of a page ([`section_level`]) has at least this many visible characters besides
/// its headings.
const SECTION_MIN_TEXT: usize = 80;
/// A page's largest repeated group stands for a page whose answer kept no prose when its
/// members hold at least this share of the cleaned body's visible characters…
const GROUP_REGION_MIN_SHARE: f64 = 0.6;
/// …its members found alike to one of its first this many siblings of their shape…
const GROUP_PIVOTS: usize = 3;
/// …and none of them holding more than this share of their text (layout columns).
const GROUP_MAX_MEMBER_SHARE: f64 = 0.5;

/// Whether a tree of this depth and this many elements goes through content selection
/// (its cost grows with depth × size); a larger one falls back to its prose region.
pub(crate) fn fits(depth: usize, elements: usize) -> bool {
    depth <= SELECT_MAX_DEPTH && elements <= SELECT_MAX_ELEMENTS
}

/// The page's main text, as selection, widening and the fallback decided it.
pub(crate) struct MainText {
    /// The text's lines.
    pub(crate) lines: Vec<String>,
    /// Whether the lines are the fallback's (the page's container or prose region) rather
    /// than the selection's.
    pub(crate) whole_body: bool,
    /// The text of the cleaned page's first `h1`, read before selection rewrote the page.
    pub(crate) h1: Option<String>,
}

/// The main text of a cleaned page (`doc`, with `body_chars` visible characters in its body,
/// `selectable` when [`fits`] says so): the selection, widened to the page's own main
/// container ([`widen`]); a short selection away from the post under the heading that says
/// `title` gives way to the post; when selection kept too little of the page's prose, the
/// fallback ([`settle`]). `reparse` gives the page parsed and cleaned again, for the rare page
/// whose prose region is needed after selection consumed the document. Selection's first
/// attempt works on `doc`, each other on the page as selection was given it (the same steps,
/// the same node ids; see [`select_content`]): a copy of it when the page is `copied` (one
/// copy is kept beside selection's tree), else made again by `again`, as is what is read of
/// it after selection; only a page that is not `large` (of many elements) holds its best
/// attempt beside the one being made.
#[expect(
    clippy::too_many_arguments,
    reason = "one caller; the page, its figures and the two ways to make it again"
)]
pub(crate) fn main_text(
    doc: Document,
    selectable: bool,
    large: bool,
    copied: bool,
    body_chars: usize,
    thread: bool,
    title: Option<&str>,
    memo: &mut Memo<'_>,
    reparse: impl FnOnce(&mut Memo<'_>) -> Document,
    again: impl Fn(&mut Memo<'_>) -> Document,
) -> MainText {
    // Selection consumes the document, and makes up to four attempts, each on the page as
    // it was given. Widening to a repeated group reads the cleaned page around what it
    // kept, and a page that marks no main container would need its prose region, should
    // selection keep under a third of it. A copy of the page as selection is given it is
    // kept for all of them, cheaper than parsing and cleaning the page again, unless the
    // page is too large to be copied: then it is made again when needed, rather than held
    // beside selection's own.
    let (marks_container, h1) = container_and_h1(&doc);
    let h1_id = h1;
    // The grid of cards the pass keeps for, under a lead of prose, noted by its filters.
    let grid = memo.kept_grid();
    // What widening and the fallback read of the cleaned page is taken before content
    // selection rewrites the one document: its first h1 and its own containers, rendered.
    let h1 = h1.map(|id| collapse(&NodeRef::new(id, &doc.tree).text()));
    // Nothing changes the document between here and the look above: a page that marks no
    // container has none to render.
    let containers = if marks_container {
        Containers::render(&doc, memo)
    } else {
        Containers {
            renders: Default::default(),
        }
    };
    let post = headline_post(&doc, title, memo);
    // The page as selection is given it, made again: what the steps above changed (the
    // containers' renders and the post's prune the page), changed again.
    let remade = |memo: &mut Memo<'_>| {
        let doc = again(memo);
        if marks_container {
            Containers::render(&doc, memo);
        }
        headline_post(&doc, title, memo);
        doc
    };
    // Nothing reads what the filters removed from here on: emptied, it is not copied with
    // the page (the spare, each attempt's copy of it).
    memo.forget_removed(&doc);
    let spare = (selectable && copied).then(|| doc.clone());
    let (selected, mut unselected) = if selectable {
        let input =
            |memo: &mut Memo<'_>| spare.as_ref().map_or_else(|| remade(memo), Document::clone);
        (select_content(doc, memo, !large, &input), spare)
    } else {
        (None, Some(doc))
    };
    // The selection, widened to the repeated group it lies in (one post of a thread, one
    // card of a listing), then to the page's own container.
    let selected = selected.map(|(narrow, ids)| {
        // Selection kept these elements, but its own cleaning inside them dropped most of
        // their text (a landing page's cards and short blurbs, read as link-dense or
        // unlikely blocks): the elements as the filters left them.
        // The visible characters of the lines as they stand, counted again only when they
        // change.
        let mut chars = visible_chars(&narrow);
        let narrow = if chars < (body_chars as f64 * KEPT_CHECK_SHARE) as usize {
            let doc = made(&mut unselected, &remade, memo);
            let whole = kept_whole(doc, &ids, narrow);
            chars = visible_chars(&whole);
            whole
        } else {
            narrow
        };
        let short = seeks_group(thread, chars, body_chars);
        let group = if short {
            repeated_group(made(&mut unselected, &remade, memo), &ids, thread)
        } else {
            None
        };
        let mut widened = false;
        let mut group_id = None;
        let narrow = match group {
            Some(group) => {
                let wide = prune_render(group, memo);
                if lost_prose(&narrow, &wide) >= FALLBACK_MIN_PROSE {
                    widened = true;
                    group_id = Some(group.id);
                    chars = visible_chars(&wide);
                    wide
                } else {
                    narrow
                }
            }
            None => narrow,
        };
        // One section of a page of sections (a landing page's features, each under its
        // heading): the sections together, when they add prose.
        // A repeated group it was widened to can be one section of them in turn.
        let sections = if chars < (body_chars as f64 * SECTIONS_MAX_SHARE) as usize {
            let around: Vec<NodeId> = group_id.into_iter().collect();
            let ids = if widened { &around } else { &ids };
            section_group(made(&mut unselected, &remade, memo), ids)
        } else {
            None
        };
        let narrow = match sections {
            Some(sections) => {
                let wide = prune_render(sections, memo);
                if sections_add(&narrow, &wide) {
                    chars = visible_chars(&wide);
                    wide
                } else {
                    narrow
                }
            }
            None => narrow,
        };
        let lines = match widen(narrow, chars, &containers) {
            Ok(wide) => {
                chars = visible_chars(&wide);
                wide
            }
            Err(narrow) => narrow,
        };
        // The cards the pass kept for, when the selection dropped them: the lead and the
        // grid together.
        match grid {
            Some(grid) => {
                let (lines, led) =
                    with_kept_grid(made(&mut unselected, &remade, memo), &ids, grid, lines);
                memo.set_grid_chars(led);
                let chars = visible_chars(&lines);
                (lines, chars)
            }
            // A short lead the filters left beside a grid of priced cards (a shop's
            // category text over its products): the two together.
            None if chars < (body_chars as f64 * SELECTION_SHORT_SHARE) as usize => {
                let doc = made(&mut unselected, &remade, memo);
                match priced_group(doc, memo) {
                    Some(group) => {
                        let lines = with_kept_grid(doc, &ids, group, lines).0;
                        let chars = visible_chars(&lines);
                        (lines, chars)
                    }
                    None => (lines, chars),
                }
            }
            None => (lines, chars),
        }
    });
    let (mut lines, whole_body) = settle(selected, body_chars, &containers, || {
        // Selection consumed the document and the page marks a main container too small to
        // stand for it: the rare page that falls back to its prose region is parsed and
        // cleaned again.
        if marks_container {
            let doc = reparse(memo);
            return prose_region(&doc).map(|n| prune_render(n, memo));
        }
        let doc = made(&mut unselected, &remade, memo);
        prose_region(doc).map(|n| prune_render(n, memo))
    });
    if !whole_body
        && memo.product()
        && let Some(h1) = h1_id
    {
        // One product's page: the blocks after its name and price that describe it.
        let doc = made(&mut unselected, &remade, memo);
        lines.extend(product_details(doc, h1, &lines, memo));
    }
    if !whole_body
        && let Some(post) = post
        && anchored_elsewhere(&lines, &post)
        && visible_chars(&lines) as f64 <= visible_chars(&post) as f64 * POST_MAX_GROWTH
    {
        // A short selection away from the headline's post is a sidebar block that outscored
        // a short post: the post is the page's text.
        lines = post;
    }
    MainText {
        lines,
        whole_body,
        h1,
    }
}

/// A selection (`narrow`, of the elements `ids` in `doc`, the cleaned page before
/// selection) that holds under [`GRID_MIN_HELD`] of the visible characters of the grid of
/// cards the pass kept (`grid`) gives way to the nearest element around both, rendered, when
/// that lies under the body and holds at most [`GRID_MAX_EXTRA`] times the two together
/// (the selection coming first, or the grid naming prices, see [`priced`]);
/// with the visible characters of the grid when it was put in, else 0.
fn with_kept_grid(
    doc: &Document,
    ids: &[NodeId],
    grid: NodeId,
    narrow: Vec<String>,
) -> (Vec<String>, usize) {
    let (Some(grid), Some(&first)) = (doc.tree.get(&grid), ids.first()) else {
        return (narrow, 0);
    };
    let cards = render(grid);
    let shown: HashSet<&str> = narrow.iter().map(String::as_str).collect();
    let total = visible_chars(&cards);
    let held: usize = cards
        .iter()
        .filter(|l| shown.contains(l.as_str()))
        .map(|l| visible_len(l))
        .sum();
    if total == 0 || held as f64 >= total as f64 * GRID_MIN_HELD {
        return (narrow, 0);
    }
    let around: HashSet<NodeId> = std::iter::once(grid.id)
        .chain(grid.ancestors_it(None).map(|a| a.id))
        .collect();
    let Some(both) = doc.tree.get(&first).and_then(|n| {
        std::iter::once(n)
            .chain(n.ancestors_it(None))
            .find(|a| around.contains(&a.id))
    }) else {
        return (narrow, 0);
    };
    let top = with_element(&both, |e| matches!(&*e.name.local, "body" | "html")).unwrap_or(true);
    if top || prose_chars(&narrow) > LEAD_MAX_PROSE {
        return (narrow, 0);
    }
    // A lead over the grid: the selection comes first (a menu of links before an article
    // is no grid it leads).
    let under = |id: NodeId| {
        doc.tree.get(&id).and_then(|n| {
            std::iter::once(n)
                .chain(n.ancestors_it(None))
                .find(|a| a.parent().is_some_and(|p| p.id == both.id))
                .map(|a| a.id)
        })
    };
    // The selection or the grid holds the other: what selection's own cleaning dropped.
    let leads = both.id == grid.id
        || both.id == first
        || match (under(first), under(grid.id)) {
            (Some(lead), Some(cards_at)) => {
                lead != cards_at
                    && both
                        .element_children()
                        .iter()
                        .map(|c| c.id)
                        .find(|&id| id == lead || id == cards_at)
                        == Some(lead)
            }
            _ => false,
        };
    // …or the grid comes first and is priced: a shop's products over its category's text,
    // where a menu before an article names no prices.
    let leads = leads || priced(&cards) || priced_members(&grid);
    if !leads {
        return (narrow, 0);
    }
    let mut lines = render(both);
    drop_orphan_headings(&mut lines);
    let wide = visible_chars(&lines);
    let limit = (visible_chars(&narrow) + total) as f64 * GRID_MAX_EXTRA;
    if wide > visible_chars(&narrow) && wide as f64 <= limit {
        (lines, total)
    } else {
        (narrow, 0)
    }
}

/// The page's largest repeated group ([`largest_group`]) when its members hold at least
/// [`PRICED_GROUP_MIN_SHARE`] of the cleaned body's visible characters and name prices
/// ([`priced`]): a shop's grid of products that the filters left.
fn priced_group(doc: &Document, memo: &mut Memo<'_>) -> Option<NodeId> {
    let (node, held, total) = largest_group(doc, |n| named_chrome(n, memo))?;
    (held as f64 >= total as f64 * PRICED_GROUP_MIN_SHARE && priced_members(&node))
        .then_some(node.id)
}

/// Whether the members of a group (the element children of `node` that hold text) name
/// prices: at least [`GROUP_MIN_MEMBERS`] of them, and half of them or more, hold a
/// currency sign beside a digit.
fn priced_members(node: &NodeRef<'_>) -> bool {
    let (mut members, mut priced) = (0usize, 0usize);
    for child in node.element_children() {
        let text = child.text();
        if text.trim().is_empty() {
            continue;
        }
        members += 1;
        priced += usize::from(names_a_price(&text));
    }
    priced >= GROUP_MIN_MEMBERS && priced * 2 >= members
}

/// Whether the rendered lines of a grid name prices: at least [`GROUP_MIN_MEMBERS`] short
/// lines with a currency sign beside a digit, one in [`PRICED_MAX_LINES`] lines or more.
fn priced(lines: &[String]) -> bool {
    let prices = lines
        .iter()
        .filter(|l| l.chars().count() <= PRICE_MAX_CHARS && names_a_price(l))
        .count();
    prices >= GROUP_MIN_MEMBERS && prices * PRICED_MAX_LINES >= lines.len()
}

/// Whether a line holds a currency sign with a digit right before or after it (`$12`,
/// `12,50 €`, `£ 8`).
fn names_a_price(line: &str) -> bool {
    let chars: Vec<char> = line.chars().collect();
    chars.iter().enumerate().any(|(i, c)| {
        matches!(c, '$' | '€' | '£' | '¥' | '₹' | '₩' | '₽' | '₺')
            && [i.wrapping_sub(2), i.wrapping_sub(1), i + 1, i + 2]
                .iter()
                .any(|&j| chars.get(j).is_some_and(char::is_ascii_digit))
    })
}

/// The cleaned page as it was before selection: `doc`, made by `again` first when it is
/// not there yet.
fn made<'d>(
    doc: &'d mut Option<Document>,
    again: &impl Fn(&mut Memo<'_>) -> Document,
    memo: &mut Memo<'_>,
) -> &'d Document {
    doc.get_or_insert_with(|| again(memo))
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

/// Runs content selection (`dom_smoothie`) on a cleaned document and renders what it kept,
/// with the ids of the elements it kept whole (the ids of the document given). Selection
/// makes up to four attempts, each less strict, until one keeps enough text, else takes
/// the one that kept the most: the first on `doc`, each other on the page made again by
/// `again` (node for node the document given); the best so far is held beside the one being
/// made when `hold_best`, else made again at the end (see [`one_at_a_time`]).
fn select_content(
    doc: Document,
    memo: &mut Memo<'_>,
    hold_best: bool,
    again: &dyn Fn(&mut Memo<'_>) -> Document,
) -> Option<(Vec<String>, Vec<NodeId>)> {
    let config = Config {
        disable_json_ld: true,
        keep_classes: true,
        ..Config::default()
    };
    let readability = one_at_a_time(doc, &config, hold_best, || again(memo))?;
    // The marked elements, found by one walk as the selector `[data-mcp-web-h1]` finds them.
    let marked = elements_where(&readability.doc, |e| {
        e.attrs
            .iter()
            .any(|a| a.name.ns == ns!() && &*a.name.local == H1_MARK)
    });
    for id in marked {
        let node = NodeRef::new(id, &readability.doc.tree);
        node.rename("h1");
        node.remove_attr(H1_MARK);
    }
    let root = readability.doc.select_single("#readability-page-1");
    let node = root.nodes().first().copied()?;
    let kept = node.element_children().iter().map(|n| n.id).collect();
    Some((prune_render(node, memo), kept))
}

/// The attempts selection makes, each less strict than the one before.
const POLICIES: [ParsePolicy; 4] = [
    ParsePolicy::Strict,
    ParsePolicy::Moderate,
    ParsePolicy::Clean,
    ParsePolicy::Raw,
];

/// A selector over `doc`, its `h1` elements marked first: the selector writes every `h1`
/// it keeps as `h2`, and the mark lets the page's own levels be restored afterwards. It is
/// given no address: with one it would rewrite every relative link it keeps as absolute,
/// and what reads the links after it (`Memo::leaves_the_page`) resolves them against the
/// page itself.
fn readable(doc: Document, config: Config) -> Option<Readability> {
    for id in elements_where(&doc, |e| e.name.local == local_name!("h1")) {
        NodeRef::new(id, &doc.tree).set_attr(H1_MARK, "");
    }
    Readability::with_document(doc, None, Some(config)).ok()
}

/// The elements of `doc` that `matches`, in document order, by one walk.
fn elements_where(doc: &Document, matches: impl Fn(&Element) -> bool) -> Vec<NodeId> {
    let mut found = Vec::new();
    walk(doc.root(), |step| {
        if let Step::Enter(node) = step
            && with_element(&node, &matches).unwrap_or(false)
        {
            found.push(node.id);
        }
        true
    });
    found
}

/// Selection's attempts ([`POLICIES`]) made one at a time, as `Readability::parse` makes
/// them: the first that keeps at least `char_threshold` characters, else the one that kept
/// the most (the first of equals). The first works on `doc`, each other on the page made
/// again by `again`. The best attempt so far is held beside the one being made when
/// `hold_best` (a page small enough for selection's trees), else made again at the end
/// unless it is the last one made, still held: one tree at a time.
fn one_at_a_time(
    doc: Document,
    config: &Config,
    hold_best: bool,
    mut again: impl FnMut() -> Document,
) -> Option<Readability> {
    let mut doc = Some(doc);
    // The best attempt so far: its place in `POLICIES`, what it kept, and the attempt
    // itself while it is held.
    let mut best: Option<(usize, usize, Option<Readability>)> = None;
    for (at, policy) in POLICIES.into_iter().enumerate() {
        // One tree at a time, unless the best is held: the last attempt goes before the
        // page is made again.
        if !hold_best && let Some((_, _, held)) = &mut best {
            *held = None;
        }
        let page = doc.take().unwrap_or_else(&mut again);
        let mut readability = readable(page, config.clone())?;
        if readability.parse_content_with_policy(policy).is_err() {
            continue;
        }
        let kept = readability
            .doc
            .select_single("#readability-page-1")
            .nodes()
            .first()
            .map_or(0, NodeRef::normalized_char_count);
        if kept >= config.char_threshold {
            return Some(readability);
        }
        if best.as_ref().is_none_or(|(_, most, _)| kept > *most) {
            best = Some((at, kept, Some(readability)));
        }
    }
    let (at, _, held) = best?;
    if let Some(readability) = held {
        return Some(readability);
    }
    let mut readability = readable(again(), config.clone())?;
    readability.parse_content_with_policy(POLICIES[at]).ok()?;
    Some(readability)
}

/// What selection kept (`narrow`, rendered from its own copy) gives way to the elements it
/// kept (`ids`, in `doc`, the cleaned page before selection) rendered as the filters left
/// them, when they show more than [`KEPT_MIN_GROWTH`] times its visible characters, or
/// [`SECTIONED_MIN_GROWTH`] times when one of them holds a page's sections ([`sectioned`]),
/// and add prose, or the names of many cards ([`lost_names`]), kept as headings over nothing.
fn kept_whole(doc: &Document, ids: &[NodeId], narrow: Vec<String>) -> Vec<String> {
    let n = visible_chars(&narrow);
    let nodes: Vec<NodeRef<'_>> = ids.iter().filter_map(|id| doc.tree.get(id)).collect();
    let growth = if nodes.iter().any(sectioned) {
        SECTIONED_MIN_GROWTH
    } else {
        KEPT_MIN_GROWTH
    };
    let raw: usize = nodes.iter().map(|node| text_len(node)).sum();
    if (raw as f64) < n as f64 * growth {
        return narrow;
    }
    let mut lines: Vec<String> = Vec::new();
    for node in nodes {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(render(node));
    }
    // The names of cards of a picture and a link are headings over nothing here: they are
    // what selection dropped when it lacks many of them.
    let raw = lines.clone();
    drop_orphan_headings(&mut lines);
    if visible_chars(&lines) as f64 >= n as f64 * growth
        && lost_prose(&narrow, &lines) >= FALLBACK_MIN_PROSE
    {
        lines
    } else if visible_chars(&raw) as f64 >= n as f64 * growth && lost_names(&narrow, &raw) {
        raw
    } else {
        narrow
    }
}

/// Whether at least [`GROUP_MIN_MEMBERS`] of an element's blocks are sections of a page
/// ([`section_level`]): a landing page's blocks, each under its heading.
fn sectioned(node: &NodeRef<'_>) -> bool {
    node.element_children()
        .iter()
        .filter(|c| section_level(c).is_some())
        .count()
        >= GROUP_MIN_MEMBERS
}

/// The repeated group the selection lies in: the parent of the nearest element around the
/// elements selection kept (`ids`, in `doc`, the cleaned page before selection) that has at
/// least [`GROUP_MIN_MEMBERS`] siblings of its shape (element name and class) holding text,
/// which together hold at least [`GROUP_MIN_GROWTH`] times its text, or any more text on a
/// thread's page (`thread`: a long opening post and its shorter replies are all its text):
/// the thread around one post, the listing around one card. None when the selection lies in
/// no such group (an article beside a comment thread lies in the article, not among the
/// comments).
fn repeated_group<'a>(doc: &'a Document, ids: &[NodeId], thread: bool) -> Option<NodeRef<'a>> {
    let mut lens = TextLens::default();
    for node in kept_chain(doc, ids)? {
        let parent = node.parent()?;
        let shape = shape_of(&node);
        let own = lens.of(&node);
        if own == 0 {
            continue;
        }
        let inner = inner_shapes(&node);
        let (members, chars) = parent
            .element_children()
            .iter()
            .filter(|s| shape_of(s) == shape && alike(&inner_shapes(s), &inner))
            .map(|s| lens.of(s))
            .filter(|&n| n > 0)
            .fold((0usize, 0usize), |(m, c), n| (m + 1, c + n));
        if members >= GROUP_MIN_MEMBERS {
            return (thread || chars as f64 >= own as f64 * GROUP_MIN_GROWTH).then_some(parent);
        }
    }
    None
}

/// Whether a selection of `kept` visible characters of a body of `body_chars` looks for the
/// repeated group it lies in ([`repeated_group`]): when it kept under
/// [`SELECTION_SHORT_SHARE`] of the body, or on a thread's page, whose posts are its text
/// however much of it the one selected holds.
fn seeks_group(thread: bool, kept: usize, body_chars: usize) -> bool {
    thread || kept < (body_chars as f64 * SELECTION_SHORT_SHARE) as usize
}

/// The elements around what selection kept (`ids`, in `doc`), innermost first, below the
/// body: the chain from the first kept element up, cut to the part around every kept one.
fn kept_chain<'a>(doc: &'a Document, ids: &[NodeId]) -> Option<Vec<NodeRef<'a>>> {
    let nodes: Vec<NodeRef<'a>> = ids.iter().filter_map(|id| doc.tree.get(id)).collect();
    let first = nodes.first()?;
    let mut chain: Vec<NodeRef<'a>> = std::iter::once(*first)
        .chain(first.ancestors_it(None))
        .take_while(|n| n.is_element() && !n.has_name("body") && !n.has_name("html"))
        .collect();
    for node in &nodes[1..] {
        let around: HashSet<NodeId> = std::iter::once(*node)
            .chain(node.ancestors_it(None))
            .map(|n| n.id)
            .collect();
        let at = chain.iter().position(|n| around.contains(&n.id))?;
        chain.drain(..at);
    }
    Some(chain)
}

/// The sections the selection lies in: the parent of the nearest element around what
/// selection kept (`ids`, in `doc`, the cleaned page before selection) that is a section
/// ([`section_level`]) among at least [`GROUP_MIN_MEMBERS`] sibling sections opening with a
/// heading of its level, whatever their shapes, which together hold at least [`GROUP_MIN_GROWTH`] times its text: a landing page's
/// features, each under its heading, of which selection kept one. So is the parent of such
/// an element that follows a block holding a heading alone ([`heading_only`]), among at
/// least [`GROUP_MIN_MEMBERS`] such pairs ([`heading_pairs`]), below the body, holding
/// [`GROUP_MIN_GROWTH`] times its text. Failing both, the element
/// around several kept elements nested in its sections ([`sections_around`]).
fn section_group<'a>(doc: &'a Document, ids: &[NodeId]) -> Option<NodeRef<'a>> {
    if let Some(parent) = sections_kept(doc, ids) {
        return Some(parent);
    }
    // Each element's section figures, read once: going up the chain, an element's children
    // are the element below and its siblings, read at the level below.
    let mut read: HashMap<NodeId, SectionText> = HashMap::new();
    let mut lens = TextLens::default();
    for node in kept_chain(doc, ids)? {
        // A block of text after a heading alone, among such pairs: a page whose headings
        // and texts are laid out in blocks of their own.
        if let Some(parent) = node.parent()
            && !parent.has_name("body")
            && let Some(prev) = node.prev_element_sibling()
            && heading_only(&prev)
            && heading_pairs(&parent) >= GROUP_MIN_MEMBERS
        {
            let own = lens.of(&node);
            if lens.of(&parent) as f64 >= own as f64 * GROUP_MIN_GROWTH {
                return Some(parent);
            }
        }
        let Some(level) = section_text_over(&node, &mut read).level() else {
            continue;
        };
        let parent = node.parent()?;
        let own = lens.of(&node);
        let (members, chars) = parent
            .element_children()
            .iter()
            .filter(|s| section_text_over(s, &mut read).level() == Some(level))
            .map(|s| lens.of(s))
            .fold((0usize, 0usize), |(m, c), n| (m + 1, c + n));
        if members >= GROUP_MIN_MEMBERS {
            return (chars as f64 >= own as f64 * GROUP_MIN_GROWTH).then_some(parent);
        }
    }
    sections_around(doc, ids)
}

/// The nearest element around the several elements selection kept (`ids`, in `doc`), each
/// nested in one of its blocks, when one such block is a section ([`section_level`]) and at
/// least [`SECTIONS_AROUND_MIN_MEMBERS`] of its blocks are sections of that level, the
/// element holding at least [`GROUP_MIN_GROWTH`] times the kept elements' text: a page's
/// blocks of prose under their headings, each wrapped in layout elements, of which selection
/// kept the lead and the first section.
fn sections_around<'a>(doc: &'a Document, ids: &[NodeId]) -> Option<NodeRef<'a>> {
    let nodes: Vec<NodeRef<'a>> = ids.iter().filter_map(|id| doc.tree.get(id)).collect();
    if nodes.len() < 2 {
        return None;
    }
    let around = *kept_chain(doc, ids)?.first()?;
    let own: usize = nodes.iter().map(|n| text_len(n)).sum();
    // The block of `around` each kept element lies in.
    let kept: HashSet<NodeId> = nodes
        .iter()
        .filter_map(|n| {
            std::iter::once(*n)
                .chain(n.ancestors_it(None))
                .find(|a| a.parent().map(|p| p.id) == Some(around.id))
                .map(|a| a.id)
        })
        .collect();
    let blocks = around.element_children();
    let levels: Vec<Option<u8>> = blocks.iter().map(section_level).collect();
    let held = blocks
        .iter()
        .zip(&levels)
        .filter(|(b, _)| kept.contains(&b.id))
        .filter_map(|(_, l)| *l);
    for level in held {
        let members = levels.iter().filter(|l| **l == Some(level)).count();
        if members >= SECTIONS_AROUND_MIN_MEMBERS {
            let chars = text_len(&around);
            return (chars as f64 >= own as f64 * GROUP_MIN_GROWTH).then_some(around);
        }
    }
    None
}

/// The parent of the elements selection kept (`ids`, in `doc`), when it kept several
/// siblings of which one is a section ([`section_level`]) among at least
/// [`GROUP_MIN_MEMBERS`] of its siblings opening with a heading of its level, which together
/// hold at least [`GROUP_MIN_GROWTH`] times the kept elements' text: a landing page's blocks
/// laid out one after the other in its body, of which selection kept the hero and the last.
fn sections_kept<'a>(doc: &'a Document, ids: &[NodeId]) -> Option<NodeRef<'a>> {
    let nodes: Vec<NodeRef<'a>> = ids.iter().filter_map(|id| doc.tree.get(id)).collect();
    let parent = nodes.first()?.parent()?;
    if nodes.len() < 2
        || nodes
            .iter()
            .any(|n| n.parent().map(|p| p.id) != Some(parent.id))
    {
        return None;
    }
    let own: usize = nodes.iter().map(|n| text_len(n)).sum();
    let levels: Vec<Option<u8>> = parent
        .element_children()
        .iter()
        .map(section_level)
        .collect();
    let kept: HashSet<NodeId> = ids.iter().copied().collect();
    for (child, level) in parent.element_children().iter().zip(&levels) {
        let Some(level) = level.filter(|_| kept.contains(&child.id)) else {
            continue;
        };
        let (members, chars) = parent
            .element_children()
            .iter()
            .zip(&levels)
            .filter(|(_, l)| **l == Some(level))
            .map(|(s, _)| text_len(s))
            .fold((0usize, 0usize), |(m, c), n| (m + 1, c + n));
        if members >= GROUP_MIN_MEMBERS {
            return (chars as f64 >= own as f64 * GROUP_MIN_GROWTH).then_some(parent);
        }
    }
    None
}

/// The level of an element's first heading (`h1` to `h4`) when it is a section of a page:
/// a heading with text and at least [`SECTION_MIN_TEXT`] visible characters besides its
/// headings.
fn section_level(node: &NodeRef<'_>) -> Option<u8> {
    section_text(node).level()
}

/// What [`section_level`] reads of an element: the level of its first heading, and the
/// visible characters within headings and besides them.
#[derive(Clone, Copy, Default)]
struct SectionText {
    first: Option<u8>,
    heading: usize,
    other: usize,
}

impl SectionText {
    /// The element's level as a section (see [`section_level`]).
    fn level(self) -> Option<u8> {
        self.first
            .filter(|_| self.heading > 0 && self.other >= SECTION_MIN_TEXT)
    }
}

/// The level of a heading element (`h1` to `h4`).
fn heading_level(n: &NodeRef<'_>) -> Option<u8> {
    with_element(n, |e| match &*e.name.local {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        _ => None,
    })
    .flatten()
}

/// What [`section_level`] reads of an element, by a walk of it.
fn section_text(node: &NodeRef<'_>) -> SectionText {
    let (mut first, mut heading, mut other, mut in_heading) = (None, 0usize, 0usize, 0usize);
    walk(*node, |step| match step {
        Step::Enter(n) => {
            if let Some(len) = with_text(&n, visible_len) {
                if in_heading > 0 {
                    heading += len;
                } else {
                    other += len;
                }
                return false;
            }
            if let Some(l) = heading_level(&n) {
                in_heading += 1;
                first.get_or_insert(l);
            }
            n.is_element()
        }
        Step::Leave(n, entered) => {
            if entered && heading_level(&n).is_some() {
                in_heading -= 1;
            }
            true
        }
    });
    SectionText {
        first,
        heading,
        other,
    }
}

/// What [`section_level`] reads of an element, its children's figures taken from `read`
/// where there (the others walked), and kept there: an element that is not a heading reads
/// as its children together (its first heading is theirs, in order), and its own text
/// besides. Going up from a node, each element is walked once.
fn section_text_over(node: &NodeRef<'_>, read: &mut HashMap<NodeId, SectionText>) -> SectionText {
    if let Some(&known) = read.get(&node.id) {
        return known;
    }
    let text = if heading_level(node).is_some() {
        section_text(node)
    } else {
        let mut text = SectionText::default();
        let mut child = node.first_child();
        while let Some(c) = child {
            if let Some(len) = with_text(&c, visible_len) {
                text.other += len;
            } else if c.is_element() {
                let inner = match read.get(&c.id) {
                    Some(&known) => known,
                    None => section_text(&c),
                };
                read.insert(c.id, inner);
                text.first = text.first.or(inner.first);
                text.heading += inner.heading;
                text.other += inner.other;
            }
            child = c.next_sibling();
        }
        text
    };
    read.insert(node.id, text);
    text
}

/// Whether an element is a block holding a heading alone: not a heading element itself, a
/// heading with text within, and under [`SECTION_MIN_TEXT`] visible characters besides it.
fn heading_only(node: &NodeRef<'_>) -> bool {
    let bare = ["h1", "h2", "h3", "h4", "h5", "h6"]
        .iter()
        .any(|n| node.has_name(n));
    if bare || section_level(node).is_some() {
        return false;
    }
    let headings: usize = node
        .descendants_it()
        .filter(|h| ["h1", "h2", "h3", "h4"].iter().any(|n| h.has_name(n)))
        .map(|h| text_len(&h))
        .sum();
    headings > 0 && text_len(node) < headings + SECTION_MIN_TEXT
}

/// How many of `parent`'s blocks are blocks of text (at least [`SECTION_MIN_TEXT`] visible
/// characters, not a list) right after a block holding a heading alone ([`heading_only`]),
/// blocks without text between them aside.
fn heading_pairs(parent: &NodeRef<'_>) -> usize {
    let blocks = parent.element_children();
    let mut count = 0;
    let mut after_heading = false;
    for b in &blocks {
        let len = text_len(b);
        if len == 0 {
            continue;
        }
        if heading_only(b) {
            after_heading = true;
            continue;
        }
        let list = ["ul", "ol", "dl"].iter().any(|n| b.has_name(n));
        if after_heading && !list && len >= SECTION_MIN_TEXT {
            count += 1;
        }
        after_heading = false;
    }
    count
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

/// Whether an element matches the container selector at `at` in [`CONTAINERS`] as the
/// selector reads it: a type selector by local name (any namespace), an attribute selector
/// by an attribute in no namespace whose value is exactly the one given.
fn container_kind(e: &Element, at: usize) -> bool {
    let valued = |name: LocalName, value: &str| {
        e.attrs
            .iter()
            .any(|a| a.name.ns == ns!() && a.name.local == name && &*a.value == value)
    };
    match at {
        0 => valued(local_name!("itemprop"), "articleBody"),
        1 => e.name.local == local_name!("article"),
        2 => valued(local_name!("role"), "main"),
        _ => e.name.local == local_name!("main"),
    }
}

/// Matches of one container selector beyond which, once the page was pruned, the selector
/// finds those still in the page (one walk) rather than each climbing to the root.
const CONTAINERS_MAX_CHECKED: usize = 32;

impl Containers {
    /// Renders the page's unique containers. The elements each of [`CONTAINERS`] matches are
    /// found by one walk, the selector's own reading of them ([`container_kind`]); a
    /// container's render prunes the page (it removes, never adds or renames), so after one
    /// the matches of the next are those still in the page, as the selector would find them.
    fn render(doc: &Document, memo: &mut Memo<'_>) -> Self {
        let mut found: [Vec<NodeId>; 4] = Default::default();
        walk(doc.root(), |step| {
            if let Step::Enter(node) = step {
                with_element(&node, |e| {
                    for (at, ids) in found.iter_mut().enumerate() {
                        if container_kind(e, at) {
                            ids.push(node.id);
                        }
                    }
                });
            }
            true
        });
        let mut renders: [Option<Vec<String>>; 4] = Default::default();
        let mut pruned = false;
        for (at, ids) in found.iter().enumerate() {
            let one = if !pruned {
                match ids[..] {
                    [id] => Some(NodeRef::new(id, &doc.tree)),
                    _ => None,
                }
            } else if ids.len() > CONTAINERS_MAX_CHECKED {
                unique(doc, CONTAINERS[at])
            } else {
                let mut left = ids
                    .iter()
                    .filter(|&&id| attached(&NodeRef::new(id, &doc.tree)));
                match (left.next(), left.next()) {
                    (Some(&id), None) => Some(NodeRef::new(id, &doc.tree)),
                    _ => None,
                }
            };
            if let Some(node) = one {
                renders[at] = Some(prune_render(node, memo));
                pruned = true;
            }
        }
        Self { renders }
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
/// selected lines (of `n` visible characters), in the page's order. Returns the selection
/// unchanged, as the error, otherwise.
fn widen(
    narrow: Vec<String>,
    n: usize,
    containers: &Containers,
) -> Result<Vec<String>, Vec<String>> {
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
                return Ok(merge(&narrow, wide.clone()));
            }
            // A larger container holding this one would only grow more.
            return Err(narrow);
        }
    }
    Err(narrow)
}

/// The fallback decision: the selection (its lines and visible characters, `None` when the
/// page skipped or failed selection) unless it kept under a third of the body's
/// `body_chars` and lost prose; then the page's main container when it holds enough of the
/// body, else its prose `region`, when what they add is worth the noise: any prose, from the
/// container the page itself marks as its main content (a recipe's steps, a guide's entries
/// each under its name, a question's answers); the article's own paragraphs rather than
/// teasers, from a region found by its prose (see [`adds_article_text`]). Returns the lines
/// and whether they are the fallback's.
fn settle(
    selected: Option<(Vec<String>, usize)>,
    body_chars: usize,
    containers: &Containers,
    region: impl FnOnce() -> Option<Vec<String>>,
) -> (Vec<String>, bool) {
    let short = |chars: usize| {
        chars < (body_chars as f64 * SELECTION_SHORT_SHARE) as usize
            && body_chars.saturating_sub(chars) >= SELECTION_MIN_LOSS
    };
    let selected = match selected {
        Some((lines, chars)) if !short(chars) => return (lines, false),
        selected => selected,
    };
    let kept = selected.as_ref().map_or(0, |(_, chars)| *chars);
    let whole = containers.main().cloned().filter(|lines| {
        let chars = visible_chars(lines);
        chars > kept && chars >= (body_chars as f64 * CONTAINER_MIN_SHARE) as usize
    });
    let own_container = whole.is_some();
    let whole = whole.or_else(region).unwrap_or_default();
    match selected {
        // The body's extra text is labels, menus and teasers, not prose: the selection lost
        // nothing worth the noise.
        Some((lines, _)) if lost_prose(&lines, &whole) < FALLBACK_MIN_PROSE => (lines, false),
        // A selection of a tenth to less than a third of the body stays unless the page's own
        // main container adds prose, or the prose region adds the article's text, not
        // teasers and sidebar blocks.
        Some((lines, chars))
            if chars >= (body_chars as f64 * SELECTION_MIN_SHARE) as usize
                && !own_container
                && !adds_article_text(&lines, &whole) =>
        {
            (lines, false)
        }
        _ => (whole, true),
    }
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

/// The page's largest repeated group: the parent of at least [`GROUP_MIN_MEMBERS`] alike
/// siblings holding text (cards of a grid, rows of a listing, results of a search) whose
/// members hold together the most visible characters, with that count and the body's. A
/// group of table rows stands for its table. A group within an element `chrome` says is
/// chrome (a sidebar's archive list, a menu, kept by the chrome filter for its share of a
/// short page's text) is none; the body and the root are not asked, their names being the
/// page's template.
pub(crate) fn largest_group(
    doc: &Document,
    mut chrome: impl FnMut(&NodeRef<'_>) -> bool,
) -> Option<(NodeRef<'_>, usize, usize)> {
    let body = doc.body()?;
    // Visible characters under each element, by a post-order walk.
    let mut chars: HashMap<NodeId, usize> = HashMap::new();
    // The elements holding text, in the walk's order.
    let mut parents: Vec<(NodeId, usize)> = Vec::new();
    let mut open: Vec<(NodeId, usize)> = Vec::new();
    walk(body, |step| match step {
        Step::Enter(node) => {
            if let Some(n) = with_text(&node, visible_len) {
                if let Some(top) = open.last_mut() {
                    top.1 += n;
                }
                return false;
            }
            if node.is_element() {
                open.push((node.id, 0));
                return true;
            }
            false
        }
        Step::Leave(node, entered) => {
            if entered
                && node.is_element()
                && let Some((id, n)) = open.pop()
            {
                chars.insert(id, n);
                if n > 0 {
                    parents.push((id, n));
                }
                if let Some(top) = open.last_mut() {
                    top.1 += n;
                }
            }
            true
        }
    });
    let total = chars.get(&body.id).copied().unwrap_or(0);
    // Most text first, those holding as much in the walk's order: of groups holding as
    // much, the first found wins, whatever the map's order.
    parents.sort_by_key(|p| std::cmp::Reverse(p.1));
    let mut best: Option<(NodeId, usize)> = None;
    for (id, n) in parents {
        // A parent holding no more than the best group cannot hold a better one, nor can
        // any after it.
        if best.is_some_and(|(_, b)| n <= b) {
            break;
        }
        let Some(parent) = doc.tree.get(&id) else {
            continue;
        };
        let children = parent.element_children();
        if children.len() < GROUP_MIN_MEMBERS {
            continue;
        }
        let mut by_shape: HashMap<Shape, Vec<NodeRef<'_>>> = HashMap::new();
        for child in children {
            if chars.get(&child.id).copied().unwrap_or(0) > 0 {
                by_shape.entry(shape_of(&child)).or_default().push(child);
            }
        }
        for same in by_shape.values().filter(|v| v.len() >= GROUP_MIN_MEMBERS) {
            let inner: Vec<_> = same.iter().map(inner_shapes).collect();
            // The members alike to the one most alike to the others.
            let held = (0..inner.len().min(GROUP_PIVOTS))
                .map(|p| {
                    let sizes: Vec<usize> = (0..inner.len())
                        .filter(|&i| alike(&inner[i], &inner[p]))
                        .map(|i| chars.get(&same[i].id).copied().unwrap_or(0))
                        .collect();
                    let held: usize = sizes.iter().sum();
                    let largest = sizes.iter().copied().max().unwrap_or(0);
                    (sizes.len(), held, largest)
                })
                // Layout columns are no group: one of them holds most of their text.
                .filter(|&(members, held, largest)| {
                    members >= GROUP_MIN_MEMBERS
                        && largest as f64 <= held as f64 * GROUP_MAX_MEMBER_SHARE
                })
                .map(|(_, held, _)| held)
                .max()
                .unwrap_or(0);
            if held > 0
                && best.is_none_or(|(_, b)| held > b)
                && !std::iter::once(parent)
                    .chain(parent.ancestors_it(None))
                    // The body's and the root's names say the page's template (`archive`,
                    // `left-sidebar`), not a block of it.
                    .take_while(|n| !n.has_name("body") && !n.has_name("html"))
                    .any(|n| chrome(&n))
            {
                best = Some((id, held));
            }
        }
    }
    let (id, held) = best?;
    let mut node = doc.tree.get(&id)?;
    while with_element(&node, |e| {
        matches!(&*e.name.local, "tbody" | "thead" | "tfoot")
    })
    .unwrap_or(false)
        && let Some(table) = node.parent()
    {
        node = table;
    }
    Some((node, held, total))
}

/// The text of a cleaned page's largest repeated group ([`largest_group`]), pruned and
/// rendered, when its members hold at least [`GROUP_REGION_MIN_SHARE`] of the body's visible
/// characters.
pub(crate) fn group_region_text(doc: &Document, memo: &mut Memo<'_>) -> Option<Vec<String>> {
    let (node, held, total) = largest_group(doc, |n| named_chrome(n, memo))?;
    // The members' names may be headings over nothing (a grid of products named and
    // pictured): they are the group's items, not orphans.
    (held as f64 >= total as f64 * GROUP_REGION_MIN_SHARE).then(|| {
        prune(node, memo);
        render(node)
    })
}

/// Whether an element is chrome by its name or its class or id: a navigation, an aside, a
/// site header or footer, or a name that says a menu, a sidebar, a widget or a promotion.
fn named_chrome(node: &NodeRef<'_>, memo: &mut Memo<'_>) -> bool {
    with_element(node, |e| {
        let name = &*e.name.local;
        let names = attr(e, "class")
            .map(|v| memo.sense(v).names)
            .unwrap_or_default()
            .and(
                attr(e, "id")
                    .map(|v| memo.sense(v).names)
                    .unwrap_or_default(),
            );
        matches!(name, "nav" | "aside" | "header" | "footer")
            || names.layout
            || names.strong
            || names.always
    })
    .unwrap_or(false)
}

/// The text of a cleaned page's prose region ([`prose_region`]), pruned and rendered.
pub(crate) fn prose_region_text(doc: &Document, memo: &mut Memo<'_>) -> Vec<String> {
    prose_region(doc)
        .map(|n| prune_render(n, memo))
        .unwrap_or_default()
}

/// The text of a cleaned page's prose region ([`prose_region`]) without the blocks named
/// as chrome ([`named_chrome`]: a sidebar, a footer, a menu the chrome filter kept for
/// their share of a short page's text), pruned and rendered: what a page of tiles shows.
pub(crate) fn cards_region_text(doc: &Document, memo: &mut Memo<'_>) -> Vec<String> {
    let Some(body) = doc.body() else {
        return Vec::new();
    };
    // The outermost such blocks, by one walk that does not look inside them.
    let mut chrome: Vec<NodeId> = Vec::new();
    walk(body, |step| match step {
        Step::Enter(node) if node.is_element() => {
            if node.id != body.id && named_chrome(&node, memo) {
                chrome.push(node.id);
                return false;
            }
            true
        }
        _ => false,
    });
    for id in chrome {
        if let Some(node) = doc.tree.get(&id) {
            node.remove_from_parent();
        }
    }
    prose_region_text(doc, memo)
}

/// Elements whose text, when long enough, counts as prose.
fn is_prose_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "li" | "dd" | "td" | "th" | "blockquote" | "pre" | "div" | "section" | "article"
    )
}

/// Whether a page's sections (`wide`) add to the one selection kept (`narrow`) what is worth
/// their noise: prose (see [`lost_prose`]), or paragraphs of any length, neither headings
/// nor list items, of at least half the selection's visible characters (a landing page's
/// features, each a short blurb under its name); not a sidebar's lists beside a post.
fn sections_add(narrow: &[String], wide: &[String]) -> bool {
    if lost_prose(narrow, wide) >= FALLBACK_MIN_PROSE {
        return true;
    }
    let kept: HashSet<&str> = narrow.iter().map(String::as_str).collect();
    let added: usize = wide
        .iter()
        .filter(|l| !kept.contains(l.as_str()) && !l.starts_with('#') && !is_list_line(l))
        .map(|l| visible_len(l))
        .sum();
    added >= (visible_chars(narrow) / SECTIONS_MIN_ADDED_PART).max(FALLBACK_MIN_PROSE)
}

/// Whether `whole` holds at least [`NAMES_MIN_LOST`] headings of the third level or below
/// (list items or not) that `selected` lacks, of [`FALLBACK_MIN_PROSE`] visible characters
/// together: the names of a grid's cards, each a heading over a picture and a link.
fn lost_names(selected: &[String], whole: &[String]) -> bool {
    let kept: HashSet<&str> = selected.iter().map(String::as_str).collect();
    let (mut names, mut chars) = (0usize, 0usize);
    for line in whole.iter().filter(|l| !kept.contains(l.as_str())) {
        if line.trim_start_matches("- ").starts_with("###") {
            names += 1;
            chars += visible_len(line);
        }
    }
    names >= NAMES_MIN_LOST && chars >= FALLBACK_MIN_PROSE
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
    let own = text_len(&heading);
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

/// Ancestors of a product's `h1` whose following siblings are read for its description.
const PRODUCT_LEVELS: usize = 4;

/// Following siblings read at each of [`PRODUCT_LEVELS`]: a buy box lays out a dozen
/// blocks (prices, ratings, swatches, the cart button again for each screen) before the
/// description.
const PRODUCT_MAX_SIBLINGS: usize = 16;

/// Visible characters at most of a block read for a product's description.
const PRODUCT_BLOCK_MAX_CHARS: usize = 3000;

/// Visible characters at most of a line that names a product's description.
const PRODUCT_LABEL_MAX_CHARS: usize = 40;

/// Lines at least of a block of a product's points.
const PRODUCT_MIN_POINTS: usize = 3;

/// Visible characters a line of a block of a product's points has on average, at least.
const PRODUCT_POINT_MIN_CHARS: usize = 50;

/// Words of a label over a product's description.
const DESCRIPTION_WORDS: [&str; 5] = [
    "description",
    "details",
    "features",
    "specifications",
    "specs",
];

/// The lines a product's `answer` lacks of the blocks that follow its `h1` (in `doc`, the
/// cleaned page before selection) or one of its first [`PRODUCT_LEVELS`] ancestors, each of
/// at most [`PRODUCT_BLOCK_MAX_CHARS`] visible characters and no chrome, whose lines the
/// answer lacks hold prose (see [`lost_prose`]), are sentences (at least
/// [`PRODUCT_MIN_POINTS`] lines of [`PRODUCT_POINT_MIN_CHARS`] visible characters on
/// average) or come under a label that names a description (see [`DESCRIPTION_WORDS`]),
/// each kind holding [`FALLBACK_MIN_PROSE`] visible characters: the description under the
/// name and price row.
fn product_details(
    doc: &Document,
    h1: NodeId,
    answer: &[String],
    memo: &mut Memo<'_>,
) -> Vec<String> {
    let mut added: Vec<String> = Vec::new();
    let kept: HashSet<&str> = answer.iter().map(String::as_str).collect();
    let Some(mut node) = doc.tree.get(&h1) else {
        return added;
    };
    for _ in 0..PRODUCT_LEVELS {
        // The body's own blocks are the page's layout (its header, footer and dialogs).
        let Some(parent) = node
            .parent()
            .filter(|p| p.is_element() && !p.has_name("body") && !p.has_name("html"))
        else {
            break;
        };
        let mut next = node.next_element_sibling();
        for _ in 0..PRODUCT_MAX_SIBLINGS {
            let Some(block) = next else {
                break;
            };
            next = block.next_element_sibling();
            // A block that holds an `h1` is the product's header again (a second layout).
            if named_chrome(&block, memo)
                || text_within(block, PRODUCT_BLOCK_MAX_CHARS)
                    .is_none_or(|t| visible_len(&t) < FALLBACK_MIN_PROSE)
                || holds_h1(block)
            {
                continue;
            }
            let lines = prune_render(block, memo);
            let new: Vec<String> = lines
                .into_iter()
                .filter(|l| l.is_empty() || !kept.contains(l.as_str()))
                .collect();
            // The block's first line or one of its headings names a description.
            let first = new.iter().position(|l| !l.is_empty());
            let labelled = new.iter().enumerate().any(|(i, l)| {
                let n = visible_len(l);
                (Some(i) == first || l.starts_with('#'))
                    && n > 0
                    && n <= PRODUCT_LABEL_MAX_CHARS
                    && {
                        let lower = l.to_lowercase();
                        lower
                            .split(|c: char| !c.is_alphanumeric())
                            .any(|w| DESCRIPTION_WORDS.contains(&w))
                    }
            });
            let prose = lost_prose(answer, &new) >= FALLBACK_MIN_PROSE;
            let chars = visible_chars(&new);
            // Or its lines (a list of the product's points, none long) are sentences.
            let text: Vec<usize> = new
                .iter()
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(|l| visible_len(l))
                .collect();
            let sum: usize = text.iter().sum();
            let listed = text.len() >= PRODUCT_MIN_POINTS
                && sum >= FALLBACK_MIN_PROSE
                && sum >= text.len() * PRODUCT_POINT_MIN_CHARS;
            if (labelled && chars >= FALLBACK_MIN_PROSE) || prose || listed {
                added.push(String::new());
                added.extend(new);
            }
        }
        node = parent;
    }
    added
}

/// Whether an element holds an `h1`.
fn holds_h1(node: NodeRef<'_>) -> bool {
    let mut found = false;
    walk(node, |step| {
        if let Step::Enter(n) = step
            && !found
            && n.has_name("h1")
        {
            found = true;
        }
        !found
    });
    found
}

/// Prunes boilerplate from a subtree of the page `memo` resolves links against, then
/// renders it.
fn prune_render(node: NodeRef<'_>, memo: &mut Memo<'_>) -> Vec<String> {
    prune(node, memo);
    let mut lines = render(node);
    drop_orphan_headings(&mut lines);
    lines
}

/// Visible characters of the prose lines (lines of at least [`PROSE_MIN_CHARS`] visible
/// characters).
pub(crate) fn prose_chars(lines: &[String]) -> usize {
    lines
        .iter()
        .map(|l| visible_len(l))
        .filter(|&n| n >= PROSE_MIN_CHARS)
        .sum()
}

/// Characters other than whitespace in the lines.
pub(crate) fn visible_chars(lines: &[String]) -> usize {
    lines.iter().map(|l| visible_len(l)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::parse::parse;
    use ::url::Url;

    /// A sentence of a landing page's prose, for sections and blocks under headings.
    const PLAN_PROSE: &str = "Plan the work of every team in one place, with boards, lists and \
                              timelines that everyone can follow.";

    fn lines(text: &str) -> Vec<String> {
        text.split('\n').map(str::to_owned).collect()
    }

    /// Markup pieces whose text runs begin and end in whitespace or not, cross element
    /// boundaries and hold whitespace other than ASCII's.
    const COUNT_PIECES: &[&str] = &[
        "<div>",
        "</div>",
        "<p>",
        "</p>",
        "<span>",
        "</span>",
        "<a href='#'>",
        "</a>",
        "<br>",
        " ",
        "\n  ",
        "word",
        " two words ",
        "x\u{a0}",
        "\u{a0}y",
        "long words, then\u{2003}\u{3000}spaces\u{85}",
        "\t\u{c}tabbed and\u{200b}joined\u{202f}",
        "été  à l’école\u{1680}—",
        "  end  ",
        "a,b",
        "<ul><li>",
        "</li></ul>",
        "<pre> keep  this </pre>",
        "<table><tr><td>",
        "</td></tr></table>",
    ];

    proptest::proptest! {
        #[test]
        fn the_counts_selection_scores_by_are_those_counted_node_by_node(
            pieces in proptest::collection::vec(proptest::sample::select(COUNT_PIECES), 0..48)
        ) {
            let doc = Document::from(format!("<html><body>{}</body></html>", pieces.concat()));
            // Empty text nodes end in no whitespace; text may follow them.
            if let Some(body) = doc.select("body").nodes().first() {
                body.append_child(&doc.tree.new_text(""));
                body.append_child(&doc.tree.new_text(" tail "));
            }
            let root = doc.root();
            let nodes: Vec<NodeRef<'_>> = std::iter::once(root).chain(root.descendants_it()).collect();
            let primed = dom_smoothie::primed_char_counts(&root, &nodes);
            let counted: Vec<usize> = nodes.iter().map(NodeRef::normalized_char_count).collect();
            proptest::prop_assert_eq!(&primed, &counted);
            proptest::prop_assert_eq!(dom_smoothie::counted_char_counts(&nodes), counted);
        }
    }

    #[test]
    fn elements_found_by_name_first_are_the_selector_s_own() {
        let page = "<html><head><meta name=a content=one><meta name=b><META content=''>\
                    <script type='application/ld+json'>{\"a\": 1}</script>\
                    <script type='Application/LD+JSON'>{}</script><script>var x;</script>\
                    <SCRIPT TYPE='application/ld+json'>[]</SCRIPT></head><body>\
                    <svg><script type='application/ld+json'>{}</script><meta content=x/>\
                    <a>svg link</a><td>svg cell</td></svg>\
                    <div><script type='application/ld+json '>{}</script>\
                    <meta content=body><p>text <a href='javascript:void(0)'>run</a> \
                    <a href='JavaScript:go()'>go</a> <a name=top></a><a href=/x>x</a></p>\
                    <section></section><div> </div><div><!-- c --></div><div><p></p></div>\
                    <table><tr><td>cell</td></tr></table><section><b></b></section>\
                    <DIV></DIV><p class=share id=s>x</p><span ID=one>y</span><i class>z</i>\
                    <b data-readability-score=3>w</b><table data-readability-table=true>\
                    </table></div><figure><picture><img src=a.png></picture><IMG src=b.png>\
                    </figure><object></object><embed><footer><aside><iframe></iframe></aside>\
                    </footer><input><textarea></textarea><select></select><button>b</button>\
                    <h1>one</h1><H2>two</H2><h3>three</h3><p>line <img src=c.png></p>\
                    <svg><figure><p>svg</p></figure><tr></tr></svg><link rel=x></body></html>";
        let doc = Document::from(page);
        // A cell outside a row, as the parser never makes one.
        if let Some(div) = doc.select("body > div").nodes().first() {
            let td = doc.tree.new_element("td");
            td.append_child(&doc.tree.new_text("loose"));
            div.append_child(&td);
        }
        let root = doc.root();
        for (names, attrs, selector, at_least) in [
            (
                &["script"][..],
                &[][..],
                r#"script[type="application/ld+json"]"#,
                3,
            ),
            (&["meta"], &[], "meta[content]", 3),
            (&["a"], &[], r#"a[href^="javascript:"]"#, 1),
            (&["a"], &[], "a:not([href])", 2),
            (&["td"], &[], "*:not(tr) > td", 1),
            (&["div", "section"], &[], ":is(div, section):empty", 3),
            (
                &[
                    "object", "embed", "footer", "link", "aside", "iframe", "input", "textarea",
                    "select", "button",
                ],
                &[],
                "object,embed,footer,link,aside,iframe,input,textarea,select,button",
                10,
            ),
            (
                &["object", "embed", "iframe"],
                &[],
                "object,embed,iframe",
                3,
            ),
            (&["tr"], &[], "tr", 1),
            (&["td"], &[], "td", 2),
            (&["table"], &[], "table", 2),
            (&["img", "picture", "figure"], &[], "img,picture,figure", 5),
            (&["img", "picture"], &[], "img, picture", 4),
            (&["h1", "h2"], &[], "h1,h2", 2),
            (&["h1"], &[], "h1", 1),
            (&["p"], &[], "p", 4),
            (
                &["img", "object", "embed", "iframe"],
                &[],
                "img,object,embed,iframe",
                6,
            ),
            (&[], &["class", "id"], "*[class],*[id]", 3),
            (
                &[],
                &["data-readability-score", "data-readability-table"],
                "*[data-readability-score], *[data-readability-table]",
                2,
            ),
        ] {
            let ids = |nodes: Vec<NodeRef<'_>>| nodes.iter().map(|n| n.id).collect::<Vec<_>>();
            let among = ids(dom_smoothie::matches_among(&root, names, attrs, selector));
            let selected = ids(doc.select(selector).nodes().to_vec());
            assert_eq!(among, selected, "{selector}");
            assert!(among.len() >= at_least, "{selector}: {among:?}");
        }
    }

    #[test]
    fn dialogs_and_headings_read_by_name_and_attributes_are_the_selectors_own() {
        let page = "<html><body><dialog>a</dialog><DIALOG open>b</DIALOG>\
                    <div aria-modal=true role=dialog>c</div><div aria-modal=TRUE role=dialog>d</div>\
                    <div aria-modal=true role=Dialog>e</div><div role=dialog>f</div>\
                    <div aria-modal=true>g</div><div aria-modal='true ' role=dialog>h</div>\
                    <section role=dialog aria-modal=true><h1>i</h1><H2>j</H2><h3>k</h3></section>\
                    <svg><a xlink:role=dialog aria-modal=true>n</a><dialog>l</dialog>\
                    <g aria-modal=true role=dialog></g><h1>m</h1></svg>\
                    <math><h2>o</h2></math><hgroup>p</hgroup><header>q</header></body></html>";
        let doc = Document::from(page);
        let dialogs = dom_query::Matcher::new(r#"dialog,[aria-modal="true"][role="dialog"]"#)
            .expect("the selector parses");
        let headings = dom_query::Matcher::new("h1,h2").expect("the selector parses");
        let (mut found_dialogs, mut found_headings) = (0, 0);
        for node in doc.root().descendants_it() {
            let (dialog, heading) = dom_smoothie::dialog_and_heading(&node);
            assert_eq!(dialog, dialogs.match_element(&node), "{}", node.html());
            assert_eq!(heading, headings.match_element(&node), "{}", node.html());
            found_dialogs += usize::from(dialog);
            found_headings += usize::from(heading);
        }
        assert!(
            found_dialogs >= 5 && found_headings >= 3,
            "{found_dialogs} {found_headings}"
        );
    }

    #[test]
    fn containers_found_by_one_walk_are_the_selectors_own_even_after_a_render_pruned_the_page() {
        let base = Url::parse("https://example.com/post").unwrap();
        let teasers = "<div role='main'><a href='/a'>Another story</a> \
                       <a href='/b'>One more story</a> <a href='/c'>And a third one</a></div>";
        let pages = [
            // The article body's render prunes a block of links marked as the main role:
            // the one main role left is then unique.
            format!(
                "<body><div itemprop='articleBody'><p>{PLAN_PROSE}</p>{teasers}</div>\
                 <div role='main'><p>{PLAN_PROSE}</p></div></body>"
            ),
            format!(
                "<body><main><article><p>{PLAN_PROSE}</p></article></main>\
                 <div role='main'><p>{PLAN_PROSE}</p></div></body>"
            ),
            // Not the selectors': a value in another case, a role in another namespace, two
            // article bodies.
            format!(
                "<body><div role='Main'><p>{PLAN_PROSE}</p></div>\
                 <svg><a xlink:role='main'><text>x</text></a></svg>\
                 <div itemprop='articleBody'><p>{PLAN_PROSE}</p></div>\
                 <div itemprop='articleBody'><p>{PLAN_PROSE}</p></div></body>"
            ),
        ];
        for page in &pages {
            let selected = {
                let doc = parse(page);
                let mut memo = Memo::new(&base);
                CONTAINERS
                    .map(|selector| unique(&doc, selector).map(|n| prune_render(n, &mut memo)))
            };
            let doc = parse(page);
            let walked = Containers::render(&doc, &mut Memo::new(&base)).renders;
            assert_eq!(walked, selected, "{page}");
        }
        // The first page did find its main role after the pruning, not before.
        let doc = parse(&pages[0]);
        assert_eq!(doc.select("[role=main]").length(), 2);
        let walked = Containers::render(&doc, &mut Memo::new(&base)).renders;
        assert!(walked[0].is_some() && walked[2].is_some(), "{walked:?}");
    }

    #[test]
    fn an_element_s_section_figures_read_from_its_children_s_are_its_own() {
        let doc = Document::from(
            "<div id=a><section><h2>One <b>bold</b></h2><p>Text of the first section, long \
             enough to be a section's text by itself here.</p></section>lead text\
             <section><h3>Two</h3><div><h2>inner</h2><p>short</p></div></section>\
             <h4>A <i>heading</i> alone</h4><!-- no --><p>tail</p></div>",
        );
        // Read bottom up, as going up a chain: every element's figures, from its children's.
        let mut read: HashMap<NodeId, SectionText> = HashMap::new();
        walk(doc.root(), |step| {
            if let Step::Leave(n, _) = step
                && n.is_element()
            {
                let over = section_text_over(&n, &mut read);
                let walked = section_text(&n);
                assert_eq!(
                    (over.first, over.heading, over.other),
                    (walked.first, walked.heading, walked.other),
                    "{:?}",
                    n.id
                );
            }
            true
        });
        let a = doc.select("#a").nodes()[0];
        assert_eq!(section_text_over(&a, &mut HashMap::new()).first, Some(2));
    }

    #[test]
    fn selection_keeps_the_links_as_the_page_wrote_them() {
        let para = "<p>A long paragraph about the climb, the weather on the pass and the \
                    road home, long enough for selection to keep it as the article. See \
                    <a href=\"/road\">the road</a> and <a href=\"#map\">the map</a>.</p>";
        let page = format!(
            "<html><head><title>Climb</title></head><body><article>{}</article></body></html>",
            para.repeat(4)
        );
        let mut readability = readable(parse(&page), Config::default()).unwrap();
        readability.parse().unwrap();
        let hrefs: Vec<String> = readability
            .doc
            .select("#readability-page-1 a")
            .nodes()
            .iter()
            .filter_map(|a| a.attr("href").map(|h| h.to_string()))
            .collect();
        assert_eq!(hrefs.len(), 8);
        assert!(
            hrefs.iter().all(|h| h == "/road" || h == "#map"),
            "{hrefs:?}"
        );
    }

    #[test]
    fn a_large_page_that_may_be_copied_is_copied_for_each_attempt_not_made_again() {
        // A short post among alike ones: every attempt keeps under the threshold, and the
        // selection is widened to its thread, read after selection.
        let post = |i: usize| {
            format!(
                "<div class=post><div class=meta>rider{i}</div><div class=body><p>A reply \
                 of some length about the climb, the weather and the road home.</p></div></div>"
            )
        };
        let posts: String = (0..5).map(post).collect();
        let page = format!(
            "<html><head><title>Climb</title></head><body><div class=thread>{posts}</div>\
             </body></html>"
        );
        let base = Url::parse("https://example.org/t").unwrap();
        let made = std::cell::Cell::new(0);
        let answer = |large: bool, copied: bool| {
            main_text(
                parse(&page),
                true,
                large,
                copied,
                1000,
                false,
                None,
                &mut Memo::new(&base),
                |_| parse(&page),
                |_| {
                    made.set(made.get() + 1);
                    parse(&page)
                },
            )
            .lines
        };
        let whole = answer(false, true);
        assert_eq!(made.get(), 0);
        assert_eq!(answer(true, true), whole);
        assert_eq!(made.get(), 0, "a copied page was made again");
        assert_eq!(answer(true, false), whole);
        assert!(
            made.get() >= 2,
            "each attempt after the first makes the page"
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
    fn a_product_s_description_after_its_name_and_price_joins_the_answer() {
        let base = Url::parse("https://shop.example.com/p/jacket").unwrap();
        let prose = "A light jacket of recycled polyester that packs into its own chest \
                     pocket, warm even when wet, for climbing days and town alike.";
        // The store's short perks beside the name; the product's points, none long, after.
        let perks: String = (0..10)
            .map(|i| format!("<li>Free shipping on order {i}</li>"))
            .collect();
        let perks = format!("<ul>{perks}</ul>");
        let points = "<ul><li>Packs down into its own zippered chest pocket for travel and storage</li>\
                      <li>Stays warm when it gets wet in the rain, the sleet or the snow</li>\
                      <li>Fits over a light base layer and under a waterproof rain shell</li>\
                      <li>Zippered hand pockets keep small things from falling out</li></ul>";
        let page = format!(
            "<html><body><div class=page><div class=top><div class=offer><h1>Nano jacket</h1>\
             <div class=price>$229.00</div><p>{prose}</p>{perks}</div>{points}</div>\
             <div class=details><h2>Product description</h2><ul><li>Weight: 13 oz</li><li>Insulation of recycled polyester, warm when wet</li>\
             <li>Two zippered hand pockets and an inner chest pocket</li><li>Made in a Fair \
             Trade Certified factory</li><li>Shell of recycled polyester ripstop with a \
             water repellent finish</li></ul></div><div><p>{prose}</p><p>Sewn \
             {prose}</p><p>Worn {prose}</p></div><div id=dup><h1>Nano jacket</h1><p>Again {prose} {prose}</p>\
             </div></div><div id=dialog><p>Add {prose}</p><p>Or {prose}</p></div></body></html>"
        );
        let doc = parse(&page);
        let h1 = doc.select_single("h1").nodes()[0].id;
        let answer = lines(&format!("# Nano jacket\n\n$229.00\n\n{prose}"));
        let added = product_details(&doc, h1, &answer, &mut Memo::new(&base)).join("\n");
        // The labelled block and the block of prose two levels up join; the header made
        // again and the body's own blocks do not.
        assert!(added.contains("Made in a Fair Trade"), "{added}");
        assert!(added.contains("Sewn A light"), "{added}");
        assert!(added.contains("Stays warm when it gets wet"), "{added}");
        assert!(!added.contains("Free shipping"), "{added}");
        assert!(!added.contains("Again"), "{added}");
        assert!(!added.contains("Add A light"), "{added}");
        // What the answer holds already is not added again.
        assert!(!added.contains(&format!("\n{prose}\n")), "{added}");
    }

    #[test]
    fn a_product_s_description_past_a_dozen_blocks_of_its_buy_box_joins_the_answer() {
        let base = Url::parse("https://shop.example.com/p/watch").unwrap();
        // The name, then the buy box's blocks (prices, ratings, swatches, cart buttons for
        // each screen), then the description.
        let boxes: String = (0..12)
            .map(|i| format!("<div class=box-{i}><span>$168.00</span></div>"))
            .collect();
        let page = format!(
            "<html><body><div class=page><div class=side><h1>Classic II</h1>{boxes}\
             <div class=description><div>Description</div><div>The Classic II sticks to \
             its roots: minimalism is the perfect amount of something. Revamped details \
             give it a fresh feel, its clean dial meets hex skeleton hands, a smooth \
             unibody case and rich matte and polished steels, on a strap you change in \
             seconds without a tool.</div></div></div></div>\
             </body></html>"
        );
        let doc = parse(&page);
        let h1 = doc.select_single("h1").nodes()[0].id;
        let answer = lines("# Classic II\n\n$168.00");
        let added = product_details(&doc, h1, &answer, &mut Memo::new(&base)).join("\n");
        assert!(added.contains("sticks to its roots"), "{added}");
    }

    #[test]
    fn a_selection_within_one_section_of_a_landing_page_finds_its_sections() {
        let prose = PLAN_PROSE;
        // Sections of different shapes, each under a heading of one level.
        let doc = parse(&format!(
            "<html><body><div id=top><div class=hero><h2>Tasks</h2><p>{prose}</p></div>\
             <section><h2>Calendar</h2><div><p>{prose}</p></div></section><div id=apps>\
             <div class=inner><h2>Apps</h2><ul><li>{prose}</li></ul></div></div></div>\
             </body></html>"
        ));
        let kept = doc.select_single("#apps .inner").nodes()[0].id;
        let found = section_group(&doc, &[kept]).map(|g| g.id);
        assert_eq!(found, Some(doc.select_single("#top").nodes()[0].id));
        // An article beside blocks of teasers under headings of another level, and a section
        // with two siblings, are not a page of sections.
        let doc = parse(&format!(
            "<html><body><div id=top><div id=story><h1>Story</h1><p>{prose}</p></div><div>\
             <h3>Top stories</h3><p>{prose}</p></div><div><h3>Galleries</h3><p>{prose}</p>\
             </div><div><h3>Business</h3><p>{prose}</p></div></div></body></html>"
        ));
        let story = doc.select_single("#story").nodes()[0].id;
        assert!(section_group(&doc, &[story]).is_none());
        let doc = parse(&format!(
            "<html><body><div><div id=one><h2>One</h2><p>{prose}</p></div><div><h2>Two</h2>\
             <p>{prose}</p></div></div></body></html>"
        ));
        let one = doc.select_single("#one").nodes()[0].id;
        assert!(section_group(&doc, &[one]).is_none());
    }

    #[test]
    fn a_selection_that_dropped_most_of_what_it_kept_gives_way_to_it_with_prose() {
        let prose = |i: usize| {
            format!(
                "Deploy feature {i} from every branch with a preview of its own, reviewed by \
                 the whole team before it goes live."
            )
        };
        let cards: String = (0..6)
            .map(|i| {
                format!(
                    "<div class=card><h3>Feature {i}</h3><p>{}</p></div>",
                    prose(i)
                )
            })
            .collect();
        let doc = parse(&format!(
            "<html><body><main id=m><h1>Ship faster</h1>{cards}</main></body></html>"
        ));
        let kept = doc.select_single("#m").nodes()[0].id;
        // Selection kept the page's main element but answered its heading and one card.
        let narrow = lines(&format!("# Ship faster\n\n{}", prose(0)));
        let whole = kept_whole(&doc, &[kept], narrow.clone());
        assert!(whole.iter().any(|l| l == &prose(5)), "{whole:?}");
        assert!(whole.iter().any(|l| l == "### Feature 3"), "{whole:?}");
        // What it dropped was labels and short items, not prose: the selection stands.
        let items: String = (0..40)
            .map(|i| format!("<li><a href=/c/{i}>Category {i}</a></li>"))
            .collect();
        let doc = parse(&format!(
            "<html><body><main id=m><h1>Ship faster</h1><p>{}</p><ul>{items}</ul></main>\
             </body></html>",
            prose(0)
        ));
        let kept = doc.select_single("#m").nodes()[0].id;
        assert_eq!(kept_whole(&doc, &[kept], narrow.clone()), narrow);
        // Nor does it give way when it kept most of what it selected.
        let doc = parse(&format!(
            "<html><body><main id=m><h1>Ship faster</h1><p>{}</p><p>{}</p></main></body></html>",
            prose(0),
            prose(1)
        ));
        let kept = doc.select_single("#m").nodes()[0].id;
        assert_eq!(kept_whole(&doc, &[kept], narrow.clone()), narrow);
    }

    #[test]
    fn a_selection_that_dropped_a_grid_s_named_cards_gives_way_to_them() {
        let lead = "Crisp and quick, these recipes make a weeknight dinner in the time it \
                    takes to set the table, with vegetables that stay crunchy.";
        let card = |i: usize| {
            format!(
                "<article class=card><a href=/recipe-{i}><img src=/{i}.jpg>\
                 <h3>Crispy recipe number {i} with herbs, lime and a green sauce of its own</h3></a></article>"
            )
        };
        let cards = |n: usize| (0..n).map(card).collect::<String>();
        let page = |n: usize| {
            parse(&format!(
                "<html><body><main id=m><h1>Recipes</h1><p>{lead}</p><section><h2>Top \
                 rated</h2>{}</section></main></body></html>",
                cards(n)
            ))
        };
        // Selection kept the page's main element but answered its lead alone.
        let narrow = lines(&format!("# Recipes\n\n{lead}\n\n## Top rated"));
        let doc = page(8);
        let kept = doc.select_single("#m").nodes()[0].id;
        let whole = kept_whole(&doc, &[kept], narrow.clone());
        for i in [0, 7] {
            let name = format!(
                "### Crispy recipe number {i} with herbs, lime and a green sauce of its own"
            );
            assert!(whole.contains(&name), "{whole:?}");
        }
        // A few headings are no grid's cards.
        let doc = page(3);
        let kept = doc.select_single("#m").nodes()[0].id;
        assert_eq!(kept_whole(&doc, &[kept], narrow.clone()), narrow);
    }

    #[test]
    fn a_selection_that_dropped_sections_of_what_it_kept_gives_way_to_them() {
        let prose = |i: usize| {
            format!(
                "Protect home number {i} from ants and termites with a plan that fits the \
                 season, checked by the same technician every visit, who writes down what he \
                 found and what he treated, and tells you before he leaves."
            )
        };
        let sections: String = (0..5)
            .map(|i| format!("<div><h2>Service {i}</h2><p>{}</p></div>", prose(i)))
            .collect();
        let doc = parse(&format!(
            "<html><body><div id=m>{sections}</div></body></html>"
        ));
        let kept = doc.select_single("#m").nodes()[0].id;
        // Selection kept the element of the page's sections but answered three of them.
        let narrow: Vec<String> = (0..3)
            .flat_map(|i| {
                [
                    format!("## Service {i}"),
                    String::new(),
                    prose(i),
                    String::new(),
                ]
            })
            .collect();
        let whole = kept_whole(&doc, &[kept], narrow.clone());
        assert!(whole.iter().any(|l| l == &prose(3)), "{whole:?}");
        // An article's paragraphs and one box beside them are no page of sections: the
        // selection that dropped the box stands.
        let doc = parse(&format!(
            "<html><body><div id=m><p>{}</p><p>{}</p><p>{}</p><div><h2>Related</h2><p>{}</p>\
             </div></div></body></html>",
            prose(0),
            prose(1),
            prose(2),
            prose(3)
        ));
        let kept = doc.select_single("#m").nodes()[0].id;
        let narrow: Vec<String> = (0..3).flat_map(|i| [prose(i), String::new()]).collect();
        assert_eq!(kept_whole(&doc, &[kept], narrow.clone()), narrow);
    }

    #[test]
    fn a_page_s_sections_add_their_short_paragraphs_but_not_a_sidebar_s_lists() {
        let faq = lines(
            "## Questions\n\nWho is it for? Teams that plan their campaigns with data, large \
             and small, in every market.\n\nDoes it work with search ads? Yes, with every \
             channel you already run, paid or not, and with the reports you read today.",
        );
        let blurbs: Vec<String> = (0..8)
            .flat_map(|i| {
                [
                    format!("### Insight {i}"),
                    format!("Adjust campaign {i} as the figures come in."),
                ]
            })
            .collect();
        let wide: Vec<String> = blurbs.iter().chain(&faq).cloned().collect();
        assert!(sections_add(&faq, &wide));
        // A sidebar's headings and lists of names add no paragraph.
        let lists: Vec<String> = (0..8)
            .flat_map(|i| {
                [
                    format!("## Widget {i}"),
                    format!("- Contributor number {i}"),
                ]
            })
            .collect();
        let wide: Vec<String> = faq.iter().chain(&lists).cloned().collect();
        assert!(!sections_add(&faq, &wide));
    }

    #[test]
    fn a_selection_of_blocks_of_the_body_finds_the_sections_beside_them() {
        let prose = PLAN_PROSE;
        let blocks: String = (0..5)
            .map(|i| format!("<div class=row><h3>Feature {i}</h3><p>{prose}</p></div>"))
            .collect();
        let doc = parse(&format!(
            "<html><body><div id=hero><h1>Plans</h1><p>{prose}</p></div>{blocks}<div id=last>\
             <h3>Start today</h3><p>{prose}</p></div></body></html>"
        ));
        let kept = ["#hero", "#last"].map(|s| doc.select_single(s).nodes()[0].id);
        let body = doc.body().map(|b| b.id);
        assert_eq!(section_group(&doc, &kept).map(|g| g.id), body);
        // Blocks that are no sections of one level beside them are not.
        let doc = parse(&format!(
            "<html><body><div id=hero><h1>Plans</h1><p>{prose}</p></div><div><h2>One</h2>\
             <p>{prose}</p></div><div id=last><h3>Start today</h3><p>{prose}</p></div>\
             </body></html>"
        ));
        let kept = ["#hero", "#last"].map(|s| doc.select_single(s).nodes()[0].id);
        assert!(section_group(&doc, &kept).is_none());
    }

    #[test]
    fn a_selection_nested_in_a_page_s_sections_finds_the_sections_it_left() {
        let prose = PLAN_PROSE;
        let wrap =
            |inner: &str| format!("<div class=col><div><div class=text>{inner}</div></div></div>");
        let lead = wrap(&format!("<p id=lead>{prose}</p>"));
        let first = wrap(&format!("<h3>Boards</h3><p id=first>{prose}</p>"));
        let second = wrap(&format!(
            "<h3>Timelines</h3><p>{prose} And more {prose}</p>"
        ));
        let doc = parse(&format!(
            "<html><body><div id=top>{lead}{first}{second}</div></body></html>"
        ));
        let kept = ["#lead", "#first"].map(|s| doc.select_single(s).nodes()[0].id);
        let top = doc.select_single("#top").nodes()[0].id;
        assert_eq!(section_group(&doc, &kept).map(|g| g.id), Some(top));
        // One kept element, or a block beside them that is no section of their level, is not.
        assert!(section_group(&doc, &kept[..1]).is_none());
        let other = wrap(&format!(
            "<h2>Timelines</h2><p>{prose} And more {prose}</p>"
        ));
        let doc = parse(&format!(
            "<html><body><div id=top>{lead}{first}{other}</div></body></html>"
        ));
        let kept = ["#lead", "#first"].map(|s| doc.select_single(s).nodes()[0].id);
        assert!(section_group(&doc, &kept).is_none());
    }

    #[test]
    fn a_selection_after_a_heading_block_finds_the_page_s_other_heading_and_text_blocks() {
        let prose = PLAN_PROSE;
        let pair = |h: &str, id: &str| {
            format!(
                "<div class=row><div class=w><h2>{h}</h2></div></div><div class=row>\
                 <div class=w id={id}><p>{prose}</p><p>{prose}</p></div></div>"
            )
        };
        let doc = parse(&format!(
            "<html><body><div id=top>{}{}{}</div></body></html>",
            pair("Boards", "one"),
            pair("Lists", "two"),
            pair("Timelines", "three")
        ));
        let kept = doc.select_single("#two").nodes()[0].id;
        let top = doc.select_single("#top").nodes()[0].id;
        assert_eq!(section_group(&doc, &[kept]).map(|g| g.id), Some(top));
        // Bare headings over lists (a sidebar's) are no such pairs.
        let lists: String = ["Tags", "Archives", "Links"]
            .iter()
            .map(|h| format!("<h2>{h}</h2><ul><li>{prose}</li></ul>"))
            .collect();
        let doc = parse(&format!(
            "<html><body><div id=top><div class=w><h1>Post</h1></div><div id=post>\
             <p>{prose}</p></div>{lists}</div></body></html>"
        ));
        let kept = doc.select_single("#post").nodes()[0].id;
        assert!(section_group(&doc, &[kept]).is_none());
    }

    #[test]
    fn a_thread_s_selection_looks_for_its_posts_however_much_it_kept() {
        assert!(seeks_group(false, 299, 1000));
        assert!(!seeks_group(false, 600, 1000));
        assert!(seeks_group(true, 600, 1000));
    }

    #[test]
    fn a_selection_within_one_post_or_card_finds_its_repeated_group() {
        let post = |i: usize, text: &str| {
            format!(
                "<div class=post-{i}><div class=meta>rider{i}</div><div class=body id=b{i}>\
                 <p>{text}</p></div></div>"
            )
        };
        let posts: String = (0..5).map(|i| post(i, "A reply of some length.")).collect();
        let doc = parse(&format!(
            "<html><body><div class=thread id=t>{posts}</div></body></html>"
        ));
        let body = doc.select_single("#b2").nodes()[0].id;
        let group = repeated_group(&doc, &[body], false).map(|g| g.id);
        assert_eq!(group, Some(doc.select_single("#t").nodes()[0].id));
        // An article beside a thread of another shape, and layout columns whose children are
        // not alike, are no group.
        let doc = parse(&format!(
            "<html><body><div class=col><div class=body id=a><p>The article.</p></div></div>\
             <div class=col><ul><li>Link</li></ul></div><div class=col><form>Search</form>\
             </div><div class=comments>{posts}</div></body></html>"
        ));
        let article = doc.select_single("#a").nodes()[0].id;
        assert!(repeated_group(&doc, &[article], false).is_none());
        // A long opening post beside its shorter replies: on a thread's page they are its
        // group, though they add less than half its text; elsewhere they are not.
        let opening = "A long opening post that lists every host tried over the years. ".repeat(8);
        let replies: String = std::iter::once(post(0, &opening))
            .chain((1..4).map(|i| post(i, "A short reply of some length.")))
            .collect();
        let doc = parse(&format!(
            "<html><body><div class=thread id=t>{replies}</div></body></html>"
        ));
        let first = doc.select_single("#b0").nodes()[0].id;
        let group = repeated_group(&doc, &[first], true).map(|g| g.id);
        assert_eq!(group, Some(doc.select_single("#t").nodes()[0].id));
        assert!(repeated_group(&doc, &[first], false).is_none());
        // Too few posts are no group.
        let two: String = (0..2).map(|i| post(i, "A reply.")).collect();
        let doc = parse(&format!("<html><body><div>{two}</div></body></html>"));
        let body = doc.select_single("#b1").nodes()[0].id;
        assert!(repeated_group(&doc, &[body], false).is_none());
    }

    #[test]
    fn a_grid_of_products_names_prices_and_a_menu_none() {
        let lines = |rows: &[&str]| rows.iter().map(|r| (*r).to_owned()).collect::<Vec<_>>();
        let shop = lines(&[
            "Reflect Earrings",
            "$490.00",
            "Offspring",
            "12,50 €",
            "Hoops",
            "£ 8",
        ]);
        assert!(priced(&shop));
        let menu = lines(&[
            "Earrings",
            "Rings",
            "Necklaces",
            "Gift cards",
            "Sale",
            "About",
        ]);
        assert!(!priced(&menu));
        // A price in a sentence is no card's price; nor are two prices a grid.
        let sentence = "Every order over $50 ships free to any address in the country.";
        assert!(!priced(&lines(&[sentence; 4])));
        assert!(!priced(&shop[..4]));
    }

    #[test]
    fn a_grid_whose_cards_each_name_a_price_is_priced_however_many_lines_they_hold() {
        // Each card says its name, price, saving, reviews and two properties: one line in
        // eight names a price, too few for the lines' test, not for the cards'.
        let cards: String = (0..6)
            .map(|i| {
                format!(
                    "<li><a href=/p/{i}>Shoe {i}</a><div>${i}9.00</div><div>Save 25%</div>\
                     <div>{i} reviews</div><div>Type:</div><div>Neutral</div><div>Last:</div>\
                     <div>Slip-lasted</div></li>"
                )
            })
            .collect();
        let doc = Document::from(format!("<html><body><ul>{cards}</ul></body></html>"));
        let grid = doc.select_single("ul").nodes()[0];
        assert!(!priced(&render(grid)));
        assert!(priced_members(&grid));
        // A menu names no prices; a price in two cards of six is no shop's grid.
        let menu = Document::from(
            "<html><body><ul><li><a href=/a>Shoes</a></li><li><a href=/b>Ropes</a></li>\
             <li><a href=/c>Packs</a></li><li><a href=/d>Sale</a></li></ul></body></html>",
        );
        assert!(!priced_members(&menu.select_single("ul").nodes()[0]));
        let few = cards.replacen('$', "No. ", 4);
        let doc = Document::from(format!("<html><body><ul>{few}</ul></body></html>"));
        assert!(!priced_members(&doc.select_single("ul").nodes()[0]));
    }

    /// Of two groups holding as much text, the first on the page is the largest, every
    /// time: the answer does not hang on the order of a map.
    #[test]
    fn of_groups_holding_as_much_the_first_is_the_largest() {
        let cards = |class: &str| -> String {
            (0..4)
                .map(|i| format!("<div class={class}><a href=/{i}>Item {i}</a><b>${i}</b></div>"))
                .collect()
        };
        let doc = parse(&format!(
            "<html><body><div id=first>{}</div><div id=second>{}</div></body></html>",
            cards("card"),
            cards("tile")
        ));
        let first = doc.select_single("#first").nodes()[0].id;
        for _ in 0..32 {
            let (node, _, _) = largest_group(&doc, |_: &NodeRef<'_>| false).unwrap();
            assert_eq!(node.id, first);
        }
    }

    #[test]
    fn the_largest_group_is_a_grid_s_cards_or_a_table_s_rows_not_layout_columns() {
        let no_chrome = |_: &NodeRef<'_>| false;
        let card = |i: usize| format!("<div class=card><a href=/{i}>Item {i}</a><b>${i}</b></div>");
        let cards: String = (0..6).map(card).collect();
        let doc = parse(&format!(
            "<html><body><p>6 items</p><div id=grid>{cards}</div><ul><li>A</li><li>B</li>\
             <li>C</li></ul></body></html>"
        ));
        let (node, held, total) = largest_group(&doc, no_chrome).unwrap();
        assert_eq!(node.id, doc.select_single("#grid").nodes()[0].id);
        assert!(held > total / 2, "{held} {total}");
        // Rows stand for their table.
        let rows: String = (0..4)
            .map(|i| format!("<tr><td>Trail {i}</td><td>{i} miles</td></tr>"))
            .collect();
        let doc = parse(&format!(
            "<html><body><table id=t><tbody>{rows}</tbody></table></body></html>"
        ));
        let (node, _, _) = largest_group(&doc, no_chrome).unwrap();
        assert_eq!(node.id, doc.select_single("#t").nodes()[0].id);
        // Layout columns, one of them holding most of the text, are no group; nor is a group
        // the caller calls chrome.
        let long = "The post's own text, long. ".repeat(20);
        let doc = parse(&format!(
            "<html><body><div class=col><p>{long}</p></div><div class=col><p>Links</p></div>\
             <div class=col><p>About</p></div></body></html>"
        ));
        assert!(largest_group(&doc, no_chrome).is_none());
        let doc = parse(&format!(
            "<html><body><div id=grid>{cards}</div></body></html>"
        ));
        assert!(largest_group(&doc, |n: &NodeRef<'_>| n.has_name("div")).is_none());
        // The body's and the root's names are the page's template: a grid under a body the
        // caller would call chrome is still the group.
        let doc = parse(&format!(
            "<html class=sidebar><body class=sidebar><div id=grid>{cards}</div></body></html>"
        ));
        let sidebar = |n: &NodeRef<'_>| n.attr("class").is_some_and(|c| &*c == "sidebar");
        let (node, _, _) = largest_group(&doc, sidebar).unwrap();
        assert_eq!(node.id, doc.select_single("#grid").nodes()[0].id);
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
    fn the_page_s_own_container_replaces_a_short_selection_when_it_adds_prose() {
        let entry = |name: &str| {
            format!(
                "{name}\n\nThe {name} grows in deep shade and asks for little water, which is \
                 why it suits the darker corners of a flat in winter."
            )
        };
        let names = [
            "Snake plant",
            "ZZ plant",
            "Spider plant",
            "Cast-iron plant",
            "Radiator plant",
            "Parlour palm",
        ];
        let intro = "As the year begins our rooms can seem dark, but several plants thrive \
                     there all the same, with leaves that brighten a drab corner.";
        let guide = lines(&format!("{intro}\n\n{}", names.map(entry).join("\n\n")));
        let selected = lines(intro);
        let chars = visible_chars(&selected);
        let body_chars = visible_chars(&guide) + 40;
        // Each entry's paragraph lies under its short name, as a teaser's under its title:
        // from the page's own container they are its content all the same…
        let marked = Containers {
            renders: [None, None, None, Some(guide.clone())],
        };
        let (out, whole) = settle(Some((selected.clone(), chars)), body_chars, &marked, || {
            None
        });
        assert!(whole);
        assert_eq!(out, guide);
        // …while from a region found by its prose they may be teasers: the selection stays.
        let unmarked = Containers {
            renders: Default::default(),
        };
        let (out, whole) = settle(
            Some((selected.clone(), chars)),
            body_chars,
            &unmarked,
            || Some(guide.clone()),
        );
        assert!(!whole);
        assert_eq!(out, selected);
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
