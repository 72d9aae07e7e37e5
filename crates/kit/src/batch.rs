//! Batches of tool calls ([`Server::execute_tool_calls`]): read-only calls run side by
//! side, a bounded number at a time; identical calls of an idempotent tool (same tool,
//! same canonical arguments) run once and share the answer; the outcomes come back in
//! the order of the calls, and one call's failure is its own outcome, never the
//! batch's.
//!
//! A call of a tool not annotated read-only runs alone: the read-only calls before it
//! have finished when it starts, and those after it start when it has finished.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::dispatch::Call;
use crate::outcome::Outcome;
use crate::permission::canonical;
use crate::server::Server;

/// How many calls of a batch run at once unless the caller says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// One call of a batch: a tool and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name.
    pub tool: String,
    /// Its arguments.
    pub arguments: Map<String, Value>,
}

impl ToolCall {
    /// A call of `tool` with `arguments`.
    pub fn new(tool: impl Into<String>, arguments: Map<String, Value>) -> ToolCall {
        ToolCall {
            tool: tool.into(),
            arguments,
        }
    }
}

/// How one call of a batch is run.
enum Slot {
    /// Runs; its outcome is its own.
    Runs,
    /// Shares the outcome of the identical call at this index.
    Shares(usize),
}

impl Server {
    /// Runs `calls` as a batch, [`DEFAULT_CONCURRENCY`] at a time, and returns their
    /// outcomes in order (see [`Server::execute_tool_calls_with`]).
    pub async fn execute_tool_calls(&self, calls: Vec<ToolCall>) -> Vec<Outcome> {
        self.execute_tool_calls_with(calls, DEFAULT_CONCURRENCY)
            .await
    }

    /// Runs `calls` as a batch and returns their outcomes in order: consecutive calls
    /// of read-only tools side by side, at most `concurrency` at once (at least one);
    /// a call of any other tool alone, after those before it. A call identical to an
    /// earlier one (same tool, same canonical arguments) of a tool annotated
    /// idempotent is not run again: it shares that call's outcome. Every call runs in
    /// process (it cannot ask the user for anything); a call that fails, or whose
    /// handler panics, has that as its outcome and the others go on.
    pub async fn execute_tool_calls_with(
        &self,
        calls: Vec<ToolCall>,
        concurrency: usize,
    ) -> Vec<Outcome> {
        let limit = Arc::new(Semaphore::new(concurrency.max(1)));
        let mut first_of: HashMap<(String, String), usize> = HashMap::new();
        let slots: Vec<Slot> = calls
            .iter()
            .enumerate()
            .map(|(index, call)| {
                if !self.inner.is_idempotent(&call.tool) {
                    return Slot::Runs;
                }
                let key = (
                    call.tool.clone(),
                    canonical(&Value::Object(call.arguments.clone())),
                );
                match first_of.get(&key) {
                    Some(&first) => Slot::Shares(first),
                    None => {
                        first_of.insert(key, index);
                        Slot::Runs
                    }
                }
            })
            .collect();

        let mut outcomes: Vec<Option<Outcome>> = vec![None; calls.len()];
        let mut running: JoinSet<(usize, Outcome)> = JoinSet::new();
        for (index, (call, slot)) in calls.into_iter().zip(&slots).enumerate() {
            if matches!(slot, Slot::Shares(_)) {
                continue;
            }
            let read_only = self.inner.is_read_only(&call.tool);
            if !read_only {
                // Alone: after the read-only calls before it, before those after it.
                collect(&mut running, &mut outcomes).await;
            }
            let server = self.clone();
            let limit = Arc::clone(&limit);
            running.spawn(async move {
                // The semaphore is never closed; without a permit the call still runs.
                let _permit = limit.acquire_owned().await.ok();
                let outcome = server.dispatch(Call::new(call.tool, call.arguments)).await;
                (index, outcome)
            });
            if !read_only {
                collect(&mut running, &mut outcomes).await;
            }
        }
        collect(&mut running, &mut outcomes).await;

        let mut answered = Vec::with_capacity(slots.len());
        for (index, slot) in slots.iter().enumerate() {
            let own = match slot {
                Slot::Runs => outcomes.get(index),
                Slot::Shares(first) => outcomes.get(*first),
            };
            answered.push(own.cloned().flatten().unwrap_or_else(|| {
                Outcome::Failed("the call's task ended without an outcome".to_owned())
            }));
        }
        answered
    }
}

/// Waits for every running call and files its outcome under its index. A task that
/// failed (the dispatch catches a handler's panic, so only an abort) leaves its slot
/// empty, which becomes a failed outcome.
async fn collect(running: &mut JoinSet<(usize, Outcome)>, outcomes: &mut [Option<Outcome>]) {
    while let Some(joined) = running.join_next().await {
        match joined {
            Ok((index, outcome)) => {
                if let Some(slot) = outcomes.get_mut(index) {
                    *slot = Some(outcome);
                }
            }
            Err(error) => tracing::error!(%error, "a batch call's task failed"),
        }
    }
}
