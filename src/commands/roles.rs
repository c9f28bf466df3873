//! What the role commands (`list`, `show`, `new`, `smoke`) share: JSON lines, the
//! human style, `~/` paths.

use anyhow::Context as _;

use crate::Context;
use crate::discover::render::{self, Style};

pub(super) fn json_line(value: &impl serde::Serialize) -> anyhow::Result<Vec<u8>> {
    let text = serde_json::to_string_pretty(value).context("cannot encode the JSON output")?;
    let mut out = crate::text::json_escape_controls(text).into_bytes();
    out.push(b'\n');
    Ok(out)
}

/// Colour and width for human output on stdout: the terminal's width clamped to
/// 80..=100 columns, or 100 when stdout is not a terminal.
pub(super) fn style(ctx: &Context) -> Style {
    use std::io::IsTerminal;
    let stdout = std::io::stdout();
    let width = if stdout.is_terminal() {
        rustix::termios::tcgetwinsize(&stdout)
            .map(|w| usize::from(w.ws_col).clamp(80, render::WIDTH))
            .unwrap_or(render::WIDTH)
    } else {
        render::WIDTH
    };
    Style {
        color: ctx.color_stdout,
        width,
    }
}

/// Human output: absolute paths under `$HOME` as `~/…` (paths under the current
/// directory are already relative).
pub(super) fn tilde(text: &str, ctx: &Context) -> String {
    match &ctx.env.home {
        Some(home) if home.parent().is_some() => {
            text.replace(&format!("{}/", home.display()), "~/")
        }
        _ => text.to_string(),
    }
}
