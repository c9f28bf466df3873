//! The profile data model: what pwk claims about one host at one version.
//!
//! Profiles live in `schemas/hosts/<host>.json` (compiled in). A file holds the
//! host's versions oldest first; each later version is an RFC 7396 JSON merge patch
//! over the one before, so a version lists only what changed. Every fact carries its
//! source (`cite`): `package@version path:line`, `owner/repo@commit path:line`, an
//! observation (`observed: …`) or a changelog line (then it is at most a warning).
//!
//! Every string is `&'static str`, borrowed from the profile text compiled into the
//! binary ([`super::unpack`] lends it): reading a profile allocates no strings. Its
//! sections and each key's fact are [`Lazy`], read when something first looks at
//! them. A compiled-in profile's top level is laid out by build.rs (each field's
//! place in the packed form), so making one runs no reader.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{KeyMap, Lazy, LazyJson};
use crate::severity::Severity;

/// A fact's provenance.
pub type Cite = &'static str;

/// One host at one version, fully resolved (patches applied).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// What users type after `@` (`0.18`).
    pub version: &'static str,
    /// The package versions this profile describes (`>=0.17.0`, `>=0.14.0 <0.17.0`).
    pub applies: &'static str,
    /// The exact version whose source or behaviour was read.
    pub measured: &'static str,
    /// Where the facts come from, as a whole.
    pub source: &'static str,
    /// Human name, e.g. `@tintinweb/pi-subagents 0.18`.
    pub title: &'static str,
    pub discovery: Lazy<Discovery>,
    pub identity: Lazy<Identity>,
    pub parser: Lazy<Parser>,
    /// What the host does with a file whose frontmatter it cannot parse.
    pub bad_file: Lazy<BadFile>,
    /// What the host does with a file that has no frontmatter (or no keys in it).
    pub no_frontmatter: Lazy<NoFrontmatter>,
    /// Keys without which the host skips the role.
    #[serde(default)]
    pub required: Lazy<Vec<Required>>,
    /// Every frontmatter key the host's loader reads, and nothing else.
    pub keys: KeyMap<Lazy<KeyFact>>,
    /// Keys the host reads only as one unquoted `key: value` line, and what it does
    /// with a YAML list or a quoted value there (herdr 3.x: removes the role).
    #[serde(default)]
    pub strict_lines: Lazy<Option<StrictLines>>,
    /// What the host does with a key it does not read, when it says something
    /// (Copilot CLI: loads the agent and warns).
    #[serde(default)]
    pub unknown_keys: Lazy<Option<Fact>>,
    /// For documented keys the host does not read: what it reads instead.
    #[serde(default)]
    pub instead: Lazy<BTreeMap<&'static str, &'static str>>,
    /// For an unread key, the value that matches what the host does anyway (then
    /// the key is harmless there and not reported).
    #[serde(default)]
    pub default_values: Lazy<BTreeMap<&'static str, &'static str>>,
    /// Keys that make the host refuse the role.
    #[serde(default)]
    pub rejected: Lazy<BTreeMap<&'static str, Fact>>,
    /// Set when the host refuses a role that declares a hook under a key other
    /// than `hooks` (Claude Code: a misplaced permission guard).
    #[serde(default)]
    pub misplaced_hooks: Lazy<Option<Fact>>,
    /// Set when the host refuses a role with ANY key it does not read (Gemini
    /// CLI's strict schema): then an unread key is an error, not a warning.
    #[serde(default)]
    pub strict_keys: Lazy<Option<Fact>>,
    pub tools: Lazy<Tools>,
    /// Where the host looks for the skills a role names in `skills:` (`None`: the
    /// host reads no such key, or pwk does not know where it looks).
    #[serde(default)]
    pub skill_dirs: Lazy<Option<SkillDirs>>,
    /// What the host does with a `model` it cannot resolve.
    pub unresolvable_model: Lazy<Fact>,
    /// A configuration file the host reads model defaults from, per role and for
    /// every role (pi-herdr-agents' `herdr-agents/config.json`): the model chain's
    /// per-agent and global links.
    #[serde(default)]
    pub model_config: Lazy<Option<ModelConfig>>,
    /// A host with its own CLI: its own settings files, what in them changes a
    /// sub-agent, and its model chain (`None`: not known to pwk).
    #[serde(default)]
    pub settings: Lazy<Option<HostSettings>>,
    /// How the host names models.
    #[serde(default)]
    pub models: Lazy<Models>,
    /// Rule severities that differ for this host.
    #[serde(default)]
    pub severity: Lazy<BTreeMap<&'static str, Severity>>,
    /// Other facts worth knowing, each with its source: for people reading the file
    /// (build.rs leaves them out of the binary, so this is empty at run time).
    #[serde(default)]
    pub notes: Vec<&'static str>,
    /// The role's permission mode, where the host has one (Claude Code).
    #[serde(default)]
    pub permission_modes: Lazy<Option<PermissionModes>>,
    /// Keys that are different hosts' spellings of one setting (portable profile):
    /// a role that sets it for every host in their own spellings is not warned.
    #[serde(default)]
    pub equivalents: Lazy<Vec<Equivalent>>,
    /// How well the host is known as a whole: `docs` for a host pwk knows only from
    /// its documentation and issues (no loader read, nothing run: Antigravity CLI,
    /// goose), and then every finding under this profile is a warning at most.
    #[serde(default)]
    pub confidence: Lazy<Confidence>,
    /// A key the host loads the file without but needs, with this value, before it
    /// offers the agent for delegation (Antigravity CLI: `subagent: true`, else
    /// `invoke_subagent` never reaches it): `not-invocable`.
    #[serde(default)]
    pub invocable: Lazy<Option<Invocable>>,
    /// Kinds of agent the host tells apart by one key's value, each with its own keys
    /// and required keys (Gemini CLI: `kind: local` and `kind: remote`): a key fact's
    /// and a required key's `kinds` say which kinds they belong to.
    #[serde(default)]
    pub variants: Lazy<Option<Variants>>,
}

/// The key and value that make a loaded agent callable ([`Profile::invocable`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invocable {
    pub key: &'static str,
    pub value: serde_json::Value,
    /// What the host does without it, completing "`<host>` …".
    pub note: &'static str,
    pub cite: Cite,
    #[serde(default)]
    pub confidence: Confidence,
}

/// Kinds of agent told apart by a key ([`Profile::variants`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variants {
    /// The key whose value names the kind (`kind`).
    pub key: &'static str,
    /// The kind of an agent without that key.
    pub default: &'static str,
    /// Groups of keys of which a kind needs exactly one (a remote agent's
    /// `agent_card_url` or `agent_card_json`).
    #[serde(default)]
    pub one_of: Vec<OneOf>,
    /// The kinds whose body is the agent's prompt (a remote agent has none).
    #[serde(default)]
    pub prompt_kinds: Vec<&'static str>,
    pub cite: Cite,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OneOf {
    pub keys: Vec<&'static str>,
    pub kinds: Vec<&'static str>,
    /// What the host does otherwise, completing "`<host>` …".
    pub note: &'static str,
}

impl Variants {
    /// Whether the body is the prompt of an agent of this kind.
    pub fn has_prompt(&self, kind: &str) -> bool {
        self.prompt_kinds.is_empty() || self.prompt_kinds.contains(&kind)
    }

    /// The kind of the agent `tree` describes.
    pub fn kind_of<'a>(&'a self, tree: &'a crate::role::Node) -> &'a str {
        tree.get(self.key)
            .and_then(|n| n.as_scalar())
            .map_or(self.default, str::trim)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Equivalent {
    pub keys: Vec<&'static str>,
    pub note: &'static str,
}

/// What a host does with a file without frontmatter keys.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoFrontmatter {
    pub action: NoFrontmatterAction,
    /// Completes "\<host> …".
    pub note: &'static str,
    pub cite: Cite,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoFrontmatterAction {
    /// Loads the file as a role with every default (stem identity, default tools).
    LoadDefaults,
    SkipSilent,
}

/// A statement with its source.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fact {
    pub note: &'static str,
    pub cite: Cite,
    #[serde(default)]
    pub confidence: Confidence,
}

/// Keys a host reads only as one unquoted line ([`Profile::strict_lines`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrictLines {
    pub keys: Vec<&'static str>,
    /// What the host does otherwise, as a clause.
    pub note: &'static str,
    pub cite: Cite,
    #[serde(default)]
    pub confidence: Confidence,
}

/// How well a fact is established.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Read in the host's source or measured on the real host.
    #[default]
    Source,
    /// Known only from the host's changelog: findings built on it are warnings.
    Changelog,
    /// Known only from the host's documentation (its loader is not public, or was
    /// not read): findings built on it are warnings.
    Docs,
}

impl Confidence {
    /// Whether a finding built on this fact may be an error.
    pub fn may_error(self) -> bool {
        self == Confidence::Source
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Discovery {
    /// Lowest precedence first; a later directory wins a name clash.
    pub dirs: Vec<DiscoveryDir>,
    /// Directories where other pi hosts look that this one never reads: pwk lists
    /// the roles there as not visible to this host, with `note` as the reason.
    #[serde(default)]
    pub unread: Vec<UnreadDir>,
    /// File names the host never reads as roles.
    #[serde(default)]
    pub exclude: Vec<Exclude>,
    /// The file-name suffix of a role file (`.md`; Copilot: `.agent.md`).
    #[serde(default = "md")]
    pub suffix: &'static str,
    /// Where project directories are resolved from.
    pub base: Base,
    pub cite: Cite,
}

/// Where project-relative discovery directories are resolved from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Base {
    /// The directory pi starts in.
    Cwd,
    /// The project root (pwk's rule: nearest `.git`, `.agents` or `.pi`).
    ProjectRoot,
    /// The current directory and those above it (OpenCode's `.opencode`
    /// directories; pi's example extension takes the nearest `.pi/agents`): pwk
    /// reads the project root's.
    Upward,
}

/// A directory a host does not read, where other hosts do ([`Discovery::unread`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnreadDir {
    /// Relative to the base, as [`DiscoveryDir::path`].
    pub path: &'static str,
    pub layer: DirLayer,
    /// Why the host does not see a role there, and what to do.
    pub note: &'static str,
    pub cite: Cite,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscoveryDir {
    /// `{agent_dir}/agents`, `{home}/.agents`, or a path relative to the base.
    pub path: &'static str,
    pub layer: DirLayer,
    #[serde(default)]
    pub recursive: bool,
    /// Sub-directories a recursive scan leaves out.
    #[serde(default)]
    pub skip_dirs: Vec<&'static str>,
    pub cite: Cite,
}

impl DiscoveryDir {
    /// The path as people write it (`$PI_CODING_AGENT_DIR/agents`, `~/.agents`).
    pub fn display(&self) -> String {
        self.path
            .replace("{agent_dir}", "$PI_CODING_AGENT_DIR")
            .replace("{home}", "~")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DirLayer {
    Global,
    Project,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exclude {
    /// A file-name suffix (`.chain.md`).
    #[serde(default)]
    pub suffix: &'static str,
    /// A file-name prefix (Gemini CLI: `_`).
    #[serde(default)]
    pub prefix: &'static str,
    pub note: &'static str,
    pub cite: Cite,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    pub by: IdentityBy,
    /// `name` is a display label, not an identity (Copilot): a `name` that differs
    /// from the file name is not a finding.
    #[serde(default)]
    pub name_is_label: bool,
    /// What the host does when called by a name it does not know, completing
    /// "\<host> …" (tintinweb: runs a general-purpose child with all seven tools).
    #[serde(default)]
    pub on_unknown: Option<&'static str>,
    /// Set when the host matches a called name without regard to case, when no
    /// role has it exactly (tintinweb).
    #[serde(default)]
    pub case_insensitive: Option<Fact>,
    pub cite: Cite,
}

/// How a host names a role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IdentityBy {
    /// The file name without `.md`; `name` is never read.
    Stem,
    /// The `name` key (required).
    Name,
    /// `name`, falling back to the file stem.
    NameThenStem,
}

impl IdentityBy {
    /// In words, for listings.
    pub fn describe(self) -> &'static str {
        match self {
            IdentityBy::Stem => "file stem (`name` is ignored)",
            IdentityBy::Name => "`name` (required)",
            IdentityBy::NameThenStem => "`name`, else the file stem",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parser {
    pub kind: ParserKind,
    /// Which parser, in words (`pi's parseFrontmatter (yaml 2.x)`).
    pub library: &'static str,
    /// Whether a quoted value is read without its quotes.
    pub quotes: Quotes,
    /// What the host makes of a flow list (`[a, b]`) in a list-valued key.
    pub flow_lists: ListReading,
    /// What the host makes of a block list (`- a`) in a list-valued key.
    pub block_lists: ListReading,
    /// Whether a tab after `key:` parses.
    #[serde(default = "yes")]
    pub tab_after_colon: bool,
    /// What the host does when strict YAML rejects the frontmatter: nothing (the
    /// parser's verdict stands), or its own rewrite and a second parse.
    #[serde(default)]
    pub repair: crate::role::repair::Repair,
    /// Set when the reader splits lines on `\n` only and a lone `\r` hides the keys
    /// of the line it joins (nicobailon's key regex, [`crate::role::line_reader`]);
    /// YAML readers take a lone `\r` as a line break.
    #[serde(default)]
    pub lone_cr: Option<Fact>,
    /// Set when the host turns every lone `\r` into `\n` before it looks for the
    /// fences (pi's parseFrontmatter): a file whose lines end in a lone `\r` has
    /// frontmatter for it, where a reader that splits on `\n` sees one line.
    #[serde(default)]
    pub cr_newlines: Option<Fact>,
    /// Where the host ends the frontmatter (Claude Code: at the first `---`
    /// anywhere).
    #[serde(default)]
    pub closing: crate::role::Closing,
    /// What a UTF-8 byte order mark before `---` does.
    pub bom: BomReading,
    /// The same, in words, with its source.
    pub bom_note: &'static str,
    pub cite: Cite,
}

fn yes() -> bool {
    true
}

fn md() -> &'static str {
    ".md"
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParserKind {
    /// A YAML library.
    Yaml,
    /// The host's own line-by-line reader.
    Line,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BomReading {
    /// Stripped: the frontmatter is read.
    Stripped,
    /// The frontmatter is not seen (the file is skipped or loads without keys).
    HidesFrontmatter,
    /// Depends on the pi version underneath.
    Varies,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Quotes {
    Stripped,
    Kept,
}

/// How a list form reaches the host's list-valued keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ListReading {
    /// Read as the list it is.
    Read,
    /// Not read: the key acts as if it had no usable value.
    NotRead,
    /// Read as one string, brackets and all.
    AsString,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BadFile {
    pub action: BadFileAction,
    /// The host's own words, when it says anything.
    #[serde(default)]
    pub message: Option<&'static str>,
    pub cite: Cite,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BadFileAction {
    /// pi fails to start (the extension throws while loading).
    RefuseStart,
    /// The file is skipped with a warning on stderr.
    SkipWarn,
    /// The file is skipped without a word.
    SkipSilent,
    /// Discovery throws when the call is made: every call of the host's tool fails
    /// while the file is there (pi's example extension).
    FailsCalls,
    /// The whole file, frontmatter included, becomes the prompt of a role with
    /// every default (OpenCode 1.18.33).
    LoadDefaults,
}

impl BadFileAction {
    /// What happens, completing "the host …".
    pub fn describe(self) -> &'static str {
        match self {
            BadFileAction::RefuseStart => "fails to load, and pi exits at start-up",
            BadFileAction::SkipWarn => "skips the file with a warning on stderr",
            BadFileAction::SkipSilent => "skips the file silently",
            BadFileAction::FailsCalls => {
                "fails every `subagent` call while the file is there (discovery throws)"
            }
            BadFileAction::LoadDefaults => {
                "loads the whole file, frontmatter included, as the prompt of a role with every default"
            }
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Required {
    pub key: &'static str,
    /// Whether an empty string counts as present (Copilot CLI loads `description: ""`).
    #[serde(default)]
    pub empty_ok: bool,
    /// The kinds of agent that need it ([`Profile::variants`]); empty: every kind.
    #[serde(default)]
    pub kinds: Vec<&'static str>,
    pub note: &'static str,
    pub cite: Cite,
}

/// One key the host reads.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyFact {
    /// What the loader accepts without misreading, as a JSON Schema fragment, or the
    /// string `"role"`: as `schemas/role.schema.json` documents it.
    /// Read on first use ([`LazyJson`]).
    #[serde(default = "any_schema")]
    pub schema: LazyJson,
    /// Human description of the key under this host.
    #[serde(default)]
    pub note: Option<&'static str>,
    /// What the host does when the key is absent.
    #[serde(default)]
    pub default: Option<&'static str>,
    pub cite: Cite,
    #[serde(default)]
    pub confidence: Confidence,
    /// The host-independent setting this key carries, for `pwk convert`: keys of
    /// different hosts with the same setting are one another's spelling
    /// (`max-turns`: tintinweb `max_turns`, Claude Code `maxTurns`).
    #[serde(default)]
    pub setting: Option<&'static str>,
    /// What the host does with the whole role when this key's value is not what
    /// `schema` allows, completing "`<host>` …", when that is worse than ignoring the
    /// value (Claude Code drops an agent whose `hooks` is not a hooks mapping): the
    /// finding is then an error that says so.
    #[serde(default)]
    pub on_invalid: Option<&'static str>,
    /// How the host parses the value's text after reading it (nicobailon: `toolBudget`
    /// with `JSON.parse`, a value that does not parse drops the role).
    #[serde(default)]
    pub parsed_as: Option<ParsedAs>,
    /// The kinds of agent this key belongs to ([`Profile::variants`]); empty: every
    /// kind. The host refuses an agent of another kind that has it.
    #[serde(default)]
    pub kinds: Vec<&'static str>,
}

/// How a host re-parses a key's text ([`KeyFact::parsed_as`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParsedAs {
    Json,
    Yaml,
}

fn any_schema() -> LazyJson {
    LazyJson::ready(serde_json::json!({}))
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tools {
    /// Built-in tool names the host hands to the child.
    pub builtins: Vec<&'static str>,
    /// Tools the host adds to every child, whatever `tools` says.
    #[serde(default)]
    pub injected: Vec<&'static str>,
    /// Tools of the host's own that a role may list.
    #[serde(default)]
    pub provided: Vec<&'static str>,
    /// Entries that mean every built-in.
    #[serde(default)]
    pub all_tokens: Vec<&'static str>,
    /// Entries that mean no tools.
    #[serde(default)]
    pub none_tokens: Vec<&'static str>,
    /// Entry prefixes that name extension tools (`ext:`).
    #[serde(default)]
    pub extension_prefixes: Vec<&'static str>,
    /// The key that loads extensions whose tools a role may then name plainly.
    #[serde(default)]
    pub extension_key: Option<&'static str>,
    /// This host's tool names that stand for pi built-ins under another name
    /// (Claude Code `Glob` → `find`; Copilot `search` → `grep`, `find`): the shared
    /// vocabulary `pwk convert` maps through. A pi built-in maps to itself.
    #[serde(default)]
    pub maps_to: BTreeMap<&'static str, Vec<&'static str>>,
    /// Whether `tools:` with no value gives the child no tools (Claude Code
    /// 2.1.332: `bgn(null)` is `[]`) rather than the default.
    #[serde(default)]
    pub no_value_is_none: bool,
    /// Tools the host does not hand over separately when another is granted
    /// (Claude Code 2.1.332: with `Bash`, no `Grep` or `Glob`; the child searches
    /// through Bash).
    #[serde(default)]
    pub folded_into: BTreeMap<&'static str, Vec<&'static str>>,
    /// Entries the host renames to another of its tools (Claude Code 2.1.332:
    /// `Task` → `Agent`): known, and the child gets the tool it names.
    #[serde(default)]
    pub aliases: BTreeMap<&'static str, &'static str>,
    /// Names the host accepts in `tools` but never gives the child (Claude Code
    /// 2.1.332: `TaskCreate`, `Search`; Gemini CLI 0.61: `read_many_files`).
    #[serde(default)]
    pub dropped: Lazy<Option<Dropped>>,
    /// Whether an entry may carry a specifier (`Bash(git *)`, `Agent(reviewer)`):
    /// the tool is the name before `(`.
    #[serde(default)]
    pub specifiers: bool,
    /// Whether the host matches tool names without regard to case (Copilot).
    #[serde(default)]
    pub case_insensitive: bool,
    /// Whether a `tools` string is split on white space too, not only on commas
    /// (Claude Code: `Read Grep` is two tools); an entry with a specifier stays whole.
    #[serde(default)]
    pub split_on_whitespace: bool,
    /// What the host does when no entry of `tools` names a tool it knows, when that
    /// is worse than running without them (Claude Code refuses to spawn the child).
    #[serde(default)]
    pub all_unknown: Option<&'static str>,
    /// What the host does with a name it does not know.
    pub unknown: &'static str,
    /// What the child gets when `tools` is absent, completing "the child gets …".
    pub missing: &'static str,
    /// The same, as tool names (pi's defaults and the host's own tools).
    pub default: Vec<&'static str>,
    /// Whether the child's default (no `tools`) includes mutating tools.
    pub missing_is_mutating: bool,
    /// What pi's own MCP support makes of the role's tools, where the host hands
    /// them to pi's tool allow-list (`pi --tools`): `None` when pwk has no such fact.
    #[serde(default)]
    pub mcp: Lazy<Option<McpReach>>,
    /// Set when no `tools` (or an all-token) gives the child every tool of the
    /// session, beyond the names in `default`: MCP servers' tools and whatever the
    /// parent has (Claude Code, Copilot, Gemini CLI, OpenCode).
    #[serde(default)]
    pub open: Option<Fact>,
    /// Set when the role limits its tools with a permission ruleset rather than
    /// lists (OpenCode: a `tools` map of tool → true | false and a `permission` map).
    #[serde(default)]
    pub ruleset: Lazy<Option<Ruleset>>,
    /// Tools the host adds to an allow-list when a key is set (Claude Code:
    /// `memory` adds Read, Write and Edit), by key.
    #[serde(default)]
    pub added_by: Lazy<BTreeMap<&'static str, AddedTools>>,
    /// Set when an entry `<tool>/<name>` names the tool before the `/` (Copilot:
    /// `search/codebase` is `search`, `execute/*` is `execute`); any other
    /// `<server>/<tool>` names an MCP server's tool.
    #[serde(default)]
    pub namespaced: Option<Fact>,
    /// Set when an extension prefix followed by `*` (`mcp_*`), or by a server and
    /// `_*` (`mcp_github_*`), names every tool under it (Gemini CLI).
    #[serde(default)]
    pub prefix_wildcards: Option<Fact>,
    pub cite: Cite,
}

/// OpenCode's tool control: a `tools` map (tool or pattern → true | false) and a
/// `permission` map (permission or pattern → `allow` | `ask` | `deny`, or a map of
/// input pattern → action; or one action for everything) become one ruleset, and
/// the last rule that matches decides.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ruleset {
    /// The key of the tool map (`tools`).
    pub tools_key: &'static str,
    /// The key of the permission map (`permission`).
    pub permission_key: &'static str,
    /// Entries of the tool map that become another permission (`write`, `patch` →
    /// `edit`).
    #[serde(default)]
    pub tools_as: BTreeMap<&'static str, &'static str>,
    /// Tools whose calls are governed by another tool's permission (`write`,
    /// `apply_patch` by `edit`).
    #[serde(default)]
    pub permission_of: BTreeMap<&'static str, &'static str>,
    /// What everything gets before the role's rules (`*`: allow).
    pub base: &'static str,
    pub cite: Cite,
    #[serde(default)]
    pub confidence: Confidence,
}

/// Tool names a host drops ([`Tools::dropped`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dropped {
    pub names: Vec<&'static str>,
    /// Why the child never gets them, completing "`<host>` …".
    pub note: &'static str,
    pub cite: Cite,
    #[serde(default)]
    pub confidence: Confidence,
}

impl Ruleset {
    /// The permission that governs `tool`.
    pub fn permission<'a>(&'a self, tool: &'a str) -> &'a str {
        self.permission_of.get(tool).map_or(tool, |s| *s)
    }
}

/// Tools a key adds ([`Tools::added_by`]).
#[derive(Debug, Clone, Deserialize)]
// serde borrows a `&'static str` field by itself, but not one behind `Cite` or in a `Vec`.
#[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
pub struct AddedTools {
    pub tools: Vec<&'static str>,
    pub cite: Cite,
    #[serde(default)]
    pub confidence: Confidence,
}

/// A role's permission mode and what each mode does to its tools (Claude Code's
/// `permissionMode`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermissionModes {
    /// The key (`permissionMode`).
    pub key: &'static str,
    /// Tools that change files (`Edit`, `Write`, …).
    pub edits: Vec<&'static str>,
    /// Tools that run commands (`Bash`).
    pub shell: Vec<&'static str>,
    /// Tools no mode restricts (`Read`, `Grep`, …); every other tool, MCP tools and
    /// the session's others included, is `other`.
    pub read_only: Vec<&'static str>,
    /// Mode → what it does.
    pub modes: BTreeMap<&'static str, ModeEffect>,
    pub cite: Cite,
    #[serde(default)]
    pub confidence: Confidence,
}

/// What one permission mode does to each kind of tool.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeEffect {
    pub edits: ModeAccess,
    pub shell: ModeAccess,
    pub other: ModeAccess,
    /// What the mode is, completing "`permissionMode: plan` …".
    pub note: &'static str,
}

/// How far a permission mode lets a kind of tool go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModeAccess {
    /// Runs without asking.
    Full,
    /// Asks the user before each call.
    Ask,
    /// Only calls that change nothing (plan mode's read-only commands).
    ReadOnly,
    /// Only what something outside the role allows (settings' allow rules, a
    /// classifier).
    Limited,
    /// Refused.
    Denied,
}

impl Tools {
    /// Whether the host accepts `name` in `tools` but never hands it over.
    pub fn drops(&self, name: &str) -> bool {
        self.dropped
            .as_ref()
            .is_some_and(|d| d.names.contains(&name))
    }
}

/// How a role reaches the MCP tools pi configures (`mcp.json`): pi ≥ 1.0.4 keeps
/// every MCP tool behind an allow-list that names `codemode` or `tool_search`, and
/// a run without an allow-list declares them (or a gateway to them) by default.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpReach {
    /// The pi versions this holds on (`>=1.0.4`): the generation the host must run
    /// on for it to matter.
    pub pi: &'static str,
    /// Tool names that open every configured MCP tool, mutating ones too.
    pub gateways: Vec<&'static str>,
    /// Whether a role without `tools` reaches the MCP tools too.
    pub missing_reaches: bool,
    /// What happens, completing "on pi … ".
    pub note: &'static str,
    pub cite: Cite,
    #[serde(default)]
    pub confidence: Confidence,
}

impl McpReach {
    /// Whether `name` is one of the gateway tools.
    pub fn is_gateway(&self, name: &str) -> bool {
        self.gateways.contains(&name)
    }
}

/// The directories a host finds a role's named skills in.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillDirs {
    /// In the host's order of precedence.
    pub dirs: Vec<SkillDir>,
    /// Other places the host also looks that pwk does not search (packages,
    /// settings), as a list for "not searched: …".
    #[serde(default)]
    pub also: Option<&'static str>,
    pub cite: Cite,
    #[serde(default)]
    pub confidence: Confidence,
}

/// One skill directory: a skill is a sub-directory holding `SKILL.md` (named after
/// the directory), or where `flat_md` says so a `<name>.md` file directly in it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillDir {
    /// `{agent_dir}/skills`, `{home}/.agents/skills`, or relative to the project
    /// root (`.pi/skills`).
    pub path: &'static str,
    /// A `<name>.md` file directly in the directory is a skill too.
    #[serde(default)]
    pub flat_md: bool,
    /// Skill directories are found below sub-directories that are not skills.
    #[serde(default)]
    pub recursive: bool,
}

impl SkillDir {
    /// The path as people write it (`$PI_CODING_AGENT_DIR/skills`, `~/.agents/skills`).
    pub fn display(&self) -> String {
        self.path
            .replace("{agent_dir}", "$PI_CODING_AGENT_DIR")
            .replace("{home}", "~")
    }
}

/// Where a host reads per-role and default models ([`Profile::model_config`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// `{agent_dir}/…`, `{home}/…`, or relative to the project root.
    pub file: &'static str,
    /// The dotted path of a role's model in it; `<role>` is the role's name.
    pub per_agent: &'static str,
    /// The dotted path of the model every role defaults to.
    pub default: &'static str,
    /// What the file is for, in words.
    pub note: &'static str,
    pub cite: Cite,
    #[serde(default)]
    pub confidence: Confidence,
}

impl ModelConfig {
    /// The model at `path` (`models.agents.<role>`) in `json`: a string, or the
    /// first of a list of candidates.
    pub fn lookup(path: &str, role: &str, json: &serde_json::Value) -> Option<String> {
        let mut v = json;
        for part in path.split('.') {
            let part = if part == "<role>" { role } else { part };
            v = v.get(part)?;
        }
        match v {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Array(items) => items.first()?.as_str().map(str::to_string),
            _ => None,
        }
    }

    /// The file on this machine (`None`: it needs a home or agent directory that
    /// is not known).
    pub fn locate(
        &self,
        home: Option<&std::path::Path>,
        agent_dir: Option<&std::path::Path>,
        root: &std::path::Path,
    ) -> Option<std::path::PathBuf> {
        if let Some(rest) = self.file.strip_prefix("{agent_dir}/") {
            return agent_dir.map(|d| d.join(rest));
        }
        if let Some(rest) = self.file.strip_prefix("{home}/") {
            return home.map(|h| h.join(rest));
        }
        Some(root.join(self.file))
    }
}

/// A host's own settings files ([`Profile::settings`]): Claude Code's
/// `.claude/settings.json`, OpenCode's `opencode.json`, Gemini CLI's
/// `.gemini/settings.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSettings {
    /// The files, lowest priority first.
    pub files: Vec<SettingsFile>,
    /// How the host combines them, in words.
    pub merge: &'static str,
    /// The keys that change a sub-agent (dotted; `<role>` is the role's name).
    pub keys: Vec<SettingsKey>,
    /// The host's model chain for a sub-agent, first link first.
    pub model_chain: Vec<ChainStep>,
    /// What else decides that pwk does not read (managed settings, a flag), in words.
    #[serde(default)]
    pub unread: Vec<&'static str>,
    pub cite: Cite,
}

/// One settings file ([`HostSettings::files`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsFile {
    /// `{home}/…`, or relative to the project root.
    pub path: &'static str,
    /// `user`, `project`, `local`.
    pub layer: &'static str,
    pub cite: Cite,
}

impl SettingsFile {
    /// The file on this machine (`None`: it is under a home that is not known).
    pub fn locate(
        &self,
        home: Option<&std::path::Path>,
        root: &std::path::Path,
    ) -> Option<std::path::PathBuf> {
        match self.path.strip_prefix("{home}/") {
            Some(rest) => home.map(|h| h.join(rest)),
            None => Some(root.join(self.path)),
        }
    }

    /// The path as people write it (`~/.claude/settings.json`).
    pub fn display(&self) -> String {
        self.path.replace("{home}", "~")
    }
}

/// A settings key that changes a sub-agent ([`HostSettings::keys`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsKey {
    pub key: &'static str,
    /// What it does to the sub-agent.
    pub note: &'static str,
    /// The role setting a whole number here sets (`max-turns`).
    #[serde(default)]
    pub sets: Option<&'static str>,
    /// Whether it wins over the role file's own key (Gemini CLI's overrides) or
    /// only fills in where the file has none (OpenCode's `agent.<name>`).
    #[serde(default)]
    pub over_file: bool,
    /// The value that turns the role off (`enabled: false`, `disable: true`).
    #[serde(default)]
    pub disables: Option<serde_json::Value>,
    /// A list entry that turns the role off (`Agent(<role>)` in Claude Code's
    /// `permissions.deny`).
    #[serde(default)]
    pub disables_entry: Option<&'static str>,
    /// The list's entries are permission rules that deny tools (Claude Code's
    /// `permissions.deny`), and they add up across the files: a bare tool name
    /// denies every call of that tool, `Tool(specifier)` the calls it matches.
    #[serde(default)]
    pub denies_tools: Option<DeniesTools>,
    pub cite: Cite,
}

/// What a settings list of deny rules does to a role's tools
/// ([`SettingsKey::denies_tools`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeniesTools {
    /// What the rules do, and what of them pwk does not model, in words.
    pub note: &'static str,
    pub cite: Cite,
}

/// One link of a host's own model chain ([`HostSettings::model_chain`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainStep {
    /// `invocation`, `frontmatter`, `per-agent-config`, `env`, `parent-default`.
    pub link: &'static str,
    /// Where the value comes from, in words.
    pub from: &'static str,
    /// Environment variables that set it, first set wins (before `key`).
    #[serde(default)]
    pub env: Vec<&'static str>,
    /// The settings key that sets it (the highest-priority file that has it wins).
    #[serde(default)]
    pub key: Option<&'static str>,
    #[serde(default)]
    pub note: Option<&'static str>,
    pub cite: Cite,
}

impl HostSettings {
    /// The value at `path` (`agent.<role>.model`) in `json`.
    pub fn lookup<'a>(
        path: &str,
        role: &str,
        json: &'a serde_json::Value,
    ) -> Option<&'a serde_json::Value> {
        let mut v = json;
        for part in path.split('.') {
            let part = if part == "<role>" { role } else { part };
            v = v.get(part)?;
        }
        Some(v)
    }
}

/// How a host names models in `model`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Models {
    /// Short names the host resolves itself (Claude Code `sonnet`, `opus`,
    /// `haiku`): no other host resolves them, so `pwk convert` needs a mapping.
    #[serde(default)]
    pub aliases: Vec<&'static str>,
    /// Values that mean "the parent's model" (`inherit`).
    #[serde(default)]
    pub inherit: Vec<&'static str>,
    /// Prefixes of the host's own full model ids (`claude-`), when it takes bare
    /// ids and no `provider/` form.
    #[serde(default)]
    pub id_prefixes: Vec<&'static str>,
    /// The pi provider those ids belong to (`anthropic`): a bare id converts to
    /// `provider/id` for a pi host, and back.
    #[serde(default)]
    pub provider: Option<&'static str>,
    /// The host takes any model name (Copilot's display names, `Claude Sonnet
    /// 4.5`): nothing to check, and nothing `pwk convert` can map by itself.
    #[serde(default)]
    pub free: bool,
    /// Model ids the host runs as another id (Gemini CLI 0.61: `gemini-3-pro-preview`
    /// and `gemini-3-flash` become a newer model, depending on the account).
    #[serde(default)]
    pub rewritten: Vec<&'static str>,
    /// What the host does with them, completing "`<host>` …".
    #[serde(default)]
    pub rewritten_note: Option<&'static str>,
    pub cite: Option<Cite>,
    #[serde(default)]
    pub confidence: Confidence,
}

impl Models {
    /// Whether the host reads `provider/id` (every pi host) rather than its own
    /// aliases and bare ids.
    pub fn provider_form(&self) -> bool {
        self.aliases.is_empty() && self.id_prefixes.is_empty() && !self.free
    }
}

impl Tools {
    /// The pi built-ins a tool entry of this host stands for (none for a tool pi
    /// has no counterpart of).
    pub fn pi_names(&self, name: &str) -> Vec<String> {
        let base = self.base(name);
        let same = |a: &str, b: &str| {
            if self.case_insensitive {
                a.eq_ignore_ascii_case(b)
            } else {
                a == b
            }
        };
        if let Some((_, t)) = self.maps_to.iter().find(|(own, _)| same(own, base)) {
            return t.iter().map(|s| s.to_string()).collect();
        }
        match self.builtins.iter().find(|b| same(b, base)) {
            Some(b) if super::pi_builtins().contains(b) => vec![b.to_string()],
            _ => Vec::new(),
        }
    }

    /// This host's name for a pi built-in (`find` → Claude Code `Glob`), preferring
    /// a tool that stands for that built-in alone.
    pub fn own_name(&self, pi: &str) -> Option<String> {
        let itself = match self.maps_to.get(pi) {
            Some(to) => to.contains(&pi),
            None => self.builtins.contains(&pi),
        };
        if itself {
            return Some(pi.to_string());
        }
        let mut candidates: Vec<(&&'static str, &Vec<&'static str>)> = self
            .maps_to
            .iter()
            .filter(|(own, to)| to.contains(&pi) && self.builtins.contains(own))
            .collect();
        // The narrowest tool, and a host's lowercase primary name over its
        // compatibility spellings (Copilot `search` over `Grep`).
        candidates.sort_by_key(|(own, to)| (to.len(), own.chars().any(char::is_uppercase)));
        candidates.first().map(|(own, _)| own.to_string())
    }

    /// The tool an entry names: without its specifier when the host reads them.
    /// The entries of a `tools` string as the host splits it: on commas, and on
    /// white space too where the host does (outside a specifier's parentheses).
    pub fn split<'a>(&self, value: &'a str) -> Vec<&'a str> {
        let mut out = Vec::new();
        for part in value.split(',') {
            if self.split_on_whitespace && !part.contains('(') {
                out.extend(part.split_whitespace());
            } else if !part.trim().is_empty() {
                out.push(part.trim());
            }
        }
        out
    }

    pub fn base<'a>(&self, name: &'a str) -> &'a str {
        match name.split_once('(') {
            Some((b, rest)) if self.specifiers && rest.ends_with(')') => b.trim(),
            _ => name,
        }
    }
}
