"""Alternated pairs (not a test): one round of mcp-web's extractor (best of three inside) then
one round of trafilatura, N times, both pinned to one core, so that each pair sees the same
moments of a machine whose speed moves; prints each pair's ratio, the median of the ratios
and the ratio of the bests.

Usage: python3 bench/pairs.py DEVSET_DIR N

Run `bench/extract.sh` first (it builds target/release/examples/extract_devset). The Python
extractor runs from $TRAFILATURA_PYTHON (default: python3), pinned to core $BENCH_CORE
(default 0) like ours, with the options `bench/extract.sh` gives it.
"""

import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, "target", "release", "examples", "extract_devset")
TRAFILATURA = r"""
import gzip, json, os, sys, time
from trafilatura import extract
devset = sys.argv[1]
cases = json.load(open(os.path.join(devset, "cases.json")))
def read(path):
    raw = open(path, "rb").read()
    return gzip.decompress(raw) if path.endswith(".gz") else raw
pages = [read(os.path.join(devset, c["file"])) for c in cases]
total = sum(len(p) for p in pages)
for html in pages[:3]:
    extract(html)
start = time.perf_counter()
for html in pages:
    extract(html, fast=False, include_comments=False, include_tables=True, include_formatting=False)
print(total / (time.perf_counter() - start) / 1e6)
"""


def main():
    devset, n = sys.argv[1], int(sys.argv[2])
    python = os.environ.get("TRAFILATURA_PYTHON", "python3")
    pin = ["taskset", "-c", os.environ.get("BENCH_CORE", "0")]
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as out:
        for i in range(n):
            err = subprocess.run(pin + [OURS, devset, out, "3"], capture_output=True, text=True, check=True).stderr
            o = float(re.findall(r"= ([0-9.]+) MB/s", err)[-1])
            t = float(subprocess.run(pin + [python, "-c", TRAFILATURA, devset], capture_output=True, text=True, check=True).stdout)
            ours.append(o)
            theirs.append(t)
            print(f"pair {i}: mcp-web {o:.1f} MB/s, trafilatura {t:.2f} MB/s, ratio {o / t:.2f}", flush=True)
    ratios = sorted(o / t for o, t in zip(ours, theirs))
    print(f"median of ratios {ratios[len(ratios) // 2]:.2f}; best against best {max(ours) / max(theirs):.2f} "
          f"(mcp-web {max(ours):.1f}, trafilatura {max(theirs):.2f} MB/s)")


if __name__ == "__main__":
    main()
