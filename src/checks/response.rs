//! Reading an HTTP/1.1 response: the status, the headers that say where the
//! body ends, and the body, each with a size limit so that a hostile server
//! can waste at most the check's time, not steward's memory.

use std::io::{self, BufRead, Read};

/// The longest status, header or chunk-size line accepted.
const MAX_LINE: u64 = 8 * 1024;

/// The most header (or trailer) lines accepted in one response.
const MAX_HEADERS: usize = 100;

/// A response's status and how its body is delimited.
#[derive(Debug, PartialEq, Eq)]
pub struct Head {
    pub status: u16,
    framing: Framing,
}

#[derive(Debug, PartialEq, Eq)]
enum Framing {
    /// 204 and 304 never have a body.
    Empty,
    Chunked,
    Length(u64),
    /// No length given: the body ends when the server closes the connection.
    UntilClose,
}

/// Reads the status line and headers, skipping interim 1xx responses.
pub fn read_head(reader: &mut impl BufRead) -> io::Result<Head> {
    loop {
        let status = parse_status(&read_line(reader)?)?;
        let headers = read_headers(reader)?;
        if (100..200).contains(&status) && status != 101 {
            continue;
        }
        let framing = framing(status, &headers)?;
        return Ok(Head { status, framing });
    }
}

/// Reads the body that follows `head`, refusing one longer than `limit` bytes.
pub fn read_body(reader: &mut impl BufRead, head: &Head, limit: usize) -> io::Result<Vec<u8>> {
    let limit = u64::try_from(limit).unwrap_or(u64::MAX);
    match head.framing {
        Framing::Empty => Ok(Vec::new()),
        Framing::Length(length) if length > limit => Err(too_large(limit)),
        Framing::Length(length) => read_exactly(reader, length),
        Framing::Chunked => read_chunked(reader, limit),
        Framing::UntilClose => read_until_close(reader, limit),
    }
}

fn parse_status(line: &str) -> io::Result<u16> {
    let mut parts = line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let code = parts.next().unwrap_or_default();
    let status = parse_decimal(code).and_then(|n| u16::try_from(n).ok());
    match status {
        Some(status) if version.starts_with("HTTP/1.") && code.len() == 3 => Ok(status),
        _ => Err(invalid(format!("malformed status line `{line}`"))),
    }
}

/// Header names in lower case, with their values trimmed.
fn read_headers(reader: &mut impl BufRead) -> io::Result<Vec<(String, String)>> {
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader)?;
        if line.is_empty() {
            return Ok(headers);
        }
        if headers.len() == MAX_HEADERS {
            return Err(invalid(format!("more than {MAX_HEADERS} header lines")));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| invalid(format!("malformed header line `{line}`")))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
}

fn framing(status: u16, headers: &[(String, String)]) -> io::Result<Framing> {
    if matches!(status, 204 | 304) {
        return Ok(Framing::Empty);
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    // Transfer-Encoding wins over Content-Length (RFC 9112, 6.3).
    if let Some(codings) = header("transfer-encoding") {
        let last = codings.rsplit(',').next().unwrap_or_default().trim();
        return Ok(if last.eq_ignore_ascii_case("chunked") {
            Framing::Chunked
        } else {
            Framing::UntilClose
        });
    }
    match header("content-length") {
        Some(length) => parse_decimal(length)
            .map(Framing::Length)
            .ok_or_else(|| invalid(format!("malformed Content-Length `{length}`"))),
        None => Ok(Framing::UntilClose),
    }
}

fn read_exactly(reader: &mut impl BufRead, length: u64) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    reader.by_ref().take(length).read_to_end(&mut body)?;
    if (body.len() as u64) < length {
        return Err(closed_early());
    }
    Ok(body)
}

fn read_chunked(reader: &mut impl BufRead, limit: u64) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line = read_line(reader)?;
        // A size may be followed by `;name=value` extensions, which mean nothing here.
        let size_text = line.split(';').next().unwrap_or_default().trim();
        let size = parse_hex(size_text)
            .ok_or_else(|| invalid(format!("malformed chunk size `{size_text}`")))?;
        if size == 0 {
            read_headers(reader)?; // trailers
            return Ok(body);
        }
        if body.len() as u64 + size > limit {
            return Err(too_large(limit));
        }
        body.extend(read_exactly(reader, size)?);
        if !read_line(reader)?.is_empty() {
            return Err(invalid("chunk longer than its size".to_string()));
        }
    }
}

fn read_until_close(reader: &mut impl BufRead, limit: u64) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    match reader
        .by_ref()
        .take(limit.saturating_add(1))
        .read_to_end(&mut body)
    {
        // Many TLS servers close without a close_notify; with the body
        // delimited by the close, a cut-off body cannot be told apart anyway.
        Err(err) if err.kind() != io::ErrorKind::UnexpectedEof => return Err(err),
        _ => {}
    }
    if body.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(body)
}

/// Reads one line without its line ending, refusing one longer than `MAX_LINE`.
fn read_line(reader: &mut impl BufRead) -> io::Result<String> {
    let mut line = Vec::new();
    reader
        .by_ref()
        .take(MAX_LINE)
        .read_until(b'\n', &mut line)?;
    if line.last() != Some(&b'\n') {
        return Err(if line.len() as u64 == MAX_LINE {
            invalid(format!("a line longer than {MAX_LINE} bytes"))
        } else {
            closed_early()
        });
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(String::from_utf8_lossy(&line).into_owned())
}

fn parse_decimal(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    digits.then(|| text.parse().ok()).flatten()
}

fn parse_hex(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit());
    digits.then(|| u64::from_str_radix(text, 16).ok()).flatten()
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

fn too_large(limit: u64) -> io::Error {
    invalid(format!("a body larger than {} KiB", limit / 1024))
}

fn closed_early() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the connection closed before the response ended",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(raw: &str) -> io::Result<Head> {
        read_head(&mut raw.as_bytes())
    }

    fn body(raw: &str, limit: usize) -> io::Result<Vec<u8>> {
        let mut reader = raw.as_bytes();
        let head = read_head(&mut reader)?;
        read_body(&mut reader, &head, limit)
    }

    fn message(result: io::Result<impl std::fmt::Debug>) -> String {
        result.expect_err("expected an error").to_string()
    }

    #[test]
    fn reads_the_status_and_framing() {
        let parsed = head("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello").unwrap();
        assert_eq!(
            parsed,
            Head {
                status: 200,
                framing: Framing::Length(5)
            }
        );
        assert_eq!(head("HTTP/1.0 404\r\n\r\n").unwrap().status, 404);
        assert_eq!(
            head("HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n")
                .unwrap()
                .framing,
            Framing::Empty
        );
        assert_eq!(
            head("HTTP/1.1 200 OK\nTransfer-Encoding: gzip, Chunked\n\n")
                .unwrap()
                .framing,
            Framing::Chunked
        );
        assert_eq!(
            head("HTTP/1.1 200 OK\r\n\r\n").unwrap().framing,
            Framing::UntilClose
        );
    }

    #[test]
    fn skips_interim_responses() {
        let raw = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 503 Busy\r\n\r\n";
        assert_eq!(head(raw).unwrap().status, 503);
    }

    #[test]
    fn refuses_malformed_heads() {
        assert_eq!(
            message(head("SSH-2.0-OpenSSH\r\n\r\n")),
            "malformed status line `SSH-2.0-OpenSSH`"
        );
        assert_eq!(
            message(head("HTTP/1.1 2000 OK\r\n\r\n")),
            "malformed status line `HTTP/1.1 2000 OK`"
        );
        assert_eq!(
            message(head("HTTP/1.1 200 OK\r\nnonsense\r\n\r\n")),
            "malformed header line `nonsense`"
        );
        assert_eq!(
            message(head("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n")),
            "malformed Content-Length `-1`"
        );
        assert_eq!(
            message(head("HTTP/1.1 200 OK\r\nServer: x")),
            "the connection closed before the response ended"
        );
        assert_eq!(
            message(head("")),
            "the connection closed before the response ended"
        );
        let long = format!("HTTP/1.1 200 {}\r\n\r\n", "x".repeat(10_000));
        assert_eq!(message(head(&long)), "a line longer than 8192 bytes");
        let many = format!("HTTP/1.1 200 OK\r\n{}\r\n", "X: y\r\n".repeat(101));
        assert_eq!(message(head(&many)), "more than 100 header lines");
    }

    #[test]
    fn reads_a_content_length_body() {
        assert_eq!(
            body(
                "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello, and more",
                100
            )
            .unwrap(),
            b"hello"
        );
        assert_eq!(
            message(body(
                "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
                100
            )),
            "the connection closed before the response ended"
        );
    }

    #[test]
    fn decodes_a_chunked_body_with_extensions_and_trailers() {
        let raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n\
                   5;ext=1\r\nhello\r\nA\r\n, chunked!\r\n0\r\nTrailer: yes\r\n\r\n";
        assert_eq!(body(raw, 100).unwrap(), b"hello, chunked!");
    }

    #[test]
    fn refuses_malformed_chunks() {
        let chunked =
            |rest: &str| format!("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n{rest}");
        assert_eq!(
            message(body(&chunked("zz\r\n"), 100)),
            "malformed chunk size `zz`"
        );
        assert_eq!(
            message(body(&chunked("+5\r\nhello\r\n0\r\n\r\n"), 100)),
            "malformed chunk size `+5`"
        );
        assert_eq!(
            message(body(&chunked("3\r\nhello\r\n0\r\n\r\n"), 100)),
            "chunk longer than its size"
        );
        assert_eq!(
            message(body(&chunked("5\r\nhel"), 100)),
            "the connection closed before the response ended"
        );
        assert_eq!(
            message(body(&chunked("ffffffffffffffffff\r\n"), 100)),
            "malformed chunk size `ffffffffffffffffff`"
        );
    }

    #[test]
    fn bodies_over_the_limit_are_refused() {
        let limit = 2048;
        let over = "x".repeat(limit + 1);
        let sized = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{over}",
            over.len()
        );
        assert_eq!(message(body(&sized, limit)), "a body larger than 2 KiB");
        let chunked = format!(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n{}\r\n401\r\n",
            "x".repeat(1024)
        );
        assert_eq!(message(body(&chunked, limit)), "a body larger than 2 KiB");
        let until_close = format!("HTTP/1.1 200 OK\r\n\r\n{over}");
        assert_eq!(
            message(body(&until_close, limit)),
            "a body larger than 2 KiB"
        );
        let exact = format!("HTTP/1.1 200 OK\r\n\r\n{}", &over[1..]);
        assert_eq!(body(&exact, limit).unwrap().len(), limit);
    }

    #[test]
    fn a_body_may_end_with_the_connection() {
        assert_eq!(
            body("HTTP/1.1 200 OK\r\n\r\nall of it", 100).unwrap(),
            b"all of it"
        );
        assert!(
            body("HTTP/1.1 304 Not Modified\r\n\r\n", 100)
                .unwrap()
                .is_empty()
        );
    }
}
