//! Completion in the frontmatter: keys the host reads (with a snippet for the
//! value), enum values, tool names from the host's vocabulary, skill names from
//! the skill directories, and model ids from `pi --list-models` (cached; never
//! waited for).
//!
//! The context comes from the text around the cursor, not the YAML tree: while
//! someone types, the frontmatter is often not valid YAML.

use std::path::Path;

use lsp_types as lt;

use super::document::Open;
use super::info::{accepted, key_schema};
use super::models::ModelCache;
use super::position::Encoding;
use super::workspace::Workspace;
use crate::host::HostProfile;
use crate::role::SplitError;

/// Where the cursor is.
#[derive(Debug, PartialEq, Eq)]
enum Context<'t> {
    /// At the start of a top-level line: `partial` typed so far.
    Key { partial: &'t str },
    /// In the value of `key`, after `partial`'s start; `written` is the whole
    /// value so far (to leave out list items already there).
    Value {
        key: &'t str,
        partial: &'t str,
        written: &'t str,
    },
}

pub(super) struct Request<'a> {
    pub ws: &'a Workspace,
    pub models: &'a ModelCache,
    pub pi: Option<&'a Path>,
    pub snippets: bool,
}

pub(super) fn complete(
    r: &Request<'_>,
    o: &Open,
    pos: lt::Position,
    enc: Encoding,
) -> Option<lt::CompletionResponse> {
    let text = o.doc.text.as_str();
    let offset = o.doc.offset(pos, enc);
    let yaml = match crate::role::frontmatter::split(text) {
        Ok(f) => f.yaml,
        // While a new file is typed the closing fence may not be there yet.
        Err(SplitError::Unterminated { open }) => (open.end + 1).min(text.len())..text.len(),
        Err(SplitError::MissingOpeningFence { .. }) => return None,
    };
    if offset < yaml.start || offset > yaml.end {
        return None;
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &text[line_start..offset];
    let context = context(&text[yaml.start..line_start], prefix)?;
    let replace_from = offset
        - match &context {
            Context::Key { partial } | Context::Value { partial, .. } => partial.len(),
        };
    let range = o.doc.range(replace_from..offset, enc);
    // The host that reads this file (as `pwk lint` picks it), not the workspace's.
    let host = r.ws.profile_for(&o.doc.path);
    let mut incomplete = false;
    let items = match context {
        Context::Key { .. } => {
            let present = present_keys(&text[yaml.clone()]);
            keys(host)
                .into_iter()
                .filter(|k| !present.contains(k))
                .map(|k| key_item(host, k, range, r.snippets))
                .collect()
        }
        Context::Value { key, written, .. } => {
            // The key this host reads the setting from (`disallowedTools`, `effort`).
            let what = host.key(key).and_then(|f| f.setting).unwrap_or(key);
            let values: Vec<(String, Option<String>)> = match what {
                "tools" | "deny-tools" => {
                    let t = &host.tools;
                    let have = crate::role::split_csv(written);
                    [&t.builtins, &t.provided, &t.all_tokens, &t.none_tokens]
                        .into_iter()
                        .flatten()
                        .filter(|n| !have.iter().any(|h| h == *n))
                        .map(|n| {
                            (
                                n.to_string(),
                                Some(format!("a tool {} knows", host.label())),
                            )
                        })
                        .collect()
                }
                "skills" | "skill" => {
                    r.ws.skills()
                        .into_iter()
                        .map(|s| (s, Some("a skill in the skill directories".into())))
                        .collect()
                }
                // A host with its own CLI resolves its own model names, not pi's.
                "model" if !host.host.is_pi() => {
                    let m = &host.models;
                    let label = host.label();
                    m.aliases
                        .iter()
                        .map(|a| (a.to_string(), Some(format!("an alias {label} resolves"))))
                        .chain(
                            m.inherit
                                .iter()
                                .map(|i| (i.to_string(), Some("the parent's model".to_string()))),
                        )
                        .collect()
                }
                "model" => match r.models.get(r.pi, &r.ws.setup.root) {
                    Some(ids) => ids
                        .into_iter()
                        .map(|id| (id, Some("from `pi --list-models`".into())))
                        .collect(),
                    None => {
                        incomplete = true;
                        Vec::new()
                    }
                },
                _ => match key_schema(host, key) {
                    Some(prop) if prop["enum"].is_array() => prop["enum"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|v| v.as_str().map(|s| (s.to_string(), None)))
                        .collect(),
                    Some(prop) if prop["type"] == "boolean" => {
                        vec![("true".into(), None), ("false".into(), None)]
                    }
                    _ => Vec::new(),
                },
            };
            values
                .into_iter()
                .map(|(v, detail)| lt::CompletionItem {
                    label: v.clone(),
                    kind: Some(lt::CompletionItemKind::VALUE),
                    detail,
                    text_edit: Some(lt::CompletionTextEdit::Edit(lt::TextEdit {
                        range,
                        new_text: v,
                    })),
                    ..Default::default()
                })
                .collect()
        }
    };
    Some(lt::CompletionResponse::List(lt::CompletionList {
        is_incomplete: incomplete,
        items,
    }))
}

/// The cursor's context from the frontmatter lines before its line (`above`)
/// and its line up to the cursor (`prefix`).
fn context<'t>(above: &'t str, prefix: &'t str) -> Option<Context<'t>> {
    let is_key_char = |c: char| c.is_alphanumeric() || "_-.".contains(c);
    if !prefix.starts_with([' ', '\t', '-']) {
        return match prefix.split_once(':') {
            None if prefix.chars().all(is_key_char) => Some(Context::Key { partial: prefix }),
            None => None,
            Some((key, rest)) => {
                let written = rest.trim_start();
                // The item being typed: after the last comma (lists as strings).
                let item = match written.rfind(',') {
                    Some(i) if matches!(key, "tools" | "deny-tools" | "skills" | "skill") => {
                        written[i + 1..].trim_start()
                    }
                    _ => written,
                };
                Some(Context::Value {
                    key,
                    partial: item,
                    written,
                })
            }
        };
    }
    // `  - item` under `key:` (a block list).
    let item = prefix.trim_start().strip_prefix('-')?.trim_start();
    let key = above
        .lines()
        .rev()
        .find(|l| !l.starts_with([' ', '\t', '-', '#']) && !l.trim().is_empty())?
        .split_once(':')?
        .0;
    Some(Context::Value {
        key,
        partial: item,
        written: "",
    })
}

/// Keys at the start of a line in the frontmatter text (valid YAML or not).
fn present_keys(yaml: &str) -> Vec<&str> {
    yaml.lines()
        .filter(|l| !l.starts_with([' ', '\t', '-', '#']))
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.trim()))
        .collect()
}

/// The keys to offer: the ones the host's loader reads; for the portable profile,
/// the documented keys that are not deprecated.
fn keys(host: &'static HostProfile) -> Vec<&'static str> {
    if host.is_portable() {
        let props = crate::role::schema::schema()["properties"].as_object();
        return props
            .into_iter()
            .flatten()
            .filter(|(_, p)| p["deprecated"] != true)
            .map(|(k, _)| k.as_str())
            .collect();
    }
    host.keys.keys().copied().collect()
}

fn key_item(
    host: &'static HostProfile,
    key: &str,
    range: lt::Range,
    snippets: bool,
) -> lt::CompletionItem {
    let prop = key_schema(host, key);
    let value = prop
        .map(|p| value_snippet(key, p))
        .unwrap_or_else(|| "$1".into());
    let (new_text, format) = if snippets {
        (format!("{key}: {value}"), lt::InsertTextFormat::SNIPPET)
    } else {
        (format!("{key}: "), lt::InsertTextFormat::PLAIN_TEXT)
    };
    lt::CompletionItem {
        label: key.to_string(),
        kind: Some(lt::CompletionItemKind::PROPERTY),
        detail: prop.and_then(accepted),
        documentation: prop
            .and_then(|p| p["description"].as_str())
            .map(|d| lt::Documentation::String(d.to_string())),
        insert_text_format: Some(format),
        text_edit: Some(lt::CompletionTextEdit::Edit(lt::TextEdit {
            range,
            new_text,
        })),
        ..Default::default()
    }
}

/// The value part of a key's snippet.
fn value_snippet(key: &str, prop: &serde_json::Value) -> String {
    if let Some(values) = prop["enum"].as_array() {
        let v: Vec<String> = values
            .iter()
            .filter_map(|v| v.as_str())
            .map(|s| s.replace([',', '|'], ""))
            .collect();
        return format!("${{1|{}|}}", v.join(","));
    }
    match (key, prop["type"].as_str()) {
        ("tools", _) => "${1:read, grep, find, ls}".into(),
        (_, Some("boolean")) => "${1|true,false|}".into(),
        (_, Some("integer")) => "${1:1}".into(),
        _ => "$1".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts() {
        assert_eq!(context("", "too"), Some(Context::Key { partial: "too" }));
        assert_eq!(
            context("", "tools: read, gr"),
            Some(Context::Value {
                key: "tools",
                partial: "gr",
                written: "read, gr"
            })
        );
        assert_eq!(
            context("name: x\nskills:\n  - a\n", "  - b"),
            Some(Context::Value {
                key: "skills",
                partial: "b",
                written: ""
            })
        );
        assert_eq!(context("", "a b"), None);
    }
}
