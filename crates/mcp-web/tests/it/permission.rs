//! With `ask-permission`, `web_crawl` and `web_grep` put a start URL on loopback, which
//! the default policy refuses, to the user, in process (the user's answer supplied by
//! the test): the form names the tool, the host, the address, the class, its RFC and
//! the key; `allow once` walks the site exactly as `allow-loopback` would, and the next
//! call is asked again and reaches nothing; `deny`, a declined or a cancelled form give
//! the original refusal, and the site, a canary, sees no connection. Over Streamable
//! HTTP on protocol 2026-07-28, `web_fetch` answers an `InputRequiredResult` whose
//! retry with `inputResponses` and the `requestState` fetches the page, once.

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

/// One HTTP/1.1 POST of a modern-era `tools/call` of `web_fetch` to `addr`'s `/mcp`,
/// over a fresh connection: the JSON-RPC response, whether it came as JSON or as the
/// last `data:` event of a stream.
pub(crate) async fn post_call(addr: std::net::SocketAddr, body: &Value) -> Value {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    #[expect(
        clippy::disallowed_methods,
        reason = "a test client of a loopback server the test started"
    )]
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let body = body.to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: web_fetch\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.expect("receive");
    let response = String::from_utf8_lossy(&response).into_owned();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let (_, payload) = response.split_once("\r\n\r\n").expect("a body");
    payload
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .chain(payload.lines().filter(|line| line.starts_with('{')))
        .filter_map(|json| serde_json::from_str::<Value>(json.trim()).ok())
        .rfind(|message| message.get("id").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC response in {payload:?}"))
}

/// A modern-era `tools/call` of `web_fetch` for `url` from a client that declares form
/// elicitation, with `extra` params (`inputResponses`, `requestState`).
pub(crate) fn modern_fetch(id: i64, url: &str, extra: Value) -> Value {
    let mut params = json!({
        "name": "web_fetch",
        "arguments": {"url": url},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "it", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        },
    });
    if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
        params.extend(extra.clone());
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

#[tokio::test]
async fn over_streamable_http_an_input_required_result_retried_with_allow_once_fetches() {
    let site = support::Server::start(site);
    let url = site.url("/a");
    let listener = mcp_kit::HttpListener::bind(
        "127.0.0.1:0".parse().expect("an address"),
        mcp_kit::HttpOptions::default(),
    )
    .await
    .expect("bind loopback");
    let addr = listener.local_addr().expect("bound");
    let stop = tokio_util::sync::CancellationToken::new();
    let served =
        tokio::spawn(listener.serve(server(json!({"ask-permission": true})), stop.clone()));

    let asked = post_call(addr, &modern_fetch(1, &url, json!({}))).await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let request = &result["inputRequests"]["permission"];
    assert_eq!(request["method"], "elicitation/create", "{asked}");
    let message = request["params"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("web_fetch asks to reach 127.0.0.1 (port ")
            && message.contains("\"allow-loopback\": true"),
        "{message}"
    );
    assert_eq!(
        request["params"]["requestedSchema"]["properties"]["decision"]["enum"],
        json!(["allow once", "deny"])
    );
    let state = result["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();
    assert_eq!(site.connections(), 0, "nothing fetched before the answer");

    let retry = modern_fetch(
        2,
        &url,
        json!({
            "inputResponses": {"permission": {"action": "accept", "content": {"decision": "allow once"}}},
            "requestState": state,
        }),
    );
    let fetched = post_call(addr, &retry).await;
    let result = &fetched["result"];
    assert_ne!(result["isError"], json!(true), "{fetched}");
    assert_eq!(
        result["content"][0]["text"], "# First\n\nAnother needle here.",
        "{fetched}"
    );
    assert_eq!(site.requests("/a"), 1);

    // The same state again is refused as a JSON-RPC error, and fetches nothing.
    let replayed = post_call(addr, &retry).await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert_eq!(site.requests("/a"), 1);
    stop.cancel();
    served.await.expect("joined").expect("served");
}
