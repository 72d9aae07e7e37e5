//! `mcp-web batch FILE|-`: runs a file of tool calls (JSON lines of
//! `{"tool": …, "arguments": {…}}`) through the Web pack with
//! [`mcp_kit::Server::execute_tool_calls`], the batch a host runs: side by side, one
//! request for identical calls, answers in order.

use std::io::{self, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use mcp_kit::{Outcome, Server, ToolCall};
use mcp_web_core::config::Settings;
use mcp_web_core::error::ConfigError;
use mcp_web_core::transport::{Resolve, SystemResolver};
use serde_json::{Map, Value, json};

use crate::cli::options::ConfigArgs;
use crate::cli::output;
use crate::ops::Context;
use crate::tools::Web;

/// The one-line help.
pub const ABOUT: &str = "Run a file of tool calls side by side and print each answer in order";

/// The long help.
pub const LONG_ABOUT: &str = "\
Run a file of tool calls through the Web pack as one batch and print each answer in
the order of the file. FILE holds one JSON object per line, {\"tool\": NAME,
\"arguments\": {…}} (\"arguments\" may be left out; blank lines are skipped); '-' reads
the calls from stdin.

The calls run side by side (all four tools are read-only), at most --concurrency at
once, and identical calls (same tool, same arguments in any key order) run once and
share the answer: five calls asking for one URL make one request. Every configuration
flag applies to every call; nothing can be asked of a user, so ask-permission never
opens anything here.

Without --json each answer is printed under a '[N/TOTAL] tool arguments' line (with
': error' when the call failed), answers separated by a blank line. --json prints one
JSON object per call, in order: {\"tool\", \"isError\", \"content\",
\"structuredContent\"?}.

Exit status: 0 when every call ran (a call that failed is an answer, not a crash); 1
when the answers could not be written; 2 for a malformed batch file (the message names
the line) or a usage or configuration error.";

/// Arguments of `mcp-web batch`.
#[derive(Debug, clap::Args)]
pub struct BatchArgs {
    /// The file of calls, one JSON object per line, or '-' for stdin.
    #[arg(value_name = "FILE")]
    pub file: String,

    /// Print one JSON object per call instead of the answers' text.
    #[arg(long)]
    pub json: bool,

    /// The most calls running at once (1 to 64).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=64))]
    pub concurrency: u8,

    /// The configuration of the floor and the fetch, for every call.
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// A batch file that is not JSON lines of calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    /// The line, counted from 1.
    pub line: usize,
    /// What is wrong with it.
    pub problem: String,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} of the batch: {}; each line is one JSON object {{\"tool\": NAME, \
             \"arguments\": {{…}}}}",
            self.line, self.problem
        )
    }
}

impl std::error::Error for Malformed {}

/// The calls of a batch file, in order: one JSON object per line, blank lines skipped.
pub fn parse(text: &str) -> Result<Vec<ToolCall>, Malformed> {
    let mut calls = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let malformed = |problem: String| Malformed {
            line: index + 1,
            problem,
        };
        let value: Value =
            serde_json::from_str(line).map_err(|e| malformed(format!("not JSON ({e})")))?;
        let Value::Object(mut object) = value else {
            return Err(malformed("not a JSON object".to_owned()));
        };
        let tool = match object.remove("tool") {
            Some(Value::String(tool)) => tool,
            Some(_) => return Err(malformed("\"tool\" is not a string".to_owned())),
            None => return Err(malformed("no \"tool\"".to_owned())),
        };
        let arguments = match object.remove("arguments") {
            Some(Value::Object(arguments)) => arguments,
            None => Map::new(),
            Some(_) => return Err(malformed("\"arguments\" is not an object".to_owned())),
        };
        if let Some(key) = object.keys().next() {
            return Err(malformed(format!(
                "{key:?} is not a field of a call (only \"tool\" and \"arguments\")"
            )));
        }
        calls.push(ToolCall::new(tool, arguments));
    }
    Ok(calls)
}

/// Runs `mcp-web batch` with the system resolver, writing the answers to stdout.
pub fn exec(args: &BatchArgs) -> ExitCode {
    let (settings, runtime) = match super::settings_and_runtime(&args.config) {
        Ok(both) => both,
        Err(code) => return code,
    };
    let text = match read(&args.file) {
        Ok(text) => text,
        Err(e) => return super::failed(format!("cannot read the batch {}: {e}", args.file), 2),
    };
    let calls = match parse(&text) {
        Ok(calls) => calls,
        Err(malformed) => return super::failed(malformed, 2),
    };
    let concurrency = usize::from(args.concurrency);
    let outcomes = runtime.block_on(run(
        calls.clone(),
        &settings,
        Arc::new(SystemResolver),
        concurrency,
    ));
    let outcomes = match outcomes {
        Ok(outcomes) => outcomes,
        Err(e) => return super::failed(e, 2),
    };
    let mut out = output::stdout();
    let written = if args.json {
        write_json(&mut out, &calls, &outcomes)
    } else {
        write_text(&mut out, &calls, &outcomes)
    };
    super::answer_status(written.and_then(|()| out.flush()))
}

/// The batch file's text: the file, or stdin for `-`.
fn read(file: &str) -> io::Result<String> {
    if file == "-" {
        let mut text = String::new();
        io::stdin().lock().read_to_string(&mut text)?;
        Ok(text)
    } else {
        std::fs::read_to_string(file)
    }
}

/// Runs `calls` through a server of the Web pack the context `settings` describe
/// (names resolved by `resolver`), at most `concurrency` at once: the outcomes in order.
pub async fn run(
    calls: Vec<ToolCall>,
    settings: &Settings,
    resolver: Arc<dyn Resolve>,
    concurrency: usize,
) -> Result<Vec<Outcome>, ConfigError> {
    let context = Context::with_resolver(settings.clone(), resolver)?;
    let server = Server::new("mcp-web", env!("CARGO_PKG_VERSION")).plug(Web::with_context(context));
    Ok(server.execute_tool_calls_with(calls, concurrency).await)
}

/// One outcome as `--json` prints it: `{"tool", "isError", "content",
/// "structuredContent"?}`; an outcome that is not the tool's answer (an unknown tool, a
/// panicked handler) is an error whose text says why.
pub fn to_json(call: &ToolCall, outcome: &Outcome) -> Value {
    let (is_error, content, structured) = match outcome {
        Outcome::Answered(result) => {
            let mcp = result.to_json();
            (
                result.is_error(),
                mcp.get("content").cloned().unwrap_or_else(|| json!([])),
                result.structured_content().cloned(),
            )
        }
        other => (
            true,
            json!([{"type": "text", "text": not_answered(other)}]),
            None,
        ),
    };
    let mut line = Map::new();
    line.insert("tool".into(), json!(call.tool));
    line.insert("isError".into(), json!(is_error));
    line.insert("content".into(), content);
    if let Some(structured) = structured {
        line.insert("structuredContent".into(), structured);
    }
    Value::Object(line)
}

/// Why an outcome carries no answer of the tool, in words.
fn not_answered(outcome: &Outcome) -> String {
    match outcome {
        Outcome::UnknownTool(name) => format!("the Web pack has no tool named {name}"),
        Outcome::Cancelled(by) => format!("the call was {by}"),
        Outcome::NeedsInput(_) => {
            "the call needs input from a user, and a batch cannot ask one".to_owned()
        }
        Outcome::Failed(message) | Outcome::Panicked(message) | Outcome::BadState(message) => {
            message.clone()
        }
        other => format!("{other:?}"),
    }
}

fn write_json(out: &mut impl Write, calls: &[ToolCall], outcomes: &[Outcome]) -> io::Result<()> {
    for (call, outcome) in calls.iter().zip(outcomes) {
        writeln!(out, "{}", to_json(call, outcome))?;
    }
    Ok(())
}

fn write_text(out: &mut impl Write, calls: &[ToolCall], outcomes: &[Outcome]) -> io::Result<()> {
    let total = calls.len();
    for (index, (call, outcome)) in calls.iter().zip(outcomes).enumerate() {
        if index > 0 {
            writeln!(out)?;
        }
        let (failed, text) = match outcome {
            Outcome::Answered(result) => (result.is_error(), result.text()),
            other => (true, not_answered(other)),
        };
        let arguments = Value::Object(call.arguments.clone());
        let mark = if failed { ": error" } else { "" };
        writeln!(
            out,
            "[{}/{total}] {} {arguments}{mark}",
            index + 1,
            call.tool
        )?;
        writeln!(out, "{text}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_become_calls_in_order_and_blank_lines_are_skipped() {
        let calls = parse(
            "{\"tool\": \"web_fetch\", \"arguments\": {\"url\": \"https://a/\"}}\n\n\
             {\"tool\": \"web_crawl\"}\n",
        )
        .unwrap();
        assert_eq!(
            calls,
            vec![
                ToolCall::new(
                    "web_fetch",
                    json!({"url": "https://a/"}).as_object().cloned().unwrap()
                ),
                ToolCall::new("web_crawl", Map::new()),
            ]
        );
    }

    #[test]
    fn a_malformed_line_is_named() {
        let cases = [
            ("{\"tool\": \"a\"}\nnot json", 2, "not JSON"),
            ("\n\n[1]", 3, "not a JSON object"),
            ("{\"arguments\": {}}", 1, "no \"tool\""),
            ("{\"tool\": 1}", 1, "\"tool\" is not a string"),
            (
                "{\"tool\": \"a\", \"arguments\": []}",
                1,
                "\"arguments\" is not an object",
            ),
            (
                "{\"tool\": \"a\", \"args\": {}}",
                1,
                "\"args\" is not a field of a call",
            ),
        ];
        for (text, line, problem) in cases {
            let error = parse(text).unwrap_err();
            assert_eq!(error.line, line, "{text}");
            assert!(error.problem.starts_with(problem), "{error}");
            assert!(
                error
                    .to_string()
                    .starts_with(&format!("line {line} of the batch: "))
            );
        }
    }

    #[test]
    fn an_outcome_without_an_answer_is_an_error_line() {
        let call = ToolCall::new("web_serch", Map::new());
        let line = to_json(&call, &Outcome::UnknownTool("web_serch".into()));
        assert_eq!(
            line,
            json!({"tool": "web_serch", "isError": true, "content": [{"type": "text",
                "text": "the Web pack has no tool named web_serch"}]})
        );
    }
}
