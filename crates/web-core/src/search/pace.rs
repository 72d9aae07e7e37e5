//! Pacing of one provider's requests: [`Paced`] spaces the searches it sends by the
//! configured rate (`search-rate`, requests per second), refuses a search whose turn
//! would come after its call's deadline, and waits out a rate limit the provider
//! answered with a delay (`Retry-After`) once, when the retry still starts before the
//! deadline, saying so through the caller's progress report.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use super::{Filters, SearchProvider, SearchResult};
use crate::error::{Error, Search, SearchFailure, seconds};

/// A search provider whose requests are spaced by a rate and whose rate limits are
/// waited out once within the call's deadline. Clones share the turns.
#[derive(Clone)]
pub struct Paced {
    provider: Arc<dyn SearchProvider>,
    rate: u64,
    turns: Arc<Turns>,
}

impl std::fmt::Debug for Paced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Paced")
            .field("provider", &self.provider.name())
            .field("rate", &self.rate)
            .finish_non_exhaustive()
    }
}

/// The next free turn of one provider.
struct Turns {
    /// Time between two requests.
    interval: Duration,
    /// When the next request may start; `None` before the first.
    next: Mutex<Option<Instant>>,
}

impl Turns {
    /// Claims the first turn at or after `not_before`, when it comes by `deadline`:
    /// the turn's instant, or how long the request would have waited.
    fn claim(&self, not_before: Instant, deadline: Instant) -> Result<Instant, Duration> {
        let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
        let turn = next.map_or(not_before, |n| n.max(not_before));
        if turn > deadline {
            return Err(turn.saturating_duration_since(Instant::now()));
        }
        *next = Some(turn + self.interval);
        Ok(turn)
    }
}

/// One search's limits: its deadline, its whole budget (as messages name it) and
/// where it reports a wait.
pub struct Pacing<'a> {
    /// When the call must be over.
    pub deadline: Instant,
    /// The call's whole budget (`total-timeout`), as a refusal names it.
    pub budget: Duration,
    /// Told, in words, when the search waits out a provider's rate limit.
    pub report: &'a (dyn Fn(&str) + Sync),
}

impl Paced {
    /// `provider`, its requests spaced to `rate` per second (at least 1).
    pub fn new(provider: Arc<dyn SearchProvider>, rate: u64) -> Paced {
        let rate = rate.max(1);
        Paced {
            provider,
            rate,
            turns: Arc::new(Turns {
                interval: Duration::from_secs(1) / u32::try_from(rate).unwrap_or(u32::MAX),
                next: Mutex::new(None),
            }),
        }
    }

    /// The provider asked.
    pub fn provider(&self) -> &Arc<dyn SearchProvider> {
        &self.provider
    }

    /// At most `count` results for `query` under `filters`, sent at the provider's
    /// next turn. A rate limit answered with a delay that ends before the deadline is
    /// reported, waited out and retried once; any other answer, or a delay past the
    /// deadline, is the provider's own. A turn past the deadline is refused as
    /// [`SearchFailure::Paced`] without a request.
    pub async fn search(
        &self,
        query: &str,
        count: usize,
        filters: &Filters,
        pacing: &Pacing<'_>,
    ) -> Result<Vec<SearchResult>, Error> {
        self.wait_turn(Instant::now(), pacing).await?;
        let error = match self.provider.search_filtered(query, count, filters).await {
            Err(Error::Search(search)) => search,
            answer => return answer,
        };
        let wait = match &*error.failure {
            SearchFailure::RateLimited {
                wait: Some(wait), ..
            } => *wait,
            _ => return Err(Error::Search(error)),
        };
        let Some(retry_at) = Instant::now()
            .checked_add(wait)
            .filter(|at| *at <= pacing.deadline)
        else {
            return Err(Error::Search(error));
        };
        (pacing.report)(&format!(
            "{} is rate-limiting: retrying once in {}, as it asked",
            self.provider.name(),
            seconds(wait)
        ));
        self.wait_turn(retry_at, pacing).await?;
        self.provider.search_filtered(query, count, filters).await
    }

    /// Claims the first turn at or after `not_before` and sleeps until it.
    async fn wait_turn(&self, not_before: Instant, pacing: &Pacing<'_>) -> Result<(), Error> {
        match self.turns.claim(not_before, pacing.deadline) {
            Ok(turn) => {
                tokio::time::sleep_until(turn).await;
                Ok(())
            }
            Err(queued) => Err(Error::Search(Search::new(
                self.provider.name(),
                SearchFailure::Paced {
                    rate: self.rate,
                    queued,
                    budget: pacing.budget,
                },
            ))),
        }
    }
}
