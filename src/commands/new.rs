//! Command glue for `pwk new`.

use std::path::PathBuf;

use super::roles::*;
use crate::cli::{Format, NewArgs};
use crate::context::write_stdout;
use crate::discover::HostId;
use crate::discover::template::{self, Kind};
use crate::{Context, ExitStatus};

/// `pwk new NAME`: exit 0 when written; 2 for a bad name, an existing file or an I/O error.
pub fn run(args: &NewArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    template::validate_name(&args.name)?;
    let kind = match args.kind {
        crate::cli::RoleKind::Leaf => Kind::Leaf,
        crate::cli::RoleKind::Coordinator => Kind::Coordinator,
        crate::cli::RoleKind::Adapter => Kind::Adapter,
    };
    let project = super::project(ctx, args.dir.as_deref())?;
    let dir = match &args.agents_dir {
        Some(d) => ctx.cwd.join(d),
        None => project.root.join(".agents").join("agents"),
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
    // Through the one writer: anchored at the project root inside the project (a
    // symlinked `.agents` is refused), else at the --agents-dir given.
    let named: Vec<PathBuf> = args.agents_dir.iter().map(|d| ctx.cwd.join(d)).collect();
    let anchors = crate::fs::Anchors::new(&ctx.cwd, &project.root, &named);
    let hooks = &mut crate::fs::NoHooks;
    let (handle, name) = anchors
        .open_parent(&target, true, hooks)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .ok_or_else(|| anyhow::anyhow!("cannot create {}", ctx.display_path(&dir)))?;
    handle
        .write_file(
            &name,
            content.as_bytes(),
            crate::fs::Replace::Fresh,
            crate::fs::WriteOptions::default(),
            hooks,
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let path = target.clone();
    let shown = ctx.display_path(&path);

    // Where the new file stands among the layers pwk reads.
    let d = crate::discover::resolve_in(&project.roots(), HostId::Pwk.newest());
    let read_here = d
        .sources
        .iter()
        .any(|s| s.path.as_deref().is_some_and(|p| same_path(p, &dir)));
    let mut shadows = Vec::new();
    let mut notes = Vec::new();
    match d.find(&args.name) {
        Some(r) if r.path.as_file().is_some_and(|p| same_path(p, &path)) => {
            shadows.extend(r.shadows.iter().map(|s| (s.path.clone(), s.source)));
        }
        Some(r) if read_here => notes.push(format!(
            "{} ({}) wins over it: a higher-priority definition of `{}` exists.",
            r.path.display(&ctx.cwd),
            r.layer.as_str(),
            args.name
        )),
        _ => {}
    }
    if !read_here {
        notes.push(format!(
            "roles are discovered in .agents/agents/ and .pi/agents/ of the project, and in the global agents directory; {} is none of them.",
            ctx.display_path(&dir)
        ));
    }
    let next = format!(
        "replace the description and the body, then run `pwk lint {shown}` and `pwk show {}`",
        args.name
    );
    match args.format {
        Format::Json => {
            let doc = serde_json::json!({
                "version": 1,
                "created": shown,
                "name": args.name,
                "kind": kind.as_str(),
                "shadows": shadows
                    .iter()
                    .map(|(p, layer)| serde_json::json!({"path": p, "source": layer}))
                    .collect::<Vec<_>>(),
                "notes": notes,
                "next": next,
            });
            write_stdout(&json_line(&doc)?)?;
        }
        Format::Human => {
            let mut text = format!("Created {shown} ({} role).\n", kind.as_str());
            for (p, layer) in &shadows {
                text.push_str(&format!("It shadows {p} ({}).\n", layer.as_str()));
            }
            for n in &notes {
                text.push_str(&format!("note: {n}\n"));
            }
            let mut c = next.chars();
            let next: String = c
                .next()
                .map(|f| f.to_ascii_uppercase())
                .into_iter()
                .chain(c)
                .collect();
            text.push_str(&format!("Next: {next}.\n"));
            write_stdout(tilde(&crate::text::escape_block(&text), ctx).as_bytes())?;
        }
    }
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
