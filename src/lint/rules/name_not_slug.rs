//! `name-not-slug`: `name` is not a lowercase slug.

use crate::host;
use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "name-not-slug",
    severity: Severity::Warning,
    also: Some((
        Severity::Error,
        "when a host skips the role for its `name` (a `:` in it)",
    )),
    summary: "`name` is not a lowercase slug (letters, digits, hyphens)",
    explanation: "Role names are used as file names and as dispatch names in tool calls. No host's loader requires a slug (nicobailon and tintinweb take any text; dots are fine), so this is pwk's convention and a warning: spaces, capitals and underscores make the name differ from the file name, which some hosts use as the identity. One real trap is an error: tintinweb 0.17+ skips a role whose name contains `:` (reserved for plugin-scoped names). Use lowercase letters, digits and single hyphens.",
    bad: "---\nname: Code Reviewer\n---\n",
    good: "---\nname: code-reviewer\n---\n",
};

/// Whether `s` is a lowercase slug (`^[a-z0-9]+(-[a-z0-9]+)*$`, as in the schema).
pub(crate) fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && s.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// `Code Reviewer_2` → `code-reviewer-2`.
pub(crate) fn slugify(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "my-role".into()
    } else {
        out
    }
}

pub(crate) fn report(cx: &mut Checker<'_>, node: &Node) {
    let value = node.as_scalar().unwrap_or_default();
    let p = cx.profile;
    // Which hosts skip the role for this name (tintinweb 0.17+ for a `:`).
    let (skipping, _) = host::split_profiles(|h| {
        h.key("name")
            .is_some_and(|k| k.schema["pattern"] == "^[^:]*$" && value.contains(':'))
    });
    let (message, severity) = if !p.is_portable() && !value.contains(':') {
        // The host's pattern is wider than "no `:`" (Gemini CLI: a slug).
        (
            format!(
                "{} refuses this `name` (`{value}`); its rule: {}",
                p.label(),
                p.key("name").and_then(|k| k.note).unwrap_or("a slug")
            ),
            Severity::Error,
        )
    } else if !p.is_portable() {
        (
            format!(
                "{} skips a role whose `name` contains `:` (`{value}`)",
                p.label()
            ),
            Severity::Error,
        )
    } else if !skipping.is_empty() {
        (
            format!(
                "`name` `{value}` contains `:`, which {} skips (reserved for plugin-scoped names)",
                host::name_profiles(&skipping)
            ),
            // What a supported host skips is an error wherever no host is named.
            Severity::Error,
        )
    } else {
        (
            format!(
                "`name` `{value}` is not a lowercase slug of letters, digits and hyphens; no host rejects it, but it cannot be the file name on every host"
            ),
            Severity::Warning,
        )
    };
    let d = cx.emit(
        &RULE,
        node.span.clone(),
        "not a slug",
        message,
        Some(format!("use `name: {}`", slugify(value))),
    );
    d.severity = p.severity_of(RULE.id, severity);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert!(is_slug("pwk-smell-reviewer") && is_slug("a1"));
        assert!(
            !is_slug("A") && !is_slug("a--b") && !is_slug("-a") && !is_slug("a_b") && !is_slug("")
        );
        assert_eq!(slugify("Code Reviewer_2"), "code-reviewer-2");
        assert_eq!(slugify("::"), "my-role");
    }
}
