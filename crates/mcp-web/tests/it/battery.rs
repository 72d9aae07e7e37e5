//! The bad-input battery: the Web pack driven in process (through
//! `mcp_kit::Server::call`, and over in-memory stdio for the JSON-RPC shapes) with
//! what a buggy client or a hostile site sends. Malformed JSON-RPC, wrong, missing and
//! extra arguments for every tool, 10 MB arguments, gzip and brotli bombs, slowloris
//! heads and bodies, endless redirects, 100,000 nested elements, a 10 MB line,
//! invalid UTF-8, a reset mid-body and a 5 MB robots.txt. Each case asserts a clear
//! answer naming the rule (and the key where one applies), a good call made at the
//! same time answered unharmed, and the server still serving afterwards. Every
//! socket is a loopback one this test opens on port 0.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use async_compression::Level;
use async_compression::tokio::write::{BrotliEncoder, GzipEncoder};
use mcp_kit::{FromConfig, Outcome, Server, ToolResult};
use mcp_web::tools::Web;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// How long a test waits for an answer before it calls it a hang. Only a guard: no
/// test asserts on time.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// The good page every case fetches beside its hostile one.
const GOOD: &str = "<html><head><title>Good</title></head><body><p>Still here.</p></body></html>";

/// What a good page's answer is.
const GOOD_TEXT: &str = "# Good\n\nStill here.";

/// One step of a hostile answer.
#[derive(Clone)]
enum Step {
    /// Write these bytes.
    Write(Vec<u8>),
    /// Write these bytes one at a time, a pause between each, then keep the
    /// connection open, sending nothing more.
    Trickle(Vec<u8>),
    /// Keep the connection open and send nothing.
    Hang,
    /// Write these bytes again and again until the peer goes away.
    Repeat(Vec<u8>),
    /// Close the connection with a reset (RST), not a clean close.
    Reset,
}

/// The answer to one path.
type Script = Arc<dyn Fn(&str) -> Vec<Step> + Send + Sync>;

/// A scripted HTTP/1.1 site on 127.0.0.1, port 0; `/good` is always the good page.
struct Site {
    port: u16,
}

impl Site {
    /// Starts the site answering every path but `/good` by `script`.
    async fn start(script: impl Fn(&str) -> Vec<Step> + Send + Sync + 'static) -> Site {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let port = listener.local_addr().expect("local address").port();
        let script: Script = Arc::new(script);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(converse(stream, Arc::clone(&script)));
            }
        });
        Site { port }
    }

    /// `http://127.0.0.1:PORT{path}`.
    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

/// A response with a `content-length`.
fn response(status: u16, headers: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status} X\r\ncontent-length: {}\r\n{headers}\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

/// An HTML response.
fn html(body: &[u8]) -> Vec<Step> {
    vec![Step::Write(response(
        200,
        "content-type: text/html; charset=utf-8\r\n",
        body,
    ))]
}

/// Serves one connection: each request's head read, then its script played.
async fn converse(mut stream: TcpStream, script: Script) {
    let mut buffer = Vec::new();
    loop {
        let end = loop {
            if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break at;
            }
            let mut chunk = [0u8; 4096];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buffer[..end]).into_owned();
        buffer.drain(..end + 4);
        let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
        let steps = if path == "/good" {
            html(GOOD.as_bytes())
        } else {
            script(&path)
        };
        for step in steps {
            match step {
                Step::Write(bytes) => {
                    if stream.write_all(&bytes).await.is_err() {
                        return;
                    }
                }
                Step::Trickle(bytes) => {
                    for byte in bytes {
                        if stream.write_all(&[byte]).await.is_err() {
                            return;
                        }
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    let _ = stream.read(&mut [0u8; 1]).await;
                    return;
                }
                Step::Hang => {
                    let _ = stream.read(&mut [0u8; 1]).await;
                    return;
                }
                Step::Repeat(bytes) => loop {
                    if stream.write_all(&bytes).await.is_err() {
                        return;
                    }
                },
                Step::Reset => {
                    // A zero linger makes the close a reset at once; it cannot block.
                    #[expect(deprecated, reason = "a zero linger never blocks the drop")]
                    let _ = stream.set_linger(Some(Duration::ZERO));
                    return;
                }
            }
        }
    }
}

/// The settings of every case: loopback permitted, small deadlines and a 1 MiB cap,
/// with `extra` on top.
fn config(extra: Value) -> Value {
    let mut config = json!({
        "allow-loopback": true,
        "crawl-delay": 0,
        "connect-timeout": 5,
        "headers-timeout": 1,
        "timeout": 1,
        "total-timeout": 30,
        "max-bytes": 1 << 20,
    });
    if let (Some(config), Value::Object(extra)) = (config.as_object_mut(), extra) {
        config.extend(extra);
    }
    config
}

/// A server offering the Web pack built from `config`.
fn server(config: Value) -> Server {
    let web = Web::from_config(&config).expect("a valid Web config");
    Server::new("mcp-web-battery", "0").plug(web)
}

/// Calls `tool` with `args` and returns its answer; anything but an answer fails.
async fn call(server: &Server, tool: &str, args: Value) -> ToolResult {
    let args: Map<String, Value> = args.as_object().cloned().expect("an argument object");
    let outcome = tokio::time::timeout(HANG_GUARD, server.call(tool, args))
        .await
        .unwrap_or_else(|_| panic!("{tool} answered"));
    match outcome {
        Outcome::Answered(result) => result,
        other => panic!("{tool} answers, not {other:?}"),
    }
}

/// Asserts the good page's answer.
fn assert_good(result: &ToolResult) {
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.text(), GOOD_TEXT);
}

/// Runs `hostile` with a good call beside it, asserts the good one unharmed and the
/// server serving afterwards, and returns the hostile call's answer.
async fn survives(
    server: &Server,
    site: &Site,
    hostile: impl Future<Output = ToolResult>,
) -> ToolResult {
    let good = call(server, "web_fetch", json!({"url": site.url("/good")}));
    let (answer, good) = tokio::join!(hostile, good);
    assert_good(&good);
    assert_good(&call(server, "web_fetch", json!({"url": site.url("/good")})).await);
    answer
}

/// Fetches `path` of `site` while a good call runs beside it (see [`survives`]), and
/// returns the answer.
async fn fetch_beside_good(server: &Server, site: &Site, path: &str) -> ToolResult {
    let hostile = call(server, "web_fetch", json!({"url": site.url(path)}));
    survives(server, site, hostile).await
}

/// The text of an answer that is not an error.
fn answered(result: &ToolResult) -> String {
    assert!(!result.is_error(), "{}", result.text());
    result.text()
}

/// Asserts that `result` is the tool error of `kind` and `rule` naming `key` (null
/// when no key would change the answer).
fn assert_refused(result: &ToolResult, kind: &str, rule: &str, key: Value) {
    let (k, r, c) = error_of(result);
    assert_eq!(
        (k.as_str(), r.as_str(), c),
        (kind, rule, key),
        "{}",
        result.text()
    );
}

/// The structured content of a tool error: its kind, rule and key.
fn error_of(result: &ToolResult) -> (String, String, Value) {
    assert!(result.is_error(), "an error: {}", result.text());
    let data = result
        .structured_content()
        .unwrap_or_else(|| panic!("structured content: {}", result.text()));
    (
        data["kind"].as_str().unwrap_or_default().to_owned(),
        data["rule"].as_str().unwrap_or_default().to_owned(),
        data["config_key"].clone(),
    )
}

/// `data` compressed by `encoding` (`gzip` or `br`) at the fastest level.
async fn compress(encoding: &str, data: &[u8]) -> Vec<u8> {
    async fn through(mut encoder: impl AsyncWrite + Unpin, data: &[u8]) {
        encoder
            .write_all(data)
            .await
            .expect("in-memory compression");
        encoder.shutdown().await.expect("in-memory compression");
    }
    let mut out = Vec::new();
    if encoding == "gzip" {
        through(GzipEncoder::with_quality(&mut out, Level::Fastest), data).await;
    } else {
        through(BrotliEncoder::with_quality(&mut out, Level::Fastest), data).await;
    }
    out
}

/// Asserts that `site`'s `/bomb` is answered cut at a 1 MiB `max-bytes`, with the
/// notice saying so.
async fn assert_cut_at_max_bytes(site: &Site) {
    let server = server(config(json!({"max-chars": 2 << 20})));
    let text = answered(&fetch_beside_good(&server, site, "/bomb").await);
    assert!(
        text.ends_with(
            "because the server's byte cap of 1048576 bytes was reached; the rest of the page \
             was not fetched; raise max-bytes to keep more]",
        ),
        "{}",
        tail(&text)
    );
}

#[tokio::test]
async fn a_gzip_bomb_is_cut_at_max_bytes() {
    // An endless body of gzip members, each 1 MiB of one letter in about a kilobyte.
    let member = compress("gzip", &vec![b'a'; 1 << 20]).await;
    let mut chunk = format!("{:x}\r\n", member.len()).into_bytes();
    chunk.extend_from_slice(&member);
    chunk.extend_from_slice(b"\r\n");
    let site = Site::start(move |_| {
        vec![
            Step::Write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-encoding: gzip\r\n\
                  transfer-encoding: chunked\r\n\r\n"
                    .to_vec(),
            ),
            Step::Repeat(chunk.clone()),
        ]
    })
    .await;
    assert_cut_at_max_bytes(&site).await;
}

#[tokio::test]
async fn a_brotli_bomb_is_cut_at_max_bytes() {
    // 32 MiB of one letter in a few kilobytes.
    let body = compress("br", &vec![b'a'; 32 << 20]).await;
    assert!(body.len() < 64 << 10, "a bomb: {} bytes", body.len());
    let page = response(
        200,
        "content-type: text/plain\r\ncontent-encoding: br\r\n",
        &body,
    );
    let site = Site::start(move |_| vec![Step::Write(page.clone())]).await;
    assert_cut_at_max_bytes(&site).await;
}

/// The last characters of `text`, for a failure message.
fn tail(text: &str) -> &str {
    let start = text.char_indices().rev().nth(300).map_or(0, |(at, _)| at);
    &text[start..]
}

#[tokio::test]
async fn a_slowloris_head_runs_out_the_headers_timeout() {
    // The status line, then a header one byte at a time that never ends.
    let site = Site::start(|_| {
        vec![
            Step::Write(b"HTTP/1.1 200 OK\r\n".to_vec()),
            Step::Trickle(b"x-slow: ".iter().copied().cycle().take(10_000).collect()),
        ]
    })
    .await;
    let server = server(config(json!({})));
    let answer = fetch_beside_good(&server, &site, "/slow").await;
    assert_refused(
        &answer,
        "deadline",
        "headers-timeout",
        json!("headers-timeout"),
    );
    assert!(
        answer.text().contains("while reading headers")
            && answer.text().contains("Raise \"headers-timeout\""),
        "{}",
        answer.text()
    );
}

#[tokio::test]
async fn a_slowloris_body_runs_out_the_timeout_and_keeps_what_arrived() {
    // A whole head, then a body one byte at a time that never reaches its length.
    let site = Site::start(|_| {
        vec![
            Step::Write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000000\r\n\r\n"
                    .to_vec(),
            ),
            Step::Trickle(b"drip\n".iter().copied().cycle().take(100_000).collect()),
        ]
    })
    .await;
    let server = server(config(json!({})));
    let text = answered(&fetch_beside_good(&server, &site, "/drip").await);
    assert!(
        text.ends_with(
            "because the timeout of 1 s ran out while reading the body; the rest of the page \
             was not fetched; raise timeout to wait longer]"
        ),
        "{}",
        tail(&text)
    );
}

#[tokio::test]
async fn a_head_that_never_comes_runs_out_the_headers_timeout() {
    let site = Site::start(|_| vec![Step::Hang]).await;
    let server = server(config(json!({})));
    let answer = fetch_beside_good(&server, &site, "/hang").await;
    assert_refused(
        &answer,
        "deadline",
        "headers-timeout",
        json!("headers-timeout"),
    );
}

#[tokio::test]
async fn endless_redirects_stop_at_the_hop_limit() {
    // Every hop leads to a new URL, so only the hop limit ends it.
    let site = Site::start(|path| {
        let next = path
            .strip_prefix("/hop/")
            .and_then(|n| n.parse::<u64>().ok())
            .map_or(0, |n| n + 1);
        vec![Step::Write(response(
            302,
            &format!("location: /hop/{next}\r\n"),
            b"",
        ))]
    })
    .await;
    let server = server(config(json!({})));
    let answer = fetch_beside_good(&server, &site, "/hop/0").await;
    assert_refused(&answer, "too_many_redirects", "redirect-limit", Value::Null);
    assert!(answer.text().len() < 8 << 10, "a bounded message");

    // A loop back to a URL already visited is named as one.
    let site = Site::start(|path| {
        let next = if path == "/a" { "/b" } else { "/a" };
        vec![Step::Write(response(
            302,
            &format!("location: {next}\r\n"),
            b"",
        ))]
    })
    .await;
    let answer = fetch_beside_good(&server, &site, "/a").await;
    assert_refused(&answer, "redirect_loop", "redirect-loop", Value::Null);
}

#[tokio::test]
async fn a_hundred_thousand_nested_elements_are_read() {
    let mut page = String::from("<html><head><title>Deep</title></head><body>");
    page.push_str(&"<div>".repeat(100_000));
    page.push_str("<p>At the bottom.</p>");
    page.push_str(&"</div>".repeat(100_000));
    page.push_str("<p>After the descent.</p></body></html>");
    let site = Site::start(move |_| html(page.as_bytes())).await;
    let server = server(config(json!({"max-bytes": 4 << 20})));
    let text = answered(&fetch_beside_good(&server, &site, "/deep").await);
    assert_eq!(text, "# Deep\n\nAt the bottom.\n\nAfter the descent.");
}

#[tokio::test]
async fn a_ten_megabyte_line_is_cut_to_max_chars() {
    // One 10 MB line of words in one paragraph, all of it read (max-bytes 12 MiB).
    let mut page = String::from("<html><head><title>Long</title></head><body><p>");
    page.push_str(&"word ".repeat(2_000_000));
    page.push_str("</p></body></html>");
    let site = Site::start(move |_| html(page.as_bytes())).await;
    // Extraction runs within the call's deadline: a debug build on a loaded machine
    // takes a while over twelve megabytes.
    let server = server(config(json!({"max-bytes": 12 << 20, "total-timeout": 600})));
    let text = answered(&fetch_beside_good(&server, &site, "/long").await);
    assert!(text.starts_with("# Long\n\nword word"), "{}", &text[..100]);
    assert!(
        text.chars().count() < 41_000,
        "cut near max-chars: {}",
        text.len()
    );
    assert!(
        text.contains("max-chars"),
        "the notice names the key: {}",
        tail(&text)
    );
}

#[tokio::test]
async fn invalid_utf8_in_a_page_is_replaced_not_fatal() {
    let mut body = b"<html><head><title>Bytes</title></head><body><p>before ".to_vec();
    body.extend_from_slice(b"\xff\xfe\xc3\x28\xed\xa0\x80\xf8\x88\x80\x80\x80");
    body.extend_from_slice(b" after</p></body></html>");
    let site = Site::start(move |_| html(&body)).await;
    let server = server(config(json!({})));
    let text = answered(&fetch_beside_good(&server, &site, "/bytes").await);
    assert!(
        text.starts_with("# Bytes\n\nbefore ") && text.ends_with(" after"),
        "{text}"
    );
    assert!(text.contains('\u{fffd}'), "{text}");
}

#[tokio::test]
async fn a_reset_mid_body_is_a_transport_error() {
    let site = Site::start(|_| {
        let mut head =
            b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 100000\r\n\r\n"
                .to_vec();
        head.extend_from_slice(&b"part of it\n".repeat(100));
        vec![Step::Write(head), Step::Reset]
    })
    .await;
    let server = server(config(json!({})));
    let answer = fetch_beside_good(&server, &site, "/reset").await;
    let (kind, rule, key) = error_of(&answer);
    assert_eq!(kind, "transport", "{}", answer.text());
    assert!(
        rule == "connection-reset" || rule == "protocol",
        "{rule}: {}",
        answer.text()
    );
    assert_eq!(key, Value::Null);
}

#[tokio::test]
async fn a_five_megabyte_robots_txt_is_read_to_its_limit() {
    // The group that matters comes first; a `Disallow: /` past the 500 KiB that are
    // parsed is never seen.
    let mut robots = String::from("User-agent: *\nDisallow: /private\n");
    while robots.len() < 5 << 20 {
        robots.push_str("# a comment line that pads the file to five megabytes\n");
    }
    robots.push_str("Disallow: /\n");
    let robots = Arc::new(robots);
    let site = Site::start(move |path| match path {
        "/robots.txt" => vec![Step::Write(response(
            200,
            "content-type: text/plain\r\n",
            robots.as_bytes(),
        ))],
        _ => html(b"<html><head><title>Open</title></head><body><p>Open page.</p></body></html>"),
    })
    .await;
    let server = server(config(json!({"timeout": 10})));
    let answer = survives(
        &server,
        &site,
        call(
            &server,
            "web_crawl",
            json!({"url": site.url("/private/x"), "depth": 0}),
        ),
    )
    .await;
    assert_refused(
        &answer,
        "robots_refused",
        "robots-disallow",
        json!("respect-robots"),
    );
    assert!(
        answer.text().contains("Disallow: /private"),
        "{}",
        answer.text()
    );
    let open = call(
        &server,
        "web_crawl",
        json!({"url": site.url("/open"), "depth": 0}),
    )
    .await;
    assert!(!open.is_error(), "{}", open.text());
    assert!(
        open.text()
            .ends_with(&format!("{}  200  75 bytes  Open", site.url("/open"))),
        "{}",
        open.text()
    );
}

/// A value of the wrong JSON type for a parameter whose schema says `kind`.
fn wrong_value(kind: &str) -> Value {
    match kind {
        "string" => json!(42),
        "integer" => json!("seven"),
        "boolean" => json!("yes"),
        _ => json!({"nested": [1]}),
    }
}

/// A valid value for a parameter whose schema says `kind`.
fn good_value(kind: &str, site: &Site) -> Value {
    match kind {
        "string" => json!(site.url("/good")),
        "integer" => json!(1),
        "boolean" => json!(false),
        _ => Value::Null,
    }
}

#[tokio::test]
async fn wrong_missing_and_extra_arguments_are_refused_for_every_tool() {
    let site = Site::start(|_| html(GOOD.as_bytes())).await;
    let server = server(config(json!({})));
    let tools = Web::from_config(&config(json!({})))
        .expect("a config")
        .tools_list();
    assert!(tools.len() >= 3, "{tools:?}");
    for (tool, schema) in tools {
        let properties = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let required: Vec<String> = schema["required"]
            .as_array()
            .map(|names| {
                names
                    .iter()
                    .filter_map(|n| n.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let complete: Map<String, Value> = required
            .iter()
            .map(|name| {
                let kind = properties[name]["type"].as_str().unwrap_or_default();
                (name.clone(), good_value(kind, &site))
            })
            .collect();
        let expect = |result: &ToolResult, rule: &str, parameter: &str| {
            let data = result
                .structured_content()
                .unwrap_or_else(|| panic!("{tool}: {}", result.text()));
            assert!(result.is_error(), "{tool}");
            assert_eq!(data["kind"], "bad_arguments", "{tool}: {}", result.text());
            assert_eq!(data["rule"], rule, "{tool}: {}", result.text());
            assert_eq!(data["parameter"], parameter, "{tool}: {}", result.text());
            assert!(
                result.text().starts_with(&format!("{tool}: "))
                    && result.text().contains(&format!("\"{parameter}\"")),
                "{}",
                result.text()
            );
        };
        for name in &required {
            let mut args = complete.clone();
            args.remove(name);
            let result = survives(&server, &site, call(&server, &tool, Value::Object(args))).await;
            expect(&result, "missing_parameter", name);
        }
        for (name, property) in &properties {
            let kind = property["type"].as_str().unwrap_or_default();
            let mut args = complete.clone();
            args.insert(name.clone(), wrong_value(kind));
            let result = survives(&server, &site, call(&server, &tool, Value::Object(args))).await;
            expect(&result, "wrong_type", name);
        }
        let mut args = complete.clone();
        args.insert("bogus".into(), json!("x".repeat(10 << 20)));
        let result = survives(&server, &site, call(&server, &tool, Value::Object(args))).await;
        expect(&result, "unknown_parameter", "bogus");
        assert!(
            result.text().len() < 8 << 10,
            "{tool}: the value is not quoted"
        );
    }
}

/// What the Web pack's tools list: each name and input schema.
trait ToolsList {
    fn tools_list(&self) -> Vec<(String, Value)>;
}

impl ToolsList for Web {
    fn tools_list(&self) -> Vec<(String, Value)> {
        use mcp_kit::Toolkit as _;
        self.tools()
            .into_iter()
            .map(|spec| (spec.name.to_string(), spec.input_schema.clone()))
            .collect()
    }
}

#[tokio::test]
async fn ten_megabyte_arguments_are_refused_without_being_echoed() {
    let site = Site::start(|_| html(GOOD.as_bytes())).await;
    let server = server(config(json!({})));
    let huge = "a".repeat(10 << 20);
    let url = format!("http://example.com/{huge}");
    let answer = survives(
        &server,
        &site,
        call(&server, "web_fetch", json!({"url": url})),
    )
    .await;
    let (kind, rule, _) = error_of(&answer);
    assert_eq!(
        (kind.as_str(), rule.as_str()),
        ("bad_url", "url-too-long"),
        "{}",
        &answer.text()[..answer.text().len().min(300)]
    );
    assert!(
        answer.text().len() < 8 << 10,
        "the refusal quotes a bounded URL: {} bytes",
        answer.text().len()
    );

    let answer = survives(
        &server,
        &site,
        call(
            &server,
            "web_grep",
            json!({"url": site.url("/good"), "pattern": huge}),
        ),
    )
    .await;
    assert!(answer.is_error());
    let data = answer.structured_content().expect("structured content");
    assert_eq!(data["kind"], "bad_arguments");
    assert_eq!(data["parameter"], "pattern");
    assert!(
        answer.text().len() < 8 << 10,
        "{} bytes",
        answer.text().len()
    );
}

/// A newline-delimited JSON-RPC client of the pack over in-memory pipes.
struct Client {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl Client {
    /// Serves `server` on pipes and completes the legacy handshake.
    async fn start(server: Server) -> Client {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(server.serve_io(server_read, server_write));
        let (read, write) = tokio::io::split(client_end);
        let mut client = Client {
            write,
            lines: BufReader::new(read).lines(),
        };
        client
            .send(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"battery","version":"1"}}}"#)
            .await;
        let init = client.recv().await;
        assert_eq!(init["id"], 0, "{init}");
        client
            .send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        client
    }

    /// Sends one line of bytes.
    async fn send(&mut self, line: &[u8]) {
        self.write.write_all(line).await.expect("the pipe is open");
        self.write.write_all(b"\n").await.expect("the pipe is open");
    }

    /// The next message the server sends.
    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(HANG_GUARD, self.lines.next_line())
            .await
            .expect("the server answered")
            .expect("the pipe is readable")
            .expect("the server is still serving");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }
}

#[tokio::test]
async fn malformed_json_rpc_shapes_are_answered_and_serving_goes_on() {
    let site = Site::start(|_| vec![Step::Hang]).await;
    let server = server(config(json!({})));
    let mut client = Client::start(server).await;
    // A good call in flight all along: the hung page keeps it busy until its
    // headers-timeout, while every bad line is answered.
    let slow = json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call",
        "params": {"name": "web_fetch", "arguments": {"url": site.url("/hang")}}});
    client.send(slow.to_string().as_bytes()).await;

    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_argument = format!(
        r#"{{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{{"name":"web_fetch","arguments":{{"url":{}"x"{}}}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let huge_argument = format!(
        r#"{{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{{"name":"web_fetch","arguments":{{"url":"http://example.com/{}"}}}}}}"#,
        "a".repeat(10 << 20)
    );
    // (line, the id answered, the code; None for a tool error answer)
    let cases: Vec<(Vec<u8>, Value, Option<i64>)> = vec![
        (b"not json".to_vec(), Value::Null, Some(-32700)),
        (b"{\"jsonrpc\":\"2.0\",".to_vec(), Value::Null, Some(-32700)),
        (b"[]".to_vec(), Value::Null, Some(-32600)),
        (b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]".to_vec(), Value::Null, Some(-32600)),
        (b"42".to_vec(), Value::Null, Some(-32600)),
        (b"\"text\"".to_vec(), Value::Null, Some(-32600)),
        (br#"{"jsonrpc":"2.0","id":1}"#.to_vec(), json!(1), Some(-32600)),
        (br#"{"jsonrpc":"2.0","id":2,"method":7}"#.to_vec(), json!(2), Some(-32600)),
        (br#"{"jsonrpc":"1.0","id":3,"method":"tools/list"}"#.to_vec(), json!(3), Some(-32600)),
        (br#"{"jsonrpc":"2.0","id":{"an":"object"},"method":"tools/list"}"#.to_vec(), Value::Null, Some(-32600)),
        (br#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#.to_vec(), json!(4), Some(-32602)),
        (br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{}}}"#.to_vec(), json!(5), Some(-32602)),
        (br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"web_fetch","arguments":5}}"#.to_vec(), json!(6), Some(-32602)),
        (br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#.to_vec(), json!(7), Some(-32602)),
        (br#"{"jsonrpc":"2.0","id":8,"method":"no/such/method"}"#.to_vec(), json!(8), Some(-32601)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"web_fetch\",\"arguments\":{\"url\":\"\xff\xfe\"}}}".to_vec(), json!(9), Some(-32700)),
        (deep.into_bytes(), Value::Null, Some(-32700)),
        (deep_argument.into_bytes(), json!(12), Some(-32700)),
        (huge_argument.into_bytes(), json!(13), None),
    ];
    let mut early = Vec::new();
    for (line, id, code) in cases {
        client.send(&line).await;
        let mut answer = client.recv().await;
        while answer["id"] == "slow" {
            early.push(answer);
            answer = client.recv().await;
        }
        let shown = String::from_utf8_lossy(&line[..line.len().min(120)]).into_owned();
        assert_eq!(answer.get("id"), Some(&id), "{shown}: {answer}");
        match code {
            Some(code) => {
                assert_eq!(answer["error"]["code"], code, "{shown}: {answer}");
                let message = answer["error"]["message"].as_str().unwrap_or_default();
                assert!(
                    !message.is_empty() && message.len() < 8 << 10,
                    "{shown}: a short message: {}",
                    message.len()
                );
            }
            None => {
                assert_eq!(answer["result"]["isError"], true, "{shown}: {answer}");
                assert_eq!(
                    answer["result"]["structuredContent"]["kind"], "bad_url",
                    "{shown}"
                );
            }
        }
    }
    // The slow call's own answer: the head never came.
    let slow = match early.pop() {
        Some(answer) => answer,
        None => client.recv().await,
    };
    assert_eq!(slow["id"], "slow", "{slow}");
    assert_eq!(
        slow["result"]["structuredContent"]["rule"], "headers-timeout",
        "{slow}"
    );
    // And the server still serves.
    client
        .send(br#"{"jsonrpc":"2.0","id":20,"method":"tools/list"}"#)
        .await;
    let list = client.recv().await;
    assert_eq!(list["id"], 20, "{list}");
    assert!(list["result"]["tools"].is_array(), "{list}");
}
