//! The stdio transport: newline-delimited JSON-RPC on a reader and a writer.
//!
//! Lines are framed here, at most [`MAX_LINE_BYTES`] each, and read by
//! the JSON-RPC reader: what is not a usable request is answered here (a parse error,
//! an invalid request with `"id": null` when the id cannot be read, a line too
//! long), and the rest goes to the MCP SDK as messages, through a transport of our
//! own. Two rules of the session are kept here too, because the SDK breaks them: a
//! request reusing the id of one still in flight is refused (naming the id) instead
//! of taking over the first one's cancellation, and a notification or response sent
//! before the session began is ignored instead of ending the session. Everything
//! written goes through one writer task, a whole line at a time, so answers never
//! interleave. End of input is a clean shutdown; a failure to read the input ends
//! serving with that error.

use std::collections::HashSet;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::ServiceExt;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, GetMeta, ProtocolVersion,
    ServerJsonRpcMessage,
};
use rmcp::service::RoleServer;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::jsonrpc::{self, INVALID_REQUEST, Verdict};
use crate::server::Server;

/// The longest line read, in bytes: a longer one is skipped and answered as an
/// invalid request, so one message never holds more memory than this.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// How many messages may wait for the SDK before the reader waits for it.
const INBOX_MESSAGES: usize = 64;

/// The session's state the reader and the writer share.
#[derive(Debug, Default)]
struct Session {
    /// Whether the SDK's session began (an `initialize`, or a 2026-07-28 request that
    /// is neither `ping` nor `server/discover`); before it, the SDK takes anything but
    /// a request as the end of the session.
    began: bool,
    /// The ids (as JSON text) of the client's requests not yet answered.
    in_flight: HashSet<String>,
    /// Why reading the input failed, when it did: serving ends with this error.
    read_error: Option<io::Error>,
}

/// The session state, shared.
#[derive(Debug, Clone, Default)]
struct State(Arc<Mutex<Session>>);

impl State {
    fn lock(&self) -> MutexGuard<'_, Session> {
        // The state stays consistent whatever panicked while holding it.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A JSON value as one output line.
fn line_of(value: &Value) -> Vec<u8> {
    let mut line = value.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// A request id as the key of the in-flight set.
fn id_key(id: &impl serde::Serialize) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

/// Whether `request`, arriving before the session began, begins it: the SDK's own
/// rule (an `initialize`, or a request other than `ping` and `server/discover` whose
/// `_meta` carries a complete 2026-07-28 envelope at a supported version).
fn begins_session(request: &ClientRequest, supported: &[ProtocolVersion]) -> bool {
    match request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
        other => {
            let meta = other.get_meta();
            meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty()
                && meta
                    .protocol_version()
                    .is_some_and(|version| supported.contains(&version))
        }
    }
}

/// The SDK's transport: messages the reader let through in, answers out to the
/// writer, each answer marking its request as no longer in flight.
struct Link {
    inbox: mpsc::Receiver<ClientJsonRpcMessage>,
    outbox: mpsc::UnboundedSender<Vec<u8>>,
    session: State,
}

impl rmcp::transport::Transport<RoleServer> for Link {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let sent = serde_json::to_value(&item)
            .map_err(io::Error::other)
            .and_then(|value| {
                if value.get("method").is_none()
                    && let Some(id) = value.get("id")
                {
                    self.session.lock().in_flight.remove(&id_key(id));
                }
                self.outbox
                    .send(line_of(&value))
                    .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the output closed"))
            });
        std::future::ready(sent)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.inbox.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inbox.close();
        Ok(())
    }
}

/// What reading one line found.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A line (without its newline) is in the buffer.
    Read,
    /// A line longer than the limit was skipped.
    TooLong,
    /// End of input.
    End,
}

/// Reads one line of at most `limit` bytes into `line`; a longer one is read to its
/// end and dropped, never held. A last line without a newline counts as a line.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    limit: usize,
    line: &mut Vec<u8>,
) -> io::Result<Line> {
    line.clear();
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Read,
            });
        }
        let (taken, ends) = match available.iter().position(|&byte| byte == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        let content = &available[..taken - usize::from(ends)];
        if !too_long {
            if line.len() + content.len() > limit {
                too_long = true;
                *line = Vec::new();
            } else {
                line.extend_from_slice(content);
            }
        }
        reader.consume(taken);
        if ends {
            return Ok(if too_long { Line::TooLong } else { Line::Read });
        }
    }
}

/// Reads the input until its end: answers what must be answered here and hands the
/// rest to the SDK. A read error is kept in the session, then the SDK's input closes.
async fn read_all<R: AsyncRead + Unpin>(
    reader: R,
    inbox: mpsc::Sender<ClientJsonRpcMessage>,
    outbox: mpsc::UnboundedSender<Vec<u8>>,
    session: State,
    supported: Vec<ProtocolVersion>,
) {
    let read = read_input(reader, &inbox, outbox, session.clone(), supported).await;
    if let Err(error) = read {
        tracing::error!(%error, "reading the input failed; shutting down");
        session.lock().read_error = Some(error);
    }
    // Only now does the SDK see the end of its input.
    drop(inbox);
}

/// Reads the input until its end or a read error, which it returns.
async fn read_input<R: AsyncRead + Unpin>(
    reader: R,
    inbox: &mpsc::Sender<ClientJsonRpcMessage>,
    outbox: mpsc::UnboundedSender<Vec<u8>>,
    session: State,
    supported: Vec<ProtocolVersion>,
) -> io::Result<()> {
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        let read = read_line(&mut reader, MAX_LINE_BYTES, &mut line).await?;
        let answer = match read {
            Line::End => return Ok(()),
            Line::TooLong => {
                tracing::warn!(limit = MAX_LINE_BYTES, "input line too long; skipped");
                Some(jsonrpc::error_response(
                    None,
                    INVALID_REQUEST,
                    &format!(
                        "Invalid request: the message is longer than {} MiB, the most one line \
                         may hold; it was skipped",
                        MAX_LINE_BYTES >> 20
                    ),
                ))
            }
            Line::Read if line.iter().all(u8::is_ascii_whitespace) => None,
            Line::Read => match jsonrpc::read_message(&line) {
                Verdict::Answer(answer) => {
                    tracing::warn!(error = %answer["error"]["message"], "input message refused");
                    Some(answer)
                }
                Verdict::Ignore(why) => {
                    tracing::debug!(%why, "input message ignored");
                    None
                }
                Verdict::Deliver(message) => match admit(&message, &session, &supported) {
                    Admit::Deliver => {
                        if inbox.send(*message).await.is_err() {
                            // The SDK's session is over.
                            return Ok(());
                        }
                        None
                    }
                    Admit::Ignore(why) => {
                        tracing::debug!(why, "input message ignored");
                        None
                    }
                    Admit::Refuse(answer) => Some(answer),
                },
            },
        };
        if let Some(answer) = answer
            && outbox.send(line_of(&answer)).is_err()
        {
            return Ok(());
        }
    }
}

/// Whether a readable message goes to the SDK.
enum Admit {
    Deliver,
    Ignore(&'static str),
    Refuse(Value),
}

/// Applies the session's rules to a message the reader read: duplicate ids in
/// flight are refused, anything but a request before the session began is ignored,
/// and a client's cancellation ends its request's flight.
fn admit(message: &ClientJsonRpcMessage, session: &State, supported: &[ProtocolVersion]) -> Admit {
    let mut session = session.lock();
    match message {
        ClientJsonRpcMessage::Request(request) => {
            let key = id_key(&request.id);
            if session.in_flight.contains(&key) {
                return Admit::Refuse(jsonrpc::duplicate_id(&request.id));
            }
            if !session.began && begins_session(&request.request, supported) {
                session.began = true;
            }
            session.in_flight.insert(key);
            Admit::Deliver
        }
        _ if !session.began => Admit::Ignore("a notification or response before the session began"),
        ClientJsonRpcMessage::Notification(notification) => {
            if let ClientNotification::CancelledNotification(cancelled) = &notification.notification
                && let Some(id) = &cancelled.params.request_id
            {
                // A cancelled request gets no answer.
                session.in_flight.remove(&id_key(id));
            }
            Admit::Deliver
        }
        _ => Admit::Deliver,
    }
}

impl Server {
    /// Serves MCP on this process's stdin and stdout until stdin closes.
    pub async fn serve_stdio(self) -> io::Result<()> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves MCP over newline-delimited JSON-RPC on `reader` and `writer` until the
    /// reader reaches end of input; then finishes the answers in flight and returns.
    /// A failure to read or write is returned as the error.
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (inbox_in, inbox) = mpsc::channel(INBOX_MESSAGES);
        let (outbox, mut lines) = mpsc::unbounded_channel::<Vec<u8>>();
        let session = State::default();

        // The one writer.
        let write_task = tokio::spawn(async move {
            let mut writer = writer;
            while let Some(line) = lines.recv().await {
                writer.write_all(&line).await?;
                writer.flush().await?;
            }
            writer.flush().await
        });

        let handler = self.handler("stdio");
        let supported = rmcp::ServerHandler::supported_protocol_versions(&handler).into_owned();
        let read_task = tokio::spawn(read_all(
            reader,
            inbox_in,
            outbox.clone(),
            session.clone(),
            supported,
        ));
        let link = Link {
            inbox,
            outbox,
            session: session.clone(),
        };
        match handler.serve(link).await {
            Ok(running) => {
                if let Err(error) = running.waiting().await {
                    tracing::warn!(%error, "the MCP session ended with an error");
                }
            }
            // End of input before the first message is a clean exit too.
            Err(error) => tracing::debug!(%error, "the MCP session ended before it began"),
        }
        // The session may end before the input does (a failed handshake).
        read_task.abort();
        let written = write_task.await;
        if let Some(error) = session.lock().read_error.take() {
            return Err(error);
        }
        match written {
            Ok(Err(error)) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            Ok(result) => result,
            Err(join) => Err(io::Error::other(join)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines_of(input: &[u8], limit: usize) -> Vec<(Line, Vec<u8>)> {
        let mut reader = BufReader::with_capacity(4, input);
        let mut line = Vec::new();
        let mut found = Vec::new();
        loop {
            let read = read_line(&mut reader, limit, &mut line).await.unwrap();
            if read == Line::End {
                return found;
            }
            found.push((read, line.clone()));
        }
    }

    #[tokio::test]
    async fn lines_are_framed_and_long_ones_skipped_whole() {
        let found = lines_of(b"ab\n0123456789\ncd\nlast", 5).await;
        assert_eq!(
            found,
            [
                (Line::Read, b"ab".to_vec()),
                (Line::TooLong, Vec::new()),
                (Line::Read, b"cd".to_vec()),
                (Line::Read, b"last".to_vec()),
            ]
        );
        assert_eq!(
            lines_of(b"12345\n", 5).await,
            [(Line::Read, b"12345".to_vec())]
        );
        assert_eq!(lines_of(b"123456", 5).await, [(Line::TooLong, Vec::new())]);
    }

    #[test]
    fn only_a_request_begins_the_session() {
        let supported = ProtocolVersion::KNOWN_VERSIONS.to_vec();
        let message = |line: &str| match jsonrpc::read_message(line.as_bytes()) {
            Verdict::Deliver(message) => match *message {
                ClientJsonRpcMessage::Request(request) => request.request,
                other => panic!("not a request: {other:?}"),
            },
            other => panic!("not a request: {other:?}"),
        };
        let initialize = message(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        );
        assert!(begins_session(&initialize, &supported));
        assert!(!begins_session(
            &message(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            &supported
        ));
        assert!(!begins_session(
            &message(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            &supported
        ));
    }
}
