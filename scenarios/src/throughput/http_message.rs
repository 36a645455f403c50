//! Splits a taped HTTP/1.1 message into its head and its body (de-chunked), enough to find
//! the JSON and SSE payloads the protocol floor replays. A message cut short (a fault broke
//! the connection) yields the body bytes that did arrive.

/// One HTTP/1.1 message off a tape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpMessage {
    /// The start line and headers, lower-cased names as sent.
    pub head: String,
    pub body: Vec<u8>,
}

impl HttpMessage {
    /// Parses the first message in `bytes`; `None` when not even the head arrived.
    pub fn parse(bytes: &[u8]) -> Option<HttpMessage> {
        let end = bytes.windows(4).position(|window| window == b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
        let rest = &bytes[end + 4..];
        let message = HttpMessage {
            body: Vec::new(),
            head,
        };
        let body = if message.header("transfer-encoding") == Some("chunked") {
            dechunk(rest)
        } else {
            let length = message
                .header("content-length")
                .and_then(|value| value.parse().ok())
                .unwrap_or(rest.len());
            rest[..length.min(rest.len())].to_vec()
        };
        Some(HttpMessage { body, ..message })
    }

    /// The value of header `name` (case-insensitive), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }

    /// The start line (`POST / HTTP/1.1`, `HTTP/1.1 200 OK`).
    pub fn start_line(&self) -> &str {
        self.head.lines().next().unwrap_or_default()
    }
}

/// The data of a chunked body, up to its last complete chunk.
fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(line_end) = rest.windows(2).position(|window| window == b"\r\n") {
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let Ok(size) = usize::from_str_radix(size_text, 16) else {
            break;
        };
        let data = &rest[line_end + 2..];
        if size == 0 || data.len() < size {
            body.extend_from_slice(&data[..size.min(data.len())]);
            break;
        }
        body.extend_from_slice(&data[..size]);
        rest = data.get(size + 2..).unwrap_or_default();
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_content_length_body_and_its_headers() {
        let message =
            HttpMessage::parse(b"POST / HTTP/1.1\r\nContent-Length: 4\r\nHost: a\r\n\r\nbodyextra")
                .expect("a head");
        assert_eq!(message.start_line(), "POST / HTTP/1.1");
        assert_eq!(message.header("content-length"), Some("4"));
        assert_eq!(message.header("host"), Some("a"));
        assert_eq!(message.body, b"body");
    }

    #[test]
    fn dechunks_and_keeps_what_arrived_of_a_cut_stream() {
        let whole = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        assert_eq!(HttpMessage::parse(whole).unwrap().body, b"abcde");
        let cut = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n5\r\nde";
        assert_eq!(HttpMessage::parse(cut).unwrap().body, b"abcde");
        assert_eq!(HttpMessage::parse(b"HTTP/1.1 200"), None);
    }
}
