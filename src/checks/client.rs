//! One GET for a check, through `ureq` (rustls, Mozilla's roots compiled
//! in): no proxy, no cookies, one deadline for the whole exchange (DNS,
//! redirects and the body included), the body capped, and every address
//! checked before it is used.
//!
//! The guard is the resolver: each hop's host name is resolved once, every
//! address is judged, and the connection goes to the addresses judged, so
//! DNS cannot answer differently between the check and the connection (no
//! rebinding). A redirect is a new hop through the same resolver: one that
//! points at a private address is refused like the first request would be.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use ureq::config::RedirectAuthHeaders;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use super::address;
use super::text;
use super::url::Url;

/// The largest body read (GitHub's answer for a pull request is ~30 KiB).
const BODY_LIMIT: u64 = 1024 * 1024;

/// Redirects followed, each one re-checked.
const MAX_REDIRECTS: u32 = 5;

/// One GET request.
pub struct Get<'a> {
    pub url: &'a Url,
    /// Sent as they are; a value with a control character is refused.
    pub headers: &'a [(&'a str, &'a str)],
    pub timeout: Duration,
    /// Whether the host may resolve to a loopback, private or other
    /// non-public address.
    pub allow_private: bool,
    pub read_body: bool,
    /// A body to send instead of a GET (the API's writes: a comment, a
    /// pull request), as JSON.
    pub send: Option<Send<'a>>,
}

/// A request with a JSON body.
#[derive(Debug, Clone, Copy)]
pub struct Send<'a> {
    pub method: Method,
    pub json: &'a [u8],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Post,
    Patch,
}

pub struct Response {
    pub status: u16,
    /// Empty unless the request asked for the body.
    pub body: Vec<u8>,
}

/// Sends the request and reads the answer, all within `get.timeout`. The
/// error is a short, one-line reason for a failed check.
pub fn get(get: &Get) -> Result<Response, String> {
    get_guarded(get, address::is_private)
}

/// [`get`], refusing the addresses `refuse` says no to (a test refuses a
/// narrower set, so that a loopback server can redirect to a refused one).
fn get_guarded(get: &Get, refuse: fn(IpAddr) -> bool) -> Result<Response, String> {
    for (name, value) in get.headers {
        // A line break would end the header early and let the rest of the
        // value pose as headers of its own. The value is not shown: it may
        // be a token.
        if value.chars().any(|c| c.is_control()) {
            return Err(format!("the {name} header contains a control character"));
        }
    }
    let config = ureq::Agent::config_builder()
        .timeout_global(Some(get.timeout))
        .http_status_as_error(false)
        .proxy(None)
        .max_redirects(MAX_REDIRECTS)
        .redirect_auth_headers(RedirectAuthHeaders::SameHost)
        .user_agent("steward")
        .max_idle_connections(0)
        .build();
    let guard = Guard {
        allow_private: get.allow_private,
        refuse,
    };
    let agent = ureq::Agent::with_parts(config, DefaultConnector::default(), guard);
    let peer = get.url.authority();
    let answer = match get.send {
        None => {
            let mut request = agent.get(get.url.uri());
            for (name, value) in get.headers {
                request = request.header(*name, *value);
            }
            request.call()
        }
        Some(send) => {
            let mut request = match send.method {
                Method::Post => agent.post(get.url.uri()),
                Method::Patch => agent.patch(get.url.uri()),
            };
            for (name, value) in get.headers {
                request = request.header(*name, *value);
            }
            request
                .header("Content-Type", "application/json")
                .send(send.json)
        }
    };
    let mut response = answer.map_err(|err| reason(&err, get.url, get.timeout))?;
    let status = response.status().as_u16();
    let body = if get.read_body {
        response
            .body_mut()
            .with_config()
            .limit(BODY_LIMIT)
            .read_to_vec()
            .map_err(|err| {
                format!(
                    "no valid answer from {peer}: {}",
                    reason(&err, get.url, get.timeout)
                )
            })?
    } else {
        Vec::new()
    };
    Ok(Response { status, body })
}

/// The resolver that refuses what a goal file may not reach.
struct Guard {
    allow_private: bool,
    refuse: fn(IpAddr) -> bool,
}

impl fmt::Debug for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Guard")
            .field("allow_private", &self.allow_private)
            .finish_non_exhaustive()
    }
}

impl Resolver for Guard {
    fn resolve(
        &self,
        uri: &Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let host = uri.host().unwrap_or_default();
        let addresses = DefaultResolver::default().resolve(uri, config, timeout)?;
        if !self.allow_private {
            refuse_private(host, &addresses, self.refuse)
                .map_err(|why| ureq::Error::Other(Box::new(Refused(why))))?;
        }
        Ok(addresses)
    }
}

/// Refuses a host if any of its addresses is not public: a name that
/// resolves to both a public and a private address could be answered
/// either way by the next lookup.
fn refuse_private(
    host: &str,
    addresses: &[SocketAddr],
    refuse: fn(IpAddr) -> bool,
) -> Result<(), String> {
    match addresses.iter().find(|address| refuse(address.ip())) {
        Some(address) => Err(format!(
            "refused: {host} resolves to {}, a private address; set verification.allow_private_hosts",
            address.ip()
        )),
        None => Ok(()),
    }
}

/// The guard's refusal, passed through ureq as it is.
#[derive(Debug)]
struct Refused(String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// A few words on why the request failed.
fn reason(err: &ureq::Error, url: &Url, timeout: Duration) -> String {
    use std::io::ErrorKind;
    let peer = url.authority();
    match err {
        ureq::Error::Other(inner) => inner.to_string(),
        ureq::Error::Timeout(_) => {
            format!(
                "no valid answer from {peer}: timed out after {}",
                text::duration(timeout)
            )
        }
        ureq::Error::HostNotFound => format!("cannot resolve `{}`", url.host()),
        ureq::Error::Io(io) if io.kind() == ErrorKind::ConnectionRefused => {
            format!("cannot connect to {peer}: connection refused")
        }
        ureq::Error::Io(io) if io.kind() == ErrorKind::ConnectionReset => {
            format!("no valid answer from {peer}: connection reset")
        }
        ureq::Error::Io(io) if io.kind() == ErrorKind::TimedOut => {
            format!(
                "no valid answer from {peer}: timed out after {}",
                text::duration(timeout)
            )
        }
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) => {
            format!("TLS handshake with {} failed: {err}", url.host())
        }
        // rustls reports what it could not make sense of as bad data.
        ureq::Error::Io(io)
            if io.kind() == ErrorKind::InvalidData && url.uri().scheme_str() == Some("https") =>
        {
            let why = io
                .get_ref()
                .map_or_else(|| io.to_string(), ToString::to_string);
            format!("TLS handshake with {} failed: {why}", url.host())
        }
        ureq::Error::BodyExceedsLimit(_) => {
            format!("the answer is larger than {} KiB", BODY_LIMIT / 1024)
        }
        ureq::Error::TooManyRedirects => {
            format!("more than {MAX_REDIRECTS} redirects")
        }
        ureq::Error::RedirectFailed => "a redirect without a usable Location".to_string(),
        ureq::Error::Protocol(_) | ureq::Error::Io(_) | ureq::Error::ConnectionFailed => {
            format!("no valid answer from {peer}: {err}")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testing::Server;

    fn request(
        url: &str,
        headers: &[(&str, &str)],
        allow_private: bool,
    ) -> Result<Response, String> {
        let url = Url::parse(url).unwrap();
        get(&Get {
            url: &url,
            headers,
            timeout: Duration::from_secs(5),
            allow_private,
            read_body: true,
            send: None,
        })
    }

    #[test]
    fn sends_a_get_with_its_headers_and_reads_the_answer() {
        let server = Server::answering("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi");
        let response = request(
            &server.url("/health?x=1"),
            &[("Accept", "text/plain")],
            true,
        )
        .unwrap();
        assert_eq!(
            (response.status, response.body.as_slice()),
            (200, b"hi".as_slice())
        );
        let sent = server.request().to_lowercase();
        assert!(sent.starts_with("get /health?x=1 http/1.1\r\n"), "{sent}");
        assert!(sent.contains("\r\naccept: text/plain\r\n"), "{sent}");
        assert!(sent.contains("\r\nuser-agent: steward\r\n"), "{sent}");
    }

    #[test]
    fn refuses_header_values_with_line_breaks_without_showing_them() {
        let err = request(
            "http://127.0.0.1:9/",
            &[("Authorization", "Bearer x\r\nEvil: 1")],
            true,
        )
        .err()
        .unwrap();
        assert_eq!(err, "the Authorization header contains a control character");
    }

    #[test]
    fn refuses_a_host_with_any_private_address() {
        let public: SocketAddr = "8.8.8.8:80".parse().unwrap();
        let private: SocketAddr = "[::ffff:10.0.0.1]:80".parse().unwrap();
        let refuse = address::is_private;
        assert_eq!(refuse_private("example.com", &[public], refuse), Ok(()));
        assert_eq!(
            refuse_private("example.com", &[public, private], refuse),
            Err(
                "refused: example.com resolves to ::ffff:10.0.0.1, a private address; \
                 set verification.allow_private_hosts"
                    .to_string()
            )
        );
    }

    #[test]
    fn a_private_address_is_refused_before_connecting() {
        let server = Server::answering("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        let err = request(&server.url("/"), &[], false).err().unwrap();
        assert_eq!(
            err,
            "refused: 127.0.0.1 resolves to 127.0.0.1, a private address; set verification.allow_private_hosts"
        );
        assert!(server.unused(), "steward connected to a refused address");
    }

    #[test]
    fn ip_literals_are_judged_too_ipv4_mapped_included() {
        for (url, ip) in [
            ("http://[::1]:9/", "::1"),
            ("http://[::ffff:127.0.0.1]:9/", "::ffff:127.0.0.1"),
            ("http://169.254.169.254/", "169.254.169.254"),
            ("http://0x7f.1:9/", "127.0.0.1"),
        ] {
            let err = request(url, &[], false).err().unwrap();
            assert!(
                err.starts_with("refused: ")
                    && err.contains(&format!("resolves to {ip}, a private address")),
                "{url}: {err}"
            );
        }
    }

    #[test]
    fn a_redirect_to_a_private_address_is_refused_hop_by_hop() {
        // Loopback stands in for the public first hop: this guard refuses
        // only link-local addresses, where cloud metadata services live.
        fn link_local(ip: IpAddr) -> bool {
            matches!(ip, IpAddr::V4(v4) if v4.is_link_local())
        }
        let server = Server::answering(
            "HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/latest/meta-data/\r\nContent-Length: 0\r\n\r\n",
        );
        let url = Url::parse(&server.url("/health")).unwrap();
        let get = Get {
            url: &url,
            headers: &[],
            timeout: Duration::from_secs(5),
            allow_private: false,
            read_body: false,
            send: None,
        };
        assert_eq!(
            get_guarded(&get, link_local).err().unwrap(),
            "refused: 169.254.169.254 resolves to 169.254.169.254, a private address; \
             set verification.allow_private_hosts"
        );
        assert!(server.request().starts_with("GET /health "));
    }

    #[test]
    fn redirects_are_followed_to_the_answer() {
        let target = Server::answering("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        let server = Server::answering(&format!(
            "HTTP/1.1 301 Moved Permanently\r\nLocation: {}\r\nContent-Length: 0\r\n\r\n",
            target.url("/new")
        ));
        let response = request(&server.url("/old"), &[], true).unwrap();
        assert_eq!(
            (response.status, response.body.as_slice()),
            (200, b"ok".as_slice())
        );
        assert!(target.request().starts_with("GET /new "));
    }

    #[test]
    fn the_body_is_capped() {
        let big = "x".repeat(BODY_LIMIT as usize + 1);
        let server = Server::answering(&format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{big}",
            big.len()
        ));
        let err = request(&server.url("/"), &[], true).err().unwrap();
        assert!(err.ends_with("the answer is larger than 1024 KiB"), "{err}");
    }

    #[test]
    fn a_refused_connection_says_so() {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let err = request(&format!("http://127.0.0.1:{port}/"), &[], true)
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
        let err = request(&server.url("/").replace("http:", "https:"), &[], true)
            .err()
            .unwrap();
        assert!(
            err.starts_with("TLS handshake with 127.0.0.1 failed: "),
            "{err}"
        );
    }
}
