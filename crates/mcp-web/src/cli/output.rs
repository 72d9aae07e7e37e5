//! The command line's one path to the terminal: results to stdout, problems to
//! stderr. The workspace denies `print!`/`println!` so that nothing else writes to
//! stdout, which is the protocol channel when serving MCP over stdio.

use std::fmt::Display;
use std::io::{self, Write};

/// Standard output, locked, for a command's results.
pub fn stdout() -> io::StdoutLock<'static> {
    io::stdout().lock()
}

/// Writes `mcp-web: <problem>` to stderr. A failed write to stderr has nowhere to be
/// reported, so it is ignored.
pub fn problem(message: impl Display) {
    let _ = writeln!(io::stderr().lock(), "mcp-web: {message}");
}
