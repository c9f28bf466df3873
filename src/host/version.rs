//! Just enough semver for profile ranges: `>=0.14.0 <0.17.0`, `>=0.17.0`, `*`.

/// `major.minor.patch` (missing parts are 0; a pre-release tag is ignored).
pub(crate) fn parse(v: &str) -> Option<(u64, u64, u64)> {
    let v = v.trim().trim_start_matches('v');
    let core = v.split(['-', '+']).next()?;
    let mut parts = core.split('.');
    let mut next = || -> Option<u64> {
        match parts.next() {
            None => Some(0),
            Some(p) => p.parse().ok(),
        }
    };
    let out = (next()?, next()?, next()?);
    parts.next().is_none().then_some(out)
}

/// Whether `version` lies in `range` (space-separated comparators, all must hold).
pub(crate) fn satisfies(version: &str, range: &str) -> bool {
    let Some(v) = parse(version) else {
        return false;
    };
    range.split_whitespace().all(|c| {
        if c == "*" {
            return true;
        }
        let (op, rest) = ["<=", ">=", "<", ">", "="]
            .iter()
            .find_map(|op| c.strip_prefix(op).map(|r| (*op, r)))
            .unwrap_or(("=", c));
        let Some(b) = parse(rest) else { return false };
        match op {
            "<=" => v <= b,
            ">=" => v >= b,
            "<" => v < b,
            ">" => v > b,
            _ => v == b,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert!(satisfies("0.14.1", ">=0.14.0 <0.17.0"));
        assert!(!satisfies("0.17.0", ">=0.14.0 <0.17.0"));
        assert!(satisfies("0.18", ">=0.17.0"));
        assert!(satisfies("v1.2.3-beta.1", ">=1.2.0"));
        assert!(!satisfies("x", "*"));
        assert!(!satisfies("1.2.3.4", "*"));
    }
}
