//! Fuzzes address classification and the guard: `classify` never panics, an IPv4
//! address and its IPv4-mapped form classify alike, the default policy refuses exactly
//! what the table says, `allow-private` and `allow-hosts` never open a cloud metadata
//! endpoint, an IPv6 `allow-cidrs` block never admits an address refused for the IPv4
//! address it carries, a listed own address is never public, and a NAT64 /96 prefix
//! judges its addresses by the IPv4 they carry. Run with `cargo fuzz run addr` from the
//! repository root.
#![no_main]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use libfuzzer_sys::fuzz_target;
use mcp_web_core::addr::{Class, Reach, classify, classify_with};
use mcp_web_core::guard::{Allowed, Policy};

fuzz_target!(|data: [u8; 20]| {
    let mut v6 = [0u8; 16];
    v6.copy_from_slice(&data[..16]);
    let v4 = Ipv4Addr::new(data[16], data[17], data[18], data[19]);
    let plain = classify(IpAddr::V4(v4));
    let mapped = classify(IpAddr::V6(v4.to_ipv6_mapped()));
    assert_eq!(plain.entry, mapped.entry, "{v4}");

    let private = Policy {
        allow_private: true,
        ..Policy::default()
    };
    for peer in [IpAddr::V4(v4), IpAddr::V6(Ipv6Addr::from(v6))] {
        let c = classify(peer);
        let verdict = Policy::default().decide("fuzz.example", peer, &[]);
        assert_eq!(verdict.is_err(), c.refused_by_default(), "{peer}");
        if let Err(b) = &verdict {
            assert_eq!(b.class(), c.class(), "{peer}");
        }
        let opened = private.decide("fuzz.example", peer, &[]);
        match c.reach() {
            Reach::Metadata | Reach::NoMachine => assert!(opened.is_err(), "{peer}"),
            Reach::Public => assert_eq!(opened, Ok(Allowed::Public), "{peer}"),
            Reach::Loopback | Reach::Machine => {
                assert_eq!(opened, Ok(Allowed::AllowPrivate), "{peer}")
            }
        }
        let hosts = Policy {
            allow_hosts: vec!["fuzz.example".into()],
            ..Policy::default()
        };
        if c.class() == Class::CloudMetadata {
            assert!(hosts.decide("fuzz.example", peer, &[]).is_err(), "{peer}");
        }
        let every_v6 = Policy {
            allow_cidrs: vec!["::/0".parse().unwrap()],
            ..Policy::default()
        };
        if c.via.is_some() && c.refused_by_default() {
            assert!(every_v6.decide("fuzz.example", peer, &[]).is_err(), "{peer}");
        }
        let own = Policy::default().decide("fuzz.example", peer, &[peer]);
        assert!(own.is_err(), "{peer} is this host");
    }
    // A network-specific NAT64 prefix: never less strict than the IPv4 it carries.
    let prefix = "2a01:4f8:64::/96".parse().unwrap();
    let nat64 = Ipv6Addr::from((0x2a01_04f8_0064_u128 << 80) | u128::from(v4.to_bits()));
    assert!(classify_with(IpAddr::V6(nat64), &[prefix]).reach() >= plain.reach(), "{v4}");
});
