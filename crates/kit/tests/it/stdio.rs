//! The stdio transport in both protocol eras: handshake and discovery, tools/list,
//! calls, progress, cancellation, concurrency, requests for input, parse errors, end
//! of input.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use mcp_kit::{Registry, Server};
use serde_json::json;

use crate::harness::{Client, ExtraKit, TestKit, call, envelope, server};

#[tokio::test]
async fn legacy_handshake_lists_and_calls_tools() {
    let mut client = Client::start(server(TestKit::default()));
    let init = client.initialize("2025-11-25").await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "kit-test");
    assert_eq!(init["result"]["serverInfo"]["version"], "1.2.3");
    assert_eq!(init["result"]["instructions"], "Test tools.");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );

    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let list = client.recv().await;
    let tools = list["result"]["tools"].as_array().expect("a tools array");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["echo", "slow", "forgetful", "later", "fail"]);
    assert_eq!(
        tools[0]["annotations"],
        json!({"readOnlyHint": true, "idempotentHint": true})
    );
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["text"]));
    assert_eq!(tools[1]["inputSchema"]["properties"]["n"]["default"], 3);
    assert!(
        list["result"].get("resultType").is_none(),
        "legacy results carry no resultType: {list}"
    );
    assert!(
        list["result"].get("ttlMs").is_none() && list["result"].get("cacheScope").is_none(),
        "legacy results carry no caching hints: {list}"
    );

    client
        .send(call(2, "echo", json!({"text": "hi"}), None))
        .await;
    let echo = client.recv().await;
    assert_eq!(echo["id"], 2);
    assert_eq!(echo["result"]["content"][0]["text"], "hi");
    assert_eq!(echo["result"]["isError"], false);

    client.send(call(3, "fail", json!({}), None)).await;
    let fail = client.recv().await;
    assert_eq!(fail["result"]["isError"], true, "{fail}");
    assert_eq!(
        fail["result"]["content"][0]["text"],
        "this tool always fails"
    );

    client.send(call(4, "nope", json!({}), None)).await;
    let unknown = client.recv().await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert_eq!(unknown["error"]["message"], "Unknown tool: nope");

    client.close().await.unwrap();
}

#[tokio::test]
async fn a_2024_client_gets_its_own_version() {
    let mut client = Client::start(server(TestKit::default()));
    let init = client.initialize("2024-11-05").await;
    assert_eq!(init["result"]["protocolVersion"], "2024-11-05", "{init}");
    client.close().await.unwrap();
}

#[tokio::test]
async fn modern_discover_then_enveloped_requests() {
    let mut client = Client::start(server(TestKit::default()));
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": envelope(json!({}))}}))
        .await;
    let discover = client.recv().await;
    let versions = discover["result"]["supportedVersions"]
        .as_array()
        .expect("supportedVersions");
    assert!(versions.contains(&json!("2026-07-28")), "{discover}");
    assert!(versions.contains(&json!("2025-11-25")), "{discover}");
    assert_eq!(
        discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "kit-test"
    );
    // Fixed for the server's life and the same for every client: a host may keep it.
    assert_eq!(discover["result"]["ttlMs"], 3_600_000, "{discover}");
    assert_eq!(discover["result"]["cacheScope"], "public", "{discover}");

    client
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": envelope(json!({}))}}))
        .await;
    let list = client.recv().await;
    assert_eq!(list["result"]["resultType"], "complete", "{list}");
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(5));
    assert_eq!(list["result"]["ttlMs"], mcp_kit::LIST_TTL_MS, "{list}");
    assert_eq!(list["result"]["cacheScope"], "public", "{list}");

    client
        .send(call(
            3,
            "echo",
            json!({"text": "modern"}),
            Some(envelope(json!({}))),
        ))
        .await;
    let echo = client.recv().await;
    assert_eq!(echo["result"]["resultType"], "complete", "{echo}");
    assert_eq!(echo["result"]["content"][0]["text"], "modern");

    client
        .send(call(4, "nope", json!({}), Some(envelope(json!({})))))
        .await;
    let unknown = client.recv().await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    client.close().await.unwrap();
}

#[tokio::test]
async fn modern_without_discover_and_with_a_missing_envelope() {
    let mut client = Client::start(server(TestKit::default()));
    // Pinned clients open with an enveloped request.
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope(json!({}))}}))
        .await;
    let list = client.recv().await;
    assert_eq!(
        list["result"]["tools"].as_array().map(Vec::len),
        Some(5),
        "{list}"
    );
    // An unsupported version is refused with -32022.
    let mut meta = envelope(json!({}));
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    client
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}}))
        .await;
    let refused = client.recv().await;
    assert_eq!(refused["error"]["code"], -32022, "{refused}");
    client.close().await.unwrap();
}

async fn progress_in(mut client: Client, meta: serde_json::Value) {
    client
        .send(call(7, "slow", json!({"n": 3}), Some(meta)))
        .await;
    for step in 1..=3 {
        let note = client.recv().await;
        assert_eq!(note["method"], "notifications/progress", "{note}");
        assert_eq!(note["params"]["progressToken"], "tok");
        assert_eq!(note["params"]["progress"], json!(step as f64));
        assert_eq!(note["params"]["total"], json!(3.0));
        assert_eq!(note["params"]["message"], format!("step {step}/3"));
    }
    let done = client.recv().await;
    assert_eq!(done["id"], 7);
    assert_eq!(done["result"]["structuredContent"], json!({"counted": 3}));
    assert_eq!(done["result"]["content"][0]["text"], "{\"counted\":3}");
    client.close().await.unwrap();
}

#[tokio::test]
async fn progress_arrives_in_order_before_the_answer_legacy() {
    let mut client = Client::start(server(TestKit::default()));
    client.initialize("2025-11-25").await;
    progress_in(client, json!({"progressToken": "tok"})).await;
}

#[tokio::test]
async fn progress_arrives_in_order_before_the_answer_modern() {
    let client = Client::start(server(TestKit::default()));
    progress_in(client, envelope(json!({"progressToken": "tok"}))).await;
}

#[tokio::test]
async fn no_progress_without_a_token() {
    let mut client = Client::start(server(TestKit::default()));
    client.initialize("2025-11-25").await;
    client.send(call(1, "slow", json!({"n": 2}), None)).await;
    let first = client.recv().await;
    assert_eq!(first["id"], 1, "the first message is the answer: {first}");
    assert_eq!(first["result"]["structuredContent"], json!({"counted": 2}));
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_cancelled_call_stops_and_gets_no_answer() {
    let kit = TestKit::default();
    let cancelled = Arc::clone(&kit.cancelled);
    let cancel_seen = Arc::clone(&kit.cancel_seen);
    let mut client = Client::start(server(kit));
    client.initialize("2025-11-25").await;
    client
        .send(call(
            5,
            "slow",
            json!({"n": 50}),
            Some(json!({"progressToken": 5})),
        ))
        .await;
    let note = client.recv().await;
    assert_eq!(note["method"], "notifications/progress");
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "user abort"}}))
        .await;
    TestKit::wait_cancelled(&cancel_seen).await;
    assert_eq!(
        cancelled.load(Ordering::SeqCst),
        1,
        "the handler saw its cancellation"
    );
    // The server keeps serving, and the first answer after the cancellation is the
    // later call's: the cancelled one never got one. Progress notifications sent
    // before the cancellation may still be on their way.
    client
        .send(call(6, "echo", json!({"text": "still here"}), None))
        .await;
    let mut answer = client.recv().await;
    while answer["method"] == "notifications/progress" {
        answer = client.recv().await;
    }
    assert_eq!(
        answer["id"], 6,
        "the first answer is the later call's: {answer}"
    );
    assert_eq!(
        answer["result"]["content"][0]["text"], "still here",
        "{answer}"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn calls_are_served_concurrently() {
    // `meet` answers only when two calls of it run at once: served one after the
    // other, the first would wait for ever and `recv` would give up.
    let mut client = Client::start(server(TestKit::default()).plug(ExtraKit::default()));
    client.initialize("2025-11-25").await;
    client.send(call(1, "meet", json!({}), None)).await;
    client
        .send(call(2, "echo", json!({"text": "quick"}), None))
        .await;
    let first = client.recv().await;
    assert_eq!(
        first["id"], 2,
        "the quick call is not queued behind a waiting one: {first}"
    );
    client.send(call(3, "meet", json!({}), None)).await;
    let mut ids = vec![
        client.recv().await["id"].clone(),
        client.recv().await["id"].clone(),
    ];
    ids.sort_by_key(|id| id.as_i64());
    assert_eq!(ids, [json!(1), json!(3)]);
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_call_that_needs_input_asks_and_the_retry_answers_modern() {
    let mut client = Client::start(server(TestKit::default()).plug(ExtraKit::default()));
    client
        .send(call(1, "confirm", json!({}), Some(envelope(json!({})))))
        .await;
    let asked = client.recv().await;
    assert_eq!(asked["id"], 1, "{asked}");
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    assert_eq!(asked["result"]["requestState"], "round-1", "{asked}");
    let form = &asked["result"]["inputRequests"]["confirm"];
    assert_eq!(form["method"], "elicitation/create", "{asked}");
    assert_eq!(form["params"]["message"], "Proceed?", "{asked}");
    assert_eq!(
        form["params"]["requestedSchema"]["properties"]["ok"]["type"], "boolean",
        "{asked}"
    );

    let mut retry = call(2, "confirm", json!({}), Some(envelope(json!({}))));
    retry["params"]["inputResponses"] =
        json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    retry["params"]["requestState"] = json!("round-1");
    client.send(retry).await;
    let answer = client.recv().await;
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "round-1: {\"action\":\"accept\",\"content\":{\"ok\":true}}",
        "{answer}"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_call_that_needs_input_elicits_it_from_a_legacy_client_and_runs_again() {
    let mut client = Client::start(server(TestKit::default()).plug(ExtraKit::default()));
    client
        .initialize_with("2025-11-25", json!({"elicitation": {}}))
        .await;
    client.send(call(1, "confirm", json!({}), None)).await;
    let asked = client.recv().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert_eq!(asked["params"]["message"], "Proceed?", "{asked}");
    assert_eq!(
        asked["params"]["requestedSchema"]["properties"]["ok"]["type"], "boolean",
        "{asked}"
    );
    client
        .send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"ok": true}}}))
        .await;
    let answer = client.recv().await;
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "round-1: {\"action\":\"accept\",\"content\":{\"ok\":true}}",
        "{answer}"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_call_that_needs_input_is_an_error_for_a_legacy_client_that_cannot_be_asked() {
    let mut client = Client::start(server(TestKit::default()).plug(ExtraKit::default()));
    client.initialize("2025-11-25").await;
    client.send(call(1, "confirm", json!({}), None)).await;
    let refused = client.recv().await;
    assert_eq!(refused["id"], 1, "{refused}");
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "the tool confirm needs input from the user, and the client did not declare the \
         elicitation capability it would be asked through",
        "{refused}"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_legacy_call_cancelled_while_the_client_is_asked_gets_no_answer() {
    let mut client = Client::start(server(TestKit::default()).plug(ExtraKit::default()));
    client
        .initialize_with("2025-11-25", json!({"elicitation": {}}))
        .await;
    client.send(call(1, "confirm", json!({}), None)).await;
    let asked = client.recv().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}))
        .await;
    client
        .send(call(2, "echo", json!({"text": "next"}), None))
        .await;
    // Requests and notifications from the server (such as withdrawing its question)
    // may come first; the first answer is the later call's.
    let mut answer = client.recv().await;
    while answer.get("method").is_some() {
        answer = client.recv().await;
    }
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "next", "{answer}");
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_call_that_keeps_asking_a_legacy_client_is_stopped_after_ten_rounds() {
    let mut client = Client::start(server(TestKit::default()).plug(ExtraKit::default()));
    client.initialize("2025-11-25").await;
    client.send(call(1, "insist", json!({}), None)).await;
    let refused = client.recv().await;
    assert_eq!(refused["id"], 1, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "the tool insist asked for input more than 10 times in one call; this is a bug in \
         its toolkit",
        "{refused}"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_line_that_is_not_json_gets_a_parse_error_and_serving_goes_on() {
    let mut client = Client::start(server(TestKit::default()));
    client.send_raw("this is not json").await;
    let error = client.recv().await;
    assert_eq!(error["error"]["code"], -32700, "{error}");
    assert!(error["id"].is_null());
    client.send_raw("{\"jsonrpc\": \"2.0\", \"id\": 1, ").await;
    assert_eq!(client.recv().await["error"]["code"], -32700);
    client.initialize("2025-11-25").await;
    client
        .send(call(2, "echo", json!({"text": "ok"}), None))
        .await;
    assert_eq!(client.recv().await["result"]["content"][0]["text"], "ok");
    client.close().await.unwrap();
}

#[tokio::test]
async fn end_of_input_before_any_request_is_a_clean_exit() {
    let client = Client::start(server(TestKit::default()));
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_dropped_request_is_answered_and_a_moved_one_answers_later() {
    let mut client = Client::start(server(TestKit::default()));
    client.initialize("2025-11-25").await;
    client.send(call(1, "forgetful", json!({}), None)).await;
    let dropped = client.recv().await;
    assert_eq!(dropped["result"]["isError"], true, "{dropped}");
    let text = dropped["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("forgetful"), "{text}");
    client.send(call(2, "later", json!({}), None)).await;
    assert_eq!(
        client.recv().await["result"]["content"][0]["text"],
        "answered later"
    );
    client.close().await.unwrap();
}

#[test]
fn from_config_assembles_packs_by_name() {
    let registry = Registry::new().with::<TestKit>();
    let server = Server::from_config(
        &json!({"name": "s", "version": "1", "instructions": "i", "tools": {"Test": {}}}),
        &registry,
    )
    .unwrap();
    assert_eq!(
        server.tool_names(),
        ["echo", "slow", "forgetful", "later", "fail"]
    );

    let unknown_pack = Server::from_config(&json!({"tools": {"Tset": {}}}), &registry).unwrap_err();
    assert_eq!(
        unknown_pack.to_string(),
        "Unknown config key(s) for \"tools\" in the server config: Tset.\nValid keys: Test"
    );

    let unknown_key = Server::from_config(&json!({"nmae": "s"}), &registry).unwrap_err();
    let message = unknown_key.to_string();
    assert!(
        message.contains("nmae") && message.contains("instructions, name, tools, version"),
        "{message}"
    );

    let pack_error =
        Server::from_config(&json!({"tools": {"Test": {"x": 1}}}), &registry).unwrap_err();
    let message = pack_error.to_string();
    assert!(
        message.contains("\"Test\"") && message.contains("unknown config key(s): x"),
        "{message}"
    );
}
