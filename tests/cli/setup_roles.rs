//! The canonical roles in `roles/`: parsed with pwk's own reader, validated
//! against the shipped schema, and held to the role contracts (seeds 000 and 003):
//! section order, one shared reviewer conduct block, the hazard items, read-only
//! tools, no model line, file name = `name`, and the bundle = the directory.

use pwk::role::{Role, RoleDoc};
use pwk::roles::{BUNDLED_ROLES, bundled_role};

use crate::support::repo_root;

const REVIEWERS: [&str; 4] = [
    "pwk-spec-reviewer",
    "pwk-tracing-reviewer",
    "pwk-smell-reviewer",
    "pwk-hazard-reviewer",
];

/// Every `roles/*.md`, parsed from disk (not from the compiled-in copy).
fn roles_on_disk() -> Vec<(String, RoleDoc, Role)> {
    let dir = repo_root().join("roles");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let doc = RoleDoc::parse(&path, &bytes);
        let role = Role::from_doc(&doc)
            .unwrap_or_else(|| panic!("{}: frontmatter does not parse", path.display()));
        out.push((doc.stem().unwrap().to_string(), doc, role));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn role(name: &str) -> (RoleDoc, Role) {
    roles_on_disk()
        .into_iter()
        .find(|(n, ..)| n == name)
        .map(|(_, d, r)| (d, r))
        .unwrap()
}

#[test]
fn bundle_equals_the_roles_directory() {
    let mut on_disk: Vec<String> = roles_on_disk().into_iter().map(|(n, ..)| n).collect();
    on_disk.sort();
    let mut bundled: Vec<String> = BUNDLED_ROLES.iter().map(|r| r.name.to_string()).collect();
    bundled.sort();
    assert_eq!(on_disk, bundled);
    for (name, doc, _) in roles_on_disk() {
        assert_eq!(
            bundled_role(&name).unwrap().content,
            doc.text,
            "{name}: compiled-in copy is stale"
        );
    }
    let order: Vec<&str> = BUNDLED_ROLES.iter().map(|r| r.name).collect();
    assert_eq!(
        order[0], "pwk-recon-scout",
        "setup order starts with the scout"
    );
    assert_eq!(&order[1..], REVIEWERS);
}

#[test]
fn every_role_validates_against_the_schema() {
    for (name, doc, _) in roles_on_disk() {
        let json = doc.mapping().unwrap().to_json();
        let errors: Vec<String> = pwk::role::schema::validator()
            .iter_errors(&json)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        assert!(
            doc.invalid_utf8_at.is_none() && !doc.has_crlf(),
            "{name}: UTF-8 with LF line ends"
        );
        assert!(!doc.text.starts_with('\u{feff}'), "{name}: no BOM");
    }
}

#[test]
fn roles_lint_clean_for_every_host() {
    // The shipped roles pass `pwk lint --deny-warnings` under tintinweb's profiles,
    // and have no errors under any profile: nicobailon and herdr warn that they
    // ignore `max_turns` (herdr also `systemPromptMode`), and the portable profile
    // says the same, naming them.
    let env = crate::support::TestEnv::new();
    let roles = repo_root().join("roles");
    for host in ["tintinweb", "tintinweb@0.14"] {
        let out = crate::support::run(
            env.pwk()
                .args(["lint", "--deny-warnings", "--host", host])
                .arg(&roles),
        );
        assert_eq!(out.code, 0, "--host {host}:\n{}{}", out.stdout, out.stderr);
        assert!(
            out.stdout.contains("5 files checked for tintinweb@0.")
                && out.stdout.contains(": no problems"),
            "{}",
            out.stdout
        );
    }
    for host in ["pwk", "nicobailon", "nicobailon@0.67", "herdr"] {
        let out = crate::support::run(env.pwk().args(["lint", "--host", host]).arg(&roles));
        assert_eq!(out.code, 0, "--host {host}:\n{}{}", out.stdout, out.stderr);
    }
}

#[test]
fn frontmatter_contracts() {
    for (stem, doc, role) in roles_on_disk() {
        assert_eq!(
            role.name.as_deref(),
            Some(stem.as_str()),
            "file name must be `name` + .md"
        );
        assert!(
            role.description.as_deref().is_some_and(|d| d.len() > 40),
            "{stem}: a real description"
        );
        assert_eq!(
            role.tools.as_deref().unwrap(),
            ["read", "grep", "find", "ls"],
            "{stem}: enforceably read-only tools (no bash, edit, write)"
        );
        assert!(
            doc.text.contains("\ntools: read, grep, find, ls\n"),
            "{stem}: tools as one CSV line"
        );
        assert_eq!(
            role.system_prompt_mode.as_deref(),
            Some("replace"),
            "{stem}"
        );
        assert_eq!(role.model, None, "{stem}: no shipped role pins a model");
        let fm = &doc.text[doc.fences.as_ref().unwrap().yaml.clone()];
        assert!(
            !fm.lines().any(|l| l.starts_with("model:")),
            "{stem}: no model: line"
        );
        match stem.as_str() {
            "pwk-smell-reviewer" | "pwk-hazard-reviewer" => {
                assert_eq!(role.thinking.as_deref(), Some("low"), "{stem}");
                assert_eq!(role.max_turns, Some(20), "{stem}");
                assert_eq!(
                    fm.lines().filter(|l| l.starts_with("# model: ")).count(),
                    1,
                    "{stem}: placeholder"
                );
            }
            "pwk-spec-reviewer" | "pwk-tracing-reviewer" => {
                assert_eq!(role.thinking, None, "{stem}");
                assert_eq!(role.max_turns, Some(40), "{stem}");
                assert!(!fm.contains("# model:"), "{stem}");
            }
            "pwk-recon-scout" => {
                assert_eq!((role.thinking.as_deref(), role.max_turns), (None, None));
                assert!(!fm.contains("model"), "the scout never gets a model");
            }
            other => panic!("unexpected role {other}"),
        }
    }
}

#[test]
fn bodies_are_provider_neutral_and_read_only() {
    for (name, _, role) in roles_on_disk() {
        for call in ["subagent(", "Agent(", "Task(", "SubagentWorkflow("] {
            assert!(
                !role.body.contains(call),
                "{name}: provider-specific invocation {call}"
            );
        }
        let lower = role.body.to_lowercase();
        assert!(lower.contains("read-only"), "{name}");
        assert!(lower.contains("report"), "{name}");
        assert!(!lower.contains("write/edit files"), "{name}");
    }
}

#[test]
fn scout_map_sections_in_order_and_terminal_lines() {
    let (_, role) = role("pwk-recon-scout");
    let headings: Vec<&str> = role
        .body
        .lines()
        .filter(|l| l.starts_with("### "))
        .collect();
    assert_eq!(
        headings,
        [
            "### Relevant files",
            "### Existing patterns",
            "### Call sites",
            "### Test layout",
            "### Gotchas"
        ]
    );
    assert!(role.body.starts_with("# PWK Recon Scout\n"));
    assert!(role.body.contains("`Scout: complete`"));
    assert!(role.body.contains("`Scout: unavailable — <reason>`"));
    assert!(
        role.body.contains("file:line"),
        "a citation for every claim"
    );
    for section in [
        "## Authority boundary",
        "## Inputs",
        "## Hard rules",
        "## When you finish",
        "## Failure modes",
    ] {
        assert!(role.body.contains(&format!("\n{section}\n")), "{section}");
    }
}

#[test]
fn reviewers_share_one_conduct_block() {
    let marker = "## Your checklist\n";
    let blocks: Vec<(String, String)> = REVIEWERS
        .iter()
        .map(|n| {
            let (_, role) = role(n);
            let end = role
                .body
                .find(marker)
                .unwrap_or_else(|| panic!("{n}: no `## Your checklist`"))
                + marker.len();
            (n.to_string(), role.body[..end].to_string())
        })
        .collect();
    for (name, block) in &blocks[1..] {
        assert_eq!(
            block, &blocks[0].1,
            "{name}: conduct block differs from {}",
            blocks[0].0
        );
    }
    let block = &blocks[0].1;
    assert!(block.starts_with("# PWK Reviewer\n"));
    for must in [
        "read-only",
        "Report findings only",
        "## Authority boundary",
        "## Reporting contract",
        "## Working from the packet",
        "`path:line`",
        "`No findings`",
        "An empty or missing report is not a valid outcome",
        "did not cover",
    ] {
        assert!(block.contains(must), "conduct block lacks {must:?}");
    }
}

/// After the conduct block: exactly one H3, the role's own checklist, last.
fn checklist(name: &str) -> String {
    let (_, role) = role(name);
    let start = role.body.find("## Your checklist\n").unwrap() + "## Your checklist\n".len();
    let rest = role.body[start..].to_string();
    let h3: Vec<&str> = rest.lines().filter(|l| l.starts_with("### ")).collect();
    assert_eq!(h3.len(), 1, "{name}: one checklist heading, got {h3:?}");
    assert!(
        !rest
            .lines()
            .any(|l| l.starts_with("## ") || l.starts_with("# ")),
        "{name}: checklist comes last"
    );
    assert!(rest.trim().len() > 40, "{name}: a real checklist");
    rest
}

#[test]
fn spec_checklist_has_the_coverage_table() {
    let c = checklist("pwk-spec-reviewer");
    assert!(c.contains("### Spec alignment\n"));
    assert!(c.contains("| R# | Verdict | Evidence |"));
    for verdict in ["`covered`", "`gap`", "`scope-creep`"] {
        assert!(c.contains(verdict), "{verdict}");
    }
    assert!(c.contains("## Requirement N"));
}

#[test]
fn tracing_and_smell_checklists() {
    let t = checklist("pwk-tracing-reviewer");
    assert!(t.contains("### Code tracing\n"));
    for item in ["untested branch", "dead branch", "broken trace"] {
        assert!(t.contains(item), "{item}");
    }
    let s = checklist("pwk-smell-reviewer");
    assert!(s.contains("### Code smells\n"));
    for item in [
        "Shallow modules",
        "Duplication",
        "Missing seams or premature abstraction",
        "Naming",
        "Magic values",
        "Dead code",
    ] {
        assert!(s.contains(item), "{item}");
    }
}

#[test]
fn hazard_checklist_has_the_seven_items_answered_safe_or_triggered() {
    let c = checklist("pwk-hazard-reviewer");
    assert!(c.contains("### Production hazards — audit each changed file\n"));
    assert!(c.contains("`[SAFE]`") && c.contains("`[TRIGGERED]`"));
    let items = [
        "Unbounded operations",
        "Missing indexes",
        "Unbounded concurrency",
        "Long-running transactions",
        "Query/command interpolation",
        "Unrestricted uploads or temp flooding",
        "Silent swallowing loops",
    ];
    for (i, item) in items.iter().enumerate() {
        let line = format!("{}. **{item}**", i + 1);
        assert!(c.contains(&line), "missing or out of order: {line}");
    }
    assert!(c.contains("## Production-risk areas"));
}
