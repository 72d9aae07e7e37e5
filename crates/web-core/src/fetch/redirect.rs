//! The next-hop decision: a pure function of the answer and the chain so far.

use crate::error::{BadUrl, BadUrlReason, Error, LocationFault};
use crate::url::CheckedUrl;

/// The most redirects one fetch follows.
pub const MAX_REDIRECTS: usize = 10;

/// What to do with an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hop {
    /// The answer is the page (or an error status the caller reports).
    Done,
    /// Follow the redirect to this URL, which is checked like a first request.
    Follow(CheckedUrl),
}

/// Decides the next hop after `current` answered `status` with `location`, given the
/// URLs already requested on this fetch (`chain`, `current` last).
///
/// - 301, 302, 303, 307 and 308 are redirects; any other status is [`Hop::Done`];
/// - a redirect whose `Location` (given as the header's bytes) is missing, empty or
///   not UTF-8 text is refused, naming which ([`LocationFault`]); a `Location` in
///   UTF-8 beyond ASCII is read as text and checked like any other;
/// - a relative `Location` is resolved against `current`, and the result must pass
///   the URL shape checks (`file:`, credentials … are refused as a first URL would be);
/// - https → http is refused ([`BadUrlReason::HttpsDowngrade`]);
/// - a URL already in the chain is a [`Error::RedirectLoop`];
/// - more than `limit` redirects is [`Error::TooManyRedirects`], with the whole chain
///   and the refused target last.
pub fn next_hop(
    current: &CheckedUrl,
    status: u16,
    location: Option<&[u8]>,
    chain: &[CheckedUrl],
    limit: usize,
) -> Result<Hop, Error> {
    if !matches!(status, 301 | 302 | 303 | 307 | 308) {
        return Ok(Hop::Done);
    }
    let fault = |fault| {
        Error::BadUrl(BadUrl {
            url: current.to_string(),
            reason: BadUrlReason::Location(fault),
        })
    };
    let location = location.ok_or_else(|| fault(LocationFault::Missing))?;
    let location = std::str::from_utf8(location)
        .map_err(|_| fault(LocationFault::NotText))?
        .trim();
    if location.is_empty() {
        return Err(fault(LocationFault::Empty));
    }
    let next = current.join(location)?;
    if current.is_https() && !next.is_https() {
        return Err(Error::BadUrl(BadUrl {
            url: next.to_string(),
            reason: BadUrlReason::HttpsDowngrade {
                from: current.to_string(),
            },
        }));
    }
    let shown = || {
        chain
            .iter()
            .map(ToString::to_string)
            .chain(std::iter::once(next.to_string()))
            .collect::<Vec<_>>()
    };
    if chain.iter().any(|seen| same_resource(seen, &next)) {
        return Err(Error::RedirectLoop { chain: shown() });
    }
    // `chain` holds the first request and every redirect followed so far.
    if chain.len() > limit {
        return Err(Error::TooManyRedirects {
            chain: shown(),
            limit,
        });
    }
    Ok(Hop::Follow(next))
}

/// Two URLs name the same resource when they differ at most in the fragment.
pub(crate) fn same_resource(a: &CheckedUrl, b: &CheckedUrl) -> bool {
    let without = |u: &CheckedUrl| {
        let s = u.as_str();
        s.split_once('#').map_or(s, |(before, _)| before).to_owned()
    };
    without(a) == without(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    fn u(s: &str) -> CheckedUrl {
        CheckedUrl::parse(s).unwrap()
    }

    fn loc(s: &str) -> Option<&[u8]> {
        Some(s.as_bytes())
    }

    fn follow(to: &str) -> Result<Hop, ErrorKind> {
        Ok(Hop::Follow(u(to)))
    }

    #[test]
    fn decision_table() {
        let here = u("https://a.example/dir/page?q=1");
        let chain = [here.clone()];
        let cases: Vec<(u16, Option<&str>, Result<Hop, ErrorKind>)> = vec![
            (200, None, Ok(Hop::Done)),
            (200, Some("/elsewhere"), Ok(Hop::Done)),
            (404, Some("/elsewhere"), Ok(Hop::Done)),
            (300, Some("/elsewhere"), Ok(Hop::Done)),
            (304, Some("/elsewhere"), Ok(Hop::Done)),
            (302, None, Err(ErrorKind::BadUrl)),
            (302, Some("  "), Err(ErrorKind::BadUrl)),
            (302, Some(""), Err(ErrorKind::BadUrl)),
            (301, Some("/b"), follow("https://a.example/b")),
            (302, Some("other"), follow("https://a.example/dir/other")),
            (303, Some("../up"), follow("https://a.example/up")),
            (307, Some("?q=2"), follow("https://a.example/dir/page?q=2")),
            (308, Some("//b.example/x"), follow("https://b.example/x")),
            (
                302,
                Some("https://b.example:8443/"),
                follow("https://b.example:8443/"),
            ),
            (
                302,
                Some("http://a.example/dir/page"),
                Err(ErrorKind::BadUrl),
            ),
            (302, Some("file:///etc/passwd"), Err(ErrorKind::BadUrl)),
            (302, Some("javascript:alert(1)"), Err(ErrorKind::BadUrl)),
            (
                302,
                Some("https://user:pw@a.example/"),
                Err(ErrorKind::BadUrl),
            ),
            (302, Some("/dir/page?q=1"), Err(ErrorKind::RedirectLoop)),
            (
                302,
                Some("/dir/page?q=1#frag"),
                Err(ErrorKind::RedirectLoop),
            ),
        ];
        for (status, location, want) in cases {
            let got = next_hop(
                &here,
                status,
                location.map(str::as_bytes),
                &chain,
                MAX_REDIRECTS,
            )
            .map_err(|e| e.kind());
            assert_eq!(got, want, "{status} {location:?}");
        }
    }

    #[test]
    fn downgrade_names_both_urls() {
        let here = u("https://a.example/");
        let err = next_hop(
            &here,
            301,
            loc("http://a.example/"),
            std::slice::from_ref(&here),
            10,
        )
        .unwrap_err();
        let Error::BadUrl(bad) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(bad.reason.rule(), "https-downgrade");
        assert_eq!(bad.url, "http://a.example/");
        assert!(err.to_string().contains("https://a.example/"), "{err}");
        // http → https is an upgrade, followed.
        let plain = u("http://a.example/");
        assert_eq!(
            next_hop(
                &plain,
                301,
                loc("https://a.example/"),
                std::slice::from_ref(&plain),
                10
            )
            .unwrap(),
            Hop::Follow(u("https://a.example/"))
        );
    }

    #[test]
    fn hop_budget_counts_redirects_followed() {
        let chain: Vec<CheckedUrl> = (0..=10)
            .map(|i| u(&format!("http://a.example/{i}")))
            .collect();
        // Ten redirects followed so far (eleven URLs requested): the eleventh is refused.
        let err = next_hop(&chain[10], 302, loc("/11"), &chain, 10).unwrap_err();
        let Error::TooManyRedirects {
            chain: shown,
            limit,
        } = err
        else {
            panic!()
        };
        assert_eq!(limit, 10);
        assert_eq!(shown.len(), 12);
        assert_eq!(shown.first().unwrap(), "http://a.example/0");
        assert_eq!(shown.last().unwrap(), "http://a.example/11");
        // Nine followed: the tenth is allowed.
        assert_eq!(
            next_hop(&chain[9], 302, loc("/10x"), &chain[..10], 10).unwrap(),
            Hop::Follow(u("http://a.example/10x"))
        );
    }

    #[test]
    fn loop_chain_ends_with_the_repeat() {
        let a = u("http://a.example/a");
        let b = u("http://a.example/b");
        let err = next_hop(&b, 302, loc("/a"), &[a.clone(), b.clone()], 10).unwrap_err();
        assert_eq!(
            err,
            Error::RedirectLoop {
                chain: vec![
                    "http://a.example/a".into(),
                    "http://a.example/b".into(),
                    "http://a.example/a".into()
                ]
            }
        );
    }
}
