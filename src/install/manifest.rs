//! The install manifest, `<agents dir>/.pwk-manifest.json`: what pwk last wrote
//! for each role, by SHA-256. A file that still has that digest is pwk's own copy
//! and may be updated; anything else belongs to the user (dpkg's conffile rule).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The manifest's file name inside the agents directory. It must not end in `.md`.
pub(crate) const MANIFEST_NAME: &str = ".pwk-manifest.json";

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub version: u32,
    /// role name → entry
    pub roles: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// SHA-256 (lower-case hex) of the exact bytes pwk wrote.
    pub sha256: String,
}

impl Manifest {
    pub(crate) fn new() -> Manifest {
        Manifest {
            version: 1,
            roles: BTreeMap::new(),
        }
    }

    /// Parse a manifest; `Err` with a reason when it is not one pwk can use.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Manifest, String> {
        let m: Manifest = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        if m.version != 1 {
            return Err(format!("unknown manifest version {}", m.version));
        }
        Ok(m)
    }

    /// The manifest as written: pretty JSON with a final newline, keys sorted.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(self).unwrap_or_default();
        out.push(b'\n');
        out
    }

    pub(crate) fn digest(&self, name: &str) -> Option<&str> {
        self.roles.get(name).map(|e| e.sha256.as_str())
    }

    pub(crate) fn record(&mut self, name: &str, sha256: String) {
        self.roles.insert(name.to_string(), Entry { sha256 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_garbage() {
        let mut m = Manifest::new();
        m.record("pwk-b", "bb".into());
        m.record("pwk-a", "aa".into());
        let bytes = m.to_bytes();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(
            text.find("pwk-a").unwrap() < text.find("pwk-b").unwrap(),
            "sorted"
        );
        assert_eq!(Manifest::parse(&bytes).unwrap(), m);
        assert!(Manifest::parse(b"[]").is_err());
        assert!(Manifest::parse(b"{\"version\":2,\"roles\":{}}").is_err());
        assert!(!MANIFEST_NAME.ends_with(".md"));
    }
}
