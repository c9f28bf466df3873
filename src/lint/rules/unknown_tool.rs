//! `unknown-tool`: a `tools` entry that is not a pi tool.

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::rules::{Rule, did_you_mean};
use crate::role::{Node, Value};

pub(crate) const RULE: Rule = Rule {
    id: "unknown-tool",
    severity: Severity::Warning,
    summary: "a `tools` entry is not one of pi's built-in tools",
    explanation: "pi's built-in tools are read, bash, edit, write, grep, find and ls (lowercase). Hosts drop names they do not know, silently, so the child starts without the tool. `all` and `*` are a trap (an error): tintinweb reads them as every tool, including the mutating bash, edit and write, while other hosts treat them as an unknown name and the child may get no tools at all. Claude Code names (`Read`, `Glob`) do not work in pi. Entries with `ext:`, `mcp:` or a `/` are extension tools and are not checked.",
    bad: "---\ntools: Read, Glob, all\n---\n",
    good: "---\ntools: read, find, grep, ls\n---\n",
};

pub(crate) const BUILTINS: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/// Claude Code and Gemini names, and what pi calls them.
const FOREIGN: &[(&str, &str)] = &[
    ("glob", "find"),
    ("multiedit", "edit"),
    ("read_file", "read"),
    ("write_file", "write"),
    ("grep_search", "grep"),
    ("run_shell_command", "bash"),
    ("shell", "bash"),
    ("list_directory", "ls"),
    ("search", "grep"),
];

/// Each entry of `tools` with its byte span: list items, or the parts of a
/// comma-separated string.
fn entries<'a>(text: &'a str, node: &'a Node) -> Vec<(&'a str, std::ops::Range<usize>)> {
    match &node.value {
        Value::Sequence(items) => items
            .iter()
            .filter_map(|n| Some((n.as_scalar()?.trim(), n.span.clone())))
            .collect(),
        Value::Scalar { text: value, .. } => {
            let raw = &text[node.span.clone()];
            // Spans of the parts are exact only when the value is written as-is (plain
            // or simply quoted on one line); otherwise all entries point at the value.
            let quoted =
                raw.len() == value.len() + 2 && raw.get(1..raw.len() - 1) == Some(value.as_str());
            let offset = if raw == value {
                Some(0)
            } else if quoted {
                Some(1)
            } else {
                None
            };
            let mut out = Vec::new();
            let mut pos = 0;
            for part in value.split(',') {
                let lead = part.len() - part.trim_start().len();
                let name = part.trim();
                if !name.is_empty() {
                    let span = match offset {
                        Some(o) => {
                            let s = node.span.start + o + pos + lead;
                            s..s + name.len()
                        }
                        None => node.span.clone(),
                    };
                    out.push((name, span));
                }
                pos += part.len() + 1;
            }
            out
        }
        Value::Mapping(_) => Vec::new(),
    }
}

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    for key in ["tools", "deny-tools"] {
        let Some(node) = tree.get(key) else { continue };
        for (name, span) in entries(&cx.doc.text, node) {
            if BUILTINS.contains(&name) || name.contains(':') || name.contains('/') {
                continue;
            }
            if name == "all" || name == "*" {
                let d = cx.emit(
                    &RULE,
                    span,
                    "not a tool name",
                    format!("`{name}` in `{key}` is a trap: tintinweb reads it as every tool (including bash, edit and write), other hosts as an unknown tool"),
                    Some("list the tools by name, e.g. `tools: read, grep, find, ls`".into()),
                );
                d.severity = Severity::Error;
                continue;
            }
            let lower = name.to_lowercase();
            let guess = if BUILTINS.contains(&lower.as_str()) {
                BUILTINS.iter().copied().find(|b| *b == lower)
            } else if let Some((_, pi)) = FOREIGN.iter().find(|(f, _)| *f == lower) {
                Some(*pi)
            } else {
                did_you_mean(name, BUILTINS)
            };
            let help = match guess {
                Some(g) => format!(
                    "did you mean `{g}`? pi's built-in tools are {}",
                    BUILTINS.join(", ")
                ),
                None => format!(
                    "pi's built-in tools are {}; prefix extension tools with `ext:` or `mcp:`",
                    BUILTINS.join(", ")
                ),
            };
            cx.emit(
                &RULE,
                span,
                "unknown tool",
                format!("`{name}` in `{key}` is not a pi tool; hosts drop it silently"),
                Some(help),
            );
        }
    }
}
