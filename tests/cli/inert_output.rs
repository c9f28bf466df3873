//! Untrusted text stays inert in every output (N21, N22, N35 of the turn-4 attack
//! pass): every class of character that moves the cursor, reorders text or hides
//! it × every field of a role that can carry it × every renderer and front end,
//! through the real binary. A cell fails when one such character reaches the
//! output's bytes raw (the LSP and MCP wire included: JSON carries them as `\u`
//! escapes, which decode to the same text).
//!
//! Each character class gets one project holding one role per field, the field
//! carrying `a<chars>b`; every front end then runs over it: `lint` in each
//! `--format`, `lint -`, `list` and `show` (human and JSON, `show` once per role),
//! `pwk lsp` (diagnostics, hover, document symbols of every role) and `pwk mcp`
//! (`lint`, `list_roles`, `show_role` of every role). A Claude Code role whose
//! project settings' deny rules carry the characters is shown too (CLI and MCP).

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::front_ends::{bounded, mcp_answered, mcp_session, raw_in};
use crate::support::lsp_client::{file_uri, frame, frames};
use crate::support::{TestEnv, of_rule};

/// How long one front end may take over one class's project.
const LIMIT: Duration = Duration::from_secs(30);

/// Run `cmd` bounded by [`LIMIT`]: stdout and stderr together, a kill at the limit
/// marked in the output.
fn run_bounded(cmd: Command, input: &[u8], done: &dyn Fn(&[u8]) -> bool) -> Vec<u8> {
    let ran = bounded(cmd, input, LIMIT, done);
    let mut out = ran.out;
    if ran.killed {
        out.extend(b"\n[killed after 30 s]");
    }
    out
}

/// The character classes, each with the characters planted (several per class:
/// one position in a class is not the class).
const CLASSES: &[(&str, &[char])] = &[
    ("C0 control", &['\u{1b}', '\u{7}', '\u{8}']),
    ("DEL", &['\u{7f}']),
    ("C1 control", &['\u{9b}', '\u{85}', '\u{8d}']),
    (
        "bidi embedding/override",
        &['\u{202a}', '\u{202b}', '\u{202d}', '\u{202e}'],
    ),
    (
        "bidi isolate",
        &['\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}'],
    ),
    ("bidi mark", &['\u{200e}', '\u{200f}', '\u{61c}']),
    (
        "zero-width",
        &['\u{200b}', '\u{200c}', '\u{2060}', '\u{2063}'],
    ),
    ("joiner outside an emoji", &['\u{200d}']),
    (
        "tag characters (ASCII smuggling)",
        &[
            '\u{e0001}',
            '\u{e0072}',
            '\u{e006d}',
            '\u{e0020}',
            '\u{e007f}',
        ],
    ),
    ("line/paragraph separator", &['\u{2028}', '\u{2029}']),
    ("soft hyphen, CGJ", &['\u{ad}', '\u{34f}']),
    ("BOM inside the text", &['\u{feff}']),
    (
        "Hangul filler",
        &['\u{3164}', '\u{115f}', '\u{1160}', '\u{ffa0}'],
    ),
    (
        "variation selector alone",
        &['\u{fe0f}', '\u{fe00}', '\u{e0100}', '\u{180b}'],
    ),
    (
        "interlinear annotation, Mongolian vowel separator",
        &['\u{fff9}', '\u{fffb}', '\u{180e}'],
    ),
];

/// The fields a role's text reaches the output through.
const FIELDS: &[&str] = &[
    "name",
    "description",
    "tools item",
    "model",
    "unknown key",
    "unknown key's value",
    "body",
    "file name",
];

/// A role file carrying `x` in `field`: (path in the project, role name, text).
fn role(field: &str, x: &str) -> (String, String, String) {
    let slug = field.replace([' ', '\''], "-");
    let mut name = format!("f-{slug}");
    let mut file = name.clone();
    let (mut desc, mut tools, mut model) = (
        "Reviews a diff.".to_string(),
        "read, grep".to_string(),
        "anthropic/claude-sonnet-4-5".to_string(),
    );
    let (mut key, mut value, mut body) = (
        "x-note".to_string(),
        "v".to_string(),
        "You review.".to_string(),
    );
    match field {
        "name" => {
            name = format!("n{x}x");
            file = name.clone();
        }
        "description" => desc = format!("Reviews {x} a diff."),
        "tools item" => tools = format!("read, g{x}rep"),
        "model" => model = format!("anthropic/claude{x}-sonnet"),
        "unknown key" => key = format!("k{x}k"),
        "unknown key's value" => {
            key = "colour".into();
            value = format!("v{x}v");
        }
        "body" => body = format!("You review {x} the diff."),
        "file name" => file = format!("f{x}x"),
        other => unreachable!("{other}"),
    }
    let text = format!(
        "---\nname: {name}\ndescription: {desc}\ntools: {tools}\nmodel: {model}\n{key}: {value}\n---\n{body}\n"
    );
    (format!(".agents/agents/{file}.md"), name, text)
}

/// A Claude Code role and the project's `.claude/settings.json`, whose deny rules
/// carry `x`: one a tool's specifier (`show`'s limit), the others rules the host
/// drops or that name no tool (`show`'s `ignored` lines): the host's own settings
/// reach the output too.
const SETTINGS_ROLE: &str = "cc-deny";

fn plant_host_settings(env: &TestEnv, x: &str) {
    env.write(
        &format!(".claude/agents/{SETTINGS_ROLE}.md"),
        format!(
            "---\nname: {SETTINGS_ROLE}\ndescription: Denied.\ntools: Read, Bash, mcp__srv__t{x}\n---\nD.\n"
        ),
    );
    // `mcp__srv` reaches the MCP tool whose name carries the class: the note names it.
    let rules = [
        "mcp__srv".to_string(),
        format!("Bash({x})"),
        format!("{x}()"),
        format!("Read{x}("),
        format!("Read{x} "),
    ];
    env.write(
        ".claude/settings.json",
        json!({"permissions": {"deny": rules}}).to_string(),
    );
}

/// `pwk lsp`: open every role and the Claude Code role the host's settings reach,
/// ask hover on its name, its description and its tools (what the child gets, with
/// the settings' denials) and its document symbols; the raw bytes of everything the
/// server sent.
fn lsp(env: &TestEnv, roles: &[(String, String, String)]) -> Vec<u8> {
    let settings_role = format!(".claude/agents/{SETTINGS_ROLE}.md");
    let mut roles = roles.to_vec();
    roles.push((
        settings_role.clone(),
        SETTINGS_ROLE.to_string(),
        std::fs::read_to_string(env.path(&settings_role)).unwrap(),
    ));
    let mut input = frame(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"processId": null, "rootUri": file_uri(env.root()), "capabilities": {}}}));
    input.extend(frame(
        &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    ));
    let mut ids = Vec::new();
    for (n, (rel, _, text)) in roles.iter().enumerate() {
        let uri = file_uri(&env.path(rel));
        input.extend(frame(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}})));
        for (k, (line, character)) in [(1, 2), (2, 2), (3, 8)].into_iter().enumerate() {
            let id = 100 + n * 10 + k;
            ids.push(id);
            input.extend(frame(&json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover",
                "params": {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}})));
        }
        let id = 100 + n * 10 + 5;
        ids.push(id);
        input.extend(frame(
            &json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/documentSymbol",
            "params": {"textDocument": {"uri": uri}}}),
        ));
    }
    let want = roles.len();
    let mut cmd = env.pwk();
    cmd.arg("lsp");
    run_bounded(cmd, &input, &|out| {
        let got = frames(out);
        let answered = ids
            .iter()
            .all(|&id| got.iter().any(|v| v["id"] == json!(id)));
        let published = got
            .iter()
            .filter(|v| v["method"] == "textDocument/publishDiagnostics")
            .count();
        answered && published >= want
    })
}

/// `pwk mcp`: `lint`, `list_roles` and `show_role` of every role.
fn mcp(env: &TestEnv, roles: &[(String, String, String)]) -> Vec<u8> {
    let mut calls = vec![("lint", json!({})), ("list_roles", json!({"all": true}))];
    for (_, name, _) in roles {
        calls.push(("show_role", json!({"name": name})));
    }
    calls.push((
        "show_role",
        json!({"name": SETTINGS_ROLE, "host": "claude-code"}),
    ));
    let input = mcp_session("inert-output", &calls);
    let mut cmd = env.pwk();
    cmd.arg("mcp");
    run_bounded(cmd, &input, &|out| mcp_answered(out, calls.len()))
}

/// Every front end over one class's project: (front end, output bytes).
fn outputs(env: &TestEnv, roles: &[(String, String, String)]) -> Vec<(String, Vec<u8>)> {
    let cli = |args: &[&str]| {
        let mut cmd = env.pwk();
        cmd.args(args);
        run_bounded(cmd, b"", &|_| true)
    };
    let mut out = Vec::new();
    for format in ["human", "concise", "json", "sarif", "github"] {
        out.push((
            format!("lint --format {format}"),
            cli(&["lint", "--format", format]),
        ));
    }
    for (rel, _, text) in roles {
        let mut cmd = env.pwk();
        cmd.args(["lint", "-", "--stdin-filename", rel]);
        out.push((
            format!("lint - --stdin-filename {}", rel.escape_default()),
            run_bounded(cmd, text.as_bytes(), &|_| true),
        ));
    }
    for format in ["human", "json"] {
        out.push((
            format!("list --format {format}"),
            cli(&["list", "--all", "--format", format]),
        ));
        for (_, name, _) in roles {
            out.push((
                format!("show {} --format {format}", name.escape_default()),
                cli(&["show", name, "--format", format]),
            ));
        }
        out.push((
            format!("show {SETTINGS_ROLE} (host settings) --format {format}"),
            cli(&[
                "show",
                SETTINGS_ROLE,
                "--host",
                "claude-code",
                "--format",
                format,
            ]),
        ));
    }
    out.push(("lsp".into(), lsp(env, roles)));
    out.push(("mcp".into(), mcp(env, roles)));
    out
}

/// One class: its project, every front end, the failures.
fn class_cells(class: &str, chars: &[char]) -> (usize, Vec<String>) {
    let env = TestEnv::new();
    std::fs::create_dir(env.path(".git")).unwrap();
    let planted: String = chars.iter().collect();
    let x = format!("a{planted}b");
    let roles: Vec<(String, String, String)> = FIELDS.iter().map(|f| role(f, &x)).collect();
    for (rel, _, text) in &roles {
        env.write(rel, text);
    }
    plant_host_settings(&env, &x);
    let mut failed = Vec::new();
    let outs = outputs(&env, &roles);
    for (front, bytes) in &outs {
        let raw = raw_in(bytes, chars);
        if !raw.is_empty() {
            failed.push(format!("[{class} × {front}] raw in the output: {raw:?}"));
        }
        let text = String::from_utf8_lossy(bytes);
        if text.contains("panicked") || text.contains("[killed after 30 s]") {
            failed.push(format!("[{class} × {front}] crashed or hung: {text}"));
        }
    }
    (outs.len() * FIELDS.len(), failed)
}

#[test]
fn no_raw_control_bidi_or_invisible_character_in_any_output() {
    let results: Vec<(usize, Vec<String>)> = std::thread::scope(|s| {
        let chunks: Vec<_> = CLASSES
            .chunks(CLASSES.len().div_ceil(2))
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|(class, chars)| class_cells(class, chars))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        chunks.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let cells: usize = results.iter().map(|r| r.0).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|r| r.1).collect();
    eprintln!(
        "inert output: {} classes × {} fields × every front end = {cells} cells",
        CLASSES.len(),
        FIELDS.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// N21/N22 as findings, by class: every invisible character class planted in a
/// description is reported under the portable profile, and a line or paragraph
/// separator in a key line is an error under nicobailon (its line reader loses the
/// key), with the role listed as not visible to it.
#[test]
fn every_invisible_class_is_a_finding_and_separators_lose_nicobailons_key() {
    let invisible: &[(&str, &[char])] = &CLASSES[5..];
    let mut failures = Vec::new();
    let mut cases = 0;
    for (class, chars) in invisible {
        for &c in chars.iter() {
            cases += 1;
            let env = TestEnv::new();
            let text = format!(
                "---\nname: r\ndescription: Reviews{c} a diff.\ntools: read\n---\nYou review.\n"
            );
            env.write(".pi/agents/r.md", &text);
            let out = crate::support::run(env.pwk().args([
                "lint",
                "--host",
                "nicobailon",
                "--format",
                "json",
                ".pi/agents/r.md",
            ]));
            let doc: Value = serde_json::from_str(&out.stdout).unwrap();
            let hits: Vec<&Value> = of_rule(&doc, "invisible-character");
            let separator = matches!(c, '\u{2028}' | '\u{2029}');
            let want = if separator { "error" } else { "warning" };
            if hits.len() != 1 || hits[0]["severity"] != want {
                failures.push(format!(
                    "{class} U+{:04X}: want one {want}, got {hits:?}",
                    c as u32
                ));
            }
            if separator {
                let list = crate::support::run(env.pwk().args([
                    "list",
                    "--host",
                    "nicobailon",
                    "--format",
                    "json",
                ]));
                let doc: Value = serde_json::from_str(&list.stdout).unwrap();
                let visible = doc["roles"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["name"] == "r")
                    .map(|r| r["visible"].clone());
                if visible != Some(json!(false)) {
                    failures.push(format!(
                        "{class} U+{:04X}: nicobailon loses `description`, but the role is visible: {visible:?}",
                        c as u32
                    ));
                }
            }
        }
    }
    eprintln!("invisible classes: {cases} characters");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
