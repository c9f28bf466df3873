//! The canonical PWK roles, compiled into the binary from `roles/`.

/// One canonical role file.
#[derive(Debug, Clone, Copy)]
pub struct BundledRole {
    /// The role name; the file is `<name>.md`.
    pub name: &'static str,
    /// The file's exact bytes.
    pub content: &'static str,
}

impl BundledRole {
    pub fn file_name(&self) -> String {
        format!("{}.md", self.name)
    }
}

macro_rules! role {
    ($name:literal) => {
        BundledRole {
            name: $name,
            content: include_str!(concat!("../../roles/", $name, ".md")),
        }
    };
}

/// The five canonical roles, in setup order.
pub const BUNDLED_ROLES: &[BundledRole] = &[
    role!("pwk-recon-scout"),
    role!("pwk-spec-reviewer"),
    role!("pwk-tracing-reviewer"),
    role!("pwk-smell-reviewer"),
    role!("pwk-hazard-reviewer"),
];

/// A bundled role by name.
pub fn bundled_role(name: &str) -> Option<&'static BundledRole> {
    BUNDLED_ROLES.iter().find(|r| r.name == name)
}

/// The reviewers whose model hint `pwk setup --fast-model` sets by default.
pub const FAST_REVIEWERS: &[&str] = &["pwk-smell-reviewer", "pwk-hazard-reviewer"];

/// All four reviewers (`--fast-model … --all-roles`). The scout never gets a model.
pub const REVIEWERS: &[&str] = &[
    "pwk-spec-reviewer",
    "pwk-tracing-reviewer",
    "pwk-smell-reviewer",
    "pwk-hazard-reviewer",
];

/// Whether `name` is a role slug: lowercase letters and digits in hyphen-separated
/// words (`pwk-spec-reviewer`). Such a name can never be `..`, contain `/` or NUL,
/// or start with `.`, so `<name>.md` is always one plain file name.
pub const fn valid_role_name(name: &str) -> bool {
    let b = name.as_bytes();
    if b.is_empty() || b.len() > 64 || b[0] == b'-' || b[b.len() - 1] == b'-' {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let ok = c.is_ascii_lowercase() || c.is_ascii_digit() || (c == b'-' && b[i - 1] != b'-');
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}

const fn all_names_valid(roles: &[BundledRole]) -> bool {
    let mut i = 0;
    while i < roles.len() {
        if !valid_role_name(roles[i].name) {
            return false;
        }
        i += 1;
    }
    true
}

// The build fails if a bundled name could escape the agents directory.
const _: () = assert!(
    all_names_valid(BUNDLED_ROLES),
    "a bundled role name is not a plain slug"
);

/// The canonical roles as `host` should receive them, and the project directory
/// (below the root) it reads them from. The canonical files are written for
/// tintinweb (and lint clean there); another pi host gets them through the
/// conversion engine (nicobailon: no `max_turns`, which it ignores; herdr: its own
/// keys, in `.pi/agents/`, the one project directory it reads); pwk's own runner
/// then takes the canonical budget ([`canonical_max_turns`]). With no host known (the
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

/// The `max_turns` of the canonical role `name` (pwk's runner's budget for its own
/// roles when the installed copy does not set one).
pub fn canonical_max_turns(name: &str) -> Option<u64> {
    let role = bundled_role(name)?;
    frontmatter_lines(role.content)
        .find_map(|l| l.strip_prefix("max_turns:"))
        .and_then(|v| v.trim().parse().ok())
}

/// The frontmatter lines of a canonical role (between its `---` fences).
fn frontmatter_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().skip(1).take_while(|l| l.trim_end() != "---")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_names_are_slugs() {
        for good in ["pwk-recon-scout", "a", "a1-b2"] {
            assert!(valid_role_name(good), "{good}");
        }
        for bad in [
            "", "..", ".", "../x", "/x", "a/b", "a\0b", "-a", "a-", "a--b", "A", ".hidden", "a.b",
        ] {
            assert!(!valid_role_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn role_groups_name_bundled_roles() {
        for n in FAST_REVIEWERS.iter().chain(REVIEWERS) {
            assert!(bundled_role(n).is_some(), "{n}");
        }
        assert!(!REVIEWERS.contains(&"pwk-recon-scout"));
    }
}
