//! Process groups: signal one, ask whether any of it is left, kill one and wait.
//! The primitives under [`super::children`] (the registry of pwk's children) and
//! [`super::process`] (stopping and capturing one child).

use std::time::{Duration, Instant};

pub(crate) use rustix::process::Signal;

fn pid(pgid: u32) -> Option<rustix::process::Pid> {
    i32::try_from(pgid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
}

/// Send `sig` to process group `pgid`; ESRCH (nothing left) is ignored.
pub(crate) fn signal_group(pgid: u32, sig: Signal) {
    if let Some(pid) = pid(pgid) {
        let _ = rustix::process::kill_process_group(pid, sig);
    }
}

/// Whether any process of group `pgid` is left (zombies count until reaped).
pub(crate) fn group_alive(pgid: u32) -> bool {
    pid(pgid).is_some_and(|p| rustix::process::test_kill_process_group(p).is_ok())
}

/// SIGKILL group `pgid` and wait (at most `limit`) until none of it is left;
/// returns whether the group is gone. For a group whose leader's status pwk has
/// already taken: each time round, the group's zombies that are pwk's children (a tool
/// child orphaned while pwk is the subreaper) are reaped, so they never count as
/// "still there" (N34: every run that SIGKILLed a TERM-ignoring tool child
/// waited the whole limit and warned). Only members of `pgid` are reaped: never
/// another run's child, never pi before its status was read.
pub(crate) fn kill_reap_group_and_wait(pgid: u32, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    loop {
        signal_group(pgid, Signal::KILL);
        if let Some(p) = pid(pgid) {
            while let Ok(Some(_)) =
                rustix::process::waitpgid(p, rustix::process::WaitOptions::NOHANG)
            {}
        }
        if !group_alive(pgid) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
