//! The canonical PWK roles, compiled into the binary from `roles/`: their names,
//! bytes and groups, and the role-name slug rule. How `pwk setup` renders them for
//! a host is `install::bundled`.

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
            content: include_str!(concat!("../roles/", $name, ".md")),
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
