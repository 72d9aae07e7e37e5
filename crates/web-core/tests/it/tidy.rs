//! Tidy: the repository checks itself. Every `.rs` file under `crates/` opens with a
//! `//!` paragraph; no test is skipped or expected to panic; the modules of
//! mcp-web-core respect the layer table of ARCHITECTURE.md; mcp-web-kit never names mcp-web-core;
//! only mcp-web-kit names rmcp; only `transport` uses the socket and resolver APIs that
//! `clippy.toml` bans; only `search` uses `transport::operator`, the connector that
//! skips the guard; the modules of `extract` import each other without a circle;
//! ARCHITECTURE.md's code map names every module file, and its tables only modules
//! that have one (the layer table row for row as `LAYERS`).
//!
//! Each rule is a pure function over a file's path and text, tested on made-up files
//! below so that a rule that could never fire would be noticed.

use std::fs;
use std::path::{Path, PathBuf};

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `crates/`, as (path relative to the root, text).
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n == "target") {
                    continue;
                }
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = root();
    let mut paths = Vec::new();
    walk(&root.join("crates"), &mut paths);
    paths.sort();
    let files: Vec<(String, String)> = paths
        .into_iter()
        .map(|p| {
            let text = fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let rel = p
                .strip_prefix(&root)
                .expect("a path under the root")
                .to_string_lossy()
                .replace('\\', "/");
            (rel, text)
        })
        .collect();
    assert!(
        files.iter().any(|(p, _)| p == "crates/web-core/src/lib.rs"),
        "tidy did not find the sources"
    );
    files
}

/// The lines of code of a file, numbered from 1: comment lines are skipped and a
/// trailing ` // comment` is cut off.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            return None;
        }
        let code = line.find(" //").map_or(line, |at| &line[..at]);
        Some((i + 1, code))
    })
}

/// Whether `word` occurs in `line` as a whole identifier.
fn has_word(line: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// Rule: every file opens with a `//!` doc paragraph on its first line.
fn opens_with_module_doc(path: &str, text: &str) -> Vec<String> {
    if text.lines().next().is_some_and(|l| l.starts_with("//!")) {
        Vec::new()
    } else {
        vec![format!(
            "{path}:1: rule module-doc: a source file opens with a `//!` paragraph saying what it is for"
        )]
    }
}

/// Rule: no skipped test and no test that passes by panicking, as an attribute or as a
/// doctest fence.
fn no_skipped_or_panicking_tests(path: &str, text: &str) -> Vec<String> {
    let attributes = [concat!("#[", "ignore"), concat!("#[", "should_panic")];
    let fences = [concat!("ign", "ore"), concat!("should", "_panic")];
    let mut out = Vec::new();
    for (n, line) in code_lines(text) {
        let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        for attribute in attributes {
            if squeezed.contains(attribute) {
                out.push(format!(
                    "{path}:{n}: rule no-skipped-tests: `{attribute}]` is not allowed; a test runs and asserts behaviour"
                ));
            }
        }
    }
    for (i, line) in text.lines().enumerate() {
        let doc = line.trim_start();
        let Some(fence) = doc
            .strip_prefix("///")
            .or_else(|| doc.strip_prefix("//!"))
            .map(str::trim_start)
            .and_then(|d| d.strip_prefix("```"))
        else {
            continue;
        };
        for word in fences {
            if fence.split(',').any(|w| w.trim() == word) {
                out.push(format!(
                    "{path}:{}: rule no-skipped-tests: a doctest marked `{word}` is not allowed",
                    i + 1
                ));
            }
        }
    }
    out
}

/// The modules of mcp-web-core in the order of ARCHITECTURE.md's layer table, with their layer
/// (a test holds the table to this list).
/// A module may use the modules in the rows above its own: every lower layer, and
/// within its layer the rows before it (so every module but `addr` may use `error`).
const LAYERS: &[(&str, u8)] = &[
    ("key", 0),
    ("addr", 0),
    ("error", 0),
    ("url", 0),
    ("media", 0),
    ("extract", 0),
    ("robots", 0),
    ("grep", 0),
    ("work", 0),
    ("guard", 1),
    ("transport", 2),
    ("fetch", 2),
    ("search", 2),
    ("page", 3),
    ("robots::cache", 3),
    ("crawl", 3),
    ("config", 4),
];

/// The row of the layer table a module path (`robots::cache::entry`) belongs to: the
/// longest table name that is a prefix of it, segment-wise.
fn layer_row(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .enumerate()
        .filter(|(_, (name, _))| module == *name || module.starts_with(&format!("{name}::")))
        .max_by_key(|(_, (name, _))| name.len())
        .map(|(row, _)| row)
}

/// The module a file of `crates/web-core/src` is (`transport/resolve.rs` →
/// `transport::resolve`), or `None` for the crate root.
fn module_of(path: &str) -> Option<String> {
    let rel = path.strip_prefix("crates/web-core/src/")?;
    let rel = rel.strip_suffix(".rs")?;
    let rel = rel.strip_suffix("/mod").unwrap_or(rel);
    (rel != "lib").then(|| rel.replace('/', "::"))
}

/// The module paths named after `crate::` on a line: `crate::a::b` gives `a::b`, and
/// `crate::{a::X, b}` gives `a::X` and `b`.
fn crate_paths(line: &str) -> Vec<String> {
    paths_after(line, "crate::")
        .into_iter()
        .map(|(_, p)| p)
        .collect()
}

/// The paths named after `prefix` (`crate::`, `super::`) in a text, with the byte offset of
/// each `prefix`: `prefix a::b` gives `a::b`, and `prefix {a::X, b}` gives `a::X` and `b`,
/// also when the group spans lines.
fn paths_after(text: &str, prefix: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        if text[..at].ends_with(['$', ':'])
            || text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &text[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push((at, std::mem::take(&mut item)));
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.push((at, item));
        } else {
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push((at, path));
        }
    }
    out.into_iter()
        .map(|(at, p)| {
            let p = p
                .trim()
                .split(['{', ' '])
                .next()
                .unwrap_or("")
                .trim_end_matches(':')
                .trim()
                .to_owned();
            (at, p)
        })
        .filter(|(_, p)| !p.is_empty() && p != "self")
        .collect()
}

/// Rule: a module of mcp-web-core uses `crate::X` only for X in a row above its own in
/// the layer table.
fn respects_layers(path: &str, text: &str) -> Vec<String> {
    let Some(module) = module_of(path) else {
        return Vec::new();
    };
    let Some(row) = layer_row(&module) else {
        return vec![format!(
            "{path}:1: rule layering: module `{module}` is not in the layer table (ARCHITECTURE.md); add it to LAYERS in tidy.rs"
        )];
    };
    let (own, layer) = LAYERS[row];
    let mut out = Vec::new();
    for (n, line) in code_lines(text) {
        for used in crate_paths(line) {
            match layer_row(&used) {
                Some(r) if r == row => {}
                Some(r) if r < row => {}
                Some(r) => {
                    let (name, their) = LAYERS[r];
                    out.push(format!(
                        "{path}:{n}: rule layering: `{own}` (layer {layer}) uses `crate::{used}`, but `{name}` (layer {their}) is not above it in ARCHITECTURE.md's layer table"
                    ));
                }
                None if used
                    .split("::")
                    .next()
                    .is_some_and(|m| m.chars().all(|c| c.is_lowercase() || c == '_')) =>
                {
                    out.push(format!(
                        "{path}:{n}: rule layering: `{own}` uses `crate::{used}`, a module missing from the layer table"
                    ));
                }
                // `crate::Error` and other re-exports from the crate root.
                None => {}
            }
        }
    }
    out
}

/// The directory of the extractor's modules.
const EXTRACT_DIR: &str = "crates/web-core/src/extract/";

/// The sibling modules of `extract` that a file of it names after `super::` or
/// `crate::extract::` (in a `use`, or in a path inside code), each with its line. Comments
/// are not read, nor the file's test module (`#[cfg(test)] mod …`), where `super` is the
/// file itself.
fn extract_imports(text: &str, modules: &[String]) -> Vec<(usize, String)> {
    let mut code: Vec<&str> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod "))
        {
            break;
        }
        let trimmed = line.trim_start();
        code.push(if trimmed.starts_with("//") {
            ""
        } else {
            line.find(" //").map_or(line, |at| &line[..at])
        });
    }
    let code = code.join("\n");
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let from_super = paths_after(&code, "super::");
    let from_crate = paths_after(&code, "crate::")
        .into_iter()
        .filter_map(|(at, p)| p.strip_prefix("extract::").map(|p| (at, p.to_owned())))
        .chain(paths_after(&code, "crate::extract::"));
    let mut out: Vec<(usize, String)> = from_super
        .into_iter()
        .chain(from_crate)
        .filter_map(|(at, path)| {
            let first = path.split("::").next().unwrap_or("");
            modules
                .iter()
                .any(|m| m == first)
                .then(|| (line_of(at), first.to_owned()))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Rule: the files of `extract/` import each other without a circle, so each can be read
/// and changed knowing only the modules below it. The nodes are the modules beside
/// `mod.rs`; `mod.rs` itself declares them and holds the types they all return, so it is
/// the root, not a node. `files` is (path, text) of every source file.
fn extract_is_acyclic(files: &[(String, String)]) -> Vec<String> {
    let module = |path: &str| {
        let rel = path.strip_prefix(EXTRACT_DIR)?;
        let rel = rel
            .strip_suffix("/mod.rs")
            .or_else(|| rel.strip_suffix(".rs"))?;
        (rel != "mod" && !rel.contains('/')).then(|| rel.to_owned())
    };
    let nodes: Vec<(String, &str)> = files
        .iter()
        .filter_map(|(p, t)| module(p).map(|m| (m, t.as_str())))
        .collect();
    let names: Vec<String> = nodes.iter().map(|(m, _)| m.clone()).collect();
    // Each module's imports of its siblings: (line, module).
    let edges: Vec<Vec<(usize, String)>> = nodes
        .iter()
        .map(|(m, t)| {
            extract_imports(t, &names)
                .into_iter()
                .filter(|(_, to)| to != m)
                .collect()
        })
        .collect();
    let index = |name: &str| names.iter().position(|n| n == name);
    // Depth-first search from every module; an edge back to a module on the current path
    // closes a circle.
    let mut out = Vec::new();
    let mut done = vec![false; names.len()];
    for start in 0..names.len() {
        if done[start] {
            continue;
        }
        // The path: (module, next edge to follow).
        let mut path: Vec<(usize, usize)> = vec![(start, 0)];
        while let Some(&(node, next)) = path.last() {
            let Some((line, to)) = edges[node].get(next) else {
                done[node] = true;
                path.pop();
                continue;
            };
            if let Some(top) = path.last_mut() {
                top.1 += 1;
            }
            let Some(to) = index(to) else { continue };
            if let Some(at) = path.iter().position(|&(n, _)| n == to) {
                let circle: Vec<&str> = path[at..]
                    .iter()
                    .map(|&(n, _)| names[n].as_str())
                    .chain([names[to].as_str()])
                    .collect();
                out.push(format!(
                    "{EXTRACT_DIR}{}.rs:{line}: rule extract-acyclic: the modules of extract import each other in a circle ({}); move what they share into a module below them (class names and elements: vocab.rs)",
                    names[node],
                    circle.join(" -> ")
                ));
            } else if !done[to] {
                path.push((to, 0));
            }
        }
    }
    out
}

/// Rule: mcp-web-kit never names mcp-web-core, and only mcp-web-kit names rmcp.
fn respects_crate_boundaries(path: &str, text: &str) -> Vec<String> {
    let core = concat!("mcp_web", "_core");
    let sdk = concat!("rm", "cp");
    let in_kit = path.starts_with("crates/kit/");
    let mut out = Vec::new();
    for (n, line) in code_lines(text) {
        if in_kit && has_word(line, core) {
            out.push(format!(
                "{path}:{n}: rule crate-boundary: mcp-web-kit never uses `{core}`; the framework knows nothing of the web"
            ));
        }
        if !in_kit && has_word(line, sdk) {
            out.push(format!(
                "{path}:{n}: rule crate-boundary: only mcp-web-kit uses `{sdk}`; other crates go through mcp-web-kit's own types"
            ));
        }
    }
    out
}

/// The socket and resolver calls only `transport` may make, derived from
/// `clippy.toml`'s `disallowed-methods`: `Type::method` for a type's method (and
/// `.method(` when the name is distinctive, like `.to_socket_addrs(`), `function(` for
/// a free function (`lookup_host(`); plus the socket types whose mere construction opens
/// a socket.
fn banned_calls(clippy_toml: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![
        "TcpSocket::".into(),
        "UdpSocket::".into(),
        "socket2::".into(),
    ];
    for line in clippy_toml.lines() {
        let Some(at) = line.find("path = \"") else {
            continue;
        };
        let rest = &line[at + "path = \"".len()..];
        let Some(end) = rest.find('"') else {
            continue;
        };
        let segments: Vec<&str> = rest[..end].split("::").collect();
        let method = segments[segments.len() - 1];
        match segments.len().checked_sub(2).map(|i| segments[i]) {
            Some(owner) if owner.starts_with(char::is_uppercase) => {
                out.push(format!("{owner}::{method}"));
                if method.contains('_') {
                    out.push(format!(".{method}("));
                }
            }
            _ => out.push(format!("{method}(")),
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Rule: outside `crates/web-core/src/transport`, no source file of a crate (`src/`)
/// calls a banned socket or resolver API.
fn sockets_only_in_transport(path: &str, text: &str, banned: &[String]) -> Vec<String> {
    let in_src = path.contains("/src/");
    let in_transport = path == "crates/web-core/src/transport.rs"
        || path.starts_with("crates/web-core/src/transport/");
    if !in_src || in_transport {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (n, line) in code_lines(text) {
        for call in banned {
            if line.contains(call.as_str()) {
                out.push(format!(
                    "{path}:{n}: rule sockets-in-transport: `{call}` opens a socket or resolves a name; only mcp_web_core::transport may, after the guard"
                ));
            }
        }
    }
    out
}

/// The names by which code reaches `transport::operator`, spelled in pieces so that
/// this file does not name them.
fn operator_names() -> [&'static str; 5] {
    [
        concat!("Operator", "Connector"),
        concat!("Operator", "Conn"),
        concat!("Operator", "Options"),
        concat!("Operator", "Peer"),
        concat!("oper", "ator"),
    ]
}

/// Rule: `transport::operator`, the one connector that skips the guard, is used only
/// by `search` (whose endpoint the operator wrote), by `transport` itself and by the
/// connector's own tests.
fn operator_only_in_search(path: &str, text: &str) -> Vec<String> {
    let allowed = path.starts_with("crates/web-core/src/transport/")
        || path == "crates/web-core/src/search.rs"
        || path.starts_with("crates/web-core/src/search/")
        || path == "crates/web-core/tests/it/operator.rs";
    if allowed {
        return Vec::new();
    }
    let [connector, conn, options, peer, module] = operator_names();
    let mut out = Vec::new();
    for (n, line) in code_lines(text) {
        let names_it = [connector, conn, options, peer]
            .iter()
            .any(|name| has_word(line, name))
            || (has_word(line, module) && line.contains("transport"));
        if names_it {
            out.push(format!(
                "{path}:{n}: rule {module}-only-in-search: `transport::{module}` skips the guard; only `search` may use it, for endpoints written in the configuration"
            ));
        }
    }
    out
}

/// The crates of the workspace: their folder under `crates/` and their name, as
/// ARCHITECTURE.md's code map heads their modules ("Modules of `mcp-web-kit`").
const CRATES: [(&str, &str); 3] = [
    ("web-core", "mcp-web-core"),
    ("kit", "mcp-web-kit"),
    ("mcp-web", "mcp-web-server"),
];

/// The module path of each source file of the crate in folder `dir`
/// (`crates/web-core/src/fetch/charset.rs` → `fetch::charset`), leaving out the crate
/// roots and the test modules kept in a file of their own (`tests.rs`).
fn crate_modules(paths: &[&str], dir: &str) -> Vec<String> {
    let prefix = format!("crates/{dir}/src/");
    paths
        .iter()
        .filter_map(|path| path.strip_prefix(&prefix)?.strip_suffix(".rs"))
        .filter(|rel| !matches!(*rel, "lib" | "main") && !rel.ends_with("tests"))
        .map(|rel| rel.strip_suffix("/mod").unwrap_or(rel).replace('/', "::"))
        .collect()
}

/// The part of ARCHITECTURE.md's code map that speaks of crate `name`: from the line
/// that says "Modules of `name`" to the next such line, or to the end of the map.
fn map_section<'a>(architecture: &'a str, name: &str) -> &'a str {
    let map = architecture
        .split_once("## Code map")
        .map_or("", |(_, rest)| rest);
    let map = map.split_once("\n## ").map_or(map, |(map, _)| map);
    let Some((_, section)) = map.split_once(&format!("Modules of `{name}`")) else {
        return "";
    };
    section
        .split_once("Modules of `")
        .map_or(section, |(section, _)| section)
}

/// The rows of the first table in `section`, as (layer, module) pairs: the layer cell
/// when the table has one, and each module its module cell names (`stdio`, `http`).
fn table_rows(section: &str) -> Vec<(Option<String>, String)> {
    let mut lines = section.lines().filter(|line| line.starts_with('|'));
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let header: Vec<&str> = header.split('|').map(str::trim).collect();
    let column = |name: &str| header.iter().position(|cell| *cell == name);
    let (Some(module), layer) = (column("module"), column("layer")) else {
        return Vec::new();
    };
    lines
        .skip(1)
        .flat_map(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let layer = layer.and_then(|i| cells.get(i)).map(|c| (*c).to_owned());
            cells
                .get(module)
                .map(|cell| {
                    cell.split(", ")
                        .map(|m| m.trim_matches('`').to_owned())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
                .into_iter()
                .map(move |m| (layer.clone(), m))
        })
        .collect()
}

/// What ARCHITECTURE.md's code map gets wrong about the files: a module no part of the
/// map names (by its path, in backquotes, in its crate's part), a table row naming a
/// module that has no file, and a layer table whose rows are not `LAYERS`.
fn code_map_problems(paths: &[&str], architecture: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (dir, name) in CRATES {
        let section = map_section(architecture, name);
        let modules = crate_modules(paths, dir);
        for module in &modules {
            if !section.contains(&format!("`{module}`")) {
                problems.push(format!(
                    "ARCHITECTURE.md: rule code-map: module `{module}` of {name} is not named in the code map (\"Modules of `{name}`\")"
                ));
            }
        }
        let rows = table_rows(section);
        if rows.is_empty() {
            problems.push(format!(
                "ARCHITECTURE.md: rule code-map: no table of the modules of {name}"
            ));
        }
        for (_, module) in &rows {
            if !modules.contains(module) {
                problems.push(format!(
                    "ARCHITECTURE.md: rule code-map: the code map names module `{module}` of {name}, which has no file"
                ));
            }
        }
        if dir == "web-core" {
            let layers: Vec<(String, u8)> = rows
                .iter()
                .map(|(layer, module)| {
                    let number = layer
                        .as_deref()
                        .and_then(|l| l.split_whitespace().next())
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(u8::MAX);
                    (module.clone(), number)
                })
                .collect();
            let want: Vec<(String, u8)> = LAYERS
                .iter()
                .map(|(m, layer)| ((*m).to_owned(), *layer))
                .collect();
            if layers != want {
                problems.push(format!(
                    "ARCHITECTURE.md: rule code-map: the layer table's rows {layers:?} are not tidy's LAYERS {want:?}"
                ));
            }
        }
    }
    problems
}

fn report(violations: Vec<String>) {
    assert!(
        violations.is_empty(),
        "tidy found {} problem(s):\n{}",
        violations.len(),
        violations.join("\n")
    );
}

fn check_all(rule: impl Fn(&str, &str) -> Vec<String>) {
    report(sources().iter().flat_map(|(p, t)| rule(p, t)).collect());
}

#[test]
fn every_file_opens_with_a_module_doc() {
    check_all(opens_with_module_doc);
}

#[test]
fn no_test_is_skipped_or_expected_to_panic() {
    check_all(no_skipped_or_panicking_tests);
}

#[test]
fn web_core_modules_respect_the_layer_table() {
    check_all(respects_layers);
}

#[test]
fn the_code_map_names_every_module_and_only_files() {
    let files = sources();
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let architecture =
        fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md is readable");
    report(code_map_problems(&paths, &architecture));
}

#[test]
fn extract_modules_import_each_other_without_a_circle() {
    let files = sources();
    assert!(
        files
            .iter()
            .filter(|(p, _)| p.starts_with(EXTRACT_DIR))
            .count()
            > 2,
        "tidy did not find the extractor's modules"
    );
    report(extract_is_acyclic(&files));
}

#[test]
fn crates_respect_their_boundaries() {
    check_all(respects_crate_boundaries);
    let kit = fs::read_to_string(root().join("crates/kit/Cargo.toml")).unwrap();
    assert!(
        !kit.contains("mcp-web-core"),
        "crates/kit/Cargo.toml: rule crate-boundary: mcp-web-kit must not depend on mcp-web-core"
    );
    for krate in ["web-core", "mcp-web"] {
        let manifest =
            fs::read_to_string(root().join(format!("crates/{krate}/Cargo.toml"))).unwrap();
        assert!(
            !manifest
                .lines()
                .any(|l| l.trim_start().starts_with(concat!("rm", "cp"))),
            "crates/{krate}/Cargo.toml: rule crate-boundary: only mcp-web-kit depends on the MCP SDK"
        );
    }
}

#[test]
fn only_transport_opens_sockets() {
    let clippy = fs::read_to_string(root().join("clippy.toml")).unwrap();
    let banned = banned_calls(&clippy);
    for needed in [
        "TcpStream::connect",
        "lookup_host(",
        ".to_socket_addrs(",
        "Socket::connect",
        ".connect_timeout(",
        "UdpSocket::bind",
        "UdpSocket::connect",
        "HttpConnector::new",
        ".build_http(",
    ] {
        assert!(
            banned.iter().any(|b| b == needed),
            "clippy.toml: rule sockets-in-transport: `{needed}` is no longer banned ({banned:?})"
        );
    }
    check_all(|p, t| sockets_only_in_transport(p, t, &banned));
}

#[test]
fn only_search_uses_the_operator_connector() {
    check_all(operator_only_in_search);
}

/// Each rule fires on a file that breaks it, and names the file and the rule.
#[test]
fn every_rule_can_fail() {
    let doc = opens_with_module_doc("crates/x/src/a.rs", "use std::fmt;\n");
    assert!(
        doc[0].starts_with("crates/x/src/a.rs:1: rule module-doc"),
        "{doc:?}"
    );
    assert!(opens_with_module_doc("a.rs", "//! A.\n").is_empty());

    let map = "## Code map\n\nModules of `mcp-web-core`, in layers:\n\n| layer | module | single responsibility |\n|---|---|---|\n| 0 pure | `gone` | x |\n\nModules of `mcp-web-kit`:\n\n| module | single responsibility |\n|---|---|\n| `toolkit` | x |\n\nModules of `mcp-web-server`:\n\n| module | single responsibility |\n|---|---|\n| `app` | x |\n\n## Invariants\n`fetch`\n";
    let paths = [
        "crates/web-core/src/lib.rs",
        "crates/web-core/src/fetch/mod.rs",
        "crates/web-core/src/robots/tests.rs",
        "crates/kit/src/toolkit.rs",
        "crates/mcp-web/src/app.rs",
        "crates/mcp-web/src/main.rs",
    ];
    let found = code_map_problems(&paths, map);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(
        found[0].contains("module `fetch` of mcp-web-core is not named"),
        "{found:?}"
    );
    assert!(
        found[1].contains("names module `gone` of mcp-web-core, which has no file"),
        "{found:?}"
    );
    assert!(found[2].contains("are not tidy's LAYERS"), "{found:?}");

    let skipped = format!(
        "//! T.\n#[test]\n{}]\nfn t() {{}}\n#[ {} ]\nfn u() {{}}\n/// ```{}\n/// ```\n// {}] in a comment is fine\n",
        concat!("#[", "ignore"),
        concat!("should", "_panic"),
        concat!("rust,", "ign", "ore"),
        concat!("#[", "ignore"),
    );
    let found = no_skipped_or_panicking_tests("crates/x/tests/it/t.rs", &skipped);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found[0].starts_with("crates/x/tests/it/t.rs:3: rule no-skipped-tests"));
    assert!(found[1].starts_with("crates/x/tests/it/t.rs:5: rule no-skipped-tests"));
    assert!(found[2].starts_with("crates/x/tests/it/t.rs:7: rule no-skipped-tests"));

    let guard = "//! G.\nuse crate::addr::classify;\nuse crate::{error::Blocked, transport::Resolve};\n/// [`crate::fetch`] in a doc is fine\nfn f() { crate::config::load(); }\n";
    let found = respects_layers("crates/web-core/src/guard.rs", guard);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("crates/web-core/src/guard.rs:3: rule layering: `guard` (layer 1) uses `crate::transport::Resolve`"));
    assert!(found[1].starts_with("crates/web-core/src/guard.rs:5: rule layering: `guard` (layer 1) uses `crate::config::load`"));
    let found = respects_layers(
        "crates/web-core/src/robots.rs",
        "//! R.\nuse crate::robots::cache::Cache;\n",
    );
    assert_eq!(
        found.len(),
        1,
        "robots (parser) must not use robots::cache: {found:?}"
    );
    assert!(
        respects_layers(
            "crates/web-core/src/robots/cache.rs",
            "//! C.\nuse crate::fetch::get;\nuse crate::robots::parse;\n"
        )
        .is_empty()
    );
    assert!(
        respects_layers(
            "crates/web-core/src/transport/resolve.rs",
            "//! R.\nuse crate::transport::x;\nuse crate::guard::Policy;\n"
        )
        .is_empty()
    );
    let found = respects_layers("crates/web-core/src/newthing.rs", "//! N.\n");
    assert!(found[0].contains("not in the layer table"), "{found:?}");
    assert!(
        respects_layers(
            "crates/mcp-web/src/app.rs",
            "//! A.\nuse crate::config::x;\n"
        )
        .is_empty()
    );

    let file = |name: &str, text: &str| (format!("{EXTRACT_DIR}{name}"), text.to_owned());
    let circle = [
        file("mod.rs", "//! M.\nmod html;\nmod prune;\nmod tree;\n"),
        file(
            "html.rs",
            "//! H.\nuse super::prune::prune;\nuse super::{BodyKind, Extracted};\n",
        ),
        file(
            "prune.rs",
            "//! P.\nuse super::tree::walk;\nfn f() {\n    super::html::is_neutral(\"x\");\n}\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        ),
        file(
            "tree.rs",
            "//! T.\n// use super::html::x; in a comment is fine\n#[cfg(test)]\nmod tests {\n    use super::prune;\n}\n",
        ),
    ];
    let found = extract_is_acyclic(&circle);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("crates/web-core/src/extract/prune.rs:4: rule extract-acyclic: the modules of extract import each other in a circle (html -> prune -> html)"),
        "{found:?}"
    );
    // A group over several lines, through `crate::extract::`.
    let grouped = [
        file("html.rs", "//! H.\nuse super::render::render;\n"),
        file(
            "render.rs",
            "//! R.\nuse crate::extract::{\n    tree::walk,\n    html::is_hidden,\n};\n",
        ),
        file("tree.rs", "//! T.\n"),
    ];
    let found = extract_is_acyclic(&grouped);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("crates/web-core/src/extract/render.rs:2: rule extract-acyclic")
            && found[0].contains("(html -> render -> html)"),
        "{found:?}"
    );
    let layered = [
        file(
            "html.rs",
            "//! H.\nuse super::{prune::prune, render::render};\n",
        ),
        file("prune.rs", "//! P.\nuse super::vocab::has_word;\n"),
        file(
            "render.rs",
            "//! R.\nuse super::vocab::is_hidden;\nuse super::tree::walk;\n",
        ),
        file("vocab.rs", "//! V.\nuse super::tree::attr;\n"),
        file("tree.rs", "//! T.\n"),
    ];
    assert!(extract_is_acyclic(&layered).is_empty());

    let kit = format!("//! K.\nuse {}::guard;\n", concat!("mcp_web", "_core"));
    let found = respects_crate_boundaries("crates/kit/src/lib.rs", &kit);
    assert!(
        found[0].starts_with("crates/kit/src/lib.rs:2: rule crate-boundary"),
        "{found:?}"
    );
    let app = format!(
        "//! A.\nuse {}::model::Tool;\nlet {}_x = 1;\n",
        concat!("rm", "cp"),
        concat!("rm", "cp")
    );
    let found = respects_crate_boundaries("crates/mcp-web/src/app.rs", &app);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("crates/mcp-web/src/app.rs:2: rule crate-boundary"));
    assert!(respects_crate_boundaries("crates/kit/src/lib.rs", &app).is_empty());

    let banned = banned_calls(
        "disallowed-methods = [\n  { path = \"std::net::TcpStream::connect\", reason = \"x\" },\n  { path = \"tokio::net::lookup_host\", reason = \"y\" },\n]\n",
    );
    assert_eq!(
        banned,
        [
            "TcpSocket::",
            "TcpStream::connect",
            "UdpSocket::",
            "lookup_host(",
            "socket2::"
        ]
    );
    let fetch = "//! F.\nlet s = tokio::net::TcpStream::connect(addr).await?;\n// lookup_host in a comment is fine\n";
    let found = sockets_only_in_transport("crates/web-core/src/fetch.rs", fetch, &banned);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("crates/web-core/src/fetch.rs:2: rule sockets-in-transport"));
    assert!(
        sockets_only_in_transport("crates/web-core/src/transport/connect.rs", fetch, &banned)
            .is_empty()
    );
    assert!(
        sockets_only_in_transport("crates/mcp-web/src/cli/check.rs", fetch, &banned).len() == 1
    );

    let [connector, _, _, peer, module] = operator_names();
    let crawl = format!(
        "//! C.\nuse crate::transport::{module}::{connector};\nuse mcp_web_core::transport::{{{module}, Transport}};\nlet p: {peer} = x;\n// {connector} in a comment is fine\nlet {module}s = 1;\n"
    );
    let found = operator_only_in_search("crates/web-core/src/crawl.rs", &crawl);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found[0].starts_with("crates/web-core/src/crawl.rs:2: rule operator-only-in-search"));
    assert!(found[1].starts_with("crates/web-core/src/crawl.rs:3: rule operator-only-in-search"));
    assert!(found[2].starts_with("crates/web-core/src/crawl.rs:4: rule operator-only-in-search"));
    assert_eq!(
        operator_only_in_search("crates/mcp-web/tests/it/search.rs", &crawl).len(),
        3,
        "tests elsewhere may not use it either"
    );
    for allowed in [
        "crates/web-core/src/search.rs",
        "crates/web-core/src/search/brave.rs",
        "crates/web-core/src/transport/mod.rs",
        "crates/web-core/tests/it/operator.rs",
    ] {
        assert!(
            operator_only_in_search(allowed, &crawl).is_empty(),
            "{allowed}"
        );
    }
}
