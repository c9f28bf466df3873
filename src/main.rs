use clap::Parser;

fn main() -> std::process::ExitCode {
    // `COMPLETE=<shell> pwk …`: answer a shell's completion request and exit.
    pwk::commands::complete_if_asked();
    let cli = pwk::cli::Cli::parse();
    pwk::run(cli).into()
}
