fn main() -> std::process::ExitCode {
    // `COMPLETE=<shell> pwk …`: answer a shell's completion request and exit.
    pwk::commands::complete_if_asked();
    let cli = pwk::cli::Cli::parse_args();
    pwk::run(cli).into()
}
