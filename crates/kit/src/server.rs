//! The [`Server`]: packs plugged into one MCP server, and the dispatch of `tools/list`
//! and `tools/call` to them. This is the one place the MCP SDK's handler trait is
//! implemented; transports live in [`crate::stdio`] and [`crate::http`].

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CustomNotification, Implementation,
    ListToolsResult, PaginatedRequestParams, ResultType, ServerCapabilities, ServerConfig,
    ServerNotification, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};

use crate::config::ServerConfigError;
use crate::request::{CLIENT_CANCELLED, Event, Parts, Peer, Request};
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
            }),
        }
    }

    /// Sets the instructions the server gives the client's model.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.inner_mut().instructions = Some(instructions.into());
        self
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
            inner: Arc::clone(&self.inner),
            transport,
        }
    }
}

/// The MCP SDK's view of a server on one transport.
#[derive(Clone)]
pub(crate) struct Handler {
    inner: Arc<Inner>,
    transport: &'static str,
}

/// Turns a request's outbound event into the SDK's notification type.
fn notification(method: String, params: Value) -> ServerNotification {
    let message = serde_json::json!({"method": method, "params": params});
    serde_json::from_value::<ServerNotification>(message).unwrap_or_else(|_| {
        ServerNotification::CustomNotification(CustomNotification::new(method, Some(params)))
    })
}

impl Handler {
    async fn call(
        &self,
        params: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = params.name.to_string();
        let Some(&slot) = self.inner.by_name.get(&name) else {
            return Err(McpError::invalid_params(
                format!("Unknown tool: {name}"),
                None,
            ));
        };
        let (pack_index, _) = &self.inner.tools[slot];
        let pack = Arc::clone(&self.inner.packs[*pack_index]);

        let meta = serde_json::to_value(&context.meta).unwrap_or(Value::Null);
        let args = params.arguments.clone().unwrap_or_default();
        let mut raw = Map::new();
        raw.insert("name".to_owned(), Value::String(name.clone()));
        raw.insert("arguments".to_owned(), Value::Object(args.clone()));
        if meta.as_object().is_some_and(|m| !m.is_empty()) {
            raw.insert("_meta".to_owned(), meta);
        }
        let client = context.client_info();
        let parts = Parts {
            id: serde_json::to_value(&context.id).unwrap_or(Value::Null),
            protocol_version: context.protocol_version().map(|v| v.to_string()),
            peer: Peer {
                transport: self.transport,
                client_name: client.as_ref().map(|c| c.name.clone()),
                client_version: client.as_ref().map(|c| c.version.clone()),
            },
            params: Value::Object(raw),
            tool: name.clone(),
            args,
            toolset: pack.name().to_owned(),
            progress_token: context
                .meta
                .get_progress_token()
                .and_then(|token| serde_json::to_value(token).ok()),
        };
        let token = context.ct.child_token();
        let (request, shared, mut events) = Request::new(parts, token.clone());

        let task = tokio::spawn(pack.call(request));
        let abort = task.abort_handle();
        let outcome = loop {
            tokio::select! {
                biased;
                event = events.recv() => match event {
                    Some(Event::Notify { method, params }) => {
                        if let Err(error) = context.peer.send_notification(notification(method, params)).await {
                            tracing::debug!(%error, tool = %name, "notification not delivered");
                        }
                    }
                    Some(Event::Reply(result)) => break Ok(result),
                    None => break Err("left without an answer"),
                },
                () = token.cancelled() => {
                    if context.ct.is_cancelled() {
                        shared.cancel(Some(CLIENT_CANCELLED));
                        break Err(CLIENT_CANCELLED);
                    }
                    break Err("cancelled by the server");
                }
            }
        };
        match outcome {
            Ok(result) => {
                // The handler may still be running after it answered (clean-up);
                // it is detached, not aborted.
                match serde_json::from_value::<CallToolResult>(result) {
                    Ok(mut result) => {
                        // Older eras have it stripped by the SDK.
                        result.result_type = Some(ResultType::COMPLETE);
                        Ok(CallToolResponse::Complete(result))
                    }
                    Err(error) => Err(McpError::internal_error(
                        format!(
                            "the tool {name} answered with a result that is not a valid MCP CallToolResult: {error}"
                        ),
                        None,
                    )),
                }
            }
            Err(reason) => {
                abort.abort();
                // A client-cancelled request gets no answer (the SDK drops this
                // error); a server-cancelled one must still hear why.
                Err(McpError::internal_error(
                    format!("the call of {name} was {reason}"),
                    None,
                ))
            }
        }
    }
}

impl rmcp::ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                self.inner.name.clone(),
                self.inner.version.clone(),
            ));
        match &self.inner.instructions {
            Some(instructions) => info.with_instructions(instructions.clone()),
            None => info,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools: Vec<Tool> = self.inner.tools.iter().map(|(_, t)| t.clone()).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.call(request, context).await
    }
}
