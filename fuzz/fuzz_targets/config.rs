//! Fuzzes the Web pack's configuration reader: `parse_web_config` never panics on any
//! JSON value; it is deterministic; an error names a key the input holds (an unknown
//! key, or a known key whose type or value is refused); an accepted configuration
//! holds `max-bytes` in the fetch's options as written; and an `api-key` never shows in an error or in
//! the settings' `Debug`. Input starting with `{` is JSON text; any other input builds
//! an object over the real keys (each entry: a byte picking the key, a byte picking the
//! value's shape, then the value's bytes up to a NUL). Run with
//! `cargo fuzz run config` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_web_core::config::{KEYS, parse_web_config};
use mcp_web_core::error::ConfigError;
use serde_json::{Map, Value, json};

/// A value of the shape `shape` from `bytes`.
fn value(shape: u8, bytes: &[u8]) -> Value {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let number = text.trim().parse::<f64>().ok();
    match shape % 9 {
        0 => Value::Null,
        1 => json!(bytes.first().is_some_and(|b| b % 2 == 0)),
        2 => number.and_then(serde_json::Number::from_f64).map_or(json!(0), Value::Number),
        3 => json!(text.trim().parse::<i64>().unwrap_or(i64::from(bytes.len() as u32))),
        4 => json!(text),
        5 => Value::Array(text.split(',').map(|part| json!(part)).collect()),
        6 => json!([1, "two", null]),
        7 => json!({ "nested": text }),
        _ => json!(-(bytes.len() as i64)),
    }
}

/// An object over the real keys (and some unknown ones) from `data`.
fn structured(data: &[u8]) -> Value {
    let mut map = Map::new();
    let mut rest = data;
    while let [pick, shape, tail @ ..] = rest {
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        let name = match KEYS.get(usize::from(*pick) % (KEYS.len() + 2)) {
            Some(key) => key.name().to_owned(),
            None => format!("unknown-{pick}"),
        };
        map.insert(name, value(*shape, &tail[..end]));
        rest = tail.get(end + 1..).unwrap_or_default();
    }
    Value::Object(map)
}

/// Whether the api-key's text `secret`, found in what `text` makes of `input`, is that
/// text's own words (a key or field name, say) rather than the key leaking: the same input
/// with another api-key of the same length gives a text that holds it too.
fn own_words(input: &Value, secret: &str, text: impl Fn(&Value) -> String) -> bool {
    let mut masked = input.clone();
    masked["api-key"] = json!("Z".repeat(secret.chars().count()));
    text(&masked).contains(secret)
}

fuzz_target!(|data: &[u8]| {
    let input = if data.first() == Some(&b'{') {
        match serde_json::from_slice::<Value>(data) {
            Ok(value) => value,
            Err(_) => return,
        }
    } else {
        structured(data)
    };
    let parsed = parse_web_config(&input);
    assert_eq!(parsed, parse_web_config(&input), "deterministic");
    let map = input.as_object();
    // A secret worth looking for: an api-key string found nowhere else in the input.
    let secret = map
        .and_then(|m| m.get("api-key"))
        .and_then(Value::as_str)
        .filter(|s| s.len() >= 8)
        .filter(|s| {
            let mut others = map.cloned().unwrap_or_default();
            others.remove("api-key");
            !Value::Object(others).to_string().contains(*s) && !"the Web pack".contains(*s)
        })
        .map(str::to_owned);
    match &parsed {
        Ok(settings) => {
            // The fetch's own options hold max-bytes as written (saturated to usize).
            if let Some(n) = map.and_then(|m| m.get("max-bytes")).and_then(Value::as_u64) {
                assert_eq!(settings.fetch.max_bytes, usize::try_from(n).unwrap_or(usize::MAX));
            }
            if let Some(secret) = &secret {
                let shown = format!("{settings:?}");
                let own = own_words(&input, secret, |v| {
                    parse_web_config(v).map_or_else(|_| String::new(), |s| format!("{s:?}"))
                });
                assert!(own || !shown.contains(secret.as_str()), "the api-key leaked: {shown}");
            }
        }
        Err(error) => {
            let message = error.to_string();
            assert!(!message.is_empty());
            match error {
                ConfigError::UnknownKeys { unknown, valid, .. } => {
                    assert!(!unknown.is_empty());
                    for name in unknown {
                        assert!(!valid.contains(&name.as_str()), "{name}");
                        assert!(map.is_some_and(|m| m.contains_key(name)), "{name}");
                    }
                }
                ConfigError::Type { key, .. } | ConfigError::Value { key, .. } => {
                    assert!(KEYS.iter().any(|k| k.name() == key), "{key}");
                    assert!(map.is_some_and(|m| m.contains_key(key)), "{key}");
                    assert!(message.contains(&format!("\"{key}\"")), "{message}");
                }
                ConfigError::Syntax { .. } => assert!(map.is_none(), "{message}"),
                _ => {}
            }
            if let Some(secret) = &secret {
                let own = own_words(&input, secret, |v| {
                    parse_web_config(v).err().map(|e| e.to_string()).unwrap_or_default()
                });
                assert!(
                    own || !message.contains(secret.as_str()),
                    "the api-key leaked: {message}"
                );
            }
        }
    }
});
