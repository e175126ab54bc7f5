//! The few URLs checks need: `http` or `https`, a host name or IP literal,
//! an optional port and a path. Anything that could smuggle text into the
//! request (spaces, control characters, credentials) is refused, not encoded.

use std::net::Ipv6Addr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Http,
    Https,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    pub scheme: Scheme,
    /// A DNS name or IP address; an IPv6 address without its brackets.
    pub host: String,
    pub port: u16,
    /// The path and query, starting with `/`; the fragment is dropped.
    pub path: String,
}

impl Url {
    pub fn parse(text: &str) -> Result<Url, String> {
        parse(text).map_err(|what| format!("invalid URL `{text}`: {what}"))
    }

    /// `host` or `host:port` as the `Host` header wants it: IPv6 in brackets,
    /// the scheme's default port left out.
    pub fn authority(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == default_port(self.scheme) {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }
}

fn parse(text: &str) -> Result<Url, String> {
    let (scheme, rest) = text
        .split_once("://")
        .ok_or("expected http:// or https://")?;
    let scheme = if scheme.eq_ignore_ascii_case("http") {
        Scheme::Http
    } else if scheme.eq_ignore_ascii_case("https") {
        Scheme::Https
    } else {
        return Err(format!(
            "unsupported scheme `{scheme}`: expected http or https"
        ));
    };
    if let Some((at, c)) = text.char_indices().find(|(_, c)| !c.is_ascii_graphic()) {
        return Err(format!(
            "{c:?} at byte {at} is not allowed: percent-encode it, or use punycode in a host name"
        ));
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    let (host, port) = parse_authority(authority, scheme)?;
    Ok(Url {
        scheme,
        host,
        port,
        path: request_path(path),
    })
}

fn parse_authority(authority: &str, scheme: Scheme) -> Result<(String, u16), String> {
    if authority.contains('@') {
        return Err("user names and passwords in URLs are not supported".to_string());
    }
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        let (inside, after) = bracketed
            .split_once(']')
            .ok_or("unclosed `[` in the host")?;
        let address: Ipv6Addr = inside
            .parse()
            .map_err(|_| format!("`{inside}` is not an IPv6 address"))?;
        let port = match after {
            "" => None,
            _ => Some(
                after
                    .strip_prefix(':')
                    .ok_or_else(|| format!("unexpected `{after}` after the host"))?,
            ),
        };
        (address.to_string(), port)
    } else if authority.matches(':').count() > 1 {
        return Err("an IPv6 address must be in brackets".to_string());
    } else {
        let (host, port) = match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        };
        check_host(host)?;
        (host.to_string(), port)
    };
    let port = match port {
        Some(port) => parse_port(port)?,
        None => default_port(scheme),
    };
    Ok((host, port))
}

/// Host names are letters, digits, `-`, `_` and `.`; IPv4 addresses fit too.
fn check_host(host: &str) -> Result<(), String> {
    if host.is_empty() {
        return Err("no host".to_string());
    }
    match host
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        Some(c) => Err(format!("`{c}` is not allowed in a host name")),
        None => Ok(()),
    }
}

fn parse_port(text: &str) -> Result<u16, String> {
    match text.parse::<u16>() {
        Ok(port) if port != 0 && text.bytes().all(|b| b.is_ascii_digit()) => Ok(port),
        _ => Err(format!("`{text}` is not a port number")),
    }
}

fn default_port(scheme: Scheme) -> u16 {
    match scheme {
        Scheme::Http => 80,
        Scheme::Https => 443,
    }
}

/// What follows the authority, as the request line wants it.
fn request_path(rest: &str) -> String {
    let without_fragment = rest.split('#').next().unwrap_or_default();
    if without_fragment.starts_with('/') {
        without_fragment.to_string()
    } else {
        format!("/{without_fragment}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|err| panic!("{err}"))
    }

    fn error(text: &str) -> String {
        match Url::parse(text) {
            Ok(url) => panic!("`{text}` parsed as {url:?}"),
            Err(err) => err,
        }
    }

    #[test]
    fn parses_scheme_host_port_and_path() {
        assert_eq!(
            url("https://example.com:8443/health?full=1#top"),
            Url {
                scheme: Scheme::Https,
                host: "example.com".into(),
                port: 8443,
                path: "/health?full=1".into(),
            }
        );
        let plain = url("HTTP://Example.com");
        assert_eq!(
            (plain.scheme, plain.port, plain.path.as_str()),
            (Scheme::Http, 80, "/")
        );
        assert_eq!(url("http://example.com?q=1").path, "/?q=1");
        assert_eq!(url("http://example.com#frag").path, "/");
        assert_eq!(url("http://10.0.0.1:8080/").host, "10.0.0.1");
    }

    #[test]
    fn parses_bracketed_ipv6_literals() {
        let v6 = url("http://[::1]:8080/x");
        assert_eq!(
            (v6.host.as_str(), v6.port, v6.path.as_str()),
            ("::1", 8080, "/x")
        );
        assert_eq!(url("https://[2001:DB8::1]").host, "2001:db8::1");
    }

    #[test]
    fn the_authority_leaves_out_default_ports_and_brackets_ipv6() {
        assert_eq!(url("https://example.com:443/").authority(), "example.com");
        assert_eq!(
            url("http://example.com:8080/").authority(),
            "example.com:8080"
        );
        assert_eq!(url("http://[::1]/").authority(), "[::1]");
        assert_eq!(url("http://[::1]:81/").authority(), "[::1]:81");
    }

    #[test]
    fn refuses_other_schemes_and_non_urls() {
        assert_eq!(
            error("ftp://example.com/file"),
            "invalid URL `ftp://example.com/file`: unsupported scheme `ftp`: expected http or https"
        );
        assert!(error("example.com/health").ends_with("expected http:// or https://"));
        assert!(error("file:///etc/passwd").contains("unsupported scheme `file`"));
    }

    #[test]
    fn refuses_credentials() {
        assert!(error("https://user:pw@example.com/").contains("user names and passwords"));
        assert!(error("https://user@example.com/").contains("user names and passwords"));
    }

    #[test]
    fn refuses_bad_hosts_and_ports() {
        assert!(error("http:///path").ends_with("no host"));
        assert!(error("http://:80/").ends_with("no host"));
        assert!(error("http://exa$mple.com/").contains("`$` is not allowed in a host name"));
        assert!(error("http://::1/").contains("must be in brackets"));
        assert!(error("http://[::1/").contains("unclosed `[`"));
        assert!(error("http://[nope]/").contains("`nope` is not an IPv6 address"));
        assert!(error("http://[::1]x/").contains("unexpected `x`"));
        for port in ["", "0", "65536", "+80", "http"] {
            let text = format!("http://example.com:{port}/");
            assert!(error(&text).contains("is not a port number"), "{text}");
        }
    }

    #[test]
    fn refuses_characters_that_could_break_the_request() {
        assert!(error("http://example.com/a b").contains("' ' at byte 20 is not allowed"));
        assert!(error("http://example.com/\r\nX-Evil: 1").contains("'\\r' at byte 19"));
        assert!(error("http://exämple.com/").contains("punycode"));
    }
}
