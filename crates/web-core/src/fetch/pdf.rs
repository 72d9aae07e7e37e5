//! How a fetch reads a PDF it received whole: in a child process of the same program
//! under resource limits when the program asked for that (the binary does), else in
//! this process on a blocking thread.
//!
//! The PDF crate is a large parser of hostile input: whatever guards run before it
//! ([`crate::extract::pdf`] bounds what streams inflate to, what the pages draw, how many
//! glyphs they set, and looks at the clock and a stop flag as it goes), a flaw in it may
//! still abort, allocate without bound or loop. In a child process (as Chromium reads
//! PDFs with PDFium) such a flaw ends that process, not the server: the child limits its
//! own address space (to what it uses at start plus [`memory_bound`]) and its CPU time
//! before it reads the file from its stdin, and writes the text or the refusal on its
//! stdout; the parent kills it at the call's deadline or when the call is cancelled (the
//! reading future owns the child, killed on drop). A child that ran out of memory is
//! [`Problem::PdfMemory`], one killed by its CPU limit or the deadline is the deadline,
//! any other death is [`Problem::PdfUnreadable`]. What the child writes on its stderr
//! (kept up to 64 KiB) is written on this process's. A child that cannot be started is
//! [`Problem::PdfReaderUnavailable`]: once the program asked for child processes, a PDF
//! is never read in its own process instead.
//!
//! In this process (a library user that did not ask for children) the same guards hold,
//! and the reading stops within a check of the clock once its future is dropped, but
//! its memory is bounded only by them.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::{Instant, timeout_at};

use crate::error::Problem;
use crate::extract::pdf::{self as reader, Failure, Limits, PdfText, malformed};

/// The first argument that makes the program a PDF reader child (see [`child_main`]).
pub const CHILD_ARG: &str = "__read-pdf";

/// How many bytes of memory a reader child may use per byte of `max-pdf-bytes`, past
/// what it uses when it starts.
pub const MEMORY_PER_BYTE: u64 = 32;

/// The least memory a reader child is given, however low `max-pdf-bytes` is.
pub const MIN_MEMORY: u64 = 128 << 20;

/// How much of a child's error output is kept (to tell a failed allocation).
const STDERR_KEPT: u64 = 64 * 1024;

/// The program PDF readings run in, once the program asked for child processes.
static CHILD_PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Makes every later PDF reading of this process run in a child process: `program`
/// started with [`CHILD_ARG`], which must call [`child_main`]. The binary calls it once
/// at start with its own path; a library user that does not keeps reading in-process.
pub fn read_in_child_processes(program: PathBuf) {
    let _ = CHILD_PROGRAM.set(program);
}

/// The memory a reader child may use past its size at start, for `max-pdf-bytes` =
/// `max_pdf_bytes`.
pub fn memory_bound(max_pdf_bytes: usize) -> u64 {
    (max_pdf_bytes as u64)
        .saturating_mul(MEMORY_PER_BYTE)
        .max(MIN_MEMORY)
}

/// Reads a whole PDF's text, giving up at `deadline` (and when the future is dropped).
pub(super) async fn read(
    bytes: Vec<u8>,
    max_pdf_bytes: usize,
    deadline: Instant,
) -> Result<PdfText, Failure> {
    read_with(CHILD_PROGRAM.get(), bytes, max_pdf_bytes, deadline).await
}

/// [`read`] in a child process of `program`, or in this process when there is none.
async fn read_with(
    program: Option<&PathBuf>,
    bytes: Vec<u8>,
    max_pdf_bytes: usize,
    deadline: Instant,
) -> Result<PdfText, Failure> {
    match program {
        // A child that cannot be started is a refusal: reading here instead would put
        // the server back within reach of the file.
        Some(program) => {
            // A reader child is large work: it takes its turn, within the deadline.
            let Ok(_turn) = timeout_at(deadline, crate::work::large_turn()).await else {
                return Err(Failure::Deadline);
            };
            in_child(program, &bytes, max_pdf_bytes, deadline)
                .await
                .unwrap_or(Err(Failure::Problem(Problem::PdfReaderUnavailable)))
        }
        None => in_process(bytes, max_pdf_bytes, deadline).await,
    }
}

/// Reads on a blocking thread. The reader looks at the clock itself, and at a stop
/// flag set when this future ends early (its deadline, or the call's cancellation
/// dropping it), so a reading no longer awaited stops soon after.
async fn in_process(
    bytes: Vec<u8>,
    max_pdf_bytes: usize,
    deadline: Instant,
) -> Result<PdfText, Failure> {
    /// Sets the stop flag when dropped: when the reading is no longer awaited.
    struct StopOnDrop(Arc<AtomicBool>);
    impl Drop for StopOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let stop = StopOnDrop(Arc::new(AtomicBool::new(false)));
    let limits =
        Limits::new(max_pdf_bytes, Some(std_instant(deadline))).with_stop(Arc::clone(&stop.0));
    // A PDF is large work whatever its size: read at the lower priority.
    let task = crate::work::run(bytes.len().max(crate::work::LARGE), move || {
        // The reader contains its own panics; one that got out anyway is unreadable.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            reader::read(&bytes, &limits)
        }))
        .unwrap_or(Err(Failure::Problem(Problem::PdfUnreadable)))
    });
    match timeout_at(deadline, task).await {
        Err(_) => Err(Failure::Deadline),
        Ok(None) => Err(Failure::Problem(Problem::PdfUnreadable)),
        Ok(Some(result)) => result,
    }
}

/// The standard clock's instant for a tokio one.
fn std_instant(deadline: Instant) -> std::time::Instant {
    std::time::Instant::now() + deadline.saturating_duration_since(Instant::now())
}

/// Reads in a child process of `program`; `None` when it cannot be started.
async fn in_child(
    program: &PathBuf,
    bytes: &[u8],
    max_pdf_bytes: usize,
    deadline: Instant,
) -> Option<Result<PdfText, Failure>> {
    let left = deadline.saturating_duration_since(Instant::now());
    let mut child = tokio::process::Command::new(program)
        .arg(CHILD_ARG)
        .arg(max_pdf_bytes.to_string())
        .arg(left.as_millis().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .ok()?;
    let (mut stdin, mut stdout, stderr) = (
        child.stdin.take()?,
        child.stdout.take()?,
        child.stderr.take()?,
    );
    // The text is bounded by the glyphs a document may draw; anything longer is not a
    // reading.
    let out_limit = Limits::new(max_pdf_bytes, None)
        .inflate
        .saturating_add(1 << 20);
    let work = async {
        let feed = async {
            // A child that died early closes its stdin: what it said is in its status.
            let _ = stdin.write_all(bytes).await;
            drop(stdin);
        };
        let mut out = Vec::new();
        let mut err = Vec::new();
        let mut stdout = (&mut stdout).take(out_limit);
        let mut stderr = stderr.take(STDERR_KEPT);
        let take_out = stdout.read_to_end(&mut out);
        let take_err = stderr.read_to_end(&mut err);
        let ((), out_read, _) = tokio::join!(feed, take_out, take_err);
        let status = child.wait().await;
        (out_read.is_ok(), out, err, status)
    };
    let Ok((read_ok, out, err, status)) = timeout_at(deadline, work).await else {
        // The child is killed as it is dropped.
        return Some(Err(Failure::Deadline));
    };
    if !err.is_empty() {
        // What the reader said (a page it stopped on, a failed allocation) is the
        // program's to say: on this process's standard error, as in-process.
        let _ = std::io::stderr().write_all(&err);
    }
    let Ok(status) = status else {
        return Some(Err(Failure::Problem(Problem::PdfUnreadable)));
    };
    if status.success() && read_ok {
        return Some(decode(&out).unwrap_or(Err(Failure::Problem(Problem::PdfUnreadable))));
    }
    Some(Err(death(status, &err, max_pdf_bytes)))
}

/// What a child's death says: out of memory (Rust reports a failed allocation on stderr
/// before it aborts), out of CPU time (`SIGXCPU`, or `SIGKILL` past the hard limit), or
/// any other failure of the reader.
fn death(status: std::process::ExitStatus, stderr: &[u8], max_pdf_bytes: usize) -> Failure {
    use std::os::unix::process::ExitStatusExt;
    const SIGKILL: i32 = 9;
    const SIGXCPU: i32 = 24;
    let said = String::from_utf8_lossy(stderr);
    if said.contains("memory allocation of") || said.contains("capacity overflow") {
        return Failure::Problem(Problem::PdfMemory {
            limit: memory_bound(max_pdf_bytes),
        });
    }
    match status.signal() {
        Some(SIGXCPU | SIGKILL) => Failure::Deadline,
        _ => Failure::Problem(Problem::PdfUnreadable),
    }
}

/// The reading's outcome as the child writes it on its stdout: `ok PAGES`, then the
/// title line (`+TITLE`, or `-` without one), then the text; or `err RULE [NUMBER]`,
/// a damaged file's reason on the next line.
fn encode(result: &Result<PdfText, Failure>) -> Vec<u8> {
    match result {
        Ok(pdf) => {
            let title = match &pdf.title {
                Some(t) => format!("+{t}"),
                None => "-".to_owned(),
            };
            format!("ok {}\n{title}\n{}", pdf.pages, pdf.text).into_bytes()
        }
        Err(Failure::Deadline) => b"err deadline".to_vec(),
        Err(Failure::Problem(p)) => {
            let number = match *p {
                Problem::PdfBomb { limit }
                | Problem::PdfGlyphs { limit }
                | Problem::PdfMemory { limit }
                | Problem::PdfTooLarge { limit } => limit,
                Problem::PdfNoText { pages } => u64::from(pages),
                _ => 0,
            };
            let mut line = format!("err {} {number}", p.rule());
            if let Problem::PdfMalformed(what) = p {
                line.push('\n');
                line.push_str(what);
            }
            line.into_bytes()
        }
    }
}

/// The outcome [`encode`] wrote, if `out` is one.
fn decode(out: &[u8]) -> Option<Result<PdfText, Failure>> {
    let out = std::str::from_utf8(out).ok()?;
    let (first, rest) = out.split_once('\n').unwrap_or((out, ""));
    let mut words = first.split(' ');
    match (words.next()?, words.next()) {
        ("ok", Some(pages)) => {
            let pages = pages.parse().ok()?;
            let (title, text) = rest.split_once('\n').unwrap_or((rest, ""));
            let title = match title.strip_prefix('+') {
                Some(t) => Some(t.to_owned()),
                None if title == "-" => None,
                None => return None,
            };
            Some(Ok(PdfText {
                title,
                pages,
                text: text.to_owned(),
            }))
        }
        ("err", Some("deadline")) => Some(Err(Failure::Deadline)),
        ("err", Some(rule)) => {
            let number: u64 = words.next()?.parse().ok()?;
            let problem = match rule {
                "pdf-inflation" => Problem::PdfBomb { limit: number },
                "pdf-glyphs" => Problem::PdfGlyphs { limit: number },
                "pdf-memory" => Problem::PdfMemory { limit: number },
                "pdf-size" => Problem::PdfTooLarge { limit: number },
                "pdf-no-text" => Problem::PdfNoText {
                    pages: u32::try_from(number).ok()?,
                },
                "pdf-encrypted" => Problem::PdfEncrypted,
                "pdf-malformed" => Problem::PdfMalformed(malformed::known(rest)?),
                _ => Problem::PdfUnreadable,
            };
            Some(Err(Failure::Problem(problem)))
        }
        _ => None,
    }
}

/// The PDF reader child: `CHILD_ARG MAX_PDF_BYTES MILLISECONDS` (the rest of `args`
/// after the program). Limits its own address space and CPU time first, then reads a
/// PDF of at most `MAX_PDF_BYTES` from stdin within `MILLISECONDS`, and writes the
/// outcome on stdout. Exits 0 once it wrote one; 2 on bad arguments; 3 when it cannot
/// set its limits (it reads nothing then).
pub fn child_main(mut args: impl Iterator<Item = OsString>) -> ExitCode {
    let mut number = || -> Option<u64> { args.next()?.to_str()?.parse().ok() };
    let (Some(max_pdf_bytes), Some(millis)) = (number(), number()) else {
        return ExitCode::from(2);
    };
    let Ok(max_pdf_bytes) = usize::try_from(max_pdf_bytes) else {
        return ExitCode::from(2);
    };
    let left = std::time::Duration::from_millis(millis);
    if limit_self(memory_bound(max_pdf_bytes), left.as_secs() + 1).is_err() {
        return ExitCode::from(3);
    }
    let mut bytes = Vec::new();
    if std::io::stdin()
        .take(max_pdf_bytes as u64 + 1)
        .read_to_end(&mut bytes)
        .is_err()
    {
        return ExitCode::from(2);
    }
    let result = if bytes.len() > max_pdf_bytes {
        Err(Failure::Problem(Problem::PdfTooLarge {
            limit: max_pdf_bytes as u64,
        }))
    } else {
        let limits = Limits::new(max_pdf_bytes, Some(std::time::Instant::now() + left));
        reader::read(&bytes, &limits)
    };
    drop(bytes);
    let mut stdout = std::io::stdout().lock();
    if stdout.write_all(&encode(&result)).is_err() || stdout.flush().is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// Limits this process: its address space to what it maps now plus `memory` bytes, its
/// CPU time to `cpu_seconds` (then `SIGXCPU`, and `SIGKILL` a second later), no core
/// file; and runs it at the priority of large work ([`crate::work::NICE`]), as a PDF is.
fn limit_self(memory: u64, cpu_seconds: u64) -> std::io::Result<()> {
    use rustix::process::{Resource, Rlimit, setpriority_process, setrlimit};
    // Lowering its own priority needs no privilege; a failure leaves it as it was.
    let _ = setpriority_process(None, crate::work::NICE);
    let mapped = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kib| kib * 1024);
    let limit = |n: u64| Rlimit {
        current: Some(n),
        maximum: Some(n),
    };
    setrlimit(Resource::Core, limit(0))?;
    setrlimit(Resource::As, limit(mapped.saturating_add(memory)))?;
    setrlimit(
        Resource::Cpu,
        Rlimit {
            current: Some(cpu_seconds),
            maximum: Some(cpu_seconds + 1),
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_outcome_crosses_the_pipe_as_it_was() {
        let outcomes = [
            Ok(PdfText {
                title: Some("A title".to_owned()),
                pages: 2,
                text: "[page 1]\nline\n\n[page 2]\nmore".to_owned(),
            }),
            Ok(PdfText {
                title: None,
                pages: 1,
                text: String::new(),
            }),
            Err(Failure::Deadline),
            Err(Failure::Problem(Problem::PdfBomb { limit: 7 })),
            Err(Failure::Problem(Problem::PdfGlyphs { limit: 8 })),
            Err(Failure::Problem(Problem::PdfMemory { limit: 9 })),
            Err(Failure::Problem(Problem::PdfTooLarge { limit: 10 })),
            Err(Failure::Problem(Problem::PdfNoText { pages: 3 })),
            Err(Failure::Problem(Problem::PdfEncrypted)),
            Err(Failure::Problem(Problem::PdfUnreadable)),
        ];
        for outcome in outcomes {
            assert_eq!(
                decode(&encode(&outcome)),
                Some(outcome.clone()),
                "{outcome:?}"
            );
        }
        for &what in malformed::ALL {
            let outcome = Err(Failure::Problem(Problem::PdfMalformed(what)));
            assert_eq!(decode(&encode(&outcome)), Some(outcome));
        }
        // Anything else is not an outcome.
        for junk in [
            &b""[..],
            b"ok",
            b"ok x\n-\n",
            b"ok 1\nno mark\n",
            b"err",
            b"\xff",
        ] {
            assert_eq!(decode(junk), None, "{junk:?}");
        }
        let unknown = b"err pdf-malformed 0\nsomething new";
        assert_eq!(decode(unknown), None);
    }

    /// A one-page PDF drawing `Hello` (the reader reads it in-process).
    fn hello_pdf() -> Vec<u8> {
        let content = "BT /F1 12 Tf 72 720 Td (Hello) Tj ET";
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_owned(),
            format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_owned(),
        ];
        let mut pdf = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        for (i, object) in objects.iter().enumerate() {
            offsets.push(pdf.len());
            pdf.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", i + 1).as_bytes());
        }
        let xref = pdf.len();
        let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
        for offset in offsets {
            table.push_str(&format!("{offset:010} 00000 n \n"));
        }
        table.push_str(&format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        ));
        pdf.extend_from_slice(table.as_bytes());
        pdf
    }

    #[tokio::test]
    async fn a_reader_process_that_cannot_start_is_a_refusal_not_a_reading_here() {
        let deadline = Instant::now() + std::time::Duration::from_secs(60);
        // Without a child program the document reads in this process.
        let here = read_with(None, hello_pdf(), 1 << 20, deadline).await;
        assert!(
            matches!(&here, Ok(pdf) if pdf.text.contains("Hello")),
            "{here:?}"
        );
        // With one that cannot be started it is refused, not read here instead.
        let missing = PathBuf::from("/nonexistent/mcp-web-pdf-reader");
        let refused = read_with(Some(&missing), hello_pdf(), 1 << 20, deadline).await;
        assert_eq!(
            refused,
            Err(Failure::Problem(Problem::PdfReaderUnavailable))
        );
    }

    #[test]
    fn the_memory_bound_grows_with_max_pdf_bytes_above_a_floor() {
        assert_eq!(memory_bound(4096), MIN_MEMORY);
        assert_eq!(memory_bound(20 << 20), 640 << 20);
    }
}
