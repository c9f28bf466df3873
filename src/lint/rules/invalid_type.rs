//! `invalid-type`: a value of the wrong YAML type.

use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::{Checker, describe, expected};
use crate::lint::rules::Rule;
use crate::role::{Node, Value};

pub(crate) const RULE: Rule = Rule {
    id: "invalid-type",
    severity: Severity::Error,
    also: None,
    summary: "a value has the wrong type (a quoted number, the string \"true\", …)",
    explanation: "Hosts read values with their YAML type: `max_turns: \"20\"` is a string, not a number, and tintinweb silently ignores a non-number turn bound; `spawning: \"false\"` is a string, which some readers treat as true. Write numbers and booleans unquoted, and lists as comma-separated strings or YAML lists.",
    bad: "---\nmax_turns: \"20\"\nspawning: \"false\"\n---\n",
    good: "---\nmax_turns: 20\nspawning: false\n---\n",
};

/// A quoted scalar that would be a number unquoted (`"20"`).
pub(crate) fn is_quoted_number(node: &Node) -> bool {
    matches!(&node.value, Value::Scalar { text, plain: false } if text.trim().parse::<f64>().is_ok())
}

fn is_quoted_bool(node: &Node) -> bool {
    matches!(&node.value, Value::Scalar { text, plain: false } if matches!(text.trim(), "true" | "false" | "True" | "False"))
}

pub(crate) fn report(cx: &mut Checker<'_>, top: &str, pointer: &str, node: &Node) {
    let found = describe(node);
    let want = expected(cx, top);
    let whole = pointer == format!("/{top}");
    let prop = &crate::host::schema::host_schema(cx.profile)["properties"][top];
    let string_list = prop.get("oneOf").is_some() || prop["items"]["type"] == "string";
    let (message, help) = if !whole && !string_list {
        // Deep inside a structured value (Claude Code's `hooks`).
        let at = pointer.trim_start_matches('/').replace('/', ".");
        (
            format!(
                "`{top}` does not have the shape {} reads: `{at}` is {found}",
                cx.profile.label()
            ),
            Some(format!("see `pwk schema --host {}`", cx.profile.label())),
        )
    } else if !whole {
        let index = pointer
            .rsplit('/')
            .next()
            .and_then(|i| i.parse::<usize>().ok())
            .map_or(0, |i| i + 1);
        (
            format!("item {index} of `{top}` must be a non-empty string, found {found}"),
            Some(format!(
                "write `{top}` as a list of names, or as one comma-separated string"
            )),
        )
    } else if is_quoted_number(node) || is_quoted_bool(node) {
        let bare = node.as_scalar().unwrap_or_default().trim();
        (
            format!("`{top}` must be {want}, found {found}; quoting makes it a string"),
            Some(format!("remove the quotes: `{top}: {bare}`")),
        )
    } else if want == "true or false" {
        (
            format!("`{top}` must be true or false, found {found}"),
            Some(format!(
                "write `{top}: true` or `{top}: false` (YAML 1.2 reads `yes`/`on` as strings)"
            )),
        )
    } else if top == "tools" && cx.profile.tools.no_value_is_none && node.to_json().is_null() {
        (
            format!(
                "`{top}` must be {want}, found no value: {} gives the child no tools at all",
                cx.profile.label()
            ),
            Some("name the tools the child needs, or remove `tools:` to give it every tool".into()),
        )
    } else {
        (format!("`{top}` must be {want}, found {found}"), None)
    };
    let fix = unquote_fix(top, node, &want);
    let d = cx.emit(
        &RULE,
        node.span.clone(),
        format!("expected {want}"),
        message,
        help,
    );
    d.fixes.extend(fix);
}

/// `"20"` → `20`, `"False"` → `false`, where the key takes a number or a boolean.
fn unquote_fix(top: &str, node: &Node, want: &str) -> Option<Fix> {
    let bare = node.as_scalar()?.trim();
    let replacement = if is_quoted_number(node) && want.contains("number") {
        // A plain scalar YAML reads as a number again (no `.inf`, `0x…` surprises).
        if !bare
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
        {
            return None;
        }
        bare.to_string()
    } else if is_quoted_bool(node) && want.contains("true or false") {
        bare.to_lowercase()
    } else {
        return None;
    };
    Some(Fix::replace(
        format!("remove the quotes: `{top}: {replacement}`"),
        Safety::Safe,
        node.span.clone(),
        replacement,
    ))
}
