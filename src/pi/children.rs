//! Every child process pwk starts, in one registry: the process groups of the live
//! captures (`pi --help`, `pi --list-models`) and supervised runs, the exit paths
//! that stop them, and the subreaper that catches what escaped pi's group.
//!
//! * [`spawn`]: start a child as the leader of its own process group and register
//!   the group; the returned [`Tracked`] kills the group and reaps the child when it
//!   is dropped, so no path out of a capture leaves it running.
//! * [`own_process`]: the pwk binary (the command layer) claims the process. From
//!   then on a signal that nobody watches (`pwk lsp`, `pwk setup`: no run reports on
//!   it) stops every registered group and ends pwk with 128 + the signal (130 for
//!   SIGINT, 143 for SIGTERM), and the returned [`ExitGuard`] stops them when the
//!   command returns (end of input, `exit`, a panic that unwinds).
//! * Runs ([`begin_run`]): while one runs, the pwk binary is a child subreaper
//!   (`PR_SET_CHILD_SUBREAPER`), so a process a tool moved out of pi's process group
//!   (`setsid`, a double fork) is re-parented to pwk instead of init. When the last
//!   run ends, [`RunToken::end`] stops every such descendant (SIGTERM, grace, SIGKILL)
//!   and reaps it. The sweep only looks at pwk's own children that are not a
//!   registered group leader, and spawns register under the same lock, so it never
//!   touches a child pwk started itself. A library embedding that did not call
//!   [`own_process`] keeps its signals and its children: no subreaper, no sweep.
//! * pwk's signal flag: the signals that would end pwk set one flag
//!   ([`signal_received`]). Code that turns a signal into "stop pi, report" watches it
//!   ([`watch_signals`]); then the exit path above stays out of the way.

use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use super::group::{Signal, group_alive, signal_group};

/// The signals that would end pwk and that it turns into "stop the children, clean
/// up": besides INT and TERM, a closed terminal (HUP), QUIT, the user signals and an
/// alarm. (SIGKILL cannot be caught.)
pub(crate) const HANDLED_SIGNALS: [i32; 7] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGQUIT,
    signal_hook::consts::SIGUSR1,
    signal_hook::consts::SIGUSR2,
    signal_hook::consts::SIGALRM,
];

/// Between SIGTERM and SIGKILL for a process that escaped pi's group.
pub(crate) const ESCAPED_GRACE: Duration = Duration::from_secs(2);
/// The longest the sweep of escaped processes runs.
const ESCAPED_LIMIT: Duration = Duration::from_secs(5);
/// On pwk's exit path: between SIGTERM and SIGKILL for the registered groups.
const EXIT_GRACE: Duration = Duration::from_secs(1);

#[derive(Debug, Default)]
struct State {
    /// Process groups (= leader pids) of live children.
    groups: Vec<u32>,
    /// Supervised runs now.
    runs: usize,
    /// Runs begun since pwk last had none (one pass: a review's roles, a probe
    /// beside them).
    pass_runs: usize,
    /// pwk is exiting: no new child.
    closing: bool,
    /// The subreaper attribute is set.
    subreaper: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    groups: Vec::new(),
    runs: 0,
    pass_runs: 0,
    closing: false,
    subreaper: false,
});
/// The pwk binary owns the process ([`own_process`]).
static OWNER: AtomicBool = AtomicBool::new(false);
/// Someone turns a signal into "stop pi, report" ([`watch_signals`]).
static WATCHED: AtomicBool = AtomicBool::new(false);
/// An unwatched signal arrived: the exit path is stopping the children and ends pwk.
static EXITING: AtomicBool = AtomicBool::new(false);

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The signal pwk received (its number, 0 for none), shared by every run. Installed
/// on first use.
fn flag() -> &'static Arc<AtomicUsize> {
    static FLAG: OnceLock<Arc<AtomicUsize>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicUsize::new(0));
        for sig in HANDLED_SIGNALS {
            // Registration only fails for forbidden signals; none of these is.
            let _ = signal_hook::flag::register_usize(sig, Arc::clone(&flag), sig as usize);
        }
        flag
    })
}

/// Install pwk's signal flag and say that the caller turns a signal into "stop pi,
/// report" (so pwk's exit path does not end the process under it).
pub(crate) fn watch_signals() -> &'static Arc<AtomicUsize> {
    WATCHED.store(true, Ordering::SeqCst);
    flag()
}

/// The signal pwk received, when a caller watches signals (a capture then gives
/// up, so the run can report); `None` otherwise (the exit path ends pwk).
pub(crate) fn signal_received() -> Option<i32> {
    match flag().load(Ordering::Relaxed) {
        0 => None,
        _ if !WATCHED.load(Ordering::SeqCst) => None,
        s => Some(s as i32),
    }
}

/// pwk's exit path is under way: nothing more should happen on this thread but
/// waiting to be ended (so no half-done result is printed with a success status).
pub(crate) fn park_if_exiting() {
    if EXITING.load(Ordering::SeqCst) {
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

/// `pwk received SIGINT` for a signal number.
pub(crate) fn received(sig: i32) -> String {
    use signal_hook::consts as c;
    let name = match sig {
        c::SIGINT => "SIGINT",
        c::SIGTERM => "SIGTERM",
        c::SIGHUP => "SIGHUP",
        c::SIGQUIT => "SIGQUIT",
        c::SIGUSR1 => "SIGUSR1",
        c::SIGUSR2 => "SIGUSR2",
        c::SIGALRM => "SIGALRM",
        n => return format!("pwk received signal {n}"),
    };
    format!("pwk received {name}")
}

/// Claimed by the pwk binary: see the module documentation. Dropping the guard stops
/// every child still registered.
pub(crate) fn own_process() -> ExitGuard {
    OWNER.store(true, Ordering::SeqCst);
    ExitGuard(())
}

/// Stops every registered child when dropped (the end of a command).
#[derive(Debug)]
pub(crate) struct ExitGuard(());

impl Drop for ExitGuard {
    fn drop(&mut self) {
        park_if_exiting();
        stop_all();
    }
}

fn owner() -> bool {
    OWNER.load(Ordering::SeqCst)
}

/// The signal thread of the pwk binary (started with the first child): an unwatched
/// signal stops every child and ends pwk with 128 + the signal.
fn ensure_exit_path() {
    static STARTED: OnceLock<()> = OnceLock::new();
    if !owner() {
        return;
    }
    STARTED.get_or_init(|| {
        let _ = flag();
        let Ok(mut signals) = signal_hook::iterator::Signals::new(HANDLED_SIGNALS) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("pwk-signals".into())
            .spawn(move || {
                for sig in signals.forever() {
                    if !WATCHED.load(Ordering::SeqCst) {
                        EXITING.store(true, Ordering::SeqCst);
                        stop_all();
                        std::process::exit(128 + sig);
                    }
                }
            });
    });
}

/// A registered child: dropping it SIGKILLs its process group, reaps the child and
/// unregisters the group.
#[derive(Debug)]
pub(crate) struct Tracked {
    pub child: Child,
    pgid: u32,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        signal_group(self.pgid, Signal::KILL);
        let _ = self.child.wait();
        state().groups.retain(|g| *g != self.pgid);
    }
}

/// Spawn `cmd` as the leader of a new process group (its pid is the group id) and
/// register the group. Refused once pwk is exiting.
pub(crate) fn spawn(cmd: &mut Command) -> std::io::Result<Tracked> {
    use std::os::unix::process::CommandExt;
    ensure_exit_path();
    let mut st = state();
    if st.closing {
        return Err(std::io::Error::other("pwk is exiting"));
    }
    let child = cmd.process_group(0).spawn()?;
    let pgid = child.id();
    st.groups.push(pgid);
    Ok(Tracked { child, pgid })
}

/// The environment variable that tags a run's process and everything it starts
/// (environments are inherited through `setsid` and double forks), so a process that
/// left the run's group is known to be that run's.
pub(crate) const RUN_TAG_VAR: &str = "PWK_RUN";

/// A supervised run is going on: the pwk binary is a child subreaper until the last
/// run ends ([`RunToken::end`]). Tag the run's command with [`RunToken::tag`].
pub(crate) fn begin_run() -> RunToken {
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    let mut st = state();
    st.runs += 1;
    st.pass_runs += 1;
    if owner() && !st.subreaper {
        st.subreaper = set_subreaper(true);
    }
    RunToken {
        ended: false,
        tag: format!(
            "{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ),
    }
}

/// One supervised run; [`RunToken::end`] (or drop) ends it.
#[derive(Debug)]
pub(crate) struct RunToken {
    ended: bool,
    tag: String,
}

impl RunToken {
    /// Tag `cmd`'s environment with this run ([`RUN_TAG_VAR`]).
    pub(crate) fn tag(&self, cmd: &mut Command) {
        cmd.env(RUN_TAG_VAR, &self.tag);
    }

    /// A sweep of the processes that left this run's group (tagged with it).
    pub(crate) fn sweep(&self) -> Sweep {
        Sweep {
            tag: Some(self.tag.clone()),
            ..Sweep::default()
        }
    }

    /// End the run: stop and reap every process that escaped its process group and
    /// carries its tag (continuing `sweep`, which the run may have started while
    /// waiting for pi's stdout). When it was the last run, stop every other process
    /// re-parented to pwk as well: those are this run's when it was the only one of
    /// the pass, and said to be of unknown origin otherwise.
    pub(crate) fn end(mut self, sweep: Sweep) -> Escaped {
        self.finish(sweep)
    }

    fn finish(&mut self, mut sweep: Sweep) -> Escaped {
        if self.ended {
            return Escaped::default();
        }
        self.ended = true;
        let (last, alone) = {
            let mut st = state();
            st.runs = st.runs.saturating_sub(1);
            let alone = st.pass_runs <= 1;
            if st.runs == 0 {
                st.pass_runs = 0;
            }
            (st.runs == 0, alone)
        };
        if !owner() {
            return sweep.take();
        }
        if sweep.tag.as_deref() != Some(self.tag.as_str()) {
            // A sweep of every process (`Sweep::default()`): only the last run may.
            sweep = Sweep {
                tag: Some(self.tag.clone()),
                ..sweep
            };
        }
        let mut out = sweep.run(ESCAPED_LIMIT);
        if !last {
            return out;
        }
        let rest = Sweep::default().run(ESCAPED_LIMIT);
        if alone {
            out.stopped.extend(rest.stopped);
            out.left.extend(rest.left);
        } else {
            out.unattributed.extend(rest.stopped);
            out.unattributed_left.extend(rest.left);
        }
        let mut st = state();
        if st.runs == 0 && st.subreaper {
            set_subreaper(false);
            st.subreaper = false;
        }
        out
    }
}

impl Drop for RunToken {
    fn drop(&mut self) {
        self.finish(Sweep::default());
    }
}

/// What the sweep of escaped processes did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Escaped {
    /// Processes stopped: pid and command name.
    pub stopped: Vec<(u32, String)>,
    /// Processes still there when the sweep gave up.
    pub left: Vec<(u32, String)>,
    /// Processes stopped that no run's tag names (they changed their environment),
    /// when several runs shared the pass: not known to be this run's.
    pub unattributed: Vec<(u32, String)>,
    /// The same, still there when the sweep gave up.
    pub unattributed_left: Vec<(u32, String)>,
}

/// Stops pwk's children that are not registered group leaders nor in a registered
/// group (processes re-parented to pwk as a subreaper): SIGTERM once, SIGKILL
/// [`ESCAPED_GRACE`] later, reaped when gone. Call [`Sweep::tick`] from a wait loop,
/// or [`Sweep::run`]. [`RunToken::sweep`] stops only the processes tagged with that
/// run; `Sweep::default()` every one.
#[derive(Debug, Default)]
pub(crate) struct Sweep {
    tag: Option<String>,
    seen: Vec<(u32, String, Instant)>,
    gone: Vec<(u32, String)>,
}

impl Sweep {
    /// One round; `true` when none is left. Does nothing unless pwk owns the process.
    pub(crate) fn tick(&mut self) -> bool {
        if !owner() {
            return true;
        }
        let st = state();
        let me = std::process::id();
        let mut found = orphans_of(me, &st.groups);
        if let Some(tag) = &self.tag {
            // A finished process is reaped whoever it came from (its environment is
            // gone); a live one is this sweep's only when it carries the run's tag.
            found.retain(|o| o.zombie || run_tag(o.pid).as_deref() == Some(tag.as_str()));
        }
        let live: Vec<u32> = found.iter().map(|o| o.pid).collect();
        for o in &found {
            if o.zombie {
                reap(o.pid);
                continue;
            }
            match self.seen.iter().find(|(p, _, _)| *p == o.pid) {
                None => {
                    stop_escaped(o, Signal::TERM);
                    self.seen.push((o.pid, o.comm.clone(), Instant::now()));
                }
                Some((_, _, at)) if at.elapsed() >= ESCAPED_GRACE => stop_escaped(o, Signal::KILL),
                Some(_) => {}
            }
            reap(o.pid);
        }
        drop(st);
        let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.seen)
            .into_iter()
            .partition(|(p, _, _)| !live.contains(p) || !alive(*p));
        self.gone
            .extend(gone.into_iter().map(|(p, comm, _)| (p, comm)));
        self.seen = kept;
        found.iter().all(|o| o.zombie) && self.seen.is_empty()
    }

    /// Tick until none is left or `limit` passed.
    pub(crate) fn run(&mut self, limit: Duration) -> Escaped {
        let until = Instant::now() + limit;
        while !self.tick() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        self.take()
    }

    /// What was stopped so far, and what is still there.
    pub(crate) fn take(&mut self) -> Escaped {
        Escaped {
            stopped: std::mem::take(&mut self.gone),
            left: self.seen.drain(..).map(|(p, comm, _)| (p, comm)).collect(),
            ..Escaped::default()
        }
    }
}

/// pwk is ending: SIGTERM every registered group, SIGKILL what is left after a
/// short grace, then stop what escaped. No child starts after this.
pub(crate) fn stop_all() {
    let groups = {
        let mut st = state();
        st.closing = true;
        st.groups.clone()
    };
    // No child was started (every command but the runners): nothing to wait for,
    // and no clock to read.
    if !groups.is_empty() {
        for g in &groups {
            signal_group(*g, Signal::TERM);
        }
        let until = Instant::now() + EXIT_GRACE;
        while groups.iter().any(|g| group_alive(*g)) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        for g in &groups {
            signal_group(*g, Signal::KILL);
        }
    }
    if owner() && state().subreaper {
        Sweep::default().run(ESCAPED_LIMIT);
    }
}

#[derive(Debug)]
struct Orphan {
    pid: u32,
    pgid: u32,
    comm: String,
    zombie: bool,
}

/// pwk's children that are not registered group leaders, from `/proc/<pid>/stat`.
fn orphans_of(me: u32, registered: &[u32]) -> Vec<Orphan> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me || registered.contains(&pid) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // A member of a registered group (pi's tool child, re-parented when pi
        // exited) has not left it: the group's own kill stops it.
        if let Some(o) = parse_stat(pid, &stat)
            && o.0 == me
            && (o.1.zombie || !registered.contains(&o.1.pgid))
        {
            out.push(o.1);
        }
    }
    out
}

/// `(ppid, orphan)` from a `/proc/<pid>/stat` line: `pid (comm) state ppid pgrp …`;
/// `comm` may hold spaces and parentheses, so the fields start after the last `)`.
fn parse_stat(pid: u32, stat: &str) -> Option<(u32, Orphan)> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm: String = stat
        .get(open + 1..close)?
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    let mut f = stat.get(close + 1..)?.split_whitespace();
    let state = f.next()?;
    let ppid = f.next()?.parse().ok()?;
    let pgid = f.next()?.parse().ok()?;
    Some((
        ppid,
        Orphan {
            pid,
            pgid,
            comm,
            zombie: state == "Z" || state == "X",
        },
    ))
}

/// The run tag ([`RUN_TAG_VAR`]) in `p`'s environment, if it can be read.
fn run_tag(p: u32) -> Option<String> {
    use std::io::Read;
    let mut env = Vec::new();
    std::fs::File::open(format!("/proc/{p}/environ"))
        .ok()?
        .take(4 << 20)
        .read_to_end(&mut env)
        .ok()?;
    let key = RUN_TAG_VAR.as_bytes();
    env.split(|b| *b == 0).find_map(|kv| {
        kv.strip_prefix(key)
            .and_then(|r| r.strip_prefix(b"="))
            .map(|v| String::from_utf8_lossy(v).into_owned())
    })
}

fn stop_escaped(o: &Orphan, sig: Signal) {
    if let Some(p) = pid(o.pid) {
        let _ = rustix::process::kill_process(p, sig);
    }
    // A `setsid` daemon leads its own group: its workers go with it (never pwk's
    // own group).
    let own_group = rustix::process::getpgrp().as_raw_nonzero().get() as u32;
    if o.pgid == o.pid && o.pgid != own_group {
        signal_group(o.pgid, sig);
    }
}

fn pid(p: u32) -> Option<rustix::process::Pid> {
    i32::try_from(p)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
}

fn alive(p: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{p}/stat"))
        .ok()
        .and_then(|s| parse_stat(p, &s))
        .is_some_and(|(_, o)| !o.zombie)
}

/// Reap `p` if it is a finished child of pwk (only ever a pid the sweep found as an
/// unregistered child, so no other waiter's status is taken).
fn reap(p: u32) {
    if let Some(p) = pid(p) {
        let _ = rustix::process::waitpid(Some(p), rustix::process::WaitOptions::NOHANG);
    }
}

#[cfg(target_os = "linux")]
fn set_subreaper(on: bool) -> bool {
    let me = on.then(rustix::process::getpid);
    rustix::process::set_child_subreaper(me).is_ok() && on
}

#[cfg(not(target_os = "linux"))]
fn set_subreaper(_on: bool) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        let (ppid, o) = parse_stat(42, "42 (a) b (c)) S 7 42 42 0 -1 4194560").unwrap();
        assert_eq!(
            (ppid, o.pgid, o.comm.as_str(), o.zombie),
            (7, 42, "a) b (c)", false)
        );
        let (_, o) = parse_stat(9, "9 (sleep) Z 1 9 9").unwrap();
        assert!(o.zombie);
        assert!(parse_stat(9, "garbage").is_none());
    }

    #[test]
    fn a_tracked_child_is_killed_and_reaped_on_drop() {
        let t = spawn(Command::new("/bin/sh").args(["-c", "sleep 30 & sleep 30"])).unwrap();
        let pgid = t.pgid;
        assert!(state().groups.contains(&pgid));
        drop(t);
        assert!(!state().groups.contains(&pgid));
        let until = Instant::now() + Duration::from_secs(5);
        while group_alive(pgid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            !group_alive(pgid),
            "the background sleep of the group is gone"
        );
    }
}
