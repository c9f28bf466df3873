//! `unknown-key`: a key the host profile does not know.

use crate::host::{self, HostProfile};
use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "unknown-key",
    severity: Severity::Error,
    also: Some((
        Severity::Warning,
        "for a key that is no misspelling of one the host reads (the host ignores it), unless the host refuses roles with keys it does not read",
    )),
    summary: "a frontmatter key the host does not read",
    explanation: "Hosts ignore keys they do not read, silently: a role with `allowed_tools:` instead of `tools:` loads and runs with full tool access. A key that looks like a misspelling of one the host reads is an error; any other key it does not read is a warning (the host ignores it; under the portable profile: no supported host reads it). Namespaced extension keys (`x-owner`, `acme.owner`) are never checked. `pwk schema --host H` lists what each host reads.",
    bad: "---\nname: reviewer\nallowed_tools: read, grep\n---\n",
    good: "---\nname: reviewer\ntools: read, grep\nx-owner: platform-team\n---\n",
};

const ALIASES: &[(&str, &str)] = &[
    ("allowed_tools", "tools"),
    ("allowedTools", "tools"),
    ("allowed-tools", "tools"),
    ("tool", "tools"),
    ("tool_list", "tools"),
    ("disallowed_tools", "deny-tools"),
    ("disallowedTools", "deny-tools"),
    ("disallowed-tools", "deny-tools"),
    ("deny_tools", "deny-tools"),
    ("denied_tools", "deny-tools"),
    ("max-turns", "max_turns"),
    ("maxTurns", "max_turns"),
    ("max_turn", "max_turns"),
    ("turns", "max_turns"),
    ("turn_limit", "max_turns"),
    ("model_name", "model"),
    ("modelName", "model"),
    ("model-name", "model"),
    ("effort", "thinking"),
    ("reasoning", "thinking"),
    ("reasoning_effort", "thinking"),
    ("reasoningEffort", "thinking"),
    ("thinking_level", "thinking"),
    ("system_prompt_mode", "systemPromptMode"),
    ("prompt_mode", "systemPromptMode"),
    ("promptMode", "systemPromptMode"),
    ("system_prompt", "system-prompt"),
    ("systemPrompt", "system-prompt"),
    ("cli_model", "cli-model"),
    ("cliModel", "cli-model"),
    ("disable_model_invocation", "disable-model-invocation"),
    ("disableModelInvocation", "disable-model-invocation"),
    ("session_mode", "session-mode"),
    ("auto_exit", "auto-exit"),
    ("desc", "description"),
    ("summary", "description"),
];

/// The key `key` is most likely a misspelling of, among those `p` knows.
pub(crate) fn suggestion(p: &'static HostProfile, key: &str) -> Option<&'static str> {
    let known = host::schema::known_keys(p);
    if let Some((_, target)) = ALIASES.iter().find(|(alias, _)| *alias == key)
        && known.contains(target)
    {
        return Some(target);
    }
    crate::suggest::did_you_mean(key, known.iter().copied())
}

pub(crate) fn report(cx: &mut Checker<'_>, tree: &Node, key: &str) {
    let Some((k, _)) = tree.entry(key) else {
        return;
    };
    let span = k.span.clone();
    let p = cx.profile;
    let suggested = suggestion(p, key);
    // Which real hosts read it (another host's key, not a typo).
    let readers: Vec<(host::HostId, &str)> = host::pi_rows()
        .filter(|h| h.reads(key))
        .map(|h| (h.host, h.version))
        .collect();
    let who = if p.is_portable() {
        "no supported host reads it".to_string()
    } else if let Some(f) = &*p.unknown_keys {
        format!("{} does not read it: {}", p.label(), f.note)
    } else {
        format!("{} does not read it", p.label())
    };
    let mut message = format!("unknown key `{key}`: {who}");
    if suggested == Some("tools") && tree.get("tools").is_none() {
        message.push_str(&format!(
            ", and without `tools` the child gets {}",
            p.tools.missing
        ));
    }
    let mut help = match suggested {
        Some(s) => format!("did you mean `{s}`?"),
        None => {
            "remove it, or namespace it as an extension key (`x-…` or `vendor.key`)".to_string()
        }
    };
    if !readers.is_empty() {
        help.push_str(&format!(
            " `{key}` is read by {}",
            host::name_versions(&readers)
        ));
    }
    let label = match suggested {
        Some(s) => format!("did you mean `{s}`?"),
        None => "unknown key".to_string(),
    };
    // A likely typo loses the key's effect: an error. Otherwise every host just
    // ignores it (a repository's own extension key, say): a warning.
    if let Some(strict) = &*p.strict_keys {
        message.push_str(&format!("; {} {}", p.label(), strict.note));
    }
    let severity = if p.strict_keys.is_some() || suggested.is_some() {
        p.severity_of(RULE.id, Severity::Error)
    } else {
        p.severity_of(RULE.id, Severity::Warning)
    };
    // One close match that the file does not set already: the rename is likely,
    // but a guess.
    let fix = suggested.filter(|s| tree.get(s).is_none()).map(|s| {
        Fix::replace(
            format!("rename `{key}` to `{s}`"),
            Safety::Unsafe,
            span.clone(),
            s,
        )
        .creating_key(s)
    });
    let d = cx.emit(&RULE, span, label, message, Some(help));
    d.severity = severity;
    d.fixes.extend(fix);
}
