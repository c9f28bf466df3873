//! Command-line surface (clap derive types only).
//!
//! These are the raw flags. Each command module turns its `*Args` into its own
//! validated options before doing any work; nothing below `lib.rs` sees clap.

use std::path::PathBuf;

use crate::host::{HostChoice, HostSpec};
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
    after_long_help = top_after_help()
)]
pub struct Cli {
    /// When to use colour: auto (the default: on a terminal), always or never
    /// (NO_COLOR is honoured).
    // No `default_value_t`: clap would parse the default and copy it into every
    // subcommand's matches at each run (~20k instructions of a one-file lint).
    #[arg(long, value_enum, global = true)]
    pub color: Option<ColorChoice>,

    #[command(subcommand)]
    pub command: Command,
}

/// The exit codes, as every help and document states them.
pub const EXIT_CODES: &str = "Exit codes: 0 success, 1 the tool worked and found problems, 2 the \
tool could not do its job (bad usage, unreadable input, nothing matched), 101 an internal error \
(a bug in pwk: please report it).";

fn top_after_help() -> String {
    format!(
        "{EXIT_CODES}\n\nExamples:\n  \
pwk lint                      lint every agents directory of the project\n  \
pwk lint --format github      annotations for GitHub Actions\n  \
pwk setup --dry-run --diff    show what setup would change\n  \
pwk list                      every visible role and where it comes from\n  \
pwk explain unknown-key       explain one lint rule"
    )
}

/// `pwk lint --help`'s text after the flags: what a bare `pwk lint` lints (from
/// the host registry), then examples.
fn lint_after_help() -> String {
    format!(
        "{}\n\nExamples:\n  pwk lint\n  pwk lint roles/ --host nicobailon\n  \
pwk lint --format sarif > pwk.sarif\n  pwk lint --deny-warnings .agents/agents/pwk-spec-reviewer.md\n  \
pwk lint --diff                 show the safe fixes as a diff, change nothing\n  \
pwk lint --fix                  apply the safe fixes, report what remains\n  \
pwk lint --fix --unsafe-fixes   apply the guesses too (renamed keys, `name`)\n  \
pwk lint --write-baseline       record today's findings in pwk-baseline.json\n  \
pwk lint --baseline pwk-baseline.json   report only new findings (or `baseline = \"…\"` in pwk.toml)\n  \
pwk lint --format concise       one `path:line:col: severity[rule] message` line per finding\n  \
pwk lint --statistics           how many findings each rule raised\n  \
pwk lint --exit-zero            report, but exit 0 even with findings\n  \
pwk lint --extend-select missing-tools   report a rule pwk.toml turned off\n  \
pwk lint - --stdin-filename .claude/agents/x.md < x.md   lint stdin as that file\n  \
pwk lint - --fix < x.md > fixed.md      print the fixed text (findings on stderr)",
        crate::project::default_paths_help()
    )
}

/// `pwk convert`'s line in `pwk --help`: the hosts it converts between, from the
/// registry.
fn convert_about() -> String {
    let names: Vec<&str> = crate::host::ALL
        .iter()
        .filter(|h| h.kind() != crate::host::HostKind::Portable)
        .map(|h| h.as_str())
        .collect();
    format!("Convert role files between hosts ({})", names.join(", "))
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
offending key or value.\n\nSettings come from `pwk.toml` (or `.pwk.toml`), found by walking up \
to the project root (`pwk config` shows them; flags win). `# pwk: ignore[rule-id] reason` on or \
before a key (or `# pwk: ignore-file[rule-id] reason`) suppresses a finding with a reason. \
`--fix` applies the safe repairs, `--diff` shows them, `--baseline FILE` reports only new findings.",
        after_long_help = lint_after_help()
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

    /// Explain one lint rule, with a bad and a good example (as `pwk rules RULE`).
    #[command(after_long_help = "Examples:\n  pwk explain unknown-key\n  \
pwk explain invalid-model --format json")]
    Explain(ExplainArgs),

    /// Install the canonical PWK roles where the project's host reads them.
    #[command(
        long_about = "Install the canonical PWK roles into the project directory the host reads: \
`<dir>/.agents/agents/`, or `<dir>/.pi/agents/` for a host that reads only that (herdr, pi's \
example extension; `--host` or `host` in pwk.toml), or the global agents directory with \
`--global`. Files you edited are never overwritten without \
`--force`, and a forced replacement keeps your copy as `<name>.md.bak`. Writes never follow \
symlinks and never leave a half-written file. Unix only.",
        after_long_help = "Examples:\n  pwk setup\n  pwk setup --dry-run --diff\n  \
pwk setup --check                 exit 1 if anything would change (CI)\n  \
pwk setup --host herdr            into .pi/agents/, rendered for herdr\n  \
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

    /// Ask the agent CLIs installed here which roles they really load, offline, and
    /// compare with pwk's profile of each.
    #[command(
        long_about = "Ask each agent CLI installed on this machine (Claude Code, OpenCode, Gemini CLI, \
Copilot CLI: found on PATH, or named with --host-bin), each pi extension pi's settings list \
(tintinweb, nicobailon) and pi's example subagent extension (pi-example: vendored into \
the agent dir's extensions/subagent/, else the one the installed pi package ships) — the extensions' own \
loaders, on pi 1.6 — which of the project's roles it really loads, \
with which name, description, tools and model, and compare with what pwk says under its profile of \
that host (lint + show).\n\nNo code that lies in the project is run unless you say so: an \
extension vendored in .pi/extensions/, a package installed under .pi/npm/ that .pi/settings.json \
lists, a pi package in the project's node_modules, a program on a PATH entry inside the project \
(links included, wherever they lead) is passed over for the user's or pi's own copy, the hosts run \
without such PATH entries (a program a host starts by name, such as git, is not the project's), and the \
output says so; --run-project-code runs them as pi would (--host-bin is consent for the host it \
names). --dry-run shows which copy of each host would run.\n\nEach host runs offline on a copy of the role files in its own \
directories (never in the project), with a fresh temporary HOME, dummy credentials and its model \
API pointed at a mock on 127.0.0.1; nothing leaves the machine. The hosts are asked through a small \
Node driver shipped in pwk (they are Node programs), run with `node` from PATH (or --node), under a \
time limit, its whole process tree stopped at the end.\n\nExit 0 when pwk and every host agree, \
1 on a disagreement (pwk's profile is wrong for the installed version: the output says how to \
report it), 2 when no host could be asked.",
        after_long_help = "Examples:\n  pwk verify                          every installed host\n  \
pwk verify --dry-run                what would run, nothing started\n  \
pwk verify --run-project-code       also the project's own copies (.pi/extensions/, .pi/npm/)\n  \
pwk verify --host-bin claude-code=$HOME/.local/bin/claude --format json"
    )]
    Verify(VerifyArgs),

    #[command(
        about = convert_about(),
        long_about = "Convert role files written for one host into files another host reads: \
keys move to the target's spelling of the same setting (`maxTurns` → `max_turns`, \
`disallowedTools` → `disallowed_tools` / `excludeTools` / `deny-tools`, `effort` → \
`thinking`), tool names are mapped (Read → read, Glob → find, MultiEdit → edit, …), model \
aliases go through `--model-map`, and the body is copied unchanged. Each file is read as its \
source host reads it (Claude Code's own repair of what strict YAML rejects included; the report \
says what it changed); a file the host cannot load either is not converted (exit 1). The \
frontmatter is written from the parsed values, quoted wherever YAML would read them otherwise; \
comments go with the keys they stand next to. A converted role may never do more than the \
source role, as the hosts themselves work it out (`pwk show`): tool words whose meaning differs \
(`*`, `all`, `none`, no `tools`), deny-lists, OpenCode's `tools`/`permission` ruleset (written \
as OpenCode's `permission` when converting to it) and Claude Code's `permissionMode` become \
what the SOURCE host grants. What the target cannot say is a decision (exit 1); a file that \
would still grant more is not written. Every file gets a report: what was converted, what was \
dropped and why (comments included), and what needs a decision. Nothing is dropped silently. \
Each output is linted for the target host where it will be written, and every remaining \
finding is named; the command exits 1 when one still has errors there. Files are written \
without following symlinks and never over a different file unless `--force` (the old file is \
kept as `<name>.bak`); `--in-place` keeps each file's name.",
        after_long_help = "Examples:\n  pwk convert --to tintinweb .claude/agents/ --out .pi/agents\n  \
pwk convert --to nicobailon .claude/agents/reviewer.md --out .pi/agents --model-map sonnet=anthropic/claude-sonnet-4-5\n  \
pwk convert --to claude-code --from tintinweb .pi/agents/ --out .claude/agents --dry-run\n  \
pwk convert --to herdr .claude/agents/ --out .pi/agents --format json"
    )]
    Convert(ConvertArgs),

    /// Run one atomic task on `pi`: a JSON request on stdin, one JSON result on stdout.
    #[command(
        long_about = "Run one atomic task on `pi`. Reads one JSON request on stdin, writes \
exactly one JSON result on stdout and progress on stderr. Vague, non-atomic or \
under-authorised requests are refused (`status: blocked`, `NEEDS_DECISION`) before anything \
is launched. The pi binary is `$PWK_PI_BIN`, else `pi` on PATH. What pwk learns from a pi \
binary (the options its `pi --help` lists) is cached per binary in `$PWK_CACHE_DIR`, else \
`$XDG_CACHE_HOME/pwk`, else `~/.cache/pwk`; a replaced pi is asked again."
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
    Coverage(CoverageArgs),

    /// Serve lint, roles and supervised delegation to an MCP client over stdio.
    Mcp(McpArgs),

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

/// `pwk mcp`.
#[derive(Debug, Args)]
#[command(
    long_about = "Serve pwk to an MCP client (Claude Code, Codex, OpenCode, Zed, pi, …) over stdio: \
lint (paths or in-memory text), rules and explain_rule; list_roles and show_role as a host resolves them; \
delegated tasks on the real pi (delegate_start, task_status, task_wait, task_result, task_steer, task_continue, \
task_abort) with the guarantees of `pwk delegate`; review and recon with per-role progress notifications and \
the coverage verdict; coverage and capabilities. Resources: pwk://roles/<name> and pwk://schema/role.\n\n\
The server speaks JSON-RPC on stdin/stdout (nothing else is printed there) and runs in the current directory, \
which is where tools resolve relative paths and roles. When the client disconnects, every pi process the \
server started is stopped.\n\n\
Examples:\n  claude mcp add pwk -- pwk mcp\n  pwk mcp --max-tasks 8"
)]
pub struct McpArgs {
    /// At most this many delegated tasks run at once; the others wait in `starting`.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub max_tasks: u64,

    /// The project the server works in (default: the nearest directory upwards that
    /// holds `.git`, `.agents` or `.pi`, else the current directory); tools resolve
    /// relative paths and roles from it.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,

    #[command(flatten)]
    pub config: ConfigFileArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    Human,
    // One `path:line:col: severity[rule] message` line per finding, then the summary.
    Concise,
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

/// The `--host` help shared by every command that takes it (`default`: what
/// applies without the flag).
fn host_help(default: &str) -> String {
    format!(
        "The host profile (default: {default}): `auto` (detect the host from pi's settings; the portable `pwk` profile when none is found), a host ({}), or a version such as `tintinweb@0.14` (the bare name is the newest profile). Under `auto`, files under a host's own directory (`.claude/agents/`) are linted for that host",
        crate::host::name_list()
    )
}

/// `--host` of the commands that read the project's `pwk.toml`.
fn project_host_help() -> String {
    host_help("`host` in pwk.toml, else `auto`")
}

/// `--host` of `setup`: the host decides the directory the roles go to.
fn setup_host_help() -> String {
    format!(
        "The host the roles are written for, and so the project directory they go to: the one that host reads (`--host herdr`: `.pi/agents/`, the only one herdr reads). `auto` (detect the host from the project), a host ({}), or a version such as `tintinweb@0.14`. Default: `host` in pwk.toml, else `auto`",
        crate::host::name_list()
    )
}

/// `--config FILE`: the same flag, with the same meaning, on every command that
/// reads `pwk.toml`.
#[derive(Debug, Clone, Default, Args)]
pub struct ConfigFileArg {
    /// Use this configuration file for every file instead of the `pwk.toml` (or
    /// `.pwk.toml`) found by walking up from each file; its relative paths are
    /// relative to it.
    #[arg(long = "config", id = "config_file", value_name = "FILE")]
    pub file: Option<PathBuf>,
}

// Each flag of `lint` is an `Option<bool>`: `Some(true)` when given, `None` when not
// (read it with `is_some()`). `lint` is the command a pre-commit hook, an editor and CI
// run once per file, so its start-up is measured (`scripts/bench-lint.sh`). A `bool`
// flag carries clap's default `false`, and clap runs every default through its value
// parser at each parse: for `lint`'s 12 flags that was 66k instructions, a sixth of the
// work a one-file lint does beyond `pwk --version`. A flag with no values
// (`num_args = 0`), whose value when given is `true`, has no default to run; `--help`,
// errors and repeats read as a `bool` flag's do. A test holds every flag of `lint` to
// this form.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files or directories to lint; `-` reads one role from stdin.
    pub paths: Vec<PathBuf>,

    /// With `-`: the path the text on stdin stands for. It decides the host (under
    /// `auto`, `.claude/agents/x.md` is linted for claude-code), the configuration
    /// (the `pwk.toml` found from its directory, its overrides) and the file name
    /// reported. Without it the text is reported as `<stdin>` and linted with the
    /// current directory's configuration. Alone it implies `-`.
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,

    /// The project root (default: the nearest directory upwards that holds `.git`,
    /// `.agents` or `.pi`, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Walk directories recursively.
    #[arg(long, short = 'r', num_args = 0, default_missing_value = "true")]
    pub recursive: Option<bool>,

    #[arg(long, value_parser = parse_host, help = project_host_help())]
    pub host: Option<HostChoice>,

    #[command(flatten)]
    pub config: ConfigFileArg,

    /// Output format: `human` (the default: each finding with its source lines),
    /// `concise` (one line per finding), `json`, `sarif` or `github` (annotations).
    /// A finding marked `[*]` has a safe fix (`--fix`).
    // No `default_value_t`: clap would parse the default at each run; read it
    // with [`LintArgs::format`].
    #[arg(long, value_enum)]
    pub format: Option<LintFormat>,

    /// Exit 1 on warnings too.
    #[arg(long, num_args = 0, default_missing_value = "true")]
    pub deny_warnings: Option<bool>,

    /// Exit 0 even when findings remain (report without failing the step); pwk's
    /// own failures (bad usage, an unreadable file) still exit 2.
    #[arg(
        long,
        conflicts_with = "deny_warnings",
        num_args = 0,
        default_missing_value = "true"
    )]
    pub exit_zero: Option<bool>,

    /// Print how many findings each rule raised (with its severity and how many
    /// `--fix` repairs) instead of the findings; with `--format json`, as a JSON
    /// document (`human`, `concise` or `json`).
    #[arg(long, num_args = 0, default_missing_value = "true")]
    pub statistics: Option<bool>,

    /// Exit 0 when no file matched instead of 2.
    #[arg(long, num_args = 0, default_missing_value = "true")]
    pub allow_empty: Option<bool>,

    /// Apply the safe fixes, then lint again and report what remains. Files are
    /// never fixed through a symbolic link: in the project, no link is followed
    /// below the project root (a symlinked `.agents` is refused); outside it
    /// (`--fix ../other`), none below the directory or file's directory you named.
    /// A symlinked file, a FIFO or a file with several hard links is reported.
    #[arg(long, num_args = 0, default_missing_value = "true")]
    pub fix: Option<bool>,

    /// With --fix or --diff: apply unsafe fixes too (guesses such as a misspelt key
    /// renamed to its one close match). Alone it means --fix --unsafe-fixes.
    #[arg(long, num_args = 0, default_missing_value = "true")]
    pub unsafe_fixes: Option<bool>,

    /// Print the fixes as a unified diff and write nothing; exit 1 if a file would
    /// change.
    #[arg(
        long,
        conflicts_with = "fix",
        num_args = 0,
        default_missing_value = "true"
    )]
    pub diff: Option<bool>,

    /// Ignore every `# pwk: ignore…` comment: report what they hide (an audit run).
    #[arg(long, num_args = 0, default_missing_value = "true")]
    pub no_inline_suppressions: Option<bool>,

    /// Also check each `model` against the models pi lists on this machine
    /// (`unresolved-model`): runs the local `pi --list-models` once and reads
    /// `enabledModels` from pi's settings. Needs pi (`$PWK_PI_BIN` or PATH); makes no
    /// network call. Off by default: the answer depends on this machine.
    #[arg(long, num_args = 0, default_missing_value = "true")]
    pub check_models: Option<bool>,

    /// Report only findings not listed in this baseline file (matched by path,
    /// rule and the flagged text, not by line). Beats `baseline` in pwk.toml.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Create or refresh the baseline (`--baseline FILE`, default
    /// `pwk-baseline.json`) with every current finding; its paths are relative to
    /// the baseline file. Written without following a symbolic link below the
    /// project root (or below the file's directory, outside the project).
    #[arg(long, num_args = 0, default_missing_value = "true")]
    pub write_baseline: Option<bool>,

    /// Report only these rules (ids, comma-separated; beats pwk.toml: a rule it
    /// turns `off` is reported again, at its own severity).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub select: Vec<String>,

    /// Also report these rules (ids, comma-separated): added to the selection of
    /// `--select`, else of pwk.toml and the defaults (a rule pwk.toml turns `off` is
    /// reported again, at its own severity).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub extend_select: Vec<String>,

    /// Never report these rules (ids, comma-separated; beats pwk.toml, --select and
    /// --extend-select).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub ignore: Vec<String>,

    /// Report errors only, and nothing else: warnings are neither shown nor counted,
    /// and no summary is printed, so a clean run prints nothing.
    #[arg(long, short = 'q', num_args = 0, default_missing_value = "true")]
    pub quiet: Option<bool>,
}

impl LintArgs {
    /// `--format`, `human` when not given.
    pub fn format(&self) -> LintFormat {
        self.format.unwrap_or(LintFormat::Human)
    }
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Role files or directories (`*.md` directly inside; `--recursive` for all levels).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,

    #[arg(long, value_parser = parse_target_host, help = format!("The host that will read the converted files: {}, or a version such as `nicobailon@0.67`", file_host_list()))]
    pub to: HostSpec,

    #[arg(long, default_value = "auto", value_parser = parse_source_host, help = format!("The host the files are written for (default: `auto`: the host whose directory holds the file, `.claude/agents/` → claude-code, else `host` in pwk.toml, else pi's settings): {}, or a version such as `tintinweb@0.14`", file_host_list()))]
    pub from: HostChoice,

    /// Write the converted files into this directory (created when absent). In
    /// the project no symbolic link is followed below the project root (a
    /// symlinked `.pi` is refused); outside it, none below the directory you name.
    #[arg(long, conflicts_with = "in_place", required_unless_present_any = ["in_place", "dry_run"])]
    pub out: Option<PathBuf>,

    /// Replace each source file (its old content is kept as `<name>.bak`).
    #[arg(long)]
    pub in_place: bool,

    /// Map a model name: `--model-map sonnet=anthropic/claude-sonnet-4-5` (repeatable).
    #[arg(long = "model-map", value_name = "FROM=TO", value_parser = parse_model_map)]
    pub model_map: Vec<(String, String)>,

    /// Replace a different file at the target (the old one is kept as `<name>.bak`).
    #[arg(long)]
    pub force: bool,

    /// Convert, report and lint, but write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Walk directories recursively.
    #[arg(long, short = 'r')]
    pub recursive: bool,

    #[command(flatten)]
    pub config: ConfigFileArg,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// The hosts that read role files (every host but the portable `pwk` profile),
/// quoted: what `convert` offers.
fn file_host_list() -> String {
    crate::host::ALL
        .iter()
        .filter(|h| **h != crate::host::HostId::Pwk)
        .map(|h| format!("`{h}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A host files are converted for or from: never `auto` or the portable profile,
/// which read no files.
fn parse_file_host(s: &str, flag: &str) -> Result<HostSpec, String> {
    let name = s.split_once('@').map_or(s, |(n, _)| n);
    match name {
        "auto" => Err(format!(
            "`{flag} auto`: `auto` detects a host for linting, and convert needs the host that reads the files; convert knows {}",
            file_host_list()
        )),
        "pwk" => Err(format!(
            "`{flag} pwk`: the portable profile is a lint profile, not a host that reads files; convert knows {}",
            file_host_list()
        )),
        _ => s.parse::<HostSpec>().map_err(|e| match e {
            crate::host::HostError::UnknownHost(h) => {
                let hint = crate::suggest::did_you_mean(
                    &h,
                    crate::host::ALL
                        .iter()
                        .filter(|x| **x != crate::host::HostId::Pwk)
                        .map(|x| x.as_str()),
                )
                .map(|x| format!(" (did you mean `{x}`?)"))
                .unwrap_or_default();
                format!(
                    "unknown host `{h}`{hint}; convert knows {}",
                    file_host_list()
                )
            }
            other => other.to_string(),
        }),
    }
}

fn parse_target_host(s: &str) -> Result<HostSpec, String> {
    parse_file_host(s, "--to")
}

fn parse_source_host(s: &str) -> Result<HostChoice, String> {
    if s == "auto" {
        return Ok(HostChoice::Auto);
    }
    parse_file_host(s, "--from").map(HostChoice::Spec)
}

fn parse_model_map(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => {
            Ok((a.trim().to_string(), b.trim().to_string()))
        }
        _ => Err(format!(
            "`{s}` is not `FROM=TO`, e.g. `sonnet=anthropic/claude-sonnet-4-5`"
        )),
    }
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The project root (default: the nearest directory upwards that holds `.git`,
    /// `.agents` or `.pi`, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    #[arg(long, value_parser = parse_host, conflicts_with = "config", help = host_help("the shipped role schema"))]
    pub host: Option<HostChoice>,

    /// Print the JSON Schema of `pwk.toml` instead (for taplo / Even Better TOML).
    #[arg(long)]
    pub config: bool,

    /// Output format: `json` (default) prints the JSON Schema itself; `human`, a table of
    /// the keys with their types.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// The file or directory whose configuration to show (default: `.`).
    pub path: Option<PathBuf>,

    /// As `pwk lint --host` would set it (a flag beats the file).
    #[arg(long, value_parser = parse_host, help = project_host_help())]
    pub host: Option<HostChoice>,

    #[command(flatten)]
    pub config: ConfigFileArg,

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
pub struct ExplainArgs {
    /// The rule id, e.g. `unknown-key` (a misspelt one gets a did-you-mean).
    pub rule: String,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct SetupArgs {
    /// The project root to install into (its agents directory; default: the nearest
    /// directory upwards that holds `.git`, `.agents` or `.pi`, else the current directory).
    #[arg(long, value_name = "DIR", conflicts_with = "global")]
    pub dir: Option<PathBuf>,

    /// Install into the global agents directory (`$PI_CODING_AGENT_DIR/agents/`).
    #[arg(long)]
    pub global: bool,

    #[arg(long, value_parser = parse_host, help = setup_host_help())]
    pub host: Option<HostChoice>,

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

    #[command(flatten)]
    pub config: ConfigFileArg,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// The project root (default: the nearest directory upwards that holds `.git`,
    /// `.agents` or `.pi`, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Also list hidden adapters (`disable-model-invocation: true`).
    #[arg(long)]
    pub all: bool,

    #[arg(long, value_parser = parse_host, help = project_host_help())]
    pub host: Option<HostChoice>,

    #[command(flatten)]
    pub config: ConfigFileArg,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The project root (default: the nearest directory upwards that holds `.git`,
    /// `.agents` or `.pi`, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Only this host (repeatable): claude-code, opencode, gemini, copilot, tintinweb,
    /// nicobailon, pi-example.
    #[arg(long = "only", value_name = "HOST")]
    pub only: Vec<String>,

    /// The program of a host, when it is not on PATH (repeatable), e.g.
    /// `claude-code=/opt/claude/bin/claude`; for a pi extension, its package directory
    /// (`tintinweb=…/node_modules/@tintinweb/pi-subagents`); for pi's example
    /// extension, the directory holding its `agents.ts`
    /// (`pi-example=…/pi-coding-agent/examples/extensions/subagent`). Naming a copy
    /// inside the project is consent to run it.
    #[arg(long = "host-bin", value_name = "HOST=PATH", value_parser = parse_host_bin)]
    pub host_bin: Vec<(crate::host::HostId, PathBuf)>,

    #[command(flatten)]
    pub config: ConfigFileArg,

    /// The Node that runs pwk's driver (default: `node` on PATH).
    #[arg(long, value_name = "PATH")]
    pub node: Option<PathBuf>,

    /// The longest one host may run, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub timeout: u64,

    /// Also run host code that lies in the project, as pi would: an extension
    /// vendored in `.pi/extensions/`, a package installed under `.pi/npm/`, a pi
    /// package in its `node_modules`, a program on a PATH entry in it. Without it
    /// such a copy is passed over for the user's or pi's own, and the output says so.
    #[arg(long)]
    pub run_project_code: bool,

    /// List the hosts and files that would be checked, which copy of each host would
    /// run (and which copies in the project would not), and the commands pwk would
    /// run; start nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

fn parse_host_bin(s: &str) -> Result<(crate::host::HostId, PathBuf), String> {
    crate::verify::installed::parse_host_bin(s)
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The role name.
    pub name: String,

    /// The project root (default: the nearest directory upwards that holds `.git`,
    /// `.agents` or `.pi`, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    #[arg(long, value_parser = parse_host, help = project_host_help())]
    pub host: Option<HostChoice>,

    #[command(flatten)]
    pub config: ConfigFileArg,

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

    /// The project root (default: the nearest directory upwards that holds `.git`,
    /// `.agents` or `.pi`, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// The directory to write the file into, instead of the one the host reads
    /// (`<project>/.pi/agents/` for herdr and pi-example, `<project>/.claude/agents/`
    /// for Claude Code, `.opencode/agents/`, `.gemini/agents/`, `.github/agents/`,
    /// else `<project>/.agents/agents/`; in the project, no symbolic link is
    /// followed below the project root).
    #[arg(long, value_name = "DIR", conflicts_with = "dir")]
    pub agents_dir: Option<PathBuf>,

    /// The host the role is written for, in its own directory and keys.
    #[arg(long, value_parser = parse_host, help = project_host_help())]
    pub host: Option<HostChoice>,

    #[command(flatten)]
    pub config: ConfigFileArg,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct SmokeArgs {
    /// The role name.
    pub name: String,

    /// Launch it once with a harmless read-only prompt and report the outcome.
    #[arg(long)]
    pub run: bool,

    /// The project root (default: the nearest directory upwards that holds `.git`,
    /// `.agents` or `.pi`, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    #[arg(long, value_parser = parse_host, help = project_host_help())]
    pub host: Option<HostChoice>,

    #[command(flatten)]
    pub config: ConfigFileArg,

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

    #[command(flatten)]
    pub config: ConfigFileArg,

    /// Output format (default json: this command answers a machine protocol).
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
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

    /// Spend limits of each role's run: `max-tokens=N`, `max-cost-usd=X`,
    /// `max-wall-seconds=S` (comma-separated). Prefix a role to limit that role
    /// only: `--budget hazard:max-tokens=20000`. Crossing a limit stops that role's pi
    /// (BUDGET_EXCEEDED); the others run on. When pi reports usage a limit cannot
    /// count, the result says so; `on-unknown-usage=stop` stops the role instead
    /// (BUDGET_UNENFORCEABLE). Repeatable, each limit once per role; default:
    /// `[delegate] budget` in pwk.toml.
    #[arg(long, value_name = "[ROLE:]LIMIT=N,...")]
    pub budget: Vec<String>,

    #[command(flatten)]
    pub config: ConfigFileArg,

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

    /// The project root pi works in (default: the nearest directory upwards that holds
    /// `.git`, `.agents` or `.pi`, else the current directory). `--cwd` is an alias.
    #[arg(long, value_name = "DIR", alias = "cwd")]
    pub dir: Option<PathBuf>,

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

    /// The project root pi works in (default: the nearest directory upwards that holds
    /// `.git`, `.agents` or `.pi`, else the current directory). `--cwd` is an alias.
    #[arg(long, value_name = "DIR", alias = "cwd")]
    pub dir: Option<PathBuf>,

    #[command(flatten)]
    pub run: ProviderRunArgs,
}

#[derive(Debug, Args)]
pub struct RunRequestArgs {
    #[command(flatten)]
    pub roles: RoleRunArgs,

    #[command(flatten)]
    pub config: ConfigFileArg,

    /// Output format (default json: this command answers a machine protocol).
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct CoverageArgs {
    /// Output format (default json: this command answers a machine protocol).
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct CapabilitiesArgs {
    /// Output format (default json: this command answers a machine protocol).
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
    #[arg(long, value_parser = parse_host, help = project_host_help())]
    pub host: Option<HostChoice>,

    /// The project root (default: the editor's workspace folder, else the current
    /// directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,

    #[command(flatten)]
    pub config: ConfigFileArg,
}

impl Command {
    /// Whether the command was asked to answer in JSON, so that a fatal error is a
    /// JSON document too (`{"version":1,"error":{…}}`). `delegate` and `run-request`
    /// are not: their protocol has its own failed result.
    pub fn answers_in_json(&self) -> bool {
        let json = |f: Format| f == Format::Json;
        match self {
            Command::Lint(a) => a.format() == LintFormat::Json,
            Command::Schema(a) => json(a.format),
            Command::Config(a) => json(a.format),
            Command::Rules(a) => json(a.format),
            Command::Explain(a) => json(a.format),
            Command::Setup(a) => json(a.format),
            Command::List(a) => json(a.format),
            Command::Show(a) => json(a.format),
            Command::New(a) => json(a.format),
            Command::Smoke(a) => json(a.format),
            Command::Verify(a) => json(a.format),
            Command::Convert(a) => json(a.format),
            Command::Recon(a) => json(a.run.format),
            Command::Review(a) => json(a.run.format),
            Command::Coverage(a) => json(a.format),
            Command::Capabilities(a) => json(a.format),
            Command::Delegate(_)
            | Command::RunRequest(_)
            | Command::Mcp(_)
            | Command::Completions(_)
            | Command::Lsp(_) => false,
        }
    }
}

impl Cli {
    /// `Cli::parse()`, except that clap's command tree is not dropped: freeing it
    /// costs more than linting one file, and the process is about to exit anyway.
    /// A usage error is said as every pwk error is (`pwk: error: …`), exit 2.
    pub fn parse_args() -> Cli {
        use clap::{CommandFactory, FromArgMatches};
        let mut command = Cli::command();
        let cli = command
            .try_get_matches_from_mut(std::env::args_os())
            .and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches))
            .unwrap_or_else(|e| usage_error(e.format(&mut command)));
        std::mem::forget(command);
        cli
    }
}

/// Print clap's error with pwk's prefix and exit 2; help and version requests
/// (and `pwk` alone, which prints the help) exit as clap has them.
fn usage_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind as K;
    match e.kind() {
        K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand => {
            e.exit()
        }
        _ => {
            // Plain text, as the fatal path writes (clap's `error:` begins it).
            let text = e.render().to_string();
            crate::display::eprintln_safe(&format!("pwk: {}", text.trim_end()));
            std::process::exit(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches};

    /// `lint`'s flags, built as clap builds them for a parse.
    fn lint_flags() -> Vec<clap::Arg> {
        let mut cli = Cli::command();
        cli.build();
        let lint = cli.find_subcommand("lint").expect("lint").clone();
        let flags: Vec<clap::Arg> = lint
            .get_arguments()
            .filter(|a| !a.is_positional() && !a.get_num_args().is_some_and(|n| n.takes_values()))
            .filter(|a| {
                !matches!(
                    a.get_action(),
                    clap::ArgAction::Help | clap::ArgAction::HelpShort | clap::ArgAction::HelpLong
                )
            })
            .cloned()
            .collect();
        assert!(flags.len() >= 12, "lint has its flags: {}", flags.len());
        flags
    }

    fn parse(args: &[&str]) -> Result<LintArgs, clap::Error> {
        let mut m = Cli::command().try_get_matches_from(args)?;
        match Cli::from_arg_matches_mut(&mut m)?.command {
            Command::Lint(a) => Ok(a),
            other => panic!("not lint: {other:?}"),
        }
    }

    /// A global option (`--color`) and every option of `lint` have no default value
    /// for clap to parse (and, global, copy into every subcommand's matches) at each
    /// run: not given, it is `None`, and the command layer takes the default.
    #[test]
    fn global_and_lint_options_have_no_default() {
        let mut cli = Cli::command();
        cli.build();
        let globals: Vec<&clap::Arg> = cli.get_arguments().filter(|a| a.is_global_set()).collect();
        assert!(!globals.is_empty(), "--color is global");
        let lint = cli.find_subcommand("lint").expect("lint");
        for a in globals.into_iter().chain(lint.get_arguments()) {
            assert!(
                a.get_default_values().is_empty(),
                "--{} has a default",
                a.get_long().unwrap_or_default()
            );
        }
        assert_eq!(
            parse(&["pwk", "lint"]).expect("parses").format(),
            LintFormat::Human
        );
        assert_eq!(
            parse(&["pwk", "lint", "--format", "sarif"])
                .expect("parses")
                .format(),
            LintFormat::Sarif
        );
        let color = |args: &[&str]| Cli::try_parse_from(args).expect("parses").color;
        assert_eq!(color(&["pwk", "lint"]), None);
        assert_eq!(
            color(&["pwk", "lint", "--color", "never"]),
            Some(ColorChoice::Never)
        );
        assert_eq!(
            color(&["pwk", "--color=always", "lint"]),
            Some(ColorChoice::Always)
        );
    }

    /// Every flag of `lint` is an `Option<bool>` flag: no default value for clap to parse at
    /// each run, `true` when given, refused with a value and when repeated (as a
    /// `bool` flag is).
    #[test]
    fn every_lint_flag_has_no_default_and_reads_as_a_bool_flag() {
        let none = parse(&["pwk", "lint"]).expect("bare lint parses");
        for flag in lint_flags() {
            let long = flag.get_long().expect("a long name");
            assert!(
                flag.get_default_values().is_empty(),
                "--{long} has a default: clap parses it at every run (make it an `Option<bool>` with `num_args = 0`)"
            );
            let given = format!("--{long}");
            let mut m = Cli::command()
                .try_get_matches_from(["pwk", "lint", &given])
                .unwrap_or_else(|e| panic!("{given}: {e}"));
            let (_, sub) = m.remove_subcommand().expect("lint");
            assert_eq!(
                sub.get_one::<bool>(flag.get_id().as_str()),
                Some(&true),
                "{given}"
            );
            assert!(
                parse(&["pwk", "lint", &format!("{given}=true")]).is_err(),
                "{given}=true is refused"
            );
            assert!(
                parse(&["pwk", "lint", &given, &given]).is_err(),
                "{given} twice is refused"
            );
        }
        assert_eq!(none.fix, None);
        assert_eq!(none.quiet, None);
        assert_eq!(
            parse(&["pwk", "lint", "-rq"]).expect("-rq").recursive,
            Some(true)
        );
    }
}
