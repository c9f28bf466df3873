//! `unresolved-model`: a `model` that pi on this machine does not list (only with
//! `pwk lint --check-models`, which asks the real pi: `pi --list-models`, no network).

use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::pi::models::{ModelScope, Resolution};
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "unresolved-model",
    severity: Severity::Error,
    also: Some((
        Severity::Warning,
        "for a model that resolves but lies outside pi's `enabledModels`",
    )),
    summary: "`model` is not a model pi lists on this machine (only with --check-models)",
    explanation: "Checked only by `pwk lint --check-models`, which runs the local `pi --list-models` once (bounded, no network call, cached per pi binary and settings) and reads the `enabledModels` of pi's settings. A `model` that pi does not list will not run as written: tintinweb silently runs the child on the parent's model, nicobailon and herdr refuse the role, and pwk's `review`/`recon` drop the hint and run pi's default model. A bare id that several providers list is ambiguous. The help names the closest listed `provider/id`. A model that resolves but is outside `enabledModels` is a warning: pi still runs it when it is passed as `--model` (pi 0.73.1 dist/main.js:226), but it is not in the scope the user chose. The finding is about this machine's pi and settings, so it is not reported without the flag.",
    bad: "---\nmodel: anthropic/claude-haiku-4.5   # pi lists anthropic/claude-haiku-4-5\n---\n",
    good: "---\nmodel: anthropic/claude-haiku-4-5\n---\n",
};

/// Check `model` against what pi lists (`scope`).
pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node, scope: &ModelScope) {
    let Some(node) = tree.get("model") else {
        return;
    };
    let Some(text) = node.as_str() else { return };
    let hint = text.trim();
    // Not a model id at all (empty, whitespace, `inherit`): other rules say so.
    if hint.is_empty() || hint.chars().any(char::is_whitespace) || hint == "inherit" {
        return;
    }
    let on = &cx.profile.unresolvable_model.note;
    let host = cx.profile.label();
    match scope.resolve(hint) {
        Resolution::Resolves {
            provider,
            id,
            in_scope: Some(false),
            ..
        } => {
            let d = cx.emit(
                &RULE,
                node.span.clone(),
                "outside enabledModels",
                format!(
                    "`model: {hint}` resolves to {provider}/{id}, which is outside the `enabledModels` of pi's settings; pi still runs it when passed as --model, but it is not in the scope chosen there"
                ),
                Some(format!(
                    "add `{provider}/{id}` to `enabledModels`, or pick a model in the scope"
                )),
            );
            d.severity = Severity::Warning;
        }
        Resolution::Resolves { .. } => {}
        Resolution::Ambiguous { candidates } => {
            cx.emit(
                &RULE,
                node.span.clone(),
                "ambiguous model",
                format!(
                    "`model: {hint}` is listed by {} providers ({}); when it does not resolve, {host} {on}",
                    candidates.len(),
                    candidates.join(", ")
                ),
                Some(format!("write it as provider/id, e.g. `model: {}`", candidates[0])),
            );
        }
        Resolution::Unlisted { suggestion } => {
            let help = match &suggestion {
                Some(s) => format!("did you mean `{s}`?"),
                None if scope.list.models.is_empty() => {
                    "pi lists no models here: add a provider to pi's models.json or settings".into()
                }
                None => "`pi --list-models` shows the models this machine can run".into(),
            };
            cx.emit(
                &RULE,
                node.span.clone(),
                "not listed by pi",
                format!("`model: {hint}` is not a model pi lists on this machine; {host} {on}"),
                Some(help),
            );
        }
    }
}
