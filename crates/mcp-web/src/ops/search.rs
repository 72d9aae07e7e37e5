//! Ask the search provider and lay its results out as the JSON `web_search` answers
//! and `mcp-web search` prints.

use mcp_web_core::error::Error;
use mcp_web_core::search::{Filters, Pacing, SearchResult};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::{Context, Observer};

/// The fewest results a search asks for.
pub const MIN_COUNT: usize = 1;
/// The most results a search asks for.
pub const MAX_COUNT: usize = 20;
/// How many results a search asks for when the call does not say.
pub const DEFAULT_COUNT: usize = 10;

/// One search's answer: who answered, what was asked and what came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Searched {
    /// The provider's name.
    pub provider: String,
    /// The query as asked.
    pub query: String,
    /// The number of results asked for.
    pub count: usize,
    /// The filters applied.
    pub filters: Filters,
    /// The results, at most `count`.
    pub results: Vec<SearchResult>,
}

impl Searched {
    /// The answer as `web_search` gives it, keys in alphabetical order:
    /// `{"count","freshness"?,"notice"?,"page","provider","query","results":[{"age"?,"snippet","title","url"}],"site"?}`;
    /// `notice` only when nothing matched, `freshness` and `site` only when applied.
    pub fn to_json(&self) -> Map<String, Value> {
        let mut answer = Map::new();
        answer.insert("count".into(), json!(self.count));
        if let Some(freshness) = self.filters.freshness {
            answer.insert("freshness".into(), json!(freshness.as_str()));
        }
        if self.results.is_empty() {
            answer.insert("notice".into(), json!(no_results(&self.query)));
        }
        answer.insert("page".into(), json!(self.filters.page));
        answer.insert("provider".into(), json!(self.provider));
        answer.insert("query".into(), json!(self.query));
        let results: Vec<Value> = self
            .results
            .iter()
            .map(|r| {
                let mut item = Map::new();
                if let Some(age) = &r.age {
                    item.insert("age".into(), json!(age));
                }
                item.insert("snippet".into(), json!(r.snippet));
                item.insert("title".into(), json!(r.title));
                item.insert("url".into(), json!(r.url));
                Value::Object(item)
            })
            .collect();
        answer.insert("results".into(), Value::Array(results));
        if let Some(site) = &self.filters.site {
            answer.insert("site".into(), json!(site));
        }
        answer
    }
}

/// The notice of a search that matched nothing.
pub fn no_results(query: &str) -> String {
    format!(
        "No results for '{query}'. The engine matched nothing: try fewer or more common terms, or drop any quoting."
    )
}

/// Asks the context's search provider for `count` results for `query` under `filters`
/// (the caller has checked all three) at its next turn (`search-rate`), within the
/// call's `total-timeout`, stopping at once with [`Error::Cancelled`] when `cancel`
/// fires. A rate limit the provider answers with a delay that ends in time is reported
/// to `observer`, waited out and retried once. A result off the `site` filter's host is
/// dropped, whatever the engine did with the `site:` operator; a provider that answers
/// more than asked is cut to `count`.
pub async fn search(
    context: &Context,
    query: &str,
    count: usize,
    filters: &Filters,
    observer: &dyn Observer,
    cancel: &CancellationToken,
) -> Result<Searched, Error> {
    let budget = context.settings().fetch.total_timeout;
    let report = |message: &str| observer.progress(0.0, None, message);
    let pacing = Pacing {
        deadline: tokio::time::Instant::now() + budget,
        budget,
        report: &report,
    };
    let provider = context.search_provider();
    let mut results = tokio::select! {
        biased;
        () = cancel.cancelled() => return Err(Error::Cancelled),
        results = context.paced_search().search(query, count, filters, &pacing) => results?,
    };
    results.retain(|r| filters.admits(&r.url));
    results.truncate(count);
    Ok(Searched {
        provider: provider.name().to_owned(),
        query: query.to_owned(),
        count,
        filters: filters.clone(),
        results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_s_keys_are_alphabetical_and_nothing_found_has_a_notice() {
        let found = Searched {
            provider: "brave".into(),
            query: "raku grammars".into(),
            count: 10,
            filters: Filters {
                freshness: Some(mcp_web_core::search::Freshness::Week),
                site: Some("docs.raku.org".into()),
                page: 2,
            },
            results: vec![
                SearchResult {
                    title: "Grammars".into(),
                    url: "https://docs.raku.org/language/grammars".into(),
                    snippet: "Grammars are a powerful tool".into(),
                    age: Some("March 1, 2024".into()),
                },
                SearchResult {
                    title: "T".into(),
                    url: "https://t.example/".into(),
                    snippet: String::new(),
                    age: None,
                },
            ],
        };
        assert_eq!(
            Value::Object(found.to_json()).to_string(),
            r#"{"count":10,"freshness":"week","page":2,"provider":"brave","query":"raku grammars","results":[{"age":"March 1, 2024","snippet":"Grammars are a powerful tool","title":"Grammars","url":"https://docs.raku.org/language/grammars"},{"snippet":"","title":"T","url":"https://t.example/"}],"site":"docs.raku.org"}"#
        );
        let nothing = Searched {
            provider: "brave".into(),
            query: "asdkfjhasdkfjh39847".into(),
            count: 10,
            filters: Filters::default(),
            results: Vec::new(),
        };
        assert_eq!(
            Value::Object(nothing.to_json()).to_string(),
            r#"{"count":10,"notice":"No results for 'asdkfjhasdkfjh39847'. The engine matched nothing: try fewer or more common terms, or drop any quoting.","page":1,"provider":"brave","query":"asdkfjhasdkfjh39847","results":[]}"#
        );
    }
}
