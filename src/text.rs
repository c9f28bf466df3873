//! Small text helpers shared by the human renderers.

/// Greedy word wrap: `text`'s words, whitespace-normalised, in lines of at most `width`
/// characters (a word longer than `width` gets a line of its own).
pub(crate) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    for word in text.split_whitespace() {
        let w = word.chars().count();
        if cur_len > 0 && cur_len + 1 + w > width {
            lines.push(std::mem::take(&mut cur));
            cur_len = 0;
        }
        if cur_len > 0 {
            cur.push(' ');
            cur_len += 1;
        }
        cur.push_str(word);
        cur_len += w;
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_greedily_and_keeps_long_words_whole() {
        assert_eq!(wrap_words("a bb  ccc\ndd", 6), ["a bb", "ccc dd"]);
        assert_eq!(wrap_words("abcdefgh ij", 4), ["abcdefgh", "ij"]);
        assert_eq!(wrap_words("héllo wörld", 11), ["héllo wörld"]);
        assert!(wrap_words("   ", 10).is_empty());
    }
}
