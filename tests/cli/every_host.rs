//! The runtime commands speak every host of the registry (issue 31 item 1):
//! `new --host H` writes a template into H's own directory that lints clean as
//! H reads it, and no output about a role of a host with its own CLI (Claude
//! Code, OpenCode, Gemini CLI, Copilot CLI) speaks of pi. Both are generated over
//! the hosts of `schemas/hosts/`, so a host added there is covered.

use serde_json::Value;

use crate::support::{Output, TestEnv, run};

/// Every host of the registry that runs roles itself (not a pi host).
fn cli_hosts() -> Vec<pwk::host::HostId> {
    pwk::host::ALL.into_iter().filter(|h| !h.is_pi()).collect()
}

/// Whether every project directory of `host` is its own, so that a role there is
/// the host's by its place with no `--host` (Claude Code's `.claude/agents/`). A host
/// that also reads a shared directory (`pwk::host::SHARED_DIRS`: Antigravity CLI and
/// goose read `.agents/agents/`, where `new` writes for them) is named by `--host` or
/// `host` in pwk.toml there: the place says nothing about its host.
fn named_by_place(host: pwk::host::HostId) -> bool {
    !host
        .project_dirs()
        .any(|d| pwk::host::SHARED_DIRS.contains(&d))
}

/// Words that would mean pi speaks for a host that is not pi.
fn pi_words() -> regex::Regex {
    regex::Regex::new(
        r#"(?i)\bpi's\b|\bon pi\b|runs on\s+pi\b|\bpi\s+(host|settings|model|runs|clamps)\b|\.pi/|~/\.pi\b|PI_CODING_AGENT_DIR|pi-herdr|tintinweb|nicobailon|herdr|invocation\s+(unset|decides|not reached|falls back)\s+--model|invocation\s+\(--model\)|"from":\s*"--model""#,
    )
    .unwrap()
}

fn project() -> TestEnv {
    let env = TestEnv::new();
    env.write(".git/HEAD", "ref: refs/heads/main\n");
    // pi's own directories exist on this machine: they must still not be named
    // for another host's role.
    std::fs::create_dir_all(env.home.join(".pi/agent/agents")).unwrap();
    env
}

/// The one file `new` wrote under the host's project directories.
fn written(env: &TestEnv, host: pwk::host::HostId) -> String {
    let mut found = Vec::new();
    for dir in host.project_dirs() {
        if let Ok(rd) = std::fs::read_dir(env.path(dir)) {
            found.extend(
                rd.flatten()
                    .map(|e| format!("{dir}/{}", e.file_name().to_string_lossy())),
            );
        }
    }
    assert_eq!(found.len(), 1, "{host}: {found:?}");
    found.remove(0)
}

/// `pwk new --host H` (and `host = "H"` in pwk.toml) of each kind a host with its
/// own CLI has: the file is in H's directory, named as H names files, lints clean
/// under H with no `--host` (the directory decides, as for any file), carries no
/// key H does not read, and `pwk show` then finds it as H's role.
#[test]
fn new_writes_a_clean_template_into_each_cli_hosts_directory() {
    for host in cli_hosts() {
        let h = host.as_str();
        for kind in ["leaf", "coordinator"] {
            for by_config in [false, true] {
                let env = project();
                let out = if by_config {
                    env.write("pwk.toml", format!("host = \"{h}\"\n"));
                    run(env.pwk().args(["new", "fresh-role", "--kind", kind]))
                } else {
                    run(env
                        .pwk()
                        .args(["new", "fresh-role", "--kind", kind, "--host", h]))
                };
                let what = format!("{h} {kind} (pwk.toml: {by_config})");
                assert_eq!(out.code, 0, "{what}: {}{}", out.stdout, out.stderr);
                let file = written(&env, host);
                assert!(
                    out.stdout
                        .starts_with(&format!("Created {file} ({kind} role).\n")),
                    "{what}: {}",
                    out.stdout
                );
                // In a shared directory the host is named (pwk.toml, or `--host`).
                let named: &[&str] = if by_config || named_by_place(host) {
                    &[]
                } else {
                    &["--host", h]
                };
                let lint = run(env
                    .pwk()
                    .args(["lint", "--deny-warnings", "--format", "concise"])
                    .args(named));
                assert_eq!(
                    lint.code,
                    0,
                    "{what}: {}{}\n{}",
                    lint.stdout,
                    lint.stderr,
                    env.read(&file)
                );
                assert!(
                    lint.stdout.starts_with(&format!("1 file checked for {h}@")),
                    "{what}: {}",
                    lint.stdout
                );
                assert!(
                    lint.stdout.contains(": no problems."),
                    "{what}: {}",
                    lint.stdout
                );
                let show = run(env
                    .pwk()
                    .args(["show", "fresh-role", "--format", "json"])
                    .args(named));
                assert_eq!(show.code, 0, "{what}: {}", show.stderr);
                let doc: Value = serde_json::from_str(&show.stdout).unwrap();
                assert_eq!(doc["host"], h, "{what}");
                assert_eq!(doc["path"], file.as_str(), "{what}");
                let text = env.read(&file);
                if let Some(m) = pi_words().find(&text) {
                    panic!(
                        "{what}: pi wording `{}` in the template:\n{text}",
                        m.as_str()
                    );
                }
            }
        }
        // An adapter runs an external CLI under a pi host: refused, nothing written.
        let env = project();
        let out = run(env
            .pwk()
            .args(["new", "fresh-role", "--kind", "adapter", "--host", h]));
        assert_eq!(out.code, 2, "{h}: {}{}", out.stdout, out.stderr);
        assert!(out.stderr.contains("--kind leaf"), "{h}: {}", out.stderr);
        for dir in host.project_dirs() {
            assert!(!env.path(dir).exists(), "{h}: {dir} written");
        }
    }
}

/// Hosts × commands: every output about a role of a host with its own CLI —
/// `new`, `list`, `show`, `smoke`, human and JSON, with `--host H` and as
/// detected from H's directory — names neither pi, its directories, its settings
/// nor a pi extension, even where pi's directories exist on the machine.
#[test]
fn no_output_about_a_cli_hosts_role_speaks_of_pi() {
    let re = pi_words();
    for host in cli_hosts() {
        let h = host.as_str();
        let env = project();
        let new = run(env.pwk().args(["new", "probe", "--host", h]));
        assert_eq!(new.code, 0, "{h}: {}", new.stderr);
        let mut outputs: Vec<(String, Output)> = vec![(format!("new --host {h}"), new)];
        let commands: [&[&str]; 6] = [
            &["list"],
            &["list", "--format", "json"],
            &["show", "probe"],
            &["show", "probe", "--format", "json"],
            &["smoke", "probe"],
            &["smoke", "probe", "--format", "json"],
        ];
        for args in commands {
            let mut with_host = args.to_vec();
            with_host.extend(["--host", h]);
            let out = run(env.pwk().args(&with_host));
            assert_eq!(
                out.code, 0,
                "{h} {with_host:?}: {}{}",
                out.stdout, out.stderr
            );
            outputs.push((with_host.join(" "), out));
            // Detected from the directory (`list` then lists pi's own roles too,
            // under pi's heading: only the role's own commands are checked).
            if args[0] != "list" && named_by_place(host) {
                let out = run(env.pwk().args(args));
                assert_eq!(out.code, 0, "{h} {args:?}: {}{}", out.stdout, out.stderr);
                assert!(out.stdout.contains(h), "{h} {args:?}: {}", out.stdout);
                outputs.push((args.join(" "), out));
            }
        }
        for (what, out) in &outputs {
            for text in [&out.stdout, &out.stderr] {
                if let Some(m) = re.find(text) {
                    panic!("{h}: `pwk {what}` says `{}`:\n{text}", m.as_str());
                }
            }
        }
    }
}

/// A repository holding roles of Claude Code (one in the user's own directory
/// too, shadowed), OpenCode, Gemini CLI, Copilot CLI and pi (`scout`, which a
/// Gemini file names too).
fn mixed() -> TestEnv {
    let env = project();
    env.write(
        ".claude/agents/code-reviewer.md",
        "---\nname: code-reviewer\ndescription: Reviews a diff.\ntools: Read, Grep, Bash\nmodel: sonnet\nmaxTurns: 7\n---\nReview.\n",
    );
    std::fs::create_dir_all(env.home.join(".claude/agents")).unwrap();
    std::fs::write(
        env.home.join(".claude/agents/code-reviewer.md"),
        "---\nname: code-reviewer\ndescription: The user's reviewer.\ntools: Read\n---\nX.\n",
    )
    .unwrap();
    env.write(
        ".opencode/agents/planner.md",
        "---\ndescription: Plans a change.\nmodel: anthropic/claude-x\nsteps: 9\npermission:\n  edit: deny\n---\nPlan.\n",
    );
    env.write(
        ".gemini/agents/scout.md",
        "---\nname: scout\ndescription: Gemini's scout.\ntools: [read_file, grep_search]\nmax_turns: 4\n---\nLook.\n",
    );
    env.write(
        ".github/agents/docs.agent.md",
        "---\nname: docs\ndescription: Writes docs.\ntools: [read, edit]\n---\nWrite.\n",
    );
    env.write(
        ".pi/agents/scout.md",
        "---\nname: scout\ndescription: pi's scout.\ntools: read, grep, find, ls\n---\nLook.\n",
    );
    env
}

/// `list` and `show` on a repository of every host: each role under its own
/// host, with that host's layers (Claude Code's user directory shadowed by the
/// project's) and the same name under two hosts told apart.
#[test]
fn list_and_show_describe_each_role_under_its_own_host() {
    let env = mixed();
    let list = run(env.pwk().arg("list"));
    assert_eq!(list.code, 0, "{}", list.stderr);
    env.insta_settings()
        .bind(|| insta::assert_snapshot!("every_host_list_human", list.stdout));
    let doc: Value =
        serde_json::from_str(&run(env.pwk().args(["list", "--format", "json"])).stdout).unwrap();
    let rows: Vec<String> = doc["roles"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["name"].as_str().unwrap().starts_with("pwk-"))
        .map(|r| {
            format!(
                "{} {} {} {} shadows={}",
                r["host"].as_str().unwrap(),
                r["name"].as_str().unwrap(),
                r["source"].as_str().unwrap(),
                r["path"].as_str().unwrap(),
                r["shadows"]
            )
        })
        .collect();
    env.insta_settings()
        .bind(|| insta::assert_snapshot!("every_host_list_rows", rows.join("\n")));
    let hosts: Vec<&str> = doc["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["host"].as_str().unwrap())
        .collect();
    assert_eq!(
        hosts,
        ["pwk", "claude-code", "gemini", "copilot", "opencode"]
    );

    let show = run(env.pwk().args(["show", "code-reviewer"]));
    assert_eq!(show.code, 0, "{}", show.stderr);
    env.insta_settings()
        .bind(|| insta::assert_snapshot!("every_host_show_claude_human", show.stdout));
    if let Some(m) = pi_words().find(&show.stdout) {
        panic!("pi wording `{}` in:\n{}", m.as_str(), show.stdout);
    }
    // smoke: what Claude Code would run, not a pi launch.
    let smoke = run(env.pwk().args(["smoke", "code-reviewer"]));
    assert_eq!(smoke.code, 0, "{}", smoke.stderr);
    env.insta_settings()
        .bind(|| insta::assert_snapshot!("every_host_smoke_claude_human", smoke.stdout));
    let refused = run(env.pwk().args(["smoke", "code-reviewer", "--run"]));
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("--run"), "{}", refused.stderr);
    // The same name under pi and Gemini: the project's host first, the other named.
    let scout: Value =
        serde_json::from_str(&run(env.pwk().args(["show", "scout", "--format", "json"])).stdout)
            .unwrap();
    assert_eq!(scout["host"], "pwk");
    assert_eq!(scout["path"], ".pi/agents/scout.md");
    assert_eq!(scout["also_read_by"][0]["host"], "gemini");
    assert_eq!(scout["also_read_by"][0]["path"], ".gemini/agents/scout.md");
    let gemini: Value = serde_json::from_str(
        &run(env
            .pwk()
            .args(["show", "scout", "--host", "gemini", "--format", "json"]))
        .stdout,
    )
    .unwrap();
    assert_eq!(gemini["host"], "gemini");
    assert_eq!(gemini["path"], ".gemini/agents/scout.md");
    assert_eq!(gemini["runtime"]["max_turns"]["value"], 4);
    assert_eq!(gemini["runtime"]["kind"], "host-cli");
}

/// The MCP role tools and resources (through the official SDK client) answer as
/// `pwk list` and `pwk show` do: every host's roles, each under its host; a name
/// two hosts read is one resource each (`?host=` for the second).
#[test]
fn mcp_role_tools_and_resources_cover_every_host() {
    let Some(client) = crate::mcp::mcp_client() else {
        return;
    };
    let env = mixed();
    let args = serde_json::json!({
        "names": ["code-reviewer", "planner", "docs", "scout"],
        "read": ["pwk://roles/scout", "pwk://roles/scout?host=gemini", "pwk://roles/code-reviewer"],
    });
    let v = crate::mcp::drive(crate::mcp::client_cmd(
        &env,
        &client,
        "roles",
        env.root(),
        &args,
    ));
    let r = &v["result"];
    let cli: Value =
        serde_json::from_str(&run(env.pwk().args(["list", "--format", "json"])).stdout).unwrap();
    assert_eq!(r["roles"]["roles"], cli["roles"], "list_roles = pwk list");
    let hosts: Vec<&str> = r["shown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["host"].as_str().unwrap())
        .collect();
    assert_eq!(hosts, ["claude-code", "opencode", "copilot", "pwk"]);
    for s in r["shown"].as_array().unwrap().iter().take(3) {
        let text = s.to_string();
        if let Some(m) = pi_words().find(&text) {
            panic!("show_role {}: pi wording `{}`", s["name"], m.as_str());
        }
    }
    let uris: Vec<&str> = r["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["uri"].as_str().unwrap())
        .filter(|u| !u.starts_with("pwk://roles/pwk-"))
        .collect();
    assert_eq!(
        uris,
        [
            "pwk://roles/scout",
            "pwk://roles/code-reviewer",
            "pwk://roles/scout?host=gemini",
            "pwk://roles/docs",
            "pwk://roles/planner",
        ]
    );
    assert_eq!(
        r["texts"]["pwk://roles/scout"],
        env.read(".pi/agents/scout.md")
    );
    assert_eq!(
        r["texts"]["pwk://roles/scout?host=gemini"],
        env.read(".gemini/agents/scout.md")
    );
    assert_eq!(
        r["texts"]["pwk://roles/code-reviewer"],
        env.read(".claude/agents/code-reviewer.md")
    );
}

/// The language server describes a buffer as the host whose directory holds it
/// reads it (as `pwk lint` picks it), whatever the workspace's host: hover on
/// `model` (key and value) and completion of its value speak of that host, never
/// of pi. Generated over the hosts with their own CLI.
#[test]
fn lsp_hover_and_completion_speak_the_buffers_host() {
    use crate::support::lsp_client::{LspClient, file_uri};
    let re = pi_words();
    for host in cli_hosts() {
        let h = host.as_str();
        let env = project();
        // A host whose only project directory is shared (Antigravity CLI) is
        // named by pwk.toml there.
        let dir = match host.own_project_dirs().last() {
            Some(dir) => dir,
            None => {
                env.write("pwk.toml", format!("host = \"{h}\"\n"));
                host.project_dirs().last().expect("a project directory")
            }
        };
        let text = "---\nname: probe\ndescription: Probes.\nmodel: \n---\nBody\n";
        let uri = file_uri(&env.write(&format!("{dir}/probe.md"), text));
        let mut cmd = env.pwk();
        cmd.arg("lsp");
        let mut c = LspClient::start(cmd);
        c.initialize(&file_uri(env.root()));
        c.notify(
            "textDocument/didOpen",
            serde_json::json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
        );
        let at = |line: u64, ch: u64| serde_json::json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": ch}});
        let key = c.request("textDocument/hover", at(3, 2));
        let key = key["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            key.contains(&format!("{h}@")),
            "{h}: hover on `model`:\n{key}"
        );
        let items = c.request("textDocument/completion", at(3, 7));
        let items = items["items"].as_array().cloned().unwrap_or_default();
        let completion = serde_json::to_string(&items).unwrap();
        // A value to hover: the first the host offers, else one of its own form.
        let value = items
            .first()
            .and_then(|i| i["label"].as_str())
            .unwrap_or("some-model")
            .to_string();
        let with_value = text.replace("model: \n", &format!("model: {value}\n"));
        c.notify(
            "textDocument/didChange",
            serde_json::json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": with_value}]}),
        );
        let hv = c.request("textDocument/hover", at(3, 8));
        let hv = hv["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            hv.contains(&format!("Model under {h}@")),
            "{h}: hover on the value:\n{hv}"
        );
        for (what, t) in [
            ("key hover", &key),
            ("value hover", &hv),
            ("completion", &completion),
        ] {
            if let Some(m) = re.find(t) {
                panic!("{h}: {what} says `{}`:\n{t}", m.as_str());
            }
        }
        c.shutdown();
    }
}

/// `new --host H` writes through the one writer anchored at the project root: when
/// the top directory of H's agents directory (`.claude`, `.github`, …) is a
/// symbolic link out of the project, nothing is written through it.
#[test]
fn new_for_a_cli_host_never_writes_through_a_symlinked_host_directory() {
    for host in cli_hosts() {
        let h = host.as_str();
        let env = project();
        let dir = host.project_dirs().last().expect("a project directory");
        let top = dir.split('/').next().unwrap();
        let outside = env.path("outside");
        std::fs::create_dir_all(outside.join(dir.trim_start_matches(top).trim_start_matches('/')))
            .unwrap();
        std::os::unix::fs::symlink(&outside, env.path(top)).unwrap();
        let out = run(env.pwk().args(["new", "probe", "--host", h]));
        assert_eq!(out.code, 2, "{h}: {}{}", out.stdout, out.stderr);
        assert!(out.stderr.contains(top), "{h}: {}", out.stderr);
        let written: Vec<_> = walk(&outside);
        assert!(
            written.is_empty(),
            "{h}: written through the link: {written:?}"
        );
    }
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// `value` at the dotted `key` of `doc` (objects made on the way).
fn set_dotted(doc: &mut Value, key: &str, value: Value) {
    let mut at = doc;
    for part in key.split('.') {
        at = at
            .as_object_mut()
            .expect("an object on the way")
            .entry(part)
            .or_insert_with(|| serde_json::json!({}));
    }
    *at = value;
}

/// A host with its own CLI is described with its own settings and model chain,
/// generated over its profile's `settings` (issue 31 item 1): every file it reads
/// is listed, every chain link its profile names comes in that order (no pi
/// `--model` link), a link's settings key set in the project's highest file and
/// its environment variable each show up as that link's value, each settings key
/// set is reported with its file; a host whose settings pwk knows nothing of says
/// "not known to pwk".
#[test]
fn each_cli_hosts_own_settings_files_and_model_chain() {
    for host in cli_hosts() {
        let h = host.as_str();
        let profile = host.newest();
        let env = project();
        let new = run(env.pwk().args(["new", "probe", "--host", h]));
        assert_eq!(new.code, 0, "{h}: {}", new.stderr);
        let show = |extra: &[(&str, &str)]| -> Value {
            let mut cmd = env.pwk();
            cmd.args(["show", "probe", "--host", h, "--format", "json"]);
            for (k, v) in extra {
                cmd.env(k, v);
            }
            let out = run(&mut cmd);
            assert_eq!(out.code, 0, "{h}: {}", out.stderr);
            serde_json::from_str(&out.stdout).unwrap()
        };
        // A turn limit the role does not set is the host's own default, or the
        // host reads none: never pi's "no turn budget".
        let plain = show(&[]);
        if plain["runtime"]["max_turns"]["value"].is_null() {
            let note = plain["runtime"]["max_turns"]["note"].as_str().unwrap();
            match profile
                .keys
                .values()
                .find(|f| f.setting == Some("max-turns"))
            {
                Some(f) => {
                    let d = f.default.unwrap();
                    assert!(note.contains(d), "{h}: `{note}` does not say `{d}`");
                }
                None => assert!(note.contains("reads no turn limit"), "{h}: {note}"),
            }
        }
        // `--model` is how pwk runs a role on pi: for this host it is said unused.
        let mut cmd = env.pwk();
        cmd.args([
            "show", "probe", "--host", h, "--model", "x/y", "--format", "json",
        ]);
        let with_model: Value = serde_json::from_str(&run(&mut cmd).stdout).unwrap();
        let notes = with_model["runtime"]["model"]["notes"].to_string();
        assert!(notes.contains("`--model x/y` is not used"), "{h}: {notes}");
        assert_ne!(with_model["runtime"]["model"]["effective"], "x/y", "{h}");
        let Some(set) = &*profile.settings else {
            let doc = show(&[]);
            let unread = doc["runtime"]["settings_unread"].to_string();
            assert!(unread.contains("not known to pwk"), "{h}: {unread}");
            let links: Vec<&str> = doc["runtime"]["model"]["chain"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["link"].as_str().unwrap())
                .collect();
            assert!(!links.contains(&"invocation"), "{h}: {links:?}");
            continue;
        };
        // The project's highest-priority file gets every chain link's key and
        // every settings key (`<role>` is the role's name).
        let top = set
            .files
            .iter()
            .rev()
            .find(|f| !f.path.starts_with('{'))
            .expect("a project settings file");
        let mut doc = serde_json::json!({});
        for step in &set.model_chain {
            if let Some(key) = &step.key {
                set_dotted(
                    &mut doc,
                    &key.replace("<role>", "probe"),
                    Value::String(format!("vendor/from-{}", step.link)),
                );
            }
        }
        for k in &set.keys {
            let key = k.key.replace("<role>", "probe");
            let mut probe = doc.clone();
            // A key a chain link already set (or a parent of one) keeps its value.
            if key.split('.').try_fold(&probe, |v, p| v.get(p)).is_none() {
                set_dotted(&mut probe, &key, Value::String("set".into()));
                doc = probe;
            }
        }
        env.write(top.path, serde_json::to_string_pretty(&doc).unwrap());
        let got = show(&[]);
        let rt = &got["runtime"];
        let files: Vec<&str> = rt["config_files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        for f in &set.files {
            let tail = f.path.trim_start_matches("{home}/");
            assert!(
                files.iter().any(|p| p.ends_with(tail)),
                "{h}: {tail} not in {files:?}"
            );
        }
        let chain = rt["model"]["chain"].as_array().unwrap();
        let links: Vec<&str> = chain.iter().map(|l| l["link"].as_str().unwrap()).collect();
        let want: Vec<&str> = set.model_chain.iter().map(|s| s.link).collect();
        assert_eq!(links, want, "{h}");
        for (step, link) in set.model_chain.iter().zip(chain) {
            if step.key.is_some() {
                assert_eq!(
                    link["value"],
                    format!("vendor/from-{}", step.link),
                    "{h}: {link}"
                );
                assert!(
                    link["from"].as_str().unwrap().contains(top.path),
                    "{h}: {link}"
                );
            }
            for var in &step.env {
                let by_env = show(&[(*var, "vendor/from-env")]);
                let l = by_env["runtime"]["model"]["chain"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|l| l["link"] == step.link)
                    .unwrap()
                    .clone();
                assert_eq!(l["value"], "vendor/from-env", "{h} ${var}: {l}");
                assert!(l["from"].as_str().unwrap().contains(*var), "{h}: {l}");
            }
        }
        let found: Vec<&str> = rt["settings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                assert_eq!(s["file"], top.path, "{h}: {s}");
                s["key"].as_str().unwrap()
            })
            .collect();
        for k in &set.keys {
            let key = k.key.replace("<role>", "probe");
            assert!(found.contains(&key.as_str()), "{h}: {key} not in {found:?}");
        }
        // What a key does to the role, each alone in the project's top file: a
        // turn limit it sets (over the file's own, or only where it has none), a
        // value or list entry that turns the role off.
        let file_turns = rt["max_turns"]["value"].as_u64();
        for k in &set.keys {
            let key = k.key.replace("<role>", "probe");
            let mut effects: Vec<(Value, &str)> = Vec::new();
            if k.sets == Some("max-turns") {
                effects.push((Value::from(77), "turns"));
            }
            if let Some(v) = &k.disables {
                effects.push((v.clone(), "off"));
            }
            if let Some(e) = &k.disables_entry {
                effects.push((serde_json::json!([e.replace("<role>", "probe")]), "off"));
            }
            for (value, what) in effects {
                let mut doc = serde_json::json!({});
                set_dotted(&mut doc, &key, value.clone());
                env.write(top.path, doc.to_string());
                let rt = show(&[])["runtime"].clone();
                match what {
                    "turns" if k.over_file || file_turns.is_none() => {
                        assert_eq!(rt["max_turns"]["value"], 77, "{h} {key}: {rt}");
                        assert!(rt["max_turns"]["note"].as_str().unwrap().contains(&key));
                    }
                    "turns" => {
                        assert_eq!(rt["max_turns"]["value"].as_u64(), file_turns, "{h} {key}");
                        assert!(
                            rt["max_turns"]["note"]
                                .as_str()
                                .unwrap()
                                .contains("not used")
                        );
                    }
                    _ => {
                        let why = rt["disabled"].as_str().unwrap_or_else(|| {
                            panic!("{h}: {key} = {value} does not turn the role off: {rt}")
                        });
                        assert!(why.contains(top.path), "{h}: {why}");
                    }
                }
                if what == "turns" {
                    assert!(rt["disabled"].is_null(), "{h} {key}: {rt}");
                }
            }
        }
    }
}

/// The host variables the profiles' model chains name are the ones pwk's
/// environment snapshot keeps.
#[test]
fn host_variables_of_every_chain_are_kept() {
    for host in pwk::host::ALL {
        for p in host.profiles() {
            for step in p.settings.iter().flat_map(|s| &s.model_chain) {
                for var in &step.env {
                    assert!(
                        pwk::env::HOST_VARS.contains(var),
                        "{host}: ${var} is not in env::HOST_VARS"
                    );
                }
            }
        }
    }
}

/// A tool the child gets only partly (Claude Code's `permissionMode: plan`, an
/// OpenCode `ask`, a `Bash(<pattern>)` specifier) is marked in `show`'s human tool
/// list with its limit, as the JSON's `tools.limits` says, never listed as a full
/// grant.
#[test]
fn show_marks_partial_grants_in_the_tool_list() {
    let env = project();
    let roles = [
        (
            "claude-code",
            ".claude/agents/planner.md",
            "---\nname: planner\ndescription: Plans.\ntools: Read, Bash, Edit\npermissionMode: plan\n---\nP.\n",
        ),
        (
            "claude-code",
            ".claude/agents/tester.md",
            "---\nname: tester\ndescription: Tests.\ntools: Read, Bash(cargo test:*)\n---\nT.\n",
        ),
        (
            "opencode",
            ".opencode/agents/asker.md",
            "---\ndescription: Asks.\npermission:\n  edit: ask\n  bash: deny\n---\nA.\n",
        ),
    ];
    for (_, path, text) in roles {
        env.write(path, text);
    }
    for (host, path, _) in roles {
        let name = path.rsplit('/').next().unwrap().trim_end_matches(".md");
        let json = run(env
            .pwk()
            .args(["show", name, "--host", host, "--format", "json"]));
        assert_eq!(json.code, 0, "{name}: {}", json.stderr);
        let doc: Value = serde_json::from_str(&json.stdout).unwrap();
        let limits = doc["runtime"]["tools"]["limits"].as_array().unwrap();
        assert!(!limits.is_empty(), "{name}: no limit in {doc}");
        let human = run(env.pwk().args(["show", name, "--host", host]));
        assert_eq!(human.code, 0, "{name}: {}", human.stderr);
        // The `tools` field with its wrapped lines joined.
        let mut lines = human
            .stdout
            .lines()
            .skip_while(|l| !l.starts_with("  tools "));
        let mut line = lines.next().unwrap_or_default().to_string();
        for more in lines.take_while(|l| l.starts_with("      ")) {
            line.push(' ');
            line.push_str(more.trim());
        }
        assert!(!line.is_empty(), "{name}: no tools line:\n{}", human.stdout);
        for l in limits {
            let mark = format!(
                "{} [{}]",
                l["tool"].as_str().unwrap(),
                l["calls"].as_str().unwrap()
            );
            assert!(line.contains(&mark), "{name}: `{mark}` not in {line}");
        }
    }
}

/// The profiles whose settings hold deny rules over tools (Claude Code's
/// `permissions.deny`), with that key, the files and tools to generate over.
fn deny_hosts() -> Vec<(pwk::host::HostId, String, Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    for host in cli_hosts() {
        let p = host.newest();
        let Some(set) = &*p.settings else { continue };
        for k in set.keys.iter().filter(|k| k.denies_tools.is_some()) {
            let files = set.files.iter().map(|f| f.path.to_string()).collect();
            // Three tools the host gives a subagent that names them (not `Agent`,
            // whose rules also name subagents, nor one it folds into another).
            let tools = p
                .tools
                .default
                .iter()
                .filter(|t| **t != "Agent")
                .filter(|t| !p.tools.folded_into.values().any(|f| f.contains(t)))
                .take(3)
                .map(|t| t.to_string())
                .collect();
            out.push((host, k.key.to_string(), files, tools));
        }
    }
    assert!(!out.is_empty(), "no profile has settings that deny tools");
    out
}

/// `show --format json` of `name` under `host`: the runtime's tools.
fn shown_tools(env: &TestEnv, host: &str, name: &str) -> (Value, String) {
    let json = run(env
        .pwk()
        .args(["show", name, "--host", host, "--format", "json"]));
    assert_eq!(json.code, 0, "{name}: {}", json.stderr);
    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
    let human = run(env.pwk().args(["show", name, "--host", host]));
    assert_eq!(human.code, 0, "{name}: {}", human.stderr);
    (doc["runtime"].clone(), human.stdout)
}

/// A project with the role `lister`, naming `tools`, in `host`'s first project
/// directory of agents.
fn lister_project(host: pwk::host::HostId, tools: &[String]) -> TestEnv {
    let env = project();
    let dir = host.project_dirs().next().unwrap().to_string();
    env.write(
        &format!("{dir}/lister.md"),
        format!(
            "---\nname: lister\ndescription: Lists.\ntools: {}\n---\nL.\n",
            tools.join(", ")
        ),
    );
    env
}

/// The settings file `path` of a profile (`{home}/…` under the test's HOME) with
/// `rules` at `key`.
fn write_rules(env: &TestEnv, path: &str, key: &str, rules: &[&str]) {
    let mut doc = serde_json::json!({});
    set_dotted(&mut doc, key, serde_json::json!(rules));
    let text = doc.to_string();
    match path.strip_prefix("{home}/") {
        Some(rest) => {
            let p = env.home.join(rest);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        None => {
            env.write(path, text);
        }
    }
}

fn clear_rules(env: &TestEnv, files: &[String]) {
    for f in files {
        let p = match f.strip_prefix("{home}/") {
            Some(rest) => env.home.join(rest),
            None => env.path(f),
        };
        let _ = std::fs::remove_file(p);
    }
}

/// The tool's mark in `show`: its limit's words in JSON and in the human list.
fn mark(rt: &Value, human: &str, tool: &str) -> Option<String> {
    let limit = rt["tools"]["limits"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|l| l["tool"] == tool)?;
    let calls = limit["calls"].as_str().unwrap().to_string();
    let joined = human.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains(&format!("{tool} [{calls}]")),
        "{tool} [{calls}] not in:\n{human}"
    );
    Some(format!("{calls}: {}", limit["why"].as_str().unwrap()))
}

/// A deny rule in the host's own settings reaches the role's tools, in each of its
/// settings files and all of them at once (the rules add up): a bare tool name
/// marks that tool denied by settings, `Tool(specifier)` partly denied, each with
/// its rule and file, in `show` and `show --format json`; another spelling of the
/// name, or a tool the role does not get, changes nothing, and a rule the host drops
/// (`Tool()`, a lower-case name) or one that names no tool as written (`"Tool "`) is
/// shown as ignored, with why.
#[test]
fn settings_deny_rules_mark_the_tools_they_name() {
    for (host, key, files, tools) in deny_hosts() {
        let h = host.as_str();
        let env = lister_project(host, &tools);
        let (plain, _) = shown_tools(&env, h, "lister");
        assert!(plain["tools"]["settings_deny"].is_null(), "{h}: {plain}");
        let (t1, t2, t3) = (&tools[0], &tools[1], &tools[2]);
        let spec = format!("{t2}(./.env)");
        for f in &files {
            clear_rules(&env, &files);
            // Firing: a bare name and a specifier.
            write_rules(&env, f, &key, &[t1, &spec]);
            let (rt, human) = shown_tools(&env, h, "lister");
            let tail = f.trim_start_matches("{home}/");
            let m1 = mark(&rt, &human, t1).unwrap_or_else(|| panic!("{h} {f}: {t1}: {rt}"));
            assert!(m1.starts_with("denied by settings"), "{h} {f}: {m1}");
            assert!(m1.contains(&format!("`{t1}`")) && m1.contains(tail), "{m1}");
            let m2 = mark(&rt, &human, t2).unwrap_or_else(|| panic!("{h} {f}: {t2}: {rt}"));
            assert!(m2.starts_with("partly denied by settings"), "{h} {f}: {m2}");
            assert!(m2.contains(&spec) && m2.contains(tail), "{m2}");
            assert_eq!(mark(&rt, &human, t3), None, "{h} {f}");
            let deny = rt["tools"]["settings_deny"].as_array().unwrap();
            assert_eq!(deny.len(), 2, "{h} {f}: {deny:?}");
            assert!(
                deny.iter()
                    .all(|d| d["file"].as_str().unwrap().ends_with(tail))
            );
            assert_eq!(rt["tools"]["effective"], plain["tools"]["effective"]);
            // Not firing: other spellings, a tool the role does not get.
            let other = host
                .newest()
                .tools
                .builtins
                .iter()
                .find(|t| !tools.iter().any(|x| x == **t) && **t != "Agent")
                .unwrap()
                .to_string();
            let lower = t1.to_lowercase();
            let upper = format!("{}(./.env)", t2.to_uppercase());
            // Rules the host drops or that name no tool as written (nothing is
            // trimmed): nothing denied, and each said so with why.
            let empty = format!("{t1}()");
            let spaced = format!("{t1} ");
            write_rules(&env, f, &key, &[&lower, &upper, &other, &empty, &spaced]);
            let (rt, human) = shown_tools(&env, h, "lister");
            let mut got = rt["tools"].clone();
            let ignored = got
                .as_object_mut()
                .unwrap()
                .remove("settings_ignored")
                .unwrap_or_else(|| panic!("{h} {f}: {rt}"));
            assert_eq!(got, plain["tools"], "{h} {f}");
            let ignored: Vec<(&str, &str)> = ignored
                .as_array()
                .unwrap()
                .iter()
                .map(|i| (i["rule"].as_str().unwrap(), i["why"].as_str().unwrap()))
                .collect();
            let rules: Vec<&str> = ignored.iter().map(|(r, _)| *r).collect();
            assert_eq!(rules, [&lower, &empty, &spaced], "{h} {f}");
            assert!(
                ignored[0].1.contains("must start with uppercase"),
                "{ignored:?}"
            );
            assert!(ignored[1].1.contains("Empty parentheses"), "{ignored:?}");
            assert!(ignored[2].1.contains("names no tool"), "{ignored:?}");
            // The human lines wrap: read them as one text.
            let text = human.split_whitespace().collect::<Vec<_>>().join(" ");
            for r in rules {
                let said = format!("ignored `{r}` in `{key}` of ");
                assert!(text.contains(&said), "{h} {f}: no {said:?}:\n{human}");
            }
            assert_eq!(text.matches(": denies nothing; ").count(), 3, "{human}");
        }
        // Every file at once: each rule marks its tool, naming its own file.
        clear_rules(&env, &files);
        let rules = [t1.clone(), spec.clone(), t3.clone()];
        for (f, r) in files.iter().zip(rules.iter().cycle()) {
            write_rules(&env, f, &key, &[r]);
        }
        let (rt, human) = shown_tools(&env, h, "lister");
        for (f, r) in files.iter().zip(rules.iter().cycle()) {
            let tool = r.split('(').next().unwrap();
            let m = mark(&rt, &human, tool).unwrap_or_else(|| panic!("{h}: {r}: {rt}"));
            assert!(m.contains(f.trim_start_matches("{home}/")), "{h} {r}: {m}");
        }
    }
}

/// A role that names no tools inherits every tool of the session: a tool a bare
/// rule names is marked denied among them, and one it does not list is taken from
/// the rest of the session; another spelling changes nothing (a lower-case one, a
/// rule the host drops, is shown as ignored).
#[test]
fn settings_deny_rules_reach_inherited_tools() {
    for (host, key, files, tools) in deny_hosts() {
        let h = host.as_str();
        let env = project();
        let dir = host.project_dirs().next().unwrap().to_string();
        env.write(
            &format!("{dir}/heir.md"),
            "---\nname: heir\ndescription: Inherits.\n---\nH.\n",
        );
        let (plain, _) = shown_tools(&env, h, "heir");
        assert_eq!(plain["tools"]["host_default"], true, "{h}");
        let t1 = &tools[0];
        let project_file = files.iter().rev().find(|f| !f.starts_with('{')).unwrap();
        write_rules(&env, project_file, &key, &[t1, "mcp__srv__tool"]);
        let (rt, human) = shown_tools(&env, h, "heir");
        let m = mark(&rt, &human, t1).unwrap_or_else(|| panic!("{h}: {rt}"));
        assert!(m.starts_with("denied by settings"), "{h}: {m}");
        let also = rt["tools"]["open"].as_str().unwrap();
        assert!(also.contains("`mcp__srv__tool`"), "{h}: {also}");
        // Another spelling names another tool; a lower-case one is a rule the host
        // drops, which is said.
        write_rules(&env, project_file, &key, &[&t1.to_uppercase()]);
        let (rt, _) = shown_tools(&env, h, "heir");
        assert_eq!(rt["tools"], plain["tools"], "{h}");
        write_rules(&env, project_file, &key, &[&t1.to_lowercase()]);
        let (rt, _) = shown_tools(&env, h, "heir");
        let mut got = rt["tools"].clone();
        let ignored = got.as_object_mut().unwrap().remove("settings_ignored");
        assert_eq!(got, plain["tools"], "{h}");
        assert_eq!(
            ignored.unwrap()[0]["rule"],
            t1.to_lowercase().as_str(),
            "{h}"
        );
    }
}

/// `Agent(<role>)` still turns the role off from any settings file, also when a
/// file above it has deny rules of its own (the lists add up); `Agent(<other>)`
/// does not.
#[test]
fn settings_deny_entry_turns_the_role_off_from_any_file() {
    for host in cli_hosts() {
        let h = host.as_str();
        let Some(set) = &*host.newest().settings else {
            continue;
        };
        for k in set.keys.iter().filter(|k| k.disables_entry.is_some()) {
            let entry = k.disables_entry.unwrap();
            let env = project();
            let dir = host.project_dirs().next().unwrap().to_string();
            env.write(
                &format!("{dir}/probe.md"),
                "---\nname: probe\ndescription: Probes.\ntools: Read\n---\nP.\n",
            );
            let files: Vec<String> = set.files.iter().map(|f| f.path.to_string()).collect();
            for (i, f) in files.iter().enumerate() {
                for (name, off) in [("probe", true), ("other", false)] {
                    clear_rules(&env, &files);
                    write_rules(&env, f, k.key, &[&entry.replace("<role>", name)]);
                    // A file above with rules of its own.
                    if let Some(above) = files.get(i + 1) {
                        write_rules(&env, above, k.key, &["WebSearch"]);
                    }
                    let (rt, _) = shown_tools(&env, h, "probe");
                    // The settings found: this list from every file that sets it
                    // (they add up), not only the highest one's.
                    let from: Vec<&str> = rt["settings"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|s| s["key"] == k.key)
                        .map(|s| s["file"].as_str().unwrap())
                        .collect();
                    let want = if files.get(i + 1).is_some() { 2 } else { 1 };
                    assert_eq!(from.len(), want, "{h} {f}: {from:?}");
                    assert!(
                        from[0].ends_with(f.trim_start_matches("{home}/")),
                        "{h} {f}: {from:?}"
                    );
                    match rt["disabled"].as_str() {
                        Some(why) if off => {
                            assert!(why.contains(f.trim_start_matches("{home}/")), "{why}")
                        }
                        None if !off => {}
                        got => panic!("{h} {f} {name}: disabled {got:?}"),
                    }
                }
            }
        }
    }
}

/// A Claude Code deny rule naming an MCP server reaches the server's tools the role
/// names: `show` lists each in JSON and names it with its rule in the human note; a
/// tool of another server stays.
#[test]
fn show_applies_a_deny_rule_for_an_mcp_server() {
    let env = project();
    env.write(
        ".claude/agents/gh.md",
        "---\nname: gh\ndescription: GH.\ntools: Read, mcp__github__create_issue, mcp__github__get_me, mcp__slack__post\n---\nX.\n",
    );
    env.write(
        ".claude/settings.json",
        r#"{"permissions": {"deny": ["mcp__github"]}}"#,
    );
    let (rt, human) = shown_tools(&env, "claude-code", "gh");
    let denied: Vec<&str> = rt["tools"]["settings_deny"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["tool"].as_str().unwrap())
        .collect();
    assert_eq!(denied, ["mcp__github__create_issue", "mcp__github__get_me"]);
    let joined = human.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("denied by settings: `mcp__github__create_issue` (`mcp__github` in `permissions.deny` of .claude/settings.json)"),
        "{human}"
    );
    assert!(!joined.contains("`mcp__slack__post` (`"), "{human}");
}

/// When HOME is the project root, a host's user settings file and its project
/// settings file are one file: its deny rules count once, and `show` lists the
/// second place as the same file, read once (every host whose settings deny tools,
/// every pair of its files that meet so).
#[test]
fn settings_deny_rules_count_once_when_home_is_the_project() {
    let mut pairs = 0;
    for (host, key, files, tools) in deny_hosts() {
        let h = host.as_str();
        for f in files.iter().filter_map(|f| f.strip_prefix("{home}/")) {
            if !files.iter().any(|g| g == f) {
                continue;
            }
            pairs += 1;
            let env = lister_project(host, &tools);
            write_rules(&env, f, &key, &[&tools[0]]);
            let json = run(env
                .pwk()
                .env("HOME", env.root())
                .args(["show", "lister", "--host", h, "--format", "json"]));
            assert_eq!(json.code, 0, "{h} {f}: {}", json.stderr);
            let rt = &serde_json::from_str::<Value>(&json.stdout).unwrap()["runtime"];
            let deny = rt["tools"]["settings_deny"].as_array().unwrap();
            assert_eq!(deny.len(), 1, "{h} {f}: {deny:?}");
            let listed: Vec<&Value> = rt["config_files"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["path"].as_str().unwrap().ends_with(f))
                .collect();
            assert_eq!(listed.len(), 2, "{h} {f}: {listed:?}");
            assert_eq!(listed[0]["status"], "read", "{h} {f}");
            assert!(
                listed[1]["status"]
                    .as_str()
                    .unwrap()
                    .starts_with("the same file as above"),
                "{h} {f}: {listed:?}"
            );
        }
    }
    assert!(
        pairs > 0,
        "no host has a user and a project settings file that can meet"
    );
}

/// The human `show` of a Claude Code role whose tools the settings deny, whole and
/// in part, from the project's and the local settings file, with one rule that
/// names a tool the role does not get.
#[test]
fn show_human_of_tools_the_settings_deny() {
    let env = project();
    env.write(
        ".claude/agents/fetcher.md",
        "---\nname: fetcher\ndescription: Fetches.\ntools: Read, Bash, WebFetch\n---\nF.\n",
    );
    env.write(
        ".claude/settings.json",
        r#"{"permissions": {"deny": ["Bash", "Read(./.env)", "NotebookEdit"]}}"#,
    );
    env.write(
        ".claude/settings.local.json",
        r#"{"permissions": {"deny": ["WebFetch"]}}"#,
    );
    let show = run(env.pwk().args(["show", "fetcher"]));
    assert_eq!(show.code, 0, "{}", show.stderr);
    env.insta_settings().bind(|| {
        insta::assert_snapshot!("every_host_show_claude_settings_deny_human", show.stdout)
    });
}
