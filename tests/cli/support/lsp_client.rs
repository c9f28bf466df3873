//! A JSON-RPC client for `pwk lsp` over stdio: Content-Length framing, requests
//! with ids, notifications collected as they arrive.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any single answer may take before the test fails (not a timing
/// assertion: a hung server would otherwise hang the test).
pub const PATIENCE: Duration = Duration::from_secs(30);

pub struct LspClient {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Messages received but not yet asked for.
    pending: Vec<Value>,
}

impl LspClient {
    /// Start `cmd` (a `pwk lsp` command) with piped stdio.
    pub fn start(mut cmd: Command) -> LspClient {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start pwk lsp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(msg) = read_message(&mut r) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        LspClient {
            child,
            stdin,
            rx,
            next_id: 0,
            pending: Vec::new(),
        }
    }

    /// The pid of `pwk lsp`.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Wait for the process (after a signal, say) and return its status.
    pub fn wait(mut self) -> std::process::ExitStatus {
        wait_bounded(&mut self.child)
    }

    pub fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(&frame(msg)).unwrap();
        stdin.flush().unwrap();
    }

    /// Write raw bytes to the server (hostile framing).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Send a request and return its id (answer with [`LspClient::response`]).
    pub fn request_id(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The whole response message to request `id`.
    pub fn response(&mut self, id: i64) -> Value {
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// Send a request and return its `result` (panics on an error response).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.request_id(method, params);
        let resp = self.response(id);
        assert!(resp.get("error").is_none(), "{method} failed: {resp}");
        resp["result"].clone()
    }

    /// The first message (received earlier or now) that `pred` accepts.
    pub fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.pending.iter().position(&pred) {
            return self.pending.remove(i);
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(m) if pred(&m) => return m,
                Ok(m) => self.pending.push(m),
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no matching message from pwk lsp within {PATIENCE:?}; got {:?}",
                    self.pending
                ),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("pwk lsp closed stdout; got {:?}", self.pending)
                }
            }
        }
    }

    /// Every message received and not yet asked for, in order of arrival
    /// (those waiting now included; nothing is waited for).
    pub fn received(&mut self) -> Vec<Value> {
        while let Ok(m) = self.rx.try_recv() {
            self.pending.push(m);
        }
        std::mem::take(&mut self.pending)
    }

    /// The diagnostics published for `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let m = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        m["params"]["diagnostics"].as_array().unwrap().clone()
    }

    /// `initialize` (UTF-16 only, snippets on) and `initialized`.
    pub fn initialize(&mut self, root_uri: &str) -> Value {
        self.initialize_with(root_uri, json!({}), Value::Null)
    }

    pub fn initialize_with(&mut self, root_uri: &str, general: Value, options: Value) -> Value {
        let result = self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": root_uri,
                "capabilities": {
                    "general": general,
                    "textDocument": {"completion": {"completionItem": {"snippetSupport": true}}}
                },
                "initializationOptions": options,
            }),
        );
        self.notify("initialized", json!({}));
        result
    }

    /// `shutdown`, `exit`, and the exit status.
    pub fn shutdown(mut self) -> (std::process::ExitStatus, String) {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r, Value::Null);
        self.notify("exit", Value::Null);
        drop(self.stdin.take());
        let status = wait_bounded(&mut self.child);
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut err).ok();
        }
        (status, err)
    }

    /// Close stdin and wait for the process (for tests of abnormal ends).
    pub fn close(self) -> std::process::ExitStatus {
        self.finish().0
    }

    /// Close stdin, wait for the process; its status and stderr.
    pub fn finish(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let status = wait_bounded(&mut self.child);
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut err).ok();
        }
        (status, err)
    }
}

impl Drop for LspClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_bounded(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("pwk lsp did not exit");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// One framed message; `None` at end of input. Anything that is not a framed
/// JSON-RPC message (stray output on stdout) fails the test.
fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let (k, v) = line
            .split_once(": ")
            .unwrap_or_else(|| panic!("not an LSP header on stdout: {line:?}"));
        if k.eq_ignore_ascii_case("content-length") {
            len = Some(v.parse::<usize>().expect("length"));
        }
    }
    let mut body = vec![0; len.expect("Content-Length header")];
    r.read_exact(&mut body).ok()?;
    let v: Value = serde_json::from_slice(&body).expect("JSON body");
    assert_eq!(v["jsonrpc"], "2.0", "{v}");
    Some(v)
}

/// The `file:` URI of an absolute path (percent-encoded).
/// `msg` as one Content-Length framed message.
pub fn frame(msg: &Value) -> Vec<u8> {
    let body = serde_json::to_vec(msg).unwrap();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend(body);
    out
}

/// The JSON bodies of the Content-Length framed messages in `out` (a server's raw
/// output), up to the first incomplete one.
pub fn frames(out: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(out);
    let mut rest = &text[..];
    let mut found = Vec::new();
    while let Some(at) = rest.find("Content-Length: ") {
        rest = &rest[at + 16..];
        let Some(eol) = rest.find("\r\n\r\n") else {
            break;
        };
        let Ok(n) = rest[..eol].trim().parse::<usize>() else {
            continue;
        };
        let body = &rest[eol + 4..];
        if body.len() < n {
            break;
        }
        if let Ok(v) = serde_json::from_str(&body[..n]) {
            found.push(v);
        }
        rest = &body[n..];
    }
    found
}

pub fn file_uri(path: &std::path::Path) -> String {
    let mut s = String::from("file://");
    for &b in path.to_str().unwrap().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// Apply LSP text edits (UTF-16 positions) to `text`, as an editor would.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let r = &e["range"];
            (
                utf16_offset(text, &r["start"]),
                utf16_offset(text, &r["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (s, e, t) in spans {
        out.replace_range(s..e, &t);
    }
    out
}

/// The byte offset of a UTF-16 LSP position.
pub fn utf16_offset(text: &str, pos: &Value) -> usize {
    let line = pos["line"].as_u64().unwrap() as usize;
    let ch = pos["character"].as_u64().unwrap() as usize;
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut units = 0;
    for (i, c) in text[start..end].char_indices() {
        if units >= ch {
            return start + i;
        }
        units += c.len_utf16();
    }
    end
}

/// The UTF-16 LSP position of a byte offset.
pub fn utf16_position(text: &str, offset: usize) -> (u64, u64) {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let col: usize = text[start..offset].chars().map(char::len_utf16).sum();
    (line as u64, col as u64)
}
