//! The command layer: the only code that sees clap types, the process
//! [`Context`], anyhow and exit codes.
//!
//! One file per verb (or per family of verbs that share their glue). Each turns its
//! `*Args` into the typed options of a domain module, calls it, renders the result
//! and picks the exit status. Errors that stop a command travel up as
//! `anyhow::Error` to [`run`], which prints them once ([`report_fatal`]) and exits 2.

pub mod delegate;
pub mod lint;
pub mod mcp;
pub mod provider;
pub mod roles;
pub mod setup;

use crate::cli::{Cli, Command};
use crate::context;
use crate::{Context, ExitStatus};

/// Run one command line and return the process exit status.
pub fn run(cli: Cli) -> ExitStatus {
    let ctx = match Context::from_process(cli.color) {
        Ok(ctx) => ctx,
        Err(err) => return report_fatal(&err),
    };
    let result = match &cli.command {
        Command::Lint(args) => lint::run(args, &ctx),
        Command::Schema(args) => lint::schema(args, &ctx),
        Command::Rules(args) => lint::rules(args, &ctx),
        Command::Setup(args) => setup::run(args, &ctx),
        Command::List(args) => roles::list(args, &ctx),
        Command::Show(args) => roles::show(args, &ctx),
        Command::New(args) => roles::new(args, &ctx),
        Command::Smoke(args) => roles::smoke(args, &ctx),
        Command::Delegate(args) => delegate::run(args, &ctx),
        Command::Recon(args) => provider::recon(args, &ctx),
        Command::Review(args) => provider::review(args, &ctx),
        Command::RunRequest(args) => provider::run_request(args, &ctx),
        Command::Capabilities(args) => provider::capabilities(args, &ctx),
        Command::Coverage => provider::coverage(&ctx),
        Command::Mcp(args) => mcp::run(args, &ctx),
        Command::Completions(args) => completions(args),
    };
    match result {
        Ok(status) => status,
        Err(err) => report_fatal(&err),
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

fn completions(args: &crate::cli::CompletionsArgs) -> anyhow::Result<ExitStatus> {
    use clap::CommandFactory;
    let shell = match args.shell {
        crate::cli::Shell::Bash => clap_complete::Shell::Bash,
        crate::cli::Shell::Zsh => clap_complete::Shell::Zsh,
        crate::cli::Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "pwk", &mut out);
    context::write_stdout(&out)?;
    Ok(ExitStatus::Success)
}
