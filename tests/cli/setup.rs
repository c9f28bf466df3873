//! `pwk setup` under attack: one test per case of the installer threat list
//! (reference linters-installers-crates.md §4.4). Races that need a pause inside
//! a run (A6–A9, A16, A19, A23's lock) are unit tests in `src/install/tests.rs`,
//! driven by test-only hooks; everything that can be staged on disk is here,
//! through the real binary.
//!
//! Every test keeps a victim file in a directory *outside* the project and checks
//! that its bytes and mtime are unchanged and that nothing new appeared there;
//! every pwk run has its own watchdog, so a hang fails the test instead of
//! stalling the suite.

use std::io::Read;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::process::mkfifo;
use crate::support::{Output, TestEnv};

pub const ROLES: [&str; 5] = [
    "pwk-recon-scout",
    "pwk-spec-reviewer",
    "pwk-tracing-reviewer",
    "pwk-smell-reviewer",
    "pwk-hazard-reviewer",
];

/// How long any single pwk run may take before the test calls it a hang.
pub const WATCHDOG: Duration = Duration::from_secs(20);

/// Run a command with stdin closed, collect its output, and kill it (failing
/// the test) if it runs longer than `limit`.
pub fn run_watched(cmd: &mut Command, limit: Duration) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn pwk");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pwk did not finish within {limit:?}: it hung");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Output {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&t_out.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&t_err.join().unwrap()).into_owned(),
    }
}

/// A project (the TestEnv root) plus a sibling directory holding a victim file.
pub struct Scene {
    pub env: TestEnv,
    _outside_tmp: tempfile::TempDir,
    pub outside: PathBuf,
    pub victim: PathBuf,
    victim_bytes: Vec<u8>,
    victim_mtime: (i64, i64),
}

impl Scene {
    pub fn new() -> Scene {
        let env = TestEnv::new();
        let outside_tmp = tempfile::Builder::new()
            .prefix("pwk-outside-")
            .tempdir()
            .unwrap();
        let outside = outside_tmp.path().to_path_buf();
        let victim = outside.join("victim.md");
        let victim_bytes = b"---\nname: victim\n---\nThe victim must never change.\n".to_vec();
        std::fs::write(&victim, &victim_bytes).unwrap();
        let m = std::fs::metadata(&victim).unwrap();
        Scene {
            env,
            _outside_tmp: outside_tmp,
            outside,
            victim,
            victim_bytes,
            victim_mtime: (m.mtime(), m.mtime_nsec()),
        }
    }

    pub fn agents(&self) -> PathBuf {
        self.env.path(".agents/agents")
    }

    pub fn role(&self, name: &str) -> PathBuf {
        self.agents().join(format!("{name}.md"))
    }

    pub fn setup(&self, args: &[&str]) -> Output {
        run_watched(self.env.pwk().arg("setup").args(args), WATCHDOG)
    }

    /// The victim is byte-for-byte and mtime unchanged, and nothing else appeared
    /// outside the project.
    pub fn assert_victim_untouched(&self) {
        assert_eq!(
            std::fs::read(&self.victim).unwrap(),
            self.victim_bytes,
            "victim content changed"
        );
        let m = std::fs::metadata(&self.victim).unwrap();
        assert_eq!(
            (m.mtime(), m.mtime_nsec()),
            self.victim_mtime,
            "victim mtime changed"
        );
        let mut names: Vec<String> = std::fs::read_dir(&self.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert!(
            names
                .iter()
                .all(|n| n == "victim.md" || n.starts_with("keep-")),
            "something appeared outside the project: {names:?}"
        );
    }

    pub fn mkdir_agents(&self) {
        std::fs::create_dir_all(self.agents()).unwrap();
    }

    /// No pwk temp file is left in the agents directory.
    pub fn assert_no_temps(&self) {
        if let Ok(rd) = std::fs::read_dir(self.agents()) {
            let temps: Vec<_> = rd
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".pwk-tmp-"))
                .collect();
            assert!(temps.is_empty(), "temporary files left: {temps:?}");
        }
    }

    /// The other roles were installed as setup renders them with no host known
    /// (the portable profile: the canonical roles without `max_turns`).
    pub fn assert_installed_except(&self, except: &[&str]) {
        let (rendered, _) = pwk::install::bundled::rendered_for(pwk::host::HostId::Pwk.newest());
        for name in ROLES.iter().filter(|n| !except.contains(n)) {
            let want = rendered.iter().find(|r| r.name == *name).unwrap().content;
            assert_eq!(
                std::fs::read_to_string(self.role(name)).unwrap(),
                want,
                "{name}"
            );
        }
    }
}

fn outcome_line<'a>(out: &'a Output, name: &str) -> &'a str {
    let file = format!(" {name}.md");
    out.stdout
        .lines()
        .find(|l| l.contains(&file))
        .unwrap_or_else(|| panic!("no line for {name}:\n{}", out.stdout))
}

/// A refused target: exit 1, the rest installed, the install called partial.
fn assert_refused(scene: &Scene, out: &Output, name: &str, reason: &str) {
    assert_eq!(
        out.code, 1,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    let line = outcome_line(out, name);
    assert!(line.trim_start().starts_with("refused"), "{line}");
    assert!(line.contains(reason), "{line:?} should mention {reason:?}");
    assert!(out.stdout.contains("partial"), "{}", out.stdout);
    scene.assert_installed_except(&[name]);
    scene.assert_no_temps();
    scene.assert_victim_untouched();
}

#[test]
fn a01_target_symlink_to_outside_file_is_refused() {
    let s = Scene::new();
    s.mkdir_agents();
    symlink(&s.victim, s.role("pwk-spec-reviewer")).unwrap();
    let out = s.setup(&[]);
    assert_refused(&s, &out, "pwk-spec-reviewer", "symlink");
    assert!(
        std::fs::symlink_metadata(s.role("pwk-spec-reviewer"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // --force does not change that.
    let out = s.setup(&["--force"]);
    assert_refused(&s, &out, "pwk-spec-reviewer", "symlink");
}

#[test]
fn a02_dangling_symlink_does_not_create_its_target() {
    let s = Scene::new();
    s.mkdir_agents();
    let new = s.outside.join("new.md");
    symlink(&new, s.role("pwk-hazard-reviewer")).unwrap();
    let out = s.setup(&["--force"]);
    assert_refused(&s, &out, "pwk-hazard-reviewer", "symlink");
    assert!(!new.exists(), "the dangling link's target was created");
}

#[test]
fn a03_symlink_to_a_file_inside_the_project_is_refused() {
    let s = Scene::new();
    s.mkdir_agents();
    let inside = s.env.write("notes.md", "mine\n");
    symlink(&inside, s.role("pwk-smell-reviewer")).unwrap();
    let out = s.setup(&[]);
    assert_refused(&s, &out, "pwk-smell-reviewer", "symlink");
    assert_eq!(std::fs::read_to_string(inside).unwrap(), "mine\n");
}

/// The target directory cannot be used safely: exit 2, nothing written anywhere.
fn assert_unusable_dir(s: &Scene, out: &Output, says: &str) {
    assert_eq!(
        out.code, 2,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    assert!(
        out.stderr.contains(says),
        "stderr should mention {says:?}:\n{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    s.assert_victim_untouched();
}

#[test]
fn a04_symlinked_dot_agents_is_refused_before_any_write() {
    let s = Scene::new();
    symlink(&s.outside, s.env.path(".agents")).unwrap();
    let out = s.setup(&[]);
    assert_unusable_dir(&s, &out, "symbolic link");
    assert!(!s.outside.join("agents").exists());
}

#[test]
fn a05_symlinked_agents_dir_is_refused_before_any_write() {
    let s = Scene::new();
    std::fs::create_dir_all(s.env.path(".agents")).unwrap();
    symlink(&s.outside, s.agents()).unwrap();
    let out = s.setup(&["--force"]);
    assert_unusable_dir(&s, &out, "symbolic link");
    // A dry run says the same and exits the same.
    let out = s.setup(&["--dry-run"]);
    assert_unusable_dir(&s, &out, "symbolic link");
}

#[test]
fn a10_hard_linked_target_is_refused_and_the_other_name_unchanged() {
    let s = Scene::new();
    s.mkdir_agents();
    std::fs::hard_link(&s.victim, s.role("pwk-tracing-reviewer")).unwrap();
    for args in [&[][..], &["--force"][..]] {
        let out = s.setup(args);
        assert_refused(&s, &out, "pwk-tracing-reviewer", "hard link");
    }
    assert_eq!(
        std::fs::metadata(&s.victim).unwrap().nlink(),
        2,
        "the link was left as it was"
    );
}

#[test]
fn a11_fifo_target_is_refused_without_blocking() {
    let s = Scene::new();
    s.mkdir_agents();
    mkfifo(&s.role("pwk-recon-scout"));
    let started = Instant::now();
    let out = s.setup(&[]);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert_refused(&s, &out, "pwk-recon-scout", "not a regular file");
}

#[test]
fn a12_socket_target_is_refused() {
    let s = Scene::new();
    s.mkdir_agents();
    let _listener = std::os::unix::net::UnixListener::bind(s.role("pwk-spec-reviewer")).unwrap();
    let out = s.setup(&[]);
    assert_refused(&s, &out, "pwk-spec-reviewer", "not a regular file");
}

#[test]
fn a13_directory_at_the_target_name_is_refused() {
    let s = Scene::new();
    std::fs::create_dir_all(s.role("pwk-smell-reviewer")).unwrap();
    std::fs::write(s.role("pwk-smell-reviewer").join("inside.txt"), "keep\n").unwrap();
    let out = s.setup(&["--force"]);
    assert_refused(&s, &out, "pwk-smell-reviewer", "directory");
    assert_eq!(
        std::fs::read_to_string(s.role("pwk-smell-reviewer").join("inside.txt")).unwrap(),
        "keep\n"
    );
}

#[test]
fn a14_endless_fifo_fed_forever_is_refused_without_reading() {
    let s = Scene::new();
    s.mkdir_agents();
    let fifo = s.role("pwk-hazard-reviewer");
    mkfifo(&fifo);
    // Keep a reader end open ourselves so the feeder's open does not block, then
    // feed the FIFO for ever.
    let _keep_open = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    let mut feeder = Command::new("sh")
        .arg("-c")
        .arg("exec yes endless > \"$0\"")
        .arg(&fifo)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = s.setup(&[]);
    let _ = feeder.kill();
    let _ = feeder.wait();
    assert_refused(&s, &out, "pwk-hazard-reviewer", "not a regular file");
}

#[test]
fn a15_huge_sparse_file_is_refused_from_its_size() {
    let s = Scene::new();
    s.mkdir_agents();
    let f = std::fs::File::create(s.role("pwk-tracing-reviewer")).unwrap();
    f.set_len(4 << 30).unwrap(); // 4 GiB, sparse
    drop(f);
    let started = Instant::now();
    let out = s.setup(&["--force", "--diff"]);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_refused(&s, &out, "pwk-tracing-reviewer", "too large");
    assert_eq!(
        std::fs::metadata(s.role("pwk-tracing-reviewer"))
            .unwrap()
            .len(),
        4 << 30
    );
}

#[test]
fn a17_dot_agents_as_a_regular_file_is_refused() {
    let s = Scene::new();
    s.env.write(".agents", "not a directory\n");
    let out = s.setup(&[]);
    assert_unusable_dir(&s, &out, "not a directory");
    assert_eq!(s.env.read(".agents"), "not a directory\n");
}

/// A18. We run as root in CI, where `chmod 0555` does not stop writes; so when
/// running as root, pwk runs as the unprivileged user 65534 against a directory
/// it cannot write. That is a real permission failure, not a simulated one.
#[test]
fn a18_unwritable_directory_is_a_clear_error() {
    let s = Scene::new();
    s.mkdir_agents();
    let is_root = rustix::process::geteuid().is_root();
    let mut cmd = s.env.pwk();
    cmd.arg("setup");
    if is_root {
        use std::os::unix::process::CommandExt;
        // The unprivileged user must be able to reach the project, not write it.
        for dir in [s.env.root(), &s.env.path(".agents"), &s.agents()] {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        cmd.uid(65534).gid(65534);
    } else {
        std::fs::set_permissions(s.agents(), std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let out = run_watched(&mut cmd, WATCHDOG);
    std::fs::set_permissions(s.agents(), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        out.code, 2,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    assert!(
        out.stdout.contains("failed") || out.stderr.contains("ermission"),
        "{}{}",
        out.stdout,
        out.stderr
    );
    assert!(
        out.stdout.contains("Permission denied") || out.stderr.contains("Permission denied"),
        "the error names the cause:\n{}{}",
        out.stdout,
        out.stderr
    );
    assert_eq!(
        std::fs::read_dir(s.agents()).unwrap().count(),
        0,
        "nothing (not even a temp file) was left"
    );
    s.assert_victim_untouched();
}

/// A18, per file: one role file pwk may not read fails alone; the others are
/// still installed. As root, pwk runs as user 65534 (see above).
#[test]
fn a18_unreadable_role_file_fails_alone() {
    let s = Scene::new();
    s.mkdir_agents();
    let locked = s.role("pwk-spec-reviewer");
    std::fs::write(&locked, "private\n").unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut cmd = s.env.pwk();
    cmd.arg("setup");
    if rustix::process::geteuid().is_root() {
        use std::os::unix::process::CommandExt;
        for dir in [s.env.root(), &s.env.path(".agents")] {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::set_permissions(s.agents(), std::fs::Permissions::from_mode(0o777)).unwrap();
        cmd.uid(65534).gid(65534);
    }
    let out = run_watched(&mut cmd, WATCHDOG);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(
        out.code, 2,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    let line = outcome_line(&out, "pwk-spec-reviewer");
    assert!(
        line.trim_start().starts_with("failed") && line.contains("Permission denied"),
        "{line}"
    );
    assert_eq!(std::fs::read_to_string(&locked).unwrap(), "private\n");
    s.assert_installed_except(&["pwk-spec-reviewer"]);
    s.assert_no_temps();
    s.assert_victim_untouched();
}

/// A19 through the binary: a temp file a killed run left behind is removed by
/// the next run (the fault itself is injected in the unit tests).
#[test]
fn a19_leftover_temp_file_is_removed_by_the_next_run() {
    let s = Scene::new();
    assert_eq!(s.setup(&[]).code, 0);
    let stray = s
        .agents()
        .join(".pwk-smell-reviewer.md.pwk-tmp-00112233445566ff");
    std::fs::write(&stray, "half a ro").unwrap();
    let out = s.setup(&[]);
    assert_eq!(out.code, 0);
    assert!(!stray.exists());
    assert!(
        out.stdout.contains("Removed 1 leftover temporary file"),
        "{}",
        out.stdout
    );
    s.assert_installed_except(&[]);
    s.assert_victim_untouched();
}

/// An interrupted `setup --force` leaves the temp of a numbered backup
/// (`.<role>.md.bak.N.pwk-tmp-…`): the next run removes it, and only it.
#[test]
fn a19_leftover_numbered_backup_temp_is_removed_by_the_next_run() {
    let s = Scene::new();
    assert_eq!(s.setup(&[]).code, 0);
    let stray = s
        .agents()
        .join(".pwk-smell-reviewer.md.bak.3.pwk-tmp-00112233445566ff");
    std::fs::write(&stray, "half a backup").unwrap();
    // Look-alikes that are not pwk's temps stay: a real backup, a wrong marker.
    let backup = s.agents().join("pwk-smell-reviewer.md.bak.3");
    std::fs::write(&backup, "my old copy").unwrap();
    let other = s
        .agents()
        .join(".pwk-smell-reviewer.md.bak.x.pwk-tmp-00112233445566ff");
    std::fs::write(&other, "not ours").unwrap();
    let out = s.setup(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!stray.exists(), "the backup temp was left behind");
    assert!(
        out.stdout.contains("Removed 1 leftover temporary file"),
        "{}",
        out.stdout
    );
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), "my old copy");
    assert!(other.exists());
}

#[test]
fn a21_locally_modified_file_is_a_conflict_without_force() {
    let s = Scene::new();
    assert_eq!(s.setup(&[]).code, 0);
    let edited = s
        .env
        .read(".agents/agents/pwk-spec-reviewer.md")
        .replace("Spec alignment", "Spec alignment (mine)");
    s.env.write(".agents/agents/pwk-spec-reviewer.md", &edited);
    let out = s.setup(&["--diff"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        outcome_line(&out, "pwk-spec-reviewer")
            .trim_start()
            .starts_with("conflict")
    );
    assert!(
        out.stdout.contains("-### Spec alignment (mine)"),
        "diff shown:\n{}",
        out.stdout
    );
    assert!(out.stdout.contains("+### Spec alignment"), "{}", out.stdout);
    assert_eq!(
        s.env.read(".agents/agents/pwk-spec-reviewer.md"),
        edited,
        "the edit is kept"
    );
    s.assert_victim_untouched();
}

#[test]
fn a22_installing_twice_touches_nothing() {
    let s = Scene::new();
    assert_eq!(s.setup(&[]).code, 0);
    let snapshot = |p: &Path| {
        let m = std::fs::metadata(p).unwrap();
        (
            m.ino(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        )
    };
    let mut files: Vec<PathBuf> = ROLES.iter().map(|n| s.role(n)).collect();
    files.push(s.agents().join(".pwk-manifest.json"));
    files.push(s.agents());
    let before: Vec<_> = files.iter().map(|p| snapshot(p)).collect();
    let out = s.setup(&[]);
    assert_eq!(out.code, 0);
    for name in ROLES {
        assert!(
            outcome_line(&out, name)
                .trim_start()
                .starts_with("unchanged")
        );
    }
    assert!(
        !out.stdout.contains("/reload"),
        "a no-op run needs no reload:\n{}",
        out.stdout
    );
    let after: Vec<_> = files.iter().map(|p| snapshot(p)).collect();
    assert_eq!(
        before, after,
        "inode, mtime or ctime changed on a no-op run"
    );
    s.assert_victim_untouched();
}

#[test]
fn a23_two_installs_at_once_end_consistent() {
    let s = Scene::new();
    let spawn = || {
        let mut cmd = s.env.pwk();
        cmd.args(["setup", "--format", "json"]);
        std::thread::spawn(move || run_watched(&mut cmd, WATCHDOG))
    };
    let runs: Vec<_> = (0..3).map(|_| spawn()).collect();
    let outs: Vec<Output> = runs.into_iter().map(|t| t.join().unwrap()).collect();
    let mut created = std::collections::HashMap::new();
    for out in &outs {
        assert_eq!(
            out.code, 0,
            "stdout:\n{}\nstderr:\n{}",
            out.stdout, out.stderr
        );
        let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        for r in json["roles"].as_array().unwrap() {
            let outcome = r["outcome"].as_str().unwrap();
            assert!(outcome == "created" || outcome == "unchanged", "{r}");
            if outcome == "created" {
                *created
                    .entry(r["name"].as_str().unwrap().to_string())
                    .or_insert(0) += 1;
            }
        }
    }
    for name in ROLES {
        assert_eq!(
            created.get(name),
            Some(&1),
            "{name} created exactly once: {created:?}"
        );
    }
    s.assert_installed_except(&[]);
    s.assert_no_temps();
    let manifest: serde_json::Value =
        serde_json::from_str(&s.env.read(".agents/agents/.pwk-manifest.json")).unwrap();
    assert_eq!(manifest["roles"].as_object().unwrap().len(), 5);
    s.assert_victim_untouched();
}

#[test]
fn a24_symlink_loops_are_refused_without_hanging() {
    let s = Scene::new();
    s.mkdir_agents();
    symlink("loop-b", s.agents().join("pwk-recon-scout.md")).unwrap();
    symlink("pwk-recon-scout.md", s.agents().join("loop-b")).unwrap();
    let out = s.setup(&[]);
    assert_refused(&s, &out, "pwk-recon-scout", "symlink");

    let s = Scene::new();
    symlink(".agents-b", s.env.path(".agents")).unwrap();
    symlink(".agents", s.env.path(".agents-b")).unwrap();
    let out = s.setup(&[]);
    assert_unusable_dir(&s, &out, "symbolic link");
}

#[test]
fn a25_magic_links_are_refused() {
    let s = Scene::new();
    s.mkdir_agents();
    symlink("/proc/self/fd/1", s.role("pwk-smell-reviewer")).unwrap();
    let out = s.setup(&[]);
    assert_refused(&s, &out, "pwk-smell-reviewer", "symlink");

    let s = Scene::new();
    symlink("/proc/self/cwd", s.env.path(".agents")).unwrap();
    let out = s.setup(&[]);
    assert_unusable_dir(&s, &out, "symbolic link");
}

/// A26. Mode policy: role files and the manifest are 0644 and new directories
/// 0755 whatever the umask (hosts and other users' tools read them; they hold
/// nothing secret). A file pwk updates keeps the mode it had.
#[test]
fn a26_modes_follow_the_policy_under_odd_umasks() {
    for umask in ["077", "000"] {
        let s = Scene::new();
        let out = run_watched(
            Command::new("sh")
                .arg("-c")
                .arg(format!("umask {umask} && exec \"$0\" setup"))
                .arg(env!("CARGO_BIN_EXE_pwk"))
                .current_dir(s.env.root())
                .env("HOME", &s.env.home),
            WATCHDOG,
        );
        assert_eq!(out.code, 0, "umask {umask}: {}", out.stderr);
        for name in ROLES {
            let mode = std::fs::metadata(s.role(name)).unwrap().mode() & 0o7777;
            assert_eq!(mode, 0o644, "umask {umask}: {name} has mode {mode:o}");
        }
        let mode = std::fs::metadata(s.agents().join(".pwk-manifest.json"))
            .unwrap()
            .mode()
            & 0o7777;
        assert_eq!(mode, 0o644, "umask {umask}: manifest");
        for dir in [s.env.path(".agents"), s.agents()] {
            let mode = std::fs::metadata(&dir).unwrap().mode() & 0o7777;
            assert_eq!(
                mode,
                0o755,
                "umask {umask}: {} has mode {mode:o}",
                dir.display()
            );
        }
        s.assert_victim_untouched();
    }
}
