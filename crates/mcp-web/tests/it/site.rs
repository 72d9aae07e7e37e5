//! `web_crawl` and `web_grep` over a generated site of 300 pages on loopback (port 0):
//! cycles, links to another origin (another port on the same host, and another host
//! name on the same port), redirects on and off the origin (the latter stopped before the
//! hop; aliases of pages requested
//! before, a chain that ends in a 404, a hop robots.txt refuses), a robots.txt with
//! Disallow and Crawl-delay, pages that 404 and one that times out. The expected index
//! and grep lines are computed from the site's own generator by a model of the walk
//! (breadth-first, one request per URL), and the servers' request logs must match the
//! model's requests exactly: each URL at most once, nothing past `max-pages`, nothing
//! after `max-results` lines matched.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use mcp_kit::{FromConfig, Outcome, Server, ToolResult};
use mcp_web::tools::Web;
use serde_json::{Map, Value, json};

use crate::support;

/// Pages of the generated site, `/` included.
const PAGES: usize = 300;

/// The node that never answers (until the test ends).
const HANGS: usize = 10;

/// robots.txt: `/private` disallowed (line 2), a Crawl-delay (one request at a time).
const ROBOTS: &str = "User-agent: *\nDisallow: /private\nCrawl-delay: 0.005\n";

/// What a node's path answers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// A page of the site.
    Page,
    /// 404.
    Missing,
    /// No answer: the request times out.
    Hang,
    /// A redirect to this location (a path on the site, or an absolute URL).
    Redirect(String),
}

/// The generated site: its own port and the other origin's (same host, other port).
#[derive(Debug, Clone, Copy)]
struct Site {
    port: u16,
    other: u16,
}

impl Site {
    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn other_base(&self) -> String {
        format!("http://127.0.0.1:{}", self.other)
    }

    /// What node `n` answers.
    fn kind(&self, n: usize) -> Kind {
        if n == 0 {
            Kind::Page
        } else if n == HANGS {
            Kind::Hang
        } else if n % 23 == 5 {
            Kind::Missing
        } else if n % 17 == 4 && n + 1 < PAGES {
            Kind::Redirect(node_path(n + 1))
        } else if n % 17 == 11 {
            Kind::Redirect("/".into())
        } else if n % 41 == 20 {
            Kind::Redirect(format!("{}/landing/{n}", self.other_base()))
        } else if n % 37 == 30 {
            Kind::Redirect(format!("/private/r{n}"))
        } else {
            Kind::Page
        }
    }

    /// The paragraphs of node `n`'s page: what it says, then its links.
    fn paragraphs(&self, n: usize) -> Vec<String> {
        let mut out = vec![format!("Node {n} of the generated site.")];
        if n.is_multiple_of(7) {
            out.push(format!("A needle on node {n}."));
        }
        if n.is_multiple_of(11) {
            out.push(format!("Another needle, on node {n} too."));
        }
        out
    }

    /// The links of node `n`'s page, as written.
    fn hrefs(&self, n: usize) -> Vec<String> {
        let mut out: Vec<String> = (3 * n + 1..=3 * n + 3)
            .filter(|c| *c < PAGES)
            .map(node_path)
            .collect();
        out.push("/".into());
        out.push(format!("{}#self", node_path(n)));
        if n % 10 == 3 {
            out.push(format!("/private/{n}"));
        }
        if n % 29 == 2 {
            out.push(format!("/missing/{n}"));
        }
        out.push(format!("{}/elsewhere/{n}", self.other_base()));
        out.push(format!("http://localhost:{}/offsite/{n}", self.port));
        out.push("mailto:someone@example.com".into());
        out
    }

    /// Node `n`'s HTML document.
    fn document(&self, n: usize) -> String {
        let text: String = self
            .paragraphs(n)
            .iter()
            .map(|p| format!("<p>{p}</p>"))
            .collect();
        let links: String = self
            .hrefs(n)
            .iter()
            .map(|h| format!("<a href=\"{h}\">link {h}</a> "))
            .collect();
        format!(
            "<html><head><title>Node {n}</title></head><body>{text}<p>{links}</p></body></html>"
        )
    }

    /// The other origin's landing page for node `n`.
    fn landing(n: usize) -> String {
        format!(
            "<html><head><title>Landing {n}</title></head><body><p>Landed from {n}.</p></body></html>"
        )
    }

    /// The absolute URL of `location` (a path on the site, or absolute already).
    fn absolute(&self, location: &str) -> String {
        if location.starts_with("http") {
            location.to_owned()
        } else {
            format!("{}{location}", self.base())
        }
    }

    /// The node a URL of the site names, if it names one.
    fn node_of(&self, url: &str) -> Option<usize> {
        let path = url.strip_prefix(&self.base())?;
        if path == "/" {
            return Some(0);
        }
        path.strip_prefix("/p/")?
            .parse()
            .ok()
            .filter(|n| *n < PAGES)
    }

    /// The response of the site to `path`.
    fn answer(&self, path: &str, gate: &Mutex<mpsc::Receiver<()>>) -> Vec<u8> {
        if path == "/robots.txt" {
            return response(200, "text/plain", &[], ROBOTS);
        }
        let Some(n) = self.node_of(&format!("{}{path}", self.base())) else {
            return response(404, "text/html", &[], "<title>Not here</title>");
        };
        match self.kind(n) {
            Kind::Page => response(200, "text/html; charset=utf-8", &[], &self.document(n)),
            Kind::Missing => response(404, "text/html", &[], "<title>Not here</title>"),
            Kind::Redirect(to) => response(301, "text/plain", &[("location", &to)], ""),
            Kind::Hang => {
                // A hang guard, not a measurement: the test drops the gate when it ends.
                let _ = gate.lock().map(|g| g.recv_timeout(Duration::from_secs(60)));
                response(200, "text/html", &[], "<title>Too late</title>")
            }
        }
    }
}

/// The path of node `n`.
fn node_path(n: usize) -> String {
    if n == 0 {
        "/".into()
    } else {
        format!("/p/{n}")
    }
}

fn response(status: u16, content_type: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let extra: String = headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}\r\n"))
        .collect();
    format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n{extra}\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// What the model says visiting one URL comes to.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    /// Fetched: the final URL and the node whose document answered.
    Fetched { final_url: String, node: Node },
    /// A redirect hop to another origin, not requested.
    OffOrigin(String),
    /// 404.
    Missing,
    /// The request timed out.
    Timeout,
    /// robots.txt refused the URL itself.
    Refused,
    /// robots.txt refused this redirect hop.
    HopRefused(String),
    /// The redirect reached this URL's page, requested before.
    Alias(String),
}

/// Which document answered a fetched URL.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Node {
    Site(usize),
}

/// One visit of the model's walk.
#[derive(Debug, Clone)]
struct Visit {
    url: String,
    seen: Seen,
}

/// The model's walk: every visit in order, the URLs requested, and how it ended.
#[derive(Debug)]
struct Walk {
    visits: Vec<Visit>,
    requested: Vec<String>,
    fetched: usize,
    max_pages_hit: bool,
}

/// Walks `site` as the crawl must: breadth-first from `/` up to `depth`, same origin
/// only, one request per URL (redirect hops included), robots.txt checked on every URL
/// and same-origin hop, at most `max_pages` pages requested, stopping after the visit
/// for which `stop` answers true.
fn walk(site: &Site, depth: usize, max_pages: usize, mut stop: impl FnMut(&Visit) -> bool) -> Walk {
    let root = format!("{}/", site.base());
    let mut queue = VecDeque::from([(root.clone(), 0usize)]);
    let mut seen = HashSet::from([root]);
    let mut claims: HashMap<String, String> = HashMap::new();
    let mut started = 0;
    let mut out = Walk {
        visits: Vec::new(),
        requested: Vec::new(),
        fetched: 0,
        max_pages_hit: false,
    };
    let private = |url: &str| url.starts_with(&format!("{}/private", site.base()));
    let on_origin = |url: &str| url.starts_with(&format!("{}/", site.base()));
    while let Some((url, d)) = queue.pop_front() {
        if claims.contains_key(&url) {
            continue;
        }
        if started >= max_pages {
            out.max_pages_hit = true;
            break;
        }
        if private(&url) {
            out.visits.push(Visit {
                url,
                seen: Seen::Refused,
            });
            continue;
        }
        claims.insert(url.clone(), url.clone());
        started += 1;
        out.requested.push(url.clone());
        let mut chain = vec![url.clone()];
        let outcome = loop {
            let current = chain.last().cloned().unwrap_or_default();
            let kind = site
                .node_of(&current)
                .map_or(Kind::Missing, |n| site.kind(n));
            match kind {
                Kind::Page => {
                    break Seen::Fetched {
                        node: Node::Site(site.node_of(&current).unwrap_or_default()),
                        final_url: current,
                    };
                }
                Kind::Missing => break Seen::Missing,
                Kind::Hang => break Seen::Timeout,
                Kind::Redirect(to) => {
                    let next = site.absolute(&to);
                    if !on_origin(&next) {
                        break Seen::OffOrigin(next);
                    }
                    if let Some(owner) = claims.get(&next) {
                        break Seen::Alias(owner.clone());
                    }
                    claims.insert(next.clone(), url.clone());
                    if private(&next) {
                        break Seen::HopRefused(next);
                    }
                    out.requested.push(next.clone());
                    chain.push(next);
                }
            }
        };
        if let Seen::Fetched { final_url, node } = &outcome {
            seen.extend(chain.iter().cloned());
            let Node::Site(n) = node;
            if d < depth && on_origin(final_url) {
                for href in site.hrefs(*n) {
                    let link = site.absolute(href.split('#').next().unwrap_or_default());
                    if on_origin(&link) && seen.insert(link.clone()) {
                        queue.push_back((link, d + 1));
                    }
                }
            }
        }
        out.fetched += 1;
        let visit = Visit { url, seen: outcome };
        let done = stop(&visit);
        out.visits.push(visit);
        if done {
            break;
        }
    }
    out
}

/// The index line the model expects for `visit`.
fn index_line(site: &Site, visit: &Visit) -> String {
    let url = &visit.url;
    let refused = "robots.txt line 2 \"Disallow: /private\"";
    match &visit.seen {
        Seen::Fetched { final_url, node } => {
            let (bytes, title) = match node {
                Node::Site(n) => (site.document(*n).len(), format!("Node {n}")),
            };
            let mut line = format!("{url}  200  {bytes} bytes  {title}");
            if final_url != url {
                line.push_str(&format!("  [redirected to {final_url}]"));
            }
            line
        }
        Seen::Missing => format!("{url}  404  Not Found"),
        Seen::Timeout => format!("{url}  failed: timeout (raise timeout)"),
        Seen::Refused => format!("{url}  skipped: {refused}"),
        Seen::HopRefused(hop) => format!("{url}  skipped: redirected to {hop}, {refused}"),
        Seen::Alias(owner) => format!("{url}  same page as {owner}"),
        Seen::OffOrigin(hop) => {
            format!("{url}  redirects to {hop} (another origin, not followed)")
        }
    }
}

/// The `url:line:text` lines the model expects for `visit` and the pattern `needle`:
/// line 1 is `# Title`, a redirected page has `Retrieved from` as line 2, then a blank
/// line, then the paragraphs, a blank line between two.
fn grep_lines(site: &Site, visit: &Visit) -> Vec<String> {
    let Seen::Fetched {
        final_url,
        node: Node::Site(n),
    } = &visit.seen
    else {
        return Vec::new();
    };
    let header = if *final_url == visit.url { 2 } else { 3 };
    site.paragraphs(*n)
        .iter()
        .enumerate()
        .filter(|(_, p)| p.contains("needle"))
        .map(|(i, p)| format!("{}:{}:{p}", visit.url, header + 2 * i + 1))
        .collect()
}

/// The servers of one run: the site, the other origin, and the gate of the page that
/// hangs (dropped with the run).
struct Run {
    site: Site,
    server: support::Server,
    other: support::Server,
    _gate: mpsc::Sender<()>,
}

/// The port `server` listens on.
fn port_of(server: &support::Server) -> u16 {
    let url = server.url("");
    url.rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port in the server's URL")
}

fn start() -> Run {
    let other = support::Server::start(|path: &str| {
        let n: usize = path
            .strip_prefix("/landing/")
            .and_then(|n| n.parse().ok())
            .unwrap_or_default();
        response(200, "text/html", &[], &Site::landing(n))
    });
    let other_port = port_of(&other);
    let port = Arc::new(OnceLock::new());
    let (gate, hold) = mpsc::channel::<()>();
    let hold = Mutex::new(hold);
    let server = {
        let port = port.clone();
        support::Server::start(move |path: &str| {
            let site = Site {
                port: port.get().copied().unwrap_or_default(),
                other: other_port,
            };
            site.answer(path, &hold)
        })
    };
    let _ = port.set(port_of(&server));
    Run {
        site: Site {
            port: port_of(&server),
            other: other_port,
        },
        server,
        other,
        _gate: gate,
    }
}

/// The Web pack's server: loopback permitted, no delay of our own (robots.txt's
/// Crawl-delay applies), a one-second request `timeout` for the page that hangs.
fn server() -> Server {
    let config = json!({"allow-loopback": true, "crawl-delay": 0, "timeout": 1});
    let web = Web::from_config(&config).expect("a valid Web config");
    Server::new("mcp-web-test", "0").plug(web)
}

/// Calls `tool` with `args` and returns its answer's text, which must not be an error.
pub async fn call(server: &Server, tool: &str, args: Value) -> String {
    let args: Map<String, Value> = args.as_object().cloned().expect("an argument object");
    let result: ToolResult = match server.call(tool, args).await {
        Outcome::Answered(result) => result,
        other => panic!("{tool} answers, not {other:?}"),
    };
    assert!(!result.is_error(), "{}", result.text());
    result.text()
}

/// Asserts the servers received exactly the requests of `walk` (and robots.txt once),
/// each once.
fn assert_requests(run: &Run, walk: &Walk) {
    let (site, other) = (run.site.base(), run.site.other_base());
    let mut expected_site = vec!["/robots.txt".to_owned()];
    let mut expected_other = Vec::new();
    for url in &walk.requested {
        if let Some(path) = url.strip_prefix(&site) {
            expected_site.push(path.to_owned());
        } else if let Some(path) = url.strip_prefix(&other) {
            expected_other.push(path.to_owned());
        } else {
            panic!("the model requested {url}");
        }
    }
    for (server, mut expected) in [(&run.server, expected_site), (&run.other, expected_other)] {
        let mut got = server.paths();
        got.sort();
        expected.sort();
        assert_eq!(got, expected, "each URL requested once, and only these");
    }
}

#[tokio::test]
async fn the_index_of_the_generated_site_is_exact_and_each_url_is_requested_once() {
    let run = start();
    let site = run.site;
    let model = walk(&site, 5, 100, |_| false);
    assert!(
        model.max_pages_hit,
        "more pages are within reach than the budget"
    );
    let answer = call(
        &server(),
        "web_crawl",
        json!({"url": format!("{}/", site.base()), "depth": 5, "max-pages": 100}),
    )
    .await;
    let lines: Vec<String> = model.visits.iter().map(|v| index_line(&site, v)).collect();
    let expected = format!(
        "Crawled {} pages from {}/ (depth 5, same origin only).\n\n{}\n\n\
         [stopped after {} pages; raise max-pages to go further]",
        model.fetched,
        site.base(),
        lines.join("\n"),
        model.fetched
    );
    assert_eq!(answer, expected);
    assert_eq!(model.fetched, 100);
    // Every kind of line is in the index.
    for kind in [
        "  same page as ",
        "  [redirected to ",
        "  404  Not Found",
        "  failed: timeout (raise timeout)",
        "  skipped: robots.txt",
        "  skipped: redirected to ",
        " (another origin, not followed)",
    ] {
        assert!(answer.contains(kind), "the index has a line with {kind:?}");
    }
    assert_requests(&run, &model);
}

#[tokio::test]
async fn grep_across_the_generated_site_answers_the_exact_lines_and_requests_each_url_once() {
    let run = start();
    let site = run.site;
    let model = walk(&site, 5, 200, |_| false);
    let answer = call(
        &server(),
        "web_grep",
        json!({
            "url": format!("{}/", site.base()),
            "pattern": "needle",
            "depth": 5,
            "max-pages": 200,
            "max-results": 1000,
        }),
    )
    .await;
    let found: Vec<String> = model
        .visits
        .iter()
        .flat_map(|v| grep_lines(&site, v))
        .collect();
    let distinct = model
        .visits
        .iter()
        .filter(|v| !matches!(v.seen, Seen::Alias(_)))
        .count();
    let unsearched = model
        .visits
        .iter()
        .filter(|v| !matches!(v.seen, Seen::Alias(_) | Seen::Fetched { .. }))
        .count();
    assert!(!model.max_pages_hit, "every page within reach is searched");
    assert!(
        model.requested.len() > 100,
        "{} requests",
        model.requested.len()
    );
    let expected = format!(
        "{}\n\n[{unsearched} of {distinct} pages could not be searched (an HTTP error, a \
         refused address or robots.txt); web_crawl lists each with its reason]",
        found.join("\n")
    );
    assert_eq!(answer, expected);
    assert_requests(&run, &model);
}

#[tokio::test]
async fn grep_requests_nothing_once_max_results_lines_matched_on_the_generated_site() {
    let run = start();
    let site = run.site;
    let mut matched = 0;
    let model = walk(&site, 5, 200, |v| {
        matched += grep_lines(&site, v).len();
        matched >= 5
    });
    let answer = call(
        &server(),
        "web_grep",
        json!({
            "url": format!("{}/", site.base()),
            "pattern": "needle",
            "depth": 5,
            "max-pages": 200,
            "max-results": 5,
        }),
    )
    .await;
    let found: Vec<String> = model
        .visits
        .iter()
        .flat_map(|v| grep_lines(&site, v))
        .take(5)
        .collect();
    let unsearched = model
        .visits
        .iter()
        .filter(|v| !matches!(v.seen, Seen::Alias(_) | Seen::Fetched { .. }))
        .count();
    let distinct = model
        .visits
        .iter()
        .filter(|v| !matches!(v.seen, Seen::Alias(_)))
        .count();
    let mut notices = Vec::new();
    if unsearched > 0 {
        notices.push(format!(
            "[{unsearched} of {distinct} pages could not be searched (an HTTP error, a \
             refused address or robots.txt); web_crawl lists each with its reason]"
        ));
    }
    notices.push("[stopped at 5 matching lines; raise max-results to see more]".to_owned());
    assert_eq!(
        answer,
        format!("{}\n\n{}", found.join("\n"), notices.join("\n"))
    );
    assert!(model.requested.len() < 100, "the walk stopped early");
    assert_requests(&run, &model);
}
