//! The files in `examples/`: the research server config is read by the server's own
//! strict readers (the kit's server config, the Web pack's keys), and every host config
//! starts `mcp-web serve --config` on a config of that name.

use std::path::PathBuf;

use mcp_kit::{FromConfig, ServerConfig};
use mcp_web::tools::Web;
use serde_json::Value;

/// The repository's `examples/` directory.
fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// The JSON file `name` of `examples/`.
fn read(name: &str) -> Value {
    let path = examples().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

#[test]
fn the_research_config_is_accepted_by_the_server() {
    let config = ServerConfig::parse(&read("research.json")).expect("a valid server config");
    assert_eq!(config.name.as_deref(), Some("research"));
    let web = config.pack("Web").expect("a Web pack");
    let pack = Web::from_config(&Value::Object(web.clone())).expect("valid Web keys");
    let settings = pack.settings();
    assert!(settings.crawl.respect_robots);
    assert!(settings.crawl.crawl_delay.as_secs_f64() >= 0.5);
    assert!(!settings.policy.allow_private && !settings.policy.allow_loopback);
}

#[test]
fn every_host_config_serves_the_research_config() {
    for name in [
        "claude-code.mcp.json",
        "claude_desktop_config.json",
        "cursor.mcp.json",
    ] {
        let host = read(name);
        let server = &host["mcpServers"]["web"];
        assert!(
            server["command"]
                .as_str()
                .is_some_and(|c| c.ends_with("mcp-web")),
            "{name}"
        );
        let args: Vec<&str> = server["args"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        assert_eq!(args.first(), Some(&"serve"), "{name}");
        assert!(
            args.windows(2)
                .any(|w| w[0] == "--config" && w[1].ends_with("research.json")),
            "{name}: {args:?}"
        );
    }
}
