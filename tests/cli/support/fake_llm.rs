//! A fake OpenAI-compatible chat-completions server on 127.0.0.1 (std only), for
//! driving the real `pi` end to end.
//!
//! * `POST …/chat/completions`: replies from a per-test script (one [`Reply`] per
//!   request, then the default), streamed as SSE with a final usage chunk, like the
//!   real API; `GET …/models` lists one model.
//! * Every request body is recorded (parsed JSON) so tests can assert what arrived,
//!   and the most requests open at once is counted.
//! * [`FakeLlm::responding`]: the reply is chosen from the request body instead of a
//!   script (e.g. by a marker in the system prompt, or by the tool results so far).

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the server does for one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Stream this text (split on spaces), `finish_reason: stop`.
    Text(String),
    /// Call a tool with these JSON arguments (`finish_reason: tool_calls`).
    ToolCall { name: String, args: String },
    /// An HTTP error with an OpenAI-style JSON body.
    Status { code: u16, message: String },
    /// `404` model-not-found, as the OpenAI API answers an unknown model.
    ModelNotFound,
    /// Headers and one chunk, then nothing until the client goes away.
    StallAfterHeaders,
    /// Headers and one chunk, then the connection is closed (no finish_reason).
    DropMidStream,
    /// Never send headers.
    Hang,
    /// Stream this text with `finish_reason: length`.
    Length(String),
    /// Stream this text with `finish_reason: content_filter`.
    ContentFilter(String),
    /// Wait this many milliseconds, then reply.
    Delayed(u64, Box<Reply>),
}

/// Chooses the reply for one chat request from its body.
pub type Responder = Box<dyn Fn(&serde_json::Value) -> Reply + Send + Sync>;

impl Reply {
    pub fn text(s: &str) -> Reply {
        Reply::Text(s.to_string())
    }
    pub fn tool(name: &str, args: &str) -> Reply {
        Reply::ToolCall {
            name: name.to_string(),
            args: args.to_string(),
        }
    }
    /// A model that calls `ls` for ever, as `FakeLlm::start` arguments: the first
    /// `fast` requests are answered at once, every later one after `ms`. A run its
    /// budget stops at the `fast`-th call's usage then sends at most one request past
    /// it (pi may send that before the stop lands), however loaded the machine, as
    /// long as the stop lands within `ms`.
    pub fn ls_for_ever(fast: usize, ms: u64) -> (Vec<Reply>, Reply) {
        let ls = Reply::tool("ls", r#"{"path":"."}"#);
        (vec![ls.clone(); fast], Reply::Delayed(ms, Box::new(ls)))
    }
    pub fn status(code: u16) -> Reply {
        let message = match code {
            401 => "Incorrect API key provided: mock-key.",
            429 => "Rate limit reached for mock-model. Please try again later.",
            _ => "The server had an error while processing your request.",
        };
        Reply::Status {
            code,
            message: message.to_string(),
        }
    }
}

struct Shared {
    script: Mutex<VecDeque<Reply>>,
    default: Mutex<Reply>,
    responder: Option<Responder>,
    requests: Mutex<Vec<serde_json::Value>>,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    stop: AtomicBool,
}

/// The running server; stops when dropped.
pub struct FakeLlm {
    pub port: u16,
    shared: Arc<Shared>,
}

impl FakeLlm {
    /// Start a server that answers requests with `script` in order, then `default`.
    pub fn start(script: Vec<Reply>, default: Reply) -> FakeLlm {
        FakeLlm::serve(script, default, None)
    }

    /// Start a server that asks `responder` for every reply.
    pub fn responding(responder: Responder) -> FakeLlm {
        FakeLlm::serve(Vec::new(), Reply::text("unused"), Some(responder))
    }

    fn serve(script: Vec<Reply>, default: Reply, responder: Option<Responder>) -> FakeLlm {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            script: Mutex::new(script.into()),
            default: Mutex::new(default),
            responder,
            requests: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let s = Arc::clone(&shared);
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let s = Arc::clone(&s);
                std::thread::spawn(move || {
                    let _ = handle(conn, &s);
                });
            }
        });
        FakeLlm { port, shared }
    }

    /// `http://127.0.0.1:PORT/v1`
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The chat-completions request bodies received so far.
    pub fn requests(&self) -> Vec<serde_json::Value> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The text of every user message of every request, concatenated per request.
    pub fn user_texts(&self) -> Vec<String> {
        self.requests()
            .iter()
            .map(|b| texts_of(b, &["user"]))
            .collect()
    }

    /// The most chat requests that were open at the same time.
    pub fn peak_in_flight(&self) -> usize {
        self.shared.peak.load(Ordering::SeqCst)
    }
}

/// The text of a message's `content` (a string or an array of text parts).
pub fn text_of(content: &serde_json::Value) -> String {
    match content {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// The texts of a request's messages with one of `roles`, joined by newlines.
pub fn texts_of(body: &serde_json::Value, roles: &[&str]) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| roles.iter().any(|r| m["role"] == *r))
        .map(|m| text_of(&m["content"]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The system prompt of a request (`system` or `developer` messages).
pub fn system_text(body: &serde_json::Value) -> String {
    texts_of(body, &["system", "developer"])
}

/// How many tool results the conversation holds so far.
pub fn tool_results(body: &serde_json::Value) -> usize {
    body["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "tool").count())
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn handle(mut conn: TcpStream, s: &Shared) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut content_length = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 {
            return Ok(());
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            content_length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; content_length];
    reader.read_exact(&mut body)?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let path = parts.next().unwrap_or("").trim_end_matches('/').to_string();
    if method == "GET" && path.ends_with("/models") {
        return json(
            &mut conn,
            200,
            r#"{"object":"list","data":[{"id":"mock-model","object":"model","owned_by":"mock"}]}"#,
        );
    }
    if !(method == "POST" && path.ends_with("/chat/completions")) {
        return json(&mut conn, 404, r#"{"error":{"message":"not found"}}"#);
    }
    let parsed: serde_json::Value = serde_json::from_slice(&body)
        .unwrap_or_else(|_| serde_json::json!({"_unparsed": String::from_utf8_lossy(&body)}));
    let model = parsed["model"].as_str().unwrap_or("mock-model").to_string();
    let reply = match &s.responder {
        Some(r) => r(&parsed),
        None => s
            .script
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| s.default.lock().unwrap().clone()),
    };
    s.requests.lock().unwrap().push(parsed);
    let n = s.requests.lock().unwrap().len();
    let now = s.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    s.peak.fetch_max(now, Ordering::SeqCst);
    let result = respond(&mut conn, s, reply, n, &model);
    s.in_flight.fetch_sub(1, Ordering::SeqCst);
    result
}

fn respond(
    conn: &mut TcpStream,
    s: &Shared,
    reply: Reply,
    n: usize,
    model: &str,
) -> std::io::Result<()> {
    let chunk = |delta: serde_json::Value, finish: Option<&str>| {
        serde_json::json!({"id": format!("chatcmpl-fake-{n}"), "object": "chat.completion.chunk", "created": 0,
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let usage = |completion: usize| {
        serde_json::json!({"id": format!("chatcmpl-fake-{n}"), "object": "chat.completion.chunk", "created": 0,
            "model": model, "choices": [],
            "usage": {"prompt_tokens": 100, "completion_tokens": completion, "total_tokens": 100 + completion}})
    };
    match reply {
        Reply::Text(t) => stream_text(conn, &t, "stop", chunk, usage)?,
        Reply::Length(t) => stream_text(conn, &t, "length", chunk, usage)?,
        Reply::ContentFilter(t) => stream_text(conn, &t, "content_filter", chunk, usage)?,
        Reply::ToolCall { name, args } => {
            sse_start(conn)?;
            sse(
                conn,
                &chunk(
                    serde_json::json!({"role": "assistant", "content": null}),
                    None,
                ),
            )?;
            sse(
                conn,
                &chunk(
                    serde_json::json!({"tool_calls": [{"index": 0, "id": format!("call_{n}"), "type": "function",
                "function": {"name": name, "arguments": ""}}]}),
                    None,
                ),
            )?;
            let half = args.len() / 2;
            let half = (0..=half)
                .rev()
                .find(|i| args.is_char_boundary(*i))
                .unwrap_or(0);
            for part in [&args[..half], &args[half..]] {
                sse(
                    conn,
                    &chunk(
                        serde_json::json!({"tool_calls": [{"index": 0, "function": {"arguments": part}}]}),
                        None,
                    ),
                )?;
            }
            sse(conn, &chunk(serde_json::json!({}), Some("tool_calls")))?;
            sse(conn, &usage(12))?;
            conn.write_all(b"data: [DONE]\n\n")?;
        }
        Reply::Status { code, message } => {
            let (etype, ecode) = match code {
                401 => ("invalid_request_error", "\"invalid_api_key\""),
                429 => ("rate_limit_exceeded", "\"rate_limit_exceeded\""),
                _ => ("server_error", "null"),
            };
            let body = format!(
                r#"{{"error":{{"message":{},"type":"{etype}","param":null,"code":{ecode}}}}}"#,
                serde_json::Value::String(message)
            );
            json(conn, code, &body)?;
        }
        Reply::ModelNotFound => {
            let body = format!(
                r#"{{"error":{{"message":"The model `{model}` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}}}"#
            );
            json(conn, 404, &body)?;
        }
        Reply::StallAfterHeaders | Reply::DropMidStream => {
            sse_start(conn)?;
            sse(
                conn,
                &chunk(
                    serde_json::json!({"role": "assistant", "content": ""}),
                    None,
                ),
            )?;
            sse(
                conn,
                &chunk(serde_json::json!({"content": "Partial"}), None),
            )?;
            if matches!(reply, Reply::StallAfterHeaders) {
                wait_for_close(conn, s);
            } else {
                conn.flush()?;
                conn.shutdown(Shutdown::Both)?;
            }
        }
        Reply::Hang => wait_for_close(conn, s),
        Reply::Delayed(ms, then) => {
            std::thread::sleep(Duration::from_millis(ms));
            return respond(conn, s, *then, n, model);
        }
    }
    conn.flush()
}

fn stream_text(
    conn: &mut TcpStream,
    text: &str,
    finish: &str,
    chunk: impl Fn(serde_json::Value, Option<&str>) -> serde_json::Value,
    usage: impl Fn(usize) -> serde_json::Value,
) -> std::io::Result<()> {
    sse_start(conn)?;
    sse(
        conn,
        &chunk(
            serde_json::json!({"role": "assistant", "content": ""}),
            None,
        ),
    )?;
    let words: Vec<&str> = text.split(' ').collect();
    for (i, w) in words.iter().enumerate() {
        let piece = if i == 0 {
            w.to_string()
        } else {
            format!(" {w}")
        };
        sse(conn, &chunk(serde_json::json!({"content": piece}), None))?;
    }
    sse(conn, &chunk(serde_json::json!({}), Some(finish)))?;
    sse(conn, &usage(words.len()))?;
    conn.write_all(b"data: [DONE]\n\n")
}

fn sse_start(conn: &mut TcpStream) -> std::io::Result<()> {
    conn.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n")
}

fn sse(conn: &mut TcpStream, obj: &serde_json::Value) -> std::io::Result<()> {
    conn.write_all(format!("data: {obj}\n\n").as_bytes())?;
    conn.flush()
}

fn json(conn: &mut TcpStream, code: u16, body: &str) -> std::io::Result<()> {
    let reason = match code {
        200 => "OK",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        _ => "Error",
    };
    conn.write_all(
        format!(
            "HTTP/1.1 {code} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )?;
    conn.flush()
}

/// Block until the client closes the connection or the server stops (max 120 s).
fn wait_for_close(conn: &mut TcpStream, s: &Shared) {
    let _ = conn.flush();
    let _ = conn.set_read_timeout(Some(Duration::from_millis(200)));
    let mut buf = [0u8; 256];
    for _ in 0..600 {
        if s.stop.load(Ordering::SeqCst) {
            return;
        }
        match conn.read(&mut buf) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
    }
}
