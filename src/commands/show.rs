//! Command glue for `pwk show`.

use super::roles::*;
use crate::cli::{Format, ShowArgs};
use crate::discover::render::{self};
use crate::discover::{Discovery, HostId};
use crate::display::write_stdout;
use crate::{Context, ExitStatus};

/// `pwk show NAME`: exit 0; 1 when the name exists but the host cannot load it;
/// 2 when nothing answers to the name.
pub fn run(args: &ShowArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let (project, d) = super::discover(
        ctx,
        super::ProjectFlags {
            dir: args.dir.as_deref(),
            host: args.host.as_ref(),
            config: args.config.file.as_deref(),
        },
    )?;
    let Some(role) = d.find(&args.name) else {
        return show_unavailable(&d, &args.name, args.format, ctx);
    };
    let rt = render::runtime_of(&d, role, args.model.as_deref(), &ctx.env, &project.cwd);
    let provider_run = crate::provider::mapping::provider_run(&role.name, role.role.max_turns);
    // The model the chain settles on, against what pi lists on this machine (only
    // where the child runs on pi: another host's models are not pi's).
    let model_check = d
        .host
        .host
        .is_pi()
        .then(|| {
            super::model_check::check(
                ctx,
                &project.cwd,
                rt.model.effective.as_deref(),
                rt.thinking.value.as_deref(),
                d.host,
            )
        })
        .flatten();
    match args.format {
        Format::Json => {
            let run = provider_run
                .as_ref()
                .map(|r| serde_json::to_value(r).expect("plain data serializes"));
            let mut doc = render::show_doc(&d, role, &rt, &ctx.cwd, run);
            if let Some(c) = &model_check {
                doc["model_check"] = serde_json::to_value(c).expect("plain data serializes");
            }
            write_stdout(&json_line(&doc)?)?
        }
        Format::Human => {
            let mut text = render::show_human(&d, role, &rt, style(ctx));
            if let Some(c) = &model_check {
                text.push_str(&super::model_check::human(c));
            }
            if let Some(run) = &provider_run {
                text.push_str(&provider_run_human(run));
            }
            write_stdout(tilde(&text, ctx).as_bytes())?;
        }
    }
    Ok(ExitStatus::Success)
}

/// How `pwk review` / `pwk recon` run a contract role, for people.
pub(super) fn provider_run_human(run: &crate::provider::mapping::ProviderRun) -> String {
    format!(
        "\nAs `{}` runs it:\n  transport   {}\n  budget      {} turns (from {}); at the budget: {}\n",
        run.command, run.transport, run.turn_budget, run.budget_from, run.at_budget
    )
}

/// No effective definition answers to `name`: explain why, or suggest names.
pub(super) fn show_unavailable(
    d: &Discovery,
    name: &str,
    format: Format,
    ctx: &Context,
) -> anyhow::Result<ExitStatus> {
    let host = d.host.as_str();
    let files = d.unloaded(name);
    if !files.is_empty() {
        let reasons: Vec<(String, &crate::discover::RoleFile)> = files
            .iter()
            .map(|f| {
                let source = d.source(f.source);
                let why = if !f.loadable {
                    format!(
                        "broken: {}",
                        f.problem.as_deref().unwrap_or("cannot be loaded")
                    )
                } else {
                    format!(
                        "not read by {host}: {}",
                        source.unread_reason.as_deref().unwrap_or_default()
                    )
                };
                (why, *f)
            })
            .collect();
        match format {
            Format::Json => {
                let files: Vec<serde_json::Value> = reasons
                    .iter()
                    .map(|(why, f)| {
                        serde_json::json!({
                            "path": f.path.display(&d.cwd),
                            "source": f.layer,
                            "broken": !f.loadable,
                            "error": f.problem,
                            "reason": why,
                        })
                    })
                    .collect();
                let doc = serde_json::json!({
                    "version": 1, "host": d.host, "name": name, "available": false, "files": files,
                });
                write_stdout(&json_line(&doc)?)?;
            }
            Format::Human => {
                let mut text = format!("`{name}` is not available to {host}:\n");
                for (why, f) in &reasons {
                    text.push_str(&format!(
                        "  {} ({})\n    {why}\n",
                        f.path.display(&d.cwd),
                        f.layer.as_str()
                    ));
                }
                write_stdout(tilde(&text, ctx).as_bytes())?;
            }
        }
        return Ok(ExitStatus::Failure);
    }

    let mut msg = format!("no role named `{name}`");
    if d.host.host != HostId::Pwk {
        msg.push_str(&format!(" (as {host} sees roles)"));
    }
    let mut hints: Vec<String> = Vec::new();
    for f in &d.files {
        let declared = f.role.as_ref().and_then(|r| r.name.as_deref());
        if declared == Some(name) && f.identity != name {
            hints.push(format!(
                "{} declares `name: {name}`, but {host} knows it by its file stem `{}`",
                f.path.display(&d.cwd),
                f.identity
            ));
        } else if f.stem == name && f.identity != name {
            hints.push(format!(
                "{} is named `{}` by its `name`, not after its file",
                f.path.display(&d.cwd),
                f.identity
            ));
        }
    }
    let suggestions = crate::suggest::close_matches(name, d.roles.iter().map(|r| r.name.as_str()));
    for h in hints {
        msg.push_str(&format!("\n  hint: {h}"));
    }
    match suggestions.as_slice() {
        [] => msg.push_str("\n  `pwk list --all` shows every role"),
        [one] => msg.push_str(&format!("\n  did you mean `{one}`?")),
        many => {
            let list: Vec<String> = many.iter().map(|s| format!("`{s}`")).collect();
            msg.push_str(&format!("\n  did you mean one of {}?", list.join(", ")));
        }
    }
    anyhow::bail!("{}", tilde(&msg, ctx))
}
