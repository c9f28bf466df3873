fn main() -> std::process::ExitCode {
    // A panic is said as pwk's errors are, and exits 101 (`commands::INTERNAL_ERROR`).
    pwk::commands::install_panic_hook();
    // `COMPLETE=<shell> pwk …`: answer a shell's completion request and exit.
    pwk::commands::complete_if_asked();
    let cli = pwk::cli::Cli::parse_args();
    pwk::run(cli).into()
}
