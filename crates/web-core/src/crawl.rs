//! The same-origin crawl: a breadth-first walk from one start page over the links that
//! stay on its origin, each page fetched through the floor and extracted once.
//!
//! [`crawl`] visits the start page, then the pages it links to, hop by hop up to
//! [`CrawlOptions::depth`], and reports every page to its caller in breadth-first order
//! as a [`Visit`]. Links are the page's [`PageText::links`] (`<a href>`, `<area href>`,
//! `<link rel=next>`, resolved against the final URL and `<base href>`, fragments
//! dropped); each goes through [`CheckedUrl::parse`] (a link that fails the shape check
//! is skipped silently) and is followed only when it is on the start page's origin
//! (scheme, host, effective port). A redirect that leaves the origin stops before that
//! hop, which is not requested: the page is listed as [`Outcome::OffOrigin`].
//!
//! What a walk holds is bounded: it reads at most [`LINKS_READ_PER_PAGE`] links of a page
//! (or [`QUEUED_PER_PAGE`] × `max-pages`, when larger) and queues at most
//! [`QUEUED_PER_PAGE`] × `max-pages` links in all; a walk that left links unqueued and
//! ran out of pages ends as [`Stopped::MaxPages`]. Of each page it keeps the text and the
//! links it reads, not the body (dropped once extracted) nor the page's other links, and
//! it extracts one large page ([`work::LARGE`] bytes or more) at a time, its document
//! tree being tens of times its size, and holds at most [`LARGE_BODIES`] large bodies (a
//! fetch whose body reaches [`work::LARGE`] bytes waits for its turn before reading on):
//! what one crawl holds at once is two bodies, the first bytes of the other fetches in
//! flight and one document tree, however many links or pages.
//!
//! One request per URL per crawl: every URL requested, each redirect hop included, is
//! claimed before its request (a [`HopCheck`] inside the fetch loop checks each hop), so
//! a link that redirects to a URL already requested, in flight or done, stops before
//! that hop and is reported as [`Outcome::Alias`] of the page listed for it, and a
//! queued URL that an earlier redirect already requested is not visited again. When
//! robots.txt is respected, each redirect hop on the crawl's origin is checked against
//! it before it is requested; a refused hop fails its visit with the
//! [`Error::RobotsRefused`] naming the rule (and the hop's URL).
//!
//! Politeness: between two requests the crawl waits the larger of
//! [`Politeness::crawl_delay`] and the origin's robots.txt Crawl-delay (tokio time),
//! redirect hops included (the hop check waits before each hop is requested);
//! a page the fetcher's HTTP cache answers without asking the origin
//! ([`Fetcher::answers_from_cache`]) is not waited for.
//! With no delay at all, up to [`CrawlOptions::concurrency`] fetches run at once; the
//! visits are still reported in breadth-first order.
//!
//! What ends a crawl:
//!
//! | event | result |
//! |---|---|
//! | nothing left to visit | `Ok`, [`Stopped::Done`] |
//! | `max-pages` fetches made and more to visit | `Ok`, [`Stopped::MaxPages`] |
//! | the call's `total-timeout` ran out | `Ok`, [`Stopped::Deadline`] |
//! | the caller answered [`Flow::Stop`] | `Ok`, [`Stopped::Caller`]; nothing more is fetched |
//! | the call was cancelled | `Err(Error::Cancelled)`; nothing more is fetched |
//! | robots.txt refuses the start URL | `Err(Error::RobotsRefused)` |
//! | the start page's fetch fails | `Err` of that failure |

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use futures::stream::FuturesOrdered;
use tokio::sync::{Semaphore, SemaphorePermit};
use tokio::time::Instant;

use crate::error::{Deadline, Error, Phase};
use crate::fetch::{Allowance, Checked, Fetcher, HopCheck, Page};
use crate::key::ConfigKey;
use crate::page::{PageText, extracting_too_late};
use crate::robots::cache::RobotsCache;
use crate::url::{CheckedUrl, Origin};
use crate::work;

/// The most links a walk queues, per page it may fetch (`max-pages`).
pub const QUEUED_PER_PAGE: usize = 4;

/// The most links read from one page, unless [`QUEUED_PER_PAGE`] × `max-pages` is more.
pub const LINKS_READ_PER_PAGE: usize = 1000;

/// The most bodies of [`work::LARGE`] bytes or more a walk holds at once, read or being
/// read and not yet extracted: one being extracted, one read ahead. The other fetches in
/// flight wait at [`work::LARGE`] bytes.
pub const LARGE_BODIES: usize = 2;

/// The limits of one crawl: the tool's parameters, and the traversal config keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlOptions {
    /// Hops from the start page that are followed (0 = the start page only).
    pub depth: usize,
    /// Pages fetched at most (fetch attempts; robots-refused pages are listed, not
    /// counted) (`max-pages`).
    pub max_pages: usize,
    /// Requests at once when no delay applies (1 = one at a time); never more than one
    /// when a delay applies.
    pub concurrency: usize,
    /// How the crawl treats the origin it walks (`crawl-delay`, `respect-robots`).
    pub politeness: Politeness,
}

/// How every traversal (a crawl, a grep with depth) treats the origin it walks: the
/// traversal config keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Politeness {
    /// The wait between two requests (`crawl-delay`); robots.txt's Crawl-delay wins when
    /// larger (robots.txt is read only when `respect_robots` is on).
    pub crawl_delay: Duration,
    /// Whether robots.txt is consulted for every URL (`respect-robots`).
    pub respect_robots: bool,
}

/// One page of the crawl, reported in breadth-first order (the order the index lists).
#[derive(Debug)]
pub struct Visit {
    /// The normalised URL as linked (fragment dropped).
    pub url: CheckedUrl,
    /// Hops from the start page.
    pub depth: usize,
    /// What visiting it came to.
    pub outcome: Outcome,
}

/// What visiting one page came to.
#[derive(Debug)]
pub enum Outcome {
    /// Fetched (2xx): the page and its text, extracted once.
    Fetched {
        /// The fetched page without its body, dropped once extracted (`page.text()` is
        /// empty; `page.bytes` says how much was read) (boxed: it is most of the enum's
        /// size).
        page: Box<Page>,
        /// Its text, title and the links the walk reads (at most one more than
        /// [`LINKS_READ_PER_PAGE`] or [`QUEUED_PER_PAGE`] × `max-pages`) (shared, so a
        /// caller may work on it off the async threads).
        text: Arc<PageText>,
    },
    /// Not fetched: robots.txt refused it (the [`Error::RobotsRefused`] naming the rule).
    Skipped(Error),
    /// Fetching failed: an HTTP error status, the floor, a transport failure, not text,
    /// robots.txt refusing a redirect hop …
    Failed(Error),
    /// Requested, but it redirected to another origin: that hop was not requested.
    OffOrigin {
        /// The redirect hop on another origin.
        hop: CheckedUrl,
    },
    /// Requested, but it redirected to a URL this crawl had already requested: that hop
    /// was not requested again, and the page is listed once, as `listed_as`.
    Alias {
        /// The redirect hop already requested.
        hop: CheckedUrl,
        /// The URL of the visit that requested `hop` (the page's line in the index).
        listed_as: CheckedUrl,
    },
}

/// What the caller tells the crawl after each visit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on to the next page.
    Continue,
    /// Stop now: no page is fetched after this answer.
    Stop,
}

/// Why a crawl ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// Every page within the depth was visited.
    Done,
    /// `max-pages` fetches were made and more pages were waiting.
    MaxPages,
    /// The call's `total-timeout` ran out.
    Deadline,
    /// The caller answered [`Flow::Stop`].
    Caller,
}

/// How a crawl ended: the pages fetched and why it stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Fetches that completed and were reported, whatever they came to (a page
    /// robots.txt refused, and a fetch dropped in flight at a stop, are not counted).
    pub fetched: usize,
    /// Links queued in all, the start page included: at most [`QUEUED_PER_PAGE`] ×
    /// `max-pages`.
    pub queued: usize,
    /// Why the crawl ended.
    pub stopped: Stopped,
}

/// What the crawl tells after each visit, in breadth-first order: a closure
/// `FnMut(&Visit) -> Flow`, or a visitor that awaits (work it moves off the async
/// threads) before it answers.
pub trait Visitor: Send {
    /// Told one visit; answers whether the crawl goes on.
    fn visit(&mut self, visit: &Visit) -> impl Future<Output = Flow> + Send;
}

impl<F: FnMut(&Visit) -> Flow + Send + ?Sized> Visitor for F {
    fn visit(&mut self, visit: &Visit) -> impl Future<Output = Flow> + Send {
        std::future::ready(self(visit))
    }
}

/// A visit on its way: a fetch in flight, or a refusal already decided.
type Pending<'a> = Pin<Box<dyn Future<Output = Visit> + Send + 'a>>;

/// Crawls from `start` within `call`, reporting every page to `on_visit` in
/// breadth-first order (see the module documentation for what ends it). Every fetch
/// goes through `fetcher.fetch_checked(url, call, …)`; robots.txt is read through
/// `robots` when `options.politeness.respect_robots` is on.
pub async fn crawl(
    fetcher: &Fetcher,
    robots: &RobotsCache,
    start: &CheckedUrl,
    options: &CrawlOptions,
    call: &Allowance,
    on_visit: &mut (dyn FnMut(&Visit) -> Flow + Send),
) -> Result<Summary, Error> {
    crawl_with(fetcher, robots, start, options, call, on_visit).await
}

/// Crawls as [`crawl`] does, telling each visit to `visitor`, whose answer may await.
pub async fn crawl_with<V: Visitor + ?Sized>(
    fetcher: &Fetcher,
    robots: &RobotsCache,
    start: &CheckedUrl,
    options: &CrawlOptions,
    call: &Allowance,
    visitor: &mut V,
) -> Result<Summary, Error> {
    // The start page as linked: without its fragment.
    let start = CheckedUrl::parse(&key(start)).unwrap_or_else(|_| start.clone());
    let origin = start.origin();
    let claims = Claims::default();
    let pace = Pace::default();
    let hops = Hops {
        claims: &claims,
        origin: &origin,
        robots: options.politeness.respect_robots.then_some(robots),
        fetcher,
        pace: &pace,
        call,
    };
    let max_queued = options.max_pages.max(1).saturating_mul(QUEUED_PER_PAGE);
    let read_per_page = max_queued.max(LINKS_READ_PER_PAGE);
    let keep = Keep {
        // One more than is read, so that a page with more links than the walk reads
        // still says so.
        links: read_per_page.saturating_add(1),
        large: Semaphore::new(1),
        bodies: Semaphore::new(LARGE_BODIES),
    };
    let mut walk = Walk {
        origin: &origin,
        claims: &claims,
        seen: HashSet::from([key(&start)]),
        queue: VecDeque::from([(start, 0)]),
        queued: 1,
        max_queued,
        read_per_page,
        left_out: false,
        started: 0,
        fetched: 0,
    };
    let mut in_flight: FuturesOrdered<Pending<'_>> = FuturesOrdered::new();
    let mut budget_hit = false;
    loop {
        // Start what may start: the next pages in order, within the budget, the
        // politeness delay and the concurrency.
        while !budget_hit {
            let Some((url, depth)) = walk.next_queued() else {
                break;
            };
            if call.is_cancelled() {
                return Err(Error::Cancelled);
            }
            if call.expired() {
                return Ok(walk.summary(Stopped::Deadline));
            }
            if walk.started >= options.max_pages {
                walk.queue.push_front((url, depth));
                budget_hit = true;
                break;
            }
            let mut delay = options.politeness.crawl_delay;
            if options.politeness.respect_robots {
                match robots.check(&url, call).await {
                    Ok(()) => {}
                    Err(Error::RobotsRefused(refused)) if depth > 0 => {
                        let visit = Visit {
                            url,
                            depth,
                            outcome: Outcome::Skipped(Error::RobotsRefused(refused)),
                        };
                        in_flight.push_back(Box::pin(async move { visit }));
                        continue;
                    }
                    Err(e) => return walk.ended(e),
                }
                match robots.crawl_delay(&url, call).await {
                    Ok(asked) => delay = delay.max(asked.unwrap_or_default()),
                    Err(e) => return walk.ended(e),
                }
            }
            let limit = if delay.is_zero() {
                options.concurrency.max(1)
            } else {
                1
            };
            if in_flight.len() >= limit {
                walk.queue.push_front((url, depth));
                break;
            }
            pace.set_delay(delay);
            // A page the cache answers asks nothing of the origin: no delay for it.
            let from_cache = !delay.is_zero() && fetcher.answers_from_cache(&url, call);
            if !from_cache {
                match pace.wait_turn(call).await {
                    Ok(()) => {}
                    Err(Late::Deadline) => return Ok(walk.summary(Stopped::Deadline)),
                    Err(Late::Cancelled) => return Err(Error::Cancelled),
                }
            }
            if claims.claim(&url, &url).is_some() {
                // A redirect of a visit in flight requested it meanwhile.
                continue;
            }
            if !from_cache {
                pace.mark();
            }
            walk.started += 1;
            in_flight.push_back(Box::pin(visit(fetcher, call, &hops, &keep, url, depth)));
        }
        let next = tokio::select! {
            biased;
            () = call.cancellation().cancelled() => return Err(Error::Cancelled),
            next = in_flight.next() => next,
        };
        let Some(visit) = next else {
            let stopped = if budget_hit && walk.next_queued().is_some() || walk.left_out {
                Stopped::MaxPages
            } else {
                Stopped::Done
            };
            return Ok(walk.summary(stopped));
        };
        match &visit.outcome {
            Outcome::Failed(e) if visit.depth == 0 => return Err(e.clone()),
            Outcome::Failed(Error::Cancelled) => return Err(Error::Cancelled),
            Outcome::Fetched { page, text } => {
                for passed in &page.chain {
                    walk.seen.insert(key(passed));
                }
                if visit.depth < options.depth && page.final_url.origin() == origin {
                    walk.follow(text, visit.depth + 1);
                }
            }
            Outcome::Failed(_)
            | Outcome::Skipped(_)
            | Outcome::Alias { .. }
            | Outcome::OffOrigin { .. } => {}
        }
        if !matches!(visit.outcome, Outcome::Skipped(_)) {
            walk.fetched += 1;
        }
        let out_of_time = matches!(&visit.outcome, Outcome::Failed(e) if is_total_timeout(e));
        if visitor.visit(&visit).await == Flow::Stop {
            return Ok(walk.summary(Stopped::Caller));
        }
        if out_of_time {
            return Ok(walk.summary(Stopped::Deadline));
        }
    }
}

/// Fetches one page, every redirect hop checked by `hops`, and extracts it once, keeping
/// of it what `keep` says.
async fn visit(
    fetcher: &Fetcher,
    call: &Allowance,
    hops: &Hops<'_>,
    keep: &Keep,
    url: CheckedUrl,
    depth: usize,
) -> Visit {
    let check = VisitCheck(hops, &url, keep, Mutex::new(None));
    let outcome = match fetcher.fetch_checked(&url, call, &check).await {
        Ok(Checked::Page(page)) => match keep.extract(page, call).await {
            Ok((page, text)) => Outcome::Fetched {
                page: Box::new(page),
                text: Arc::new(text),
            },
            Err(e) => Outcome::Failed(e),
        },
        Ok(Checked::Stopped {
            hop,
            stop: HopStop::Seen(listed_as),
            ..
        }) => Outcome::Alias { hop, listed_as },
        Ok(Checked::Stopped {
            hop,
            stop: HopStop::OffOrigin,
            ..
        }) => Outcome::OffOrigin { hop },
        Ok(Checked::Stopped {
            stop: HopStop::Failed(e),
            ..
        })
        | Err(e) => Outcome::Failed(e),
    };
    // The page is extracted and its body dropped: its turn to hold a large body ends.
    drop(check);
    Visit {
        url,
        depth,
        outcome,
    }
}

/// What a walk keeps of each page it fetched, and how many large pages it extracts at
/// once: what one crawl holds stays a few pages' worth, however many links or pages.
struct Keep {
    /// The links kept of a page: those the walk reads, and one more.
    links: usize,
    /// The walk's one turn to extract a large page ([`work::LARGE`] bytes or more): a
    /// page's document tree is tens of times its size, so one crawl builds one at a time
    /// (small pages do not wait).
    large: Semaphore,
    /// The walk's turns to hold a large body ([`LARGE_BODIES`]): a fetch whose body has
    /// read [`work::LARGE`] bytes takes one before it reads on, and holds it until its
    /// page is extracted.
    bodies: Semaphore,
}

impl Keep {
    /// Extracts `page` within `call` (a large one in the walk's turn), keeping its text
    /// and the first [`Keep::links`] of its links (the extractor collects no more); the
    /// body is dropped once extracted.
    async fn extract(&self, page: Page, call: &Allowance) -> Result<(Page, PageText), Error> {
        let _turn = if page.bytes >= work::LARGE {
            Some(self.large_turn(&page, call).await?)
        } else {
            None
        };
        PageText::extract_in_then(page, call, self.links, |mut page, text| {
            page.drop_text();
            (page, text)
        })
        .await
    }

    /// Waits for the walk's turn to extract a large page, within `call`.
    async fn large_turn(
        &self,
        page: &Page,
        call: &Allowance,
    ) -> Result<SemaphorePermit<'_>, Error> {
        tokio::select! {
            biased;
            () = call.cancellation().cancelled() => Err(Error::Cancelled),
            () = tokio::time::sleep_until(call.deadline()) => {
                Err(extracting_too_late(page.final_url.to_string(), call))
            }
            // The semaphore is never closed.
            turn = self.large.acquire() => turn.map_err(|_| Error::Cancelled),
        }
    }
}

/// Every URL this crawl requested (redirect hops included), by [`key`], with the URL
/// of the visit that requested it.
#[derive(Debug, Default)]
struct Claims(Mutex<HashMap<String, CheckedUrl>>);

impl Claims {
    /// Claims `url` for the visit of `owner`: `None` when it is claimed now, or the URL
    /// of the visit that claimed it before.
    fn claim(&self, url: &CheckedUrl, owner: &CheckedUrl) -> Option<CheckedUrl> {
        let mut claimed = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match claimed.entry(key(url)) {
            Entry::Occupied(first) => Some(first.get().clone()),
            Entry::Vacant(free) => {
                free.insert(owner.clone());
                None
            }
        }
    }

    /// Whether `url` was requested already.
    fn contains(&self, url: &CheckedUrl) -> bool {
        let claimed = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        claimed.contains_key(&key(url))
    }
}

/// What the crawl checks on each redirect hop before it is requested.
struct Hops<'a> {
    /// The URLs requested so far.
    claims: &'a Claims,
    /// The crawl's origin: hops on it are checked against robots.txt.
    origin: &'a Origin,
    /// robots.txt, when it is respected.
    robots: Option<&'a RobotsCache>,
    /// The fetcher, whose cache may answer a hop without asking the origin.
    fetcher: &'a Fetcher,
    /// The politeness clock the hops wait on.
    pace: &'a Pace,
    /// The call, within which robots.txt is read.
    call: &'a Allowance,
}

/// The politeness clock of one walk: the wait between two requests to the origin and
/// when the last one started. Requests wait on it one at a time (a walk with a delay
/// has one fetch in flight).
#[derive(Debug, Default)]
struct Pace {
    /// The wait between two requests.
    delay: Mutex<Duration>,
    /// When the last request started.
    last: Mutex<Option<Instant>>,
}

/// Why a request could not wait its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Late {
    /// The turn comes after the call's deadline.
    Deadline,
    /// The call was cancelled while waiting.
    Cancelled,
}

impl Pace {
    /// Sets the wait between two requests.
    fn set_delay(&self, delay: Duration) {
        *self.delay.lock().unwrap_or_else(PoisonError::into_inner) = delay;
    }

    /// Waits until the delay after the last request has passed. A turn too late for
    /// the call's time ends the wait at once, rather than idling the budget away (and
    /// a delay as large as robots.txt may write cannot overflow the clock).
    async fn wait_turn(&self, call: &Allowance) -> Result<(), Late> {
        let delay = *self.delay.lock().unwrap_or_else(PoisonError::into_inner);
        let last = *self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(last) = last.filter(|_| !delay.is_zero()) else {
            return Ok(());
        };
        let ready = match last.checked_add(delay) {
            Some(ready) if ready <= call.deadline() => ready,
            _ => return Err(Late::Deadline),
        };
        tokio::select! {
            biased;
            () = call.cancellation().cancelled() => Err(Late::Cancelled),
            () = tokio::time::sleep_until(ready) => Ok(()),
        }
    }

    /// Marks a request starting now.
    fn mark(&self) {
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
    }
}

/// Why a redirect hop of a visit was not requested.
#[derive(Debug)]
enum HopStop {
    /// It leaves the crawl's origin.
    OffOrigin,
    /// It was requested before, by the visit of this URL.
    Seen(CheckedUrl),
    /// robots.txt refused it (or reading robots.txt failed within the call).
    Failed(Error),
}

/// The hop check of one visit: [`Hops`], the URL of the visit it claims hops for, and the
/// visit's turn to hold a large body (see [`Keep::bodies`]), once taken.
struct VisitCheck<'h, 'a>(
    &'h Hops<'a>,
    &'h CheckedUrl,
    &'h Keep,
    Mutex<Option<SemaphorePermit<'h>>>,
);

impl HopCheck for VisitCheck<'_, '_> {
    type Stop = HopStop;

    async fn check(&self, hop: &CheckedUrl, _chain: &[CheckedUrl]) -> Result<(), HopStop> {
        let VisitCheck(hops, owner, ..) = self;
        if hop.origin() != *hops.origin {
            return Err(HopStop::OffOrigin);
        }
        if let Some(first) = hops.claims.claim(hop, owner) {
            return Err(HopStop::Seen(first));
        }
        if let Some(robots) = hops.robots {
            robots
                .check(hop, hops.call)
                .await
                .map_err(HopStop::Failed)?;
        }
        let delay = *hops
            .pace
            .delay
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !delay.is_zero() && hops.fetcher.answers_from_cache(hop, hops.call) {
            return Ok(());
        }
        match hops.pace.wait_turn(hops.call).await {
            Ok(()) => {}
            Err(Late::Cancelled) => return Err(HopStop::Failed(Error::Cancelled)),
            Err(Late::Deadline) => {
                return Err(HopStop::Failed(Error::Deadline(Deadline {
                    url: hop.to_string(),
                    phase: Phase::Connecting,
                    key: ConfigKey::TotalTimeout,
                    limit: hops.call.budget(),
                })));
            }
        }
        hops.pace.mark();
        Ok(())
    }

    async fn large_body(&self) {
        let VisitCheck(.., keep, held) = self;
        // The semaphore is never closed; the turn is held until the visit ends, its page
        // extracted.
        if let Ok(turn) = keep.bodies.acquire().await {
            *held.lock().unwrap_or_else(PoisonError::into_inner) = Some(turn);
        }
    }
}

/// The state of one walk: what was seen, what waits, what was fetched.
struct Walk<'o> {
    /// The start page's origin: the only one followed.
    origin: &'o Origin,
    /// Every URL requested, redirect hops included.
    claims: &'o Claims,
    /// Every URL queued or passed through, by [`key`].
    seen: HashSet<String>,
    /// The pages waiting, with their depth, in breadth-first order.
    queue: VecDeque<(CheckedUrl, usize)>,
    /// Links queued in all, the start page included.
    queued: usize,
    /// The most links queued in all.
    max_queued: usize,
    /// The most links read from one page.
    read_per_page: usize,
    /// Whether a link was left unqueued for the bounds.
    left_out: bool,
    /// Fetches started (what `max-pages` counts).
    started: usize,
    /// Fetches completed and reported (robots-refused pages not counted).
    fetched: usize,
}

impl Walk<'_> {
    /// The next queued page not already requested (through a redirect of another).
    fn next_queued(&mut self) -> Option<(CheckedUrl, usize)> {
        while let Some((url, depth)) = self.queue.pop_front() {
            if !self.claims.contains(&url) {
                return Some((url, depth));
            }
        }
        None
    }

    /// Queues the same-origin links of `text` not seen yet, at `depth`, within the
    /// walk's bounds: the first [`Walk::read_per_page`] links of the page, and
    /// [`Walk::max_queued`] in all.
    fn follow(&mut self, text: &PageText, depth: usize) {
        let links = text.links();
        if links.len() > self.read_per_page {
            self.left_out = true;
        }
        for link in links.iter().take(self.read_per_page) {
            let Ok(url) = CheckedUrl::parse(link.as_str()) else {
                continue;
            };
            if url.origin() != *self.origin {
                continue;
            }
            if self.queued >= self.max_queued {
                if !self.seen.contains(&key(&url)) {
                    self.left_out = true;
                    return;
                }
                continue;
            }
            if self.seen.insert(key(&url)) {
                self.queue.push_back((url, depth));
                self.queued += 1;
            }
        }
    }

    /// The summary so far, ended for `stopped`.
    fn summary(&self, stopped: Stopped) -> Summary {
        Summary {
            fetched: self.fetched,
            queued: self.queued,
            stopped,
        }
    }

    /// How a failure outside any page's fetch (robots.txt within the call) ends the
    /// crawl: the call's deadline is a stop, anything else the error.
    fn ended(&self, e: Error) -> Result<Summary, Error> {
        if is_total_timeout(&e) && self.started > 0 {
            Ok(self.summary(Stopped::Deadline))
        } else {
            Err(e)
        }
    }
}

/// True when `e` is the call's own `total-timeout` running out.
fn is_total_timeout(e: &Error) -> bool {
    matches!(e, Error::Deadline(d) if d.key == ConfigKey::TotalTimeout)
}

/// The identity of a URL within one crawl: its text without the fragment.
fn key(url: &CheckedUrl) -> String {
    let mut url = url.url().clone();
    url.set_fragment(None);
    url.into()
}
