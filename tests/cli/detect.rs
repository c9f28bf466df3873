//! `--host auto`: what decides which host a role file is linted for, and the run's
//! account of it.
//!
//! - A tree holding a project for each pi host (tintinweb, nicobailon, herdr,
//!   pi-example, subagents-lite: each with its settings as that host writes them) and
//!   one for each host beyond pi (Claude Code, its plugin, OpenCode, Gemini CLI,
//!   Copilot), linted in one run without
//!   `--host`: each project is linted for its own host, and the run says why, once
//!   per decision (stderr for people; `host.decisions` in JSON, SARIF's property
//!   bag).
//! - Every detection source × the hosts it names, generated: each fires on its
//!   fixture and stays quiet on a near miss (a table, snapshotted).
//! - The hosts' own settings writers (run by the host oracle) write what detection
//!   reads.

use std::path::Path;

use serde_json::Value;

use crate::support::{TestEnv, diagnostics, findings, json, repo_root, run};

/// A role every pi host loads, with no key only one host reads (so the settings,
/// not the keys, decide).
const PLAIN: &str = "---\nname: scout\ndescription: Finds the files a change touches.\ntools: read, grep\n---\nList the files.\n";

/// How the four projects' settings look as each host (or pi, installing it) writes
/// them: pi's settings via `SettingsManager` (`JSON.stringify(settings, null, 2)`,
/// @earendil-works/pi-coding-agent@1.6.0 dist/core/settings-manager.js:471),
/// tintinweb's via `saveSettings` (`JSON.stringify(s, null, 2)`, no newline,
/// @tintinweb/pi-subagents@0.14.1 src/settings.ts:186-192), nicobailon's agent
/// override under `subagents` in pi's settings (pi-subagents@0.67.0
/// src/agents/agents.ts:1567-1584). `oracle_writers_write_what_detection_reads`
/// checks these against the writers themselves.
fn write_tree(env: &TestEnv) {
    std::fs::create_dir_all(env.path(".git")).unwrap();
    // tintinweb: `/agents` → Settings wrote its own file; the role has no `name`
    // (tintinweb falls back to the file name; the PWK contract requires it).
    env.write(
        "tintin/.pi/subagents.json",
        "{\n  \"maxConcurrent\": 2,\n  \"defaultJoinMode\": \"smart\"\n}",
    );
    env.write(
        "tintin/.pi/agents/reviewer.md",
        "---\ndescription: Reviews a diff.\ntools: read, grep\n---\nReview it.\n",
    );
    // nicobailon: `pi install -l npm:pi-subagents`, then an agent override.
    env.write(
        "nico/.pi/settings.json",
        "{\n  \"packages\": [\n    \"npm:pi-subagents\"\n  ],\n  \"subagents\": {\n    \"agentOverrides\": {\n      \"scout\": {\n        \"model\": \"anthropic/claude-haiku-4-5\"\n      }\n    }\n  }\n}",
    );
    env.write("nico/.agents/agents/scout.md", PLAIN);
    // herdr: `pi install -l git:github.com/giuseppecrj/pi-herdr-agents@v1.3.0`; a
    // project role without `description` (optional there, required by the contract).
    env.write(
        "herdr/.pi/settings.json",
        "{\n  \"packages\": [\n    \"git:github.com/giuseppecrj/pi-herdr-agents@v1.3.0\"\n  ]\n}",
    );
    env.write(
        "herdr/.pi/agents/worker.md",
        "---\nname: worker\ntools: read, grep\n---\nDo the work.\n",
    );
    // pi's example extension, copied into the project as its README says; it reads
    // only `name`, `description`, `tools` and `model`.
    let example = repo_root().join(
        ".pi-test/pi16/node_modules/@earendil-works/pi-coding-agent/examples/extensions/subagent",
    );
    for f in ["index.ts", "agents.ts"] {
        let text = std::fs::read(example.join(f)).unwrap_or_else(|_| b"// vendored\n".to_vec());
        env.write(&format!("example/.pi/extensions/subagent/{f}"), text);
    }
    env.write(
        "example/.pi/agents/helper.md",
        "---\nname: helper\ndescription: Helps.\ntools: read\nmax_turns: 3\n---\nHelp.\n",
    );
    // subagents-lite: `pi install -l npm:@iiwate/pi-subagents-lite`.
    env.write(
        "lite/.pi/settings.json",
        "{\n  \"packages\": [\n    \"npm:@iiwate/pi-subagents-lite\"\n  ]\n}",
    );
    env.write("lite/.pi/agents/scout.md", PLAIN);
    // The hosts beyond pi: each reads only its own directory (a Claude Code plugin:
    // the `agents/` beside its manifest).
    let agent =
        "---\nname: scout\ndescription: Finds the files a change touches.\n---\nList the files.\n";
    env.write("claude/.claude/agents/scout.md", agent);
    env.write(
        "plugin/.claude-plugin/plugin.json",
        "{\n  \"name\": \"scouting\"\n}\n",
    );
    env.write("plugin/agents/scout.md", agent);
    env.write(
        "oc/.opencode/agents/scout.md",
        "---\ndescription: Finds the files a change touches.\n---\nList the files.\n",
    );
    env.write("gem/.gemini/agents/scout.md", agent);
    env.write(
        "gh/.github/agents/scout.agent.md",
        "---\ndescription: Finds the files a change touches.\n---\nList the files.\n",
    );
}

/// The pi projects of the tree (their settings decide).
const PI_DIRS: [&str; 5] = [
    "tintin/.pi/agents",
    "nico/.agents/agents",
    "herdr/.pi/agents",
    "example/.pi/agents",
    "lite/.pi/agents",
];

/// Every project of the tree: the pi ones, then one a host beyond pi.
const TREE_DIRS: [&str; 10] = [
    PI_DIRS[0],
    PI_DIRS[1],
    PI_DIRS[2],
    PI_DIRS[3],
    PI_DIRS[4],
    "claude/.claude/agents",
    "plugin/agents",
    "oc/.opencode/agents",
    "gem/.gemini/agents",
    "gh/.github/agents",
];

/// One run, no `--host`: each project of the tree (every pi host, every host beyond
/// pi) is linted for its own host, and the run says why, one line per decision.
#[test]
fn each_project_in_a_tree_is_linted_for_its_own_host() {
    let env = TestEnv::new();
    write_tree(&env);
    let doc = json(&run(env
        .pwk()
        .args(["lint", "--format", "json"])
        .args(TREE_DIRS)));
    let decisions = doc["host"]["decisions"].as_array().unwrap();
    let got: Vec<(String, String, String)> = decisions
        .iter()
        .map(|d| {
            (
                // The project: the scope's first component.
                d["scope"]
                    .as_str()
                    .unwrap()
                    .split('/')
                    .next()
                    .unwrap()
                    .to_string(),
                d["profile"]
                    .as_str()
                    .unwrap()
                    .split('@')
                    .next()
                    .unwrap()
                    .to_string(),
                d["basis"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        ("claude", "claude-code", "directory"),
        ("example", "pi-example", "settings"),
        ("gem", "gemini", "directory"),
        ("gh", "copilot", "directory"),
        ("herdr", "herdr", "settings"),
        ("lite", "subagents-lite", "settings"),
        ("nico", "nicobailon", "settings"),
        ("oc", "opencode", "directory"),
        ("plugin", "claude-code", "settings"),
        ("tintin", "tintinweb", "settings"),
    ]
    .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()));
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(sorted, want, "{doc}");
    // Each project's findings are its own host's: nothing about the missing `name` or
    // `description` (the PWK contract's), pi-example ignores `max_turns`.
    let rules: Vec<(String, String)> = findings(&doc)
        .into_iter()
        .map(|f| (f.path, f.rule))
        .collect();
    assert!(
        !rules
            .iter()
            .any(|(_, r)| r == "missing-name" || r == "missing-description"),
        "{rules:?}"
    );
    assert!(
        rules
            .iter()
            .any(|(p, r)| p.starts_with("example/") && r.contains("key")),
        "{rules:?}"
    );
    // For people: the findings on stdout, the account on stderr, once per decision.
    let human = run(env.pwk().arg("lint").args(TREE_DIRS));
    assert_eq!(
        human.stderr.lines().count(),
        TREE_DIRS.len(),
        "{}",
        human.stderr
    );
    env.insta_settings().bind(|| {
        insta::assert_snapshot!(
            "tree_of_every_host",
            format!(
                "$ pwk lint {}\nexit: {}\n--- stderr\n{}--- stdout\n{}",
                TREE_DIRS.join(" "),
                human.code,
                human.stderr,
                human.stdout
            )
        );
    });
    // SARIF carries the same decisions as data.
    let sarif = json(&run(env
        .pwk()
        .args(["lint", "--format", "sarif"])
        .args(TREE_DIRS)));
    assert_eq!(
        sarif["runs"][0]["properties"]["hostDecisions"]
            .as_array()
            .map(Vec::len),
        Some(TREE_DIRS.len()),
        "{sarif}"
    );
    // `--quiet` says nothing but errors.
    let quiet = run(env.pwk().args(["lint", "--quiet"]).args(TREE_DIRS));
    assert_eq!(quiet.stderr, "", "{}", quiet.stderr);
    // Without the settings the same files fall to the PWK contract, which says
    // which hosts load them anyway and how to name one.
    for f in [
        "tintin/.pi/subagents.json",
        "nico/.pi/settings.json",
        "herdr/.pi/settings.json",
        "example/.pi/extensions/subagent/index.ts",
        "lite/.pi/settings.json",
    ] {
        std::fs::remove_file(env.path(f)).unwrap();
    }
    let bare = json(&run(env
        .pwk()
        .args(["lint", "--format", "json"])
        .args(PI_DIRS)));
    assert_eq!(bare["host"]["profile"], "pwk", "{bare}");
    let contract: Vec<&Value> = diagnostics(&bare)
        .iter()
        .filter(|d| d["rule"] == "missing-name" || d["rule"] == "missing-description")
        .collect();
    assert_eq!(contract.len(), 2, "{bare}");
    for d in contract {
        let help = d["help"].as_str().unwrap();
        assert!(
            d["message"].as_str().unwrap().contains("load it anyway")
                && help.contains("--host tintinweb")
                && help.contains("host = \"tintinweb\""),
            "{d}"
        );
    }
}

/// One detection source, for one host: the files that make it fire, and the near
/// miss that must not.
struct Source {
    name: &'static str,
    host: &'static str,
    basis: &'static str,
    /// The role file linted.
    file: &'static str,
    role: &'static str,
    fires: &'static [(&'static str, &'static str)],
    near_miss: &'static [(&'static str, &'static str)],
}

const PI_SETTINGS: &str = ".pi/settings.json";

fn sources() -> Vec<Source> {
    let role = ".pi/agents/r.md";
    let shared = ".agents/agents/r.md";
    vec![
        Source {
            name: "pi packages (npm)",
            host: "tintinweb",
            basis: "settings",
            file: role,
            role: PLAIN,
            fires: &[(
                PI_SETTINGS,
                r#"{"packages": ["npm:@tintinweb/pi-subagents@0.18.0"]}"#,
            )],
            near_miss: &[(
                PI_SETTINGS,
                r#"{"packages": ["npm:@tintinweb/pi-subagents-extras"]}"#,
            )],
        },
        Source {
            name: "pi packages (npm)",
            host: "nicobailon",
            basis: "settings",
            file: shared,
            role: PLAIN,
            fires: &[(
                PI_SETTINGS,
                r#"{"packages": [{"source": "npm:pi-subagents"}]}"#,
            )],
            near_miss: &[(PI_SETTINGS, r#"{"packages": "npm:pi-subagents"}"#)],
        },
        Source {
            name: "pi packages (git)",
            host: "herdr",
            basis: "settings",
            file: role,
            role: PLAIN,
            fires: &[(
                PI_SETTINGS,
                r#"{"packages": ["git:github.com/giuseppecrj/pi-herdr-agents@v1.3.0"]}"#,
            )],
            near_miss: &[(
                PI_SETTINGS,
                r#"{"extensions": ["git:github.com/giuseppecrj/pi-herdr-agents"]}"#,
            )],
        },
        Source {
            name: "pi packages (agent dir)",
            host: "nicobailon",
            basis: "settings",
            file: role,
            role: PLAIN,
            fires: &[(
                "home/.pi/agent/settings.json",
                r#"{"packages": ["npm:pi-subagents"]}"#,
            )],
            near_miss: &[(
                "home/.pi/settings.json",
                r#"{"packages": ["npm:pi-subagents"]}"#,
            )],
        },
        Source {
            name: "host's own settings",
            host: "tintinweb",
            basis: "settings",
            file: role,
            role: PLAIN,
            fires: &[(".pi/subagents.json", "{\n  \"maxConcurrent\": 2\n}")],
            near_miss: &[(".pi/subagents/run.json", "{}")],
        },
        Source {
            name: "host's own settings (agent dir)",
            host: "tintinweb",
            basis: "settings",
            file: shared,
            role: PLAIN,
            fires: &[("home/.pi/agent/subagents.json", "{}")],
            near_miss: &[("home/.pi/agent/subagent.json", "{}")],
        },
        Source {
            name: "host's own settings",
            host: "nicobailon",
            basis: "settings",
            file: shared,
            role: PLAIN,
            fires: &[(PI_SETTINGS, r#"{"subagents": {"agentOverrides": {}}}"#)],
            near_miss: &[(PI_SETTINGS, r#"{"subagents": ["scout"]}"#)],
        },
        Source {
            name: "vendored example extension",
            host: "pi-example",
            basis: "settings",
            file: role,
            role: PLAIN,
            fires: &[
                (".pi/extensions/subagent/index.ts", "// index\n"),
                (".pi/extensions/subagent/agents.ts", "// agents\n"),
            ],
            near_miss: &[(".pi/extensions/subagent/index.ts", "// index\n")],
        },
        Source {
            name: "Claude Code plugin manifest",
            host: "claude-code",
            basis: "settings",
            file: "plugin/agents/r.md",
            role: PLAIN,
            fires: &[("plugin/.claude-plugin/plugin.json", r#"{"name": "p"}"#)],
            near_miss: &[("plugin/claude-plugin/plugin.json", r#"{"name": "p"}"#)],
        },
        Source {
            name: "Claude Code plugin manifest (agents path)",
            host: "claude-code",
            basis: "settings",
            file: "plugin/roles/r.md",
            role: PLAIN,
            fires: &[(
                "plugin/.claude-plugin/plugin.json",
                r#"{"name": "p", "agents": "./roles/"}"#,
            )],
            near_miss: &[(
                "plugin/.claude-plugin/plugin.json",
                r#"{"name": "p", "agents": "./other/"}"#,
            )],
        },
        Source {
            name: "host's own directory",
            host: "claude-code",
            basis: "directory",
            file: ".claude/agents/r.md",
            role: PLAIN,
            fires: &[],
            near_miss: &[],
        },
        Source {
            name: "host's own directory",
            host: "opencode",
            basis: "directory",
            file: ".opencode/agents/r.md",
            role: PLAIN,
            fires: &[],
            near_miss: &[],
        },
        Source {
            name: "host's own directory",
            host: "gemini",
            basis: "directory",
            file: ".gemini/agents/r.md",
            role: PLAIN,
            fires: &[],
            near_miss: &[],
        },
        Source {
            name: "host's own directory",
            host: "copilot",
            basis: "directory",
            file: ".github/agents/r.agent.md",
            role: PLAIN,
            fires: &[],
            near_miss: &[],
        },
        Source {
            name: "the file's own keys",
            host: "tintinweb",
            basis: "keys",
            file: role,
            role: "---\nname: r\ndescription: d\ntools: read\nprompt_mode: append\n---\nBody.\n",
            fires: &[],
            near_miss: &[],
        },
        Source {
            name: "the file's own keys",
            host: "nicobailon",
            basis: "keys",
            file: shared,
            role: "---\nname: r\ndescription: d\ntools: read\ntoolBudget: {soft: 5, hard: 8}\n---\nBody.\n",
            fires: &[],
            near_miss: &[],
        },
        Source {
            name: "the file's own keys",
            host: "herdr",
            basis: "keys",
            file: role,
            role: "---\nname: r\ndescription: d\ntools: read\npersistent: true\n---\nBody.\n",
            fires: &[],
            near_miss: &[],
        },
    ]
}

/// The near miss of a directory or keys source: the same role one step away (a
/// directory no host owns; keys of two hosts, or of the PWK contract only; a key of a
/// host that does not read the directory).
fn near_miss_file(s: &Source) -> (&'static str, &'static str) {
    match (s.basis, s.host) {
        ("directory", "copilot") => ("github/agents/r.agent.md", s.role),
        ("directory", _) => (
            match s.host {
                "claude-code" => "claude/agents/r.md",
                "opencode" => ".opencode/r.md",
                _ => "gemini/agents/r.md",
            },
            s.role,
        ),
        ("keys", "tintinweb") => (
            s.file,
            "---\nname: r\ndescription: d\ntools: read\nprompt_mode: append\ntoolBudget: {soft: 5}\n---\nBody.\n",
        ),
        ("keys", "nicobailon") => (
            s.file,
            "---\nname: r\ndescription: d\ntools: read\nsystemPromptMode: append\n---\nBody.\n",
        ),
        // herdr never reads `.agents/agents/`.
        ("keys", _) => (".agents/agents/r.md", s.role),
        _ => (s.file, s.role),
    }
}

/// What `pwk lint` (no `--host`) decides for `file` in a project holding `files`:
/// (profile's host, basis).
fn decide(files: &[(&str, &str)], file: &str, role: &str) -> (String, String) {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    for (p, text) in files {
        env.write(p, text);
    }
    env.write(file, role);
    let doc = json(&run(env.pwk().args(["lint", "--format", "json", file])));
    let d = &doc["host"]["decisions"][0];
    (
        d["profile"]
            .as_str()
            .unwrap_or("none")
            .split('@')
            .next()
            .unwrap()
            .to_string(),
        d["basis"].as_str().unwrap_or("none").to_string(),
    )
}

/// Each detection source names its host on its fixture and not on its near miss;
/// the table (source × host, what fired, what the near miss gave) is the snapshot.
#[test]
fn every_detection_source_fires_and_stays_quiet() {
    let mut table = String::from(
        "| source | host | fixture | decided | near miss | decided |\n|---|---|---|---|---|---|\n",
    );
    let mut wrong = Vec::new();
    for s in sources() {
        let fired = decide(s.fires, s.file, s.role);
        let (miss_file, miss_role) = near_miss_file(&s);
        let quiet = decide(s.near_miss, miss_file, miss_role);
        if fired != (s.host.to_string(), s.basis.to_string()) {
            wrong.push(format!("{} / {}: fixture gave {fired:?}", s.name, s.host));
        }
        if quiet.0 == s.host {
            wrong.push(format!("{} / {}: near miss gave {quiet:?}", s.name, s.host));
        }
        let shown = |files: &[(&str, &str)], file: &str| -> String {
            let mut v: Vec<String> = files.iter().map(|(p, _)| format!("`{p}`")).collect();
            v.push(format!("`{file}`"));
            v.join(" + ")
        };
        table.push_str(&format!(
            "| {} | {} | {} | {} ({}) | {} | {} ({}) |\n",
            s.name,
            s.host,
            shown(s.fires, s.file),
            fired.0,
            fired.1,
            shown(s.near_miss, miss_file),
            quiet.0,
            quiet.1
        ));
    }
    assert!(wrong.is_empty(), "{}\n\n{table}", wrong.join("\n"));
    insta::assert_snapshot!("detection_sources", table);
}

/// One host's marker: the file whose presence (or, when pwk reads it, whose content)
/// names the host, staged alone in a project beside one role.
struct Marker {
    host: &'static str,
    /// The role file linted.
    role: &'static str,
    /// The marker, and what it holds when present.
    path: &'static str,
    content: &'static str,
    /// Files staged beside it in every variant (the example extension's other half).
    beside: &'static [(&'static str, &'static str)],
    /// pwk parses the marker (JSON), so its content counts; else only its presence.
    read: bool,
    /// A marker pwk cannot use is named in the run's account.
    said: bool,
}

fn markers() -> Vec<Marker> {
    let role = ".pi/agents/r.md";
    let shared = ".agents/agents/r.md";
    let m = |host, role, path, content, read, said| Marker {
        host,
        role,
        path,
        content,
        beside: &[],
        read,
        said,
    };
    vec![
        m("tintinweb", role, ".pi/subagents.json", "{}", false, true),
        m(
            "tintinweb",
            shared,
            "home/.pi/agent/subagents.json",
            "{\n  \"maxConcurrent\": 4\n}",
            false,
            true,
        ),
        m(
            "nicobailon",
            shared,
            PI_SETTINGS,
            r#"{"packages": ["npm:pi-subagents"]}"#,
            true,
            true,
        ),
        m(
            "nicobailon",
            shared,
            PI_SETTINGS,
            r#"{"subagents": {"agentOverrides": {}}}"#,
            true,
            true,
        ),
        m(
            "herdr",
            role,
            PI_SETTINGS,
            r#"{"packages": ["git:github.com/giuseppecrj/pi-herdr-agents@v1.3.0"]}"#,
            true,
            true,
        ),
        Marker {
            beside: &[(".pi/extensions/subagent/agents.ts", "// agents\n")],
            ..m(
                "pi-example",
                role,
                ".pi/extensions/subagent/index.ts",
                "// index\n",
                false,
                true,
            )
        },
        Marker {
            beside: &[(".pi/extensions/subagent/index.ts", "// index\n")],
            ..m(
                "pi-example",
                role,
                ".pi/extensions/subagent/agents.ts",
                "// agents\n",
                false,
                true,
            )
        },
        m(
            "subagents-lite",
            role,
            PI_SETTINGS,
            r#"{"packages": ["npm:@iiwate/pi-subagents-lite@3.0.0"]}"#,
            true,
            true,
        ),
        m(
            "subagents-lite",
            role,
            "home/.pi/agent/settings.json",
            r#"{"packages": ["npm:@iiwate/pi-subagents-lite"]}"#,
            true,
            true,
        ),
        m(
            "subagents-lite",
            role,
            "home/.pi/agent/subagents-lite.json",
            "{}",
            false,
            true,
        ),
        // A plugin's manifest is asked for before the project's settings; one pwk
        // cannot use is not a plugin (not said: nothing else was asked of it).
        m(
            "claude-code",
            "plugin/agents/r.md",
            "plugin/.claude-plugin/plugin.json",
            r#"{"name": "p"}"#,
            false,
            false,
        ),
        m(
            "claude-code",
            "plugin/roles/r.md",
            "plugin/.claude-plugin/plugin.json",
            r#"{"name": "p", "agents": ["./roles/"]}"#,
            true,
            false,
        ),
    ]
}

/// What stands at a marker's path.
#[derive(Debug, Clone, Copy)]
enum Variant {
    Present,
    Absent,
    /// A directory by that name.
    Directory,
    /// A FIFO by that name: never opened (no run may stall on it).
    Fifo,
    /// A symbolic link to the marker's content.
    Symlink,
    /// A regular file that is not JSON.
    NotJson,
}

const VARIANTS: [Variant; 6] = [
    Variant::Present,
    Variant::Absent,
    Variant::Directory,
    Variant::Fifo,
    Variant::Symlink,
    Variant::NotJson,
];

/// Whether the marker's host is detected under `v`, and whether the account names
/// the marker: a marker only looked at counts as long as it is a file (a link to one
/// too: the host follows it); one pwk reads must also be one it can read (the bounded
/// reader does not follow links).
fn expected(m: &Marker, v: Variant) -> (bool, bool) {
    match v {
        Variant::Present => (true, false),
        Variant::Absent => (false, false),
        Variant::Directory | Variant::Fifo => (false, m.said),
        Variant::Symlink | Variant::NotJson if !m.read => (true, false),
        Variant::Symlink | Variant::NotJson => (false, m.said),
    }
}

/// Run `cmd`, failing the test if it runs longer than a minute (a FIFO opened for
/// reading would block forever).
fn run_bounded(cmd: &mut std::process::Command) -> crate::support::Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pwk");
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("pwk did not finish in 60 s: {cmd:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let out = child.wait_with_output().expect("output");
    crate::support::Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Each host's marker, present, absent, or there but unusable (a directory, a FIFO,
/// a link, not JSON), staged alone: the host is detected exactly when the marker is
/// one the host itself would read and pwk can, an unusable marker is named in the
/// run's one-line account, and no variant stalls the run. The table of decisions and
/// accounts is the snapshot.
#[test]
fn every_host_marker_present_absent_or_unusable() {
    let mut table =
        String::from("| host | marker | variant | decided | account |\n|---|---|---|---|---|\n");
    let mut wrong = Vec::new();
    for m in markers() {
        for v in VARIANTS {
            let env = TestEnv::new();
            std::fs::create_dir_all(env.path(".git")).unwrap();
            for (p, text) in m.beside {
                env.write(p, text);
            }
            env.write(m.role, PLAIN);
            let at = env.path(m.path);
            std::fs::create_dir_all(Path::new(&at).parent().unwrap()).unwrap();
            match v {
                Variant::Present => {
                    env.write(m.path, m.content);
                }
                Variant::Absent => {}
                Variant::Directory => std::fs::create_dir_all(&at).unwrap(),
                Variant::Fifo => {
                    let made = std::process::Command::new("mkfifo").arg(&at).status();
                    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", m.path);
                }
                Variant::Symlink => {
                    env.write("elsewhere/marker", m.content);
                    std::os::unix::fs::symlink(env.path("elsewhere/marker"), &at).unwrap();
                }
                Variant::NotJson => {
                    env.write(m.path, "{ not json\n");
                }
            }
            let out = run_bounded(env.pwk().args(["lint", m.role]));
            let doc = json(&run_bounded(
                env.pwk().args(["lint", "--format", "json", m.role]),
            ));
            let d = &doc["host"]["decisions"][0];
            let profile = d["profile"].as_str().unwrap_or("none");
            let host = profile.split('@').next().unwrap();
            let basis = d["basis"].as_str().unwrap_or("none");
            let account = out.stderr.trim_end();
            let (detected, said) = expected(&m, v);
            if (host == m.host) != detected {
                wrong.push(format!(
                    "{} {} {v:?}: decided {profile} ({basis})",
                    m.host, m.path
                ));
            }
            let named = account.contains(&format!("`{}`", m.path));
            if said && !named {
                wrong.push(format!(
                    "{} {} {v:?}: account does not name it: {account}",
                    m.host, m.path
                ));
            }
            if account.lines().count() != 1 {
                wrong.push(format!(
                    "{} {} {v:?}: not one line: {account}",
                    m.host, m.path
                ));
            }
            table.push_str(&format!(
                "| {} | `{}` | {v:?} | {profile} ({basis}) | {} |\n",
                m.host,
                m.path,
                account.replace('|', "\\|")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}\n\n{table}", wrong.join("\n"));
    insta::assert_snapshot!("host_markers", table);
}

/// The oracle launcher's node and hosts root, running this checkout's driver (the
/// launcher pins the checkout it was provisioned from).
fn oracle_here() -> Option<std::process::Command> {
    let launcher = crate::oracle::oracle_bin()?;
    let text = std::fs::read_to_string(&launcher).ok()?;
    let line = text.lines().find(|l| l.starts_with("exec "))?;
    let quoted: Vec<&str> = line.split('"').skip(1).step_by(2).collect();
    let (node, hosts_root) = (quoted.first()?, quoted.get(2)?);
    let mut cmd = std::process::Command::new(node);
    cmd.arg(repo_root().join("tests/oracle/driver.mjs"))
        .args(["--hosts-root", hosts_root]);
    Some(cmd)
}

/// The hosts' own settings writers (tintinweb's `/agents` → Settings, nicobailon's
/// agent override, `pi install -l` for herdr, pi's example extension copied in), run
/// by the host oracle on fresh projects: `pwk lint` with no `--host` then lints each
/// project for the host that wrote its settings.
#[test]
fn oracle_writers_write_what_detection_reads() {
    let Some(_) = oracle_here() else { return };
    let cases = [
        ("tintinweb@0.14.1", "own", "tintinweb", ".pi/subagents.json"),
        (
            "nicobailon@0.67.0",
            "own",
            "nicobailon",
            ".pi/settings.json",
        ),
        (
            "pi@1.6.0",
            "package:npm:pi-herdr-agents",
            "herdr",
            ".pi/settings.json",
        ),
        (
            "pi@1.6.0",
            "package:git:github.com/nicobailon/pi-subagents@v0.67.0",
            "nicobailon",
            ".pi/settings.json",
        ),
        (
            "pi@1.6.0",
            "example-extension",
            "pi-example",
            ".pi/extensions/subagent/agents.ts",
        ),
    ];
    for (writer, kind, host, file) in cases {
        let env = TestEnv::new();
        std::fs::create_dir_all(env.path(".git")).unwrap();
        env.write(".pi/agents/scout.md", PLAIN);
        let out = oracle_here()
            .unwrap()
            .args(["--host", writer, "--project"])
            .arg(env.root())
            .args(["--write-settings", kind])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{writer} {kind}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            doc["written"].as_array().unwrap().iter().any(|w| w == file),
            "{writer} {kind}: {doc}"
        );
        let lint = json(&run(env.pwk().args(["lint", "--format", "json"])));
        let d = &lint["host"]["decisions"][0];
        assert!(
            d["profile"]
                .as_str()
                .is_some_and(|p| p.starts_with(&format!("{host}@"))),
            "{writer} {kind}: {lint}"
        );
        assert_eq!(d["basis"], "settings", "{writer} {kind}: {lint}");
        assert!(
            Path::new(&env.path(file)).is_file(),
            "{writer} {kind}: {file}"
        );
    }
}

/// `pwk setup` with no host named writes the PWK contract's roles into the shared
/// `.agents/agents/` and says which readers of that directory pwk knows of and what
/// each does with them; with a host named it says nothing of the kind.
#[test]
fn setup_with_no_host_names_the_readers_of_the_shared_directory() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    let out = run(env.pwk().arg("setup"));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let readers: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("No host is named"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    for host in ["tintinweb@", "nicobailon@"] {
        assert!(
            readers
                .iter()
                .any(|l| l.trim_start().starts_with(host) && l.contains("loads all 5")),
            "{host}: {}",
            out.stdout
        );
    }
    assert!(
        readers
            .iter()
            .any(|l| l.contains("herdr@") && l.contains("does not read it")),
        "{}",
        out.stdout
    );
    let doc = json(&run(env
        .pwk()
        .args(["setup", "--check", "--format", "json"])));
    let names: Vec<&str> = doc["readers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["profile"].as_str().unwrap())
        .collect();
    assert!(names.len() >= 2, "{doc}");
    for r in doc["readers"].as_array().unwrap() {
        assert_eq!(r["skips"], serde_json::json!([]), "{r}");
    }
    // A host named: the roles are rendered for it; no readers' account.
    let named = TestEnv::new();
    std::fs::create_dir_all(named.path(".git")).unwrap();
    named.write(".pi/subagents.json", "{}");
    let out = run(named.pwk().arg("setup"));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("Readers of"), "{}", out.stdout);
}

/// What one run decided for a file: the profile's host, the basis, and the findings'
/// rules in order.
fn decision_of(doc: &Value) -> (String, String, Vec<String>) {
    let d = &doc["host"]["decisions"][0];
    // A host the configuration names is the run's profile, with no decision.
    let host = d["profile"]
        .as_str()
        .or(doc["host"]["profile"].as_str())
        .unwrap_or("none");
    (
        host.split('@').next().unwrap().to_string(),
        d["basis"].as_str().unwrap_or("none").to_string(),
        diagnostics(doc)
            .iter()
            .map(|x| x["rule"].as_str().unwrap_or("?").to_string())
            .collect(),
    )
}

/// Every way to name one role file is decided alike: from the project root, from
/// the file's own directory, from the directory above it and from a sibling
/// directory; bare, `./`-led, `../`-led and absolute; on the command line, as
/// `--stdin-filename`, to `config` (the profile it names) and to `convert` (the
/// host it converts from). Each detection
/// source, and the configuration's `host`, is asked through each spelling. (A bare name's directory was the empty path, which
/// `stat` refuses and an upward walk ends at at once: `pwk lint r.md` in a plugin's
/// `agents/` linted for the portable profile while `./r.md` was a Claude Code
/// agent, and `convert r.md` in `.claude/agents/` could not tell its host.)
#[test]
fn every_spelling_of_a_files_path_is_decided_alike() {
    let mut cases: Vec<Source> = sources()
        .into_iter()
        .filter(|s| s.basis != "keys")
        .collect();
    cases.push(Source {
        name: "the configuration's host",
        host: "herdr",
        basis: "configuration",
        file: ".pi/agents/r.md",
        role: PLAIN,
        fires: &[("pwk.toml", "host = \"herdr\"\n")],
        near_miss: &[],
    });
    let mut wrong = Vec::new();
    let mut asked = 0;
    for Source {
        name,
        host,
        fires,
        file,
        role,
        ..
    } in cases
    {
        let name = format!("{name} / {host}");
        let env = TestEnv::new();
        std::fs::create_dir_all(env.path(".git")).unwrap();
        std::fs::create_dir_all(env.path("elsewhere")).unwrap();
        for (p, text) in fires {
            env.write(p, text);
        }
        let abs = env.write(file, role);
        let abs = abs.to_str().unwrap();
        let (dir, base) = file.rsplit_once('/').unwrap_or((".", file));
        let mut spellings: Vec<(String, String)> = vec![
            (".".into(), file.into()),
            (".".into(), format!("./{file}")),
            (".".into(), abs.into()),
            (dir.into(), base.into()),
            (dir.into(), format!("./{base}")),
            (dir.into(), abs.into()),
            ("elsewhere".into(), format!("../{file}")),
            (".".into(), format!("elsewhere/../{file}")),
            (".".into(), format!("{dir}/./{base}")),
        ];
        if let Some((up, last)) = dir.rsplit_once('/') {
            spellings.push((up.into(), format!("{last}/{base}")));
        }
        let reference = decision_of(&json(&run(env
            .pwk()
            .args(["lint", "--format", "json", abs]))));
        if reference.0 != host {
            wrong.push(format!("{name}: `{abs}` from the root gave {reference:?}"));
        }
        for (cwd, arg) in &spellings {
            for stdin in [false, true] {
                let mut cmd = env.pwk();
                cmd.current_dir(env.path(cwd));
                let out = if stdin {
                    cmd.args(["lint", "--format", "json", "--stdin-filename", arg, "-"]);
                    crate::support::run_with_stdin(&mut cmd, role.as_bytes())
                } else {
                    run(cmd.args(["lint", "--format", "json", arg]))
                };
                asked += 1;
                let got = decision_of(&json(&out));
                if got != reference {
                    let how = if stdin { "--stdin-filename " } else { "" };
                    wrong.push(format!(
                        "{name}: `{how}{arg}` from `{cwd}` gave {got:?}, not {reference:?}"
                    ));
                }
            }
            // `config` names the profile the file is linted for.
            let doc = json(&run(env
                .pwk()
                .current_dir(env.path(cwd))
                .args(["config", "--format", "json", arg])));
            asked += 1;
            let profile = doc["profile"]["value"].as_str().unwrap_or("none");
            if profile.split('@').next() != Some(reference.0.as_str()) {
                wrong.push(format!(
                    "{name}: `config {arg}` from `{cwd}` gave {profile}, not {}",
                    reference.0
                ));
            }
            // `convert` reads the file as written for the same host.
            let to = if host == "opencode" {
                "claude-code"
            } else {
                "opencode"
            };
            let doc = json(&run(env.pwk().current_dir(env.path(cwd)).args([
                "convert",
                "--to",
                to,
                "--dry-run",
                "--format",
                "json",
                arg,
            ])));
            asked += 1;
            let from = doc["files"][0]["from"].as_str().unwrap_or("none");
            if from.split('@').next() != Some(reference.0.as_str()) {
                wrong.push(format!(
                    "{name}: `convert {arg}` from `{cwd}` read it as {from}, not {}: {}",
                    reference.0, doc["errors"]
                ));
            }
        }
    }
    assert!(asked >= 300, "only {asked} spellings asked");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
