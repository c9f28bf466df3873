//! Turning pi's failure signatures into error codes.
//!
//! Two sources: the `errorMessage` of a failed assistant message (provider errors; pi
//! exits 0 on those in JSON mode), and stderr of a process that died before the agent
//! loop started (CLI errors). The patterns accept both pi generations: `401 Incorrect…`
//! (0.73.1) and `401: {"message":…}` (1.6), `Connection error.` with or without
//! `: connect ECONNREFUSED …`, 1.6's `Stream ended without finish_reason` and
//! `terminated: …`. Nothing here looks at pi's version number.

use super::types::ErrorCode;

/// The HTTP status at the start of an errorMessage (`401 …` or `401: …`).
pub fn http_status(msg: &str) -> Option<u16> {
    let b = msg.as_bytes();
    if b.len() >= 3
        && b[..3].iter().all(u8::is_ascii_digit)
        && matches!(b.get(3), None | Some(b' ' | b':'))
    {
        msg[..3].parse().ok()
    } else {
        None
    }
}

/// The human part of an errorMessage: for `401: {"message":"…",…}` the inner message.
pub fn human_message(msg: &str) -> String {
    if let Some(status) = http_status(msg) {
        let rest = msg[3..].trim_start_matches(':').trim();
        if rest.starts_with('{')
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(rest)
            && let Some(m) = v.get("message").and_then(|m| m.as_str())
        {
            return format!("{status} {m}");
        }
    }
    msg.to_string()
}

/// Classify a provider/LLM failure reported in the stream.
pub fn classify_error_message(msg: &str) -> ErrorCode {
    let lower = msg.to_ascii_lowercase();
    if let Some(status) = http_status(msg) {
        return match status {
            401 | 403 => ErrorCode::AuthError,
            429 => ErrorCode::RateLimit,
            404 if lower.contains("model") => ErrorCode::UnknownModel,
            _ => ErrorCode::ProviderError,
        };
    }
    if lower.contains("no api key")
        || lower.contains("failed to resolve api key")
        || lower.contains("unauthorized")
    {
        ErrorCode::AuthError
    } else if lower.contains("rate limit") || lower.contains("too many requests") {
        ErrorCode::RateLimit
    } else {
        // Connection error., Request timed out., Provider finish_reason: content_filter,
        // Stream ended without finish_reason, terminated: …, overloaded, and the rest.
        ErrorCode::ProviderError
    }
}

/// A recognised failure of a pi process that never started the task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartupFailure {
    /// `Error: Unknown option(s): --a, --b`.
    UnknownOption(Vec<String>),
    /// `Error: Model "x" not found.`
    UnknownModel(String),
    /// `Error: Unknown provider "x".`
    UnknownProvider(String),
    /// `No API key found for x.` / `Failed to resolve API key`.
    MissingApiKey(String),
    /// EACCES / EPERM: the denied path when named.
    Permission(Option<String>),
    /// pi refused to read the prompt from stdin.
    StdinRejected(String),
    /// pi refused `--mode json`.
    JsonModeRejected(String),
    /// pi 1.6 on a Node older than 22.19.
    NodeTooOld(String),
    /// `--session`: the stored working directory is gone, or no such session.
    Session(String),
}

/// Recognise a startup failure from stderr. `None` when nothing known matched.
pub fn classify_startup(stderr: &str) -> Option<StartupFailure> {
    for line in stderr.lines() {
        let l = line.trim();
        if let Some(rest) = l
            .strip_prefix("Error: Unknown option: ")
            .or_else(|| l.strip_prefix("Error: Unknown options: "))
        {
            let opts: Vec<String> = rest
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            if opts.iter().any(|o| o == "--mode") {
                return Some(StartupFailure::JsonModeRejected(l.to_string()));
            }
            return Some(StartupFailure::UnknownOption(opts));
        }
        if l.starts_with("Error: Invalid mode") && l.contains("json") {
            return Some(StartupFailure::JsonModeRejected(l.to_string()));
        }
        let lower = l.to_ascii_lowercase();
        if (lower.contains("json mode") || lower.contains("--mode json"))
            && (lower.contains("not supported") || lower.contains("unsupported"))
        {
            return Some(StartupFailure::JsonModeRejected(l.to_string()));
        }
        if lower.contains("stdin")
            && (lower.contains("not supported")
                || lower.contains("unsupported")
                || lower.contains("rejected")
                || lower.contains("not accepted"))
        {
            return Some(StartupFailure::StdinRejected(l.to_string()));
        }
        if l.starts_with("Error: Model \"") && l.contains("not found") {
            return Some(StartupFailure::UnknownModel(quoted(l).unwrap_or_default()));
        }
        if l.starts_with("Error: Unknown provider") {
            return Some(StartupFailure::UnknownProvider(
                quoted(l).unwrap_or_default(),
            ));
        }
        if l.starts_with("No API key found") || l.starts_with("Failed to resolve API key") {
            return Some(StartupFailure::MissingApiKey(l.to_string()));
        }
        if l.contains("EACCES")
            || l.contains("EPERM")
            || lower.contains("permission denied")
            || lower.contains("operation not permitted")
        {
            return Some(StartupFailure::Permission(denied_path(l)));
        }
        if l.contains("does not provide an export named") || l.starts_with("SyntaxError") {
            return Some(StartupFailure::NodeTooOld(l.to_string()));
        }
        if l.starts_with("Stored session working directory does not exist")
            || l.starts_with("No session found matching")
        {
            return Some(StartupFailure::Session(l.to_string()));
        }
    }
    None
}

/// The first `"…"`-quoted word of a line.
fn quoted(l: &str) -> Option<String> {
    let start = l.find('"')? + 1;
    let end = l[start..].find('"')? + start;
    Some(l[start..end].to_string())
}

/// The path in `EACCES: permission denied, open '/x/y'` (also `mkdir`, `scandir`, …).
pub fn denied_path(line: &str) -> Option<String> {
    let start = line.rfind(", ").map(|i| i + 2).unwrap_or(0);
    let tail = &line[start..];
    let q = tail.find('\'')? + 1;
    let end = tail[q..].find('\'')? + q;
    Some(tail[q..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_generations_of_http_errors() {
        assert_eq!(
            classify_error_message("401 Incorrect API key provided: mock-key."),
            ErrorCode::AuthError
        );
        let v16 = r#"401: {"message":"Incorrect API key provided: mock-key.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}"#;
        assert_eq!(classify_error_message(v16), ErrorCode::AuthError);
        assert_eq!(
            human_message(v16),
            "401 Incorrect API key provided: mock-key."
        );
        assert_eq!(
            classify_error_message("429 Rate limit reached for mock-model."),
            ErrorCode::RateLimit
        );
        assert_eq!(
            classify_error_message(r#"429: {"message":"Rate limit"}"#),
            ErrorCode::RateLimit
        );
        assert_eq!(
            classify_error_message("500 status code (no body)"),
            ErrorCode::ProviderError
        );
        assert_eq!(
            classify_error_message("Connection error."),
            ErrorCode::ProviderError
        );
        assert_eq!(
            classify_error_message("Connection error.: connect ECONNREFUSED 127.0.0.1:9"),
            ErrorCode::ProviderError
        );
        assert_eq!(
            classify_error_message("Stream ended without finish_reason"),
            ErrorCode::ProviderError
        );
        assert_eq!(
            classify_error_message("terminated: Body Timeout Error (UND_ERR_BODY_TIMEOUT)"),
            ErrorCode::ProviderError
        );
        assert_eq!(
            classify_error_message("404 The model `nope` does not exist"),
            ErrorCode::UnknownModel
        );
        assert_eq!(
            classify_error_message("Provider finish_reason: content_filter"),
            ErrorCode::ProviderError
        );
    }

    #[test]
    fn startup_signatures() {
        assert_eq!(
            classify_startup("Error: Unknown options: --bogus-one, --bogus-two\n"),
            Some(StartupFailure::UnknownOption(vec![
                "--bogus-one".into(),
                "--bogus-two".into()
            ]))
        );
        assert_eq!(
            classify_startup(
                "Error: Model \"nope\" not found. Use --list-models to see available models.\n"
            ),
            Some(StartupFailure::UnknownModel("nope".into()))
        );
        assert!(matches!(
            classify_startup("No API key found for openai.\n\nUse /login"),
            Some(StartupFailure::MissingApiKey(_))
        ));
        assert_eq!(
            classify_startup(
                "Error: EACCES: permission denied, open '/home/u/.pi/agent/auth.json'"
            ),
            Some(StartupFailure::Permission(Some(
                "/home/u/.pi/agent/auth.json".into()
            )))
        );
        assert!(matches!(
            classify_startup("Error: Invalid mode \"json\". Valid values: text"),
            Some(StartupFailure::JsonModeRejected(_))
        ));
        assert!(matches!(
            classify_startup("Error: reading the prompt from stdin is not supported"),
            Some(StartupFailure::StdinRejected(_))
        ));
        assert_eq!(
            classify_startup(
                "Warning: Model \"nope\" not found for provider \"mock\". Using custom model id."
            ),
            None
        );
    }
}
