//! `pwk convert`: a role file written for one host, rewritten for another.
//!
//! Everything host-specific comes from the two profiles (`src/host`): a key moves
//! to the target key that carries the same *setting* (`KeyFact::setting`:
//! Claude Code `maxTurns` and tintinweb `max_turns` are both `max-turns`), tool
//! names go through pi's built-in names (`Tools::maps_to`: Claude Code `Glob` is
//! pi's `find`), and model names through the hosts' model vocabularies (`Models`)
//! and the user's `--model-map`. Nothing is lost silently: every key and tool that
//! does not carry over is in the file's report, as dropped (with why) or as a
//! decision the user has to make. The body is copied byte for byte; the
//! frontmatter is written from the parsed values by one emitter ([`emit`]), and
//! its comments go with the entries they stand next to ([`comments`]), or are
//! reported as dropped with them.
//!
//! Words whose meaning differs between hosts are mapped to what the SOURCE host
//! grants: `*` is every built-in on tintinweb but no tool at all on nicobailon;
//! an absent `tools` is the source host's default, which the target's default
//! may exceed. What the target cannot express without granting more is a
//! decision that fails the run ([`Item::widens`]), never a silent widening.
//!
//! [`convert_to`] is pure (text in, text and report out, linted where the file
//! will be written); [`write`] puts the result on disk through the
//! symlink-proof writer of `install::safe`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::host::{HostProfile, IdentityBy};
use crate::lint::Diagnostic;
use crate::role::{Node, RoleDoc};

mod comments;
pub mod emit;

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
    /// A decision without which the converted role could do more than the
    /// source role: the run exits 1 until the user decides.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub widens: bool,
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
    /// The role's identity on the source host.
    #[serde(skip)]
    pub identity: String,
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

    /// Items whose decision would otherwise widen what the role may do.
    pub fn widening(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| i.widens)
    }

    /// `--in-place`: the file keeps its name. Where the target names roles by
    /// file, that changes the role's identity, which the user decides.
    fn keep_source_name(&mut self, to: &HostProfile) {
        let Some(source) = self.source.file_name().and_then(|n| n.to_str()) else {
            return;
        };
        let source = source.to_string();
        let wanted = std::mem::replace(&mut self.file_name, source.clone());
        let Some(i) = self.items.iter().position(|i| i.key == "file name") else {
            return;
        };
        let stem = source
            .strip_suffix(to.discovery.suffix.as_str())
            .or_else(|| source.strip_suffix(".md"))
            .unwrap_or(&source);
        // Hosts that read `name` get it written; only a host that names roles
        // by file sees a different role.
        self.items[i] = if to.identity.by == IdentityBy::Stem && stem != self.identity {
            Item {
                outcome: Outcome::Decision,
                key: "file name".into(),
                to: None,
                note: format!(
                    "--in-place keeps the name `{source}`: {} names roles by file, so there the role is `{stem}`, not `{}`; `--out DIR` writes `{wanted}`",
                    to.label(),
                    self.identity
                ),
                widens: false,
            }
        } else {
            Item {
                outcome: Outcome::Converted,
                key: "file name".into(),
                to: Some(source.clone()),
                note: format!(
                    "--in-place keeps the name `{source}` (not renamed to `{wanted}`); {} reads the role's `name`",
                    to.label()
                ),
                widens: false,
            }
        };
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

/// Convert one parsed role file from `from` to `opts.to`, for writing to `dest`:
/// the output is linted where it will sit (the target host's view of that path),
/// with the settings `settings_at` gives for that path (the project's rule levels
/// and overrides, as `pwk lint` would apply them there).
pub fn convert_to<E>(
    doc: &RoleDoc,
    from: &'static HostProfile,
    opts: &ConvertOptions,
    dest: &Destination,
    settings_at: impl FnOnce(&Path) -> Result<crate::lint::FileSettings, E>,
) -> Result<Conversion, ConvertOrSettingsError<E>> {
    let mut c = convert_doc(doc, from, opts).map_err(ConvertOrSettingsError::Convert)?;
    if matches!(dest, Destination::InPlace) {
        c.keep_source_name(opts.to);
    }
    let at = target_path(&c, dest);
    let settings = settings_at(&at).map_err(ConvertOrSettingsError::Settings)?;
    c.lint = crate::lint::lint_doc(&RoleDoc::parse(at, c.text.as_bytes()), opts.to, &settings);
    Ok(c)
}

/// Why [`convert_to`] failed: the conversion, or the settings for the destination.
#[derive(Debug)]
pub enum ConvertOrSettingsError<E> {
    Convert(ConvertError),
    Settings(E),
}

/// Convert one parsed role file from `from` to `opts.to` (not yet linted: see
/// [`convert_to`]).
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
    let notes = comments::Placed::of(doc, entries);
    // The identity first: the target's `name` key, when it reads one.
    let to_name = c.target_key("name");
    let from_name = c.source_key("name");
    let name_index = from_name
        .as_deref()
        .and_then(|k| entries.iter().position(|(key, _)| key.text == k));
    match &to_name {
        Some(k) => {
            let carried = from_name.is_some() && name.as_deref() == Some(identity.as_str());
            c.push(k, emit::string_entry(k, &identity));
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
    if let Some(i) = name_index {
        let carried = to_name.is_some().then_some(0);
        c.comments(&notes, i, carried, &entries[i].0.text);
    }
    let mut has_tools = false;
    for (i, (key, node)) in entries.iter().enumerate() {
        let k = key.text.as_str();
        if from_name.as_deref() == Some(k) && c.setting_of(k).as_deref() == Some("name") {
            continue; // written above
        }
        has_tools |= c.setting_of(k).as_deref() == Some("tools");
        let before = c.lines.len();
        c.entry(k, node, &opts.model_map);
        let carried = (c.lines.len() > before).then_some(before);
        c.comments(&notes, i, carried, k);
    }
    if !has_tools {
        c.absent_tools();
    }
    // Keys the target requires that nothing supplied.
    for req in &to.required {
        if !c.lines.iter().any(|l| l.key == req.key) {
            c.item(
                Outcome::Decision,
                &req.key,
                None,
                format!("{}: add `{}`", req.note, req.key),
            );
        }
    }
    let mut out = String::from("---\n");
    // File-wide comments (`# pwk: ignore-file[…]`, text before the first key)
    // first, those after the last key last.
    let (head, tail) = c.file_comments(&notes);
    out.push_str(&head);
    for l in &c.lines {
        out.push_str(&l.text);
    }
    out.push_str(&tail);
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
    Ok(Conversion {
        source: doc.path.clone(),
        from: from.label(),
        to: to.label(),
        file_name,
        identity,
        text: out,
        items: c.items,
        lint: Vec::new(),
    })
}

/// One entry of the output: its key and its text (whole lines, comments included).
struct Line {
    key: String,
    text: String,
}

struct Convert {
    from: &'static HostProfile,
    to: &'static HostProfile,
    items: Vec<Item>,
    lines: Vec<Line>,
}

impl Convert {
    fn item(&mut self, outcome: Outcome, key: &str, to: Option<&str>, note: String) {
        self.items.push(Item {
            outcome,
            key: key.to_string(),
            to: to.map(str::to_string),
            note,
            widens: false,
        });
    }

    /// A decision without which the role could do more on the target than on
    /// the source: the run fails until the user decides.
    fn widening(&mut self, key: &str, note: String) {
        self.item(Outcome::Decision, key, None, note);
        if let Some(i) = self.items.last_mut() {
            i.widens = true;
        }
    }

    fn push(&mut self, key: &str, text: String) {
        self.lines.push(Line {
            key: key.to_string(),
            text,
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

    /// The comments of source entry `index`: put around the output line
    /// `carried` when the entry carried over, else reported as dropped.
    fn comments(
        &mut self,
        notes: &comments::Placed,
        index: usize,
        carried: Option<usize>,
        key: &str,
    ) {
        let of = notes.of_entry(index);
        if of.is_empty() {
            return;
        }
        match carried.and_then(|i| self.lines.get_mut(i)) {
            Some(line) => line.text = comments::around(&line.text, &of),
            None => {
                for n in of {
                    self.item(
                        Outcome::Dropped,
                        "comment",
                        None,
                        format!(
                            "`#{}` (line {}) went with `{key}`, which is not carried over",
                            n.text.trim_end(),
                            n.line
                        ),
                    );
                }
            }
        }
    }

    /// The file-wide comments, before and after the entries. A `# model:` hint
    /// (pwk's placeholder for a model line) is kept where the target has a model
    /// key.
    fn file_comments(&mut self, notes: &comments::Placed) -> (String, String) {
        let mut parts = (String::new(), String::new());
        let has_model = self.target_key("model").is_some();
        for (n, head) in notes.file_wide() {
            if n.is_model_hint() && !has_model {
                let to = self.to.label();
                self.item(
                    Outcome::Dropped,
                    "comment",
                    None,
                    format!(
                        "`#{}` (line {}): {to} has no model key",
                        n.text.trim_end(),
                        n.line
                    ),
                );
                continue;
            }
            let out = if head { &mut parts.0 } else { &mut parts.1 };
            out.push_str(&format!("#{}\n", n.text.trim_end()));
        }
        parts
    }

    fn entry(&mut self, k: &str, node: &Node, model_map: &BTreeMap<String, String>) {
        let (from, to) = (self.from, self.to);
        let Some(fact) = from.key(k) else {
            // A key the source host ignores: carried only when the target reads it
            // by the same name.
            if to.reads(k) {
                self.push(k, emit::entry(k, node, 0));
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
            let note = format!(
                "{} has no counterpart{}",
                to.label(),
                setting
                    .as_ref()
                    .map(|s| format!(" of the `{s}` setting"))
                    .unwrap_or_default()
            );
            // Leaving out a tool list widens what the role may do: the user decides.
            match setting.as_deref() {
                Some("tools") => self.widening(
                    k,
                    format!("{note}: without it the child gets {}", to.tools.missing),
                ),
                Some("deny-tools") => {
                    self.widening(k, format!("{note}: what it denies would be allowed"))
                }
                _ => self.item(Outcome::Dropped, k, None, note),
            }
            return;
        };
        match setting.as_deref() {
            Some("tools") => self.tools(k, &tk, node, false),
            Some("deny-tools") => self.tools(k, &tk, node, true),
            Some("model") => self.model(k, &tk, node, model_map),
            _ => self.plain(k, &tk, node),
        }
    }

    /// A value that carries over as it is, when the target accepts it.
    fn plain(&mut self, k: &str, tk: &str, node: &Node) {
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
        // Written from the parsed value, under the target's key.
        self.push(tk, emit::entry(tk, node, 0));
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

    /// No tools key in the source: the child gets the source host's default. If
    /// the target's default grants more of pi's built-ins, those the source grants
    /// are listed, so nothing widens; if the target cannot list tools, the user
    /// decides.
    fn absent_tools(&mut self) {
        let (from, to) = (self.from, self.to);
        let pi = |p: &HostProfile| -> Vec<String> {
            let mut v: Vec<String> = Vec::new();
            for t in &p.tools.default {
                for n in p.tools.pi_names(t) {
                    if !v.contains(&n) {
                        v.push(n);
                    }
                }
            }
            v
        };
        let (granted, target) = (pi(from), pi(to));
        let wider: Vec<&String> = target.iter().filter(|t| !granted.contains(t)).collect();
        if wider.is_empty() {
            return;
        }
        let shown = wider
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let Some(tk) = self.target_key("tools") else {
            self.widening(
                "tools",
                format!(
                    "no `tools`: on {} the child gets {}; {} has no tools key, and its default also grants pi's {shown}",
                    from.label(),
                    from.tools.missing,
                    to.label()
                ),
            );
            return;
        };
        let own: Vec<String> = PI_TOOLS
            .iter()
            .filter(|t| granted.iter().any(|g| g == *t))
            .filter_map(|t| to.tools.own_name(t))
            .collect();
        let value = list_value(to, &tk, &own);
        self.push(&tk, value);
        self.item(
            Outcome::Converted,
            "tools",
            Some(&tk),
            format!(
                "no `tools`: on {} the child gets {}; {} would also grant {shown} without it, so the tools are listed",
                from.label(),
                from.tools.missing,
                to.label()
            ),
        );
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
        let mut none = false;
        let same = |a: &str, b: &str| {
            if from.tools.case_insensitive {
                a.eq_ignore_ascii_case(b)
            } else {
                a == b
            }
        };
        for e in &entries {
            let label = format!("{k}: {e}");
            if from.tools.all_tokens.iter().any(|t| same(t, e)) {
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
            if from.tools.none_tokens.iter().any(|t| same(t, e)) {
                none = true;
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
            // A word that is a token of the target's (`*`, `all`, `none`) but not
            // of the source's means something else there: never carried as it is.
            let token_there = to.tools.all_tokens.iter().any(|t| t == e)
                || to.tools.none_tokens.iter().any(|t| t == e);
            if token_there {
                lost += 1;
                self.item(
                    Outcome::Dropped,
                    &label,
                    None,
                    format!(
                        "`{e}` is no tool on {} ({}); on {} it would mean {}",
                        from.label(),
                        from.tools.unknown,
                        to.label(),
                        if to.tools.none_tokens.iter().any(|t| t == e) {
                            "no tools"
                        } else {
                            "every built-in"
                        }
                    ),
                );
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
            if (entries.is_empty() || lost == 0) && !none {
                return;
            }
            let why = if none {
                format!(
                    "`{k}: {}` means no tools on {}",
                    entries.join(", "),
                    from.label()
                )
            } else {
                format!("no listed tool exists on {}", to.label())
            };
            match (deny, to.tools.none_tokens.first()) {
                (false, Some(token)) => {
                    self.push(tk, emit::string_entry(tk, token));
                    self.item(
                        Outcome::Converted,
                        k,
                        Some(tk),
                        format!("{why}: `{token}` on {}", to.label()),
                    );
                }
                (false, None) => self.widening(
                    k,
                    format!(
                        "{why}, {} has no word for no tools, and without `{tk}` the child gets {}",
                        to.label(),
                        to.tools.missing
                    ),
                ),
                (true, _) => {}
            }
            return;
        }
        let value = list_value(to, tk, &out);
        self.push(tk, value);
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
            self.push(tk, emit::string_entry(tk, m));
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
                self.push(tk, emit::string_entry(tk, v));
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
                self.push(tk, emit::string_entry(tk, v));
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
                self.push(tk, emit::string_entry(tk, &m));
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

/// A list of names as the target reads it, as a whole entry: `key: a, b` (the
/// form every pi host and Claude Code read), or `key: [a, b]` where the key takes
/// no string (Gemini CLI).
fn list_value(to: &HostProfile, key: &str, items: &[String]) -> String {
    let takes_string = to.key(key).is_none_or(|f| match &f.schema["type"] {
        serde_json::Value::String(t) => t == "string",
        serde_json::Value::Array(ts) => ts.iter().any(|t| t == "string"),
        _ => true,
    });
    if takes_string {
        emit::string_entry(key, &items.join(", "))
    } else {
        format!("{}: {}\n", emit::key(key), emit::flow_list(items))
    }
}

/// A host's key for a setting.
fn key_for(p: &HostProfile, setting: &str) -> Option<String> {
    p.keys
        .iter()
        .find(|(_, f)| f.setting.as_deref() == Some(setting))
        .map(|(k, _)| k.clone())
}

fn short(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
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
    let by = crate::fs::NamedBy::User(match dest {
        Destination::Dir(_) => "--out".into(),
        Destination::InPlace => "the paths to convert".into(),
    });
    let Some((dir, name)) = anchors.open_parent(&path, &by, create, hooks)? else {
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
            (Replace::Existing(ex.expected()), Some(backup))
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
