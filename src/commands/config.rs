//! `pwk config`: the effective lint configuration for a path, and where each
//! value came from (a flag, `file:line:col`, or the default).

use std::path::{Path, PathBuf};

use crate::cli::{ConfigArgs, Format};
use crate::config::{Origin, Val};
use crate::display::write_stdout;
use crate::host::HostChoice;
use crate::{Context, ExitStatus};

fn host_text(h: &HostChoice) -> String {
    match h {
        HostChoice::Auto => "auto".into(),
        HostChoice::Spec(s) => match &s.version {
            Some(v) => format!("{}@{v}", s.host),
            None => s.host.to_string(),
        },
    }
}

pub fn run(args: &ConfigArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    let path = args.path.clone().unwrap_or_else(|| PathBuf::from("."));
    if std::fs::symlink_metadata(&path).is_err() {
        anyhow::bail!("`{}` does not exist", ctx.display_path(&path));
    }
    let project = super::open_project(
        ctx,
        super::ProjectFlags {
            host: args.host.as_ref(),
            config: args.config.file.as_deref(),
            ..Default::default()
        },
    )?;
    let shown = |p: &Path| ctx.display_path(p);
    let origin = |o: &Origin| match o {
        Origin::File { path, line, column } => format!("{}:{line}:{column}", shown(path)),
        other => other.to_string(),
    };
    let resolved = project
        .resolve(&path)
        .map_err(|e| super::config_error(ctx, e))?;
    let config = project
        .config_for(&path)
        .map_err(|e| super::config_error(ctx, e))?;
    let config = config.as_ref();
    // The profile the path is linted for, and why (as `pwk lint` decides it).
    let chosen = {
        let abs = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
        let dir = if abs.is_dir() {
            abs.as_path()
        } else {
            abs.parent().unwrap_or(&abs)
        };
        project.host_in(&resolved.host.value, dir)
    };
    let root_shown = if project.root == ctx.cwd {
        ".".to_string()
    } else {
        shown(&project.root)
    };
    let profile_why = match &chosen.detection {
        Some(d) => format!("auto: {}", d.reason_from(&ctx.cwd)),
        None => origin(&resolved.host.origin),
    };
    let globs = |v: Option<&Val<crate::config::Globs>>| -> (Vec<String>, String) {
        match v {
            Some(v) => (
                v.value.iter().map(|g| g.pattern.clone()).collect(),
                origin(&v.origin),
            ),
            None => (Vec::new(), "default".into()),
        }
    };
    let (paths, paths_from) = globs(config.and_then(|c| c.paths()));
    let (exclude, exclude_from) = globs(config.and_then(|c| c.exclude()));
    // `baseline`, shown from the current directory (the file says it relative to
    // itself); `pwk lint --baseline` beats it.
    let baseline = config
        .and_then(|c| c.baseline())
        .map(|b| (shown(&b.value), origin(&b.origin)));
    // `[delegate] budget`, shown when set (with the request's key names in JSON).
    let budget = config.and_then(|c| c.delegate_budget());
    let text = match args.format {
        Format::Json => {
            let rules: serde_json::Map<String, serde_json::Value> = resolved
                .rules
                .iter()
                .map(|(id, v)| {
                    (
                        id.clone(),
                        serde_json::json!({"level": v.value, "from": origin(&v.origin)}),
                    )
                })
                .collect();
            let mut doc = serde_json::json!({
                "version": 1,
                "path": shown(&path),
                "root": root_shown,
                "profile": {"value": chosen.profile.label(), "why": profile_why},
                "config": resolved.file.as_deref().map(shown),
                "extends": resolved.extends.iter().map(|p| shown(p)).collect::<Vec<_>>(),
                "host": {"value": host_text(&resolved.host.value), "from": origin(&resolved.host.origin)},
                "paths": {"value": paths, "from": paths_from},
                "exclude": {"value": exclude, "from": exclude_from},
                "baseline": match &baseline {
                    Some((path, from)) => serde_json::json!({"value": path, "from": from}),
                    None => serde_json::json!({"value": null, "from": "default"}),
                },
                "rules": rules,
            });
            if let Some(b) = budget {
                doc["delegate"] =
                    serde_json::json!({"budget": {"value": b.value, "from": origin(&b.origin)}});
            }
            format!(
                "{}\n",
                crate::text::json_escape_controls(serde_json::to_string_pretty(&doc)?)
            )
        }
        Format::Human => {
            let q = |s: &str| serde_json::Value::from(s).to_string();
            let list = |v: &[String]| {
                format!(
                    "[{}]",
                    v.iter().map(|s| q(s)).collect::<Vec<_>>().join(", ")
                )
            };
            let mut lines: Vec<(String, String)> = Vec::new();
            lines.push((
                format!("host = {}", q(&host_text(&resolved.host.value))),
                origin(&resolved.host.origin),
            ));
            lines.push((format!("paths = {}", list(&paths)), paths_from));
            lines.push((format!("exclude = {}", list(&exclude)), exclude_from));
            if let Some((path, from)) = &baseline {
                lines.push((format!("baseline = {}", q(path)), from.clone()));
            }
            let mut rule_lines = Vec::new();
            for (id, v) in &resolved.rules {
                rule_lines.push((format!("{id} = {}", q(v.value.as_str())), origin(&v.origin)));
            }
            // The `# origin` comments line up, up to a column: a longer value (a
            // 65,536-character glob) is not padded to, and pads nothing.
            let width = lines
                .iter()
                .chain(&rule_lines)
                .map(|(l, _)| l.chars().count())
                .filter(|&n| n <= ALIGN_MAX)
                .max()
                .unwrap_or(0);
            let mut out = format!(
                "# The effective configuration for `{}`\n# project root: {}\n# linted for: {} ({})\n# config: {}\n",
                shown(&path),
                root_shown,
                chosen.profile.label(),
                profile_why,
                match &resolved.file {
                    Some(f) => {
                        let mut s = shown(f);
                        for e in resolved.extends.iter().rev() {
                            s.push_str(&format!(", extends {}", shown(e)));
                        }
                        s
                    }
                    None => "none (no pwk.toml or .pwk.toml up to the project root)".into(),
                }
            );
            for (l, from) in &lines {
                out.push_str(&format!("{}  # {from}\n", padded(l, width)));
            }
            out.push_str("\n[rules]\n");
            if rule_lines.is_empty() {
                out.push_str("# none set: every rule has its default severity (`pwk rules`)\n");
            }
            for (l, from) in &rule_lines {
                out.push_str(&format!("{}  # {from}\n", padded(l, width)));
            }
            if let Some(b) = budget {
                let mut parts = Vec::new();
                if let Some(n) = b.value.max_tokens {
                    parts.push(format!("max_tokens = {n}"));
                }
                if let Some(c) = b.value.max_cost_usd {
                    parts.push(format!("max_cost_usd = {c}"));
                }
                if let Some(w) = b.value.max_wall_seconds {
                    parts.push(format!("max_wall_seconds = {w}"));
                }
                if let Some(p) = b.value.on_unknown_usage {
                    let p = serde_json::to_value(p).unwrap_or_default();
                    parts.push(format!("on_unknown_usage = {p}"));
                }
                out.push_str(&format!(
                    "\n[delegate]\nbudget = {{ {} }}  # {}\n",
                    parts.join(", "),
                    origin(&b.origin)
                ));
            }
            crate::text::escape_block(&out).into_owned()
        }
    };
    write_stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}

/// The column the `# origin` comments of `pwk config` line up at, at most.
const ALIGN_MAX: usize = 60;

/// `line` padded with spaces to `width` characters (a longer one as it is). Not
/// `{:width$}`: a format width is at most 65,535.
fn padded(line: &str, width: usize) -> String {
    let n = line.chars().count();
    format!("{line}{}", " ".repeat(width.saturating_sub(n)))
}
