//! Runs the extractor over a labelled development set and writes one `<id>.txt` per case,
//! for `score.py`; prints the throughput (MB of HTML per second, one thread, charset
//! decoding included) on stderr.
//!
//! Usage: `extract_devset DEVSET_DIR OUT_DIR [ROUNDS]` where `DEVSET_DIR` holds `cases.json`
//! and `pages/`. With ROUNDS > 1 the extraction is repeated and the best round is reported.
//! With `EXTRACT_FLAGS` set, each case's flags are printed on stderr.

use std::time::{Duration, Instant};

use mcp_web_core::extract::extract;

/// Decodes page bytes the way a browser would without HTTP headers: BOM, then a `charset`
/// declared by a `<meta>` in the first 4096 bytes, then UTF-8 when valid, then a detector's guess.
fn decode(bytes: &[u8]) -> String {
    if let Some((enc, bom)) = encoding_rs::Encoding::for_bom(bytes) {
        return enc
            .decode_without_bom_handling(&bytes[bom..])
            .0
            .into_owned();
    }
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).to_ascii_lowercase();
    let declared = head.match_indices("<meta").find_map(|(m, _)| {
        let tag = &head[m..head[m..].find('>').map_or(head.len(), |e| m + e)];
        let i = tag.find("charset=")?;
        let rest = tag[i + 8..].trim_start_matches(['"', '\'', ' ']);
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(rest.len());
        encoding_rs::Encoding::for_label(&rest.as_bytes()[..end])
    });
    if let Some(enc) = declared {
        return enc.decode_without_bom_handling(bytes).0.into_owned();
    }
    if let Ok(s) = std::str::from_utf8(bytes) {
        return s.to_owned();
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    let enc = detector.guess(None, chardetng::Utf8Detection::Allow);
    enc.decode_without_bom_handling(bytes).0.into_owned()
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
        let bytes = std::fs::read(devset.join(file))?;
        pages.push((id, bytes, base));
    }
    let flags = std::env::var_os("EXTRACT_FLAGS").is_some();
    let total_bytes: usize = pages.iter().map(|p| p.1.len()).sum();
    let mut best = Duration::MAX;
    for round in 0..rounds.max(1) {
        let start = Instant::now();
        for (id, bytes, base) in &pages {
            let extracted = extract(&decode(bytes), "text/html", base);
            if round == 0 {
                std::fs::write(out.join(format!("{id}.txt")), extracted.text())?;
                if flags {
                    #[expect(clippy::print_stderr, reason = "the benchmark's report")]
                    {
                        eprintln!("{id} {:?}", extracted.flags);
                    }
                }
            }
        }
        best = best.min(start.elapsed());
    }
    let mb = total_bytes as f64 / 1e6;
    let secs = best.as_secs_f64();
    #[expect(clippy::print_stderr, reason = "the benchmark's report")]
    {
        eprintln!(
            "mcp-web extract: {} pages, {mb:.2} MB in {secs:.3} s = {:.1} MB/s",
            pages.len(),
            mb / secs
        );
    }
    Ok(())
}
