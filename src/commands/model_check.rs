//! What `show` and `smoke` say about the model a role really runs on: its `model`
//! resolved against `pi --list-models` and pi's `enabledModels` (the one reader,
//! [`crate::pi::models::scope_for`]), and the host's fallback when it does not resolve.

use std::path::Path;

use crate::Context;
use crate::pi::models::ModelCheck;

/// The check of `hint` (the model the chain settles on), or `None` when there is no
/// model to check. pi missing or failing is an unchecked result that says why.
pub(super) fn check(
    ctx: &Context,
    cwd: &Path,
    hint: Option<&str>,
    thinking: Option<&str>,
    host: &crate::host::HostProfile,
) -> Option<ModelCheck> {
    let hint = hint.map(str::trim).filter(|h| !h.is_empty())?;
    let program = match crate::pi::locate(&ctx.env) {
        Ok(p) => p,
        Err(e) => return Some(ModelCheck::unchecked(hint, &e.to_string())),
    };
    let agent_dir = ctx.env.agent_dir();
    match crate::pi::models::scope_for(&program, agent_dir.as_deref(), cwd) {
        Ok(scope) => {
            let on = &host.unresolvable_model.note;
            Some(ModelCheck::of(
                &scope,
                hint,
                thinking,
                &host.label(),
                on,
                on.starts_with("refuses"),
            ))
        }
        Err(why) => Some(ModelCheck::unchecked(hint, &why)),
    }
}

/// The human lines (indented under the runtime block).
pub(super) fn human(c: &ModelCheck) -> String {
    let status = match (c.checked, c.resolves, c.in_enabled_models) {
        (false, _, _) => "not checked",
        (true, true, Some(false)) => "resolves, outside enabledModels",
        (true, true, _) => "resolves",
        (true, false, _) => "does not resolve",
    };
    let mut s = format!(
        "\nThe model that runs:\n  model       {} ({status})\n",
        crate::text::escape_line(&c.hint)
    );
    if let Some(r) = &c.runs {
        s.push_str(&format!("  runs        {}\n", crate::text::escape_line(r)));
    }
    if let Some(t) = &c.thinking_runs {
        s.push_str(&format!("  thinking    {}\n", crate::text::escape_line(t)));
    }
    s.push_str(&format!(
        "  note        {}\n",
        crate::text::escape_line(&c.note)
    ));
    s
}
