//! The resolver seam: the system resolver in production, a fixed map in tests.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The future a [`Resolve`] implementation returns: the addresses of a name.
pub type Resolving<'a> = Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send + 'a>>;

/// Turns a host name into its addresses. The transport asks it once per new
/// connection; every address it answers is classified by the guard before any is
/// connected to, so a resolver can never steer the floor onto a refused address.
pub trait Resolve: Send + Sync + 'static {
    /// The addresses of `host` (a name, never an IP literal), in preference order.
    fn resolve<'a>(&'a self, host: &'a str) -> Resolving<'a>;
}

/// The operating system's resolver (`getaddrinfo` through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve<'a>(&'a self, host: &'a str) -> Resolving<'a> {
        Box::pin(async move {
            #[expect(
                clippy::disallowed_methods,
                reason = "the resolver seam is the one place names are resolved"
            )]
            let addrs = tokio::net::lookup_host((host, 0)).await?;
            let mut out: Vec<IpAddr> = Vec::new();
            for addr in addrs {
                if !out.contains(&addr.ip()) {
                    out.push(addr.ip());
                }
            }
            if out.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("{host} has no addresses"),
                ));
            }
            Ok(out)
        })
    }
}

/// A fixed name → addresses map, for tests: "this name resolves to loopback" and DNS
/// rebinding ("a permitted address first, a refused one next") without touching
/// `/etc/hosts` or the network.
///
/// Each name holds a list of answers; successive lookups take them in order and the
/// last one repeats. A name not in the map fails as an unknown host. Every lookup is
/// counted, so a test can prove a pooled connection was reused without resolving.
#[derive(Debug, Default)]
pub struct StaticResolver {
    answers: Mutex<HashMap<String, Answers>>,
    lookups: AtomicUsize,
}

#[derive(Debug)]
struct Answers {
    queue: Vec<Vec<IpAddr>>,
    next: usize,
}

impl StaticResolver {
    /// An empty map: every name fails to resolve.
    pub fn new() -> Self {
        Self::default()
    }

    /// Maps `host` to `addrs` for every lookup (replacing earlier answers).
    pub fn with(self, host: &str, addrs: impl IntoIterator<Item = IpAddr>) -> Self {
        self.answers_for(host, vec![addrs.into_iter().collect()])
    }

    /// Maps `host` to a sequence of answers: the first lookup gets the first, the
    /// next lookup the second, and the last answer repeats.
    pub fn answers_for(self, host: &str, answers: Vec<Vec<IpAddr>>) -> Self {
        if let Ok(mut map) = self.answers.lock() {
            map.insert(
                host.to_ascii_lowercase(),
                Answers {
                    queue: answers,
                    next: 0,
                },
            );
        }
        self
    }

    /// How many lookups have been made, of any name.
    pub fn lookups(&self) -> usize {
        self.lookups.load(Ordering::SeqCst)
    }

    fn answer(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        let mut map = self
            .answers
            .lock()
            .map_err(|_| io::Error::other("static resolver poisoned"))?;
        let unknown = || {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("{host} is not in the static resolver"),
            )
        };
        let answers = map
            .get_mut(&host.to_ascii_lowercase())
            .ok_or_else(unknown)?;
        let index = answers.next.min(answers.queue.len().saturating_sub(1));
        answers.next = answers.next.saturating_add(1);
        let addrs = answers.queue.get(index).cloned().ok_or_else(unknown)?;
        if addrs.is_empty() {
            return Err(unknown());
        }
        Ok(addrs)
    }
}

impl Resolve for StaticResolver {
    fn resolve<'a>(&'a self, host: &'a str) -> Resolving<'a> {
        let answer = self.answer(host);
        Box::pin(async move { answer })
    }
}

impl<R: Resolve> Resolve for std::sync::Arc<R> {
    fn resolve<'a>(&'a self, host: &'a str) -> Resolving<'a> {
        (**self).resolve(host)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn v4(a: u8, b: u8, c: u8, d: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(a, b, c, d))
    }

    #[tokio::test]
    async fn static_answers_in_order_then_repeats_the_last() {
        let r = StaticResolver::new().answers_for(
            "Rebind.Test",
            vec![vec![v4(127, 0, 0, 2)], vec![v4(10, 0, 0, 1)]],
        );
        assert_eq!(r.resolve("rebind.test").await.unwrap(), [v4(127, 0, 0, 2)]);
        assert_eq!(r.resolve("rebind.test").await.unwrap(), [v4(10, 0, 0, 1)]);
        assert_eq!(r.resolve("REBIND.test").await.unwrap(), [v4(10, 0, 0, 1)]);
        assert_eq!(r.lookups(), 3);
    }

    #[tokio::test]
    async fn static_unknown_name_is_not_found() {
        let r = StaticResolver::new().with("a.test", [v4(127, 0, 0, 1)]);
        let err = r.resolve("b.test").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        let empty = StaticResolver::new().with("e.test", []);
        assert!(empty.resolve("e.test").await.is_err());
        assert_eq!(r.lookups(), 1);
    }

    #[tokio::test]
    async fn system_resolver_resolves_localhost_to_loopback() {
        let addrs = SystemResolver.resolve("localhost").await.unwrap();
        assert!(!addrs.is_empty());
        assert!(addrs.iter().all(IpAddr::is_loopback), "{addrs:?}");
    }
}
