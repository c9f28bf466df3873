//! Planning one pi run: the spec ([`PiRunSpec`], e.g. from a role), locating the
//! program, the `--help`-probed flags only some pi generations have (`--no-mcp`), and
//! the argument array ([`plan_launch`]; never a shell, the prompt on stdin).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::delegate::types::{ErrorCode, RunError};
use crate::env::Env;

/// The built-in tools pi enables when `--tools` is not given.
pub const PI_DEFAULT_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

/// Where the session lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChoice {
    /// A new session at exactly this path (`--session <path>`; created by pi).
    NewFile(PathBuf),
    /// Continue the session stored in this file (`--session <path>`).
    Continue(PathBuf),
    /// No session file (`--no-session`).
    Ephemeral,
}

/// How the role body reaches pi.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SystemPromptMode {
    /// `--system-prompt <file>`: replaces pi's default prompt.
    #[default]
    Replace,
    /// `--append-system-prompt <file>`.
    Append,
}

/// How the user prompt reaches pi.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptTransport {
    Stdin,
    Argv,
}

/// One pi process to run.
#[derive(Debug, Clone)]
pub struct PiRunSpec {
    pub cwd: PathBuf,
    /// The user prompt, sent on stdin.
    pub prompt: String,
    /// A role body: written to a 0600 temp file passed as `--system-prompt <file>`.
    pub system_prompt: Option<String>,
    pub system_prompt_mode: SystemPromptMode,
    /// `Some(v)` → `--tools v.join(",")`; `Some(empty)` → `--no-tools`; `None` → pi's default.
    pub tools: Option<Vec<String>>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub thinking: Option<String>,
    pub session: SessionChoice,
    /// Overall wall-clock limit.
    pub timeout: Option<Duration>,
    /// The limit as the request stated it, when [`Self::timeout`] is what was left
    /// of it after waiting (for a lock): messages name the stated one (`timeoutMs
    /// 2000` is "within 2 s", never "within 1999 ms").
    pub timeout_stated: Option<Duration>,
    /// Longest time without any output from pi, once it has printed something, while
    /// no tool is running (a silent `cargo build` is not a stall).
    pub stall_timeout: Option<Duration>,
    /// Turn budget: the run is stopped when `turn_start` count exceeds it.
    pub max_turns: Option<u32>,
    /// Spend budget: tokens, cost (USD, as pi computes it) and wall clock; crossing
    /// one stops pi's group (`BUDGET_EXCEEDED`).
    pub budget: crate::delegate::budget::Budget,
    /// Extra flags, e.g. `--no-extensions`, `--no-skills`, `--no-prompt-templates`.
    pub extra_args: Vec<String>,
    /// Progress-line prefix, e.g. `[pwk-spec-reviewer]`.
    pub label: String,
    /// Variables set for pi on top of the inherited environment (pwk otherwise passes
    /// the caller's environment through unchanged).
    pub env: Vec<(String, String)>,
    /// Steering and abort from other threads (`pwk mcp`'s tasks).
    pub remote: Option<std::sync::Arc<crate::delegate::supervise::Remote>>,
    /// RPC with no `max_turns`: no turn budget at all (else the budget defaults to 1).
    pub rpc_unbudgeted: bool,
    /// Read-only and verification work: pass `--no-mcp` when this pi lists it in
    /// `pi --help` (pi 1.6 otherwise starts every configured MCP server, runs the
    /// `!command` values of `mcp.json` and waits for `direct` servers, although the
    /// `--tools` allow-list keeps MCP tools out of reach; pi 0.73.1 has no MCP and
    /// rejects the flag).
    pub no_mcp: bool,
}

impl PiRunSpec {
    /// A spec with pi's defaults: no system prompt, default tools, no session file.
    pub fn new(cwd: impl Into<PathBuf>, prompt: impl Into<String>) -> PiRunSpec {
        PiRunSpec {
            cwd: cwd.into(),
            prompt: prompt.into(),
            system_prompt: None,
            system_prompt_mode: SystemPromptMode::Replace,
            tools: None,
            provider: None,
            model: None,
            thinking: None,
            session: SessionChoice::Ephemeral,
            timeout: None,
            timeout_stated: None,
            stall_timeout: None,
            max_turns: None,
            budget: crate::delegate::budget::Budget::default(),
            extra_args: Vec::new(),
            label: "[pi]".to_string(),
            env: Vec::new(),
            remote: None,
            rpc_unbudgeted: false,
            no_mcp: false,
        }
    }

    /// The spec for running a role: its body as the system prompt (`systemPromptMode:
    /// append` appends it), its tools minus `deny-tools`, its thinking level, its model
    /// (`provider/id` → `--provider` + `--model`), its `max_turns`; no session file;
    /// extensions and prompt templates off, skills off unless the role lists some.
    pub fn for_role(role: &crate::role::Role, cwd: &Path, prompt: String) -> PiRunSpec {
        let mut spec = PiRunSpec::new(cwd, prompt);
        if !role.body.trim().is_empty() {
            spec.system_prompt = Some(role.body.clone());
        }
        if role.system_prompt_mode.as_deref() == Some("append") {
            spec.system_prompt_mode = SystemPromptMode::Append;
        }
        let deny = role.deny_tools.clone().unwrap_or_default();
        spec.tools = match (&role.tools, deny.is_empty()) {
            (Some(t), _) => Some(t.iter().filter(|x| !deny.contains(x)).cloned().collect()),
            (None, false) => Some(
                PI_DEFAULT_TOOLS
                    .iter()
                    .map(|s| s.to_string())
                    .filter(|x| !deny.contains(x))
                    .collect(),
            ),
            (None, true) => None,
        };
        spec.thinking = role.thinking.clone();
        if let Some(m) = role
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
        {
            match m.split_once('/') {
                Some((p, id)) if !p.is_empty() && !id.is_empty() => {
                    spec.provider = Some(p.to_string());
                    spec.model = Some(id.to_string());
                }
                _ => spec.model = Some(m.to_string()),
            }
        }
        spec.max_turns = role.max_turns.map(|n| n.min(u32::MAX as u64) as u32);
        spec.extra_args = vec!["--no-extensions".into(), "--no-prompt-templates".into()];
        if role.skills.is_none() {
            spec.extra_args.push("--no-skills".into());
        }
        if let Some(name) = role.name.as_deref() {
            spec.label = format!("[{name}]");
        }
        spec
    }
}

/// What would be launched: the program, its argument array, and the prompt transport.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PiLaunch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub prompt_transport: PromptTransport,
}

/// The placeholder `plan_launch` shows for the system-prompt temp file.
pub const SYSTEM_PROMPT_PLACEHOLDER: &str = "<system-prompt temp file>";

/// Plan the launch: locate the program and build the argument array. Pure apart from
/// locating the program (`$PWK_PI_BIN` when set, with no fallback; else `pi` on PATH)
/// and, for a `no_mcp` spec, asking it `pi --help` (once per binary, within the spec's
/// time limits).
pub fn plan_launch(spec: &PiRunSpec, env: &Env) -> Result<PiLaunch, RunError> {
    let program = locate_pi(env)?;
    let budget = [spec.timeout, spec.budget.wall()]
        .into_iter()
        .flatten()
        .min();
    let probed = probe_flags(spec, &program, env, budget, &mut Vec::new());
    let spec = probed.as_ref().unwrap_or(spec);
    let sys = spec
        .system_prompt
        .as_ref()
        .map(|_| PathBuf::from(SYSTEM_PROMPT_PLACEHOLDER));
    Ok(PiLaunch {
        program,
        args: build_args(
            spec,
            sys.as_deref(),
            OutputMode::Json,
            PromptTransport::Stdin,
        ),
        prompt_transport: PromptTransport::Stdin,
    })
}

/// Find the pi program ([`crate::pi::locate`]) as a classified error.
pub fn locate_pi(env: &Env) -> Result<PathBuf, RunError> {
    crate::pi::locate(env).map_err(|e| RunError::new(ErrorCode::PiNotFound, e.to_string()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutputMode {
    Json,
    Text,
    Rpc,
}

pub(crate) fn build_args(
    spec: &PiRunSpec,
    system_prompt_file: Option<&Path>,
    mode: OutputMode,
    transport: PromptTransport,
) -> Vec<String> {
    let mut a: Vec<String> = Vec::new();
    match mode {
        OutputMode::Json => a.extend(["--mode".into(), "json".into()]),
        OutputMode::Rpc => a.extend(["--mode".into(), "rpc".into()]),
        OutputMode::Text => a.push("--print".into()),
    }
    if let Some(p) = &spec.provider {
        a.extend(["--provider".into(), p.clone()]);
    }
    if let Some(m) = &spec.model {
        a.extend(["--model".into(), m.clone()]);
    }
    if let Some(t) = &spec.thinking {
        a.extend(["--thinking".into(), t.clone()]);
    }
    match &spec.tools {
        Some(t) if t.is_empty() => a.push("--no-tools".into()),
        Some(t) => a.extend(["--tools".into(), t.join(",")]),
        None => {}
    }
    match &spec.session {
        SessionChoice::NewFile(p) | SessionChoice::Continue(p) => {
            a.extend(["--session".into(), p.display().to_string()]);
        }
        SessionChoice::Ephemeral => a.push("--no-session".into()),
    }
    if let Some(f) = system_prompt_file {
        let flag = match spec.system_prompt_mode {
            SystemPromptMode::Replace => "--system-prompt",
            SystemPromptMode::Append => "--append-system-prompt",
        };
        a.extend([flag.into(), f.display().to_string()]);
    }
    a.extend(spec.extra_args.iter().cloned());
    if transport == PromptTransport::Argv {
        a.push(spec.prompt.clone());
    }
    a
}

/// Whether pi could start an MCP server for this run. pi 1.6 reads servers from
/// `<agent dir>/mcp.json` and, in a trusted project, `.pi/mcp.json` (its
/// docs/mcp.md, "Configure servers"); extensions can register more. So: either file
/// exists, or extensions are not turned off (`--no-extensions`). Otherwise there is
/// nothing for `--no-mcp` to stop and `pi --help` is not asked.
fn mcp_may_be_configured(spec: &PiRunSpec, env: &Env) -> bool {
    let agent_dir = spec
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "PI_CODING_AGENT_DIR")
        .map(|(_, v)| PathBuf::from(v))
        .or_else(|| env.agent_dir());
    !spec.extra_args.iter().any(|a| a == "--no-extensions")
        || agent_dir.is_some_and(|d| d.join("mcp.json").exists())
        || spec.cwd.join(".pi").join("mcp.json").exists()
}

/// The spec with the flags only some pi generations have, when this one lists them
/// in `pi --help` (learnt once per pi binary, [`crate::pi::help`]; never a version
/// check); `None` when nothing changes. `budget`: what is left of the caller's time
/// (the probe never runs past it).
pub(super) fn probe_flags(
    spec: &PiRunSpec,
    program: &Path,
    env: &Env,
    budget: Option<Duration>,
    warnings: &mut Vec<String>,
) -> Option<PiRunSpec> {
    if !spec.no_mcp
        || spec.extra_args.iter().any(|a| a == "--no-mcp")
        || !mcp_may_be_configured(spec, env)
    {
        return None;
    }
    let aborted = || spec.remote.as_ref().is_some_and(|r| r.aborted());
    let cache = env.cache_dir();
    let ask = crate::pi::help::Ask {
        cwd: &spec.cwd,
        env: &spec.env,
        cache: cache.as_ref(),
        limit: budget.map_or(crate::pi::help::HELP_LIMIT, |b| {
            b.min(crate::pi::help::HELP_LIMIT)
        }),
        stop: &aborted,
    };
    match crate::pi::help::options(program, &ask) {
        Ok(h) if h.lists("--no-mcp") => {
            let mut s = spec.clone();
            s.extra_args.push("--no-mcp".into());
            Some(s)
        }
        Ok(_) => None,
        Err(e) => {
            warnings.push(format!(
                "`pi --help` {e}, so pwk could not tell whether this pi has --no-mcp; it was not passed (configured MCP servers may start)"
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_for_a_readonly_task_with_model() {
        let mut spec = PiRunSpec::new("/w", "-starts with a dash");
        spec.provider = Some("mock".into());
        spec.model = Some("mock-model".into());
        spec.thinking = Some("low".into());
        spec.tools = Some(vec!["read".into(), "grep".into()]);
        spec.session = SessionChoice::NewFile("/s/a.jsonl".into());
        let args = build_args(&spec, None, OutputMode::Json, PromptTransport::Stdin);
        assert_eq!(
            args,
            [
                "--mode",
                "json",
                "--provider",
                "mock",
                "--model",
                "mock-model",
                "--thinking",
                "low",
                "--tools",
                "read,grep",
                "--session",
                "/s/a.jsonl"
            ]
        );
        spec.tools = Some(vec![]);
        spec.session = SessionChoice::Ephemeral;
        spec.provider = None;
        spec.model = None;
        spec.thinking = None;
        let args = build_args(
            &spec,
            Some(Path::new("/tmp/p.md")),
            OutputMode::Text,
            PromptTransport::Argv,
        );
        assert_eq!(
            args,
            [
                "--print",
                "--no-tools",
                "--no-session",
                "--system-prompt",
                "/tmp/p.md",
                "-starts with a dash"
            ]
        );
    }

    #[test]
    fn role_spec() {
        let role = crate::role::Role {
            name: Some("pwk-x".into()),
            tools: Some(vec!["read".into(), "bash".into()]),
            deny_tools: Some(vec!["bash".into()]),
            model: Some("mock/mock-model".into()),
            thinking: Some("low".into()),
            max_turns: Some(7),
            body: "# Role\n".into(),
            ..Default::default()
        };
        let spec = PiRunSpec::for_role(&role, Path::new("/w"), "go".into());
        assert_eq!(spec.tools.as_deref().unwrap(), ["read"]);
        assert_eq!(spec.provider.as_deref(), Some("mock"));
        assert_eq!(spec.model.as_deref(), Some("mock-model"));
        assert_eq!(spec.max_turns, Some(7));
        assert_eq!(spec.system_prompt.as_deref(), Some("# Role\n"));
        assert_eq!(spec.label, "[pwk-x]");
    }
}
