//! The shipped search providers against fake endpoints on loopback (port 0), answering
//! in the real shapes of the Brave Search API and of SearXNG's JSON API: results,
//! zero results, a refused key, a rate limit, a server error, a malformed body, an
//! endpoint that never answers; the key read at every call, never at construction,
//! and never put in a URL or a message.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use mcp_web_core::ErrorKind;
use mcp_web_core::config::Settings;
use mcp_web_core::error::{Error, SearchFailure};
use mcp_web_core::key::ConfigKey;
use mcp_web_core::search::{
    ApiKey, Brave, Environment, Filters, Freshness, Paced, Pacing, Provider, SearchOptions,
    SearchProvider, SearchResult, Searxng, configured,
};
use mcp_web_core::transport::{NetworkOptions, StaticResolver, SystemResolver};
use mcp_web_core::url::CheckedUrl;

use crate::support::*;

/// A real-shaped Brave web search answer (fields Brave sends that we do not read
/// included), with its highlighting markup.
const BRAVE_RESULTS: &str = r#"{
  "type": "search",
  "query": {"original": "raku grammars", "show_strict_warning": false, "is_navigational": false,
            "spellcheck_off": true, "country": "us", "bad_results": false, "should_fallback": false,
            "postal_code": "", "city": "", "header_country": "", "more_results_available": true, "state": ""},
  "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": false},
                                      {"type": "web", "index": 1, "all": false}], "top": [], "side": []},
  "web": {
    "type": "search",
    "results": [
      {"title": "Grammars | Raku Documentation", "url": "https://docs.raku.org/language/grammars",
       "is_source_local": false, "is_source_both": false,
       "description": "<strong>Grammars</strong> are a powerful tool used to destructure text &amp; often to return data structures.",
       "page_age": "2024-03-01T00:00:00", "profile": {"name": "Raku", "url": "https://docs.raku.org/", "long_name": "docs.raku.org", "img": "https://imgs.search.brave.com/x"},
       "language": "en", "family_friendly": true, "type": "search_result", "subtype": "generic",
       "meta_url": {"scheme": "https", "netloc": "docs.raku.org", "hostname": "docs.raku.org", "favicon": "https://imgs.search.brave.com/y", "path": "› language › grammars"},
       "age": "March 1, 2024"},
      {"title": "Raku <strong>grammar</strong> tutorial", "url": "https://example.org/raku-grammars",
       "description": "A tutorial&#x27;s walk through <strong>Raku</strong> grammars.",
       "type": "search_result", "family_friendly": true}
    ],
    "family_friendly": true
  }
}"#;

/// Brave's answer to a query that matched nothing: no `web` section at all.
const BRAVE_NOTHING: &str = r#"{"type": "search", "query": {"original": "asdkfjhasdkfjh39847",
  "show_strict_warning": false, "more_results_available": false},
  "mixed": {"type": "mixed", "main": [], "top": [], "side": []}}"#;

/// Brave's answer to an invalid key.
const BRAVE_BAD_TOKEN: &str = r#"{"type": "ErrorResponse", "error": {"id": "c6b5b8c7-1d5e-4c3d-9e8f-0a1b2c3d4e5f",
  "status": 422, "code": "SUBSCRIPTION_TOKEN_INVALID", "detail": "The provided subscription token is invalid.",
  "meta": {"component": "authentication"}}, "time": 1700000000}"#;

/// Brave's answer when the rate limit is hit.
const BRAVE_RATE_LIMITED: &str = r#"{"type": "ErrorResponse", "error": {"id": "d1", "status": 429,
  "code": "RATE_LIMITED", "detail": "Request rate limit exceeded for plan.",
  "meta": {"plan": "Free", "rate_limit": 1, "rate_current": 2, "quota_limit": 2000, "quota_current": 10,
           "component": "rate_limiter"}}, "time": 1700000000}"#;

/// A real-shaped SearXNG JSON answer.
const SEARXNG_RESULTS: &str = r#"{
  "query": "raku grammars", "number_of_results": 0,
  "results": [
    {"url": "https://docs.raku.org/language/grammars", "title": "Grammars | Raku Documentation",
     "content": "Grammars are a powerful tool used to destructure text.", "publishedDate": null,
     "thumbnail": "", "engine": "duckduckgo", "template": "default.html", "parsed_url": ["https", "docs.raku.org", "/language/grammars", "", "", ""],
     "img_src": "", "priority": "", "engines": ["duckduckgo", "brave"], "positions": [1, 2], "score": 4.0, "category": "general"},
    {"url": "https://news.example/raku", "title": "Raku <b>news</b>", "content": "What is new &amp; old.",
     "publishedDate": "2024-05-01T10:00:00", "engine": "bing", "engines": ["bing"], "positions": [3], "score": 0.3, "category": "general"},
    {"url": "https://third.example/", "title": "Third", "content": "", "engine": "bing", "engines": ["bing"], "positions": [4], "score": 0.2, "category": "general"}
  ],
  "answers": [], "corrections": [], "infoboxes": [], "suggestions": ["raku regex"], "unresponsive_engines": []
}"#;

/// An environment of the test's own, set and changed while the provider lives.
#[derive(Default)]
struct TestEnvironment(Mutex<HashMap<String, String>>);

impl TestEnvironment {
    fn set(&self, name: &str, value: &str) {
        self.0
            .lock()
            .expect("test rig")
            .insert(name.to_owned(), value.to_owned());
    }
}

impl Environment for TestEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        self.0.lock().expect("test rig").get(name).cloned()
    }
}

fn json(status: u16, body: &str, headers: &[(&str, &str)]) -> Handler {
    let mut all = vec![("content-type", "application/json")];
    all.extend_from_slice(headers);
    always(response(status, &all, body.as_bytes()))
}

/// How the providers under test reach the network: the default network keys.
fn network() -> NetworkOptions {
    Settings::default().fetch.network
}

/// The budget of one request to a provider under test.
const TIMEOUT: Duration = Duration::from_secs(5);

/// The search options for `provider` at `server`.
fn options(provider: Provider, server: &Server) -> SearchOptions {
    let mut options = Settings::default().search;
    options.provider = provider;
    options.search_url =
        Some(CheckedUrl::parse(&format!("http://127.0.0.1:{}/", server.port())).expect("a URL"));
    options.api_key_env = "MCP_WEB_TEST_SEARCH_KEY_UNSET".into();
    options
}

/// A Brave provider with `options`, reading its key from `env`.
fn brave_in(options: &SearchOptions, env: Arc<TestEnvironment>) -> Brave {
    let resolver = Arc::new(StaticResolver::new());
    Brave::with_environment(options, &network(), TIMEOUT, resolver, env).expect("a provider")
}

/// The SearXNG provider at `server`.
fn searxng(server: &Server) -> Searxng {
    let options = options(Provider::Searxng, server);
    Searxng::new(&options, &network(), TIMEOUT, Arc::new(SystemResolver)).expect("a provider")
}

/// A Brave provider at `server` whose environment holds `key` in `KEY_VAR`.
fn brave(server: &Server, key: &str) -> Brave {
    let env = Arc::new(TestEnvironment::default());
    env.set("KEY_VAR", key);
    let mut options = options(Provider::Brave, server);
    options.api_key_env = "KEY_VAR".into();
    brave_in(&options, env)
}

fn failure(error: &Error) -> &SearchFailure {
    match error {
        Error::Search(search) => &search.failure,
        other => panic!("a search failure, not {other:?}"),
    }
}

#[tokio::test]
async fn brave_results_are_normalised_and_the_request_is_brave_s() {
    let server = Server::start(REFUSED, json(200, BRAVE_RESULTS, &[])).await;
    let mut options = options(Provider::Brave, &server);
    options.api_key = Some(ApiKey::new("sekrit-key"));
    options.country = Some("de".into());
    options.lang = Some("en".into());
    let provider = Brave::new(
        &options,
        &network(),
        TIMEOUT,
        Arc::new(StaticResolver::new()),
    )
    .expect("a provider");
    assert_eq!(provider.name(), "brave");
    let results = provider.search("raku grammars", 5).await.expect("results");
    assert_eq!(
        results,
        vec![
            SearchResult {
                title: "Grammars | Raku Documentation".into(),
                url: "https://docs.raku.org/language/grammars".into(),
                snippet: "Grammars are a powerful tool used to destructure text & often to return data structures.".into(),
                age: Some("March 1, 2024".into()),
            },
            SearchResult {
                title: "Raku grammar tutorial".into(),
                url: "https://example.org/raku-grammars".into(),
                snippet: "A tutorial's walk through Raku grammars.".into(),
                age: None,
            },
        ]
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(
        request.path,
        "/res/v1/web/search?q=raku+grammars&count=5&safesearch=moderate&country=de&search_lang=en"
    );
    assert_eq!(request.header("x-subscription-token"), Some("sekrit-key"));
    assert_eq!(request.header("accept"), Some("application/json"));
    assert!(
        request
            .header("user-agent")
            .is_some_and(|ua| ua.starts_with("mcp-web/"))
    );
    assert!(
        !request.path.contains("sekrit"),
        "the key never goes in the URL"
    );
}

#[tokio::test]
async fn brave_answers_at_most_count_results() {
    let server = Server::start(REFUSED, json(200, BRAVE_RESULTS, &[])).await;
    let results = brave(&server, "k")
        .search("raku", 1)
        .await
        .expect("results");
    assert_eq!(results.len(), 1);
    assert!(server.requests()[0].path.contains("&count=1&"));
}

#[tokio::test]
async fn brave_zero_results_is_an_empty_list() {
    let server = Server::start(REFUSED, json(200, BRAVE_NOTHING, &[])).await;
    let results = brave(&server, "k")
        .search("asdkfjhasdkfjh39847", 10)
        .await
        .expect("no error");
    assert_eq!(results, Vec::new());
}

/// The key is read when a search runs: set after the provider was built, it is the
/// one sent; changed, the new one is sent.
#[tokio::test]
async fn the_key_is_read_from_the_environment_at_call_time() {
    let server = Server::start(REFUSED, json(200, BRAVE_NOTHING, &[])).await;
    let env = Arc::new(TestEnvironment::default());
    let mut options = options(Provider::Brave, &server);
    options.api_key_env = "MCP_WEB_TEST_LATE_KEY".into();
    let provider = brave_in(&options, env.clone());

    let error = provider.search("raku", 3).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"Searching needs a Brave Search API key. Set the environment variable MCP_WEB_TEST_LATE_KEY, or point "api-key-env" at the variable that holds it, or put an "api-key" in the web config."#
    );
    assert_eq!(
        (error.kind(), error.rule(), error.config_key()),
        (ErrorKind::Search, "api-key", Some(ConfigKey::ApiKeyEnv))
    );
    assert_eq!(server.hits(), 0, "no request without a key");

    env.set("MCP_WEB_TEST_LATE_KEY", "first-key");
    provider.search("raku", 3).await.expect("a search");
    env.set("MCP_WEB_TEST_LATE_KEY", "second-key");
    provider.search("raku", 3).await.expect("a search");
    let keys: Vec<_> = server
        .requests()
        .iter()
        .map(|r| r.header("x-subscription-token").map(str::to_owned))
        .collect();
    assert_eq!(
        keys,
        vec![Some("first-key".to_owned()), Some("second-key".to_owned())]
    );
    assert_eq!(
        server.connections(),
        1,
        "the connection is kept alive and reused"
    );
}

/// With the default `api-key-env` and no key, the message is the documented one, to
/// the letter.
#[tokio::test]
async fn the_default_message_names_brave_api_key() {
    let server = Server::start(REFUSED, json(200, BRAVE_NOTHING, &[])).await;
    let mut options = options(Provider::Brave, &server);
    options.api_key_env = Settings::default().search.api_key_env;
    assert_eq!(options.api_key_env, "BRAVE_API_KEY");
    let env = Arc::new(TestEnvironment::default());
    let provider = brave_in(&options, env);
    let error = provider.search("raku", 3).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"Searching needs a Brave Search API key. Set the environment variable BRAVE_API_KEY, or point "api-key-env" at the variable that holds it, or put an "api-key" in the web config."#
    );
}

#[tokio::test]
async fn a_refused_key_names_where_it_came_from_and_never_the_key() {
    for (status, body) in [
        (
            401,
            r#"{"type":"ErrorResponse","error":{"status":401,"code":"UNAUTHORIZED","detail":"Unauthorized"}}"#,
        ),
        (
            403,
            r#"{"type":"ErrorResponse","error":{"status":403,"code":"FORBIDDEN","detail":"Forbidden"}}"#,
        ),
        (422, BRAVE_BAD_TOKEN),
    ] {
        let server = Server::start(REFUSED, json(status, body, &[])).await;
        let error = brave(&server, "very-secret-key")
            .search("raku", 3)
            .await
            .unwrap_err();
        let message = error.to_string();
        assert_eq!(
            failure(&error),
            &SearchFailure::KeyRefused {
                status,
                origin: mcp_web_core::error::KeyOrigin::Env("KEY_VAR".into()),
            },
            "{message}"
        );
        assert!(
            message.contains("KEY_VAR") && message.contains("\"api-key\""),
            "{message}"
        );
        assert!(!message.contains("very-secret-key"), "{message}");
        assert!(!format!("{error:?}").contains("very-secret-key"));
        assert_eq!(error.config_key(), Some(ConfigKey::ApiKeyEnv));
    }
}

/// A 422 that is not about the key (a country Brave does not know) is the request's
/// fault, and says Brave's own words and which keys to check.
#[tokio::test]
async fn a_validation_error_is_not_a_key_error() {
    let body = r#"{"type":"ErrorResponse","error":{"status":422,"code":"VALIDATION","detail":"Unable to validate request parameter(s)"}}"#;
    let server = Server::start(REFUSED, json(422, body, &[])).await;
    let error = brave(&server, "k").search("raku", 3).await.unwrap_err();
    assert_eq!(error.rule(), "provider-status");
    assert_eq!(
        error.to_string(),
        r#"search (brave): the search provider refused the request with HTTP 422: "Unable to validate request parameter(s)". Check "search-country" (a two-letter country code) and "search-lang" (a language code Brave supports)."#
    );
}

#[tokio::test]
async fn a_rate_limit_says_when_to_retry() {
    /// What Brave answering 429 with `headers` fails with.
    async fn rate_limited(headers: &[(&str, &str)]) -> Error {
        let server = Server::start(REFUSED, json(429, BRAVE_RATE_LIMITED, headers)).await;
        brave(&server, "k").search("raku", 3).await.unwrap_err()
    }
    let error = rate_limited(&[("retry-after", "2")]).await;
    assert_eq!(
        error.to_string(),
        "search (brave): the search provider is rate-limiting these requests (HTTP 429 Too Many Requests); retry in 2 seconds. No configuration key changes this."
    );
    assert_eq!(
        (error.kind(), error.rule(), error.config_key()),
        (ErrorKind::Search, "rate-limited", None)
    );

    // Without Retry-After, Brave's own reset header: the window with nothing left.
    type Headers<'a> = &'a [(&'a str, &'a str)];
    let brave_headers: [(Headers, &str, u64); 2] = [
        (
            &[
                ("x-ratelimit-limit", "1, 2000"),
                ("x-ratelimit-remaining", "0, 1990"),
                ("x-ratelimit-reset", "1, 1419704"),
            ],
            "in 1 second",
            1,
        ),
        (
            &[
                ("x-ratelimit-remaining", "1, 0"),
                ("x-ratelimit-reset", "1, 86400"),
            ],
            "in 86400 seconds",
            86400,
        ),
    ];
    for (headers, retry, wait) in brave_headers {
        assert_eq!(
            failure(&rate_limited(headers).await),
            &SearchFailure::RateLimited {
                retry: Some(retry.into()),
                wait: Some(Duration::from_secs(wait)),
            }
        );
    }
}

#[tokio::test]
async fn a_server_error_is_named_as_the_provider_s() {
    let server = Server::start(
        REFUSED,
        always(response(
            500,
            &[("content-type", "text/html")],
            b"<html><head><title>500</title></head><body><h1>Internal error</h1></body></html>",
        )),
    )
    .await;
    let error = brave(&server, "k").search("raku", 3).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"search (brave): the search provider failed with HTTP 500 Internal Server Error, an error on its side: "Internal error". Try again later. No configuration key changes this."#
    );
    assert_eq!(
        (error.rule(), error.config_key()),
        ("provider-status", None)
    );
}

#[tokio::test]
async fn a_malformed_body_says_so() {
    for body in [
        "<html>not json</html>",
        "[1, 2]",
        r#"{"web": {"results": 3}}"#,
    ] {
        let server = Server::start(REFUSED, json(200, body, &[])).await;
        let error = brave(&server, "k").search("raku", 3).await.unwrap_err();
        assert!(
            matches!(failure(&error), SearchFailure::Malformed { .. }),
            "{body}: {error}"
        );
        assert_eq!(error.config_key(), Some(ConfigKey::SearchUrl));
        assert!(
            error.to_string().starts_with(&format!(
                "search (brave): the answer from http://127.0.0.1:{}/res/v1/web/search is not the provider's search JSON (",
                server.port()
            )),
            "{error}"
        );
    }
}

/// A redirect is not followed: only the endpoint the operator wrote is reached without
/// the guard, and the message says to point `search-url` at the API.
#[tokio::test]
async fn a_redirect_is_not_followed() {
    let canary = Server::start(REFUSED, json(200, BRAVE_RESULTS, &[])).await;
    let location = format!("http://127.0.0.1:{}/res/v1/web/search", canary.port());
    let server = Server::start(
        REFUSED,
        always(response(302, &[("location", &location)], b"")),
    )
    .await;
    let error = brave(&server, "k").search("raku", 3).await.unwrap_err();
    assert_eq!(error.rule(), "provider-status");
    assert!(
        error
            .to_string()
            .ends_with(r#"point "search-url" at the API itself."#),
        "{error}"
    );
    assert_eq!(canary.hits(), 0, "the redirect target is never asked");
}

/// An endpoint that accepts the request and never answers runs out `timeout`; the
/// error is the provider's, naming the key.
#[tokio::test]
async fn a_silent_endpoint_runs_out_the_timeout() {
    let server = Server::start(REFUSED, Arc::new(|_: &Req| vec![Step::Hang])).await;
    let env = Arc::new(TestEnvironment::default());
    env.set("KEY_VAR", "k");
    let mut options = options(Provider::Brave, &server);
    options.api_key_env = "KEY_VAR".into();
    let quick = Duration::from_millis(200);
    let provider = Brave::with_environment(
        &options,
        &network(),
        quick,
        Arc::new(StaticResolver::new()),
        env,
    )
    .expect("a provider");
    let error = provider.search("raku", 3).await.unwrap_err();
    assert_eq!(
        failure(&error),
        &SearchFailure::Deadline {
            url: format!("http://127.0.0.1:{}/res/v1/web/search", server.port()),
            key: ConfigKey::Timeout,
            limit: quick,
        }
    );
    assert_eq!(
        (error.kind(), error.rule(), error.config_key()),
        (
            ErrorKind::Search,
            "provider-timeout",
            Some(ConfigKey::Timeout)
        )
    );
}

#[tokio::test]
async fn a_closed_port_is_unreachable() {
    // A port that was just free and is closed again: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("test rig")
        .port();
    let env = Arc::new(TestEnvironment::default());
    env.set("KEY_VAR", "k");
    let mut options = Settings::default().search;
    options.search_url =
        Some(CheckedUrl::parse(&format!("http://127.0.0.1:{port}/")).expect("a URL"));
    options.api_key_env = "KEY_VAR".into();
    let provider = brave_in(&options, env);
    let error = provider.search("raku", 3).await.unwrap_err();
    assert_eq!(error.rule(), "provider-unreachable", "{error}");
    assert_eq!(error.config_key(), Some(ConfigKey::SearchUrl));
    assert!(
        error.to_string().starts_with(&format!(
            "search (brave): could not reach the search provider at http://127.0.0.1:{port}/res/v1/web/search: "
        )),
        "{error}"
    );
}

/// Through the operator's `proxy`, the provider's requests are tunnelled with CONNECT
/// to the endpoint as written.
#[tokio::test]
async fn the_proxy_carries_the_provider_s_requests() {
    let server = Server::start(REFUSED, json(200, BRAVE_NOTHING, &[])).await;
    let proxy = Proxy::start().await;
    let env = Arc::new(TestEnvironment::default());
    env.set("KEY_VAR", "k");
    let mut options = options(Provider::Brave, &server);
    options.api_key_env = "KEY_VAR".into();
    let network = NetworkOptions {
        proxy: Some(
            mcp_web_core::transport::ProxyUrl::parse(&format!("http://{}", proxy.addr))
                .expect("a proxy"),
        ),
        ..network()
    };
    let provider = Brave::with_environment(
        &options,
        &network,
        TIMEOUT,
        Arc::new(StaticResolver::new()),
        env,
    )
    .expect("a provider");
    provider
        .search("raku", 3)
        .await
        .expect("a search through the proxy");
    assert_eq!(
        proxy.lines(),
        vec![format!("CONNECT 127.0.0.1:{} HTTP/1.1", server.port())]
    );
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn searxng_results_are_normalised_and_the_request_is_searxng_s() {
    let server = Server::start(REFUSED, json(200, SEARXNG_RESULTS, &[])).await;
    let mut options = options(Provider::Searxng, &server);
    options.lang = Some("en".into());
    options.country = Some("gb".into());
    options.safesearch = mcp_web_core::search::SafeSearch::Strict;
    let provider =
        configured(&options, &network(), TIMEOUT, Arc::new(SystemResolver)).expect("a provider");
    assert_eq!(provider.name(), "searxng");
    let results = provider.search("raku grammars", 2).await.expect("results");
    assert_eq!(
        results,
        vec![
            SearchResult {
                title: "Grammars | Raku Documentation".into(),
                url: "https://docs.raku.org/language/grammars".into(),
                snippet: "Grammars are a powerful tool used to destructure text.".into(),
                age: None,
            },
            SearchResult {
                title: "Raku news".into(),
                url: "https://news.example/raku".into(),
                snippet: "What is new & old.".into(),
                age: Some("2024-05-01T10:00:00".into()),
            },
        ]
    );
    let requests = server.requests();
    assert_eq!(
        requests[0].path,
        "/search?q=raku+grammars&format=json&safesearch=2&language=en-GB"
    );
    assert_eq!(requests[0].header("x-subscription-token"), None);
}

#[tokio::test]
async fn searxng_zero_results_malformed_and_errors() {
    /// What SearXNG answering with `handler` gives a search for "zzz".
    async fn answered(handler: Handler) -> Result<Vec<SearchResult>, Error> {
        let server = Server::start(REFUSED, handler).await;
        searxng(&server).search("zzz", 10).await
    }
    let nothing = r#"{"query": "zzz", "number_of_results": 0, "results": [], "answers": [],
        "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []}"#;
    let results = answered(json(200, nothing, &[])).await;
    assert_eq!(results.expect("no error"), Vec::new());

    let error = answered(html("<html><body>SearXNG</body></html>"))
        .await
        .unwrap_err();
    assert_eq!(error.rule(), "provider-response", "{error}");

    let error = answered(always(response(
        403,
        &[("content-type", "text/html")],
        b"<html><body>Forbidden</body></html>",
    )))
    .await
    .unwrap_err();
    assert!(error.to_string().contains("search.formats"), "{error}");

    let error = answered(always(response(
        429,
        &[("retry-after", "30")],
        b"Too Many Requests",
    )))
    .await
    .unwrap_err();
    assert_eq!(
        failure(&error),
        &SearchFailure::RateLimited {
            retry: Some("in 30 seconds".into()),
            wait: Some(Duration::from_secs(30)),
        }
    );
    let error = answered(always(response(502, &[], b"Bad Gateway")))
        .await
        .unwrap_err();
    assert!(
        error.to_string().starts_with("search (searxng): the search provider failed with HTTP 502 Bad Gateway, an error on its side"),
        "{error}"
    );
}

#[test]
fn searxng_needs_a_search_url() {
    let mut options = Settings::default().search;
    options.provider = Provider::Searxng;
    let error = configured(&options, &network(), TIMEOUT, Arc::new(SystemResolver))
        .err()
        .expect("refused");
    assert_eq!(error.key(), Some("search-url"));
    assert_eq!(
        error.to_string(),
        r#"config key "search-url" must be set when "provider" is "searxng": give the base URL of the SearXNG instance, such as "http://127.0.0.1:8888/" (SearXNG has no public default)."#
    );
}

/// Building the Brave provider reads no key: with none anywhere it is built.
#[test]
fn brave_is_built_with_no_key_anywhere() {
    let mut options = Settings::default().search;
    options.api_key_env = "MCP_WEB_TEST_NO_SUCH_KEY_VAR".into();
    assert!(configured(&options, &network(), TIMEOUT, Arc::new(SystemResolver)).is_ok());
}

/// The filters reach each provider as its own parameters; SearXNG, which has no week,
/// refuses it without a request.
#[tokio::test]
async fn filters_are_each_provider_s_own_parameters() {
    let server = Server::start(REFUSED, json(200, BRAVE_RESULTS, &[])).await;
    let filters = Filters {
        freshness: Some(Freshness::Day),
        site: Some("docs.raku.org".into()),
        page: 3,
    };
    brave(&server, "k")
        .search_filtered("raku grammars", 7, &filters)
        .await
        .expect("results");
    assert_eq!(
        server.requests()[0].path,
        "/res/v1/web/search?q=site%3Adocs.raku.org+raku+grammars&count=7&offset=2&freshness=pd&safesearch=moderate"
    );

    let server = Server::start(REFUSED, json(200, SEARXNG_RESULTS, &[])).await;
    let searxng = searxng(&server);
    searxng
        .search_filtered(
            "raku grammars",
            7,
            &Filters {
                freshness: Some(Freshness::Year),
                ..filters.clone()
            },
        )
        .await
        .expect("results");
    assert_eq!(
        server.requests()[0].path,
        "/search?q=site%3Adocs.raku.org+raku+grammars&format=json&safesearch=1&time_range=year&pageno=3"
    );
    let error = searxng
        .search_filtered(
            "raku",
            7,
            &Filters {
                freshness: Some(Freshness::Week),
                ..Filters::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(
        failure(&error),
        &SearchFailure::Unsupported {
            filter: "freshness",
            value: "week".into(),
            offers: Some("day, month or year"),
        }
    );
    assert_eq!(error.rule(), "filter-unsupported");
    assert_eq!(error.config_key(), None);
    assert_eq!(
        server.requests().len(),
        1,
        "the refused filter sent nothing"
    );
}

/// Every request the paced provider sent, and what it reported.
type Reports = Arc<Mutex<Vec<String>>>;

/// A Brave endpoint answering 429 with `Retry-After: retry_after` to its first request
/// and the results to the others.
async fn limited_once(retry_after: &'static str) -> Server {
    let asked = Arc::new(AtomicUsize::new(0));
    let handler: Handler = Arc::new(move |_req| {
        if asked.fetch_add(1, Ordering::SeqCst) == 0 {
            vec![Step::Write(response(
                429,
                &[
                    ("content-type", "application/json"),
                    ("retry-after", retry_after),
                ],
                BRAVE_RATE_LIMITED.as_bytes(),
            ))]
        } else {
            vec![Step::Write(response(
                200,
                &[("content-type", "application/json")],
                BRAVE_RESULTS.as_bytes(),
            ))]
        }
    });
    Server::start(REFUSED, handler).await
}

/// A paced search with a 90-second budget, its reports collected.
async fn paced_search(paced: &Paced, reports: &Reports) -> Result<Vec<SearchResult>, Error> {
    let report = |message: &str| reports.lock().expect("test rig").push(message.to_owned());
    let budget = Duration::from_secs(90);
    paced
        .search(
            "raku",
            5,
            &Filters::default(),
            &Pacing {
                deadline: Instant::now() + budget,
                budget,
                report: &report,
            },
        )
        .await
}

/// A 429 with `Retry-After: 1` is reported, waited out (one second of the paused
/// clock) and retried once: the second answer is served.
#[tokio::test(start_paused = true)]
async fn a_rate_limit_within_the_deadline_is_waited_out_and_retried_once() {
    let server = limited_once("1").await;
    let paced = Paced::new(Arc::new(brave(&server, "k")), 1);
    let reports = Reports::default();
    let start = Instant::now();
    let results = paced_search(&paced, &reports)
        .await
        .expect("the retry's results");
    assert_eq!(results.len(), 2);
    assert_eq!(server.requests().len(), 2, "one request, one retry");
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(
        *reports.lock().expect("test rig"),
        vec!["brave is rate-limiting: retrying once in 1 s, as it asked".to_owned()]
    );
}

/// A `Retry-After` that ends past the call's deadline is not waited for: the teaching
/// error at once, one request, nothing reported.
#[tokio::test(start_paused = true)]
async fn a_rate_limit_past_the_deadline_is_the_teaching_error() {
    let server = limited_once("120").await;
    let paced = Paced::new(Arc::new(brave(&server, "k")), 1);
    let reports = Reports::default();
    let start = Instant::now();
    let error = paced_search(&paced, &reports).await.unwrap_err();
    assert_eq!(
        failure(&error),
        &SearchFailure::RateLimited {
            retry: Some("in 120 seconds".into()),
            wait: Some(Duration::from_secs(120)),
        }
    );
    assert!(
        error.to_string().contains("retry in 120 seconds"),
        "{error}"
    );
    assert_eq!(server.requests().len(), 1);
    assert!(start.elapsed() < Duration::from_secs(1));
    assert!(reports.lock().expect("test rig").is_empty());
}

/// Requests are spaced by the rate (2 per second: half a second apart), and a search
/// whose turn would come after its deadline is refused naming `search-rate`, unsent.
#[tokio::test(start_paused = true)]
async fn searches_are_spaced_by_the_rate_and_a_turn_past_the_deadline_is_refused() {
    let server = Server::start(REFUSED, json(200, BRAVE_RESULTS, &[])).await;
    let paced = Paced::new(Arc::new(brave(&server, "k")), 2);
    let start = Instant::now();
    let budget = Duration::from_millis(1200);
    let deadline = start + budget;
    let nothing = |_: &str| {};
    let pacing = Pacing {
        deadline,
        budget,
        report: &nothing,
    };
    let mut started = Vec::new();
    for _ in 0..3 {
        paced
            .search("raku", 5, &Filters::default(), &pacing)
            .await
            .expect("results");
        started.push(server.requests().len());
    }
    assert_eq!(started, vec![1, 2, 3]);
    // Turns at 0, 0.5 and 1 s of the paused clock.
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    let error = paced
        .search("raku", 5, &Filters::default(), &pacing)
        .await
        .unwrap_err();
    assert!(
        matches!(failure(&error), SearchFailure::Paced { rate: 2, .. }),
        "{error:?}"
    );
    assert_eq!(error.config_key(), Some(ConfigKey::SearchRate));
    assert_eq!(
        server.requests().len(),
        3,
        "the refused search sent nothing"
    );
}
