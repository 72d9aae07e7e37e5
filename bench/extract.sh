#!/usr/bin/env bash
# Extraction benchmark: quality (the set's score.py) and single-core throughput of mcp-web's
# extractor side by side with dom_smoothie alone (the crate it is built on, default settings,
# its own text), trafilatura and rs-trafilatura, on a labelled development set: the snippet
# set (cases.json with must/must-not snippets), the full-text set or the page-types set
# (cases.json with truth files; the types set's pages are gzipped and read decompressed,
# before the clock).
#
#   bench/extract.sh [DEVSET_DIR] [ROUNDS]
#
# DEVSET_DIR defaults to ../shared/extract-devset (it holds cases.json, pages/ and score.py).
# The Python extractors run from $TRAFILATURA_PYTHON (default: python3): trafilatura must be
# installed there (pip install trafilatura==2.3.1 lxml_html_clean); rs-trafilatura
# (pip install rs-trafilatura) is run when it is installed there, and said skipped when not.
# Every extractor is pinned to one core with taskset (core $BENCH_CORE, default 0);
# throughput is the MB of HTML extracted per second, best of ROUNDS (default 3), timed on
# the text form (the extractor's text alone).
#
# On a set with truth files each extractor's answer form is scored, untimed: its title as a
# `# Title` line, then its text (ours as `web_fetch` answers; the others' titles from their
# own metadata), as the sets' score.py advises for outputs that carry one (most truths hold
# the headline). bench/extract_table.py prints one table of P, R, F1, lost (pages whose
# recall is under 0.5) and MB/s, with title exactness where the cases carry a title (the
# types set) and one row per page type or source; on the full-text set bench/titles.py
# gives title exactness. The snippet set's scorer prints its own summary per extractor.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
devset="$(cd "${1:-$root/../shared/extract-devset}" && pwd)"
rounds="${2:-3}"
python="${TRAFILATURA_PYTHON:-python3}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
pin=(taskset -c "${BENCH_CORE:-0}")
command -v taskset >/dev/null || pin=()
truth=$(python3 -c 'import json,sys; print(int(any("truth" in c for c in json.load(open(sys.argv[1])))))' "$devset/cases.json")

cargo build --quiet --release -p mcp-web-core --example extract_devset --manifest-path "$root/Cargo.toml"
bin="$root/target/release/examples/extract_devset"

# The MB/s an extractor's timing line ends with ("… = 12.3 MB/s").
mbps() { sed -n 's/.* = \([0-9.]*\) MB\/s$/\1/p' "$1" | tail -n 1; }

echo "== mcp-web extract (release build, one core, best of $rounds)"
"${pin[@]}" "$bin" "$devset" "$out/mcp-web" "$rounds" 2> >(tee "$out/mcp-web.time" >&2)
echo "== dom_smoothie alone (release build, one core, best of $rounds)"
EXTRACT_ENGINE=dom_smoothie "${pin[@]}" "$bin" "$devset" "$out/dom_smoothie" "$rounds" 2> >(tee "$out/dom_smoothie.time" >&2)
sleep 1 # the tee processes above finish writing

# trafilatura or rs-trafilatura over the set: the text form timed, the answer form after
# the clock (the title from the extractor's own metadata, then the text).
python_extractor() {
  "${pin[@]}" "$python" - "$1" "$devset" "$out/$1" "$rounds" "$out/$1-answer" <<'PY'
import gzip, json, os, sys, time
which, devset, out, rounds, answer = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
if which == "trafilatura":
    from trafilatura import extract, extract_metadata, __version__ as version
    from trafilatura.utils import load_html
    def text_of(html):
        return extract(html, fast=False, include_comments=False, include_tables=True, include_formatting=False)
    def title_of(html):
        tree = load_html(html)
        return extract_metadata(tree).title if tree is not None else None
else:
    import rs_trafilatura
    from importlib.metadata import version as package_version
    version = package_version("rs-trafilatura")
    def text_of(html):
        return rs_trafilatura.extract_bytes(html).main_content
    def title_of(html):
        return rs_trafilatura.extract_bytes(html).title
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
        text = text_of(html)
        if r == 0:
            open(os.path.join(out, cid + ".txt"), "w", encoding="utf-8").write(text or "")
    best = min(best, time.perf_counter() - start)
mb = total / 1e6
print(f"{which} {version}: {len(pages)} pages, {mb:.2f} MB in {best:.3f} s = {mb / best:.1f} MB/s", file=sys.stderr)
if any("truth" in c for c in cases):
    os.makedirs(answer, exist_ok=True)
    for cid, html in pages:
        text = open(os.path.join(out, cid + ".txt"), encoding="utf-8").read()
        title = title_of(html)
        open(os.path.join(answer, cid + ".txt"), "w", encoding="utf-8").write(f"# {title}\n\n{text}" if title else text)
PY
}

extractors=(mcp-web dom_smoothie)
echo "== trafilatura (one core, best of $rounds)"
python_extractor trafilatura 2> >(tee "$out/trafilatura.time" >&2)
extractors+=(trafilatura)
if "$python" -c 'import rs_trafilatura' 2>/dev/null; then
  echo "== rs-trafilatura (one core, best of $rounds)"
  python_extractor rs-trafilatura 2> >(tee "$out/rs-trafilatura.time" >&2)
  extractors+=(rs-trafilatura)
else
  echo "== rs-trafilatura: not installed for $python (pip install rs-trafilatura), skipped"
fi
sleep 1

if [ "$truth" = 0 ]; then
  for x in "${extractors[@]}"; do
    echo "== $x ($(mbps "$out/$x.time") MB/s)"
    python3 "$devset/score.py" "$out/$x" --quiet | tail -n 4
  done
  exit 0
fi

EXTRACT_ANSWER=1 "$bin" "$devset" "$out/mcp-web-answer" 2>/dev/null
EXTRACT_ANSWER=1 EXTRACT_ENGINE=dom_smoothie "$bin" "$devset" "$out/dom_smoothie-answer" 2>/dev/null
rows=()
for x in "${extractors[@]}"; do
  python3 "$devset/score.py" "$out/$x-answer" --strip-retrieved --json "$out/$x.json" >/dev/null
  rows+=("$x=$out/$x.json@$(mbps "$out/$x.time")")
done
echo "== answer form (# Title line, then the text; untimed), MB/s of the text form"
python3 "$root/bench/extract_table.py" "$devset" "${rows[@]}"
if ! grep -q '"title"' "$devset/cases.json"; then
  for x in "${extractors[@]}"; do
    echo "== $x, title exactness"
    "$python" "$root/bench/titles.py" "$devset" "$out/$x-answer"
  done
fi
