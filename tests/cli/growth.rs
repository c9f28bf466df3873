//! Growth by class: for each input dimension a parser, matcher or renderer reads
//! (keys, flow items, line length, findings per line, suppressions, globs,
//! overrides, files, nesting depth), pwk's work counters ([`pwk::meter`], debug
//! builds: `PWK_METER=FILE`) and its output size at n and 8n must grow at most
//! about 8 times. Deterministic counts, not timings: a quadratic loop shows as 64×
//! whatever the machine's load (N6, N7, N8 were such loops).

use std::collections::BTreeMap;

use crate::support::{TestEnv, run};

/// What one run did: each work counter, and the bytes it printed.
fn metered(env: &TestEnv, args: &[&str]) -> BTreeMap<String, u64> {
    let meter = env.path("meter.json");
    let _ = std::fs::remove_file(&meter);
    let out = run(env.pwk().env("PWK_METER", &meter).args(args));
    assert_ne!(out.code, 101, "{args:?}: {}", out.stderr);
    let doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(&meter).unwrap_or_else(|e| panic!("{args:?}: no meter file ({e})")),
    )
    .unwrap();
    let mut counts: BTreeMap<String, u64> = doc
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| *k != "hwm_kb")
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    counts.insert(
        "output bytes".into(),
        (out.stdout.len() + out.stderr.len()) as u64,
    );
    counts
}

/// One input family: a name, and the project it builds for size `n`.
struct Family {
    name: &'static str,
    build: fn(&TestEnv, usize),
    /// The commands run over it.
    commands: &'static [&'static [&'static str]],
    /// The base size (8 times it is the large one).
    n: usize,
}

fn role(env: &TestEnv, frontmatter: &str, body: &str) {
    env.write(
        ".agents/agents/g.md",
        format!("---\n{frontmatter}---\n{body}\n"),
    );
}

const HEAD: &str = "name: g\ndescription: Reviews a diff.\ntools: read\n";

const LINT: &[&[&str]] = &[
    &["lint", "--format", "human"],
    &["lint", "--format", "json"],
    &["show", "g"],
];

const FAMILIES: &[Family] = &[
    Family {
        name: "keys in one flow mapping line (N6)",
        build: |env, n| {
            let keys: Vec<String> = (0..n).map(|i| format!("k{i}: v")).collect();
            role(env, &format!("{HEAD}x-f: {{{}}}\n", keys.join(", ")), "B");
        },
        commands: LINT,
        n: 400,
    },
    Family {
        name: "items in one flow sequence line (N6)",
        build: |env, n| {
            let items: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
            role(env, &format!("{HEAD}x-q: [{}]\n", items.join(", ")), "B");
        },
        commands: LINT,
        n: 400,
    },
    Family {
        name: "block keys",
        build: |env, n| {
            let keys: String = (0..n).map(|i| format!("x-k{i}: v\n")).collect();
            role(env, &format!("{HEAD}{keys}"), "B");
        },
        commands: LINT,
        n: 300,
    },
    Family {
        name: "findings on one line (N7)",
        build: |env, n| {
            let keys: Vec<String> = (0..n).map(|i| format!("u{i}: v")).collect();
            env.write(
                ".agents/agents/g.md",
                format!(
                    "---\n{{name: g, description: d, tools: read, {}}}\n---\nB\n",
                    keys.join(", ")
                ),
            );
        },
        commands: LINT,
        n: 150,
    },
    Family {
        // Claude Code keeps the last of repeated keys: pwk lints the document with
        // the earlier one commented out and moves each finding back to its line in
        // the file, one lookup each (a scan of the line each was quadratic).
        name: "findings on one line of a repaired document",
        build: |env, n| {
            let tools: Vec<String> = (0..n).map(|i| format!("Unknown{i}")).collect();
            env.write(
                ".claude/agents/g.md",
                format!(
                    "---\nname: g\ndescription: d\ndescription: Reviews a diff.\ntools: {}\n---\nB\n",
                    tools.join(", ")
                ),
            );
        },
        commands: &[
            &["lint", "--format", "json"],
            &["lint", "--format", "human"],
        ],
        n: 150,
    },
    Family {
        // A fix on each line, taken in one round: each edit is checked against the
        // edits already taken around it, not against every one.
        name: "a fix on each line (--fix)",
        build: |env, n| {
            let keys: String = (0..n).map(|i| format!("x-k{i}: v #c{i}\n")).collect();
            role(env, &format!("{HEAD}{keys}"), "B");
        },
        commands: &[&["lint", "--fix", "--unsafe-fixes", "--format", "json"]],
        n: 200,
    },
    Family {
        // One fix with an edit on each line (a CRLF file's line endings).
        name: "one fix, an edit on each line (--fix)",
        build: |env, n| {
            let keys: String = (0..n).map(|i| format!("x-k{i}: v\r\n")).collect();
            env.write(
                ".agents/agents/g.md",
                format!("---\r\n{}{keys}---\r\nB\r\n", HEAD.replace('\n', "\r\n")),
            );
        },
        commands: &[&["lint", "--fix", "--format", "json"]],
        n: 300,
    },
    Family {
        // Keys with comments of their own converted: each entry's comments and
        // output line found by a lookup.
        name: "commented keys (convert)",
        build: |env, n| {
            let keys: String = (0..n)
                .map(|i| format!("# about k{i}\nx-k{i}: v # trailing {i}\n"))
                .collect();
            env.write(
                ".claude/agents/g.md",
                format!("---\n{HEAD}{keys}---\nB\n").replace("tools: read", "tools: Read"),
            );
            std::fs::create_dir_all(env.path("out")).unwrap();
        },
        commands: &[&[
            "convert",
            "--to",
            "tintinweb",
            "--out",
            "out",
            ".claude/agents/g.md",
        ]],
        n: 200,
    },
    Family {
        name: "line length",
        build: |env, n| {
            let desc = "Reviews a diff carefully. ".repeat(n);
            role(
                env,
                &format!("name: g\ndescription: {desc}\ntools: read\nmax_turns: \"3\"\n"),
                &"word ".repeat(n),
            );
        },
        commands: LINT,
        n: 200,
    },
    Family {
        name: "suppressed findings",
        build: |env, n| {
            let keys: String = (0..n)
                .map(|i| format!("u{i}: v # pwk: ignore[unknown-key]\n"))
                .collect();
            role(env, &format!("{HEAD}{keys}"), "B");
        },
        commands: &[&["lint", "--format", "json"]],
        n: 200,
    },
    Family {
        name: "nesting depth (flow)",
        build: |env, n| {
            // Flow nesting: the text grows with the depth, not with its square.
            let y = format!("x-deep: {}1{}\n", "[".repeat(n), "]".repeat(n));
            role(env, &format!("{HEAD}{y}"), "B");
        },
        commands: LINT,
        n: 7,
    },
    Family {
        name: "exclude globs (N8)",
        build: |env, n| {
            let globs: Vec<String> = (0..n).map(|i| format!("\"y{i}/**/*.md\"")).collect();
            env.write("pwk.toml", format!("exclude = [{}]\n", globs.join(", ")));
            for f in 0..20 {
                env.write(
                    &format!(".agents/agents/r{f}.md"),
                    format!("---\nname: r{f}\ndescription: d\ntools: read\n---\nB\n"),
                );
            }
        },
        commands: &[&["lint", "--format", "json"]],
        n: 300,
    },
    Family {
        name: "files under exclude globs (N8)",
        build: |env, n| {
            let globs: Vec<String> = (0..200).map(|i| format!("\"y{i}/**/*.md\"")).collect();
            env.write("pwk.toml", format!("exclude = [{}]\n", globs.join(", ")));
            for f in 0..n {
                env.write(
                    &format!(".agents/agents/r{f}.md"),
                    format!("---\nname: r{f}\ndescription: d\ntools: read\n---\nB\n"),
                );
            }
        },
        commands: &[&["lint", "--format", "json"]],
        n: 10,
    },
    Family {
        name: "overrides",
        build: |env, n| {
            let mut toml = String::new();
            for i in 0..n {
                toml.push_str(&format!(
                    "[[overrides]]\nfiles = [\"z{i}/**/*.md\"]\n[overrides.rules]\nunknown-key = \"off\"\n"
                ));
            }
            env.write("pwk.toml", toml);
            for f in 0..20 {
                env.write(
                    &format!(".agents/agents/r{f}.md"),
                    format!("---\nname: r{f}\ndescription: d\ntools: read\nx-u: 1\n---\nB\n"),
                );
            }
        },
        commands: &[&["lint", "--format", "json"]],
        n: 200,
    },
    Family {
        // A Claude Code role naming n MCP tools of n servers, and settings with a
        // rule of each kind per server (exact, whole server, pattern) and n names
        // of tools it does not get: each rule a lookup, each pattern tried on its
        // own server's tools.
        name: "host settings deny rules x MCP tools",
        build: |env, n| {
            let tools: Vec<String> = (0..n).map(|i| format!("mcp__s{i}__t{i}")).collect();
            env.write(
                ".claude/agents/g.md",
                format!(
                    "---\nname: g\ndescription: d\ntools: Read, {}\n---\nB\n",
                    tools.join(", ")
                ),
            );
            let mut rules = Vec::new();
            for i in 0..n {
                rules.push(format!("mcp__s{i}__t{i}x"));
                rules.push(format!("mcp__s{i}__t*"));
                rules.push(format!("Other{i}"));
                if i % 2 == 0 {
                    rules.push(format!("mcp__s{i}"));
                }
            }
            env.write(
                ".claude/settings.json",
                serde_json::json!({"permissions": {"deny": rules}}).to_string(),
            );
        },
        commands: &[&["show", "g", "--format", "json"], &["show", "g"]],
        n: 200,
    },
];

/// Each counter at 8n within 8 times (with a quarter's slack) its count at n, plus
/// a constant for the fixed cost of a run.
#[test]
fn work_grows_linearly_in_every_input_dimension() {
    const SLACK: f64 = 8.0 * 1.25;
    const FIXED: u64 = 4096;
    let mut failures = Vec::new();
    let mut cells = 0;
    for fam in FAMILIES {
        let small = TestEnv::new();
        std::fs::create_dir(small.path(".git")).unwrap();
        (fam.build)(&small, fam.n);
        let large = TestEnv::new();
        std::fs::create_dir(large.path(".git")).unwrap();
        (fam.build)(&large, fam.n * 8);
        for args in fam.commands {
            let a = metered(&small, args);
            let b = metered(&large, args);
            for (counter, &at_n) in &a {
                cells += 1;
                let at_8n = b[counter];
                if at_n > 0 {
                    eprintln!(
                        "{:<40} {:<28} {counter:<13} {at_n:>9} -> {at_8n:>10} ({:.2}x)",
                        fam.name,
                        args.join(" "),
                        at_8n as f64 / at_n as f64
                    );
                }
                let bound = (at_n as f64 * SLACK) as u64 + FIXED;
                if at_8n > bound {
                    failures.push(format!(
                        "{} × `pwk {}` × {counter}: {at_n} at n={}, {at_8n} at 8n ({:.1}×; bound {bound})",
                        fam.name,
                        args.join(" "),
                        fam.n,
                        at_8n as f64 / at_n.max(1) as f64
                    ));
                }
            }
        }
    }
    eprintln!(
        "growth: {} families, {cells} (command × counter) checks",
        FAMILIES.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
