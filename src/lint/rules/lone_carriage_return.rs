//! `lone-carriage-return`: a `\r` in the frontmatter that is not part of `\r\n`.

use crate::host::{self, HostProfile};
use crate::lint::Severity;
use crate::lint::fix::{Edit, Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Fences;

pub(crate) const RULE: Rule = Rule {
    id: "lone-carriage-return",
    severity: Severity::Warning,
    also: Some((
        Severity::Error,
        "where the host's line reader loses a key on that line (nicobailon)",
    )),
    summary: "the frontmatter has a carriage return that is not followed by a line feed",
    explanation: "YAML reads a lone `\\r` (old Mac line ending, or one stray byte) as a line break, so YAML tools and pi's parser see two lines. nicobailon's line reader splits on `\\n` only and does not match a line with a `\\r` inside as `key: value`: both keys on that line are lost, and without `name` or `description` it skips the role silently (pi-subagents@0.67.0 src/agents/frontmatter.ts:68, 83, 114). A file whose every line ends in a lone `\\r` has frontmatter for pi's parseFrontmatter, which turns each `\\r` into `\\n` first (@earendil-works/pi-coding-agent@1.6.0 dist/utils/frontmatter.js:3), so tintinweb and pi's example extension read it (a warning); nicobailon finds no closing `---` there and skips the file (`missing-frontmatter`). An error where a host loses a key, else a warning. Use `\\n` line endings.",
    bad: "---\\nname: reviewer\\rdescription: Reviews a diff.\\n---\\n",
    good: "---\\nname: reviewer\\ndescription: Reviews a diff.\\n---\\n",
};

/// The keys a lone-CR-sensitive line reader loses, of those YAML reads (or, when
/// YAML could not read the frontmatter, of the keys the profile requires).
fn lost(p: &HostProfile, yaml: &str, yaml_keys: &[String]) -> Vec<String> {
    if p.parser.lone_cr.is_none() {
        return Vec::new();
    }
    let seen = crate::role::line_reader::keys(yaml);
    yaml_keys
        .iter()
        .filter(|k| !seen.contains(k))
        .cloned()
        .collect()
}

pub(crate) fn check(cx: &mut Checker<'_>, fences: &Fences) {
    let text = &cx.doc.text;
    let yaml = &text[fences.yaml.clone()];
    // A byte search first: most frontmatter has no `\r` at all.
    if crate::text::scan::find_byte(b'\r', yaml.as_bytes()).is_none() {
        return;
    }
    let base = fences.yaml.start;
    let lone: Vec<usize> = crate::text::scan::byte_positions(b'\r', yaml.as_bytes())
        .filter(|&i| yaml.as_bytes().get(i + 1) != Some(&b'\n'))
        .map(|i| base + i)
        .collect();
    let Some(&first) = lone.first() else {
        return;
    };
    let yaml_keys: Vec<String> = match &cx.doc.tree {
        Some(Ok(tree)) => tree
            .as_mapping()
            .map(|m| m.iter().map(|(k, _)| k.text.clone()).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let p = cx.profile;
    let say = |who: String, p: &HostProfile, lost: &[String]| -> String {
        let keys: Vec<String> = lost.iter().map(|k| format!("`{k}`")).collect();
        if lost.iter().any(|k| p.requires(k).is_some()) {
            format!(
                "{who} reads no key on that line ({}) and skips the role silently",
                keys.join(", ")
            )
        } else {
            format!("{who} reads no key on that line: {} lost", keys.join(", "))
        }
    };
    let (detail, severity) = if p.is_portable() {
        let (hit, _) = host::split_profiles(|h| !lost(h, yaml, &yaml_keys).is_empty());
        match hit.first() {
            None => (
                "YAML reads it as a line break; line readers that split on `\\n` do not"
                    .to_string(),
                Severity::Warning,
            ),
            Some(h) => (
                say(host::name_profiles(&hit), h, &lost(h, yaml, &yaml_keys)),
                Severity::Error,
            ),
        }
    } else {
        let l = lost(p, yaml, &yaml_keys);
        if l.is_empty() && p.parser.lone_cr.is_some() {
            (
                format!(
                    "{} splits lines on `\\n` only and reads no key on a line with a `\\r` inside",
                    p.label()
                ),
                Severity::Warning,
            )
        } else if l.is_empty() {
            (
                format!(
                    "{} reads it as a line break, but line readers that split on `\\n` (nicobailon) do not",
                    p.label()
                ),
                Severity::Warning,
            )
        } else {
            (say(p.label(), p, &l), Severity::Error)
        }
    };
    let edits: Vec<Edit> = lone
        .iter()
        .map(|&i| Edit {
            range: i..i + 1,
            replacement: "\n".to_string(),
        })
        .collect();
    let count = lone.len();
    let d = cx.emit(
        &RULE,
        first..first + 1,
        "a `\\r` without `\\n`",
        format!(
            "the frontmatter has {count} carriage return{} not followed by a line feed: {detail}",
            if count == 1 { "" } else { "s" }
        ),
        Some("end every line with `\\n`".into()),
    );
    d.severity = p.severity_of(RULE.id, severity);
    d.fixes.push(Fix::new(
        "turn each lone `\\r` into `\\n`",
        Safety::Safe,
        edits,
    ));
}

/// A file whose lines end in a lone `\r` (no `\n` before the closing fence), under
/// a host that turns each lone `\r` into `\n` first ([`crate::host::Parser::cr_newlines`]):
/// it reads the frontmatter, so a warning with the fix, not `missing-frontmatter`.
pub(crate) fn check_line_endings(cx: &mut Checker<'_>, original: &crate::role::RoleDoc) {
    let p = cx.profile;
    let Some(fact) = &p.parser.cr_newlines else {
        return;
    };
    let b = original.text.as_bytes();
    let lone: Vec<usize> = crate::text::scan::byte_positions(b'\r', b)
        .filter(|&i| b.get(i + 1) != Some(&b'\n'))
        .collect();
    let Some(&first) = lone.first() else {
        return;
    };
    let count = lone.len();
    let edits: Vec<Edit> = lone
        .iter()
        .map(|&i| Edit {
            range: i..i + 1,
            replacement: "\n".to_string(),
        })
        .collect();
    let d = cx.emit(
        &RULE,
        first..first + 1,
        "a `\\r` without `\\n`",
        format!(
            "the file's lines end in a lone `\\r` ({count} of them): {} reads the frontmatter anyway ({}), but a host that splits lines on `\\n` only (nicobailon) sees one line and no frontmatter, and skips the role",
            p.label(),
            fact.note
        ),
        Some("end every line with `\\n`".into()),
    );
    d.severity = p.severity_of(RULE.id, Severity::Warning);
    d.fixes.push(Fix::new(
        "turn each lone `\\r` into `\\n`",
        Safety::Safe,
        edits,
    ));
}
