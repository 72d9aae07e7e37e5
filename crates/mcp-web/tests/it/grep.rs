//! `web_grep` and `mcp-web grep` against a site this test serves on loopback (port 0):
//! `url:line:text` lines numbered as `web_fetch` answers, literal, regex and
//! ignore-case patterns, a long line windowed, a bad regex refused as an argument, no
//! match as an answer, robots.txt never read at depth 0 and obeyed at depth 1, no page
//! fetched once `max-results` lines matched, and no page fetched once cancelled. The
//! server counts every request.

use std::process::{Command, Output};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_kit::{Call, FromConfig, Notification, Outcome, Server, ToolResult};
use mcp_web::ops::Context;
use mcp_web::ops::grep::GrepOptions;
use mcp_web::tools::Web;
use mcp_web_core::config::parse_web_config;
use mcp_web_core::error::Error;
use mcp_web_core::grep::Pattern;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::support;

/// The configuration of every test: loopback permitted, no politeness delay.
fn config() -> Value {
    json!({"allow-loopback": true, "crawl-delay": 0})
}

fn response(content_type: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn html(title: &str, body: &str) -> Vec<u8> {
    let page = format!("<html><head><title>{title}</title></head><body>{body}</body></html>");
    response("text/html; charset=utf-8", &page)
}

/// The long line of `/long`: a needle between 500 x's and 500 y's.
fn long_line() -> String {
    format!("{}needle{}", "x".repeat(500), "y".repeat(500))
}

/// The page of the context tests: matches whose groups overlap (2 and 4 with one line
/// around), touch (4 and 7), sit side by side (11 and 12), stand apart (7 and 11, with
/// line 9 between their groups), and end the page (15). Lines 1 to 15 of the text are
/// lines 3 to 17 of its `web_fetch` answer.
const CONTEXT_PAGE: &str = "alpha\nneedle one\nbeta\nneedle two\ngamma\ndelta\nneedle three\n\
                            epsilon\nzeta\neta\nneedle four\nneedle five\ntheta\niota\n\
                            needle six\n";

/// The test site: a home page linking to three pages and a private one, which
/// robots.txt disallows; a plain-text page with a long line; a missing page.
fn site(path: &str) -> Vec<u8> {
    match path {
        "/robots.txt" => response("text/plain", "User-agent: *\nDisallow: /private\n"),
        "/" => html(
            "Home",
            "<h1>Home</h1><p>Start here: a needle waits on some pages.</p>\
             <p>See <a href=\"/a\">the first page</a>, <a href=\"/b\">the second page</a>, \
             <a href=\"/private\">the private page</a> and <a href=\"/c\">the third \
             page</a>.</p>",
        ),
        "/a" => html(
            "Page A",
            "<h1>Page A</h1><p>The first needle of page A.</p><p>Nothing to see here.</p>\
             <pre>  needle in a preformatted line\nNeedle with a capital.</pre>\
             <p>A n.edle with a dot.</p>",
        ),
        "/b" => html(
            "Page B",
            "<p>Two needles: needle and needle.</p><p>A second needle line.</p>",
        ),
        "/c" => html("Page C", "<p>A needle on page C.</p>"),
        "/private" => html("Private", "<p>A secret needle.</p>"),
        "/old" => b"HTTP/1.1 301 Moved\r\nlocation: /a\r\ncontent-length: 0\r\n\r\n".to_vec(),
        "/long" => response("text/plain", &format!("short line\n\n{}\n", long_line())),
        "/context" => response("text/plain", CONTEXT_PAGE),
        _ => b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_vec(),
    }
}

fn server() -> Server {
    let web = Web::from_config(&config()).expect("a valid Web config");
    Server::new("mcp-web-test", "0").plug(web)
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an argument object")
}

async fn call(server: &Server, tool: &str, args: Value) -> ToolResult {
    match server.call(tool, object(args)).await {
        Outcome::Answered(result) => result,
        other => panic!("{tool} answers, not {other:?}"),
    }
}

/// Calls `web_grep` with `args`; its answer must not be an error.
async fn grep(server: &Server, args: Value) -> String {
    let result = call(server, "web_grep", args).await;
    assert!(!result.is_error(), "{}", result.text());
    result.text()
}

/// The lines of `web_fetch`'s answer for `url`.
async fn fetched_lines(server: &Server, url: &str) -> Vec<String> {
    let result = call(server, "web_fetch", json!({"url": url})).await;
    assert!(!result.is_error(), "{}", result.text());
    result.text().lines().map(str::to_owned).collect()
}

/// Asserts that every `url:line:text` line of `answer` (up to its first blank line) is
/// line `line` of `web_fetch`'s answer for `url`, for pages among `urls`.
async fn assert_numbered_as_web_fetch(server: &Server, answer: &str, urls: &[String]) {
    for found in answer.lines().take_while(|l| !l.is_empty()) {
        let url = urls
            .iter()
            .find(|u| found.starts_with(&format!("{u}:")))
            .unwrap_or_else(|| panic!("{found} is on a page of the site"));
        let rest = &found[url.len() + 1..];
        let (line, text) = rest.split_once(':').expect("url:line:text");
        let line: usize = line.parse().expect("a line number");
        let fetched = fetched_lines(server, url).await;
        assert_eq!(fetched[line - 1], text, "line {line} of {url}");
    }
}

#[tokio::test]
async fn matches_are_url_line_text_numbered_as_web_fetch_answers() {
    let site = support::Server::start(site);
    let server = server();
    let a = site.url("/a");
    let answer = grep(&server, json!({"url": a, "pattern": "needle"})).await;
    assert_eq!(
        answer,
        format!("{a}:3:The first needle of page A.\n{a}:8:  needle in a preformatted line")
    );
    assert_numbered_as_web_fetch(&server, &answer, std::slice::from_ref(&a)).await;
    // The header is searched too: its `# Title` is line 1.
    let answer = grep(&server, json!({"url": a, "pattern": "# Page"})).await;
    assert_eq!(answer, format!("{a}:1:# Page A"));
}

#[tokio::test]
async fn a_redirected_page_is_reported_at_the_url_asked_for_numbered_as_its_web_fetch() {
    let site = support::Server::start(site);
    let server = server();
    let (old, a) = (site.url("/old"), site.url("/a"));
    let answer = grep(&server, json!({"url": old, "pattern": "first needle"})).await;
    // `web_fetch` of the URL in the match shows the line at that number.
    assert_eq!(answer, format!("{old}:4:The first needle of page A."));
    assert_numbered_as_web_fetch(&server, &answer, std::slice::from_ref(&old)).await;
    let fetched = fetched_lines(&server, &old).await;
    assert_eq!(fetched[1], format!("Retrieved from {a}"));
    assert_eq!(fetched[3], "The first needle of page A.");
}

#[tokio::test]
async fn patterns_are_literal_unless_regex_and_match_case_unless_told() {
    let site = support::Server::start(site);
    let server = server();
    let a = site.url("/a");
    let literal = grep(&server, json!({"url": a, "pattern": "n.edle"})).await;
    assert_eq!(literal, format!("{a}:12:A n.edle with a dot."));
    let regex = grep(
        &server,
        json!({"url": a, "pattern": "n.edle", "regex": true}),
    )
    .await;
    assert_eq!(
        regex,
        format!(
            "{a}:3:The first needle of page A.\n{a}:8:  needle in a preformatted line\n\
             {a}:12:A n.edle with a dot."
        )
    );
    let anchored = grep(
        &server,
        json!({"url": a, "pattern": "^Needle", "regex": true}),
    )
    .await;
    assert_eq!(anchored, format!("{a}:9:Needle with a capital."));
    let folded = grep(
        &server,
        json!({"url": a, "pattern": "NEEDLE", "ignore-case": true}),
    )
    .await;
    assert_eq!(
        folded,
        format!(
            "{a}:3:The first needle of page A.\n{a}:8:  needle in a preformatted line\n\
             {a}:9:Needle with a capital."
        )
    );
    let exact = grep(&server, json!({"url": a, "pattern": "NEEDLE"})).await;
    assert_eq!(
        exact,
        format!("No line matched \"NEEDLE\" in 1 page from {a} (depth 0).\n\n{a}")
    );
}

#[tokio::test]
async fn a_long_line_is_a_window_around_its_match() {
    let site = support::Server::start(site);
    let server = server();
    let long = site.url("/long");
    let answer = grep(&server, json!({"url": long, "pattern": "needle"})).await;
    let window = format!("…{}needle{}…", "x".repeat(117), "y".repeat(117));
    assert_eq!(answer, format!("{long}:5:{window}"));
    let fetched = fetched_lines(&server, &long).await;
    assert_eq!(fetched[4], long_line());
}

#[tokio::test]
async fn a_bad_regex_is_refused_as_the_pattern_argument() {
    let site = support::Server::start(site);
    let server = server();
    let args = json!({"url": site.url("/a"), "pattern": "a(b", "regex": true});
    let result = call(&server, "web_grep", args).await;
    assert!(result.is_error());
    let text = result.text();
    assert!(
        text.starts_with(
            "web_grep: the parameter \"pattern\" was refused: the pattern is not a valid regex"
        ),
        "{text}"
    );
    assert!(text.contains("unclosed group"), "{text}");
    assert_eq!(
        result.structured_content(),
        Some(&json!({
            "kind": "bad_arguments",
            "rule": "regex-syntax",
            "config_key": null,
            "parameter": "pattern",
        }))
    );
    assert_eq!(
        site.connections(),
        0,
        "nothing is fetched for a bad pattern"
    );
}

#[tokio::test]
async fn a_failed_start_page_is_the_error() {
    let site = support::Server::start(site);
    let server = server();
    for depth in [0, 1] {
        let args = json!({"url": site.url("/missing"), "pattern": "x", "depth": depth});
        let result = call(&server, "web_grep", args).await;
        assert!(result.is_error(), "{}", result.text());
        let data = result.structured_content().expect("structured content");
        assert_eq!(data["kind"], "http", "{data}");
    }
}

#[tokio::test]
async fn no_match_is_an_answer_naming_the_pages_searched() {
    let site = support::Server::start(site);
    let server = server();
    let root = site.url("/");
    let answer = grep(
        &server,
        json!({"url": root, "pattern": "zebra", "depth": 1}),
    )
    .await;
    let private = site.url("/private");
    let (head, refused) = answer
        .split_once(&format!("\n\nNot searched:\n{private}  "))
        .expect("the refused page is listed");
    assert_eq!(
        head,
        format!(
            "No line matched \"zebra\" in 4 pages from {root} (depth 1).\n\n{root}\n{}\n{}\n{}",
            site.url("/a"),
            site.url("/b"),
            site.url("/c")
        )
    );
    assert!(refused.contains("Disallow: /private"), "{refused}");
    assert!(!refused.contains('\n'), "one line per page: {refused}");
}

#[tokio::test]
async fn depth_0_never_asks_for_robots_txt() {
    let site = support::Server::start(site);
    let server = server();
    let private = site.url("/private");
    let answer = grep(&server, json!({"url": private, "pattern": "secret"})).await;
    assert_eq!(answer, format!("{private}:3:A secret needle."));
    assert_eq!(site.requests("/robots.txt"), 0);
    assert_eq!(site.requests("/private"), 1);
}

#[tokio::test]
async fn depth_1_follows_the_links_and_obeys_robots_txt() {
    let site = support::Server::start(site);
    let server = server();
    let [root, a, b, c] = ["/", "/a", "/b", "/c"].map(|p| site.url(p));
    let args = json!({"url": root, "pattern": "needle", "depth": 1, "max-results": 1000});
    let answer = grep(&server, args).await;
    assert_eq!(
        answer,
        format!(
            "{root}:3:Start here: a needle waits on some pages.\n\
             {a}:3:The first needle of page A.\n\
             {a}:8:  needle in a preformatted line\n\
             {b}:3:Two needles: needle and needle.\n\
             {b}:5:A second needle line.\n\
             {c}:3:A needle on page C.\n\
             \n\
             [1 of 5 pages could not be searched (an HTTP error, a refused address or \
             robots.txt); web_crawl lists each with its reason]"
        )
    );
    assert_numbered_as_web_fetch(&server, &answer, &[root, a, b, c]).await;
    assert_eq!(site.requests("/private"), 0, "robots.txt disallows it");
    assert_eq!(site.requests("/robots.txt"), 1, "read once for the origin");
}

#[tokio::test]
async fn no_page_is_fetched_once_max_results_lines_matched() {
    let site = support::Server::start(site);
    let server = server();
    let [root, a] = ["/", "/a"].map(|p| site.url(p));
    let args = json!({"url": root, "pattern": "needle", "depth": 1, "max-results": 3});
    let answer = grep(&server, args).await;
    assert_eq!(
        answer,
        format!(
            "{root}:3:Start here: a needle waits on some pages.\n\
             {a}:3:The first needle of page A.\n\
             {a}:8:  needle in a preformatted line\n\
             \n\
             [stopped at 3 matching lines; raise max-results to see more]"
        )
    );
    assert_eq!((site.requests("/"), site.requests("/a")), (1, 1));
    for after in ["/b", "/c", "/private"] {
        assert_eq!(site.requests(after), 0, "{after} is not fetched");
    }
    // Within one page, the lines past the limit are not shown.
    let answer = grep(
        &server,
        json!({"url": a, "pattern": "needle", "max-results": 1}),
    )
    .await;
    assert_eq!(
        answer,
        format!(
            "{a}:3:The first needle of page A.\n\n\
             [stopped at 1 matching line; raise max-results to see more]"
        )
    );
}

#[tokio::test]
async fn max_pages_stops_the_walk_and_says_which_key_to_raise() {
    let site = support::Server::start(site);
    let server = server();
    let [root, a] = ["/", "/a"].map(|p| site.url(p));
    let args = json!({"url": root, "pattern": "needle of", "depth": 1, "max-pages": 2});
    let answer = grep(&server, args).await;
    assert_eq!(
        answer,
        format!(
            "{a}:3:The first needle of page A.\n\n\
             [stopped after 2 pages; raise max-pages to go further]"
        )
    );
    assert_eq!(site.requests("/b"), 0);
}

#[tokio::test]
async fn progress_is_reported_per_page() {
    let site = support::Server::start(site);
    let server = server();
    let (sink, mut notes) = tokio::sync::mpsc::unbounded_channel::<Notification>();
    let args = object(json!({"url": site.url("/"), "pattern": "needle", "depth": 1}));
    let call = Call::new("web_grep", args)
        .with_progress_token(json!("grep-1"))
        .with_notifications(sink);
    let outcome = server.dispatch(call).await;
    assert!(
        outcome.result().is_some_and(|r| !r.is_error()),
        "{outcome:?}"
    );
    let mut progress = Vec::new();
    while let Ok(Notification { params, .. }) = notes.try_recv() {
        assert_eq!(params["progressToken"], "grep-1");
        assert_eq!(params["total"], json!(20.0));
        progress.push((
            params["progress"].as_f64().unwrap_or(-1.0),
            params["message"].as_str().unwrap_or_default().to_owned(),
        ));
    }
    let expected = [
        (1.0, format!("searched {}: 1 matching line", site.url("/"))),
        (
            2.0,
            format!("searched {}: 2 matching lines", site.url("/a")),
        ),
        (
            3.0,
            format!("searched {}: 2 matching lines", site.url("/b")),
        ),
        // `/private`, refused by robots.txt, was not requested: no notification.
        (4.0, format!("searched {}: 1 matching line", site.url("/c"))),
    ];
    assert_eq!(progress, expected);
}

/// A context of the test configuration, a cancellation and its call, the pattern
/// `needle` and the options of a grep at `depth` (20 pages, 50 results).
fn needle_grep(
    depth: usize,
) -> (
    Context,
    CancellationToken,
    mcp_web_core::fetch::Allowance,
    Pattern,
    GrepOptions,
) {
    let settings = parse_web_config(&config()).expect("valid settings");
    let context = Context::new(settings).expect("a context");
    let cancel = CancellationToken::new();
    let call = context.allowance(cancel.clone());
    let pattern = Pattern::new("needle", false, false).expect("a pattern");
    let options = GrepOptions {
        depth,
        max_pages: 20,
        max_results: 50,
        context: 0,
    };
    (context, cancel, call, pattern, options)
}

#[tokio::test]
async fn cancellation_stops_fetching() {
    // `/slow` answers only once the test lets it; `/after` must never be asked for.
    let (arrived, on_arrival) = mpsc::channel::<()>();
    let (release, gate) = mpsc::channel::<()>();
    let (arrived, gate) = (Mutex::new(arrived), Arc::new(Mutex::new(gate)));
    let site = support::Server::start(move |path| match path {
        "/" => html(
            "Home",
            "<p>A needle.</p><p><a href=\"/slow\">slow</a> <a href=\"/after\">after</a></p>",
        ),
        "/slow" => {
            let _ = arrived.lock().expect("test rig").send(());
            // A hang guard, not a measurement: the test releases or drops the gate.
            let _ = gate
                .lock()
                .expect("test rig")
                .recv_timeout(Duration::from_secs(30));
            html("Slow", "<p>needle</p>")
        }
        _ => html("After", "<p>needle</p>"),
    });
    let (context, cancel, call, pattern, options) = needle_grep(1);
    let url = site.url("/");
    let running = tokio::spawn(async move {
        mcp_web::ops::grep::grep(&context, &url, &pattern, &options, &call, &()).await
    });
    tokio::task::spawn_blocking(move || on_arrival.recv())
        .await
        .expect("the waiter runs")
        .expect("/slow is asked for");
    cancel.cancel();
    let outcome = running.await.expect("the grep task ends");
    assert!(matches!(outcome, Err(Error::Cancelled)), "{outcome:?}");
    drop(release);
    assert_eq!(site.requests("/slow"), 1);
    assert_eq!(
        site.requests("/after"),
        0,
        "nothing is fetched after cancellation"
    );
}

/// Runs `mcp-web grep ARGS…` and returns its exit status, stdout and stderr.
fn run(args: &[&str]) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_mcp-web"))
        .arg("grep")
        .args(args)
        .output()
        .expect("the mcp-web binary runs");
    (
        status.code().expect("an exit code"),
        String::from_utf8(stdout).expect("utf-8 stdout"),
        String::from_utf8(stderr).expect("utf-8 stderr"),
    )
}

#[test]
fn the_command_prints_what_web_grep_answers() {
    let site = support::Server::start(site);
    let a = site.url("/a");
    let (code, out, err) = run(&[&a, "needle", "--allow-loopback"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        format!("{a}:3:The first needle of page A.\n{a}:8:  needle in a preformatted line\n")
    );
    let (code, out, _) = run(&[
        &a,
        "^needle",
        "--regex",
        "--ignore-case",
        "--allow-loopback",
    ]);
    assert_eq!((code, out), (0, format!("{a}:9:Needle with a capital.\n")));
    // No match is an answer.
    let (code, out, _) = run(&[&a, "zebra", "--allow-loopback"]);
    assert_eq!(
        (code, out),
        (
            0,
            format!("No line matched \"zebra\" in 1 page from {a} (depth 0).\n\n{a}\n")
        )
    );
}

/// The JSON object of each line of `out`.
fn json_lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn the_command_prints_one_json_object_per_match() {
    let site = support::Server::start(site);
    let root = site.url("/");
    let args = [
        root.as_str(),
        "needle",
        "--json",
        "--depth",
        "1",
        "--max-results",
        "2",
        "--crawl-delay",
        "0",
        "--allow-loopback",
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        json_lines(&out),
        [
            json!({"url": root, "line": 3, "text": "Start here: a needle waits on some pages.", "cut": false, "context": false}),
            json!({"url": site.url("/a"), "line": 3, "text": "The first needle of page A.", "cut": false, "context": false}),
        ]
    );
    assert_eq!(
        err,
        "mcp-web: [stopped at 2 matching lines; raise max-results to see more]\n"
    );
    assert_eq!(site.requests("/b"), 0);
}

#[test]
fn the_command_exits_1_when_refused_and_2_on_a_bad_pattern_or_configuration() {
    let site = support::Server::start(site);
    let a = site.url("/a");
    let (code, out, err) = run(&[&a, "needle"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("allow-loopback"), "{err}");
    let (code, _, err) = run(&[&a, "a(b", "--regex", "--allow-loopback"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("regex") && err.contains("unclosed group"),
        "{err}"
    );
    let (code, _, err) = run(&[&a, "needle", "--allow-loopback", "--max-bytes", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("max-bytes"), "{err}");
    let (code, _, _) = run(&[&a, "needle", "--depth", "6"]);
    assert_eq!(code, 2);
    assert_eq!(site.connections(), 0, "no refused call reached the site");
}

/// A grep answer longer than `max-chars` is cut on a line, with a notice naming the cap and
/// the keys that shorten it, as web_fetch's answer is.
#[tokio::test]
async fn an_answer_over_max_chars_is_cut_and_says_so() {
    let site = support::Server::start(|_path: &str| {
        let body: String = (0..200)
            .map(|i| {
                format!("<p>needle number {i} in a line long enough to count</p><p>between</p>")
            })
            .collect();
        response("text/html", &format!("<title>Many</title>{body}"))
    });
    let web = Web::from_config(&json!({"allow-loopback": true, "max-chars": 1000}))
        .expect("a valid Web config");
    let server = Server::new("mcp-web-test", "0").plug(web);
    let answer = grep(
        &server,
        json!({"url": site.url("/"), "pattern": "needle", "max-results": 200}),
    )
    .await;
    let (kept, notice) = answer
        .rsplit_once("\n\n")
        .expect("a notice after the kept lines");
    assert!(kept.chars().count() <= 1000, "{kept}");
    assert!(
        kept.lines().all(|l| l.contains(":needle number ")),
        "{kept}"
    );
    assert_eq!(
        notice,
        format!(
            "[truncated: kept the first {} characters because the answer cap of 1000 characters was reached; raise max-chars to keep more, or lower max-results]",
            kept.chars().count()
        )
    );
    // Lines of context count toward the cap too.
    let answer = grep(
        &server,
        json!({"url": site.url("/"), "pattern": "needle", "max-results": 200, "context": 5}),
    )
    .await;
    let (kept, notice) = answer.rsplit_once("\n\n").expect("a notice");
    assert!(kept.chars().count() <= 1000, "{kept}");
    assert!(kept.contains("-between\n"), "{kept}");
    assert!(
        notice.starts_with("[truncated: kept the first "),
        "{notice}"
    );
}

/// CPU seconds this process has used (`/proc/self/stat`, user + system).
fn process_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("procfs");
    let after = &stat[stat.rfind(')').expect("the command's end") + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    ticks as f64 / 100.0
}

/// Two megabytes of `a` and `b` in one line: a lazy DFA for "an `a` twenty letters
/// before a `c`" needs a new state at nearly every byte.
fn random_ab_line() -> String {
    let mut seed = 0x2545_f491_u32;
    (0..1_900_000)
        .map(|_| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            if seed >> 31 == 0 { 'a' } else { 'b' }
        })
        .collect()
}

#[tokio::test]
async fn a_pattern_too_costly_to_match_is_a_typed_error_in_bounded_cpu() {
    let line = random_ab_line();
    let site = support::Server::start(move |_| response("text/plain", &format!("{line}\n")));
    let server = server();
    let before = process_cpu_seconds();
    let result = call(
        &server,
        "web_grep",
        json!({"url": site.url("/"), "pattern": "[ab]*a[ab]{20}c", "regex": true}),
    )
    .await;
    let spent = process_cpu_seconds() - before;
    assert!(result.is_error(), "{}", result.text());
    let text = result.text();
    assert!(
        text.contains("gave up matching the regex \"[ab]*a[ab]{20}c\"")
            && text.contains("at line 3")
            && text.contains("No configuration key raises this budget"),
        "{text}"
    );
    let structured = serde_json::to_string(&result.structured_content()).expect("JSON");
    assert!(structured.contains("pattern-too-costly"), "{structured}");
    // Unbounded, the NFA simulation would take states × 1.9 MB steps: minutes here.
    assert!(spent < 15.0, "the call took {spent} s of CPU");
}

/// An observer that runs its function once the page's text is extracted, before it is
/// searched.
struct AfterExtraction<F: Fn() + Send + Sync>(F);

impl<F: Fn() + Send + Sync> mcp_web::ops::Observer for AfterExtraction<F> {
    fn progress(&self, _done: f64, _total: Option<f64>, message: &str) {
        if message == "done" {
            (self.0)();
        }
    }
}

#[tokio::test]
async fn a_cancellation_stops_matching() {
    let site = support::Server::start(|_| response("text/plain", &"needle\n".repeat(1000)));
    let (context, cancel, call, pattern, options) = needle_grep(0);
    let observer = AfterExtraction(move || cancel.cancel());
    let outcome = mcp_web::ops::grep::grep(
        &context,
        &site.url("/"),
        &pattern,
        &options,
        &call,
        &observer,
    )
    .await;
    assert!(matches!(outcome, Err(Error::Cancelled)), "{outcome:?}");
}

/// Asserts that every line of `answer` up to its first blank line is `--` or a line of
/// the `web_fetch` answer for `url`: `url:line:text` when it matches `needle`,
/// `url-line-text` when it does not.
async fn assert_context_numbered_as_web_fetch(server: &Server, answer: &str, url: &str) {
    let fetched = fetched_lines(server, url).await;
    for shown in answer.lines().take_while(|l| !l.is_empty()) {
        if shown == "--" {
            continue;
        }
        let rest = shown.strip_prefix(url).expect("a line of the page");
        let sep = rest.chars().next().expect("a separator");
        let (line, text) = rest[1..].split_once(sep).expect("url line text");
        let line: usize = line.parse().expect("a line number");
        assert_eq!(fetched[line - 1], text, "line {line} of {url}");
        assert_eq!(sep == ':', text.contains("needle"), "{shown}");
    }
}

#[tokio::test]
async fn context_shows_the_lines_around_each_match_as_grep_does() {
    let site = support::Server::start(site);
    let server = server();
    let page = site.url("/context");
    let args = |context: u64, max_results: u64| json!({"url": page, "pattern": "needle", "context": context, "max-results": max_results});
    // 4 and 6 overlap at 5, 6's group ends at 7 where 9's begins: one group.
    let first = format!(
        "{page}-3-alpha\n{page}:4:needle one\n{page}-5-beta\n{page}:6:needle two\n\
         {page}-7-gamma\n{page}-8-delta\n{page}:9:needle three\n{page}-10-epsilon\n"
    );
    let answer = grep(&server, args(1, 50)).await;
    // 13 and 14 side by side, and 17 the page's last line, whose group touches theirs
    // at 16; line 11 lies between the two groups.
    assert_eq!(
        answer,
        format!(
            "{first}--\n{page}-12-eta\n{page}:13:needle four\n{page}:14:needle five\n\
             {page}-15-theta\n{page}-16-iota\n{page}:17:needle six"
        )
    );
    assert_context_numbered_as_web_fetch(&server, &answer, &page).await;
    // Two lines around: every group merges, and the first reaches into the header.
    let answer = grep(&server, args(2, 50)).await;
    let lines: Vec<&str> = answer.lines().collect();
    assert_eq!(lines.len(), 16, "{answer}");
    assert!(!answer.contains("\n--\n"), "{answer}");
    assert!(lines[0].starts_with(&format!("{page}-2-")), "{answer}");
    assert_context_numbered_as_web_fetch(&server, &answer, &page).await;
    // max-results counts matching lines only; the last kept match keeps its context.
    let answer = grep(&server, args(1, 2)).await;
    let (two, _) = first.split_at(first.find("-8-").expect("line 8") - page.len());
    assert_eq!(
        answer,
        format!("{two}\n[stopped at 2 matching lines; raise max-results to see more]")
    );
    // A match past the limit inside that context is shown as context, as grep -m does.
    let answer = grep(&server, args(1, 4)).await;
    assert_eq!(
        answer,
        format!(
            "{first}--\n{page}-12-eta\n{page}:13:needle four\n{page}-14-needle five\n\n\
             [stopped at 4 matching lines; raise max-results to see more]"
        )
    );
}

#[tokio::test]
async fn context_groups_on_different_pages_are_separated() {
    let site = support::Server::start(site);
    let server = server();
    let (root, a) = (site.url("/"), site.url("/a"));
    let answer = grep(
        &server,
        json!({"url": root, "pattern": "needle", "depth": 1, "max-results": 2, "context": 1}),
    )
    .await;
    let fetched_root = fetched_lines(&server, &root).await;
    let fetched_a = fetched_lines(&server, &a).await;
    assert_eq!(
        answer,
        format!(
            "{root}-2-{}\n{root}:3:{}\n{root}-4-{}\n--\n{a}-2-{}\n{a}:3:{}\n{a}-4-{}\n\n\
             [stopped at 2 matching lines; raise max-results to see more]",
            fetched_root[1],
            fetched_root[2],
            fetched_root[3],
            fetched_a[1],
            fetched_a[2],
            fetched_a[3],
        )
    );
}

#[tokio::test]
async fn context_past_five_is_refused_naming_the_bound() {
    let site = support::Server::start(site);
    let server = server();
    let args = json!({"url": site.url("/context"), "pattern": "needle", "context": 6});
    let result = call(&server, "web_grep", args).await;
    assert!(result.is_error());
    let text = result.text();
    assert!(text.contains("\"context\"") && text.contains('5'), "{text}");
    let data = result.structured_content().expect("structured content");
    assert_eq!(data["parameter"], "context", "{data}");
    assert_eq!(data["rule"], "out_of_range", "{data}");
    assert_eq!(
        site.connections(),
        0,
        "nothing is fetched for a bad context"
    );
}

#[test]
fn the_command_takes_context_as_dash_c_and_refuses_past_five() {
    let site = support::Server::start(site);
    let page = site.url("/context");
    let with = |flags: &[&str]| {
        let mut args = vec![
            page.as_str(),
            "needle",
            "--max-results",
            "1",
            "--allow-loopback",
        ];
        args.extend_from_slice(flags);
        run(&args)
    };
    let (code, out, err) = with(&["-C", "1"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        format!(
            "{page}-3-alpha\n{page}:4:needle one\n{page}-5-beta\n\n\
             [stopped at 1 matching line; raise max-results to see more]\n"
        )
    );
    let (code, long, _) = with(&["--context", "1"]);
    assert_eq!((code, long), (0, out));
    let (code, out, _) = with(&["-C", "1", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(
        json_lines(&out),
        [
            json!({"url": page, "line": 3, "text": "alpha", "cut": false, "context": true}),
            json!({"url": page, "line": 4, "text": "needle one", "cut": false, "context": false}),
            json!({"url": page, "line": 5, "text": "beta", "cut": false, "context": true}),
        ]
    );
    let requests = site.connections();
    let (code, out, err) = with(&["-C", "6"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("--context") && err.contains("0..=5"), "{err}");
    assert_eq!(
        site.connections(),
        requests,
        "a refused context fetches nothing"
    );
}

#[tokio::test]
async fn a_costly_match_does_not_hold_up_another_call() {
    // One thread runs both calls (the test's runtime is single-threaded): a match that
    // ran on it would hold the light fetch until the match ended.
    let line = random_ab_line();
    let site = support::Server::start(move |path| match path {
        "/heavy" => response("text/plain", &format!("{line}\n")),
        _ => html("Light", "<p>A light page.</p>"),
    });
    let (context, _cancel, heavy_call, _, options) = needle_grep(0);
    let light_call = context.allowance(CancellationToken::new());
    let pattern = Pattern::new("[ab]*a[ab]{20}c", true, false).expect("a pattern");
    let matching = Arc::new(tokio::sync::Notify::new());
    let notify = Arc::clone(&matching);
    let observer = AfterExtraction(move || notify.notify_one());
    let heavy_done = std::sync::atomic::AtomicBool::new(false);
    let heavy = async {
        let outcome = mcp_web::ops::grep::grep(
            &context,
            &site.url("/heavy"),
            &pattern,
            &options,
            &heavy_call,
            &observer,
        )
        .await;
        heavy_done.store(true, std::sync::atomic::Ordering::SeqCst);
        outcome
    };
    let light = async {
        matching.notified().await;
        let fetched = mcp_web::ops::fetch::fetch(&context, &site.url("/light"), &light_call, &())
            .await
            .expect("the light page");
        (
            fetched.text.body().join("\n"),
            heavy_done.load(std::sync::atomic::Ordering::SeqCst),
        )
    };
    let (heavy, (light, heavy_was_done)) = tokio::join!(heavy, light);
    assert!(light.contains("A light page."), "{light}");
    assert!(
        !heavy_was_done,
        "the light fetch waited for the costly match to end"
    );
    // The costly match still ends as it should.
    assert!(matches!(heavy, Err(Error::Pattern(_))), "{heavy:?}");
}
