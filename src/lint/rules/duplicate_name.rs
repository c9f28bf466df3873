//! `duplicate-name`: two linted files declare the same `name`.

use std::collections::HashMap;

use crate::lint::rules::Rule;
use crate::lint::{Diagnostic, Severity};
use crate::role::Position;

pub(crate) const RULE: Rule = Rule {
    id: "duplicate-name",
    severity: Severity::Error,
    also: None,
    summary: "two linted role files declare the same `name`",
    explanation: "Hosts keep one role per name: the later directory (or whichever file they read last) silently shadows the other, so one of the two never runs. Give each role its own name. Checked across all files of one `pwk lint` run.",
    bad: "a/reviewer.md: name: reviewer\nb/reviewer.md: name: reviewer\n",
    good: "a/reviewer.md: name: reviewer\nb/security-reviewer.md: name: security-reviewer\n",
};

/// How many of the other files a finding names; the rest are counted.
const MAX_NAMED: usize = 3;

/// `a`, `a and b`, `a, b and c`.
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Where one file declares its name.
#[derive(Debug, Clone)]
pub struct NameSite {
    pub name: String,
    pub span: std::ops::Range<usize>,
    pub start: Position,
    pub end: Position,
}

/// One pass over every file's name: a finding on each file whose name is shared,
/// naming the others. `sites[i]` belongs to `paths[i]`.
///
/// `rank(i)` is the precedence of the host directory that holds `paths[i]`: when every
/// file of a shared name sits in a different one of the host's directories, the name
/// is not a clash but an override, and each shadowed file gets `shadowed-role` naming
/// the winner instead.
pub(crate) fn check(
    paths: &[&std::path::Path],
    sites: &[Option<&NameSite>],
    rank: impl Fn(usize) -> Option<usize>,
    show: impl Fn(&std::path::Path) -> String,
) -> Vec<(usize, Diagnostic)> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, site) in sites.iter().enumerate() {
        if let Some(s) = site {
            by_name.entry(s.name.as_str()).or_default().push(i);
        }
    }
    let mut out = Vec::new();
    for (name, files) in by_name {
        if files.len() < 2 {
            continue;
        }
        let ranks: Vec<Option<usize>> = files.iter().map(|&i| rank(i)).collect();
        let mut distinct: Vec<usize> = ranks.iter().flatten().copied().collect();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() == files.len() {
            let (winner, top) = files
                .iter()
                .zip(&ranks)
                .max_by_key(|(_, r)| **r)
                .map(|(&i, r)| (i, *r))
                .expect("two or more files");
            for (&i, r) in files.iter().zip(&ranks) {
                if *r == top {
                    continue;
                }
                let site = sites[i].expect("indexed");
                out.push((
                    i,
                    Diagnostic {
                        rule: super::shadowed_role::RULE.id,
                        severity: super::shadowed_role::RULE.severity,
                        message: format!(
                            "`name: {name}` is shadowed by `{}`, which the host loads instead",
                            show(paths[winner])
                        ),
                        help: Some(
                            "intended override? then nothing to do; otherwise remove this file or rename the role".into(),
                        ),
                        path: paths[i].to_path_buf(),
                        span: site.span.clone(),
                        start: site.start,
                        end: site.end,
                        label: "shadowed".into(),
                        related: Vec::new(),
                        fixes: Vec::new(),
                    },
                ));
            }
            continue;
        }
        for &i in &files {
            let site = sites[i].expect("indexed");
            // At most a few others by name: n files sharing a name must not make
            // n² output.
            let mut others: Vec<String> = files
                .iter()
                .filter(|&&j| j != i)
                .take(MAX_NAMED)
                .map(|&j| format!("`{}`", show(paths[j])))
                .collect();
            let rest = files.len() - 1 - others.len();
            if rest > 0 {
                others.push(format!("{rest} more"));
            }
            out.push((
                i,
                Diagnostic {
                    rule: RULE.id,
                    severity: RULE.severity,
                    message: format!("`name: {name}` is also declared by {}", join_and(&others)),
                    help: Some("give each role its own name (and file name)".into()),
                    path: paths[i].to_path_buf(),
                    span: site.span.clone(),
                    start: site.start,
                    end: site.end,
                    label: "duplicate name".into(),
                    related: Vec::new(),
                    fixes: Vec::new(),
                },
            ));
        }
    }
    out
}
