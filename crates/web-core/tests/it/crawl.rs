//! The same-origin crawl against loopback sites: order, de-duplication, origins,
//! redirects, robots.txt, budgets, politeness, the caller stopping and cancellation.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use mcp_web_core::crawl::{
    CrawlOptions, Flow, Outcome, Politeness, Stopped, Summary, Visit, crawl,
};
use mcp_web_core::error::{Error, RobotsReason};
use mcp_web_core::fetch::{Allowance, CacheConfig, FetchOptions, Fetcher};
use mcp_web_core::robots::cache::RobotsCache;
use mcp_web_core::transport::{NetworkOptions, StaticResolver};
use mcp_web_core::url::CheckedUrl;
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// Pages of the generated site, `/` included.
const PAGES: usize = 300;

fn url(s: &str) -> CheckedUrl {
    CheckedUrl::parse(s).expect("a valid test URL")
}

/// An HTML document.
fn document(title: Option<&str>, head: &str, body: &str) -> String {
    let title = title.map_or(String::new(), |t| format!("<title>{t}</title>"));
    format!(
        "<!doctype html><html><head>{title}{head}</head><body><main><p>{body}</p></main></body></html>"
    )
}

/// An HTML page answer.
fn page(title: Option<&str>, head: &str, body: &str) -> Vec<Step> {
    vec![Step::Write(response(
        200,
        &[("content-type", "text/html; charset=utf-8")],
        document(title, head, body).as_bytes(),
    ))]
}

/// `<a>` elements for `hrefs`.
fn anchors(hrefs: &[String]) -> String {
    hrefs
        .iter()
        .map(|h| format!("<a href=\"{h}\">link to {h}</a> "))
        .collect()
}

/// The robots.txt answer.
fn robots_txt(body: &str) -> Vec<Step> {
    vec![Step::Write(response(
        200,
        &[("content-type", "text/plain")],
        body.as_bytes(),
    ))]
}

/// Fetch options with a short per-request `timeout`, so a hanging page fails soon.
fn options() -> FetchOptions {
    FetchOptions {
        headers_timeout: Duration::from_secs(5),
        timeout: Duration::from_secs(4),
        total_timeout: Duration::from_secs(120),
        network: NetworkOptions {
            connect_timeout: Duration::from_secs(5),
            ..default_options().network
        },
        ..default_options()
    }
}

fn fetcher() -> Fetcher {
    fetcher_with(
        permit_127_0_0_2(),
        Arc::new(StaticResolver::new()),
        options(),
    )
}

/// A fetcher whose requests wait a minute for a hanging page, so the call's
/// `total-timeout` is what runs out.
fn patient_fetcher() -> Fetcher {
    fetcher_with(
        permit_127_0_0_2(),
        Arc::new(StaticResolver::new()),
        FetchOptions {
            headers_timeout: Duration::from_secs(60),
            timeout: Duration::from_secs(60),
            ..options()
        },
    )
}

fn limits(depth: usize, max_pages: usize) -> CrawlOptions {
    CrawlOptions {
        depth,
        max_pages,
        concurrency: 1,
        politeness: Politeness {
            crawl_delay: Duration::ZERO,
            respect_robots: true,
        },
    }
}

/// One visit as the index would show it: url, depth, and status or error rule.
fn line(visit: &Visit) -> (String, usize, String) {
    let what = match &visit.outcome {
        Outcome::Fetched { page, text } => format!(
            "{} {} {} {}",
            page.status,
            page.final_url,
            page.bytes,
            text.title().unwrap_or("-")
        ),
        Outcome::Skipped(e) => format!("skipped {}", e.rule()),
        Outcome::Failed(e) => format!("failed {}", e.rule()),
        Outcome::Alias { hop, listed_as } => format!("alias {hop} {listed_as}"),
        Outcome::OffOrigin { hop } => format!("off-origin {hop}"),
    };
    (visit.url.to_string(), visit.depth, what)
}

/// Runs a crawl, collecting what `on_visit` saw.
async fn run(
    fetcher: &Fetcher,
    start: &CheckedUrl,
    limits: &CrawlOptions,
    call: &Allowance,
) -> (Result<Summary, Error>, Vec<(String, usize, String)>) {
    let robots = RobotsCache::new(fetcher);
    let mut seen = Vec::new();
    let result = crawl(fetcher, &robots, start, limits, call, &mut |v| {
        seen.push(line(v));
        Flow::Continue
    })
    .await;
    (result, seen)
}

/// What a crawl's summary says of how it ended: pages fetched and why it stopped.
fn ended(summary: &Summary) -> (usize, Stopped) {
    (summary.fetched, summary.stopped)
}

fn call() -> Allowance {
    Allowance::new(Duration::from_secs(120), CancellationToken::new())
}

/// How many requests each path received.
fn hits_by_path(server: &Server) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for req in server.requests() {
        *out.entry(req.path).or_insert(0) += 1;
    }
    out
}

/// The generated site: `/` is node 0, `/p/N` node N; node N links to its children
/// `3N+1 … 3N+3`, to `/` (a cycle), to itself with a fragment, to another origin and
/// to a mailto link. `robots` is its robots.txt.
fn tree_site(other: u16, robots: &'static str) -> Handler {
    Arc::new(move |req: &Req| {
        if req.path == "/robots.txt" {
            return robots_txt(robots);
        }
        let node = if req.path == "/" {
            Some(0)
        } else {
            req.path
                .strip_prefix("/p/")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n < PAGES)
        };
        let Some(node) = node else {
            return vec![Step::Write(response(404, &[], b"not here"))];
        };
        let mut hrefs: Vec<String> = (3 * node + 1..=3 * node + 3)
            .filter(|c| *c < PAGES)
            .map(|c| format!("/p/{c}"))
            .collect();
        hrefs.push("/".into());
        hrefs.push(format!("{}#self", node_path(node)));
        hrefs.push(format!("http://127.0.0.2:{other}/elsewhere/{node}"));
        hrefs.push("mailto:someone@example.com".into());
        page(Some(&format!("Node {node}")), "", &anchors(&hrefs))
    })
}

/// The path of node `n`.
fn node_path(n: usize) -> String {
    if n == 0 {
        "/".into()
    } else {
        format!("/p/{n}")
    }
}

/// A 200 HTML answer of `doc`.
fn html_of(doc: &str) -> Vec<Step> {
    vec![Step::Write(response(
        200,
        &[("content-type", "text/html; charset=utf-8")],
        doc.as_bytes(),
    ))]
}

#[tokio::test]
async fn a_small_site_is_listed_exactly_in_breadth_first_order() {
    let other = Server::start(PERMITTED, html("<p>other</p>")).await;
    let landing_doc = document(Some("Landing"), "", "<a href=\"/deeper\">deeper</a>");
    let landing = {
        let doc = landing_doc.clone();
        Server::start(PERMITTED, Arc::new(move |_: &Req| html_of(&doc))).await
    };
    let (b, c) = (other.port(), landing.port());
    let home = document(
        Some("Home"),
        "",
        &anchors(&[
            "/moved".into(),
            "a".into(),
            "/b".into(),
            "/away".into(),
            "/gone".into(),
            "/hang".into(),
            "/private/x".into(),
            format!("http://127.0.0.2:{b}/x"),
            "mailto:x@example.com".into(),
            "javascript:void(0)".into(),
            "/a#part".into(),
            "/#top".into(),
        ]),
    );
    let page_a = document(
        Some("Page A"),
        "",
        &anchors(&["/".into(), "/c".into(), "/b".into()]),
    );
    let page_b = document(Some("Page B"), "<link rel=\"next\" href=\"/d\">", "b text");
    let page_c = document(None, "", "no title here");
    let page_d = document(Some("Page D"), "", &anchors(&["/e".into()]));
    let docs = (
        home.clone(),
        page_a.clone(),
        page_b.clone(),
        page_c.clone(),
        page_d.clone(),
    );
    let site = Server::start(
        PERMITTED,
        Arc::new(move |req: &Req| match req.path.as_str() {
            "/robots.txt" => robots_txt("User-agent: *\nDisallow: /private\n"),
            "/" => html_of(&docs.0),
            "/moved" => redirect(301, "/b"),
            "/a" => html_of(&docs.1),
            "/b" => html_of(&docs.2),
            "/c" => html_of(&docs.3),
            "/d" => html_of(&docs.4),
            "/away" => redirect(302, &format!("http://127.0.0.2:{c}/landing")),
            "/gone" => vec![Step::Write(response(
                404,
                &[("content-type", "text/html")],
                b"<title>Not Found</title>",
            ))],
            "/hang" => vec![Step::Hang],
            _ => vec![Step::Write(response(404, &[], b""))],
        }),
    )
    .await;
    let base = format!("http://127.0.0.2:{}", site.port());
    let fetcher = fetcher();
    let (result, seen) = run(&fetcher, &url(&format!("{base}/")), &limits(2, 50), &call()).await;
    let summary = result.expect("the crawl answers");
    assert_eq!(ended(&summary), (8, Stopped::Done));
    let at = |path: &str| format!("{base}{path}");
    let fetched = |final_url: String, doc: &str, title: &str| {
        format!("200 {final_url} {} {title}", doc.len())
    };
    let expected = vec![
        (at("/"), 0, fetched(at("/"), &home, "Home")),
        (at("/moved"), 1, fetched(at("/b"), &page_b, "Page B")),
        (at("/a"), 1, fetched(at("/a"), &page_a, "Page A")),
        (
            at("/away"),
            1,
            format!("off-origin http://127.0.0.2:{c}/landing"),
        ),
        (at("/gone"), 1, "failed http-status".into()),
        (at("/hang"), 1, "failed timeout".into()),
        (at("/private/x"), 1, "skipped robots-disallow".into()),
        (at("/d"), 2, fetched(at("/d"), &page_d, "Page D")),
        (at("/c"), 2, fetched(at("/c"), &page_c, "-")),
    ];
    assert_eq!(seen, expected);
    // Every page once, the alias `/moved` → `/b` included; nothing at depth 3 (`/e`),
    // nothing refused by robots.txt, nothing on the other origin.
    let hits = hits_by_path(&site);
    let mut paths: Vec<_> = hits.keys().cloned().collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "/",
            "/a",
            "/away",
            "/b",
            "/c",
            "/d",
            "/gone",
            "/hang",
            "/moved",
            "/robots.txt"
        ]
    );
    assert!(hits.values().all(|n| *n == 1), "{hits:?}");
    assert_eq!(other.hits(), 0);
    // The redirect to another origin stops before that hop: it is never requested.
    assert_eq!(landing.hits(), 0, "the other origin got no request");
}

#[tokio::test]
async fn a_site_of_hundreds_of_pages_is_walked_once_each_with_cycles_and_other_origins() {
    let other = Server::start(PERMITTED, html("<p>other</p>")).await;
    let site = Server::start(
        PERMITTED,
        tree_site(other.port(), "User-agent: *\nAllow: /\n"),
    )
    .await;
    let base = format!("http://127.0.0.2:{}", site.port());
    let fetcher = fetcher();
    let start = url(&format!("{base}/"));
    let mut wide = limits(6, 1000);
    wide.concurrency = 4;
    let (result, seen) = run(&fetcher, &start, &wide, &call()).await;
    assert_eq!(
        ended(&result.expect("the crawl answers")),
        (PAGES, Stopped::Done)
    );
    // Breadth-first: node order is level order, and each node's depth is its level.
    let expected: Vec<_> = (0..PAGES)
        .map(|n| {
            let depth = (0..)
                .find(|d| n < (3usize.pow(*d + 1) - 1) / 2)
                .unwrap_or(0) as usize;
            let u = format!("{base}{}", node_path(n));
            (u.clone(), depth, u)
        })
        .collect();
    let got: Vec<_> = seen
        .iter()
        .map(|(u, d, what)| {
            let final_url = what.split(' ').nth(1).unwrap_or_default().to_owned();
            (u.clone(), *d, final_url)
        })
        .collect();
    assert_eq!(got, expected);
    let hits = hits_by_path(&site);
    assert_eq!(hits.len(), PAGES + 1, "every page and robots.txt");
    assert!(hits.values().all(|n| *n == 1), "each requested once");
    assert_eq!(other.hits(), 0, "the other origin got no request");

    // One request at a time visits the same pages in the same order.
    let (result, one_by_one) = run(&fetcher, &start, &limits(6, 1000), &call()).await;
    assert_eq!(result.map(|s| s.fetched).ok(), Some(PAGES));
    assert_eq!(one_by_one, seen);
}

#[tokio::test]
async fn depth_counts_hops_and_max_pages_stops_fetching() {
    let other = Server::start(PERMITTED, html("<p>other</p>")).await;
    let site = Server::start(PERMITTED, tree_site(other.port(), "User-agent: *\n")).await;
    let base = format!("http://127.0.0.2:{}", site.port());
    let fetcher = fetcher();
    let start = url(&format!("{base}/"));

    let (result, seen) = run(&fetcher, &start, &limits(2, 1000), &call()).await;
    assert_eq!(result.map(|s| s.stopped).ok(), Some(Stopped::Done));
    let depths: Vec<_> = seen.iter().map(|(_, d, _)| *d).collect();
    assert_eq!(depths.len(), 1 + 3 + 9);
    assert_eq!(depths.iter().filter(|d| **d == 2).count(), 9);
    assert_eq!(site.hits(), 1 + 13);

    let (_, zero) = run(&fetcher, &start, &limits(0, 1000), &call()).await;
    assert_eq!(zero.len(), 1);
    assert_eq!(
        site.hits(),
        1 + 13 + 1 + 1,
        "each crawl reads robots.txt once"
    );

    let before = site.hits();
    let (result, seen) = run(&fetcher, &start, &limits(5, 10), &call()).await;
    assert_eq!(
        ended(&result.expect("the crawl answers")),
        (10, Stopped::MaxPages)
    );
    assert_eq!(seen.len(), 10);
    assert_eq!(site.hits() - before, 1 + 10, "robots.txt and ten pages");

    // Requests at once do not stretch the budget: it counts fetches as they start.
    let before = site.hits();
    let mut wide = limits(5, 50);
    wide.concurrency = 4;
    let (result, seen) = run(&fetcher, &start, &wide, &call()).await;
    assert_eq!(
        ended(&result.expect("the crawl answers")),
        (50, Stopped::MaxPages)
    );
    assert_eq!(seen.len(), 50);
    assert_eq!(site.hits() - before, 1 + 50, "robots.txt and fifty pages");
}

#[tokio::test]
async fn robots_refusing_the_start_url_is_the_error_and_nothing_is_fetched() {
    let site = Server::start(PERMITTED, tree_site(1, "User-agent: *\nDisallow: /\n")).await;
    let fetcher = fetcher();
    let start = url(&format!("http://127.0.0.2:{}/", site.port()));
    let (result, seen) = run(&fetcher, &start, &limits(2, 20), &call()).await;
    match result {
        Err(Error::RobotsRefused(refused)) => assert_eq!(
            refused.reason,
            RobotsReason::Rule {
                line: "Disallow: /".into(),
                line_no: 2
            }
        ),
        other => panic!("expected RobotsRefused, got {other:?}"),
    }
    assert!(seen.is_empty());
    let paths: Vec<_> = site.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/robots.txt"]);

    // With respect-robots off, robots.txt is not even read.
    let mut ignoring = limits(0, 20);
    ignoring.politeness.respect_robots = false;
    let (result, seen) = run(&fetcher, &start, &ignoring, &call()).await;
    assert_eq!(result.map(|s| s.fetched).ok(), Some(1));
    assert_eq!(seen.len(), 1);
    let paths: Vec<_> = site.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/robots.txt", "/"]);
}

#[tokio::test]
async fn the_start_page_failing_is_the_error() {
    let site = Server::start(
        PERMITTED,
        Arc::new(|_: &Req| vec![Step::Write(response(404, &[], b"no"))]),
    )
    .await;
    let fetcher = fetcher();
    let start = url(&format!("http://127.0.0.2:{}/missing", site.port()));
    let (result, seen) = run(&fetcher, &start, &limits(2, 20), &call()).await;
    match result {
        Err(Error::Http(http)) => assert_eq!(http.status, 404),
        other => panic!("expected the 404, got {other:?}"),
    }
    assert!(seen.is_empty());
}

#[tokio::test]
async fn the_caller_stopping_fetches_nothing_more() {
    let other = Server::start(PERMITTED, html("<p>other</p>")).await;
    let site = Server::start(PERMITTED, tree_site(other.port(), "User-agent: *\n")).await;
    let fetcher = fetcher();
    let robots = RobotsCache::new(&fetcher);
    let start = url(&format!("http://127.0.0.2:{}/", site.port()));
    let mut visits = 0;
    let summary = crawl(
        &fetcher,
        &robots,
        &start,
        &limits(5, 100),
        &call(),
        &mut |_| {
            visits += 1;
            if visits == 3 {
                Flow::Stop
            } else {
                Flow::Continue
            }
        },
    )
    .await
    .expect("the crawl answers");
    assert_eq!(ended(&summary), (3, Stopped::Caller));
    assert_eq!(site.hits(), 1 + 3, "robots.txt and three pages");
}

#[tokio::test]
async fn cancellation_stops_fetching_and_is_the_error() {
    let other = Server::start(PERMITTED, html("<p>other</p>")).await;
    let site = Server::start(PERMITTED, tree_site(other.port(), "User-agent: *\n")).await;
    let fetcher = fetcher();
    let robots = RobotsCache::new(&fetcher);
    let start = url(&format!("http://127.0.0.2:{}/", site.port()));
    let cancel = CancellationToken::new();
    let call = Allowance::new(Duration::from_secs(120), cancel.clone());
    let mut visits = 0;
    let result = crawl(
        &fetcher,
        &robots,
        &start,
        &limits(5, 100),
        &call,
        &mut |_| {
            visits += 1;
            if visits == 2 {
                cancel.cancel();
            }
            Flow::Continue
        },
    )
    .await;
    assert_eq!(result, Err(Error::Cancelled));
    assert_eq!(visits, 2);
    assert_eq!(site.hits(), 1 + 2, "no request after the cancellation");
}

#[tokio::test]
async fn the_total_timeout_running_out_stops_the_crawl_with_what_it_has() {
    let site = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| match req.path.as_str() {
            "/" => page(
                Some("Home"),
                "",
                &anchors(&["/slow".into(), "/later".into()]),
            ),
            "/slow" => vec![Step::Hang],
            _ => page(Some("Later"), "", "later"),
        }),
    )
    .await;
    let fetcher = patient_fetcher();
    let start = url(&format!("http://127.0.0.2:{}/", site.port()));
    let mut ignoring = limits(1, 20);
    ignoring.politeness.respect_robots = false;
    let call = Allowance::new(Duration::from_secs(6), CancellationToken::new());
    let (result, seen) = run(&fetcher, &start, &ignoring, &call).await;
    assert_eq!(
        ended(&result.expect("a deadline is a stop, not an error")),
        (2, Stopped::Deadline)
    );
    let kinds: Vec<_> = seen.iter().map(|(_, _, what)| what.clone()).collect();
    assert_eq!(kinds.len(), 2);
    assert_eq!(kinds[1], "failed total-timeout");
    let paths: Vec<_> = site.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/", "/slow"], "nothing after the deadline");
}

#[tokio::test]
async fn robots_crawl_delay_spaces_requests_when_larger_than_crawl_delay() {
    let site = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| match req.path.as_str() {
            "/robots.txt" => robots_txt("User-agent: *\nCrawl-delay: 0.5\n"),
            "/" => page(Some("Home"), "", &anchors(&["/one".into(), "/two".into()])),
            _ => page(Some("Leaf"), "", "leaf"),
        }),
    )
    .await;
    let fetcher = fetcher();
    let start = url(&format!("http://127.0.0.2:{}/", site.port()));
    let mut polite = limits(1, 20);
    polite.politeness.crawl_delay = Duration::from_millis(10);
    polite.concurrency = 8;
    let began = tokio::time::Instant::now();
    let (result, seen) = run(&fetcher, &start, &polite, &call()).await;
    let took = began.elapsed();
    assert_eq!(result.map(|s| s.fetched).ok(), Some(3));
    assert_eq!(seen.len(), 3);
    // Three requests with two waits of robots.txt's half second between them: the
    // crawl cannot have finished sooner (a lower bound only, whatever the machine).
    assert!(took >= Duration::from_millis(1000), "{took:?}");
}

#[tokio::test]
async fn each_url_is_requested_once_redirect_hops_and_failed_chains_included() {
    let home = document(
        Some("Home"),
        "",
        &anchors(&[
            "/b".into(),
            "/moved".into(),
            "/broken".into(),
            "/gone".into(),
            "/sneaky".into(),
            "/private/direct".into(),
        ]),
    );
    let home_len = home.len();
    let site = Server::start(
        PERMITTED,
        Arc::new(move |req: &Req| match req.path.as_str() {
            "/robots.txt" => robots_txt("User-agent: *\nDisallow: /private\n"),
            "/" => html_of(&home),
            "/b" => page(Some("Page B"), "", "b"),
            // An alias of a page fetched before.
            "/moved" => redirect(301, "/b"),
            // A chain that fails: its hop must not be requested again when linked.
            "/broken" => redirect(302, "/gone"),
            "/gone" => vec![Step::Write(response(404, &[], b""))],
            // A hop robots.txt refuses.
            "/sneaky" => redirect(302, "/private/secret"),
            _ => page(Some("Private"), "", "private"),
        }),
    )
    .await;
    let base = format!("http://127.0.0.2:{}", site.port());
    let at = |path: &str| format!("{base}{path}");
    let fetcher = fetcher();
    let robots = RobotsCache::new(&fetcher);
    let mut seen = Vec::new();
    let mut refused_urls = Vec::new();
    let summary = crawl(
        &fetcher,
        &robots,
        &url(&at("/")),
        &limits(1, 50),
        &call(),
        &mut |v| {
            if let Outcome::Failed(Error::RobotsRefused(r)) = &v.outcome {
                refused_urls.push(r.url.clone());
            }
            seen.push(line(v));
            Flow::Continue
        },
    )
    .await
    .expect("the crawl answers");
    let b_len = document(Some("Page B"), "", "b").len();
    assert_eq!(
        seen,
        [
            (at("/"), 0, format!("200 {} {home_len} Home", at("/"))),
            (at("/b"), 1, format!("200 {} {b_len} Page B", at("/b"))),
            (at("/moved"), 1, format!("alias {} {}", at("/b"), at("/b"))),
            (at("/broken"), 1, "failed http-status".into()),
            (at("/sneaky"), 1, "failed robots-disallow".into()),
            (at("/private/direct"), 1, "skipped robots-disallow".into()),
        ]
    );
    assert_eq!(refused_urls, [at("/private/secret")], "the hop is named");
    // Five requests completed (the refused page was not requested); `/gone` was
    // requested once, as the hop of `/broken`, and not again when linked.
    assert_eq!(ended(&summary), (5, Stopped::Done));
    let hits = hits_by_path(&site);
    let mut paths: Vec<_> = hits.keys().cloned().collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "/",
            "/b",
            "/broken",
            "/gone",
            "/moved",
            "/robots.txt",
            "/sneaky"
        ]
    );
    assert!(hits.values().all(|n| *n == 1), "{hits:?}");
}

#[tokio::test]
async fn with_requests_at_once_an_alias_of_a_page_in_flight_is_not_requested_again() {
    let release = Arc::new(tokio::sync::Notify::new());
    let home = document(
        Some("Home"),
        "",
        &anchors(&["/t".into(), "/to-t".into(), "/to-u".into(), "/u".into()]),
    );
    let site = {
        let release = release.clone();
        Server::start(
            PERMITTED,
            Arc::new(move |req: &Req| match req.path.as_str() {
                "/" => html_of(&home),
                // `/t` answers only once `/to-t` was asked for: it is in flight then.
                "/t" => {
                    let mut steps = vec![Step::Wait(release.clone())];
                    steps.extend(page(Some("T"), "", "t"));
                    steps
                }
                "/to-t" => {
                    release.notify_one();
                    redirect(301, "/t")
                }
                "/to-u" => redirect(301, "/u"),
                _ => page(Some("U"), "", "u"),
            }),
        )
        .await
    };
    let base = format!("http://127.0.0.2:{}", site.port());
    let at = |path: &str| format!("{base}{path}");
    let fetcher = fetcher();
    let mut wide = limits(1, 50);
    wide.politeness.respect_robots = false;
    wide.concurrency = 4;
    let (result, seen) = run(&fetcher, &url(&at("/")), &wide, &call()).await;
    assert_eq!(
        ended(&result.expect("the crawl answers")),
        (5, Stopped::Done)
    );
    let rest: Vec<_> = seen[1..]
        .iter()
        .map(|(u, _, what)| (u.clone(), what.clone()))
        .collect();
    let (t, u) = (document(Some("T"), "", "t"), document(Some("U"), "", "u"));
    assert_eq!(
        rest,
        [
            (at("/t"), format!("200 {} {} T", at("/t"), t.len())),
            (at("/to-t"), format!("alias {} {}", at("/t"), at("/t"))),
            // `/u` was queued when `/to-u` started, so it was claimed first.
            (at("/to-u"), format!("alias {} {}", at("/u"), at("/u"))),
            (at("/u"), format!("200 {} {} U", at("/u"), u.len())),
        ]
    );
    let hits = hits_by_path(&site);
    assert_eq!(hits.len(), 5, "{hits:?}");
    assert!(hits.values().all(|n| *n == 1), "{hits:?}");
}

#[tokio::test]
async fn fetched_counts_the_fetches_reported_not_those_dropped_in_flight() {
    let home = document(
        Some("Home"),
        "",
        &anchors(&["/a".into(), "/hang".into(), "/b".into()]),
    );
    let site = Server::start(
        PERMITTED,
        Arc::new(move |req: &Req| match req.path.as_str() {
            "/" => html_of(&home),
            "/hang" => vec![Step::Hang],
            _ => page(Some("Leaf"), "", "leaf"),
        }),
    )
    .await;
    let fetcher = fetcher();
    let robots = RobotsCache::new(&fetcher);
    let start = url(&format!("http://127.0.0.2:{}/", site.port()));
    let mut wide = limits(1, 100);
    wide.politeness.respect_robots = false;
    wide.concurrency = 4;
    let mut reported = Vec::new();
    let summary = crawl(&fetcher, &robots, &start, &wide, &call(), &mut |v| {
        reported.push(v.url.url().path().to_owned());
        if v.url.url().path() == "/a" {
            Flow::Stop
        } else {
            Flow::Continue
        }
    })
    .await
    .expect("the crawl answers");
    // `/hang` and `/b` were started with `/a` and dropped in flight: not counted.
    assert_eq!(reported, ["/", "/a"]);
    assert_eq!(ended(&summary), (2, Stopped::Caller));
}

#[tokio::test]
async fn a_fetch_in_flight_when_the_deadline_stops_the_crawl_is_not_counted() {
    let home = document(
        Some("Home"),
        "",
        &anchors(&["/a".into(), "/hang".into(), "/hang-too".into()]),
    );
    let site = Server::start(
        PERMITTED,
        Arc::new(move |req: &Req| match req.path.as_str() {
            "/" => html_of(&home),
            "/hang" | "/hang-too" => vec![Step::Hang],
            _ => page(Some("Leaf"), "", "leaf"),
        }),
    )
    .await;
    let fetcher = patient_fetcher();
    let start = url(&format!("http://127.0.0.2:{}/", site.port()));
    let mut wide = limits(1, 20);
    wide.politeness.respect_robots = false;
    wide.concurrency = 4;
    let call = Allowance::new(Duration::from_secs(6), CancellationToken::new());
    let (result, seen) = run(&fetcher, &start, &wide, &call).await;
    let kinds: Vec<_> = seen.iter().map(|(_, _, what)| what.clone()).collect();
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    assert_eq!(kinds[2], "failed total-timeout");
    // `/hang-too` was in flight when `/hang` reported the deadline: it is not counted.
    assert_eq!(
        ended(&result.expect("a deadline is a stop, not an error")),
        (3, Stopped::Deadline)
    );
}

/// A page of `n` same-origin links under `prefix`.
fn fan_out(prefix: &str, n: usize) -> Vec<Step> {
    let links: String = (0..n)
        .map(|i| format!("<a href=\"{prefix}{i}\">{i}</a> "))
        .collect();
    page(Some("Fan"), "", &links)
}

#[tokio::test]
async fn pages_linking_to_tens_of_thousands_of_urls_queue_a_bounded_number() {
    let site = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| match req.path.as_str() {
            "/robots.txt" => robots_txt("User-agent: *\nAllow: /\n"),
            "/" => fan_out("/a/", 20_000),
            _ => fan_out(&format!("{}/", req.path), 20_000),
        }),
    )
    .await;
    let fetcher = fetcher();
    let start = url(&format!("http://127.0.0.2:{}/", site.port()));
    let (result, seen) = run(&fetcher, &start, &limits(3, 3), &call()).await;
    let summary = result.expect("the crawl answers");
    assert_eq!(ended(&summary), (3, Stopped::MaxPages));
    // Four links per page of max-pages are queued in all, the start page included,
    // out of 20,000 on each page.
    assert_eq!(summary.queued, 3 * mcp_web_core::crawl::QUEUED_PER_PAGE);
    assert_eq!(seen.len(), 3);
    assert_eq!(site.hits(), 4, "three pages and robots.txt");
}

#[tokio::test]
async fn a_walk_that_left_links_unqueued_says_max_pages_stopped_it() {
    // Two pages may be fetched and eight links queued; the start page has twelve, and
    // robots.txt refuses the first six queued, so the walk runs out of queued pages
    // before it runs out of max-pages.
    let site = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| match req.path.as_str() {
            "/robots.txt" => robots_txt("User-agent: *\nDisallow: /x/\nAllow: /x/6\n"),
            "/" => fan_out("/x/", 12),
            _ => page(Some("Leaf"), "", "leaf"),
        }),
    )
    .await;
    let fetcher = fetcher();
    let start = url(&format!("http://127.0.0.2:{}/", site.port()));
    let (result, seen) = run(&fetcher, &start, &limits(1, 2), &call()).await;
    let summary = result.expect("the crawl answers");
    assert_eq!(summary.queued, 8);
    assert_eq!(seen.len(), 8, "the start page, six refused and /x/6");
    assert_eq!(ended(&summary), (2, Stopped::MaxPages));
}

#[tokio::test]
async fn a_redirect_to_another_origin_stops_before_that_hop() {
    let other = Server::start(PERMITTED, html("<p>other</p>")).await;
    let o = other.port();
    let site = Server::start(
        PERMITTED,
        Arc::new(move |req: &Req| match req.path.as_str() {
            "/robots.txt" => robots_txt("User-agent: *\nAllow: /\n"),
            "/" => page(Some("Home"), "", &anchors(&["/out".into(), "/via".into()])),
            "/out" => redirect(302, &format!("http://127.0.0.2:{o}/landing")),
            // A same-origin hop first, then another origin.
            "/via" => redirect(301, "/out2"),
            "/out2" => redirect(302, &format!("http://127.0.0.2:{o}/second")),
            "/jump" => redirect(302, &format!("http://127.0.0.2:{o}/")),
            _ => page(Some("Leaf"), "", "leaf"),
        }),
    )
    .await;
    let base = format!("http://127.0.0.2:{}", site.port());
    let fetcher = fetcher();
    let (result, seen) = run(&fetcher, &url(&format!("{base}/")), &limits(1, 20), &call()).await;
    assert_eq!(
        ended(&result.expect("the crawl answers")),
        (3, Stopped::Done)
    );
    assert_eq!(
        seen[1],
        (
            format!("{base}/out"),
            1,
            format!("off-origin http://127.0.0.2:{o}/landing")
        )
    );
    assert_eq!(
        seen[2],
        (
            format!("{base}/via"),
            1,
            format!("off-origin http://127.0.0.2:{o}/second")
        )
    );
    // A start page that leaves the origin is listed the same way.
    let (result, seen) = run(
        &fetcher,
        &url(&format!("{base}/jump")),
        &limits(1, 20),
        &call(),
    )
    .await;
    assert_eq!(
        ended(&result.expect("the crawl answers")),
        (1, Stopped::Done)
    );
    assert_eq!(
        seen,
        [(
            format!("{base}/jump"),
            0,
            format!("off-origin http://127.0.0.2:{o}/")
        )]
    );
    assert_eq!(
        other.hits(),
        0,
        "the other origin got no request, robots.txt included"
    );
}

#[tokio::test(start_paused = true)]
async fn redirect_hops_are_spaced_by_the_crawl_delay() {
    // Nine hops from /r0 to /end under Crawl-delay: 2; the server stamps each request
    // with the (paused, auto-advancing) tokio clock.
    let stamps: Arc<std::sync::Mutex<Vec<(String, tokio::time::Instant)>>> = Arc::default();
    let log = stamps.clone();
    let site = Server::start(
        PERMITTED,
        Arc::new(move |req: &Req| {
            let path = req.path.clone();
            if path != "/robots.txt" {
                log.lock()
                    .expect("test rig")
                    .push((path.clone(), tokio::time::Instant::now()));
            }
            match path.as_str() {
                "/robots.txt" => robots_txt("User-agent: *\nCrawl-delay: 2\n"),
                "/" => page(Some("Home"), "", &anchors(&["/r0".into(), "/leaf".into()])),
                "/r8" => redirect(302, "/end"),
                p if p.starts_with("/r") => {
                    let n: usize = p[2..].parse().expect("a hop number");
                    redirect(302, &format!("/r{}", n + 1))
                }
                _ => page(Some("Leaf"), "", "leaf"),
            }
        }),
    )
    .await;
    let patient = FetchOptions {
        headers_timeout: Duration::from_secs(3600),
        timeout: Duration::from_secs(3600),
        total_timeout: Duration::from_secs(36_000),
        network: NetworkOptions {
            connect_timeout: Duration::from_secs(3600),
            ..default_options().network
        },
        ..default_options()
    };
    let fetcher = fetcher_with(permit_127_0_0_2(), Arc::new(StaticResolver::new()), patient);
    let start = url(&format!("http://127.0.0.2:{}/", site.port()));
    let call = Allowance::new(Duration::from_secs(36_000), CancellationToken::new());
    let (result, seen) = run(&fetcher, &start, &limits(1, 20), &call).await;
    assert_eq!(
        ended(&result.expect("the crawl answers")),
        (3, Stopped::Done)
    );
    assert_eq!(seen.len(), 3);
    let stamps = stamps.lock().expect("test rig").clone();
    let paths: Vec<&str> = stamps.iter().map(|(p, _)| p.as_str()).collect();
    let mut expected = vec!["/".to_owned()];
    expected.extend((0..9).map(|n| format!("/r{n}")));
    expected.extend(["/end".to_owned(), "/leaf".to_owned()]);
    assert_eq!(paths, expected);
    for pair in stamps.windows(2) {
        let gap = pair[1].1 - pair[0].1;
        assert!(
            gap >= Duration::from_secs(2),
            "{} came {gap:?} after {}",
            pair[1].0,
            pair[0].0
        );
    }
}

/// Set in the child process [`a_crawl_holds_two_large_bodies_at_once`] starts: the start
/// URL of the parent's site.
const BODIES_CHILD: &str = "MCP_WEB_CRAWL_BODIES_CHILD";

/// The byte cap of the crawl of large bodies, which its pages fill.
const BODIES_MAX_BYTES: usize = 4 * 1024 * 1024;

/// A crawl with eight fetches at once of pages that each fill `max-bytes` holds at most two
/// bodies of `work::LARGE` bytes or more (one being extracted, one read ahead): the other
/// fetches wait at `work::LARGE` bytes for their turn, so what the walk holds is two
/// bodies, not eight. Eight pages of 4 MiB (a comment the extractor leaves out, so that
/// the bodies are what is held) under a start page linking them, the HTTP cache off,
/// measured as [`a_fan_out_crawl_holds_a_few_pages_at_once`] is, after a walk of one such
/// page: 23.6–24.5 MiB growth (about 6 × max-bytes, debug build) with the bound, 54.5–57
/// MiB (about 14 ×) without it (eight bodies read, seven of them waiting for the walk's
/// turn to extract).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_holds_two_large_bodies_at_once() {
    if let Ok(start) = std::env::var(BODIES_CHILD) {
        let fetcher = fetcher_with(
            permit_127_0_0_2(),
            Arc::new(StaticResolver::new()),
            FetchOptions {
                max_bytes: BODIES_MAX_BYTES,
                // What the walk holds, not what a cache keeps of each page.
                cache: CacheConfig {
                    bytes: 0,
                    ..options().cache
                },
                ..options()
            },
        );
        let limits = CrawlOptions {
            concurrency: 8,
            ..limits(1, 9)
        };
        // A walk of one such page first, so that the code the walk runs is resident before
        // the figure starts.
        let warm = run(&fetcher, &url(&format!("{start}warm")), &limits, &call()).await;
        assert_eq!(
            ended(&warm.0.expect("the crawl answers")),
            (2, Stopped::Done)
        );
        let before = status_kib("VmRSS:").expect("/proc/self/status");
        let (result, seen) = run(&fetcher, &url(&start), &limits, &call()).await;
        let peak = status_kib("VmHWM:").expect("/proc/self/status");
        assert_eq!(
            ended(&result.expect("the crawl answers")),
            (9, Stopped::Done)
        );
        let full = format!(" {BODIES_MAX_BYTES} ");
        assert!(
            seen.iter()
                .skip(1)
                .all(|(_, _, what)| what.starts_with("200 ") && what.contains(&full)),
            "{seen:?}"
        );
        println!("grew-kib {}", peak.saturating_sub(before));
        return;
    }
    if status_kib("VmHWM:").is_none() {
        // Not Linux: there is no /proc to read the peak from.
        return;
    }
    let site = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| match req.path.as_str() {
            "/robots.txt" => robots_txt("User-agent: *\nAllow: /\n"),
            "/" => {
                let hrefs: Vec<String> = (0..8).map(|i| format!("/t{i}")).collect();
                page(Some("Pages"), "", &anchors(&hrefs))
            }
            "/warm" => page(Some("Warm"), "", &anchors(&["/w0".to_owned()])),
            path => {
                // Markup the extractor leaves out (a comment) fills the page: what the walk
                // holds of it is its body.
                let mut html = document(Some(path), "", "A short text.");
                html.push_str("<!-- ");
                html.push_str(&"filler ".repeat(BODIES_MAX_BYTES / 7));
                html.push_str(" -->");
                vec![Step::Write(response(
                    200,
                    &[("content-type", "text/html; charset=utf-8")],
                    html.as_bytes(),
                ))]
            }
        }),
    )
    .await;
    let start = format!("http://127.0.0.2:{}/", site.port());
    let child = tokio::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "crawl::a_crawl_holds_two_large_bodies_at_once",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(BODIES_CHILD, &start)
        .env("MALLOC_ARENA_MAX", "1")
        .output()
        .await
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(child.status.success(), "{stdout}");
    let grew = reported_kib(&stdout, "grew-kib ");
    let limit = 9 * BODIES_MAX_BYTES as u64 / 1024;
    assert!(grew <= limit, "the crawl grew by {grew} KiB > {limit} KiB");
}

/// Set in the child process [`a_fan_out_crawl_holds_a_few_pages_at_once`] starts: the
/// start URL of the parent's site.
const FAN_OUT_CHILD: &str = "MCP_WEB_CRAWL_MEMORY_CHILD";

/// The byte cap of the fan-out crawl measured, which its pages fill.
const FAN_OUT_MAX_BYTES: usize = 1024 * 1024;

/// A feed of about [`FAN_OUT_MAX_BYTES`] whose items link to as many pages under `prefix`
/// as fit (about 28,000).
fn fan_out_feed(prefix: &str) -> Vec<Step> {
    let mut feed = String::from("<?xml version=\"1.0\"?><rss><channel><title>Fan</title>\n");
    let mut i = 0;
    while feed.len() < FAN_OUT_MAX_BYTES - 100 {
        feed.push_str(&format!("<item><link>{prefix}{i}</link></item>\n"));
        i += 1;
    }
    feed.push_str("</channel></rss>\n");
    vec![Step::Write(response(
        200,
        &[("content-type", "application/rss+xml")],
        feed.as_bytes(),
    ))]
}

/// A page of about [`FAN_OUT_MAX_BYTES`] of nothing but links to pages under `prefix`
/// (about 37,000): four times the elements and more its byte cap lets a page build.
fn fan_out_html(prefix: &str) -> Vec<Step> {
    let mut page = String::from("<!doctype html><title>Fan</title><main><p>Many links.</p>\n");
    let mut i = 0;
    while page.len() < FAN_OUT_MAX_BYTES - 100 {
        page.push_str(&format!("<a href=\"{prefix}{i}\">{i}</a>\n"));
        i += 1;
    }
    vec![Step::Write(response(
        200,
        &[("content-type", "text/html")],
        page.as_bytes(),
    ))]
}

/// A memory figure of this process from `/proc/self/status` (`VmHWM:`, `VmRSS:`), in KiB.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A crawl of pages that each fill `max-bytes` with links to tens of thousands of others
/// holds a few pages at once, not every page in flight with every link of each: of a
/// page it keeps the text and the links it reads (the extractor collects no more), and
/// the body is dropped once extracted. Measured in a child process of its own, so no
/// other test's memory counts, from its resident memory when the crawl starts to its
/// peak, with one malloc arena (so the figure is what the crawl holds, not how the C
/// allocator spreads freed memory over per-thread arenas). Four fetches at once, twelve
/// pages of 1 MiB: about 10 MiB live at the peak (the four bodies in flight, one page's
/// lines), 16–19 MiB resident with the allocator's slack; without the bound (every link
/// and body kept, the text decoded into three times its room) it grew by 48 MiB. The
/// same walk over HTML pages of links, one element in 25 bytes, holds one page's tree
/// too, of at most one element per 128 bytes of `max-bytes`: 17–18 MiB; before that cap
/// (every element built, then copied by content selection) it grew by 63 MiB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fan_out_crawl_holds_a_few_pages_at_once() {
    if let Ok(start) = std::env::var(FAN_OUT_CHILD) {
        let fetcher = fetcher_with(
            permit_127_0_0_2(),
            Arc::new(StaticResolver::new()),
            FetchOptions {
                max_bytes: FAN_OUT_MAX_BYTES,
                ..options()
            },
        );
        let limits = CrawlOptions {
            concurrency: 4,
            ..limits(2, 12)
        };
        let before = status_kib("VmRSS:").expect("/proc/self/status");
        let (result, seen) = run(&fetcher, &url(&start), &limits, &call()).await;
        let peak = status_kib("VmHWM:").expect("/proc/self/status");
        assert_eq!(
            ended(&result.expect("the crawl answers")),
            (12, Stopped::MaxPages)
        );
        assert!(
            seen.iter().all(|(_, _, what)| what.starts_with("200 ")),
            "{seen:?}"
        );
        println!("grew-kib {}", peak.saturating_sub(before));
        return;
    }
    if status_kib("VmHWM:").is_none() {
        // Not Linux: there is no /proc to read the peak from.
        return;
    }
    let site = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| match req.path.as_str() {
            "/robots.txt" => robots_txt("User-agent: *\nAllow: /\n"),
            path if path.starts_with("/html") => {
                fan_out_html(&format!("{}/", path.trim_end_matches('/')))
            }
            path => fan_out_feed(&format!("{}/", path.trim_end_matches('/'))),
        }),
    )
    .await;
    for start in ["/", "/html"] {
        let start = format!("http://127.0.0.2:{}{start}", site.port());
        fan_out_child(&start).await;
    }
}

/// Runs [`a_fan_out_crawl_holds_a_few_pages_at_once`]'s crawl from `start` in a child
/// process and asserts its growth.
async fn fan_out_child(start: &str) {
    let child = tokio::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "crawl::a_fan_out_crawl_holds_a_few_pages_at_once",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(FAN_OUT_CHILD, start)
        .env("MALLOC_ARENA_MAX", "1")
        .output()
        .await
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(child.status.success(), "{stdout}");
    let grew = reported_kib(&stdout, "grew-kib ");
    let limit = 22 * FAN_OUT_MAX_BYTES as u64 / 1024;
    assert!(
        grew <= limit,
        "the crawl from {start} grew by {grew} KiB > {limit} KiB"
    );
}
