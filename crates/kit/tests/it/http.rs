//! The Streamable HTTP transport on loopback: both eras answer at `/mcp`, foreign
//! `Host` and `Origin` get 403, a configured token is demanded (401), other paths 404,
//! a client hanging up cancels its call, a duplicate id in flight in a legacy session
//! is refused without touching the first call, stray notifications never break a
//! session, and a malformed body is a 400 parse error in both eras.

use std::net::SocketAddr;

use mcp_kit::{AuthToken, HttpListener, HttpOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use crate::harness::{HANG_GUARD, TestKit, envelope, server};

/// A running server and what stops it.
pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    stop: CancellationToken,
    /// The number of connections the server is serving.
    open: tokio::sync::watch::Receiver<usize>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

pub(crate) async fn start(options: HttpOptions) -> Running {
    start_kit(options, TestKit::default()).await
}

/// Starts the test server with `kit` on loopback, port 0.
async fn start_kit(options: HttpOptions, kit: TestKit) -> Running {
    let listener = HttpListener::bind("127.0.0.1:0".parse().unwrap(), options)
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let open = listener.open_connections();
    let stop = CancellationToken::new();
    tokio::spawn(listener.serve(server(kit), stop.clone()));
    Running { addr, stop, open }
}

impl Running {
    /// Waits until the server serves `count` connections ([`HANG_GUARD`] at most).
    async fn wait_open(&self, count: usize) {
        let mut open = self.open.clone();
        tokio::time::timeout(HANG_GUARD, open.wait_for(|open| *open == count))
            .await
            .unwrap_or_else(|_| panic!("{count} connections open"))
            .unwrap();
    }
}

/// A fresh connection to `addr`.
async fn connect(addr: SocketAddr) -> tokio::net::TcpStream {
    #[expect(
        clippy::disallowed_methods,
        reason = "a test client of a loopback server the test started"
    )]
    tokio::net::TcpStream::connect(addr).await.unwrap()
}

/// One HTTP/1.1 POST over a fresh connection; returns the status and the body.
async fn post(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, String)],
    body: &Value,
) -> (u16, String) {
    post_raw(addr, path, headers, &body.to_string()).await
}

/// One HTTP/1.1 POST of a raw JSON-typed `body` over a fresh connection; returns the
/// status and the body.
pub(crate) async fn post_raw(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, String)],
    body: &str,
) -> (u16, String) {
    #[expect(
        clippy::disallowed_methods,
        reason = "a test client of a loopback server the test started"
    )]
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut request = format!("POST {path} HTTP/1.1\r\n");
    let has_host = headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"));
    if !has_host {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n",
    );
    request.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(HANG_GUARD, stream.read_to_end(&mut response))
        .await
        .expect("the server answered")
        .unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"));
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "1"}}})
}

fn modern_list() -> (Vec<(&'static str, String)>, Value) {
    let headers = vec![
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        ("Mcp-Method", "tools/list".to_owned()),
    ];
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": envelope(json!({}))}});
    (headers, body)
}

#[tokio::test]
async fn both_eras_answer_at_the_endpoint() {
    let running = start(HttpOptions::default()).await;
    let (status, body) = post(running.addr, "/mcp", &[], &initialize()).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("\"serverInfo\"") && body.contains("kit-test"),
        "{body}"
    );

    let (headers, list) = modern_list();
    let (status, body) = post(running.addr, "/mcp", &headers, &list).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("\"echo\"") && body.contains("\"slow\""),
        "{body}"
    );
}

#[tokio::test]
async fn a_foreign_origin_is_refused() {
    let running = start(HttpOptions::default()).await;
    let evil = [("Origin", "http://evil.example".to_owned())];
    let (status, body) = post(running.addr, "/mcp", &evil, &initialize()).await;
    assert_eq!(status, 403, "{body}");
    // The server's own loopback origin is accepted.
    let own = [(
        "Origin",
        format!("http://127.0.0.1:{}", running.addr.port()),
    )];
    let (status, body) = post(running.addr, "/mcp", &own, &initialize()).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_foreign_host_is_refused() {
    let running = start(HttpOptions::default()).await;
    let evil = [("Host", "evil.example".to_owned())];
    let (status, body) = post(running.addr, "/mcp", &evil, &initialize()).await;
    assert_eq!(status, 403, "{body}");
    let rebinding = [("Host", format!("attacker.example:{}", running.addr.port()))];
    let (status, _) = post(running.addr, "/mcp", &rebinding, &initialize()).await;
    assert_eq!(status, 403);
    let localhost = [("Host", format!("localhost:{}", running.addr.port()))];
    let (status, body) = post(running.addr, "/mcp", &localhost, &initialize()).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_configured_token_is_required_on_every_request() {
    let options = HttpOptions {
        auth_token: Some(AuthToken::new("correct-horse").unwrap()),
        ..HttpOptions::default()
    };
    let running = start(options).await;
    let (status, _) = post(running.addr, "/mcp", &[], &initialize()).await;
    assert_eq!(status, 401, "missing token");
    let wrong = [("Authorization", "Bearer battery-staple".to_owned())];
    let (status, _) = post(running.addr, "/mcp", &wrong, &initialize()).await;
    assert_eq!(status, 401, "wrong token");
    let (headers, list) = modern_list();
    let (status, _) = post(running.addr, "/mcp", &headers, &list).await;
    assert_eq!(status, 401, "the modern era needs the token too");
    let right = [("Authorization", "Bearer correct-horse".to_owned())];
    let (status, body) = post(running.addr, "/mcp", &right, &initialize()).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn other_paths_are_not_found() {
    let running = start(HttpOptions::default()).await;
    let (status, _) = post(running.addr, "/", &[], &initialize()).await;
    assert_eq!(status, 404);
    let (status, _) = post(running.addr, "/mcp/x", &[], &initialize()).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_non_loopback_bind_without_a_token_is_refused_before_binding() {
    // Only the decision runs: nothing but 127.0.0.1 is ever bound in tests.
    let error =
        mcp_kit::check_bind("0.0.0.0:8787".parse().unwrap(), &HttpOptions::default()).unwrap_err();
    assert!(error.to_string().contains("--auth-token-env"), "{error}");
    let with_token = HttpOptions {
        auth_token: Some(AuthToken::new("t").unwrap()),
        ..HttpOptions::default()
    };
    assert!(mcp_kit::check_bind("0.0.0.0:8787".parse().unwrap(), &with_token).is_ok());
}

#[tokio::test]
async fn a_client_disconnect_cancels_the_call() {
    let kit = TestKit::default();
    let cancelled = std::sync::Arc::clone(&kit.cancelled);
    let cancel_seen = std::sync::Arc::clone(&kit.cancel_seen);
    let running = start_kit(HttpOptions::default(), kit).await;
    #[expect(
        clippy::disallowed_methods,
        reason = "a test client of a loopback server the test started"
    )]
    let mut stream = tokio::net::TcpStream::connect(running.addr).await.unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"n": 100}, "_meta": envelope(json!({"progressToken": "p"}))}})
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: slow\r\nContent-Length: {}\r\n\r\n{body}",
        running.addr,
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    // Wait for the first progress event on the response stream, then hang up.
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("notifications/progress") {
        let read = tokio::time::timeout(HANG_GUARD, stream.read(&mut buffer))
            .await
            .expect("the call streams")
            .unwrap();
        assert!(
            read > 0,
            "the server closed early: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buffer[..read]);
    }
    drop(stream);
    TestKit::wait_cancelled(&cancel_seen).await;
    assert_eq!(
        cancelled.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the handler saw its cancellation after the client hung up"
    );
    running.wait_open(0).await;
}

/// One HTTP/1.1 exchange over its own connection, read in two steps: the head as
/// soon as the server sends it, the body to its end.
struct Exchange {
    stream: tokio::net::TcpStream,
    read: Vec<u8>,
    head: Option<(u16, Vec<(String, String)>)>,
}

impl Exchange {
    /// Sends a POST of `body` to `/mcp` with the JSON and event-stream types and
    /// `headers`.
    async fn send(addr: SocketAddr, headers: &[(&str, String)], body: &str) -> Self {
        #[expect(
            clippy::disallowed_methods,
            reason = "a test client of a loopback server the test started"
        )]
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nConnection: close\r\n"
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        stream.write_all(request.as_bytes()).await.unwrap();
        Self {
            stream,
            read: Vec::new(),
            head: None,
        }
    }

    /// Waits for the response's head; returns its status and its headers (names in
    /// lower case).
    async fn head(&mut self) -> (u16, Vec<(String, String)>) {
        if let Some(head) = &self.head {
            return head.clone();
        }
        let mut buffer = [0u8; 4096];
        let end = loop {
            if let Some(at) = self.read.windows(4).position(|w| w == b"\r\n\r\n") {
                break at;
            }
            let read = tokio::time::timeout(HANG_GUARD, self.stream.read(&mut buffer))
                .await
                .expect("the server sent its head")
                .unwrap();
            assert!(read > 0, "the server closed before its head");
            self.read.extend_from_slice(&buffer[..read]);
        };
        let head = String::from_utf8_lossy(&self.read[..end]).into_owned();
        self.read.drain(..end + 4);
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .and_then(|line| line.split(' ').nth(1))
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP response: {head:?}"));
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
            .collect::<Vec<_>>();
        self.head = Some((status, headers.clone()));
        (status, headers)
    }

    /// Reads the rest of the response: its status, headers and body (de-chunked).
    async fn finish(mut self) -> Response {
        let (status, headers) = self.head().await;
        let mut rest = std::mem::take(&mut self.read);
        tokio::time::timeout(HANG_GUARD, self.stream.read_to_end(&mut rest))
            .await
            .expect("the server finished its answer")
            .unwrap();
        let chunked = headers
            .iter()
            .any(|(name, value)| name == "transfer-encoding" && value.contains("chunked"));
        let body = if chunked { dechunk(&rest) } else { rest };
        Response {
            status,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        }
    }
}

/// A whole HTTP response.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    /// The value of the header `name` (lower case).
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The JSON-RPC messages of the body: the body itself when it is JSON, else the
    /// `data:` lines of its event stream.
    fn messages(&self) -> Vec<Value> {
        if let Ok(value) = serde_json::from_str::<Value>(&self.body) {
            return vec![value];
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    }

    /// The one message answering the request `id`.
    fn answer(&self, id: &Value) -> Value {
        let answers: Vec<Value> = self
            .messages()
            .into_iter()
            .filter(|message| message.get("method").is_none() && message.get("id") == Some(id))
            .collect();
        assert_eq!(answers.len(), 1, "one answer to {id}: {}", self.body);
        answers.into_iter().next().unwrap()
    }
}

/// The body of a chunked transfer, its chunks joined.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(at) = raw.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&raw[..at])
            .ok()
            .and_then(|line| usize::from_str_radix(line.split(';').next()?.trim(), 16).ok())
            .unwrap_or_else(|| panic!("a chunk size: {:?}", String::from_utf8_lossy(raw)));
        raw = &raw[at + 2..];
        if size == 0 {
            break;
        }
        body.extend_from_slice(&raw[..size]);
        raw = &raw[(size + 2).min(raw.len())..];
    }
    body
}

/// Posts `body` and reads the whole response.
async fn exchange(addr: SocketAddr, headers: &[(&str, String)], body: &Value) -> Response {
    Exchange::send(addr, headers, &body.to_string())
        .await
        .finish()
        .await
}

/// Starts the test server with the second pack too.
async fn start_with_extra() -> Running {
    let listener = HttpListener::bind("127.0.0.1:0".parse().unwrap(), HttpOptions::default())
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let open = listener.open_connections();
    let stop = CancellationToken::new();
    let server = server(TestKit::default()).plug(crate::harness::ExtraKit::default());
    tokio::spawn(listener.serve(server, stop.clone()));
    Running { addr, stop, open }
}

/// Opens a legacy session: `initialize` then `notifications/initialized`; returns
/// the headers every later request of the session carries.
async fn legacy_session(addr: SocketAddr) -> Vec<(&'static str, String)> {
    let init = exchange(addr, &[], &initialize()).await;
    assert_eq!(init.status, 200, "{}", init.body);
    let session = init
        .header("mcp-session-id")
        .expect("a legacy session has an id")
        .to_owned();
    let headers = vec![
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25".to_owned()),
    ];
    let initialized = exchange(
        addr,
        &headers,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(initialized.status, 202, "{}", initialized.body);
    headers
}

/// A legacy `tools/call` of `tool` with `id`.
fn legacy_call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

/// Calls `echo` in a legacy session and asserts its answer.
async fn legacy_echo(addr: SocketAddr, headers: &[(&str, String)], id: i64, text: &str) {
    let response = exchange(
        addr,
        headers,
        &legacy_call(id, "echo", json!({"text": text})),
    )
    .await;
    assert_eq!(response.status, 200, "{}", response.body);
    let answer = response.answer(&json!(id));
    assert_eq!(answer["result"]["content"][0]["text"], text, "{answer}");
}

#[tokio::test]
async fn a_duplicate_id_in_flight_in_a_legacy_session_is_refused_and_the_first_call_completes() {
    let running = start_with_extra().await;
    let headers = legacy_session(running.addr).await;
    // `meet` answers only once a second call of it runs, so the first is in flight
    // until the third request; its head arriving means the server took it.
    let mut first = Exchange::send(
        running.addr,
        &headers,
        &legacy_call(1, "meet", json!({})).to_string(),
    )
    .await;
    let (status, _) = first.head().await;
    assert_eq!(status, 200);

    let refused = exchange(
        running.addr,
        &headers,
        &legacy_call(1, "echo", json!({"text": "dup"})),
    )
    .await;
    let answer = refused.answer(&json!(1));
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("the id 1 is already used by a request still in flight"),
        "{message}"
    );

    let second = exchange(running.addr, &headers, &legacy_call(2, "meet", json!({}))).await;
    assert_eq!(
        second.answer(&json!(2))["result"]["content"][0]["text"],
        "met",
        "{}",
        second.body
    );
    let first = first.finish().await;
    assert_eq!(
        first.answer(&json!(1))["result"]["content"][0]["text"],
        "met",
        "the first call was not cancelled: {}",
        first.body
    );
    // Once answered, the id is free again.
    legacy_echo(running.addr, &headers, 1, "reused").await;
}

#[tokio::test]
async fn the_same_id_in_two_legacy_sessions_is_no_duplicate() {
    let running = start_with_extra().await;
    let one = legacy_session(running.addr).await;
    let two = legacy_session(running.addr).await;
    let mut first = Exchange::send(
        running.addr,
        &one,
        &legacy_call(1, "meet", json!({})).to_string(),
    )
    .await;
    assert_eq!(first.head().await.0, 200);
    let second = exchange(running.addr, &two, &legacy_call(1, "meet", json!({}))).await;
    assert_eq!(
        second.answer(&json!(1))["result"]["content"][0]["text"],
        "met",
        "{}",
        second.body
    );
    let first = first.finish().await;
    assert_eq!(
        first.answer(&json!(1))["result"]["content"][0]["text"],
        "met"
    );
}

/// Notifications of every kind a client may send, known and not.
fn stray_notifications() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}),
        json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"x": [1, 2]}}),
        json!({"jsonrpc": "2.0", "id": 99, "result": {}}),
        json!({"method": "notifications/progress"}),
    ]
}

#[tokio::test]
async fn stray_notifications_never_end_or_break_a_legacy_session() {
    let running = start(HttpOptions::default()).await;
    // Before any session: answered, and no session is harmed.
    for note in stray_notifications() {
        let response = exchange(running.addr, &[], &note).await;
        assert!(
            response.status < 500,
            "{note}: {} {}",
            response.status,
            response.body
        );
    }
    // Inside a session, before and after `notifications/initialized`, in any order.
    let init = exchange(running.addr, &[], &initialize()).await;
    let session = init.header("mcp-session-id").unwrap().to_owned();
    let headers = vec![
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25".to_owned()),
    ];
    for round in 0..2 {
        for note in stray_notifications().into_iter().rev() {
            let response = exchange(running.addr, &headers, &note).await;
            assert!(
                response.status < 500,
                "{note}: {} {}",
                response.status,
                response.body
            );
        }
        legacy_echo(running.addr, &headers, 10 + round, "alive").await;
    }
    // A notification naming another session does not touch this one.
    let foreign = [("Mcp-Session-Id", "no-such-session".to_owned())];
    let response = exchange(running.addr, &foreign, &stray_notifications()[0]).await;
    assert_eq!(response.status, 404, "{}", response.body);
    legacy_echo(running.addr, &headers, 20, "still").await;
}

#[tokio::test]
async fn stray_notifications_never_break_the_stateless_era() {
    let running = start(HttpOptions::default()).await;
    let headers = [("MCP-Protocol-Version", "2026-07-28".to_owned())];
    for note in stray_notifications() {
        let response = exchange(running.addr, &headers, &note).await;
        assert!(
            response.status < 500,
            "{note}: {} {}",
            response.status,
            response.body
        );
    }
    let (headers, list) = modern_list();
    let response = exchange(running.addr, &headers, &list).await;
    assert_eq!(response.status, 200, "{}", response.body);
    assert!(response.body.contains("\"echo\""), "{}", response.body);
}

#[tokio::test]
async fn a_malformed_body_is_a_400_parse_error_in_both_eras() {
    let running = start(HttpOptions::default()).await;
    let legacy = legacy_session(running.addr).await;
    let modern = vec![
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        ("Mcp-Method", "tools/list".to_owned()),
    ];
    for headers in [&legacy, &modern] {
        for body in ["{\"jsonrpc\": \"2.0\", ", "not json", "\u{feff}{"] {
            let response = Exchange::send(running.addr, headers, body)
                .await
                .finish()
                .await;
            assert_eq!(response.status, 400, "{body}: {}", response.body);
            assert_eq!(
                response.header("content-type"),
                Some("application/json"),
                "{body}"
            );
            let answer: Value = serde_json::from_str(&response.body).expect("a JSON body");
            assert_eq!(answer["error"]["code"], -32700, "{answer}");
            assert_eq!(answer.get("id"), Some(&Value::Null), "{answer}");
        }
    }
    // The session is alive afterwards.
    legacy_echo(running.addr, &legacy, 3, "alive").await;
}

#[tokio::test]
async fn a_legacy_client_hanging_up_cancels_its_call_and_frees_its_id() {
    let kit = TestKit::default();
    let cancelled = std::sync::Arc::clone(&kit.cancelled);
    let cancel_seen = std::sync::Arc::clone(&kit.cancel_seen);
    let running = start_kit(HttpOptions::default(), kit).await;
    let headers = legacy_session(running.addr).await;
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"n": 100}, "_meta": {"progressToken": "p"}}});
    let mut slow = Exchange::send(running.addr, &headers, &call.to_string()).await;
    assert_eq!(slow.head().await.0, 200);
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&slow.read).contains("notifications/progress") {
        let read = tokio::time::timeout(HANG_GUARD, slow.stream.read(&mut buffer))
            .await
            .expect("the call streams")
            .unwrap();
        assert!(read > 0, "the server closed early");
        slow.read.extend_from_slice(&buffer[..read]);
    }
    drop(slow);
    TestKit::wait_cancelled(&cancel_seen).await;
    assert_eq!(cancelled.load(std::sync::atomic::Ordering::SeqCst), 1);
    // The id is free once the call is cancelled; the claim gives it up right after.
    let mut answered = None;
    for attempt in 0..100 {
        let response = exchange(
            running.addr,
            &headers,
            &legacy_call(5, "echo", json!({"text": "again"})),
        )
        .await;
        let answer = response.answer(&json!(5));
        if answer.get("error").is_none() {
            answered = Some(answer);
            break;
        }
        assert_eq!(
            answer["error"]["code"], -32600,
            "attempt {attempt}: {answer}"
        );
        tokio::task::yield_now().await;
    }
    let answer = answered.expect("the id was freed");
    assert_eq!(answer["result"]["content"][0]["text"], "again", "{answer}");
}

/// The head of a request for `/mcp` on `addr` announcing a body of `length` bytes,
/// without the blank line that ends it when `complete` is false.
fn request_head(addr: SocketAddr, length: usize, complete: bool) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n{}",
        if complete { "\r\n" } else { "" }
    )
}

/// Reads until the server closes (or resets) the connection.
async fn read_until_closed(stream: &mut tokio::net::TcpStream) -> String {
    let mut read = Vec::new();
    let _ = stream.read_to_end(&mut read).await;
    String::from_utf8_lossy(&read).into_owned()
}

#[tokio::test(start_paused = true)]
async fn a_half_sent_head_is_closed_at_the_header_timeout_and_not_before() {
    let timeout = std::time::Duration::from_secs(10);
    let options = HttpOptions {
        header_read_timeout: timeout,
        ..HttpOptions::default()
    };
    let running = start(options).await;
    let started = tokio::time::Instant::now();
    let mut slow = connect(running.addr).await;
    slow.write_all(request_head(running.addr, 2, false).as_bytes())
        .await
        .unwrap();
    running.wait_open(1).await;
    tokio::time::advance(timeout - std::time::Duration::from_secs(1)).await;
    tokio::task::yield_now().await;
    let mut byte = [0u8; 1];
    assert!(
        matches!(slow.try_read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the connection is still open before the timeout"
    );
    let answer = tokio::time::timeout(HANG_GUARD, read_until_closed(&mut slow))
        .await
        .expect("the server closed the connection");
    assert!(started.elapsed() >= timeout, "{:?}", started.elapsed());
    assert!(!answer.contains(" 200 "), "{answer}");
    running.wait_open(0).await;
}

#[tokio::test(start_paused = true)]
async fn an_idle_kept_alive_connection_is_closed_at_the_header_timeout() {
    let timeout = std::time::Duration::from_secs(10);
    let options = HttpOptions {
        header_read_timeout: timeout,
        ..HttpOptions::default()
    };
    let running = start(options).await;
    let mut idle = connect(running.addr).await;
    let body = "{}";
    idle.write_all(format!("{}{body}", request_head(running.addr, body.len(), true)).as_bytes())
        .await
        .unwrap();
    // The answer to the first request comes, then nothing more is sent.
    let mut first = [0u8; 12];
    idle.read_exact(&mut first).await.unwrap();
    assert!(first.starts_with(b"HTTP/1.1 "), "{first:?}");
    let answered = tokio::time::Instant::now();
    tokio::time::timeout(HANG_GUARD, read_until_closed(&mut idle))
        .await
        .expect("the server closed the connection");
    assert!(answered.elapsed() >= timeout, "{:?}", answered.elapsed());
    running.wait_open(0).await;
}

#[tokio::test(start_paused = true)]
async fn a_half_sent_body_is_answered_408_at_the_body_timeout() {
    let timeout = std::time::Duration::from_secs(20);
    let options = HttpOptions {
        body_read_timeout: timeout,
        ..HttpOptions::default()
    };
    let running = start(options).await;
    let mut slow = connect(running.addr).await;
    let started = tokio::time::Instant::now();
    slow.write_all(format!("{}{{\"js", request_head(running.addr, 100, true)).as_bytes())
        .await
        .unwrap();
    let mut head = [0u8; 12];
    tokio::time::timeout(HANG_GUARD, slow.read_exact(&mut head))
        .await
        .expect("the server answered")
        .unwrap();
    assert_eq!(
        &head,
        b"HTTP/1.1 408",
        "{:?}",
        String::from_utf8_lossy(&head)
    );
    assert!(started.elapsed() >= timeout, "{:?}", started.elapsed());
}

#[tokio::test]
async fn the_connection_over_the_cap_is_refused_503_and_a_freed_place_is_taken_again() {
    let options = HttpOptions {
        max_connections: 2,
        ..HttpOptions::default()
    };
    let running = start(options).await;
    let first = connect(running.addr).await;
    let _second = connect(running.addr).await;
    running.wait_open(2).await;
    let mut third = connect(running.addr).await;
    let answer = tokio::time::timeout(HANG_GUARD, read_until_closed(&mut third))
        .await
        .expect("the third connection is answered at once");
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert!(answer.contains("retry later"), "{answer}");
    assert_eq!(*running.open.borrow(), 2);
    drop(first);
    running.wait_open(1).await;
    let (status, body) = post(running.addr, "/mcp", &[], &initialize()).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_client_hanging_up_mid_request_gives_its_place_back() {
    let running = start(HttpOptions::default()).await;
    for sent in [
        request_head(running.addr, 100, false),
        format!("{}{{\"js", request_head(running.addr, 100, true)),
    ] {
        let mut client = connect(running.addr).await;
        client.write_all(sent.as_bytes()).await.unwrap();
        running.wait_open(1).await;
        drop(client);
        running.wait_open(0).await;
    }
}
