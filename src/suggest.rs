//! The one did-you-mean: which known words a mistyped one probably meant.
//!
//! [`did_you_mean`] answers with the single closest word within a typo's distance
//! (Damerau–Levenshtein, case-insensitive; 1 edit for words of up to 3 characters,
//! 2 up to 6, else 3): keys, tools, enum values, rule ids, hosts. [`close_matches`]
//! answers with up to three, for names people half-remember (`pwk show spec-reviewer`):
//! the typo matches as closest first, then the known words that contain the word.

/// The largest edit distance that still counts as a typo of a word of `len` characters.
const fn limit_for(len: usize) -> usize {
    match len {
        0..=3 => 1,
        4..=6 => 2,
        _ => 3,
    }
}

/// A word prepared once for comparing with many candidates (an unknown key is
/// compared with every known one): its lowercase form and, when it is ASCII, how
/// often each byte occurs.
struct Word<'w> {
    word: &'w str,
    lower: String,
    counts: Option<[i16; 128]>,
}

impl<'w> Word<'w> {
    fn new(word: &'w str) -> Word<'w> {
        let counts = word.is_ascii().then(|| {
            let mut counts = [0i16; 128];
            for b in word.bytes() {
                let i = usize::from(b.to_ascii_lowercase());
                counts[i] = counts[i].saturating_add(1);
            }
            counts
        });
        Word {
            word,
            lower: word.to_lowercase(),
            counts,
        }
    }
}

/// The edit distance between `word` and `candidate`, ignoring case, when it is small
/// enough to be a typo of a word of that length.
fn typo_distance(word: &Word<'_>, candidate: &str) -> Option<usize> {
    if let Some(counts) = word.counts
        && candidate.is_ascii()
    {
        // ASCII (every key, tool and rule id): lowercasing keeps the length, and two
        // lower bounds of the distance decide most candidates without the distance
        // matrix: the difference in length, and how many characters one word has
        // that the other lacks (counted as multisets; each edit changes that by at
        // most one, a transposition not at all).
        let (wl, cl) = (word.lower.len(), candidate.len());
        let limit = limit_for(wl.max(cl));
        if wl.abs_diff(cl) > limit {
            return None;
        }
        // `missing`: the candidate's characters the word has no (more) copies of;
        // the rest of the candidate is matched, so the word has `wl - matched` extra.
        let mut counts = counts;
        let mut missing = 0usize;
        for b in candidate.bytes() {
            let i = usize::from(b.to_ascii_lowercase());
            if counts[i] > 0 {
                counts[i] -= 1;
            } else {
                missing += 1;
            }
        }
        let extra = wl - (cl - missing);
        if extra.max(missing) > limit {
            return None;
        }
        let c = candidate.to_ascii_lowercase();
        let d = if word.lower == c {
            0
        } else {
            strsim::damerau_levenshtein(&word.lower, &c)
        };
        return (d <= limit).then_some(d);
    }
    let (w, c) = (&word.lower, candidate.to_lowercase());
    let limit = limit_for(candidate.chars().count().max(word.word.chars().count()));
    // The distance is at least the difference in length.
    if w.chars().count().abs_diff(c.chars().count()) > limit {
        return None;
    }
    let d = if *w == c {
        0
    } else {
        strsim::damerau_levenshtein(w, &c)
    };
    (d <= limit).then_some(d)
}

/// The candidate closest to `word`, when it is close enough to be a likely typo (the
/// first of equally close ones).
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let word = Word::new(word);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if let Some(d) = typo_distance(&word, c)
            && best.is_none_or(|(bd, _)| d < bd)
        {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Up to three candidates `word` may mean, best first: typos of it by distance,
/// then (for words of three or more characters) candidates that contain it.
pub(crate) fn close_matches<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let prepared = Word::new(word);
    let lower = &prepared.lower;
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            typo_distance(&prepared, c).map(|d| (d, c)).or_else(|| {
                (lower.chars().count() >= 3 && c.to_lowercase().contains(lower.as_str()))
                    .then_some((usize::MAX, c))
            })
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    // Only those about as close as the best one.
    let best = scored.first().map(|(d, _)| *d).unwrap_or_default();
    scored
        .into_iter()
        .filter(|(d, _)| *d == best || (best != usize::MAX && *d <= best + 1))
        .take(3)
        .map(|(_, c)| c)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_and_containment() {
        let keys = ["name", "description", "tools", "model"];
        assert_eq!(did_you_mean("tols", keys), Some("tools"));
        assert_eq!(did_you_mean("descripton", keys), Some("description"));
        assert_eq!(did_you_mean("Name", keys), Some("name"));
        assert_eq!(did_you_mean("owner", keys), None);
        let roles = ["pwk-spec-reviewer", "pwk-smell-reviewer", "pwk-recon-scout"];
        assert_eq!(
            close_matches("pwk-spec-reviewr", roles),
            ["pwk-spec-reviewer"]
        );
        assert_eq!(close_matches("spec-reviewer", roles), ["pwk-spec-reviewer"]);
        assert_eq!(
            close_matches("reviewer", roles),
            ["pwk-smell-reviewer", "pwk-spec-reviewer"]
        );
        assert!(close_matches("zzzzzz", roles).is_empty());
    }

    /// The ASCII lower bounds decide exactly as the distance itself would.
    #[test]
    fn the_lower_bounds_never_change_an_answer() {
        let words = [
            "tols",
            "tool",
            "tools",
            "Tools",
            "sloot",
            "otols",
            "model",
            "modle",
            "mdoel",
            "descripton",
            "k00001",
            "x-k1",
            "max_turns",
            "maxturns",
            "max-turns",
            "skils",
            "skills",
            "a",
            "ab",
            "ba",
            "abc",
            "cab",
            "thinking",
            "thinkng",
            "",
            "nme",
            "name",
        ];
        for w in words {
            for c in words {
                let (wl, cl) = (w.to_lowercase(), c.to_lowercase());
                let limit = limit_for(w.len().max(c.len()));
                let d = strsim::damerau_levenshtein(&wl, &cl);
                let expected = (d <= limit).then_some(d);
                assert_eq!(typo_distance(&Word::new(w), c), expected, "{w} ~ {c}");
            }
        }
    }
}
