//! The guarded fetch against loopback servers: pooling and DNS rebinding, the proxy,
//! deadlines by phase, redirects, content decoding, caps and charsets.

use std::sync::Arc;
use std::time::Duration;

use mcp_web_core::ErrorKind;
use mcp_web_core::error::{Error, Phase};
use mcp_web_core::fetch::{FetchOptions, Fetcher, Truncation};
use mcp_web_core::key::ConfigKey;
use mcp_web_core::media::Kind;
use mcp_web_core::page::PageText;
use mcp_web_core::transport::{NetworkOptions, ProxyUrl, StaticResolver};
use mcp_web_core::url::CheckedUrl;
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

use crate::support::*;

fn url(s: &str) -> CheckedUrl {
    CheckedUrl::parse(s).expect("a valid test URL")
}

fn site_resolver() -> Arc<StaticResolver> {
    Arc::new(StaticResolver::new().with("site.test", [PERMITTED]))
}

/// A fetcher permitting 127.0.0.2, resolving site.test to it.
fn site_fetcher(options: FetchOptions) -> Fetcher {
    fetcher_with(permit_127_0_0_2(), site_resolver(), options)
}

async fn get(fetcher: &Fetcher, u: &str) -> Result<mcp_web_core::fetch::Page, Error> {
    fetcher.fetch(&url(u), &CancellationToken::new()).await
}

/// Fetches `http://site.test:PORT/` (the test resolver's name for 127.0.0.2) with `options`.
async fn get_site(options: FetchOptions, port: u16) -> Result<mcp_web_core::fetch::Page, Error> {
    get(&site_fetcher(options), &format!("http://site.test:{port}/")).await
}

async fn compress(kind: &str, data: &[u8]) -> Vec<u8> {
    use async_compression::tokio::write::{BrotliEncoder, GzipEncoder, ZlibEncoder, ZstdEncoder};
    let mut out = Vec::new();
    match kind {
        "gzip" => {
            let mut e = GzipEncoder::new(&mut out);
            e.write_all(data).await.expect("in-memory compression");
            e.shutdown().await.expect("in-memory compression");
        }
        "br" => {
            let mut e = BrotliEncoder::new(&mut out);
            e.write_all(data).await.expect("in-memory compression");
            e.shutdown().await.expect("in-memory compression");
        }
        "deflate" => {
            let mut e = ZlibEncoder::new(&mut out);
            e.write_all(data).await.expect("in-memory compression");
            e.shutdown().await.expect("in-memory compression");
        }
        "zstd" => {
            let mut e = ZstdEncoder::new(&mut out);
            e.write_all(data).await.expect("in-memory compression");
            e.shutdown().await.expect("in-memory compression");
        }
        other => panic!("{other}"),
    }
    out
}

#[tokio::test]
async fn dns_rebinding_cannot_retarget_a_pooled_connection_nor_a_new_one() {
    // The name answers the permitted 127.0.0.2 first, then the refused 127.0.0.1.
    let server = Server::start(PERMITTED, html("<title>ok</title>fine")).await;
    let Some(raw) = RawListener::start_at(REFUSED, server.port()).await else {
        return; // the port is taken on 127.0.0.1; nothing to prove against
    };
    let resolver = Arc::new(
        StaticResolver::new().answers_for("rebind.test", vec![vec![PERMITTED], vec![REFUSED]]),
    );
    let fetcher = fetcher_with(permit_127_0_0_2(), resolver.clone(), quick_options());
    let u = format!("http://rebind.test:{}/", server.port());
    for _ in 0..3 {
        let page = get(&fetcher, &u).await.unwrap();
        assert_eq!(page.peer.addr(), server.addr);
    }
    assert_eq!(
        resolver.lookups(),
        1,
        "the pooled connection is reused without resolving"
    );
    assert_eq!(server.connections(), 1);
    assert_eq!(server.hits(), 3);

    // A new pool resolves again, gets the refused address, and never connects.
    let fresh = fetcher_with(permit_127_0_0_2(), resolver.clone(), quick_options());
    let err = get(&fresh, &u).await.unwrap_err();
    let Error::Blocked(blocked) = &err else {
        panic!("{err}")
    };
    assert_eq!(blocked.address(), REFUSED);
    assert_eq!(blocked.host(), "rebind.test");
    assert_eq!(resolver.lookups(), 2);
    assert_eq!((raw.connections(), raw.bytes()), (0, 0));
}

#[tokio::test]
async fn a_name_with_refused_and_permitted_addresses_uses_the_permitted_one() {
    let server = Server::start(PERMITTED, html("x")).await;
    let raw = RawListener::start_at(REFUSED, server.port()).await;
    let resolver = Arc::new(StaticResolver::new().with("mixed.test", [REFUSED, PERMITTED]));
    let fetcher = fetcher_with(permit_127_0_0_2(), resolver, quick_options());
    let page = get(&fetcher, &format!("http://mixed.test:{}/", server.port()))
        .await
        .unwrap();
    assert_eq!(page.peer.addr().ip(), PERMITTED);
    if let Some(raw) = raw {
        assert_eq!(raw.connections(), 0);
    }
    // Only refused addresses: the error names the first refusal.
    let resolver = Arc::new(
        StaticResolver::new().with("bad.test", [REFUSED, std::net::Ipv6Addr::LOCALHOST.into()]),
    );
    let fetcher = fetcher_with(permit_127_0_0_2(), resolver, quick_options());
    let err = get(&fetcher, "http://bad.test:2/").await.unwrap_err();
    let Error::Blocked(blocked) = &err else {
        panic!("{err}")
    };
    assert_eq!(blocked.address(), REFUSED);
}

#[tokio::test]
async fn proxy_is_asked_for_the_vetted_address_never_the_name() {
    let cert = TestCert::new(&["site.test"]);
    let server = Server::start(PERMITTED, html("<title>via proxy</title>tunnelled")).await;
    let server_tls =
        Server::start_tls(PERMITTED, &cert, html("<title>tls via proxy</title>x")).await;
    let proxy = Proxy::start().await;
    let resolver = Arc::new(
        StaticResolver::new()
            .with("site.test", [PERMITTED])
            .with("inside.test", [REFUSED]),
    );
    let options = FetchOptions {
        network: NetworkOptions {
            proxy: Some(ProxyUrl::parse(&format!("http://{}", proxy.addr)).unwrap()),
            ca_file: Some(cert.pem_path.clone()),
            ..quick_options().network
        },
        ..quick_options()
    };
    let fetcher = fetcher_with(permit_127_0_0_2(), resolver, options);

    let page = get(&fetcher, &format!("http://site.test:{}/a", server.port()))
        .await
        .unwrap();
    assert_eq!(PageText::new(&page).title(), Some("via proxy"));
    assert!(page.peer.via_proxy());
    assert_eq!(page.peer.addr(), server.addr);
    assert_eq!(
        server.requests()[0].header("host"),
        Some(format!("site.test:{}", server.port()).as_str())
    );

    // TLS through the tunnel: SNI and certificate checks use the name.
    let page = get(
        &fetcher,
        &format!("https://site.test:{}/", server_tls.port()),
    )
    .await
    .unwrap();
    assert_eq!(PageText::new(&page).title(), Some("tls via proxy"));

    assert_eq!(
        proxy.lines(),
        vec![
            format!("CONNECT 127.0.0.2:{} HTTP/1.1", server.port()),
            format!("CONNECT 127.0.0.2:{} HTTP/1.1", server_tls.port()),
        ]
    );

    // A target resolving to a refused address never reaches the proxy.
    let before = proxy.connections();
    let err = get(&fetcher, "http://inside.test:8080/").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Blocked, "{err}");
    let err = get(&fetcher, "http://127.0.0.1:8080/").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Blocked, "{err}");
    assert_eq!(proxy.connections(), before);
}

#[tokio::test]
async fn headers_deadline_names_its_phase_and_key() {
    let server = Server::start(PERMITTED, Arc::new(|_: &Req| vec![Step::Hang])).await;
    let options = FetchOptions {
        headers_timeout: Duration::from_millis(300),
        ..quick_options()
    };
    let err = get_site(options, server.port()).await.unwrap_err();
    let Error::Deadline(d) = &err else {
        panic!("{err}")
    };
    assert_eq!(
        (d.phase, d.key),
        (Phase::ReadingHeaders, ConfigKey::HeadersTimeout)
    );
    assert!(err.to_string().contains("while reading headers"), "{err}");
    assert_eq!(err.config_key(), Some(ConfigKey::HeadersTimeout));
}

#[tokio::test]
async fn body_deadline_keeps_the_head_and_says_so() {
    // The head and the start of a long body in one write, ending inside a line; then
    // nothing more: only the deadline can end the body.
    const SENT: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 100000\r\n\r\nfirst line\nsecond line\nthird line\nfourth";
    let server = Server::start(
        PERMITTED,
        Arc::new(|_: &Req| vec![Step::Write(SENT.to_vec()), Step::Hang]),
    )
    .await;
    let options = FetchOptions {
        timeout: Duration::from_secs(2),
        ..quick_options()
    };
    let page = get_site(options, server.port()).await.unwrap();
    assert_eq!(
        page.truncated,
        Some(Truncation::Deadline {
            key: ConfigKey::Timeout,
            limit: Duration::from_secs(2)
        })
    );
    assert_eq!(server.written(), SENT.len(), "all was sent before the cut");
    let answer = PageText::new(&page).render(40_000, "web_grep");
    assert!(answer.ends_with("first line\nsecond line\nthird line\n\n[truncated: kept the first 33 characters because the timeout of 2 s ran out while reading the body; the rest of the page was not fetched; raise timeout to wait longer]"), "{answer}");
}

#[tokio::test]
async fn connect_deadline_names_its_phase_and_key() {
    // A listener whose accept queue is full: the kernel drops further SYNs, so the
    // connect hangs. Everything on 127.0.0.2.
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket
        .bind(&std::net::SocketAddr::new(PERMITTED, 0).into())
        .unwrap();
    socket.listen(0).unwrap();
    let addr = socket.local_addr().unwrap().as_socket().unwrap();
    let filler = || socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None);
    // The first filler connects blocking: when it returns, its handshake is done and
    // it waits in the (now full) accept queue. The others cover a kernel that queues
    // one more than the backlog; their SYNs are dropped once the queue is full.
    let first = filler().unwrap();
    #[expect(
        clippy::disallowed_methods,
        reason = "the test fills a loopback listener's accept queue"
    )]
    first.connect(&addr.into()).unwrap();
    let mut fillers = vec![first];
    for _ in 0..3 {
        let s = filler().unwrap();
        s.set_nonblocking(true).unwrap();
        #[expect(
            clippy::disallowed_methods,
            reason = "the test fills a loopback listener's accept queue"
        )]
        let _ = s.connect(&addr.into());
        fillers.push(s);
    }
    let options = FetchOptions {
        network: NetworkOptions {
            connect_timeout: Duration::from_millis(300),
            ..quick_options().network
        },
        ..quick_options()
    };
    let err = get_site(options, addr.port()).await.unwrap_err();
    let Error::Deadline(d) = &err else {
        panic!("{err}")
    };
    assert_eq!(
        (d.phase, d.key),
        (Phase::Connecting, ConfigKey::ConnectTimeout)
    );
    assert!(err.to_string().contains("while connecting"), "{err}");
    assert_eq!(
        err.url(),
        Some(format!("http://site.test:{}/", addr.port()).as_str())
    );
    drop(socket);
}

#[tokio::test]
async fn total_deadline_covers_the_whole_fetch() {
    let server = Server::start(PERMITTED, Arc::new(|_: &Req| vec![Step::Hang])).await;
    let options = FetchOptions {
        total_timeout: Duration::from_millis(300),
        ..quick_options()
    };
    let err = get_site(options, server.port()).await.unwrap_err();
    assert_eq!(err.config_key(), Some(ConfigKey::TotalTimeout), "{err}");
}

/// Cancelled while the server holds the answer, the fetch ends as `Cancelled` at
/// once: well before `headers-timeout` (5 s here) could end it as a deadline.
#[tokio::test]
async fn cancellation_stops_at_once() {
    let arrived = Arc::new(tokio::sync::Notify::new());
    let on_request = arrived.clone();
    let server = Server::start(
        PERMITTED,
        Arc::new(move |_: &Req| {
            on_request.notify_one();
            vec![Step::Hang]
        }),
    )
    .await;
    let fetcher = site_fetcher(quick_options());
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        arrived.notified().await;
        c.cancel();
    });
    let err = fetcher
        .fetch(
            &url(&format!("http://site.test:{}/", server.port())),
            &cancel,
        )
        .await
        .unwrap_err();
    assert_eq!(err, Error::Cancelled);
    assert_eq!(
        server.hits(),
        1,
        "cancelled while the request was being answered"
    );
}

fn hop_server_handler() -> Handler {
    Arc::new(|req: &Req| {
        let path = req.path.as_str();
        if let Some(n) = path.strip_prefix("/hop/") {
            let n: usize = n.parse().expect("hop number");
            return redirect(302, &format!("/hop/{}", n + 1));
        }
        match path {
            "/loop/a" => redirect(301, "/loop/b"),
            "/loop/b" => redirect(
                307,
                "http://site.test:PORT/loop/a"
                    .replace(
                        "PORT",
                        req.header("host")
                            .expect("host header")
                            .rsplit(':')
                            .next()
                            .expect("host header"),
                    )
                    .as_str(),
            ),
            "/noloc" => vec![Step::Write(response(
                302,
                &[("content-type", "text/html")],
                b"<title>Moved somewhere</title>",
            ))],
            "/emptyloc" => redirect(302, ""),
            "/binaryloc" => vec![Step::Write(
                b"HTTP/1.1 302 X\r\ncontent-length: 0\r\nlocation: http://\xff\xfe.test/\r\n\r\n"
                    .to_vec(),
            )],
            "/wideloc" => vec![Step::Write(response(
                302,
                &[("location", "http://\u{FF45}xample.com/")],
                b"",
            ))],
            "/start" => redirect(303, "/final"),
            _ => vec![Step::Write(response(
                200,
                &[("content-type", "text/html")],
                b"<title>Final</title><p>arrived</p>",
            ))],
        }
    })
}

#[tokio::test]
async fn redirects_chain_loop_and_missing_location() {
    let server = Server::start(PERMITTED, hop_server_handler()).await;
    let fetcher = site_fetcher(quick_options());
    let base = format!("http://site.test:{}", server.port());

    // Ten hops are followed; the eleventh is refused with the whole chain.
    let page = get(&fetcher, &format!("{base}/hop/1")).await;
    let err = page.unwrap_err();
    let Error::TooManyRedirects { chain, limit } = &err else {
        panic!("{err}")
    };
    assert_eq!(*limit, 10);
    assert_eq!(chain.len(), 12);
    assert_eq!(chain[0], format!("{base}/hop/1"));
    assert_eq!(chain[11], format!("{base}/hop/12"));
    assert_eq!(server.hits(), 11);

    let err = get(&fetcher, &format!("{base}/loop/a")).await.unwrap_err();
    assert_eq!(
        err,
        Error::RedirectLoop {
            chain: vec![
                format!("{base}/loop/a"),
                format!("{base}/loop/b"),
                format!("{base}/loop/a")
            ]
        }
    );

    // A redirect without a usable Location says so, naming which fault.
    for (path, rule, says) in [
        (
            "/noloc",
            "redirect-without-location",
            "the server answered with a redirect status but no Location header",
        ),
        (
            "/emptyloc",
            "redirect-empty-location",
            "its Location header is empty",
        ),
        (
            "/binaryloc",
            "redirect-location-not-text",
            "its Location header holds bytes that are not text (not UTF-8)",
        ),
    ] {
        let err = get(&fetcher, &format!("{base}{path}")).await.unwrap_err();
        assert_eq!((err.kind(), err.rule()), (ErrorKind::BadUrl, rule), "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "could not follow the redirect from {base}{path}: {says}, so {}. No configuration key changes this.",
                if path == "/binaryloc" {
                    "it names no URL"
                } else {
                    "there is nowhere to go"
                }
            )
        );
    }
    // A Location in UTF-8 is read as text and checked like a first URL: the
    // full-width host is refused, named, and never resolved.
    let err = get(&fetcher, &format!("{base}/wideloc")).await.unwrap_err();
    assert_eq!(err.rule(), "obfuscated-host", "{err}");
    assert!(
        err.to_string().contains("the host '\u{FF45}xample.com'"),
        "{err}"
    );

    let page = get(&fetcher, &format!("{base}/start")).await.unwrap();
    assert!(page.redirected());
    assert_eq!(page.final_url.as_str(), format!("{base}/final"));
    assert_eq!(
        PageText::new(&page).render(40_000, "web_grep"),
        format!("# Final\nRetrieved from {base}/final\n\narrived")
    );
}

#[tokio::test]
async fn compressed_bodies_are_decoded() {
    let text = "line one\nline two — ünïcödé\n".repeat(50);
    let mut bodies = Vec::new();
    for enc in ["gzip", "br", "deflate", "zstd"] {
        bodies.push((enc, compress(enc, text.as_bytes()).await));
    }
    let bodies = Arc::new(bodies);
    let b = bodies.clone();
    let server = Server::start(
        PERMITTED,
        Arc::new(move |req: &Req| {
            let enc = req.path.trim_start_matches('/');
            let (_, body) = b.iter().find(|(e, _)| *e == enc).unwrap();
            assert!(req.header("accept-encoding").unwrap().contains(enc));
            vec![Step::Write(response(
                200,
                &[
                    ("content-type", "text/plain; charset=utf-8"),
                    ("content-encoding", enc),
                ],
                body,
            ))]
        }),
    )
    .await;
    let fetcher = site_fetcher(quick_options());
    for (enc, _) in bodies.iter() {
        let page = get(
            &fetcher,
            &format!("http://site.test:{}/{enc}", server.port()),
        )
        .await
        .unwrap();
        assert_eq!(page.text(), text, "{enc}");
        assert_eq!(page.truncated, None);
    }
}

#[tokio::test]
async fn a_gzip_bomb_stops_at_max_bytes() {
    // An endless body of gzip members, each 1 MiB of one letter in about a kilobyte on
    // the wire: it never ends, so only max-bytes can stop the fetch (the request's
    // `timeout` would mark the page cut by a deadline instead).
    let member = compress("gzip", &vec![b'a'; 1 << 20]).await;
    let mut chunk = format!("{:x}\r\n", member.len()).into_bytes();
    chunk.extend_from_slice(&member);
    chunk.extend_from_slice(b"\r\n");
    let server = Server::start(
        PERMITTED,
        Arc::new(move |_: &Req| {
            vec![
                Step::Write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-encoding: gzip\r\ntransfer-encoding: chunked\r\n\r\n".to_vec(),
                ),
                Step::Repeat(chunk.clone()),
            ]
        }),
    )
    .await;
    let options = FetchOptions {
        max_bytes: 3 << 20,
        ..quick_options()
    };
    let page = get_site(options, server.port()).await.unwrap();
    assert_eq!(page.bytes, 3 << 20);
    assert_eq!(page.truncated, Some(Truncation::ByteCap { limit: 3 << 20 }));
    let answer = PageText::new(&page).render(usize::MAX, "web_grep");
    assert!(answer.ends_with(&format!(
        "[truncated: kept the first {} characters because the server's byte cap of {} bytes was reached; the rest of the page was not fetched; raise max-bytes to keep more]",
        3 << 20,
        3 << 20
    )), "{}", &answer[answer.len() - 300..]);
}

#[tokio::test]
async fn charsets_declared_only_in_meta() {
    let cyr = "<html><head><meta charset=\"windows-1251\"><title>Проверка</title></head><body><p>Съешь же ещё этих мягких французских булок</p></body></html>";
    let sjis = "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"><title>日本語</title></head><body><p>いろはにほへと ちりぬるを</p></body></html>";
    let cyr_bytes = encoding_rs::WINDOWS_1251.encode(cyr).0.into_owned();
    let sjis_bytes = encoding_rs::SHIFT_JIS.encode(sjis).0.into_owned();
    let server = Server::start(
        PERMITTED,
        Arc::new(move |req: &Req| {
            let body = if req.path == "/cyr" {
                &cyr_bytes
            } else {
                &sjis_bytes
            };
            vec![Step::Write(response(
                200,
                &[("content-type", "text/html")],
                body,
            ))]
        }),
    )
    .await;
    let fetcher = site_fetcher(quick_options());
    let page = get(&fetcher, &format!("http://site.test:{}/cyr", server.port()))
        .await
        .unwrap();
    assert_eq!(page.charset, "windows-1251");
    assert_eq!(page.kind, Kind::Html);
    assert_eq!(
        PageText::new(&page).render(40_000, "web_grep"),
        "# Проверка\n\nСъешь же ещё этих мягких французских булок"
    );
    let page = get(
        &fetcher,
        &format!("http://site.test:{}/sjis", server.port()),
    )
    .await
    .unwrap();
    assert_eq!(page.charset, "Shift_JIS");
    assert_eq!(
        PageText::new(&page).render(40_000, "web_grep"),
        "# 日本語\n\nいろはにほへと ちりぬるを"
    );
}

#[tokio::test]
async fn a_utf8_page_cut_inside_a_character_keeps_whole_characters_and_lines() {
    let line = "ééééé ααααα €€€\n"; // 2-, 2- and 3-byte characters
    let body = line.repeat(1000);
    let cap = 4096 + 1; // lands inside a character
    assert!(!body.is_char_boundary(cap));
    let server = Server::start(
        PERMITTED,
        always(response(
            200,
            &[("content-type", "text/plain; charset=utf-8")],
            body.as_bytes(),
        )),
    )
    .await;
    let options = FetchOptions {
        max_bytes: cap,
        ..quick_options()
    };
    let page = get_site(options, server.port()).await.unwrap();
    assert_eq!(page.bytes, cap);
    assert!(!page.text().contains('\u{fffd}'));
    let answer = PageText::new(&page).render(40_000, "web_grep");
    let (text, notice) = answer.rsplit_once("\n\n").unwrap();
    let kept = text
        .strip_prefix(&format!("# http://site.test:{}/\n\n", server.port()))
        .unwrap();
    assert!(kept.lines().all(|l| format!("{l}\n") == line), "{kept}");
    assert_eq!(
        notice,
        format!(
            "[truncated: kept the first {} characters because the server's byte cap of {cap} bytes was reached; the rest of the page was not fetched; raise max-bytes to keep more]",
            kept.chars().count()
        )
    );
    // Both caps cut: the answer cap cuts the page the byte cap had cut; both are named.
    let answer = PageText::new(&page).render(1000, "web_grep");
    let notice = answer.lines().last().unwrap();
    let kept = answer.rsplit_once("\n\n").unwrap().0;
    let kept = kept
        .strip_prefix(&format!("# http://site.test:{}/\n\n", server.port()))
        .unwrap();
    assert_eq!(
        notice,
        format!(
            "[truncated: kept the first {} characters because the answer cap of 1000 characters was reached; web_grep searches the whole page; raise max-chars to keep more; the server's byte cap of {cap} bytes had already cut the page, so raise max-bytes too]",
            kept.chars().count()
        )
    );
}

#[tokio::test]
async fn max_chars_cuts_the_answer_and_points_to_web_grep() {
    let body: String = (0..500).map(|i| format!("line {i}\n")).collect();
    let server = Server::start(
        PERMITTED,
        always(response(
            200,
            &[("content-type", "text/plain")],
            body.as_bytes(),
        )),
    )
    .await;
    let page = get_site(quick_options(), server.port()).await.unwrap();
    assert_eq!(page.truncated, None);
    let answer = PageText::new(&page).render(1000, "web_grep");
    let notice = answer.lines().last().unwrap();
    assert!(
        notice.starts_with("[truncated: kept the first "),
        "{notice}"
    );
    assert!(
        notice.contains("answer cap of 1000 characters")
            && notice.contains("web_grep")
            && notice.contains("max-chars"),
        "{notice}"
    );
    let kept = answer.split("\n\n").nth(1).unwrap();
    // The longest run of whole lines within 1000 characters.
    let mut want = String::new();
    for line in body.lines() {
        if want.len() + line.len() > 1000 {
            break;
        }
        want.push_str(line);
        want.push('\n');
    }
    assert_eq!(kept, want.trim_end());
    assert!(
        notice.contains(&format!(
            "kept the first {} characters",
            kept.chars().count()
        )),
        "{notice}"
    );
}

#[tokio::test]
async fn error_statuses_and_non_text_bodies() {
    let server = Server::start(
        PERMITTED,
        Arc::new(|req: &Req| {
            let r = match req.path.as_str() {
                "/404" => response(
                    404,
                    &[("content-type", "text/html")],
                    b"<html><title>Page not found</title>gone</html>",
                ),
                "/500" => response(
                    500,
                    &[("content-type", "text/plain")],
                    b"\n\n  database is down  \nstack",
                ),
                "/429" => response(429, &[("retry-after", "120")], b""),
                "/503" => response(
                    503,
                    &[("retry-after", "Wed, 21 Oct 2026 07:28:00 GMT")],
                    b"",
                ),
                "/png" => response(200, &[("content-type", "image/png")], b"\x89PNG\r\n\x1a\n"),
                "/bin" => response(200, &[], b"\x00\x01\x02binary"),
                "/json" => response(
                    200,
                    &[("content-type", "application/json")],
                    "{\"a\":\"é\"}".as_bytes(),
                ),
                _ => response(200, &[], b"<!doctype html><title>sniffed</title>"),
            };
            vec![Step::Write(r)]
        }),
    )
    .await;
    let fetcher = site_fetcher(quick_options());
    let base = format!("http://site.test:{}", server.port());
    let http = |e: Error| match e {
        Error::Http(h) => h,
        other => panic!("{other}"),
    };
    let h = http(get(&fetcher, &format!("{base}/404")).await.unwrap_err());
    assert_eq!(
        (h.status, h.excerpt.as_deref()),
        (404, Some("Page not found"))
    );
    let h = http(get(&fetcher, &format!("{base}/500")).await.unwrap_err());
    assert_eq!(
        (h.status, h.excerpt.as_deref()),
        (500, Some("database is down"))
    );
    let e = get(&fetcher, &format!("{base}/429")).await.unwrap_err();
    assert!(e.to_string().contains("retry after 120 seconds"), "{e}");
    let e = get(&fetcher, &format!("{base}/503")).await.unwrap_err();
    assert!(
        e.to_string()
            .contains("retry after Wed, 21 Oct 2026 07:28:00 GMT"),
        "{e}"
    );
    let e = get(&fetcher, &format!("{base}/png")).await.unwrap_err();
    let Error::Content(c) = &e else { panic!("{e}") };
    assert_eq!((c.content_type.as_str(), c.bytes), ("image/png", Some(8)));
    assert_eq!(
        get(&fetcher, &format!("{base}/bin"))
            .await
            .unwrap_err()
            .kind(),
        ErrorKind::Content
    );
    let page = get(&fetcher, &format!("{base}/json")).await.unwrap();
    assert_eq!(
        (page.kind, page.charset, page.text()),
        (Kind::Json, "UTF-8", "{\"a\":\"é\"}")
    );
    let page = get(&fetcher, &format!("{base}/sniff")).await.unwrap();
    assert_eq!(PageText::new(&page).title(), Some("sniffed"));
}

#[tokio::test]
async fn tls_needs_a_trusted_root_and_never_skips_verification() {
    let cert = TestCert::new(&["site.test"]);
    let server = Server::start_tls(PERMITTED, &cert, html("<title>secure</title>")).await;
    let u = format!("https://site.test:{}/", server.port());
    let err = get(&site_fetcher(quick_options()), &u).await.unwrap_err();
    assert_eq!(err.rule(), "tls", "{err}");
    assert_eq!(err.config_key(), Some(ConfigKey::CaFile));
    let trusted = FetchOptions {
        network: NetworkOptions {
            ca_file: Some(cert.pem_path.clone()),
            ..quick_options().network
        },
        ..quick_options()
    };
    let page = get(&site_fetcher(trusted.clone()), &u).await.unwrap();
    assert_eq!(PageText::new(&page).title(), Some("secure"));
    // The certificate names site.test, not other.test: the name is checked.
    let resolver = Arc::new(StaticResolver::new().with("other.test", [PERMITTED]));
    let err = get(
        &fetcher_with(permit_127_0_0_2(), resolver, trusted),
        &format!("https://other.test:{}/", server.port()),
    )
    .await
    .unwrap_err();
    assert_eq!(err.rule(), "tls", "{err}");
}

#[tokio::test]
async fn a_bad_ca_file_is_a_config_error() {
    let missing = FetchOptions {
        network: NetworkOptions {
            ca_file: Some("/nonexistent/ca.pem".into()),
            ..quick_options().network
        },
        ..quick_options()
    };
    let err = Fetcher::new(missing, permit_127_0_0_2(), site_resolver()).unwrap_err();
    assert_eq!(err.key(), Some("ca-file"));
}

#[tokio::test]
async fn https_negotiates_http2_and_reuses_the_connection() {
    use http_body_util::Full;
    use hyper::service::service_fn;
    use hyper_util::rt::{TokioExecutor, TokioIo};

    let cert = TestCert::new(&["site.test"]);
    let acceptor = cert.acceptor_with_alpn(vec![b"h2".to_vec()]);
    let listener = tokio::net::TcpListener::bind((PERMITTED, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let c = connections.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(stream).await else {
                    return;
                };
                let service = service_fn(|req: http::Request<hyper::body::Incoming>| async move {
                    let body = format!(
                        "<title>h2</title><p>{:?} {}</p>",
                        req.version(),
                        req.uri().path()
                    );
                    Ok::<_, std::convert::Infallible>(
                        http::Response::builder()
                            .header("content-type", "text/html")
                            .body(Full::new(bytes::Bytes::from(body)))
                            .expect("a response"),
                    )
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    let fetcher = site_fetcher(FetchOptions {
        network: NetworkOptions {
            ca_file: Some(cert.pem_path.clone()),
            ..quick_options().network
        },
        ..quick_options()
    });
    for path in ["/one", "/two"] {
        let page = get(&fetcher, &format!("https://site.test:{port}{path}"))
            .await
            .unwrap();
        assert_eq!(
            PageText::new(&page).body().join("\n"),
            format!("HTTP/2.0 {path}")
        );
        assert_eq!(page.peer.addr().ip(), PERMITTED);
    }
    assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 1);
}

/// A gzip body of 8 MiB of empty members decodes to nothing, so the decoded cap never
/// stops it: the bytes read from the wire are capped as well, and the page says the
/// byte cap cut it (it was read to its end before).
#[tokio::test]
async fn a_compressed_body_that_decodes_to_nothing_stops_at_the_byte_cap() {
    // Header, an empty final stored block, CRC-32 and size of nothing.
    const EMPTY_MEMBER: [u8; 20] = [
        0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    let body = EMPTY_MEMBER.repeat((8 << 20) / EMPTY_MEMBER.len());
    let server = Server::start(
        PERMITTED,
        always(response(
            200,
            &[("content-type", "text/plain"), ("content-encoding", "gzip")],
            &body,
        )),
    )
    .await;
    let cap = 64 * 1024;
    let options = FetchOptions {
        max_bytes: cap,
        ..quick_options()
    };
    let page = get_site(options, server.port()).await.unwrap();
    assert_eq!(page.truncated, Some(Truncation::ByteCap { limit: cap }));
    assert!(page.text().is_empty(), "{:?}", page.text());
}
