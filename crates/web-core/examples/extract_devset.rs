//! Runs the extractor over a labelled development set and writes one `<id>.txt` per case,
//! for `score.py`; prints the throughput (MB of HTML per second, one thread, charset
//! decoding included) on stderr.
//!
//! Usage: `extract_devset DEVSET_DIR OUT_DIR [ROUNDS]` where `DEVSET_DIR` holds `cases.json`
//! and `pages/`; a page whose file ends in `.gz` is decompressed before the clock starts. With ROUNDS > 1 the extraction is repeated and the best round is reported.
//! With `EXTRACT_FLAGS` set, each case's flags are printed on stderr. With
//! `EXTRACT_ENGINE=dom_smoothie` the pages go through `dom_smoothie` alone (default settings,
//! formatted text) instead of the extractor, for comparison. With `EXTRACT_ANSWER` set, each
//! file is the text as `web_fetch` answers it: a `# Title` line, a blank line, then the text.
//! With `EXTRACT_TIMES` set, each page's id, bytes and microseconds in the last round are
//! printed on stderr (`time ID BYTES MICROSECONDS`): which pages the time goes to, beside
//! the same for `dom_smoothie` alone.
//!
//! When the cases carry a `truth` file (the full-text set), the title is also scored: a truth
//! has a title when its first line's words are among the words of the page's `<title>` or
//! `og:title`, and the title is exact when its words are that line's words. The share of
//! exact titles is printed on stderr; with `EXTRACT_TITLES` set, each miss is too (ours and the
//! truth's words).

use std::time::{Duration, Instant};

use mcp_web_core::extract::extract;

/// The lowercase word-character runs of a text, as `score.py` tokenises it.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `needle` occurs as a run of consecutive words in `hay`.
fn contains_words(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// The words of the headline a truth text starts with, when the page's `<title>` or
/// `og:title` holds them.
fn truth_title(truth: &str, html: &str) -> Option<Vec<String>> {
    let first = words(truth.lines().find(|l| !l.trim().is_empty())?);
    let doc = dom_query::Document::from(html);
    let titles = [
        doc.select_single("title").text().to_string(),
        doc.select_single(r#"meta[property="og:title"]"#)
            .attr("content")
            .map(|c| c.to_string())
            .unwrap_or_default(),
    ];
    titles
        .iter()
        .any(|t| contains_words(&words(t), &first))
        .then_some(first)
}

/// The title and text `dom_smoothie` alone gives (default settings, formatted text).
fn dom_smoothie_alone(html: &str, base: &url::Url) -> (Option<String>, String) {
    let config = dom_smoothie::Config {
        text_mode: dom_smoothie::TextMode::Formatted,
        ..dom_smoothie::Config::default()
    };
    let url = matches!(base.scheme(), "http" | "https").then(|| base.as_str());
    dom_smoothie::Readability::new(html, url, Some(config))
        .and_then(|mut r| r.parse())
        .map_or((None, String::new()), |a| {
            (Some(a.title), a.text_content.to_string())
        })
}

/// Decodes page bytes as `web_fetch` does when no `Content-Type` names a charset: BOM, then a
/// `<meta>` declaration, then UTF-8 when valid, then a detector's guess.
fn decode(bytes: &[u8]) -> String {
    mcp_web_core::fetch::charset::decode(bytes, None, true, false, false).0
}

/// A page's bytes, decompressed when its file is gzipped (`.gz`).
fn read_page(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    let raw = std::fs::read(path)?;
    if path.extension().is_none_or(|e| e != "gz") {
        return Ok(raw);
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&raw[..]), &mut bytes)?;
    Ok(bytes)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(devset), Some(out)) = (args.next(), args.next()) else {
        return Err("usage: extract_devset DEVSET_DIR OUT_DIR [ROUNDS]".into());
    };
    let rounds: usize = args.next().map_or(Ok(1), |r| r.parse())?;
    let devset = std::path::PathBuf::from(devset);
    let out = std::path::PathBuf::from(out);
    std::fs::create_dir_all(&out)?;
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(devset.join("cases.json"))?)?;
    let mut pages = Vec::new();
    for case in cases.as_array().ok_or("cases.json: not a list")? {
        let id = case["id"].as_str().ok_or("case without id")?.to_owned();
        let file = case["file"].as_str().ok_or("case without file")?;
        let url = case["url"].as_str().unwrap_or("https://example.invalid/");
        let base = url::Url::parse(url).or_else(|_| url::Url::parse("https://example.invalid/"))?;
        let bytes = read_page(&devset.join(file))?;
        // The headline to compare titles with, found before the clock starts.
        let want = case["truth"]
            .as_str()
            .and_then(|t| std::fs::read_to_string(devset.join(t)).ok())
            .and_then(|t| truth_title(&t, &decode(&bytes)));
        pages.push((id, bytes, base, want));
    }
    let flags = std::env::var_os("EXTRACT_FLAGS").is_some();
    let titles = std::env::var_os("EXTRACT_TITLES").is_some();
    let answer = std::env::var_os("EXTRACT_ANSWER").is_some();
    let alone = std::env::var("EXTRACT_ENGINE").is_ok_and(|e| e == "dom_smoothie");
    let times = std::env::var_os("EXTRACT_TIMES").is_some();
    let (mut titled, mut exact) = (0usize, 0usize);
    let total_bytes: usize = pages.iter().map(|p| p.1.len()).sum();
    let mut best = Duration::MAX;
    // Each page's time in the last round, printed after the clock.
    let mut page_times: Vec<(&str, usize, Duration)> = Vec::new();
    for round in 0..rounds.max(1) {
        let start = Instant::now();
        for (id, bytes, base, want) in &pages {
            let began = Instant::now();
            let html = decode(bytes);
            let (title, text, page_flags) = if alone {
                let (title, text) = dom_smoothie_alone(&html, base);
                (title, text, None)
            } else {
                let extracted = extract(&html, "text/html", base);
                (
                    extracted.title.clone(),
                    extracted.text(),
                    Some(extracted.flags),
                )
            };
            if times && round + 1 == rounds.max(1) {
                page_times.push((id, bytes.len(), began.elapsed()));
            }
            if round == 0 {
                let file = match (&title, answer) {
                    (Some(t), true) => format!("# {t}\n\n{text}"),
                    _ => text,
                };
                std::fs::write(out.join(format!("{id}.txt")), file)?;
                if flags && let Some(f) = page_flags {
                    #[expect(clippy::print_stderr, reason = "the benchmark's report")]
                    {
                        eprintln!("{id} {f:?}");
                    }
                }
                if let Some(want) = want {
                    titled += 1;
                    let hit = title.as_deref().is_some_and(|t| words(t) == *want);
                    exact += usize::from(hit);
                    if titles && !hit {
                        #[expect(clippy::print_stderr, reason = "the benchmark's report")]
                        {
                            eprintln!(
                                "title miss {id}: ours {:?} truth {:?}",
                                title.as_deref().unwrap_or(""),
                                want.join(" ")
                            );
                        }
                    }
                }
            }
        }
        best = best.min(start.elapsed());
    }
    for (id, len, took) in page_times {
        #[expect(clippy::print_stderr, reason = "the benchmark's report")]
        {
            eprintln!("time {id} {len} {}", took.as_micros());
        }
    }
    let mb = total_bytes as f64 / 1e6;
    let secs = best.as_secs_f64();
    #[expect(clippy::print_stderr, reason = "the benchmark's report")]
    {
        eprintln!(
            "{}: {} pages, {mb:.2} MB in {secs:.3} s = {:.1} MB/s",
            if alone {
                "dom_smoothie alone"
            } else {
                "mcp-web extract"
            },
            pages.len(),
            mb / secs
        );
        if titled > 0 {
            eprintln!(
                "title exact: {exact} of {titled} pages whose truth has a title = {:.3}",
                exact as f64 / titled as f64
            );
        }
    }
    Ok(())
}
