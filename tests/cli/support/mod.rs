//! Test support: a temporary project directory and a `pwk` command whose
//! environment is pinned, so no test depends on the machine or on another test.

#![allow(dead_code)]

pub mod fake_llm;
pub mod findings;
pub mod front_ends;
pub mod lsp_client;
pub mod process;
pub mod tools;

pub use findings::{Finding, diagnostics, findings, first_of_rule, of_rule};

use std::path::{Path, PathBuf};
use std::process::Command;

/// A temporary directory that is the current directory of every command it builds.
pub struct TestEnv {
    dir: tempfile::TempDir,
    /// `HOME` for the commands: an empty directory inside the temp dir.
    pub home: PathBuf,
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let dir = tempfile::Builder::new()
            .prefix("pwk-test-")
            .tempdir()
            .expect("temp dir");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).expect("home dir");
        TestEnv { dir, home }
    }

    /// The project root (the temp dir itself).
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `root/rel`.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Write `content` to `root/rel`, creating parent directories.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("parent dir");
        }
        std::fs::write(&p, content).expect("write file");
        p
    }

    /// Write `script` to `root/rel` as an executable (a stand-in pi, a wrapper).
    pub fn executable(&self, rel: &str, script: impl AsRef<str>) -> PathBuf {
        process::executable(&self.path(rel), script.as_ref())
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).expect("read file")
    }

    /// `pwk` with the current directory at the project root and a pinned environment:
    /// no PWK_* or PI_* variables from the machine, HOME inside the temp dir, no colour.
    ///
    /// `PWK_TEST_OTHER_BINARY` runs another build instead (an older commit's, to see
    /// which regression tests fail there); unset, the binary under test.
    pub fn pwk(&self) -> Command {
        let bin = std::env::var_os("PWK_TEST_OTHER_BINARY")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_pwk").into());
        let mut cmd = Command::new(bin);
        cmd.current_dir(self.root());
        for (k, _) in std::env::vars_os() {
            let k = k.to_string_lossy().into_owned();
            if k.starts_with("PWK_")
                || k.starts_with("PI_")
                || k == "NO_COLOR"
                || k == "GITHUB_ACTIONS"
                || k == "XDG_CACHE_HOME"
            {
                cmd.env_remove(&k);
            }
        }
        cmd.env("HOME", &self.home);
        cmd.env("NO_COLOR", "1");
        cmd
    }

    /// insta settings that replace this test's temp dir with `[ROOT]`.
    pub fn insta_settings(&self) -> insta::Settings {
        let mut s = insta::Settings::clone_current();
        let root = self.root().display().to_string();
        s.add_filter(&regex_escape(&root), "[ROOT]");
        s
    }
}

/// Escape a literal for use in an insta filter regex.
pub fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The output of a finished command, for assertions.
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run a command to completion (with stdin closed) and capture everything.
pub fn run(cmd: &mut Command) -> Output {
    run_with_stdin(cmd, b"")
}

/// Run a command, feed it `stdin`, and capture everything.
pub fn run_with_stdin(cmd: &mut Command, stdin: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn pwk");
    {
        let mut input = child.stdin.take().expect("stdin");
        let _ = input.write_all(stdin);
    }
    let out = child.wait_with_output().expect("wait for pwk");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The command's stdout as one JSON document; a failure, with both streams, when it
/// is not.
pub fn json(out: &Output) -> serde_json::Value {
    json_of(out, "pwk")
}

/// [`json`], the failure naming `what` ran.
pub fn json_of(out: &Output, what: &str) -> serde_json::Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: stdout is not one JSON document ({e}):\n{}\nstderr:\n{}",
            out.stdout, out.stderr
        )
    })
}

/// `pwk lint --format json ARGS` in the project.
pub fn lint_json(env: &TestEnv, args: &[&str]) -> Output {
    run(env.pwk().args(["lint", "--format", "json"]).args(args))
}

/// [`lint_json`]'s document; a failure when lint did not finish (exit 2 or more).
pub fn lint_doc(env: &TestEnv, args: &[&str]) -> serde_json::Value {
    let out = lint_json(env, args);
    assert!(
        out.code <= 1,
        "pwk lint {args:?}: exit {}\n{}",
        out.code,
        out.stderr
    );
    json(&out)
}

/// The rule ids of a `pwk lint --format json` document's findings, in its order.
pub fn rules_of(doc: &serde_json::Value) -> Vec<String> {
    diagnostics(doc)
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}
