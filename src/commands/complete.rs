//! Values the shell completes: the role names the project's host sees, and the
//! rule ids. Called while completing, so they never fail: nothing found, nothing
//! offered. They are attached to `cli.rs`'s command tree here, so `cli.rs` stays
//! clap types only and imports no command.

use clap::CommandFactory;
use clap_complete::{ArgValueCandidates, CompletionCandidate};

use crate::cli::{Cli, ColorChoice};

/// The command tree the shell completes against: `cli.rs`'s, with the role names
/// (`show`, `smoke`) and the rule ids (`rules`) as the values of their arguments.
pub fn command() -> clap::Command {
    let with = |candidates: fn() -> Vec<CompletionCandidate>, arg: &'static str| {
        move |c: clap::Command| c.mut_arg(arg, |a| a.add(ArgValueCandidates::new(candidates)))
    };
    Cli::command()
        .mut_subcommand("rules", with(rule_ids, "rule"))
        .mut_subcommand("explain", with(rule_ids, "rule"))
        .mut_subcommand("show", with(role_names, "name"))
        .mut_subcommand("smoke", with(role_names, "name"))
}

/// Every role the project's hosts see from the current directory (each name once),
/// with its description.
pub fn role_names() -> Vec<CompletionCandidate> {
    let Ok(ctx) = crate::Context::from_process(ColorChoice::Never) else {
        return Vec::new();
    };
    // (No warnings while the shell completes: `Project::open`, not `super::project`.)
    let opts = super::project_options(&ctx, super::ProjectFlags::default());
    let Ok(project) = crate::project::Project::open(opts) else {
        return Vec::new();
    };
    let Ok(views) = project.discover_hosts() else {
        return Vec::new();
    };
    let mut seen = std::collections::HashSet::new();
    views
        .iter()
        .flat_map(|d| d.roles.iter())
        .filter(|r| seen.insert(r.name.as_str()))
        .map(|r| {
            let help = r
                .role
                .description
                .as_deref()
                .map(|s| crate::text::escape_line(s).into_owned());
            CompletionCandidate::new(&r.name).help(help.map(Into::into))
        })
        .collect()
}

/// Every rule id, with its summary.
pub fn rule_ids() -> Vec<CompletionCandidate> {
    crate::lint::rules::RULES
        .iter()
        .map(|r| CompletionCandidate::new(r.id).help(Some(r.summary.into())))
        .collect()
}

#[cfg(test)]
mod tests {
    /// The three arguments exist under these names (clap panics on a missing one).
    #[test]
    fn the_completed_arguments_exist() {
        let cmd = super::command();
        cmd.clone().debug_assert();
        for (sub, arg) in [
            ("rules", "rule"),
            ("explain", "rule"),
            ("show", "name"),
            ("smoke", "name"),
        ] {
            let s = cmd.find_subcommand(sub).expect(sub);
            assert!(s.get_arguments().any(|a| a.get_id() == arg), "{sub} {arg}");
        }
    }
}
