//! `web_crawl` in process through `mcp_kit::Server::call` and `mcp-web crawl` (the real
//! binary) against a loopback site (port 0) permitted with `allow-loopback`: the exact
//! index, the budget notice, progress per page, cancellation, robots.txt, exit statuses.

use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mcp_kit::{Call, FromConfig, Notification, Outcome, Server, ToolResult};
use mcp_web::tools::Web;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::support;

fn response(status: u16, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status} X\r\ncontent-length: {}\r\n{headers}\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// An HTML page with a title (or none) and links.
fn page(title: Option<&str>, links: &[&str]) -> String {
    let title = title.map_or(String::new(), |t| format!("<title>{t}</title>"));
    let links: String = links
        .iter()
        .map(|l| format!("<a href=\"{l}\">to {l}</a> "))
        .collect();
    format!("<html><head>{title}</head><body><main><p>{links}</p></main></body></html>")
}

const HOME_LINKS: &[&str] = &[
    "/guide",
    "/old",
    "/missing",
    "/private/notes",
    "/guide#intro",
];

/// The test site: a home page, a guide (linking back and deeper), a redirect, a 404
/// and a path robots.txt disallows.
fn site(path: &str) -> Vec<u8> {
    let html = "content-type: text/html; charset=utf-8\r\n";
    match path {
        "/robots.txt" => response(
            200,
            "content-type: text/plain\r\n",
            "User-agent: *\nDisallow: /private\n",
        ),
        "/" => response(200, html, &page(Some("Home"), HOME_LINKS)),
        "/guide" => response(200, html, &page(Some("Guide"), &["/", "/guide/deeper"])),
        "/guide/deeper" => response(200, html, &page(None, &["/"])),
        "/old" => response(301, "location: /new\r\n", ""),
        "/new" => response(200, html, &page(Some("New"), &[])),
        "/missing" => response(404, html, "<title>Not here</title>"),
        _ => response(200, html, &page(Some("Elsewhere"), &[])),
    }
}

/// A server offering the Web pack built from `config`.
fn server(config: Value) -> Server {
    let web = Web::from_config(&config).expect("a valid Web config");
    Server::new("mcp-web-test", "0").plug(web)
}

fn permitted() -> Value {
    json!({"allow-loopback": true, "crawl-delay": 0})
}

/// Calls `web_crawl` with `args` and returns its result.
async fn crawl(server: &Server, args: Value) -> ToolResult {
    let args: Map<String, Value> = args.as_object().cloned().expect("an argument object");
    match server.call("web_crawl", args).await {
        Outcome::Answered(result) => result,
        other => panic!("web_crawl answers, not {other:?}"),
    }
}

/// The index of the test site crawled from `/` at `depth`.
fn index_of(site: &support::Server, depth: usize) -> String {
    let home = page(Some("Home"), HOME_LINKS).len();
    let guide = page(Some("Guide"), &["/", "/guide/deeper"]).len();
    let new = page(Some("New"), &[]).len();
    let deeper = page(None, &["/"]).len();
    let u = |p: &str| site.url(p);
    let mut lines = vec![
        format!("{}  200  {home} bytes  Home", u("/")),
        format!("{}  200  {guide} bytes  Guide", u("/guide")),
        format!(
            "{}  200  {new} bytes  New  [redirected to {}]",
            u("/old"),
            u("/new")
        ),
        format!("{}  404  Not Found", u("/missing")),
        format!(
            "{}  skipped: robots.txt line 2 \"Disallow: /private\"",
            u("/private/notes")
        ),
    ];
    if depth >= 2 {
        lines.push(format!("{}  200  {deeper} bytes", u("/guide/deeper")));
    }
    let fetched = if depth >= 2 { 5 } else { 4 };
    format!(
        "Crawled {fetched} pages from {} (depth {depth}, same origin only).\n\n{}",
        u("/"),
        lines.join("\n")
    )
}

#[tokio::test]
async fn the_index_lists_every_page_once_in_breadth_first_order() {
    let site = support::Server::start(site);
    let server = server(permitted());
    let result = crawl(&server, json!({"url": site.url("/"), "depth": 2})).await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.text(), index_of(&site, 2));
    for path in [
        "/robots.txt",
        "/",
        "/guide",
        "/old",
        "/new",
        "/missing",
        "/guide/deeper",
    ] {
        assert_eq!(site.requests(path), 1, "{path}");
    }
    assert_eq!(site.requests("/private/notes"), 0);

    // The default depth is 1: the deeper page is not requested.
    let other = support::Server::start(site_fn());
    let result = crawl(&server, json!({"url": other.url("/")})).await;
    assert_eq!(result.text(), index_of(&other, 1));
    assert_eq!(other.requests("/guide/deeper"), 0);
}

/// [`site`] as a value the server takes.
fn site_fn() -> impl Fn(&str) -> Vec<u8> + Send + Sync + 'static {
    site
}

#[tokio::test]
async fn max_pages_stops_fetching_and_says_which_key_to_raise() {
    let site = support::Server::start(site);
    let server = server(permitted());
    let result = crawl(
        &server,
        json!({"url": site.url("/"), "depth": 2, "max-pages": 2}),
    )
    .await;
    let home = page(Some("Home"), HOME_LINKS).len();
    let guide = page(Some("Guide"), &["/", "/guide/deeper"]).len();
    assert_eq!(
        result.text(),
        format!(
            "Crawled 2 pages from {} (depth 2, same origin only).\n\n\
             {}  200  {home} bytes  Home\n\
             {}  200  {guide} bytes  Guide\n\n\
             [stopped after 2 pages; raise max-pages to go further]",
            site.url("/"),
            site.url("/"),
            site.url("/guide"),
        )
    );
    assert_eq!(site.requests("/old") + site.requests("/missing"), 0);
}

#[tokio::test]
async fn a_start_url_robots_refuses_and_a_refused_address_are_tool_errors() {
    let site = support::Server::start(|path: &str| {
        if path == "/robots.txt" {
            response(
                200,
                "content-type: text/plain\r\n",
                "User-agent: *\nDisallow: /\n",
            )
        } else {
            response(200, "content-type: text/html\r\n", "<title>x</title>")
        }
    });
    let result = crawl(&server(permitted()), json!({"url": site.url("/")})).await;
    assert!(result.is_error());
    assert!(
        result.text().contains("Disallow: /") && result.text().contains("respect-robots"),
        "{}",
        result.text()
    );
    assert_eq!(site.requests("/"), 0);

    // The default policy refuses loopback before any byte is sent.
    let result = crawl(&server(json!({})), json!({"url": site.url("/")})).await;
    assert!(result.is_error());
    assert!(
        result.text().contains("allow-loopback"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn progress_arrives_once_per_page() {
    let site = support::Server::start(site);
    let server = server(permitted());
    let (sink, mut notes) = mpsc::unbounded_channel::<Notification>();
    let call = Call::new(
        "web_crawl",
        Map::from_iter([
            ("url".to_owned(), json!(site.url("/"))),
            ("max-pages".to_owned(), json!(10)),
        ]),
    )
    .with_progress_token(json!("crawl-1"))
    .with_notifications(sink);
    let outcome = server.dispatch(call).await;
    assert!(
        outcome.result().is_some_and(|r| !r.is_error()),
        "{outcome:?}"
    );
    // The index counts the pages progress reported.
    let header = outcome.result().map(ToolResult::text).unwrap_or_default();
    assert!(
        header.starts_with(&format!("Crawled 4 pages from {} ", site.url("/"))),
        "{header}"
    );
    let mut progress = Vec::new();
    while let Ok(Notification { method, params }) = notes.try_recv() {
        assert_eq!(method, "notifications/progress");
        assert_eq!(params["progressToken"], "crawl-1");
        assert_eq!(params["total"], json!(10.0));
        let message = params["message"].as_str().unwrap_or_default().to_owned();
        progress.push((params["progress"].as_f64().unwrap_or(-1.0), message));
    }
    let u = |p: &str| site.url(p);
    assert_eq!(
        progress,
        [
            (0.0, format!("crawling {}", u("/"))),
            (1.0, u("/")),
            (2.0, u("/guide")),
            (3.0, u("/old")),
            (4.0, u("/missing")),
        ]
    );
}

#[tokio::test]
async fn cancellation_stops_fetching() {
    let cancel = CancellationToken::new();
    let fired = Arc::new(AtomicBool::new(false));
    let (on_guide, flag) = (cancel.clone(), fired.clone());
    let site = support::Server::start(move |path: &str| {
        if path == "/guide" {
            // The client cancels while the second page is being answered.
            flag.store(true, Ordering::SeqCst);
            on_guide.cancel();
        }
        site(path)
    });
    // A delay, however short, means one request at a time.
    let server = server(json!({"allow-loopback": true, "crawl-delay": 0.01}));
    let call = Call::new(
        "web_crawl",
        Map::from_iter([("url".to_owned(), json!(site.url("/")))]),
    )
    .with_cancellation(cancel);
    let outcome = server.dispatch(call).await;
    assert!(matches!(outcome, Outcome::Cancelled(_)), "{outcome:?}");
    assert!(fired.load(Ordering::SeqCst));
    for path in ["/old", "/new", "/missing"] {
        assert_eq!(site.requests(path), 0, "{path} after the cancellation");
    }
}

/// Runs `mcp-web crawl ARGS…`.
fn run(args: &[&str]) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_mcp-web"))
        .arg("crawl")
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
fn the_command_prints_what_web_crawl_answers() {
    let site = support::Server::start(site);
    let url = site.url("/");
    let (code, out, err) = run(&[
        &url,
        "--depth",
        "2",
        "--allow-loopback",
        "--crawl-delay",
        "0",
    ]);
    assert_eq!(
        (code, err.as_str()),
        (0, ""),
        "stderr is not a terminal: no bar"
    );
    assert_eq!(out, format!("{}\n", index_of(&site, 2)));
}

#[test]
fn the_command_prints_one_json_object_per_page() {
    let site = support::Server::start(site);
    let url = site.url("/");
    let (code, out, _) = run(&[&url, "--json", "--allow-loopback", "--crawl-delay", "0"]);
    assert_eq!(code, 0);
    let pages: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(pages.len(), 5);
    assert_eq!(
        pages[0],
        json!({
            "url": url,
            "depth": 0,
            "status": 200,
            "bytes": page(Some("Home"), HOME_LINKS).len(),
            "title": "Home",
            "final_url": null,
            "same_as": null,
            "other_origin": null,
            "error": null,
        })
    );
    assert_eq!(pages[2]["final_url"], json!(site.url("/new")));
    assert_eq!(pages[3]["status"], 404);
    assert_eq!(pages[3]["error"]["rule"], "http-status");
    assert_eq!(pages[4]["error"]["kind"], "robots_refused");
    assert_eq!(pages[4]["error"]["config_key"], "respect-robots");
}

#[test]
fn the_command_exits_1_when_refused_and_2_on_a_configuration_error() {
    let site = support::Server::start(site);
    let (code, out, err) = run(&[&site.url("/")]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("allow-loopback"), "{err}");
    assert_eq!(site.connections(), 0);

    let (code, _, err) = run(&[&site.url("/"), "--crawl-delay", "soon"]);
    assert_eq!(code, 2);
    assert!(err.contains("crawl-delay"), "{err}");

    let (code, _, _) = run(&[&site.url("/"), "--depth", "6"]);
    assert_eq!(code, 2);
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_listed_and_not_followed() {
    let other = support::Server::start(site);
    let elsewhere = other.url("/landing");
    let target = elsewhere.clone();
    let start = support::Server::start(move |path| {
        let html = "content-type: text/html; charset=utf-8\r\n";
        match path {
            "/" => response(200, html, &page(Some("Home"), &["/out"])),
            "/out" => response(302, &format!("location: {target}\r\n"), ""),
            _ => response(404, html, ""),
        }
    });
    let server = server(permitted());
    let result = crawl(&server, json!({"url": start.url("/")})).await;
    assert!(!result.is_error(), "{}", result.text());
    let out = start.url("/out");
    assert!(
        result.text().contains(&format!(
            "\n{out}  redirects to {elsewhere} (another origin, not followed)"
        )),
        "{}",
        result.text()
    );
    assert_eq!(
        other.paths(),
        Vec::<String>::new(),
        "nothing asked of the other origin"
    );
}
