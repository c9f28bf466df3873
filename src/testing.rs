//! What the unit tests of several modules share (compiled for tests only).

/// The proptest settings of the fuzz tests (the delegate stream and request, JSON,
/// the LSP and MCP framings): 64 cases by default, `PWK_FUZZ_CASES=N` for long runs.
pub(crate) fn fuzz_config() -> proptest::prelude::ProptestConfig {
    let cases = std::env::var("PWK_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    proptest::prelude::ProptestConfig {
        cases,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    }
}

/// Write `text` to `root/rel`, creating the directories on the way (a test's tree).
pub(crate) fn write_tree_file(root: &std::path::Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("a file under root")).unwrap();
    std::fs::write(p, text).unwrap();
}
