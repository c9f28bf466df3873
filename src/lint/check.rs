//! Checking one parsed role file: the file-level traps, the schema (mapped onto
//! rule ids), then the rules the schema cannot express.

use std::collections::HashSet;

use crate::role::validate::ValidationErrorKind as Kind;

use super::Diagnostic;
use super::rule::Checker;
use super::rules::{self, Rule};
use crate::host::{HostProfile, ListReading};
use crate::role::{Fences, Node, RoleDoc, SplitError};

/// `unresolved-model` for `doc` against the models pi lists (`--check-models`).
pub(crate) fn check_models(
    doc: &RoleDoc,
    profile: &'static HostProfile,
    scope: &crate::pi::models::ModelScope,
) -> Vec<Diagnostic> {
    let mut cx = Checker::new(doc, profile);
    if let Some(Ok(tree)) = &doc.tree {
        rules::unresolved_model::check(&mut cx, tree, scope);
    }
    cx.out
}

/// All single-file findings for `doc` under `host`, sorted by position.
pub fn check_doc(doc: &RoleDoc, profile: &'static HostProfile) -> Vec<Diagnostic> {
    check_doc_full(doc, profile).0
}

/// [`check_doc`], and the keys only some hosts read (the portable profile's note).
pub fn check_doc_full(
    doc: &RoleDoc,
    profile: &'static HostProfile,
) -> (Vec<Diagnostic>, crate::host::KeySet) {
    // A host that turns each lone `\r` into `\n` (pi's parseFrontmatter) finds the
    // frontmatter of a file whose lines end in a lone `\r`: lint what it reads.
    let read = match (&doc.fences, &profile.parser.cr_newlines) {
        (Err(SplitError::MissingOpeningFence { .. }), Some(_)) => {
            doc.with_cr_newlines().filter(|d| d.fences.is_ok())
        }
        _ => None,
    };
    let mut cx = Checker::new(read.as_ref().unwrap_or(doc), profile);
    if read.is_some() {
        rules::lone_carriage_return::check_line_endings(&mut cx, doc);
    }
    run(&mut cx);
    let mut out = cx.out;
    documented_host(profile, &mut out);
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out.dedup();
    (out, cx.host_specific)
}

/// A host pwk knows only from its documentation and issues (the profile's
/// `confidence`: no loader read, nothing run) backs no error: every finding under
/// it is a warning at most, and says why.
fn documented_host(profile: &HostProfile, out: &mut [Diagnostic]) {
    if profile.confidence.may_error() {
        return;
    }
    for d in out
        .iter_mut()
        .filter(|d| d.severity == super::Severity::Error)
    {
        d.severity = super::Severity::Warning;
        d.message.push_str(&format!(
            " (pwk knows {} only from its documentation and issues, not from its loader)",
            profile.label()
        ));
    }
}

/// The checks that look at the machine, not only the file: the skills a role
/// names, against the skill directories the host reads (`places`).
pub(crate) fn check_skills(
    doc: &RoleDoc,
    profile: &'static HostProfile,
    places: &crate::host::skills::SkillPlaces,
) -> Vec<Diagnostic> {
    let Some(Ok(tree)) = &doc.tree else {
        return Vec::new();
    };
    let mut cx = Checker::new(doc, profile);
    rules::unknown_skill::check(&mut cx, tree, places);
    cx.out
}

pub(crate) fn run(cx: &mut Checker<'_>) {
    if rules::invalid_utf8::check(cx) {
        return;
    }
    rules::bom::check(cx);
    rules::crlf::check(cx);
    rules::bidi_override::check(cx);
    rules::invisible_character::check(cx);
    rules::host_unread_directory::check(cx);
    let fences = match &cx.doc.fences {
        Ok(f) => f.clone(),
        Err(e) => return no_frontmatter(cx, e),
    };
    rules::lone_carriage_return::check(cx, &fences);
    rules::dot_closing_fence::check(cx, &fences);
    rules::multiple_documents::check(cx, &fences);
    rules::empty_body::check(cx, &fences);
    rules::dashes_end_frontmatter::check(cx, &fences);
    let tree = match &cx.doc.tree {
        Some(Ok(tree)) => tree,
        Some(Err(err)) => {
            if !repaired(cx, &fences, err) {
                yaml_error(cx, &fences, err);
            }
            return;
        }
        None => return,
    };
    run_tree(cx, &fences, tree);
}

/// A file without a whole frontmatter: off a role's path, and out of its pages
/// (docs/src/perf.md, step 35).
#[cold]
#[inline(never)]
fn no_frontmatter(cx: &mut Checker<'_>, e: &SplitError) {
    match e {
        SplitError::MissingOpeningFence { first_line } => {
            if !rules::readme_in_agents_dir::check(cx) {
                rules::missing_frontmatter::check(cx, first_line.clone());
            }
        }
        SplitError::Unterminated { open } => {
            if !rules::dashes_end_frontmatter::check_unterminated(cx, run) {
                rules::unterminated_frontmatter::check(cx, open.clone());
            }
        }
    }
}

/// The checks of a frontmatter that parsed.
fn run_tree(cx: &mut Checker<'_>, fences: &Fences, tree: &Node) {
    if tree.as_mapping().is_none_or(<[_]>::is_empty) {
        rules::empty_frontmatter::check(cx, fences);
        return;
    }
    schema(cx, tree);
    rules::name_mismatch::check(cx, tree);
    rules::invalid_model::check(cx, tree);
    rules::unknown_tool::check(cx, tree);
    rules::mcp_gateway_tool::check(cx, tree);
    rules::host_tools_list::check(cx, tree);
    rules::deprecated_skill_key::check(cx, tree);
    rules::cli_model_without_cli::check(cx, tree);
    rules::adapter_visible::check(cx, tree);
    rules::missing_tools::check(cx, tree);
    rules::not_invocable::check(cx, tree);
    rules::host_ignored_key::check(cx, tree);
    rules::host_rejected_key::check(cx, tree);
    rules::host_rejected_key::check_one_of(cx, tree);
    rules::invalid_value::check_parsed(cx, tree);
    rules::hook_outside_hooks::check(cx, tree);
    rules::comment_in_value::check(cx, tree);
}

/// A host that repairs what strict YAML rejects (Claude Code) loads the file when
/// the repaired text parses: the YAML finding is a warning that says what the host
/// changed (`--fix` quotes the values as the host does), and the rest is checked on
/// the repaired text. `false` when the profile has no repair or it does not help.
// Only for a frontmatter that does not parse: out of a clean file's pages
// (docs/src/perf.md, step 35).
#[cold]
#[inline(never)]
fn repaired(cx: &mut Checker<'_>, fences: &Fences, err: &crate::role::YamlError) -> bool {
    let Some((doc, lines)) = cx.doc.repaired(cx.profile.parser.repair) else {
        return false;
    };
    let before = cx.out.len();
    yaml_error_findings(cx, fences, err);
    use crate::role::repair::Change;
    let keys = |f: fn(&Change) -> Option<&String>| -> Vec<String> {
        lines
            .iter()
            .filter_map(|l| f(&l.change).map(|k| format!("`{k}`")))
            .collect()
    };
    let quoted = keys(|c| match c {
        Change::Quoted(k) => Some(k),
        _ => None,
    });
    let overridden = keys(|c| match c {
        Change::Overridden(k) => Some(k),
        _ => None,
    });
    let mut changed = Vec::new();
    if !quoted.is_empty() {
        changed.push(format!("quotes the value of {}", quoted.join(", ")));
    }
    if lines.iter().any(|l| l.change == Change::Tabs) {
        changed.push("turns leading tabs into spaces".to_string());
    }
    if !overridden.is_empty() {
        changed.push(format!("keeps the last {}", overridden.join(", ")));
    }
    let fix = super::fix::Fix::new(
        "write the frontmatter as the host reads it",
        // Dropping a repeated key's earlier value is a guess at what was meant.
        if overridden.is_empty() {
            super::fix::Safety::Safe
        } else {
            super::fix::Safety::Unsafe
        },
        lines
            .iter()
            .map(|l| super::fix::Edit {
                range: l.range.clone(),
                replacement: l.replacement.clone(),
            })
            .collect(),
    );
    for d in &mut cx.out[before..] {
        d.severity = super::Severity::Warning;
        d.message.push_str(&format!(
            "; {} {} and loads the file, but strict YAML readers (Copilot, Gemini, pi, YAML tools) reject it",
            cx.profile.label(),
            changed.join(" and ")
        ));
        d.fixes = vec![fix.clone()];
    }
    let Some(Ok(tree)) = &doc.tree else {
        return true;
    };
    let Ok(inner_fences) = &doc.fences else {
        return true;
    };
    let mut inner = Checker::new(&doc, cx.profile);
    run_tree(&mut inner, inner_fences, tree);
    // Same lines in both texts: a span moves to its line in the file.
    let map = |o: usize| {
        let o = o.min(doc.text.len());
        let line = doc.lines.line_of(o) + 1;
        let col = o - doc.lines.line_start(line).unwrap_or(0);
        let start = cx.doc.lines.line_start(line).unwrap_or(cx.doc.text.len());
        let end = cx.doc.lines.line_end(&cx.doc.text, start);
        (start + col).min(end)
    };
    for mut d in inner.out {
        d.span = map(d.span.start)..map(d.span.end).max(map(d.span.start));
        d.start = cx.doc.position(d.span.start);
        d.end = cx.doc.position(d.span.end);
        for r in &mut d.related {
            r.span = map(r.span.start)..map(r.span.end).max(map(r.span.start));
            r.start = cx.doc.position(r.span.start);
            r.end = cx.doc.position(r.span.end);
        }
        // Edits computed on the repaired text do not apply to the file.
        d.fixes.clear();
        cx.out.push(d);
    }
    true
}

// Only for a frontmatter that does not parse: out of a clean file's pages
// (docs/src/perf.md, step 35).
#[cold]
#[inline(never)]
fn yaml_error(cx: &mut Checker<'_>, fences: &Fences, err: &crate::role::YamlError) {
    let before = cx.out.len();
    yaml_error_findings(cx, fences, err);
    use crate::role::repair::Repair;
    let after_repair = match cx.profile.parser.repair {
        Repair::None => None,
        Repair::ClaudeCode => Some(
            "'s repair (quoting top-level values, tabs to spaces) does not fix it: the agent is dropped without a message",
        ),
        Repair::Opencode => Some(
            "'s repair (quoting top-level values that hold `:`) does not fix it: it loads the whole file, frontmatter included, as the prompt of an agent with every default (mode `all`)",
        ),
    };
    if let Some(tail) = after_repair
        && matches!(err, crate::role::YamlError::Syntax { .. })
    {
        for d in &mut cx.out[before..] {
            d.message
                .push_str(&format!("; {}{tail}", cx.profile.label()));
        }
    }
    // A host with its own line reader is not stopped by what YAML rejects: it loads
    // the file, reading each `key: value` line as text. pwk cannot say what it made
    // of the rest, so the finding is a warning that says so (anchors excepted:
    // `yaml-anchor` words its own).
    let p = cx.profile;
    if !p.is_portable() && p.parser.kind == crate::host::ParserKind::Line {
        // What the line reader still needs: the required keys, at the start of a line.
        let yaml = &cx.doc.text[fences.yaml.clone()];
        let seen = crate::role::line_reader::keys(yaml);
        let has = |key: &str| {
            if p.parser.lone_cr.is_some() {
                return seen.iter().any(|k| k == key);
            }
            yaml.lines().any(|l| {
                l.strip_prefix(key)
                    .and_then(|r| r.strip_prefix(':'))
                    .is_some_and(|v| !v.trim().is_empty())
            })
        };
        let missing: Vec<String> = p
            .required
            .iter()
            .map(|r| r.key.to_string())
            .filter(|k| !has(k))
            .collect();
        for d in &mut cx.out[before..] {
            if d.rule == rules::yaml_anchor::RULE.id {
                continue;
            }
            d.severity = super::Severity::Warning;
            d.message.push_str(&format!(
                "; {} reads frontmatter line by line{}, but YAML tools and pi's own parser reject it, and pwk checked no key",
                p.label(),
                if missing.is_empty() {
                    " and still loads the file"
                } else {
                    ""
                }
            ));
        }
        for key in missing {
            match key.as_str() {
                "name" => rules::missing_name::report(cx),
                "description" => rules::missing_description::report(cx),
                _ => {}
            }
        }
    }
}

fn yaml_error_findings(cx: &mut Checker<'_>, fences: &Fences, err: &crate::role::YamlError) {
    use crate::role::YamlError as E;
    match err {
        E::Syntax { message, at } => {
            if !rules::tab_indentation::check(cx, fences) {
                rules::yaml_syntax::syntax(cx, *at, message);
            }
        }
        E::DuplicateKey { key, first, second } => {
            rules::duplicate_key::check(cx, key, first.clone(), second.clone());
        }
        E::Anchor { at } => rules::yaml_anchor::check(cx, *at),
        E::Tag { at } => rules::yaml_syntax::tag(cx, *at),
        E::ComplexKey { at } => rules::yaml_syntax::complex_key(cx, *at),
        E::NotMapping { at } => rules::frontmatter_not_mapping::check(cx, fences, *at),
        E::TooDeep { at } => rules::yaml_too_deep::check(cx, *at),
        E::ControlCharacter { .. } => rules::control_character::check(cx, fences),
    }
}

/// Run the host's schema over the frontmatter and map each error to a rule.
fn schema(cx: &mut Checker<'_>, tree: &Node) {
    let validator = crate::host::schema::validator(cx.profile);
    // Most files are valid: the boolean check is much cheaper than collecting errors.
    if validator.is_valid(tree) {
        return;
    }
    schema_errors(cx, tree, validator);
}

/// What [`schema`] says of a frontmatter the schema rejects: off a valid file's
/// path, and out of its pages (docs/src/perf.md, step 35).
#[cold]
#[inline(never)]
fn schema_errors(cx: &mut Checker<'_>, tree: &Node, validator: &crate::role::validate::Validator) {
    let mut seen: HashSet<(String, &'static str)> = HashSet::new();
    for err in validator.iter_errors(tree) {
        let pointer = err.instance_path().as_str().to_string();
        match err.kind() {
            Kind::AdditionalProperties { unexpected } if pointer.is_empty() => {
                for key in unexpected {
                    if seen.insert((format!("/{key}"), rules::unknown_key::RULE.id)) {
                        rules::unknown_key::report(cx, tree, key);
                    }
                }
            }
            Kind::Required { property } if pointer.is_empty() => match property.as_str() {
                // A key only some kinds of agent need (Gemini: a remote agent
                // without `description` loads).
                Some(key) if !required_of_kind(cx.profile, tree, key) => {}
                Some("name") => rules::missing_name::report(cx),
                Some("description") => rules::missing_description::report(cx),
                _ => {}
            },
            kind => {
                let Some((_, node)) = tree.pointer(&pointer) else {
                    continue;
                };
                let top = top_key(&pointer);
                // The host removes the role over this key's form: `host-tools-list`
                // says so, once, instead of a finding about its value.
                if rules::host_tools_list::strict_line_broken(cx, tree, &top) {
                    continue;
                }
                // Text the host parses again as JSON (nicobailon's `toolBudget`, the
                // quotes around it stripped): `invalid-value` judges the text.
                if parsed_as_json_text(cx.profile, tree, &top) {
                    continue;
                }
                let rule = value_rule(cx, &top, &pointer, kind, node);
                if seen.insert((pointer.clone(), rule.id)) {
                    let before = cx.out.len();
                    report_value(cx, rule, &top, &pointer, kind, node);
                    read_by_some_host(cx, before, tree, &top);
                    documented_only(cx, &top, before);
                    drops_role(cx, &top, before);
                }
            }
        }
    }
}

/// Whether `top` holds text that the host (under the portable profile: some pi host)
/// parses as JSON: then its schema type is the parsed value's, not the text's.
fn parsed_as_json_text(p: &HostProfile, tree: &Node, top: &str) -> bool {
    let is_text = tree
        .get(top)
        .is_some_and(|n| matches!(n.to_json(), serde_json::Value::String(_)));
    let json = |h: &HostProfile| {
        h.key(top)
            .is_some_and(|f| f.parsed_as == Some(crate::host::ParsedAs::Json))
    };
    is_text
        && (json(p)
            || (p.is_portable()
                && crate::host::pi_table()
                    .key(top)
                    .is_some_and(|e| e.json != 0)))
}

/// Severity follows evidence: a value finding built on a key fact that only the
/// host's changelog or documentation gives (not its source, not a measurement) is at
/// most a warning, and says so.
fn documented_only(cx: &mut Checker<'_>, top: &str, before: usize) {
    let Some(fact) = cx.profile.key(top) else {
        return;
    };
    if fact.confidence.may_error() {
        return;
    }
    let label = cx.profile.label();
    for d in &mut cx.out[before..] {
        if d.severity == super::Severity::Error {
            d.severity = super::Severity::Warning;
            d.message.push_str(&format!(
                " (what {label} accepts in `{top}` is known only from its changelog or documentation, not measured)"
            ));
        }
    }
}

/// Whether `key`, which the host requires of some agents, is required of this one
/// (the profile's `variants`: Gemini CLI needs no `description` of a remote agent).
fn required_of_kind(p: &HostProfile, tree: &Node, key: &str) -> bool {
    match (p.requires(key), &*p.variants) {
        (Some(r), Some(v)) if !r.kinds.is_empty() => r.kinds.iter().any(|k| *k == v.kind_of(tree)),
        _ => true,
    }
}

/// A value the host cannot use makes it drop the whole role (Claude Code: `hooks`
/// that are not a hooks mapping): the finding is an error that says so, whatever the
/// fact's confidence.
fn drops_role(cx: &mut Checker<'_>, top: &str, before: usize) {
    let Some(what) = cx.profile.key(top).and_then(|f| f.on_invalid.as_ref()) else {
        return;
    };
    let label = cx.profile.label();
    for d in &mut cx.out[before..] {
        d.severity = cx.profile.severity_of("drops-role", super::Severity::Error);
        let tail = " (what ";
        if let Some(i) = d.message.find(tail) {
            d.message.truncate(i);
        }
        d.message.push_str(&format!("; {label} {what}"));
    }
}

/// Under the portable profile, a boolean the role schema refuses but some real pi host
/// reads as one (tintinweb's `skills: false`, no skills) is not an error: the finding
/// becomes a warning that names the hosts that read the boolean and the ones that
/// read the key but refuse it. Only the error path pays for the per-host validation.
fn read_by_some_host(cx: &mut Checker<'_>, before: usize, tree: &Node, top: &str) {
    if !cx.profile.is_portable() || cx.out.len() == before {
        return;
    }
    let is_bool = tree
        .get(top)
        .is_some_and(|n| matches!(n.to_json(), serde_json::Value::Bool(_)));
    if !is_bool
        || cx.out[before..]
            .iter()
            .any(|d| d.rule != rules::invalid_type::RULE.id)
    {
        return;
    }
    let (readers, others): (Vec<&'static HostProfile>, Vec<&'static HostProfile>) =
        crate::host::pi_profiles()
            .filter(|p| p.reads(top))
            .partition(|&p| {
                crate::host::schema::validator(p)
                    .iter_errors(tree)
                    .all(|e| top_key(e.instance_path().as_str()) != top)
            });
    // No reader: the hosts refuse it too. No other: nothing to warn about here.
    if readers.is_empty() || others.is_empty() {
        return;
    }
    let who = crate::host::name_profiles(&readers);
    let rest = crate::host::name_profiles(&others);
    for d in &mut cx.out[before..] {
        d.severity = super::Severity::Warning;
        d.message.push_str(&format!(
            "; {who} take{} it as the boolean, {rest} as text",
            if who.contains(" and ") { "" } else { "s" }
        ));
    }
}

/// The first key of a JSON pointer (`/tools/2` → `tools`).
fn top_key(pointer: &str) -> String {
    pointer
        .split('/')
        .nth(1)
        .unwrap_or("")
        .replace("~1", "/")
        .replace("~0", "~")
}

/// Which rule a schema error on a value belongs to.
fn value_rule(
    cx: &Checker<'_>,
    top: &str,
    pointer: &str,
    kind: &Kind,
    node: &Node,
) -> &'static Rule {
    let whole = pointer == format!("/{top}");
    match (top, kind) {
        ("name", Kind::Pattern { .. }) => &rules::name_not_slug::RULE,
        ("description", Kind::MinLength { .. } | Kind::Pattern { .. }) => {
            &rules::empty_description::RULE
        }
        ("description", Kind::Type { .. }) if matches!(node.to_json(), serde_json::Value::Null) => {
            &rules::empty_description::RULE
        }
        ("thinking", _) => &rules::invalid_thinking::RULE,
        ("max_turns", Kind::Type { .. }) if rules::invalid_type::is_quoted_number(node) => {
            &rules::invalid_type::RULE
        }
        ("max_turns", _) => &rules::invalid_max_turns::RULE,
        ("model" | "cli-model", Kind::Pattern { .. }) => &rules::invalid_model::RULE,
        ("tools" | "deny-tools", _)
            if cx.profile.parser.block_lists != ListReading::Read && whole =>
        {
            &rules::host_tools_list::RULE
        }
        // A number out of range, quoted or not: the number is what is wrong
        // (`autoCompactWindow: '1000'`), not its type.
        (_, _) if whole && rules::invalid_value::out_of_range(cx, top, node).is_some() => {
            &rules::invalid_value::RULE
        }
        (_, Kind::Type { .. } | Kind::OneOfNotValid { .. } | Kind::AnyOf { .. }) => {
            &rules::invalid_type::RULE
        }
        _ => &rules::invalid_value::RULE,
    }
}

fn report_value(
    cx: &mut Checker<'_>,
    rule: &'static Rule,
    top: &str,
    pointer: &str,
    kind: &Kind,
    node: &Node,
) {
    let id = rule.id;
    if id == rules::name_not_slug::RULE.id {
        rules::name_not_slug::report(cx, node);
    } else if id == rules::empty_description::RULE.id {
        rules::empty_description::report(cx, node);
    } else if id == rules::invalid_thinking::RULE.id {
        rules::invalid_thinking::report(cx, node);
    } else if id == rules::invalid_max_turns::RULE.id {
        rules::invalid_max_turns::report(cx, node);
    } else if id == rules::invalid_model::RULE.id {
        rules::invalid_model::report_whitespace(cx, top, node);
    } else if id == rules::host_tools_list::RULE.id {
        rules::host_tools_list::report(cx, top, node);
    } else if id == rules::invalid_type::RULE.id {
        rules::invalid_type::report(cx, top, pointer, node);
    } else if let Some(range) = (pointer == format!("/{top}"))
        .then(|| rules::invalid_value::out_of_range(cx, top, node))
        .flatten()
    {
        rules::invalid_value::report_range(cx, top, node, &range);
    } else {
        rules::invalid_value::report(cx, top, kind, node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::HostId;

    fn rules(text: &str, host: HostId) -> Vec<(&'static str, usize, usize)> {
        let doc = RoleDoc::parse("roles/r.md", text.as_bytes());
        check_doc(&doc, host.newest())
            .iter()
            .map(|d| (d.rule, d.start.line, d.start.column))
            .collect()
    }

    const PWK_ROLE: &str = "---\nname: r\ndescription: Flags smells.\ntools: read, grep, find, ls, bash\nsystemPromptMode: replace\nmax_turns: 20\nthinking: low\n# model: <fast-tier> — set yours via /pwk-setup\n---\n# Body\n";

    #[test]
    fn pwk_shaped_role_has_no_finding_with_no_host_known() {
        // herdr ignores `systemPromptMode` (it reads `system-prompt`); only tintinweb
        // has a turn bound: keys the run's summary names, not findings.
        let doc = RoleDoc::parse(std::path::PathBuf::from("r.md"), PWK_ROLE.as_bytes());
        let (found, host_specific) = check_doc_full(&doc, HostId::Pwk.newest());
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(
            host_specific.iter().collect::<Vec<_>>(),
            ["max_turns", "systemPromptMode"]
        );
    }

    #[test]
    fn host_profiles_flag_what_they_ignore() {
        assert_eq!(
            rules(PWK_ROLE, HostId::Nicobailon),
            [("host-ignored-key", 6, 1)]
        );
        // tintinweb ignores `systemPromptMode` but replaces the prompt anyway: harmless.
        assert_eq!(rules(PWK_ROLE, HostId::Tintinweb), []);
        let append = PWK_ROLE.replace("systemPromptMode: replace", "systemPromptMode: append");
        assert_eq!(
            rules(&append, HostId::Tintinweb),
            [("host-ignored-key", 5, 1)]
        );
        assert_eq!(
            rules(PWK_ROLE, HostId::Herdr),
            [("host-ignored-key", 5, 1), ("host-ignored-key", 6, 1)]
        );
    }

    #[test]
    fn schema_errors_land_on_keys_and_values() {
        let text = "---\nname: r\ndescription: d\ntools: read\nthinking: lots\nmax_turns: \"20\"\nspawning: yes\nx-owner: me\nacme.team: a\nowner: me\n---\nBody\n";
        assert_eq!(
            rules(text, HostId::Pwk),
            [
                ("invalid-thinking", 5, 11),
                ("invalid-type", 6, 12),
                ("invalid-type", 7, 11),
                ("unknown-key", 10, 1)
            ]
        );
    }

    #[test]
    fn required_keys_point_at_the_opening_fence() {
        assert_eq!(
            rules("---\ntools: read\n---\nBody\n", HostId::Pwk),
            [("missing-description", 1, 1), ("missing-name", 1, 1)]
        );
    }

    #[test]
    fn file_traps_stop_further_checks() {
        assert_eq!(
            rules("---\nname: r\n", HostId::Pwk),
            [("unterminated-frontmatter", 1, 1)]
        );
        assert_eq!(rules("", HostId::Pwk), [("missing-frontmatter", 1, 1)]);
        assert_eq!(
            rules("---\n---\nBody\n", HostId::Pwk),
            [("empty-frontmatter", 1, 1)]
        );
        assert_eq!(
            rules("---\nname: r\nname: s\n---\nBody\n", HostId::Pwk),
            [("duplicate-key", 3, 1)]
        );
    }
}
