//! A test toolkit (an echo, a slow tool that reports progress and honours
//! cancellation, a tool that forgets to answer, a tool that answers from a spawned
//! task), a second pack whose tools prove concurrency and ask for input, and a
//! line-oriented client over in-memory pipes.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_kit::{
    Annotations, CallFuture, FromConfig, NeedsInput, Request, Server, ToolSpec, Toolkit,
};
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::sync::{Barrier, Notify};
use tokio::task::JoinHandle;

/// How long a test waits for something that must happen before it calls it a hang.
/// Only a guard: no test asserts on time.
pub const HANG_GUARD: Duration = Duration::from_secs(30);

/// The test pack.
#[derive(Default)]
pub struct TestKit {
    /// How many slow calls saw their cancellation.
    pub cancelled: Arc<AtomicUsize>,
    /// Signalled each time a slow call sees its cancellation.
    pub cancel_seen: Arc<Notify>,
}

impl TestKit {
    /// Waits until a slow call has seen its cancellation ([`HANG_GUARD`] at most).
    pub async fn wait_cancelled(seen: &Notify) {
        tokio::time::timeout(HANG_GUARD, seen.notified())
            .await
            .expect("a slow call saw its cancellation");
    }
}

fn schema(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

impl Toolkit for TestKit {
    fn name(&self) -> &str {
        "Test"
    }

    fn tools(&self) -> Vec<ToolSpec> {
        let read_only = Annotations {
            read_only: Some(true),
            idempotent: Some(true),
            ..Annotations::default()
        };
        vec![
            ToolSpec {
                name: "echo".into(),
                description: "Echoes its text.".into(),
                input_schema: schema(json!({"text": {"type": "string"}}), &["text"]),
                annotations: read_only,
            },
            ToolSpec {
                name: "slow".into(),
                description: "Counts to n, one step per 100 ms, reporting progress.".into(),
                input_schema: schema(json!({"n": {"type": "integer", "default": 3}}), &[]),
                annotations: read_only,
            },
            ToolSpec {
                name: "forgetful".into(),
                description: "Returns without answering.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
            ToolSpec {
                name: "later".into(),
                description: "Answers from a spawned task.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
            ToolSpec {
                name: "fail".into(),
                description: "Always fails as a tool error.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
        ]
    }

    fn call(&self, request: Request) -> CallFuture {
        let cancelled = Arc::clone(&self.cancelled);
        let cancel_seen = Arc::clone(&self.cancel_seen);
        Box::pin(async move {
            match request.tool.as_str() {
                "echo" => {
                    let text = request
                        .args
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    request.text(text);
                }
                "slow" => {
                    let n = request.args.get("n").and_then(Value::as_u64).unwrap_or(3);
                    let token = request.cancellation_token();
                    request.on_cancel(move |_| {
                        cancelled.fetch_add(1, Ordering::SeqCst);
                        cancel_seen.notify_one();
                    });
                    for step in 1..=n {
                        tokio::select! {
                            () = tokio::time::sleep(Duration::from_millis(100)) => {}
                            () = token.cancelled() => return,
                        }
                        let message = format!("step {step}/{n}");
                        request.progress(step as f64, Some(n as f64), Some(&message));
                    }
                    let mut data = serde_json::Map::new();
                    data.insert("counted".into(), json!(n));
                    request.result(data);
                }
                "forgetful" => drop(request),
                "later" => {
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        request.text("answered later");
                    });
                }
                _ => request.error("this tool always fails"),
            }
        })
    }
}

impl FromConfig for TestKit {
    const NAME: &'static str = "Test";

    fn from_config(config: &Value) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        match config.as_object() {
            Some(object) if object.is_empty() => Ok(TestKit::default()),
            Some(object) => Err(format!(
                "unknown config key(s): {}. Valid keys: (none)",
                object.keys().cloned().collect::<Vec<_>>().join(", ")
            )
            .into()),
            None => Err("the config must be an object".into()),
        }
    }
}

/// A second pack: `meet` answers only once two calls of it are running at the same
/// time (a barrier of two); `confirm` asks the client to confirm before it answers;
/// `insist` asks for input every time; `abandon` cancels itself; `garbled` answers
/// with something that is not an MCP result; `parts` answers with what its request
/// saw; `explode` panics while it runs, `explode-later` in a task it spawned, and
/// `explode-at-once` before it returns its future.
pub struct ExtraKit {
    barrier: Arc<Barrier>,
}

impl Default for ExtraKit {
    fn default() -> Self {
        Self {
            barrier: Arc::new(Barrier::new(2)),
        }
    }
}

impl Toolkit for ExtraKit {
    fn name(&self) -> &str {
        "Extra"
    }

    fn tools(&self) -> Vec<ToolSpec> {
        vec![
            ToolSpec {
                name: "meet".into(),
                description: "Answers once another call of it is running too.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
            ToolSpec {
                name: "confirm".into(),
                description: "Asks the user to confirm, then answers with the answer.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
            ToolSpec {
                name: "insist".into(),
                description: "Asks for input every time it is called.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
            ToolSpec {
                name: "abandon".into(),
                description: "Cancels itself.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
            ToolSpec {
                name: "garbled".into(),
                description: "Answers with something that is not an MCP result.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
            ToolSpec {
                name: "parts".into(),
                description: "Answers with what its request saw.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
            ToolSpec {
                name: "explode".into(),
                description: "Panics while it runs.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
            ToolSpec {
                name: "explode-later".into(),
                description: "Panics in a task it spawned, holding its request.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
            ToolSpec {
                name: "explode-at-once".into(),
                description: "Panics before it returns its future.".into(),
                input_schema: schema(json!({}), &[]),
                annotations: Annotations::default(),
            },
        ]
    }

    fn call(&self, request: Request) -> CallFuture {
        assert!(
            request.tool != "explode-at-once",
            "explode-at-once exploded at once"
        );
        let barrier = Arc::clone(&self.barrier);
        Box::pin(async move {
            match request.tool.as_str() {
                "meet" => {
                    barrier.wait().await;
                    request.text("met");
                }
                "insist" => request.ask(NeedsInput::new().state("again")),
                "explode-later" => {
                    tokio::spawn(async move {
                        tokio::task::yield_now().await;
                        let empty: Vec<u8> = Vec::new();
                        let _ = empty[request.args.len()];
                        request.text("unreachable");
                    });
                }
                "explode" => {
                    tokio::task::yield_now().await;
                    let empty: Vec<u8> = Vec::new();
                    let _ = empty[request.args.len()];
                    request.text("unreachable");
                }
                "abandon" => request.cancel(Some("gave up")),
                "garbled" => request.reply(json!({"content": "not a list"})),
                "parts" => {
                    let mut data = serde_json::Map::new();
                    data.insert("id".into(), request.id.clone());
                    data.insert("transport".into(), json!(request.peer.transport));
                    data.insert("protocol_version".into(), json!(request.protocol_version));
                    data.insert("toolset".into(), json!(request.toolset));
                    data.insert("params".into(), request.params.clone());
                    data.insert("progress_token".into(), json!(request.progress_token));
                    request.result(data);
                }
                _ => match request.input_responses.get("confirm") {
                    None => request.ask(
                        NeedsInput::new()
                            .form(
                                "confirm",
                                "Proceed?",
                                json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
                            )
                            .state("round-1"),
                    ),
                    Some(answer) => {
                        let state = request.request_state.clone().unwrap_or_default();
                        let text = format!("{state}: {answer}");
                        request.text(text);
                    }
                },
            }
        })
    }
}

/// The test server.
pub fn server(kit: TestKit) -> Server {
    Server::new("kit-test", "1.2.3")
        .instructions("Test tools.")
        .plug(kit)
}

/// A client speaking newline-delimited JSON-RPC to an in-process server.
pub struct Client {
    write: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    /// The serving task; it ends when the client closes its output.
    pub served: JoinHandle<std::io::Result<()>>,
}

impl Client {
    /// Starts `server` on in-memory pipes.
    pub fn start(server: Server) -> Self {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_end);
        let served = tokio::spawn(server.serve_io(server_read, server_write));
        let (read, write) = tokio::io::split(client_end);
        Self {
            write,
            lines: BufReader::new(read).lines(),
            served,
        }
    }

    /// Sends one raw line.
    pub async fn send_raw(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    /// Sends one raw line of bytes, which need not be UTF-8.
    pub async fn send_bytes(&mut self, line: &[u8]) {
        self.write.write_all(line).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    /// Sends one message.
    pub async fn send(&mut self, message: Value) {
        self.send_raw(&message.to_string()).await;
    }

    /// The next message from the server ([`HANG_GUARD`] at most).
    pub async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(HANG_GUARD, self.lines.next_line())
            .await
            .expect("the server answered")
            .unwrap()
            .expect("the server's output is open");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("server wrote non-JSON {line:?}: {e}"))
    }

    /// Closes the client's output: the server's end of input.
    pub async fn close(mut self) -> std::io::Result<()> {
        self.write.shutdown().await.unwrap();
        drop(self.write);
        tokio::time::timeout(HANG_GUARD, self.served)
            .await
            .expect("the server exits after end of input")
            .unwrap()
    }

    /// Performs the legacy handshake at `version`.
    pub async fn initialize(&mut self, version: &str) -> Value {
        self.initialize_with(version, json!({})).await
    }

    /// Performs the legacy handshake at `version`, declaring `capabilities`.
    pub async fn initialize_with(&mut self, version: &str, capabilities: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "it", "version": "1"}}}))
            .await;
        let answer = self.recv().await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        answer
    }
}

/// The 2026-07-28 per-request envelope, plus `extra` keys.
pub fn envelope(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "it", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let (Some(meta), Some(extra)) = (meta.as_object_mut(), extra.as_object()) {
        meta.extend(extra.clone());
    }
    meta
}

/// A `tools/call` message; `meta` is its `_meta` (or none).
pub fn call(id: i64, tool: &str, arguments: Value, meta: Option<Value>) -> Value {
    let mut params = json!({"name": tool, "arguments": arguments});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}
