//! The IANA special-purpose address registries as data, and the classification of an address.
//!
//! [`TABLE`] holds every entry of the IANA IPv4 and IPv6 Special-Purpose Address
//! Registries, the non-unicast and reserved blocks of the IPv4 and IPv6 Address Space
//! Registries (multicast, `fec0::/10`, the IETF-reserved IPv6 space), the deprecated
//! IPv4-compatible block of RFC 4291, and the cloud metadata endpoints documented by
//! their vendors. Each row names its block, its name in the registry, its [`Class`],
//! and the RFC or document that defines it; the class says whether the default policy
//! refuses the block and which configuration key would permit it.
//!
//! [`classify`] returns the most specific row that covers an address (a cloud metadata
//! endpoint beats the link-local block around it). IPv6 addresses that carry an IPv4
//! address — IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64, 6to4 and Teredo —
//! are classified by the embedded address as well, and the stricter verdict wins, so
//! `64:ff9b::a00:1` is the private address `10.0.0.1` and `2002:a9fe:a9fe::` is a
//! cloud metadata endpoint. The embedded address is always extracted with explicit bit
//! work: `::1` is loopback, never `0.0.0.1`.
//!
//! ```
//! use mcp_web_core::addr::{classify, Class};
//!
//! assert_eq!(classify("172.31.255.255".parse().unwrap()).class(), Class::Private);
//! assert_eq!(classify("169.254.169.254".parse().unwrap()).class(), Class::CloudMetadata);
//! assert_eq!(classify("::1".parse().unwrap()).class(), Class::Loopback);
//! assert_eq!(classify("93.184.215.14".parse().unwrap()).class(), Class::Public);
//! ```

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

use crate::key::ConfigKey;

/// How the default policy treats a class, from the most to the least permissive.
///
/// The order is the order of strictness: when an IPv6 address and the IPv4 address it
/// carries classify differently, the greater `Reach` wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reach {
    /// Reached by default.
    Public,
    /// This machine itself (loopback, or one of its own interface addresses):
    /// permitted by `allow-loopback` or `allow-private`.
    Loopback,
    /// Something a machine on the operator's own network can be: permitted by
    /// `allow-private`.
    Machine,
    /// No machine can be reached there (multicast, documentation, reserved, …): only an
    /// `allow-cidrs` entry covering the address, or `allow-hosts` naming the host,
    /// permits it.
    NoMachine,
    /// A cloud metadata endpoint: only an `allow-cidrs` entry covering the address
    /// permits it; never `allow-private` (although the address is often link-local),
    /// never `allow-hosts`.
    Metadata,
}

/// The class of an address: what kind of place it leads to.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// An address on the public internet (no row covers it, or a row that is public).
    Public,
    /// This machine: `127.0.0.0/8`, `::1`.
    Loopback,
    /// RFC 1918 private-use space.
    Private,
    /// RFC 6598 shared address space (carrier-grade NAT), `100.64.0.0/10`.
    Shared,
    /// Link-local addresses: `169.254.0.0/16`, `fe80::/10`.
    LinkLocal,
    /// IPv6 unique local addresses, `fc00::/7`.
    UniqueLocal,
    /// IPv6 site-local addresses, `fec0::/10` (deprecated by RFC 3879, still routed by
    /// some stacks).
    SiteLocal,
    /// Benchmarking networks: `198.18.0.0/15`, `2001:2::/48`.
    Benchmarking,
    /// IETF protocol assignments (`192.0.0.0/24`, `2001::/23`) and the anycast services
    /// in them: DS-Lite, PCP, TURN, DNS-SD SRP, NAT64 discovery.
    ProtocolAssignment,
    /// The local-use NAT64 prefix `64:ff9b:1::/48`.
    LocalTranslation,
    /// SRv6 segment identifiers, `5f00::/16`.
    SegmentRouting,
    /// A cloud provider's instance metadata or wire server endpoint.
    CloudMetadata,
    /// "This network", `0.0.0.0/8`.
    ThisNetwork,
    /// The unspecified address: `0.0.0.0`, `::`.
    Unspecified,
    /// Documentation ranges (TEST-NET-1/2/3, `2001:db8::/32`, `3fff::/20`).
    Documentation,
    /// Multicast: `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// The limited broadcast address `255.255.255.255`.
    Broadcast,
    /// Space reserved by the IETF: `240.0.0.0/4`, the unassigned IPv6 space, the
    /// deprecated IPv4-compatible addresses.
    Reserved,
    /// The IPv6 discard-only prefix `100::/64`.
    DiscardOnly,
    /// Dummy addresses: `192.0.0.8`, `100:0:0:1::/64`.
    Dummy,
    /// ORCHID identifiers and drone entity tags: names, not locators.
    Orchid,
    /// The deprecated 6to4 relay anycast block `192.88.99.0/24`.
    RelayAnycast,
    /// AS112 DNS sinks: public anycast.
    As112,
    /// Automatic Multicast Tunneling relays: public anycast.
    Amt,
    /// An IPv6 address that carries an IPv4 address through a translator or tunnel
    /// (NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, Teredo `2001::/32`); the embedded
    /// address decides.
    Translation,
    /// One of this machine's own interface addresses, or the local address of the
    /// socket itself: it reaches the same services loopback does. Not a row of
    /// [`TABLE`]: the guard finds it from the host's interfaces ([`THIS_HOST`]).
    ThisHost,
}

impl Class {
    /// Every class, for tables and tests.
    pub const ALL: [Class; 26] = [
        Class::Public,
        Class::Loopback,
        Class::Private,
        Class::Shared,
        Class::LinkLocal,
        Class::UniqueLocal,
        Class::SiteLocal,
        Class::Benchmarking,
        Class::ProtocolAssignment,
        Class::LocalTranslation,
        Class::SegmentRouting,
        Class::CloudMetadata,
        Class::ThisNetwork,
        Class::Unspecified,
        Class::Documentation,
        Class::Multicast,
        Class::Broadcast,
        Class::Reserved,
        Class::DiscardOnly,
        Class::Dummy,
        Class::Orchid,
        Class::RelayAnycast,
        Class::As112,
        Class::Amt,
        Class::Translation,
        Class::ThisHost,
    ];

    /// The class's stable id, as a refusal's rule id (`"private"`, `"cloud-metadata"`).
    pub fn id(self) -> &'static str {
        match self {
            Class::Public => "public",
            Class::Loopback => "loopback",
            Class::Private => "private",
            Class::Shared => "shared",
            Class::LinkLocal => "link-local",
            Class::UniqueLocal => "unique-local",
            Class::SiteLocal => "site-local",
            Class::Benchmarking => "benchmarking",
            Class::ProtocolAssignment => "protocol-assignment",
            Class::LocalTranslation => "local-translation",
            Class::SegmentRouting => "segment-routing",
            Class::CloudMetadata => "cloud-metadata",
            Class::ThisNetwork => "this-network",
            Class::Unspecified => "unspecified",
            Class::Documentation => "documentation",
            Class::Multicast => "multicast",
            Class::Broadcast => "broadcast",
            Class::Reserved => "reserved",
            Class::DiscardOnly => "discard-only",
            Class::Dummy => "dummy",
            Class::Orchid => "orchid",
            Class::RelayAnycast => "relay-anycast",
            Class::As112 => "as112",
            Class::Amt => "amt",
            Class::Translation => "translation",
            Class::ThisHost => "this-host",
        }
    }

    /// The class in words, as a refusal says it ("private address").
    pub fn label(self) -> &'static str {
        match self {
            Class::Public => "public address",
            Class::Loopback => "loopback address",
            Class::Private => "private address",
            Class::Shared => "shared address space (carrier-grade NAT)",
            Class::LinkLocal => "link-local address",
            Class::UniqueLocal => "unique local address",
            Class::SiteLocal => "site-local address",
            Class::Benchmarking => "benchmarking address",
            Class::ProtocolAssignment => "IETF protocol assignment",
            Class::LocalTranslation => "local-use IPv4/IPv6 translation address",
            Class::SegmentRouting => "SRv6 segment identifier",
            Class::CloudMetadata => "cloud metadata endpoint",
            Class::ThisNetwork => "\"this network\" address",
            Class::Unspecified => "unspecified address",
            Class::Documentation => "documentation address",
            Class::Multicast => "multicast address",
            Class::Broadcast => "broadcast address",
            Class::Reserved => "reserved address",
            Class::DiscardOnly => "discard-only address",
            Class::Dummy => "dummy address",
            Class::Orchid => "overlay identifier (ORCHID), not an address",
            Class::RelayAnycast => "deprecated 6to4 relay anycast address",
            Class::As112 => "AS112 DNS sink (public anycast)",
            Class::Amt => "AMT relay (public anycast)",
            Class::Translation => "IPv4/IPv6 translation address",
            Class::ThisHost => "one of this machine's own addresses",
        }
    }

    /// How the default policy treats the class.
    pub fn reach(self) -> Reach {
        match self {
            Class::Public | Class::As112 | Class::Amt | Class::Translation => Reach::Public,
            Class::Loopback | Class::ThisHost => Reach::Loopback,
            Class::Private
            | Class::Shared
            | Class::LinkLocal
            | Class::UniqueLocal
            | Class::SiteLocal
            | Class::Benchmarking
            | Class::ProtocolAssignment
            | Class::LocalTranslation
            | Class::SegmentRouting => Reach::Machine,
            Class::ThisNetwork
            | Class::Unspecified
            | Class::Documentation
            | Class::Multicast
            | Class::Broadcast
            | Class::Reserved
            | Class::DiscardOnly
            | Class::Dummy
            | Class::Orchid
            | Class::RelayAnycast => Reach::NoMachine,
            Class::CloudMetadata => Reach::Metadata,
        }
    }

    /// Whether the default policy refuses the class.
    pub fn refused_by_default(self) -> bool {
        self.reach() != Reach::Public
    }

    /// The broad configuration key that permits the class: `allow-loopback` for
    /// loopback and this host, `allow-private` for the other classes a machine can
    /// have, `None` when only an `allow-cidrs` entry (or, for a class no machine can
    /// be, `allow-hosts`) would.
    pub fn key(self) -> Option<ConfigKey> {
        self.scope().map(Scope::key)
    }

    /// What a broad switch (and a one-time grant standing in for it) must open to
    /// permit the class, or `None` when no switch does.
    pub fn scope(self) -> Option<Scope> {
        match self.reach() {
            Reach::Loopback => Some(Scope::Loopback),
            Reach::Machine => Some(Scope::Private),
            Reach::Public | Reach::NoMachine | Reach::Metadata => None,
        }
    }

    /// True when no broad switch permits the class, although the address may look like
    /// one (cloud metadata): only an `allow-cidrs` entry covering the address does.
    pub fn only_exact(self) -> bool {
        self.reach() == Reach::Metadata
    }
}

/// What a broad switch opens, and what a one-time grant standing in for it opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// What `allow-loopback` opens: loopback addresses.
    Loopback,
    /// What `allow-private` opens: every class a machine can have, loopback included.
    Private,
}

impl Scope {
    /// The switch that opens this scope.
    pub fn key(self) -> ConfigKey {
        match self {
            Scope::Loopback => ConfigKey::AllowLoopback,
            Scope::Private => ConfigKey::AllowPrivate,
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The registry or document a row of [`TABLE`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Registry {
    /// IANA IPv4 Special-Purpose Address Registry (RFC 6890).
    Ipv4Special,
    /// IANA IPv4 Address Space Registry (the multicast block).
    Ipv4AddressSpace,
    /// IANA IPv6 Special-Purpose Address Registry (RFC 6890).
    Ipv6Special,
    /// IANA IPv6 Address Space Registry (reserved, site-local and multicast blocks), and
    /// RFC 4291's deprecated IPv4-compatible addresses.
    Ipv6AddressSpace,
    /// Cloud metadata endpoints, from each vendor's documentation.
    CloudMetadata,
    /// This machine's own interface addresses, read when a connection is checked.
    ThisHost,
}

impl Registry {
    /// The registry's name in words.
    pub fn name(self) -> &'static str {
        match self {
            Registry::Ipv4Special => "IANA IPv4 Special-Purpose Address Registry",
            Registry::Ipv4AddressSpace => "IANA IPv4 Address Space Registry",
            Registry::Ipv6Special => "IANA IPv6 Special-Purpose Address Registry",
            Registry::Ipv6AddressSpace => "IANA IPv6 Address Space Registry",
            Registry::CloudMetadata => "cloud vendors' documentation",
            Registry::ThisHost => "this machine's network interfaces",
        }
    }
}

/// One row of the address table.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The block.
    pub net: IpNet,
    /// The block as CIDR text, exactly as `net` displays ("10.0.0.0/8").
    pub block: &'static str,
    /// The entry's name in its registry ("Private-Use").
    pub name: &'static str,
    /// Where the row comes from.
    pub registry: Registry,
    /// The class of every address in the block.
    pub class: Class,
    /// The RFC or document that defines the block ("RFC 1918").
    pub rfc: &'static str,
}

impl Entry {
    /// Whether the default policy refuses addresses in this block.
    pub fn refused_by_default(&self) -> bool {
        self.class.refused_by_default()
    }

    /// The broad configuration key that permits this block, if any (see [`Class::key`]).
    pub fn key(&self) -> Option<ConfigKey> {
        self.class.key()
    }
}

const fn v4(o: [u8; 4], len: u8) -> IpNet {
    IpNet::V4(Ipv4Net::new_assert(
        Ipv4Addr::new(o[0], o[1], o[2], o[3]),
        len,
    ))
}

const fn v6(s: [u16; 8], len: u8) -> IpNet {
    IpNet::V6(Ipv6Net::new_assert(
        Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]),
        len,
    ))
}

const fn row(
    registry: Registry,
    net: IpNet,
    block: &'static str,
    name: &'static str,
    class: Class,
    rfc: &'static str,
) -> Entry {
    Entry {
        net,
        block,
        name,
        registry,
        class,
        rfc,
    }
}

use Class as C;
use Registry as R;

/// Every special-purpose block, grouped by registry; within a registry, rows are
/// sorted by address and then by prefix length. Blocks nest: [`classify`] picks the
/// most specific row.
#[rustfmt::skip]
pub static TABLE: &[Entry] = &[
    // IANA IPv4 Special-Purpose Address Registry.
    row(R::Ipv4Special, v4([0, 0, 0, 0], 8), "0.0.0.0/8", "This network", C::ThisNetwork, "RFC 791"),
    row(R::Ipv4Special, v4([0, 0, 0, 0], 32), "0.0.0.0/32", "This host on this network", C::Unspecified, "RFC 1122"),
    row(R::Ipv4Special, v4([10, 0, 0, 0], 8), "10.0.0.0/8", "Private-Use", C::Private, "RFC 1918"),
    row(R::Ipv4Special, v4([100, 64, 0, 0], 10), "100.64.0.0/10", "Shared Address Space", C::Shared, "RFC 6598"),
    row(R::Ipv4Special, v4([127, 0, 0, 0], 8), "127.0.0.0/8", "Loopback", C::Loopback, "RFC 1122"),
    row(R::Ipv4Special, v4([169, 254, 0, 0], 16), "169.254.0.0/16", "Link Local", C::LinkLocal, "RFC 3927"),
    row(R::Ipv4Special, v4([172, 16, 0, 0], 12), "172.16.0.0/12", "Private-Use", C::Private, "RFC 1918"),
    row(R::Ipv4Special, v4([192, 0, 0, 0], 24), "192.0.0.0/24", "IETF Protocol Assignments", C::ProtocolAssignment, "RFC 6890"),
    row(R::Ipv4Special, v4([192, 0, 0, 0], 29), "192.0.0.0/29", "IPv4 Service Continuity Prefix", C::ProtocolAssignment, "RFC 7335"),
    row(R::Ipv4Special, v4([192, 0, 0, 8], 32), "192.0.0.8/32", "IPv4 dummy address", C::Dummy, "RFC 7600"),
    row(R::Ipv4Special, v4([192, 0, 0, 9], 32), "192.0.0.9/32", "Port Control Protocol Anycast", C::ProtocolAssignment, "RFC 7723"),
    row(R::Ipv4Special, v4([192, 0, 0, 10], 32), "192.0.0.10/32", "Traversal Using Relays around NAT Anycast", C::ProtocolAssignment, "RFC 8155"),
    row(R::Ipv4Special, v4([192, 0, 0, 170], 32), "192.0.0.170/32", "NAT64/DNS64 Discovery", C::ProtocolAssignment, "RFC 8880, RFC 7050"),
    row(R::Ipv4Special, v4([192, 0, 0, 171], 32), "192.0.0.171/32", "NAT64/DNS64 Discovery", C::ProtocolAssignment, "RFC 8880, RFC 7050"),
    row(R::Ipv4Special, v4([192, 0, 2, 0], 24), "192.0.2.0/24", "Documentation (TEST-NET-1)", C::Documentation, "RFC 5737"),
    row(R::Ipv4Special, v4([192, 31, 196, 0], 24), "192.31.196.0/24", "AS112-v4", C::As112, "RFC 7535"),
    row(R::Ipv4Special, v4([192, 52, 193, 0], 24), "192.52.193.0/24", "AMT", C::Amt, "RFC 7450"),
    row(R::Ipv4Special, v4([192, 88, 99, 0], 24), "192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", C::RelayAnycast, "RFC 7526"),
    row(R::Ipv4Special, v4([192, 168, 0, 0], 16), "192.168.0.0/16", "Private-Use", C::Private, "RFC 1918"),
    row(R::Ipv4Special, v4([192, 175, 48, 0], 24), "192.175.48.0/24", "Direct Delegation AS112 Service", C::As112, "RFC 7534"),
    row(R::Ipv4Special, v4([198, 18, 0, 0], 15), "198.18.0.0/15", "Benchmarking", C::Benchmarking, "RFC 2544"),
    row(R::Ipv4Special, v4([198, 51, 100, 0], 24), "198.51.100.0/24", "Documentation (TEST-NET-2)", C::Documentation, "RFC 5737"),
    row(R::Ipv4Special, v4([203, 0, 113, 0], 24), "203.0.113.0/24", "Documentation (TEST-NET-3)", C::Documentation, "RFC 5737"),
    row(R::Ipv4Special, v4([240, 0, 0, 0], 4), "240.0.0.0/4", "Reserved", C::Reserved, "RFC 1112"),
    row(R::Ipv4Special, v4([255, 255, 255, 255], 32), "255.255.255.255/32", "Limited Broadcast", C::Broadcast, "RFC 8190, RFC 919"),
    // IANA IPv4 Address Space Registry: the one block the special-purpose registry
    // leaves out.
    row(R::Ipv4AddressSpace, v4([224, 0, 0, 0], 4), "224.0.0.0/4", "Multicast", C::Multicast, "RFC 5771"),
    // IANA IPv6 Special-Purpose Address Registry.
    row(R::Ipv6Special, v6([0, 0, 0, 0, 0, 0, 0, 0], 128), "::/128", "Unspecified Address", C::Unspecified, "RFC 4291"),
    row(R::Ipv6Special, v6([0, 0, 0, 0, 0, 0, 0, 1], 128), "::1/128", "Loopback Address", C::Loopback, "RFC 4291"),
    row(R::Ipv6Special, v6([0, 0, 0, 0, 0, 0xffff, 0, 0], 96), "::ffff:0.0.0.0/96", "IPv4-mapped Address", C::Translation, "RFC 4291"),
    row(R::Ipv6Special, v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96), "64:ff9b::/96", "IPv4-IPv6 Translat.", C::Translation, "RFC 6052"),
    row(R::Ipv6Special, v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48), "64:ff9b:1::/48", "IPv4-IPv6 Translat. (local use)", C::LocalTranslation, "RFC 8215"),
    row(R::Ipv6Special, v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64), "100::/64", "Discard-Only Address Block", C::DiscardOnly, "RFC 6666"),
    row(R::Ipv6Special, v6([0x100, 0, 0, 1, 0, 0, 0, 0], 64), "100:0:0:1::/64", "Dummy IPv6 Prefix", C::Dummy, "RFC 9780"),
    row(R::Ipv6Special, v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23), "2001::/23", "IETF Protocol Assignments", C::ProtocolAssignment, "RFC 2928"),
    row(R::Ipv6Special, v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 32), "2001::/32", "TEREDO", C::Translation, "RFC 4380, RFC 8190"),
    row(R::Ipv6Special, v6([0x2001, 1, 0, 0, 0, 0, 0, 1], 128), "2001:1::1/128", "Port Control Protocol Anycast", C::ProtocolAssignment, "RFC 7723"),
    row(R::Ipv6Special, v6([0x2001, 1, 0, 0, 0, 0, 0, 2], 128), "2001:1::2/128", "Traversal Using Relays around NAT Anycast", C::ProtocolAssignment, "RFC 8155"),
    row(R::Ipv6Special, v6([0x2001, 1, 0, 0, 0, 0, 0, 3], 128), "2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", C::ProtocolAssignment, "RFC 9665"),
    row(R::Ipv6Special, v6([0x2001, 2, 0, 0, 0, 0, 0, 0], 48), "2001:2::/48", "Benchmarking", C::Benchmarking, "RFC 5180"),
    row(R::Ipv6Special, v6([0x2001, 3, 0, 0, 0, 0, 0, 0], 32), "2001:3::/32", "AMT", C::Amt, "RFC 7450"),
    row(R::Ipv6Special, v6([0x2001, 4, 0x112, 0, 0, 0, 0, 0], 48), "2001:4:112::/48", "AS112-v6", C::As112, "RFC 7535"),
    row(R::Ipv6Special, v6([0x2001, 0x10, 0, 0, 0, 0, 0, 0], 28), "2001:10::/28", "Deprecated (previously ORCHID)", C::Orchid, "RFC 4843"),
    row(R::Ipv6Special, v6([0x2001, 0x20, 0, 0, 0, 0, 0, 0], 28), "2001:20::/28", "ORCHIDv2", C::Orchid, "RFC 7343"),
    row(R::Ipv6Special, v6([0x2001, 0x30, 0, 0, 0, 0, 0, 0], 28), "2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", C::Orchid, "RFC 9374"),
    row(R::Ipv6Special, v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), "2001:db8::/32", "Documentation", C::Documentation, "RFC 3849"),
    row(R::Ipv6Special, v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16), "2002::/16", "6to4", C::Translation, "RFC 3056"),
    row(R::Ipv6Special, v6([0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0], 48), "2620:4f:8000::/48", "Direct Delegation AS112 Service", C::As112, "RFC 7534"),
    row(R::Ipv6Special, v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), "3fff::/20", "Documentation", C::Documentation, "RFC 9637"),
    row(R::Ipv6Special, v6([0x5f00, 0, 0, 0, 0, 0, 0, 0], 16), "5f00::/16", "Segment Routing (SRv6) SIDs", C::SegmentRouting, "RFC 9602"),
    row(R::Ipv6Special, v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7), "fc00::/7", "Unique-Local", C::UniqueLocal, "RFC 4193, RFC 8190"),
    row(R::Ipv6Special, v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10), "fe80::/10", "Link-Local Unicast", C::LinkLocal, "RFC 4291"),
    // IANA IPv6 Address Space Registry: everything outside global unicast 2000::/3
    // that the special-purpose registry does not already name, and RFC 4291's
    // deprecated IPv4-compatible addresses.
    row(R::Ipv6AddressSpace, v6([0, 0, 0, 0, 0, 0, 0, 0], 8), "::/8", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0, 0, 0, 0, 0, 0, 0, 0], 96), "::/96", "IPv4-compatible Address (deprecated)", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0x100, 0, 0, 0, 0, 0, 0, 0], 8), "100::/8", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0x200, 0, 0, 0, 0, 0, 0, 0], 7), "200::/7", "Reserved by IETF", C::Reserved, "RFC 4048"),
    row(R::Ipv6AddressSpace, v6([0x400, 0, 0, 0, 0, 0, 0, 0], 6), "400::/6", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0x800, 0, 0, 0, 0, 0, 0, 0], 5), "800::/5", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0x1000, 0, 0, 0, 0, 0, 0, 0], 4), "1000::/4", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0x4000, 0, 0, 0, 0, 0, 0, 0], 3), "4000::/3", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0x6000, 0, 0, 0, 0, 0, 0, 0], 3), "6000::/3", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0x8000, 0, 0, 0, 0, 0, 0, 0], 3), "8000::/3", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0xa000, 0, 0, 0, 0, 0, 0, 0], 3), "a000::/3", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0xc000, 0, 0, 0, 0, 0, 0, 0], 3), "c000::/3", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0xe000, 0, 0, 0, 0, 0, 0, 0], 4), "e000::/4", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0xf000, 0, 0, 0, 0, 0, 0, 0], 5), "f000::/5", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0xf800, 0, 0, 0, 0, 0, 0, 0], 6), "f800::/6", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0xfe00, 0, 0, 0, 0, 0, 0, 0], 9), "fe00::/9", "Reserved by IETF", C::Reserved, "RFC 4291"),
    row(R::Ipv6AddressSpace, v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10), "fec0::/10", "Site-Local Unicast (deprecated)", C::SiteLocal, "RFC 3879"),
    row(R::Ipv6AddressSpace, v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8), "ff00::/8", "Multicast", C::Multicast, "RFC 4291"),
    // Cloud metadata endpoints, each from its vendor's documentation.
    row(R::CloudMetadata, v4([100, 100, 100, 200], 32), "100.100.100.200/32", "Alibaba Cloud ECS metadata service", C::CloudMetadata, "Alibaba Cloud ECS documentation"),
    row(R::CloudMetadata, v4([168, 63, 129, 16], 32), "168.63.129.16/32", "Azure WireServer", C::CloudMetadata, "Microsoft Azure documentation"),
    row(R::CloudMetadata, v4([169, 254, 0, 23], 32), "169.254.0.23/32", "Tencent Cloud metadata service", C::CloudMetadata, "Tencent Cloud CVM documentation"),
    row(R::CloudMetadata, v4([169, 254, 42, 42], 32), "169.254.42.42/32", "Scaleway instance metadata service", C::CloudMetadata, "Scaleway documentation"),
    row(R::CloudMetadata, v4([169, 254, 169, 254], 32), "169.254.169.254/32", "Instance metadata service", C::CloudMetadata, "AWS, Google Cloud, Azure, OCI and OpenStack documentation"),
    row(R::CloudMetadata, v4([169, 254, 170, 2], 32), "169.254.170.2/32", "AWS ECS task metadata and credentials", C::CloudMetadata, "AWS ECS documentation"),
    row(R::CloudMetadata, v4([169, 254, 170, 23], 32), "169.254.170.23/32", "AWS EKS Pod Identity Agent", C::CloudMetadata, "AWS EKS documentation"),
    row(R::CloudMetadata, v4([192, 0, 0, 192], 32), "192.0.0.192/32", "Oracle Cloud metadata service", C::CloudMetadata, "Oracle Cloud Infrastructure documentation"),
    row(R::CloudMetadata, v6([0xfd00, 0x42, 0, 0, 0, 0, 0, 0x42], 128), "fd00:42::42/128", "Scaleway instance metadata service (IPv6)", C::CloudMetadata, "Scaleway documentation"),
    row(R::CloudMetadata, v6([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x23], 128), "fd00:ec2::23/128", "AWS EKS Pod Identity Agent (IPv6)", C::CloudMetadata, "AWS EKS documentation"),
    row(R::CloudMetadata, v6([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254], 128), "fd00:ec2::254/128", "AWS instance metadata service (IPv6)", C::CloudMetadata, "AWS EC2 documentation"),
    row(R::CloudMetadata, v6([0xfd20, 0xce, 0, 0, 0, 0, 0, 0x254], 128), "fd20:ce::254/128", "Google Cloud metadata server (IPv6)", C::CloudMetadata, "Google Cloud documentation"),
    row(R::CloudMetadata, v6([0xfe80, 0, 0, 0, 0, 0, 0xa9fe, 0xa9fe], 128), "fe80::a9fe:a9fe/128", "OpenStack metadata service (IPv6)", C::CloudMetadata, "OpenStack Neutron documentation"),
];

/// The row a refusal of one of this machine's own addresses names. It is not part of
/// [`TABLE`]: which addresses are this host's is read from its interfaces when a
/// connection is checked, and the guard classifies them ([`Class::ThisHost`]).
pub static THIS_HOST: Entry = row(
    R::ThisHost,
    v4([0, 0, 0, 0], 0),
    "this machine's interfaces",
    "This host",
    C::ThisHost,
    "RFC 1122",
);

/// How an IPv6 address carries the IPv4 address that decided its classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Embedding {
    /// IPv4-mapped, `::ffff:a.b.c.d`: the address *is* the IPv4 address.
    Mapped,
    /// IPv4-compatible (deprecated), `::a.b.c.d`.
    Compatible,
    /// IPv4-translated (SIIT), `::ffff:0:a.b.c.d`.
    Translated,
    /// NAT64 well-known prefix, `64:ff9b::a.b.c.d`.
    Nat64,
    /// NAT64 local-use prefix `64:ff9b:1::/48`, in any RFC 6052 layout.
    Nat64Local,
    /// A network-specific NAT64 /96 prefix the operator named in `nat64-prefixes`.
    Nat64Network,
    /// 6to4, `2002:AABB:CCDD::/48`.
    SixToFour,
    /// The Teredo server address (bits 32–63).
    TeredoServer,
    /// The Teredo client address (the last 32 bits, inverted).
    TeredoClient,
}

impl Embedding {
    /// The embedding in words.
    pub fn label(self) -> &'static str {
        match self {
            Embedding::Mapped => "IPv4-mapped",
            Embedding::Compatible => "IPv4-compatible",
            Embedding::Translated => "IPv4-translated",
            Embedding::Nat64 => "NAT64",
            Embedding::Nat64Local => "local-use NAT64",
            Embedding::Nat64Network => "NAT64, network-specific prefix",
            Embedding::SixToFour => "6to4",
            Embedding::TeredoServer => "Teredo server",
            Embedding::TeredoClient => "Teredo client",
        }
    }

    /// The RFC that defines how the address is carried ("RFC 6052" for NAT64).
    pub fn rfc(self) -> &'static str {
        match self {
            Embedding::Mapped | Embedding::Compatible => "RFC 4291",
            Embedding::Translated => "RFC 2765",
            Embedding::Nat64 | Embedding::Nat64Network => "RFC 6052",
            Embedding::Nat64Local => "RFC 8215, RFC 6052",
            Embedding::SixToFour => "RFC 3056",
            Embedding::TeredoServer | Embedding::TeredoClient => "RFC 4380",
        }
    }
}

/// The IPv4 address an IPv6 address carries, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Embedded {
    /// How the address is carried.
    pub how: Embedding,
    /// The IPv4 address.
    pub v4: Ipv4Addr,
}

/// The verdict of [`classify`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classification {
    /// The most specific row covering the address that decided, or `None` when no row
    /// covers it (a public address).
    pub entry: Option<&'static Entry>,
    /// The embedded IPv4 address whose classification decided, when it did.
    pub via: Option<Embedded>,
}

impl Classification {
    /// The class of the address ([`Class::Public`] when no row decided).
    pub fn class(&self) -> Class {
        self.entry.map_or(Class::Public, |e| e.class)
    }

    /// How the default policy treats the address.
    pub fn reach(&self) -> Reach {
        self.class().reach()
    }

    /// Whether the default policy refuses the address.
    pub fn refused_by_default(&self) -> bool {
        self.class().refused_by_default()
    }
}

/// The most specific row of [`TABLE`] covering `ip`, looking at `ip` alone (no
/// embedded IPv4 address).
pub fn lookup(ip: IpAddr) -> Option<&'static Entry> {
    TABLE
        .iter()
        .filter(|e| e.net.contains(&ip))
        .max_by_key(|e| e.net.prefix_len())
}

/// Classifies an address: the most specific row covering it, or public. An IPv6 address
/// carrying an IPv4 address is classified by both, and the stricter verdict wins (see
/// [`Reach`]); an IPv4-mapped address is classified as its IPv4 address.
pub fn classify(ip: IpAddr) -> Classification {
    classify_with(ip, &[])
}

/// [`classify`], with the operator's own NAT64 prefixes (`nat64-prefixes`, /96 blocks)
/// known besides `64:ff9b::/96` and `64:ff9b:1::/48`: an address inside one is also
/// judged by the IPv4 address in its last 32 bits.
pub fn classify_with(ip: IpAddr, nat64: &[Ipv6Net]) -> Classification {
    let IpAddr::V6(v6) = ip else {
        return Classification {
            entry: lookup(ip),
            via: None,
        };
    };
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Classification {
            entry: lookup(IpAddr::V4(v4)),
            via: Some(Embedded {
                how: Embedding::Mapped,
                v4,
            }),
        };
    }
    let mut best = Classification {
        entry: lookup(ip),
        via: None,
    };
    for (embedded, counts) in embedded_v4(v6, nat64) {
        let entry = lookup(IpAddr::V4(embedded.v4));
        let candidate = Classification {
            entry,
            via: Some(embedded),
        };
        let reach = candidate.reach();
        let counts = match counts {
            Counts::Always => true,
            Counts::IfMetadata => reach == Reach::Metadata,
        };
        if counts && reach > best.reach() {
            best = candidate;
        }
    }
    best
}

/// Whether an embedded candidate's verdict is taken into account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counts {
    /// Always: the layout is certain.
    Always,
    /// Only when it finds a cloud metadata endpoint: the layout is one of several an
    /// operator may have chosen, and the block itself is already refused by default.
    IfMetadata,
}

/// The IPv4 addresses `v6` carries whose verdict counts toward its classification (see
/// [`classify_with`]), other than the IPv4-mapped form (which *is* its IPv4 address):
/// the certain layouts always, the guessed ones when they find a cloud metadata
/// endpoint. The guard matches such an address against IPv4 `allow-cidrs` blocks
/// through these.
pub fn carried(v6: Ipv6Addr, nat64: &[Ipv6Net]) -> Vec<Embedded> {
    embedded_v4(v6, nat64)
        .into_iter()
        .filter(|(embedded, counts)| match counts {
            Counts::Always => true,
            Counts::IfMetadata => {
                lookup(IpAddr::V4(embedded.v4)).is_some_and(|e| e.class.reach() == Reach::Metadata)
            }
        })
        .map(|(embedded, _)| embedded)
        .collect()
}

/// The IPv4 addresses an IPv6 address may carry, other than the IPv4-mapped form.
fn embedded_v4(v6: Ipv6Addr, nat64: &[Ipv6Net]) -> Vec<(Embedded, Counts)> {
    let bits = v6.to_bits();
    let o = v6.octets();
    let at = |how, bytes: [u8; 4]| Embedded {
        how,
        v4: Ipv4Addr::from(bytes),
    };
    let low32 = [o[12], o[13], o[14], o[15]];
    let mut out = Vec::new();
    // ::a.b.c.d, deprecated IPv4-compatible; :: and ::1 are their own rows.
    if bits >> 32 == 0 && bits > 1 {
        out.push((at(Embedding::Compatible, low32), Counts::Always));
    }
    // ::ffff:0:a.b.c.d, IPv4-translated (RFC 2765).
    if bits >> 32 == 0xffff_0000 {
        out.push((at(Embedding::Translated, low32), Counts::Always));
    }
    // 64:ff9b::/96, the NAT64 well-known prefix.
    if bits >> 32 == 0x0064_ff9b_0000_0000_0000_0000 {
        out.push((at(Embedding::Nat64, low32), Counts::Always));
    }
    // 64:ff9b:1::/48, local-use NAT64, in every RFC 6052 layout a /48 allows: the /96
    // layout counts; the /48, /56 and /64 layouts (which skip the "u" octet, bits
    // 64–71) count when they reveal a cloud metadata endpoint.
    if bits >> 80 == 0x0064_ff9b_0001 {
        out.push((at(Embedding::Nat64Local, low32), Counts::Always));
        let skip_u: Vec<u8> = o
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 8)
            .map(|(_, b)| *b)
            .collect();
        for start in [6usize, 7, 8] {
            if let Some(&[a, b, c, d]) = skip_u.get(start..start + 4) {
                out.push((at(Embedding::Nat64Local, [a, b, c, d]), Counts::IfMetadata));
            }
        }
    }
    // The operator's network-specific NAT64 prefixes: the /96 layout.
    if nat64
        .iter()
        .any(|net| net.prefix_len() == 96 && net.contains(&v6))
    {
        out.push((at(Embedding::Nat64Network, low32), Counts::Always));
    }
    // 2002:AABB:CCDD::/48, 6to4.
    if bits >> 112 == 0x2002 {
        out.push((
            at(Embedding::SixToFour, [o[2], o[3], o[4], o[5]]),
            Counts::Always,
        ));
    }
    // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, Teredo; the client address is inverted.
    if bits >> 96 == 0x2001_0000 {
        out.push((
            at(Embedding::TeredoServer, [o[4], o[5], o[6], o[7]]),
            Counts::Always,
        ));
        out.push((
            at(Embedding::TeredoClient, [!o[12], !o[13], !o[14], !o[15]]),
            Counts::Always,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn first(net: IpNet) -> IpAddr {
        net.network()
    }

    fn last(net: IpNet) -> IpAddr {
        net.broadcast()
    }

    fn step(ip: IpAddr, up: bool) -> Option<IpAddr> {
        match ip {
            IpAddr::V4(a) => {
                let n = a.to_bits();
                let n = if up {
                    n.checked_add(1)
                } else {
                    n.checked_sub(1)
                }?;
                Some(IpAddr::V4(Ipv4Addr::from_bits(n)))
            }
            IpAddr::V6(a) => {
                let n = a.to_bits();
                let n = if up {
                    n.checked_add(1)
                } else {
                    n.checked_sub(1)
                }?;
                Some(IpAddr::V6(Ipv6Addr::from_bits(n)))
            }
        }
    }

    /// Each row: its text matches its block, and the block has no host bits.
    #[test]
    fn blocks_are_written_as_they_are() {
        for e in TABLE {
            assert_eq!(e.net.to_string(), e.block, "row {:?}", e.name);
            assert_eq!(e.net, e.net.trunc(), "{} has host bits set", e.block);
            let parsed: IpNet = e.block.parse().unwrap();
            assert_eq!(parsed, e.net, "{} does not parse to its net", e.block);
        }
    }

    /// Tidy: every row has a name and a source; no two rows share a block; rows of one
    /// registry are sorted by address, then prefix length; a row's family matches its
    /// registry.
    #[test]
    fn table_is_tidy() {
        for e in TABLE {
            assert!(!e.name.trim().is_empty(), "{} has no name", e.block);
            assert!(
                e.rfc.starts_with("RFC ") || e.rfc.ends_with("documentation"),
                "{} has no RFC or source: {:?}",
                e.block,
                e.rfc
            );
            let v4 = matches!(e.net, IpNet::V4(_));
            match e.registry {
                Registry::Ipv4Special | Registry::Ipv4AddressSpace => {
                    assert!(v4, "{} is IPv6 in an IPv4 registry", e.block)
                }
                Registry::Ipv6Special | Registry::Ipv6AddressSpace => {
                    assert!(!v4, "{} is IPv4 in an IPv6 registry", e.block)
                }
                Registry::CloudMetadata => {
                    assert_eq!(e.class, Class::CloudMetadata, "{}", e.block);
                    assert_eq!(e.net.prefix_len(), e.net.max_prefix_len(), "{}", e.block);
                }
                Registry::ThisHost => panic!("{}: this host is not a row of the table", e.block),
            }
        }
        for (i, a) in TABLE.iter().enumerate() {
            for b in &TABLE[i + 1..] {
                assert_ne!(a.net, b.net, "duplicate rows for {}", a.block);
            }
        }
        let key = |e: &Entry| -> (u8, u128, u8) {
            match e.net {
                IpNet::V4(n) => (4, u128::from(n.addr().to_bits()), n.prefix_len()),
                IpNet::V6(n) => (6, n.addr().to_bits(), n.prefix_len()),
            }
        };
        for pair in TABLE.windows(2) {
            if pair[0].registry == pair[1].registry {
                assert!(
                    key(&pair[0]) < key(&pair[1]),
                    "{:?} is not sorted: {} comes before {}",
                    pair[0].registry,
                    pair[0].block,
                    pair[1].block
                );
            }
        }
        // Registries are contiguous: once one ends it does not come back.
        let mut seen = Vec::new();
        for e in TABLE {
            if seen.last() != Some(&e.registry) {
                assert!(!seen.contains(&e.registry), "{:?} is split", e.registry);
                seen.push(e.registry);
            }
        }
    }

    /// Every class in `Class::ALL` once, with a distinct id and label.
    #[test]
    fn classes_have_distinct_ids_and_labels() {
        for (i, a) in Class::ALL.iter().enumerate() {
            for b in &Class::ALL[i + 1..] {
                assert_ne!(a, b);
                assert_ne!(a.id(), b.id());
                assert_ne!(a.label(), b.label());
            }
        }
        for e in TABLE {
            assert!(Class::ALL.contains(&e.class));
        }
    }

    /// For every row, its first and last address are covered by the row itself or by a
    /// row nested in it, and the addresses just outside it are not covered by it.
    #[test]
    fn every_block_boundary_from_the_table() {
        for e in TABLE {
            for inside in [first(e.net), last(e.net)] {
                let got = lookup(inside).unwrap();
                assert!(
                    got == e || (e.net.contains(&got.net) && got.net != e.net),
                    "{inside} in {} looked up as {}",
                    e.block,
                    got.block
                );
            }
            for outside in [step(first(e.net), false), step(last(e.net), true)]
                .into_iter()
                .flatten()
            {
                assert!(!e.net.contains(&outside));
                if let Some(got) = lookup(outside) {
                    assert!(
                        got != e && !e.net.contains(&got.net),
                        "{outside}, outside {}, looked up as {}",
                        e.block,
                        got.block
                    );
                }
            }
        }
    }

    /// Hand-written boundaries, independent of the table, so a typo in a row (say
    /// 172.16.0.0/13) fails: (first, last, class, block) and the addresses just outside
    /// with their expected class.
    #[test]
    fn important_boundaries_by_hand() {
        type Boundary = (
            &'static str,
            &'static str,
            Class,
            &'static str,
            &'static str,
            Class,
            &'static str,
            Class,
        );
        #[rustfmt::skip]
        let cases: &[Boundary] = &[
            // first, last, class, block,   before, its class, after, its class
            ("0.0.0.1", "0.255.255.255", Class::ThisNetwork, "0.0.0.0/8", "0.0.0.0", Class::Unspecified, "1.0.0.0", Class::Public),
            ("10.0.0.0", "10.255.255.255", Class::Private, "10.0.0.0/8", "9.255.255.255", Class::Public, "11.0.0.0", Class::Public),
            ("100.64.0.0", "100.127.255.255", Class::Shared, "100.64.0.0/10", "100.63.255.255", Class::Public, "100.128.0.0", Class::Public),
            ("127.0.0.0", "127.255.255.255", Class::Loopback, "127.0.0.0/8", "126.255.255.255", Class::Public, "128.0.0.0", Class::Public),
            ("169.254.0.0", "169.254.255.255", Class::LinkLocal, "169.254.0.0/16", "169.253.255.255", Class::Public, "169.255.0.0", Class::Public),
            ("172.16.0.0", "172.31.255.255", Class::Private, "172.16.0.0/12", "172.15.255.255", Class::Public, "172.32.0.0", Class::Public),
            ("192.0.0.0", "192.0.0.7", Class::ProtocolAssignment, "192.0.0.0/29", "191.255.255.255", Class::Public, "192.0.0.8", Class::Dummy),
            ("192.0.0.11", "192.0.0.255", Class::ProtocolAssignment, "192.0.0.0/24", "192.0.0.10", Class::ProtocolAssignment, "192.0.1.0", Class::Public),
            ("192.0.2.0", "192.0.2.255", Class::Documentation, "192.0.2.0/24", "192.0.1.255", Class::Public, "192.0.3.0", Class::Public),
            ("192.88.99.0", "192.88.99.255", Class::RelayAnycast, "192.88.99.0/24", "192.88.98.255", Class::Public, "192.88.100.0", Class::Public),
            ("192.168.0.0", "192.168.255.255", Class::Private, "192.168.0.0/16", "192.167.255.255", Class::Public, "192.169.0.0", Class::Public),
            ("198.18.0.0", "198.19.255.255", Class::Benchmarking, "198.18.0.0/15", "198.17.255.255", Class::Public, "198.20.0.0", Class::Public),
            ("198.51.100.0", "198.51.100.255", Class::Documentation, "198.51.100.0/24", "198.51.99.255", Class::Public, "198.51.101.0", Class::Public),
            ("203.0.113.0", "203.0.113.255", Class::Documentation, "203.0.113.0/24", "203.0.112.255", Class::Public, "203.0.114.0", Class::Public),
            ("224.0.0.0", "239.255.255.255", Class::Multicast, "224.0.0.0/4", "223.255.255.255", Class::Public, "240.0.0.0", Class::Reserved),
            ("240.0.0.0", "255.255.255.254", Class::Reserved, "240.0.0.0/4", "239.255.255.255", Class::Multicast, "255.255.255.255", Class::Broadcast),
            ("169.254.169.254", "169.254.169.254", Class::CloudMetadata, "169.254.169.254/32", "169.254.169.253", Class::LinkLocal, "169.254.169.255", Class::LinkLocal),
            ("169.254.170.2", "169.254.170.2", Class::CloudMetadata, "169.254.170.2/32", "169.254.170.1", Class::LinkLocal, "169.254.170.3", Class::LinkLocal),
            ("100.100.100.200", "100.100.100.200", Class::CloudMetadata, "100.100.100.200/32", "100.100.100.199", Class::Shared, "100.100.100.201", Class::Shared),
            ("168.63.129.16", "168.63.129.16", Class::CloudMetadata, "168.63.129.16/32", "168.63.129.15", Class::Public, "168.63.129.17", Class::Public),
            ("192.0.0.192", "192.0.0.192", Class::CloudMetadata, "192.0.0.192/32", "192.0.0.191", Class::ProtocolAssignment, "192.0.0.193", Class::ProtocolAssignment),
            ("fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::UniqueLocal, "fc00::/7", "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::Reserved, "fe00::", Class::Reserved),
            ("fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::LinkLocal, "fe80::/10", "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::Reserved, "fec0::", Class::SiteLocal),
            ("fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::SiteLocal, "fec0::/10", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::LinkLocal, "ff00::", Class::Multicast),
            ("ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::Multicast, "ff00::/8", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::SiteLocal, "::", Class::Unspecified),
            ("100::", "100::ffff:ffff:ffff:ffff", Class::DiscardOnly, "100::/64", "ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::Reserved, "100:0:0:1::", Class::Dummy),
            ("2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", Class::Documentation, "2001:db8::/32", "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", Class::Public, "2001:db9::", Class::Public),
            ("3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", Class::Documentation, "3fff::/20", "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::Public, "3fff:1000::", Class::Public),
            ("2001:2::", "2001:2:0:ffff:ffff:ffff:ffff:ffff", Class::Benchmarking, "2001:2::/48", "2001:1:ffff:ffff:ffff:ffff:ffff:ffff", Class::ProtocolAssignment, "2001:2:1::", Class::ProtocolAssignment),
            ("2001:20::", "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff", Class::Orchid, "2001:20::/28", "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff", Class::Orchid, "2001:30::", Class::Orchid),
            ("2001:200::", "2001:200::1", Class::Public, "", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", Class::ProtocolAssignment, "2001:200::2", Class::Public),
            ("5f00::", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::SegmentRouting, "5f00::/16", "5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::Reserved, "5f01::", Class::Reserved),
            ("2000::", "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::Public, "", "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Class::Reserved, "4000::", Class::Reserved),
            ("fd00:ec2::254", "fd00:ec2::254", Class::CloudMetadata, "fd00:ec2::254/128", "fd00:ec2::253", Class::UniqueLocal, "fd00:ec2::255", Class::UniqueLocal),
            ("64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", Class::LocalTranslation, "64:ff9b:1::/48", "64:ff9b:0:ffff:ffff:ffff:ffff:ffff", Class::Reserved, "64:ff9b:2::", Class::Reserved),
        ];
        for &(lo, hi, class, block, before, before_class, after, after_class) in cases {
            for inside in [lo, hi] {
                let got = lookup(ip(inside));
                assert_eq!(got.map_or(Class::Public, |e| e.class), class, "{inside}");
                assert_eq!(got.map_or("", |e| e.block), block, "{inside}");
            }
            let got = lookup(ip(before)).map_or(Class::Public, |e| e.class);
            assert_eq!(got, before_class, "{before}, just before {lo}");
            let got = lookup(ip(after)).map_or(Class::Public, |e| e.class);
            assert_eq!(got, after_class, "{after}, just after {hi}");
        }
    }

    /// Every row of the IANA special-purpose registries is present.
    #[test]
    fn special_purpose_registries_are_complete() {
        let v4 = [
            "0.0.0.0/8",
            "0.0.0.0/32",
            "10.0.0.0/8",
            "100.64.0.0/10",
            "127.0.0.0/8",
            "169.254.0.0/16",
            "172.16.0.0/12",
            "192.0.0.0/24",
            "192.0.0.0/29",
            "192.0.0.8/32",
            "192.0.0.9/32",
            "192.0.0.10/32",
            "192.0.0.170/32",
            "192.0.0.171/32",
            "192.0.2.0/24",
            "192.31.196.0/24",
            "192.52.193.0/24",
            "192.88.99.0/24",
            "192.168.0.0/16",
            "192.175.48.0/24",
            "198.18.0.0/15",
            "198.51.100.0/24",
            "203.0.113.0/24",
            "240.0.0.0/4",
            "255.255.255.255/32",
        ];
        let v6 = [
            "::1/128",
            "::/128",
            "::ffff:0:0/96",
            "64:ff9b::/96",
            "64:ff9b:1::/48",
            "100::/64",
            "100:0:0:1::/64",
            "2001::/23",
            "2001::/32",
            "2001:1::1/128",
            "2001:1::2/128",
            "2001:1::3/128",
            "2001:2::/48",
            "2001:3::/32",
            "2001:4:112::/48",
            "2001:10::/28",
            "2001:20::/28",
            "2001:30::/28",
            "2001:db8::/32",
            "2002::/16",
            "2620:4f:8000::/48",
            "3fff::/20",
            "5f00::/16",
            "fc00::/7",
            "fe80::/10",
        ];
        for (registry, blocks) in [
            (Registry::Ipv4Special, &v4[..]),
            (Registry::Ipv6Special, &v6[..]),
        ] {
            for block in blocks {
                let net: IpNet = block.parse().unwrap();
                assert!(
                    TABLE.iter().any(|e| e.net == net && e.registry == registry),
                    "{block} missing from {registry:?}"
                );
            }
            let rows = TABLE.iter().filter(|e| e.registry == registry).count();
            assert_eq!(
                rows,
                blocks.len(),
                "{registry:?} has rows the registry lacks"
            );
        }
    }

    #[test]
    fn classes_refusals_and_keys() {
        let cases = [
            (
                "127.0.0.1",
                "loopback",
                true,
                Some(ConfigKey::AllowLoopback),
                false,
            ),
            (
                "10.1.2.3",
                "private",
                true,
                Some(ConfigKey::AllowPrivate),
                false,
            ),
            (
                "100.64.0.1",
                "shared",
                true,
                Some(ConfigKey::AllowPrivate),
                false,
            ),
            (
                "169.254.1.1",
                "link-local",
                true,
                Some(ConfigKey::AllowPrivate),
                false,
            ),
            (
                "fd12::1",
                "unique-local",
                true,
                Some(ConfigKey::AllowPrivate),
                false,
            ),
            (
                "fec0::1",
                "site-local",
                true,
                Some(ConfigKey::AllowPrivate),
                false,
            ),
            ("169.254.169.254", "cloud-metadata", true, None, true),
            ("192.0.2.1", "documentation", true, None, false),
            ("224.0.0.1", "multicast", true, None, false),
            ("255.255.255.255", "broadcast", true, None, false),
            ("0.0.0.0", "unspecified", true, None, false),
            ("::", "unspecified", true, None, false),
            ("0.1.2.3", "this-network", true, None, false),
            ("250.1.2.3", "reserved", true, None, false),
            ("100::1", "discard-only", true, None, false),
            ("192.0.0.8", "dummy", true, None, false),
            ("2001:20::1", "orchid", true, None, false),
            ("192.31.196.1", "as112", false, None, false),
            ("192.52.193.1", "amt", false, None, false),
            ("8.8.8.8", "public", false, None, false),
            ("2606:4700::1111", "public", false, None, false),
        ];
        for (addr, id, refused, key, only_exact) in cases {
            let c = classify(ip(addr));
            assert_eq!(c.class().id(), id, "{addr}");
            assert_eq!(c.refused_by_default(), refused, "{addr}");
            assert_eq!(c.class().key(), key, "{addr}");
            assert_eq!(c.class().only_exact(), only_exact, "{addr}");
        }
    }

    /// Every cloud metadata endpoint is its own class, inside or outside the block
    /// around it.
    #[test]
    fn cloud_metadata_endpoints() {
        for addr in [
            "169.254.169.254",
            "169.254.170.2",
            "169.254.170.23",
            "169.254.0.23",
            "169.254.42.42",
            "100.100.100.200",
            "192.0.0.192",
            "168.63.129.16",
            "fd00:ec2::254",
            "fd00:ec2::23",
            "fd20:ce::254",
            "fd00:42::42",
            "fe80::a9fe:a9fe",
        ] {
            let c = classify(ip(addr));
            assert_eq!(c.class(), Class::CloudMetadata, "{addr}");
            assert_eq!(c.class().label(), "cloud metadata endpoint");
        }
    }

    /// IPv6 addresses carrying IPv4 are classified by what they carry.
    #[test]
    fn embedded_ipv4() {
        type Case = (&'static str, Class, Option<(Embedding, &'static str)>);
        #[rustfmt::skip]
        let cases: &[Case] = &[
            ("::ffff:127.0.0.1", Class::Loopback, Some((Embedding::Mapped, "127.0.0.1"))),
            ("::ffff:7f00:1", Class::Loopback, Some((Embedding::Mapped, "127.0.0.1"))),
            ("::ffff:10.0.0.1", Class::Private, Some((Embedding::Mapped, "10.0.0.1"))),
            ("::ffff:8.8.8.8", Class::Public, Some((Embedding::Mapped, "8.8.8.8"))),
            ("::ffff:169.254.169.254", Class::CloudMetadata, Some((Embedding::Mapped, "169.254.169.254"))),
            // ::1 is loopback, never 0.0.0.1; :: is unspecified.
            ("::1", Class::Loopback, None),
            ("::", Class::Unspecified, None),
            // v4-compatible: the block is reserved, metadata is stricter still.
            ("::127.0.0.1", Class::Reserved, None),
            ("::8.8.8.8", Class::Reserved, None),
            ("::169.254.169.254", Class::CloudMetadata, Some((Embedding::Compatible, "169.254.169.254"))),
            ("::ffff:0:a9fe:a9fe", Class::CloudMetadata, Some((Embedding::Translated, "169.254.169.254"))),
            // NAT64 well-known prefix.
            ("64:ff9b::a00:1", Class::Private, Some((Embedding::Nat64, "10.0.0.1"))),
            ("64:ff9b::7f00:1", Class::Loopback, Some((Embedding::Nat64, "127.0.0.1"))),
            ("64:ff9b::a9fe:a9fe", Class::CloudMetadata, Some((Embedding::Nat64, "169.254.169.254"))),
            ("64:ff9b::808:808", Class::Translation, None),
            ("64:ff9b::e000:1", Class::Multicast, Some((Embedding::Nat64, "224.0.0.1"))),
            // NAT64 local-use: refused by itself; metadata found in any layout.
            ("64:ff9b:1::808:808", Class::LocalTranslation, None),
            ("64:ff9b:1::a9fe:a9fe", Class::CloudMetadata, Some((Embedding::Nat64Local, "169.254.169.254"))),
            ("64:ff9b:1:a9fe:a9:fe00::", Class::CloudMetadata, Some((Embedding::Nat64Local, "169.254.169.254"))),
            ("64:ff9b:1:a9:fe:a9fe::", Class::CloudMetadata, Some((Embedding::Nat64Local, "169.254.169.254"))),
            ("64:ff9b:1:0:a9:fea9:fe00:0", Class::CloudMetadata, Some((Embedding::Nat64Local, "169.254.169.254"))),
            // 6to4.
            ("2002:a9fe:a9fe::", Class::CloudMetadata, Some((Embedding::SixToFour, "169.254.169.254"))),
            ("2002:c0a8:101::1", Class::Private, Some((Embedding::SixToFour, "192.168.1.1"))),
            ("2002:7f00:1::", Class::Loopback, Some((Embedding::SixToFour, "127.0.0.1"))),
            ("2002:808:808::1", Class::Translation, None),
            // Teredo: server 65.54.227.120, client inverted (RFC 4380's example client
            // is the documentation address 192.0.2.45).
            ("2001:0:4136:e378:8000:63bf:3fff:fdd2", Class::Documentation, Some((Embedding::TeredoClient, "192.0.2.45"))),
            ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", Class::Translation, None),
            ("2001:0:4136:e378:8000:63bf:f5ff:fffe", Class::Private, Some((Embedding::TeredoClient, "10.0.0.1"))),
            ("2001:0:4136:e378:8000:63bf:80ff:fffe", Class::Loopback, Some((Embedding::TeredoClient, "127.0.0.1"))),
            ("2001:0:a9fe:a9fe::", Class::CloudMetadata, Some((Embedding::TeredoServer, "169.254.169.254"))),
            ("2001:0:a00:1:0:0:f7f7:f7f7", Class::Private, Some((Embedding::TeredoServer, "10.0.0.1"))),
        ];
        for &(addr, class, via) in cases {
            let c = classify(ip(addr));
            assert_eq!(c.class(), class, "{addr}: {c:?}");
            let want = via.map(|(how, v4)| Embedded {
                how,
                v4: v4.parse().unwrap(),
            });
            assert_eq!(c.via, want, "{addr}");
        }
    }

    /// An operator's NAT64 /96 prefix is unwrapped only when named; the carried IPv4
    /// addresses are the ones the verdict counts, and each way of carrying names its RFC.
    #[test]
    fn network_specific_nat64_and_carried_addresses() {
        let prefix: Ipv6Net = "2a01:4f8:64::/96".parse().unwrap();
        let peer = ip("2a01:4f8:64::a00:1");
        assert_eq!(classify(peer).class(), Class::Public);
        let c = classify_with(peer, &[prefix]);
        assert_eq!(c.class(), Class::Private);
        assert_eq!(
            c.via,
            Some(Embedded {
                how: Embedding::Nat64Network,
                v4: "10.0.0.1".parse().unwrap()
            })
        );
        // A prefix of another length is never taken for a /96.
        let wide: Ipv6Net = "2a01:4f8:64::/64".parse().unwrap();
        assert_eq!(classify_with(peer, &[wide]).class(), Class::Public);
        let v6 = |s: &str| s.parse::<Ipv6Addr>().unwrap();
        let carried_v4 = |s: &str| -> Vec<String> {
            carried(v6(s), &[prefix])
                .iter()
                .map(|e| e.v4.to_string())
                .collect()
        };
        assert_eq!(carried_v4("64:ff9b::a00:1"), ["10.0.0.1"]);
        assert_eq!(carried_v4("2a01:4f8:64::a00:1"), ["10.0.0.1"]);
        assert_eq!(carried_v4("2002:a00:1::"), ["10.0.0.1"]);
        assert!(carried_v4("2606:4700::1111").is_empty());
        // Local-use NAT64: the guessed layouts count only when they find metadata.
        assert_eq!(carried_v4("64:ff9b:1::808:808"), ["8.8.8.8"]);
        assert_eq!(
            carried_v4("64:ff9b:1:a9fe:a9:fe00::"),
            ["0.0.0.0", "169.254.169.254"]
        );
        assert_eq!(Embedding::Nat64.rfc(), "RFC 6052");
        assert_eq!(Embedding::Nat64Network.rfc(), "RFC 6052");
        assert_eq!(Embedding::SixToFour.rfc(), "RFC 3056");
        assert_eq!(Class::ThisHost.reach(), Reach::Loopback);
        assert_eq!(Class::ThisHost.key(), Some(ConfigKey::AllowLoopback));
        assert_eq!(THIS_HOST.class, Class::ThisHost);
        assert!(TABLE.iter().all(|e| e.class != Class::ThisHost));
    }

    proptest! {
        #[test]
        fn classify_never_panics(bits: u128, v4: u32) {
            let _ = classify(IpAddr::V6(Ipv6Addr::from_bits(bits)));
            let _ = classify(IpAddr::V4(Ipv4Addr::from_bits(v4)));
        }

        #[test]
        fn v4_and_v4_mapped_agree(v4: u32) {
            let a = Ipv4Addr::from_bits(v4);
            let plain = classify(IpAddr::V4(a));
            let mapped = classify(IpAddr::V6(a.to_ipv6_mapped()));
            prop_assert_eq!(plain.entry, mapped.entry);
            prop_assert_eq!(plain.class(), mapped.class());
        }

        #[test]
        fn nat64_and_6to4_never_less_strict_than_their_v4(v4: u32, tail: u64) {
            let a = Ipv4Addr::from_bits(v4);
            let plain = classify(IpAddr::V4(a)).reach();
            let nat64 = Ipv6Addr::from_bits((0x0064_ff9b_u128 << 96) | u128::from(v4));
            prop_assert!(classify(IpAddr::V6(nat64)).reach() >= plain);
            let six = Ipv6Addr::from_bits((0x2002_u128 << 112) | (u128::from(v4) << 80) | u128::from(tail));
            prop_assert!(classify(IpAddr::V6(six)).reach() >= plain);
        }

        #[test]
        fn the_most_specific_row_decides(bits: u128) {
            let addr = IpAddr::V6(Ipv6Addr::from_bits(bits));
            if let Some(e) = lookup(addr) {
                for other in TABLE.iter().filter(|o| o.net.contains(&addr)) {
                    prop_assert!(other.net.prefix_len() <= e.net.prefix_len());
                }
            } else {
                prop_assert!(TABLE.iter().all(|o| !o.net.contains(&addr)));
            }
        }
    }
}
