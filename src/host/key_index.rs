//! Key tables indexed by hash: open addressing with linear probing, at most a
//! quarter full, a byte a slot (0: empty, else 1 + the key's place in its table).
//!
//! build.rs lays the slots out for the tables it writes (the pi rows' keys, the
//! keys that name a host), so a run looks a key up without first building a map
//! (`--host auto`'s key map alone cost ~33k instructions of a one-file lint); a
//! profile's keys get theirs when the profile is read ([`super::key_map`]).
//! Shared by build.rs and `host`.

/// FNV-1a of the key, folded: short keys hash in a few instructions.
pub(super) fn hash(key: &str) -> usize {
    let h = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    (h ^ (h >> 32)) as usize
}

/// The slots for `keys`, each at its place in the slice.
pub(super) fn slots(keys: &[&str]) -> Vec<u8> {
    assert!(keys.len() < 256, "a key's place fits a byte");
    let size = (keys.len() * 4).next_power_of_two().max(16);
    let mut slots = vec![0u8; size];
    for (n, k) in keys.iter().enumerate() {
        let mut i = hash(k) & (size - 1);
        while slots[i] != 0 {
            i = (i + 1) & (size - 1);
        }
        slots[i] = (n + 1) as u8;
    }
    slots
}

/// The place of `key` in the table whose keys `key_at` gives.
pub(super) fn find<'a>(
    slots: &[u8],
    key: &str,
    key_at: impl Fn(usize) -> &'a str,
) -> Option<usize> {
    let mask = slots.len().checked_sub(1)?;
    let mut i = hash(key) & mask;
    while let Some(n) = (slots[i] as usize).checked_sub(1) {
        if key_at(n) == key {
            return Some(n);
        }
        i = (i + 1) & mask;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key is found at its place, whatever the table's size (so whatever the
    /// collisions), and a key not in it is not, including one that hashes to a
    /// taken slot.
    #[test]
    fn every_key_is_found_at_its_place_and_no_other() {
        let all: Vec<String> = (0..255).map(|i| format!("k{i}")).collect();
        for n in [0, 1, 2, 15, 16, 17, 100, 255] {
            let keys: Vec<&str> = all[..n].iter().map(String::as_str).collect();
            let slots = slots(&keys);
            assert!(slots.len() >= 4 * n, "{n}");
            for (place, k) in keys.iter().enumerate() {
                assert_eq!(find(&slots, k, |i| keys[i]), Some(place), "{k}");
            }
            for k in ["", "k", "k255", "K1", "k1 "] {
                assert_eq!(find(&slots, k, |i| keys[i]), None, "{k:?} in {n}");
            }
        }
        assert_eq!(find(&[], "k", |_| "k"), None);
    }
}
