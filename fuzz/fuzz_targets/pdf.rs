//! Fuzzes the PDF reader: `extract::pdf::read` never panics and never overflows the stack
//! on any bytes, whether they start as a PDF or not; what it reads opens with the
//! `[page 1]` marker, numbers its pages in order, and the same file always reads the same.
//! A panic inside the PDF crate is one `read` contains by design (the page is left out,
//! or the file is unreadable), so the harness lets it unwind to `read`'s `catch_unwind`;
//! any other panic, ours, aborts as a finding.
//! Each input is read as it is and behind a `%PDF-1.7` header, so the reader's own parser
//! (past the header check) sees arbitrary bytes too. Run with `cargo fuzz run pdf` from the
//! repository root.
#![no_main]

use std::sync::Once;

use libfuzzer_sys::fuzz_target;
use mcp_web_core::extract::pdf::{Limits, page_marker, panic_is_contained, read};

/// Wraps libFuzzer's panic hook (which aborts) so that it passes over the panics
/// `read` contains.
fn pass_over_contained_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let finding = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !panic_is_contained() {
                finding(info);
            }
        }));
    });
}

fuzz_target!(|data: &[u8]| {
    pass_over_contained_panics();
    let limits = Limits::new(1 << 20, None);
    let mut headed = b"%PDF-1.7\n".to_vec();
    headed.extend_from_slice(data);
    headed.extend_from_slice(b"\n%%EOF\n");
    for file in [data, headed.as_slice()] {
        let first = read(file, &limits);
        if let Ok(text) = &first {
            assert!(text.text.starts_with(&page_marker(1)), "{:?}", text.text);
            let markers = text.text.lines().filter(|l| l.starts_with("[page ")).count();
            assert!(markers >= text.pages, "{} markers for {} pages", markers, text.pages);
        }
        assert_eq!(first, read(file, &limits));
    }
});
