//! This machine's own addresses, as the guard needs them: the addresses of its network
//! interfaces (read with `if-addrs`), cached and refreshed at most every few seconds.
//!
//! A peer that is one of them is "this host" to the guard: a service bound to
//! `0.0.0.0` or `[::]` answers there just as it does on loopback.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long one reading of the interfaces is trusted.
const REFRESH: Duration = Duration::from_secs(5);

/// Where the addresses come from.
#[derive(Debug)]
enum Source {
    /// The operating system's interfaces.
    System,
    /// A fixed list (tests).
    Fixed(Arc<[IpAddr]>),
}

/// This machine's interface addresses, read once and refreshed when older than a few
/// seconds. Cheap to share: one per transport.
#[derive(Debug)]
pub struct OwnAddrs {
    source: Source,
    cache: Mutex<Option<(Instant, Arc<[IpAddr]>)>>,
}

impl OwnAddrs {
    /// The operating system's interfaces.
    pub fn system() -> OwnAddrs {
        OwnAddrs {
            source: Source::System,
            cache: Mutex::new(None),
        }
    }

    /// A fixed list, standing in for the interfaces (tests).
    pub fn fixed(addrs: impl IntoIterator<Item = IpAddr>) -> OwnAddrs {
        OwnAddrs {
            source: Source::Fixed(addrs.into_iter().collect()),
            cache: Mutex::new(None),
        }
    }

    /// The addresses now: the cached reading, or a fresh one when it is older than a
    /// few seconds. A failed reading counts as no address (the socket's local address
    /// is still checked, and loopback is refused by its class).
    pub fn current(&self) -> Arc<[IpAddr]> {
        match &self.source {
            Source::Fixed(list) => Arc::clone(list),
            Source::System => {
                let mut cache = match self.cache.lock() {
                    Ok(guard) => guard,
                    Err(poisoned) => poisoned.into_inner(),
                };
                if let Some((read, list)) = cache.as_ref()
                    && read.elapsed() < REFRESH
                {
                    return Arc::clone(list);
                }
                let list: Arc<[IpAddr]> = if_addrs::get_if_addrs()
                    .map(|ifaces| ifaces.iter().map(if_addrs::Interface::ip).collect())
                    .unwrap_or_default();
                *cache = Some((Instant::now(), Arc::clone(&list)));
                list
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_list_holds_loopback_and_is_cached() {
        let own = OwnAddrs::system();
        let first = own.current();
        assert!(
            first.iter().any(IpAddr::is_loopback),
            "the interfaces include loopback: {first:?}"
        );
        // Within the refresh interval the same reading is returned.
        assert!(Arc::ptr_eq(&first, &own.current()));
    }

    #[test]
    fn a_fixed_list_is_returned_as_given() {
        let a: IpAddr = "203.0.113.9".parse().unwrap();
        assert_eq!(&*OwnAddrs::fixed([a]).current(), &[a]);
    }
}
