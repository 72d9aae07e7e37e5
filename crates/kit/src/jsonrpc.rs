//! Reading one JSON-RPC message a client sent: either a message for the MCP SDK, or
//! the error answer the framework gives itself, or nothing (a notification or a
//! response that cannot be used gets no answer).
//!
//! JSON-RPC 2.0 gives every request exactly one response: a message that is not
//! JSON is a parse error (-32700), JSON that is not a request an invalid request
//! (-32600), a known method with unusable params invalid params (-32602). An error
//! carries the request's id when it can be read, and `"id": null` when it cannot.
//! The SDK underneath drops some of these without a word, so they are answered here,
//! before it sees them.

use rmcp::model::{CallToolRequestParams, ClientJsonRpcMessage, ClientRequest};
use serde::Deserialize;
use serde_json::{Value, json};

/// JSON-RPC's code for a message that is not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a valid request.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's code for a request whose params its method cannot use.
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// The UTF-8 byte order mark some clients put before a message.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// What to do with one message a client sent.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// A message for the SDK.
    Deliver(Box<ClientJsonRpcMessage>),
    /// The error response to send back instead (a whole JSON-RPC error object).
    Answer(Value),
    /// Nothing to send or deliver; why, for the log.
    Ignore(String),
}

/// A JSON-RPC error response; `id` is null when the request's id cannot be read.
pub(crate) fn error_response(id: Option<&Value>, code: i64, message: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.cloned().unwrap_or(Value::Null),
        "error": {"code": code, "message": message},
    })
}

/// The answer to a request reusing the id of one still in flight: an invalid request
/// naming the id, so the first call keeps its id, its answer and its cancellation.
pub(crate) fn duplicate_id(id: &impl serde::Serialize) -> Value {
    let key = serde_json::to_string(id).unwrap_or_default();
    error_response(
        serde_json::to_value(id).ok().as_ref(),
        INVALID_REQUEST,
        &format!(
            "Invalid request: the id {key} is already used by a request still in flight; each \
             request needs an id of its own"
        ),
    )
}

/// Whether `id` is an id MCP accepts: a string or an integer.
fn is_valid_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

/// Only the id of a message, read without building the rest: the reader skips
/// other values without a depth limit and without checking their UTF-8, so the id
/// of a message too deep or not UTF-8 elsewhere can still be answered.
#[derive(Deserialize)]
struct IdProbe {
    #[serde(default)]
    id: Option<Value>,
}

/// The id of a message that could not be read whole, when it can be read.
fn probe_id(bytes: &[u8]) -> Option<Value> {
    let probe = serde_json::from_slice::<IdProbe>(bytes).ok()?;
    probe.id.filter(is_valid_id)
}

/// The parse error for bytes that are not one JSON value, naming what is wrong.
fn parse_failure(bytes: &[u8], error: &serde_json::Error) -> Value {
    let detail = error.to_string();
    let message = if detail.starts_with("recursion limit exceeded") {
        format!(
            "Parse error: the message nests arrays and objects deeper than the {} levels a \
             message may have ({detail})",
            MAX_DEPTH
        )
    } else if std::str::from_utf8(bytes).is_err() {
        format!("Parse error: the message is not valid UTF-8 ({detail})")
    } else {
        format!("Parse error: {detail}")
    };
    error_response(probe_id(bytes).as_ref(), PARSE_ERROR, &message)
}

/// How deep a message may nest (serde_json's recursion limit).
pub(crate) const MAX_DEPTH: usize = 128;

/// The requests MCP defines that a client sends a server.
const STANDARD_REQUESTS: [&str; 15] = [
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
    "logging/setLevel",
    "subscriptions/listen",
];

/// What is wrong with the params of a standard request the SDK could not read.
fn params_problem(method: &str, params: Option<Value>) -> String {
    let Some(params) = params else {
        return "the params are missing".to_owned();
    };
    if method == "tools/call"
        && let Err(error) = serde_json::from_value::<CallToolRequestParams>(params)
    {
        return error.to_string();
    }
    "the params are not what the method takes".to_owned()
}

/// Reads one message, a line of newline-delimited JSON-RPC or an HTTP body.
pub(crate) fn read_message(bytes: &[u8]) -> Verdict {
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    let value = match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => value,
        Err(error) => return Verdict::Answer(parse_failure(bytes, &error)),
    };
    let object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Verdict::Answer(error_response(
                None,
                INVALID_REQUEST,
                "Invalid request: a batch (a JSON array) is not accepted; send each message \
                 on its own",
            ));
        }
        _ => {
            return Verdict::Answer(error_response(
                None,
                INVALID_REQUEST,
                "Invalid request: a message is a JSON object",
            ));
        }
    };
    let id = object.get("id").cloned();
    let readable_id = id.clone().filter(is_valid_id);
    let invalid = |message: &str| {
        Verdict::Answer(error_response(
            readable_id.as_ref(),
            INVALID_REQUEST,
            &format!("Invalid request: {message}"),
        ))
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        if id.is_none() && object.contains_key("method") {
            return Verdict::Ignore("a notification without \"jsonrpc\": \"2.0\"".to_owned());
        }
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    match object.get("method") {
        Some(Value::String(method)) => {
            if id.is_some() && readable_id.is_none() {
                return invalid("the id must be a string or an integer");
            }
            let method = method.clone();
            let is_request = id.is_some();
            let params = object.get("params").cloned();
            match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
                // The SDK takes a known method whose params it cannot read for a
                // method of its own, and would answer "method not found".
                Ok(ClientJsonRpcMessage::Request(request))
                    if matches!(request.request, ClientRequest::CustomRequest(_))
                        && STANDARD_REQUESTS.contains(&method.as_str()) =>
                {
                    Verdict::Answer(error_response(
                        readable_id.as_ref(),
                        INVALID_PARAMS,
                        &format!(
                            "Invalid params for {method}: {}",
                            params_problem(&method, params)
                        ),
                    ))
                }
                Ok(message) => Verdict::Deliver(Box::new(message)),
                Err(error) if is_request => Verdict::Answer(error_response(
                    readable_id.as_ref(),
                    INVALID_PARAMS,
                    &format!("Invalid params for {method}: {error}"),
                )),
                Err(error) => {
                    Verdict::Ignore(format!("the notification {method} cannot be read: {error}"))
                }
            }
        }
        Some(_) => invalid("the method must be a string"),
        None if object.contains_key("result") || object.contains_key("error") => {
            if readable_id.is_none() {
                return Verdict::Ignore("a response without a usable id".to_owned());
            }
            match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
                Ok(message) => Verdict::Deliver(Box::new(message)),
                Err(error) => Verdict::Ignore(format!("a response that cannot be read: {error}")),
            }
        }
        None => invalid("a request needs a method"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(bytes: &[u8]) -> Value {
        match read_message(bytes) {
            Verdict::Answer(answer) => answer,
            other => panic!("expected an answer, got {other:?}"),
        }
    }

    #[test]
    fn requests_and_notifications_are_delivered() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"something/else"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":0,"result":{}}"#,
        ] {
            assert!(
                matches!(read_message(line.as_bytes()), Verdict::Deliver(_)),
                "{line}"
            );
        }
    }

    #[test]
    fn errors_whose_id_cannot_be_read_carry_a_null_id() {
        for line in [
            "[]",
            "3",
            r#"{"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
        ] {
            let answer = answer(line.as_bytes());
            assert_eq!(answer["error"]["code"], INVALID_REQUEST, "{line}: {answer}");
            assert_eq!(answer.get("id"), Some(&Value::Null), "{line}: {answer}");
        }
    }

    #[test]
    fn errors_whose_id_can_be_read_carry_it() {
        let answer = answer(br#"{"jsonrpc":"1.0","id":7,"method":"tools/list"}"#);
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["error"]["code"], INVALID_REQUEST);
        let answer = answer_of_params();
        assert_eq!(answer["id"], "p");
        assert_eq!(answer["error"]["code"], INVALID_PARAMS);
    }

    fn answer_of_params() -> Value {
        answer(br#"{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"arguments":{}}}"#)
    }

    #[test]
    fn too_deep_and_not_utf8_are_parse_errors_with_the_id() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{}{}}}}}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let answer_deep = answer(deep.as_bytes());
        assert_eq!(answer_deep["error"]["code"], PARSE_ERROR, "{answer_deep}");
        assert_eq!(answer_deep["id"], 4);
        let message = answer_deep["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("128 levels"), "{message}");

        let bare = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let answer_bare = answer(bare.as_bytes());
        assert_eq!(answer_bare.get("id"), Some(&Value::Null));

        let bad = b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"\xff\xfe\"}}";
        let answer_bad = answer(bad);
        assert_eq!(answer_bad["error"]["code"], PARSE_ERROR, "{answer_bad}");
        assert_eq!(answer_bad["id"], 5);
        let message = answer_bad["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("UTF-8"), "{message}");
    }

    #[test]
    fn unusable_notifications_and_responses_are_ignored() {
        for line in [
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"method":"notifications/progress"}"#,
        ] {
            assert!(
                matches!(read_message(line.as_bytes()), Verdict::Ignore(_)),
                "{line}"
            );
        }
    }
}
