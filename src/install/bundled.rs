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
