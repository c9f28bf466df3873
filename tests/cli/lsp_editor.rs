//! `pwk lsp` in a real editor: Neovim headless, its built-in LSP client attached
//! to the server on a role file (tests/cli/editor/nvim_lsp.lua).
//!
//! Neovim comes from `scripts/provision-editor.sh` (Debian's `neovim`), or
//! `$PWK_TEST_NVIM` ([`crate::support::tools`]: skipped visibly without it, a
//! failure under CI).

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::tools::{Tool, tool};
use crate::support::{TestEnv, repo_root};

const ROLE: &str = "---\nname: reviewer\ndescription: Prüft Änderungen — 日本語\ntools: read, grep\nskills: [日本😀, \"\"]\nmax_turns: \"20\"\n---\n# Reviewer\n\nBody.\n";

#[test]
fn neovim_shows_the_diagnostics_and_applies_a_quick_fix() {
    let Some(nvim) = tool(Tool::Nvim) else {
        return;
    };
    let env = TestEnv::new();
    let file = env.write(".pi/agents/reviewer.md", ROLE);
    let out = env.path("nvim-result.json");
    let script = repo_root().join("tests/cli/editor/nvim_lsp.lua");
    let mut cmd = Command::new(&nvim);
    cmd.args(["--headless", "--clean", "-n", "-i", "NONE", "-c"])
        .arg(format!("luafile {}", script.display()))
        .current_dir(env.root())
        .env("HOME", &env.home)
        .env("XDG_CONFIG_HOME", env.home.join(".config"))
        .env("XDG_DATA_HOME", env.home.join(".local/share"))
        .env("XDG_STATE_HOME", env.home.join(".local/state"))
        .env("XDG_CACHE_HOME", env.home.join(".cache"))
        .env("PWK_BIN", env!("CARGO_BIN_EXE_pwk"))
        .env("PWK_ROOT", env.root())
        .env("PWK_FILE", &file)
        .env("PWK_OUT", &out)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("PWK_TEST") || k.starts_with("PI_") {
            cmd.env_remove(&k);
        }
    }
    let mut child = cmd.spawn().expect("start nvim");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("nvim did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .ok();
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| {
        panic!("nvim wrote no result ({e}); status {status:?}; stderr: {stderr}")
    });
    let r: Value = serde_json::from_str(&text).unwrap();
    assert!(r["error"].is_null(), "the Lua test failed: {}", r["error"]);
    assert_eq!(r["offset_encoding"], "utf-16");
    // Neovim turns LSP's UTF-16 positions into byte columns: the list on line 5
    // ends after `😀` (4 bytes) and the CJK characters (3 bytes each).
    let line = "skills: [日本😀, \"\"]";
    let before: Vec<(String, u64, u64, u64, u64)> = r["before"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["lnum"].as_u64().unwrap(),
                d["col"].as_u64().unwrap(),
                d["end_lnum"].as_u64().unwrap(),
                d["end_col"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        before,
        [
            ("invalid-type".to_string(), 4, 8, 4, line.len() as u64),
            // `日本😀` is no skill the host finds: bytes 9..19 of the line.
            ("unknown-skill".to_string(), 4, 9, 4, 19),
            ("invalid-type".to_string(), 5, 11, 5, 15),
        ]
    );
    assert!(
        r["before"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["source"] == "pwk")
    );
    assert_eq!(r["action"], "remove the quotes: `max_turns: 20`");
    let after: Vec<&str> = r["after"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    // `max_turns` is read by some hosts only: with no host known that is said once
    // in `pwk lint`'s summary, not per buffer.
    assert_eq!(after, ["invalid-type", "unknown-skill"]);
    assert_eq!(r["text"][5], "max_turns: 20");
    assert!(
        r["hover"].as_str().unwrap().starts_with("**`name`**"),
        "{}",
        r["hover"]
    );
}
