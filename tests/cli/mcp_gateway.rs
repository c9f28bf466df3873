//! pi ≥ 1.0.4's tool semantics for MCP, on the REAL pi 1.6 at the fake LLM: a role
//! whose `tools` is `read, codemode` reaches a mutating MCP tool configured in pi's
//! `mcp.json` (the fact behind `mcp-gateway-tool`), the read-only list alone does
//! not, and `pwk lint` warns about the first and `pwk show` lists the reach.

use std::time::Duration;

use serde_json::{Value, json};

use crate::delegate_e2e::{FAST_FAIL, Gen, World, pi_bin};
use crate::support::fake_llm::Reply;
use crate::support::{TestEnv, run};

/// A stdio MCP server with one mutating tool, `write_note`, that appends its text to
/// the file named by argv[1].
const NOTES_SERVER: &str = r#"import json, sys
notes = sys.argv[1]
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if "id" not in m:
        continue
    method = m.get("method")
    if method == "initialize":
        r = {"protocolVersion": m["params"].get("protocolVersion", "2025-06-18"),
             "capabilities": {"tools": {}}, "serverInfo": {"name": "notes", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": [{"name": "write_note", "description": "Append a note to the notes file.",
              "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                              "required": ["text"]}}]}
    elif method == "tools/call":
        with open(notes, "a") as f:
            f.write(m["params"]["arguments"].get("text", "") + "\n")
        r = {"content": [{"type": "text", "text": "noted"}]}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
"#;

/// Run pi 1.6 with `tools` and an MCP server; the model's first move is a codemode
/// script that calls the MCP tool. Returns whether the note was written.
fn reaches_mcp(pi: &std::path::Path, tools: &[&str]) -> bool {
    let script =
        r#"await tools.mcp__notes__write_note({ text: "from codemode" }); return "written";"#;
    let w = World::new(
        Gen::Pi16,
        pi.to_path_buf(),
        vec![Reply::tool(
            "codemode",
            &json!({ "code": script }).to_string(),
        )],
        Reply::text("done"),
        FAST_FAIL,
    );
    let server = w.env.write("notes-server.py", NOTES_SERVER);
    let notes = w.env.path("notes.txt");
    std::fs::write(
        w.agent.join("mcp.json"),
        json!({"mcpServers": {"notes": {"command": "python3",
            "args": [server, notes], "exposure": "codemode"}}})
        .to_string(),
    )
    .unwrap();
    let mut spec = pwk::delegate::PiRunSpec::new(&w.work, "Write a note saying hello");
    spec.provider = Some("mock".into());
    spec.model = Some("mock-model".into());
    spec.tools = Some(tools.iter().map(|t| t.to_string()).collect());
    spec.env = w.spec_env();
    spec.timeout = Some(Duration::from_secs(90));
    let env = pwk::env::Env {
        pi_bin: Some(pi.to_path_buf()),
        ..Default::default()
    };
    let o = pwk::delegate::run_pi(&spec, &env, &|_| {});
    assert_eq!(
        o.status,
        pwk::delegate::RunStatus::Completed,
        "{tools:?}: {:?}",
        o.error
    );
    std::fs::read_to_string(&notes).is_ok_and(|s| s.contains("from codemode"))
}

#[test]
fn codemode_in_tools_reaches_a_mutating_mcp_tool_on_real_pi_16() {
    let Some(pi) = pi_bin(Gen::Pi16) else { return };
    assert!(
        reaches_mcp(&pi, &["read", "grep", "find", "ls", "codemode"]),
        "pi 1.6: `--tools read,grep,find,ls,codemode` should reach the MCP tool"
    );
    assert!(
        !reaches_mcp(&pi, &["read", "grep", "find", "ls"]),
        "pi 1.6: the read-only list alone must not reach the MCP tool"
    );
}

fn lint_rules(env: &TestEnv, host: &str) -> Vec<String> {
    let out = run(env.pwk().args(["lint", "--format", "json", "--host", host]));
    crate::support::rules_of(&crate::support::json(&out))
}

/// The same role, linted: a warning under herdr (which hands `tools` to
/// `pi --tools`) and the portable profile; none once the role may change files
/// anyway, or names the one MCP tool it needs.
#[test]
fn lint_warns_about_a_gateway_in_an_otherwise_read_only_role() {
    let env = TestEnv::new();
    let role = |tools: &str| {
        format!(
            "---\nname: reviewer\ndescription: Reviews the diff.\ntools: {tools}\n---\nReview.\n"
        )
    };
    env.write(
        ".pi/agents/reviewer.md",
        role("read, grep, find, ls, codemode"),
    );
    for host in ["herdr", "pwk"] {
        let rules = lint_rules(&env, host);
        assert_eq!(rules, ["mcp-gateway-tool"], "{host}");
    }
    env.write(".pi/agents/reviewer.md", role("read, grep, tool_search"));
    assert_eq!(lint_rules(&env, "herdr"), ["mcp-gateway-tool"]);
    for tools in [
        "read, bash, edit, codemode",
        "read, codemode, mcp__notes__get_time",
    ] {
        env.write(".pi/agents/reviewer.md", role(tools));
        assert!(
            !lint_rules(&env, "herdr").contains(&"mcp-gateway-tool".to_string()),
            "{tools}"
        );
    }
    // No such fact for tintinweb: `codemode` is an unknown tool there, as before.
    env.write(".pi/agents/reviewer.md", role("read, codemode"));
    assert_eq!(lint_rules(&env, "tintinweb"), ["unknown-tool"]);
}

/// `pwk show` lists the MCP reach beside the effective tools: through the gateway,
/// and without `tools` at all.
#[test]
fn show_lists_the_mcp_tools_a_role_reaches() {
    let env = TestEnv::new();
    env.write(
        ".pi/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews.\ntools: read, grep, codemode\n---\nReview.\n",
    );
    env.write(
        ".pi/agents/open.md",
        "---\nname: open\ndescription: No allow-list.\n---\nGo.\n",
    );
    env.write(
        ".pi/agents/closed.md",
        "---\nname: closed\ndescription: Read-only.\ntools: read, grep, find, ls\n---\nGo.\n",
    );
    let show = |name: &str| -> Value {
        let out = run(env
            .pwk()
            .args(["show", name, "--host", "herdr", "--format", "json"]));
        assert_eq!(out.code, 0, "{}", out.stderr);
        serde_json::from_str::<Value>(&out.stdout).unwrap()["runtime"]["tools"].clone()
    };
    let t = show("reviewer");
    assert_eq!(t["mcp"]["via"], json!(["codemode"]), "{t:#}");
    assert_eq!(t["mcp"]["every_tool"], true);
    assert_eq!(t["mcp"]["pi"], ">=1.0.4");
    let t = show("open");
    assert_eq!(t["mcp"]["via"], json!([]), "{t:#}");
    assert!(show("closed").get("mcp").is_none());
    let human = run(env.pwk().args(["show", "reviewer", "--host", "herdr"]));
    assert!(
        human
            .stdout
            .contains("mcp         every configured MCP tool on pi >=1.0.4 (via codemode)"),
        "{}",
        human.stdout
    );
}
