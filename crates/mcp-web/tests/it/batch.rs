//! `mcp-web batch`: the real binary runs a file of calls against a server this test
//! starts on loopback (port 0), permitted explicitly: identical calls make one
//! request, answers keep the file's order whatever fails, a malformed line is named
//! with exit status 2, and the default policy still refuses loopback.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::Server;

fn site(path: &str) -> Vec<u8> {
    let body = format!(
        "<html><head><title>Page {path}</title></head><body><p>at {path}</p></body></html>"
    );
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Runs `mcp-web batch ARGS…` with `stdin` as its standard input.
fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-web"))
        .arg("batch")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mcp-web binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write the batch");
    let output = child.wait_with_output().expect("the batch ends");
    (
        output.status.code().expect("an exit code"),
        String::from_utf8(output.stdout).expect("utf-8 stdout"),
        String::from_utf8(output.stderr).expect("utf-8 stderr"),
    )
}

fn fetch_line(url: &str) -> String {
    format!("{{\"tool\": \"web_fetch\", \"arguments\": {{\"url\": \"{url}\"}}}}\n")
}

fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect()
}

#[test]
fn five_calls_for_one_url_make_one_request() {
    let server = Server::start(site);
    let batch = fetch_line(&server.url("/page")).repeat(5);
    let (code, stdout, stderr) = run(&["-", "--json", "--allow-loopback"], &batch);
    assert_eq!(code, 0, "{stderr}");
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 5, "{stdout}");
    for line in &lines {
        assert_eq!(line["tool"], "web_fetch");
        assert_eq!(line["isError"], false, "{line}");
        let text = line["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.starts_with("# Page /page"), "{text}");
    }
    assert_eq!(server.requests("/page"), 1);
}

#[test]
fn a_batch_mixing_failures_and_successes_keeps_order() {
    let server = Server::start(site);
    let file = std::env::temp_dir().join(format!("mcp-web-batch-{}.jsonl", std::process::id()));
    let batch = [
        fetch_line(&server.url("/one")),
        fetch_line("file:///etc/passwd"),
        "{\"tool\": \"web_nothing\", \"arguments\": {}}\n".to_owned(),
        "{\"tool\": \"web_fetch\", \"arguments\": {\"url\": 3}}\n".to_owned(),
        "\n".to_owned(),
        fetch_line(&server.url("/two")),
    ]
    .concat();
    std::fs::write(&file, batch).expect("write the batch file");
    let path = file.to_string_lossy().into_owned();
    let (code, stdout, stderr) = run(&[&path, "--json", "--allow-loopback"], "");
    assert_eq!(code, 0, "{stderr}");
    let lines = json_lines(&stdout);
    let summary: Vec<(bool, String)> = lines
        .iter()
        .map(|line| {
            let text = line["content"][0]["text"].as_str().unwrap_or_default();
            (
                line["isError"] == true,
                text.lines().next().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(summary.len(), 5, "{stdout}");
    assert_eq!(summary[0], (false, "# Page /one".to_owned()));
    assert!(
        summary[1].0 && summary[1].1.contains("scheme"),
        "{:?}",
        summary[1]
    );
    assert_eq!(lines[1]["structuredContent"]["kind"], "bad_url");
    assert_eq!(
        summary[2],
        (
            true,
            "the Web pack has no tool named web_nothing".to_owned()
        )
    );
    assert!(
        summary[3].0 && summary[3].1.contains("\"url\""),
        "{:?}",
        summary[3]
    );
    assert_eq!(summary[4], (false, "# Page /two".to_owned()));

    // The same batch as text: one header line per call, in order.
    let (code, stdout, stderr) = run(&[&path, "--allow-loopback"], "");
    assert_eq!(code, 0, "{stderr}");
    let headers: Vec<&str> = stdout.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(headers.len(), 5, "{stdout}");
    assert!(headers[0].starts_with("[1/5] web_fetch {\"url\":\"http://127.0.0.1:"));
    assert!(headers[1].starts_with("[2/5] web_fetch") && headers[1].ends_with(": error"));
    assert_eq!(headers[2], "[3/5] web_nothing {}: error");
    assert!(headers[4].starts_with("[5/5] web_fetch") && !headers[4].ends_with(": error"));
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_malformed_line_is_named_with_exit_status_2_and_nothing_runs() {
    let server = Server::start(site);
    let batch = format!(
        "{}\n{{\"tool\": \"web_fetch\", \"arguments\": [] }}\n",
        fetch_line(&server.url("/page"))
    );
    let (code, stdout, stderr) = run(&["-", "--allow-loopback"], &batch);
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    assert!(
        stderr.starts_with("mcp-web: line 3 of the batch: \"arguments\" is not an object"),
        "{stderr}"
    );
    assert_eq!(server.connections(), 0);
}

#[test]
fn the_default_policy_refuses_loopback_in_a_batch_too() {
    let server = Server::start(site);
    let (code, stdout, stderr) = run(
        &["-", "--json", "--ask-permission"],
        &fetch_line(&server.url("/page")),
    );
    assert_eq!(code, 0, "{stderr}");
    let lines = json_lines(&stdout);
    assert_eq!(lines[0]["isError"], true);
    assert_eq!(
        lines[0]["structuredContent"]["config_key"],
        "allow-loopback"
    );
    assert_eq!(server.connections(), 0);
}
