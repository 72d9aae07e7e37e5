//! TLS on a vetted socket: rustls with the ring provider, ALPN `h2` and `http/1.1`,
//! webpki's roots plus the operator's `ca-file`. Verification is never skipped.

use std::io;
use std::path::Path;
use std::sync::Arc;

use rustls::RootCertStore;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use super::CheckedPeer;
use crate::error::ConfigError;
use crate::key::ConfigKey;

/// The TLS client configuration shared by every connection of one transport.
pub(super) fn connector(ca_file: Option<&Path>) -> Result<TlsConnector, ConfigError> {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(path) = ca_file {
        let bad = |rule: String| ConfigError::Value {
            key: ConfigKey::CaFile.to_string(),
            rule,
        };
        let certs = CertificateDer::pem_file_iter(path).map_err(|e| {
            bad(format!(
                "must name a readable PEM file ({}: {e})",
                path.display()
            ))
        })?;
        let mut added = 0usize;
        for cert in certs {
            let cert = cert.map_err(|e| {
                bad(format!(
                    "must hold PEM certificates ({}: {e})",
                    path.display()
                ))
            })?;
            roots.add(cert).map_err(|e| {
                bad(format!(
                    "holds a certificate rustls refuses ({}: {e})",
                    path.display()
                ))
            })?;
            added += 1;
        }
        if added == 0 {
            return Err(bad(format!(
                "must hold at least one PEM certificate ({} holds none)",
                path.display()
            )));
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ConfigError::Value {
            key: ConfigKey::CaFile.to_string(),
            rule: format!("could not build the TLS configuration: {e}"),
        })?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsConnector::from(Arc::new(config)))
}

/// The TLS handshake, which needs the proof that the peer was vetted. SNI carries the
/// host name of the URL (or its IP literal), never the vetted address.
pub(super) async fn handshake(
    connector: &TlsConnector,
    stream: TcpStream,
    _peer: &CheckedPeer,
    host: &str,
) -> io::Result<TlsStream<TcpStream>> {
    let name = ServerName::try_from(host.to_owned())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    connector.connect(name, stream).await
}
