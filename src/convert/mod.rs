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
//! will be written); [`write()`] puts the result on disk through the
//! symlink-proof writer of [`crate::fs::write`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::host::{HostProfile, IdentityBy};
use crate::lint::Diagnostic;
use crate::role::{Node, RoleDoc};

use map::Convert;

mod comments;
pub(crate) mod emit;
mod fit;
mod map;
mod model;
mod tools;
mod write;

pub(crate) use write::{Destination, WriteResult, Written, target_path, write};

/// What to convert and how.
#[derive(Debug, Clone)]
pub(crate) struct ConvertOptions {
    pub to: &'static HostProfile,
    /// `alias=provider/id` (or any source model value to any target value).
    pub model_map: BTreeMap<String, String>,
}

/// What happened to one key or tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Outcome {
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
pub(crate) struct Item {
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
    /// A decision about what the role may do: the output lets it do less than the
    /// source until the user decides (a restriction the target cannot say), and
    /// the run exits 1.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub limits: bool,
}

/// One converted file.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Conversion {
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
    pub(crate) fn lint_errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.lint
            .iter()
            .filter(|d| d.severity == crate::lint::Severity::Error)
    }

    pub(crate) fn count(&self, o: Outcome) -> usize {
        self.items.iter().filter(|i| i.outcome == o).count()
    }

    /// Decisions about what the role may do (widening ones included).
    pub(crate) fn limiting(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| i.limits || i.widens)
    }

    /// Items whose decision would otherwise widen what the role may do.
    pub(crate) fn widening(&self) -> impl Iterator<Item = &Item> {
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
            .strip_suffix(to.discovery.suffix)
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
                limits: false,
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
                limits: false,
            }
        };
    }
}

/// Why a file could not be converted.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConvertError {
    #[error("`{}` has no frontmatter to convert (it must start with a `---` line)", path.display())]
    NoFrontmatter { path: PathBuf },
    #[error("`{}`: {from} cannot load it: its frontmatter is not valid YAML ({message}){}; `pwk lint --host {from}` shows where", path.display(), if *.repaired { ", and the host's own repair does not fix it" } else { "" })]
    Yaml {
        path: PathBuf,
        from: String,
        message: String,
        /// The host repairs what strict YAML rejects, and that did not help.
        repaired: bool,
    },
    #[error("`{}`: its frontmatter is not a mapping of keys", path.display())]
    NotMapping { path: PathBuf },
    #[error("`{}` is already written for {host}; pick another `--to` or `--from`", path.display())]
    SameHost { path: PathBuf, host: String },
}

impl ConvertError {
    /// The same error, naming the file as `shown` (relative to where pwk runs).
    pub(crate) fn shown_as(mut self, shown: PathBuf) -> ConvertError {
        match &mut self {
            ConvertError::NoFrontmatter { path }
            | ConvertError::Yaml { path, .. }
            | ConvertError::NotMapping { path }
            | ConvertError::SameHost { path, .. } => *path = shown,
        }
        self
    }
}

/// Convert one parsed role file from `from` to `opts.to`, for writing to `dest`:
/// the output is linted where it will sit (the target host's view of that path),
/// with the settings `settings_at` gives for that path (the project's rule levels
/// and overrides, as `pwk lint` would apply them there).
pub(crate) fn convert_to<E>(
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
pub(crate) enum ConvertOrSettingsError<E> {
    Convert(ConvertError),
    Settings(E),
}

/// Convert one parsed role file from `from` to `opts.to` (not yet linted: see
/// [`convert_to`]).
pub(crate) fn convert_doc(
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
    // The file as the source host reads it: where it ends the frontmatter, and
    // its own repair of what strict YAML rejects (Claude Code).
    let (read, repair_items) = read_as_host(doc, from);
    let doc = &read;
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
                repaired: from.parser.repair != crate::role::repair::Repair::None,
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
            n.strip_suffix(from.discovery.suffix)
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
        items: repair_items,
        lines: Vec::new(),
        by_key: Default::default(),
        source: crate::host::effective::grants(from, doc),
        plan: map::ToolPlan::default(),
        last_slot: None,
        identity: None,
    };
    if let Some(rs) = &*from.tools.ruleset {
        c.plan.ruleset_keys = entries
            .iter()
            .map(|(k, _)| k.text.clone())
            .filter(|k| *k == rs.tools_key || *k == rs.permission_key)
            .collect();
    }
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
            c.identity = Some((k.clone(), identity.clone()));
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
        has_tools |= c.setting_of(k).as_deref() == Some("tools")
            || from
                .tools
                .ruleset
                .as_ref()
                .is_some_and(|rs| k == rs.tools_key || k == rs.permission_key);
        let before = c.lines.len();
        c.last_slot = None;
        c.entry(k, node, &opts.model_map);
        let carried = if c.lines.len() > before {
            Some(before)
        } else {
            c.last_slot.take()
        };
        c.comments(&notes, i, carried, k);
    }
    if !has_tools {
        c.absent_tools();
    }
    // Keys the target requires that nothing supplied.
    for req in &*to.required {
        if c.line_of(req.key).is_none() {
            c.item(
                Outcome::Decision,
                req.key,
                None,
                format!("{}: add `{}`", req.note, req.key),
            );
        }
    }
    // A key the target needs before it delegates to the role (Antigravity CLI:
    // `subagent: true`): a role converted for a host is meant to be delegated to.
    if let Some(need) = &*to.invocable {
        let value = need.value.to_string();
        if c.push(need.key, format!("{}: {value}\n", need.key)) {
            c.item(
                Outcome::Converted,
                need.key,
                Some(need.key),
                format!(
                    "added `{}: {value}`: without it {} {}",
                    need.key,
                    to.label(),
                    need.note
                ),
            );
        }
    }
    // File-wide comments (`# pwk: ignore-file[…]`, text before the first key)
    // first, those after the last key last.
    let (head, tail) = c.file_comments(&notes);
    let rest = &text[fences.close.start..];
    // A CRLF file stays CRLF: the frontmatter written from the parsed values takes
    // the line ending of the source's opening fence, as the body keeps its own (N32).
    let crlf = text.split('\n').next().is_some_and(|l| l.ends_with('\r'));
    let assemble = |c: &Convert| -> String {
        let mut out = String::from("---\n");
        out.push_str(&head);
        for l in &c.lines {
            if !l.text.is_empty() {
                out.push_str(&comments::around(&l.text, &l.notes));
            }
        }
        out.push_str(&tail);
        if crlf {
            // Emitted values never hold a raw `\r` (they are quoted); a comment kept
            // from a CRLF line may end in one.
            out = out.replace("\r\n", "\n").replace('\n', "\r\n");
        }
        // The closing fence and the body, byte for byte.
        out.push_str(rest);
        out
    };
    // The tools last, as the target reads them, and never more than the source's.
    c.fit(&assemble);
    let out = assemble(&c);
    c.slot_comments();
    let file_name = file_name(&identity, &stem, to.discovery.suffix);
    if doc.path.file_name().and_then(|n| n.to_str()) != Some(file_name.as_str()) {
        c.item(
            Outcome::Converted,
            "file name",
            Some(&file_name),
            format!("the file is named after the role's identity `{identity}`"),
        );
    }
    Ok(Conversion {
        source: path,
        from: from.label(),
        to: to.label(),
        file_name,
        identity,
        text: out,
        items: c.items,
        lint: Vec::new(),
    })
}

/// `doc` as `from` reads it: cut where the host ends the frontmatter, and repaired
/// where strict YAML rejects it and the host repairs it (Claude Code quotes
/// values and turns tabs into spaces), with what the repair changed.
fn read_as_host(doc: &RoleDoc, from: &HostProfile) -> (RoleDoc, Vec<Item>) {
    let mut items = Vec::new();
    let cut = match from.parser.closing {
        crate::role::Closing::FirstDashes => doc.cut_at_early_dashes(),
        crate::role::Closing::Line => None,
    };
    let doc = match cut {
        Some((cut, at)) => {
            let line = doc.position(at).line;
            items.push(Item {
                outcome: Outcome::Converted,
                key: "frontmatter".into(),
                to: None,
                note: format!(
                    "{} ends the frontmatter at the `---` on line {line}: what follows is the body there, and here",
                    from.label()
                ),
                widens: false,
                limits: false,
            });
            cut
        }
        None => doc.clone(),
    };
    let Some((repaired, lines)) = doc.repaired(from.parser.repair) else {
        return (doc, items);
    };
    use crate::role::repair::Change;
    for l in &lines {
        let line = doc.position(l.range.start).line;
        let note = match &l.change {
            Change::Quoted(k) => format!(
                "{} reads line {line} with the value of `{k}` quoted (its own repair of what strict YAML rejects): converted as it reads it",
                from.label()
            ),
            Change::Tabs => format!(
                "{} reads line {line} with its leading tabs as spaces (its own repair): converted as it reads it",
                from.label()
            ),
            Change::Overridden(k) => format!(
                "`{k}` is repeated: {} keeps the last one, so the one on line {line} is left out",
                from.label()
            ),
        };
        items.push(Item {
            outcome: Outcome::Converted,
            key: "frontmatter".into(),
            to: None,
            note,
            widens: false,
            limits: false,
        });
    }
    (repaired, items)
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

#[cfg(test)]
mod never_widens;
#[cfg(test)]
mod tests;
