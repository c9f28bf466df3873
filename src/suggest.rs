//! The one did-you-mean: which known words a mistyped one probably meant.
//!
//! [`did_you_mean`] answers with the single closest word within a typo's distance
//! (Damerau–Levenshtein, case-insensitive; 1 edit for words of up to 3 characters,
//! 2 up to 6, else 3): keys, tools, enum values, rule ids, hosts. [`close_matches`]
//! answers with up to three, for names people half-remember (`pwk show spec-reviewer`):
//! the typo matches as closest first, then the known words that contain the word.

/// The edit distance between `a` and `b`, ignoring case, when it is small enough to
/// be a typo of a word of that length.
fn typo_distance(word: &str, candidate: &str) -> Option<usize> {
    let (w, c) = (word.to_lowercase(), candidate.to_lowercase());
    let limit = match candidate.chars().count().max(word.chars().count()) {
        0..=3 => 1,
        4..=6 => 2,
        _ => 3,
    };
    // The distance is at least the difference in length: most candidates are
    // decided without the distance matrix (an unknown key is compared with every
    // known one).
    if w.chars().count().abs_diff(c.chars().count()) > limit {
        return None;
    }
    let d = if w == c {
        0
    } else {
        strsim::damerau_levenshtein(&w, &c)
    };
    (d <= limit).then_some(d)
}

/// The candidate closest to `word`, when it is close enough to be a likely typo (the
/// first of equally close ones).
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if let Some(d) = typo_distance(word, c)
            && best.is_none_or(|(bd, _)| d < bd)
        {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Up to three candidates `word` may mean, best first: typos of it by distance,
/// then (for words of three or more characters) candidates that contain it.
pub fn close_matches<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let lower = word.to_lowercase();
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            typo_distance(word, c).map(|d| (d, c)).or_else(|| {
                (lower.chars().count() >= 3 && c.to_lowercase().contains(&lower))
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
}
