//! The runtime settings a role resolves to under a host: tools, thinking, turn
//! budget, and the model chain of seed 004 §4.
//!
//! Model chain, first usable link wins: explicit invocation (`--model`) > the role's
//! frontmatter `model` > per-agent config > global config > parent/default. A host
//! with its own CLI (Claude Code, OpenCode, Gemini CLI, Copilot CLI) has no config
//! links: its chain goes from the role to that host's default.
//!
//! Files read (all optional, read with the same no-symlink, size-capped reader as
//! role files; a missing or broken file is reported, never an error):
//! - per-agent and global config: pi-herdr-agents' `<agent dir>/herdr-agents/config.json`,
//!   keys `models.agents.<role>` and `models.default`. Read for the pwk and herdr
//!   hosts; tintinweb and nicobailon have no such links.
//! - parent/default: pi's `<agent dir>/settings.json`, overridden by
//!   `<cwd>/.pi/settings.json`: `defaultProvider` + `defaultModel`
//!   (and `defaultThinkingLevel` for thinking). Without them pi takes the first
//!   model that has credentials.
//!
//! A hint is never checked against pi's model registry (that needs a pi process and
//! credentials); a hint that cannot be a model id at all (empty, whitespace, a
//! `<placeholder>`) is shown as falling back to the next link.

use std::path::Path;

use serde::Serialize;

use super::{Host, HostId, ResolvedRole};
use crate::pi::settings::{PiDefaults, read_json};

/// What `show` needs besides the role.
#[derive(Debug, Clone)]
pub(crate) struct RuntimeInputs<'a> {
    pub host: Host,
    /// `--model` for this invocation.
    pub explicit_model: Option<&'a str>,
    /// pi's agent directory (`$PI_CODING_AGENT_DIR`, default `~/.pi/agent`).
    pub agent_dir: Option<&'a Path>,
    /// The directory pi would start in (project `.pi/settings.json` is read there).
    pub cwd: &'a Path,
    /// The project root: a host's project settings files are read there (`None`:
    /// the host's own settings files are not read at all).
    pub root: Option<&'a Path>,
    pub home: Option<&'a Path>,
    /// The host variables set ([`crate::env::HOST_VARS`]; `None`: not known).
    pub host_vars: Option<&'a std::collections::BTreeMap<&'static str, String>>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Runtime {
    /// `pi` (a pi host runs the child on pi), `host-cli` (a host with its own CLI
    /// runs it itself), or `external-cli` for an adapter that sets `cli`.
    pub kind: &'static str,
    pub tools: Tools,
    pub thinking: Setting<String>,
    pub max_turns: Setting<u64>,
    pub model: ModelResolution,
    /// For adapters: the external CLI and its model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cli: Option<CliRuntime>,
    /// Every config file consulted, with what was found.
    pub config_files: Vec<ConfigFile>,
    /// What the host's own settings files set for this role ([`crate::host::HostSettings`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<SettingFound>,
    /// What else decides that pwk does not read, in words; for a host with its own
    /// CLI whose settings pwk knows nothing of, that.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub settings_unread: Vec<String>,
    /// Set when the host's settings turn the role off: which key, where, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disabled: Option<String>,
}

/// A settings key set in one of the host's own settings files.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SettingFound {
    /// As written (`agents.overrides.finder.runConfig.maxTurns`).
    pub key: String,
    pub value: serde_json::Value,
    /// The file that decides it (the highest-priority one that sets it), or, for a
    /// list whose entries add up across the files, the file of this part of it.
    pub file: String,
    /// What it does to the sub-agent.
    pub note: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Tools {
    /// The `tools` value as written; `None` when absent.
    pub declared: Option<Vec<String>>,
    /// The tools the child gets from its role and host; one the host's settings
    /// deny every call of stays here, marked in `limits` (`denied by settings`:
    /// Claude Code takes it out of the child's context).
    pub effective: Vec<String>,
    /// The host's default applies because `tools` is absent.
    pub host_default: bool,
    /// The child can change files (bash, edit or write).
    pub mutating: bool,
    /// The role's deny entries as written (its host's deny key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deny_tools: Option<Vec<String>>,
    /// Set when the child also gets every other tool of the session, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
    /// Tools the child gets but may not use on every call (a specifier, a
    /// permission mode, a ruleset's `ask`, the host's settings' deny rules).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<Limit>,
    /// The deny rules of the host's own settings that reach the role's tools: the
    /// tool, the rule, its key and file, and whether it denies every call.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub settings_deny: Vec<crate::host::effective::SettingsDenial>,
    /// The deny rules of the host's own settings that deny nothing (the host drops
    /// them, or they name no tool as written), each with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub settings_ignored: Vec<crate::host::effective::IgnoredRule>,
    /// The permission mode the role sets, where the host reads one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    pub note: String,
    /// The MCP tools the child reaches besides these, where the host hands `tools`
    /// to pi's allow-list (the host profile's `tools.mcp`): absent when it reaches
    /// none, or pwk has no such fact for the host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpReach>,
}

impl Tools {
    /// Each tool of `effective` with its limit, where it has one (`Bash`, `read-only
    /// calls`): what every front end lists as the child's tools, so a tool the child
    /// may not use on every call (or at all, `denied by settings`) is never shown as
    /// a plain grant.
    pub(crate) fn granted(&self) -> impl Iterator<Item = (&str, Option<&'static str>)> {
        self.effective.iter().map(|t| {
            let limit = self.limits.iter().find(|l| &l.tool == t).map(|l| l.calls);
            (t.as_str(), limit)
        })
    }
}

/// A tool the child gets with a restriction.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Limit {
    pub tool: String,
    /// `asks first`, `read-only calls`, `some calls`, `no call`; `denied by
    /// settings`, `partly denied by settings` for the host's settings' deny rules.
    pub calls: &'static str,
    pub why: String,
}

/// The MCP tools (pi's `mcp.json`) a role reaches on the pi generation that has them.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct McpReach {
    /// The pi versions this holds on (`>=1.0.4`).
    pub pi: String,
    /// What opens them: the gateway entries (`codemode`, `tool_search`), the
    /// `mcp__…` entries named, or nothing (no allow-list).
    pub via: Vec<String>,
    /// Every configured MCP tool, mutating ones too (`false`: only those named).
    pub every_tool: bool,
    pub note: String,
}

/// What pi makes of an allow-list (`None`: no `tools`) for MCP, per `fact`.
fn mcp_reach(fact: &crate::host::McpReach, list: Option<&[String]>) -> Option<McpReach> {
    let pi = fact.pi.to_string();
    let Some(list) = list else {
        return fact.missing_reaches.then(|| McpReach {
            pi: pi.clone(),
            via: Vec::new(),
            every_tool: true,
            note: format!(
                "no allow-list: on pi {pi} every MCP tool configured in pi's `mcp.json`, mutating ones too"
            ),
        });
    };
    let named: Vec<String> = list
        .iter()
        .filter(|x| x.starts_with("mcp__"))
        .cloned()
        .collect();
    if !named.is_empty() {
        return Some(McpReach {
            note: format!("on pi {pi} only the MCP tools named: {}", named.join(", ")),
            pi,
            via: named,
            every_tool: false,
        });
    }
    let gates: Vec<String> = list
        .iter()
        .filter(|x| fact.is_gateway(x))
        .cloned()
        .collect();
    (!gates.is_empty()).then(|| McpReach {
        note: format!(
            "on pi {pi} `{}` reaches every MCP tool configured in pi's `mcp.json`, mutating ones too",
            gates.join("`, `")
        ),
        pi,
        via: gates,
        every_tool: true,
    })
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Setting<T> {
    pub value: Option<T>,
    /// Whether the host acts on the key.
    pub honoured: bool,
    pub note: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct CliRuntime {
    pub cli: String,
    pub cli_model: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ModelResolution {
    /// The model the chain settles on; `None` when pi picks (first model with credentials).
    pub effective: Option<String>,
    /// The link that decided.
    pub decided_by: &'static str,
    pub chain: Vec<ChainLink>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ChainLink {
    /// `invocation`, `frontmatter`, `per-agent-config`, `global-config`, `parent-default`.
    pub link: &'static str,
    /// Where the value comes from, in words.
    pub from: String,
    pub value: Option<String>,
    pub status: LinkStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum LinkStatus {
    /// Nothing set here.
    Unset,
    /// This link decided.
    Decides,
    /// Set, but unusable: the chain moves on.
    FallsBack,
    /// Set, but a higher link decided.
    NotReached,
    /// The host has no such link.
    NotRead,
}

impl LinkStatus {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LinkStatus::Unset => "unset",
            LinkStatus::Decides => "decides",
            LinkStatus::FallsBack => "falls back",
            LinkStatus::NotReached => "not reached",
            LinkStatus::NotRead => "not read",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ConfigFile {
    /// As shown (relative to the current directory when under it).
    pub path: String,
    /// What pwk reads it for.
    pub purpose: &'static str,
    /// `absent`, `read`, or the problem.
    pub status: String,
}

/// Resolve the runtime settings of `role` under `inputs.host`.
pub(crate) fn resolve_runtime(role: &ResolvedRole, inputs: &RuntimeInputs<'_>) -> Runtime {
    let host = inputs.host;
    let r = &role.role;
    let mut config_files = Vec::new();
    // pi's settings matter only where the child runs on pi.
    let on_pi = host.host.is_pi();
    // A host with its own CLI reads its own settings files, where pwk knows them.
    let own = match (&*host.settings, on_pi) {
        (Some(set), false) => inputs
            .root
            .map(|root| OwnSettings::load(set, root, inputs, &mut config_files)),
        _ => None,
    };
    let settings = if on_pi {
        PiSettings::load(inputs, &mut config_files)
    } else {
        PiSettings {
            default_model: None,
            default_thinking: None,
        }
    };
    let denies = match (&*host.settings, &own) {
        (Some(set), Some(own)) => own.deny_rules(set),
        _ => Vec::new(),
    };
    let tools = tools(host, role, &denies);
    let thinking = match setting_key(host, Some(role), "thinking") {
        Some((key, fact)) if key != "thinking" => {
            own_setting(host, role, key, fact, |n| n.as_str().map(str::to_string))
        }
        Some(_) => thinking(host, role, &settings),
        None => unread_setting(host, role, "thinking", |n| n.as_str().map(str::to_string)),
    };
    let max_turns = match setting_key(host, Some(role), "max-turns") {
        Some((key, fact)) if key != "max_turns" => {
            own_setting(host, role, key, fact, |n| n.to_json().as_u64())
        }
        _ => max_turns(host, role),
    };
    let (kind, model, cli) = match &r.cli {
        Some(cli) => {
            let mut notes = vec![format!(
                "external CLI runtime `{cli}`: the pi model chain does not apply; `cli-model` selects the model"
            )];
            if r.model.is_some() {
                notes.push(
                    "`model` is set on an adapter: it does not select the CLI's model (use `cli-model`)"
                        .to_string(),
                );
            }
            let model = ModelResolution {
                effective: r.cli_model.clone(),
                decided_by: "cli-model",
                chain: Vec::new(),
                notes,
            };
            (
                "external-cli",
                model,
                Some(CliRuntime {
                    cli: cli.clone(),
                    cli_model: r.cli_model.clone(),
                }),
            )
        }
        None => {
            let herdr = host
                .model_config
                .as_ref()
                .map(|c| HerdrConfig::load(c, inputs, &role.name, &mut config_files));
            let mut model = match (&*host.settings, &own) {
                (Some(set), Some(own)) => host_chain(role, inputs, set, own),
                _ => model_chain(role, inputs, herdr.as_ref(), &settings),
            };
            if let (Some(m), false) = (inputs.explicit_model, on_pi) {
                model.notes.push(format!(
                    "`--model {m}` is not used: {} picks the model of a role it runs itself",
                    host.label()
                ));
            }
            (if on_pi { "pi" } else { "host-cli" }, model, None)
        }
    };
    let mut max_turns = max_turns;
    let mut disabled = None;
    let (settings, settings_unread) = match (&*host.settings, &own) {
        (Some(set), Some(own)) => {
            own.apply(set, role, &mut max_turns, &mut disabled);
            (
                own.found(set, &role.name),
                set.unread.iter().map(|s| s.to_string()).collect(),
            )
        }
        (None, _) if !on_pi => (
            Vec::new(),
            vec![format!(
                "not known to pwk: which of {}'s own settings files change a role",
                host.label()
            )],
        ),
        _ => (Vec::new(), Vec::new()),
    };
    Runtime {
        kind,
        tools,
        thinking,
        max_turns,
        model,
        cli,
        config_files,
        settings,
        settings_unread,
        disabled,
    }
}

/// A host's own settings files as read for one role, lowest priority first.
struct OwnSettings {
    files: Vec<(String, serde_json::Value)>,
}

impl OwnSettings {
    fn load(
        set: &'static crate::host::HostSettings,
        root: &Path,
        inputs: &RuntimeInputs<'_>,
        out: &mut Vec<ConfigFile>,
    ) -> OwnSettings {
        let mut files = Vec::new();
        // The files located so far: when HOME is the project root, the user's and the
        // project's settings are one file, whose rules count once.
        let mut seen: Vec<std::path::PathBuf> = Vec::new();
        for f in &set.files {
            let Some(path) = f.locate(inputs.home, root) else {
                out.push(ConfigFile {
                    path: f.display(),
                    purpose: "the host's settings",
                    status: "not read: HOME is not set".to_string(),
                });
                continue;
            };
            let display = crate::display::display_path(inputs.cwd, &path);
            let purpose = match f.layer {
                "user" => "the host's user settings",
                "project" => "the host's project settings",
                "local" => "the host's local settings",
                _ => "the host's settings",
            };
            if seen.contains(&path) {
                out.push(ConfigFile {
                    path: display,
                    purpose,
                    status: "the same file as above (HOME is the project): read once".to_string(),
                });
                continue;
            }
            seen.push(path.clone());
            let read = if f.path.ends_with(".jsonc") {
                crate::pi::settings::read_jsonc(&path)
            } else {
                read_json(&path)
            };
            let status = match read {
                Ok(None) => "absent".to_string(),
                Err(e) => format!("{e}: ignored"),
                Ok(Some(json)) => {
                    files.push((display.clone(), json));
                    "read".to_string()
                }
            };
            out.push(ConfigFile {
                path: display,
                purpose,
                status,
            });
        }
        OwnSettings { files }
    }

    /// The value of `key` (`<role>` is `role`) in the highest-priority file that
    /// sets it, with that file.
    fn get(&self, key: &str, role: &str) -> Option<(&serde_json::Value, &str)> {
        self.files.iter().rev().find_map(|(display, json)| {
            crate::host::HostSettings::lookup(key, role, json).map(|v| (v, display.as_str()))
        })
    }

    /// Every value of `key` (`<role>` is `role`), each with its file, lowest
    /// priority first: for lists whose entries add up across the files.
    fn every<'a>(
        &'a self,
        key: &'a str,
        role: &'a str,
    ) -> impl Iterator<Item = (&'a serde_json::Value, &'a str)> {
        self.files.iter().filter_map(move |(display, json)| {
            crate::host::HostSettings::lookup(key, role, json).map(|v| (v, display.as_str()))
        })
    }

    /// The deny rules of the keys that deny tools ([`crate::host::SettingsKey::denies_tools`]),
    /// every file's (the rules add up), lowest priority first.
    fn deny_rules(&self, set: &crate::host::HostSettings) -> Vec<crate::host::effective::DenyRule> {
        let mut out = Vec::new();
        for k in set.keys.iter().filter(|k| k.denies_tools.is_some()) {
            for (value, file) in self.every(k.key, "") {
                for rule in value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.as_str())
                {
                    out.push(crate::host::effective::DenyRule {
                        rule: rule.to_string(),
                        key: k.key.to_string(),
                        file: file.to_string(),
                    });
                }
            }
        }
        out
    }

    /// What the settings change of the role: a turn limit they set (over the
    /// file's own, or where it has none, as the host merges them), and whether
    /// they turn the role off.
    fn apply(
        &self,
        set: &crate::host::HostSettings,
        role: &ResolvedRole,
        max_turns: &mut Setting<u64>,
        disabled: &mut Option<String>,
    ) {
        for k in &set.keys {
            let Some((value, file)) = self.get(k.key, &role.name) else {
                continue;
            };
            let key = k.key.replace("<role>", &role.name);
            if disabled.is_none() {
                if k.disables.as_ref() == Some(value) {
                    *disabled = Some(format!("`{key}: {value}` in {file}: {}", k.note));
                }
                // A list entry: the lists of every file add up (permission rules).
                if let Some(entry) = &k.disables_entry {
                    let entry = entry.replace("<role>", &role.name);
                    let has = |v: &serde_json::Value| {
                        v.as_array()
                            .is_some_and(|a| a.iter().any(|e| e.as_str() == Some(entry.as_str())))
                    };
                    let files: Vec<(&serde_json::Value, &str)> =
                        self.every(k.key, &role.name).collect();
                    if let Some((_, file)) = files.into_iter().rev().find(|(v, _)| has(v)) {
                        *disabled = Some(format!("`{entry}` in `{key}` of {file}: {}", k.note));
                    }
                }
            }
            if k.sets == Some("max-turns")
                && let Some(n) = value.as_u64()
            {
                if k.over_file || max_turns.value.is_none() {
                    let over = match max_turns.value {
                        Some(own) => format!(", over the file's {own}"),
                        None => String::new(),
                    };
                    *max_turns = Setting {
                        value: Some(n),
                        honoured: true,
                        note: format!("`{key}` in {file}{over}"),
                    };
                } else {
                    max_turns.note.push_str(&format!(
                        "; `{key}: {n}` in {file} is not used: the file's own wins"
                    ));
                }
            }
        }
    }

    /// Every key of `set` that one of the files sets: the highest-priority file's
    /// value, or, for a list whose entries add up across the files (permission
    /// rules), every file's, lowest priority first.
    fn found(&self, set: &crate::host::HostSettings, role: &str) -> Vec<SettingFound> {
        let mut out = Vec::new();
        for k in &set.keys {
            let found = |(value, file): (&serde_json::Value, &str)| SettingFound {
                key: k.key.replace("<role>", role),
                value: value.clone(),
                file: file.to_string(),
                note: k.note.to_string(),
            };
            if k.disables_entry.is_some() || k.denies_tools.is_some() {
                out.extend(self.every(k.key, role).map(found));
            } else {
                out.extend(self.get(k.key, role).map(found));
            }
        }
        out
    }
}

/// The model chain of a host with its own CLI, as its profile's
/// `settings.model_chain` describes it: each link read from the role, the
/// environment or the host's settings files.
fn host_chain(
    role: &ResolvedRole,
    inputs: &RuntimeInputs<'_>,
    set: &'static crate::host::HostSettings,
    own: &OwnSettings,
) -> ModelResolution {
    let host = inputs.host;
    let path = role.path.display(inputs.cwd);
    let mut links: Vec<ChainLink> = Vec::new();
    for step in &set.model_chain {
        let link = step.link;
        if link == "frontmatter" {
            let key = setting_key(host, Some(role), "model").map_or("model", |(k, _)| k);
            links.push(ChainLink {
                link,
                from: format!("`{key}` in {path}"),
                value: role.role.model.clone(),
                status: LinkStatus::Unset,
                note: step.note.map(str::to_string),
            });
            continue;
        }
        let from_env = step.env.iter().find_map(|name| {
            let v = inputs.host_vars?.get(*name)?;
            Some((v.clone(), format!("`${name}` in the environment")))
        });
        let from_key = || {
            let key = step.key?;
            let (v, file) = own.get(key, &role.name)?;
            Some((
                v.as_str()?.to_string(),
                format!("`{}` in {file}", key.replace("<role>", &role.name)),
            ))
        };
        let (value, from) = match from_env.or_else(from_key) {
            Some((v, where_)) => (Some(v), where_),
            None => (None, step.from.to_string()),
        };
        links.push(ChainLink {
            link,
            from,
            value,
            status: LinkStatus::Unset,
            note: step.note.map(str::to_string),
        });
    }
    let inherit = |v: &str| host.models.inherit.contains(&v);
    let parent = links
        .iter()
        .rposition(|l| l.link == "parent-default")
        .unwrap_or(links.len().saturating_sub(1));
    let mut decided: Option<usize> = None;
    let mut effective: Option<String> = None;
    for i in 0..links.len() {
        let Some(value) = links[i].value.clone() else {
            if i == parent && decided.is_none() {
                links[i].status = LinkStatus::Decides;
                decided = Some(i);
            }
            continue;
        };
        if decided.is_some() {
            links[i].status = LinkStatus::NotReached;
            continue;
        }
        if inherit(&value) {
            // `inherit` is the parent's model: the links between are skipped.
            links[i].status = LinkStatus::Decides;
            links[i].note = Some(format!("`{value}`: the parent's model (the last link)"));
            effective = links.get(parent).and_then(|p| p.value.clone());
            decided = Some(i);
            continue;
        }
        match unusable_reason(host, &value) {
            Some(why) => {
                links[i].status = LinkStatus::FallsBack;
                links[i].note = Some(format!("`{value}` {why}: falls back to the next link"));
            }
            None => {
                links[i].status = LinkStatus::Decides;
                effective = Some(value);
                decided = Some(i);
            }
        }
    }
    let decided = decided.unwrap_or(parent);
    ModelResolution {
        effective,
        decided_by: links.get(decided).map_or("parent-default", |l| l.link),
        chain: links,
        notes: vec![format!(
            "model ids are not checked against {}'s models; one it cannot resolve: it {}",
            host.label(),
            host.unresolvable_model.note
        )],
    }
}

/// The tools the child gets under `host`: the host's own computation
/// ([`crate::host::effective`], which `pwk convert` compares too), with what pi's
/// MCP support adds where the host hands `tools` to pi.
fn tools(host: Host, role: &ResolvedRole, denies: &[crate::host::effective::DenyRule]) -> Tools {
    let mut g = crate::host::effective::grants(host, &role.doc);
    g.deny_by_settings(host, denies);
    let mut note = g.note.clone();
    let mutating = g.mutating(host);
    if mutating {
        note.push_str("; can change files (bash, edit or write)");
    }
    // A list the host's parser does not read is no allow-list pi sees either way:
    // the child gets no built-ins (herdr passes nothing usable to `--tools`).
    let flow_unread = role
        .doc
        .mapping()
        .and_then(|m| m.get("tools"))
        .is_some_and(|n| {
            role.doc
                .text
                .get(n.span.clone())
                .is_some_and(|s| s.starts_with('['))
        })
        && host.parser.flow_lists != crate::host::ListReading::Read;
    let read_list = match &g.declared {
        Some(_) if flow_unread => None,
        Some(l) => Some(Some(l.as_slice())),
        None => Some(None),
    };
    let mcp = match (&*host.tools.mcp, read_list) {
        (Some(fact), Some(list)) => mcp_reach(fact, list),
        _ => None,
    };
    // A tool the settings deny says so, over the word for its access.
    let by_settings = |tool: &str| -> Option<&'static str> {
        let mut d = g
            .settings_denied
            .iter()
            .filter(|d| d.tool == tool)
            .peekable();
        d.peek()?;
        Some(if d.any(|d| d.whole()) {
            "denied by settings"
        } else {
            "partly denied by settings"
        })
    };
    let limits: Vec<Limit> = g
        .tools
        .iter()
        .filter_map(|t| {
            t.access.why().map(|why| Limit {
                tool: t.tool.clone(),
                calls: by_settings(&t.tool).unwrap_or(t.access.word()),
                why: why.to_string(),
            })
        })
        .collect();
    // Tools of the open set (or named as an MCP server's) the settings take away.
    let open_denied: Vec<String> = g
        .settings_denied
        .iter()
        .filter(|d| !g.tools.iter().any(|t| t.tool == d.tool))
        .map(|d| {
            let rule = crate::text::snippet(&d.rule, 80);
            format!("`{rule}` (in `{}` of {})", d.key, d.file)
        })
        .collect();
    // An extension's or MCP server's tool the role names that the settings deny
    // (no open set to take it from): the note names it with its rule.
    if g.open.is_none() {
        let named: Vec<String> = g
            .settings_denied
            .iter()
            .filter(|d| d.whole() && !g.tools.iter().any(|t| t.tool == d.tool))
            .map(|d| {
                let rule = crate::text::snippet(&d.rule, 80);
                let tool = crate::text::snippet(&d.tool, 80);
                format!("`{tool}` (`{rule}` in `{}` of {})", d.key, d.file)
            })
            .collect();
        if !named.is_empty() {
            note.push_str(&format!("; denied by settings: {}", named.join(", ")));
        }
    }
    Tools {
        effective: g.names(),
        declared: g.declared,
        host_default: g.host_default,
        mutating,
        deny_tools: g.denied,
        open: g.open.map(|a| {
            let mut open = match a.why() {
                Some(why) => format!("every other tool of the session ({}: {why})", a.word()),
                None => "every other tool of the session, MCP tools included".to_string(),
            };
            if !open_denied.is_empty() {
                open.push_str(&format!(", but {}", open_denied.join(", ")));
            }
            open
        }),
        settings_deny: g.settings_denied,
        settings_ignored: g.settings_ignored,
        limits,
        mode: g.mode,
        note,
        mcp,
    }
}

/// The key that carries `setting` under `host` (its profile's `setting` tags; the
/// portable profile's keys are the role schema's own names), with its fact.
fn setting_key(
    host: Host,
    role: Option<&ResolvedRole>,
    setting: &str,
) -> Option<(&'static str, &'static crate::host::KeyFact)> {
    if host.is_portable() {
        let key = match setting {
            "thinking" => "thinking",
            "max-turns" => "max_turns",
            "model" => "model",
            _ => return None,
        };
        return host.keys.get_key_value(key).map(|(k, f)| (*k, &**f));
    }
    // Two spellings of one setting (OpenCode: `steps`, and `maxSteps`, read only when
    // `steps` is absent): the current one, unless the role has only the old one.
    let present =
        |k: &str| role.is_some_and(|r| r.doc.mapping().is_some_and(|m| m.get(k).is_some()));
    host.keys
        .iter()
        .filter(|(_, f)| f.setting == Some(setting))
        .min_by_key(|(k, f)| {
            (
                !present(k),
                f.note.is_some_and(|n| n.starts_with("deprecated")),
            )
        })
        .map(|(k, f)| (*k, &**f))
}

/// A setting the host reads under a key of its own (Claude Code `effort`,
/// `maxTurns`; OpenCode `steps`), as its profile describes it.
fn own_setting<T>(
    host: Host,
    role: &ResolvedRole,
    key: &str,
    fact: &crate::host::KeyFact,
    value: impl Fn(&crate::role::Node) -> Option<T>,
) -> Setting<T> {
    let label = host.label();
    let default = fact.default.unwrap_or("the host's default");
    match role.doc.mapping().and_then(|m| m.get(key)) {
        Some(node) => match value(node) {
            Some(v) => Setting {
                value: Some(v),
                honoured: true,
                note: format!("`{key}`, honoured by {label}"),
            },
            None => Setting {
                value: None,
                honoured: false,
                note: format!(
                    "`{key}` is {}: {label} does not take it (`pwk lint` says why)",
                    node.to_json()
                ),
            },
        },
        None => Setting {
            value: None,
            honoured: true,
            note: format!("not set (`{key}`): {default}"),
        },
    }
}

/// A setting the host does not read from a role file at all (pi's example
/// extension and thinking, Copilot and turns): what the role says is ignored.
fn unread_setting<T>(
    host: Host,
    role: &ResolvedRole,
    key: &str,
    value: impl Fn(&crate::role::Node) -> Option<T>,
) -> Setting<T> {
    let label = host.label();
    let why = match host.instead.get(key) {
        Some(i) => format!("{label} reads no {key} from a role file ({i})"),
        None => format!("{label} reads no {key} from a role file"),
    };
    match role.doc.mapping().and_then(|m| m.get(key)) {
        Some(node) => Setting {
            value: value(node),
            honoured: false,
            note: format!("ignored: {why}"),
        },
        None => Setting {
            value: None,
            honoured: true,
            note: format!("not set: {why}"),
        },
    }
}

fn thinking(host: Host, role: &ResolvedRole, settings: &PiSettings) -> Setting<String> {
    let raw = role.doc.mapping().and_then(|m| m.get("thinking"));
    match (&role.role.thinking, raw) {
        (Some(level), _) => Setting {
            value: Some(level.clone()),
            honoured: true,
            note: match host.host {
                HostId::Nicobailon => format!("passed as the model suffix `:{level}`"),
                _ => "as declared; pi clamps it to what the model supports".to_string(),
            },
        },
        (None, Some(node)) => Setting {
            value: None,
            honoured: false,
            note: format!(
                "`thinking` is not a level name ({}): hosts ignore it",
                node.to_json()
            ),
        },
        (None, None) => {
            let default = match &settings.default_thinking {
                Some((level, from)) => format!("pi's default level, {level}, from {from}"),
                None => "pi's default level".to_string(),
            };
            let note = match host.host {
                HostId::Herdr => "not set: the parent's level".to_string(),
                _ => format!("not set: {default}"),
            };
            Setting {
                value: None,
                honoured: true,
                note,
            }
        }
    }
}

fn max_turns(host: Host, role: &ResolvedRole) -> Setting<u64> {
    let raw = role.doc.mapping().and_then(|m| m.get("max_turns"));
    match (role.role.max_turns, raw) {
        (Some(n), _) => {
            let (honoured, note) = if host.is_portable() {
                (true, "honoured by pwk's runner".to_string())
            } else if host.reads("max_turns") {
                (
                    true,
                    match host.host {
                        // tintinweb steers at N and aborts N + graceTurns (default 5) later.
                        HostId::Tintinweb => format!(
                            "honoured: told to wrap up at turn {n}, stopped at turn {}",
                            n + 5
                        ),
                        _ => format!("honoured by {}", host.label()),
                    },
                )
            } else {
                (
                    false,
                    match host.instead.get("max_turns") {
                        Some(i) => format!("ignored by {} ({i})", host.label()),
                        None => format!("ignored by {}", host.label()),
                    },
                )
            };
            Setting {
                value: Some(n),
                honoured,
                note,
            }
        }
        (None, Some(node)) => Setting {
            value: None,
            honoured: false,
            note: format!(
                "`max_turns` is not a whole number ({}): hosts silently ignore it",
                node.to_json()
            ),
        },
        (None, None) => Setting {
            value: None,
            honoured: true,
            // A host with its own CLI: its default, or that it reads none.
            note: match host.key("max_turns").and_then(|f| f.default) {
                Some(d) if !host.host.is_pi() => {
                    format!("not set: {}'s default, {d}", host.label())
                }
                None if !host.host.is_pi() && !host.reads("max_turns") => format!(
                    "not set: {} reads no turn limit from a role file",
                    host.label()
                ),
                _ => "not set: no turn budget".to_string(),
            },
        },
    }
}

/// Whether a hint can be a model id at all under `host` (a host that takes any
/// model name, Copilot's `Claude Sonnet 4.5`, takes white space too).
fn unusable_reason(host: Host, value: &str) -> Option<&'static str> {
    if value.trim().is_empty() {
        Some("empty")
    } else if !host.models.free && value.chars().any(char::is_whitespace) {
        Some("contains whitespace")
    } else if value.contains('<') || value.contains('>') {
        Some("is a placeholder, not a model id")
    } else {
        None
    }
}

fn model_chain(
    role: &ResolvedRole,
    inputs: &RuntimeInputs<'_>,
    herdr: Option<&HerdrConfig>,
    settings: &PiSettings,
) -> ModelResolution {
    let host = inputs.host;
    let path = role.path.display(inputs.cwd);
    // `--model` is how pwk runs a role on pi; a host with its own CLI takes none.
    let mut links: Vec<ChainLink> = host
        .host
        .is_pi()
        .then(|| ChainLink {
            link: "invocation",
            from: "--model".to_string(),
            value: inputs.explicit_model.map(str::to_string),
            status: LinkStatus::Unset,
            note: None,
        })
        .into_iter()
        .collect();
    links.push(match setting_key(host, Some(role), "model") {
        Some((key, _)) => ChainLink {
            link: "frontmatter",
            from: format!("`{key}` in {path}"),
            value: role.role.model.clone(),
            status: LinkStatus::Unset,
            note: None,
        },
        // A host that takes the model per call only (subagents-lite).
        None => ChainLink {
            link: "frontmatter",
            from: format!("`model` in {path}"),
            value: None,
            status: LinkStatus::NotRead,
            note: Some(match host.instead.get("model") {
                Some(i) => i.to_string(),
                None => format!("{} reads no model from a role file", host.label()),
            }),
        },
    });
    let not_read = |link: &'static str, what: &str| {
        ChainLink {
        link,
        from: what.to_string(),
        value: None,
        status: LinkStatus::NotRead,
        note: Some(match host.host {
            HostId::Nicobailon => {
                "nicobailon has no such file (its settings `subagents.agentOverrides` are not read by pwk)"
                    .to_string()
            }
            _ => format!("{} has no such link", host.as_str()),
        }),
    }
    };
    match herdr {
        Some(cfg) => {
            links.push(ChainLink {
                link: "per-agent-config",
                from: format!("`{}` in {}", cfg.per_agent_key, cfg.display),
                value: cfg.per_agent.clone(),
                status: LinkStatus::Unset,
                note: cfg.problem.clone(),
            });
            links.push(ChainLink {
                link: "global-config",
                from: format!("`{}` in {}", cfg.default_key, cfg.display),
                value: cfg.default.clone(),
                status: LinkStatus::Unset,
                note: cfg.problem.clone(),
            });
        }
        // A host with its own CLI has no such files: its chain goes from the role
        // to its own default.
        None if !host.host.is_pi() => {}
        None => {
            links.push(not_read("per-agent-config", "per-agent config"));
            links.push(not_read("global-config", "global config"));
        }
    }
    links.push(ChainLink {
        link: "parent-default",
        from: match &settings.default_model {
            Some((_, from)) => format!("`defaultProvider`/`defaultModel` in {from}"),
            None if host.host.is_pi() => {
                "pi's default: the first model with credentials".to_string()
            }
            // A host with its own CLI: its profile's default for `model`.
            None => format!(
                "{}'s default: {}",
                host.label(),
                setting_key(host, Some(role), "model")
                    .and_then(|(_, f)| f.default)
                    .unwrap_or("the parent's model")
            ),
        },
        value: settings.default_model.as_ref().map(|(m, _)| m.clone()),
        status: LinkStatus::Unset,
        note: None,
    });

    let mut decided: Option<usize> = None;
    for (i, link) in links.iter_mut().enumerate() {
        if link.status == LinkStatus::NotRead {
            continue;
        }
        let Some(value) = link.value.clone() else {
            if link.link == "parent-default" && decided.is_none() {
                link.status = LinkStatus::Decides;
                decided = Some(i);
            }
            continue;
        };
        if decided.is_some() {
            link.status = LinkStatus::NotReached;
            continue;
        }
        match unusable_reason(host, &value) {
            Some(why) => {
                link.status = LinkStatus::FallsBack;
                link.note = Some(format!("`{value}` {why}: falls back to the next link"));
            }
            None => {
                link.status = LinkStatus::Decides;
                decided = Some(i);
            }
        }
    }
    let decided = decided.unwrap_or(links.len() - 1);
    let effective = links[decided]
        .value
        .clone()
        .filter(|v| unusable_reason(host, v).is_none());
    let mut notes = vec![if host.host.is_pi() {
        "model ids are not checked against pi's model registry; an unknown id falls back to the parent's model under tintinweb and makes nicobailon refuse the role"
            .to_string()
    } else {
        format!(
            "model ids are not checked against {}'s models; one it cannot resolve: it {}",
            host.label(),
            host.unresolvable_model.note
        )
    }];
    if links[decided].link == "frontmatter" {
        match host.host {
            HostId::Tintinweb => notes.push(
                "tintinweb: if this hint does not resolve, the child silently runs on the parent's model"
                    .to_string(),
            ),
            HostId::Nicobailon => notes.push(
                "nicobailon: if this hint does not resolve, it refuses to launch the role".to_string(),
            ),
            _ => {}
        }
    }
    ModelResolution {
        effective,
        decided_by: links[decided].link,
        chain: links,
        notes,
    }
}

/// The host's model-defaults file (its profile's `model_config`: pi-herdr-agents'
/// `herdr-agents/config.json`), as read for one role.
struct HerdrConfig {
    display: String,
    /// Where the role's own model and the default sit in it, as written there.
    per_agent_key: String,
    default_key: String,
    per_agent: Option<String>,
    default: Option<String>,
    problem: Option<String>,
}

impl HerdrConfig {
    fn load(
        config: &'static crate::host::ModelConfig,
        inputs: &RuntimeInputs<'_>,
        name: &str,
        files: &mut Vec<ConfigFile>,
    ) -> HerdrConfig {
        let mut cfg = HerdrConfig {
            display: config
                .file
                .replace("{agent_dir}/", "")
                .replace("{home}/", "~/"),
            per_agent_key: config.per_agent.replace("<role>", name),
            default_key: config.default.to_string(),
            per_agent: None,
            default: None,
            problem: None,
        };
        let Some(path) = config.locate(None, inputs.agent_dir, inputs.cwd) else {
            cfg.display = format!("{} (no agent directory: HOME is not set)", cfg.display);
            return cfg;
        };
        let display = crate::display::display_path(inputs.cwd, &path);
        cfg.display = display.clone();
        let purpose = config.note;
        match read_json(&path) {
            Ok(None) => files.push(ConfigFile {
                path: display,
                purpose,
                status: "absent".to_string(),
            }),
            Err(e) => {
                cfg.problem = Some(format!("{display} {e}: ignored"));
                files.push(ConfigFile {
                    path: display,
                    purpose,
                    status: e,
                });
            }
            Ok(Some(json)) => {
                cfg.per_agent = crate::host::ModelConfig::lookup(config.per_agent, name, &json);
                cfg.default = crate::host::ModelConfig::lookup(config.default, name, &json);
                files.push(ConfigFile {
                    path: display,
                    purpose,
                    status: "read".to_string(),
                });
            }
        }
        cfg
    }
}

/// pi's own defaults from `settings.json` (global, then the project's).
struct PiSettings {
    /// `provider/model` (or the bare model) and the file it came from.
    default_model: Option<(String, String)>,
    default_thinking: Option<(String, String)>,
}

impl PiSettings {
    fn load(inputs: &RuntimeInputs<'_>, files: &mut Vec<ConfigFile>) -> PiSettings {
        let paths = crate::pi::settings::pi_settings_paths(inputs.agent_dir, inputs.cwd);
        let mut provider: Option<(String, String)> = None;
        let mut model: Option<(String, String)> = None;
        let mut thinking: Option<(String, String)> = None;
        for path in paths {
            let display = crate::display::display_path(inputs.cwd, &path);
            let purpose = "pi's default model and thinking level";
            match read_json(&path) {
                Ok(None) => files.push(ConfigFile {
                    path: display,
                    purpose,
                    status: "absent".to_string(),
                }),
                Err(e) => files.push(ConfigFile {
                    path: display,
                    purpose,
                    status: e,
                }),
                Ok(Some(json)) => {
                    let set = PiDefaults::from_json(&json);
                    let from = |v: Option<String>| v.map(|v| (v, display.clone()));
                    // Later files (the project's) override earlier ones key by key.
                    provider = from(set.provider).or(provider);
                    model = from(set.model).or(model);
                    thinking = from(set.thinking).or(thinking);
                    files.push(ConfigFile {
                        path: display,
                        purpose,
                        status: "read".to_string(),
                    });
                }
            }
        }
        let default_model = match (provider, model) {
            (Some((p, _)), Some((m, from))) if !m.contains('/') => Some((format!("{p}/{m}"), from)),
            (_, Some(m)) => Some(m),
            (Some(_), None) | (None, None) => None,
        };
        PiSettings {
            default_model,
            default_thinking: thinking,
        }
    }
}
