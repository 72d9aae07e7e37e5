//! A call's allowance: what one tool call allows all of its fetches.
//!
//! A tool call (one `web_fetch`, a whole crawl, a grep across a site) makes one
//! [`Allowance`] when it starts and passes it to every fetch it makes, robots.txt
//! included. The allowance carries the call's cancellation, one deadline for the whole call (`total-timeout`), and the
//! budgets a fetch may narrow for itself (redirects, bytes), plus room for a one-time
//! permission [`Grant`]. The pool of vetted connections is not in the allowance: it belongs to
//! the [`Fetcher`](super::Fetcher) and its policy, and a granted connection never enters it.
//!
//! A caller that walks many pages (the crawl) may also check every redirect hop before
//! it is requested: a [`HopCheck`] given to
//! [`Fetcher::fetch_checked`](super::Fetcher::fetch_checked) can stop a chain with a
//! reason of its own, and the fetch answers [`Checked::Stopped`] without requesting the
//! hop.

use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{MAX_REDIRECTS, Page};
use crate::guard::Grant;
use crate::url::CheckedUrl;

/// What one tool call allows its fetches: cancellation, one deadline, redirect and
/// byte budgets, and a one-time grant. Clones share the cancellation and the deadline.
#[derive(Debug, Clone)]
pub struct Allowance {
    cancel: CancellationToken,
    deadline: Instant,
    budget: Duration,
    max_redirects: usize,
    max_bytes: Option<usize>,
    grant: Option<Grant>,
}

impl Allowance {
    /// A call that started now, with `total_timeout` (the `total-timeout` key) for all
    /// of its fetches together, stopped early when `cancel` fires.
    pub fn new(total_timeout: Duration, cancel: CancellationToken) -> Allowance {
        Allowance {
            cancel,
            deadline: after(Instant::now(), total_timeout),
            budget: total_timeout,
            max_redirects: MAX_REDIRECTS,
            max_bytes: None,
            grant: None,
        }
    }

    /// This call with at most `max` redirects per fetch instead of [`MAX_REDIRECTS`]:
    /// the fetch stops at hop `max + 1` without requesting it.
    #[must_use]
    pub fn with_max_redirects(mut self, max: usize) -> Allowance {
        self.max_redirects = max;
        self
    }

    /// This call reading at most `max` decoded body bytes per response instead of the
    /// fetcher's `max-bytes`.
    #[must_use]
    pub fn with_max_bytes(mut self, max: usize) -> Allowance {
        self.max_bytes = Some(max);
        self
    }

    /// This call with a one-time permission the user granted it.
    #[must_use]
    pub fn with_grant(mut self, grant: Grant) -> Allowance {
        self.grant = Some(grant);
        self
    }

    /// The call's cancellation.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// When the whole call's time runs out.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// When the whole call's time runs out, on the standard clock: what work on a
    /// blocking thread reads as it goes.
    pub fn std_deadline(&self) -> std::time::Instant {
        let left = self.deadline.saturating_duration_since(Instant::now());
        let now = std::time::Instant::now();
        now.checked_add(left)
            .unwrap_or(now + Duration::from_secs(30 * 365 * 24 * 60 * 60))
    }

    /// The call's whole budget (`total-timeout`), as messages name it.
    pub fn budget(&self) -> Duration {
        self.budget
    }

    /// Whether the call's time has run out.
    pub fn expired(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// The most redirects one fetch of this call follows.
    pub fn max_redirects(&self) -> usize {
        self.max_redirects
    }

    /// The byte cap this call sets for each response, when it sets one.
    pub fn max_bytes(&self) -> Option<usize> {
        self.max_bytes
    }

    /// The one-time permission of this call, if the user granted one.
    pub fn grant(&self) -> Option<&Grant> {
        self.grant.as_ref()
    }
}

/// A check run on each redirect hop of one fetch before the hop is requested (the URL
/// asked for is the caller's to check before it fetches), and the caller's turn for a
/// large body.
pub trait HopCheck: Sync {
    /// Why a hop was not requested.
    type Stop: Send;

    /// `Ok` when `hop` may be requested after `chain` (every URL requested so far, the
    /// URL asked for first); otherwise the reason the fetch stops there.
    fn check(
        &self,
        hop: &CheckedUrl,
        chain: &[CheckedUrl],
    ) -> impl Future<Output = Result<(), Self::Stop>> + Send;

    /// Waits, once the final answer's body has read [`LARGE`](crate::work::LARGE) bytes,
    /// until it may read on (a walk bounds the large bodies it holds at once); the wait
    /// counts against the fetch's deadline. At once unless the caller says otherwise.
    fn large_body(&self) -> impl Future<Output = ()> + Send {
        std::future::ready(())
    }
}

/// The check that lets every hop through: what a plain fetch does.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnyHop;

impl HopCheck for AnyHop {
    type Stop = Infallible;

    async fn check(&self, _hop: &CheckedUrl, _chain: &[CheckedUrl]) -> Result<(), Infallible> {
        Ok(())
    }
}

/// How a fetch with a [`HopCheck`] ended, when it did not fail.
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "made once per fetch and taken apart at once; most fetches end with a page"
)]
pub enum Checked<S> {
    /// Every hop passed and the page was read.
    Page(Page),
    /// The check stopped the chain before `hop`, which was not requested.
    Stopped {
        /// Every URL requested, in order, the URL asked for first.
        chain: Vec<CheckedUrl>,
        /// The hop the check refused.
        hop: CheckedUrl,
        /// The check's reason.
        stop: S,
    },
}

/// `start + budget`, or a moment decades away when a budget as large as configuration
/// allows would overflow the clock: a huge budget means "no practical limit", never a
/// panic.
pub(crate) fn after(start: Instant, budget: Duration) -> Instant {
    const FAR: Duration = Duration::from_secs(30 * 365 * 24 * 60 * 60);
    start
        .checked_add(budget)
        .or_else(|| start.checked_add(FAR))
        .unwrap_or(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_budget_is_far_away_not_a_panic() {
        let call = Allowance::new(Duration::MAX, CancellationToken::new());
        assert!(!call.expired());
        assert_eq!(call.budget(), Duration::MAX);
        let now = Instant::now();
        assert_eq!(
            after(now, Duration::from_secs(5)),
            now + Duration::from_secs(5)
        );
        assert!(after(now, Duration::MAX) > now + Duration::from_secs(365 * 24 * 60 * 60));
    }
}
