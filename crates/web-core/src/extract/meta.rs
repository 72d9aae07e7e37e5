//! The page's marks, found by one walk of the parsed page before any step changes it: the
//! elements its title, language, base and links are read from, the elements that may say
//! its headline, the tree's depth and size; and what its JSON-LD islands say of a forum
//! thread's subject and of a product (put into the text when the text lacks it).

use std::collections::HashSet;

use ::url::Url;
use dom_query::{Document, LocalName, NodeId, NodeRef, local_name};
use html5ever::ns;
use serde_json::{Map, Value};

use super::keyed::Firsts;
use super::render::collapse;
use super::title::{Headlines, heading_words};
use super::tree::{Step, attr, has_attr, walk, with_element};
use super::vocab::words;

/// A JSON-LD island larger than this is not read.
const ISLAND_MAX_BYTES: usize = 1 << 20;
/// JSON-LD objects nested deeper than this are not read.
const ISLAND_MAX_DEPTH: usize = 8;
/// A thread's subject longer than this is not one.
const SUBJECT_MAX_BYTES: usize = 400;
/// At most this many of a product's properties are read.
const PRODUCT_MAX_PROPERTIES: usize = 64;
/// The schema.org types of a product.
const PRODUCT_TYPES: [&str; 4] = [
    "Product",
    "ProductGroup",
    "IndividualProduct",
    "ProductModel",
];

/// The schema.org types of an offer.
const OFFER_TYPES: [&str; 2] = ["Offer", "AggregateOffer"];

/// The schema.org types of an article: a page that declares one is not a product's, whatever
/// products it names.
const ARTICLE_TYPES: [&str; 5] = [
    "Article",
    "NewsArticle",
    "BlogPosting",
    "Review",
    "TechArticle",
];

/// Whether a JSON-LD object's `@type` (one type or a list; a full schema.org URL or the
/// bare name) is one that `is` accepts.
fn has_type(object: &Map<String, Value>, is: impl Fn(&str) -> bool) -> bool {
    let named = |t: &Value| {
        t.as_str()
            .is_some_and(|t| is(t.rsplit('/').next().unwrap_or(t)))
    };
    match object.get("@type") {
        Some(Value::Array(types)) => types.iter().any(named),
        Some(t) => named(t),
        None => false,
    }
}

/// Whether a class or id value names a product's title: one of its tokens has the words
/// `product` and `title` or `name` (`product-title`, `productName`, `product_title`), not
/// `products` (a grid's heading).
fn names_product_title(value: &str) -> bool {
    value.split_ascii_whitespace().any(|token| {
        let (mut product, mut title) = (false, false);
        for word in words(token) {
            product |= word.eq_ignore_ascii_case("product");
            title |= word.eq_ignore_ascii_case("title") || word.eq_ignore_ascii_case("name");
        }
        product && title
    })
}

/// A text with its tags dropped (a JSON-LD description may carry markup), each tag read as
/// a space.
fn without_tags(text: &str) -> String {
    if !text.contains('<') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// Lines a page declares (see [`PageSurvey::product`]) put into the text when the text
/// lacks more than half of their words: after the text's leading `# ` heading, if any,
/// else first.
pub(crate) fn put_declared(lines: &mut Vec<String>, declared: Vec<String>) {
    let words = |l: &String| heading_words(l);
    let want: Vec<String> = declared.iter().flat_map(words).collect();
    if want.is_empty() {
        return;
    }
    let have: HashSet<String> = lines.iter().flat_map(words).collect();
    let missing = want.iter().filter(|w| !have.contains(*w)).count();
    if missing * 2 <= want.len() {
        return;
    }
    let at = if lines.first().is_some_and(|l| l.starts_with("# ")) {
        lines.len().min(2)
    } else {
        0
    };
    let block = declared.into_iter().flat_map(|l| [l, String::new()]);
    lines.splice(at..at, block);
}

/// The page surveyed by one walk before any step changes it: the elements the page's
/// metadata is read from, the headline's candidates, the tree's depth and size. Each
/// metadata element is the first element in document order that a selector of the page's
/// metadata matches (named in each field), matched as the selector engine matches it: by
/// local name in any namespace, attributes in no namespace, `rel` words ASCII
/// case-insensitively on HTML elements only.
#[derive(Default)]
pub(crate) struct PageSurvey {
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
    pub(crate) headlines: Vec<(NodeId, bool)>,
    /// The JSON-LD islands (`script[type=application/ld+json]`), in document order.
    islands: Vec<NodeId>,
    /// Whether an `og:type` meta says the page is one product's (see
    /// [`PageSurvey::sells_a_product`]).
    product_marked: bool,
    /// Microdata product items of their own (not nested in another item), counted up to
    /// two: a page of several is a grid of products, not one product's page.
    product_items: u8,
    /// Whether a microdata product item lies nested in another item.
    nested_product: bool,
    /// Microdata product items of their own that hold an `h1`, counted up to two: of
    /// several items, the one that holds the page's heading is the page's product, the
    /// others its recommendations.
    headed_items: u8,
    /// Whether an element's microdata `itemtype` says the page is an article: an item of
    /// its own, not nested in another.
    article_marked: bool,
    /// Whether an element's microdata `itemtype` is an offer's, or a meta gives a product's
    /// price.
    offer_marked: bool,
    /// Whether the page's first `h1`, or an element inside it, is named (class or id) as
    /// a product's title or name (`product-title`, `productName`, `product_title`).
    titled_product: bool,
    /// The greatest element depth.
    pub(crate) depth: usize,
    /// The number of elements.
    pub(crate) elements: usize,
}

impl PageSurvey {
    /// The page's metadata elements, by one walk of the document.
    pub(crate) fn of(doc: &Document) -> Self {
        let mut marks = Self::default();
        // Open `head` elements around the node entered, and open elements.
        let mut in_head = 0usize;
        let mut depth = 0usize;
        // The depth of the open product item of its own, and whether it holds an `h1`.
        let mut item_at: Option<usize> = None;
        let mut item_headed = false;
        // The depth of the page's first `h1` while it is open.
        let mut in_h1: Option<usize> = None;
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
                        if *local == local_name!("h1") && item_at.is_some() && !item_headed {
                            item_headed = true;
                            marks.headed_items = (marks.headed_items + 1).min(2);
                        }
                        let has = |name: LocalName| has_attr(e, name);
                        let first = |slot: &mut Option<NodeId>| {
                            slot.get_or_insert(node.id);
                        };
                        if let Some(itemtype) = attr(e, "itemtype") {
                            let nested = attr(e, "itemprop").is_some();
                            if names_type(itemtype, &PRODUCT_TYPES) {
                                if nested {
                                    marks.nested_product = true;
                                } else {
                                    marks.product_items = (marks.product_items + 1).min(2);
                                    if item_at.is_none() {
                                        item_at = Some(depth);
                                        item_headed = false;
                                    }
                                }
                            }
                            marks.offer_marked |= names_type(itemtype, &OFFER_TYPES);
                            // An item nested in another (a product's reviews) does not say
                            // what the page is.
                            marks.article_marked |= !nested && names_type(itemtype, &ARTICLE_TYPES);
                        }
                        if *local == local_name!("h1") && marks.h1.is_none() {
                            in_h1 = Some(depth);
                        }
                        if in_h1.is_some()
                            && !marks.titled_product
                            && (attr(e, "class").is_some_and(names_product_title)
                                || attr(e, "id").is_some_and(names_product_title))
                        {
                            marks.titled_product = true;
                        }
                        if *local == local_name!("head") {
                            in_head += 1;
                        } else if *local == local_name!("script") {
                            if attr(e, "type").is_some_and(|t| {
                                t.trim().eq_ignore_ascii_case("application/ld+json")
                            }) {
                                marks.islands.push(node.id);
                            }
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
                            let property = attr(e, "property").or_else(|| attr(e, "name"));
                            marks.offer_marked |= property.is_some_and(|p| {
                                p.eq_ignore_ascii_case("product:price:amount")
                                    || p.eq_ignore_ascii_case("og:price:amount")
                            });
                            if !marks.product_marked
                                && attr(e, "property")
                                    .or_else(|| attr(e, "name"))
                                    .is_some_and(|p| p.eq_ignore_ascii_case("og:type"))
                                && attr(e, "content").is_some_and(is_product_og_type)
                            {
                                marks.product_marked = true;
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
                        if item_at == Some(depth) {
                            item_at = None;
                        }
                        if in_h1 == Some(depth) {
                            in_h1 = None;
                        }
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
    pub(crate) fn title(&self, doc: &Document) -> Option<String> {
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

    /// The thread's subject, when the page says in JSON-LD that it is a forum thread: the
    /// `headline` (else the `name`) of its `DiscussionForumPosting`.
    pub(crate) fn thread_subject(&self, doc: &Document) -> Option<String> {
        self.find_in_islands(doc, "DiscussionForumPosting", |object| {
            if !has_type(object, |t| t == "DiscussionForumPosting") {
                return None;
            }
            ["headline", "name"]
                .iter()
                .find_map(|k| object.get(*k).and_then(Value::as_str))
                .map(collapse)
                .filter(|h| !h.is_empty() && h.len() <= SUBJECT_MAX_BYTES)
        })
    }

    /// What the page says in JSON-LD of the product it sells, as lines: its `description`
    /// (tags dropped), then each `additionalProperty` as `name: value`. Empty when no island
    /// holds a `Product` with either.
    pub(crate) fn product(&self, doc: &Document) -> Vec<String> {
        self.find_in_islands(doc, "Product", |object| {
            if !has_type(object, |t| PRODUCT_TYPES.contains(&t)) {
                return None;
            }
            let mut lines = Vec::new();
            if let Some(description) = object.get("description").and_then(Value::as_str) {
                let description = collapse(&without_tags(description));
                if !description.is_empty() {
                    lines.push(description);
                }
            }
            let properties = object.get("additionalProperty").and_then(Value::as_array);
            for property in properties
                .into_iter()
                .flatten()
                .take(PRODUCT_MAX_PROPERTIES)
            {
                let name = property.get("name").and_then(Value::as_str).map(collapse);
                let value = match property.get("value") {
                    Some(Value::String(v)) => Some(collapse(v)),
                    Some(Value::Number(n)) => Some(n.to_string()),
                    _ => None,
                };
                if let (Some(name), Some(value)) = (name, value)
                    && !name.is_empty()
                    && !value.is_empty()
                {
                    lines.push(format!("{name}: {value}"));
                }
            }
            (!lines.is_empty()).then_some(lines)
        })
        .unwrap_or_default()
    }

    /// Whether the page is one product's: its `og:type` is a product's (not a group of
    /// products), an element's microdata `itemtype` is a product type, or its JSON-LD
    /// declares at its top (an island, an item of one, an item of its `@graph`) one product
    /// on offer (products of one name, one with `offers` or a `BuyAction`, see [`on_offer`]); the first two with an offer
    /// (microdata, a price meta, or JSON-LD `offers`); or its first `h1` is named as a
    /// product's title (see [`names_product_title`]); and neither its microdata
    /// (an item of its own) nor its JSON-LD's top declares an article. Not a product nested in another object (the item
    /// a review reviews, the items of a list), nor the products an article reviews.
    pub(crate) fn sells_a_product(&self, doc: &Document) -> bool {
        if self.article_marked {
            return false;
        }
        let texts: Vec<String> = self
            .islands
            .iter()
            .map(|id| NodeRef::new(*id, &doc.tree).text().to_string())
            .filter(|t| t.len() <= ISLAND_MAX_BYTES)
            .collect();
        // One product item of its own says a product's page; several say a grid of them,
        // unless one alone holds a heading (the product beside its recommendations' tiles).
        // A page whose heading is named as a product's title is that product's (a grid's
        // heading names its category, each card's title a product under it).
        let titled = self.titled_product;
        let product_marked = self.product_marked
            || titled
            || match self.product_items {
                0 => self.nested_product,
                1 => true,
                _ => self.headed_items == 1,
            };
        if !product_marked && !texts.iter().any(|t| t.contains("Product")) {
            return false;
        }
        let mut tops: Vec<Value> = Vec::new();
        for text in &texts {
            if !ARTICLE_TYPES
                .iter()
                .chain(&PRODUCT_TYPES)
                .any(|t| text.contains(t))
            {
                continue;
            }
            let Ok(value) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            let items = match value {
                Value::Array(items) => items,
                value => vec![value],
            };
            for item in items {
                if let Some(Value::Array(graph)) = item.get("@graph") {
                    tops.extend(graph.iter().cloned());
                }
                tops.push(item);
            }
        }
        let typed = |v: &&Value, types: &[&str]| {
            v.as_object()
                .is_some_and(|o| has_type(o, |t| types.contains(&t)))
        };
        if tops.iter().any(|v| typed(&v, &ARTICLE_TYPES)) {
            return false;
        }
        if product_marked {
            // What says a product's page by its markup also offers it for sale.
            return titled || self.offer_marked || texts.iter().any(|t| t.contains("\"offers\""));
        }
        let products: Vec<&Value> = tops.iter().filter(|v| typed(v, &PRODUCT_TYPES)).collect();
        let one_name = products
            .iter()
            .all(|p| p.get("name") == products.first().and_then(|f| f.get("name")));
        !products.is_empty() && one_name && products.iter().any(|p| on_offer(p))
    }

    /// The first answer `f` gives for an object of the page's JSON-LD islands, in document
    /// order, each island's objects depth first (at most [`ISLAND_MAX_DEPTH`] deep). Only
    /// islands whose text holds `word` and has at most [`ISLAND_MAX_BYTES`] are parsed.
    fn find_in_islands<T>(
        &self,
        doc: &Document,
        word: &str,
        mut f: impl FnMut(&Map<String, Value>) -> Option<T>,
    ) -> Option<T> {
        for id in &self.islands {
            let text = NodeRef::new(*id, &doc.tree).text();
            if text.len() > ISLAND_MAX_BYTES || !text.contains(word) {
                continue;
            }
            let Ok(value) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let mut stack = vec![(&value, 0usize)];
            while let Some((value, depth)) = stack.pop() {
                if depth > ISLAND_MAX_DEPTH {
                    continue;
                }
                let children: Vec<&Value> = match value {
                    Value::Array(items) => items.iter().collect(),
                    Value::Object(object) => {
                        if let Some(found) = f(object) {
                            return Some(found);
                        }
                        object.values().collect()
                    }
                    _ => continue,
                };
                stack.extend(
                    children
                        .into_iter()
                        .rev()
                        .filter(|v| v.is_array() || v.is_object())
                        .map(|v| (v, depth + 1)),
                );
            }
        }
        None
    }

    /// The declared language: `<html lang>`, else a `Content-Language` meta.
    pub(crate) fn lang(&self, doc: &Document) -> Option<String> {
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
    /// `<link rel=next>`), fragments removed, duplicates dropped: the first `max` of them.
    /// When they are resolved against the page's own address `base` (no `<base>` says
    /// otherwise), each distinct (trimmed) value read is told to `resolved` with what it
    /// resolves to, so that what reads the links after does not resolve it again.
    pub(crate) fn links(
        &self,
        doc: &Document,
        base: &Url,
        max: usize,
        mut resolved: impl FnMut(&str, Option<&Url>),
    ) -> Vec<Url> {
        let declared = self
            .base
            .and_then(|id| NodeRef::new(id, &doc.tree).attr("href"))
            .and_then(|h| base.join(h.trim()).ok());
        let own = declared.is_none();
        let base = declared.unwrap_or_else(|| base.clone());
        // The values resolved so far (a value met again resolves as it did) and the links
        // kept, told apart where they are, without a copy of each.
        let mut read = Firsts::default();
        let mut seen = Firsts::default();
        let mut out: Vec<Url> = Vec::new();
        let href_of = |at: usize| {
            self.links
                .get(at)
                .and_then(|id| NodeRef::new(*id, &doc.tree).attr("href"))
        };
        for (at, id) in self.links.iter().enumerate() {
            if out.len() >= max {
                break;
            }
            let Some(href) = NodeRef::new(*id, &doc.tree).attr("href") else {
                continue;
            };
            let href = href.trim();
            if !read.first(href, at, |i| href_of(i).is_some_and(|h| h.trim() == href)) {
                continue;
            }
            let joined = base.join(href);
            if own {
                resolved(href, joined.as_ref().ok());
            }
            let Ok(mut url) = joined else {
                continue;
            };
            if !matches!(url.scheme(), "http" | "https") {
                continue;
            }
            url.set_fragment(None);
            if seen.first(url.as_str(), out.len(), |i| out[i].as_str() == url.as_str()) {
                out.push(url);
            }
        }
        out
    }
}

/// Whether a microdata `itemtype` value (one or more type URLs) names one of `types`.
fn names_type(itemtype: &str, types: &[&str]) -> bool {
    itemtype
        .split_ascii_whitespace()
        .any(|t| types.contains(&t.trim_end_matches('/').rsplit('/').next().unwrap_or(t)))
}

/// Whether a JSON-LD product is on offer: it has `offers`, or its `potentialAction` is a
/// `BuyAction` (a maker's page that sends the buyer to its store).
fn on_offer(product: &Value) -> bool {
    let buys = |a: &Value| {
        a.as_object()
            .is_some_and(|o| has_type(o, |t| t == "BuyAction"))
    };
    product.get("offers").is_some()
        || match product.get("potentialAction") {
            Some(Value::Array(actions)) => actions.iter().any(buys),
            Some(action) => buys(action),
            None => false,
        }
}

/// Whether an `og:type` value is a product's (`product`, `og:product`, `product.item`), not
/// a group of products (`product.group`).
/// A site's own namespace (`shop_sharing:product`) names the type in its last part.
fn is_product_og_type(value: &str) -> bool {
    let value = value.trim().to_ascii_lowercase();
    let value = value.rsplit(':').next().unwrap_or(&value);
    value.starts_with("product") && !value.starts_with("product.group")
}

/// Whitespace as the selector engine splits an attribute's words (`[rel~=next]`).
const SELECTOR_WHITESPACE: &[char] = &[' ', '\t', '\n', '\r', '\x0C'];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::parse::parse;

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
            let marks = PageSurvey::of(&doc);
            let walked = (
                marks.title(&doc),
                marks.lang(&doc),
                marks.links(&doc, &base, usize::MAX, |_, _| {}),
            );
            assert_eq!(walked, by_selectors(&doc, &base), "{page}");
            assert_eq!(
                (marks.depth, marks.elements),
                crate::extract::tree::depth_and_count(doc.root()),
                "{page}"
            );
            assert_eq!(marks.headlines, Headlines::candidates(&doc), "{page}");
        }
        // The answers themselves, on the first page (links by path) and the third.
        let answers = |page: &str, title, lang, links: &[&str], show: fn(&Url) -> String| {
            let doc = parse(page);
            let marks = PageSurvey::of(&doc);
            assert_eq!(marks.title(&doc).as_deref(), Some(title));
            assert_eq!(marks.lang(&doc).as_deref(), Some(lang));
            let got: Vec<String> = marks
                .links(&doc, &base, usize::MAX, |_, _| {})
                .iter()
                .map(show)
                .collect();
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

    /// Whether a page of this head and body reads as one product's.
    fn sells(head: &str, body: &str) -> bool {
        let doc = parse(&format!(
            "<html><head>{head}</head><body>{body}</body></html>"
        ));
        PageSurvey::of(&doc).sells_a_product(&doc)
    }

    #[test]
    fn a_page_is_one_product_s_when_its_marks_offer_one_product_and_no_article() {
        let island = |json: &str| format!("<script type='application/ld+json'>{json}</script>");
        let offer = r#""offers":{"@type":"Offer","price":"20.00"}"#;
        // A product on offer at the top of an island, in a list or in a `@graph`.
        let product = format!(r#"{{"@type":"Product","name":"Staple Tee",{offer}}}"#);
        assert!(sells(&island(&product), ""));
        assert!(sells(&island(&format!("[{product}]")), ""));
        assert!(sells(&island(&format!(r#"{{"@graph":[{product}]}}"#)), ""));
        // Not one that is not on offer, the product an article reviews, the products of a
        // list, nor a page that also says it is an article.
        assert!(!sells(
            &island(r#"{"@type":"Product","name":"Staple Tee"}"#),
            ""
        ));
        let reviewed = format!(r#"{{"@type":"Review","itemReviewed":{product}}}"#);
        assert!(!sells(&island(&reviewed), ""));
        let other = format!(r#"{{"@type":"Product","name":"Other Tee",{offer}}}"#);
        assert!(!sells(&island(&format!("[{product},{other}]")), ""));
        let article = island(r#"{"@type":"NewsArticle","headline":"Best tees"}"#);
        assert!(!sells(&format!("{article}{}", island(&product)), ""));
        // A product's `og:type` or microdata, with an offer; a product's reviews nested in
        // it do not make it an article, a review of its own does.
        let og = "<meta property='og:type' content='product'>";
        let price = "<meta property='product:price:amount' content='20.00'>";
        assert!(sells(&format!("{og}{price}"), ""));
        assert!(!sells(og, ""), "a product's page offers it");
        let group = "<meta property='og:type' content='product.group'>";
        assert!(!sells(&format!("{group}{price}"), ""));
        let micro = |inner: &str| {
            format!(
                "<div itemscope itemtype='https://schema.org/Product'><h1 itemprop=name>Tee</h1>\
                 <div itemprop=offers itemscope itemtype='https://schema.org/Offer'>$20</div>\
                 {inner}</div>"
            )
        };
        assert!(sells("", &micro("")));
        let nested =
            "<div itemprop=review itemscope itemtype='https://schema.org/Review'>Good</div>";
        assert!(sells("", &micro(nested)));
        let own = "<div itemscope itemtype='https://schema.org/Review'>Our verdict</div>";
        assert!(!sells("", &format!("{}{own}", micro(""))));
        assert!(!sells("", "<p>No marks at all.</p>"));
        // Several product items of their own are a grid of products…
        assert!(!sells("", &micro("").repeat(4)));
        // …unless one alone holds an `h1`: the product, beside its recommendations' tiles.
        let tile = "<div itemscope itemtype='https://schema.org/Product'><a href=/b>Other \
                    Tee</a></div>";
        assert!(sells("", &format!("{tile}{}{tile}", micro(""))));
        let offered = tile.replace(
            "</a>",
            "</a><div itemprop=offers itemscope itemtype='https://schema.org/Offer'>$9</div>",
        );
        assert!(!sells("", &format!("<h1>Tees</h1>{}", offered.repeat(3))));
    }

    #[test]
    fn a_page_whose_heading_is_named_a_product_s_title_is_one_product_s() {
        // A page without marks whose first `h1`, or an element in it, is named as a
        // product's title or name, whatever the separators.
        for h1 in [
            "<h1 class='product_title entry-title'>Tee</h1>",
            "<h1 class=product-single__title>Tee</h1>",
            "<h1 id=title><span id=productTitle>Tee</span></h1>",
            "<h1><span class='pdp product-name'>Tee</span></h1>",
        ] {
            assert!(sells("", &format!("{h1}<p>$20</p>")), "{h1}");
        }
        // Not a grid's heading (its products), another name, a later `h1` (a quick-view
        // dialog's), a title named outside the heading, nor a page that says it is an article.
        for body in [
            "<h1 class=products-header__title>Tees</h1>",
            "<h1 class=page-title>Tees</h1>",
            "<h1>Tees</h1><div><h1 class=product-modal__title>Tee</h1></div>",
            "<h1>Tees</h1><a class=product-title href=/tee>Tee</a>",
        ] {
            assert!(!sells("", body), "{body}");
        }
        let article = "<script type='application/ld+json'>{\"@type\":\"BlogPosting\",\
                       \"headline\":\"Our tees\"}</script>";
        assert!(!sells(article, "<h1 class=product-title>Tee</h1>"));
    }

    #[test]
    fn a_product_a_maker_sends_buyers_to_buy_or_a_site_s_own_product_type_is_on_offer() {
        let sells = |head: &str| {
            let doc = parse(&format!("<html><head>{head}</head><body></body></html>"));
            PageSurvey::of(&doc).sells_a_product(&doc)
        };
        let island = |json: &str| format!("<script type='application/ld+json'>{json}</script>");
        // A maker's page whose product has a buy action (to its store) rather than offers.
        let buy = r#"{"@type":"Product","name":"Pad Pro","potentialAction":{"@type":"BuyAction","url":"/shop"}}"#;
        assert!(sells(&island(buy)));
        let actions = r#"{"@type":"Product","name":"Pad Pro","potentialAction":[{"@type":"ViewAction"},{"@type":"BuyAction"}]}"#;
        assert!(sells(&island(actions)));
        let view =
            r#"{"@type":"Product","name":"Pad Pro","potentialAction":{"@type":"ViewAction"}}"#;
        assert!(!sells(&island(view)));
        // An `og:type` in the site's own namespace says a product by its last part.
        let price = "<meta property='product:price:amount' content='49.99'>";
        let og = |t: &str| format!("<meta property='og:type' content='{t}'>{price}");
        assert!(sells(&og("shop_sharing:product")));
        assert!(!sells(&og("shop_sharing:product.group")));
        assert!(!sells(&og("shop_sharing:article")));
    }
}
