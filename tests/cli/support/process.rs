//! Child processes in the tests: start with stdin, wait with a bound, poll, signal,
//! and the scripted fake pi.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{Output, TestEnv, repo_root};

/// How long [`wait_for`] polls: generous, since a hang is what these tests catch,
/// not slowness.
pub const PATIENCE: Duration = Duration::from_secs(90);

/// The scripted fake pi (`tests/cli/support/fake_pi.py`).
pub fn fake_pi() -> PathBuf {
    repo_root().join("tests/cli/support/fake_pi.py")
}

/// `pwk` in `env` on the scripted fake pi: `PWK_PI_BIN` the fake, its start log
/// at `log` (`FAKE_PI_LOG`), and `agent/` as pi's agent directory.
pub fn pwk_on_fake_pi(env: &TestEnv, log: &Path) -> Command {
    let mut c = env.pwk();
    c.env("PWK_PI_BIN", fake_pi())
        .env("FAKE_PI_LOG", log)
        .env("PI_CODING_AGENT_DIR", env.path("agent"));
    c
}

/// The fake pi's start log (`FAKE_PI_LOG`): one JSON object a start; empty when
/// pi never started.
pub fn fake_pi_starts(log: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Write `script` to `path` (parents created) as an executable (mode 0755): a
/// stand-in pi or a wrapper around one.
pub fn executable(path: &Path, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_path_buf()
}

/// Start `cmd` with piped output, write `stdin` to it and close it.
pub fn spawn_with_stdin(cmd: &mut Command, stdin: &[u8]) -> Child {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin).unwrap();
    drop(input);
    child
}

/// Wait for `child` at most `limit`; a child still running then is killed and the
/// test fails with what it printed so far.
pub fn wait_bounded(mut child: Child, limit: Duration, what: &str) -> Output {
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what}: pwk did not return within {limit:?}\nstdout: {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Poll `cond` for at most [`PATIENCE`].
pub fn wait_for(what: &str, cond: impl Fn() -> bool) {
    let t = Instant::now();
    while !cond() {
        assert!(t.elapsed() < PATIENCE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether any process of group `pgid` is left (zombies count until reaped).
pub fn group_alive(pgid: i32) -> bool {
    rustix::process::Pid::from_raw(pgid)
        .is_some_and(|p| rustix::process::test_kill_process_group(p).is_ok())
}

/// Send `sig` to the process `pid`.
pub fn signal(pid: u32, sig: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(pid as i32).unwrap();
    rustix::process::kill_process(pid, sig).unwrap();
}

/// Make a FIFO at `path` (mode 0644).
pub fn mkfifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .expect("mkfifo");
}
