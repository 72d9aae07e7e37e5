//! The operator connector against loopback servers: a hyper-util client built on it
//! reaches 127.0.0.1, which the guarded fetch refuses by default; TLS uses the same
//! trust roots and `ca-file`; the connect budget names its phase and key.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use mcp_web_core::ErrorKind;
use mcp_web_core::error::{Error, Phase, TransportFailure};
use mcp_web_core::key::ConfigKey;
use mcp_web_core::transport::NetworkOptions;
use mcp_web_core::transport::operator::{OperatorConnector, OperatorPeer};
use mcp_web_core::transport::{CheckedPeer, ConnectError, StaticResolver};
use mcp_web_core::url::CheckedUrl;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::support::*;

const V6_LOOPBACK: IpAddr = IpAddr::V6(Ipv6Addr::LOCALHOST);

/// One handler on 127.0.0.1 and ::1 at the same port, so that `localhost` reaches it
/// whichever of its addresses the system resolver gives first, and never another
/// test's server.
async fn on_both_loopbacks(handler: Handler) -> (Server, Server) {
    for _ in 0..100 {
        let v6 = TcpListener::bind(SocketAddr::new(V6_LOOPBACK, 0))
            .await
            .expect("test rig");
        let port = v6.local_addr().expect("test rig").port();
        if let Ok(v4) = TcpListener::bind(SocketAddr::new(REFUSED, port)).await {
            return (
                Server::serve(v4, handler.clone(), None),
                Server::serve(v6, handler, None),
            );
        }
    }
    panic!("no port free on both 127.0.0.1 and ::1");
}

/// Ten seconds to connect, no extra roots.
fn options() -> NetworkOptions {
    NetworkOptions {
        connect_timeout: Duration::from_secs(10),
        ca_file: None,
        proxy: None,
        user_agent: String::new(),
    }
}

fn client(options: NetworkOptions) -> Client<OperatorConnector, Empty<Bytes>> {
    let connector = OperatorConnector::unguarded(options).expect("a valid TLS configuration");
    Client::builder(TokioExecutor::new()).build(connector)
}

/// The library error inside a hyper-util client error, found on its source chain.
fn library_error(e: &hyper_util::client::legacy::Error) -> Option<Error> {
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        if let Some(ConnectError(error)) = inner.downcast_ref::<ConnectError>() {
            return Some((**error).clone());
        }
        source = inner.source();
    }
    None
}

/// A GET through the operator connector reaches a server on 127.0.0.1, by address and
/// by the system resolver's `localhost`, while the guarded fetch with the default
/// policy refuses the very same URL without reaching it.
#[tokio::test]
async fn reaches_loopback_that_the_guarded_fetch_refuses() {
    let (server, server6) = on_both_loopbacks(html("<title>results</title>found")).await;
    let client = client(options());
    for (host, expected) in [
        ("127.0.0.1", vec![server.addr]),
        ("localhost", vec![server.addr, server6.addr]),
    ] {
        let uri: http::Uri = format!("http://{host}:{}/search?q=x", server.port())
            .parse()
            .unwrap();
        let response = client.get(uri).await.unwrap();
        assert_eq!(response.status(), 200, "{host}");
        let peer = response.extensions().get::<OperatorPeer>().copied();
        assert!(
            peer.is_some_and(|p| expected.contains(&p.addr())),
            "{host}: {peer:?}"
        );
        assert!(
            response.extensions().get::<CheckedPeer>().is_none(),
            "{host}: an operator connection never carries the guard's proof"
        );
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], b"<title>results</title>found");
    }
    assert_eq!(server.hits() + server6.hits(), 2);
    assert!(
        server
            .requests()
            .iter()
            .chain(&server6.requests())
            .all(|r| r.path == "/search?q=x")
    );

    let fetcher = fetcher_with(
        default_policy(),
        Arc::new(StaticResolver::new()),
        quick_options(),
    );
    let url = CheckedUrl::parse(&format!("http://127.0.0.1:{}/", server.port())).unwrap();
    let err = fetcher
        .fetch(&url, &CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Blocked, "{err}");
    assert_eq!(
        server.hits() + server6.hits(),
        2,
        "the guarded fetch never reached the server"
    );
}

/// TLS goes through the same configuration as the guarded transport: a certificate
/// is trusted only through webpki's roots or `ca-file`, never by skipping verification.
#[tokio::test]
async fn tls_trusts_the_ca_file_and_nothing_unverified() {
    let cert = TestCert::new(&["127.0.0.1"]);
    let server = Server::start_tls(REFUSED, &cert, html("secure")).await;
    let uri: http::Uri = format!("https://127.0.0.1:{}/", server.port())
        .parse()
        .unwrap();

    let err = client(options()).get(uri.clone()).await.unwrap_err();
    let Some(Error::Transport(t)) = library_error(&err) else {
        panic!("a TLS failure, not {err:?}");
    };
    assert_eq!(t.failure, TransportFailure::Tls, "{}", t.detail);
    assert_eq!(server.hits(), 0, "no request over an unverified connection");

    let trusting = client(NetworkOptions {
        ca_file: Some(cert.pem_path.clone()),
        ..options()
    });
    let response = trusting.get(uri).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(server.hits(), 1);
}

/// A server that accepts the TCP connection but never answers the TLS handshake
/// runs out `connect-timeout`, and the error says so.
#[tokio::test]
async fn a_stalled_handshake_runs_out_the_connect_timeout() {
    let silent = RawListener::start(REFUSED).await;
    let client = client(NetworkOptions {
        connect_timeout: Duration::from_millis(300),
        ..options()
    });
    let uri: http::Uri = format!("https://127.0.0.1:{}/", silent.port())
        .parse()
        .unwrap();
    let err = client.get(uri).await.unwrap_err();
    let Some(Error::Deadline(d)) = library_error(&err) else {
        panic!("a deadline, not {err:?}");
    };
    assert_eq!(
        (d.phase, d.key),
        (Phase::Connecting, ConfigKey::ConnectTimeout)
    );
    assert_eq!(d.limit, Duration::from_millis(300));
    assert_eq!(d.url, format!("https://127.0.0.1:{}/", silent.port()));
}
