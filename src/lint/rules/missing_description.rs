//! `missing-description`: no `description` key.

use crate::host;
use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;

pub(crate) const RULE: Rule = Rule {
    id: "missing-description",
    severity: Severity::Error,
    also: Some((
        Severity::Warning,
        "under the portable profile when no supported host requires the key (pwk's schema asks for it)",
    )),
    summary: "the frontmatter has no `description`",
    explanation: "The description is what the parent model reads when it picks a role: what the role takes and what it returns. nicobailon skips a role without one, silently.",
    bad: "---\nname: reviewer\n---\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff and reports problems with file:line.\n---\n",
};

pub(crate) fn report(cx: &mut Checker<'_>) {
    super::missing_description::report_required(
        cx,
        &RULE,
        "description",
        "add `description: <what the role takes and returns>`".to_string(),
    );
}

/// A key the profile requires is missing. Under a real host: the host skips the
/// role (an error). Under the portable profile: an error when any supported host
/// skips it (naming those that do), else a warning.
pub(crate) fn report_required(
    cx: &mut Checker<'_>,
    rule: &'static Rule,
    key: &str,
    mut help: String,
) {
    let p = cx.profile;
    let span = cx.open_fence();
    let (message, severity) = if p.is_portable() {
        // The compiled-in rows: a role without a description parses no profile.
        let (skipping, rest): (Vec<host::PiRow>, Vec<host::PiRow>) =
            host::pi_rows().partition(|r| r.requires(key));
        let versions = |rows: &[host::PiRow]| -> Vec<(host::HostId, &str)> {
            rows.iter().map(|r| (r.host, r.version)).collect()
        };
        if skipping.is_empty() {
            (
                format!(
                    "the frontmatter has no `{key}`; pwk's schema asks for it, though no supported host requires it"
                ),
                Severity::Warning,
            )
        } else if rest.is_empty() {
            (
                format!("the frontmatter has no `{key}`; every supported host skips such a role"),
                Severity::Error,
            )
        } else {
            // The PWK contract requires it; say who loads the role anyway, and how to
            // lint for that host instead.
            let loading = host::name_versions(&versions(&rest));
            let mut hosts: Vec<&str> = Vec::new();
            for r in &rest {
                if !hosts.contains(&r.host.as_str()) {
                    hosts.push(r.host.as_str());
                }
            }
            let first = hosts[0];
            help = format!(
                "{help}; or, if the role is for {} only, name that host: `--host {first}`, or `host = \"{first}\"` in pwk.toml",
                hosts.join(" or ")
            );
            (
                format!(
                    "the frontmatter has no `{key}`, which the PWK contract requires: {} skips such a role; {loading} load it anyway",
                    host::name_versions(&versions(&skipping)),
                ),
                Severity::Error,
            )
        }
    } else {
        let note = p.requires(key).map(|r| r.note).unwrap_or_default();
        (
            format!("the frontmatter has no `{key}`; {}: {note}", p.label()),
            Severity::Error,
        )
    };
    let d = cx.emit(
        rule,
        span,
        format!("no `{key}` in this frontmatter"),
        message,
        Some(help),
    );
    d.severity = p.severity_of(rule.id, severity);
}
