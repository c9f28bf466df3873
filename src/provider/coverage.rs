//! Delegation coverage (seed 000 "Rules", ecosystem b.5 `assessDelegationCoverage`).
//!
//! One pure definition: a required role is covered only by an outcome with status
//! `completed` and a non-empty report. Failed, timed-out, skipped and empty outcomes
//! never count; a role with no outcome at all is missing, never silently dropped.

use serde::Serialize;
use serde_json::Value;

use crate::json::json_kind;

/// One outcome as the coverage check sees it (role names are free strings, so
/// results from other providers can be checked too).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    pub role: String,
    pub status: String,
    pub report: Option<String>,
}

/// A completed report kept for the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Retained {
    pub role: String,
    pub report: String,
}

/// The coverage verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Coverage {
    pub complete: bool,
    /// Required roles without a completed, non-empty report, in required order.
    pub missing: Vec<String>,
    /// The completed reports of required roles, in required order.
    pub retained: Vec<Retained>,
}

/// Whether an outcome counts as coverage.
pub(crate) fn counts(status: &str, report: Option<&str>) -> bool {
    status == "completed" && report.is_some_and(|r| !r.trim().is_empty())
}

/// Assess coverage of `required` roles by `outcomes`.
pub(crate) fn assess(required: &[String], outcomes: &[Outcome]) -> Coverage {
    let mut missing = Vec::new();
    let mut retained = Vec::new();
    // By hash: linear in the input whatever its size (a request of many roles
    // and outcomes was quadratic with scans).
    let mut first_counting: std::collections::HashMap<&str, &Outcome> =
        std::collections::HashMap::new();
    for o in outcomes {
        if counts(&o.status, o.report.as_deref()) {
            first_counting.entry(o.role.as_str()).or_insert(o);
        }
    }
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for role in required {
        if !seen.insert(role.as_str()) {
            continue;
        }
        match first_counting.get(role.as_str()) {
            Some(o) => retained.push(Retained {
                role: role.clone(),
                report: o.report.clone().unwrap_or_default(),
            }),
            None => missing.push(role.clone()),
        }
    }
    Coverage {
        complete: missing.is_empty(),
        missing,
        retained,
    }
}

/// Why a coverage input could not be read (exit 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CoverageInputError {
    /// Not JSON, or a duplicate key (the message has no position).
    #[error("{0}")]
    NotJson(crate::json::JsonError),
    #[error("{0}")]
    Shape(String),
}

const STATUSES: [&str; 4] = ["completed", "failed", "timed-out", "skipped"];

/// Parse `{"required":[roles],"outcomes":[DelegationResult…]}`.
pub(crate) fn parse_input(bytes: &[u8]) -> Result<(Vec<String>, Vec<Outcome>), CoverageInputError> {
    let value: Value = crate::json::parse_strict(bytes).map_err(CoverageInputError::NotJson)?;
    let shape = |m: String| Err(CoverageInputError::Shape(m));
    let Value::Object(map) = value else {
        return shape(format!(
            "stdin must be a JSON object {{\"required\":[…],\"outcomes\":[…]}}, found {}",
            json_kind(&value)
        ));
    };
    let required = match map.get("required") {
        Some(Value::Array(items)) => {
            let mut out = Vec::new();
            for (i, v) in items.iter().enumerate() {
                match v.as_str() {
                    Some(s) => out.push(s.to_string()),
                    None => {
                        return shape(format!(
                            "required[{i}] must be a role name (string), found {}",
                            json_kind(v)
                        ));
                    }
                }
            }
            out
        }
        Some(v) => {
            return shape(format!(
                "required must be an array of role names, found {}",
                json_kind(v)
            ));
        }
        None => return shape("required is missing (an array of role names)".to_string()),
    };
    let outcomes = match map.get("outcomes") {
        Some(Value::Array(items)) => {
            let mut out = Vec::new();
            for (i, v) in items.iter().enumerate() {
                let Value::Object(o) = v else {
                    return shape(format!(
                        "outcomes[{i}] must be an object, found {}",
                        json_kind(v)
                    ));
                };
                let role = match o.get("role") {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => {
                        return shape(format!(
                            "outcomes[{i}].role must be a string, found {}",
                            json_kind(v)
                        ));
                    }
                    None => return shape(format!("outcomes[{i}].role is missing")),
                };
                let status = match o.get("status") {
                    Some(Value::String(s)) if STATUSES.contains(&s.as_str()) => s.clone(),
                    Some(Value::String(s)) => {
                        let hint = if s == "timed_out" {
                            " (the seed spells it \"timed-out\")"
                        } else {
                            ""
                        };
                        return shape(format!(
                            "outcomes[{i}].status {s:?} is not one of completed, failed, timed-out, skipped{hint}"
                        ));
                    }
                    Some(v) => {
                        return shape(format!(
                            "outcomes[{i}].status must be a string, found {}",
                            json_kind(v)
                        ));
                    }
                    None => return shape(format!("outcomes[{i}].status is missing")),
                };
                let report = match o.get("report") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(v) => {
                        return shape(format!(
                            "outcomes[{i}].report must be a string, found {}",
                            json_kind(v)
                        ));
                    }
                };
                out.push(Outcome {
                    role,
                    status,
                    report,
                });
            }
            out
        }
        Some(v) => return shape(format!("outcomes must be an array, found {}", json_kind(v))),
        None => {
            return shape("outcomes is missing (an array of DelegationResult objects)".to_string());
        }
    };
    Ok((required, outcomes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(role: &str, status: &str, report: Option<&str>) -> Outcome {
        Outcome {
            role: role.into(),
            status: status.into(),
            report: report.map(str::to_string),
        }
    }

    fn req(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn only_completed_non_empty_reports_count() {
        let required = req(&["a", "b", "c", "d", "e", "f"]);
        let outcomes = [
            o("a", "completed", Some("report A")),
            o("b", "completed", Some("   \n")),
            o("c", "failed", Some("partial")),
            o("d", "timed-out", None),
            o("e", "skipped", None),
            // f has no outcome at all
        ];
        let c = assess(&required, &outcomes);
        assert!(!c.complete);
        assert_eq!(c.missing, ["b", "c", "d", "e", "f"]);
        assert_eq!(
            c.retained,
            [Retained {
                role: "a".into(),
                report: "report A".into()
            }]
        );
    }

    #[test]
    fn complete_when_every_required_role_has_a_report() {
        let c = assess(
            &req(&["a", "b"]),
            &[
                o("b", "completed", Some("B")),
                o("a", "completed", Some("A")),
            ],
        );
        assert!(c.complete);
        assert!(c.missing.is_empty());
        // retained follows the required order
        assert_eq!(
            c.retained
                .iter()
                .map(|r| r.role.as_str())
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
    }

    #[test]
    fn a_later_success_covers_an_earlier_failure_and_extras_are_ignored() {
        let c = assess(
            &req(&["a", "a"]),
            &[
                o("a", "failed", None),
                o("a", "completed", Some("retry ok")),
                o("zzz", "completed", Some("x")),
            ],
        );
        assert!(c.complete);
        assert_eq!(c.retained.len(), 1);
        assert_eq!(c.retained[0].report, "retry ok");
    }

    #[test]
    fn nothing_required_is_complete() {
        assert!(assess(&[], &[]).complete);
    }

    #[test]
    fn input_shape_errors_name_the_place() {
        let e =
            parse_input(br#"{"required":["a"],"outcomes":[{"role":"a","status":"timed_out"}]}"#)
                .unwrap_err();
        assert!(
            e.to_string().contains("outcomes[0].status \"timed_out\""),
            "{e}"
        );
        assert!(e.to_string().contains("timed-out"), "{e}");
        let e = parse_input(br#"{"required":[1],"outcomes":[]}"#).unwrap_err();
        assert!(e.to_string().contains("required[0]"), "{e}");
        let e = parse_input(b"nope").unwrap_err();
        assert!(matches!(e, CoverageInputError::NotJson(_)));
        let (r, os) = parse_input(br#"{"required":["a"],"outcomes":[{"role":"a","status":"completed","report":"R","extra":1}]}"#).unwrap();
        assert_eq!(r, ["a"]);
        assert_eq!(os[0].report.as_deref(), Some("R"));
    }
}
