use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = pwk::cli::Cli::parse();
    pwk::run(cli).into()
}
