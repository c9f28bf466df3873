//! What pwk claims as a seed-000 provider, and how each claim is enforced.
//!
//! Every claim here names the code that enforces it; a claim that is only a prompt
//! instruction is not made.

use serde::Serialize;

use super::execute::default_cap;
use super::mapping::{DEFAULT_TURN_BUDGET, READ_ONLY_TOOLS};

/// One capability and how pwk enforces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Capability {
    pub name: &'static str,
    pub how: String,
}

/// The capabilities pwk claims, in seed order.
pub(crate) fn capabilities() -> Vec<Capability> {
    let ro = READ_ONLY_TOOLS.join(",");
    vec![
        Capability {
            name: "codebase-recon",
            how: "runs pwk-recon-scout as one fresh, read-only pi session and accepts its report only with the \
five sections in order and the terminal line `Scout: complete`"
                .into(),
        },
        Capability {
            name: "named-role-dispatch",
            how: "each logical role runs its effective role definition (project > global > package layer; the \
copy bundled with pwk when none is installed): body as system prompt, tools, thinking, model hint, max_turns"
                .into(),
        },
        Capability {
            name: "parallel-review",
            how: format!(
                "with parallel: true, reviewer roles run as separate pi processes at the same time, at most \
min(4, roles) at once (--max-parallel N); e.g. {} for four roles",
                default_cap(4)
            ),
        },
        Capability {
            name: "result-collection",
            how: "exactly one DelegationResult per requested role, in request order; an empty report or one that \
breaks its role contract is `failed` with the reason, never `completed`"
                .into(),
        },
        Capability {
            name: "read-only-enforcement",
            how: format!(
                "pi runs every role with its tool allow-list cut to --tools {ro} and extensions off, so a call \
to write, edit or bash is answered `Tool … not found` by pi itself; tools a role definition asks for beyond \
these are removed and the result's notes name them"
            ),
        },
        Capability {
            name: "fresh-context",
            how: "every role starts a new pi session; pwk never passes --continue, --resume, --fork or an \
existing session"
                .into(),
        },
        Capability {
            name: "bounded-execution",
            how: format!(
                "every role has a wall-clock timeout (--timeout, default 600 s; the process group is killed), \
a stall watchdog (--stall-timeout, default 120 s without output while no tool runs) and a turn budget (the role's max_turns, else {DEFAULT_TURN_BUDGET}): when it is reached pi is steered to wrap up and \
report (RPC `steer`) and stopped two turns later; a capped role that reported is completed, one without a report \
fails with \"turn budget reached before a report\""
            ),
        },
    ]
}

#[derive(Serialize)]
struct CapabilitiesJson {
    version: u32,
    provider: &'static str,
    capabilities: Vec<&'static str>,
    notes: serde_json::Map<String, serde_json::Value>,
}

/// `{"version":1,"provider":"pwk","capabilities":[…],"notes":{cap: how}}`.
pub(crate) fn to_json() -> String {
    let caps = capabilities();
    let doc = CapabilitiesJson {
        version: 1,
        provider: "pwk",
        capabilities: caps.iter().map(|c| c.name).collect(),
        notes: caps
            .iter()
            .map(|c| (c.name.to_string(), serde_json::Value::String(c.how.clone())))
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// The same, for people.
pub(crate) fn to_human() -> String {
    let mut s = String::from("pwk as a delegation provider (PWK provider contract) claims:\n\n");
    for c in capabilities() {
        s.push_str(&format!("  {}\n", c.name));
        for line in crate::text::wrap_words(&c.how, 76) {
            s.push_str(&format!("      {line}\n"));
        }
    }
    s.push_str(
        "\nA request that needs anything else is refused, so the host can fall back inline.\n",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_seven_seed_capabilities_with_a_note_each() {
        let v: serde_json::Value = serde_json::from_str(&to_json()).unwrap();
        let caps: Vec<&str> = v["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(
            caps,
            [
                "codebase-recon",
                "named-role-dispatch",
                "parallel-review",
                "result-collection",
                "read-only-enforcement",
                "fresh-context",
                "bounded-execution"
            ]
        );
        for c in caps {
            assert!(v["notes"][c].as_str().is_some_and(|s| !s.is_empty()), "{c}");
        }
        assert!(
            v["notes"]["read-only-enforcement"]
                .as_str()
                .unwrap()
                .contains("--tools read,grep,find,ls")
        );
    }
}
