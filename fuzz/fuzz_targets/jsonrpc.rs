//! Fuzzes the JSON-RPC line reader through the stdio transport: a server with one
//! tool serves the input as newline-delimited JSON-RPC over in-memory pipes and must
//! end cleanly at its end. Every line it writes is one JSON-RPC 2.0 object; every
//! response carries an `id` member (`null` when the request's id could not be read);
//! and every input line that is not JSON is answered with exactly one parse error
//! (-32700). Run with `cargo fuzz run jsonrpc` from the repository root.
#![no_main]

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};

use libfuzzer_sys::fuzz_target;
use mcp_kit::{CallFuture, Request, Server, ToolSpec, Toolkit};
use serde_json::{Value, json};
use tokio::io::AsyncWrite;

/// One tool that echoes its arguments.
struct Echo;

impl Toolkit for Echo {
    fn name(&self) -> &str {
        "Echo"
    }
    fn tools(&self) -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "echo".into(),
            description: "Echoes its arguments.".into(),
            input_schema: json!({"type": "object"}),
            annotations: Default::default(),
        }]
    }
    fn call(&self, request: Request) -> CallFuture {
        Box::pin(async move {
            let text = Value::Object(request.args.clone()).to_string();
            request.text(text);
        })
    }
}

/// A writer into a shared buffer.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl AsyncWrite for Sink {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.0.lock().expect("one writer").extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The input lines (a last line without a newline counts) that are not blank and do
/// not parse as JSON, after a UTF-8 byte order mark.
fn not_json(data: &[u8]) -> usize {
    data.split(|&b| b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .filter(|line| {
            let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            serde_json::from_slice::<Value>(line).is_err()
        })
        .count()
}

fuzz_target!(|data: &[u8]| {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    let runtime = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    });
    let sink = Sink::default();
    let output = Arc::clone(&sink.0);
    let input = io::Cursor::new(data.to_vec());
    let served = runtime.block_on(Server::new("fuzz", "0").plug(Echo).serve_io(input, sink));
    assert!(served.is_ok(), "{served:?}");
    let output = output.lock().expect("serving ended").clone();
    let text = String::from_utf8(output).expect("the output is UTF-8");
    let mut parse_errors = 0;
    for line in text.lines() {
        let message: Value = serde_json::from_str(line).expect("each output line is JSON");
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        if message.get("method").is_none() {
            assert!(message.get("id").is_some(), "a response without an id: {line}");
            assert!(
                message.get("result").is_some() != message.get("error").is_some(),
                "{line}"
            );
        }
        if message["error"]["code"] == -32700 {
            parse_errors += 1;
        }
    }
    assert_eq!(parse_errors, not_json(data), "one parse error per line that is not JSON");
});
