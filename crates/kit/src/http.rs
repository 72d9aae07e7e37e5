//! The Streamable HTTP transport at `/mcp`: loopback by default, `Host` and `Origin`
//! validated (403 for foreign ones), and a bearer token required — and then demanded
//! on every request (401 without it) — before anything but loopback may be bound.
//! A body that is not a usable JSON-RPC message is answered 400 with the JSON-RPC
//! error object (a parse error, or an invalid request), never a bare 415.
//!
//! In a legacy (initialize-era) session a request reusing the id of one still in
//! flight is refused here, naming the id, because the SDK underneath keeps one
//! answer route and one cancellation per id and would let the second call take over
//! the first. A request's id stays in flight until its response stream ends; a
//! client that hangs up first has its call cancelled, so the id is free for real.
//!
//! Before any token is checked, what a connection may hold is bounded: at most
//! [`HttpOptions::max_connections`] are served at once (one more is answered 503 and
//! closed), a request's head must arrive within [`HttpOptions::header_read_timeout`]
//! (an idle kept-alive connection's next one too) and its body within
//! [`HttpOptions::body_read_timeout`], and a failing `accept` (no file descriptor left)
//! is retried after a growing pause, logged at most once per [`ACCEPT_LOG_EVERY`].

use std::collections::HashSet;
use std::convert::Infallible;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited, combinators::BoxBody};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{
    SessionId, SessionManager as _, StreamableHttpServerConfig, StreamableHttpService,
};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tower_service::Service as _;

use crate::jsonrpc::{self, Verdict};
use crate::server::Server;

/// The endpoint path.
pub const ENDPOINT: &str = "/mcp";

/// The largest request body read, in bytes; a larger one is answered 413.
pub const MAX_BODY_BYTES: usize = 4 << 20;

/// How long a client has, by default, to send a request's head.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client has, by default, to send a request's body once its head arrived.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// How many connections are served at once by default.
pub const MAX_CONNECTIONS: usize = 256;

/// The shortest and the longest pause after a failed `accept`.
const ACCEPT_BACKOFF: (Duration, Duration) = (Duration::from_millis(5), Duration::from_secs(1));

/// A failing `accept` is logged at most once per this interval.
pub const ACCEPT_LOG_EVERY: Duration = Duration::from_secs(10);

/// The host names a loopback server answers to.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// A bearer token clients must present. Its `Debug` never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthToken(String);

impl fmt::Debug for AuthToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AuthToken(<redacted>)")
    }
}

impl AuthToken {
    /// A token from its text; surrounding whitespace is trimmed, and an empty token is
    /// refused.
    pub fn new(token: &str) -> Result<Self, HttpError> {
        let token = token.trim();
        if token.is_empty() {
            return Err(HttpError::new(
                "the bearer token is empty; set a non-empty token",
            ));
        }
        Ok(Self(token.to_owned()))
    }

    /// The token held by the environment variable `var`.
    pub fn from_env(var: &str) -> Result<Self, HttpError> {
        match std::env::var(var) {
            Ok(value) => Self::new(&value).map_err(|_| {
                HttpError::new(format!(
                    "the environment variable {var} (--auth-token-env) is empty"
                ))
            }),
            Err(_) => Err(HttpError::new(format!(
                "the environment variable {var} (--auth-token-env) is not set"
            ))),
        }
    }

    /// The token held by the file at `path` (its whole content, trimmed).
    pub fn from_file(path: &Path) -> Result<Self, HttpError> {
        match std::fs::read_to_string(path) {
            Ok(value) => Self::new(&value).map_err(|_| {
                HttpError::new(format!(
                    "the token file {} (--auth-token-file) is empty",
                    path.display()
                ))
            }),
            Err(error) => Err(HttpError::new(format!(
                "cannot read the token file {} (--auth-token-file): {error}",
                path.display()
            ))),
        }
    }

    /// Whether an `Authorization` header value presents this token, compared in
    /// constant time.
    fn accepts(&self, header: Option<&[u8]>) -> bool {
        let Some(header) = header else {
            return false;
        };
        let Some(presented) = header
            .strip_prefix(b"Bearer ")
            .or_else(|| header.strip_prefix(b"bearer "))
        else {
            return false;
        };
        let expected = self.0.as_bytes();
        if presented.len() != expected.len() {
            return false;
        }
        presented
            .iter()
            .zip(expected)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }
}

/// How the HTTP transport is exposed.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The bearer token every request must present. Required to bind anything but a
    /// loopback address.
    pub auth_token: Option<AuthToken>,
    /// Host names (or `host:port`) accepted in `Host` besides the loopback names and
    /// the bound address.
    pub allowed_hosts: Vec<String>,
    /// Browser origins (`scheme://host:port`) accepted in `Origin` besides the
    /// server's own loopback origins.
    pub allowed_origins: Vec<String>,
    /// How long a client has to send a request's head, counted from the first read of
    /// it (on a kept-alive connection, from the end of the previous answer); the
    /// connection is closed past it.
    pub header_read_timeout: Duration,
    /// How long a client has to send a request's body once its head arrived; past it
    /// the request is answered 408.
    pub body_read_timeout: Duration,
    /// How many connections are served at once; one more is answered 503 and closed.
    pub max_connections: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            auth_token: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            header_read_timeout: HEADER_READ_TIMEOUT,
            body_read_timeout: BODY_READ_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

/// The HTTP transport cannot start: the message says why and what would change it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpError {
    message: String,
}

impl HttpError {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HttpError {}

/// Decides whether `addr` may be bound: loopback always; anything else only with a
/// bearer token configured.
pub fn check_bind(addr: SocketAddr, options: &HttpOptions) -> Result<(), HttpError> {
    if addr.ip().is_loopback() || options.auth_token.is_some() {
        return Ok(());
    }
    Err(HttpError::new(format!(
        "refusing to listen on {addr}: it is not a loopback address, so anyone who can reach \
         it could call the tools. Configure a bearer token with --auth-token-env VAR or \
         --auth-token-file FILE, or bind 127.0.0.1"
    )))
}

/// A bound, not yet serving, HTTP transport.
#[derive(Debug)]
pub struct HttpListener {
    listener: TcpListener,
    options: HttpOptions,
    open: watch::Sender<usize>,
}

/// Where connections come from: a bound socket, or a test's stand-in.
pub(crate) trait Accept {
    /// The next connection, or why none could be taken.
    fn accept(&mut self) -> impl Future<Output = io::Result<(TcpStream, SocketAddr)>> + Send;
}

impl<A: Accept + Send> Accept for &mut A {
    fn accept(&mut self) -> impl Future<Output = io::Result<(TcpStream, SocketAddr)>> + Send {
        (**self).accept()
    }
}

impl Accept for TcpListener {
    async fn accept(&mut self) -> io::Result<(TcpStream, SocketAddr)> {
        TcpListener::accept(self).await
    }
}

/// A connection's place among those served; given back when dropped.
struct Slot(watch::Sender<usize>);

impl Slot {
    /// A place when fewer than `max` are taken.
    fn take(open: &watch::Sender<usize>, max: usize) -> Option<Self> {
        let mut taken = false;
        open.send_if_modified(|count| {
            taken = *count < max;
            if taken {
                *count += 1;
            }
            taken
        });
        taken.then(|| Self(open.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.send_modify(|count| *count = count.saturating_sub(1));
    }
}

/// The pause after each failed `accept` and whether to log it: the pause doubles from
/// the shortest to the longest and starts over after a success; the log line is
/// written at most once per [`ACCEPT_LOG_EVERY`], counting the failures it stands for.
#[derive(Debug)]
pub(crate) struct AcceptErrors {
    pause: Duration,
    last_log: Option<tokio::time::Instant>,
    unlogged: u64,
}

impl AcceptErrors {
    /// No failure yet.
    pub(crate) fn new() -> Self {
        Self {
            pause: ACCEPT_BACKOFF.0,
            last_log: None,
            unlogged: 0,
        }
    }

    /// A failure at `now`: the pause to wait, and the number of failures to log (this
    /// one and the ones left unlogged) when a log line is due.
    pub(crate) fn failed(&mut self, now: tokio::time::Instant) -> (Duration, Option<u64>) {
        let pause = self.pause;
        self.pause = (self.pause * 2).min(ACCEPT_BACKOFF.1);
        self.unlogged += 1;
        let due = self
            .last_log
            .is_none_or(|last| now.duration_since(last) >= ACCEPT_LOG_EVERY);
        if !due {
            return (pause, None);
        }
        self.last_log = Some(now);
        (pause, Some(std::mem::take(&mut self.unlogged)))
    }

    /// A success: the next failure pauses the shortest time again.
    pub(crate) fn succeeded(&mut self) {
        self.pause = ACCEPT_BACKOFF.0;
    }
}

impl HttpListener {
    /// Binds `addr` after [`check_bind`] allowed it.
    pub async fn bind(addr: SocketAddr, options: HttpOptions) -> Result<Self, io::Error> {
        check_bind(addr, &options)
            .map_err(|e| io::Error::new(io::ErrorKind::PermissionDenied, e))?;
        let listener = TcpListener::bind(addr).await?;
        let (open, _) = watch::channel(0);
        Ok(Self {
            listener,
            options,
            open,
        })
    }

    /// The number of connections being served, as it changes.
    pub fn open_connections(&self) -> watch::Receiver<usize> {
        self.open.subscribe()
    }

    /// The address actually bound (its port when port 0 was asked for).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves `server` at [`ENDPOINT`] until `shutdown` is cancelled.
    pub async fn serve(self, server: Server, shutdown: CancellationToken) -> io::Result<()> {
        let local = self.listener.local_addr()?;
        let Self {
            listener,
            options,
            open,
        } = self;
        serve_from(listener, local, options, open, server, shutdown).await
    }
}

/// Serves `server` on the connections `acceptor` takes until `shutdown` is cancelled;
/// `local` is the bound address, `open` counts the connections served.
pub(crate) async fn serve_from(
    mut acceptor: impl Accept,
    local: SocketAddr,
    options: HttpOptions,
    open: watch::Sender<usize>,
    server: Server,
    shutdown: CancellationToken,
) -> io::Result<()> {
    let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect();
    if !local.ip().is_unspecified() && !local.ip().is_loopback() {
        hosts.push(local.ip().to_string());
    }
    hosts.extend(options.allowed_hosts.iter().cloned());
    let mut origins: Vec<String> = Vec::new();
    for host in LOOPBACK_HOSTS {
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.to_owned()
        };
        for scheme in ["http", "https"] {
            origins.push(format!("{scheme}://{host}:{}", local.port()));
        }
    }
    origins.extend(options.allowed_origins.iter().cloned());

    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_max_request_body_bytes(MAX_BODY_BYTES)
        .with_cancellation_token(shutdown.child_token());
    let handler = server.handler("http");
    let sessions = Arc::new(LocalSessionManager::default());
    let service =
        StreamableHttpService::new(move || Ok(handler.clone()), Arc::clone(&sessions), config);
    let flights = Arc::new(Flights::default());
    let token = options.auth_token.clone().map(Arc::new);
    let body_timeout = options.body_read_timeout;
    let mut errors = AcceptErrors::new();

    loop {
        let (stream, peer) = tokio::select! {
            accepted = acceptor.accept() => match accepted {
                Ok(accepted) => {
                    errors.succeeded();
                    accepted
                }
                Err(error) => {
                    let (pause, log) = errors.failed(tokio::time::Instant::now());
                    if let Some(failures) = log {
                        tracing::warn!(%error, failures, ?pause, "accept failed; pausing before the next one");
                    }
                    tokio::select! {
                        () = tokio::time::sleep(pause) => continue,
                        () = shutdown.cancelled() => return Ok(()),
                    }
                }
            },
            () = shutdown.cancelled() => return Ok(()),
        };
        let Some(slot) = Slot::take(&open, options.max_connections) else {
            refuse_busy(&stream);
            continue;
        };
        let service = service.clone();
        let token = token.clone();
        let sessions = Arc::clone(&sessions);
        let flights = Arc::clone(&flights);
        let connection_shutdown = shutdown.clone();
        let header_timeout = options.header_read_timeout;
        tokio::spawn(async move {
            let _slot = slot;
            let handle = hyper::service::service_fn(move |request: http::Request<Incoming>| {
                let mut service = service.clone();
                let token = token.clone();
                let sessions = Arc::clone(&sessions);
                let flights = Arc::clone(&flights);
                async move {
                    if request.uri().path() != ENDPOINT {
                        return Ok::<_, Infallible>(plain(
                            http::StatusCode::NOT_FOUND,
                            format!("not found; the MCP endpoint is {ENDPOINT}"),
                        ));
                    }
                    if let Some(token) = &token {
                        let header = request
                            .headers()
                            .get(http::header::AUTHORIZATION)
                            .map(http::HeaderValue::as_bytes);
                        if !token.accepts(header) {
                            let mut response = plain(
                                http::StatusCode::UNAUTHORIZED,
                                "missing or wrong bearer token".to_owned(),
                            );
                            response.headers_mut().insert(
                                http::header::WWW_AUTHENTICATE,
                                http::HeaderValue::from_static("Bearer"),
                            );
                            return Ok(response);
                        }
                    }
                    let (parts, body) = request.into_parts();
                    let read = Limited::new(body, MAX_BODY_BYTES).collect();
                    let Ok(read) = tokio::time::timeout(body_timeout, read).await else {
                        return Ok(plain(
                            http::StatusCode::REQUEST_TIMEOUT,
                            format!(
                                "Request Timeout: the request body did not arrive within {} s",
                                body_timeout.as_secs_f64()
                            ),
                        ));
                    };
                    let body = match read {
                        Ok(body) => body.to_bytes(),
                        Err(error) if error.is::<LengthLimitError>() => {
                            return Ok(plain(
                                http::StatusCode::PAYLOAD_TOO_LARGE,
                                format!(
                                    "Payload Too Large: request body exceeds {MAX_BODY_BYTES} bytes"
                                ),
                            ));
                        }
                        Err(error) => {
                            return Ok(plain(
                                http::StatusCode::BAD_REQUEST,
                                format!("the request body could not be read: {error}"),
                            ));
                        }
                    };
                    let is_json = is_json_body(&parts.headers);
                    let claim = match Flights::claim(&flights, &sessions, &parts.headers, &body) {
                        Ok(claim) => claim,
                        Err(refusal) => return Ok(json_answer(http::StatusCode::OK, &refusal)),
                    };
                    let request = http::Request::from_parts(parts, Full::new(body.clone()));
                    let response = service.call(request).await?;
                    let response = match claim {
                        Some(claim) => response.map(|inner| {
                            Tracked {
                                inner,
                                claim: Some(claim),
                            }
                            .boxed()
                        }),
                        None => response,
                    };
                    // The SDK answers a body it cannot read as a message with 415, as
                    // if its type were wrong; JSON-RPC's answer is a 400 carrying the
                    // error object.
                    if response.status() == http::StatusCode::UNSUPPORTED_MEDIA_TYPE
                        && is_json
                        && let Verdict::Answer(answer) = jsonrpc::read_message(&body)
                    {
                        return Ok(json_answer(http::StatusCode::BAD_REQUEST, &answer));
                    }
                    Ok(response)
                }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(TokioIo::new(stream), handle);
            tokio::pin!(connection);
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(error) = result {
                        tracing::debug!(%error, %peer, "connection ended with an error");
                    }
                }
                () = connection_shutdown.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
}

/// Answers a connection over the cap 503 with what it can write at once, and closes
/// it; nothing waits on a client that does not read.
fn refuse_busy(stream: &TcpStream) {
    let message = "Service Unavailable: the server is serving as many connections as it \
                   allows; retry later";
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n\
         Content-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\r\n{message}",
        message.len()
    );
    let _ = stream.try_write(response.as_bytes());
}

impl Server {
    /// Binds `addr` (after [`check_bind`]) and serves Streamable HTTP at [`ENDPOINT`]
    /// until `shutdown` is cancelled. Use [`HttpListener`] to learn the bound port.
    pub async fn serve_http(
        self,
        addr: SocketAddr,
        options: HttpOptions,
        shutdown: CancellationToken,
    ) -> io::Result<()> {
        HttpListener::bind(addr, options)
            .await?
            .serve(self, shutdown)
            .await
    }
}

/// Whether a request's `Content-Type` is JSON (the only type a message may have).
fn is_json_body(headers: &http::HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

/// A response with `status` carrying one JSON-RPC message.
fn json_answer(
    status: http::StatusCode,
    answer: &serde_json::Value,
) -> http::Response<BoxBody<Bytes, Infallible>> {
    let mut response = http::Response::new(Full::new(Bytes::from(answer.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

/// The requests in flight in the legacy sessions, as (session id, request id as JSON
/// text).
#[derive(Debug, Default)]
struct Flights(Mutex<HashSet<(String, String)>>);

impl Flights {
    /// The set, whatever panicked while holding it.
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<(String, String)>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes the place in flight of the request `body` holds when it belongs to a
    /// session; refuses it (the JSON-RPC answer) when its id is already in flight
    /// there. Nothing is claimed for a body that is not a request of a session.
    fn claim(
        flights: &Arc<Self>,
        sessions: &Arc<LocalSessionManager>,
        headers: &http::HeaderMap,
        body: &[u8],
    ) -> Result<Option<Claim>, Value> {
        let Some(session) = headers
            .get(SESSION_HEADER)
            .and_then(|value| value.to_str().ok())
        else {
            return Ok(None);
        };
        let Verdict::Deliver(message) = jsonrpc::read_message(body) else {
            return Ok(None);
        };
        let ClientJsonRpcMessage::Request(request) = *message else {
            return Ok(None);
        };
        let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
        let key = (session.to_owned(), id.to_string());
        if !flights.lock().insert(key.clone()) {
            return Err(jsonrpc::duplicate_id(&id));
        }
        Ok(Some(Claim {
            flights: Arc::clone(flights),
            sessions: Arc::clone(sessions),
            key,
            id,
            finished: false,
        }))
    }
}

/// The header naming a legacy session.
const SESSION_HEADER: &str = "Mcp-Session-Id";

/// A request's place in flight in its session, given up when its response ends.
/// Given up before that (the client hung up), it cancels the call, which then sends
/// no answer that a later request with the same id could receive.
#[derive(Debug)]
struct Claim {
    flights: Arc<Flights>,
    sessions: Arc<LocalSessionManager>,
    key: (String, String),
    id: Value,
    finished: bool,
}

impl Drop for Claim {
    fn drop(&mut self) {
        if !self.finished
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
            && let Ok(cancel) = serde_json::from_value::<ClientJsonRpcMessage>(json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": self.id, "reason": "the client closed the response stream"},
            }))
        {
            let sessions = Arc::clone(&self.sessions);
            let flights = Arc::clone(&self.flights);
            let key = self.key.clone();
            let session: SessionId = Arc::from(key.0.as_str());
            runtime.spawn(async move {
                if let Err(error) = sessions.accept_message(&session, cancel).await {
                    tracing::debug!(%error, "the session of a closed stream is gone");
                }
                flights.lock().remove(&key);
            });
            return;
        }
        self.flights.lock().remove(&self.key);
    }
}

/// A response body holding its request's place in flight until it ends.
struct Tracked {
    inner: BoxBody<Bytes, Infallible>,
    claim: Option<Claim>,
}

impl Body for Tracked {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if let Poll::Ready(None) = polled
            && let Some(mut claim) = this.claim.take()
        {
            claim.finished = true;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A plain-text response.
fn plain(status: http::StatusCode, message: String) -> http::Response<BoxBody<Bytes, Infallible>> {
    let mut response = http::Response::new(Full::new(Bytes::from(message)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_token() -> HttpOptions {
        HttpOptions {
            auth_token: Some(AuthToken::new("s3cret").unwrap()),
            ..HttpOptions::default()
        }
    }

    #[test]
    fn loopback_binds_without_a_token() {
        assert!(check_bind("127.0.0.1:0".parse().unwrap(), &HttpOptions::default()).is_ok());
        assert!(check_bind("[::1]:0".parse().unwrap(), &HttpOptions::default()).is_ok());
    }

    #[test]
    fn non_loopback_binds_are_refused_without_a_token() {
        for addr in [
            "0.0.0.0:8787",
            "[::]:8787",
            "192.168.1.10:8787",
            "10.0.0.1:80",
        ] {
            let error = check_bind(addr.parse().unwrap(), &HttpOptions::default()).unwrap_err();
            let message = error.to_string();
            assert!(message.contains("--auth-token-env"), "{message}");
            assert!(message.contains("--auth-token-file"), "{message}");
        }
    }

    #[test]
    fn non_loopback_binds_are_allowed_with_a_token() {
        assert!(check_bind("0.0.0.0:8787".parse().unwrap(), &with_token()).is_ok());
    }

    #[test]
    fn the_token_must_match_exactly() {
        let token = AuthToken::new("s3cret").unwrap();
        assert!(token.accepts(Some(b"Bearer s3cret")));
        assert!(!token.accepts(Some(b"Bearer s3cre")));
        assert!(!token.accepts(Some(b"Bearer s3cretx")));
        assert!(!token.accepts(Some(b"Basic s3cret")));
        assert!(!token.accepts(Some(b"s3cret")));
        assert!(!token.accepts(None));
    }

    /// Fails every `accept` with "too many open files", counting them, and stops the
    /// server at the `stop_at`-th.
    struct Exhausted {
        calls: usize,
        stop_at: usize,
        shutdown: CancellationToken,
    }

    impl Accept for Exhausted {
        async fn accept(&mut self) -> io::Result<(TcpStream, SocketAddr)> {
            self.calls += 1;
            if self.calls == self.stop_at {
                self.shutdown.cancel();
                std::future::pending::<()>().await;
            }
            Err(io::Error::from_raw_os_error(24))
        }
    }

    #[tokio::test(start_paused = true)]
    async fn failing_accepts_pause_longer_and_longer() {
        let shutdown = CancellationToken::new();
        let mut exhausted = Exhausted {
            calls: 0,
            stop_at: 41,
            shutdown: shutdown.clone(),
        };
        let started = tokio::time::Instant::now();
        let (open, _) = watch::channel(0);
        serve_from(
            &mut exhausted,
            "127.0.0.1:1".parse().unwrap(),
            HttpOptions::default(),
            open,
            Server::new("t", "1"),
            shutdown,
        )
        .await
        .unwrap();
        // 5, 10, … 640 ms, then 1 s for each of the other 32 failures.
        let least = Duration::from_millis(1275) + Duration::from_secs(32);
        assert!(started.elapsed() >= least, "{:?}", started.elapsed());
        assert_eq!(exhausted.calls, 41);
    }

    #[test]
    fn failing_accepts_are_logged_once_per_interval_with_their_count() {
        let mut errors = AcceptErrors::new();
        let start = tokio::time::Instant::now();
        let logged: Vec<u64> = (0..1000).filter_map(|_| errors.failed(start).1).collect();
        assert_eq!(logged, [1]);
        let (pause, log) = errors.failed(start + ACCEPT_LOG_EVERY);
        assert_eq!(log, Some(1000));
        assert_eq!(pause, ACCEPT_BACKOFF.1);
        errors.succeeded();
        assert_eq!(errors.failed(start + ACCEPT_LOG_EVERY).0, ACCEPT_BACKOFF.0);
    }

    #[test]
    fn an_empty_token_is_refused() {
        assert!(AuthToken::new("  \n").is_err());
        assert_eq!(
            format!("{:?}", AuthToken::new("x").unwrap()),
            "AuthToken(<redacted>)"
        );
    }
}
