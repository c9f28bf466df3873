//! `pwk lsp`'s own base-protocol framing (`Content-Length` headers, a blank line,
//! the JSON body), bounded, in place of `lsp-server`'s reader (which trusts
//! `Content-Length`: it allocated the declared size before reading a byte, aborted
//! on one too large for memory, read a header line without end, and ended the
//! server on a body that is not JSON).
//!
//! Bounds: a header line holds at most [`MAX_HEADER_LINE`] bytes, a message at most
//! [`MAX_HEADERS`] header lines, a body at most [`MAX_CONTENT_LENGTH`] bytes, and
//! the body is read as it arrives (never allocated from the declared length). A
//! message that breaks a bound, or whose body is not JSON (a lone surrogate
//! `"\ud800"` included), JSON with a key twice in one object (the one strict
//! reader, [`crate::json`]), or JSON that is not a JSON-RPC message, is answered
//! with a JSON-RPC error — with the request's id when it can be read from the body,
//! else with id `null` — and the server goes on with the next message. A body too
//! large is skipped as it arrives, so the stream stays in step; after a header
//! whose body length is unknown (no `Content-Length`, a bad one, two that differ)
//! everything up to the next `Content-Length:` is dropped, so the stream gets back
//! in step (also when that body has no line break and the next header is glued to
//! its end). A request whose id is not an integer or a string (`1.5`, `{}`) is
//! answered with an error, not read as a notification. A body whose JSON tree would
//! outgrow its text ([`crate::json::memory_budget`]) is refused before it is built.
//!
//! Messages go to the server over an `lsp-server` [`Connection`] (its in-memory
//! pair); a writer thread frames what the server sends.

use std::io::{self, BufRead, Read, Write};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use lsp_server::{Connection, ErrorCode, Message};
use serde_json::{Value, json};

/// The largest body accepted: 64 MiB. Role buffers are capped far lower (1 MiB,
/// [`crate::fs::read::MAX_ROLE_FILE_BYTES`]: a larger buffer gets the
/// `file-too-large` finding and empty answers); this bound is for the message
/// itself, so that a hostile `Content-Length` allocates nothing.
pub(crate) const MAX_CONTENT_LENGTH: u64 = 64 * 1024 * 1024;

/// The longest header line accepted, in bytes (line break included).
pub(crate) const MAX_HEADER_LINE: usize = 8 * 1024;

/// The most header lines one message may have.
pub(crate) const MAX_HEADERS: usize = 32;

/// A message that could not be taken, with what to answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Invalid {
    /// The request's id, when the body let it be read (else the answer has `null`).
    pub id: Option<Value>,
    /// The JSON-RPC error code (`ErrorCode`).
    pub code: i32,
    pub message: String,
}

impl Invalid {
    fn new(code: ErrorCode, message: impl Into<String>) -> Invalid {
        Invalid {
            id: None,
            code: code as i32,
            message: message.into(),
        }
    }

    /// The JSON-RPC error response.
    pub(crate) fn response(&self) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.id.clone().unwrap_or(Value::Null),
            "error": {
                "code": self.code,
                "message": crate::text::escape_line(&self.message),
            },
        })
    }
}

/// What one read gave.
#[derive(Debug)]
pub(crate) enum Frame {
    Message(Message),
    Invalid(Invalid),
    /// End of input (also in the middle of a message).
    Eof,
}

/// A bounded reader of framed messages.
pub(crate) struct Reader<R> {
    inner: R,
    /// Bytes of a refused body still to be skipped before the next header.
    skip: u64,
    /// After a message whose length was unknown (no `Content-Length`, a bad or a
    /// second, different one): its body is somewhere ahead, so everything up to the
    /// next `Content-Length:` is dropped unanswered (the body, and the next header
    /// glued to its end when the body has no line break).
    resync: bool,
    /// A header line found inside the previous line (after bytes that are not a
    /// header): the first line of the next message.
    carried: Option<Vec<u8>>,
}

/// Where `Content-Length:` starts in `line` (any case), if it does.
fn find_content_length(line: &[u8]) -> Option<usize> {
    const NAME: &[u8] = b"content-length:";
    line.windows(NAME.len())
        .rposition(|w| w.eq_ignore_ascii_case(NAME))
}

impl<R: BufRead> Reader<R> {
    pub(crate) fn new(inner: R) -> Reader<R> {
        Reader {
            inner,
            skip: 0,
            resync: false,
            carried: None,
        }
    }

    /// The next message.
    pub(crate) fn read(&mut self) -> io::Result<Frame> {
        if self.skip > 0 {
            let skipped = io::copy(&mut (&mut self.inner).take(self.skip), &mut io::sink())?;
            let short = skipped < self.skip;
            self.skip = 0;
            if short {
                return Ok(Frame::Eof);
            }
        }
        let mut length: Option<u64> = None;
        // A Content-Length that could not be read, or two that differ: the body's
        // length is unknown.
        let mut bad_length = false;
        let mut problem: Option<Invalid> = None;
        let mut headers = 0usize;
        let mut line = Vec::with_capacity(64);
        loop {
            let too_long = match self.carried.take() {
                Some(carried) => {
                    line = carried;
                    false
                }
                None => match read_line(&mut self.inner, &mut line)? {
                    Line::Eof => return Ok(Frame::Eof),
                    Line::Complete => false,
                    Line::TooLong => true,
                },
            };
            if self.resync {
                // Drop everything up to the next `Content-Length:`, unanswered.
                match find_content_length(&line).filter(|_| !too_long) {
                    Some(at) => {
                        line.drain(..at);
                        self.resync = false;
                    }
                    None => continue,
                }
            } else if !too_long
                && headers == 0
                && split_header(trim_line_end(&line)).is_none()
                && let Some(at) = find_content_length(&line).filter(|&at| at > 0)
            {
                // Bytes, then a header: the end of a body longer than its
                // Content-Length said. Answer them, and read the header next.
                self.carried = Some(line[at..].to_vec());
                return Ok(Frame::Invalid(Invalid::new(
                    ErrorCode::ParseError,
                    format!("{} bytes that are not a message before a header", at),
                )));
            }
            if too_long {
                problem.get_or_insert_with(|| {
                    Invalid::new(
                        ErrorCode::ParseError,
                        format!("a header line longer than {MAX_HEADER_LINE} bytes"),
                    )
                });
                headers += 1;
                continue;
            }
            let text = trim_line_end(&line);
            if text.is_empty() {
                if headers == 0 && problem.is_none() {
                    continue; // blank lines between messages
                }
                break;
            }
            headers += 1;
            if headers > MAX_HEADERS {
                problem.get_or_insert_with(|| {
                    Invalid::new(
                        ErrorCode::ParseError,
                        format!("more than {MAX_HEADERS} header lines"),
                    )
                });
                continue;
            }
            let Some((name, value)) = split_header(text) else {
                problem.get_or_insert_with(|| {
                    Invalid::new(
                        ErrorCode::ParseError,
                        format!(
                            "not a header line: {:?}",
                            String::from_utf8_lossy(&text[..text.len().min(80)])
                        ),
                    )
                });
                continue;
            };
            if name.eq_ignore_ascii_case(b"content-length") {
                let parsed = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.trim().parse::<u64>().ok());
                match (parsed, length) {
                    (Some(n), None) => length = Some(n),
                    (Some(n), Some(m)) if n == m => {}
                    _ => {
                        bad_length = true;
                        problem.get_or_insert_with(|| {
                            Invalid::new(
                                ErrorCode::ParseError,
                                format!(
                                    "a bad Content-Length: {:?}",
                                    String::from_utf8_lossy(&value[..value.len().min(40)])
                                ),
                            )
                        });
                    }
                }
            }
        }
        if let Some(p) = problem {
            // Skip the body the headers announced, if they said how long it is;
            // else look for the next message.
            match length.filter(|_| !bad_length) {
                Some(n) => self.skip = n,
                None => self.resync = true,
            }
            return Ok(Frame::Invalid(p));
        }
        let Some(length) = length else {
            self.resync = true;
            return Ok(Frame::Invalid(Invalid::new(
                ErrorCode::ParseError,
                "a message without a Content-Length header",
            )));
        };
        if length > MAX_CONTENT_LENGTH {
            self.skip = length;
            return Ok(Frame::Invalid(Invalid::new(
                ErrorCode::InvalidRequest,
                format!(
                    "a message of {length} bytes, over pwk lsp's limit of {MAX_CONTENT_LENGTH} bytes"
                ),
            )));
        }
        // Read as it arrives: the buffer grows with what was sent, not with what
        // Content-Length claims.
        let mut body = Vec::new();
        (&mut self.inner).take(length).read_to_end(&mut body)?;
        if (body.len() as u64) < length {
            return Ok(Frame::Eof);
        }
        Ok(decode(&body))
    }
}

/// A body as a message, or why not.
pub(crate) fn decode(body: &[u8]) -> Frame {
    let invalid = |code: ErrorCode, message: String| {
        Frame::Invalid(Invalid {
            id: probe_id(body),
            code: code as i32,
            message,
        })
    };
    let value = match crate::json::parse_strict(body) {
        Ok(v) => v,
        Err(e @ crate::json::JsonError::DuplicateKey { .. }) => {
            return invalid(ErrorCode::InvalidRequest, format!("{}: {e}", e.pos()));
        }
        Err(e @ crate::json::JsonError::TooLarge { .. }) => {
            return invalid(ErrorCode::InvalidRequest, e.to_string());
        }
        Err(e) => return invalid(ErrorCode::ParseError, format!("{}: {e}", e.pos())),
    };
    // A request's id is an integer or a string (LSP: `integer | string`; lsp-server
    // reads an i32). A message with a method and any other id (`1.5`, `{}`, `null`,
    // 2^40) would otherwise be read as a notification and never answered.
    if value.get("method").is_some()
        && let Some(id) = value.get("id")
        && !(id.is_string() || id.as_i64().is_some_and(|n| i32::try_from(n).is_ok()))
    {
        return invalid(
            ErrorCode::InvalidRequest,
            format!(
                "a request id must be an integer or a string, found `{}`",
                crate::text::escape_line(&truncate(&id.to_string(), 40))
            ),
        );
    }
    match serde_json::from_value::<Message>(value) {
        Ok(m) => Frame::Message(m),
        Err(e) => invalid(
            ErrorCode::InvalidRequest,
            format!("not a JSON-RPC message: {e}"),
        ),
    }
}

/// At most `max` characters of `s`, with `…` when cut.
fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The `id` of a body that is not a message pwk takes, when it can be read (serde
/// skips the other members without decoding them, so a lone surrogate elsewhere
/// does not hide the id).
fn probe_id(body: &[u8]) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default)]
        id: Option<Value>,
    }
    let id = serde_json::from_slice::<Probe>(body).ok()?.id?;
    (id.is_number() || id.is_string()).then_some(id)
}

enum Line {
    Complete,
    /// Longer than [`MAX_HEADER_LINE`]: the rest of it was read and dropped.
    TooLong,
    Eof,
}

/// Read one line (up to and with `\n`) into `out`, keeping at most
/// [`MAX_HEADER_LINE`] bytes.
fn read_line(r: &mut impl BufRead, out: &mut Vec<u8>) -> io::Result<Line> {
    out.clear();
    let mut too_long = false;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(Line::Eof);
        }
        let (take, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if !too_long {
            if out.len() + take > MAX_HEADER_LINE {
                too_long = true;
                out.clear();
            } else {
                out.extend_from_slice(&buf[..take]);
            }
        }
        r.consume(take);
        if done {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `Name: value` (the space after the colon optional); the name is an HTTP token
/// (RFC 9110 `tchar`), so the end of a JSON body is never taken for a header.
fn split_header(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = memchr::memchr(b':', line)?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    let tchar = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    (!name.is_empty() && name.iter().all(tchar)).then_some((name, value))
}

/// Write one framed message.
pub(crate) fn write_frame(w: &mut impl Write, body: &[u8]) -> io::Result<()> {
    write!(w, "Content-Length: {}\r\n\r\n", body.len())?;
    w.write_all(body)?;
    w.flush()
}

/// The reader and writer threads of a stdio connection.
pub(crate) struct IoThreads {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<io::Result<()>>,
}

impl IoThreads {
    /// Wait for the reader (it ends at `exit` or end of input) and the writer (it
    /// ends once the server's connection is dropped).
    pub(crate) fn join(self) -> io::Result<()> {
        for handle in [self.reader, self.writer] {
            match handle.join() {
                Ok(r) => r?,
                Err(_) => return Err(io::Error::other("an LSP I/O thread panicked")),
            }
        }
        Ok(())
    }
}

/// A message as sent: `lsp-server`'s message with the `jsonrpc` member.
#[derive(serde::Serialize)]
struct JsonRpc<'a> {
    jsonrpc: &'static str,
    #[serde(flatten)]
    msg: &'a Message,
}

/// A connection over stdin and stdout with pwk's bounded framing.
pub(crate) fn stdio() -> (Connection, IoThreads) {
    connect(io::stdin(), io::stdout())
}

/// A connection over `input` and `output` with pwk's bounded framing.
pub(crate) fn connect<I, O>(input: I, output: O) -> (Connection, IoThreads)
where
    I: Read + Send + 'static,
    O: Write + Send + 'static,
{
    let (server, client) = Connection::memory();
    let out = Arc::new(Mutex::new(output));
    let write = {
        let out = Arc::clone(&out);
        move |body: &[u8]| -> io::Result<()> {
            let mut w = out.lock().unwrap_or_else(|p| p.into_inner());
            write_frame(&mut *w, body)
        }
    };
    let to_client = client.receiver;
    let write_out = write.clone();
    let writer = std::thread::Builder::new()
        .name("pwk-lsp-writer".into())
        .spawn(move || {
            for msg in to_client {
                // ASCII-safe on the wire (the same document once decoded).
                let body = crate::text::json_escape_controls(serde_json::to_string(&JsonRpc {
                    jsonrpc: "2.0",
                    msg: &msg,
                })?)
                .into_bytes();
                match write_out(&body) {
                    Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
                    other => other?,
                }
            }
            Ok(())
        })
        .expect("start the LSP writer thread");
    let to_server = client.sender;
    let reader = std::thread::Builder::new()
        .name("pwk-lsp-reader".into())
        .spawn(move || {
            let mut r = Reader::new(io::BufReader::new(input));
            loop {
                match r.read()? {
                    Frame::Eof => return Ok(()),
                    Frame::Invalid(bad) => {
                        crate::display::eprintln_safe(&format!(
                            "pwk lsp: refused a message: {}",
                            crate::text::escape_line(&bad.message)
                        ));
                        let body = serde_json::to_vec(&bad.response())?;
                        match write(&body) {
                            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
                            other => other?,
                        }
                    }
                    Frame::Message(m) => {
                        let exit = matches!(&m, Message::Notification(n) if n.method == "exit");
                        if to_server.send(m).is_err() || exit {
                            return Ok(());
                        }
                    }
                }
            }
        })
        .expect("start the LSP reader thread");
    (server, IoThreads { reader, writer })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Frame> {
        let mut r = Reader::new(input);
        let mut out = Vec::new();
        loop {
            match r.read().unwrap() {
                Frame::Eof => return out,
                f => out.push(f),
            }
        }
    }

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    const PING: &str = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;

    fn is_ping(f: &Frame) -> bool {
        matches!(f, Frame::Message(Message::Request(r)) if r.method == "ping")
    }

    fn invalid(f: &Frame) -> &Invalid {
        match f {
            Frame::Invalid(i) => i,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_huge_content_length_is_refused_without_allocating_and_the_stream_stays_in_step() {
        // 1 GB declared, 10 bytes sent: refused at once, then end of input.
        let f = frames(b"Content-Length: 1000000000\r\n\r\n0123456789");
        assert_eq!(f.len(), 1);
        assert_eq!(invalid(&f[0]).code, ErrorCode::InvalidRequest as i32);
        assert!(invalid(&f[0]).message.contains("over pwk lsp's limit"));
        // 100 GB: the same (it used to abort on the allocation).
        let f = frames(b"Content-Length: 100000000000\r\n\r\n");
        assert_eq!(invalid(&f[0]).code, ErrorCode::InvalidRequest as i32);
        // Just over the limit, body sent in full: skipped, the next message read.
        let over = MAX_CONTENT_LENGTH as usize + 1;
        let mut input = format!("Content-Length: {over}\r\n\r\n").into_bytes();
        input.resize(input.len() + over, b' ');
        input.extend_from_slice(framed(PING).as_bytes());
        let f = frames(&input);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(is_ping(&f[1]));
    }

    #[test]
    fn a_header_line_without_end_is_bounded() {
        let mut input = vec![b'X'; 10 * MAX_HEADER_LINE];
        let f = frames(&input);
        assert!(f.is_empty(), "end of input in a header: {f:?}");
        input.extend_from_slice(b"\r\n\r\n");
        input.extend_from_slice(framed(PING).as_bytes());
        let f = frames(&input);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(invalid(&f[0]).message.contains("header line longer"));
        assert!(is_ping(&f[1]));
        // Too many header lines.
        let mut input = "X-A: b\r\n".repeat(MAX_HEADERS + 1);
        input.push_str("\r\n");
        input.push_str(&framed(PING));
        let f = frames(input.as_bytes());
        assert!(invalid(&f[0]).message.contains("header lines"), "{f:?}");
        assert!(is_ping(&f[1]));
    }

    #[test]
    fn bad_bodies_are_answered_with_the_id_when_it_can_be_read() {
        let bad = [
            (
                r#"{"jsonrpc":"2.0","id":3,"method":"x","params":"\ud800"}"#,
                json!(3),
                ErrorCode::ParseError,
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"x","params":{"p":1,"p":2}}"#,
                json!("a"),
                ErrorCode::InvalidRequest,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"x","params":"\udfff"}"#,
                Value::Null,
                ErrorCode::ParseError,
            ),
            ("{", Value::Null, ErrorCode::ParseError),
            (r#"[1,2]"#, Value::Null, ErrorCode::InvalidRequest),
        ];
        let mut input = String::new();
        for (body, _, _) in &bad {
            input.push_str(&framed(body));
        }
        input.push_str(&framed(PING));
        let f = frames(input.as_bytes());
        assert_eq!(f.len(), bad.len() + 1, "{f:?}");
        for (frame, (body, id, code)) in f.iter().zip(&bad) {
            let i = invalid(frame);
            assert_eq!(i.code, *code as i32, "{body}");
            assert_eq!(i.response()["id"], *id, "{body}");
        }
        assert!(
            invalid(&f[1])
                .message
                .contains("duplicate key \"p\" (first at 1:50)")
        );
        assert!(is_ping(&f[bad.len()]));
    }

    #[test]
    fn bad_headers_are_refused() {
        for input in [
            "Content-Length: x\r\n\r\n".to_string(),
            "Content-Length: 5\r\nContent-Length: 6\r\n\r\n".to_string(),
            "garbage\r\n\r\n".to_string(),
            "Content-Type: a\r\n\r\n".to_string(),
        ] {
            let f = frames(format!("{input}{}", framed(PING)).as_bytes());
            assert!(matches!(f[0], Frame::Invalid(_)), "{input:?}: {f:?}");
        }
        // A bare \n line end and no space after the colon are taken.
        let f = frames(format!("content-length:{}\n\n{PING}", PING.len()).as_bytes());
        assert!(is_ping(&f[0]), "{f:?}");
    }

    /// A request whose id is not an integer or a string is answered (with its id
    /// when it is a number, else null), never read as a notification.
    #[test]
    fn a_request_with_an_id_of_another_kind_is_answered() {
        for (id, answered) in [
            ("1.5", json!(1.5)),
            ("{\"a\":1}", Value::Null),
            ("{}", Value::Null),
            ("null", Value::Null),
            ("[1]", Value::Null),
            ("true", Value::Null),
            ("1099511627776", json!(1099511627776u64)),
        ] {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"textDocument/hover","params":{{}}}}"#
            );
            let f = frames(format!("{}{}", framed(&body), framed(PING)).as_bytes());
            assert_eq!(f.len(), 2, "{id}: {f:?}");
            let i = invalid(&f[0]);
            assert_eq!(i.code, ErrorCode::InvalidRequest as i32, "{id}");
            assert_eq!(i.response()["id"], answered, "{id}");
            assert!(i.message.contains("integer or a string"), "{}", i.message);
            assert!(is_ping(&f[1]));
        }
        // Integers and strings are ids.
        for id in ["0", "-3", "\"x\"", "2147483647"] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            assert!(is_ping(&frames(framed(&body).as_bytes())[0]), "{id}");
        }
    }

    /// Every kind of broken header, with its body after it (on one line with the
    /// next header, or over several lines): one answer for it, then the session
    /// goes on, every later message read (the server used to answer each later
    /// message with an error and never read `exit`).
    #[test]
    fn the_stream_recovers_after_any_broken_header() {
        let heads: Vec<String> = vec![
            "Content-Length: -1\r\n".into(),
            "Content-Length: abc\r\n".into(),
            "Content-Length: 5\r\nContent-Length: 6\r\n".into(),
            "Content-Length:\r\n".into(),
            "Content-Type: x\r\n".into(),
            "X-A: b\r\n".repeat(MAX_HEADERS + 1),
            format!("X-Long: {}\r\n", "y".repeat(MAX_HEADER_LINE)),
            "garbage\r\n".into(),
        ];
        let bodies = [
            r#"{"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":{}}"#,
            "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 9\n}",
            "",
        ];
        let exit = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let mut cases = 0;
        for head in &heads {
            for body in bodies {
                let mut input = format!("{head}\r\n{body}");
                for _ in 0..3 {
                    input.push_str(&framed(PING));
                }
                input.push_str(&framed(exit));
                let f = frames(input.as_bytes());
                let pings = f.iter().filter(|f| is_ping(f)).count();
                let bad = f.iter().filter(|f| matches!(f, Frame::Invalid(_))).count();
                assert_eq!(pings, 3, "{head:?} {body:?}: {f:?}");
                assert!(
                    matches!(f.last(), Some(Frame::Message(Message::Notification(n))) if n.method == "exit"),
                    "{head:?} {body:?}: {f:?}"
                );
                assert!((1..=2).contains(&bad), "{head:?} {body:?}: {f:?}");
                cases += 1;
            }
        }
        assert_eq!(cases, heads.len() * bodies.len());
        // A body longer than its Content-Length: the rest is answered once, and
        // the header glued to it is still read.
        let f = frames(format!("Content-Length: 2\r\n\r\n{PING}{}", framed(PING)).as_bytes());
        assert!(f.iter().any(is_ping), "{f:?}");
    }

    proptest::proptest! {
        #![proptest_config(crate::testing::fuzz_config())]
        /// `lsp::framing::fuzz`: arbitrary bytes, and arbitrary bytes spliced into a
        /// valid stream, never panic, never read past the input, and a valid message
        /// after a complete bad one is still read.
        #[test]
        fn fuzz(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600),
                cut in 0usize..600) {
            let _ = frames(&bytes);
            let mut spliced = framed(PING).into_bytes();
            let at = cut.min(spliced.len());
            spliced.splice(at..at, bytes.iter().copied());
            let _ = frames(&spliced);
            // A whole bad message then a good one: the good one is read.
            let mut two = format!("Content-Length: {}\r\n\r\n", bytes.len()).into_bytes();
            two.extend_from_slice(&bytes);
            two.extend_from_slice(framed(PING).as_bytes());
            let f = frames(&two);
            proptest::prop_assert!(f.last().is_some_and(is_ping), "{:?}", f);
            for frame in &f {
                if let Frame::Invalid(i) = frame {
                    let text = serde_json::to_string(&i.response()).unwrap();
                    proptest::prop_assert!(!text.chars().any(crate::text::is_forbidden_control));
                }
            }
        }
    }
}
