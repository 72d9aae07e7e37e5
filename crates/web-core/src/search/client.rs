//! The search providers' HTTP client: GETs to the operator's endpoint over the
//! unguarded operator connector (pooled keep-alive connections), within `timeout`,
//! the body read up to a cap, every failure turned into a [`SearchFailure`].

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use url::Url;

use crate::error::{ConfigError, Error, SearchFailure, TransportFailure};
use crate::key::ConfigKey;
use crate::transport::operator::OperatorConnector;
use crate::transport::{ConnectError, NetworkOptions, Resolve};

/// The most bytes of one answer read: a page of twenty results is tens of KiB.
pub(super) const MAX_BODY: usize = 4 * 1024 * 1024;

/// A pooled client for one provider's endpoint (clones share the pool).
#[derive(Clone)]
pub(super) struct SearchClient {
    client: Client<OperatorConnector, Empty<Bytes>>,
    timeout: Duration,
    user_agent: Arc<str>,
}

/// What the provider answered.
pub(super) struct Reply {
    /// The status.
    pub status: u16,
    /// The headers.
    pub headers: HeaderMap,
    /// The body, at most [`MAX_BODY`] bytes.
    pub body: Bytes,
}

impl Reply {
    /// A header's value as text, trimmed.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    }
}

impl SearchClient {
    /// A client reaching the network as `network` says, each request within `timeout`,
    /// resolving with `resolver`.
    pub fn new(
        network: &NetworkOptions,
        timeout: Duration,
        resolver: Arc<dyn Resolve>,
    ) -> Result<SearchClient, ConfigError> {
        let connector = OperatorConnector::unguarded_with_resolver(network.clone(), resolver)?;
        let client = Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(Duration::from_secs(90))
            .pool_max_idle_per_host(4)
            .build(connector);
        Ok(SearchClient {
            client,
            timeout,
            user_agent: network.user_agent.as_str().into(),
        })
    }

    /// GETs `url` with `headers` (plus `User-Agent` and `Accept: application/json`),
    /// headers and body within `timeout`.
    pub async fn get(
        &self,
        url: &Url,
        headers: Vec<(HeaderName, HeaderValue)>,
    ) -> Result<Reply, SearchFailure> {
        let endpoint = endpoint(url);
        let unreachable = |failure, detail: String| SearchFailure::Unreachable {
            url: endpoint.clone(),
            failure,
            detail,
        };
        let uri: http::Uri = url.as_str().parse().map_err(|e: http::uri::InvalidUri| {
            unreachable(TransportFailure::Other, e.to_string())
        })?;
        let mut request = http::Request::get(uri)
            .header(header::USER_AGENT, &*self.user_agent)
            .header(header::ACCEPT, "application/json");
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let request = request
            .body(Empty::new())
            .map_err(|e| unreachable(TransportFailure::Other, e.to_string()))?;
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| client_failure(&endpoint, &e))?;
            let (parts, body) = response.into_parts();
            let body = Limited::new(body, MAX_BODY)
                .collect()
                .await
                .map_err(|e| {
                    if e.is::<http_body_util::LengthLimitError>() {
                        SearchFailure::Malformed {
                            url: endpoint.clone(),
                            detail: format!("the answer is larger than {MAX_BODY} bytes"),
                        }
                    } else {
                        unreachable(TransportFailure::Reset, innermost(&*e))
                    }
                })?
                .to_bytes();
            Ok(Reply {
                status: parts.status.as_u16(),
                headers: parts.headers,
                body,
            })
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(reply) => reply,
            Err(_) => Err(SearchFailure::Deadline {
                url: endpoint.clone(),
                key: ConfigKey::Timeout,
                limit: self.timeout,
            }),
        }
    }
}

/// `url` without its query and fragment: how errors name the endpoint (the query is
/// the user's, and a provider's key never travels in it, but it adds nothing).
pub(super) fn endpoint(url: &Url) -> String {
    let mut bare = url.clone();
    bare.set_query(None);
    bare.set_fragment(None);
    bare.to_string()
}

/// A client error as the failure it is: the connector's own error (a deadline, a
/// transport failure) when there is one on its source chain, else a reset.
fn client_failure(endpoint: &str, e: &hyper_util::client::legacy::Error) -> SearchFailure {
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        if let Some(ConnectError(error)) = inner.downcast_ref::<ConnectError>() {
            return match &**error {
                Error::Deadline(d) => SearchFailure::Deadline {
                    url: endpoint.to_owned(),
                    key: d.key,
                    limit: d.limit,
                },
                Error::Transport(t) => SearchFailure::Unreachable {
                    url: endpoint.to_owned(),
                    failure: t.failure,
                    detail: t.detail.clone(),
                },
                other => SearchFailure::Unreachable {
                    url: endpoint.to_owned(),
                    failure: TransportFailure::Other,
                    detail: other.to_string(),
                },
            };
        }
        source = inner.source();
    }
    let failure = if e.is_connect() {
        TransportFailure::Other
    } else {
        TransportFailure::Reset
    };
    SearchFailure::Unreachable {
        url: endpoint.to_owned(),
        failure,
        detail: innermost(e),
    }
}

/// The innermost cause of an error, in words.
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut current = e;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_drops_the_query() {
        let url = Url::parse("https://api.example/res/v1/web/search?q=raku&count=3#x").unwrap();
        assert_eq!(endpoint(&url), "https://api.example/res/v1/web/search");
    }
}
