//! A loopback HTTP/1.1 server for the command tests: it answers each request from a
//! function of the path, and records connections, bytes received and request heads.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A server on 127.0.0.1, port 0, running until the test process ends.
pub struct Server {
    addr: SocketAddr,
    connections: Arc<AtomicUsize>,
    bytes: Arc<AtomicUsize>,
    heads: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Starts a server answering each request with `answer(path)`, keeping connections open.
    pub fn start(answer: impl Fn(&str) -> Vec<u8> + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("local address");
        let server = Server {
            addr,
            connections: Arc::default(),
            bytes: Arc::default(),
            heads: Arc::default(),
        };
        let (connections, bytes, heads) = (
            server.connections.clone(),
            server.bytes.clone(),
            server.heads.clone(),
        );
        let answer = Arc::new(answer);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                connections.fetch_add(1, Ordering::SeqCst);
                let (bytes, heads, answer) = (bytes.clone(), heads.clone(), answer.clone());
                std::thread::spawn(move || {
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                    let mut head = Vec::new();
                    let mut buf = [0u8; 4096];
                    loop {
                        match stream.read(&mut buf) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => {
                                bytes.fetch_add(n, Ordering::SeqCst);
                                head.extend_from_slice(&buf[..n]);
                            }
                        }
                        let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") else {
                            continue;
                        };
                        let text = String::from_utf8_lossy(&head[..end]).into_owned();
                        head.drain(..end + 4);
                        let path = text.split_whitespace().nth(1).unwrap_or("/").to_owned();
                        heads.lock().expect("test rig").push(text);
                        if stream.write_all(&answer(&path)).is_err() {
                            return;
                        }
                    }
                });
            }
        });
        server
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// Bytes received so far.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::SeqCst)
    }

    /// Requests received so far for `path`.
    pub fn requests(&self, path: &str) -> usize {
        let heads = self.heads.lock().expect("test rig");
        heads
            .iter()
            .filter(|h| h.split_whitespace().nth(1) == Some(path))
            .count()
    }

    /// The paths of the requests received so far, in the order they arrived.
    pub fn paths(&self) -> Vec<String> {
        let heads = self.heads.lock().expect("test rig");
        heads
            .iter()
            .map(|h| h.split_whitespace().nth(1).unwrap_or_default().to_owned())
            .collect()
    }

    /// The `user-agent` values of the requests received so far.
    pub fn user_agents(&self) -> Vec<String> {
        let heads = self.heads.lock().expect("test rig");
        heads
            .iter()
            .filter_map(|h| {
                h.lines()
                    .find_map(|l| l.strip_prefix("user-agent: "))
                    .map(str::to_owned)
            })
            .collect()
    }
}
