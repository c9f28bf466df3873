//! RFC 7396 JSON merge patch, consuming the patch (nothing is copied).
//!
//! Shared by build.rs (which resolves `schemas/hosts/*.json` into the compiled table)
//! and the host tests (which resolve the source files again to check that table).

pub(super) fn merge_patch(target: &mut serde_json::Value, patch: serde_json::Value) {
    use serde_json::Value;
    let Value::Object(p) = patch else {
        *target = patch;
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Default::default());
    }
    let t = target.as_object_mut().expect("object");
    for (k, v) in p {
        if v.is_null() {
            t.remove(&k);
        } else {
            merge_patch(t.entry(k).or_insert(Value::Null), v);
        }
    }
}
