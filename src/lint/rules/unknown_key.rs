//! `unknown-key`: a key the host profile does not know.

use crate::cli::Host;
use crate::lint::Severity;
use crate::lint::check::Checker;
use crate::lint::hosts::{self, host_id};
use crate::lint::rules::{Rule, did_you_mean};
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "unknown-key",
    severity: Severity::Error,
    summary: "a frontmatter key that no supported host reads",
    explanation: "Hosts ignore keys they do not know, silently: a role with `allowed_tools:` instead of `tools:` passes every check and runs with full tool access. Every key must be one the schema documents (`pwk schema`), or a namespaced extension key (`x-owner`, `acme.owner`) that pwk never checks. Keys that only one host reads are accepted with `--host` for that host.",
    bad: "---\nname: reviewer\nallowed_tools: read, grep\n---\n",
    good: "---\nname: reviewer\ntools: read, grep\nx-owner: platform-team\n---\n",
};

/// Spellings seen in the wild, and the key they mean.
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

/// The key `key` was probably meant to be, among those `host` knows.
pub(crate) fn suggestion(host: Host, key: &str) -> Option<&'static str> {
    let known = hosts::known_keys(host);
    if let Some((_, target)) = ALIASES.iter().find(|(alias, _)| *alias == key)
        && let Some(k) = known.iter().find(|k| *k == target)
    {
        return Some(k);
    }
    did_you_mean(key, known.iter().copied())
}

/// The other hosts that read `key` as their own.
fn read_by_other_hosts(host: Host, key: &str) -> Vec<&'static str> {
    [Host::Tintinweb, Host::Nicobailon, Host::Herdr]
        .into_iter()
        .filter(|h| *h != host && hosts::profile(*h).extra_keys.contains_key(key))
        .map(host_id)
        .collect()
}

pub(crate) fn report(cx: &mut Checker<'_>, tree: &Node, key: &str) {
    let Some((k, _)) = tree.entry(key) else {
        return;
    };
    let span = k.span.clone();
    let suggested = suggestion(cx.host, key);
    let others = read_by_other_hosts(cx.host, key);
    let mut message = format!("unknown key `{key}`; hosts ignore it");
    if suggested == Some("tools") {
        message.push_str(&format!(
            ", and without `tools` {}",
            cx.profile.missing_tools
        ));
    }
    let mut help = match suggested {
        Some(s) => format!("did you mean `{s}`?"),
        None => {
            "remove it, or namespace it as an extension key (`x-…` or `vendor.key`)".to_string()
        }
    };
    if !others.is_empty() {
        let list = others.join(", ");
        help.push_str(&format!(
            " `{key}` is read only by {list}; lint with `--host {}` if you target it",
            others[0]
        ));
    }
    let label = match suggested {
        Some(s) => format!("did you mean `{s}`?"),
        None => "unknown key".to_string(),
    };
    cx.emit(&RULE, span, label, message, Some(help));
}
