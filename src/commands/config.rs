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

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
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
        let abs = crate::fs::absolute(&path);
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
    let shown_config = Effective {
        path: shown(&path),
        root: root_shown,
        profile: chosen.profile.label(),
        profile_why,
        file: resolved.file.as_deref().map(shown),
        extends: resolved.extends.iter().map(|p| shown(p)).collect(),
        host: (
            host_text(&resolved.host.value),
            origin(&resolved.host.origin),
        ),
        paths: globs(config.and_then(|c| c.paths())),
        exclude: globs(config.and_then(|c| c.exclude())),
        // Shown from the current directory (the file says it relative to itself);
        // `pwk lint --baseline` beats it.
        baseline: config
            .and_then(|c| c.baseline())
            .map(|b| (shown(&b.value), origin(&b.origin))),
        rules: resolved
            .rules
            .iter()
            .map(|(id, v)| (id.as_str(), v.value, origin(&v.origin)))
            .collect(),
        // `[delegate] budget`, shown when set (with the request's key names in JSON).
        budget: config
            .and_then(|c| c.delegate_budget())
            .map(|b| (&b.value, origin(&b.origin))),
    };
    let text = match args.format {
        Format::Json => format!(
            "{}\n",
            crate::text::json_escape_controls(serde_json::to_string_pretty(&shown_config.json())?)
        ),
        Format::Human => crate::text::escape_block(&shown_config.human()).into_owned(),
    };
    write_stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}

/// The effective configuration for a path, every value as shown with where it came
/// from (`file:line:col`, a flag, or `default`).
struct Effective<'a> {
    path: String,
    root: String,
    profile: String,
    profile_why: String,
    file: Option<String>,
    extends: Vec<String>,
    host: (String, String),
    paths: (Vec<String>, String),
    exclude: (Vec<String>, String),
    baseline: Option<(String, String)>,
    rules: Vec<(&'a str, crate::lint::RuleLevel, String)>,
    budget: Option<(&'a crate::delegate::Budget, String)>,
}

impl Effective<'_> {
    fn json(&self) -> serde_json::Value {
        let rules: serde_json::Map<String, serde_json::Value> = self
            .rules
            .iter()
            .map(|(id, level, from)| {
                (
                    id.to_string(),
                    serde_json::json!({"level": level, "from": from}),
                )
            })
            .collect();
        let mut doc = serde_json::json!({
            "version": 1,
            "path": self.path,
            "root": self.root,
            "profile": {"value": self.profile, "why": self.profile_why},
            "config": self.file,
            "extends": self.extends,
            "host": {"value": self.host.0, "from": self.host.1},
            "paths": {"value": self.paths.0, "from": self.paths.1},
            "exclude": {"value": self.exclude.0, "from": self.exclude.1},
            "baseline": match &self.baseline {
                Some((path, from)) => serde_json::json!({"value": path, "from": from}),
                None => serde_json::json!({"value": null, "from": "default"}),
            },
            "rules": rules,
        });
        if let Some((b, from)) = &self.budget {
            doc["delegate"] = serde_json::json!({"budget": {"value": b, "from": from}});
        }
        doc
    }

    fn human(&self) -> String {
        let q = |s: &str| serde_json::Value::from(s).to_string();
        let list = |v: &[String]| {
            format!(
                "[{}]",
                v.iter().map(|s| q(s)).collect::<Vec<_>>().join(", ")
            )
        };
        let mut lines: Vec<(String, String)> = Vec::new();
        lines.push((format!("host = {}", q(&self.host.0)), self.host.1.clone()));
        lines.push((
            format!("paths = {}", list(&self.paths.0)),
            self.paths.1.clone(),
        ));
        lines.push((
            format!("exclude = {}", list(&self.exclude.0)),
            self.exclude.1.clone(),
        ));
        if let Some((path, from)) = &self.baseline {
            lines.push((format!("baseline = {}", q(path)), from.clone()));
        }
        let mut rule_lines = Vec::new();
        for (id, level, from) in &self.rules {
            rule_lines.push((format!("{id} = {}", q(level.as_str())), from.clone()));
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
            self.path,
            self.root,
            self.profile,
            self.profile_why,
            match &self.file {
                Some(f) => {
                    let mut s = f.clone();
                    for e in self.extends.iter().rev() {
                        s.push_str(&format!(", extends {e}"));
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
        if let Some((b, from)) = &self.budget {
            let mut parts = Vec::new();
            if let Some(n) = b.max_tokens {
                parts.push(format!("max_tokens = {n}"));
            }
            if let Some(c) = b.max_cost_usd {
                parts.push(format!("max_cost_usd = {c}"));
            }
            if let Some(w) = b.max_wall_seconds {
                parts.push(format!("max_wall_seconds = {w}"));
            }
            if let Some(p) = b.on_unknown_usage {
                let p = serde_json::to_value(p).unwrap_or_default();
                parts.push(format!("on_unknown_usage = {p}"));
            }
            out.push_str(&format!(
                "\n[delegate]\nbudget = {{ {} }}  # {from}\n",
                parts.join(", "),
            ));
        }
        out
    }
}

/// The column the `# origin` comments of `pwk config` line up at, at most.
const ALIGN_MAX: usize = 60;

/// `line` padded with spaces to `width` characters (a longer one as it is). Not
/// `{:width$}`: a format width is at most 65,535.
fn padded(line: &str, width: usize) -> String {
    let n = line.chars().count();
    format!("{line}{}", " ".repeat(width.saturating_sub(n)))
}
