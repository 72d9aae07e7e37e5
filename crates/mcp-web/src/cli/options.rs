//! The command line's configuration surface, shared by every subcommand: a server
//! config file, `--tool Web='{json}'`, and every configuration key as a flag of the
//! same name. Later sources override earlier ones — the file, then each `--tool` in
//! order, then the flags — and the merged object is validated by the same strict code
//! as any other configuration ([`parse_web_config`]).

use std::path::{Path, PathBuf};

use mcp_web_core::config::{Settings, json_type, parse_web_config, reject_unknown_keys};
use mcp_web_core::error::ConfigError;
use serde_json::{Map, Number, Value};

/// The name of the one pack this program serves.
const PACK: &str = "Web";

/// The keys of a server config file.
const SERVER_KEYS: &[&str] = &["instructions", "name", "tools", "version"];

/// Configuration flags, flattened into every subcommand.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(
    next_help_heading = "Configuration (later sources override earlier: --config, then --tool, then the key flags)"
)]
pub struct ConfigArgs {
    /// A server config file, `{"name", "version", "instructions", "tools": {"Web": {…}}}`;
    /// its `tools.Web` object configures the Web pack.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The Web pack's configuration as a JSON object: `--tool Web='{"allow-loopback":true}'`.
    /// Repeatable; later ones override earlier keys.
    #[arg(long = "tool", value_name = "Web=JSON")]
    pub tool: Vec<String>,

    /// Permit every non-public address class except cloud metadata.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub allow_private: Option<bool>,

    /// Permit loopback addresses only (test rigs, local development servers).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub allow_loopback: Option<bool>,

    /// An exact host name permitted whatever it resolves to (repeatable; replaces the
    /// list from earlier sources). No patterns: `corp` never permits `wiki.corp`.
    #[arg(long, value_name = "HOST")]
    pub allow_hosts: Vec<String>,

    /// A CIDR block permitted, matched against the connected peer (repeatable;
    /// replaces the list from earlier sources).
    #[arg(long, value_name = "CIDR")]
    pub allow_cidrs: Vec<String>,

    /// Cap on decoded body bytes read from one response (at least 4096).
    #[arg(long, value_name = "BYTES")]
    pub max_bytes: Option<String>,

    /// Cap on the text one answer returns (at least 1000).
    #[arg(long, value_name = "CHARS")]
    pub max_chars: Option<String>,

    /// Seconds to open one connection (> 0).
    #[arg(long, value_name = "SECONDS")]
    pub connect_timeout: Option<String>,

    /// Seconds from request to response headers (> 0).
    #[arg(long, value_name = "SECONDS")]
    pub headers_timeout: Option<String>,

    /// Seconds for one request, body included (> 0).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<String>,

    /// Seconds for one whole tool call (> 0).
    #[arg(long, value_name = "SECONDS")]
    pub total_timeout: Option<String>,

    /// Seconds between requests to one origin while traversing (≥ 0).
    #[arg(long, value_name = "SECONDS")]
    pub crawl_delay: Option<String>,

    /// Whether traversal obeys robots.txt (`--respect-robots=false` to ignore it).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub respect_robots: Option<bool>,

    /// The User-Agent header; its product token is matched against robots.txt.
    #[arg(long, value_name = "TEXT")]
    pub user_agent: Option<String>,

    /// An HTTP proxy, `http://host:port`.
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,

    /// A PEM file of extra root certificates.
    #[arg(long, value_name = "FILE")]
    pub ca_file: Option<String>,

    /// The search provider: brave or searxng.
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,

    /// The search provider API's base URL.
    #[arg(long, value_name = "URL")]
    pub search_url: Option<String>,

    /// The search API key (prefer --api-key-env: a flag is visible to other users).
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,

    /// The environment variable holding the search API key.
    #[arg(long, value_name = "NAME")]
    pub api_key_env: Option<String>,

    /// Safe-search level: off, moderate or strict.
    #[arg(long, value_name = "LEVEL")]
    pub safesearch: Option<String>,

    /// Country passed to the search provider.
    #[arg(long, value_name = "CODE")]
    pub search_country: Option<String>,

    /// Language passed to the search provider.
    #[arg(long, value_name = "CODE")]
    pub search_lang: Option<String>,

    /// Ask the user before refusing a peer allow-private or allow-loopback could permit.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub ask_permission: Option<bool>,
}

impl ConfigArgs {
    /// Merges the sources, later over earlier, and validates the result.
    pub fn settings(&self) -> Result<Settings, ConfigError> {
        parse_web_config(&Value::Object(self.merged()?))
    }

    /// The merged configuration object, not yet validated.
    pub fn merged(&self) -> Result<Map<String, Value>, ConfigError> {
        let mut merged = Map::new();
        if let Some(path) = &self.config {
            merged.extend(read_server_file(path)?);
        }
        for tool in &self.tool {
            merged.extend(parse_tool(tool)?);
        }
        merged.extend(self.flags());
        Ok(merged)
    }

    /// The key flags given, as JSON. A number flag whose text is not a number is
    /// passed on as a string, so that the strict parser names the key and its type.
    fn flags(&self) -> Map<String, Value> {
        let mut map = Map::new();
        let bools = [
            ("allow-private", self.allow_private),
            ("allow-loopback", self.allow_loopback),
            ("respect-robots", self.respect_robots),
            ("ask-permission", self.ask_permission),
        ];
        for (key, value) in bools {
            if let Some(b) = value {
                map.insert(key.to_owned(), Value::Bool(b));
            }
        }
        let lists = [
            ("allow-hosts", &self.allow_hosts),
            ("allow-cidrs", &self.allow_cidrs),
        ];
        for (key, values) in lists {
            if !values.is_empty() {
                let list = values.iter().cloned().map(Value::String).collect();
                map.insert(key.to_owned(), Value::Array(list));
            }
        }
        let numbers = [
            ("max-bytes", &self.max_bytes),
            ("max-chars", &self.max_chars),
            ("connect-timeout", &self.connect_timeout),
            ("headers-timeout", &self.headers_timeout),
            ("timeout", &self.timeout),
            ("total-timeout", &self.total_timeout),
            ("crawl-delay", &self.crawl_delay),
        ];
        for (key, value) in numbers {
            if let Some(text) = value {
                let json = match text.parse::<Number>() {
                    Ok(n) => Value::Number(n),
                    Err(_) => Value::String(text.clone()),
                };
                map.insert(key.to_owned(), json);
            }
        }
        let strings = [
            ("user-agent", &self.user_agent),
            ("proxy", &self.proxy),
            ("ca-file", &self.ca_file),
            ("provider", &self.provider),
            ("search-url", &self.search_url),
            ("api-key", &self.api_key),
            ("api-key-env", &self.api_key_env),
            ("safesearch", &self.safesearch),
            ("search-country", &self.search_country),
            ("search-lang", &self.search_lang),
        ];
        for (key, value) in strings {
            if let Some(text) = value {
                map.insert(key.to_owned(), Value::String(text.clone()));
            }
        }
        map
    }
}

/// Reads `--tool NAME=JSON`: the pack must be `Web`, the JSON an object.
fn parse_tool(arg: &str) -> Result<Map<String, Value>, ConfigError> {
    let (name, json) = arg.split_once('=').unwrap_or((arg, ""));
    if name != PACK {
        return Err(ConfigError::UnknownKeys {
            owner: "--tool".to_owned(),
            unknown: vec![name.to_owned()],
            valid: vec![PACK],
        });
    }
    let source = format!("--tool {PACK}");
    let value: Value = serde_json::from_str(json).map_err(|e| ConfigError::Syntax {
        source: source.clone(),
        detail: e.to_string(),
    })?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(ConfigError::Syntax {
            source,
            detail: format!("it is {}", json_type(&other)),
        }),
    }
}

/// Reads a server config file and returns its `tools.Web` object (empty when the file
/// configures no pack).
fn read_server_file(path: &Path) -> Result<Map<String, Value>, ConfigError> {
    let shown = path.display().to_string();
    let syntax = |detail: String| ConfigError::Syntax {
        source: shown.clone(),
        detail,
    };
    let text =
        std::fs::read_to_string(path).map_err(|e| syntax(format!("it cannot be read ({e})")))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| syntax(e.to_string()))?;
    let Value::Object(mut server) = value else {
        return Err(syntax(format!("it is {}", json_type(&value))));
    };
    reject_unknown_keys(&server, SERVER_KEYS, &format!("the server config {shown}"))?;
    for key in ["name", "version", "instructions"] {
        if server.get(key).is_some_and(|v| !v.is_string()) {
            return Err(ConfigError::Type {
                key: key.to_owned(),
                expected: "a string",
            });
        }
    }
    let tools = match server.remove("tools") {
        None => return Ok(Map::new()),
        Some(Value::Object(tools)) => tools,
        Some(_) => {
            return Err(ConfigError::Type {
                key: "tools".to_owned(),
                expected: "an object of packs by name ({\"Web\": {…}})",
            });
        }
    };
    let mut unknown: Vec<String> = tools.keys().filter(|k| *k != PACK).cloned().collect();
    if !unknown.is_empty() {
        unknown.sort();
        return Err(ConfigError::UnknownKeys {
            owner: format!("\"tools\" in {shown}"),
            unknown,
            valid: vec![PACK],
        });
    }
    match tools.into_iter().next() {
        None => Ok(Map::new()),
        Some((_, Value::Object(web))) => Ok(web),
        Some((_, other)) => Err(ConfigError::Syntax {
            source: format!("\"tools\".\"Web\" in {shown}"),
            detail: format!("it is {}", json_type(&other)),
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        config: ConfigArgs,
    }

    fn args(argv: &[&str]) -> ConfigArgs {
        let mut all = vec!["test"];
        all.extend_from_slice(argv);
        Cli::try_parse_from(all).unwrap().config
    }

    fn settings(argv: &[&str]) -> Result<Settings, ConfigError> {
        args(argv).settings()
    }

    /// A file in the temp directory, removed when dropped.
    struct TempFile(PathBuf);

    impl TempFile {
        fn new(contents: &str) -> TempFile {
            static N: AtomicUsize = AtomicUsize::new(0);
            let path = std::env::temp_dir().join(format!(
                "mcp-web-options-{}-{}.json",
                std::process::id(),
                N.fetch_add(1, Ordering::SeqCst)
            ));
            std::fs::write(&path, contents).unwrap();
            TempFile(path)
        }

        fn path(&self) -> &str {
            self.0.to_str().unwrap()
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    #[test]
    fn no_sources_give_the_defaults() {
        assert_eq!(settings(&[]).unwrap(), Settings::default());
    }

    #[test]
    fn every_key_has_a_flag_of_the_same_name() {
        let mut cmd = <Cli as clap::CommandFactory>::command();
        cmd.build();
        let longs: Vec<String> = cmd
            .get_arguments()
            .filter_map(|a| a.get_long().map(str::to_owned))
            .collect();
        for key in mcp_web_core::config::VALID_KEYS {
            assert!(longs.iter().any(|l| l == key), "no --{key}");
        }
    }

    #[test]
    fn flags_set_every_kind_of_key() {
        let s = settings(&[
            "--allow-loopback",
            "--allow-private=false",
            "--respect-robots=false",
            "--allow-cidrs",
            "10.0.0.0/8",
            "--allow-cidrs=fd00::/8",
            "--allow-hosts",
            "wiki.corp",
            "--max-bytes",
            "4096",
            "--timeout",
            "2.5",
            "--crawl-delay",
            "0",
            "--provider",
            "searxng",
            "--proxy",
            "http://proxy.corp:3128",
        ])
        .unwrap();
        assert!(s.allow_loopback && !s.allow_private && !s.respect_robots);
        let cidrs: Vec<String> = s.allow_cidrs.iter().map(ToString::to_string).collect();
        assert_eq!(cidrs, ["10.0.0.0/8", "fd00::/8"]);
        assert_eq!(s.allow_hosts, ["wiki.corp"]);
        assert_eq!(s.max_bytes, 4096);
        assert_eq!(s.timeout, Duration::from_millis(2500));
        assert_eq!(s.crawl_delay, Duration::ZERO);
        assert_eq!(s.provider.as_str(), "searxng");
        assert_eq!(s.proxy.unwrap().port(), 3128);
    }

    #[test]
    fn flags_are_validated_by_the_strict_parser() {
        let e = settings(&["--max-bytes", "100"]).unwrap_err();
        assert_eq!(e.key(), Some("max-bytes"));
        assert!(e.to_string().contains("must be at least 4096"), "{e}");
        let e = settings(&["--max-bytes", "lots"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"config key "max-bytes" takes a whole number of bytes."#
        );
        let e = settings(&["--allow-hosts", "*.corp"]).unwrap_err();
        assert!(e.to_string().contains("not patterns"), "{e}");
        let e = settings(&["--allow-cidrs", "10.0.0.0/40"]).unwrap_err();
        assert_eq!(e.key(), Some("allow-cidrs"));
        assert!(Cli::try_parse_from(["test", "--allow-private=maybe"]).is_err());
    }

    #[test]
    fn tool_json_configures_the_pack() {
        let s = settings(&[
            "--tool",
            r#"Web={"allow-cidrs":["10.0.0.0/8"],"max-chars":1000}"#,
        ])
        .unwrap();
        assert_eq!(s.allow_cidrs[0].to_string(), "10.0.0.0/8");
        assert_eq!(s.max_chars, 1000);

        let e = settings(&["--tool", r#"Web={"providr":"brave"}"#]).unwrap_err();
        assert!(matches!(e, ConfigError::UnknownKeys { ref owner, .. } if owner == "the Web pack"));
        let e = settings(&["--tool", "Shell={}"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Unknown config key(s) for --tool: Shell.\nValid keys: Web"
        );
        let e = settings(&["--tool", "Web={nope"]).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "the configuration in --tool Web is not a JSON object: key must be a string"
            ),
            "{e}"
        );
        let e = settings(&["--tool", "Web=[1]"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the configuration in --tool Web is not a JSON object: it is a list."
        );
        let e = settings(&["--tool", "Web"]).unwrap_err();
        assert!(matches!(e, ConfigError::Syntax { .. }), "{e:?}");
    }

    #[test]
    fn config_file_takes_tools_web() {
        let file = TempFile::new(
            r#"{"name":"research","version":"1","instructions":"hi",
                "tools":{"Web":{"crawl-delay":0.25,"allow-hosts":["wiki.corp"]}}}"#,
        );
        let s = settings(&["--config", file.path()]).unwrap();
        assert_eq!(s.crawl_delay, Duration::from_millis(250));
        assert_eq!(s.allow_hosts, ["wiki.corp"]);

        let file = TempFile::new(r#"{"name":"research"}"#);
        assert_eq!(
            settings(&["--config", file.path()]).unwrap(),
            Settings::default()
        );
    }

    #[test]
    fn config_file_is_strict() {
        let file = TempFile::new(r#"{"name":"x","tool":{}}"#);
        let e = settings(&["--config", file.path()]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "Unknown config key(s) for the server config {}: tool.\nValid keys: instructions, name, tools, version",
                file.path()
            )
        );
        let file = TempFile::new(r#"{"tools":{"Web":{},"Shell":{}}}"#);
        let e = settings(&["--config", file.path()]).unwrap_err();
        assert!(e.to_string().contains(": Shell.\nValid keys: Web"), "{e}");
        let file = TempFile::new(r#"{"tools":{"Web":{"max-bytes":1}}}"#);
        assert_eq!(
            settings(&["--config", file.path()]).unwrap_err().key(),
            Some("max-bytes")
        );
        let file = TempFile::new(r#"{"tools":{"Web":true}}"#);
        assert!(matches!(
            settings(&["--config", file.path()]),
            Err(ConfigError::Syntax { .. })
        ));
        let file = TempFile::new(r#"{"name":1}"#);
        assert_eq!(
            settings(&["--config", file.path()]).unwrap_err().key(),
            Some("name")
        );
        let file = TempFile::new("not json");
        assert!(matches!(
            settings(&["--config", file.path()]),
            Err(ConfigError::Syntax { .. })
        ));
        let e = settings(&["--config", "/nonexistent/mcp-web.json"]).unwrap_err();
        assert!(e.to_string().contains("cannot be read"), "{e}");
    }

    #[test]
    fn later_sources_override_earlier() {
        let file = TempFile::new(
            r#"{"tools":{"Web":{"max-bytes":10000,"timeout":5,"crawl-delay":1,"allow-cidrs":["10.0.0.0/8"]}}}"#,
        );
        let s = settings(&[
            "--config",
            file.path(),
            "--tool",
            r#"Web={"max-bytes":20000,"timeout":6}"#,
            "--tool",
            r#"Web={"max-bytes":30000}"#,
            "--timeout",
            "7",
        ])
        .unwrap();
        assert_eq!(s.max_bytes, 30000);
        assert_eq!(s.timeout, Duration::from_secs(7));
        assert_eq!(s.crawl_delay, Duration::from_secs(1));
        assert_eq!(s.allow_cidrs.len(), 1);

        // A list flag replaces the list of earlier sources.
        let s = settings(&["--config", file.path(), "--allow-cidrs", "192.168.0.0/16"]).unwrap();
        let cidrs: Vec<String> = s.allow_cidrs.iter().map(ToString::to_string).collect();
        assert_eq!(cidrs, ["192.168.0.0/16"]);

        // A bad value in an early source is overridden, not reported.
        let s = settings(&["--tool", r#"Web={"max-bytes":1}"#, "--max-bytes", "5000"]).unwrap();
        assert_eq!(s.max_bytes, 5000);
        // A later flag can turn a file's switch off.
        let file = TempFile::new(r#"{"tools":{"Web":{"allow-private":true}}}"#);
        let s = settings(&["--config", file.path(), "--allow-private=false"]).unwrap();
        assert!(!s.allow_private);
    }
}
