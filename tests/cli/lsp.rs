//! `pwk lsp` over stdio, spoken to as an editor would: JSON-RPC with Content-Length
//! framing to the built binary.

use serde_json::{Value, json};

use crate::support::lsp_client::{LspClient, apply_edits, file_uri, utf16_position};
use crate::support::{TestEnv, diagnostics};

/// Planted problems, with non-ASCII text (2-unit and 4-byte characters) before the
/// end of a flagged value.
const PLANTED: &str = "---\nname: reviewer\ndescription: Prüft Änderungen — 日本語\nskills: [日本😀, \"\"]\ntols: read, grep\nmax_turns: \"20\"\nthinking: lots\n---\n# Reviewer\n\n## Steps\n\nBody.\n";

fn server(env: &TestEnv, args: &[&str]) -> LspClient {
    let mut cmd = env.pwk();
    cmd.arg("lsp").args(args);
    LspClient::start(cmd)
}

/// A server for `env`'s project with `text` written at `rel` and opened in it; the
/// file's URI.
fn opened(env: &TestEnv, rel: &str, text: &str, args: &[&str]) -> (LspClient, String) {
    let uri = file_uri(&env.write(rel, text));
    let mut c = server(env, args);
    c.initialize(&file_uri(env.root()));
    open(&mut c, &uri, text);
    (c, uri)
}

fn open(c: &mut LspClient, uri: &str, text: &str) {
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
    );
}

/// (rule, severity, start line, start col, end line, end col) of published diagnostics.
fn summary(diags: &[Value]) -> Vec<(String, u64, u64, u64, u64, u64)> {
    diags
        .iter()
        .map(|d| {
            let r = &d["range"];
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_u64().unwrap(),
                r["start"]["line"].as_u64().unwrap(),
                r["start"]["character"].as_u64().unwrap(),
                r["end"]["line"].as_u64().unwrap(),
                r["end"]["character"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The UTF-16 range of the first `needle` in `text`.
fn range_of(text: &str, needle: &str) -> (u64, u64, u64, u64) {
    let start = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in text"));
    let (l1, c1) = utf16_position(text, start);
    let (l2, c2) = utf16_position(text, start + needle.len());
    (l1, c1, l2, c2)
}

fn expect(rule: &str, sev: u64, r: (u64, u64, u64, u64)) -> (String, u64, u64, u64, u64, u64) {
    (rule.to_string(), sev, r.0, r.1, r.2, r.3)
}

/// What `pwk lint --format json` says about the project, as (rule, message with help).
fn lint_messages(env: &TestEnv) -> Vec<(String, String)> {
    let out = env
        .pwk()
        .args(["lint", "--format", "json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    diagnostics(&doc)
        .iter()
        .map(|d| {
            let mut m = d["message"].as_str().unwrap().to_string();
            if let Some(h) = d["help"].as_str() {
                m.push_str(&format!("\nhelp: {h}"));
            }
            (d["rule"].as_str().unwrap().to_string(), m)
        })
        .collect()
}

fn messages(diags: &[Value]) -> Vec<(String, String)> {
    diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const ERROR: u64 = 1;
const WARNING: u64 = 2;

#[test]
fn diagnostics_are_pwk_lint_s_with_utf16_ranges_and_follow_incremental_edits() {
    let env = TestEnv::new();
    let path = env.write(".pi/agents/reviewer.md", PLANTED);
    let uri = file_uri(&path);
    let mut c = server(&env, &[]);
    let init = c.initialize(&file_uri(env.root()));
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(init["capabilities"]["textDocumentSync"]["change"], 2);
    open(&mut c, &uri, PLANTED);
    let diags = c.diagnostics(&uri, 1);
    let t = PLANTED;
    assert_eq!(
        summary(&diags),
        [
            expect("missing-tools", WARNING, (0, 0, 0, 3)),
            expect("invalid-type", ERROR, range_of(t, "[日本😀, \"\"]")),
            // No such skill in the project's skill directories (UTF-16: 4 units).
            expect("unknown-skill", WARNING, range_of(t, "日本😀")),
            expect("unknown-key", ERROR, range_of(t, "tols")),
            // `max_turns` (read by some hosts only): no finding with no host known.
            expect("invalid-type", ERROR, range_of(t, "\"20\"")),
            expect("invalid-thinking", ERROR, range_of(t, "lots")),
        ]
    );
    // UTF-16: `😀` is two code units; the list ends at column 18 (17 characters in).
    assert_eq!(range_of(t, "[日本😀, \"\"]"), (3, 8, 3, 18));
    assert!(diags.iter().all(|d| d["source"] == "pwk"));
    // Each code links its rule's page, as `url` in `pwk lint --format json` does.
    for d in &diags {
        let rule = d["code"].as_str().unwrap();
        assert!(
            d["codeDescription"]["href"]
                .as_str()
                .is_some_and(|h| h.starts_with("https://")
                    && h.ends_with(&format!("/docs/src/rules/{rule}.md"))),
            "{d}"
        );
    }
    // The same messages (and help) as `pwk lint` on the file.
    assert_eq!(messages(&diags), lint_messages(&env));

    // Incremental: `lots` → `low` (a range inside one line), then `tols` → `tools`
    // (an insertion), in one didChange.
    let (l, c1, _, c2) = range_of(t, "lots");
    let (tl, tc, _, _) = range_of(t, "tols");
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [
                {"range": {"start": {"line": l, "character": c1}, "end": {"line": l, "character": c2}}, "text": "low"},
                {"range": {"start": {"line": tl, "character": tc + 2}, "end": {"line": tl, "character": tc + 2}}, "text": "o"},
            ]
        }),
    );
    let diags = c.diagnostics(&uri, 2);
    let t2 = PLANTED.replace("lots", "low").replace("tols", "tools");
    assert_eq!(
        summary(&diags),
        [
            expect("invalid-type", ERROR, range_of(&t2, "[日本😀, \"\"]")),
            expect("unknown-skill", WARNING, range_of(&t2, "日本😀")),
            expect("invalid-type", ERROR, range_of(&t2, "\"20\"")),
        ]
    );
    // A full-text change is taken too.
    let t3 = t2.replace("skills: [日本😀, \"\"]\n", "");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": t3}]}),
    );
    let diags = c.diagnostics(&uri, 3);
    assert_eq!(
        summary(&diags)
            .iter()
            .map(|d| d.0.as_str())
            .collect::<Vec<_>>(),
        ["invalid-type"]
    );
    let (status, stderr) = c.shutdown();
    assert!(status.success(), "exit status {status:?}; stderr: {stderr}");
}

#[test]
fn utf8_and_utf32_positions_when_the_client_offers_them() {
    let env = TestEnv::new();
    let path = env.write(".pi/agents/reviewer.md", PLANTED);
    let uri = file_uri(&path);
    for (offered, name, end) in [
        (
            json!(["utf-8", "utf-16"]),
            "utf-8",
            8 + "[日本😀, \"\"]".len() as u64,
        ),
        (
            json!(["utf-32", "utf-16"]),
            "utf-32",
            8 + "[日本😀, \"\"]".chars().count() as u64,
        ),
    ] {
        let mut c = server(&env, &[]);
        let init = c.initialize_with(
            &file_uri(env.root()),
            json!({"positionEncodings": offered}),
            Value::Null,
        );
        assert_eq!(init["capabilities"]["positionEncoding"], name);
        open(&mut c, &uri, PLANTED);
        let diags = c.diagnostics(&uri, 1);
        let list = diags
            .iter()
            .find(|d| d["range"]["start"]["line"] == 3)
            .unwrap();
        assert_eq!(list["range"]["end"]["character"], end, "{name}");
        c.shutdown();
    }
}

/// Hover on `tools` lists each tool with its limit, as `pwk show` does: a tool the
/// host's settings deny every call of is no grant, one they deny in part says so,
/// and one they leave alone is plain.
#[test]
fn hover_on_tools_marks_the_tools_the_settings_deny() {
    let env = TestEnv::new();
    env.write(
        ".claude/settings.json",
        r#"{"permissions": {"deny": ["Bash", "Read(./.env)", "NotebookEdit"]}}"#,
    );
    let text = "---\nname: fetcher\ndescription: Fetches.\ntools: Read, Bash, WebFetch\n---\nF.\n";
    let (mut c, uri) = opened(&env, ".claude/agents/fetcher.md", text, &[]);
    let h = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 3, "character": 9}}),
    );
    let v = h["contents"]["value"].as_str().unwrap();
    assert!(
        v.contains(
            "the child gets `Read` (partly denied by settings), `Bash` (denied by settings), `WebFetch` "
        ),
        "{v}"
    );
    c.shutdown();
}

#[test]
fn hover_says_what_the_host_does_with_a_key_and_what_a_value_resolves_to() {
    let env = TestEnv::new();
    let text = "---\nname: scout\ndescription: Finds things.\ntools: read, grep\nmax_turns: 20\n---\nBody\n";
    let (mut c, uri) = opened(&env, ".pi/agents/scout.md", text, &["--host", "tintinweb"]);
    let hover = |c: &mut LspClient, line: u64, ch: u64| {
        c.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": ch}}),
        )
    };
    let h = hover(&mut c, 4, 2);
    let v = h["contents"]["value"].as_str().unwrap();
    assert!(v.starts_with("**`max_turns`**"), "{v}");
    // tintinweb's own reading of the key: a number, 0 meaning unlimited.
    assert!(v.contains("Accepts a number, at least 0."), "{v}");
    assert!(v.contains("**tintinweb@0.25 reads it.**"), "{v}");
    assert!(v.contains("Source: "), "{v}");
    assert_eq!(h["range"]["start"], json!({"line": 4, "character": 0}));
    assert_eq!(h["range"]["end"], json!({"line": 4, "character": 9}));
    // The value of `tools`: what the child gets under tintinweb.
    let h = hover(&mut c, 3, 9);
    let v = h["contents"]["value"].as_str().unwrap();
    assert!(v.contains("the child gets `read`, `grep`"), "{v}");
    assert!(v.contains("read-only"), "{v}");
    // The value of `model` is absent: hovering the body gives nothing.
    assert_eq!(hover(&mut c, 6, 1), Value::Null);
    c.shutdown();

    // Under nicobailon, `max_turns` is ignored.
    let mut c = server(&env, &["--host", "nicobailon"]);
    c.initialize(&file_uri(env.root()));
    open(&mut c, &uri, text);
    let h = hover(&mut c, 4, 2);
    let v = h["contents"]["value"].as_str().unwrap();
    assert!(v.contains("nicobailon@") && v.contains("ignores it"), "{v}");
    c.shutdown();
}

#[test]
fn completion_offers_the_host_s_keys_values_tools_and_skills() {
    let env = TestEnv::new();
    env.write(
        ".pi/skills/code-search/SKILL.md",
        "---\nname: code-search\n---\n",
    );
    let text = "---\nname: scout\ndescription: Finds things.\n\nthinking: \ntools: read, \nskills: \n---\nBody\n";
    let (mut c, uri) = opened(&env, ".pi/agents/scout.md", text, &["--host", "tintinweb"]);
    let labels = |c: &mut LspClient, line: u64, ch: u64| -> Vec<String> {
        let r = c.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": ch}}),
        );
        r["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    // Keys: the ones tintinweb reads, not those already there.
    let keys = labels(&mut c, 3, 0);
    assert!(keys.contains(&"max_turns".to_string()), "{keys:?}");
    assert!(keys.contains(&"model".to_string()), "{keys:?}");
    assert!(!keys.contains(&"tools".to_string()), "{keys:?}");
    assert!(!keys.contains(&"name".to_string()), "{keys:?}");
    // pwk-only keys tintinweb does not read are not offered.
    assert!(!keys.contains(&"systemPromptMode".to_string()), "{keys:?}");
    // An enum's values.
    let levels = labels(&mut c, 4, 10);
    assert!(
        levels.contains(&"low".to_string()) && levels.contains(&"high".to_string()),
        "{levels:?}"
    );
    // Tool names from the host's vocabulary, less those listed.
    let tools = labels(&mut c, 5, 13);
    assert!(tools.contains(&"grep".to_string()), "{tools:?}");
    assert!(!tools.contains(&"read".to_string()), "{tools:?}");
    // Skills found in the project's skill directory.
    assert_eq!(labels(&mut c, 6, 8), ["code-search"]);
    c.shutdown();
}

#[test]
fn symbols_are_the_keys_and_the_headings() {
    let env = TestEnv::new();
    let path = env.write(".pi/agents/reviewer.md", PLANTED);
    let uri = file_uri(&path);
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    open(&mut c, &uri, PLANTED);
    let r = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let syms = r.as_array().unwrap();
    assert_eq!(syms[0]["name"], "frontmatter");
    let keys: Vec<&str> = syms[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "name",
            "description",
            "skills",
            "tols",
            "max_turns",
            "thinking"
        ]
    );
    assert_eq!(syms[1]["name"], "Reviewer");
    assert_eq!(syms[1]["children"][0]["name"], "Steps");
    c.shutdown();
}

#[test]
fn definition_goes_to_the_role_a_project_role_shadows() {
    let env = TestEnv::new();
    let role = "---\nname: reviewer\ndescription: Reviews.\ntools: read\n---\nBody\n";
    let global = env.write("home/.pi/agent/agents/reviewer.md", role);
    let project = env.write(".pi/agents/reviewer.md", role);
    let mut c = server(&env, &["--host", "tintinweb"]);
    c.initialize(&file_uri(env.root()));
    open(&mut c, &file_uri(&project), role);
    let r = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": file_uri(&project)}, "position": {"line": 1, "character": 7}}),
    );
    let uris: Vec<&str> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, [file_uri(&global)]);
    // And back: from the shadowed global role to the project one.
    open(&mut c, &file_uri(&global), role);
    let r = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": file_uri(&global)}, "position": {"line": 1, "character": 7}}),
    );
    let uris: Vec<&str> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, [file_uri(&project)]);
    c.shutdown();
}

#[test]
fn duplicate_names_across_the_workspace_follow_the_open_buffer() {
    let env = TestEnv::new();
    let a = "---\nname: reviewer\ndescription: A.\ntools: read\n---\nBody\n";
    env.write(".pi/agents/other.md", a);
    let path = env.write(".pi/agents/reviewer.md", a);
    let uri = file_uri(&path);
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    open(&mut c, &uri, a);
    let diags = c.diagnostics(&uri, 1);
    assert_eq!(
        messages(&diags),
        lint_messages(&env)
            .into_iter()
            .filter(|(r, m)| r == "duplicate-name" && m.contains("other.md"))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        summary(&diags),
        [expect("duplicate-name", ERROR, range_of(a, "reviewer"))]
    );
    // Renaming in the buffer (not saved) clears it.
    let renamed = a.replace("name: reviewer", "name: reviewer-two");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": renamed}]}),
    );
    let diags = c.diagnostics(&uri, 2);
    // `name-mismatch` only: the file is still reviewer.md.
    assert!(
        diags.iter().all(|d| d["code"] != "duplicate-name"),
        "{diags:?}"
    );
    c.shutdown();
}

#[test]
fn files_it_does_not_serve_get_empty_answers() {
    let env = TestEnv::new();
    let path = env.write("README.md", "# Project\n\nNot a role.\n");
    let uri = file_uri(&path);
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    open(&mut c, &uri, "# Project\n\nNot a role.\n");
    let pos = json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 2}});
    assert_eq!(c.request("textDocument/hover", pos.clone()), Value::Null);
    assert_eq!(
        c.request("textDocument/completion", pos.clone()),
        Value::Null
    );
    assert_eq!(
        c.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}})
        ),
        Value::Null
    );
    assert_eq!(
        c.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "context": {"diagnostics": []}})
        ),
        json!([])
    );
    // A Markdown file outside the agents directories whose first line is `---` is
    // served (the editor sent it to pwk).
    let other = env.write("notes/role.md", "---\nname: x\n---\nBody\n");
    open(&mut c, &file_uri(&other), "---\nname: x\n---\nBody\n");
    let diags = c.diagnostics(&file_uri(&other), 1);
    assert!(
        diags.iter().any(|d| d["code"] == "missing-description"),
        "{diags:?}"
    );
    // Unknown methods are refused, not fatal.
    let id = c.request_id("textDocument/formatting", json!({}));
    assert_eq!(c.response(id)["error"]["code"], -32601);
    let (status, _) = c.shutdown();
    assert!(status.success());
}

#[test]
fn malformed_and_huge_buffers_never_crash_it() {
    let env = TestEnv::new();
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    let huge = format!(
        "---\nname: big\ndescription: d\n---\n{}",
        "x".repeat(2 << 20)
    );
    let cases = [
        "---\n".to_string(),
        "---\nname: [\n---\n".to_string(),
        format!("---\n{}x: 1\n---\n", "- ".repeat(10_000)),
        "---\n\u{0}\u{1b}[31m: \u{202e}\n---\n".to_string(),
        huge,
    ];
    for (i, text) in cases.iter().enumerate() {
        let uri = file_uri(&env.path(&format!(".pi/agents/bad-{i}.md")));
        open(&mut c, &uri, text);
        let diags = c.diagnostics(&uri, 1);
        assert!(!diags.is_empty(), "case {i}");
        // Requests on it answer too.
        for method in ["textDocument/hover", "textDocument/completion"] {
            let id = c.request_id(
                method,
                json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}}),
            );
            let r = c.response(id);
            assert!(r.get("error").is_none(), "case {i} {method}: {r}");
        }
    }
    // Edits with ranges out of the text are clamped.
    let uri = file_uri(&env.path(".pi/agents/bad-0.md"));
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 99, "character": 99}, "end": {"line": 0, "character": 0}}, "text": "name: x\n"}
        ]}),
    );
    c.diagnostics(&uri, 2);
    let (status, stderr) = c.shutdown();
    assert!(status.success());
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_huge_buffer_gets_the_file_too_large_finding() {
    let env = TestEnv::new();
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    let huge = format!(
        "---\nname: big\ndescription: d\n---\n{}",
        "x".repeat(2 << 20)
    );
    let uri = file_uri(&env.path(".pi/agents/big.md"));
    open(&mut c, &uri, &huge);
    let diags = c.diagnostics(&uri, 1);
    assert_eq!(
        summary(&diags)
            .iter()
            .map(|d| d.0.as_str())
            .collect::<Vec<_>>(),
        ["file-too-large"]
    );
    c.shutdown();
}

#[test]
fn a_cancelled_request_is_answered_request_cancelled() {
    let env = TestEnv::new();
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    // Keep the server busy linting a large buffer while the request and its
    // cancellation arrive: both are then in its queue together.
    let mut big = String::from("---\nname: busy\ndescription: d\n");
    for i in 0..5_000 {
        big.push_str(&format!("x-key-{i}: value {i}\n"));
    }
    big.push_str("---\nBody\n");
    let uri = file_uri(&env.path(".pi/agents/busy.md"));
    open(&mut c, &uri, &big);
    let mut cancelled = 0;
    for round in 0..3 {
        // Document symbols parse the whole buffer: the server is inside that
        // request while the next request and its cancellation arrive.
        let busy = c.request_id(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        );
        let id = c.request_id(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 1}}),
        );
        c.notify("$/cancelRequest", json!({"id": id}));
        assert!(c.response(busy).get("error").is_none());
        let r = c.response(id);
        if r["error"]["code"] == -32800 {
            cancelled += 1;
        }
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": round + 2}, "contentChanges": [{"text": big.replace("busy", &format!("busy{round}"))}]}),
        );
    }
    assert!(cancelled >= 1, "no request was cancelled");
    c.shutdown();
}

#[test]
fn exit_without_shutdown_is_status_1_and_requests_after_shutdown_are_refused() {
    let env = TestEnv::new();
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    c.notify("exit", Value::Null);
    let status = c.close();
    assert_eq!(status.code(), Some(1));

    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    assert_eq!(c.request("shutdown", Value::Null), Value::Null);
    let id = c.request_id(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///x.md"}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(c.response(id)["error"]["code"], -32600);
    c.notify("exit", Value::Null);
    assert_eq!(c.close().code(), Some(0));
}

#[test]
fn an_edit_applied_from_a_code_action_is_what_a_client_would_apply() {
    // Code actions carry the fix edits as LSP text edits; this checks the helper
    // the tests apply them with on a known edit.
    let text = "---\nd: 日本😀\nmax_turns: \"20\"\n";
    let s = text.find("\"20\"").unwrap();
    let (l, c1) = utf16_position(text, s);
    let (_, c2) = utf16_position(text, s + 4);
    let out = apply_edits(
        text,
        &[
            json!({"range": {"start": {"line": l, "character": c1}, "end": {"line": l, "character": c2}}, "newText": "20"}),
        ],
    );
    assert_eq!(out, "---\nd: 日本😀\nmax_turns: 20\n");
}

/// The edits of a code action for `uri`.
fn action_edits(action: &Value, uri: &str) -> Vec<Value> {
    action["edit"]["changes"][uri].as_array().unwrap().clone()
}

#[test]
fn quick_fixes_come_from_the_fix_edits_and_applying_them_clears_the_finding() {
    let env = TestEnv::new();
    let path = env.write(".pi/agents/reviewer.md", PLANTED);
    let uri = file_uri(&path);
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    open(&mut c, &uri, PLANTED);
    c.diagnostics(&uri, 1);
    let actions_at = |c: &mut LspClient, needle: &str, text: &str| -> Vec<Value> {
        let (l1, c1, l2, c2) = range_of(text, needle);
        let r = c.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}},
                "context": {"diagnostics": [], "only": ["quickfix"]}
            }),
        );
        r.as_array().unwrap().clone()
    };
    // A safe fix: preferred.
    let acts = actions_at(&mut c, "\"20\"", PLANTED);
    assert_eq!(acts.len(), 1, "{acts:?}");
    let unquote = &acts[0];
    assert_eq!(unquote["kind"], "quickfix");
    assert_eq!(unquote["isPreferred"], true);
    assert_eq!(unquote["diagnostics"][0]["code"], "invalid-type");
    // An unsafe one (a guess): offered, marked, not preferred.
    let acts = actions_at(&mut c, "tols", PLANTED);
    let rename = acts
        .iter()
        .find(|a| a["diagnostics"][0]["code"] == "unknown-key")
        .unwrap_or_else(|| panic!("{acts:?}"));
    assert!(
        rename["title"].as_str().unwrap().contains("unsafe"),
        "{rename}"
    );
    assert_eq!(rename["isPreferred"], false);
    // Apply both as the editor would; both findings are gone.
    let mut text = apply_edits(PLANTED, &action_edits(unquote, &uri));
    assert!(text.contains("max_turns: 20\n"), "{text}");
    text = apply_edits(&text, &action_edits(rename, &uri));
    assert!(text.contains("\ntools: read, grep\n"), "{text}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text}]}),
    );
    let codes: Vec<String> = summary(&c.diagnostics(&uri, 2))
        .into_iter()
        .map(|d| d.0)
        .collect();
    assert!(!codes.contains(&"unknown-key".to_string()), "{codes:?}");
    assert_eq!(
        codes.iter().filter(|c| *c == "invalid-type").count(),
        1,
        "{codes:?}"
    );
    c.shutdown();
}

#[test]
fn fix_all_applies_the_safe_fixes_and_the_file_is_clean() {
    let env = TestEnv::new();
    // CRLF line ends and a quoted integer: both safe fixes, under tintinweb (which
    // reads `max_turns`).
    let text = "---\r\nname: scout\r\ndescription: Finds things.\r\ntools: read, grep\r\nmax_turns: \"20\"\r\n---\r\nBody\r\n";
    let (mut c, uri) = opened(&env, ".pi/agents/scout.md", text, &["--host", "tintinweb"]);
    let codes: Vec<String> = summary(&c.diagnostics(&uri, 1))
        .into_iter()
        .map(|d| d.0)
        .collect();
    assert_eq!(codes, ["crlf", "invalid-type"]);
    let r = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": [], "only": ["source.fixAll"]}
        }),
    );
    let acts = r.as_array().unwrap();
    assert_eq!(acts.len(), 1, "{acts:?}");
    assert_eq!(acts[0]["kind"], "source.fixAll.pwk");
    let fixed = apply_edits(text, &action_edits(&acts[0], &uri));
    assert_eq!(
        fixed,
        "---\nname: scout\ndescription: Finds things.\ntools: read, grep\nmax_turns: 20\n---\nBody\n"
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    assert_eq!(c.diagnostics(&uri, 2), Vec::<Value>::new());
    c.shutdown();
}

#[test]
fn pwk_toml_levels_apply_and_are_reloaded_when_it_changes() {
    let env = TestEnv::new();
    env.write(
        "pwk.toml",
        "[rules]\nmissing-tools = \"off\"\ninvalid-thinking = \"warn\"\n",
    );
    let text = "---\nname: r\ndescription: d\nthinking: lots\n---\nBody\n";
    let (mut c, uri) = opened(&env, ".pi/agents/r.md", text, &[]);
    let diags = c.diagnostics(&uri, 1);
    assert_eq!(
        summary(&diags),
        [expect("invalid-thinking", WARNING, range_of(text, "lots"))]
    );
    assert_eq!(messages(&diags), lint_messages(&env));
    // The configuration changes on disk; the client says so.
    env.write(
        "pwk.toml",
        "host = \"tintinweb\"\n[rules]\ninvalid-thinking = \"off\"\n",
    );
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&env.path("pwk.toml")), "type": 2}]}),
    );
    let m = c.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
    });
    let diags = diagnostics(&m["params"]).clone();
    assert_eq!(messages(&diags), lint_messages(&env));
    assert!(
        diags.iter().all(|d| d["code"] != "invalid-thinking"),
        "{diags:?}"
    );
    // A broken configuration is said, as a message the editor shows.
    env.write("pwk.toml", "[rules]\nbogus = 1\n");
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&env.path("pwk.toml")), "type": 2}]}),
    );
    let m = c.wait_for(|m| m["method"] == "window/showMessage");
    assert!(
        m["params"]["message"]
            .as_str()
            .unwrap()
            .contains("pwk.toml"),
        "{m}"
    );
    c.shutdown();
}

#[test]
fn inline_suppressions_apply_as_in_pwk_lint() {
    let env = TestEnv::new();
    let text = "---\nname: r\ndescription: d\ntools: read\nthinking: lots # pwk: ignore[invalid-thinking] a level our fork adds\n---\nBody\n";
    let (mut c, uri) = opened(&env, ".pi/agents/r.md", text, &[]);
    let diags = c.diagnostics(&uri, 1);
    assert!(
        diags.iter().all(|d| d["code"] != "invalid-thinking"),
        "{diags:?}"
    );
    assert_eq!(messages(&diags), lint_messages(&env));
    c.shutdown();
}

/// The peak resident memory of a process, in KB (Linux).
fn peak_rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// The answer with id `null` (a message the server could not take).
fn null_id_error(c: &mut LspClient) -> Value {
    c.wait_for(|m| m.get("id") == Some(&Value::Null) && m.get("error").is_some())
}

#[test]
fn a_hostile_content_length_is_answered_without_allocating_it_and_the_server_does_not_abort() {
    let env = TestEnv::new();
    for length in ["100000000000", "1000000000"] {
        let mut c = server(&env, &[]);
        c.initialize(&file_uri(env.root()));
        c.send_raw(format!("Content-Length: {length}\r\n\r\n{{\"jsonrpc\"").as_bytes());
        let e = null_id_error(&mut c);
        assert_eq!(e["error"]["code"], -32600, "{e}");
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .contains("over pwk lsp's limit of 67108864 bytes"),
            "{e}"
        );
        // Nothing of the declared size was allocated (it was 1 GB before any body
        // byte).
        let peak = peak_rss_kb(c.pid());
        assert!(
            peak < 200_000,
            "peak RSS {peak} KB after Content-Length {length}"
        );
        // The body never comes: end of input ends the server normally, no abort.
        let (status, stderr) = c.finish();
        assert_eq!(status.code(), Some(1), "{stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("memory"),
            "{stderr}"
        );
    }
}

#[test]
fn a_header_line_without_end_a_lone_surrogate_and_duplicate_keys_get_error_answers() {
    let env = TestEnv::new();
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    // 4 MiB of header without a line break: bounded, answered, then in step again.
    let mut raw = vec![b'X'; 4 << 20];
    raw.extend_from_slice(b"\r\n\r\n");
    c.send_raw(&raw);
    let e = null_id_error(&mut c);
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("header line longer than 8192 bytes"),
        "{e}"
    );
    // A lone surrogate: an error answer to that request, not an exit.
    let body = r#"{"jsonrpc":"2.0","id":41,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///\ud800.md"},"position":{"line":0,"character":0}}}"#;
    c.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    let r = c.response(41);
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not valid JSON"),
        "{r}"
    );
    // A key twice: refused with both positions.
    let body = r#"{"jsonrpc":"2.0","id":42,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.md"},"textDocument":{"uri":"file:///b.md"},"position":{"line":0,"character":0}}}"#;
    c.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    let r = c.response(42);
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("duplicate key \"textDocument\" (first at 1:66)"),
        "{r}"
    );
    // Still serving.
    let id = c.request_id("textDocument/formatting", json!({}));
    assert_eq!(c.response(id)["error"]["code"], -32601);
    let (status, stderr) = c.shutdown();
    assert!(status.success(), "{stderr}");
}

#[test]
fn a_bad_initialize_and_a_second_one_get_error_answers_and_nothing_raw_is_printed() {
    let env = TestEnv::new();
    let mut c = server(&env, &[]);
    let init = |c: &mut LspClient, options: Value| {
        c.request_id(
            "initialize",
            json!({"processId": null, "rootUri": file_uri(env.root()), "capabilities": {}, "initializationOptions": options}),
        )
    };
    let id = init(&mut c, json!({"host": "\u{1b}[31mbogus"}));
    let r = c.response(id);
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("initializationOptions.host"), "{message}");
    assert!(!message.contains('\u{1b}'), "{message:?}");
    let id = init(&mut c, json!({"host": 5}));
    assert_eq!(c.response(id)["error"]["code"], -32602);
    // Duplicate keys in initializationOptions: refused like every JSON pwk reads.
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":77,"method":"initialize","params":{{"processId":null,"rootUri":"{}","capabilities":{{}},"initializationOptions":{{"host":"pwk","host":"tintinweb"}}}}}}"#,
        file_uri(env.root())
    );
    c.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    let r = c.response(77);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("duplicate key \"host\""),
        "{r}"
    );
    // Before a good initialize, requests are refused as not initialized.
    let id = c.request_id("textDocument/formatting", json!({}));
    assert_eq!(c.response(id)["error"]["code"], -32002);
    let id = init(&mut c, json!({"host": "tintinweb"}));
    assert!(c.response(id).get("result").is_some());
    c.notify("initialized", json!({}));
    // A second initialize: an error answer, the server goes on.
    let id = init(&mut c, json!({}));
    assert_eq!(c.response(id)["error"]["code"], -32600);
    let (status, stderr) = c.shutdown();
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
}

#[test]
fn a_30_mb_buffer_gets_every_answer_and_shutdown_is_not_blocked() {
    let env = TestEnv::new();
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    let mut huge = String::from("---\nname: big\ndescription: d\n");
    while huge.len() < 30 << 20 {
        huge.push_str("x-key: value\n");
    }
    huge.push_str("---\nBody\n");
    let uri = file_uri(&env.path(".pi/agents/big.md"));
    open(&mut c, &uri, &huge);
    let diags = c.diagnostics(&uri, 1);
    assert_eq!(diags[0]["code"], "file-too-large", "{:?}", summary(&diags));
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": 5, "character": 2}});
    for (method, params) in [
        ("textDocument/hover", at.clone()),
        ("textDocument/completion", at.clone()),
        ("textDocument/definition", at.clone()),
        (
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        ),
        (
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}, "context": {"diagnostics": []}}),
        ),
    ] {
        let id = c.request_id(method, params);
        let r = c.response(id);
        assert!(r.get("error").is_none(), "{method}: {r}");
        let result = &r["result"];
        assert!(
            result.is_null() || result.as_array().is_some_and(Vec::is_empty),
            "{method}: {result}"
        );
    }
    let (status, stderr) = c.shutdown();
    assert!(status.success(), "{stderr}");
}

#[test]
fn hover_text_from_the_role_cannot_leave_its_code_span() {
    let env = TestEnv::new();
    let text =
        "---\nname: r\ndescription: d\ntools: read\nx`[a](http://e.example)`: 1\n---\nBody\n";
    let (mut c, uri) = opened(&env, ".pi/agents/r.md", text, &[]);
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 1}}),
    );
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with("**`` x`[a](http://e.example)` ``**"),
        "{value}"
    );
    c.shutdown();
}

/// Long work runs on the worker thread: `shutdown` and `$/cancelRequest` are
/// answered by the protocol thread while the worker is still linting, and `exit`
/// ends the server without waiting for that work (exit status 0).
///
/// Three 1 MiB roles of 80,000 keys each and a 30 MB buffer are opened, then a
/// code action (which brings every buffer's findings up to date first: the long
/// work), a hover and its cancellation, and `shutdown`, all at once. The
/// cancellation and `shutdown` must be answered before the code action (on a
/// single-threaded server they came after it). Ordering is asserted, not time.
#[test]
fn shutdown_and_cancellation_are_answered_while_long_work_runs() {
    let env = TestEnv::new();
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    let heavy = |n: usize| {
        let mut t = format!("---\nname: heavy{n}\ndescription: d\ntools: read\n");
        for i in 0..80_000 {
            t.push_str(&format!("x-k{i}: v\n"));
        }
        t.push_str("---\nBody\n");
        assert!(t.len() < 1 << 20);
        t
    };
    let mut uris = Vec::new();
    for n in 0..3 {
        let uri = file_uri(&env.path(&format!(".pi/agents/heavy{n}.md")));
        open(&mut c, &uri, &heavy(n));
        uris.push(uri);
    }
    let mut huge = String::from("---\nname: big\ndescription: d\n");
    while huge.len() < 30 << 20 {
        huge.push_str("x-key: value\n");
    }
    let big = file_uri(&env.path(".pi/agents/big.md"));
    open(&mut c, &big, &huge);
    let action = c.request_id(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uris[0]}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}, "context": {"diagnostics": []}}),
    );
    let hover = c.request_id(
        "textDocument/hover",
        json!({"textDocument": {"uri": uris[1]}, "position": {"line": 5, "character": 2}}),
    );
    c.notify("$/cancelRequest", json!({"id": hover}));
    let shutdown = c.request_id("shutdown", Value::Null);
    let is_response = |m: &Value, id: i64| m["id"] == id && m.get("method").is_none();
    let first = c.wait_for(|m| is_response(m, action) || is_response(m, hover));
    assert_eq!(
        first["id"], hover,
        "the cancellation waited for the work: {first}"
    );
    assert_eq!(first["error"]["code"], -32800, "{first}");
    let next = c.wait_for(|m| is_response(m, action) || is_response(m, shutdown));
    assert_eq!(
        next["id"], shutdown,
        "shutdown was answered after the long work: {next}"
    );
    assert_eq!(next["result"], Value::Null, "{next}");
    // `exit` now, whether or not the worker is done: status 0, no crash.
    c.notify("exit", Value::Null);
    let (status, stderr) = c.finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A role directory reached through a symbolic link (`.agents -> /elsewhere`) is
/// not read: the user is told once, a role buffer under it gets one
/// `not-a-regular-file` finding instead of its lint, and its files on disk stay out
/// of the cross-file set. A real directory next to it is linted as usual, and a
/// plain Markdown file under another linked directory gets nothing.
#[test]
fn a_symlinked_role_directory_is_reported_not_read() {
    let env = TestEnv::new();
    let outside = tempfile::tempdir().unwrap();
    let role = "---\nname: r\ndescription: Reviews.\ntools: read\n---\nBody.\n";
    std::fs::create_dir_all(outside.path().join("agents")).unwrap();
    // Behind the link: a second `r`, which would be a duplicate-name if it were read.
    std::fs::write(outside.path().join("agents/r.md"), role).unwrap();
    std::fs::create_dir(env.path(".git")).unwrap();
    std::fs::create_dir(env.path(".agents")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("agents"), env.path(".agents/agents")).unwrap();
    std::os::unix::fs::symlink(outside.path(), env.path("docs")).unwrap();
    std::fs::write(outside.path().join("README.md"), "# Notes\n").unwrap();
    let real = env.write(".pi/agents/r.md", role);
    let mut c = server(&env, &[]);
    c.initialize(&file_uri(env.root()));
    let shown = c.wait_for(|m| m["method"] == "window/showMessage");
    let text = shown["params"]["message"].as_str().unwrap();
    assert!(
        text.contains("`.agents/agents` is a symbolic link"),
        "{shown}"
    );
    // The real directory's role: clean, and no duplicate of the file behind the link.
    let real_uri = file_uri(&real);
    open(&mut c, &real_uri, role);
    assert_eq!(c.diagnostics(&real_uri, 1), Vec::<Value>::new());
    // A buffer under the link: one finding that says why, no lint of its text.
    let linked_uri = file_uri(&env.path(".agents/agents/r.md"));
    open(
        &mut c,
        &linked_uri,
        "---\nname: r\nmax_turns: \"20\"\n---\n",
    );
    let diags = c.diagnostics(&linked_uri, 1);
    assert_eq!(summary(&diags).len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "not-a-regular-file", "{diags:?}");
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .contains("`.agents/agents` is a symbolic link"),
        "{diags:?}"
    );
    // Plain Markdown under another linked directory is not pwk's.
    let notes = file_uri(&env.path("docs/README.md"));
    open(&mut c, &notes, "# Notes\n");
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": notes}, "position": {"line": 0, "character": 1}}),
    );
    assert_eq!(hover, Value::Null);
    let (status, stderr) = c.shutdown();
    assert!(status.success(), "{stderr}");
}

/// An editor session on a role with n findings on one line (unknown tools in one
/// flow list), at n and 8n: opening it, a code action over the whole buffer, and an
/// edit. Each position of a finding is a lookup and a count of at most a block of
/// the line, so the bytes counted grow with n (a count from the line's start for
/// each finding grew with n², as the CLI's once did).
#[test]
fn positions_of_many_findings_on_one_line_cost_what_the_findings_do() {
    let scanned = |n: usize| {
        let env = TestEnv::new();
        std::fs::create_dir(env.path(".git")).unwrap();
        let tools: Vec<String> = (0..n).map(|i| format!("T{i}")).collect();
        let text = format!(
            "---\nname: g\ndescription: Reviews a diff.\ntools: [{}]\n---\nB\n",
            tools.join(", ")
        );
        let meter = env.path("meter.json");
        let uri = file_uri(&env.write(".claude/agents/g.md", &text));
        let mut cmd = env.pwk();
        cmd.arg("lsp").env("PWK_METER", &meter);
        let mut c = LspClient::start(cmd);
        c.initialize(&file_uri(env.root()));
        open(&mut c, &uri, &text);
        let diags = c.diagnostics(&uri, 1);
        assert!(diags.len() >= n, "{} findings for {n} tools", diags.len());
        c.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0},
                "end": {"line": 6, "character": 0}}, "context": {"diagnostics": []}}),
        );
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range":
                {"start": {"line": 3, "character": 8}, "end": {"line": 3, "character": 8}},
                "text": "X"}]}),
        );
        c.diagnostics(&uri, 2);
        let (status, _) = c.shutdown();
        assert!(status.success());
        let doc: Value = serde_json::from_slice(&std::fs::read(&meter).unwrap()).unwrap();
        doc["scan"].as_u64().unwrap()
    };
    let (at_n, at_8n) = (scanned(300), scanned(2400));
    assert!(
        at_8n <= at_n * 10 + 4096,
        "bytes scanned: {at_n} at n = 300, {at_8n} at 8n ({:.1}x)",
        at_8n as f64 / at_n as f64
    );
}
