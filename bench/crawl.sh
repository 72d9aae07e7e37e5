#!/usr/bin/env bash
# Benchmark (not a test): `mcp-web crawl` next to `wget --recursive` on the same local
# site in the same run. The site is 1,000 generated HTML pages (a tree of five links per
# page, each page also linking home) served by `python3 -m http.server` on 127.0.0.1.
# Prints pages/s, CPU seconds and peak RSS of both and the ratios. Then the HTTP cache over
# `mcp-web serve` (bench/cache_bench.py, cache on and off): the crawl -> grep -> fetch
# sequence on the same generated site (requests made, wall time) and repeated web_fetch of
# one page (p50, p90).
#
# MCP_WEB names the binary to measure (default target/release/mcp-web, built when
# missing). Needs wget and GNU time (`apt-get install -y wget time`).
set -euo pipefail
cd "$(dirname "$0")/.."

PAGES=${PAGES:-1000}
MCP_WEB=${MCP_WEB:-target/release/mcp-web}
if [ ! -x "$MCP_WEB" ]; then
  cargo build --release --quiet -p mcp-web-server
fi

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The site: / is page 0 (index.html), page N is /p/N.html, linking pages 5N+1 … 5N+5.
mkdir -p "$work/site/p"
python3 - "$work/site" "$PAGES" <<'PY'
import sys
root, pages = sys.argv[1], int(sys.argv[2])
para = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 12 + "</p>"
for n in range(pages):
    links = "".join(
        f'<li><a href="/p/{c}.html">Page {c}</a></li>'
        for c in range(5 * n + 1, 5 * n + 6) if c < pages
    )
    html = (
        f"<!doctype html><html><head><title>Page {n}</title></head><body>"
        f'<nav><a href="/">Home</a></nav><main><h1>Page {n}</h1>{para}{para}'
        f"<ul>{links}</ul></main></body></html>"
    )
    path = f"{root}/index.html" if n == 0 else f"{root}/p/{n}.html"
    with open(path, "w") as f:
        f.write(html)
PY

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/site" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 50); do
  if python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null; then break; fi
  sleep 0.1
done

# measure NAME COMMAND…: runs it under GNU time, prints "seconds rss_kib cpu_seconds".
measure() {
  local log="$work/$1.time"; shift
  /usr/bin/time -v -o "$log" "$@" >"$work/out" 2>/dev/null || true
  local wall rss cpu
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log" |
    awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
  cpu=$(awk -F': ' '/User time|System time/ {t += $2} END {print t}' "$log")
  echo "$wall $rss $cpu"
}

read -r mw_s mw_rss mw_cpu < <(measure mcp-web "$MCP_WEB" crawl "http://127.0.0.1:$port/" \
  --allow-loopback --crawl-delay 0 --depth 5 --max-pages "$PAGES")
mw_pages=$(sed -n 's/^Crawled \([0-9]*\) pages.*/\1/p' "$work/out" | head -1)

# grep across the same site: the pattern is on the last page only, so every page is read
# (one request at a time, as web_grep walks).
read -r gr_s gr_rss gr_cpu < <(measure grep "$MCP_WEB" grep "http://127.0.0.1:$port/" "Page $((PAGES - 1))" \
  --allow-loopback --crawl-delay 0 --depth 5 --max-pages "$PAGES" --max-results 1000)
gr_lines=$(grep -c ':' "$work/out" || true)

# --no-http-keep-alive: the site's server answers in HTTP/1.0 and closes each connection,
# and wget, asking to keep it open, then waits tens of milliseconds per page for nothing
# (60 pages: 2.1 s with keep-alive, 0.07 s without), which measures the pairing, not wget.
read -r wg_s wg_rss wg_cpu < <(cd "$work" && measure wget wget --quiet --recursive --level=5 \
  --no-parent --no-http-keep-alive --directory-prefix "$work/wget" "http://127.0.0.1:$port/")
wg_pages=$(find "$work/wget" -name '*.html' | wc -l)

python3 - "$mw_pages" "$mw_s" "$mw_rss" "$wg_pages" "$wg_s" "$wg_rss" "$gr_s" "$gr_rss" "$gr_lines" "$mw_cpu" "$wg_cpu" "$gr_cpu" <<'PY'
import sys
mp, ms, mr, wp, ws, wr, gs, gr, gl, mc, wc, gc = sys.argv[1:]
mc, wc, gc = float(mc), float(wc), float(gc)
gs, gr = float(gs), int(gr)
mp, wp = int(mp or 0), int(wp)
ms, ws, mr, wr = float(ms), float(ws), int(mr), int(wr)
mps, wps = mp / ms, wp / ws
print("| crawler | pages | seconds | pages/s | CPU seconds (user + sys) | peak RSS (MiB) |")
print("|---|---|---|---|---|---|")
print(f"| mcp-web crawl (concurrency 4, crawl-delay 0) | {mp} | {ms:.2f} | {mps:.0f} | {mc:.2f} | {mr / 1024:.1f} |")
print(f"| wget --recursive --level=5 | {wp} | {ws:.2f} | {wps:.0f} | {wc:.2f} | {wr / 1024:.1f} |")
print(f"| mcp-web grep --depth 5 (one request at a time; {gl} matching lines) | {mp} | {gs:.2f} | {mp / gs:.0f} | {gc:.2f} | {gr / 1024:.1f} |")
print(f"\npages/s ratio mcp-web / wget: {mps / wps:.2f}; CPU ratio: {mc / wc:.2f}; peak RSS ratio: {mr / wr:.2f}")
PY

echo
python3 bench/cache_bench.py "$MCP_WEB" "$PAGES"
