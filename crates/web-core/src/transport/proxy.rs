//! The operator's HTTP proxy: `CONNECT <vetted-ip>:<port>`, never a name.

use std::fmt;
use std::io;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::error::ConfigError;
use crate::key::ConfigKey;

/// A proxy address, `http://host:port` (the `proxy` key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyUrl {
    host: String,
    port: u16,
}

impl ProxyUrl {
    /// Parses `http://host:port` (a trailing `/` allowed); anything else — another
    /// scheme, credentials, a path — is a configuration error naming `proxy`.
    pub fn parse(text: &str) -> Result<ProxyUrl, ConfigError> {
        let bad = |rule: &str| ConfigError::Value {
            key: ConfigKey::Proxy.to_string(),
            rule: rule.to_owned(),
        };
        let url =
            url::Url::parse(text).map_err(|_| bad("must be a URL of the form http://host:port"))?;
        if url.scheme() != "http" {
            return Err(bad(
                "must be an http:// URL (the tunnel to the proxy is plain HTTP CONNECT)",
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("must not carry credentials"));
        }
        if !matches!(url.path(), "" | "/") || url.query().is_some() || url.fragment().is_some() {
            return Err(bad(
                "must be just http://host:port, without a path or query",
            ));
        }
        let host = match url.host() {
            Some(url::Host::Domain(d)) => d.to_ascii_lowercase(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            None => return Err(bad("must name a host")),
        };
        let port = url.port_or_known_default().unwrap_or(80);
        Ok(ProxyUrl { host, port })
    }

    /// The proxy's host (IPv6 without brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The proxy's port.
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl fmt::Display for ProxyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "http://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "http://{}:{}", self.host, self.port)
        }
    }
}

/// Asks the proxy on `stream` for a tunnel to `target` and reads its answer; `Ok`
/// once it answered 2xx. The guarded transport names a vetted address, never a host
/// name; the operator connector names the operator's endpoint as written.
pub(super) async fn connect(stream: &mut TcpStream, target: impl fmt::Display) -> io::Result<()> {
    let request = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut head = Vec::with_capacity(256);
    let mut byte = [0u8; 1];
    // Byte by byte, so nothing after the proxy's answer (the tunnel) is consumed.
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() >= 8192 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "answer too long",
            ));
        }
        if stream.read(&mut byte).await? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the proxy closed the connection",
            ));
        }
        head.push(byte[0]);
    }
    let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split_whitespace();
    let version = parts.next().unwrap_or_default();
    let status = parts.next().unwrap_or_default();
    if !version.starts_with("HTTP/1.") {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not HTTP: {line}"),
        ));
    }
    if !status.starts_with('2') || status.len() != 3 {
        return Err(io::Error::other(format!("answered {line}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_url_shapes() {
        let p = ProxyUrl::parse("http://proxy.corp:3128").unwrap();
        assert_eq!((p.host(), p.port()), ("proxy.corp", 3128));
        assert_eq!(p.to_string(), "http://proxy.corp:3128");
        let p = ProxyUrl::parse("http://[::1]:8080/").unwrap();
        assert_eq!((p.host(), p.port()), ("::1", 8080));
        assert_eq!(p.to_string(), "http://[::1]:8080");
        assert_eq!(ProxyUrl::parse("http://p").unwrap().port(), 80);
        for bad in [
            "socks5://p:1080",
            "http://u:pw@p:1",
            "http://p:1/path",
            "p:1",
            "",
        ] {
            let err = ProxyUrl::parse(bad).unwrap_err();
            assert_eq!(err.key(), Some("proxy"), "{bad}");
        }
    }
}
