//! Fetched pages as numbered lines: which bodies are text (the one media classifier, seen
//! through a fetch), and line numbers that agree with the rendered `web_fetch` answer.

use std::sync::Arc;

use mcp_web_core::ErrorKind;
use mcp_web_core::error::Error;
use mcp_web_core::fetch::{FetchOptions, Page};
use mcp_web_core::media::Kind;
use mcp_web_core::page::{PARTIAL_NOTICE, PageText};
use mcp_web_core::transport::StaticResolver;
use mcp_web_core::url::CheckedUrl;
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// A loopback site answering each path with a scripted response.
async fn site() -> Server {
    Server::start(
        PERMITTED,
        Arc::new(|req: &Req| {
            let body_of = |ty: &str, body: &[u8]| vec![Step::Write(response(200, &[("content-type", ty)], body))];
            match req.path.as_str() {
                "/rst" => body_of("text/x-rst; charset=utf-8", b"Title\n=====\n\nSome *prose*."),
                "/tsv" => body_of("text/tab-separated-values", b"a\tb\n1\t2"),
                "/css" => body_of("text/css", b"p { color: red }"),
                "/octet-html" => body_of("application/octet-stream", b"<p>markup served as bytes</p>"),
                "/octet-bin" => body_of("application/octet-stream", b"\x00\x01\x02binary"),
                "/pdf" => body_of("application/pdf", b"%PDF-1.7"),
                "/moved" => redirect(302, "/article"),
                "/article" => body_of(
                    "text/html",
                    b"<title>Numbered</title><article><h1>Numbered</h1><p>First paragraph of prose.</p><p>Second paragraph of prose.</p><p>Third paragraph of prose.</p></article>",
                ),
                "/partial" => body_of("text/html", partial_page().as_bytes()),
                _ => vec![Step::Write(response(404, &[], b""))],
            }
        }),
    )
    .await
}

/// A short article beside a long menu: the answer is a small part of the page's text.
fn partial_page() -> String {
    let menu =
        "<li><a href=/s>A menu entry with a long label for one of the site's sections</a></li>"
            .repeat(40);
    format!(
        "<title>Short</title><body><nav><ul>{menu}</ul></nav><article><h1>Short</h1><p>The \
         article's one paragraph, which says little.</p></article></body>"
    )
}

async fn get(server: &Server, path: &str, options: FetchOptions) -> Result<Page, Error> {
    let resolver = Arc::new(StaticResolver::new().with("site.test", [PERMITTED]));
    let fetcher = fetcher_with(permit_127_0_0_2(), resolver, options);
    let url = CheckedUrl::parse(&format!("http://site.test:{}{path}", server.port()))
        .expect("a valid test URL");
    fetcher.fetch(&url, &CancellationToken::new()).await
}

#[tokio::test]
async fn every_text_type_is_read_and_generic_types_are_sniffed() {
    let server = site().await;
    for (path, kind, text) in [
        ("/rst", Kind::Text, "Title\n=====\n\nSome *prose*."),
        ("/tsv", Kind::Text, "a\tb\n1\t2"),
        ("/css", Kind::Text, "p { color: red }"),
        ("/octet-html", Kind::Html, "markup served as bytes"),
    ] {
        let page = get(&server, path, quick_options()).await.unwrap();
        assert_eq!(page.kind, kind, "{path}");
        assert_eq!(PageText::new(&page).body().join("\n"), text, "{path}");
    }
    for (path, named) in [
        ("/octet-bin", "application/octet-stream"),
        ("/pdf", "application/pdf"),
    ] {
        let error = get(&server, path, quick_options()).await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Content, "{path}");
        let Error::Content(content) = &error else {
            unreachable!()
        };
        assert_eq!(content.content_type, named, "{path}");
    }
}

/// Every line the rendered answer shows (its notice aside) is the line of the same number
/// in `lines()`.
fn assert_numbers_agree(text: &PageText, rendered: &str) {
    let shown: Vec<&str> = rendered.lines().collect();
    let answer = match shown.last() {
        Some(last) if last.starts_with("[truncated:") => &shown[..shown.len() - 2],
        _ => &shown[..],
    };
    assert!(answer.len() <= text.lines().len());
    assert_eq!(answer, &text.lines()[..answer.len()]);
}

#[tokio::test]
async fn lines_are_numbered_as_web_fetch_shows_them() {
    let server = site().await;
    let page = get(&server, "/moved", quick_options()).await.unwrap();
    let text = PageText::new(&page);
    let final_url = format!("http://site.test:{}/article", server.port());
    assert_eq!(
        text.header(),
        ["# Numbered", &format!("Retrieved from {final_url}"), ""]
    );
    assert_eq!(text.title(), Some("Numbered"));
    let numbered: Vec<(usize, &str)> = text.numbered_body().collect();
    // The page's `h1` repeats the title line, so the body starts with the prose.
    assert_eq!(numbered.first(), Some(&(4, "First paragraph of prose.")));
    assert!(
        !numbered.iter().any(|(_, l)| *l == "# Numbered"),
        "{numbered:?}"
    );
    assert!(
        numbered.contains(&(8, "Third paragraph of prose.")),
        "{numbered:?}"
    );
    let whole = text.render(usize::MAX, "web_grep");
    assert_eq!(whole, text.lines().join("\n"));
    assert_numbers_agree(&text, &whole);

    // A cap cuts the answer, not the numbering: the lines kept keep their numbers.
    let cut = text.render(40, "web_grep");
    assert!(cut.ends_with("raise max-chars to keep more]"), "{cut}");
    assert!(!cut.contains("Third"), "{cut}");
    assert_numbers_agree(&text, &cut);
    assert!(
        text.lines()
            .iter()
            .any(|l| l == "Third paragraph of prose.")
    );
}

#[tokio::test]
async fn a_body_cut_by_the_byte_cap_loses_its_unfinished_line_only() {
    let long: String = (1..=2000)
        .map(|i| format!("line {i} of the log\n"))
        .collect();
    let server = Server::start(
        PERMITTED,
        always(response(
            200,
            &[("content-type", "text/plain")],
            long.as_bytes(),
        )),
    )
    .await;
    let options = FetchOptions {
        max_bytes: 4096,
        ..quick_options()
    };
    let page = get(&server, "/log", options).await.unwrap();
    let text = PageText::new(&page);
    let body = text.body();
    // 4096 bytes hold 210 whole lines and part of the 211th, which is dropped.
    assert_eq!(body.last().map(String::as_str), Some("line 210 of the log"));
    assert_eq!(
        text.numbered_body().last(),
        Some((2 + 210, "line 210 of the log"))
    );
    let rendered = text.render(usize::MAX, "web_grep");
    assert!(rendered.ends_with("byte cap of 4096 bytes was reached; the rest of the page was not fetched; raise max-bytes to keep more]"), "{rendered}");
    assert_numbers_agree(&text, &rendered);
}

#[tokio::test]
async fn an_answer_that_is_a_small_part_of_its_page_says_so() {
    let server = site().await;
    let page = get(&server, "/partial", quick_options()).await.unwrap();
    let text = PageText::new(&page);
    assert!(text.flags().partial);
    let answer = text.render(usize::MAX, "web_grep");
    assert!(
        answer.ends_with(&format!("says little.\n\n{PARTIAL_NOTICE}")),
        "{answer}"
    );
    // The notice is no line of the text: web_grep's numbers are web_fetch's.
    assert!(!text.lines().iter().any(|l| l == PARTIAL_NOTICE));
    // A page whose text is its article has no notice.
    let page = get(&server, "/article", quick_options()).await.unwrap();
    let text = PageText::new(&page);
    assert!(!text.flags().partial);
    assert!(!text.render(usize::MAX, "web_grep").contains("[partial"));
}
