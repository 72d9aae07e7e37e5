//! Prints what the extractor makes of a local file: the title, the flags on stderr, then the
//! text, for looking at one page while working on the extractor.
//!
//! Usage: `extract_file FILE [CONTENT_TYPE] [URL]` (defaults: `text/html` and
//! `https://example.invalid/`). The bytes are read as UTF-8, invalid sequences replaced.

use mcp_web_core::extract::extract;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(file) = args.next() else {
        return Err("usage: extract_file FILE [CONTENT_TYPE] [URL]".into());
    };
    let content_type = args.next().unwrap_or_else(|| "text/html".to_owned());
    let base = url::Url::parse(
        &args
            .next()
            .unwrap_or_else(|| "https://example.invalid/".into()),
    )?;
    let body = String::from_utf8_lossy(&std::fs::read(file)?).into_owned();
    let out = extract(&body, &content_type, &base);
    #[expect(clippy::print_stderr, reason = "the example's report")]
    {
        eprintln!("title: {:?}\nflags: {:?}", out.title, out.flags);
    }
    #[expect(clippy::print_stdout, reason = "the example's output")]
    {
        println!("{}", out.text());
    }
    Ok(())
}
