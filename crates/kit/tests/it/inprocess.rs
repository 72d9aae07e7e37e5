//! Calls run in process through `Server::call` and `Server::dispatch`, without any
//! transport: every kind of outcome, progress collected, cancellation by the client
//! and by the server, requests for input and the retry that answers them.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use mcp_kit::{Call, CancelledBy, NeedsInput, Notification, Outcome, Server, ToolResult};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::harness::{ExtraKit, TestKit, server};

/// The test server with both packs.
fn both() -> Server {
    server(TestKit::default()).plug(ExtraKit::default())
}

/// `value` as an argument object.
fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("arguments are an object")
}

/// The result of an answered call.
fn answered(outcome: Outcome) -> ToolResult {
    match outcome {
        Outcome::Answered(result) => result,
        other => panic!("expected an answer, got {other:?}"),
    }
}

#[tokio::test]
async fn a_text_answer() {
    let result = answered(both().call("echo", args(json!({"text": "hi"}))).await);
    assert_eq!(result.text(), "hi");
    assert!(!result.is_error());
    assert_eq!(result.structured_content(), None);
    assert_eq!(
        result.to_json(),
        json!({"content": [{"type": "text", "text": "hi"}], "isError": false})
    );
}

#[tokio::test(start_paused = true)]
async fn a_structured_answer() {
    let result = answered(both().call("slow", args(json!({"n": 2}))).await);
    assert_eq!(result.structured_content(), Some(&json!({"counted": 2})));
    assert_eq!(result.text(), "{\"counted\":2}");
    assert!(!result.is_error());
}

#[tokio::test]
async fn a_tool_error() {
    let result = answered(both().call("fail", Map::new()).await);
    assert!(result.is_error());
    assert_eq!(result.text(), "this tool always fails");
}

#[tokio::test]
async fn a_dropped_request_is_answered_with_an_error_naming_the_tool_and_pack() {
    let result = answered(both().call("forgetful", Map::new()).await);
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "the tool forgetful ended without answering; this is a bug in the Test toolkit, \
         and no configuration key changes it"
    );
}

#[tokio::test(start_paused = true)]
async fn a_request_moved_into_a_task_answers_later() {
    let result = answered(both().call("later", Map::new()).await);
    assert_eq!(result.text(), "answered later");
}

#[tokio::test]
async fn an_unknown_tool() {
    assert_eq!(
        both().call("nope", Map::new()).await,
        Outcome::UnknownTool("nope".to_owned())
    );
}

#[tokio::test(start_paused = true)]
async fn progress_is_collected_in_order_before_the_answer() {
    let (sink, mut notes) = mpsc::unbounded_channel::<Notification>();
    let call = Call::new("slow", args(json!({"n": 3})))
        .with_progress_token(json!("tok"))
        .with_notifications(sink);
    let result = answered(both().dispatch(call).await);
    assert_eq!(result.structured_content(), Some(&json!({"counted": 3})));
    let mut collected = Vec::new();
    while let Ok(note) = notes.try_recv() {
        collected.push(note);
    }
    let expected: Vec<Notification> = (1..=3)
        .map(|step| Notification {
            method: "notifications/progress".to_owned(),
            params: json!({"progressToken": "tok", "progress": f64::from(step), "total": 3.0,
                           "message": format!("step {step}/3")}),
        })
        .collect();
    assert_eq!(collected, expected);
}

#[tokio::test(start_paused = true)]
async fn no_progress_without_a_token() {
    let (sink, mut notes) = mpsc::unbounded_channel::<Notification>();
    let call = Call::new("slow", args(json!({"n": 2}))).with_notifications(sink);
    answered(both().dispatch(call).await);
    assert_eq!(notes.try_recv().ok(), None);
}

#[tokio::test(start_paused = true)]
async fn a_call_the_client_cancels_stops_and_has_no_answer() {
    let kit = TestKit::default();
    let cancelled = Arc::clone(&kit.cancelled);
    let server = server(kit);
    let (sink, mut notes) = mpsc::unbounded_channel::<Notification>();
    let token = CancellationToken::new();
    let call = Call::new("slow", args(json!({"n": 50})))
        .with_progress_token(json!(5))
        .with_cancellation(token.clone())
        .with_notifications(sink);
    let running = tokio::spawn(async move { server.dispatch(call).await });
    let first = notes.recv().await.expect("a first progress notification");
    assert_eq!(first.params["progress"], json!(1.0));
    token.cancel();
    let outcome = running.await.expect("the dispatch ends");
    assert_eq!(outcome, Outcome::Cancelled(CancelledBy::Client));
    assert_eq!(
        cancelled.load(Ordering::SeqCst),
        1,
        "the handler saw its cancellation"
    );
}

#[tokio::test]
async fn a_call_the_server_cancels() {
    assert_eq!(
        both().call("abandon", Map::new()).await,
        Outcome::Cancelled(CancelledBy::Server)
    );
}

#[tokio::test]
async fn an_answer_that_is_not_an_mcp_result_fails_naming_the_tool() {
    let Outcome::Failed(message) = both().call("garbled", Map::new()).await else {
        panic!("a garbled answer is a failure");
    };
    assert!(
        message.starts_with(
            "the tool garbled answered with a result that is not a valid MCP CallToolResult: "
        ),
        "{message}"
    );
}

#[tokio::test]
async fn a_request_for_input_reaches_the_outcome_and_the_retry_answers() {
    let server = both();
    let asked = server.call("confirm", Map::new()).await;
    let expected = NeedsInput::new()
        .form(
            "confirm",
            "Proceed?",
            json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
        )
        .state("round-1");
    assert_eq!(asked, Outcome::NeedsInput(expected));

    let retry = Call::new("confirm", Map::new()).with_input(
        args(json!({"confirm": {"action": "accept", "content": {"ok": true}}})),
        Some("round-1".to_owned()),
    );
    let result = answered(server.dispatch(retry).await);
    assert_eq!(
        result.text(),
        "round-1: {\"action\":\"accept\",\"content\":{\"ok\":true}}"
    );
}

#[tokio::test]
async fn the_request_sees_the_parts_of_the_call() {
    let call = Call::new("parts", Map::new())
        .with_id(json!(9))
        .with_protocol_version("2026-07-28")
        .with_progress_token(json!("p"))
        .with_input(args(json!({"k": 1})), Some("s".to_owned()));
    let result = answered(both().dispatch(call).await);
    assert_eq!(
        result.structured_content(),
        Some(&json!({
            "id": 9,
            "transport": "in-process",
            "protocol_version": "2026-07-28",
            "toolset": "Extra",
            "progress_token": "p",
            "params": {
                "name": "parts",
                "arguments": {},
                "_meta": {"progressToken": "p"},
                "inputResponses": {"k": 1},
                "requestState": "s",
            },
        }))
    );
}
