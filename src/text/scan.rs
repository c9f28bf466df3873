//! Byte searches that never ask the CPU what it supports: the one place lint's
//! scans (line starts, line ends, `---`, `pwk:`, `\r`) search bytes.
//!
//! The `memchr` crate's top-level functions pick AVX2 or SSE2 at run time, and the
//! first call runs std's CPU feature detection: a dozen `cpuid` instructions, each a
//! trap to the hypervisor on a virtual machine (~6 µs each measured on the 2-core VM
//! this is benchmarked on, ~85 µs a run: a third of what one `pwk lint FILE` cost
//! above `pwk --version`). The searchers here are SSE2's, which every x86-64 CPU has
//! (chosen at compile time), and the portable word-at-a-time ones elsewhere; on
//! the short texts of role files they do the same work.
//!
//! Each search charges the bytes it examined to [`crate::meter`]'s `Scan` counter
//! (debug builds): a caller that searches from each item of a line to the line's
//! end (a quadratic cost) shows in the growth tests whoever the caller is.

#[cfg(target_arch = "x86_64")]
mod arch {
    pub(super) use memchr::arch::x86_64::sse2::memchr::{One, Two};

    pub(super) fn one(b: u8) -> One {
        One::new(b).expect("SSE2 is part of x86-64")
    }

    pub(super) fn two(a: u8, b: u8) -> Two {
        Two::new(a, b).expect("SSE2 is part of x86-64")
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod arch {
    pub(super) use memchr::arch::all::memchr::{One, Two};

    pub(super) fn one(b: u8) -> One {
        One::new(b)
    }

    pub(super) fn two(a: u8, b: u8) -> Two {
        Two::new(a, b)
    }
}

/// The offset of the first `b` in `hay`.
pub fn find_byte(b: u8, hay: &[u8]) -> Option<usize> {
    let found = arch::one(b).find(hay);
    examined(found.map_or(hay.len(), |i| i + 1));
    found
}

/// The offset of the first `a` or `b` in `hay`.
pub fn find_byte2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    let found = arch::two(a, b).find(hay);
    examined(found.map_or(hay.len(), |i| i + 1));
    found
}

/// Charge `n` examined bytes to the work counters (nothing in a release build).
#[inline]
fn examined(n: usize) {
    crate::meter::add(crate::meter::Work::Scan, n);
}

/// The offsets of every `b` in `hay`, in order.
pub fn byte_positions(b: u8, hay: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let one = arch::one(b);
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = hay.get(at..)?;
        let Some(i) = one.find(rest).map(|i| at + i) else {
            examined(rest.len());
            at = hay.len() + 1;
            return None;
        };
        examined(i + 1 - at);
        at = i + 1;
        Some(i)
    })
}

/// The offset of the first `needle` (not empty) in `hay`.
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    find_from(hay, needle, 0)
}

/// The offsets of every `needle` (not empty) in `hay`, not overlapping, in order.
pub fn find_iter<'h>(hay: &'h [u8], needle: &'h [u8]) -> impl Iterator<Item = usize> + 'h {
    let mut at = 0;
    std::iter::from_fn(move || {
        let i = find_from(hay, needle, at)?;
        at = i + needle.len();
        Some(i)
    })
}

/// The offset of the first byte of `hay` that is not ASCII (0x80 and above),
/// eight bytes at a time: most of a role file is ASCII, and a scan for characters
/// that are not (invisible ones) skips it this way.
pub fn find_non_ascii(hay: &[u8]) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = hay.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let high = u64::from_le_bytes(word.try_into().expect("8 bytes")) & HIGH;
        if high != 0 {
            let found = at + high.trailing_zeros() as usize / 8;
            examined(found + 1);
            return Some(found);
        }
        at += 8;
    }
    let rest = words.remainder();
    let found = rest.iter().position(|b| !b.is_ascii()).map(|i| at + i);
    examined(found.map_or(hay.len(), |i| i + 1));
    found
}

/// [`find`] from offset `from` on (the offset returned is `hay`'s).
fn find_from(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let one = arch::one(first);
    let mut at = from;
    while at < hay.len() {
        let Some(i) = one.find(&hay[at..]).map(|i| at + i) else {
            examined(hay.len() - at);
            return None;
        };
        examined(i + 1 - at + rest.len().min(hay.len() - i - 1));
        if hay[i + 1..].starts_with(rest) {
            return Some(i);
        }
        at = i + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same answers as `memchr`'s run-time dispatched searches, on texts
        /// made of the bytes searched for and a few others.
        #[test]
        fn agrees_with_memchr(
            hay in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'-'), Just(b'p'), Just(b'w'),
                    Just(b'k'), Just(b':'), Just(0xE2), any::<u8>()],
                0..300,
            ),
            needle in prop_oneof![
                Just(b"---".to_vec()), Just(b"\r\n".to_vec()), Just(b"pwk:".to_vec()),
                Just(b"-".to_vec()), proptest::collection::vec(any::<u8>(), 1..4),
            ],
        ) {
            for b in [b'\n', b'\r', 0xE2, hay.first().copied().unwrap_or(0)] {
                prop_assert_eq!(find_byte(b, &hay), memchr::memchr(b, &hay));
                prop_assert_eq!(
                    byte_positions(b, &hay).collect::<Vec<_>>(),
                    memchr::memchr_iter(b, &hay).collect::<Vec<_>>()
                );
            }
            prop_assert_eq!(find_byte2(b'\n', b'\r', &hay), memchr::memchr2(b'\n', b'\r', &hay));
            // At every start, so each place in a word and each remainder is tried.
            for from in 0..hay.len().min(17) {
                prop_assert_eq!(
                    find_non_ascii(&hay[from..]),
                    hay[from..].iter().position(|b| !b.is_ascii())
                );
            }
            prop_assert_eq!(find(&hay, &needle), memchr::memmem::find(&hay, &needle));
            prop_assert_eq!(
                find_iter(&hay, &needle).collect::<Vec<_>>(),
                memchr::memmem::find_iter(&hay, &needle).collect::<Vec<_>>()
            );
        }

        /// ASCII text with one byte that is not, anywhere (in each place of a word
        /// and in the remainder), or none.
        #[test]
        fn finds_the_first_byte_that_is_not_ascii(
            ascii in proptest::collection::vec(0u8..0x80, 0..100),
            place in any::<proptest::sample::Index>(),
            high in 0x80u8..=0xFF,
            with in any::<bool>(),
        ) {
            let mut hay = ascii;
            let want = with.then(|| place.index(hay.len() + 1));
            if let Some(at) = want {
                hay.insert(at, high);
            }
            prop_assert_eq!(find_non_ascii(&hay), want);
        }
    }
}
