//! Command glue for `pwk show`.

use super::roles::*;
use crate::cli::{Format, ShowArgs};
use crate::discover::render::{self};
use crate::discover::{Discovery, HostId};
use crate::display::write_stdout;
use crate::{Context, ExitStatus};

/// `pwk show NAME`: exit 0; 1 when the name exists but the host cannot load it;
/// 2 when nothing answers to the name.
#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &ShowArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let (project, views) = super::discover(
        ctx,
        super::ProjectFlags {
            dir: args.dir.as_deref(),
            host: args.host.as_ref(),
            config: args.config.file.as_deref(),
        },
    )?;
    let found = crate::discover::find_in(&views, &args.name);
    let Some(&(d, role)) = found.first() else {
        return show_unavailable(&views, &args.name, args.format, ctx);
    };
    let also = render::AlsoRead::others(&found, &ctx.cwd);
    let rt = render::runtime_of(d, role, args.model.as_deref(), &ctx.env, &project.cwd);
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
    for line in crate::verify::installed::newer_than_facts(
        [d.host.label().as_str()],
        &[],
        ctx.env.path.as_ref(),
    ) {
        crate::display::eprintln_safe(&format!("pwk: note: {line}"));
    }
    match args.format {
        Format::Json => {
            let run = provider_run
                .as_ref()
                .map(|r| serde_json::to_value(r).expect("plain data serializes"));
            let mut doc = render::show_doc(d, role, &rt, &also, &ctx.cwd, run);
            if let Some(c) = &model_check {
                doc["model_check"] = serde_json::to_value(c).expect("plain data serializes");
            }
            write_stdout(&json_line(&doc)?)?
        }
        Format::Human => {
            let mut text = render::show_human(d, role, &rt, &also, style(ctx));
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

/// No effective definition answers to `name` under any host of `views`: explain
/// why (under the first host that has a file by that name it does not load), or
/// suggest names.
pub(super) fn show_unavailable(
    views: &[Discovery],
    name: &str,
    format: Format,
    ctx: &Context,
) -> anyhow::Result<ExitStatus> {
    if let Some(d) = views.iter().find(|d| !d.unloaded(name).is_empty()) {
        return show_unloaded(d, name, format, ctx);
    }
    let mut msg = format!("no role named `{name}`");
    if let [only] = views
        && only.host.host != HostId::Pwk
    {
        msg.push_str(&format!(" (as {} sees roles)", only.host.as_str()));
    } else if views.len() > 1 {
        let hosts: Vec<&str> = views.iter().map(|d| d.host.as_str()).collect();
        msg.push_str(&format!(" (as {} see roles)", hosts.join(", ")));
    }
    let mut hints: Vec<String> = Vec::new();
    for d in views {
        let host = d.host.as_str();
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
    }
    hints.dedup();
    let known = crate::discover::known_names(views);
    let suggestions = crate::suggest::close_matches(name, known.iter().copied());
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

/// `name` is a file `d`'s host does not load (broken, or in a directory it does not
/// read): say which and why; exit 1.
fn show_unloaded(
    d: &Discovery,
    name: &str,
    format: Format,
    ctx: &Context,
) -> anyhow::Result<ExitStatus> {
    let host = d.host.as_str();
    let files = d.unloaded(name);
    {
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
                // The name and the paths are the user's and the files' text.
                let text = crate::text::escape_block(&text);
                write_stdout(tilde(&text, ctx).as_bytes())?;
            }
        }
        Ok(ExitStatus::Failure)
    }
}
