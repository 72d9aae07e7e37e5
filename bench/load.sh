#!/usr/bin/env bash
# Load (not a test): 200 concurrent web_fetch and web_grep calls over
# `mcp-web serve --http` against a local site, in both protocol eras: errors,
# p50/p99 latency, the server's peak RSS and its open fds before and after; then the same
# calls beside HOSTILE (12) hostile ones (a PDF bomb, a pathological pattern, a fan-out
# crawl) and the ratio of the calls' p99 beside them to alone (HOSTILE=0: alone only).
# Builds mcp-web in release mode (set MCP_WEB=path to use another build) and prints
# a Markdown table. CALLS=n changes the number of calls.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${MCP_WEB:-}" ]; then
  cargo build --release --quiet -p mcp-web-server
  MCP_WEB=target/release/mcp-web
fi
python3 bench/load.py "$MCP_WEB" "${CALLS:-200}"
