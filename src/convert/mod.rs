//! `pwk convert`: a role file written for one host, rewritten for another.
//!
//! Everything host-specific comes from the two profiles (`src/host`): a key moves
//! to the target key that carries the same *setting* (`KeyFact::setting`:
//! Claude Code `maxTurns` and tintinweb `max_turns` are both `max-turns`), tool
//! names go through pi's built-in names (`Tools::maps_to`: Claude Code `Glob` is
//! pi's `find`), and model names through the hosts' model vocabularies (`Models`)
//! and the user's `--model-map`. Nothing is lost silently: every key and tool that
//! does not carry over is in the file's report, as dropped (with why) or as a
//! decision the user has to make. The body is copied byte for byte, and so is the
//! text of every value that carries over unchanged (quotes, block scalars).
//!
//! [`convert_doc`] is pure (text in, text and report out); [`write`] puts the
//! result on disk through the symlink-proof writer of `install::safe`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::host::{HostProfile, IdentityBy};
use crate::lint::Diagnostic;
use crate::role::{Node, RoleDoc};

/// What to convert and how.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    pub to: &'static HostProfile,
    /// `alias=provider/id` (or any source model value to any target value).
    pub model_map: BTreeMap<String, String>,
}

/// What happened to one key or tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Carried over (perhaps renamed or mapped).
    Converted,
    /// Left out: the target has no counterpart, or does not accept the value.
    Dropped,
    /// Left out until the user decides (an unmapped model alias, a tool whose
    /// restriction the target cannot express).
    Decision,
}

/// One line of a file's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    pub outcome: Outcome,
    /// The source key (`tools`), or `tools: Glob` for one entry.
    pub key: String,
    /// The key it became, when it carried over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    pub note: String,
}

/// One converted file.
#[derive(Debug, Clone, Serialize)]
pub struct Conversion {
    pub source: PathBuf,
    /// The source host profile (`claude-code@2.1`).
    pub from: String,
    /// The target host profile (`tintinweb@0.18`).
    pub to: String,
    /// The target file name (`reviewer.md`): the role's identity, so that hosts
    /// that name roles by file and those that read `name` agree.
    pub file_name: String,
    #[serde(skip)]
    pub text: String,
    pub items: Vec<Item>,
    /// What `pwk lint` says of the output under the target host (in memory).
    #[serde(skip)]
    pub lint: Vec<Diagnostic>,
}

impl Conversion {
    /// Findings of the target-host lint that are errors.
    pub fn lint_errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.lint
            .iter()
            .filter(|d| d.severity == crate::lint::Severity::Error)
    }

    pub fn count(&self, o: Outcome) -> usize {
        self.items.iter().filter(|i| i.outcome == o).count()
    }
}

/// Why a file could not be converted.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("`{}`: cannot read it: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("`{}` has no frontmatter to convert (it must start with a `---` line)", path.display())]
    NoFrontmatter { path: PathBuf },
    #[error("`{}`: its frontmatter is not valid YAML ({message}); `pwk lint --host {from}` shows where", path.display())]
    Yaml {
        path: PathBuf,
        from: String,
        message: String,
    },
    #[error("`{}`: its frontmatter is not a mapping of keys", path.display())]
    NotMapping { path: PathBuf },
    #[error("`{}` is already written for {host}; pick another `--to` or `--from`", path.display())]
    SameHost { path: PathBuf, host: String },
}

/// pi's built-in tools: the vocabulary host tool names map through.
const PI_TOOLS: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/// Convert one parsed role file from `from` to `opts.to`.
pub fn convert_doc(
    doc: &RoleDoc,
    from: &'static HostProfile,
    opts: &ConvertOptions,
) -> Result<Conversion, ConvertError> {
    let to = opts.to;
    let path = doc.path.clone();
    if from.host == to.host && from.version == to.version {
        return Err(ConvertError::SameHost {
            path,
            host: to.label(),
        });
    }
    let fences = doc
        .fences
        .as_ref()
        .map_err(|_| ConvertError::NoFrontmatter { path: path.clone() })?;
    let tree = match &doc.tree {
        Some(Ok(t)) => t,
        Some(Err(e)) => {
            return Err(ConvertError::Yaml {
                path,
                from: from.label(),
                message: yaml_message(e),
            });
        }
        None => return Err(ConvertError::NoFrontmatter { path }),
    };
    let entries = tree
        .as_mapping()
        .ok_or_else(|| ConvertError::NotMapping { path: path.clone() })?;
    let text = doc.text.as_str();
    // The file name without the source host's suffix (`x.agent.md` → `x`).
    let stem = doc
        .path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| {
            n.strip_suffix(from.discovery.suffix.as_str())
                .or_else(|| n.strip_suffix(".md"))
        })
        .or(doc.stem())
        .unwrap_or("role")
        .to_string();
    let name = tree.get("name").and_then(Node::as_str).map(str::to_string);
    let identity = match from.identity.by {
        IdentityBy::Stem => stem.clone(),
        IdentityBy::Name | IdentityBy::NameThenStem => name.clone().unwrap_or(stem.clone()),
    };
    let mut c = Convert {
        from,
        to,
        items: Vec::new(),
        lines: Vec::new(),
    };
    // The identity first: the target's `name` key, when it reads one.
    let to_name = c.target_key("name");
    let from_name = c.source_key("name");
    match &to_name {
        Some(k) => {
            let carried = from_name.is_some() && name.as_deref() == Some(identity.as_str());
            c.lines.push(format!("{k}: {}", scalar(&identity)));
            if carried {
                c.item(Outcome::Converted, "name", Some(k), "as written".into());
            } else {
                c.item(
                    Outcome::Converted,
                    "name",
                    Some(k),
                    format!(
                        "{} names the role `{identity}` ({}); {} reads `{k}`",
                        from.label(),
                        from.identity.by.describe(),
                        to.label()
                    ),
                );
            }
        }
        None => {
            if name.is_some() {
                c.item(
                    Outcome::Dropped,
                    "name",
                    None,
                    format!(
                        "{} never reads `name`: the role is its file name, `{identity}`",
                        to.label()
                    ),
                );
            }
        }
    }
    let yaml_end = fences.yaml.end;
    for (i, (key, node)) in entries.iter().enumerate() {
        let k = key.text.as_str();
        let end = entries
            .get(i + 1)
            .map(|(next, _)| line_start(text, next.span.start))
            .unwrap_or(yaml_end);
        let raw = &text[key.span.start..end.max(key.span.start)];
        if from_name.as_deref() == Some(k) && c.setting_of(k).as_deref() == Some("name") {
            continue; // written above
        }
        c.entry(k, node, raw, &opts.model_map);
    }
    // Keys the target requires that nothing supplied.
    for req in &to.required {
        let present = c
            .lines
            .iter()
            .any(|l| l.starts_with(&format!("{}:", req.key)));
        if !present {
            c.item(
                Outcome::Decision,
                &req.key,
                None,
                format!("{}: add `{}`", req.note, req.key),
            );
        }
    }
    let mut out = String::from("---\n");
    for l in &c.lines {
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push('\n');
        }
    }
    // The closing fence and the body, byte for byte.
    out.push_str(&text[fences.close.start..]);
    let file_name = file_name(&identity, &stem, &to.discovery.suffix);
    if doc.path.file_name().and_then(|n| n.to_str()) != Some(file_name.as_str()) {
        c.item(
            Outcome::Converted,
            "file name",
            Some(&file_name),
            format!("the file is named after the role's identity `{identity}`"),
        );
    }
    let out_path = doc.path.with_file_name(&file_name);
    let lint = crate::lint::check_doc(&RoleDoc::parse(out_path, out.as_bytes()), to);
    Ok(Conversion {
        source: doc.path.clone(),
        from: from.label(),
        to: to.label(),
        file_name,
        text: out,
        items: c.items,
        lint,
    })
}

struct Convert {
    from: &'static HostProfile,
    to: &'static HostProfile,
    items: Vec<Item>,
    lines: Vec<String>,
}

impl Convert {
    fn item(&mut self, outcome: Outcome, key: &str, to: Option<&str>, note: String) {
        self.items.push(Item {
            outcome,
            key: key.to_string(),
            to: to.map(str::to_string),
            note,
        });
    }

    /// The setting a source key carries.
    fn setting_of(&self, key: &str) -> Option<String> {
        self.from.key(key).and_then(|f| f.setting.clone())
    }

    /// The source's key for a setting.
    fn source_key(&self, setting: &str) -> Option<String> {
        key_for(self.from, setting)
    }

    /// The target's key for a setting.
    fn target_key(&self, setting: &str) -> Option<String> {
        key_for(self.to, setting)
    }

    fn entry(&mut self, k: &str, node: &Node, raw: &str, model_map: &BTreeMap<String, String>) {
        let (from, to) = (self.from, self.to);
        let Some(fact) = from.key(k) else {
            // A key the source host ignores: carried only when the target reads it
            // by the same name.
            if to.reads(k) {
                self.lines.push(raw.to_string());
                self.item(
                    Outcome::Converted,
                    k,
                    Some(k),
                    format!("{} ignores it, {} reads it", from.label(), to.label()),
                );
            } else {
                self.item(
                    Outcome::Dropped,
                    k,
                    None,
                    format!("neither {} nor {} reads it", from.label(), to.label()),
                );
            }
            return;
        };
        let setting = fact.setting.clone();
        let target = match &setting {
            Some(s) => self.target_key(s),
            // A host-specific key without a setting: only the same key carries it.
            None => to.reads(k).then(|| k.to_string()),
        };
        let Some(tk) = target else {
            // Leaving out a tool list widens what the role may do: the user decides.
            let widens = matches!(setting.as_deref(), Some("tools" | "deny-tools"));
            self.item(
                if widens {
                    Outcome::Decision
                } else {
                    Outcome::Dropped
                },
                k,
                None,
                format!(
                    "{} has no counterpart{}",
                    to.label(),
                    setting
                        .map(|s| format!(" of the `{s}` setting"))
                        .unwrap_or_default()
                ),
            );
            return;
        };
        match setting.as_deref() {
            Some("tools") => self.tools(k, &tk, node, false),
            Some("deny-tools") => self.tools(k, &tk, node, true),
            Some("model") => self.model(k, &tk, node, model_map),
            _ => self.plain(k, &tk, node, raw),
        }
    }

    /// A value that carries over as it is, when the target accepts it.
    fn plain(&mut self, k: &str, tk: &str, node: &Node, raw: &str) {
        let to = self.to;
        let fact = to.key(tk).expect("target key");
        let schema = if fact.schema.as_str() == Some("role") {
            crate::role::schema::schema()["properties"][tk].clone()
        } else {
            fact.schema.clone()
        };
        let ok = crate::role::validate::Validator::compile(&schema)
            .map(|v| v.is_valid(&node.to_json()))
            .unwrap_or(true);
        if !ok {
            let shown = short(&node.to_json().to_string());
            self.item(
                Outcome::Dropped,
                k,
                None,
                format!(
                    "{} reads `{tk}` as {}, not {shown}",
                    to.label(),
                    fact.note.as_deref().unwrap_or("another kind of value")
                ),
            );
            return;
        }
        // The key's own text replaced, the value's text (quotes, block scalars,
        // comments) kept.
        let rest = &raw[k.len()..];
        let rest = if raw.starts_with(k) {
            rest
        } else {
            // A quoted key (`"tools":`): rewrite from the colon on.
            raw.find(':').map(|i| &raw[i..]).unwrap_or(rest)
        };
        self.lines.push(format!("{tk}{rest}"));
        let mut note = if tk == k {
            "as written".to_string()
        } else {
            format!("{} reads it as `{tk}`", to.label())
        };
        if to.key(tk).and_then(|f| f.setting.as_deref()) == Some("skills") {
            // nicobailon refuses to launch a role whose skill it cannot find.
            note.push_str(&format!(
                "; the skills must exist where {} looks for them",
                to.label()
            ));
        }
        self.item(Outcome::Converted, k, Some(tk), note);
    }

    fn tools(&mut self, k: &str, tk: &str, node: &Node, deny: bool) {
        let (from, to) = (self.from, self.to);
        let Some(entries) = crate::role::string_list(node) else {
            self.item(
                Outcome::Dropped,
                k,
                None,
                "not a list of tool names".to_string(),
            );
            return;
        };
        let mut out: Vec<String> = Vec::new();
        let mut push = |s: String| {
            if !out.contains(&s) {
                out.push(s);
            }
        };
        let mut lost = 0;
        for e in &entries {
            let label = format!("{k}: {e}");
            if from.tools.all_tokens.iter().any(|t| t == e) {
                // Every built-in, in the target's names.
                for pi in PI_TOOLS {
                    if let Some(own) = to.tools.own_name(pi) {
                        push(own);
                    }
                }
                self.item(
                    Outcome::Converted,
                    &label,
                    Some(tk),
                    format!(
                        "`{e}` is every built-in on {}: listed by name",
                        from.label()
                    ),
                );
                continue;
            }
            let base = from.tools.base(e);
            if base != e.as_str() {
                // `Bash(git *)`: a restriction pi hosts cannot express; carrying the
                // bare tool would widen it.
                lost += 1;
                self.item(
                    Outcome::Decision,
                    &label,
                    None,
                    format!(
                        "{} cannot restrict a tool to `{}`; left out rather than granting all of `{base}`",
                        to.label(),
                        &e[base.len()..]
                    ),
                );
                continue;
            }
            let pis = from.tools.pi_names(e);
            let owns: Vec<String> = pis.iter().filter_map(|pi| to.tools.own_name(pi)).collect();
            if !owns.is_empty() {
                for own in &owns {
                    push(own.clone());
                }
                let shown = owns.join(", ");
                // What the target's tool grants beyond the source's (Copilot's
                // `search` is pi's grep and find).
                let wider: Vec<String> = owns
                    .iter()
                    .flat_map(|o| to.tools.pi_names(o))
                    .filter(|p| !pis.contains(p))
                    .collect();
                let mut note = if shown == *e {
                    "as written".to_string()
                } else {
                    format!("{} calls it `{shown}`", to.label())
                };
                if !wider.is_empty() {
                    note.push_str(&format!(" (which also grants pi's {})", wider.join(", ")));
                }
                let missing: Vec<&String> = pis
                    .iter()
                    .filter(|p| to.tools.own_name(p).is_none())
                    .collect();
                if !missing.is_empty() {
                    note.push_str(&format!(
                        "; {} has no counterpart of its {}",
                        to.label(),
                        missing
                            .iter()
                            .map(|m| m.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                self.item(Outcome::Converted, &label, Some(&shown), note);
                continue;
            }
            if to.knows_tool(e) {
                push(e.clone());
                self.item(Outcome::Converted, &label, Some(e), "as written".into());
                continue;
            }
            lost += 1;
            self.item(
                Outcome::Dropped,
                &label,
                None,
                format!("{} has no such tool: {}", to.label(), to.tools.unknown),
            );
        }
        if out.is_empty() {
            if entries.is_empty() || lost == 0 {
                return;
            }
            let none = to.tools.none_tokens.first();
            match (deny, none) {
                (false, Some(none)) => {
                    self.lines.push(format!("{tk}: {none}"));
                    self.item(
                        Outcome::Converted,
                        k,
                        Some(tk),
                        format!("no listed tool exists on {}: `{none}`", to.label()),
                    );
                }
                (false, None) => self.item(
                    Outcome::Decision,
                    k,
                    None,
                    format!(
                        "no listed tool exists on {}, and without `{tk}` the child gets {}",
                        to.label(),
                        to.tools.missing
                    ),
                ),
                (true, _) => {}
            }
            return;
        }
        self.lines
            .push(format!("{tk}: {}", list_value(to, tk, &out)));
    }

    fn model(&mut self, k: &str, tk: &str, node: &Node, map: &BTreeMap<String, String>) {
        let (from, to) = (self.from, self.to);
        let Some(v) = node.as_str() else {
            self.item(Outcome::Dropped, k, None, "not a string".into());
            return;
        };
        let default = to
            .key(tk)
            .and_then(|f| f.default.clone())
            .unwrap_or_else(|| "its default".into());
        if let Some(m) = map.get(v) {
            self.lines.push(format!("{tk}: {}", scalar(m)));
            self.item(
                Outcome::Converted,
                k,
                Some(tk),
                format!("`{v}` → `{m}` (--model-map)"),
            );
            return;
        }
        if from.models.inherit.iter().any(|i| i == v) {
            if to.models.inherit.iter().any(|i| i == v) {
                self.lines.push(format!("{tk}: {v}"));
                self.item(Outcome::Converted, k, Some(tk), "as written".into());
            } else {
                self.item(
                    Outcome::Converted,
                    k,
                    None,
                    format!("`{v}`: no `{tk}` line, so {} uses {default}", to.label()),
                );
            }
            return;
        }
        let to_own = !to.models.provider_form();
        let from_own = !from.models.provider_form();
        if from_own && from.models.aliases.iter().any(|a| a == v) {
            if to_own && to.models.aliases.iter().any(|a| a == v) {
                self.lines.push(format!("{tk}: {v}"));
                self.item(Outcome::Converted, k, Some(tk), "as written".into());
                return;
            }
            self.item(
                Outcome::Decision,
                k,
                None,
                format!(
                    "`{v}` is {}'s own alias, which {} does not resolve: the `{tk}` line is left out, so it uses {default}; `--model-map {v}=provider/id` to choose",
                    from.label(),
                    to.label()
                ),
            );
            return;
        }
        // A full id: `claude-sonnet-4-5` ↔ `anthropic/claude-sonnet-4-5`.
        let converted = match (from_own, to_own) {
            (true, false) => from.models.provider.as_ref().map(|p| format!("{p}/{v}")),
            (false, true) => v.split_once('/').and_then(|(p, id)| {
                (to.models.provider.as_deref() == Some(p)
                    && to
                        .models
                        .id_prefixes
                        .iter()
                        .any(|x| id.starts_with(x.as_str())))
                .then(|| id.to_string())
            }),
            _ => Some(v.to_string()),
        };
        match converted {
            Some(m) => {
                self.lines.push(format!("{tk}: {}", scalar(&m)));
                let note = if m == v {
                    "as written".to_string()
                } else {
                    format!("`{v}` → `{m}`")
                };
                self.item(Outcome::Converted, k, Some(tk), note);
            }
            None => self.item(
                Outcome::Decision,
                k,
                None,
                format!(
                    "{} cannot name `{v}`: the `{tk}` line is left out, so it uses {default}; `--model-map {v}=<model>` to choose",
                    to.label()
                ),
            ),
        }
    }
}

fn yaml_message(e: &crate::role::YamlError) -> String {
    use crate::role::YamlError as E;
    match e {
        E::Syntax { message, .. } => message.clone(),
        E::DuplicateKey { key, .. } => format!("`{key}` twice"),
        E::Anchor { .. } => "an anchor or alias".into(),
        E::Tag { .. } => "an explicit tag".into(),
        E::NotMapping { .. } => "not a mapping".into(),
        E::ComplexKey { .. } => "a key that is not a scalar".into(),
        E::TooDeep { .. } => "nested too deep".into(),
        E::ControlCharacter { .. } => "a control character".into(),
    }
}

/// A list of names as the target reads it: `a, b` (the form every pi host and
/// Claude Code read), or `[a, b]` where the key takes no string (Gemini CLI).
fn list_value(to: &HostProfile, key: &str, items: &[String]) -> String {
    let takes_string = to.key(key).is_none_or(|f| match &f.schema["type"] {
        serde_json::Value::String(t) => t == "string",
        serde_json::Value::Array(ts) => ts.iter().any(|t| t == "string"),
        _ => true,
    });
    if takes_string {
        items.join(", ")
    } else {
        format!(
            "[{}]",
            items
                .iter()
                .map(|i| scalar(i))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// A host's key for a setting.
fn key_for(p: &HostProfile, setting: &str) -> Option<String> {
    p.keys
        .iter()
        .find(|(_, f)| f.setting.as_deref() == Some(setting))
        .map(|(k, _)| k.clone())
}

/// The start of the line holding `offset`.
fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

fn short(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}

/// A YAML scalar for a value pwk writes: plain when that reads back as the same
/// string, else double-quoted (JSON's escaping is YAML's).
fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./@+".contains(c))
        && !s.starts_with(['-', '.', '@'])
        && matches!(
            crate::role::yaml::scalar_type(s, true),
            crate::role::yaml::ScalarType::String
        );
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).expect("a string")
    }
}

/// The target file name: the identity when it is a safe slug, else the stem.
fn file_name(identity: &str, stem: &str, suffix: &str) -> String {
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && !s.starts_with('.')
    };
    let base = if ok(identity) { identity } else { stem };
    format!("{base}{suffix}")
}

/// Where converted files go.
#[derive(Debug, Clone)]
pub enum Destination {
    /// Into this directory (created when absent).
    Dir(PathBuf),
    /// Over the source file (same directory, same name).
    InPlace,
}

/// What writing one file did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Written {
    Created,
    Replaced,
    Unchanged,
    /// A different file is there and `--force` was not given.
    Kept,
    /// Not written (`--dry-run`).
    DryRun,
}

/// One file's write, with its backup when `--force` replaced a file.
#[derive(Debug, Clone, Serialize)]
pub struct WriteResult {
    pub path: PathBuf,
    pub written: Written,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<PathBuf>,
}

/// Why a converted file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot create `{}`: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Safe(#[from] crate::fs::write::SafeWriteError),
    #[error("`{}`: {reason}; pwk does not replace it", path.display())]
    Refused { path: PathBuf, reason: String },
}

/// Where `c` goes for `dest`.
pub fn target_path(c: &Conversion, dest: &Destination) -> PathBuf {
    match dest {
        Destination::Dir(d) => d.join(&c.file_name),
        Destination::InPlace => c.source.clone(),
    }
}

/// Write `c` through the one writer ([`crate::fs`]): the target's directory is
/// opened from its trust anchor with no link followed below it (a symlinked
/// `.pi` or `--out` directory is refused; a missing `--out` is created), never
/// through a link, never over a different file unless `force` (then the old file
/// is kept as `<name>.bak`, as `pwk setup --force` does).
pub fn write(
    c: &Conversion,
    dest: &Destination,
    anchors: &crate::fs::Anchors,
    force: bool,
    dry_run: bool,
) -> Result<WriteResult, WriteError> {
    use crate::fs::{Inspect, Kind, Replace, WriteOptions};
    let path = target_path(c, dest);
    if dry_run {
        return Ok(WriteResult {
            path,
            written: Written::DryRun,
            backup: None,
        });
    }
    let hooks = &mut crate::fs::NoHooks;
    let create = matches!(dest, Destination::Dir(_));
    let Some((dir, name)) = anchors.open_parent(&path, create, hooks)? else {
        return Err(WriteError::CreateDir {
            path: path.parent().map(Path::to_path_buf).unwrap_or_default(),
            source: std::io::ErrorKind::NotFound.into(),
        });
    };
    let (replace, backup) = match dir.inspect(&name, Kind::Role, hooks)? {
        Inspect::Absent => (Replace::Fresh, None),
        Inspect::Refused(r) => {
            return Err(WriteError::Refused {
                path,
                reason: r.reason(),
            });
        }
        Inspect::File(ex) if ex.content == c.text.as_bytes() => {
            return Ok(WriteResult {
                path,
                written: Written::Unchanged,
                backup: None,
            });
        }
        Inspect::File(_) if !force && !matches!(dest, Destination::InPlace) => {
            return Ok(WriteResult {
                path,
                written: Written::Kept,
                backup: None,
            });
        }
        // `--force`, or `--in-place` (the user asked to replace the source): the
        // old file is kept next to it first.
        Inspect::File(ex) => {
            let backup = crate::install::plan::write_backup(&dir, &name, &ex, hooks)?;
            (Replace::Existing(ex.ident), Some(backup))
        }
    };
    let written = match replace {
        Replace::Fresh => Written::Created,
        Replace::Existing(_) => Written::Replaced,
    };
    dir.write_file(
        &name,
        c.text.as_bytes(),
        replace,
        WriteOptions::default(),
        hooks,
    )?;
    Ok(WriteResult {
        path,
        written,
        backup,
    })
}

#[cfg(test)]
mod tests;
