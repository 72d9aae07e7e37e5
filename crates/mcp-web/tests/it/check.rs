//! `mcp-web check`: the binary on IP literals (which are never resolved, so no test
//! touches DNS or opens a socket), and the `check` function with a static resolver
//! for names.

use std::net::IpAddr;
use std::process::{Command, Output};

use mcp_web::cli::check::check;
use mcp_web_core::config::parse_web_config;
use mcp_web_core::guard::Policy;
use mcp_web_core::transport::StaticResolver;
use serde_json::json;

fn mcp_web(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-web"))
        .args(args)
        .output()
        .expect("the mcp-web binary runs")
}

/// Runs `mcp-web check ARGS…`; returns (exit code, stdout, stderr).
fn run_check(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    let out = mcp_web(&all);
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

/// Runs the check of `urls` under `policy` with `resolver`: whether all were allowed, and
/// the report.
async fn check_with(urls: &[&str], policy: &Policy, resolver: &StaticResolver) -> (bool, String) {
    let urls: Vec<String> = urls.iter().map(|u| u.to_string()).collect();
    let mut out = Vec::new();
    let ok = check(&urls, policy, resolver, &[], &mut out)
        .await
        .expect("writing to memory");
    (ok, String::from_utf8(out).expect("the report is UTF-8"))
}

fn ip(s: &str) -> IpAddr {
    s.parse().expect("an IP address")
}

/// Each refused by default, each naming its rule, its RFC (for addresses) and what
/// would change the answer.
#[test]
fn refused_by_default_naming_rule_rfc_and_key() {
    let cases: &[(&str, &[&str])] = &[
        (
            "http://2130706433/",
            &[
                "the IPv4 host '2130706433' is not written as four decimal numbers",
                "No configuration key permits this spelling.",
            ],
        ),
        (
            "http://[::ffff:127.0.0.1]/",
            &[
                "loopback address (RFC 1122, Loopback 127.0.0.0/8)",
                r#"set "allow-loopback": true"#,
            ],
        ),
        (
            "http://10.1.2.3/",
            &[
                "refused 10.1.2.3: private address (RFC 1918, Private-Use 10.0.0.0/8)",
                r#"set "allow-private": true, or add an "allow-cidrs" entry covering 10.1.2.3."#,
            ],
        ),
        (
            "http://169.254.169.254/",
            &[
                "cloud metadata endpoint",
                "169.254.169.254/32",
                r#"Neither "allow-private" nor "allow-hosts" permits it"#,
                r#"only an "allow-cidrs" entry covering 169.254.169.254"#,
            ],
        ),
        (
            "http://[fec0::1]/",
            &[
                "site-local",
                "RFC 3879",
                "fec0::/10",
                r#""allow-private": true"#,
            ],
        ),
        (
            "http://[64:ff9b::a00:1]/",
            &[
                "private address (RFC 1918, Private-Use 10.0.0.0/8)",
                r#""allow-private""#,
            ],
        ),
    ];
    for (url, wants) in cases {
        let (code, out, err) = run_check(&[url]);
        assert_eq!(code, 1, "{url}: {out}{err}");
        assert!(out.starts_with(&format!("{url}\n")), "{out}");
        for want in *wants {
            assert!(out.contains(want), "{url}: missing {want:?} in\n{out}");
        }
        assert!(out.contains("refused"), "{out}");
        assert!(!out.contains("allowed"), "{out}");
        assert!(out.ends_with(
            "refused: 1 of 1 URL refused on shape, unresolved, or with a refused address.\n"
        ));
    }
}

#[test]
fn allow_cidrs_flag_permits_the_private_address() {
    let (code, out, _) = run_check(&["--allow-cidrs", "10.0.0.0/8", "http://10.1.2.3/"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out,
        "http://10.1.2.3/\n  shape: ok, http://10.1.2.3/ (host 10.1.2.3, port 80)\n  10.1.2.3: allowed by \"allow-cidrs\" entry 10.0.0.0/8\nok: every address of every URL is allowed.\n"
    );
    // The block must cover the address.
    let (code, out, _) = run_check(&["--allow-cidrs", "10.2.0.0/16", "http://10.1.2.3/"]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn tool_json_permits_the_private_address() {
    let (code, out, _) = run_check(&[
        "--tool",
        r#"Web={"allow-cidrs":["10.0.0.0/8"]}"#,
        "http://10.1.2.3/",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(r#"10.1.2.3: allowed by "allow-cidrs" entry 10.0.0.0/8"#));
    let (code, out, _) = run_check(&["--tool=Web={\"allow-private\":true}", "http://10.1.2.3/"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(r#"allowed by "allow-private""#), "{out}");
}

#[test]
fn allow_private_never_opens_cloud_metadata() {
    let (code, out, _) = run_check(&["--allow-private", "http://169.254.169.254/"]);
    assert_eq!(code, 1, "{out}");
    let (code, out, _) = run_check(&[
        "--allow-cidrs",
        "169.254.169.254/32",
        "http://169.254.169.254/",
    ]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn file_scheme_names_the_scheme_and_no_key() {
    let (code, out, _) = run_check(&["--allow-private", "file:///etc/passwd"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("the scheme 'file' is not fetched; only http and https URLs are. No configuration key permits another scheme."),
        "{out}"
    );
}

#[test]
fn exit_status_is_zero_only_when_everything_is_allowed() {
    let (code, out, _) = run_check(&["http://1.1.1.1/", "https://[2606:4700:4700::1111]/"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1.1.1.1: allowed: public address"), "{out}");
    let (code, out, _) = run_check(&["http://1.1.1.1/", "http://127.0.0.1:8080/"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.ends_with(
        "refused: 1 of 2 URLs refused on shape, unresolved, or with a refused address.\n"
    ));
    let (code, out, _) = run_check(&[
        "--allow-loopback",
        "http://1.1.1.1/",
        "http://127.0.0.1:8080/",
    ]);
    assert_eq!(code, 0, "{out}");
    // allow-loopback is the narrow key: it does not open the LAN.
    let (code, _, _) = run_check(&["--allow-loopback", "http://192.168.1.1/"]);
    assert_eq!(code, 1);
}

#[test]
fn configuration_errors_exit_2_on_stderr() {
    let (code, out, err) = run_check(&["--max-bytes", "1", "http://1.1.1.1/"]);
    assert_eq!(code, 2);
    assert_eq!(out, "");
    assert!(
        err.starts_with(r#"mcp-web: config key "max-bytes" must be at least 4096"#),
        "{err}"
    );
    let (code, _, err) = run_check(&["--tool", r#"Web={"providr":"brave"}"#, "http://1.1.1.1/"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("Unknown config key(s) for the Web pack: providr.\nValid keys: allow-cidrs, "),
        "{err}"
    );
    // No URL at all is a usage error.
    let (code, _, _) = run_check(&[]);
    assert_eq!(code, 2);
}

#[test]
fn help_says_fetching_checks_the_connected_peer() {
    let out = mcp_web(&["check", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "fetching checks the address of the socket actually connected, not this resolution"
        ),
        "{help}"
    );
    assert!(help.contains("--allow-cidrs <CIDR>"), "{help}");
    assert!(help.contains("--tool <Web=JSON>"), "{help}");
}

/// Names are resolved through the seam; every address is judged; a name that does
/// not resolve says so.
#[tokio::test]
async fn names_are_resolved_through_the_seam_and_every_address_judged() {
    let resolver = StaticResolver::new()
        .with("intranet.example", [ip("93.184.215.14"), ip("10.1.2.3")])
        .with(
            "public.example",
            [
                ip("93.184.215.14"),
                ip("2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
            ],
        );

    let (ok, text) = check_with(&["https://public.example/a"], &Policy::default(), &resolver).await;
    assert!(ok, "{text}");
    assert_eq!(
        text,
        "https://public.example/a\n  shape: ok, https://public.example/a (host public.example, port 443)\n  public.example resolves to 2 addresses:\n  93.184.215.14: allowed: public address\n  2606:2800:21f:cb07:6820:80da:af6b:8b2c: allowed: public address\nok: every address of every URL is allowed.\n"
    );

    let (ok, text) = check_with(&["http://intranet.example/"], &Policy::default(), &resolver).await;
    assert!(!ok, "{text}");
    assert!(
        text.contains("  93.184.215.14: allowed: public address\n"),
        "{text}"
    );
    assert!(
        text.contains("  10.1.2.3: refused intranet.example (10.1.2.3): private address (RFC 1918"),
        "{text}"
    );

    // allow-hosts names the host exactly.
    let policy = parse_web_config(&json!({"allow-hosts": ["intranet.example"]}))
        .unwrap()
        .policy;
    let (ok, text) = check_with(&["http://intranet.example/"], &policy, &resolver).await;
    assert!(ok, "{text}");
    let policy = parse_web_config(&json!({"allow-hosts": ["example"]}))
        .unwrap()
        .policy;
    let (ok, text) = check_with(&["http://intranet.example/"], &policy, &resolver).await;
    assert!(!ok, "{text}");

    let (ok, text) = check_with(&["http://nowhere.example/"], &Policy::default(), &resolver).await;
    assert!(!ok);
    assert!(
        text.contains("  nowhere.example did not resolve (nowhere.example is not in the static resolver). A fetch would fail; no configuration key changes this.\n"),
        "{text}"
    );
}

#[tokio::test]
async fn ip_literals_and_shape_refusals_are_not_resolved() {
    let resolver = StaticResolver::new().with("intranet.example", [ip("10.1.2.3")]);
    let urls: Vec<String> = [
        "http://10.1.2.3/",
        "http://[::1]/",
        "file:///etc/passwd",
        "http://user:pw@intranet.example/",
        "http://intranet.example./",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let (ok, text) = check_with(&urls, &Policy::default(), &resolver).await;
    assert!(!ok);
    assert_eq!(resolver.lookups(), 0, "{text}");
    assert!(!text.contains("pw@"), "{text}");
    assert!(text.ends_with(
        "refused: 5 of 5 URLs refused on shape, unresolved, or with a refused address.\n"
    ));
}

/// `check` agrees with the guard on what the floor added: the host's own addresses,
/// the mapped spelling under an IPv6 block, cloud metadata behind allow-hosts, and bad
/// ports (refused on shape, before any lookup).
#[tokio::test]
async fn check_agrees_with_the_guard_on_own_addresses_mapped_spellings_and_ports() {
    let resolver = StaticResolver::new()
        .with("self.example", [ip("93.184.215.14")])
        .with("meta.example", [ip("169.254.169.254")]);
    let urls: Vec<String> = vec!["http://self.example/".into()];
    let mut out = Vec::new();
    let ok = check(
        &urls,
        &Policy::default(),
        &resolver,
        &[ip("93.184.215.14")],
        &mut out,
    )
    .await
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(!ok, "{text}");
    assert!(
        text.contains("  93.184.215.14: refused self.example (93.184.215.14): one of this machine's own addresses"),
        "{text}"
    );

    let policy = parse_web_config(&json!({"allow-cidrs": ["::/0"]}))
        .unwrap()
        .policy;
    let (ok, text) = check_with(&["http://[::ffff:169.254.169.254]/"], &policy, &resolver).await;
    assert!(!ok, "{text}");
    assert!(
        text.contains(r#"only an "allow-cidrs" entry covering 169.254.169.254 would."#),
        "{text}"
    );

    let policy = parse_web_config(&json!({"allow-hosts": ["meta.example"]}))
        .unwrap()
        .policy;
    let (ok, text) = check_with(&["http://meta.example/"], &policy, &resolver).await;
    assert!(!ok, "{text}");
    assert!(text.contains("cloud metadata endpoint"), "{text}");

    let before = resolver.lookups();
    let (ok, text) = check_with(&["http://self.example:25/"], &Policy::default(), &resolver).await;
    assert!(!ok, "{text}");
    assert!(
        text.contains("  shape: refused http://self.example:25/: port 25 is on the Fetch standard's bad-port list"),
        "{text}"
    );
    assert_eq!(resolver.lookups(), before, "{text}");
    let policy = parse_web_config(&json!({"allow-ports": ["25"]}))
        .unwrap()
        .policy;
    let (ok, text) = check_with(&["http://93.184.215.15:25/"], &policy, &resolver).await;
    assert!(ok, "{text}");
}
