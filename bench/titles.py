#!/usr/bin/env python3
"""Title exactness of answer-form outputs on the full-text set, for any extractor.

    bench/titles.py DEVSET_DIR OUTPUT_DIR

OUTPUT_DIR holds one ``<id>.txt`` per case in the answer form: a ``# Title`` line first when
the extractor gave a title, then the text. The definition is the one
``crates/web-core/examples/extract_devset.rs`` prints: a truth has a title when the words of
its first non-blank line are a run of the words of the page's ``<title>`` or ``og:title``;
the output's title is exact when its words are that line's words. Words are the lowercase
runs of letters, digits and ``_``. The pages are read as UTF-8 (invalid bytes replaced) by
lxml, as the set's pages are stored.
"""

import json
import os
import re
import sys

import lxml.html

WORD = re.compile(r"[^\W]+")


def words(text):
    """The lowercase word runs of ``text``."""
    return WORD.findall(text.lower())


def contains(hay, needle):
    """Whether ``needle`` is a run of consecutive words of ``hay``."""
    n = len(needle)
    return n > 0 and any(hay[i : i + n] == needle for i in range(len(hay) - n + 1))


def truth_title(truth, html):
    """The words of the headline the truth starts with, when the page's titles hold them."""
    first = next((line for line in truth.splitlines() if line.strip()), None)
    if first is None:
        return None
    first = words(first)
    try:
        doc = lxml.html.document_fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return None
    titles = [doc.findtext(".//title") or ""]
    titles += doc.xpath('//meta[@property="og:title"]/@content')[:1]
    return first if any(contains(words(t), first) for t in titles) else None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench/titles.py DEVSET_DIR OUTPUT_DIR")
    devset, out = sys.argv[1], sys.argv[2]
    titled = exact = 0
    for case in json.load(open(os.path.join(devset, "cases.json"))):
        if "truth" not in case:
            continue
        truth = open(os.path.join(devset, case["truth"]), encoding="utf-8", errors="replace").read()
        html = open(os.path.join(devset, case["file"]), "rb").read().decode("utf-8", "replace")
        want = truth_title(truth, html)
        if want is None:
            continue
        titled += 1
        path = os.path.join(out, case["id"] + ".txt")
        text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        head = text.lstrip("\ufeff").split("\n", 1)[0]
        exact += head.startswith("# ") and words(head[2:]) == want
    share = exact / titled if titled else 0.0
    print(f"title exact: {exact} of {titled} pages whose truth has a title = {share:.3f}")


if __name__ == "__main__":
    main()
