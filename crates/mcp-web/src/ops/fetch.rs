//! Fetch one page and lay it out as the text `web_fetch` answers.

use mcp_web_core::error::Error;
use mcp_web_core::fetch::{Allowance, Page};
use mcp_web_core::page::PageText;
use mcp_web_core::url::CheckedUrl;

use super::{Context, Observer};

/// A fetched page and its text.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The page as fetched: final URL, status, bytes, what cut it.
    pub page: Page,
    /// Its text as numbered lines.
    pub text: PageText,
}

/// Fetches `raw_url` within `call` through the floor and extracts it once, reporting
/// the start, the arrival and the end to `observer`.
pub async fn fetch(
    context: &Context,
    raw_url: &str,
    call: &Allowance,
    observer: &dyn Observer,
) -> Result<Fetched, Error> {
    let url = CheckedUrl::parse(raw_url)?;
    observer.progress(0.0, Some(2.0), &format!("fetching {url}"));
    let page = context.fetcher().fetch_within(&url, call).await?;
    observer.progress(
        1.0,
        Some(2.0),
        &format!("received {} bytes from {}", page.bytes, page.final_url),
    );
    let (page, text) = PageText::extract_in(page, call).await?;
    observer.progress(2.0, Some(2.0), "done");
    Ok(Fetched { page, text })
}
