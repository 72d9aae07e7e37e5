//! The [`Request`] object: one tool call, from arrival to its single answer.
//!
//! A handler receives a `Request`, may keep it (or move it into a spawned task) and
//! completes it exactly once with [`Request::reply`], [`Request::error`],
//! [`Request::result`] or [`Request::error_with`], or asks the client for input with
//! [`Request::ask`]. Those methods consume the request, so a second answer does not
//! compile. Before it acts, a handler may check a permission with
//! [`Request::require_permission`], which may end the round by asking the user. A
//! request dropped unanswered is answered with an error naming the tool; notifications
//! and progress after completion, and answers after cancellation, are ignored.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::outcome::NeedsInput;
use crate::permission::{ASK_KEY, Checked, Grant, Permission, Permit, Refusal};

/// What a request sends towards the client, in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// A notification tied to this request (progress, logging, ...).
    Notify {
        /// The notification's method, e.g. `notifications/progress`.
        method: String,
        /// Its params object.
        params: Value,
    },
    /// The MCP result that completes the request.
    Reply(Value),
    /// The input the tool needs before it can answer; completes this round.
    NeedsInput(NeedsInput),
    /// The handler panicked before it answered; the panic's message.
    Panicked(String),
}

thread_local! {
    /// Whether this thread is polling a handler under [`catching_panics`].
    static CATCHING_PANICS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` (a poll of a handler's future) with panics caught by the caller: a
/// request dropped by a panic inside it leaves its answer to the caller.
pub(crate) fn catching_panics<T>(f: impl FnOnce() -> T) -> T {
    let outer = CATCHING_PANICS.replace(true);
    let result = f();
    CATCHING_PANICS.set(outer);
    result
}

/// The reason given to `on_cancel` hooks when the client cancelled.
pub(crate) const CLIENT_CANCELLED: &str = "cancelled by the client";

/// A callback run once when the request is cancelled, with the reason if any.
type CancelHook = Box<dyn FnOnce(Option<&str>) + Send>;

/// State shared between a [`Request`] and the framework serving it.
pub(crate) struct Shared {
    finished: AtomicBool,
    cancelled: AtomicBool,
    token: CancellationToken,
    hooks: Mutex<Vec<CancelHook>>,
    events: mpsc::UnboundedSender<Event>,
}

impl Shared {
    /// Marks the request cancelled and finished, cancels its token and runs its
    /// `on_cancel` hooks. Returns false when it had already finished.
    pub(crate) fn cancel(&self, reason: Option<&str>) -> bool {
        if self.finished.swap(true, Ordering::SeqCst) {
            return false;
        }
        self.cancelled.store(true, Ordering::SeqCst);
        self.token.cancel();
        let hooks = match self.hooks.lock() {
            Ok(mut hooks) => std::mem::take(&mut *hooks),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        };
        for hook in hooks {
            hook(reason);
        }
        true
    }

    /// Completes the request as a panicked handler's, once: the framework answers it
    /// as an internal error, never as the tool's own answer.
    pub(crate) fn panicked(&self, message: String) {
        if self.finished.swap(true, Ordering::SeqCst) {
            return;
        }
        let _ = self.events.send(Event::Panicked(message));
    }

    /// Whether the request was cancelled.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }
}

/// Who is on the other end of the connection: transport context, not a user identity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Peer {
    /// The transport serving the request: `"stdio"`, `"http"`, or `"in-process"` for
    /// [`crate::Server::call`].
    pub transport: &'static str,
    /// The client's name, from `initialize` or the request's `_meta`, when it sent one.
    pub client_name: Option<String>,
    /// The client's version, when it sent one.
    pub client_version: Option<String>,
}

/// One MCP tool call. Complete it once; see the module documentation.
pub struct Request {
    /// The JSON-RPC request id.
    pub id: Value,
    /// The JSON-RPC method, `tools/call`.
    pub method: String,
    /// The protocol revision this request is served under (from its `_meta` in the
    /// 2026-07-28 era, from the handshake before it).
    pub protocol_version: Option<String>,
    /// The connection's peer.
    pub peer: Peer,
    /// The original JSON-RPC params: `name`, `arguments` and any `_meta`.
    pub params: Value,
    /// The tool's name, `params.name`.
    pub tool: String,
    /// The tool's arguments, `params.arguments` (empty when absent).
    pub args: Map<String, Value>,
    /// The name of the toolkit pack the tool belongs to.
    pub toolset: String,
    /// The client's progress token, `params._meta.progressToken`, when it sent one.
    pub progress_token: Option<Value>,
    /// The client's answers to what an earlier round asked ([`Request::ask`]), by
    /// the keys asked under, `params.inputResponses` (empty on a first call).
    pub input_responses: Map<String, Value>,
    /// The state an earlier round asked the client to echo, `params.requestState`.
    /// The client may alter it: verify it before trusting it.
    pub request_state: Option<String>,
    permit: Permit,
    shared: Arc<Shared>,
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("id", &self.id)
            .field("tool", &self.tool)
            .field("toolset", &self.toolset)
            .field("finished", &self.is_finished())
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

/// What the framework knows of a call before it becomes a [`Request`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Parts {
    pub(crate) id: Value,
    pub(crate) protocol_version: Option<String>,
    pub(crate) peer: Peer,
    pub(crate) params: Value,
    pub(crate) tool: String,
    pub(crate) args: Map<String, Value>,
    pub(crate) toolset: String,
    pub(crate) progress_token: Option<Value>,
    pub(crate) input_responses: Map<String, Value>,
    pub(crate) request_state: Option<String>,
    pub(crate) permit: Permit,
}

impl Request {
    /// Builds a request and the receiving end of its events. The token is the
    /// request's own; the framework cancels it when the client does.
    pub(crate) fn new(
        parts: Parts,
        token: CancellationToken,
    ) -> (Self, Arc<Shared>, mpsc::UnboundedReceiver<Event>) {
        let (events, receiver) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            finished: AtomicBool::new(false),
            cancelled: AtomicBool::new(false),
            token,
            hooks: Mutex::new(Vec::new()),
            events,
        });
        let request = Request {
            id: parts.id,
            method: "tools/call".to_owned(),
            protocol_version: parts.protocol_version,
            peer: parts.peer,
            params: parts.params,
            tool: parts.tool,
            args: parts.args,
            toolset: parts.toolset,
            progress_token: parts.progress_token,
            input_responses: parts.input_responses,
            request_state: parts.request_state,
            permit: parts.permit,
            shared: Arc::clone(&shared),
        };
        (request, shared, receiver)
    }

    /// Completes the request with an MCP `CallToolResult` object
    /// (`content`, `isError`, `structuredContent`, ...). Ignored if the request was
    /// cancelled.
    pub fn reply(self, result: Value) {
        self.complete(result);
    }

    /// Completes the request as a tool error: `isError: true` and `message` as one
    /// text item.
    pub fn error(self, message: impl Into<String>) {
        let message = message.into();
        self.complete(json!({
            "content": [{"type": "text", "text": message}],
            "isError": true,
        }));
    }

    /// Completes the request as a tool error whose text is `message` and whose
    /// `structuredContent` is `data`, for errors a program can act on.
    pub fn error_with(self, message: impl Into<String>, data: Map<String, Value>) {
        let message = message.into();
        self.complete(json!({
            "content": [{"type": "text", "text": message}],
            "structuredContent": data,
            "isError": true,
        }));
    }

    /// Completes the request with `data` as `structuredContent` and its JSON encoding
    /// as one text item. Arrays and scalars must be wrapped in an object.
    pub fn result(self, data: Map<String, Value>) {
        let text = Value::Object(data.clone()).to_string();
        self.complete(json!({
            "content": [{"type": "text", "text": text}],
            "structuredContent": data,
            "isError": false,
        }));
    }

    /// Completes the request with `text` as its one text item.
    pub fn text(self, text: impl Into<String>) {
        let text = text.into();
        self.complete(json!({
            "content": [{"type": "text", "text": text}],
            "isError": false,
        }));
    }

    /// Completes this round of the request by asking the client for input. The
    /// call then runs again — the handler is called anew — with the answers to
    /// `input`'s asks in [`Request::input_responses`] and its state in
    /// [`Request::request_state`]: on protocol 2026-07-28 the client retries the
    /// call itself; before it the server puts the asks to the client as elicitation
    /// requests and runs the call again. Ignored if the request was cancelled.
    pub fn ask(self, input: NeedsInput) {
        self.finish(Event::NeedsInput(input));
    }

    /// Checks `permission` against the server's rules before the handler acts: a rule
    /// that allows it grants it; a rule that denies it refuses it; otherwise a
    /// one-time grant the user gave this invocation grants it, and with none the
    /// user is asked — the round ends with a form ([`Permission::form_schema`]) and
    /// [`Refusal::Asking`], and the handler runs again with the answer (on protocol
    /// 2026-07-28 the client retries with a state the server signed; before it the
    /// server asks through elicitation and runs the call again). A client that cannot
    /// be asked gets [`Refusal::CannotAsk`]; an answer other than `allow once` gets
    /// [`Refusal::Declined`].
    ///
    /// Check every permission before any side effect: the handler may run more than
    /// once. A grant belongs to this invocation and its retries only; the rules are
    /// read again on every run, so a rule changed in between wins.
    pub fn require_permission(&self, permission: &Permission) -> Result<Grant, Refusal> {
        match self.permit.check(permission) {
            Checked::Granted(grant) => Ok(grant),
            Checked::Refused(refusal) => Err(refusal),
            Checked::Ask(state) => {
                let input = NeedsInput::new()
                    .form(ASK_KEY, permission.message(), Permission::form_schema())
                    .state(state);
                self.finish(Event::NeedsInput(input));
                Err(Refusal::Asking)
            }
        }
    }

    /// Sends a notification tied to this request. Best effort; ignored after the
    /// request finished.
    pub fn notify(&self, method: impl Into<String>, params: Value) {
        if self.is_finished() {
            return;
        }
        let _ = self.shared.events.send(Event::Notify {
            method: method.into(),
            params,
        });
    }

    /// Sends `notifications/progress` if the client supplied a progress token;
    /// otherwise does nothing. `total` and `message` may be omitted.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut params = Map::new();
        params.insert("progressToken".to_owned(), token.clone());
        params.insert("progress".to_owned(), json!(progress));
        if let Some(total) = total {
            params.insert("total".to_owned(), json!(total));
        }
        if let Some(message) = message {
            params.insert("message".to_owned(), json!(message));
        }
        self.notify("notifications/progress", Value::Object(params));
    }

    /// Cancels the request from the server side: marks it cancelled and finished and
    /// runs the `on_cancel` hooks. The client is told with a JSON-RPC error, so the
    /// call never hangs; a request the client cancelled gets no answer at all.
    pub fn cancel(&self, reason: Option<&str>) {
        self.shared.cancel(reason);
    }

    /// Registers `hook` to run once when the request is cancelled; it runs at once if
    /// the request already was.
    pub fn on_cancel(&self, hook: impl FnOnce(Option<&str>) + Send + 'static) {
        if self.is_cancelled() {
            hook(None);
            return;
        }
        let mut hooks = match self.shared.hooks.lock() {
            Ok(hooks) => hooks,
            Err(poisoned) => poisoned.into_inner(),
        };
        // Checked again under the lock: `Shared::cancel` takes the hooks under it.
        if self.is_cancelled() {
            drop(hooks);
            hook(None);
            return;
        }
        hooks.push(Box::new(hook));
    }

    /// The request's cancellation token: cancelled when the client cancels the call
    /// (or, over HTTP, disconnects) or the server cancels it.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.shared.token.clone()
    }

    /// True once the request was answered or cancelled.
    pub fn is_finished(&self) -> bool {
        self.shared.finished.load(Ordering::SeqCst)
    }

    /// True if the request was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.shared.is_cancelled()
    }

    fn complete(&self, result: Value) {
        self.finish(Event::Reply(result));
    }

    /// Sends the event that completes the request, once.
    fn finish(&self, event: Event) {
        // The token is cancelled as soon as the client cancels, possibly before the
        // framework marked the request: an answer then is a late one.
        if self.shared.token.is_cancelled() {
            self.shared.cancel(Some(CLIENT_CANCELLED));
            return;
        }
        if self.shared.finished.swap(true, Ordering::SeqCst) {
            return;
        }
        let _ = self.shared.events.send(event);
    }
}

impl Drop for Request {
    fn drop(&mut self) {
        if self.is_finished() {
            return;
        }
        // Dropped while its handler unwinds: a bug, never an answer. Within the
        // dispatch's own poll of the handler, the dispatch answers, with the panic's
        // message; elsewhere (a task the handler spawned) the request says so itself.
        if std::thread::panicking() {
            if CATCHING_PANICS.get() {
                return;
            }
            self.shared.panicked(
                "it panicked while holding its request (the panic and its location are in \
                 the server's log)"
                    .to_owned(),
            );
            return;
        }
        let message = format!(
            "the tool {} ended without answering; this is a bug in the {} toolkit, \
             and no configuration key changes it",
            self.tool, self.toolset
        );
        self.complete(json!({
            "content": [{"type": "text", "text": message}],
            "isError": true,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(
        progress_token: Option<Value>,
    ) -> (Request, Arc<Shared>, mpsc::UnboundedReceiver<Event>) {
        let parts = Parts {
            id: json!(7),
            tool: "slow".to_owned(),
            toolset: "Test".to_owned(),
            progress_token,
            ..Parts::default()
        };
        Request::new(parts, CancellationToken::new())
    }

    fn drain(receiver: &mut mpsc::UnboundedReceiver<Event>) -> Vec<Event> {
        let mut events = Vec::new();
        while let Ok(event) = receiver.try_recv() {
            events.push(event);
        }
        events
    }

    #[test]
    fn reply_sends_the_result_once_and_finishes() {
        let (req, _shared, mut rx) = request(None);
        req.text("hello");
        let events = drain(&mut rx);
        assert_eq!(events.len(), 1);
        let Event::Reply(result) = &events[0] else {
            panic!("expected a reply, got {events:?}");
        };
        assert_eq!(result["content"][0]["text"], "hello");
        assert_eq!(result["isError"], false);
    }

    #[test]
    fn late_reply_after_cancel_is_ignored() {
        let (req, shared, mut rx) = request(Some(json!("p")));
        let token = req.cancellation_token();
        assert!(shared.cancel(Some("user abort")));
        assert!(token.is_cancelled());
        assert!(req.is_cancelled());
        assert!(req.is_finished());
        req.progress(1.0, None, None);
        req.notify("notifications/message", json!({}));
        req.text("too late");
        assert_eq!(drain(&mut rx), Vec::new());
    }

    #[test]
    fn a_reply_racing_a_client_cancel_is_ignored_and_counts_as_cancelled() {
        let token = CancellationToken::new();
        let parts = Parts {
            tool: "slow".to_owned(),
            ..Parts::default()
        };
        let (req, _shared, mut rx) = Request::new(parts, token.clone());
        let hook_ran = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&hook_ran);
        req.on_cancel(move |_| flag.store(true, Ordering::SeqCst));
        // The client's cancellation reached the token before the framework marked it.
        token.cancel();
        req.text("too late");
        assert_eq!(drain(&mut rx), Vec::new());
        assert!(hook_ran.load(Ordering::SeqCst));
    }

    #[test]
    fn ask_sends_the_request_for_input_once_and_finishes() {
        let (req, shared, mut rx) = request(None);
        let input = NeedsInput::new().form("ok", "Proceed?", json!({"type": "object"}));
        req.ask(input.clone());
        assert_eq!(drain(&mut rx), vec![Event::NeedsInput(input)]);
        assert!(!shared.cancel(None), "an asking request is finished");
    }

    #[test]
    fn ask_after_a_client_cancel_is_ignored() {
        let token = CancellationToken::new();
        let (req, _shared, mut rx) = Request::new(Parts::default(), token.clone());
        token.cancel();
        req.ask(NeedsInput::new().state("s"));
        assert_eq!(drain(&mut rx), Vec::new());
    }

    #[test]
    fn progress_without_a_token_sends_nothing() {
        let (req, _shared, mut rx) = request(None);
        req.progress(1.0, Some(2.0), Some("half"));
        assert_eq!(drain(&mut rx), Vec::new());
        req.text("done");
        assert_eq!(drain(&mut rx).len(), 1);
    }

    #[test]
    fn progress_with_a_token_carries_it() {
        let (req, _shared, mut rx) = request(Some(json!(42)));
        req.progress(1.0, Some(2.0), Some("half"));
        req.progress(2.0, None, None);
        let events = drain(&mut rx);
        assert_eq!(
            events,
            vec![
                Event::Notify {
                    method: "notifications/progress".into(),
                    params: json!({"progressToken": 42, "progress": 1.0, "total": 2.0, "message": "half"}),
                },
                Event::Notify {
                    method: "notifications/progress".into(),
                    params: json!({"progressToken": 42, "progress": 2.0}),
                },
            ]
        );
        drop(req);
    }

    #[test]
    fn notifications_after_completion_are_ignored() {
        let (req, shared, mut rx) = request(Some(json!(1)));
        // Keep a second handle on the shared state, as a spawned task would.
        let finished_before = req.is_finished();
        req.text("done");
        assert!(!finished_before);
        assert!(
            !shared.cancel(None),
            "a finished request cannot be cancelled"
        );
        assert_eq!(drain(&mut rx).len(), 1);
    }

    #[test]
    fn a_dropped_request_is_answered_with_an_error_naming_the_tool() {
        let (req, _shared, mut rx) = request(None);
        drop(req);
        let events = drain(&mut rx);
        assert_eq!(events.len(), 1);
        let Event::Reply(result) = &events[0] else {
            panic!("expected a reply, got {events:?}");
        };
        assert_eq!(result["isError"], true);
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains("slow"), "{text}");
    }

    #[test]
    fn a_dropped_cancelled_request_sends_nothing() {
        let (req, shared, mut rx) = request(None);
        shared.cancel(None);
        drop(req);
        assert_eq!(drain(&mut rx), Vec::new());
    }

    #[test]
    fn result_wraps_an_object_as_structured_content_and_text() {
        let (req, _shared, mut rx) = request(None);
        let mut data = Map::new();
        data.insert("count".into(), json!(3));
        req.result(data);
        let events = drain(&mut rx);
        let Event::Reply(result) = &events[0] else {
            panic!("expected a reply, got {events:?}");
        };
        assert_eq!(result["structuredContent"], json!({"count": 3}));
        assert_eq!(result["content"][0]["text"], "{\"count\":3}");
    }

    #[test]
    fn on_cancel_hooks_run_once_with_the_reason() {
        let (req, shared, _rx) = request(None);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        req.on_cancel(move |reason| sink.lock().unwrap().push(reason.map(str::to_owned)));
        shared.cancel(Some("user abort"));
        shared.cancel(Some("again"));
        assert_eq!(*seen.lock().unwrap(), vec![Some("user abort".to_owned())]);
        // A hook registered after cancellation runs at once.
        let late = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&late);
        req.on_cancel(move |_| flag.store(true, Ordering::SeqCst));
        assert!(late.load(Ordering::SeqCst));
    }

    #[tokio::test]
    async fn a_request_moved_into_a_task_replies_later() {
        let (req, _shared, mut rx) = request(Some(json!("t")));
        tokio::spawn(async move {
            req.progress(1.0, Some(1.0), None);
            tokio::task::yield_now().await;
            req.text("later");
        });
        let first = rx.recv().await;
        let second = rx.recv().await;
        assert!(matches!(first, Some(Event::Notify { .. })), "{first:?}");
        assert!(matches!(second, Some(Event::Reply(_))), "{second:?}");
    }
}
