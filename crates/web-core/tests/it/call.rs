//! The per-call fetch context against loopback servers: one deadline for every fetch of
//! a call, the redirect and byte budgets, and a one-time grant that never enters the pool.

use std::sync::Arc;
use std::time::Duration;

use mcp_web_core::ErrorKind;
use mcp_web_core::error::{Error, Phase};
use mcp_web_core::fetch::{Allowance, Fetcher, Truncation};
use mcp_web_core::guard::{Grant, Scope};
use mcp_web_core::key::ConfigKey;
use mcp_web_core::transport::StaticResolver;
use mcp_web_core::url::CheckedUrl;
use tokio_util::sync::CancellationToken;

use crate::support::*;

fn on(server: &Server, path: &str) -> CheckedUrl {
    CheckedUrl::parse(&format!("http://site.test:{}{path}", server.port()))
        .expect("a valid test URL")
}

fn resolver() -> Arc<StaticResolver> {
    Arc::new(StaticResolver::new().with("site.test", [PERMITTED]))
}

fn site_fetcher() -> Fetcher {
    fetcher_with(permit_127_0_0_2(), resolver(), quick_options())
}

#[tokio::test]
async fn a_call_whose_time_ran_out_sends_nothing_more() {
    let server = Server::start(PERMITTED, html("<title>t</title>x")).await;
    let fetcher = site_fetcher();
    let call = Allowance::new(Duration::from_secs(60), CancellationToken::new());
    fetcher
        .fetch_within(&on(&server, "/a"), &call)
        .await
        .unwrap();
    // The same call, once its budget is spent (the test clock moved past it), refuses
    // the next fetch before connecting.
    tokio::time::pause();
    tokio::time::advance(Duration::from_secs(61)).await;
    assert!(call.expired());
    let err = fetcher
        .fetch_within(&on(&server, "/b"), &call)
        .await
        .unwrap_err();
    tokio::time::resume();
    let Error::Deadline(deadline) = &err else {
        panic!("{err}")
    };
    assert_eq!(
        (deadline.key, deadline.phase, deadline.limit),
        (
            ConfigKey::TotalTimeout,
            Phase::Connecting,
            Duration::from_secs(60)
        )
    );
    assert_eq!(server.hits(), 1);
    // Clones share the call's deadline and its cancellation.
    let cancel = CancellationToken::new();
    let call = Allowance::new(Duration::from_secs(60), cancel.clone());
    let clone = call.clone();
    assert_eq!(clone.deadline(), call.deadline());
    cancel.cancel();
    let err = fetcher
        .fetch_within(&on(&server, "/c"), &clone)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cancelled);
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn the_redirect_budget_stops_at_the_next_hop_without_requesting_it() {
    let server = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| match req.path.as_str() {
            "/0" => redirect(302, "/1"),
            "/1" => redirect(302, "/2"),
            "/2" => redirect(302, "/3"),
            _ => vec![Step::Write(response(200, &[], b"end"))],
        }),
    )
    .await;
    let fetcher = site_fetcher();
    let call = fetcher
        .allowance(CancellationToken::new())
        .with_max_redirects(2);
    let err = fetcher
        .fetch_within(&on(&server, "/0"), &call)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::TooManyRedirects { limit: 2, .. }),
        "{err}"
    );
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/0", "/1", "/2"]);
    // The fetcher's own budget (10) follows the same chain to its end.
    let page = fetcher
        .fetch(&on(&server, "/0"), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(page.chain.len(), 4);
}

#[tokio::test]
async fn a_call_may_narrow_the_byte_cap() {
    let body = "x".repeat(64 * 1024);
    let server = Server::start(
        PERMITTED,
        always(response(
            200,
            &[("content-type", "text/plain")],
            body.as_bytes(),
        )),
    )
    .await;
    let fetcher = site_fetcher();
    let call = fetcher
        .allowance(CancellationToken::new())
        .with_max_bytes(5000);
    let page = fetcher
        .fetch_within(&on(&server, "/"), &call)
        .await
        .unwrap();
    assert_eq!(page.bytes, 5000);
    assert_eq!(page.truncated, Some(Truncation::ByteCap { limit: 5000 }));
    let whole = fetcher
        .fetch(&on(&server, "/"), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!((whole.bytes, whole.truncated), (64 * 1024, None));
}

#[tokio::test]
async fn a_grant_opens_its_host_for_its_call_only_and_never_enters_the_pool() {
    let server = Server::start(PERMITTED, html("<title>intranet</title>wiki")).await;
    // The default policy refuses 127.0.0.2.
    let fetcher = fetcher_with(default_policy(), resolver(), quick_options());
    let url = on(&server, "/");
    let refused = fetcher
        .fetch(&url, &CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Blocked);
    assert_eq!(server.connections(), 0);

    // A grant for another host opens nothing: the policy's refusal stands and no
    // connection is made.
    let call = fetcher
        .allowance(CancellationToken::new())
        .with_grant(Grant::new("other.test", server.port(), Scope::Private));
    let err = fetcher.fetch_within(&url, &call).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Blocked);
    assert_eq!(server.connections(), 0);

    let call = fetcher
        .allowance(CancellationToken::new())
        .with_grant(Grant::new("site.test", server.port(), Scope::Loopback));
    let page = fetcher.fetch_within(&url, &call).await.unwrap();
    assert_eq!(page.status, 200);
    assert_eq!(server.hits(), 1);

    // The next call without the grant is refused again: the granted connection was
    // not kept for it.
    let again = fetcher
        .fetch(&url, &CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(again.kind(), ErrorKind::Blocked);
    assert_eq!(server.hits(), 1);
    assert_eq!(server.connections(), 1);
}

#[tokio::test]
async fn a_grant_does_not_follow_a_redirect_to_another_port() {
    let other = Server::start(PERMITTED, html("<title>redis</title>x")).await;
    let target = format!("http://site.test:{}/", other.port());
    let server = Server::start(PERMITTED, Arc::new(move |_: &Req| redirect(302, &target))).await;
    let fetcher = fetcher_with(default_policy(), resolver(), quick_options());
    let call = fetcher
        .allowance(CancellationToken::new())
        .with_grant(Grant::new("site.test", server.port(), Scope::Loopback));
    let err = fetcher
        .fetch_within(&on(&server, "/"), &call)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Blocked, "{err}");
    assert_eq!(server.hits(), 1);
    assert_eq!(other.connections(), 0);
}

#[tokio::test]
async fn a_page_denser_than_its_byte_cap_allows_is_read_to_its_last_element_and_says_so() {
    // 9,000 paragraphs in about 160 KB: within a byte cap of 1 MiB, which lets a page
    // build 8,192 elements (one per 128 bytes of the cap).
    let body: String = (0..9000).map(|i| format!("<p>line {i}</p>\n")).collect();
    let server = Server::start(PERMITTED, html(&body)).await;
    let fetcher = site_fetcher();
    let call = fetcher
        .allowance(CancellationToken::new())
        .with_max_bytes(1024 * 1024);
    let page = fetcher
        .fetch_within(&on(&server, "/"), &call)
        .await
        .unwrap();
    assert_eq!(page.truncated, None, "the whole body was read");
    let (_, text) = mcp_web_core::page::PageText::extract_in(page, &call)
        .await
        .unwrap();
    assert!(text.flags().elements_cut);
    let lines = text.body();
    assert_eq!(lines.first().map(String::as_str), Some("line 0"));
    // The first 8,192 paragraphs are read (the elements the tree builder makes itself do
    // not count), and the last line, which may be unfinished, is not shown.
    assert_eq!(lines.last().map(String::as_str), Some("line 8190"));
    let answer = text.render(usize::MAX, "web_grep");
    assert!(
        answer.ends_with(
            "because the page has more than 8192 elements, the most the server builds for its \
             byte cap (one per 128 bytes of max-bytes); the rest of the page was not read; \
             raise max-bytes to keep more]"
        ),
        "{}",
        &answer[answer.len() - 300..]
    );
    // The same page under the default cap (2 MiB: 16,384 elements) is read whole.
    let page = fetcher
        .fetch(&on(&server, "/"), &CancellationToken::new())
        .await
        .unwrap();
    let text = mcp_web_core::page::PageText::new(&page);
    assert!(!text.flags().elements_cut);
    assert_eq!(text.body().last().map(String::as_str), Some("line 8999"));
}
