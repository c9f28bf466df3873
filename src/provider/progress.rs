//! The live per-role progress display on stderr.
//!
//! On a terminal: one line per role (state, turns, tool calls, elapsed time),
//! redrawn in place. Otherwise: one plain line per state change (started, done),
//! so logs stay readable and turn-by-turn noise stays out.

use std::io::Write;
use std::sync::Mutex;
use std::time::Instant;

use super::execute::{RoleProgress, RoleState};
use super::request::{LogicalRole, Status};

struct Row {
    role: LogicalRole,
    state: RoleState,
    turns: u32,
    tool_calls: u32,
    started: Option<Instant>,
    finished: Option<Instant>,
}

/// A progress sink that renders to stderr.
pub(crate) struct ProgressDisplay {
    tty: bool,
    color: bool,
    rows: Mutex<(Vec<Row>, bool)>,
}

impl ProgressDisplay {
    /// `tty`: redraw in place; `color`: colour the states.
    pub(crate) fn new(roles: &[LogicalRole], tty: bool, color: bool) -> ProgressDisplay {
        let rows = roles
            .iter()
            .map(|&role| Row {
                role,
                state: RoleState::Queued,
                turns: 0,
                tool_calls: 0,
                started: None,
                finished: None,
            })
            .collect();
        ProgressDisplay {
            tty,
            color,
            rows: Mutex::new((rows, false)),
        }
    }

    /// Take one update (called from worker threads).
    pub(crate) fn update(&self, p: &RoleProgress) {
        let mut guard = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        let (rows, drawn) = &mut *guard;
        let Some(row) = rows.get_mut(p.index) else {
            return;
        };
        let changed_state = row.state != p.state;
        if p.state == RoleState::Running && row.started.is_none() {
            row.started = Some(Instant::now());
        }
        if matches!(p.state, RoleState::Done(_)) && row.finished.is_none() {
            row.finished = Some(Instant::now());
        }
        row.state = p.state.clone();
        row.turns = p.turns;
        row.tool_calls = p.tool_calls;
        if self.tty {
            self.redraw(rows, drawn);
        } else if changed_state && p.state != RoleState::Queued {
            crate::display::eprintln_safe(&self.render(row));
        }
    }

    /// Redraw the rows in place (terminal only), so elapsed times keep moving
    /// while a role is quiet. Called periodically by the command.
    pub(crate) fn tick(&self) {
        if !self.tty {
            return;
        }
        let mut guard = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        let (rows, drawn) = &mut *guard;
        if *drawn {
            self.redraw(rows, drawn);
        }
    }

    fn redraw(&self, rows: &[Row], drawn: &mut bool) {
        let mut out = String::new();
        if *drawn {
            out.push_str(&format!("\x1b[{}A", rows.len()));
        }
        for row in rows {
            out.push_str("\x1b[2K");
            out.push_str(&self.render(row));
            out.push('\n');
        }
        *drawn = true;
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(out.as_bytes());
        let _ = err.flush();
    }

    fn render(&self, row: &Row) -> String {
        let (word, code) = match &row.state {
            RoleState::Queued => ("queued", "2"),
            RoleState::Running => ("running", "36"),
            RoleState::Done(Status::Completed) => ("completed", "32"),
            RoleState::Done(Status::Failed) => ("failed", "31"),
            RoleState::Done(Status::TimedOut) => ("timed-out", "31"),
            RoleState::Done(Status::Skipped) => ("skipped", "33"),
        };
        let state = if self.color {
            format!("\x1b[{code}m{word:<9}\x1b[0m")
        } else {
            format!("{word:<9}")
        };
        let elapsed = match (row.started, row.finished) {
            (Some(s), Some(f)) => format!("  {:.1}s", f.duration_since(s).as_secs_f64()),
            (Some(s), None) => format!("  {:.1}s", s.elapsed().as_secs_f64()),
            _ => String::new(),
        };
        let counts = if row.state == RoleState::Queued {
            String::new()
        } else {
            format!("  turns {:>2}  tool calls {:>3}", row.turns, row.tool_calls)
        };
        format!("  {:<21} {state}{counts}{elapsed}", row.role.name())
    }
}
