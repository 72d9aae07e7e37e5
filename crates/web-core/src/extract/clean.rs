//! The chrome filter: scripts, hidden elements, navigation, site headers and footers,
//! asides, consent banners, share bars and comment widgets, removed by element, role and
//! class name, unless they hold the main content or much of the page's text; then the
//! boilerplate filter on what is left.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use dom_query::{Document, Element, NodeId, NodeRef};
use html5ever::{LocalName, local_name};

use super::keyed::Keyed;
use super::prune::{Memo, drop_carousels, prune};
use super::render::collapse;
use super::tree::{
    Shape, Step, alike, attr, has_attr, inner_shapes, shape_of, text_len, visible_len, walk,
    with_element, with_text,
};
use super::vocab::{
    CHROME_ROLES, has_hidden_class, is_hidden, is_never_content, names_post_furniture,
    names_thread, names_writer,
};

/// A chrome candidate holding more than this share of the page's text is kept anyway.
const CHROME_MAX_SHARE: f64 = 0.4;
/// Chrome by class name holding a paragraph of at least this many visible characters is kept.
const NAMED_CHROME_MAX_PARAGRAPH: usize = 400;
/// The share of the page's text above which what strong names alone mark as chrome is kept:
/// chrome is at the page's margins, not most of it.
const NAMED_CHROME_MAX_TOTAL_SHARE: f64 = 0.5;
/// The share of the page's text under which what the chrome filter would leave is too
/// little for the removals by strong names alone to be right (see
/// [`NAMED_CHROME_MAX_TOTAL_SHARE`]).
const NAMED_CHROME_MIN_LEFT_SHARE: f64 = 0.2;
/// Layout chrome by name is removed when at least a quarter of its text is links, or when
/// it has no more visible characters than this.
const LAYOUT_SHORT: usize = 200;
/// On a page with votes, reader comments holding at least this many times the paragraph
/// text outside them are a discussion's posts.
const THREAD_MIN_RATIO: usize = 2;
/// Cards of a grid in the page's main content that strong names mark are content when at
/// least this many of them…
const NAMED_CARDS_MIN: usize = 3;
/// …hold together at least this share of the page's text (see [`named_cards`]).
const NAMED_CARDS_MIN_SHARE: f64 = 0.3;
/// A card is the element a strong name marks or one of this many elements above it.
const NAMED_CARD_MAX_UP: usize = 2;
/// A card is compared with this many of its siblings of its shape at most.
const NAMED_CARD_COMPARED: usize = 8;
/// A post's comments lie at most this many elements below the post's own text.
const POST_MAX_LEVELS: usize = 4;
/// An accordion's control (a button or link with `aria-expanded` and `aria-controls`) lies
/// within a heading at most this many elements above it.
const ACCORDION_MAX_LEVELS: usize = 2;
/// An accordion's toggle is read for a heading up to this many nodes inside it.
const TOGGLE_MAX_NODES: usize = 32;

/// What the chrome filter saw.
pub(crate) struct Cleaned {
    /// Visible characters (not whitespace) left in the body.
    pub(crate) text_chars: usize,
    /// Visible characters before chrome was removed (hidden and never-content elements
    /// excluded).
    pub(crate) all_chars: usize,
    /// Visible characters left in the body once boilerplate was pruned as well (see
    /// [`clean_and_prune`]).
    pub(crate) kept_chars: usize,
    /// Script elements in the page, and links that preload a script ([`loads_script`]).
    pub(crate) scripts: usize,
    /// Whether the page is a discussion thread (it says so, or its voted comments hold its
    /// prose): its posts are its content.
    pub(crate) thread: bool,
}

/// Whether an element loads a script ahead of its use: a `link` that preloads a module
/// (`rel="modulepreload"`), or preloads a file whose path ends in `.js` or `.mjs`
/// (`rel="preload"`). A page built in the browser may name its scripts only so.
fn loads_script(e: &Element) -> bool {
    if &*e.name.local != "link" {
        return false;
    }
    let rel = attr(e, "rel").unwrap_or_default();
    let has = |token: &str| {
        rel.split_ascii_whitespace()
            .any(|t| t.eq_ignore_ascii_case(token))
    };
    let path = attr(e, "href")
        .unwrap_or_default()
        .split(['?', '#'])
        .next()
        .unwrap_or_default();
    has("modulepreload") || (has("preload") && (path.ends_with(".js") || path.ends_with(".mjs")))
}

/// What kind of element the chrome filter sees.
enum Verdict {
    /// Removed with its subtree, no questions asked.
    Remove,
    /// Chrome, removed unless it holds the main content or much of the page's text.
    Chrome,
    /// A modal dialog: removed however long its text, unless it holds the main content.
    Modal,
    /// Chrome by class name or id: removed like chrome, but only when no paragraph inside is
    /// as long as an article's (a name like `Section--Ads` can mark a block of the article).
    NamedChrome,
    /// Layout chrome by name: removed like chrome, but only when mostly links or short.
    Layout,
    /// A form: removed like named chrome, but only when it holds no `article` either (a
    /// thread's posts laid out in one form are not a login form).
    Form,
    /// `noscript`: removed, unless it holds much of the page's text and more than a short
    /// message (broken markup can leave a page's content inside it).
    Noscript,
    /// Reader comments by class name or id: removed however much of the page's text they
    /// hold, unless they hold the main content.
    Comments,
    /// A product's reviews by class name or id, on a product's page: removed however much of
    /// the page's text they hold, unless they hold its `h1` (a wrapper of the whole product
    /// named after what it also holds).
    Reviews,
    /// Marks main content (`article`, `main`, `role=main`, `itemprop=articleBody`).
    Main,
    /// Anything else.
    Other,
}

/// What the chrome filter makes of an element, `in_main` when it is inside main content.
fn verdict(node: &NodeRef<'_>, in_main: bool, memo: &mut Memo<'_>) -> Verdict {
    if with_element(node, |e| is_never_content(&e.name.local)).unwrap_or(false) {
        return Verdict::Remove;
    }
    if is_hidden(node) {
        return Verdict::Remove;
    }
    let product = memo.product();
    with_element(node, |e| {
        let name = &*e.name.local;
        if name == "noscript" {
            return Verdict::Noscript;
        }
        // On one product's page, what a hidden class hides is the store's data about the
        // product (its fields, its other variants), however much of the text it holds.
        if product && attr(e, "class").is_some_and(has_hidden_class) {
            return Verdict::Remove;
        }
        let class = attr(e, "class").map(|v| memo.sense(v)).unwrap_or_default();
        let names = attr(e, "id").map_or(class.names, |id| class.names.and(memo.sense(id).names));
        // A reader's comment is often an `article` of its own; it is still a comment.
        if names.comments && !names.content && !matches!(name, "html" | "body" | "main") {
            return Verdict::Comments;
        }
        // A product's reviews are its customers' words, not its description.
        if product && names.reviews && !matches!(name, "html" | "body" | "main") {
            return Verdict::Reviews;
        }
        let role = attr(e, "role").map(str::to_ascii_lowercase);
        if matches!(name, "article" | "main")
            || role.as_deref() == Some("main")
            || attr(e, "itemprop").is_some_and(|p| p.eq_ignore_ascii_case("articleBody"))
        {
            return Verdict::Main;
        }
        // A page's form may wrap all of it (a site built on one server-side form, a thread's
        // posts): chrome only without an article's paragraph or an `article`.
        if name == "form" {
            return Verdict::Form;
        }
        // An aside named as the post is the post, laid out beside the site's menus.
        if name == "aside" && class.entry {
            return Verdict::Other;
        }
        // A modal dialog (a policy, a sign-up, a cart drawer) lies over the page: it is
        // never its content, however long.
        if is_modal(e) {
            return Verdict::Modal;
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
    /// Whether an `h1` is inside (or is the element).
    has_h1: bool,
    /// Whether an `article` is inside (or is the element), whatever its name says.
    has_article: bool,
    verdict: Verdict,
    main: bool,
    link: bool,
    code: bool,
}

/// Removes chrome from the document: never-content elements, hidden elements, and chrome
/// (navigation, site headers and footers, asides, banners, share bars, …) unless it holds the
/// main content or a large share of the text.
fn clean(doc: &Document, memo: &mut Memo<'_>) -> Cleaned {
    unfold_tab_panels(doc);
    let mut remove: Vec<NodeId> = Vec::new();
    // Chrome candidates: the element, its visible characters, whether it is removed even
    // above the share cap (a short `noscript`, reader comments), and whether it is reader
    // comments or a form inside them (kept on a page that says it is a thread).
    let mut candidates: Vec<(NodeId, usize, bool, bool)> = Vec::new();
    // The candidates that are chrome by a strong class or id name alone.
    let mut named: HashSet<NodeId> = HashSet::new();
    let mut thread = false;
    let mut frames: Vec<Frame> = Vec::new();
    let mut in_main = 0usize;
    let mut in_link = 0usize;
    let mut in_code = 0usize;
    let mut in_comments = 0usize;
    let mut in_paragraph = 0usize;
    let mut outside_prose = 0usize;
    let mut votes = false;
    let mut scripts = 0usize;
    let mut total = 0usize;
    walk(doc.root(), |step| match step {
        Step::Enter(node) => {
            if let Some(n) = with_text(&node, visible_len) {
                total += n;
                if in_comments == 0 && in_paragraph > 0 {
                    outside_prose += n;
                }
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
            // Element names compared as the interned names they are, without reading them.
            let named = |want: LocalName| name.as_ref().is_some_and(|n| *n == want);
            let link = named(local_name!("a"))
                && with_element(&node, |e| attr(e, "href").is_some()).unwrap_or(false);
            if named(local_name!("script")) || with_element(&node, loads_script).unwrap_or(false) {
                scripts += 1;
            }
            thread = thread || says_thread(&node);
            let code = named(local_name!("pre")) || named(local_name!("code"));
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
            let comments = matches!(v, Verdict::Comments);
            let paragraph = named(local_name!("p"));
            in_comments += usize::from(comments);
            votes = votes || with_element(&node, says_vote).unwrap_or(false);
            in_paragraph += usize::from(paragraph);
            in_main += usize::from(main);
            in_link += usize::from(link);
            in_code += usize::from(code);
            frames.push(Frame {
                id: node.id,
                chars: 0,
                link_chars: 0,
                longest_paragraph: 0,
                paragraph,
                has_main: main,
                has_h1: named(local_name!("h1")),
                has_article: named(local_name!("article")),
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
                in_comments -= usize::from(matches!(frame.verdict, Verdict::Comments));
                in_paragraph -= usize::from(frame.paragraph);
                in_link -= usize::from(frame.link);
                in_code -= usize::from(frame.code);
                let longest = if frame.paragraph {
                    frame.longest_paragraph.max(frame.chars)
                } else {
                    frame.longest_paragraph
                };
                let chrome = match frame.verdict {
                    Verdict::Chrome | Verdict::Noscript | Verdict::Comments | Verdict::Modal => {
                        true
                    }
                    Verdict::NamedChrome => longest < NAMED_CHROME_MAX_PARAGRAPH,
                    Verdict::Form => longest < NAMED_CHROME_MAX_PARAGRAPH && !frame.has_article,
                    Verdict::Layout => {
                        frame.link_chars * 4 >= frame.chars || frame.chars <= LAYOUT_SHORT
                    }
                    Verdict::Reviews => !frame.has_h1,
                    _ => false,
                };
                let reviews = matches!(frame.verdict, Verdict::Reviews);
                if chrome && (reviews || !frame.has_main) {
                    let comments = matches!(frame.verdict, Verdict::Comments);
                    let forced = (matches!(frame.verdict, Verdict::Noscript)
                        && frame.chars <= LAYOUT_SHORT)
                        || comments
                        || reviews
                        || matches!(frame.verdict, Verdict::Modal);
                    // A post's form inside reader comments goes with them (a thread's
                    // posts, each its own form).
                    let kept =
                        comments || (in_comments > 0 && matches!(frame.verdict, Verdict::Form));
                    if matches!(frame.verdict, Verdict::NamedChrome) {
                        named.insert(frame.id);
                    }
                    candidates.push((frame.id, frame.chars, forced, kept));
                }
                if let Some(parent) = frames.last_mut() {
                    parent.chars += frame.chars;
                    parent.link_chars += frame.link_chars;
                    parent.longest_paragraph = parent.longest_paragraph.max(longest);
                    parent.has_main |= frame.has_main;
                    parent.has_h1 |= frame.has_h1;
                    parent.has_article |= frame.has_article;
                }
            }
            true
        }
    });
    let cap = (total as f64 * CHROME_MAX_SHARE) as usize;
    // A page whose posts are voted on and whose comments hold most of its prose is a
    // discussion (a link submitted with its thread, a short post and its replies): its
    // comments are its content. Under an article, they are not.
    thread = thread || (votes && voted_thread(doc, &candidates, outside_prose));
    // Candidates arrive innermost first; an outer removal covers inner ones.
    let chosen = |spare: &HashSet<NodeId>| {
        let mut removed: HashSet<NodeId> = HashSet::new();
        let (mut removed_chars, mut named_chars) = (0usize, 0usize);
        for (id, chars, forced, comments) in candidates.iter().rev() {
            // A thread's posts are the page's content, even where its markup names them
            // comments.
            if (*comments && thread) || spare.contains(id) {
                continue;
            }
            if *chars <= cap || *forced {
                let node = NodeRef::new(*id, &doc.tree);
                if node.ancestors_it(None).any(|a| removed.contains(&a.id)) {
                    continue;
                }
                removed.insert(*id);
                removed_chars += chars;
                if named.contains(id) {
                    named_chars += chars;
                }
            }
        }
        (removed, removed_chars, named_chars)
    };
    // Chrome lies at the page's margins: when what strong names alone would remove holds
    // most of the page's text and the filter would leave little of it, the names are a
    // design system's words for its content blocks (promotions, calls to action), and
    // those blocks stay.
    let (mut removed, mut removed_chars, named_chars) = chosen(&HashSet::new());
    let left = total.saturating_sub(removed_chars);
    if named_chars as f64 > total as f64 * NAMED_CHROME_MAX_TOTAL_SHARE
        && (left as f64) < total as f64 * NAMED_CHROME_MIN_LEFT_SHARE
    {
        (removed, removed_chars, _) = chosen(&named);
    } else {
        // The cards of a grid that strong names alone mark (a card named for the
        // subscription it offers) and that hold much of the page's text are its content.
        let cards = named_cards(doc, &candidates, &named, &removed, total);
        if !cards.is_empty() {
            (removed, removed_chars, _) = chosen(&cards);
        }
    }
    for id in remove.iter().chain(removed.iter()) {
        memo.remove(&NodeRef::new(*id, &doc.tree));
    }
    if thread {
        // A thread's posts stay; the comments under each of them (a question's and its
        // answers' remarks) go.
        for (id, chars) in post_comments(doc, &candidates) {
            memo.remove(&NodeRef::new(id, &doc.tree));
            removed_chars += chars;
        }
        removed_chars += drop_post_furniture(doc, cap, true, memo).0;
        removed_chars += drop_post_previews_and_controls(doc, memo);
    } else {
        // Posts that each carry their writer's signature are a thread's, said or not; so are
        // posts that each carry their number, their own address and their writer's pane
        // (forum software marks up every post so), and the thread's rules then apply.
        let (chars, numbered) = drop_post_furniture(doc, cap, false, memo);
        removed_chars += chars;
        if numbered {
            thread = true;
            removed_chars += drop_post_previews_and_controls(doc, memo);
        }
    }
    Cleaned {
        text_chars: total.saturating_sub(removed_chars),
        all_chars: total,
        kept_chars: total.saturating_sub(removed_chars),
        scripts,
        thread,
    }
}

/// Whether the page's reader comments (the outermost of the comment `candidates`) hold at
/// least [`THREAD_MIN_RATIO`] times the paragraph text found outside them.
fn voted_thread(
    doc: &Document,
    candidates: &[(NodeId, usize, bool, bool)],
    outside_prose: usize,
) -> bool {
    let ids: HashSet<NodeId> = candidates.iter().filter(|c| c.3).map(|c| c.0).collect();
    let chars: usize = candidates
        .iter()
        .filter(|c| c.3)
        .filter(|c| {
            !NodeRef::new(c.0, &doc.tree)
                .ancestors_it(None)
                .any(|a| ids.contains(&a.id))
        })
        .map(|c| c.1)
        .sum();
    chars > 0 && chars >= outside_prose * THREAD_MIN_RATIO
}

/// The reader comments under each post of a thread (after the chrome filter removed what
/// it removes), with their visible characters: the outermost comment blocks whose post (the
/// nearest element up to [`POST_MAX_LEVELS`] above that holds text outside every comment
/// block) is one of at least two posts of one shape ([`shape_of`]) that hold such blocks,
/// when those blocks together hold less text than their posts. A thread whose posts are its
/// comments (siblings of one list, a tree of replies) has no such blocks.
fn post_comments(
    doc: &Document,
    candidates: &[(NodeId, usize, bool, bool)],
) -> Vec<(NodeId, usize)> {
    let ids: HashSet<NodeId> = candidates.iter().filter(|c| c.3).map(|c| c.0).collect();
    // Each element's text outside every comment block, counted once however many blocks
    // ask.
    let mut outside: HashMap<NodeId, usize> = HashMap::new();
    let mut blocks: Vec<(NodeId, usize, NodeRef<'_>)> = Vec::new();
    for (id, chars, _, _) in candidates.iter().filter(|c| c.3 && c.1 > 0) {
        let node = NodeRef::new(*id, &doc.tree);
        if node.ancestors_it(None).any(|a| ids.contains(&a.id))
            || !node.ancestors_it(None).any(|a| a.has_name("body"))
        {
            continue;
        }
        for a in node.ancestors_it(Some(POST_MAX_LEVELS)) {
            if a.has_name("body") {
                break;
            }
            if *outside.entry(a.id).or_insert_with(|| text_outside(a, &ids)) > 0 {
                blocks.push((*id, *chars, a));
                break;
            }
        }
    }
    let mut posts: HashMap<Shape, HashSet<NodeId>> = HashMap::new();
    for (_, _, post) in &blocks {
        posts.entry(shape_of(post)).or_default().insert(post.id);
    }
    blocks.retain(|(_, _, post)| posts[&shape_of(post)].len() >= 2);
    let comments: usize = blocks.iter().map(|b| b.1).sum();
    let own: usize = posts
        .values()
        .filter(|p| p.len() >= 2)
        .flatten()
        .map(|p| outside[p])
        .sum();
    if blocks.is_empty() || comments >= own {
        return Vec::new();
    }
    blocks
        .into_iter()
        .map(|(id, chars, _)| (id, chars))
        .collect()
}

/// Removes from a thread's page what each post carries besides its text, by class name
/// ([`names_post_furniture`]: its writer's signature, the card of the writer's counts),
/// unless it holds more than `cap` visible characters; returns the characters removed, and
/// whether the page holds a thread's numbered posts ([`NumberedPosts`]).
/// On a page that does not say it is a thread (`thread` false), only when the page holds
/// at least [`FURNITURE_MIN_POSTS`] such blocks of [`FURNITURE_MIN_MEAN_CHARS`] visible
/// characters on average: the signatures of a thread's posts, a line of their writers'
/// own, not the name-and-date bylines some blogs' comments carry under that class; or when
/// the same walk finds numbered posts, which make the page a thread's.
fn drop_post_furniture(
    doc: &Document,
    cap: usize,
    thread: bool,
    memo: &mut Memo<'_>,
) -> (usize, bool) {
    let Some(body) = doc.body() else {
        return (0, false);
    };
    // The outermost blocks so named of at most `cap` characters, counted in one walk: a
    // block so named that holds much of the page wraps its posts, and what its posts carry
    // lies inside.
    let mut found: Vec<(NodeId, usize)> = Vec::new();
    // Each open element's visible characters, for a block so named, how many blocks were
    // found before it (those found inside it give way to it), and whether it may be a
    // numbered post.
    let mut open: Vec<(usize, Option<usize>, bool)> = Vec::new();
    let mut posts = NumberedPosts::default();
    let mut chars = 0usize;
    // What each class value says, read once: a page repeats its class values.
    let mut named_by = Keyed::default();
    walk(body, |step| match step {
        Step::Enter(n) => {
            if let Some(len) = with_text(&n, visible_len) {
                if let Some(top) = open.last_mut() {
                    top.0 += len;
                }
                chars += len;
                return false;
            }
            if !n.is_element() {
                return false;
            }
            let (named, post) = with_element(&n, |e| {
                let post = !thread && posts.enter(e, &n);
                let named = attr(e, "class").is_some_and(|class| {
                    named_by.get_or_insert_with(class, || names_post_furniture(class))
                });
                (named, post)
            })
            .unwrap_or_default();
            open.push((0, named.then_some(found.len()), post));
            true
        }
        Step::Leave(n, entered) => {
            if entered
                && n.is_element()
                && let Some((len, mark, post)) = open.pop()
            {
                if let Some(top) = open.last_mut() {
                    top.0 += len;
                }
                if let Some(mark) = mark
                    && len <= cap
                {
                    found.truncate(mark);
                    found.push((n.id, len));
                }
                if post {
                    posts.leave(len);
                }
            }
            true
        }
    });
    let numbered = posts.thread(chars);
    let thread = thread || numbered;
    let total: usize = found.iter().map(|(_, len)| len).sum();
    if !thread
        && (found.len() < FURNITURE_MIN_POSTS || total < FURNITURE_MIN_MEAN_CHARS * found.len())
    {
        return (0, false);
    }
    let mut chars = 0usize;
    for (id, len) in found {
        let node = NodeRef::new(id, &doc.tree);
        let mut kept = 0;
        if thread && let Some(name) = writer_name(&node) {
            // The card goes; the writer's name stays, as a line of the post's text.
            kept = text_len(&name);
            node.insert_before(&name);
        }
        memo.remove(&node);
        chars += len.saturating_sub(kept);
    }
    (chars, numbered)
}

/// A discussion's posts as forum software marks them up, found in one walk (see
/// [`drop_post_furniture`]): at least [`NUMBERED_POSTS_MIN`] blocks, none inside another,
/// each with an `id` that ends in a number of at least [`POST_NUMBER_MIN_DIGITS`] digits
/// (the post's anchor), a link whose address holds that number (the post's own address) and
/// an element whose class names its writer ([`names_writer`]: the writer's pane), which
/// together hold at least [`NUMBERED_POSTS_MIN_SHARE`] of the body's visible characters,
/// with the numbered blocks beside them that carry a writer's pane but no such link (the
/// opening post, whose address is the thread's own). Each link is compared with the
/// [`POST_NUMBERS_COMPARED`] innermost open blocks at most.
#[derive(Default)]
struct NumberedPosts {
    /// The open blocks that may be posts, innermost last.
    open: Vec<OpenPost>,
    /// The visible characters of each post found, outermost ones only, and its parent.
    found: Vec<(usize, Option<NodeId>)>,
    /// The numbered blocks with a writer's pane but no link to their number and no post
    /// inside (an opening post, whose address is the thread's own), with their visible
    /// characters and parent: posts too when they lie beside posts found.
    unlinked: Vec<(usize, Option<NodeId>)>,
}

/// An open block that may be a post (see [`NumberedPosts`]).
struct OpenPost {
    /// The number its `id` ends in.
    number: String,
    /// Whether a link inside it holds the number.
    linked: bool,
    /// Whether its writer's pane lies inside it.
    pane: bool,
    /// How many posts were found before it (those found inside it give way to it).
    mark: usize,
    /// Its parent.
    parent: Option<NodeId>,
}

impl NumberedPosts {
    /// Reads an element entered (`e`, the element of `node`); returns whether it may be a
    /// post (then [`Self::leave`] is told when the walk leaves it).
    fn enter(&mut self, e: &Element, node: &NodeRef<'_>) -> bool {
        let number = attr(e, "id").and_then(post_number);
        if let Some(number) = number {
            self.open.push(OpenPost {
                number: number.to_owned(),
                linked: false,
                pane: false,
                mark: self.found.len(),
                parent: node.parent().map(|p| p.id),
            });
        }
        if let Some(top) = self.open.last_mut()
            && !top.pane
        {
            top.pane = attr(e, "class").is_some_and(names_writer);
        }
        if !self.open.is_empty()
            && &*e.name.local == "a"
            && let Some(href) = attr(e, "href")
        {
            for post in self.open.iter_mut().rev().take(POST_NUMBERS_COMPARED) {
                post.linked |= href.contains(&post.number);
            }
        }
        number.is_some()
    }

    /// Leaves the innermost open block, of `chars` visible characters.
    fn leave(&mut self, chars: usize) {
        let Some(post) = self.open.pop() else {
            return;
        };
        // The pane inside this block is inside the one around it too.
        if let Some(outer) = self.open.last_mut() {
            outer.pane |= post.pane;
        }
        if post.linked && post.pane {
            self.found.truncate(post.mark);
            self.found.push((chars, post.parent));
        } else if post.pane && self.found.len() == post.mark {
            self.unlinked.push((chars, post.parent));
        }
    }

    /// Whether the posts found make a body of `chars` visible characters a thread's.
    fn thread(&self, chars: usize) -> bool {
        let parents: HashSet<NodeId> = self.found.iter().filter_map(|f| f.1).collect();
        let beside: usize = self
            .unlinked
            .iter()
            .filter(|u| u.1.is_some_and(|p| parents.contains(&p)))
            .map(|u| u.0)
            .sum();
        let held = self.found.iter().map(|f| f.0).sum::<usize>() + beside;
        self.found.len() >= NUMBERED_POSTS_MIN
            && held as f64 >= chars as f64 * NUMBERED_POSTS_MIN_SHARE
    }
}

/// The number an `id` ends in, when it has at least [`POST_NUMBER_MIN_DIGITS`] digits
/// (`p2169826`, `post-4859929`, `post_1324873`).
fn post_number(id: &str) -> Option<&str> {
    let digits = id.bytes().rev().take_while(u8::is_ascii_digit).count();
    (digits >= POST_NUMBER_MIN_DIGITS).then(|| &id[id.len() - digits..])
}

/// How many numbered posts make a page that does not say so a thread's.
const NUMBERED_POSTS_MIN: usize = 3;

/// The share of the body's visible characters those posts hold at least.
const NUMBERED_POSTS_MIN_SHARE: f64 = 0.5;

/// The digits a post's number has at least.
const POST_NUMBER_MIN_DIGITS: usize = 3;

/// How many of the innermost open posts a link's address is compared with.
const POST_NUMBERS_COMPARED: usize = 4;

/// The writer's name in a card of a thread's post: the card's first heading with text,
/// made a paragraph of its text alone (its link to the writer's profile is not a teaser's).
fn writer_name<'a>(card: &NodeRef<'a>) -> Option<NodeRef<'a>> {
    let heading = card.descendants_it().find(|n| {
        with_element(n, |e| {
            matches!(&*e.name.local, "h2" | "h3" | "h4" | "h5" | "h6")
        })
        .unwrap_or(false)
            && !n.text().trim().is_empty()
    })?;
    let text = collapse(&heading.text());
    heading.set_text(text);
    heading.rename("p");
    Some(heading)
}

/// Removes from a thread's page, by one walk, the previews of the posts its posts reply to
/// (a block clamped to one line, class `line-clamp-1`, holding a paragraph: a post the
/// thread shows whole in its place) and the controls its posts' scripts run (a link without
/// an address that says it is a button, `role="button"`: "Click to expand...", "Quote", of
/// at most [`CONTROL_MAX_CHARS`] visible characters); returns the visible characters removed.
fn drop_post_previews_and_controls(doc: &Document, memo: &mut Memo<'_>) -> usize {
    let Some(body) = doc.body() else {
        return 0;
    };
    // Each found element, and whether it is a control (else a preview).
    let mut found: Vec<(NodeId, bool)> = Vec::new();
    walk(body, |step| match step {
        Step::Enter(n) => {
            if !n.is_element() {
                return false;
            }
            let (clamped, control) = with_element(&n, |e| {
                let clamped = attr(e, "class")
                    .is_some_and(|c| c.split_ascii_whitespace().any(|t| t == ONE_LINE_CLAMP));
                let control = &*e.name.local == "a"
                    && attr(e, "href").is_none()
                    && attr(e, "role").is_some_and(|r| r.trim().eq_ignore_ascii_case("button"));
                (clamped, control)
            })
            .unwrap_or_default();
            if clamped && n.children_it(false).any(|c| c.has_name("p")) {
                found.push((n.id, false));
                return false;
            }
            if control {
                found.push((n.id, true));
                return false;
            }
            true
        }
        Step::Leave(..) => true,
    });
    let mut chars = 0usize;
    for (id, control) in found {
        let node = NodeRef::new(id, &doc.tree);
        let len = text_len(&node);
        if !control || len <= CONTROL_MAX_CHARS {
            chars += len;
            memo.remove(&node);
        }
    }
    chars
}

/// A control of a thread's post holds at most this many visible characters.
const CONTROL_MAX_CHARS: usize = 40;

/// The class that clamps a block's text to its first line.
const ONE_LINE_CLAMP: &str = "line-clamp-1";

/// How many posts' furniture blocks make a page that does not say so a thread's.
const FURNITURE_MIN_POSTS: usize = 3;

/// The mean visible characters of those blocks: a signature's line, not a byline.
const FURNITURE_MIN_MEAN_CHARS: usize = 50;

/// The visible characters under `node` outside the elements of `skip`.
fn text_outside(node: NodeRef<'_>, skip: &HashSet<NodeId>) -> usize {
    let mut chars = 0usize;
    walk(node, |step| match step {
        Step::Enter(n) => {
            if let Some(len) = with_text(&n, visible_len) {
                chars += len;
                return false;
            }
            n.is_element() && !skip.contains(&n.id)
        }
        Step::Leave(..) => true,
    });
    chars
}

/// Whether an element's class names a vote (`upvote`, `VoteBtn`, `unvoted`): the control
/// of a discussion's posts.
fn says_vote(e: &Element) -> bool {
    attr(e, "class").is_some_and(|c| {
        c.as_bytes()
            .windows(4)
            .any(|w| w.eq_ignore_ascii_case(b"vote"))
    })
}

/// Whether an element says, in schema.org terms, that the page is a discussion thread: a
/// JSON-LD island or a microdata `itemtype` naming a forum post or a question page.
fn says_thread(node: &NodeRef<'_>) -> bool {
    let (typed, island) = with_element(node, |e| {
        (
            attr(e, "itemtype").is_some_and(names_thread),
            &*e.name.local == "script"
                && attr(e, "type")
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json")),
        )
    })
    .unwrap_or_default();
    typed || (island && names_thread(&node.text()))
}

/// Removes chrome from the document, then prunes boilerplate from its body.
pub(crate) fn clean_and_prune(doc: &Document, memo: &mut Memo<'_>) -> Cleaned {
    let mut cleaned = clean(doc, memo);
    if let Some(body) = doc.body() {
        if memo.product() {
            let removed = drop_carousels(body, memo);
            cleaned.text_chars = cleaned.text_chars.saturating_sub(removed);
        }
        cleaned.kept_chars = prune(body, memo);
    }
    cleaned
}

/// Shows the panels that a tab (`role=tab`) names in `aria-controls`, and those an
/// accordion's toggle names (a control with `aria-expanded` and `aria-controls` within a
/// heading, or holding one) or opens without naming (a `button` holding a heading, before
/// the hidden block that is its panel): the reader opens them in place, so their text is
/// the page's however the page hides them until then (hidden classes, `aria-hidden`,
/// `hidden`, an inline `display: none`).
fn unfold_tab_panels(doc: &Document) {
    let mut panels: HashSet<String> = HashSet::new();
    // The panels a toggle opens without naming them: the block right after it.
    let mut next: Vec<NodeId> = Vec::new();
    // The buttons holding a heading that open a panel: the heading is the panel's title.
    let mut toggles: Vec<NodeId> = Vec::new();
    // One walk for all: a tab, or an accordion's toggle (a control that says whether its
    // panel is expanded, within a heading or holding one; a button holding a heading).
    walk(doc.root(), |step| {
        let Step::Enter(node) = step else {
            return true;
        };
        let (controls, button) = with_element(&node, |e| {
            (
                has_attr(e, local_name!("aria-controls")),
                e.name.local == local_name!("button"),
            )
        })
        .unwrap_or((false, false));
        if !controls && !button {
            return true;
        }
        if !controls {
            // A button holding a heading (the question) before a hidden block (its answer).
            if holds_heading(&node)
                && let Some(panel) = node.next_element_sibling()
                && hides(&panel)
            {
                next.push(panel.id);
                toggles.push(node.id);
            }
            return true;
        }
        let Some(ids) = node.attr("aria-controls") else {
            return true;
        };
        let tab = with_element(&node, |e| {
            attr(e, "role").is_some_and(|r| r.trim().eq_ignore_ascii_case("tab"))
        })
        .unwrap_or(false);
        let heading = holds_heading(&node);
        let folds = || {
            node.has_attr("aria-expanded")
                && (heading
                    || node.ancestors_it(Some(ACCORDION_MAX_LEVELS)).any(|a| {
                        with_element(&a, |e| {
                            matches!(&*e.name.local, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
                        })
                        .unwrap_or(false)
                    }))
        };
        if tab || folds() {
            panels.extend(ids.split_ascii_whitespace().map(str::to_owned));
            if button && heading {
                toggles.push(node.id);
            }
        }
        true
    });
    // A button's content is never the page's; a toggle's heading is its panel's title
    // (an answer's question), so the toggle becomes a block.
    for id in toggles {
        NodeRef::new(id, &doc.tree).rename("div");
    }
    if panels.is_empty() && next.is_empty() {
        return;
    }
    let named = if panels.is_empty() {
        Vec::new()
    } else {
        doc.select("[id]").nodes().to_vec()
    };
    let shown = named
        .into_iter()
        .filter(|node| node.attr("id").is_some_and(|id| panels.contains(id.trim())))
        .chain(next.into_iter().map(|id| NodeRef::new(id, &doc.tree)));
    for node in shown {
        node.remove_attr("aria-hidden");
        node.remove_attr("hidden");
        if node.attr("style").is_some() && is_hidden(&node) {
            node.remove_attr("style");
        }
        if let Some(class) = node.attr("class").filter(|c| has_hidden_class(c)) {
            let shown: Vec<&str> = class
                .split_ascii_whitespace()
                .filter(|t| !has_hidden_class(t))
                .collect();
            node.set_attr("class", &shown.join(" "));
        }
    }
}

/// Whether a control holds a heading (an accordion's question) among the first
/// [`TOGGLE_MAX_NODES`] nodes inside it: a toggle is small, and a control wrapped around a
/// page is not read to its end.
fn holds_heading(node: &NodeRef<'_>) -> bool {
    node.descendants_it().take(TOGGLE_MAX_NODES).any(|d| {
        with_element(&d, |e| {
            matches!(&*e.name.local, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
        })
        .unwrap_or(false)
    })
}

/// Whether an element is hidden, by its attributes or by a hidden class.
fn hides(node: &NodeRef<'_>) -> bool {
    is_hidden(node) || node.attr("class").is_some_and(|c| has_hidden_class(&c))
}

/// The blocks that strong names alone mark as chrome (`removed` by the filter, and among
/// `named`) that are cards of a grid in the page's main content: each is, or lies up to
/// [`NAMED_CARD_MAX_UP`] elements below, a member of a repeated group of alike siblings
/// (elements of one shape whose children are alike) within a `main`, an `article` or role
/// `main`, and at least [`NAMED_CARDS_MIN`] of them together hold at least
/// [`NAMED_CARDS_MIN_SHARE`] of the page's `total` visible characters. A design system names
/// a shop's cards after what they offer (a subscription, a promotion); chrome lies at the
/// margins, not in a grid of the main content.
fn named_cards(
    doc: &Document,
    candidates: &[(NodeId, usize, bool, bool)],
    named: &HashSet<NodeId>,
    removed: &HashSet<NodeId>,
    total: usize,
) -> HashSet<NodeId> {
    // By group (its parent and the members' shape): the candidates and their characters.
    let mut groups: HashMap<(NodeId, Shape), (Vec<NodeId>, usize)> = HashMap::new();
    // By parent, its children by shape.
    let mut by_parent: HashMap<NodeId, HashMap<Shape, Vec<NodeId>>> = HashMap::new();
    for &(id, chars, _, _) in candidates {
        if !removed.contains(&id) || !named.contains(&id) {
            continue;
        }
        let node = NodeRef::new(id, &doc.tree);
        for member in std::iter::once(node)
            .chain(node.ancestors_it(None))
            .take(NAMED_CARD_MAX_UP + 1)
        {
            let Some(parent) = member.parent() else {
                break;
            };
            let shapes = by_parent.entry(parent.id).or_insert_with(|| {
                let mut shapes: HashMap<Shape, Vec<NodeId>> = HashMap::new();
                for child in parent.element_children() {
                    shapes.entry(shape_of(&child)).or_default().push(child.id);
                }
                shapes
            });
            let shape = shape_of(&member);
            let same = shapes.get(&shape).map_or(&[][..], Vec::as_slice);
            let inner = inner_shapes(&member);
            let alike_ones = same
                .iter()
                .filter(|&&s| s != member.id)
                .take(NAMED_CARD_COMPARED)
                .filter(|&&s| alike(&inner_shapes(&NodeRef::new(s, &doc.tree)), &inner))
                .count();
            if alike_ones + 1 >= NAMED_CARDS_MIN {
                let group = groups.entry((parent.id, shape)).or_default();
                group.0.push(id);
                group.1 += chars;
                break;
            }
        }
    }
    groups
        .into_iter()
        .filter(|((parent, _), (ids, chars))| {
            ids.len() >= NAMED_CARDS_MIN
                && *chars as f64 >= total as f64 * NAMED_CARDS_MIN_SHARE
                && in_main(NodeRef::new(*parent, &doc.tree))
        })
        .map(|(_, group)| group)
        .flat_map(|(ids, _)| ids)
        .collect()
}

/// Whether an element is or lies within the page's main content, as its markup says: a
/// `main`, an `article` or an element of role `main`.
fn in_main(node: NodeRef<'_>) -> bool {
    std::iter::once(node)
        .chain(node.ancestors_it(None))
        .any(|a| {
            with_element(&a, |e| {
                matches!(&*e.name.local, "main" | "article")
                    || attr(e, "role").is_some_and(|r| r.eq_ignore_ascii_case("main"))
            })
            .unwrap_or(false)
        })
}

/// Whether an element says it is a modal dialog (`aria-modal="true"`), which only a dialog
/// lying over the page may say.
fn is_modal(e: &Element) -> bool {
    attr(e, "aria-modal").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::meta::PageSurvey;
    use crate::extract::parse::parse;
    use crate::extract::render::render;
    use ::url::Url;

    /// The body's text once the chrome filter has run, told whether the page is one
    /// product's as extraction tells it.
    fn text(html: &str) -> String {
        let doc = parse(html);
        let base = Url::parse("https://example.com/").unwrap();
        let mut memo = Memo::new(&base);
        memo.set_product(PageSurvey::of(&doc).sells_a_product(&doc));
        clean(&doc, &mut memo);
        render(doc.body().unwrap()).join("\n")
    }

    #[test]
    fn a_thread_that_says_it_is_one_keeps_its_posts_named_comments() {
        let posts: String = (0..4)
            .map(|i| {
                format!(
                    "<article class='comment post' id='comment-{i}'><p>Reply {i}: the bearing \
                     wore out after two winters, so I replaced it with a sealed one.</p>\
                     </article>"
                )
            })
            .collect();
        let thread =
            format!("<main><h1>Bearing wears out</h1><div id=comments>{posts}</div></main>");
        // Said by a JSON-LD island or by microdata, the posts are the page's content.
        for head in [
            "<script type='application/ld+json'>{\"@context\":\"https://schema.org\",\
             \"@type\":\"DiscussionForumPosting\",\"headline\":\"Bearing\"}</script>",
            "<script type='application/ld+json'>{\"@type\":\"QAPage\"}</script>",
        ] {
            let out = text(&format!(
                "<html><head>{head}</head><body>{thread}</body></html>"
            ));
            assert!(out.contains("Reply 0: the bearing"), "{out}");
            assert!(out.contains("Reply 3: the bearing"), "{out}");
        }
        let out = text(&format!(
            "<html><body><div itemscope itemtype='https://schema.org/DiscussionForumPosting'>\
             {thread}</div></body></html>"
        ));
        assert!(out.contains("Reply 3: the bearing"), "{out}");
        // Without it, the same posts are reader comments, and a data island of another type
        // says nothing.
        for head in [
            "",
            "<script type='application/ld+json'>{\"@type\":\"Article\"}</script>",
        ] {
            let out = text(&format!(
                "<html><head>{head}</head><body>{thread}</body></html>"
            ));
            assert!(!out.contains("the bearing"), "{out}");
            assert!(out.contains("Bearing wears out"), "{out}");
        }
    }

    #[test]
    fn the_comments_under_each_post_of_a_thread_go_and_its_posts_stay() {
        let island = "<script type='application/ld+json'>{\"@type\":\"QAPage\"}</script>";
        // Each post, a question or an answer, with its own remarks under it.
        let post = |kind: &str, i: usize| {
            format!(
                "<div class={kind}><div class=layout><div class=body><p>{kind} {i}: the \
                 bearing wore out after two winters, so a sealed one went in its place, \
                 and it has run quietly since then.</p></div><div class=right>\
                 <div class=comments><ul><li class=comment>Remark {i}: which brand?</li>\
                 </ul></div></div></div></div>"
            )
        };
        let posts: String = std::iter::once(post("question", 0))
            .chain((1..4).map(|i| post("answer", i)))
            .collect();
        let out = text(&format!(
            "<html><head>{island}</head><body><main>{posts}</main></body></html>"
        ));
        assert!(out.contains("question 0: the bearing"), "{out}");
        assert!(out.contains("answer 3: the bearing"), "{out}");
        assert!(!out.contains("Remark"), "{out}");
        // A thread whose posts are its comments, one list or a tree of replies under the
        // first post, keeps them.
        let replies: String = (0..4)
            .map(|i| {
                format!(
                    "<li class=comment><p>Reply {i}: the bearing wore out after two winters.\
                     </p><ul class=comments><li class=comment>Reply to {i}: mine too.</li>\
                     </ul></li>"
                )
            })
            .collect();
        let out = text(&format!(
            "<html><head>{island}</head><body><main><div class=story><p>A story about \
             bearings and how long they last.</p><ul class=comments>{replies}</ul></div>\
             </main></body></html>"
        ));
        assert!(out.contains("Reply 3: the bearing"), "{out}");
        assert!(out.contains("Reply to 3: mine too"), "{out}");
    }

    #[test]
    fn a_thread_s_posts_lose_their_writers_signatures_and_cards() {
        let posts: String = (0..3)
            .map(|i| {
                format!(
                    "<div class=post><p>Post {i}: the bearing wore out after two winters.</p>\
                     <div class='post-signature'>Rider {i}, 1,204 posts, joined 2009</div>\
                     <div class=signature>Ride safe out there</div><div \
                     class=message-userExtras>Messages 311 Reaction score 87</div></div>"
                )
            })
            .collect();
        let island = "<script type='application/ld+json'>{\"@type\":\"QAPage\"}</script>";
        let out = text(&format!(
            "<html><head>{island}</head><body><main>{posts}</main></body></html>"
        ));
        assert!(out.contains("Post 2: the bearing"), "{out}");
        assert!(!out.contains("joined 2009"), "{out}");
        assert!(!out.contains("Ride safe"), "{out}");
        assert!(!out.contains("Reaction score"), "{out}");
        // Elsewhere a signature is the page's text (a letter's, a petition's).
        let out = text(&format!("<html><body><main>{posts}</main></body></html>"));
        assert!(out.contains("Ride safe"), "{out}");
    }

    #[test]
    fn a_thread_s_writer_cards_go_and_leave_the_writer_s_name() {
        let posts: String = (0..3)
            .map(|i| {
                format!(
                    "<article class=message><div class=message-userDetails><h4 \
                     class=message-name><a href='/members/rider{i}'>Rider{i}</a></h4><h5 \
                     class=userTitle>Well-known member</h5></div><div \
                     class=message-body><p>Post {i}: the bearing wore out after two \
                     winters.</p></div></article>"
                )
            })
            .collect();
        let island = "<script type='application/ld+json'>{\"@type\":\"QAPage\"}</script>";
        let out = text(&format!(
            "<html><head>{island}</head><body><main>{posts}</main></body></html>"
        ));
        // The name is a line of its own, no longer a link to the writer's profile.
        assert!(out.contains("Rider2\n"), "{out}");
        assert!(!out.contains("members/rider2"), "{out}");
        assert!(!out.contains("Well-known member"), "{out}");
        assert!(out.contains("Post 2: the bearing"), "{out}");
    }

    #[test]
    fn a_block_named_as_post_furniture_that_holds_the_thread_is_looked_inside() {
        // A thread wrapped in a block whose class names a post's profile.
        let posts: String = (0..3)
            .map(|i| {
                format!(
                    "<div class=post><p>Post {i}: the bearing wore out after two winters.</p>\
                     <div class=signature>Ride safe out there</div></div>"
                )
            })
            .collect();
        let island = "<script type='application/ld+json'>{\"@type\":\"QAPage\"}</script>";
        let out = text(&format!(
            "<html><head>{island}</head><body><div class=postprofile_container>{posts}</div>\
             </body></html>"
        ));
        assert!(out.contains("Post 2: the bearing"), "{out}");
        assert!(!out.contains("Ride safe"), "{out}");
    }

    #[test]
    fn a_thread_s_previews_of_the_posts_replied_to_go() {
        let posts: String = (0..3)
            .map(|i| {
                format!(
                    "<li class=post><div class='text-muted line-clamp-1'><p>Quoted {i} from \
                     an earlier post of the thread.</p></div><div class=content><p>Post {i}: \
                     the bearing wore out after two winters.</p></div></li>"
                )
            })
            .collect();
        let island = "<script type='application/ld+json'>{\"@type\":\"QAPage\"}</script>";
        let page = |head: &str| {
            format!("<html><head>{head}</head><body><main><ul>{posts}</ul></main></body></html>")
        };
        let out = text(&page(island));
        assert!(out.contains("Post 2: the bearing"), "{out}");
        assert!(!out.contains("Quoted 2"), "{out}");
        // Elsewhere a block clamped to a line is a card's summary.
        let out = text(&page(""));
        assert!(out.contains("Quoted 2"), "{out}");
    }

    #[test]
    fn a_thread_s_posts_lose_the_controls_their_scripts_run() {
        let posts: String = (0..3)
            .map(|i| {
                format!(
                    "<article class=post><blockquote><p>Quoted {i} from an earlier post.</p>\
                     <div class=expand><a role=button tabindex=0>Click to expand...</a></div>\
                     </blockquote><p>Post {i}: the bearing wore out after two winters.</p>\
                     <a role=button href='/reply/{i}'>Reply to post {i}</a></article>"
                )
            })
            .collect();
        let island = "<script type='application/ld+json'>{\"@type\":\"QAPage\"}</script>";
        let page = |head: &str| {
            format!("<html><head>{head}</head><body><main>{posts}</main></body></html>")
        };
        let out = text(&page(island));
        assert!(out.contains("Post 2: the bearing"), "{out}");
        assert!(out.contains("Quoted 2"), "{out}");
        assert!(!out.contains("Click to expand"), "{out}");
        // A link with an address is a link, whatever its role says.
        assert!(out.contains("Reply to post 2"), "{out}");
        // Elsewhere the controls are left to the other filters.
        let out = text(&page(""));
        assert!(out.contains("Click to expand"), "{out}");
    }

    #[test]
    fn posts_that_each_carry_a_signature_lose_it_on_a_page_that_does_not_say_thread() {
        let posts = |sig: &str| -> String {
            (0..3)
                .map(|i| {
                    format!(
                        "<div class=post><p>Post {i}: the bearing wore out after two winters \
                         and the replacement came from the shop down the road.</p>\
                         <div class=signature>{sig} {i}</div></div>"
                    )
                })
                .collect()
        };
        let page = |sig: &str| format!("<html><body><main>{}</main></body></html>", posts(sig));
        let line = "Running two rebuilt engines since the spring rally, parts list in my profile";
        let out = text(&page(line));
        assert!(out.contains("Post 2: the bearing"), "{out}");
        assert!(!out.contains("rebuilt engines"), "{out}");
        // A blog comment's byline under that class (a date and a name) stays.
        let out = text(&page("October 11, 2012 | Eve"));
        assert!(out.contains("October 11, 2012 | Eve 2"), "{out}");
    }

    #[test]
    fn posts_that_carry_their_number_address_and_writer_s_pane_are_a_thread_s() {
        // Forum software's posts: each anchored by its number, each with a link to its own
        // address and its writer's pane beside its text.
        let post = |i: usize, pane: &str, stats: &str| {
            format!(
                "<div class=post id=p{n}><div class={pane}><b>Rider{i}</b><div \
                 class={stats}>Posts: 98</div></div><div class=body><h3><a \
                 href='viewtopic.php?p={n}#p{n}'>Re: Bearing</a></h3><p>Post {i}: the \
                 bearing wore out after two winters and the new one came from the shop \
                 down the road.</p></div></div>",
                n = 2_169_826 + i
            )
        };
        let page = |pane: &str, stats: &str| {
            let posts: String = (0..3).map(|i| post(i, pane, stats)).collect();
            format!("<html><body><main><h1>Bearing</h1>{posts}</main></body></html>")
        };
        let base = Url::parse("https://example.com/").unwrap();
        let cleaned = |html: &str| {
            let doc = parse(html);
            let mut memo = Memo::new(&base);
            let thread = clean(&doc, &mut memo).thread;
            (thread, render(doc.body().unwrap()).join("\n"))
        };
        let (thread, out) = cleaned(&page("poster", "userstats"));
        assert!(thread, "{out}");
        // The thread's rules run: the writers' counts go, the posts stay.
        assert!(!out.contains("Posts: 98"), "{out}");
        assert!(out.contains("Post 2: the bearing"), "{out}");
        // Without a writer's pane, numbered blocks that link to their number are cards.
        let (thread, out) = cleaned(&page("side", "stats"));
        assert!(!thread, "{out}");
        assert!(out.contains("Posts: 98"), "{out}");
        // Reader comments under an article, numbered and linked alike, are not a thread.
        let comments: String = (0..4)
            .map(|i| {
                format!(
                    "<li class=comment id=comment-{n}><div class=comment-author>Eve{i}</div>\
                     <a href='#comment-{n}'>May 2</a><p>Comment {i}: nice write-up, the \
                     bearing on mine went the same way.</p></li>",
                    n = 5_140 + i
                )
            })
            .collect();
        let article = format!(
            "<html><body><article><h1>Bearing</h1><p>{}</p></article><ol \
             class=comments>{comments}</ol></body></html>",
            "The bearing wore out after two winters. ".repeat(12)
        );
        let (thread, out) = cleaned(&article);
        assert!(!thread, "{out}");
        assert!(!out.contains("Comment 3"), "{out}");
    }

    #[test]
    fn an_opening_post_whose_address_is_the_thread_s_counts_beside_its_replies() {
        let reply = |i: usize| {
            format!(
                "<li class=message id=post-{n}><div class=userInfo>Rider{i}</div><a \
                 href='posts/{n}/'>#{i}</a><p>Reply {i}: mine went the same way.</p></li>",
                n = 4_860_000 + i
            )
        };
        let replies: String = (1..4).map(reply).collect();
        let opening = "The bearing wore out after two winters, and here is the list. ".repeat(12);
        let base = Url::parse("https://example.com/").unwrap();
        let thread = |html: &str| {
            let doc = parse(html);
            clean(&doc, &mut Memo::new(&base)).thread
        };
        // The opening post's links name the thread, not its number; it holds most of the text.
        let first = format!(
            "<li class=message id=post-4859929><div class=userInfo>Rider0</div><a \
             href='threads/bearing.691400/'>#0</a><p>{opening}</p></li>"
        );
        let page = format!("<html><body><main><ol>{first}{replies}</ol></main></body></html>");
        assert!(thread(&page));
        // Not beside them (an article, its writer named, over a short list of numbered
        // blocks), it does not count.
        let page = format!(
            "<html><body><main><article id=post-4859929><span class=author>Eve</span><p>\
             {opening}</p></article><ol>{replies}</ol></main></body></html>"
        );
        assert!(!thread(&page));
    }

    #[test]
    fn a_voted_thread_whose_comments_hold_its_prose_keeps_them() {
        // A link submitted with its discussion: each reply is voted on, each reply's text is
        // its own form, and the replies hold the page's prose.
        let replies: String = (0..4)
            .map(|i| {
                format!(
                    "<div class='comment'><span class='upvoter'></span><form class='usertext'>\
                     <p>Reply {i}: the bearing wore out after two winters, so I replaced it \
                     with a sealed one and it has run quietly since then.</p></form></div>"
                )
            })
            .collect();
        let page = |story: &str| {
            format!(
                "<html><body><main><h1>Bearing wears out</h1>{story}\
                 <div class='comments'>{replies}</div></main></body></html>"
            )
        };
        let out = text(&page("<a href='/x'>example.com</a>"));
        assert!(out.contains("Reply 0: the bearing"), "{out}");
        assert!(out.contains("Reply 3: the bearing"), "{out}");
        // Under an article, the same voted replies are reader comments.
        let article = "<p>The bearing of the front wheel is the part that wears first, and \
                       how long it lasts depends on the seal, the grease and the roads.</p>"
            .repeat(4);
        let out = text(&page(&article));
        assert!(!out.contains("Reply 0"), "{out}");
        assert!(out.contains("the seal, the grease"), "{out}");
        // Without votes, they are reader comments too.
        let out = text(&page("<a href='/x'>example.com</a>").replace("upvoter", "avatar"));
        assert!(!out.contains("Reply 0"), "{out}");
    }

    #[test]
    fn a_tab_s_panel_is_shown_however_the_page_hides_it() {
        // Three tabs of a plan's details: the open one shows, the others are hidden by a
        // class, by `aria-hidden` and by an inline style until the reader picks them. A
        // hidden block that no tab names stays hidden.
        let out = text(
            "<html><body><main><div role=tablist><a role=tab aria-controls=p1>Storage</a>\
             <a role=tab aria-controls=p2>Security</a><a role=tab aria-controls='p3'>Support\
             </a></div><div id=p1 role=tabpanel><p>Ten gigabytes for every member of the \
             team.</p></div><div id=p2 class='panel hidden'><p>Every file is encrypted at \
             rest.</p></div><div id=p3 aria-hidden=true style='display:none'><p>Help by \
             phone all day.</p></div><div class=hidden><p>A hidden promotion.</p></div>\
             </main></body></html>",
        );
        assert!(out.contains("Ten gigabytes"), "{out}");
        assert!(out.contains("encrypted at rest"), "{out}");
        assert!(out.contains("Help by phone"), "{out}");
        assert!(!out.contains("hidden promotion"), "{out}");
    }

    #[test]
    fn an_accordion_s_panels_are_shown_however_the_page_hides_them() {
        // Questions and answers: each question a heading whose button says whether its
        // answer is expanded; the answers hidden until the reader opens them. A control
        // outside a heading (a menu's toggle) opens nothing of the page's.
        let out = text(
            "<html><body><main><h3><button aria-expanded=false aria-controls=a1>Can I \
             cancel?</button></h3><div id=a1 hidden><p>Yes, at any time, from your \
             account.</p></div><h3><span><a href='#a2' aria-expanded=false \
             aria-controls=a2>Is there a trial?</a></span></h3><div id=a2 class='answer \
             hidden' aria-hidden=true><p>Thirty days, free of charge.</p></div><button \
             aria-expanded=false aria-controls=m1>Menu</button><div id=m1 hidden><p>A \
             hidden menu.</p></div></main></body></html>",
        );
        assert!(out.contains("at any time"), "{out}");
        assert!(out.contains("Thirty days"), "{out}");
        assert!(!out.contains("hidden menu"), "{out}");
    }

    #[test]
    fn a_toggle_holding_its_question_shows_its_answer_and_the_question() {
        // Questions in the buttons that open their answers: one names its answer and says
        // whether it is expanded, the other names nothing and its answer is the hidden block
        // right after it. The questions and the answers are the page's; a button holding
        // no heading (a menu's toggle) opens nothing.
        let out = text(
            "<html><body><main><h1>Help</h1><div><button aria-expanded=false \
             aria-controls=a1><h3>Can I cancel?</h3></button></div><div id=a1 \
             class='answer hidden'><p>Yes, at any time, from your account.</p></div>\
             <div><button type=button><h5>Is there a trial?</h5><span></span></button>\
             <div class='text-sm hidden'><p>Thirty days, free of charge.</p></div></div>\
             <button>Menu</button><div class=hidden><p>A hidden menu.</p></div>\
             </main></body></html>",
        );
        assert!(out.contains("Can I cancel?"), "{out}");
        assert!(out.contains("at any time"), "{out}");
        assert!(out.contains("Is there a trial?"), "{out}");
        assert!(out.contains("Thirty days"), "{out}");
        assert!(!out.contains("Menu"), "{out}");
        assert!(!out.contains("hidden menu"), "{out}");
    }

    #[test]
    fn a_modal_dialog_is_removed_however_long_its_text() {
        // A policy in a modal dialog holds most of the page's text; the product's
        // description is the content.
        let policy = "<p>We process personal information for our legitimate purposes of \
                      running our business, complying with the law, and serving you.</p>"
            .repeat(40);
        let page = |modal: &str| {
            format!(
                "<html><body><main><h1>Wool Runner</h1><p>The original wool sneaker, soft \
                 and light, made of merino wool.</p></main><div id=modal-privacy-policy \
                 {modal} class='fixed inset-0'>{policy}</div></body></html>"
            )
        };
        let out = text(&page("aria-modal=true"));
        assert!(out.contains("The original wool sneaker"), "{out}");
        assert!(!out.contains("personal information"), "{out}");
        // Without the attribute, a block of that much text is kept.
        let out = text(&page(""));
        assert!(out.contains("personal information"), "{out}");
    }

    #[test]
    fn blocks_named_promotions_that_hold_most_of_the_page_are_its_content() {
        // A landing page whose design system names its feature blocks `promo`: removing
        // them by that name would leave its heading alone.
        let block = |n: usize| {
            format!(
                "<div class=promo><h2>Feature {n}</h2><p>Our advisers help teams plan the \
                 work, measure what changes and report to the board each quarter, number \
                 {n}.</p></div>"
            )
        };
        let blocks: String = (1..=3).map(block).collect();
        let page =
            |more: &str| format!("<html><body><h1>Consulting</h1>{blocks}{more}</body></html>");
        let out = text(&page(""));
        assert!(out.contains("number 2."), "{out}");
        // Beside an article that holds much of the page, they are promotions and go.
        let story = "<p>The firm reported its results on Tuesday, and the figures showed \
                     growth in every region where it works, led by its advisory practice \
                     and the teams it added last year.</p>"
            .repeat(2);
        let out = text(&page(&story));
        assert!(out.contains("every region"), "{out}");
        assert!(!out.contains("number 2."), "{out}");
    }

    #[test]
    fn a_component_library_s_blocks_are_content_and_a_consent_manager_s_banner_is_not() {
        // A component library names each block `cmp-…`; the page's text is in them.
        let blocks: String = (0..3)
            .map(|i| {
                format!(
                    "<div class='cmp-container container-{i}'><div class='text cmp-text'>\
                     <p>Section {i}: our consultants help teams plan, build and run their \
                     data platforms.</p></div></div>"
                )
            })
            .collect();
        let out = text(&format!(
            "<html><body><main>{blocks}</main><div id=cmpbox class=cmp-banner><p>We use \
             cookies to improve your experience.</p></div></body></html>"
        ));
        assert!(out.contains("Section 0: our consultants"), "{out}");
        assert!(out.contains("Section 2: our consultants"), "{out}");
        assert!(!out.contains("We use"), "{out}");
    }

    #[test]
    fn a_post_in_a_page_wide_form_an_aside_or_a_category_named_after_chrome_is_kept() {
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
        // So is a form around a thread's short posts, each an `article` (named like a
        // comment, on a page that says it is a thread).
        let posts: String = (0..3)
            .map(|i| {
                format!(
                    "<article class='cPost ipsComment'><p>Post {i}: does anyone know what \
                     the two holes under the case are for?</p></article>"
                )
            })
            .collect();
        let page = format!(
            "<html><head><script type='application/ld+json'>{{\"@type\":\
             \"DiscussionForumPosting\"}}</script></head><body><form>{posts}</form>{filler}\
             </body></html>"
        );
        let out = text(&page);
        assert!(out.contains("Post 2: does anyone know"), "{out}");
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
    fn a_grid_s_cards_named_like_chrome_in_main_are_content_and_a_share_bar_is_not() {
        let cards: String = (0..6)
            .map(|i| {
                format!(
                    "<li class=grid-item><div class='card subscription-eligible'><h3><a \
                     href=/p/{i}>Dark roast number {i}</a></h3><span>$19.99</span></div></li>"
                )
            })
            .collect();
        let page = |wrapper: &str| {
            format!(
                "<html><body><{wrapper}><h1>Coffee</h1><p>Our coffee is roasted in small \
                 batches every week, from beans we buy from the farms that grow them, and \
                 shipped to you within days of roasting so that it reaches your cup \
                 fresh.</p><ul class=grid>{cards}</ul><div class=social-share><p>Share \
                 this page.</p></div></{wrapper}></body></html>"
            )
        };
        let out = text(&page("main"));
        assert!(out.contains("Dark roast number 4"), "{out}");
        assert!(!out.contains("Share this page."), "{out}");
        // Outside the page's main content, such a group is chrome as its names say.
        let out = text(&page("div"));
        assert!(!out.contains("Dark roast number 4"), "{out}");
        assert!(out.contains("Our coffee is roasted"), "{out}");
    }

    #[test]
    fn a_product_s_reviews_are_removed_on_its_page_however_long() {
        let review = "<div class=review-item><p>Bought two of these for the office, and the \
                      water stays cold from morning until the evening shift ends.</p></div>"
            .repeat(30);
        let page = |head: &str, wrapper: &str| {
            format!(
                "<html><head>{head}</head><body><div class='{wrapper}'><h1>Insulated \
                 Bottle</h1><p>A vacuum insulated bottle that keeps drinks cold for a day and \
                 hot for twelve hours.</p></div><section id=product-reviews>{review}\
                 </section></body></html>"
            )
        };
        let sells = "<script type='application/ld+json'>{\"@type\":\"Product\",\"name\":\
                     \"Bottle\",\"offers\":{\"price\":\"20\"}}</script>";
        let out = text(&page(sells, "product"));
        assert!(out.contains("A vacuum insulated bottle"), "{out}");
        assert!(!out.contains("Bought two"), "{out}");
        // On a page that is not one product's, the same block stays (a listing of reviews,
        // a service's testimonials); nor is a block named after reviews that holds the
        // product's `h1` removed.
        let out = text(&page("", "product"));
        assert!(out.contains("Bought two"), "{out}");
        let out = text(&page(sells, "product-with-reviews"));
        assert!(out.contains("A vacuum insulated bottle"), "{out}");
    }

    #[test]
    fn a_product_s_hidden_data_is_removed_however_long() {
        let field =
            "<dt>cat_thumb:</dt><dd>https://cdn.example.com/thumbs/bone.jpg</dd>".repeat(40);
        let page = |head: &str| {
            format!(
                "<html><head>{head}</head><body><div class=product><h1>Staple Tee</h1><p>A \
                 regular fit tee of mid weight combed cotton, with neck ribbing and double \
                 needle hems.</p><dl class='info hide'>{field}</dl></div></body></html>"
            )
        };
        let sells = "<script type='application/ld+json'>{\"@type\":\"Product\",\"name\":\
                     \"Tee\",\"offers\":{\"price\":\"20\"}}</script>";
        let out = text(&page(sells));
        assert!(out.contains("A regular fit tee"), "{out}");
        assert!(!out.contains("cat_thumb"), "{out}");
        // On a page that is not one product's, the same block stays.
        let out = text(&page(""));
        assert!(out.contains("cat_thumb"), "{out}");
    }

    #[test]
    fn a_streamed_segment_is_shown_and_other_hidden_elements_are_not() {
        // A server-rendered page streams its late parts hidden, for its script to move them
        // into place.
        let out = text(
            "<html><body><main><h1>K2 Keyboard</h1><template id=B:0></template></main>\
             <div hidden id=S:0><h2>What you need to know</h2><p>The switches are quiet and \
             the battery lasts a month.</p></div><div hidden id=S:x><p>Not a segment.</p>\
             </div><div hidden><p>Hidden text.</p></div></body></html>",
        );
        assert!(out.contains("The switches are quiet"), "{out}");
        assert!(!out.contains("Not a segment"), "{out}");
        assert!(!out.contains("Hidden text"), "{out}");
    }

    #[test]
    fn a_cloak_over_the_page_is_shown_and_other_invisible_elements_are_not() {
        // The page made invisible until its script is ready: it holds the `h1`.
        let out = text(
            "<html><body><div style='visibility: hidden; min-height: 100vh'><main>\
             <h1>Machine Learning</h1><p>Machine learning lets computers learn from data.</p>\
             </main><div style='visibility:hidden'><p>A search popup.</p></div></div>\
             </body></html>",
        );
        assert!(out.contains("computers learn from data"), "{out}");
        assert!(!out.contains("search popup"), "{out}");
    }

    #[test]
    fn a_deferred_block_that_holds_every_h1_is_shown_and_other_removed_ones_are_not() {
        // The product held back until the page's script is ready: it holds the only `h1`.
        let out = text(
            "<html><body><div class=defer-block style='display: none'><article>\
             <h1>Almond Thins</h1><ul><li>Product code: ALD-00601</li></ul><p>Baked in \
             small batches from a family recipe.</p></article></div><div \
             style='display:none'><p>Email a friend.</p></div></body></html>",
        );
        assert!(out.contains("Product code: ALD-00601"), "{out}");
        assert!(out.contains("small batches"), "{out}");
        assert!(!out.contains("Email a friend"), "{out}");
        // A removed block that holds one of the page's two `h1`s (a second layout) stays
        // removed.
        let out = text(
            "<html><body><main><h1>Almond Thins</h1><p>Baked in small batches.</p></main>\
             <div style='display:none'><h1>Almond Thins</h1><p>A quick view.</p></div>\
             </body></html>",
        );
        assert!(out.contains("small batches"), "{out}");
        assert!(!out.contains("quick view"), "{out}");
    }

    #[test]
    fn a_folded_panel_is_shown_and_other_hidden_elements_are_not() {
        // A product's specifications in a collapsed accordion, a tab panel hidden until it
        // is chosen, an accordion's section that says it is folded to assistive technology
        // too: the reader unfolds them.
        let out = text(
            "<html><body><main><h1>Fire Pit</h1><div class=chakra-collapse \
             style='overflow:hidden;display:none'><p>Stack small dry split wood around \
             the cone.</p></div><div role=tabpanel hidden><p>Never leave a lit fire \
             unattended.</p></div><div style='display:none'><p>A hidden promotion.</p>\
             </div><div role=region aria-labelledby=q1 aria-hidden=true><p>Orders ship \
             within two days.</p></div><div aria-hidden=true><p>Hidden from every \
             reader.</p></div></main></body></html>",
        );
        assert!(out.contains("Stack small dry split wood"), "{out}");
        assert!(out.contains("Never leave a lit fire"), "{out}");
        assert!(out.contains("Orders ship within two days"), "{out}");
        assert!(!out.contains("hidden promotion"), "{out}");
        assert!(!out.contains("every reader"), "{out}");
    }

    #[test]
    fn a_link_hidden_from_assistive_technology_is_shown() {
        // A card's summary in a second link to the story, hidden from screen readers only
        // (the heading's link says the same to them): the eye reads it.
        let out = text(
            "<html><body><main><h1>Headphones</h1><article><h2><a href=/a>New colors</a>\
             </h2><p><a href=/a aria-hidden=true tabindex=-1>Two models gain colorways not \
             offered before.</a></p></article><div aria-hidden=true><p>A closed drawer.</p>\
             </div></main></body></html>",
        );
        assert!(out.contains("colorways not offered"), "{out}");
        assert!(!out.contains("closed drawer"), "{out}");
    }

    #[test]
    fn a_struck_and_a_new_price_hidden_from_assistive_technology_are_shown() {
        // A shop's sale price: the old price struck and the new one inserted, hidden from
        // screen readers, who read a sentence of their own instead.
        let out = text(
            "<html><body><main><h1>Gear bags</h1><p>A bag for the car's back seat, with              pockets.</p><span class=price><del aria-hidden=true>$30.00</del>              <ins aria-hidden=true>$21.00</ins></span><span aria-hidden=true>An icon's              label.</span></main></body></html>",
        );
        assert!(out.contains("$30.00") && out.contains("$21.00"), "{out}");
        assert!(!out.contains("icon's label"), "{out}");
    }
}
