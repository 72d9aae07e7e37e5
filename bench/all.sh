#!/usr/bin/env bash
# Runs the benchmarks one after another in one run on this machine, and writes what each
# printed into BENCHMARKS.md's "Latest run" section (between its two marker lines), each
# part under its own heading with the commit, the date and the load average before it.
#
#   bench/all.sh                 # every part
#   bench/all.sh pdf crawl       # only these parts; the others' last figures stay
#
# Parts: mcp (bench/mcp.sh: cold start, fetch p50, idle and peak RSS, installed size,
# against mcp-server-fetch), extract-full and extract-snippets (bench/extract.sh on each
# development set, against trafilatura), pdf (bench/pdf.sh, against pdftotext), crawl
# (bench/crawl.sh, against wget), load (bench/load.sh). Each part's output is kept in
# bench/results/PART.md, from which the section is rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."

all=(mcp extract-full extract-snippets pdf crawl load)
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=("${all[@]}")
mkdir -p bench/results
cargo build --release --quiet -p mcp-web-server

for part in "${parts[@]}"; do
  case "$part" in
    mcp) command=(bash bench/mcp.sh) ;;
    extract-full) command=(bash bench/extract.sh ../shared/extract-devset-full 3) ;;
    extract-snippets) command=(bash bench/extract.sh ../shared/extract-devset 3) ;;
    pdf) command=(bash bench/pdf.sh) ;;
    crawl) command=(bash bench/crawl.sh) ;;
    load) command=(bash bench/load.sh) ;;
    *) echo "bench/all.sh: no part named $part (parts: ${all[*]})" >&2; exit 2 ;;
  esac
  echo "== $part: ${command[*]}" >&2
  {
    echo "### $part"
    echo
    echo "\`${command[*]}\` at $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes'), $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg) before it:"
    echo
    echo '```'
    "${command[@]}" 2>&1
    echo '```'
  } > "bench/results/$part.md.new"
  mv "bench/results/$part.md.new" "bench/results/$part.md"
done

python3 - "${all[@]}" <<'PY'
import os, sys
begin, end = "<!-- bench/all.sh: begin -->", "<!-- bench/all.sh: end -->"
parts = [open(f"bench/results/{p}.md").read().rstrip() for p in sys.argv[1:]
         if os.path.exists(f"bench/results/{p}.md")]
body = "\n\n".join(parts)
text = open("BENCHMARKS.md").read()
section = f"{begin}\n## Latest run (`bench/all.sh`)\n\nWhat each benchmark printed, as it printed it; the sections before this one read the figures.\n\n{body}\n{end}"
if begin in text and end in text:
    head, rest = text.split(begin, 1)
    text = head + section + rest.split(end, 1)[1]
else:
    first, _, after = text.partition("\n## ")
    text = first + "\n" + section + "\n\n## " + after
open("BENCHMARKS.md", "w").write(text)
PY
echo "bench/all.sh: BENCHMARKS.md's latest-run section rewritten" >&2
