//! The robots.txt cache against loopback servers: status rules, redirects, the floor
//! applied to robots.txt, the 500 KiB limit, and one fetch per origin at a time.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcp_web_core::error::{Error, RobotsReason};
use mcp_web_core::fetch::{Allowance, FetchOptions};
use mcp_web_core::guard::Policy;
use mcp_web_core::key::ConfigKey;
use mcp_web_core::robots::cache::{FRESH_FOR, RobotsCache};
use mcp_web_core::robots::{PARSE_LIMIT, Reason};
use mcp_web_core::transport::StaticResolver;
use mcp_web_core::url::CheckedUrl;
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// A call of a minute, cancelled with `cancel`.
fn call_of(cancel: &CancellationToken) -> Allowance {
    Allowance::new(Duration::from_secs(60), cancel.clone())
}

fn url(s: &str) -> CheckedUrl {
    CheckedUrl::parse(s).expect("a valid test URL")
}

/// A plain-text 200 answer.
fn text(body: &str) -> Vec<Step> {
    vec![Step::Write(response(
        200,
        &[("content-type", "text/plain")],
        body.as_bytes(),
    ))]
}

/// An answer with this status and a short body.
fn status(code: u16) -> Vec<Step> {
    vec![Step::Write(response(
        code,
        &[("content-type", "text/plain")],
        b"no",
    ))]
}

/// A handler answering `/robots.txt` with `robots` and every other path with a page.
fn site(robots: impl Fn() -> Vec<Step> + Send + Sync + 'static) -> Handler {
    Arc::new(move |req: &Req| {
        if req.path == "/robots.txt" {
            robots()
        } else {
            text("a page")
        }
    })
}

/// A cache over a fetcher permitting 127.0.0.2 with these options.
fn cache_with(options: FetchOptions) -> RobotsCache {
    let fetcher = fetcher_with(permit_127_0_0_2(), Arc::new(StaticResolver::new()), options);
    RobotsCache::new(&fetcher)
}

fn cache() -> RobotsCache {
    cache_with(quick_options())
}

fn on(server: &Server, path: &str) -> CheckedUrl {
    url(&format!("http://{}{path}", server.addr))
}

fn robots_hits(server: &Server) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.path.starts_with("/robots.txt"))
        .count()
}

async fn allowed(cache: &RobotsCache, u: &CheckedUrl) -> bool {
    cache
        .verdict(u, &call_of(&CancellationToken::new()))
        .await
        .expect("not cancelled")
        .is_allowed()
}

#[tokio::test]
async fn a_fetched_file_is_obeyed_for_our_product_token_and_fetched_once() {
    let server = Server::start(
        PERMITTED,
        site(|| text("User-agent: mcp-web\nDisallow: /mine\n\nUser-agent: *\nDisallow: /all\n")),
    )
    .await;
    let cache = cache();
    assert_eq!(cache.agent(), "mcp-web");
    let cancel = CancellationToken::new();
    assert!(!allowed(&cache, &on(&server, "/mine/page")).await);
    assert!(allowed(&cache, &on(&server, "/all/page")).await);
    let refusal = cache
        .check(&on(&server, "/mine?x=1"), &call_of(&cancel))
        .await
        .unwrap_err();
    assert_eq!(
        refusal.to_string(),
        format!(
            r#"skipped http://{}/mine?x=1: robots.txt Disallow: /mine (line 2) disallows it for user agent 'mcp-web'. A fetch of that one page reads it regardless; set "respect-robots": false to crawl it anyway."#,
            server.addr
        )
    );
    assert_eq!(refusal.config_key(), Some(ConfigKey::RespectRobots));
    assert_eq!(robots_hits(&server), 1);
    let request = &server.requests()[0];
    assert_eq!(request.path, "/robots.txt");
    assert_eq!(
        request.header("user-agent"),
        Some(default_options().network.user_agent.as_str())
    );
}

#[tokio::test]
async fn status_rules() {
    // (status, allowed, reason)
    let cases: [(u16, bool, &str); 6] = [
        (404, true, "robots.txt answered 404, so no rules apply"),
        (403, true, "robots.txt answered 403, so no rules apply"),
        (410, true, "robots.txt answered 410, so no rules apply"),
        (
            500,
            false,
            "robots.txt answered 500, a server error, which RFC 9309 says disallows the whole site",
        ),
        (
            503,
            false,
            "robots.txt answered 503, a server error, which RFC 9309 says disallows the whole site",
        ),
        (
            599,
            false,
            "robots.txt answered 599, a server error, which RFC 9309 says disallows the whole site",
        ),
    ];
    for (code, want_allowed, want_reason) in cases {
        let server = Server::start(PERMITTED, site(move || status(code))).await;
        let cache = cache();
        let cancel = CancellationToken::new();
        let verdict = cache
            .verdict(&on(&server, "/any"), &call_of(&cancel))
            .await
            .unwrap();
        assert_eq!(
            (verdict.is_allowed(), verdict.reason().to_string()),
            (want_allowed, want_reason.to_owned()),
            "{code}"
        );
        if !want_allowed {
            let refusal = cache.check(&on(&server, "/any"), &call_of(&cancel)).await;
            assert!(
                matches!(&refusal, Err(Error::RobotsRefused(r)) if r.reason == RobotsReason::Unavailable { status: code }),
                "{refusal:?}"
            );
            assert_eq!(
                refusal.unwrap_err().config_key(),
                Some(ConfigKey::RespectRobots)
            );
        }
        assert_eq!(robots_hits(&server), 1, "{code}: fetched once, then cached");
    }
}

#[tokio::test]
async fn no_connection_at_all_is_allowed() {
    let listener = tokio::net::TcpListener::bind(SocketAddr::new(PERMITTED, 0))
        .await
        .expect("test rig");
    let addr = listener.local_addr().expect("test rig");
    drop(listener);
    let cache = cache();
    let verdict = cache
        .verdict(
            &url(&format!("http://{addr}/page")),
            &call_of(&CancellationToken::new()),
        )
        .await
        .unwrap();
    assert!(verdict.is_allowed());
    assert!(
        matches!(verdict.reason(), Reason::Unreachable { detail } if detail.starts_with("connection-refused")),
        "{verdict}"
    );
}

#[tokio::test]
async fn an_unreachable_robots_txt_is_retried_not_kept_for_a_day() {
    // robots.txt never answers; the headers deadline gives up.
    let server = Server::start(PERMITTED, site(|| vec![Step::Hang])).await;
    let options = FetchOptions {
        headers_timeout: Duration::from_millis(300),
        ..quick_options()
    };
    let retry = Duration::from_secs(60);
    let cache = cache_with(options).keep_for(FRESH_FOR, retry);
    let page = on(&server, "/page");
    assert!(allowed(&cache, &page).await);
    assert!(
        allowed(&cache, &page).await,
        "still within the retry period"
    );
    assert_eq!(robots_hits(&server), 1);
    // The retry period passes on tokio's clock alone: paused, moved past it, resumed
    // for the real socket work that follows.
    tokio::time::pause();
    tokio::time::advance(retry + Duration::from_secs(1)).await;
    tokio::time::resume();
    let verdict = cache
        .verdict(&page, &call_of(&CancellationToken::new()))
        .await
        .unwrap();
    assert!(
        matches!(verdict.reason(), Reason::Unreachable { detail } if detail == "headers-timeout ran out while reading headers"),
        "{verdict}"
    );
    assert_eq!(
        robots_hits(&server),
        2,
        "fetched again after the retry period"
    );
}

#[tokio::test]
async fn five_redirects_are_followed_and_the_rules_apply_to_the_first_origin() {
    // /robots.txt → /r1 → … → /r5 → the file: five redirects.
    let server = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| match req.path.as_str() {
            "/robots.txt" => redirect(301, "/r1"),
            "/r1" => redirect(302, "/r2"),
            "/r2" => redirect(307, "/r3"),
            "/r3" => redirect(308, "/r4"),
            "/r4" => redirect(303, "/r5"),
            "/r5" => text("User-agent: *\nDisallow: /private\n"),
            _ => text("a page"),
        }),
    )
    .await;
    let cache = cache();
    assert!(!allowed(&cache, &on(&server, "/private/x")).await);
    assert!(allowed(&cache, &on(&server, "/public")).await);
    assert_eq!(server.hits(), 6);
}

#[tokio::test]
async fn a_sixth_redirect_makes_robots_txt_unavailable() {
    let server = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| match req.path.as_str() {
            "/robots.txt" => redirect(301, "/r1"),
            "/r1" => redirect(301, "/r2"),
            "/r2" => redirect(301, "/r3"),
            "/r3" => redirect(301, "/r4"),
            "/r4" => redirect(301, "/r5"),
            "/r5" => redirect(301, "/r6"),
            "/r6" => text("User-agent: *\nDisallow: /\n"),
            _ => text("a page"),
        }),
    )
    .await;
    let cache = cache();
    let verdict = cache
        .verdict(
            &on(&server, "/private"),
            &call_of(&CancellationToken::new()),
        )
        .await
        .unwrap();
    assert!(verdict.is_allowed(), "{verdict}");
    assert_eq!(
        verdict.reason().to_string(),
        "robots.txt could not be read (it redirected more than 5 times), so no rules apply"
    );
    // robots.txt and five redirects were requested; the sixth hop, /r6, never was.
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/robots.txt", "/r1", "/r2", "/r3", "/r4", "/r5"]);
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_followed_and_cached_for_the_first() {
    let other = Server::start(
        PERMITTED,
        site(|| text("User-agent: *\nDisallow: /from-other\n")),
    )
    .await;
    let target = format!("http://{}/robots.txt", other.addr);
    let first = Server::start(PERMITTED, site(move || redirect(301, &target))).await;
    let cache = cache();
    assert!(!allowed(&cache, &on(&first, "/from-other/x")).await);
    assert!(!allowed(&cache, &on(&first, "/from-other/y")).await);
    assert_eq!((robots_hits(&first), robots_hits(&other)), (1, 1));
    // The other origin's own entry is separate: asking about it fetches again.
    assert!(!allowed(&cache, &on(&other, "/from-other/z")).await);
    assert_eq!(robots_hits(&other), 2);
}

#[tokio::test]
async fn the_floor_applies_to_robots_txt_and_its_redirects() {
    // robots.txt redirects to 127.0.0.1, which the policy refuses: not a byte reaches it.
    let canary = RawListener::start(REFUSED).await;
    let location = format!("http://{}/robots.txt", canary.addr);
    let server = Server::start(PERMITTED, site(move || redirect(302, &location))).await;
    let cache = cache();
    let verdict = cache
        .verdict(&on(&server, "/page"), &call_of(&CancellationToken::new()))
        .await
        .unwrap();
    assert!(verdict.is_allowed());
    assert_eq!(
        verdict.reason().to_string(),
        "robots.txt could not be read (the floor refused 127.0.0.1 (loopback address)), so no rules apply"
    );
    assert_eq!((canary.connections(), canary.bytes()), (0, 0));

    // Under the default policy robots.txt itself is refused like any URL: no hit.
    let fetcher = fetcher_with(
        default_policy(),
        Arc::new(StaticResolver::new()),
        quick_options(),
    );
    let strict = RobotsCache::new(&fetcher);
    let guarded = Server::start(PERMITTED, site(|| text("User-agent: *\nDisallow: /\n"))).await;
    let verdict = strict
        .verdict(&on(&guarded, "/page"), &call_of(&CancellationToken::new()))
        .await
        .unwrap();
    assert!(
        matches!(verdict.reason(), Reason::Unreachable { .. }),
        "{verdict}"
    );
    assert_eq!(guarded.hits(), 0);
}

#[tokio::test]
async fn allow_loopback_permits_a_robots_txt_on_127_0_0_1() {
    let server = Server::start(REFUSED, site(|| text("User-agent: *\nDisallow: /x\n"))).await;
    let policy = Policy {
        allow_loopback: true,
        ..Policy::default()
    };
    let fetcher = fetcher_with(policy, Arc::new(StaticResolver::new()), quick_options());
    let cache = RobotsCache::new(&fetcher);
    assert!(!allowed(&cache, &on(&server, "/x")).await);
    assert!(allowed(&cache, &on(&server, "/y")).await);
    assert_eq!(robots_hits(&server), 1);
}

/// A robots.txt bigger than the limit: a line ending exactly at 500 KiB is read,
/// whatever `max-bytes` says; nothing after it is.
#[tokio::test]
async fn the_first_500_kib_are_parsed_whatever_max_bytes_says() {
    let head = "User-agent: *\nDisallow: /early\n";
    let edge = "Disallow: /edge\n";
    let mut body = head.to_owned();
    let filler = format!("#{}\n", "-".repeat(1022));
    while body.len() + filler.len() + edge.len() <= PARSE_LIMIT {
        body.push_str(&filler);
    }
    let gap = PARSE_LIMIT - body.len() - edge.len();
    body.push('#');
    body.push_str(&"-".repeat(gap - 2));
    body.push('\n');
    body.push_str(edge);
    assert_eq!(body.len(), PARSE_LIMIT);
    body.push_str("Disallow: /late\n");
    body.push_str(&format!("#{}\n", "-".repeat(100 * 1024)));
    let server = Server::start(PERMITTED, site(move || text(&body))).await;
    let options = FetchOptions {
        max_bytes: 4096,
        ..quick_options()
    };
    let cache = cache_with(options);
    assert!(!allowed(&cache, &on(&server, "/early")).await);
    assert!(!allowed(&cache, &on(&server, "/edge")).await);
    assert!(allowed(&cache, &on(&server, "/late")).await);
    assert_eq!(robots_hits(&server), 1);
}

/// A server whose robots.txt (`Disallow: /slow`) is answered only once `release` is
/// notified, after it notified `arrived` that the request came.
async fn held_robots() -> (Server, Arc<tokio::sync::Notify>, Arc<tokio::sync::Notify>) {
    let arrived = Arc::new(tokio::sync::Notify::new());
    let release = Arc::new(tokio::sync::Notify::new());
    let server = Server::start(
        PERMITTED,
        site({
            let (arrived, release) = (arrived.clone(), release.clone());
            move || {
                arrived.notify_one();
                let mut steps = vec![Step::Wait(release.clone())];
                steps.extend(text("User-agent: *\nDisallow: /slow\n"));
                steps
            }
        }),
    )
    .await;
    (server, arrived, release)
}

/// While one caller's robots.txt fetch is held at the server, a second caller for the
/// same origin waits for it instead of fetching again; another origin is fetched apart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_callers_one_fetch() {
    let (server, arrived, release) = held_robots().await;
    let other = Server::start(PERMITTED, site(|| text("User-agent: *\nDisallow: /\n"))).await;
    let cache = Arc::new(cache());
    let cancel = CancellationToken::new();
    let (a, b, c) = (
        on(&server, "/slow/1"),
        on(&server, "/fast"),
        on(&other, "/x"),
    );
    // One caller on another task: the cache is shared between tasks. Its fetch is
    // at the server, held, before the second caller asks.
    let spawned = tokio::spawn({
        let (cache, cancel) = (cache.clone(), cancel.clone());
        async move { cache.verdict(&a, &call_of(&cancel)).await }
    });
    arrived.notified().await;
    // `join!` polls in order: the second caller is waiting on the held fetch before
    // the last branch lets the server answer.
    let call = call_of(&cancel);
    let (second, third, ()) =
        tokio::join!(cache.verdict(&b, &call), cache.verdict(&c, &call), async {
            release.notify_one()
        },);
    let first = spawned.await;
    assert!(!first.expect("the task ran").unwrap().is_allowed());
    assert!(second.unwrap().is_allowed());
    assert!(!third.unwrap().is_allowed());
    assert_eq!(robots_hits(&server), 1, "two callers, one fetch");
    assert_eq!(robots_hits(&other), 1);
}

#[tokio::test]
async fn the_asking_call_s_deadline_bounds_the_robots_fetch_and_is_not_kept() {
    let server = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| match req.path.as_str() {
            "/robots.txt" => text("User-agent: *\nDisallow: /private\n"),
            _ => text("a page"),
        }),
    )
    .await;
    let cache = cache();
    let target = on(&server, "/private/x");
    // A call whose time is spent fetches nothing and hears why.
    let spent = Allowance::new(Duration::ZERO, CancellationToken::new());
    let error = cache.verdict(&target, &spent).await.unwrap_err();
    let Error::Deadline(deadline) = &error else {
        panic!("{error}")
    };
    assert_eq!(deadline.key, ConfigKey::TotalTimeout);
    assert_eq!(robots_hits(&server), 0);
    // Nothing was kept for the origin: the next call reads the real rules.
    assert!(!allowed(&cache, &target).await);
    assert_eq!(robots_hits(&server), 1);
}

/// A caller waiting for another call's fetch of the same origin stops when its own
/// call's time is spent, and the fetch it waited for still completes for its caller.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_caller_stops_at_its_own_deadline() {
    let (server, arrived, release) = held_robots().await;
    let cache = Arc::new(cache());
    let first = on(&server, "/slow/1");
    let spawned = tokio::spawn({
        let cache = cache.clone();
        async move {
            cache
                .verdict(&first, &call_of(&CancellationToken::new()))
                .await
        }
    });
    arrived.notified().await;
    let spent = Allowance::new(Duration::ZERO, CancellationToken::new());
    let error = cache
        .verdict(&on(&server, "/slow/2"), &spent)
        .await
        .unwrap_err();
    let Error::Deadline(deadline) = &error else {
        panic!("{error}")
    };
    assert_eq!(deadline.key, ConfigKey::TotalTimeout);
    release.notify_one();
    assert!(
        !spawned
            .await
            .expect("the first caller")
            .unwrap()
            .is_allowed()
    );
    assert_eq!(robots_hits(&server), 1);
}

/// robots.txt whose body a deadline cut is not taken for the whole file: no rule of its
/// first part applies, and it is fetched again soon.
#[tokio::test]
async fn a_robots_txt_cut_by_a_deadline_is_not_parsed() {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000\r\n\r\n";
    let server = Server::start(
        PERMITTED,
        Arc::new(move |req: &Req| match req.path.as_str() {
            "/robots.txt" => vec![
                Step::Write(format!("{head}User-agent: *\nDisallow: /private\n").into_bytes()),
                Step::Hang,
            ],
            _ => text("a page"),
        }),
    )
    .await;
    let cache = cache_with(FetchOptions {
        timeout: Duration::from_secs(1),
        ..quick_options()
    });
    let verdict = cache
        .verdict(
            &on(&server, "/private/x"),
            &call_of(&CancellationToken::new()),
        )
        .await
        .unwrap();
    assert!(verdict.is_allowed(), "{verdict}");
    assert_eq!(
        verdict.reason().to_string(),
        "robots.txt could not be read (timeout ran out while reading the body), so no rules apply"
    );
}
