//! Toolkit packs: the [`Toolkit`] trait a pack implements, the [`ToolSpec`] of each
//! tool it offers, and the [`Registry`] that builds packs by name from JSON config.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::request::Request;

/// The future a toolkit returns for one call. The framework drives it on its own
/// task and drops it when the client cancels the call.
pub type CallFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A pack of tools plugged into a [`crate::Server`].
pub trait Toolkit: Send + Sync + 'static {
    /// The pack's name, as it appears in a server's config (`"Web"`).
    fn name(&self) -> &str;

    /// The tools the pack offers, in the order `tools/list` shows them.
    fn tools(&self) -> Vec<ToolSpec>;

    /// Serves one call of one of this pack's tools. Returning does not complete the
    /// request: answering it does (see [`Request`]). The request may be moved into
    /// a spawned task and answered later.
    fn call(&self, request: Request) -> CallFuture;
}

/// A toolkit that can be built from its JSON config, so a server can assemble it by
/// name (see [`Registry`]).
pub trait FromConfig: Toolkit + Sized {
    /// The pack's name in a server config's `tools` object.
    const NAME: &'static str;

    /// Builds the pack from its config object. Unknown keys are errors that list the
    /// valid ones.
    fn from_config(config: &Value) -> Result<Self, Box<dyn std::error::Error + Send + Sync>>;
}

/// Hints about a tool's behaviour, published as its `annotations`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    /// The tool does not modify its environment.
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates.
    pub destructive: Option<bool>,
    /// Calling the tool twice with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// The tool reaches an open world of external entities.
    pub open_world: Option<bool>,
}

impl Annotations {
    /// The annotations as the JSON object MCP publishes.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        let mut put = |key: &str, value: Option<bool>| {
            if let Some(value) = value {
                object.insert(key.to_owned(), Value::Bool(value));
            }
        };
        put("readOnlyHint", self.read_only);
        put("destructiveHint", self.destructive);
        put("idempotentHint", self.idempotent);
        put("openWorldHint", self.open_world);
        Value::Object(object)
    }
}

/// One tool as `tools/list` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The tool's name, unique across the server.
    pub name: String,
    /// What it does and when to use it, for the model.
    pub description: String,
    /// The JSON Schema of its arguments (an object schema).
    pub input_schema: Value,
    /// Behaviour hints.
    pub annotations: Annotations,
}

impl ToolSpec {
    /// The tool as the JSON object `tools/list` carries.
    pub fn to_json(&self) -> Value {
        let mut tool = json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        });
        let annotations = self.annotations.to_json();
        if annotations.as_object().is_some_and(|a| !a.is_empty()) {
            tool["annotations"] = annotations;
        }
        tool
    }
}

/// Builds a pack from its config.
type Constructor = Box<
    dyn Fn(&Value) -> Result<Arc<dyn Toolkit>, Box<dyn std::error::Error + Send + Sync>>
        + Send
        + Sync,
>;

/// The packs a server config may name, by name.
#[derive(Default)]
pub struct Registry {
    constructors: BTreeMap<String, Constructor>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("packs", &self.names())
            .finish()
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers the pack type `T` under its [`FromConfig::NAME`].
    pub fn with<T: FromConfig>(mut self) -> Self {
        self.constructors.insert(
            T::NAME.to_owned(),
            Box::new(|config| Ok(Arc::new(T::from_config(config)?) as Arc<dyn Toolkit>)),
        );
        self
    }

    /// The registered pack names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.constructors.keys().map(String::as_str).collect()
    }

    /// Builds the pack named `name` from `config`; `None` if no pack has that name.
    pub(crate) fn build(
        &self,
        name: &str,
        config: &Value,
    ) -> Option<Result<Arc<dyn Toolkit>, Box<dyn std::error::Error + Send + Sync>>> {
        self.constructors.get(name).map(|build| build(config))
    }
}
