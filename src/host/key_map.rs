//! A profile's map from frontmatter keys to their facts: the entries in key order
//! (as a `BTreeMap` iterates them), looked up through [`key_index`] slots laid out
//! when the profile is read.
//!
//! A lint looks keys up in the host's profile some fifty times a file (each rule
//! asks what the host does with the keys it checks). A `BTreeMap` of a profile's
//! ~40 keys answered each with half a dozen string comparisons, about 10% of the
//! per-file work; a slot answers with a short hash and one comparison.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

use super::key_index;

/// Keys in order, each with its value, and their slots (laid out by build.rs for
/// a compiled-in profile).
#[derive(Clone)]
pub struct KeyMap<V> {
    entries: Vec<(&'static str, V)>,
    slots: Cow<'static, [u8]>,
}

impl<V> Default for KeyMap<V> {
    fn default() -> Self {
        KeyMap {
            entries: Vec::new(),
            slots: Cow::Borrowed(&[]),
        }
    }
}

impl<V> KeyMap<V> {
    /// A compiled-in profile's map, as build.rs laid it out: `entries` sorted by
    /// key, distinct, and their `slots` (`key_index::slots`). The compiled-in rows
    /// are compared with their source files in a test.
    pub(super) fn laid_out(entries: Vec<(&'static str, V)>, slots: &'static [u8]) -> Self {
        KeyMap {
            entries,
            slots: Cow::Borrowed(slots),
        }
    }

    /// The map of `entries`, sorted by key; `Err` names a key given twice, or says
    /// there are more keys than a slot can name.
    pub fn new(mut entries: Vec<(&'static str, V)>) -> Result<Self, String> {
        if entries.len() > usize::from(u8::MAX) {
            return Err(format!(
                "{} keys: a profile names at most 255",
                entries.len()
            ));
        }
        if !entries.is_sorted_by(|a, b| a.0 < b.0) {
            entries.sort_by(|a, b| a.0.cmp(b.0));
            if let Some(w) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(format!("the key `{}` is given twice", w[0].0));
            }
        }
        let keys: Vec<&str> = entries.iter().map(|e| e.0).collect();
        let slots = Cow::Owned(key_index::slots(&keys));
        Ok(KeyMap { entries, slots })
    }

    fn place(&self, key: &str) -> Option<usize> {
        key_index::find(&self.slots, key, |n| self.entries[n].0)
    }

    /// The value for `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.place(key).map(|n| &self.entries[n].1)
    }

    /// The key as the map holds it, and its value.
    pub fn get_key_value(&self, key: &str) -> Option<(&&'static str, &V)> {
        self.place(key).map(|n| {
            let (k, v) = &self.entries[n];
            (k, v)
        })
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.place(key).is_some()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in key order (as a `BTreeMap`'s `iter`).
    pub fn iter(&self) -> Iter<'_, V> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &&'static str> + '_ {
        self.entries.iter().map(|e| &e.0)
    }

    /// The values in key order.
    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.entries.iter().map(|e| &e.1)
    }
}

/// [`KeyMap::iter`]'s iterator.
pub(super) type Iter<'a, V> = std::iter::Map<
    std::slice::Iter<'a, (&'static str, V)>,
    fn(&'a (&'static str, V)) -> (&'a &'static str, &'a V),
>;

impl<'a, V> IntoIterator for &'a KeyMap<V> {
    type Item = (&'a &'static str, &'a V);
    type IntoIter = Iter<'a, V>;
    fn into_iter(self) -> Iter<'a, V> {
        self.iter()
    }
}

impl<V> std::ops::Index<&str> for KeyMap<V> {
    type Output = V;
    fn index(&self, key: &str) -> &V {
        self.get(key)
            .unwrap_or_else(|| panic!("no key `{key}` in the map"))
    }
}

impl<V: fmt::Debug> fmt::Debug for KeyMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V: PartialEq> PartialEq for KeyMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for KeyMap<V>
where
    'de: 'static,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Entries<V>
        where
            'de: 'static,
        {
            type Value = KeyMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map from keys")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyMap<V>, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(entry) = map.next_entry::<&'static str, V>()? {
                    entries.push(entry);
                }
                KeyMap::new(entries).map_err(de::Error::custom)
            }
        }
        d.deserialize_map(Entries(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the order and number of keys, the map finds each key's value, finds
    /// no other key, and iterates in key order, as the `BTreeMap` it replaces; a key
    /// given twice is refused.
    #[test]
    fn a_key_map_answers_as_a_btree_map_does() {
        let names: Vec<&'static str> = (0..255)
            .map(|i| &*format!("k{}", (i * 37) % 255).leak())
            .collect();
        for n in [0, 1, 2, 15, 16, 17, 60, 255] {
            let entries: Vec<(&'static str, usize)> = names[..n]
                .iter()
                .enumerate()
                .map(|(i, k)| (*k, i))
                .collect();
            let map = KeyMap::new(entries.clone()).expect("distinct keys");
            let tree: std::collections::BTreeMap<&str, usize> = entries.into_iter().collect();
            assert_eq!(map.len(), tree.len());
            assert!(map.iter().eq(tree.iter()), "{n}");
            for (k, v) in &tree {
                assert_eq!(map.get(k), Some(v), "{k}");
                assert_eq!(map.get_key_value(k), Some((k, v)));
                assert_eq!(map[k], *v);
            }
            for k in ["", "k", "k255", "K1", "k1 ", "k01"] {
                assert!(!map.contains_key(k), "{k:?} in {n}");
            }
        }
        let err = KeyMap::new(vec![("b", 1), ("a", 2), ("b", 3)]).unwrap_err();
        assert!(err.contains("`b` is given twice"), "{err}");
        let many: Vec<(&'static str, ())> =
            (0..256).map(|i| (&*format!("x{i}").leak(), ())).collect();
        assert!(KeyMap::new(many).is_err());
    }
}
