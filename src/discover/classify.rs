//! What a host makes of one role file: its name, whether it loads, and why not
//! (the reader's verdict, shown as the file's first lint error).

use std::path::PathBuf;

use super::{Host, HostId, IdentityBy, Layer, RoleFile, RolePath};
use crate::role::{Role, RoleDoc, SplitError, YamlError};

/// Parse results and host rules → one [`RoleFile`].
pub(super) fn classify(
    host: Host,
    path: RolePath,
    source: usize,
    layer: Layer,
    doc: Result<RoleDoc, String>,
) -> RoleFile {
    let file_name = match &path {
        RolePath::Builtin(f) => PathBuf::from(f),
        RolePath::File(p) => p.clone(),
    };
    // The host's suffix comes off whole (Copilot: `x.agent.md` is `x`).
    let stem = file_name
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(host.discovery.suffix))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or_else(|| {
            file_name
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    // A host that repairs frontmatter strict YAML rejects (Claude Code) reads the
    // repaired text; one that ends the frontmatter at the first `---` anywhere
    // reads only what comes before it.
    // One that turns each lone `\r` into `\n` (pi's parseFrontmatter) sees the
    // frontmatter of a file whose lines end in `\r`.
    let doc = doc.map(|d| match (&d.fences, &host.parser.cr_newlines) {
        (Err(crate::role::SplitError::MissingOpeningFence { .. }), Some(_)) => d
            .with_cr_newlines()
            .filter(|r| r.fences.is_ok())
            .unwrap_or(d),
        _ => d,
    });
    let doc = doc.map(|d| d.as_read_by(host.parser.closing, host.parser.repair));
    let (doc, problem) = match doc {
        Ok(doc) => {
            let p = first_problem(&doc, host);
            (Some(doc), p)
        }
        Err(e) => (None, Some(e)),
    };
    // A file without frontmatter keys: some hosts load it anyway, with every
    // default (tintinweb: the file stem, all seven built-in tools).
    let no_keys = doc.as_ref().is_some_and(|d| {
        d.invalid_utf8_at.is_none()
            && match (&d.fences, &d.tree) {
                (Err(_), _) => true,
                // pi's parser ends frontmatter only at `---`: after `...` there is none.
                (Ok(f), _) if f.close_kind == crate::role::CloseKind::Dots => true,
                (Ok(_), Some(Err(YamlError::NotMapping { .. }))) => true,
                // A host that loads a file it cannot parse with every default.
                (Ok(_), Some(Err(_)))
                    if host.bad_file.action == crate::host::BadFileAction::LoadDefaults =>
                {
                    true
                }
                (Ok(_), Some(Ok(tree))) => tree.as_mapping().is_none_or(<[_]>::is_empty),
                _ => false,
            }
    });
    let role = if no_keys && !host.is_portable() {
        match host.no_frontmatter.action {
            crate::host::NoFrontmatterAction::LoadDefaults => Some(Role::default()),
            crate::host::NoFrontmatterAction::SkipSilent => None,
        }
    } else {
        doc.as_ref().and_then(Role::from_doc)
    };
    // A file name the host passes over (Gemini CLI: `_*.md`) is not a role there.
    let excluded = match &path {
        RolePath::File(p) => p
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| host.excludes(n)),
        RolePath::Builtin(_) => None,
    };
    let problem = match excluded {
        Some(e) => Some(e.note.to_string()),
        None => problem,
    };
    let loadable = excluded.is_none()
        && match (&doc, &role) {
            (Some(doc), Some(role)) => loadable_by(host, doc, role),
            _ => false,
        };
    let declares_hidden = role.as_ref().is_some_and(|r| r.disable_model_invocation);
    let hidden = declares_hidden && host.reads("disable-model-invocation");
    let name = role
        .as_ref()
        .and_then(|r| r.name.clone())
        .filter(|n| !n.trim().is_empty());
    let identity = match host.identity.by {
        IdentityBy::Stem => stem.clone(),
        IdentityBy::Name | IdentityBy::NameThenStem => name.unwrap_or_else(|| stem.clone()),
    };
    RoleFile {
        path,
        source,
        layer,
        stem,
        doc,
        role,
        problem,
        loadable,
        hidden,
        declares_hidden,
        identity,
    }
}

/// Whether `host` loads a file that parsed.
fn loadable_by(host: Host, doc: &RoleDoc, role: &Role) -> bool {
    // pwk's own reader wants text; the hosts test JavaScript truthiness (any
    // non-empty string, `"   "` included).
    let present = |v: &Option<String>| {
        v.as_ref().is_some_and(|s| {
            if host.is_portable() {
                !s.trim().is_empty()
            } else {
                !s.is_empty()
            }
        })
    };
    if doc.invalid_utf8_at.is_some()
        || (doc.has_bom()
            && host.parser.bom != crate::host::BomReading::Stripped
            && host.parser.bom != crate::host::BomReading::Varies)
        || doc.bidi_at().is_some()
    {
        return false;
    }
    // A host that reads frontmatter line by line (nicobailon) does not see a key
    // whose line holds a lone `\r`, U+2028 or U+2029 ([`crate::role::line_reader`]).
    let line_keys = match (&host.parser.lone_cr, &doc.fences) {
        (Some(_), Ok(f)) => Some(crate::role::line_reader::keys(&doc.text[f.yaml.clone()])),
        _ => None,
    };
    if let Some(seen) = &line_keys
        && host
            .required
            .iter()
            .any(|r| !seen.iter().any(|s| s == r.key))
    {
        return false;
    }
    // The keys without which the host skips the role (pwk: both `name` and
    // `description`, as its schema; nicobailon the same; tintinweb and herdr none).
    host.required.iter().all(|r| match r.key {
        "name" => present(&role.name),
        "description" if r.empty_ok => role.description.is_some(),
        "description" => present(&role.description),
        other => doc.mapping().is_some_and(|m| m.get(other).is_some()),
    })
}

/// The first problem with a parsed role file, in words; `None` when it is usable.
///
/// Reports the reader's own findings: invalid UTF-8, missing or unterminated
/// frontmatter fences, YAML errors, and a missing `name` or `description`.
///
/// Whether a file is broken is decided by the reader; what is shown is the file's
/// first lint error (`pwk lint` would report the same, with its rule id), which names
/// the exact line and column.
///
/// Under a pi host the file is judged as pi hosts read role files (the portable
/// profile: `name` and `description`, which one of them or another needs); under a
/// host with its own CLI, as that host reads it (its required keys, its rules).
pub fn first_problem(doc: &RoleDoc, host: Host) -> Option<String> {
    let judge = if host.host.is_pi() {
        HostId::Pwk.newest()
    } else {
        host
    };
    let reader = reader_problem(doc, judge)?;
    let diagnostics = crate::lint::check_doc(doc, judge);
    let first = diagnostics
        .iter()
        .find(|d| d.severity == crate::lint::Severity::Error)
        .or(diagnostics.first());
    Some(match first {
        Some(d) => format!(
            "line {}, column {}: {} [{}]",
            d.start.line, d.start.column, d.message, d.rule
        ),
        None => reader,
    })
}

/// The reader's own verdict: why `host` would skip this file, if it would.
fn reader_problem(doc: &RoleDoc, host: Host) -> Option<String> {
    let at = |offset: usize| {
        let p = doc.position(offset);
        format!("line {}, column {}", p.line, p.column)
    };
    if let Some(offset) = doc.invalid_utf8_at {
        return Some(format!("invalid UTF-8 at {}", at(offset)));
    }
    if doc.has_bom() && host.parser.bom != crate::host::BomReading::Stripped {
        return Some(
            "the file starts with a byte order mark; hosts then see no frontmatter".into(),
        );
    }
    if let Some(offset) = doc.bidi_at() {
        return Some(format!(
            "a bidirectional control character at {} (Trojan Source)",
            at(offset)
        ));
    }
    match &doc.fences {
        Err(SplitError::MissingOpeningFence { .. }) => {
            return Some("no frontmatter: the file must start with a `---` line".to_string());
        }
        Err(SplitError::Unterminated { open }) => {
            return Some(format!(
                "frontmatter opened at {} is never closed with a `---` line",
                at(open.start)
            ));
        }
        Ok(_) => {}
    }
    match &doc.tree {
        Some(Err(e)) => return Some(yaml_problem(doc, e)),
        None => return Some("the frontmatter could not be read".to_string()),
        Some(Ok(_)) => {}
    }
    let mapping = doc.mapping()?;
    for required in &*host.required {
        let key = required.key;
        match mapping.get(key) {
            None => return Some(format!("missing `{key}`")),
            Some(node) => match node.as_str() {
                Some(s) if !s.trim().is_empty() || required.empty_ok => {}
                Some(_) => return Some(format!("`{key}` is empty")),
                None => {
                    return Some(format!(
                        "`{key}` must be a string (at {})",
                        at(node.span.start)
                    ));
                }
            },
        }
    }
    None
}

fn yaml_problem(doc: &RoleDoc, e: &YamlError) -> String {
    let at = |offset: usize| {
        let p = doc.position(offset);
        format!("line {}, column {}", p.line, p.column)
    };
    match e {
        YamlError::Syntax {
            message,
            at: offset,
        } => {
            format!("YAML syntax error at {}: {message}", at(*offset))
        }
        YamlError::DuplicateKey { key, first, second } => format!(
            "duplicate key `{key}` at {} (first at {})",
            at(second.start),
            at(first.start)
        ),
        YamlError::Anchor { at: offset } => {
            format!(
                "YAML anchors and aliases are not allowed (at {})",
                at(*offset)
            )
        }
        YamlError::Tag { at: offset } => {
            format!("YAML tags are not allowed (at {})", at(*offset))
        }
        YamlError::NotMapping { at: offset } => {
            format!(
                "the frontmatter is not a `key: value` mapping (at {})",
                at(*offset)
            )
        }
        YamlError::ComplexKey { at: offset } => {
            format!(
                "a frontmatter key must be a plain word (at {})",
                at(*offset)
            )
        }
        YamlError::TooDeep { at: offset } => format!(
            "lists and mappings nest more than {} levels deep (at {})",
            crate::role::yaml::MAX_DEPTH,
            at(*offset)
        ),
        YamlError::ControlCharacter { at: offset, ch } => format!(
            "a control character `{}` in the frontmatter (at {})",
            crate::text::escape_char(*ch),
            at(*offset)
        ),
    }
}
