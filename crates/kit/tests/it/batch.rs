//! Batches through `Server::execute_tool_calls`: identical idempotent calls run once
//! and share the answer, order is kept, a failing or panicking call is its own
//! outcome, read-only calls run side by side within the bound, and a call of a tool
//! that is not read-only runs alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_kit::{Annotations, CallFuture, Outcome, Request, Server, ToolCall, ToolSpec, Toolkit};
use serde_json::{Map, Value, json};
use tokio::sync::Barrier;

/// Counts of what the pack's tools did.
#[derive(Default)]
struct Counts {
    runs: AtomicUsize,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
}

/// `look` (read-only, idempotent) answers its `n`; `pair` (read-only, idempotent)
/// waits at a barrier for a second call; `write` (neither) counts; `broken` fails,
/// `explode` panics.
struct Batchy {
    counts: Arc<Counts>,
    barrier: Arc<Barrier>,
}

fn spec(name: &str, read_only: bool, idempotent: bool) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("The {name} test tool."),
        input_schema: json!({"type": "object"}),
        annotations: Annotations {
            read_only: Some(read_only),
            idempotent: Some(idempotent),
            ..Annotations::default()
        },
    }
}

impl Toolkit for Batchy {
    fn name(&self) -> &str {
        "Batchy"
    }

    fn tools(&self) -> Vec<ToolSpec> {
        vec![
            spec("look", true, true),
            spec("pair", true, true),
            spec("write", false, false),
            spec("broken", true, true),
            spec("explode", true, true),
        ]
    }

    fn call(&self, request: Request) -> CallFuture {
        let counts = Arc::clone(&self.counts);
        let barrier = Arc::clone(&self.barrier);
        Box::pin(async move {
            counts.runs.fetch_add(1, Ordering::SeqCst);
            let now = counts.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            counts.most_in_flight.fetch_max(now, Ordering::SeqCst);
            let n = request.args.get("n").cloned().unwrap_or(Value::Null);
            match request.tool.as_str() {
                "pair" => {
                    barrier.wait().await;
                }
                "write" => {
                    // Alone: nothing else is running.
                    assert_eq!(now, 1, "a write runs alone");
                }
                "broken" => {
                    counts.in_flight.fetch_sub(1, Ordering::SeqCst);
                    return request.error(format!("broken {n}"));
                }
                "explode" => {
                    counts.in_flight.fetch_sub(1, Ordering::SeqCst);
                    panic!("exploded");
                }
                _ => {}
            }
            counts.in_flight.fetch_sub(1, Ordering::SeqCst);
            let answer = format!("{} {n}", request.tool);
            request.text(answer);
        })
    }
}

fn batchy(partners: usize) -> (Server, Arc<Counts>) {
    let counts = Arc::new(Counts::default());
    let pack = Batchy {
        counts: Arc::clone(&counts),
        barrier: Arc::new(Barrier::new(partners)),
    };
    (Server::new("t", "1").plug(pack), counts)
}

fn call(tool: &str, args: Value) -> ToolCall {
    ToolCall::new(tool, args.as_object().cloned().unwrap_or_else(Map::new))
}

fn texts(outcomes: &[Outcome]) -> Vec<String> {
    outcomes
        .iter()
        .map(|outcome| match outcome {
            Outcome::Answered(result) if result.is_error() => format!("error: {}", result.text()),
            Outcome::Answered(result) => result.text(),
            Outcome::Panicked(_) => "panicked".to_owned(),
            other => format!("{other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn identical_idempotent_calls_run_once_and_share_the_answer() {
    let (server, counts) = batchy(1);
    let calls = (0..5)
        .map(|_| call("look", json!({"n": 1, "m": {"b": 2, "a": 1}})))
        .chain([call("look", json!({"m": {"a": 1, "b": 2}, "n": 1}))])
        .collect();
    let outcomes = server.execute_tool_calls(calls).await;
    assert_eq!(texts(&outcomes), vec!["look 1"; 6]);
    assert_eq!(counts.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_batch_mixing_failures_and_successes_keeps_order() {
    let (server, counts) = batchy(1);
    let calls = vec![
        call("look", json!({"n": 1})),
        call("broken", json!({"n": 2})),
        call("nope", json!({})),
        call("explode", json!({})),
        call("look", json!({"n": 3})),
        call("write", json!({"n": 4})),
        call("write", json!({"n": 4})),
        call("look", json!({"n": 1})),
    ];
    let outcomes = server.execute_tool_calls(calls).await;
    assert_eq!(
        texts(&outcomes),
        vec![
            "look 1",
            "error: broken 2",
            "UnknownTool(\"nope\")",
            "panicked",
            "look 3",
            "write 4",
            "write 4",
            "look 1",
        ]
    );
    // look 1 once, broken, explode, look 3, and both writes (not idempotent).
    assert_eq!(counts.runs.load(Ordering::SeqCst), 6);
}

#[tokio::test]
async fn read_only_calls_run_side_by_side_within_the_bound() {
    // Each `pair` waits for a partner: with a bound of two they meet two by two.
    let (server, counts) = batchy(2);
    let calls = (0..6).map(|n| call("pair", json!({"n": n}))).collect();
    let outcomes = server.execute_tool_calls_with(calls, 2).await;
    let expected: Vec<String> = (0..6).map(|n| format!("pair {n}")).collect();
    assert_eq!(texts(&outcomes), expected);
    assert_eq!(counts.most_in_flight.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_call_that_is_not_read_only_runs_alone() {
    let (server, counts) = batchy(2);
    let calls = vec![
        call("pair", json!({"n": 1})),
        call("pair", json!({"n": 2})),
        call("write", json!({"n": 3})),
        call("pair", json!({"n": 4})),
        call("pair", json!({"n": 5})),
    ];
    let outcomes = server.execute_tool_calls(calls).await;
    assert_eq!(
        texts(&outcomes),
        vec!["pair 1", "pair 2", "write 3", "pair 4", "pair 5"]
    );
    assert_eq!(counts.runs.load(Ordering::SeqCst), 5);
}
