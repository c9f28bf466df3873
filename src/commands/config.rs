//! `pwk config`: the effective lint configuration for a path, and where each
//! value came from (a flag, `file:line:col`, or the default).

use std::path::{Path, PathBuf};

use crate::cli::{ConfigArgs, Format};
use crate::config::{Configs, Origin, Val};
use crate::context::write_stdout;
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
    let mut configs = Configs::new(ctx.env.home.as_deref());
    let shown = |p: &Path| ctx.display_path(p);
    let origin = |o: &Origin| match o {
        Origin::File { path, line, column } => format!("{}:{line}:{column}", shown(path)),
        other => other.to_string(),
    };
    let resolved = configs
        .resolve(&path)
        .map_err(|e| anyhow::anyhow!(e.relative_to(&ctx.cwd)))?
        .with_host_flag(args.host.as_ref());
    let config = configs.for_path(&path)?;
    let globs = |v: Option<&Val<Vec<crate::config::Glob>>>| -> (Vec<String>, String) {
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
            let doc = serde_json::json!({
                "path": shown(&path),
                "config": resolved.file.as_deref().map(shown),
                "extends": resolved.extends.iter().map(|p| shown(p)).collect::<Vec<_>>(),
                "host": {"value": host_text(&resolved.host.value), "from": origin(&resolved.host.origin)},
                "paths": {"value": paths, "from": paths_from},
                "exclude": {"value": exclude, "from": exclude_from},
                "rules": rules,
            });
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
            let mut rule_lines = Vec::new();
            for (id, v) in &resolved.rules {
                rule_lines.push((format!("{id} = {}", q(v.value.as_str())), origin(&v.origin)));
            }
            let width = lines
                .iter()
                .chain(&rule_lines)
                .map(|(l, _)| l.len())
                .max()
                .unwrap_or(0);
            let mut out = format!(
                "# The effective configuration for `{}`\n# config: {}\n",
                shown(&path),
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
                out.push_str(&format!("{l:width$}  # {from}\n"));
            }
            out.push_str("\n[rules]\n");
            if rule_lines.is_empty() {
                out.push_str("# none set: every rule has its default severity (`pwk rules`)\n");
            }
            for (l, from) in &rule_lines {
                out.push_str(&format!("{l:width$}  # {from}\n"));
            }
            crate::text::escape_block(&out).into_owned()
        }
    };
    write_stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}
