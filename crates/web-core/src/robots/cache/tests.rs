//! The cache's rules with a scripted source: what each outcome gives and for how long,
//! one fetch per origin at a time, keying by origin, cancellation.

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio_util::sync::CancellationToken;

use super::*;
use crate::error::{
    Blocked, Content, Deadline, Http, Phase, Problem, RobotsReason, Transport, TransportFailure,
};

/// A call of an hour (the scripted source takes no time of its own), cancelled with
/// `cancel`.
fn call_of(cancel: &CancellationToken) -> Allowance {
    Allowance::new(Duration::from_secs(3600), cancel.clone())
}

/// A source answering from a script, counting calls and recording the URLs asked.
struct Scripted {
    answers: Mutex<VecDeque<Result<Body, Error>>>,
    asked: Mutex<Vec<String>>,
    calls: AtomicUsize,
    delay: Duration,
}

impl Scripted {
    fn new(answers: Vec<Result<Body, Error>>, delay: Duration) -> Arc<Scripted> {
        Arc::new(Scripted {
            answers: Mutex::new(answers.into()),
            asked: Mutex::new(Vec::new()),
            calls: AtomicUsize::new(0),
            delay,
        })
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl Source for Scripted {
    fn get<'a>(
        &'a self,
        url: &'a CheckedUrl,
        call: &'a Allowance,
    ) -> BoxFuture<'a, Result<Body, Error>> {
        Box::pin(async move {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.asked.lock().unwrap().push(url.to_string());
            tokio::select! {
                () = call.cancellation().cancelled() => return Err(Error::Cancelled),
                () = tokio::time::sleep(self.delay) => {}
            }
            self.answers
                .lock()
                .unwrap()
                .pop_front()
                .expect("the script has an answer for every fetch")
        })
    }
}

fn body(text: &str) -> Result<Body, Error> {
    Ok(Body {
        text: text.to_owned(),
        redirects: 0,
        truncated: false,
    })
}

fn http(status: u16) -> Result<Body, Error> {
    Err(Error::Http(Http {
        url: "http://a.example/robots.txt".into(),
        status,
        excerpt: None,
        retry_after: None,
    }))
}

fn url(text: &str) -> CheckedUrl {
    CheckedUrl::parse(text).expect("a valid URL")
}

const DISALLOW_P: &str = "User-agent: *\nDisallow: /p\nCrawl-delay: 2\n";

/// Every fetch outcome, the verdict it gives on `/p`, and whether it is kept long.
#[test]
fn outcomes_give_rules() {
    /// What is tested, the outcome, allowed, the reason, kept for a day.
    type Case = (&'static str, Result<Body, Error>, bool, &'static str, bool);
    let cases: Vec<Case> = vec![
        (
            "2.3.1.1 a fetched file is obeyed",
            body(DISALLOW_P),
            false,
            "robots.txt Disallow: /p (line 2)",
            true,
        ),
        (
            "2.3.1.2 five redirects are followed",
            Ok(Body {
                text: DISALLOW_P.into(),
                redirects: 5,
                truncated: false,
            }),
            false,
            "robots.txt Disallow: /p (line 2)",
            true,
        ),
        (
            "2.3.1.2 more than five: unavailable",
            Ok(Body {
                text: DISALLOW_P.into(),
                redirects: 6,
                truncated: false,
            }),
            true,
            "robots.txt could not be read (it redirected 6 times; at most 5 are followed), so no rules apply",
            false,
        ),
        (
            "2.3.1.3 404: no rules apply",
            http(404),
            true,
            "robots.txt answered 404, so no rules apply",
            true,
        ),
        (
            "2.3.1.3 401 and 403 are 4xx too",
            http(403),
            true,
            "robots.txt answered 403, so no rules apply",
            true,
        ),
        (
            "2.3.1.4 500: everything disallowed",
            http(500),
            false,
            "robots.txt answered 500, a server error, which RFC 9309 says disallows the whole site",
            false,
        ),
        (
            "2.3.1.4 503: everything disallowed",
            http(503),
            false,
            "robots.txt answered 503, a server error, which RFC 9309 says disallows the whole site",
            false,
        ),
        (
            "a 3xx without Location",
            http(302),
            true,
            "robots.txt could not be read (it answered HTTP 302), so no rules apply",
            false,
        ),
        (
            "no connection: allowed",
            Err(Error::Transport(Transport {
                url: "http://a.example/robots.txt".into(),
                failure: TransportFailure::Refused,
                detail: "Connection refused (os error 111)".into(),
            })),
            true,
            "robots.txt could not be read (connection-refused: Connection refused (os error 111)), so no rules apply",
            false,
        ),
        (
            "a deadline: allowed",
            Err(Error::Deadline(Deadline {
                url: "http://a.example/robots.txt".into(),
                phase: Phase::ReadingHeaders,
                key: ConfigKey::HeadersTimeout,
                limit: Duration::from_secs(15),
            })),
            true,
            "robots.txt could not be read (headers-timeout ran out while reading headers), so no rules apply",
            false,
        ),
        (
            "the floor refused a redirect: allowed",
            Err(Error::Blocked(
                Blocked::new(
                    "internal.example",
                    IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
                    &crate::addr::classify(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1))),
                )
                .unwrap(),
            )),
            true,
            "robots.txt could not be read (the floor refused 10.0.0.1 (private address)), so no rules apply",
            false,
        ),
        (
            "2.3.1.2 a redirect loop",
            Err(Error::RedirectLoop {
                chain: vec!["http://a/robots.txt".into(), "http://a/robots.txt".into()],
            }),
            true,
            "robots.txt could not be read (its redirects loop), so no rules apply",
            false,
        ),
        (
            "2.3.1.2 the fetch's own redirect limit",
            Err(Error::TooManyRedirects {
                chain: vec![],
                limit: 10,
            }),
            true,
            "robots.txt could not be read (it redirected more than 10 times), so no rules apply",
            false,
        ),
        (
            "2.3 not text",
            Err(Error::Content(Content {
                url: "http://a/robots.txt".into(),
                content_type: "image/png".into(),
                bytes: None,
                problem: Problem::NotText,
            })),
            true,
            "robots.txt could not be read (it is image/png, not text), so no rules apply",
            false,
        ),
    ];
    let target = url("http://a.example/p");
    for (what, outcome, allowed, reason, fresh) in cases {
        let (rules, kept_long) = rules_of(outcome).expect("not cancelled");
        let verdict = rules.verdict("mcp-web", &target);
        assert_eq!(
            (
                verdict.is_allowed(),
                verdict.reason().to_string(),
                kept_long
            ),
            (allowed, reason.to_owned(), fresh),
            "{what}"
        );
    }
    assert_eq!(rules_of(Err(Error::Cancelled)), None);
}

/// A body cut by a cap or a deadline loses its last, partial line.
#[test]
fn a_cut_body_drops_its_partial_line() {
    let (rules, _) = rules_of(Ok(Body {
        text: "User-agent: *\nDisallow: /p\nDisallow: /q-and-more".into(),
        redirects: 0,
        truncated: true,
    }))
    .unwrap();
    assert!(!rules.verdict("a", &url("http://a/p")).is_allowed());
    assert!(rules.verdict("a", &url("http://a/q-and")).is_allowed());
    // The same text, whole, keeps its last line.
    let (rules, _) = rules_of(body("User-agent: *\nDisallow: /p\nDisallow: /q-and-more")).unwrap();
    assert!(!rules.verdict("a", &url("http://a/q-and-more")).is_allowed());
}

/// Two callers for one origin share one fetch; another origin gets its own.
#[tokio::test(start_paused = true)]
async fn one_fetch_per_origin_at_a_time() {
    let source = Scripted::new(
        vec![body(DISALLOW_P), body(DISALLOW_P)],
        Duration::from_millis(200),
    );
    let cache = RobotsCache::with_source(source.clone(), "mcp-web/1.0");
    let call = call_of(&CancellationToken::new());
    let (p, q, other) = (
        url("http://a.example/p"),
        url("http://a.example/q?x=1"),
        url("http://a.example:8080/p"),
    );
    let (a, b, c) = tokio::join!(
        cache.verdict(&p, &call),
        cache.verdict(&q, &call),
        cache.verdict(&other, &call),
    );
    assert!(!a.unwrap().is_allowed());
    assert!(b.unwrap().is_allowed());
    assert!(!c.unwrap().is_allowed());
    assert_eq!(source.calls(), 2);
    let mut asked = source.asked();
    asked.sort();
    assert_eq!(
        asked,
        [
            "http://a.example/robots.txt",
            "http://a.example:8080/robots.txt"
        ]
    );
    // Cached: no further fetch, and the default port spelled out is the same origin.
    let again = cache
        .verdict(&url("http://a.example:80/p#frag"), &call)
        .await
        .unwrap();
    assert!(!again.is_allowed());
    assert_eq!(source.calls(), 2);
}

/// http and https of one host are different origins.
#[tokio::test(start_paused = true)]
async fn scheme_is_part_of_the_origin() {
    let source = Scripted::new(vec![body(DISALLOW_P), http(404)], Duration::ZERO);
    let cache = RobotsCache::with_source(source.clone(), "mcp-web");
    let cancel = CancellationToken::new();
    assert!(
        !cache
            .verdict(&url("http://a.example/p"), &call_of(&cancel))
            .await
            .unwrap()
            .is_allowed()
    );
    assert!(
        cache
            .verdict(&url("https://a.example/p"), &call_of(&cancel))
            .await
            .unwrap()
            .is_allowed()
    );
    assert_eq!(
        source.asked(),
        [
            "http://a.example/robots.txt",
            "https://a.example/robots.txt"
        ]
    );
}

/// A fetched file is kept for 24 hours, not longer.
#[tokio::test(start_paused = true)]
async fn fetched_rules_expire_after_a_day() {
    let source = Scripted::new(vec![body(DISALLOW_P), http(404)], Duration::ZERO);
    let cache = RobotsCache::with_source(source.clone(), "mcp-web");
    let cancel = CancellationToken::new();
    let target = url("http://a.example/p");
    assert!(
        !cache
            .verdict(&target, &call_of(&cancel))
            .await
            .unwrap()
            .is_allowed()
    );
    tokio::time::advance(FRESH_FOR - Duration::from_secs(1)).await;
    assert!(
        !cache
            .verdict(&target, &call_of(&cancel))
            .await
            .unwrap()
            .is_allowed()
    );
    assert_eq!(source.calls(), 1);
    tokio::time::advance(Duration::from_secs(2)).await;
    assert!(
        cache
            .verdict(&target, &call_of(&cancel))
            .await
            .unwrap()
            .is_allowed()
    );
    assert_eq!(source.calls(), 2);
}

/// A server error and an unreachable robots.txt are retried after minutes, not a day.
#[tokio::test(start_paused = true)]
async fn outages_are_retried_soon() {
    let refused = Err(Error::Transport(Transport {
        url: "http://a.example/robots.txt".into(),
        failure: TransportFailure::Refused,
        detail: "refused".into(),
    }));
    let source = Scripted::new(vec![http(503), refused, body(DISALLOW_P)], Duration::ZERO);
    let cache = RobotsCache::with_source(source.clone(), "mcp-web");
    let cancel = CancellationToken::new();
    let target = url("http://a.example/other");
    let refusal = cache.check(&target, &call_of(&cancel)).await.unwrap_err();
    assert_eq!(refusal.config_key(), Some(ConfigKey::RespectRobots));
    assert!(matches!(
        &refusal,
        Error::RobotsRefused(r) if r.reason == RobotsReason::Unavailable { status: 503 }
    ));
    tokio::time::advance(RETRY_AFTER - Duration::from_secs(1)).await;
    assert!(cache.check(&target, &call_of(&cancel)).await.is_err());
    assert_eq!(source.calls(), 1);
    tokio::time::advance(Duration::from_secs(2)).await;
    assert_eq!(cache.check(&target, &call_of(&cancel)).await, Ok(()));
    assert_eq!(source.calls(), 2);
    tokio::time::advance(RETRY_AFTER + Duration::from_secs(1)).await;
    assert_eq!(cache.check(&target, &call_of(&cancel)).await, Ok(()));
    assert_eq!(source.calls(), 3);
    let refusal = cache
        .check(&url("http://a.example/p/1"), &call_of(&cancel))
        .await
        .unwrap_err();
    assert_eq!(
        refusal.to_string(),
        r#"skipped http://a.example/p/1: robots.txt Disallow: /p (line 2) disallows it for user agent 'mcp-web'. A fetch of that one page reads it regardless; set "respect-robots": false to crawl it anyway."#
    );
    assert_eq!(
        cache.crawl_delay(&target, &call_of(&cancel)).await,
        Ok(Some(Duration::from_secs(2)))
    );
    assert_eq!(source.calls(), 3);
}

/// `keep_for` changes both periods.
#[tokio::test(start_paused = true)]
async fn keep_for_sets_the_periods() {
    let source = Scripted::new(vec![http(404), http(500), http(500)], Duration::ZERO);
    let cache = RobotsCache::with_source(source.clone(), "mcp-web")
        .keep_for(Duration::from_secs(10), Duration::from_secs(3));
    let cancel = CancellationToken::new();
    let target = url("http://a.example/p");
    assert!(
        cache
            .verdict(&target, &call_of(&cancel))
            .await
            .unwrap()
            .is_allowed()
    );
    tokio::time::advance(Duration::from_secs(11)).await;
    assert!(
        !cache
            .verdict(&target, &call_of(&cancel))
            .await
            .unwrap()
            .is_allowed()
    );
    tokio::time::advance(Duration::from_secs(4)).await;
    assert!(
        !cache
            .verdict(&target, &call_of(&cancel))
            .await
            .unwrap()
            .is_allowed()
    );
    assert_eq!(source.calls(), 3);
}

/// A cancelled caller gets `Cancelled` and leaves nothing cached; a caller waiting
/// behind it fetches for itself.
#[tokio::test(start_paused = true)]
async fn cancellation_caches_nothing() {
    let source = Scripted::new(vec![body(DISALLOW_P)], Duration::from_secs(1));
    let cache = RobotsCache::with_source(source.clone(), "mcp-web");
    let cancelled = CancellationToken::new();
    let patient = CancellationToken::new();
    let target = url("http://a.example/p");
    let first_call = call_of(&cancelled);
    let (first, second) = tokio::join!(cache.verdict(&target, &first_call), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cancelled.cancel();
        cache.verdict(&target, &call_of(&patient)).await
    });
    assert_eq!(first, Err(Error::Cancelled));
    assert!(!second.unwrap().is_allowed());
    assert_eq!(source.calls(), 2);
    // Already cancelled before asking: no fetch at all.
    let fresh = url("http://b.example/");
    assert_eq!(
        cache.verdict(&fresh, &call_of(&cancelled)).await,
        Err(Error::Cancelled)
    );
    assert_eq!(source.calls(), 2);
}

/// The agent is the user-agent's product token.
#[test]
fn agent_is_the_product_token() {
    let cache = RobotsCache::with_source(
        Scripted::new(vec![], Duration::ZERO),
        "ExampleBot/0.1 (+https://example.org/bot)",
    );
    assert_eq!(cache.agent(), "ExampleBot");
}

/// Past its size, the cache drops expired origins (and only those) before adding one.
#[tokio::test(start_paused = true)]
async fn expired_origins_are_pruned() {
    let answers = vec![
        http(404),
        http(404),
        http(404),
        http(404),
        http(404),
        http(404),
    ];
    let source = Scripted::new(answers, Duration::ZERO);
    let mut cache = RobotsCache::with_source(source.clone(), "mcp-web")
        .keep_for(Duration::from_secs(10), Duration::from_secs(1));
    cache.prune_above = 3;
    let cancel = CancellationToken::new();
    let origins = |n: usize| url(&format!("http://o{n}.example/"));
    for n in 0..3 {
        cache.verdict(&origins(n), &call_of(&cancel)).await.unwrap();
    }
    tokio::time::advance(Duration::from_secs(5)).await;
    // A fourth origin while none has expired: nothing is dropped.
    cache.verdict(&origins(3), &call_of(&cancel)).await.unwrap();
    assert_eq!(cache.slots.lock().unwrap().len(), 4);
    tokio::time::advance(Duration::from_secs(6)).await;
    // The first three have expired, the fourth has not: adding a fifth drops three.
    cache.verdict(&origins(4), &call_of(&cancel)).await.unwrap();
    let mut kept: Vec<String> = cache
        .slots
        .lock()
        .unwrap()
        .keys()
        .map(ToString::to_string)
        .collect();
    kept.sort();
    assert_eq!(kept, ["http://o3.example", "http://o4.example"]);
    // An origin already held is looked up, not pruned for.
    cache.verdict(&origins(3), &call_of(&cancel)).await.unwrap();
    assert_eq!(source.calls(), 5);
}

/// A call with a one-time grant reads robots.txt for itself: the shared cache neither
/// answers it nor keeps what it read; a cache of the call's own keeps it for the call.
#[tokio::test]
async fn a_granted_call_reads_for_itself_and_its_own_cache_keeps_it() {
    let cancel = CancellationToken::new();
    let grant = crate::guard::Grant::new("a.example", 80, crate::guard::Scope::Loopback);
    let granted = call_of(&cancel).with_grant(grant);
    let page = url("http://a.example/p");

    let source = Scripted::new(
        vec![body(DISALLOW_P), body(DISALLOW_P), body("")],
        Duration::ZERO,
    );
    let shared = RobotsCache::with_source(source.clone(), "mcp-web");
    assert!(shared.check(&page, &granted).await.is_err());
    assert!(shared.check(&page, &granted).await.is_err());
    assert_eq!(
        source.calls(),
        2,
        "the shared cache answers no granted call"
    );
    // Nor did it keep what the granted calls read: a call without the grant fetches.
    shared
        .check(&page, &call_of(&cancel))
        .await
        .expect("allowed");
    assert_eq!(source.calls(), 3);

    let source = Scripted::new(vec![body(DISALLOW_P)], Duration::ZERO);
    let own = RobotsCache::with_source(source.clone(), "mcp-web").for_granted_call();
    assert!(own.check(&page, &granted).await.is_err());
    assert!(
        own.check(&url("http://a.example/q"), &granted)
            .await
            .is_ok()
    );
    assert_eq!(
        own.crawl_delay(&page, &granted).await.expect("kept"),
        Some(Duration::from_secs(2))
    );
    assert_eq!(source.calls(), 1, "read once for the call");
}

/// Many origins each with a large robots.txt: the rules kept stay within the cache's
/// byte bound, the origins expiring soonest dropped first, the one just read kept.
#[tokio::test]
async fn the_rules_kept_in_all_stay_within_the_byte_bound() {
    let big: String = "User-agent: *\n".to_owned()
        + &(0..2_000)
            .map(|i| format!("Disallow: /a-long-enough-path-{i}\n"))
            .collect::<String>();
    let one = Robots::parse(big.as_bytes()).footprint();
    let bound = 4 * one + one / 2;
    let source = Scripted::new((0..40).map(|_| body(&big)).collect(), Duration::ZERO);
    let cache = RobotsCache::with_source(source.clone(), "mcp-web").keep_bytes(bound);
    let cancel = CancellationToken::new();
    let mut most = 0;
    for i in 0..40 {
        let page = url(&format!("http://o{i}.example/a-long-enough-path-{i}"));
        let verdict = cache.verdict(&page, &call_of(&cancel)).await.unwrap();
        assert!(!verdict.is_allowed(), "{verdict}");
        most = most.max(cache.bytes());
    }
    assert!(most <= bound, "{most} bytes kept, bound {bound}");
    assert!(cache.bytes() >= one, "the last origin's rules are kept");
    assert_eq!(source.calls(), 40);
    // The last origin is still cached; the first was dropped and is fetched again.
    let last = url("http://o39.example/x");
    cache.verdict(&last, &call_of(&cancel)).await.unwrap();
    assert_eq!(source.calls(), 40);
}
