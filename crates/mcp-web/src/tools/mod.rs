//! The Web pack: the toolkit named `Web` and its tools, one module per tool (its
//! parameters defined once, from which schema and parser derive; output rendering).
//! A failed call becomes a tool error whose text is the teaching message and whose
//! `structuredContent` is [`error_data`], or [`arguments_error_data`] when the call's
//! arguments were refused. With `ask-permission` on, a refusal that `allow-private` or
//! `allow-loopback` could lift is first put to the user ([`ask_permission`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use mcp_kit::{
    Annotations, ArgumentError, CallFuture, FromConfig, Permission, Request, ToolSpec, Toolkit,
};
use mcp_web_core::config::{Settings, parse_web_config};
use mcp_web_core::error::{Blocked, ConfigError, Error};
use mcp_web_core::fetch::{Allowance, Fetcher};
use mcp_web_core::guard::{Grant, Scope};
use mcp_web_core::search::SearchProvider;
use mcp_web_core::url::CheckedUrl;
use serde_json::{Map, Value, json};

use crate::ops::{Context, Observer};

pub mod crawl;
pub mod fetch;
pub mod grep;
pub mod search;

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
    /// shared; its policy is the one it was built with). Fails when the configured
    /// search provider cannot be built (SearXNG without a `search-url`).
    pub fn with_fetcher(settings: Settings, fetcher: Fetcher) -> Result<Self, ConfigError> {
        Ok(Self::with_context(Context::with_fetcher(
            settings, fetcher,
        )?))
    }

    /// The pack for `settings` whose `web_search` asks `provider` in place of the
    /// configured one: a host's own engine, or a test's. Fails only when `ca-file`
    /// cannot be read.
    pub fn with_search_provider(
        settings: Settings,
        provider: Arc<dyn SearchProvider>,
    ) -> Result<Self, ConfigError> {
        Ok(Self::with_context(Context::with_search_provider(
            settings, provider,
        )?))
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

/// What every tool of the pack is to a client: it only reads, asking again gives the
/// same kind of answer, and it reaches the open web.
const READS_THE_WEB: Annotations = Annotations {
    read_only: Some(true),
    idempotent: Some(true),
    open_world: Some(true),
    destructive: None,
};

impl Toolkit for Web {
    fn name(&self) -> &str {
        Self::NAME
    }

    /// The tools the `tools` key names, in the pack's order.
    fn tools(&self) -> Vec<ToolSpec> {
        let served = &self.settings().tools;
        [search::spec(), fetch::spec(), crawl::spec(), grep::spec()]
            .into_iter()
            .filter(|spec| served.contains(&spec.name))
            .collect()
    }

    fn call(&self, request: Request) -> CallFuture {
        let pack = self.clone();
        Box::pin(async move {
            match request.tool.as_str() {
                search::NAME => search::call(&pack.context, request).await,
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

/// What asking the user about a refused address came to.
#[derive(Debug)]
pub enum Asked {
    /// The user allowed it once: fetch again with this grant, for this call only.
    Granted(Grant),
    /// The user is being asked; the call runs again with the answer. Answer nothing.
    Asking,
    /// Not askable, or not allowed: the original refusal stands.
    Refused,
}

/// The kind of the permission that stands in for the switch opening `scope`.
fn permission_kind(scope: Scope) -> &'static str {
    match scope {
        Scope::Loopback => "web.loopback",
        Scope::Private => "web.private",
    }
}

/// The permission `tool` needs to reach `url` where the guard refused `blocked`, and the
/// grant it stands for; `None` when no ask is possible: `ask-permission` is off, the
/// refusal is one neither `allow-private` nor `allow-loopback` lifts (cloud metadata,
/// classes no machine has), or it was met on a redirect to another host.
pub fn permission_for(
    settings: &Settings,
    tool: &str,
    url: &CheckedUrl,
    blocked: &Blocked,
) -> Option<(Permission, Grant)> {
    if !settings.ask_permission || blocked.only_exact() || blocked.host() != url.host() {
        return None;
    }
    let scope = blocked.scope()?;
    let (kind, key) = (permission_kind(scope), scope.key());
    let entry = blocked.entry();
    let (host, port, address) = (url.host(), url.port(), blocked.address());
    let message = format!(
        "{tool} asks to reach {host} (port {port}) at {address}, which the server refuses: \
         {} ({}, {} {}). Allow it once, for this call only? To permit it permanently, set \
         \"{key}\": true in the Web pack's configuration.",
        entry.class.label(),
        entry.rfc,
        entry.name,
        entry.block,
    );
    let permission = Permission::new(kind, format!("{host}:{port} at {address}"), message);
    Some((permission, Grant::new(host, port, scope).at(address)))
}

/// Puts a refusal of `error` for `raw_url` to the user when `ask-permission` permits
/// asking it (see [`permission_for`]) and the request's client can be asked. Checked
/// before anything is fetched with the grant.
pub fn ask_permission(
    settings: &Settings,
    request: &Request,
    raw_url: &str,
    error: &Error,
) -> Asked {
    let Error::Blocked(blocked) = error else {
        return Asked::Refused;
    };
    let Ok(url) = CheckedUrl::parse(raw_url) else {
        return Asked::Refused;
    };
    let Some((permission, grant)) = permission_for(settings, &request.tool, &url, blocked) else {
        return Asked::Refused;
    };
    match request.require_permission(&permission) {
        Ok(_) => Asked::Granted(grant),
        Err(refusal) if refusal.is_asking() => Asked::Asking,
        Err(_) => Asked::Refused,
    }
}

/// One run of a tool's operation over `args` within a call, reporting to an observer:
/// what [`run_asking`] runs, once, or twice when the user grants a refused address.
pub type Attempt<A, T> =
    for<'a> fn(&'a Context, &'a A, &'a Allowance, &'a dyn Observer) -> Attempting<'a, T>;

/// The future of one [`Attempt`].
pub type Attempting<'a, T> = Pin<Box<dyn Future<Output = Result<T, Error>> + Send + 'a>>;

/// Runs `attempt` over `args` for a call of `request` whose walk starts at `raw_url`,
/// within a new [`Allowance`] (the request's cancellation, `total-timeout` from now),
/// reporting to `request`. When the attempt is refused for an address the user may
/// permit (see [`ask_permission`]) and the user allows it once, it runs again through a
/// call carrying the grant, so through a connection of its own and never the shared
/// pool, with a robots.txt cache of its own, its progress going onward from where the
/// first attempt got. `None` while the
/// user is being asked: the handler answers nothing, and runs again with the answer.
pub async fn run_asking<A: Sync, T>(
    context: &Context,
    request: &Request,
    raw_url: &str,
    args: &A,
    attempt: Attempt<A, T>,
) -> Option<Result<T, Error>> {
    let call = context.allowance(request.cancellation_token());
    let first = attempt(context, args, &call, request).await;
    let Err(error) = &first else {
        return Some(first);
    };
    match ask_permission(context.settings(), request, raw_url, error) {
        Asked::Granted(grant) => {
            let granted = call.with_grant(grant);
            let forward = ForwardProgress::new(request, 0.0);
            let own = context.for_granted_call();
            Some(attempt(&own, args, &granted, &forward).await)
        }
        Asked::Asking => None,
        Asked::Refused => Some(first),
    }
}

/// Progress of a call that fetches again after a grant: the second attempt's reports
/// reach the client only beyond where the first attempt got, so progress never goes
/// back.
pub struct ForwardProgress<'a> {
    request: &'a Request,
    reached: Mutex<f64>,
}

impl<'a> ForwardProgress<'a> {
    /// Progress to `request`, dropping reports at or below `done`.
    pub fn new(request: &'a Request, done: f64) -> Self {
        Self {
            request,
            reached: Mutex::new(done),
        }
    }
}

impl Observer for ForwardProgress<'_> {
    fn progress(&self, done: f64, total: Option<f64>, message: &str) {
        let mut reached = match self.reached.lock() {
            Ok(reached) => reached,
            Err(poisoned) => poisoned.into_inner(),
        };
        if done > *reached {
            *reached = done;
            Request::progress(self.request, done, total, Some(message));
        }
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

/// Answers `request` with `error` as a tool error, its message cut to `max_chars`
/// characters (the `max-chars` key) like any answer.
pub fn answer_error(request: Request, error: &Error, max_chars: usize) {
    request.error_with(cut_message(error.to_string(), max_chars), error_data(error));
}

/// Answers `request` with the text `rendered` cut to `max-chars` (its notice suggesting
/// `narrow`, such as "lower max-pages"), or with the error.
pub fn answer_capped(
    request: Request,
    context: &Context,
    rendered: Result<String, Error>,
    narrow: &str,
) {
    match rendered {
        Ok(text) => request.text(crate::ops::cap(text, context.max_chars(), narrow)),
        Err(error) => answer_error(request, &error, context.max_chars()),
    }
}

/// `message` whole up to `max_chars` characters, else its first ones and `…` (one
/// character more: a cap of 0 still says something was cut).
fn cut_message(message: String, max_chars: usize) -> String {
    match message.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &message[..at]),
        None => message,
    }
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
            key: mcp_web_core::key::ConfigKey::HeadersTimeout,
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

    fn asking() -> Settings {
        parse_web_config(&json!({"ask-permission": true})).unwrap()
    }

    fn refusal(host: &str, peer: &str) -> Blocked {
        mcp_web_core::guard::Policy::default()
            .decide(host, peer.parse().unwrap(), &[])
            .unwrap_err()
    }

    #[test]
    fn a_loopback_refusal_asks_naming_tool_host_address_class_rfc_and_key() {
        let url = CheckedUrl::parse("http://wiki.corp:8080/page").unwrap();
        let (permission, grant) = permission_for(
            &asking(),
            "web_fetch",
            &url,
            &refusal("wiki.corp", "127.0.0.1"),
        )
        .expect("askable");
        assert_eq!(permission.kind(), "web.loopback");
        assert_eq!(permission.target(), "wiki.corp:8080 at 127.0.0.1");
        assert_eq!(
            permission.message(),
            "web_fetch asks to reach wiki.corp (port 8080) at 127.0.0.1, which the server \
             refuses: loopback address (RFC 1122, Loopback 127.0.0.0/8). Allow it once, for \
             this call only? To permit it permanently, set \"allow-loopback\": true in the Web \
             pack's configuration."
        );
        assert_eq!(
            (grant.host(), grant.port(), grant.scope(), grant.address()),
            (
                "wiki.corp",
                8080,
                Scope::Loopback,
                Some("127.0.0.1".parse().unwrap())
            )
        );
        let (permission, grant) = permission_for(
            &asking(),
            "web_fetch",
            &url,
            &refusal("wiki.corp", "10.1.2.3"),
        )
        .expect("askable");
        assert_eq!(permission.kind(), "web.private");
        assert_eq!(grant.scope(), Scope::Private);
    }

    #[test]
    fn metadata_other_classes_other_hosts_and_ask_permission_off_never_ask() {
        let url = CheckedUrl::parse("http://wiki.corp/").unwrap();
        let off = parse_web_config(&json!({})).unwrap();
        let loopback = refusal("wiki.corp", "127.0.0.1");
        assert!(permission_for(&off, "web_fetch", &url, &loopback).is_none());
        for (host, peer) in [
            ("wiki.corp", "169.254.169.254"),
            ("wiki.corp", "fd00:ec2::254"),
            ("wiki.corp", "224.0.0.1"),
            ("wiki.corp", "192.0.2.1"),
            ("wiki.corp", "0.0.0.0"),
            // Met on a redirect to another host.
            ("other.corp", "127.0.0.1"),
        ] {
            let blocked = refusal(host, peer);
            assert!(
                permission_for(&asking(), "web_fetch", &url, &blocked).is_none(),
                "{host} {peer} is never asked"
            );
        }
    }

    #[test]
    fn an_error_message_is_cut_to_max_chars() {
        assert_eq!(cut_message("short".into(), 5), "short");
        assert_eq!(cut_message("é longer".into(), 3), "é l…");
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
