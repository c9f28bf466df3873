//! Host facts, both ways, and the differential test against the real hosts.
//!
//! `fixtures/hosts/<host>@<version>/<case>/` is a small project (role files at the
//! paths the host discovers) with `expect.json`: what the case shows, and exactly
//! the findings `pwk lint --host <host>@<version>` must give — none for a file the
//! host handles as written. The directory names the profile; no test code picks it.
//!
//! [`real_hosts_agree_with_lint`] runs every fixture (these and the rule fixtures of
//! `fixtures/lint/`) through each host the oracle can load (the hosts' own loader
//! code, tests/oracle/) and fails where pwk's verdict for that host contradicts what
//! the host did: an error saying the host skips a file it loaded, silence on a file it
//! skipped or misread (tools lost, a bound dropped), or a different identity or tool
//! set than the host gives the child.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::oracle::{Host, oracle_bin, run_oracle_batch};
use crate::support::{TestEnv, diagnostics, json, lint_doc, repo_root, run};

/// Every host-fact case: (profile spec, case name, directory).
fn cases() -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    let root = repo_root().join("fixtures/hosts");
    for spec in std::fs::read_dir(&root).unwrap() {
        let spec = spec.unwrap().path();
        for case in std::fs::read_dir(&spec).unwrap() {
            let case = case.unwrap().path();
            out.push((
                name(&spec).to_string(),
                name(&case).to_string(),
                case.clone(),
            ));
        }
    }
    out.sort();
    out
}

fn name(p: &Path) -> &str {
    p.file_name().unwrap().to_str().unwrap()
}

/// Every file under `dir`, relative, `/`-separated, sorted (`expect.json` left out).
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_str().unwrap().to_string();
                if rel != "expect.json" {
                    out.push(rel);
                }
            }
        }
    }
    out.sort();
    out
}

/// A fresh project holding `files` (relative path → content), with a `.git` marker so
/// the project root is the temp dir itself.
fn project(files: &[(String, Vec<u8>)]) -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    for (rel, bytes) in files {
        env.write(rel, bytes);
    }
    env
}

fn case_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    tree(dir)
        .into_iter()
        .map(|rel| {
            let bytes = std::fs::read(dir.join(&rel)).unwrap();
            (rel, bytes)
        })
        .collect()
}

fn lint(env: &TestEnv, spec: &str) -> Value {
    lint_doc(env, &["--allow-empty", "--host", spec])
}

/// A finding as the fixtures state it: (rule, severity, file, line).
type Finding = (String, String, String, u64);

/// One finding, from pwk's JSON (`path_key` = `path`) or an `expect.json` (`file`).
fn finding(d: &Value, path_key: &str) -> Finding {
    (
        d["rule"].as_str().unwrap().to_string(),
        d["severity"].as_str().unwrap().to_string(),
        d[path_key].as_str().unwrap().to_string(),
        d["line"].as_u64().unwrap(),
    )
}

/// Every finding of a `pwk lint --format json` document.
fn findings(doc: &Value) -> BTreeSet<Finding> {
    diagnostics(doc)
        .iter()
        .map(|d| finding(d, "path"))
        .collect()
}

/// A case's `expect.json`.
fn expectation(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("expect.json")).unwrap()).unwrap()
}

#[test]
fn host_facts_lint_as_expected() {
    let mut wrong = Vec::new();
    let all = cases();
    assert!(all.len() >= 30, "only {} host-fact cases", all.len());
    for (spec, case, dir) in &all {
        let expect = expectation(dir);
        assert!(
            expect["shows"].as_str().is_some_and(|s| !s.is_empty()),
            "{spec}/{case}: expect.json must say what the case shows"
        );
        let want: BTreeSet<Finding> = expect["lint"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| finding(d, "file"))
            .collect();
        let env = project(&case_files(dir));
        let doc = lint(&env, spec);
        let got = findings(&doc);
        if got != want {
            wrong.push(format!(
                "{spec}/{case} ({}):\n  expected {want:?}\n  got      {got:?}\n  {}",
                expect["shows"],
                diagnostics(&doc)
                    .iter()
                    .map(|d| format!("{}: {}", d["rule"], d["message"]))
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    // Each profile with facts has a firing and a non-firing case.
    let specs: BTreeSet<&str> = all.iter().map(|(s, _, _)| s.as_str()).collect();
    for spec in specs {
        let (mut fires, mut clean) = (0, 0);
        for (_, _, dir) in all.iter().filter(|(s, _, _)| s == spec) {
            if expectation(dir)["lint"].as_array().unwrap().is_empty() {
                clean += 1;
            } else {
                fires += 1;
            }
        }
        assert!(
            fires > 0 && clean > 0,
            "{spec}: {fires} firing, {clean} clean cases"
        );
    }
}

/// Whether a finding claims the host does not load the file at all.
fn claims_not_loaded(message: &str) -> bool {
    [
        "skip",
        "refuse",
        "fails to load",
        "not see",
        "will not find",
    ]
    .iter()
    .any(|w| message.contains(w))
}

/// The oracle hosts and the pwk profile that describes each.
const ORACLE_HOSTS: [(Host, &str); 2] = [
    (Host::Tintinweb, "tintinweb@0.14"),
    (Host::Nicobailon, "nicobailon@0.67"),
];

/// Every fixture as a project: the host-fact cases as they are, and each rule fixture
/// of `fixtures/lint/` placed in `.pi/agents/` (a tree fixture as it is).
/// A project's files: (relative path, content).
type Files = Vec<(String, Vec<u8>)>;

fn all_fixture_projects() -> Vec<(String, Files)> {
    let mut out: Vec<(String, Files)> = cases()
        .into_iter()
        .map(|(spec, case, dir)| (format!("hosts/{spec}/{case}"), case_files(&dir)))
        .collect();
    let lint = repo_root().join("fixtures/lint");
    for spec in std::fs::read_dir(&lint).unwrap() {
        let spec = spec.unwrap().path();
        for f in std::fs::read_dir(&spec).unwrap() {
            let f = f.unwrap().path();
            let label = format!("lint/{}/{}", name(&spec), name(&f));
            if f.is_dir() {
                out.push((label, case_files(&f)));
            } else {
                out.push((
                    label,
                    vec![(
                        format!(".pi/agents/{}", name(&f)),
                        std::fs::read(&f).unwrap(),
                    )],
                ));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// [`all_fixture_projects`], each written out: the labels and the projects, in order
/// (one project serves every host: neither the oracle nor pwk writes to it).
fn fixture_envs() -> (Vec<String>, Vec<TestEnv>) {
    all_fixture_projects()
        .into_iter()
        .map(|(label, files)| (label, project(&files)))
        .unzip()
}

#[test]
fn real_hosts_agree_with_lint() {
    let Some(oracle) = oracle_bin() else { return };
    let mut disagreements = Vec::new();
    let (mut checked, mut files_compared) = (0usize, 0usize);
    let (labels, envs) = fixture_envs();
    let roots: Vec<&Path> = envs.iter().map(TestEnv::root).collect();
    for (host, spec) in ORACLE_HOSTS {
        let reals = run_oracle_batch(&oracle, host, &roots);
        for ((label, env), real) in labels.iter().zip(&envs).zip(reals) {
            checked += 1;
            let doc = lint(env, spec);
            let listed = json(&run(env
                .pwk()
                .args(["list", "--format", "json", "--host", spec])));
            for f in real["files"].as_array().unwrap() {
                let file = f["file"].as_str().unwrap();
                let outcome = f["outcome"].as_str().unwrap();
                let message = f["message"].as_str().unwrap_or_default();
                // Only role files in directories this host reads are judged.
                if message.starts_with("not read") || message.contains("shadowed") {
                    continue;
                }
                files_compared += 1;
                let mine: Vec<&Value> = diagnostics(&doc)
                    .iter()
                    .filter(|d| d["path"] == file)
                    .collect();
                let errors: Vec<&Value> = mine
                    .iter()
                    .copied()
                    .filter(|d| d["severity"] == "error")
                    .collect();
                let skipped_by_pwk = doc["skipped"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|s| s["path"] == file);
                let say = |what: String| format!("{label} under {spec}: {file}: {what}");
                // A README.md the host skips is documentation: pwk's note that no
                // host loads it as a role is the agreeing verdict (not an error).
                let said_not_a_role = mine.iter().any(|d| d["rule"] == "readme-in-agents-dir");
                if outcome != "loaded" {
                    if errors.is_empty() && !skipped_by_pwk && !said_not_a_role {
                        disagreements.push(say(format!(
                            "the host {outcome} it ({message}), pwk reports no error"
                        )));
                    }
                    continue;
                }
                if skipped_by_pwk {
                    disagreements.push(say("the host loads it, pwk skips it".into()));
                }
                for e in &errors {
                    if claims_not_loaded(e["message"].as_str().unwrap()) {
                        disagreements.push(say(format!(
                            "the host loads it, but pwk's error says it does not: [{}] {}",
                            e["rule"], e["message"]
                        )));
                    }
                }
                // Identity: what pwk lists the file as.
                let row = listed["roles"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["path"] == file);
                let identity = f["identity"].as_str().unwrap_or_default();
                match row {
                    Some(r) if r["name"] == identity => {}
                    Some(r) => disagreements.push(say(format!(
                        "the host calls it `{identity}`, pwk lists it as {}",
                        r["name"]
                    ))),
                    None => {
                        let shadowed = listed["roles"].as_array().unwrap().iter().any(|r| {
                            r["shadows"]
                                .as_array()
                                .is_some_and(|s| s.iter().any(|x| x["path"] == file))
                        });
                        if !shadowed {
                            disagreements.push(say(format!(
                                "the host loads it as `{identity}`, pwk does not list it"
                            )));
                        }
                    }
                }
                // Tools: what the child gets.
                if let Some(real_tools) = f["tools"].as_array() {
                    let show = json(&run(env
                        .pwk()
                        .args(["show", identity, "--format", "json", "--host", spec])));
                    let set = |v: &Value| -> BTreeSet<String> {
                        v.as_array()
                            .map(|a| {
                                a.iter()
                                    .filter_map(|s| s.as_str().map(str::to_string))
                                    .collect()
                            })
                            .unwrap_or_default()
                    };
                    let theirs = set(&Value::Array(real_tools.clone()));
                    let ours = set(&show["runtime"]["tools"]["effective"]);
                    // Where pwk could not read the file (it says so in a finding),
                    // it predicts nothing about its tools.
                    let unread = row.is_some_and(|r| r["broken"] == true) && !mine.is_empty();
                    if show["name"] == identity && ours != theirs && !unread {
                        disagreements
                            .push(say(format!("the child gets {theirs:?}, pwk says {ours:?}")));
                    }
                    // A misread list must not pass in silence.
                    // (Tokens such as `*` and `none` are not names: when pwk predicted
                    // what the host made of them, they were read, not dropped.)
                    let declared = set(&show["runtime"]["tools"]["declared"]);
                    let builtins: BTreeSet<String> = declared
                        .iter()
                        .filter(|t| {
                            theirs.contains(*t)
                                || (ours == theirs && ["*", "all", "none"].contains(&t.as_str()))
                        })
                        .cloned()
                        .collect();
                    if show["name"] == identity
                        && !show["runtime"]["tools"]["declared"].is_null()
                        && builtins != declared
                        && mine.is_empty()
                    {
                        disagreements.push(say(format!(
                            "the host drops {:?} from the tools, pwk says nothing",
                            declared.difference(&builtins).collect::<Vec<_>>()
                        )));
                    }
                }
            }
        }
    }
    eprintln!("host oracle: {checked} fixture × host runs, {files_compared} role files compared");
    assert!(checked >= 100, "only {checked} fixture × host runs");
    assert!(
        disagreements.is_empty(),
        "{} disagreements with the real hosts:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

#[test]
fn pi_parser_agrees_with_lint() {
    let Some(oracle) = oracle_bin() else { return };
    let mut disagreements = Vec::new();
    let mut checked = 0usize;
    let (labels, envs) = fixture_envs();
    let roots: Vec<&Path> = envs.iter().map(TestEnv::root).collect();
    // pi's own frontmatter parser (both generations): pwk's YAML verdict must match
    // it, for the rules that say "YAML rejects this".
    for pi in [Host::Pi073, Host::Pi16] {
        let reals = run_oracle_batch(&oracle, pi, &roots);
        for ((label, env), real) in labels.iter().zip(&envs).zip(reals) {
            checked += 1;
            // A fixture of a host with its own directories (claude-code, gemini,
            // copilot) puts its
            // files there: lint them with that host (the same YAML parser).
            let own = label
                .strip_prefix("hosts/")
                .and_then(|l| l.split('/').next())
                .filter(|spec| {
                    !["pwk", "tintinweb", "nicobailon", "herdr"]
                        .iter()
                        .any(|pi| spec.split('@').next() == Some(*pi))
                });
            let doc = lint(env, own.unwrap_or("pwk"));
            for f in real["files"].as_array().unwrap() {
                let file = f["file"].as_str().unwrap();
                let yaml_claims: Vec<&Value> = diagnostics(&doc)
                    .iter()
                    .filter(|d| {
                        d["path"] == file
                            && ["yaml-syntax", "duplicate-key", "tab-indentation"]
                                .contains(&d["rule"].as_str().unwrap())
                    })
                    .collect();
                let parsed = f["outcome"] == "loaded";
                if parsed && !yaml_claims.is_empty() {
                    disagreements.push(format!(
                        "{label}: {file}: pi {} parses it, pwk says {}",
                        pi.spec(),
                        yaml_claims[0]["message"]
                    ));
                }
                let errors = diagnostics(&doc)
                    .iter()
                    .filter(|d| d["path"] == file && d["severity"] == "error")
                    .count();
                // Claude Code and OpenCode repair what pi's strict parser rejects:
                // there, the YAML finding (a warning) is pwk's verdict.
                let repaired = own
                    .is_some_and(|s| s.starts_with("claude-code@") || s.starts_with("opencode@"))
                    && !yaml_claims.is_empty();
                // A host pwk knows only from its documentation (Antigravity CLI,
                // goose: the profile's `confidence`) reports it, as a warning.
                let documented_only = !yaml_claims.is_empty()
                    && yaml_claims.iter().all(|d| {
                        d["message"]
                            .as_str()
                            .is_some_and(|m| m.contains("only from its documentation"))
                    });
                if !parsed && errors == 0 && !repaired && !documented_only {
                    disagreements.push(format!(
                        "{label}: {file}: pi {} cannot parse it ({}), pwk reports no error",
                        pi.spec(),
                        f["message"]
                    ));
                }
            }
        }
    }
    eprintln!("pi parser oracle: {checked} fixture × pi runs");
    assert!(checked >= 100, "only {checked} fixture × pi runs");
    assert!(
        disagreements.is_empty(),
        "{} disagreements with pi's parser:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// The agent CLIs the CLI oracle runs, each with the fixture directories (profiles)
/// whose cases it judges.
const CLI_HOSTS: [&str; 4] = ["claude-code", "copilot", "opencode", "gemini"];

/// A Claude Code model as the API sees it, from what pwk says the role asks for:
/// an alias resolves (case-insensitively) to that family; none or `inherit` is the
/// main thread's model.
/// `[1m]` (the long-context variant) is the same family; `best` resolves to opus in
/// 2.1.332 (measured: `model: best` runs on claude-opus-5-5).
fn claude_model_agrees(pwk: Option<&str>, host: &str, main: &str) -> bool {
    let lower = pwk.map(str::to_ascii_lowercase);
    let family = lower.as_deref().map(|m| m.trim_end_matches("[1m]"));
    match family {
        None | Some("inherit") => host == main,
        Some("best") => host.contains("-opus-"),
        Some(alias @ ("sonnet" | "opus" | "haiku" | "fable")) => {
            host.contains(&format!("-{alias}-"))
        }
        Some(_) => host.eq_ignore_ascii_case(lower.as_deref().unwrap_or_default()),
    }
}

#[test]
fn real_cli_hosts_agree_with_lint() {
    let Some(oracle) = crate::oracle::cli_oracle_bin() else {
        return;
    };
    let mut disagreements = Vec::new();
    let mut counts = Vec::new();
    for host in CLI_HOSTS {
        let fixtures: Vec<(String, String, PathBuf)> = cases()
            .into_iter()
            .filter(|(spec, _, _)| spec.split('@').next() == Some(host))
            .collect();
        assert!(!fixtures.is_empty(), "no fixtures for {host}");
        let envs: Vec<TestEnv> = fixtures
            .iter()
            .map(|(_, _, dir)| project(&case_files(dir)))
            .collect();
        let roots: Vec<&Path> = envs.iter().map(TestEnv::root).collect();
        let docs = crate::oracle::run_cli_oracle(&oracle, host, &roots);
        let mut files_compared = 0usize;
        for (((spec, case, _), env), real) in fixtures.iter().zip(&envs).zip(&docs) {
            let say = |what: String| format!("{spec}/{case}: {what}");
            let doc = lint(env, spec);
            let diags = diagnostics(&doc);
            let errors_in = |file: &str| -> Vec<&Value> {
                diags
                    .iter()
                    .filter(|d| d["path"] == file && d["severity"] == "error")
                    .collect()
            };
            if let Some(fatal) = real["fatal"].as_str() {
                // Only OpenCode refuses to start over an agent file; anything else is
                // the oracle failing.
                assert!(
                    host == "opencode" && fatal.contains("Configuration is invalid"),
                    "{spec}/{case}: the {host} oracle did not run: {fatal}"
                );
                if !diags.iter().any(|d| d["severity"] == "error") {
                    disagreements.push(say(format!(
                        "{host} refuses to start ({fatal}), pwk reports no error"
                    )));
                }
                continue;
            }
            let listed = json(&run(env
                .pwk()
                .args(["list", "--format", "json", "--host", spec])));
            let roles: Vec<&Value> = listed["roles"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["source"] == "project" && r["visible"] == true)
                .collect();
            let agents = real["agents"].as_array().unwrap();
            // Every role pwk lists: loaded by the host, or an error in pwk.
            for r in &roles {
                files_compared += 1;
                let file = r["path"].as_str().unwrap();
                let agent = agents
                    .iter()
                    .find(|a| a["name"] == r["name"] || a["id"] == r["name"]);
                let Some(agent) = agent else {
                    if errors_in(file).is_empty() {
                        disagreements.push(say(format!(
                            "{file}: {host} does not load it ({}), pwk reports no error",
                            real["messages"]
                        )));
                    }
                    continue;
                };
                if let Some(e) = agent["error"].as_str() {
                    if errors_in(file).is_empty() {
                        disagreements.push(say(format!(
                            "{file}: {host} lists it but refuses to spawn it ({e}), pwk reports no error"
                        )));
                    }
                    continue;
                }
                for e in errors_in(file) {
                    let m = e["message"].as_str().unwrap();
                    if claims_not_loaded(m) || m.contains("drop") {
                        disagreements.push(say(format!(
                            "{file}: {host} loads it, but pwk's error says it does not: [{}] {m}",
                            e["rule"]
                        )));
                    }
                }
                let show = json(&run(env.pwk().args([
                    "show",
                    r["name"].as_str().unwrap(),
                    "--format",
                    "json",
                    "--host",
                    spec,
                ])));
                if let (Some(theirs), Some(ours)) =
                    (agent["description"].as_str(), show["description"].as_str())
                    && theirs.trim() != ours.trim()
                {
                    disagreements.push(say(format!(
                        "{file}: {host}'s description is {theirs:?}, pwk says {ours:?}"
                    )));
                }
                if let Some(given) = agent["tools"].as_array() {
                    // What the child can load through ToolSearch is the child's too
                    // (`*`, the whole set, includes them).
                    let mut theirs = given.clone();
                    if given.iter().all(|t| t != "*") {
                        theirs.extend(
                            agent["tools_deferred"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .cloned(),
                        );
                    }
                    let set = |v: &Value| -> BTreeSet<String> {
                        v.as_array()
                            .map(|a| {
                                a.iter()
                                    .filter_map(|s| s.as_str().map(str::to_string))
                                    .collect()
                            })
                            .unwrap_or_default()
                    };
                    let theirs = set(&Value::Array(theirs));
                    // A tool the host's settings deny every call of stays in
                    // `effective`, marked in `limits`: the host takes it out of the
                    // child's context.
                    let denied: BTreeSet<String> = show["runtime"]["tools"]["limits"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|l| l["calls"] == "denied by settings")
                        .filter_map(|l| l["tool"].as_str().map(str::to_string))
                        .collect();
                    let ours: BTreeSet<String> = set(&show["runtime"]["tools"]["effective"])
                        .difference(&denied)
                        .cloned()
                        .collect();
                    // `*` (the oracle: what the built-in general-purpose agent gets):
                    // pwk must give the host's default set.
                    let every = show["runtime"]["tools"]["host_default"] == true
                        || show["runtime"]["tools"]["note"]
                            .as_str()
                            .is_some_and(|n| n.starts_with("every"));
                    let star = theirs.len() == 1 && theirs.contains("*");
                    if theirs != ours && !(star && every) {
                        disagreements.push(say(format!(
                            "{file}: the child gets {theirs:?} from {host}, pwk says {ours:?}"
                        )));
                    }
                }
                if host == "claude-code" {
                    let ours = show["runtime"]["model"]["effective"].as_str();
                    let theirs = agent["model"].as_str().unwrap_or_default();
                    let main = real["main_model"].as_str().unwrap_or_default();
                    if !claude_model_agrees(ours, theirs, main) {
                        disagreements.push(say(format!(
                            "{file}: {host} runs it on {theirs}, pwk says {ours:?}"
                        )));
                    }
                }
            }
            // Every key the host says it ignored (`unknown field(s) ignored: a, b`):
            // a pwk finding names it.
            for m in real["messages"].as_array().into_iter().flatten() {
                let m = m.as_str().unwrap_or_default();
                let Some((file, keys)) = m.split_once(": unknown field") else {
                    continue;
                };
                let keys = keys.split_once("ignored: ").map_or("", |(_, k)| k);
                for key in keys.split(',').map(str::trim).filter(|k| !k.is_empty()) {
                    let named = diags.iter().any(|d| {
                        file.ends_with(d["path"].as_str().unwrap_or("\u{0}"))
                            && d["message"]
                                .as_str()
                                .is_some_and(|t| t.contains(&format!("`{key}`")))
                    });
                    if !named {
                        disagreements.push(say(format!(
                            "{file}: {host} warns that it ignores `{key}`, pwk says nothing about it"
                        )));
                    }
                }
            }
            // Every agent the host loads: listed by pwk.
            for a in agents {
                if !roles
                    .iter()
                    .any(|r| r["name"] == a["name"] || r["name"] == a["id"])
                {
                    disagreements.push(say(format!(
                        "{host} loads `{}`, pwk does not list it",
                        a["name"]
                    )));
                }
            }
        }
        counts.push(format!(
            "{host}: {} fixtures, {files_compared} role files",
            fixtures.len()
        ));
    }
    eprintln!("CLI host oracle: {}", counts.join("; "));
    assert!(
        disagreements.is_empty(),
        "{} disagreements with the real CLIs:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
