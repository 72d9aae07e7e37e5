#!/usr/bin/env bash
# Extraction benchmark: quality (score.py) and single-core throughput of mcp-web's extractor
# side by side with dom_smoothie alone (the crate it is built on, default settings, its own
# text) and trafilatura, on a labelled development set: the snippet set (cases.json with
# must/must-not snippets), the full-text set or the page-types set (cases.json with truth
# files; the types set's pages are gzipped and read decompressed, before the clock).
#
#   bench/extract.sh [DEVSET_DIR] [ROUNDS]
#
# DEVSET_DIR defaults to ../shared/extract-devset (it holds cases.json, pages/ and score.py).
# trafilatura is run from $TRAFILATURA_PYTHON (default: python3) and must be installed there
# (pip install trafilatura==2.3.1 lxml_html_clean). Both extractors are pinned to one core
# with taskset (core $BENCH_CORE, default 0); throughput is the MB of HTML extracted per
# second, best of ROUNDS (default 3).
#
# On the full-text set each extractor's answer form is scored too, untimed: its title as a
# `# Title` line, then its text (ours as `web_fetch` answers; trafilatura's title from its
# metadata), scored without stripping the title line, as the set's score.py advises for
# outputs that carry one (most truths hold the headline), with title exactness by
# bench/titles.py for all three alike.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
devset="$(cd "${1:-$root/../shared/extract-devset}" && pwd)"
rounds="${2:-3}"
python="${TRAFILATURA_PYTHON:-python3}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
pin=(taskset -c "${BENCH_CORE:-0}")
command -v taskset >/dev/null || pin=()

cargo build --quiet --release -p mcp-web-core --example extract_devset --manifest-path "$root/Cargo.toml"
bin="$root/target/release/examples/extract_devset"

echo "== mcp-web extract (release build, one core, best of $rounds)"
"${pin[@]}" "$bin" "$devset" "$out/mcp-web" "$rounds"
# The snippet set's scorer prints a summary with --quiet; the full-text set's prints its
# summary (macro, micro, per dataset or page type) last.
score() {
  if python3 "$devset/score.py" --help | grep -q -- --quiet; then
    python3 "$devset/score.py" "$1" --quiet | tail -n 4
  else
    python3 "$devset/score.py" "$1" | tail -n 12
  fi
}
score "$out/mcp-web"

echo "== dom_smoothie alone (release build, one core, best of $rounds)"
EXTRACT_ENGINE=dom_smoothie "${pin[@]}" "$bin" "$devset" "$out/dom_smoothie" "$rounds"
score "$out/dom_smoothie"

echo "== trafilatura (one core, best of $rounds)"
"${pin[@]}" "$python" - "$devset" "$out/trafilatura" "$rounds" "$out/trafilatura-answer" <<'PY'
import gzip, json, os, sys, time
from trafilatura import extract, extract_metadata, __version__
from trafilatura.utils import load_html
devset, out, rounds, answer = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
os.makedirs(out, exist_ok=True)
cases = json.load(open(os.path.join(devset, "cases.json")))
def read(path):
    raw = open(path, "rb").read()
    return gzip.decompress(raw) if path.endswith(".gz") else raw
pages = [(c["id"], read(os.path.join(devset, c["file"]))) for c in cases]
total = sum(len(html) for _, html in pages)
best = float("inf")
for r in range(rounds):
    start = time.perf_counter()
    for cid, html in pages:
        text = extract(html, fast=False, include_comments=False, include_tables=True, include_formatting=False)
        if r == 0:
            open(os.path.join(out, cid + ".txt"), "w", encoding="utf-8").write(text or "")
    best = min(best, time.perf_counter() - start)
mb = total / 1e6
print(f"trafilatura {__version__}: {len(pages)} pages, {mb:.2f} MB in {best:.3f} s = {mb / best:.1f} MB/s", file=sys.stderr)
# The answer form, after the clock: the title from trafilatura's metadata, then the text.
if any("truth" in c for c in cases):
    os.makedirs(answer, exist_ok=True)
    for cid, html in pages:
        text = open(os.path.join(out, cid + ".txt"), encoding="utf-8").read()
        tree = load_html(html)
        title = extract_metadata(tree).title if tree is not None else None
        open(os.path.join(answer, cid + ".txt"), "w", encoding="utf-8").write(f"# {title}\n\n{text}" if title else text)
PY
score "$out/trafilatura"

if [ -d "$out/trafilatura-answer" ]; then
  EXTRACT_ANSWER=1 "$bin" "$devset" "$out/mcp-web-answer" 2>/dev/null
  EXTRACT_ANSWER=1 EXTRACT_ENGINE=dom_smoothie "$bin" "$devset" "$out/dom_smoothie-answer" 2>/dev/null
  for x in mcp-web dom_smoothie trafilatura; do
    echo "== $x, answer form (# Title line, then the text; untimed)"
    python3 "$root/bench/titles.py" "$devset" "$out/$x-answer"
    python3 "$devset/score.py" "$out/$x-answer" | tail -n 8 | head -n 2
  done
fi
