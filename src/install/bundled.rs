//! The canonical roles ([`crate::roles`]) as `pwk setup` writes them for a host:
//! converted for the pi hosts that read other keys, trimmed for the portable
//! profile, and the project directory they go to.

use crate::roles::{BUNDLED_ROLES, BundledRole};

/// The canonical roles as `host` should receive them, and the project directory
/// (below the root) it reads them from. The canonical files are written for
/// tintinweb (and lint clean there); another pi host gets them through the
/// conversion engine (nicobailon: no `max_turns`, which it ignores; herdr: its own
/// keys, in `.pi/agents/`, the one project directory it reads); pwk's own runner
/// then takes the canonical budget ([`crate::roles::canonical_max_turns`]). With no host known (the
/// portable profile) the keys only some hosts read (what `pwk lint`'s summary would
/// name: `max_turns`) are left out, so that lint reports nothing after setup; pwk's
/// runner keeps the canonical budget there too. Any other host gets the canonical
/// files.
pub fn rendered_for(
    host: &'static crate::host::HostProfile,
) -> (Vec<BundledRole>, [&'static str; 2]) {
    use crate::host::HostId;
    let dir = project_agents_dir(host);
    let convert = |role: &BundledRole| -> Option<String> {
        let from = HostId::Tintinweb.newest();
        let doc = crate::role::RoleDoc::parse(
            std::path::PathBuf::from(role.file_name()),
            role.content.as_bytes(),
        );
        let opts = crate::convert::ConvertOptions {
            to: host,
            model_map: Default::default(),
        };
        crate::convert::convert_doc(&doc, from, &opts)
            .ok()
            .filter(|c| c.lint_errors().next().is_none())
            .map(|c| c.text)
    };
    let roles = BUNDLED_ROLES
        .iter()
        .map(|role| {
            let content = match host.host {
                HostId::Nicobailon | HostId::Herdr => convert(role),
                HostId::Pwk => portable(role, host, dir),
                _ => None,
            };
            match content {
                // Rendered once per run, for the five roles: kept for the process.
                Some(text) if text != role.content => BundledRole {
                    name: role.name,
                    content: Box::leak(text.into_boxed_str()),
                },
                _ => *role,
            }
        })
        .collect();
    (roles, dir)
}

/// The project directory (below the root) where pwk writes roles for `host`:
/// `.agents/agents/` when the host reads it (and under the portable profile), else
/// `.pi/agents/` when it reads that (herdr, pi's example extension: the one project
/// directory they read, per their profiles), else `.agents/agents/`.
pub fn project_agents_dir(host: &'static crate::host::HostProfile) -> [&'static str; 2] {
    if host.is_portable() {
        return super::PROJECT_AGENTS_DIR;
    }
    let reads = |a: &str, b: &str| {
        let dir = format!("{a}/{b}");
        host.discovery.dirs.iter().any(|d| {
            d.layer == crate::host::DirLayer::Project
                && (d.path == dir || (d.recursive && d.path == a))
        })
    };
    let [a, b] = super::PROJECT_AGENTS_DIR;
    if !reads(a, b) && reads(".pi", "agents") {
        [".pi", "agents"]
    } else {
        super::PROJECT_AGENTS_DIR
    }
}

/// The canonical role without the keys only some hosts read, as `pwk lint` finds
/// them under the portable profile `profile` in the project directory `dir` (`None`:
/// nothing to leave out, or the result would not lint clean).
fn portable(
    role: &BundledRole,
    profile: &'static crate::host::HostProfile,
    dir: [&str; 2],
) -> Option<String> {
    // Linted where it is written: which hosts count depends on the directory.
    let path: std::path::PathBuf = dir.iter().chain([&role.file_name().as_str()]).collect();
    let lint = |text: &str| {
        let doc = crate::role::RoleDoc::parse(path.clone(), text.as_bytes());
        crate::lint::lint_doc_full(&doc, profile, &Default::default())
    };
    let keys = lint(role.content).host_specific;
    if keys.is_empty() {
        return None;
    }
    // Canonical frontmatter keys are one line each (`key: value`).
    let mut out = String::with_capacity(role.content.len());
    let mut in_frontmatter = false;
    for (i, line) in role.content.split_inclusive('\n').enumerate() {
        if line.trim_end() == "---" {
            in_frontmatter = i == 0;
        } else if in_frontmatter
            && keys
                .iter()
                .any(|k| line.strip_prefix(k).is_some_and(|r| r.starts_with(':')))
        {
            continue;
        }
        out.push_str(line);
    }
    let after = lint(&out);
    (after.diagnostics.is_empty() && after.host_specific.is_empty()).then_some(out)
}
