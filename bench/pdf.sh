#!/usr/bin/env bash
# Benchmark (not a test): mcp-web's PDF reader next to poppler's `pdftotext -layout`, the
# reference reader, on real PDFs that Debian packages ship (manuals, papers and package
# documentation, slides, reference cards): token F1 of our text against pdftotext's, and
# pages per CPU second of each on one core, side by side in the same run.
#
#   bench/pdf.sh            # needs the packages below installed
#
# apt-get install -y poppler-utils r-doc-pdf gnuplot-doc octave-doc asymptote-doc \
#   xorg-docs texlive-latex-recommended-doc --no-install-recommends
# (bzip2-doc, fontconfig, libtasn1-doc, nettle-dev, shared-mime-info, valgrind, zlib1g-dev
# and texlive-base ship the rest.) A listed file that is missing is skipped and counted.
#
# Each reader runs once per file as its own process pinned to core 0 (taskset); its CPU
# time (user + system, from getrusage) is what is counted, so a loaded machine slows
# neither. Tokens are runs of non-space characters; our `[page N]` marker lines are not
# counted; F1 is over the multiset of tokens (reading order does not count), per file and
# over all files pooled.
#
# OTHER_PDF_READER="NAME=COMMAND" scores a third reader the same way, side by side (COMMAND
# takes the PDF's path as its last argument and prints the text on stdout), as when
# comparing PDF crates: an extra column per file and its own pooled line.
set -euo pipefail
cd "$(dirname "$0")/.."

FILES=(
  /usr/share/doc/asymptote/CAD.pdf
  /usr/share/doc/asymptote/TeXShopAndAsymptote.pdf
  /usr/share/doc/asymptote/asy-latex.pdf
  /usr/share/doc/asymptote/asyRefCard.pdf
  /usr/share/doc/asymptote/asymptote.pdf
  /usr/share/doc/asymptote/examples/pixel.pdf
  /usr/share/doc/bzip2/manual.pdf.gz
  /usr/share/doc/fontconfig/fontconfig-user.pdf.gz
  /usr/share/doc/gnuplot/gnuplot.pdf
  /usr/share/doc/libtasn1-doc/libtasn1.pdf
  /usr/share/doc/nettle-dev/nettle.pdf.gz
  /usr/share/doc/octave/liboctave.pdf
  /usr/share/doc/octave/octave.pdf
  /usr/share/doc/octave/refcard-a4.pdf
  /usr/share/doc/octave/refcard-legal.pdf
  /usr/share/doc/octave/refcard-letter.pdf
  /usr/share/doc/r-doc-pdf/manual/R-FAQ.pdf
  /usr/share/doc/r-doc-pdf/manual/R-admin.pdf
  /usr/share/doc/r-doc-pdf/manual/R-data.pdf
  /usr/share/doc/r-doc-pdf/manual/R-exts.pdf
  /usr/share/doc/r-doc-pdf/manual/R-intro.pdf
  /usr/share/doc/r-doc-pdf/manual/R-ints.pdf
  /usr/share/doc/r-doc-pdf/manual/R-lang.pdf
  /usr/share/doc/r-doc-pdf/manual/refman.pdf
  /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf
  /usr/share/doc/valgrind/valgrind_manual.pdf.gz
  /usr/share/doc/xorg-docs/License.pdf.gz
  /usr/share/doc/xorg-docs/README.pdf.gz
  /usr/share/doc/xorg-docs/ReleaseNotes.pdf.gz
  /usr/share/doc/xorg-docs/Versions.pdf.gz
  /usr/share/doc/xorg-docs/Xserver/XACE-Spec.pdf.gz
  /usr/share/doc/xorg-docs/Xserver/analysis.pdf.gz
  /usr/share/doc/xorg-docs/Xserver/appgroup.pdf.gz
  /usr/share/doc/xorg-docs/Xserver/secint.pdf.gz
  /usr/share/doc/xorg-docs/ctext/ctext.pdf.gz
  /usr/share/doc/xorg-docs/fonts/fonts.pdf.gz
  /usr/share/doc/xorg-docs/graphics/dps.pdf.gz
  /usr/share/doc/xorg-docs/icccm/icccm.pdf.gz
  /usr/share/doc/xorg-docs/input/XKB-Config.pdf.gz
  /usr/share/doc/xorg-docs/input/XKB-Enhancing.pdf.gz
  /usr/share/doc/xorg-docs/xext/lbxalg.pdf.gz
  /usr/share/doc/xorg-docs/xlfd/xlfd.pdf.gz
  /usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz
  /usr/share/texmf/doc/support/asymptote/CAD.pdf
  /usr/share/texmf/doc/support/asymptote/asy-latex.pdf
  /usr/share/texmf/doc/support/asymptote/asyRefCard.pdf
  /usr/share/texmf/doc/support/asymptote/asymptote.pdf
  /usr/share/doc/texlive-doc/fonts/amsfonts/amsfndoc.pdf
  /usr/share/doc/texlive-doc/fonts/amsfonts/amsfonts.pdf
  /usr/share/doc/texlive-doc/fonts/amsfonts/amssymb.pdf
  /usr/share/doc/texlive-doc/fonts/amsfonts/cmmib57.pdf
  /usr/share/doc/texlive-doc/fonts/amsfonts/eufrak.pdf
  /usr/share/doc/texlive-doc/fonts/amsfonts/euscript.pdf
  /usr/share/doc/texlive-doc/generic/hyph-utf8/hyph-utf8.pdf
  /usr/share/doc/texlive-doc/generic/hyph-utf8/hyphenation-distribution.pdf
  /usr/share/doc/texlive-doc/kpathsea/kpathsea.pdf
  /usr/share/doc/texlive-doc/latex/beamer/beamerexample-conference-talk.pdf
  /usr/share/doc/texlive-doc/latex/beamer/beamerexample-lecture-beamer-version.pdf
  /usr/share/doc/texlive-doc/latex/beamer/beamerexample-lecture-print-version.pdf
  /usr/share/doc/texlive-doc/latex/beamer/beamerlogo.pdf
  /usr/share/doc/texlive-doc/latex/beamer/beameruserguide.pdf
  /usr/share/doc/texlive-doc/latex/beamer/examples/a-lecture/beamerexample-lecture-logo.pdf
  /usr/share/doc/texlive-doc/latex/booktabs/booktabs.pdf
  /usr/share/doc/texlive-doc/latex/caption/bicaption.pdf
  /usr/share/doc/texlive-doc/latex/caption/caption-light.pdf
  /usr/share/doc/texlive-doc/latex/caption/caption.pdf
  /usr/share/doc/texlive-doc/latex/caption/caption2.pdf
  /usr/share/doc/texlive-doc/latex/caption/ltcaption.pdf
  /usr/share/doc/texlive-doc/latex/caption/subcaption.pdf
  /usr/share/doc/texlive-doc/latex/etoolbox/etoolbox.pdf
  /usr/share/doc/texlive-doc/latex/fontspec/fontspec-code.pdf
  /usr/share/doc/texlive-doc/latex/fontspec/fontspec.pdf
  /usr/share/doc/texlive-doc/latex/lineno/fnlineno.pdf
  /usr/share/doc/texlive-doc/latex/lineno/lineno.pdf
  /usr/share/doc/texlive-doc/latex/lineno/linenoamsmathdemo.pdf
  /usr/share/doc/texlive-doc/latex/lineno/lnosuppl.pdf
  /usr/share/doc/texlive-doc/latex/lineno/ulineno.pdf
  /usr/share/doc/texlive-doc/latex/listings/listings-devel.pdf
  /usr/share/doc/texlive-doc/latex/listings/listings.pdf
  /usr/share/doc/texlive-doc/latex/listings/lstdrvrs.pdf
  /usr/share/doc/texlive-doc/latex/mathtools/empheq.pdf
  /usr/share/doc/texlive-doc/latex/mathtools/mathtools.pdf
  /usr/share/doc/texlive-doc/latex/mathtools/mhsetup.pdf
  /usr/share/doc/texlive-doc/latex/mathtools/test.pdf
  /usr/share/doc/texlive-doc/latex/memoir/memman.pdf
  /usr/share/doc/texlive-doc/latex/memoir/setpage-example.pdf
  /usr/share/doc/texlive-doc/latex/microtype/microtype-code.pdf
)

cargo build --release --quiet -p mcp-web-core --example pdf_pages
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/pdf" "$work/ours" "$work/ref"
n=0
missing=0
for f in "${FILES[@]}"; do
  if [ ! -e "$f" ]; then missing=$((missing + 1)); continue; fi
  n=$((n + 1))
  name=$(printf '%03d-%s' "$n" "$(basename "${f%.gz}")")
  case "$f" in
    *.gz) zcat "$f" > "$work/pdf/$name" ;;
    *) cp "$f" "$work/pdf/$name" ;;
  esac
done
echo "$n files ($missing listed files missing)"

python3 - "$work" target/release/examples/pdf_pages "${OTHER_PDF_READER:-}" <<'PY'
import os, resource, shlex, subprocess, sys
from collections import Counter

work, ours = sys.argv[1], sys.argv[2]
other_name, _, other_cmd = sys.argv[3].partition("=")
other = shlex.split(other_cmd) if other_cmd else None
pin = ["taskset", "-c", "0"] if subprocess.run(["which", "taskset"], capture_output=True).returncode == 0 else []

def cpu(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(pin + cmd, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done

def tokens(path, strip_markers):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except FileNotFoundError:
        return Counter()
    lines = text.splitlines()
    if strip_markers:
        lines = [l for l in lines if not (l.startswith("[page ") and l.endswith("]"))]
    return Counter(" ".join(lines).split())

def f1_of(a, b):
    common = sum((a & b).values())
    na, nb = sum(a.values()), sum(b.values())
    p = common / na if na else 0.0
    r = common / nb if nb else 0.0
    return (2 * p * r / (p + r) if p + r else 0.0), common, na, nb

rows, pages_total, ours_s, ref_s, tp, n_ours, n_ref, failed = [], 0, 0.0, 0.0, 0, 0, 0, []
other_s, other_tp, n_other, other_f1s = 0.0, 0, 0, []
for name in sorted(os.listdir(f"{work}/pdf")):
    pdf = f"{work}/pdf/{name}"
    info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True).stdout
    pages = next((int(l.split()[1]) for l in info.splitlines() if l.startswith("Pages:")), 0)
    o_s, o = cpu([ours, f"{work}/ours", pdf])
    r_s, _ = cpu(["pdftotext", "-layout", pdf, f"{work}/ref/{name}.txt"])
    status = o.stdout.decode().strip().split("\t")[-1] if o.stdout else "no output"
    if status != "ok":
        failed.append((name, status))
    a, b = tokens(f"{work}/ours/{name}.txt", True), tokens(f"{work}/ref/{name}.txt", False)
    common = sum((a & b).values())
    na, nb = sum(a.values()), sum(b.values())
    p = common / na if na else 0.0
    r = common / nb if nb else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    rows.append((name, pages, f1, o_s, r_s))
    if other:
        x_s, x = cpu(other + [pdf])
        with open(f"{work}/ref/{name}.other", "wb") as out:
            out.write(x.stdout)
        xf1, xc, xn, _ = f1_of(tokens(f"{work}/ref/{name}.other", False), b)
        other_s += x_s; other_tp += xc; n_other += xn; other_f1s.append(xf1)
    pages_total += pages; ours_s += o_s; ref_s += r_s
    tp += common; n_ours += na; n_ref += nb

extra = f" {other_name} F1 |" if other else ""
print(f"| file | pages | token F1 | ours s | pdftotext s |{extra}")
print("|---|---|---|---|---|" + ("---|" if other else ""))
for i, (name, pages, f1, o_s, r_s) in enumerate(rows):
    cell = f" {other_f1s[i]:.3f} |" if other else ""
    print(f"| {name} | {pages} | {f1:.3f} | {o_s:.2f} | {r_s:.2f} |{cell}")
P = tp / n_ours if n_ours else 0.0
R = tp / n_ref if n_ref else 0.0
pooled = 2 * P * R / (P + R) if P + R else 0.0
f1s = sorted(f for _, _, f, _, _ in rows)
median = f1s[len(f1s) // 2] if f1s else 0.0
print()
print(f"files: {len(rows)}, pages: {pages_total}, read by ours: {len(rows) - len(failed)}")
for name, status in failed:
    print(f"  not read: {name}: {status}")
print(f"token F1 pooled: {pooled:.3f} (precision {P:.3f}, recall {R:.3f}); per-file median {median:.3f}, files >= 0.95: {sum(f >= 0.95 for f in f1s)}")
print(f"pages per CPU second, one core: ours {pages_total / ours_s:.0f}, pdftotext -layout {pages_total / ref_s:.0f}; ours / pdftotext {ref_s / ours_s:.2f}")
if other:
    XP = other_tp / n_other if n_other else 0.0
    R_x = other_tp / n_ref if n_ref else 0.0
    pooled_x = 2 * XP * R_x / (XP + R_x) if XP + R_x else 0.0
    xs = sorted(other_f1s)
    print(f"{other_name}: token F1 pooled {pooled_x:.3f} (precision {XP:.3f}, recall {R_x:.3f}); per-file median {xs[len(xs) // 2]:.3f}, files >= 0.95: {sum(f >= 0.95 for f in xs)}; pages per CPU second {pages_total / other_s:.0f}")
PY
