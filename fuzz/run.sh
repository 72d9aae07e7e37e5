#!/usr/bin/env bash
# Runs cargo-fuzz targets one after another for a time box each and prints one Markdown
# row per target from libFuzzer's last status line (runs, exec/s, corpus, coverage) and
# how it ended, for fuzz/README.md's table.
#
#   fuzz/run.sh [SECONDS] [TARGET...]     # default: 600 s, every target
#
# Needs a nightly toolchain and cargo-fuzz. Builds with -O -a (optimised, debug assertions
# on, so overflow checks too). A crash lands in fuzz/artifacts/TARGET and ends that run.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(url addr robots extract pdf config jsonrpc)
logs=$(mktemp -d)

for target in "${targets[@]}"; do
  extra=()
  [ "$target" = jsonrpc ] && extra=(-max_len=65536)
  mkdir -p "fuzz/corpus/$target"
  cargo +nightly fuzz run -O -a "$target" "fuzz/corpus/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 "${extra[@]}" \
    > "$logs/$target.log" 2>&1
  status=$?
  last=$(grep -E '^#[0-9]+' "$logs/$target.log" | tail -n 1)
  runs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$last")
  cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | cut -d' ' -f2)
  corp=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' <<<"$last" | cut -d' ' -f2)
  execs=$(grep -oE 'exec/s: [0-9]+' <<<"$last" | cut -d' ' -f2)
  rss=$(grep -oE 'rss: [0-9]+Mb' <<<"$last" | cut -d' ' -f2)
  if [ $status -eq 0 ]; then
    outcome="no crash, timeout or OOM (rss $rss)"
  else
    outcome="stopped (exit $status): $(grep -m1 -E 'ERROR: libFuzzer|panicked at|SUMMARY' "$logs/$target.log" | cut -c1-160)"
  fi
  echo "| $target | ${seconds} s | $runs | $execs | $corp | $cov | $outcome |"
  cp "$logs/$target.log" "fuzz/last-$target.log"
done
