//! The rule registry: one file per rule, each with its id, default severity, docs
//! and (for rules that are not schema checks) its check.

pub(crate) mod adapter_visible;
pub(crate) mod bidi_override;
pub(crate) mod bom;
pub(crate) mod cli_model_without_cli;
pub(crate) mod comment_in_value;
pub(crate) mod control_character;
pub(crate) mod crlf;
pub(crate) mod dashes_end_frontmatter;
pub(crate) mod deprecated_skill_key;
pub(crate) mod dot_closing_fence;
pub(crate) mod duplicate_key;
pub(crate) mod duplicate_name;
pub(crate) mod empty_body;
pub(crate) mod empty_description;
pub(crate) mod empty_frontmatter;
pub(crate) mod file_too_large;
pub(crate) mod frontmatter_not_mapping;
pub(crate) mod hook_outside_hooks;
pub(crate) mod host_ignored_key;
pub(crate) mod host_rejected_key;
pub(crate) mod host_tools_list;
pub(crate) mod host_unread_directory;
pub(crate) mod invalid_max_turns;
pub(crate) mod invalid_model;
pub(crate) mod invalid_suppression;
pub(crate) mod invalid_thinking;
pub(crate) mod invalid_type;
pub(crate) mod invalid_utf8;
pub(crate) mod invalid_value;
pub(crate) mod invisible_character;
pub(crate) mod lone_carriage_return;
pub(crate) mod mcp_gateway_tool;
pub(crate) mod missing_description;
pub(crate) mod missing_frontmatter;
pub(crate) mod missing_name;
pub(crate) mod missing_tools;
pub(crate) mod multiple_documents;
pub(crate) mod name_mismatch;
pub(crate) mod name_not_slug;
pub(crate) mod not_a_regular_file;
pub(crate) mod not_invocable;
pub(crate) mod readme_in_agents_dir;
pub(crate) mod shadowed_role;
pub(crate) mod tab_indentation;
pub(crate) mod unknown_key;
pub(crate) mod unknown_skill;
pub(crate) mod unknown_tool;
pub(crate) mod unreadable_file;
pub(crate) mod unresolved_model;
pub(crate) mod unterminated_frontmatter;
pub(crate) mod unused_suppression;
pub(crate) mod yaml_anchor;
pub(crate) mod yaml_syntax;
pub(crate) mod yaml_too_deep;

pub(crate) use super::rule::Rule;

/// Every rule, sorted by id.
pub(crate) static RULES: &[&Rule] = &[
    &adapter_visible::RULE,
    &bidi_override::RULE,
    &bom::RULE,
    &cli_model_without_cli::RULE,
    &comment_in_value::RULE,
    &control_character::RULE,
    &crlf::RULE,
    &dashes_end_frontmatter::RULE,
    &deprecated_skill_key::RULE,
    &dot_closing_fence::RULE,
    &duplicate_key::RULE,
    &duplicate_name::RULE,
    &empty_body::RULE,
    &empty_description::RULE,
    &empty_frontmatter::RULE,
    &file_too_large::RULE,
    &frontmatter_not_mapping::RULE,
    &hook_outside_hooks::RULE,
    &host_ignored_key::RULE,
    &host_rejected_key::RULE,
    &host_tools_list::RULE,
    &host_unread_directory::RULE,
    &invalid_max_turns::RULE,
    &invalid_model::RULE,
    &invalid_suppression::RULE,
    &invalid_thinking::RULE,
    &invalid_type::RULE,
    &invalid_utf8::RULE,
    &invalid_value::RULE,
    &invisible_character::RULE,
    &lone_carriage_return::RULE,
    &mcp_gateway_tool::RULE,
    &missing_description::RULE,
    &missing_frontmatter::RULE,
    &missing_name::RULE,
    &missing_tools::RULE,
    &multiple_documents::RULE,
    &name_mismatch::RULE,
    &name_not_slug::RULE,
    &not_a_regular_file::RULE,
    &not_invocable::RULE,
    &readme_in_agents_dir::RULE,
    &shadowed_role::RULE,
    &tab_indentation::RULE,
    &unknown_key::RULE,
    &unknown_skill::RULE,
    &unknown_tool::RULE,
    &unreadable_file::RULE,
    &unresolved_model::RULE,
    &unterminated_frontmatter::RULE,
    &unused_suppression::RULE,
    &yaml_anchor::RULE,
    &yaml_syntax::RULE,
    &yaml_too_deep::RULE,
];

/// What a host profile says about the problem a rule reports, in one line (for
/// `pwk rules ID`: how the hosts and their versions differ). `None` when the rule
/// does not depend on the host.
pub(crate) fn host_fact(rule: &str, p: &crate::host::HostProfile) -> Option<String> {
    use crate::host::ListReading;
    let list = |v: &[&str]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    Some(match rule {
        "missing-name" | "missing-description" => {
            let key = rule.trim_start_matches("missing-");
            match p.requires(key) {
                Some(r) => r.note.to_string(),
                None => format!("loads a role without `{key}`"),
            }
        }
        "name-mismatch" if p.identity.name_is_label => {
            "identity: file stem (`name` is a display label)".to_string()
        }
        "name-mismatch" => format!("identity: {}", p.identity.by.describe()),
        "missing-tools" => format!("without `tools` the child gets {}", p.tools.missing),
        "unknown-skill" => match &*p.skill_dirs {
            Some(s) => format!(
                "finds skills in {}{}",
                s.dirs
                    .iter()
                    .map(|d| format!("`{}`", d.display()))
                    .collect::<Vec<_>>()
                    .join(", "),
                s.also
                    .as_ref()
                    .map(|a| format!("; also {a}"))
                    .unwrap_or_default()
            ),
            None => return None,
        },
        "mcp-gateway-tool" => match &*p.tools.mcp {
            Some(m) => format!("on pi {}: {}", m.pi, m.note),
            None => return None,
        },
        "unknown-tool" => format!(
            "built-ins {}; tokens {}; adds {}; an unknown name: {}",
            list(&p.tools.builtins),
            list(&[p.tools.all_tokens.clone(), p.tools.none_tokens.clone()].concat()),
            list(&p.tools.injected),
            p.tools.unknown
        ),
        "unknown-key" | "host-ignored-key" => format!(
            "reads {} keys (`pwk schema --host {}` lists them)",
            p.keys.len(),
            p.label()
        ),
        "host-rejected-key" => {
            let keys: Vec<String> = p.rejected.keys().map(|k| format!("`{k}`")).collect();
            format!(
                "refuses roles with {}",
                if keys.is_empty() {
                    "no key".into()
                } else {
                    keys.join(", ")
                }
            )
        }
        "host-unread-directory" => format!(
            "discovers {}",
            p.discovery
                .dirs
                .iter()
                .map(|d| d.display() + if d.recursive { "/**" } else { "" })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "host-tools-list" => format!(
            "{}: flow lists {}, block lists {}, quotes {}",
            p.parser.library,
            match p.parser.flow_lists {
                ListReading::Read => "read",
                ListReading::NotRead => "not read",
                ListReading::AsString => "read as text",
            },
            match p.parser.block_lists {
                ListReading::Read => "read",
                ListReading::NotRead => "not read",
                ListReading::AsString => "read as text",
            },
            match p.parser.quotes {
                crate::host::Quotes::Stripped => "stripped",
                crate::host::Quotes::Kept => "kept",
            }
        ),
        "yaml-syntax" | "duplicate-key" | "tab-indentation" | "yaml-anchor" => {
            format!(
                "{}; a file it cannot parse: it {}",
                p.parser.library,
                p.bad_file.action.describe()
            )
        }
        "missing-frontmatter"
        | "unterminated-frontmatter"
        | "empty-frontmatter"
        | "frontmatter-not-mapping" => {
            format!("a file without frontmatter: {}", p.no_frontmatter.note)
        }
        "bom" => p.parser.bom_note.to_string(),
        "invalid-model" => format!("an unresolvable model: {}", p.unresolvable_model.note),
        _ => return None,
    })
}

/// Occurrences of one character-level rule reported per file, at most.
pub(crate) const MAX_REPORTED: usize = 50;

/// The note on the first of `total` occurrences when only [`MAX_REPORTED`] are shown.
pub(crate) fn capped_note(n: usize, total: usize) -> String {
    if n == 0 && total > MAX_REPORTED {
        format!(" ({total} in this file; the first {MAX_REPORTED} are reported)")
    } else {
        String::new()
    }
}

/// A rule by id.
pub(crate) fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
}

/// A rule by id, or why there is none: what every place that takes a rule id from a
/// user (`[rules]`, `--select`, suppressions, `pwk rules ID`, the MCP tool) asks.
pub(crate) fn lookup(id: &str) -> Result<&'static Rule, UnknownRule> {
    find(id).ok_or_else(|| UnknownRule {
        suggestion: crate::suggest::did_you_mean(id, RULES.iter().map(|r| r.id)),
    })
}

/// A rule id that names no rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UnknownRule {
    /// The closest rule id, if one is close.
    pub suggestion: Option<&'static str>,
}

impl UnknownRule {
    /// "did you mean `x`?", else `otherwise` (where the user finds the ids).
    pub(crate) fn help(&self, otherwise: &str) -> String {
        match self.suggestion {
            Some(s) => format!("did you mean `{s}`?"),
            None => otherwise.to_string(),
        }
    }
}

/// A rule as a JSON document (`pwk rules --format json`, `pwk mcp`'s `rules`):
/// what it reports, per host profile what the host does about it, and examples.
pub(crate) fn rule_doc(r: &Rule) -> serde_json::Value {
    let hosts: Vec<serde_json::Value> = crate::host::ALL
        .iter()
        .flat_map(|h| h.profiles())
        .filter_map(|p| {
            host_fact(r.id, p).map(|f| serde_json::json!({"profile": p.label(), "fact": f}))
        })
        .collect();
    serde_json::json!({
        "hosts": hosts,
        "id": r.id,
        "url": r.url(),
        "severity": r.severity,
        "also": r.also.map(|(severity, when)| serde_json::json!({"severity": severity, "when": when})),
        "summary": r.summary,
        "explanation": r.explanation,
        "bad": r.bad,
        "good": r.good,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_sorted_unique_and_documented() {
        for pair in RULES.windows(2) {
            assert!(
                pair[0].id < pair[1].id,
                "{} before {}",
                pair[0].id,
                pair[1].id
            );
        }
        for r in RULES {
            assert!(
                r.id.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}",
                r.id
            );
            assert!(
                !r.summary.is_empty() && !r.summary.ends_with('.'),
                "{}: summary",
                r.id
            );
            assert!(r.explanation.len() > 40, "{}: explanation", r.id);
            assert!(
                !r.bad.is_empty() && !r.good.is_empty(),
                "{}: examples",
                r.id
            );
            assert_ne!(r.bad, r.good, "{}", r.id);
        }
    }

    #[test]
    fn every_rule_a_host_profile_names_exists() {
        for p in crate::host::ALL.iter().flat_map(|h| h.profiles()) {
            for rule in p.severity.keys() {
                assert!(find(rule).is_some(), "{}: unknown rule {rule}", p.label());
            }
        }
    }
}
