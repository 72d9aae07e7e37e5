//! Path patterns of Allow and Disallow lines: percent-encoding normalisation of both
//! sides, the `*` and `$` special characters, and the specificity that decides
//! between matching rules: the pattern's octets as written, wildcards included, as
//! Google's reference parser counts them.
//!
//! Patterns and paths go through the same normalisation before they are compared
//! (RFC 9309 §2.2.2), so that spellings of one URL compare equal:
//!
//! - a `%XX` escape of an unreserved character (`A-Z a-z 0-9 - . _ ~`) is decoded;
//! - every other `%XX` escape is kept, its hex digits upper-cased;
//! - a `%` that does not start an escape becomes `%25`;
//! - octets outside ASCII, controls, space and the characters RFC 3986 neither
//!   reserves nor leaves unreserved (`"` `<` `>` `\` `^` `` ` `` `{` `|` `}`) are
//!   percent-encoded;
//! - a literal `*` or `$` in a path is percent-encoded, so that `%2A` and `%24` in a
//!   pattern match them verbatim and are never wildcards (§2.2.3);
//! - reserved characters other than `*` and `$` are compared as written.
//!
//! After normalisation every octet is ASCII, and a raw `*` can only be a pattern's
//! wildcard.

/// A compiled Allow/Disallow pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern {
    /// The normalised pattern without a final `$`; `*` bytes are wildcards.
    text: String,
    /// True when the pattern ended in `$`: the match must reach the path's end.
    anchored: bool,
    /// The octets of the pattern as written (see [`Pattern::specificity`]).
    octets: usize,
}

impl Pattern {
    /// Compiles a pattern as written after the colon (already trimmed, comment cut).
    /// Returns `None` for an empty pattern, which matches nothing.
    pub(crate) fn compile(raw: &[u8]) -> Option<Pattern> {
        if raw.is_empty() {
            return None;
        }
        let (body, anchored) = match raw.split_last() {
            Some((b'$', body)) => (body, true),
            _ => (raw, false),
        };
        let mut text = String::with_capacity(body.len());
        normalize_into(&mut text, body, Side::Pattern);
        // Google's parser percent-encodes octets outside ASCII before it counts.
        let octets = raw.iter().map(|&b| if b.is_ascii() { 1 } else { 3 }).sum();
        Some(Pattern {
            text,
            anchored,
            octets,
        })
    }

    /// The length of the normalised pattern, in bytes.
    pub(crate) fn len(&self) -> usize {
        self.text.len()
    }

    /// How specific the pattern is: its octets as written, wildcards and a final `$`
    /// included, an octet outside ASCII counting as the three of its `%XX` escape.
    ///
    /// RFC 9309 §2.2.2 has the match with the most octets win, and Google's reference
    /// parser (which the RFC's authors wrote) counts the pattern's length as written:
    /// with `Allow: /page` and `Disallow: /*.htm`, `/page.htm` is disallowed (7 octets
    /// against 5), as Google's documentation says. The same count in every crawler is
    /// what lets a site predict the verdict.
    pub(crate) fn specificity(&self) -> usize {
        self.octets
    }

    /// True when the pattern matches the normalised path (from [`normalize_path`]),
    /// starting at its first octet.
    pub(crate) fn matches(&self, path: &str) -> bool {
        let mut segments = self.text.split('*');
        // `split` always yields at least one item.
        let first = segments.next().unwrap_or("");
        let Some(mut rest) = path.strip_prefix(first) else {
            return false;
        };
        let mut segments = segments.peekable();
        if segments.peek().is_none() {
            return !self.anchored || rest.is_empty();
        }
        while let Some(segment) = segments.next() {
            let last = segments.peek().is_none();
            if last && self.anchored {
                // The final segment must end the path; the wildcard before it takes
                // whatever lies between.
                return rest.ends_with(segment);
            }
            // Leftmost occurrence: with `*` as the only wildcard, taking the earliest
            // match of each segment never loses a match a later one would find.
            match rest.find(segment) {
                Some(at) => rest = &rest[at + segment.len()..],
                None => return false,
            }
        }
        true
    }
}

/// Which side of the comparison bytes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// A robots.txt pattern: `*` is the wildcard and stays raw.
    Pattern,
    /// A URL's path and query: a literal `*` is encoded.
    Path,
}

/// Normalises a URL's path and query for matching: cuts the fragment, makes sure the
/// path starts with `/`, and applies the module's percent-encoding rules.
pub(crate) fn normalize_path(path_and_query: &str) -> String {
    let raw = path_and_query.as_bytes();
    let raw = match raw.iter().position(|&b| b == b'#') {
        Some(at) => &raw[..at],
        None => raw,
    };
    let mut out = String::with_capacity(raw.len() + 1);
    if raw.first() != Some(&b'/') {
        out.push('/');
    }
    normalize_into(&mut out, raw, Side::Path);
    out
}

/// Appends `raw`, normalised, to `out`.
fn normalize_into(out: &mut String, raw: &[u8], side: Side) {
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b == b'%' {
            if let (Some(hi), Some(lo)) = (
                raw.get(i + 1).copied().and_then(hex_value),
                raw.get(i + 2).copied().and_then(hex_value),
            ) {
                let decoded = (hi << 4) | lo;
                if is_unreserved(decoded) {
                    out.push(char::from(decoded));
                } else {
                    push_escape(out, decoded);
                }
                i += 3;
                continue;
            }
            push_escape(out, b'%');
            i += 1;
            continue;
        }
        let keep = match b {
            b'*' => side == Side::Pattern,
            b'$' => false,
            _ => is_unreserved(b) || is_reserved(b),
        };
        if keep {
            out.push(char::from(b));
        } else {
            push_escape(out, b);
        }
        i += 1;
    }
}

/// Appends `%XX` with upper-case hex digits.
fn push_escape(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 0x0f)]));
}

/// The value of one hex digit.
fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// RFC 3986 §2.3 unreserved characters.
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// RFC 3986 §2.2 reserved characters (gen-delims and sub-delims).
fn is_reserved(b: u8) -> bool {
    matches!(
        b,
        b':' | b'/'
            | b'?'
            | b'#'
            | b'['
            | b']'
            | b'@'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(raw: &str) -> Pattern {
        Pattern::compile(raw.as_bytes()).expect("non-empty pattern")
    }

    /// (section, pattern, path, matches)
    const MATCHES: &[(&str, &str, &str, bool)] = &[
        // §2.2.2: matching starts at the first octet and is a prefix match.
        ("2.2.2", "/", "/", true),
        ("2.2.2", "/", "/anything?at=all", true),
        ("2.2.2", "/fish", "/fish", true),
        ("2.2.2", "/fish", "/fish.html", true),
        ("2.2.2", "/fish", "/fishheads/yummy.html", true),
        ("2.2.2", "/fish", "/catfish", false),
        ("2.2.2", "/fish", "/?id=fish", false),
        ("2.2.2", "/fish/", "/fish", false),
        ("2.2.2", "/fish/", "/fish/?id=1", true),
        // §2.2.2: case sensitive.
        ("2.2.2", "/fish", "/Fish.asp", false),
        ("2.2.2", "/X/", "/x/y", false),
        // §2.2.2: a pattern that does not start with `/` or `*` never matches a path.
        ("2.2.2", "fish", "/fish", false),
        // §2.2.3: `*` is any run of octets, `/` included.
        ("2.2.3", "/fish*", "/fish", true),
        ("2.2.3", "/fish*.php", "/fish.php", true),
        (
            "2.2.3",
            "/fish*.php",
            "/fishheads/catfish.php?parameters",
            true,
        ),
        ("2.2.3", "/fish*.php", "/Fish.PHP", false),
        ("2.2.3", "/*.php", "/folder/filename.php?parameters", true),
        ("2.2.3", "/*.php", "/folder/any.php.file.html", true),
        ("2.2.3", "/*.php", "/windows.PHP", false),
        ("2.2.3", "/*.php", "/php/", false),
        ("2.2.3", "/foo/*/qux", "/foo//qux", true),
        ("2.2.3", "/foo/*/qux", "/foo/qux", false),
        ("2.2.3", "*.gif$", "/example/a.gif", true),
        ("2.2.3", "*.gif$", "/example/a.gif?x", false),
        ("2.2.3", "*", "/", true),
        ("2.2.3", "/a**b", "/ab", true),
        ("2.2.3", "/a*b*c", "/axxbyyc", true),
        ("2.2.3", "/a*b*c", "/axxcyyb", false),
        ("2.2.3", "/a*bc$", "/abcbc", true),
        ("2.2.3", "/a*bc$", "/abcb", false),
        ("2.2.3", "/a*a$", "/a", false),
        ("2.2.3", "/a*a$", "/aa", true),
        // §2.2.3: `$` ends the pattern.
        ("2.2.3", "/*.php$", "/filename.php", true),
        ("2.2.3", "/*.php$", "/folder/filename.php", true),
        ("2.2.3", "/*.php$", "/filename.php?parameters", false),
        ("2.2.3", "/*.php$", "/filename.php/", false),
        ("2.2.3", "/*.php$", "/filename.php5", false),
        ("2.2.3", "/foo/bar$", "/foo/bar", true),
        ("2.2.3", "/foo/bar$", "/foo/bar/", false),
        ("2.2.3", "/$", "/", true),
        ("2.2.3", "/$", "/page.html", false),
        ("2.2.3", "$", "/", false),
        // §2.2.3: a `$` before the end is an ordinary character.
        ("2.2.3", "/a$b", "/a$b", true),
        ("2.2.3", "/a$b", "/a%24b", true),
        ("2.2.3", "/a$b", "/a", false),
        ("2.2.3", "/price$$", "/price$", true),
        ("2.2.3", "/price$$", "/price$x", false),
        // §2.2.3: `%2A` and `%24` match the characters verbatim, never as wildcards.
        (
            "2.2.3",
            "/path/file-with-a-%2A.html",
            "/path/file-with-a-*.html",
            true,
        ),
        (
            "2.2.3",
            "/path/file-with-a-%2A.html",
            "/path/file-with-a-%2a.html",
            true,
        ),
        (
            "2.2.3",
            "/path/file-with-a-%2A.html",
            "/path/file-with-a-x.html",
            false,
        ),
        ("2.2.3", "/path/foo-%24", "/path/foo-$", true),
        ("2.2.3", "/path/foo-%24", "/path/foo-", false),
        ("2.2.3", "/path/foo-%24", "/path/foo-%24x", true),
        ("2.2.3", "/a%2A", "/abc", false),
        ("2.2.3", "/a*", "/a*", true),
        // §2.2.2: percent-encoding normalised on both sides.
        ("2.2.2", "/foo/bar?baz=quz", "/foo/bar?baz=quz", true),
        (
            "2.2.2",
            "/foo/bar?qux=taz&baz=http://foo.bar?tar&par",
            "/foo/bar?qux=taz&baz=http://foo.bar?tar&par",
            true,
        ),
        ("2.2.2", "/foo/bar/ツ", "/foo/bar/%E3%83%84", true),
        ("2.2.2", "/foo/bar/ツ", "/foo/bar/%e3%83%84", true),
        ("2.2.2", "/foo/bar/ツ", "/foo/bar/ツ", true),
        ("2.2.2", "/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84", true),
        ("2.2.2", "/foo/bar/%e3%83%84", "/foo/bar/ツ", true),
        ("2.2.2", "/foo/bar/%62%61%7A", "/foo/bar/baz", true),
        ("2.2.2", "/foo/bar/baz", "/foo/bar/%62%61%7a", true),
        ("2.2.2", "/a%2Fb", "/a/b", false),
        ("2.2.2", "/a/b", "/a%2fb", false),
        ("2.2.2", "/a%2fb", "/a%2Fb", true),
        ("2.2.2", "/a b", "/a%20b", true),
        ("2.2.2", "/a{b}", "/a%7Bb%7D", true),
        ("2.2.2", "/a%zz", "/a%25zz", true),
        ("2.2.2", "/100%", "/100%25", true),
        ("2.2.2", "/100%", "/100", false),
        // §2.2.2: the fragment is not part of what is matched.
        ("2.2.2", "/page$", "/page#section", true),
    ];

    #[test]
    fn match_table() {
        for &(section, raw, path, want) in MATCHES {
            let got = pattern(raw).matches(&normalize_path(path));
            assert_eq!(got, want, "§{section}: {raw:?} against {path:?}");
        }
    }

    /// (section, pattern, specificity)
    const SPECIFICITY: &[(&str, &str, usize)] = &[
        ("2.2.2", "/", 1),
        ("2.2.2", "/fish", 5),
        ("2.2.2", "/fish*", 6),
        ("2.2.2", "/*.html", 7),
        ("2.2.2", "/*.htm", 6),
        ("2.2.2", "/$", 2),
        ("2.2.2", "/a**b", 5),
        ("2.2.2", "/ツ", 10),
        ("2.2.2", "/%E3%83%84", 10),
        ("2.2.2", "/%62", 4),
        ("2.2.2", "/%2a", 4),
    ];

    #[test]
    fn specificity_table() {
        for &(section, raw, want) in SPECIFICITY {
            assert_eq!(pattern(raw).specificity(), want, "§{section}: {raw:?}");
        }
    }

    #[test]
    fn normalisation() {
        let cases = [
            ("", "/"),
            ("?q", "/?q"),
            ("/a#frag", "/a"),
            ("/%7e%7E", "/~~"),
            ("/%41%2f", "/A%2F"),
            ("/a*b$c", "/a%2Ab%24c"),
            ("/\u{7f}\t ", "/%7F%09%20"),
            ("/é", "/%C3%A9"),
            ("/%", "/%25"),
            ("/%4", "/%254"),
            ("/%g1", "/%25g1"),
            ("/|^`\\\"<>", "/%7C%5E%60%5C%22%3C%3E"),
        ];
        for (raw, want) in cases {
            assert_eq!(normalize_path(raw), want, "{raw:?}");
        }
        assert_eq!(Pattern::compile(b""), None);
        let p = pattern("/a*%2a$");
        assert_eq!((p.text.as_str(), p.anchored, p.octets), ("/a*%2A", true, 7));
    }
}
