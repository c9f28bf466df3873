//! The grants of roles, host by host, against what the real hosts were seen to do:
//! Claude Code 2.1.332 (the tools in the spawned subagent's own API request, through
//! tests/oracle/cli-hosts.mjs) and OpenCode 1.18.33 (`opencode debug agent`, the
//! tool map it resolves for the agent).

use super::*;
use crate::host::HostSpec;

fn profile(spec: &str) -> &'static HostProfile {
    spec.parse::<HostSpec>().unwrap().profile().unwrap()
}

fn of(spec: &str, frontmatter: &str) -> Grants {
    let text = format!("---\nname: r\ndescription: d\n{frontmatter}---\nBody.\n");
    grants(
        profile(spec),
        &RoleDoc::parse("agents/r.md", text.as_bytes()),
    )
}

/// The tools handed over, each with its access word.
fn tools(g: &Grants) -> Vec<String> {
    g.tools
        .iter()
        .map(|t| match t.access {
            Access::Full => t.tool.clone(),
            _ => format!("{}={}", t.tool, t.access.word()),
        })
        .collect()
}

#[test]
fn claude_code_as_its_subagents_get_them() {
    // (frontmatter, the tools the subagent's request lists, with pwk's access)
    let cases: &[(&str, &[&str])] = &[
        // A mode acts when a tool is called; the request lists the same tools.
        (
            "tools: Read, Bash, Edit\npermissionMode: plan\n",
            &["Read", "Bash=read-only calls", "Edit=no call"],
        ),
        (
            "tools: Read, Bash, Edit\npermissionMode: dontAsk\n",
            &["Read", "Bash=some calls", "Edit=some calls"],
        ),
        (
            "tools: Read, Bash, Edit\npermissionMode: default\n",
            &["Read", "Bash=asks first", "Edit=asks first"],
        ),
        (
            "tools: Read, Bash, Edit\npermissionMode: bypassPermissions\n",
            &["Read", "Bash", "Edit"],
        ),
        (
            "tools: Read, Bash, Edit\ndisallowedTools: Bash\n",
            &["Read", "Edit"],
        ),
        // `memory` adds Read, Write and Edit; a deny-list still takes them away.
        ("tools: Read\nmemory: project\n", &["Read", "Write", "Edit"]),
        (
            "tools: Read\nmemory: project\ndisallowedTools: Write, Edit\n",
            &["Read"],
        ),
        // A specifier grants some calls of its tool; denied, it takes the tool.
        ("tools: Read, Bash(git *)\n", &["Read", "Bash=some calls"]),
        (
            "tools: Read, Bash\ndisallowedTools: Bash(rm *)\n",
            &["Read"],
        ),
        // `*` is no word in a deny-list.
        (
            "tools: Read, Bash\ndisallowedTools: \"*\"\n",
            &["Read", "Bash"],
        ),
    ];
    for (fm, want) in cases {
        let g = of("claude-code", fm);
        assert_eq!(tools(&g), *want, "{fm}");
        assert!(g.open.is_none(), "{fm}");
    }
    // No `tools`: every tool of the session, less what is denied.
    let g = of("claude-code", "disallowedTools: Write, Bash\n");
    assert_eq!(g.open, Some(Access::Full));
    assert_eq!(g.open_except, ["Write", "Bash"]);
    assert!(!g.names().contains(&"Bash".to_string()));
    let g = of("claude-code", "tools: \"*\"\npermissionMode: plan\n");
    assert!(matches!(g.open, Some(Access::ReadOnly(_))), "{g:?}");
}

/// The tools a case expects enabled, of those both OpenCode and pwk's profile know.
enum Enabled {
    AllBut(&'static [&'static str]),
    Only(&'static [&'static str]),
}
use Enabled::{AllBut, Only};

#[test]
fn opencode_as_debug_agent_resolves_it() {
    // (frontmatter, the tools `opencode debug agent` lists as enabled, of those
    // both it and pwk's profile know)
    let known = [
        "bash",
        "read",
        "glob",
        "grep",
        "edit",
        "write",
        "task",
        "webfetch",
        "todowrite",
        "websearch",
    ];
    let cases: &[(&str, Enabled)] = &[
        ("", AllBut(&[])),
        (
            "tools:\n  write: false\n  bash: false\n",
            AllBut(&["bash", "edit", "write"]),
        ),
        (
            "permission:\n  edit: deny\n  bash: deny\n",
            AllBut(&["bash", "edit", "write"]),
        ),
        ("tools:\n  \"*\": false\n  read: true\n", Only(&["read"])),
        (
            "permission:\n  bash:\n    \"git *\": allow\n    \"*\": deny\n",
            AllBut(&["bash"]),
        ),
        ("permission:\n  edit: ask\n  bash: ask\n", AllBut(&[])),
        ("tools:\n  edit: false\n", AllBut(&["edit", "write"])),
        (
            "permission:\n  \"*\": deny\n  read: allow\n",
            Only(&["read"]),
        ),
        (
            "tools:\n  \"web*\": false\n",
            AllBut(&["webfetch", "websearch"]),
        ),
        (
            "permission:\n  edit: deny\ntools:\n  edit: true\n",
            AllBut(&["edit", "write"]),
        ),
        ("tools:\n  read: false\n  \"*\": true\n", AllBut(&[])),
        (
            "tools:\n  glob: false\n  list: false\n  patch: true\n",
            AllBut(&["glob"]),
        ),
        ("permission: deny\n", Only(&[])),
        ("permission:\n  bash: deny\n  \"*\": allow\n", AllBut(&[])),
        (
            "tools:\n  bash: false\npermission:\n  \"*\": allow\n",
            AllBut(&[]),
        ),
        (
            "permission:\n  \"*\": allow\ntools:\n  bash: false\n",
            AllBut(&[]),
        ),
        (
            "tools:\n  \"*\": false\npermission:\n  read: allow\n",
            Only(&["read"]),
        ),
        ("tools:\n  write: false\n  edit: true\n", AllBut(&[])),
        ("tools:\n  Read: false\n  BASH: false\n", AllBut(&[])),
        ("tools:\n  multiedit: false\n", AllBut(&[])),
        (
            "permission:\n  \"*\": deny\n  bash:\n    \"*\": deny\n    \"git status\": allow\n",
            Only(&["bash"]),
        ),
    ];
    for (fm, enabled) in cases {
        let g = of("opencode", fm);
        let want: Vec<&str> = match enabled {
            Enabled::AllBut(off) => known.iter().filter(|t| !off.contains(t)).copied().collect(),
            Enabled::Only(on) => on.to_vec(),
        };
        let mut got: Vec<String> = g
            .names()
            .into_iter()
            .filter(|t| known.contains(&t.as_str()))
            .collect();
        got.sort();
        let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(got, want, "{fm}");
    }
    // What stays, and how far.
    let access = |fm: &str, tool: &str| {
        of("opencode", fm)
            .tools
            .into_iter()
            .find(|g| g.tool == tool)
            .map(|g| g.access)
    };
    assert!(matches!(
        access("permission:\n  bash: ask\n", "bash"),
        Some(Access::Ask(_))
    ));
    assert!(matches!(
        access("permission:\n  \"*\": deny\n  bash:\n    \"*\": deny\n    \"git status\": allow\n", "bash"),
        Some(Access::Limited(w)) if w.contains("git status")
    ));
    assert!(matches!(
        access("permission:\n  bash:\n    \"rm *\": deny\n", "bash"),
        Some(Access::Limited(w)) if w.contains("rm *")
    ));
    // Asking for every call is more than a ruleset that asks but denies some.
    assert!(matches!(
        access("permission:\n  bash:\n    \"*\": ask\n    \"git push*\": deny\n", "bash"),
        Some(Access::Limited(w)) if w.contains("git push*")
    ));
    assert!(matches!(
        access(
            "permission:\n  bash:\n    \"*\": ask\n    \"git diff*\": allow\n",
            "bash"
        ),
        Some(Access::Ask(_))
    ));
    assert!(matches!(
        access("permission:\n  bash:\n    \"*\": deny\n    \"git *\": ask\n", "bash"),
        Some(Access::Limited(w)) if w.contains("`git *` (asks first)")
    ));
    // Every other tool of the session, unless `*` is denied.
    assert!(of("opencode", "tools:\n  bash: false\n").open.is_some());
    assert!(of("opencode", "permission: deny\n").open.is_none());
}

#[test]
fn copilot_and_gemini_name_tools_by_namespace_and_wildcard() {
    let g = of("copilot", "tools: [search/codebase, execute/*, github/*]\n");
    assert_eq!(g.names(), ["search", "execute"]);
    assert_eq!(g.provided, ["github/*"]);
    let r = g.reach(profile("copilot"));
    assert!(r.caps.contains_key("mcp:github:*"), "{r:?}");
    assert!(r.caps.contains_key("bash") && r.caps.contains_key("find"));
    let g = of("gemini", "tools: [read_file, mcp_*]\n");
    let r = g.reach(profile("gemini"));
    assert!(r.caps.contains_key("mcp:*"), "{r:?}");
    assert!(of("gemini", "tools: [\"*\"]\n").open.is_some());
    assert!(of("gemini", "").open.is_some());
}

#[test]
fn pi_hosts_subtract_their_deny_lists() {
    let g = of(
        "tintinweb",
        "tools: read, bash, edit\ndisallowed_tools: bash\n",
    );
    assert_eq!(g.names(), ["read", "edit"]);
    let g = of("nicobailon", "tools: read, bash\nexcludeTools: bash\n");
    assert_eq!(g.names(), ["read", "contact_supervisor"]);
    let g = of("herdr", "deny-tools: bash\n");
    assert_eq!(g.names(), ["read", "edit", "write"]);
    // tintinweb's `*` is its seven built-ins, never the session's every tool.
    assert!(of("tintinweb", "tools: \"*\"\n").open.is_none());
}

#[test]
fn reach_compares_across_hosts() {
    let cc = profile("claude-code");
    let tw = profile("tintinweb");
    let reach = |spec: &str, fm: &str| of(spec, fm).reach(profile(spec));
    let plan = reach("claude-code", "tools: Read, Bash\npermissionMode: plan\n");
    // pi's read-only built-ins are within read-only commands; bash is not.
    let ro = reach("tintinweb", "tools: read, grep, find, ls\n");
    assert!(ro.beyond(&plan).is_empty(), "{:?}", ro.beyond(&plan));
    let bash = reach("tintinweb", "tools: read, bash\n");
    let b = bash.beyond(&plan);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0].cap, "bash");
    assert!(matches!(b[0].other, Some(Access::ReadOnly(_))));
    // Every tool of the session is beyond any list.
    let all = reach("claude-code", "");
    let b = all.beyond(&bash);
    assert!(b.iter().any(|x| x.cap == "*"), "{b:?}");
    // Full commands cover every other built-in.
    assert!(
        reach("tintinweb", "tools: read, edit, write, grep\n")
            .beyond(&bash)
            .is_empty()
    );
    // What an open source denies stays denied.
    let open_no_bash = reach("claude-code", "disallowedTools: Bash\n");
    let b = reach("claude-code", "").beyond(&open_no_bash);
    assert!(b.iter().any(|x| x.cap == "bash"), "{b:?}");
    let _ = (cc, tw);
}

#[test]
fn wildcards_match_as_opencode_does() {
    for (p, n, want) in [
        ("*", "bash", true),
        ("web*", "webfetch", true),
        ("web*", "bash", false),
        ("b?sh", "bash", true),
        ("bash", "bash", true),
        ("bash", "bash2", false),
        ("*a*b*", "xaxxbx", true),
        ("*a*b", "xaxxbx", false),
    ] {
        assert_eq!(wildcard(p, n), want, "{p} {n}");
    }
}

/// Gemini CLI's prefix wildcards are named as what they grant (every MCP tool, or
/// every tool of one server), not as a tool an extension may provide; every host
/// with such wildcards, and only those entries.
#[test]
fn prefix_wildcards_are_named_as_what_they_grant() {
    for p in crate::host::ALL
        .into_iter()
        .flat_map(|h| h.profiles())
        .filter(|p| p.tools.prefix_wildcards.is_some())
    {
        let text = "---\nname: r\ndescription: d\ntools: [read_file, \"mcp_*\", mcp_github_*, some_ext]\n---\nB.\n";
        let g = grants(p, &RoleDoc::parse("agents/r.md", text.as_bytes()));
        let label = p.label();
        assert!(
            g.note.contains("`mcp_*`: every MCP tool of the session"),
            "{label}: {}",
            g.note
        );
        assert!(
            g.note
                .contains("`mcp_github_*`: every tool of the MCP server `github`"),
            "{label}: {}",
            g.note
        );
        assert!(
            g.note
                .contains("kept only if an extension provides it: some_ext")
                && !g.note.contains("provides it: mcp_"),
            "{label}: {}",
            g.note
        );
    }
}

/// A deny rule of Claude Code's project settings.
fn deny_rule(r: &str) -> DenyRule {
    DenyRule {
        rule: r.to_string(),
        key: "permissions.deny".to_string(),
        file: ".claude/settings.json".to_string(),
    }
}

/// Claude Code's `permissions.deny` rules over a role's tools, generated over the
/// tools each role gets: a bare name denies every call of exactly that tool (case
/// counts), `Tool(specifier)` some calls of it, a tool the role does not get is
/// left alone (but taken from the open set of a role that inherits every tool),
/// and with no rule the grants are what the role alone gives.
#[test]
fn settings_deny_rules_reach_exactly_the_tools_they_name() {
    let p = profile("claude-code");
    let rule = deny_rule;
    let cases = [
        "tools: Read, Bash, WebFetch\n",
        "tools: Read, Bash, Edit\npermissionMode: plan\n",
        "",
    ];
    for fm in cases {
        let plain = of("claude-code", fm);
        // No rule: nothing changes.
        let mut same = plain.clone();
        same.deny_by_settings(p, &[]);
        assert_eq!(same.tools, plain.tools, "{fm}");
        assert!(same.settings_denied.is_empty(), "{fm}");
        for tool in plain.names() {
            let others = |g: &Grants| -> Vec<Grant> {
                g.tools.iter().filter(|t| t.tool != tool).cloned().collect()
            };
            // A bare name, `Tool(*)`, and each old name of the tool (`Task` for
            // `Agent`): every call of it, whatever the role said.
            let old_names = p.tools.aliases.iter().filter(|(_, now)| **now == tool);
            let names: Vec<String> = std::iter::once(tool.clone())
                .chain(old_names.map(|(old, _)| old.to_string()))
                .collect();
            let whole_forms = names.iter().flat_map(|n| [n.clone(), format!("{n}(*)")]);
            for form in whole_forms {
                let mut g = plain.clone();
                g.deny_by_settings(p, &[rule(&form)]);
                let got = g.tools.iter().find(|t| t.tool == tool).unwrap();
                match &got.access {
                    Access::Denied(why) => {
                        assert!(why.contains(&format!("`{form}`")), "{fm} {form}: {why}");
                        assert!(why.contains(".claude/settings.json"), "{why}");
                    }
                    a => panic!("{fm} {form}: {a:?}"),
                }
                assert_eq!(others(&g), others(&plain), "{fm} {form}");
                assert_eq!(g.settings_denied.len(), 1, "{fm} {form}");
                assert!(g.settings_denied[0].whole(), "{fm} {form}");
                assert_eq!(g.settings_denied[0].tool, tool, "{fm} {form}");
            }
            // `Tool(specifier)`: some calls of it, never more than before (an old
            // name's too).
            // Specifiers each tool's own check accepts (WebFetch's is a domain; escaped
            // parentheses that pair up are no ambiguity).
            let contents: &[&str] = if tool == "WebFetch" {
                &["domain:example.com", "domain:a\\(b\\)"]
            } else {
                &["./.env", "a\\(b\\)"]
            };
            for (name, content) in names
                .iter()
                .flat_map(|n| contents.iter().map(move |c| (n, c)))
            {
                let spec = format!("{name}({content})");
                let mut g = plain.clone();
                g.deny_by_settings(p, &[rule(&spec)]);
                let got = g.tools.iter().find(|t| t.tool == tool).unwrap();
                let before = &plain.tools.iter().find(|t| t.tool == tool).unwrap().access;
                match before {
                    Access::Denied(_) => assert_eq!(&got.access, before, "{fm} {spec}"),
                    _ => {
                        assert!(
                            matches!(&got.access, Access::Limited(w) if w.contains(&spec)),
                            "{fm} {spec}: {:?}",
                            got.access
                        );
                    }
                }
                assert!(!g.settings_denied[0].whole(), "{fm} {spec}");
                assert_eq!(others(&g), others(&plain), "{fm} {spec}");
            }
            // A rule Claude Code drops as invalid, or reads as naming another tool
            // (nothing is trimmed): nothing changes, for any of the tool's names,
            // and the rule is reported with why (the host's words where it drops it).
            const MALFORMED: &str = "drops it (Malformed Tool(content) rule)";
            const NO_TOOL: &str = "names no tool: Claude Code keeps the spaces";
            for name in &names {
                let lower = name[..1].to_lowercase() + &name[1..];
                let dropped = [
                    (format!("{name}()"), "drops it (Empty parentheses)"),
                    (format!("{name} "), NO_TOOL),
                    (format!(" {name}"), NO_TOOL),
                    (format!("\t{name}"), NO_TOOL),
                    (format!("{name}(*) "), MALFORMED),
                    (format!("{name}("), MALFORMED),
                    (format!("{name}(x"), MALFORMED),
                    (format!("{name})"), MALFORMED),
                    (format!("{name}()x"), MALFORMED),
                    (format!("{name}(a)(b"), MALFORMED),
                    (format!("{name}\\(x)"), MALFORMED),
                    (lower, "drops it (Tool names must start with uppercase)"),
                    ("()".to_string(), "(Empty parentheses with no tool name)"),
                    ("  ".to_string(), "(Permission rule cannot be empty)"),
                    (
                        format!("{name}(a\\(b(c)"),
                        "drops it (Ambiguous \"\\(\" or \"\\)\" beside an unescaped parenthesis)",
                    ),
                ];
                // The content each tool's own check refuses (the binary's `Jpe`).
                let refused: &[(&str, &str)] = match tool.as_str() {
                    "WebSearch" => &[
                        ("x*", "WebSearch does not support wildcards"),
                        ("a?b", "WebSearch does not support wildcards"),
                    ],
                    "WebFetch" => &[
                        ("https://example.com", "use domain format, not URLs"),
                        ("http", "use domain format, not URLs"),
                        ("example.com", "must use \"domain:\" prefix"),
                    ],
                    "Bash" => &[(":*", "Prefix cannot be empty before :*")],
                    "Read" | "Write" | "Edit" | "Glob" | "NotebookEdit" => {
                        &[("src:*", "only for Bash prefix rules")]
                    }
                    _ => &[],
                };
                let dropped = dropped.into_iter().chain(
                    refused
                        .iter()
                        .map(|(c, why)| (format!("{name}({c})"), *why)),
                );
                for (form, why) in dropped {
                    let mut g = plain.clone();
                    g.deny_by_settings(p, &[rule(&form)]);
                    assert_eq!(g.tools, plain.tools, "{fm} {form:?}");
                    assert!(g.settings_denied.is_empty(), "{fm} {form:?}");
                    assert!(g.open_except.is_empty(), "{fm} {form:?}");
                    assert_eq!(g.settings_ignored.len(), 1, "{fm} {form:?}");
                    let got = &g.settings_ignored[0];
                    assert!(got.why.contains(why), "{fm} {form:?}: {}", got.why);
                    assert_eq!(got.rule, form);
                }
                // Names no tool, and is no rule Claude Code drops: nothing, unreported
                // (an escaped parenthesis is part of the name; `(x)` is all name).
                for form in [format!("{name}\\(x\\)"), format!("({name})")] {
                    let mut g = plain.clone();
                    g.deny_by_settings(p, &[rule(&form)]);
                    assert_eq!(g.tools, plain.tools, "{fm} {form:?}");
                    assert!(g.settings_denied.is_empty(), "{fm} {form:?}");
                    assert!(g.settings_ignored.is_empty(), "{fm} {form:?}");
                }
            }
            // Another spelling of the name is another tool to Claude Code.
            assert!(!p.tools.case_insensitive);
            for other in [tool.to_lowercase(), tool.to_uppercase()] {
                if other == tool {
                    continue;
                }
                let mut g = plain.clone();
                g.deny_by_settings(p, &[rule(&other)]);
                assert_eq!(g.tools, plain.tools, "{fm} {other}");
            }
        }
        // A tool the role does not get: nothing, unless it inherits every tool.
        let mut g = plain.clone();
        g.deny_by_settings(p, &[rule("NotebookEdit"), rule("NotebookEdit(x)")]);
        assert_eq!(g.tools, plain.tools, "{fm}");
        if plain.open.is_some() {
            assert_eq!(g.open_except, ["NotebookEdit"], "{fm}");
            assert_eq!(g.settings_denied.len(), 1, "{fm}");
        } else {
            assert!(g.settings_denied.is_empty(), "{fm}");
            assert!(g.open_except.is_empty(), "{fm}");
        }
    }
}

/// Claude Code's deny rules for MCP tools (2.1.332's `gr`, `HZn`, `aEt`): a rule
/// naming a server whole reaches each of its tools the role lists, `mcp__*` every
/// MCP tool, a tool pattern the tools it matches, an exact name that tool; a rule
/// for another server, or a prefix of a server's name, none.
#[test]
fn settings_deny_rules_for_mcp_servers_reach_their_tools() {
    let p = profile("claude-code");
    let rule = deny_rule;
    let (gh1, gh2, sl) = (
        "mcp__github__create_issue",
        "mcp__github__get_me",
        "mcp__slack__post",
    );
    let plain = of("claude-code", &format!("tools: Read, {gh1}, {gh2}, {sl}\n"));
    let listed = |g: &Grants| -> Vec<String> {
        g.tools
            .iter()
            .map(|t| t.tool.clone())
            .chain(g.provided.iter().cloned())
            .collect()
    };
    assert!(
        [gh1, gh2, sl]
            .iter()
            .all(|t| listed(&plain).iter().any(|x| x == t)),
        "{:?}",
        listed(&plain)
    );
    let cases: &[(&str, &[&str])] = &[
        ("mcp__github", &[gh1, gh2]),
        ("mcp__github__*", &[gh1, gh2]),
        ("mcp__*", &[gh1, gh2, sl]),
        ("mcp__*__*", &[gh1, gh2, sl]),
        ("mcp__github__get_*", &[gh2]),
        ("mcp__github__*_issue", &[gh1]),
        ("mcp__github__c*e*e", &[gh1]),
        (gh1, &[gh1]),
        ("mcp__githu", &[]),
        ("mcp__github_", &[]),
        ("mcp__gitlab", &[]),
        ("mcp__github__get", &[]),
        ("mcp__", &[]),
        ("mcp____x", &[]),
    ];
    for (r, denied) in cases {
        let mut g = plain.clone();
        g.deny_by_settings(p, &[rule(r)]);
        let mut got: Vec<&str> = g
            .settings_denied
            .iter()
            .filter(|d| d.whole())
            .map(|d| d.tool.as_str())
            .collect();
        got.sort_unstable();
        let mut want = denied.to_vec();
        want.sort_unstable();
        assert_eq!(got, want, "{r}");
        // Read is never reached.
        assert!(!got.contains(&"Read"), "{r}");
    }
}

/// The `*` matcher agrees with a plain recursive one on every pattern and text
/// over a small alphabet (lengths up to 4 and 5).
#[test]
fn deny_rule_wildcard_agrees_with_a_reference() {
    fn reference(p: &[u8], t: &[u8]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some((b'*', rest)) => (0..=t.len()).any(|i| reference(rest, &t[i..])),
            Some((c, rest)) => t.first() == Some(c) && reference(rest, &t[1..]),
        }
    }
    fn all(alphabet: &[u8], max: usize) -> Vec<String> {
        let mut out = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..max {
            last = last
                .iter()
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{}", *c as char)))
                .collect();
            out.extend(last.iter().cloned());
        }
        out
    }
    let patterns = all(b"ab*", 4);
    let texts = all(b"ab", 5);
    for p in &patterns {
        for t in &texts {
            assert_eq!(
                super::settings::wildcard(p, t),
                reference(p.as_bytes(), t.as_bytes()),
                "{p:?} {t:?}"
            );
        }
    }
}

/// MCP tool patterns are tried on their own server's tools only, and a settings file
/// and a role made to multiply each other stop at a fixed number of tests: the
/// tools' note says the patterns left were not tried to the end, and what was tried
/// before still holds.
#[test]
fn settings_tool_patterns_stop_at_a_bound_and_say_so() {
    let p = profile("claude-code");
    let tools: Vec<String> = (0..1000).map(|i| format!("mcp__s__t{i}")).collect();
    let plain = of(
        "claude-code",
        &format!("tools: Read, {}\n", tools.join(", ")),
    );
    let mut rules = vec![deny_rule("mcp__s__t1*")];
    rules.extend((0..200).map(|i| deny_rule(&format!("mcp__s__q{i}*"))));
    let mut g = plain.clone();
    g.deny_by_settings(p, &rules);
    // t1, t10..t19, t100..t199.
    let denied = g.settings_denied.iter().filter(|d| d.whole()).count();
    assert_eq!(denied, 111, "{:?}", g.settings_denied.len());
    assert!(
        g.note
            .contains("stopped matching the settings' MCP tool patterns after 100000 tests"),
        "{}",
        g.note
    );
    // Within the bound: no such note.
    let mut g = plain.clone();
    g.deny_by_settings(p, &rules[..50]);
    assert!(!g.note.contains("stopped matching"), "{}", g.note);
}
