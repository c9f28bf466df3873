//! `unknown-skill`: a name in `skills:` that no skill directory the host reads
//! contains.

use crate::host::skills::{SkillPlaces, skill_names};
use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::lint::rules::unknown_tool::entries;
use crate::role::Node;
use crate::suggest::did_you_mean;

pub(crate) const RULE: Rule = Rule {
    id: "unknown-skill",
    severity: Severity::Warning,
    also: None,
    summary: "a skill named in `skills` is in no skill directory the host reads",
    explanation: "Hosts look a role's `skills` up by name in their skill directories: tintinweb in `.pi/skills/`, `.agents/skills/`, `$PI_CODING_AGENT_DIR/skills/`, `~/.agents/skills/` and `~/.pi/skills/`; nicobailon and pi (herdr sends `/skill:<name>`) in the first four; Claude Code in `.claude/skills/` and `~/.claude/skills/`. A skill is a directory holding `SKILL.md`, or in some of them a `<name>.md` file. A name found in none of them gives the child nothing (tintinweb puts a 'not found' line in its prompt; the others leave it out), so a misspelt skill fails silently. Checked when pwk lints a project (the directories are looked up from its root, your home and pi's agent directory); skills that packages or settings provide are not searched, so this is a warning.",
    bad: "---\nname: reviewer\ndescription: Reviews.\nskills: pdf-tool\n---\n   (with .pi/skills/pdf-tools/SKILL.md)",
    good: "---\nname: reviewer\ndescription: Reviews.\nskills: pdf-tools\n---\n",
};

/// Values that are switches, not skill names (tintinweb: `true`, `false`, `none`).
const TOKENS: [&str; 3] = ["true", "false", "none"];

/// The keys a role names its skills under.
const KEYS: [&str; 2] = ["skills", "skill"];

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node, places: &SkillPlaces) {
    let p = cx.profile;
    // Most roles name no skill: the host's skill facts are not read for them.
    if !KEYS.iter().any(|k| tree.get(k).is_some()) {
        return;
    }
    let Some(facts) = &*p.skill_dirs else { return };
    let mut found: Option<Vec<String>> = None;
    for key in KEYS {
        if !(p.reads(key) || p.is_portable()) {
            continue;
        }
        let Some(node) = tree.get(key) else { continue };
        for (name, span) in entries(&cx.doc.text, node, &p.tools) {
            if name.is_empty() || TOKENS.iter().any(|t| t.eq_ignore_ascii_case(name)) {
                continue;
            }
            let known = found.get_or_insert_with(|| skill_names(p, places));
            if known.iter().any(|k| k == name) {
                continue;
            }
            let label = if p.is_portable() {
                "pi".to_string()
            } else {
                p.label()
            };
            let dirs: Vec<String> = facts
                .dirs
                .iter()
                .map(|d| format!("`{}`", d.display()))
                .collect();
            let mut message = format!(
                "`{name}` in `{key}` is not a skill {label} finds: none of {} holds `{name}/SKILL.md`",
                dirs.join(", ")
            );
            if let Some(also) = &facts.also {
                message.push_str(&format!(" (not searched: {also})"));
            }
            let help = match did_you_mean(name, known.iter().map(String::as_str)) {
                Some(g) => format!("did you mean `{g}`?"),
                None if known.is_empty() => format!(
                    "no skill was found in those directories; add `{name}/SKILL.md` to one of them, or remove the name"
                ),
                None => format!(
                    "the skills found are {}; add `{name}/SKILL.md` to one of the directories, or remove the name",
                    known
                        .iter()
                        .take(10)
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            cx.emit(&RULE, span, "no such skill", message, Some(help));
        }
    }
}
