//! `name-not-slug`: `name` is not a lowercase slug.

use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "name-not-slug",
    severity: Severity::Error,
    summary: "`name` is not a lowercase slug (letters, digits, hyphens)",
    explanation: "Role names are used as file names and as dispatch names in tool calls. tintinweb skips a role whose name contains `:`; spaces, capitals and underscores make the name differ from the file name on some hosts. Use lowercase letters, digits and single hyphens.",
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
    let colon = if value.contains(':') {
        "; tintinweb skips a role whose name contains `:`"
    } else {
        ""
    };
    cx.emit(
        &RULE,
        node.span.clone(),
        "not a slug",
        format!("`name` `{value}` is not a lowercase slug of letters, digits and hyphens{colon}"),
        Some(format!("use `name: {}`", slugify(value))),
    );
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
