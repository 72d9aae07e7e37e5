#!/usr/bin/env bash
# Writes crates/mcp-web/startup.order anew: the functions `mcp-web serve` runs from its
# start to its first tools/list answer, which the release link lays out side by side
# (crates/mcp-web/build.rs) so that an idle server maps about 1 MiB of code rather than
# 7 of an 11 MiB `.text`. Run it by hand after a dependency or compiler upgrade, or when
# `bench/mcp.sh` shows idle RSS creeping up: names the file lists that a build lacks are
# passed over by the linker, so a stale file costs memory, never correctness.
#
# Needs valgrind. Links the release binary once unstripped, records one start under
# callgrind, then builds the release binary again with the new order.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind > /dev/null || { echo "startup-order.sh: valgrind is needed" >&2; exit 1; }

cargo rustc --release --quiet -p mcp-web-server --bin mcp-web -- -C strip=none
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"startup-order","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
  sleep 3
} | valgrind --quiet --tool=callgrind --demangle=no --compress-strings=no \
  --callgrind-out-file="$work/callgrind.out" target/release/mcp-web serve > "$work/answers"
grep -q '"tools"' "$work/answers" || { echo "startup-order.sh: the server gave no tools/list answer" >&2; exit 1; }

# Every function of the binary's own object, in the order callgrind first lists it.
python3 - "$work/callgrind.out" > crates/mcp-web/startup.order <<'PY'
import os, sys
obj, seen = None, set()
for line in open(sys.argv[1]):
    if line.startswith("ob="):
        obj = os.path.basename(line[3:].strip())
    elif line.startswith("fn=") and obj == "mcp-web":
        name = line[3:].strip()
        # A bare address is a stub with no symbol, which the linker cannot place.
        if name not in seen and not name.startswith("0x"):
            seen.add(name)
            print(name)
PY
echo "startup-order.sh: $(wc -l < crates/mcp-web/startup.order) functions in crates/mcp-web/startup.order"
cargo build --release --quiet -p mcp-web-server
