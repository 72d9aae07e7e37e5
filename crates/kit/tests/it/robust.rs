//! Bad input a buggy or hostile client sends: every request gets exactly one answer
//! (a parse error, an invalid request with `"id": null` when its id cannot be read,
//! a refused duplicate id), notifications of any kind in any order never end the
//! session, a panicking tool is an internal error and not the server's end, and a
//! body that is not JSON-RPC gets a JSON-RPC error over HTTP too.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use mcp_kit::{HttpOptions, Outcome};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, ReadBuf};

use crate::harness::{Client, ExtraKit, TestKit, call, envelope, server};
use crate::http::{post_raw, start};

/// Sends an echo of `text` with `id` and asserts its answer: the session goes on.
async fn echo_answers(client: &mut Client, id: i64, text: &str, meta: Option<Value>) {
    client
        .send(call(id, "echo", json!({"text": text}), meta))
        .await;
    let answer = client.recv().await;
    assert_eq!(answer["id"], id, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], text, "{answer}");
}

/// Asserts `answer` is a JSON-RPC error with `code` whose `id` member is present
/// and equal to `id`.
fn assert_error(answer: &Value, code: i64, id: &Value) {
    assert_eq!(answer["error"]["code"], code, "{answer}");
    assert_eq!(answer.get("id"), Some(id), "the id member: {answer}");
}

#[tokio::test]
async fn notifications_before_initialize_do_not_end_the_session() {
    let mut client = Client::start(server(TestKit::default()));
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}))
        .await;
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}))
        .await;
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/whatever"}))
        .await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 99, "result": {}}))
        .await;
    let init = client.initialize("2025-11-25").await;
    assert_eq!(init["id"], 0, "the first answer is initialize's: {init}");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    echo_answers(&mut client, 1, "alive", None).await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_notification_after_discover_does_not_end_the_session() {
    let mut client = Client::start(server(TestKit::default()));
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": envelope(json!({}))}}))
        .await;
    let discover = client.recv().await;
    assert_eq!(discover["id"], 1, "{discover}");
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "x", "progress": 1}}))
        .await;
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}))
        .await;
    echo_answers(&mut client, 2, "modern", Some(envelope(json!({})))).await;
    // And after the session began, notifications of any kind keep it going.
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/unknown", "params": {}}))
        .await;
    echo_answers(&mut client, 3, "still", Some(envelope(json!({})))).await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn invalid_requests_are_answered_with_a_null_id_when_it_cannot_be_read() {
    let mut client = Client::start(server(TestKit::default()));
    client.initialize("2025-11-25").await;
    for line in [
        r#"{"jsonrpc": "2.0"}"#,
        r#"{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}"#,
        r#"{"jsonrpc": "2.0", "id": null, "method": "tools/list"}"#,
        r#"[{"jsonrpc": "2.0", "id": 5, "method": "tools/list"}]"#,
        r#""a string""#,
    ] {
        client.send_raw(line).await;
        let answer = client.recv().await;
        assert_error(&answer, -32600, &Value::Null);
    }
    // An id that can be read is echoed.
    client
        .send_raw(r#"{"jsonrpc": "1.0", "id": 6, "method": "tools/list"}"#)
        .await;
    assert_error(&client.recv().await, -32600, &json!(6));
    client
        .send_raw(
            r#"{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"arguments": {}}}"#,
        )
        .await;
    assert_error(&client.recv().await, -32602, &json!(7));
    // An unknown method is answered by the server as such.
    client
        .send_raw(r#"{"jsonrpc": "2.0", "id": 8, "method": "no/such/method"}"#)
        .await;
    assert_error(&client.recv().await, -32601, &json!(8));
    echo_answers(&mut client, 9, "alive", None).await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_line_over_the_limit_is_answered_and_skipped() {
    let mut client = Client::start(server(TestKit::default()));
    client.initialize("2025-11-25").await;
    let huge = "x".repeat(mcp_kit::stdio::MAX_LINE_BYTES + 1);
    client
        .send(call(1, "echo", json!({"text": huge}), None))
        .await;
    let answer = client.recv().await;
    assert_error(&answer, -32600, &Value::Null);
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("16 MiB"), "{message}");
    echo_answers(&mut client, 2, "alive", None).await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn deep_nesting_and_invalid_utf8_are_answered() {
    let mut client = Client::start(server(TestKit::default()));
    client.initialize("2025-11-25").await;
    let depth = 100_000;
    let bare = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    client.send_raw(&bare).await;
    assert_error(&client.recv().await, -32700, &Value::Null);

    let nested = format!(
        r#"{{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {{"name": "echo", "arguments": {{"text": {}{}}}}}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    client.send_raw(&nested).await;
    let answer = client.recv().await;
    assert_error(&answer, -32700, &json!(3));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("deeper than the 128 levels"), "{message}");

    let mut not_utf8 =
        br#"{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": ""#
            .to_vec();
    not_utf8.extend_from_slice(b"\xff\xfe\xc3");
    not_utf8.extend_from_slice(br#""}}}"#);
    client.send_bytes(&not_utf8).await;
    let answer = client.recv().await;
    assert_error(&answer, -32700, &json!(4));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("not valid UTF-8"), "{message}");

    echo_answers(&mut client, 5, "alive", None).await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_duplicate_id_in_flight_is_refused_and_the_first_call_completes() {
    // `meet` answers only once two calls of it run at once, so the first call is in
    // flight until the third arrives.
    let mut client = Client::start(server(TestKit::default()).plug(ExtraKit::default()));
    client.initialize("2025-11-25").await;
    client.send(call(1, "meet", json!({}), None)).await;
    client
        .send(call(1, "echo", json!({"text": "dup"}), None))
        .await;
    let refused = client.recv().await;
    assert_error(&refused, -32600, &json!(1));
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("the id 1 is already used by a request still in flight"),
        "{message}"
    );
    client.send(call(2, "meet", json!({}), None)).await;
    let mut answers = [client.recv().await, client.recv().await];
    answers.sort_by_key(|answer| answer["id"].as_i64());
    for (answer, id) in answers.iter().zip([1, 2]) {
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["result"]["content"][0]["text"], "met", "{answer}");
    }
    // Once answered, the id is free again.
    echo_answers(&mut client, 1, "reused", None).await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_panicking_tool_is_an_internal_error_and_serving_goes_on() {
    let mut client = Client::start(server(TestKit::default()).plug(ExtraKit::default()));
    client.initialize("2025-11-25").await;
    for (id, tool) in [(1, "explode"), (2, "explode-at-once")] {
        client.send(call(id, tool, json!({}), None)).await;
        let answer = client.recv().await;
        assert_error(&answer, -32603, &json!(id));
        assert!(answer.get("result").is_none(), "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(&format!("the tool {tool} panicked: "))
                && message.contains("this is a bug in the Extra toolkit"),
            "{message}"
        );
    }
    echo_answers(&mut client, 3, "alive", None).await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_panic_in_process_is_its_own_outcome() {
    let server = server(TestKit::default()).plug(ExtraKit::default());
    let Outcome::Panicked(message) = server.call("explode", Map::new()).await else {
        panic!("a panic is not an answer");
    };
    assert!(message.contains("index out of bounds"), "{message}");
    let Outcome::Panicked(message) = server.call("explode-at-once", Map::new()).await else {
        panic!("a panic is not an answer");
    };
    assert!(
        message.contains("explode-at-once exploded at once"),
        "{message}"
    );
    let Outcome::Panicked(message) = server.call("explode-later", Map::new()).await else {
        panic!("a panic in a task the handler spawned is not an answer either");
    };
    assert!(
        message.contains("it panicked while holding its request"),
        "{message}"
    );
    assert!(server.call("echo", Map::new()).await.result().is_some());
}

/// An input that fails on the first read.
struct Broken;

impl AsyncRead for Broken {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        _buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Poll::Ready(Err(io::Error::other("the input broke")))
    }
}

#[tokio::test]
async fn a_failure_to_read_the_input_is_an_error() {
    let served = server(TestKit::default())
        .serve_io(Broken, tokio::io::sink())
        .await;
    let error = served.expect_err("a broken input ends serving with its error");
    assert_eq!(error.to_string(), "the input broke");
}

#[tokio::test]
async fn a_body_that_is_not_json_rpc_is_a_400_with_a_json_rpc_error() {
    let running = start(HttpOptions::default()).await;
    let (status, body) = post_raw(running.addr, "/mcp", &[], "{\"jsonrpc\": \"2.0\", ").await;
    assert_eq!(status, 400, "{body}");
    let answer: Value = serde_json::from_str(&body).expect("a JSON body");
    assert_error(&answer, -32700, &Value::Null);
    assert_eq!(answer["jsonrpc"], "2.0");

    let (status, body) = post_raw(running.addr, "/mcp", &[], r#"{"jsonrpc": "2.0"}"#).await;
    assert_eq!(status, 400, "{body}");
    let answer: Value = serde_json::from_str(&body).expect("a JSON body");
    assert_error(&answer, -32600, &Value::Null);
}
