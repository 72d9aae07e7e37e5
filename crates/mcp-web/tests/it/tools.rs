//! The Web pack's `tools/list`, pinned by a golden file, and refused arguments
//! answered over stdio as tool errors a program can act on.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use mcp_kit::{FromConfig, Toolkit};
use mcp_web::tools::Web;
use serde_json::{Value, json};

/// Where the golden `tools/list` lives.
fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tools_list.json")
}

/// The Web pack's tools as `tools/list` carries them, pretty-printed.
fn tools_list() -> String {
    let web = Web::from_config(&json!({})).expect("the default config builds the pack");
    let tools: Vec<Value> = web.tools().iter().map(|tool| tool.to_json()).collect();
    let mut text = serde_json::to_string_pretty(&tools).expect("JSON serialises");
    text.push('\n');
    text
}

#[test]
fn tools_list_matches_the_golden_file() {
    let path = golden_path();
    let actual = tools_list();
    let golden = std::fs::read_to_string(&path).unwrap_or_default();
    if actual == golden {
        return;
    }
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(&path, &actual).expect("the golden file is written");
        return;
    }
    panic!(
        "the Web pack's tools/list differs from {}.\n\
         If the change is intended, regenerate the file with\n  \
         UPDATE_GOLDEN=1 cargo test -p mcp-web-server --test it tools::\n\
         and review its diff.\n--- golden\n{golden}\n--- actual\n{actual}",
        path.display()
    );
}

/// `mcp-web serve` over stdio, killed on drop.
pub(crate) struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl StdioServer {
    fn start() -> Self {
        Self::spawn(&[], true)
    }

    /// `mcp-web serve ARGS…`, after the legacy handshake when `initialize`.
    pub(crate) fn spawn(args: &[&str], initialize: bool) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-web"))
            .arg("serve")
            .args(args)
            .env("MCP_WEB_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mcp-web starts");
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let mut served = Self {
            child,
            stdin,
            stdout,
        };
        if !initialize {
            return served;
        }
        served.request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}),
        );
        served.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        served
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").expect("written");
        self.stdin.flush().expect("flushed");
    }

    /// Sends request `id` and returns its `result`, skipping notifications.
    pub(crate) fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.exchange(id, method, params)["result"].clone()
    }

    /// Sends request `id` and returns the whole answer, skipping notifications.
    fn exchange(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let read = self
                .stdout
                .read_line(&mut line)
                .expect("stdout is readable");
            assert!(
                read > 0,
                "the server closed stdout before answering {method}"
            );
            let message: Value = serde_json::from_str(&line).expect("every line is JSON");
            if message["id"] == id {
                return message;
            }
        }
    }
}

#[test]
fn the_served_tools_list_is_the_golden_one() {
    let golden: Value = serde_json::from_str(&tools_list()).expect("JSON");
    let mut served = StdioServer::start();
    let listed = served.request(1, "tools/list", json!({}));
    assert_eq!(listed["tools"], golden, "{listed}");
}

#[test]
fn refused_arguments_are_tool_errors_naming_parameter_and_rule() {
    let mut served = StdioServer::start();
    let cases = [
        (
            json!({"url": 7}),
            "url",
            "wrong_type",
            "web_fetch: the parameter \"url\" must be a string, not 7",
        ),
        (
            json!({}),
            "url",
            "missing_parameter",
            "web_fetch: the parameter \"url\" is required and takes a string",
        ),
        (
            json!({"uri": "https://example.com/"}),
            "uri",
            "unknown_parameter",
            "web_fetch: \"uri\" is not a parameter of web_fetch; it takes exactly one parameter, \"url\"",
        ),
    ];
    for (id, (arguments, parameter, rule, message)) in (1..).zip(cases) {
        let result = served.request(
            id,
            "tools/call",
            json!({"name": "web_fetch", "arguments": arguments}),
        );
        assert_eq!(result["isError"], true, "{result}");
        assert_eq!(result["content"][0]["text"], message, "{result}");
        assert_eq!(
            result["structuredContent"],
            json!({"kind": "bad_arguments", "rule": rule, "config_key": null, "parameter": parameter}),
            "{result}"
        );
    }
}

/// `mcp-web serve ARGS…` on stdio in the legacy era (after `initialize`) or the
/// 2026-07-28 era (every request enveloped), its answers read whole.
struct Served {
    server: StdioServer,
    modern: bool,
}

impl Served {
    fn start(args: &[&str], modern: bool) -> Served {
        Served {
            server: StdioServer::spawn(args, !modern),
            modern,
        }
    }

    /// Sends request `id` (enveloped in the modern era) and returns the whole answer.
    fn ask(&mut self, id: u64, method: &str, mut params: Value) -> Value {
        if self.modern {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            });
        }
        self.server.exchange(id, method, params)
    }
}

/// The `tools` key in both protocol eras: only the tools it names are listed, a call
/// of another is the protocol's unknown-tool error (not a tool error), and the list's
/// caching hints (2026-07-28 only) say a host may keep it.
#[test]
fn the_tools_key_serves_only_the_named_tools_in_both_eras() {
    for modern in [false, true] {
        let mut served = Served::start(&["--tools", "web_fetch", "--tools", "web_grep"], modern);
        let list = served.ask(1, "tools/list", json!({}));
        let names: Vec<&str> = list["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, ["web_fetch", "web_grep"], "modern: {modern}");
        let refused = served.ask(
            2,
            "tools/call",
            json!({"name": "web_search", "arguments": {"query": "raku"}}),
        );
        assert_eq!(
            refused["error"]["code"], -32602,
            "modern {modern}: {refused}"
        );
        assert_eq!(refused["error"]["message"], "Unknown tool: web_search");
        if modern {
            assert_eq!(list["result"]["ttlMs"], 3_600_000, "{list}");
            assert_eq!(list["result"]["cacheScope"], "public", "{list}");
            let discover = served.ask(3, "server/discover", json!({}));
            assert_eq!(discover["result"]["ttlMs"], 3_600_000, "{discover}");
            assert_eq!(discover["result"]["cacheScope"], "public", "{discover}");
        } else {
            assert!(list["result"].get("ttlMs").is_none(), "{list}");
            assert!(list["result"].get("cacheScope").is_none(), "{list}");
        }
    }
    // By default all four are served.
    let mut served = Served::start(&[], true);
    let list = served.ask(1, "tools/list", json!({}));
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(4));
}

/// A name that is not a tool is a configuration error listing the valid ones, and so
/// is an empty list.
#[test]
fn an_unknown_tool_name_is_a_configuration_error_listing_the_tools() {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-web"))
        .args(["serve", "--tools", "web_fetch", "--tools", "web_shell"])
        .stdin(Stdio::null())
        .output()
        .expect("mcp-web runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(r#"config key "tools" names "web_shell", which is not a tool of this server; the tools are web_search, web_fetch, web_crawl, web_grep"#),
        "{stderr}"
    );
    let error = Web::from_config(&json!({"tools": []})).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("must name at least one tool: web_search, web_fetch, web_crawl, web_grep"),
        "{error}"
    );
}
