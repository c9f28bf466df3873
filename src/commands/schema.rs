//! Command glue for `pwk schema`: the role schema, a host's view of it, or the
//! `pwk.toml` schema.

use crate::cli::{Format, SchemaArgs};
use crate::display::write_stdout;
use crate::host::{self, HostChoice};
use crate::{Context, ExitStatus};

#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &SchemaArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    if args.config {
        let mut text = serde_json::to_string_pretty(&crate::config::schema::config_schema())?;
        text.push('\n');
        write_stdout(text.as_bytes())?;
        return Ok(ExitStatus::Success);
    }
    let profile = match &args.host {
        None => None,
        Some(HostChoice::Spec(spec)) => Some(spec.profile()?),
        Some(HostChoice::Auto) => Some(
            super::open_project(
                ctx,
                super::ProjectFlags {
                    dir: args.dir.as_deref(),
                    host: Some(&HostChoice::Auto),
                    ..Default::default()
                },
            )?
            .host()
            .map_err(|e| super::config_error(ctx, e))?
            .profile,
        ),
    };
    let text = match profile {
        Some(p) if !p.is_portable() => {
            let mut text = serde_json::to_string_pretty(host::schema::host_schema(p))?;
            text.push('\n');
            text
        }
        _ => crate::role::schema::ROLE_SCHEMA.to_string(),
    };
    match args.format {
        Format::Json => write_stdout(text.as_bytes())?,
        Format::Human => {
            let schema: serde_json::Value = serde_json::from_str(&text)?;
            let label = profile.map_or_else(|| "pwk".to_string(), |p| p.label());
            write_stdout(schema_human(&schema, &label).as_bytes())?;
        }
    }
    Ok(ExitStatus::Success)
}

/// The schema's keys for people: name, accepted type, and the first sentence of
/// the description.
fn schema_human(schema: &serde_json::Value, label: &str) -> String {
    let defs = schema.get("$defs");
    let resolve = |v: &serde_json::Value| -> serde_json::Value {
        let mut v = v.clone();
        for _ in 0..4 {
            let Some(r) = v.get("$ref").and_then(|r| r.as_str()) else {
                break;
            };
            let target = r
                .strip_prefix("#/$defs/")
                .and_then(|n| defs.and_then(|d| d.get(n)))
                .cloned();
            match target {
                Some(t) => {
                    let mut merged = t;
                    if let (Some(m), Some(desc)) = (merged.as_object_mut(), v.get("description")) {
                        m.insert("description".into(), desc.clone());
                    }
                    v = merged;
                }
                None => break,
            }
        }
        v
    };
    let ty = |v: &serde_json::Value| -> String {
        if let Some(e) = v.get("enum").and_then(|e| e.as_array()) {
            let vals: Vec<String> = e.iter().map(|x| x.to_string()).collect();
            return vals.join(" | ");
        }
        match v.get("type") {
            Some(serde_json::Value::String(t)) => t.clone(),
            Some(serde_json::Value::Array(ts)) => ts
                .iter()
                .filter_map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(" | "),
            _ if v.get("anyOf").is_some() || v.get("oneOf").is_some() => "several forms".into(),
            _ => "any".into(),
        }
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|x| x.as_str()).collect())
        .unwrap_or_default();
    let mut rows: Vec<(String, String, String)> = Vec::new();
    if let Some(props) = schema.get("properties").and_then(|p| p.as_object()) {
        for (key, v) in props {
            let v = resolve(v);
            let desc = v
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or_default();
            // The first sentence: up to a ". " before a capital (not "e.g. ").
            let end = desc
                .match_indices(". ")
                .find(|(i, _)| desc[i + 2..].starts_with(|c: char| c.is_ascii_uppercase()))
                .map_or(desc.len(), |(i, _)| i);
            let first = desc[..end].trim_end_matches('.');
            let key = if required.contains(&key.as_str()) {
                format!("{key} (required)")
            } else {
                key.clone()
            };
            rows.push((key, ty(&v), first.to_string()));
        }
    }
    let kw = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let tw = rows.iter().map(|r| r.1.len()).max().unwrap_or(0).min(28);
    let mut out = format!("Frontmatter keys read by the {label} profile:\n\n");
    for (k, t, d) in rows {
        out.push_str(format!("  {k:kw$}  {t:tw$}  {d}").trim_end());
        out.push('\n');
    }
    out.push_str("\n`pwk schema` prints the JSON Schema itself.\n");
    out
}
