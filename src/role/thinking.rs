//! pi's thinking levels, one list per pi generation, from `schemas/pi.json` (compiled
//! in by build.rs). The linter, the schema (checked by a test), request validation and
//! model hints all read them from here.

mod generated {
    include!(concat!(env!("OUT_DIR"), "/pi_thinking.rs"));
}

/// Every level a supported pi accepts: the newest generation's list (each
/// generation's list contains the one before; build.rs checks it).
pub(crate) const LEVELS: &[&str] = generated::GENERATIONS[generated::GENERATIONS.len() - 1].2;

/// Whether `level` is a thinking level of some supported pi.
pub(crate) fn is_level(level: &str) -> bool {
    LEVELS.contains(&level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_only_add_levels_and_the_schema_agrees() {
        let oldest = generated::GENERATIONS[0].2;
        assert!(oldest.contains(&"xhigh") && !oldest.contains(&"max"));
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
