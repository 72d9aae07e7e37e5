//! The HTTP cache across the calls of one server, run in process: an agent's crawl, then
//! a grep of the same site at the same depth, then a fetch of the page that matched,
//! makes one request per page over the three calls, and the answers are those of a
//! server without a cache but for the index's `(cached)` marks. Over `serve --http` the
//! cache is shared and keeps no `private` response; over stdio it does.

use mcp_kit::{FromConfig, Server};
use mcp_web::tools::Web;
use serde_json::json;

use crate::permission::{modern_fetch, post_call};
use crate::site::call;
use crate::support;
use crate::tools::StdioServer;

/// A page of the site: the home page links three leaves; each page is fresh for ten
/// minutes.
fn page(path: &str) -> Vec<u8> {
    let body = match path {
        "/" => "<title>Home</title><h1>Home</h1><p>The manual: \
                <a href=\"/install\">install</a>, <a href=\"/usage\">usage</a>, \
                <a href=\"/faq\">faq</a>.</p>"
            .to_owned(),
        "/robots.txt" => {
            return b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_vec();
        }
        leaf => format!(
            "<title>{leaf}</title><h1>{leaf}</h1><p>How to read {leaf}.</p>\
             <p>{}</p>",
            if leaf == "/usage" {
                "Run mcp-web serve."
            } else {
                "Nothing to run."
            }
        ),
    };
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n\
         cache-control: max-age=600\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn server(cache_bytes: u64) -> Server {
    let config = json!({"allow-loopback": true, "crawl-delay": 0, "cache-bytes": cache_bytes});
    let web = Web::from_config(&config).expect("a valid Web config");
    Server::new("mcp-web-test", "0").plug(web)
}

/// The three calls of the agent's session, their answers in order.
async fn session(server: &Server, site: &support::Server) -> Vec<String> {
    let home = site.url("/");
    vec![
        call(server, "web_crawl", json!({"url": home, "depth": 1})).await,
        call(
            server,
            "web_grep",
            json!({"url": home, "pattern": "mcp-web serve", "depth": 1}),
        )
        .await,
        call(server, "web_fetch", json!({"url": site.url("/usage")})).await,
    ]
}

#[tokio::test]
async fn crawl_then_grep_then_fetch_requests_each_page_once() {
    let site = support::Server::start(page);
    let cached = server(64 << 20);
    let answers = session(&cached, &site).await;
    for path in ["/", "/install", "/usage", "/faq", "/robots.txt"] {
        assert_eq!(site.requests(path), 1, "{path}: {:?}", site.paths());
    }
    assert_eq!(site.paths().len(), 5);
    assert!(answers[1].contains("/usage:"), "{}", answers[1]);

    // Without a cache every call asks again; the answers are the same but for the marks.
    let plain_site = support::Server::start(page);
    let plain = server(0);
    let expected = session(&plain, &plain_site).await;
    assert_eq!(plain_site.requests("/usage"), 3);
    let port = |s: &support::Server| s.url("/");
    let unmarked: Vec<String> = answers
        .iter()
        .map(|a| {
            a.replace("  (cached)", "")
                .replace(&port(&site), &port(&plain_site))
        })
        .collect();
    assert_eq!(unmarked, expected);
    assert!(!answers[0].contains("(cached)"), "{}", answers[0]);

    // A second crawl is answered from the cache and says so on each line.
    let again = call(
        &cached,
        "web_crawl",
        json!({"url": site.url("/"), "depth": 1}),
    )
    .await;
    assert_eq!(again.matches("  (cached)").count(), 4, "{again}");
    assert_eq!(site.paths().len(), 5);
}

/// An origin whose `/private` is for one user (`Cache-Control: private`) and `/public`
/// for anyone; both fresh for ten minutes.
fn private_and_public(path: &str) -> Vec<u8> {
    let control = if path == "/private" {
        "private, max-age=600"
    } else {
        "max-age=600"
    };
    let body = format!("<title>{path}</title><p>The page {path}.</p>");
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n\
         cache-control: {control}\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// `mcp-web serve --http` may serve many users, so its cache is shared: a `private`
/// response is asked for again at every call, while a public one is kept. Over stdio
/// the one user's cache keeps both.
#[tokio::test]
async fn a_private_response_is_kept_over_stdio_and_not_over_http() {
    let origin = support::Server::start(private_and_public);
    let served = crate::serve::serve_http(&["--allow-loopback"], &[]);
    let addr = served
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .expect("the server's address");
    for id in 1..=2 {
        for path in ["/private", "/public"] {
            let answer = post_call(addr, &modern_fetch(id, &origin.url(path), json!({}))).await;
            let text = answer["result"]["content"][0]["text"].as_str();
            let said = format!("The page {path}.");
            assert!(text.is_some_and(|t| t.contains(&said)), "{answer}");
        }
    }
    assert_eq!(
        (origin.requests("/private"), origin.requests("/public")),
        (2, 1)
    );

    let origin = support::Server::start(private_and_public);
    let mut stdio = StdioServer::spawn(&["--allow-loopback"], true);
    for id in 1..=2 {
        for (n, path) in (0..).zip(["/private", "/public"]) {
            let args = json!({"name": "web_fetch", "arguments": {"url": origin.url(path)}});
            let result = stdio.request(10 * id + n, "tools/call", args);
            let text = result["content"][0]["text"].as_str();
            let said = format!("The page {path}.");
            assert!(text.is_some_and(|t| t.contains(&said)), "{result}");
        }
    }
    assert_eq!(
        (origin.requests("/private"), origin.requests("/public")),
        (1, 1)
    );
}
