//! `web_search` and `mcp-web search`: the pack with no key anywhere still serves the
//! other tools and answers `web_search` with the documented message; a provider passed
//! in code replaces the configured one; fake Brave and SearXNG endpoints on loopback
//! (port 0), permitted through `search-url`, answer the tool and the command with the
//! exact JSON shape; failures are tool errors and exit status 1 with the teaching
//! message; a configuration the provider cannot use is exit status 2.

use std::net::{IpAddr, TcpListener};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_kit::{Call, FromConfig, Notification, Outcome, Server, ToolResult};
use mcp_web::tools::Web;
use mcp_web_core::config::parse_web_config;
use mcp_web_core::error::{Error, Search, SearchFailure};
use mcp_web_core::search::{Filters, SearchProvider, SearchResult, Searching};
use mcp_web_core::transport::StaticResolver;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::support;

/// A real-shaped Brave answer of two results, with Brave's highlighting markup.
const BRAVE: &str = r#"{"type":"search","query":{"original":"raku grammars","more_results_available":true},
 "mixed":{"type":"mixed","main":[{"type":"web","index":0,"all":false}],"top":[],"side":[]},
 "web":{"type":"search","family_friendly":true,"results":[
  {"title":"Grammars | Raku Documentation","url":"https://docs.raku.org/language/grammars","type":"search_result",
   "description":"<strong>Grammars</strong> are a powerful tool used to destructure text.","age":"March 1, 2024",
   "profile":{"name":"Raku","url":"https://docs.raku.org/"},"language":"en","family_friendly":true},
  {"title":"A grammar tutorial","url":"https://example.org/g","type":"search_result",
   "description":"Learn <strong>Raku</strong> grammars.","language":"en","family_friendly":true}]}}"#;

/// Brave's answer to a query that matched nothing.
const BRAVE_NOTHING: &str = r#"{"type":"search","query":{"original":"asdkfjhasdkfjh39847"},
 "mixed":{"type":"mixed","main":[],"top":[],"side":[]}}"#;

/// A real-shaped SearXNG answer.
const SEARXNG: &str = r#"{"query":"raku","number_of_results":0,"results":[
 {"url":"https://raku.org/","title":"Raku Programming Language","content":"Hi, my name is Camelia.",
  "engine":"duckduckgo","engines":["duckduckgo"],"positions":[1],"score":1.0,"category":"general","publishedDate":null}],
 "answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[]}"#;

fn json_response(status: u16, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A fake Brave endpoint: the web search path answers `body` with `status`.
fn fake_brave(status: u16, body: &'static str) -> support::Server {
    support::Server::start(move |path| {
        if path.starts_with("/res/v1/web/search?") {
            json_response(status, body)
        } else {
            json_response(404, r#"{"error":"no such path"}"#)
        }
    })
}

/// The Web pack from `config`, served in process.
fn server_of(web: Web) -> Server {
    Server::new("mcp-web-test", "0").plug(web)
}

async fn call(server: &Server, tool: &str, args: Value) -> ToolResult {
    let args: Map<String, Value> = args.as_object().cloned().expect("an argument object");
    match server.call(tool, args).await {
        Outcome::Answered(result) => result,
        other => panic!("{tool} answers, not {other:?}"),
    }
}

/// The structured content of a result, as a JSON object.
fn structured(result: &ToolResult) -> Value {
    result
        .structured_content()
        .cloned()
        .expect("structured content")
}

/// A pack with no key anywhere builds, serves `web_fetch`, and answers `web_search`
/// with the documented message, sending nothing to the provider.
#[tokio::test]
async fn with_no_key_anywhere_the_pack_serves_the_other_tools() {
    let brave = fake_brave(200, BRAVE);
    let page = support::Server::start(|_| {
        let body = "<title>Here</title><p>Page text.";
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    });
    let web = Web::from_config(&json!({
        "allow-loopback": true,
        "api-key-env": "MCP_WEB_TEST_NO_KEY_HERE",
        "search-url": brave.url("/"),
    }))
    .expect("the pack builds with no key anywhere");
    let server = server_of(web);
    let fetched = call(&server, "web_fetch", json!({"url": page.url("/")})).await;
    assert!(!fetched.is_error(), "{}", fetched.text());
    assert_eq!(fetched.text(), "# Here\n\nPage text.");

    let searched = call(&server, "web_search", json!({"query": "raku"})).await;
    assert!(searched.is_error());
    assert_eq!(
        searched.text(),
        r#"Searching needs a Brave Search API key. Set the environment variable MCP_WEB_TEST_NO_KEY_HERE, or point "api-key-env" at the variable that holds it, or put an "api-key" in the web config."#
    );
    assert_eq!(
        structured(&searched),
        json!({"kind": "search", "rule": "api-key", "config_key": "api-key-env"})
    );
    assert_eq!(brave.connections(), 0, "nothing is sent without a key");
}

#[tokio::test]
async fn web_search_answers_brave_s_results_in_the_documented_shape() {
    let brave = fake_brave(200, BRAVE);
    let web = Web::from_config(&json!({
        "api-key": "test-key-1",
        "search-url": brave.url("/"),
    }))
    .expect("a pack");
    let server = server_of(web);
    let result = call(
        &server,
        "web_search",
        json!({"query": "raku grammars", "count": 5}),
    )
    .await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        result.text(),
        r#"{"count":5,"page":1,"provider":"brave","query":"raku grammars","results":[{"age":"March 1, 2024","snippet":"Grammars are a powerful tool used to destructure text.","title":"Grammars | Raku Documentation","url":"https://docs.raku.org/language/grammars"},{"snippet":"Learn Raku grammars.","title":"A grammar tutorial","url":"https://example.org/g"}]}"#
    );
    assert_eq!(
        structured(&result).to_string(),
        result.text(),
        "structuredContent is the same JSON"
    );
    assert_eq!(
        brave.requests("/res/v1/web/search?q=raku+grammars&count=5&safesearch=moderate"),
        1
    );
}

#[tokio::test]
async fn zero_results_is_an_empty_list_and_a_notice() {
    let brave = fake_brave(200, BRAVE_NOTHING);
    let web =
        Web::from_config(&json!({"api-key": "k", "search-url": brave.url("/")})).expect("a pack");
    let result = call(
        &server_of(web),
        "web_search",
        json!({"query": "asdkfjhasdkfjh39847"}),
    )
    .await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        result.text(),
        r#"{"count":10,"notice":"No results for 'asdkfjhasdkfjh39847'. The engine matched nothing: try fewer or more common terms, or drop any quoting.","page":1,"provider":"brave","query":"asdkfjhasdkfjh39847","results":[]}"#
    );
}

#[tokio::test]
async fn a_provider_failure_is_a_tool_error_that_teaches() {
    let brave = fake_brave(
        401,
        r#"{"type":"ErrorResponse","error":{"status":401,"code":"UNAUTHORIZED","detail":"Unauthorized"}}"#,
    );
    let web = Web::from_config(&json!({"api-key": "not-a-real-key", "search-url": brave.url("/")}))
        .expect("a pack");
    let result = call(&server_of(web), "web_search", json!({"query": "raku"})).await;
    assert!(result.is_error());
    assert!(
        result.text().starts_with("search (brave): the search provider refused the API key (HTTP 401 Unauthorized). The key came from the \"api-key\" of the web config"),
        "{}",
        result.text()
    );
    assert!(!result.text().contains("not-a-real-key"));
    assert_eq!(
        structured(&result),
        json!({"kind": "search", "rule": "api-key-refused", "config_key": "api-key"})
    );
}

#[tokio::test]
async fn web_search_asks_searxng_when_configured() {
    let searxng = support::Server::start(|path| {
        if path.starts_with("/searx/search?") {
            json_response(200, SEARXNG)
        } else {
            json_response(404, "{}")
        }
    });
    let web = Web::from_config(&json!({
        "provider": "searxng",
        "search-url": searxng.url("/searx/"),
    }))
    .expect("a pack");
    let result = call(
        &server_of(web),
        "web_search",
        json!({"query": "raku", "count": 3}),
    )
    .await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        result.text(),
        r#"{"count":3,"page":1,"provider":"searxng","query":"raku","results":[{"snippet":"Hi, my name is Camelia.","title":"Raku Programming Language","url":"https://raku.org/"}]}"#
    );
    assert_eq!(
        searxng.requests("/searx/search?q=raku&format=json&safesearch=1"),
        1
    );
}

#[test]
fn searxng_without_a_search_url_is_a_configuration_error() {
    let error = Web::from_config(&json!({"provider": "searxng"})).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(r#"config key "search-url" must be set when "provider" is "searxng""#),
        "{error}"
    );
}

/// A provider of the test's own: answers `results`, or fails, and records each call.
struct Fake {
    results: Vec<SearchResult>,
    fail: bool,
    calls: Mutex<Vec<(String, usize)>>,
}

impl SearchProvider for Fake {
    fn name(&self) -> &str {
        "fake"
    }

    fn search<'a>(&'a self, query: &'a str, count: usize) -> Searching<'a> {
        self.calls
            .lock()
            .expect("test rig")
            .push((query.to_owned(), count));
        let answer = if self.fail {
            Err(Error::Search(Search::new(
                "fake",
                SearchFailure::Other {
                    rule: "fake-quota",
                    detail: "the fake engine's quota is spent; try tomorrow.".into(),
                    key: None,
                },
            )))
        } else {
            // More than asked for: the operation keeps `count`.
            Ok(self.results.clone())
        };
        Box::pin(async move { answer })
    }
}

fn result(n: usize) -> SearchResult {
    SearchResult {
        title: format!("Result {n}"),
        url: format!("https://r{n}.example/"),
        snippet: format!("snippet {n}"),
        age: None,
    }
}

/// A provider passed in code replaces the configured one (here a SearXNG with no
/// `search-url`, which could not even be built).
#[tokio::test]
async fn a_provider_passed_in_code_replaces_the_configured_one() {
    let fake = Arc::new(Fake {
        results: (1..=4).map(result).collect(),
        fail: false,
        calls: Mutex::default(),
    });
    let settings = parse_web_config(&json!({"provider": "searxng"})).expect("settings");
    let web = Web::with_search_provider(settings, fake.clone()).expect("a pack");
    let server = server_of(web);
    let answer = call(
        &server,
        "web_search",
        json!({"query": "anything", "count": 2}),
    )
    .await;
    assert!(!answer.is_error(), "{}", answer.text());
    assert_eq!(
        answer.text(),
        r#"{"count":2,"page":1,"provider":"fake","query":"anything","results":[{"snippet":"snippet 1","title":"Result 1","url":"https://r1.example/"},{"snippet":"snippet 2","title":"Result 2","url":"https://r2.example/"}]}"#
    );
    assert_eq!(
        *fake.calls.lock().expect("test rig"),
        vec![("anything".to_owned(), 2)]
    );

    let failing = Arc::new(Fake {
        results: Vec::new(),
        fail: true,
        calls: Mutex::default(),
    });
    let settings = parse_web_config(&json!({})).expect("settings");
    let server = server_of(Web::with_search_provider(settings, failing).expect("a pack"));
    let answer = call(&server, "web_search", json!({"query": "anything"})).await;
    assert!(answer.is_error());
    assert_eq!(
        answer.text(),
        "search (fake) failed: the fake engine's quota is spent; try tomorrow."
    );
    assert_eq!(
        structured(&answer),
        json!({"kind": "search", "rule": "fake-quota", "config_key": null})
    );
}

#[tokio::test]
async fn refused_arguments_name_the_parameter() {
    let fake = Arc::new(Fake {
        results: Vec::new(),
        fail: false,
        calls: Mutex::default(),
    });
    let settings = parse_web_config(&json!({})).expect("settings");
    let server = server_of(Web::with_search_provider(settings, fake.clone()).expect("a pack"));
    for (args, parameter) in [
        (json!({}), "query"),
        (json!({"query": " "}), "query"),
        (json!({"query": "x", "count": 21}), "count"),
        (json!({"query": "x", "count": 0}), "count"),
        (json!({"query": "x", "url": "https://x/"}), "url"),
    ] {
        let answer = call(&server, "web_search", args.clone()).await;
        assert!(answer.is_error(), "{args}");
        assert_eq!(structured(&answer)["parameter"], parameter, "{args}");
    }
    assert!(fake.calls.lock().expect("test rig").is_empty());
}

/// Runs `mcp-web search ARGS…` with `env` set, every proxy variable and the default key
/// variable removed.
fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-web"));
    command.arg("search").args(args);
    for var in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
        "BRAVE_API_KEY",
    ] {
        command.env_remove(var);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().expect("the mcp-web binary runs");
    (
        status.code().expect("an exit code"),
        String::from_utf8(stdout).expect("utf-8 stdout"),
        String::from_utf8(stderr).expect("utf-8 stderr"),
    )
}

/// The command prints the tool's JSON on one line (stdout is not a terminal), with
/// the key read from the variable `api-key-env` names.
#[test]
fn the_command_prints_what_web_search_answers() {
    let brave = fake_brave(200, BRAVE);
    let (code, out, err) = run(
        &[
            "raku grammars",
            "--count",
            "2",
            "--search-url",
            &brave.url("/"),
            "--api-key-env",
            "MCP_WEB_TEST_CLI_KEY",
        ],
        &[("MCP_WEB_TEST_CLI_KEY", "cli-key")],
    );
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "{\"count\":2,\"page\":1,\"provider\":\"brave\",\"query\":\"raku grammars\",\"results\":[{\"age\":\"March 1, 2024\",\"snippet\":\"Grammars are a powerful tool used to destructure text.\",\"title\":\"Grammars | Raku Documentation\",\"url\":\"https://docs.raku.org/language/grammars\"},{\"snippet\":\"Learn Raku grammars.\",\"title\":\"A grammar tutorial\",\"url\":\"https://example.org/g\"}]}\n"
    );
    assert_eq!(
        brave.requests("/res/v1/web/search?q=raku+grammars&count=2&safesearch=moderate"),
        1
    );
}

#[test]
fn a_provider_failure_is_exit_status_1_with_the_message_on_stderr() {
    let brave = fake_brave(
        500,
        r#"{"type":"ErrorResponse","error":{"status":500,"code":"INTERNAL","detail":"Something broke"}}"#,
    );
    let (code, out, err) = run(
        &["raku", "--search-url", &brave.url("/"), "--api-key", "k"],
        &[],
    );
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err,
        "mcp-web: search (brave): the search provider failed with HTTP 500 Internal Server Error, an error on its side: \"Something broke\". Try again later. No configuration key changes this.\n"
    );

    let (code, _, err) = run(&["raku", "--search-url", &brave.url("/")], &[]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "mcp-web: Searching needs a Brave Search API key. Set the environment variable BRAVE_API_KEY, or point \"api-key-env\" at the variable that holds it, or put an \"api-key\" in the web config.\n"
    );
}

/// An endpoint that accepts the connection and never answers runs out `timeout`.
#[test]
fn a_silent_endpoint_is_a_deadline() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("local address");
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            // Keep every connection open, answering nothing.
            held.push(stream);
        }
    });
    let url = format!("http://{addr}/");
    let (code, _, err) = run(
        &[
            "raku",
            "--search-url",
            &url,
            "--api-key",
            "k",
            "--timeout",
            "0.3",
        ],
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        err.starts_with(&format!(
            "mcp-web: search (brave): the search provider at http://{addr}/res/v1/web/search did not answer within the timeout of 0.3 s."
        )),
        "{err}"
    );
}

/// The resolver seam of the context is the search provider's too: a `search-url` by
/// name reaches the address the test resolver gives.
#[tokio::test]
async fn the_context_s_resolver_resolves_the_provider_s_name() {
    let brave = fake_brave(200, BRAVE_NOTHING);
    // `http://127.0.0.1:PORT` without a path: the port is after the last colon.
    let address = brave.url("");
    let port = address.rsplit(':').next().expect("a port");
    let settings = parse_web_config(&json!({
        "api-key": "k",
        "search-url": format!("http://search.test:{port}/"),
    }))
    .expect("settings");
    let resolver = StaticResolver::new().with("search.test", [IpAddr::from([127, 0, 0, 1])]);
    let answer = mcp_web::cli::search::search(
        "nothing",
        3,
        &Filters::default(),
        &settings,
        Arc::new(resolver),
        &CancellationToken::new(),
        &(),
    )
    .await
    .expect("an answer");
    assert_eq!(answer["results"], json!([]));
    assert_eq!(
        brave.requests("/res/v1/web/search?q=nothing&count=3&safesearch=moderate"),
        1
    );
}

#[test]
fn a_configuration_the_provider_cannot_use_is_exit_status_2() {
    let (code, out, err) = run(&["raku", "--provider", "searxng"], &[]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("\"search-url\" must be set"), "{err}");
    let (code, _, _) = run(&["raku", "--count", "21"], &[]);
    assert_eq!(code, 2);
}

/// The filters reach Brave as its own parameters (`site:` in the query, `freshness`,
/// `offset` counted in pages), the answer echoes them, and a result off the site is
/// dropped whatever the engine sent.
#[tokio::test]
async fn web_search_filters_reach_brave_as_its_parameters_and_are_echoed() {
    let brave = fake_brave(200, BRAVE);
    let web =
        Web::from_config(&json!({"api-key": "k", "search-url": brave.url("/")})).expect("a pack");
    let result = call(
        &server_of(web),
        "web_search",
        json!({"query": "raku grammars", "count": 10, "freshness": "week",
               "site": "Docs.Raku.org", "page": 2}),
    )
    .await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        result.text(),
        r#"{"count":10,"freshness":"week","page":2,"provider":"brave","query":"raku grammars","results":[{"age":"March 1, 2024","snippet":"Grammars are a powerful tool used to destructure text.","title":"Grammars | Raku Documentation","url":"https://docs.raku.org/language/grammars"}],"site":"docs.raku.org"}"#
    );
    assert_eq!(
        brave.requests(
            "/res/v1/web/search?q=site%3Adocs.raku.org+raku+grammars&count=10&offset=1&freshness=pw&safesearch=moderate"
        ),
        1
    );
}

/// SearXNG has no week: the call is refused naming what it does apply, and nothing
/// is sent; the filters it has reach it as `time_range`, `pageno` and `site:`.
#[tokio::test]
async fn searxng_refuses_the_freshness_it_lacks_and_applies_the_others() {
    let searxng = support::Server::start(|path| {
        if path.starts_with("/search?") {
            json_response(200, SEARXNG)
        } else {
            json_response(404, "{}")
        }
    });
    let web = Web::from_config(&json!({"provider": "searxng", "search-url": searxng.url("/")}))
        .expect("a pack");
    let server = server_of(web);
    let refused = call(
        &server,
        "web_search",
        json!({"query": "raku", "freshness": "week"}),
    )
    .await;
    assert!(refused.is_error());
    assert_eq!(
        refused.text(),
        r#"search (searxng): this search provider cannot apply freshness "week"; it applies freshness day, month or year: ask again with one of those, or without "freshness". No configuration key changes this."#
    );
    assert_eq!(
        structured(&refused),
        json!({"kind": "search", "rule": "filter-unsupported", "config_key": null})
    );
    assert_eq!(
        searxng.connections(),
        0,
        "nothing is sent for a refused filter"
    );

    let answered = call(
        &server,
        "web_search",
        json!({"query": "raku", "freshness": "month", "site": "raku.org", "page": 3}),
    )
    .await;
    assert!(!answered.is_error(), "{}", answered.text());
    assert_eq!(
        structured(&answered)["results"][0]["url"],
        "https://raku.org/"
    );
    assert_eq!(
        searxng.requests(
            "/search?q=site%3Araku.org+raku&format=json&safesearch=1&time_range=month&pageno=3"
        ),
        1
    );
}

/// A provider that does not implement filters gets the seam's default: a filter is
/// refused by name, the provider is never asked, and without filters it searches.
#[tokio::test]
async fn a_provider_without_filters_refuses_each_one_by_name() {
    let fake = Arc::new(Fake {
        results: (1..=2).map(result).collect(),
        fail: false,
        calls: Mutex::default(),
    });
    let settings = parse_web_config(&json!({})).expect("settings");
    let server = server_of(Web::with_search_provider(settings, fake.clone()).expect("a pack"));
    for (args, message) in [
        (
            json!({"query": "x", "freshness": "day"}),
            r#"search (fake): this search provider cannot apply freshness "day", it has no such filter: ask again without "freshness". No configuration key changes this."#,
        ),
        (
            json!({"query": "x", "site": "docs.rs"}),
            r#"search (fake): this search provider cannot apply site "docs.rs", it has no such filter: ask again without "site". No configuration key changes this."#,
        ),
        (
            json!({"query": "x", "page": 2}),
            r#"search (fake): this search provider cannot apply page "2", it has no such filter: ask again without "page". No configuration key changes this."#,
        ),
    ] {
        let answer = call(&server, "web_search", args.clone()).await;
        assert!(answer.is_error(), "{args}");
        assert_eq!(answer.text(), message, "{args}");
    }
    assert!(fake.calls.lock().expect("test rig").is_empty());
    let answer = call(&server, "web_search", json!({"query": "x", "page": 1})).await;
    assert!(!answer.is_error(), "{}", answer.text());
    assert_eq!(fake.calls.lock().expect("test rig").len(), 1);
}

/// `mcp-web search --freshness --site --page` are the tool's filters.
#[test]
fn the_command_takes_the_filters_as_flags() {
    let brave = fake_brave(200, BRAVE);
    let (code, out, err) = run(
        &[
            "raku",
            "--count",
            "5",
            "--freshness",
            "year",
            "--site",
            "example.org",
            "--page",
            "10",
            "--search-url",
            &brave.url("/"),
            "--api-key",
            "k",
        ],
        &[],
    );
    assert_eq!((code, err.as_str()), (0, ""));
    let answer: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        (
            &answer["freshness"],
            &answer["site"],
            &answer["page"],
            &answer["results"][0]["url"]
        ),
        (
            &json!("year"),
            &json!("example.org"),
            &json!(10),
            &json!("https://example.org/g")
        )
    );
    assert_eq!(
        brave.requests(
            "/res/v1/web/search?q=site%3Aexample.org+raku&count=5&offset=9&freshness=py&safesearch=moderate"
        ),
        1
    );
    for bad in [
        &["raku", "--page", "11"][..],
        &["raku", "--freshness", "hour"][..],
        &["raku", "--site", "https://example.org/"][..],
    ] {
        let (code, out, _) = run(bad, &[]);
        assert_eq!((code, out.as_str()), (2, ""), "{bad:?}");
    }
}

/// A provider rate-limited once with a delay of `wait`, then answering two results.
struct LimitedOnce {
    wait: Duration,
    asked: AtomicUsize,
}

impl SearchProvider for LimitedOnce {
    fn name(&self) -> &str {
        "limited"
    }

    fn search<'a>(&'a self, _query: &'a str, _count: usize) -> Searching<'a> {
        let answer = if self.asked.fetch_add(1, Ordering::SeqCst) == 0 {
            Err(Error::Search(Search::new(
                "limited",
                SearchFailure::RateLimited {
                    retry: Some(format!("in {} seconds", self.wait.as_secs())),
                    wait: Some(self.wait),
                },
            )))
        } else {
            Ok((1..=2).map(result).collect())
        };
        Box::pin(async move { answer })
    }
}

/// `web_search` waits out a rate limit that ends within `total-timeout`, telling the
/// client in a progress notification, and serves the retry's answer; one that ends
/// after it is the teaching error at once.
#[tokio::test(start_paused = true)]
async fn web_search_waits_out_a_rate_limit_within_the_deadline_and_says_so() {
    let limited = Arc::new(LimitedOnce {
        wait: Duration::from_secs(1),
        asked: AtomicUsize::new(0),
    });
    let settings = parse_web_config(&json!({})).expect("settings");
    let server = server_of(Web::with_search_provider(settings, limited.clone()).expect("a pack"));
    let (sink, mut notes) = tokio::sync::mpsc::unbounded_channel::<Notification>();
    let request = Call::new(
        "web_search",
        json!({"query": "raku"}).as_object().cloned().expect("args"),
    )
    .with_progress_token(json!("p"))
    .with_notifications(sink);
    let start = tokio::time::Instant::now();
    let Outcome::Answered(result) = server.dispatch(request).await else {
        panic!("an answer");
    };
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        structured(&result)["results"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(limited.asked.load(Ordering::SeqCst), 2);
    assert!(start.elapsed() >= Duration::from_secs(1));
    let note = notes.try_recv().expect("a progress notification");
    assert_eq!(note.method, "notifications/progress");
    assert_eq!(
        note.params["message"],
        "limited is rate-limiting: retrying once in 1 s, as it asked"
    );

    let late = Arc::new(LimitedOnce {
        wait: Duration::from_secs(600),
        asked: AtomicUsize::new(0),
    });
    let settings = parse_web_config(&json!({"total-timeout": 90})).expect("settings");
    let server = server_of(Web::with_search_provider(settings, late.clone()).expect("a pack"));
    let start = tokio::time::Instant::now();
    let answer = call(&server, "web_search", json!({"query": "raku"})).await;
    assert!(answer.is_error());
    assert_eq!(
        answer.text(),
        "search (limited): the search provider is rate-limiting these requests (HTTP 429 Too Many Requests); retry in 600 seconds. No configuration key changes this."
    );
    assert_eq!(late.asked.load(Ordering::SeqCst), 1);
    assert!(start.elapsed() < Duration::from_secs(1));
}

/// A fake Brave endpoint that answers its first search with HTTP 429 and
/// `Retry-After: SECONDS`, and every later one with two results; it counts the searches.
fn fake_brave_limited_once(seconds: u64) -> (support::Server, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    let server = support::Server::start(move |path| {
        if !path.starts_with("/res/v1/web/search?") {
            return json_response(404, r#"{"error":"no such path"}"#);
        }
        if counted.fetch_add(1, Ordering::SeqCst) == 0 {
            let body = r#"{"type":"ErrorResponse","error":{"code":"RATE_LIMITED"}}"#;
            format!(
                "HTTP/1.1 429 Too Many Requests\r\nretry-after: {seconds}\r\n\
                 content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_bytes()
        } else {
            json_response(200, BRAVE)
        }
    });
    (server, asked)
}

/// `mcp-web search` says on stderr that it waits out the provider's `Retry-After`, then
/// prints the retry's answer; a delay past `total-timeout` is the error at once, with
/// no such line and no second request.
#[test]
fn the_command_says_it_waits_out_a_rate_limit() {
    let (brave, asked) = fake_brave_limited_once(1);
    let url = brave.url("/");
    let args = [
        "raku grammars",
        "--count",
        "2",
        "--search-url",
        &url,
        "--api-key",
        "k",
    ];
    let (code, out, err) = run(&args, &[]);
    assert_eq!(
        (code, err.as_str()),
        (
            0,
            "mcp-web: brave is rate-limiting: retrying once in 1 s, as it asked\n"
        )
    );
    let answer: Value = serde_json::from_str(&out).expect("the JSON answer");
    assert_eq!(answer["results"].as_array().map(Vec::len), Some(2), "{out}");
    assert_eq!(asked.load(Ordering::SeqCst), 2);

    let (brave, asked) = fake_brave_limited_once(600);
    let url = brave.url("/");
    let mut late = args.to_vec();
    late[4] = &url;
    late.extend(["--total-timeout", "30"]);
    let (code, out, err) = run(&late, &[]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err,
        "mcp-web: search (brave): the search provider is rate-limiting these requests (HTTP 429 Too Many Requests); retry in 600 seconds. No configuration key changes this.\n"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}
