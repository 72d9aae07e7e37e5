//! The Streamable HTTP transport on loopback: both eras answer at `/mcp`, foreign
//! `Host` and `Origin` get 403, a configured token is demanded (401), other paths 404,
//! and a client hanging up cancels its call.

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
    let stop = CancellationToken::new();
    tokio::spawn(listener.serve(server(kit), stop.clone()));
    Running { addr, stop }
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
}
