//! Fuzzes the robots.txt parser and matcher: `Robots::parse`, `check`, `crawl_delay`
//! and `sitemaps` never panic on any bytes, and a verdict is internally consistent.
//! Run with `cargo fuzz run robots` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_web_core::robots::{Reason, Robots};

fuzz_target!(|data: &[u8]| {
    // The first line is the path to check; the rest is robots.txt.
    let (path, robots) = match data.iter().position(|&b| b == b'\n') {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&b"/"[..], data),
    };
    let path = String::from_utf8_lossy(path);
    let robots = Robots::parse(robots);
    for agent in ["mcp-web", "*", "", "FooBot"] {
        let verdict = robots.check(agent, &path);
        let _ = verdict.to_string();
        let _ = robots.crawl_delay(agent);
        // Only a Disallow line disallows a parsed file.
        let disallowing_rule = matches!(verdict.reason(), Reason::Rule { allow: false, .. });
        assert_eq!(verdict.is_allowed(), !disallowing_rule, "{verdict}");
        assert_eq!(
            verdict.refusal("https://a.example/", agent).is_some(),
            !verdict.is_allowed()
        );
    }
    let _ = robots.sitemaps().len();
});
