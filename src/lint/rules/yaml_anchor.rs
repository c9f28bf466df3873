//! `yaml-anchor`: anchors and aliases in frontmatter.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "yaml-anchor",
    severity: Severity::Error,
    also: Some((
        Severity::Warning,
        "when the host resolves anchors and aliases itself: only the values behind them go unchecked",
    )),
    summary: "the frontmatter uses a YAML anchor or alias",
    explanation: "Anchors (`&name`) and aliases (`*name`) are refused: hand-written host parsers read them as literal text, and nested aliases can expand exponentially (\"billion laughs\"). Write each value out.",
    bad: "---\ntools: &t read, grep\ndeny-tools: *t\n---\n",
    good: "---\ntools: read, grep\ndeny-tools: read, grep\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, at: usize) {
    let text = &cx.doc.text;
    let at = at.min(text.len());
    // The parser marks the node after the anchor; point at the `&name`/`*name` token.
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = &text[line_start..line_end];
    let token = line.char_indices().find(|&(i, c)| {
        (c == '&' || c == '*')
            && line[..i]
                .chars()
                .next_back()
                .is_none_or(|p| matches!(p, ' ' | '\t' | '[' | '{' | ',' | ':' | '-'))
    });
    let start = token.map_or(at, |(i, _)| line_start + i);
    let end = text[start..line_end]
        .find([' ', '\t', '\r', ',', ']', '}'])
        .map_or(line_end, |i| start + i)
        .max(start + usize::from(start < line_end));
    use crate::host::ParserKind;
    let p = cx.profile;
    let (message, severity) = if p.is_portable() {
        let (literal, _) = crate::host::split_profiles(|h| h.parser.kind == ParserKind::Line);
        (
            format!(
                "YAML anchors and aliases: {} read frontmatter line by line and take `&name`/`*name` literally, and pwk checks no value behind an alias",
                crate::host::name_profiles(&literal)
            ),
            Severity::Error,
        )
    } else if p.parser.kind == ParserKind::Line {
        (
            format!(
                "{} reads frontmatter line by line: `&name` and `*name` are taken literally",
                p.label()
            ),
            Severity::Error,
        )
    } else {
        (
            format!(
                "{} resolves YAML anchors and aliases, but pwk does not: the values behind them are not checked",
                p.label()
            ),
            Severity::Warning,
        )
    };
    let d = cx.emit(
        &RULE,
        start..end,
        "anchor or alias",
        message,
        Some("write the value out in full".into()),
    );
    d.severity = p.severity_of(RULE.id, severity);
}
