//! Benchmarks for `pwk delegate` (driven by scripts/bench-delegate.sh; not shipped).
//!
//!   delegate_bench gen BYTES        write a pi 0.73.1-shaped JSON stream (with the
//!                                   quadratic message_update snapshots) to stdout
//!   delegate_bench parse            parse stdin with pwk's framer + event parser
//!   delegate_bench lines            baseline: read stdin and only split it on LF
//!   delegate_bench overhead PI N    run_pi vs a bare pi run, N interleaved pairs,
//!                                   against the fake LLM server
//!   delegate_bench delegate PWK PI N  the `pwk delegate` binary (a read-only task)
//!                                   vs the same pi launch started bare, N alternating
//!                                   pairs at the fake LLM, with pwk's cache cold and
//!                                   warm: pwk's overhead with pi's own lifetime
//!                                   subtracted, and pi processes per task
//!
//! `parse` and `lines` print one line: `bytes=… secs=… mb_per_s=… peak_rss_kib=…`.

#[path = "../tests/cli/support/fake_llm.rs"]
mod fake_llm;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pwk::delegate::stream::{LineFramer, StreamState};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("gen") => generate(args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1 << 30)),
        Some("parse") => parse(false),
        Some("parse-no-usage") => {
            // The same parse with the usage accounting left out (the baseline).
            SKIP_USAGE.store(true, std::sync::atomic::Ordering::Relaxed);
            parse(false)
        }
        Some("lines") => parse(true),
        Some("overhead") => overhead(
            PathBuf::from(&args[1]),
            args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10),
        ),
        Some("delegate") => delegate(
            PathBuf::from(&args[1]),
            PathBuf::from(&args[2]),
            args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10),
        ),
        _ => {
            eprintln!("usage: delegate_bench gen BYTES | parse | lines | overhead PI N");
            std::process::exit(2);
        }
    }
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// One assistant answer of `chunks` deltas, as pi 0.73.1 prints it: every
/// message_update carries the partial message twice (`partial` and `message`).
fn generate(total: u64) {
    let out = std::io::stdout();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, out.lock());
    let words = [
        "alpha ",
        "beta\\n",
        "gamma ",
        "\\\"delta\\\" ",
        "épsilon ",
        "zeta ",
        "eta ",
        "theta\\n",
    ];
    let chunks = 1000;
    let deltas: Vec<String> = (0..chunks)
        .map(|i| format!("{}{}", words[i % 8], words[(i * 3 + 1) % 8]))
        .collect();
    let mut text = String::new();
    let mut ends = Vec::with_capacity(chunks);
    for d in &deltas {
        text.push_str(d);
        ends.push(text.len());
    }
    let meta = r#""api":"openai-completions","provider":"mock","model":"mock-model","usage":{"input":100,"output":12,"cacheRead":0,"cacheWrite":0,"totalTokens":112,"cost":{"input":0.001,"output":0.0002,"cacheRead":0,"cacheWrite":0,"total":0.0012}},"stopReason":"stop","timestamp":1795987378579"#;
    let mut written: u64 = 0;
    let put = |w: &mut std::io::BufWriter<_>, s: &[u8]| {
        if let Err(e) = w.write_all(s) {
            // The reader went away (e.g. `| head`): stop quietly.
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            panic!("write: {e}");
        }
        s.len() as u64
    };
    written += put(&mut w, b"{\"type\":\"session\",\"version\":3,\"id\":\"bench\",\"timestamp\":\"t\",\"cwd\":\"/w\"}\n{\"type\":\"agent_start\"}\n");
    let mut turn = 0u64;
    while written < total {
        turn += 1;
        written += put(&mut w, b"{\"type\":\"turn_start\"}\n");
        written += put(&mut w, format!("{{\"type\":\"message_start\",\"message\":{{\"role\":\"assistant\",\"content\":[],{meta}}}}}\n").as_bytes());
        for (i, d) in deltas.iter().enumerate() {
            let snap = &text[..ends[i]];
            let partial = r#"{"role":"assistant","content":[{"type":"text","text":""#;
            written += put(&mut w, b"{\"type\":\"message_update\",\"assistantMessageEvent\":{\"type\":\"text_delta\",\"contentIndex\":0,\"delta\":\"");
            written += put(&mut w, d.as_bytes());
            written += put(&mut w, b"\",\"partial\":");
            written += put(&mut w, partial.as_bytes());
            written += put(&mut w, snap.as_bytes());
            written += put(&mut w, format!("\"}}],{meta}}}}},\"message\":").as_bytes());
            written += put(&mut w, partial.as_bytes());
            written += put(&mut w, snap.as_bytes());
            written += put(&mut w, format!("\"}}],{meta}}}}}\n").as_bytes());
        }
        let end = format!(
            "{{\"type\":\"message_end\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}],{}}}}}\n{{\"type\":\"turn_end\",\"message\":{{\"role\":\"assistant\",\"content\":[],{meta}}},\"toolResults\":[]}}\n",
            meta.replace(
                "\"input\":0,\"output\":0",
                &format!("\"input\":{turn},\"output\":5")
            )
        );
        written += put(&mut w, end.as_bytes());
    }
    put(&mut w, b"{\"type\":\"agent_end\",\"messages\":[]}\n");
    let _ = w.flush();
}

static SKIP_USAGE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn parse(lines_only: bool) {
    let mut stdin = std::io::stdin().lock();
    let mut buf = vec![0u8; 64 << 10];
    let mut framer = LineFramer::default();
    let mut state = StreamState {
        skip_usage: SKIP_USAGE.load(std::sync::atomic::Ordering::Relaxed),
        ..StreamState::default()
    };
    let mut total = 0u64;
    let mut lines = 0u64;
    let start = Instant::now();
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => panic!("read: {e}"),
        };
        total += n as u64;
        if lines_only {
            framer.push(&buf[..n], &mut |_| lines += 1);
        } else {
            framer.push(&buf[..n], &mut |l| state.feed(l, &mut |_| {}));
        }
    }
    framer.finish(&mut |l| state.feed(l, &mut |_| {}));
    let secs = start.elapsed().as_secs_f64();
    println!(
        "bytes={total} secs={secs:.3} mb_per_s={:.1} peak_rss_kib={} turns={} malformed={} final_len={} usage_tokens={}",
        total as f64 / 1e6 / secs,
        peak_rss_kib(),
        state.turns,
        state.malformed_lines,
        state.final_message.as_ref().map_or(0, |f| f.text.len()),
        state.usage.as_ref().map_or(0, |u| u.total_tokens),
    );
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// run_pi against a bare launch of the same pi with the same arguments.
fn overhead(pi: PathBuf, n: usize) {
    // `canned`: a shell script that prints a recorded-shape stream, so the only
    // variable cost left is the runner itself (no Node, no model).
    let pi = if pi.as_os_str() == "canned" {
        let dir = std::env::temp_dir().join(format!("pwk-bench-canned-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stream = dir.join("stream.jsonl");
        std::fs::write(
            &stream,
            concat!(
                r#"{"type":"session","version":3,"id":"c","timestamp":"t","cwd":"/w"}"#, "\n",
                r#"{"type":"agent_start"}"#, "\n", r#"{"type":"turn_start"}"#, "\n",
                r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"provider":"mock","model":"mock-model","stopReason":"stop","usage":{"input":1,"output":1,"totalTokens":2}}}"#, "\n",
                r#"{"type":"agent_end","messages":[]}"#, "\n",
            ),
        )
        .unwrap();
        let script = dir.join("pi");
        std::fs::write(
            &script,
            format!("#!/bin/sh\nexec cat {}\n", stream.display()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    } else {
        pi
    };
    let llm = fake_llm::FakeLlm::start(vec![], fake_llm::Reply::text("hello from the fake server"));
    let dir = std::env::temp_dir().join(format!("pwk-bench-{}", std::process::id()));
    let agent = dir.join("agent");
    let work = dir.join("work");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    let models = format!(
        r#"{{"providers":{{"mock":{{"baseUrl":"{}","api":"openai-completions","apiKey":"mock-key","models":[{{"id":"mock-model"}}]}}}}}}"#,
        llm.base_url()
    );
    std::fs::write(agent.join("models.json"), models).unwrap();
    std::fs::write(
        agent.join("settings.json"),
        r#"{"retry":{"enabled":false,"provider":{"maxRetries":0,"timeoutMs":5000}}}"#,
    )
    .unwrap();
    let env_vars: Vec<(String, String)> = vec![
        ("PI_CODING_AGENT_DIR".into(), agent.display().to_string()),
        ("PI_OFFLINE".into(), "1".into()),
        ("HOME".into(), dir.join("home").display().to_string()),
        (
            "NODE_COMPILE_CACHE".into(),
            dir.join("ncc").display().to_string(),
        ),
    ];
    let mut spec = pwk::delegate::PiRunSpec::new(&work, "Say hello");
    spec.provider = Some("mock".into());
    spec.model = Some("mock-model".into());
    spec.env = env_vars.clone();
    spec.timeout = Some(Duration::from_secs(60));
    spec.stall_timeout = Some(Duration::from_secs(60));
    let env = pwk::env::Env {
        pi_bin: Some(pi.clone()),
        ..Default::default()
    };
    let launch = pwk::delegate::plan_launch(&spec, &env).expect("plan");
    let bare = || {
        let t = Instant::now();
        let mut child = Command::new(&launch.program)
            .args(&launch.args)
            .current_dir(&work)
            .envs(env_vars.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn pi");
        let _ = child.stdin.take().unwrap().write_all(b"Say hello"); // the canned script never reads it
        let mut out = Vec::new();
        child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        child.wait().unwrap();
        assert!(
            out.windows(11).any(|w| w == b"message_end"),
            "bare run produced no answer"
        );
        t.elapsed()
    };
    let managed = || {
        let t = Instant::now();
        let o = pwk::delegate::run_pi(&spec, &env, &|_| {});
        assert_eq!(
            o.status,
            pwk::delegate::RunStatus::Completed,
            "{:?}",
            o.error
        );
        t.elapsed()
    };
    // Warm-up (compile cache, page cache).
    bare();
    managed();
    let (mut b, mut m) = (Vec::new(), Vec::new());
    for i in 0..n {
        // Alternate which goes first, so neither always runs on a warmer machine.
        if i % 2 == 0 {
            b.push(bare());
            m.push(managed());
        } else {
            m.push(managed());
            b.push(bare());
        }
    }
    let mean = |v: &[Duration]| v.iter().sum::<Duration>() / v.len() as u32;
    let (bmin, mmin) = (
        b.iter().min().copied().unwrap_or_default(),
        m.iter().min().copied().unwrap_or_default(),
    );
    let (bm, mm) = (mean(&b), mean(&m));
    let (bmed, mmed) = (median(&mut b), median(&mut m));
    println!(
        "runs={n} bare_min_ms={:.1} run_pi_min_ms={:.1} overhead_min_ms={:.1} bare_median_ms={:.1} run_pi_median_ms={:.1} overhead_median_ms={:.1} bare_mean_ms={:.1} run_pi_mean_ms={:.1} overhead_mean_ms={:.1} ratio={:.3}",
        bmin.as_secs_f64() * 1e3,
        mmin.as_secs_f64() * 1e3,
        (mmin.as_secs_f64() - bmin.as_secs_f64()) * 1e3,
        bmed.as_secs_f64() * 1e3,
        mmed.as_secs_f64() * 1e3,
        (mmed.as_secs_f64() - bmed.as_secs_f64()) * 1e3,
        bm.as_secs_f64() * 1e3,
        mm.as_secs_f64() * 1e3,
        (mm.as_secs_f64() - bm.as_secs_f64()) * 1e3,
        mm.as_secs_f64() / bm.as_secs_f64(),
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// One pi start as the timing launcher logged it: start and end (ns since the epoch)
/// and whether it was the `--help` probe.
struct Start {
    start: u128,
    end: u128,
    help: bool,
}

fn starts(log: &std::path::Path) -> Vec<Start> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let mut f = l.split(' ');
            Some(Start {
                start: f.next()?.parse().ok()?,
                end: f.next()?.parse().ok()?,
                help: f.next() == Some("--help"),
            })
        })
        .collect()
}

/// `pwk delegate` (the release binary `pwk`) on a read-only task against the same pi
/// launch started bare, alternating which goes first, both through one timing
/// launcher that logs each pi start and end: per pair, pwk's overhead is (pwk's wall
/// − the run's pi lifetime) − (bare wall − its pi lifetime), so pi's own variance (a
/// Node start-up varies by hundreds of ms) cancels. Cold: pwk's cache directory is
/// emptied before each pwk run (the `pi --help` probe is part of pwk's time); warm:
/// it is kept.
fn delegate(pwk: PathBuf, pi: PathBuf, n: usize) {
    use std::os::unix::fs::PermissionsExt;
    let llm = fake_llm::FakeLlm::start(vec![], fake_llm::Reply::text("hello from the fake server"));
    let dir = std::env::temp_dir().join(format!("pwk-bench-delegate-{}", std::process::id()));
    let (agent, work, home, cache) = (
        dir.join("agent"),
        dir.join("work"),
        dir.join("home"),
        dir.join("cache"),
    );
    for d in [&agent, &work, &home] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(
        agent.join("models.json"),
        format!(
            r#"{{"providers":{{"mock":{{"baseUrl":"{}","api":"openai-completions","apiKey":"mock-key","models":[{{"id":"mock-model"}}]}}}}}}"#,
            llm.base_url()
        ),
    )
    .unwrap();
    std::fs::write(
        agent.join("settings.json"),
        r#"{"retry":{"enabled":false,"provider":{"maxRetries":0,"timeoutMs":5000}}}"#,
    )
    .unwrap();
    let log = dir.join("starts.log");
    let launcher = dir.join("pi");
    std::fs::write(
        &launcher,
        format!(
            "#!/bin/sh\ns=$(date +%s%N)\n'{}' \"$@\"\nrc=$?\necho \"$s $(date +%s%N) $1\" >> '{}'\nexit $rc\n",
            pi.display(),
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755)).unwrap();
    let env: Vec<(&str, PathBuf)> = vec![
        ("PI_CODING_AGENT_DIR", agent.clone()),
        ("HOME", home.clone()),
        ("PWK_CACHE_DIR", cache.clone()),
        ("PWK_PI_BIN", launcher.clone()),
        ("NODE_COMPILE_CACHE", dir.join("ncc")),
    ];
    let request = format!(
        r#"{{"action":"delegate","taskId":"bench","cwd":"{}","objective":"Say hello and name no file","scope":["."],"constraints":[],"acceptance":["a greeting"],"profile":"readonly","provider":"mock","model":"mock-model"}}"#,
        work.display()
    );
    let pwk_cmd = |args: &[&str]| {
        let mut c = Command::new(&pwk);
        c.args(args)
            .current_dir(&work)
            .env("PI_OFFLINE", "1")
            .env_remove("XDG_CACHE_HOME")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        c
    };
    let run_pwk = |args: &[&str]| -> (Duration, Vec<u8>) {
        let t = Instant::now();
        let mut child = pwk_cmd(args).spawn().expect("spawn pwk");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(request.as_bytes())
            .unwrap();
        let mut out = Vec::new();
        child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        child.wait().unwrap();
        (t.elapsed(), out)
    };
    // The launch pwk plans (its arguments and prompt), once, with a warm cache.
    let (_, plan) = run_pwk(&["delegate", "--dry-run"]);
    let plan: serde_json::Value = serde_json::from_slice(&plan).expect("the dry run's JSON");
    let args: Vec<String> = plan["launch"]["args"]
        .as_array()
        .expect("launch args")
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let prompt = plan["prompt"].as_str().unwrap().to_string();
    let has_no_mcp = args.iter().any(|a| a == "--no-mcp");
    let bare = |i: usize| -> (Duration, Vec<Start>) {
        // A fresh session file per run, as pwk gives each task.
        let mut a = args.clone();
        if let Some(p) = a.iter().position(|x| x == "--session") {
            a[p + 1] = dir.join(format!("bare-{i}.jsonl")).display().to_string();
        }
        let _ = std::fs::remove_file(&log);
        let t = Instant::now();
        let mut child = Command::new(&launcher)
            .args(&a)
            .current_dir(&work)
            .env("PI_OFFLINE", "1")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn pi");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(prompt.as_bytes())
            .unwrap();
        let mut out = Vec::new();
        child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        child.wait().unwrap();
        let d = t.elapsed();
        assert!(
            out.windows(11).any(|w| w == b"message_end"),
            "bare run produced no answer"
        );
        (d, starts(&log))
    };
    let managed = |cold: bool| -> (Duration, Vec<Start>) {
        if cold {
            let _ = std::fs::remove_dir_all(&cache);
        }
        let _ = std::fs::remove_file(&log);
        let (d, out) = run_pwk(&["delegate"]);
        let v: serde_json::Value = serde_json::from_slice(&out).expect("pwk's JSON");
        assert_eq!(v["status"], "completed", "{v:#}");
        (d, starts(&log))
    };
    let life = |s: &[Start]| -> f64 {
        s.iter()
            .filter(|x| !x.help)
            .map(|x| (x.end - x.start) as f64 / 1e6)
            .sum()
    };
    // Warm-up (Node's compile cache, the page cache).
    bare(0);
    managed(false);
    for (label, cold) in [("cold", true), ("warm", false)] {
        let (mut over, mut procs, mut helps) = (Vec::new(), Vec::new(), Vec::new());
        let (mut bare_ms, mut pwk_ms) = (Vec::new(), Vec::new());
        for i in 0..n {
            let (b, m) = if i % 2 == 0 {
                let b = bare(i + 1);
                (b, managed(cold))
            } else {
                let m = managed(cold);
                (bare(i + 1), m)
            };
            let bms = b.0.as_secs_f64() * 1e3;
            let mms = m.0.as_secs_f64() * 1e3;
            over.push((mms - life(&m.1)) - (bms - life(&b.1)));
            procs.push(m.1.len());
            helps.push(m.1.iter().filter(|s| s.help).count());
            bare_ms.push(bms);
            pwk_ms.push(mms);
        }
        let med = |v: &mut Vec<f64>| {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            v[v.len() / 2]
        };
        let (min_p, max_p) = (procs.iter().min().unwrap(), procs.iter().max().unwrap());
        println!(
            "cache={label} pairs={n} bare_median_ms={:.1} pwk_median_ms={:.1} overhead_median_ms={:.1} overhead_min_ms={:.1} overhead_max_ms={:.1} pi_processes_per_task={} help_probes_per_task={} no_mcp={has_no_mcp}",
            med(&mut bare_ms),
            med(&mut pwk_ms),
            med(&mut over.clone()),
            over.iter().cloned().fold(f64::INFINITY, f64::min),
            over.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
            if min_p == max_p {
                min_p.to_string()
            } else {
                format!("{min_p}-{max_p}")
            },
            helps.iter().sum::<usize>() as f64 / n as f64,
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
