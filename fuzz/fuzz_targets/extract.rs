//! Fuzzes extraction: `extract` never panics on any bytes under any content type, its lines
//! hold no line breaks, its links are absolute http(s) URLs without fragments, and the same
//! body always gives the same result. Run with `cargo fuzz run extract` from the repository
//! root.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_web_core::extract::extract;

const TYPES: &[&str] = &[
    "text/html",
    "text/plain",
    "application/json",
    "application/rss+xml",
    "text/csv",
    "",
];

fuzz_target!(|data: &[u8]| {
    // The first byte picks the content type; the rest is the body.
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let content_type = TYPES[usize::from(pick) % TYPES.len()];
    let body = String::from_utf8_lossy(body);
    let Ok(base) = url::Url::parse("https://fuzz.example/dir/page?q=1") else {
        return;
    };
    let out = extract(&body, content_type, &base);
    for line in &out.lines {
        assert!(!line.contains('\n'), "a line holds a line break: {line:?}");
    }
    for link in &out.links {
        assert!(matches!(link.scheme(), "http" | "https"), "{link}");
        assert!(link.fragment().is_none(), "{link}");
    }
    assert_eq!(extract(&body, content_type, &base), out, "unstable");
});
