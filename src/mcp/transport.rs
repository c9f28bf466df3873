//! `pwk mcp`'s stdio transport: newline-delimited JSON-RPC, read the way every
//! other JSON input of pwk is read — by the one strict reader ([`crate::json`]),
//! so a key twice in one object is refused with both positions (serde_json, under
//! rmcp's own transport, keeps the last one: `"profile":"readonly","profile":
//! "implementation"` in tool arguments launched with mutating tools).
//!
//! Bounds: a line (one message) holds at most [`MAX_MESSAGE_BYTES`]; a longer one is
//! dropped as it arrives (never held in memory) and answered with an error.
//! Answers to what cannot be taken: a JSON-RPC error with the request's id when it
//! can be read, else with id `null` for a message that is too long, and nothing for
//! bytes that are not JSON at all (as the official SDKs do: answering garbage
//! invites an error storm with a peer that echoes it), only a note on stderr.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest message (line) `pwk mcp` takes: 16 MiB, line break included (rmcp's
/// own limit; role text in a `lint` call is capped at 1 MiB long before this).
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// JSON-RPC error codes.
const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;

/// The transport over a reader and a writer (stdin and stdout for `pwk mcp`).
pub(crate) struct Strict<R, W> {
    reader: BufReader<R>,
    writer: Arc<Mutex<W>>,
    /// The line read so far (kept across cancelled reads: `receive` is polled in
    /// a `select!`).
    line: Vec<u8>,
    /// The current line is longer than [`MAX_MESSAGE_BYTES`]; its bytes are dropped.
    too_long: bool,
}

impl<R, W> Strict<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub(crate) fn new(reader: R, writer: W) -> Strict<R, W> {
        Strict {
            reader: BufReader::new(reader),
            writer: Arc::new(Mutex::new(writer)),
            line: Vec::new(),
            too_long: false,
        }
    }

    /// The next whole line (without its line break); `Ok(None)` at end of input,
    /// `Ok(Some(None))` for a line that was too long.
    async fn next_line(&mut self) -> std::io::Result<Option<Option<Vec<u8>>>> {
        loop {
            let buf = self.reader.fill_buf().await?;
            if buf.is_empty() {
                return Ok(None);
            }
            let (take, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            if !self.too_long {
                if self.line.len() + take > MAX_MESSAGE_BYTES {
                    self.too_long = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(&buf[..take]);
                }
            }
            self.reader.consume(take);
            if done {
                let too_long = std::mem::take(&mut self.too_long);
                let line = std::mem::take(&mut self.line);
                return Ok(Some((!too_long).then_some(line)));
            }
        }
    }
}

/// What one line is.
#[derive(Debug)]
pub(crate) enum Decoded {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Not taken: answer with this error (`id` when it could be read).
    Refused {
        id: Option<Value>,
        code: i32,
        message: String,
    },
    /// Not JSON-RPC at all, or a notification pwk does not know: nothing to answer.
    Ignored(String),
}

/// Decode one line (without its line break).
pub(crate) fn decode(line: &[u8]) -> Decoded {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    let value = match crate::json::parse_strict(line) {
        Ok(v) => v,
        Err(e) => {
            let id = probe_id(line);
            let message = format!("{}: {e}", e.pos());
            return match (&e, id) {
                (crate::json::JsonError::TooLarge { .. }, id) => Decoded::Refused {
                    id,
                    code: INVALID_REQUEST,
                    message: e.to_string(),
                },
                (crate::json::JsonError::DuplicateKey { .. }, id) => Decoded::Refused {
                    id,
                    code: INVALID_REQUEST,
                    message,
                },
                (_, Some(id)) => Decoded::Refused {
                    id: Some(id),
                    code: PARSE_ERROR,
                    message,
                },
                (_, None) => Decoded::Ignored(message),
            };
        }
    };
    let id = value
        .get("id")
        .filter(|i| i.is_number() || i.is_string())
        .cloned();
    let is_notification = value.get("method").is_some() && value.get("id").is_none();
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(m) => Decoded::Message(Box::new(m)),
        Err(e) if is_notification => Decoded::Ignored(format!("an unknown notification: {e}")),
        Err(e) => Decoded::Refused {
            id,
            code: INVALID_REQUEST,
            message: format!("not a JSON-RPC message pwk takes: {e}"),
        },
    }
}

/// The `id` member of a line that is not acceptable, when serde can read it
/// (other members are skipped without being decoded).
fn probe_id(line: &[u8]) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default)]
        id: Option<Value>,
    }
    let id = serde_json::from_slice::<Probe>(line).ok()?.id?;
    (id.is_number() || id.is_string()).then_some(id)
}

/// Answer a message that cannot be taken with a JSON-RPC error.
async fn answer<W>(
    writer: &Mutex<W>,
    id: Option<Value>,
    code: i32,
    message: &str,
) -> std::io::Result<()>
where
    W: AsyncWrite + Unpin,
{
    let body = json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {"code": code, "message": crate::text::escape_line(message)},
    });
    write_line(writer, &body).await
}

async fn write_line<W, T>(writer: &Mutex<W>, item: &T) -> std::io::Result<()>
where
    W: AsyncWrite + Unpin,
    T: serde::Serialize,
{
    // ASCII-safe on the wire: no control, bidi or invisible character raw, even
    // in text from a role file (the same document once decoded).
    let mut bytes = crate::text::json_escape_controls(serde_json::to_string(item)?).into_bytes();
    bytes.push(b'\n');
    let mut w = writer.lock().await;
    w.write_all(&bytes).await?;
    w.flush().await
}

impl<R, W> Transport<RoleServer> for Strict<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        async move { write_line(&writer, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let line = match self.next_line().await {
                Ok(Some(line)) => line,
                Ok(None) => return None,
                Err(e) => {
                    crate::display::eprintln_safe(&format!("pwk mcp: cannot read stdin: {e}"));
                    return None;
                }
            };
            let Some(line) = line else {
                let message =
                    format!("a message longer than pwk mcp's limit of {MAX_MESSAGE_BYTES} bytes");
                crate::display::eprintln_safe(&format!("pwk mcp: refused {message}"));
                let writer = Arc::clone(&self.writer);
                answer(&writer, None, INVALID_REQUEST, &message)
                    .await
                    .ok()?;
                continue;
            };
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            if body.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match decode(body) {
                Decoded::Message(m) => return Some(*m),
                Decoded::Refused { id, code, message } => {
                    crate::display::eprintln_safe(&format!(
                        "pwk mcp: refused a message: {}",
                        crate::text::escape_line(&message)
                    ));
                    let writer = Arc::clone(&self.writer);
                    answer(&writer, id, code, &message).await.ok()?;
                }
                Decoded::Ignored(why) => crate::display::eprintln_safe(&format!(
                    "pwk mcp: ignored a message: {}",
                    crate::text::escape_line(&why)
                )),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.writer.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(line: &str) -> (Option<Value>, i32, String) {
        match decode(line.as_bytes()) {
            Decoded::Refused { id, code, message } => (id, code, message),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn a_line_whose_tree_outgrows_its_text_is_refused_unread_with_the_id() {
        // 12 MB of zeros in the arguments: about 300 MB as a tree (N12: 1.5 GB
        // for 15 MB).
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"lint","arguments":{{"paths":[{}0]}}}}}}"#,
            "0,".repeat(6 << 20)
        );
        let (id, code, message) = refused(&line);
        assert_eq!((id, code), (Some(json!(8)), INVALID_REQUEST));
        assert!(message.contains("refused unread"), "{message}");
    }

    #[test]
    fn a_request_with_an_id_of_another_kind_is_answered() {
        for (id, answered) in [("1.5", Some(json!(1.5))), ("{}", None), ("[1]", None)] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
            let (got, code, _) = refused(&line);
            assert_eq!((got, code), (answered, INVALID_REQUEST), "{id}");
        }
    }

    #[test]
    fn duplicate_keys_in_tool_arguments_are_refused_with_both_positions() {
        let line = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"delegate_start","arguments":{"role":"r","task":"t","profile":"readonly","profile":"implementation"}}}"#;
        let (id, code, message) = refused(line);
        assert_eq!(id, Some(json!(5)));
        assert_eq!(code, INVALID_REQUEST);
        assert!(
            message.starts_with("1:137: duplicate key \"profile\" (first at 1:116)"),
            "{message}"
        );
        // The same call without the duplicate is a message.
        let ok = line.replace(r#","profile":"implementation""#, "");
        assert!(matches!(decode(ok.as_bytes()), Decoded::Message(_)));
    }

    #[test]
    fn a_lone_surrogate_is_an_error_answer_with_the_id() {
        let (id, code, _) = refused(
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"lint","arguments":{"text":"\ud800"}}}"#,
        );
        assert_eq!((id, code), (Some(json!("x")), PARSE_ERROR));
        assert!(matches!(decode(b"{not json"), Decoded::Ignored(_)));
        let (id, code, _) = refused(r#"{"jsonrpc":"2.0","id":1,"result":5,"method":3}"#);
        assert_eq!((id, code), (Some(json!(1)), INVALID_REQUEST));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn an_overlong_line_is_dropped_as_it_arrives_and_answered() {
        let mut input = vec![b' '; MAX_MESSAGE_BYTES + 10];
        input.push(b'\n');
        input.extend_from_slice(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        input.push(b'\n');
        let (out_w, mut out_r) = tokio::io::duplex(1 << 16);
        let mut t = Strict::new(&input[..], out_w);
        let m = t.receive().await.expect("the ping after the long line");
        assert!(serde_json::to_string(&m).unwrap().contains("ping"));
        assert!(t.receive().await.is_none());
        drop(t);
        let mut answer = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut out_r, &mut answer)
            .await
            .unwrap();
        let v: Value = serde_json::from_str(answer.trim()).unwrap();
        assert_eq!(v["id"], Value::Null);
        assert_eq!(v["error"]["code"], INVALID_REQUEST);
    }

    proptest::proptest! {
        #![proptest_config(crate::testing::fuzz_config())]
        /// `mcp::transport::fuzz`: arbitrary bytes, and arbitrary bytes spliced into
        /// a tool call, never panic; an answer never holds a control character; a
        /// call with a key twice in its arguments is never taken.
        #[test]
        fn fuzz(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
                cut in 0usize..200, key in "[a-z]{1,8}") {
            let check = |d: Decoded| -> Result<(), proptest::test_runner::TestCaseError> {
                if let Decoded::Refused { message, .. } = d {
                    let text = crate::text::escape_line(&message);
                    proptest::prop_assert!(!text.chars().any(crate::text::is_forbidden_control));
                }
                Ok(())
            };
            check(decode(&bytes))?;
            let call = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"lint","arguments":{"text":"x"}}}"#;
            let mut spliced = call.as_bytes().to_vec();
            let at = cut.min(spliced.len());
            spliced.splice(at..at, bytes.iter().copied());
            check(decode(&spliced))?;
            let dup = format!(
                r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"lint","arguments":{{"{key}":1,"text":"x","{key}":{}}}}}}}"#,
                serde_json::to_string(&String::from_utf8_lossy(&bytes)).unwrap()
            );
            proptest::prop_assert!(
                matches!(decode(dup.as_bytes()), Decoded::Refused { code: INVALID_REQUEST, .. }),
                "{}", dup
            );
        }
    }
}
