//! Editor set-up snippets in the book work as written.
//!
//! The ```` ```lua tested=nvim-0.7 ```` block of `docs/src/editors.md` is Neovim's
//! `init.lua`, unchanged: Neovim (headless, `scripts/provision-editor.sh` or
//! `$PWK_TEST_NVIM`) opens a role file with `pwk` on `PATH`, and the diagnostics of
//! `pwk lsp` must arrive. Without Neovim the test says so and returns, except under
//! `CI=true`, where it fails.

use std::process::Command;
use std::time::Duration;

use crate::support::tools::{Tool, tool};
use crate::support::{TestEnv, repo_root};

/// The body of the fenced block whose info string is `info`.
fn block(page: &str, info: &str) -> Option<String> {
    let start = page.find(&format!("```{info}\n"))? + info.len() + 4;
    let end = page[start..].find("\n```")?;
    Some(page[start..start + end + 1].to_string())
}

#[test]
fn the_neovim_snippet_shows_diagnostics() {
    let page = std::fs::read_to_string(repo_root().join("docs/src/editors.md")).unwrap();
    let init = block(&page, "lua tested=nvim-0.7").expect("editors.md has the Neovim 0.7 block");
    let Some(nvim) = tool(Tool::Nvim) else {
        return;
    };
    let env = TestEnv::new();
    env.write(
        ".pi/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews diffs.\ntools: read, grep\nmax_turns: \"20\"\n---\nReview.\n",
    );
    let init_path = env.write("init.lua", &init);
    let out = env.path("diagnostics.txt");
    let check = env.write(
        "check.lua",
        "vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 20)\n\
         local codes = {}\n\
         for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(codes, tostring(d.code)) end\n\
         table.sort(codes)\n\
         local f = assert(io.open(os.getenv('PWK_OUT'), 'w'))\n\
         f:write(table.concat(codes, ' '))\n\
         f:close()\n\
         vim.cmd('qa!')\n",
    );
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_pwk"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let mut child = Command::new(&nvim)
        .current_dir(env.root())
        .env("HOME", &env.home)
        .env("XDG_CONFIG_HOME", env.path("xdg-config"))
        .env("XDG_DATA_HOME", env.path("xdg-data"))
        .env("XDG_STATE_HOME", env.path("xdg-state"))
        .env("PATH", path)
        .env("PWK_OUT", &out)
        .env_remove("NO_COLOR")
        .args(["--headless", "-u"])
        .arg(&init_path)
        .arg("-c")
        .arg(format!("luafile {}", check.display()))
        .arg(".pi/agents/reviewer.md")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start nvim");
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("Neovim did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let codes = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(
        codes.split(' ').any(|c| c == "invalid-type"),
        "the Neovim 0.7 snippet of docs/src/editors.md, used as init.lua, gave these \
         diagnostics: `{codes}` (expected `invalid-type` on the quoted max_turns)"
    );
}

#[test]
fn block_finds_a_fenced_block_by_its_info_string() {
    let page = "a\n```lua x=1\nline 1\nline 2\n```\nb\n";
    assert_eq!(block(page, "lua x=1").as_deref(), Some("line 1\nline 2\n"));
    assert_eq!(block(page, "lua y=1"), None);
}
