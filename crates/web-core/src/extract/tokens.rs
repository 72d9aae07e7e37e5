//! The tokenizer under the parser: html5gum reads the markup into tokens and html5ever's tree
//! builder builds the document from them, as html5ever's own tokenizer would have it build;
//! the tokens may leave out what nothing reads.
//!
//! Both follow the same chapter of the HTML standard, and the tree builder still steers the
//! tokenizer where the standard says it does: into raw text, RCDATA, script data or plain
//! text after the start tag that asks for it, and into CDATA sections only inside foreign
//! content. html5gum reads runs of text, attribute values and names as byte slices, which
//! our emitter ([`Feed`]) gathers into whole tokens, where html5ever's tokenizer reads every
//! character of a tag through its input queue and pushes it one at a time into a growing
//! string: on the snippet set's pages the same trees are built with about half the parsing
//! instructions. A run of text or an attribute's value read whole from the markup (no
//! character reference or line break normalized in it) shares a copy of the markup rather
//! than taking a buffer of its own ([`Page`]): the tree's text costs an allocation for each
//! chunk of the markup that holds such a run, not one for each run.
//!
//! Comments, the code of scripts and style sheets, and the attributes nothing reads are a
//! large part of a page's markup and never its text: [`Leave::inert`] leaves them out of the
//! tokens, so the document never holds them and no copy of it copies them. And since tree
//! construction costs time proportional to the depth for every tag, [`Leave::depth`] bounds
//! it: start tags nested deeper are left out, their text kept. A document's tree costs a few
//! hundred bytes an element, whatever the markup's size: [`Leave::elements`] bounds it, the
//! tokens ending at the start tag past the bound (the document read up to there).

use std::borrow::Cow;
use std::cell::Cell;
use std::convert::Infallible;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts, TreeSink};
use html5ever::{Attribute, LocalName, QualName, local_name, ns};
use html5gum::{Emitter, Reader, State, Tokenizer};

use super::tree::ONES;
use super::vocab::{KEEPS_ATTRIBUTES, is_unread_attribute};

/// What the tokens given to the tree builder leave out.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Leave {
    /// Whether to leave out what nothing reads: comments, the text of scripts (but JSON data
    /// islands, `type` naming JSON) and style sheets, the elements staying, empty; and the
    /// attributes [`is_unread_attribute`] names, but on the elements of [`KEEPS_ATTRIBUTES`].
    pub(crate) inert: bool,
    /// Start tags nested deeper than this are left out, their text kept. The nesting is
    /// estimated from the tags: an end tag closes the nearest open element of its name among
    /// the last [`END_TAG_SEARCH`], void elements, self-closed tags and raw text open none,
    /// and a `p`, `li`, `td`… closes an open sibling of its name.
    pub(crate) depth: usize,
    /// Start tags given to the tree builder at most: the tokens end before the next one,
    /// as if the markup ended there.
    pub(crate) elements: usize,
}

/// What [`build`] left out of a document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Left {
    /// Start tags nested deeper than [`Leave::depth`] were left out, their text kept.
    pub(crate) flattened: bool,
    /// The markup had more start tags than [`Leave::elements`]: what follows the last one
    /// given was left out.
    pub(crate) cut: bool,
}

/// How many open elements an end tag may search back through to find its start tag.
const END_TAG_SEARCH: usize = 64;

/// Builds the document `sink` makes of `html` with the tree builder's `opts`, the tokens
/// leaving out what `leave` says (a leading byte order mark is not text); with what was
/// left out for the depth and the count of elements.
pub(crate) fn build<S: TreeSink>(
    html: &str,
    sink: S,
    opts: TreeBuilderOpts,
    leave: Leave,
) -> (S::Output, Left) {
    let html = html.strip_prefix('\u{FEFF}').unwrap_or(html);
    let builder = TreeBuilder::new(sink, opts);
    let left = Cell::new(Left::default());
    let feed = Feed {
        builder: &builder,
        page: Page {
            markup: html,
            chunks: Vec::new(),
        },
        leave,
        text: Run::default(),
        tag: TagBeingRead::default(),
        last_start_tag: Vec::new(),
        comment: Vec::new(),
        doctype: DoctypeBeingRead::default(),
        next: None,
        code: false,
        open: Vec::new(),
        given: 0,
        left: &left,
    };
    // Reading a string cannot fail.
    let Ok(()) = Tokenizer::new_with_emitter(
        Markup {
            rest: html.as_bytes(),
        },
        feed,
    )
    .finish();
    (builder.sink.finish(), left.get())
}

/// The tokens, as html5ever's tokenizer makes them, given to the tree builder but for what
/// they leave out: html5gum's emitter, each token gathered from the pieces the tokenizer
/// reads and given whole.
struct Feed<'a, S: TreeSink> {
    /// The tree builder.
    builder: &'a TreeBuilder<S::Handle, S>,
    /// The markup, whose runs of text and attribute values the tokens share.
    page: Page<'a>,
    /// What the tokens leave out.
    leave: Leave,
    /// The text being read.
    text: Run,
    /// The tag being read.
    tag: TagBeingRead,
    /// The name of the last start tag read (until an end tag is read): the end tag that
    /// ends raw text names it.
    last_start_tag: Vec<u8>,
    /// The comment being read.
    comment: Vec<u8>,
    /// The doctype being read.
    doctype: DoctypeBeingRead,
    /// The state the tree builder switched the tokenizer to with the last start tag.
    next: Option<State>,
    /// Whether the text being read is a script's or a style sheet's, left out.
    code: bool,
    /// The open elements by the estimate of the nesting ([`Leave::depth`]).
    open: Vec<LocalName>,
    /// Start tags given so far.
    given: usize,
    /// What was left out so far: once `cut`, no token but the end of file is given.
    left: &'a Cell<Left>,
}

/// A start or end tag as the tokenizer reads it.
#[derive(Default)]
struct TagBeingRead {
    /// Whether it is an end tag.
    end: bool,
    /// Its name, lowercase, as read so far.
    name: Vec<u8>,
    /// Its name interned, once its first attribute is read.
    local: Option<LocalName>,
    /// Whether the tag closes itself (`/>`).
    self_closing: bool,
    /// The attributes kept so far.
    attrs: Vec<Attribute>,
    /// Whether it has repeated an attribute's name (the first one counts).
    duplicates: bool,
    /// Whether an attribute is being read.
    in_attr: bool,
    /// Its name, lowercase, as read so far.
    attr_name: Vec<u8>,
    /// Its value.
    value: Run,
}

/// A doctype as the tokenizer reads it.
#[derive(Default)]
struct DoctypeBeingRead {
    /// Its name.
    name: Vec<u8>,
    /// Its public identifier, if it has one.
    public: Option<Vec<u8>>,
    /// Its system identifier, if it has one.
    system: Option<Vec<u8>>,
    /// Whether it sets the document in quirks mode.
    force_quirks: bool,
}

/// A run of text or an attribute's value as the tokenizer reads it, in pieces: while they
/// follow each other in the markup, the stretch of the markup they make (given as a tendril
/// sharing the markup's buffer); else the bytes copied (a character reference, a line
/// break normalized).
#[derive(Default)]
struct Run {
    /// The stretch of the markup read, while the pieces are the markup's.
    span: Option<(usize, usize)>,
    /// The bytes read, once a piece is not the markup's next.
    bytes: Vec<u8>,
    /// Whether the bytes hold the run (else the span does, or nothing was read).
    copied: bool,
}

impl Run {
    /// Whether nothing has been read.
    fn is_empty(&self) -> bool {
        self.span.is_none() && !self.copied
    }

    /// Reads `piece`.
    fn push(&mut self, page: &Page<'_>, piece: &[u8]) {
        if piece.is_empty() {
            return;
        }
        if !self.copied {
            let at = page.offset(piece);
            match (self.span, at) {
                (None, Some(at)) => {
                    self.span = Some((at, at + piece.len()));
                    return;
                }
                (Some((start, end)), Some(at)) if at == end => {
                    self.span = Some((start, end + piece.len()));
                    return;
                }
                _ => {
                    self.bytes.clear();
                    if let Some((start, end)) = self.span.take() {
                        self.bytes.extend_from_slice(page.bytes(start, end));
                    }
                    self.copied = true;
                }
            }
        }
        self.bytes.extend_from_slice(piece);
    }

    /// What was read, as text (see [`text`]); the run emptied.
    fn take(&mut self, page: &mut Page<'_>) -> StrTendril {
        let tendril = match self.span.take() {
            Some((start, end)) => page.shared(start, end),
            None if self.copied => StrTendril::from(&*text(&self.bytes)),
            None => StrTendril::new(),
        };
        self.copied = false;
        tendril
    }

    /// What was read, as bytes, when it holds a NUL (which the data state gives as a
    /// token of its own); the run then emptied.
    fn take_with_nul(&mut self, page: &Page<'_>) -> Option<Vec<u8>> {
        let bytes = match self.span {
            Some((start, end)) => page.bytes(start, end),
            None => &self.bytes[..],
        };
        if !bytes.contains(&0) {
            return None;
        }
        // The bytes copied are taken, not copied again (a page of NULs is all one run).
        let bytes = match self.span.take() {
            Some((start, end)) => page.bytes(start, end).to_vec(),
            None => std::mem::take(&mut self.bytes),
        };
        self.copied = false;
        Some(bytes)
    }

    /// Forgets what was read.
    fn clear(&mut self) {
        self.span = None;
        self.copied = false;
    }
}

/// The markup, whose runs read whole the tokens share rather than copy: each chunk of it
/// ([`CHUNK`] bytes) is copied once into a tendril when a run in it is first shared, and the
/// runs in it are subtendrils of that. A page's tree holds its text in a few buffers, not
/// one for each run, and only the chunks that hold a shared run are copied (a page cut at its
/// count of elements, or whose text is dropped, keeps little of its markup).
struct Page<'a> {
    /// The markup.
    markup: &'a str,
    /// The chunks copied so far.
    chunks: Vec<Option<StrTendril>>,
}

/// Bytes of markup a tendril of [`Page`] holds, at most.
const CHUNK: usize = 64 * 1024;

impl Page<'_> {
    /// Where `piece` lies in the markup, if it is the markup's.
    fn offset(&self, piece: &[u8]) -> Option<usize> {
        let at = (piece.as_ptr() as usize).checked_sub(self.markup.as_ptr() as usize)?;
        (at + piece.len() <= self.markup.len()).then_some(at)
    }

    /// The markup's bytes from `start` to `end`.
    fn bytes(&self, start: usize, end: usize) -> &[u8] {
        &self.markup.as_bytes()[start..end]
    }

    /// Where chunk `i` starts: the character's start at or before `i` chunks in.
    fn chunk_start(&self, i: usize) -> usize {
        let mut at = i.saturating_mul(CHUNK).min(self.markup.len());
        while !self.markup.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// The markup from `start` to `end` as a tendril sharing its chunk's buffer; copied when
    /// it crosses into the next chunk, or is not whole characters.
    fn shared(&mut self, start: usize, end: usize) -> StrTendril {
        let copied = |page: &Self| StrTendril::from(&*text(page.bytes(start, end)));
        // A tendril holds this much in place.
        if end - start <= 8 {
            return copied(self);
        }
        // A chunk starts at a character's start: the next one may start a few bytes before
        // its multiple of the chunk's size.
        let mut i = start / CHUNK;
        if start >= self.chunk_start(i + 1) {
            i += 1;
        }
        let (from, to) = (self.chunk_start(i), self.chunk_start(i + 1));
        if end > to {
            return copied(self);
        }
        if self.chunks.len() <= i {
            self.chunks.resize(i + 1, None);
        }
        let markup = self.markup;
        let chunk = self.chunks[i].get_or_insert_with(|| StrTendril::from(&markup[from..to]));
        let sub = u32::try_from(start - from)
            .ok()
            .zip(u32::try_from(end - start).ok())
            .and_then(|(at, len)| chunk.try_subtendril(at, len).ok());
        sub.unwrap_or_else(|| copied(self))
    }
}

impl<S: TreeSink> Feed<'_, S> {
    /// Gives `token` to the tree builder and keeps the tokenizer state it asks for.
    fn give(&mut self, token: Token) {
        self.next = match self.builder.process_token(token, 1) {
            TokenSinkResult::Plaintext => Some(State::PlainText),
            TokenSinkResult::RawData(RawKind::Rcdata) => Some(State::RcData),
            TokenSinkResult::RawData(RawKind::Rawtext) => Some(State::RawText),
            TokenSinkResult::RawData(RawKind::ScriptData | RawKind::ScriptDataEscaped(_)) => {
                Some(State::ScriptData)
            }
            // Scripts do not run, and the document is already text.
            TokenSinkResult::Continue
            | TokenSinkResult::Script(_)
            | TokenSinkResult::EncodingIndicator(_) => None,
        };
    }

    /// Whether a start tag named `name` stays within the depth, counted in the estimate of
    /// the nesting if it opens an element.
    fn within_depth(&mut self, name: &LocalName, self_closing: bool) -> bool {
        let limit = self.leave.depth;
        if self_closing || opens_none(name) {
            return true;
        }
        if self.open.len() < limit
            && closes_sibling(name)
            && self.open.last().is_some_and(|top| top == name)
        {
            self.open.pop();
        }
        if self.open.len() >= limit {
            return false;
        }
        self.open.push(name.clone());
        true
    }

    /// A start tag read whole: given, unless too deep.
    fn start_tag(&mut self, tag: Tag) {
        if self.given >= self.leave.elements {
            self.left.set(Left {
                cut: true,
                ..self.left.get()
            });
            self.next = None;
            return;
        }
        if !self.within_depth(&tag.name, tag.self_closing) {
            self.left.set(Left {
                flattened: true,
                ..self.left.get()
            });
            self.next = None;
            return;
        }
        self.given += 1;
        let code = self.leave.inert
            && match tag.name {
                local_name!("style") => true,
                local_name!("script") => !tag.attrs.iter().any(|a| {
                    a.name.local == local_name!("type")
                        && a.value.to_ascii_lowercase().contains("json")
                }),
                _ => false,
            };
        // A self-closed `<iframe/>` (a tag framework's markup, often in a `noscript` that a
        // browser running scripts never parses) is closed at once: the standard leaves it
        // open, and the rest of the page would be its text, which no browser shows.
        let closed_frame = tag.self_closing && tag.name == local_name!("iframe");
        self.give(Token::TagToken(tag));
        if closed_frame && matches!(self.next, Some(State::RawText)) {
            self.give(Token::TagToken(self::tag(TagKind::EndTag, b"iframe")));
        }
        // A `script` or `style` in foreign content is an element like any other.
        self.code = code && matches!(self.next, Some(State::ScriptData | State::RawText));
    }

    /// An end tag: given, and closing in the estimate the nearest open element of its name.
    fn end_tag(&mut self, tag: Tag) {
        // In raw text the only end tag is the one that ends it.
        self.code = false;
        if let Some(at) = self
            .open
            .iter()
            .rev()
            .take(END_TAG_SEARCH)
            .position(|n| *n == tag.name)
        {
            self.open.truncate(self.open.len() - at - 1);
        }
        self.give(Token::TagToken(tag));
    }
}

/// Whether an element named `name` opens nothing the estimate of the nesting follows: void
/// elements, and those whose content is raw text.
fn opens_none(name: &LocalName) -> bool {
    matches!(
        &**name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
            | "keygen"
            | "basefont"
            | "bgsound"
            | "frame"
            | "script"
            | "style"
            | "textarea"
            | "title"
            | "xmp"
            | "iframe"
            | "noembed"
            | "noframes"
            | "plaintext"
    )
}

/// Whether a start tag named `name` implicitly closes an open element of its name.
fn closes_sibling(name: &LocalName) -> bool {
    matches!(
        &**name,
        "p" | "li"
            | "dt"
            | "dd"
            | "tr"
            | "td"
            | "th"
            | "option"
            | "optgroup"
            | "rt"
            | "rp"
            | "tbody"
            | "thead"
            | "tfoot"
    )
}

/// `bytes` as text: they are whole characters of the input, or of what a character
/// reference stands for (were they not, each broken sequence would read as U+FFFD).
fn text(bytes: &[u8]) -> Cow<'_, str> {
    // The check of valid UTF-8 is the standard library's fast one; the lossy reading goes
    // through the bytes in chunks, at several times the cost.
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The interned name of a tag or an attribute as the tokenizer reads it (lowercase): the
/// most frequent ones at once, the others looked up in the set of known names first, as
/// `LocalName::from` does.
fn local(name: &[u8]) -> LocalName {
    match name {
        b"a" => local_name!("a"),
        b"b" => local_name!("b"),
        b"i" => local_name!("i"),
        b"p" => local_name!("p"),
        b"g" => local_name!("g"),
        b"br" => local_name!("br"),
        b"li" => local_name!("li"),
        b"ul" => local_name!("ul"),
        b"td" => local_name!("td"),
        b"tr" => local_name!("tr"),
        b"h2" => local_name!("h2"),
        b"h3" => local_name!("h3"),
        b"id" => local_name!("id"),
        b"div" => local_name!("div"),
        b"img" => local_name!("img"),
        b"svg" => local_name!("svg"),
        b"use" => local_name!("use"),
        b"nav" => local_name!("nav"),
        b"rel" => local_name!("rel"),
        b"alt" => local_name!("alt"),
        b"src" => local_name!("src"),
        b"span" => local_name!("span"),
        b"path" => local_name!("path"),
        b"meta" => local_name!("meta"),
        b"link" => local_name!("link"),
        b"href" => local_name!("href"),
        b"role" => local_name!("role"),
        b"type" => local_name!("type"),
        b"name" => local_name!("name"),
        b"class" => local_name!("class"),
        b"style" => local_name!("style"),
        b"input" => local_name!("input"),
        b"label" => local_name!("label"),
        b"script" => local_name!("script"),
        b"button" => local_name!("button"),
        b"option" => local_name!("option"),
        b"strong" => local_name!("strong"),
        b"source" => local_name!("source"),
        b"section" => local_name!("section"),
        b"content" => local_name!("content"),
        b"article" => local_name!("article"),
        b"property" => local_name!("property"),
        _ => LocalName::from(&*text(name)),
    }
}

/// A start or end tag named `name`, without attributes.
fn tag(kind: TagKind, name: &[u8]) -> Tag {
    Tag {
        kind,
        name: local(name),
        self_closing: false,
        attrs: Vec::new(),
        had_duplicate_attributes: false,
    }
}

impl<S: TreeSink> Feed<'_, S> {
    /// Gives the text read so far, unless it is a script's or a style sheet's.
    fn flush_text(&mut self) {
        if self.text.is_empty() {
            return;
        }
        if self.left.get().cut || self.code {
            self.text.clear();
            return;
        }
        // A NUL in the data state is a token of its own, which the tree builder drops or
        // replaces by where it is; elsewhere the tokenizer has replaced it.
        if let Some(bytes) = self.text.take_with_nul(&self.page) {
            for (i, run) in bytes.split(|&c| c == 0).enumerate() {
                if i > 0 {
                    self.give(Token::NullCharacterToken);
                }
                if !run.is_empty() {
                    self.give(Token::CharacterTokens(StrTendril::from(&*text(run))));
                }
            }
            return;
        }
        let text = self.text.take(&mut self.page);
        self.give(Token::CharacterTokens(text));
    }

    /// Ends the attribute being read: kept on a start tag unless unread (see
    /// [`Leave::inert`]) or repeating an earlier one's name.
    fn end_attribute(&mut self) {
        let tag = &mut self.tag;
        if !std::mem::take(&mut tag.in_attr) {
            return;
        }
        if tag.end {
            tag.value.clear();
            return;
        }
        let name = tag.local.get_or_insert_with(|| local(&tag.name));
        let keeps_all = !self.leave.inert || KEEPS_ATTRIBUTES.contains(&&**name);
        if !keeps_all && is_unread_attribute(&tag.attr_name) {
            tag.value.clear();
            return;
        }
        let attr = local(&tag.attr_name);
        if tag.attrs.iter().any(|a| a.name.local == attr) {
            tag.duplicates = true;
            tag.value.clear();
            return;
        }
        let value = tag.value.take(&mut self.page);
        tag.attrs.push(Attribute {
            name: QualName::new(None, ns!(), attr),
            value,
        });
    }

    /// Starts reading a tag, an end tag when `end`.
    fn init_tag(&mut self, end: bool) {
        let tag = &mut self.tag;
        tag.end = end;
        tag.name.clear();
        tag.local = None;
        tag.self_closing = false;
        tag.attrs.clear();
        tag.duplicates = false;
        tag.in_attr = false;
        tag.value.clear();
    }
}

impl<S: TreeSink> Emitter for Feed<'_, S> {
    type Token = Infallible;

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.last_start_tag.clear();
        self.last_start_tag
            .extend_from_slice(last_start_tag.unwrap_or_default());
    }

    fn emit_eof(&mut self) {
        self.flush_text();
        self.give(Token::EOFToken);
        self.builder.end();
    }

    // Parse errors are not kept (see `parse`), and none is asked for.
    fn emit_error(&mut self, _: html5gum::Error) {}

    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn pop_token(&mut self) -> Option<Infallible> {
        None
    }

    fn emit_string(&mut self, piece: &[u8]) {
        self.text.push(&self.page, piece);
    }

    fn init_start_tag(&mut self) {
        self.init_tag(false);
    }

    fn init_end_tag(&mut self) {
        self.init_tag(true);
    }

    fn init_comment(&mut self) {
        self.flush_text();
        self.comment.clear();
    }

    fn emit_current_tag(&mut self) -> Option<State> {
        self.flush_text();
        self.end_attribute();
        if self.tag.end {
            self.last_start_tag.clear();
            if !self.left.get().cut {
                let end = tag(TagKind::EndTag, &self.tag.name);
                self.end_tag(end);
            }
        } else {
            self.last_start_tag.clear();
            self.last_start_tag.extend_from_slice(&self.tag.name);
            let t = &mut self.tag;
            // The attributes move out at their count (the tree keeps them), the buffer they
            // were read into kept for the next tag.
            let start = Tag {
                kind: TagKind::StartTag,
                name: t.local.take().unwrap_or_else(|| local(&t.name)),
                self_closing: t.self_closing,
                attrs: t.attrs.drain(..).collect(),
                had_duplicate_attributes: t.duplicates,
            };
            if !self.left.get().cut {
                self.start_tag(start);
            }
        }
        // html5gum would guess the state by the tag's name: the tree builder says it.
        self.next.take()
    }

    fn emit_current_comment(&mut self) {
        if !self.leave.inert && !self.left.get().cut {
            let comment = StrTendril::from(&*text(&self.comment));
            self.give(Token::CommentToken(comment));
        }
        self.comment.clear();
    }

    fn emit_current_doctype(&mut self) {
        if self.left.get().cut {
            return;
        }
        let tendril = |b: &Vec<u8>| StrTendril::from(&*text(b));
        let doctype = Doctype {
            name: (!self.doctype.name.is_empty()).then(|| tendril(&self.doctype.name)),
            public_id: self.doctype.public.as_ref().map(tendril),
            system_id: self.doctype.system.as_ref().map(tendril),
            force_quirks: self.doctype.force_quirks,
        };
        self.give(Token::DoctypeToken(doctype));
    }

    fn set_self_closing(&mut self) {
        if !self.tag.end {
            self.tag.self_closing = true;
        }
    }

    fn set_force_quirks(&mut self) {
        self.doctype.force_quirks = true;
    }

    fn push_tag_name(&mut self, piece: &[u8]) {
        self.tag.name.extend_from_slice(piece);
    }

    fn push_comment(&mut self, piece: &[u8]) {
        self.comment.extend_from_slice(piece);
    }

    fn push_doctype_name(&mut self, piece: &[u8]) {
        self.doctype.name.extend_from_slice(piece);
    }

    fn init_doctype(&mut self) {
        self.flush_text();
        self.doctype = DoctypeBeingRead::default();
    }

    fn init_attribute(&mut self) {
        self.flush_text();
        self.end_attribute();
        self.tag.in_attr = true;
        self.tag.attr_name.clear();
    }

    fn push_attribute_name(&mut self, piece: &[u8]) {
        self.tag.attr_name.extend_from_slice(piece);
    }

    fn push_attribute_value(&mut self, piece: &[u8]) {
        self.tag.value.push(&self.page, piece);
    }

    fn set_doctype_public_identifier(&mut self, value: &[u8]) {
        self.doctype.public = Some(value.to_vec());
    }

    fn set_doctype_system_identifier(&mut self, value: &[u8]) {
        self.doctype.system = Some(value.to_vec());
    }

    fn push_doctype_public_identifier(&mut self, piece: &[u8]) {
        if let Some(public) = &mut self.doctype.public {
            public.extend_from_slice(piece);
        }
    }

    fn push_doctype_system_identifier(&mut self, piece: &[u8]) {
        if let Some(system) = &mut self.doctype.system {
            system.extend_from_slice(piece);
        }
    }

    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        self.tag.end && !self.last_start_tag.is_empty() && self.last_start_tag == self.tag.name
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&mut self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// The markup as the tokenizer reads it: html5gum's reader of a string but for the search
/// for the next byte of a set, which every state makes at every step (see [`find`]).
struct Markup<'a> {
    /// What is left to read.
    rest: &'a [u8],
}

/// Where the first byte of `set` (html5gum's sets are ASCII) is in `hay`. A small set (the
/// text states' and the quoted values', [`WORD_SET`] bytes at most with the carriage return
/// the reader adds) is looked for a word of eight bytes at a time; a larger one (a tag's or
/// an attribute's name ends at any of eight or more) a byte at a time against the set's
/// bits. Either reads the runs the states search (a tag's name, an attribute's value, the
/// text between two tags, most a few bytes long) without a vector search's setup, which
/// costs more than such a search: on the snippet set the words take about 4% off the
/// extraction's instructions against the bits alone, which read the markup in about 3% less
/// time than html5gum's own search (jetscii).
#[inline]
fn find(set: &[u8], hay: &[u8]) -> Option<usize> {
    debug_assert!(set.is_ascii(), "{set:?}");
    // The set's bytes below 64, and from 64 to 127.
    let (mut low, mut high) = (0u64, 0u64);
    for &b in set {
        match b {
            0..64 => low |= 1 << b,
            64..128 => high |= 1 << (b - 64),
            _ => {}
        }
    }
    let within = |b: u8| match b {
        0..64 => low >> b & 1 != 0,
        64..128 => high >> (b - 64) & 1 != 0,
        _ => false,
    };
    if set.len() > WORD_SET {
        return hay.iter().position(|&b| within(b));
    }
    let mut words = hay.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        let found = set.iter().fold(0, |found, &b| {
            found | zero_bytes(word ^ (ONES * u64::from(b)))
        });
        if found != 0 {
            // The lowest flag marks the first byte of the set (see `zero_bytes`).
            return Some(at + found.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| within(b))
        .map(|i| at + i)
}

/// The largest set [`find`] looks for a word at a time.
const WORD_SET: usize = 4;

/// The high bit of each zero byte of `word` set, above the lowest one perhaps some others
/// too: the lowest flag is always that of the lowest zero byte, all [`find`] reads. One
/// operation fewer than the exact test of `tree::zeros`, which measured slower here.
#[inline]
fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & (ONES << 7)
}

impl Reader for Markup<'_> {
    type Error = Infallible;

    #[inline(always)]
    fn read_byte(&mut self) -> Result<Option<u8>, Infallible> {
        let Some((&first, rest)) = self.rest.split_first() else {
            return Ok(None);
        };
        self.rest = rest;
        Ok(Some(first))
    }

    /// Compared a byte at a time, stopping at the first that differs: html5gum tries the
    /// named character references that begin with a reference's first letter in turn
    /// (more than a hundred for `&nbsp;`), and nearly all of them differ from the markup in
    /// their first byte or two, where a comparison of the whole slices is a call each.
    #[inline(always)]
    fn try_read_string(&mut self, s: &[u8], case_sensitive: bool) -> Result<bool, Infallible> {
        let same = |(a, b): (&u8, &u8)| a == b || (!case_sensitive && a.eq_ignore_ascii_case(b));
        match self.rest.get(..s.len()) {
            Some(head) if head.iter().zip(s).all(same) => {
                self.rest = &self.rest[s.len()..];
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    #[inline(always)]
    fn read_until<'b>(
        &'b mut self,
        needle: &[u8],
        _: &'b mut [u8; 4],
    ) -> Result<Option<&'b [u8]>, Infallible> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        // The bytes before the next of the set, or that byte alone.
        let at = find(needle, self.rest).map_or(self.rest.len(), |at| at.max(1));
        let (run, rest) = self.rest.split_at(at);
        self.rest = rest;
        Ok(Some(run))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dom_query::{Document, NodeData, NodeRef};
    use html5ever::tendril::TendrilSink;
    use html5ever::{ParseOpts, parse_document};
    use proptest::prelude::*;

    /// The tree builder's options the extractor parses with.
    fn opts() -> TreeBuilderOpts {
        TreeBuilderOpts {
            scripting_enabled: false,
            ..TreeBuilderOpts::default()
        }
    }

    /// The document html5ever's own tokenizer has the tree builder build.
    fn reference(html: &str) -> Document {
        let opts = ParseOpts {
            tree_builder: opts(),
            ..ParseOpts::default()
        };
        parse_document(Document::default(), opts).one(StrTendril::from(html))
    }

    /// Every node of `doc`, one a line, indented by depth: its kind, name with namespace,
    /// attributes with theirs, text (adjacent text nodes as one), the doctype's three
    /// fields, the template contents in their place; and the quirks mode.
    fn dump(doc: &Document) -> String {
        fn walk(node: NodeRef<'_>, depth: usize, out: &mut String) {
            let data = node.query(|n| n.data.clone());
            if let Some(NodeData::Text { contents }) = &data {
                // Text after text joins it.
                if node.prev_sibling().is_some_and(|p| p.is_text()) {
                    return;
                }
                let mut text = contents.to_string();
                let mut next = node.next_sibling();
                while let Some(n) = next.filter(|n| n.is_text()) {
                    text.push_str(&n.text());
                    next = n.next_sibling();
                }
                out.push_str(&format!("{}{text:?}\n", "  ".repeat(depth)));
                return;
            }
            out.push_str(&"  ".repeat(depth));
            match data {
                Some(NodeData::Element(e)) => {
                    let attrs: Vec<String> = e
                        .attrs
                        .iter()
                        .map(|a| format!("{:?}:{}={:?}", a.name.ns, a.name.local, &*a.value))
                        .collect();
                    out.push_str(&format!(
                        "<{:?}:{} {attrs:?} {}>\n",
                        e.name.ns, e.name.local, e.mathml_annotation_xml_integration_point
                    ));
                    if let Some(id) = e.template_contents {
                        walk(NodeRef::new(id, node.tree), depth + 1, out);
                    }
                }
                Some(NodeData::Comment { contents }) => {
                    out.push_str(&format!("<!--{:?}-->\n", &*contents));
                }
                Some(NodeData::Doctype {
                    name,
                    public_id,
                    system_id,
                }) => out.push_str(&format!(
                    "<!doctype {:?} {:?} {:?}>\n",
                    &*name, &*public_id, &*system_id
                )),
                other => out.push_str(&format!("{other:?}\n")),
            }
            for child in node.children() {
                walk(child, depth + 1, out);
            }
        }
        let mut out = format!("{:?}\n", doc.quirks_mode.get());
        walk(doc.root(), 0, &mut out);
        out
    }

    /// The document built from html5gum's tokens, nothing left out, dumped.
    fn ours(html: &str) -> String {
        let leave = Leave {
            inert: false,
            depth: usize::MAX,
            elements: usize::MAX,
        };
        dump(&build(html, Document::default(), opts(), leave).0)
    }

    /// The document built from html5gum's tokens without what nothing reads, dumped.
    fn left(html: &str) -> String {
        let leave = Leave {
            inert: true,
            depth: usize::MAX,
            elements: usize::MAX,
        };
        dump(&build(html, Document::default(), opts(), leave).0)
    }

    /// `doc` without comments, with its HTML scripts (but JSON data islands) and style
    /// sheets emptied, and without unread attributes but on the elements that keep theirs,
    /// dumped.
    fn without_inert(doc: Document) -> String {
        // Every node, the template contents' too.
        let mut nodes = Vec::new();
        let mut roots = vec![doc.root()];
        while let Some(root) = roots.pop() {
            for node in root.descendants() {
                let contents = node.query(|n| match &n.data {
                    NodeData::Element(e) => e.template_contents,
                    _ => None,
                });
                if let Some(id) = contents.flatten() {
                    roots.push(NodeRef::new(id, &doc.tree));
                }
                nodes.push(node);
            }
        }
        let mut remove = Vec::new();
        for node in nodes {
            if node.is_comment() {
                remove.push(node);
                continue;
            }
            let Some(name) = node.qual_name_ref().map(|q| q.clone()) else {
                continue;
            };
            if !KEEPS_ATTRIBUTES.contains(&&*name.local) {
                for a in node.attrs() {
                    if is_unread_attribute(a.name.local.as_bytes()) {
                        node.remove_attr(&a.name.local);
                    }
                }
            }
            let code = name.ns == ns!(html)
                && (&*name.local == "style"
                    || (&*name.local == "script"
                        && !node
                            .attr("type")
                            .is_some_and(|t| t.to_ascii_lowercase().contains("json"))));
            if code {
                remove.extend(node.children());
            }
        }
        for node in remove {
            node.remove_from_parent();
        }
        dump(&doc)
    }

    #[test]
    fn the_trees_are_those_html5evers_tokenizer_has_built() {
        let cases = [
            // Text, references, newlines, NUL and the byte order mark.
            "",
            "\u{FEFF}<p>a",
            "a\r\nb\rc\n\r\nd<p title='x\r\ny'>e\rf</p>",
            "x\0y<p a='\0'>\0</p><title>\0</title><textarea>\0</textarea><!--\0-->",
            "<svg>\0<![CDATA[\0]]></svg><plaintext>\0",
            "&amp; &lt &notit; &not &noti; &#x80; &#0; &#xD800; &#x110000; &#65 &#x; &ampx &AMP;",
            "<a href='?a=1&not=2&amp;b&copy=3&lt'>x</a><a title=&lang;>y</a>",
            "<p>caf\u{e9} \u{1F600} \u{FFFD}</p><d\u{e9}v \u{e9}=\u{e9}>",
            // Tags: case, duplicate and odd attributes, self-closing, end tags.
            "<DIV CLASS=A id=b Id=c class=d>x</Div>",
            "<a =x b c= d='' e=\"\"/><br/><div/>x</div></br></p><p></ x><a/b>",
            "<img src=x alt=\"a>b\" title='c\"d' data-x=e`f>",
            "<div class=\"x",
            "<div class=x",
            "<div",
            "<",
            "a<b",
            "</",
            "<p>a</p x=1 /></ p>",
            // Comments, doctypes, bogus comments, processing instructions.
            "<!----><!---><!--><!-- a -- b --!><!--a--!>b--><!-- <!-- -->",
            "<!--x",
            "<!x><?php echo 1 ?><!DOCTYPE><!doctype html>",
            "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\"><p><table>",
            "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \
             \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd\"><p><table>",
            "<!DOCTYPE html SYSTEM 'about:legacy-compat'>",
            "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 3.2 Final//EN\"><p><table>",
            "<!DOCTYPE foo bar><p><table>",
            "<p><table>",
            // Raw text, RCDATA, script data, plain text, as the tree builder asks.
            "<title>a &amp; <b></title><textarea>\n\nx</textarea><pre>\n\ny</pre><listing>\nz",
            "<style>a</style b><p>x</style></STYLE >",
            "<script>if (a<b) {}</script><script><!--<script></script>--></script>x",
            "<script><!--<script>a</script>b</script>c-->d</script>e",
            "<script><!-- -- --></script><script><!--</script>",
            "<xmp><p></xmp><iframe><p></iframe><noembed><p></noembed><noframes><p></noframes>",
            "<noscript><p>a</p></noscript><template><p>b<td>c</template>",
            "<head><title>t</title><style>s</style></head><body><title>u</title>",
            "<svg><title><p>a</title><style><b></style></svg><p>x<plaintext></p>y",
            "<div><plaintext>a</div>",
            // Foreign content: CDATA, integration points, breaking out.
            "<svg><![CDATA[<p>x</p>]]></svg><![CDATA[y]]>",
            "<math><mi><![CDATA[a]]></mi><annotation-xml encoding=text/html><![CDATA[b]]>\
             </annotation-xml></math>",
            "<svg><foreignObject><![CDATA[c]]><div>d</div></foreignObject><p>e</svg>f",
            "<svg viewBox='0 0 1 1'><path d=M0/><clipPath><rect/></clipPath><font color=r>",
            "<math><mi><svg><foreignObject><div>x</div></foreignObject></svg></mi></math>",
            // Tree building the tokens drive: tables, formatting, select, frames.
            "<table><tr>x<td>a<td>b</table><b><i>c</b>d</i>",
            "<select><option>a<option>b<optgroup><div>c</select>",
            "<frameset><frame></frameset><noframes>x</noframes>",
            "<b><b><b><b>x</b></b></b></b><a><p>y</a>",
        ];
        for html in cases {
            assert_eq!(ours(html), dump(&reference(html)), "{html:?}");
        }
    }

    #[test]
    fn where_html5evers_tokenizer_strays_from_the_standard_ours_does_not() {
        // A line feed right after a `pre`, `listing` or `textarea` start tag is dropped;
        // html5ever's tree builder forgets to drop it when its tokenizer reported a parse
        // error in between (here the empty end tag `</>`, which is nothing).
        for html in ["<pre></>\nx</pre>", "<listing></>\nx</listing>"] {
            assert!(!ours(html).contains("\\n"), "{html:?}");
            assert!(dump(&reference(html)).contains("\\n"), "{html:?}");
        }
        // A byte order mark is one only at the start; html5ever's tokenizer drops one
        // wherever it resumes after a script.
        let html = "<script></script>\u{FEFF}x";
        assert!(ours(html).contains("\\u{feff}x"));
        assert!(!dump(&reference(html)).contains("feff"));
    }

    /// The tendril of an element's first child, a text node (a clone shares its buffer).
    fn first_text(element: &NodeRef<'_>) -> StrTendril {
        let child = element.first_child().expect("a child");
        child
            .query(|n| match &n.data {
                NodeData::Text { contents } => Some(contents.clone()),
                _ => None,
            })
            .flatten()
            .expect("a text node")
    }

    #[test]
    fn runs_read_whole_share_the_page_s_buffer_and_the_others_are_copied() {
        let page = "<p class=\"first-paragraph\">A run of text read whole</p>\
                    <p title=\"fish &amp; chips, a long title\">Line one\r\nline two</p>\
                    <p data-x=\"value\u{e9} with an accent\">caf\u{e9} au lait, \u{e9}t\u{e9}</p>";
        let leave = Leave {
            inert: false,
            depth: usize::MAX,
            elements: usize::MAX,
        };
        let doc = build(page, Document::default(), opts(), leave).0;
        assert_eq!(dump(&doc), dump(&reference(page)));
        let paragraphs = doc.select("p");
        let p: Vec<NodeRef<'_>> = paragraphs.nodes().to_vec();
        let first = first_text(&p[0]);
        let class = p[0].attr("class").unwrap();
        let accented = first_text(&p[2]);
        let data = p[2].attr("data-x").unwrap();
        // Read whole from the markup: one buffer, the page's.
        for shared in [&class, &accented, &data] {
            assert!(first.is_shared_with(shared), "{shared:?}");
        }
        // A character reference and a line break normalized: copies.
        let title = p[1].attr("title").unwrap();
        let lines = first_text(&p[1]);
        assert_eq!(&*title, "fish & chips, a long title");
        assert_eq!(&*lines, "Line one\nline two");
        assert!(!first.is_shared_with(&title));
        assert!(!first.is_shared_with(&lines));
    }

    #[test]
    fn the_markup_is_copied_a_chunk_at_a_time_where_runs_are_shared() {
        let head = "<p>first run of text</p><p>second run of text</p>";
        // The third paragraph's text starts ten bytes before the first chunk ends.
        let pad = CHUNK - 10 - head.len() - "<!---->".len() - "<p>".len();
        let page = format!(
            "{head}<!--{}--><p>a run across the end of the chunk</p>\
             <p>third run, in the next chunk</p><p>fourth run, in the next chunk</p>",
            "x".repeat(pad)
        );
        let leave = Leave {
            inert: true,
            depth: usize::MAX,
            elements: usize::MAX,
        };
        let doc = build(&page, Document::default(), opts(), leave).0;
        assert_eq!(dump(&doc), without_inert(reference(&page)));
        let texts: Vec<StrTendril> = doc.select("p").nodes().iter().map(first_text).collect();
        assert_eq!(&*texts[2], "a run across the end of the chunk");
        // One chunk's runs share its buffer; the next chunk's another.
        assert!(texts[0].is_shared_with(&texts[1]));
        assert!(texts[3].is_shared_with(&texts[4]));
        assert!(!texts[0].is_shared_with(&texts[3]));
        // The run across the two is copied.
        for other in [&texts[0], &texts[3]] {
            assert!(!texts[2].is_shared_with(other));
        }
    }

    #[test]
    fn a_chunk_starts_at_a_character_s_start() {
        // `é` is two bytes, the second at the first chunk's end: the second chunk starts at
        // the first.
        let markup = format!(
            "{}\u{e9} and a run of text, and another one",
            "a".repeat(CHUNK - 1)
        );
        let mut page = Page {
            markup: &markup,
            chunks: Vec::new(),
        };
        let at = CHUNK - 1;
        let first = page.shared(at, at + 20);
        let second = page.shared(at + 21, markup.len());
        let before = page.shared(0, 20);
        assert_eq!(&*first, &markup[at..at + 20]);
        assert_eq!(&*second, &markup[at + 21..]);
        assert!(first.is_shared_with(&second));
        assert!(!first.is_shared_with(&before));
    }

    #[test]
    fn names_are_interned_as_the_set_of_known_names_has_them() {
        for name in [
            "a", "b", "i", "p", "g", "br", "li", "ul", "td", "tr", "h2", "h3", "id", "div", "img",
            "svg", "use", "nav", "rel", "alt", "src", "span", "path", "meta", "link", "href",
            "role", "type", "name", "class", "style", "input", "label", "script", "button",
            "option", "strong", "source", "section", "content", "article", "property", "h1",
            "x-card", "data-k", "Div", "",
        ] {
            assert_eq!(local(name.as_bytes()), LocalName::from(name), "{name}");
        }
    }

    #[test]
    fn a_self_closed_frame_is_closed_at_once() {
        // The standard leaves `<iframe/>` open, its text running to the end of the page; the
        // page's text after it is shown, as a browser that runs scripts shows it.
        let html = "<body><noscript><iframe src=x /></noscript><p>Shown</p></body>";
        let (built, theirs) = (ours(html), dump(&reference(html)));
        assert!(built.contains("):p ["), "{built}");
        assert!(!theirs.contains("):p ["), "{theirs}");
        // A frame with its end tag, or its text, is as the standard builds it.
        for html in [
            "<iframe src=x></iframe><p>a</p>",
            "<iframe><p>a</p></iframe>",
        ] {
            assert_eq!(ours(html), dump(&reference(html)), "{html}");
        }
    }

    #[test]
    fn so_they_are_on_the_pages_of_the_tests() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/extract");
        let mut pages = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let html = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            assert_eq!(ours(&html), dump(&reference(&html)));
            pages += 1;
        }
        assert!(pages >= 4);
    }

    /// The document built without what nothing reads and start tags deeper than `depth`,
    /// dumped; with whether any was left out.
    fn within(html: &str, depth: usize) -> (String, bool) {
        let leave = Leave {
            inert: true,
            depth,
            elements: usize::MAX,
        };
        let (doc, left) = build(html, Document::default(), opts(), leave);
        (dump(&doc), left.flattened)
    }

    #[test]
    fn comments_code_and_unread_attributes_are_left_out() {
        for (html, want) in [
            ("<p>a<!-- b -->c</p>", "<p>ac</p>"),
            ("<p>a<!-->b<!--->c<!-- x --!>d</p>", "<p>abcd</p>"),
            ("<p>a<!-- x --->b</p><!-- never closed <p>c", "<p>ab</p>"),
            ("<p>a<!x>b<?x>c</ x>d<![CDATA[e]]>f</p>", "<p>abcdf</p>"),
            (
                "<script>var s = '</p>';</script><p>t</p>",
                "<script></script><p>t</p>",
            ),
            (
                "<SCRIPT type=text/javascript>a<b</SCRIPT ><p>t",
                "<script type=text/javascript></script><p>t",
            ),
            (
                "<script type=\"application/ld+json\">{\"a\":\"<!--\"}</script><p>t",
                "<script type=\"application/ld+json\">{\"a\":\"<!--\"}</script><p>t",
            ),
            // Inside `<!--` in a script, a `<script>` starts a stretch that its own
            // `</script>` closes; the script ends at the next one.
            (
                "<script><!-- document.write('<script>x</script>'); --></script><p>t",
                "<script></script><p>t",
            ),
            ("<script><!-- a </script><p>t", "<script></script><p>t"),
            ("<script>a</scripts></script><p>t", "<script></script><p>t"),
            ("<style>p { color: red }</style><p>t", "<style></style><p>t"),
            // Quoted attribute values and raw text are read as the tokenizer reads them.
            (
                "<a class='x > <!-- y'>t</a><!-- z -->",
                "<a class='x > <!-- y'>t</a>",
            ),
            (
                "<textarea><!-- kept --></textarea><title><!-- kept --></title>",
                "<textarea><!-- kept --></textarea><title><!-- kept --></title>",
            ),
            (
                "<plaintext><!-- text --><script>x",
                "<plaintext><!-- text --><script>x",
            ),
            (
                "<!doctype html><p>no comment",
                "<!doctype html><p>no comment",
            ),
            // In foreign content a `script` is an element like any other, and a CDATA
            // section is text.
            (
                "<svg><script>code</script><![CDATA[<!-- text -->]]><!-- c --></svg><!-- c -->",
                "<svg><script>code</script><![CDATA[<!-- text -->]]></svg>",
            ),
            (
                "<svg><font color=red><!-- c -->t</font></svg>",
                "<svg><font color=red>t</font></svg>",
            ),
            (
                "<b><svg></b><script type='x/json'><p><!--x--></script><p data-k=1>",
                "<b><svg></b><script type='x/json'><p><!--x--></script><p>",
            ),
            // What nothing reads goes from the tags: data for scripts, event handlers,
            // presentation, labels. What is read stays, and so do all the attributes of
            // pictures, media and embeds, and a code block's language.
            (
                "<div data-id=7 class=a data-x = 'y>z'data-e><p DATA-K=\"v\">t</p></div>",
                "<div class=a><p>t</p></div>",
            ),
            (
                "<div onclick=\"f()\" style=\"display:none\" tabindex=1 aria-label=x \
                 aria-hidden=true title=t><a href=/x target=_blank rel=next data-k=1>a</a>",
                "<div style=\"display:none\" aria-hidden=true><a href=/x rel=next>a</a>",
            ),
            (
                "<img data-src=a.png alt=x><picture data-p=1><source data-srcset=b>\
                 <image data-src=c></picture><pre data-lang=rust data-x=1>f</pre>\
                 <iframe title=v data-src=//v.example/1></iframe>",
                "<img data-src=a.png alt=x><picture data-p=1><source data-srcset=b>\
                 <image data-src=c></picture><pre data-lang=rust>f</pre>\
                 <iframe title=v data-src=//v.example/1></iframe>",
            ),
            // Formatting elements keep theirs: the tree builder forgets the oldest of three
            // alike, and leaving out what tells them apart would make these four alike.
            (
                "<p><b class=x data-a=1><b class=x data-a=2><b class=x data-a=3>\
                 <b class=x data-a=4></p>t",
                "<p><b class=x data-a=1><b class=x data-a=2><b class=x data-a=3>\
                 <b class=x data-a=4></p>t",
            ),
            (
                "<script data-a=1>x</script><style data-b>y</style><title data-c>z</title>",
                "<script></script><style></style><title>z</title>",
            ),
            (
                "<a class='data-x=1' data-=2 data>t</a><x data-y=1/>",
                "<a class='data-x=1'>t</a><x>",
            ),
            (
                "<svg><path/d=M0><g/ data-k>t</g><a//x=\"1\"y></a><g x=\"1\"/></path></svg>",
                "<svg><path><g>t</g><a></a><g/></path></svg>",
            ),
            (
                "<table border=\"2\"color=#008 border=2 bordercolor=\"#ccc\"><tr><td>t",
                "<table color=#008><tr><td>t",
            ),
        ] {
            assert_eq!(left(html), dump(&reference(want)), "{html}");
            assert_eq!(left(html), without_inert(reference(html)), "{html}");
        }
    }

    #[test]
    fn a_comment_left_out_is_as_if_never_written() {
        // In a table's text, a comment ends a run of characters: left out, the space after
        // it joins the text before it and goes before the table with it; and a line feed after
        // a `pre` start tag is one the tree builder drops.
        for (html, want) in [
            ("<table>a<!-- x --> </table>", "<table>a </table>"),
            ("<pre><!-- x -->\ny</pre>", "<pre>\ny</pre>"),
        ] {
            assert_eq!(left(html), dump(&reference(want)), "{html}");
            assert_ne!(left(html), without_inert(reference(html)), "{html}");
        }
    }

    #[test]
    fn start_tags_nested_too_deep_are_left_out_and_their_text_kept() {
        let shallow = "<div><p>a<p>b<ul><li>x<li>y</ul></div><img src=a><br/>";
        assert_eq!(within(shallow, 8), (left(shallow), false));
        let code = "<div><script>if (a<b) {}</script></div>";
        assert_eq!(
            within(code, 2),
            (left(code), false),
            "raw text opens nothing"
        );
        let deep = "<div>a<div>b<div>c<div>d</div></div></div></div>";
        assert_eq!(
            within(deep, 2),
            (
                dump(&reference("<div>a<div>bcd</div></div></div></div>")),
                true
            )
        );
        // Siblings that close each other, or that end tags close, do not nest.
        assert!(!within("<ul><li>a<li>b<li>c</ul>", 3).1);
        assert!(!within(&"<div><p>a</p></div>".repeat(8), 3).1);
        // A start tag too deep goes whole, attributes and all.
        let deep = "<div data-a=1 class=c>".repeat(4) + "t";
        assert_eq!(
            within(&deep, 2),
            (dump(&reference("<div class=c><div class=c>t")), true)
        );
    }

    /// The document built without what nothing reads and with at most `elements` start
    /// tags given, dumped; with what was left out.
    fn counted(html: &str, elements: usize) -> (String, Left) {
        let leave = Leave {
            inert: true,
            depth: usize::MAX,
            elements,
        };
        let (doc, left) = build(html, Document::default(), opts(), leave);
        (dump(&doc), left)
    }

    #[test]
    fn the_markup_ends_at_the_start_tag_past_the_count_of_elements() {
        let page = "<p>a<b>b</b></p><p>c<!-- x --><br>d</p><p>e";
        // Five start tags: all given when six may be.
        assert_eq!(counted(page, 6), (left(page), Left::default()));
        // Three: the document ends before the fourth (`br`), its text and what follows
        // left out with it; the elements the tree builder makes itself do not count.
        assert_eq!(
            counted(page, 3),
            (
                dump(&reference("<p>a<b>b</b></p><p>c</p>")),
                Left {
                    cut: true,
                    ..Left::default()
                }
            )
        );
        // A page of tens of thousands of links is a tree of as many elements as allowed.
        let links = "<a href=/x>x</a>".repeat(20_000);
        let leave = Leave {
            inert: true,
            depth: usize::MAX,
            elements: 100,
        };
        let (doc, left) = build(&links, Document::default(), opts(), leave);
        assert!(left.cut);
        assert_eq!(doc.select("a").length(), 100);
    }

    /// Pieces of markup where tokenizing is tricky. Not `pre` or `listing`: see
    /// [`where_html5evers_tokenizer_strays_from_the_standard_ours_does_not`].
    const PIECES: &[&str] = &[
        "<p>",
        "</p>",
        "<div class=a>",
        "</div>",
        "<b>",
        "</b>",
        "<table>",
        "<tr>",
        "<td>",
        "</table>",
        "<svg>",
        "</svg>",
        "<math>",
        "<mi>",
        "<foreignObject>",
        "<desc>",
        "<![CDATA[",
        "]]>",
        "<!--",
        "-->",
        "--!>",
        "<!",
        "<?",
        ">",
        "<",
        "</",
        "/",
        "=",
        "'",
        "\"",
        "&",
        "&amp;",
        "&not",
        "&#",
        "x",
        ";",
        " ",
        "\n",
        "\r",
        "\r\n",
        "\0",
        "\u{e9}",
        "<a href=",
        "<title>",
        "</title>",
        "<textarea>",
        "</textarea>",
        "<script>",
        "</script>",
        "<style>",
        "</style>",
        "<xmp>",
        "<iframe>",
        "<noscript>",
        "<template>",
        "</template>",
        "<plaintext>",
        "<select>",
        "<option>",
        "<!DOCTYPE html>",
        "<!doctype x",
        "<br/>",
        "</br>",
        "<font color=x>",
        "<body>",
        "<html lang=en>",
        "<head>",
        "<frameset>",
        "<script type='application/ld+json'>",
        "<SCRIPT >",
        "</Script\t>",
        "<div data-k=\"1\" id=a>",
        "<p data-k='<!--' class=b>",
        "<b data-k=x/>",
        " data-k=v ",
        "<img data-src=x>",
        "<span data-lang=en data-k>",
        "<i title=1>",
        "<a href=x onclick=y>",
        "<g d=\"1\"/>",
        "<p/d>",
        "<!-->",
        "</ x>",
        "<?x>",
    ];

    /// The pieces that put the tree builder in a table's modes.
    const TABLES: &[&str] = &["<table>", "<tr>", "<td>"];

    /// The reader hands over the run before the next byte of the set, or that byte alone,
    /// and the whole rest when none is left.
    #[test]
    fn the_reader_reads_runs_up_to_the_set() {
        let mut markup = Markup {
            rest: "ab<c&é\0`".as_bytes(),
        };
        let mut buf = [0; 4];
        let mut runs = Vec::new();
        while let Ok(Some(run)) = markup.read_until(b"<&\0`", &mut buf) {
            runs.push(run.to_vec());
        }
        let want: [&[u8]; 7] = [b"ab", b"<", b"c", b"&", "é".as_bytes(), b"\0", b"`"];
        assert_eq!(runs, want);
        let mut markup = Markup { rest: b"<!DOCTYPE" };
        assert_eq!(markup.read_byte(), Ok(Some(b'<')));
        assert_eq!(markup.try_read_string(b"!doctype", false), Ok(true));
        assert_eq!(markup.read_byte(), Ok(None));
        let mut markup = Markup { rest: b"ABC" };
        assert_eq!(markup.try_read_string(b"abc", true), Ok(false));
        assert_eq!(markup.try_read_string(b"ABCD", false), Ok(false));
        assert_eq!(markup.read_until(b">", &mut buf), Ok(Some(&b"ABC"[..])));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The search finds the first byte of any ASCII set, in any bytes.
        #[test]
        fn the_search_finds_the_first_byte_of_the_set(
            set in prop::collection::vec(0u8..128, 0..14),
            hay in prop::collection::vec(any::<u8>(), 0..80),
        ) {
            prop_assert_eq!(find(&set, &hay), hay.iter().position(|b| set.contains(b)));
        }

        /// The search finds the first byte of a small set placed anywhere in a long run,
        /// read a word at a time, whatever bytes are around it.
        #[test]
        fn the_search_finds_a_small_set_s_byte_anywhere_in_a_long_run(
            set in prop::collection::vec(0u8..128, 1..=WORD_SET),
            hay in prop::collection::vec(any::<u8>(), 0..300),
            placed in prop::collection::vec((0usize..300, 0usize..WORD_SET), 0..3),
        ) {
            let mut hay: Vec<u8> =
                hay.into_iter().map(|b| if set.contains(&b) { b | 0x80 } else { b }).collect();
            for (at, which) in placed {
                if at < hay.len() {
                    hay[at] = set[which % set.len()];
                }
            }
            prop_assert_eq!(find(&set, &hay), hay.iter().position(|b| set.contains(b)));
        }

        /// Any mix of those pieces gives the tree html5ever's tokenizer has built.
        #[test]
        fn any_markup_gives_the_same_tree(pieces in prop::collection::vec(prop::sample::select(PIECES), 0..16)) {
            let html = pieces.concat();
            prop_assert_eq!(ours(&html), dump(&reference(&html)), "{:?}", html);
        }

        /// What nothing reads left out, it gives the tree html5ever's tokenizer has built
        /// without it; but in a table's modes (see
        /// [`a_comment_in_a_tables_text_no_longer_splits_it`]).
        #[test]
        fn what_nothing_reads_is_left_out_as_if_never_there(
            pieces in prop::collection::vec(
                prop::sample::select(PIECES.iter().copied().filter(|p| !TABLES.contains(p)).collect::<Vec<_>>()),
                0..16,
            ),
        ) {
            let html = pieces.concat();
            prop_assert_eq!(left(&html), without_inert(reference(&html)), "{:?}", html);
        }
    }
}
