//! `mcp-web serve` as a process: stdin closing is a clean exit, a non-loopback bind
//! without a token is refused before anything is bound, and a configured token is
//! demanded over HTTP.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Runs `mcp-web serve ARGS` with stdin closed at once.
fn serve_with_closed_stdin(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-web"))
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp-web starts");
    drop(child.stdin.take());
    child.wait_with_output().expect("mcp-web exits")
}

#[test]
fn stdin_closing_before_any_request_exits_zero() {
    let output = serve_with_closed_stdin(&[]);
    assert!(output.status.success(), "{output:?}");
    assert!(output.stdout.is_empty(), "nothing on stdout: {output:?}");
}

#[test]
fn stdin_closing_after_requests_exits_zero_and_stdout_is_only_protocol() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-web"))
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp-web starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    writeln!(stdin, "{init}").expect("written");
    writeln!(stdin, "not json").expect("written");
    drop(stdin);
    let output = child.wait_with_output().expect("mcp-web exits");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let messages: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?} is not JSON: {e}"))
        })
        .collect();
    assert_eq!(messages.len(), 2, "{stdout}");
    let initialized = messages
        .iter()
        .find(|m| m["id"] == 1 && m["result"]["serverInfo"]["name"] == "mcp-web")
        .expect("initialize answered");
    // The default instructions name every tool the server lists.
    let instructions = initialized["result"]["instructions"]
        .as_str()
        .expect("instructions");
    for tool in ["web_search", "web_fetch", "web_crawl", "web_grep"] {
        assert!(instructions.contains(tool), "{tool}: {instructions}");
    }
    assert!(messages.iter().any(|m| m["error"]["code"] == -32700));
}

#[test]
fn a_non_loopback_bind_without_a_token_is_refused() {
    // The refusal comes before binding: no socket is opened on 0.0.0.0.
    let output = serve_with_closed_stdin(&["--http", "0.0.0.0:8787"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--auth-token-env") && stderr.contains("--auth-token-file"),
        "{stderr}"
    );
}

#[test]
fn an_unset_token_variable_is_a_configuration_error() {
    let output = serve_with_closed_stdin(&[
        "--http",
        "127.0.0.1:0",
        "--auth-token-env",
        "MCP_WEB_TEST_TOKEN_THAT_IS_NOT_SET",
    ]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("MCP_WEB_TEST_TOKEN_THAT_IS_NOT_SET"),
        "{stderr}"
    );
}

/// One POST of an initialize request; the status code.
fn post_initialize(addr: &str, authorization: Option<&str>) -> u16 {
    #[expect(
        clippy::disallowed_methods,
        reason = "a test client of a loopback server the test started"
    )]
    let mut stream = std::net::TcpStream::connect(addr).expect("the server accepts");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a read timeout can be set");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let auth = authorization
        .map(|a| format!("Authorization: {a}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("the request is written");
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_configured_token_is_required_over_http() {
    let served = serve_http(
        &["--auth-token-env", "MCP_WEB_IT_TOKEN"],
        &[("MCP_WEB_IT_TOKEN", "open-sesame")],
    );
    let addr = served
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp");
    let missing = post_initialize(addr, None);
    let wrong = post_initialize(addr, Some("Bearer open-sesam"));
    let right = post_initialize(addr, Some("Bearer open-sesame"));
    assert_eq!((missing, wrong, right), (401, 401, 200));
}

/// A running `mcp-web serve --http 127.0.0.1:0`, killed on drop.
pub(crate) struct Served {
    child: Child,
    /// The endpoint the server logged, `http://127.0.0.1:PORT/mcp`.
    pub(crate) url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `mcp-web serve --http 127.0.0.1:0` with `extra` arguments and `env`, and reads
/// its endpoint from the line it logs.
pub(crate) fn serve_http(extra: &[&str], env: &[(&str, &str)]) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-web"))
        .args(["serve", "--http", "127.0.0.1:0"])
        .args(extra)
        .envs(env.iter().copied())
        .env("MCP_WEB_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp-web starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let mut lines = BufReader::new(stderr).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("mcp-web logs its address before exiting")
            .expect("stderr is readable");
        if let Some(at) = line.find("http://") {
            break line[at..].trim().to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    Served { child, url }
}
