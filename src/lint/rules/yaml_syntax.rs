//! `yaml-syntax`: the frontmatter is not valid YAML.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "yaml-syntax",
    severity: Severity::Error,
    also: None,
    summary: "the frontmatter is not valid YAML",
    explanation: "Hosts parse the frontmatter as YAML; a syntax error makes them skip the role (tintinweb once failed to start pi over one such file). The most common cause is an unquoted value containing `: `, such as a description with a colon. Quote such values.",
    bad: "---\nname: reviewer\ndescription: Reviews: diffs and plans\n---\n",
    good: "---\nname: reviewer\ndescription: \"Reviews: diffs and plans\"\n---\n",
};

fn token_end(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(at, |c| {
        if c == '\n' || c == '\r' {
            at
        } else {
            at + c.len_utf8()
        }
    })
}

pub(crate) fn syntax(cx: &mut Checker<'_>, at: usize, message: &str) {
    let at = at.min(cx.doc.text.len());
    let end = token_end(&cx.doc.text, at);
    let line_start = cx.doc.text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = cx.doc.text[line_start..].lines().next().unwrap_or("");
    let help = if line.contains(": ") && line.matches(": ").count() > 1 {
        "a value that contains `: ` must be quoted, e.g. `description: \"a: b\"`"
    } else {
        "fix the YAML at this position (quote values that contain `:`, `#`, `[` or `{`)"
    };
    cx.emit(
        &RULE,
        at..end,
        "here",
        format!("invalid YAML: {message}"),
        Some(help.into()),
    );
}

pub(crate) fn tag(cx: &mut Checker<'_>, at: usize) {
    let end = cx.doc.text[at.min(cx.doc.text.len())..]
        .find([' ', '\n', '\r'])
        .map_or(cx.doc.text.len(), |i| at + i);
    cx.emit(
        &RULE,
        at..end,
        "explicit tag",
        "explicit YAML tags (`!!str`, `!custom`) are not supported in role frontmatter",
        Some("remove the tag; quote the value if you need a string".into()),
    );
}

pub(crate) fn complex_key(cx: &mut Checker<'_>, at: usize) {
    let end = token_end(&cx.doc.text, at);
    cx.emit(
        &RULE,
        at..end,
        "not a plain key",
        "a frontmatter key must be a plain word, not a list or a mapping",
        Some("write the key as a plain word: `key: value`".into()),
    );
}
