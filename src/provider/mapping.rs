//! Logical role → the job pi runs: effective definition, tools, model, budget.
//!
//! * body → system prompt (the role's `systemPromptMode: replace` intent);
//! * `tools` → pi's `--tools` allow-list, cut to [`READ_ONLY_TOOLS`] (every provider
//!   request is read-only); what was cut is noted in the result, never refused;
//! * `thinking` → pi's `--thinking`;
//! * `model` hint → `--provider/--model` when pi lists that model, otherwise pi's
//!   default model and a note (an unresolvable hint never fails the role);
//! * `max_turns` → the turn budget (default [`DEFAULT_TURN_BUDGET`]).

use std::path::PathBuf;
use std::time::Duration;

use super::contract::ReportContract;
use super::request::LogicalRole;
use crate::role::Role;
#[cfg(test)]
use crate::role::RoleDoc;

/// The tools a read-only role may have: pi built-ins that cannot write or run commands.
pub(crate) const READ_ONLY_TOOLS: [&str; 4] = ["read", "grep", "find", "ls"];

/// The turn budget of a role whose definition declares no `max_turns`.
pub(crate) const DEFAULT_TURN_BUDGET: u32 = 50;

/// How `pwk review` / `pwk recon` run a role of the provider contract (what `show`
/// and `smoke` describe, so that they say what those commands really do).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct ProviderRun {
    /// `pwk review --roles spec` or `pwk recon`.
    pub command: String,
    /// The default transport (`rpc`); `--transport json` stops hard at the budget.
    pub transport: &'static str,
    pub turn_budget: u32,
    /// `max_turns`, or pwk's default when the definition sets none.
    pub budget_from: &'static str,
    /// What happens at the budget under the default transport.
    pub at_budget: &'static str,
}

/// The turn budget of a role with `max_turns`, and whether it is pwk's default.
pub(crate) fn turn_budget(max_turns: Option<u64>) -> (u32, bool) {
    match max_turns {
        Some(n) if n > 0 => (u32::try_from(n).unwrap_or(u32::MAX), false),
        _ => (DEFAULT_TURN_BUDGET, true),
    }
}

/// How the provider commands run the role `name` with `max_turns` (None when `name`
/// is not one of the contract's five roles).
pub(crate) fn provider_run(name: &str, max_turns: Option<u64>) -> Option<ProviderRun> {
    let role = LogicalRole::ALL.into_iter().find(|r| r.name() == name)?;
    // A copy installed for a host without a turn bound has no `max_turns`: pwk's own
    // runner keeps the canonical role's budget.
    let canonical = max_turns
        .is_none()
        .then(|| crate::roles::canonical_max_turns(name))
        .flatten();
    let (turn_budget, defaulted) = turn_budget(max_turns.or(canonical));
    let budget_from = if defaulted {
        "pwk's default, as the role sets no max_turns"
    } else if canonical.is_some() {
        // Not this definition's `max_turns`: it sets none (issue #32).
        "the canonical role's max_turns, as this definition sets none"
    } else {
        "max_turns"
    };
    Some(ProviderRun {
        command: if role.is_reviewer() {
            format!("pwk review --roles {}", role.short())
        } else {
            "pwk recon".to_string()
        },
        transport: "rpc (pi --mode rpc)",
        turn_budget,
        budget_from,
        at_budget: "steered to stop and write its report (with --transport json: stopped)",
    })
}

/// A role's effective definition.
#[derive(Debug, Clone)]
pub(crate) struct EffectiveRole {
    pub role: Role,
    /// What discovery noticed (e.g. a broken higher-layer file that was skipped).
    pub notes: Vec<String>,
}

/// Where effective role definitions come from.
pub(crate) trait RoleCatalog {
    /// The effective definition of `role`, or why it cannot be used.
    fn effective(&self, role: LogicalRole) -> Result<EffectiveRole, String>;
}

/// The canonical roles compiled into pwk (the `package` layer), for the tests.
#[cfg(test)]
pub(crate) struct BundledCatalog;

#[cfg(test)]
impl RoleCatalog for BundledCatalog {
    fn effective(&self, role: LogicalRole) -> Result<EffectiveRole, String> {
        let bundled = crate::roles::bundled_role(role.name())
            .ok_or_else(|| format!("{role} is not bundled with pwk"))?;
        let doc = RoleDoc::parse(bundled.file_name(), bundled.content.as_bytes());
        let parsed = Role::from_doc(&doc)
            .ok_or_else(|| format!("the bundled {role} definition does not parse"))?;
        Ok(EffectiveRole {
            role: parsed,
            notes: Vec::new(),
        })
    }
}

/// Effective definitions through `discover/` under pwk's own layer rules
/// (project `.pi/agents` > project `.agents/agents` > global > package), resolved
/// from the request's repository root.
pub(crate) struct DiscoverCatalog {
    discovery: crate::discover::Discovery,
}

impl DiscoverCatalog {
    /// The project of the request's `cwd` ([`crate::project::Project`]: its root
    /// found by the one rule, `$HOME` and pi's agent directory from `env`).
    pub(crate) fn new(cwd: &std::path::Path, env: &crate::env::Env) -> DiscoverCatalog {
        let opts = crate::project::ProjectOptions {
            cwd: cwd.to_path_buf(),
            home: env.home.clone(),
            agent_dir: env.agent_dir(),
            ..Default::default()
        };
        // With neither --dir nor --config nothing is checked, so nothing fails.
        let project = crate::project::Project::open(opts).unwrap_or_else(|_| {
            crate::project::Project::at(cwd.to_path_buf(), env.home.clone(), env.agent_dir(), None)
        });
        DiscoverCatalog::in_project(&project)
    }

    /// The roles of `project` under pwk's own layer rules (pwk's runner is the host
    /// here, whatever host the project names).
    pub(crate) fn in_project(project: &crate::project::Project) -> DiscoverCatalog {
        DiscoverCatalog {
            discovery: crate::discover::resolve_in(
                &project.roots(),
                crate::host::HostId::Pwk.newest(),
            ),
        }
    }
}

impl RoleCatalog for DiscoverCatalog {
    fn effective(&self, role: LogicalRole) -> Result<EffectiveRole, String> {
        let found = self
            .discovery
            .find(role.name())
            .ok_or_else(|| format!("no definition of {role} in any layer"))?;
        let mut notes: Vec<String> = Vec::new();
        for f in self.discovery.unloaded(role.name()) {
            if let Some(problem) = &f.problem {
                notes.push(format!(
                    "{} was skipped ({problem}); the {} definition ran instead",
                    f.path.display(&self.discovery.cwd),
                    found.layer.as_str()
                ));
            }
        }
        if found.role.body.trim().is_empty() {
            return Err(format!(
                "{} has an empty body, so the role would run without its contract",
                found.path.display(&self.discovery.cwd)
            ));
        }
        Ok(EffectiveRole {
            role: found.role.clone(),
            notes,
        })
    }
}

/// What pi can run: `(provider, model id)` pairs from `pi --list-models`.
pub(crate) trait ModelCatalog {
    /// The `(provider, model)` a hint resolves to, or `Err(why not)`.
    fn resolve(&self, hint: &str) -> Result<(String, String), String>;
}

/// pi's model table, parsed by the pi adapter (the one `--list-models` parser).
pub(crate) use crate::pi::ModelList;

impl ModelCatalog for ModelList {
    fn resolve(&self, hint: &str) -> Result<(String, String), String> {
        let hint = hint.trim();
        // A `:thinking` suffix is pi syntax; the thinking level comes from the role.
        let bare = hint.split_once(':').map_or(hint, |(m, _)| m);
        let found = match bare.split_once('/') {
            Some((p, m)) => self.models.iter().find(|(pp, mm)| pp == p && mm == m),
            None => {
                let hits: Vec<_> = self.models.iter().filter(|(_, mm)| mm == bare).collect();
                if hits.len() > 1 {
                    return Err(format!(
                        "model hint {hint:?} is ambiguous: {} providers offer it (write it as provider/id)",
                        hits.len()
                    ));
                }
                hits.into_iter().next()
            }
        };
        match found {
            Some((p, m)) => Ok((p.clone(), m.clone())),
            None if self.models.is_empty() => Err(format!(
                "model hint {hint:?} cannot be checked: pi lists no models"
            )),
            None => Err(format!(
                "model hint {hint:?} is not among the models pi lists"
            )),
        }
    }
}

/// One role, ready to run: everything the executor needs, nothing it must decide.
#[derive(Debug, Clone)]
pub(crate) struct RoleJob {
    /// Position in the request (results come back in this order).
    pub index: usize,
    pub role: LogicalRole,
    /// The role body, used as pi's system prompt.
    pub system_prompt: String,
    /// The user prompt.
    pub prompt: String,
    pub cwd: PathBuf,
    /// pi's `--tools` allow-list (already cut to read-only tools).
    pub tools: Vec<String>,
    /// `(provider, model)` when the role's hint resolved; `None` = pi's default model.
    pub model: Option<(String, String)>,
    pub thinking: Option<String>,
    pub turn_budget: u32,
    /// The spend limits of this role's run (tokens, cost, wall clock).
    pub budget: crate::delegate::Budget,
    pub timeout: Duration,
    /// Stop a role whose pi prints nothing for this long while no tool runs.
    pub stall_timeout: Option<Duration>,
    /// What the report is checked against.
    pub contract: ReportContract,
    /// Facts about the mapping that end up in the result's `notes`.
    pub notes: Vec<String>,
    /// The effective definition itself (system-prompt mode, skills, …).
    pub definition: Role,
}

/// Per-run settings that apply to every job.
#[derive(Debug, Clone)]
pub(crate) struct JobSettings {
    pub timeout: Duration,
    pub stall_timeout: Option<Duration>,
    pub six_field: bool,
}

/// Map one logical role to its job.
pub(crate) fn build_job(
    index: usize,
    role: LogicalRole,
    def: &EffectiveRole,
    prompt: &str,
    cwd: &std::path::Path,
    settings: &JobSettings,
    models: &dyn ModelCatalog,
) -> RoleJob {
    let mut notes = def.notes.clone();
    let r = &def.role;

    let (tools, cut) = read_only_tools(r.tools.as_deref(), r.deny_tools.as_deref());
    if !cut.is_empty() {
        notes.push(format!(
            "read-only: removed tool(s) {} from the definition's tools; the role ran with --tools {}",
            cut.join(", "),
            if tools.is_empty() { "(none)".to_string() } else { tools.join(",") }
        ));
    }

    let model = match r.model.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
        None => None,
        Some(hint) => match models.resolve(hint) {
            Ok(pm) => Some(pm),
            Err(why) => {
                notes.push(format!(
                    "{why}; the hint is not passed to pi, so pi's default model applies"
                ));
                None
            }
        },
    };

    // A copy installed for a host without a turn bound has no `max_turns`: the
    // canonical role's budget applies.
    let (turn_budget, defaulted) = turn_budget(
        r.max_turns
            .or_else(|| crate::roles::canonical_max_turns(role.name())),
    );
    if defaulted {
        notes.push(format!(
            "the definition sets no max_turns; pwk applied a turn budget of {DEFAULT_TURN_BUDGET}"
        ));
    }

    let mut full_prompt = prompt.to_string();
    let contract = if settings.six_field {
        full_prompt.push_str("\n\n");
        full_prompt.push_str(&super::contract::six_field_instruction());
        ReportContract::SixField
    } else {
        ReportContract::Role(role)
    };

    RoleJob {
        index,
        role,
        system_prompt: r.body.clone(),
        prompt: full_prompt,
        cwd: cwd.to_path_buf(),
        tools,
        model,
        thinking: r.thinking.clone().filter(|t| !t.trim().is_empty()),
        turn_budget,
        budget: crate::delegate::Budget::default(),
        timeout: settings.timeout,
        stall_timeout: settings.stall_timeout,
        contract,
        notes,
        definition: r.clone(),
    }
}

/// The read-only allow-list for a definition's `tools`/`deny-tools`, and what was cut.
///
/// No `tools` key means pi's defaults (which include `bash`, `edit`, `write`): the role
/// gets all four read-only tools instead. Order follows the definition.
pub(crate) fn read_only_tools(
    tools: Option<&[String]>,
    deny: Option<&[String]>,
) -> (Vec<String>, Vec<String>) {
    let denied = |t: &str| deny.is_some_and(|d| d.iter().any(|x| x == t));
    let mut kept = Vec::new();
    let mut cut = Vec::new();
    match tools {
        None => {
            for t in READ_ONLY_TOOLS {
                if !denied(t) {
                    kept.push(t.to_string());
                }
            }
        }
        Some(list) => {
            for t in list {
                let t = t.trim();
                if t.is_empty() || kept.iter().any(|k| k == t) || cut.iter().any(|k| k == t) {
                    continue;
                }
                if READ_ONLY_TOOLS.contains(&t) {
                    if !denied(t) {
                        kept.push(t.to_string());
                    }
                } else {
                    cut.push(t.to_string());
                }
            }
        }
    }
    (kept, cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn tools_are_cut_to_the_read_only_set_and_the_cut_is_reported() {
        let (kept, cut) = read_only_tools(Some(&s(&["read", "grep", "find", "ls", "bash"])), None);
        assert_eq!(kept, ["read", "grep", "find", "ls"]);
        assert_eq!(cut, ["bash"]);
        let (kept, cut) = read_only_tools(
            Some(&s(&["write", "edit", "read", "mcp_tool"])),
            Some(&s(&["read"])),
        );
        assert!(kept.is_empty());
        assert_eq!(cut, ["write", "edit", "mcp_tool"]);
        let (kept, cut) = read_only_tools(None, Some(&s(&["grep"])));
        assert_eq!(kept, ["read", "find", "ls"]);
        assert!(cut.is_empty());
    }

    #[test]
    fn model_list_parses_pi_table_and_resolves_hints() {
        let text = "Warning: something\nprovider  model          context  max-out  thinking  images\nmock      mock-model     128K     16.4K    no        no\nmock      mock-reasoner  128K     16.4K    yes       no\nother     mock-model     8K       1K       no        no\n";
        let list = ModelList::parse(text);
        assert_eq!(list.models.len(), 3);
        assert_eq!(
            list.resolve("mock/mock-reasoner"),
            Ok(("mock".into(), "mock-reasoner".into()))
        );
        assert_eq!(
            list.resolve("mock-reasoner:low"),
            Ok(("mock".into(), "mock-reasoner".into()))
        );
        assert!(
            list.resolve("mock-model")
                .unwrap_err()
                .contains("ambiguous")
        );
        assert!(
            list.resolve("anthropic/claude-x")
                .unwrap_err()
                .contains("not among")
        );
        assert!(
            ModelList::default()
                .resolve("x")
                .unwrap_err()
                .contains("lists no models")
        );
    }

    fn def(text: &str) -> EffectiveRole {
        let doc = RoleDoc::parse("r.md", text.as_bytes());
        EffectiveRole {
            role: Role::from_doc(&doc).unwrap(),
            notes: vec![],
        }
    }

    #[test]
    fn a_definition_maps_to_a_job() {
        let d = def(
            "---\nname: pwk-smell-reviewer\ndescription: d\ntools: read, grep, find, ls, bash\nthinking: low\nmax_turns: 20\nmodel: nope/fast\n---\n# PWK Reviewer\nbody\n",
        );
        let models = ModelList::parse("provider model\nmock mock-model\n");
        let settings = JobSettings {
            timeout: Duration::from_secs(9),
            stall_timeout: None,
            six_field: false,
        };
        let job = build_job(
            2,
            LogicalRole::SmellReviewer,
            &d,
            "Review it.",
            std::path::Path::new("/repo"),
            &settings,
            &models,
        );
        assert_eq!(job.index, 2);
        assert_eq!(job.system_prompt, "# PWK Reviewer\nbody\n");
        assert_eq!(job.tools, ["read", "grep", "find", "ls"]);
        assert_eq!(job.model, None);
        assert_eq!(job.thinking.as_deref(), Some("low"));
        assert_eq!(job.turn_budget, 20);
        assert_eq!(job.timeout, Duration::from_secs(9));
        assert_eq!(
            job.contract,
            ReportContract::Role(LogicalRole::SmellReviewer)
        );
        assert_eq!(job.prompt, "Review it.");
        assert!(
            job.notes.iter().any(|n| n.contains("removed tool(s) bash")),
            "{:?}",
            job.notes
        );
        assert!(
            job.notes
                .iter()
                .any(|n| n.contains("\"nope/fast\"") && n.contains("default model")),
            "{:?}",
            job.notes
        );
    }

    #[test]
    fn resolvable_hint_default_budget_and_six_field() {
        let d = def(
            "---\nname: pwk-recon-scout\ndescription: d\ntools: read, ls\nmodel: mock/mock-model\n---\nB\n",
        );
        let models = ModelList::parse("provider model\nmock mock-model\n");
        let settings = JobSettings {
            timeout: Duration::from_secs(1),
            stall_timeout: None,
            six_field: true,
        };
        let job = build_job(
            0,
            LogicalRole::ReconScout,
            &d,
            "P",
            std::path::Path::new("/r"),
            &settings,
            &models,
        );
        assert_eq!(job.model, Some(("mock".into(), "mock-model".into())));
        assert_eq!(job.turn_budget, DEFAULT_TURN_BUDGET);
        assert_eq!(job.contract, ReportContract::SixField);
        assert!(job.prompt.contains("recommended_parent_action:"));
        assert!(job.notes.iter().any(|n| n.contains("turn budget of 50")));
    }

    #[test]
    fn discover_catalog_prefers_project_then_global_then_bundled() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("repo");
        let agent = tmp.path().join("agent");
        std::fs::create_dir_all(cwd.join(".git")).unwrap();
        std::fs::create_dir_all(cwd.join(".agents/agents")).unwrap();
        std::fs::create_dir_all(agent.join("agents")).unwrap();
        let env = crate::env::Env {
            pi_agent_dir: Some(agent.clone()),
            home: Some(tmp.path().join("home")),
            ..crate::env::Env::default()
        };
        let role = |model: &str| {
            format!("---\nname: pwk-smell-reviewer\ndescription: d\nmodel: {model}\n---\nBody\n")
        };
        std::fs::write(agent.join("agents/pwk-smell-reviewer.md"), role("g/m")).unwrap();
        let d = DiscoverCatalog::new(&cwd, &env)
            .effective(LogicalRole::SmellReviewer)
            .unwrap();
        // The global copy wins over the bundled one.
        assert_eq!(d.role.model.as_deref(), Some("g/m"));
        std::fs::write(
            cwd.join(".agents/agents/pwk-smell-reviewer.md"),
            role("p/m"),
        )
        .unwrap();
        let d = DiscoverCatalog::new(&cwd, &env)
            .effective(LogicalRole::SmellReviewer)
            .unwrap();
        // The project copy wins over the global one.
        assert_eq!(d.role.model.as_deref(), Some("p/m"));
        // No copy anywhere: the bundled one.
        let bundled = |r| BundledCatalog.effective(r).unwrap().role;
        assert_eq!(
            DiscoverCatalog::new(&cwd, &env)
                .effective(LogicalRole::HazardReviewer)
                .unwrap()
                .role,
            bundled(LogicalRole::HazardReviewer)
        );
        std::fs::write(
            cwd.join(".agents/agents/pwk-hazard-reviewer.md"),
            "---\nname: [\n---\nB\n",
        )
        .unwrap();
        let d = DiscoverCatalog::new(&cwd, &env)
            .effective(LogicalRole::HazardReviewer)
            .unwrap();
        assert_eq!(d.role, bundled(LogicalRole::HazardReviewer));
        assert!(
            d.notes.iter().any(|n| n.contains("was skipped")),
            "{:?}",
            d.notes
        );
    }

    #[test]
    fn every_bundled_role_maps() {
        for r in LogicalRole::ALL {
            let d = BundledCatalog.effective(r).unwrap();
            assert_eq!(d.role.name.as_deref(), Some(r.name()));
        }
    }
}
