//! Spend limits of a run: `budget: {maxTokens, maxCostUsd, maxWallSeconds}` (each
//! optional). The supervisor sums the usage pi reports on every assistant
//! `message_end` (tokens, and the cost in USD pi computes from the model definition)
//! and stops pi's process group when a limit is crossed (`BUDGET_EXCEEDED`).
//!
//! A child never switches a limit off: sums saturate; a message whose usage cannot be
//! counted (missing, `null`, negative, not a number, unreadable) leaves the limits that
//! count it unenforced for the rest of the run, and the result says so — or, with
//! `onUnknownUsage: "stop"`, pi is stopped there (`BUDGET_UNENFORCEABLE`).

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::types::Usage;

/// The limits; `None`: no limit of that kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_wall_seconds: Option<u64>,
    /// What to do when pi reports usage a token or cost limit cannot count (missing,
    /// `null`, negative, not a number): `None` is [`OnUnknownUsage::Warn`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_unknown_usage: Option<OnUnknownUsage>,
}

/// `onUnknownUsage`: a limit pi's reported usage cannot be counted against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnUnknownUsage {
    /// Run on; the result says which limits could not be enforced (`warnings`,
    /// `budgetUnenforced`).
    Warn,
    /// Stop pi's group at the first such message (`BUDGET_UNENFORCEABLE`).
    Stop,
}

/// A limit that counts what pi reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    Tokens,
    Cost,
}

impl Counted {
    /// The request's name of the limit.
    pub fn key(self) -> &'static str {
        match self {
            Counted::Tokens => "maxTokens",
            Counted::Cost => "maxCostUsd",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Counted::Tokens => "token",
            Counted::Cost => "cost",
        }
    }
}

/// A dollar amount as a person reads it: `0.25`, `1.5`, and past a
/// billion (a pi that reports `1e300`) `1.000e300`, never a 300-digit number.
pub(crate) fn usd(v: f64) -> String {
    if v.is_finite() && v.abs() < 1e9 {
        let s = format!("{v:.6}");
        let s = s.trim_end_matches('0');
        s.strip_suffix('.').unwrap_or(s).to_string()
    } else {
        format!("{v:.3e}")
    }
}

/// The longest wall-clock budget: 24 h, like `timeoutMs`.
const MAX_WALL_SECONDS: u64 = 86_400;

/// Which limit was crossed, and by how much.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BudgetHit {
    Tokens {
        max: u64,
        used: u64,
    },
    Cost {
        max: f64,
        used: f64,
    },
    Wall {
        max: u64,
    },
    /// pi reported usage this limit cannot count, and the budget says stop.
    Unenforceable(Counted),
}

impl std::fmt::Display for BudgetHit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BudgetHit::Tokens { max, used } => {
                write!(
                    f,
                    "the token budget of {max} was crossed ({used} tokens used)"
                )
            }
            BudgetHit::Cost { max, used } => write!(
                f,
                "the cost budget of ${} was crossed (${} spent, as pi computed it from the model definition)",
                usd(*max),
                usd(*used)
            ),
            BudgetHit::Wall { max } => write!(f, "the wall-clock budget of {max} s was used up"),
            BudgetHit::Unenforceable(c) => write!(
                f,
                "the {} budget could not be enforced: pi reported no usable {} usage for an assistant message (onUnknownUsage: stop)",
                c.noun(),
                c.noun()
            ),
        }
    }
}

/// `maxTokens 5000, maxCostUsd $0.5, maxWallSeconds 60 s` (the limits set).
impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some(n) = self.max_tokens {
            parts.push(format!("maxTokens {n}"));
        }
        if let Some(c) = self.max_cost_usd {
            parts.push(format!("maxCostUsd ${}", usd(c)));
        }
        if let Some(w) = self.max_wall_seconds {
            parts.push(format!("maxWallSeconds {w} s"));
        }
        if self.on_unknown_usage == Some(OnUnknownUsage::Stop) {
            parts.push("onUnknownUsage stop".into());
        }
        if parts.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// The tokens a usage counts: pi's `totalTokens`, else the sum of its parts.
pub(crate) fn tokens(u: &Usage) -> u64 {
    if u.total_tokens > 0 {
        u.total_tokens
    } else {
        u.input
            .saturating_add(u.output)
            .saturating_add(u.cache_read)
            .saturating_add(u.cache_write)
    }
}

impl Budget {
    pub fn is_empty(&self) -> bool {
        self.max_tokens.is_none() && self.max_cost_usd.is_none() && self.max_wall_seconds.is_none()
    }

    /// Each limit from `self`, else from `default`.
    pub fn or(self, default: Budget) -> Budget {
        Budget {
            max_tokens: self.max_tokens.or(default.max_tokens),
            max_cost_usd: self.max_cost_usd.or(default.max_cost_usd),
            max_wall_seconds: self.max_wall_seconds.or(default.max_wall_seconds),
            on_unknown_usage: self.on_unknown_usage.or(default.on_unknown_usage),
        }
    }

    /// The limits (and the policy) both `self` and `other` set, by their request
    /// names: a limit given twice is an error, never "the last one wins".
    pub fn overlap(&self, other: &Budget) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.max_tokens.is_some() && other.max_tokens.is_some() {
            out.push("maxTokens");
        }
        if self.max_cost_usd.is_some() && other.max_cost_usd.is_some() {
            out.push("maxCostUsd");
        }
        if self.max_wall_seconds.is_some() && other.max_wall_seconds.is_some() {
            out.push("maxWallSeconds");
        }
        if self.on_unknown_usage.is_some() && other.on_unknown_usage.is_some() {
            out.push("onUnknownUsage");
        }
        out
    }

    /// The limit set here that counts `c`.
    pub fn counts(&self, c: Counted) -> bool {
        match c {
            Counted::Tokens => self.max_tokens.is_some(),
            Counted::Cost => self.max_cost_usd.is_some(),
        }
    }

    /// With `onUnknownUsage: stop`, the first limit set here whose usage pi left
    /// unknown (`tokens_unknown`, `cost_unknown`).
    pub fn unenforceable(&self, tokens_unknown: bool, cost_unknown: bool) -> Option<BudgetHit> {
        if self.on_unknown_usage != Some(OnUnknownUsage::Stop) {
            return None;
        }
        [
            (Counted::Tokens, tokens_unknown),
            (Counted::Cost, cost_unknown),
        ]
        .into_iter()
        .find(|(c, unknown)| *unknown && self.counts(*c))
        .map(|(c, _)| BudgetHit::Unenforceable(c))
    }

    pub fn wall(&self) -> Option<Duration> {
        self.max_wall_seconds.map(Duration::from_secs)
    }

    /// The first limit `tokens`/`cost` crossed (strictly more than the limit).
    pub fn crossed(&self, tokens: u64, cost: f64) -> Option<BudgetHit> {
        if let Some(max) = self.max_tokens
            && tokens > max
        {
            return Some(BudgetHit::Tokens { max, used: tokens });
        }
        if let Some(max) = self.max_cost_usd
            && cost > max
        {
            return Some(BudgetHit::Cost { max, used: cost });
        }
        None
    }

    /// Parse a `budget` value; `field` names it in problems (`budget`, or
    /// `roles[2].budget`). Every problem is returned, each with its field path.
    pub fn parse(v: &Value, field: &str) -> Result<Budget, Vec<(String, String)>> {
        let Value::Object(m) = v else {
            return Err(vec![(
                field.to_string(),
                format!(
                    "`{field}` must be an object {{maxTokens, maxCostUsd, maxWallSeconds, onUnknownUsage}}, not {}",
                    crate::json::json_kind(v)
                ),
            )]);
        };
        let mut b = Budget::default();
        let mut problems = Vec::new();
        for (k, v) in m {
            let at = format!("{field}.{k}");
            match k.as_str() {
                "maxTokens" => match v.as_u64().filter(|n| *n > 0) {
                    Some(n) => b.max_tokens = Some(n),
                    None => problems.push((
                        at.clone(),
                        format!("`{at}` must be a positive whole number of tokens, not {v}"),
                    )),
                },
                "maxCostUsd" => match v.as_f64().filter(|c| c.is_finite() && *c > 0.0) {
                    Some(c) => b.max_cost_usd = Some(c),
                    None => problems.push((
                        at.clone(),
                        format!("`{at}` must be a positive number of US dollars, not {v}"),
                    )),
                },
                "maxWallSeconds" => match v.as_u64().filter(|n| *n > 0 && *n <= MAX_WALL_SECONDS) {
                    Some(n) => b.max_wall_seconds = Some(n),
                    None => problems.push((
                        at.clone(),
                        format!(
                            "`{at}` must be a positive whole number of seconds up to 24 h, not {v}"
                        ),
                    )),
                },
                "onUnknownUsage" => match v.as_str() {
                    Some("warn") => b.on_unknown_usage = Some(OnUnknownUsage::Warn),
                    Some("stop") => b.on_unknown_usage = Some(OnUnknownUsage::Stop),
                    _ => problems.push((
                        at.clone(),
                        format!("`{at}` must be \"warn\" or \"stop\", not {v}"),
                    )),
                },
                other => {
                    let known = [
                        "maxTokens",
                        "maxCostUsd",
                        "maxWallSeconds",
                        "onUnknownUsage",
                    ];
                    let hint = crate::suggest::did_you_mean(other, known.iter().copied())
                        .map(|s| format!(" (did you mean `{s}`?)"))
                        .unwrap_or_default();
                    problems.push((
                        at.clone(),
                        format!(
                            "unknown budget key `{other}`{hint}; known: {}",
                            known.join(", ")
                        ),
                    ));
                }
            }
        }
        if problems.is_empty() {
            Ok(b)
        } else {
            Err(problems)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every magnitude a pi can report (N34): a dollar amount is never longer than
    /// a short number, and a sane one reads as written.
    #[test]
    fn a_dollar_amount_is_short_at_every_magnitude() {
        for exp in -12..=308 {
            for mantissa in [1.0, 2.5, 9.999_999] {
                for v in [mantissa * 10f64.powi(exp), -mantissa * 10f64.powi(exp)] {
                    let s = usd(v);
                    assert!(s.len() <= 16, "{v:e} → {s}");
                    let hit = BudgetHit::Cost { max: v, used: v }.to_string();
                    assert!(hit.len() < 140, "{v:e} → {hit}");
                }
            }
        }
        for v in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
        ] {
            assert!(usd(v).len() <= 16, "{v} → {}", usd(v));
        }
        assert_eq!(usd(0.25), "0.25");
        assert_eq!(usd(2.5), "2.5");
        assert_eq!(usd(1.0), "1");
        assert_eq!(usd(0.000_123), "0.000123");
        assert_eq!(usd(1e300), "1.000e300");
    }

    #[test]
    fn budgets_parse_with_located_problems() {
        let b = Budget::parse(
            &json!({"maxTokens": 500, "maxCostUsd": 0.25, "maxWallSeconds": 60}),
            "budget",
        )
        .unwrap();
        assert_eq!(b.max_tokens, Some(500));
        assert_eq!(b.max_cost_usd, Some(0.25));
        assert_eq!(b.wall(), Some(Duration::from_secs(60)));
        let e = Budget::parse(
            &json!({"maxTokens": -1, "maxCostUSD": 1, "maxWallSeconds": 100000}),
            "budget",
        )
        .unwrap_err();
        let fields: Vec<&str> = e.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            fields,
            [
                "budget.maxCostUSD",
                "budget.maxTokens",
                "budget.maxWallSeconds"
            ]
        );
        assert!(e[0].1.contains("did you mean `maxCostUsd`"), "{e:?}");
        assert!(Budget::parse(&json!(5), "roles[1].budget").unwrap_err()[0].0 == "roles[1].budget");
    }

    #[test]
    fn limits_are_crossed_strictly() {
        let b = Budget {
            max_tokens: Some(100),
            max_cost_usd: Some(1.0),
            ..Budget::default()
        };
        assert_eq!(b.crossed(100, 1.0), None);
        assert_eq!(
            b.crossed(101, 0.0),
            Some(BudgetHit::Tokens {
                max: 100,
                used: 101
            })
        );
        assert!(matches!(b.crossed(0, 1.5), Some(BudgetHit::Cost { .. })));
        let d = Budget {
            max_wall_seconds: Some(5),
            ..Budget::default()
        };
        assert_eq!(b.or(d).max_wall_seconds, Some(5));
        assert_eq!(b.or(d).max_tokens, Some(100));
    }

    #[test]
    fn unknown_usage_policy_parses_and_stops_only_limits_it_feeds() {
        let b =
            Budget::parse(&json!({"maxTokens": 5, "onUnknownUsage": "stop"}), "budget").unwrap();
        assert_eq!(b.on_unknown_usage, Some(OnUnknownUsage::Stop));
        assert_eq!(
            b.unenforceable(true, false),
            Some(BudgetHit::Unenforceable(Counted::Tokens))
        );
        assert_eq!(b.unenforceable(false, true), None, "no cost limit");
        let warn = Budget {
            on_unknown_usage: Some(OnUnknownUsage::Warn),
            ..b
        };
        assert_eq!(warn.unenforceable(true, true), None);
        let e = Budget::parse(&json!({"onUnknownUsage": "halt"}), "budget").unwrap_err();
        assert!(e[0].1.contains("\"warn\" or \"stop\""), "{e:?}");
        assert_eq!(b.overlap(&warn), ["maxTokens", "onUnknownUsage"]);
        assert!(b.overlap(&Budget::default()).is_empty());
    }
}
