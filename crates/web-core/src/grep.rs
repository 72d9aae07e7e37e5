//! Matching a pattern against numbered lines of text: what `web_grep` runs over each
//! page, knowing nothing of where the lines came from.
//!
//! A [`Pattern`] is compiled once per call: literal text by default (escaped, so every
//! character stands for itself), or a Rust regex expression (the `regex` crate's
//! syntax). It compiles to a Thompson NFA of at most [`REGEX_SIZE_LIMIT`] bytes, matched
//! by a lazy DFA whose cache holds at most [`DFA_SIZE_LIMIT`] bytes. A pattern that does
//! not parse or is too large is a [`PatternError`] that says what is wrong, where, and its
//! stable rule.
//!
//! Matching has a budget ([`Budget`]: the call's deadline and cancellation) that the
//! search reads between lines, and a bound on its own cost: when the lazy DFA quits (a
//! Unicode word boundary next to a non-ASCII byte) or gives up (a pattern whose states
//! do not fit its cache, such as `[a-z]{1,2000}[0-9]`), the line is matched by the
//! PikeVM, whose cost is the NFA's states times the line's bytes, and a page may spend at
//! most [`FALLBACK_STEPS`] such steps; past that the search ends with
//! [`SearchStop::TooCostly`] instead of running for minutes.
//!
//! [`Pattern::search`] yields one [`Match`] per matching line, with the number the
//! caller gave the line. A line longer than [`WINDOW_CHARS`] characters is shown as a
//! window of that many characters around its first match, cut on character boundaries
//! and marked with `…` at each cut end.
//!
//! Context, as `grep -C N` shows it, is the caller's to lay out over its own lines:
//! [`context_runs`] says which lines to show around the matches (at most
//! [`MAX_CONTEXT`] on each side, overlapping and adjacent groups merged), and
//! [`context_text`] what to show of a line that is shown but did not match (its first
//! [`WINDOW_CHARS`] characters).
//!
//! ```
//! use mcp_web_core::grep::{Budget, Pattern};
//!
//! let pattern = Pattern::new("zef install", false, false).unwrap();
//! let lines = ["# Installing", "", "  zef install Foo::Bar"];
//! let numbered = lines.iter().enumerate().map(|(i, l)| (i + 1, *l));
//! let found: Vec<_> = pattern
//!     .search(numbered, &Budget::unlimited())
//!     .collect::<Result<_, _>>()
//!     .unwrap();
//! assert_eq!(found.len(), 1);
//! assert_eq!((found[0].line, found[0].text.as_str()), (3, "  zef install Foo::Bar"));
//!
//! let error = Pattern::new("a(b", true, false).unwrap_err();
//! assert_eq!(error.rule(), "regex-syntax");
//! ```

use std::fmt;
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::Instant;

use regex_automata::hybrid;
use regex_automata::nfa::thompson::{self, NFA, WhichCaptures, pikevm::PikeVM};
use regex_automata::{Input, MatchKind};
use tokio_util::sync::CancellationToken;

/// The most bytes a compiled pattern (its NFA) may take.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// The most bytes the lazy DFA's cache of a pattern may take (each direction).
pub const DFA_SIZE_LIMIT: usize = 2 << 20;

/// The most PikeVM steps (NFA states × line bytes) one search of a page may spend on
/// the lines the lazy DFA quit or gave up on; past it the search ends with
/// [`SearchStop::TooCostly`]. Well under a second of one core.
pub const FALLBACK_STEPS: usize = 50_000_000;

/// The most characters of a line a [`Match`] shows; a longer line is shown as a window
/// of this many characters around its first match.
pub const WINDOW_CHARS: usize = 240;

/// The mark at an end of a [`Match`]'s text where the line was cut.
pub const CUT_MARK: char = '…';

/// The most lines of context shown before and after each match.
pub const MAX_CONTEXT: usize = 5;

/// A compiled search pattern: literal text, or a Rust regex expression.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The pattern as given.
    source: String,
    /// Whether `source` is a regex (otherwise literal text).
    regex: bool,
    /// Whether case is ignored.
    ignore_case: bool,
    /// The compiled matchers (a literal is compiled escaped).
    engine: Arc<Engine>,
}

/// The two matchers of a pattern: the lazy DFA, and the PikeVM for the lines it quits on.
#[derive(Debug)]
struct Engine {
    /// Forward and reverse lazy DFAs, which may quit or give up.
    dfa: hybrid::regex::Regex,
    /// The NFA simulation, linear in states × bytes, never giving up.
    pike: PikeVM,
    /// How many states the NFA has: the PikeVM's cost per byte.
    states: usize,
}

/// The mutable state of one search: the matchers' caches and the fallback steps spent.
struct Scratch {
    dfa: hybrid::regex::Cache,
    pike: regex_automata::nfa::thompson::pikevm::Cache,
    spent: usize,
}

/// What one search may spend: it stops at `deadline` or when `cancel` fires, checked
/// before each line.
#[derive(Debug, Clone)]
pub struct Budget {
    deadline: Option<Instant>,
    cancel: CancellationToken,
}

impl Budget {
    /// A budget ending at `deadline`, or earlier when `cancel` fires.
    pub fn new(deadline: Instant, cancel: CancellationToken) -> Budget {
        Budget {
            deadline: Some(deadline),
            cancel,
        }
    }

    /// A budget with no deadline and no cancellation (tests, examples).
    pub fn unlimited() -> Budget {
        Budget {
            deadline: None,
            cancel: CancellationToken::new(),
        }
    }

    /// Why the search must stop now, if it must.
    fn spent(&self) -> Option<SearchStop> {
        if self.cancel.is_cancelled() {
            return Some(SearchStop::Cancelled);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(SearchStop::Deadline);
        }
        None
    }
}

/// Why a search stopped before the last line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchStop {
    /// The budget's cancellation fired.
    Cancelled,
    /// The budget's deadline passed.
    Deadline,
    /// Matching would cost more than [`FALLBACK_STEPS`]; `line` is the line it stopped on.
    TooCostly {
        /// The number of the line the matcher gave up on.
        line: usize,
    },
}

impl Pattern {
    /// Compiles `pattern`: a Rust regex expression when `regex` is set, literal text
    /// otherwise; matching regardless of case when `ignore_case` is set. An empty
    /// pattern, one holding a line break, one that does not parse, or one that compiles
    /// past the size limits is refused.
    pub fn new(pattern: &str, regex: bool, ignore_case: bool) -> Result<Pattern, PatternError> {
        if pattern.is_empty() {
            return Err(PatternError::Empty);
        }
        if pattern.contains(['\n', '\r']) {
            return Err(PatternError::LineBreak);
        }
        let chars = pattern.chars().count();
        if chars > MAX_PATTERN_CHARS {
            return Err(PatternError::TooLong { chars });
        }
        let expression = if regex {
            pattern.to_owned()
        } else {
            regex_syntax::escape(pattern)
        };
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(ignore_case)
            .build()
            .parse(&expression)
            .map_err(|e| PatternError::Syntax {
                detail: e.to_string(),
            })?;
        let too_large = |limit: usize| PatternError::TooLarge {
            regex,
            chars,
            limit,
        };
        let compile = |reverse: bool| {
            let captures = if reverse {
                WhichCaptures::None
            } else {
                WhichCaptures::Implicit
            };
            thompson::Compiler::new()
                .configure(
                    thompson::Config::new()
                        .nfa_size_limit(Some(REGEX_SIZE_LIMIT))
                        .which_captures(captures)
                        .reverse(reverse),
                )
                .build_from_hir(&hir)
                .map_err(|e| match e.size_limit() {
                    Some(limit) => too_large(limit),
                    None => PatternError::Syntax {
                        detail: e.to_string(),
                    },
                })
        };
        let forward = compile(false)?;
        let reverse = compile(true)?;
        let states = forward.states().len();
        let lazy = |nfa: NFA, kind: MatchKind| {
            hybrid::dfa::Builder::new()
                .configure(
                    hybrid::dfa::Config::new()
                        .match_kind(kind)
                        .unicode_word_boundary(true)
                        .cache_capacity(DFA_SIZE_LIMIT)
                        .minimum_cache_clear_count(Some(3))
                        .minimum_bytes_per_state(Some(10)),
                )
                .build_from_nfa(nfa)
                .map_err(|_| too_large(DFA_SIZE_LIMIT))
        };
        let dfa = hybrid::regex::Builder::new().build_from_dfas(
            lazy(forward.clone(), MatchKind::LeftmostFirst)?,
            lazy(reverse, MatchKind::All)?,
        );
        let pike = PikeVM::new_from_nfa(forward).map_err(|e| PatternError::Syntax {
            detail: e.to_string(),
        })?;
        Ok(Pattern {
            source: pattern.to_owned(),
            regex,
            ignore_case,
            engine: Arc::new(Engine { dfa, pike, states }),
        })
    }

    /// The pattern as given.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether `line` matches (a line the matcher gives up on does not).
    pub fn is_match(&self, line: &str) -> bool {
        self.find_line(1, line).is_some()
    }

    /// The match of line number `number`, `line`, when it matches: the whole line, or
    /// a window around its first match when it is longer than [`WINDOW_CHARS`]. A line
    /// the matcher gives up on is `None`; [`Pattern::search`] says so instead.
    pub fn find_line(&self, number: usize, line: &str) -> Option<Match> {
        let mut scratch = self.engine.scratch();
        self.engine
            .find(&mut scratch, line)
            .ok()
            .flatten()
            .map(|(start, end)| matched(number, line, start, end))
    }

    /// The matches among `lines`, each given with its number, in the order given,
    /// without a budget; the lines stop at one the matcher gives up on. What answers a
    /// caller uses [`Pattern::search`], which says why it stopped.
    pub fn find_lines<'a, I>(&'a self, lines: I) -> impl Iterator<Item = Match> + 'a
    where
        I: IntoIterator<Item = (usize, &'a str)>,
        I::IntoIter: 'a,
    {
        self.searcher(lines.into_iter(), None).map_while(Result::ok)
    }

    /// The matches among `lines`, each given with its number, in the order given, within
    /// `budget`: checked before each line, so the search ends with an `Err` (and nothing
    /// after it) within one line of the deadline or the cancellation, or when the
    /// matcher's cost passes [`FALLBACK_STEPS`].
    pub fn search<'a, I>(
        &'a self,
        lines: I,
        budget: &'a Budget,
    ) -> impl Iterator<Item = Result<Match, SearchStop>> + 'a
    where
        I: IntoIterator<Item = (usize, &'a str)>,
        I::IntoIter: 'a,
    {
        self.searcher(lines.into_iter(), Some(budget))
    }

    /// A search over `lines`, within `budget` when there is one.
    fn searcher<'a, I>(&'a self, lines: I, budget: Option<&'a Budget>) -> Search<'a, I> {
        Search {
            engine: &self.engine,
            scratch: self.engine.scratch(),
            lines,
            budget,
            ended: false,
        }
    }
}

impl Engine {
    /// Fresh caches for one search.
    fn scratch(&self) -> Scratch {
        Scratch {
            dfa: self.dfa.create_cache(),
            pike: self.pike.create_cache(),
            spent: 0,
        }
    }

    /// The byte span of the first match in `line`: the lazy DFA's, or when it quits or
    /// gives up the PikeVM's within the steps left; `Err` when those run out.
    fn find(&self, scratch: &mut Scratch, line: &str) -> Result<Option<(usize, usize)>, ()> {
        let input = Input::new(line);
        match self.dfa.try_search(&mut scratch.dfa, &input) {
            Ok(found) => Ok(found.map(|m| (m.start(), m.end()))),
            Err(_) => {
                let cost = self.states.saturating_mul(line.len().saturating_add(1));
                scratch.spent = scratch.spent.saturating_add(cost);
                if scratch.spent > FALLBACK_STEPS {
                    return Err(());
                }
                Ok(self
                    .pike
                    .find(&mut scratch.pike, input)
                    .map(|m| (m.start(), m.end())))
            }
        }
    }
}

/// One search over numbered lines (see [`Pattern::search`]).
struct Search<'a, I> {
    engine: &'a Engine,
    scratch: Scratch,
    lines: I,
    budget: Option<&'a Budget>,
    ended: bool,
}

impl<'a, I: Iterator<Item = (usize, &'a str)>> Iterator for Search<'a, I> {
    type Item = Result<Match, SearchStop>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ended {
            return None;
        }
        loop {
            if let Some(stop) = self.budget.and_then(Budget::spent) {
                self.ended = true;
                return Some(Err(stop));
            }
            let (number, line) = self.lines.next()?;
            match self.engine.find(&mut self.scratch, line) {
                Ok(None) => {}
                Ok(Some((start, end))) => return Some(Ok(matched(number, line, start, end))),
                Err(()) => {
                    self.ended = true;
                    return Some(Err(SearchStop::TooCostly { line: number }));
                }
            }
        }
    }
}

/// The [`Match`] of line `number` for a match at bytes `start..end`.
fn matched(number: usize, line: &str, start: usize, end: usize) -> Match {
    let (text, cut) = window(line, start, end, WINDOW_CHARS);
    Match {
        line: number,
        text,
        cut,
    }
}

impl fmt::Display for Pattern {
    /// The pattern quoted, with what kind it is: `"a.c"` or `the regex "a.c"`, and
    /// `(ignoring case)` when it does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.regex {
            f.write_str("the regex ")?;
        }
        write!(f, "{:?}", self.source)?;
        if self.ignore_case {
            f.write_str(" (ignoring case)")?;
        }
        Ok(())
    }
}

/// One matching line: its number, its text (or a window of it) and whether the text
/// was cut from a longer line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The line's number, as the caller numbered it.
    pub line: usize,
    /// The line, or a window of [`WINDOW_CHARS`] characters around its first match with
    /// [`CUT_MARK`] at each end where the line goes on.
    pub text: String,
    /// Whether `text` is a window of a longer line.
    pub cut: bool,
}

/// The most characters a pattern may have.
pub const MAX_PATTERN_CHARS: usize = 4096;

/// Why a pattern was refused.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternError {
    /// The pattern is empty: it would match every line.
    Empty,
    /// The pattern holds a line break, and lines are matched one at a time.
    LineBreak,
    /// The regex does not parse; `detail` is the parser's account, which points at the
    /// place in the pattern.
    Syntax {
        /// The regex parser's message, showing where the pattern went wrong.
        detail: String,
    },
    /// The pattern is longer than [`MAX_PATTERN_CHARS`] (a message quoting it could not
    /// be read, and no line is that long a thing to look for).
    TooLong {
        /// How many characters the pattern has.
        chars: usize,
    },
    /// The pattern compiles to more than the size limit.
    TooLarge {
        /// Whether the pattern was a regex (otherwise literal text).
        regex: bool,
        /// How many characters the pattern has.
        chars: usize,
        /// The limit it went past, in bytes.
        limit: usize,
    },
}

impl PatternError {
    /// The stable id of the rule the pattern broke.
    pub fn rule(&self) -> &'static str {
        match self {
            PatternError::Empty => "empty-pattern",
            PatternError::LineBreak => "line-break",
            PatternError::Syntax { .. } => "regex-syntax",
            PatternError::TooLong { .. } => "pattern-too-long",
            PatternError::TooLarge { .. } => "regex-too-large",
        }
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternError::Empty => f.write_str(
                "the pattern is empty and would match every line; give the text a matching \
                 line contains",
            ),
            PatternError::LineBreak => f.write_str(
                "the pattern holds a line break, but lines are matched one at a time; search \
                 for one line's text",
            ),
            PatternError::TooLong { chars } => write!(
                f,
                "the pattern has {chars} characters, more than the {MAX_PATTERN_CHARS} a pattern may \
                 have; search for a shorter piece of the text"
            ),
            PatternError::Syntax { detail } => write!(
                f,
                "the pattern is not a valid regex (Rust regex syntax; leave regex false to \
                 search for the text as written):\n{detail}"
            ),
            PatternError::TooLarge {
                regex: true, limit, ..
            } => write!(
                f,
                "the regex compiles to more than the size limit of {limit} bytes; use fewer or \
                 smaller repetitions (counts like {{1000}} multiply what they repeat) or a \
                 shorter pattern"
            ),
            PatternError::TooLarge {
                regex: false,
                chars,
                limit,
            } => write!(
                f,
                "the pattern's {chars} characters compile to more than the size limit of \
                 {limit} bytes; search for a shorter piece of the text"
            ),
        }
    }
}

impl std::error::Error for PatternError {}

/// What to show of `line`, a line shown around a match that is not itself a match:
/// the whole line when it has at most [`WINDOW_CHARS`] characters, else its first
/// [`WINDOW_CHARS`] characters followed by [`CUT_MARK`]. The second value says whether
/// the line was cut.
pub fn context_text(line: &str) -> (String, bool) {
    window(line, 0, 0, WINDOW_CHARS)
}

/// The runs of line numbers to show for matches on the lines `matched` (ascending)
/// with `context` lines before and after each, among lines numbered `1..=last`: each
/// run in order, inclusive, with runs that overlap or touch merged into one, so a
/// line is shown once and runs are apart by at least one line left out.
pub fn context_runs(matched: &[usize], context: usize, last: usize) -> Vec<RangeInclusive<usize>> {
    let mut runs: Vec<RangeInclusive<usize>> = Vec::new();
    for &line in matched {
        let from = line.saturating_sub(context).max(1);
        let to = line.saturating_add(context).min(last).max(line);
        match runs.last_mut() {
            Some(run) if from <= run.end().saturating_add(1) => {
                *run = *run.start()..=to.max(*run.end());
            }
            _ => runs.push(from..=to),
        }
    }
    runs
}

/// The text of `line` to show for a match at bytes `start..end`: the whole line when it
/// has at most `width` characters, else a window of `width` characters holding the
/// match's start (and all of it when it fits, with the context shared on both sides),
/// with [`CUT_MARK`] at each end where the line goes on. The second value says whether
/// the line was cut.
fn window(line: &str, start: usize, end: usize, width: usize) -> (String, bool) {
    let total = line.chars().count();
    if total <= width {
        return (line.to_owned(), false);
    }
    // Character positions of the match.
    let first = line[..start].chars().count();
    let length = line[start..end].chars().count();
    let context = width.saturating_sub(length);
    let mut from = first.saturating_sub(context / 2);
    let to = (from + width).min(total);
    from = to.saturating_sub(width);
    let byte_at = |chars: usize| {
        line.char_indices()
            .nth(chars)
            .map_or(line.len(), |(i, _)| i)
    };
    let (from_byte, to_byte) = (byte_at(from), byte_at(to));
    let mut text = String::with_capacity(to_byte - from_byte + 2 * CUT_MARK.len_utf8());
    if from > 0 {
        text.push(CUT_MARK);
    }
    text.push_str(&line[from_byte..to_byte]);
    if to < total {
        text.push(CUT_MARK);
    }
    (text, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lines(text: &[&'static str]) -> Vec<(usize, &'static str)> {
        text.iter().enumerate().map(|(i, l)| (i + 1, *l)).collect()
    }

    fn found(pattern: &Pattern, text: &[&'static str]) -> Vec<(usize, String)> {
        pattern
            .find_lines(lines(text))
            .map(|m| (m.line, m.text))
            .collect()
    }

    #[test]
    fn a_literal_pattern_stands_for_itself() {
        let pattern = Pattern::new("a.c (x)", false, false).unwrap();
        let text = ["abc (x)", "a.c (x) here", "A.C (X)", "a.c(x)"];
        assert_eq!(found(&pattern, &text), [(2, "a.c (x) here".to_owned())]);
        assert_eq!(pattern.to_string(), "\"a.c (x)\"");
    }

    #[test]
    fn a_regex_pattern_is_rust_regex_syntax() {
        let pattern = Pattern::new(r"^v\d+\.\d+$", true, false).unwrap();
        let text = ["v1.2", "see v1.2", "v10.20", "v1.x"];
        assert_eq!(
            found(&pattern, &text),
            [(1, "v1.2".to_owned()), (3, "v10.20".to_owned())]
        );
        assert_eq!(pattern.to_string(), "the regex \"^v\\\\d+\\\\.\\\\d+$\"");
    }

    #[test]
    fn ignore_case_applies_to_literals_and_regexes() {
        let literal = Pattern::new("Straße", false, true).unwrap();
        assert!(literal.is_match("DIE STRAßE"));
        assert!(literal.is_match("straße"));
        assert!(
            !Pattern::new("Straße", false, false)
                .unwrap()
                .is_match("straße")
        );
        let regex = Pattern::new("fo+bar", true, true).unwrap();
        assert!(regex.is_match("x FOOOBAR y"));
        assert_eq!(regex.to_string(), "the regex \"fo+bar\" (ignoring case)");
    }

    #[test]
    fn line_numbers_are_the_callers() {
        let pattern = Pattern::new("x", false, false).unwrap();
        let numbered = [(7, "x"), (9, "y"), (12, "xx")];
        let got: Vec<usize> = pattern.find_lines(numbered).map(|m| m.line).collect();
        assert_eq!(got, [7, 12]);
    }

    #[test]
    fn bad_patterns_name_their_rule_and_where() {
        let error = Pattern::new("a(b", true, false).unwrap_err();
        assert_eq!(error.rule(), "regex-syntax");
        let message = error.to_string();
        assert!(message.contains("unclosed group"), "{message}");
        assert!(
            message.contains("a(b\n"),
            "the message shows the pattern: {message}"
        );
        assert!(
            message.contains('^'),
            "the message points at the place: {message}"
        );
        // The same text is fine as a literal.
        assert!(Pattern::new("a(b", false, false).unwrap().is_match("xa(by"));

        assert_eq!(
            Pattern::new("", false, false).unwrap_err().rule(),
            "empty-pattern"
        );
        assert_eq!(
            Pattern::new("", true, false).unwrap_err().rule(),
            "empty-pattern"
        );
        assert_eq!(
            Pattern::new("a\nb", false, false).unwrap_err().rule(),
            "line-break"
        );
    }

    #[test]
    fn a_pattern_past_the_size_limit_is_refused() {
        let error = Pattern::new(r"(\w{100}){100}", true, false).unwrap_err();
        assert_eq!(error.rule(), "regex-too-large");
        assert!(
            error.to_string().contains(&REGEX_SIZE_LIMIT.to_string()),
            "{error}"
        );
        let long = "é".repeat(300_000);
        let error = Pattern::new(&long, false, false).unwrap_err();
        assert_eq!(error.rule(), "pattern-too-long");
        assert!(error.to_string().contains("300000 characters"), "{error}");
    }

    #[test]
    fn a_long_line_is_a_window_around_its_first_match() {
        let line = format!(
            "{}NEEDLE{}NEEDLE{}",
            "a".repeat(500),
            "b".repeat(500),
            "c".repeat(10)
        );
        let pattern = Pattern::new("NEEDLE", false, false).unwrap();
        let m = pattern.find_line(4, &line).unwrap();
        assert!(m.cut);
        assert_eq!(m.line, 4);
        let inner = m
            .text
            .trim_start_matches(CUT_MARK)
            .trim_end_matches(CUT_MARK);
        assert_eq!(inner.chars().count(), WINDOW_CHARS);
        assert!(m.text.starts_with(CUT_MARK) && m.text.ends_with(CUT_MARK));
        // The context is shared around the match: 117 characters before, 117 after.
        let expected = format!("…{}NEEDLE{}…", "a".repeat(117), "b".repeat(117));
        assert_eq!(m.text, expected);
    }

    #[test]
    fn a_window_at_a_line_end_is_marked_only_where_it_was_cut() {
        let pattern = Pattern::new("START", false, false).unwrap();
        let line = format!("START{}", "x".repeat(400));
        let m = pattern.find_line(1, &line).unwrap();
        assert_eq!(m.text, format!("START{}…", "x".repeat(WINDOW_CHARS - 5)));
        let pattern = Pattern::new("END", false, false).unwrap();
        let line = format!("{}END", "é".repeat(400));
        let m = pattern.find_line(1, &line).unwrap();
        assert_eq!(m.text, format!("…{}END", "é".repeat(WINDOW_CHARS - 3)));
        // A line of exactly the window is whole.
        let line = "y".repeat(WINDOW_CHARS - 3) + "END";
        let m = pattern.find_line(1, &line).unwrap();
        assert_eq!((m.text.as_str(), m.cut), (line.as_str(), false));
    }

    #[test]
    fn a_match_longer_than_the_window_shows_its_start() {
        let pattern = Pattern::new("b+", true, false).unwrap();
        let line = format!("{}{}", "a".repeat(300), "b".repeat(600));
        let m = pattern.find_line(1, &line).unwrap();
        assert_eq!(m.text, format!("…{}…", "b".repeat(WINDOW_CHARS)));
    }

    #[test]
    fn context_runs_merge_overlapping_and_adjacent_groups_within_the_lines() {
        // No context: a match is its own run, or one with the match beside it.
        assert_eq!(context_runs(&[2, 3, 9], 0, 10), [2..=3, 9..=9]);
        // 3 and 6 with one line each side: 2..=4 and 5..=7 touch, so they merge; 9
        // overlaps them at 8; the first run stops at line 1 and the last at the last.
        assert_eq!(context_runs(&[1, 3, 6, 9], 1, 9), [1..=9]);
        assert_eq!(context_runs(&[3, 8], 1, 20), [2..=4, 7..=9]);
        // A one-line gap keeps them apart (grep prints `--` there).
        assert_eq!(context_runs(&[3, 9], 2, 20), [1..=5, 7..=11]);
        assert_eq!(context_runs(&[3, 8], 2, 20), [1..=10]);
        assert_eq!(context_runs(&[], 5, 20), []);
        assert_eq!(context_runs(&[20], MAX_CONTEXT, 20), [15..=20]);
    }

    #[test]
    fn a_long_context_line_shows_its_start_and_says_it_was_cut() {
        assert_eq!(context_text("short"), ("short".to_owned(), false));
        let long = "é".repeat(WINDOW_CHARS + 1);
        let (text, cut) = context_text(&long);
        assert!(cut);
        assert_eq!(text, format!("{}…", "é".repeat(WINDOW_CHARS)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn windows_never_panic_hold_the_match_and_cut_on_characters(
            before in "[a-zé€😀 ]{0,400}",
            needle in "[a-zé€😀]{1,12}",
            after in "[a-zé€😀 ]{0,400}",
        ) {
            let line = format!("{before}{needle}{after}");
            let pattern = Pattern::new(&needle, false, false).unwrap();
            let m = pattern.find_line(1, &line).expect("the needle is in the line");
            let inner = m.text.strip_prefix(CUT_MARK).unwrap_or(&m.text);
            let inner = inner.strip_suffix(CUT_MARK).unwrap_or(inner);
            // The window is a piece of the line, cut only where it is marked.
            prop_assert!(line.contains(inner));
            prop_assert!(inner.chars().count() <= WINDOW_CHARS);
            prop_assert_eq!(m.cut, inner != line);
            prop_assert_eq!(m.cut, line.chars().count() > WINDOW_CHARS);
            prop_assert_eq!(m.cut, m.text != inner);
            // The first match is inside the window.
            prop_assert!(inner.contains(&needle));
        }

        #[test]
        fn any_pattern_compiles_or_is_refused_and_never_panics(
            pattern in "\\PC{0,40}",
            regex in any::<bool>(),
            ignore_case in any::<bool>(),
            line in "\\PC{0,300}",
        ) {
            match Pattern::new(&pattern, regex, ignore_case) {
                Ok(compiled) => {
                    if let Some(m) = compiled.find_line(1, &line) {
                        prop_assert!(m.text.chars().count() <= WINDOW_CHARS + 2);
                    }
                }
                Err(error) => prop_assert!(!error.rule().is_empty()),
            }
        }
    }

    /// CPU seconds this thread has used (`/proc/thread-self/stat`, user + system).
    fn thread_cpu_seconds() -> f64 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("procfs");
        let after = &stat[stat.rfind(')').expect("the command's end") + 1..];
        let fields: Vec<&str> = after.split_whitespace().collect();
        let ticks: u64 =
            fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
        ticks as f64 / 100.0
    }

    #[test]
    fn a_long_counted_repetition_over_megabytes_stays_cheap() {
        // Every prefix up to 2000 letters is a state of the lazy DFA: it stays linear.
        let pattern = Pattern::new("[a-z]{1,2000}[0-9]", true, false).unwrap();
        let letters = "abcdefghij".repeat(200_000);
        let mixed = "abc1def2ghi3 ".repeat(160_000);
        let lines = [(1, "# Title"), (2, letters.as_str()), (3, mixed.as_str())];
        let before = thread_cpu_seconds();
        let found: Vec<_> = pattern.search(lines, &Budget::unlimited()).collect();
        let spent = thread_cpu_seconds() - before;
        assert_eq!(
            found
                .iter()
                .map(|m| m.as_ref().map(|m| m.line))
                .collect::<Vec<_>>(),
            [Ok(3)]
        );
        assert!(spent < 10.0, "matching took {spent} s of CPU");
    }

    #[test]
    fn a_pattern_that_thrashes_the_lazy_dfa_gives_up_in_bounded_cpu() {
        // An `a` twenty letters from the end: a DFA state per 2^21 suffixes, a new one
        // at nearly every byte of random text, so the lazy DFA gives up; the PikeVM
        // would take states × bytes.
        let pattern = Pattern::new("[ab]*a[ab]{20}c", true, false).unwrap();
        let mut seed = 0x2545_f491_u32;
        let text: String = (0..2_000_000)
            .map(|_| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                if seed >> 31 == 0 { 'a' } else { 'b' }
            })
            .collect();
        let lines = [(1, "# Title"), (2, "ab c"), (3, text.as_str()), (4, "c")];
        let before = thread_cpu_seconds();
        let found: Vec<_> = pattern.search(lines, &Budget::unlimited()).collect();
        let spent = thread_cpu_seconds() - before;
        assert_eq!(found, [Err(SearchStop::TooCostly { line: 3 })]);
        assert!(spent < 10.0, "matching took {spent} s of CPU");
        // The same pattern over short lines matches.
        let short = format!("x{}c", "a".repeat(21));
        assert!(pattern.is_match(&short));
    }

    #[test]
    fn a_cancellation_stops_the_search_before_the_next_line() {
        let pattern = Pattern::new("x", false, false).unwrap();
        let many: Vec<String> = (0..10_000).map(|i| format!("x{i}")).collect();
        let numbered = many.iter().enumerate().map(|(i, l)| (i + 1, l.as_str()));
        let cancel = CancellationToken::new();
        let budget = Budget::new(
            Instant::now() + std::time::Duration::from_secs(3600),
            cancel.clone(),
        );
        let mut search = pattern.search(numbered, &budget);
        assert_eq!(search.next().map(|m| m.map(|m| m.line)), Some(Ok(1)));
        cancel.cancel();
        assert_eq!(search.next(), Some(Err(SearchStop::Cancelled)));
        assert_eq!(search.next(), None);
    }

    #[test]
    fn a_deadline_that_passed_stops_the_search() {
        let pattern = Pattern::new("x", false, false).unwrap();
        let budget = Budget::new(Instant::now(), CancellationToken::new());
        let found: Vec<_> = pattern.search([(1, "x")], &budget).collect();
        assert_eq!(found, [Err(SearchStop::Deadline)]);
    }

    #[test]
    fn a_unicode_word_boundary_matches_beside_non_ascii_text() {
        // The lazy DFA quits on a non-ASCII byte next to \b; the PikeVM answers.
        let pattern = Pattern::new(r"\bStraße\b", true, false).unwrap();
        assert!(pattern.is_match("die Straße ist"));
        assert!(!pattern.is_match("die Straßen"));
        let m = pattern.find_line(1, "« Straße »").unwrap();
        assert_eq!(m.text, "« Straße »");
    }

    #[test]
    fn a_pattern_longer_than_the_limit_is_refused_without_being_quoted() {
        let long = "a".repeat(MAX_PATTERN_CHARS + 1);
        let error = Pattern::new(&long, true, false).unwrap_err();
        assert_eq!(error.rule(), "pattern-too-long");
        assert!(!error.to_string().contains(&long[..100]), "{error}");
        assert!(Pattern::new(&"a".repeat(MAX_PATTERN_CHARS), false, false).is_ok());
    }
}
