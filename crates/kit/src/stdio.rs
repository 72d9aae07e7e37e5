//! The stdio transport: newline-delimited JSON-RPC on a reader and a writer.
//!
//! The MCP SDK ignores a line that is not JSON; MCP clients expect a JSON-RPC parse
//! error (-32700) instead, and the server must keep serving. So lines pass through a
//! filter first: a line that does not parse is answered here, every other line goes
//! to the SDK. Everything written goes through one writer task, a whole line at a
//! time, so answers never interleave. End of input is a clean shutdown.

use std::io;

use rmcp::ServiceExt;
use serde::de::IgnoredAny;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::server::Server;

/// The size of the in-memory pipes between the filter and the SDK.
const PIPE_BYTES: usize = 1 << 16;

/// The JSON-RPC answer to a line that is not JSON.
fn parse_error(detail: &str) -> Vec<u8> {
    let message = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32700, "message": format!("Parse error: {detail}")},
    });
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// Whether a line holds nothing but whitespace.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

impl Server {
    /// Serves MCP on this process's stdin and stdout until stdin closes.
    pub async fn serve_stdio(self) -> io::Result<()> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves MCP over newline-delimited JSON-RPC on `reader` and `writer` until the
    /// reader reaches end of input; then finishes the answers in flight and returns.
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (mut to_sdk, sdk_in) = tokio::io::duplex(PIPE_BYTES);
        let (sdk_out, from_sdk) = tokio::io::duplex(PIPE_BYTES);
        let (lines, mut outbox) = mpsc::unbounded_channel::<Vec<u8>>();

        // The one writer.
        let write_task = tokio::spawn(async move {
            let mut writer = writer;
            while let Some(line) = outbox.recv().await {
                writer.write_all(&line).await?;
                writer.flush().await?;
            }
            writer.flush().await
        });

        // SDK output → the writer, a line at a time.
        let sdk_lines = lines.clone();
        let forward_task = tokio::spawn(async move {
            let mut from_sdk = BufReader::new(from_sdk);
            let mut line = Vec::new();
            loop {
                line.clear();
                match from_sdk.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if sdk_lines.send(line.clone()).is_err() {
                            break;
                        }
                    }
                }
            }
        });

        // Input → the SDK, answering lines that are not JSON.
        let filter_task = tokio::spawn(async move {
            let mut reader = BufReader::new(reader);
            let mut line = Vec::new();
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(error) => {
                        tracing::error!(%error, "reading the input failed; shutting down");
                        break;
                    }
                }
                if is_blank(&line) {
                    continue;
                }
                if let Err(error) = serde_json::from_slice::<IgnoredAny>(&line) {
                    tracing::warn!(%error, "input line is not JSON");
                    if lines.send(parse_error(&error.to_string())).is_err() {
                        break;
                    }
                    continue;
                }
                if line.last() != Some(&b'\n') {
                    line.push(b'\n');
                }
                if to_sdk.write_all(&line).await.is_err() {
                    break;
                }
            }
            // Closing the pipe is the SDK's end of input.
            let _ = to_sdk.shutdown().await;
        });

        let handler = self.handler("stdio");
        match handler.serve((sdk_in, sdk_out)).await {
            Ok(running) => {
                if let Err(error) = running.waiting().await {
                    tracing::warn!(%error, "the MCP session ended with an error");
                }
            }
            // End of input before the first message is a clean exit too.
            Err(error) => tracing::debug!(%error, "the MCP session ended before it began"),
        }
        filter_task.abort();
        let _ = forward_task.await;
        match write_task.await {
            Ok(result) => match result {
                Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                other => other,
            },
            Err(join) => Err(io::Error::other(join)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_error_is_one_json_rpc_line() {
        let line = parse_error("expected value at line 1 column 1");
        assert_eq!(line.last(), Some(&b'\n'));
        let value: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["error"]["code"], -32700);
        assert!(value["id"].is_null());
    }

    #[test]
    fn blank_lines_are_recognised() {
        assert!(is_blank(b" \r\n"));
        assert!(!is_blank(b"{}\n"));
    }
}
