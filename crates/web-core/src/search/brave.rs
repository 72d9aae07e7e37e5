//! The Brave Search API provider: `GET {search-url}/res/v1/web/search` with the key in
//! the `X-Subscription-Token` header, resolved at every call; its answers and its
//! refusals (a bad key, a rate limit, a server error) turned into results or teaching
//! failures.

use std::sync::Arc;
use std::time::Duration;

use http::header::{HeaderName, HeaderValue};
use serde_json::Value;
use url::Url;

use super::client::{Reply, SearchClient, endpoint};
use super::{ApiKey, Engine, Filters, Freshness, SearchOptions, SearchResult, results_from};
use crate::error::{ConfigError, KeyOrigin, SearchFailure};
use crate::key::ConfigKey;
use crate::transport::{NetworkOptions, Resolve};

/// Brave's public API host, the base URL when `search-url` is not set.
pub const BRAVE_API: &str = "https://api.search.brave.com";

/// The path of the web search endpoint under the base URL.
const WEB_SEARCH: &str = "res/v1/web/search";

/// The most results Brave gives for one request.
const MAX_COUNT: usize = 20;

/// The Brave Search API (`provider: "brave"`).
pub struct Brave {
    client: SearchClient,
    endpoint: Url,
    api_key: Option<ApiKey>,
    api_key_env: String,
    environment: Arc<dyn Environment>,
    params: Vec<(&'static str, String)>,
}

/// Where a provider reads environment variables: the process's own environment, or
/// (in tests, or a host that keeps secrets elsewhere) a source of its own.
pub trait Environment: Send + Sync + 'static {
    /// The value of the variable `name`, when it is set and is Unicode.
    fn var(&self, name: &str) -> Option<String>;
}

/// The process's environment, read at every call.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnvironment;

impl Environment for ProcessEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

impl std::fmt::Debug for Brave {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Brave")
            .field("endpoint", &self.endpoint.as_str())
            .field("api_key", &self.api_key)
            .field("api_key_env", &self.api_key_env)
            .finish_non_exhaustive()
    }
}

impl Brave {
    /// The provider `options` describe, its client reaching the network as `network`
    /// says, each request within `timeout`, reading `api-key-env` from the process's
    /// environment. Reads no key: that happens at every call. Fails only when
    /// `ca-file` cannot be read.
    pub fn new(
        options: &SearchOptions,
        network: &NetworkOptions,
        timeout: Duration,
        resolver: Arc<dyn Resolve>,
    ) -> Result<Brave, ConfigError> {
        Brave::with_environment(
            options,
            network,
            timeout,
            resolver,
            Arc::new(ProcessEnvironment),
        )
    }

    /// As [`Brave::new`], reading the variable `api-key-env` names from `environment`
    /// at every call.
    pub fn with_environment(
        options: &SearchOptions,
        network: &NetworkOptions,
        timeout: Duration,
        resolver: Arc<dyn Resolve>,
        environment: Arc<dyn Environment>,
    ) -> Result<Brave, ConfigError> {
        let base = match &options.search_url {
            Some(url) => url.url().clone(),
            None => Url::parse(BRAVE_API).map_err(|e| ConfigError::Value {
                key: ConfigKey::SearchUrl.to_string(),
                rule: format!("has no usable default ({e})"),
            })?,
        };
        let mut params = vec![("safesearch", options.safesearch.as_str().to_owned())];
        if let Some(country) = &options.country {
            params.push(("country", country.clone()));
        }
        if let Some(lang) = &options.lang {
            params.push(("search_lang", lang.clone()));
        }
        Ok(Brave {
            client: SearchClient::new(network, timeout, resolver)?,
            endpoint: under(&base, WEB_SEARCH),
            api_key: options.api_key.clone(),
            api_key_env: options.api_key_env.clone(),
            environment,
            params,
        })
    }

    /// The key for this call: `api-key` when set, else the variable `api-key-env`
    /// names, read now.
    fn key(&self) -> Result<(ApiKey, KeyOrigin), SearchFailure> {
        if let Some(key) = &self.api_key {
            return Ok((key.clone(), KeyOrigin::Config));
        }
        match self.environment.var(&self.api_key_env) {
            Some(value) if !value.trim().is_empty() => Ok((
                ApiKey::new(value.trim()),
                KeyOrigin::Env(self.api_key_env.clone()),
            )),
            _ => Err(SearchFailure::MissingKey {
                env: self.api_key_env.clone(),
            }),
        }
    }
}

impl Engine for Brave {
    const NAME: &'static str = "brave";

    async fn run(
        &self,
        query: &str,
        count: usize,
        filters: &Filters,
    ) -> Result<Vec<SearchResult>, SearchFailure> {
        let (key, origin) = self.key()?;
        let mut token =
            HeaderValue::from_str(key.expose()).map_err(|_| SearchFailure::KeyUnsendable {
                origin: origin.clone(),
            })?;
        token.set_sensitive(true);
        let count = count.clamp(1, MAX_COUNT);
        let mut url = self.endpoint.clone();
        {
            let mut pairs = url.query_pairs_mut();
            pairs.append_pair("q", &filters.query_with_site(query));
            pairs.append_pair("count", &count.to_string());
            // Brave's offset counts pages of `count` results, 0 to 9.
            if filters.page > 1 {
                pairs.append_pair("offset", &(filters.page - 1).to_string());
            }
            if let Some(freshness) = filters.freshness {
                pairs.append_pair("freshness", freshness_code(freshness));
            }
            for (name, value) in &self.params {
                pairs.append_pair(name, value);
            }
        }
        let reply = self
            .client
            .get(
                &url,
                vec![(HeaderName::from_static("x-subscription-token"), token)],
            )
            .await?;
        let mut results = answer(&reply, &url, origin)?;
        results.truncate(count);
        Ok(results)
    }
}

/// Brave's `freshness` code for a freshness: the past day, week, month or year.
fn freshness_code(freshness: Freshness) -> &'static str {
    match freshness {
        Freshness::Day => "pd",
        Freshness::Week => "pw",
        Freshness::Month => "pm",
        Freshness::Year => "py",
    }
}

/// `path` under `base`'s path (`https://proxy.example/brave/` + `res/v1/web/search`).
pub(super) fn under(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    url.set_query(None);
    url.set_fragment(None);
    let joined = format!("{}/{path}", base.path().trim_end_matches('/'));
    url.set_path(&joined);
    url
}

/// Brave's answer as results, or the failure its status and body say.
fn answer(reply: &Reply, url: &Url, origin: KeyOrigin) -> Result<Vec<SearchResult>, SearchFailure> {
    let body: Option<Value> = serde_json::from_slice(&reply.body).ok();
    // Brave's error answers: {"type":"ErrorResponse","error":{"code","detail","status"}}.
    let error = body.as_ref().and_then(|b| b.get("error"));
    let code = error
        .and_then(|e| e.get("code"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let detail = error
        .and_then(|e| e.get("detail"))
        .and_then(Value::as_str)
        .map(super::excerpt);
    match reply.status {
        200..=299 => {}
        401 | 403 => {
            return Err(SearchFailure::KeyRefused {
                status: reply.status,
                origin,
            });
        }
        422 if code == "SUBSCRIPTION_TOKEN_INVALID" => {
            return Err(SearchFailure::KeyRefused {
                status: reply.status,
                origin,
            });
        }
        429 => {
            let wait = super::retry_after_seconds(reply).or_else(|| rate_limit_reset(reply));
            return Err(SearchFailure::RateLimited {
                retry: super::retry_after(reply)
                    .or_else(|| wait.map(|s| super::in_seconds(s.as_secs()))),
                wait,
            });
        }
        status => {
            let hint = match status {
                422 => Some(
                    "Check \"search-country\" (a two-letter country code) and \"search-lang\" (a language code Brave supports).",
                ),
                300..=399 => Some(super::REDIRECT_HINT),
                _ => None,
            };
            return Err(SearchFailure::Status {
                status,
                detail: detail.or_else(|| super::text_excerpt(&reply.body)),
                hint,
            });
        }
    }
    let malformed = |detail: &str| SearchFailure::Malformed {
        url: endpoint(url),
        detail: detail.to_owned(),
    };
    let Some(Value::Object(body)) = body else {
        return Err(malformed("not a JSON object"));
    };
    // No "web" section at all is how Brave says it matched nothing.
    let results = match body.get("web") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(web) => match web.get("results") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(results)) => results,
            Some(_) => return Err(malformed("\"web.results\" is not a list")),
        },
    };
    Ok(results_from(results, "description", "age").collect())
}

/// When Brave's quota resets, from `X-RateLimit-Reset` (`"1, 1419704"`: seconds until
/// each window resets, shortest first), for the first window with nothing remaining
/// per `X-RateLimit-Remaining`, or the first window.
fn rate_limit_reset(reply: &Reply) -> Option<std::time::Duration> {
    let numbers = |name: &str| -> Vec<u64> {
        reply
            .header(name)
            .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect())
            .unwrap_or_default()
    };
    let reset = numbers("x-ratelimit-reset");
    let remaining = numbers("x-ratelimit-remaining");
    let window = remaining.iter().position(|&r| r == 0).unwrap_or(0);
    reset
        .get(window)
        .or(reset.first())
        .map(|&s| std::time::Duration::from_secs(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_under_the_base_path() {
        let base = |s: &str| Url::parse(s).unwrap();
        assert_eq!(
            under(&base(BRAVE_API), WEB_SEARCH).as_str(),
            "https://api.search.brave.com/res/v1/web/search"
        );
        assert_eq!(
            under(&base("http://127.0.0.1:8080/brave/?x=1"), WEB_SEARCH).as_str(),
            "http://127.0.0.1:8080/brave/res/v1/web/search"
        );
    }
}
