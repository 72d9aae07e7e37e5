//! `mcp-web fetch URL`: fetches one page through the floor and prints exactly what
//! the `web_fetch` tool answers: the same operation, [`ops::fetch`].

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use mcp_web_core::config::Settings;
use mcp_web_core::error::{ConfigError, Error};
use mcp_web_core::transport::{Resolve, SystemResolver};
use tokio_util::sync::CancellationToken;

use crate::cli::options::ConfigArgs;
use crate::cli::output;
use crate::ops::{self, Context};

/// The one-line help.
pub const ABOUT: &str = "Fetch one page through the floor and print exactly what web_fetch answers";

/// The long help.
pub const LONG_ABOUT: &str = "\
Fetch one page through the floor and print exactly what web_fetch answers: a '# Title'
line, 'Retrieved from <final url>' when a redirect moved the page, then the text. A page
cut short by max-bytes, max-chars or a deadline ends with a '[truncated: …]' line.

Every hop is checked as web_fetch checks it: the URL's shape, then the address of the
socket actually connected, before a byte is written to it. The environment's proxy
variables are never read; only the proxy key is used.

Exit status: 0 with the page on stdout; 1 when the fetch is refused or fails (the
teaching message on stderr); 2 on a usage or configuration error.";

/// Arguments of `mcp-web fetch`.
#[derive(Debug, clap::Args)]
pub struct FetchArgs {
    /// The http or https URL to fetch.
    #[arg(value_name = "URL")]
    pub url: String,

    /// The configuration of the floor and the fetch.
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Runs `mcp-web fetch` with the system resolver, writing the answer to stdout.
pub fn exec(args: &FetchArgs) -> ExitCode {
    let (settings, runtime) = match super::settings_and_runtime(&args.config) {
        Ok(both) => both,
        Err(code) => return code,
    };
    let answer = runtime.block_on(async {
        let cancel = super::cancel_on_interrupt();
        fetch(&args.url, &settings, Arc::new(SystemResolver), &cancel).await
    });
    match answer {
        Ok(text) => {
            let mut out = output::stdout();
            super::answer_status(writeln!(out, "{text}").and_then(|()| out.flush()))
        }
        Err(Failure::Config(e)) => super::failed(e, 2),
        Err(Failure::Fetch(e)) => super::failed(e, 1),
    }
}

/// Why `fetch` produced no page.
#[derive(Debug)]
pub enum Failure {
    /// The configuration cannot build a fetcher (an unreadable `ca-file`, a bad `proxy`).
    Config(ConfigError),
    /// The fetch was refused or failed.
    Fetch(Error),
}

/// Fetches `raw` through the context `settings` describe (names resolved by
/// `resolver`) with [`ops::fetch`], the operation `web_fetch` runs, and renders the page
/// as `web_fetch` answers it, `max-chars` applied.
pub async fn fetch(
    raw: &str,
    settings: &Settings,
    resolver: Arc<dyn Resolve>,
    cancel: &CancellationToken,
) -> Result<String, Failure> {
    let context = Context::with_resolver(settings.clone(), resolver).map_err(Failure::Config)?;
    let call = context.allowance(cancel.clone());
    let fetched = ops::fetch::fetch(&context, raw, &call, &())
        .await
        .map_err(Failure::Fetch)?;
    Ok(fetched.text.render(context.max_chars(), "mcp-web grep"))
}
