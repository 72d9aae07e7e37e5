//! The names of the configuration keys, as a type: what an error, the crawl, the robots.txt
//! cache and the tools say when they name a key, so no layer matches a key by its spelling.
//! Each key's type, rule, default and doc line live in the key table (`config::keys::KEYS`),
//! one row per [`ConfigKey`] in [`ConfigKey::ALL`]'s order (a test of the table checks it).

use std::fmt;

/// One configuration key of the Web pack, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConfigKey {
    /// `allow-private`.
    AllowPrivate,
    /// `allow-loopback`.
    AllowLoopback,
    /// `allow-hosts`.
    AllowHosts,
    /// `allow-cidrs`.
    AllowCidrs,
    /// `nat64-prefixes`.
    Nat64Prefixes,
    /// `allow-ports`.
    AllowPorts,
    /// `max-bytes`.
    MaxBytes,
    /// `max-pdf-bytes`.
    MaxPdfBytes,
    /// `max-chars`.
    MaxChars,
    /// `connect-timeout`.
    ConnectTimeout,
    /// `headers-timeout`.
    HeadersTimeout,
    /// `timeout`.
    Timeout,
    /// `total-timeout`.
    TotalTimeout,
    /// `cache-bytes`.
    CacheBytes,
    /// `cache-max-age`.
    CacheMaxAge,
    /// `crawl-delay`.
    CrawlDelay,
    /// `respect-robots`.
    RespectRobots,
    /// `user-agent`.
    UserAgent,
    /// `proxy`.
    Proxy,
    /// `ca-file`.
    CaFile,
    /// `provider`.
    Provider,
    /// `search-url`.
    SearchUrl,
    /// `api-key`.
    ApiKey,
    /// `api-key-env`.
    ApiKeyEnv,
    /// `safesearch`.
    Safesearch,
    /// `search-country`.
    SearchCountry,
    /// `search-lang`.
    SearchLang,
    /// `search-rate`.
    SearchRate,
    /// `ask-permission`.
    AskPermission,
    /// `tools`.
    Tools,
}

impl ConfigKey {
    /// Every key, in the key table's order.
    pub const ALL: [ConfigKey; 30] = [
        ConfigKey::AllowPrivate,
        ConfigKey::AllowLoopback,
        ConfigKey::AllowHosts,
        ConfigKey::AllowCidrs,
        ConfigKey::Nat64Prefixes,
        ConfigKey::AllowPorts,
        ConfigKey::MaxBytes,
        ConfigKey::MaxPdfBytes,
        ConfigKey::MaxChars,
        ConfigKey::ConnectTimeout,
        ConfigKey::HeadersTimeout,
        ConfigKey::Timeout,
        ConfigKey::TotalTimeout,
        ConfigKey::CacheBytes,
        ConfigKey::CacheMaxAge,
        ConfigKey::CrawlDelay,
        ConfigKey::RespectRobots,
        ConfigKey::UserAgent,
        ConfigKey::Proxy,
        ConfigKey::CaFile,
        ConfigKey::Provider,
        ConfigKey::SearchUrl,
        ConfigKey::ApiKey,
        ConfigKey::ApiKeyEnv,
        ConfigKey::Safesearch,
        ConfigKey::SearchCountry,
        ConfigKey::SearchLang,
        ConfigKey::SearchRate,
        ConfigKey::AskPermission,
        ConfigKey::Tools,
    ];

    /// The key as JSON spells it and as its command-line flag is named.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigKey::AllowPrivate => "allow-private",
            ConfigKey::AllowLoopback => "allow-loopback",
            ConfigKey::AllowHosts => "allow-hosts",
            ConfigKey::AllowCidrs => "allow-cidrs",
            ConfigKey::Nat64Prefixes => "nat64-prefixes",
            ConfigKey::AllowPorts => "allow-ports",
            ConfigKey::MaxBytes => "max-bytes",
            ConfigKey::MaxPdfBytes => "max-pdf-bytes",
            ConfigKey::MaxChars => "max-chars",
            ConfigKey::ConnectTimeout => "connect-timeout",
            ConfigKey::HeadersTimeout => "headers-timeout",
            ConfigKey::Timeout => "timeout",
            ConfigKey::TotalTimeout => "total-timeout",
            ConfigKey::CacheBytes => "cache-bytes",
            ConfigKey::CacheMaxAge => "cache-max-age",
            ConfigKey::CrawlDelay => "crawl-delay",
            ConfigKey::RespectRobots => "respect-robots",
            ConfigKey::UserAgent => "user-agent",
            ConfigKey::Proxy => "proxy",
            ConfigKey::CaFile => "ca-file",
            ConfigKey::Provider => "provider",
            ConfigKey::SearchUrl => "search-url",
            ConfigKey::ApiKey => "api-key",
            ConfigKey::ApiKeyEnv => "api-key-env",
            ConfigKey::Safesearch => "safesearch",
            ConfigKey::SearchCountry => "search-country",
            ConfigKey::SearchLang => "search-lang",
            ConfigKey::SearchRate => "search-rate",
            ConfigKey::AskPermission => "ask-permission",
            ConfigKey::Tools => "tools",
        }
    }
}

impl fmt::Display for ConfigKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ConfigKey {
    /// The key's name, as a JSON string.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_kebab_case_and_its_own() {
        let mut seen = std::collections::HashSet::new();
        for key in ConfigKey::ALL {
            let name = key.as_str();
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{name}"
            );
            assert!(seen.insert(name), "{name} twice");
            assert_eq!(key.to_string(), name);
        }
    }
}
