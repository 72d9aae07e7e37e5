//! The boilerplate filter for the inside of the content, run on the cleaned page before
//! content selection and again on what selection kept (selection rewrites some elements
//! without their class names): lists and blocks made of links (related stories, archives,
//! tag clouds, table-of-contents menus), teasers for other pages and their pictures, "read
//! also" promotions, bylines, dates, tags, captions, credits and author boxes, and the
//! headings such blocks leave behind; teasers that together hold much of the text are the
//! content (a listing's cards) and stay. Pure and iterative, like the chrome filter. On the
//! rendered lines, it also drops what follows the content's last prose line when that is a
//! site's footer note or a widget: short legal, contact and share lines, and a heading over
//! a list of short items only.

use foldhash::{HashMap, HashMapExt, HashSet};

use ::url::Url;
use dom_query::{Document, NodeId, NodeRef};

use super::keyed::Keyed;
use super::render::{collapse, render};
use super::tree::{
    Removed, Shape, Shapes, Step, alike, attr, inner_shapes, shape_of, text_len, visible_len, walk,
    with_element, with_text,
};
use super::vocab::{
    COMMENT_OPENERS, FOOTER_OPENERS, FOOTER_PHRASES, MONTH_NAMES, RECOMMENDATION_PHRASES, Sense,
};

/// Boilerplate holding more than this share of the text under the filtered root is kept.
const PRUNE_MAX_SHARE: f64 = 0.4;
/// A list whose text is at least this share of link text is navigation.
const LIST_LINK_SHARE: f64 = 0.8;
/// Another block whose text is at least this share of link text is navigation…
const BLOCK_LINK_SHARE: f64 = 0.7;
/// …unless it has more visible characters than this outside links.
const BLOCK_MAX_OWN_CHARS: usize = 80;
/// A line with at least this many visible characters, neither a heading nor a list line, is
/// prose: what follows the last one is the content's tail.
const TAIL_PROSE_CHARS: usize = 80;
/// A tail line with at most this many words may be a footer note.
const FOOTER_MAX_WORDS: usize = 15;
/// A heading in the tail over list items of at most this many visible characters each is a
/// widget's title ("Links", "Recent posts").
const WIDGET_MAX_ITEM: usize = 40;
/// Metadata blocks (bylines, dates, tags, captions) longer than this are kept.
const META_MAX_CHARS: usize = 160;
/// Author boxes (a byline with a biography) longer than this are kept.
const AUTHOR_MAX_CHARS: usize = 800;
/// A block holding a heading that is wholly a link, with no more text than this, is a teaser
/// for another page.
const TEASER_MAX_CHARS: usize = 400;
/// A paragraph that ends with a link to another page, after a label of at most this many
/// characters ("Read also:"), is a promotion.
const PROMO_MAX_LABEL: usize = 40;
/// Teasers holding together at least this share of the text under the filtered root are
/// its content (the cards of a listing, the results of a search), not promotions for other
/// pages: they are kept. In the pass that keeps cards ([`Memo::with_cards`]), the share is of
/// the text the other boilerplate leaves (a documentation's landing page, its cards beside a
/// long menu of links).
const TEASERS_MIN_SHARE: f64 = 0.3;
/// Link blocks and teasers within at least this many members of a repeated group of alike
/// siblings are the group's cards (see [`in_groups`])…
const GROUP_MIN_CARDS: usize = 3;
/// …when the members hold together at least this share of the text under the filtered
/// root…
const GROUP_MIN_SHARE: f64 = 0.3;
/// …a member's siblings of its shape being compared with it up to this many.
const GROUP_MAX_COMPARED: usize = 8;
/// A byline, a date or a rating (metadata or an author box by name) of at most this many
/// visible characters within a card of a repeated group is the card's, not the page's…
const CARD_META_MAX_CHARS: usize = 80;
/// …the card being the element itself or one of this many elements above it…
const CARD_META_MAX_UP: usize = 3;
/// …that links to another page, found among its first this many descendants.
const CARD_MAX_SCANNED: usize = 400;
/// A group around the nearest one keeps its cards when its members hold together at least
/// this share of the text under the filtered root (most of the page: a sidebar's widgets,
/// each a list, hold less)…
const OUTER_GROUP_MIN_SHARE: f64 = 0.6;
/// …and none of them holds more than this share of their text (layout columns, a post
/// beside its sidebars).
const GROUP_MAX_MEMBER_SHARE: f64 = 0.5;

/// The blocks of a grid placed to find the element around them, at most.
const GRID_MAX_BLOCKS: usize = 256;

/// An open element during the walk.
struct Frame {
    id: NodeId,
    kind: Kind,
    chars: usize,
    link_chars: usize,
    /// Characters in links to other pages (not `#fragment` links within this one).
    away_chars: usize,
    /// Characters in links whose text looks like an address (`https://…`, `name@host`).
    address_chars: usize,
    link: bool,
    away: bool,
    /// Whether a heading below `h1` that is wholly a link to another page lies inside.
    linked_heading: bool,
    /// Whether an `h1` lies inside (metadata never holds the headline).
    headline: bool,
    /// Whether a heading below `h1` with text lies inside (a card's name: metadata never
    /// holds one).
    heading: bool,
    /// Whether the last visible text inside is in a link to another page.
    ends_in_link: bool,
    /// Whether the element is `pre` or `code`.
    code: bool,
    /// Whether the element is a heading that says the page's title ([`TITLE_MARK`]).
    own_title: bool,
}

/// The attribute marking the headings that say the page's title: one that is a link is the
/// post's own permalink, not a teaser's title for another page.
pub(crate) const TITLE_MARK: &str = "data-mcp-web-title";

/// What the filter tests an element for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `ul`, `ol`, `dl`, `menu`.
    List,
    /// A block that may be a link farm or a teaser: `div`, `section`, `header`, `footer`,
    /// `aside`.
    Block,
    /// Metadata by name or element (`figcaption`, `address`, class `caption`, …).
    Meta,
    /// A list item or an article: tested only as a teaser.
    Card,
    /// An author box by name (`author`, `bio`, `byline`).
    Author,
    /// A paragraph.
    Paragraph,
    /// A heading below `h1`.
    Heading,
    /// Anything else: only counted.
    Other,
}

/// Removes link lists, link farms, teasers, promotions, short metadata and author boxes
/// from the subtree of `root` (never `root` itself); `memo` says which links leave the page
/// and what class names say. Returns the visible characters left in the subtree.
pub(crate) fn prune(root: NodeRef<'_>, memo: &mut Memo<'_>) -> usize {
    let mut frames: Vec<Frame> = Vec::new();
    // Boilerplate found: the element, its visible characters, its kind (a heading just before
    // a block of links or teasers is its title, not one before a date or a caption), and
    // whether it is a teaser.
    let mut remove: Vec<(NodeId, usize, Kind, bool)> = Vec::new();
    let mut total = 0usize;
    let mut in_link = 0usize;
    let mut in_away = 0usize;
    let mut in_code = 0usize;
    walk(root, |step| match step {
        Step::Enter(node) => {
            // Whether a text looks like an address matters only inside a link.
            if let Some((n, address)) = with_text(&node, |t| {
                let n = visible_len(t);
                let address = in_link > 0 && names_address(t);
                (n, address)
            }) {
                total += n;
                if let Some(top) = frames.last_mut() {
                    top.chars += n;
                    if in_link > 0 {
                        top.link_chars += n;
                        if address {
                            top.address_chars += n;
                        }
                    }
                    if in_away > 0 {
                        top.away_chars += n;
                    }
                    if n > 0 {
                        top.ends_in_link = in_away > 0;
                    }
                }
                return false;
            }
            if !node.is_element() {
                return node.is_document() || node.is_fragment();
            }
            let (kind, link, away, image, own_title, code) = with_element(&node, |e| {
                let name = &*e.name.local;
                // Code is content to the last token: its highlighting spans (`token tag`,
                // `hljs-date`) are not metadata.
                let is_code = matches!(name, "pre" | "code");
                let code = in_code > 0 || is_code;
                // Without `href`, an `a` is an anchor (`<a name>`), not a link.
                let link = name == "a" && attr(e, "href").is_some();
                let away = link && attr(e, "href").is_some_and(|h| memo.leaves_the_page(h));
                let kind = if code {
                    Kind::Other
                } else {
                    kind_of(name, e, node.id == root.id, |v| memo.sense(v))
                };
                let own_title = kind == Kind::Heading && attr(e, TITLE_MARK).is_some();
                (kind, link, away, name == "img" && !code, own_title, is_code)
            })
            .unwrap_or((Kind::Other, false, false, false, false, false));
            if image && in_away > 0 {
                // An image inside a link to another page is a teaser's picture: its
                // alternative text names the other page, not this one.
                remove.push((node.id, 0, Kind::Other, false));
                return false;
            }
            in_link += usize::from(link);
            in_away += usize::from(away);
            in_code += usize::from(code);
            frames.push(Frame {
                id: node.id,
                kind,
                chars: 0,
                link_chars: 0,
                away_chars: 0,
                address_chars: 0,
                link,
                away,
                linked_heading: false,
                headline: false,
                heading: false,
                ends_in_link: false,
                code,
                own_title,
            });
            true
        }
        Step::Leave(node, entered) => {
            if entered
                && node.is_element()
                && let Some(frame) = frames.pop()
            {
                in_link -= usize::from(frame.link);
                in_away -= usize::from(frame.away);
                in_code -= usize::from(frame.code);
                if is_boilerplate(&frame)
                    && !(matches!(frame.kind, Kind::Meta | Kind::Author) && beside_title(&node))
                {
                    remove.push((frame.id, frame.chars, frame.kind, is_teaser(&frame)));
                } else if let Some(parent) = frames.last_mut() {
                    parent.chars += frame.chars;
                    parent.link_chars += frame.link_chars;
                    parent.away_chars += frame.away_chars;
                    parent.address_chars += frame.address_chars;
                    if frame.chars > 0 {
                        parent.ends_in_link = frame.ends_in_link;
                    }
                    parent.headline |= frame.headline || frame.own_title || node_is_h1(&node);
                    parent.heading |=
                        frame.heading || (frame.kind == Kind::Heading && frame.chars > 0);
                    parent.linked_heading |= frame.linked_heading
                        || (frame.kind == Kind::Heading
                            && !frame.own_title
                            && frame.chars > 0
                            && frame.away_chars == frame.chars);
                }
            }
            true
        }
    });
    // What holds much of the text is the content, whatever it looks like (an author's page
    // is one long author box).
    let cap = (total as f64 * PRUNE_MAX_SHARE) as usize;
    remove.retain(|&(_, chars, _, _)| chars <= cap);
    // A listing's cards keep their bylines, dates and ratings.
    let mut siblings = Siblings::default();
    remove.retain(|&(id, chars, kind, _)| {
        !(matches!(kind, Kind::Meta | Kind::Author)
            && chars <= CARD_META_MAX_CHARS
            && !lists_tags(NodeRef::new(id, root.tree))
            && in_card(NodeRef::new(id, root.tree), root, &mut siblings, memo))
    });
    // Teasers that hold much of the text together are the page's cards, not promotions.
    let teasers: usize = remove
        .iter()
        .filter(|&&(_, _, _, teaser)| teaser)
        .map(|&(_, chars, _, _)| chars)
        .sum();
    let others: usize = remove
        .iter()
        .filter(|&&(_, _, _, teaser)| !teaser)
        .map(|&(_, chars, _, _)| chars)
        .sum();
    // In the pass that keeps cards, the page's first answer kept no prose: its teasers are
    // weighed against what the menus and link lists leave.
    let rest = if memo.cards {
        total.saturating_sub(others)
    } else {
        total
    };
    let cards = rest > 0 && teasers as f64 >= rest as f64 * TEASERS_MIN_SHARE;
    // So are link blocks within the members of a repeated group that holds much of the
    // text, when the page's first answer kept no prose (see [`Memo::with_cards`]).
    let grouped = if memo.cards {
        let grouped = in_groups(&remove, root, total, true, &mut siblings);
        if memo.lead {
            memo.note_grid(&remove, &grouped, root);
        }
        grouped
    } else {
        // What such a pass would keep in the page's main content, told to the caller: a grid
        // under a lead of prose (see [`Memo::grid_chars`]).
        let found: usize = remove.iter().map(|&(_, chars, _, _)| chars).sum();
        if found as f64 >= total as f64 * GROUP_MIN_SHARE && found > memo.grid_chars {
            let grouped = in_groups(&remove, root, total, false, &mut siblings);
            let held = remove
                .iter()
                .filter(|&&(id, _, _, _)| {
                    grouped.contains(&id) && in_main(NodeRef::new(id, root.tree))
                })
                .map(|&(_, chars, _, _)| chars)
                .sum();
            memo.grid_chars = memo.grid_chars.max(held);
        }
        if memo.alike {
            memo.alike = prunes_alike(
                &remove,
                root,
                total,
                (teasers, others),
                cards,
                &mut siblings,
            );
        }
        HashSet::default()
    };
    let kept = |id: NodeId, teaser: bool| grouped.contains(&id) || cards && teaser;
    // A block found boilerplate for what was left of it once the cards inside were taken
    // out (a grid's wrapper, left with its "View more" link) holds the cards kept: it
    // stays, and so do they.
    let mut holds_kept: HashSet<NodeId> = HashSet::default();
    for &(id, _, _, teaser) in &remove {
        if kept(id, teaser) {
            for a in NodeRef::new(id, root.tree).ancestors_it(None) {
                if a.id == root.id || !holds_kept.insert(a.id) {
                    break;
                }
            }
        }
    }
    let mut left = total;
    for (id, chars, kind, _) in remove
        .into_iter()
        .filter(|&(id, _, _, teaser)| !kept(id, teaser) && !holds_kept.contains(&id))
    {
        left = left.saturating_sub(chars);
        let node = NodeRef::new(id, root.tree);
        // A heading just before a removed block of links or teasers was its title ("Related
        // stories"); the page's headline (`h1`) is never such a title.
        if matches!(kind, Kind::List | Kind::Block | Kind::Card)
            && let Some(prev) = node.prev_element_sibling()
            && prev.id != root.id
            && with_element(&prev, |e| is_subheading(&e.name.local)).unwrap_or(false)
        {
            memo.remove(&prev);
        }
        memo.remove(&node);
    }
    left
}

/// On one product's page, a card of another product has at most this many visible
/// characters (a name, a price, a rating, a delivery line).
const CARD_MAX_CHARS: usize = 300;

/// What [`drop_carousels`] reads of an element.
#[derive(Default, Clone, Copy)]
struct CardFrame {
    /// Visible characters inside.
    chars: usize,
    /// Whether a link to another page lies inside (or is the element).
    away: bool,
    /// Whether a picture lies inside (or is the element).
    picture: bool,
    /// Whether the page's headline lies inside: an `h1`, or a heading that says the title.
    headline: bool,
}

impl CardFrame {
    /// Whether the element reads as a card for another product: a picture, a link to
    /// another page, some text but no more than [`CARD_MAX_CHARS`], not the headline.
    fn is_card(&self) -> bool {
        self.away
            && self.picture
            && self.chars > 0
            && self.chars <= CARD_MAX_CHARS
            && !self.headline
    }
}

/// On one product's page, removes the cards of other products under `root` (never `root`
/// itself): the members of a repeated group of at least [`GROUP_MIN_CARDS`] alike siblings
/// (elements of one name, their children alike to one of the first few's) that are each a
/// picture, a short text and a link to another page (see [`CardFrame::is_card`]), and are
/// at least half of their siblings of that name with text. The
/// page sells one product; such a group is a carousel of others ("customers also viewed",
/// "similar items", "you may also like"), however much of the text it holds. Returns the
/// visible characters removed.
pub(crate) fn drop_carousels(root: NodeRef<'_>, memo: &mut Memo<'_>) -> usize {
    let mut frames: Vec<CardFrame> = Vec::new();
    // Cards found, with their parents.
    let mut cards: Vec<(NodeId, NodeId)> = Vec::new();
    walk(root, |step| match step {
        Step::Enter(node) => {
            if let Some(n) = with_text(&node, visible_len) {
                if let Some(top) = frames.last_mut() {
                    top.chars += n;
                }
                return false;
            }
            if !node.is_element() {
                return node.is_document() || node.is_fragment();
            }
            let frame = with_element(&node, |e| {
                let name = &*e.name.local;
                CardFrame {
                    chars: 0,
                    away: name == "a" && attr(e, "href").is_some_and(|h| memo.leaves_the_page(h)),
                    picture: matches!(name, "img" | "picture"),
                    headline: name == "h1" || attr(e, TITLE_MARK).is_some(),
                }
            })
            .unwrap_or_default();
            frames.push(frame);
            true
        }
        Step::Leave(node, entered) => {
            if entered
                && node.is_element()
                && let Some(frame) = frames.pop()
            {
                if frame.is_card()
                    && node.id != root.id
                    && let Some(parent) = node.parent()
                {
                    cards.push((parent.id, node.id));
                }
                if let Some(parent) = frames.last_mut() {
                    parent.chars += frame.chars;
                    parent.away |= frame.away;
                    parent.picture |= frame.picture;
                    parent.headline |= frame.headline;
                }
            }
            true
        }
    });
    // By parent, its cards by element name (a carousel's first slide may carry a class its
    // others lack).
    let mut groups: HashMap<NodeId, HashMap<String, Vec<NodeId>>> = HashMap::new();
    for (parent, id) in cards {
        let name = with_element(&NodeRef::new(id, root.tree), |e| e.name.local.to_string())
            .unwrap_or_default();
        groups
            .entry(parent)
            .or_default()
            .entry(name)
            .or_default()
            .push(id);
    }
    // Every group is judged on the page as it is before any is removed.
    let mut carousels: Vec<NodeId> = Vec::new();
    for (parent, names) in groups {
        let parent = NodeRef::new(parent, root.tree);
        for (name, ids) in names {
            if ids.len() < GROUP_MIN_CARDS {
                continue;
            }
            // Alike to one of the first few: the first may be the odd one.
            let alike_ids = ids
                .iter()
                .take(GROUP_MIN_CARDS)
                .map(|&pivot| {
                    let pivot = inner_shapes(&NodeRef::new(pivot, root.tree));
                    ids.iter()
                        .copied()
                        .filter(|&id| alike(&inner_shapes(&NodeRef::new(id, root.tree)), &pivot))
                        .collect::<Vec<NodeId>>()
                })
                .max_by_key(Vec::len)
                .unwrap_or_default();
            if alike_ids.len() < GROUP_MIN_CARDS {
                continue;
            }
            let with_text = parent
                .element_children()
                .iter()
                .filter(|c| c.has_name(&name) && text_len(c) > 0)
                .count();
            if alike_ids.len() * 2 < with_text {
                continue;
            }
            carousels.extend(alike_ids);
        }
    }
    let mut removed = 0usize;
    for id in carousels {
        let node = NodeRef::new(id, root.tree);
        // A card within a card already removed was counted with it.
        if node.ancestors_it(None).any(|a| a.id == root.id) {
            removed += text_len(&node);
            memo.remove(&node);
        }
    }
    removed
}

/// The link blocks, link lists, teasers and promotions among the boilerplate found under
/// `root` (`found`: element, visible characters, kind, whether a teaser) that lie within the
/// members of a repeated group of alike siblings (a grid's cards, a listing's rows), when at
/// least [`GROUP_MIN_CARDS`] of its members hold them and the members together hold at
/// least [`GROUP_MIN_SHARE`] of the `total` visible characters under `root`: the page's
/// cards, kept. With `outer_too`, a group around the nearest one (a grid of rows of cards, a
/// page of lists of cards) keeps them too when its members hold at least
/// [`OUTER_GROUP_MIN_SHARE`] of the text and none of them more than
/// [`GROUP_MAX_MEMBER_SHARE`] of theirs.
fn in_groups(
    found: &[(NodeId, usize, Kind, bool)],
    root: NodeRef<'_>,
    total: usize,
    outer_too: bool,
    siblings: &mut Siblings,
) -> HashSet<NodeId> {
    if total == 0 {
        return HashSet::default();
    }
    // By group (its parent): the blocks found within it and the members that hold them; the
    // nearest groups around the blocks, and the groups around those.
    let mut nearest: HashMap<NodeId, (Vec<NodeId>, HashSet<NodeId>)> = HashMap::new();
    let mut outer: HashMap<NodeId, (Vec<NodeId>, HashSet<NodeId>)> = HashMap::new();
    for &(id, _, kind, _) in found {
        if !matches!(
            kind,
            Kind::List | Kind::Block | Kind::Card | Kind::Paragraph
        ) {
            continue;
        }
        let node = NodeRef::new(id, root.tree);
        let members = std::iter::once(node)
            .chain(node.ancestors_it(None))
            .take_while(|n| n.id != root.id && n.is_element())
            .filter(|n| siblings.in_group(n));
        for (at, member) in members
            .enumerate()
            .take(if outer_too { usize::MAX } else { 1 })
        {
            if let Some(parent) = member.parent() {
                let groups = if at == 0 { &mut nearest } else { &mut outer };
                let group = groups.entry(parent.id).or_default();
                group.0.push(id);
                group.1.insert(member.id);
            }
        }
    }
    let sizes = |members: &HashSet<NodeId>| -> (usize, usize) {
        let sizes = members
            .iter()
            .map(|&id| text_len(&NodeRef::new(id, root.tree)));
        sizes.fold((0, 0), |(held, largest), n| (held + n, largest.max(n)))
    };
    // The members' text is counted only for groups of enough members.
    let nearest = nearest.into_values().filter(|(_, members)| {
        members.len() >= GROUP_MIN_CARDS && {
            let (held, _) = sizes(members);
            held as f64 >= total as f64 * GROUP_MIN_SHARE
        }
    });
    let outer = outer.into_values().filter(|(_, members)| {
        // Layout columns are no group: one of them holds most of their text.
        members.len() >= GROUP_MIN_CARDS && {
            let (held, largest) = sizes(members);
            held as f64 >= total as f64 * OUTER_GROUP_MIN_SHARE
                && largest as f64 <= held as f64 * GROUP_MAX_MEMBER_SHARE
        }
    });
    nearest.chain(outer).flat_map(|(ids, _)| ids).collect()
}

/// Whether the pass that keeps cards ([`Memo::with_cards`]) would keep, of the boilerplate
/// `found` under `root`, just what a pass that does not keeps: the teasers when `cards`
/// says they are the page's cards. `teasers` and `others` are the visible characters of the
/// teasers and of the rest of `found`, among `total` under `root` (see [`Memo::alike`]).
fn prunes_alike(
    found: &[(NodeId, usize, Kind, bool)],
    root: NodeRef<'_>,
    total: usize,
    (teasers, others): (usize, usize),
    cards: bool,
    siblings: &mut Siblings,
) -> bool {
    let rest = total.saturating_sub(others);
    let cards_too = rest > 0 && teasers as f64 >= rest as f64 * TEASERS_MIN_SHARE;
    if cards_too != cards && found.iter().any(|&(_, _, _, teaser)| teaser) {
        return false;
    }
    let grouped = in_groups(found, root, total, true, siblings);
    found
        .iter()
        .all(|&(id, _, _, teaser)| !grouped.contains(&id) || cards && teaser)
}

/// Whether an element (a byline, a date, a rating) lies within a card: itself or one of the
/// [`CARD_META_MAX_UP`] elements above it (short of `root`) a member of a repeated group of
/// alike siblings that links to another page (among its first [`CARD_MAX_SCANNED`]
/// descendants), a listing's row or a grid's card, and none of them a figure or its caption
/// (a gallery's pictures).
fn in_card(
    node: NodeRef<'_>,
    root: NodeRef<'_>,
    siblings: &mut Siblings,
    memo: &mut Memo<'_>,
) -> bool {
    let up: Vec<NodeRef<'_>> = std::iter::once(node)
        .chain(node.ancestors_it(None))
        .take_while(|n| n.id != root.id)
        .take(CARD_META_MAX_UP + 1)
        .collect();
    if up
        .iter()
        .any(|n| n.has_name("figure") || n.has_name("figcaption"))
    {
        return false;
    }
    let Some(card) = up.into_iter().find(|n| siblings.in_group(n)) else {
        return false;
    };
    card.descendants_it().take(CARD_MAX_SCANNED).any(|d| {
        with_element(&d, |e| {
            &*e.name.local == "a" && attr(e, "href").is_some_and(|h| memo.leaves_the_page(h))
        })
        .unwrap_or(false)
    })
}

/// Whether an element links to tags or categories (a link whose `rel` says `tag`, among
/// its first [`CARD_MAX_SCANNED`] descendants): a card's "posted in" list, which names
/// the site's sections, not the card's item.
fn lists_tags(node: NodeRef<'_>) -> bool {
    node.descendants_it().take(CARD_MAX_SCANNED).any(|d| {
        with_element(&d, |e| {
            &*e.name.local == "a"
                && attr(e, "rel").is_some_and(|r| {
                    r.split_ascii_whitespace()
                        .any(|t| t.eq_ignore_ascii_case("tag"))
                })
        })
        .unwrap_or(false)
    })
}

/// Whether an element lies within the page's main content, as its markup says: a `main`, an
/// `article` or an element of role `main`.
fn in_main(node: NodeRef<'_>) -> bool {
    node.ancestors_it(None).any(|a| {
        with_element(&a, |e| {
            matches!(&*e.name.local, "main" | "article")
                || attr(e, "role").is_some_and(|r| r.eq_ignore_ascii_case("main"))
        })
        .unwrap_or(false)
    })
}

/// Sibling elements by shape, under each parent asked about: which elements are members of a
/// repeated group ([`GROUP_MIN_CARDS`] or more siblings of one shape whose children are
/// alike).
#[derive(Default)]
struct Siblings {
    /// By parent, its children by shape.
    by_parent: HashMap<NodeId, HashMap<Shape, Vec<NodeId>>>,
    /// Whether an element is a member, once asked.
    member: HashMap<NodeId, bool>,
    /// The shapes of an element's children, once read.
    inner: HashMap<NodeId, Shapes>,
}

impl Siblings {
    /// Whether `node` is a member of a repeated group of alike siblings: at least
    /// [`GROUP_MIN_CARDS`] - 1 of the first [`GROUP_MAX_COMPARED`] siblings of its shape have
    /// children alike to its own.
    fn in_group(&mut self, node: &NodeRef<'_>) -> bool {
        if let Some(&known) = self.member.get(&node.id) {
            return known;
        }
        let Some(parent) = node.parent() else {
            return false;
        };
        let shapes = self.by_parent.entry(parent.id).or_insert_with(|| {
            let mut shapes: HashMap<Shape, Vec<NodeId>> = HashMap::new();
            for child in parent.element_children() {
                shapes.entry(shape_of(&child)).or_default().push(child.id);
            }
            shapes
        });
        let same = shapes.get(&shape_of(node)).map_or(&[][..], Vec::as_slice);
        let member = same.len() >= GROUP_MIN_CARDS && {
            // Each element's children are read once, however many siblings compare with it.
            let compared: Vec<NodeId> = same
                .iter()
                .copied()
                .filter(|&id| id != node.id)
                .take(GROUP_MAX_COMPARED)
                .collect();
            for &id in compared.iter().chain([&node.id]) {
                self.inner
                    .entry(id)
                    .or_insert_with(|| inner_shapes(&NodeRef::new(id, node.tree)));
            }
            let inner = &self.inner[&node.id];
            compared
                .iter()
                .filter(|&id| alike(&self.inner[id], inner))
                .count()
                + 1
                >= GROUP_MIN_CARDS
        };
        self.member.insert(node.id, member);
        member
    }
}

/// Whether an element is the dateline of the page's own headline: within two elements after
/// a heading that says the page's title ([`TITLE_MARK`]), or right before it, itself or as
/// the first child of such an element.
fn beside_title(node: &NodeRef<'_>) -> bool {
    let mut at = Some(*node);
    for _ in 0..2 {
        let Some(n) = at else { break };
        let mut prev = n.prev_element_sibling();
        for _ in 0..2 {
            match prev {
                Some(p) if is_title(&p) => return true,
                Some(p) => prev = p.prev_element_sibling(),
                None => break,
            }
        }
        if n.next_element_sibling().is_some_and(|s| is_title(&s)) {
            return true;
        }
        at = n
            .parent()
            .filter(|p| p.first_element_child().is_some_and(|c| c.id == n.id));
    }
    false
}

/// Whether an element is a heading that says the page's title.
fn is_title(node: &NodeRef<'_>) -> bool {
    with_element(node, |e| attr(e, TITLE_MARK).is_some()).unwrap_or(false)
}

/// The dateline of the page's headline that pruning spared: the first metadata or byline
/// block (by name) beside `heading`, the first heading that says the title (see
/// [`beside_title`]), with at most [`META_MAX_CHARS`] visible characters, as one line.
/// Content selection drops such lines as bylines; the caller puts it back under the headline.
pub(crate) fn dateline(heading: NodeRef<'_>) -> Option<String> {
    let mut near: Vec<NodeRef<'_>> = Vec::with_capacity(6);
    let mut next = heading.next_element_sibling();
    for _ in 0..2 {
        let Some(n) = next else { break };
        near.push(n);
        next = n.next_element_sibling();
    }
    near.extend(heading.prev_element_sibling());
    let named = |n: &NodeRef<'_>| {
        with_element(n, |e| {
            matches!(
                kind_of(&e.name.local, e, false, Sense::of),
                Kind::Meta | Kind::Author
            ) || matches!(&*e.name.local, "time")
        })
        .unwrap_or(false)
    };
    near.into_iter()
        .flat_map(|n| [Some(n), n.first_element_child()])
        .flatten()
        .find(|n| named(n))
        .and_then(|n| {
            let line = without_counts(&collapse(&render(n).join(" ")));
            let chars = visible_len(&line);
            (chars <= META_MAX_CHARS && !line.starts_with('#') && says_a_date(&line))
                .then_some(line)
        })
}

/// A dateline without what counts or links rather than dates and signs the post: counts
/// (`21 minutes`, `4312 words`, `3 Comments`) wherever they are, and the parts (between
/// `|`, `·`, `•`, ` - `, ` – `) that speak of comments or a permalink when another part is
/// left. Separators left at either end go too.
fn without_counts(line: &str) -> String {
    const UNITS: &[&str] = &[
        "min",
        "mins",
        "minute",
        "minutes",
        "word",
        "words",
        "comment",
        "comments",
        "response",
        "responses",
        "reply",
        "replies",
        "view",
        "views",
    ];
    const SEPARATORS: &[&str] = &["|", "·", "•", "-", "–", "—"];
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut kept: Vec<&str> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let count = words[i].bytes().all(|b| b.is_ascii_digit() || b == b',')
            && words
                .get(i + 1)
                .is_some_and(|u| UNITS.iter().any(|x| x.eq_ignore_ascii_case(u)));
        if count {
            i += 2;
            // `5 min read`
            if words.get(i).is_some_and(|w| w.eq_ignore_ascii_case("read")) {
                i += 1;
            }
            continue;
        }
        kept.push(words[i]);
        i += 1;
    }
    // Parts between separators; one that speaks of comments or a permalink goes when
    // another part is left.
    let mut parts: Vec<Vec<&str>> = vec![Vec::new()];
    for w in kept {
        if SEPARATORS.contains(&w) {
            parts.push(Vec::new());
        } else if let Some(last) = parts.last_mut() {
            last.push(w);
        }
    }
    parts.retain(|p| !p.is_empty());
    let chatter = |p: &Vec<&str>| {
        p.iter().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            ["permalink", "comment", "comments"]
                .iter()
                .any(|x| x.eq_ignore_ascii_case(w))
        })
    };
    if parts.iter().any(|p| !chatter(p)) {
        parts.retain(|p| !chatter(p));
    }
    parts
        .iter()
        .map(|p| p.join(" "))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Whether a line says a date: a year (four digits from 1900 to 2099), a month's English
/// name or its three-letter abbreviation ([`MONTH_NAMES`]), or a day, month and year in
/// digits (`08-7-2012`, `17/10/12`).
fn says_a_date(line: &str) -> bool {
    line.split(|c: char| !c.is_alphanumeric()).any(|w| {
        let year = w.len() == 4
            && w.bytes().all(|b| b.is_ascii_digit())
            && (w.starts_with("19") || w.starts_with("20"));
        let month = MONTH_NAMES
            .iter()
            .any(|n| n.eq_ignore_ascii_case(w) || (w.len() == 3 && n[..3].eq_ignore_ascii_case(w)));
        year || month
    }) || line.split_whitespace().any(|w| {
        let parts: Vec<&str> = w.split(['/', '-', '.']).collect();
        parts.len() == 3
            && parts
                .iter()
                .all(|p| (1..=4).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// What the walks over one page read once, however many of them ask: which links go to
/// another page (not a `#fragment` of this one, not this page's own address, as a post's
/// title linking to itself, nor a picture, as a link from an image to its full-size file),
/// each `href` value resolved against the page once; and what each class or id value says.
pub(crate) struct Memo<'p> {
    /// The page's address.
    page: &'p Url,
    /// The answer for each (trimmed) `href` value resolved so far.
    leaves: Keyed<bool>,
    /// What each class or id value read so far says.
    senses: Keyed<Sense>,
    /// What each token of those values says alone.
    tokens: Keyed<Sense>,
    /// Whether link blocks within a repeated group's members are the page's cards.
    cards: bool,
    /// The most visible characters of the boilerplate a pass that keeps the page's cards
    /// would keep under one filtered root, found by a pass that does not (see
    /// [`Memo::grid_chars`]).
    grid_chars: usize,
    /// Whether the page is one product's (see
    /// [`sells_a_product`](super::meta::PageSurvey::sells_a_product)).
    product: bool,
    /// Whether the pass keeps cards for a grid under a lead of prose (see
    /// [`Memo::over_lead`]).
    lead: bool,
    /// The element around the most cards such a pass kept in the page's main content, with
    /// their visible characters.
    grid: Option<(NodeId, usize)>,
    /// Whether every boilerplate filter of the pass so far kept what a pass that keeps cards
    /// would (see [`Memo::alike`]).
    alike: bool,
    /// The elements the pass's filters removed from its document.
    removed: Removed,
}

impl<'p> Memo<'p> {
    /// Nothing of the page at `page` read yet.
    pub(crate) fn new(page: &'p Url) -> Self {
        Self {
            page,
            leaves: Keyed::default(),
            senses: Keyed::default(),
            tokens: Keyed::default(),
            cards: false,
            grid_chars: 0,
            product: false,
            lead: false,
            grid: None,
            alike: true,
            removed: Removed::default(),
        }
    }

    /// Removes `node` from the pass's document, noting it (see [`Memo::forget_removed`]).
    pub(crate) fn remove(&mut self, node: &NodeRef<'_>) {
        self.removed.remove(node);
    }

    /// Empties what the pass removed from `doc`, its document, so that no copy of it copies
    /// that again: once nothing reads the removed elements (see [`Removed::forget`]).
    pub(crate) fn forget_removed(&mut self, doc: &Document) {
        self.removed.forget(doc);
    }

    /// The same, for a pass that keeps cards because a grid of them lies under a lead of
    /// prose: the element around the cards it keeps is noted (see [`Memo::kept_grid`]).
    pub(crate) fn over_lead(mut self) -> Self {
        self.lead = true;
        self
    }

    /// The nearest element around the cards in the page's main content that a pass
    /// [`over_lead`](Memo::over_lead) kept under one filtered root (the one that kept the
    /// most of them).
    pub(crate) fn kept_grid(&self) -> Option<NodeId> {
        self.grid.map(|(id, _)| id)
    }

    /// Notes the nearest element around the blocks of `found` that `grouped` keeps within
    /// the page's main content under `root`, when they hold more than the grid noted so far;
    /// up to [`GRID_MAX_BLOCKS`] blocks are placed.
    fn note_grid(
        &mut self,
        found: &[(NodeId, usize, Kind, bool)],
        grouped: &HashSet<NodeId>,
        root: NodeRef<'_>,
    ) {
        let blocks: Vec<(NodeId, usize)> = found
            .iter()
            .filter(|&&(id, _, _, _)| grouped.contains(&id) && in_main(NodeRef::new(id, root.tree)))
            .map(|&(id, chars, _, _)| (id, chars))
            .collect();
        let held: usize = blocks.iter().map(|&(_, chars)| chars).sum();
        if blocks.is_empty() || self.grid.is_some_and(|(_, most)| most >= held) {
            return;
        }
        // The first block's ancestors, nearest first; each other block raises the element
        // around them all to the nearest of these it lies in.
        let chain: Vec<NodeId> = NodeRef::new(blocks[0].0, root.tree)
            .ancestors_it(None)
            .map(|a| a.id)
            .collect();
        let at: HashMap<NodeId, usize> = chain.iter().enumerate().map(|(i, &id)| (id, i)).collect();
        let mut top = 0usize;
        for &(id, _) in blocks.iter().skip(1).take(GRID_MAX_BLOCKS) {
            if let Some(i) = NodeRef::new(id, root.tree)
                .ancestors_it(None)
                .find_map(|a| at.get(&a.id).copied())
            {
                top = top.max(i);
            }
        }
        if let Some(&id) = chain.get(top) {
            self.grid = Some((id, held));
        }
    }

    /// Says whether the page is one product's: its customers' reviews are then chrome.
    pub(crate) fn set_product(&mut self, product: bool) {
        self.product = product;
    }

    /// The same, knowing what `links` says of where the page's links go (read by the passes
    /// over the same page before this one).
    pub(crate) fn knowing(mut self, links: Resolved) -> Self {
        self.leaves = links.0;
        self
    }

    /// What the memo found of where the page's links go, taken from it for the page's next
    /// pass.
    pub(crate) fn take_resolved(&mut self) -> Resolved {
        Resolved(std::mem::take(&mut self.leaves))
    }

    /// Whether the page is one product's.
    pub(crate) fn product(&self) -> bool {
        self.product
    }

    /// The same, with link blocks, link lists and promotions that lie within the members of
    /// a repeated group of alike siblings holding much of the text kept as the page's cards
    /// (a grid of products, a feed of posts each wholly a link). Asked for when a page's
    /// first answer kept no prose: on an article's page, such a group is its related stories.
    /// Teasers are then weighed against the text the other boilerplate leaves.
    pub(crate) fn with_cards(mut self) -> Self {
        self.cards = true;
        self
    }

    /// Whether a pass that keeps cards ([`Memo::with_cards`]) would have kept, at every
    /// boilerplate filter of this pass, what this pass kept: it then makes the same
    /// document, and answers the same.
    pub(crate) fn alike(&self) -> bool {
        self.alike
    }

    /// The most visible characters of link blocks, link lists and promotions that the
    /// boilerplate filter removed under one root and that lie within the nearest members of
    /// a repeated group of alike siblings holding much of the text there, within the page's
    /// main content (a `main`, an `article`, role `main`): what a pass
    /// [`with_cards`](Memo::with_cards) would have kept. A sidebar's widgets, alike too, lie
    /// outside it.
    pub(crate) fn grid_chars(&self) -> usize {
        self.grid_chars
    }

    /// Says how many visible characters of the grid a pass [`over_lead`](Memo::over_lead)
    /// put in beside its lead, read back as [`Memo::grid_chars`].
    pub(crate) fn set_grid_chars(&mut self, chars: usize) {
        self.grid_chars = chars;
    }

    /// What a class or id value says ([`Sense::of`]), read once per distinct value: a page
    /// repeats its class names on many elements, and each of them is read by several walks.
    ///
    /// A value says what its tokens say together ([`Sense::and`]), and a page's values share
    /// their tokens (`col-md-4 card`, `col-md-6 card`, `post-17 post`): a value read for the
    /// first time is read a token at a time, each token once per page.
    pub(crate) fn sense(&mut self, value: &str) -> Sense {
        let tokens = &mut self.tokens;
        self.senses.get_or_insert_with(value, || {
            value
                .split_ascii_whitespace()
                .fold(Sense::default(), |sense, token| {
                    sense.and(tokens.get_or_insert_with(token, || Sense::of(token)))
                })
        })
    }

    /// Whether the link `href` goes to another page.
    fn leaves_the_page(&mut self, href: &str) -> bool {
        let href = href.trim();
        if stays_without_resolving(href) {
            return false;
        }
        if let Some(leaves) = self.leaves.get(href) {
            return leaves;
        }
        let target = self.page.join(href);
        self.resolved(href, target.as_ref().ok())
    }

    /// Notes that the (trimmed) link `href` resolves against the page's address to `target`
    /// (`None`: it does not resolve), as read elsewhere, and answers whether it goes to
    /// another page: [`leaves_the_page`](Memo::leaves_the_page) then reads it back.
    pub(crate) fn resolved(&mut self, href: &str, target: Option<&Url>) -> bool {
        let here = &self.page[..::url::Position::AfterQuery];
        let leaves = target.is_none_or(|target| &target[..::url::Position::AfterQuery] != here);
        self.leaves.insert(href, leaves);
        leaves
    }
}

/// Whether each link of a page goes to another page, as the passes over the page resolved
/// them so far: handed from one pass or step over the page to the next, so that a link is
/// resolved once per page.
#[derive(Default)]
pub(crate) struct Resolved(Keyed<bool>);

/// Whether a link's text looks like an address: it holds `://`, `@` or `www.`, found in one
/// pass over its bytes.
fn names_address(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|i| match bytes[i] {
        b'@' => true,
        b':' => bytes[i + 1..].starts_with(b"//"),
        b'w' => bytes[i + 1..].starts_with(b"ww."),
        _ => false,
    })
}

/// Whether a (trimmed) link stays on the page whatever it resolves to: a `#fragment`, a
/// picture, or a script run in place (`javascript:`, an accordion's question).
fn stays_without_resolving(href: &str) -> bool {
    let path = href.split(['?', '#']).next().unwrap_or("").as_bytes();
    // The extensions are lowercase: compared ASCII case-insensitively, without a copy.
    let picture = IMAGE_FILES.iter().any(|ext| {
        path.len() >= ext.len()
            && path[path.len() - ext.len()..].eq_ignore_ascii_case(ext.as_bytes())
    });
    let script = href
        .get(..JAVASCRIPT_SCHEME.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(JAVASCRIPT_SCHEME));
    href.starts_with('#') || picture || script
}

/// The scheme of a link that runs the page's script (a toggle, a "load more" control)
/// rather than going anywhere.
const JAVASCRIPT_SCHEME: &str = "javascript:";

/// File extensions of pictures.
const IMAGE_FILES: &[&str] = &[".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif", ".svg"];

/// Whether a node is an `h1`.
fn node_is_h1(node: &NodeRef<'_>) -> bool {
    with_element(node, |e| &*e.name.local == "h1").unwrap_or(false)
}

/// Whether an element name is a heading below `h1`.
fn is_subheading(name: &str) -> bool {
    matches!(name, "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Removes headings left without content: those at the end of the text and those followed
/// directly by a heading of a higher rank. Blank lines around a removed heading go with it.
/// Text made only of headings is left as it is.
pub(crate) fn drop_orphan_headings(lines: &mut Vec<String>) {
    let level = |line: &str| {
        let hashes = line.bytes().take_while(|&b| b == b'#').count();
        (hashes > 0 && hashes <= 6 && line.as_bytes().get(hashes) == Some(&b' ')).then_some(hashes)
    };
    // Headings are all a page of headings has: keep them.
    if lines.iter().all(|l| l.is_empty() || level(l).is_some()) {
        return;
    }
    let mut kept: Vec<String> = Vec::with_capacity(lines.len());
    // Walk backwards so that a heading is judged by what follows it after removals.
    let mut next_level: Option<usize> = Some(0);
    for line in lines.drain(..).rev() {
        if line.is_empty() {
            kept.push(line);
            continue;
        }
        match level(&line) {
            Some(l) if next_level.is_some_and(|n| n == 0 || n < l) => {
                // Orphan: drop it and the blank line after it.
                if kept.last().is_some_and(String::is_empty) {
                    kept.pop();
                }
            }
            Some(l) => {
                next_level = Some(l);
                kept.push(line);
            }
            None => {
                next_level = None;
                kept.push(line);
            }
        }
    }
    while kept.last().is_some_and(String::is_empty) {
        kept.pop();
    }
    kept.reverse();
    while kept.last().is_some_and(String::is_empty) {
        kept.pop();
    }
    *lines = kept;
}

/// The heading level a list item opens with (`- ### Name`), if it opens with a heading.
fn item_heading(line: &str) -> Option<usize> {
    line.strip_prefix("- ")
        .filter(|h| heading_level(h).is_some())
        .and_then(|h| h.split_once(' '))
        .map(|(hashes, _)| hashes.len())
}

/// Removes from the lines after the last prose line (the content's tail) the site's footer
/// notes (short lines saying "All rights reserved", "Privacy policy", "Contact us",
/// "Share this", "Posted on …", "3 comments", …) and widgets (a heading over nothing but
/// list items of at most [`WIDGET_MAX_ITEM`] visible characters, up to the next heading or
/// the end, unless the items say properties, see [`says_properties`]; an unordered list
/// whose items open with headings, a sidebar's widget area).
/// Text without a prose line is left as it is.
pub(crate) fn drop_tail_chrome(lines: &mut Vec<String>) {
    let Some(last) = lines.iter().rposition(|l| {
        heading_level(l).is_none() && !is_list_line(l) && visible_len(l) >= TAIL_PROSE_CHARS
    }) else {
        return;
    };
    let tail: Vec<String> = lines.drain(last + 1..).collect();
    let before = lines.len();
    // The heading levels the content's own list items open with, before its tail.
    let mut content_items = [false; 7];
    for level in lines.iter().filter_map(|l| item_heading(l)) {
        content_items[level.min(6)] = true;
    }
    let mut i = 0;
    while i < tail.len() {
        let line = &tail[i];
        if heading_level(line).is_some() {
            let end = (i + 1..tail.len())
                .find(|&j| !(tail[j].is_empty() || is_list_line(&tail[j])))
                .unwrap_or(tail.len());
            let items = &tail[i + 1..end];
            let widget = items.iter().any(|l| !l.is_empty())
                && items.iter().all(|l| visible_len(l) <= WIDGET_MAX_ITEM)
                && tail.get(end).is_none_or(|l| heading_level(l).is_some())
                && !says_properties(items);
            if widget {
                i = end;
                continue;
            }
        } else if is_footer_note(line) {
            i += 1;
            continue;
        } else if heading_level(line.trim_start_matches("- ")).is_some()
            && line.starts_with("- ")
            && item_heading(line).is_none_or(|level| !content_items[level.min(6)])
        {
            // A list whose items open with a heading is a sidebar's widget area (`About`,
            // `Subscribe`): the list goes to its end, unless the content before the tail
            // holds items opening with a heading of its level (the page's own lists of
            // features, one more of them after its last paragraph).
            i = (i + 1..tail.len())
                .find(|&j| !(tail[j].is_empty() || is_list_line(&tail[j])))
                .unwrap_or(tail.len());
            continue;
        }
        if !(line.is_empty() && lines.last().is_none_or(String::is_empty)) {
            lines.push(line.clone());
        }
        i += 1;
    }
    if lines.len() != before + tail.len() {
        // A heading left at the end headed only what was removed.
        while lines
            .last()
            .is_some_and(|l| l.is_empty() || heading_level(l).is_some())
        {
            lines.pop();
        }
    }
}

/// Whether list items say properties: at least half of them (and at least two) a label and
/// its value (`Weight: 4.5 lbs`), a product's specifications rather than a widget's links.
fn says_properties(items: &[String]) -> bool {
    let items: Vec<&str> = items
        .iter()
        .map(|l| l.trim_start().trim_start_matches("- "))
        .filter(|l| !l.is_empty())
        .collect();
    let properties = items
        .iter()
        .filter(|l| {
            l.split_once(": ")
                .is_some_and(|(label, value)| !label.trim().is_empty() && !value.trim().is_empty())
        })
        .count();
    properties >= 2 && properties * 2 >= items.len()
}

/// Drops a comment section's remains and all after it: from the first line in the second
/// half of the text (by visible characters) or after its last prose line, not in a list
/// nor the first line, that opens a comment section ("Leave a reply",
/// "No comments yet.", "12 Responses to …", "Kommentare") to the end. The comments were
/// removed as chrome; what is left of their section is its heading, its form's labels and
/// the sidebar after it.
pub(crate) fn drop_comment_section(lines: &mut Vec<String>) {
    // Each line's visible characters, counted once.
    let lens: Vec<usize> = lines.iter().map(|l| visible_len(l)).collect();
    let total: usize = lens.iter().sum();
    // Where the last prose line is: an opener after it has only the page's tail below.
    let last_prose = lines.iter().zip(&lens).rposition(|(l, &len)| {
        len >= TAIL_PROSE_CHARS && heading_level(l).is_none() && !is_list_line(l)
    });
    let mut seen = 0usize;
    let mut cut = None;
    for (i, (line, &len)) in lines.iter().zip(&lens).enumerate() {
        let late = seen * 2 >= total || last_prose.is_none_or(|p| i > p);
        if late && i > 0 && !is_list_line(line) && opens_comments(line) {
            cut = Some(i);
            break;
        }
        seen += len;
    }
    if let Some(i) = cut {
        lines.truncate(i);
        while lines
            .last()
            .is_some_and(|l| l.is_empty() || heading_level(l).is_some())
        {
            lines.pop();
        }
    }
}

/// Whether a line opens a comment section: a short line (a heading's marks aside) that is,
/// or starts with, one of [`COMMENT_OPENERS`], or counts comments or responses
/// (`12 Responses to “…”`).
fn opens_comments(line: &str) -> bool {
    let line = line.trim_start_matches(['#', '>', ' ', '*']);
    // Lowercasing changes only letters and numbers, never a separator into one: a line of
    // too many words has too many before it is lowercased.
    let mut words_before = line
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty());
    if words_before.nth(FOOTER_MAX_WORDS).is_some() {
        return false;
    }
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() || words.len() > FOOTER_MAX_WORDS {
        return false;
    }
    let counted = words.len() >= 2
        && (words[0].bytes().all(|b| b.is_ascii_digit()) || matches!(words[0], "one" | "no"))
        && matches!(
            words[1],
            "comment" | "comments" | "response" | "responses" | "reply" | "replies"
        );
    let alone = |n: usize| {
        words.len() == n || (words.len() == n + 1 && words[n].bytes().all(|b| b.is_ascii_digit()))
    };
    counted
        || COMMENT_OPENERS
            .iter()
            .any(|o| words.len() >= o.len() && words[..o.len()] == **o && (o.len() > 1 || alone(1)))
}

/// Whether a line is a site's footer note: at most [`FOOTER_MAX_WORDS`] words, holding a
/// phrase of [`FOOTER_PHRASES`], a comment counter (`3 comments`) or `follow @name`, or
/// opening with a word of [`FOOTER_OPENERS`].
fn is_footer_note(line: &str) -> bool {
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() || words.len() > FOOTER_MAX_WORDS {
        return false;
    }
    let phrase = FOOTER_PHRASES
        .iter()
        .any(|p| words.windows(p.len()).any(|w| w == *p));
    let counter = words.windows(2).any(|w| {
        w[0].bytes().all(|b| b.is_ascii_digit()) && matches!(w[1], "comment" | "comments")
    });
    let opener = lower
        .trim_start_matches(['-', '>', ' ', '*', '|'])
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .is_some_and(|w| FOOTER_OPENERS.contains(&w));
    phrase || counter || opener || lower.contains("follow @")
}

/// A line of a product's page naming other products is at most this many characters.
const RECOMMENDATION_MAX_CHARS: usize = 60;
/// A line of a product's page with at least this many characters (list and heading marks
/// aside) that says again what a line above said is dropped.
const REPEATED_MIN_CHARS: usize = 25;

/// On one product's page, drops what offers other products: a short line after the first
/// that holds one of [`RECOMMENDATION_PHRASES`] ("You may also like", "Customers also
/// viewed"), and when it is a heading, its section too (the lines up to the next heading of
/// its level or above). The cards under it were dropped as a carousel or kept as text;
/// either way they are not the product's.
pub(crate) fn drop_recommendations(lines: &mut Vec<String>) {
    let mut kept = Vec::with_capacity(lines.len());
    // The level of the heading whose section is being dropped.
    let mut cutting: Option<usize> = None;
    for (i, line) in std::mem::take(lines).into_iter().enumerate() {
        let level = heading_level(&line);
        if let Some(cut) = cutting {
            if level.is_some_and(|l| l <= cut) {
                cutting = None;
            } else {
                continue;
            }
        }
        if i > 0 && names_recommendations(&line) {
            cutting = level;
            continue;
        }
        // A line dropped alone leaves one blank line, not two.
        if line.is_empty() && kept.last().is_some_and(String::is_empty) {
            continue;
        }
        kept.push(line);
    }
    *lines = kept;
}

/// Whether a line names other products (see [`drop_recommendations`]).
fn names_recommendations(line: &str) -> bool {
    let text = line.trim();
    text.chars().count() < RECOMMENDATION_MAX_CHARS && {
        let lower = text.to_lowercase();
        RECOMMENDATION_PHRASES.iter().any(|p| lower.contains(p))
    }
}

/// On one product's page, drops a line that says again what a line above said: a slide
/// cloned for a carousel, a description laid out once for phones and once for screens; on
/// a thread's page, a reply's quote of a post above.
/// Only lines of at least [`REPEATED_MIN_CHARS`] characters, list and heading marks aside,
/// count; table rows and code are kept as they are. A line that says the page's `title`
/// (which the answer's title line says) is dropped whatever its length: the name again
/// over the gallery, the buy box or a variant's card.
pub(crate) fn drop_repeated_lines(lines: &mut Vec<String>, title: Option<&str>) {
    let key_of = |line: &str| -> String {
        line.trim_start_matches(|c: char| {
            matches!(c, '#' | '>' | '-' | '*' | '.') || c.is_whitespace() || c.is_ascii_digit()
        })
        .trim_end()
        .to_owned()
    };
    let title = title
        .map(|t| key_of(t).to_lowercase())
        .filter(|t| !t.is_empty());
    let mut seen: HashSet<String> = HashSet::default();
    let mut code = false;
    let mut kept: Vec<String> = Vec::with_capacity(lines.len());
    for line in std::mem::take(lines) {
        let start = line.trim_start();
        let fence = start.starts_with("```");
        code ^= fence;
        if !(code || fence || start.starts_with('|')) {
            let key = key_of(start);
            if title.as_deref().is_some_and(|t| key.to_lowercase() == t) {
                continue;
            }
            if key.chars().count() >= REPEATED_MIN_CHARS && !seen.insert(key) {
                continue;
            }
            // A line dropped leaves one blank line, not two, and none first.
            if line.is_empty() && kept.last().is_none_or(String::is_empty) {
                continue;
            }
        }
        kept.push(line);
    }
    *lines = kept;
}

/// The level of a Markdown heading line (`## Title` is 2).
fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    (hashes > 0 && hashes <= 6 && line.as_bytes().get(hashes) == Some(&b' ')).then_some(hashes)
}

/// Whether a rendered line belongs to a list or a table: an item (`- `, `1. `), its indented
/// continuation, or a table row.
pub(crate) fn is_list_line(line: &str) -> bool {
    let t = line.trim_start();
    let numbered = t
        .split_once(". ")
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    !line.is_empty()
        && (t.starts_with("- ") || numbered || line.starts_with("  ") || line.starts_with('|'))
}

/// How an element is tested; the root itself is never removed.
fn kind_of(
    name: &str,
    e: &dom_query::Element,
    is_root: bool,
    mut sense: impl FnMut(&str) -> Sense,
) -> Kind {
    if is_root {
        return Kind::Other;
    }
    match name {
        "ul" | "ol" | "dl" | "menu" => return Kind::List,
        "figcaption" | "address" => return Kind::Meta,
        n if is_subheading(n) => return Kind::Heading,
        _ => {}
    }
    let class = attr(e, "class").map(&mut sense).unwrap_or_default();
    let id = attr(e, "id").map(&mut sense).unwrap_or_default();
    if (class.author || id.author) && !class.entry {
        Kind::Author
    } else if class.meta || id.meta {
        Kind::Meta
    } else if name == "p" {
        Kind::Paragraph
    } else if matches!(name, "div" | "section" | "header" | "footer" | "aside") {
        Kind::Block
    } else if matches!(name, "li" | "article") {
        Kind::Card
    } else {
        Kind::Other
    }
}

/// Whether a closed element is a teaser: a card or a block under a heading that links to
/// another page, with little text.
fn is_teaser(f: &Frame) -> bool {
    matches!(f.kind, Kind::Block | Kind::Card) && f.linked_heading && f.chars <= TEASER_MAX_CHARS
}

/// Whether a closed element is boilerplate.
fn is_boilerplate(f: &Frame) -> bool {
    if f.chars == 0 {
        return false;
    }
    let share = f.link_chars as f64 / f.chars as f64;
    match f.kind {
        Kind::List => share >= LIST_LINK_SHARE,
        Kind::Block => {
            (share >= BLOCK_LINK_SHARE && f.chars - f.link_chars <= BLOCK_MAX_OWN_CHARS)
                || is_teaser(f)
        }
        Kind::Card => is_teaser(f),
        Kind::Meta => f.chars <= META_MAX_CHARS && !f.headline && !f.heading,
        Kind::Author => f.chars <= AUTHOR_MAX_CHARS && !f.headline,
        Kind::Paragraph => {
            let label = f.chars - f.link_chars;
            f.away_chars > label
                && label <= PROMO_MAX_LABEL
                && f.address_chars == 0
                && f.ends_in_link
        }
        Kind::Heading | Kind::Other => false,
    }
}

#[cfg(test)]
mod tests {
    use dom_query::Document;

    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.split('\n').map(str::to_owned).collect()
    }

    #[test]
    fn headings_without_content_are_dropped() {
        let mut l = lines(
            "# Title\n\n## Kept\n\nText\n\n## Empty\n\n# Next\n\nMore\n\n## Comments\n\n### Log in",
        );
        drop_orphan_headings(&mut l);
        assert_eq!(l, lines("# Title\n\n## Kept\n\nText\n\n# Next\n\nMore"));
        // A heading followed by a deeper one, or by one of the same rank, stays.
        let mut l = lines("# Guide\n\n## Part one\n\nText\n\n#### Aside\n\n#### Subtitle\n\nText");
        let before = l.clone();
        drop_orphan_headings(&mut l);
        assert_eq!(l, before);
        // A line that merely starts with a hash is not a heading.
        let mut l = lines("Text\n\n#hashtag");
        drop_orphan_headings(&mut l);
        assert_eq!(l, lines("Text\n\n#hashtag"));
        let mut l = lines("# Coming soon\n\n## Stay tuned");
        drop_orphan_headings(&mut l);
        assert_eq!(l, lines("# Coming soon\n\n## Stay tuned"));
    }

    proptest::proptest! {
        /// A link's text names an address where it holds `://`, `@` or `www.`, wherever they
        /// stand, across multibyte characters.
        #[test]
        fn a_link_text_names_an_address_where_it_holds_one_of_its_marks(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![":", "/", "//", "@", "w", "ww", "www", ".", "é", "a", " "]),
                0..12,
            ),
        ) {
            let text: String = pieces.concat();
            let marked = text.contains("://") || text.contains('@') || text.contains("www.");
            proptest::prop_assert_eq!(names_address(&text), marked, "{:?}", text);
        }
    }

    #[test]
    fn a_memo_knowing_another_pass_s_links_reads_them_back_without_resolving_them() {
        let page = Url::parse("https://example.com/a/post").unwrap();
        let mut first = Memo::new(&page);
        assert!(first.leaves_the_page("/b/"));
        // A note that resolving `/b/` would not give (it goes to another page): a memo that
        // reads it back did not resolve the link again.
        first.resolved("/b/", Some(&page));
        let mut next = Memo::new(&page).with_cards().knowing(first.take_resolved());
        assert!(!next.leaves_the_page("/b/"));
        assert!(next.leaves_the_page("/c/"));
        // Taken, the notes are no longer the first memo's: it resolves the link again.
        assert!(first.leaves_the_page("/b/"));
    }

    #[test]
    fn a_link_leaves_the_page_unless_it_is_a_fragment_a_picture_or_the_page_itself() {
        let page = Url::parse("https://example.com/a/post?id=1#top").unwrap();
        let mut memo = Memo::new(&page);
        let cases = [
            ("#comments", false),
            (" /img/Photo.JPG?w=2 ", false),
            ("post?id=1#reply", false),
            ("https://EXAMPLE.com/a/post?id=1", false),
            ("post?id=2", true),
            ("/b/", true),
            ("https://other.example/", true),
            ("http://[bad", true),
        ];
        // Asked twice: the second answer, from what was resolved, is the first.
        for _ in 0..2 {
            for (href, leaves) in cases {
                assert_eq!(memo.leaves_the_page(href), leaves, "{href}");
            }
        }
    }

    #[test]
    fn the_links_the_survey_resolved_are_not_resolved_again_and_answer_alike() {
        use crate::extract::meta::PageSurvey;
        let page = Url::parse("https://example.com/a/post?id=1").unwrap();
        let hrefs = [
            "#comments",
            " post?id=1#reply ",
            "https://EXAMPLE.com/a/post?id=1",
            "post?id=2",
            "/b/",
            "mailto:someone@example.com",
            "http://[bad",
            "/b/",
        ];
        let anchors: String = hrefs
            .iter()
            .map(|h| format!("<a href='{h}'>x</a>"))
            .collect();
        for (head, told) in [("", 7), ("<base href='https://other.example/'>", 0)] {
            let doc = Document::from(format!("<html><head>{head}</head><body>{anchors}</body>"));
            let mut memo = Memo::new(&page);
            PageSurvey::of(&doc).links(&doc, &page, usize::MAX, |href, target| {
                memo.resolved(href, target);
            });
            // Told once per distinct value, and only when the page's own address is the
            // base the survey resolves against.
            assert_eq!(memo.leaves.len(), told, "{head}");
            let mut alone = Memo::new(&page);
            for href in hrefs {
                assert_eq!(
                    memo.leaves_the_page(href),
                    alone.leaves_the_page(href),
                    "{href}"
                );
            }
            if told > 0 {
                assert_eq!(memo.leaves.len(), told, "nothing resolved again");
            }
        }
    }

    #[test]
    fn a_class_name_is_read_once_per_page_and_says_what_it_says_alone() {
        let page = Url::parse("https://example.com/").unwrap();
        let mut memo = Memo::new(&page);
        let values = [
            "post-byline",
            "entry-meta",
            "menu-item",
            "post-byline",
            "entry-meta",
        ];
        for value in values {
            assert_eq!(memo.sense(value), Sense::of(value), "{value}");
        }
        assert_eq!(memo.senses.len(), 3);
        assert!(memo.sense("post-byline").author && memo.sense("entry-meta").meta);
    }

    /// A value read a token at a time, each token's reading kept for the page, says what
    /// the value says read whole: for tokens of every kind (chrome, content, layout,
    /// comments and their states, reviews, authors, metadata, posts, taxonomy terms,
    /// neutral and hidden ones) in every pair and order.
    #[test]
    fn a_value_read_a_token_at_a_time_says_what_it_says_whole() {
        let tokens = [
            "share-buttons",
            "entry-content",
            "sidebar",
            "comments",
            "comments-open",
            "reviews",
            "author-box",
            "entry-author-jane_doe",
            "post-meta",
            "hentry",
            "category-social-issues",
            "entry-category-news",
            "post-tag",
            "no-sidebar",
            "js-social",
            "sr-only",
            "cookie-banner",
            "elementor-widget-container",
            "related-posts",
            "col-md-4",
            "",
        ];
        let page = Url::parse("https://example.com/").unwrap();
        let mut memo = Memo::new(&page);
        let mut differ = 0;
        for a in tokens {
            for b in tokens {
                for value in [format!("{a} {b}"), format!(" {b}\t{a} {b} ")] {
                    let whole = Sense::of(&value);
                    assert_eq!(memo.sense(&value), whole, "{value:?}");
                    differ += usize::from(whole != Sense::of(a));
                }
            }
        }
        // The pairs say different things: the check is not of one answer.
        assert!(differ > tokens.len() * tokens.len(), "{differ}");
        assert_eq!(memo.tokens.len(), tokens.len() - 1);
    }

    const PROSE: &str = "The committee met on Tuesday and agreed to publish the full report before the end of the month of May.";

    #[test]
    fn a_dateline_keeps_its_date_and_byline_and_loses_its_counts() {
        assert_eq!(
            without_counts("January 10, 2020 21 minutes - 4312 words"),
            "January 10, 2020"
        );
        assert_eq!(
            without_counts("Posted by Jane on May 3, 2012 | 3 Comments | Permalink"),
            "Posted by Jane on May 3, 2012"
        );
        assert_eq!(without_counts("Leave a comment"), "Leave a comment");
        for dated in [
            "17/10/12",
            "October 18th, 2012 by Mirko",
            "Posted on: 08-7-2012",
            "Sept 3",
        ] {
            assert!(says_a_date(dated), "{dated}");
        }
        for undated in ["Iwona Kurz", "By Jane Doe", "Mayor Smith", "1-2"] {
            assert!(!says_a_date(undated), "{undated}");
        }
    }

    #[test]
    fn a_section_headed_by_a_script_link_is_not_a_teaser() {
        // An accordion's questions are links that run the page's script: they go nowhere,
        // so the sections under them are the page's, not teasers for other pages. A heading
        // linking to another page still makes one.
        let base = Url::parse("https://example.com/retire").unwrap();
        let doc = Document::from(
            "<html><body><div><h1>Retirement</h1><p>How much you need depends on the life \
             you want to lead, the age at which you stop working, and what you have saved so \
             far, in every account you hold; a plan weighs them all together.</p><div><h3>\
             <a href='javascript:void(0);'>Where should I retire?</a></h3><div>Consider the \
             cost of living there.</div></div><div><h3><a href=' JavaScript:open(2)'>How \
             long will my money last?</a></h3><div>It depends on what you spend.</div></div>\
             <div><h3><a href=/news>Markets today</a></h3><div>Stocks rose again.</div></div>\
             </div></body></html>",
        );
        let body = doc.body().unwrap();
        prune(body, &mut Memo::new(&base));
        let text = render(body).join("\n");
        assert!(text.contains("cost of living"), "{text}");
        assert!(text.contains("what you spend"), "{text}");
        assert!(!text.contains("Stocks rose"), "{text}");
    }

    #[test]
    fn only_the_headline_s_dateline_survives_pruning() {
        let base = Url::parse("https://example.com/").unwrap();
        let doc = Document::from(
            "<html><body><div><h1 data-mcp-web-title>The Headline Here</h1><div \
             class=entry-meta>May 3, 2012 by Jane</div><p>The article's text, long enough to \
             be the content of the page and more than what the metadata holds, by far, so \
             that the cap on pruning does not keep the metadata.</p><div class=entry-meta>\
             June 4, 2013 by Joe</div></div></body></html>",
        );
        let body = doc.body().unwrap();
        let left = prune(body, &mut Memo::new(&base));
        let text = render(body).join("\n");
        assert!(text.contains("May 3, 2012 by Jane"), "{text}");
        assert!(!text.contains("June 4, 2013"), "{text}");
        // What is left is counted as the page shows it, the metadata removed.
        assert_eq!(left, visible_len(&body.text()));
        let heading = doc.select_single("h1").nodes()[0];
        assert_eq!(dateline(heading).as_deref(), Some("May 3, 2012 by Jane"));
    }

    /// A long menu: four lists of eight links under `path` ("Topic number 00" to "37"), each
    /// list of its own kind.
    fn topic_menu(path: &str) -> String {
        (0..4)
            .map(|l| {
                let items: String = (0..8)
                    .map(|i| format!("<li><a href={path}/{l}/{i}>Topic number {l}{i}</a></li>"))
                    .collect();
                format!("<ul class=topics-{}>{items}</ul>", ["a", "b", "c", "d"][l])
            })
            .collect()
    }

    #[test]
    fn a_landing_page_s_cards_beside_a_long_menu_are_kept_by_the_pass_that_keeps_cards() {
        let base = Url::parse("https://example.com/actions/workflows").unwrap();
        let menu = topic_menu("/actions");
        let cards: String = (0..4)
            .map(|i| {
                format!(
                    "<div class=card><h3><a href=/actions/guide-{i}>Guide {i}</a></h3><p>How                      to write workflow {i} for your project.</p></div>"
                )
            })
            .collect();
        let page = format!(
            "<html><body><div class=menu>{menu}</div><div><h1>Workflows</h1>{cards}</div>\
             </body></html>"
        );
        // The menu's links hold most of the text: the cards are promotions beside it…
        let doc = Document::from(page.clone());
        let body = doc.body().unwrap();
        prune(body, &mut Memo::new(&base));
        let text = render(body).join("\n");
        assert!(!text.contains("workflow 2"), "{text}");
        // …but against the text the menu leaves, they are the page's, in the pass that
        // keeps cards.
        let doc = Document::from(page);
        let body = doc.body().unwrap();
        prune(body, &mut Memo::new(&base).with_cards());
        let text = render(body).join("\n");
        assert!(text.contains("workflow 2"), "{text}");
        assert!(!text.contains("Topic number 27"), "{text}");
    }

    #[test]
    fn a_grid_s_wrapper_left_with_its_more_link_keeps_the_cards_kept() {
        let base = Url::parse("https://example.com/projects").unwrap();
        let cards: String = (0..4)
            .map(|i| {
                format!(
                    "<div class=col><div class=card><h4><a href=/article/{i}>Project {i}</a>\
                     </h4><p>How to build project {i} on a breadboard, for little money and \
                     in an afternoon.</p></div></div>"
                )
            })
            .collect();
        let doc = Document::from(format!(
            "<html><body><h1>Gadgets</h1><div class=row>{cards}<a href=/more>View more \
             articles</a></div></body></html>"
        ));
        let body = doc.body().unwrap();
        prune(body, &mut Memo::new(&base));
        let text = render(body).join("\n");
        for i in 0..4 {
            assert!(
                text.contains(&format!("How to build project {i}")),
                "{text}"
            );
        }
        // Teasers that hold a small part of the text are still promotions, and go with
        // their wrapper.
        let story = format!("<p>{PROSE}</p>").repeat(12);
        let doc = Document::from(format!(
            "<html><body><h1>Story</h1>{story}<div class=row>{cards}<a href=/more>More</a>\
             </div></body></html>"
        ));
        let body = doc.body().unwrap();
        prune(body, &mut Memo::new(&base));
        let text = render(body).join("\n");
        assert!(!text.contains("How to build project"), "{text}");
        assert!(text.contains("The committee met"), "{text}");
    }

    #[test]
    fn a_grid_of_rows_of_linked_cards_keeps_its_cards_and_a_sidebar_of_lists_does_not() {
        let base = Url::parse("https://example.com/recipes/dinner").unwrap();
        // Eight rows of four cards, each card wholly a link: one row holds an eighth of
        // the text, the rows together most of it.
        let rows: String = (0..8)
            .map(|r| {
                let cards: String = (0..4)
                    .map(|c| {
                        format!(
                            "<a class=card href=/recipe/{r}-{c}><div class=media><img \
                             src=/i/{r}{c}.jpg></div><div class=card-title><span>Dinner \
                             number {r}-{c} for a weeknight</span></div></a>"
                        )
                    })
                    .collect();
                format!("<div class=row-wrap><div class=card-list>{cards}</div></div>")
            })
            .collect();
        let page = |inside: &str| {
            Document::from(format!(
                "<html><body><h1>Dinner</h1><p>What is for dinner tonight?</p>\
                 <div class=grid>{inside}</div></body></html>"
            ))
        };
        let doc = page(&rows);
        let body = doc.body().unwrap();
        prune(body, &mut Memo::new(&base).with_cards());
        let text = render(body).join("\n");
        for (r, c) in [(0, 0), (3, 2), (7, 3)] {
            assert!(text.contains(&format!("Dinner number {r}-{c} ")), "{text}");
        }
        // Without the cards asked for, they are link blocks.
        let doc = page(&rows);
        let body = doc.body().unwrap();
        prune(body, &mut Memo::new(&base));
        assert!(!render(body).join("\n").contains("Dinner number"));
        // Layout columns: widgets of link lists on either side of a post with its tag lists.
        // The columns hold all the text, the post's most of it: they are no grid, and each
        // column's widgets hold too little of the text to be cards.
        let widgets: String = (0..3)
            .map(|w| {
                let items: String = (0..6)
                    .map(|i| format!("<li><a href=/category/{w}-{i}>Category {w}-{i}</a></li>"))
                    .collect();
                format!("<div class=module><h2>Widget {w}</h2><ul>{items}</ul></div>")
            })
            .collect();
        let tags: String = (0..3)
            .map(|t| format!("<ul class=tags><li><a href=/tag/{t}>Tag {t}</a></li></ul>"))
            .collect();
        let doc = Document::from(format!(
            "<html><body><div class=columns><div><div class=pkg>{widgets}</div></div><div>\
             <div class=pkg><h1>Sunday</h1>{}<div class=tagbox>{tags}</div></div></div><div>\
             <div class=pkg>{widgets}</div></div></div></body></html>",
            format!("<p>{PROSE}</p>").repeat(12)
        ));
        let body = doc.body().unwrap();
        prune(body, &mut Memo::new(&base).with_cards());
        let text = render(body).join("\n");
        assert!(text.contains("The committee met"), "{text}");
        assert!(!text.contains("Category 2-"), "{text}");
    }

    #[test]
    fn a_pass_knows_whether_the_pass_that_keeps_cards_would_prune_as_it_did() {
        let base = Url::parse("https://example.com/recipes/dinner").unwrap();
        // What each pass leaves of a page, and whether the first said the other's would be
        // the same.
        let passes = |page: &str| {
            let doc = Document::from(page);
            let mut memo = Memo::new(&base);
            prune(doc.body().unwrap(), &mut memo);
            let first = render(doc.body().unwrap()).join("\n");
            let doc = Document::from(page);
            prune(doc.body().unwrap(), &mut Memo::new(&base).with_cards());
            (memo.alike(), first, render(doc.body().unwrap()).join("\n"))
        };
        let linked_cards = |n: usize| -> String {
            (0..n)
                .map(|c| {
                    format!(
                        "<a class=card href=/recipe/{c}><div class=card-title><span>Dinner \
                         number {c} for a weeknight</span></div></a>"
                    )
                })
                .collect()
        };
        // A grid of cards each wholly a link, most of the page: the other pass keeps them.
        let grid = format!(
            "<html><body><h1>Dinner</h1><div class=grid>{}</div></body></html>",
            linked_cards(12)
        );
        // Teasers beside a long menu: weighed against what the menu leaves, they are kept.
        let menu = topic_menu("/topics");
        let teasers: String = (0..4)
            .map(|i| {
                format!(
                    "<div class=card><h3><a href=/guide-{i}>Guide {i}</a></h3><p>How to write \
                     workflow {i} for your project.</p></div>"
                )
            })
            .collect();
        let landing = format!(
            "<html><body><div class=menu>{menu}</div><div><h1>Workflows</h1>{teasers}</div>\
             </body></html>"
        );
        for page in [&grid, &landing] {
            let (alike, first, cards) = passes(page);
            assert!(!alike, "{page}");
            assert_ne!(first, cards, "{page}");
        }
        // A story with a short row of the same cards under it, and a menu beside it: both
        // passes remove them.
        let story = format!(
            "<html><body><div class=menu>{menu}</div><h1>Story</h1>{}<div class=row>{}</div>\
             </body></html>",
            format!("<p>{PROSE}</p>").repeat(12),
            linked_cards(4)
        );
        let (alike, first, cards) = passes(&story);
        assert!(alike);
        assert_eq!(first, cards);
        assert!(!first.contains("Dinner number") && !first.contains("Topic number"));
    }

    #[test]
    fn a_caption_holding_a_heading_is_a_card_s_text_not_metadata() {
        let base = Url::parse("https://example.com/shop").unwrap();
        let cards: String = (0..4)
            .map(|i| {
                format!(
                    "<li class=product><div class=product-caption><h3>Gear bag {i}</h3><p>A \
                     bag for the gear of trip {i}.</p></div><div class=entry-meta>May {i}, \
                     2024</div></li>"
                )
            })
            .collect();
        let doc = Document::from(format!(
            "<html><body><ul class=products>{cards}</ul></body></html>"
        ));
        let body = doc.body().unwrap();
        prune(body, &mut Memo::new(&base));
        let text = render(body).join("\n");
        assert!(text.contains("A bag for the gear of trip 3."), "{text}");
        assert!(!text.contains("May 3, 2024"), "{text}");
    }

    #[test]
    fn a_listing_s_cards_keep_their_bylines_and_a_gallery_its_captions_not() {
        let base = Url::parse("https://example.com/news").unwrap();
        let rows: String = (0..4)
            .map(|i| {
                format!(
                    "<div class=item><h3><a href=/story-{i}>Story {i}</a></h3><p>What                      happened on day {i} of the long trial.</p><div class=byline>Jane Roe                      on Mar 0{i}</div><div class=byline>Filed in <a rel='category tag' \
                     href=/c/law>Law</a></div></div>"
                )
            })
            .collect();
        let figures: String = (0..4)
            .map(|i| {
                format!(
                    "<div class=shot><figure><a href=https://other.example/p{i}><img                      src=/p{i}.jpg></a><div class=caption>Shot {i} of the harbour</div>\
                     </figure></div>"
                )
            })
            .collect();
        let doc = Document::from(format!(
            "<html><body><h1>News</h1><div class=date>Mar 09</div><div class=rows>{rows}\
             </div><div class=gallery>{figures}</div></body></html>"
        ));
        let body = doc.body().unwrap();
        prune(body, &mut Memo::new(&base));
        let text = render(body).join("\n");
        assert!(text.contains("Jane Roe on Mar 03"), "{text}");
        // A card's list of the site's sections (links whose `rel` says `tag`) is no byline.
        assert!(!text.contains("Filed in"), "{text}");
        assert!(!text.contains("Shot 3 of the harbour"), "{text}");
        assert!(!text.contains("Mar 09"), "{text}");
    }

    #[test]
    fn a_product_page_s_carousel_of_other_products_is_removed() {
        let base = Url::parse("https://shop.example.com/p/walnut-desk").unwrap();
        let card = |i: usize, href: &str| {
            format!(
                "<li class=slide><div class=card><img src=/i/{i}.jpg alt=''><h3>Oak desk {i} \
                 with two drawers</h3><span>$1{i}9.00</span></div><a href={href} \
                 aria-label='Oak desk {i}'></a></li>"
            )
        };
        let page = |cards: &str| {
            format!(
                "<html><body><h1>Walnut desk</h1><p>{PROSE}</p><ul class=features><li>Solid \
                 walnut top</li><li>Steel legs</li><li>Cable tray</li></ul><h2>Customers \
                 also viewed</h2><ul class=carousel>{cards}</ul></body></html>"
            )
        };
        let run = |html: &str, product: bool| {
            let doc = Document::from(html);
            let body = doc.body().unwrap();
            let mut memo = Memo::new(&base);
            memo.set_product(product);
            let removed = if product {
                drop_carousels(body, &mut memo)
            } else {
                0
            };
            (render(body).join("\n"), removed)
        };
        // The first slide may carry a class the others lack.
        let cards: String = (0..5)
            .map(|i| card(i, &format!("/p/oak-desk-{i}")))
            .collect::<String>()
            .replacen("class=slide", "class='slide-active slide'", 1);
        let (text, removed) = run(&page(&cards), true);
        assert!(!text.contains("Oak desk 0"), "{text}");
        assert!(!text.contains("Oak desk 4"), "{text}");
        assert!(removed > 0);
        // The product's own text and its lists stay.
        assert!(text.contains("The committee met"), "{text}");
        assert!(text.contains("Cable tray"), "{text}");
        // Not on a page that is not one product's, nor cards without a link away (a gallery
        // of the product's own pictures with captions), nor two cards.
        let (text, _) = run(&page(&cards), false);
        assert!(text.contains("Oak desk 4"), "{text}");
        let own: String = (0..5).map(|i| card(i, &format!("/i/{i}.jpg"))).collect();
        let (text, removed) = run(&page(&own), true);
        assert!(text.contains("Oak desk 4"), "{text}");
        assert_eq!(removed, 0);
        let two: String = (0..2)
            .map(|i| card(i, &format!("/p/oak-desk-{i}")))
            .collect();
        let (text, _) = run(&page(&two), true);
        assert!(text.contains("Oak desk 1"), "{text}");
    }

    #[test]
    fn a_line_of_too_many_words_opens_no_comments_before_or_after_lowercasing() {
        let words = |n: usize, word: &str| vec![word; n].join(" ");
        // At the bound and past it.
        for (line, opens) in [
            (
                format!("Comments {}", words(FOOTER_MAX_WORDS - 1, "x")),
                false,
            ),
            (
                format!("12 comments {}", words(FOOTER_MAX_WORDS - 2, "x")),
                true,
            ),
            (
                format!("12 comments {}", words(FOOTER_MAX_WORDS - 1, "x")),
                false,
            ),
            (
                format!("12 comments {}", words(FOOTER_MAX_WORDS - 3, "x")),
                true,
            ),
            (
                format!("12 COMMENTS {}", words(FOOTER_MAX_WORDS - 2, "Ab")),
                true,
            ),
            (
                format!("## Leave a reply {}", words(FOOTER_MAX_WORDS, "x")),
                false,
            ),
        ] {
            assert_eq!(opens_comments(&line), opens, "{line}");
        }
    }

    #[test]
    fn a_comment_section_s_remains_end_the_text() {
        let text = format!("# Title\n\n{PROSE}\n\n{PROSE}\n\n");
        for opener in [
            "## 12 Responses to “Title”",
            "No comments yet.",
            "## Leave a Reply",
            "Kommentare (3)",
            "Keine Kommentare",
        ] {
            let mut l = lines(&format!("{text}{opener}\n\nName\n\n- Recent posts"));
            drop_comment_section(&mut l);
            assert_eq!(
                l,
                lines(&format!("# Title\n\n{PROSE}\n\n{PROSE}")),
                "{opener}"
            );
        }
        // A short post: the opener comes after its last prose line, however long the
        // sidebar under it.
        let sidebar = "- Hello stranger, let's connect, and follow the blog on the networks \
                       it is on, every one of them, as often as you like";
        let mut l = lines(&format!(
            "# Short\n\nA short post.\n\nNo comments yet.\n\n{sidebar}\n{sidebar}"
        ));
        drop_comment_section(&mut l);
        assert_eq!(l, lines("# Short\n\nA short post."));
        // A paper's discussion, a remark about comments, a teaser's link and an opener in the
        // first half of the text, prose after it, stay.
        for kept in [
            format!("{text}## Discussion\n\n{PROSE}"),
            format!("{text}Comments welcome here.\n\n{PROSE}"),
            format!("{text}- Story\n  Post a comment\n\n{PROSE}"),
            format!("# Title\n\nComments\n\n{PROSE}\n\n{PROSE}"),
        ] {
            let mut l = lines(&kept);
            drop_comment_section(&mut l);
            assert_eq!(l, lines(&kept));
        }
    }

    #[test]
    fn footer_notes_and_widgets_after_the_last_prose_line_are_dropped() {
        let mut l = lines(&format!(
            "# Report\n\n{PROSE}\n\nPosted on May 12, 2005\n\nCopyright 2005. All rights reserved.\n\n\
             3 comments\n\n## Links\n\n- Home\n- Archive\n\n## Twitter feed\n\n- Follow me"
        ));
        drop_tail_chrome(&mut l);
        assert_eq!(l, lines(&format!("# Report\n\n{PROSE}")));
        // A widget area: a list whose items open with headings, however long their text.
        let mut l = lines(&format!(
            "# Report\n\n{PROSE}\n\n- ## About:\n  {PROSE}\n- ## Email me:\n  me(at)example\n\
             - ### Subscribe"
        ));
        drop_tail_chrome(&mut l);
        assert_eq!(l, lines(&format!("# Report\n\n{PROSE}")));
        // A product's specifications, each a label and its value, are not a widget.
        let specs = format!(
            "# Pack\n\n{PROSE}\n\n###### SPECS:\n\n- Load Range: 30 – 50 lbs.\n- Main Fabric: \
             Nylon Dobby\n- SM Volume: 62 L\n- Made in Vietnam"
        );
        let mut l = lines(&specs);
        drop_tail_chrome(&mut l);
        assert_eq!(l, lines(&specs));
        // A numbered list of headed items is the article's own.
        let kept = format!("# Report\n\n{PROSE}\n\n1. ## First\n   {PROSE}\n2. ## Second");
        let mut l = lines(&kept);
        drop_tail_chrome(&mut l);
        assert_eq!(l, lines(&kept));
    }

    #[test]
    fn a_list_of_headed_items_like_the_content_s_own_stays_in_the_tail() {
        // The page's features, each a headed item, and one more list of them after its
        // last paragraph.
        let kept = format!(
            "# Plans\n\n- #### Tasks\n  Stay on top of your lists\n- #### Boards\n  Drag \
             tasks along\n\n{PROSE}\n\n- #### Wiki\n  Keep your documents\n- #### Files\n  \
             Store them all"
        );
        let mut l = lines(&kept);
        drop_tail_chrome(&mut l);
        assert_eq!(l, lines(&kept));
        // Items under headings of another level than the content's are a widget area.
        let mut l = lines(&format!(
            "# Plans\n\n- #### Tasks\n  Stay on top of your lists\n\n{PROSE}\n\n- ## About\n  \
             Me"
        ));
        drop_tail_chrome(&mut l);
        assert_eq!(
            l,
            lines(&format!(
                "# Plans\n\n- #### Tasks\n  Stay on top of your lists\n\n{PROSE}"
            ))
        );
    }

    #[test]
    fn the_content_s_own_tail_stays() {
        // A list with a long item, a list that runs into prose-less text, a short closing
        // line and notes before the last prose line are the content's.
        let text = format!(
            "Contact us at the desk.\n\n{PROSE}\n\n## Sources\n\n- The minutes of the committee's meeting of 12 May\n- Report\n\n\
             ## Ingredients\n\n- Salt\n- Flour\n\nThanks for reading!"
        );
        let mut l = lines(&text);
        drop_tail_chrome(&mut l);
        assert_eq!(l, lines(&text));
        // Without a prose line there is no tail to judge.
        let mut l = lines("## Links\n\n- Home\n\nAll rights reserved.");
        drop_tail_chrome(&mut l);
        assert_eq!(l, lines("## Links\n\n- Home\n\nAll rights reserved."));
    }

    #[test]
    fn a_product_s_recommendations_go_with_their_section() {
        let mut l = lines(&format!(
            "# Kettle\n\n{PROSE}\n\n## You may also like\n\n### Teapot\n\n$20\n\n\
             ## Specifications\n\n- Volume: 1.7 l\n\nCustomers also viewed\n\n{PROSE}"
        ));
        drop_recommendations(&mut l);
        let kept =
            format!("# Kettle\n\n{PROSE}\n\n## Specifications\n\n- Volume: 1.7 l\n\n{PROSE}");
        assert_eq!(l, lines(&kept));
        // A long line that names them is prose, and the first line is the page's own.
        let text = format!(
            "# Related products\n\nShe said that the related products we sell are made in the same workshop.\n\n{PROSE}"
        );
        let mut l = lines(&text);
        drop_recommendations(&mut l);
        assert_eq!(l, lines(&text));
    }

    #[test]
    fn a_product_s_repeated_lines_are_said_once() {
        let slide = "“The best kettle I have owned, and it boils in no time.”";
        let mut l = lines(&format!(
            "# Kettle\n\n{PROSE}\n\n- {slide}\n- {slide}\n\n{slide}\n\n| Volume | 1.7 l |\n| Volume | 1.7 l |\n\nIn stock\n\nIn stock"
        ));
        drop_repeated_lines(&mut l, None);
        assert_eq!(
            l,
            lines(&format!(
                "# Kettle\n\n{PROSE}\n\n- {slide}\n\n| Volume | 1.7 l |\n| Volume | 1.7 l |\n\nIn stock\n\nIn stock"
            ))
        );
    }

    #[test]
    fn a_product_s_name_said_again_under_its_title_is_dropped() {
        // The answer's title line says the name: a line that says it again (over the
        // gallery, in the buy box, on a variant's card) is dropped, however short; a
        // line that says more, or a table row, stays.
        let mut l = lines(&format!(
            "Steel Kettle\n\n{PROSE}\n\n## Steel kettle\n\n- Steel Kettle\n\n\
             Steel Kettle 1.7 l\n\n| Steel Kettle |\n\nIn stock"
        ));
        drop_repeated_lines(&mut l, Some("Steel Kettle"));
        assert_eq!(
            l,
            lines(&format!(
                "{PROSE}\n\nSteel Kettle 1.7 l\n\n| Steel Kettle |\n\nIn stock"
            ))
        );
    }
}
