//! The floor, adversarially: a canary server that must record no hit and a raw
//! listener that must receive no connection and no byte, for http and https, direct
//! and through redirects from a permitted origin.

use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;

use mcp_web_core::ErrorKind;
use mcp_web_core::key::ConfigKey;
use mcp_web_core::page::PageText;
use mcp_web_core::transport::{NetworkOptions, StaticResolver};
use mcp_web_core::url::CheckedUrl;
use tokio_util::sync::CancellationToken;

use crate::support::*;

const V6_LOOPBACK: IpAddr = IpAddr::V6(Ipv6Addr::LOCALHOST);

/// How many URLs [`Targets::urls`] lists; every test over them checks this many.
const URL_CASES: usize = 13;

/// Everything a refused request could reach, on 127.0.0.1 and ::1.
struct Targets {
    canary: Server,
    canary_tls: Server,
    canary6: Server,
    canary6_tls: Server,
    raw: RawListener,
    raw6: RawListener,
    _cert: TestCert,
}

impl Targets {
    async fn start() -> Targets {
        let cert = TestCert::new(&["127.0.0.1", "::1", "loop.test", "localhost"]);
        Targets {
            canary: Server::start(REFUSED, html("<title>canary</title>secret")).await,
            canary_tls: Server::start_tls(REFUSED, &cert, html("secret")).await,
            canary6: Server::start(V6_LOOPBACK, html("secret")).await,
            canary6_tls: Server::start_tls(V6_LOOPBACK, &cert, html("secret")).await,
            raw: RawListener::start(REFUSED).await,
            raw6: RawListener::start(V6_LOOPBACK).await,
            _cert: cert,
        }
    }

    /// URLs that reach the targets only if the floor fails: [`URL_CASES`] of them.
    fn urls(&self) -> Vec<String> {
        let (c, ct, c6, c6t, r, r6) = (
            self.canary.port(),
            self.canary_tls.port(),
            self.canary6.port(),
            self.canary6_tls.port(),
            self.raw.port(),
            self.raw6.port(),
        );
        vec![
            format!("http://127.0.0.1:{c}/"),
            format!("https://127.0.0.1:{ct}/"),
            format!("http://[::1]:{c6}/"),
            format!("https://[::1]:{c6t}/"),
            format!("http://loop.test:{c}/"),
            format!("https://loop.test:{ct}/"),
            format!("http://loop6.test:{c6}/"),
            format!("http://[::ffff:127.0.0.1]:{c}/"),
            format!("https://[::ffff:127.0.0.1]:{ct}/"),
            format!("http://127.0.0.1:{r}/"),
            format!("https://127.0.0.1:{r}/"),
            format!("http://[::1]:{r6}/"),
            format!("https://loop.test:{r}/"),
        ]
    }

    fn assert_untouched(&self, case: &str) {
        for (name, server) in [
            ("canary", &self.canary),
            ("canary_tls", &self.canary_tls),
            ("canary6", &self.canary6),
            ("canary6_tls", &self.canary6_tls),
        ] {
            assert_eq!(server.connections(), 0, "{case}: {name} was connected to");
            assert_eq!(server.hits(), 0, "{case}: {name} was hit");
        }
        for (name, raw) in [("raw", &self.raw), ("raw6", &self.raw6)] {
            assert_eq!(raw.connections(), 0, "{case}: {name} got a connection");
            assert_eq!(raw.bytes(), 0, "{case}: {name} got bytes");
        }
    }
}

fn resolver() -> Arc<StaticResolver> {
    Arc::new(
        StaticResolver::new()
            .with("loop.test", [REFUSED])
            .with("loop6.test", [V6_LOOPBACK])
            .with("site.test", [PERMITTED]),
    )
}

#[tokio::test]
async fn default_policy_refuses_loopback_before_any_packet() {
    let targets = Targets::start().await;
    let fetcher = fetcher_with(default_policy(), resolver(), quick_options());
    let urls = targets.urls();
    assert_eq!(urls.len(), URL_CASES);
    let (mut refused_on_shape, mut blocked) = (0, 0);
    for url in &urls {
        match CheckedUrl::parse(url) {
            // Refused on shape: nothing could be sent. Only a v4-mapped literal may be.
            Err(bad) => {
                assert!(url.contains("::ffff:"), "{url}: {bad}");
                refused_on_shape += 1;
            }
            Ok(checked) => {
                let err = fetcher
                    .fetch(&checked, &CancellationToken::new())
                    .await
                    .unwrap_err();
                assert_eq!(err.kind(), ErrorKind::Blocked, "{url}: {err}");
                assert!(err.to_string().contains("allow-loopback"), "{url}: {err}");
                blocked += 1;
            }
        }
        targets.assert_untouched(url);
    }
    // Every spelling but perhaps the v4-mapped ones reached the guard and was refused
    // there.
    let mapped = urls.iter().filter(|u| u.contains("::ffff:")).count();
    assert!(
        blocked >= URL_CASES - mapped,
        "every other URL reached the guard"
    );
    assert!(refused_on_shape <= mapped);
    assert_eq!(blocked + refused_on_shape, URL_CASES);
}

/// The rig works: the same fetcher reaches the canary once loopback is allowed, so
/// the refusals above are the floor's doing.
#[tokio::test]
async fn the_canary_answers_when_loopback_is_allowed() {
    let targets = Targets::start().await;
    let policy = mcp_web_core::guard::Policy {
        allow_loopback: true,
        ..default_policy()
    };
    let fetcher = fetcher_with(policy, resolver(), quick_options());
    let url = CheckedUrl::parse(&format!("http://loop.test:{}/", targets.canary.port())).unwrap();
    let page = fetcher
        .fetch(&url, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(PageText::new(&page).title(), Some("canary"));
    assert_eq!(page.peer.addr(), targets.canary.addr);
    assert_eq!(targets.canary.hits(), 1);
}

#[tokio::test]
async fn redirects_from_a_permitted_origin_are_rechecked_every_hop() {
    let targets = Targets::start().await;
    let cert = TestCert::new(&["site.test"]);
    let mut locations = targets.urls();
    locations.push("file:///etc/passwd".to_owned());
    let table = Arc::new(locations.clone());
    let handler: Handler = {
        let table = table.clone();
        Arc::new(move |req: &Req| {
            let index = req.path.trim_start_matches("/r/").parse::<usize>().ok();
            match index.and_then(|i| table.get(i)) {
                Some(location) => redirect(302, location),
                None => vec![Step::Write(response(
                    200,
                    &[("content-type", "text/plain")],
                    b"landed",
                ))],
            }
        })
    };
    let origin = Server::start(PERMITTED, handler.clone()).await;
    let origin_tls = Server::start_tls(PERMITTED, &cert, handler).await;
    let options = mcp_web_core::fetch::FetchOptions {
        network: NetworkOptions {
            ca_file: Some(cert.pem_path.clone()),
            ..quick_options().network
        },
        ..quick_options()
    };
    let fetcher = fetcher_with(permit_127_0_0_2(), resolver(), options);
    let cancel = CancellationToken::new();

    // The origin itself is reachable, over both schemes.
    for base in [
        format!("http://site.test:{}", origin.port()),
        format!("https://site.test:{}", origin_tls.port()),
    ] {
        let page = fetcher
            .fetch(
                &CheckedUrl::parse(&format!("{base}/plain")).unwrap(),
                &cancel,
            )
            .await
            .unwrap();
        assert_eq!(page.text(), "landed");
        assert_eq!(page.peer.addr().ip(), PERMITTED);
    }

    let mut checked_cases = 0;
    for (i, location) in locations.iter().enumerate() {
        for base in [
            format!("http://site.test:{}", origin.port()),
            format!("https://site.test:{}", origin_tls.port()),
        ] {
            let start = CheckedUrl::parse(&format!("{base}/r/{i}")).unwrap();
            let err = fetcher.fetch(&start, &cancel).await.unwrap_err();
            let case = format!("{start} -> {location}");
            let downgrade = base.starts_with("https") && location.starts_with("http:");
            let want = if location.starts_with("file:") || downgrade {
                ErrorKind::BadUrl
            } else {
                ErrorKind::Blocked
            };
            // A v4-mapped literal may be refused on shape or by the guard: both stop it.
            let mapped = location.contains("::ffff:");
            assert!(
                err.kind() == want || (mapped && err.kind() == ErrorKind::BadUrl),
                "{case}: {err}"
            );
            targets.assert_untouched(&case);
            checked_cases += 1;
        }
    }
    assert_eq!(
        checked_cases,
        2 * (URL_CASES + 1),
        "every listed location was checked from both origins"
    );

    // https → http is refused even to the permitted origin itself.
    let downgrade = Arc::new(format!("http://site.test:{}/landing", origin.port()));
    let d = downgrade.clone();
    let origin_tls2 =
        Server::start_tls(PERMITTED, &cert, Arc::new(move |_: &Req| redirect(301, &d))).await;
    let before = origin.hits();
    let err = fetcher
        .fetch(
            &CheckedUrl::parse(&format!("https://site.test:{}/", origin_tls2.port())).unwrap(),
            &cancel,
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadUrl);
    assert_eq!(err.rule(), "https-downgrade", "{err}");
    assert_eq!(origin.hits(), before, "the http origin must not be asked");
}

/// An IPv6 `allow-cidrs` block never admits an IPv4 address in a mapped spelling, as
/// a literal or as a name's AAAA answer: the canary on 127.0.0.1 records no hit. An
/// IPv4 block covering the address does admit it, so the refusal is the rule's doing.
#[tokio::test]
async fn an_ipv6_block_never_admits_a_mapped_ipv4_address() {
    let targets = Targets::start().await;
    let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
    let resolver = Arc::new(StaticResolver::new().with("mapped.test", [mapped]));
    let (c, ct) = (targets.canary.port(), targets.canary_tls.port());
    let urls = [
        format!("http://[::ffff:127.0.0.1]:{c}/"),
        format!("https://[::ffff:127.0.0.1]:{ct}/"),
        format!("http://mapped.test:{c}/"),
        format!("http://[::ffff:7f00:1]:{c}/"),
    ];
    for blocks in [&["::/0"][..], &["::ffff:0:0/96"], &["::ffff:127.0.0.0/104"]] {
        let policy = mcp_web_core::guard::Policy {
            allow_cidrs: blocks.iter().map(|b| b.parse().unwrap()).collect(),
            ..default_policy()
        };
        let fetcher = fetcher_with(policy, resolver.clone(), quick_options());
        for url in &urls {
            let checked = CheckedUrl::parse(url).unwrap();
            let err = fetcher
                .fetch(&checked, &CancellationToken::new())
                .await
                .unwrap_err();
            let case = format!("{blocks:?} {url}");
            assert_eq!(err.kind(), ErrorKind::Blocked, "{case}: {err}");
            assert!(
                err.to_string()
                    .contains(r#"add an "allow-cidrs" entry covering 127.0.0.1."#),
                "{case}: {err}"
            );
            targets.assert_untouched(&case);
        }
    }
    let policy = mcp_web_core::guard::Policy {
        allow_cidrs: vec!["127.0.0.1/32".parse().unwrap()],
        ..default_policy()
    };
    let fetcher = fetcher_with(policy, resolver, quick_options());
    let url = CheckedUrl::parse(&format!("http://mapped.test:{c}/")).unwrap();
    let page = fetcher
        .fetch(&url, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(PageText::new(&page).title(), Some("canary"));
    assert_eq!(targets.canary.hits(), 1);
}

/// A port of the Fetch standard's bad-port list is refused before any name is resolved
/// or socket opened, even where the policy permits the address, directly and through a
/// redirect; `allow-ports` re-opens exactly the port it names.
#[tokio::test]
async fn a_bad_port_is_refused_before_any_lookup_or_packet() {
    // A listener on the bad port, when the port is free on this machine.
    let raw = RawListener::start_at(REFUSED, 6667).await;
    let resolver = Arc::new(
        StaticResolver::new()
            .with("loop.test", [REFUSED])
            .with("site.test", [PERMITTED]),
    );
    let permissive = mcp_web_core::guard::Policy {
        allow_loopback: true,
        ..default_policy()
    };
    let fetcher = fetcher_with(permissive.clone(), resolver.clone(), quick_options());
    for url in [
        "http://loop.test:6667/",
        "http://127.0.0.1:6667/",
        "https://loop.test:6667/",
    ] {
        let err = fetcher
            .fetch(&CheckedUrl::parse(url).unwrap(), &CancellationToken::new())
            .await
            .unwrap_err();
        assert_eq!(
            (err.kind(), err.rule()),
            (ErrorKind::BadUrl, "bad-port"),
            "{url}: {err}"
        );
        assert_eq!(err.config_key(), Some(ConfigKey::AllowPorts));
        assert!(err.to_string().contains("port 6667"), "{err}");
    }
    assert_eq!(
        resolver.lookups(),
        0,
        "a bad port is refused before resolving"
    );
    if let Some(raw) = &raw {
        assert_eq!((raw.connections(), raw.bytes()), (0, 0));
    }
    // Through a redirect from a permitted origin.
    let origin = Server::start(
        PERMITTED,
        Arc::new(|_: &Req| redirect(302, "http://loop.test:6667/")),
    )
    .await;
    let err = fetcher
        .fetch(
            &CheckedUrl::parse(&format!("http://site.test:{}/", origin.port())).unwrap(),
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.rule(), "bad-port", "{err}");
    assert_eq!(origin.hits(), 1);
    if let Some(raw) = &raw {
        assert_eq!((raw.connections(), raw.bytes()), (0, 0));
    }
    // allow-ports names 6667 only: another bad port stays refused (the guard's own
    // tests show 6667 re-opened).
    let open = mcp_web_core::guard::Policy {
        allow_ports: vec![6667],
        ..permissive
    };
    let fetcher = fetcher_with(open, resolver.clone(), quick_options());
    let err = fetcher
        .fetch(
            &CheckedUrl::parse("http://loop.test:6666/").unwrap(),
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.rule(), "bad-port", "{err}");
}
