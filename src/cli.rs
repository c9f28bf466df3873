//! Command-line surface (clap derive types only).
//!
//! These are the raw flags. Each command module turns its `*Args` into its own
//! validated options before doing any work; nothing below `lib.rs` sees clap.

use std::path::PathBuf;

use crate::host::HostChoice;
use clap::{Args, Parser, Subcommand, ValueEnum};

/// Lint, install, list and run agent roles for the `pi` coding agent.
#[derive(Debug, Parser)]
#[command(
    name = "pwk",
    version,
    about = "Lint, install, list and run agent roles for the pi coding agent",
    long_about = "pwk checks agent role definitions (Markdown with YAML frontmatter) against a \
documented schema, installs the canonical PWK roles safely, shows which role definition wins \
across the package, global and project layers, and runs delegated work on the real `pi` CLI.",
    after_long_help = "Exit codes: 0 success, 1 the tool worked and found problems, 2 the tool \
could not do its job (bad usage, unreadable input, nothing matched).\n\nExamples:\n  \
pwk lint                      lint .agents/agents/ and .pi/agents/\n  \
pwk lint --format github      annotations for GitHub Actions\n  \
pwk setup --dry-run --diff    show what setup would change\n  \
pwk list                      every visible role and where it comes from\n  \
pwk rules unknown-key         explain one lint rule"
)]
pub struct Cli {
    /// When to use colour: auto, always or never (NO_COLOR is honoured).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint role definitions (Markdown with YAML frontmatter).
    #[command(
        long_about = "Lint role definitions (Markdown with YAML frontmatter) against the \
documented schema (`pwk schema`). Every problem points at the exact line and column of the \
offending key or value.",
        after_long_help = "With no PATH, lints `.agents/agents/` and `.pi/agents/` under the \
current directory, whichever exist. A directory means every `*.md` directly inside it \
(`--recursive` walks it).\n\nExamples:\n  pwk lint\n  pwk lint roles/ --host nicobailon\n  \
pwk lint --format sarif > pwk.sarif\n  pwk lint --deny-warnings .agents/agents/pwk-spec-reviewer.md\n  \
pwk lint --diff                 show the safe fixes as a diff, change nothing\n  \
pwk lint --fix                  apply the safe fixes, report what remains\n  \
pwk lint --fix --unsafe-fixes   apply the guesses too (renamed keys, `name`)\n  \
pwk lint --write-baseline       record today's findings in pwk-baseline.json\n  \
pwk lint --baseline pwk-baseline.json   report only new findings"
    )]
    Lint(LintArgs),

    /// Print the JSON Schema of role frontmatter (or of pwk.toml with --config).
    Schema(SchemaArgs),

    /// Print the effective lint configuration for a path and where each value came from.
    #[command(
        long_about = "Print the lint configuration that applies to PATH (default: the current \
directory): the `pwk.toml` or `.pwk.toml` found by walking up to the project root, the files \
it extends, and the overrides that match PATH. Each value says where it came from: a flag, \
`file:line:col`, or `default`. Precedence: flag > override > file > extended file > default.",
        after_long_help = "Examples:\n  pwk config\n  pwk config .agents/agents/reviewer.md\n  \
pwk config --format json legacy/old-role.md\n  pwk schema --config > pwk.schema.json"
    )]
    Config(ConfigArgs),

    /// List the lint rules, or explain one rule with a bad and a good example.
    Rules(RulesArgs),

    /// Install the canonical PWK roles into `.agents/agents/`.
    #[command(
        long_about = "Install the canonical PWK roles into `<dir>/.agents/agents/` (or the \
global agents directory with `--global`). Files you edited are never overwritten without \
`--force`, and a forced replacement keeps your copy as `<name>.md.bak`. Writes never follow \
symlinks and never leave a half-written file. Unix only.",
        after_long_help = "Examples:\n  pwk setup\n  pwk setup --dry-run --diff\n  \
pwk setup --check                 exit 1 if anything would change (CI)\n  \
pwk setup --fast-model anthropic/claude-haiku-4-5"
    )]
    Setup(SetupArgs),

    /// List every visible role with its source layer and what it shadows.
    List(ListArgs),

    /// Show the effective definition of one role and its resolved runtime settings.
    Show(ShowArgs),

    /// Write a new role file from the complete authoring template.
    New(NewArgs),

    /// Smoke-test a role: lint it, resolve it, and print how `pi` would be launched.
    Smoke(SmokeArgs),

    /// Run one atomic task on `pi`: a JSON request on stdin, one JSON result on stdout.
    #[command(
        long_about = "Run one atomic task on `pi`. Reads one JSON request on stdin, writes \
exactly one JSON result on stdout and progress on stderr. Vague, non-atomic or \
under-authorised requests are refused (`status: blocked`, `NEEDS_DECISION`) before anything \
is launched. The pi binary is `$PWK_PI_BIN`, else `pi` on PATH."
    )]
    Delegate(DelegateArgs),

    /// Run the codebase recon scout on a topic.
    Recon(ReconArgs),

    /// Run reviewer roles over a review packet, in parallel.
    Review(ReviewArgs),

    /// Run a provider DelegationRequest (JSON on stdin) and print normalized outcomes.
    RunRequest(RunRequestArgs),

    /// Print what pwk can honestly claim as a delegation provider.
    Capabilities(CapabilitiesArgs),

    /// Check delegation coverage: `{"required":[…],"outcomes":[…]}` on stdin.
    Coverage,

    /// Print shell completions.
    Completions(CompletionsArgs),

    /// Run the language server for role files (LSP over stdin/stdout, for editors).
    #[command(
        long_about = "Run a Language Server Protocol server on stdin/stdout for role files: \
the diagnostics of `pwk lint` while you type (same rules, messages, severities and host \
profile), hover on keys and values (what the host does with them), completion of keys, \
values, tools, skills and model ids, quick fixes and `source.fixAll.pwk`, document symbols, \
and go to definition between a role and the definition it shadows. Your editor starts it; \
nothing but LSP messages is written to stdout, logs go to stderr.",
        after_long_help = "It serves `*.md` files in the directories the host discovers roles \
in (`.agents/agents/`, `.pi/agents/`, the global agents directory, ...) and any `*.md` whose \
first line is `---` that the editor sends to it. The client may set the host profile with \
the initialization option `{\"host\": \"tintinweb\"}`.\n\nExamples:\n  \
pwk lsp                      what an editor runs (see the README for Neovim, Helix, Zed, VS Code)\n  \
pwk lsp --host nicobailon    serve under a fixed host profile"
    )]
    Lsp(LspArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    Human,
    Json,
    Sarif,
    Github,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// `--host`: `auto` (detect from pi's settings), a host, or `host@version`.
fn parse_host(s: &str) -> Result<HostChoice, String> {
    s.parse::<HostChoice>().map_err(|e| e.to_string())
}

/// The `--host` help shared by every command that takes it.
const HOST_HELP: &str = "The host profile: `auto` (detect the host from pi's settings; the portable `pwk` profile when none is found), `pwk`, `tintinweb`, `nicobailon`, `herdr`, or a version such as `tintinweb@0.14` (the bare name is the newest profile)";

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files or directories to lint.
    pub paths: Vec<PathBuf>,

    /// Walk directories recursively.
    #[arg(long, short = 'r')]
    pub recursive: bool,

    /// The host profile (default: `host` in pwk.toml, else `auto`): `auto` (detect the host from pi's settings; the portable `pwk` profile when none is found), `pwk`, `tintinweb`, `nicobailon`, `herdr`, or a version such as `tintinweb@0.14`.
    #[arg(long, value_parser = parse_host)]
    pub host: Option<HostChoice>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = LintFormat::Human)]
    pub format: LintFormat,

    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,

    /// Exit 0 when no file matched instead of 2.
    #[arg(long)]
    pub allow_empty: bool,

    /// Apply the safe fixes, then lint again and report what remains.
    #[arg(long)]
    pub fix: bool,

    /// With --fix or --diff: apply unsafe fixes too (guesses such as a misspelt key
    /// renamed to its one close match). Alone it means --fix --unsafe-fixes.
    #[arg(long)]
    pub unsafe_fixes: bool,

    /// Print the fixes as a unified diff and write nothing; exit 1 if a file would
    /// change.
    #[arg(long, conflicts_with = "fix")]
    pub diff: bool,

    /// Ignore every `# pwk: ignore…` comment: report what they hide (an audit run).
    #[arg(long)]
    pub no_inline_suppressions: bool,

    /// Report only findings not listed in this baseline file (matched by path,
    /// rule and the flagged text, not by line).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Create or refresh the baseline (`--baseline FILE`, default
    /// `pwk-baseline.json`) with every current finding.
    #[arg(long)]
    pub write_baseline: bool,
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Print the schema as read by this host profile (`tintinweb`, `nicobailon@0.67`, …;
    /// default: the shipped role schema).
    #[arg(long, value_parser = parse_host, conflicts_with = "config")]
    pub host: Option<HostChoice>,

    /// Print the JSON Schema of `pwk.toml` instead (for taplo / Even Better TOML).
    #[arg(long)]
    pub config: bool,
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// The file or directory whose configuration to show (default: `.`).
    pub path: Option<PathBuf>,

    /// As `pwk lint --host` would set it (a flag beats the file).
    #[arg(long, value_parser = parse_host)]
    pub host: Option<HostChoice>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct RulesArgs {
    /// A rule id to explain, e.g. `unknown-key`.
    pub rule: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct SetupArgs {
    /// Project directory to install into (`<dir>/.agents/agents/`).
    #[arg(long, conflicts_with = "global")]
    pub dir: Option<PathBuf>,

    /// Install into the global agents directory (`$PI_CODING_AGENT_DIR/agents/`).
    #[arg(long)]
    pub global: bool,

    /// Change nothing; say what would happen.
    #[arg(long)]
    pub dry_run: bool,

    /// Show a unified diff for every file that differs.
    #[arg(long)]
    pub diff: bool,

    /// Replace locally modified files (your copy is kept as `<name>.md.bak`).
    #[arg(long)]
    pub force: bool,

    /// Exit 1 if anything would change; change nothing (for CI).
    #[arg(long)]
    pub check: bool,

    /// Set the model hint of the fast reviewers (smell, hazard), as `provider/id`.
    #[arg(long, value_name = "MODEL")]
    pub fast_model: Option<String>,

    /// With --fast-model: set it on all four reviewers.
    #[arg(long, requires = "fast_model")]
    pub all_roles: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Also list hidden adapters (`disable-model-invocation: true`).
    #[arg(long)]
    pub all: bool,

    #[arg(long, default_value = "auto", value_parser = parse_host, help = HOST_HELP)]
    pub host: HostChoice,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The role name.
    pub name: String,

    #[arg(long, default_value = "auto", value_parser = parse_host, help = HOST_HELP)]
    pub host: HostChoice,

    /// An explicit model for this invocation (top of the resolution chain).
    #[arg(long)]
    pub model: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoleKind {
    /// One bounded responsibility; never spawns.
    Leaf,
    /// Owns a multi-stage child session; may delegate.
    Coordinator,
    /// A hidden runtime adapter (external CLI), invoked by exact name only.
    Adapter,
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The role name (a lowercase slug; also the file name).
    pub name: String,

    /// What kind of role to scaffold.
    #[arg(long, value_enum, default_value_t = RoleKind::Leaf)]
    pub kind: RoleKind,

    /// Directory to write into (default: `.agents/agents/` under the current directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SmokeArgs {
    /// The role name.
    pub name: String,

    /// Launch it once with a harmless read-only prompt and report the outcome.
    #[arg(long)]
    pub run: bool,

    #[arg(long, default_value = "auto", value_parser = parse_host, help = HOST_HELP)]
    pub host: HostChoice,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct DelegateArgs {
    /// Read the request from this file instead of stdin.
    #[arg(long, value_name = "FILE")]
    pub request: Option<PathBuf>,

    /// Validate the request and print the launch plan without starting pi.
    #[arg(long)]
    pub dry_run: bool,
}

/// How roles are run; shared by `run-request`, `recon` and `review`.
#[derive(Debug, Args)]
pub struct RoleRunArgs {
    /// Maximum roles running at once (default: min(4, number of roles)).
    #[arg(long, value_name = "N")]
    pub max_parallel: Option<usize>,

    /// Per-role timeout in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub timeout: u64,

    /// Stop a role whose pi prints nothing for this many seconds while no tool runs
    /// (a stalled model stream); 0 turns the watchdog off.
    #[arg(long, value_name = "SECS", default_value_t = 120)]
    pub stall_timeout: u64,

    /// Check worker reports against a result schema.
    #[arg(long, value_enum)]
    pub result_schema: Option<ResultSchema>,

    /// How pi is driven: `rpc` steers a role to wrap up at its turn budget; `json`
    /// stops it hard there.
    #[arg(long, value_enum, default_value_t = Transport::Rpc)]
    pub transport: Transport,
}

#[derive(Debug, Args)]
pub struct ProviderRunArgs {
    #[command(flatten)]
    pub roles: RoleRunArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Transport {
    /// `pi --mode rpc`: at the turn budget the role is steered to wrap up and report.
    Rpc,
    /// `pi --mode json`: at the turn budget the role is stopped.
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ResultSchema {
    /// conclusion, evidence, files_and_lines, tests_or_checks, risks, recommended_parent_action
    SixField,
}

#[derive(Debug, Args)]
pub struct ReconArgs {
    /// What to map, e.g. "session persistence".
    #[arg(long)]
    pub topic: String,

    /// One line on what the recon is for.
    #[arg(long)]
    pub intent: String,

    /// Repository root (default: current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,

    #[command(flatten)]
    pub run: ProviderRunArgs,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Reviewer roles: short names (spec, tracing, smell, hazard) or full role names.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "spec,tracing,smell,hazard"
    )]
    pub roles: Vec<String>,

    /// The review packet: the diff, acceptance criteria, changed files.
    #[arg(long, value_name = "FILE")]
    pub packet: PathBuf,

    /// Repository root (default: current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,

    #[command(flatten)]
    pub run: ProviderRunArgs,
}

#[derive(Debug, Args)]
pub struct RunRequestArgs {
    #[command(flatten)]
    pub roles: RoleRunArgs,
}

#[derive(Debug, Args)]
pub struct CapabilitiesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, Args)]
pub struct LspArgs {
    /// The host profile (default: `host` in the project's `pwk.toml`, else `auto`).
    #[arg(long, value_parser = parse_host)]
    pub host: Option<HostChoice>,

    /// The project root (default: the editor's workspace folder, else the current
    /// directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}
