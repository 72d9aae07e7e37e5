//! Stand-ins for `url::CheckedUrl` and `guard::Policy` until those modules land; the
//! signatures match their contracts so swapping the imports is the whole change.

use std::fmt;
use std::net::IpAddr;

use ipnet::IpNet;

use crate::error::{BadUrl, BadUrlReason, Blocked};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin(String, String, u16);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CheckedUrl(url::Url);

impl CheckedUrl {
    pub fn parse(s: &str) -> Result<CheckedUrl, BadUrl> {
        let bad = |reason| BadUrl {
            url: redact(s),
            reason,
        };
        let u = url::Url::parse(s).map_err(|e| bad(BadUrlReason::Unparseable(e.to_string())))?;
        Self::check(u).map_err(bad)
    }
    fn check(mut u: url::Url) -> Result<CheckedUrl, BadUrlReason> {
        if u.scheme() != "http" && u.scheme() != "https" {
            return Err(BadUrlReason::Scheme(u.scheme().to_owned()));
        }
        if !u.username().is_empty() || u.password().is_some() {
            return Err(BadUrlReason::Credentials);
        }
        if u.host_str().is_none_or(str::is_empty) {
            return Err(BadUrlReason::EmptyHost);
        }
        u.set_fragment(None);
        Ok(CheckedUrl(u))
    }
    pub fn join(&self, location: &str) -> Result<CheckedUrl, BadUrl> {
        let bad = |reason| BadUrl {
            url: redact(location),
            reason,
        };
        let u = self
            .0
            .join(location)
            .map_err(|e| bad(BadUrlReason::Unparseable(e.to_string())))?;
        let shown = redact(u.as_str());
        Self::check(u).map_err(|reason| BadUrl { url: shown, reason })
    }
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
    pub fn url(&self) -> &url::Url {
        &self.0
    }
    pub fn is_https(&self) -> bool {
        self.0.scheme() == "https"
    }
    pub fn host(&self) -> &str {
        let h = self.0.host_str().unwrap_or("");
        h.strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(h)
    }
    pub fn ip(&self) -> Option<IpAddr> {
        self.host().parse().ok()
    }
    pub fn port(&self) -> u16 {
        self.0.port_or_known_default().unwrap_or(80)
    }
    pub fn origin(&self) -> Origin {
        Origin(
            self.0.scheme().to_owned(),
            self.host().to_owned(),
            self.port(),
        )
    }
    pub fn authority(&self) -> String {
        match self.ip() {
            Some(IpAddr::V6(_)) => format!("[{}]:{}", self.host(), self.port()),
            _ => format!("{}:{}", self.host(), self.port()),
        }
    }
}

impl fmt::Display for CheckedUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact(self.as_str()))
    }
}

pub fn redact(s: &str) -> String {
    s.chars().take(300).collect()
}

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
