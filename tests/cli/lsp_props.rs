//! Property: random edit sequences, sent to `pwk lsp` as incremental changes with
//! UTF-16 ranges, never make it fail (no panic, every request answered), and the
//! diagnostics it publishes for the final text are those `pwk lint` gives for the
//! same text on disk (rule, severity, range, message and help).

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::lsp_client::{LspClient, file_uri, utf16_position};
use crate::support::{TestEnv, diagnostics};

const SEEDS: [&str; 4] = [
    "---\nname: r\ndescription: Prüft — 日本語 😀\ntools: read, grep\nmax_turns: \"20\"\nthinking: lots\n---\n# R\n\nBody.\n",
    "---\nname: r\ndescription: d\nskills:\n  - a\n  - \"\"\ntols: read\n---\nBody\n",
    "---\r\nname: r\r\ndescription: d\r\n...\r\nBody\r\n",
    "no frontmatter at all\n",
];

/// Pieces random edits insert: YAML syntax, keys, non-ASCII, line breaks.
const PIECES: [&str; 16] = [
    "",
    "a",
    ":",
    " ",
    "\n",
    "---\n",
    "\"",
    "- ",
    "tools: ",
    "name: x\n",
    "日",
    "😀",
    "é",
    "\t",
    "max_turns: 0\n",
    "\r\n",
];

#[derive(Debug, Clone)]
struct Edit {
    /// Where, as a fraction of the text's characters (per mille).
    at: u32,
    /// How many characters to delete.
    delete: usize,
    insert: &'static str,
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        (
            0u32..=1000,
            0usize..6,
            prop::sample::select(PIECES.to_vec()),
        )
            .prop_map(|(at, delete, insert)| Edit { at, delete, insert }),
        1..12,
    )
}

/// The byte range of the edit in `text` (on character boundaries, never between
/// the `\r` and `\n` of a CRLF: an LSP position cannot point there, `\r\n` is one
/// line end).
fn byte_range(text: &str, e: &Edit) -> (usize, usize) {
    let chars: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let n = chars.len() - 1;
    let start = (n * e.at as usize) / 1000;
    let end = (start + e.delete).min(n);
    let b = text.as_bytes();
    let whole = |at: usize| {
        if at > 0 && b[at - 1] == b'\r' && b.get(at) == Some(&b'\n') {
            at - 1
        } else {
            at
        }
    };
    (whole(chars[start]), whole(chars[end]))
}

/// (code, severity, start, end, message) from the server.
type Finding = (String, String, (u64, u64), (u64, u64), String);

fn from_server(diags: &[Value]) -> Vec<Finding> {
    let pos = |p: &Value| {
        (
            p["line"].as_u64().unwrap(),
            p["character"].as_u64().unwrap(),
        )
    };
    diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                if d["severity"] == 1 {
                    "error"
                } else {
                    "warning"
                }
                .to_string(),
                pos(&d["range"]["start"]),
                pos(&d["range"]["end"]),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `pwk lint --format json`'s findings as the server should publish them: 1-based
/// character columns turned into 0-based UTF-16 positions of `text`.
fn from_lint(text: &str, doc: &Value) -> Vec<Finding> {
    let lines: Vec<&str> = text.split('\n').collect();
    let pos = |line: u64, col: u64| {
        let l = lines.get(line as usize - 1).copied().unwrap_or("");
        let byte = l
            .char_indices()
            .nth(col as usize - 1)
            .map_or(l.len(), |(i, _)| i);
        let start: usize = lines[..line as usize - 1].iter().map(|l| l.len() + 1).sum();
        utf16_position(text, start + byte)
    };
    diagnostics(doc)
        .iter()
        .map(|d| {
            let mut m = d["message"].as_str().unwrap().to_string();
            if let Some(h) = d["help"].as_str() {
                m.push_str(&format!("\nhelp: {h}"));
            }
            (
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                pos(d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap()),
                pos(
                    d["end_line"].as_u64().unwrap(),
                    d["end_column"].as_u64().unwrap(),
                ),
                m,
            )
        })
        .collect()
}

fn run_case(seed: &str, edits: &[Edit]) -> Result<(), TestCaseError> {
    let env = TestEnv::new();
    let path = env.write(".pi/agents/r.md", seed);
    let uri = file_uri(&path);
    let mut cmd = env.pwk();
    cmd.args(["lsp", "--host", "pwk"]);
    let mut c = LspClient::start(cmd);
    c.initialize(&file_uri(env.root()));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": seed}}),
    );
    let mut text = seed.to_string();
    let mut version = 1;
    for e in edits {
        let (s, t) = byte_range(&text, e);
        let (l1, c1) = utf16_position(&text, s);
        let (l2, c2) = utf16_position(&text, t);
        version += 1;
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                {"range": {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}}, "text": e.insert}
            ]}),
        );
        text.replace_range(s..t, e.insert);
        // Requests in between answer (never an internal error).
        for method in ["textDocument/hover", "textDocument/completion"] {
            let id = c.request_id(
                method,
                json!({"textDocument": {"uri": uri}, "position": {"line": l1, "character": c1}}),
            );
            let r = c.response(id);
            prop_assert!(r.get("error").is_none(), "{method}: {r}");
        }
        let id = c.request_id(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": l2, "character": c2}}, "context": {"diagnostics": []}}),
        );
        let r = c.response(id);
        prop_assert!(r.get("error").is_none(), "codeAction: {r}");
    }
    let published = from_server(&c.diagnostics(&uri, version));
    std::fs::write(&path, &text).unwrap();
    let out = env
        .pwk()
        .args(["lint", "--host", "pwk", "--format", "json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    prop_assert_eq!(published, from_lint(&text, &doc), "final text: {:?}", text);
    let (status, stderr) = c.shutdown();
    prop_assert!(status.success(), "status {:?}: {}", status, stderr);
    prop_assert!(!stderr.contains("panicked"), "{}", stderr);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_end_in_pwk_lint_s_diagnostics(seed in 0usize..SEEDS.len(), edits in edits()) {
        run_case(SEEDS[seed], &edits)?;
    }
}
