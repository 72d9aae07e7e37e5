//! Text bodies: plain text, Markdown and CSV kept as they are; JSON pretty-printed when it
//! arrives minified, by re-indenting its tokens (numbers and strings are copied exactly).

use super::{BodyKind, Extracted, Flags};

/// A JSON body whose longest line is longer than this counts as minified.
const MINIFIED_LINE: usize = 200;
/// JSON nested deeper than this is left as it is (indentation would dwarf the data).
const MAX_INDENT: usize = 64;

/// Extracts a text body: its lines as they are (line terminators removed).
pub(crate) fn extract_text(body: &str) -> Extracted {
    Extracted {
        lines: split_lines(body),
        kind: BodyKind::Text,
        ..Extracted::default()
    }
}

/// Extracts a JSON body, pretty-printing it when it is valid and minified.
pub(crate) fn extract_json(body: &str) -> Extracted {
    let minified = body.lines().any(|l| l.len() > MINIFIED_LINE);
    let valid = serde_json::from_str::<serde::de::IgnoredAny>(body).is_ok();
    let pretty = if minified && valid {
        pretty(body)
    } else {
        None
    };
    let reformatted = pretty.is_some();
    let lines = split_lines(pretty.as_deref().unwrap_or(body));
    Extracted {
        lines,
        kind: BodyKind::Json,
        flags: Flags {
            reformatted,
            ..Flags::default()
        },
        ..Extracted::default()
    }
}

/// The lines of a text, `\n`, `\r\n` and lone `\r` all ending a line; trailing blank lines
/// dropped.
fn split_lines(body: &str) -> Vec<String> {
    let mut lines: Vec<String> = body
        .split('\n')
        .flat_map(|l| l.strip_suffix('\r').unwrap_or(l).split('\r'))
        .map(str::to_owned)
        .collect();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

/// Valid JSON re-indented with two spaces per level, without recursion; empty objects and
/// arrays stay `{}` / `[]`. `None` when it nests deeper than [`MAX_INDENT`].
fn pretty(json: &str) -> Option<String> {
    let mut out = String::with_capacity(json.len() + json.len() / 4);
    let mut indent = 0usize;
    let mut chars = json.chars().peekable();
    let newline = |out: &mut String, indent: usize| {
        out.push('\n');
        for _ in 0..indent {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push('"');
                let mut escaped = false;
                for s in chars.by_ref() {
                    out.push(s);
                    if escaped {
                        escaped = false;
                    } else if s == '\\' {
                        escaped = true;
                    } else if s == '"' {
                        break;
                    }
                }
            }
            '{' | '[' => {
                out.push(c);
                while chars.peek().is_some_and(|n| n.is_whitespace()) {
                    chars.next();
                }
                if chars.peek().is_some_and(|&n| n == '}' || n == ']') {
                    if let Some(close) = chars.next() {
                        out.push(close);
                    }
                } else {
                    indent += 1;
                    if indent > MAX_INDENT {
                        return None;
                    }
                    newline(&mut out, indent);
                }
            }
            '}' | ']' => {
                indent = indent.saturating_sub(1);
                newline(&mut out, indent);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, indent);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minified_json_is_reindented_exactly() {
        let long = "x".repeat(MINIFIED_LINE);
        let json = format!(
            r#"{{"a":[1,2.50,{{}}],"b":"q\"{{,:}}","n":123456789012345678901234567890,"s":"{long}","e":[]}}"#
        );
        let out = extract_json(&json);
        assert!(out.flags.reformatted);
        let expected = format!(
            "{{\n  \"a\": [\n    1,\n    2.50,\n    {{}}\n  ],\n  \"b\": \"q\\\"{{,:}}\",\n  \"n\": 123456789012345678901234567890,\n  \"s\": \"{long}\",\n  \"e\": []\n}}"
        );
        assert_eq!(out.text(), expected);
    }

    #[test]
    fn readable_or_invalid_json_is_kept() {
        let out = extract_json("{\n  \"a\": 1\n}\n");
        assert!(!out.flags.reformatted);
        assert_eq!(out.lines, ["{", "  \"a\": 1", "}"]);
        let bad = format!("{{\"a\":\"{}\"", "y".repeat(300));
        assert_eq!(extract_json(&bad).text(), bad);
    }

    #[test]
    fn text_lines_are_kept_as_they_are() {
        let out = extract_text("a,b\r\n1,\"2\"\n  indented  \r\n\n");
        assert_eq!(out.lines, ["a,b", "1,\"2\"", "  indented  "]);
    }
}
