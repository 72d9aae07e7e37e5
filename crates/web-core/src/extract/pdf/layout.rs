//! The glyphs of a PDF's pages laid out as the text a reader reads. Pure.
//!
//! A page's glyphs (each with its position, advance and size, as the page draws them)
//! become lines: glyphs on one baseline join in the order of their position, with a
//! space where the gap between two is wider than a narrow space; lines keep the order
//! in which the page draws them, which is the order its author's tool wrote the text
//! in. A wider vertical gap than a line's own height is a paragraph break (a blank
//! line). Each line is normalised: ligatures expanded (ﬁ → fi), white space collapsed,
//! and a word split over two lines by a hyphen rejoined, a paragraph gap between them
//! or not. A line that opens or closes most pages (digits aside, so page numbers count
//! as the same) is a running header or footer, and is dropped, unless it carries a
//! number and the page's text follows it without a break (a numbered section opening).

use std::collections::{BTreeMap, HashMap};

/// One glyph as a page draws it, in page space with y growing downwards.
#[derive(Debug, Clone, PartialEq)]
pub struct Glyph {
    /// Left edge.
    pub x: f64,
    /// Baseline.
    pub y: f64,
    /// Right edge (the pen position after the glyph).
    pub end: f64,
    /// The font size as drawn (text matrix and CTM applied).
    pub size: f64,
    /// The text the glyph stands for (usually one character; a ligature may be more).
    pub text: GlyphText,
}

/// The text of one glyph: one character held inline, as nearly every glyph is (a page
/// has thousands, so no allocation each), or a longer text.
#[derive(Debug, Clone, PartialEq)]
pub enum GlyphText {
    /// One character.
    Char(char),
    /// Any other text (a ligature, a glyph mapped to several characters, or none).
    Text(String),
}

impl GlyphText {
    /// The glyph text `s`.
    pub fn new(s: &str) -> GlyphText {
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => GlyphText::Char(c),
            _ => GlyphText::Text(s.to_owned()),
        }
    }

    /// Appends the text to `out`.
    fn push_to(&self, out: &mut String) {
        match self {
            GlyphText::Char(c) => out.push(*c),
            GlyphText::Text(s) => out.push_str(s),
        }
    }
}

/// One line of a page: its text and the size it is set in.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The normalised text; empty for a paragraph break.
    pub text: String,
    /// The largest glyph size on the line.
    pub size: f64,
}

/// How many of the most recent lines a glyph may join when it is not on the current
/// line (a page drawing a line in pieces); older lines on the same baseline are
/// another column.
const RECENT_LINES: usize = 4;

/// A gap wider than this share of the font size between two glyphs is a space.
const SPACE_GAP: f64 = 0.15;

/// A line under the previous by more than this many of its sizes starts a paragraph.
const PARAGRAPH_GAP: f64 = 1.75;

/// The share of pages a line must open or close on to be a running header or footer.
const RUNNING_SHARE: f64 = 0.6;

/// How many lines at each end of a page are looked at for running headers and footers.
const RUNNING_LINES: usize = 2;

/// How many glyphs [`page_lines`] places between two questions to its `stop`.
pub const ASK_EVERY: usize = 4096;

/// A line being built: its glyphs, baseline, and the stretches of it they cover.
struct Building {
    y: f64,
    first_x: f64,
    size: f64,
    last_end: f64,
    glyphs: Vec<Glyph>,
    covered: Covered,
}

/// The stretches of a line its glyphs cover: the union of their spans `[x, end]`, the
/// spans that overlap merged, kept by their start. Whether a new glyph would lie over
/// one already on the line is one look-up, not a pass over the line's glyphs, so a line
/// of a million glyphs costs a million look-ups.
#[derive(Default)]
struct Covered {
    /// Each stretch by its start (as an ordered key): its start and end.
    spans: BTreeMap<u64, (f64, f64)>,
}

impl Covered {
    /// Whether some stretch overlaps the open interval `(from, to)`. Stretches do not
    /// overlap each other, so the last one starting before `to` ends last of those.
    fn overlaps(&self, from: f64, to: f64) -> bool {
        self.spans
            .range(..order_key(to))
            .next_back()
            .is_some_and(|(_, &(start, end))| start < to && end > from)
    }

    /// Adds the span `[x, end]`, merged with the stretches it overlaps (and with one
    /// that starts where it does).
    fn add(&mut self, x: f64, end: f64) {
        let (mut start, mut stop) = (x, end.max(x));
        while let Some((&key, &(s, e))) = self.spans.range(..order_key(stop)).next_back() {
            if e <= start && s != start {
                break;
            }
            self.spans.remove(&key);
            start = start.min(s);
            stop = stop.max(e);
        }
        if let Some((_, e)) = self.spans.remove(&order_key(start)) {
            stop = stop.max(e);
        }
        self.spans.insert(order_key(start), (start, stop));
    }
}

/// A finite `f64` as a key that sorts as the number does.
fn order_key(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// The lines of one page, from its glyphs in drawing order, each normalised but not yet
/// rejoined over hyphens (see [`finish_pages`]). Paragraph breaks are empty lines.
/// Linear in the glyphs but for sorting each line's: every glyph is placed with a
/// bounded number of look-ups. `stop` is asked every [`ASK_EVERY`] glyphs; once it says
/// yes, the page is given up (`None`).
pub fn page_lines(glyphs: Vec<Glyph>, stop: &mut dyn FnMut() -> bool) -> Option<Vec<Line>> {
    let mut building: Vec<Building> = Vec::new();
    for (n, g) in glyphs.into_iter().enumerate() {
        if n % ASK_EVERY == ASK_EVERY - 1 && stop() {
            return None;
        }
        if !(g.x.is_finite()
            && g.y.is_finite()
            && g.end.is_finite()
            && g.size.is_finite()
            && g.size > 0.0)
        {
            continue;
        }
        let start = building.len().saturating_sub(RECENT_LINES);
        // On the line's baseline, and over none of its glyphs (a little overlap is
        // kerning).
        let fits = |b: &Building| {
            let tol = 0.25 * g.size;
            (g.y - b.y).abs() <= 0.5 * b.size.max(g.size)
                && (g.x >= b.last_end - tol
                    || g.end <= b.first_x + tol
                    || !b.covered.overlaps(g.x + tol, g.end - tol))
        };
        let current = building
            .len()
            .checked_sub(1)
            .filter(|&i| fits(&building[i]));
        let target =
            current.or_else(|| (start..building.len()).rev().find(|&i| fits(&building[i])));
        match target {
            Some(i) => {
                let b = &mut building[i];
                b.size = b.size.max(g.size);
                b.last_end = b.last_end.max(g.end);
                b.first_x = b.first_x.min(g.x);
                b.covered.add(g.x, g.end);
                b.glyphs.push(g);
            }
            None => {
                let mut covered = Covered::default();
                covered.add(g.x, g.end);
                building.push(Building {
                    y: g.y,
                    first_x: g.x,
                    size: g.size,
                    last_end: g.end,
                    glyphs: vec![g],
                    covered,
                });
            }
        }
    }
    let mut lines = Vec::with_capacity(building.len());
    let mut previous: Option<(f64, f64)> = None;
    for mut b in building {
        b.glyphs.sort_by(|a, c| a.x.total_cmp(&c.x));
        let mut text = String::new();
        let mut end = f64::NEG_INFINITY;
        for g in &b.glyphs {
            if !text.is_empty() && g.x - end > SPACE_GAP * g.size {
                text.push(' ');
            }
            g.text.push_to(&mut text);
            end = end.max(g.end);
        }
        let text = normalise(&text);
        if text.is_empty() {
            continue;
        }
        if let Some((y, size)) = previous {
            let gap = b.y - y;
            if (gap > PARAGRAPH_GAP * size.max(b.size) || gap < -size) && !lines.is_empty() {
                lines.push(Line {
                    text: String::new(),
                    size: 0.0,
                });
            }
        }
        previous = Some((b.y, b.size));
        lines.push(Line { text, size: b.size });
    }
    Some(lines)
}

/// A line's text for a reader: ligatures expanded, control characters and runs of
/// white space made one space, the ends trimmed.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        let expanded = match c {
            '\u{fb00}' => "ff",
            '\u{fb01}' => "fi",
            '\u{fb02}' => "fl",
            '\u{fb03}' => "ffi",
            '\u{fb04}' => "ffl",
            '\u{fb05}' | '\u{fb06}' => "st",
            _ => {
                if c.is_whitespace() || c.is_control() || c == '\u{fffd}' {
                    space = !out.is_empty();
                } else {
                    if space {
                        out.push(' ');
                        space = false;
                    }
                    out.push(c);
                }
                continue;
            }
        };
        if space {
            out.push(' ');
            space = false;
        }
        out.push_str(expanded);
    }
    out
}

/// The pages' lines finished for reading: running headers and footers dropped, words
/// split by a hyphen at a line's end rejoined, empty lines at a page's ends removed.
pub fn finish_pages(mut pages: Vec<Vec<Line>>) -> Vec<Vec<Line>> {
    drop_running(&mut pages);
    for page in &mut pages {
        rejoin_hyphens(page);
        while page.first().is_some_and(|l| l.text.is_empty()) {
            page.remove(0);
        }
        while page.last().is_some_and(|l| l.text.is_empty()) {
            page.pop();
        }
        page.dedup_by(|b, a| a.text.is_empty() && b.text.is_empty());
    }
    pages
}

/// A line's text with its digits made one mark, so "Page 3" and "Page 14" compare equal.
fn running_key(text: &str) -> String {
    let mut key = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !key.ends_with('#') {
                key.push('#');
            }
        } else if !c.is_whitespace() {
            key.extend(c.to_lowercase());
        }
    }
    key
}

/// The indices of the first and last [`RUNNING_LINES`] text lines of a page.
fn ends(page: &[Line]) -> Vec<usize> {
    let text: Vec<usize> = (0..page.len())
        .filter(|&i| !page[i].text.is_empty())
        .collect();
    let mut at: Vec<usize> = text.iter().take(RUNNING_LINES).copied().collect();
    at.extend(text.iter().rev().take(RUNNING_LINES).copied());
    at.sort_unstable();
    at.dedup();
    at
}

/// Drops the lines that open or close at least [`RUNNING_SHARE`] of the pages (and at
/// least three) alike: running headers, footers, page numbers. A line alike but for its
/// numbers that the page's text follows without a paragraph break (`Section 2` and its
/// first sentence) opens a section that goes on on the page, and stays.
fn drop_running(pages: &mut [Vec<Line>]) {
    if pages.len() < 3 {
        return;
    }
    let mut count: HashMap<String, usize> = HashMap::new();
    for page in pages.iter() {
        let mut keys: Vec<String> = ends(page)
            .into_iter()
            .map(|i| running_key(&page[i].text))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        for key in keys {
            *count.entry(key).or_default() += 1;
        }
    }
    let threshold = ((pages.len() as f64) * RUNNING_SHARE).ceil().max(3.0) as usize;
    let running = |text: &str| {
        count
            .get(&running_key(text))
            .is_some_and(|&c| c >= threshold)
    };
    for page in pages.iter_mut() {
        let mut drop: Vec<usize> = ends(page)
            .into_iter()
            .filter(|&i| running(&page[i].text) && !opens_section(page, i, &running))
            .collect();
        drop.sort_unstable();
        for i in drop.into_iter().rev() {
            page.remove(i);
        }
    }
}

/// Whether line `i` of `page` opens a section that goes on on the page: it carries a
/// number (so it differs from page to page, as `Section 2` does and a running title does
/// not), and the next line is text that does not itself repeat, with no paragraph break
/// between.
fn opens_section(page: &[Line], i: usize, running: &dyn Fn(&str) -> bool) -> bool {
    page[i].text.chars().any(|c| c.is_ascii_digit())
        && page
            .get(i + 1)
            .is_some_and(|next| !next.text.is_empty() && !running(&next.text))
}

/// Rejoins a word a line's end split with a hyphen: `hyphen-` then `ated text` becomes
/// `hyphenated` then `text` (the part before the hyphen must end in a letter and the next
/// line start with a lower-case letter, so a dash before a name or a number stays). The
/// next line may be past a paragraph break the layout saw (a wide gap): the break goes,
/// as the word shows the paragraph goes on. A line the rejoining empties goes too.
fn rejoin_hyphens(page: &mut Vec<Line>) {
    let mut i = 0;
    while i < page.len() {
        let Some(next) = (i + 1..page.len()).find(|&j| !page[j].text.is_empty()) else {
            break;
        };
        let Some(stem) = hyphenated_stem(&page[i].text).map(str::to_owned) else {
            i += 1;
            continue;
        };
        if !page[next]
            .text
            .chars()
            .next()
            .is_some_and(char::is_lowercase)
        {
            i += 1;
            continue;
        }
        let following = std::mem::take(&mut page[next].text);
        let (word, rest) = following.split_once(' ').unwrap_or((&following, ""));
        page[i].text = format!("{stem}{word}");
        page[next].text = rest.to_owned();
        // The breaks between the two parts, and the next line if nothing is left of it.
        let end = if page[next].text.is_empty() {
            next + 1
        } else {
            next
        };
        page.drain(i + 1..end);
        i += 1;
    }
}

/// The part of `line` before a hyphen that ends it, when that part ends in a letter.
fn hyphenated_stem(line: &str) -> Option<&str> {
    let stem = line
        .strip_suffix('-')
        .or_else(|| line.strip_suffix('\u{ad}'))
        .or_else(|| line.strip_suffix('\u{2010}'))?;
    stem.chars()
        .last()
        .is_some_and(char::is_alphabetic)
        .then_some(stem)
}

/// The first heading-like line of the document: on the first page with text, the
/// line(s) set larger than most of its text, when such a line is near its top.
pub fn heading(pages: &[Vec<Line>]) -> Option<String> {
    let page = pages
        .iter()
        .find(|p| p.iter().any(|l| !l.text.is_empty()))?;
    let lines: Vec<&Line> = page.iter().filter(|l| !l.text.is_empty()).collect();
    // The size most of the page's characters are set in.
    let mut by_size: Vec<(f64, usize)> = Vec::new();
    for l in &lines {
        match by_size.iter_mut().find(|(s, _)| (s - l.size).abs() < 0.5) {
            Some(entry) => entry.1 += l.text.chars().count(),
            None => by_size.push((l.size, l.text.chars().count())),
        }
    }
    let body = by_size.iter().max_by_key(|(_, n)| *n)?.0;
    let top = &lines[..lines.len().min(12)];
    let largest = top.iter().map(|l| l.size).fold(0.0, f64::max);
    if largest < body * 1.15 {
        return None;
    }
    let first = top.iter().position(|l| (l.size - largest).abs() < 0.5)?;
    let mut title = String::new();
    for l in top[first..]
        .iter()
        .take(3)
        .take_while(|l| (l.size - largest).abs() < 0.5)
    {
        if !title.is_empty() {
            title.push(' ');
        }
        title.push_str(&l.text);
    }
    let meaningful = title.chars().any(char::is_alphabetic) && title.chars().count() <= 200;
    meaningful.then_some(title)
}

/// Whether a document's Title metadata says something: not empty, not a file name or
/// a path, not an authoring tool's placeholder.
pub fn meaningful_title(title: &str) -> bool {
    let title = title.trim();
    let lower = title.to_lowercase();
    let lower = lower
        .strip_prefix("microsoft word - ")
        .or_else(|| lower.strip_prefix("microsoft powerpoint - "))
        .unwrap_or(&lower)
        .trim();
    if !lower.chars().any(char::is_alphabetic) {
        return false;
    }
    const PLACEHOLDERS: &[&str] = &[
        "untitled",
        "untitled document",
        "document",
        "title",
        "no title",
        "none",
        "unknown",
        "powerpoint presentation",
        "slide",
        "presentation",
        "microsoft word",
        "doc",
        "pdf",
    ];
    let bare = lower.trim_end_matches(|c: char| c.is_ascii_digit() || c == ' ');
    let bare = bare.trim_matches(|c: char| c == '[' || c == ']' || c == '(' || c == ')');
    if PLACEHOLDERS.contains(&bare) {
        return false;
    }
    const FILE_ENDINGS: &[&str] = &[
        ".pdf", ".doc", ".docx", ".rtf", ".odt", ".tex", ".dvi", ".ps", ".eps", ".indd", ".qxd",
        ".pages", ".ppt", ".pptx", ".xls", ".xlsx", ".txt", ".htm", ".html", ".md",
    ];
    if FILE_ENDINGS.iter().any(|e| lower.ends_with(e)) {
        return false;
    }
    let path_like = (lower.contains('/') || lower.contains('\\')) && !lower.contains(' ');
    !path_like
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glyphs(words: &[(&str, f64, f64, f64)]) -> Vec<Glyph> {
        // (text, x, y, size): one glyph per character, each 0.5 em wide.
        let mut out = Vec::new();
        for &(text, x, y, size) in words {
            let mut at = x;
            for c in text.chars() {
                out.push(Glyph {
                    x: at,
                    y,
                    end: at + 0.5 * size,
                    size,
                    text: GlyphText::Char(c),
                });
                at += 0.5 * size;
            }
        }
        out
    }

    fn texts(lines: &[Line]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn glyphs_on_a_baseline_make_a_line_in_position_order() {
        // "world" is drawn before "Hello" on the same baseline; a wider gap is a space.
        let mut g = glyphs(&[("world", 40.0, 100.0, 10.0)]);
        g.extend(glyphs(&[("Hello", 10.0, 100.0, 10.0)]));
        g.extend(glyphs(&[("next", 10.0, 112.0, 10.0)]));
        g.extend(glyphs(&[("para", 10.0, 150.0, 10.0)]));
        assert_eq!(
            texts(&page_lines(g, &mut || false).unwrap()),
            ["Hello world", "next", "", "para"]
        );
    }

    #[test]
    fn normalising_expands_ligatures_and_collapses_space() {
        assert_eq!(
            normalise("  e\u{fb03}cient \u{fb01}le\t\u{a0} of\u{0}x "),
            "efficient file of x"
        );
    }

    #[test]
    fn hyphenated_breaks_rejoin_and_running_lines_drop() {
        let line = |t: &str| Line {
            text: t.to_owned(),
            size: 10.0,
        };
        let page = |n: usize, body: &[&str]| {
            let mut lines = vec![line("Annual Report")];
            lines.extend(body.iter().map(|t| line(t)));
            lines.push(line(&format!("Page {n}")));
            lines
        };
        let first = page(1, &["a hyphen-", "ated word and Anglo-", "Saxon"]);
        let done = finish_pages(vec![
            first.clone(),
            page(2, &["second"]),
            page(13, &["third", "page"]),
        ]);
        assert_eq!(
            texts(&done[0]),
            ["a hyphenated", "word and Anglo-", "Saxon"]
        );
        assert_eq!(texts(&done[1]), ["second"]);
        assert_eq!(texts(&done[2]), ["third", "page"]);
        // Two pages are too few to call anything running.
        let two = finish_pages(vec![first, page(2, &["second"])]);
        assert_eq!(two[0][0].text, "Annual Report");
    }

    #[test]
    fn a_hyphen_rejoins_over_a_paragraph_gap_and_numbered_sections_stay() {
        let line = |t: &str| Line {
            text: t.to_owned(),
            size: 10.0,
        };
        let name = |n: usize| ["first", "second", "third"][n - 1];
        let page = |n: usize| {
            vec![
                line(&format!("Section {n}")),
                line(&format!("The {} extraordi-", name(n))),
                line(""),
                line("nary result holds."),
                line("A dash -"),
                line(""),
                line("and a name Anglo-"),
                line("Saxon stay."),
                line("word-"),
                line(name(n)),
                line(""),
                line(&format!("Page {n}")),
            ]
        };
        let done = finish_pages(vec![page(1), page(2), page(3)]);
        for (i, page) in done.iter().enumerate() {
            let n = i + 1;
            assert_eq!(
                texts(page),
                [
                    format!("Section {n}"),
                    format!("The {} extraordinary", name(n)),
                    "result holds.".to_owned(),
                    "A dash -".to_owned(),
                    String::new(),
                    "and a name Anglo-".to_owned(),
                    "Saxon stay.".to_owned(),
                    format!("word{}", name(n)),
                ]
            );
        }
    }

    #[test]
    fn titles_are_judged() {
        for good in [
            "A Study of Things",
            "R: Writing R Extensions",
            "Annual report 2024",
        ] {
            assert!(meaningful_title(good), "{good}");
        }
        for bad in [
            "",
            "  ",
            "untitled",
            "Untitled document",
            "Microsoft Word - report.docx",
            "paper.pdf",
            "C:\\docs\\x",
            "/tmp/a.b",
            "1234",
            "Slide 1",
            "Document1",
        ] {
            assert!(!meaningful_title(bad), "{bad}");
        }
    }

    #[test]
    fn the_heading_is_the_larger_type_near_the_top() {
        let line = |t: &str, size: f64| Line {
            text: t.to_owned(),
            size,
        };
        let pages = vec![vec![
            line("Big Title", 20.0),
            line("continued", 20.0),
            line("body text that is long enough to be the body", 10.0),
        ]];
        assert_eq!(heading(&pages).as_deref(), Some("Big Title continued"));
        let flat = vec![vec![line("all the same", 10.0), line("size", 10.0)]];
        assert_eq!(heading(&flat), None);
    }
}
