//! The delegate request: parsing (exit 2 only when it is not a JSON object) and the
//! atomic-task contract (seed 002). A request that is JSON but incomplete, vague or
//! contradictory is refused with every problem found and one decision the supervisor
//! must make, before anything is launched.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::json::json_kind;

/// Why the input is not a request at all (exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RequestError {
    /// Not JSON, or JSON with a duplicate key (located; the message has no position).
    #[error("{0}")]
    Json(#[from] JsonError),
    #[error("the request must be a JSON object, not {0}")]
    NotObject(&'static str),
}

impl RequestError {
    /// Where in the input the problem is, when it has a place.
    pub(crate) fn pos(&self) -> Option<Pos> {
        match self {
            RequestError::Json(e) => Some(e.pos()),
            RequestError::NotObject(_) => None,
        }
    }
}

pub(crate) use crate::json::{JsonError, Pos};

/// Parse the request into a JSON object (strictly: no duplicate keys).
pub(crate) fn parse(bytes: &[u8]) -> Result<Map<String, Value>, RequestError> {
    match crate::json::parse_strict(bytes)? {
        Value::Object(m) => Ok(m),
        other => Err(RequestError::NotObject(json_kind(&other))),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Delegate,
    Continue,
}

/// Which tools pi gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// `read,grep,find,ls`: pure reads, enforced by pi's tool allow-list.
    Readonly,
    /// pi's default tools (`read,bash,edit,write`).
    Implementation,
    /// `read,grep,find,ls,bash`: run checks, no edit/write tools.
    Verification,
}

impl Profile {
    /// The `--tools` list, `None` for pi's defaults.
    pub fn tools(self) -> Option<Vec<String>> {
        let list: &[&str] = match self {
            Profile::Readonly => &["read", "grep", "find", "ls"],
            Profile::Verification => &["read", "grep", "find", "ls", "bash"],
            Profile::Implementation => return None,
        };
        Some(list.iter().map(|s| s.to_string()).collect())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteMode {
    Direct,
    Isolated,
}

/// A validated task.
#[derive(Debug, Clone)]
pub(crate) struct TaskRequest {
    pub action: Action,
    pub task_id: String,
    pub cwd: PathBuf,
    pub objective: String,
    pub scope: Vec<String>,
    pub constraints: Vec<String>,
    pub acceptance: Vec<String>,
    pub profile: Profile,
    pub write_mode: Option<WriteMode>,
    /// Legacy v1 `workspaceMode` (`existing` | `delegated`).
    pub workspace_mode: Option<String>,
    pub allowed_write_scope: Vec<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub thinking: Option<String>,
    pub timeout: Option<Duration>,
    pub stall_timeout: Option<Duration>,
    pub session_file: Option<PathBuf>,
    /// `budget: {maxTokens, maxCostUsd, maxWallSeconds}`.
    pub budget: super::budget::Budget,
}

impl TaskRequest {
    /// Whether pi may change files in the cwd (takes the cwd's write lock).
    pub(crate) fn writes(&self) -> bool {
        self.profile == Profile::Implementation
    }
}

/// One problem with a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

/// A refused request: every problem, and what the supervisor must decide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub problems: Vec<Problem>,
    pub decision_needed: String,
}

pub(crate) use crate::role::thinking::LEVELS as THINKING_LEVELS;
const MIN_OBJECTIVE_CHARS: usize = 12;
const VAGUE: [&str; 22] = [
    "fix it",
    "fix this",
    "fix that",
    "fix everything",
    "fix the bug",
    "fix bugs",
    "fix the bugs",
    "make it work",
    "make it better",
    "make it good",
    "do it",
    "do everything",
    "improve it",
    "improve the code",
    "improve things",
    "clean up",
    "clean it up",
    "refactor",
    "refactor it",
    "refactor everything",
    "look into it",
    "handle it",
];
const TOO_BROAD: [&str; 14] = [
    "entire codebase",
    "whole codebase",
    "entire code base",
    "whole code base",
    "entire repo",
    "whole repo",
    "entire repository",
    "whole repository",
    "entire project",
    "whole project",
    "all files",
    "every file",
    "all the code",
    "all code",
];

/// Why an objective is not one concrete, bounded outcome; `None` when it is.
pub(crate) fn objective_problem(objective: &str) -> Option<String> {
    let t = objective.trim();
    if t.chars().count() < MIN_OBJECTIVE_CHARS {
        return Some(format!(
            "the objective {t:?} is too short to name a concrete outcome (at least {MIN_OBJECTIVE_CHARS} characters)"
        ));
    }
    let norm: String = t
        .to_lowercase()
        .trim_end_matches(['.', '!', '?', ' '])
        .to_string();
    let norm = norm.split_whitespace().collect::<Vec<_>>().join(" ");
    if VAGUE.contains(&norm.as_str()) {
        return Some(format!(
            "the objective {t:?} is vague: it does not say what outcome is wanted, or where"
        ));
    }
    if let Some(b) = TOO_BROAD.iter().find(|b| norm.contains(*b)) {
        return Some(format!(
            "the objective covers \"{b}\": an atomic task names a bounded area"
        ));
    }
    if norm == "everything"
        || norm
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == "everything")
    {
        return Some(
            "the objective covers \"everything\": an atomic task names a bounded area".to_string(),
        );
    }
    let items = t
        .lines()
        .map(str::trim_start)
        .filter(|l| {
            l.starts_with("- ")
                || l.starts_with("* ")
                || l.starts_with("• ")
                || l.split_once(['.', ')']).is_some_and(|(n, rest)| {
                    !n.is_empty()
                        && n.len() <= 3
                        && n.chars().all(|c| c.is_ascii_digit())
                        && rest.starts_with(' ')
                })
        })
        .count();
    if items >= 2 {
        return Some(format!(
            "the objective lists {items} separate items: one task has one objective (split it into several tasks)"
        ));
    }
    for joiner in [
        " and also ",
        "; also ",
        ". also,",
        ". also ",
        " as well as fix",
        "additionally,",
    ] {
        if norm.contains(joiner) {
            return Some(format!(
                "the objective joins several objectives (\"{}\"): one task has one objective (split it)",
                joiner.trim()
            ));
        }
    }
    None
}

struct Checker<'a> {
    map: &'a Map<String, Value>,
    problems: Vec<Problem>,
    decisions: Vec<String>,
}

impl<'a> Checker<'a> {
    fn problem(&mut self, field: &str, message: impl Into<String>, decision: impl Into<String>) {
        self.problems.push(Problem {
            field: field.to_string(),
            message: message.into(),
        });
        let d = decision.into();
        if !self.decisions.contains(&d) {
            self.decisions.push(d);
        }
    }

    fn string(&mut self, field: &str) -> Option<String> {
        match self.map.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => {
                self.problem(
                    field,
                    format!("`{field}` is empty"),
                    format!("Provide `{field}`."),
                );
                None
            }
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.problem(
                    field,
                    format!("`{field}` must be a string, not {}", json_kind(other)),
                    format!("Provide `{field}` as a string."),
                );
                None
            }
        }
    }

    fn bool_true(&self, field: &str) -> bool {
        self.map.get(field) == Some(&Value::Bool(true))
    }

    /// A string or an array of non-empty strings.
    fn list(&mut self, field: &str, allow_string: bool) -> Option<Vec<String>> {
        match self.map.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if allow_string => Some(if s.trim().is_empty() {
                vec![]
            } else {
                vec![s.clone()]
            }),
            Some(Value::Array(items)) => {
                let mut out = Vec::new();
                for (i, v) in items.iter().enumerate() {
                    match v {
                        Value::String(s) if !s.trim().is_empty() => out.push(s.clone()),
                        Value::String(_) => {}
                        other => {
                            self.problem(
                                field,
                                format!(
                                    "`{field}[{i}]` must be a string, not {}",
                                    json_kind(other)
                                ),
                                format!("Provide `{field}` as an array of strings."),
                            );
                            return None;
                        }
                    }
                }
                Some(out)
            }
            Some(other) => {
                let want = if allow_string {
                    "a string or an array of strings"
                } else {
                    "an array of strings"
                };
                self.problem(
                    field,
                    format!("`{field}` must be {want}, not {}", json_kind(other)),
                    format!("Provide `{field}` as {want}."),
                );
                None
            }
        }
    }

    fn millis(&mut self, field: &str) -> Option<Duration> {
        match self.map.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.as_u64().is_some_and(|v| v > 0 && v <= 86_400_000) => {
                Some(Duration::from_millis(n.as_u64().unwrap_or(0)))
            }
            Some(other) => {
                self.problem(
                    field,
                    format!("`{field}` must be a positive whole number of milliseconds up to 24 h, not {other}"),
                    format!("Give `{field}` in milliseconds (e.g. 600000 for 10 minutes)."),
                );
                None
            }
        }
    }
}

/// Check a request against the atomic-task contract.
pub(crate) fn validate(map: &Map<String, Value>) -> Result<TaskRequest, Refusal> {
    let mut c = Checker {
        map,
        problems: Vec::new(),
        decisions: Vec::new(),
    };
    let action = match c.string("action").as_deref() {
        Some("delegate") => Some(Action::Delegate),
        Some("continue") => Some(Action::Continue),
        Some(other) => {
            c.problem(
                "action",
                format!("unknown action {other:?}"),
                "Set `action` to \"delegate\" or \"continue\".",
            );
            None
        }
        None => {
            c.problem(
                "action",
                "`action` is missing",
                "Set `action` to \"delegate\" or \"continue\".",
            );
            None
        }
    };
    let task_id = c.string("taskId");
    match &task_id {
        None if !map.contains_key("taskId") || map["taskId"].is_null() => c.problem(
            "taskId",
            "`taskId` is missing",
            "Give the task a unique `taskId`.",
        ),
        Some(id)
            if id.chars().count() > 128
                || id
                    .chars()
                    .any(|ch| ch.is_control() || ch == '/' || ch == '\\') =>
        {
            c.problem(
                "taskId",
                "`taskId` must be at most 128 characters, without control characters or slashes",
                "Give the task a short `taskId` (letters, digits, `-`, `_`, `.`).",
            )
        }
        _ => {}
    }
    let cwd = c.string("cwd").map(PathBuf::from);
    match &cwd {
        None => c.problem(
            "cwd",
            "`cwd` is missing",
            "Give the absolute path of the existing workspace as `cwd`.",
        ),
        Some(p) if !p.is_absolute() => c.problem(
            "cwd",
            format!("`cwd` must be an absolute path, not {}", p.display()),
            "Give the absolute path of the existing workspace as `cwd`.",
        ),
        Some(p) if !p.is_dir() => c.problem(
            "cwd",
            format!("`cwd` {} is not an existing directory", p.display()),
            "Give the absolute path of the existing workspace as `cwd`.",
        ),
        _ => {}
    }
    let objective = c.string("objective").or_else(|| c.string("prompt"));
    match &objective {
        None => c.problem(
            "objective",
            "`objective` is missing",
            "State one concrete, bounded outcome as `objective`.",
        ),
        Some(o) => {
            if let Some(why) = objective_problem(o) {
                c.problem(
                    "objective",
                    why,
                    "Restate the objective as one concrete, bounded outcome in a named area (e.g. \"Add a guard that rejects expired refresh tokens in src/auth/refresh.ts\"), or split it into several tasks.",
                );
            }
        }
    }
    let is_delegate = action != Some(Action::Continue);
    let scope = c.list("scope", true);
    let constraints = c.list("constraints", false);
    let acceptance = c.list("acceptance", false);
    if is_delegate {
        if scope.as_ref().is_none_or(Vec::is_empty) {
            c.problem(
                "scope",
                "`scope` is missing or empty",
                "Name the files, modules or areas in play as `scope`.",
            );
        }
        if constraints.is_none() && !matches!(map.get("constraints"), Some(Value::Array(_))) {
            c.problem(
                "constraints",
                "`constraints` is missing (an empty array is allowed)",
                "Give `constraints` as an array (it may be empty).",
            );
        }
        if acceptance.as_ref().is_none_or(Vec::is_empty) {
            c.problem(
                "acceptance",
                "`acceptance` is missing or empty",
                "List the acceptance criteria that show the task is done as `acceptance`.",
            );
        }
    }
    let profile = match c.string("profile").as_deref() {
        None => Profile::Implementation,
        Some("readonly") => Profile::Readonly,
        Some("implementation") => Profile::Implementation,
        Some("verification") => Profile::Verification,
        Some(other) => {
            c.problem(
                "profile",
                format!("unknown profile {other:?}"),
                "Set `profile` to readonly, implementation or verification.",
            );
            Profile::Implementation
        }
    };
    let write_mode = match c.string("writeMode").as_deref() {
        None => None,
        Some("direct") => Some(WriteMode::Direct),
        Some("isolated") => Some(WriteMode::Isolated),
        Some(other) => {
            c.problem(
                "writeMode",
                format!("unknown writeMode {other:?}"),
                "Set `writeMode` to direct or isolated.",
            );
            None
        }
    };
    let workspace_mode = c.string("workspaceMode");
    if let Some(w) = &workspace_mode
        && w != "existing"
        && w != "delegated"
    {
        c.problem(
            "workspaceMode",
            format!("unknown workspaceMode {w:?}"),
            "Use `writeMode` (direct|isolated); legacy `workspaceMode` accepts existing or delegated.",
        );
    }
    let allowed_write_scope = c.list("allowedWriteScope", true).unwrap_or_default();
    if map.get("writeMode").is_some_and(|v| !v.is_null()) && workspace_mode.is_some() {
        c.problem(
            "workspaceMode",
            "legacy `workspaceMode` cannot be combined with `writeMode`",
            "Drop the legacy `workspaceMode` and keep `writeMode`.",
        );
    }
    if profile == Profile::Readonly && write_mode.is_some() {
        c.problem(
            "writeMode",
            "profile readonly cannot write, but `writeMode` is set",
            "Decide whether the task writes: drop `writeMode` for a pure read, or use profile implementation.",
        );
    }
    if let Some(wm) = write_mode {
        if allowed_write_scope.is_empty() {
            c.problem(
                "allowedWriteScope",
                "a write task needs a non-empty `allowedWriteScope`",
                "List the paths pi may change as `allowedWriteScope`.",
            );
        }
        if wm == WriteMode::Direct {
            for f in ["workspaceStateKnown", "writeAuthorization"] {
                if !c.bool_true(f) {
                    c.problem(
                        f,
                        format!("writeMode direct requires `{f}: true`"),
                        "Confirm you know the workspace state and authorise direct writes (`workspaceStateKnown: true`, `writeAuthorization: true`), or use writeMode isolated in a worktree you supply.",
                    );
                }
            }
        }
    } else if profile == Profile::Implementation && workspace_mode.is_none() && is_delegate {
        c.problem(
            "writeMode",
            "profile implementation may write files, but no `writeMode` was given",
            "Decide how pi may write: writeMode direct (with workspaceStateKnown, writeAuthorization and allowedWriteScope) or isolated (with allowedWriteScope); or use profile readonly for a pure read.",
        );
    }
    let provider = c.string("provider");
    let model = c.string("model");
    if provider.is_some() != model.is_some() {
        c.problem(
            if provider.is_some() { "model" } else { "provider" },
            "`provider` and `model` must be given together, or neither (then pi uses its configured default)",
            "Give both `provider` and `model`, or neither.",
        );
    }
    let thinking = c.string("thinking");
    if let Some(t) = &thinking
        && !THINKING_LEVELS.contains(&t.as_str())
    {
        c.problem(
            "thinking",
            format!(
                "unknown thinking level {t:?} (one of {})",
                THINKING_LEVELS.join(", ")
            ),
            format!("Set `thinking` to one of {}.", THINKING_LEVELS.join(", ")),
        );
    }
    let timeout = c.millis("timeoutMs");
    let stall_timeout = c.millis("stallTimeoutMs");
    let budget = match map.get("budget") {
        None | Some(Value::Null) => super::budget::Budget::default(),
        Some(v) => match super::budget::Budget::parse(v, "budget") {
            Ok(b) => b,
            Err(problems) => {
                for (field, message) in problems {
                    c.problem(
                        &field,
                        message,
                        "Give `budget` as {\"maxTokens\": N, \"maxCostUsd\": X, \"maxWallSeconds\": S} (each optional).",
                    );
                }
                super::budget::Budget::default()
            }
        },
    };
    let session_file = c.string("sessionFile").map(PathBuf::from);
    if action == Some(Action::Continue) {
        match &session_file {
            None => c.problem(
                "sessionFile",
                "a continuation needs the exact `sessionFile` of the earlier result (a sessionId alone is not enough)",
                "Pass the `sessionFile` from the earlier result to continue, or start a new task with action delegate.",
            ),
            Some(p) if !p.is_absolute() => c.problem(
                "sessionFile",
                format!("`sessionFile` must be an absolute path, not {}", p.display()),
                "Pass the exact absolute `sessionFile` from the earlier result.",
            ),
            _ => {}
        }
    }
    if !c.problems.is_empty() {
        return Err(Refusal {
            problems: c.problems,
            decision_needed: c.decisions.join(" "),
        });
    }
    // Every field checked above is present when there are no problems.
    let (Some(action), Some(task_id), Some(cwd), Some(objective)) =
        (action, task_id, cwd, objective)
    else {
        return Err(Refusal {
            problems: vec![],
            decision_needed: "Provide action, taskId, cwd and objective.".into(),
        });
    };
    Ok(TaskRequest {
        action,
        task_id,
        cwd,
        objective,
        scope: scope.unwrap_or_default(),
        constraints: constraints.unwrap_or_default(),
        acceptance: acceptance.unwrap_or_default(),
        profile,
        write_mode,
        workspace_mode,
        allowed_write_scope,
        provider,
        model,
        thinking,
        timeout,
        stall_timeout,
        session_file,
        budget,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Map<String, Value> {
        let v = serde_json::json!({
            "action": "delegate", "taskId": "t-1", "cwd": "/tmp",
            "objective": "Add a guard that rejects expired refresh tokens in src/auth",
            "scope": ["src/auth"], "constraints": [], "acceptance": ["unit tests pass"],
            "profile": "readonly"
        });
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_good_readonly_request_passes() {
        let t = validate(&base()).unwrap();
        assert_eq!(t.profile, Profile::Readonly);
        assert!(!t.writes());
    }

    #[test]
    fn vague_and_non_atomic_objectives_are_refused() {
        for bad in [
            "fix it",
            "Fix it.",
            "Refactor the entire codebase to use async",
            "Make it work",
            "1. Add the guard\n2. Rewrite the docs",
            "- add a guard\n- rename the module",
            "Add the token guard in src/auth and also rewrite the README",
        ] {
            let mut m = base();
            m.insert("objective".into(), bad.into());
            let r = validate(&m).unwrap_err();
            assert_eq!(r.problems[0].field, "objective", "{bad}");
        }
    }

    #[test]
    fn write_declarations_are_checked() {
        let mut m = base();
        m.insert("profile".into(), "implementation".into());
        let r = validate(&m).unwrap_err();
        assert!(
            r.decision_needed.contains("writeMode"),
            "{}",
            r.decision_needed
        );
        m.insert("writeMode".into(), "direct".into());
        let r = validate(&m).unwrap_err();
        let fields: Vec<_> = r.problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "allowedWriteScope",
                "workspaceStateKnown",
                "writeAuthorization"
            ]
        );
        m.insert("allowedWriteScope".into(), serde_json::json!(["src/auth"]));
        m.insert("workspaceStateKnown".into(), true.into());
        m.insert("writeAuthorization".into(), true.into());
        assert!(validate(&m).unwrap().writes());
        m.insert("workspaceMode".into(), "existing".into());
        assert_eq!(validate(&m).unwrap_err().problems[0].field, "workspaceMode");
    }

    #[test]
    fn provider_without_model_and_bad_types() {
        let mut m = base();
        m.insert("provider".into(), "mock".into());
        m.insert("timeoutMs".into(), (-5).into());
        m.insert("scope".into(), 3.into());
        let r = validate(&m).unwrap_err();
        let fields: Vec<_> = r.problems.iter().map(|p| p.field.as_str()).collect();
        assert!(
            fields.contains(&"model") && fields.contains(&"timeoutMs") && fields.contains(&"scope"),
            "{fields:?}"
        );
    }

    #[test]
    fn parse_errors_are_located() {
        let e = parse(b"{\n  \"a\": ,\n}").unwrap_err();
        assert_eq!(e.pos(), Some(Pos { line: 2, column: 8 }));
        assert_eq!(e.to_string(), "not valid JSON: expected value");
        assert_eq!(parse(b"[1]"), Err(RequestError::NotObject("an array")));
        let e = parse(br#"{"profile":"readonly","profile":"implementation"}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "duplicate key \"profile\" (first at 1:2); pwk does not pick one of the values"
        );
        assert_eq!(
            e.pos(),
            Some(Pos {
                line: 1,
                column: 23
            })
        );
    }
}

#[cfg(test)]
mod fuzz {
    //! Arbitrary JSON never panics the validator (`PROPTEST_CASES=N` for long runs).
    use super::*;
    use proptest::prelude::*;

    use crate::testing::fuzz_config as config;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            ".{0,40}".prop_map(Value::String),
            // Control characters, escape sequences and bidi overrides.
            "[\\x00-\\x1f\\x7f-\\x9f\u{202a}-\u{202e}\u{2066}-\u{2069}a/ ]{0,20}"
                .prop_map(Value::String),
            prop_oneof![
                Just("/tmp"),
                Just("delegate"),
                Just("continue"),
                Just("direct"),
                Just("readonly"),
                Just("fix it")
            ]
            .prop_map(|s| Value::String(s.into())),
        ];
        leaf.prop_recursive(3, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(".{0,12}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    const FIELDS: [&str; 21] = [
        "action",
        "taskId",
        "cwd",
        "objective",
        "scope",
        "constraints",
        "acceptance",
        "profile",
        "writeMode",
        "allowedWriteScope",
        "workspaceStateKnown",
        "writeAuthorization",
        "workspaceMode",
        "provider",
        "model",
        "thinking",
        "timeoutMs",
        "stallTimeoutMs",
        "sessionFile",
        "prompt",
        "budget",
    ];

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn arbitrary_requests_never_panic(values in prop::collection::vec((0usize..21, json_value()), 0..20)) {
            let mut m = Map::new();
            for (i, v) in values {
                m.insert(FIELDS[i].to_string(), v);
            }
            match validate(&m) {
                Ok(t) => prop_assert!(t.cwd.is_absolute()),
                Err(r) => prop_assert!(!r.decision_needed.is_empty()),
            }
        }

        #[test]
        fn arbitrary_text_never_panics_the_parser(text in ".{0,200}") {
            let _ = parse(text.as_bytes());
        }

        #[test]
        fn deeply_nested_requests_never_panic(depth in 0usize..100_000, open in "[\\[{]") {
            let close = if open == "[" { "]" } else { "}" };
            let inner = if open == "[" { "1" } else { "" };
            let key = if open == "{" { "\"a\":" } else { "" };
            let text = format!(
                "{{\"objective\":{}{inner}{}}}",
                format!("{open}{key}").repeat(depth).trim_end_matches(':'),
                close.repeat(depth)
            );
            let _ = parse(text.as_bytes());
        }

        #[test]
        fn arbitrary_objectives_never_panic(o in "(?s).{0,300}") {
            let _ = objective_problem(&o);
        }
    }
}
