//! One guarded GET: redirects hop by hop, deadlines, byte caps, decoding and charset.
//!
//! [`Fetcher`] is the library entry point the tools and the crawler call:
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcp_web_core::Error> {
//! use std::sync::Arc;
//! use mcp_web_core::config::Settings;
//! use mcp_web_core::fetch::Fetcher;
//! use mcp_web_core::page::PageText;
//! use mcp_web_core::guard::Policy;
//! use mcp_web_core::url::CheckedUrl;
//! use mcp_web_core::transport::SystemResolver;
//! use tokio_util::sync::CancellationToken;
//!
//! let options = Settings::default().fetch;
//! let fetcher = Fetcher::new(options, Policy::default(), Arc::new(SystemResolver))
//!     .expect("no ca-file to read");
//! let url = CheckedUrl::parse("https://example.com/")?;
//! let page = fetcher.fetch(&url, &CancellationToken::new()).await?;
//! // What web_fetch answers, its notice pointing at web_grep for a search of the page.
//! let answer = PageText::new(&page).render(40_000, "web_grep");
//! # Ok(()) }
//! ```
//!
//! A fetch is a loop of single requests. Each request goes through the guarded
//! [`Transport`] (a new connection is checked before any byte is written to it; a
//! pooled one was checked when it was opened). A redirect is not followed by the
//! HTTP client but decided by the pure [`next_hop`] function, and the next hop is a
//! fresh request, re-checked for shape and peer exactly as a first request.
//!
//! Deadlines: `connect-timeout` per connection (in the transport), `headers-timeout`
//! from sending a request until its response headers, `timeout` per request (headers
//! and body), `total-timeout` for the whole tool call, every fetch and redirect of it
//! (the [`Allowance`] a tool call makes once and passes to each fetch). A deadline that
//! expires before the headers is a [`Deadline`] error naming
//! its phase and key; one that expires while reading the body keeps the head and
//! marks the page [`Truncation::Deadline`], as the byte cap marks it
//! [`Truncation::ByteCap`].
//!
//! Bodies are decoded as a stream (gzip, deflate, br, zstd) and `max-bytes` caps the
//! decoded bytes, so a compression bomb stops at the cap. Text is decoded to UTF-8
//! as a browser would choose the encoding (see [`charset`]). A PDF (declared, or sniffed
//! from `%PDF-`) is read whole up to `max-pdf-bytes` instead, refused when larger, and
//! turned into its text off the async threads within the deadline
//! ([`crate::extract::pdf::read`]).
//!
//! Each request goes through the fetcher's HTTP [`Cache`] first (calls without a one-time
//! grant only): a fresh entry answers the hop without a request, a stale one with a
//! validator makes the request conditional, and what a hop answered is kept when the
//! rules allow it (see [`cache`]).

mod allowance;
pub mod cache;
pub mod charset;
pub mod pdf;
mod redirect;

use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use futures::TryStreamExt;
use http::header;
use http_body_util::{BodyExt, Empty};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt};
use tokio::time::{Instant, timeout_at};
use tokio_util::io::StreamReader;
use tokio_util::sync::CancellationToken;

use crate::error::{
    BadUrl, BadUrlReason, ConfigError, Content, Deadline, Error, Http, Phase, Problem,
    Transport as TransportError, TransportFailure,
};
use crate::extract::pdf::Failure as PdfFailure;
use crate::extract::{self, Extracted};
use crate::guard::Policy;
use crate::key::ConfigKey;
use crate::media::{self, Declared, Kind};
use crate::transport::{CheckedPeer, ConnectError, NetworkOptions, Resolve, Transport};
use crate::url::CheckedUrl;
use crate::work;

pub use allowance::{Allowance, AnyHop, Checked, HopCheck};
pub use cache::{Cache, CacheConfig, Clock, SystemClock};
pub use redirect::{Hop, MAX_REDIRECTS, next_hop};

/// The limits and identity of a fetch (the fetch-related config keys). Their defaults
/// live in the configuration's key table: `Settings::default().fetch`.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchOptions {
    /// Cap on decoded body bytes read (`max-bytes`).
    pub max_bytes: usize,
    /// Cap on the size of a PDF, which is read whole (`max-pdf-bytes`).
    pub max_pdf_bytes: usize,
    /// Budget from sending a request until its response headers (`headers-timeout`).
    pub headers_timeout: Duration,
    /// Budget for one request, headers and body (`timeout`).
    pub timeout: Duration,
    /// Budget for one tool call, every fetch and redirect included (`total-timeout`);
    /// [`Fetcher::allowance`] starts an [`Allowance`] with it.
    pub total_timeout: Duration,
    /// How the fetcher reaches the network: `connect-timeout`, `proxy`, `ca-file`,
    /// `user-agent`.
    pub network: NetworkOptions,
    /// The HTTP cache: `cache-bytes`, `cache-max-age`, shared or private.
    pub cache: CacheConfig,
}

/// Why a page's text stops before the end of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truncation {
    /// `max-bytes` decoded bytes were read and more remained.
    ByteCap {
        /// The cap, in bytes.
        limit: usize,
    },
    /// A deadline expired while the body was being read.
    Deadline {
        /// The key whose budget ran out (`timeout` or `total-timeout`).
        key: ConfigKey,
        /// That budget.
        limit: Duration,
    },
    /// The page has more elements than `max-bytes` lets the extractor build
    /// ([`extract::max_elements`]): its text stops at the last one read.
    Elements {
        /// The elements read.
        limit: usize,
    },
}

/// One fetched page: its decoded text and what is known about it.
#[derive(Debug, Clone)]
pub struct Page {
    /// The URL asked for.
    pub url: CheckedUrl,
    /// The URL that answered, after redirects.
    pub final_url: CheckedUrl,
    /// Every URL requested, in order, the first and the final included.
    pub chain: Vec<CheckedUrl>,
    /// The final status (2xx).
    pub status: u16,
    /// The declared Content-Type, or `""` when there was none.
    pub content_type: String,
    /// What the body is.
    pub kind: Kind,
    /// The name of the encoding the body was decoded from (`"UTF-8"`, `"Shift_JIS"` …).
    pub charset: &'static str,
    /// The vetted peer the final response came from.
    pub peer: CheckedPeer,
    /// The body: decoded text still to extract, or a document's text the fetch read.
    pub body: Body,
    /// How many decoded body bytes were read.
    pub bytes: usize,
    /// Why the body stops early, if it does.
    pub truncated: Option<Truncation>,
    /// True when the body came from the fetcher's cache (fresh, or confirmed by a `304`).
    pub cached: bool,
    /// The page's extraction once made, shared by the page's clones: a page kept in the
    /// cache is extracted once, not at every hit.
    pub(crate) extraction: Extraction,
    /// The elements the extractor may build of the page ([`extract::max_elements`] of the
    /// call's `max-bytes`).
    pub(crate) max_elements: usize,
}

/// A fetched page's body, one meaning per variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// The body decoded to UTF-8, to be extracted as its [`Kind`] says (HTML is still
    /// markup here; [`crate::page::PageText`] extracts it).
    Decoded(String),
    /// A document the fetch turned into text itself (a PDF, read off the async threads):
    /// its pages' text under `[page N]` markers, and the title the document gave.
    Read {
        /// The document's text.
        text: String,
        /// The document's own title, when it gives one.
        title: Option<String>,
    },
}

impl Body {
    /// The body's text: the decoded body, or the text read from the document.
    pub fn text(&self) -> &str {
        match self {
            Body::Decoded(text) | Body::Read { text, .. } => text,
        }
    }

    /// The body's text, owned.
    pub fn into_text(self) -> String {
        match self {
            Body::Decoded(text) | Body::Read { text, .. } => text,
        }
    }

    /// The title the document itself gave when the fetch read it; `None` for a decoded
    /// body, whose title the extractor finds.
    pub fn title(&self) -> Option<&str> {
        match self {
            Body::Decoded(_) => None,
            Body::Read { title, .. } => title.as_deref(),
        }
    }
}

/// A page's extraction, made at most once and shared by the clones of the page (see
/// [`Page::extract`]).
#[derive(Clone, Default)]
pub(crate) struct Extraction(Arc<OnceLock<Extracted>>);

impl fmt::Debug for Extraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "Extraction(made)"
        } else {
            "Extraction(not yet)"
        })
    }
}

/// What a kept extraction may weigh beyond its page's text size (a short page's lines
/// cost more in string headers than in text); within the entry's fixed overhead.
const EXTRACTION_SLACK: usize = 256;

/// What one extraction holds in memory, roughly: its strings and their headers, each
/// link's parsed form. A page kept in the cache keeps its extraction only within the
/// bytes its entry was weighed for (its text's size again, and a little).
fn extraction_bytes(extracted: &Extracted) -> usize {
    const STRING: usize = std::mem::size_of::<String>();
    const LINK: usize = std::mem::size_of::<url::Url>();
    extracted
        .lines
        .iter()
        .map(|line| line.len() + STRING)
        .chain(
            extracted
                .links
                .iter()
                .map(|link| link.as_str().len() + LINK),
        )
        .sum::<usize>()
        + extracted.title.as_ref().map_or(0, String::len)
        + extracted.lang.as_ref().map_or(0, String::len)
}

impl Page {
    /// The body's text (see [`Body::text`]).
    pub fn text(&self) -> &str {
        self.body.text()
    }

    /// Drops the body's text, keeping what is known about the page (a document's own
    /// title included): for a holder that keeps the page's extraction, not its body.
    pub(crate) fn drop_text(&mut self) {
        match &mut self.body {
            Body::Decoded(text) | Body::Read { text, .. } => *text = String::new(),
        }
    }

    /// True when a redirect moved the page away from the URL asked for.
    pub fn redirected(&self) -> bool {
        !redirect::same_resource(&self.final_url, &self.url)
    }

    /// Whether the page's extraction is already made and kept: a page the cache answers
    /// again after a call extracted it is.
    pub fn is_extracted(&self) -> bool {
        self.extraction.0.get().is_some()
    }

    /// The page run through the extractor (once per call: keep what it returns, or
    /// use [`crate::page::PageText`], which holds it as numbered lines). The extraction
    /// is kept with the page, within the page's text size, so a page the cache answers
    /// again is not extracted again.
    pub fn extract(&self) -> Extracted {
        self.extract_keeping(usize::MAX)
    }

    /// The page run through the extractor as [`Page::extract`] does, keeping its first
    /// `max_links` links. An extraction that left links or elements out is not the page's
    /// whole: it is not kept with the page.
    pub(crate) fn extract_keeping(&self, max_links: usize) -> Extracted {
        if let Some(made) = self.extraction.0.get() {
            let mut made = made.clone();
            made.links.truncate(max_links);
            return made;
        }
        let text = self.body.text();
        let mut extracted = extract::extract_keeping(
            text,
            self.kind,
            self.final_url.url(),
            max_links,
            self.max_elements,
        );
        if let Some(title) = self.body.title() {
            extracted.title = Some(title.to_owned());
        }
        if extracted.links.len() < max_links
            && !extracted.flags.elements_cut
            && extraction_bytes(&extracted) <= text.len() + EXTRACTION_SLACK
        {
            // Another clone may have made it meanwhile: the same lines either way.
            let _ = self.extraction.0.set(extracted.clone());
        }
        extracted
    }
}

/// The guarded fetcher: one pool of vetted connections for one guard policy. Clones
/// share the pool; build another `Fetcher` for another policy.
#[derive(Clone)]
pub struct Fetcher {
    client: HttpClient,
    transport: Transport,
    options: Arc<FetchOptions>,
    cache: Option<Cache>,
}

impl fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fetcher")
            .field("transport", &self.transport)
            .field("options", &self.options)
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

/// The HTTP client over the guarded transport.
type HttpClient = Client<Transport, Empty<Bytes>>;

/// What answered one request, before its body is read.
struct Answer {
    response: http::Response<Incoming>,
    /// When this request's `timeout` runs out.
    request_deadline: Instant,
}

/// What answered one hop: the origin (and the request sent), or the cache.
#[expect(
    clippy::large_enum_variant,
    reason = "one per hop, taken apart at once; most hops are answered by the origin"
)]
enum Reply {
    /// The origin answered this request.
    Origin(Answer, http::request::Parts),
    /// A stored entry answered.
    Stored(Arc<cache::Entry>),
}

impl Fetcher {
    /// A fetcher for `policy`, resolving names with `resolver`. Fails only when
    /// `ca-file` cannot be read.
    pub fn new(
        options: FetchOptions,
        policy: Policy,
        resolver: Arc<dyn Resolve>,
    ) -> Result<Fetcher, ConfigError> {
        let transport = Transport::new(policy, resolver, options.network.clone())?;
        let client = Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(Duration::from_secs(90))
            .pool_max_idle_per_host(8)
            .build(transport.clone());
        Ok(Fetcher {
            client,
            transport,
            cache: Cache::new(options.cache),
            options: Arc::new(options),
        })
    }

    /// This fetcher with its cache (empty) reading the time from `clock` (tests move
    /// time by hand).
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Fetcher {
        self.cache = self.cache.map(|cache| cache.with_clock(clock));
        self
    }

    /// The HTTP cache, unless `cache-bytes` is 0.
    pub fn cache(&self) -> Option<&Cache> {
        self.cache.as_ref()
    }

    /// The options this fetcher was built with.
    pub fn options(&self) -> &FetchOptions {
        &self.options
    }

    /// The guarded transport under this fetcher.
    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// A new call's allowance: `total-timeout` from now for all of its fetches, stopped
    /// early when `cancel` fires. A tool call makes one and passes it to every fetch.
    pub fn allowance(&self, cancel: CancellationToken) -> Allowance {
        Allowance::new(self.options.total_timeout, cancel)
    }

    /// Fetches one page as a call of its own: an [`Allowance`] of `total-timeout` from
    /// now, stopped at once with [`Error::Cancelled`] when `cancel` fires. The plain
    /// entry point; a tool call uses [`Fetcher::fetch_within`].
    pub async fn fetch(&self, url: &CheckedUrl, cancel: &CancellationToken) -> Result<Page, Error> {
        self.fetch_within(url, &self.allowance(cancel.clone()))
            .await
    }

    /// Fetches one page within the allowance `call`, following up to its redirect budget
    /// hop by hop, reading up to its byte cap, until its deadline. Stops at once with
    /// [`Error::Cancelled`] when the call is cancelled. A call with a one-time grant is
    /// fetched over connections of its own, which are never pooled.
    pub async fn fetch_within(&self, url: &CheckedUrl, call: &Allowance) -> Result<Page, Error> {
        match self.fetch_checked(url, call, &AnyHop).await? {
            Checked::Page(page) => Ok(page),
            Checked::Stopped { stop, .. } => match stop {},
        }
    }

    /// Fetches one page as [`Fetcher::fetch_within`] does, and asks `check` before each
    /// redirect hop is requested (what a walk does); a hop it refuses ends the fetch as
    /// [`Checked::Stopped`], that hop unrequested.
    pub async fn fetch_checked<C: HopCheck>(
        &self,
        url: &CheckedUrl,
        call: &Allowance,
        check: &C,
    ) -> Result<Checked<C::Stop>, Error> {
        let granted;
        let client = match call.grant() {
            None => &self.client,
            Some(grant) => {
                granted = Client::builder(TokioExecutor::new())
                    .pool_max_idle_per_host(0)
                    .build(self.transport.granting(grant.clone()));
                &granted
            }
        };
        tokio::select! {
            biased;
            () = call.cancellation().cancelled() => Err(Error::Cancelled),
            page = self.fetch_chain(client, url, call, check) => page,
        }
    }

    async fn fetch_chain<C: HopCheck>(
        &self,
        client: &HttpClient,
        url: &CheckedUrl,
        call: &Allowance,
        check: &C,
    ) -> Result<Checked<C::Stop>, Error> {
        // A granted call neither reads nor fills the cache.
        let cache = self.cache.as_ref().filter(|_| call.grant().is_none());
        let mut chain = vec![url.clone()];
        let mut current = url.clone();
        loop {
            let reply = self.reply(client, &current, call, cache).await?;
            let (status, location) = match &reply {
                Reply::Origin(answer, _) => (
                    answer.response.status().as_u16(),
                    answer
                        .response
                        .headers()
                        .get(header::LOCATION)
                        .map(http::HeaderValue::as_bytes),
                ),
                Reply::Stored(entry) => match &entry.stored {
                    cache::Stored::Redirect { status, location } => {
                        (*status, Some(location.as_slice()))
                    }
                    cache::Stored::Page { page, .. } => (page.status, None),
                },
            };
            match next_hop(&current, status, location, &chain, call.max_redirects())? {
                Hop::Follow(next) => {
                    if let (Some(cache), Reply::Origin(answer, sent), Some(location)) =
                        (cache, &reply, location)
                    {
                        let head = response_head(&answer.response);
                        let stored = cache::Stored::Redirect {
                            status,
                            location: location.to_vec(),
                        };
                        cache.store(target(&current), sent, &head, stored);
                    }
                    if let Err(stop) = check.check(&next, &chain).await {
                        return Ok(Checked::Stopped {
                            chain,
                            hop: next,
                            stop,
                        });
                    }
                    chain.push(next.clone());
                    current = next;
                }
                Hop::Done => {
                    let page = match reply {
                        Reply::Stored(entry) => match &entry.stored {
                            cache::Stored::Page { page, .. } => Page {
                                url: url.clone(),
                                final_url: current,
                                chain,
                                cached: true,
                                max_elements: extract::max_elements(self.text_cap(call)),
                                ..Page::clone(page)
                            },
                            // `next_hop` follows every stored redirect.
                            cache::Stored::Redirect { .. } => {
                                return Err(transport_error(
                                    &current,
                                    TransportFailure::Other,
                                    &"a stored redirect was not followed",
                                ));
                            }
                        },
                        Reply::Origin(answer, sent) => {
                            let head = cache.map(|_| response_head(&answer.response));
                            let key = target(&current).to_owned();
                            let page = self
                                .read_page(url, current, chain, answer, call, check)
                                .await?;
                            if let (Some(cache), Some(head)) = (cache, head)
                                && cache::storable_page(&page)
                            {
                                let stored = cache::Stored::Page {
                                    page: Box::new(page.clone()),
                                    cap: self.text_cap(call),
                                };
                                cache.store(&key, &sent, &head, stored);
                            }
                            page
                        }
                    };
                    return Ok(Checked::Page(page));
                }
            }
        }
    }

    /// Whether a fetch of `url` within `call` would be answered by the cache alone, each
    /// hop of its chain fresh: the origin would not be asked, so a walk's politeness
    /// delay need not be waited for it.
    pub fn answers_from_cache(&self, url: &CheckedUrl, call: &Allowance) -> bool {
        let Some(cache) = self.cache.as_ref().filter(|_| call.grant().is_none()) else {
            return false;
        };
        let mut chain = vec![url.clone()];
        let mut current = url.clone();
        loop {
            let Ok(head) = self.request_head(&current) else {
                return false;
            };
            let cache::Lookup::Fresh(entry) =
                cache.lookup(target(&current), &head, self.text_cap(call))
            else {
                return false;
            };
            let cache::Stored::Redirect { status, location } = &entry.stored else {
                return true;
            };
            match next_hop(
                &current,
                *status,
                Some(location),
                &chain,
                call.max_redirects(),
            ) {
                Ok(Hop::Follow(next)) => {
                    chain.push(next.clone());
                    current = next;
                }
                _ => return false,
            }
        }
    }

    /// The text byte cap of `call`'s responses: its own, or `max-bytes`.
    fn text_cap(&self, call: &Allowance) -> usize {
        call.max_bytes().unwrap_or(self.options.max_bytes)
    }

    /// Answers one hop: from `cache` when it holds a fresh entry, else from the origin,
    /// conditionally when it holds a stale entry with a validator (a `304` refreshes
    /// the entry, which then answers).
    async fn reply(
        &self,
        client: &HttpClient,
        url: &CheckedUrl,
        call: &Allowance,
        cache: Option<&Cache>,
    ) -> Result<Reply, Error> {
        let head = self.request_head(url)?;
        let Some(cache) = cache else {
            let answer = self.request(client, url, head.clone(), call).await?;
            return Ok(Reply::Origin(answer, head));
        };
        let key = target(url);
        let stale = match cache.lookup(key, &head, self.text_cap(call)) {
            cache::Lookup::Fresh(entry) => return Ok(Reply::Stored(entry)),
            cache::Lookup::Stale(entry) => entry,
            cache::Lookup::Miss => {
                let answer = self.request(client, url, head.clone(), call).await?;
                return Ok(Reply::Origin(answer, head));
            }
        };
        let mut conditional = head.clone();
        stale.conditional(&mut conditional.headers);
        let answer = self.request(client, url, conditional.clone(), call).await?;
        if answer.response.status() != http::StatusCode::NOT_MODIFIED {
            return Ok(Reply::Origin(answer, head));
        }
        let not_modified = response_head(&answer.response);
        if let Some(entry) = cache.refresh(key, &stale, &conditional, &not_modified) {
            return Ok(Reply::Stored(entry));
        }
        // A 304 for another response than the one stored: ask again, unconditionally.
        let answer = self.request(client, url, head.clone(), call).await?;
        Ok(Reply::Origin(answer, head))
    }

    /// The head of the GET for `url`: what is sent, and what the cache's rules read.
    fn request_head(&self, url: &CheckedUrl) -> Result<http::request::Parts, Error> {
        let uri: http::Uri = target(url).parse().map_err(|e: http::uri::InvalidUri| {
            Error::BadUrl(BadUrl {
                url: url.to_string(),
                reason: BadUrlReason::Unparseable(e.to_string()),
            })
        })?;
        let request = http::Request::get(uri)
            .header(header::USER_AGENT, self.options.network.user_agent.as_str())
            .header(
                header::ACCEPT,
                "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5",
            )
            .header(header::ACCEPT_ENCODING, "gzip, deflate, br, zstd")
            .body(())
            .map_err(|e| transport_error(url, TransportFailure::Other, &e))?;
        Ok(request.into_parts().0)
    }

    /// Sends one GET with `head` and waits for its response headers.
    async fn request(
        &self,
        client: &HttpClient,
        url: &CheckedUrl,
        head: http::request::Parts,
        call: &Allowance,
    ) -> Result<Answer, Error> {
        let request = http::Request::from_parts(head, Empty::new());
        let started = Instant::now();
        if call.expired() {
            return Err(Error::Deadline(Deadline {
                url: url.to_string(),
                phase: Phase::Connecting,
                key: ConfigKey::TotalTimeout,
                limit: call.budget(),
            }));
        }
        let request_deadline = allowance::after(started, self.options.timeout);
        let (deadline, key, limit) = earliest(&[
            (
                allowance::after(started, self.options.headers_timeout),
                ConfigKey::HeadersTimeout,
                self.options.headers_timeout,
            ),
            (request_deadline, ConfigKey::Timeout, self.options.timeout),
            (call.deadline(), ConfigKey::TotalTimeout, call.budget()),
        ]);
        match timeout_at(deadline, client.request(request)).await {
            Err(_) => Err(Error::Deadline(Deadline {
                url: url.to_string(),
                phase: Phase::ReadingHeaders,
                key,
                limit,
            })),
            Ok(Err(e)) => Err(client_error(url, &e)),
            Ok(Ok(response)) => Ok(Answer {
                response,
                request_deadline,
            }),
        }
    }

    /// Reads the final answer's body and turns it into a page or an error: the head
    /// read, an error status answered with an excerpt of its page, a body no reader
    /// takes refused on its declared type, the body read up to its cap, classified, and
    /// decoded or (a PDF) read into text.
    async fn read_page<C: HopCheck>(
        &self,
        asked: &CheckedUrl,
        url: CheckedUrl,
        chain: Vec<CheckedUrl>,
        answer: Answer,
        call: &Allowance,
        check: &C,
    ) -> Result<Page, Error> {
        let (parts, body) = answer.response.into_parts();
        let head = Head::read(&url, &parts)?;
        let (deadline, key, limit) = earliest(&[
            (
                answer.request_deadline,
                ConfigKey::Timeout,
                self.options.timeout,
            ),
            (call.deadline(), ConfigKey::TotalTimeout, call.budget()),
        ]);
        let budget = BodyBudget {
            deadline,
            key,
            limit,
            call: call.deadline(),
            call_limit: call.budget(),
        };
        if !(200..300).contains(&head.status) {
            return Err(error_page(&url, &head, body, budget).await);
        }
        let declared = media::declared(&head.content_type);
        let pdf_cap = self.options.max_pdf_bytes;
        head.refuse_declared(&url, declared, pdf_cap)?;
        let cap = body_cap(declared, self.text_cap(call), pdf_cap);
        let (bytes, truncated) =
            read_body(&url, body, &head.encoding, cap, budget, check.large_body()).await?;
        let kind = head.classify(&url, &bytes)?;
        let size = bytes.len();
        let (body, charset, truncated) = if kind == Kind::Pdf {
            let read = read_pdf(&url, &head, bytes, truncated, pdf_cap, budget).await?;
            (read, "UTF-8", None)
        } else {
            let (decoded, encoding_used, _) = charset::decode_owned(
                bytes,
                head.charset.as_deref(),
                kind == Kind::Html,
                kind == Kind::Json,
                truncated.is_some(),
            );
            (Body::Decoded(decoded), encoding_used.name(), truncated)
        };
        Ok(Page {
            url: asked.clone(),
            final_url: url,
            chain,
            status: head.status,
            content_type: head.content_type,
            kind,
            charset,
            peer: head.peer,
            body,
            bytes: size,
            truncated,
            cached: false,
            extraction: Extraction::default(),
            max_elements: extract::max_elements(self.text_cap(call)),
        })
    }
}

/// What the final answer's head says of its body.
struct Head {
    /// The status.
    status: u16,
    /// The vetted peer the answer came from.
    peer: CheckedPeer,
    /// The declared Content-Type, trimmed, or `""`.
    content_type: String,
    /// The declared Content-Length, when it is a number.
    declared_len: Option<u64>,
    /// The Content-Encoding, lowercase, or `""`.
    encoding: String,
    /// The Content-Type's charset parameter.
    charset: Option<String>,
    /// The Retry-After header, trimmed.
    retry_after: Option<String>,
}

impl Head {
    /// The head of `parts`, the answer for `url`; fails when the connection carried no
    /// vetted peer.
    fn read(url: &CheckedUrl, parts: &http::response::Parts) -> Result<Head, Error> {
        let peer = parts
            .extensions
            .get::<CheckedPeer>()
            .copied()
            .ok_or_else(|| {
                transport_error(
                    url,
                    TransportFailure::Other,
                    &"the connection carried no vetted peer",
                )
            })?;
        let header = |name: header::HeaderName| {
            parts
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
                .map(str::to_owned)
        };
        let content_type = header(header::CONTENT_TYPE).unwrap_or_default();
        let charset = charset::charset_param(&content_type).map(str::to_owned);
        Ok(Head {
            status: parts.status.as_u16(),
            peer,
            declared_len: header(header::CONTENT_LENGTH).and_then(|l| l.parse::<u64>().ok()),
            encoding: header(header::CONTENT_ENCODING)
                .unwrap_or_default()
                .to_ascii_lowercase(),
            retry_after: header(header::RETRY_AFTER),
            charset,
            content_type,
        })
    }

    /// Refuses, before reading it, a body declared as a type no reader takes, or a PDF
    /// declared larger than `pdf_cap` (`max-pdf-bytes`).
    fn refuse_declared(
        &self,
        url: &CheckedUrl,
        declared: Declared,
        pdf_cap: usize,
    ) -> Result<(), Error> {
        if declared == Declared::NotText {
            return Err(self.content(url, self.declared_len, Problem::NotText));
        }
        if declared == Declared::Text(Kind::Pdf)
            && self.declared_len.is_some_and(|n| n > pdf_cap as u64)
        {
            return Err(self.pdf_too_large(url, pdf_cap));
        }
        Ok(())
    }

    /// What the body `bytes` is, or the refusal of a body no reader takes.
    fn classify(&self, url: &CheckedUrl, bytes: &[u8]) -> Result<Kind, Error> {
        media::classify(&self.content_type, bytes).ok_or_else(|| {
            let essence = media::essence(&self.content_type);
            Error::Content(Content {
                url: url.to_string(),
                content_type: if essence.is_empty() {
                    "application/octet-stream (undeclared)".to_owned()
                } else {
                    essence
                },
                bytes: Some(bytes.len() as u64),
                problem: Problem::NotText,
            })
        })
    }

    /// The refusal of a PDF larger than `pdf_cap`.
    fn pdf_too_large(&self, url: &CheckedUrl, pdf_cap: usize) -> Error {
        self.content(
            url,
            self.declared_len,
            Problem::PdfTooLarge {
                limit: pdf_cap as u64,
            },
        )
    }

    /// A content refusal of this answer's declared type.
    fn content(&self, url: &CheckedUrl, bytes: Option<u64>, problem: Problem) -> Error {
        Error::Content(Content {
            url: url.to_string(),
            content_type: media::essence(&self.content_type),
            bytes,
            problem,
        })
    }
}

/// When reading a body must end, and the key and budget a deadline names.
#[derive(Debug, Clone, Copy)]
struct BodyBudget {
    deadline: Instant,
    key: ConfigKey,
    limit: Duration,
    /// The call's own deadline (`total-timeout`), which a wait for the caller's turn to
    /// read a large body counts against (not the request's `timeout`).
    call: Instant,
    /// The call's budget (`total-timeout`).
    call_limit: Duration,
}

/// The error an answer with a status other than 2xx makes: a little of its page is read
/// for its title or first line.
async fn error_page(url: &CheckedUrl, head: &Head, body: Incoming, budget: BodyBudget) -> Error {
    let (bytes, cut) = read_body(
        url,
        body,
        &head.encoding,
        Cap::Fixed(64 * 1024),
        budget,
        std::future::ready(()),
    )
    .await
    .unwrap_or_default();
    let kind = media::classify(&head.content_type, &bytes);
    let (decoded, _, _) = charset::decode(
        &bytes,
        head.charset.as_deref(),
        kind == Some(Kind::Html),
        kind == Some(Kind::Json),
        cut.is_some(),
    );
    let retry_after = match head.status {
        429 | 503 => head.retry_after.clone().map(|v| {
            if v.bytes().all(|b| b.is_ascii_digit()) {
                format!("{v} seconds")
            } else {
                v
            }
        }),
        _ => None,
    };
    Error::Http(Http {
        url: url.to_string(),
        status: head.status,
        excerpt: excerpt(&decoded, kind, url),
        retry_after,
    })
}

/// How much of a body of the `declared` kind is read: a PDF whole, up to its own cap
/// (`max-pdf-bytes`); an undeclared body as a PDF when it starts as one; any other body
/// up to `text_cap` (`max-bytes`, or the call's own).
fn body_cap(declared: Declared, text_cap: usize, pdf_cap: usize) -> Cap {
    if declared == Declared::Text(Kind::Pdf) {
        Cap::Fixed(pdf_cap)
    } else if declared == Declared::Unknown {
        Cap::PdfAware {
            text: text_cap,
            pdf: pdf_cap,
        }
    } else {
        Cap::Fixed(text_cap)
    }
}

/// A PDF read whole (`bytes`; `truncated` says how its reading stopped early) turned
/// into its text off the async threads, within the budget's deadline.
async fn read_pdf(
    url: &CheckedUrl,
    head: &Head,
    bytes: Vec<u8>,
    truncated: Option<Truncation>,
    pdf_cap: usize,
    budget: BodyBudget,
) -> Result<Body, Error> {
    match truncated {
        Some(Truncation::ByteCap { .. }) => return Err(head.pdf_too_large(url, pdf_cap)),
        Some(Truncation::Deadline { key, limit }) => {
            return Err(Error::Deadline(Deadline {
                url: url.to_string(),
                phase: Phase::ReadingBody,
                key,
                limit,
            }));
        }
        // Reading a body counts no elements.
        Some(Truncation::Elements { .. }) | None => {}
    }
    let size = bytes.len();
    match pdf::read(bytes, pdf_cap, budget.deadline).await {
        Ok(pdf) => Ok(Body::Read {
            text: pdf.text,
            title: pdf.title,
        }),
        Err(PdfFailure::Problem(problem)) => Err(Error::Content(Content {
            url: url.to_string(),
            content_type: "application/pdf".to_owned(),
            bytes: Some(size as u64),
            problem,
        })),
        Err(PdfFailure::Deadline) => Err(Error::Deadline(Deadline {
            url: url.to_string(),
            phase: Phase::ReadingBody,
            key: budget.key,
            limit: budget.limit,
        })),
    }
}

/// How many decoded bytes [`read_body`] reads.
#[derive(Debug, Clone, Copy)]
enum Cap {
    /// This many.
    Fixed(usize),
    /// `pdf` when the body starts as a PDF does, else `text`.
    PdfAware {
        /// The cap of a body that is not a PDF (`max-bytes`).
        text: usize,
        /// The cap of a PDF (`max-pdf-bytes`).
        pdf: usize,
    },
}

/// A short excerpt of an error page: its title, else its first non-empty line, cut
/// to 200 characters.
fn excerpt(body: &str, kind: Option<Kind>, url: &CheckedUrl) -> Option<String> {
    let extracted = extract::extract_as(body, kind.unwrap_or(Kind::Text), url.url());
    let line = extracted.title.or_else(|| {
        extracted
            .lines
            .iter()
            .map(|l| l.trim().trim_start_matches('#').trim())
            .find(|l| !l.is_empty())
            .map(str::to_owned)
    })?;
    let mut cut: String = line.chars().take(200).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    Some(cut)
}

/// What a request for `url` asks for: the URL without its fragment. The cache's key.
fn target(url: &CheckedUrl) -> &str {
    url.as_str()
        .split_once('#')
        .map_or(url.as_str(), |(before, _)| before)
}

/// The status and headers of `response`, without its body: what the cache's rules read.
fn response_head(response: &http::Response<Incoming>) -> http::response::Parts {
    let mut head = http::Response::new(());
    *head.status_mut() = response.status();
    *head.version_mut() = response.version();
    head.headers_mut().clone_from(response.headers());
    head.into_parts().0
}

/// The earliest of several deadlines, with its key and budget.
fn earliest(deadlines: &[(Instant, ConfigKey, Duration)]) -> (Instant, ConfigKey, Duration) {
    let mut best = deadlines[0];
    for &d in &deadlines[1..] {
        if d.0 < best.0 {
            best = d;
        }
    }
    best
}

/// How many bytes past twice the decoded cap a compressed body may take on the wire:
/// an incompressible body grows by a few header bytes, and the stream may hold one
/// chunk more than the decoder took.
const COMPRESSED_SLACK: usize = 64 * 1024;

/// Reads a body, decoding its Content-Encoding as a stream, up to `cap` decoded
/// bytes or the deadline; says which one cut it, if any. The bytes of an encoded body
/// read from the wire are capped too (twice the largest decoded cap and
/// [`COMPRESSED_SLACK`]): one that decodes to little or nothing stops there, as if at
/// the byte cap. Once [`work::LARGE`] bytes are read, `large` is awaited (within the
/// deadline) before reading on.
async fn read_body(
    url: &CheckedUrl,
    body: Incoming,
    encoding: &str,
    cap: Cap,
    budget: BodyBudget,
    large: impl Future<Output = ()>,
) -> Result<(Vec<u8>, Option<Truncation>), Error> {
    let BodyBudget {
        mut deadline,
        mut key,
        mut limit,
        ..
    } = budget;
    let mut large = Some(large);
    let wire_cap = if matches!(encoding, "" | "identity") {
        usize::MAX
    } else {
        match cap {
            Cap::Fixed(cap) => cap,
            Cap::PdfAware { text, pdf } => text.max(pdf),
        }
        .saturating_mul(2)
        .saturating_add(COMPRESSED_SLACK)
    };
    let mut wire_read = 0usize;
    let stream = body
        .into_data_stream()
        .map_err(|e| std::io::Error::other(Box::new(e)))
        .and_then(move |chunk: Bytes| {
            wire_read = wire_read.saturating_add(chunk.len());
            std::future::ready(if wire_read > wire_cap {
                Err(std::io::Error::other(WireCapReached))
            } else {
                Ok(chunk)
            })
        });
    let mut raw = StreamReader::new(stream);
    let mut reader: Pin<Box<dyn AsyncRead + Send>> = match encoding {
        "" | "identity" => Box::pin(raw),
        "gzip" | "x-gzip" => {
            let mut d = async_compression::tokio::bufread::GzipDecoder::new(raw);
            d.multiple_members(true);
            Box::pin(d)
        }
        "deflate" => {
            // Servers send zlib-wrapped deflate (the standard) or raw deflate; look.
            let zlib = match timeout_at(deadline, raw.fill_buf()).await {
                Ok(Ok(head)) => {
                    head.len() < 2
                        || (head[0] & 0x0f == 8
                            && (u16::from(head[0]) << 8 | u16::from(head[1])) % 31 == 0)
                }
                _ => true,
            };
            if zlib {
                Box::pin(async_compression::tokio::bufread::ZlibDecoder::new(raw))
            } else {
                Box::pin(async_compression::tokio::bufread::DeflateDecoder::new(raw))
            }
        }
        "br" => Box::pin(async_compression::tokio::bufread::BrotliDecoder::new(raw)),
        "zstd" => Box::pin(async_compression::tokio::bufread::ZstdDecoder::new(raw)),
        other => {
            return Err(transport_error(
                url,
                TransportFailure::Protocol,
                &format!(
                    "unsupported Content-Encoding '{}'",
                    crate::error::quoted(other)
                ),
            ));
        }
    };
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 32 * 1024];
    let (mut cap, mut pending) = match cap {
        Cap::Fixed(cap) => (cap, None),
        Cap::PdfAware { text, pdf } => (text.max(pdf), Some((text, pdf))),
    };
    loop {
        if let Some((text, pdf)) = pending {
            // Decided once the first bytes say whether this is a PDF (or the body ended).
            if out.len() >= media::PDF_MAGIC.len() || !media::PDF_MAGIC.starts_with(&out) {
                cap = if media::is_pdf(&out) { pdf } else { text };
                pending = None;
                if out.len() > cap {
                    out.truncate(cap);
                    return Ok((out, Some(Truncation::ByteCap { limit: cap })));
                }
            }
        }
        let n = match timeout_at(deadline, reader.read(&mut chunk)).await {
            Err(_) => return Ok((out, Some(Truncation::Deadline { key, limit }))),
            Ok(Err(e)) if is_wire_cap(&e) => {
                out.truncate(cap);
                return Ok((out, Some(Truncation::ByteCap { limit: cap })));
            }
            Ok(Err(e)) => {
                let (failure, what) = if e.kind() == std::io::ErrorKind::InvalidData
                    || e.kind() == std::io::ErrorKind::UnexpectedEof && !encoding.is_empty()
                {
                    (
                        TransportFailure::Protocol,
                        format!("the {encoding} body could not be decoded: {e}"),
                    )
                } else {
                    (TransportFailure::Reset, io_detail(&e))
                };
                return Err(transport_error(url, failure, &what));
            }
            // A body still undecided at its end is under five bytes: below either cap.
            Ok(Ok(0)) => return Ok((out, None)),
            Ok(Ok(n)) => n,
        };
        let room = cap.saturating_sub(out.len());
        if n > room {
            out.extend_from_slice(&chunk[..room]);
            return Ok((out, Some(Truncation::ByteCap { limit: cap })));
        }
        out.extend_from_slice(&chunk[..n]);
        if out.len() >= work::LARGE
            && let Some(large) = large.take()
        {
            // The wait is the caller's, not the origin's: it counts against the call's
            // time, and the request's own `timeout` is moved on by it (never past the
            // call's deadline).
            let waiting = Instant::now();
            if timeout_at(budget.call, large).await.is_err() {
                let key = ConfigKey::TotalTimeout;
                let limit = budget.call_limit;
                return Ok((out, Some(Truncation::Deadline { key, limit })));
            }
            let moved = deadline + waiting.elapsed();
            (deadline, key, limit) = if moved < budget.call {
                (moved, key, limit)
            } else {
                (budget.call, ConfigKey::TotalTimeout, budget.call_limit)
            };
        }
    }
}

/// The error the body stream ends with once more than the wire cap was read.
#[derive(Debug)]
struct WireCapReached;

impl fmt::Display for WireCapReached {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the compressed body reached the byte cap")
    }
}

impl std::error::Error for WireCapReached {}

/// Whether a read failed because the body stream reached the wire cap (the decoders
/// may wrap the stream's error).
fn is_wire_cap(e: &std::io::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.is::<WireCapReached>() {
            return true;
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && io
                .get_ref()
                .is_some_and(|inner| inner.is::<WireCapReached>())
        {
            return true;
        }
        source = err.source();
    }
    false
}

/// The innermost message of an error chain.
fn io_detail(e: &(dyn std::error::Error + 'static)) -> String {
    let mut last: &(dyn std::error::Error + 'static) = e;
    while let Some(next) = last.source() {
        last = next;
    }
    last.to_string()
}

fn transport_error(url: &CheckedUrl, failure: TransportFailure, e: &dyn fmt::Display) -> Error {
    Error::Transport(TransportError {
        url: url.to_string(),
        failure,
        detail: e.to_string(),
    })
}

/// Maps the HTTP client's error: a connection failure carries our own [`Error`]
/// (with the request's URL put in); anything else is a transport failure.
fn client_error(url: &CheckedUrl, e: &hyper_util::client::legacy::Error) -> Error {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    let mut hyper_error = None;
    while let Some(err) = source {
        if let Some(ConnectError(inner)) = err.downcast_ref::<ConnectError>() {
            return with_url(inner.as_ref().clone(), url);
        }
        if let Some(h) = err.downcast_ref::<hyper::Error>() {
            hyper_error.get_or_insert(h);
        }
        source = err.source();
    }
    let failure = match hyper_error {
        Some(h) if h.is_parse() || h.is_parse_status() => TransportFailure::Protocol,
        Some(h) if h.is_incomplete_message() || h.is_canceled() || h.is_closed() => {
            TransportFailure::Reset
        }
        _ => TransportFailure::Other,
    };
    transport_error(url, failure, &io_detail(e))
}

/// Puts the request's URL into a connection error made without it.
fn with_url(error: Error, url: &CheckedUrl) -> Error {
    match error {
        Error::Deadline(d) => Error::Deadline(Deadline {
            url: url.to_string(),
            ..d
        }),
        Error::Transport(t) => Error::Transport(TransportError {
            url: url.to_string(),
            ..t
        }),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_deadline_names_its_key() {
        let now = Instant::now();
        let s = Duration::from_secs;
        let got = earliest(&[
            (now + s(15), ConfigKey::HeadersTimeout, s(15)),
            (now + s(3), ConfigKey::TotalTimeout, s(90)),
        ]);
        assert_eq!((got.1, got.2), (ConfigKey::TotalTimeout, s(90)));
    }
}
