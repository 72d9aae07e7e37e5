//! The [`Server`]: packs plugged into one MCP server, and the MCP SDK's handler for
//! it: `tools/list`, and `tools/call` as a thin mapping onto [`crate::dispatch`] and
//! back from its [`Outcome`] (a request for input becomes an `InputRequiredResult`
//! on protocol 2026-07-28, and elicitation requests followed by a new run of the
//! call before it). This is the one place the MCP SDK's handler trait is
//! implemented; transports live in [`crate::stdio`] and [`crate::http`].

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CustomNotification, DiscoverResult,
    Implementation, InputRequest, InputRequests, InputRequiredResult, ListToolsResult,
    PaginatedRequestParams, ResultType, ServerCapabilities, ServerConfig, ServerNotification, Tool,
};
use rmcp::service::{ElicitationMode, RequestContext, RoleServer};
use serde_json::{Map, Value};

use crate::config::ServerConfigError;
use crate::dispatch::{Call, Notification, NotificationSink, SinkFuture};
use crate::outcome::{Ask, CancelledBy, NeedsInput, Outcome};
use crate::permission::{Gate, Permissions};
use crate::request::Peer;
use crate::toolkit::{Registry, Toolkit};

/// An MCP server: a name, a version, instructions, and the packs plugged into it.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

/// The server's immutable state, shared by every connection.
pub(crate) struct Inner {
    name: String,
    version: String,
    instructions: Option<String>,
    packs: Vec<Arc<dyn Toolkit>>,
    /// Tool name → (index of its pack, its published definition).
    tools: Vec<(usize, Tool)>,
    by_name: HashMap<String, usize>,
    /// The permission rules every call is checked against.
    pub(crate) permissions: Permissions,
    /// The key that signs permission states, and the nonces used.
    pub(crate) gate: Arc<Gate>,
}

impl Inner {
    /// The pack that offers `tool`, and its name.
    pub(crate) fn pack_for(&self, tool: &str) -> Option<(Arc<dyn Toolkit>, String)> {
        let &slot = self.by_name.get(tool)?;
        let (index, _) = self.tools.get(slot)?;
        let pack = self.packs.get(*index)?;
        Some((Arc::clone(pack), pack.name().to_owned()))
    }

    /// The published definition of `tool`.
    fn tool(&self, tool: &str) -> Option<&Tool> {
        let &slot = self.by_name.get(tool)?;
        self.tools.get(slot).map(|(_, tool)| tool)
    }

    /// Whether `tool` is annotated read-only (`readOnlyHint: true`).
    pub(crate) fn is_read_only(&self, tool: &str) -> bool {
        self.tool(tool)
            .and_then(|tool| tool.annotations.as_ref())
            .and_then(|annotations| annotations.read_only_hint)
            .unwrap_or(false)
    }

    /// Whether `tool` is annotated idempotent (`idempotentHint: true`).
    pub(crate) fn is_idempotent(&self, tool: &str) -> bool {
        self.tool(tool)
            .and_then(|tool| tool.annotations.as_ref())
            .and_then(|annotations| annotations.idempotent_hint)
            .unwrap_or(false)
    }
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.inner.name)
            .field("version", &self.inner.version)
            .field("tools", &self.tool_names())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A server with no packs yet.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            inner: Arc::new(Inner {
                name: name.into(),
                version: version.into(),
                instructions: None,
                packs: Vec::new(),
                tools: Vec::new(),
                by_name: HashMap::new(),
                permissions: Permissions::new(),
                gate: Arc::new(Gate::new()),
            }),
        }
    }

    /// Sets the instructions the server gives the client's model.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.inner_mut().instructions = Some(instructions.into());
        self
    }

    /// Sets the permission rules calls are checked against
    /// ([`crate::Request::require_permission`]); without any, every permission a
    /// tool requires is asked of the user.
    pub fn permissions(mut self, permissions: Permissions) -> Self {
        self.inner_mut().permissions = permissions;
        self
    }

    /// The permission rules (a handle: changing its rules reaches every call from
    /// then on, retries included).
    pub fn permission_rules(&self) -> Permissions {
        self.inner.permissions.clone()
    }

    /// Plugs a pack in: its tools join the server's. A tool whose name is already
    /// taken keeps its first owner and the duplicate is logged and skipped.
    pub fn plug(mut self, pack: impl Toolkit) -> Self {
        self.plug_arc(Arc::new(pack));
        self
    }

    fn plug_arc(&mut self, pack: Arc<dyn Toolkit>) {
        let inner = self.inner_mut();
        let index = inner.packs.len();
        for spec in pack.tools() {
            if inner.by_name.contains_key(&spec.name) {
                tracing::warn!(tool = %spec.name, pack = %pack.name(), "duplicate tool name; skipped");
                continue;
            }
            match serde_json::from_value::<Tool>(spec.to_json()) {
                Ok(tool) => {
                    inner.by_name.insert(spec.name.clone(), inner.tools.len());
                    inner.tools.push((index, tool));
                }
                Err(error) => {
                    tracing::error!(tool = %spec.name, %error, "tool definition is not valid MCP; skipped");
                }
            }
        }
        inner.packs.push(pack);
    }

    fn inner_mut(&mut self) -> &mut Inner {
        // A server is configured before it is served, so the state is still unique;
        // if it is shared, configure a copy.
        if Arc::get_mut(&mut self.inner).is_none() {
            let copy = Inner {
                name: self.inner.name.clone(),
                version: self.inner.version.clone(),
                instructions: self.inner.instructions.clone(),
                packs: self.inner.packs.clone(),
                tools: self.inner.tools.clone(),
                by_name: self.inner.by_name.clone(),
                permissions: self.inner.permissions.clone(),
                gate: Arc::clone(&self.inner.gate),
            };
            self.inner = Arc::new(copy);
        }
        Arc::get_mut(&mut self.inner).unwrap_or_else(|| unreachable!("made unique above"))
    }

    /// Assembles a server from `{"name", "version", "instructions", "tools": {"Pack":
    /// {...}}}` (read by [`crate::config::ServerConfig::parse`]), building each pack
    /// named under `tools` from `registry`. Unknown keys and pack names are errors that
    /// list the valid ones.
    pub fn from_config(config: &Value, registry: &Registry) -> Result<Self, ServerConfigError> {
        let config = crate::config::ServerConfig::parse(config)?;
        let packs = registry.names();
        config.check_packs(&packs)?;
        let name = config.name.unwrap_or_else(|| "mcp-server".to_owned());
        let version = config.version.unwrap_or_else(|| "0.0.0".to_owned());
        let mut server = Server::new(name, version);
        if let Some(instructions) = config.instructions {
            server = server.instructions(instructions);
        }
        for (pack_name, pack_config) in config.tools {
            match registry.build(&pack_name, &Value::Object(pack_config)) {
                None => {
                    return Err(ServerConfigError::UnknownPacks {
                        unknown: vec![pack_name],
                        valid: packs.iter().map(|&p| p.to_owned()).collect(),
                    });
                }
                Some(Err(source)) => {
                    return Err(ServerConfigError::Pack {
                        pack: pack_name,
                        source,
                    });
                }
                Some(Ok(pack)) => server.plug_arc(pack),
            }
        }
        Ok(server)
    }

    /// The names of the tools the server offers, in `tools/list` order.
    pub fn tool_names(&self) -> Vec<String> {
        self.inner
            .tools
            .iter()
            .map(|(_, tool)| tool.name.to_string())
            .collect()
    }

    /// The handler the MCP SDK drives for one connection.
    pub(crate) fn handler(&self, transport: &'static str) -> Handler {
        Handler {
            server: self.clone(),
            transport,
        }
    }
}

/// The MCP SDK's view of a server on one transport.
#[derive(Clone)]
pub(crate) struct Handler {
    server: Server,
    transport: &'static str,
}

/// Turns a call's notification into the SDK's notification type.
fn notification(notification: Notification) -> ServerNotification {
    let Notification { method, params } = notification;
    let message = serde_json::json!({"method": method, "params": params});
    serde_json::from_value::<ServerNotification>(message).unwrap_or_else(|_| {
        ServerNotification::CustomNotification(CustomNotification::new(method, Some(params)))
    })
}

/// A call's notifications, sent to the client through the SDK.
struct PeerSink {
    peer: rmcp::Peer<RoleServer>,
    tool: String,
}

impl NotificationSink for PeerSink {
    fn send(&self, note: Notification) -> SinkFuture<'_> {
        Box::pin(async move {
            if let Err(error) = self.peer.send_notification(notification(note)).await {
                tracing::debug!(%error, tool = %self.tool, "notification not delivered");
            }
        })
    }
}

/// How long a host may keep `tools/list` and `server/discover` (an hour): both are
/// fixed when the server is built, so only a restarted server (a new configuration)
/// can change them, and a host that reconnects asks again.
pub const LIST_TTL_MS: u64 = 60 * 60 * 1000;

/// Whether `version` is the stateless 2026-07-28 era or later (ISO dates compare
/// as text).
fn is_stateless_era(version: Option<&str>) -> bool {
    version.is_some_and(|version| version >= "2026-07-28")
}

/// How many times one call may ask a client before 2026-07-28 for input (the server
/// asks it within the same call) before the call is refused.
const MAX_INPUT_ROUNDS: usize = 10;

/// One ask as the SDK's request to the client.
fn input_request(tool: &str, key: &str, ask: &Ask) -> Result<InputRequest, McpError> {
    serde_json::from_value::<InputRequest>(ask.to_json()).map_err(|error| {
        McpError::internal_error(
            format!(
                "the tool {tool} asked for input that is not a valid MCP request ({key}): {error}"
            ),
            None,
        )
    })
}

/// The SDK's form of a request for input: the asks as `inputRequests`, the state as
/// `requestState`.
fn input_required(tool: &str, input: &NeedsInput) -> Result<InputRequiredResult, McpError> {
    let mut requests = InputRequests::new();
    for (key, ask) in &input.asks {
        requests.insert(key.clone(), input_request(tool, key, ask)?);
    }
    let requests = (!requests.is_empty()).then_some(requests);
    Ok(InputRequiredResult::new(requests, input.state.clone()))
}

/// Puts `input`'s asks to a client of an era before 2026-07-28 as elicitation
/// requests, one after the other, and returns its answers by key.
async fn elicit(
    context: &RequestContext<RoleServer>,
    tool: &str,
    input: &NeedsInput,
) -> Result<Map<String, Value>, McpError> {
    if !input.asks.is_empty()
        && !context
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
    {
        return Err(McpError::internal_error(
            format!(
                "the tool {tool} needs input from the user, and the client did not declare \
                 the elicitation capability it would be asked through"
            ),
            None,
        ));
    }
    let mut responses = Map::new();
    for (key, ask) in &input.asks {
        let InputRequest::Elicitation(request) = input_request(tool, key, ask)? else {
            return Err(McpError::internal_error(
                format!("the tool {tool} asked for input ({key}) that is not an elicitation"),
                None,
            ));
        };
        let answer = tokio::select! {
            answer = context.peer.create_elicitation(request.params) => answer,
            () = context.ct.cancelled() => {
                return Err(McpError::internal_error(
                    format!("the call of {tool} was {}", CancelledBy::Client),
                    None,
                ));
            }
        };
        let answer = answer.map_err(|error| {
            McpError::internal_error(
                format!(
                    "asking the client for the input the tool {tool} needs ({key}) failed: {error}"
                ),
                None,
            )
        })?;
        responses.insert(
            key.clone(),
            serde_json::to_value(answer).unwrap_or(Value::Null),
        );
    }
    Ok(responses)
}

/// Whether the client of this request declared form elicitation: in its `_meta` on
/// protocol 2026-07-28, at the handshake before it. A capability naming neither mode
/// means form.
fn can_show_forms(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|capabilities| capabilities.elicitation)
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

impl Handler {
    /// The call the SDK hands over, as the dispatch takes it.
    fn to_call(&self, params: CallToolRequestParams, context: &RequestContext<RoleServer>) -> Call {
        let name = params.name.to_string();
        let meta = match serde_json::to_value(&context.meta) {
            Ok(Value::Object(meta)) => meta,
            _ => Map::new(),
        };
        let client = context.client_info();
        let mut call = Call::new(name.clone(), params.arguments.unwrap_or_default())
            .with_id(serde_json::to_value(&context.id).unwrap_or(Value::Null))
            .with_peer(Peer {
                transport: self.transport,
                client_name: client.as_ref().map(|c| c.name.clone()),
                client_version: client.as_ref().map(|c| c.version.clone()),
            })
            .with_meta(meta)
            .with_input(
                params
                    .input_responses
                    .unwrap_or_default()
                    .into_iter()
                    .collect(),
                params.request_state,
            )
            .with_user_forms(can_show_forms(context))
            .with_cancellation(context.ct.clone())
            .with_notifications(PeerSink {
                peer: context.peer.clone(),
                tool: name,
            });
        if let Some(version) = context.protocol_version() {
            call = call.with_protocol_version(version.to_string());
        }
        call
    }

    /// Serves one `tools/call`: the dispatch's outcome in the SDK's types.
    async fn call(
        &self,
        params: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let call = self.to_call(params, &context);
        let name = call.tool().to_owned();
        let stateless = is_stateless_era(call.protocol_version());
        let mut outcome = self.server.dispatch(call.clone()).await;
        // Before 2026-07-28 the server asks the client itself, then runs the call
        // again with the answers.
        let mut rounds = 0;
        while !stateless && let Outcome::NeedsInput(input) = &outcome {
            rounds += 1;
            if rounds > MAX_INPUT_ROUNDS {
                return Err(McpError::internal_error(
                    format!(
                        "the tool {name} asked for input more than {MAX_INPUT_ROUNDS} times in \
                         one call; this is a bug in its toolkit"
                    ),
                    None,
                ));
            }
            // A permission ask the client failed to answer is a permission not given:
            // the handler runs again and gives its refusal.
            let responses = match elicit(&context, &name, input).await {
                Ok(responses) => responses,
                Err(error) if crate::permission::is_permission_state(input.state.as_deref()) => {
                    tracing::debug!(tool = %name, error = %error.message, "permission not answered");
                    Map::new()
                }
                Err(error) => return Err(error),
            };
            let retry = call.clone().with_input(responses, input.state.clone());
            outcome = self.server.dispatch(retry).await;
        }
        match outcome {
            Outcome::Answered(result) => {
                let mut result = result.into_mcp();
                // Older eras have it stripped by the SDK.
                result.result_type = Some(ResultType::COMPLETE);
                Ok(CallToolResponse::Complete(result))
            }
            Outcome::NeedsInput(input) => Ok(CallToolResponse::InputRequired(input_required(
                &name, &input,
            )?)),
            Outcome::UnknownTool(name) => Err(McpError::invalid_params(
                format!("Unknown tool: {name}"),
                None,
            )),
            Outcome::BadState(message) => Err(McpError::invalid_params(message, None)),
            // A client-cancelled request gets no answer (the SDK drops this error); a
            // server-cancelled one must still hear why.
            Outcome::Cancelled(by) => Err(McpError::internal_error(
                format!("the call of {name} was {by}"),
                None,
            )),
            Outcome::Failed(message) | Outcome::Panicked(message) => {
                Err(McpError::internal_error(message, None))
            }
        }
    }
}

impl rmcp::ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                self.server.inner.name.clone(),
                self.server.inner.version.clone(),
            ));
        match &self.server.inner.instructions {
            Some(instructions) => info.with_instructions(instructions.clone()),
            None => info,
        }
    }

    /// The tools, with the caching hints of the 2026-07-28 era: the list is fixed
    /// when the server is built and the same for every client, so a host may keep it
    /// ([`LIST_TTL_MS`], public).
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools: Vec<Tool> = self
            .server
            .inner
            .tools
            .iter()
            .map(|(_, t)| t.clone())
            .collect();
        let list = ListToolsResult::with_all_items(tools);
        let version = context
            .protocol_version()
            .map(|version| version.to_string());
        Ok(if is_stateless_era(version.as_deref()) {
            list.with_ttl_ms(LIST_TTL_MS)
                .with_cache_scope(CacheScope::Public)
        } else {
            list
        })
    }

    /// What `server/discover` answers, with the same caching hints as `tools/list`:
    /// versions, capabilities, name and instructions are fixed for the server's life.
    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        Ok(DiscoverResult::from_server_info(
            rmcp::ServerHandler::supported_protocol_versions(self).into_owned(),
            self.get_info(),
        )
        .with_ttl_ms(LIST_TTL_MS)
        .with_cache_scope(CacheScope::Public))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.call(request, context).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_becomes_an_elicitation_input_request_with_its_state() {
        let input = NeedsInput::new()
            .form(
                "ok",
                "Proceed?",
                serde_json::json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
            )
            .state("s");
        let result = input_required("t", &input).expect("a valid form");
        assert_eq!(
            serde_json::to_value(&result).expect("serialises"),
            serde_json::json!({
                "resultType": "input_required",
                "inputRequests": {"ok": {"method": "elicitation/create", "params": {
                    "mode": "form", "message": "Proceed?",
                    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}},
                "requestState": "s",
            })
        );
    }

    #[test]
    fn state_alone_carries_no_input_requests() {
        let result = input_required("t", &NeedsInput::new().state("s")).expect("valid");
        assert_eq!(
            serde_json::to_value(&result).expect("serialises"),
            serde_json::json!({"resultType": "input_required", "requestState": "s"})
        );
    }

    #[test]
    fn a_form_whose_schema_is_not_an_object_is_refused_naming_the_tool() {
        let input = NeedsInput::new().form("ok", "Proceed?", serde_json::json!("yes"));
        let error = input_required("delete", &input).expect_err("not a form schema");
        assert!(
            error.message.starts_with(
                "the tool delete asked for input that is not a valid MCP request (ok): "
            ),
            "{}",
            error.message
        );
    }

    #[test]
    fn the_stateless_era_begins_on_2026_07_28() {
        assert!(!is_stateless_era(None));
        assert!(!is_stateless_era(Some("2025-11-25")));
        assert!(is_stateless_era(Some("2026-07-28")));
        assert!(is_stateless_era(Some("2027-01-01")));
    }
}
