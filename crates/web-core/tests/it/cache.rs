//! The fetcher's HTTP cache against a loopback origin that counts requests and answers
//! `Cache-Control`, `ETag` and `Last-Modified` in the combinations that matter. Time is
//! a clock the test moves by hand, never the wall clock.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use mcp_web_core::ErrorKind;
use mcp_web_core::crawl::{CrawlOptions, Flow, Outcome, Politeness, Stopped, crawl};
use mcp_web_core::fetch::{
    CacheConfig, Checked, Clock, FetchOptions, Fetcher, HopCheck, Page, Truncation,
};
use mcp_web_core::guard::{Grant, Policy, Scope};
use mcp_web_core::robots::cache::RobotsCache;
use mcp_web_core::transport::StaticResolver;
use mcp_web_core::url::CheckedUrl;
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// A clock the test moves by hand.
#[derive(Debug)]
struct Hand(Mutex<SystemTime>);

impl Hand {
    fn new() -> Arc<Hand> {
        Arc::new(Hand(Mutex::new(SystemTime::now())))
    }

    fn advance(&self, by: Duration) {
        *self.0.lock().expect("test clock") += by;
    }
}

impl Clock for Hand {
    fn now(&self) -> SystemTime {
        *self.0.lock().expect("test clock")
    }
}

fn on(server: &Server, path: &str) -> CheckedUrl {
    CheckedUrl::parse(&format!("http://site.test:{}{path}", server.port()))
        .expect("a valid test URL")
}

fn resolver() -> Arc<StaticResolver> {
    Arc::new(StaticResolver::new().with("site.test", [PERMITTED]))
}

fn caching(shared: bool) -> FetchOptions {
    FetchOptions {
        cache: CacheConfig {
            bytes: 1 << 20,
            max_age: Duration::from_secs(3600),
            shared,
        },
        ..quick_options()
    }
}

/// A fetcher permitting 127.0.0.2 with a cache on `clock`.
fn fetcher(options: FetchOptions, policy: Policy, clock: &Arc<Hand>) -> Fetcher {
    fetcher_with(policy, resolver(), options).with_clock(clock.clone())
}

/// An origin answering every path with a page of the path's name and `headers`, and a
/// `304` to a request whose `If-None-Match` or `If-Modified-Since` matches them.
fn origin(headers: &'static [(&'static str, &'static str)]) -> Handler {
    Arc::new(move |req: &Req| {
        let etag = headers.iter().find(|(n, _)| *n == "etag").map(|(_, v)| *v);
        let modified = headers
            .iter()
            .find(|(n, _)| *n == "last-modified")
            .map(|(_, v)| *v);
        let unchanged = (etag.is_some() && req.header("if-none-match") == etag)
            || (modified.is_some() && req.header("if-modified-since") == modified);
        if unchanged {
            return vec![Step::Write(response(304, headers, b""))];
        }
        let mut all = vec![("content-type", HTML)];
        all.extend_from_slice(headers);
        let body = format!("<title>{0}</title><p>The page at {0}.</p>", req.path);
        vec![Step::Write(response(200, &all, body.as_bytes()))]
    })
}

/// The content type of the HTML pages.
const HTML: &str = "text/html; charset=utf-8";

/// A `200` response of `content_type` holding `body`, fresh for ten minutes.
fn for_ten_minutes(content_type: &str, body: &str) -> Vec<u8> {
    response(
        200,
        &[
            ("content-type", content_type),
            ("cache-control", "max-age=600"),
        ],
        body.as_bytes(),
    )
}

/// An origin answering `body` as plain text, fresh for ten minutes, to every request.
fn text_for_ten_minutes(body: &str) -> Handler {
    always(for_ten_minutes("text/plain", body))
}

async fn get(fetcher: &Fetcher, url: &CheckedUrl) -> Page {
    fetcher
        .fetch(url, &CancellationToken::new())
        .await
        .expect("the page")
}

#[tokio::test]
async fn a_fresh_entry_answers_without_a_request() {
    let server = Server::start(PERMITTED, origin(&[("cache-control", "max-age=600")])).await;
    let clock = Hand::new();
    let fetcher = fetcher(caching(false), permit_127_0_0_2(), &clock);
    let url = on(&server, "/doc");
    let first = get(&fetcher, &url).await;
    assert!(!first.cached);
    clock.advance(Duration::from_secs(599));
    let second = get(&fetcher, &url).await;
    assert_eq!(server.hits(), 1, "a fresh entry makes no request");
    assert!(second.cached);
    assert_eq!(
        (second.text(), second.status, &second.final_url),
        (first.text(), 200, &url)
    );
    // Past max-age, without a validator, the origin is asked again in full.
    clock.advance(Duration::from_secs(2));
    let third = get(&fetcher, &url).await;
    assert!(!third.cached);
    assert_eq!(server.hits(), 2);
    assert_eq!(server.requests()[1].header("if-none-match"), None);
}

#[tokio::test]
async fn a_stale_entry_is_asked_about_once_and_a_304_serves_it() {
    let server = Server::start(
        PERMITTED,
        origin(&[("cache-control", "max-age=60"), ("etag", "\"v1\"")]),
    )
    .await;
    let clock = Hand::new();
    let fetcher = fetcher(caching(false), permit_127_0_0_2(), &clock);
    let url = on(&server, "/doc");
    let first = get(&fetcher, &url).await;
    clock.advance(Duration::from_secs(61));
    let second = get(&fetcher, &url).await;
    assert_eq!(server.hits(), 2, "one conditional request");
    assert_eq!(server.requests()[1].header("if-none-match"), Some("\"v1\""));
    assert!(second.cached);
    assert_eq!(second.text(), first.text());
    // The 304 refreshed the entry: fresh for another minute.
    clock.advance(Duration::from_secs(59));
    get(&fetcher, &url).await;
    assert_eq!(server.hits(), 2);
}

#[tokio::test]
async fn last_modified_alone_gives_bounded_heuristic_freshness_and_if_modified_since() {
    // Ten days unchanged: 10 % of that is a day, bounded by cache-max-age (an hour).
    let server = Server::start(
        PERMITTED,
        origin(&[("last-modified", "Mon, 01 Jan 2024 00:00:00 GMT")]),
    )
    .await;
    let clock = Hand::new();
    let fetcher = fetcher(caching(false), permit_127_0_0_2(), &clock);
    let url = on(&server, "/doc");
    get(&fetcher, &url).await;
    clock.advance(Duration::from_secs(3599));
    assert!(get(&fetcher, &url).await.cached);
    assert_eq!(server.hits(), 1);
    clock.advance(Duration::from_secs(2));
    let revalidated = get(&fetcher, &url).await;
    assert!(revalidated.cached);
    assert_eq!(server.hits(), 2);
    assert_eq!(
        server.requests()[1].header("if-modified-since"),
        Some("Mon, 01 Jan 2024 00:00:00 GMT")
    );
}

#[tokio::test]
async fn no_store_is_never_stored_and_private_only_by_a_private_cache() {
    let clock = Hand::new();
    for (headers, shared, stored) in [
        (
            &[("cache-control", "no-store, max-age=600")][..],
            false,
            false,
        ),
        (
            &[("cache-control", "no-store, max-age=600")][..],
            true,
            false,
        ),
        (
            &[("cache-control", "private, max-age=600")][..],
            true,
            false,
        ),
        (
            &[("cache-control", "private, max-age=600")][..],
            false,
            true,
        ),
        (
            &[("cache-control", "max-age=600"), ("vary", "*")][..],
            false,
            false,
        ),
    ] {
        let headers: &'static [(&'static str, &'static str)] = Box::leak(headers.into());
        let server = Server::start(PERMITTED, origin(headers)).await;
        let fetcher = fetcher(caching(shared), permit_127_0_0_2(), &clock);
        let url = on(&server, "/doc");
        get(&fetcher, &url).await;
        let again = get(&fetcher, &url).await;
        let expected = if stored { 1 } else { 2 };
        assert_eq!(server.hits(), expected, "{headers:?}, shared: {shared}");
        assert_eq!(again.cached, stored, "{headers:?}, shared: {shared}");
    }
}

#[tokio::test]
async fn s_maxage_counts_in_a_shared_cache_only() {
    let clock = Hand::new();
    for (shared, hits) in [(true, 1), (false, 2)] {
        let server = Server::start(
            PERMITTED,
            origin(&[("cache-control", "max-age=0, s-maxage=600")]),
        )
        .await;
        let fetcher = fetcher(caching(shared), permit_127_0_0_2(), &clock);
        let url = on(&server, "/doc");
        get(&fetcher, &url).await;
        get(&fetcher, &url).await;
        assert_eq!(server.hits(), hits, "shared: {shared}");
    }
}

#[tokio::test]
async fn cache_bytes_zero_turns_the_cache_off() {
    let server = Server::start(PERMITTED, origin(&[("cache-control", "max-age=600")])).await;
    let clock = Hand::new();
    let mut options = caching(false);
    options.cache.bytes = 0;
    let fetcher = fetcher(options, permit_127_0_0_2(), &clock);
    assert!(fetcher.cache().is_none());
    let url = on(&server, "/doc");
    get(&fetcher, &url).await;
    get(&fetcher, &url).await;
    assert_eq!(server.hits(), 2);
}

/// Refuses every hop to a path ending in `/new`.
struct NotNew;

impl HopCheck for NotNew {
    type Stop = String;

    async fn check(&self, hop: &CheckedUrl, _chain: &[CheckedUrl]) -> Result<(), String> {
        if hop.as_str().ends_with("/new") {
            Err(hop.to_string())
        } else {
            Ok(())
        }
    }
}

#[tokio::test]
async fn a_stored_redirect_is_decided_and_checked_hop_by_hop() {
    let server = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| {
            if req.path == "/old" {
                vec![Step::Write(response(
                    301,
                    &[("location", "/new"), ("cache-control", "max-age=600")],
                    b"",
                ))]
            } else {
                vec![Step::Write(response(
                    200,
                    &[
                        ("content-type", "text/plain"),
                        ("cache-control", "max-age=600"),
                    ],
                    b"the new page",
                ))]
            }
        }),
    )
    .await;
    let clock = Hand::new();
    let fetcher = fetcher(caching(false), permit_127_0_0_2(), &clock);
    let old = on(&server, "/old");
    get(&fetcher, &old).await;
    assert_eq!(server.hits(), 2);
    let again = get(&fetcher, &old).await;
    assert_eq!(server.hits(), 2, "both hops came from the cache");
    assert_eq!(again.chain, vec![old.clone(), on(&server, "/new")]);
    assert_eq!(
        (again.final_url.url().path(), again.text()),
        ("/new", "the new page")
    );
    // A check that refuses the second hop stops the chain there, cached or not.
    let call = fetcher.allowance(CancellationToken::new());
    match fetcher.fetch_checked(&old, &call, &NotNew).await.unwrap() {
        Checked::Stopped { hop, chain, .. } => {
            assert_eq!(hop, on(&server, "/new"));
            assert_eq!(chain, vec![old]);
        }
        Checked::Page(page) => panic!("the refused hop was served: {}", page.final_url),
    }
    assert_eq!(server.hits(), 2);
}

#[tokio::test]
async fn a_truncated_page_is_served_truncated_and_only_to_the_same_cap() {
    let server = Server::start(PERMITTED, text_for_ten_minutes(&"x".repeat(20_000))).await;
    let clock = Hand::new();
    let mut options = caching(false);
    options.max_bytes = 8192;
    let fetcher = fetcher(options, permit_127_0_0_2(), &clock);
    let url = on(&server, "/big");
    get(&fetcher, &url).await;
    let again = get(&fetcher, &url).await;
    assert_eq!(server.hits(), 1);
    assert!(again.cached);
    assert_eq!(
        (again.bytes, again.truncated),
        (8192, Some(Truncation::ByteCap { limit: 8192 }))
    );
    // A call reading more is not answered with the cut page.
    let call = fetcher
        .allowance(CancellationToken::new())
        .with_max_bytes(32 * 1024);
    let whole = fetcher.fetch_within(&url, &call).await.unwrap();
    assert_eq!(
        (whole.bytes, whole.truncated, whole.cached),
        (20_000, None, false)
    );
    assert_eq!(server.hits(), 2);
}

#[tokio::test]
async fn a_granted_fetch_never_reads_or_fills_the_cache() {
    let server = Server::start(PERMITTED, origin(&[("cache-control", "max-age=600")])).await;
    let clock = Hand::new();
    let grant = || Grant::new("site.test", server.port(), Scope::Loopback);
    // A policy that refuses 127.0.0.2: only a grant reaches it.
    let refusing = fetcher(caching(false), default_policy(), &clock);
    let url = on(&server, "/doc");
    let call = refusing
        .allowance(CancellationToken::new())
        .with_grant(grant());
    refusing.fetch_within(&url, &call).await.unwrap();
    assert_eq!(
        refusing.cache().unwrap().entries(),
        0,
        "nothing granted is stored"
    );
    let refused = refusing
        .fetch(&url, &CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Blocked);
    assert_eq!(server.hits(), 1);

    // Where the policy permits it and an entry exists, a granted call still asks.
    let permitting = fetcher(caching(false), permit_127_0_0_2(), &clock);
    get(&permitting, &url).await;
    assert_eq!(server.hits(), 2);
    let call = permitting
        .allowance(CancellationToken::new())
        .with_grant(grant());
    let granted = permitting.fetch_within(&url, &call).await.unwrap();
    assert!(!granted.cached);
    assert_eq!(server.hits(), 3);
}

#[tokio::test]
async fn a_refused_url_stays_refused_after_a_policy_change_whatever_was_stored() {
    let server = Server::start(PERMITTED, origin(&[("cache-control", "max-age=600")])).await;
    let clock = Hand::new();
    let url = on(&server, "/doc");
    let before = fetcher(caching(false), permit_127_0_0_2(), &clock);
    get(&before, &url).await;
    assert!(get(&before, &url).await.cached);
    // The policy no longer permits 127.0.0.2: a fetcher of its own, a cache of its own.
    let after = fetcher(caching(false), default_policy(), &clock);
    let refused = after
        .fetch(&url, &CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Blocked);
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn the_byte_bound_holds_under_a_flood_of_distinct_urls() {
    const BOUND: u64 = 64 * 1024;
    let server = Server::start(PERMITTED, text_for_ten_minutes(&"y".repeat(4000))).await;
    let clock = Hand::new();
    let mut options = caching(false);
    options.cache.bytes = BOUND;
    let fetcher = fetcher(options, permit_127_0_0_2(), &clock);
    let cache = fetcher.cache().unwrap().clone();
    for n in 0..200 {
        get(&fetcher, &on(&server, &format!("/page/{n}"))).await;
        assert!(cache.weighed_bytes() <= BOUND, "after page {n}");
    }
    let entries = cache.entries();
    assert!(
        (1..200).contains(&entries) && entries * 4000 <= BOUND,
        "{entries} entries"
    );
}

#[tokio::test]
async fn a_walk_waits_no_politeness_delay_for_pages_the_cache_answers() {
    let server = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| {
            let links = if req.path == "/" {
                r#"<a href="/one">one</a> <a href="/two">two</a>"#
            } else {
                "a leaf"
            };
            let body = format!("<title>{}</title><p>{links}</p>", req.path);
            vec![Step::Write(for_ten_minutes(HTML, &body))]
        }),
    )
    .await;
    let clock = Hand::new();
    let fetcher = fetcher(caching(false), permit_127_0_0_2(), &clock);
    let robots = RobotsCache::new(&fetcher);
    let start = on(&server, "/");
    let walk = |delay: Duration| {
        let (fetcher, robots, start) = (&fetcher, &robots, &start);
        async move {
            let options = CrawlOptions {
                depth: 1,
                max_pages: 10,
                concurrency: 1,
                politeness: Politeness {
                    crawl_delay: delay,
                    respect_robots: false,
                },
            };
            let call = fetcher.allowance(CancellationToken::new());
            let mut cached = Vec::new();
            let summary = crawl(fetcher, robots, start, &options, &call, &mut |visit| {
                if let Outcome::Fetched { page, .. } = &visit.outcome {
                    cached.push(page.cached);
                }
                Flow::Continue
            })
            .await
            .unwrap();
            (summary, cached)
        }
    };
    let (first, cached) = walk(Duration::ZERO).await;
    assert_eq!((first.fetched, cached), (3, vec![false; 3]));
    assert_eq!(server.hits(), 3);
    // A delay longer than the call's whole time stops a walk before its second request;
    // a walk the cache answers asks the origin nothing, so it waits for nothing.
    let (second, cached) = walk(Duration::from_secs(3600)).await;
    assert_eq!(
        (second.fetched, second.stopped, cached),
        (3, Stopped::Done, vec![true; 3])
    );
    assert_eq!(server.hits(), 3);
    // Once the entries are stale the delay applies again.
    clock.advance(Duration::from_secs(601));
    let (third, _) = walk(Duration::from_secs(3600)).await;
    assert_eq!((third.fetched, third.stopped), (1, Stopped::Deadline));
}

#[tokio::test]
async fn a_page_the_cache_answers_again_is_not_extracted_again_unless_its_extraction_is_large() {
    let farm: String = (0..2000).map(|n| format!("<a href=/{n}>{n}</a>")).collect();
    let server = Server::start(
        PERMITTED,
        Arc::new(move |req: &Req| {
            let body = if req.path == "/farm" {
                farm.clone()
            } else {
                // Markup about the text, as pages have.
                let paragraph = r#"<div class="entry-content"><p class="lead">A paragraph of text, long enough to read.</p></div>"#;
                format!("<title>Doc</title>{}", paragraph.repeat(20))
            };
            vec![Step::Write(for_ten_minutes(HTML, &body))]
        }),
    )
    .await;
    let clock = Hand::new();
    let fetcher = fetcher(caching(false), permit_127_0_0_2(), &clock);
    let doc = on(&server, "/doc");
    let first = get(&fetcher, &doc).await;
    assert!(!first.is_extracted());
    let made = first.extract();
    let again = get(&fetcher, &doc).await;
    assert!(again.cached && again.is_extracted());
    assert_eq!(again.extract(), made);
    // A link farm's links weigh more than its text: its extraction is not kept.
    let farm = on(&server, "/farm");
    let links = get(&fetcher, &farm).await.extract().links.len();
    assert_eq!(links, 2000);
    let again = get(&fetcher, &farm).await;
    assert!(again.cached && !again.is_extracted());
    assert_eq!(server.hits(), 2);
}
