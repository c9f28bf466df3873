//! The one host model: which subagent hosts pwk knows, at which versions, and what
//! each does with a role file.
//!
//! A host profile is data (`schemas/hosts/<host>.json`, compiled in): discovery
//! directories, identity, the frontmatter parser's quirks, every key the loader
//! reads with the values it accepts, the tool vocabulary, defaults, and what it
//! does with a bad file — each fact with its source. lint, list, show, smoke and
//! schema ask this module; nothing else knows a host's behaviour.
//!
//! The registry of hosts is one list in build.rs; `HostId`, [`ALL`], [`PI_HOSTS`]
//! and each host's name, kind and repository are generated from it and the files.
//!
//! `pwk` is the portable profile: "safe on every supported host". Its own file
//! documents pwk's runner and discovery; rules that need the cross-host view ask
//! [`pi_profiles`] (every version of every real host), as light views. build.rs
//! resolves the files' merge patches at build time, so a run parses only the
//! profiles it uses.

mod detect;
pub mod effective;
mod key_index;
mod key_map;
// build.rs's patching; the tests resolve the sources again with it, and a debug
// build applies `PWK_DEBUG_PROFILE_PATCH` with it.
mod merge;
mod packed;
mod profile;
pub mod schema;
pub(crate) mod skills;
mod unpack;
mod version;

use std::sync::OnceLock;

pub use detect::{
    Basis, CHOOSE_HINT, Detection, Evidence, Found, KeyEvidence, SHARED_DIRS, claude_plugin_of,
    detect, detect_dir, detect_from_paths, example_extension_dir, host_of_path, host_reads_dir,
    infer_from_keys, project_dir_of,
};
pub use key_map::KeyMap;
pub use profile::*;
pub use unpack::{Lazy, LazyJson};

include!(concat!(env!("OUT_DIR"), "/host_ids.rs"));

mod pi {
    include!(concat!(env!("OUT_DIR"), "/pi_tools.rs"));
}

/// pi's built-in tools (`schemas/pi.json`): the vocabulary every pi host's `tools`
/// names, and what `pwk convert` maps other hosts' tools through.
pub fn pi_builtins() -> &'static [&'static str] {
    &pi::PI_BUILTINS
}

/// The tools a pi session starts with when no `--tools` allow-list is given.
pub fn pi_default_tools() -> &'static [&'static str] {
    &pi::PI_DEFAULT_TOOLS
}

/// pi's built-ins that change files or run commands (`bash`, `edit`, `write`).
pub fn pi_mutating_tools() -> &'static [&'static str] {
    &pi::PI_MUTATING
}

/// What kind of host a profile describes (its file's `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostKind {
    /// pwk's portable profile: safe on every pi host, and pwk's own runner.
    Portable,
    /// A pi extension: it reads pi's agent directories and runs each child on pi.
    Pi,
    /// A host with its own CLI and directories (Claude Code, OpenCode, …).
    Cli,
}

/// Every host's name, quoted and comma-separated (`` `pwk`, `tintinweb`, … ``):
/// what every `--host` help and configuration message lists.
pub fn name_list() -> String {
    ALL.iter()
        .map(|h| format!("`{h}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl HostId {
    pub fn from_name(name: &str) -> Option<HostId> {
        ALL.into_iter().find(|h| h.as_str() == name)
    }

    /// This host's rows of the resolved table, oldest version first.
    fn rows(self) -> impl DoubleEndedIterator<Item = usize> + Clone {
        let name = self.as_str();
        (0..generated::PROFILES.len()).filter(move |&i| generated::PROFILES[i].0 == name)
    }

    /// Every profile of this host, oldest first (each parsed on first use only).
    pub fn profiles(self) -> Vec<&'static HostProfile> {
        self.rows().map(full).collect()
    }

    /// The version labels and ranges of this host's profiles, without parsing them.
    pub fn versions(self) -> Vec<(&'static str, &'static str)> {
        self.rows()
            .map(|i| (generated::PROFILES[i].2, generated::PROFILES[i].3))
            .collect()
    }

    /// The npm package pi settings list this host under (none for `pwk`), without
    /// parsing a profile.
    pub fn package(self) -> Option<&'static str> {
        self.rows()
            .next()
            .map(|i| generated::PROFILES[i].1)
            .filter(|p| !p.is_empty())
    }

    /// The project discovery directories of the newest profile (`.claude/agents`),
    /// without parsing it.
    pub fn project_dirs(self) -> impl Iterator<Item = &'static str> {
        self.rows()
            .next_back()
            .map(|i| generated::PROFILES[i].6)
            .unwrap_or_default()
            .lines()
    }

    /// The project directories this host reads that no other host shares
    /// ([`SHARED_DIRS`] left out): a file there is this host's by where it is.
    pub fn own_project_dirs(self) -> impl Iterator<Item = &'static str> {
        self.project_dirs().filter(|d| !SHARED_DIRS.contains(d))
    }

    /// Whether this is one of the pi subagent hosts (or the portable profile): a
    /// host that reads pi's directories.
    pub fn is_pi(self) -> bool {
        self.kind() != HostKind::Cli
    }

    /// The profile whose range (`applies`) holds the installed `version`, else the
    /// newest: what `pwk verify` compares a host with.
    pub fn profile_for_version(self, version: Option<&str>) -> &'static HostProfile {
        version
            .and_then(|v| {
                self.profiles()
                    .into_iter()
                    .rev()
                    .find(|p| version::satisfies(v, p.applies))
            })
            .unwrap_or_else(|| self.newest())
    }

    /// When the installed `version` is newer than the version pwk's newest profile of
    /// this host was measured on: that measured version (`2.1.332`).
    pub fn facts_older_than(self, version: &str) -> Option<String> {
        let measured = self.newest().measured_version()?;
        (version::parse(version)? > version::parse(&measured)?).then_some(measured)
    }

    /// The newest profile.
    pub fn newest(self) -> &'static HostProfile {
        full(self.rows().next_back().expect("every host has a version"))
    }
}

/// The resolved profiles, from `schemas/hosts/*.json` by build.rs.
#[allow(unreachable_pub)] // build.rs writes `pub` items
mod generated {
    include!(concat!(env!("OUT_DIR"), "/host_profiles.rs"));
}

/// One cell per row of the table. A profile is boxed: inline, the 21 cells of ~3 KB
/// each were 64 KB that a run using one profile wrote a word of every 3 KB in (16
/// pages faulted in at start-up).
type Cells = OnceLock<Vec<OnceLock<Box<HostProfile>>>>;

fn cell(cells: &'static Cells, i: usize) -> &'static OnceLock<Box<HostProfile>> {
    &cells.get_or_init(|| {
        (0..generated::PROFILES.len())
            .map(|_| OnceLock::new())
            .collect()
    })[i]
}

/// Row `i` of the table, fully (what `--host` uses).
fn full(i: usize) -> &'static HostProfile {
    static CELLS: Cells = OnceLock::new();
    cell(&CELLS, i).get_or_init(|| Box::new(make(i, 2 * i, generated::PROFILES[i].4)))
}

/// Row `i`, as the light view (every fact but the key facts' notes and sources):
/// what the portable profile consults about every host.
fn light(i: usize) -> &'static HostProfile {
    static CELLS: Cells = OnceLock::new();
    cell(&CELLS, i).get_or_init(|| Box::new(make(i, 2 * i + 1, generated::PROFILES[i].5)))
}

/// Row `i`'s profile or view: as build.rs laid it out (`layout`, a row of
/// `generated::LAYOUT`), each part read on first use; in a debug build run with
/// `PWK_DEBUG_PROFILE_PATCH` naming its host, its packed form (`range` in the
/// table) read and patched.
fn make(i: usize, layout: usize, (start, end): (u32, u32)) -> HostProfile {
    let (host, ..) = generated::PROFILES[i];
    let profile = match crate::env::debug_profile_patch() {
        Some((h, patch)) if h == host => {
            let packed = &generated::PACKED[start as usize..end as usize];
            let mut v: serde_json::Value =
                unpack::from_packed(packed, generated::PACKED_TEXT).expect("tested");
            let patch = serde_json::from_str(&patch).expect("PWK_DEBUG_PROFILE_PATCH: JSON");
            merge::merge_patch(&mut v, patch);
            // The profile borrows its strings for the whole run, and a `Value`
            // cannot lend them: pack the patched value and leak the packed form.
            // Debug-only, and once per process (the profile is cached).
            let mut out = packed::Packer::default();
            packed::pack(&v, &mut out);
            unpack::from_packed(out.bytes.leak(), out.text.leak())
                .expect("PWK_DEBUG_PROFILE_PATCH: a profile")
        }
        _ => generated::laid_out(layout),
    };
    HostProfile {
        host: HostId::from_name(host).expect("a known host"),
        profile,
        caches: Default::default(),
    }
}

impl std::fmt::Display for HostId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A profile with the host it belongs to.
#[derive(Debug)]
pub struct HostProfile {
    pub host: HostId,
    pub profile: Profile,
    caches: schema::Caches,
}

impl std::ops::Deref for HostProfile {
    type Target = Profile;
    fn deref(&self) -> &Profile {
        &self.profile
    }
}

/// In JSON documents a profile is its host's name; documents that need the version
/// carry `label()` beside it.
impl serde::Serialize for HostProfile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.host.as_str())
    }
}

impl HostProfile {
    /// The host's name (`tintinweb`).
    pub fn as_str(&self) -> &'static str {
        self.host.as_str()
    }

    /// The version the profile was measured on: the leading `x.y.z` of `measured`.
    pub fn measured_version(&self) -> Option<String> {
        let v: String = self
            .measured
            .trim_start_matches(['v', ' '])
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let v = v.trim_end_matches('.').to_string();
        version::parse(&v)
            .is_some()
            .then_some(v)
            .filter(|v| v.contains('.'))
    }

    /// `tintinweb@0.18`.
    pub fn label(&self) -> String {
        if self.is_portable() {
            return "pwk".to_string();
        }
        format!("{}@{}", self.host, self.version)
    }

    /// Whether this is the portable profile.
    pub fn is_portable(&self) -> bool {
        self.host == HostId::Pwk
    }

    /// The severity of `rule` under this host, given the rule's default.
    pub fn severity_of(&self, rule: &str, default: Severity) -> Severity {
        self.severity.get(rule).copied().unwrap_or(default)
    }

    /// Whether the host's loader reads `key`.
    pub fn reads(&self, key: &str) -> bool {
        self.keys.contains_key(key)
    }

    /// The fact for a key the host reads.
    pub fn key(&self, key: &str) -> Option<&KeyFact> {
        self.keys.get(key).map(|f| &**f)
    }

    /// Whether the host skips a role without `key`.
    pub fn requires(&self, key: &str) -> Option<&Required> {
        self.required.iter().find(|r| r.key == key)
    }

    /// Whether `path`'s file name is one the host never reads as a role.
    pub fn excludes(&self, file_name: &str) -> Option<&Exclude> {
        self.discovery.exclude.iter().find(|e| {
            (!e.suffix.is_empty() || !e.prefix.is_empty())
                && file_name.ends_with(&e.suffix)
                && file_name.starts_with(e.prefix)
        })
    }

    /// Whether a tool entry is one the host knows: a built-in, a host tool, or a
    /// token (`*`, `none`).
    pub fn knows_tool(&self, name: &str) -> bool {
        let t = &self.tools;
        if t.case_insensitive {
            let lower = name.to_lowercase();
            return [
                &t.builtins,
                &t.injected,
                &t.provided,
                &t.all_tokens,
                &t.none_tokens,
            ]
            .iter()
            .any(|list| list.iter().any(|b| b.to_lowercase() == lower));
        }
        t.builtins.contains(&name)
            || t.aliases.contains_key(name)
            || t.injected.contains(&name)
            || t.provided.contains(&name)
            || t.all_tokens.contains(&name)
            || t.none_tokens.contains(&name)
    }
}

use crate::severity::Severity;

/// A host as asked for on the command line: `tintinweb`, `tintinweb@0.14`,
/// `nicobailon@0.67.0`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostSpec {
    pub host: HostId,
    pub version: Option<String>,
}

/// Why a host spec could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    #[error("unknown host `{}`{hint}; known hosts: {known}", crate::text::clip(.0), hint = did_you_mean_host(.0), known = known_hosts())]
    UnknownHost(String),
    #[error("pwk has no profile of {host} for version {}; known: {known}", crate::text::clip(.version))]
    UnknownVersion {
        host: HostId,
        version: String,
        known: String,
    },
}

fn known_hosts() -> String {
    let mut v: Vec<&str> = ALL.iter().map(|h| h.as_str()).collect();
    v.push("auto");
    v.join(", ")
}

fn did_you_mean_host(word: &str) -> String {
    match crate::suggest::did_you_mean(word, ALL.iter().map(|h| h.as_str())) {
        Some(h) => format!(" (did you mean `{h}`?)"),
        None => String::new(),
    }
}

impl std::str::FromStr for HostSpec {
    type Err = HostError;
    fn from_str(s: &str) -> Result<HostSpec, HostError> {
        let (name, version) = match s.split_once('@') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (s, None),
        };
        let host = HostId::from_name(name).ok_or_else(|| HostError::UnknownHost(name.into()))?;
        let spec = HostSpec { host, version };
        spec.profile()?;
        Ok(spec)
    }
}

impl HostSpec {
    pub fn newest(host: HostId) -> HostSpec {
        HostSpec {
            host,
            version: None,
        }
    }

    /// The profile this spec selects: the bare name is the newest profile; a version
    /// is a profile label (`0.14`) or a package version inside a profile's range.
    pub fn profile(&self) -> Result<&'static HostProfile, HostError> {
        let Some(v) = &self.version else {
            return Ok(self.host.newest());
        };
        let rows: Vec<usize> = self.host.rows().collect();
        let row = |i: &usize| generated::PROFILES[*i];
        if let Some(i) = rows.iter().find(|i| row(i).2 == v) {
            return Ok(full(*i));
        }
        if let Some(i) = rows.iter().rev().find(|i| version::satisfies(v, row(i).3)) {
            return Ok(full(*i));
        }
        Err(HostError::UnknownVersion {
            host: self.host,
            version: v.clone(),
            known: self
                .host
                .versions()
                .iter()
                .map(|(v, applies)| format!("{v} ({applies})"))
                .collect::<Vec<_>>()
                .join(", "),
        })
    }
}

/// What `--host` asked for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HostChoice {
    /// Detect from pi's settings ([`detect()`]).
    Auto,
    Spec(HostSpec),
}

impl std::str::FromStr for HostChoice {
    type Err = HostError;
    fn from_str(s: &str) -> Result<HostChoice, HostError> {
        if s == "auto" {
            return Ok(HostChoice::Auto);
        }
        s.parse().map(HostChoice::Spec)
    }
}

/// The profile a command uses, and how it was chosen.
#[derive(Debug, Clone)]
pub struct Chosen {
    pub profile: &'static HostProfile,
    /// Set when `--host auto` decided.
    pub detection: Option<Detection>,
    /// Where a fixed choice came from (`pwk.toml:1:1`), when not `--host`.
    pub source: Option<String>,
}

impl Chosen {
    /// One line for humans: which profile and why (paths shown from `cwd`).
    pub fn explain(&self, cwd: &std::path::Path) -> String {
        match &self.detection {
            Some(d) => format!(
                "host profile {} (auto: {})",
                self.profile.label(),
                d.reason_from(cwd)
            ),
            None => format!(
                "host profile {} ({})",
                self.profile.label(),
                self.source.as_deref().unwrap_or("--host")
            ),
        }
    }
}

impl HostChoice {
    /// The profile to use for a project at `project_root`.
    pub fn resolve(
        &self,
        project_root: &std::path::Path,
        agent_dir: Option<&std::path::Path>,
    ) -> Chosen {
        match self {
            HostChoice::Spec(spec) => Chosen {
                profile: spec.profile().expect("validated when parsed"),
                detection: None,
                source: None,
            },
            HostChoice::Auto => {
                let d = detect(project_root, agent_dir);
                Chosen {
                    profile: d.spec.profile().expect("detection picks known profiles"),
                    detection: Some(d),
                    source: None,
                }
            }
        }
    }

    /// A fixed profile (tests, and callers that never detect).
    pub fn fixed(host: HostId) -> Chosen {
        Chosen {
            profile: host.newest(),
            detection: None,
            source: None,
        }
    }
}

/// Every profile of every real pi host, oldest first per host: the portable
/// profile is safe when it is safe on each of these.
pub fn pi_profiles() -> impl Iterator<Item = &'static HostProfile> {
    PI_HOSTS.into_iter().flat_map(|h| h.rows().map(light))
}

/// What the portable profile asks about one real pi host profile on every run, as
/// data build.rs compiled in (no profile is parsed): [`pi_rows`].
#[derive(Debug, Clone, Copy)]
pub struct PiRow {
    pub host: HostId,
    pub version: &'static str,
    keys: &'static [&'static str],
    rejected: &'static [&'static str],
    instead: &'static [(&'static str, &'static str)],
    default_values: &'static [(&'static str, &'static str)],
    required: &'static [&'static str],
    /// The keys whose text the host parses again as JSON (`parsed_as: json`); the
    /// run reads them from build.rs's `PI_KEYS`, the test of that table from here.
    #[cfg_attr(not(test), allow(dead_code))]
    json: &'static [&'static str],
}

impl PiRow {
    /// Whether the host skips a role without `key`.
    pub fn requires(&self, key: &str) -> bool {
        self.required.contains(&key)
    }
    /// Whether the host's loader reads `key`.
    pub fn reads(&self, key: &str) -> bool {
        self.keys.contains(&key)
    }
    /// Whether the host refuses a role with `key`.
    pub fn rejects(&self, key: &str) -> bool {
        self.rejected.contains(&key)
    }
    /// What the host reads instead of `key`.
    pub fn instead(&self, key: &str) -> Option<&'static str> {
        self.instead
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }
    /// The value of unread `key` that matches what the host does anyway.
    pub fn default_value(&self, key: &str) -> Option<&'static str> {
        self.default_values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }
}

/// Every profile of every real pi host, oldest first per host (as [`pi_profiles`]),
/// as the facts the portable profile consults per file.
pub fn pi_rows() -> impl Iterator<Item = PiRow> {
    pi_table().rows.iter().copied()
}

/// The pi rows, made once per process, with each key's readers and refusers as bit
/// sets over them: what the portable profile asks for every key of every file.
pub struct PiTable {
    pub rows: Vec<PiRow>,
    /// Every key some row reads or refuses, sorted (`names[id]`), looked up at the
    /// cost of a short FNV-1a hash and one comparison ([`key_index`], laid out by
    /// build.rs): asked for every key of every file under the portable profile.
    names: Vec<&'static str>,
}

/// A set of the pi table's keys, as bits (no allocation): what each file reports
/// as read by only some hosts, under the portable profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeySet(u128);

impl KeySet {
    pub fn insert(&mut self, key: KeyRows) {
        self.0 |= 1 << key.id;
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The keys, sorted.
    pub fn iter(self) -> impl Iterator<Item = &'static str> {
        let names = &pi_table().names;
        (0..names.len())
            .filter(move |i| self.0 & (1 << i) != 0)
            .map(move |i| names[i])
    }
}

/// What the pi rows do with one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRows {
    /// The key, as the rows spell it (borrowed for the life of the process).
    pub key: &'static str,
    /// Its place among the table's keys (sorted), for a [`KeySet`].
    pub id: u8,
    /// Bit `i`: row `i` reads the key.
    pub readers: u64,
    /// Some row refuses a role with the key.
    pub rejected: bool,
    /// Bit `i`: row `i` parses the key's text again as JSON (`parsed_as: json`).
    pub json: u64,
}

impl PiTable {
    /// What the rows do with `key`; `None` when no row reads or refuses it.
    pub fn key(&self, key: &str) -> Option<KeyRows> {
        let keys = generated::PI_KEYS;
        let id = key_index::find(generated::PI_KEY_SLOTS, key, |n| keys[n].0)?;
        let (key, readers, rejected, json) = keys[id];
        Some(KeyRows {
            key,
            id: id as u8,
            readers,
            rejected,
            json,
        })
    }

    /// The rows that read `key`, as bits.
    pub fn readers(&self, key: &str) -> u64 {
        self.key(key).map_or(0, |k| k.readers)
    }

    /// Whether some row refuses a role with `key`.
    pub fn rejected_somewhere(&self, key: &str) -> bool {
        self.key(key).is_some_and(|k| k.rejected)
    }

    /// Every row, as bits.
    pub fn all(&self) -> u64 {
        u64::MAX >> (64 - self.rows.len())
    }

    /// The rows selected by `mask`.
    pub fn select(&self, mask: u64) -> impl Iterator<Item = PiRow> + '_ {
        self.rows
            .iter()
            .enumerate()
            .filter(move |(i, _)| mask & (1 << i) != 0)
            .map(|(_, r)| *r)
    }
}

/// The one [`PiTable`].
pub fn pi_table() -> &'static PiTable {
    static TABLE: std::sync::OnceLock<PiTable> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let rows: Vec<PiRow> = generated::PI_ROWS
            .iter()
            .map(
                |&(host, version, keys, rejected, instead, default_values, required, json)| PiRow {
                    host: HostId::from_name(host).expect("a known host"),
                    version,
                    keys,
                    rejected,
                    instead,
                    default_values,
                    required,
                    json,
                },
            )
            .collect();
        assert!(
            (1..=64).contains(&rows.len()),
            "the pi rows fit one u64 bit set"
        );
        // Each key's readers, refusal and JSON readers, worked out by build.rs
        // (sorted: a key's place is its id).
        let keys = generated::PI_KEYS;
        assert!(keys.len() <= 128, "the pi keys fit a KeySet");
        PiTable {
            rows,
            names: keys.iter().map(|k| k.0).collect(),
        }
    })
}

/// The keys some real pi host (newest profile) reads that the role schema does not
/// document, each with the labels of the hosts that read it.
pub fn portable_extra_keys() -> &'static [(&'static str, &'static [&'static str])] {
    generated::PORTABLE_EXTRA
}

/// Profiles named compactly: a host whose every version is in `profiles` by its
/// bare name, otherwise each version (`tintinweb@0.18, nicobailon`).
pub fn name_profiles(profiles: &[&HostProfile]) -> String {
    let v: Vec<(HostId, &str)> = profiles.iter().map(|p| (p.host, p.version)).collect();
    name_versions(&v)
}

/// [`name_profiles`] for (host, version) pairs.
pub fn name_versions(profiles: &[(HostId, &str)]) -> String {
    let mut out: Vec<String> = Vec::new();
    for h in PI_HOSTS {
        let mine: Vec<&(HostId, &str)> = profiles.iter().filter(|p| p.0 == h).collect();
        if mine.is_empty() {
            continue;
        }
        let all = h.versions();
        let at = |p: &(HostId, &str)| all.iter().position(|(v, _)| *v == p.1);
        let idx: Vec<usize> = mine.iter().filter_map(|p| at(p)).collect();
        let contiguous = idx.windows(2).all(|w| w[1] == w[0] + 1);
        if mine.len() == all.len() {
            out.push(h.as_str().to_string());
        } else if mine.len() > 1 && contiguous {
            out.push(format!("{h}@{}–{}", mine[0].1, mine[mine.len() - 1].1));
        } else {
            out.extend(mine.iter().map(|p| format!("{h}@{}", p.1)));
        }
    }
    match out.len() {
        0 => "no host".to_string(),
        1 => out.remove(0),
        _ => {
            let last = out.pop().expect("non-empty");
            format!("{} and {last}", out.join(", "))
        }
    }
}

/// Split the real pi host profiles by a predicate: (those it holds for, the rest).
pub fn split_profiles(
    pred: impl Fn(&HostProfile) -> bool,
) -> (Vec<&'static HostProfile>, Vec<&'static HostProfile>) {
    pi_profiles().partition(|p| pred(p))
}

#[cfg(test)]
mod tests {
    use super::merge::merge_patch;
    use super::*;
    use serde::Deserialize as _;

    /// The key index answers as a scan of the rows does, for every key a row reads
    /// or refuses and for keys none does.
    #[test]
    fn pi_table_readers_match_the_rows() {
        let table = pi_table();
        let mut keys: Vec<&str> = table
            .rows
            .iter()
            .flat_map(|r| r.keys.iter().copied())
            .collect();
        keys.extend(["", "nme", "name ", "x-own", "toolsx", "max_turnsx", "Tools"]);
        for k in keys {
            let want = table
                .rows
                .iter()
                .enumerate()
                .filter(|(_, r)| r.reads(k))
                .fold(0u64, |m, (i, _)| m | 1 << i);
            assert_eq!(table.readers(k), want, "{k:?}");
        }
        // build.rs's table: every key a row reads or refuses, sorted, each with its
        // place, the rows that read it, whether one refuses it and the rows that
        // parse it as JSON.
        let mut all: Vec<&str> = table
            .rows
            .iter()
            .flat_map(|r| r.keys.iter().chain(r.rejected).copied())
            .collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(table.names, all);
        let bits = |f: &dyn Fn(&PiRow) -> bool| {
            table
                .rows
                .iter()
                .enumerate()
                .filter(|(_, r)| f(r))
                .fold(0u64, |m, (i, _)| m | 1 << i)
        };
        for (id, k) in all.iter().enumerate() {
            let e = table.key(k).expect("indexed");
            assert_eq!((e.key, e.id as usize), (*k, id));
            assert_eq!(e.readers, bits(&|r| r.reads(k)), "{k:?}");
            assert_eq!(e.rejected, table.rows.iter().any(|r| r.rejects(k)), "{k:?}");
            assert_eq!(e.json, bits(&|r| r.json.contains(k)), "{k:?}");
        }
    }

    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct HostFile {
        id: String,
        #[serde(rename = "package", default)]
        _package: Option<String>,
        #[serde(rename = "kind")]
        _kind: String,
        #[serde(rename = "in_portable", default)]
        _in_portable: bool,
        #[serde(rename = "repository", default)]
        _repository: Option<String>,
        #[serde(rename = "$comment", default)]
        _comment: Option<String>,
        versions: Vec<serde_json::Value>,
    }

    /// Parse one host's file and resolve its versions (merge patches applied in order).
    fn load(host: HostId) -> Result<Vec<HostProfile>, String> {
        let file: HostFile =
            serde_json::from_str(source(host)).map_err(|e| format!("{host}: {e}"))?;
        if file.id != host.as_str() {
            return Err(format!("{host}: file says id {}", file.id));
        }
        let mut current = serde_json::Value::Null;
        let mut out = Vec::new();
        for patch in file.versions {
            let label = patch["version"].clone();
            merge_patch(&mut current, patch);
            // Tests may leak: a profile borrows its strings for `'static`.
            let value: &'static serde_json::Value = Box::leak(Box::new(current.clone()));
            let profile =
                Profile::deserialize(value).map_err(|e| format!("{host}@{label}: {e}"))?;
            out.push(HostProfile {
                host,
                profile,
                caches: Default::default(),
            });
        }
        Ok(out)
    }

    /// The packed table reads as the source files do: each row's profile is its
    /// host's file resolved to that version (`notes` left out), and its light view
    /// reads too, with the same keys and schemas; each row and view as build.rs
    /// laid it out reads as its packed form.
    #[test]
    fn packed_rows_read_as_the_source_files() {
        for h in ALL {
            let from_source = load(h).unwrap();
            let rows: Vec<usize> = h.rows().collect();
            assert_eq!(rows.len(), from_source.len(), "{h}");
            for (i, mut want) in rows.into_iter().zip(from_source) {
                want.profile.notes.clear();
                let got = full(i);
                assert_eq!(
                    format!("{:?}", got.profile),
                    format!("{:?}", want.profile),
                    "{h}@{}",
                    want.version
                );
                // The row as build.rs laid it out reads as its packed form does (what
                // a debug build's PWK_DEBUG_PROFILE_PATCH reads), view and all.
                for (laid_out, (start, end)) in [
                    (got, generated::PROFILES[i].4),
                    (light(i), generated::PROFILES[i].5),
                ] {
                    let packed = &generated::PACKED[start as usize..end as usize];
                    let read: Profile =
                        unpack::from_packed(packed, generated::PACKED_TEXT).unwrap();
                    assert_eq!(
                        format!("{:?}", laid_out.profile),
                        format!("{read:?}"),
                        "{h}@{}",
                        want.version
                    );
                }
                let view = light(i);
                assert!(view.keys.keys().eq(got.keys.keys()), "{h}@{}", got.version);
                // Each part stepped over when the row was read (every lazy section
                // and schema) reads whole on first use: printing the view reads it.
                let _ = format!("{:?}", view.profile);
                for (key, fact) in &view.keys {
                    assert_eq!(
                        *fact.schema, *got.keys[key].schema,
                        "{h}@{} {key}",
                        got.version
                    );
                }
            }
        }
    }

    /// A host's own settings (`settings`): every file, key and chain link cites its
    /// source; the chain names links `show` knows, the role's own once, and ends at
    /// the parent's model; a key's effect is one `show` applies.
    #[test]
    fn every_hosts_own_settings_cite_and_chain_well() {
        for h in ALL {
            for p in load(h).unwrap() {
                let Some(set) = &*p.settings else { continue };
                let label = format!("{h}@{}", p.version);
                assert!(!h.is_pi(), "{label}: a pi host reads pi's settings");
                assert!(!set.cite.is_empty(), "{label}");
                for f in &set.files {
                    assert!(!f.cite.is_empty(), "{label}: {}", f.path);
                    assert!(!f.path.starts_with('/'), "{label}: {}", f.path);
                }
                for k in &set.keys {
                    assert!(!k.cite.is_empty(), "{label}: {}", k.key);
                    if let Some(d) = &k.denies_tools {
                        assert!(
                            !d.cite.is_empty() && !d.note.is_empty(),
                            "{label}: {}",
                            k.key
                        );
                    }
                    assert!(
                        k.sets.is_none_or(|s| s == "max-turns"),
                        "{label}: {} sets {:?}",
                        k.key,
                        k.sets
                    );
                }
                let links: Vec<&str> = set.model_chain.iter().map(|s| s.link).collect();
                for step in &set.model_chain {
                    assert!(!step.cite.is_empty(), "{label}: {}", step.link);
                    assert!(
                        [
                            "invocation",
                            "frontmatter",
                            "per-agent-config",
                            "env",
                            "parent-default"
                        ]
                        .contains(&step.link),
                        "{label}: unknown link {}",
                        step.link
                    );
                }
                assert_eq!(
                    links.iter().filter(|l| **l == "frontmatter").count(),
                    1,
                    "{label}: {links:?}"
                );
                assert_eq!(links.last(), Some(&"parent-default"), "{label}");
            }
        }
    }

    #[test]
    fn every_profile_loads_and_cites_its_facts() {
        for h in ALL {
            // build.rs's table is the source, resolved: same versions, same keys, and
            // the light views read the same keys.
            let source = load(h).unwrap();
            let built = h.profiles();
            assert_eq!(source.len(), built.len(), "{h}");
            for (a, b) in source.iter().zip(&built) {
                assert_eq!(a.version, b.version);
                assert_eq!(
                    a.keys.keys().collect::<Vec<_>>(),
                    b.keys.keys().collect::<Vec<_>>()
                );
                assert_eq!(
                    a.rejected.keys().collect::<Vec<_>>(),
                    b.rejected.keys().collect::<Vec<_>>()
                );
            }
            for p in h.profiles() {
                for (key, fact) in &p.keys {
                    assert!(
                        !fact.cite.is_empty(),
                        "{}: `{key}` has no source",
                        p.label()
                    );
                    if fact.schema.as_str() == Some("role") {
                        assert!(
                            crate::role::schema::schema()["properties"][key].is_object(),
                            "{}: `{key}` says `role` but the role schema has no such key",
                            p.label()
                        );
                    }
                }
                for key in p.instead.keys().chain(p.rejected.keys()) {
                    assert!(!p.reads(key), "{}: `{key}` both read and not", p.label());
                }
                let _ = schema::validator(p);
            }
        }
    }

    /// Every file in `schemas/hosts/` is a registered host (a file the registry in
    /// build.rs does not name would be silently ignored), and every kind of host has
    /// the facts its kind needs.
    #[test]
    fn the_registry_names_every_host_file() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/hosts");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.unwrap().file_name().into_string().ok())
            .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
            .collect();
        files.sort();
        let mut registered: Vec<String> = ALL.iter().map(|h| h.to_string()).collect();
        registered.sort();
        assert_eq!(
            files, registered,
            "schemas/hosts/ vs the registry in build.rs"
        );
        for h in ALL {
            assert_eq!(HostId::from_name(h.as_str()), Some(h));
            let json: serde_json::Value = serde_json::from_str(source(h)).unwrap();
            assert_eq!(
                PI_HOSTS.contains(&h),
                json["in_portable"] == true,
                "{h}: in_portable"
            );
            if PI_HOSTS.contains(&h) {
                assert_eq!(
                    h.kind(),
                    HostKind::Pi,
                    "{h}: the portable profile checks pi hosts only"
                );
            }
        }
        assert_eq!(
            ALL.iter()
                .filter(|h| h.kind() == HostKind::Portable)
                .collect::<Vec<_>>(),
            [&HostId::Pwk],
            "one portable profile"
        );
    }

    /// herdr's model defaults, as its profile locates them: a role's own entry (a
    /// string, or the first of a fallback list) and the default.
    #[test]
    fn model_config_paths_read_herdr_config() {
        let json =
            serde_json::json!({"models": {"agents": {"a": ["x/1", "y/2"]}, "default": "z/3"}});
        let cfg = HostId::Herdr.newest().model_config.as_ref().unwrap();
        let at = |path: &str, role: &str| ModelConfig::lookup(path, role, &json);
        assert_eq!(at(cfg.per_agent, "a").as_deref(), Some("x/1"));
        assert_eq!(at(cfg.per_agent, "b"), None);
        assert_eq!(at(cfg.default, "a").as_deref(), Some("z/3"));
        assert!(HostId::Tintinweb.newest().model_config.is_none());
    }

    #[test]
    fn pi_rows_are_the_parsed_profiles() {
        let rows: Vec<PiRow> = pi_rows().collect();
        let profiles: Vec<&HostProfile> = pi_profiles().collect();
        assert_eq!(rows.len(), profiles.len());
        for (r, p) in rows.iter().zip(&profiles) {
            assert_eq!((r.host, r.version), (p.host, p.version));
            let keys: Vec<&str> = p.keys.keys().copied().collect();
            assert_eq!(r.keys, keys.as_slice(), "{}", p.label());
            let rejected: Vec<&str> = p.rejected.keys().copied().collect();
            assert_eq!(r.rejected, rejected.as_slice(), "{}", p.label());
            fn pairs(
                m: &std::collections::BTreeMap<&'static str, &'static str>,
            ) -> Vec<(&'static str, &'static str)> {
                m.iter().map(|(k, v)| (*k, *v)).collect()
            }
            assert_eq!(r.instead, pairs(&p.instead).as_slice(), "{}", p.label());
            let required: Vec<&str> = p.required.iter().map(|q| q.key).collect();
            assert_eq!(r.required, required.as_slice(), "{}", p.label());
            assert_eq!(
                r.default_values,
                pairs(&p.default_values).as_slice(),
                "{}",
                p.label()
            );
            let json: Vec<&str> = p
                .keys
                .iter()
                .filter(|(_, f)| f.parsed_as == Some(ParsedAs::Json))
                .map(|(k, _)| *k)
                .collect();
            assert_eq!(r.json, json.as_slice(), "{}", p.label());
        }
        // The table's bits are the rows' lists (some row parses a key as JSON, so
        // the test sees a case that is not empty).
        let table = pi_table();
        assert!(rows.iter().any(|r| !r.json.is_empty()));
        for (i, r) in rows.iter().enumerate() {
            for &k in r.json {
                assert_ne!(table.key(k).map_or(0, |e| e.json) & (1 << i), 0, "{k}");
            }
        }
    }

    #[test]
    fn specs_pick_versions() {
        let p = |s: &str| {
            s.parse::<HostSpec>()
                .and_then(|s| s.profile().map(|p| p.label()))
        };
        assert_eq!(p("tintinweb@0.14"), Ok("tintinweb@0.14".into()));
        assert_eq!(p("tintinweb@0.14.1"), Ok("tintinweb@0.14".into()));
        assert_eq!(p("tintinweb@0.16.3"), Ok("tintinweb@0.16".into()));
        assert_eq!(p("tintinweb@0.18.0"), Ok("tintinweb@0.18".into()));
        assert_eq!(p("tintinweb@0.20.1"), Ok("tintinweb@0.18".into()));
        assert_eq!(p("tintinweb@0.25.2"), Ok("tintinweb@0.25".into()));
        assert_eq!(p("tintinweb"), Ok("tintinweb@0.25".into()));
        assert_eq!(p("herdr@3.3.0"), Ok("herdr@3.3".into()));
        assert_eq!(p("nicobailon@0.76.1"), Ok("nicobailon@0.76".into()));
        assert_eq!(p("pi-example"), Ok("pi-example@1.6".into()));
        assert!(matches!(
            "tintinweb@0.1".parse::<HostSpec>(),
            Err(HostError::UnknownVersion { .. })
        ));
        let err = "tintinwb".parse::<HostSpec>().unwrap_err().to_string();
        assert!(err.contains("did you mean `tintinweb`"), "{err}");
    }

    #[test]
    fn merge_patch_follows_rfc7396() {
        let mut t = serde_json::json!({"a": {"b": 1, "c": 2}, "d": [1]});
        merge_patch(
            &mut t,
            serde_json::json!({"a": {"b": null, "e": 3}, "d": [2]}),
        );
        assert_eq!(t, serde_json::json!({"a": {"c": 2, "e": 3}, "d": [2]}));
    }
}
