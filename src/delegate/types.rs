//! Data shared by the runner, the stream reader and the `pwk delegate` command.

use serde::Serialize;

/// Why a run did not complete. Spelled as in the CLI contract (`SCREAMING_SNAKE_CASE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    NeedsDecision,
    PiNotFound,
    UnknownModel,
    UnsupportedOption,
    PromptStdinUnsupported,
    StreamUnsupported,
    AuthError,
    RateLimit,
    ProviderError,
    SandboxPermission,
    Timeout,
    PiFailed,
    InvalidRequest,
    /// The caller's turn budget (`max_turns`) was reached and the run was stopped.
    TurnBudget,
    /// A client aborted the task (`pwk mcp`'s `task_abort`, or a cancelled call).
    Aborted,
    /// The request's `budget` (tokens, cost or wall clock) was crossed and pi stopped.
    BudgetExceeded,
    /// pi reported usage a token or cost limit cannot count (missing, `null`,
    /// negative, not a number) and the budget says `onUnknownUsage: stop`.
    BudgetUnenforceable,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NeedsDecision => "NEEDS_DECISION",
            ErrorCode::PiNotFound => "PI_NOT_FOUND",
            ErrorCode::UnknownModel => "UNKNOWN_MODEL",
            ErrorCode::UnsupportedOption => "UNSUPPORTED_OPTION",
            ErrorCode::PromptStdinUnsupported => "PROMPT_STDIN_UNSUPPORTED",
            ErrorCode::StreamUnsupported => "STREAM_UNSUPPORTED",
            ErrorCode::AuthError => "AUTH_ERROR",
            ErrorCode::RateLimit => "RATE_LIMIT",
            ErrorCode::ProviderError => "PROVIDER_ERROR",
            ErrorCode::SandboxPermission => "SANDBOX_PERMISSION",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::PiFailed => "PI_FAILED",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::TurnBudget => "TURN_BUDGET",
            ErrorCode::Aborted => "ABORTED",
            ErrorCode::BudgetExceeded => "BUDGET_EXCEEDED",
            ErrorCode::BudgetUnenforceable => "BUDGET_UNENFORCEABLE",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A classified failure: a code callers branch on, a message people read, and the
/// evidence that was gathered (discovery output, the denied path).
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{code}: {message}")]
pub struct RunError {
    pub code: ErrorCode,
    pub message: String,
    /// What targeted discovery found (`pi --list-models …`, `pi --help`), when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discovery: Option<String>,
    /// SANDBOX_PERMISSION: the path that was denied, when pi named it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub denied_path: Option<String>,
    /// SANDBOX_PERMISSION: whether task execution had begun (never retry when true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_started: Option<bool>,
    /// INVALID_REQUEST: where in the input (1-based line and character column).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl RunError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> RunError {
        RunError {
            code,
            message: message.into(),
            discovery: None,
            denied_path: None,
            execution_started: None,
            line: None,
            column: None,
        }
    }
}

/// The outcome of one pi process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Completed,
    Failed,
    TimedOut,
    /// Stopped on a client's request ([`crate::delegate::supervise::Remote::abort`]).
    Aborted,
}

impl RunStatus {
    /// The status as the JSON documents spell it (`timed_out`): what human output
    /// says too.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::TimedOut => "timed_out",
            RunStatus::Aborted => "aborted",
        }
    }
}

/// Token usage and cost, summed over the assistant `message_end` events of the run.
/// Only ever built from what pi reported.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub total_tokens: u64,
    /// Cost in USD as pi computed it from the model definition.
    pub cost: f64,
}

impl Usage {
    /// Add another message's usage. Sums saturate (a count pi makes huge can never
    /// wrap back under a limit) and the cost stays finite (`f64::MAX` at most: it
    /// still crosses every limit and serializes as a number).
    pub fn add(&mut self, other: &Usage) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.total_tokens = self.total_tokens.saturating_add(other.total_tokens);
        self.cost = (self.cost + other.cost).min(f64::MAX);
    }
}

/// Live progress of a run, for stderr lines and live displays.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// The n-th model call (turn) began.
    TurnStarted(u32),
    /// pi started executing a tool.
    ToolCall { name: String },
    /// A text block the model finished (a short snippet).
    Text(String),
    /// pi is retrying after a provider error.
    Retry {
        attempt: u32,
        max_attempts: u32,
        error: String,
    },
    /// Something worth telling a person (malformed output, fallback, compaction, …).
    Warning(String),
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Progress::TurnStarted(n) => write!(f, "turn {n}"),
            Progress::ToolCall { name } => write!(f, "tool {name}"),
            Progress::Text(s) => write!(f, "text: {s}"),
            Progress::Retry {
                attempt,
                max_attempts,
                error,
            } => {
                write!(f, "retry {attempt}/{max_attempts}: {error}")
            }
            Progress::Warning(w) => write!(f, "warning: {w}"),
        }
    }
}

pub use crate::text::snippet;
