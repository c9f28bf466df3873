//! Every wait bounded, every exit clean: `pwk delegate`, `review` and `run-request`
//! against the scripted fake pi (tests/cli/support/fake_pi.py) for faults the real
//! pi cannot show on demand — a daemon that keeps pi's stdout open, signals other
//! than INT/TERM, special files given as input, an unsafe lock directory.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::process::{
    PATIENCE, fake_pi_starts, group_alive, mkfifo, pwk_on_fake_pi, signal, spawn_with_stdin,
    wait_bounded, wait_for,
};
use crate::support::tools::pis;
use crate::support::{TestEnv, json_of};

/// The daemon the fake pi left behind (its pid file), killed when dropped.
struct Daemon(PathBuf);

impl Daemon {
    fn pid(&self) -> Option<i32> {
        std::fs::read_to_string(&self.0).ok()?.trim().parse().ok()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(pid) = self.pid().and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

struct Fake {
    // First: fields drop in order, and the daemon's pid file lives in `env`.
    daemon: Daemon,
    env: TestEnv,
    work: PathBuf,
    log: PathBuf,
}

impl Fake {
    fn new() -> Fake {
        let env = TestEnv::new();
        let work = env.path("work");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(env.path("tmp")).unwrap();
        env.write("packet.md", "## Requirement 1\nThe answer is 42.\n");
        Fake {
            log: env.path("fake-pi.log"),
            daemon: Daemon(env.path("daemon.pid")),
            work,
            env,
        }
    }

    /// `pwk <args>` on the fake pi in `mode`, with its own TMPDIR.
    fn pwk(&self, mode: &str, args: &[&str]) -> Command {
        let mut c = pwk_on_fake_pi(&self.env, &self.log);
        c.args(args)
            .env("FAKE_PI_MODE", mode)
            .env("FAKE_PI_DAEMON_PID", &self.daemon.0)
            .env("TMPDIR", self.env.path("tmp"));
        c
    }

    fn request(&self, profile: &str) -> Value {
        json!({"action": "delegate", "taskId": "bounds-1", "cwd": self.work,
            "objective": "Summarise the README in three sentences", "scope": ["README.md"],
            "constraints": [], "acceptance": ["three sentences"], "profile": profile})
    }

    fn starts(&self) -> Vec<Value> {
        fake_pi_starts(&self.log)
    }

    fn temp_files(&self) -> Vec<String> {
        std::fs::read_dir(self.env.path("tmp"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("pwk-"))
            .collect()
    }
}

const REVIEW: [&str; 7] = [
    "review",
    "--roles",
    "smell",
    "--packet",
    "packet.md",
    "--format",
    "json",
];

#[test]
fn a_daemon_holding_pi_s_stdout_does_not_hang_delegate_and_the_report_is_kept() {
    let f = Fake::new();
    let child = spawn_with_stdin(
        &mut f.pwk("daemon", &["delegate"]),
        f.request("readonly").to_string().as_bytes(),
    );
    let out = wait_bounded(child, PATIENCE, "delegate");
    let v = json_of(&out, "delegate");
    assert_eq!(v["status"], "completed", "{v:#}");
    assert_eq!(v["summary"], "complete before the daemon", "{v:#}");
    assert_eq!(v["reportParsed"], true);
    // The daemon that held stdout had left pi's group: pwk (a child subreaper during
    // the run) stopped it, and says so.
    assert!(
        v["warnings"]
            .to_string()
            .contains("had left pi's process group"),
        "{v:#}"
    );
    let pid = f.daemon.pid().expect("the fake daemon did not start");
    assert!(
        !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))),
        "the daemon {pid} outlived pwk"
    );
}

#[test]
fn a_daemon_holding_pi_s_stdout_does_not_hang_review_on_either_transport() {
    for transport in ["rpc", "json"] {
        let f = Fake::new();
        let mut args = REVIEW.to_vec();
        args.extend(["--transport", transport]);
        let child = spawn_with_stdin(
            f.pwk("daemon", &args).env("FAKE_PI_TEXT", "No findings."),
            b"",
        );
        let out = wait_bounded(child, PATIENCE, transport);
        let v = json_of(&out, transport);
        assert_eq!(v["results"][0]["status"], "completed", "{transport}: {v:#}");
        assert_eq!(v["results"][0]["report"], "No findings.", "{transport}");
        assert_eq!(v["coverage"]["complete"], true, "{transport}: {v:#}");
        assert!(f.daemon.pid().is_some(), "{transport}: no daemon");
    }
}

#[test]
fn run_request_with_a_daemon_holding_stdout_returns_and_sigterm_ends_it() {
    for transport in ["rpc", "json"] {
        let f = Fake::new();
        let req = json!({"operation": "feature-review", "roles": ["pwk-smell-reviewer"],
            "cwd": f.env.root(), "prompt": "Review the packet.",
            "constraints": {"readOnly": true, "freshContext": true, "parallel": false, "bounded": true}});
        let child = spawn_with_stdin(
            f.pwk("daemon", &["run-request", "--transport", transport])
                .env("FAKE_PI_TEXT", "No findings."),
            req.to_string().as_bytes(),
        );
        // The daemon exists once pi's answer is out; pwk is then waiting on stdout.
        wait_for("the fake daemon", || f.daemon.pid().is_some());
        signal(child.id(), rustix::process::Signal::TERM);
        let out = wait_bounded(child, PATIENCE, transport);
        let v = json_of(&out, transport);
        assert_eq!(v["results"][0]["status"], "completed", "{transport}: {v:#}");
        assert_eq!(v["results"][0]["report"], "No findings.", "{transport}");
        assert_eq!(out.code, 0, "{transport}: {}", out.stderr);
    }
}

#[test]
fn a_fifo_as_session_file_or_request_file_is_refused_without_blocking() {
    let f = Fake::new();
    let fifo = f.env.path("session.jsonl");
    mkfifo(&fifo);
    let mut req = f.request("readonly");
    req["action"] = json!("continue");
    req["sessionFile"] = json!(fifo);
    for dry in [true, false] {
        let mut cmd = f.pwk("ok", &["delegate"]);
        if dry {
            cmd.arg("--dry-run");
        }
        let child = spawn_with_stdin(&mut cmd, req.to_string().as_bytes());
        let out = wait_bounded(child, PATIENCE, "continue with a FIFO");
        let v = json_of(&out, "continue with a FIFO");
        assert_eq!(v["status"], "blocked", "{v:#}");
        assert!(
            v["validationErrors"]
                .to_string()
                .contains("is not a regular file"),
            "{v:#}"
        );
    }
    assert!(f.starts().is_empty(), "pi must not start");
    // The request itself from a FIFO: refused, exit 2, no wait for a writer.
    let child = spawn_with_stdin(f.pwk("ok", &["delegate", "--request"]).arg(&fifo), b"");
    let out = wait_bounded(child, PATIENCE, "--request FIFO");
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
}

/// `pwk delegate` with no HOME and no agent dir: the write lock's directory.
fn homeless(f: &Fake, mode: &str) -> Command {
    let mut c = f.pwk(mode, &["delegate"]);
    c.env_remove("HOME")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("XDG_RUNTIME_DIR");
    c
}

fn write_request(f: &Fake) -> Value {
    let mut req = f.request("implementation");
    req["writeMode"] = json!("isolated");
    req["allowedWriteScope"] = json!(["src"]);
    req
}

#[test]
fn without_home_write_locks_live_in_a_private_per_user_dir_and_symlinks_are_refused() {
    use std::os::unix::fs::MetadataExt;
    let uid = rustix::process::geteuid().as_raw();
    let f = Fake::new();
    let state = f.env.path(&format!("tmp/pwk-{uid}"));
    // A symlink planted where the state dir goes: refused, nothing written through it.
    let elsewhere = f.env.path("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &state).unwrap();
    let child = spawn_with_stdin(
        &mut homeless(&f, "ok"),
        write_request(&f).to_string().as_bytes(),
    );
    let v = json_of(
        &wait_bounded(child, PATIENCE, "symlinked state"),
        "symlinked state",
    );
    assert_eq!(v["status"], "failed", "{v:#}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot be used safely"),
        "{v:#}"
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(f.starts().is_empty(), "pi must not start without its lock");
    // Without the symlink: created 0700, owned by this user, the lock inside.
    std::fs::remove_file(&state).unwrap();
    let child = spawn_with_stdin(
        &mut homeless(&f, "ok"),
        write_request(&f).to_string().as_bytes(),
    );
    let v = json_of(
        &wait_bounded(child, PATIENCE, "private state"),
        "private state",
    );
    assert_eq!(v["status"], "completed", "{v:#}");
    let md = std::fs::symlink_metadata(&state).unwrap();
    assert!(md.is_dir());
    assert_eq!(md.mode() & 0o777, 0o700);
    assert_eq!(md.uid(), uid);
    assert_eq!(std::fs::read_dir(state.join("locks")).unwrap().count(), 1);
}

fn pgid_of_first_start(f: &Fake) -> i32 {
    wait_for("pi to start", || !f.starts().is_empty());
    f.starts()[0]["pgid"].as_i64().unwrap() as i32
}

#[test]
fn sighup_and_sigquit_stop_pi_s_group_before_the_write_lock_is_released() {
    use rustix::process::Signal;
    for (sig, name) in [(Signal::HUP, "SIGHUP"), (Signal::QUIT, "SIGQUIT")] {
        let f = Fake::new();
        // tool-child: a tool child that ignores SIGTERM, so stopping takes the 3 s grace.
        let child = spawn_with_stdin(
            &mut f.pwk("tool-child", &["delegate"]),
            write_request(&f).to_string().as_bytes(),
        );
        let pgid = pgid_of_first_start(&f);
        let locks = f.env.path("agent/pwk/locks");
        wait_for("the lock file", || {
            std::fs::read_dir(&locks).is_ok_and(|mut d| d.next().is_some())
        });
        let lock = std::fs::read_dir(&locks)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let lock = std::fs::File::open(lock).unwrap();
        signal(child.id(), sig);
        // The moment the lock can be taken, pi's whole group must already be gone.
        wait_for("the write lock", || {
            rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_ok()
        });
        assert!(!group_alive(pgid), "{sig:?}: pi's group outlived the lock");
        let out = wait_bounded(child, PATIENCE, "delegate");
        let v = json_of(&out, "delegate");
        assert_eq!(v["status"], "failed", "{sig:?}: {v:#}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("pwk received {name}")),
            "{v:#}"
        );
    }
}

#[test]
fn sighup_mid_review_stops_pi_s_group_and_removes_the_temp_files() {
    use rustix::process::Signal;
    for (transport, sig) in [("rpc", Signal::HUP), ("json", Signal::QUIT)] {
        let f = Fake::new();
        let mut args = REVIEW.to_vec();
        args.extend(["--transport", transport]);
        let child = spawn_with_stdin(&mut f.pwk("tool-child", &args), b"");
        let pgid = pgid_of_first_start(&f);
        assert!(!f.temp_files().is_empty(), "no system-prompt temp file");
        signal(child.id(), sig);
        let out = wait_bounded(child, PATIENCE, transport);
        assert!(!group_alive(pgid), "{transport}: pi's group outlived pwk");
        assert_eq!(f.temp_files(), Vec::<String>::new(), "{transport}");
        let v = json_of(&out, transport);
        assert_eq!(v["results"][0]["status"], "failed", "{transport}: {v:#}");
        assert_eq!(out.code, 1);
    }
}

#[test]
fn a_missing_api_key_is_auth_error_on_both_transports_and_in_delegate() {
    for (name, pi) in pis() {
        let f = Fake::new();
        // pi's default model is a provider this machine has no key for (offline: no call).
        f.env.write(
            "agent/settings.json",
            r#"{"defaultProvider":"anthropic","defaultModel":"claude-sonnet-4-5"}"#,
        );
        let real = |c: &mut Command| {
            c.env("PWK_PI_BIN", &pi)
                .env("PI_OFFLINE", "1")
                .env("NODE_COMPILE_CACHE", f.env.path("node-cache"))
                .env_remove("ANTHROPIC_API_KEY")
                .env_remove("ANTHROPIC_OAUTH_TOKEN");
        };
        for transport in ["rpc", "json"] {
            let mut args = REVIEW.to_vec();
            args.extend(["--transport", transport]);
            let mut cmd = f.pwk("ok", &args);
            real(&mut cmd);
            let out = wait_bounded(spawn_with_stdin(&mut cmd, b""), PATIENCE, transport);
            let v = json_of(&out, transport);
            let r = &v["results"][0];
            assert_eq!(r["status"], "failed", "{name} {transport}: {v:#}");
            assert!(
                r["error"]
                    .as_str()
                    .unwrap()
                    .starts_with("AUTH_ERROR: No API key found"),
                "{name} {transport}: {r}"
            );
            assert!(
                r["runId"].as_str().is_some_and(|s| !s.is_empty()),
                "{name} {transport}: {r}"
            );
        }
        let mut cmd = f.pwk("ok", &["delegate"]);
        real(&mut cmd);
        let out = wait_bounded(
            spawn_with_stdin(&mut cmd, f.request("readonly").to_string().as_bytes()),
            PATIENCE,
            "delegate",
        );
        let v = json_of(&out, "delegate");
        assert_eq!(v["error"]["code"], "AUTH_ERROR", "{name}: {v:#}");
    }
}

#[test]
fn review_without_pi_says_so_once_and_claims_nothing_it_did_not_do() {
    let f = Fake::new();
    let mut cmd = f.env.pwk();
    cmd.args(["review", "--packet", "packet.md"])
        .env("PATH", f.env.path("empty-path"));
    let out = wait_bounded(spawn_with_stdin(&mut cmd, b""), PATIENCE, "review");
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout.matches("PI_NOT_FOUND").count(),
        1,
        "{}",
        out.stdout
    );
    for never in ["remain usable", "ran on pi's default model"] {
        assert!(!out.stdout.contains(never), "{never:?} in:\n{}", out.stdout);
    }
    assert!(out.stdout.contains("0/4 roles reported"), "{}", out.stdout);
}

#[test]
fn a_final_message_end_over_the_line_limit_is_said_in_the_result() {
    let f = Fake::new();
    let child = spawn_with_stdin(
        &mut f.pwk("huge-end", &["delegate"]),
        f.request("readonly").to_string().as_bytes(),
    );
    let v = json_of(&wait_bounded(child, PATIENCE, "delegate"), "delegate");
    assert_eq!(v["status"], "failed", "{v:#}");
    assert_eq!(v["error"]["code"], "PI_FAILED");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("over the 8 MiB line limit"),
        "{v:#}"
    );
    assert!(
        v["warnings"]
            .to_string()
            .contains("byte `message_end` event from pi: it is over the 8 MiB line limit"),
        "{v:#}"
    );
    // The earlier, shorter answer is not passed off as the final one.
    assert_eq!(v["reportParsed"], false);
    // Provider roles carry the same note.
    let mut args = REVIEW.to_vec();
    args.extend(["--transport", "json"]);
    let child = spawn_with_stdin(&mut f.pwk("huge-end", &args), b"");
    let v = json_of(&wait_bounded(child, PATIENCE, "review"), "review");
    let r = &v["results"][0];
    assert_eq!(r["status"], "failed", "{v:#}");
    assert!(
        r["notes"].to_string().contains("over the 8 MiB line limit"),
        "{r}"
    );
}
