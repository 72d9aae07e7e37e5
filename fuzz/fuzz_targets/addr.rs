//! Fuzzes address classification and the guard: `classify` never panics, an IPv4
//! address and its IPv4-mapped form classify alike, the default policy refuses exactly
//! what the table says, and `allow-private` never opens a cloud metadata endpoint.
//! Run with `cargo fuzz run addr` from the repository root.
#![no_main]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use libfuzzer_sys::fuzz_target;
use mcp_web_core::addr::{Reach, classify};
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
        let verdict = Policy::default().decide("fuzz.example", peer);
        assert_eq!(verdict.is_err(), c.refused_by_default(), "{peer}");
        if let Err(b) = &verdict {
            assert_eq!(b.class(), c.class(), "{peer}");
        }
        let opened = private.decide("fuzz.example", peer);
        match c.reach() {
            Reach::Metadata | Reach::NoMachine => assert!(opened.is_err(), "{peer}"),
            Reach::Public => assert_eq!(opened, Ok(Allowed::Public), "{peer}"),
            Reach::Loopback | Reach::Machine => {
                assert_eq!(opened, Ok(Allowed::AllowPrivate), "{peer}")
            }
        }
    }
});
