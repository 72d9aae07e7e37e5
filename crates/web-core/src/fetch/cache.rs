//! The HTTP cache of one [`Fetcher`](super::Fetcher): responses kept per request URL
//! and reused by RFC 9111's rules, within a bound in bytes.
//!
//! The rules are `http-cache-semantics`' [`CachePolicy`]: whether a response may be
//! stored (`no-store`, `private` in a shared cache, the status), how long it stays fresh
//! (`s-maxage` in a shared cache, `max-age`, `Expires`, else 10 % of the time since
//! `Last-Modified` where the status allows a heuristic), and whether a stored response
//! answers a new request (`Vary`, `no-cache`). On top of them `cache-max-age` bounds every
//! entry's freshness. A stale entry with a validator (`ETag`, `Last-Modified`) is asked
//! about with `If-None-Match` / `If-Modified-Since`, and a `304` refreshes it.
//!
//! What is kept is what the fetch loop made of a response: a redirect hop (its status and
//! `Location`, so a chain served from here is still decided and checked hop by hop), or
//! a page as read (its decoded text within the byte cap that was in force, marked
//! truncated when it was cut), with its extraction once a call made it. The store is a `moka` cache weighed in bytes; every insert
//! runs its pending evictions, so the weighed size is back under `cache-bytes` when the
//! insert returns. Nothing here outlives the process.
//!
//! The cache belongs to the fetcher, so to one guard policy: an entry was read from a
//! peer that policy approved. The fetcher asks it only for calls without a one-time
//! grant, and stores nothing a granted call fetched.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use http::{HeaderMap, HeaderValue, header};
use http_cache_semantics::{AfterResponse, BeforeRequest, CacheOptions, CachePolicy};

use super::{Page, Truncation};
use crate::media::Kind;

/// The cache's configuration: `cache-bytes`, `cache-max-age`, and whether it serves one
/// user or many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheConfig {
    /// The bound on what the cache holds, in bytes (`cache-bytes`); 0 turns it off.
    pub bytes: u64,
    /// The longest any entry is used without asking its origin (`cache-max-age`).
    pub max_age: Duration,
    /// A shared cache (a server over HTTP, many users): `private` responses are not
    /// stored and `s-maxage` applies. A private one (stdio, the command line) stores them.
    pub shared: bool,
}

/// Where the cache reads the time: the system clock, or a test's.
pub trait Clock: Send + Sync + fmt::Debug {
    /// The time now.
    fn now(&self) -> SystemTime;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// What one stored response is.
#[derive(Debug, Clone)]
pub(crate) enum Stored {
    /// A redirect: its status and `Location`, decided again by the fetch loop.
    Redirect {
        /// The 3xx status.
        status: u16,
        /// The `Location` header's bytes.
        location: Vec<u8>,
    },
    /// A page as the fetch read it, and the text byte cap in force when it was read.
    Page {
        /// The page.
        page: Box<Page>,
        /// The `max-bytes` cap (or the call's own) it was read under.
        cap: usize,
    },
}

/// One entry: the rules' view of the response, its validators and what it holds.
#[derive(Debug)]
pub(crate) struct Entry {
    policy: CachePolicy,
    etag: Option<HeaderValue>,
    last_modified: Option<HeaderValue>,
    /// What is stored.
    pub(crate) stored: Stored,
    weight: u32,
}

impl Entry {
    /// Whether the origin can be asked if this entry is still current.
    fn validatable(&self) -> bool {
        self.etag.is_some() || self.last_modified.is_some()
    }

    /// `headers` with this entry's validators added: a conditional request.
    pub(crate) fn conditional(&self, headers: &mut HeaderMap) {
        if let Some(etag) = &self.etag {
            headers.insert(header::IF_NONE_MATCH, etag.clone());
        }
        if let Some(date) = &self.last_modified {
            headers.insert(header::IF_MODIFIED_SINCE, date.clone());
        }
    }

    /// Whether this entry answers a call reading `cap` text bytes exactly as a fetch
    /// would: a page read whole within the cap, or cut at the same cap (a PDF has a cap
    /// of its own, the fetcher's).
    fn fits(&self, cap: usize) -> bool {
        match &self.stored {
            Stored::Redirect { .. } => true,
            Stored::Page { page, cap: read_at } => {
                page.kind == Kind::Pdf
                    || match page.truncated {
                        None => page.bytes <= cap,
                        Some(_) => *read_at == cap,
                    }
            }
        }
    }
}

/// What the cache holds for a request.
#[derive(Debug)]
pub(crate) enum Lookup {
    /// A fresh entry: answer with it, no request.
    Fresh(Arc<Entry>),
    /// A stale entry with validators: ask the origin conditionally.
    Stale(Arc<Entry>),
    /// Nothing usable: ask the origin.
    Miss,
}

/// The HTTP cache of one fetcher. Clones share the store.
#[derive(Clone)]
pub struct Cache {
    store: moka::sync::Cache<String, Arc<Entry>>,
    config: CacheConfig,
    clock: Arc<dyn Clock>,
}

impl fmt::Debug for Cache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cache")
            .field("config", &self.config)
            .field("entries", &self.store.entry_count())
            .field("weighed_bytes", &self.store.weighted_size())
            .finish_non_exhaustive()
    }
}

/// What an entry costs beyond its strings: the rules' header maps, the page's other
/// fields and the store's own bookkeeping, rounded up.
const ENTRY_OVERHEAD: usize = 512;

impl Cache {
    /// A cache as `config` says, reading the system clock; `None` when `cache-bytes` is 0.
    pub fn new(config: CacheConfig) -> Option<Cache> {
        (config.bytes > 0).then(|| Cache {
            store: moka::sync::Cache::builder()
                .max_capacity(config.bytes)
                .weigher(|_key: &String, entry: &Arc<Entry>| entry.weight)
                .build(),
            config,
            clock: Arc::new(SystemClock),
        })
    }

    /// This cache (empty) reading the time from `clock`.
    #[must_use]
    pub fn with_clock(self, clock: Arc<dyn Clock>) -> Cache {
        Cache { clock, ..self }
    }

    /// The configuration.
    pub fn config(&self) -> CacheConfig {
        self.config
    }

    /// The bytes the entries weigh, after any eviction still pending.
    pub fn weighed_bytes(&self) -> u64 {
        self.store.run_pending_tasks();
        self.store.weighted_size()
    }

    /// How many entries are held, after any eviction still pending.
    pub fn entries(&self) -> u64 {
        self.store.run_pending_tasks();
        self.store.entry_count()
    }

    fn options(&self) -> CacheOptions {
        CacheOptions {
            shared: self.config.shared,
            cache_heuristic: 0.1,
            immutable_min_time_to_live: self.config.max_age,
            ignore_cargo_cult: false,
        }
    }

    /// What the cache holds for `request` to `key` (the URL without its fragment), for
    /// a call reading `cap` text bytes.
    pub(crate) fn lookup(&self, key: &str, request: &http::request::Parts, cap: usize) -> Lookup {
        let Some(entry) = self.store.get(key) else {
            return Lookup::Miss;
        };
        if !entry.fits(cap) {
            return Lookup::Miss;
        }
        let now = self.clock.now();
        match entry.policy.before_request(request, now) {
            BeforeRequest::Fresh(_) if entry.policy.age(now) < self.config.max_age => {
                Lookup::Fresh(entry)
            }
            BeforeRequest::Fresh(_) | BeforeRequest::Stale { matches: true, .. }
                if entry.validatable() =>
            {
                Lookup::Stale(entry)
            }
            _ => Lookup::Miss,
        }
    }

    /// Keeps what the fetch made of `response` to `request` under `key`, when the rules
    /// let it be stored and it can be of use (fresh for a while, or validatable);
    /// otherwise forgets what `key` held, which the new response supersedes.
    pub(crate) fn store(
        &self,
        key: &str,
        request: &http::request::Parts,
        response: &http::response::Parts,
        stored: Stored,
    ) {
        let now = self.clock.now();
        let policy = CachePolicy::new_options(request, response, now, self.options());
        let etag = response.headers.get(header::ETAG).cloned();
        let last_modified = response.headers.get(header::LAST_MODIFIED).cloned();
        let useful = policy.time_to_live(now) > Duration::ZERO && !self.config.max_age.is_zero()
            || etag.is_some()
            || last_modified.is_some();
        let weight = weigh(key, request, response, &stored);
        if !policy.is_storable() || !useful || u64::from(weight) > self.config.bytes {
            self.store.invalidate(key);
            return;
        }
        let entry = Entry {
            policy,
            etag,
            last_modified,
            stored,
            weight,
        };
        self.store.insert(key.to_owned(), Arc::new(entry));
        self.store.run_pending_tasks();
    }

    /// The entry `stale` refreshed by the origin's `304` answer to a conditional
    /// `request`; `None` when the answer does not match what is stored (its validator
    /// names another response), and `key` is forgotten.
    pub(crate) fn refresh(
        &self,
        key: &str,
        stale: &Entry,
        request: &http::request::Parts,
        response: &http::response::Parts,
    ) -> Option<Arc<Entry>> {
        let now = self.clock.now();
        match stale.policy.after_response(request, response, now) {
            AfterResponse::NotModified(policy, parts) => {
                let entry = Arc::new(Entry {
                    policy,
                    etag: parts.headers.get(header::ETAG).cloned(),
                    last_modified: parts.headers.get(header::LAST_MODIFIED).cloned(),
                    stored: stale.stored.clone(),
                    weight: stale.weight,
                });
                if entry.policy.is_storable() {
                    self.store.insert(key.to_owned(), Arc::clone(&entry));
                    self.store.run_pending_tasks();
                } else {
                    self.store.invalidate(key);
                }
                Some(entry)
            }
            AfterResponse::Modified(..) => {
                self.store.invalidate(key);
                None
            }
        }
    }
}

/// The bytes an entry holds: its key, the request and response headers the rules keep,
/// what it stores, and a fixed overhead; saturated at the store's `u32` weights.
fn weigh(
    key: &str,
    request: &http::request::Parts,
    response: &http::response::Parts,
    stored: &Stored,
) -> u32 {
    let headers = |map: &HeaderMap| -> usize {
        map.iter()
            .map(|(name, value)| name.as_str().len() + value.len())
            .sum()
    };
    let body = match stored {
        Stored::Redirect { location, .. } => location.len(),
        // The text twice: as read, and room for its extraction, which the page keeps
        // once made when it fits there.
        Stored::Page { page, .. } => {
            2 * page.text().len()
                + page.content_type.len()
                + page.body.title().map_or(0, str::len)
                + page.url.as_str().len()
                + page.final_url.as_str().len()
                + page.chain.iter().map(|u| u.as_str().len()).sum::<usize>()
        }
    };
    let total =
        key.len() + headers(&request.headers) + headers(&response.headers) + body + ENTRY_OVERHEAD;
    u32::try_from(total).unwrap_or(u32::MAX)
}

/// Whether a page may be stored: read whole, or cut at the byte cap (a cut that is the
/// same on every fetch); a page cut by a deadline is not what the origin sent.
pub(crate) fn storable_page(page: &Page) -> bool {
    !matches!(page.truncated, Some(Truncation::Deadline { .. }))
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// A clock a test moves by hand.
    #[derive(Debug)]
    struct Hand(Mutex<SystemTime>);

    impl Clock for Hand {
        fn now(&self) -> SystemTime {
            *self.0.lock().unwrap()
        }
    }

    fn request(language: Option<&str>) -> http::request::Parts {
        let mut builder = http::Request::get("http://example.com/page");
        if let Some(language) = language {
            builder = builder.header(header::ACCEPT_LANGUAGE, language);
        }
        builder.body(()).unwrap().into_parts().0
    }

    fn response(headers: &[(&str, &str)]) -> http::response::Parts {
        let mut builder = http::Response::builder().status(200);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(()).unwrap().into_parts().0
    }

    fn redirect() -> Stored {
        Stored::Redirect {
            status: 301,
            location: b"/elsewhere".to_vec(),
        }
    }

    fn cache(shared: bool) -> (Cache, Arc<Hand>) {
        let clock = Arc::new(Hand(Mutex::new(
            SystemTime::UNIX_EPOCH + Duration::from_secs(1 << 30),
        )));
        let cache = Cache::new(CacheConfig {
            bytes: 1 << 20,
            max_age: Duration::from_secs(3600),
            shared,
        })
        .unwrap()
        .with_clock(clock.clone());
        (cache, clock)
    }

    fn is_fresh(lookup: &Lookup) -> bool {
        matches!(lookup, Lookup::Fresh(_))
    }

    #[test]
    fn vary_keys_an_entry_by_the_header_it_names() {
        let (cache, _) = cache(false);
        let key = "http://example.com/page";
        let english = request(Some("en"));
        cache.store(
            key,
            &english,
            &response(&[
                ("cache-control", "max-age=600"),
                ("vary", "Accept-Language"),
            ]),
            redirect(),
        );
        assert!(is_fresh(&cache.lookup(key, &english, 4096)));
        assert!(matches!(
            cache.lookup(key, &request(Some("fr")), 4096),
            Lookup::Miss
        ));
        assert!(matches!(
            cache.lookup(key, &request(None), 4096),
            Lookup::Miss
        ));
        // Without Vary the language does not matter.
        cache.store(
            key,
            &english,
            &response(&[("cache-control", "max-age=600")]),
            redirect(),
        );
        assert!(is_fresh(&cache.lookup(key, &request(Some("fr")), 4096)));
    }

    #[test]
    fn cache_max_age_bounds_freshness_and_a_validator_keeps_the_entry_for_revalidation() {
        let (cache, clock) = cache(false);
        let key = "http://example.com/page";
        let plain = request(None);
        cache.store(
            key,
            &plain,
            &response(&[("cache-control", "max-age=86400"), ("etag", "\"v1\"")]),
            redirect(),
        );
        *clock.0.lock().unwrap() += Duration::from_secs(3599);
        assert!(is_fresh(&cache.lookup(key, &plain, 4096)));
        *clock.0.lock().unwrap() += Duration::from_secs(2);
        let Lookup::Stale(entry) = cache.lookup(key, &plain, 4096) else {
            panic!("past cache-max-age an entry with a validator is revalidated");
        };
        let mut headers = HeaderMap::new();
        entry.conditional(&mut headers);
        assert_eq!(headers[header::IF_NONE_MATCH], "\"v1\"");
    }

    #[test]
    fn private_is_kept_by_a_private_cache_only_and_s_maxage_counts_when_shared() {
        let private = response(&[("cache-control", "private, max-age=600")]);
        let plain = request(None);
        let key = "http://example.com/page";
        let (mine, _) = cache(false);
        mine.store(key, &plain, &private, redirect());
        assert!(is_fresh(&mine.lookup(key, &plain, 4096)));
        let (ours, _) = cache(true);
        ours.store(key, &plain, &private, redirect());
        assert!(matches!(ours.lookup(key, &plain, 4096), Lookup::Miss));

        let s_maxage = response(&[("cache-control", "max-age=0, s-maxage=600")]);
        ours.store(key, &plain, &s_maxage, redirect());
        assert!(is_fresh(&ours.lookup(key, &plain, 4096)));
        mine.store(key, &plain, &s_maxage, redirect());
        assert!(matches!(mine.lookup(key, &plain, 4096), Lookup::Miss));
    }

    #[test]
    fn no_store_forgets_what_was_kept() {
        let (cache, _) = cache(false);
        let key = "http://example.com/page";
        let plain = request(None);
        cache.store(
            key,
            &plain,
            &response(&[("cache-control", "max-age=600")]),
            redirect(),
        );
        assert_eq!(cache.entries(), 1);
        cache.store(
            key,
            &plain,
            &response(&[("cache-control", "no-store")]),
            redirect(),
        );
        assert_eq!(cache.entries(), 0);
    }
}
