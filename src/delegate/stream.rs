//! Reading pi's `--mode json` event stream.
//!
//! * [`LineFramer`] splits raw stdout bytes on LF. It works on bytes, so a UTF-8 code
//!   point split across two reads is reassembled before anything decodes it. A line
//!   longer than [`MAX_LINE`] is not kept: its first [`OVERSIZED_PREFIX`] bytes are
//!   kept to tell what it was, the rest is counted and dropped. Memory held by the
//!   framer is therefore bounded by `MAX_LINE` whatever the stream size.
//! * [`StreamState`] parses one line at a time into only the fields the runner uses.
//!   The quadratic snapshots pi 0.73.1 puts in every `message_update` (`message`,
//!   `assistantMessageEvent.partial`) are skipped by serde's `IgnoredAny` without being
//!   allocated; strings without escapes are borrowed from the line.
//!
//! The final answer is the last assistant `message_end`; `role: "system"` messages
//! (pi 1.6) and unknown event types (`agent_settled`, `entry_appended`, …) are ignored.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};

use super::types::{Progress, Usage, snippet};

/// The longest line kept whole (8 MiB). Longer lines are dropped and counted.
pub const MAX_LINE: usize = 8 << 20;
/// How much of an over-long line is kept to identify it.
pub const OVERSIZED_PREFIX: usize = 4096;

/// One line handed out by the framer.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A complete line, without its LF.
    Complete(&'a [u8]),
    /// A line longer than the limit: its first bytes and its full length.
    Oversized { prefix: &'a [u8], len: u64 },
}

/// Splits a byte stream on LF with a bounded buffer.
#[derive(Debug)]
pub struct LineFramer {
    buf: Vec<u8>,
    max: usize,
    /// Bytes of the current line when it is over the limit (then `buf` holds the prefix).
    oversized_len: Option<u64>,
}

impl Default for LineFramer {
    fn default() -> Self {
        LineFramer::new(MAX_LINE)
    }
}

impl LineFramer {
    pub fn new(max: usize) -> LineFramer {
        LineFramer {
            buf: Vec::new(),
            max: max.max(OVERSIZED_PREFIX),
            oversized_len: None,
        }
    }

    /// Feed one read's bytes; `on_line` gets every line completed by them.
    pub fn push(&mut self, mut chunk: &[u8], on_line: &mut dyn FnMut(Line<'_>)) {
        while !chunk.is_empty() {
            match memchr::memchr(b'\n', chunk) {
                Some(i) => {
                    let (head, rest) = (&chunk[..i], &chunk[i + 1..]);
                    if self.buf.is_empty() && self.oversized_len.is_none() && head.len() <= self.max
                    {
                        // Fast path: the whole line is inside this read; no copy.
                        on_line(Line::Complete(head));
                    } else {
                        self.append(head);
                        self.emit(on_line);
                    }
                    chunk = rest;
                }
                None => {
                    self.append(chunk);
                    chunk = &[];
                }
            }
        }
        if self.buf.capacity() > self.max * 2 && self.buf.is_empty() {
            self.buf = Vec::new();
        }
    }

    /// End of stream: hand out a final line that had no LF.
    pub fn finish(&mut self, on_line: &mut dyn FnMut(Line<'_>)) {
        if !self.buf.is_empty() || self.oversized_len.is_some() {
            self.emit(on_line);
        }
    }

    /// Bytes currently held (for the memory bound).
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Heap bytes the framer holds (its buffer's capacity): what the memory bound
    /// counts.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.buf.capacity()
    }

    fn append(&mut self, bytes: &[u8]) {
        if let Some(len) = &mut self.oversized_len {
            *len += bytes.len() as u64;
            return;
        }
        if self.buf.len() + bytes.len() > self.max {
            let total = (self.buf.len() + bytes.len()) as u64;
            let keep = OVERSIZED_PREFIX
                .saturating_sub(self.buf.len())
                .min(bytes.len());
            self.buf.truncate(OVERSIZED_PREFIX);
            self.buf.extend_from_slice(&bytes[..keep]);
            self.buf.shrink_to(OVERSIZED_PREFIX);
            self.oversized_len = Some(total);
        } else {
            self.buf.extend_from_slice(bytes);
        }
    }

    fn emit(&mut self, on_line: &mut dyn FnMut(Line<'_>)) {
        match self.oversized_len.take() {
            Some(len) => on_line(Line::Oversized {
                prefix: &self.buf,
                len,
            }),
            None => on_line(Line::Complete(&self.buf)),
        }
        self.buf.clear();
        if self.buf.capacity() > self.max {
            self.buf = Vec::new();
        }
    }
}

/// The last assistant message of the run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FinalMessage {
    pub text: String,
    pub stop_reason: Option<String>,
    pub error_message: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
}

/// What the runner knows after reading some of the stream.
#[derive(Debug, Clone, Default)]
pub struct StreamState {
    pub session_id: Option<String>,
    pub session_cwd: Option<String>,
    /// Any event after the session header: the prompt reached the agent loop.
    pub started: bool,
    pub turns: u32,
    pub tool_calls: u32,
    /// Tool calls whose `tool_execution_end` says `isError: true` (an unknown or
    /// denied tool, a failed command, …).
    pub tool_calls_failed: u32,
    /// Tools started and not yet ended (the stall watchdog pauses while > 0).
    pub tools_in_flight: u32,
    pub final_message: Option<FinalMessage>,
    /// An `auto_retry_start` with no assistant `message_end` after it yet.
    pub pending_retry: bool,
    /// The error of the last retry round, when pi gave up (`auto_retry_end`).
    pub retry_final_error: Option<String>,
    pub usage: Option<Usage>,
    /// Tokens counted for the budget: per message `totalTokens`, else its parts,
    /// summed (saturating).
    pub budget_tokens: u64,
    /// Assistant messages whose usage could not be counted ([`read_usage`]).
    pub unknown_usage: UnknownUsage,
    /// Assistant messages seen.
    pub assistant_messages: u32,
    /// Leave `usage` uncounted: only the baseline of scripts/bench-delegate.sh sets
    /// it, to measure what the usage accounting costs (the runner never does).
    pub skip_usage: bool,
    pub events: u64,
    pub malformed_lines: u64,
    pub oversized_lines: u64,
    /// The first malformed line, cut short, for the report.
    pub first_malformed: Option<String>,
    pub saw_agent_end: bool,
    pub saw_compaction: Option<String>,
    /// Events dropped for exceeding [`MAX_LINE`] (type and length; the first few),
    /// other than `message_update` snapshots, which lose nothing.
    pub dropped_events: Vec<(String, u64)>,
    /// A `message_end` was dropped after the last kept final message: the answer
    /// pwk holds may not be pi's last one.
    pub final_message_dropped: bool,
}

impl StreamState {
    /// Heap bytes the state holds (the capacity of every string and vector it owns):
    /// what the memory bound counts. Every field is named, so a new one must be
    /// counted here before the crate compiles.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        let StreamState {
            session_id,
            session_cwd,
            started: _,
            turns: _,
            tool_calls: _,
            tool_calls_failed: _,
            tools_in_flight: _,
            final_message,
            pending_retry: _,
            retry_final_error,
            usage: _,
            budget_tokens: _,
            unknown_usage,
            assistant_messages: _,
            skip_usage: _,
            events: _,
            malformed_lines: _,
            oversized_lines: _,
            first_malformed,
            saw_agent_end: _,
            saw_compaction,
            dropped_events,
            final_message_dropped: _,
        } = self;
        let opt = |s: &Option<String>| s.as_ref().map_or(0, String::capacity);
        let UnknownUsage {
            tokens: _,
            cost: _,
            invalid: _,
            first,
        } = unknown_usage;
        let message = final_message.as_ref().map_or(0, |m| {
            let FinalMessage {
                text,
                stop_reason,
                error_message,
                provider,
                model,
            } = m;
            text.capacity() + opt(stop_reason) + opt(error_message) + opt(provider) + opt(model)
        });
        opt(session_id)
            + opt(session_cwd)
            + message
            + opt(retry_final_error)
            + opt(first)
            + opt(first_malformed)
            + opt(saw_compaction)
            + dropped_events.capacity() * std::mem::size_of::<(String, u64)>()
            + dropped_events
                .iter()
                .map(|(k, _)| k.capacity())
                .sum::<usize>()
    }
}

#[derive(Deserialize)]
struct TypeOnly<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
}

#[derive(Deserialize)]
struct SessionEv {
    id: Option<String>,
    cwd: Option<String>,
}

#[derive(Deserialize)]
struct MessageEv<'a> {
    #[serde(borrow)]
    message: MessageView<'a>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageView<'a> {
    #[serde(borrow)]
    role: Option<Cow<'a, str>>,
    #[serde(default)]
    content: ContentText,
    provider: Option<String>,
    model: Option<String>,
    /// Kept raw and read on its own ([`read_usage`]): usage pwk cannot count never
    /// costs the message (its answer).
    #[serde(borrow)]
    usage: Option<&'a serde_json::value::RawValue>,
    stop_reason: Option<String>,
    error_message: Option<String>,
}

/// What one assistant message said about one kind of usage.
#[derive(Debug, Clone, PartialEq)]
pub enum Reported<T> {
    /// Reported, and countable.
    Known(T),
    /// Not reported.
    Missing,
    /// Reported as something a limit cannot count; why.
    Invalid(String),
}

/// The usage of one assistant message, read from its raw `usage` value: the token
/// counts (`totalTokens`, else the sum of the parts) and the cost, each known only
/// when every field of it pi reported is a finite number, zero or more.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageUsage {
    /// The parts as reported (the valid ones; zero otherwise).
    pub usage: Usage,
    pub tokens: Reported<u64>,
    pub cost: Reported<f64>,
}

/// A count pi reported: a finite number, zero or more (`None` with why otherwise).
fn count(field: &str, v: &serde_json::Value) -> Result<f64, String> {
    match v {
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
            _ => Err(format!("`{field}` is {n}")),
        },
        serde_json::Value::Null => Err(format!("`{field}` is null")),
        serde_json::Value::String(_) => Err(format!("`{field}` is a string")),
        serde_json::Value::Bool(b) => Err(format!("`{field}` is {b}")),
        serde_json::Value::Array(_) => Err(format!("`{field}` is an array")),
        serde_json::Value::Object(_) => Err(format!("`{field}` is an object")),
    }
}

/// A count as a whole number of tokens: saturating, fractions cut (an integer pi
/// wrote is taken exactly, also above 2^53).
fn whole(v: &serde_json::Value, x: f64) -> u64 {
    v.as_u64().unwrap_or(x as u64)
}

/// Read one assistant message's usage (see [`MessageUsage`]).
pub fn read_usage(raw: Option<&serde_json::value::RawValue>) -> MessageUsage {
    let unknown = |why: Option<String>| MessageUsage {
        usage: Usage::default(),
        tokens: why.clone().map_or(Reported::Missing, Reported::Invalid),
        cost: why.map_or(Reported::Missing, Reported::Invalid),
    };
    let Some(raw) = raw else {
        return unknown(None);
    };
    let v: serde_json::Value = match serde_json::from_str(raw.get()) {
        Ok(v) => v,
        Err(e) => return unknown(Some(format!("`usage` is not readable ({e})"))),
    };
    let m = match v {
        serde_json::Value::Null => return unknown(None),
        serde_json::Value::Object(m) => m,
        other => return unknown(Some(count("usage", &other).err().unwrap_or_default())),
    };
    let mut usage = Usage::default();
    let mut bad = None;
    let mut any = false;
    for (key, slot) in [
        ("input", &mut usage.input),
        ("output", &mut usage.output),
        ("cacheRead", &mut usage.cache_read),
        ("cacheWrite", &mut usage.cache_write),
        ("totalTokens", &mut usage.total_tokens),
    ] {
        let Some(v) = m.get(key) else { continue };
        any = true;
        match count(&format!("usage.{key}"), v) {
            Ok(x) => *slot = whole(v, x),
            Err(why) => {
                bad.get_or_insert(why);
            }
        }
    }
    let tokens = match bad {
        Some(why) => {
            usage = Usage::default();
            Reported::Invalid(why)
        }
        None if any => Reported::Known(super::budget::tokens(&usage)),
        None => Reported::Missing,
    };
    let cost = match m.get("cost") {
        None | Some(serde_json::Value::Null) => Reported::Missing,
        Some(serde_json::Value::Object(c)) => match c.get("total") {
            None => Reported::Missing,
            Some(t) => match count("usage.cost.total", t) {
                Ok(x) => Reported::Known(x),
                Err(why) => Reported::Invalid(why),
            },
        },
        Some(other) => Reported::Invalid(count("usage.cost", other).err().unwrap_or_default()),
    };
    if let Reported::Known(c) = cost {
        usage.cost = c;
    }
    MessageUsage {
        usage,
        tokens,
        cost,
    }
}

/// Assistant messages whose usage a limit could not count, so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnknownUsage {
    /// Messages with no usable token count, and with no usable cost.
    pub tokens: u32,
    pub cost: u32,
    /// Messages whose usage was reported but could not be counted (not just missing).
    pub invalid: u32,
    /// The first reason given (`usage.input is -5`, `usage is null`, …).
    pub first: Option<String>,
}

/// The text of a message's `content`: a string, or the `text` blocks of an array.
#[derive(Default)]
struct ContentText(String);

impl<'de> Deserialize<'de> for ContentText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContentText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ContentText, E> {
                Ok(ContentText(s.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ContentText, E> {
                Ok(ContentText::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ContentText, A::Error> {
                let mut out = String::new();
                while let Some(block) = seq.next_element::<Block<'de>>()? {
                    if block.kind.as_deref() == Some("text")
                        && let Some(t) = block.text
                    {
                        if !out.is_empty() {
                            out.push('\n');
                        }
                        out.push_str(&t);
                    }
                }
                Ok(ContentText(out))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct UpdateEv<'a> {
    #[serde(rename = "assistantMessageEvent", borrow)]
    event: Option<AssistantEv<'a>>,
    // `message` (0.73.1's snapshot) is not named here: serde skips it as IgnoredAny.
}

#[derive(Deserialize)]
struct AssistantEv<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    content: Option<Cow<'a, str>>,
    // `partial` and `delta` are skipped.
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolEv<'a> {
    #[serde(borrow)]
    tool_name: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolEndEv {
    #[serde(default)]
    is_error: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RetryStartEv {
    #[serde(default)]
    attempt: u32,
    #[serde(default)]
    max_attempts: u32,
    error_message: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RetryEndEv {
    #[serde(default)]
    success: bool,
    final_error: Option<String>,
}

#[derive(Deserialize)]
struct CompactionEv {
    reason: Option<String>,
}

/// The `assistantMessageEvent.type` of a `message_update` line, when it appears in
/// the line's first 2 KiB (pi 0.73.1 puts it before the snapshots; pi 1.6 after a small
/// `usage` object).
fn update_subtype(line: &[u8]) -> Option<&str> {
    const NEEDLE: &[u8] = br#""assistantMessageEvent":{"type":""#;
    static FINDER: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
        std::sync::OnceLock::new();
    let head = &line[..line.len().min(2048)];
    let at = FINDER
        .get_or_init(|| memchr::memmem::Finder::new(NEEDLE))
        .find(head)?
        + NEEDLE.len();
    let rest = &line[at..];
    let end = rest
        .iter()
        .take(64)
        .position(|&b| b == b'"' || b == b'\\')?;
    if rest[end] != b'"' {
        return None;
    }
    std::str::from_utf8(&rest[..end]).ok()
}

/// Fast path for `{"type":"NAME"…`: the event type without a full parse.
fn sniff_type(line: &[u8]) -> Option<&str> {
    let rest = line.strip_prefix(br#"{"type":""#)?;
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    if rest[end] != b'"' {
        return None;
    }
    std::str::from_utf8(&rest[..end]).ok()
}

impl StreamState {
    /// Parse one line. Progress worth showing is passed to `progress`.
    pub fn feed(&mut self, line: Line<'_>, progress: &mut dyn FnMut(Progress)) {
        match line {
            Line::Complete(bytes) => self.feed_line(bytes, progress),
            Line::Oversized { prefix, len } => {
                self.oversized_lines += 1;
                let kind = sniff_type(prefix).unwrap_or("unknown").to_string();
                // A huge message_update only loses a live snapshot; anything else loses data.
                if kind != "message_update" {
                    self.malformed_lines += 1;
                    self.note_malformed(prefix);
                    if self.dropped_events.len() < 8 {
                        self.dropped_events.push((kind.clone(), len));
                    }
                    let not_assistant = |role: &[u8]| prefix.windows(role.len()).any(|w| w == role);
                    if kind == "message_end"
                        && !not_assistant(br#""role":"user""#)
                        && !not_assistant(br#""role":"toolResult""#)
                    {
                        self.final_message_dropped = true;
                    }
                    progress(Progress::Warning(format!(
                        "dropped a {len}-byte `{kind}` event (over the {} MiB line limit)",
                        MAX_LINE >> 20
                    )));
                } else {
                    self.events += 1;
                }
            }
        }
    }

    fn note_malformed(&mut self, bytes: &[u8]) {
        if self.first_malformed.is_none() {
            let cut = &bytes[..bytes.len().min(200)];
            self.first_malformed = Some(String::from_utf8_lossy(cut).into_owned());
        }
    }

    fn malformed(&mut self, bytes: &[u8], progress: &mut dyn FnMut(Progress)) {
        self.malformed_lines += 1;
        if self.malformed_lines == 1 {
            progress(Progress::Warning(format!(
                "pi printed a line that is not a JSON event: {}",
                snippet(&String::from_utf8_lossy(&bytes[..bytes.len().min(200)]), 80)
            )));
        }
        self.note_malformed(bytes);
    }

    fn feed_line(&mut self, line: &[u8], progress: &mut dyn FnMut(Progress)) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        // serde_json does not check the UTF-8 of strings it skips; pi only writes UTF-8.
        if simdutf8::basic::from_utf8(line).is_err() {
            return self.malformed(line, progress);
        }
        let owned_kind;
        let kind: &str = match sniff_type(line) {
            Some(k) => k,
            None => match serde_json::from_slice::<TypeOnly<'_>>(line) {
                Ok(t) => {
                    owned_kind = t.kind.into_owned();
                    &owned_kind
                }
                Err(_) => return self.malformed(line, progress),
            },
        };
        // The bulk of a 0.73.1 stream: deltas carrying two growing snapshots. Only
        // `text_end` (for the progress line) needs a parse; the others are recognised by
        // their prefix and a closing brace, without scanning the snapshots.
        if kind == "message_update"
            && let Some(sub) = update_subtype(line)
            && sub != "text_end"
        {
            if line.trim_ascii_end().ends_with(b"}") {
                self.events += 1;
                self.started = true;
            } else {
                self.malformed(line, progress);
            }
            return;
        }
        let ok = match kind {
            "message_update" => match serde_json::from_slice::<UpdateEv<'_>>(line) {
                Ok(u) => {
                    if let Some(ev) = u.event
                        && ev.kind == "text_end"
                        && let Some(text) = ev.content
                        && !text.trim().is_empty()
                    {
                        progress(Progress::Text(snippet(&text, 100)));
                    }
                    true
                }
                Err(_) => false,
            },
            "message_end" => match serde_json::from_slice::<MessageEv<'_>>(line) {
                Ok(m) => {
                    self.on_message_end(m.message, progress);
                    true
                }
                Err(_) => false,
            },
            "session" => match serde_json::from_slice::<SessionEv>(line) {
                Ok(s) => {
                    self.session_id = s.id.or(self.session_id.take());
                    self.session_cwd = s.cwd.or(self.session_cwd.take());
                    true
                }
                Err(_) => false,
            },
            "turn_start" => self.check_object(
                line,
                |s| {
                    s.started = true;
                    s.turns += 1;
                    Some(Progress::TurnStarted(s.turns))
                },
                progress,
            ),
            "agent_start" => self.check_object(
                line,
                |s| {
                    s.started = true;
                    s.saw_agent_end = false;
                    None
                },
                progress,
            ),
            "agent_end" => self.check_object(
                line,
                |s| {
                    s.saw_agent_end = true;
                    None
                },
                progress,
            ),
            "tool_execution_start" => match serde_json::from_slice::<ToolEv<'_>>(line) {
                Ok(t) => {
                    self.started = true;
                    self.tool_calls += 1;
                    self.tools_in_flight += 1;
                    let name = t
                        .tool_name
                        .map(Cow::into_owned)
                        .unwrap_or_else(|| "?".into());
                    progress(Progress::ToolCall { name });
                    true
                }
                Err(_) => false,
            },
            "tool_execution_end" => match serde_json::from_slice::<ToolEndEv>(line) {
                Ok(t) => {
                    self.tools_in_flight = self.tools_in_flight.saturating_sub(1);
                    if t.is_error {
                        self.tool_calls_failed += 1;
                    }
                    true
                }
                Err(_) => false,
            },
            "auto_retry_start" => match serde_json::from_slice::<RetryStartEv>(line) {
                Ok(r) => {
                    self.pending_retry = true;
                    progress(Progress::Retry {
                        attempt: r.attempt,
                        max_attempts: r.max_attempts,
                        error: snippet(r.error_message.as_deref().unwrap_or(""), 120),
                    });
                    true
                }
                Err(_) => false,
            },
            "auto_retry_end" => match serde_json::from_slice::<RetryEndEv>(line) {
                Ok(r) => {
                    if !r.success {
                        self.retry_final_error = r.final_error;
                    }
                    true
                }
                Err(_) => false,
            },
            "compaction_start" => match serde_json::from_slice::<CompactionEv>(line) {
                Ok(c) => {
                    let reason = c.reason.unwrap_or_else(|| "unknown".into());
                    progress(Progress::Warning(format!(
                        "pi started a compaction ({reason})"
                    )));
                    self.saw_compaction = Some(reason);
                    true
                }
                Err(_) => false,
            },
            // agent_settled, entry_appended, turn_end, message_start, tool_execution_update,
            // queue_update, compaction_end and event types added later: validated, ignored.
            _ => serde_json::from_slice::<IgnoredAny>(line).is_ok(),
        };
        if ok {
            self.events += 1;
            // Anything after the session header means the prompt reached the agent loop.
            self.started |= kind != "session";
        } else {
            self.malformed(line, progress);
        }
    }

    fn check_object(
        &mut self,
        line: &[u8],
        apply: impl FnOnce(&mut StreamState) -> Option<Progress>,
        progress: &mut dyn FnMut(Progress),
    ) -> bool {
        if serde_json::from_slice::<IgnoredAny>(line).is_err() {
            return false;
        }
        if let Some(p) = apply(self) {
            progress(p);
        }
        true
    }

    fn on_message_end(&mut self, m: MessageView<'_>, progress: &mut dyn FnMut(Progress)) {
        self.started = true;
        if m.role.as_deref() != Some("assistant") {
            return; // user, toolResult, and pi 1.6's system messages
        }
        self.pending_retry = false;
        self.assistant_messages = self.assistant_messages.saturating_add(1);
        if !self.skip_usage {
            self.count_usage(m.usage);
        }
        if m.stop_reason.as_deref() == Some("error")
            && let Some(e) = &m.error_message
        {
            progress(Progress::Warning(format!(
                "model call failed: {}",
                snippet(e, 160)
            )));
        }
        self.final_message_dropped = false;
        self.final_message = Some(FinalMessage {
            text: m.content.0,
            stop_reason: m.stop_reason,
            error_message: m.error_message,
            provider: m.provider,
            model: m.model,
        });
    }
}

impl StreamState {
    fn count_usage(&mut self, raw: Option<&serde_json::value::RawValue>) {
        let u = read_usage(raw);
        let gaps = &mut self.unknown_usage;
        let mut note = |why: &String| {
            gaps.first.get_or_insert_with(|| why.clone());
        };
        let mut invalid = false;
        match &u.tokens {
            Reported::Known(t) => self.budget_tokens = self.budget_tokens.saturating_add(*t),
            Reported::Missing => gaps.tokens = gaps.tokens.saturating_add(1),
            Reported::Invalid(why) => {
                gaps.tokens = gaps.tokens.saturating_add(1);
                note(why);
                invalid = true;
            }
        }
        match &u.cost {
            Reported::Known(_) => {}
            Reported::Missing => gaps.cost = gaps.cost.saturating_add(1),
            Reported::Invalid(why) => {
                gaps.cost = gaps.cost.saturating_add(1);
                note(why);
                invalid = true;
            }
        }
        if invalid {
            gaps.invalid = gaps.invalid.saturating_add(1);
        }
        if raw.is_some() || u.tokens != Reported::Missing {
            self.usage.get_or_insert_with(Usage::default).add(&u.usage);
        }
    }
}

/// Parse a whole stream held in memory (tests, benchmarks and fuzzing).
pub fn parse_all(bytes: &[u8], chunk: usize) -> StreamState {
    let mut framer = LineFramer::default();
    let mut state = StreamState::default();
    let mut sink = |_p: Progress| {};
    for piece in bytes.chunks(chunk.max(1)) {
        framer.push(piece, &mut |line| state.feed(line, &mut sink));
    }
    framer.finish(&mut |line| state.feed(line, &mut sink));
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT_073: &str = concat!(
        r#"{"type":"session","version":3,"id":"s-1","timestamp":"t","cwd":"/w"}"#,
        "\n",
        r#"{"type":"agent_start"}"#,
        "\n",
        r#"{"type":"turn_start"}"#,
        "\n",
        r#"{"type":"message_start","message":{"role":"user","content":[{"type":"text","text":"Say hello"}],"timestamp":1}}"#,
        "\n",
        r#"{"type":"message_end","message":{"role":"user","content":[{"type":"text","text":"Say hello"}],"timestamp":1}}"#,
        "\n",
        r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Hé","partial":{"role":"assistant","content":[{"type":"text","text":"Héllo"}]}},"message":{"role":"assistant","content":[{"type":"text","text":"Héllo"}]}}"#,
        "\n",
        r#"{"type":"message_update","assistantMessageEvent":{"type":"text_end","contentIndex":0,"content":"Héllo","partial":{}}}"#,
        "\n",
        r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Héllo"}],"api":"openai-completions","provider":"mock","model":"mock-model","usage":{"input":664,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":669,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"stop","timestamp":2}}"#,
        "\n",
        r#"{"type":"agent_end","messages":[]}"#,
        "\n",
        r#"{"type":"agent_settled","aborted":false}"#,
        "\n",
    );

    #[test]
    fn final_answer_usage_and_session() {
        for chunk in [1, 2, 3, 7, 4096] {
            let s = parse_all(TEXT_073.as_bytes(), chunk);
            let f = s.final_message.as_ref().unwrap();
            assert_eq!(f.text, "Héllo", "chunk {chunk}");
            assert_eq!(f.stop_reason.as_deref(), Some("stop"));
            assert_eq!(f.model.as_deref(), Some("mock-model"));
            assert_eq!(s.session_id.as_deref(), Some("s-1"));
            assert_eq!(s.turns, 1);
            assert_eq!(s.malformed_lines, 0);
            let u = s.usage.unwrap();
            assert_eq!((u.input, u.output, u.total_tokens), (664, 5, 669));
            assert!(s.started);
        }
    }

    #[test]
    fn failed_tool_calls_are_counted_apart() {
        // The shapes of pi-samples/tool-denied.jsonl (both generations) and tool-read.
        let text = concat!(
            r#"{"type":"tool_execution_start","toolCallId":"c1","toolName":"bash","args":{"command":"echo pwned"}}"#,
            "\n",
            r#"{"type":"tool_execution_end","toolCallId":"c1","toolName":"bash","result":{"content":[{"type":"text","text":"Tool bash not found"}],"details":{}},"isError":true}"#,
            "\n",
            r#"{"type":"tool_execution_start","toolCallId":"c2","toolName":"read","args":{"path":"a"}}"#,
            "\n",
            r#"{"type":"tool_execution_end","toolCallId":"c2","toolName":"read","result":{"content":[{"type":"text","text":"ok"}]},"isError":false}"#,
            "\n",
            r#"{"type":"tool_execution_start","toolCallId":"c3","toolName":"ls","args":{}}"#,
            "\n",
            r#"{"type":"tool_execution_end","toolCallId":"c3","toolName":"ls","result":{}}"#,
            "\n",
        );
        let s = parse_all(text.as_bytes(), 7);
        assert_eq!((s.tool_calls, s.tool_calls_failed), (3, 1));
        assert_eq!(s.tools_in_flight, 0);
        assert_eq!(s.malformed_lines, 0);
    }

    #[test]
    fn system_messages_and_string_content_are_ignored() {
        let text = concat!(
            r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"A"}],"stopReason":"stop"}}"#,
            "\n",
            r#"{"type":"message_end","message":{"role":"system","content":"","sections":{}}}"#,
            "\n",
        );
        let s = parse_all(text.as_bytes(), 5);
        assert_eq!(s.final_message.unwrap().text, "A");
        assert_eq!(s.malformed_lines, 0);
    }

    #[test]
    fn malformed_and_invalid_utf8_lines_are_counted() {
        let mut bytes = b"not json\n{\"type\":\"turn_start\"}\n".to_vec();
        bytes.extend_from_slice(b"{\"type\":\"message_end\",\"message\":{\"role\":\"assistant\",\"content\":\"\xff\"}}\n");
        bytes.extend_from_slice(b"{\"type\":\"turn_start\"");
        let s = parse_all(&bytes, 3);
        assert_eq!(s.malformed_lines, 3);
        assert_eq!(s.turns, 1);
        assert_eq!(s.first_malformed.as_deref(), Some("not json"));
    }

    #[test]
    fn retry_after_agent_end_is_not_final() {
        let text = concat!(
            r#"{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"429 slow down"}}"#,
            "\n",
            r#"{"type":"agent_end","messages":[]}"#,
            "\n",
            r#"{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"429 slow down"}"#,
            "\n",
        );
        let s = parse_all(text.as_bytes(), 64);
        assert!(s.pending_retry);
    }

    #[test]
    fn oversized_lines_are_bounded() {
        let mut framer = LineFramer::new(1 << 16);
        let mut seen = Vec::new();
        let big = vec![b'a'; 300_000];
        framer.push(b"{\"type\":\"message_update\",\"x\":\"", &mut |l| {
            seen.push(format!("{l:?}"))
        });
        for _ in 0..10 {
            framer.push(&big, &mut |l| seen.push(format!("{l:?}")));
            assert!(framer.buffered() <= OVERSIZED_PREFIX);
        }
        framer.push(b"\"}\nok\n", &mut |l| match l {
            Line::Oversized { prefix, len } => {
                assert!(prefix.starts_with(b"{\"type\":\"message_update\""));
                assert_eq!(len, 3_000_000 + 30 + 2);
                seen.push("big".into());
            }
            Line::Complete(b) => seen.push(String::from_utf8_lossy(b).into_owned()),
        });
        assert_eq!(seen, ["big", "ok"]);
    }

    #[test]
    fn sniffing_matches_full_parse() {
        assert_eq!(sniff_type(br#"{"type":"turn_start"}"#), Some("turn_start"));
        assert_eq!(sniff_type(br#"{"type":"a\"b"}"#), None);
        assert_eq!(sniff_type(br#"{ "type":"x"}"#), None);
    }
}

#[cfg(test)]
mod fuzz {
    //! Arbitrary bytes never panic the framer or the parser, whatever the read sizes.
    //! `PROPTEST_CASES=N` runs more cases (scripts/bench-delegate.sh --fuzz).
    use super::*;
    use proptest::prelude::*;

    use crate::testing::fuzz_config as config;

    fn event_like() -> impl Strategy<Value = Vec<u8>> {
        let pieces = prop::collection::vec(
            prop_oneof![
                Just(br#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"a"}],"stopReason":"stop"}}"#.to_vec()),
                Just(br#"{"type":"turn_start"}"#.to_vec()),
                Just(br#"{"type":"message_update","assistantMessageEvent":{"type":"text_end","content":"x"}}"#.to_vec()),
                Just(br#"{"type":"auto_retry_start","attempt":1}"#.to_vec()),
                Just(b"\n".to_vec()),
                Just("é𝄞".as_bytes().to_vec()),
                prop::collection::vec(any::<u8>(), 0..64),
            ],
            0..40,
        );
        pieces.prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..4096), chunk in 1usize..512) {
            let s = parse_all(&bytes, chunk);
            prop_assert!(s.malformed_lines <= bytes.len() as u64 + 1);
        }

        #[test]
        fn event_soup_never_panics_and_chunking_does_not_matter(bytes in event_like(), chunk in 1usize..64) {
            let a = parse_all(&bytes, chunk);
            let b = parse_all(&bytes, bytes.len().max(1));
            prop_assert_eq!(a.final_message, b.final_message);
            prop_assert_eq!(a.malformed_lines, b.malformed_lines);
            prop_assert_eq!(a.turns, b.turns);
        }

        #[test]
        fn small_line_limits_stay_bounded(bytes in prop::collection::vec(any::<u8>(), 0..20000), chunk in 1usize..2048) {
            let mut framer = LineFramer::new(1);
            let mut state = StreamState::default();
            for piece in bytes.chunks(chunk) {
                framer.push(piece, &mut |l| state.feed(l, &mut |_| {}));
                prop_assert!(framer.buffered() <= OVERSIZED_PREFIX);
            }
            framer.finish(&mut |l| state.feed(l, &mut |_| {}));
        }
    }
}

#[cfg(test)]
mod fast_path {
    use super::*;

    #[test]
    fn update_subtypes_of_both_generations() {
        let v073 = br#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"x","partial":{}},"message":{}}"#;
        let v16 = br#"{"type":"message_update","usage":{"input":1},"assistantMessageEvent":{"type":"toolcall_delta","contentIndex":0,"delta":""}}"#;
        assert_eq!(update_subtype(v073), Some("text_delta"));
        assert_eq!(update_subtype(v16), Some("toolcall_delta"));
        assert_eq!(update_subtype(br#"{"type":"message_update"}"#), None);
    }

    #[test]
    fn a_cut_update_line_is_malformed() {
        let s = parse_all(br#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"x","partial":{"#, 7);
        assert_eq!(s.malformed_lines, 1);
        let s = parse_all(b"{\"type\":\"message_update\",\"assistantMessageEvent\":{\"type\":\"text_end\",\"content\":\"done\"}}\n", 3);
        assert_eq!((s.malformed_lines, s.events), (0, 1));
    }
}

#[cfg(test)]
mod usage_class {
    //! Usage a child reports, by class: every value kind × every field a limit counts.
    //! A countable value is summed (saturating); anything else leaves that kind of
    //! usage unknown for the message and never costs the message itself.
    use super::*;

    /// `(raw JSON value, countable)`.
    const VALUES: [(&str, bool); 15] = [
        ("0", true),
        ("7", true),
        ("7.0", true),
        ("1e30", true),
        ("18446744073709547520", true),
        ("99999999999999999999999", true),
        ("-1", false),
        ("-1e-9", false),
        ("null", false),
        ("\"7\"", false),
        ("true", false),
        ("[]", false),
        ("{}", false),
        ("1e400", false),
        ("-0.0", true),
    ];
    const TOKEN_FIELDS: [&str; 5] = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"];

    fn message(usage: Option<&str>) -> String {
        let usage = usage
            .map(|u| format!(r#","usage":{u}"#))
            .unwrap_or_default();
        format!(
            r#"{{"type":"message_end","message":{{"role":"assistant","content":[{{"type":"text","text":"the answer"}}],"stopReason":"stop"{usage}}}}}"#
        )
    }

    fn parse(line: &str) -> StreamState {
        parse_all(format!("{line}\n").as_bytes(), 64)
    }

    #[test]
    fn every_value_in_every_counted_field() {
        let mut cases = 0;
        for (value, countable) in VALUES {
            for field in TOKEN_FIELDS {
                let s = parse(&message(Some(&format!(
                    r#"{{"input":3,"output":2,"{field}":{value},"cost":{{"total":0.5}}}}"#
                ))));
                let what = format!("{field} = {value}");
                assert_eq!(s.malformed_lines, 0, "{what}");
                assert_eq!(
                    s.final_message.as_ref().map(|f| f.text.as_str()),
                    Some("the answer"),
                    "{what}: the message is kept"
                );
                assert_eq!(s.unknown_usage.tokens == 0, countable, "{what}");
                // 1e400 is out of any float's range: the whole `usage` is unreadable.
                let unreadable = value == "1e400";
                assert_eq!(
                    s.unknown_usage.cost > 0,
                    unreadable,
                    "{what}: the cost is another count"
                );
                if !countable {
                    assert_eq!(s.budget_tokens, 0, "{what}: nothing of it is counted");
                    assert!(s.unknown_usage.first.is_some(), "{what}");
                }
                cases += 1;
            }
            let s = parse(&message(Some(&format!(
                r#"{{"totalTokens":5,"cost":{{"total":{value}}}}}"#
            ))));
            assert_eq!(s.unknown_usage.cost == 0, countable, "cost.total = {value}");
            let tokens = if value == "1e400" { 0 } else { 5 };
            assert_eq!(s.budget_tokens, tokens, "cost.total = {value}");
            let cost = s.usage.as_ref().unwrap().cost;
            assert!(
                cost.is_finite() && cost >= 0.0,
                "cost.total = {value}: {cost}"
            );
            cases += 1;
        }
        // The whole `usage` (and `cost`) missing, null or not an object.
        for (usage, tokens_unknown, cost_unknown) in [
            (None, true, true),
            (Some("null"), true, true),
            (Some("\"lots\""), true, true),
            (Some("-3"), true, true),
            (Some("{}"), true, true),
            (Some(r#"{"totalTokens":4}"#), false, true),
            (Some(r#"{"totalTokens":4,"cost":null}"#), false, true),
            (Some(r#"{"totalTokens":4,"cost":"$1"}"#), false, true),
            (Some(r#"{"totalTokens":4,"cost":{}}"#), false, true),
            (
                Some(r#"{"totalTokens":1e400,"cost":{"total":1}}"#),
                true,
                true,
            ),
        ] {
            let s = parse(&message(usage));
            let what = format!("{usage:?}");
            assert_eq!(s.final_message.unwrap().text, "the answer", "{what}");
            assert_eq!(s.unknown_usage.tokens > 0, tokens_unknown, "{what}");
            assert_eq!(s.unknown_usage.cost > 0, cost_unknown, "{what}");
            cases += 1;
        }
        assert!(cases >= 100, "{cases}");
    }

    /// Sums saturate: 4096, then 2^64 - 4096, then 4096 never wraps to a small count.
    #[test]
    fn sums_never_wrap() {
        let mut text = String::new();
        for t in ["4096", "18446744073709547520", "4096", "1e30", "4096"] {
            text.push_str(&message(Some(&format!(
                r#"{{"input":{t},"output":{t},"totalTokens":{t},"cost":{{"total":1e308}}}}"#
            ))));
            text.push('\n');
        }
        let s = parse_all(text.as_bytes(), 7);
        assert_eq!(s.budget_tokens, u64::MAX);
        let u = s.usage.unwrap();
        assert_eq!((u.input, u.total_tokens), (u64::MAX, u64::MAX));
        assert_eq!(u.cost, f64::MAX, "finite, and over every limit");
        let b = crate::delegate::Budget {
            max_tokens: Some(5000),
            max_cost_usd: Some(1.0),
            ..Default::default()
        };
        assert!(b.crossed(s.budget_tokens, u.cost).is_some());
    }
}

#[cfg(test)]
mod memory {
    //! What the reader holds stays bounded by the longest line it keeps, whatever the
    //! stream's length: a pi 0.73.1-shaped stream (every `message_update` carries the
    //! partial message twice, so lines grow with the answer) of a few turns and of
    //! many, × read sizes × line limits, with the heap the framer and the state hold
    //! counted after every read (capacities, not timings), and the accounting exact.
    use super::*;

    /// (JSON-escaped, decoded) pieces of an answer: escapes, multi-byte UTF-8.
    const WORDS: [(&str, &str); 5] = [
        ("alpha ", "alpha "),
        ("b\\n", "b\n"),
        ("\\\"d\\\" ", "\"d\" "),
        ("é ", "é "),
        ("𝄞\\u00e9 ", "𝄞é "),
    ];
    const META: &str = r#""api":"openai-completions","provider":"mock","model":"mock-model","usage":{"input":100,"output":12,"cacheRead":3,"cacheWrite":0,"totalTokens":115,"cost":{"input":0.001,"output":0.0002,"cacheRead":0,"cacheWrite":0,"total":0.0012}},"stopReason":"stop","timestamp":1"#;

    /// One turn of `deltas` deltas: (its bytes, its longest line, the decoded answer).
    fn turn(deltas: usize, n: usize) -> (Vec<u8>, usize, String) {
        let (mut text, mut raw) = (String::new(), String::new());
        let mut out: Vec<String> = vec![
            r#"{"type":"turn_start"}"#.into(),
            format!(
                r#"{{"type":"message_start","message":{{"role":"assistant","content":[],{META}}}}}"#
            ),
        ];
        for i in 0..deltas {
            let (d, r) = WORDS[(i + n) % WORDS.len()];
            text.push_str(d);
            raw.push_str(r);
            let snap = format!(
                r#"{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],{META}}}"#
            );
            out.push(format!(
                r#"{{"type":"message_update","assistantMessageEvent":{{"type":"text_delta","contentIndex":0,"delta":"{d}","partial":{snap}}},"message":{snap}}}"#
            ));
        }
        out.push(format!(
            r#"{{"type":"tool_execution_start","toolCallId":"c{n}","toolName":"read","args":{{"path":"a"}}}}"#
        ));
        // A tool's partial output as long as four answers (a big file read).
        out.push(format!(
            r#"{{"type":"tool_execution_update","toolCallId":"c{n}","toolName":"read","partialResult":{{"content":[{{"type":"text","text":"{text}{text}{text}{text}"}}]}}}}"#
        ));
        out.push(format!(
            r#"{{"type":"tool_execution_end","toolCallId":"c{n}","toolName":"read","result":{{"content":[]}},"isError":{}}}"#,
            n % 2 == 1
        ));
        if n.is_multiple_of(3) {
            out.push(format!("not an event {n}"));
        }
        out.push(format!(
            r#"{{"type":"message_end","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],{META}}}}}"#
        ));
        out.push(r#"{"type":"turn_end","toolResults":[]}"#.into());
        let longest = out.iter().map(String::len).max().unwrap();
        let mut bytes = out.join("\n").into_bytes();
        bytes.push(b'\n');
        (bytes, longest, raw)
    }

    struct Counted {
        framer: LineFramer,
        state: StreamState,
        chunk: usize,
        /// Bytes of the current simulated read already pushed.
        fill: usize,
        peak_framer: usize,
        peak_state: usize,
    }

    impl Counted {
        /// Feed `bytes` as the rest of a stream read `chunk` bytes at a time.
        fn feed(&mut self, mut bytes: &[u8]) {
            while !bytes.is_empty() {
                let n = (self.chunk - self.fill).min(bytes.len());
                let state = &mut self.state;
                self.framer
                    .push(&bytes[..n], &mut |l| state.feed(l, &mut |_| {}));
                self.fill = (self.fill + n) % self.chunk;
                bytes = &bytes[n..];
                self.peak_framer = self.peak_framer.max(self.framer.held());
                self.peak_state = self.peak_state.max(self.state.held());
            }
        }
    }

    fn run(deltas: usize, turns: usize, chunk: usize, max: usize) -> (Counted, usize, String) {
        let mut c = Counted {
            framer: LineFramer::new(max),
            state: StreamState::default(),
            chunk,
            fill: 0,
            peak_framer: 0,
            peak_state: 0,
        };
        c.feed(b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/w\"}\n{\"type\":\"agent_start\"}\n");
        let (mut longest, mut last) = (0, String::new());
        for n in 0..turns {
            let (bytes, l, raw) = turn(deltas, n);
            c.feed(&bytes);
            (longest, last) = (longest.max(l), raw);
        }
        c.feed(b"{\"type\":\"agent_end\",\"messages\":[]}\n");
        let state = &mut c.state;
        c.framer.finish(&mut |l| state.feed(l, &mut |_| {}));
        (c, longest, last)
    }

    #[test]
    fn held_memory_is_bounded_by_the_longest_line_not_the_stream() {
        for deltas in [40, 200] {
            for max in [MAX_LINE, OVERSIZED_PREFIX] {
                for chunk in [1013, 1 << 20] {
                    let case = format!("{deltas} deltas, line limit {max}, reads of {chunk}");
                    // 8 turns fill every "first few" list the state keeps.
                    let (short, _, _) = run(deltas, 8, chunk, max);
                    let (long, longest, last) = run(deltas, 24, chunk, max);
                    assert!(
                        long.peak_framer <= short.peak_framer
                            && long.peak_state <= short.peak_state,
                        "{case}: 24 turns held more than 8 (framer {} vs {}, state {} vs {})",
                        long.peak_framer,
                        short.peak_framer,
                        long.peak_state,
                        short.peak_state
                    );
                    // A line kept whole is at most `max` bytes; Vec growth doubles.
                    let kept = longest.min(max);
                    assert!(
                        long.peak_framer <= 2 * kept,
                        "{case}: the framer held {} bytes, longest kept line {kept}",
                        long.peak_framer
                    );
                    let answer = last.len();
                    assert!(
                        long.peak_state <= 2 * answer + 4096,
                        "{case}: the state held {} bytes for a {answer}-byte answer",
                        long.peak_state
                    );
                    let s = &long.state;
                    assert_eq!(s.turns, 24, "{case}");
                    assert_eq!((s.tool_calls, s.tool_calls_failed), (24, 12), "{case}");
                    if longest <= max {
                        // Nothing dropped: the answer and the sums are exact.
                        assert_eq!(s.malformed_lines, 8, "{case}");
                        assert_eq!(s.oversized_lines, 0, "{case}");
                        assert_eq!(s.final_message.as_ref().unwrap().text, last, "{case}");
                        let u = s.usage.as_ref().unwrap();
                        assert_eq!(
                            (u.input, u.output, u.cache_read, u.total_tokens),
                            (2400, 288, 72, 2760),
                            "{case}"
                        );
                        assert_eq!(s.budget_tokens, 2760, "{case}");
                        let cost = (0..24).fold(0.0, |a, _| a + 0.0012);
                        assert_eq!(u.cost, cost, "{case}");
                    } else {
                        assert!(s.oversized_lines > 0 && s.malformed_lines >= 8, "{case}");
                    }
                }
            }
        }
    }
}
