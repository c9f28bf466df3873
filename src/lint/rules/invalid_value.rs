//! `invalid-value`: a value outside what the key allows.

use crate::role::validate::ValidationErrorKind as Kind;

use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::{Checker, describe};
use crate::lint::rules::Rule;
use crate::role::Node;
use crate::suggest::did_you_mean;

pub(crate) const RULE: Rule = Rule {
    id: "invalid-value",
    severity: Severity::Error,
    also: None,
    summary: "a value is not one the key allows",
    explanation: "Keys with a fixed set of values (`systemPromptMode`, `system-prompt`, `session-mode`) or a minimum (`cwd`, `cli` must not be empty) are checked against the schema. A value a host does not recognise is ignored or replaced by its default, silently. A key whose text the host parses again as JSON (nicobailon's `toolBudget`, read with `JSON.parse`) must be JSON: YAML's `{soft: 20}` is not, and the host refuses the agent.",
    bad: "---\nsystemPromptMode: replaced\n---\n",
    good: "---\nsystemPromptMode: replace\n---\n",
};

pub(crate) fn report(cx: &mut Checker<'_>, top: &str, kind: &Kind, node: &Node) {
    let found = describe(node);
    let mut fix = None;
    let (message, help) = match kind {
        Kind::Enum { options } => {
            let opts: Vec<&str> = options
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            let guess = node
                .as_scalar()
                .and_then(|t| did_you_mean(t, opts.iter().copied()));
            fix = guess.filter(|g| plain_safe(g)).map(|g| {
                Fix::replace(
                    format!("replace with `{g}`"),
                    Safety::Unsafe,
                    node.span.clone(),
                    g,
                )
            });
            (
                format!("`{top}` must be one of {}, found {found}", opts.join(", ")),
                Some(match guess {
                    Some(g) => format!("did you mean `{g}`?"),
                    None => format!("use one of {}", opts.join(", ")),
                }),
            )
        }
        Kind::MinLength { .. } => (
            format!("`{top}` must not be empty"),
            Some(format!("set `{top}` or remove it")),
        ),
        Kind::Minimum { limit } => (
            format!("`{top}` must be at least {limit}, found {found}"),
            None,
        ),
        Kind::Required { property } => (
            format!(
                "`{top}` does not have the shape {} reads: an entry lacks `{}`",
                cx.profile.label(),
                property.as_str().unwrap_or("a required key")
            ),
            Some(format!("see `pwk schema --host {}`", cx.profile.label())),
        ),
        _ => (
            format!("`{top}` has a value the schema does not allow ({found})"),
            Some("see `pwk schema`".into()),
        ),
    };
    let d = cx.emit(&RULE, node.span.clone(), "not allowed", message, help);
    d.fixes.extend(fix);
}

/// A number outside the range a key's schema allows, written plainly (`1000`) or as
/// text (`'1000'`): what is wrong is the number, whatever the quotes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OutOfRange {
    /// The number as written, quotes left out.
    text: String,
    /// `minimum` or `maximum`, as the schema writes it.
    limit: serde_json::Value,
    below: bool,
    quoted: bool,
    /// Whether the host also reads the number written as text (a string branch).
    text_read: bool,
}

/// The number `node` holds, when the schema of `top` gives it a range it is outside:
/// the branches of an `anyOf`/`oneOf` (Claude Code's `autoCompactWindow`: an integer
/// of at least 100000, or such a number as text), or the schema itself.
pub(crate) fn out_of_range(cx: &Checker<'_>, top: &str, node: &Node) -> Option<OutOfRange> {
    use crate::role::Value;
    let prop = &crate::host::schema::host_schema(cx.profile)["properties"][top];
    let branches: Vec<&serde_json::Value> = ["anyOf", "oneOf"]
        .iter()
        .find_map(|k| prop[*k].as_array())
        .map_or_else(|| vec![prop], |a| a.iter().collect());
    let has_type = |b: &serde_json::Value, t: &str| match &b["type"] {
        serde_json::Value::String(s) => s == t,
        serde_json::Value::Array(a) => a.iter().any(|x| x == t),
        _ => false,
    };
    let numeric = branches.iter().copied().find(|b| {
        (has_type(b, "integer") || has_type(b, "number"))
            && (b.get("minimum").is_some() || b.get("maximum").is_some())
    })?;
    let (text, quoted) = match &node.value {
        Value::Scalar { text, plain } => (text.trim().to_string(), !plain),
        _ => return None,
    };
    let n: f64 = text.parse().ok().filter(|n: &f64| n.is_finite())?;
    let text_read = branches.iter().any(|b| has_type(b, "string"));
    let (limit, below) = match (numeric.get("minimum"), numeric.get("maximum")) {
        (Some(min), _) if min.as_f64().is_some_and(|m| n < m) => (min.clone(), true),
        (_, Some(max)) if max.as_f64().is_some_and(|m| n > m) => (max.clone(), false),
        _ => return None,
    };
    Some(OutOfRange {
        text,
        limit,
        below,
        quoted,
        text_read,
    })
}

/// `autoCompactWindow: '1000'`: the number is below the minimum; the quotes are named
/// only when the host does not read a number written as text.
pub(crate) fn report_range(cx: &mut Checker<'_>, top: &str, node: &Node, r: &OutOfRange) {
    let label = cx.profile.label();
    let (side, bound) = if r.below {
        ("below the minimum", "at least")
    } else {
        ("above the maximum", "at most")
    };
    let written = match (r.quoted, r.text_read) {
        (false, _) => String::new(),
        (true, true) => format!(
            " (written as text, which {label} reads as a number too: the quotes are not the problem)"
        ),
        (true, false) => {
            format!(" and quoted, which makes it a string where {label} reads a number")
        }
    };
    let message = format!(
        "`{top}` is {}, {side} of {} that {label} accepts{written}",
        r.text, r.limit
    );
    let help = format!(
        "use a value of {bound} {}{}",
        r.limit,
        if r.quoted && !r.text_read {
            ", without quotes"
        } else {
            ""
        }
    );
    cx.emit(
        &RULE,
        node.span.clone(),
        format!("{side} {}", r.limit),
        message,
        Some(help),
    );
}

/// A word that reads back as the same string when written as a plain YAML scalar.
pub(crate) fn plain_safe(s: &str) -> bool {
    s.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./@".contains(&b))
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off"
        )
}

/// A key whose text the host parses again as JSON (nicobailon: `toolBudget` with
/// `JSON.parse`, which must give an object): a text that does not parse makes the
/// host refuse the agent. YAML's `{soft: 20}` is a mapping to pwk and not JSON to
/// the host. Under the portable profile, for each real host that reads the file's
/// directory and parses the key so.
pub(crate) fn check_parsed(cx: &mut Checker<'_>, tree: &Node) {
    use crate::host::ParsedAs;
    let Some(entries) = tree.as_mapping() else {
        return;
    };
    let p = cx.profile;
    for (key, node) in entries {
        let k = key.text.as_str();
        let parses = |h: &crate::host::HostProfile| {
            h.key(k)
                .is_some_and(|f| f.parsed_as == Some(ParsedAs::Json))
        };
        let who = if p.is_portable() {
            // Asked for every key of every file: the pi table's bits (build.rs's
            // data), so no profile is parsed at run time.
            let table = crate::host::pi_table();
            let json = table.key(k).map_or(0, |e| e.json);
            if json == 0 {
                continue;
            }
            let dir = crate::host::project_dir_of(&cx.doc.path);
            let hosts: Vec<(crate::host::HostId, &str)> = table
                .select(json)
                .filter(|r| dir.is_none_or(|d| crate::host::host_reads_dir(r.host, d)))
                .map(|r| (r.host, r.version))
                .collect();
            if hosts.is_empty() {
                continue;
            }
            crate::host::name_versions(&hosts)
        } else if parses(p) {
            p.label()
        } else {
            continue;
        };
        // The text the host parses, as its line reader takes it: the rest of the
        // key's line (a `#` comment included), without the quotes around all of it;
        // a value on the lines below, as written.
        let line_end = cx.doc.text[key.span.end..]
            .find('\n')
            .map_or(cx.doc.text.len(), |i| key.span.end + i);
        let after = cx.doc.text[key.span.end..line_end]
            .trim_start()
            .strip_prefix(':')
            .unwrap_or("")
            .trim();
        let text = if !after.is_empty() {
            let rest = after;
            let quoted = rest.len() >= 2
                && ((rest.starts_with('"') && rest.ends_with('"'))
                    || (rest.starts_with('\'') && rest.ends_with('\'')));
            if quoted {
                &rest[1..rest.len() - 1]
            } else {
                rest
            }
            .to_string()
        } else {
            cx.doc.text[node.span.clone()].to_string()
        };
        let problem = match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(serde_json::Value::Object(_)) => continue,
            Ok(other) => format!(
                "it is {}, not an object",
                match other {
                    serde_json::Value::Array(_) => "a list",
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Number(_) => "a number",
                    serde_json::Value::Bool(_) => "a boolean",
                    _ => "null",
                }
            ),
            Err(e) => format!(
                "it is not JSON ({})",
                e.to_string().split(" at line").next().unwrap_or("")
            ),
        };
        let first = text.lines().next().unwrap_or("");
        let shown: String = if first.chars().count() > 60 || first.len() < text.trim_end().len() {
            format!("{}…", first.chars().take(60).collect::<String>())
        } else {
            first.to_string()
        };
        let fix_hint = if node.as_mapping().is_some() {
            format!(
                "write it as one line of JSON, keys quoted: `{k}: {}`",
                node.to_json()
            )
        } else {
            format!("write `{k}` as a JSON object, e.g. `{k}: {{\"soft\": 20, \"hard\": 30}}`")
        };
        // Where the host parses it (the first source of the key's citation), when the
        // profile at hand carries it (the portable profile's view of a host does not).
        let cite = p
            .key(k)
            .map(|f| f.cite.to_string())
            .and_then(|c| c.split(';').next().map(str::trim).map(str::to_string))
            .filter(|c| !c.is_empty())
            .map_or_else(String::new, |c| format!(" ({c})"));
        cx.emit(
            &RULE,
            node.span.clone(),
            "not JSON",
            format!(
                "`{k}` must be a JSON object: {who} reads `{shown}` with JSON.parse, and {problem}; {who} refuses the agent{cite}"
            ),
            Some(fix_hint),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::host::ALL;

    /// The class, generated from every profile: each key whose schema (or one of its
    /// `anyOf`/`oneOf` branches) bounds a number, × the number written plainly and
    /// quoted, × below the bound, at it and inside it. Out of range is `invalid-value`
    /// naming the bound, quoted or not (the quotes are named only where the host does
    /// not read a number written as text); at or inside the bound nothing is said of
    /// the number (a quote the host does not read stays `invalid-type`'s).
    #[test]
    fn a_number_out_of_range_is_named_as_such_quoted_or_not() {
        let mut cases = 0;
        for host in ALL {
            for profile in host.profiles() {
                let schema = crate::host::schema::host_schema(profile);
                let Some(props) = schema["properties"].as_object() else {
                    continue;
                };
                for (key, prop) in props {
                    // Keys with a rule of their own (`invalid-max-turns`, …).
                    if ["max_turns", "thinking"].contains(&key.as_str()) {
                        continue;
                    }
                    let branches: Vec<&serde_json::Value> = ["anyOf", "oneOf"]
                        .iter()
                        .find_map(|k| prop[*k].as_array())
                        .map_or_else(|| vec![prop], |a| a.iter().collect());
                    let is = |b: &serde_json::Value, t: &str| {
                        b["type"] == t
                            || b["type"]
                                .as_array()
                                .is_some_and(|a| a.iter().any(|x| x == t))
                    };
                    let Some(numeric) = branches.iter().find(|b| {
                        (is(b, "integer") || is(b, "number")) && b.get("minimum").is_some()
                    }) else {
                        continue;
                    };
                    let min = numeric["minimum"].as_i64().expect("an integer minimum");
                    let text_read = branches.iter().any(|b| is(b, "string"));
                    for quoted in [false, true] {
                        for (n, out) in [(min - 1, true), (min, false), (min + 1, false)] {
                            let value = if quoted {
                                format!("'{n}'")
                            } else {
                                n.to_string()
                            };
                            let text = format!(
                                "---\nname: r\ndescription: d\n{key}: {value}\n---\nBody\n"
                            );
                            let doc = crate::role::RoleDoc::parse(
                                std::path::PathBuf::from("r.md"),
                                text.as_bytes(),
                            );
                            let found: Vec<_> =
                                crate::lint::lint_doc(&doc, profile, &Default::default())
                                    .into_iter()
                                    .filter(|d| {
                                        d.start.line == 4
                                            && ["invalid-value", "invalid-type"].contains(&d.rule)
                                    })
                                    .collect();
                            let what = format!("{} `{key}: {value}`: {found:#?}", profile.label());
                            // What the host's schema says of this key's value (a text
                            // branch that does not carry the bound, nicobailon's
                            // `timeoutMs: '0'`, accepts it).
                            let Some(Ok(tree)) = &doc.tree else {
                                panic!("{what}: parses")
                            };
                            let rejected = crate::host::schema::validator(profile)
                                .iter_errors(tree)
                                .any(|e| e.instance_path().as_str() == format!("/{key}"));
                            if quoted && !rejected {
                                assert!(found.is_empty(), "{what}");
                                continue;
                            }
                            cases += 1;
                            if out {
                                assert_eq!(found.len(), 1, "{what}");
                                let d = &found[0];
                                assert_eq!(d.rule, "invalid-value", "{what}");
                                assert!(
                                    d.message.contains(&format!("below the minimum of {min}")),
                                    "{what}"
                                );
                                assert!(!d.message.contains("must be"), "{what}");
                                assert_eq!(
                                    d.message.contains("the quotes are not the problem"),
                                    quoted && text_read,
                                    "{what}"
                                );
                                assert_eq!(
                                    d.message.contains("makes it a string"),
                                    quoted && !text_read,
                                    "{what}"
                                );
                            } else if quoted && !text_read {
                                assert!(
                                    found.iter().all(|d| d.rule == "invalid-type"
                                        && d.message.contains("quoting makes it a string")),
                                    "{what}"
                                );
                            } else {
                                assert!(found.is_empty(), "{what}");
                            }
                        }
                    }
                }
            }
        }
        // autoCompactWindow (Claude Code), timeout_mins (Antigravity) at least.
        assert!(cases >= 12, "{cases}");
    }
}
