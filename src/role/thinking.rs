//! pi's thinking levels, one list per pi generation: the only place they are
//! written down. The linter, the schema (checked by a test), request validation and
//! model hints all read them from here.

/// `--thinking` levels of pi 0.73 (`@mariozechner/pi-coding-agent`); the test
/// checks that pi 1.6's list only adds to it (so [`LEVELS`] holds for both).
#[cfg(test)]
const PI_0_73: &[&str] = &["off", "minimal", "low", "medium", "high", "xhigh"];

/// `--thinking` levels of pi 1.6 (`@earendil-works/pi-coding-agent`): adds `max`.
pub(crate) const PI_1_6: &[&str] = &["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/// Every level a supported pi accepts: the newest generation's list (each
/// generation's list contains the one before).
pub(crate) const LEVELS: &[&str] = PI_1_6;

/// Whether `level` is a thinking level of some supported pi.
pub(crate) fn is_level(level: &str) -> bool {
    LEVELS.contains(&level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_only_add_levels_and_the_schema_agrees() {
        assert!(PI_0_73.iter().all(|l| PI_1_6.contains(l)));
        let schema: serde_json::Value =
            serde_json::from_str(crate::role::schema::ROLE_SCHEMA).unwrap();
        let enumerated: Vec<&str> = schema["properties"]["thinking"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            enumerated, LEVELS,
            "schemas/role.schema.json `thinking` enum"
        );
    }
}
