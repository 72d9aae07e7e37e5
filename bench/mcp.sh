#!/usr/bin/env bash
# Benchmark (not a test): `mcp-web serve` next to the reference `mcp-server-fetch`,
# same raw stdio client, same local page: cold start (spawn -> tools/list answered)
# fetch latency p50 over 50 calls, idle RSS, peak RSS fetching a 2 MiB page, and the size
# of what each installs. Prints Markdown tables and the ratios.
# Builds mcp-web in release mode and installs the reference server, pinned, into
# bench/.venv-ref (kept out of git).
set -euo pipefail
cd "$(dirname "$0")/.."

REFERENCE_VERSION=2026.10.24
if [ ! -x bench/.venv-ref/bin/mcp-server-fetch ]; then
  python3 -m venv bench/.venv-ref
  bench/.venv-ref/bin/python -m pip install --quiet --disable-pip-version-check \
    "mcp-server-fetch==${REFERENCE_VERSION}"
fi
cargo build --release --quiet -p mcp-web-server

python3 bench/mcp_bench.py \
  "mcp-web=target/release/mcp-web serve --allow-loopback" \
  "mcp-server-fetch ${REFERENCE_VERSION}=bench/.venv-ref/bin/mcp-server-fetch --ignore-robots-txt --allow-private-ips"

ours=$(stat -c %s target/release/mcp-web)
reference=$(du -sb bench/.venv-ref | cut -f1)
echo
echo "Installed size: mcp-web $(( ours / 1024 )) KiB (one static binary, release build, stripped);" \
  "mcp-server-fetch's virtualenv $(( reference / 1024 )) KiB (Python itself not counted)."
