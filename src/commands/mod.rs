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

use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command};
use crate::context;
use crate::host::HostChoice;
use crate::{Context, ExitStatus};

/// Run one command line and return the process exit status.
pub fn run(cli: Cli) -> ExitStatus {
    // pwk owns its children: none outlives the command (crate::pi::children).
    let _children = crate::pi::children::own_process();
    let ctx = match Context::from_process(cli.color) {
        Ok(ctx) => ctx,
        Err(err) => return report_fatal(&err),
    };
    let result = match &cli.command {
        Command::Lint(args) => lint::run(args, &ctx),
        Command::Config(args) => config::run(args, &ctx),
        Command::Schema(args) => schema::run(args, &ctx),
        Command::Rules(args) => rules::run(args, &ctx),
        Command::Setup(args) => setup::run(args, &ctx),
        Command::List(args) => list::run(args, &ctx),
        Command::Show(args) => show::run(args, &ctx),
        Command::New(args) => new::run(args, &ctx),
        Command::Smoke(args) => smoke::run(args, &ctx),
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
    match result {
        Ok(status) => status,
        Err(err) => report_fatal(&err),
    }
}

/// The project a command works in, found the same way by every command.
#[derive(Debug, Clone)]
pub struct Project {
    /// The project root: `--dir`, else the nearest directory upwards from the
    /// current one that holds `.git`, `.agents` or `.pi` (stopping below `$HOME`),
    /// else the current directory.
    pub root: PathBuf,
    /// Where the host is taken to run: `--dir` when given, else the current directory.
    pub cwd: PathBuf,
}

/// The one project-root rule. `dir` is `--dir`: the project root itself, relative
/// to the current directory; it must be an existing directory.
pub fn project(ctx: &Context, dir: Option<&Path>) -> anyhow::Result<Project> {
    let Some(dir) = dir else {
        let (root, _) = crate::discover::find_project_root(&ctx.cwd, ctx.env.home.as_deref());
        return Ok(Project {
            root,
            cwd: ctx.cwd.clone(),
        });
    };
    let root = ctx.cwd.join(dir);
    match std::fs::metadata(&root) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => anyhow::bail!(
            "--dir `{}` is not a directory; give the project's root directory",
            ctx.display_path(&root)
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => anyhow::bail!(
            "--dir `{}` does not exist; give an existing project directory",
            ctx.display_path(&root)
        ),
        Err(e) => anyhow::bail!(
            "--dir `{}` cannot be used: {e}; give an existing project directory",
            ctx.display_path(&root)
        ),
    }
    Ok(Project {
        cwd: root.clone(),
        root,
    })
}

impl Project {
    /// Discovery's starting points for this project.
    pub fn roots(&self, ctx: &Context) -> crate::discover::Roots {
        crate::discover::Roots {
            cwd: self.cwd.clone(),
            home: ctx.env.home.clone(),
            global_agents_dir: ctx.env.global_agents_dir(),
            project_root: Some(self.root.clone()),
        }
    }

    /// The host profile for `choice` in this project (`auto` reads its pi settings).
    pub fn host(&self, ctx: &Context, choice: &HostChoice) -> crate::host::Chosen {
        choice.resolve(&self.root, ctx.env.agent_dir().as_deref())
    }

    /// Every role the chosen host sees in this project.
    pub fn discover(&self, ctx: &Context, choice: &HostChoice) -> crate::discover::Discovery {
        let chosen = self.host(ctx, choice);
        let mut d = crate::discover::resolve_in(&self.roots(ctx), chosen.profile);
        d.host_choice = chosen.explain();
        d
    }
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
    context::eprintln_safe(&text);
    ExitStatus::Error
}

/// Answer `COMPLETE=<shell> pwk …` (what the registration script runs on Tab) and
/// exit; a no-op otherwise.
pub fn complete_if_asked() {
    use clap::CommandFactory;
    clap_complete::CompleteEnv::with_factory(Cli::command).complete();
}

/// `pwk completions SHELL`: the registration script. On Tab it asks pwk itself, so
/// it completes subcommands and flags, the project's role names (`show`, `smoke`)
/// and rule ids (`rules`).
fn completions(args: &crate::cli::CompletionsArgs) -> anyhow::Result<ExitStatus> {
    use clap_complete::env::EnvCompleter;
    let shell: &dyn EnvCompleter = match args.shell {
        crate::cli::Shell::Bash => &clap_complete::env::Bash,
        crate::cli::Shell::Zsh => &clap_complete::env::Zsh,
        crate::cli::Shell::Fish => &clap_complete::env::Fish,
    };
    let mut out = Vec::new();
    shell.write_registration("COMPLETE", "pwk", "pwk", "pwk", &mut out)?;
    context::write_stdout(&out)?;
    Ok(ExitStatus::Success)
}
