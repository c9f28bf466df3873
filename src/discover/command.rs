//! Command glue for `pwk list`, `show`, `new` and `smoke`.

use std::path::PathBuf;

use anyhow::Context as _;

use super::render::{self, Style};
use super::runtime::{RuntimeInputs, resolve_runtime};
use super::template::{self, Kind};
use super::{Discovery, Host, resolve};
use crate::cli::{Format, ListArgs, NewArgs, ShowArgs, SmokeArgs};
use crate::context::write_stdout;
use crate::{Context, ExitStatus};

fn json_line(value: &impl serde::Serialize) -> anyhow::Result<Vec<u8>> {
    let mut out = serde_json::to_vec_pretty(value).context("cannot encode the JSON output")?;
    out.push(b'\n');
    Ok(out)
}

/// Colour and width for human output on stdout: the terminal's width clamped to
/// 80..=100 columns, or 100 when stdout is not a terminal.
fn style(ctx: &Context) -> Style {
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
fn tilde(text: &str, ctx: &Context) -> String {
    match &ctx.env.home {
        Some(home) if home.parent().is_some() => {
            text.replace(&format!("{}/", home.display()), "~/")
        }
        _ => text.to_string(),
    }
}

/// `pwk list`: exit 0, or 1 when a role file is broken.
pub fn list(args: &ListArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let d = resolve(ctx, Host::from(args.host));
    let rows = render::list_rows(&d, args.all);
    match args.format {
        Format::Json => {
            let doc = render::ListJson {
                version: 1,
                host: d.host,
                project_root: d.project_root.display().to_string(),
                roles: &rows,
                searched: render::searched(&d),
                notes: &d.notes,
            };
            write_stdout(&json_line(&doc)?)?;
        }
        Format::Human => {
            let text = render::list_human(&d, &rows, args.all, style(ctx));
            write_stdout(tilde(&text, ctx).as_bytes())?;
        }
    }
    Ok(if d.has_broken() {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// `pwk show NAME`: exit 0; 1 when the name exists but the host cannot load it;
/// 2 when nothing answers to the name.
pub fn show(args: &ShowArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let host = Host::from(args.host);
    let d = resolve(ctx, host);
    let Some(role) = d.find(&args.name) else {
        return show_unavailable(&d, &args.name, args.format, ctx);
    };
    let agent_dir = ctx.env.agent_dir();
    let inputs = RuntimeInputs {
        host,
        explicit_model: args.model.as_deref(),
        agent_dir: agent_dir.as_deref(),
        cwd: &ctx.cwd,
    };
    let rt = resolve_runtime(role, &inputs);
    match args.format {
        Format::Json => {
            let doc = render::ShowJson {
                version: 1,
                host,
                name: &role.name,
                description: role.role.description.as_deref(),
                source: role.layer,
                path: role.path.display(&ctx.cwd),
                shadows: &role.shadows,
                hidden: role.hidden,
                host_notes: &role.notes,
                error: super::first_problem(&role.doc),
                frontmatter: role.doc.mapping().map(|m| m.to_json()).unwrap_or_default(),
                frontmatter_text: render::frontmatter_text(role),
                body: role.doc.body(),
                runtime: &rt,
            };
            write_stdout(&json_line(&doc)?)?;
        }
        Format::Human => {
            let text = render::show_human(&d, role, &rt, style(ctx));
            write_stdout(tilde(&text, ctx).as_bytes())?;
        }
    }
    Ok(ExitStatus::Success)
}

/// No effective definition answers to `name`: explain why, or suggest names.
fn show_unavailable(
    d: &Discovery,
    name: &str,
    format: Format,
    ctx: &Context,
) -> anyhow::Result<ExitStatus> {
    let host = d.host.as_str();
    let files = d.unloaded(name);
    if !files.is_empty() {
        let reasons: Vec<(String, &super::RoleFile)> = files
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
    if d.host != Host::Pwk {
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
    let suggestions = did_you_mean(
        name,
        &d.roles.iter().map(|r| r.name.clone()).collect::<Vec<_>>(),
    );
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
    crate::context::eprintln_safe(&tilde(&format!("pwk: error: {msg}"), ctx));
    Ok(ExitStatus::Error)
}

/// Up to three known names close to `name`, best first.
pub fn did_you_mean(name: &str, known: &[String]) -> Vec<String> {
    let lower = name.to_ascii_lowercase();
    let mut scored: Vec<(f64, &String)> = known
        .iter()
        .filter_map(|k| {
            let kl = k.to_ascii_lowercase();
            let mut score = strsim::jaro_winkler(&lower, &kl);
            if lower.len() >= 3 && kl.contains(&lower) {
                score = score.max(0.9);
            }
            (score >= 0.8).then_some((score, k))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    // Only the names about as close as the best one.
    let best = scored.first().map(|(s, _)| *s).unwrap_or_default();
    scored
        .into_iter()
        .filter(|(s, _)| *s >= best - 0.03)
        .take(3)
        .map(|(_, k)| k.clone())
        .collect()
}

/// `pwk new NAME`: exit 0 when written; 2 for a bad name, an existing file or an I/O error.
pub fn new(args: &NewArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    template::validate_name(&args.name)?;
    let kind = Kind::from(args.kind);
    let dir = match &args.dir {
        Some(d) if d.is_absolute() => d.clone(),
        Some(d) => ctx.cwd.join(d),
        None => ctx.cwd.join(".agents").join("agents"),
    };
    let file_name = format!("{}.md", args.name);
    let target: PathBuf = dir.join(&file_name);
    if std::fs::symlink_metadata(&target).is_ok() {
        anyhow::bail!(
            "{} already exists; `pwk new` never overwrites a file (edit it, remove it, or choose another name)",
            ctx.display_path(&target)
        );
    }
    let content = template::render(&args.name, kind);
    let path = crate::install::safe::create_file_exclusive(&dir, &file_name, content.as_bytes())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let shown = ctx.display_path(&path);
    let mut text = format!("Created {shown} ({} role).\n", kind.as_str());

    // Where the new file stands among the layers pwk reads.
    let d = resolve(ctx, Host::Pwk);
    let read_here = d
        .sources
        .iter()
        .any(|s| s.path.as_deref().is_some_and(|p| same_path(p, &dir)));
    match d.find(&args.name) {
        Some(r) if r.path.as_file().is_some_and(|p| same_path(p, &path)) => {
            for s in &r.shadows {
                text.push_str(&format!("It shadows {} ({}).\n", s.path, s.source.as_str()));
            }
        }
        Some(r) if read_here => {
            text.push_str(&format!(
                "note: {} ({}) wins over it: a higher-priority definition of `{}` exists.\n",
                r.path.display(&ctx.cwd),
                r.layer.as_str(),
                args.name
            ));
        }
        _ => {}
    }
    if !read_here {
        text.push_str(&format!(
            "note: roles are discovered in .agents/agents/ and .pi/agents/ of the project, and in the global agents directory; {} is none of them.\n",
            ctx.display_path(&dir)
        ));
    }
    text.push_str(&format!(
        "Next: replace the description and the body, then run `pwk lint {shown}` and `pwk show {}`.\n",
        args.name
    ));
    write_stdout(tilde(&text, ctx).as_bytes())?;
    Ok(ExitStatus::Success)
}

/// Whether two paths name the same file or directory (`..` and symlinked parents
/// resolved when both exist).
fn same_path(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

pub fn smoke(_args: &SmokeArgs, _ctx: &Context) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("`pwk smoke` is not built yet")
}
