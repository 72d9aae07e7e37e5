//! With `ask-permission`, `web_crawl` and `web_grep` put a start URL on loopback, which
//! the default policy refuses, to the user, in process (the user's answer supplied by
//! the test): the form names the tool, the host, the address, the class, its RFC and
//! the key; `allow once` walks the site exactly as `allow-loopback` would, and the next
//! call is asked again and reaches nothing; `deny`, a declined or a cancelled form give
//! the original refusal, and the site, a canary, sees no connection.

use mcp_kit::{Ask, Call, FromConfig, NeedsInput, Outcome, Server, ToolResult};
use mcp_web::tools::Web;
use serde_json::{Map, Value, json};

use crate::support;

fn response(status: u16, content_type: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn html(title: &str, body: &str) -> Vec<u8> {
    let page = format!("<html><head><title>{title}</title></head><body>{body}</body></html>");
    response(200, "text/html; charset=utf-8", &page)
}

/// A small site: a home page linking to two pages and a private one robots.txt
/// disallows; a needle on the home page and on the first page.
fn site(path: &str) -> Vec<u8> {
    match path {
        "/robots.txt" => response(200, "text/plain", "User-agent: *\nDisallow: /private\n"),
        "/" => html(
            "Home",
            "<p>A needle at home.</p><p><a href=\"/a\">first</a> <a href=\"/b\">second</a> \
             <a href=\"/private\">private</a></p>",
        ),
        "/a" => html("First", "<p>Another needle here.</p>"),
        "/b" => html("Second", "<p>Nothing to see.</p>"),
        _ => response(404, "text/html", "<title>Not here</title>"),
    }
}

/// A server offering the Web pack built from `config`, with no politeness delay.
fn server(mut config: Value) -> Server {
    config["crawl-delay"] = json!(0);
    let web = Web::from_config(&config).expect("a valid Web config");
    Server::new("mcp-web-test", "0").plug(web)
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

/// A call of `tool` with `args` from a client that can be asked.
fn askable(tool: &str, args: &Value) -> Call {
    Call::new(tool, object(args.clone())).with_user_forms(true)
}

/// The answer a user gives the form.
fn answer(action: &str, decision: Option<&str>) -> Map<String, Value> {
    let mut response = json!({"action": action});
    if let Some(decision) = decision {
        response["content"] = json!({"decision": decision});
    }
    object(json!({"permission": response}))
}

/// The result of a call that answers.
fn answered(outcome: Outcome) -> ToolResult {
    match outcome {
        Outcome::Answered(result) => result,
        other => panic!("the call answers, not {other:?}"),
    }
}

/// The ask `tool` makes to reach `site`: one form, under `permission`, whose message
/// names the tool, the host and port, the address, the class, its RFC and the key.
fn asked(outcome: Outcome, tool: &str, site: &support::Server) -> NeedsInput {
    let Outcome::NeedsInput(input) = outcome else {
        panic!("{tool} asks, not {outcome:?}");
    };
    let port = site
        .url("")
        .rsplit(':')
        .next()
        .unwrap_or_default()
        .to_owned();
    let Some(Ask::Form { message, schema }) = input.asks.get("permission") else {
        panic!("a form under 'permission': {input:?}");
    };
    assert_eq!(
        message,
        &format!(
            "{tool} asks to reach 127.0.0.1 (port {port}) at 127.0.0.1, which the server \
             refuses: loopback address (RFC 1122, Loopback 127.0.0.0/8). Allow it once, for \
             this call only? To permit it permanently, set \"allow-loopback\": true in the \
             Web pack's configuration."
        )
    );
    assert_eq!(
        schema,
        &json!({"type": "object", "required": ["decision"], "properties": {"decision": {
            "type": "string", "title": "Decision", "enum": ["allow once", "deny"]}}})
    );
    assert_eq!(input.asks.len(), 1, "{input:?}");
    input
}

fn sorted(mut paths: Vec<String>) -> Vec<String> {
    paths.sort();
    paths
}

/// `tool` with the arguments `args` makes of the site's home page: asked, allowed once,
/// it answers what `allow-loopback` answers and requests what it requests; the grant
/// ends with the call (the next call is asked again), and a client that cannot be
/// asked then gets the original refusal without reaching the site: no connection the
/// grant opened serves a call without it.
async fn allowed_once_walks_as_allow_loopback_would(tool: &str, args: fn(String) -> Value) {
    let site = support::Server::start(site);
    let args = args(site.url("/"));
    let expected = answered(
        server(json!({"allow-loopback": true}))
            .call(tool, object(args.clone()))
            .await,
    );
    assert!(!expected.is_error(), "{}", expected.text());
    let walked = sorted(site.paths());
    assert!(walked.contains(&"/".to_owned()), "{walked:?}");
    let original = answered(server(json!({})).call(tool, object(args.clone())).await);
    assert!(original.is_error(), "{}", original.text());

    let asking = server(json!({"ask-permission": true}));
    let input = asked(asking.dispatch(askable(tool, &args)).await, tool, &site);
    assert_eq!(
        site.paths().len(),
        walked.len(),
        "nothing requested before the answer"
    );
    let retry = askable(tool, &args).with_input(answer("accept", Some("allow once")), input.state);
    let result = answered(asking.dispatch(retry).await);
    assert_eq!(result, expected, "{}", result.text());
    assert_eq!(sorted(site.paths()[walked.len()..].to_vec()), walked);

    let reached = site.connections();
    asked(asking.dispatch(askable(tool, &args)).await, tool, &site);
    let unasked = answered(asking.dispatch(Call::new(tool, object(args.clone()))).await);
    assert_eq!(unasked, original, "{}", unasked.text());
    assert_eq!(site.paths().len(), 2 * walked.len(), "{:?}", site.paths());
    assert_eq!(site.connections(), reached);
}

/// `tool` with the arguments `args` makes of a canary's home page: asked, then denied,
/// declined or cancelled, it gives exactly the refusal of the default policy, and the
/// canary sees no connection.
async fn refused_unless_allowed(tool: &str, args: fn(String) -> Value) {
    let canary = support::Server::start(site);
    let args = args(canary.url("/"));
    let original = answered(server(json!({})).call(tool, object(args.clone())).await);
    assert!(original.is_error(), "{}", original.text());
    assert!(
        original.text().contains("allow-loopback"),
        "{}",
        original.text()
    );
    let asking = server(json!({"ask-permission": true}));
    for responses in [
        answer("accept", Some("deny")),
        answer("decline", None),
        answer("cancel", None),
    ] {
        let input = asked(asking.dispatch(askable(tool, &args)).await, tool, &canary);
        let retry = askable(tool, &args).with_input(responses.clone(), input.state);
        let result = answered(asking.dispatch(retry).await);
        assert_eq!(result, original, "{responses:?}: {}", result.text());
    }
    assert_eq!(canary.connections(), 0, "{:?}", canary.paths());
}

#[tokio::test]
async fn web_crawl_allowed_once_walks_the_site_and_the_grant_ends_with_the_call() {
    allowed_once_walks_as_allow_loopback_would("web_crawl", |url| json!({"url": url})).await;
}

#[tokio::test]
async fn web_crawl_denied_declined_or_cancelled_is_the_original_refusal() {
    refused_unless_allowed("web_crawl", |url| json!({"url": url})).await;
}

#[tokio::test]
async fn web_grep_allowed_once_searches_the_page_and_the_grant_ends_with_the_call() {
    allowed_once_walks_as_allow_loopback_would(
        "web_grep",
        |url| json!({"url": url, "pattern": "needle"}),
    )
    .await;
}

#[tokio::test]
async fn web_grep_allowed_once_follows_links_through_the_granted_call() {
    allowed_once_walks_as_allow_loopback_would(
        "web_grep",
        |url| json!({"url": url, "pattern": "needle", "depth": 1}),
    )
    .await;
}

#[tokio::test]
async fn web_grep_denied_declined_or_cancelled_is_the_original_refusal() {
    refused_unless_allowed(
        "web_grep",
        |url| json!({"url": url, "pattern": "needle", "depth": 1}),
    )
    .await;
}
