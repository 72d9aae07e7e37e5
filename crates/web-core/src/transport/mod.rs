//! The only module that resolves names and opens sockets: connect, then verify the peer.
//!
//! A connection is made in a fixed order, and nothing is written to a socket before
//! the last check passes:
//!
//! 1. resolve the host through a [`Resolve`] seam (an IP literal is not resolved);
//! 2. classify every candidate address with the guard, so no packet — not even a
//!    SYN — goes to a refused address (and a closed port cannot be told from a
//!    refused address); refused candidates are skipped, and when none is allowed the
//!    error names the first refusal;
//! 3. connect to a vetted candidate within `connect-timeout`;
//! 4. read the socket's actual peer address and ask the guard again — this check is
//!    the authority; a refused socket is reset at once (SO_LINGER 0) and gets no byte;
//! 5. only then mint a [`CheckedPeer`], the proof the TLS and HTTP steps require, and
//!    start TLS (rustls, ALPN `h2` and `http/1.1`, webpki roots plus `ca-file`).
//!
//! With a proxy configured (see [`proxy`](self#proxy)), step 3 connects to the
//! operator's proxy and asks it for `CONNECT <vetted-ip>:<port>`: the proxy never
//! resolves a name, so it cannot be steered onto a refused address.
//!
//! [`Transport`] is a connector for hyper-util's pooled client: nothing enters the
//! pool without passing through it, and a pooled connection is an already vetted,
//! still established socket (rebinding a name cannot retarget it). One `Transport`
//! belongs to one guard [`Policy`]; build another for another policy. Every response
//! carries the [`CheckedPeer`] of its connection in its extensions.
//!
//! # Proxy
//!
//! The environment's proxy variables (`HTTP_PROXY`, `https_proxy`, …) are never read:
//! the only proxy is the one in [`NetworkOptions::proxy`].

pub mod operator;
mod own;
mod proxy;
mod resolve;
mod tls;

use std::fmt;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http::Uri;
use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

use crate::error::{
    BadUrl, Blocked, ConfigError, Deadline, Error, Phase, Transport as TransportError,
    TransportFailure,
};
use crate::guard::{Allowed, Grant, Policy};
use crate::key::ConfigKey;

pub use own::OwnAddrs;
pub use proxy::ProxyUrl;
pub use resolve::{Resolve, Resolving, StaticResolver, SystemResolver};

/// How this program reaches the network (the network keys), one struct for the
/// guarded transport, the fetch and the search provider's client: a connection's time
/// budget, the operator's proxy, extra trust roots and the `User-Agent` every request
/// sends.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkOptions {
    /// The budget for one connection: resolving, connecting, the proxy tunnel and the
    /// TLS handshake (`connect-timeout`).
    pub connect_timeout: Duration,
    /// The operator's HTTP proxy (`proxy`): the guarded transport tunnels with
    /// `CONNECT <ip>:<port>`, the operator connector with `CONNECT host:port`.
    pub proxy: Option<ProxyUrl>,
    /// A PEM file of extra trusted roots (`ca-file`), added to webpki's roots.
    pub ca_file: Option<PathBuf>,
    /// The `User-Agent` header (`user-agent`).
    pub user_agent: String,
}

/// Proof that the guard approved the address of a socket actually opened (or, through
/// a proxy, the vetted address the tunnel was opened to). Only this module can make
/// one; TLS and HTTP cannot start without it. Every response carries its
/// connection's proof in its extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckedPeer {
    addr: SocketAddr,
    via_proxy: bool,
}

impl CheckedPeer {
    /// The vetted peer address (the target's, not the proxy's, when tunnelled).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// True when the connection is a tunnel through the configured proxy.
    pub fn via_proxy(&self) -> bool {
        self.via_proxy
    }
}

/// The guarded connector: a cheap handle (clones share one configuration) that
/// hyper-util's pooled client calls for every new connection.
#[derive(Clone)]
pub struct Transport {
    inner: Arc<Inner>,
}

struct Inner {
    policy: Policy,
    /// A one-time permission of one call; only an unpooled transport carries one.
    grant: Option<Grant>,
    resolver: Arc<dyn Resolve>,
    options: NetworkOptions,
    tls: tokio_rustls::TlsConnector,
    /// This machine's interface addresses, refused as "this host".
    own: Arc<OwnAddrs>,
}

impl Inner {
    /// The guard's decision on `peer` for `host`: the policy, then the grant. `local`
    /// is the socket's own address, once there is a socket: a peer equal to it is this
    /// host, like one of the interface addresses.
    fn decide(
        &self,
        host: &str,
        port: u16,
        peer: IpAddr,
        local: Option<IpAddr>,
    ) -> Result<Allowed, Blocked> {
        let this_host = self.this_host(local);
        self.policy
            .decide_with(host, port, peer, &this_host, self.grant.as_ref())
    }

    /// This machine's own addresses: the interfaces, and the socket's local address.
    fn this_host(&self, local: Option<IpAddr>) -> Vec<IpAddr> {
        let mut list = self.own.current().to_vec();
        list.extend(local);
        list
    }
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transport")
            .field("policy", &self.inner.policy)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl Transport {
    /// A connector for one guard policy. Fails when `ca-file` cannot be read or holds
    /// no certificate.
    pub fn new(
        policy: Policy,
        resolver: Arc<dyn Resolve>,
        options: NetworkOptions,
    ) -> Result<Transport, ConfigError> {
        let tls = tls::connector(options.ca_file.as_deref())?;
        Ok(Transport {
            inner: Arc::new(Inner {
                policy,
                grant: None,
                resolver,
                options,
                tls,
                own: Arc::new(OwnAddrs::system()),
            }),
        })
    }

    /// This connector with `own` standing in for this machine's interface addresses
    /// (tests: an address a test cannot own stands in for one of the host's).
    pub fn with_own_addrs(self, own: OwnAddrs) -> Transport {
        Transport {
            inner: Arc::new(Inner {
                policy: self.inner.policy.clone(),
                grant: self.inner.grant.clone(),
                resolver: Arc::clone(&self.inner.resolver),
                options: self.inner.options.clone(),
                tls: self.inner.tls.clone(),
                own: Arc::new(own),
            }),
        }
    }

    /// This machine's own addresses as the guard sees them now (what `mcp-web check`
    /// judges against).
    pub fn own_addrs(&self) -> Arc<[IpAddr]> {
        self.inner.own.current()
    }

    /// The policy every connection is checked against.
    pub fn policy(&self) -> &Policy {
        &self.inner.policy
    }

    /// This connector with a one-time `grant` added to its policy, for the connections
    /// of the one call it was granted to. Connections it opens must not be pooled with
    /// the policy's own: only the fetcher calls it, for a client of the call's own.
    pub(crate) fn granting(&self, grant: Grant) -> Transport {
        Transport {
            inner: Arc::new(Inner {
                policy: self.inner.policy.clone(),
                grant: Some(grant),
                resolver: Arc::clone(&self.inner.resolver),
                options: self.inner.options.clone(),
                tls: self.inner.tls.clone(),
                own: Arc::clone(&self.inner.own),
            }),
        }
    }

    /// Opens a vetted connection to `scheme://host:port` (TLS for `https`), within
    /// `connect-timeout`. `url` names the request in errors.
    pub async fn connect(
        &self,
        https: bool,
        host: &str,
        port: u16,
        url: &str,
    ) -> Result<Conn, Error> {
        let limit = self.inner.options.connect_timeout;
        match tokio::time::timeout(limit, self.connect_inner(https, host, port, url)).await {
            Ok(result) => result,
            Err(_) => Err(Error::Deadline(Deadline {
                url: url.to_owned(),
                phase: Phase::Connecting,
                key: ConfigKey::ConnectTimeout,
                limit,
            })),
        }
    }

    async fn candidates(&self, host: &str, url: &str) -> Result<Vec<IpAddr>, Error> {
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Ok(vec![ip]);
        }
        self.inner
            .resolver
            .resolve(host)
            .await
            .map_err(|e| transport_error(url, TransportFailure::Dns, &e))
    }

    /// Classifies every candidate: the allowed ones in order, or the first refusal.
    fn vetted(&self, host: &str, port: u16, candidates: Vec<IpAddr>) -> Result<Vec<IpAddr>, Error> {
        let mut allowed = Vec::new();
        let mut first_refusal = None;
        for ip in candidates {
            match self.inner.decide(host, port, ip, None) {
                Ok(_) => allowed.push(ip),
                Err(blocked) => {
                    first_refusal.get_or_insert(blocked);
                }
            }
        }
        match (allowed.is_empty(), first_refusal) {
            (true, Some(blocked)) => Err(Error::Blocked(blocked)),
            _ => Ok(allowed),
        }
    }

    async fn connect_inner(
        &self,
        https: bool,
        host: &str,
        port: u16,
        url: &str,
    ) -> Result<Conn, Error> {
        self.inner.policy.check_port(port).map_err(|reason| {
            Error::BadUrl(BadUrl {
                url: crate::url::redact(url),
                reason,
            })
        })?;
        let candidates = self.candidates(host, url).await?;
        let vetted = self.vetted(host, port, candidates)?;
        let (stream, peer) = match &self.inner.options.proxy {
            Some(proxy) => self.tunnel(proxy, &vetted, port, url).await?,
            None => self.direct(host, &vetted, port, url).await?,
        };
        self.finish(stream, peer, https, host, url).await
    }

    /// Connects straight to the first vetted candidate that answers, then checks the
    /// socket's actual peer: the authority.
    async fn direct(
        &self,
        host: &str,
        vetted: &[IpAddr],
        port: u16,
        url: &str,
    ) -> Result<(TcpStream, CheckedPeer), Error> {
        let mut last: Option<io::Error> = None;
        for &ip in vetted {
            let stream = match open(SocketAddr::new(ip, port)).await {
                Ok(stream) => stream,
                Err(e) => {
                    last = Some(e);
                    continue;
                }
            };
            match self.authorize(host, stream) {
                Ok(vetted) => return Ok(vetted),
                Err(Authorize::Refused(blocked)) => return Err(Error::Blocked(*blocked)),
                Err(Authorize::NoPeer(e)) => last = Some(e),
            }
        }
        let e = last.unwrap_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no address"));
        Err(connect_error(url, &e))
    }

    /// The authority: asks the guard about the address of the socket actually
    /// opened. On refusal the socket is reset at once (SO_LINGER 0), no byte written.
    fn authorize(
        &self,
        host: &str,
        stream: TcpStream,
    ) -> Result<(TcpStream, CheckedPeer), Authorize> {
        let peer = match stream.peer_addr() {
            Ok(peer) => peer,
            Err(e) => {
                reset(stream);
                return Err(Authorize::NoPeer(e));
            }
        };
        let local = stream.local_addr().ok().map(|a| a.ip());
        if let Err(blocked) = self.inner.decide(host, peer.port(), peer.ip(), local) {
            reset(stream);
            return Err(Authorize::Refused(Box::new(blocked)));
        }
        let _ = stream.set_nodelay(true);
        Ok((
            stream,
            CheckedPeer {
                addr: peer,
                via_proxy: false,
            },
        ))
    }

    /// Opens a tunnel through the proxy to the first vetted candidate the proxy
    /// reaches. The proxy is given the address, never the name.
    async fn tunnel(
        &self,
        proxy: &ProxyUrl,
        vetted: &[IpAddr],
        port: u16,
        url: &str,
    ) -> Result<(TcpStream, CheckedPeer), Error> {
        let proxy_err = |detail: String| {
            Error::Transport(TransportError {
                url: url.to_owned(),
                failure: TransportFailure::Proxy,
                detail,
            })
        };
        let proxy_addrs = match proxy.host().parse::<IpAddr>() {
            Ok(ip) => vec![ip],
            Err(_) => self
                .inner
                .resolver
                .resolve(proxy.host())
                .await
                .map_err(|e| proxy_err(format!("the proxy {proxy} did not resolve: {e}")))?,
        };
        let mut last = String::from("no vetted address");
        for &ip in vetted {
            let target = SocketAddr::new(ip, port);
            for &proxy_ip in &proxy_addrs {
                let mut stream = match open(SocketAddr::new(proxy_ip, proxy.port())).await {
                    Ok(stream) => stream,
                    Err(e) => {
                        last = format!("could not reach the proxy {proxy}: {e}");
                        continue;
                    }
                };
                match proxy::connect(&mut stream, target).await {
                    Ok(()) => {
                        return Ok((
                            stream,
                            CheckedPeer {
                                addr: target,
                                via_proxy: true,
                            },
                        ));
                    }
                    Err(e) => {
                        last = format!("the proxy {proxy} refused CONNECT {target}: {e}");
                        break;
                    }
                }
            }
        }
        Err(proxy_err(last))
    }

    /// The step after the peer check: TLS when asked for, with the proof in hand.
    async fn finish(
        &self,
        stream: TcpStream,
        peer: CheckedPeer,
        https: bool,
        host: &str,
        url: &str,
    ) -> Result<Conn, Error> {
        let io = if https {
            Io::Tls(Box::new(
                tls::handshake(&self.inner.tls, stream, &peer, host)
                    .await
                    .map_err(|e| transport_error(url, TransportFailure::Tls, &e))?,
            ))
        } else {
            Io::Plain(stream)
        };
        Ok(Conn::new(io, peer))
    }
}

/// Why the peer check did not pass.
enum Authorize {
    /// The guard refused the peer.
    Refused(Box<crate::error::Blocked>),
    /// The socket has no peer address (it was closed under us).
    NoPeer(io::Error),
}

/// Opens a TCP connection to an address the guard has already approved.
async fn open(addr: SocketAddr) -> io::Result<TcpStream> {
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    #[expect(
        clippy::disallowed_methods,
        reason = "transport connects only to addresses the guard approved, and checks the peer next"
    )]
    let stream = socket.connect(addr).await?;
    Ok(stream)
}

/// Resets a refused socket at once: SO_LINGER 0 makes the close an RST, so the peer
/// gets a handshake and a reset, never a byte.
fn reset(stream: TcpStream) {
    let _ = socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO));
    drop(stream);
}

fn transport_error(url: &str, failure: TransportFailure, e: &dyn fmt::Display) -> Error {
    Error::Transport(TransportError {
        url: url.to_owned(),
        failure,
        detail: e.to_string(),
    })
}

fn connect_error(url: &str, e: &io::Error) -> Error {
    let failure = match e.kind() {
        io::ErrorKind::ConnectionRefused => TransportFailure::Refused,
        io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted => {
            TransportFailure::Reset
        }
        _ => TransportFailure::Other,
    };
    transport_error(url, failure, e)
}

/// The socket under a connection: plain TCP or TLS over TCP.
enum Io {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

/// A connection as hyper-util's pool holds it, carrying what is known of its peer: a
/// vetted connection carries a [`CheckedPeer`] (the default), an operator endpoint's
/// connection an [`operator::OperatorPeer`], so the one cannot pass for the other.
pub struct Conn<P = CheckedPeer> {
    io: TokioIo<Io>,
    peer: P,
    h2: bool,
}

impl<P: fmt::Debug> fmt::Debug for Conn<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conn")
            .field("peer", &self.peer)
            .field("h2", &self.h2)
            .finish_non_exhaustive()
    }
}

impl<P: Copy> Conn<P> {
    fn new(io: Io, peer: P) -> Conn<P> {
        let h2 = match &io {
            Io::Tls(tls) => tls.get_ref().1.alpn_protocol() == Some(b"h2"),
            Io::Plain(_) => false,
        };
        Conn {
            io: TokioIo::new(io),
            peer,
            h2,
        }
    }

    /// What is known of this connection's peer: for a vetted connection, the proof the
    /// guard approved it.
    pub fn peer(&self) -> P {
        self.peer
    }
}

impl<P: Copy + Send + Sync + 'static> Connection for Conn<P> {
    fn connected(&self) -> Connected {
        let connected = Connected::new().extra(self.peer);
        if self.h2 {
            connected.negotiated_h2()
        } else {
            connected
        }
    }
}

impl AsyncRead for Io {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Io::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Io {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Io::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Io::Plain(s) => Pin::new(s).poll_flush(cx),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Io::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Io::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Io::Plain(s) => s.is_write_vectored(),
            Io::Tls(s) => s.is_write_vectored(),
        }
    }
}

impl<P: Unpin> hyper::rt::Read for Conn<P> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<P: Unpin> hyper::rt::Write for Conn<P> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

/// A connection failure as hyper-util's client carries it: the [`Error`] inside is
/// recovered by the fetch layer from the client error's source chain.
#[derive(Debug)]
pub struct ConnectError(pub Box<Error>);

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for ConnectError {}

/// Where a connector is asked to connect, read from the request's URI.
struct Target {
    /// TLS or not.
    https: bool,
    /// The host, IPv6 without brackets.
    host: String,
    /// The effective port.
    port: u16,
    /// `scheme://host[:port]/`, naming the connection in errors: host and port only,
    /// so user information in a URI never reaches a message.
    url: String,
}

impl Target {
    fn of(uri: &Uri) -> Target {
        let https = uri.scheme_str() == Some("https");
        let raw_host = uri.host().unwrap_or_default();
        let host = raw_host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(raw_host)
            .to_owned();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let scheme = if https { "https" } else { "http" };
        let url = match uri.port_u16() {
            Some(port) => format!("{scheme}://{raw_host}:{port}/"),
            None => format!("{scheme}://{raw_host}/"),
        };
        Target {
            https,
            host,
            port,
            url,
        }
    }
}

impl tower_service::Service<Uri> for Transport {
    type Response = Conn;
    type Error = ConnectError;
    type Future = Pin<Box<dyn Future<Output = Result<Conn, ConnectError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let this = self.clone();
        Box::pin(async move {
            let Target {
                https,
                host,
                port,
                url,
            } = Target::of(&uri);
            this.connect(https, &host, port, &url)
                .await
                .map_err(|e| ConnectError(Box::new(e)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Options with a generous connect budget, no proxy and no extra roots.
    fn test_options() -> NetworkOptions {
        NetworkOptions {
            connect_timeout: Duration::from_secs(10),
            proxy: None,
            ca_file: None,
            user_agent: String::new(),
        }
    }
    use tokio::io::AsyncReadExt;

    /// The check after connecting is the authority: a socket whose peer the guard
    /// refuses is reset at once, and the peer reads no byte, only the reset.
    #[tokio::test]
    async fn a_refused_peer_is_reset_without_a_byte() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let transport = Transport::new(
            Policy::default(),
            Arc::new(StaticResolver::new()),
            test_options(),
        )
        .unwrap();
        // Bypass the pre-connect classification to exercise the second check alone.
        let stream = open(addr).await.unwrap();
        let (mut server_side, _) = listener.accept().await.unwrap();
        let Err(Authorize::Refused(blocked)) = transport.authorize("inside.test", stream) else {
            panic!("the guard must refuse a loopback peer by default");
        };
        assert_eq!(
            (blocked.address(), blocked.host()),
            (addr.ip(), "inside.test")
        );
        let mut buf = [0u8; 64];
        let read = server_side.read(&mut buf).await;
        assert_eq!(
            read.map_err(|e| e.kind()),
            Err(io::ErrorKind::ConnectionReset),
            "a refused socket is reset (SO_LINGER 0), not closed gracefully, and carries no byte"
        );
    }

    #[tokio::test]
    async fn an_allowed_peer_gets_its_proof() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let policy = Policy {
            allow_loopback: true,
            ..Policy::default()
        };
        let transport =
            Transport::new(policy, Arc::new(StaticResolver::new()), test_options()).unwrap();
        let stream = open(addr).await.unwrap();
        let Ok((_, proof)) = transport.authorize("localhost", stream) else {
            panic!("allow-loopback permits the peer");
        };
        assert_eq!(proof.addr(), addr);
        assert!(!proof.via_proxy());
    }

    /// The guard is asked with this machine's own addresses: the interface list (a
    /// stand-in here) and the socket's local address. A peer equal to either is this
    /// host, refused like loopback and named so.
    #[test]
    fn the_guard_sees_the_interfaces_and_the_local_address() {
        let own: IpAddr = "93.184.215.14".parse().unwrap();
        let local: IpAddr = "198.51.100.0".parse().unwrap();
        let transport = Transport::new(
            Policy::default(),
            Arc::new(StaticResolver::new()),
            test_options(),
        )
        .unwrap()
        .with_own_addrs(OwnAddrs::fixed([own]));
        assert_eq!(&*transport.own_addrs(), &[own]);
        let inner = &transport.inner;
        assert_eq!(inner.this_host(Some(local)), vec![own, local]);
        let refused = inner.decide("x", 80, own, None).unwrap_err();
        assert_eq!(refused.class(), crate::addr::Class::ThisHost);
        let public: IpAddr = "93.184.215.34".parse().unwrap();
        assert!(inner.decide("x", 80, public, None).is_ok());
        let refused = inner.decide("x", 80, public, Some(public)).unwrap_err();
        assert_eq!(refused.class(), crate::addr::Class::ThisHost);
    }
}
