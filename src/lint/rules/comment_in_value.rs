//! `comment-in-value`: ` #` in a plain value starts a YAML comment, and the host
//! keeps only the text before it (`description: Fix bugs #1 priority` is "Fix bugs").

use crate::host::ParserKind;
use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::{Node, Value};

pub(crate) const RULE: Rule = Rule {
    id: "comment-in-value",
    severity: Severity::Warning,
    also: None,
    summary: "` #` in an unquoted value starts a comment: the host keeps only the text before it",
    explanation: "In YAML, ` #` (a space, then `#`) starts a comment, even in the middle of an unquoted value: `description: Fix bugs #1 priority` is read as `Fix bugs`, silently (measured with Claude Code 2.1.332, case a3; every YAML reader does the same). pwk reports it for `description`, and for other keys when the `#` is followed directly by text (`#1`, `#tag`), where a comment was probably not meant. Quote the value to keep it whole, or put the comment on a line of its own.",
    bad: "---\nname: fixer\ndescription: Fix bugs #1 priority\n---\n",
    good: "---\nname: fixer\ndescription: \"Fix bugs #1 priority\"\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    if cx.profile.parser.kind != ParserKind::Yaml {
        return;
    }
    let Some(entries) = tree.as_mapping() else {
        return;
    };
    let text = &cx.doc.text;
    let reads = if cx.profile.is_portable() {
        "every host reads".to_string()
    } else {
        format!("{} reads", cx.profile.label())
    };
    for (key, node) in entries {
        let Value::Scalar {
            text: value,
            plain: true,
        } = &node.value
        else {
            continue;
        };
        if value.is_empty() || node.span.end > text.len() {
            continue;
        }
        let eol = text[node.span.end..]
            .find('\n')
            .map_or(text.len(), |i| node.span.end + i);
        // A one-line value (the comment is on the key's own line).
        if text[key.span.start..node.span.end].contains('\n') {
            continue;
        }
        let rest = &text[node.span.end..eol];
        let trimmed = rest.trim_start_matches([' ', '\t']);
        if trimmed.len() == rest.len() || !trimmed.starts_with('#') {
            continue;
        }
        let comment = trimmed.trim_end_matches(['\r', ' ', '\t']);
        let glued = comment[1..].starts_with(|c: char| !c.is_whitespace());
        if key.text != "description" && !glued {
            continue;
        }
        let start = eol - rest.len() + (rest.len() - trimmed.len());
        let whole = format!("{value}{}", &text[node.span.end..start + comment.len()]);
        let quoted = format!("\"{}\"", whole.replace('\\', "\\\\").replace('"', "\\\""));
        let fix = Fix::replace(
            format!("quote the value: `{}: {quoted}`", key.text),
            // The comment may have been meant as one.
            Safety::Unsafe,
            node.span.start..start + comment.len(),
            quoted,
        );
        let d = cx.emit(
            &RULE,
            start..start + comment.len(),
            "a YAML comment",
            format!(
                "`{comment}` is a YAML comment: {reads} `{}` as {}",
                key.text,
                serde_json::Value::from(value.as_str())
            ),
            Some(format!(
                "quote the value to keep `{}` whole, or move the comment to its own line",
                key.text
            )),
        );
        d.fixes.push(fix);
    }
}

#[cfg(test)]
mod tests {
    use crate::host::HostId;
    use crate::role::RoleDoc;

    fn found(yaml: &str) -> Vec<(usize, String)> {
        let text = format!("---\nname: r\n{yaml}---\nBody\n");
        let doc = RoleDoc::parse("a.md", text.as_bytes());
        crate::lint::check_doc(&doc, HostId::ClaudeCode.newest())
            .into_iter()
            .filter(|d| d.rule == super::RULE.id)
            .map(|d| (d.start.column, d.message))
            .collect()
    }

    #[test]
    fn a_comment_inside_a_description_is_reported() {
        let m = found("description: Fix bugs #1 priority\n");
        assert_eq!(m.len(), 1, "{m:?}");
        assert_eq!(m[0].0, 23);
        assert!(
            m[0].1.contains("reads `description` as \"Fix bugs\""),
            "{m:?}"
        );
        assert_eq!(found("description: d\nmodel: sonnet #fast\n").len(), 1);
    }

    #[test]
    fn meant_comments_and_quoted_values_are_not() {
        assert!(found("description: \"Fix bugs #1\"\n").is_empty());
        assert!(found("description: Fix bugs#1\n").is_empty());
        assert!(found("description: d\nmodel: sonnet  # the fast tier\n").is_empty());
        assert!(found("description: d\n# a comment\n").is_empty());
    }
}
