//! What pwk learns from a pi binary (`pi --help`: does it have `--no-mcp`) is learnt
//! once per binary, on disk in pwk's cache directory: a warm cache starts exactly one
//! pi per task; a replaced binary is asked again; a corrupt, truncated, huge,
//! symlinked, FIFO or hard-linked entry is ignored, rewritten, and nothing outside the
//! cache directory is written; an unwritable cache costs one probe per process and
//! no error; concurrent first runs leave one valid entry. Against the real pi: 1.6
//! (lists `--no-mcp`) gets it on a read-only run, 0.73.1 (rejects it) does not.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::delegate_e2e::{FAST_FAIL, Gen, World, both_generations, pi_bin, report_text};
use crate::support::fake_llm::Reply;
use crate::support::process::{executable, fake_pi};
use crate::support::{Output, TestEnv, run_with_stdin};

/// A pi launcher that logs every start (its arguments, one line) to `log`, then runs
/// `target`. `extra` is put in the script (a replaced binary differs in it).
fn logging_pi(dir: &Path, log: &Path, target: &str, extra: &str) -> PathBuf {
    let bin = dir.join("pi");
    let tmp = dir.join(".pi.new");
    executable(
        &tmp,
        &format!(
            "#!/bin/sh\n{extra}\nprintf '%s\\n' \"$*\" >> '{}'\nexec {target} \"$@\"\n",
            log.display()
        ),
    );
    // Replaced as a package manager does: a new file renamed over the old name.
    std::fs::rename(&tmp, &bin).unwrap();
    bin
}

fn starts(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn probes(log: &Path) -> usize {
    starts(log).iter().filter(|l| *l == "--help").count()
}

/// The fake pi world: a read-only request, `--dry-run`, pi's `--help` listing
/// `--no-mcp`.
struct Fake {
    env: TestEnv,
    log: PathBuf,
    pi: PathBuf,
    work: PathBuf,
}

impl Fake {
    fn new() -> Fake {
        let env = TestEnv::new();
        let log = env.path("starts.log");
        let work = env.path("work");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(env.path("bin")).unwrap();
        let pi = logging_pi(
            &env.path("bin"),
            &log,
            &format!("python3 '{}'", fake_pi().display()),
            "export FAKE_PI_HELP_NO_MCP=1",
        );
        Fake { env, log, pi, work }
    }

    fn cache(&self) -> PathBuf {
        self.env.home.join(".cache/pwk")
    }

    fn cmd(&self) -> Command {
        let mut c = self.env.pwk();
        c.args(["delegate", "--dry-run"])
            .env("PWK_PI_BIN", &self.pi)
            .env("PI_CODING_AGENT_DIR", self.env.path("agent"));
        c
    }

    fn request(&self) -> Vec<u8> {
        json!({"action": "delegate", "taskId": "c-1", "cwd": self.work,
            "objective": "Summarise the README", "scope": ["README.md"], "constraints": [],
            "acceptance": ["a summary"], "profile": "readonly"})
        .to_string()
        .into_bytes()
    }

    /// One `pwk delegate --dry-run`: the launch's arguments.
    fn plan(&self, cmd: &mut Command) -> Vec<String> {
        let out = run_with_stdin(cmd, &self.request());
        plan_of(&out)
    }
}

fn plan_of(out: &Output) -> Vec<String> {
    let v: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
    assert_eq!(out.code, 0, "{v:#}\n{}", out.stderr);
    assert_eq!(v["status"], "planned", "{v:#}");
    assert!(
        !out.stderr.contains("cache"),
        "a cache problem is never reported: {}",
        out.stderr
    );
    v["launch"]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect()
}

fn has_no_mcp(args: &[String]) -> bool {
    args.iter().any(|a| a == "--no-mcp")
}

/// The cache's entries (every name in the directory).
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn a_warm_cache_asks_pi_nothing_and_a_replaced_binary_is_asked_again() {
    let f = Fake::new();
    assert!(has_no_mcp(&f.plan(&mut f.cmd())));
    assert_eq!(probes(&f.log), 1, "cold: one `pi --help`");
    for _ in 0..3 {
        assert!(has_no_mcp(&f.plan(&mut f.cmd())));
    }
    assert_eq!(
        probes(&f.log),
        1,
        "warm: learnt once per binary, not per process"
    );
    let names = entries(&f.cache());
    assert!(
        names.len() == 1 && names[0].starts_with("pi-help-") && names[0].ends_with(".json"),
        "{names:?}"
    );
    // The same path, new content (a pi without --no-mcp): asked again, entry rewritten.
    logging_pi(
        &f.env.path("bin"),
        &f.log,
        &format!("python3 '{}'", fake_pi().display()),
        "# an older pi: no --no-mcp",
    );
    assert!(
        !has_no_mcp(&f.plan(&mut f.cmd())),
        "the new binary's answer"
    );
    assert_eq!(probes(&f.log), 2);
    assert!(!has_no_mcp(&f.plan(&mut f.cmd())));
    assert_eq!(probes(&f.log), 2, "the rewritten entry is used");
    assert_eq!(entries(&f.cache()), names, "one entry per pi path");
}

/// The directory the cache must never write into, and a file in it.
fn outside(f: &Fake) -> (PathBuf, PathBuf) {
    let dir = f.env.path("outside");
    std::fs::create_dir_all(&dir).unwrap();
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious\n").unwrap();
    (dir, victim)
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    entries(dir)
        .into_iter()
        .map(|n| {
            let c = std::fs::read(dir.join(&n)).unwrap_or_default();
            (n, c)
        })
        .collect()
}

/// Every kind of bad entry: used as a miss (pi is asked, the answer is right), the
/// name is rewritten as a valid entry (the next run asks nothing), and nothing outside
/// the cache directory changes.
#[test]
fn bad_cache_entries_are_misses_and_are_rewritten_without_writing_outside() {
    type Plant = fn(&Path, &[u8], &Path);
    let variants: Vec<(&str, Plant)> = vec![
        ("corrupt", |e, _, _| {
            std::fs::write(e, b"\x00\xffnot json").unwrap()
        }),
        ("empty", |e, _, _| std::fs::write(e, b"").unwrap()),
        ("truncated", |e, good, _| {
            std::fs::write(e, &good[..good.len() / 2]).unwrap()
        }),
        ("huge", |e, good, _| {
            let mut big = good.to_vec();
            big.resize(4 << 20, b' ');
            std::fs::write(e, big).unwrap()
        }),
        ("foreign", |e, good, _| {
            // A valid entry of another binary (another inode) under this name.
            let s = String::from_utf8(good.to_vec()).unwrap();
            let s = s.replacen("\"ino\":", "\"ino\":1", 1);
            std::fs::write(e, s).unwrap()
        }),
        ("lying", |e, good, _| {
            // The right binary, but options pi does not list.
            let s = String::from_utf8(good.to_vec()).unwrap();
            let s = s.replace("\"--no-mcp\"", "\"--no-such-flag\"");
            std::fs::write(e, s).unwrap()
        }),
        ("symlink to a file outside", |e, _, victim| {
            std::os::unix::fs::symlink(victim, e).unwrap()
        }),
        ("symlink to a valid entry outside", |e, good, victim| {
            let decoy = victim.with_file_name("decoy.json");
            std::fs::write(&decoy, good).unwrap();
            std::os::unix::fs::symlink(&decoy, e).unwrap()
        }),
        ("hard link to a file outside", |e, _, victim| {
            std::fs::hard_link(victim, e).unwrap()
        }),
        ("fifo", |e, _, _| {
            rustix::fs::mkfifoat(rustix::fs::CWD, e, rustix::fs::Mode::from_raw_mode(0o644))
                .unwrap()
        }),
    ];
    for (what, plant) in variants {
        let f = Fake::new();
        let (out_dir, victim) = outside(&f);
        f.plan(&mut f.cmd());
        let names = entries(&f.cache());
        assert_eq!(names.len(), 1, "{what}: {names:?}");
        let entry = f.cache().join(&names[0]);
        let good = std::fs::read(&entry).unwrap();
        std::fs::remove_file(&entry).unwrap();
        plant(&entry, &good, &victim);
        let before = snapshot(&out_dir);
        let lying = what == "lying";
        assert!(
            has_no_mcp(&f.plan(&mut f.cmd())) || lying,
            "{what}: the answer is pi's"
        );
        if lying {
            // A well-formed entry for this very binary is trusted (that is what the
            // cache is); the confirmed-rejection retry corrects a wrong one at run
            // time (`a_rejected_cached_flag_is_asked_again`). Nothing else to check.
            continue;
        }
        assert_eq!(probes(&f.log), 2, "{what}: the bad entry was a miss");
        assert_eq!(
            snapshot(&out_dir),
            before,
            "{what}: written outside the cache"
        );
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "precious\n",
            "{what}"
        );
        let meta = std::fs::symlink_metadata(&entry).unwrap();
        assert!(meta.file_type().is_file(), "{what}: rewritten as a file");
        assert_eq!(
            std::fs::read(&entry).unwrap(),
            good,
            "{what}: rewritten whole"
        );
        assert!(has_no_mcp(&f.plan(&mut f.cmd())));
        assert_eq!(probes(&f.log), 2, "{what}: the rewritten entry is used");
        assert_eq!(entries(&f.cache()), names, "{what}: no temp file left");
    }
}

/// A cache directory pwk cannot use (a file in its place; pwk's directory a symlink
/// out of the cache base): every run still plans right, says nothing about the cache,
/// and writes nothing; a process asks pi once however many runs it makes.
#[test]
fn an_unusable_cache_dir_costs_one_probe_per_process_and_no_error() {
    for how in ["a file", "pwk is a symlink"] {
        let f = Fake::new();
        let (out_dir, _) = outside(&f);
        let mut cmd = f.cmd();
        match how {
            "a file" => {
                let file = f.env.write("not-a-dir", "x");
                cmd.env("PWK_CACHE_DIR", file);
            }
            _ => {
                std::fs::create_dir_all(f.env.home.join(".cache")).unwrap();
                std::os::unix::fs::symlink(&out_dir, f.cache()).unwrap();
            }
        }
        let before = snapshot(&out_dir);
        assert!(has_no_mcp(&f.plan(&mut cmd)), "{how}");
        assert!(has_no_mcp(&f.plan(&mut cmd)), "{how}");
        assert_eq!(probes(&f.log), 2, "{how}: one probe per process");
        assert_eq!(snapshot(&out_dir), before, "{how}: nothing written");
    }
    // One process, several runs: `pwk review` starts two roles (MCP configured, so
    // each read-only role wants --no-mcp): one `pi --help`.
    let f = Fake::new();
    std::fs::create_dir_all(f.env.path("agent")).unwrap();
    std::fs::write(f.env.path("agent/mcp.json"), r#"{"mcpServers":{}}"#).unwrap();
    f.env
        .write("packet.md", "## Requirement 1\nThe answer is 42.\n");
    let file = f.env.write("not-a-dir", "x");
    let out = run_with_stdin(
        f.env
            .pwk()
            .args([
                "review",
                "--roles",
                "smell,hazard",
                "--packet",
                "packet.md",
                "--format",
                "json",
                "--transport",
                "json",
            ])
            .env("PWK_PI_BIN", &f.pi)
            .env("PWK_CACHE_DIR", file)
            .env("FAKE_PI_TEXT", "No findings.")
            .env("PI_CODING_AGENT_DIR", f.env.path("agent")),
        b"",
    );
    let v: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
    // (The hazard role's contract wants its seven items answered: only that both
    // roles ran matters here.)
    assert_eq!(v["results"][0]["status"], "completed", "{v:#}");
    assert_eq!(v["results"][1]["report"], "No findings.", "{v:#}");
    let runs: Vec<String> = starts(&f.log)
        .into_iter()
        .filter(|l| l != "--help")
        .collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.iter().all(|r| r.contains("--no-mcp")), "{runs:?}");
    assert_eq!(probes(&f.log), 1, "one `pi --help` for the whole process");
}

/// Eight first runs at once (a review fan-out, CI jobs): one valid entry, no temp
/// file, and the next run asks nothing.
#[test]
fn eight_concurrent_first_runs_leave_one_valid_entry() {
    let f = Fake::new();
    let children: Vec<_> = (0..8)
        .map(|_| {
            use std::io::Write;
            use std::process::Stdio;
            let mut c = f
                .cmd()
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            c.stdin.take().unwrap().write_all(&f.request()).unwrap();
            c
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        let out = Output {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        };
        assert!(has_no_mcp(&plan_of(&out)));
    }
    let n = probes(&f.log);
    assert!((1..=8).contains(&n), "at most one probe per process: {n}");
    let names = entries(&f.cache());
    assert_eq!(names.len(), 1, "one entry, no temp file: {names:?}");
    assert!(has_no_mcp(&f.plan(&mut f.cmd())));
    assert_eq!(probes(&f.log), n, "the entry left is valid");
}

/// An entry that says pi lists `--no-mcp` when the pi behind the same launcher no
/// longer accepts it (replaced behind a wrapper script, whose own identity did not
/// change): pi's confirmed rejection before starting makes pwk forget the entry, ask
/// `pi --help` again and run once more, without the flag.
#[test]
fn a_rejected_cached_flag_is_asked_again() {
    let f = Fake::new();
    // The launcher reads the generation from a file: replacing that file changes pi
    // but not the launcher's identity.
    let gen_file = f.env.write("generation", "new\n");
    let rejecting = f.env.executable(
        "rejecting-pi",
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --no-mcp ] && {{ echo 'Error: Unknown option: --no-mcp' >&2; exit 1; }}; done\nexec python3 '{}' \"$@\"\n",
            fake_pi().display()
        ),
    );
    logging_pi(
        &f.env.path("bin"),
        &f.log,
        &format!(
            "$( [ \"$(cat '{}')\" = new ] && echo python3 '{}' || echo '{}' )",
            gen_file.display(),
            fake_pi().display(),
            rejecting.display()
        ),
        &format!(
            "export FAKE_PI_HELP_NO_MCP=$( [ \"$(cat '{}')\" = old ] && echo 0 || echo 1 )",
            gen_file.display()
        ),
    );
    let req = f.request();
    let run = |f: &Fake| {
        let out = run_with_stdin(
            f.env
                .pwk()
                .arg("delegate")
                .env("PWK_PI_BIN", &f.pi)
                .env("PI_CODING_AGENT_DIR", f.env.path("agent")),
            &req,
        );
        let v: Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
        (out, v)
    };
    let (_, v) = run(&f);
    assert_eq!(v["status"], "completed", "{v:#}");
    assert_eq!(probes(&f.log), 1);
    // pi is replaced behind the launcher by one that rejects --no-mcp.
    std::fs::write(&gen_file, "old\n").unwrap();
    let (out, v) = run(&f);
    assert_eq!(v["status"], "completed", "{v:#}\n{}", out.stderr);
    assert!(
        v["warnings"]
            .to_string()
            .contains("asked `pi --help` again"),
        "{v:#}"
    );
    assert_eq!(probes(&f.log), 2, "{:?}", starts(&f.log));
    let last = starts(&f.log).pop().unwrap();
    assert!(!last.contains("--no-mcp"), "{last}");
}

both_generations! {
    a_readonly_run_passes_no_mcp_where_pi_lists_it_and_starts_one_pi_when_warm => readonly_no_mcp_cold_and_warm;
}

/// The real pi at the fake LLM: cold, `pi --help` then the run; warm, the run only.
/// 1.6 lists `--no-mcp` and gets it; 0.73.1 does not list it and never sees it.
fn readonly_no_mcp_cold_and_warm(generation: Gen, pi: PathBuf) {
    let mut w = World::new(
        generation,
        pi.clone(),
        vec![],
        Reply::Text(report_text("looked")),
        FAST_FAIL,
    );
    let log = w.env.path("starts.log");
    std::fs::create_dir_all(w.env.path("bin")).unwrap();
    w.pi = logging_pi(&w.env.path("bin"), &log, &format!("'{}'", pi.display()), "");
    let req = w.request("List the files in the work directory and name them");
    for (round, expect_starts) in [("cold", 2), ("warm", 1)] {
        let before = starts(&log).len();
        let (out, v) = w.delegate(&req);
        assert_eq!(out.code, 0, "{generation:?} {round}: {v:#}\n{}", out.stderr);
        assert_eq!(v["status"], "completed", "{v:#}");
        let now = starts(&log);
        assert_eq!(
            now.len() - before,
            expect_starts,
            "{generation:?} {round}: pi processes started: {:?}",
            &now[before..]
        );
        let run = now.last().unwrap();
        assert!(run.contains("--mode json"), "{run}");
        assert_eq!(
            run.split(' ').any(|a| a == "--no-mcp"),
            generation == Gen::Pi16,
            "{generation:?} {round}: {run}"
        );
    }
}
