//! The server config file, `{"name", "version", "instructions", "tools": {"Pack": {…}}}`,
//! read into a typed [`ServerConfig`] by one function, [`ServerConfig::parse`]: strict
//! keys, typed errors. [`crate::Server::from_config`] and any program that reads such a
//! file use it, so the file has one shape and one set of messages.

use std::fmt;

use serde_json::{Map, Value};

/// The keys a server config may carry, sorted.
pub const KEYS: [&str; 4] = ["instructions", "name", "tools", "version"];

/// What a server config is called in messages; a program reading it from a file names
/// the file after these words.
pub const OWNER: &str = "the server config";

/// What the `tools` key takes, in words.
pub const TOOLS_EXPECTED: &str = "an object of pack configurations by name ({\"Pack\": {…}})";

/// A server config, every key checked: the server's identity and each pack's config.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerConfig {
    /// `name`: the server's name, when given.
    pub name: Option<String>,
    /// `version`: the server's version, when given.
    pub version: Option<String>,
    /// `instructions`: what the server tells the client's model, when given.
    pub instructions: Option<String>,
    /// `tools`: each pack's name and its config object, in the order written.
    pub tools: Vec<(String, Map<String, Value>)>,
}

impl ServerConfig {
    /// Reads a server config: a JSON object with only the keys in [`KEYS`], `name`,
    /// `version` and `instructions` strings, `tools` an object whose every value is a
    /// pack's config object.
    pub fn parse(value: &Value) -> Result<ServerConfig, ServerConfigError> {
        let Some(object) = value.as_object() else {
            return Err(ServerConfigError::NotAnObject {
                found: json_type(value),
            });
        };
        let mut unknown: Vec<String> = object
            .keys()
            .filter(|key| !KEYS.contains(&key.as_str()))
            .cloned()
            .collect();
        if !unknown.is_empty() {
            unknown.sort();
            return Err(ServerConfigError::UnknownKeys { unknown });
        }
        let string = |key: &'static str| match object.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(ServerConfigError::Type {
                key,
                expected: "a string",
            }),
        };
        let name = string("name")?;
        let version = string("version")?;
        let instructions = string("instructions")?;
        let tools = match object.get("tools") {
            None => Vec::new(),
            Some(Value::Object(tools)) => tools
                .iter()
                .map(|(pack, config)| match config {
                    Value::Object(config) => Ok((pack.clone(), config.clone())),
                    other => Err(ServerConfigError::PackNotAnObject {
                        pack: pack.clone(),
                        found: json_type(other),
                    }),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(ServerConfigError::Type {
                    key: "tools",
                    expected: TOOLS_EXPECTED,
                });
            }
        };
        Ok(ServerConfig {
            name,
            version,
            instructions,
            tools,
        })
    }

    /// Refuses a config naming a pack outside `valid` under `tools`, listing every
    /// unknown pack (sorted) and every valid one.
    pub fn check_packs(&self, valid: &[&str]) -> Result<(), ServerConfigError> {
        let mut unknown: Vec<String> = self
            .tools
            .iter()
            .map(|(pack, _)| pack)
            .filter(|pack| !valid.contains(&pack.as_str()))
            .cloned()
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        unknown.sort();
        let mut valid: Vec<String> = valid.iter().map(|&name| name.to_owned()).collect();
        valid.sort();
        Err(ServerConfigError::UnknownPacks { unknown, valid })
    }

    /// The config object of the pack named `name`, when `tools` names it.
    pub fn pack(&self, name: &str) -> Option<&Map<String, Value>> {
        self.tools
            .iter()
            .find(|(pack, _)| pack == name)
            .map(|(_, config)| config)
    }
}

/// A server config that cannot be used. Each message names the key at fault and what it
/// takes, or lists the valid keys.
#[non_exhaustive]
#[derive(Debug)]
pub enum ServerConfigError {
    /// The config is not a JSON object.
    NotAnObject {
        /// What it is instead, in words ("a list").
        found: &'static str,
    },
    /// Keys outside [`KEYS`].
    UnknownKeys {
        /// The unknown keys, sorted.
        unknown: Vec<String>,
    },
    /// A key whose value has the wrong JSON type.
    Type {
        /// The key.
        key: &'static str,
        /// What it takes, in words.
        expected: &'static str,
    },
    /// A pack's config under `tools` is not a JSON object.
    PackNotAnObject {
        /// The pack's name.
        pack: String,
        /// What its config is instead, in words.
        found: &'static str,
    },
    /// Packs under `tools` that no registered pack is called.
    UnknownPacks {
        /// The unknown pack names, sorted.
        unknown: Vec<String>,
        /// Every valid pack name, sorted.
        valid: Vec<String>,
    },
    /// A pack refused its config.
    Pack {
        /// The pack's name.
        pack: String,
        /// The pack's own error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl fmt::Display for ServerConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerConfigError::NotAnObject { found } => write!(
                f,
                "the configuration in {OWNER} is not a JSON object: it is {found}."
            ),
            ServerConfigError::UnknownKeys { unknown } => write!(
                f,
                "Unknown config key(s) for {OWNER}: {}.\nValid keys: {}",
                unknown.join(", "),
                KEYS.join(", ")
            ),
            ServerConfigError::Type { key, expected } => {
                write!(f, "config key \"{key}\" takes {expected}.")
            }
            ServerConfigError::PackNotAnObject { pack, found } => write!(
                f,
                "the configuration in \"tools\".\"{pack}\" in {OWNER} is not a JSON object: it is {found}."
            ),
            ServerConfigError::UnknownPacks { unknown, valid } => write!(
                f,
                "Unknown config key(s) for \"tools\" in {OWNER}: {}.\nValid keys: {}",
                unknown.join(", "),
                valid.join(", ")
            ),
            ServerConfigError::Pack { pack, source } => {
                write!(f, "config of toolkit pack \"{pack}\": {source}")
            }
        }
    }
}

impl std::error::Error for ServerConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServerConfigError::Pack { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// A JSON value's type in words, as the messages say it ("a boolean", "a list").
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn err(value: Value) -> String {
        ServerConfig::parse(&value).unwrap_err().to_string()
    }

    #[test]
    fn every_key_is_read() {
        let config = ServerConfig::parse(&json!({
            "name": "research",
            "version": "2",
            "instructions": "Read the web.",
            "tools": {"Web": {"max-chars": 1000}, "Shell": {}},
        }))
        .unwrap();
        assert_eq!(config.name.as_deref(), Some("research"));
        assert_eq!(config.version.as_deref(), Some("2"));
        assert_eq!(config.instructions.as_deref(), Some("Read the web."));
        let packs: Vec<&str> = config.tools.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(packs, ["Web", "Shell"], "the order written");
        assert_eq!(config.pack("Web").unwrap()["max-chars"], 1000);
        assert!(config.pack("Shell").unwrap().is_empty());
        assert_eq!(config.pack("Nope"), None);
        assert_eq!(
            ServerConfig::parse(&json!({})).unwrap(),
            ServerConfig::default()
        );
    }

    #[test]
    fn keys_are_sorted() {
        let mut sorted = KEYS;
        sorted.sort_unstable();
        assert_eq!(sorted, KEYS);
    }

    #[test]
    fn every_refusal_names_its_key() {
        assert_eq!(
            err(json!([1])),
            "the configuration in the server config is not a JSON object: it is a list."
        );
        assert_eq!(
            err(json!({"tool": {}, "nmae": "x", "name": "x"})),
            "Unknown config key(s) for the server config: nmae, tool.\nValid keys: instructions, name, tools, version"
        );
        for key in ["name", "version", "instructions"] {
            assert_eq!(
                err(json!({ key: 1 })),
                format!("config key \"{key}\" takes a string.")
            );
        }
        assert_eq!(
            err(json!({"tools": ["Web"]})),
            "config key \"tools\" takes an object of pack configurations by name ({\"Pack\": {…}})."
        );
        assert_eq!(
            err(json!({"tools": {"Web": true}})),
            "the configuration in \"tools\".\"Web\" in the server config is not a JSON object: it is a boolean."
        );
        assert!(matches!(
            ServerConfig::parse(&json!({"name": null})),
            Err(ServerConfigError::Type { key: "name", .. })
        ));
    }

    #[test]
    fn unknown_packs_are_listed() {
        let config =
            ServerConfig::parse(&json!({"tools": {"Web": {}, "Zed": {}, "Shell": {}}})).unwrap();
        assert!(config.check_packs(&["Web", "Shell", "Zed"]).is_ok());
        let e = config.check_packs(&["Web", "Abc"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Unknown config key(s) for \"tools\" in the server config: Shell, Zed.\nValid keys: Abc, Web"
        );
        assert!(ServerConfig::default().check_packs(&[]).is_ok());
    }
}
