//! Loopback test rigs: a scripted HTTP/1.1 server (plain or TLS) that records every
//! hit, a raw TCP listener that records whether any connection or byte arrived, a
//! CONNECT proxy, and fetcher builders. Every socket here is on 127.0.0.0/8 or ::1.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_web_core::fetch::{FetchOptions, Fetcher};
use mcp_web_core::guard::Policy;
use mcp_web_core::transport::{NetworkOptions, Resolve};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// 127.0.0.2: the "permitted origin" address (allowed by `allow-cidrs 127.0.0.2/32`).
pub const PERMITTED: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
/// 127.0.0.1: refused by the default policy (loopback).
pub const REFUSED: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));

/// The request a handler sees.
#[derive(Debug, Clone)]
pub struct Req {
    /// The path and query.
    pub path: String,
    /// The headers, names lowercased.
    pub headers: Vec<(String, String)>,
}

impl Req {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One step of a scripted answer.
pub enum Step {
    /// Write these bytes.
    Write(Vec<u8>),
    /// Wait until the test says so (a permit stored before the wait counts).
    Wait(Arc<tokio::sync::Notify>),
    /// Never answer (keep the connection open, reading nothing more).
    Hang,
    /// Write these bytes again and again until the peer goes away: an endless body.
    Repeat(Vec<u8>),
}

/// Builds a handler's answer.
pub type Handler = Arc<dyn Fn(&Req) -> Vec<Step> + Send + Sync>;

/// A full response with Content-Length.
pub fn response(status: u16, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\n", body.len()).into_bytes();
    for (name, value) in headers {
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

/// A one-step handler answering `bytes` to every request.
pub fn always(bytes: Vec<u8>) -> Handler {
    Arc::new(move |_| vec![Step::Write(bytes.clone())])
}

/// A 200 text/html page.
pub fn html(body: &str) -> Handler {
    always(response(
        200,
        &[("content-type", "text/html; charset=utf-8")],
        body.as_bytes(),
    ))
}

/// A redirect.
pub fn redirect(status: u16, location: &str) -> Vec<Step> {
    vec![Step::Write(response(
        status,
        &[("location", location)],
        b"",
    ))]
}

/// A scripted HTTP/1.1 server with keep-alive, counting connections, requests and the
/// bytes it wrote.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    connections: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<Req>>>,
    written: Arc<AtomicUsize>,
}

impl Server {
    /// A plain HTTP server on `ip`, port 0.
    pub async fn start(ip: IpAddr, handler: Handler) -> Server {
        Self::start_inner(ip, handler, None).await
    }

    /// An HTTPS server on `ip`, port 0, with `cert`.
    pub async fn start_tls(ip: IpAddr, cert: &TestCert, handler: Handler) -> Server {
        Self::start_inner(ip, handler, Some(cert.acceptor())).await
    }

    async fn start_inner(
        ip: IpAddr,
        handler: Handler,
        tls: Option<tokio_rustls::TlsAcceptor>,
    ) -> Server {
        let listener = TcpListener::bind(SocketAddr::new(ip, 0))
            .await
            .expect("test rig");
        Self::serve(listener, handler, tls)
    }

    /// Serves on an already bound listener.
    pub fn serve(
        listener: TcpListener,
        handler: Handler,
        tls: Option<tokio_rustls::TlsAcceptor>,
    ) -> Server {
        let addr = listener.local_addr().expect("test rig");
        let connections = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let written = Arc::new(AtomicUsize::new(0));
        let (c, r, w) = (connections.clone(), requests.clone(), written.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                c.fetch_add(1, Ordering::SeqCst);
                let (handler, r, w, tls) = (handler.clone(), r.clone(), w.clone(), tls.clone());
                tokio::spawn(async move {
                    match tls {
                        Some(acceptor) => {
                            if let Ok(stream) = acceptor.accept(stream).await {
                                converse(stream, handler, r, w).await;
                            }
                        }
                        None => converse(stream, handler, r, w).await,
                    }
                });
            }
        });
        Server {
            addr,
            connections,
            requests,
            written,
        }
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// How many connections were accepted.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// How many requests arrived.
    pub fn hits(&self) -> usize {
        self.requests.lock().expect("test rig").len()
    }

    /// The requests that arrived.
    pub fn requests(&self) -> Vec<Req> {
        self.requests.lock().expect("test rig").clone()
    }

    /// How many bytes the server has written, over every connection: what a client
    /// could have received so far.
    pub fn written(&self) -> usize {
        self.written.load(Ordering::SeqCst)
    }
}

async fn converse<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    handler: Handler,
    requests: Arc<Mutex<Vec<Req>>>,
    written: Arc<AtomicUsize>,
) {
    let mut buf = Vec::new();
    loop {
        let head_end = loop {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break end + 4;
            }
            let mut chunk = [0u8; 4096];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        buf.drain(..head_end);
        let mut lines = head.split("\r\n");
        let path = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("/")
            .to_owned();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let req = Req { path, headers };
        requests.lock().expect("test rig").push(req.clone());
        for step in handler(&req) {
            match step {
                Step::Write(bytes) => {
                    if stream.write_all(&bytes).await.is_err() {
                        return;
                    }
                    written.fetch_add(bytes.len(), Ordering::SeqCst);
                    let _ = stream.flush().await;
                }
                Step::Wait(gate) => gate.notified().await,
                Step::Hang => {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    return;
                }
                Step::Repeat(bytes) => {
                    while stream.write_all(&bytes).await.is_ok() {
                        written.fetch_add(bytes.len(), Ordering::SeqCst);
                    }
                    return;
                }
            }
        }
    }
}

/// A raw TCP listener that records every connection accepted and every byte read.
pub struct RawListener {
    /// Where it listens.
    pub addr: SocketAddr,
    connections: Arc<AtomicUsize>,
    bytes: Arc<AtomicUsize>,
}

impl RawListener {
    /// Listens on `ip`, port 0.
    pub async fn start(ip: IpAddr) -> RawListener {
        Self::on(
            TcpListener::bind(SocketAddr::new(ip, 0))
                .await
                .expect("test rig"),
        )
    }

    /// Listens on `ip` at `port` (used to sit on the same port as another server).
    pub async fn start_at(ip: IpAddr, port: u16) -> Option<RawListener> {
        TcpListener::bind(SocketAddr::new(ip, port))
            .await
            .ok()
            .map(Self::on)
    }

    fn on(listener: TcpListener) -> RawListener {
        let addr = listener.local_addr().expect("test rig");
        let connections = Arc::new(AtomicUsize::new(0));
        let bytes = Arc::new(AtomicUsize::new(0));
        let (c, b) = (connections.clone(), bytes.clone());
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                c.fetch_add(1, Ordering::SeqCst);
                let b = b.clone();
                tokio::spawn(async move {
                    let mut chunk = [0u8; 4096];
                    while let Ok(n) = stream.read(&mut chunk).await {
                        if n == 0 {
                            break;
                        }
                        b.fetch_add(n, Ordering::SeqCst);
                    }
                });
            }
        });
        RawListener {
            addr,
            connections,
            bytes,
        }
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// Bytes received so far.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::SeqCst)
    }
}

/// A CONNECT proxy on 127.0.0.1 that records each request line and tunnels to the
/// address it was given — only if that address is on loopback.
pub struct Proxy {
    /// Where it listens.
    pub addr: SocketAddr,
    lines: Arc<Mutex<Vec<String>>>,
    connections: Arc<AtomicUsize>,
}

impl Proxy {
    /// Starts the proxy.
    pub async fn start() -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("test rig");
        let addr = listener.local_addr().expect("test rig");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let (l, c) = (lines.clone(), connections.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                c.fetch_add(1, Ordering::SeqCst);
                let l = l.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        if client.read(&mut byte).await.unwrap_or(0) == 0 {
                            return;
                        }
                        head.push(byte[0]);
                    }
                    let text = String::from_utf8_lossy(&head).into_owned();
                    let line = text.lines().next().unwrap_or_default().to_owned();
                    l.lock().expect("test rig").push(line.clone());
                    let target: Option<SocketAddr> = line
                        .strip_prefix("CONNECT ")
                        .and_then(|rest| rest.split_whitespace().next())
                        .and_then(|t| t.parse().ok())
                        .filter(|t: &SocketAddr| t.ip().is_loopback());
                    let Some(target) = target else {
                        let _ = client.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").await;
                        return;
                    };
                    #[expect(
                        clippy::disallowed_methods,
                        reason = "the test proxy dials a loopback address"
                    )]
                    let upstream = TcpStream::connect(target).await;
                    let Ok(mut upstream) = upstream else {
                        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
                        return;
                    };
                    let _ = client
                        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                        .await;
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                });
            }
        });
        Proxy {
            addr,
            lines,
            connections,
        }
    }

    /// The request lines received.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().expect("test rig").clone()
    }

    /// Connections accepted.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

/// A self-signed certificate made at test time, and its PEM written to a file for
/// `ca-file`.
pub struct TestCert {
    cert_der: Vec<u8>,
    key_der: Vec<u8>,
    /// The PEM file to pass as `ca-file`.
    pub pem_path: PathBuf,
}

impl TestCert {
    /// A certificate for these names and addresses.
    pub fn new(names: &[&str]) -> TestCert {
        let names: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
        let certified = rcgen::generate_simple_self_signed(names).expect("test rig");
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let pem_path = std::env::temp_dir().join(format!(
            "mcp-web-test-ca-{}-{}.pem",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::write(&pem_path, certified.cert.pem()).expect("test rig");
        TestCert {
            cert_der: certified.cert.der().to_vec(),
            key_der: certified.signing_key.serialize_der(),
            pem_path,
        }
    }

    fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        self.acceptor_with_alpn(vec![b"http/1.1".to_vec()])
    }

    /// A TLS acceptor for this certificate offering these ALPN protocols.
    pub fn acceptor_with_alpn(&self, alpn: Vec<Vec<u8>>) -> tokio_rustls::TlsAcceptor {
        use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("test rig")
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(self.cert_der.clone())],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key_der.clone())),
            )
            .expect("test rig");
        config.alpn_protocols = alpn;
        tokio_rustls::TlsAcceptor::from(Arc::new(config))
    }
}

impl Drop for TestCert {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.pem_path);
    }
}

/// The default policy: nothing but public addresses.
pub fn default_policy() -> Policy {
    Policy::default()
}

/// A policy permitting 127.0.0.2 only (`allow-cidrs: ["127.0.0.2/32"]`).
pub fn permit_127_0_0_2() -> Policy {
    Policy {
        allow_cidrs: vec!["127.0.0.2/32".parse().expect("test rig")],
        ..Policy::default()
    }
}

/// The fetch options of the default configuration.
pub fn default_options() -> FetchOptions {
    mcp_web_core::config::Settings::default().fetch
}
/// Short timeouts so a failing test fails fast.
pub fn quick_options() -> FetchOptions {
    FetchOptions {
        headers_timeout: Duration::from_secs(5),
        timeout: Duration::from_secs(10),
        total_timeout: Duration::from_secs(20),
        network: NetworkOptions {
            connect_timeout: Duration::from_secs(5),
            ..default_options().network
        },
        ..default_options()
    }
}

/// A fetcher over `resolver` with `policy` and `options`.
pub fn fetcher_with(policy: Policy, resolver: Arc<dyn Resolve>, options: FetchOptions) -> Fetcher {
    Fetcher::new(options, policy, resolver).expect("test rig")
}

/// The number a child test process printed after `label` (`peak-kib 1234`), or a panic
/// naming what the child printed.
pub fn reported_kib(stdout: &str, label: &str) -> u64 {
    stdout
        .lines()
        .find_map(|l| l.split_once(label).map(|(_, n)| n))
        .and_then(|n| n.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {label}reported: {stdout}"))
}
