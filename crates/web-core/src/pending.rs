//! A stand-in for `guard::Policy` until that module lands; the signature matches its
//! contract so swapping the import is the whole change.

use std::net::IpAddr;

use ipnet::IpNet;

use crate::error::Blocked;

#[derive(Debug, Clone, Default)]
pub struct Policy {
    pub allow_private: bool,
    pub allow_loopback: bool,
    pub allow_hosts: Vec<String>,
    pub allow_cidrs: Vec<IpNet>,
}

#[derive(Debug, Clone, Copy)]
pub struct Allowed;

impl Policy {
    pub fn decide(&self, host: &str, peer: IpAddr) -> Result<Allowed, Blocked> {
        let peer = match peer {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(peer, IpAddr::V4),
            v4 => v4,
        };
        if self.allow_cidrs.iter().any(|n| n.contains(&peer))
            || self.allow_hosts.iter().any(|h| h == host)
        {
            return Ok(Allowed);
        }
        let (class, key, ok) = match peer {
            IpAddr::V4(v4) if v4.is_loopback() => (
                "loopback",
                "allow-loopback",
                self.allow_loopback || self.allow_private,
            ),
            IpAddr::V6(v6) if v6.is_loopback() => (
                "loopback",
                "allow-loopback",
                self.allow_loopback || self.allow_private,
            ),
            IpAddr::V4(v4) if v4.is_private() || v4.is_link_local() || v4.is_unspecified() => {
                ("private", "allow-private", self.allow_private)
            }
            IpAddr::V6(v6)
                if v6.is_unspecified()
                    || (v6.segments()[0] & 0xfe00) == 0xfc00
                    || (v6.segments()[0] & 0xffc0) == 0xfe80 =>
            {
                ("private", "allow-private", self.allow_private)
            }
            _ => return Ok(Allowed),
        };
        if ok {
            return Ok(Allowed);
        }
        Err(Blocked {
            host: host.to_owned(),
            address: peer,
            class,
            class_label: if class == "loopback" {
                "loopback address"
            } else {
                "private address"
            },
            block_name: class,
            block: "",
            rfc: "RFC",
            key: Some(key),
            only_exact: false,
        })
    }
}
