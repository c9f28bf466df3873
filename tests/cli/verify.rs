//! `pwk verify` against the real pinned agent CLIs (provisioned under `.host-test/`
//! by scripts/provision-hosts.sh; `PWK_TEST_CLI_ORACLE` names its launcher, whose Node
//! runs pwk's driver), on fixtures where each host loads, drops and misreads a role;
//! with a doctored profile (`PWK_DEBUG_PROFILE_PATCH`, debug builds only) so that verify
//! must report the disagreement; and under `strace` to show that nothing but loopback
//! was connected to. Without the provisioned hosts these tests record the skip (and
//! fail under `CI=true`, as every real-host test does).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{Output, TestEnv, json, run};

/// The provisioned hosts: (the `.host-test` root, the Node the launcher runs).
pub(crate) fn hosts() -> Option<(PathBuf, PathBuf)> {
    let launcher = crate::oracle::cli_oracle_bin()?;
    let text = std::fs::read_to_string(&launcher).unwrap();
    // `exec "<node>" "<driver>" --hosts-root "<root>" "$@"`
    let quoted: Vec<&str> = text.split('"').skip(1).step_by(2).collect();
    let node = PathBuf::from(quoted[0]);
    let root = PathBuf::from(quoted[2]);
    assert!(node.is_file() && root.is_dir(), "launcher {text}");
    Some((root, node))
}

/// Each CLI host's program in the provisioned install.
fn program(root: &Path, host: &str) -> PathBuf {
    let rel = match host {
        "claude-code" => "claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
        "copilot" => "copilot/node_modules/@github/copilot-linux-x64/copilot",
        "opencode" => "opencode/node_modules/opencode-linux-x64/bin/opencode",
        "gemini" => "gemini/node_modules/@google/gemini-cli/bundle/gemini.js",
        // pi extensions: the package directory (pi 1.6 is installed beside it).
        "tintinweb" => return root.join("tintinweb/node_modules/@tintinweb/pi-subagents"),
        "nicobailon" => return root.join("nicobailon/node_modules/pi-subagents"),
        // pi's example extension: the directory of its agents.ts, in the pinned pi 1.6.
        "pi-example" => return pi16(root).join("examples/extensions/subagent"),
        _ => unreachable!(),
    };
    root.join("cli").join(rel)
}

/// The pinned pi 1.6 package (installed beside tintinweb).
fn pi16(root: &Path) -> PathBuf {
    root.join("tintinweb/node_modules/@earendil-works/pi-coding-agent")
}

const HOSTS: [&str; 7] = [
    "claude-code",
    "opencode",
    "gemini",
    "copilot",
    "tintinweb",
    "nicobailon",
    "pi-example",
];

/// `pwk verify --format json` on `env` with every provisioned host named.
fn verify(env: &TestEnv, root: &Path, node: &Path, extra: &[&str]) -> Output {
    let mut cmd = env.pwk();
    cmd.args(["verify", "--format", "json", "--node"]).arg(node);
    for h in HOSTS {
        cmd.arg("--host-bin")
            .arg(format!("{h}={}", program(root, h).display()));
    }
    cmd.args(extra);
    run(&mut cmd)
}

/// (file, what the host does with it: `loads:<name>`, `drops`, `refuses-start`).
type Case = (&'static str, &'static str, &'static str);

/// Per host: a role it loads, one it drops, one it misreads (loads, but not as
/// written: a tool dropped, a name other than the file's, a repaired YAML line).
const CASES: &[(&str, &[Case])] = &[
    (
        "claude-code",
        &[
            (
                ".claude/agents/rev.md",
                "---\nname: rev\ndescription: Reviews code\ntools: Read, Grep\nmodel: haiku\n---\nBody\n",
                "loads:rev",
            ),
            (
                ".claude/agents/nodesc.md",
                "---\nname: nodesc\ntools: Read\n---\nBody\n",
                "drops",
            ),
            // Misread: MultiEdit no longer exists and is dropped silently.
            (
                ".claude/agents/multi.md",
                "---\nname: multi\ndescription: Edits\ntools: Read, MultiEdit\n---\nBody\n",
                "loads:multi",
            ),
            // Misread: strict YAML rejects the line; Claude Code quotes it and loads.
            (
                ".claude/agents/colon.md",
                "---\nname: colon\ndescription: Use this agent when: you need reviews\n---\nBody\n",
                "loads:colon",
            ),
        ],
    ),
    (
        "opencode",
        &[
            (
                ".opencode/agent/planner.md",
                "---\ndescription: Plans work\nmode: subagent\n---\nBody\n",
                "loads:planner",
            ),
            // Misread: known by its `name`, not its file.
            (
                ".opencode/agent/file-stem.md",
                "---\nname: other-name\ndescription: Named otherwise\nmode: subagent\n---\nBody\n",
                "loads:other-name",
            ),
        ],
    ),
    (
        "gemini",
        &[
            (
                ".gemini/agents/finder.md",
                "---\nname: finder\ndescription: Finds files\ntools: [read_file, grep_search]\n---\nBody\n",
                "loads:finder",
            ),
            (
                ".gemini/agents/bad.md",
                "---\nname: bad\ndescription: Bad\nfoo: bar\n---\nBody\n",
                "drops",
            ),
            // Misread: a `_` file is skipped without a word.
            (
                ".gemini/agents/_skip.md",
                "---\nname: skip\ndescription: Skipped\n---\nBody\n",
                "drops",
            ),
        ],
    ),
    (
        "copilot",
        &[
            (
                ".github/agents/helper.agent.md",
                "---\nname: helper\ndescription: Helps\ntools: [read]\n---\nBody\n",
                "loads:helper",
            ),
            (".github/agents/nofm.agent.md", "no frontmatter\n", "drops"),
            // Misread: `name` is a display label, the id is the file's.
            (
                ".github/agents/upper-space.agent.md",
                "---\nname: My Agent\ndescription: Spaced\n---\nBody\n",
                "loads:My Agent",
            ),
        ],
    ),
    (
        "tintinweb",
        &[
            (
                ".pi/agents/scout.md",
                "---\ndescription: Scout\ntools: read, grep\nmodel: anthropic/claude-haiku-4-5\n---\nBody\n",
                "loads:scout",
            ),
            // Misread: an unknown tool is dropped without a word.
            (
                ".pi/agents/named.md",
                "---\nname: named\ndescription: Named\ntools: read, bogus\n---\nBody\n",
                "loads:named",
            ),
            // Named by its file, whatever `name` says.
            (
                ".pi/agents/by-file.md",
                "---\nname: other\ndescription: By file\ntools: read\n---\nBody\n",
                "loads:by-file",
            ),
        ],
    ),
    (
        "nicobailon",
        &[
            (
                ".pi/agents/named.md",
                "---\nname: named\ndescription: Named\ntools: read\n---\nBody\n",
                "loads:named",
            ),
            // Dropped: no `name`; no `description`.
            (
                ".pi/agents/scout.md",
                "---\ndescription: Scout\ntools: read\n---\nBody\n",
                "drops",
            ),
            (
                ".pi/agents/nodesc.md",
                "---\nname: nodesc\n---\nBody\n",
                "drops",
            ),
        ],
    ),
    (
        "pi-example",
        &[
            (
                ".pi/agents/example-scout.md",
                "---\nname: example-scout\ndescription: Scout\ntools: read, grep\nmodel: anthropic/claude-haiku-4-5\n---\nBody\n",
                "loads:example-scout",
            ),
            // Dropped: in a subfolder (only files directly in .pi/agents/ are read); no
            // `description`.
            (
                ".pi/agents/nested/example-deep.md",
                "---\nname: example-deep\ndescription: Deep\n---\nBody\n",
                "drops",
            ),
            (
                ".pi/agents/example-nodesc.md",
                "---\nname: example-nodesc\ntools: read\n---\nBody\n",
                "drops",
            ),
            // Misread: known by its `name`, not its file; an unknown tool is passed to
            // `pi --tools`, which starts the child without it.
            (
                ".pi/agents/example-file.md",
                "---\nname: example-named\ndescription: Named\ntools: read, bogus\n---\nBody\n",
                "loads:example-named",
            ),
        ],
    ),
];

fn project_of(cases: &[Case]) -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    for (file, text, _) in cases {
        env.write(file, text);
    }
    env
}

fn host_doc<'a>(doc: &'a Value, host: &str) -> &'a Value {
    doc["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == host)
        .unwrap_or_else(|| panic!("no {host} in {doc:#}"))
}

fn row<'a>(h: &'a Value, file: &str) -> &'a Value {
    h["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["file"] == file)
        .unwrap_or_else(|| panic!("no row for {file} in {h:#}"))
}

/// What the host did with a file, as the case states it.
fn outcome(r: &Value) -> String {
    match r["host"]["outcome"].as_str().unwrap() {
        "loads" => format!("loads:{}", r["host"]["name"].as_str().unwrap()),
        o => o.to_string(),
    }
}

fn real_host_case(host: &str) {
    let Some((root, node)) = hosts() else { return };
    let cases = CASES.iter().find(|(h, _)| *h == host).unwrap().1;
    let env = project_of(cases);
    let before = snapshot(env.root());
    let out = verify(&env, &root, &node, &["--only", host]);
    let doc = json(&out);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let h = host_doc(&doc, host);
    assert!(h["error"].is_null(), "{h:#}");
    assert!(
        h["version"].is_string(),
        "the installed version is read: {h:#}"
    );
    for (file, _, want) in cases {
        let r = row(h, file);
        assert_eq!(outcome(r), *want, "{host} {file}: {r:#}");
        assert_eq!(r["agree"], true, "{host} {file}: {r:#}");
    }
    // The tools the child gets, where the host shows them: the misread lists.
    let tools = match host {
        // MultiEdit no longer exists.
        "claude-code" => Some((".claude/agents/multi.md", serde_json::json!(["Read"]))),
        // `bogus` is dropped.
        "tintinweb" => Some((".pi/agents/named.md", serde_json::json!(["read"]))),
        // nicobailon adds its supervisor channel.
        "nicobailon" => Some((
            ".pi/agents/named.md",
            serde_json::json!(["read", "contact_supervisor"]),
        )),
        // `bogus` is dropped by pi.
        "pi-example" => Some((".pi/agents/example-file.md", serde_json::json!(["read"]))),
        _ => None,
    };
    if let Some((file, want)) = tools {
        let r = row(h, file);
        assert_eq!(r["host"]["tools"], want, "{r:#}");
        assert_eq!(r["pwk"]["tools"], want, "{r:#}");
    }
    assert_eq!(doc["summary"]["disagree"], 0);
    // Nothing written in the project.
    assert_eq!(snapshot(env.root()), before, "verify wrote in the project");
}

#[test]
fn verify_claude_code_real_host() {
    real_host_case("claude-code");
}

#[test]
fn verify_opencode_real_host() {
    real_host_case("opencode");
}

#[test]
fn verify_gemini_real_host() {
    real_host_case("gemini");
}

#[test]
fn verify_copilot_real_host() {
    real_host_case("copilot");
}

#[test]
fn verify_tintinweb_real_host() {
    real_host_case("tintinweb");
}

#[test]
fn verify_nicobailon_real_host() {
    real_host_case("nicobailon");
}

#[test]
fn verify_pi_example_real_host() {
    real_host_case("pi-example");
}

/// A directory outside the project: `bin/pi`, a link to the pinned pi 1.6's program
/// (as npm installs it), for PATH; `agent/`, for `PI_CODING_AGENT_DIR`.
fn user_side(root: &Path) -> tempfile::TempDir {
    let user = tempfile::Builder::new()
        .prefix("pwk-user-")
        .tempdir()
        .unwrap();
    std::fs::create_dir_all(user.path().join("bin")).unwrap();
    std::fs::create_dir_all(user.path().join("agent")).unwrap();
    std::os::unix::fs::symlink(
        pi16(root).join("dist/bundle/cli.js"),
        user.path().join("bin/pi"),
    )
    .unwrap();
    user
}

/// pi's example extension is found without `--host-bin`: vendored into the project's
/// `.pi/extensions/subagent/` (its own files, copied from the pinned pi: run only with
/// `--run-project-code`), else the one the pi package on PATH ships; each at the
/// loading pi's version, and run.
#[test]
fn verify_finds_the_pi_example_extension() {
    let Some((root, node)) = hosts() else { return };
    let cases = CASES.iter().find(|(h, _)| *h == "pi-example").unwrap().1;
    let env = project_of(cases);
    let pi = pi16(&root);
    let user = user_side(&root);
    let bin = user.path().join("bin");
    let ask_with = |env: &TestEnv, extra: &[&str]| {
        let out = run(env
            .pwk()
            .env("PATH", &bin)
            .args([
                "verify",
                "--only",
                "pi-example",
                "--format",
                "json",
                "--node",
            ])
            .arg(&node)
            .args(extra));
        assert_eq!(
            out.code, 0,
            "{}
{}",
            out.stdout, out.stderr
        );
        json(&out)
    };
    let ask = |env: &TestEnv| ask_with(env, &[]);
    let shipped = pi.join("examples/extensions/subagent");
    let dry_with = |env: &TestEnv, extra: &[&str]| {
        let out = run(env
            .pwk()
            .env("PATH", &bin)
            .args([
                "verify",
                "--dry-run",
                "--only",
                "pi-example",
                "--format",
                "json",
            ])
            .args(extra));
        assert_eq!(
            out.code, 0,
            "{}
{}",
            out.stdout, out.stderr
        );
        json(&out)["would_run"][0]["installed"].clone()
    };
    let dry = |env: &TestEnv| dry_with(env, &[]);
    // The one the pi package ships.
    let found = dry(&env);
    assert_eq!(found["found"], "pi-package", "{found:#}");
    assert_eq!(found["version"], "1.6.0", "{found:#}");
    assert_eq!(
        found["program"].as_str().unwrap(),
        std::fs::canonicalize(&shipped).unwrap().to_str().unwrap()
    );
    let doc = ask(&env);
    let h = host_doc(&doc, "pi-example");
    assert!(h["error"].is_null(), "{h:#}");
    for (file, _, want) in cases {
        let r = row(h, file);
        assert_eq!(outcome(r), *want, "{file}: {r:#}");
        assert_eq!(r["agree"], true, "{file}: {r:#}");
    }
    // Vendored into the project, as its README installs it: that copy is the project's
    // code, passed over for pi's own (and said); with --run-project-code it is run.
    for f in ["index.ts", "agents.ts"] {
        env.write(
            &format!(".pi/extensions/subagent/{f}"),
            std::fs::read_to_string(shipped.join(f)).unwrap(),
        );
    }
    let vendored = std::fs::canonicalize(env.path(".pi/extensions/subagent")).unwrap();
    let found = dry(&env);
    assert_eq!(found["found"], "pi-package", "{found:#}");
    assert_eq!(found["project_code"], false, "{found:#}");
    assert_eq!(
        found["project_code_skipped"][0]["path"], ".pi/extensions/subagent",
        "{found:#}"
    );
    let consent = ["--run-project-code"];
    let found = dry_with(&env, &consent);
    assert_eq!(found["found"], "vendored", "{found:#}");
    assert_eq!(found["project_code"], true, "{found:#}");
    assert_eq!(found["version"], "1.6.0", "{found:#}");
    assert_eq!(
        found["program"].as_str().unwrap(),
        vendored.to_str().unwrap()
    );
    let before = snapshot(env.root());
    let doc = ask_with(&env, &consent);
    let h = host_doc(&doc, "pi-example");
    assert!(h["error"].is_null(), "{h:#}");
    assert_eq!(h["program"].as_str().unwrap(), vendored.to_str().unwrap());
    for (file, _, want) in cases {
        let r = row(h, file);
        assert_eq!(outcome(r), *want, "{file}: {r:#}");
        assert_eq!(r["agree"], true, "{file}: {r:#}");
    }
    assert_eq!(snapshot(env.root()), before, "verify wrote in the project");
    // Neither: not installed, and how to name it.
    let bare = project_of(cases);
    let out = run(bare.pwk().env("PATH", "/nonexistent").args([
        "verify",
        "--dry-run",
        "--only",
        "pi-example",
    ]));
    assert!(
        out.stdout
            .contains("not run: pi-example: not installed (no `.pi/extensions/subagent/`"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("--host-bin pi-example=DIR"),
        "{}",
        out.stdout
    );
}

/// OpenCode, and pi with tintinweb loaded, refuse to start at all over one bad agent
/// file, and pi's example extension lets pi start but fails every call that reads the
/// project's roles: verify says which (not "refuses to start" for a host that
/// starts), and agrees when pwk reports an error there.
#[test]
fn verify_hosts_refusing_to_start() {
    let Some((root, node)) = hosts() else { return };
    for (host, file, text, outcome, words) in [
        (
            "opencode",
            ".opencode/agent/tools-string.md",
            "---\ndescription: Tools as a string\ntools: Read, Grep\n---\nBody\n",
            "refuses-start",
            "refuses to start",
        ),
        (
            "tintinweb",
            ".pi/agents/colon.md",
            "---\ndescription: Use this: when\ntools: read\n---\nBody\n",
            "refuses-start",
            "refuses to start",
        ),
        (
            "pi-example",
            ".pi/agents/colon.md",
            "---\nname: colon\ndescription: Use this: when\ntools: read\n---\nBody\n",
            "fails-calls",
            "fails every call",
        ),
    ] {
        let env = project_of(&[(file, text, "")]);
        let out = verify(&env, &root, &node, &["--only", host]);
        let doc = json(&out);
        let r = row(host_doc(&doc, host), file);
        assert_eq!(r["host"]["outcome"], outcome, "{host}: {r:#}");
        let mut cmd = env.pwk();
        cmd.args(["verify", "--only", host, "--node"]).arg(&node);
        for h in HOSTS {
            cmd.arg("--host-bin")
                .arg(format!("{h}={}", program(&root, h).display()));
        }
        let human = run(&mut cmd);
        assert!(human.stdout.contains(words), "{host}: {}", human.stdout);
        if outcome == "fails-calls" {
            assert!(
                !human.stdout.contains("refuses to start"),
                "{}",
                human.stdout
            );
        }
        assert_eq!(r["agree"], true, "{host}: {r:#}");
        assert_eq!(out.code, 0, "{host}: {}", out.stdout);
    }
}

/// A profile that is wrong for the installed host (doctored: Claude Code and pi's
/// example extension made to name roles by their file, tintinweb by their `name`) is
/// reported as such: exit 1, the
/// row, the sentence.
#[test]
fn verify_reports_a_doctored_profile_as_wrong() {
    let Some((root, node)) = hosts() else { return };
    // (host, the patch, the file, its text, what verify must say)
    let cases = [
        (
            "claude-code",
            r#"claude-code={"identity":{"by":"stem"}}"#,
            ".claude/agents/reviewer-file.md",
            "---\nname: code-reviewer\ndescription: Reviews\ntools: Read\n---\nBody\n",
            "claude-code calls it `code-reviewer`, pwk `reviewer-file`",
            "pwk's profile for claude-code 2.1.332 is wrong here",
        ),
        (
            "tintinweb",
            r#"tintinweb={"identity":{"by":"name"}}"#,
            ".pi/agents/by-file.md",
            "---\nname: other\ndescription: By file\ntools: read\n---\nBody\n",
            "tintinweb calls it `by-file`, pwk `other`",
            "pwk's profile for tintinweb 0.14.1 is wrong here",
        ),
        (
            "pi-example",
            r#"pi-example={"identity":{"by":"stem"}}"#,
            ".pi/agents/by-file.md",
            "---\nname: other\ndescription: By file\ntools: read\n---\nBody\n",
            "pi-example calls it `other`, pwk `by-file`",
            "pwk's profile for pi-example 1.6.0 is wrong here",
        ),
    ];
    for (host, patch, file, text, says, wrong) in cases {
        let env = project_of(&[(file, text, "")]);
        let mut cmd = env.pwk();
        cmd.env("PWK_DEBUG_PROFILE_PATCH", patch);
        cmd.args(["verify", "--only", host, "--node"])
            .arg(&node)
            .arg("--host-bin")
            .arg(format!("{host}={}", program(&root, host).display()));
        let human = run(cmd.arg("--format").arg("human"));
        assert_eq!(human.code, 1, "{host}: {}\n{}", human.stdout, human.stderr);
        assert!(human.stdout.contains("DISAGREE"), "{}", human.stdout);
        assert!(human.stdout.contains(wrong), "{}", human.stdout);
        assert!(human.stdout.contains(says), "{}", human.stdout);
        // Undoctored, the same file agrees.
        let out = verify(&env, &root, &node, &["--only", host]);
        assert_eq!(out.code, 0, "{host}: {}", out.stdout);
    }
}

/// Every connect(2) pwk and its children make goes to loopback or a local socket:
/// the whole run under `strace -f -e trace=connect`, every host at once.
#[test]
fn verify_connects_to_nothing_but_loopback() {
    let Some((root, node)) = hosts() else { return };
    let strace = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("strace"))
            .find(|p| p.is_file())
    });
    let Some(strace) = strace else {
        let why = "strace not installed (apt-get install strace)";
        assert!(!crate::support::tools::required(), "CI=true: {why}");
        crate::support::tools::skip(why);
        return;
    };
    let all: Vec<Case> = CASES.iter().flat_map(|(_, c)| c.iter().copied()).collect();
    let env = project_of(&all);
    let log = env.path("strace.log");
    let pwk = env.pwk();
    let mut cmd = std::process::Command::new(strace);
    cmd.current_dir(env.root())
        .args(["-f", "-qq", "-e", "trace=connect", "-o"])
        .arg(&log)
        .arg(pwk.get_program())
        .args(["verify", "--format", "json", "--node"])
        .arg(&node);
    for (k, v) in pwk.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    for h in HOSTS {
        cmd.arg("--host-bin")
            .arg(format!("{h}={}", program(&root, h).display()));
    }
    let out = run(&mut cmd);
    let doc = json(&out);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(doc["summary"]["failed_hosts"], 0, "{doc:#}");
    let trace = std::fs::read_to_string(&log).unwrap();
    let mut inet = 0;
    let mut outside = Vec::new();
    for line in trace.lines().filter(|l| l.contains("connect(")) {
        if line.contains("AF_UNIX") || line.contains("AF_UNSPEC") {
            continue;
        }
        inet += 1;
        let loopback = line.contains("inet_addr(\"127.0.0.1\")")
            || line.contains("inet_pton(AF_INET6, \"::1\"")
            || line.contains("inet_pton(AF_INET6, \"::ffff:127.0.0.1\"");
        if !loopback {
            outside.push(line.to_string());
        }
    }
    assert!(inet > 0, "no inet connect traced at all: {trace}");
    assert!(
        outside.is_empty(),
        "connects to other than loopback:\n{}",
        outside.join("\n")
    );
}

/// `--dry-run` starts nothing and lists the hosts, their versions and files; with no
/// host installed (an empty PATH) verify says so and exits 2.
#[test]
fn verify_dry_run_and_no_host() {
    let env = project_of(&[(
        ".claude/agents/rev.md",
        "---\nname: rev\ndescription: Reviews\n---\nBody\n",
        "",
    )]);
    // A fake install: a program inside an npm package of a newer version.
    let pkg = env.path("fake/node_modules/@anthropic-ai/claude-code-linux-x64");
    env.write(
        "fake/node_modules/@anthropic-ai/claude-code-linux-x64/package.json",
        r#"{"name":"@anthropic-ai/claude-code-linux-x64","version":"2.1.340"}"#,
    );
    env.write(
        "fake/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
        "#!/bin/sh\necho started >> started.log\n",
    );
    let out = run(env.pwk().env("PATH", "/nonexistent").args([
        "verify",
        "--dry-run",
        "--host-bin",
        &format!("claude-code={}", pkg.join("claude").display()),
    ]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("would run claude-code 2.1.340"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(".claude/agents/rev.md"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("not run: gemini: not installed"),
        "{}",
        out.stdout
    );
    assert!(
        !env.path("started.log").exists(),
        "dry run started the host"
    );
    let none = run(env.pwk().env("PATH", "/nonexistent").args(["verify"]));
    assert_eq!(none.code, 2, "{}\n{}", none.stdout, none.stderr);
    assert!(none.stdout.contains("not installed"), "{}", none.stdout);
}

/// Every file under `dir` (relative path → bytes), links as their target.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                stack.push(p.clone());
            }
            let bytes = if meta.is_file() {
                std::fs::read(&p).unwrap()
            } else {
                Vec::new()
            };
            out.push((p.strip_prefix(dir).unwrap().to_path_buf(), bytes));
        }
    }
    out.sort();
    out
}

/// An agent CLI installed at a version newer than pwk's facts: `lint` and `show` say
/// so once, on stderr, from the program's `package.json` (no host started); at the
/// measured version, nothing.
#[test]
fn lint_and_show_say_when_the_installed_host_is_newer() {
    let env = project_of(&[
        (
            ".claude/agents/rev.md",
            "---\nname: rev\ndescription: Reviews\ntools: Read\n---\nBody\n",
            "",
        ),
        (
            ".claude/agents/two.md",
            "---\nname: two\ndescription: Also\ntools: Read\n---\nBody\n",
            "",
        ),
    ]);
    let install = |version: &str| {
        let dir = format!("bin-{version}");
        env.write(
            &format!("{dir}/package.json"),
            format!(r#"{{"name":"@anthropic-ai/claude-code-linux-x64","version":"{version}"}}"#),
        );
        let prog = env.write(
            &format!("{dir}/claude"),
            "#!/bin/sh\necho started >> \"$(dirname \"$0\")/started.log\"\n",
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
        env.path(&dir)
    };
    let newer = install("2.1.340");
    let lint = run(env
        .pwk()
        .env("PATH", &newer)
        .args(["lint", ".claude/agents"]));
    let note =
        "claude-code 2.1.340 is installed; pwk's facts are from 2.1.332 — `pwk verify` checks them";
    assert_eq!(lint.stderr.matches(note).count(), 1, "{}", lint.stderr);
    let show = run(env
        .pwk()
        .env("PATH", &newer)
        .args(["show", "rev", "--host", "claude-code"]));
    assert!(show.stderr.contains(note), "{}", show.stderr);
    assert!(!newer.join("started.log").exists(), "the host was started");
    let same = install("2.1.332");
    let lint = run(env
        .pwk()
        .env("PATH", &same)
        .args(["lint", ".claude/agents"]));
    assert!(!lint.stderr.contains("is installed"), "{}", lint.stderr);
}

/// A Node older than the one the host's package declares (`engines.node`: pi 1.6,
/// which loads the pi extensions, needs `>=22.19.0`) is named as the reason, before
/// anything is started with it; a driver that fails is summed up by Node's error
/// line, not by the minified source line or the stack around it.
#[test]
fn verify_names_a_node_too_old_for_the_host_and_the_drivers_error_line() {
    let env = project_of(&[(
        ".pi/agents/scout.md",
        "---\nname: scout\ndescription: Looks\n---\nBody\n",
        "",
    )]);
    env.write(
        "fake/node_modules/@earendil-works/pi-coding-agent/package.json",
        r#"{"name":"@earendil-works/pi-coding-agent","version":"1.6.0","engines":{"node":">=22.19.0"}}"#,
    );
    env.write("fake/ext/subagent/agents.ts", "export {};\n");
    env.write("fake/ext/subagent/index.ts", "export {};\n");
    let ext = env.path("fake/ext/subagent");
    for (version, want) in [
        (
            "v20.1.0",
            "pi-example runs in Node >=22.19.0 (`engines` in ".to_string(),
        ),
        (
            "v22.19.0",
            "the driver failed (exit status: 1): SyntaxError: Unexpected token '}'".to_string(),
        ),
    ] {
        let node = crate::support::process::executable(
            &env.path("fake/node"),
            &format!(
                "#!/bin/sh\nif [ \"$1\" = --version ]; then echo {version}; exit 0; fi\n\
                 echo 'file:///x/pi-hosts.mjs:876' >&2\necho '}}}},State=class{{gen;threads=[]}}' >&2\n\
                 echo '   ^' >&2\necho \"SyntaxError: Unexpected token '}}'\" >&2\n\
                 echo '    at async main (file:///x/pi-hosts.mjs:876:46)' >&2\nexit 1\n"
            ),
        );
        let out = run(env
            .pwk()
            .args(["verify", "--format", "json", "--node"])
            .arg(&node)
            .args([
                "--only",
                "pi-example",
                "--host-bin",
                &format!("pi-example={}", ext.display()),
            ]));
        assert_eq!(out.code, 2, "{version}: {}\n{}", out.stdout, out.stderr);
        let v: Value = json(&out);
        let error = v["hosts"][0]["error"].as_str().unwrap_or_default();
        assert!(error.starts_with(&want), "{version}: {error}\n{v:#}");
        if version == "v20.1.0" {
            assert!(
                error.ends_with("is 20.1.0: name a newer Node with --node PATH"),
                "{error}"
            );
        } else {
            assert!(
                !error.contains("State=class") && !error.contains("at async"),
                "{error}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Project code, as a class: every way a cloned repository can put code where
// `pwk verify` would run it. Each plant's code writes a canary file outside the
// project; by default verify runs (for real) and the canary must stay absent, the
// output naming the copy passed over; with consent the project's copy runs.

/// Where a plant puts its canary, and what it is given.
/// What a planting test owns: the project of `host`'s cases, the user's side, the
/// canary's path, pi 1.6's package and `node`; [`Planted::planting`] lends them.
struct Planted {
    env: TestEnv,
    user: tempfile::TempDir,
    marker: PathBuf,
    pi: PathBuf,
    node: PathBuf,
}

impl Planted {
    /// `None` where the hosts are not installed ([`hosts`]).
    fn new(host: &str) -> Option<Planted> {
        let (root, node) = hosts()?;
        let cases = CASES.iter().find(|(h, _)| *h == host).unwrap().1;
        let user = user_side(&root);
        Some(Planted {
            env: project_of(cases),
            marker: user.path().join("ran"),
            user,
            pi: pi16(&root),
            node,
        })
    }

    /// `pwk verify --only HOST --node <node>` in the project, with `path` as `PATH`.
    fn verify(&self, host: &str, path: &Path) -> std::process::Command {
        let mut cmd = self.env.pwk();
        cmd.env("PATH", path)
            .args(["verify", "--only", host, "--node"])
            .arg(&self.node);
        cmd
    }

    fn planting(&self) -> Planting<'_> {
        Planting {
            env: &self.env,
            pi: &self.pi,
            user: self.user.path(),
            marker: &self.marker,
        }
    }
}

struct Planting<'a> {
    env: &'a TestEnv,
    /// The pinned pi 1.6 package.
    pi: &'a Path,
    /// The user's side, outside the project ([`user_side`]).
    user: &'a Path,
    /// The canary: written by the planted code when it runs.
    marker: &'a Path,
}

/// Code that writes the canary when it is loaded (TypeScript and ES modules alike).
fn canary(marker: &Path) -> String {
    format!(
        "import {{ writeFileSync as pwkCanary }} from \"node:fs\";\npwkCanary({:?}, \"ran\\n\");\n",
        marker.display().to_string()
    )
}

/// pi's example extension with the canary in its `agents.ts` (else as pi ships it),
/// written to `dir` (absolute).
fn example_with_canary(p: &Planting<'_>, dir: &Path) {
    let shipped = p.pi.join("examples/extensions/subagent");
    std::fs::create_dir_all(dir).unwrap();
    for f in ["index.ts", "agents.ts"] {
        let mut text = std::fs::read_to_string(shipped.join(f)).unwrap();
        if f == "agents.ts" {
            text = canary(p.marker) + &text;
        }
        std::fs::write(dir.join(f), text).unwrap();
    }
}

/// A fake pi 1.6 package at `dir` (absolute) whose loader chunk and example extension
/// are canaries.
fn fake_pi_package(p: &Planting<'_>, dir: &Path) {
    let write = |rel: &str, text: &str| {
        let f = dir.join(rel);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    };
    write(
        "package.json",
        r#"{"name":"@earendil-works/pi-coding-agent","version":"1.6.0","type":"module"}"#,
    );
    write(
        "dist/bundle/chunks/virtual-modules-pwkcanary.js",
        &(canary(p.marker) + "export const VIRTUAL_MODULES = {};\n"),
    );
    write("dist/bundle/cli.js", &canary(p.marker));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        dir.join("dist/bundle/cli.js"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    example_with_canary(p, &dir.join("examples/extensions/subagent"));
}

/// An npm package pi's project settings list (`.pi/settings.json`), installed where
/// `pi install -l` puts it (`.pi/npm/node_modules/NAME`), its loader a canary.
fn project_npm_package(p: &Planting<'_>, name: &str, loader: &str) {
    p.env.write(
        ".pi/settings.json",
        format!(r#"{{"packages":["npm:{name}"]}}"#),
    );
    let dir = format!(".pi/npm/node_modules/{name}");
    p.env.write(
        &format!("{dir}/package.json"),
        format!(r#"{{"name":"{name}","version":"0.18.0","type":"module"}}"#),
    );
    p.env
        .write(&format!("{dir}/src/{loader}"), canary(p.marker));
}

/// One way a project plants code for verify: the host it is for; what is planted
/// (the test's PATH, when the plant changes it); how the default run asks the host
/// instead (the `found` of the copy asked, or `None`: not checked).
struct Plant {
    host: &'static str,
    plant: fn(&Planting<'_>) -> Option<PathBuf>,
    fallback: Option<&'static str>,
}

fn plant_case(plant: &Plant) {
    let Some(planted) = Planted::new(plant.host) else {
        return;
    };
    let Planted {
        env, user, marker, ..
    } = &planted;
    let path = (plant.plant)(&planted.planting()).unwrap_or_else(|| user.path().join("bin"));
    let verify = |extra: &[&str]| {
        run(planted
            .verify(plant.host, &path)
            .env("PI_CODING_AGENT_DIR", user.path().join("agent"))
            .args(extra))
    };
    // By default: run for real, and the project's code is not.
    let out = verify(&["--format", "json"]);
    let doc = json(&out);
    assert!(
        !marker.exists(),
        "{}: the project's code ran without consent: {doc:#}",
        plant.host
    );
    let skipped = match plant.fallback {
        Some(found) => {
            assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
            let h = host_doc(&doc, plant.host);
            assert_eq!(h["found"], found, "{h:#}");
            assert_eq!(h["project_code"], false, "{h:#}");
            assert!(h["error"].is_null(), "{h:#}");
            assert!(
                !h["program"]
                    .as_str()
                    .unwrap()
                    .starts_with(env.root().to_str().unwrap()),
                "{h:#}"
            );
            h["project_code_skipped"].clone()
        }
        None => {
            assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
            let n = doc["not_run"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["host"] == plant.host)
                .unwrap_or_else(|| panic!("{doc:#}"))
                .clone();
            let reason = n["reason"].as_str().unwrap();
            assert!(
                reason.starts_with("not checked: ") && reason.contains("--run-project-code"),
                "{n:#}"
            );
            n["project_code_skipped"].clone()
        }
    };
    assert!(
        skipped.as_array().is_some_and(|s| !s.is_empty()),
        "the output names the copy not run: {doc:#}"
    );
    // --dry-run says which copy would run and which of the project's would not.
    let dry = verify(&["--dry-run"]);
    assert!(
        dry.stdout
            .contains("was not run: it is code in the project")
            && dry.stdout.contains("--run-project-code"),
        "{}\n{}",
        dry.stdout,
        dry.stderr
    );
    // The human table says so too.
    let human = verify(&[]);
    assert!(
        human
            .stdout
            .contains("was not run: it is code in the project"),
        "{}",
        human.stdout
    );
    assert!(!marker.exists(), "{}", human.stdout);
    // With consent, the project's copy is the one run, as pi would.
    let _ = verify(&["--run-project-code", "--format", "json"]);
    assert!(
        marker.exists(),
        "{}: --run-project-code did not run the project's copy",
        plant.host
    );
}

macro_rules! plants {
    ($($name:ident: $plant:expr;)*) => {
        $(
            #[test]
            fn $name() {
                plant_case(&$plant);
            }
        )*
    };
}

plants! {
    // pi's example extension vendored into `.pi/extensions/subagent/`: pi's own copy
    // (the pi package on PATH) is asked instead.
    verify_project_code_vendored_example: Plant {
        host: "pi-example",
        plant: |p| {
            example_with_canary(p, &p.env.path(".pi/extensions/subagent"));
            None
        },
        fallback: Some("pi-package"),
    };
    // The same, with the user's own vendored copy in the agent dir: that one is asked.
    verify_project_code_vendored_example_user_copy: Plant {
        host: "pi-example",
        plant: |p| {
            example_with_canary(p, &p.env.path(".pi/extensions/subagent"));
            let shipped = p.pi.join("examples/extensions/subagent");
            let mine = p.user.join("agent/extensions/subagent");
            std::fs::create_dir_all(&mine).unwrap();
            for f in ["index.ts", "agents.ts"] {
                std::fs::copy(shipped.join(f), mine.join(f)).unwrap();
            }
            None
        },
        fallback: Some("vendored"),
    };
    // `.pi/extensions/subagent` a link to a copy outside: the project chose it.
    verify_project_code_symlinked_example: Plant {
        host: "pi-example",
        plant: |p| {
            let copy = p.user.join("elsewhere/subagent");
            example_with_canary(p, &copy);
            std::fs::create_dir_all(p.env.path(".pi/extensions")).unwrap();
            std::os::unix::fs::symlink(&copy, p.env.path(".pi/extensions/subagent")).unwrap();
            None
        },
        fallback: Some("pi-package"),
    };
    // A pi package planted in the project's `node_modules`: the one on PATH is used.
    verify_project_code_planted_pi_package: Plant {
        host: "pi-example",
        plant: |p| {
            fake_pi_package(p, &p.env.path("node_modules/@earendil-works/pi-coding-agent"));
            None
        },
        fallback: Some("pi-package"),
    };
    // `pi` on a PATH entry inside the project (`node_modules/.bin`): not checked.
    verify_project_code_pi_on_a_path_entry_in_the_project: Plant {
        host: "pi-example",
        plant: |p| {
            let pkg = p.env.path("tools/node_modules/@earendil-works/pi-coding-agent");
            fake_pi_package(p, &pkg);
            let bin = p.env.path("tools/node_modules/.bin");
            std::fs::create_dir_all(&bin).unwrap();
            std::os::unix::fs::symlink(pkg.join("dist/bundle/cli.js"), bin.join("pi")).unwrap();
            Some(bin)
        },
        fallback: None,
    };
    // tintinweb installed in the project (`.pi/npm/`, listed in `.pi/settings.json`):
    // no copy of the user's, so not checked.
    verify_project_code_tintinweb_project_package: Plant {
        host: "tintinweb",
        plant: |p| {
            project_npm_package(p, "@tintinweb/pi-subagents", "custom-agents.ts");
            None
        },
        fallback: None,
    };
    verify_project_code_nicobailon_project_package: Plant {
        host: "nicobailon",
        plant: |p| {
            project_npm_package(p, "pi-subagents", "agents/agents.ts");
            None
        },
        fallback: None,
    };
}

/// `--host-bin` naming a copy inside the project is consent for that host: it runs
/// without `--run-project-code`, and the output says it is the project's code.
#[test]
fn verify_host_bin_in_the_project_is_consent() {
    let Some(planted) = Planted::new("pi-example") else {
        return;
    };
    let Planted {
        env, user, marker, ..
    } = &planted;
    example_with_canary(&planted.planting(), &env.path("vendor/subagent"));
    let verify = |extra: &[&str]| {
        run(planted
            .verify("pi-example", &user.path().join("bin"))
            .args(["--host-bin", "pi-example=vendor/subagent"])
            .args(extra))
    };
    let dry = verify(&["--dry-run"]);
    assert!(
        dry.stdout
            .contains("this is code in the project, run as pi would (--host-bin names it)"),
        "{}",
        dry.stdout
    );
    assert!(!marker.exists());
    let out = verify(&["--format", "json"]);
    let doc = json(&out);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let h = host_doc(&doc, "pi-example");
    assert_eq!(h["project_code"], true, "{h:#}");
    assert_eq!(h["found"], "host-bin", "{h:#}");
    assert!(marker.exists(), "the named copy did not run");
}

/// An agent CLI and `node` on a PATH entry inside the project (`node_modules/.bin`
/// first on PATH, as a direnv or an npm script puts it) are passed over for the next
/// ones on PATH, outside; the run does not start the project's, nor a program the
/// host starts by name (git, rg) from that entry: the host runs without it.
#[test]
fn verify_project_code_programs_on_a_path_entry_in_the_project() {
    let env = project_of(CASES.iter().find(|(h, _)| *h == "claude-code").unwrap().1);
    let user = tempfile::Builder::new()
        .prefix("pwk-user-")
        .tempdir()
        .unwrap();
    let marker = user.path().join("ran");
    let script = format!("#!/bin/sh\necho ran >> '{}'\nexit 1\n", marker.display());
    let inside = env.path("node_modules/.bin");
    for name in ["claude", "node", "git", "rg"] {
        crate::support::process::executable(&inside.join(name), &script);
    }
    // The user's own stand-ins fail; their `node` first starts what a host starts by
    // name, from the PATH it was given.
    for (name, text) in [
        ("claude", "#!/bin/sh\nexit 1\n"),
        ("node", "#!/bin/sh\ngit --version\nrg --version\nexit 1\n"),
    ] {
        crate::support::process::executable(&user.path().join(format!("bin/{name}")), text);
    }
    let path = std::env::join_paths([inside.clone(), user.path().join("bin")]).unwrap();
    let verify = |extra: &[&str]| {
        run(env
            .pwk()
            .env("PATH", &path)
            .args(["verify", "--only", "claude-code", "--format", "json"])
            .args(extra))
    };
    // Run first: the outside stand-ins fail, the project's are not started.
    let _ = verify(&[]);
    assert!(!marker.exists(), "a program in the project was started");
    let doc = json(&verify(&["--dry-run"]));
    let outside = |p: &Value| {
        let p = p.as_str().unwrap_or_default();
        assert!(p.starts_with(user.path().to_str().unwrap()), "{doc:#}");
    };
    outside(&doc["node"]);
    assert_eq!(
        doc["node_skipped"][0]["path"], "node_modules/.bin/node",
        "{doc:#}"
    );
    let inst = &doc["would_run"][0]["installed"];
    outside(&inst["program"]);
    let skipped: Vec<&str> = inst["project_code_skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        skipped,
        ["node_modules/.bin/claude", "node_modules/.bin"],
        "{doc:#}"
    );
    let human =
        run(env
            .pwk()
            .env("PATH", &path)
            .args(["verify", "--only", "claude-code", "--dry-run"]));
    assert!(
        human.stdout.contains(
            "any program the host would start from the `PATH` entry at `node_modules/.bin` was not run"
        ),
        "{}",
        human.stdout
    );
    // With consent the first on PATH is taken, as a shell would.
    let doc = json(&verify(&["--dry-run", "--run-project-code"]));
    assert!(
        doc["node"]
            .as_str()
            .unwrap()
            .starts_with(env.root().to_str().unwrap()),
        "{doc:#}"
    );
    assert_eq!(
        doc["would_run"][0]["installed"]["project_code"], true,
        "{doc:#}"
    );
    assert!(
        doc["would_run"][0]["installed"]["project_code_skipped"]
            .as_array()
            .is_none_or(|s| s.is_empty()),
        "{doc:#}"
    );
}
