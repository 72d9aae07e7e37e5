//! PDFs read by the real binary, whose readings run in child processes of itself under
//! resource limits: `mcp-web serve` on stdio against a loopback site serving PDFs the
//! tests write. A PDF that kills its reader costs its own call only (the server answers
//! the next one, and its own memory never holds the reading); a reading past the call's
//! deadline is killed with it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

use serde_json::{Value, json};

use crate::pdf_fixtures;
use crate::support::Server;

/// A PDF whose one page's content is 7.5 million `0` operands (15 MB, compressed to
/// 15 KB): within the inflate bound of a 1 MiB `max-pdf-bytes`, but the PDF crate keeps
/// each operand as an object of its own, hundreds of megabytes, past the 128 MiB its
/// reader child may use.
fn operand_flood() -> Vec<u8> {
    let mut content = b"0 ".repeat(7_500_000);
    content.extend_from_slice(b"\nBT /F1 12 Tf 72 700 Td (flood) Tj ET\n");
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&content).expect("compressed");
    let data = z.finish().expect("compressed");
    let mut w = pdf_fixtures::Writer::default();
    w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
    w.stream("/Filter /FlateDecode", &data);
    w.add("<< /Type /Page /Parent 5 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 1 0 R >> >> /Contents 2 0 R >>");
    w.root = w.add("<< /Type /Catalog /Pages 5 0 R >>");
    w.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
    w.finish()
}

/// A one-page PDF saying `text`.
fn plain(text: &str) -> Vec<u8> {
    let mut w = pdf_fixtures::Writer::default();
    w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
    w.stream(
        "",
        format!("BT /F1 12 Tf 72 700 Td ({text}) Tj ET").as_bytes(),
    );
    w.add("<< /Type /Page /Parent 5 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 1 0 R >> >> /Contents 2 0 R >>");
    w.root = w.add("<< /Type /Catalog /Pages 5 0 R >>");
    w.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
    w.finish()
}

/// A loopback site serving the PDFs the tests read.
fn site() -> Server {
    let flood = operand_flood();
    let good = plain("The next call is answered.");
    let line = pdf_fixtures::long_line(1_000_000);
    Server::start(move |path| {
        let body: &[u8] = match path {
            "/flood.pdf" => &flood,
            "/good.pdf" => &good,
            "/line.pdf" => &line,
            _ => b"",
        };
        let mut out = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/pdf\r\ncontent-length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        out.extend_from_slice(body);
        out
    })
}

/// `mcp-web serve` on stdio with `args`, initialized.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-web"))
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mcp-web starts");
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut session = Session {
            child,
            stdin,
            stdout,
        };
        session.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        );
        session.answer(0);
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("written");
    }

    /// The answer to request `id` (other messages skipped).
    fn answer(&mut self, id: u64) -> Value {
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read");
            assert!(n > 0, "the server ended before answering {id}");
            let message: Value = serde_json::from_str(&line).expect("JSON");
            if message["id"] == id {
                return message;
            }
        }
    }

    /// `web_fetch` of `url`: the text of its answer and whether it is an error.
    fn fetch(&mut self, id: u64, url: &str) -> (String, bool) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "web_fetch", "arguments": {"url": url}}}));
        let answer = self.answer(id);
        let result = &answer["result"];
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text in {answer}"))
            .to_owned();
        (text, result["isError"] == true)
    }

    /// A field of `/proc/PID/status` of the server, in KiB.
    fn status_kib(&self, field: &str) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with(field))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// The server's child processes still alive (not yet reaped zombies aside).
    fn live_children(&self) -> Vec<u32> {
        let me = self.child.id().to_string();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .filter_map(|e| {
                let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                let after = stat.rsplit_once(')')?.1;
                let mut fields = after.split_whitespace();
                let state = fields.next()?;
                let parent = fields.next()?;
                (parent == me && state != "Z").then_some(pid)
            })
            .collect()
    }

    /// Ends the session: stdin closed, and the server exits cleanly.
    fn end(mut self) {
        drop(self.stdin);
        let status = self.child.wait().expect("mcp-web exits");
        assert!(status.success(), "{status}");
    }
}

#[test]
fn a_pdf_that_kills_its_reader_costs_one_call_and_the_server_answers_the_next() {
    let server = site();
    let mut session = Session::start(&["--allow-loopback", "--max-pdf-bytes", "1048576"]);
    let (text, is_error) = session.fetch(1, &server.url("/flood.pdf"));
    assert!(is_error, "{text}");
    assert!(
        text.contains("needed more than 134217728 bytes of memory")
            && text.contains("Raise max-pdf-bytes"),
        "{text}"
    );
    let (text, is_error) = session.fetch(2, &server.url("/good.pdf"));
    assert!(!is_error, "{text}");
    assert!(text.contains("The next call is answered."), "{text}");
    // The reading's memory was the child's: the server itself stayed small.
    if let Some(peak) = session.status_kib("VmHWM:") {
        assert!(peak < 100 * 1024, "the server's peak: {peak} KiB");
    }
    session.end();
}

#[test]
fn a_reading_past_the_calls_deadline_is_killed_with_it() {
    let server = site();
    let mut session = Session::start(&["--allow-loopback", "--total-timeout", "1"]);
    let (text, is_error) = session.fetch(1, &server.url("/line.pdf"));
    assert!(is_error, "{text}");
    assert!(text.contains("total-timeout"), "{text}");
    // No reader is left: the child was killed when its call ended (waited for, as a
    // killed process takes a moment to go).
    let mut waited = 0;
    while !session.live_children().is_empty() {
        assert!(
            waited < 200,
            "a reader still runs: {:?}",
            session.live_children()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
        waited += 1;
    }
    let (text, is_error) = session.fetch(2, &server.url("/good.pdf"));
    assert!(!is_error, "{text}");
    session.end();
}
