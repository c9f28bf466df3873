//! The host oracle: what the REAL subagent hosts make of role files, from their own
//! loader code (tests/oracle/driver.mjs, provisioned by scripts/provision-hosts.sh).
//!
//! [`run_oracle`] runs the launcher ([`crate::support::tools`]: `PWK_TEST_ORACLE`,
//! else `.host-test/bin/oracle`; a missing one is skipped visibly, a failure under CI)
//! and returns its JSON document. The tests below pin the host behaviour the lint profiles
//! rely on, so a host upgrade that changes it shows up here first.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support::tools::{Tool, tool};
use crate::support::{TestEnv, run};

/// A host (and version) the oracle can load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    Tintinweb,
    Nicobailon,
    Pi073,
    Pi16,
}

impl Host {
    pub fn spec(self) -> &'static str {
        match self {
            Host::Tintinweb => "tintinweb@0.14.1",
            Host::Nicobailon => "nicobailon@0.67.0",
            Host::Pi073 => "pi@0.73.1",
            Host::Pi16 => "pi@1.6.0",
        }
    }
}

/// The oracle launcher, or `None` (after recording the skip; a failure under CI).
pub fn oracle_bin() -> Option<PathBuf> {
    tool(Tool::Oracle)
}

/// Run the oracle for `host` on `project` (agent dir: `agent_dir`, else an empty temp
/// dir) and return its JSON document. Panics, with the oracle's stderr, if it fails.
pub fn run_oracle(oracle: &Path, host: Host, project: &Path, agent_dir: Option<&Path>) -> Value {
    run_oracle_command(&mut oracle_command(oracle, host, project, agent_dir), host)
}

/// The oracle command line, for callers that need to change its environment.
pub fn oracle_command(
    oracle: &Path,
    host: Host,
    project: &Path,
    agent_dir: Option<&Path>,
) -> Command {
    let mut cmd = Command::new(oracle);
    cmd.arg("--host")
        .arg(host.spec())
        .arg("--project")
        .arg(project);
    if let Some(dir) = agent_dir {
        cmd.arg("--agent-dir").arg(dir);
    }
    cmd
}

/// Run an [`oracle_command`] and return its JSON document.
pub fn run_oracle_command(cmd: &mut Command, host: Host) -> Value {
    let doc = run_oracle_json(cmd, host);
    check_host(&doc, host);
    doc
}

/// Run the oracle for `host` on every project in one process (each project isolated
/// as in a run of its own: temp HOME and agent dir, a fresh import of the host) and
/// return one document per project, in order. The fixture sweeps use it: node and
/// pi's bundle start once per host, not once per project.
pub fn run_oracle_batch(oracle: &Path, host: Host, projects: &[&Path]) -> Vec<Value> {
    let mut cmd = Command::new(oracle);
    cmd.arg("--host").arg(host.spec()).args(projects);
    let docs: Vec<Value> = serde_json::from_value(run_oracle_json(&mut cmd, host))
        .expect("the batch form prints a JSON array");
    assert_eq!(docs.len(), projects.len(), "one document per project");
    for (doc, project) in docs.iter().zip(projects) {
        check_host(doc, host);
        assert_eq!(
            Path::new(doc["project"].as_str().unwrap()),
            project.canonicalize().unwrap(),
            "documents in the order of the projects"
        );
    }
    docs
}

fn run_oracle_json(cmd: &mut Command, host: Host) -> Value {
    let out = run(cmd);
    assert_eq!(
        out.code,
        0,
        "oracle --host {} failed:\n{}",
        host.spec(),
        out.stderr
    );
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("oracle printed no JSON ({e}):\n{}", out.stdout))
}

fn check_host(doc: &Value, host: Host) {
    let (name, version) = host.spec().split_once('@').unwrap();
    assert_eq!(doc["host"], name);
    assert_eq!(doc["version"], version);
}

/// The entry for `file` (relative to the project, `/`-separated).
pub fn entry<'a>(doc: &'a Value, file: &str) -> &'a Value {
    doc["files"]
        .as_array()
        .expect("files array")
        .iter()
        .find(|f| f["file"] == file)
        .unwrap_or_else(|| panic!("no entry for {file} in {doc:#}"))
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|s| s.as_str().expect("string"))
        .collect()
}

const ALL_SEVEN: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

#[test]
fn oracle_tintinweb_names_roles_by_file_stem_and_resolves_tools() {
    let Some(oracle) = oracle_bin() else { return };
    let env = TestEnv::new();
    env.write(
        ".pi/agents/stem-reviewer.md",
        "---\nname: called-something-else\ndescription: Reads.\ntools: read, grep\nthinking: low\nmax_turns: 20\n---\nReview.\n",
    );
    env.write(
        ".agents/agents/open.md",
        "---\nname: open\ndescription: No allow-list.\n---\nAnything.\n",
    );
    env.write("docs/notes.md", "# not a role\n");
    let doc = run_oracle(&oracle, Host::Tintinweb, env.root(), None);

    let r = entry(&doc, ".pi/agents/stem-reviewer.md");
    assert_eq!(r["outcome"], "loaded", "{r:#}");
    assert_eq!(r["identity"], "stem-reviewer", "`name` is never read");
    assert_eq!(strings(&r["tools"]), ["read", "grep"]);
    assert_eq!(r["thinking"], "low");
    assert_eq!(r["max_turns"], 20);
    assert_eq!(r["prompt_mode"], "replace");
    assert_eq!(r["config"]["name"], "stem-reviewer");
    assert!(
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["identity"] != "called-something-else")
    );

    let open = entry(&doc, ".agents/agents/open.md");
    assert_eq!(open["outcome"], "loaded");
    assert_eq!(
        strings(&open["tools"]),
        ALL_SEVEN,
        "absent tools: all seven"
    );
    assert_eq!(open["max_turns"], Value::Null);

    let notes = entry(&doc, "docs/notes.md");
    assert_eq!(notes["outcome"], "skipped");
    assert!(notes["message"].as_str().unwrap().starts_with("not read"));
}

#[test]
fn oracle_tintinweb_refuses_to_start_on_unparseable_yaml() {
    let Some(oracle) = oracle_bin() else { return };
    let env = TestEnv::new();
    env.write(
        ".pi/agents/broken.md",
        "---\ndescription: Broken.\ntools: [read\n---\nBody.\n",
    );
    env.write(
        ".agents/agents/fine.md",
        "---\ndescription: Fine.\n---\nBody.\n",
    );
    let doc = run_oracle(&oracle, Host::Tintinweb, env.root(), None);
    let broken = entry(&doc, ".pi/agents/broken.md");
    assert_eq!(broken["outcome"], "refuses-start", "{broken:#}");
    assert!(
        broken["message"]
            .as_str()
            .unwrap()
            .contains("Flow sequence"),
        "the yaml parser's own message: {broken:#}"
    );
    // Nothing else is loaded: pi exits before any role can be called.
    assert_eq!(entry(&doc, ".agents/agents/fine.md")["outcome"], "skipped");
    assert!(doc["refuses_start"].is_string());
}

#[test]
fn oracle_nicobailon_needs_description_uses_name_and_injects_contact_supervisor() {
    let Some(oracle) = oracle_bin() else { return };
    let env = TestEnv::new();
    env.write(
        ".pi/agents/file-stem.md",
        "---\nname: by-name\ndescription: Reads.\ntools: read, grep\nmax_turns: 20\n---\nReview.\n",
    );
    env.write(
        ".agents/agents/undescribed.md",
        "---\nname: undescribed\ntools: read\n---\nBody.\n",
    );
    env.write(
        ".agents/agents/open.md",
        "---\nname: open\ndescription: No allow-list.\n---\nBody.\n",
    );
    env.write(
        ".agents/agents/review.chain.md",
        "---\nname: review\ndescription: A chain.\n---\n## by-name\nGo.\n",
    );
    let doc = run_oracle(&oracle, Host::Nicobailon, env.root(), None);

    let r = entry(&doc, ".pi/agents/file-stem.md");
    assert_eq!(r["outcome"], "loaded", "{r:#}");
    assert_eq!(r["identity"], "by-name");
    assert_eq!(strings(&r["tools"]), ["read", "grep", "contact_supervisor"]);
    assert_eq!(r["max_turns"], Value::Null, "nicobailon has no turn bound");
    assert_eq!(r["config"]["extraFields"], json!({"max_turns": "20"}));

    let undescribed = entry(&doc, ".agents/agents/undescribed.md");
    assert_eq!(undescribed["outcome"], "skipped");
    assert!(
        undescribed["message"]
            .as_str()
            .unwrap()
            .contains("description")
    );

    // No allow-list: pi's defaults (grep, find and ls are lost) plus the host's tools.
    let open = entry(&doc, ".agents/agents/open.md");
    assert_eq!(
        strings(&open["tools"]),
        [
            "read",
            "bash",
            "edit",
            "write",
            "bg_wait",
            "contact_supervisor"
        ]
    );

    let chain = entry(&doc, ".agents/agents/review.chain.md");
    assert_eq!(chain["outcome"], "skipped");
    assert!(chain["message"].as_str().unwrap().starts_with("not a role"));
}

#[test]
fn oracle_nicobailon_reads_frontmatter_line_by_line() {
    // Its own line parser (src/agents/frontmatter.ts), not YAML: a flow list or a trailing
    // comment becomes part of the tool names, which the host then drops.
    let Some(oracle) = oracle_bin() else { return };
    let env = TestEnv::new();
    env.write(
        ".pi/agents/flow.md",
        "---\nname: flow\ndescription: Flow list.\ntools: [read, grep]\n---\nBody.\n",
    );
    env.write(
        ".pi/agents/block.md",
        "---\nname: block\ndescription: Block list.\ntools:\n  - read\n  - find\n---\nBody.\n",
    );
    let doc = run_oracle(&oracle, Host::Nicobailon, env.root(), None);
    let flow = entry(&doc, ".pi/agents/flow.md");
    assert_eq!(strings(&flow["config"]["tools"]), ["[read", "grep]"]);
    assert_eq!(strings(&flow["tools"]), ["contact_supervisor"]);
    let block = entry(&doc, ".pi/agents/block.md");
    assert_eq!(
        strings(&block["tools"]),
        ["read", "find", "contact_supervisor"]
    );
}

#[test]
fn oracle_pi_parse_frontmatter_on_both_generations() {
    let Some(oracle) = oracle_bin() else { return };
    let env = TestEnv::new();
    env.write(
        ".agents/agents/simple.md",
        "---\nname: simple\ndescription: \"Quoted: yes\"\ntools: read, grep\nmax_turns: 20\n---\nBody.\n",
    );
    env.write(".pi/agents/bad.md", "---\nname: [bad\n---\nBody.\n");
    for host in [Host::Pi16, Host::Pi073] {
        let doc = run_oracle(&oracle, host, env.root(), None);
        let simple = entry(&doc, ".agents/agents/simple.md");
        assert_eq!(simple["outcome"], "loaded", "{host:?}: {simple:#}");
        assert_eq!(
            simple["config"],
            json!({"name": "simple", "description": "Quoted: yes", "tools": "read, grep", "max_turns": 20}),
            "{host:?}"
        );
        let bad = entry(&doc, ".pi/agents/bad.md");
        assert_eq!(bad["outcome"], "skipped", "{host:?}: {bad:#}");
        assert!(
            bad["message"].as_str().unwrap().contains("line 1"),
            "{bad:#}"
        );
    }
}

#[test]
fn oracle_reads_the_given_agent_dir_and_never_the_real_home() {
    let Some(oracle) = oracle_bin() else { return };
    let env = TestEnv::new();
    env.write(
        "agent/agents/global-role.md",
        "---\nname: global-role\ndescription: Global.\ntools: ls\n---\nBody.\n",
    );
    // Roles where a host would look if it read the caller's home.
    env.write(
        "home/.pi/agent/agents/home-role.md",
        "---\nname: home-role\ndescription: Home.\n---\nBody.\n",
    );
    env.write(
        "home/.agents/home-role2.md",
        "---\nname: home-role2\ndescription: Home.\n---\nBody.\n",
    );
    std::fs::create_dir_all(env.path("project/.pi")).unwrap();
    let project = env.path("project");
    let agent = env.path("agent");
    for host in [Host::Tintinweb, Host::Nicobailon] {
        let doc = run_oracle(&oracle, host, &project, Some(&agent));
        let files = doc["files"].as_array().unwrap();
        assert_eq!(files.len(), 1, "{host:?}: {doc:#}");
        let g = &files[0];
        assert_eq!(g["file"], "<agent-dir>/agents/global-role.md");
        assert_eq!(g["outcome"], "loaded", "{host:?}: {g:#}");
        assert_eq!(g["identity"], "global-role");
        assert_eq!(strings(&g["tools"])[0], "ls");
        // Without --agent-dir the same project sees no role at all, whatever the
        // caller's HOME and PI_CODING_AGENT_DIR hold.
        let mut cmd = oracle_command(&oracle, host, &project, None);
        cmd.env("HOME", env.path("home"))
            .env("PI_CODING_AGENT_DIR", env.path("home/.pi/agent"));
        let bare = run_oracle_command(&mut cmd, host);
        assert_eq!(bare["files"], json!([]), "{host:?}");
    }
}

/// The CLI oracle launcher (tests/oracle/cli-hosts.mjs: the real Claude Code, Copilot
/// CLI, OpenCode and Gemini CLI, run offline), or `None` (after recording the skip; a
/// failure under CI).
pub fn cli_oracle_bin() -> Option<PathBuf> {
    tool(Tool::CliOracle)
}

/// Run the CLI oracle for `host` (claude-code, copilot, opencode, gemini) on every
/// project at once (one oracle process) and return one document per project, in order.
pub fn run_cli_oracle(oracle: &Path, host: &str, projects: &[&Path]) -> Vec<Value> {
    let out = run(Command::new(oracle).arg("--host").arg(host).args(projects));
    assert_eq!(
        out.code, 0,
        "cli-oracle --host {host} failed:\n{}",
        out.stderr
    );
    let docs: Vec<Value> = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("cli-oracle printed no JSON ({e}):\n{}", out.stdout));
    assert_eq!(docs.len(), projects.len());
    for d in &docs {
        assert_eq!(d["host"], host);
    }
    docs
}

/// The batch form (many projects, one process) is the single runs one after another:
/// the same document per project, nothing carried from one project to the next (an
/// empty project after a full one sees nothing; a project that stops the host's start
/// does not stop the next).
#[test]
fn oracle_batch_is_the_single_runs_one_after_another() {
    let Some(oracle) = oracle_bin() else { return };
    let env = TestEnv::new();
    env.write(
        "full/.pi/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reads.\ntools: read, grep\n---\nReview.\n",
    );
    std::fs::create_dir_all(env.path("empty/.pi")).unwrap();
    env.write(
        "broken/.pi/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Writes.\ntools: write\n---\nWrite.\n",
    );
    env.write(
        "broken/.pi/agents/bad.md",
        "---\nname: [unclosed\ndescription: x\n---\nBody.\n",
    );
    let distinct = [env.path("full"), env.path("empty"), env.path("broken")];
    let order = [0, 1, 2, 1, 0];
    let projects: Vec<&Path> = order.iter().map(|&i| distinct[i].as_path()).collect();
    for host in [Host::Tintinweb, Host::Nicobailon, Host::Pi073, Host::Pi16] {
        let singles: Vec<Value> = distinct
            .iter()
            .map(|p| run_oracle(&oracle, host, p, None))
            .collect();
        let batch = run_oracle_batch(&oracle, host, &projects);
        for (&i, doc) in order.iter().zip(&batch) {
            assert_eq!(
                doc,
                &singles[i],
                "{host:?}: {} in a batch differs from its own run",
                distinct[i].display()
            );
        }
        assert_eq!(batch[1]["files"], json!([]), "{host:?}: {:#}", batch[1]);
        assert_eq!(batch[3]["files"], json!([]), "{host:?}: {:#}", batch[3]);
    }
}
