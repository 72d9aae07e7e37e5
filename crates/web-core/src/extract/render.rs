//! A subtree rendered as lines of light Markdown: `#` headings, `-`/`1.` list items, blank
//! lines between paragraphs, fenced code with its language, `| a | b |` table rows, `>`
//! quotes. Link and image URLs are dropped; link text is kept, and an image says nothing
//! (its `alt` text describes a picture the reader does not see: a card's product shot, a
//! logo, a gallery's frames). Whitespace is collapsed; the walk is iterative, so any depth
//! is safe.

use dom_query::NodeRef;

use super::tree::{Step, attr, walk, with_element, with_text};
use super::vocab::{CODE_LANGUAGE, is_hidden, is_never_content};

/// Renders the subtree of `root` to lines (no leading, trailing or repeated blank lines).
pub(crate) fn render(root: NodeRef<'_>) -> Vec<String> {
    let mut r = Renderer::default();
    walk(root, |step| match step {
        Step::Enter(node) => r.enter(&node),
        Step::Leave(node, entered) => {
            if entered {
                r.leave(&node);
            }
            true
        }
    });
    r.flush();
    r.finish()
}

/// How a block joins the one before it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Join {
    /// After a blank line.
    Paragraph,
    /// On the next line (list items, table rows, lines broken by `<br>`).
    Tight,
}

struct Block {
    prefix: String,
    text: String,
    join: Join,
    /// How many quotes the block is in.
    quotes: usize,
    /// Whether the block is a list item's first line.
    item: bool,
}

#[derive(Clone, Copy)]
enum Container {
    Quote,
    List { ordered: bool, next: u64 },
}

/// A table row being collected.
#[derive(Default)]
struct Row {
    cells: Vec<String>,
    header: bool,
}

#[derive(Default)]
struct Renderer {
    blocks: Vec<Block>,
    buf: String,
    pending_space: bool,
    containers: Vec<Container>,
    /// The marker of a list item whose first block has not been written yet.
    item_marker: Option<String>,
    /// Whether the next block continues the current list item.
    in_item: usize,
    heading: Option<usize>,
    next_join: Option<Join>,
    pre_depth: usize,
    pre_lang: Option<String>,
    table_depth: usize,
    row: Option<Row>,
    in_cell: usize,
    table_rows_written: usize,
    table_header_done: bool,
    code_depth: usize,
    code_start: usize,
}

/// Elements whose subtree is never text: what the chrome filter removes as never content,
/// plus images (their `alt` text describes the picture, not the page's text), the head,
/// and ruby annotations.
fn is_skipped(name: &str) -> bool {
    is_never_content(name) || matches!(name, "img" | "head" | "title" | "rt" | "rp")
}

/// Elements that are lines of their own beside the blocks: list items and their lists,
/// headings.
fn is_line(name: &str) -> bool {
    matches!(
        name,
        "li" | "ul" | "ol" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
    )
}

/// Elements the renderer starts and ends a line at (outside a table cell, where each is a
/// word's end): the blocks, list items and their lists, headings, quotes.
pub(crate) fn ends_line(name: &str) -> bool {
    is_block(name) || is_line(name) || name == "blockquote"
}

/// Elements that start and end a paragraph-like block.
pub(crate) fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "section"
            | "article"
            | "main"
            | "header"
            | "footer"
            | "nav"
            | "aside"
            | "address"
            | "figure"
            | "figcaption"
            | "details"
            | "summary"
            | "dl"
            | "dt"
            | "dd"
            | "center"
            | "fieldset"
            | "legend"
            | "hr"
            | "form"
            | "body"
            | "caption"
            | "hgroup"
            | "menu"
            | "output"
            | "search"
    )
}

impl Renderer {
    fn enter(&mut self, node: &NodeRef<'_>) -> bool {
        if let Some(done) = with_text(node, |t| self.text(t)) {
            return done;
        }
        let Some((name, lang, start)) = with_element(node, |e| {
            // The element's name as the parser interned it: no copy per element.
            let name = e.name.local.clone();
            let local: &str = &name;
            let lang = if local == "pre" || local == "code" {
                code_language(attr(e, "class").unwrap_or(""))
                    .or_else(|| attr(e, CODE_LANGUAGE).map(str::to_owned))
            } else {
                None
            };
            let start = attr(e, "start").and_then(|s| s.trim().parse::<u64>().ok());
            (name, lang, start)
        }) else {
            // Documents and fragments are walked; comments and the like are not.
            return node.is_document() || node.is_fragment();
        };
        let name: &str = &name;
        if is_skipped(name) || is_hidden(node) {
            return false;
        }
        if self.pre_depth > 0 {
            match name {
                "br" => self.buf.push('\n'),
                "code" if self.pre_lang.is_none() => self.pre_lang = lang,
                _ => {}
            }
            return true;
        }
        if self.in_cell > 0 {
            return self.enter_in_cell(name);
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.flush();
                self.heading = name[1..].parse().ok();
            }
            "br" => {
                self.flush_with(Join::Tight);
            }
            "ul" | "ol" => {
                self.flush();
                self.containers.push(Container::List {
                    ordered: name == "ol",
                    next: start.unwrap_or(1),
                });
            }
            "li" => {
                self.flush();
                let (marker, depth) = self.list_marker();
                let indent = "  ".repeat(depth.saturating_sub(1));
                self.item_marker = Some(format!("{indent}{marker} "));
                self.in_item += 1;
            }
            "blockquote" => {
                self.flush();
                self.containers.push(Container::Quote);
            }
            "pre" | "listing" | "xmp" | "plaintext" => {
                self.flush();
                self.pre_depth += 1;
                self.pre_lang = lang;
            }
            "table" => {
                self.flush();
                self.table_depth += 1;
                if self.table_depth == 1 {
                    self.table_rows_written = 0;
                    self.table_header_done = false;
                }
            }
            "tr" if self.table_depth > 0 => {
                self.flush();
                self.row = Some(Row::default());
            }
            "td" | "th" if self.table_depth > 0 => {
                self.flush();
                if self.row.is_none() {
                    self.row = Some(Row::default());
                }
                if let Some(row) = self.row.as_mut() {
                    row.header |= name == "th";
                }
                self.in_cell += 1;
            }
            "code" | "kbd" | "samp" | "tt" => {
                if self.code_depth == 0 {
                    self.space_if_pending();
                    self.buf.push('`');
                    self.code_start = self.buf.len();
                }
                self.code_depth += 1;
            }
            n if is_block(n) => self.flush(),
            _ => {}
        }
        true
    }

    fn enter_in_cell(&mut self, name: &str) -> bool {
        if matches!(name, "td" | "th" | "tr" | "table") {
            // Nested tables flatten into the cell.
            self.in_cell += usize::from(matches!(name, "td" | "th"));
            self.pending_space = true;
        } else if name == "br" || is_block(name) || is_line(name) {
            self.pending_space = true;
        }
        true
    }

    fn leave(&mut self, node: &NodeRef<'_>) {
        let Some(name) = with_element(node, |e| e.name.local.clone()) else {
            return;
        };
        let name: &str = &name;
        if self.pre_depth > 0 {
            if matches!(name, "pre" | "listing" | "xmp" | "plaintext") {
                self.pre_depth -= 1;
                if self.pre_depth == 0 {
                    self.emit_code();
                }
            }
            return;
        }
        if self.in_cell > 0 {
            if matches!(name, "td" | "th") {
                self.in_cell -= 1;
                if self.in_cell == 0 {
                    let cell = collapse(&self.buf).replace('|', "\\|");
                    self.buf.clear();
                    self.pending_space = false;
                    if let Some(row) = self.row.as_mut() {
                        row.cells.push(cell);
                    }
                } else {
                    self.pending_space = true;
                }
            } else if is_block(name) || is_line(name) {
                self.pending_space = true;
            }
            return;
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => self.flush(),
            "ul" | "ol" => {
                self.flush();
                if matches!(self.containers.last(), Some(Container::List { .. })) {
                    self.containers.pop();
                }
            }
            "li" => {
                self.flush();
                self.in_item = self.in_item.saturating_sub(1);
                self.item_marker = None;
            }
            "blockquote" => {
                self.flush();
                if matches!(self.containers.last(), Some(Container::Quote)) {
                    self.containers.pop();
                }
            }
            "tr" if self.table_depth > 0 => self.emit_row(),
            "table" if self.table_depth > 0 => {
                self.emit_row();
                self.table_depth -= 1;
            }
            "code" | "kbd" | "samp" | "tt" => {
                self.code_depth = self.code_depth.saturating_sub(1);
                if self.code_depth == 0 {
                    if self.buf.len() == self.code_start {
                        self.buf.pop();
                    } else {
                        if self.buf.ends_with(' ') {
                            self.buf.pop();
                            self.pending_space = true;
                        }
                        self.buf.push('`');
                    }
                }
            }
            n if is_block(n) => self.flush(),
            _ => {}
        }
    }

    fn text(&mut self, t: &str) -> bool {
        if self.pre_depth > 0 {
            self.buf.push_str(t);
            return false;
        }
        // Word by word: whitespace before a word leaves a space pending, the word is copied
        // whole.
        let mut rest = t;
        while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
            if start > 0 {
                self.pending_space = true;
            }
            let word = &rest[start..];
            let end = word.find(char::is_whitespace).unwrap_or(word.len());
            self.space_if_pending();
            self.buf.push_str(&word[..end]);
            rest = &word[end..];
        }
        if !rest.is_empty() {
            self.pending_space = true;
        }
        false
    }

    fn space_if_pending(&mut self) {
        if self.pending_space {
            let after_open_code = self.code_depth > 0 && self.buf.len() == self.code_start;
            if !self.buf.is_empty() && !self.buf.ends_with(' ') && !after_open_code {
                self.buf.push(' ');
            }
            self.pending_space = false;
        }
    }

    /// The marker for a new list item and the list nesting depth.
    fn list_marker(&mut self) -> (String, usize) {
        let depth = self
            .containers
            .iter()
            .filter(|c| matches!(c, Container::List { .. }))
            .count();
        let marker = match self.containers.iter_mut().rev().find_map(|c| match c {
            Container::List { ordered, next } => Some((ordered, next)),
            Container::Quote => None,
        }) {
            Some((true, next)) => {
                let m = format!("{next}.");
                *next = next.saturating_add(1);
                m
            }
            _ => "-".to_owned(),
        };
        (marker, depth.max(1))
    }

    /// The prefix of quote markers for the current containers.
    fn quote_prefix(&self) -> String {
        self.containers
            .iter()
            .filter(|c| matches!(c, Container::Quote))
            .map(|_| "> ")
            .collect()
    }

    fn flush(&mut self) {
        self.flush_with(Join::Paragraph);
    }

    /// Ends the current block of inline text, if any.
    fn flush_with(&mut self, join: Join) {
        self.pending_space = false;
        if self.code_depth > 0 {
            self.code_depth = 0;
            if self.buf.len() == self.code_start {
                self.buf.pop();
            } else {
                self.buf.push('`');
            }
        }
        // The block's text copied out at its size; the buffer, grown to the longest block
        // so far, stays for the next.
        let text = self.buf.trim();
        if text.is_empty() {
            self.buf.clear();
            if join == Join::Paragraph && self.in_item == 0 {
                self.next_join = None;
            }
            self.heading = None;
            return;
        }
        let text = text.to_owned();
        self.buf.clear();
        let mut prefix = self.quote_prefix();
        let mut block_join = self.next_join.take().unwrap_or(join);
        let item = self.item_marker.is_some();
        if let Some(marker) = self.item_marker.take() {
            prefix.push_str(&marker);
            let after_item = self
                .blocks
                .last()
                .is_some_and(|b| b.item || b.prefix.starts_with(' '));
            block_join = if after_item {
                Join::Tight
            } else {
                Join::Paragraph
            };
        } else if self.in_item > 0 {
            let depth = self
                .containers
                .iter()
                .filter(|c| matches!(c, Container::List { .. }))
                .count();
            prefix.push_str(&"  ".repeat(depth));
            block_join = Join::Tight;
        }
        if let Some(level) = self.heading.take() {
            prefix.push_str(&"#".repeat(level.clamp(1, 6)));
            prefix.push(' ');
            block_join = Join::Paragraph;
        }
        let quotes = self.quotes();
        self.blocks.push(Block {
            prefix,
            text,
            join: block_join,
            quotes,
            item,
        });
        if join == Join::Tight {
            self.next_join = Some(Join::Tight);
        }
    }

    fn emit_row(&mut self) {
        let Some(row) = self.row.take() else {
            return;
        };
        if row.cells.iter().all(String::is_empty) {
            return;
        }
        let prefix = self.quote_prefix();
        if row.cells.len() == 1 {
            // A one-cell row is layout, not data.
            let quotes = self.quotes();
            self.blocks.push(Block {
                prefix,
                text: row.cells.into_iter().next().unwrap_or_default(),
                join: Join::Paragraph,
                quotes,
                item: false,
            });
            return;
        }
        let line = format!("| {} |", row.cells.join(" | "));
        let first = self.table_rows_written == 0;
        let quotes = self.quotes();
        self.blocks.push(Block {
            prefix: prefix.clone(),
            text: line,
            join: if first { Join::Paragraph } else { Join::Tight },
            quotes,
            item: false,
        });
        if first && row.header && !self.table_header_done {
            let rule = vec!["---"; row.cells.len()].join(" | ");
            self.blocks.push(Block {
                prefix,
                text: format!("| {rule} |"),
                join: Join::Tight,
                quotes,
                item: false,
            });
        }
        self.table_header_done = true;
        self.table_rows_written += 1;
        self.next_join = None;
    }

    fn emit_code(&mut self) {
        let code = std::mem::take(&mut self.buf);
        let lang = self.pre_lang.take().unwrap_or_default();
        let code = code.replace("\r\n", "\n");
        let code = code.trim_matches('\n');
        if code.trim().is_empty() {
            return;
        }
        let prefix = self.quote_prefix();
        let fence = if code.contains("```") { "~~~~" } else { "```" };
        let mut text = format!("{fence}{lang}");
        for line in code.lines() {
            text.push('\n');
            text.push_str(&prefix);
            text.push_str(line.trim_end());
        }
        text.push('\n');
        text.push_str(&prefix);
        text.push_str(fence);
        let quotes = self.quotes();
        self.blocks.push(Block {
            prefix,
            text,
            join: Join::Paragraph,
            quotes,
            item: false,
        });
        self.next_join = None;
    }

    /// How many quotes are open.
    fn quotes(&self) -> usize {
        self.containers
            .iter()
            .filter(|c| matches!(c, Container::Quote))
            .count()
    }

    fn finish(self) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        let mut previous_quotes = 0usize;
        for block in self.blocks {
            if !lines.is_empty() && block.join == Join::Paragraph {
                // A blank line inside a quote keeps the quote going.
                let shared = previous_quotes.min(block.quotes);
                lines.push(">".repeat(shared));
            }
            previous_quotes = block.quotes;
            let mut first = true;
            for line in block.text.split('\n') {
                if first {
                    lines.push(format!("{}{}", block.prefix, line));
                    first = false;
                } else {
                    lines.push(line.to_owned());
                }
            }
        }
        lines
    }
}

/// Whitespace collapsed to single spaces, ends trimmed.
pub(crate) fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The language a code block declares in its class (`language-rust`, `lang-py`).
fn code_language(class: &str) -> Option<String> {
    class.split_ascii_whitespace().find_map(|c| {
        let lang = c
            .strip_prefix("language-")
            .or_else(|| c.strip_prefix("lang-"))
            .or_else(|| c.strip_prefix("highlight-source-"))?;
        let ok = !lang.is_empty()
            && lang.len() <= 32
            && lang
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '+' | '-' | '#' | '.' | '_'));
        ok.then(|| lang.to_ascii_lowercase())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(html: &str) -> String {
        let doc = dom_query::Document::from(html);
        let body = doc.body().unwrap_or_else(|| doc.root());
        render(body).join("\n")
    }

    #[test]
    fn structures_render_as_light_markdown() {
        assert_eq!(
            md("<h2>A  b</h2><p>x\n y</p><p>z</p>"),
            "## A b\n\nx y\n\nz"
        );
        assert_eq!(
            md("<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>"),
            "- a\n  - b\n- c"
        );
        assert_eq!(md("<ol start=3><li>a<li>b</ol>"), "3. a\n4. b");
        assert_eq!(
            md("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2|3</td></tr></table>"),
            "| a | b |\n| --- | --- |\n| 1 | 2\\|3 |"
        );
        assert_eq!(
            md("<pre><code class='language-rust'>fn main() {\n    x();\n}</code></pre>"),
            "```rust\nfn main() {\n    x();\n}\n```"
        );
        assert_eq!(
            md("<blockquote><p>q1</p><p>q2</p></blockquote>"),
            "> q1\n>\n> q2"
        );
        assert_eq!(
            md("<h2>t</h2><ul><li>a</li><li>b</li></ul><p>c</p>"),
            "## t\n\n- a\n- b\n\nc"
        );
        assert_eq!(md("<p>a<br>b</p><p>c</p>"), "a\nb\n\nc");
        assert_eq!(
            md("<p>use <code>x</code>, <a href='/u'>here</a></p>"),
            "use `x`, here"
        );
    }

    #[test]
    fn blocks_and_headings_in_a_cell_end_a_word_whatever_the_whitespace() {
        // A cell is one line: its blocks, lists and headings are words apart, with or
        // without whitespace between them in the markup.
        let cell = |inner: &str| {
            md(&format!(
                "<table><tr><td>{inner}</td><td>z</td></tr></table>"
            ))
        };
        assert_eq!(cell("<div>a</div><div>b</div>"), "| a b | z |");
        assert_eq!(cell("a<h3>b</h3>c"), "| a b c | z |");
        assert_eq!(cell("<p>a.</p>b"), "| a. b | z |");
        assert_eq!(cell("<ul><li>a</li><li>b</li></ul>c"), "| a b c | z |");
        assert_eq!(cell("<span>a</span><span>b</span>"), "| ab | z |");
    }

    #[test]
    fn an_image_says_nothing_whatever_its_alt_text() {
        assert_eq!(md("<p>a<img src='c.png' alt=' a  can '>b</p>"), "ab");
        assert_eq!(
            md("<p>a <img src='c.png' alt='A can of beans'> b</p>"),
            "a b"
        );
        assert_eq!(
            md(
                "<figure><picture><source srcset='x.webp'><img alt='Ripe fruit'></picture>\
                <figcaption>July</figcaption></figure>"
            ),
            "July"
        );
        assert_eq!(
            md("<ul><li><a href='/p/1'><img alt='Front view of a blue mug'>Blue mug</a></li></ul>"),
            "- Blue mug"
        );
        assert_eq!(md("<pre>a<img alt='x y'>b</pre>"), "```\nab\n```");
    }
}
