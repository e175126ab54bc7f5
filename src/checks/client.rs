//! A deliberately small HTTP/1.1 client for checks: one GET, no redirects,
//! no proxies, no cookies, and one deadline for the whole exchange, DNS
//! included.

use std::io::{self, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::{Arc, OnceLock, mpsc};
use std::thread;
use std::time::Duration;

use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

use super::address;
use super::deadline::Deadline;
use super::response;
use super::text;
use super::url::{Scheme, Url};

/// The largest body read (GitHub's answer for a pull request is ~30 KiB).
const BODY_LIMIT: usize = 1024 * 1024;

/// One GET request.
pub struct Get<'a> {
    pub url: &'a Url,
    /// Sent after `Host`, `User-Agent`, `Accept-Encoding` and `Connection`.
    pub headers: &'a [(&'a str, &'a str)],
    pub timeout: Duration,
    /// Whether the host may resolve to a loopback, private or other
    /// non-public address.
    pub allow_private: bool,
    pub read_body: bool,
}

pub struct Response {
    pub status: u16,
    /// Empty unless the request asked for the body.
    pub body: Vec<u8>,
}

/// Sends the request and reads the answer, all within `get.timeout`. The
/// error is a short, one-line reason for a failed check.
pub fn get(get: &Get) -> Result<Response, String> {
    let deadline = Deadline::after(get.timeout);
    let request = request_text(get)?;
    let host = &get.url.host;
    let addresses = resolve(host, get.url.port, deadline)?;
    if !get.allow_private {
        refuse_private(host, &addresses)?;
    }
    let stream = TimedStream {
        tcp: connect(&addresses, deadline)?,
        deadline,
    };
    let peer = get.url.authority();
    match get.url.scheme {
        Scheme::Http => exchange(stream, &request, &peer, get.read_body, deadline),
        Scheme::Https => {
            let tls = handshake(stream, host, deadline)?;
            exchange(tls, &request, &peer, get.read_body, deadline)
        }
    }
}

fn request_text(get: &Get) -> Result<String, String> {
    let mut text = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: steward\r\n\
         Accept-Encoding: identity\r\nConnection: close\r\n",
        get.url.path,
        get.url.authority()
    );
    for (name, value) in get.headers {
        // A line break would end the header early and let the rest of the
        // value pose as headers of its own. The value is not shown: it may
        // be a token.
        if value.chars().any(|c| c.is_control()) {
            return Err(format!("the {name} header contains a control character"));
        }
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    Ok(text)
}

/// Resolves on a thread of its own, because the system resolver cannot be
/// given a timeout; past the deadline the thread is left to finish alone.
fn resolve(host: &str, port: u16, deadline: Deadline) -> Result<Vec<SocketAddr>, String> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let cannot = |why: String| format!("cannot resolve `{host}`: {why}");
    let (sender, answer) = mpsc::channel();
    let name = host.to_string();
    thread::Builder::new()
        .name("steward-check-dns".into())
        .spawn(move || {
            let found: io::Result<Vec<SocketAddr>> = (name.as_str(), port)
                .to_socket_addrs()
                .map(Iterator::collect);
            let _ = sender.send(found);
        })
        .map_err(|err| cannot(err.to_string()))?;
    let left = deadline
        .remaining()
        .ok_or_else(|| cannot(timed_out(deadline)))?;
    match answer.recv_timeout(left) {
        Ok(Ok(addresses)) if !addresses.is_empty() => Ok(addresses),
        Ok(Ok(_)) => Err(cannot("no addresses".to_string())),
        Ok(Err(err)) => Err(cannot(err.to_string())),
        Err(_) => Err(cannot(timed_out(deadline))),
    }
}

/// Refuses a host if any of its addresses is not public: a name that
/// resolves to both a public and a private address could be answered
/// either way by the next lookup.
fn refuse_private(host: &str, addresses: &[SocketAddr]) -> Result<(), String> {
    match addresses
        .iter()
        .find(|address| address::is_private(address.ip()))
    {
        Some(address) => Err(format!(
            "refused: {host} resolves to {}, a private address; set verification.allow_private_hosts",
            address.ip()
        )),
        None => Ok(()),
    }
}

/// Connects to the addresses just checked, in order, rather than to the name,
/// which DNS could point elsewhere between the check and the connection.
fn connect(addresses: &[SocketAddr], deadline: Deadline) -> Result<TcpStream, String> {
    let mut last_error = "no address to connect to".to_string();
    for address in addresses {
        let attempt = deadline
            .remaining_or_timeout()
            .and_then(|left| TcpStream::connect_timeout(address, left));
        match attempt {
            Ok(tcp) => return Ok(tcp),
            Err(err) => {
                last_error = format!("cannot connect to {address}: {}", reason(&err, deadline))
            }
        }
    }
    Err(last_error)
}

fn handshake(
    mut stream: TimedStream,
    host: &str,
    deadline: Deadline,
) -> Result<StreamOwned<ClientConnection, TimedStream>, String> {
    let failed = |why: String| format!("TLS handshake with {host} failed: {why}");
    let name = ServerName::try_from(host.to_string()).map_err(|err| failed(err.to_string()))?;
    let mut tls =
        ClientConnection::new(tls_config()?, name).map_err(|err| failed(err.to_string()))?;
    while tls.is_handshaking() {
        tls.complete_io(&mut stream)
            .map_err(|err| failed(reason(&err, deadline)))?;
    }
    Ok(StreamOwned::new(tls, stream))
}

/// The TLS settings, built once: ring for the cryptography, the Mozilla root
/// certificates from webpki-roots, so nothing depends on the system's store.
fn tls_config() -> Result<Arc<ClientConfig>, String> {
    static CONFIG: OnceLock<Result<Arc<ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map(|builder| {
                    Arc::new(builder.with_root_certificates(roots).with_no_client_auth())
                })
                .map_err(|err| format!("cannot set up TLS: {err}"))
        })
        .clone()
}

fn exchange(
    mut stream: impl Read + Write,
    request: &str,
    peer: &str,
    read_body: bool,
    deadline: Deadline,
) -> Result<Response, String> {
    stream
        .write_all(request.as_bytes())
        .and_then(|()| stream.flush())
        .map_err(|err| {
            format!(
                "cannot send the request to {peer}: {}",
                reason(&err, deadline)
            )
        })?;
    let mut reader = BufReader::new(stream);
    let bad_answer =
        |err: io::Error| format!("no valid answer from {peer}: {}", reason(&err, deadline));
    let head = response::read_head(&mut reader).map_err(bad_answer)?;
    let body = if read_body {
        response::read_body(&mut reader, &head, BODY_LIMIT).map_err(bad_answer)?
    } else {
        Vec::new()
    };
    Ok(Response {
        status: head.status,
        body,
    })
}

/// A TCP stream that gives up at the deadline: every read and write may take
/// only the time left, so a server that trickles bytes cannot stretch the check.
struct TimedStream {
    tcp: TcpStream,
    deadline: Deadline,
}

impl Read for TimedStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.tcp
            .set_read_timeout(Some(self.deadline.remaining_or_timeout()?))?;
        self.tcp.read(buf).map_err(timeout_kind)
    }
}

impl Write for TimedStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tcp
            .set_write_timeout(Some(self.deadline.remaining_or_timeout()?))?;
        self.tcp.write(buf).map_err(timeout_kind)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}

/// Socket timeouts surface as `WouldBlock` on Unix; call them what they are.
fn timeout_kind(err: io::Error) -> io::Error {
    if err.kind() == io::ErrorKind::WouldBlock {
        io::Error::from(io::ErrorKind::TimedOut)
    } else {
        err
    }
}

/// A few words on why an I/O step failed.
fn reason(err: &io::Error, deadline: Deadline) -> String {
    match err.kind() {
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => timed_out(deadline),
        io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
        io::ErrorKind::ConnectionReset => "connection reset".to_string(),
        _ => err.to_string(),
    }
}

fn timed_out(deadline: Deadline) -> String {
    format!("timed out after {}", text::duration(deadline.budget()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testing::Server;

    fn get_url(url: &str, headers: &[(&str, &str)]) -> Result<Response, String> {
        let url = Url::parse(url).unwrap();
        get(&Get {
            url: &url,
            headers,
            timeout: Duration::from_secs(5),
            allow_private: true,
            read_body: true,
        })
    }

    #[test]
    fn sends_a_minimal_get_and_reads_the_answer() {
        let server = Server::answering("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi");
        let response = get_url(&server.url("/health?x=1"), &[("Accept", "text/plain")]).unwrap();
        assert_eq!(
            (response.status, response.body.as_slice()),
            (200, b"hi".as_slice())
        );
        assert_eq!(
            server.request(),
            format!(
                "GET /health?x=1 HTTP/1.1\r\nHost: {}\r\nUser-Agent: steward\r\nAccept-Encoding: identity\r\n\
                 Connection: close\r\nAccept: text/plain\r\n\r\n",
                server.address
            )
        );
    }

    #[test]
    fn refuses_header_values_with_line_breaks_without_showing_them() {
        let err = get_url(
            "http://127.0.0.1:9/",
            &[("Authorization", "Bearer x\r\nEvil: 1")],
        )
        .err()
        .unwrap();
        assert_eq!(err, "the Authorization header contains a control character");
    }

    #[test]
    fn refuses_a_host_with_any_private_address() {
        let public: SocketAddr = "8.8.8.8:80".parse().unwrap();
        let private: SocketAddr = "[::ffff:10.0.0.1]:80".parse().unwrap();
        assert_eq!(refuse_private("example.com", &[public]), Ok(()));
        assert_eq!(
            refuse_private("example.com", &[public, private]),
            Err(
                "refused: example.com resolves to ::ffff:10.0.0.1, a private address; \
                 set verification.allow_private_hosts"
                    .to_string()
            )
        );
    }

    #[test]
    fn resolves_ip_literals_without_dns() {
        let found = resolve("::1", 8080, Deadline::after(Duration::ZERO)).unwrap();
        assert_eq!(found, ["[::1]:8080".parse().unwrap()]);
    }

    #[test]
    fn a_refused_connection_says_so() {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let err = get_url(&format!("http://127.0.0.1:{port}/"), &[])
            .err()
            .unwrap();
        assert_eq!(
            err,
            format!("cannot connect to 127.0.0.1:{port}: connection refused")
        );
    }

    #[test]
    fn tls_errors_are_reported_as_such() {
        // A plain HTTP answer where a TLS server hello belongs.
        let server = Server::blurting("HTTP/1.1 200 OK\r\n\r\n");
        let err = get_url(&server.url("/").replace("http:", "https:"), &[])
            .err()
            .unwrap();
        assert!(
            err.starts_with("TLS handshake with 127.0.0.1 failed: "),
            "{err}"
        );
    }
}
