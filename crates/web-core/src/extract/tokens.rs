//! The tokenizer under the parser: html5gum reads the markup into tokens and html5ever's tree
//! builder builds the document from them, as html5ever's own tokenizer would have it build.
//!
//! Both follow the same chapter of the HTML standard, and the tree builder still steers the
//! tokenizer where the standard says it does: into raw text, RCDATA, script data or plain
//! text after the start tag that asks for it, and into CDATA sections only inside foreign
//! content. html5gum reads runs of text, attribute values and names as byte slices and hands
//! each token over whole, where html5ever's tokenizer reads every character of a tag through
//! its input queue and pushes it one at a time into a growing string: on the development
//! sets' pages the same trees are built with about half the instructions.

use std::borrow::Cow;
use std::convert::Infallible;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts, TreeSink};
use html5ever::{Attribute, LocalName, QualName, ns};
use html5gum::emitters::callback::{Callback, CallbackEmitter, CallbackEvent};
use html5gum::{Emitter, ForwardingEmitter, Span, State, Tokenizer};

/// Builds the document `sink` makes of `html` with the tree builder's `opts`; a leading byte
/// order mark is not text.
pub(crate) fn build<S: TreeSink>(html: &str, sink: S, opts: TreeBuilderOpts) -> S::Output {
    let html = html.strip_prefix('\u{FEFF}').unwrap_or(html);
    let builder = TreeBuilder::new(sink, opts);
    let feed = Feed {
        builder: &builder,
        tag: None,
        duplicate: false,
        next: None,
    };
    // Reading a string cannot fail.
    let Ok(()) = Tokenizer::new_with_emitter(html, Steer(CallbackEmitter::new(feed))).finish();
    builder.sink.finish()
}

/// The tokens, as html5ever's tokenizer makes them, given to the tree builder.
struct Feed<'a, S: TreeSink> {
    /// The tree builder.
    builder: &'a TreeBuilder<S::Handle, S>,
    /// The start tag being read.
    tag: Option<Tag>,
    /// Whether the attribute being read repeats an earlier one's name (the first one counts).
    duplicate: bool,
    /// The state the tree builder switched the tokenizer to with the last start tag.
    next: Option<State>,
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

/// A start or end tag named `name`, without attributes.
fn tag(kind: TagKind, name: &[u8]) -> Tag {
    Tag {
        kind,
        name: LocalName::from(&*text(name)),
        self_closing: false,
        attrs: Vec::new(),
        had_duplicate_attributes: false,
    }
}

impl<S: TreeSink> Callback<Infallible, ()> for Feed<'_, S> {
    fn handle_event(&mut self, event: CallbackEvent<'_>, _: Span<()>) -> Option<Infallible> {
        match event {
            CallbackEvent::OpenStartTag { name } => {
                self.tag = Some(tag(TagKind::StartTag, name));
            }
            CallbackEvent::AttributeName { name } => {
                if let Some(tag) = &mut self.tag {
                    let local = LocalName::from(&*text(name));
                    self.duplicate = tag.attrs.iter().any(|a| a.name.local == local);
                    if self.duplicate {
                        tag.had_duplicate_attributes = true;
                    } else {
                        tag.attrs.push(Attribute {
                            name: QualName::new(None, ns!(), local),
                            value: StrTendril::new(),
                        });
                    }
                }
            }
            CallbackEvent::AttributeValue { value } => {
                if !self.duplicate
                    && let Some(attr) = self.tag.as_mut().and_then(|t| t.attrs.last_mut())
                {
                    attr.value.push_slice(&text(value));
                }
            }
            CallbackEvent::CloseStartTag { self_closing } => {
                if let Some(mut tag) = self.tag.take() {
                    tag.self_closing = self_closing;
                    self.duplicate = false;
                    self.give(Token::TagToken(tag));
                }
            }
            CallbackEvent::EndTag { name } => {
                self.give(Token::TagToken(tag(TagKind::EndTag, name)))
            }
            CallbackEvent::String { value } => {
                // A NUL in the data state is a token of its own, which the tree builder drops
                // or replaces by where it is; elsewhere the tokenizer has replaced it.
                for (i, run) in value.split(|&c| c == 0).enumerate() {
                    if i > 0 {
                        self.give(Token::NullCharacterToken);
                    }
                    if !run.is_empty() {
                        self.give(Token::CharacterTokens(StrTendril::from(&*text(run))));
                    }
                }
            }
            CallbackEvent::Comment { value } => {
                self.give(Token::CommentToken(StrTendril::from(&*text(value))));
            }
            CallbackEvent::Doctype {
                name,
                public_identifier,
                system_identifier,
                force_quirks,
            } => {
                let tendril = |b: &[u8]| StrTendril::from(&*text(b));
                self.give(Token::DoctypeToken(Doctype {
                    name: (!name.is_empty()).then(|| tendril(name)),
                    public_id: public_identifier.map(tendril),
                    system_id: system_identifier.map(tendril),
                    force_quirks,
                }));
            }
            // Parse errors are not kept (see `parse`), and none is asked for.
            CallbackEvent::Error(_) => {}
        }
        None
    }
}

/// The tokenizer's emitter: html5gum's own, which gathers each token's pieces, with the tree
/// builder's say on the tokenizer's state.
struct Steer<'a, S: TreeSink>(CallbackEmitter<Feed<'a, S>>);

impl<S: TreeSink> ForwardingEmitter for Steer<'_, S> {
    type Token = Infallible;

    fn inner(&mut self) -> &mut impl Emitter<Token = Infallible> {
        &mut self.0
    }

    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn emit_eof(&mut self) {
        self.0.emit_eof();
        let feed = self.0.callback_mut();
        feed.give(Token::EOFToken);
        feed.builder.end();
    }

    fn emit_current_tag(&mut self) -> Option<State> {
        // html5gum's emitter asks for no state of its own (it would guess by the tag's name).
        let _ = self.0.emit_current_tag();
        self.0.callback_mut().next.take()
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&mut self) -> bool {
        self.0
            .callback_mut()
            .builder
            .adjusted_current_node_present_but_not_in_html_namespace()
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
    /// attributes with theirs, text, the doctype's three fields, the template contents in
    /// their place; and the quirks mode.
    fn dump(doc: &Document) -> String {
        fn walk(node: NodeRef<'_>, depth: usize, out: &mut String) {
            let data = node.query(|n| n.data.clone());
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
                Some(NodeData::Text { contents }) => out.push_str(&format!("{:?}\n", &*contents)),
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

    /// The document built from html5gum's tokens, dumped.
    fn ours(html: &str) -> String {
        dump(&build(html, Document::default(), opts()))
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
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Any mix of those pieces gives the tree html5ever's tokenizer has built.
        #[test]
        fn any_markup_gives_the_same_tree(pieces in prop::collection::vec(prop::sample::select(PIECES), 0..16)) {
            let html = pieces.concat();
            prop_assert_eq!(ours(&html), dump(&reference(&html)), "{:?}", html);
        }
    }
}
