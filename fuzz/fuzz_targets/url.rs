//! Fuzzes URL shape checking: `CheckedUrl::parse`, `CheckedUrl::join` and `redact`
//! never panic; whatever they accept is http(s) without userinfo, at most 8 KiB, parses
//! back to itself, and has a host that is ASCII as written or punycode; `redact` quotes
//! at most about 200 characters and never a `data:` payload. Run with `cargo fuzz run
//! url` from the repository root.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_web_core::url::{CheckedUrl, redact};

fn assert_sound(u: &CheckedUrl) {
    assert!(matches!(u.url().scheme(), "http" | "https"), "{u}");
    assert!(u.url().username().is_empty() && u.url().password().is_none(), "{u}");
    assert!(!u.host().is_empty() && u.port() != 0, "{u}");
    assert_eq!(CheckedUrl::parse(u.as_str()).as_ref(), Ok(u));
    assert!(u.as_str().len() <= mcp_web_core::error::MAX_URL_BYTES, "{u}");
    assert!(u.host().is_ascii(), "{u}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let shown = redact(text);
    assert!(shown.chars().count() <= 201, "{shown}");
    if text.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("data:")) {
        assert_eq!(shown.chars().count(), 6, "{shown}");
    }
    // The first line is a URL; the rest, when present, a redirect Location.
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    if let Ok(u) = CheckedUrl::parse(first) {
        assert_sound(&u);
        if let Ok(next) = u.join(rest) {
            assert_sound(&next);
        }
    }
    if let Ok(base) = CheckedUrl::parse("https://a.example/dir/page?q") {
        if let Ok(next) = base.join(text) {
            assert_sound(&next);
        }
    }
});
