//! HTML, as a pipeline of one job a step: the page's marks and title
//! ([`meta`](super::meta), [`title`](super::title)), the chrome and boilerplate filters
//! ([`clean`](super::clean)), content selection with its widening and fallback
//! ([`select`](super::select)), the headline and its dateline put back, the tail's chrome
//! dropped, the JavaScript-shell notice, and the flag of an answer that holds a small part
//! of the page.

use std::cell::RefCell;

use ::url::Url;
use dom_query::{Document, NodeId};

use super::clean::{Cleaned, clean_and_prune};
use super::meta::{PageSurvey, put_declared};
use super::parse::{DEPTH_LIMIT, Parsed, parse_page};
use super::prune::{
    Memo, Resolved, dateline, drop_comment_section, drop_recommendations, drop_repeated_lines,
    drop_tail_chrome,
};
use super::select::{
    MainText, cards_region_text, fits, group_region_text, main_text, prose_chars,
    prose_region_text, visible_chars,
};
use super::title::{
    PageTitle, drop_repeated_headings, drop_reply_subjects, first_attached, headline,
    mark_title_headings, put_dateline, readable_title,
};
use super::{BodyKind, Extracted, Flags, JAVASCRIPT_SHELL_NOTICE};

/// An answer with prose gives way to the page's cards when the boilerplate filter removed
/// at least this many times its visible characters of them (see [`with_grid`]).
const GRID_MIN_GROWTH: usize = 2;
/// …or this many times, when that pass put the grid in beside the lead its selection kept
/// (see [`Memo::over_lead`]).
const LED_GRID_MIN_GROWTH: usize = 1;
/// A page with scripts and less visible text than this looks like a JavaScript shell.
const SHELL_MAX_TEXT: usize = 200;
/// …provided its markup is at least this large.
const SHELL_MIN_BYTES: usize = 512;

/// An answer with less prose than this (visible characters in lines of prose, see
/// [`prose_chars`]) may have lost the page: its cards are looked for…
const ANSWER_MIN_PROSE: usize = 300;
/// …and the answer with them replaces it when it has at least this many times its visible
/// characters…
const CARDS_MIN_GROWTH: usize = 2;
/// …and, should the answer still have less prose, the page's prose region replaces it when
/// it has prose and at least this many times its visible characters.
const REGION_MIN_GROWTH: usize = 5;
/// How many times the visible characters of a one-line answer a page's region of cards
/// shows to replace it.
const CARDS_REGION_MIN_GROWTH: f64 = 1.5;
/// The largest share of what a region of cards adds to a one-line answer that may be
/// prose lines.
const CARDS_REGION_MAX_PROSE: f64 = 0.25;
/// An answer that kept no prose gives way to the page's largest repeated group when that
/// has at least this many times its visible characters.
const GROUP_MIN_GROWTH: usize = 2;
/// A page of more than this share of the elements it may build (see
/// [`max_elements`](super::max_elements)) is large: content selection and what reads the
/// page after it parse and clean it again rather than copy its tree (see
/// [`main_text`]).
const LARGE_SHARE: usize = 4;
/// A large page of at most this share of the elements it may build keeps one copy of its
/// cleaned document beside selection's, which selection's attempts and what reads the page
/// after it copy rather than make again: two trees of it hold no more than one of a page at
/// the cap.
const COPY_SHARE: usize = 2;
/// An answer is partial when the page shows at least this many times its visible
/// characters…
const PARTIAL_MIN_RATIO: usize = 10;
/// …or when what the chrome and boilerplate filters left of the page holds at least this
/// many times them (selection left out content the filters kept)…
const PARTIAL_MIN_KEPT_RATIO: usize = 2;
/// …and the page shows (or the filters left) at least this many visible characters.
const PARTIAL_MIN_PAGE: usize = 1000;

/// Extracts an HTML body, never answering a fragment of the page: an answer that kept no
/// prose may have lost a page made of cards (a grid of products, a feed of posts each
/// wholly a link), which the boilerplate filter takes for link blocks: the page is
/// extracted again with the cards of a repeated group that holds much of its text kept (see
/// [`Memo::with_cards`]; not when the first pass's filters found that it would keep just
/// what they kept, see [`Memo::alike`]), and that answer is taken when it is much longer.
/// An answer that still kept no prose, beside a repeated group that holds most of the
/// page's text (a grid of products named under headings, rows of results), gives way to the
/// group, what it kept beside the group first (see [`group_region_text`]). An answer that
/// still kept no prose gives way to the page's prose region when that holds much more (see
/// [`region_replaces`]). An answer with prose beside a grid of cards in the page's main
/// content that held much more gives way to the pass that keeps them (see [`with_grid`]).
/// An answer that still holds a small part of the text the page shows, or under half of
/// what the chrome and boilerplate filters left of it, is flagged [`Flags::partial`] (see
/// [`is_partial`]), never silently short. The page's first `max_links` links are kept, and
/// its markup read up to its first `max_elements` elements.
pub(crate) fn extract_html(
    body: &str,
    base: &Url,
    max_links: usize,
    max_elements: usize,
) -> Extracted {
    let mut source = Source {
        body,
        max_elements,
        parsed: None,
        copies: false,
        resolved: RefCell::default(),
    };
    let first = extract_pass(&mut source, base, max_links, Memo::new(base));
    let (shown, product) = (first.shown, first.product);
    let mut answer = answer_of(&mut source, base, max_links, first);
    // On one product's page, what offers other products and what a carousel or a second
    // layout says again, whichever answer stands.
    if product {
        drop_recommendations(&mut answer.lines);
        drop_repeated_lines(&mut answer.lines, answer.title.as_deref());
    }
    answer.flags.partial = !answer.flags.javascript_shell && is_partial(&answer.lines, &shown);
    answer
}

/// A page's markup and, once its first pass has parsed it and found it not large, a copy
/// of its document as parsed: the later passes and the steps that read the cleaned page
/// again start from a copy of that, node for node the document parsing the markup again
/// builds, at a small part of the cost.
struct Source<'b> {
    /// The page's markup.
    body: &'b str,
    /// The elements the page may build (see [`max_elements`](super::max_elements)).
    max_elements: usize,
    /// The document as parsed, kept unless the page is large.
    parsed: Option<Parsed>,
    /// Whether two trees of the page fit where one of a page at the cap does (the first
    /// pass found it within [`COPY_SHARE`]).
    copies: bool,
    /// Where the page's links go, as the passes and steps so far resolved them: each takes
    /// it and gives it back with what it resolved, one table for the page.
    resolved: RefCell<Resolved>,
}

impl Source<'_> {
    /// The page parsed: a copy of the document kept, else the markup parsed.
    fn parse(&self) -> Parsed {
        match &self.parsed {
            Some(parsed) => parsed.clone(),
            None => parse_page(self.body, DEPTH_LIMIT, self.max_elements),
        }
    }

    /// Keeps the document as parsed for the steps that read the page again after its
    /// passes, when no pass kept it (a large page) and two trees of the page fit: those
    /// steps hold one cleaned document at a time, so the page is parsed once for all of
    /// them rather than once for each.
    fn keep_for_regions(&mut self) {
        if self.parsed.is_none() && self.copies {
            self.parsed = Some(parse_page(self.body, DEPTH_LIMIT, self.max_elements));
        }
    }
}

/// The answer of a page whose first pass answered `first`: that, unless it kept no prose
/// (see [`extract_html`]).
fn answer_of(source: &mut Source<'_>, base: &Url, max_links: usize, first: Pass) -> Extracted {
    let Pass {
        answer: first,
        grid,
        product,
        alike,
        ..
    } = first;
    if first.flags.javascript_shell {
        return first;
    }
    if prose_chars(&first.lines) >= ANSWER_MIN_PROSE {
        return with_grid(source, base, max_links, first, grid);
    }
    // The pass that keeps cards, unless its filters would keep just what the first pass's
    // did: it would then answer the same.
    let cards = (!alike)
        .then(|| extract_pass(source, base, max_links, Memo::new(base).with_cards()).answer)
        .filter(|cards| {
            visible_chars(&cards.lines) >= visible_chars(&first.lines).max(1) * CARDS_MIN_GROWTH
        });
    let mut answer = cards.unwrap_or(first);
    if prose_chars(&answer.lines) < ANSWER_MIN_PROSE {
        // A page made of a repeated group (a grid of products, rows of results) whose
        // selection kept a label beside it: the group, when it holds much more. One
        // product's page is read as one (other products' carousels removed).
        let mut memo = Memo::new(base).with_cards().knowing(source.resolved.take());
        memo.set_product(product);
        source.keep_for_regions();
        let doc = cleaned_again(source, answer.title.as_deref(), &mut memo);
        if let Some(mut group) = group_region_text(&doc, &mut memo) {
            drop_tail_chrome(&mut group);
            if visible_chars(&group) >= visible_chars(&answer.lines).max(1) * GROUP_MIN_GROWTH {
                answer.lines = beside_group(std::mem::take(&mut answer.lines), group);
                answer.flags.whole_body = true;
            }
        }
        // An answer of one line (a banner, a legal line, a brand's blurb) on a page of
        // cards, tiles and labels: the page's region with its cards, its sidebars and
        // footers aside, when that shows much more in short lines.
        if one_line(&answer.lines) {
            let region = cards_region_text(&doc, &mut memo);
            take_region(&mut answer, region, cards_replace);
        }
        source.resolved.replace(memo.take_resolved());
    }
    if prose_chars(&answer.lines) < ANSWER_MIN_PROSE {
        // Selection and the fallback kept a fragment (a page of many short sections): the
        // prose region of the page, cleaned again, when it holds much more.
        let mut memo = Memo::new(base).knowing(source.resolved.take());
        source.keep_for_regions();
        let doc = cleaned_again(source, answer.title.as_deref(), &mut memo);
        let region = prose_region_text(&doc, &mut memo);
        take_region(&mut answer, region, region_replaces);
    }
    answer
}

/// Gives `answer` the text of a page's `region`, its comment section and tail chrome cut
/// and the heading that says its title dropped (the answer prints the title above the
/// text), when `replaces` says that region replaces the answer; the answer is then the
/// page's.
fn take_region(
    answer: &mut Extracted,
    mut region: Vec<String>,
    replaces: fn(&[String], &[String]) -> bool,
) {
    drop_comment_section(&mut region);
    drop_tail_chrome(&mut region);
    drop_repeated_headings(&mut region, answer.title.as_deref(), None);
    if replaces(&answer.lines, &region) {
        answer.lines = region;
        answer.flags.whole_body = true;
    }
}

/// The answer of a page whose first pass answered `first`, which kept prose, when the
/// boilerplate filter removed `grid` visible characters of a repeated group's cards: the
/// answer of a pass that keeps the cards (see [`Memo::with_cards`]) when those are at least
/// [`GRID_MIN_GROWTH`] times the first answer's visible characters (or
/// [`LED_GRID_MIN_GROWTH`] times, when that pass put the grid in beside the lead its
/// selection kept) and that answer has at least [`CARDS_MIN_GROWTH`] times them (a lead of
/// prose over a grid of products, a listing's intro over its cards); else `first`.
fn with_grid(
    source: &mut Source<'_>,
    base: &Url,
    max_links: usize,
    first: Extracted,
    grid: usize,
) -> Extracted {
    let shown = visible_chars(&first.lines);
    if grid < shown * LED_GRID_MIN_GROWTH {
        return first;
    }
    let memo = Memo::new(base).with_cards().over_lead();
    let Pass {
        answer: cards,
        grid: led,
        ..
    } = extract_pass(source, base, max_links, memo);
    // A smaller grid counts when the pass put it in beside the lead its selection kept.
    if visible_chars(&cards.lines) >= shown * CARDS_MIN_GROWTH
        && (grid >= shown * GRID_MIN_GROWTH || led > 0)
    {
        cards
    } else {
        first
    }
}

/// One pass of the pipeline over an HTML body, its boilerplate filter as `memo` says,
/// keeping the page's first `max_links` links and reading its first `max_elements`
/// elements.
fn extract_pass(source: &mut Source<'_>, base: &Url, max_links: usize, memo: Memo<'_>) -> Pass {
    let mut memo = memo.knowing(source.resolved.take());
    let Parsed {
        doc,
        flattened,
        cut,
    } = source.parse();
    let (body, max_elements) = (source.body, source.max_elements);
    // The page's marks and its title, read before any step changes the document.
    let url = matches!(base.scheme(), "http" | "https").then(|| base.as_str());
    let (doc, readable) = readable_title(doc, url);
    let marks = PageSurvey::of(&doc);
    // A page of more than a share of the elements it may build is never copied: selection
    // and what reads the page after it make it again when they need it.
    let large = marks.elements > max_elements / LARGE_SHARE;
    let copied = marks.elements <= max_elements / COPY_SHARE;
    source.copies = copied;
    if !large && source.parsed.is_none() {
        // Nothing has changed the document yet: the later passes start from a copy.
        source.parsed = Some(Parsed {
            doc: doc.clone(),
            flattened,
            cut,
        });
    }
    let source = &*source;
    let page_title = PageTitle::read(
        &doc,
        readable,
        marks.title(&doc),
        &marks.headlines,
        base,
        marks.thread_subject(&doc),
    );
    let title = page_title.matched.as_deref();
    let lang = marks.lang(&doc);
    let links = marks.links(&doc, base, max_links, |href, target| {
        memo.resolved(href, target);
    });
    memo.set_product(marks.sells_a_product(&doc));
    // Each link is resolved against the page once, and each class or id value read once,
    // however many of the filters' walks ask: `memo` does.

    // The chrome and boilerplate filters, the headings that say the title marked first (for
    // pruning, and to find the dateline by).
    let marked = before_cleaning(&doc, &page_title);
    let cleaned = clean_and_prune(&doc, &mut memo);
    let dateline = first_attached(&doc, &marked).and_then(dateline);

    // What the page declares of the product it sells, read before selection takes the
    // document.
    let product = marks.product(&doc);

    // Selection, widening and the fallback. A page cut at its count of elements is too
    // large for selection, which copies the tree: it falls back as a deep or large one does.
    let selectable = !cut && fits(marks.depth, marks.elements);
    let MainText {
        mut lines,
        whole_body,
        h1,
    } = main_text(
        doc,
        selectable,
        large,
        copied,
        cleaned.text_chars,
        cleaned.thread,
        title,
        &mut memo,
        |memo| cleaned_again(source, title, memo),
        |memo| made_again(body, max_elements, &page_title, memo),
    );

    // The headline and its dateline, when selection dropped them.
    if !whole_body && let Some(h1) = headline(h1, title, &lines) {
        lines.splice(0..0, [format!("# {h1}"), String::new()]);
    }
    if !whole_body && let Some(dateline) = dateline {
        put_dateline(&mut lines, dateline, title);
    }

    drop_repeated_headings(
        &mut lines,
        page_title.title.as_deref(),
        page_title.site.as_deref(),
    );
    drop_reply_subjects(&mut lines, page_title.title.as_deref());
    // A thread's posts go on past a heading that counts its replies or their comments.
    if !cleaned.thread {
        drop_comment_section(&mut lines);
    }
    drop_tail_chrome(&mut lines);
    // A thread's replies quote the posts they answer: what a post said is read once.
    if cleaned.thread {
        drop_repeated_lines(&mut lines, None);
    }
    // A product's declared description and properties, when the text lacks them.
    put_declared(&mut lines, product);

    let javascript_shell = looks_like_shell(body, &cleaned, &lines);
    if javascript_shell {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(JAVASCRIPT_SHELL_NOTICE.to_owned());
    }

    let extracted = Extracted {
        title: page_title.title,
        lines,
        links,
        lang,
        kind: BodyKind::Html,
        flags: Flags {
            flattened,
            whole_body,
            javascript_shell,
            elements_cut: cut,
            ..Flags::default()
        },
    };
    source.resolved.replace(memo.take_resolved());
    Pass {
        answer: extracted,
        shown: Shown {
            all: cleaned.all_chars,
            kept: cleaned.kept_chars,
        },
        product: memo.product(),
        grid: memo.grid_chars(),
        alike: memo.alike(),
    }
}

/// What one pass of the pipeline answers, with what it read of the page on the way.
struct Pass {
    /// The answer.
    answer: Extracted,
    /// The visible characters the page shows (hidden and never-content elements aside).
    shown: Shown,
    /// Whether the page is one product's.
    product: bool,
    /// The visible characters of the cards its boilerplate filter removed (see
    /// [`Memo::grid_chars`]).
    grid: usize,
    /// Whether a pass that keeps cards would have answered the same (see [`Memo::alike`]).
    alike: bool,
}

/// The visible characters of a page, as its first pass counted them.
#[derive(Clone, Copy)]
struct Shown {
    /// What the page shows (hidden and never-content elements excluded).
    all: usize,
    /// What the chrome and boilerplate filters left of it, for selection to choose from.
    kept: usize,
}

/// Whether an answer of these `lines` holds a small part of a page that `shown` counted:
/// under [`PARTIAL_MIN_RATIO`]th of what it shows, or under [`PARTIAL_MIN_KEPT_RATIO`]th of
/// what its filters left, either of at least [`PARTIAL_MIN_PAGE`].
fn is_partial(lines: &[String], shown: &Shown) -> bool {
    let answer = visible_chars(lines);
    (shown.all >= PARTIAL_MIN_PAGE && answer * PARTIAL_MIN_RATIO < shown.all)
        || (shown.kept >= PARTIAL_MIN_PAGE && answer * PARTIAL_MIN_KEPT_RATIO < shown.kept)
}

/// Whether the page's prose `region` replaces an `answer` that kept little prose: the answer
/// has less than [`ANSWER_MIN_PROSE`] visible characters of prose lines, the region has at
/// least as many, and [`REGION_MIN_GROWTH`] times the answer's visible characters.
fn region_replaces(answer: &[String], region: &[String]) -> bool {
    prose_chars(answer) < ANSWER_MIN_PROSE
        && prose_chars(region) >= ANSWER_MIN_PROSE
        && visible_chars(region) >= visible_chars(answer).max(1) * REGION_MIN_GROWTH
}

/// Whether an answer's text is one line at most, headings aside.
fn one_line(lines: &[String]) -> bool {
    lines
        .iter()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .count()
        <= 1
}

/// Whether the page's `region` (cleaned with its cards kept) replaces an `answer` of
/// [`one_line`] that kept little prose: the region shows [`CARDS_REGION_MIN_GROWTH`] times
/// the answer's visible characters, and under [`CARDS_REGION_MAX_PROSE`] of what it adds
/// is prose lines (the names, prices and labels of cards, not a sidebar's paragraphs).
fn cards_replace(answer: &[String], region: &[String]) -> bool {
    let (kept, wide) = (visible_chars(answer), visible_chars(region));
    let added_prose = prose_chars(region).saturating_sub(prose_chars(answer));
    one_line(answer)
        && prose_chars(answer) < ANSWER_MIN_PROSE
        && wide as f64 >= kept.max(1) as f64 * CARDS_REGION_MIN_GROWTH
        && (added_prose as f64) < wide.saturating_sub(kept) as f64 * CARDS_REGION_MAX_PROSE
}

/// A page's largest repeated group with what the answer had beside it (a label, a lead, a
/// short post the group's sidebar list outweighs): the answer's lines the group lacks, then
/// the group's.
fn beside_group(answer: Vec<String>, group: Vec<String>) -> Vec<String> {
    let within: std::collections::HashSet<&str> = group.iter().map(String::as_str).collect();
    let mut lines: Vec<String> = answer
        .into_iter()
        .filter(|l| l.is_empty() || !within.contains(l.as_str()))
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    if !lines.iter().all(String::is_empty) {
        lines.push(String::new());
    } else {
        lines.clear();
    }
    lines.extend(group);
    lines
}

/// The page parsed (a copy of its document as parsed, see [`Source`]), its title headings
/// marked, and cleaned again: for the rare page whose prose region the fallback needs after
/// selection consumed the one document.
fn cleaned_again(source: &Source<'_>, title: Option<&str>, memo: &mut Memo<'_>) -> Document {
    let doc = source.parse().doc;
    if let Some(title) = title {
        mark_title_headings(&doc, title);
    }
    clean_and_prune(&doc, memo);
    doc
}

/// What [`extract_pass`] changes in the parsed page before its filters: the headings that
/// say `page_title` marked (returned, in document order). [`made_again`] makes the same
/// changes.
fn before_cleaning(doc: &Document, page_title: &PageTitle) -> Vec<NodeId> {
    page_title.mark_title_headings(doc)
}

/// The cleaned page as [`extract_pass`] gave it to selection, made again by the same steps
/// (parsed, changed as [`before_cleaning`] says, cleaned by `memo`'s filters): the same
/// document, node for node.
fn made_again(
    body: &str,
    max_elements: usize,
    page_title: &PageTitle,
    memo: &mut Memo<'_>,
) -> Document {
    let doc = parse_page(body, DEPTH_LIMIT, max_elements).doc;
    before_cleaning(&doc, page_title);
    clean_and_prune(&doc, memo);
    doc
}

/// Whether the page looks like a JavaScript shell: scripts, markup of some size, and little
/// visible text before the chrome filter and in the answer.
fn looks_like_shell(body: &str, cleaned: &Cleaned, lines: &[String]) -> bool {
    cleaned.scripts > 0
        && body.len() >= SHELL_MIN_BYTES
        && cleaned.all_chars < SHELL_MAX_TEXT
        && visible_chars(lines) < SHELL_MAX_TEXT
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::tree::visible_len;

    #[test]
    fn an_answer_without_prose_gives_way_to_a_region_that_holds_much_more() {
        let line = |i: usize| {
            format!(
                "Everything you want to watch in plan {i}, live and on demand, on every \
                 screen in your home and beyond, at no extra cost."
            )
        };
        let answer = vec!["## Plans".to_owned(), line(0)];
        let region: Vec<String> = (0..8).map(line).collect();
        assert!(region_replaces(&answer, &region));
        // A region of labels and short items is no better, nor one not much larger; an
        // answer with prose stands.
        let labels: Vec<String> = (0..60).map(|i| format!("Plan {i}")).collect();
        assert!(!region_replaces(&answer, &labels));
        assert!(!region_replaces(&answer, &region[..4]));
        let prose: Vec<String> = (0..4).map(line).collect();
        assert!(!region_replaces(&prose, &region));
    }

    #[test]
    fn a_grid_of_products_without_prose_is_the_answer_and_a_sidebar_s_list_is_not() {
        let base = Url::parse("https://example.com/collections/candles").unwrap();
        // Each tile a link around its picture and its name; prices shown on the first few.
        let tiles: String = (0..22)
            .map(|i| {
                let price = if i < 4 {
                    format!("<p class=price><span>${i}.00</span></p>")
                } else {
                    String::new()
                };
                format!(
                    "<div class=grid-tile><div class=product-tile><a href=/shop/candle-{i}>\
                     <div class=media><img src=/i/{i}.jpg alt='Candle {i}'></div><h2>\
                     Hand-poured candle number {i} in a glass jar</h2></a>{price}</div></div>"
                )
            })
            .collect();
        let page = format!(
            "<html><head><title>Candles</title></head><body><h1>Candles</h1><div \
             class=toolbar><span>22 products</span></div><div class=grid><div class=inner>\
             {tiles}</div></div></body></html>"
        );
        let out = extract_html(&page, &base, usize::MAX, usize::MAX);
        let text = out.lines.join("\n");
        for i in [0, 7, 21] {
            assert!(text.contains(&format!("candle number {i} in")), "{text}");
        }
        assert!(text.contains("$3.00"), "{text}");
        // A short post beside a long archive list in a sidebar: the post is the answer.
        let months: String = (0..60)
            .map(|i| format!("<li><a href=/archive/{i}>Month {i} of the archive</a></li>"))
            .collect();
        let page = format!(
            "<html><head><title>Sunday</title></head><body><div id=content><h1>Sunday</h1>\
             <p>I hope to approach Monday with the attitude of this little guy.</p></div>\
             <div id=sidebar><ul>{months}</ul></div></body></html>"
        );
        let out = extract_html(&page, &base, usize::MAX, usize::MAX);
        let text = out.lines.join("\n");
        assert!(text.contains("I hope to approach Monday"), "{text}");
        assert!(!text.contains("Month 7 of the archive"), "{text}");
    }

    /// The names of [`tiles_page`]'s tiles.
    const TILE_NAMES: [&str; 16] = [
        "Watercolor Paint",
        "Acrylic Paint",
        "Oil Paint",
        "Brushes",
        "Colored Pencils",
        "Markers",
        "Fine Writing",
        "Paper and Boards",
        "Easels",
        "Frames",
        "Ceramics",
        "Printmaking",
        "Crafts",
        "Gifts",
        "New Products",
        "Deals",
    ];

    /// The site's legal line under [`tiles_page`]'s links.
    const TILES_LEGAL: &str = "Names of the brands are registered trademarks of the Art Supply \
                               Company, LLC. Copyright 1999-2026, all rights reserved.";

    /// Tiles of categories, each a link around its picture and name, and the site's legal
    /// line under its links: the one line of prose on the page.
    fn tiles_page() -> String {
        let tiles: String = TILE_NAMES
            .iter()
            .enumerate()
            .map(|(i, name)| {
                format!(
                    "<li><a href=/c/{i}/><figure><img src=/i/{i}.png alt='{name}'></figure>\
                     <h3>{name}</h3></a></li>"
                )
            })
            .collect();
        let links: String = (0..12)
            .map(|i| format!("<li><a href=/help/{i}/>Help topic {i}</a></li>"))
            .collect();
        format!(
            "<html><head><title>Art Supplies</title></head><body><section><h2>Browse \
             Featured Categories</h2><a href=/categories/>View All</a><ul>{tiles}</ul>\
             </section><footer><ul>{links}</ul><p>{TILES_LEGAL}</p></footer></body></html>"
        )
    }

    #[test]
    fn a_one_line_answer_on_a_page_of_tiles_gives_way_to_the_tiles() {
        let base = Url::parse("https://example.com/").unwrap();
        let (names, legal) = (TILE_NAMES, TILES_LEGAL);
        let out = extract_html(&tiles_page(), &base, usize::MAX, usize::MAX);
        let text = out.lines.join("\n");
        for name in ["Watercolor Paint", "Printmaking", "Deals"] {
            assert!(text.contains(name), "{text}");
        }
        // The footer the line lay in is not the tiles' text.
        assert!(!text.contains("all rights reserved"), "{text}");
        // A region that adds paragraphs (a sidebar's blurbs) is no page of tiles; nor is one
        // that adds little.
        let answer = vec![legal.to_owned()];
        let blurbs: Vec<String> = (0..6)
            .map(|i| format!("{legal} Blurb {i} of a sidebar, as long as a paragraph is."))
            .collect();
        assert!(!cards_replace(&answer, &blurbs));
        let few: Vec<String> = names[..3].iter().map(|n| format!("### {n}")).collect();
        assert!(!cards_replace(&answer, &[few, answer.clone()].concat()));
        let all: Vec<String> = names.iter().map(|n| format!("### {n}")).collect();
        assert!(cards_replace(
            &answer,
            &[all.clone(), answer.clone()].concat()
        ));
        // An answer of several lines (a short post) stands.
        let post = vec!["A short post.".to_owned(), String::new(), legal.to_owned()];
        assert!(!cards_replace(&post, &[all, post.clone()].concat()));
    }

    #[test]
    fn a_large_page_the_region_steps_read_again_is_parsed_once_for_them() {
        // A page whose passes keep no prose: the group and the prose region steps both read
        // it again after its passes.
        use super::super::parse::PARSES;
        let base = Url::parse("https://example.com/").unwrap();
        let page = tiles_page();
        let elements = page.matches('<').count() - page.matches("</").count();
        let parses = |cap: usize| {
            PARSES.with(|n| n.set(0));
            let out = extract_html(&page, &base, usize::MAX, cap);
            assert!(!out.flags.elements_cut);
            (PARSES.with(std::cell::Cell::get), out.lines)
        };
        // Not large: the first pass keeps the page as parsed for every later step.
        let (once, whole) = parses(usize::MAX);
        assert_eq!(once, 1);
        // Large (over a quarter of the cap) and within half of it: parsed for the first
        // pass, then once for both region steps.
        assert_eq!(parses(elements * 3), (2, whole.clone()));
        // Over half of the cap: two trees of it do not fit, and every step that reads the
        // page again parses it (selection's attempts among them).
        let (each, lines) = parses(elements + 8);
        assert!(each > 3, "{each}");
        assert_eq!(lines, whole);
    }

    /// A lead of prose over a grid of courses.
    const COURSES_LEAD: &str = "Our courses are taught by the faculty who do the research, in \
                                short sessions that fit a working week, and each of them ends \
                                with a project that you can take back to your own team and \
                                put to use the next day. ";

    /// `n` cards of courses, each a link to its course beside a short label: a link block to
    /// the boilerplate filter.
    fn course_cards(n: usize) -> String {
        (0..n)
            .map(|i| {
                format!(
                    "<div class=course><a href=/courses/{i}>Course {i}: designing resilient \
                     systems that last</a> <span>Online</span></div>"
                )
            })
            .collect()
    }

    #[test]
    fn a_lead_of_prose_over_a_grid_of_linked_cards_in_main_gives_way_to_the_grid() {
        let base = Url::parse("https://example.com/courses").unwrap();
        let (lead, cards) = (COURSES_LEAD, course_cards(20));
        let page = |wrapper: &str| {
            format!(
                "<html><head><title>Courses</title></head><body><{wrapper}><h1>Courses</h1>\
                 <p>{lead}</p><p>{lead}</p><div class=courses>{cards}\
                 </div></{wrapper}></body></html>"
            )
        };
        let text = extract_html(&page("main"), &base, usize::MAX, usize::MAX).text();
        assert!(text.contains("Our courses are taught"), "{text}");
        for i in [0, 9, 19] {
            assert!(text.contains(&format!("Course {i}: designing")), "{text}");
        }
        // Outside the page's main content, such a group may be a sidebar's: the lead stands.
        let text = extract_html(&page("div"), &base, usize::MAX, usize::MAX).text();
        assert!(text.contains("Our courses are taught"), "{text}");
        assert!(!text.contains("Course 9: designing"), "{text}");
    }

    #[test]
    fn a_lead_over_a_grid_as_long_as_it_that_selection_drops_is_put_beside_the_grid() {
        let base = Url::parse("https://example.com/courses").unwrap();
        let (lead, cards) = (COURSES_LEAD, course_cards(10));
        let grid = format!("<div class=courses>{cards}</div>");
        let intro = format!("<div class=intro><h1>Courses</h1><p>{lead}</p><p>{lead}</p></div>");
        let answer = |inside: String| {
            let page = format!(
                "<html><head><title>Courses</title></head><body><main>{inside}</main>\
                 </body></html>"
            );
            extract_html(&page, &base, usize::MAX, usize::MAX).text()
        };
        // The grid under the lead: both.
        let text = answer(format!("{intro}{grid}"));
        assert!(text.contains("Our courses are taught"), "{text}");
        for i in [0, 5, 9] {
            assert!(text.contains(&format!("Course {i}: designing")), "{text}");
        }
        // The group before the prose leads nothing: the prose stands.
        let text = answer(format!("{grid}{intro}"));
        assert!(text.contains("Our courses are taught"), "{text}");
        assert!(!text.contains("Course 5: designing"), "{text}");
        // …unless it names prices: a shop's products over its category's text.
        let priced = grid.replace("<span>Online</span>", "<div>$120</div>");
        let text = answer(format!("{priced}{intro}"));
        assert!(text.contains("Our courses are taught"), "{text}");
        assert!(text.contains("Course 5: designing"), "{text}");
    }

    #[test]
    fn a_short_lead_beside_a_grid_of_priced_products_the_filters_left_is_put_beside_it() {
        // A shop's category page that marks no main content: a short text about the
        // category over its products, each a linked name, a code and a price the filters
        // keep, which selection leaves out.
        let base = Url::parse("https://shop.example.com/pots").unwrap();
        let lead = "Indoor pots bring colour and warmth to rooms in every season of the year, \
                    and we offer a broad range of them, from traditional to modern, from \
                    ornate to minimalist, each made to last for many years indoors.";
        let products: String = (0..40)
            .map(|i| {
                format!(
                    "<div class=item><a href=/p/{i}><img src=/i/{i}.jpg>\
                     <span class=name>Pot number {i}, glazed</span></a>\
                     <div class=sku>SKU: X{i}</div><div class=price>${i}9.00</div></div>"
                )
            })
            .collect();
        let answer = |products: &str| {
            let page = format!(
                "<html><head><title>Indoor pots</title></head><body><div class=page>\
                 <div class=intro><h1>Indoor pots</h1><p>{lead}</p><p>{lead}</p></div>\
                 <div class=items>{products}</div></div></body></html>"
            );
            extract_html(&page, &base, usize::MAX, usize::MAX).text()
        };
        let text = answer(&products);
        assert!(text.contains("Indoor pots bring colour"), "{text}");
        for i in [0, 20, 39] {
            assert!(text.contains(&format!("Pot number {i}, glazed")), "{text}");
        }
        // Cards that name no prices are no shop's grid: the lead stands alone.
        let text = answer(&products.replace('$', "No. "));
        assert!(text.contains("Indoor pots bring colour"), "{text}");
        assert!(!text.contains("Pot number 20, glazed"), "{text}");
    }

    #[test]
    fn a_large_page_made_again_answers_as_a_copied_one() {
        // One product's page whose selection keeps too little (every attempt is made, the
        // best made again) beside a gallery whose pictures would say more than its text, and
        // a row of other products' cards (read again after selection).
        let base = Url::parse("https://shop.example.com/p/walnut-desk").unwrap();
        let shots: String = (0..12)
            .map(|i| {
                format!("<li><img src=/i/{i}.jpg alt='Side view {i} of the walnut desk'></li>")
            })
            .collect();
        let cards: String = (0..4)
            .map(|i| format!("<div class=card><h3><a href=/p/{i}>Desk {i}</a></h3></div>"))
            .collect();
        let page = format!(
            "<html><head><title>Walnut desk</title><meta property='og:type' \
             content='product'><meta property='product:price:amount' content='499.00'>\
             </head><body><main><h1>Walnut desk</h1><ul class=gallery>{shots}</ul><p>A desk \
             of solid walnut on steel legs, with a cable tray under its top.</p></main>\
             <section class=grid>{cards}</section></body></html>"
        );
        let copied = extract_html(&page, &base, usize::MAX, usize::MAX);
        assert!(!copied.flags.elements_cut);
        // A cap that makes the page large (more than a quarter of what it may build) and
        // does not cut it.
        let elements = page.matches('<').count() - page.matches("</").count();
        let made_again = extract_html(&page, &base, usize::MAX, elements + 8);
        assert!(!made_again.flags.elements_cut);
        assert_eq!(made_again.text(), copied.text());
        assert_eq!(made_again.flags, copied.flags);
    }

    #[test]
    fn a_product_s_page_that_kept_little_prose_does_not_give_way_to_other_products_cards() {
        // One product's page with a short description beside a long carousel of other
        // products: the pass that looks for the page's repeated group reads it as the
        // product's page too, and finds no group in the carousel it removes.
        let base = Url::parse("https://shop.example.com/p/jacket").unwrap();
        let cards: String = (0..16)
            .map(|i| {
                format!(
                    "<li class=tile><a href=/p/other-{i}><img src=/i/{i}.jpg></a>\
                     <h3>Faux leather jacket number {i} in black</h3><span>€39.99</span></li>"
                )
            })
            .collect();
        let page = format!(
            "<html><head><title>Leather jacket</title><meta property='og:type' \
             content='product'><meta property='product:price:amount' content='49.99'>\
             </head><body><h1>Leather jacket</h1><p>€49.99 VAT included</p><dl><dt>Outer \
             fabric</dt><dd>100% polyester</dd><dt>Fastening</dt><dd>Zip</dd></dl>\
             <h2>How about these?</h2><ul class=carousel>{cards}</ul></body></html>"
        );
        let text = extract_html(&page, &base, usize::MAX, usize::MAX).text();
        assert!(text.contains("100% polyester"), "{text}");
        assert!(!text.contains("jacket number 3"), "{text}");
    }

    #[test]
    fn a_picture_s_alternative_text_is_not_the_page_s_text() {
        let base = Url::parse("https://shop.example.com/p/walnut-desk").unwrap();
        let para = "A desk of solid walnut on steel legs, with a cable tray under its top and \
                    room for two screens, finished with a hard wax oil. ";
        let page = |head: &str| {
            let shots: String = (0..4)
                .map(|i| {
                    format!(
                        "<li><img src=/i/{i}.jpg alt='Side view {i} of the desk, lid open'></li>"
                    )
                })
                .collect();
            format!(
                "<html><head><title>Walnut desk</title>{head}</head><body><main><h1>Walnut \
                 desk</h1><ul class=gallery>{shots}</ul><p>{p}</p><p>{p}</p></main></body>\
                 </html>",
                p = para.repeat(2)
            )
        };
        let sells = "<meta property='og:type' content='product'>\
                     <meta property='product:price:amount' content='499.00'>";
        // On one product's page (its gallery) as on any other.
        for head in [sells, ""] {
            let text = extract_html(&page(head), &base, usize::MAX, usize::MAX).text();
            assert!(text.contains("A desk of solid walnut"), "{text}");
            assert!(!text.contains("Side view"), "{text}");
        }
    }

    #[test]
    fn an_answer_under_a_tenth_of_a_page_or_half_of_what_the_filters_left_is_partial() {
        // Of what the page shows.
        let shows = |all| Shown { all, kept: 0 };
        let answer = vec!["x".repeat(99)];
        assert!(is_partial(&answer, &shows(1000)));
        assert!(!is_partial(&answer, &shows(990)));
        // A small page whose answer is short is not.
        assert!(!is_partial(&["x".repeat(50)], &shows(900)));
        // Of what the filters left.
        let left = |kept| Shown { all: 4000, kept };
        let answer = vec!["x".repeat(600)];
        assert!(is_partial(&answer, &left(1201)));
        assert!(!is_partial(&answer, &left(1200)));
        // Under the page's size, what the filters left says nothing.
        assert!(!is_partial(&["x".repeat(400)], &left(999)));
    }

    #[test]
    fn a_page_whose_selection_left_out_prose_the_filters_kept_says_so() {
        let base = Url::parse("https://example.com/guide").unwrap();
        // An article, and a list of as much prose in a part of the page of its own.
        let para = "<p>A paragraph of plain prose that goes on long enough, with commas, to \
                    count as the kind of text a reader came for.</p>";
        let item = "<li>An item of plain prose that goes on long enough, with commas, to count \
                    as the kind of text a reader came for, and more.</li>";
        let page = format!(
            "<html><head><title>Guide</title></head><body><div><div><article>{}</article>\
             </div></div><div><ul>{}</ul></div></body></html>",
            para.repeat(6),
            item.repeat(12)
        );
        let answer = extract_html(&page, &base, usize::MAX, usize::MAX);
        let text = answer.text();
        // Selection took the article and left the list out, though no filter dropped it…
        assert!(
            text.contains("A paragraph") && !text.contains("An item"),
            "{text}"
        );
        // …and the article is more than a tenth of the page: only what the filters left
        // tells the answer short.
        let shown = Document::from(page.as_str()).select("body").text();
        assert!(visible_chars(&answer.lines) * PARTIAL_MIN_RATIO > visible_len(&shown));
        assert!(answer.flags.partial, "{text}");
    }

    #[test]
    fn a_grid_shown_in_part_gives_way_to_the_whole_grid() {
        let base = Url::parse("https://example.com/collections/candles").unwrap();
        // Prices shown on the first nine tiles of twenty-two: the answer kept those.
        let tiles: String = (0..22)
            .map(|i| {
                let price = if i < 9 {
                    format!("<p class=price><span>${i}.00</span></p>")
                } else {
                    String::new()
                };
                format!(
                    "<div class=grid-tile><div class=product-tile><a href=/shop/candle-{i}>\
                     <div class=media><img src=/i/{i}.jpg alt='Candle {i}'></div><h2>\
                     Hand-poured candle number {i} in a glass jar</h2></a>{price}</div></div>"
                )
            })
            .collect();
        let page = format!(
            "<html><head><title>Candles</title></head><body><h1>Candles</h1><div \
             class=grid><div class=inner>{tiles}</div></div></body></html>"
        );
        let out = extract_html(&page, &base, usize::MAX, usize::MAX);
        let text = out.lines.join("\n");
        for i in [0, 8, 15, 21] {
            assert!(text.contains(&format!("candle number {i} in")), "{text}");
        }
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
        let out = extract_html(&page, &base, usize::MAX, usize::MAX);
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
        let out = extract_html(&page, &base, usize::MAX, usize::MAX);
        assert!(
            !out.lines.iter().any(|l| l.contains("Linda Bustos")),
            "{:?}",
            out.lines
        );
    }

    #[test]
    fn a_thread_s_posts_go_on_past_a_heading_that_counts_comments() {
        let base = Url::parse("https://example.com/questions/1").unwrap();
        let post = |i: usize| {
            format!(
                "<div class=answer><p>Answer {i}: replace the bearing with a sealed one, since                  the open kind takes in grit and wears out within two winters of use.</p>\
                 <p>It costs little more and lasts as long as the hub itself does.</p>\
                 <h3>{i} Comments</h3></div>"
            )
        };
        let posts: String = (0..6).map(post).collect();
        let page = |head: &str| {
            format!(
                "<html><head><title>Bearing wears out</title>{head}</head><body><main>\
                 <h1>Bearing wears out</h1>{posts}</main></body></html>"
            )
        };
        let island = "<script type='application/ld+json'>{\"@type\":\"QAPage\"}</script>";
        let out = extract_html(&page(island), &base, usize::MAX, usize::MAX).lines;
        assert!(out.iter().any(|l| l.starts_with("Answer 5:")), "{out:?}");
        // Under an article, such a heading past half the text opens its comments.
        let out = extract_html(&page(""), &base, usize::MAX, usize::MAX).lines;
        assert!(!out.iter().any(|l| l.starts_with("Answer 5:")), "{out:?}");
    }

    #[test]
    fn a_thread_s_replies_lose_the_lines_they_quote_from_posts_above() {
        let base = Url::parse("https://example.com/questions/2").unwrap();
        let said =
            "The chain slips under load because the cassette has worn past its service life.";
        let post = |i: usize| {
            let quote = if i == 3 {
                format!("<blockquote><p>{said}</p></blockquote>")
            } else {
                String::new()
            };
            format!(
                "<div class=answer>{quote}<p>Answer {i}: a new chain on an old cassette \
                 skips as well, so both go together and the shifting comes back crisp.</p>\
                 <p>It costs little more and lasts as long as the hub itself does.</p></div>"
            )
        };
        let posts: String = (0..6).map(post).collect();
        let page = |head: &str| {
            format!(
                "<html><head><title>Chain slips</title>{head}</head><body><main>\
                 <h1>Chain slips</h1><p>{said}</p>{posts}</main></body></html>"
            )
        };
        let said_in = |lines: &[String]| {
            lines
                .iter()
                .filter(|l| l.trim_start_matches("> ") == said)
                .count()
        };
        // A thread's reply quotes the post it answers: the line is read once.
        let island = "<script type='application/ld+json'>{\"@type\":\"QAPage\"}</script>";
        let out = extract_html(&page(island), &base, usize::MAX, usize::MAX).lines;
        assert_eq!(said_in(&out), 1, "{out:?}");
        assert!(out.iter().any(|l| l.starts_with("Answer 3:")), "{out:?}");
        // An article that quotes its own lead says it twice, as the page does.
        let out = extract_html(&page(""), &base, usize::MAX, usize::MAX).lines;
        assert_eq!(said_in(&out), 2, "{out:?}");
    }
}
