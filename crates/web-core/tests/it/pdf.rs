//! PDFs read as text through a fetch: files written here by a small fixture writer and
//! served on loopback; the exact text with its page markers, the title rule, the
//! `max-pdf-bytes` cap, grep's line numbers, a crawl listing a PDF without following links
//! out of it, and each hostile or unreadable file refused with a named reason.

use std::io::Write;
use std::sync::Arc;

use mcp_web_core::crawl::{CrawlOptions, Flow, Outcome, Politeness, crawl};
use mcp_web_core::error::{Error, ErrorKind, Problem};
use mcp_web_core::extract::pdf::{Failure, Limits, panic_is_contained, read};
use mcp_web_core::fetch::{Allowance, FetchOptions, Page};
use mcp_web_core::grep::Pattern;
use mcp_web_core::key::ConfigKey;
use mcp_web_core::media::Kind;
use mcp_web_core::page::PageText;
use mcp_web_core::robots::cache::RobotsCache;
use mcp_web_core::transport::StaticResolver;
use mcp_web_core::url::CheckedUrl;
use tokio_util::sync::CancellationToken;

use crate::pdf_fixtures::Writer;
use crate::support::*;

/// A document whose pages draw `contents` (one content stream each), Helvetica as
/// `/F1`, as `/F2` Helvetica whose code 1 is the ﬁ ligature, and as `/F3` a Type 1 font
/// whose embedded program cannot be parsed (the PDF reader panics on a page that sets
/// text in it).
fn document(contents: &[Vec<u8>], title: Option<&str>, extra_page_entries: &str) -> Writer {
    let mut w = Writer::default();
    let pages_id = contents.len() * 2 + 8;
    let f1 =
        w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
    let f2 = w.add(
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [1 /fi] >> >>",
    );
    let program = w.stream("", b"] no program");
    let descriptor = w.add(format!(
        "<< /Type /FontDescriptor /FontName /Broken /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile {program} 0 R >>"
    ));
    let f3 = w.add(format!(
        "<< /Type /Font /Subtype /Type1 /BaseFont /Broken /FontDescriptor {descriptor} 0 R >>"
    ));
    let mut kids = Vec::new();
    for content in contents {
        let c = w.stream("", content);
        let page = w.add(format!(
            "<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 {f1} 0 R /F2 {f2} 0 R /F3 {f3} 0 R >> >> /Contents {c} 0 R {extra_page_entries} >>"
        ));
        kids.push(format!("{page} 0 R"));
    }
    let catalog = w.add(format!("<< /Type /Catalog /Pages {pages_id} 0 R >>"));
    let info = w.add(match title {
        Some(t) => format!("<< /Title ({t}) /Producer (fixture) >>"),
        None => "<< /Producer (fixture) >>".to_owned(),
    });
    w.info = Some(info);
    let pages = w.add(format!(
        "<< /Type /Pages /Kids [{}] /Count {} >>",
        kids.join(" "),
        contents.len()
    ));
    assert_eq!(pages, pages_id, "the fixture's object numbering");
    assert_eq!(catalog, pages_id - 2);
    w.root = catalog;
    w
}

/// A page's content: a running header and a page-number footer, then `body`.
fn page(n: usize, body: &str) -> Vec<u8> {
    format!(
        "BT /F1 10 Tf 72 760 Td (Acme Corporation Quarterly) Tj ET\n{body}\nBT /F1 10 Tf 290 40 Td (Page {n}) Tj ET\n"
    )
    .into_bytes()
}

/// `n` in letters (1 is "ba"), so that no two pages' lines are alike even with their
/// digits masked.
fn letters(n: usize) -> String {
    let a = |k: usize| char::from(b'a' + u8::try_from(k % 26).expect("below 26"));
    format!("{}{}", a(n), a(n / 26))
}

/// The three-page report: a heading, a word hyphenated over a line break, a ligature,
/// and on every page the same header and a page number.
fn report(title: Option<&str>) -> Vec<u8> {
    let pages = [
        page(
            1,
            "BT /F1 24 Tf 72 700 Td (Results of the Year) Tj ET\n\
             BT /F1 12 Tf 72 660 Td (The committee counted every hyphen-) Tj 0 -14 Td (ated word in the report.) Tj ET\n\
             BT /F2 12 Tf 72 632 Td (The \\001nal figure is 42.) Tj ET",
        ),
        page(2, "BT /F1 12 Tf 72 700 Td (Second page of text.) Tj ET"),
        page(3, "BT /F1 12 Tf 72 700 Td (Third and last page.) Tj ET"),
    ];
    document(&pages, title, "").finish()
}

/// The report's text, as `web_fetch` shows its body.
const REPORT_TEXT: &str = "[page 1]
Results of the Year
The committee counted every hyphenated
word in the report.
The final figure is 42.

[page 2]
Second page of text.

[page 3]
Third and last page.";

/// A loopback site serving `files` by path, each with its content type.
async fn site(files: Vec<(&'static str, &'static str, Vec<u8>)>) -> Server {
    let files = Arc::new(files);
    Server::start(
        PERMITTED,
        Arc::new(
            move |req: &Req| match files.iter().find(|(path, _, _)| *path == req.path) {
                Some((_, ty, body)) => {
                    let headers: Vec<(&str, &str)> = if ty.is_empty() {
                        vec![]
                    } else {
                        vec![("content-type", ty)]
                    };
                    vec![Step::Write(response(200, &headers, body))]
                }
                None => vec![Step::Write(response(404, &[], b""))],
            },
        ),
    )
    .await
}

async fn get(server: &Server, path: &str, options: FetchOptions) -> Result<Page, Error> {
    let resolver = Arc::new(StaticResolver::new().with("site.test", [PERMITTED]));
    let fetcher = fetcher_with(permit_127_0_0_2(), resolver, options);
    let url = CheckedUrl::parse(&format!("http://site.test:{}{path}", server.port()))
        .expect("a valid test URL");
    fetcher.fetch(&url, &CancellationToken::new()).await
}

/// The problem of a refused fetch, with its message.
fn problem(result: Result<Page, Error>) -> (Problem, String) {
    let error = result.expect_err("the PDF is refused");
    assert_eq!(error.kind(), ErrorKind::Content, "{error}");
    let Error::Content(content) = &error else {
        unreachable!()
    };
    (content.problem, error.to_string())
}

#[tokio::test]
async fn a_report_reads_as_pages_of_text() {
    let server = site(vec![
        (
            "/titled.pdf",
            "application/pdf",
            report(Some("Acme Results 2025")),
        ),
        ("/untitled.pdf", "application/pdf", report(None)),
        (
            "/placeholder.pdf",
            "application/pdf",
            report(Some("Microsoft Word - results.docx")),
        ),
        ("/octet", "application/octet-stream", report(None)),
        ("/undeclared", "", report(None)),
    ])
    .await;
    let page = get(&server, "/titled.pdf", quick_options()).await.unwrap();
    assert_eq!(page.kind, Kind::Pdf);
    assert_eq!(page.bytes, report(Some("Acme Results 2025")).len());
    let text = PageText::new(&page);
    assert_eq!(text.title(), Some("Acme Results 2025"));
    assert_eq!(text.body().join("\n"), REPORT_TEXT);
    assert!(text.links().is_empty());
    assert_eq!(
        text.render(40_000, "web_grep"),
        format!("# Acme Results 2025\n\n{REPORT_TEXT}")
    );
    // Line numbers: the page markers are lines of the answer like any other.
    let marker = text
        .numbered_body()
        .find(|(_, line)| *line == "[page 2]")
        .map(|(n, _)| n);
    assert_eq!(marker, Some(9));
    assert_eq!(text.lines()[8], "[page 2]");

    // No Title, or a placeholder: the first heading-like line.
    for path in ["/untitled.pdf", "/placeholder.pdf", "/octet", "/undeclared"] {
        let page = get(&server, path, quick_options()).await.unwrap();
        assert_eq!(page.kind, Kind::Pdf, "{path}");
        let text = PageText::new(&page);
        assert_eq!(text.title(), Some("Results of the Year"), "{path}");
        assert_eq!(text.body().join("\n"), REPORT_TEXT, "{path}");
    }
}

#[tokio::test]
async fn a_pdf_is_not_cut_at_max_bytes_but_refused_past_max_pdf_bytes() {
    let file = report(None);
    let server = site(vec![
        ("/a.pdf", "application/pdf", file.clone()),
        ("/sniffed", "application/octet-stream", file.clone()),
    ])
    .await;
    // max-bytes smaller than the file: a PDF is read whole all the same.
    let small_text_cap = FetchOptions {
        max_bytes: 1024,
        ..quick_options()
    };
    for path in ["/a.pdf", "/sniffed"] {
        let page = get(&server, path, small_text_cap.clone()).await.unwrap();
        assert_eq!(page.truncated, None, "{path}");
        assert_eq!(PageText::new(&page).body().join("\n"), REPORT_TEXT);
    }
    // max-pdf-bytes smaller than the file: refused, naming the key.
    let small_pdf_cap = FetchOptions {
        max_pdf_bytes: file.len() - 1,
        ..quick_options()
    };
    for path in ["/a.pdf", "/sniffed"] {
        let result = get(&server, path, small_pdf_cap.clone()).await;
        let error = result.as_ref().map(|_| ()).unwrap_err().clone();
        assert_eq!(
            (error.rule(), error.config_key()),
            ("pdf-size", Some(ConfigKey::MaxPdfBytes)),
            "{path}"
        );
        let (problem, message) = problem(result);
        assert_eq!(
            problem,
            Problem::PdfTooLarge {
                limit: file.len() as u64 - 1
            }
        );
        assert!(message.contains("Raise max-pdf-bytes"), "{message}");
    }
}

#[tokio::test]
async fn max_chars_cuts_the_text_with_the_usual_notice() {
    let pages: Vec<Vec<u8>> = (1..=40)
        .map(|n| {
            page(
                n,
                &format!("BT /F1 12 Tf 72 700 Td (Page {} holds a sentence long enough to fill the answer.) Tj ET", letters(n)),
            )
        })
        .collect();
    let file = document(&pages, Some("Long"), "").finish();
    let server = site(vec![("/long.pdf", "application/pdf", file)]).await;
    let page = get(&server, "/long.pdf", quick_options()).await.unwrap();
    let text = PageText::new(&page);
    assert_eq!(text.body().len(), 40 * 3 - 1);
    assert_eq!(text.body()[0], "[page 1]");
    assert_eq!(
        text.body()[1],
        "Page ba holds a sentence long enough to fill the answer."
    );
    let rendered = text.render(1000, "web_grep");
    assert!(rendered.chars().count() < 1300, "{rendered}");
    assert!(
        rendered.ends_with("web_grep searches the whole page; raise max-chars to keep more]"),
        "{rendered}"
    );
}

#[tokio::test]
async fn unreadable_pdfs_are_refused_with_what_was_wrong() {
    let good = report(None);
    let truncated = good[..good.len() / 2].to_vec();

    // Pages that draw only a filled rectangle: a scan's pages have no text either.
    let scans: Vec<Vec<u8>> = (0..2)
        .map(|_| b"0 0 0 rg 72 72 468 648 re f".to_vec())
        .collect();
    let no_text = document(&scans, None, "").finish();

    // Encrypted with a password nobody gave.
    let mut w = document(
        &[page(1, "BT /F1 12 Tf 72 700 Td (secret) Tj ET")],
        None,
        "",
    );
    let encrypt = w.add(format!(
        "<< /Filter /Standard /V 1 /R 2 /O <{}> /U <{}> /P -4 >>",
        "ab".repeat(32),
        "cd".repeat(32)
    ));
    w.encrypt = Some(encrypt);
    let encrypted = w.finish();

    // Objects nested 100,000 deep.
    let deep_body = "BT /F1 12 Tf 72 700 Td (deep) Tj ET";
    let deep_entry = format!("/Deep {}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep = document(&[page(1, deep_body)], None, &deep_entry).finish();

    let server = site(vec![
        ("/truncated.pdf", "application/pdf", truncated),
        ("/scan.pdf", "application/pdf", no_text),
        ("/encrypted.pdf", "application/pdf", encrypted),
        ("/deep.pdf", "application/pdf", deep),
        (
            "/not-a-pdf.pdf",
            "application/pdf",
            b"<html>oops</html>".to_vec(),
        ),
    ])
    .await;

    let (p, message) = problem(get(&server, "/truncated.pdf", quick_options()).await);
    assert!(
        matches!(p, Problem::PdfMalformed(m) if m.contains("truncated")),
        "{message}"
    );
    assert!(
        message.contains("is a damaged PDF: it ends before its end-of-file marker"),
        "{message}"
    );

    let (p, message) = problem(get(&server, "/scan.pdf", quick_options()).await);
    assert_eq!(p, Problem::PdfNoText { pages: 2 });
    assert!(
        message.contains("PDF of 2 pages with no text layer"),
        "{message}"
    );
    assert!(message.contains("these tools do not run OCR"), "{message}");

    let (p, message) = problem(get(&server, "/encrypted.pdf", quick_options()).await);
    assert_eq!(p, Problem::PdfEncrypted, "{message}");
    assert!(
        message.contains("encrypted PDF that needs a password"),
        "{message}"
    );

    let (p, message) = problem(get(&server, "/deep.pdf", quick_options()).await);
    assert!(
        matches!(p, Problem::PdfMalformed(m) if m.contains("nest")),
        "{message}"
    );

    let (p, message) = problem(get(&server, "/not-a-pdf.pdf", quick_options()).await);
    assert!(
        matches!(p, Problem::PdfMalformed(m) if m.contains("%PDF-")),
        "{message}"
    );
}

#[test]
fn a_panic_inside_the_pdf_reader_costs_only_the_page_it_met() {
    // The reader panics on page 2, which sets text in the font it cannot parse; pages 1
    // and 3 are read all the same, and the thread is no longer marked as reading.
    let file = document(
        &[
            b"BT /F1 12 Tf 72 700 Td (First page of text.) Tj ET".to_vec(),
            b"BT /F3 12 Tf 72 700 Td (Set in a broken font.) Tj ET".to_vec(),
            b"BT /F1 12 Tf 72 700 Td (Third and last page.) Tj ET".to_vec(),
        ],
        None,
        "",
    )
    .finish();
    let text = read(&file, &Limits::new(1 << 20, None)).expect("the readable pages");
    assert_eq!(
        text.text,
        "[page 1]\nFirst page of text.\n\n[page 2]\n\n[page 3]\nThird and last page."
    );
    assert_eq!(text.pages, 3);
    assert!(!panic_is_contained());

    // That page alone: the file is unreadable (not a scan without a text layer).
    let alone = document(
        &[b"BT /F3 12 Tf 72 700 Td (Set in a broken font.) Tj ET".to_vec()],
        None,
        "",
    )
    .finish();
    assert_eq!(
        read(&alone, &Limits::new(1 << 20, None)),
        Err(Failure::Problem(Problem::PdfUnreadable))
    );
    assert!(!panic_is_contained());
}

#[tokio::test]
async fn a_stream_inflating_far_past_the_bound_is_refused_before_decoding() {
    // 8 MiB of content (white space, then one text operator): 128 times the 64 KiB cap,
    // 8 times the bound it sets, encoded by each filter the reader decodes, and by a chain
    // whose first stage (ASCII85) hides that the data is compressed.
    let mut content = vec![b' '; 8 << 20];
    content.extend_from_slice(b"BT /F1 12 Tf 72 700 Td (bomb) Tj ET\n");
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&content).unwrap();
    let flate = z.finish().unwrap();
    let lzw = weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8)
        .encode(&content)
        .unwrap();
    let encodings = [
        ("/FlateDecode", flate.clone()),
        ("/LZWDecode", lzw),
        ("[/ASCII85Decode /FlateDecode]", ascii85(&flate)),
    ];
    for (filter, data) in encodings {
        let mut w = Writer::default();
        let font = w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
        let content = w.stream(&format!("/Filter {filter}"), &data);
        let page = w.add(format!(
            "<< /Type /Page /Parent 5 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 {font} 0 R >> >> /Contents {content} 0 R >>"
        ));
        let catalog = w.add("<< /Type /Catalog /Pages 5 0 R >>");
        let pages = w.add(format!("<< /Type /Pages /Kids [{page} 0 R] /Count 1 >>"));
        assert_eq!((catalog, pages), (4, 5));
        w.root = catalog;
        let file = w.finish();
        assert!(file.len() < 64 * 1024, "{filter}: {}", file.len());

        let server = site(vec![("/bomb.pdf", "application/pdf", file)]).await;
        let options = FetchOptions {
            max_pdf_bytes: 64 * 1024,
            ..quick_options()
        };
        let result = get(&server, "/bomb.pdf", options).await;
        let error = result.as_ref().map(|_| ()).unwrap_err().clone();
        assert_eq!(
            (error.rule(), error.config_key()),
            ("pdf-inflation", Some(ConfigKey::MaxPdfBytes)),
            "{filter}"
        );
        let (p, message) = problem(result);
        assert_eq!(
            p,
            Problem::PdfBomb {
                limit: 16 * 64 * 1024
            },
            "{filter}"
        );
        assert!(
            message.contains("inflate to more than 1048576 bytes"),
            "{filter}: {message}"
        );
    }
}

/// `data` in ASCII85, as a PDF's `ASCII85Decode` filter reads it (with its `~>` end).
fn ascii85(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in data.chunks(4) {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        let mut n = u32::from_be_bytes(word);
        if n == 0 && chunk.len() == 4 {
            out.push(b'z');
            continue;
        }
        let mut digits = [0u8; 5];
        for d in digits.iter_mut().rev() {
            *d = b'!' + u8::try_from(n % 85).expect("below 85");
            n /= 85;
        }
        out.extend_from_slice(&digits[..chunk.len() + 1]);
    }
    out.extend_from_slice(b"~>");
    out
}

#[tokio::test]
async fn grep_numbers_a_pdfs_lines_as_web_fetch_shows_them() {
    let server = site(vec![("/r.pdf", "application/pdf", report(None))]).await;
    let page = get(&server, "/r.pdf", quick_options()).await.unwrap();
    let text = PageText::new(&page);
    let pattern = Pattern::new("page of text", false, true).unwrap();
    let hits: Vec<(usize, String)> = pattern
        .find_lines(text.numbered_body())
        .map(|m| (m.line, m.text))
        .collect();
    assert_eq!(hits, [(10, "Second page of text.".to_owned())]);
    let rendered = text.render(40_000, "web_grep");
    assert_eq!(rendered.lines().nth(9), Some("Second page of text."));
    assert_eq!(rendered.lines().nth(8), Some("[page 2]"));
}

#[tokio::test]
async fn a_crawl_lists_a_linked_pdf_and_follows_no_link_out_of_it() {
    let canary = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let hits = canary.clone();
    let linking = |port: u16| {
        let body = format!(
            "BT /F1 12 Tf 72 700 Td (See http://site.test:{port}/from-pdf for more.) Tj ET"
        );
        let pages = [page(1, &body), page(2, &body), page(3, &body)];
        document(&pages, Some("Linked Report"), "").finish()
    };
    let port = Arc::new(std::sync::OnceLock::<u16>::new());
    let port_seen = port.clone();
    let server = Server::start(
        PERMITTED,
        Arc::new(move |req: &Req| {
            let port = port_seen.get().copied().unwrap_or(0);
            let ok = |ty: &str, body: &[u8]| {
                vec![Step::Write(response(200, &[("content-type", ty)], body))]
            };
            match req.path.as_str() {
                "/" => ok(
                    "text/html",
                    b"<title>Home</title><main><p>The report: <a href='/r.pdf'>PDF</a></p></main>",
                ),
                "/r.pdf" => ok("application/pdf", &linking(port)),
                "/from-pdf" => {
                    hits.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    ok("text/html", b"<title>Canary</title>")
                }
                _ => vec![Step::Write(response(404, &[], b""))],
            }
        }),
    )
    .await;
    port.set(server.port()).unwrap();
    let resolver = Arc::new(StaticResolver::new().with("site.test", [PERMITTED]));
    let fetcher = fetcher_with(permit_127_0_0_2(), resolver, quick_options());
    let robots = RobotsCache::new(&fetcher);
    let start = CheckedUrl::parse(&format!("http://site.test:{}/", server.port())).unwrap();
    let options = CrawlOptions {
        depth: 3,
        max_pages: 20,
        concurrency: 1,
        politeness: Politeness {
            crawl_delay: std::time::Duration::ZERO,
            respect_robots: false,
        },
    };
    let call = Allowance::new(std::time::Duration::from_secs(20), CancellationToken::new());
    let mut listed = Vec::new();
    crawl(&fetcher, &robots, &start, &options, &call, &mut |visit| {
        if let Outcome::Fetched { page, text } = &visit.outcome {
            listed.push((
                visit.url.to_string(),
                page.bytes,
                text.title().map(str::to_owned),
                text.links().len(),
            ));
        }
        Flow::Continue
    })
    .await
    .unwrap();
    let base = format!("http://site.test:{}", server.port());
    assert_eq!(
        listed,
        [
            (format!("{base}/"), listed[0].1, Some("Home".to_owned()), 1),
            (
                format!("{base}/r.pdf"),
                linking(server.port()).len(),
                Some("Linked Report".to_owned()),
                0
            ),
        ]
    );
    assert_eq!(canary.load(std::sync::atomic::Ordering::SeqCst), 0);
}

/// Set in the child process a hostile-PDF test starts: which case it runs.
const HOSTILE_CHILD: &str = "MCP_WEB_PDF_HOSTILE_CHILD";

/// This process's peak resident memory (`VmHWM`), in KiB, and the CPU time it has used
/// (user and system, from `/proc/self/stat`), in seconds; `None` off Linux.
fn peak_and_cpu() -> Option<(u64, f64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let peak = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((peak, cpu_seconds()?))
}

/// The CPU time this process has used, in seconds (clock ticks of 1/100 s, as Linux
/// reports them to every process).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which ends at the last ')'.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// Runs the test `name` again in a child process of its own with [`HOSTILE_CHILD`] set
/// to `case`, so that neither a crash nor other tests' memory and CPU count; returns
/// what it printed once it passed: its `peak-kib` and `cpu-s` lines, and a `result` line.
fn in_child(name: &str, case: &str) -> (u64, f64, String) {
    let child = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(HOSTILE_CHILD, case)
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success(),
        "{case}: {}\n{stdout}\n{}",
        child.status,
        String::from_utf8_lossy(&child.stderr)
    );
    let field = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.split_once(key).map(|(_, value)| value))
            .unwrap_or_else(|| panic!("{case}: no {key:?} in {stdout}"))
            .trim()
            .to_owned()
    };
    let peak = field("peak-kib ").parse().expect("a number");
    let cpu = field("cpu-s ").parse().expect("a number");
    (peak, cpu, field("result "))
}

/// What reading `file` under `max-pdf-bytes` = `max` gave, in a line: the rule of its
/// refusal, or `ok` and how many bytes of text.
fn outcome(file: &[u8], max: usize) -> String {
    match read(file, &Limits::new(max, None)) {
        Ok(text) => format!("ok {}", text.text.len()),
        Err(Failure::Problem(p)) => format!("{} {:?}", p.rule(), p),
        Err(Failure::Deadline) => "deadline".to_owned(),
    }
}

/// Hostile files read in a child process: a page naming one 64 KiB stream 20,000 times
/// (1.3 GB decoded, which once aborted the process), forms drawing forms 1,000 times four
/// deep, and forms drawing 360,000 words from 4 MB of content. Each is refused by the rule
/// that bounds it, before its work is done: the child's peak memory stays within 48 MiB
/// (the test process and a 1 MiB document), and it spends a few seconds of CPU at most.
#[test]
fn hostile_pdfs_are_refused_within_a_bounded_memory() {
    const MAX: usize = 1 << 20;
    if let Ok(case) = std::env::var(HOSTILE_CHILD) {
        let file = match case.as_str() {
            "repeated" => crate::pdf_fixtures::repeated_contents(64 * 1024, 20_000),
            "forms" => crate::pdf_fixtures::forms_drawing_forms(1000, 4),
            "glyphs" => crate::pdf_fixtures::forms_drawing_forms(300, 2),
            other => panic!("no case {other}"),
        };
        assert!(file.len() <= MAX, "{case}: {} bytes", file.len());
        let result = outcome(&file, MAX);
        let (peak, cpu) = peak_and_cpu().expect("Linux");
        println!("result {result}\npeak-kib {peak}\ncpu-s {cpu}");
        return;
    }
    if peak_and_cpu().is_none() {
        // Not Linux: no /proc to read the peak from.
        return;
    }
    let name = "pdf::hostile_pdfs_are_refused_within_a_bounded_memory";
    for (case, rule) in [
        ("repeated", "pdf-inflation PdfBomb { limit: 16777216 }"),
        ("forms", "pdf-inflation PdfBomb { limit: 16777216 }"),
        ("glyphs", "pdf-glyphs PdfGlyphs { limit: 262144 }"),
    ] {
        let (peak, cpu, result) = in_child(name, case);
        assert_eq!(result, rule, "{case}");
        assert!(peak <= 48 * 1024, "{case}: peak {peak} KiB");
        assert!(cpu <= 10.0, "{case}: {cpu} s of CPU");
    }
}

/// One line of a million glyphs, each landing between the line's ends: read whole in
/// seconds of CPU (its layout once looked at the whole line for each glyph, for hours).
#[test]
fn a_million_glyph_line_is_laid_out_in_linear_time() {
    if let Ok(case) = std::env::var(HOSTILE_CHILD) {
        assert_eq!(case, "line");
        let file = crate::pdf_fixtures::long_line(1_000_000);
        let text = read(&file, &Limits::new(20 << 20, None)).expect("the line reads");
        let line = text.text.lines().nth(1).unwrap_or_default();
        let a = line.bytes().filter(|&b| b == b'a').count();
        let (peak, cpu) = peak_and_cpu().expect("Linux");
        println!(
            "result {a} {}\npeak-kib {peak}\ncpu-s {cpu}",
            line.ends_with('X')
        );
        return;
    }
    if peak_and_cpu().is_none() {
        return;
    }
    let (_, cpu, result) = in_child(
        "pdf::a_million_glyph_line_is_laid_out_in_linear_time",
        "line",
    );
    assert_eq!(result, "1000000 true");
    assert!(cpu <= 30.0, "{cpu} s of CPU");
}

/// A fetch whose reading is cancelled part-way (once the reading has used half a second
/// of CPU), or outlasts its `total-timeout`, answers at once, and the reading stops with
/// it: in the two seconds after the answer the process spends next to no CPU (a
/// cancelled reading once went on to its end on its blocking thread, and a quadratic
/// layout past the deadline for minutes).
#[tokio::test]
async fn a_reading_stops_when_its_call_is_cancelled_or_answers_at_its_deadline() {
    if let Ok(case) = std::env::var(HOSTILE_CHILD) {
        let server = site(vec![(
            "/line.pdf",
            "application/pdf",
            crate::pdf_fixtures::long_line(1_000_000),
        )])
        .await;
        let resolver = Arc::new(StaticResolver::new().with("site.test", [PERMITTED]));
        let total_timeout = match case.as_str() {
            "deadline" => std::time::Duration::from_millis(300),
            _ => std::time::Duration::from_secs(600),
        };
        let options = FetchOptions {
            total_timeout,
            ..quick_options()
        };
        let fetcher = fetcher_with(permit_127_0_0_2(), resolver, options);
        let url = CheckedUrl::parse(&format!("http://site.test:{}/line.pdf", server.port()))
            .expect("a valid test URL");
        let cancel = CancellationToken::new();
        let fetching = {
            let cancel = cancel.clone();
            tokio::spawn(async move { fetcher.fetch(&url, &cancel).await })
        };
        if case == "cancel" {
            let start = cpu_seconds().expect("Linux");
            while cpu_seconds().expect("Linux") - start < 0.5 {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            cancel.cancel();
        }
        let error = fetching
            .await
            .expect("the fetch task")
            .expect_err("the reading does not finish");
        let before = cpu_seconds().expect("Linux");
        std::thread::sleep(std::time::Duration::from_secs(2));
        let after = cpu_seconds().expect("Linux");
        let (peak, _) = peak_and_cpu().expect("Linux");
        println!(
            "result {}\npeak-kib {peak}\ncpu-s {}",
            error.rule(),
            after - before
        );
        return;
    }
    if peak_and_cpu().is_none() {
        return;
    }
    let name = "pdf::a_reading_stops_when_its_call_is_cancelled_or_answers_at_its_deadline";
    for (case, rule) in [("deadline", "total-timeout"), ("cancel", "cancelled")] {
        let (_, cpu, result) = in_child(name, case);
        assert_eq!(result, rule, "{case}");
        assert!(cpu <= 0.3, "{case}: {cpu} s of CPU after the answer");
    }
}

/// Three pages each opening with a numbered section whose text goes on below it, a word
/// hyphenated over a paragraph gap, and a page number at each foot: the sections stay
/// (alike but for their numbers, they are not running headers), the word is rejoined and
/// the page numbers go.
#[test]
fn numbered_sections_stay_and_a_hyphen_rejoins_over_a_paragraph_gap() {
    let names = ["first", "second", "third"];
    let pages: Vec<Vec<u8>> = (1..=3)
        .map(|n| {
            format!(
                "BT /F1 12 Tf 72 740 Td (Section {n}) Tj 0 -14 Td (The {0} part goes on, extraordi-) Tj 0 -40 Td (nary, as the {0} is.) Tj ET\nBT /F1 10 Tf 290 40 Td (Page {n}) Tj ET",
                names[n - 1]
            )
            .into_bytes()
        })
        .collect();
    let file = document(&pages, None, "").finish();
    let text = read(&file, &Limits::new(1 << 20, None)).expect("the document reads");
    assert_eq!(
        text.text,
        "[page 1]\nSection 1\nThe first part goes on, extraordinary,\nas the first is.\n\n\
         [page 2]\nSection 2\nThe second part goes on, extraordinary,\nas the second is.\n\n\
         [page 3]\nSection 3\nThe third part goes on, extraordinary,\nas the third is."
    );
}
