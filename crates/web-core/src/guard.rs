//! The address policy and its one ordered decision function.
//!
//! [`Policy`] holds the four escape hatches of the floor (`allow-private`,
//! `allow-loopback`, `allow-hosts`, `allow-cidrs`); [`Policy::decide`] is the only place
//! an address is judged. It is pure: the transport calls it with the host written in
//! the URL and the address of the socket it actually opened.
//!
//! ```
//! use mcp_web_core::guard::{Allowed, Policy};
//!
//! let policy = Policy::default();
//! let refused = policy.decide("10.1.2.3", "10.1.2.3".parse().unwrap()).unwrap_err();
//! assert_eq!(refused.class().id(), "private");
//! assert_eq!(refused.key(), Some("allow-private"));
//!
//! let policy = Policy { allow_cidrs: vec!["10.0.0.0/8".parse().unwrap()], ..Policy::default() };
//! assert!(matches!(policy.decide("10.1.2.3", "10.1.2.3".parse().unwrap()), Ok(Allowed::AllowCidr(_))));
//! ```

use std::fmt;
use std::net::IpAddr;

use ipnet::IpNet;

use crate::addr::{self, Reach};
use crate::error::Blocked;

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
    /// `allow-cidrs`: blocks permitted whatever their class, matched against the peer.
    pub allow_cidrs: Vec<IpNet>,
}

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
    pub fn key(&self) -> Option<&'static str> {
        match self {
            Allowed::Public => None,
            Allowed::AllowLoopback => Some("allow-loopback"),
            Allowed::AllowPrivate => Some("allow-private"),
            Allowed::AllowCidr(_) => Some("allow-cidrs"),
            Allowed::AllowHost => Some("allow-hosts"),
            Allowed::Granted => Some("ask-permission"),
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
    /// Decides whether the floor may talk to `peer`, reached for the URL host `host`
    /// (lowercase, punycode, IPv6 without brackets).
    ///
    /// The rules, in order; the first that answers decides:
    /// 1. The peer is canonicalised: an IPv4-mapped IPv6 address becomes its IPv4
    ///    address.
    /// 2. `allow-cidrs`: an entry covering the peer (canonical or as given) admits it,
    ///    whatever its class, cloud metadata included.
    /// 3. `allow-hosts`: an entry equal to `host` admits it, whatever its class. Only
    ///    the exact name matches: `corp` never admits `wiki.corp` or `evil.com.corp`.
    /// 4. The peer is classified ([`addr::classify`], which also judges any IPv4
    ///    address an IPv6 address carries). A public address is admitted.
    /// 5. `allow-loopback` admits a loopback address.
    /// 6. `allow-private` admits every class a machine can have, loopback included;
    ///    never cloud metadata.
    /// 7. Everything else is refused: the [`Blocked`] names the class, the block, its
    ///    RFC, and the key that would permit it (`allow-loopback` for loopback,
    ///    `allow-private` for the other machine classes, none for classes no machine
    ///    can be — multicast, broadcast, unspecified, reserved, documentation — and for
    ///    cloud metadata, which only an exact `allow-cidrs` or `allow-hosts` entry
    ///    opens).
    pub fn decide(&self, host: &str, peer: IpAddr) -> Result<Allowed, Blocked> {
        let canonical = canonical(peer);
        if let Some(net) = self
            .allow_cidrs
            .iter()
            .find(|net| net.contains(&canonical) || net.contains(&peer))
        {
            return Ok(Allowed::AllowCidr(*net));
        }
        if self
            .allow_hosts
            .iter()
            .any(|allowed| !allowed.is_empty() && allowed.eq_ignore_ascii_case(host))
        {
            return Ok(Allowed::AllowHost);
        }
        let classification = addr::classify(canonical);
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
}

/// What a one-time [`Grant`] opens, as the switch it stands in for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// What `allow-loopback` opens: loopback addresses.
    Loopback,
    /// What `allow-private` opens: every class a machine can have, loopback included.
    Private,
}

/// A permission the user granted for one tool call: reach one host, on one port, at an
/// address that
/// `allow-loopback` or `allow-private` would permit. It never opens cloud metadata, nor
/// any class no switch opens, and belongs to the call it was granted for: it is carried
/// by that call's fetch context and never enters the shared pool of connections.
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

    /// Whether the grant admits `peer` reached for the URL host `host` on `port`.
    pub fn admits(&self, host: &str, port: u16, peer: IpAddr) -> bool {
        if self.host.is_empty() || !self.host.eq_ignore_ascii_case(host) || self.port != port {
            return false;
        }
        if self
            .address
            .is_some_and(|address| canonical(address) != canonical(peer))
        {
            return false;
        }
        match (addr::classify(canonical(peer)).reach(), self.scope) {
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
        grant: Option<&Grant>,
    ) -> Result<Allowed, Blocked> {
        match self.decide(host, peer) {
            Err(_) if grant.is_some_and(|g| g.admits(host, port, peer)) => Ok(Allowed::Granted),
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
        No(&'static str, Option<&'static str>),
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
            (default(), "localhost", "127.0.0.1", No("loopback", Some("allow-loopback"))),
            (default(), "localhost", "127.255.255.254", No("loopback", Some("allow-loopback"))),
            (default(), "::1", "::1", No("loopback", Some("allow-loopback"))),
            (default(), "::ffff:127.0.0.1", "::ffff:127.0.0.1", No("loopback", Some("allow-loopback"))),
            (default(), "::ffff:7f00:1", "::ffff:7f00:1", No("loopback", Some("allow-loopback"))),
            (loopback(), "localhost", "127.0.0.1", Yes(Allowed::AllowLoopback)),
            (loopback(), "::1", "::1", Yes(Allowed::AllowLoopback)),
            (loopback(), "::ffff:127.0.0.1", "::ffff:127.0.0.1", Yes(Allowed::AllowLoopback)),
            (private(), "localhost", "127.0.0.1", Yes(Allowed::AllowPrivate)),
            // ::1 is never 0.0.0.1, and 0.0.0.1 is never loopback.
            (loopback(), "x", "0.0.0.1", No("this-network", None)),
            (cidrs(&["0.0.0.0/8"]), "x", "::1", No("loopback", Some("allow-loopback"))),
            // allow-loopback opens loopback only.
            (loopback(), "intranet", "10.1.2.3", No("private", Some("allow-private"))),
            (loopback(), "x", "169.254.169.254", No("cloud-metadata", None)),
            (loopback(), "x", "fe80::1", No("link-local", Some("allow-private"))),
            // Private classes, and allow-private.
            (default(), "intranet", "10.1.2.3", No("private", Some("allow-private"))),
            (default(), "intranet", "172.16.0.1", No("private", Some("allow-private"))),
            (default(), "intranet", "172.31.255.255", No("private", Some("allow-private"))),
            (default(), "intranet", "192.168.1.1", No("private", Some("allow-private"))),
            (default(), "cgnat", "100.64.0.1", No("shared", Some("allow-private"))),
            (default(), "x", "169.254.1.1", No("link-local", Some("allow-private"))),
            (default(), "x", "fe80::1", No("link-local", Some("allow-private"))),
            (default(), "x", "fd12:3456::1", No("unique-local", Some("allow-private"))),
            (default(), "fec0::1", "fec0::1", No("site-local", Some("allow-private"))),
            (default(), "x", "198.18.0.1", No("benchmarking", Some("allow-private"))),
            (default(), "x", "::ffff:10.0.0.1", No("private", Some("allow-private"))),
            (private(), "intranet", "10.1.2.3", Yes(Allowed::AllowPrivate)),
            (private(), "x", "::ffff:192.168.0.1", Yes(Allowed::AllowPrivate)),
            (private(), "x", "100.64.0.1", Yes(Allowed::AllowPrivate)),
            (private(), "x", "169.254.1.1", Yes(Allowed::AllowPrivate)),
            (private(), "x", "fd12:3456::1", Yes(Allowed::AllowPrivate)),
            (private(), "fec0::1", "fec0::1", Yes(Allowed::AllowPrivate)),
            (private(), "::1", "::1", Yes(Allowed::AllowPrivate)),
            // IPv4 carried in IPv6 is judged by what it carries.
            (default(), "64:ff9b::a00:1", "64:ff9b::a00:1", No("private", Some("allow-private"))),
            (default(), "x", "2002:c0a8:101::1", No("private", Some("allow-private"))),
            (default(), "x", "2002:7f00:1::", No("loopback", Some("allow-loopback"))),
            (default(), "x", "2001:0:4136:e378:8000:63bf:f5ff:fffe", No("private", Some("allow-private"))),
            (default(), "x", "64:ff9b::808:808", Yes(Allowed::Public)),
            (private(), "x", "64:ff9b::a9fe:a9fe", No("cloud-metadata", None)),
            (private(), "x", "2002:a9fe:a9fe::1", No("cloud-metadata", None)),
            (private(), "x", "::ffff:169.254.169.254", No("cloud-metadata", None)),
            // allow-cidrs matches the IPv4 address of a mapped peer, not a NAT64 one.
            (cidrs(&["10.0.0.0/8"]), "x", "::ffff:10.1.2.3", Yes(Allowed::AllowCidr(net("10.0.0.0/8")))),
            (cidrs(&["10.0.0.0/8"]), "x", "64:ff9b::a01:203", No("private", Some("allow-private"))),
            (cidrs(&["::ffff:10.0.0.0/104"]), "x", "::ffff:10.1.2.3", Yes(Allowed::AllowCidr(net("::ffff:10.0.0.0/104")))),
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
            (cidrs(&["10.0.0.0/8"]), "x", "172.16.0.1", No("private", Some("allow-private"))),
            (cidrs(&["10.0.0.0/8"]), "x", "127.0.0.1", No("loopback", Some("allow-loopback"))),
            (cidrs(&["127.0.0.1/32"]), "x", "127.0.0.2", No("loopback", Some("allow-loopback"))),
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
            (hosts(&["corp"]), "corp", "169.254.169.254", Yes(Allowed::AllowHost)),
            (hosts(&["corp"]), "wiki.corp", "10.1.2.3", No("private", Some("allow-private"))),
            (hosts(&["corp"]), "evil.com.corp", "10.1.2.3", No("private", Some("allow-private"))),
            (hosts(&["corp"]), "corp.evil.com", "10.1.2.3", No("private", Some("allow-private"))),
            (hosts(&["corp"]), "xcorp", "10.1.2.3", No("private", Some("allow-private"))),
            (hosts(&["corp"]), "corp.", "10.1.2.3", No("private", Some("allow-private"))),
            (hosts(&["wiki.corp"]), "corp", "10.1.2.3", No("private", Some("allow-private"))),
            (hosts(&["wiki.corp"]), "evil.wiki.corp", "10.1.2.3", No("private", Some("allow-private"))),
            (hosts(&[""]), "", "10.1.2.3", No("private", Some("allow-private"))),
            (hosts(&["corp"]), "other", "8.8.8.8", Yes(Allowed::Public)),
        ];
        for (policy, host, peer, want) in cases {
            let got = match policy.decide(host, ip(peer)) {
                Ok(allowed) => Yes(allowed),
                Err(blocked) => No(blocked.class().id(), blocked.key()),
            };
            assert_eq!(got, want, "{policy:?} {host} {peer}");
        }
    }

    /// An IPv6 address refused for the IPv4 address it carries says which one and how.
    #[test]
    fn refusal_names_the_embedded_ipv4() {
        let b = Policy::default()
            .decide("64:ff9b::a00:1", ip("64:ff9b::a00:1"))
            .unwrap_err();
        assert_eq!(
            b.carries(),
            Some(addr::Embedded {
                how: addr::Embedding::Nat64,
                v4: "10.0.0.1".parse().unwrap()
            })
        );
        assert!(Error::Blocked(b).to_string().starts_with(
            "refused 64:ff9b::a00:1: it carries 10.0.0.1 (NAT64), a private address (RFC 1918"
        ),);
        let b = Policy::default()
            .decide("2002:a9fe:a9fe::1", ip("2002:a9fe:a9fe::1"))
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
            .decide("::ffff:7f00:1", ip("::ffff:127.0.0.1"))
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
            .decide("intranet.example", ip("10.1.2.3"))
            .unwrap_err();
        assert_eq!(
            (b.host(), b.address(), b.class(), b.key(), b.only_exact()),
            (
                "intranet.example",
                ip("10.1.2.3"),
                addr::Class::Private,
                Some("allow-private"),
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
        .decide("169.254.169.254", ip("169.254.169.254"))
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
        assert_eq!(e.config_key(), Some("allow-cidrs"));
        assert!(
            e.to_string()
                .starts_with("refused 169.254.169.254: cloud metadata endpoint ("),
            "{e}"
        );

        let b = Policy::default()
            .decide("::ffff:127.0.0.1", ip("::ffff:127.0.0.1"))
            .unwrap_err();
        assert_eq!(b.address(), ip("::ffff:127.0.0.1"));
        assert_eq!(
            Error::Blocked(b).to_string(),
            r#"refused ::ffff:127.0.0.1: loopback address (RFC 1122, Loopback 127.0.0.0/8); the server does not connect to it. To permit it, set "allow-loopback": true, or add an "allow-cidrs" entry covering ::ffff:127.0.0.1."#
        );

        let b = Policy::default()
            .decide("fec0::1", ip("fec0::1"))
            .unwrap_err();
        assert_eq!((b.entry().rfc, b.entry().block), ("RFC 3879", "fec0::/10"));
        let b = Policy::default()
            .decide("x", ip("224.0.0.251"))
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
            match Policy::default().decide("x", peer) {
                Ok(allowed) => {
                    assert!(!class.refused_by_default(), "{peer} allowed: {allowed}")
                }
                Err(b) => {
                    assert_eq!(b.class(), class, "{peer}");
                    assert_eq!(b.key(), class.key(), "{peer}");
                    assert!(
                        Policy {
                            allow_cidrs: vec![e.net],
                            ..Policy::default()
                        }
                        .decide("x", peer)
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
        assert_eq!(Allowed::AllowHost.key(), Some("allow-hosts"));
    }

    #[test]
    fn a_grant_admits_its_host_within_its_scope_only() {
        let policy = Policy::default();
        let loopback = Grant::new("wiki.corp", 443, Scope::Loopback);
        let private = Grant::new("wiki.corp", 443, Scope::Private);
        // The verdict only: a refusal's details are the policy's, compared below.
        let decide = |host: &str, peer: &str, grant: &Grant| {
            policy
                .decide_with(host, 443, ip(peer), Some(grant))
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
                policy.decide_with(host, 443, ip(peer), Some(grant)),
                policy.decide(host, ip(peer)),
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
                .decide_with("wiki.corp", 443, ip("127.0.0.1"), None)
                .is_err()
        );
        // Another port of the granted host is not granted.
        assert!(
            policy
                .decide_with("wiki.corp", 6379, ip("10.1.2.3"), Some(&private))
                .is_err()
        );
        assert_eq!(Allowed::Granted.key(), Some("ask-permission"));
    }

    #[test]
    fn a_grant_for_one_address_admits_that_address_only() {
        let policy = Policy::default();
        let grant = Grant::new("wiki.corp", 80, Scope::Loopback).at(ip("127.0.0.1"));
        assert_eq!(grant.address(), Some(ip("127.0.0.1")));
        let decide = |peer: &str| {
            policy
                .decide_with("wiki.corp", 80, ip(peer), Some(&grant))
                .map_err(|_| ())
        };
        assert_eq!(decide("127.0.0.1"), Ok(Allowed::Granted));
        assert_eq!(decide("::ffff:127.0.0.1"), Ok(Allowed::Granted));
        assert!(decide("127.0.0.2").is_err());
        assert!(decide("::1").is_err());
    }
}
