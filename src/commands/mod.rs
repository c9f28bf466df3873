//! The command layer: the only code that sees clap types, the process
//! [`Context`], anyhow and exit codes.
//!
//! One file per verb (`roles.rs` and `provider.rs` hold what a family of verbs
//! shares). Each turns its `*Args` into the typed options of a domain module, calls
//! it, renders the result and picks the exit status. Every command finds its project
//! with [`project`]. Errors that stop a command travel up as
//! `anyhow::Error` to [`run`], which prints them once ([`report_fatal`]) and exits 2.

pub mod capabilities;
pub mod complete;
pub mod config;
pub mod convert;
pub mod coverage;
pub mod delegate;
pub mod lint;
pub mod list;
pub mod lsp;
pub mod mcp;
mod model_check;
pub mod new;
pub mod provider;
pub mod recon;
pub mod review;
pub mod roles;
pub mod rules;
pub mod run_request;
pub mod schema;
pub mod setup;
pub mod show;
pub mod smoke;
pub mod verify;

use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command};
use crate::display;
use crate::host::HostChoice;
use crate::{Context, ExitStatus};

/// The exit status of an internal error (a panic): Rust's own for a panicking
/// `main`, distinct from 2 (pwk could not do its job), as ty and cargo have it.
pub const INTERNAL_ERROR: u8 = 101;

/// Say an internal error (a panic) once, as pwk's other errors are said, with what
/// to do about it; the process then exits [`INTERNAL_ERROR`] (the panic unwinds
/// out of `main`, dropping what owns pi's children on the way). The language
/// server catches a panic of one request and goes on; it is said there too.
pub fn install_panic_hook() {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    std::panic::set_hook(Box::new(|info| {
        if SAID.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        let payload = info.payload();
        let what = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic");
        let at = info
            .location()
            .map(|l| format!(" (at {}:{})", l.file(), l.line()))
            .unwrap_or_default();
        display::eprintln_safe(&format!(
            "pwk: internal error: {}{at}\n  this is a bug in pwk {}; please report it with the command you ran: {}/issues (exit {INTERNAL_ERROR}; RUST_BACKTRACE=1 shows where it happened)",
            crate::text::escape_block(what),
            env!("CARGO_PKG_VERSION"),
            env!("CARGO_PKG_REPOSITORY"),
        ));
        if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
            display::eprintln_safe(&std::backtrace::Backtrace::force_capture().to_string());
        }
    }));
}

/// Run one command line and return the process exit status.
pub fn run(cli: Cli) -> ExitStatus {
    // pwk owns its children: none outlives the command (crate::pi::children).
    let _children = crate::pi::children::own_process();
    if crate::env::debug_panic_requested() {
        panic!("PWK_DEBUG_PANIC is set: a debug build panics on purpose");
    }
    let ctx = match Context::from_process(cli.color.unwrap_or(crate::cli::ColorChoice::Auto)) {
        Ok(ctx) => ctx,
        Err(err) => return report_fatal(&err),
    };
    let result = match &cli.command {
        Command::Lint(args) => lint::run(args, &ctx),
        Command::Config(args) => config::run(args, &ctx),
        Command::Schema(args) => schema::run(args, &ctx),
        Command::Rules(args) => rules::run(args, &ctx),
        Command::Explain(args) => rules::explain(args, &ctx),
        Command::Setup(args) => setup::run(args, &ctx),
        Command::List(args) => list::run(args, &ctx),
        Command::Show(args) => show::run(args, &ctx),
        Command::New(args) => new::run(args, &ctx),
        Command::Smoke(args) => smoke::run(args, &ctx),
        Command::Verify(args) => verify::run(args, &ctx),
        Command::Convert(args) => convert::run(args, &ctx),
        Command::Delegate(args) => delegate::run(args, &ctx),
        Command::Recon(args) => recon::run(args, &ctx),
        Command::Review(args) => review::run(args, &ctx),
        Command::RunRequest(args) => run_request::run(args, &ctx),
        Command::Capabilities(args) => capabilities::run(args, &ctx),
        Command::Coverage(args) => coverage::run(args, &ctx),
        Command::Mcp(args) => mcp::run(args, &ctx),
        Command::Lsp(args) => lsp::run(args, &ctx),
        Command::Completions(args) => completions(args),
    };
    let status = match result {
        Ok(status) => status,
        Err(err) => {
            // A command asked for JSON answers in JSON, errors too, unless it
            // already printed its document (`lint` prints the report first).
            if cli.command.answers_in_json() && !display::wrote_stdout() {
                let _ = display::write_stdout(&error_document(&err));
            }
            report_fatal(&err)
        }
    };
    crate::meter::report(ctx.env.meter.as_deref());
    status
}

/// `{"version": 1, "error": {"message", "details", "causes"}}`: a fatal error as the
/// JSON document of a command run with `--format json` (the message's first line,
/// its other lines, and the chain of causes).
fn error_document(err: &anyhow::Error) -> Vec<u8> {
    // Raw text: the JSON encoding escapes what a terminal must not get.
    let text = err.to_string();
    let mut lines = text.lines();
    let message = lines.next().unwrap_or_default().to_string();
    let details: Vec<&str> = lines.map(str::trim).filter(|l| !l.is_empty()).collect();
    let causes: Vec<String> = err.chain().skip(1).map(|c| c.to_string()).collect();
    let doc = serde_json::json!({
        "version": 1,
        "error": {"message": message, "details": details, "causes": causes},
    });
    let mut out = crate::text::json_escape_controls(
        serde_json::to_string_pretty(&doc).expect("plain data serializes"),
    )
    .into_bytes();
    out.push(b'\n');
    out
}

pub use crate::project::Project;

/// What a command line says about its project.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProjectFlags<'a> {
    /// `--dir`.
    pub dir: Option<&'a Path>,
    /// `--host` (`None`: the project's `pwk.toml`, else `auto`).
    pub host: Option<&'a HostChoice>,
    /// `--config FILE`.
    pub config: Option<&'a Path>,
}

/// The one project rule: every command finds its project here, once.
pub fn project(ctx: &Context, dir: Option<&Path>) -> anyhow::Result<Project> {
    open_project(
        ctx,
        ProjectFlags {
            dir,
            ..Default::default()
        },
    )
}

/// [`project`] with the command's `--host` and `--config`.
pub fn open_project(ctx: &Context, flags: ProjectFlags<'_>) -> anyhow::Result<Project> {
    let project = crate::project::Project::open(project_options(ctx, flags))
        .map_err(|e| anyhow::anyhow!(e.relative_to(&ctx.cwd)))?;
    // What another user controls is not used, and never silently.
    for u in &project.ignored {
        crate::display::eprintln_safe(&format!("pwk: warning: {}", u.root_warning(&ctx.cwd)));
    }
    Ok(project)
}

/// What the command line and the environment say about the project.
pub fn project_options(ctx: &Context, flags: ProjectFlags<'_>) -> crate::project::ProjectOptions {
    crate::project::ProjectOptions {
        cwd: ctx.cwd.clone(),
        dir: flags.dir.map(PathBuf::from),
        host: flags.host.cloned(),
        config: flags.config.map(PathBuf::from),
        home: ctx.env.home.clone(),
        agent_dir: ctx.env.agent_dir(),
    }
}

/// The project of `--dir` (and `--config`) and every role its hosts see, one
/// discovery per host (`--host`, else the project's `pwk.toml`, else `auto`: the
/// project's host and each host whose own directory exists;
/// [`Project::role_hosts`]): what `list`, `show` and `smoke` start from.
pub fn discover(
    ctx: &Context,
    flags: ProjectFlags<'_>,
) -> anyhow::Result<(Project, Vec<crate::discover::Discovery>)> {
    let project = open_project(ctx, flags)?;
    let views = project.discover_hosts().map_err(|e| config_error(ctx, e))?;
    Ok((project, views))
}

/// A configuration error, its paths relative to the current directory.
pub fn config_error(ctx: &Context, e: crate::config::ConfigError) -> anyhow::Error {
    anyhow::anyhow!(e.relative_to(&ctx.cwd))
}

/// The one fatal-error path: `pwk: error: …`, each cause on its own line, exit 2.
fn report_fatal(err: &anyhow::Error) -> ExitStatus {
    // Messages quote paths, names and pi's output: escaped, each kept on its line.
    let mut text = format!(
        "pwk: error: {}",
        crate::text::escape_block(&err.to_string())
    );
    for cause in err.chain().skip(1) {
        text.push_str(&format!(
            "\n  caused by: {}",
            crate::text::escape_block(&cause.to_string())
        ));
    }
    display::eprintln_safe(&text);
    ExitStatus::Error
}

/// Answer `COMPLETE=<shell> pwk …` (what the registration script runs on Tab) and
/// exit; a no-op otherwise.
pub fn complete_if_asked() {
    clap_complete::CompleteEnv::with_factory(complete::command).complete();
}

/// `pwk completions SHELL`: the registration script. On Tab it asks pwk itself, so
/// it completes subcommands and flags, the project's role names (`show`, `smoke`)
/// and rule ids (`rules`).
#[inline(never)] // commands::run dispatches: each command its own code (docs/src/perf.md, step 30)
fn completions(args: &crate::cli::CompletionsArgs) -> anyhow::Result<ExitStatus> {
    use clap_complete::env::EnvCompleter;
    let shell: &dyn EnvCompleter = match args.shell {
        crate::cli::Shell::Bash => &clap_complete::env::Bash,
        crate::cli::Shell::Zsh => &clap_complete::env::Zsh,
        crate::cli::Shell::Fish => &clap_complete::env::Fish,
    };
    let mut out = Vec::new();
    shell.write_registration("COMPLETE", "pwk", "pwk", "pwk", &mut out)?;
    display::write_stdout(&out)?;
    Ok(ExitStatus::Success)
}

#[cfg(test)]
mod tests {
    /// N26, as a class: every command whose glue opens the project (and so reads
    /// `pwk.toml`: its host, rules, baseline or `[delegate] budget`) takes
    /// `--config FILE`. Found from the sources, so the next command is covered.
    /// `schema` is the one exception: its `--config` prints the `pwk.toml` schema
    /// (it reads a project only for `--host auto`).
    #[test]
    fn every_command_that_reads_pwk_toml_takes_config() {
        use clap::CommandFactory;
        let cli = crate::cli::Cli::command();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/commands");
        let mut checked = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let src = std::fs::read_to_string(&path).unwrap();
            let stem = path
                .file_stem()
                .unwrap()
                .to_str()
                .unwrap()
                .replace('_', "-");
            let reads = [
                "open_project(",
                "super::project(",
                "super::discover(",
                "default_budget(",
            ]
            .iter()
            .any(|c| src.contains(c));
            let Some(sub) = cli.find_subcommand(&stem) else {
                continue; // shared glue (mod, provider, complete)
            };
            if !reads || stem == "schema" {
                continue;
            }
            assert!(
                sub.get_arguments().any(|a| a.get_id() == "config_file"),
                "`pwk {stem}` reads pwk.toml but has no --config FILE"
            );
            checked.push(stem);
        }
        checked.sort();
        assert!(checked.len() >= 14, "{checked:?}");
    }
}
