//! Values the shell completes: the role names the project's host sees, and the
//! rule ids. Called while completing, so they never fail: nothing found, nothing
//! offered.

use clap_complete::CompletionCandidate;

use crate::cli::ColorChoice;

/// Every role the detected host sees from the current directory, with its description.
pub fn role_names() -> Vec<CompletionCandidate> {
    let Ok(ctx) = crate::Context::from_process(ColorChoice::Never) else {
        return Vec::new();
    };
    // (No warnings while the shell completes: `Project::open`, not `super::project`.)
    let opts = super::project_options(&ctx, super::ProjectFlags::default());
    let Ok(project) = crate::project::Project::open(opts) else {
        return Vec::new();
    };
    let Ok(d) = project.discover() else {
        return Vec::new();
    };
    d.roles
        .iter()
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
