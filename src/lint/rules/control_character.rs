//! `control-character`: NUL, ESC and other control characters in frontmatter.

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Fences;
use crate::role::yaml::is_forbidden_control;
use crate::text::escape_char;

pub(crate) const RULE: Rule = Rule {
    id: "control-character",
    severity: Severity::Error,
    also: None,
    summary: "a control character (NUL, ESC, DEL, …) in the frontmatter",
    explanation: "YAML readers disagree on control characters: pwk's parser reads NUL as the end of the input and would drop every key after it, while pi's reader keeps it inside the key or value, so a `tools` line after a NUL silently vanishes for one and becomes an unknown key for the other, and the child gets the host's mutating default tools. ESC and other C0/C1 characters can also rewrite a terminal when the value is printed. Tab, line feed and carriage return are fine. Remove the character.",
    bad: "---\nname: reviewer\n\\u{0}tools: read\n---\n",
    good: "---\nname: reviewer\ntools: read\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, fences: &Fences) {
    let yaml = fences.yaml.clone();
    let found: Vec<(usize, char)> = cx.doc.text[yaml.clone()]
        .char_indices()
        .filter(|&(_, c)| is_forbidden_control(c))
        .map(|(i, c)| (yaml.start + i, c))
        .collect();
    let total = found.len();
    for (n, &(at, c)) in found.iter().take(super::MAX_REPORTED).enumerate() {
        let what = if c == '\0' {
            "a NUL character (U+0000): pwk's YAML parser stops reading there and pi's keeps it, so the hosts and pwk see different keys".to_string()
        } else {
            format!(
                "a control character `{}` (U+{:04X}) in the frontmatter",
                escape_char(c),
                c as u32
            )
        };
        let more = super::capped_note(n, total);
        cx.emit(
            &RULE,
            at..at + c.len_utf8(),
            "control character",
            format!("{what}{more}"),
            Some("remove it; frontmatter is plain text".into()),
        );
    }
}
