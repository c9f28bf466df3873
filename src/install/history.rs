//! Earlier canonical versions of the bundled roles, by digest.
//!
//! A file that still matches an earlier canonical version (apart from its model
//! hint line) is pwk's own, unedited copy, so an upgrade may replace it. Each
//! digest is the SHA-256 of the version's text with its model hint lines removed
//! ([`super::hint::without_model_lines`]). Append a row whenever a role's text
//! changes in a release; never remove one.

use sha2::{Digest, Sha256};

/// `(role name, sha256 of the normalized text)` of every earlier version.
pub const EARLIER_VERSIONS: &[(&str, &str)] = &[
    // The placeholder roles of the first development snapshot.
    (
        "pwk-recon-scout",
        "9acd85fea600a185f094cda1a00255f51a13400f454e07de4a19daaca87a65ef",
    ),
    (
        "pwk-spec-reviewer",
        "db9f2093adb746ff4aa8c832f11df53fb90295e099f2577f83855eb44c40f573",
    ),
    (
        "pwk-tracing-reviewer",
        "f319aee1283caca2b3b1290c7ac6bec4109665a44f763c50a5c8448997c5a4c0",
    ),
    (
        "pwk-smell-reviewer",
        "19d9e2d8d28160222b626cac80cbe66c968ea4b441b888325b79c18634adeb11",
    ),
    (
        "pwk-hazard-reviewer",
        "43308f2ac4e6b24996212ee9cc243a7b778b666a6ec33e475e0b4f1f26cf6eb1",
    ),
];

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Whether the normalized text `normalized` of role `name` is an earlier canonical version.
pub fn is_earlier_version(name: &str, normalized: &str) -> bool {
    let digest = sha256_hex(normalized.as_bytes());
    EARLIER_VERSIONS
        .iter()
        .any(|(n, d)| *n == name && *d == digest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::hint::without_model_lines;

    /// The placeholder smell reviewer, exactly as the first snapshot shipped it.
    const PLACEHOLDER_SMELL: &str = "---\nname: pwk-smell-reviewer\ndescription: PWK smell-reviewer (placeholder text; the full role is written in the setup work).\ntools: read, grep, find, ls\nsystemPromptMode: replace\nmax_turns: 20\nthinking: low\n# model: <fast-tier> — set yours with pwk setup --fast-model\n---\n# PWK smell-reviewer\n\nPlaceholder body.\n";
    const PLACEHOLDER_SPEC: &str = "---\nname: pwk-spec-reviewer\ndescription: PWK spec-reviewer (placeholder text; the full role is written in the setup work).\ntools: read, grep, find, ls\nsystemPromptMode: replace\nmax_turns: 40\n---\n# PWK spec-reviewer\n\nPlaceholder body.\n";

    #[test]
    fn placeholders_are_earlier_versions() {
        assert!(is_earlier_version(
            "pwk-smell-reviewer",
            &without_model_lines(PLACEHOLDER_SMELL)
        ));
        assert!(is_earlier_version(
            "pwk-spec-reviewer",
            &without_model_lines(PLACEHOLDER_SPEC)
        ));
        assert!(!is_earlier_version(
            "pwk-hazard-reviewer",
            &without_model_lines(PLACEHOLDER_SPEC)
        ));
    }

    #[test]
    fn every_row_names_a_bundled_role_and_a_digest() {
        for (name, digest) in EARLIER_VERSIONS {
            assert!(crate::roles::bundled_role(name).is_some(), "{name}");
            assert_eq!(digest.len(), 64);
            assert!(
                digest
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            );
        }
    }

    #[test]
    fn the_current_version_is_not_listed_as_earlier() {
        for role in crate::roles::BUNDLED_ROLES {
            assert!(
                !is_earlier_version(role.name, &without_model_lines(role.content)),
                "{}",
                role.name
            );
        }
    }
}
