//! `mcp-web fetch`: the real binary against a server this test starts on loopback
//! (port 0), permitted explicitly; and the same refused by default.

use std::process::{Command, Output};

use crate::support::Server;

fn response(status: u16, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status} X\r\ncontent-length: {}\r\n{headers}\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn site(path: &str) -> Vec<u8> {
    match path {
        "/old" => response(301, "location: /new\r\n", ""),
        "/long" => {
            let body: String = (0..400).map(|i| format!("line number {i}\n")).collect();
            response(200, "content-type: text/plain\r\n", &body)
        }
        "/broken-font.pdf" => response(
            200,
            "content-type: application/pdf\r\n",
            include_str!("../data/broken-font.pdf"),
        ),
        "/controls" => response(
            200,
            "content-type: text/html; charset=utf-8\r\n",
            "<html><head><title>Own\x1b]0;owned\x07ed</title></head><body><h1>Own\x1b]0;owned\x07ed</h1><p>Clear \x1b[2J the screen \u{9b}31m and ring \x07 the bell, in a paragraph long enough to be kept.</p></body></html>",
        ),
        "/controls-missing" => {
            response(404, "content-type: text/plain\r\n", "gone \x1b[2J\x07 away")
        }
        "/missing" => response(
            404,
            "content-type: text/html\r\n",
            "<title>No such page</title>",
        ),
        _ => response(
            200,
            "content-type: text/html; charset=utf-8\r\n",
            "<html><head><title>Grammars</title></head><body><nav>menu</nav><h1>Grammars</h1><p>Grammars are a powerful tool.</p><script>x()</script></body></html>",
        ),
    }
}

/// Runs `mcp-web fetch ARGS…` with the proxy variables pointed at `proxy_env`.
fn run(args: &[&str], proxy_env: Option<&str>) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-web"));
    command.arg("fetch").args(args);
    for var in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        match proxy_env {
            Some(value) => command.env(var, value),
            None => command.env_remove(var),
        };
    }
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().expect("the mcp-web binary runs");
    (
        status.code().expect("an exit code"),
        String::from_utf8(stdout).expect("utf-8 stdout"),
        String::from_utf8(stderr).expect("utf-8 stderr"),
    )
}

#[test]
fn control_characters_of_a_page_never_reach_the_terminal() {
    let server = Server::start(site);
    let (code, out, err) = run(&[&server.url("/controls"), "--allow-loopback"], None);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.contains("Own\u{FFFD}]0;owned\u{FFFD}ed"), "{out:?}");
    assert!(out.contains("Clear \u{FFFD}[2J"), "{out:?}");
    let (code, out, err) = run(
        &[&server.url("/controls-missing"), "--allow-loopback"],
        None,
    );
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("gone"), "{err:?}");
    for text in [&out, &err] {
        assert!(
            !text.contains(['\x1b', '\x07', '\u{9b}']),
            "a control character reached the terminal: {text:?}"
        );
    }
}

#[test]
fn prints_what_web_fetch_answers() {
    let server = Server::start(site);
    let (code, out, err) = run(&[&server.url("/"), "--allow-loopback"], None);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(out, "# Grammars\n\nGrammars are a powerful tool.\n");
}

#[test]
fn a_panic_the_pdf_reader_contains_is_one_line_on_stderr() {
    // Page 2 sets its text in a Type 1 font whose program the PDF crate cannot parse,
    // and the crate panics on it: page 1 is answered, and stderr says in one line where
    // the reader stopped, not as a crash would.
    let server = Server::start(site);
    let (code, out, err) = run(&[&server.url("/broken-font.pdf"), "--allow-loopback"], None);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("[page 1]\nA page in a font the reader knows.\n\n[page 2]\n"),
        "{out}"
    );
    assert!(!out.contains("cannot parse"), "{out}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("mcp-web: the PDF reader stopped at ")
            && err.contains("type1-encoding-parser"),
        "{err}"
    );
    assert!(err.contains("the page it was reading is left out"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_redirect_says_where_the_page_came_from() {
    let server = Server::start(site);
    let (code, out, _) = run(
        &[&server.url("/old"), "--allow-cidrs", "127.0.0.1/32"],
        None,
    );
    assert_eq!(code, 0);
    assert!(
        out.starts_with(&format!(
            "# Grammars\nRetrieved from {}\n\n",
            server.url("/new")
        )),
        "{out}"
    );
}

#[test]
fn refused_by_default_with_the_teaching_message() {
    let server = Server::start(site);
    let (code, out, err) = run(&[&server.url("/")], None);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.contains("loopback address") && err.contains("\"allow-loopback\": true"),
        "{err}"
    );
    assert_eq!(server.connections(), 0);
    let (code, _, err) = run(&["file:///etc/passwd"], None);
    assert_eq!(code, 1);
    assert!(err.contains("the scheme 'file' is not fetched"), "{err}");
}

#[test]
fn http_errors_and_caps() {
    let server = Server::start(site);
    let (code, _, err) = run(&[&server.url("/missing"), "--allow-loopback"], None);
    assert_eq!(code, 1);
    assert!(
        err.contains("answered HTTP 404 Not Found: \"No such page\""),
        "{err}"
    );
    let (code, out, _) = run(
        &[
            &server.url("/long"),
            "--allow-loopback",
            "--max-chars",
            "1000",
        ],
        None,
    );
    assert_eq!(code, 0);
    let last = out.trim_end().lines().last().expect("a last line");
    assert!(
        last.starts_with("[truncated: kept the first ") && last.contains("raise max-chars"),
        "{last}"
    );
}

#[test]
fn configuration_errors_exit_2() {
    let (code, _, err) = run(&["http://example.com/", "--max-bytes", "10"], None);
    assert_eq!(code, 2);
    assert!(err.contains("max-bytes"), "{err}");
    let (code, _, err) = run(
        &["http://example.com/", "--ca-file", "/nonexistent/ca.pem"],
        None,
    );
    assert_eq!(code, 2);
    assert!(err.contains("ca-file"), "{err}");
}

#[test]
fn the_environment_proxy_variables_are_never_read() {
    // Every proxy variable names a listener that would see any request routed to it.
    let trap = Server::start(|_| response(200, "content-type: text/plain\r\n", "trapped"));
    let server = Server::start(site);
    let proxy = trap.url("");
    let (code, out, err) = run(&[&server.url("/"), "--allow-loopback"], Some(&proxy));
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("# Grammars"), "{out}");
    assert_eq!(trap.connections(), 0);
    assert_eq!(trap.bytes(), 0);
}
