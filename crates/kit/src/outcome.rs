//! The [`Outcome`] of one tool call, as the dispatch returns it: the tool's result,
//! a request for input from the client, or why there is no result (unknown tool,
//! cancellation, a broken answer). The transports turn it into their wire form;
//! in-process callers of [`crate::Server::call`] read it directly.

use std::collections::BTreeMap;
use std::fmt;

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

/// How one tool call ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// The tool answered: a result, which may be a tool error (`isError: true`).
    Answered(ToolResult),
    /// The tool needs input from the client before it can answer; the call runs
    /// again with the answers and the echoed state (see [`crate::Request::ask`]).
    NeedsInput(NeedsInput),
    /// No tool of this name is offered; over JSON-RPC an invalid-params error.
    UnknownTool(String),
    /// The call was cancelled before it answered.
    Cancelled(CancelledBy),
    /// The tool's answer could not be used (not a valid MCP result, or an empty
    /// request for input); over JSON-RPC an internal error with this message.
    Failed(String),
    /// The call carried a permission state (`requestState`) this server did not
    /// issue for it: tampered, replayed, expired, for another call or from another
    /// server; over JSON-RPC an invalid-params error with this message.
    BadState(String),
    /// The tool's handler panicked: a bug in its toolkit, never the tool's answer;
    /// over JSON-RPC an internal error with this message.
    Panicked(String),
}

impl Outcome {
    /// The tool's result, if it answered.
    pub fn result(&self) -> Option<&ToolResult> {
        match self {
            Outcome::Answered(result) => Some(result),
            _ => None,
        }
    }
}

/// Who cancelled a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelledBy {
    /// The client cancelled it (or, over HTTP, hung up); it gets no answer.
    Client,
    /// The server cancelled it ([`crate::Request::cancel`]); the client is told so.
    Server,
}

impl fmt::Display for CancelledBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CancelledBy::Client => crate::request::CLIENT_CANCELLED,
            CancelledBy::Server => "cancelled by the server",
        })
    }
}

/// A tool's answer: a valid MCP `CallToolResult` (content items, optional
/// `structuredContent`, `isError`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    inner: CallToolResult,
}

impl ToolResult {
    /// Reads an MCP `CallToolResult` object; the error says why it is not one.
    pub(crate) fn from_json(result: Value) -> Result<Self, serde_json::Error> {
        let mut inner = serde_json::from_value::<CallToolResult>(result)?;
        // Whether a result carries `resultType` depends on the protocol era, which
        // the transport decides.
        inner.result_type = None;
        Ok(Self { inner })
    }

    /// The result as the MCP SDK carries it.
    pub(crate) fn into_mcp(self) -> CallToolResult {
        self.inner
    }

    /// True when the tool reported an error (`isError: true`).
    pub fn is_error(&self) -> bool {
        self.inner.is_error.unwrap_or(false)
    }

    /// The text of the result's text items, in order, joined by newlines (one item
    /// is the norm).
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .inner
            .content
            .iter()
            .filter_map(|item| item.as_text().map(|text| text.text.as_str()))
            .collect();
        texts.join("\n")
    }

    /// The result's `structuredContent`, when it has one.
    pub fn structured_content(&self) -> Option<&Value> {
        self.inner.structured_content.as_ref()
    }

    /// The result as the JSON object MCP carries (without `resultType`).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(&self.inner).unwrap_or_else(|_| json!({}))
    }
}

/// A tool's request for input from the client: what it asks, each under a key the
/// answers come back under ([`crate::Request::input_responses`]), and opaque state
/// the client echoes back on its next call ([`crate::Request::request_state`]).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct NeedsInput {
    /// The questions, by key.
    pub asks: BTreeMap<String, Ask>,
    /// State to resume with. The client may alter it: verify it before trusting it.
    pub state: Option<String>,
}

impl NeedsInput {
    /// A request for input that asks nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a form for the user under `key`: `message` says what is asked and why,
    /// `schema` is the JSON Schema of the answer (an object of primitive properties).
    pub fn form(
        mut self,
        key: impl Into<String>,
        message: impl Into<String>,
        schema: Value,
    ) -> Self {
        self.asks.insert(
            key.into(),
            Ask::Form {
                message: message.into(),
                schema,
            },
        );
        self
    }

    /// Sets the opaque state the client echoes back.
    pub fn state(mut self, state: impl Into<String>) -> Self {
        self.state = Some(state.into());
        self
    }

    /// True when it neither asks anything nor carries state: not a valid request.
    pub fn is_empty(&self) -> bool {
        self.asks.is_empty() && self.state.is_none()
    }
}

/// One question for the client.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Ask {
    /// A form the client shows its user (MCP elicitation, form mode).
    Form {
        /// What is asked and why, for the user.
        message: String,
        /// The JSON Schema of the answer: an object of primitive properties.
        schema: Value,
    },
}

impl Ask {
    /// The question as the JSON-RPC request the client fulfils
    /// (`elicitation/create` for a form).
    pub fn to_json(&self) -> Value {
        match self {
            Ask::Form { message, schema } => json!({
                "method": "elicitation/create",
                "params": {"mode": "form", "message": message, "requestedSchema": schema},
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_reads_text_structured_content_and_is_error() {
        let result = ToolResult::from_json(json!({
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "structuredContent": {"n": 1},
            "isError": true,
        }))
        .expect("a valid result");
        assert_eq!(result.text(), "a\nb");
        assert_eq!(result.structured_content(), Some(&json!({"n": 1})));
        assert!(result.is_error());
        assert_eq!(
            result.to_json(),
            json!({
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                "structuredContent": {"n": 1},
                "isError": true,
            })
        );
    }

    #[test]
    fn a_result_without_is_error_is_not_an_error() {
        let result = ToolResult::from_json(json!({"content": []})).expect("a valid result");
        assert!(!result.is_error());
        assert_eq!(result.text(), "");
        assert_eq!(result.structured_content(), None);
    }

    #[test]
    fn content_that_is_not_mcp_is_refused() {
        assert!(ToolResult::from_json(json!({"content": [{"type": "nonsense"}]})).is_err());
        assert!(ToolResult::from_json(json!("text")).is_err());
    }

    #[test]
    fn needs_input_is_empty_until_it_asks_or_carries_state() {
        assert!(NeedsInput::new().is_empty());
        assert!(!NeedsInput::new().state("s").is_empty());
        let asked = NeedsInput::new().form("ok", "Proceed?", json!({"type": "object"}));
        assert!(!asked.is_empty());
        assert_eq!(
            asked.asks["ok"].to_json(),
            json!({"method": "elicitation/create", "params": {
                "mode": "form", "message": "Proceed?", "requestedSchema": {"type": "object"}}})
        );
    }

    #[test]
    fn cancellations_say_who_cancelled() {
        assert_eq!(CancelledBy::Client.to_string(), "cancelled by the client");
        assert_eq!(CancelledBy::Server.to_string(), "cancelled by the server");
    }
}
