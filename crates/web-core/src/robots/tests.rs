//! Tables of cases, each tagged with the RFC 9309 section it checks, and property
//! tests of the parser and matcher.

use std::time::Duration;

use proptest::prelude::*;

use super::*;
use crate::key::ConfigKey;

/// One check: the RFC section, robots.txt, the product token, the path, whether it is
/// allowed, and the deciding line's number (`None` when no rule decided).
type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    bool,
    Option<usize>,
);

/// The simple example of RFC 9309 §5.1.
const RFC_EXAMPLE: &str = "User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
";

/// Rules outside groups, blank lines inside groups, and a user-agent run broken only
/// by a blank line.
const GROUPS: &str = "allow: /foo/bar/

user-agent: FooBot
disallow: /
allow: /x/
user-agent: BarBot
disallow: /
allow: /y/


allow: /w/
user-agent: BazBot

user-agent: FooBot
allow: /z/
disallow: /
";

const CASES: &[Case] = &[
    // §5.1: the RFC's own example.
    (
        "5.1",
        RFC_EXAMPLE,
        "foobot",
        "/example/page.html",
        true,
        Some(8),
    ),
    (
        "5.1",
        RFC_EXAMPLE,
        "foobot",
        "/example/allowed.gif",
        true,
        Some(9),
    ),
    (
        "5.1",
        RFC_EXAMPLE,
        "foobot",
        "/example/other.html",
        false,
        Some(7),
    ),
    (
        "5.1",
        RFC_EXAMPLE,
        "foobot",
        "/publications/",
        false,
        Some(7),
    ),
    ("5.1", RFC_EXAMPLE, "FooBot", "/", false, Some(7)),
    (
        "5.1",
        RFC_EXAMPLE,
        "barbot",
        "/example/page.html",
        false,
        Some(13),
    ),
    (
        "5.1",
        RFC_EXAMPLE,
        "bazbot",
        "/example/page.html",
        false,
        Some(13),
    ),
    ("5.1", RFC_EXAMPLE, "bazbot", "/example/a.gif", true, None),
    (
        "5.1",
        RFC_EXAMPLE,
        "quxbot",
        "/example/page.html",
        true,
        None,
    ),
    ("5.1", RFC_EXAMPLE, "quxbot", "/a.gif", true, None),
    ("5.1", RFC_EXAMPLE, "otherbot", "/a/b.gif", false, Some(2)),
    ("5.1", RFC_EXAMPLE, "otherbot", "/a/b.gif?x", true, None),
    ("5.1", RFC_EXAMPLE, "otherbot", "/example/x", false, Some(3)),
    (
        "5.1",
        RFC_EXAMPLE,
        "otherbot",
        "/publications/x",
        true,
        Some(4),
    ),
    (
        "5.1",
        RFC_EXAMPLE,
        "otherbot",
        "/publications/x.gif",
        true,
        Some(4),
    ),
    ("5.1", RFC_EXAMPLE, "otherbot", "/elsewhere", true, None),
    // §5.2: the longest match is used.
    (
        "5.2",
        "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n",
        "foobot",
        "/example/page/disallowed.gif",
        false,
        Some(3),
    ),
    (
        "5.2",
        "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n",
        "foobot",
        "/example/page/allowed.gif",
        true,
        Some(2),
    ),
    // §2.1: groups, rules outside them, blank lines.
    ("2.1", GROUPS, "FooBot", "/x/b", true, Some(5)),
    ("2.1", GROUPS, "FooBot", "/z/d", true, Some(15)),
    ("2.1", GROUPS, "FooBot", "/y/c", false, Some(4)),
    ("2.1", GROUPS, "BarBot", "/y/c", true, Some(8)),
    ("2.1", GROUPS, "BarBot", "/w/a", true, Some(11)),
    ("2.1", GROUPS, "BarBot", "/z/d", false, Some(7)),
    ("2.1", GROUPS, "BazBot", "/z/d", true, Some(15)),
    // §2.2.2: a rule before the first user-agent line is ignored.
    ("2.2.2", GROUPS, "FooBot", "/foo/bar/", false, Some(4)),
    ("2.2.2", GROUPS, "BazBot", "/foo/bar/", false, Some(16)),
    (
        "2.2.2",
        "allow: /\ndisallow: /\n",
        "FooBot",
        "/a",
        true,
        None,
    ),
    // §2.1: consecutive user-agent lines share one group.
    (
        "2.1",
        "User-agent: a\nUser-agent: b\nDisallow: /p\n",
        "b",
        "/p",
        false,
        Some(3),
    ),
    // §2.1: a rule ends the run of user-agent lines; the next one starts a group.
    (
        "2.1",
        "User-agent: a\nDisallow: /p\nUser-agent: b\nDisallow: /q\n",
        "a",
        "/q",
        true,
        None,
    ),
    // §2.2.4: Sitemap, Crawl-delay and unknown lines do not end the user-agent run.
    (
        "2.2.4",
        "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n",
        "BarBot",
        "/x",
        false,
        Some(4),
    ),
    (
        "2.2.4",
        "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n",
        "FooBot",
        "/x",
        false,
        Some(4),
    ),
    (
        "2.2.4",
        "User-agent: FooBot\nCrawl-delay: 3\nUser-agent: *\nDisallow: /\n",
        "FooBot",
        "/x",
        false,
        Some(4),
    ),
    // §2.2.4: a Sitemap line inside a group does not end it.
    (
        "2.2.4",
        "User-agent: a\nDisallow: /p\nSitemap: https://x/s.xml\nDisallow: /q\n",
        "a",
        "/q",
        false,
        Some(4),
    ),
    // §2.2.1: groups naming the same token are merged.
    (
        "2.2.1",
        "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n",
        "ExampleBot",
        "/baz",
        false,
        Some(6),
    ),
    (
        "2.2.1",
        "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n",
        "ExampleBot",
        "/foo",
        false,
        Some(2),
    ),
    // §2.2.1 + §2.2.2: the longest match is taken across merged groups.
    (
        "2.2.1",
        "user-agent: a\ndisallow: /x\nuser-agent: b\ndisallow: /\nuser-agent: a\nallow: /x/y\n",
        "a",
        "/x/y/z",
        true,
        Some(6),
    ),
    // §2.2.1: `*` applies only when no group names the token.
    (
        "2.2.1",
        "user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n",
        "ExampleBot",
        "/foo",
        false,
        Some(2),
    ),
    (
        "2.2.1",
        "user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n",
        "ExampleBot",
        "/baz",
        true,
        None,
    ),
    (
        "2.2.1",
        "user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n",
        "BazBot",
        "/foo",
        true,
        None,
    ),
    (
        "2.2.1",
        "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n",
        "FooBot",
        "/x/page",
        true,
        None,
    ),
    // §2.2.1: the `*` group and a named group are never merged.
    (
        "2.2.1",
        "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n",
        "FooBot",
        "/x",
        false,
        Some(4),
    ),
    (
        "2.2.1",
        "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n",
        "BarBot",
        "/x",
        true,
        Some(2),
    ),
    // §2.2.1: no named group and no `*` group: no rules apply.
    (
        "2.2.1",
        "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\n",
        "QuxBot",
        "/x",
        true,
        None,
    ),
    ("2.2.1", "", "FooBot", "/x", true, None),
    // §2.2.2: a matched group with no rules allows everything; no fall-back to `*`.
    (
        "2.2.2",
        "User-agent: *\nDisallow: /\n\nUser-agent: quxbot\n",
        "quxbot",
        "/x",
        true,
        None,
    ),
    (
        "2.2.2",
        "User-agent: quxbot\nDisallow:\n\nUser-agent: *\nDisallow: /\n",
        "quxbot",
        "/x",
        true,
        None,
    ),
    (
        "2.2.2",
        "User-agent: *\nDisallow: /\nUser-agent: quxbot\nCrawl-delay: 5\n",
        "quxbot",
        "/x",
        true,
        None,
    ),
    // §2.2.1: product tokens are matched case-insensitively, by their leading
    // letters, `_` and `-`.
    (
        "2.2.1",
        "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n",
        "foo",
        "/a/b",
        false,
        Some(3),
    ),
    (
        "2.2.1",
        "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n",
        "Foo",
        "/x/y",
        true,
        Some(2),
    ),
    (
        "2.2.1",
        "User-agent: Foobot/2.1\nDisallow: /\n",
        "foobot",
        "/x",
        false,
        Some(2),
    ),
    (
        "2.2.1",
        "User-agent: Foo_Bot-Images\nDisallow: /\n",
        "foo_bot-images",
        "/x",
        false,
        Some(2),
    ),
    (
        "2.2.1",
        "User-agent: foobotx\nDisallow: /\n",
        "foobot",
        "/x",
        true,
        None,
    ),
    (
        "2.2.1",
        "User-agent: foo\nDisallow: /\n",
        "foobot",
        "/x",
        true,
        None,
    ),
    // §2.2.1: `*` followed by more text still names every crawler; `*bot` names none.
    (
        "2.2.1",
        "User-agent: * # everyone\nDisallow: /\n",
        "foobot",
        "/x",
        false,
        Some(2),
    ),
    (
        "2.2.1",
        "User-agent: * and more\nDisallow: /\n",
        "foobot",
        "/x",
        false,
        Some(2),
    ),
    (
        "2.2.1",
        "User-agent: *bot\nDisallow: /\n",
        "foobot",
        "/x",
        true,
        None,
    ),
    // §2.2.1: an empty or `*` token is matched only by the `*` group.
    (
        "2.2.1",
        "User-agent: a\nDisallow: /a\nUser-agent: *\nDisallow: /s\n",
        "",
        "/s",
        false,
        Some(4),
    ),
    (
        "2.2.1",
        "User-agent: a\nDisallow: /a\nUser-agent: *\nDisallow: /s\n",
        "*",
        "/a",
        true,
        None,
    ),
    (
        "2.2.1",
        "User-agent:\nDisallow: /\n",
        "foobot",
        "/x",
        true,
        None,
    ),
    // §2.1: key names are case-insensitive; the colon and spaces around it optional.
    (
        "2.1",
        "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
        "FooBot",
        "/a",
        false,
        Some(3),
    ),
    (
        "2.1",
        "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n",
        "FooBot",
        "/x/y",
        true,
        Some(2),
    ),
    (
        "2.1",
        "user-agent FooBot\ndisallow /\n",
        "FooBot",
        "/x",
        false,
        Some(2),
    ),
    (
        "2.1",
        "  User-agent :\tFooBot  \n\t Disallow\t:   /x   \n",
        "FooBot",
        "/x",
        false,
        Some(2),
    ),
    ("2.1", "foo: FooBot\nbar: /\n", "FooBot", "/x", true, None),
    // §2.2.4: common misspellings are read as the key meant.
    (
        "2.2.4",
        "Useragent: FooBot\nDissallow: /x\n",
        "FooBot",
        "/x",
        false,
        Some(2),
    ),
    // §2.2.3: `#` starts a comment, in a line of its own or after a value.
    (
        "2.2.3",
        "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n",
        "FooBot",
        "/foo/bar",
        true,
        Some(4),
    ),
    (
        "2.2.3",
        "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n",
        "FooBot",
        "/foo/quz",
        false,
        Some(3),
    ),
    (
        "2.2.3",
        "User-agent: FooBot # comment\nDisallow: /x # comment\n",
        "FooBot",
        "/x",
        false,
        Some(2),
    ),
    (
        "2.2.3",
        "User-agent: # FooBot\nDisallow: /\n",
        "FooBot",
        "/x",
        true,
        None,
    ),
    // §2.2: CR, LF and CRLF all end lines, mixed freely, and line numbers follow.
    (
        "2.2",
        "User-Agent: foo\rAllow: /some/path\r\nUser-Agent: bar\n\r\n\rDisallow: /",
        "bar",
        "/x",
        false,
        Some(6),
    ),
    (
        "2.2",
        "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
        "bar",
        "/x",
        false,
        Some(6),
    ),
    (
        "2.2",
        "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
        "bar",
        "/x",
        false,
        Some(6),
    ),
    (
        "2.2",
        "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
        "foo",
        "/x",
        true,
        None,
    ),
    // §2.3: a UTF-8 byte order mark at the start is skipped, elsewhere it is not.
    (
        "2.3",
        "\u{FEFF}User-Agent: foo\nDisallow: /x\n",
        "foo",
        "/x",
        false,
        Some(2),
    ),
    (
        "2.3",
        "User-Agent: foo\n\u{FEFF}Disallow: /x\n",
        "foo",
        "/x",
        true,
        None,
    ),
    // §2.2.2: the longest match wins; Allow wins a tie.
    (
        "2.2.2",
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n",
        "FooBot",
        "/x/page.html",
        false,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n",
        "FooBot",
        "/x/page.html",
        true,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n",
        "FooBot",
        "/x/",
        false,
        Some(3),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\ndisallow: /\nallow: /\n",
        "FooBot",
        "/x/page.html",
        true,
        Some(3),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n",
        "FooBot",
        "/x/page.html",
        true,
        Some(3),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\ndisallow: /x\nallow: /x/\n",
        "FooBot",
        "/x",
        false,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\ndisallow: /x\nallow: /x/\n",
        "FooBot",
        "/x/",
        true,
        Some(3),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n",
        "FooBot",
        "/page.html",
        false,
        Some(3),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n",
        "FooBot",
        "/page",
        true,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
        "FooBot",
        "/x/page.html",
        true,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
        "FooBot",
        "/x/y.html",
        false,
        Some(3),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /p\ndisallow: /\n",
        "FooBot",
        "/page",
        true,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n",
        "FooBot",
        "/folder/page",
        true,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /$\ndisallow: /\n",
        "FooBot",
        "/",
        true,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /$\ndisallow: /\n",
        "FooBot",
        "/page.html",
        false,
        Some(3),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /\ndisallow: /$\n",
        "FooBot",
        "/",
        false,
        Some(3),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /\ndisallow: /$\n",
        "FooBot",
        "/about",
        true,
        Some(2),
    ),
    // §2.2.2: the pattern's octets count as written, wildcards included, as Google's
    // parser counts them.
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /ab\ndisallow: /a**\n",
        "FooBot",
        "/abc",
        false,
        Some(3),
    ),
    // Google's documentation: `Allow: /page` and `Disallow: /*.htm` disallow
    // `/page.htm` (7 octets against 5) and allow `/page`.
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n",
        "FooBot",
        "/page.htm",
        false,
        Some(3),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n",
        "FooBot",
        "/page",
        true,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
        "FooBot",
        "/x/page.html",
        true,
        Some(2),
    ),
    // §2.2.2 / §2.3: a NUL byte ends a line as in Google's parser; the rule before
    // it stands and the bytes after it are ignored.
    (
        "2.2.2",
        "user-agent: FooBot\ndisallow: /private\u{0}garbage\n",
        "FooBot",
        "/private/x",
        false,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\u{0}\u{0}\ndisallow: /a\u{0}\u{0}\u{0}\nallow: /a/b\u{0}/c\n",
        "FooBot",
        "/a/b/c",
        true,
        Some(3),
    ),
    (
        "2.2.2",
        "user-agent: FooBot\ndis\u{0}allow: /\n",
        "FooBot",
        "/x",
        true,
        None,
    ),
    // §2.2.2: of two equally specific Disallow lines, the first is quoted.
    (
        "2.2.2",
        "user-agent: FooBot\ndisallow: /a\ndisallow: /a\n",
        "FooBot",
        "/a",
        false,
        Some(2),
    ),
    // §2.2.2: empty patterns match nothing.
    (
        "2.2.2",
        "user-agent: FooBot\ndisallow:\nallow:\n",
        "FooBot",
        "/x",
        true,
        None,
    ),
    // §2.2.2: matching is case-sensitive.
    (
        "2.2.2",
        "user-agent: FooBot\ndisallow: /X/\n",
        "FooBot",
        "/x/y",
        true,
        None,
    ),
    // §2.2.2: /robots.txt is implicitly allowed; only that exact path.
    (
        "2.2.2",
        "user-agent: *\ndisallow: /\n",
        "FooBot",
        "/robots.txt",
        true,
        None,
    ),
    (
        "2.2.2",
        "user-agent: *\ndisallow: /\n",
        "FooBot",
        "/robots.txt?x=1",
        false,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: *\ndisallow: /\n",
        "FooBot",
        "/robots.txt#top",
        true,
        None,
    ),
    // §2.2.2: path and query are matched, the fragment is not.
    (
        "2.2.2",
        "user-agent: *\ndisallow: /page$\n",
        "FooBot",
        "/page#part",
        false,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: *\ndisallow: /*?\n",
        "FooBot",
        "/page?a=1",
        false,
        Some(2),
    ),
    (
        "2.2.2",
        "user-agent: *\ndisallow: /*?\n",
        "FooBot",
        "/page#?a=1",
        true,
        None,
    ),
    (
        "2.2.2",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n",
        "FooBot",
        "/foo/bar?qux=taz&baz=http://foo.bar?tar&par",
        true,
        Some(3),
    ),
    // §2.2.2: percent-encoding normalised on both sides.
    (
        "2.2.2",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n",
        "FooBot",
        "/foo/bar/%E3%83%84",
        true,
        Some(3),
    ),
    (
        "2.2.2",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n",
        "FooBot",
        "/foo/bar/%e3%83%84",
        true,
        Some(3),
    ),
    (
        "2.2.2",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n",
        "FooBot",
        "/foo/bar/baz",
        true,
        Some(3),
    ),
    (
        "2.2.2",
        "User-agent: FooBot\nDisallow: /foo/bar/baz\n",
        "FooBot",
        "/foo/%62ar/baz",
        false,
        Some(2),
    ),
    (
        "2.2.2",
        "User-agent: FooBot\nDisallow: /a%2Fb\n",
        "FooBot",
        "/a/b",
        true,
        None,
    ),
    // §2.2.3: `%2A` and `%24` are the characters, not wildcards.
    (
        "2.2.3",
        "User-agent: FooBot\nDisallow: /path/file-with-a-%2A.html\n",
        "FooBot",
        "/path/file-with-a-*.html",
        false,
        Some(2),
    ),
    (
        "2.2.3",
        "User-agent: FooBot\nDisallow: /path/file-with-a-%2A.html\n",
        "FooBot",
        "/path/file-with-a-b.html",
        true,
        None,
    ),
    (
        "2.2.3",
        "User-agent: FooBot\nDisallow: /path/foo-%24\n",
        "FooBot",
        "/path/foo-$",
        false,
        Some(2),
    ),
    (
        "2.2.3",
        "User-agent: FooBot\nDisallow: /path/foo-%24\n",
        "FooBot",
        "/path/foo-",
        true,
        None,
    ),
    // §2.2.3: `*` and `$`.
    (
        "2.2.3",
        "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
        "FooBot",
        "/foo/bar/quz",
        false,
        Some(2),
    ),
    (
        "2.2.3",
        "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
        "FooBot",
        "/foo/bar",
        false,
        Some(2),
    ),
    (
        "2.2.3",
        "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
        "FooBot",
        "/foo/bar/",
        true,
        None,
    ),
];

#[test]
fn case_table() {
    for &(section, robots, agent, path, allowed, line_no) in CASES {
        let verdict = Robots::parse(robots.as_bytes()).check(agent, path);
        let got_line = match verdict.reason() {
            Reason::Rule { line_no, .. } => Some(*line_no),
            _ => None,
        };
        assert_eq!(
            (verdict.is_allowed(), got_line),
            (allowed, line_no),
            "§{section}: {agent:?} {path:?} in\n{robots}\n→ {verdict}"
        );
    }
}

/// The deciding line is quoted as written: case kept, comment and outer whitespace
/// removed, control characters escaped, long lines cut.
#[test]
fn deciding_line_is_quoted_as_written() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "User-agent: *\n  disallow:/Private  # keep out\n",
            "/Private/a",
            "robots.txt disallow:/Private (line 2)",
        ),
        (
            "User-agent: *\nDisallow: /a\u{1}b\n",
            "/a%01b",
            "robots.txt Disallow: /a\\u{1}b (line 2)",
        ),
        (
            "User-agent: *\nAllow: /ok\nDisallow: /\n",
            "/ok",
            "robots.txt Allow: /ok (line 2)",
        ),
    ];
    for (robots, path, want) in cases {
        let verdict = Robots::parse(robots.as_bytes()).check("a", path);
        assert_eq!(verdict.reason().to_string(), *want);
    }
    let long = format!("User-agent: *\nDisallow: /{}\n", "x".repeat(1000));
    let verdict = Robots::parse(long.as_bytes()).check("a", &format!("/{}", "x".repeat(1000)));
    let Reason::Rule { line, .. } = verdict.reason() else {
        panic!("a rule decides: {verdict}");
    };
    assert_eq!(line.chars().count(), QUOTE_LIMIT + 1);
    assert!(
        line.starts_with("Disallow: /xxx") && line.ends_with('…'),
        "{line}"
    );
    // Invalid UTF-8 is quoted lossily and still matches its percent-encoded form.
    let verdict = Robots::parse(b"User-agent: *\nDisallow: /\xFF\n").check("a", "/%FF");
    assert_eq!(
        verdict.reason().to_string(),
        "robots.txt Disallow: /\u{FFFD} (line 2)"
    );
}

/// A disallowing verdict becomes a `RobotsRefused` error naming the line, the agent
/// and `respect-robots`; an allowing one does not.
#[test]
fn refusal_names_line_agent_and_key() {
    let robots = Robots::parse(b"User-agent: *\n\nDisallow: /private\n");
    let verdict = robots.check("mcp-web", "/private/a");
    let refusal = verdict
        .refusal("https://x.example/private/a", "mcp-web")
        .expect("disallowed");
    let error = crate::Error::from(refusal);
    assert_eq!(error.config_key(), Some(ConfigKey::RespectRobots));
    assert_eq!(error.rule(), "robots-disallow");
    assert_eq!(
        error.to_string(),
        r#"skipped https://x.example/private/a: robots.txt Disallow: /private (line 3) disallows it for user agent 'mcp-web'. A fetch of that one page reads it regardless; set "respect-robots": false to crawl it anyway."#
    );
    assert_eq!(robots.check("mcp-web", "/public").refusal("u", "a"), None);
    let server_error = Verdict::new(Reason::ServerError { status: 503 });
    assert!(!server_error.is_allowed());
    assert_eq!(
        server_error.refusal("u", "a").map(|r| r.reason),
        Some(crate::error::RobotsReason::Unavailable { status: 503 })
    );
    for allowing in [
        Reason::ClientError { status: 404 },
        Reason::Unreachable {
            detail: "refused".into(),
        },
        Reason::NoGroup,
        Reason::RobotsTxt,
        Reason::NoMatchingRule { any: true },
    ] {
        let verdict = Verdict::new(allowing);
        assert!(verdict.is_allowed(), "{verdict}");
        assert_eq!(verdict.refusal("u", "a"), None);
    }
}

#[test]
fn reasons_read_well() {
    let cases = [
        (
            Reason::NoMatchingRule { any: false },
            "allowed: no rule of the group for this user agent matches",
        ),
        (
            Reason::NoMatchingRule { any: true },
            "allowed: no rule of the '*' group matches (no group names this user agent)",
        ),
        (
            Reason::NoGroup,
            "allowed: robots.txt has no group for this user agent and no '*' group",
        ),
        (
            Reason::RobotsTxt,
            "allowed: /robots.txt itself is always allowed",
        ),
        (
            Reason::ClientError { status: 404 },
            "allowed: robots.txt answered 404, so no rules apply",
        ),
        (
            Reason::ServerError { status: 500 },
            "disallowed: robots.txt answered 500, a server error, which RFC 9309 says disallows the whole site",
        ),
        (
            Reason::Unreachable {
                detail: "connection refused".into(),
            },
            "allowed: robots.txt could not be read (connection refused), so no rules apply",
        ),
    ];
    for (reason, want) in cases {
        assert_eq!(Verdict::new(reason).to_string(), want);
    }
}

/// §2.5: the first 500 KiB are parsed; a line the limit cuts is dropped whole.
#[test]
fn parse_limit() {
    let head = "User-agent: *\nDisallow: /early\n";
    // Padding made of comment lines brings the next line to the limit's edge.
    let pad_to = |len: usize| {
        let mut text = head.to_owned();
        while text.len() + 100 < len {
            text.push_str(&format!("#{}\n", "-".repeat(98)));
        }
        let gap = len - text.len();
        if gap > 1 {
            text.push('#');
            text.push_str(&"-".repeat(gap - 2));
            text.push('\n');
        } else {
            text.push_str(&"\n".repeat(gap));
        }
        assert_eq!(text.len(), len);
        text
    };

    // A line that ends exactly at the limit is read.
    let line = "Disallow: /edge\n";
    let mut text = pad_to(PARSE_LIMIT - line.len() + 1);
    text.push_str(line);
    text.push_str("Disallow: /late\n");
    assert_eq!(text.as_bytes()[PARSE_LIMIT], b'\n');
    let robots = Robots::parse(text.as_bytes());
    assert!(robots.truncated());
    assert!(!robots.check("a", "/early").is_allowed());
    assert!(!robots.check("a", "/edge").is_allowed());
    assert!(robots.check("a", "/late").is_allowed());

    // A line the limit cuts is dropped, not read as `Disallow: /ed`.
    let mut text = pad_to(PARSE_LIMIT - 4);
    text.push_str("Disallow: /ed-and-more\nDisallow: /late\n");
    let robots = Robots::parse(text.as_bytes());
    assert!(robots.truncated());
    assert!(robots.check("a", "/ed").is_allowed());
    assert!(robots.check("a", "/ed-and-more").is_allowed());
    assert!(!robots.check("a", "/early").is_allowed());

    // A file of exactly the limit is read whole.
    let mut text = pad_to(PARSE_LIMIT - line.len());
    text.push_str(line);
    assert_eq!(text.len(), PARSE_LIMIT);
    let robots = Robots::parse(text.as_bytes());
    assert!(!robots.truncated());
    assert!(!robots.check("a", "/edge").is_allowed());

    // One long line past the limit: nothing after the last complete line.
    let text = format!("User-agent: *\nDisallow: /{}", "x".repeat(PARSE_LIMIT));
    let robots = Robots::parse(text.as_bytes());
    assert!(robots.truncated());
    assert!(robots.check("a", "/x").is_allowed());
}

/// Crawl-delay is read per group, with the same group selection as the rules.
#[test]
fn crawl_delay_per_group() {
    let robots = Robots::parse(
        b"Crawl-delay: 99\n\
          User-agent: *\nCrawl-delay: 2.5\nDisallow: /x\n\
          User-agent: slow\nCrawl-delay: 10\nDisallow: /a\n\
          User-agent: slow\nCrawl-delay: 4\nDisallow: /b\n\
          User-agent: plain\nDisallow: /y\n\
          User-agent: odd\nCrawl-delay: -1\nCrawl-delay: 1e3\nCrawl-delay: inf\nCrawl-delay: 1.2.3\nCrawl-delay: .\nAllow: /\n\
          User-agent: huge\nCrawl-delay: 99999999999999999999999\nAllow: /\n\
          User-agent: shared\nCrawl-delay: 7\nUser-agent: other\nAllow: /\n",
    );
    let cases: &[(&str, Option<Duration>)] = &[
        ("anyone", Some(Duration::from_millis(2500))),
        ("slow", Some(Duration::from_secs(10))),
        ("SLOW", Some(Duration::from_secs(10))),
        ("plain", None),
        ("odd", None),
        ("huge", None),
        ("other", Some(Duration::from_secs(7))),
    ];
    for &(agent, want) in cases {
        assert_eq!(robots.crawl_delay(agent), want, "{agent}");
    }
    assert_eq!(Robots::parse(b"").crawl_delay("a"), None);
    assert_eq!(
        Robots::parse(b"User-agent: a\nCrawl-delay: 3 # s\n").crawl_delay("a"),
        Some(Duration::from_secs(3))
    );
}

/// §2.2.4: Sitemap lines are collected wherever they stand.
#[test]
fn sitemaps_anywhere() {
    let robots = Robots::parse(
        b"Sitemap: https://a.example/one.xml\n\
          User-Agent: foo\nAllow: /some/path\nsitemap:https://a.example/two.xml\n\
          User-Agent: bar\n\nSitemap:\nSite-map: https://a.example/three.xml # c\n",
    );
    assert_eq!(
        robots.sitemaps(),
        [
            "https://a.example/one.xml",
            "https://a.example/two.xml",
            "https://a.example/three.xml"
        ]
    );
    // The Sitemap line did not end foo's group, nor start one.
    assert!(robots.check("foo", "/some/path").is_allowed());
    assert!(matches!(
        robots.check("bar", "/x").reason(),
        Reason::NoMatchingRule { any: false }
    ));
}

#[test]
fn product_tokens() {
    let cases = [
        (
            "mcp-web/0.1.0 (+https://github.com/mcp-web/mcp-web)",
            "mcp-web",
        ),
        ("ExampleBot", "ExampleBot"),
        ("  ExampleBot/2", "ExampleBot"),
        ("Example Bot/2", "Example"),
        ("/2", ""),
        ("", ""),
    ];
    for (user_agent, want) in cases {
        assert_eq!(product_token(user_agent), want, "{user_agent:?}");
    }
}

/// Lines built from the pieces robots.txt files are made of, valid and not.
fn robots_line() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("User-agent"),
        Just("user-agent"),
        Just("Allow"),
        Just("Disallow"),
        Just("disallow"),
        Just("Crawl-delay"),
        Just("Sitemap"),
        Just("Useragent"),
        Just("Noindex"),
        Just(""),
    ];
    let value = prop_oneof![
        Just("*".to_owned()),
        "[a-zA-Z_-]{0,6}",
        "/[a-z/*$%.?=&]{0,8}",
        "[*$/]{0,4}",
        "[0-9.]{0,4}",
        "\\PC{0,8}",
    ];
    let sep = prop_oneof![Just(":"), Just(": "), Just(" "), Just(" : "), Just("")];
    let comment = prop_oneof![Just(""), Just(" # c"), Just("#")];
    (key, sep, value, comment).prop_map(|(k, s, v, c)| format!("{k}{s}{v}{c}"))
}

fn robots_text() -> impl Strategy<Value = String> {
    let end = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    prop::collection::vec((robots_line(), end), 0..24).prop_map(|lines| {
        lines
            .into_iter()
            .map(|(line, end)| format!("{line}{end}"))
            .collect()
    })
}

/// A path the robots.txt can write verbatim: no `*` (a wildcard there), no `#` (a
/// comment there, a fragment in a URL), no whitespace (trimmed there).
fn plain_path() -> impl Strategy<Value = String> {
    "/[a-zA-Z0-9/._~%?=&$:@!+,;()'\\[\\]\"<>^`{}|\\\\é\u{3084}-]{0,16}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The parser and matcher never panic, on any bytes and any path.
    #[test]
    fn never_panics_on_bytes(robots in prop::collection::vec(any::<u8>(), 0..512),
                             agent in "\\PC{0,8}", path in "\\PC{0,32}") {
        let robots = Robots::parse(&robots);
        let verdict = robots.check(&agent, &path);
        let _ = verdict.to_string();
        let _ = robots.crawl_delay(&agent);
        let _ = robots.sitemaps();
    }

    /// Nor on structured input that reaches deeper.
    #[test]
    fn never_panics_on_lines(robots in robots_text(), agent in "[a-zA-Z_*-]{0,6}",
                             path in "\\PC{0,32}") {
        let robots = Robots::parse(robots.as_bytes());
        let _ = robots.check(&agent, &path).to_string();
        let _ = robots.crawl_delay(&agent);
    }

    /// An Allow for the exact path, in a group for the agent, always allows it.
    #[test]
    fn exact_allow_always_allows(robots in robots_text(), agent in "[a-zA-Z_-]{1,6}",
                                 path in plain_path()) {
        let text = format!("{robots}\nUser-agent: {agent}\nAllow: {path}$\n");
        let verdict = Robots::parse(text.as_bytes()).check(&agent, &path);
        prop_assert!(verdict.is_allowed(), "{verdict}");
    }

    /// A Disallow for the exact path, with nothing else for the agent, disallows it
    /// (unless it is /robots.txt), and quotes that line.
    #[test]
    fn exact_disallow_disallows(agent in "[a-zA-Z_-]{1,6}", path in plain_path()) {
        prop_assume!(path != "/robots.txt");
        let text = format!("User-agent: {agent}\nDisallow: {path}$\n");
        let verdict = Robots::parse(text.as_bytes()).check(&agent, &path);
        prop_assert!(!verdict.is_allowed(), "{verdict}");
        let is_line_2 = matches!(verdict.reason(), Reason::Rule { line_no: 2, .. });
        prop_assert!(is_line_2);
    }

    /// The verdict is the one a plain scan of every rule gives: the matching rule with
    /// the most specificity, Allow on a tie, the earliest line among equals.
    #[test]
    fn verdict_is_the_plain_scan(robots in robots_text(), agent in "[a-zA-Z_*-]{0,6}",
                                 path in plain_path()) {
        let robots = Robots::parse(robots.as_bytes());
        let verdict = robots.check(&agent, &path);
        let normalized = normalize_path(&path);
        let groups = match robots.applicable(&agent) {
            Applicable::Named(groups) | Applicable::Any(groups) => groups,
            Applicable::None => Vec::new(),
        };
        let mut rules: Vec<&Rule> = groups
            .iter()
            .flat_map(|g| g.rules.iter())
            .filter(|r| r.pattern.matches(&normalized))
            .collect();
        rules.sort_by_key(|r| (std::cmp::Reverse(r.pattern.specificity()), !r.allow, r.line_no));
        if normalized != "/robots.txt" {
            match rules.first() {
                Some(rule) => {
                    let is_rule = matches!(
                        verdict.reason(),
                        Reason::Rule { allow, line_no, .. } if *allow == rule.allow && *line_no == rule.line_no
                    );
                    prop_assert!(is_rule, "{verdict} vs line {}", rule.line_no);
                }
                None => prop_assert!(verdict.is_allowed(), "{verdict}"),
            }
        }
    }

    /// The line-end convention does not change any verdict.
    #[test]
    fn line_ends_are_equivalent(lines in prop::collection::vec(robots_line(), 0..16),
                                agent in "[a-zA-Z_-]{1,6}", path in plain_path()) {
        let with = |end: &str| Robots::parse(lines.join(end).as_bytes()).check(&agent, &path);
        let lf = with("\n");
        prop_assert_eq!(&lf, &with("\r\n"));
        prop_assert_eq!(&lf, &with("\r"));
    }

    /// Percent-encoding an unreserved character of the path does not change the
    /// verdict.
    #[test]
    fn encoding_unreserved_is_neutral(robots in robots_text(), agent in "[a-zA-Z_-]{1,6}",
                                      path in "/[a-z0-9._~/-]{1,12}", at in any::<prop::sample::Index>()) {
        let robots = Robots::parse(robots.as_bytes());
        let bytes = path.as_bytes();
        // Only an unreserved character is neutral: `%2F` is not a path separator.
        let unreserved: Vec<usize> = (1..bytes.len()).filter(|&i| bytes[i] != b'/').collect();
        prop_assume!(!unreserved.is_empty());
        let i = unreserved[at.index(unreserved.len())];
        let encoded = format!("{}%{:02x}{}", &path[..i], bytes[i], &path[i + 1..]);
        prop_assert_eq!(robots.check(&agent, &path), robots.check(&agent, &encoded));
    }
}

#[test]
fn path_and_query_of_a_url() {
    let cases = [
        ("https://a.example", "/"),
        ("https://a.example/p/q?x=1&y=2#frag", "/p/q?x=1&y=2"),
        ("http://a.example:8080/?", "/?"),
        ("https://a.example/ツ?é", "/%E3%83%84?%C3%A9"),
    ];
    for (raw, want) in cases {
        let url = crate::url::CheckedUrl::parse(raw).expect("a valid URL");
        assert_eq!(path_and_query(&url), want, "{raw}");
    }
}

/// Google's suite (`ID_LinesTooLong`): a line is read up to `2083 * 8 - 1` bytes and
/// the rest ignored, so a rule cut there matches what its beginning matches.
#[test]
fn a_line_longer_than_googles_parser_reads_is_cut_where_it_cuts() {
    const GOOGLE_MAX: usize = 2083 * 8;
    let padded = |prefix: &str, fill: char| {
        let mut line = String::from("/x/");
        let length = GOOGLE_MAX - line.len() - prefix.len() + 1;
        while line.len() < length {
            line.push(fill);
        }
        line
    };
    let long = padded("disallow: ", 'a');
    let text = format!("user-agent: FooBot\ndisallow: {long}/qux\n");
    let robots = Robots::parse(text.as_bytes());
    assert!(robots.check("FooBot", "/fux").is_allowed());
    assert!(!robots.check("FooBot", &format!("{long}/fux")).is_allowed());

    let (a, b) = (padded("allow: ", 'a'), padded("allow: ", 'b'));
    let text = format!("user-agent: FooBot\ndisallow: /\nallow: {a}/qux\nallow: {b}/qux\n");
    let robots = Robots::parse(text.as_bytes());
    assert!(!robots.check("FooBot", "/").is_allowed());
    assert!(robots.check("FooBot", &format!("{a}/qux")).is_allowed());
    assert!(robots.check("FooBot", &format!("{b}/fux")).is_allowed());
}

/// A file of more rules than are kept is read as if it ended before the next one: the
/// rules kept, and so the work of matching one URL, are bounded.
#[test]
fn no_more_than_max_rules_are_kept() {
    let mut text = String::from("User-agent: *\n");
    for i in 0..MAX_RULES + 5_000 {
        text.push_str(&format!("Disallow: /*-{i}-*z$\n"));
    }
    let robots = Robots::parse(text.as_bytes());
    assert_eq!(robots.rule_count(), MAX_RULES);
    assert!(robots.truncated());
    let last_kept = format!("/a-{}-z", MAX_RULES - 1);
    assert!(!robots.check("a", &last_kept).is_allowed());
    assert!(
        robots
            .check("a", &format!("/a-{}-z", MAX_RULES))
            .is_allowed()
    );

    let exactly = "User-agent: *\n".to_owned() + &"Disallow: /x\n".repeat(MAX_RULES);
    let robots = Robots::parse(exactly.as_bytes());
    assert_eq!(robots.rule_count(), MAX_RULES);
    assert!(!robots.truncated());
}

/// Matching one URL compares at most MATCH_BUDGET bytes: 10,000 wildcard rules against
/// an 8 KiB path (a second of CPU before) stop within the budget and disallow; a short
/// path is matched against every rule as before.
#[test]
fn matching_one_url_stays_within_its_budget() {
    let mut text = String::from("User-agent: *\n");
    for i in 0..MAX_RULES {
        text.push_str(&format!("Disallow: /*-{i}-*z$\n"));
    }
    let robots = Robots::parse(text.as_bytes());
    let long = format!("/{}", "a".repeat(8 * 1024));
    let verdict = robots.check("a", &long);
    let Reason::TooCostly { tried } = *verdict.reason() else {
        panic!("{verdict}");
    };
    assert!(!verdict.is_allowed());
    assert!(tried * long.len() <= MATCH_BUDGET, "{tried} rules tried");
    assert!(tried > 100, "{tried} rules tried");
    let refusal = verdict.refusal("https://a.example/", "mcp-web").unwrap();
    assert!(refusal.to_string().contains("respect-robots"), "{refusal}");
    // A short path is matched against all the rules.
    assert!(!robots.check("a", "/a-9999-z").is_allowed());
    assert!(robots.check("a", "/a-nothing-z").is_allowed());
    assert!(matches!(
        robots.check("a", "/a-nothing-z").reason(),
        Reason::NoMatchingRule { .. }
    ));
}
