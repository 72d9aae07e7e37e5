//! `mcp-web serve` over stdio against the official MCP Python SDK client
//! (`mcp==2.3.0`, from `ci/requirements.txt`), in the legacy handshake era, the
//! `auto` mode that discovers the 2026-07-28 era, and a client pinned to 2026-07-28.
//! The checks themselves live in `tests/protocol/stdio_client.py` (and, for
//! `ask-permission`, in `tests/protocol/permission_client.py`); a missing Python
//! or SDK fails the test with the command that installs it.

use std::process::Command;

/// Runs the Python client in `mode` against the built binary and fails with its
/// output unless every check passed.
fn python_client(mode: &str) {
    python_script("stdio_client.py", mode);
}

/// Runs the Python script `script` of `tests/protocol` in `mode` against the built
/// binary and fails with its output unless every check passed.
fn python_script(script: &str, mode: &str) {
    let script = format!("{}/tests/protocol/{script}", env!("CARGO_MANIFEST_DIR"));
    let output = Command::new("python3")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_mcp-web"))
        .arg(mode)
        .env("MCP_WEB_LOG", "error")
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "the protocol tests need python3 ({e}); install Python 3, then run \
                 ci/test.sh (or `python3 -m pip install -r ci/requirements.txt`)"
            )
        });
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python SDK client {script} in mode {mode} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    assert!(
        stdout.contains(&format!("all checks passed in mode {mode}")),
        "the Python client did not report its checks:\n{stdout}\n{stderr}"
    );
}

#[test]
fn python_sdk_legacy_handshake() {
    python_client("legacy");
}

#[test]
fn python_sdk_auto_discovers_the_modern_era() {
    python_client("auto");
}

#[test]
fn python_sdk_pinned_to_2026_07_28() {
    python_client("2026-07-28");
}

#[test]
fn python_sdk_asks_permission_through_legacy_elicitation() {
    python_script("permission_client.py", "legacy");
}

#[test]
fn python_sdk_asks_permission_through_input_required_on_2026_07_28() {
    python_script("permission_client.py", "2026-07-28");
}

#[test]
fn python_sdk_asks_permission_in_auto_mode() {
    python_script("permission_client.py", "auto");
}
