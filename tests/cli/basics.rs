//! The command-line surface as a whole: help, version, completions, schema.

use crate::support::{TestEnv, run};

#[test]
fn help_lists_every_command() {
    let env = TestEnv::new();
    let out = run(env.pwk().arg("--help"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    for cmd in [
        "lint",
        "schema",
        "rules",
        "setup",
        "list",
        "show",
        "new",
        "smoke",
        "delegate",
        "recon",
        "review",
        "run-request",
        "capabilities",
        "coverage",
        "completions",
    ] {
        assert!(
            out.stdout.contains(cmd),
            "--help does not mention `{cmd}`:\n{}",
            out.stdout
        );
    }
}

#[test]
fn cli_definition_is_consistent() {
    use clap::CommandFactory;
    pwk::cli::Cli::command().debug_assert();
}

#[test]
fn bad_usage_exits_2() {
    let env = TestEnv::new();
    let out = run(env.pwk().arg("--no-such-flag"));
    assert_eq!(out.code, 2);
}

#[test]
fn completions_for_each_shell() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = run(env.pwk().args(["completions", shell]));
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        assert!(
            out.stdout.contains("pwk"),
            "{shell} completions mention pwk"
        );
        assert!(
            out.stdout.contains(&format!("COMPLETE=\"{shell}\""))
                || out.stdout.contains(&format!("COMPLETE={shell}")),
            "{shell}: the script asks pwk itself:\n{}",
            out.stdout
        );
        // What the script runs on Tab.
        let asked = run(env
            .pwk()
            .env("COMPLETE", shell)
            .env("_CLAP_COMPLETE_INDEX", "1")
            .args(["--", "pwk", "se"]));
        assert_eq!(asked.code, 0, "{shell}: {}", asked.stderr);
        assert!(
            asked.stdout.contains("setup"),
            "{shell} completions know the subcommands: {}",
            asked.stdout
        );
    }
}

#[test]
fn schema_prints_the_shipped_file() {
    let env = TestEnv::new();
    let out = run(env.pwk().arg("schema"));
    assert_eq!(out.code, 0);
    let shipped =
        std::fs::read_to_string(crate::support::repo_root().join("schemas/role.schema.json"))
            .unwrap();
    assert_eq!(out.stdout, shipped);
}
