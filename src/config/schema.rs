//! The JSON Schema of `pwk.toml` (`pwk schema --config`), for editors: taplo and
//! Even Better TOML validate and complete a file against it (`#:schema` at the top
//! of the file, or an association in the editor's settings).

use serde_json::{Value, json};

use crate::lint::rules;

/// The schema, with every rule id as a property of `rules`.
pub(crate) fn config_schema() -> Value {
    let level = json!({
        "type": "string",
        "enum": ["error", "warn", "off"],
        "description": "error: the finding fails the run; warn: reported, fails only with --deny-warnings; off: not reported"
    });
    let rule_props: serde_json::Map<String, Value> = rules::RULES
        .iter()
        .map(|r| {
            let mut l = level.clone();
            l["description"] = Value::from(format!("{} (default: {})", r.summary, r.severities()));
            (r.id.to_string(), l)
        })
        .collect();
    let rules = json!({
        "type": "object",
        "description": "The level of each rule, by id (`pwk rules` lists them).",
        "properties": rule_props,
        "additionalProperties": false
    });
    // The hosts of the host registry, as `pwk lint --host` takes them.
    let names: Vec<String> = crate::host::ALL.iter().map(|h| h.to_string()).collect();
    let host = json!({
        "type": "string",
        "description": format!("The host profile files are linted for: `auto` (detect from pi's settings), a host ({}; `pwk` is the portable profile), or `host@version` such as `tintinweb@0.14`.", crate::host::name_list()),
        "pattern": format!("^(auto|{})(@[0-9][0-9.]*)?$", names.join("|"))
    });
    let globs = |what: &str| {
        json!({
            "type": "array",
            "items": { "type": "string" },
            "description": format!("{what} Gitignore-style globs, relative to this file's directory: no `/` matches at any depth, a leading `/` anchors, a directory matches everything under it.")
        })
    };
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://pwk.invalid/schemas/pwk-config.json",
        "title": "pwk.toml",
        "description": "pwk lint configuration, found by walking up from the linted path to the project root.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "host": host,
            "paths": globs("The files `pwk lint` checks when no path is given."),
            "exclude": globs("Files left out when walking directories (a file named on the command line is still linted)."),
            "extend": {
                "type": "string",
                "description": "Another configuration file this one builds on (relative to this file); its values apply unless this file sets them."
            },
            "baseline": {
                "type": "string",
                "minLength": 1,
                "description": "The baseline file `pwk lint` reports against (relative to this file): only findings not listed in it are reported. `--baseline FILE` beats it; `pwk lint --write-baseline` writes it."
            },
            "rules": rules,
            "delegate": {
                "type": "object",
                "description": "Defaults of delegated runs (`pwk delegate`, `run-request`, `review`, `recon`, `pwk mcp`).",
                "additionalProperties": false,
                "properties": {
                    "budget": {
                        "type": "object",
                        "description": "Spend limits of every run that sets none of its own (a request's `budget` beats each one); crossing one stops pi (BUDGET_EXCEEDED).",
                        "additionalProperties": false,
                        "properties": {
                            "max_tokens": {"type": "integer", "minimum": 1, "description": "Tokens (input, output and cache) pi reports for the run."},
                            "max_cost_usd": {"type": "number", "exclusiveMinimum": 0, "description": "US dollars, as pi computes them from the model definition's cost."},
                            "max_wall_seconds": {"type": "integer", "minimum": 1, "maximum": 86400, "description": "Wall-clock seconds of the run."},
                            "on_unknown_usage": {"enum": ["warn", "stop"], "description": "When pi reports usage a token or cost limit cannot count (missing, null, negative, not a number): `warn` (default) runs on and the result says which limit could not be enforced; `stop` stops pi (BUDGET_UNENFORCEABLE)."}
                        }
                    }
                }
            },
            "overrides": {
                "type": "array",
                "description": "Settings for some files: the later matching entry wins, and an override beats the file's own values.",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["files"],
                    "properties": {
                        "files": globs("The files this override applies to."),
                        "host": host,
                        "rules": rules
                    }
                }
            }
        }
    })
}
