//! Web search: where the `SearchProvider` trait and its providers (Brave, SearXNG) live.
//! Today it holds the provider options the configuration selects — which provider,
//! the safe-search level, the API key — so that search can read them without importing
//! `config`, which sits below it.

use std::fmt;

/// The search provider `web_search` talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// The Brave Search API.
    Brave,
    /// A SearXNG instance's JSON API.
    Searxng,
}

impl Provider {
    /// The provider's name, as the `provider` key spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Brave => "brave",
            Provider::Searxng => "searxng",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The safe-search level passed to the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SafeSearch {
    /// No filtering.
    Off,
    /// The provider's default filtering.
    Moderate,
    /// Strict filtering.
    Strict,
}

impl SafeSearch {
    /// The level's name, as the `safesearch` key spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            SafeSearch::Off => "off",
            SafeSearch::Moderate => "moderate",
            SafeSearch::Strict => "strict",
        }
    }
}

impl fmt::Display for SafeSearch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An API key from the configuration. Its `Debug` never shows it; only
/// [`ApiKey::expose`] does, for the request that needs it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key itself, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_config_spellings() {
        assert_eq!(Provider::Searxng.to_string(), "searxng");
        assert_eq!(Provider::Brave.as_str(), "brave");
        assert_eq!(SafeSearch::Moderate.to_string(), "moderate");
        assert_eq!(SafeSearch::Off.as_str(), "off");
    }

    #[test]
    fn api_key_debug_is_redacted() {
        let key = ApiKey::new("sekrit");
        assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
        assert_eq!(key.expose(), "sekrit");
    }
}
