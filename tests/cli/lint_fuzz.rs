//! Property test: arbitrary bytes as a role file never panic the linter, and every
//! reported position lies inside the file.
//!
//! Default: a few hundred cases (a few seconds). For a long run:
//! `PWK_FUZZ_SECS=600 cargo test --release --test cli lint_fuzz -- --nocapture`
//! (or `PWK_FUZZ_CASES=N` for a fixed number of cases per round).

use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use pwk::cli::Host;
use pwk::lint::render::{RenderOptions, render};
use pwk::lint::{FileReport, LintReport, check_doc};
use pwk::role::RoleDoc;

/// Pieces of role files, valid and broken, that the generator strings together.
const FRAGMENTS: &[&str] = &[
    "---\n",
    "---\r\n",
    "---",
    "...\n",
    "--- x\n",
    "... y\n",
    "\u{feff}",
    "\r\n",
    "\n",
    "\t",
    "  ",
    "name: pwk-a\n",
    "name: A B:c\n",
    "name:\n",
    "description: d\n",
    "description: \"\"\n",
    "description: a: b\n",
    "tools: read, grep, find, ls\n",
    "tools: Read, all, *\n",
    "tools:\n  - read\n",
    "\t- grep\n",
    "tools: [read, {a: b}]\n",
    "tols: read\n",
    "allowed_tools: x\n",
    "max_turns: 20\n",
    "max_turns: \"20\"\n",
    "max_turns: -1\n",
    "max_turns: 2.5\n",
    "thinking: low\n",
    "thinking: med\n",
    "model: a b\n",
    "model: haiku\n",
    "spawning: \"true\"\n",
    "spawning: yes\n",
    "skill: x\n",
    "cli: claude\n",
    "cli-model: m\n",
    "disable-model-invocation: true\n",
    "# model: <fast-tier>\n",
    "a: &x [1]\n",
    "b: *x\n",
    "!!str t\n",
    "? [a]\n: b\n",
    "|\n  block\n",
    ">-\n folded\n",
    "'unterminated\n",
    "\"esc \\u00e9 \\\"\n",
    "日本語: 🎉\n",
    "x-owner: me\n",
    "acme.k: v\n",
    "key: {a: [b, c]}\n",
    ": \n",
    "- a\n",
    "just text\n",
    "name: x\nname: y\n",
    "# Body\n",
    "\u{0}",
    "\u{2028}",
    "é",
    "\r",
];

fn role_like() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => proptest::sample::select(FRAGMENTS).prop_map(|s| s.as_bytes().to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 0..6),
    ];
    proptest::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

fn any_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => role_like(),
        1 => proptest::collection::vec(any::<u8>(), 0..512),
    ]
}

const HOSTS: [Host; 4] = [Host::Pwk, Host::Tintinweb, Host::Nicobailon, Host::Herdr];

fn check_one(bytes: &[u8], host_index: usize) -> Result<(), TestCaseError> {
    let host = HOSTS[host_index % HOSTS.len()];
    let doc = RoleDoc::parse("fuzz/role.md", bytes);
    let diags = check_doc(&doc, host);
    let text = &doc.text;
    let lines: Vec<&str> = text.split('\n').collect();
    let within = |line: usize, column: usize| -> bool {
        line >= 1
            && line <= lines.len()
            && column >= 1
            && column <= lines[line - 1].chars().count() + 1
    };
    for d in &diags {
        prop_assert!(
            d.span.start <= d.span.end && d.span.end <= text.len(),
            "{d:?}"
        );
        prop_assert!(
            text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end),
            "{d:?}"
        );
        prop_assert!(
            within(d.start.line, d.start.column),
            "start outside the file: {d:?}"
        );
        prop_assert!(
            within(d.end.line, d.end.column),
            "end outside the file: {d:?}"
        );
        prop_assert!(d.start <= d.end, "{d:?}");
        for r in &d.related {
            prop_assert!(
                within(r.start.line, r.start.column) && within(r.end.line, r.end.column),
                "{r:?}"
            );
        }
    }
    // Every renderer copes with whatever was found.
    let report = LintReport {
        files: vec![FileReport {
            path: doc.path.clone(),
            diagnostics: diags,
            text: Some(doc.text.clone()),
        }],
        failures: Vec::new(),
    };
    let show = |p: &std::path::Path| p.display().to_string();
    let opts = RenderOptions {
        show_path: &show,
        color: false,
        width: 100,
    };
    for f in [
        pwk::cli::LintFormat::Human,
        pwk::cli::LintFormat::Json,
        pwk::cli::LintFormat::Sarif,
        pwk::cli::LintFormat::Github,
    ] {
        let _ = render(f, &report, &opts);
    }
    Ok(())
}

#[test]
fn arbitrary_bytes_never_panic_and_positions_stay_inside() {
    let cases: u32 = std::env::var("PWK_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let budget = std::env::var("PWK_FUZZ_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_secs);
    let started = Instant::now();
    let mut executed: u64 = 0;
    let mut round: u64 = 0;
    loop {
        let mut runner = TestRunner::new(Config {
            cases: if budget.is_some() {
                cases.max(2000)
            } else {
                cases
            },
            failure_persistence: None,
            rng_seed: proptest::test_runner::RngSeed::Fixed(
                round.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5eed,
            ),
            ..Config::default()
        });
        let count = std::sync::atomic::AtomicU64::new(0);
        let result = runner.run(&(any_input(), 0usize..4), |(bytes, host)| {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            check_one(&bytes, host)
        });
        executed += count.into_inner();
        if let Err(e) = result {
            panic!("after {executed} executions: {e}");
        }
        round += 1;
        match budget {
            Some(b) if started.elapsed() < b => continue,
            _ => break,
        }
    }
    eprintln!(
        "lint fuzz: {executed} executions in {:.1}s ({round} rounds)",
        started.elapsed().as_secs_f64()
    );
}
