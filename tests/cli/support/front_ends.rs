//! Driving pwk's front ends as black boxes, bounded, for the matrices that run
//! every front end over hostile input (`attack_matrix.rs`, `inert_output.rs`):
//! one runner that cannot hang, the scripted MCP session, and the check for raw
//! control or planted characters in what came out.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// What one bounded run did.
pub struct Ran {
    /// `None`: still running at the limit (killed).
    pub code: Option<i32>,
    pub signal: Option<i32>,
    /// stdout and stderr, interleaved as they arrived.
    pub out: Vec<u8>,
    /// Killed at the limit.
    pub killed: bool,
}

impl Ran {
    /// What is wrong with this run whatever the input: no end within `limit` (a
    /// hang), a signal, a panic, a raw control character in the output.
    pub fn faults(&self, limit: Duration) -> Vec<String> {
        let mut found = Vec::new();
        match (self.code, self.signal) {
            (None, None) => found.push(format!("no end within {limit:?} (a hang)")),
            (_, Some(sig)) => found.push(format!("killed by signal {sig}")),
            (Some(101), _) => found.push("exit 101 (a panic)".into()),
            _ => {}
        }
        let text = String::from_utf8_lossy(&self.out);
        if text.contains("panicked") {
            found.push(format!("a panic: {text}"));
        }
        let raw = raw_in(&self.out, &[]);
        if !raw.is_empty() {
            found.push(format!("raw control characters in the output: {raw:?}"));
        }
        found
    }

    /// Two runs as one front end: both outputs; an exit code only when both ended,
    /// the first signal.
    pub fn then(mut self, next: Ran) -> Ran {
        self.out.extend(next.out);
        Ran {
            code: self.code.and(next.code),
            signal: self.signal.or(next.signal),
            out: self.out,
            killed: self.killed || next.killed,
        }
    }
}

/// Run `cmd`, feed it `input` (stdin stays open until `done` says the output is
/// complete, so a server answers before it sees EOF; an empty `input` closes it at
/// once), kill it at `limit`.
pub fn bounded(
    mut cmd: Command,
    input: &[u8],
    limit: Duration,
    done: &dyn Fn(&[u8]) -> bool,
) -> Ran {
    use std::os::unix::process::ExitStatusExt;
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn pwk");
    let mut stdin = child.stdin.take();
    if let Some(s) = stdin.as_mut() {
        let _ = s.write_all(input);
    }
    let (tx, rx) = channel::<Vec<u8>>();
    for r in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut r = r;
            let mut buf = [0u8; 8192];
            while let Ok(n) = r.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
    }
    drop(tx);
    let deadline = Instant::now() + limit;
    let mut out = Vec::new();
    let mut killed = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left.min(Duration::from_millis(50))) {
            Ok(chunk) => out.extend(chunk),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if stdin.is_some() && (input.is_empty() || done(&out)) {
            stdin = None;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            killed = true;
            break;
        }
    }
    let status = child.wait().expect("wait");
    while let Ok(chunk) = rx.recv_timeout(Duration::from_millis(200)) {
        out.extend(chunk);
    }
    Ran {
        code: if killed { None } else { status.code() },
        signal: if killed { None } else { status.signal() },
        out,
        killed,
    }
}

/// A scripted `pwk mcp` session on stdin (JSON lines): `initialize` as `client`,
/// `notifications/initialized`, then one `tools/call` per `(tool, arguments)`,
/// with ids 2, 3, …
pub fn mcp_session(client: &str, calls: &[(&str, Value)]) -> Vec<u8> {
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": client, "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    for (n, (tool, args)) in calls.iter().enumerate() {
        lines.push(
            json!({"jsonrpc": "2.0", "id": 2 + n, "method": "tools/call",
               "params": {"name": tool, "arguments": args}}),
        );
    }
    let mut input = Vec::new();
    for l in lines {
        input.extend(serde_json::to_vec(&l).unwrap());
        input.push(b'\n');
    }
    input
}

/// Whether `out` answers every one of an [`mcp_session`]'s `calls` tool calls.
pub fn mcp_answered(out: &[u8], calls: usize) -> bool {
    let got: Vec<Value> = String::from_utf8_lossy(out)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    (2..2 + calls).all(|id| got.iter().any(|v| v["id"] == json!(id)))
}

/// The characters of `out` that must never be there raw: every C0 control but
/// tab, LF and CR, DEL, and the `planted` ones; each with the printable text
/// around it (the first three).
pub fn raw_in(out: &[u8], planted: &[char]) -> Vec<String> {
    let text = String::from_utf8_lossy(out);
    let mut found: Vec<String> = Vec::new();
    for (i, c) in text.char_indices() {
        let control = (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{7f}';
        if control || planted.contains(&c) {
            let from = text[..i].char_indices().rev().nth(30).map_or(0, |(j, _)| j);
            let to = text[i..]
                .char_indices()
                .nth(21)
                .map_or(text.len(), |(j, _)| i + j);
            let around: String = text[from..to]
                .chars()
                .filter(|c| c.is_ascii_graphic() || *c == ' ')
                .collect();
            found.push(format!("U+{:04X} near `{around}`", c as u32));
        }
    }
    found.dedup();
    found.truncate(3);
    found
}
