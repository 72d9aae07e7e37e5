//! The dispatch of one tool call, apart from any transport: find the tool, build the
//! [`Request`], run its pack's `call`, forward the request's notifications, wait for
//! its one answer (or its cancellation) and return the [`Outcome`]. A panic in a
//! handler is a bug, not an answer: it is caught, logged, and is the call's
//! [`Outcome::Panicked`]; the server and its other calls go on.
//!
//! The transports describe a call as a [`Call`] and turn the outcome into their wire
//! form; [`Server::call`] and [`Server::dispatch`] run a call in process, which is
//! how a host or a test drives a pack without a client.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::outcome::{CancelledBy, Outcome, ToolResult};
use crate::request::{CLIENT_CANCELLED, Event, Parts, Peer, Request, Shared, catching_panics};
use crate::server::Server;
use crate::toolkit::CallFuture;

/// A notification a call sends towards its client (progress, logging, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The notification's method, e.g. `notifications/progress`.
    pub method: String,
    /// Its params object.
    pub params: Value,
}

/// The future a [`NotificationSink`] returns for one notification.
pub type SinkFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Where a call's notifications go. The dispatch awaits each delivery before it
/// looks at the next event, so notifications keep their order and precede the
/// answer. Delivery is best effort: a sink that cannot deliver drops the
/// notification.
pub trait NotificationSink: Send + Sync {
    /// Delivers one notification.
    fn send(&self, notification: Notification) -> SinkFuture<'_>;
}

impl NotificationSink for mpsc::UnboundedSender<Notification> {
    fn send(&self, notification: Notification) -> SinkFuture<'_> {
        // A receiver that went away no longer wants them.
        let _ = mpsc::UnboundedSender::send(self, notification);
        Box::pin(std::future::ready(()))
    }
}

/// One tool call as the dispatch sees it: the tool, its arguments and the call's
/// parts (id, protocol version, peer, `_meta`, answers to earlier asks), its
/// cancellation token and where its notifications go.
#[derive(Clone)]
pub struct Call {
    tool: String,
    args: Map<String, Value>,
    id: Value,
    protocol_version: Option<String>,
    peer: Peer,
    meta: Map<String, Value>,
    input_responses: Map<String, Value>,
    request_state: Option<String>,
    can_ask: bool,
    cancel: CancellationToken,
    sink: Option<Arc<dyn NotificationSink>>,
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("tool", &self.tool)
            .field("id", &self.id)
            .field("protocol_version", &self.protocol_version)
            .field("peer", &self.peer)
            .field("notifications", &self.sink.is_some())
            .finish_non_exhaustive()
    }
}

impl Call {
    /// A call of `tool` with `args`, served in process: id null, no protocol
    /// version, no `_meta`, never cancelled, its notifications dropped.
    pub fn new(tool: impl Into<String>, args: Map<String, Value>) -> Self {
        Self {
            tool: tool.into(),
            args,
            id: Value::Null,
            protocol_version: None,
            peer: Peer {
                transport: "in-process",
                ..Peer::default()
            },
            meta: Map::new(),
            input_responses: Map::new(),
            request_state: None,
            can_ask: false,
            cancel: CancellationToken::new(),
            sink: None,
        }
    }

    /// Sets the JSON-RPC request id.
    pub fn with_id(mut self, id: Value) -> Self {
        self.id = id;
        self
    }

    /// Sets the protocol revision the call is served under.
    pub fn with_protocol_version(mut self, version: impl Into<String>) -> Self {
        self.protocol_version = Some(version.into());
        self
    }

    /// Sets the connection's peer.
    pub fn with_peer(mut self, peer: Peer) -> Self {
        self.peer = peer;
        self
    }

    /// Sets the request's `_meta` object (its `progressToken` among others).
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = meta;
        self
    }

    /// Sets `_meta.progressToken`, so the tool reports progress.
    pub fn with_progress_token(mut self, token: Value) -> Self {
        self.meta.insert("progressToken".to_owned(), token);
        self
    }

    /// Sets the client's answers to an earlier round's asks and the state it echoes.
    pub fn with_input(mut self, responses: Map<String, Value>, state: Option<String>) -> Self {
        self.input_responses = responses;
        self.request_state = state;
        self
    }

    /// Sets whether the client can show its user a form (it declared form
    /// elicitation), so a permission may be asked ([`Request::require_permission`]).
    /// A call in process cannot be asked unless this says so.
    pub fn with_user_forms(mut self, can_ask: bool) -> Self {
        self.can_ask = can_ask;
        self
    }

    /// Sets the token whose cancellation is the client cancelling the call.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    /// Sends the call's notifications to `sink`.
    pub fn with_notifications(mut self, sink: impl NotificationSink + 'static) -> Self {
        self.sink = Some(Arc::new(sink));
        self
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The protocol revision the call is served under, when known.
    pub fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// The JSON-RPC params the tool sees as `Request::params`: `name`, `arguments`,
    /// and `_meta`, `inputResponses`, `requestState` when present.
    fn params(&self) -> Value {
        let mut params = Map::new();
        params.insert("name".to_owned(), Value::String(self.tool.clone()));
        params.insert("arguments".to_owned(), Value::Object(self.args.clone()));
        if !self.meta.is_empty() {
            params.insert("_meta".to_owned(), Value::Object(self.meta.clone()));
        }
        if !self.input_responses.is_empty() {
            params.insert(
                "inputResponses".to_owned(),
                Value::Object(self.input_responses.clone()),
            );
        }
        if let Some(state) = &self.request_state {
            params.insert("requestState".to_owned(), Value::String(state.clone()));
        }
        Value::Object(params)
    }
}

impl Server {
    /// Runs one call of `tool` with `args` in process, without any transport, and
    /// returns its outcome. See [`Server::dispatch`] for cancellation, progress and
    /// the other parts of a call.
    pub async fn call(&self, tool: impl Into<String>, args: Map<String, Value>) -> Outcome {
        self.dispatch(Call::new(tool, args)).await
    }

    /// Runs `call` and returns its outcome: the tool's answer, its request for
    /// input, or why there is none (unknown tool, cancelled, a broken answer, a
    /// permission state this server did not issue for this call).
    pub async fn dispatch(&self, call: Call) -> Outcome {
        let Some((pack, toolset)) = self.inner.pack_for(&call.tool) else {
            return Outcome::UnknownTool(call.tool);
        };
        let permit = match self.inner.gate.open(
            &self.inner.permissions,
            &call.tool,
            &call.args,
            call.request_state.as_deref(),
            &call.input_responses,
            call.can_ask,
        ) {
            Ok(permit) => permit,
            Err(why) => {
                tracing::warn!(tool = %call.tool, "refused a requestState: {why}");
                return Outcome::BadState(crate::permission::BAD_STATE.to_owned());
            }
        };
        let parts = Parts {
            id: call.id.clone(),
            protocol_version: call.protocol_version.clone(),
            peer: call.peer.clone(),
            params: call.params(),
            tool: call.tool.clone(),
            args: call.args.clone(),
            toolset,
            progress_token: call.meta.get("progressToken").cloned(),
            input_responses: call.input_responses.clone(),
            request_state: call.request_state.clone(),
            permit,
        };
        // The request's own token: the server cancels it without cancelling the
        // client's.
        let token = call.cancel.child_token();
        let (request, shared, mut events) = Request::new(parts, token.clone());

        // A pack may panic in `call` itself, before it returns its future.
        let future = match catching_panics(|| {
            std::panic::catch_unwind(AssertUnwindSafe(|| pack.call(request)))
        }) {
            Ok(future) => future,
            Err(payload) => {
                shared.panicked(panic_message(payload.as_ref()));
                Box::pin(std::future::ready(()))
            }
        };
        let task = tokio::spawn(run_catching_panics(future, Arc::clone(&shared)));
        let abort = task.abort_handle();
        let ended = loop {
            tokio::select! {
                biased;
                event = events.recv() => match event {
                    Some(Event::Notify { method, params }) => {
                        if let Some(sink) = &call.sink {
                            sink.send(Notification { method, params }).await;
                        }
                    }
                    Some(Event::Reply(result)) => break Ok(answered(&call.tool, result)),
                    Some(Event::NeedsInput(input)) if input.is_empty() => {
                        break Ok(Outcome::Failed(format!(
                            "the tool {} asked for input without asking anything or \
                             carrying state; this is a bug in the {} toolkit",
                            call.tool,
                            pack.name()
                        )));
                    }
                    Some(Event::NeedsInput(input)) => break Ok(Outcome::NeedsInput(input)),
                    Some(Event::Panicked(message)) => {
                        let message = format!(
                            "the tool {} panicked: {message}; this is a bug in the {} \
                             toolkit, and no configuration key changes it",
                            call.tool,
                            pack.name()
                        );
                        tracing::error!(tool = %call.tool, toolset = %pack.name(), "{message}");
                        break Ok(Outcome::Panicked(message));
                    }
                    None => break Err(Outcome::Failed(format!(
                        "the call of {} was left without an answer",
                        call.tool
                    ))),
                },
                () = token.cancelled() => {
                    if call.cancel.is_cancelled() {
                        shared.cancel(Some(CLIENT_CANCELLED));
                        break Err(Outcome::Cancelled(CancelledBy::Client));
                    }
                    break Err(Outcome::Cancelled(CancelledBy::Server));
                }
            }
        };
        match ended {
            // The handler may still be running after it answered (clean-up); it is
            // detached, not aborted.
            Ok(outcome) => outcome,
            Err(outcome) => {
                abort.abort();
                outcome
            }
        }
    }
}

/// Runs a pack's call future, catching a panic in it: the request is completed as
/// panicked before the future (and the request it holds) is dropped, so the panic
/// is never taken for a request dropped unanswered. The panic hook has already
/// written the panic and its location to stderr.
async fn run_catching_panics(mut future: CallFuture, shared: Arc<Shared>) {
    let caught = std::future::poll_fn(|cx| {
        match catching_panics(|| {
            std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx)))
        }) {
            Ok(Poll::Ready(())) => Poll::Ready(None),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Some(payload)),
        }
    })
    .await;
    if let Some(payload) = caught {
        shared.panicked(panic_message(payload.as_ref()));
    }
    drop(future);
}

/// The text a panic carried, when it carried text.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// The outcome of a tool's answer: its result, or why the answer is not one.
fn answered(tool: &str, result: Value) -> Outcome {
    match ToolResult::from_json(result) {
        Ok(result) => Outcome::Answered(result),
        Err(error) => Outcome::Failed(format!(
            "the tool {tool} answered with a result that is not a valid MCP CallToolResult: {error}"
        )),
    }
}
