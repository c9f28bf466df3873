//! pwk: lint, install, list and run agent roles for the `pi` coding agent.
//!
//! `run` is the only entry point the binary uses: one match on the subcommand.
//! Each concern lives in its own module; dependencies point one way
//! (provider → delegate → role; install → role; lint → role; discover → role).

pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod delegate;
pub mod discover;
pub mod env;
pub mod exit;
pub mod host;
pub mod install;
pub mod lint;
pub mod lsp;
pub mod pi;
pub mod provider;
pub mod role;
pub mod text;

pub use context::Context;
pub use exit::ExitStatus;

use cli::{Cli, Command};

/// Run one command line and return the process exit status.
///
/// Errors that stop a command are printed once, as `pwk: error: …` followed by
/// their causes, and map to exit status 2.
pub fn run(cli: Cli) -> ExitStatus {
    let ctx = match Context::from_process(cli.color) {
        Ok(ctx) => ctx,
        Err(err) => return report_fatal(&err),
    };
    let result = match &cli.command {
        Command::Lint(args) => lint::command::run(args, &ctx),
        Command::Config(args) => commands::config::run(args, &ctx),
        Command::Schema(args) => lint::command::schema(args, &ctx),
        Command::Rules(args) => lint::command::rules(args, &ctx),
        Command::Setup(args) => install::command::run(args, &ctx),
        Command::List(args) => discover::command::list(args, &ctx),
        Command::Show(args) => discover::command::show(args, &ctx),
        Command::New(args) => discover::command::new(args, &ctx),
        Command::Smoke(args) => discover::command::smoke(args, &ctx),
        Command::Delegate(args) => delegate::command::run(args, &ctx),
        Command::Recon(args) => provider::command::recon(args, &ctx),
        Command::Review(args) => provider::command::review(args, &ctx),
        Command::RunRequest(args) => provider::command::run_request(args, &ctx),
        Command::Capabilities(args) => provider::command::capabilities(args, &ctx),
        Command::Coverage => provider::command::coverage(&ctx),
        Command::Completions(args) => completions(args),
        Command::Lsp(args) => commands::lsp::run(args, &ctx),
    };
    match result {
        Ok(status) => status,
        Err(err) => report_fatal(&err),
    }
}

fn report_fatal(err: &anyhow::Error) -> ExitStatus {
    // Messages quote paths, names and pi's output: escaped, each kept on its line.
    let mut text = format!("pwk: error: {}", text::escape_block(&err.to_string()));
    for cause in err.chain().skip(1) {
        text.push_str(&format!(
            "\n  caused by: {}",
            text::escape_block(&cause.to_string())
        ));
    }
    context::eprintln_safe(&text);
    ExitStatus::Error
}

fn completions(args: &cli::CompletionsArgs) -> anyhow::Result<ExitStatus> {
    use clap::CommandFactory;
    let shell = match args.shell {
        cli::Shell::Bash => clap_complete::Shell::Bash,
        cli::Shell::Zsh => clap_complete::Shell::Zsh,
        cli::Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "pwk", &mut out);
    context::write_stdout(&out)?;
    Ok(ExitStatus::Success)
}
