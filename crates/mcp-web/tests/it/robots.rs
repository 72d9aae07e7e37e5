//! `mcp-web robots`: the real binary offline against a robots file, and online against
//! a robots.txt served by a server this test starts on loopback (port 0), permitted
//! with allow-loopback; and the same refused by default.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support::Server;

/// Runs `mcp-web robots ARGS…`; returns (exit code, stdout, stderr).
fn robots(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-web"))
        .arg("robots")
        .args(args)
        .output()
        .expect("the mcp-web binary runs");
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

/// A robots file in the temp directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> TempFile {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "mcp-web-robots-{}-{}-{name}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::write(&path, contents).expect("write the test file");
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temp path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

const ROBOTS: &str = "\
# Example
User-agent: *
Disallow: /private
Allow: /private/ok$

User-agent: mcp-web
Disallow: /mine
";

#[test]
fn offline_one_line_per_url_with_the_deciding_line() {
    let file = TempFile::new("robots.txt", ROBOTS.as_bytes());
    let (code, out, err) = robots(&[
        "--robots-file",
        file.path(),
        "https://a.example/mine/page?x=1",
        "https://a.example/private/x",
        "/robots.txt",
    ]);
    assert_eq!(
        out,
        "disallowed https://a.example/mine/page?x=1  robots.txt Disallow: /mine (line 7)\n\
         allowed https://a.example/private/x  no rule of the group for this user agent matches\n\
         allowed /robots.txt  /robots.txt itself is always allowed\n"
    );
    assert_eq!((code, err.as_str()), (1, ""));

    // Another product token: the `*` group decides.
    let (code, out, _) = robots(&[
        "--robots-file",
        file.path(),
        "--user-agent",
        "OtherBot/2.0 (+https://other.example/bot)",
        "https://a.example/private/ok",
        "https://a.example/mine",
    ]);
    assert_eq!(
        out,
        "allowed https://a.example/private/ok  robots.txt Allow: /private/ok$ (line 4)\n\
         allowed https://a.example/mine  no rule of the '*' group matches (no group names this user agent)\n"
    );
    assert_eq!(code, 0, "every URL allowed");

    let (code, out, _) = robots(&[
        "--robots-file",
        file.path(),
        "--user-agent",
        "OtherBot",
        "https://a.example/private/other",
    ]);
    assert_eq!(
        out,
        "disallowed https://a.example/private/other  robots.txt Disallow: /private (line 3)\n"
    );
    assert_eq!(code, 1);

    // With respect-robots off the verdicts are the same, with a note on stderr.
    let (code, out, err) = robots(&[
        "--robots-file",
        file.path(),
        "--respect-robots=false",
        "https://a.example/mine",
    ]);
    assert_eq!(
        out,
        "disallowed https://a.example/mine  robots.txt Disallow: /mine (line 7)\n"
    );
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "mcp-web: note: respect-robots is false, so web_crawl and web_grep do not consult robots.txt; these verdicts are what it would say\n"
    );
}

#[test]
fn offline_refuses_what_is_not_a_url() {
    let file = TempFile::new("robots.txt", ROBOTS.as_bytes());
    let (code, out, _) = robots(&["--robots-file", file.path(), "ftp://a.example/x"]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("disallowed ftp://a.example/x  refused ftp://a.example/x: the scheme 'ftp' is not fetched"),
        "{out}"
    );
}

#[test]
fn offline_problems_with_the_file() {
    let (code, out, err) = robots(&[
        "--robots-file",
        "/nonexistent/mcp-web/robots.txt",
        "https://a.example/",
    ]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with("mcp-web: cannot read /nonexistent/mcp-web/robots.txt:"),
        "{err}"
    );

    // Longer than 500 KiB: said on stderr, and the tail is not read.
    let mut big = String::from("User-agent: *\nDisallow: /early\n");
    big.push_str(&format!("#{}\n", "-".repeat(600 * 1024)));
    big.push_str("Disallow: /late\n");
    let file = TempFile::new("big.txt", big.as_bytes());
    let (code, out, err) = robots(&[
        "--robots-file",
        file.path(),
        "https://a.example/early",
        "https://a.example/late",
    ]);
    assert_eq!(
        out,
        "disallowed https://a.example/early  robots.txt Disallow: /early (line 2)\n\
         allowed https://a.example/late  no rule of the '*' group matches (no group names this user agent)\n"
    );
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "is longer than a crawler reads (500 KiB, 10000 rules); only its beginning was read"
        ),
        "{err}"
    );
}

/// A loopback server answering `/robots.txt` with `robots` and anything else with a page.
fn robots_server(robots: Vec<u8>) -> Server {
    Server::start(move |path| {
        if path == "/robots.txt" {
            robots.clone()
        } else {
            b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\ncontent-type: text/plain\r\n\r\npage".to_vec()
        }
    })
}

/// An HTTP response with this status and plain-text body.
fn response(status: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/plain\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

const SERVED: &str = "User-agent: *\nDisallow: /private\nCrawl-delay: 1\n";

#[test]
fn online_fetches_each_origin_once_through_the_floor() {
    let server = robots_server(response("200 OK", SERVED));
    let (private, public) = (server.url("/private/a"), server.url("/public"));
    let (code, out, err) = robots(&["--allow-loopback", &private, &public]);
    assert_eq!(
        out,
        format!(
            "disallowed {private}  robots.txt Disallow: /private (line 2)\n\
             allowed {public}  no rule of the '*' group matches (no group names this user agent)\n"
        )
    );
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        server.requests("/robots.txt"),
        1,
        "one fetch for the origin"
    );
    let agents = server.user_agents();
    assert!(
        agents.iter().all(|a| a.starts_with("mcp-web/")),
        "{agents:?}"
    );

    let (code, out, _) = robots(&["--allow-loopback", &public]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn online_a_server_error_disallows_everything() {
    let server = robots_server(response("503 Service Unavailable", "busy"));
    let page = server.url("/anything");
    let (code, out, _) = robots(&["--allow-loopback", &page]);
    assert_eq!(
        out,
        format!(
            "disallowed {page}  robots.txt answered 503, a server error, which RFC 9309 says disallows the whole site\n"
        )
    );
    assert_eq!(code, 1);
}

#[test]
fn online_by_default_the_floor_refuses_robots_txt_on_loopback() {
    let server = robots_server(response("200 OK", SERVED));
    let page = server.url("/private/a");
    let (code, out, _) = robots(&[&page]);
    assert_eq!(
        out,
        format!(
            "allowed {page}  robots.txt could not be read (the floor refused 127.0.0.1 (loopback address)), so no rules apply\n"
        )
    );
    assert_eq!(code, 0);
    assert_eq!(
        server.requests("/robots.txt"),
        0,
        "no request reached the server"
    );
}
