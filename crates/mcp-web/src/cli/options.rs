//! The command line's configuration surface, shared by every subcommand: a server
//! config file, `--tool Web='{json}'`, and every configuration key as a flag of the
//! same name, built from the key table ([`mcp_web_core::config::KEYS`]). Later sources
//! override earlier ones — the file, then each `--tool` in order, then the flags — and
//! the merged object is validated by the same strict code as any other configuration
//! ([`parse_web_config`]). The server config file is read once, by [`ConfigArgs::load`].

use std::path::{Path, PathBuf};

use clap::{Arg, ArgAction, ArgMatches, Command};
use mcp_kit::{ServerConfig, ServerConfigError};
use mcp_web_core::config::{KEYS, Key, Kind, Settings, json_type, parse_web_config};
use mcp_web_core::error::ConfigError;
use serde_json::{Map, Number, Value};

/// The name of the one pack this program serves.
const PACK: &str = "Web";

/// The help heading of the configuration flags.
const HEADING: &str =
    "Configuration (later sources override earlier: --config, then --tool, then the key flags)";

/// Configuration flags, flattened into every subcommand: `--config`, `--tool`, and one
/// flag per key of the table.
#[derive(Debug, Clone, Default)]
pub struct ConfigArgs {
    /// `--config FILE`: a server config file, whose `tools.Web` configures the Web pack.
    pub config: Option<PathBuf>,
    /// `--tool Web=JSON`, in the order given.
    pub tool: Vec<String>,
    /// The key flags given, as the JSON each stands for. A number flag whose text is
    /// not a number is kept as a string, so that the strict parser names the key and
    /// its type.
    pub flags: Map<String, Value>,
}

/// What the configuration sources of one command give.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The server config file as read (empty when no `--config` was given).
    pub server: ServerConfig,
    /// The Web pack's settings, every source merged and validated.
    pub settings: Settings,
}

impl ConfigArgs {
    /// Merges the sources, later over earlier, and validates the result.
    pub fn settings(&self) -> Result<Settings, ConfigError> {
        Ok(self.load()?.settings)
    }

    /// Reads the server config file (once) and merges every source into the settings.
    pub fn load(&self) -> Result<Loaded, ConfigError> {
        let server = match &self.config {
            Some(path) => read_server_file(path)?,
            None => ServerConfig::default(),
        };
        let mut merged = server.pack(PACK).cloned().unwrap_or_default();
        for tool in &self.tool {
            merged.extend(parse_tool(tool)?);
        }
        merged.extend(self.flags.clone());
        let settings = parse_web_config(&Value::Object(merged))?;
        Ok(Loaded { server, settings })
    }
}

/// The flag of one configuration key: its name, value name and help from the table.
fn flag(key: &'static Key) -> Arg {
    let arg = Arg::new(key.name())
        .long(key.name())
        .value_name(key.value_name);
    match key.kind() {
        Kind::Bool => arg
            .help(key.summary())
            .value_parser(clap::value_parser!(bool))
            .action(ArgAction::Set)
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("true"),
        Kind::Strings => arg
            .help(format!(
                "{} (repeatable; replaces the list from earlier sources)",
                key.summary()
            ))
            .action(ArgAction::Append),
        Kind::Count | Kind::Seconds | Kind::Text | Kind::OptionalText => {
            arg.help(key.summary()).action(ArgAction::Set)
        }
    }
}

/// A clap error for an argument this type defined but could not read back.
fn unreadable(id: &str, error: impl std::fmt::Display) -> clap::Error {
    clap::Error::raw(
        clap::error::ErrorKind::ArgumentConflict,
        format!("the argument {id} cannot be read: {error}"),
    )
}

/// The JSON a key's flag stands for, when the flag was given.
fn flag_value(key: &Key, matches: &ArgMatches) -> Result<Option<Value>, clap::Error> {
    let id = key.name();
    let text = || {
        matches
            .try_get_one::<String>(id)
            .map(|v| v.cloned())
            .map_err(|e| unreadable(id, e))
    };
    Ok(match key.kind() {
        Kind::Bool => matches
            .try_get_one::<bool>(id)
            .map_err(|e| unreadable(id, e))?
            .map(|&b| Value::Bool(b)),
        Kind::Strings => matches
            .try_get_many::<String>(id)
            .map_err(|e| unreadable(id, e))?
            .map(|values| Value::Array(values.cloned().map(Value::String).collect())),
        Kind::Count | Kind::Seconds => text()?.map(|text| match text.parse::<Number>() {
            Ok(n) => Value::Number(n),
            Err(_) => Value::String(text),
        }),
        Kind::Text | Kind::OptionalText => text()?.map(Value::String),
    })
}

impl clap::FromArgMatches for ConfigArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let config = matches
            .try_get_one::<PathBuf>("config")
            .map_err(|e| unreadable("--config", e))?
            .cloned();
        let tool = matches
            .try_get_many::<String>("tool")
            .map_err(|e| unreadable("--tool", e))?
            .map(|values| values.cloned().collect())
            .unwrap_or_default();
        let mut flags = Map::new();
        for key in KEYS {
            if let Some(value) = flag_value(key, matches)? {
                flags.insert(key.name().to_owned(), value);
            }
        }
        Ok(ConfigArgs {
            config,
            tool,
            flags,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        let given = ConfigArgs::from_arg_matches(matches)?;
        if given.config.is_some() {
            self.config = given.config;
        }
        if !given.tool.is_empty() {
            self.tool = given.tool;
        }
        self.flags.extend(given.flags);
        Ok(())
    }
}

impl clap::Args for ConfigArgs {
    fn augment_args(cmd: Command) -> Command {
        cmd.next_help_heading(HEADING)
            .arg(
                Arg::new("config")
                    .long("config")
                    .value_name("FILE")
                    .value_parser(clap::value_parser!(PathBuf))
                    .action(ArgAction::Set)
                    .help("A server config file, `{\"name\", \"version\", \"instructions\", \"tools\": {\"Web\": {…}}}`; its `tools.Web` object configures the Web pack"),
            )
            .arg(
                Arg::new("tool")
                    .long("tool")
                    .value_name("Web=JSON")
                    .action(ArgAction::Append)
                    .help("The Web pack's configuration as a JSON object: `--tool Web='{\"allow-loopback\":true}'`. Repeatable; later ones override earlier keys"),
            )
            .args(KEYS.iter().map(flag))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
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

/// Reads a server config file: its text, its JSON, then its keys by
/// [`ServerConfig::parse`]; `tools` may name only the Web pack.
fn read_server_file(path: &Path) -> Result<ServerConfig, ConfigError> {
    let owner = format!("{} {}", mcp_kit::config::OWNER, path.display());
    let syntax = |detail: String| ConfigError::Syntax {
        source: owner.clone(),
        detail,
    };
    let text =
        std::fs::read_to_string(path).map_err(|e| syntax(format!("it cannot be read ({e})")))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| syntax(e.to_string()))?;
    let server = ServerConfig::parse(&value).map_err(|e| file_error(e, &owner))?;
    server
        .check_packs(&[PACK])
        .map_err(|e| file_error(e, &owner))?;
    Ok(server)
}

/// A server config file's error in the configuration's error type, worded as the
/// kit words it, with the file named where the kit says "the server config".
fn file_error(error: ServerConfigError, owner: &str) -> ConfigError {
    match error {
        ServerConfigError::NotAnObject { found } => ConfigError::Syntax {
            source: owner.to_owned(),
            detail: format!("it is {found}"),
        },
        ServerConfigError::UnknownKeys { unknown } => ConfigError::UnknownKeys {
            owner: owner.to_owned(),
            unknown,
            valid: mcp_kit::config::KEYS.to_vec(),
        },
        ServerConfigError::Type { key, expected } => ConfigError::Type {
            key: key.to_owned(),
            expected,
        },
        ServerConfigError::PackNotAnObject { pack, found } => ConfigError::Syntax {
            source: format!("\"tools\".\"{pack}\" in {owner}"),
            detail: format!("it is {found}"),
        },
        // The file is checked against this program's one pack.
        ServerConfigError::UnknownPacks { unknown, .. } => ConfigError::UnknownKeys {
            owner: format!("\"tools\" in {owner}"),
            unknown,
            valid: vec![PACK],
        },
        other => ConfigError::Syntax {
            source: owner.to_owned(),
            detail: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use clap::Parser;
    use serde_json::json;

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

    /// The `allow-cidrs` blocks of `s`, written out.
    fn cidrs(s: &Settings) -> Vec<String> {
        s.policy
            .allow_cidrs
            .iter()
            .map(ToString::to_string)
            .collect()
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
        for key in mcp_web_core::config::valid_keys() {
            assert!(longs.iter().any(|l| l == key), "no --{key}");
        }
    }

    /// Every key of the table is a flag with the table's value name and help, and
    /// what the flag is given reaches the parser as the key's JSON type.
    #[test]
    fn every_key_in_the_table_is_a_flag_the_parser_reads() {
        let mut cmd = <Cli as clap::CommandFactory>::command();
        cmd.build();
        for key in KEYS {
            let arg = cmd
                .get_arguments()
                .find(|a| a.get_long() == Some(key.name()))
                .unwrap_or_else(|| panic!("no --{}", key.name()));
            let names: Vec<&str> = arg
                .get_value_names()
                .unwrap_or_default()
                .iter()
                .map(|n| n.as_str())
                .collect();
            assert_eq!(names, [key.value_name], "--{}", key.name());
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            assert!(help.starts_with(&key.summary()), "--{}: {help}", key.name());

            let flag = format!("--{}", key.name());
            let (argv, json): (Vec<String>, Value) = match key.kind() {
                Kind::Bool => (vec![flag], json!(true)),
                Kind::Strings => (
                    vec![flag.clone(), "a".into(), format!("{flag}=b")],
                    json!(["a", "b"]),
                ),
                Kind::Count | Kind::Seconds => (vec![flag, "12".into()], json!(12)),
                Kind::Text | Kind::OptionalText => (vec![flag, "x".into()], json!("x")),
            };
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            let given = args(&argv);
            assert_eq!(given.flags.len(), 1, "--{}", key.name());
            assert_eq!(given.flags[key.name()], json, "--{}", key.name());
            // The default, given as a flag, is the default.
            if let Some(text) = match key.default.to_json() {
                Value::Bool(b) => Some(format!("--{}={b}", key.name())),
                Value::Number(n) => Some(format!("--{}={n}", key.name())),
                Value::String(text) => Some(format!("--{}={text}", key.name())),
                _ => None,
            } {
                assert_eq!(settings(&[&text]).unwrap(), Settings::default(), "{text}");
            }
        }
        assert!(args(&[]).flags.is_empty());
    }

    /// A server config file's errors are worded as the kit words them, the file named
    /// where the kit says "the server config".
    #[test]
    fn config_file_errors_are_the_kits() {
        for text in [
            r#"[1]"#,
            r#"{"nmae":"x"}"#,
            r#"{"version":2}"#,
            r#"{"tools":[]}"#,
            r#"{"tools":{"Web":[]}}"#,
            r#"{"tools":{"Shell":{}}}"#,
        ] {
            let file = TempFile::new(text);
            let ours = settings(&["--config", file.path()])
                .unwrap_err()
                .to_string();
            let value: Value = serde_json::from_str(text).unwrap();
            let kits = match ServerConfig::parse(&value) {
                Ok(server) => server.check_packs(&[PACK]).unwrap_err(),
                Err(e) => e,
            };
            let named = format!("the server config {}", file.path());
            assert_eq!(ours, kits.to_string().replace("the server config", &named));
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
        assert!(s.policy.allow_loopback && !s.policy.allow_private && !s.crawl.respect_robots);
        assert_eq!(cidrs(&s), ["10.0.0.0/8", "fd00::/8"]);
        assert_eq!(s.policy.allow_hosts, ["wiki.corp"]);
        assert_eq!(s.fetch.max_bytes, 4096);
        assert_eq!(s.fetch.timeout, Duration::from_millis(2500));
        assert_eq!(s.crawl.crawl_delay, Duration::ZERO);
        assert_eq!(s.search.provider.as_str(), "searxng");
        assert_eq!(s.fetch.network.proxy.unwrap().port(), 3128);
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
        assert_eq!(s.policy.allow_cidrs[0].to_string(), "10.0.0.0/8");
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
        assert_eq!(s.crawl.crawl_delay, Duration::from_millis(250));
        assert_eq!(s.policy.allow_hosts, ["wiki.corp"]);

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
        assert_eq!(s.fetch.max_bytes, 30000);
        assert_eq!(s.fetch.timeout, Duration::from_secs(7));
        assert_eq!(s.crawl.crawl_delay, Duration::from_secs(1));
        assert_eq!(s.policy.allow_cidrs.len(), 1);

        // A list flag replaces the list of earlier sources.
        let s = settings(&["--config", file.path(), "--allow-cidrs", "192.168.0.0/16"]).unwrap();
        assert_eq!(cidrs(&s), ["192.168.0.0/16"]);

        // A bad value in an early source is overridden, not reported.
        let s = settings(&["--tool", r#"Web={"max-bytes":1}"#, "--max-bytes", "5000"]).unwrap();
        assert_eq!(s.fetch.max_bytes, 5000);
        // A later flag can turn a file's switch off.
        let file = TempFile::new(r#"{"tools":{"Web":{"allow-private":true}}}"#);
        let s = settings(&["--config", file.path(), "--allow-private=false"]).unwrap();
        assert!(!s.policy.allow_private);
    }
}
