//! `dashes-end-frontmatter`: a `---` inside the frontmatter (mid-line, indented, in
//! a value or a comment), where a host that ends the frontmatter at the first `---`
//! anywhere (Claude Code) stops reading it.

use crate::host::ParserKind;
use crate::lint::Severity;
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::{Closing, Fences, Role};

pub(crate) const RULE: Rule = Rule {
    id: "dashes-end-frontmatter",
    severity: Severity::Error,
    also: Some((
        Severity::Warning,
        "where no line closes the frontmatter and the host ends it at a `---` glued to text (`---B`): it loads the role",
    )),
    summary: "a `---` inside the frontmatter ends it early for Claude Code",
    explanation: "Claude Code ends the frontmatter at the first `---` in the file after the opening line, even in the middle of a value (`A---B`), in a block scalar or in a comment. What follows is lost: a `tools` line after it is never applied, so the child gets every tool, and the rest of the frontmatter becomes part of the prompt (measured with Claude Code 2.1.332, case f04; its binary's `K0` pattern `/^---\\s*\\n([\\s\\S]*?)---\\s*\\n?/`). Write the dashes another way (an en dash `–`, or `- -`).",
    bad: "---\nname: ranges\ndescription: Handles A---B style ranges\ntools: Read\n---\n",
    good: "---\nname: ranges\ndescription: Handles A–B style ranges\ntools: Read\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, _fences: &Fences) {
    let p = cx.profile;
    if p.parser.closing != Closing::FirstDashes || p.parser.kind != ParserKind::Yaml {
        return;
    }
    let Some((cut, at)) = cx.doc.cut_at_early_dashes() else {
        return;
    };
    early_dashes(cx, cut, at);
}

/// [`check`] for a frontmatter a `---` line cuts early: off a clean file's path,
/// and out of its pages (docs/src/perf.md, step 35).
#[cold]
#[inline(never)]
fn early_dashes(cx: &mut Checker<'_>, cut: crate::role::RoleDoc, at: usize) {
    let p = cx.profile;
    let label = p.label();
    // What the author wrote (as the host would repair it) and what the host reads.
    let whole = cx.doc.clone().as_read_by(Closing::Line, p.parser.repair);
    let read = cut.as_read_by(Closing::Line, p.parser.repair);
    let wrote = whole.mapping().map(|m| m.to_json());
    let got = read.mapping().map(|m| m.to_json());
    if wrote.is_some() && wrote == got {
        return; // only comments after it: the host reads the same keys
    }
    let role = Role::from_doc(&read);
    let loads = role
        .as_ref()
        .is_some_and(|r| r.name.as_deref().is_some_and(|n| !n.is_empty()))
        && role
            .as_ref()
            .is_some_and(|r| r.description.as_deref().is_some_and(|d| !d.is_empty()));
    let mut said = Vec::new();
    if let (Some(serde_json::Value::Object(w)), Some(serde_json::Value::Object(g))) = (&wrote, &got)
    {
        for (k, v) in g {
            if w.get(k).is_some_and(|x| x != v)
                && let Some(s) = v.as_str()
            {
                said.push(format!("reads `{k}` as {}", serde_json::Value::from(s)));
            }
        }
        let lost: Vec<String> = w
            .keys()
            .filter(|k| !g.contains_key(*k))
            .map(|k| format!("`{k}`"))
            .collect();
        if !lost.is_empty() {
            let mut l = format!("loses {}", lost.join(", "));
            if w.contains_key("tools") && !g.contains_key("tools") {
                l.push_str(" (so the child gets every tool)");
            }
            said.push(l);
        }
    }
    let outcome = if !loads {
        "what is left has no usable `name` and `description`, and the agent is dropped without a message".to_string()
    } else if said.is_empty() {
        "the rest of the frontmatter becomes part of the prompt".to_string()
    } else {
        format!(
            "it {}; the rest of the frontmatter becomes part of the prompt",
            said.join(" and ")
        )
    };
    cx.emit(
        &RULE,
        at..at + 3,
        "the frontmatter ends here for this host",
        format!("this `---` ends the frontmatter for {label}: {outcome}"),
        Some(
            "write the dashes another way (an en dash `–`, or `- -`); quoting does not help".into(),
        ),
    );
}

/// A frontmatter with no closing line, under a host that ends it at the first
/// `---` anywhere: when one follows the opening line (`---B`), the host reads the
/// frontmatter up to it and loads the role (oracle: Claude Code 2.1.332). A warning
/// (readers that want a `---` line find no frontmatter), and the findings of the
/// frontmatter the host reads, in place of `unterminated-frontmatter`. Whether it
/// applied. `run` is the whole check (`lint::check::run`), handed in by its caller so
/// that the rules do not import the module that calls them.
pub(crate) fn check_unterminated(cx: &mut Checker<'_>, run: fn(&mut Checker<'_>)) -> bool {
    let p = cx.profile;
    if p.parser.closing != Closing::FirstDashes || p.parser.kind != ParserKind::Yaml {
        return false;
    }
    let Some((cut, at)) = cx.doc.cut_at_early_dashes() else {
        return false;
    };
    // What the host reads, checked as a file of its own; its findings before the
    // cut are at the same offsets in this file.
    let mut inner = Checker::new(&cut, p);
    run(&mut inner);
    cx.out
        .extend(inner.out.into_iter().filter(|d| d.span.end <= at));
    cx.host_specific = inner.host_specific;
    let d = cx.emit(
        &RULE,
        at..at + 3,
        "the frontmatter ends here for this host",
        format!(
            "no line closes the frontmatter, but {} ends it at this `---` and reads what follows on the line as the prompt's first text; readers that want a `---` line (pi, the other hosts, YAML tools) find no frontmatter",
            p.label()
        ),
        Some("put the closing `---` on a line of its own".into()),
    );
    d.severity = p.severity_of(RULE.id, Severity::Warning);
    true
}

#[cfg(test)]
mod tests {
    use crate::host::HostId;
    use crate::role::RoleDoc;

    fn found(text: &str) -> Vec<String> {
        let doc = RoleDoc::parse("a.md", text.as_bytes());
        crate::lint::check_doc(&doc, HostId::ClaudeCode.newest())
            .into_iter()
            .filter(|d| d.rule == super::RULE.id)
            .map(|d| d.message)
            .collect()
    }

    #[test]
    fn says_what_claude_code_reads_and_loses() {
        let m = found("---\nname: r\ndescription: Handles A---B ranges\ntools: Read\n---\nBody\n");
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(
            m[0].contains("reads `description` as \"Handles A\""),
            "{m:?}"
        );
        assert!(
            m[0].contains("loses `tools` (so the child gets every tool)"),
            "{m:?}"
        );
        let m = found("---\nname: r---x\ndescription: d\n---\nBody\n");
        assert!(m[0].contains("dropped"), "{m:?}");
    }

    #[test]
    fn a_closing_line_glued_to_text_closes_the_frontmatter_for_claude_code() {
        // N27: `---B` (oracle: Claude Code 2.1.332 loads the role, description `d`).
        let text = "---\nname: r\ndescription: d\nmax_turns: x\n---B\nBody\n";
        let doc = RoleDoc::parse("a.md", text.as_bytes());
        let claude = crate::lint::check_doc(&doc, HostId::ClaudeCode.newest());
        let rules: Vec<(&str, crate::lint::Severity)> =
            claude.iter().map(|d| (d.rule, d.severity)).collect();
        assert!(
            rules.contains(&(super::RULE.id, crate::lint::Severity::Warning)),
            "{claude:?}"
        );
        assert!(
            !rules.iter().any(|(r, _)| *r == "unterminated-frontmatter"),
            "{rules:?}"
        );
        // The frontmatter Claude Code reads is checked: its keys' findings stay.
        assert!(
            rules
                .iter()
                .any(|(r, _)| *r == "unknown-key" || *r == "host-ignored-key"),
            "{rules:?}"
        );
        // pwk's own reader and the other hosts: no closing line.
        let pwk = crate::lint::check_doc(&doc, HostId::Pwk.newest());
        assert!(
            pwk.iter().any(|d| d.rule == "unterminated-frontmatter"),
            "{pwk:?}"
        );
        assert!(!pwk.iter().any(|d| d.rule == super::RULE.id));
    }

    /// N27 by class: whatever follows the dashes on the line (text, a key, more
    /// dashes, a comment), with LF or CRLF, after any frontmatter: Claude Code ends
    /// the frontmatter there (a warning, no `unterminated-frontmatter`); pwk's reader
    /// finds no closing line.
    #[test]
    fn every_glued_closing_line_is_a_warning_for_claude_code_only() {
        use crate::lint::Severity;
        let glued = [
            "B",
            "You review.",
            "x: y",
            "-",
            "--",
            " # c",
            "\tB",
            " B",
            "`B`",
        ];
        let before = ["", "tools: Read\n", "x-a: 1\nx-b: [1, 2]\n"];
        let mut cases = 0;
        for g in glued {
            for b in before {
                for eol in ["\n", "\r\n"] {
                    cases += 1;
                    let text =
                        format!("---{eol}name: r{eol}description: d{eol}{b}---{g}{eol}Body{eol}")
                            .replace("\n", eol);
                    let doc = RoleDoc::parse("a.md", text.as_bytes());
                    let claude = crate::lint::check_doc(&doc, HostId::ClaudeCode.newest());
                    let rules: Vec<(&str, Severity)> =
                        claude.iter().map(|d| (d.rule, d.severity)).collect();
                    assert!(
                        rules.contains(&(super::RULE.id, Severity::Warning)),
                        "{text:?}: {rules:?}"
                    );
                    assert!(
                        !rules.iter().any(|(r, _)| *r == "unterminated-frontmatter"),
                        "{text:?}: {rules:?}"
                    );
                    let pwk = crate::lint::check_doc(&doc, HostId::Pwk.newest());
                    assert!(
                        pwk.iter().any(|d| d.rule == "unterminated-frontmatter"),
                        "{text:?}: {pwk:?}"
                    );
                }
            }
        }
        assert_eq!(cases, 54);
    }

    #[test]
    fn quiet_without_early_dashes_or_under_other_hosts() {
        assert!(found("---\nname: r\ndescription: A–B\n---\nBody --- more\n").is_empty());
        assert!(found("---\nname: r\ndescription: d\n# ---\n---\nBody\n").is_empty());
        let doc = RoleDoc::parse("a.md", b"---\nname: r\ndescription: A---B\n---\nB\n");
        assert!(
            crate::lint::check_doc(&doc, HostId::Pwk.newest())
                .iter()
                .all(|d| d.rule != super::RULE.id)
        );
    }
}
