//! Test helpers: a policy that refuses everything it can, and one-shot HTTP
//! servers on 127.0.0.1, so no test depends on the internet.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Duration;

use super::CheckPolicy;

pub fn policy(root: &Path) -> CheckPolicy {
    CheckPolicy {
        root: root.to_path_buf(),
        allow_commands: false,
        command_timeout: Duration::from_secs(10),
        allow_private_hosts: false,
        http_timeout: Duration::from_secs(5),
        // Nothing listens on the discard port: a test that forgets to point
        // this at its own server fails rather than reaching GitHub.
        github_api: "http://127.0.0.1:9".to_string(),
        github_token: None,
    }
}

/// How long a test server waits on its client, so that it cannot outlive a
/// failed test by much.
const PATIENCE: Duration = Duration::from_secs(10);

/// A server for one connection.
pub struct Server {
    pub address: SocketAddr,
    request: Receiver<String>,
}

impl Server {
    /// Reads the request head, sends `response` and closes.
    pub fn answering(response: &str) -> Server {
        let response = response.to_string();
        Server::start(move |stream| {
            let request = read_head(stream);
            let _ = stream.write_all(response.as_bytes());
            request
        })
    }

    /// Answers one connection after another, each with the next of
    /// `responses`; [`Server::request`] gives their request heads in turn.
    pub fn answering_each(responses: &[String]) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let (sender, request) = mpsc::channel();
        let responses = responses.to_vec();
        thread::spawn(move || {
            for response in responses {
                let Ok((mut stream, _)) = listener.accept() else {
                    return;
                };
                stream.set_read_timeout(Some(PATIENCE)).unwrap();
                let head = read_head(&mut stream);
                let _ = stream.write_all(response.as_bytes());
                let _ = sender.send(head);
            }
        });
        Server { address, request }
    }

    /// Sends `response` at once without reading anything, then waits for the
    /// client to hang up.
    pub fn blurting(response: &str) -> Server {
        let response = response.to_string();
        Server::start(move |stream| {
            let _ = stream.write_all(response.as_bytes());
            let _ = stream.read_to_end(&mut Vec::new());
            String::new()
        })
    }

    /// Accepts the connection and never answers.
    pub fn silent() -> Server {
        Server::start(|stream| {
            let _ = stream.read_to_end(&mut Vec::new());
            String::new()
        })
    }

    fn start(serve: impl FnOnce(&mut TcpStream) -> String + Send + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let (sender, request) = mpsc::channel();
        thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            stream.set_read_timeout(Some(PATIENCE)).unwrap();
            let _ = sender.send(serve(&mut stream));
        });
        Server { address, request }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// Whether no client came (within a moment).
    pub fn unused(&self) -> bool {
        self.request
            .recv_timeout(Duration::from_millis(300))
            .is_err()
    }

    /// The request head the server received.
    pub fn request(&self) -> String {
        self.request
            .recv_timeout(PATIENCE)
            .expect("the server got no request")
    }
}

fn read_head(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0];
    while !head.ends_with(b"\r\n\r\n") && matches!(stream.read(&mut byte), Ok(1)) {
        head.push(byte[0]);
    }
    String::from_utf8_lossy(&head).into_owned()
}
