//! The Web pack: the toolkit named `Web` and its tools, one module per tool (its
//! parameters defined once, from which schema and parser derive; output rendering).
//! A failed call becomes a tool error whose text is the teaching message and whose
//! `structuredContent` is [`error_data`], or [`arguments_error_data`] when the call's
//! arguments were refused.

use mcp_kit::{ArgumentError, CallFuture, FromConfig, Request, ToolSpec, Toolkit};
use mcp_web_core::config::{Settings, parse_web_config};
use mcp_web_core::error::{ConfigError, Error};
use mcp_web_core::fetch::Fetcher;
use serde_json::{Map, Value, json};

use crate::ops::{Context, Observer};

pub mod crawl;
pub mod fetch;
pub mod grep;

/// The Web pack: read-only web tools under the floor.
#[derive(Debug, Clone)]
pub struct Web {
    context: Context,
}

impl Web {
    /// The pack for `settings`, fetching through a new guarded fetcher that resolves
    /// names with the system resolver. Fails only when `ca-file` cannot be read.
    pub fn new(settings: Settings) -> Result<Self, ConfigError> {
        Ok(Self::with_context(Context::new(settings)?))
    }

    /// The pack for `settings` using a prepared `fetcher` (its transport and pool are
    /// shared; its policy is the one it was built with).
    pub fn with_fetcher(settings: Settings, fetcher: Fetcher) -> Self {
        Self::with_context(Context::with_fetcher(settings, fetcher))
    }

    /// The pack over a prepared operation context.
    pub fn with_context(context: Context) -> Self {
        Self { context }
    }

    /// The settings the pack was built with.
    pub fn settings(&self) -> &Settings {
        self.context.settings()
    }
}

impl Toolkit for Web {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn tools(&self) -> Vec<ToolSpec> {
        vec![fetch::spec(), crawl::spec(), grep::spec()]
    }

    fn call(&self, request: Request) -> CallFuture {
        let pack = self.clone();
        Box::pin(async move {
            match request.tool.as_str() {
                fetch::NAME => fetch::call(&pack.context, request).await,
                crawl::NAME => crawl::call(&pack.context, request).await,
                grep::NAME => grep::call(&pack.context, request).await,
                // The server routes only the tools this pack lists.
                other => {
                    let message = format!("the Web pack has no tool named {other}");
                    request.error(message);
                }
            }
        })
    }
}

impl FromConfig for Web {
    const NAME: &'static str = "Web";

    fn from_config(config: &Value) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        let settings = parse_web_config(config)?;
        Ok(Web::new(settings)?)
    }
}

/// A tool call's reports are its MCP progress notifications.
impl Observer for Request {
    fn progress(&self, done: f64, total: Option<f64>, message: &str) {
        Request::progress(self, done, total, Some(message));
    }
}

/// The `structuredContent` of a tool error: `kind`, `rule`, `config_key` (null when no
/// key would change the answer), the `url` concerned when known, and for a refused
/// address its `host`, `address`, `class`, `block` and `rfc`.
pub fn error_data(error: &Error) -> Map<String, Value> {
    let mut data = Map::new();
    data.insert("kind".into(), json!(error.kind().as_str()));
    data.insert("rule".into(), json!(error.rule()));
    data.insert("config_key".into(), json!(error.config_key()));
    if let Some(url) = error.url() {
        data.insert("url".into(), json!(url));
    }
    if let Error::Blocked(blocked) = error {
        data.insert("host".into(), json!(blocked.host()));
        data.insert("address".into(), json!(blocked.address().to_string()));
        data.insert("class".into(), json!(blocked.class().id()));
        data.insert("block".into(), json!(blocked.entry().block));
        data.insert("rfc".into(), json!(blocked.entry().rfc));
    }
    data
}

/// Answers `request` with `error` as a tool error.
pub fn answer_error(request: Request, error: &Error) {
    request.error_with(error.to_string(), error_data(error));
}

/// The `structuredContent` of refused arguments: `kind` `"bad_arguments"`, the `rule`
/// broken, `config_key` null (no key changes what a tool takes) and the `parameter`
/// concerned.
pub fn arguments_error_data(error: &ArgumentError) -> Map<String, Value> {
    let mut data = Map::new();
    data.insert("kind".into(), json!("bad_arguments"));
    data.insert("rule".into(), json!(error.rule().as_str()));
    data.insert("config_key".into(), Value::Null);
    data.insert("parameter".into(), json!(error.parameter()));
    data
}

/// Answers `request` with refused arguments as a tool error.
pub fn answer_arguments_error(request: Request, error: &ArgumentError) {
    request.error_with(error.to_string(), arguments_error_data(error));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_data_names_kind_rule_and_key() {
        // A scheme no key can permit: the key is null.
        let error =
            Error::from(mcp_web_core::url::CheckedUrl::parse("file:///etc/passwd").unwrap_err());
        let data = error_data(&error);
        assert_eq!(data["kind"], "bad_url");
        assert_eq!(data["rule"], "scheme");
        assert_eq!(data["config_key"], Value::Null);
        assert_eq!(data["url"], "file:///etc/passwd");
        // A deadline names the key whose budget ran out.
        let error = Error::Deadline(mcp_web_core::error::Deadline {
            url: "https://example.com/".into(),
            phase: mcp_web_core::error::Phase::ReadingHeaders,
            key: "headers-timeout",
            limit: std::time::Duration::from_secs(15),
        });
        let data = error_data(&error);
        assert_eq!(data["kind"], "deadline");
        assert_eq!(data["rule"], "headers-timeout");
        assert_eq!(data["config_key"], "headers-timeout");
        assert_eq!(data["url"], "https://example.com/");
    }

    #[test]
    fn arguments_error_data_names_the_parameter_and_rule() {
        let args = json!({"url": "https://example.com/", "depth": 1});
        let error = fetch::PARAMS
            .parse(fetch::NAME, args.as_object().unwrap())
            .unwrap_err();
        let data = arguments_error_data(&error);
        assert_eq!(
            Value::Object(data),
            json!({
                "kind": "bad_arguments",
                "rule": "unknown_parameter",
                "config_key": null,
                "parameter": "depth",
            })
        );
    }

    #[test]
    fn error_data_of_a_refused_address_names_its_table_row() {
        let peer = "169.254.169.254".parse().unwrap();
        let policy = mcp_web_core::guard::Policy {
            allow_private: true,
            ..Default::default()
        };
        let error = Error::from(policy.decide("metadata.example", peer, &[]).unwrap_err());
        let data = error_data(&error);
        assert_eq!(
            Value::Object(data),
            json!({
                "kind": "blocked",
                "rule": "cloud-metadata",
                "config_key": "allow-cidrs",
                "host": "metadata.example",
                "address": "169.254.169.254",
                "class": "cloud-metadata",
                "block": "169.254.169.254/32",
                "rfc": "AWS, Google Cloud, Azure, OCI and OpenStack documentation",
            })
        );
    }

    #[test]
    fn unknown_config_keys_are_refused_listing_the_valid_ones() {
        let error = Web::from_config(&json!({"providr": "brave"})).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("providr"), "{message}");
        assert!(
            message.contains("allow-loopback") && message.contains("max-bytes"),
            "{message}"
        );
    }
}
