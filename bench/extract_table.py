#!/usr/bin/env python3
"""Side-by-side tables of extractors on one development set, from score.py's JSON reports.

    bench/extract_table.py DEVSET_DIR NAME=REPORT.json[@MBPS] ...

Each REPORT is what the set's ``score.py --json`` wrote for one extractor's outputs; MBPS is
the extractor's measured throughput (MB of HTML per second on one core). Prints one
Markdown table with macro precision, recall and F1, the pages lost (recall under 0.5: most
of the main text missing from the answer) and MB/s; on a set whose cases carry a page type
or source (``dataset``) with several values, a second table per type (F1 and lost); on a set whose
cases carry a ``title``, title exactness too (the words of the output's ``# Title`` line are
the words of the case's title). The snippet set has no truth and no per-page JSON of this
shape: bench/extract.sh prints its scorer's summary instead.
"""

import json
import os
import re
import sys

WORD = re.compile(r"[^\W]+")


def words(text):
    """The lowercase word runs of ``text``."""
    return WORD.findall(text.lower())


def title_exact(devset, cases, outputs):
    """The share of cases with a title whose output's ``# Title`` line has its words."""
    have = [c for c in cases if c.get("title")]
    if not have or not outputs:
        return None
    hits = 0
    for case in have:
        path = os.path.join(outputs, case["id"] + ".txt")
        try:
            first = open(path, encoding="utf-8", errors="replace").readline()
        except OSError:
            continue
        if first.startswith("# ") and words(first[2:]) == words(case["title"]):
            hits += 1
    return hits / len(have)


def summary(pages):
    """Macro P, R, F1 and the lost count of a list of per-page rows."""
    n = len(pages) or 1
    return (
        sum(p["precision"] for p in pages) / n,
        sum(p["recall"] for p in pages) / n,
        sum(p["f1"] for p in pages) / n,
        sum(1 for p in pages if p["recall"] < 0.5),
    )


def main():
    devset = sys.argv[1]
    cases = json.load(open(os.path.join(devset, "cases.json")))
    runs = []
    for arg in sys.argv[2:]:
        name, rest = arg.split("=", 1)
        report, _, mbps = rest.partition("@")
        pages = json.load(open(report))["pages"]
        outputs = json.load(open(report)).get("outputs")
        runs.append((name, pages, float(mbps) if mbps else None, outputs))
    titled = any(c.get("title") for c in cases)
    head = "| extractor | P | R | F1 | lost | MB/s |" + (" title exact |" if titled else "")
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for name, pages, mbps, outputs in runs:
        p, r, f, lost = summary(pages)
        row = f"| {name} | {p:.4f} | {r:.4f} | {f:.4f} | {lost} | {mbps:.1f} |" if mbps else f"| {name} | {p:.4f} | {r:.4f} | {f:.4f} | {lost} | – |"
        if titled:
            t = title_exact(devset, cases, outputs)
            row += f" {t:.3f} |" if t is not None else " – |"
        print(row)
    types = sorted({p["dataset"] for _, pages, _, _ in runs for p in pages})
    if len(types) > 1:
        print()
        print("| type (dataset) | pages | " + " | ".join(f"{name} F1 / lost" for name, *_ in runs) + " |")
        print("|---|---|" + "---|" * len(runs))
        for t in types:
            cells = []
            count = 0
            for _, pages, _, _ in runs:
                of = [p for p in pages if p["dataset"] == t]
                count = len(of)
                _, _, f, lost = summary(of)
                cells.append(f"{f:.4f} / {lost}")
            print(f"| {t} | {count} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
