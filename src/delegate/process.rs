//! Process plumbing shared by the delegate runner and the provider's transports:
//! pi in its own process group, SIGTERM → grace → SIGKILL for that group, pwk's own
//! SIGINT/SIGTERM flag, a bounded stderr capture, the stall watchdog's bookkeeping,
//! the 0600 system-prompt temp file, and short captured commands (`pi --help`).

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

pub use rustix::process::Signal;

use super::stream::{Line, LineFramer, StreamState};

/// Time between SIGTERM and SIGKILL for pi's process group.
pub const KILL_GRACE: Duration = Duration::from_secs(3);
/// How much of stderr is kept: the first and the last bytes.
const STDERR_HEAD: usize = 16 << 10;
const STDERR_TAIL: usize = 48 << 10;

/// Spawn `cmd` as the leader of a new process group (its pid is the group id).
pub fn spawn_in_group(cmd: &mut Command) -> std::io::Result<Child> {
    cmd.process_group(0).spawn()
}

/// Send `sig` to process group `pgid`; ESRCH (nothing left) is ignored.
pub fn signal_group(pgid: u32, sig: Signal) {
    if let Some(pid) = i32::try_from(pgid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, sig);
    }
}

/// Stops one process group: SIGTERM once, SIGKILL [`KILL_GRACE`] later. Call
/// [`GroupStopper::tick`] from the wait loop.
#[derive(Debug)]
pub struct GroupStopper {
    pgid: u32,
    term_at: Option<Instant>,
    kill_sent: bool,
}

impl GroupStopper {
    pub fn new(pgid: u32) -> GroupStopper {
        GroupStopper {
            pgid,
            term_at: None,
            kill_sent: false,
        }
    }

    /// SIGTERM to the group (only the first call signals).
    pub fn stop(&mut self) {
        if self.term_at.is_none() {
            signal_group(self.pgid, Signal::TERM);
            self.term_at = Some(Instant::now());
        }
    }

    /// SIGKILL once the grace after [`GroupStopper::stop`] is over.
    pub fn tick(&mut self) {
        if let Some(t) = self.term_at
            && !self.kill_sent
            && t.elapsed() >= KILL_GRACE
        {
            self.kill();
        }
    }

    /// SIGKILL now (once).
    pub fn kill(&mut self) {
        if !self.kill_sent {
            signal_group(self.pgid, Signal::KILL);
            self.kill_sent = true;
        }
    }

    pub fn kill_sent(&self) -> bool {
        self.kill_sent
    }

    /// SIGKILL whatever is left of the group (tool children), e.g. after pi exited.
    pub fn sweep(&self) {
        signal_group(self.pgid, Signal::KILL);
    }
}

/// SIGINT/SIGTERM received by pwk (the signal number), shared by every run.
pub(crate) fn interrupted() -> &'static Arc<AtomicUsize> {
    static FLAG: OnceLock<Arc<AtomicUsize>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicUsize::new(0));
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // Registration only fails for forbidden signals; these two are allowed.
            let _ = signal_hook::flag::register_usize(sig, Arc::clone(&flag), sig as usize);
        }
        flag
    })
}

/// Install pwk's SIGINT/SIGTERM flag (once) and return the signal received, if any.
/// While a run is active the signal terminates pi's process group; callers that wait
/// (e.g. for the write lock) poll this.
pub fn pending_signal() -> Option<i32> {
    match interrupted().load(Ordering::Relaxed) {
        0 => None,
        s => Some(s as i32),
    }
}

/// `pwk received SIGINT` for a signal number.
pub fn received(sig: i32) -> String {
    match sig {
        signal_hook::consts::SIGINT => "pwk received SIGINT".to_string(),
        signal_hook::consts::SIGTERM => "pwk received SIGTERM".to_string(),
        n => format!("pwk received signal {n}"),
    }
}

/// The first and last bytes of a stream.
#[derive(Debug, Default)]
pub struct StderrCapture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    dropped: u64,
}

impl StderrCapture {
    pub fn push(&mut self, mut bytes: &[u8]) {
        if self.head.len() < STDERR_HEAD {
            let take = (STDERR_HEAD - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        self.tail.extend(bytes);
        while self.tail.len() > STDERR_TAIL {
            let excess = self.tail.len() - STDERR_TAIL;
            self.tail.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    pub fn into_string(self) -> String {
        let mut s = String::from_utf8_lossy(&self.head).into_owned();
        if self.dropped > 0 {
            s.push_str(&format!(
                "\n[… {} bytes of stderr not kept …]\n",
                self.dropped
            ));
        }
        let tail: Vec<u8> = self.tail.into_iter().collect();
        s.push_str(&String::from_utf8_lossy(&tail));
        s
    }

    /// Drain `r` on its own thread; the kept text arrives on the channel at EOF.
    pub fn spawn(r: impl Read + Send + 'static, name: &str) -> mpsc::Receiver<String> {
        let (tx, rx) = mpsc::channel();
        let _ = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                let mut cap = StderrCapture::default();
                read_chunks(r, |b| cap.push(b));
                let _ = tx.send(cap.into_string());
            });
        rx
    }
}

/// Read `r` to EOF (or an error), handing each chunk to `on_chunk`.
pub fn read_chunks(mut r: impl Read, mut on_chunk: impl FnMut(&[u8])) {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => on_chunk(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
}

/// Read pi's JSON event stream to EOF: frame it into lines and hand each to `on_line`
/// (which feeds `state`), keeping `activity` current for the stall watchdog.
pub fn read_events(
    r: impl Read,
    start: Instant,
    activity: &Activity,
    state: &mut StreamState,
    mut on_line: impl FnMut(Line<'_>, &mut StreamState),
) {
    let mut framer = LineFramer::default();
    read_chunks(r, |chunk| {
        activity.output(start);
        framer.push(chunk, &mut |line| on_line(line, state));
        activity.set_tools_in_flight(state.tools_in_flight);
    });
    framer.finish(&mut |line| on_line(line, state));
}

/// What the stall watchdog looks at: when pi last printed, and how many tools run.
#[derive(Debug, Default)]
pub struct Activity {
    last_output_ms: AtomicU64,
    tools_in_flight: AtomicU32,
}

impl Activity {
    /// pi printed something (`start`: when the run began).
    pub fn output(&self, start: Instant) {
        self.last_output_ms.store(
            (start.elapsed().as_millis() as u64).max(1),
            Ordering::Relaxed,
        );
    }

    pub fn set_tools_in_flight(&self, n: u32) {
        self.tools_in_flight.store(n, Ordering::Relaxed);
    }

    /// No output for `stall` while no tool runs. Counted from pi's first output: Node
    /// start-up is not a stall (the overall timeout covers a pi that never prints).
    pub fn stalled(&self, start: Instant, stall: Duration) -> bool {
        let last = self.last_output_ms.load(Ordering::Relaxed);
        self.tools_in_flight.load(Ordering::Relaxed) == 0
            && last > 0
            && (start.elapsed().as_millis() as u64).saturating_sub(last) >= stall.as_millis() as u64
    }
}

/// The stall message both transports report.
pub fn stall_message(stall: Duration) -> String {
    format!(
        "no event from pi for {} while no tool was running (stalled stream); its process group was terminated",
        human_duration(stall)
    )
}

/// `3 s` or `1500 ms`.
pub fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// A 0600 temp file (e.g. the role body for `--system-prompt`), removed on drop.
#[derive(Debug)]
pub struct TempFile(PathBuf);

impl TempFile {
    /// Create `$TMPDIR/<prefix>-<pid>-<n>-<nanos>.md` holding `body`.
    pub fn create(prefix: &str, body: &str) -> std::io::Result<TempFile> {
        use std::os::unix::fs::OpenOptionsExt;
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir();
        for _ in 0..16 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let name = format!(
                "{prefix}-{}-{}-{nanos:x}.md",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            );
            let path = dir.join(name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(mut f) => {
                    f.write_all(body.as_bytes())?;
                    return Ok(TempFile(path));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other("could not create a unique temp file"))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Run a short command (`pi --help`, `pi --list-models`) in its own process group and
/// capture stdout and stderr (each bounded, joined by a newline). The group is killed
/// after `limit`; `Ok((None, _))` then. `Err` when it cannot start.
pub fn capture(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    env: &[(String, String)],
    limit: Duration,
) -> std::io::Result<(Option<ExitStatus>, String)> {
    let mut child = spawn_in_group(
        Command::new(program)
            .args(args)
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )?;
    let stopper = GroupStopper::new(child.id());
    let streams: Vec<mpsc::Receiver<String>> = [
        child
            .stdout
            .take()
            .map(|s| StderrCapture::spawn(s, "pi-capture-out")),
        child
            .stderr
            .take()
            .map(|s| StderrCapture::spawn(s, "pi-capture-err")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => break None,
        }
    };
    stopper.sweep();
    let _ = child.wait();
    let text: Vec<String> = streams
        .into_iter()
        .filter_map(|rx| rx.recv_timeout(Duration::from_secs(2)).ok())
        .collect();
    Ok((status, text.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_capture_keeps_head_and_tail() {
        let mut c = StderrCapture::default();
        c.push(&vec![b'h'; STDERR_HEAD]);
        c.push(&[b'x'; 100]);
        c.push(&vec![b't'; STDERR_TAIL]);
        let s = c.into_string();
        assert!(s.starts_with('h'));
        assert!(s.ends_with('t'));
        assert!(s.contains("[… 100 bytes of stderr not kept …]"));
    }

    #[test]
    fn activity_counts_a_stall_only_after_output_and_without_tools() {
        let start = Instant::now() - Duration::from_secs(10);
        let a = Activity::default();
        assert!(!a.stalled(start, Duration::from_millis(1)), "no output yet");
        a.last_output_ms.store(1, Ordering::Relaxed);
        assert!(a.stalled(start, Duration::from_secs(5)));
        a.set_tools_in_flight(1);
        assert!(!a.stalled(start, Duration::from_secs(5)), "a tool runs");
    }

    #[test]
    fn capture_reports_status_and_both_streams() {
        let (st, out) = capture(
            Path::new("/bin/sh"),
            &["-c", "echo out; echo err >&2; exit 3"],
            Path::new("/"),
            &[],
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(st.and_then(|s| s.code()), Some(3));
        assert!(out.contains("out") && out.contains("err"), "{out}");
    }
}
