//! The seed-000 wire types: `DelegationRequest` in, `DelegationResult` out.
//!
//! A request is validated as a whole before anything runs: every problem makes
//! the request *refused* (with the reason), so a host can fall back inline. Only
//! input that is not a JSON object at all is a usage error.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

/// The five logical roles of the provider contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum LogicalRole {
    #[serde(rename = "pwk-recon-scout")]
    ReconScout,
    #[serde(rename = "pwk-spec-reviewer")]
    SpecReviewer,
    #[serde(rename = "pwk-tracing-reviewer")]
    TracingReviewer,
    #[serde(rename = "pwk-smell-reviewer")]
    SmellReviewer,
    #[serde(rename = "pwk-hazard-reviewer")]
    HazardReviewer,
}

impl LogicalRole {
    pub const ALL: [LogicalRole; 5] = [
        LogicalRole::ReconScout,
        LogicalRole::SpecReviewer,
        LogicalRole::TracingReviewer,
        LogicalRole::SmellReviewer,
        LogicalRole::HazardReviewer,
    ];

    pub const REVIEWERS: [LogicalRole; 4] = [
        LogicalRole::SpecReviewer,
        LogicalRole::TracingReviewer,
        LogicalRole::SmellReviewer,
        LogicalRole::HazardReviewer,
    ];

    /// The role name, as in requests and role files.
    pub fn name(self) -> &'static str {
        match self {
            LogicalRole::ReconScout => "pwk-recon-scout",
            LogicalRole::SpecReviewer => "pwk-spec-reviewer",
            LogicalRole::TracingReviewer => "pwk-tracing-reviewer",
            LogicalRole::SmellReviewer => "pwk-smell-reviewer",
            LogicalRole::HazardReviewer => "pwk-hazard-reviewer",
        }
    }

    /// The short name people type: `scout`, `spec`, `tracing`, `smell`, `hazard`.
    pub fn short(self) -> &'static str {
        match self {
            LogicalRole::ReconScout => "scout",
            LogicalRole::SpecReviewer => "spec",
            LogicalRole::TracingReviewer => "tracing",
            LogicalRole::SmellReviewer => "smell",
            LogicalRole::HazardReviewer => "hazard",
        }
    }

    pub fn from_name(name: &str) -> Option<LogicalRole> {
        LogicalRole::ALL.into_iter().find(|r| r.name() == name)
    }

    /// A full role name or a short name (`spec` → `pwk-spec-reviewer`).
    pub fn from_name_or_short(name: &str) -> Option<LogicalRole> {
        let name = name.trim();
        LogicalRole::ALL
            .into_iter()
            .find(|r| r.name() == name || r.short() == name)
    }

    pub fn is_reviewer(self) -> bool {
        self != LogicalRole::ReconScout
    }
}

impl std::fmt::Display for LogicalRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The two logical operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Operation {
    #[serde(rename = "codebase-recon")]
    CodebaseRecon,
    #[serde(rename = "feature-review")]
    FeatureReview,
}

impl Operation {
    pub fn name(self) -> &'static str {
        match self {
            Operation::CodebaseRecon => "codebase-recon",
            Operation::FeatureReview => "feature-review",
        }
    }
}

/// A validated `DelegationRequest`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DelegationRequest {
    pub operation: Operation,
    /// The requested roles, in request order, without duplicates.
    pub roles: Vec<LogicalRole>,
    pub prompt: String,
    /// The repository root, absolute and an existing directory.
    pub cwd: PathBuf,
    /// `constraints.parallel`.
    pub parallel: bool,
    /// `budget`: the spend limits of each role's run.
    pub budget: crate::delegate::Budget,
    /// `roleBudgets`: one role's limits, beating `budget` limit by limit.
    pub role_budgets: Vec<(LogicalRole, crate::delegate::Budget)>,
}

impl DelegationRequest {
    /// The limits of `role`'s run: its own, then the request's.
    pub(crate) fn budget_of(&self, role: LogicalRole) -> crate::delegate::Budget {
        self.role_budgets
            .iter()
            .find(|(r, _)| *r == role)
            .map_or(self.budget, |(_, b)| b.or(self.budget))
    }
}

/// Why a request that parsed as JSON cannot be run. The host falls back inline.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Refusal {
    pub reason: String,
    /// The role names the request asked for (strings only), for the coverage block.
    pub requested: Vec<String>,
}

/// Input that is not a JSON object at all (exit 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RequestSyntaxError {
    /// Not JSON, or a duplicate key (the message has no position; see [`Self::pos`]).
    #[error("{0}")]
    NotJson(JsonError),
    #[error("stdin is JSON but not an object (found {0}); a DelegationRequest is a JSON object")]
    NotObject(&'static str),
}

/// Parse stdin bytes: a syntax error is `Err`, anything else is a `Value` object.
pub(crate) fn parse_json_object(
    bytes: &[u8],
) -> Result<serde_json::Map<String, Value>, RequestSyntaxError> {
    let value = crate::json::parse_strict(bytes).map_err(RequestSyntaxError::NotJson)?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(RequestSyntaxError::NotObject(json_kind(&other))),
    }
}

impl RequestSyntaxError {
    /// Where in stdin the problem is, when it has a place.
    pub(crate) fn pos(&self) -> Option<crate::json::Pos> {
        match self {
            RequestSyntaxError::NotJson(e) => Some(e.pos()),
            RequestSyntaxError::NotObject(_) => None,
        }
    }
}

use crate::json::JsonError;
use crate::json::json_kind;

/// Validate a request object. Every problem is collected; the refusal reason lists them all.
pub(crate) fn validate(map: &serde_json::Map<String, Value>) -> Result<DelegationRequest, Refusal> {
    let mut problems: Vec<String> = Vec::new();
    let requested: Vec<String> = match map.get("roles") {
        Some(Value::Array(items)) => {
            let mut names: Vec<String> = Vec::new();
            for name in items.iter().filter_map(Value::as_str) {
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_string());
                }
            }
            names
        }
        _ => Vec::new(),
    };

    let operation = match map.get("operation") {
        Some(Value::String(s)) if s == "codebase-recon" => Some(Operation::CodebaseRecon),
        Some(Value::String(s)) if s == "feature-review" => Some(Operation::FeatureReview),
        Some(Value::String(s)) => {
            problems.push(format!(
                "operation {s:?} is not supported (expected \"codebase-recon\" or \"feature-review\")"
            ));
            None
        }
        Some(v) => {
            problems.push(format!(
                "operation must be a string, found {}",
                json_kind(v)
            ));
            None
        }
        None => {
            problems.push("operation is missing".to_string());
            None
        }
    };

    let mut roles: Vec<LogicalRole> = Vec::new();
    match map.get("roles") {
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                match item.as_str() {
                    Some(name) => match LogicalRole::from_name(name) {
                        Some(role) if roles.contains(&role) => {
                            problems.push(format!("roles[{i}]: {name} is listed twice"))
                        }
                        Some(role) => roles.push(role),
                        None => problems.push(format!(
                            "roles[{i}]: {name:?} is not a logical PWK role (expected one of {})",
                            LogicalRole::ALL.map(LogicalRole::name).join(", ")
                        )),
                    },
                    None => problems.push(format!(
                        "roles[{i}] must be a string, found {}",
                        json_kind(item)
                    )),
                }
            }
        }
        Some(v) => problems.push(format!("roles must be an array, found {}", json_kind(v))),
        None => problems.push("roles is missing".to_string()),
    }
    if let Some(op) = operation {
        problems.extend(check_roles_fit(
            op,
            &roles,
            map.get("roles").is_some_and(Value::is_array),
        ));
    }

    let prompt = match map.get("prompt") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::String(_)) => {
            problems.push("prompt is empty".to_string());
            None
        }
        Some(v) => {
            problems.push(format!("prompt must be a string, found {}", json_kind(v)));
            None
        }
        None => {
            problems.push("prompt is missing".to_string());
            None
        }
    };

    let cwd = match map.get("cwd") {
        Some(Value::String(s)) => match check_cwd(Path::new(s)) {
            Ok(p) => Some(p),
            Err(e) => {
                problems.push(e);
                None
            }
        },
        Some(v) => {
            problems.push(format!("cwd must be a string, found {}", json_kind(v)));
            None
        }
        None => {
            problems.push("cwd is missing (the repository root, an absolute path)".to_string());
            None
        }
    };

    let parallel = match map.get("constraints") {
        Some(Value::Object(c)) => check_constraints(c, &mut problems),
        Some(v) => {
            problems.push(format!(
                "constraints must be an object, found {}",
                json_kind(v)
            ));
            None
        }
        None => {
            problems.push(
                "constraints is missing (readOnly, freshContext and bounded must be true; parallel a boolean)"
                    .to_string(),
            );
            None
        }
    };

    let (budget, role_budgets) = match check_budgets(map, &roles) {
        Ok(b) => b,
        Err(found) => {
            problems.extend(found);
            Default::default()
        }
    };

    match (operation, prompt, cwd, parallel) {
        (Some(operation), Some(prompt), Some(cwd), Some(parallel)) if problems.is_empty() => {
            Ok(DelegationRequest {
                operation,
                roles,
                prompt,
                cwd,
                parallel,
                budget,
                role_budgets,
            })
        }
        _ => Err(Refusal {
            reason: problems.join("; "),
            requested,
        }),
    }
}

/// `budget` (each role's run) and `roleBudgets` (`{"pwk-hazard-reviewer": {...}}`,
/// one role's own limits): every problem, each naming its field
/// (`roleBudgets.pwk-spec-reviewer.maxTokens`).
/// `pwk mcp`'s `review` and `recon` take the same two fields.
pub(crate) type Budgets = (
    crate::delegate::Budget,
    Vec<(LogicalRole, crate::delegate::Budget)>,
);

pub(crate) fn check_budgets(
    map: &serde_json::Map<String, Value>,
    roles: &[LogicalRole],
) -> Result<Budgets, Vec<String>> {
    use crate::delegate::Budget;
    let mut problems = Vec::new();
    let parse = |v: &Value, field: &str, problems: &mut Vec<String>| match Budget::parse(v, field) {
        Ok(b) => b,
        Err(found) => {
            problems.extend(found.into_iter().map(|(_, m)| m));
            Budget::default()
        }
    };
    let budget = match map.get("budget") {
        None | Some(Value::Null) => Budget::default(),
        Some(v) => parse(v, "budget", &mut problems),
    };
    let mut per_role = Vec::new();
    match map.get("roleBudgets") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            for (name, v) in m {
                let field = format!("roleBudgets.{name}");
                match LogicalRole::from_name(name) {
                    Some(r) if roles.contains(&r) => {
                        let b = parse(v, &field, &mut problems);
                        per_role.push((r, b));
                    }
                    Some(_) => problems.push(format!(
                        "`{field}`: {name} is not one of the request's roles"
                    )),
                    None => problems.push(format!(
                        "`{field}`: {name:?} is not a logical PWK role (expected one of {})",
                        LogicalRole::ALL.map(LogicalRole::name).join(", ")
                    )),
                }
            }
        }
        Some(v) => problems.push(format!(
            "roleBudgets must be an object of role name → budget, found {}",
            json_kind(v)
        )),
    }
    if problems.is_empty() {
        Ok((budget, per_role))
    } else {
        Err(problems)
    }
}

/// Which roles an operation takes. `roles_present` avoids a second message when
/// `roles` itself was missing or malformed.
pub(crate) fn check_roles_fit(
    op: Operation,
    roles: &[LogicalRole],
    roles_present: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    if !roles_present {
        return problems;
    }
    match op {
        Operation::CodebaseRecon => {
            if roles != [LogicalRole::ReconScout] {
                problems.push(format!(
                    "codebase-recon runs exactly one role, [\"pwk-recon-scout\"]; got [{}]",
                    roles
                        .iter()
                        .map(|r| format!("{:?}", r.name()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        Operation::FeatureReview => {
            if roles.contains(&LogicalRole::ReconScout) {
                problems.push(
                    "feature-review takes reviewer roles only; pwk-recon-scout belongs to codebase-recon".to_string(),
                );
            }
            if roles.is_empty() {
                problems.push("feature-review needs at least one reviewer role".to_string());
            }
        }
    }
    problems
}

fn check_cwd(p: &Path) -> Result<PathBuf, String> {
    if p.as_os_str().is_empty() {
        return Err("cwd is empty".to_string());
    }
    if !p.is_absolute() {
        return Err(format!(
            "cwd {:?} is not absolute; send the repository root as an absolute path",
            p.display().to_string()
        ));
    }
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => Ok(p.to_path_buf()),
        Ok(_) => Err(format!("cwd {} is not a directory", p.display())),
        Err(e) => Err(format!("cwd {} cannot be used: {e}", p.display())),
    }
}

fn check_constraints(
    c: &serde_json::Map<String, Value>,
    problems: &mut Vec<String>,
) -> Option<bool> {
    for (key, what) in [
        ("readOnly", "pwk runs delegated roles read-only only"),
        (
            "freshContext",
            "pwk starts every role in a fresh pi session",
        ),
        (
            "bounded",
            "pwk always bounds roles by a timeout and a turn budget",
        ),
    ] {
        match c.get(key) {
            Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => problems.push(format!(
                "constraints.{key} is false, which pwk cannot satisfy ({what})"
            )),
            Some(v) => problems.push(format!(
                "constraints.{key} must be true, found {}",
                json_kind(v)
            )),
            None => problems.push(format!("constraints.{key} is missing (must be true)")),
        }
    }
    match c.get("parallel") {
        Some(Value::Bool(b)) => Some(*b),
        Some(v) => {
            problems.push(format!(
                "constraints.parallel must be a boolean, found {}",
                json_kind(v)
            ));
            None
        }
        None => {
            problems.push("constraints.parallel is missing (a boolean)".to_string());
            None
        }
    }
}

/// The seed's `DelegationStatus`, with its spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Completed,
    Failed,
    TimedOut,
    Skipped,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::TimedOut => "timed-out",
            Status::Skipped => "skipped",
        }
    }
}

/// One normalized outcome (seed 000 `DelegationResult`), plus pwk's optional extras.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DelegationResult {
    pub role: LogicalRole,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub provider: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// How the role was run: tools cut, model hint fallback, turn budget, fallback text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// `provider/model` pi reported for the run, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turns: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<u32>,
    /// Of `toolCalls`, those that failed (pi's `isError`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls_failed: Option<u32>,
    /// Tokens and cost pi reported for the role's run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::delegate::Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

impl DelegationResult {
    pub fn new(role: LogicalRole, status: Status) -> DelegationResult {
        DelegationResult {
            role,
            status,
            report: None,
            error: None,
            provider: "pwk",
            run_id: None,
            notes: Vec::new(),
            model: None,
            turns: None,
            tool_calls: None,
            tool_calls_failed: None,
            usage: None,
            duration_ms: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(v: Value) -> Result<DelegationRequest, Refusal> {
        validate(v.as_object().unwrap())
    }

    fn good(dir: &str) -> Value {
        json!({
            "operation": "feature-review",
            "roles": ["pwk-spec-reviewer", "pwk-hazard-reviewer"],
            "prompt": "Review the packet.",
            "cwd": dir,
            "constraints": {"readOnly": true, "freshContext": true, "parallel": true, "bounded": true}
        })
    }

    fn tmp() -> String {
        std::env::temp_dir().display().to_string()
    }

    #[test]
    fn a_valid_review_request_keeps_role_order() {
        let r = req(good(&tmp())).unwrap();
        assert_eq!(r.operation, Operation::FeatureReview);
        assert_eq!(
            r.roles,
            [LogicalRole::SpecReviewer, LogicalRole::HazardReviewer]
        );
        assert!(r.parallel);
    }

    #[test]
    fn recon_takes_exactly_the_scout() {
        let mut v = good(&tmp());
        v["operation"] = json!("codebase-recon");
        v["roles"] = json!(["pwk-recon-scout"]);
        assert_eq!(req(v.clone()).unwrap().roles, [LogicalRole::ReconScout]);
        v["roles"] = json!(["pwk-recon-scout", "pwk-spec-reviewer"]);
        let e = req(v.clone()).unwrap_err();
        assert!(e.reason.contains("exactly one role"), "{}", e.reason);
        v["roles"] = json!([]);
        assert!(req(v).is_err());
    }

    #[test]
    fn review_refuses_scout_empty_duplicates_and_unknown_roles() {
        let mut v = good(&tmp());
        v["roles"] = json!(["pwk-recon-scout"]);
        assert!(
            req(v.clone())
                .unwrap_err()
                .reason
                .contains("reviewer roles only")
        );
        v["roles"] = json!([]);
        assert!(req(v.clone()).unwrap_err().reason.contains("at least one"));
        v["roles"] = json!(["pwk-spec-reviewer", "pwk-spec-reviewer"]);
        assert!(req(v.clone()).unwrap_err().reason.contains("listed twice"));
        v["roles"] = json!(["pwk-typo-reviewer", 3]);
        let e = req(v).unwrap_err();
        assert!(
            e.reason
                .contains("\"pwk-typo-reviewer\" is not a logical PWK role"),
            "{}",
            e.reason
        );
        assert!(
            e.reason.contains("roles[1] must be a string"),
            "{}",
            e.reason
        );
        assert_eq!(e.requested, ["pwk-typo-reviewer"]);
    }

    #[test]
    fn constraints_must_be_satisfiable() {
        for key in ["readOnly", "freshContext", "bounded"] {
            let mut v = good(&tmp());
            v["constraints"][key] = json!(false);
            let e = req(v.clone()).unwrap_err();
            assert!(
                e.reason.contains(&format!("constraints.{key} is false")),
                "{}",
                e.reason
            );
            v["constraints"].as_object_mut().unwrap().remove(key);
            assert!(req(v).unwrap_err().reason.contains("is missing"));
        }
        let mut v = good(&tmp());
        v["constraints"]["parallel"] = json!("yes");
        assert!(
            req(v.clone())
                .unwrap_err()
                .reason
                .contains("parallel must be a boolean")
        );
        v["constraints"] = json!(null);
        assert!(
            req(v)
                .unwrap_err()
                .reason
                .contains("constraints must be an object")
        );
    }

    #[test]
    fn cwd_must_be_an_absolute_existing_directory_and_prompt_non_empty() {
        let mut v = good("relative/dir");
        assert!(req(v.clone()).unwrap_err().reason.contains("not absolute"));
        v["cwd"] = json!("/definitely/not/here/pwk");
        assert!(
            req(v.clone())
                .unwrap_err()
                .reason
                .contains("cannot be used")
        );
        v["cwd"] = json!(tmp());
        v["prompt"] = json!("  \n");
        assert!(req(v).unwrap_err().reason.contains("prompt is empty"));
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let e = req(json!({"operation": "deploy"})).unwrap_err();
        for part in [
            "operation \"deploy\"",
            "roles is missing",
            "prompt is missing",
            "cwd is missing",
            "constraints is missing",
        ] {
            assert!(e.reason.contains(part), "{part} in {}", e.reason);
        }
    }

    #[test]
    fn syntax_errors_are_located() {
        let e = parse_json_object(b"{\n  \"a\": ").unwrap_err();
        assert_eq!(e.pos().map(|p| p.line), Some(2), "{e}");
        assert!(
            !e.to_string().contains("line"),
            "the position is said once: {e}"
        );
        assert!(matches!(
            parse_json_object(b"[1]"),
            Err(RequestSyntaxError::NotObject("an array"))
        ));
    }

    #[test]
    fn statuses_use_the_seed_spelling() {
        assert_eq!(
            serde_json::to_string(&Status::TimedOut).unwrap(),
            "\"timed-out\""
        );
        let r = DelegationResult::new(LogicalRole::HazardReviewer, Status::Skipped);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            json!({"role": "pwk-hazard-reviewer", "status": "skipped", "provider": "pwk"})
        );
    }
}
