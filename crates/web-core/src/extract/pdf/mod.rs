//! PDF documents as text: the text layer of each page, laid out for a reader, under a
//! `[page N]` marker line, and the document's title.
//!
//! [`read`] takes the whole file (a PDF is read whole: its index is at its end). It
//! never panics and never recurses without end, whatever the bytes:
//! - before the PDF reader (`pdf-extract`, on `lopdf`) sees the file, `scan::raw`
//!   inflates every compressed stream into a counter, so a file whose streams would
//!   inflate past a bound proportional to `max-pdf-bytes` is refused before anything
//!   is decoded, and measures how deep its objects nest;
//! - once loaded, `scan::graph` checks what the reader follows recursively (page
//!   parents, form XObjects drawing each other) for circles;
//! - the reader runs inside `catch_unwind`: a panic in it is
//!   [`Problem::PdfUnreadable`], never a crash; a page it fails on is skipped and the
//!   rest are read. While the crate runs (not while our code it calls back does),
//!   [`panic_is_contained`] says so, for a panic hook that logs such a panic as one
//!   line rather than as a crash;
//! - it stops at the caller's deadline.
//!
//! The text follows `layout`: lines in the order the page draws them, hyphenated
//! breaks rejoined, ligatures expanded, running headers and footers dropped. The title
//! is the document's Title metadata when it is meaningful, else its first heading-like
//! line (the largest type near the top of its first page).

mod layout;
mod scan;

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use pdf_extract::{
    ColorSpace, Document, MediaBox, Object, OutputDev, OutputError, Path, Transform,
};

use crate::error::Problem;
use crate::extract::{BodyKind, Extracted};

/// How far a PDF's streams may inflate, all together, per byte of `max-pdf-bytes`: the
/// memory bound of reading one.
pub const INFLATE_PER_BYTE: u64 = 16;

/// How many bytes of `max-pdf-bytes` allow one glyph drawn: the glyphs of a document
/// are kept until it is laid out, so their number is bounded with its size.
pub const BYTES_PER_GLYPH: u64 = 4;

/// The fewest glyphs a document may draw, however low `max-pdf-bytes` is.
pub const MIN_GLYPHS: u64 = 1 << 18;

/// The bounds of one reading.
#[derive(Debug, Clone)]
pub struct Limits {
    /// What the file's streams may inflate to in all, in bytes; also what its pages'
    /// content (each stream counted as often as a page or a drawing draws it) may come to.
    pub inflate: u64,
    /// How many glyphs its pages may draw in all.
    pub glyphs: u64,
    /// When to give up.
    pub deadline: Option<Instant>,
    /// Set by another thread to make the reading give up (the call was cancelled or its
    /// deadline passed): looked at as often as the clock.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Limits {
    /// The bounds for a file read under `max-pdf-bytes` = `max_pdf_bytes`, until
    /// `deadline`.
    pub fn new(max_pdf_bytes: usize, deadline: Option<Instant>) -> Limits {
        Limits {
            inflate: (max_pdf_bytes as u64).saturating_mul(INFLATE_PER_BYTE),
            glyphs: (max_pdf_bytes as u64 / BYTES_PER_GLYPH).max(MIN_GLYPHS),
            deadline,
            stop: None,
        }
    }

    /// These bounds, giving up as well once `stop` is set.
    #[must_use]
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> Limits {
        self.stop = Some(stop);
        self
    }

    /// Whether the reading must give up now: its deadline passed or it was told to stop.
    fn must_stop(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// What [`Problem::PdfMalformed`] says of a damaged file, one constant per reason:
/// every reason the reader gives is in [`malformed::ALL`].
pub mod malformed {
    /// It does not open as a PDF.
    pub const NOT_PDF: &str = "it does not start with %PDF-, as a PDF file does";
    /// It was cut short.
    pub const TRUNCATED: &str =
        "it ends before its end-of-file marker (%%EOF): the file is truncated";
    /// Its objects nest too deep.
    pub const TOO_DEEP: &str =
        "its objects nest more than 100 levels deep, which no document needs";
    /// It has no pages.
    pub const NO_PAGES: &str = "it has no pages (its page tree is empty or broken)";
    /// Its page tree loops.
    pub const PARENT_LOOP: &str = "its page tree loops (a page is its own ancestor)";
    /// Its drawings loop.
    pub const FORM_LOOP: &str =
        "its drawings (form XObjects) draw each other in a circle or too deep";
    /// Its index is damaged.
    pub const XREF: &str = "its cross-reference table (the index of its objects) is damaged";
    /// Its objects do not parse.
    pub const PARSE: &str = "its objects cannot be parsed";
    /// A stream does not inflate.
    pub const DECOMPRESS: &str = "a compressed stream in it cannot be inflated";
    /// An object stream is damaged.
    pub const OBJECT_STREAM: &str = "an object stream in it is damaged";
    /// Its structure does not read.
    pub const STRUCTURE: &str = "its structure cannot be read";
    /// Every reason, so that one sent as text (from the reader's own process) is
    /// known again.
    pub const ALL: &[&str] = &[
        NOT_PDF,
        TRUNCATED,
        TOO_DEEP,
        NO_PAGES,
        PARENT_LOOP,
        FORM_LOOP,
        XREF,
        PARSE,
        DECOMPRESS,
        OBJECT_STREAM,
        STRUCTURE,
    ];

    /// The reason `text` is, if it is one.
    pub fn known(text: &str) -> Option<&'static str> {
        ALL.iter().copied().find(|r| *r == text)
    }
}

/// Why a PDF was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// What was wrong with it.
    Problem(Problem),
    /// The deadline came first.
    Deadline,
}

impl From<Problem> for Failure {
    fn from(p: Problem) -> Self {
        Failure::Problem(p)
    }
}

/// A PDF read as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfText {
    /// The title (meaningful Title metadata, else the first heading-like line).
    pub title: Option<String>,
    /// How many pages it has.
    pub pages: usize,
    /// The text: for each page a `[page N]` line, then its lines; a blank line before
    /// each page's marker but the first's.
    pub text: String,
}

/// The marker line that opens page `n` (1-based).
pub fn page_marker(n: usize) -> String {
    format!("[page {n}]")
}

thread_local! {
    /// Whether this thread is inside the PDF reader, whose panics [`read`] contains.
    static READING: Cell<bool> = const { Cell::new(false) };
}

/// Whether a panic on this thread now is one [`read`] contains: a panic inside the PDF
/// reader, answered as [`Problem::PdfUnreadable`]. A panic hook asks it to tell such a
/// panic (a flaw of the file, met by the reader) from a bug that must be reported.
pub fn panic_is_contained() -> bool {
    READING.with(Cell::get)
}

/// Runs `f` with this thread marked as inside the PDF reader (`reading`) or in our own
/// code called back by it (`!reading`), restoring the mark after, even when `f` panics.
fn marked<T>(reading: bool, f: impl FnOnce() -> T) -> T {
    /// Puts the mark back as it was when dropped.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            READING.with(|r| r.set(self.0));
        }
    }
    let _restore = Restore(READING.with(|r| r.replace(reading)));
    f()
}

/// Runs `f`, a call into the PDF crate, marked as inside the reader: a panic in it is
/// the file's flaw, which [`read`] contains.
fn in_reader<T>(f: impl FnOnce() -> T) -> T {
    marked(true, f)
}

/// Runs `f`, our own code called back by the PDF crate, unmarked: a panic in it is a
/// bug, reported as one.
fn ours<T>(f: impl FnOnce() -> T) -> T {
    marked(false, f)
}

/// Reads the text of a whole PDF file within `limits`.
pub fn read(bytes: &[u8], limits: &Limits) -> Result<PdfText, Failure> {
    if !crate::media::is_pdf(bytes) {
        return Err(Problem::PdfMalformed(malformed::NOT_PDF).into());
    }
    let tail = &bytes[bytes.len().saturating_sub(1024)..];
    if !tail.windows(5).any(|w| w == b"%%EOF") {
        return Err(Problem::PdfMalformed(malformed::TRUNCATED).into());
    }
    match scan::raw(bytes, limits.inflate) {
        scan::RawVerdict::Fine => {}
        scan::RawVerdict::Inflates => {
            return Err(Problem::PdfBomb {
                limit: limits.inflate,
            }
            .into());
        }
        scan::RawVerdict::TooDeep => {
            return Err(Problem::PdfMalformed(malformed::TOO_DEEP).into());
        }
    }
    // The last line of defence: whatever panics in here is not a crash (a panic in our
    // own code is still reported as the bug it is, by the panic hook).
    match catch_unwind(AssertUnwindSafe(|| read_checked(bytes, limits))) {
        Ok(result) => result,
        Err(_) => Err(Problem::PdfUnreadable.into()),
    }
}

/// Reads a file the raw checks passed.
fn read_checked(bytes: &[u8], limits: &Limits) -> Result<PdfText, Failure> {
    let mut doc = in_reader(|| Document::load_mem(bytes)).map_err(load_problem)?;
    if doc.is_encrypted() && in_reader(|| doc.decrypt("")).is_err() {
        return Err(Problem::PdfEncrypted.into());
    }
    let pages: Vec<_> = in_reader(|| doc.get_pages()).into_iter().collect();
    if pages.is_empty() {
        return Err(Problem::PdfMalformed(malformed::NO_PAGES).into());
    }
    let ids: Vec<_> = pages.iter().map(|&(_, id)| id).collect();
    match scan::graph(&doc, &ids) {
        scan::GraphVerdict::Fine => {}
        scan::GraphVerdict::ParentLoop => {
            return Err(Problem::PdfMalformed(malformed::PARENT_LOOP).into());
        }
        scan::GraphVerdict::FormLoop => {
            return Err(Problem::PdfMalformed(malformed::FORM_LOOP).into());
        }
    }
    if scan::drawn_content(&doc, &ids, limits.inflate) > limits.inflate {
        return Err(Problem::PdfBomb {
            limit: limits.inflate,
        }
        .into());
    }
    let mut collector = Collector::new(limits);
    // The whole document in one pass; when the reader fails on a page, the pages after
    // it one by one, each on its own.
    let whole = catch_unwind(AssertUnwindSafe(|| {
        in_reader(|| pdf_extract::output_doc(&doc, &mut collector))
    }));
    if let Some(failure) = collector.failure {
        return Err(failure);
    }
    let mut any_failed = false;
    if !matches!(whole, Ok(Ok(()))) {
        any_failed = true;
        let failed_at = collector.current_page.unwrap_or(0);
        collector.end_current();
        for &(number, _) in pages.iter().filter(|(n, _)| *n > failed_at) {
            let _ = catch_unwind(AssertUnwindSafe(|| {
                in_reader(|| pdf_extract::output_doc_page(&doc, &mut collector, number))
            }));
            collector.end_current();
            if let Some(failure) = collector.failure {
                return Err(failure);
            }
        }
    }
    let page_count = pages.len();
    let mut laid_out: Vec<Vec<layout::Line>> = vec![Vec::new(); page_count];
    let mut any_text = false;
    let mut stop = || limits.must_stop();
    for (number, glyphs) in collector.pages {
        let index = pages.iter().position(|&(n, _)| n == number);
        if let Some(index) = index {
            let lines = layout::page_lines(glyphs, &mut stop).ok_or(Failure::Deadline)?;
            any_text |= lines.iter().any(|l| !l.text.is_empty());
            laid_out[index] = lines;
        }
    }
    if !any_text && any_failed {
        // Not a scan: the reader failed on the text it met.
        return Err(Problem::PdfUnreadable.into());
    }
    if !any_text {
        return Err(Problem::PdfNoText {
            pages: u32::try_from(page_count).unwrap_or(u32::MAX),
        }
        .into());
    }
    let laid_out = layout::finish_pages(laid_out);
    let title = info_title(&doc)
        .filter(|t| layout::meaningful_title(t))
        .or_else(|| layout::heading(&laid_out));
    let mut text = String::new();
    for (i, page) in laid_out.iter().enumerate() {
        if i > 0 {
            text.push_str("\n\n");
        }
        text.push_str(&page_marker(i + 1));
        for line in page {
            text.push('\n');
            text.push_str(&line.text);
        }
    }
    Ok(PdfText {
        title,
        pages: page_count,
        text,
    })
}

/// What a load failure says of the file.
fn load_problem(e: pdf_extract::Error) -> Failure {
    use pdf_extract::Error as E;
    Failure::Problem(match e {
        E::Decryption(_) | E::InvalidPassword | E::AlreadyEncrypted => Problem::PdfEncrypted,
        E::Xref(_) | E::InvalidOffset(_) => Problem::PdfMalformed(malformed::XREF),
        E::Parse(_) => Problem::PdfMalformed(malformed::PARSE),
        E::Decompress(_) => Problem::PdfMalformed(malformed::DECOMPRESS),
        E::InvalidObjectStream(_) => Problem::PdfMalformed(malformed::OBJECT_STREAM),
        _ => Problem::PdfMalformed(malformed::STRUCTURE),
    })
}

/// The document information dictionary's Title, decoded.
fn info_title(doc: &Document) -> Option<String> {
    let info = match doc.trailer.get(b"Info").ok()? {
        Object::Reference(id) => doc.get_dictionary(*id).ok()?,
        Object::Dictionary(d) => d,
        _ => return None,
    };
    let title = match info.get(b"Title").ok()? {
        Object::Reference(id) => doc.get_object(*id).ok()?,
        other => other,
    };
    let Object::String(bytes, _) = title else {
        return None;
    };
    let text = text_string(bytes);
    let text = layout::normalise(&text);
    (!text.is_empty()).then_some(text)
}

/// A PDF text string decoded: UTF-16BE after its byte order mark, UTF-8 after its own,
/// else PDFDocEncoding (read as Latin-1, which it matches for text).
fn text_string(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(b"\xfe\xff") {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|p| u16::from_be_bytes([p[0], p[1]]))
            .collect();
        String::from_utf16_lossy(&units)
    } else if let Some(rest) = bytes.strip_prefix(b"\xef\xbb\xbf") {
        String::from_utf8_lossy(rest).into_owned()
    } else {
        bytes.iter().map(|&b| char::from(b)).collect()
    }
}

/// How many glyphs (or paths) pass between two looks at the clock.
const CLOCK_EVERY: usize = 4096;

/// The reader's output device: collects each page's glyphs with their positions, up to
/// the limits' glyph bound, and stops the reader at their deadline.
struct Collector<'a> {
    /// Finished pages: their number and glyphs.
    pages: Vec<(u32, Vec<layout::Glyph>)>,
    /// The page being read.
    current_page: Option<u32>,
    glyphs: Vec<layout::Glyph>,
    /// The page's height, to turn y downwards.
    top: f64,
    limits: &'a Limits,
    /// Glyphs drawn so far, over all pages.
    drawn: u64,
    since_clock: usize,
    /// Why the reading stopped, once it must.
    failure: Option<Failure>,
}

impl<'a> Collector<'a> {
    fn new(limits: &'a Limits) -> Collector<'a> {
        Collector {
            pages: Vec::new(),
            current_page: None,
            glyphs: Vec::new(),
            top: 0.0,
            limits,
            drawn: 0,
            since_clock: 0,
            failure: None,
        }
    }

    /// Keeps the page being read (after a failure part-way, what it had).
    fn end_current(&mut self) {
        if let Some(number) = self.current_page.take() {
            self.pages.push((number, std::mem::take(&mut self.glyphs)));
        }
    }

    /// Stops the reader (an error it passes up) once the reading must give up.
    fn check_clock(&mut self) -> Result<(), OutputError> {
        if self.failure.is_none() && self.limits.must_stop() {
            self.failure = Some(Failure::Deadline);
        }
        match self.failure {
            Some(_) => Err(OutputError::FormatError(std::fmt::Error)),
            None => Ok(()),
        }
    }

    /// Counts one piece of work (a glyph or a path), looking at the clock every
    /// [`CLOCK_EVERY`].
    fn tick(&mut self) -> Result<(), OutputError> {
        self.since_clock += 1;
        if self.since_clock >= CLOCK_EVERY || self.failure.is_some() {
            self.since_clock = 0;
            return self.check_clock();
        }
        Ok(())
    }
}

/// The [`OutputDev`] methods named, each drawing a path (`stroke`, `fill`): a path
/// draws no text, and each counts one step against the drawing budget.
macro_rules! paths_tick {
    ($($method:ident),+) => {$(
        fn $method(
            &mut self,
            _ctm: &Transform,
            _colorspace: &ColorSpace,
            _color: &[f64],
            _path: &Path,
        ) -> Result<(), OutputError> {
            ours(|| self.tick())
        }
    )+};
}

impl OutputDev for Collector<'_> {
    fn begin_page(
        &mut self,
        page_num: u32,
        media_box: &MediaBox,
        _art_box: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        ours(|| {
            self.end_current();
            self.check_clock()?;
            self.current_page = Some(page_num);
            self.top = media_box.ury;
            Ok(())
        })
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        self.end_current();
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        char: &str,
    ) -> Result<(), OutputError> {
        ours(|| {
            self.tick()?;
            self.drawn += 1;
            if self.drawn > self.limits.glyphs {
                self.failure = Some(Failure::Problem(Problem::PdfGlyphs {
                    limit: self.limits.glyphs,
                }));
                return Err(OutputError::FormatError(std::fmt::Error));
            }
            let (vx, vy) = (
                font_size * (trm.m11 + trm.m21),
                font_size * (trm.m12 + trm.m22),
            );
            let size = (vx * vy).abs().sqrt();
            let x = trm.m31;
            self.glyphs.push(layout::Glyph {
                x,
                y: self.top - trm.m32,
                end: x + width * size,
                size,
                text: layout::GlyphText::new(char),
            });
            Ok(())
        })
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    paths_tick!(stroke, fill);
}

/// The extraction of a PDF's text as [`read`] laid it out (what a fetch keeps of a
/// PDF): its lines as they are; the title is the document's, which the fetch carries.
pub fn extract_read(text: &str) -> Extracted {
    Extracted {
        lines: text.lines().map(str::to_owned).collect(),
        kind: BodyKind::Pdf,
        ..Extracted::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_before_the_reader() {
        let limits = Limits::new(1 << 20, None);
        assert_eq!(
            read(b"hello", &limits),
            Err(Failure::Problem(Problem::PdfMalformed(
                "it does not start with %PDF-, as a PDF file does"
            )))
        );
        assert!(matches!(
            read(b"%PDF-1.4\n1 0 obj", &limits),
            Err(Failure::Problem(Problem::PdfMalformed(m))) if m.contains("truncated")
        ));
        let deep = format!("%PDF-1.4\n1 0 obj {} endobj\n%%EOF\n", "[".repeat(1000));
        assert!(matches!(
            read(deep.as_bytes(), &limits),
            Err(Failure::Problem(Problem::PdfMalformed(m))) if m.contains("nest")
        ));
    }

    #[test]
    fn text_strings_decode() {
        assert_eq!(text_string(b"\xfe\xff\x00A\x00\xe9"), "Aé");
        assert_eq!(text_string(b"caf\xe9"), "café");
        assert_eq!(text_string(b"\xef\xbb\xbfx"), "x");
    }

    #[test]
    fn only_the_crates_own_calls_are_marked_as_reading() {
        assert!(!panic_is_contained());
        in_reader(|| {
            assert!(panic_is_contained());
            ours(|| assert!(!panic_is_contained()));
            assert!(panic_is_contained());
        });
        // A panic unwinding out of a marked call leaves the mark as it was.
        let unwound = catch_unwind(|| in_reader(|| panic!("inside the crate")));
        assert!(unwound.is_err());
        assert!(!panic_is_contained());
    }
}
