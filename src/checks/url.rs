//! The URLs checks accept: `http` or `https` with a host, parsed by the
//! `http` crate (which refuses spaces, control characters and anything else
//! that could smuggle text into a request). Credentials are refused rather
//! than sent.

use ureq::http::Uri;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    uri: Uri,
}

impl Url {
    pub fn parse(text: &str) -> Result<Url, String> {
        parse(text).map_err(|what| format!("invalid URL `{text}`: {what}"))
    }

    /// The host: a DNS name, or an IP address (IPv6 in brackets).
    pub fn host(&self) -> &str {
        self.uri.host().unwrap_or_default()
    }

    /// `host` or `host:port`, for messages.
    pub fn authority(&self) -> &str {
        self.uri.authority().map_or("", |a| a.as_str())
    }

    pub fn uri(&self) -> &Uri {
        &self.uri
    }
}

fn parse(text: &str) -> Result<Url, String> {
    let (scheme, _) = text
        .split_once("://")
        .ok_or("expected http:// or https://")?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(format!(
            "unsupported scheme `{scheme}`: expected http or https"
        ));
    }
    if let Some((at, c)) = text.char_indices().find(|(_, c)| !c.is_ascii_graphic()) {
        return Err(format!(
            "{c:?} at byte {at} is not allowed: percent-encode it, or use punycode in a host name"
        ));
    }
    let uri: Uri = text.parse().map_err(|err| format!("{err}"))?;
    let authority = uri.authority().ok_or("no host")?;
    if authority.as_str().contains('@') {
        return Err("user names and passwords in URLs are not supported".to_string());
    }
    check_host(authority.host())?;
    if let Some(port) = authority
        .as_str()
        .strip_prefix(authority.host())
        .and_then(|rest| rest.strip_prefix(':'))
        && port.parse::<u16>().is_err()
    {
        return Err(format!("`{port}` is not a port number"));
    }
    Ok(Url { uri })
}

/// A DNS name (letters, digits, `-`, `_`, `.`; IPv4 addresses fit too) or
/// an IPv6 address in brackets: nothing a resolver could read otherwise.
fn check_host(host: &str) -> Result<(), String> {
    if host.is_empty() {
        return Err("no host".to_string());
    }
    if let Some(inside) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return inside
            .parse::<std::net::Ipv6Addr>()
            .map(drop)
            .map_err(|_| format!("`{inside}` is not an IPv6 address"));
    }
    match host
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        Some(c) => Err(format!("`{c}` is not allowed in a host name")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|err| panic!("{err}"))
    }

    fn error(text: &str) -> String {
        Url::parse(text)
            .err()
            .unwrap_or_else(|| panic!("`{text}` parsed"))
    }

    #[test]
    fn parses_scheme_host_port_and_path() {
        let parsed = url("https://example.com:8443/health?full=1");
        assert_eq!(parsed.host(), "example.com");
        assert_eq!(parsed.authority(), "example.com:8443");
        assert_eq!(parsed.uri().path(), "/health");
        assert_eq!(url("http://10.0.0.1:8080/").host(), "10.0.0.1");
        assert_eq!(url("http://[::1]:81/").host(), "[::1]");
    }

    #[test]
    fn refuses_other_schemes_and_non_urls() {
        assert_eq!(
            error("not a url"),
            "invalid URL `not a url`: expected http:// or https://"
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
        for text in [
            "http:///path",
            "http://:80/",
            "http://[::1/",
            "http://example.com:99999/",
            "http://example.com:x/",
            "http://::1/",
        ] {
            assert!(Url::parse(text).is_err(), "{text}");
        }
        assert!(error("http://exa$mple.com/").contains("`$` is not allowed in a host name"));
        assert!(error("http://[nope]/").contains("`nope` is not an IPv6 address"));
        assert_eq!(url("https://[2001:db8::1]:8443/").host(), "[2001:db8::1]");
    }

    #[test]
    fn refuses_characters_that_could_break_the_request() {
        assert!(error("http://example.com/a b").contains("' ' at byte 20 is not allowed"));
        assert!(error("http://example.com/\r\nX-Evil: 1").contains("'\\r' at byte 19"));
        assert!(error("http://exämple.com/").contains("punycode"));
    }
}
