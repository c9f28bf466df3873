//! `host-tools-list`: a YAML list where the host takes one comma-separated line.

use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::{Checker, describe};
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "host-tools-list",
    severity: Severity::Error,
    also: None,
    summary: "the host's frontmatter reader cannot read `tools` in this form",
    explanation: "Two hosts read frontmatter with their own line parser, not YAML. pi-herdr-agents reads only the text on the `tools:` line, as a comma-separated string, and keeps quotes: a block list reaches it as nothing (the child gets pi's default, mutating tools), `[read, grep]` becomes the names `[read` and `grep]`, and `\"read, grep\"` the names `\"read` and `grep\"`. nicobailon reads block lists but not flow lists: `[read, grep]` also becomes `[read` and `grep]`, which it drops, and the child gets no built-in tools. herdr 3.x goes further: a `tools`, `deny-tools`, `spawning` or `persistent` written as a YAML list or quoted removes the role from discovery (`invalid-capability-declaration`; known from its changelog and source notes, so a warning). Write `tools: read, grep, find, ls` on one line, unquoted. Reported for the host whose profile says its parser misreads the form (`pwk schema --host H`).",
    bad: "---\ntools:\n  - read\n  - grep\n---\n",
    good: "---\ntools: read, grep\n---\n",
};

pub(crate) fn report(cx: &mut Checker<'_>, key: &str, node: &Node) {
    let host = cx.profile.label();
    let items: Vec<&str> = node
        .as_sequence()
        .map(|s| s.iter().filter_map(Node::as_scalar).collect())
        .unwrap_or_default();
    let help = if items.is_empty() {
        format!("write `{key}` as one comma-separated line")
    } else {
        format!("write it as `{key}: {}`", items.join(", "))
    };
    // `key:` through the end of the list becomes `key: a, b` (a block list's lines
    // included). Not offered when a comment sits in between (it would be lost).
    let fix = cx.mapping_key_span(key).and_then(|k| {
        let between = cx.doc.text.get(k.end..node.span.end)?;
        let plain = !items.is_empty() && items.iter().all(|i| plain_item(i));
        (plain && !between.contains('#')).then(|| {
            Fix::replace(
                format!("write `{key}` as one comma-separated line"),
                Safety::Safe,
                k.end..node.span.end,
                format!(": {}", items.join(", ")),
            )
        })
    });
    let d = cx.emit(
        &RULE,
        node.span.clone(),
        "one comma-separated line expected",
        format!(
            "{host} reads `{key}` only as one comma-separated line, found {}",
            describe(node)
        ),
        Some(help),
    );
    d.fixes.extend(fix);
}

/// A tool or skill name that stays one item, unquoted, on a comma line.
fn plain_item(s: &str) -> bool {
    s.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./@*:".contains(&b))
        && !s.contains("://")
}

/// Whether `key` is one the host reads only as one unquoted line and `tree` writes
/// it as a YAML list or quoted ([`crate::host::Profile::strict_lines`]).
pub(crate) fn strict_line_broken(cx: &Checker<'_>, tree: &Node, key: &str) -> bool {
    let Some(strict) = &*cx.profile.strict_lines else {
        return false;
    };
    if !strict.keys.contains(&key) {
        return false;
    }
    let Some(node) = tree.get(key) else {
        return false;
    };
    let raw = cx.doc.text.get(node.span.clone()).unwrap_or_default();
    node.as_sequence().is_some()
        || (node.as_scalar().is_some() && (raw.starts_with('"') || raw.starts_with('\'')))
}

/// A key of the host's [`crate::host::Profile::strict_lines`] written as a YAML
/// list or quoted: what the host does with the role (herdr 3.x removes it).
fn strict_lines(cx: &mut Checker<'_>, tree: &Node) {
    let p = cx.profile;
    let Some(strict) = &*p.strict_lines else {
        return;
    };
    for key in &strict.keys {
        if !strict_line_broken(cx, tree, key) {
            continue;
        }
        let Some(node) = tree.get(key) else { continue };
        let form = if node.as_sequence().is_some() {
            "a YAML list"
        } else {
            "quoted"
        };
        let items = list_items(node);
        let fix = cx.mapping_key_span(key).and_then(|k| {
            let between = cx.doc.text.get(k.end..node.span.end)?;
            let plain = !items.is_empty() && items.iter().all(|i| plain_item(i));
            (plain && !between.contains('#')).then(|| {
                Fix::replace(
                    format!("write `{key}` as one unquoted line"),
                    Safety::Safe,
                    k.end..node.span.end,
                    format!(": {}", items.join(", ")),
                )
            })
        });
        let severity = if strict.confidence.may_error() {
            Severity::Error
        } else {
            Severity::Warning
        };
        let d = cx.emit(
            &RULE,
            node.span.clone(),
            format!("removes the role under {}", p.label()),
            format!(
                "`{key}` is written as {form}: {} {} (it reads `{key}` only as one unquoted `{key}: value` line){}",
                p.label(),
                strict.note,
                if strict.confidence.may_error() {
                    ""
                } else {
                    "; known from its changelog and source notes, not measured"
                }
            ),
            Some(format!("write it as `{key}: {}` on one line, unquoted", items.join(", "))),
        );
        d.severity = p.severity_of(RULE.id, severity);
        d.fixes.extend(fix);
    }
}

/// The names a `tools`-like value lists: a YAML list's scalars, or a string's
/// comma-separated entries.
fn list_items(node: &Node) -> Vec<String> {
    match node.as_sequence() {
        Some(seq) => seq
            .iter()
            .filter_map(Node::as_scalar)
            .map(str::to_string)
            .collect(),
        None => node
            .as_scalar()
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
    }
}

/// Forms the host's parser misreads that the schema cannot see: a flow list where
/// the parser does not read one, a quoted value where it keeps the quotes.
pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    use crate::host::{ListReading, Quotes};
    strict_lines(cx, tree);
    let p = cx.profile;
    for key in [
        "tools",
        "deny-tools",
        "disallowed_tools",
        "excludeTools",
        "skills",
    ] {
        if !p.reads(key) {
            continue;
        }
        if strict_line_broken(cx, tree, key) {
            continue;
        }
        let Some(node) = tree.get(key) else { continue };
        let raw = cx.doc.text.get(node.span.clone()).unwrap_or_default();
        let label = p.label();
        let flow = raw.starts_with('[');
        let quoted = (raw.starts_with('"') || raw.starts_with('\'')) && node.as_scalar().is_some();
        let message = if flow && p.parser.flow_lists != ListReading::Read {
            format!(
                "{label} does not read `[…]` lists: it splits `{key}: {raw}` at commas, brackets included, and drops the names it does not know"
            )
        } else if quoted && p.parser.quotes == Quotes::Kept {
            format!(
                "{label} keeps the quotes of `{key}: {raw}`: the first and last names include a quote character and are dropped"
            )
        } else {
            continue;
        };
        let items = list_items(node);
        let fix = (!items.is_empty() && items.iter().all(|i| plain_item(i))).then(|| {
            Fix::replace(
                format!("write `{key}` as one unquoted comma-separated line"),
                Safety::Safe,
                node.span.clone(),
                items.join(", "),
            )
        });
        let d = cx.emit(
            &RULE,
            node.span.clone(),
            format!("misread by {label}"),
            message,
            Some(format!("write it as `{key}: {}`", items.join(", "))),
        );
        d.fixes.extend(fix);
    }
}
