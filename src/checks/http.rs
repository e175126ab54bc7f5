//! `http_ok`: a GET that answers 2xx. Redirects are followed, each hop
//! checked against the private-address rule like the first (see `client`).

use super::client::{self, Get};
use super::url::Url;
use super::{CheckOutcome, CheckPolicy};

pub fn run(url: &Url, policy: &CheckPolicy) -> CheckOutcome {
    let get = Get {
        url,
        headers: &[],
        timeout: policy.http_timeout,
        allow_private: policy.allow_private_hosts,
        read_body: false,
        send: None,
    };
    match client::get(&get) {
        Ok(response) if (200..300).contains(&response.status) => {
            CheckOutcome::passed(format!("HTTP {}", response.status))
        }
        Ok(response) => CheckOutcome::failed(status_text(response.status)),
        Err(detail) => CheckOutcome::failed(detail),
    }
}

/// `HTTP 503`.
pub fn status_text(status: u16) -> String {
    format!("HTTP {status}")
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::checks::testing::{self, Server};

    fn check(url: &str, allow_private_hosts: bool) -> CheckOutcome {
        let url = Url::parse(url).unwrap();
        let policy = CheckPolicy {
            allow_private_hosts,
            http_timeout: Duration::from_secs(1),
            ..testing::policy(std::path::Path::new("/nonexistent"))
        };
        run(&url, &policy)
    }

    #[test]
    fn loopback_is_refused_unless_private_hosts_are_allowed() {
        let server = Server::answering("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        let ip = server.address.ip();
        assert_eq!(
            check(&server.url("/"), false),
            CheckOutcome::failed(format!(
                "refused: {ip} resolves to {ip}, a private address; set verification.allow_private_hosts"
            ))
        );
        assert_eq!(
            check(&server.url("/"), true),
            CheckOutcome::passed("HTTP 200")
        );
    }

    #[test]
    fn other_statuses_fail() {
        let server =
            Server::answering("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n");
        assert_eq!(
            check(&server.url("/"), true),
            CheckOutcome::failed("HTTP 500")
        );
    }

    #[test]
    fn a_redirect_is_followed_and_judged_by_where_it_ends() {
        let target = Server::answering("HTTP/1.1 503 Unavailable\r\nContent-Length: 0\r\n\r\n");
        let server = Server::answering(&format!(
            "HTTP/1.1 301 Moved Permanently\r\nLocation: {}\r\nContent-Length: 0\r\n\r\n",
            target.url("/new")
        ));
        assert_eq!(
            check(&server.url("/old"), true),
            CheckOutcome::failed("HTTP 503")
        );
    }

    #[test]
    fn a_chunked_answer_passes() {
        let server = Server::answering(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
        );
        assert_eq!(
            check(&server.url("/"), true),
            CheckOutcome::passed("HTTP 200")
        );
    }

    #[test]
    fn a_server_that_never_answers_fails_at_the_timeout() {
        let server = Server::silent();
        let start = Instant::now();
        let outcome = check(&server.url("/"), true);
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(
            outcome,
            CheckOutcome::failed(format!(
                "no valid answer from {}: timed out after 1s",
                server.address
            ))
        );
    }

    #[test]
    fn a_garbled_answer_fails() {
        let server = Server::answering("SSH-2.0-OpenSSH_9.6\r\n");
        let CheckOutcome::Failed { detail } = check(&server.url("/"), true) else {
            panic!("a garbled answer passed");
        };
        assert!(
            detail.starts_with(&format!("no valid answer from {}: ", server.address)),
            "{detail}"
        );
    }
}
