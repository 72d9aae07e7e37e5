//! The per-origin robots.txt cache: fetches an origin's robots.txt through the
//! guarded fetch, turns the outcome into rules, and keeps them per origin (scheme,
//! host, effective port).
//!
//! What the fetch comes to decides the rules (RFC 9309 §2.3.1) and how long they are
//! kept:
//!
//! | outcome | rules | kept |
//! |---|---|---|
//! | 2xx, within [`MAX_REDIRECTS`] redirects (the fetch stops at the next hop without requesting it) | the parsed file | [`FRESH_FOR`] (24 h, §2.4) |
//! | 4xx | none apply: everything allowed | [`FRESH_FOR`] |
//! | 5xx | everything disallowed ([`Reason::ServerError`], names `respect-robots`) | [`RETRY_AFTER`] |
//! | no connection, a deadline, the floor refusing, more redirects, not text | none apply | [`RETRY_AFTER`] |
//! | the caller cancelled | none: the call fails with [`Error::Cancelled`] | not kept |
//! | the caller's `total-timeout` ran out | none: the call fails with that [`Error::Deadline`] | not kept |
//!
//! One fetch at a time per origin: callers asking for an origin whose robots.txt is
//! being fetched wait for that fetch and share its answer. Each origin has its own
//! lock, so a slow origin delays only its own callers; the map of origins has another,
//! held only to find an origin's slot.
//!
//! robots.txt goes through the same [`Fetcher`] as any page, so the floor applies to
//! it and to every redirect it takes, hop by hop.
//!
//! What is kept is bounded in all: the rules' estimated size ([`Robots::footprint`])
//! is counted, and above [`MAX_CACHE_BYTES`] the origins whose rules expire soonest
//! are dropped (and fetched again when next asked).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::time::Instant;

use super::{PARSE_LIMIT, Reason, Robots, Verdict, path_and_query, product_token};
use crate::error::{Deadline, Error, Phase};
use crate::fetch::{Allowance, Fetcher, Truncation};
use crate::key::ConfigKey;
use crate::url::{CheckedUrl, Origin};

/// The most redirects a robots.txt fetch follows (RFC 9309 §2.3.1.2 asks for at least
/// five); beyond them robots.txt counts as unavailable and no rules apply.
pub const MAX_REDIRECTS: usize = 5;

/// How long a fetched robots.txt (or a 4xx) is kept: RFC 9309 §2.4's 24 hours.
pub const FRESH_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a server error or an unreachable robots.txt is kept before it is fetched
/// again: an outage is not remembered for a day.
pub const RETRY_AFTER: Duration = Duration::from_secs(5 * 60);

/// How many origins the cache holds before it drops expired ones: a long-running
/// server crawling many sites does not grow without bound.
pub const PRUNE_ABOVE: usize = 4096;

/// How many bytes of rules (estimated) the cache keeps in all, about 32 robots.txt
/// files of the largest size read or thousands of common ones.
pub const MAX_CACHE_BYTES: usize = 16 << 20;

/// What fetching robots.txt produced, when it produced a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// The body, decoded to text.
    pub text: String,
    /// How many redirects were followed to reach it.
    pub redirects: usize,
    /// True when the byte cap cut the body before its end (its last line is partial). A
    /// body a deadline cut is no body: the source answers with the deadline's error, so
    /// a file read only in part is never taken for the whole.
    pub truncated: bool,
}

/// Where robots.txt comes from: the guarded [`Fetcher`] in production.
pub trait Source: Send + Sync {
    /// GETs `url` (an origin's `/robots.txt`) within `call`, following redirects.
    fn get<'a>(
        &'a self,
        url: &'a CheckedUrl,
        call: &'a Allowance,
    ) -> BoxFuture<'a, Result<Body, Error>>;
}

impl Source for Fetcher {
    fn get<'a>(
        &'a self,
        url: &'a CheckedUrl,
        call: &'a Allowance,
    ) -> BoxFuture<'a, Result<Body, Error>> {
        Box::pin(async move {
            // robots.txt is read within the asking call's deadline, to its own limit, not
            // `max-bytes` (one byte more tells a complete last line), and stops at the
            // sixth hop without requesting it.
            let call = call
                .clone()
                .with_max_redirects(MAX_REDIRECTS)
                .with_max_bytes(PARSE_LIMIT + 1);
            let page = self.fetch_within(url, &call).await?;
            if let Some(Truncation::Deadline { key, limit }) = page.truncated {
                return Err(Error::Deadline(Deadline {
                    url: page.final_url.to_string(),
                    phase: Phase::ReadingBody,
                    key,
                    limit,
                }));
            }
            Ok(Body {
                redirects: page.chain.len().saturating_sub(1),
                truncated: page.truncated.is_some(),
                text: page.body.into_text(),
            })
        })
    }
}

/// The rules of one origin.
#[derive(Debug, Clone, PartialEq)]
pub enum Rules {
    /// robots.txt was fetched and parsed.
    Parsed(Robots),
    /// robots.txt could not be used; this reason decides every URL.
    Fixed(Reason),
}

impl Rules {
    /// The verdict for `agent` on `url` (whose path and query are matched).
    pub fn verdict(&self, agent: &str, url: &CheckedUrl) -> Verdict {
        match self {
            Rules::Parsed(robots) => robots.check(agent, path_and_query(url)),
            Rules::Fixed(reason) => Verdict::new(reason.clone()),
        }
    }

    /// The Crawl-delay for `agent`, if robots.txt gives one.
    pub fn crawl_delay(&self, agent: &str) -> Option<Duration> {
        match self {
            Rules::Parsed(robots) => robots.crawl_delay(agent),
            Rules::Fixed(_) => None,
        }
    }

    /// An estimate of the memory the rules take, in bytes.
    pub fn footprint(&self) -> usize {
        match self {
            Rules::Parsed(robots) => robots.footprint(),
            Rules::Fixed(reason) => std::mem::size_of::<Rules>() + reason.to_string().len(),
        }
    }
}

/// One origin's cached rules.
#[derive(Debug)]
struct Entry {
    rules: Arc<Rules>,
    expires: Instant,
    /// The rules' size, counted in the cache's total while the entry lives.
    _charge: Charge,
}

/// Bytes counted in a total for as long as this lives.
#[derive(Debug)]
struct Charge {
    bytes: usize,
    total: Arc<AtomicUsize>,
}

impl Charge {
    /// Adds `bytes` to `total` until dropped.
    fn new(bytes: usize, total: &Arc<AtomicUsize>) -> Charge {
        total.fetch_add(bytes, Ordering::SeqCst);
        Charge {
            bytes,
            total: Arc::clone(total),
        }
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.total.fetch_sub(self.bytes, Ordering::SeqCst);
    }
}

/// An origin's slot: its own lock, held while its robots.txt is fetched.
type Slot = Arc<tokio::sync::Mutex<Option<Entry>>>;

/// The robots.txt cache for one user agent. Share it (`Arc`) between the calls that
/// traverse.
pub struct RobotsCache {
    source: Arc<dyn Source>,
    agent: String,
    slots: Mutex<HashMap<Origin, Slot>>,
    /// Above this many origins, expired ones are dropped before another is added.
    prune_above: usize,
    fresh_for: Duration,
    retry_after: Duration,
    /// True for a cache of one call with a one-time grant, which keeps what that call
    /// reads and is dropped with it.
    granted: bool,
    /// The estimated bytes of the rules kept.
    bytes: Arc<AtomicUsize>,
    /// Above this many, the rules that expire soonest are dropped.
    max_bytes: usize,
}

impl std::fmt::Debug for RobotsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RobotsCache")
            .field("agent", &self.agent)
            .field("fresh_for", &self.fresh_for)
            .field("retry_after", &self.retry_after)
            .finish_non_exhaustive()
    }
}

impl RobotsCache {
    /// A cache fetching through `fetcher` (its pool, its floor, its deadlines), for the
    /// product token of its `user-agent`. robots.txt is read up to [`PARSE_LIMIT`]
    /// bytes whatever `max-bytes` says, one byte more to tell a complete last line.
    pub fn new(fetcher: &Fetcher) -> RobotsCache {
        let user_agent = fetcher.options().network.user_agent.clone();
        RobotsCache::with_source(Arc::new(fetcher.clone()), &user_agent)
    }

    /// A cache fetching from `source`, for the product token of `user_agent`.
    pub fn with_source(source: Arc<dyn Source>, user_agent: &str) -> RobotsCache {
        RobotsCache {
            source,
            agent: product_token(user_agent).to_owned(),
            slots: Mutex::new(HashMap::new()),
            prune_above: PRUNE_ABOVE,
            fresh_for: FRESH_FOR,
            retry_after: RETRY_AFTER,
            granted: false,
            bytes: Arc::new(AtomicUsize::new(0)),
            max_bytes: MAX_CACHE_BYTES,
        }
    }

    /// Changes how many bytes of rules are kept in all ([`MAX_CACHE_BYTES`] by
    /// default).
    #[must_use]
    pub fn keep_bytes(mut self, max_bytes: usize) -> RobotsCache {
        self.max_bytes = max_bytes;
        self
    }

    /// The estimated bytes of the rules kept now.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::SeqCst)
    }

    /// This cache as one call's with a one-time grant: it keeps what that call reads,
    /// so each origin's robots.txt is requested once per call, and is shared with no
    /// other call (drop it with the call).
    #[must_use]
    pub fn for_granted_call(mut self) -> RobotsCache {
        self.granted = true;
        self
    }

    /// Changes how long rules are kept: `fresh_for` for a parsed file or a 4xx,
    /// `retry_after` for a server error or an unreachable robots.txt.
    pub fn keep_for(mut self, fresh_for: Duration, retry_after: Duration) -> RobotsCache {
        self.fresh_for = fresh_for;
        self.retry_after = retry_after;
        self
    }

    /// The product token matched against robots.txt groups.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// The verdict on `url`, fetching its origin's robots.txt within `call` when it is
    /// not cached. Fails only when the call is cancelled ([`Error::Cancelled`]) or its
    /// `total-timeout` runs out ([`Error::Deadline`]).
    pub async fn verdict(&self, url: &CheckedUrl, call: &Allowance) -> Result<Verdict, Error> {
        Ok(self.rules(url, call).await?.verdict(&self.agent, url))
    }

    /// `Ok` when `url` may be crawled; otherwise the [`Error::RobotsRefused`] that
    /// names the deciding line (or the server error) and `respect-robots`.
    pub async fn check(&self, url: &CheckedUrl, call: &Allowance) -> Result<(), Error> {
        let verdict = self.verdict(url, call).await?;
        match verdict.refusal(&url.to_string(), &self.agent) {
            Some(refused) => Err(Error::RobotsRefused(refused)),
            None => Ok(()),
        }
    }

    /// The Crawl-delay robots.txt asks of our agent on `url`'s origin, if any.
    pub async fn crawl_delay(
        &self,
        url: &CheckedUrl,
        call: &Allowance,
    ) -> Result<Option<Duration>, Error> {
        Ok(self.rules(url, call).await?.crawl_delay(&self.agent))
    }

    /// The rules of `url`'s origin, fetched once per origin at a time.
    pub async fn rules(&self, url: &CheckedUrl, call: &Allowance) -> Result<Arc<Rules>, Error> {
        if call.grant().is_some() && !self.granted {
            // A call with a one-time grant may reach what the policy's calls cannot:
            // what it reads is its own, neither taken from the shared cache nor kept
            // in it (a cache of its own keeps it).
            let (rules, _) = self.fetch_rules(url, call).await?;
            return Ok(Arc::new(rules));
        }
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            let origin = url.origin();
            if slots.len() >= self.prune_above && !slots.contains_key(&origin) {
                prune(&mut slots);
            }
            Arc::clone(slots.entry(origin).or_default())
        };
        let mut entry = tokio::select! {
            biased;
            () = call.cancellation().cancelled() => return Err(Error::Cancelled),
            entry = slot.lock() => entry,
            // Waiting for another call's fetch of the same origin ends with this call's
            // own time.
            () = tokio::time::sleep_until(call.deadline()) => {
                return Err(Error::Deadline(Deadline {
                    url: url.to_string(),
                    phase: Phase::Connecting,
                    key: ConfigKey::TotalTimeout,
                    limit: call.budget(),
                }));
            }
        };
        if let Some(cached) = entry.as_ref()
            && cached.expires > Instant::now()
        {
            return Ok(Arc::clone(&cached.rules));
        }
        let (rules, fresh) = self.fetch_rules(url, call).await?;
        let rules = Arc::new(rules);
        let keep = if fresh {
            self.fresh_for
        } else {
            self.retry_after
        };
        *entry = Some(Entry {
            rules: Arc::clone(&rules),
            expires: Instant::now() + keep,
            _charge: Charge::new(rules.footprint(), &self.bytes),
        });
        // This origin's slot stays locked, so the shrinking keeps it.
        if self.bytes() > self.max_bytes {
            self.shrink();
        }
        Ok(rules)
    }

    /// Drops the origins whose rules expire soonest (expired ones first) until the
    /// rules kept fit [`RobotsCache::keep_bytes`]; an origin being fetched is kept.
    fn shrink(&self) {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let mut kept: Vec<(Instant, Origin)> = slots
            .iter()
            .filter_map(|(origin, slot)| {
                let entry = slot.try_lock().ok()?;
                entry.as_ref().map(|e| (e.expires, origin.clone()))
            })
            .collect();
        kept.sort_by_key(|(expires, _)| *expires);
        for (_, origin) in kept {
            if self.bytes() <= self.max_bytes {
                break;
            }
            if let Some(slot) = slots.remove(&origin)
                && let Ok(mut entry) = slot.try_lock()
            {
                entry.take();
            }
        }
    }

    /// Fetches `url`'s robots.txt within `call` and turns the outcome into rules, with
    /// whether they keep for the long period. The call's own end — cancelled, or its
    /// `total-timeout` spent — says nothing about the origin and is the caller's error.
    async fn fetch_rules(
        &self,
        url: &CheckedUrl,
        call: &Allowance,
    ) -> Result<(Rules, bool), Error> {
        let outcome = match url.join("/robots.txt") {
            Ok(robots_url) => self.source.get(&robots_url, call).await,
            Err(bad) => Err(Error::BadUrl(bad)),
        };
        if let Err(Error::Deadline(deadline)) = &outcome
            && deadline.key == ConfigKey::TotalTimeout
        {
            return Err(Error::Deadline(deadline.clone()));
        }
        rules_of(outcome).ok_or(Error::Cancelled)
    }
}

/// Drops the origins whose rules have expired or were never fetched, keeping those
/// being fetched right now (their lock is held).
fn prune(slots: &mut HashMap<Origin, Slot>) {
    let now = Instant::now();
    slots.retain(|_, slot| match slot.try_lock() {
        Ok(entry) => entry.as_ref().is_some_and(|e| e.expires > now),
        Err(_) => true,
    });
}

/// The rules a fetch outcome gives, and whether they are kept for the long period
/// ([`FRESH_FOR`]) rather than retried soon; `None` when the fetch was cancelled and
/// there is nothing to keep.
pub fn rules_of(outcome: Result<Body, Error>) -> Option<(Rules, bool)> {
    let unreachable = |detail: String| Some((Rules::Fixed(Reason::Unreachable { detail }), false));
    match outcome {
        Ok(body) if body.redirects > MAX_REDIRECTS => unreachable(format!(
            "it redirected {} times; at most {MAX_REDIRECTS} are followed",
            body.redirects
        )),
        Ok(body) => {
            let text = if body.truncated {
                // A cut body ends in half a line, which would read as another rule.
                let end = body.text.rfind(['\n', '\r']).map_or(0, |at| at + 1);
                &body.text[..end]
            } else {
                &body.text[..]
            };
            Some((Rules::Parsed(Robots::parse(text.as_bytes())), true))
        }
        Err(Error::Cancelled) => None,
        Err(Error::Http(http)) if (400..500).contains(&http.status) => Some((
            Rules::Fixed(Reason::ClientError {
                status: http.status,
            }),
            true,
        )),
        Err(Error::Http(http)) if (500..600).contains(&http.status) => Some((
            Rules::Fixed(Reason::ServerError {
                status: http.status,
            }),
            false,
        )),
        Err(Error::Http(http)) => unreachable(format!("it answered HTTP {}", http.status)),
        Err(Error::TooManyRedirects { limit, .. }) => {
            unreachable(format!("it redirected more than {limit} times"))
        }
        Err(Error::RedirectLoop { .. }) => unreachable("its redirects loop".to_owned()),
        Err(Error::Content(content)) => unreachable(format!(
            "it is {}, not text",
            if content.content_type.is_empty() {
                "not declared as text".to_owned()
            } else {
                crate::error::quoted(&content.content_type)
            }
        )),
        Err(Error::Transport(t)) => unreachable(format!("{}: {}", t.failure.rule(), t.detail)),
        Err(Error::Deadline(d)) => {
            unreachable(format!("{} ran out while {}", d.key, d.phase.as_str()))
        }
        Err(Error::Blocked(b)) => unreachable(format!(
            "the floor refused {} ({})",
            b.address(),
            b.class().label()
        )),
        Err(other) => unreachable(other.to_string()),
    }
}

#[cfg(test)]
mod tests;
