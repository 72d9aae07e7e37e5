//! The SearXNG provider: a self-hosted, keyless metasearch engine's JSON API,
//! `GET {search-url}/search?q=…&format=json`, its results normalised to the same fields
//! as every provider's.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use url::Url;

use super::brave::under;
use super::client::{SearchClient, endpoint};
use super::{Engine, Filters, Freshness, SafeSearch, SearchOptions, SearchResult, results_from};
use crate::error::{ConfigError, SearchFailure};
use crate::key::ConfigKey;
use crate::transport::{NetworkOptions, Resolve};

/// A SearXNG instance (`provider: "searxng"`).
pub struct Searxng {
    client: SearchClient,
    endpoint: Url,
    params: Vec<(&'static str, String)>,
}

impl std::fmt::Debug for Searxng {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searxng")
            .field("endpoint", &self.endpoint.as_str())
            .finish_non_exhaustive()
    }
}

impl Searxng {
    /// The provider `options` describe, its client reaching the network as `network`
    /// says, each request within `timeout`. Fails when `search-url` is not set
    /// (SearXNG has no public default) or `ca-file` cannot be read.
    pub fn new(
        options: &SearchOptions,
        network: &NetworkOptions,
        timeout: Duration,
        resolver: Arc<dyn Resolve>,
    ) -> Result<Searxng, ConfigError> {
        let Some(base) = &options.search_url else {
            return Err(ConfigError::Value {
                key: ConfigKey::SearchUrl.to_string(),
                rule: "must be set when \"provider\" is \"searxng\": give the base URL of the SearXNG instance, such as \"http://127.0.0.1:8888/\" (SearXNG has no public default)".into(),
            });
        };
        let safesearch = match options.safesearch {
            SafeSearch::Off => "0",
            SafeSearch::Moderate => "1",
            SafeSearch::Strict => "2",
        };
        let mut params = vec![
            ("format", "json".to_owned()),
            ("safesearch", safesearch.to_owned()),
        ];
        // SearXNG takes one locale: a language, with the country when both are set.
        match (&options.lang, &options.country) {
            (Some(lang), Some(country)) => {
                params.push((
                    "language",
                    format!("{lang}-{}", country.to_ascii_uppercase()),
                ));
            }
            (Some(lang), None) => params.push(("language", lang.clone())),
            (None, _) => {}
        }
        Ok(Searxng {
            client: SearchClient::new(network, timeout, resolver)?,
            endpoint: under(base.url(), "search"),
            params,
        })
    }
}

impl Engine for Searxng {
    const NAME: &'static str = "searxng";

    async fn run(
        &self,
        query: &str,
        count: usize,
        filters: &Filters,
    ) -> Result<Vec<SearchResult>, SearchFailure> {
        // SearXNG's time_range is day, month or year: it has no week.
        let time_range = match filters.freshness {
            None => None,
            Some(Freshness::Week) => {
                return Err(SearchFailure::Unsupported {
                    filter: "freshness",
                    value: Freshness::Week.to_string(),
                    offers: Some("day, month or year"),
                });
            }
            Some(f @ (Freshness::Day | Freshness::Month | Freshness::Year)) => Some(f.as_str()),
        };
        let mut url = self.endpoint.clone();
        {
            let mut pairs = url.query_pairs_mut();
            pairs.append_pair("q", &filters.query_with_site(query));
            for (name, value) in &self.params {
                pairs.append_pair(name, value);
            }
            if let Some(range) = time_range {
                pairs.append_pair("time_range", range);
            }
            // SearXNG's pages are the instance's own size; page N is its pageno N.
            if filters.page > 1 {
                pairs.append_pair("pageno", &filters.page.to_string());
            }
        }
        let reply = self.client.get(&url, Vec::new()).await?;
        match reply.status {
            200..=299 => {}
            429 => {
                return Err(SearchFailure::RateLimited {
                    retry: super::retry_after(&reply),
                    wait: super::retry_after_seconds(&reply),
                });
            }
            403 => {
                return Err(SearchFailure::Status {
                    status: 403,
                    detail: super::text_excerpt(&reply.body),
                    hint: Some(
                        "A SearXNG instance answers 403 to format=json unless its settings.yml lists json under search.formats: add it there. No configuration key of this server changes this.",
                    ),
                });
            }
            status => {
                return Err(SearchFailure::Status {
                    status,
                    detail: super::text_excerpt(&reply.body),
                    hint: (300..400).contains(&status).then_some(super::REDIRECT_HINT),
                });
            }
        }
        let malformed = |detail: &str| SearchFailure::Malformed {
            url: endpoint(&url),
            detail: detail.to_owned(),
        };
        let body: Value = serde_json::from_slice(&reply.body).map_err(|_| malformed("not JSON"))?;
        let Some(results) = body.get("results").and_then(Value::as_array) else {
            return Err(malformed("no \"results\" list"));
        };
        Ok(results_from(results, "content", "publishedDate")
            .take(count)
            .collect())
    }
}
