//! `mcp-web serve` on stdio against a client that breaks the rules: notifications
//! before the handshake, invalid requests and lines that are not JSON are answered
//! or ignored, the session goes on, and end of input is still a clean exit.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn stray_notifications_and_invalid_requests_do_not_end_the_session() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-web"))
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp-web starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":{"not":"an id"},"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ] {
        writeln!(stdin, "{line}").expect("written");
    }
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
    assert_eq!(messages.len(), 3, "{stdout}");
    assert!(
        messages
            .iter()
            .any(|m| m["id"] == 1 && m["result"]["serverInfo"]["name"] == "mcp-web"),
        "{stdout}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.get("id") == Some(&serde_json::Value::Null) && m["error"]["code"] == -32600),
        "{stdout}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m["id"] == 2 && m["result"]["tools"].is_array()),
        "{stdout}"
    );
}
