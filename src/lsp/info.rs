//! Hover, document symbols and go to definition.

use lsp_types as lt;
use serde_json::Value as Json;

use super::document::Open;
use super::position::Encoding;
use super::uri;
use super::workspace::Workspace;
use crate::discover::runtime::{RuntimeInputs, resolve_runtime};
use crate::discover::{Layer, ResolvedRole, RolePath};
use crate::host::HostProfile;
use crate::role::{Key, Node, Role, RoleDoc};

/// Text from a role file as a Markdown code span, whatever it holds: a fence of
/// one backtick more than its longest run of backticks (so a backtick in the text
/// cannot close the span and start a link), padded with a space when the text
/// starts or ends with a backtick or a space (CommonMark strips one on each side);
/// control characters and line breaks escaped.
pub(crate) fn code(text: &str) -> String {
    let text = crate::text::escape_line(text);
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.is_empty() || text.starts_with(['`', ' ']) || text.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Text that may hold role text, as plain Markdown text: every ASCII punctuation
/// character Markdown gives a meaning (links, images, HTML, emphasis, code spans)
/// backslash-escaped; control characters and line breaks escaped.
pub(crate) fn md(text: &str) -> String {
    let text = crate::text::escape_line(text);
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_ascii_punctuation()
            && !matches!(
                c,
                ',' | ';' | ':' | '/' | '\'' | '"' | '?' | '=' | '@' | '%' | '$' | '^'
            )
        {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The frontmatter entry at byte `offset`: the key, its value, and whether the
/// offset is on the key.
fn entry_at(doc: &RoleDoc, offset: usize) -> Option<(&Key, &Node, bool)> {
    let entries = doc.mapping()?.as_mapping()?;
    entries.iter().find_map(|(k, v)| {
        if k.span.start <= offset && offset <= k.span.end {
            Some((k, v, true))
        } else if v.span.start <= offset && offset <= v.span.end && v.span.start < v.span.end {
            Some((k, v, false))
        } else {
            None
        }
    })
}

pub(super) fn hover(
    ws: &Workspace,
    o: &Open,
    pos: lt::Position,
    enc: Encoding,
) -> Option<lt::Hover> {
    let offset = o.doc.offset(pos, enc);
    let doc = RoleDoc::parse(&o.doc.path, o.doc.text.as_bytes());
    let (key, value, on_key) = entry_at(&doc, offset)?;
    // The host that reads this file (as `pwk lint` picks it), not the workspace's.
    let host = ws.profile_for(&o.doc.path);
    let (text, span) = if on_key {
        (key_hover(host, &key.text), key.span.clone())
    } else {
        (
            value_hover(ws, host, &doc, &key.text, value),
            value.span.clone(),
        )
    };
    Some(lt::Hover {
        contents: lt::HoverContents::Markup(lt::MarkupContent {
            kind: lt::MarkupKind::Markdown,
            value: text,
        }),
        range: Some(o.doc.range(span, enc)),
    })
}

/// A key's schema entry under `host` (the derived host schema, else the role schema).
pub(crate) fn key_schema(host: &'static HostProfile, key: &str) -> Option<&'static Json> {
    let own = &crate::host::schema::host_schema(host)["properties"][key];
    if !own.is_null() {
        return Some(own);
    }
    let role = &crate::role::schema::schema()["properties"][key];
    (!role.is_null()).then_some(role)
}

/// What a key's schema accepts, in words.
pub(crate) fn accepted(prop: &Json) -> Option<String> {
    if let Some(values) = prop["enum"].as_array() {
        let v: Vec<String> = values.iter().map(|v| format!("`{}`", plain(v))).collect();
        return Some(format!("one of {}", v.join(", ")));
    }
    if prop.get("oneOf").is_some() {
        return Some("a comma-separated string or a list of strings".into());
    }
    let mut words = match prop["type"].as_str()? {
        "string" => "a string".to_string(),
        "boolean" => "`true` or `false`".to_string(),
        "integer" => "a whole number".to_string(),
        "number" => "a number".to_string(),
        "array" => "a list".to_string(),
        "object" => "a mapping".to_string(),
        other => format!("a {other}"),
    };
    if let Some(min) = prop["minimum"].as_i64() {
        words.push_str(&format!(", at least {min}"));
    }
    if let Some(p) = prop["pattern"].as_str() {
        words.push_str(&format!(" matching `{p}`"));
    }
    Some(words)
}

fn plain(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn key_hover(host: &'static HostProfile, key: &str) -> String {
    let mut out = format!("**{}**", code(key));
    let prop = key_schema(host, key);
    let description = prop
        .and_then(|p| p["description"].as_str())
        .or_else(|| crate::role::schema::schema()["properties"][key]["description"].as_str());
    if let Some(d) = description {
        out.push_str(&format!("\n\n{d}"));
    }
    if let Some(a) = prop.and_then(accepted) {
        out.push_str(&format!("\n\nAccepts {a}."));
    }
    out.push_str("\n\n");
    out.push_str(&host_says(host, key));
    out
}

/// What the host does with `key`: reads it, ignores it or rejects the role.
fn host_says(host: &'static HostProfile, key: &str) -> String {
    let label = host.label();
    if host.is_portable() {
        let readers: Vec<String> = crate::host::schema::readers(key)
            .iter()
            .map(|p| p.label())
            .collect();
        let documented = !crate::role::schema::schema()["properties"][key].is_null();
        return match (readers.is_empty(), documented) {
            (true, true) => {
                "Portable profile (`pwk`): documented; no pi host's loader reads it.".to_string()
            }
            (true, false) => "Portable profile (`pwk`): no host reads this key.".to_string(),
            (false, _) => format!("Portable profile (`pwk`): read by {}.", readers.join(", ")),
        };
    }
    if let Some(fact) = host.key(key) {
        let mut s = format!("**{label} reads it.**");
        if let Some(note) = &fact.note {
            s.push_str(&format!(" {note}"));
        }
        if let Some(default) = &fact.default {
            s.push_str(&format!("\n\nWhen absent: {default}"));
        }
        s.push_str(&format!("\n\nSource: {}", fact.cite));
        return s;
    }
    if let Some(fact) = host.rejected.get(key) {
        return format!(
            "**{label} rejects a role with this key.** {}\n\nSource: {}",
            fact.note, fact.cite
        );
    }
    let mut s = format!("**{label} ignores it** (its loader never reads this key).");
    if let Some(instead) = host.instead.get(key) {
        s.push_str(&format!(" It reads `{instead}` instead."));
    }
    s
}

fn value_hover(
    ws: &Workspace,
    host: &'static HostProfile,
    doc: &RoleDoc,
    key: &str,
    node: &Node,
) -> String {
    let reads = format!(
        "YAML reads this as {}.",
        md(&crate::lint::rule::describe(node))
    );
    let Some(role) = Role::from_doc(doc) else {
        return reads;
    };
    let resolved = ResolvedRole {
        name: role.identity(&doc.path).unwrap_or_default().to_string(),
        path: RolePath::File(doc.path.clone()),
        layer: Layer::Project,
        source: 0,
        doc: doc.clone(),
        role,
        hidden: false,
        shadows: Vec::new(),
        notes: Vec::new(),
    };
    let inputs = RuntimeInputs {
        host,
        explicit_model: None,
        agent_dir: ws.setup.agent_dir.as_deref(),
        cwd: &ws.setup.root,
        root: Some(&ws.setup.root),
        home: ws.setup.home.as_deref(),
        // The server does not keep the environment: a hover shows the settings
        // files' links only.
        host_vars: None,
    };
    let rt = resolve_runtime(&resolved, &inputs);
    let label = host.label();
    // The key this host reads the setting from (`maxTurns`, `effort`, `steps`).
    let what = host.key(key).and_then(|f| f.setting).unwrap_or(key);
    let extra = match what {
        "tools" | "deny-tools" => {
            let t = &rt.tools;
            let list = if t.effective.is_empty() {
                "no tools".to_string()
            } else {
                // A tool with a limit carries it, as `pwk show` lists it: one
                // the settings deny every call of is no grant.
                t.granted()
                    .map(|(t, limit)| match limit {
                        Some(calls) => format!("{} ({calls})", code(t)),
                        None => code(t),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!(
                "Under {label} the child gets {list}{}.\n\n{}",
                if t.mutating {
                    " (it can change files)"
                } else {
                    " (read-only)"
                },
                md(&t.note)
            )
        }
        "model" | "cli-model" => {
            let m = &rt.model;
            let mut s = format!(
                "Model under {label}: {} (decided by {}).",
                m.effective.as_deref().map(code).unwrap_or_else(|| {
                    if host.host.is_pi() {
                        "pi's first model with credentials".into()
                    } else {
                        format!("{}'s default", md(host.as_str()))
                    }
                }),
                md(m.decided_by)
            );
            if !m.chain.is_empty() {
                s.push_str("\n\nChain, first usable link wins:");
                for l in &m.chain {
                    s.push_str(&format!(
                        "\n- {} ({}): {} — {}",
                        md(l.link),
                        md(&l.from.to_string()),
                        l.value
                            .as_deref()
                            .map(code)
                            .unwrap_or_else(|| "unset".into()),
                        l.status.as_str()
                    ));
                }
            }
            for n in &m.notes {
                s.push_str(&format!("\n\n{}", md(n)));
            }
            s
        }
        "thinking" => setting(
            &label,
            &rt.thinking.value,
            rt.thinking.honoured,
            &rt.thinking.note,
        ),
        "max_turns" | "max-turns" => setting(
            &label,
            &rt.max_turns.value.map(|v| v.to_string()),
            rt.max_turns.honoured,
            &rt.max_turns.note,
        ),
        "skills" | "skill" => {
            let found = ws.skills();
            let listed = crate::role::string_list(node).unwrap_or_default();
            let parts: Vec<String> = listed
                .iter()
                .map(|s| {
                    if found.contains(s) {
                        format!("{} (found)", code(s))
                    } else {
                        format!("{} (not in the skill directories the host reads)", code(s))
                    }
                })
                .collect();
            format!("Skills: {}.", parts.join(", "))
        }
        _ => return reads,
    };
    format!("{reads}\n\n{extra}")
}

fn setting(label: &str, value: &Option<String>, honoured: bool, note: &str) -> String {
    format!(
        "Under {label}: {}{}. {}",
        value.as_deref().map(code).unwrap_or_else(|| "unset".into()),
        if honoured { "" } else { " (not acted on)" },
        md(note)
    )
}

/// The frontmatter keys (under one `frontmatter` symbol) and the body's headings,
/// nested by level.
pub(super) fn symbols(o: &Open, enc: Encoding) -> lt::DocumentSymbolResponse {
    let doc = RoleDoc::parse(&o.doc.path, o.doc.text.as_bytes());
    let range = |s: std::ops::Range<usize>| o.doc.range(s, enc);
    let mut out = Vec::new();
    if let Ok(f) = &doc.fences {
        let keys: Vec<lt::DocumentSymbol> = doc
            .mapping()
            .and_then(|m| m.as_mapping())
            .unwrap_or_default()
            .iter()
            .map(|(k, v)| {
                symbol(
                    k.text.clone(),
                    v.as_scalar().map(|s| s.chars().take(60).collect()),
                    lt::SymbolKind::KEY,
                    range(k.span.start..v.span.end.max(k.span.end)),
                    range(k.span.clone()),
                )
            })
            .collect();
        let mut fm = symbol(
            "frontmatter".into(),
            None,
            lt::SymbolKind::NAMESPACE,
            range(f.open.start..f.close.end),
            range(f.open.clone()),
        );
        fm.children = Some(keys);
        out.push(fm);
    }
    let body_start = doc.fences.as_ref().map_or(0, |f| f.body.start);
    out.extend(headings(&doc.text, body_start, &range));
    lt::DocumentSymbolResponse::Nested(out)
}

#[allow(deprecated)]
fn symbol(
    name: String,
    detail: Option<String>,
    kind: lt::SymbolKind,
    range: lt::Range,
    selection_range: lt::Range,
) -> lt::DocumentSymbol {
    lt::DocumentSymbol {
        // An empty name is refused by some clients.
        name: if name.is_empty() { " ".into() } else { name },
        detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range,
        children: None,
    }
}

/// ATX headings (`# …` to `###### …`) outside fenced code blocks, nested.
fn headings(
    text: &str,
    from: usize,
    range: &dyn Fn(std::ops::Range<usize>) -> lt::Range,
) -> Vec<lt::DocumentSymbol> {
    // (level, symbol) stack; closed entries move into their parent.
    let mut roots: Vec<lt::DocumentSymbol> = Vec::new();
    let mut stack: Vec<(usize, lt::DocumentSymbol)> = Vec::new();
    let close = |stack: &mut Vec<(usize, lt::DocumentSymbol)>,
                 roots: &mut Vec<lt::DocumentSymbol>,
                 level: usize| {
        while stack.last().is_some_and(|(l, _)| *l >= level) {
            let (_, s) = stack.pop().expect("non-empty");
            match stack.last_mut() {
                Some((_, parent)) => parent.children.get_or_insert_with(Vec::new).push(s),
                None => roots.push(s),
            }
        }
    };
    let mut in_code = false;
    let mut offset = from;
    for line in text[from.min(text.len())..].split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let l = line.trim_end_matches(['\n', '\r']);
        let t = l.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let level = l.bytes().take_while(|&b| b == b'#').count();
        if !(1..=6).contains(&level) || !(l.len() == level || l.as_bytes()[level] == b' ') {
            continue;
        }
        let title = l[level..].trim().trim_end_matches('#').trim().to_string();
        close(&mut stack, &mut roots, level);
        let r = range(start..start + l.len());
        stack.push((level, symbol(title, None, lt::SymbolKind::STRING, r, r)));
    }
    close(&mut stack, &mut roots, 0);
    roots
}

/// From a role to the definitions of the same name in the other discovery layers:
/// the file it shadows, or the file that shadows it.
pub(super) fn definition(ws: &Workspace, o: &Open, _enc: Encoding) -> lt::GotoDefinitionResponse {
    let d = ws.discovery_as(ws.profile_for(&o.doc.path));
    let me = d
        .files
        .iter()
        .find(|f| f.path.as_file() == Some(o.doc.path.as_path()));
    let identity = match me {
        Some(f) => f.identity.clone(),
        None => {
            let doc = RoleDoc::parse(&o.doc.path, o.doc.text.as_bytes());
            let role = Role::from_doc(&doc).unwrap_or_default();
            match role.identity(&o.doc.path) {
                Some(i) => i.to_string(),
                None => return lt::GotoDefinitionResponse::Array(Vec::new()),
            }
        }
    };
    let locations: Vec<lt::Location> = d
        .files
        .iter()
        .filter(|f| f.identity == identity)
        .filter_map(|f| f.path.as_file())
        .filter(|p| *p != o.doc.path)
        .filter_map(|p| {
            Some(lt::Location::new(
                uri::from_path(p)?,
                lt::Range::new(lt::Position::new(0, 0), lt::Position::new(0, 0)),
            ))
        })
        .collect();
    lt::GotoDefinitionResponse::Array(locations)
}
