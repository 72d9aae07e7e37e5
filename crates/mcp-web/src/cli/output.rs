//! The command line's one path to the terminal: results to stdout, problems to
//! stderr. The workspace denies `print!`/`println!` so that nothing else writes to
//! stdout, which is the protocol channel when serving MCP over stdio. What a page
//! holds reaches the terminal here, so control characters (C0 but tab and line feed,
//! DEL, C1) are written as U+FFFD: a title or an error page cannot set the window's
//! title, clear the screen or ring the bell.

use std::fmt::Display;
use std::io::{self, Write};

/// What a control character is written as.
const REPLACEMENT: &str = "\u{FFFD}";

/// A writer that passes text on with its control characters replaced. The C1 controls
/// are two bytes in UTF-8 (`C2 80`–`C2 9F`); a `C2` that ends one write is held until
/// the next.
#[derive(Debug)]
pub struct Clean<W: Write> {
    inner: W,
    /// A `C2` byte whose next byte has not been written yet.
    held: bool,
}

impl<W: Write> Clean<W> {
    /// Cleans what is written to `inner`.
    pub fn new(inner: W) -> Self {
        Self { inner, held: false }
    }
}

impl<W: Write + io::IsTerminal> Clean<W> {
    /// Whether the writer underneath is a terminal.
    pub fn is_terminal(&self) -> bool {
        self.inner.is_terminal()
    }
}

/// Whether `byte` is a one-byte control character a terminal acts on.
fn is_c0(byte: u8) -> bool {
    (byte < 0x20 && byte != b'\t' && byte != b'\n') || byte == 0x7f
}

impl<W: Write> Write for Clean<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut out = Vec::with_capacity(buf.len() + 1);
        let mut bytes = buf.iter().copied().peekable();
        if self.held {
            self.held = false;
            match bytes.peek() {
                Some(0x80..=0x9f) => {
                    bytes.next();
                    out.extend_from_slice(REPLACEMENT.as_bytes());
                }
                _ => out.push(0xc2),
            }
        }
        while let Some(byte) = bytes.next() {
            if is_c0(byte) {
                out.extend_from_slice(REPLACEMENT.as_bytes());
            } else if byte == 0xc2 {
                match bytes.peek() {
                    Some(0x80..=0x9f) => {
                        bytes.next();
                        out.extend_from_slice(REPLACEMENT.as_bytes());
                    }
                    Some(_) => out.push(byte),
                    None => self.held = true,
                }
            } else {
                out.push(byte);
            }
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.held) {
            self.inner.write_all(&[0xc2])?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for Clean<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// Standard output, locked, for a command's results, control characters replaced.
pub fn stdout() -> Clean<io::StdoutLock<'static>> {
    Clean::new(io::stdout().lock())
}

/// Writes `mcp-web: <problem>` to stderr, control characters replaced. A failed write
/// to stderr has nowhere to be reported, so it is ignored.
pub fn problem(message: impl Display) {
    let _ = writeln!(Clean::new(io::stderr().lock()), "mcp-web: {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cleaned(pieces: &[&[u8]]) -> String {
        let mut out = Vec::new();
        {
            let mut clean = Clean::new(&mut out);
            for piece in pieces {
                clean.write_all(piece).unwrap();
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn control_characters_but_tab_and_newline_are_replaced() {
        let title = "A\x1b]0;owned\x07 title\x1b[2J\r\n\tnext\u{9b}31m\u{85}é\u{a0}\x7f";
        assert_eq!(
            cleaned(&[title.as_bytes()]),
            "A\u{FFFD}]0;owned\u{FFFD} title\u{FFFD}[2J\u{FFFD}\n\tnext\u{FFFD}31m\u{FFFD}é\u{a0}\u{FFFD}"
        );
    }

    #[test]
    fn a_c1_control_split_between_writes_is_replaced_and_other_characters_kept() {
        let csi = "\u{9b}".as_bytes();
        let nbsp = "\u{a0}".as_bytes();
        assert_eq!(
            cleaned(&[b"a", &csi[..1], &csi[1..], b"b", &nbsp[..1], &nbsp[1..]]),
            "a\u{FFFD}b\u{a0}"
        );
    }
}
