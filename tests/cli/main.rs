//! The one integration-test binary: every subcommand is driven as a user would,
//! through the built `pwk` binary, in a temporary directory.

mod support;

mod attack_matrix;
mod baseline;
mod basics;
mod budget;
mod children;
mod commands;
mod config;
mod convert;
mod delegate_e2e;
mod delegate_faults;
mod detect;
mod discover;
mod docs_commands;
mod docs_pages;
mod docs_snippets;
mod documents;
mod fix;
mod host_facts;
mod layers;
mod lint;
mod lint_cli;
mod lsp;
mod lsp_editor;
mod lsp_props;
mod mcp;
mod mcp_gateway;
mod models;
mod oracle;
mod pi_cache;
mod probes;
mod project;
mod provider;
mod runtime_bounds;
mod save_race;
mod setup;
mod setup_outcomes;
mod setup_roles;
mod skills;
mod smoke;
mod suppress;
mod surface;
mod validate_equiv;
