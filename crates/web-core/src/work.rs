//! Where CPU-heavy work runs (extraction, matching): never on the async threads.
//!
//! Work on a small input runs on tokio's blocking pool. Work on a large input (at least
//! [`LARGE`] bytes) runs on a thread of its own at a lower scheduling priority (nice
//! [`NICE`]): the scheduler then gives the small work of every other call the cores
//! first, and a few large pages or costly patterns share what is left among themselves
//! instead of taking an equal share with each small job. Each thread has its own nice
//! value on Linux, so lowering one never touches the others; where that cannot be done
//! the thread runs at the usual priority.
//!
//! Large work also takes turns: at most as many large jobs run at once as the machine
//! has cores ([`large_turn`], first come first served), whatever the number of calls, so
//! what they hold together (a page's document tree is tens of times its size) is bounded
//! by the cores, and running more at once would only slice the same cores thinner. A
//! caller waits for its turn within its call's deadline and cancellation.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use tokio::sync::{Semaphore, SemaphorePermit};

/// Input bytes from which work runs on a thread of its own at a lower priority: well
/// above a usual page (tens of kilobytes), well below `max-bytes`' default.
pub const LARGE: usize = 256 * 1024;

/// The nice value a thread doing large work sets on itself (the usual value is 0; 19
/// the lowest priority).
pub const NICE: i32 = 10;

/// The turns of large work: one per core.
static LARGE_TURNS: OnceLock<Semaphore> = OnceLock::new();

/// Waits for a turn to run large work (one of as many as the machine has cores), held
/// until the permit is dropped.
pub async fn large_turn() -> SemaphorePermit<'static> {
    let turns = LARGE_TURNS.get_or_init(|| {
        Semaphore::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
    });
    // The semaphore is never closed.
    turns
        .acquire()
        .await
        .unwrap_or_else(|_| unreachable!("the turns of large work are never closed"))
}

/// Runs `work`, whose input is `input_bytes` long, off the async threads and answers its
/// result; `None` when the runtime is shutting down. Large work waits for its turn
/// first ([`large_turn`]). A panic in `work` resumes in the caller, as if it had run
/// there.
pub async fn run<T, F>(input_bytes: usize, work: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    if input_bytes < LARGE {
        return on_blocking_pool(work).await;
    }
    // Held until the work is done, or until this future is dropped (the call ended):
    // then the thread finishes soon (work reads its call's deadline) outside the count.
    let _turn = large_turn().await;
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let job = Arc::new(Mutex::new(Some(work)));
    let taken = Arc::clone(&job);
    let spawned = std::thread::Builder::new()
        .name("mcp-web-large".to_owned())
        .spawn(move || {
            lower_priority();
            let work = taken.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(work) = work {
                let _ = sender.send(catch_unwind(AssertUnwindSafe(work)));
            }
        });
    if spawned.is_err() {
        // No thread to be had: the blocking pool's threads exist already.
        let work = job.lock().unwrap_or_else(PoisonError::into_inner).take()?;
        return on_blocking_pool(work).await;
    }
    match receiver.await {
        Ok(Ok(done)) => Some(done),
        Ok(Err(panic)) => resume_unwind(panic),
        Err(_) => None,
    }
}

/// Runs `work` on tokio's blocking pool.
async fn on_blocking_pool<T, F>(work: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(done) => Some(done),
        Err(e) if e.is_panic() => resume_unwind(e.into_panic()),
        Err(_) => None,
    }
}

/// Lowers the calling thread's priority to [`NICE`] (on Linux, `setpriority` with no
/// process id names the calling thread alone); a failure leaves it as it was.
fn lower_priority() {
    let _ = rustix::process::setpriority_process(None, NICE);
}

#[cfg(test)]
mod tests {
    use futures::FutureExt;

    use super::*;

    /// The calling thread's nice value.
    fn nice() -> i32 {
        rustix::process::getpriority_process(None).expect("getpriority")
    }

    #[tokio::test]
    async fn large_work_runs_at_a_lower_priority_and_small_work_does_not() {
        let caller = nice();
        let small = run(LARGE - 1, nice).await.expect("ran");
        let large = run(LARGE, nice).await.expect("ran");
        assert_eq!(small, caller, "small work keeps the usual priority");
        assert_eq!(large, caller.max(NICE), "large work is lowered");
        assert_eq!(nice(), caller, "the caller's thread is untouched");
        // A blocking-pool thread that ran small work after large work is untouched too.
        assert_eq!(run(0, nice).await, Some(caller));
    }

    #[tokio::test]
    async fn large_work_takes_turns_one_per_core() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // Every turn held: large work waits; small work does not.
        let mut held = Vec::new();
        for _ in 0..cores {
            held.push(large_turn().await);
        }
        let mut waiting = Box::pin(run(LARGE, || 1));
        assert!(
            waiting.as_mut().now_or_never().is_none(),
            "large work waits its turn"
        );
        assert_eq!(
            run(LARGE - 1, || 2).await,
            Some(2),
            "small work runs at once"
        );
        held.pop();
        assert_eq!(waiting.await, Some(1), "a turn given back lets it run");
    }

    #[tokio::test]
    async fn a_panic_in_large_work_resumes_in_the_caller() {
        let outcome = tokio::spawn(run(LARGE, || -> u8 { panic!("inside") })).await;
        let panic = outcome.expect_err("the panic crossed over").into_panic();
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"inside"));
    }
}
