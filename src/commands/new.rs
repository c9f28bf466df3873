//! Command glue for `pwk new`.

use std::path::PathBuf;

use super::roles::*;
use crate::cli::{Format, NewArgs};
use crate::discover::HostId;
use crate::discover::template::{self, Kind};
use crate::display::write_stdout;
use crate::{Context, ExitStatus};

/// `pwk new NAME`: exit 0 when written; 2 for a bad name, an existing file or an I/O error.
#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
pub fn run(args: &NewArgs, ctx: &Context) -> anyhow::Result<ExitStatus> {
    template::validate_name(&args.name)?;
    let kind = match args.kind {
        crate::cli::RoleKind::Leaf => Kind::Leaf,
        crate::cli::RoleKind::Coordinator => Kind::Coordinator,
        crate::cli::RoleKind::Adapter => Kind::Adapter,
    };
    let project = super::open_project(
        ctx,
        super::ProjectFlags {
            dir: args.dir.as_deref(),
            host: args.host.as_ref(),
            config: args.config.file.as_deref(),
        },
    )?;
    // The project's host (`--host`, else pwk.toml's `host`, else the one pi's
    // settings name): the role is written into the directory that host reads, in
    // that host's keys.
    let host = project.host().map_err(|e| super::config_error(ctx, e))?;
    let dir = match &args.agents_dir {
        Some(d) => ctx.cwd.join(d),
        None => agents_dir(host.profile, &project.root),
    };
    let suffix = match host.profile.discovery.suffix {
        "" => ".md",
        s => s,
    };
    let file_name = format!("{}{suffix}", args.name);
    let target: PathBuf = dir.join(&file_name);
    // Through the one writer: anchored at the project root inside the project (a
    // symlinked `.agents` is refused), else at the --agents-dir given.
    let named: Vec<PathBuf> = args.agents_dir.iter().map(|d| ctx.cwd.join(d)).collect();
    let anchors = crate::fs::Anchors::new(&ctx.cwd, &project.root, &named);
    // A file seen through a symbolic link on the way is not the project's: the
    // writer refuses the link below, and says so, rather than "already exists".
    if anchors.symlink_on_the_way(&dir).is_none() && std::fs::symlink_metadata(&target).is_ok() {
        anyhow::bail!(
            "{} already exists; `pwk new` never overwrites a file (edit it, remove it, or choose another name)",
            ctx.display_path(&target)
        );
    }
    if kind == Kind::Adapter && !host.profile.host.is_pi() {
        anyhow::bail!(
            "an adapter role runs an external CLI under a pi host (`cli`), and {} has no such role; write a leaf or a coordinator (`--kind leaf`), or the adapter for pi (`--host tintinweb`)",
            host.explain(&ctx.cwd)
        );
    }
    let (content, dropped) = render_for(&args.name, kind, host.profile, &target, &project)
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot scaffold `{}` for {}: {e}",
                args.name,
                host.profile.label()
            )
        })?;
    let hooks = &mut crate::fs::NoHooks;
    let by = match &args.agents_dir {
        Some(_) => crate::fs::NamedBy::User("--agents-dir".into()),
        None => crate::fs::NamedBy::Pwk,
    };
    let (handle, name) = anchors
        .open_parent(&target, &by, true, hooks)
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

    let (shadows, notes) = standing(
        ctx,
        &project,
        host.profile,
        &dir,
        &path,
        &args.name,
        &dropped,
    );
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

/// The project directory `host` reads its roles from: for a pi host, the one
/// pwk installs into; for another host, its project directory that exists (the
/// last of its profile, the newest spelling: `.opencode/agents/`), else the last.
fn agents_dir(host: &'static crate::host::HostProfile, root: &std::path::Path) -> PathBuf {
    if host.host.is_pi() {
        return crate::install::bundled::project_agents_dir(host)
            .iter()
            .fold(root.to_path_buf(), |p, c| p.join(c));
    }
    let dirs: Vec<PathBuf> = host
        .discovery
        .dirs
        .iter()
        .filter(|d| d.layer == crate::host::DirLayer::Project && !d.path.starts_with('{'))
        .map(|d| root.join(d.path))
        .collect();
    dirs.iter()
        .rev()
        .find(|d| d.is_dir())
        .or(dirs.last())
        .cloned()
        .unwrap_or_else(|| root.to_path_buf())
}

/// The template as the project's host should receive it, through the
/// conversion engine (as `pwk setup` renders its canonical roles), linted where it
/// will be written with that path's configuration; and the keys left out because
/// the host does not read them. The template is written in pwk's schema, whose
/// keys herdr reads; herdr itself gets it as tintinweb's (it refuses a role with
/// `cli`, which tintinweb ignores). Under the portable profile the template is
/// written as is (it lints clean there).
fn render_for(
    name: &str,
    kind: Kind,
    host: &'static crate::host::HostProfile,
    target: &std::path::Path,
    project: &crate::project::Project,
) -> Result<(String, Vec<String>), String> {
    let text = template::render(name, kind);
    if host.is_portable() {
        return Ok((text, Vec::new()));
    }
    let from = match host.host {
        HostId::Herdr => HostId::Tintinweb.newest(),
        _ => HostId::Herdr.newest(),
    };
    let doc = crate::role::RoleDoc::parse(target.to_path_buf(), text.as_bytes());
    let opts = crate::convert::ConvertOptions {
        to: host,
        model_map: Default::default(),
    };
    let dest =
        crate::convert::Destination::Dir(target.parent().map(PathBuf::from).unwrap_or_default());
    let settings_at = |at: &std::path::Path| project.resolve_file(at).map(|r| r.settings());
    let c =
        crate::convert::convert_to(&doc, from, &opts, &dest, settings_at).map_err(|e| match e {
            crate::convert::ConvertOrSettingsError::Convert(e) => e.to_string(),
            crate::convert::ConvertOrSettingsError::Settings(e) => e.to_string(),
        })?;
    // A host with its own CLI: its own keys, not pi's, in the comments (linted
    // again as written).
    let (text, lint) = if host.host.is_pi() {
        (c.text, c.lint)
    } else {
        let text = template::for_host(&c.text, name, kind, host);
        let settings = project
            .resolve_file(target)
            .map_err(|e| e.to_string())?
            .settings();
        let doc = crate::role::RoleDoc::parse(target.to_path_buf(), text.as_bytes());
        let lint = crate::lint::lint_doc(&doc, host, &settings);
        (text, lint)
    };
    if let Some(d) = lint.first() {
        return Err(format!(
            "the rendered role does not lint clean (line {}: {}[{}] {})",
            d.start.line,
            d.severity.as_str(),
            d.rule,
            d.message
        ));
    }
    let dropped = c
        .items
        .iter()
        .filter(|i| i.outcome == crate::convert::Outcome::Dropped && !i.key.starts_with("comment"))
        .map(|i| i.key.clone())
        .collect();
    Ok((text, dropped))
}

/// Whether two paths name the same file or directory (`..` and symlinked parents
/// resolved when both exist).
fn same_path(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Where a file just written for `profile` stands among the layers its host reads
/// (pwk's own for a pi host: the portable view of pi's directories): the
/// definitions it shadows (path as shown, layer), and what the user should know —
/// keys the host does not read that were left out (`dropped`), a higher-priority
/// definition that wins over it, a directory the host does not read.
fn standing(
    ctx: &Context,
    project: &crate::project::Project,
    profile: &'static crate::host::HostProfile,
    dir: &std::path::Path,
    path: &std::path::Path,
    name: &str,
    dropped: &[String],
) -> (Vec<(String, crate::discover::Layer)>, Vec<String>) {
    // Where the new file stands among the layers its host reads (pwk's own for a
    // pi host: the portable view of pi's directories).
    let view = if profile.host.is_pi() {
        HostId::Pwk.newest()
    } else {
        profile
    };
    let d = crate::discover::resolve_in(&project.roots(), view);
    let read_here = d
        .sources
        .iter()
        .any(|s| s.path.as_deref().is_some_and(|p| same_path(p, dir)));
    let mut shadows = Vec::new();
    let mut notes = Vec::new();
    if !dropped.is_empty() {
        notes.push(format!(
            "written for {}, which does not read {}: left out",
            profile.label(),
            dropped
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    match d.find(name) {
        Some(r) if r.path.as_file().is_some_and(|p| same_path(p, path)) => {
            shadows.extend(r.shadows.iter().map(|s| (s.path.clone(), s.source)));
        }
        Some(r) if read_here => notes.push(format!(
            "{} ({}) wins over it: a higher-priority definition of `{}` exists.",
            r.path.display(&ctx.cwd),
            r.layer.as_str(),
            name
        )),
        _ => {}
    }
    if !read_here {
        let places: Vec<String> = d
            .sources
            .iter()
            .filter_map(|s| s.path.as_deref())
            .map(|p| ctx.display_path(p))
            .collect();
        notes.push(format!(
            "{} reads roles from {}; {} is none of them.",
            view.label(),
            places.join(", "),
            ctx.display_path(dir)
        ));
    }
    (shadows, notes)
}
