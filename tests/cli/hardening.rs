//! Shared by the hardening tests: a served `meshsim serve` child process, a raw blocking
//! HTTP/1.1 exchange (so tests can send what no well-behaved client would), and the
//! Markdown tables of docs/hardening.md that the tests check (or rewrite with
//! `MESHSIM_BLESS=1`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A `meshsim serve` child; killed when dropped so a failing test leaves nothing behind.
pub struct Served {
    pub child: Child,
    pub addr: SocketAddr,
    tail: std::sync::mpsc::Receiver<String>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `meshsim serve ARGS` and reads its address from the URL it prints.
pub fn serve(args: &[&str]) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .arg("serve")
        .args(args)
        .current_dir(scratch())
        .stdout(Stdio::piped())
        .spawn()
        .expect("meshsim runs");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("meshsim prints its URL");
    let url = line
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"));
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .expect(url);
    // Keep draining stdout so the child never blocks on a full pipe; what it prints after
    // its URL lines comes back through `Served::stdout_tail`.
    let (sender, tail) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stdout.read_to_string(&mut rest);
        let _ = sender.send(rest);
    });
    Served { child, addr, tail }
}

impl Served {
    /// What the process printed after its URL line, once it has exited.
    pub fn stdout_tail(&self) -> String {
        self.tail
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_default()
    }
}

/// A directory for the files tests hand to `meshsim` (relative paths keep messages stable).
pub fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hardening");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// What came back on a raw connection.
#[derive(Debug, Default)]
pub struct Reply {
    pub status: Option<u16>,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The server closed the connection (after or without an answer).
    pub closed: bool,
    /// The client gave up waiting ([`READ_TIMEOUT`] passed with nothing to read): the
    /// server neither answered nor closed, which no row of the table expects.
    pub timed_out: bool,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The JSON-RPC error code and message of the body, if it is an error response.
    pub fn rpc_error(&self) -> Option<(i64, String)> {
        let json: serde_json::Value = serde_json::from_str(&self.body).ok()?;
        let error = json.get("error")?;
        Some((
            error.get("code")?.as_i64()?,
            error.get("message")?.as_str()?.to_string(),
        ))
    }
}

/// How long a test client waits for the server to say anything: many times every timeout
/// the tests configure (at most 300 ms) and any work step a test waits through, so only a
/// server that hangs reaches it.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

pub fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(READ_TIMEOUT))
        .expect("timeout");
    stream
}

/// Notes how a read that got no bytes ended: the server closed, or the client timed out.
fn note_end(reply: &mut Reply, read: &std::io::Result<usize>) {
    match read {
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            reply.timed_out = true
        }
        _ => reply.closed = true,
    }
}

/// Reads one response (head, then a `Content-Length` body or up to EOF), or notes that
/// the connection closed first.
pub fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut reply = Reply::default();
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(end) = find(&buffer, b"\r\n\r\n") {
            break end;
        }
        match stream.read(&mut chunk) {
            Ok(n) if n > 0 => buffer.extend_from_slice(&chunk[..n]),
            ended => {
                note_end(&mut reply, &ended);
                return reply;
            }
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    reply.status = lines
        .next()
        .and_then(|status| status.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok());
    reply.headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.trim().to_string(), value.trim().to_string()))
        .collect();
    let mut body = buffer[head_end + 4..].to_vec();
    let length = reply
        .header("content-length")
        .and_then(|value| value.parse::<usize>().ok());
    while length.is_none_or(|length| body.len() < length) {
        match stream.read(&mut chunk) {
            Ok(n) if n > 0 => body.extend_from_slice(&chunk[..n]),
            ended => {
                note_end(&mut reply, &ended);
                break;
            }
        }
    }
    reply.body = String::from_utf8_lossy(&body).to_string();
    reply
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// A POST of `body` to `/` with extra header lines (each ending in `\r\n`).
pub fn post(body: &[u8], headers: &str) -> Vec<u8> {
    let mut request = format!(
        "POST / HTTP/1.1\r\nHost: agent.test\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n{headers}\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

/// Sends `raw` on a fresh connection and reads the answer.
pub fn exchange(addr: SocketAddr, raw: &[u8]) -> Reply {
    let mut stream = connect(addr);
    stream.write_all(raw).expect("send");
    read_reply(&mut stream)
}

/// The lines between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in docs/hardening.md
/// must be `table`; with `MESHSIM_BLESS=1` they are rewritten instead.
pub fn check_doc_table(name: &str, table: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/hardening.md");
    let doc = std::fs::read_to_string(&path).expect("docs/hardening.md");
    let begin = format!("<!-- {name}:begin -->\n");
    let end = format!("<!-- {name}:end -->");
    let start = doc.find(&begin).expect("begin marker") + begin.len();
    let stop = doc.find(&end).expect("end marker");
    if std::env::var_os("MESHSIM_BLESS").is_some() {
        let updated = format!("{}{table}{}", &doc[..start], &doc[stop..]);
        std::fs::write(&path, updated).expect("write docs/hardening.md");
        return;
    }
    let documented: Vec<&str> = doc[start..stop].lines().collect();
    let measured: Vec<&str> = table.lines().collect();
    let differs =
        (0..documented.len().max(measured.len())).find(|&n| documented.get(n) != measured.get(n));
    if let Some(n) = differs {
        panic!(
            "docs/hardening.md's `{name}` table is out of date (rerun with MESHSIM_BLESS=1); \
             row {n} documents\n  {:?}\nbut the answer is\n  {:?}",
            documented.get(n),
            measured.get(n)
        );
    }
}

/// A Markdown table cell: pipes escaped, line breaks folded, long texts cut.
pub fn cell(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = match text.char_indices().nth(180) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    };
    text.replace('|', "\\|")
}
