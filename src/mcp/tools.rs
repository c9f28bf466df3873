//! The tools of `pwk mcp`: their JSON Schemas (input and output) and the quick
//! ones' handlers. Every handler calls the module that owns the concept (lint,
//! discover, delegate, provider); none re-implements it. The long-running tools
//! (`task_wait`, `review`, `recon`) are in [`super::server`], which owns the async
//! side (waiting, progress notifications, cancellation).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::tasks::Registry;
use crate::delegate::task::DelegateResult;
use crate::host::HostChoice;

/// A tool's outcome: structured content, or an error message the caller reads.
pub(crate) type Answer = Result<Value, String>;

/// The largest in-memory text `lint` accepts (the lint size limit of role files).
const MAX_TEXT: usize = 1 << 20;

/// One tool: name, description, input and output schemas, and what it does to the
/// world (MCP's tool annotations, so a host need not ask before a read-only lint).
pub(crate) struct Spec {
    pub name: &'static str,
    pub description: &'static str,
    pub input: Value,
    pub output: Value,
    pub hints: Hints,
}

/// MCP's `ToolAnnotations` hints (2025-03-26 and later): `readOnlyHint`,
/// `destructiveHint`, `idempotentHint`, `openWorldHint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hints {
    /// Changes nothing outside the call (a read-only review still asks a model).
    pub read_only: bool,
    /// May change or undo what others made (a delegated task edits files; an abort
    /// stops a task for good).
    pub destructive: bool,
    /// Calling it again with the same arguments does nothing more.
    pub idempotent: bool,
    /// Reaches beyond the project: a model provider through pi.
    pub open_world: bool,
}

/// Reads the project and answers from it: the lint and role tools.
const READS: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};
/// Looks at a task the server runs (status, result, wait).
const OBSERVES: Hints = READS;
/// Runs read-only roles on pi: nothing written, but a model is asked (and asked
/// again gives another answer).
const ASKS_A_MODEL: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: false,
    open_world: true,
};
/// Starts a task on pi whose role may edit the project.
const RUNS_A_TASK: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: false,
    open_world: true,
};
/// Sends a running task a message (it reaches the model).
const STEERS: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
    open_world: true,
};
/// Stops a task for good (again: nothing more).
const ABORTS: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: true,
    open_world: false,
};

/// The `host` argument: `auto`, a host of the registry, or one of its versions
/// (`nicobailon@0.67`), as `--host` takes it; the names come from the registry.
fn host_schema() -> Value {
    let names: Vec<&str> = crate::host::ALL.iter().map(|h| h.as_str()).collect();
    let mut choices = vec!["auto"];
    choices.extend(&names);
    json!({
        "type": "string",
        "description": format!(
            "Host profile: auto (default: detected from pi's settings), a host ({}), or host@version",
            names.join(", ")
        ),
        "anyOf": [
            {"enum": choices},
            {"pattern": format!("^({})@[0-9][0-9.]*$", names.join("|"))}
        ]
    })
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

fn open_object(description: &str) -> Value {
    json!({"type": "object", "description": description, "additionalProperties": true})
}

/// The `task_status` document.
fn status_schema() -> Value {
    object(
        json!({
            "task": {"type": "string", "description": "The server's task id (t1, t2, …)"},
            "requestTaskId": {"type": ["string", "null"]},
            "state": {"type": "string", "enum": ["starting", "running", "completed", "failed", "timed-out", "stalled", "aborted"]},
            "turns": {"type": "integer"},
            "toolCalls": {"type": "integer"},
            "lastTool": {"type": ["string", "null"]},
            "elapsedMs": {"type": "integer"},
            "processGroups": {"type": "array", "items": {"type": "integer"}, "description": "pi's process groups running for the task now"},
            "steersDelivered": {"type": "integer"}
        }),
        &[
            "task",
            "state",
            "turns",
            "toolCalls",
            "elapsedMs",
            "processGroups",
        ],
    )
}

fn task_arg() -> Value {
    json!({"task": {"type": "string", "description": "The task id delegate_start returned (t1, t2, …)"}})
}

fn with_task(mut extra: Value) -> Value {
    let mut props = task_arg();
    if let (Some(p), Some(e)) = (props.as_object_mut(), extra.as_object_mut()) {
        p.append(e);
    }
    props
}

/// The atomic-task request of `pwk delegate` (validated by `delegate::request`, which
/// answers anything it refuses with `needs_decision`).
fn request_schema(action: &str) -> Value {
    let mut s = object(
        json!({
            "action": {"type": "string", "enum": [action], "description": "Optional here; the tool sets it"},
            "taskId": {"type": "string", "description": "Your id for the task (appears in the prompt and the session file name)"},
            "cwd": {"type": "string", "description": "Absolute working directory of the task"},
            "objective": {"type": "string", "description": "What the worker must do (one atomic task)"},
            "scope": {"type": "array", "items": {"type": "string"}},
            "constraints": {"type": "array", "items": {"type": "string"}},
            "acceptance": {"type": "array", "items": {"type": "string"}},
            "profile": {"type": "string", "enum": ["readonly", "verification", "implementation"]},
            "writeMode": {"type": "string", "enum": ["direct", "isolated"]},
            "allowedWriteScope": {"type": "array", "items": {"type": "string"}},
            "workspaceMode": {"type": "string"},
            "provider": {"type": "string"},
            "model": {"type": "string"},
            "thinking": {"type": "string"},
            "sessionFile": {"type": "string", "description": "continue: the sessionFile of the earlier result"},
            "timeoutMs": {"type": "integer", "minimum": 1},
            "stallTimeoutMs": {"type": "integer", "minimum": 1},
            "budget": {"type": "object", "description": "Spend limits; crossing one stops pi (BUDGET_EXCEEDED)",
                "properties": {"maxTokens": {"type": "integer", "minimum": 1},
                    "maxCostUsd": {"type": "number", "exclusiveMinimum": 0},
                    "maxWallSeconds": {"type": "integer", "minimum": 1, "maximum": 86400},
                    "onUnknownUsage": {"type": "string", "enum": ["warn", "stop"], "description": "pi reported usage a limit cannot count: warn (default) or stop (BUDGET_UNENFORCEABLE)"}},
                "additionalProperties": false}
        }),
        &["taskId", "cwd", "objective"],
    );
    s["additionalProperties"] = json!(true);
    s
}

fn start_output() -> Value {
    object(
        json!({
            "launched": {"type": "boolean", "description": "false: refused before launch (see result: status blocked, error NEEDS_DECISION)"},
            "task": {"type": ["string", "null"]},
            "status": {"anyOf": [status_schema(), {"type": "null"}]},
            "result": {"anyOf": [open_object("pwk delegate's result document"), {"type": "null"}]}
        }),
        &["launched", "task"],
    )
}

fn run_output() -> Value {
    object(
        json!({
            "version": {"type": "integer"},
            "operation": {"type": "string"},
            "results": {"type": "array", "items": open_object("one role's outcome")},
            "coverage": coverage_schema(),
            "refused": {"type": "object"}
        }),
        &["results", "coverage"],
    )
}

fn coverage_schema() -> Value {
    object(
        json!({
            "complete": {"type": "boolean"},
            "missing": {"type": "array", "items": {"type": "string"}},
            "retained": {"type": "array", "items": {"type": "object"}}
        }),
        &["complete", "missing", "retained"],
    )
}

fn run_settings_props() -> Value {
    json!({
        "cwd": {"type": "string", "description": "Repository root (default: the server's directory)"},
        "timeoutSecs": {"type": "integer", "minimum": 1, "description": "Per-role wall-clock limit (default 600)"},
        "stallTimeoutSecs": {"type": "integer", "minimum": 0, "description": "Per-role stall watchdog, 0 = off (default 120)"},
        "maxParallel": {"type": "integer", "minimum": 1},
        "transport": {"type": "string", "enum": ["rpc", "json"], "description": "rpc (default): steer at the turn budget; json: stop there"},
        "budget": {"type": "object", "description": "Spend limits of each role's run; crossing one stops that role's pi (BUDGET_EXCEEDED)",
            "properties": {"maxTokens": {"type": "integer", "minimum": 1},
                "maxCostUsd": {"type": "number", "exclusiveMinimum": 0},
                "maxWallSeconds": {"type": "integer", "minimum": 1, "maximum": 86400},
                "onUnknownUsage": {"type": "string", "enum": ["warn", "stop"], "description": "pi reported usage a limit cannot count: warn (default) or stop (BUDGET_UNENFORCEABLE)"}},
            "additionalProperties": false},
        "roleBudgets": {"type": "object", "description": "One role's own limits, by full role name (beat `budget` limit by limit)",
            "additionalProperties": {"type": "object"}}
    })
}

fn merge(mut a: Value, b: Value) -> Value {
    if let (Some(a), Value::Object(mut b)) = (a.as_object_mut(), b) {
        a.append(&mut b);
    }
    a
}

/// Every tool, in the order `tools/list` shows them.
pub(crate) fn specs() -> Vec<Spec> {
    let host = host_schema();
    vec![
        Spec {
            name: "lint",
            description: "Lint role files for the host that reads them, as `pwk lint --format json`: files or directories (`paths`), or one file's text held in memory (`text`, named by `path`).",
            input: object(
                json!({
                    "paths": {"type": "array", "items": {"type": "string"}, "description": "Files or directories (relative to the server's directory)"},
                    "recursive": {"type": "boolean"},
                    "text": {"type": "string", "description": "A role file's text, linted as if it were at `path`"},
                    "path": {"type": "string", "description": "The name of the in-memory text (default role.md)"},
                    "host": host.clone()
                }),
                &[],
            ),
            output: object(
                json!({
                    "version": {"type": "integer"},
                    "host": {"type": "object"},
                    "files": {"type": "integer"},
                    "diagnostics": {"type": "array", "items": {"type": "object"}},
                    "skipped": {"type": "array"},
                    "summary": {"type": "object", "properties": {"errors": {"type": "integer"}, "warnings": {"type": "integer"}}}
                }),
                &["diagnostics", "summary"],
            ),
            hints: READS,
        },
        Spec {
            name: "rules",
            description: "Every lint rule: id, severity, summary, and per host profile what the host does about it.",
            input: object(json!({}), &[]),
            output: object(
                json!({"rules": {"type": "array", "items": {"type": "object"}}}),
                &["rules"],
            ),
            hints: READS,
        },
        Spec {
            name: "explain_rule",
            description: "One lint rule explained, with bad and good examples (`pwk rules ID`).",
            input: object(json!({"id": {"type": "string"}}), &["id"]),
            output: object(
                json!({"id": {"type": "string"}, "severity": {"type": "string"}, "summary": {"type": "string"},
                       "explanation": {"type": "string"}, "bad": {"type": "string"}, "good": {"type": "string"},
                       "hosts": {"type": "array"}}),
                &["id", "explanation"],
            ),
            hints: READS,
        },
        Spec {
            name: "list_roles",
            description: "The roles each host sees from the server's directory (the project's host, and every host whose own agents directory exists: Claude Code's, OpenCode's, Gemini CLI's, Copilot's), each row tagged with its host, with where it comes from and what it shadows (`pwk list --format json`).",
            input: object(
                json!({"host": host.clone(), "all": {"type": "boolean", "description": "Include hidden and shadowed definitions"}}),
                &[],
            ),
            output: object(
                json!({"roles": {"type": "array", "items": {"type": "object"}}, "profile": {"type": "string"}}),
                &["roles"],
            ),
            hints: READS,
        },
        Spec {
            name: "show_role",
            description: "One role as its host resolves it (the project's host first, else the host whose directory holds it; `also_read_by` names other hosts with a role of that name): source, shadowing, frontmatter, body and what it runs with (model, tools, thinking, turns) (`pwk show --format json`).",
            input: object(
                json!({"name": {"type": "string"}, "host": host, "model": {"type": "string", "description": "An explicit model, as the caller would pass it"}}),
                &["name"],
            ),
            output: object(
                json!({"name": {"type": "string"}, "path": {"type": "string"}, "runtime": {"type": "object"}, "body": {"type": "string"}}),
                &["name", "path"],
            ),
            hints: READS,
        },
        Spec {
            name: "delegate_start",
            description: "Start one atomic task on the real pi (`pwk delegate`'s request). A request the contract refuses answers at once with launched=false and the blocked result (NEEDS_DECISION); nothing is launched. Otherwise returns a task id: poll task_status, wait with task_wait, read task_result; steer with task_steer, stop with task_abort. The task runs over pi's RPC mode, with the same write lock, timeouts and stall watchdog as `pwk delegate`.",
            input: request_schema("delegate"),
            output: start_output(),
            hints: RUNS_A_TASK,
        },
        Spec {
            name: "task_status",
            description: "A task's state (starting, running, completed, failed, timed-out, stalled, aborted), turns, tool calls, last tool, elapsed time and live process groups.",
            input: object(task_arg(), &["task"]),
            output: status_schema(),
            hints: OBSERVES,
        },
        Spec {
            name: "task_wait",
            description: "Wait until a task ends or `timeoutMs` passes (default 30000); returns its status. Cancelling this call stops the wait, not the task.",
            input: object(
                with_task(json!({"timeoutMs": {"type": "integer", "minimum": 0}})),
                &["task"],
            ),
            output: object(
                json!({"finished": {"type": "boolean"}, "status": status_schema()}),
                &["finished", "status"],
            ),
            hints: OBSERVES,
        },
        Spec {
            name: "task_result",
            description: "A task's result: the same document `pwk delegate` prints (null while it runs).",
            input: object(task_arg(), &["task"]),
            output: object(
                json!({"status": status_schema(), "result": {"anyOf": [open_object("pwk delegate's result document"), {"type": "null"}]}}),
                &["status", "result"],
            ),
            hints: OBSERVES,
        },
        Spec {
            name: "task_steer",
            description: "Send a message to the running pi (pi's RPC steer: it reaches the model after the current turn's tools).",
            input: object(
                with_task(json!({"message": {"type": "string"}})),
                &["task", "message"],
            ),
            output: object(
                json!({"delivered": {"type": "boolean"}, "status": status_schema()}),
                &["delivered", "status"],
            ),
            hints: STEERS,
        },
        Spec {
            name: "task_continue",
            description: "Continue an earlier task's session (`pwk delegate` with action continue and the earlier result's sessionFile): the session's model, cwd checks and refusals of `pwk delegate` apply. Returns a new task id.",
            input: request_schema("continue"),
            output: start_output(),
            hints: RUNS_A_TASK,
        },
        Spec {
            name: "task_abort",
            description: "Abort a task: pi's process group is stopped (SIGTERM, then SIGKILL); the result says aborted; the task is never run again.",
            input: object(task_arg(), &["task"]),
            output: object(
                json!({"status": status_schema(), "result": {"anyOf": [open_object("pwk delegate's result document"), {"type": "null"}]}}),
                &["status"],
            ),
            hints: ABORTS,
        },
        Spec {
            name: "review",
            description: "`pwk review`: run reviewer roles (spec, tracing, smell, hazard) on a review packet in parallel, read-only, one fresh pi session each; per-role outcomes and the coverage verdict. Sends a progress notification per role state change when the call has a progress token; cancelling the call aborts every role's pi.",
            input: object(
                merge(
                    json!({
                        "roles": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "spec, tracing, smell, hazard (or pwk-…-reviewer)"},
                        "packet": {"type": "string", "description": "The review packet's text"},
                        "packetPath": {"type": "string", "description": "Or a file holding it"}
                    }),
                    run_settings_props(),
                ),
                &["roles"],
            ),
            output: run_output(),
            hints: ASKS_A_MODEL,
        },
        Spec {
            name: "recon",
            description: "`pwk recon`: the recon scout on a topic, read-only; its outcome and the coverage verdict. Progress notifications and cancellation as for review.",
            input: object(
                merge(
                    json!({"topic": {"type": "string"}, "intent": {"type": "string"}}),
                    run_settings_props(),
                ),
                &["topic", "intent"],
            ),
            output: run_output(),
            hints: ASKS_A_MODEL,
        },
        Spec {
            name: "coverage",
            description: "`pwk coverage`: the coverage verdict of outcomes against the required roles.",
            input: object(
                json!({"required": {"type": "array", "items": {"type": "string"}},
                       "outcomes": {"type": "array", "items": {"type": "object"}}}),
                &["required", "outcomes"],
            ),
            output: coverage_schema(),
            hints: READS,
        },
        Spec {
            name: "capabilities",
            description: "`pwk capabilities`: what pwk provides as a delegation provider, and how.",
            input: object(json!({}), &[]),
            output: object(
                json!({"provider": {"type": "string"}, "capabilities": {"type": "array", "items": {"type": "string"}}, "notes": {"type": "object"}}),
                &["capabilities"],
            ),
            hints: READS,
        },
    ]
}

/// The server's directory and environment, for the tools.
pub(crate) struct Place<'a> {
    pub cwd: &'a Path,
    /// `pwk mcp --config FILE`: the configuration the `lint` tool uses.
    pub config: Option<&'a Path>,
    pub registry: &'a Arc<Registry>,
}

fn str_arg<'a>(args: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(format!(
            "`{key}` must be a string, found {}",
            crate::json::json_kind(v)
        )),
    }
}

fn required_str<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    str_arg(args, key)?.ok_or_else(|| format!("`{key}` is required"))
}

fn bool_arg(args: &Map<String, Value>, key: &str) -> Result<bool, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(format!(
            "`{key}` must be a boolean, found {}",
            crate::json::json_kind(v)
        )),
    }
}

pub(crate) fn u64_arg(args: &Map<String, Value>, key: &str) -> Result<Option<u64>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| {
            format!(
                "`{key}` must be a non-negative integer, found {}",
                crate::json::json_kind(v)
            )
        }),
    }
}

fn host_arg(args: &Map<String, Value>) -> Result<HostChoice, String> {
    match str_arg(args, "host")? {
        None => Ok(HostChoice::Auto),
        Some(h) => h
            .parse()
            .map_err(|e: crate::host::HostError| format!("`host`: {e}")),
    }
}

/// A path argument, relative to the server's directory.
pub(crate) fn path_arg(cwd: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}

/// The project exactly as a command run in the server's directory `cwd` finds it:
/// its root, `pwk.toml` (host, rule levels, overrides, `paths`, `exclude`); `host`
/// is the command's `--host` (a tool's `host` argument).
pub(crate) fn open_project(
    cwd: &Path,
    config: Option<&Path>,
    env: &crate::env::Env,
    host: Option<HostChoice>,
) -> Result<crate::project::Project, String> {
    crate::project::Project::open(crate::project::ProjectOptions {
        cwd: cwd.to_path_buf(),
        host,
        config: config.map(Path::to_path_buf),
        home: env.home.clone(),
        agent_dir: env.agent_dir(),
        ..Default::default()
    })
    .map_err(|e| e.relative_to(cwd).to_string())
}

/// Every role the project's hosts see, one discovery per host, as `pwk list` and
/// `pwk show` find them (the role resources too).
pub(crate) fn project_roles(
    cwd: &Path,
    config: Option<&Path>,
    env: &crate::env::Env,
    host: Option<HostChoice>,
) -> Result<Vec<crate::discover::Discovery>, String> {
    open_project(cwd, config, env, host)?
        .discover_hosts()
        .map_err(|e| e.relative_to(cwd).to_string())
}

/// The tool's `host` argument, when it has one.
fn host_flag(args: &Map<String, Value>) -> Result<Option<HostChoice>, String> {
    match str_arg(args, "host")? {
        None => Ok(None),
        Some(_) => Ok(Some(host_arg(args)?)),
    }
}

fn project(
    place: &Place<'_>,
    args: &Map<String, Value>,
) -> Result<crate::project::Project, String> {
    open_project(
        place.cwd,
        place.config,
        place.registry.env(),
        host_flag(args)?,
    )
}

fn discover(
    place: &Place<'_>,
    args: &Map<String, Value>,
) -> Result<Vec<crate::discover::Discovery>, String> {
    project_roles(
        place.cwd,
        place.config,
        place.registry.env(),
        host_flag(args)?,
    )
}

pub(crate) fn lint(place: &Place<'_>, args: &Map<String, Value>) -> Answer {
    // `pwk lint --format json` on the same project and file set.
    let project = project(place, args)?;
    let recursive = bool_arg(args, "recursive")?;
    let base = crate::lint::FileSettings::default();
    let report = match (str_arg(args, "text")?, args.get("paths")) {
        (Some(_), Some(_)) => return Err("pass `paths` or `text`, not both".into()),
        (Some(text), None) => {
            if text.len() > MAX_TEXT {
                return Err(format!(
                    "`text` is larger than {} MiB; lint the file by path",
                    MAX_TEXT >> 20
                ));
            }
            let path = path_arg(place.cwd, str_arg(args, "path")?.unwrap_or("role.md"));
            let set = crate::project::FileSet {
                files: vec![path.clone()],
                recursive,
                ..Default::default()
            };
            let plan = project
                .plan(set, &base)
                .map_err(|e| e.relative_to(place.cwd).to_string())?;
            plan.lint_text(&path, text.as_bytes().to_vec(), false)
        }
        (None, paths) => {
            let paths: Vec<PathBuf> = match paths {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| {
                        v.as_str()
                            .map(|s| path_arg(place.cwd, s))
                            .ok_or_else(|| "`paths` must be an array of strings".to_string())
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("`paths` must be an array of strings".into()),
            };
            let set = project
                .file_set(&crate::project::FileRequest {
                    paths,
                    recursive,
                    allow_empty: false,
                })
                .map_err(|e| {
                    let e = e.relative_to(place.cwd).to_string();
                    match e.strip_prefix("nothing to lint: ") {
                        Some(rest) => format!("nothing to lint: {rest}; pass `paths` or `text`"),
                        None => e,
                    }
                })?;
            project
                .plan(set, &base)
                .map_err(|e| e.relative_to(place.cwd).to_string())?
                .lint(false)
        }
    };
    let show = |p: &Path| crate::display::display_path(place.cwd, p);
    let render_opts = crate::lint::render::RenderOptions {
        show_path: &show,
        color: false,
        width: 100,
        summary: true,
    };
    let text = crate::lint::render::json::render(&report, &render_opts);
    let mut doc: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if !report.failures.is_empty() {
        let failures: Value = report
            .failures
            .iter()
            .map(|f| json!({"path": show(&f.path), "message": f.message}))
            .collect();
        // The lint document's keys are snake_case; `readFailures` (the old name)
        // stays one release for clients that read it (docs/src/changelog.md).
        doc["read_failures"] = failures.clone();
        doc["readFailures"] = failures;
    }
    Ok(doc)
}

pub(crate) fn rules() -> Answer {
    Ok(
        json!({"rules": crate::lint::rules::RULES.iter().map(|r| crate::lint::rules::rule_doc(r)).collect::<Vec<_>>()}),
    )
}

pub(crate) fn explain_rule(args: &Map<String, Value>) -> Answer {
    let id = required_str(args, "id")?;
    match crate::lint::rules::lookup(id) {
        Ok(r) => Ok(crate::lint::rules::rule_doc(r)),
        Err(e) => Err(format!(
            "no rule `{id}`; {}",
            e.help("the `rules` tool lists them")
        )),
    }
}

pub(crate) fn list_roles(place: &Place<'_>, args: &Map<String, Value>) -> Answer {
    let views = discover(place, args)?;
    let rows = crate::discover::render::list_views(&views, bool_arg(args, "all")?);
    Ok(crate::discover::render::list_doc(&views, &rows))
}

pub(crate) fn show_role(place: &Place<'_>, args: &Map<String, Value>) -> Answer {
    let name = required_str(args, "name")?;
    let env = place.registry.env();
    let views = discover(place, args)?;
    let found = crate::discover::find_in(&views, name);
    let Some(&(d, role)) = found.first() else {
        let known = crate::discover::known_names(&views);
        let hint = crate::suggest::close_matches(name, known.iter().copied())
            .first()
            .copied()
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_else(|| "; the `list_roles` tool lists them".into());
        let hosts: Vec<String> = views.iter().map(|d| d.host.label()).collect();
        return Err(format!(
            "no role named `{}` as {} {} roles{hint}",
            crate::text::escape_line(name),
            hosts.join(", "),
            if hosts.len() == 1 { "sees" } else { "see" }
        ));
    };
    let also = crate::discover::render::AlsoRead::others(&found, place.cwd);
    let rt = crate::discover::render::runtime_of(d, role, str_arg(args, "model")?, env, place.cwd);
    let run = crate::provider::mapping::provider_run(&role.name, role.role.max_turns)
        .map(|r| serde_json::to_value(r).expect("plain data serializes"));
    Ok(crate::discover::render::show_doc(
        d, role, &rt, &also, place.cwd, run,
    ))
}

/// `delegate_start` / `task_continue`: validate first (a refusal launches nothing),
/// then start the task.
pub(crate) fn start(place: &Place<'_>, args: &Map<String, Value>, action: &str) -> Answer {
    let mut map = args.clone();
    match map.get("action").and_then(Value::as_str) {
        None => {
            map.insert("action".into(), Value::String(action.into()));
        }
        Some(a) if a == action => {}
        Some(a) => {
            return Err(format!(
                "`action` is {a:?}, but this tool runs action {action:?}; use {}",
                if action == "delegate" {
                    "task_continue to continue a session"
                } else {
                    "delegate_start for a new task"
                }
            ));
        }
    }
    // Everything `pwk delegate` checks before launch (the request, a continuation's
    // session metadata, cwd and model, locating pi) answers now: a dry run of the same
    // code path. Nothing is launched for a refusal.
    let progress = |_: &crate::delegate::Progress, _: &str| {};
    let mut on_wait = |_: &str, _: &Path| {};
    let how = crate::delegate::task::How {
        dry_run: true,
        check_only: true,
        rpc: true,
        remote: None,
        progress: &progress,
        on_wait: &mut on_wait,
        default_budget: place.registry.default_budget(),
    };
    let plan = crate::delegate::task::delegate_with(&map, how, place.registry.env());
    if plan.status != "planned" {
        let mut refused: DelegateResult = plan;
        refused.launch = None;
        refused.prompt = None;
        refused.warnings.retain(|w| !w.starts_with("dry run"));
        return Ok(json!({
            "launched": false,
            "task": null,
            "status": null,
            "result": serde_json::to_value(&refused).map_err(|e| e.to_string())?,
        }));
    }
    let task = place.registry.start(map);
    Ok(json!({"launched": true, "task": task.id, "status": task.status(), "result": null}))
}

pub(crate) fn task_status(place: &Place<'_>, args: &Map<String, Value>) -> Answer {
    let task = find(place, args)?;
    serde_json::to_value(task.status()).map_err(|e| e.to_string())
}

pub(crate) fn task_result(place: &Place<'_>, args: &Map<String, Value>) -> Answer {
    let task = find(place, args)?;
    Ok(json!({"status": task.status(), "result": task.result()}))
}

pub(crate) fn find(
    place: &Place<'_>,
    args: &Map<String, Value>,
) -> Result<Arc<super::tasks::Task>, String> {
    let id = required_str(args, "task")?;
    place.registry.get(id).ok_or_else(|| {
        let ids = place.registry.ids();
        format!(
            "no task `{}` in this server (tasks: {})",
            crate::text::escape_line(id),
            if ids.is_empty() {
                "none yet; start one with delegate_start".to_string()
            } else {
                ids.join(", ")
            }
        )
    })
}

pub(crate) fn steer_message(args: &Map<String, Value>) -> Result<&str, String> {
    let m = required_str(args, "message")?;
    if m.trim().is_empty() {
        return Err("`message` is empty".into());
    }
    Ok(m)
}

pub(crate) fn coverage(args: &Map<String, Value>) -> Answer {
    let bytes = serde_json::to_vec(args).map_err(|e| e.to_string())?;
    let (required, outcomes) =
        crate::provider::coverage::parse_input(&bytes).map_err(|e| e.to_string())?;
    serde_json::to_value(crate::provider::coverage::assess(&required, &outcomes))
        .map_err(|e| e.to_string())
}

pub(crate) fn capabilities() -> Answer {
    serde_json::from_str(&crate::provider::capabilities::to_json()).map_err(|e| e.to_string())
}

/// The provider run a `review` / `recon` call asks for.
pub(crate) struct ProviderCall {
    pub request: crate::provider::DelegationRequest,
    pub settings: crate::provider::RunSettings,
}

fn settings(
    place: &Place<'_>,
    args: &Map<String, Value>,
) -> Result<crate::provider::RunSettings, String> {
    let timeout = u64_arg(args, "timeoutSecs")?.unwrap_or(600);
    if timeout == 0 {
        return Err("`timeoutSecs` must be at least 1".into());
    }
    let stall = u64_arg(args, "stallTimeoutSecs")?.unwrap_or(120);
    let max_parallel = u64_arg(args, "maxParallel")?.map(|n| n as usize);
    if max_parallel == Some(0) {
        return Err("`maxParallel` must be at least 1".into());
    }
    let steer = match str_arg(args, "transport")? {
        None | Some("rpc") => true,
        Some("json") => false,
        Some(t) => return Err(format!("`transport` is {t:?}; use rpc or json")),
    };
    Ok(crate::provider::RunSettings {
        timeout: std::time::Duration::from_secs(timeout),
        stall_timeout: Some(std::time::Duration::from_secs(stall)).filter(|d| !d.is_zero()),
        max_parallel,
        six_field: false,
        steer,
        budget: place.registry.default_budget(),
    })
}

fn repo_root(place: &Place<'_>, args: &Map<String, Value>) -> Result<PathBuf, String> {
    let p = match str_arg(args, "cwd")? {
        Some(c) => path_arg(place.cwd, c),
        None => place.cwd.to_path_buf(),
    };
    match std::fs::metadata(&p) {
        Ok(m) if m.is_dir() => Ok(std::fs::canonicalize(&p).unwrap_or(p)),
        Ok(_) => Err(format!("`cwd` {} is not a directory", p.display())),
        Err(e) => Err(format!("`cwd` {} cannot be used: {e}", p.display())),
    }
}

pub(crate) fn review_call(
    place: &Place<'_>,
    args: &Map<String, Value>,
) -> Result<ProviderCall, String> {
    use crate::provider::{LogicalRole, Operation};
    let settings = settings(place, args)?;
    let cwd = repo_root(place, args)?;
    let names = match args.get("roles") {
        Some(Value::Array(items)) => items,
        _ => {
            return Err(
                "`roles` must be an array of reviewer names (spec, tracing, smell, hazard)".into(),
            );
        }
    };
    let mut roles = Vec::new();
    for v in names {
        let name = v.as_str().unwrap_or_default();
        match LogicalRole::from_name_or_short(name) {
            Some(r) if r.is_reviewer() && !roles.contains(&r) => roles.push(r),
            Some(r) if r.is_reviewer() => return Err(format!("`roles` lists {} twice", r.short())),
            _ => {
                return Err(format!(
                    "`roles`: {name:?} is not a reviewer role (use spec, tracing, smell, hazard or their full pwk-…-reviewer names; the scout runs with recon)"
                ));
            }
        }
    }
    if roles.is_empty() {
        return Err("`roles` is empty; name at least one reviewer".into());
    }
    let packet = match (str_arg(args, "packet")?, str_arg(args, "packetPath")?) {
        (Some(_), Some(_)) => return Err("pass `packet` or `packetPath`, not both".into()),
        (Some(text), None) if !text.trim().is_empty() => text.to_string(),
        (Some(_), None) => return Err("`packet` is empty".into()),
        (None, Some(p)) => {
            let path = path_arg(place.cwd, p);
            crate::provider::packet::read_packet(&path)
                .map_err(|e| format!("the review packet {} {e}", path.display()))?
        }
        (None, None) => return Err("`packet` (text) or `packetPath` (a file) is required".into()),
    };
    let (budget, role_budgets) =
        crate::provider::request::check_budgets(args, &roles).map_err(|p| p.join("; "))?;
    Ok(ProviderCall {
        request: crate::provider::DelegationRequest {
            operation: Operation::FeatureReview,
            roles,
            prompt: crate::provider::packet::review_prompt(&packet, &cwd),
            cwd,
            parallel: true,
            budget,
            role_budgets,
        },
        settings,
    })
}

pub(crate) fn recon_call(
    place: &Place<'_>,
    args: &Map<String, Value>,
) -> Result<ProviderCall, String> {
    use crate::provider::{LogicalRole, Operation};
    let settings = settings(place, args)?;
    let cwd = repo_root(place, args)?;
    let topic = required_str(args, "topic")?;
    let intent = required_str(args, "intent")?;
    for (k, v) in [("topic", topic), ("intent", intent)] {
        if v.trim().is_empty() {
            return Err(format!(
                "`{k}` is empty; the scout needs a topic and a one-line intent"
            ));
        }
    }
    let roles = vec![LogicalRole::ReconScout];
    let (budget, role_budgets) =
        crate::provider::request::check_budgets(args, &roles).map_err(|p| p.join("; "))?;
    Ok(ProviderCall {
        request: crate::provider::DelegationRequest {
            operation: Operation::CodebaseRecon,
            roles,
            prompt: crate::provider::packet::recon_prompt(topic, intent, &cwd),
            cwd,
            parallel: false,
            budget,
            role_budgets,
        },
        settings,
    })
}
