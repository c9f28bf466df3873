//! The worker's structured report: one JSON object between `---PI_TASK_REPORT---` and
//! `---END_PI_TASK_REPORT---` at the end of the final answer. The last block wins.
//! Nothing is invented: a missing or broken block leaves every field empty and
//! `reportParsed: false`.

use serde::Serialize;
use serde_json::Value;

pub(crate) const START: &str = "---PI_TASK_REPORT---";
pub(crate) const END: &str = "---END_PI_TASK_REPORT---";

/// The report fields, as the worker gave them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskReport {
    pub summary: Option<String>,
    pub changed_files: Vec<String>,
    pub validation: Vec<Value>,
    pub remaining_issue: Option<String>,
    pub decision_needed: Option<String>,
    pub write_scope: Vec<String>,
    pub scope_exceeded: Option<bool>,
    pub out_of_scope_findings: Vec<Value>,
}

/// Parse the last report block of `text`; `Err` says why there is none.
pub(crate) fn parse_report(text: &str) -> Result<TaskReport, String> {
    let Some(start) = text.rfind(START) else {
        return Err("the answer has no report block".into());
    };
    let body = &text[start + START.len()..];
    let Some(end) = body.find(END) else {
        return Err("the report block is not closed (truncated answer?)".into());
    };
    let mut inner = body[..end].trim();
    if let Some(rest) = inner.strip_prefix("```") {
        inner = rest
            .trim_start_matches(|c: char| c.is_ascii_alphanumeric())
            .trim();
        inner = inner.strip_suffix("```").unwrap_or(inner).trim();
    }
    let v: Value = serde_json::from_str(inner)
        .map_err(|e| format!("the report block is not valid JSON: {e}"))?;
    let Value::Object(m) = v else {
        return Err("the report block is not a JSON object".into());
    };
    let text_field = |k: &str| match m.get(k) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(Value::String(_)) => None,
        Some(other) => Some(other.to_string()),
    };
    let strings = |k: &str| match m.get(k) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| match x {
                Value::String(s) => Some(s.clone()),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .collect(),
        Some(Value::String(s)) if !s.trim().is_empty() => vec![s.clone()],
        _ => Vec::new(),
    };
    let values = |k: &str| match m.get(k) {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::Null) | None => Vec::new(),
        Some(Value::String(s)) if s.trim().is_empty() => Vec::new(),
        Some(other) => vec![other.clone()],
    };
    Ok(TaskReport {
        summary: text_field("summary"),
        changed_files: strings("changedFiles"),
        validation: values("validation"),
        remaining_issue: text_field("remainingIssue"),
        decision_needed: text_field("decisionNeeded"),
        write_scope: strings("writeScope"),
        scope_exceeded: m.get("scopeExceeded").and_then(Value::as_bool),
        out_of_scope_findings: values("outOfScopeFindings"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_block_wins() {
        let t = format!(
            "x\n{START}\n{{\"summary\":\"old\"}}\n{END}\nmore\n{START}\n```json\n{{\"summary\":\"done\",\"changedFiles\":[\"a.rs\"],\"validation\":[\"cargo test\"],\"remainingIssue\":null,\"decisionNeeded\":\"\",\"scopeExceeded\":false}}\n```\n{END}\n"
        );
        let r = parse_report(&t).unwrap();
        assert_eq!(r.summary.as_deref(), Some("done"));
        assert_eq!(r.changed_files, ["a.rs"]);
        assert_eq!(r.decision_needed, None);
        assert_eq!(r.scope_exceeded, Some(false));
    }

    #[test]
    fn missing_or_truncated_blocks_are_not_reports() {
        assert!(parse_report("all done").is_err());
        assert!(parse_report(&format!("{START}\n{{\"summary\":\"x\"")).is_err());
        assert!(parse_report(&format!("{START}\nnot json\n{END}")).is_err());
    }
}
