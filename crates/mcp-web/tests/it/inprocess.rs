//! The Web pack run in process through `mcp_kit::Server::call`, without a transport:
//! `web_fetch` of a page on a loopback test site (port 0) permitted with
//! `allow-loopback` (its progress collected), the same site refused by the default
//! policy, a bad URL and a missing argument.

use mcp_kit::{Call, FromConfig, Notification, Outcome, Server, ToolResult};
use mcp_web::tools::Web;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::support;

/// The one page of the test site.
fn site(_path: &str) -> Vec<u8> {
    let body = "<html><head><title>Grammars</title></head><body><nav>menu</nav>\
                <h1>Grammars</h1><p>Grammars are a powerful tool.</p><script>x()</script></body></html>";
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A server offering the Web pack built from `config`.
fn server(config: Value) -> Server {
    let web = Web::from_config(&config).expect("a valid Web config");
    Server::new("mcp-web-test", "0").plug(web)
}

/// Calls `web_fetch` with `args` and returns its result.
async fn fetch(server: &Server, args: Value) -> ToolResult {
    let args: Map<String, Value> = args.as_object().cloned().expect("an argument object");
    match server.call("web_fetch", args).await {
        Outcome::Answered(result) => result,
        other => panic!("web_fetch answers, not {other:?}"),
    }
}

#[tokio::test]
async fn a_permitted_page_is_answered_with_its_title_and_text() {
    let site = support::Server::start(site);
    let server = server(json!({"allow-loopback": true}));
    let result = fetch(&server, json!({"url": site.url("/")})).await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.text(), "# Grammars\n\nGrammars are a powerful tool.");
    assert_eq!(result.structured_content(), None);
    assert_eq!(site.requests("/"), 1);
}

#[tokio::test]
async fn progress_is_reported_when_fetching_starts_when_the_page_arrived_and_at_the_end() {
    let site = support::Server::start(site);
    let server = server(json!({"allow-loopback": true}));
    let url = site.url("/");
    let (sink, mut notes) = mpsc::unbounded_channel::<Notification>();
    let call = Call::new(
        "web_fetch",
        Map::from_iter([("url".to_owned(), json!(url))]),
    )
    .with_progress_token(json!("fetch-1"))
    .with_notifications(sink);
    let outcome = server.dispatch(call).await;
    assert!(
        outcome.result().is_some_and(|r| !r.is_error()),
        "{outcome:?}"
    );
    let mut progress = Vec::new();
    while let Ok(Notification { method, params }) = notes.try_recv() {
        assert_eq!(method, "notifications/progress");
        assert_eq!(params["progressToken"], "fetch-1");
        assert_eq!(params["total"], json!(2.0));
        let message = params["message"].as_str().unwrap_or_default().to_owned();
        progress.push((params["progress"].as_f64().unwrap_or(-1.0), message));
    }
    assert_eq!(progress.len(), 3, "{progress:?}");
    assert_eq!(progress[0], (0.0, format!("fetching {url}")));
    assert_eq!(progress[1].0, 1.0);
    assert!(
        progress[1].1.starts_with("received ")
            && progress[1].1.ends_with(&format!(" bytes from {url}")),
        "{progress:?}"
    );
    assert_eq!(progress[2], (2.0, "done".to_owned()));
}

#[tokio::test]
async fn the_default_policy_refuses_loopback_as_a_tool_error() {
    let site = support::Server::start(site);
    let server = server(json!({}));
    let url = site.url("/");
    let result = fetch(&server, json!({"url": url})).await;
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "refused 127.0.0.1: loopback address (RFC 1122, Loopback 127.0.0.0/8); the server \
         does not connect to it. To permit it, set \"allow-loopback\": true, or add an \
         \"allow-cidrs\" entry covering 127.0.0.1."
    );
    assert_eq!(
        result.structured_content(),
        Some(&json!({
            "kind": "blocked",
            "rule": "loopback",
            "config_key": "allow-loopback",
            "host": "127.0.0.1",
            "address": "127.0.0.1",
            "class": "loopback",
            "block": "127.0.0.0/8",
            "rfc": "RFC 1122",
        }))
    );
    assert_eq!(
        site.connections(),
        0,
        "a refused address gets no connection"
    );
}

#[tokio::test]
async fn a_bad_url_is_a_tool_error_naming_the_rule() {
    let server = server(json!({}));
    let result = fetch(&server, json!({"url": "file:///etc/passwd"})).await;
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "refused file:///etc/passwd: the scheme 'file' is not fetched; only http and https \
         URLs are. No configuration key permits another scheme."
    );
    assert_eq!(
        result.structured_content(),
        Some(&json!({
            "kind": "bad_url",
            "rule": "scheme",
            "config_key": null,
            "url": "file:///etc/passwd",
        }))
    );
}

#[tokio::test]
async fn a_missing_url_is_a_tool_error_naming_the_parameter() {
    let server = server(json!({}));
    let result = fetch(&server, json!({})).await;
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "web_fetch: the parameter \"url\" is required and takes a string"
    );
    assert_eq!(
        result.structured_content(),
        Some(&json!({
            "kind": "bad_arguments",
            "rule": "missing_parameter",
            "config_key": null,
            "parameter": "url",
        }))
    );
}

/// Answers with header values of 300,000 characters: a `Retry-After` on a 429, a
/// `Content-Type` that is not text, a `Content-Encoding` no one knows.
fn oversized(path: &str) -> Vec<u8> {
    let long = "x".repeat(300_000);
    let (status, header) = match path {
        "/retry" => (429, format!("retry-after: {long}")),
        "/type" => (200, format!("content-type: image/{long}")),
        _ => (200, format!("content-encoding: {long}")),
    };
    format!("HTTP/1.1 {status} X\r\n{header}\r\ncontent-length: 2\r\n\r\nhi").into_bytes()
}

#[tokio::test]
async fn oversized_header_values_are_cut_in_the_message_and_it_respects_max_chars() {
    let site = support::Server::start(oversized);
    // The smallest answer cap there is.
    let server = server(json!({"allow-loopback": true, "max-chars": 1000}));
    for path in ["/retry", "/type", "/encoding"] {
        let result = fetch(&server, json!({"url": site.url(path)})).await;
        assert!(result.is_error(), "{path}: {}", result.text());
        let text = result.text();
        let chars = text.chars().count();
        assert!(chars <= 1000, "{path}: {chars} characters");
        assert!(text.contains(&"x".repeat(90)), "{path}: {text}");
        assert!(!text.contains(&"x".repeat(101)), "{path}: {text}");
    }
}
