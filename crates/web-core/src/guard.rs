//! The address policy and its one ordered decision function.
//!
//! [`Policy`] holds the escape hatches of the floor (`allow-private`, `allow-loopback`,
//! `allow-hosts`, `allow-cidrs`), the operator's NAT64 prefixes and the bad ports it
//! re-opens; [`Policy::decide`] is the only place an address is judged, and
//! [`Policy::check_port`] the only place a port is. Both are pure: the transport calls
//! them with the host written in the URL, the address of the socket it actually opened
//! and this machine's own addresses (its interfaces and the socket's local address).
//!
//! ```
//! use mcp_web_core::guard::{Allowed, Policy};
//!
//! let policy = Policy::default();
//! let refused = policy.decide("10.1.2.3", "10.1.2.3".parse().unwrap(), &[]).unwrap_err();
//! assert_eq!(refused.class().id(), "private");
//! assert_eq!(refused.key(), Some(mcp_web_core::key::ConfigKey::AllowPrivate));
//!
//! let policy = Policy { allow_cidrs: vec!["10.0.0.0/8".parse().unwrap()], ..Policy::default() };
//! assert!(matches!(policy.decide("10.1.2.3", "10.1.2.3".parse().unwrap(), &[]), Ok(Allowed::AllowCidr(_))));
//! ```

use std::fmt;
use std::net::IpAddr;

use ipnet::{IpNet, Ipv6Net};

use crate::addr::{self, Class, Classification, Reach};
use crate::error::{BadUrlReason, Blocked};
use crate::key::ConfigKey;

/// What a one-time [`Grant`] opens, as the switch it stands in for.
pub use crate::addr::Scope;

/// The address policy: which non-public addresses the floor may connect to.
///
/// The default refuses every address that is not public.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// `allow-private`: permit every non-public class a machine can have (private,
    /// shared, link-local, loopback, unique-local, site-local, benchmarking, …), never
    /// cloud metadata.
    pub allow_private: bool,
    /// `allow-loopback`: permit loopback addresses only.
    pub allow_loopback: bool,
    /// `allow-hosts`: exact lowercase host names permitted whatever they resolve to.
    pub allow_hosts: Vec<String>,
    /// `allow-cidrs`: blocks permitted whatever their class, matched against the peer;
    /// a peer carrying an IPv4 address matches IPv4 blocks only, through that address.
    pub allow_cidrs: Vec<IpNet>,
    /// `nat64-prefixes`: network-specific NAT64 /96 prefixes whose addresses are also
    /// judged by the IPv4 address they carry.
    pub nat64_prefixes: Vec<Ipv6Net>,
    /// `allow-ports`: ports of the Fetch standard's bad-port list permitted anyway.
    pub allow_ports: Vec<u16>,
}

/// The Fetch standard's bad ports (<https://fetch.spec.whatwg.org/#port-blocking>):
/// ports of protocols a browser never sends an HTTP request to, because a crafted
/// request can speak those protocols (SMTP, IRC, SIP, …). Sorted.
pub const BAD_PORTS: &[u16] = &[
    0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101,
    102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427,
    465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990,
    993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667,
    6668, 6669, 6679, 6697, 10080,
];

/// Which rule admitted an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allowed {
    /// The address is public.
    Public,
    /// `allow-loopback` admitted a loopback address.
    AllowLoopback,
    /// `allow-private` admitted a non-public address a machine can have.
    AllowPrivate,
    /// This `allow-cidrs` entry covers the address.
    AllowCidr(IpNet),
    /// `allow-hosts` names the host.
    AllowHost,
    /// A one-time [`Grant`] of this call admitted it.
    Granted,
}

impl Allowed {
    /// The configuration key that admitted the address, or `None` for a public one.
    pub fn key(&self) -> Option<ConfigKey> {
        match self {
            Allowed::Public => None,
            Allowed::AllowLoopback => Some(ConfigKey::AllowLoopback),
            Allowed::AllowPrivate => Some(ConfigKey::AllowPrivate),
            Allowed::AllowCidr(_) => Some(ConfigKey::AllowCidrs),
            Allowed::AllowHost => Some(ConfigKey::AllowHosts),
            Allowed::Granted => Some(ConfigKey::AskPermission),
        }
    }
}

impl fmt::Display for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Allowed::Public => f.write_str("allowed: public address"),
            Allowed::AllowLoopback => f.write_str("allowed by \"allow-loopback\""),
            Allowed::AllowPrivate => f.write_str("allowed by \"allow-private\""),
            Allowed::AllowCidr(net) => write!(f, "allowed by \"allow-cidrs\" entry {net}"),
            Allowed::AllowHost => f.write_str("allowed by \"allow-hosts\""),
            Allowed::Granted => f.write_str("allowed once, by a permission the user granted"),
        }
    }
}

/// The address an IPv6 peer stands for when it is IPv4-mapped (`::ffff:a.b.c.d` is the
/// IPv4 address `a.b.c.d`); any other address unchanged. Never `to_ipv4()`, which also
/// turns `::1` into `0.0.0.1`.
pub fn canonical(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(peer, IpAddr::V4),
        IpAddr::V4(_) => peer,
    }
}

impl Policy {
    /// Refuses a port of the Fetch standard's bad-port list ([`BAD_PORTS`]) unless
    /// `allow-ports` names it. Checked on the URL's effective port before any name is
    /// resolved or socket opened.
    pub fn check_port(&self, port: u16) -> Result<(), BadUrlReason> {
        if BAD_PORTS.binary_search(&port).is_ok() && !self.allow_ports.contains(&port) {
            Err(BadUrlReason::BadPort(port))
        } else {
            Ok(())
        }
    }

    /// Decides whether the floor may talk to `peer`, reached for the URL host `host`
    /// (lowercase, punycode, IPv6 without brackets). `this_host` holds this machine's
    /// own addresses: its interface addresses and the local address of the socket.
    ///
    /// The rules, in order; the first that answers decides:
    /// 1. The peer is canonicalised: an IPv4-mapped IPv6 address becomes its IPv4
    ///    address.
    /// 2. The peer is classified ([`addr::classify_with`], which also judges any IPv4
    ///    address an IPv6 address carries, through `nat64-prefixes` too). A peer that
    ///    is one of `this_host` is "this host" (it reaches the same services loopback
    ///    does), unless its class is stricter still (no machine, cloud metadata).
    /// 3. `allow-cidrs`: the peer is admitted, whatever its class, when an entry covers
    ///    it. A peer carrying an IPv4 address is matched through that address against
    ///    IPv4 blocks only, so an IPv6 block (even `::/0`) never admits a mapped,
    ///    NAT64, 6to4 or Teredo spelling of an IPv4 address; when the IPv6 address is
    ///    itself refused as well, an IPv6 block must cover it too. This is the only
    ///    key that opens a cloud metadata endpoint: an entry covering that address.
    /// 4. `allow-hosts`: an entry equal to `host` admits it, whatever its class except
    ///    cloud metadata and this host. Only the exact name matches: `corp` never admits
    ///    `wiki.corp` or `evil.com.corp`.
    /// 5. A public address is admitted.
    /// 6. `allow-loopback` admits a loopback address and this host.
    /// 7. `allow-private` admits every class a machine can have, loopback and this
    ///    host included; never cloud metadata.
    /// 8. Everything else is refused: the [`Blocked`] names the class, the block, its
    ///    RFC, and the key that would permit it (`allow-loopback` for loopback and this
    ///    host, `allow-private` for the other machine classes, none for classes no
    ///    machine can be — multicast, broadcast, unspecified, reserved, documentation —
    ///    and for cloud metadata, which only a covering `allow-cidrs` entry opens).
    pub fn decide(
        &self,
        host: &str,
        peer: IpAddr,
        this_host: &[IpAddr],
    ) -> Result<Allowed, Blocked> {
        let canonical = canonical(peer);
        let mut classification = addr::classify_with(canonical, &self.nat64_prefixes);
        let own = this_host.iter().any(|a| canonical_eq(*a, canonical));
        if own && matches!(classification.reach(), Reach::Public | Reach::Machine) {
            classification = Classification {
                entry: Some(&addr::THIS_HOST),
                via: None,
            };
        }
        if let Some(net) = self.covering_cidr(canonical, &classification) {
            return Ok(Allowed::AllowCidr(net));
        }
        let class = classification.class();
        if class != Class::CloudMetadata
            && class != Class::ThisHost
            && self
                .allow_hosts
                .iter()
                .any(|allowed| !allowed.is_empty() && allowed.eq_ignore_ascii_case(host))
        {
            return Ok(Allowed::AllowHost);
        }
        match classification.reach() {
            Reach::Public => return Ok(Allowed::Public),
            Reach::Loopback if self.allow_loopback => return Ok(Allowed::AllowLoopback),
            Reach::Loopback | Reach::Machine if self.allow_private => {
                return Ok(Allowed::AllowPrivate);
            }
            Reach::Loopback | Reach::Machine | Reach::NoMachine | Reach::Metadata => {}
        }
        // Only a public address has no row, and it was admitted above.
        Blocked::new(host, peer, &classification).map_or(Ok(Allowed::Public), Err)
    }

    /// The `allow-cidrs` entry that admits `peer` (canonical), if any: every address
    /// that would refuse it — the IPv4 addresses it carries, and the IPv6 address
    /// itself when it is refused or carries nothing — must be covered, each by a
    /// block of its own family. The entry named is the one covering the address that
    /// decided the classification.
    fn covering_cidr(&self, peer: IpAddr, classification: &Classification) -> Option<IpNet> {
        if self.allow_cidrs.is_empty() {
            return None;
        }
        let points: Vec<IpAddr> = match peer {
            IpAddr::V4(_) => vec![peer],
            IpAddr::V6(_) if classification.class() == Class::ThisHost => vec![peer],
            IpAddr::V6(v6) => {
                let carried = addr::carried(v6, &self.nat64_prefixes);
                let mut points: Vec<IpAddr> = carried
                    .iter()
                    .map(|e| IpAddr::V4(e.v4))
                    .filter(|v4| addr::lookup(*v4).is_some_and(|e| e.refused_by_default()))
                    .collect();
                let own_refused = addr::lookup(peer).is_some_and(|e| e.refused_by_default());
                if own_refused || carried.is_empty() {
                    points.push(peer);
                }
                points
            }
        };
        let cover = |point: &IpAddr| self.allow_cidrs.iter().find(|net| net.contains(point));
        if points.is_empty() || !points.iter().all(|p| cover(p).is_some()) {
            return None;
        }
        let decisive = classification.via.map_or(peer, |e| IpAddr::V4(e.v4));
        cover(&decisive)
            .or_else(|| points.first().and_then(cover))
            .copied()
    }
}

/// Whether two addresses are the same once IPv4-mapped spellings are unwrapped.
fn canonical_eq(a: IpAddr, b: IpAddr) -> bool {
    canonical(a) == canonical(b)
}

/// A permission the user granted for one tool call: reach one host, on one port, at an
/// address that
/// `allow-loopback` or `allow-private` would permit. It never opens cloud metadata, nor
/// any class no switch opens, and belongs to the call it was granted for: it is carried
/// by that call's allowance and never enters the shared pool of connections.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Grant {
    host: String,
    port: u16,
    scope: Scope,
    address: Option<IpAddr>,
}

impl Grant {
    /// A grant to reach `host` (as the URL writes it: lowercase, punycode) on `port`
    /// (the URL's effective port) within `scope`. A redirect to another port of the
    /// same host is not covered.
    pub fn new(host: impl Into<String>, port: u16, scope: Scope) -> Grant {
        Grant {
            host: host.into(),
            port,
            scope,
            address: None,
        }
    }

    /// This grant for the one address `address` (the one the user was shown), so a
    /// name that resolves elsewhere on the retry is not covered.
    #[must_use]
    pub fn at(mut self, address: IpAddr) -> Grant {
        self.address = Some(address);
        self
    }

    /// The one address the grant is for, when it names one.
    pub fn address(&self) -> Option<IpAddr> {
        self.address
    }

    /// The port the grant is for.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The host the grant is for.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// What the grant opens.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// Whether the grant admits the peer `peer`, of reach `reach` (the class the policy
    /// refused it as), reached for the URL host `host` on `port`.
    pub fn admits(&self, host: &str, port: u16, peer: IpAddr, reach: Reach) -> bool {
        if self.host.is_empty() || !self.host.eq_ignore_ascii_case(host) || self.port != port {
            return false;
        }
        if self
            .address
            .is_some_and(|address| canonical(address) != canonical(peer))
        {
            return false;
        }
        match (reach, self.scope) {
            (Reach::Loopback, Scope::Loopback | Scope::Private) => true,
            (Reach::Machine, Scope::Private) => true,
            (Reach::Machine, Scope::Loopback)
            | (Reach::Public | Reach::NoMachine | Reach::Metadata, _) => false,
        }
    }
}

impl Policy {
    /// [`Policy::decide`], then — for an address the policy refuses — the one-time
    /// `grant` of this call, if any, for `host` on `port`. The policy's own refusal stands when the grant does
    /// not admit the address.
    pub fn decide_with(
        &self,
        host: &str,
        port: u16,
        peer: IpAddr,
        this_host: &[IpAddr],
        grant: Option<&Grant>,
    ) -> Result<Allowed, Blocked> {
        match self.decide(host, peer, this_host) {
            Err(b) if grant.is_some_and(|g| g.admits(host, port, peer, b.class().reach())) => {
                Ok(Allowed::Granted)
            }
            decided => decided,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn net(s: &str) -> IpNet {
        s.parse().unwrap()
    }

    fn private() -> Policy {
        Policy {
            allow_private: true,
            ..Policy::default()
        }
    }

    fn loopback() -> Policy {
        Policy {
            allow_loopback: true,
            ..Policy::default()
        }
    }

    fn cidrs(list: &[&str]) -> Policy {
        Policy {
            allow_cidrs: list.iter().map(|s| net(s)).collect(),
            ..Policy::default()
        }
    }

    fn hosts(list: &[&str]) -> Policy {
        Policy {
            allow_hosts: list.iter().map(|s| s.to_string()).collect(),
            ..Policy::default()
        }
    }

    /// What a verdict should be: allowed by a rule, or refused as a class with a key.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Want {
        Ok(Allowed),
        No(&'static str, Option<ConfigKey>),
    }
    use Want::{No, Ok as Yes};

    #[test]
    fn decision_table() {
        let default = Policy::default;
        #[rustfmt::skip]
        let cases: Vec<(Policy, &str, &str, Want)> = vec![
            // Public addresses pass; the rule says so.
            (default(), "example.com", "93.184.215.14", Yes(Allowed::Public)),
            (default(), "example.com", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", Yes(Allowed::Public)),
            (default(), "example.com", "::ffff:93.184.215.14", Yes(Allowed::Public)),
            // Loopback, in every spelling.
            (default(), "localhost", "127.0.0.1", No("loopback", Some(ConfigKey::AllowLoopback))),
            (default(), "localhost", "127.255.255.254", No("loopback", Some(ConfigKey::AllowLoopback))),
            (default(), "::1", "::1", No("loopback", Some(ConfigKey::AllowLoopback))),
            (default(), "::ffff:127.0.0.1", "::ffff:127.0.0.1", No("loopback", Some(ConfigKey::AllowLoopback))),
            (default(), "::ffff:7f00:1", "::ffff:7f00:1", No("loopback", Some(ConfigKey::AllowLoopback))),
            (loopback(), "localhost", "127.0.0.1", Yes(Allowed::AllowLoopback)),
            (loopback(), "::1", "::1", Yes(Allowed::AllowLoopback)),
            (loopback(), "::ffff:127.0.0.1", "::ffff:127.0.0.1", Yes(Allowed::AllowLoopback)),
            (private(), "localhost", "127.0.0.1", Yes(Allowed::AllowPrivate)),
            // ::1 is never 0.0.0.1, and 0.0.0.1 is never loopback.
            (loopback(), "x", "0.0.0.1", No("this-network", None)),
            (cidrs(&["0.0.0.0/8"]), "x", "::1", No("loopback", Some(ConfigKey::AllowLoopback))),
            // allow-loopback opens loopback only.
            (loopback(), "intranet", "10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (loopback(), "x", "169.254.169.254", No("cloud-metadata", None)),
            (loopback(), "x", "fe80::1", No("link-local", Some(ConfigKey::AllowPrivate))),
            // Private classes, and allow-private.
            (default(), "intranet", "10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (default(), "intranet", "172.16.0.1", No("private", Some(ConfigKey::AllowPrivate))),
            (default(), "intranet", "172.31.255.255", No("private", Some(ConfigKey::AllowPrivate))),
            (default(), "intranet", "192.168.1.1", No("private", Some(ConfigKey::AllowPrivate))),
            (default(), "cgnat", "100.64.0.1", No("shared", Some(ConfigKey::AllowPrivate))),
            (default(), "x", "169.254.1.1", No("link-local", Some(ConfigKey::AllowPrivate))),
            (default(), "x", "fe80::1", No("link-local", Some(ConfigKey::AllowPrivate))),
            (default(), "x", "fd12:3456::1", No("unique-local", Some(ConfigKey::AllowPrivate))),
            (default(), "fec0::1", "fec0::1", No("site-local", Some(ConfigKey::AllowPrivate))),
            (default(), "x", "198.18.0.1", No("benchmarking", Some(ConfigKey::AllowPrivate))),
            (default(), "x", "::ffff:10.0.0.1", No("private", Some(ConfigKey::AllowPrivate))),
            (private(), "intranet", "10.1.2.3", Yes(Allowed::AllowPrivate)),
            (private(), "x", "::ffff:192.168.0.1", Yes(Allowed::AllowPrivate)),
            (private(), "x", "100.64.0.1", Yes(Allowed::AllowPrivate)),
            (private(), "x", "169.254.1.1", Yes(Allowed::AllowPrivate)),
            (private(), "x", "fd12:3456::1", Yes(Allowed::AllowPrivate)),
            (private(), "fec0::1", "fec0::1", Yes(Allowed::AllowPrivate)),
            (private(), "::1", "::1", Yes(Allowed::AllowPrivate)),
            // IPv4 carried in IPv6 is judged by what it carries.
            (default(), "64:ff9b::a00:1", "64:ff9b::a00:1", No("private", Some(ConfigKey::AllowPrivate))),
            (default(), "x", "2002:c0a8:101::1", No("private", Some(ConfigKey::AllowPrivate))),
            (default(), "x", "2002:7f00:1::", No("loopback", Some(ConfigKey::AllowLoopback))),
            (default(), "x", "2001:0:4136:e378:8000:63bf:f5ff:fffe", No("private", Some(ConfigKey::AllowPrivate))),
            (default(), "x", "64:ff9b::808:808", Yes(Allowed::Public)),
            (private(), "x", "64:ff9b::a9fe:a9fe", No("cloud-metadata", None)),
            (private(), "x", "2002:a9fe:a9fe::1", No("cloud-metadata", None)),
            (private(), "x", "::ffff:169.254.169.254", No("cloud-metadata", None)),
            // allow-cidrs matches a peer carrying an IPv4 address through that address,
            // against IPv4 blocks only: an IPv6 block never admits a mapped spelling.
            (cidrs(&["10.0.0.0/8"]), "x", "::ffff:10.1.2.3", Yes(Allowed::AllowCidr(net("10.0.0.0/8")))),
            (cidrs(&["10.0.0.0/8"]), "x", "64:ff9b::a01:203", Yes(Allowed::AllowCidr(net("10.0.0.0/8")))),
            (cidrs(&["10.0.0.0/8"]), "x", "2002:a01:203::1", Yes(Allowed::AllowCidr(net("10.0.0.0/8")))),
            (cidrs(&["::ffff:10.0.0.0/104"]), "x", "::ffff:10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (cidrs(&["::/0"]), "x", "::ffff:10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (cidrs(&["::/0"]), "x", "::ffff:127.0.0.1", No("loopback", Some(ConfigKey::AllowLoopback))),
            (cidrs(&["::/0"]), "x", "::ffff:169.254.169.254", No("cloud-metadata", None)),
            (cidrs(&["::/0"]), "x", "64:ff9b::a9fe:a9fe", No("cloud-metadata", None)),
            (cidrs(&["::/0"]), "x", "2002:a00:1::", No("private", Some(ConfigKey::AllowPrivate))),
            (cidrs(&["::/0"]), "x", "2001:0:4136:e378:8000:63bf:f5ff:fffe", No("private", Some(ConfigKey::AllowPrivate))),
            (cidrs(&["::/0"]), "x", "fd12::1", Yes(Allowed::AllowCidr(net("::/0")))),
            (cidrs(&["::/0"]), "x", "fd00:ec2::254", Yes(Allowed::AllowCidr(net("::/0")))),
            (cidrs(&["0.0.0.0/0"]), "x", "fd12::1", No("unique-local", Some(ConfigKey::AllowPrivate))),
            // An IPv6 address refused by itself and for what it carries needs both.
            (cidrs(&["169.254.169.254/32"]), "x", "64:ff9b:1::a9fe:a9fe", No("cloud-metadata", None)),
            (cidrs(&["64:ff9b:1::/48"]), "x", "64:ff9b:1::a9fe:a9fe", No("cloud-metadata", None)),
            (cidrs(&["64:ff9b:1::/48", "169.254.169.254/32"]), "x", "64:ff9b:1::a9fe:a9fe", Yes(Allowed::AllowCidr(net("169.254.169.254/32")))),
            (cidrs(&["169.254.169.254/32"]), "x", "64:ff9b::a9fe:a9fe", Yes(Allowed::AllowCidr(net("169.254.169.254/32")))),
            // Cloud metadata: allow-private never opens it; an allow-cidrs entry does.
            (default(), "x", "169.254.169.254", No("cloud-metadata", None)),
            (private(), "x", "169.254.169.254", No("cloud-metadata", None)),
            (private(), "x", "169.254.170.2", No("cloud-metadata", None)),
            (private(), "x", "fd00:ec2::254", No("cloud-metadata", None)),
            (private(), "x", "100.100.100.200", No("cloud-metadata", None)),
            (private(), "x", "192.0.0.192", No("cloud-metadata", None)),
            (private(), "x", "168.63.129.16", No("cloud-metadata", None)),
            (Policy { allow_private: true, allow_loopback: true, ..cidrs(&["10.0.0.0/8"]) }, "x", "169.254.169.254", No("cloud-metadata", None)),
            (cidrs(&["169.254.169.254/32"]), "x", "169.254.169.254", Yes(Allowed::AllowCidr(net("169.254.169.254/32")))),
            (cidrs(&["169.254.169.254/32"]), "x", "169.254.170.2", No("cloud-metadata", None)),
            (cidrs(&["169.254.0.0/16"]), "x", "::ffff:169.254.169.254", Yes(Allowed::AllowCidr(net("169.254.0.0/16")))),
            // allow-cidrs permits only what it covers.
            (cidrs(&["10.0.0.0/8"]), "x", "10.255.255.255", Yes(Allowed::AllowCidr(net("10.0.0.0/8")))),
            (cidrs(&["10.0.0.0/8"]), "x", "11.0.0.0", Yes(Allowed::Public)),
            (cidrs(&["10.0.0.0/8"]), "x", "172.16.0.1", No("private", Some(ConfigKey::AllowPrivate))),
            (cidrs(&["10.0.0.0/8"]), "x", "127.0.0.1", No("loopback", Some(ConfigKey::AllowLoopback))),
            (cidrs(&["127.0.0.1/32"]), "x", "127.0.0.2", No("loopback", Some(ConfigKey::AllowLoopback))),
            // Classes no machine can be: only allow-cidrs opens them.
            (private(), "x", "224.0.0.1", No("multicast", None)),
            (private(), "x", "ff02::1", No("multicast", None)),
            (private(), "x", "255.255.255.255", No("broadcast", None)),
            (private(), "0.0.0.0", "0.0.0.0", No("unspecified", None)),
            (private(), "::", "::", No("unspecified", None)),
            (private(), "x", "0.1.2.3", No("this-network", None)),
            (private(), "x", "240.0.0.1", No("reserved", None)),
            (private(), "x", "192.0.2.1", No("documentation", None)),
            (private(), "x", "2001:db8::1", No("documentation", None)),
            (private(), "x", "100::1", No("discard-only", None)),
            (cidrs(&["224.0.0.0/4"]), "x", "224.0.0.1", Yes(Allowed::AllowCidr(net("224.0.0.0/4")))),
            // allow-hosts: the exact name, any class; never a suffix or a prefix.
            (hosts(&["corp"]), "corp", "10.1.2.3", Yes(Allowed::AllowHost)),
            (hosts(&["corp"]), "corp", "169.254.169.254", No("cloud-metadata", None)),
            (hosts(&["corp"]), "corp", "::ffff:169.254.169.254", No("cloud-metadata", None)),
            (hosts(&["corp"]), "corp", "fd00:ec2::254", No("cloud-metadata", None)),
            (hosts(&["corp"]), "corp", "64:ff9b::a9fe:a9fe", No("cloud-metadata", None)),
            (hosts(&["corp"]), "corp", "127.0.0.1", Yes(Allowed::AllowHost)),
            (hosts(&["corp"]), "corp", "224.0.0.1", Yes(Allowed::AllowHost)),
            (hosts(&["corp"]), "wiki.corp", "10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (hosts(&["corp"]), "evil.com.corp", "10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (hosts(&["corp"]), "corp.evil.com", "10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (hosts(&["corp"]), "xcorp", "10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (hosts(&["corp"]), "corp.", "10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (hosts(&["wiki.corp"]), "corp", "10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (hosts(&["wiki.corp"]), "evil.wiki.corp", "10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (hosts(&[""]), "", "10.1.2.3", No("private", Some(ConfigKey::AllowPrivate))),
            (hosts(&["corp"]), "other", "8.8.8.8", Yes(Allowed::Public)),
        ];
        for (policy, host, peer, want) in cases {
            let got = match policy.decide(host, ip(peer), &[]) {
                Ok(allowed) => Yes(allowed),
                Err(blocked) => No(blocked.class().id(), blocked.key()),
            };
            assert_eq!(got, want, "{policy:?} {host} {peer}");
        }
    }

    /// `nat64-prefixes`: an address inside an operator's own /96 prefix is judged by
    /// the IPv4 address it carries, and matched through it against allow-cidrs.
    #[test]
    fn network_specific_nat64_prefixes_are_unwrapped() {
        let nat64 = |extra: Policy| Policy {
            nat64_prefixes: vec!["2a01:4f8:64::/96".parse().unwrap()],
            ..extra
        };
        let verdict = |policy: &Policy, peer: &str| match policy.decide("x", ip(peer), &[]) {
            Ok(allowed) => Yes(allowed),
            Err(b) => No(b.class().id(), b.key()),
        };
        // Without the prefix the address is an ordinary public one.
        assert_eq!(
            verdict(&Policy::default(), "2a01:4f8:64::a00:1"),
            Yes(Allowed::Public)
        );
        assert_eq!(
            verdict(&nat64(Policy::default()), "2a01:4f8:64::a00:1"),
            No("private", Some(ConfigKey::AllowPrivate))
        );
        assert_eq!(
            verdict(&nat64(Policy::default()), "2a01:4f8:64::7f00:1"),
            No("loopback", Some(ConfigKey::AllowLoopback))
        );
        assert_eq!(
            verdict(&nat64(private()), "2a01:4f8:64::a9fe:a9fe"),
            No("cloud-metadata", None)
        );
        assert_eq!(
            verdict(&nat64(Policy::default()), "2a01:4f8:64::808:808"),
            Yes(Allowed::Public)
        );
        // Outside the /96: not unwrapped.
        assert_eq!(
            verdict(&nat64(Policy::default()), "2a01:4f8:64:1::a00:1"),
            Yes(Allowed::Public)
        );
        assert_eq!(
            verdict(&nat64(cidrs(&["10.0.0.0/8"])), "2a01:4f8:64::a00:1"),
            Yes(Allowed::AllowCidr(net("10.0.0.0/8")))
        );
        assert_eq!(
            verdict(&nat64(cidrs(&["2a01:4f8:64::/96"])), "2a01:4f8:64::a00:1"),
            No("private", Some(ConfigKey::AllowPrivate))
        );
        let b = nat64(Policy::default())
            .decide("x", ip("2a01:4f8:64::a00:1"), &[])
            .unwrap_err();
        assert_eq!(
            Error::Blocked(b).to_string(),
            r#"refused x (2a01:4f8:64::a00:1): it carries 10.0.0.1 (NAT64, network-specific prefix, RFC 6052), a private address (RFC 1918, Private-Use 10.0.0.0/8); the server does not connect to it. To permit it, set "allow-private": true, or add an "allow-cidrs" entry covering 10.0.0.1."#
        );
    }

    /// This machine's own addresses are "this host": refused like loopback, opened by
    /// allow-loopback, allow-private or a covering allow-cidrs entry, never by
    /// allow-hosts. The list stands in for the interfaces.
    #[test]
    fn this_hosts_own_addresses_are_refused_like_loopback() {
        let own = [ip("93.184.215.14"), ip("2606:2800:21f::7"), ip("10.9.8.7")];
        let verdict =
            |policy: &Policy, host: &str, peer: &str| match policy.decide(host, ip(peer), &own) {
                Ok(allowed) => Yes(allowed),
                Err(b) => No(b.class().id(), b.key()),
            };
        let refused = No("this-host", Some(ConfigKey::AllowLoopback));
        assert_eq!(verdict(&Policy::default(), "x", "93.184.215.14"), refused);
        assert_eq!(
            verdict(&Policy::default(), "x", "::ffff:93.184.215.14"),
            refused
        );
        assert_eq!(
            verdict(&Policy::default(), "x", "2606:2800:21f::7"),
            refused
        );
        assert_eq!(verdict(&Policy::default(), "x", "10.9.8.7"), refused);
        assert_eq!(verdict(&hosts(&["corp"]), "corp", "93.184.215.14"), refused);
        assert_eq!(
            verdict(&loopback(), "x", "93.184.215.14"),
            Yes(Allowed::AllowLoopback)
        );
        assert_eq!(
            verdict(&private(), "x", "10.9.8.7"),
            Yes(Allowed::AllowPrivate)
        );
        assert_eq!(
            verdict(&cidrs(&["93.184.215.0/24"]), "x", "93.184.215.14"),
            Yes(Allowed::AllowCidr(net("93.184.215.0/24")))
        );
        // Another public address is public; loopback stays loopback.
        assert_eq!(
            verdict(&Policy::default(), "x", "93.184.215.15"),
            Yes(Allowed::Public)
        );
        assert_eq!(
            verdict(&Policy::default(), "x", "127.0.0.1"),
            No("loopback", Some(ConfigKey::AllowLoopback))
        );
        // Without the list, the same address is public: the list is what refuses it.
        assert!(
            Policy::default()
                .decide("x", ip("93.184.215.14"), &[])
                .is_ok()
        );
        let b = Policy::default()
            .decide("www.example", ip("93.184.215.14"), &own)
            .unwrap_err();
        assert_eq!(
            Error::Blocked(b).to_string(),
            r#"refused www.example (93.184.215.14): one of this machine's own addresses, which reaches the same services loopback does; the server does not connect to it. To permit it, set "allow-loopback": true or "allow-private": true, or add an "allow-cidrs" entry covering 93.184.215.14."#
        );
        // A grant standing in for allow-loopback admits it as the switch would.
        let grant = Grant::new("x", 80, Scope::Loopback);
        assert_eq!(
            Policy::default().decide_with("x", 80, ip("93.184.215.14"), &own, Some(&grant)),
            Ok(Allowed::Granted)
        );
    }

    /// The Fetch standard's bad ports are refused, naming allow-ports; allow-ports
    /// re-opens exactly the ports it names.
    #[test]
    fn bad_ports_are_refused_unless_allow_ports_names_them() {
        let policy = Policy::default();
        for port in [1, 21, 22, 25, 110, 143, 587, 5060, 6000, 6667, 6697, 10080] {
            assert_eq!(policy.check_port(port), Err(BadUrlReason::BadPort(port)));
        }
        for port in [80, 443, 8080, 8443, 3000, 9000, 65535] {
            assert_eq!(policy.check_port(port), Ok(()), "{port}");
        }
        let open = Policy {
            allow_ports: vec![6667],
            ..Policy::default()
        };
        assert_eq!(open.check_port(6667), Ok(()));
        assert_eq!(open.check_port(6666), Err(BadUrlReason::BadPort(6666)));
        assert!(BAD_PORTS.windows(2).all(|w| w[0] < w[1]), "sorted");
        let e = crate::error::Error::BadUrl(crate::error::BadUrl {
            url: "http://mail.example:25/".into(),
            reason: BadUrlReason::BadPort(25),
        });
        assert_eq!(
            (e.rule(), e.config_key()),
            ("bad-port", Some(ConfigKey::AllowPorts))
        );
        assert_eq!(
            e.to_string(),
            r#"refused http://mail.example:25/: port 25 is on the Fetch standard's bad-port list (ports of mail, chat, file and other non-web protocols, which a crafted HTTP request could speak to); browsers refuse it too. To permit it, add 25 to "allow-ports"."#
        );
    }

    /// An IPv6 address refused for the IPv4 address it carries says which one and how.
    #[test]
    fn refusal_names_the_embedded_ipv4() {
        let b = Policy::default()
            .decide("64:ff9b::a00:1", ip("64:ff9b::a00:1"), &[])
            .unwrap_err();
        assert_eq!(
            b.carries(),
            Some(addr::Embedded {
                how: addr::Embedding::Nat64,
                v4: "10.0.0.1".parse().unwrap()
            })
        );
        assert!(Error::Blocked(b).to_string().starts_with(
            "refused 64:ff9b::a00:1: it carries 10.0.0.1 (NAT64, RFC 6052), a private address (RFC 1918"
        ),);
        let b = Policy::default()
            .decide("2002:a9fe:a9fe::1", ip("2002:a9fe:a9fe::1"), &[])
            .unwrap_err();
        assert_eq!(b.class(), addr::Class::CloudMetadata);
        assert_eq!(
            b.carries(),
            Some(addr::Embedded {
                how: addr::Embedding::SixToFour,
                v4: "169.254.169.254".parse().unwrap()
            })
        );
        // A v4-mapped peer is canonicalised first: it is the IPv4 address itself.
        let b = Policy::default()
            .decide("::ffff:7f00:1", ip("::ffff:127.0.0.1"), &[])
            .unwrap_err();
        assert_eq!(b.carries(), None);
        assert!(
            Error::Blocked(b)
                .to_string()
                .starts_with("refused ::ffff:127.0.0.1: loopback address")
        );
    }

    /// A refusal carries everything its message needs, and the message teaches.
    #[test]
    fn blocked_carries_the_rule() {
        let b = Policy::default()
            .decide("intranet.example", ip("10.1.2.3"), &[])
            .unwrap_err();
        assert_eq!(
            (b.host(), b.address(), b.class(), b.key(), b.only_exact()),
            (
                "intranet.example",
                ip("10.1.2.3"),
                addr::Class::Private,
                Some(ConfigKey::AllowPrivate),
                false
            )
        );
        assert_eq!(
            (b.entry().name, b.entry().block, b.entry().rfc, b.carries()),
            ("Private-Use", "10.0.0.0/8", "RFC 1918", None)
        );
        assert_eq!(b.class().label(), "private address");
        assert_eq!(
            Error::Blocked(b).to_string(),
            r#"refused intranet.example (10.1.2.3): private address (RFC 1918, Private-Use 10.0.0.0/8); the server does not connect to it. To permit it, set "allow-private": true, or add an "allow-cidrs" entry covering 10.1.2.3."#
        );

        let b = Policy {
            allow_private: true,
            ..Policy::default()
        }
        .decide("169.254.169.254", ip("169.254.169.254"), &[])
        .unwrap_err();
        assert_eq!(
            (
                b.class().id(),
                b.class().label(),
                b.entry().block,
                b.key(),
                b.only_exact()
            ),
            (
                "cloud-metadata",
                "cloud metadata endpoint",
                "169.254.169.254/32",
                None,
                true
            )
        );
        let e = Error::Blocked(b);
        assert_eq!(e.config_key(), Some(ConfigKey::AllowCidrs));
        assert!(
            e.to_string()
                .starts_with("refused 169.254.169.254: cloud metadata endpoint ("),
            "{e}"
        );

        let b = Policy::default()
            .decide("::ffff:127.0.0.1", ip("::ffff:127.0.0.1"), &[])
            .unwrap_err();
        assert_eq!(b.address(), ip("::ffff:127.0.0.1"));
        assert_eq!(
            Error::Blocked(b).to_string(),
            r#"refused ::ffff:127.0.0.1: loopback address (RFC 1122, Loopback 127.0.0.0/8); the server does not connect to it. To permit it, set "allow-loopback": true, or add an "allow-cidrs" entry covering 127.0.0.1."#
        );

        let b = Policy::default()
            .decide("fec0::1", ip("fec0::1"), &[])
            .unwrap_err();
        assert_eq!((b.entry().rfc, b.entry().block), ("RFC 3879", "fec0::/10"));
        let b = Policy::default()
            .decide("x", ip("224.0.0.251"), &[])
            .unwrap_err();
        assert!(
            Error::Blocked(b)
                .to_string()
                .ends_with(r#"Only an "allow-cidrs" entry covering 224.0.0.251 would permit it."#)
        );
    }

    /// For every row of the table, the default policy's verdict on its first address
    /// follows the row's class.
    #[test]
    fn default_policy_follows_the_table() {
        for e in addr::TABLE {
            let peer = e.net.network();
            let class = addr::classify(peer).class();
            match Policy::default().decide("x", peer, &[]) {
                Ok(allowed) => {
                    assert!(!class.refused_by_default(), "{peer} allowed: {allowed}")
                }
                Err(b) => {
                    assert_eq!(b.class(), class, "{peer}");
                    assert_eq!(b.key(), class.key(), "{peer}");
                    // The block, and the IPv4 addresses the peer carries (through
                    // which alone IPv4 blocks match it).
                    let mut blocks = vec![e.net];
                    match canonical(peer) {
                        IpAddr::V4(v4) => blocks.push(IpNet::from(IpAddr::V4(v4))),
                        IpAddr::V6(v6) => blocks.extend(
                            addr::carried(v6, &[])
                                .iter()
                                .map(|c| IpNet::from(IpAddr::V4(c.v4))),
                        ),
                    }
                    assert!(
                        Policy {
                            allow_cidrs: blocks,
                            ..Policy::default()
                        }
                        .decide("x", peer, &[])
                        .is_ok(),
                        "allow-cidrs {} does not open {peer}",
                        e.block
                    );
                }
            }
        }
    }

    #[test]
    fn canonical_unwraps_only_mapped() {
        assert_eq!(canonical(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
        assert_eq!(canonical(ip("::1")), ip("::1"));
        assert_eq!(canonical(ip("::a00:1")), ip("::a00:1"));
        assert_eq!(canonical(ip("64:ff9b::a00:1")), ip("64:ff9b::a00:1"));
        assert_eq!(canonical(ip("10.0.0.1")), ip("10.0.0.1"));
    }

    #[test]
    fn allowed_names_its_key() {
        assert_eq!(Allowed::Public.key(), None);
        assert_eq!(
            Allowed::AllowCidr(net("10.0.0.0/8")).to_string(),
            r#"allowed by "allow-cidrs" entry 10.0.0.0/8"#
        );
        assert_eq!(Allowed::AllowHost.key(), Some(ConfigKey::AllowHosts));
    }

    #[test]
    fn a_grant_admits_its_host_within_its_scope_only() {
        let policy = Policy::default();
        let loopback = Grant::new("wiki.corp", 443, Scope::Loopback);
        let private = Grant::new("wiki.corp", 443, Scope::Private);
        // The verdict only: a refusal's details are the policy's, compared below.
        let decide = |host: &str, peer: &str, grant: &Grant| {
            policy
                .decide_with(host, 443, ip(peer), &[], Some(grant))
                .map_err(|_| ())
        };
        assert_eq!(
            decide("wiki.corp", "127.0.0.1", &loopback),
            Ok(Allowed::Granted)
        );
        assert_eq!(decide("WIKI.corp", "::1", &loopback), Ok(Allowed::Granted));
        assert_eq!(
            decide("wiki.corp", "127.0.0.1", &private),
            Ok(Allowed::Granted)
        );
        assert_eq!(
            decide("wiki.corp", "10.1.2.3", &private),
            Ok(Allowed::Granted)
        );
        assert_eq!(
            decide("wiki.corp", "::ffff:10.1.2.3", &private),
            Ok(Allowed::Granted)
        );
        // Outside its scope, for another host, or for what no switch opens: the
        // policy's own refusal stands.
        for (host, peer, grant) in [
            ("wiki.corp", "10.1.2.3", &loopback),
            ("other.corp", "127.0.0.1", &private),
            ("corp", "10.1.2.3", &private),
            ("wiki.corp", "169.254.169.254", &private),
            ("wiki.corp", "fd00:ec2::23", &private),
            ("wiki.corp", "224.0.0.1", &private),
            ("wiki.corp", "0.0.0.0", &private),
        ] {
            assert_eq!(
                policy.decide_with(host, 443, ip(peer), &[], Some(grant)),
                policy.decide(host, ip(peer), &[]),
                "{host} {peer} {grant:?}"
            );
            assert!(decide(host, peer, grant).is_err(), "{host} {peer}");
        }
        // A public address is public with or without a grant; no grant, no change.
        assert_eq!(
            decide("wiki.corp", "93.184.216.34", &private),
            Ok(Allowed::Public)
        );
        assert!(
            policy
                .decide_with("wiki.corp", 443, ip("127.0.0.1"), &[], None)
                .is_err()
        );
        // Another port of the granted host is not granted.
        assert!(
            policy
                .decide_with("wiki.corp", 6379, ip("10.1.2.3"), &[], Some(&private))
                .is_err()
        );
        assert_eq!(Allowed::Granted.key(), Some(ConfigKey::AskPermission));
    }

    #[test]
    fn a_grant_for_one_address_admits_that_address_only() {
        let policy = Policy::default();
        let grant = Grant::new("wiki.corp", 80, Scope::Loopback).at(ip("127.0.0.1"));
        assert_eq!(grant.address(), Some(ip("127.0.0.1")));
        let decide = |peer: &str| {
            policy
                .decide_with("wiki.corp", 80, ip(peer), &[], Some(&grant))
                .map_err(|_| ())
        };
        assert_eq!(decide("127.0.0.1"), Ok(Allowed::Granted));
        assert_eq!(decide("::ffff:127.0.0.1"), Ok(Allowed::Granted));
        assert!(decide("127.0.0.2").is_err());
        assert!(decide("::1").is_err());
    }
}
