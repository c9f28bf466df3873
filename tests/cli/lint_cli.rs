//! The command line of `pwk lint` a ruff user expects: `--extend-select`, `-` with
//! `--stdin-filename`, `--format concise`, the fixable marker and count, `baseline`
//! in pwk.toml, `--config FILE` on every command that reads pwk.toml, and one list
//! of hosts in every `--host` help. Driven through the binary.

use serde_json::Value;

use crate::support::{Output, TestEnv, diagnostics, first_of_rule, json, run, run_with_stdin};

/// A role with a quoted integer (a safe fix), a misspelt key (an unsafe fix: the
/// rename to `model`) and no `tools` (no fix).
const ROLE: &str = "---\nname: reviewer\ndescription: Reviews diffs.\nmax_turns: \"20\"\nmodle: sonnet\n---\nReview the diff.\n";

/// The rule ids of a lint document, sorted.
fn rules_of(doc: &Value) -> Vec<String> {
    let mut v = crate::support::rules_of(doc);
    v.sort();
    v
}

/// `--extend-select` adds to the selection: of `--select` when given, else of
/// pwk.toml and the defaults (a rule pwk.toml turns off comes back, at its own
/// severity); `--ignore` still beats it; a bad id gets a did-you-mean.
#[test]
fn extend_select_adds_to_the_selection_of_pwk_toml_and_of_select() {
    let env = TestEnv::new();
    env.write(".agents/agents/reviewer.md", ROLE);
    env.write("pwk.toml", "[rules]\nmissing-tools = \"off\"\n");
    let lint = |extra: &[&str]| -> (i32, Value) {
        let out = run(env
            .pwk()
            .args(["lint", "--host", "tintinweb", "--format", "json"])
            .args(extra));
        (out.code, json(&out))
    };
    let (code, doc) = lint(&[]);
    assert_eq!(code, 1);
    assert_eq!(rules_of(&doc), ["invalid-type", "unknown-key"]);
    let (_, doc) = lint(&["--extend-select", "missing-tools"]);
    assert_eq!(
        rules_of(&doc),
        ["invalid-type", "missing-tools", "unknown-key"]
    );
    let missing = first_of_rule(&doc, "missing-tools");
    assert_eq!(
        missing["severity"], "warning",
        "its own severity: {missing}"
    );
    let (code, doc) = lint(&[
        "--select",
        "missing-tools",
        "--extend-select",
        "invalid-type",
    ]);
    assert_eq!(code, 1);
    assert_eq!(rules_of(&doc), ["invalid-type", "missing-tools"]);
    // Comma-separated, as --select.
    let (_, doc) = lint(&["--select", "missing-tools,invalid-type"]);
    assert_eq!(rules_of(&doc), ["invalid-type", "missing-tools"]);
    let (_, doc) = lint(&[
        "--extend-select",
        "missing-tools",
        "--ignore",
        "missing-tools",
    ]);
    assert_eq!(rules_of(&doc), ["invalid-type", "unknown-key"]);
    let out = run(env.pwk().args(["lint", "--extend-select", "missng-tools"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("--extend-select: no rule `missng-tools`; did you mean `missing-tools`?"),
        "{}",
        out.stderr
    );
}

/// `--format concise`: one `path:line:col: severity[rule] message` line per
/// finding, `[*]` where `--fix` repairs it, the same findings as JSON, then the
/// summary with the fixable count.
#[test]
fn concise_prints_one_line_per_finding_with_the_fixable_marker() {
    let env = TestEnv::new();
    env.write(".agents/agents/reviewer.md", ROLE);
    let out = run(env
        .pwk()
        .args(["lint", "--host", "tintinweb", "--format", "concise"]));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc = json(&run(env.pwk().args([
        "lint",
        "--host",
        "tintinweb",
        "--format",
        "json",
    ])));
    let want: Vec<String> = diagnostics(&doc)
        .iter()
        .map(|d| {
            format!(
                "{}:{}:{}: {}[{}]{} {}",
                d["path"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["severity"].as_str().unwrap(),
                d["rule"].as_str().unwrap(),
                if d["fixable"] == true { " [*]" } else { "" },
                d["message"].as_str().unwrap()
            )
        })
        .collect();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(want.len(), 3, "{}", out.stdout);
    assert_eq!(lines[..3], want[..], "{}", out.stdout);
    assert!(
        lines[1].starts_with(
            ".agents/agents/reviewer.md:4:12: error[invalid-type] [*] `max_turns` must be"
        ),
        "{}",
        out.stdout
    );
    assert_eq!(
        lines[3..],
        [
            "Found 2 errors and 1 warning in 1 of 1 file for tintinweb@0.25.",
            "[*] 1 fixable with `pwk lint --fix` (1 more with `--unsafe-fixes`)."
        ],
        "{}",
        out.stdout
    );
}

/// The fixable marker in human output, `fixable` per finding and the counts in
/// JSON; only safe fixes count as fixable; the count line disappears once fixed.
#[test]
fn fixable_findings_are_marked_and_counted_in_human_and_json() {
    let env = TestEnv::new();
    env.write(".agents/agents/reviewer.md", ROLE);
    let human = run(env.pwk().args(["lint", "--host", "tintinweb"]));
    assert!(
        human.stdout.contains("error[invalid-type] [*]\n"),
        "{}",
        human.stdout
    );
    assert!(
        human.stdout.contains("error[unknown-key]\n")
            && human.stdout.contains("warning[missing-tools]\n"),
        "{}",
        human.stdout
    );
    assert!(
        human
            .stdout
            .contains("[*] 1 fixable with `pwk lint --fix` (1 more with `--unsafe-fixes`).\n"),
        "{}",
        human.stdout
    );
    let doc = json(&run(env.pwk().args([
        "lint",
        "--host",
        "tintinweb",
        "--format",
        "json",
    ])));
    for d in diagnostics(&doc) {
        let want = d["rule"] == "invalid-type";
        assert_eq!(d["fixable"], want, "{d}");
    }
    assert_eq!(doc["summary"]["fixable"], 1);
    assert_eq!(doc["summary"]["unsafe_fixable"], 1);
    let fixed = run(env.pwk().args(["lint", "--host", "tintinweb", "--fix"]));
    assert_eq!(fixed.code, 1, "{}", fixed.stderr);
    assert!(
        fixed
            .stdout
            .contains("1 fixable with `pwk lint --fix --unsafe-fixes`.\n")
            && !fixed.stdout.contains("[*]"),
        "{}",
        fixed.stdout
    );
}

/// `pwk lint -`: the role on stdin is linted as the file `--stdin-filename` names:
/// its host (under `auto`, `.claude/agents/` is claude-code's), its configuration
/// (an override matching the path) and its name in every format. Without it the
/// text is `<stdin>` with the current directory's configuration, and a `name`
/// that differs from no file name is no `name-mismatch`.
#[test]
fn stdin_is_linted_as_the_file_stdin_filename_names() {
    let env = TestEnv::new();
    std::fs::create_dir(env.path(".git")).unwrap();
    env.write(
        "pwk.toml",
        "[[overrides]]\nfiles = [\"legacy/**\"]\nrules = { invalid-type = \"off\" }\n",
    );
    let lint = |extra: &[&str]| -> Output {
        run_with_stdin(
            env.pwk()
                .args(["lint", "-", "--format", "json"])
                .args(extra),
            ROLE.as_bytes(),
        )
    };
    let out = lint(&["--stdin-filename", ".claude/agents/reviewer.md"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc = json(&out);
    assert!(
        doc["host"]["profile"]
            .as_str()
            .unwrap()
            .starts_with("claude-code@"),
        "{doc}"
    );
    assert_eq!(doc["files"], 1);
    for d in diagnostics(&doc) {
        assert_eq!(d["path"], ".claude/agents/reviewer.md", "{d}");
    }
    assert!(!env.path(".claude").exists(), "nothing is written");
    // The override for `legacy/**` applies to the named path only.
    let doc = json(&lint(&[
        "--stdin-filename",
        "legacy/reviewer.md",
        "--host",
        "pwk",
    ]));
    assert!(
        !rules_of(&doc).contains(&"invalid-type".to_string()),
        "{doc}"
    );
    let doc = json(&lint(&["--stdin-filename", "reviewer.md", "--host", "pwk"]));
    assert!(
        rules_of(&doc).contains(&"invalid-type".to_string()),
        "{doc}"
    );
    // `--stdin-filename` alone implies `-`.
    let alone = run_with_stdin(
        env.pwk().args([
            "lint",
            "--stdin-filename",
            "reviewer.md",
            "--format",
            "concise",
        ]),
        ROLE.as_bytes(),
    );
    assert!(alone.stdout.starts_with("reviewer.md:"), "{}", alone.stdout);
    // Without a name: `<stdin>`, the portable profile of this project, and no
    // name-mismatch for `name: reviewer`.
    let doc = json(&lint(&[]));
    assert_eq!(doc["host"]["profile"], "pwk");
    for d in diagnostics(&doc) {
        assert_eq!(d["path"], "<stdin>", "{d}");
    }
    assert!(
        !rules_of(&doc).contains(&"name-mismatch".to_string()),
        "{doc}"
    );
    // Every format names it.
    for format in ["human", "concise", "sarif", "github"] {
        let out = run_with_stdin(
            env.pwk().args([
                "lint",
                "-",
                "--stdin-filename",
                ".pi/agents/reviewer.md",
                "--format",
                format,
            ]),
            ROLE.as_bytes(),
        );
        assert_eq!(out.code, 1, "{format}: {}", out.stderr);
        assert!(
            out.stdout.contains(".pi/agents/reviewer.md"),
            "{format}: {}",
            out.stdout
        );
    }
}

/// stdin is read through the role file's size cap; `-` stands alone; the baseline
/// is not written from stdin.
#[test]
fn stdin_is_bounded_and_refuses_what_it_cannot_mean() {
    let env = TestEnv::new();
    let big = vec![b'a'; 1024 * 1024 + 1];
    let out = run_with_stdin(env.pwk().args(["lint", "-"]), &big);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("stdin holds more than 1048576 bytes, the limit for a role file"),
        "{}",
        out.stderr
    );
    env.write("a.md", ROLE);
    for (args, says) in [
        (&["lint", "-", "a.md"][..], "`-` reads one role from stdin"),
        (
            &["lint", "a.md", "--stdin-filename", "b.md"][..],
            "--stdin-filename names the text read from stdin",
        ),
        (&["lint", "-", "--write-baseline"][..], "--write-baseline"),
    ] {
        let out = run_with_stdin(env.pwk().args(args), ROLE.as_bytes());
        assert_eq!(out.code, 2, "{args:?}");
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
    }
}

/// `--fix` with `-` prints the fixed text on stdout and what remains on stderr
/// (as ruff does), writing no file; `--diff` with `-` prints the diff, exit 1.
#[test]
fn fix_of_stdin_prints_the_fixed_text_and_the_remaining_findings_on_stderr() {
    let env = TestEnv::new();
    env.write(".agents/agents/reviewer.md", ROLE);
    let out = run_with_stdin(
        env.pwk().args([
            "lint",
            "-",
            "--stdin-filename",
            ".agents/agents/reviewer.md",
            "--host",
            "tintinweb",
            "--fix",
            "--format",
            "concise",
        ]),
        ROLE.as_bytes(),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, ROLE.replace("\"20\"", "20"));
    assert!(
        out.stderr.contains(
            "pwk: fixed `.agents/agents/reviewer.md`: remove the quotes: `max_turns: 20`"
        ) && out
            .stderr
            .contains(".agents/agents/reviewer.md:5:1: error[unknown-key]")
            && !out.stderr.contains("invalid-type"),
        "{}",
        out.stderr
    );
    assert_eq!(
        env.read(".agents/agents/reviewer.md"),
        ROLE,
        "the file is not touched"
    );
    let unsafe_ = run_with_stdin(
        env.pwk()
            .args(["lint", "-", "--host", "tintinweb", "--unsafe-fixes"]),
        ROLE.as_bytes(),
    );
    assert!(
        unsafe_.stdout.contains("model: sonnet\n"),
        "{}",
        unsafe_.stdout
    );
    let diff = run_with_stdin(
        env.pwk()
            .args(["lint", "-", "--host", "tintinweb", "--diff"]),
        ROLE.as_bytes(),
    );
    assert_eq!(diff.code, 1, "{}", diff.stderr);
    assert!(
        diff.stdout.contains("-max_turns: \"20\"\n+max_turns: 20\n"),
        "{}",
        diff.stdout
    );
    let clean = run_with_stdin(
        env.pwk()
            .args(["lint", "-", "--host", "tintinweb", "--diff"]),
        ROLE.replace("\"20\"", "20").as_bytes(),
    );
    assert_eq!(clean.code, 0, "{}", clean.stderr);
}

/// `baseline = "…"` in pwk.toml, relative to the file that declares it (here an
/// extended file): `--write-baseline` writes it, `pwk lint` reports against it, a
/// new error still fails, `--baseline` beats it, `pwk config` shows it, and a
/// missing one says where it was set.
#[test]
fn baseline_in_pwk_toml_is_relative_to_the_file_that_declares_it() {
    let env = TestEnv::new();
    std::fs::create_dir(env.path(".git")).unwrap();
    env.write(".agents/agents/reviewer.md", ROLE);
    env.write(
        "pwk.toml",
        "extend = \"config/base.toml\"\nhost = \"tintinweb\"\n",
    );
    env.write("config/base.toml", "baseline = \"known.json\"\n");
    let missing = run(env.pwk().arg("lint"));
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("config/known.json")
            && missing
                .stderr
                .contains("(`baseline` at config/base.toml:1:12)"),
        "{}",
        missing.stderr
    );
    let wrote = run(env.pwk().args(["lint", "--write-baseline"]));
    assert_eq!(wrote.code, 0, "{}", wrote.stderr);
    assert!(
        wrote
            .stderr
            .contains("pwk: wrote 3 findings to `config/known.json`"),
        "{}",
        wrote.stderr
    );
    assert!(!env.path("known.json").exists());
    let again = run(env.pwk().args(["lint", "--format", "json"]));
    assert_eq!(again.code, 0, "{}", again.stderr);
    let doc = json(&again);
    assert_eq!(diagnostics(&doc).len(), 0);
    assert_eq!(doc["summary"]["suppressed"], 3);
    // The same text on stdin, named as the file: the baseline hides its findings,
    // and the entries of other files are not called stale.
    env.write(".agents/agents/other.md", ROLE.replace("reviewer", "other"));
    assert_eq!(run(env.pwk().args(["lint", "--write-baseline"])).code, 0);
    let stdin = run_with_stdin(
        env.pwk().args([
            "lint",
            "-",
            "--stdin-filename",
            ".agents/agents/reviewer.md",
            "--format",
            "json",
        ]),
        ROLE.as_bytes(),
    );
    assert_eq!(stdin.code, 0, "{}", stdin.stderr);
    assert_eq!(json(&stdin)["summary"]["suppressed"], 3);
    assert!(
        !stdin.stderr.contains("matched no finding"),
        "{}",
        stdin.stderr
    );
    // A new error fails the run.
    env.write(
        ".agents/agents/reviewer.md",
        ROLE.replace("modle: sonnet\n", "modle: sonnet\nthinking: lots\n"),
    );
    let new = run(env.pwk().args(["lint", "--format", "concise"]));
    assert_eq!(new.code, 1, "{}", new.stdout);
    assert!(
        new.stdout.contains("error[invalid-thinking]"),
        "{}",
        new.stdout
    );
    // `--baseline` beats it.
    let flag = run(env.pwk().args(["lint", "--baseline", "other.json"]));
    assert_eq!(flag.code, 2);
    assert!(
        flag.stderr.contains("other.json") && !flag.stderr.contains("`baseline` at"),
        "{}",
        flag.stderr
    );
    let config = run(env.pwk().arg("config"));
    assert!(
        config
            .stdout
            .lines()
            .any(|l| l.starts_with("baseline = \"config/known.json\"")
                && l.ends_with("# config/base.toml:1:12")),
        "{}",
        config.stdout
    );
    let doc = json(&run(env.pwk().args(["config", "--format", "json"])));
    assert_eq!(doc["baseline"]["value"], "config/known.json");
    // A bad value is an error at its place.
    env.write("config/base.toml", "baseline = 3\n");
    let bad = run(env.pwk().arg("config"));
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("config/base.toml:1:12")
            && bad.stderr.contains("`baseline` must be a string"),
        "{}",
        bad.stderr
    );
}

/// `--config FILE` means the same on `lint`, `list`, `show`, `smoke` and `config`:
/// that file governs instead of the pwk.toml found upwards; a missing one is exit 2.
#[test]
fn config_file_flag_is_the_same_on_every_command_that_reads_pwk_toml() {
    let env = TestEnv::new();
    std::fs::create_dir(env.path(".git")).unwrap();
    env.write(".pi/agents/reviewer.md", ROLE);
    env.write("pwk.toml", "host = \"tintinweb\"\n");
    env.write(
        "ci/alt.toml",
        "host = \"herdr\"\n[rules]\ninvalid-type = \"off\"\n",
    );
    let doc = json(&run(env.pwk().args(["lint", "--format", "json"])));
    assert!(
        rules_of(&doc).contains(&"invalid-type".to_string()),
        "{doc}"
    );
    assert!(
        doc["host"]["profile"]
            .as_str()
            .unwrap()
            .starts_with("tintinweb")
    );
    let doc = json(&run(env.pwk().args([
        "lint",
        "--format",
        "json",
        "--config",
        "ci/alt.toml",
    ])));
    assert!(
        !rules_of(&doc).contains(&"invalid-type".to_string()),
        "{doc}"
    );
    assert!(
        doc["host"]["profile"]
            .as_str()
            .unwrap()
            .starts_with("herdr"),
        "{doc}"
    );
    for cmd in [
        &["list", "--format", "json"][..],
        &["show", "reviewer", "--format", "json"][..],
        &["smoke", "reviewer", "--format", "json"][..],
        &["config", "--format", "json"][..],
    ] {
        let plain = run(env.pwk().args(cmd));
        let with = run(env.pwk().args(cmd).args(["--config", "ci/alt.toml"]));
        assert!(
            plain.stdout.contains("tintinweb") && !plain.stdout.contains("herdr"),
            "{cmd:?}: {}",
            plain.stdout
        );
        assert!(
            with.stdout.contains("herdr"),
            "{cmd:?}: {}{}",
            with.stdout,
            with.stderr
        );
        let missing = run(env.pwk().args(cmd).args(["--config", "nope.toml"]));
        assert_eq!(missing.code, 2, "{cmd:?}");
        assert!(
            missing
                .stderr
                .contains("--config `nope.toml` does not exist"),
            "{cmd:?}: {}",
            missing.stderr
        );
    }
}

/// Every subcommand whose `--help` has `--host` lists the same hosts there: those
/// of the host registry.
#[test]
fn every_host_help_lists_the_hosts_of_the_registry() {
    use clap::CommandFactory;
    let env = TestEnv::new();
    let mut registry: Vec<String> = pwk::host::ALL.iter().map(|h| h.to_string()).collect();
    registry.sort();
    let mut seen = 0;
    for sub in pwk::cli::Cli::command().get_subcommands() {
        let name = sub.get_name().to_string();
        let out = run(env.pwk().args([&name, "--help"]));
        assert_eq!(out.code, 0, "{name}");
        // The `--host` entry: from its flag to the next flag, joined into one line.
        let Some(start) = out.stdout.find("      --host <HOST>") else {
            continue;
        };
        seen += 1;
        let rest = &out.stdout[start..];
        let end = rest[10..].find("\n      -").map_or(rest.len(), |i| i + 10);
        let help = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let (_, after) = help
            .split_once("a host (")
            .unwrap_or_else(|| panic!("{name}: no host list in {help}"));
        let list = &after[..after.find(')').unwrap()];
        let mut hosts: Vec<String> = list
            .split(", ")
            .map(|h| h.trim_matches('`').to_string())
            .collect();
        hosts.sort();
        assert_eq!(hosts, registry, "{name}: {help}");
    }
    assert!(seen >= 7, "only {seen} subcommands have --host");
}

/// `--config FILE` on `pwk mcp` and `pwk lsp`: the MCP `lint` tool (through the MCP
/// SDK client) and the language server's diagnostics follow that file, as
/// `pwk lint --config` does, not the project's pwk.toml.
#[test]
fn config_file_flag_governs_the_mcp_lint_tool_and_the_language_server() {
    use crate::mcp::{client_cmd, drive, mcp_client};
    use crate::support::lsp_client::{LspClient, file_uri};
    let env = TestEnv::new();
    std::fs::create_dir(env.path(".git")).unwrap();
    env.write(".pi/agents/reviewer.md", ROLE);
    env.write("pwk.toml", "host = \"tintinweb\"\n");
    env.write(
        "ci/alt.toml",
        "host = \"herdr\"\n[rules]\ninvalid-type = \"off\"\n",
    );
    let cli = json(&run(env.pwk().args([
        "lint",
        "--format",
        "json",
        "--config",
        "ci/alt.toml",
    ])));
    assert!(
        cli["host"]["profile"]
            .as_str()
            .unwrap()
            .starts_with("herdr")
    );
    let want = rules_of(&cli);
    assert!(!want.contains(&"invalid-type".to_string()), "{cli}");
    if let Some(client) = mcp_client() {
        let calls = serde_json::json!({
            "calls": [{"name": "lint", "arguments": {}}],
            "serverArgs": ["--config", "ci/alt.toml"],
        });
        let v = drive(client_cmd(&env, &client, "calls", env.root(), &calls));
        let r = &v["result"][0];
        assert_eq!(r["isError"], false, "{r}");
        assert_eq!(r["value"]["host"]["profile"], cli["host"]["profile"], "{r}");
        assert_eq!(rules_of(&r["value"]), want, "{r}");
    }
    let mut cmd = env.pwk();
    cmd.args(["lsp", "--config", "ci/alt.toml"]);
    let mut c = LspClient::start(cmd);
    c.initialize(&file_uri(env.root()));
    let uri = file_uri(&env.path(".pi/agents/reviewer.md"));
    c.notify(
        "textDocument/didOpen",
        serde_json::json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": ROLE}}),
    );
    let mut got: Vec<String> = c
        .diagnostics(&uri, 1)
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect();
    got.sort();
    assert_eq!(got, want);
    c.shutdown();
    let missing = run(env.pwk().args(["mcp", "--config", "nope.toml"]));
    assert_eq!(missing.code, 2);
    assert!(
        missing
            .stderr
            .contains("--config `nope.toml` does not exist"),
        "{}",
        missing.stderr
    );
}
