//! The connector for endpoints the operator wrote in the configuration (the search
//! provider's API), and the only connector in this crate that skips the guard.
//!
//! The endpoint `web_search` calls is the operator's, named in configuration, not the
//! model's: a SearXNG on the operator's own network is a legitimate thing to point it
//! at. So [`OperatorConnector`] resolves the name (with the system resolver, or the
//! resolver it is given, the same seam as the guarded transport's) and connects to the
//! addresses it gives, loopback and private ones included, without asking the guard
//! and without the pre-connect or post-connect checks of [`Transport`]. TLS is the
//! same as everywhere else: rustls with webpki's roots plus `ca-file`, ALPN `h2` and
//! `http/1.1`, verification never skipped.
//!
//! With `proxy` configured, every connection is a `CONNECT host:port` tunnel through
//! it, naming the endpoint as the operator wrote it (no guard decision needs the
//! address, so the proxy may resolve it). The environment's proxy variables are never
//! read.
//!
//! Architecture Invariant: this is the only connector that skips the guard, and only
//! URLs the operator wrote in the configuration (`search-url`, a provider's built-in
//! endpoint) may be given to it — never a tool argument, a fetched page's link or a
//! redirect target. Nothing but `search` uses it (`tests/it/tidy.rs` checks this). Its
//! connections carry an [`OperatorPeer`], never a [`CheckedPeer`], so a response
//! through it cannot pass for a vetted one.
//!
//! [`Transport`]: super::Transport
//! [`CheckedPeer`]: super::CheckedPeer

use std::fmt;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::Uri;
use rustls_pki_types::ServerName;
use tokio::net::TcpStream;

use super::{
    Conn, ConnectError, Io, NetworkOptions, ProxyUrl, Resolve, SystemResolver, Target,
    connect_error, tls, transport_error,
};
use crate::error::{
    ConfigError, Deadline, Error, Phase, Transport as TransportError, TransportFailure,
};
use crate::key::ConfigKey;

/// The address an operator connection reached, which no guard has checked. Every
/// response through [`OperatorConnector`] carries it in its extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperatorPeer {
    addr: SocketAddr,
}

impl OperatorPeer {
    /// The address connected to, as the system resolver gave it.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

/// A connector for hyper-util's client that skips the guard, for operator-written
/// endpoints only: a cheap handle (clones share one configuration).
#[derive(Clone)]
pub struct OperatorConnector {
    inner: Arc<Inner>,
}

struct Inner {
    options: NetworkOptions,
    resolver: Arc<dyn Resolve>,
    tls: tokio_rustls::TlsConnector,
}

impl fmt::Debug for OperatorConnector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OperatorConnector")
            .field("guarded", &false)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl OperatorConnector {
    /// A connector that resolves with the system resolver and connects without the
    /// guard. Fails when `ca-file` cannot be read or holds no certificate.
    pub fn unguarded(options: NetworkOptions) -> Result<OperatorConnector, ConfigError> {
        OperatorConnector::unguarded_with_resolver(options, Arc::new(SystemResolver))
    }

    /// A connector that resolves names (the endpoint's, the proxy's) with `resolver`
    /// and connects without the guard. Fails when `ca-file` cannot be read or holds no
    /// certificate.
    pub fn unguarded_with_resolver(
        options: NetworkOptions,
        resolver: Arc<dyn Resolve>,
    ) -> Result<OperatorConnector, ConfigError> {
        let tls = tls::connector(options.ca_file.as_deref())?;
        Ok(OperatorConnector {
            inner: Arc::new(Inner {
                options,
                resolver,
                tls,
            }),
        })
    }

    /// Opens a connection to `scheme://host:port` (TLS for `https`) within
    /// `connect-timeout`, without asking the guard. `url` names the request in errors.
    pub async fn connect(
        &self,
        https: bool,
        host: &str,
        port: u16,
        url: &str,
    ) -> Result<OperatorConn, Error> {
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

    async fn connect_inner(
        &self,
        https: bool,
        host: &str,
        port: u16,
        url: &str,
    ) -> Result<OperatorConn, Error> {
        let (stream, addr) = match &self.inner.options.proxy {
            Some(proxy) => self.tunnel(proxy, host, port, url).await?,
            None => {
                let stream = self.open_first(host, port).await.map_err(|e| match e {
                    Opening::Resolve(e) => transport_error(url, TransportFailure::Dns, &e),
                    Opening::Connect(e) => connect_error(url, &e),
                })?;
                let addr = stream.peer_addr().map_err(|e| connect_error(url, &e))?;
                (stream, addr)
            }
        };
        let _ = stream.set_nodelay(true);
        let io = if https {
            let name = ServerName::try_from(host.to_owned())
                .map_err(|e| transport_error(url, TransportFailure::Tls, &e))?;
            Io::Tls(Box::new(
                self.inner
                    .tls
                    .connect(name, stream)
                    .await
                    .map_err(|e| transport_error(url, TransportFailure::Tls, &e))?,
            ))
        } else {
            Io::Plain(stream)
        };
        Ok(OperatorConn::new(io, OperatorPeer { addr }))
    }

    /// Resolves `host` (an IP literal is not resolved) and connects to the first of its
    /// addresses that answers.
    async fn open_first(&self, host: &str, port: u16) -> Result<TcpStream, Opening> {
        let candidates = match host.parse::<IpAddr>() {
            Ok(ip) => vec![ip],
            Err(_) => self
                .inner
                .resolver
                .resolve(host)
                .await
                .map_err(Opening::Resolve)?,
        };
        let mut last: Option<io::Error> = None;
        for ip in candidates {
            match open(SocketAddr::new(ip, port)).await {
                Ok(stream) => return Ok(stream),
                Err(e) => last = Some(e),
            }
        }
        Err(Opening::Connect(last.unwrap_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, "no address")
        })))
    }

    /// Opens a tunnel through the operator's proxy to `host:port` as written. The
    /// connection's peer is the proxy's address: the only one this side knows.
    async fn tunnel(
        &self,
        proxy: &ProxyUrl,
        host: &str,
        port: u16,
        url: &str,
    ) -> Result<(TcpStream, SocketAddr), Error> {
        let proxy_err = |detail: String| {
            Error::Transport(TransportError {
                url: url.to_owned(),
                failure: TransportFailure::Proxy,
                detail,
            })
        };
        let mut stream =
            self.open_first(proxy.host(), proxy.port())
                .await
                .map_err(|e| match e {
                    Opening::Resolve(e) => {
                        proxy_err(format!("the proxy {proxy} did not resolve: {e}"))
                    }
                    Opening::Connect(e) => {
                        proxy_err(format!("could not reach the proxy {proxy}: {e}"))
                    }
                })?;
        let addr = stream
            .peer_addr()
            .map_err(|e| proxy_err(format!("could not reach the proxy {proxy}: {e}")))?;
        let target = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        super::proxy::connect(&mut stream, &target)
            .await
            .map_err(|e| proxy_err(format!("the proxy {proxy} refused CONNECT {target}: {e}")))?;
        Ok((stream, addr))
    }
}

/// Why no connection was opened: the name did not resolve, or no address answered.
enum Opening {
    Resolve(io::Error),
    Connect(io::Error),
}

/// Opens a TCP connection to an address of an operator-written endpoint.
async fn open(addr: SocketAddr) -> io::Result<TcpStream> {
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    #[expect(
        clippy::disallowed_methods,
        reason = "the operator connector serves only endpoints the operator wrote in the configuration, which the design leaves to the operator, unguarded"
    )]
    let stream = socket.connect(addr).await?;
    Ok(stream)
}

/// A connection to an operator-written endpoint, as hyper-util's pool holds it: it
/// carries an [`OperatorPeer`], never a vetted peer.
pub type OperatorConn = Conn<OperatorPeer>;

impl tower_service::Service<Uri> for OperatorConnector {
    type Response = OperatorConn;
    type Error = ConnectError;
    type Future = Pin<Box<dyn Future<Output = Result<OperatorConn, ConnectError>> + Send>>;

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
