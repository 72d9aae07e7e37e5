//! The page's title and its headlines: the title as Readability reads it, cut to the part a
//! heading of the page says and never the site's name; the headings that say it, marked for
//! the filters; the headline and its dateline put back when selection dropped them; and the
//! body headings the `# Title` line above the text already says, dropped.

use std::collections::HashSet;

use ::url::Url;
use dom_query::{Document, Element, NodeId, NodeRef};
use dom_smoothie::{Config, Readability};
use html5ever::local_name;

use super::prune::TITLE_MARK;
use super::render::{collapse, is_block};
use super::tree::{Step, attached, attr, has_attr, visible_len, walk, with_element, with_text};
use super::vocab::names_headline;

/// A title of more parts than this is left whole (a real one has a few), so cutting it
/// stays cheap however a page writes its `<title>`.
const TITLE_MAX_PARTS: usize = 12;
/// An element with more visible characters than this says no headline; its text is not
/// read further, so a page of many large elements named "title" costs no more than its size.
pub(crate) const HEADLINE_MAX_CHARS: usize = 400;
/// An `h1` restored as the headline has at least this many words.
const HEADLINE_MIN_WORDS: usize = 3;
/// The dateline is looked for, and put back, among this many lines at the top.
const DATELINE_TOP_LINES: usize = 8;

/// What Readability's metadata says of a page.
pub(crate) struct Readable {
    /// The article's title: JSON-LD `headline`/`name`, else `og:title` and its kin, else the
    /// `<title>` without the site name its separators mark off.
    pub(crate) title: Option<String>,
    /// The site's name (JSON-LD publisher, `og:site_name`).
    pub(crate) site: Option<String>,
}

/// The page's title as Readability defines it, read from the document (which is given back).
/// Its title and site name are read as `Readability::get_article_metadata` reads them (from
/// the JSON-LD, else the `meta` elements, else the `<title>` and headings), without the rest
/// of what that reads (favicon, language, dates: a walk of the page each).
pub(crate) fn readable_title(doc: Document, url: Option<&str>) -> (Document, Readable) {
    let r = Readability {
        doc,
        doc_url: url.map(str::to_owned),
        config: Config::default(),
    };
    let declared = r.parse_json_ld().unwrap_or_default();
    let values = meta_values(&r.doc);
    let mut title = declared.title;
    if title.is_empty()
        && let Some(value) = META_TITLE_KEYS.iter().find_map(|k| values.get(*k))
    {
        title.clone_from(value);
    }
    if title.is_empty() {
        title = r.get_article_title().to_string();
    }
    let site = declared
        .site_name
        .or_else(|| values.get("og:site_name").cloned());
    let decoded = |t: &str| html_escape::decode_html_entities(t).into_owned();
    let clean = |t: &str| Some(collapse(t)).filter(|t| !t.is_empty());
    let readable = Readable {
        title: clean(&decoded(&title)),
        site: site.as_deref().map(decoded).as_deref().and_then(clean),
    };
    (r.doc, readable)
}

/// The `meta` keys Readability reads a title from, in its order.
const META_TITLE_KEYS: [&str; 8] = [
    "dc:title",
    "dcterms:title",
    "og:title",
    "weibo:article:title",
    "weibo:webpage:title",
    "title",
    "twitter:title",
    "parsely-title",
];
/// The prefixes of the `meta` names Readability reads.
const META_NAME_PREFIXES: [&str; 8] = [
    "article",
    "dc",
    "dcterms",
    "og",
    "twitter",
    "parsely",
    "weibo:article",
    "weibo:webpage",
];
/// The keys of the `meta` names Readability reads.
const META_NAME_KEYS: [&str; 6] = [
    "author",
    "creator",
    "pub-date",
    "description",
    "title",
    "site_name",
];
/// The prefixes of the `meta` properties Readability reads.
const META_PROPERTY_PREFIXES: [&str; 5] = ["article", "dc", "dcterms", "og", "twitter"];
/// The keys of the `meta` properties Readability reads.
const META_PROPERTY_KEYS: [&str; 7] = [
    "author",
    "creator",
    "description",
    "published_time",
    "title",
    "site_name",
    "image",
];

/// The values of the page's `meta` elements with `content`, by key, as Readability reads
/// them: a known `property` (lowercase), else a known `name` (lowercase, its whitespace
/// dropped and dots read as colons); a later element's value replaces an earlier one's.
fn meta_values(doc: &Document) -> foldhash::HashMap<String, String> {
    let mut values = foldhash::HashMap::default();
    walk(doc.root(), |step| {
        let Step::Enter(node) = step else {
            return true;
        };
        // The elements `meta[content]` selects.
        let selected = with_element(&node, |e| {
            e.name.local == local_name!("meta") && has_attr(e, local_name!("content"))
        });
        if selected != Some(true) {
            return true;
        }
        let Some(content) = node.attr("content") else {
            return true;
        };
        let content = content.trim();
        if content.is_empty() {
            return true;
        }
        if let Some(mut property) = node.attr("property") {
            property.make_ascii_lowercase();
            if let Some(key) = meta_property_name(&property) {
                values.insert(key.trim().to_owned(), content.to_owned());
            }
            return true;
        }
        if let Some(mut name) = node.attr("name") {
            name.make_ascii_lowercase();
            if is_meta_name(&name) {
                let key: String = name.split_whitespace().collect();
                values.insert(key.replace('.', ":"), content.to_owned());
            }
        }
        true
    });
    values
}

/// Whether a (lowercase) `meta` name is one Readability reads: a known key, alone or after
/// a known prefix and `-`, `.` or `:`.
fn is_meta_name(name: &str) -> bool {
    if let Some((prefix, key)) = name.split_once(['-', '.', ':']) {
        return META_NAME_PREFIXES.contains(&prefix) && META_NAME_KEYS.contains(&key);
    }
    META_NAME_KEYS.contains(&name)
}

/// The key a (lowercase) `meta` property gives, as Readability reads it: the first of its
/// words that is a known key after a known prefix (`og:title`), from the prefix on.
fn meta_property_name(property: &str) -> Option<&str> {
    for part in property.split_whitespace() {
        if let Some(pos_r) = part.rfind(':') {
            let key = &part[pos_r + 1..];
            if !META_PROPERTY_KEYS.contains(&key) {
                continue;
            }
            let pre_pos = part[..pos_r].find(':').map_or(0, |pos_l| pos_l + 1);
            let pre = &part[pre_pos..pos_r];
            if META_PROPERTY_PREFIXES.contains(&pre) {
                return Some(&part[pre_pos..]);
            }
        }
    }
    None
}

/// The page's title and site name, and the elements that may say its headline.
pub(crate) struct PageTitle {
    /// The title the `# Title` line says: the heading the page shows for it when that is
    /// its one `h1` ([`Headlines::shown_heading`]), else [`Self::matched`].
    pub(crate) title: Option<String>,
    /// The title as the page's metadata give it (see [`Headlines::title_of`]), which the
    /// filters and selection match the page's headings and posts with.
    pub(crate) matched: Option<String>,
    /// The site's name: Readability's, else what the `<title>` has beside the title.
    pub(crate) site: Option<String>,
    /// The elements that may say the headline, their words read once: for cutting the title
    /// and for marking the headings that say it (none when the page has no title).
    headlines: Option<Headlines>,
}

impl PageTitle {
    /// The page's title from what Readability read (`readable`), the raw title
    /// ([`PageSurvey::title`](super::meta::PageSurvey::title)), the elements that may say the
    /// headline (`candidates`: each, and whether it is a heading, in document order), the
    /// page's address, and the subject a forum thread declares (which is its title). A title
    /// no heading says loses a last part that names the site ([`without_site`]) or that a
    /// name-plate of the site says ([`is_name_plate`]).
    pub(crate) fn read(
        doc: &Document,
        readable: Readable,
        raw_title: Option<String>,
        candidates: &[(NodeId, bool)],
        page: &Url,
        subject: Option<String>,
    ) -> Self {
        let host = page.host_str();
        let site = readable
            .site
            .clone()
            .or_else(|| site_from_title(raw_title.as_deref(), readable.title.as_deref()));
        let raw = raw_title.clone();
        let title = readable.title.or(raw_title);
        let headlines = title.as_deref().map(|t| {
            let titles: Vec<&str> = [Some(t), raw.as_deref()].into_iter().flatten().collect();
            Headlines::read(doc, candidates, Some(page), &titles)
        });
        let title = title.zip(headlines.as_ref()).map(|(t, h)| {
            let t = h.title_of(t, raw.clone(), site.as_deref());
            if h.says(&t) {
                return t;
            }
            without_site(&t, site.as_deref(), host)
                .or_else(|| h.without_plate(&t))
                .unwrap_or(t)
        });
        // A declared thread subject is the title; else the heading the page shows, when
        // it says what the title says.
        let shown = title
            .as_deref()
            .zip(headlines.as_ref())
            .filter(|_| subject.is_none())
            .and_then(|(t, h)| {
                h.shown_heading(t, site.as_deref(), host)
                    .or_else(|| h.headline_beside_site(t, raw.as_deref(), site.as_deref(), host))
            });
        let matched = subject.or(title);
        let title = shown.or_else(|| matched.clone());
        Self {
            title,
            matched,
            site,
            headlines,
        }
    }

    /// Marks with [`TITLE_MARK`] the headings that say the title (see
    /// [`Headlines::mark_title_headings`]); returns them in document order.
    pub(crate) fn mark_title_headings(&self, doc: &Document) -> Vec<NodeId> {
        match (self.matched.as_deref(), self.headlines.as_ref()) {
            (Some(title), Some(headlines)) => headlines.mark_title_headings(doc, title),
            _ => Vec::new(),
        }
    }
}

/// The page's one `h1` is read as its title with at least this many words.
const SHOWN_MIN_WORDS: usize = 2;
/// A title's last part names the site with at most this many words.
const SITE_MAX_WORDS: usize = 5;

/// Host labels that name a section of a site, not the site (`docs.`, `shop.`).
const SECTION_LABELS: &[&str] = &[
    "docs",
    "shop",
    "blog",
    "news",
    "store",
    "forum",
    "forums",
    "support",
    "help",
    "community",
    "apps",
    "business",
    "global",
    "promotions",
    "boards",
];

/// The title without its last part when that part names the site (`Headline | Site`):
/// the site's name, a part of it, or a name the host spells (`Liberty University` on
/// `liberty.edu`, `bcbs.com` on `bcbs.com`). `None` when the title has one part, or more
/// than [`TITLE_MAX_PARTS`], or its last part is not the site's.
fn without_site(title: &str, site: Option<&str>, host: Option<&str>) -> Option<String> {
    without_last_part(title, |last| names_site(last, site, host))
}

/// The title without its last part when `names` says that part names the site. `None` when
/// the title has one part, or more than [`TITLE_MAX_PARTS`], or `names` says no.
fn without_last_part(title: &str, names: impl FnOnce(&str) -> bool) -> Option<String> {
    let parts = title_parts(title);
    let (&(first, _), &(start, end)) = (parts.first()?, parts.last()?);
    if parts.len() < 2 || parts.len() > TITLE_MAX_PARTS {
        return None;
    }
    let before = parts[parts.len() - 2].1;
    names(&title[start..end]).then(|| title[first..before].trim().to_owned())
}

/// Whether a part of a title names the site (see [`without_site`]), its words compared
/// joined and lowercase.
fn names_site(part: &str, site: Option<&str>, host: Option<&str>) -> bool {
    let words = heading_words(part);
    let part = words.concat();
    if part.len() < 3 || words.len() > SITE_MAX_WORDS {
        return false;
    }
    let by_site = site.map(|s| heading_words(s).concat()).is_some_and(|site| {
        site.len() >= 3 && (site.contains(&part) || (site.len() >= 4 && part.contains(&site)))
    });
    by_site
        || host.is_some_and(|host| {
            let host = host.to_ascii_lowercase();
            let host = host.strip_prefix("www.").unwrap_or(&host);
            let labels: Vec<&str> = host.split('.').collect();
            // The host spells the part (`bcbs.com`), or the part holds a label of the
            // site's name (`Liberty University`, `liberty.edu`), the top-level domain and
            // a section's label aside.
            (part.len() >= 4 && labels.concat().contains(&part))
                || labels[..labels.len().saturating_sub(1)]
                    .iter()
                    .any(|label| {
                        label.len() >= 4 && !SECTION_LABELS.contains(label) && part.contains(label)
                    })
        })
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
pub(crate) struct Headlines {
    /// The element, whether it is a heading (`h1` to `h6`), its words, and whether it is
    /// the site's name-plate ([`is_name_plate`]), which says the site rather than the page.
    elements: Vec<(NodeId, bool, Option<Vec<String>>, bool)>,
    /// The text of each `h1` that has words (`None` when it is longer than
    /// [`HEADLINE_MAX_CHARS`]), in document order, the site's name-plates aside.
    h1: Vec<Option<String>>,
    /// Whether the page's first `h1` names itself a title or headline by its id
    /// (`post-title-…`).
    h1_titled: bool,
    /// The words of the headings and title-named elements that are the site's name-plate
    /// ([`is_name_plate`]): a title's part that says them names the site, not the page.
    plates: Vec<Vec<String>>,
}

impl Headlines {
    /// The page's elements that may say its headline, by one walk of the document.
    fn of(doc: &Document) -> Self {
        Self::read(doc, &Self::candidates(doc), None, &[])
    }

    /// The elements that may say the headline ([`Self::candidate`]) and whether each is a
    /// heading, in document order, by one walk of the document.
    pub(crate) fn candidates(doc: &Document) -> Vec<(NodeId, bool)> {
        let mut candidates = Vec::new();
        walk(doc.root(), |step| {
            if let Step::Enter(node) = step
                && let Some(Some(heading)) = with_element(&node, Self::candidate)
            {
                candidates.push((node.id, heading));
            }
            true
        });
        candidates
    }

    /// Whether an element may say the headline (`Some`) and whether it is a heading: `h1`
    /// to `h6`, or an element whose class or id names a headline or a title.
    pub(crate) fn candidate(e: &Element) -> Option<bool> {
        let heading = matches!(&*e.name.local, "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
        let named = || {
            [attr(e, "class"), attr(e, "id")]
                .into_iter()
                .flatten()
                .any(names_headline)
        };
        (heading || named()).then_some(heading)
    }

    /// The words of the candidates found (element, whether it is a heading), in their order;
    /// those that are the site's name-plate ([`is_name_plate`], against the page's address
    /// `page`) are marked as such: headings, and the elements named for a title whose words
    /// one of the page's `titles` says (no other is compared with a title: a listing names
    /// each of its cards' titles so).
    fn read(
        doc: &Document,
        candidates: &[(NodeId, bool)],
        page: Option<&Url>,
        titles: &[&str],
    ) -> Self {
        let titles: Vec<Vec<String>> = titles.iter().map(|t| heading_words(t)).collect();
        let mut h1 = Vec::new();
        let mut h1_titled = false;
        let mut plates = Vec::new();
        let mut elements = Vec::with_capacity(candidates.len());
        for &(id, heading) in candidates {
            let node = NodeRef::new(id, &doc.tree);
            let text = text_within(node, HEADLINE_MAX_CHARS);
            let words = text.as_deref().map(heading_words);
            let plate = words.as_ref().is_some_and(|w| {
                !w.is_empty()
                    && (heading
                        || titles
                            .iter()
                            .any(|t| t.windows(w.len()).any(|run| run == w)))
            }) && is_name_plate(&node, page);
            if plate {
                plates.extend(words.clone());
            } else if heading && node.has_name("h1") && words.as_ref().is_none_or(|w| !w.is_empty())
            {
                if h1.is_empty() {
                    h1_titled = with_element(&node, |e| attr(e, "id").is_some_and(names_headline))
                        .unwrap_or(false);
                }
                h1.push(text.and_then(|_| shown_text(node)));
            }
            elements.push((id, heading, words, plate));
        }
        Self {
            elements,
            h1,
            h1_titled,
            plates,
        }
    }

    /// The heading the page shows for its title, when the title was written for search
    /// engines: the page's one `h1`, when it has at least [`SHOWN_MIN_WORDS`] words, at
    /// least half of them are the title's, and it is not the site's name. `None` when the
    /// page has no `h1` or several, or the `h1` says the title already.
    fn shown_heading(&self, title: &str, site: Option<&str>, host: Option<&str>) -> Option<String> {
        let [Some(h1)] = self.h1.as_slice() else {
            return None;
        };
        let words = heading_words(h1);
        let title = heading_words(title);
        let said: HashSet<&String> = title.iter().collect();
        let shared = words.iter().filter(|w| said.contains(w)).count();
        // An `h1` that ends with the title's words puts a label before it (`Thread:`,
        // `Blog:`, the date).
        let labelled = words.len() > title.len() && words.ends_with(&title);
        (words.len() >= SHOWN_MIN_WORDS
            && 2 * shared >= words.len()
            && words != title
            && !labelled
            && !names_site(h1, site, host))
        .then(|| h1.clone())
    }

    /// The page's one `h1`, whose id names it the page's title (`post-title-…`), standing for
    /// a title that no element of the page says and that the `<title>` gives beside the
    /// site's name (`Site - slogan`): the title speaks of the site, the heading of the page.
    fn headline_beside_site(
        &self,
        title: &str,
        raw: Option<&str>,
        site: Option<&str>,
        host: Option<&str>,
    ) -> Option<String> {
        let [Some(h1)] = self.h1.as_slice() else {
            return None;
        };
        let raw = raw?;
        let beside_site = title_parts(raw)
            .iter()
            .any(|&(start, end)| names_site(raw[start..end].trim(), site, host));
        (self.h1_titled
            && beside_site
            && !self.says(title)
            && heading_words(h1).len() >= HEADLINE_MIN_WORDS
            && !names_site(h1, site, host))
        .then(|| h1.clone())
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

    /// The title without its last part when a name-plate of the site says that part
    /// (`Chapter - Book`, the book's name the heading of the site's menu bar). `None` when
    /// the title has one part, or more than [`TITLE_MAX_PARTS`], or no plate says its last.
    fn without_plate(&self, title: &str) -> Option<String> {
        without_last_part(title, |last| self.plates.contains(&heading_words(last)))
    }

    /// Whether an element that may say the headline has exactly the words of `text`.
    fn says(&self, text: &str) -> bool {
        let words = heading_words(text);
        !words.is_empty()
            && self
                .elements
                .iter()
                .any(|(_, _, w, plate)| !plate && w.as_ref() == Some(&words))
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
            .filter(|(.., plate)| !plate)
            .filter_map(|(_, _, words, _)| words.as_deref())
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
    pub(crate) fn mark_title_headings(&self, doc: &Document, title: &str) -> Vec<NodeId> {
        let words = heading_words(title);
        if words.is_empty() {
            return Vec::new();
        }
        let mut marked = Vec::new();
        for (id, heading, w, _) in &self.elements {
            if *heading && w.as_ref() == Some(&words) {
                NodeRef::new(*id, &doc.tree).set_attr(TITLE_MARK, "");
                marked.push(*id);
            }
        }
        marked
    }
}

/// The most elements, from a heading up, looked at for the navigation bar that would make
/// it the site's name-plate.
const PLATE_MAX_DEPTH: usize = 6;

/// Whether a heading, or an element named for a title, is the site's name-plate rather than
/// a headline of the page: it lies in the site's navigation, within [`PLATE_MAX_DEPTH`]
/// elements up and short of the page's main container or its body (a `nav` element, a
/// navigation or menu role, a class or id that names a menu bar, [`names_menu`]), or its
/// words are those of a link it holds, or of the nearest link around it within those
/// elements, to the site's home or to an index above the page (`/`, `./`, `../index.html`).
fn is_name_plate(node: &NodeRef<'_>, page: Option<&Url>) -> bool {
    let mut at = Some(*node);
    // The nearest link around the heading, within the elements looked at.
    let mut around: Option<(NodeRef<'_>, String)> = None;
    for _ in 0..PLATE_MAX_DEPTH {
        let Some(n) = at else { break };
        // The page's own main container, or the page as a whole, says nothing of a bar.
        let whole = with_element(&n, |e| {
            matches!(&*e.name.local, "main" | "article" | "body" | "html")
        });
        if whole != Some(false) && n.id != node.id {
            break;
        }
        let navigation = with_element(&n, |e| {
            &*e.name.local == "nav"
                || attr(e, "role").is_some_and(|r| matches!(r, "navigation" | "menu" | "menubar"))
                || [attr(e, "class"), attr(e, "id")]
                    .into_iter()
                    .flatten()
                    .any(names_menu)
        })
        .unwrap_or(false);
        if navigation {
            return true;
        }
        if around.is_none() && n.id != node.id {
            around = with_element(&n, |e| {
                (&*e.name.local == "a").then(|| attr(e, "href").map(str::to_owned))?
            })
            .flatten()
            .map(|href| (n, href));
        }
        at = n.parent();
    }
    let Some(page) = page else {
        return false;
    };
    // A link home whose text is the heading's: the site's logo around its name.
    if let Some((link, href)) = &around
        && page.join(href).is_ok_and(|to| is_index_above(&to, page))
        && heading_words(&link.text()) == heading_words(&node.text())
    {
        return true;
    }
    // The links the heading holds, up to two.
    let mut links = Vec::new();
    walk(*node, |step| {
        if let Step::Enter(n) = step
            && let Some(Some(href)) = with_element(&n, |e| {
                (&*e.name.local == "a").then(|| attr(e, "href").map(str::to_owned))?
            })
        {
            links.push((n, href));
        }
        links.len() < 2
    });
    let [(link, href)] = links.as_slice() else {
        return false;
    };
    page.join(href).is_ok_and(|to| {
        is_index_above(&to, page) && heading_words(&link.text()) == heading_words(&node.text())
    })
}

/// Words of class names and ids that name the site's menu bar, whose heading is the site's
/// name-plate.
const MENU_WORDS: &[&str] = &["menu", "menubar", "navbar"];

/// Whether a class or id value names a menu bar: one of its words, split at characters
/// other than letters and digits, is one of [`MENU_WORDS`] (`menu-title`, `navbar-brand`).
fn names_menu(value: &str) -> bool {
    value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| MENU_WORDS.iter().any(|m| m.eq_ignore_ascii_case(w)))
}

/// Whether `to` is the site's home or an index of a folder that holds `page` (`./`,
/// `../index.html`), not the page itself.
fn is_index_above(to: &Url, page: &Url) -> bool {
    if to.host_str() != page.host_str() || to == page {
        return false;
    }
    let path = to.path();
    let folder = ["index.html", "index.htm", "index.php"]
        .iter()
        .find_map(|index| path.strip_suffix(index))
        .unwrap_or(path);
    folder.ends_with('/') && page.path().starts_with(folder) && page.path() != folder
}

/// The text of `node` when it has at most `max` visible characters; `None`, having read
/// no further, when it has more.
pub(crate) fn text_within(node: NodeRef<'_>, max: usize) -> Option<String> {
    let mut text = String::new();
    let mut visible = 0;
    walk(node, |step| {
        if visible > max {
            return false;
        }
        match step {
            Step::Enter(n) => {
                if n.id != node.id {
                    space_at_block(&n, &mut text);
                }
                with_text(&n, |t| {
                    visible += visible_len(t);
                    text.push_str(t);
                });
            }
            Step::Leave(n, _) if n.id != node.id => space_at_block(&n, &mut text),
            Step::Leave(..) => {}
        }
        true
    });
    (visible <= max).then_some(text)
}

/// A space where a block element (a `div` in a heading) starts or ends: its words are not
/// run into the words beside it.
fn space_at_block(node: &NodeRef<'_>, text: &mut String) {
    if with_element(node, |e| is_block(&e.name.local)).unwrap_or(false) {
        text.push(' ');
    }
}

/// The most characters of a permalink's mark (`¶`, `#`, or `¶` read in the wrong encoding).
const MARK_MAX_CHARS: usize = 3;

/// Whether a link's text is a permalink's mark: a few characters, none an ASCII letter or
/// digit.
fn is_mark(text: &str) -> bool {
    let text = text.trim();
    text.chars().count() <= MARK_MAX_CHARS && !text.chars().any(|c| c.is_ascii_alphanumeric())
}

/// The text of a heading as it is shown, collapsed: a line break (`br`) between words, and
/// a block's start and end, are a space, and a permalink (a link within the page whose text is a mark, [`is_mark`]) is no
/// part of it.
fn shown_text(node: NodeRef<'_>) -> Option<String> {
    let mut text = String::new();
    walk(node, |step| {
        if let Step::Leave(n, _) = &step {
            space_at_block(n, &mut text);
        }
        if let Step::Enter(n) = step {
            if n.has_name("br") {
                text.push(' ');
            }
            space_at_block(&n, &mut text);
            let permalink = with_element(&n, |e| {
                &*e.name.local == "a" && attr(e, "href").is_some_and(|h| h.starts_with('#'))
            })
            .unwrap_or(false)
                && is_mark(&n.text());
            if permalink {
                return false;
            }
            with_text(&n, |t| text.push_str(t));
        }
        true
    });
    Some(collapse(&text)).filter(|t| !t.is_empty())
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
pub(crate) fn heading_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Marks with [`TITLE_MARK`] the headings (`h1` to `h6`) whose words are the title's, so
/// that pruning tells the page's own post, its title a link to itself, from a teaser.
pub(crate) fn mark_title_headings(doc: &Document, title: &str) {
    Headlines::of(doc).mark_title_headings(doc, title);
}

/// The first of `marked` still in the document (not removed with chrome or boilerplate).
pub(crate) fn first_attached<'a>(doc: &'a Document, marked: &[NodeId]) -> Option<NodeRef<'a>> {
    marked
        .iter()
        .map(|id| NodeRef::new(*id, &doc.tree))
        .find(|n| attached(n))
}

/// The page's headline when content selection dropped it: `h1`, the first left after the
/// chrome filter, if it is the title's headline (one contains the other, so a site name in
/// an `h1` does not count), has at least this many words, and is not in the lines already.
pub(crate) fn headline(
    h1: Option<String>,
    title: Option<&str>,
    lines: &[String],
) -> Option<String> {
    let h1 = h1?;
    let title = title?;
    let related = title.contains(h1.as_str()) || h1.contains(title);
    let present = lines.iter().any(|l| l.contains(h1.as_str()));
    (h1.split_whitespace().count() >= HEADLINE_MIN_WORDS && related && !present).then_some(h1)
}

/// Puts the headline's dateline (its date and byline) back under the heading that says the
/// title, or first when no heading near the top does, unless the lines near the top hold its
/// words already.
pub(crate) fn put_dateline(lines: &mut Vec<String>, dateline: String, title: Option<&str>) {
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

/// Drops the body headings that a `# Title` line above the text already says: the first
/// heading that repeats the title, and every heading that is only the site's name. The
/// blank line after a dropped heading goes with it.
pub(crate) fn drop_repeated_headings(
    lines: &mut Vec<String>,
    title: Option<&str>,
    site: Option<&str>,
) {
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

/// Drops the headings that say a reply's subject: `Re:` and the page's `title` (a thread's
/// posts each carry one over their text), with the blank line after each.
pub(crate) fn drop_reply_subjects(lines: &mut Vec<String>, title: Option<&str>) {
    let Some(title) = title.map(heading_words).filter(|w| !w.is_empty()) else {
        return;
    };
    let reply = |line: &str| {
        let hashes = line.bytes().take_while(|&b| b == b'#').count();
        (1..=6).contains(&hashes)
            && line.as_bytes().get(hashes) == Some(&b' ')
            && heading_words(&line[hashes..])
                .split_first()
                .is_some_and(|(re, rest)| re == "re" && rest == title.as_slice())
    };
    let mut skip_blank = false;
    lines.retain(|line| {
        if skip_blank && line.is_empty() {
            skip_blank = false;
            return false;
        }
        skip_blank = reply(line);
        !skip_blank
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::parse::parse;
    use crate::extract::prune::{Memo, prune};
    use crate::extract::render::render;
    use ::url::Url;

    #[test]
    fn the_title_and_site_name_are_read_as_readability_s_metadata_reads_them() {
        let pages = [
            r#"<meta property="og:title" content=" A &amp; B "><meta property="og:site_name" content="Site"><title>T</title>"#,
            r#"<meta property="OG:Title og:site_name" content="Both"><meta name="twitter:title" content="Tw">"#,
            r#"<meta name="dc.title" content="Dc"><meta name="DC.Title" content="Dc two"><meta name="og:site_name" content="S">"#,
            r#"<meta name="weibo:article:title" content="W"><meta name="parsely-title" content=" ">"#,
            r#"<meta property="title" content="No prefix"><meta name="title" content="Named"><meta content="Bare">"#,
            r#"<meta property="article:author" content="x"><title>Plain title of the page here</title><h1>Head</h1>"#,
            r#"<title>Short</title><h1>The headline of this page, long enough</h1>"#,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"From JSON-LD","publisher":{"name":"Pub"}}</script><meta property="og:title" content="Og">"#,
            r#"<title>Site name | A page &quot;quoted&quot; title</title><meta name="og:site_name" content="S &lt; T">"#,
            "<p>no title at all</p>",
        ];
        for page in pages {
            let doc = parse(page);
            let r = Readability {
                doc: doc.clone(),
                doc_url: None,
                config: Config::default(),
            };
            let meta = r.get_article_metadata(r.parse_json_ld());
            let clean = |t: &str| Some(collapse(t)).filter(|t| !t.is_empty());
            let (_, readable) = readable_title(doc, None);
            assert_eq!(readable.title, clean(&meta.title), "{page}");
            assert_eq!(
                readable.site,
                meta.site_name.as_deref().and_then(clean),
                "{page}"
            );
        }
    }

    fn lines(text: &str) -> Vec<String> {
        text.split('\n').map(str::to_owned).collect()
    }

    #[test]
    fn headings_that_say_a_reply_s_subject_are_dropped() {
        let mut l = lines(
            "# Worn bearing\n\nThe bearing wore out.\n\n### Re: Worn bearing\n\nReplace it.\n\n\
             ### Re: Worn bearing\n\nAgreed.\n\n### Re: Other bearing\n\nRe: Worn bearing",
        );
        drop_reply_subjects(&mut l, Some("Worn  bearing"));
        assert_eq!(
            l,
            lines(
                "# Worn bearing\n\nThe bearing wore out.\n\nReplace it.\n\nAgreed.\n\n\
                 ### Re: Other bearing\n\nRe: Worn bearing"
            )
        );
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
        // A block inside a heading is not run into the words beside it.
        let doc = parse(
            "<html><body><h1 id=a><div><a href=/brand>Bershka</a></div><span>Faux leather \
             jacket</span></h1></body></html>",
        );
        let node = doc.select("#a").nodes()[0];
        assert_eq!(
            heading_words(&text_within(node, 100).unwrap()),
            ["bershka", "faux", "leather", "jacket"]
        );
        assert_eq!(
            shown_text(node).as_deref(),
            Some("Bershka Faux leather jacket")
        );
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
    fn a_last_part_that_names_the_site_is_cut_from_a_title_no_heading_says() {
        let cut = |title, site, host| without_site(title, site, Some(host));
        // By the host's name, by the site's name, by the host spelled out.
        assert_eq!(
            cut(
                "Online Tuition and Financing | Liberty University",
                None,
                "www.liberty.edu"
            )
            .as_deref(),
            Some("Online Tuition and Financing")
        );
        assert_eq!(
            cut(
                "Reliable Music Lesson Reviews | Make More Music",
                Some("Make More Music"),
                "lessons.example"
            )
            .as_deref(),
            Some("Reliable Music Lesson Reviews")
        );
        assert_eq!(
            cut(
                "Individual Health – Family Medical Insurance | bcbs.com",
                None,
                "www.bcbs.com"
            )
            .as_deref(),
            Some("Individual Health – Family Medical Insurance")
        );
        // Not a first part (a brand that opens the title is part of it), not a part that
        // names nothing of the site, not a one-part title.
        assert_eq!(
            cut(
                "Figma: The Collaborative Interface Design Tool",
                None,
                "www.figma.com"
            ),
            None
        );
        assert_eq!(
            cut("Storm closes the harbour | Opinion", None, "herald.example"),
            None
        );
        assert_eq!(cut("Liberty University", None, "www.liberty.edu"), None);
        // A long last part is the headline's, even when it holds the site's name.
        assert_eq!(
            cut(
                "Tips | Why Liberty University students pay less for their degrees",
                None,
                "www.liberty.edu"
            ),
            None
        );
    }

    /// The `# Title` line of a page at `url` whose `<title>` is `title`.
    fn page_title(html: &str, title: &str, url: &str) -> Option<String> {
        let doc = parse(html);
        let readable = Readable {
            title: Some(title.to_owned()),
            site: None,
        };
        let candidates = Headlines::candidates(&doc);
        let url = Url::parse(url).unwrap();
        PageTitle::read(
            &doc,
            readable,
            Some(title.to_owned()),
            &candidates,
            &url,
            None,
        )
        .title
    }

    #[test]
    fn the_site_s_name_plate_is_not_the_page_s_title() {
        let page = "https://book.example/ch04-01-what-is-ownership.html";
        // The book's name, the heading of its menu bar, is the site's: the chapter is the
        // title, whether a heading says it or not.
        let menu = "<div id=\"menu-bar\"><h1 class=\"menu-title\">The Example Programming Book</h1></div>\
                    <main><h2>What is Ownership?</h2><p>Text.</p></main>";
        let title = "What is Ownership? - The Example Programming Book";
        assert_eq!(
            page_title(menu, title, page).as_deref(),
            Some("What is Ownership?")
        );
        let bare = "<div class=\"menu-bar\"><h1 class=\"menu-title\">The Example Programming Book</h1>\
                    </div><p>Text.</p>";
        assert_eq!(
            page_title(bare, title, page).as_deref(),
            Some("What is Ownership?")
        );
        // A heading that is a link to the index above the page names the documentation;
        // the page's own heading is the title.
        let docs = "<div><h1><a href=\"../index.html\">Example 2.0 Documentation</a></h1></div>\
                    <div><h1>ORM Quick Start</h1><p>Text.</p></div>";
        let title = "ORM Quick Start — Example 2.0 Documentation";
        assert_eq!(
            page_title(docs, title, "https://docs.example/20/orm/quickstart.html").as_deref(),
            Some("ORM Quick Start")
        );
        // An element named for a title in the site's navigation bar is its name-plate as a
        // heading there is: the page's `h1` says the title, however short.
        let bar = "<header><nav class=\"md-header__inner\"><div class=\"md-header__title\">\
                   Example Validation</div></nav></header><article><h1>Fields</h1><p>Text.</p>\
                   </article>";
        assert_eq!(
            page_title(
                bar,
                "Fields - Example Validation",
                "https://docs.example/fields/"
            )
            .as_deref(),
            Some("Fields")
        );
        // The site's name inside its logo's link home is its name-plate too.
        let logo = "<a class=\"site\" href=\"/\"><img src=\"/logo.png\" alt=\"Logo\">\
                    <div class=\"site-title\">Example Community Documentation</div></a>\
                    <div role=\"main\"><h1>Example playbooks</h1><p>Text.</p></div>";
        assert_eq!(
            page_title(
                logo,
                "Example playbooks — Example Community Documentation",
                "https://docs.example.com/projects/latest/playbook_guide/index.html"
            )
            .as_deref(),
            Some("Example playbooks")
        );
        // Without the plates' marks, the longer part a heading says stays the title: a
        // heading in a masthead or beside a sidebar, or a link to the page itself, is the
        // page's own.
        for html in [
            "<div class=\"page-masthead\"><h1>The Example Programming Book</h1></div><h2>What is Ownership?</h2>",
            "<div class=\"right-sidebar\"><h1>The Example Programming Book</h1></div><h2>What is Ownership?</h2>",
            "<h1><a href=\"ch04-01-what-is-ownership.html\">The Example Programming Book</a></h1>\
             <h2>What is Ownership?</h2>",
        ] {
            assert_eq!(
                page_title(
                    html,
                    "What is Ownership? - The Example Programming Book",
                    page
                )
                .as_deref(),
                Some("The Example Programming Book"),
                "{html}"
            );
        }
    }

    #[test]
    fn a_title_of_the_site_s_name_and_slogan_gives_way_to_the_h1_its_id_names_a_title() {
        let page = "https://www.example.com/r/tech/comments/1x2y3z/chair_warns/";
        let title = "Example - The heart of the internet";
        let post = |id: &str| {
            format!(
                "<header><a href=\"/\">Example</a></header><main><h1{id}>Chair warns Europe \
                 over satellite rules</h1><p>Text.</p></main>"
            )
        };
        assert_eq!(
            page_title(&post(" id=\"post-title-t3_1x2y3z\""), title, page).as_deref(),
            Some("Chair warns Europe over satellite rules")
        );
        // An h1 that does not name itself the title leaves the title as it was.
        assert_eq!(page_title(&post(""), title, page).as_deref(), Some(title));
        // A title that says nothing of the site is the page's own, whatever the h1.
        assert_eq!(
            page_title(
                &post(" id=\"page-title\""),
                "Press notes - Chair sets a date",
                page
            )
            .as_deref(),
            Some("Press notes - Chair sets a date")
        );
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
}
