//! `mcp-web check URL…`: what the floor would say about each URL — its shape and port,
//! then every address its name resolves to with the guard's verdict — without fetching
//! anything. The verdicts are the guard's own ([`Policy::check_port`],
//! [`Policy::decide`], with this machine's own addresses), so `check` and a fetch
//! cannot disagree about an address.

use std::io::{self, Write};
use std::net::IpAddr;
use std::process::ExitCode;

use mcp_web_core::guard::Policy;
use mcp_web_core::transport::{OwnAddrs, Resolve, SystemResolver};
use mcp_web_core::url::{CheckedUrl, redact};

use crate::cli::options::ConfigArgs;
use crate::cli::output;

/// What `check` says in its help about the limits of the answer.
pub const ABOUT: &str = "Check URLs against the floor without fetching them: the shape, then every address the name resolves to now, with the guard's verdict";

/// The long help.
pub const LONG_ABOUT: &str = "\
Check URLs against the floor without fetching them.

For each URL: the shape verdict (scheme, credentials, host spelling, port), then every
address its host name resolves to right now, each with the guard's verdict and, when
refused, the rule, the RFC and the configuration key that would permit it.

This is advice, not the check that protects a fetch: fetching checks the address of
the socket actually connected, not this resolution. A name may resolve differently a
moment later (DNS rebinding); the fetch is judged on the peer it really reaches.

Exit status: 0 when every address of every URL is allowed; 1 when any URL is refused
on its shape, does not resolve, or has a refused address; 2 on a usage or
configuration error.";

/// Arguments of `mcp-web check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The URLs to check.
    #[arg(value_name = "URL", required = true)]
    pub urls: Vec<String>,

    /// The configuration whose policy judges the addresses.
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Runs `mcp-web check` with the system resolver, writing to stdout.
pub fn exec(args: &CheckArgs) -> ExitCode {
    let (settings, runtime) = match super::settings_and_runtime(&args.config) {
        Ok(both) => both,
        Err(code) => return code,
    };
    let mut out = output::stdout();
    let own = OwnAddrs::system().current();
    let result = runtime.block_on(check(
        &args.urls,
        &settings.policy,
        &SystemResolver,
        &own,
        &mut out,
    ));
    super::report_status(result)
}

/// Checks every URL and writes the report to `out`. Returns true when every address
/// of every URL is allowed. Names are resolved only through `resolver`; IP literals
/// are not resolved. `this_host` holds this machine's own addresses, refused as the
/// guard refuses them.
pub async fn check(
    urls: &[String],
    policy: &Policy,
    resolver: &dyn Resolve,
    this_host: &[IpAddr],
    out: &mut dyn Write,
) -> io::Result<bool> {
    let mut refused = 0usize;
    for raw in urls {
        if !check_one(raw, policy, resolver, this_host, out).await? {
            refused += 1;
        }
    }
    if refused == 0 {
        writeln!(out, "ok: every address of every URL is allowed.")?;
    } else {
        writeln!(
            out,
            "refused: {refused} of {} URL{} refused on shape, unresolved, or with a refused address.",
            urls.len(),
            if urls.len() == 1 { "" } else { "s" }
        )?;
    }
    Ok(refused == 0)
}

/// Checks one URL; true when its shape passes and every address is allowed.
async fn check_one(
    raw: &str,
    policy: &Policy,
    resolver: &dyn Resolve,
    this_host: &[IpAddr],
    out: &mut dyn Write,
) -> io::Result<bool> {
    writeln!(out, "{}", redact(raw))?;
    let url = match CheckedUrl::parse(raw) {
        Ok(url) => url,
        Err(e) => {
            writeln!(out, "  shape: {e}")?;
            return Ok(false);
        }
    };
    if let Err(reason) = policy.check_port(url.port()) {
        let refusal = mcp_web_core::error::BadUrl {
            url: url.to_string(),
            reason,
        };
        writeln!(out, "  shape: {refusal}")?;
        return Ok(false);
    }
    writeln!(
        out,
        "  shape: ok, {url} (host {}, port {})",
        url.host(),
        url.port()
    )?;
    let addresses = match url.ip() {
        Some(ip) => vec![ip],
        None => match resolver.resolve(url.host()).await {
            Ok(addrs) if !addrs.is_empty() => {
                let n = addrs.len();
                writeln!(
                    out,
                    "  {} resolves to {n} address{}:",
                    url.host(),
                    if n == 1 { "" } else { "es" }
                )?;
                addrs
            }
            Ok(_) => {
                writeln!(
                    out,
                    "  {} did not resolve: no addresses. A fetch would fail; no configuration key changes this.",
                    url.host()
                )?;
                return Ok(false);
            }
            Err(e) => {
                writeln!(
                    out,
                    "  {} did not resolve ({e}). A fetch would fail; no configuration key changes this.",
                    url.host()
                )?;
                return Ok(false);
            }
        },
    };
    let mut all_allowed = true;
    for address in addresses {
        match policy.decide(url.host(), address, this_host) {
            Ok(allowed) => writeln!(out, "  {address}: {allowed}")?,
            Err(blocked) => {
                all_allowed = false;
                writeln!(out, "  {address}: {blocked}")?;
            }
        }
    }
    Ok(all_allowed)
}
