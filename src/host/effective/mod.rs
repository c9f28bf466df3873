//! What a role may do under a host: the tools its child gets and how far it may
//! use each, worked out from the frontmatter as the host itself does. One
//! computation, from the profile's facts: `pwk show` prints it, and `pwk convert`
//! compares the source's with the target's so that a conversion never grants more.
//!
//! The forms it reads (each a profile fact, `schemas/hosts/*.json`):
//! - allow-lists (`tools`: a list or a comma string; Claude Code also splits on
//!   white space), with the host's words for every tool (`*`, `all`) and for none
//!   (`none`), specifiers (`Bash(git *)`: only those calls), namespaced entries
//!   (Copilot `search/codebase` is `search`), prefix wildcards (Gemini `mcp_*`);
//! - deny-lists (`disallowedTools`, `disallowed_tools`, `excludeTools`,
//!   `deny-tools`): the tool an entry names is removed, specifier or not;
//! - tools a key adds (Claude Code's `memory` adds Read, Write and Edit);
//! - permission modes (Claude Code's `permissionMode`): what a mode lets each kind
//!   of tool do when it is called;
//! - OpenCode's ruleset: a `tools` map and a `permission` map become one list of
//!   rules, the last matching rule decides, and a tool whose last rule denies
//!   every call is not handed over at all;
//! - and what no list gives: the host's default, which on some hosts is every tool
//!   of the session (MCP tools included), not only the names pwk knows.
//!
//! The deny rules of the host's own settings files (Claude Code's `permissions.deny`)
//! are no part of the role: [`Grants::deny_by_settings`] applies those read for a
//! session (`pwk show`), over what the role's keys give.
//!
//! [`Grants::reach`] puts a host's grants in one vocabulary across hosts (pi's
//! built-ins, MCP tools, other tools by their name folded to lower-case letters
//! and digits) and [`Reach::beyond`] says what one reach grants that another does
//! not. Tools a host adds to every child whatever the role says (nicobailon's
//! `contact_supervisor`), and its own tools that come with its default when the
//! role names none (nicobailon's `bg_wait`), are the host's, not the role's, and
//! are left out of the comparison.

use serde::Serialize;

use super::HostProfile;
use crate::role::{Node, RoleDoc};

mod lists;
mod reach;
mod ruleset;
mod settings;

pub use reach::{Beyond, Reach, caps_of};
pub use ruleset::{Rule, rule_access, rules, wildcard};
pub use settings::{DenyRule, IgnoredRule, SettingsDenial};

/// How far the child may use a tool it gets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "access", content = "why", rename_all = "kebab-case")]
pub enum Access {
    /// Every call, without asking.
    Full,
    /// Each call asks the user first.
    Ask(String),
    /// Only calls that change nothing.
    ReadOnly(String),
    /// Only some calls (a specifier, a pattern, what settings allow).
    Limited(String),
    /// Handed over, but every call is refused (Claude Code's plan mode and edits).
    Denied(String),
}

impl Access {
    /// Why it is restricted (`None` for [`Access::Full`]).
    pub fn why(&self) -> Option<&str> {
        match self {
            Access::Full => None,
            Access::Ask(w) | Access::ReadOnly(w) | Access::Limited(w) | Access::Denied(w) => {
                Some(w)
            }
        }
    }

    /// In a few words (`full`, `asks first`, …).
    pub fn word(&self) -> &'static str {
        match self {
            Access::Full => "every call",
            Access::Ask(_) => "asks first",
            Access::ReadOnly(_) => "read-only calls",
            Access::Limited(_) => "some calls",
            Access::Denied(_) => "no call",
        }
    }

    /// Whether `self` lets the child do no more than `other`.
    pub fn within(&self, other: &Access) -> bool {
        match (self, other) {
            (Access::Denied(_), _) | (_, Access::Full) => true,
            (Access::Full, _) | (_, Access::Denied(_)) => false,
            (Access::Ask(_), Access::Ask(_)) | (Access::ReadOnly(_), Access::ReadOnly(_)) => true,
            (Access::Limited(a), Access::Limited(b)) => a == b,
            _ => false,
        }
    }

    /// Both restrictions at once.
    fn and(self, other: Access) -> Access {
        match (self, other) {
            (Access::Full, x) | (x, Access::Full) => x,
            (d @ Access::Denied(_), _) | (_, d @ Access::Denied(_)) => d,
            (a, b) if a == b => a,
            (a, b) => Access::Limited(format!(
                "{} and {}",
                a.why().unwrap_or_default(),
                b.why().unwrap_or_default()
            )),
        }
    }
}

/// One tool the child gets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Grant {
    pub tool: String,
    #[serde(flatten)]
    pub access: Access,
}

/// What a role may do under a host.
#[derive(Debug, Clone, Serialize)]
pub struct Grants {
    /// The role's tool entries as the host reads them (its own split; `key: value`
    /// lines of a ruleset), `None` when it has none.
    pub declared: Option<Vec<String>>,
    /// The tools the host hands the child, in its own names.
    pub tools: Vec<Grant>,
    /// Set when the child also gets every other tool of the session (MCP servers'
    /// and the parent's), with the access they get.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open: Option<Access>,
    /// Tools named only as an extension's or MCP server's (`mcp__github__x`,
    /// `github/*`): the child has them when something provides them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub provided: Vec<String>,
    /// The host's default applies (the role limits nothing).
    pub host_default: bool,
    /// The role's deny entries as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub denied: Option<Vec<String>>,
    /// Tools the deny entries remove from the open set (in the host's names).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub open_except: Vec<String>,
    /// The permission mode the role sets, where the host reads one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The deny rules of the host's own settings that reach these tools
    /// ([`Grants::deny_by_settings`]; none until they are applied).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub settings_denied: Vec<SettingsDenial>,
    /// The deny rules of the host's own settings that deny nothing, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub settings_ignored: Vec<IgnoredRule>,
    /// Why, in words.
    pub note: String,
}

/// Whether a pi built-in changes nothing (`read`, `grep`, `find`, `ls`): what
/// read-only commands can do too. pi's built-ins are [`crate::host::pi_builtins`],
/// the shared vocabulary of [`Reach`].
pub(super) fn pi_read_only(cap: &str) -> bool {
    super::pi_builtins().contains(&cap) && !super::pi_mutating_tools().contains(&cap)
}

/// The tool key and the deny key a profile reads (the portable profile: pwk's own).
pub(super) fn key_of(p: &HostProfile, setting: &str, portable: &str) -> Option<String> {
    if p.is_portable() {
        return Some(portable.to_string());
    }
    p.keys
        .iter()
        .find(|(_, f)| f.setting == Some(setting))
        .map(|(k, _)| k.to_string())
}

/// The entries of a tool list as `p` reads them: a list, or a string split on
/// commas (and on white space where the host does); `None` for anything else.
pub fn entries(p: &HostProfile, n: &Node) -> Option<Vec<String>> {
    match n.as_str() {
        Some(s) if p.tools.split_on_whitespace => {
            Some(p.tools.split(s).into_iter().map(str::to_string).collect())
        }
        _ => crate::role::string_list(n),
    }
}

/// The grants of the role in `doc` under `p` (the host's defaults when the file
/// has no frontmatter it reads).
pub fn grants(p: &HostProfile, doc: &RoleDoc) -> Grants {
    // A frontmatter closed with `...` is no frontmatter to the hosts (they look for
    // a closing `---`; the `dot-closing-fence` rule): its keys grant nothing.
    let dots = matches!(&doc.fences, Ok(f) if f.close_kind == crate::role::CloseKind::Dots);
    let m = doc
        .mapping()
        .filter(|m| m.as_mapping().is_some())
        .filter(|_| !dots);
    match &*p.tools.ruleset {
        Some(rs) => ruleset::ruleset(p, rs, m),
        None => lists::lists(p, m, &doc.text),
    }
}

impl Grants {
    /// The tools handed over, by name.
    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|g| g.tool.clone()).collect()
    }

    /// Whether the child can change files: a tool that edits or runs commands, on
    /// more than read-only calls.
    pub fn mutating(&self, p: &HostProfile) -> bool {
        let can = |a: &Access| !matches!(a, Access::Denied(_) | Access::ReadOnly(_));
        self.tools.iter().any(|g| {
            can(&g.access)
                && p.tools
                    .pi_names(&g.tool)
                    .iter()
                    .any(|n| super::pi_mutating_tools().contains(&n.as_str()))
        }) || self
            .open
            .as_ref()
            .is_some_and(|a| can(a) && p.tools.missing_is_mutating)
    }
}

#[cfg(test)]
mod tests;
