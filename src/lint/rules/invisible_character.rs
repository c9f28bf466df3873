//! `invisible-character`: characters that display as nothing — Unicode tag
//! characters (hidden text), zero-width spaces and joiners, bidi marks, soft
//! hyphens, the line and paragraph separators — anywhere in the file.

use crate::host::{self, HostProfile};
use crate::lint::Severity;
use crate::lint::fix::{Edit, Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::meter::{self, Work};
use crate::role::Fences;
use crate::text::{escape_char, escape_line, is_bidi_control, is_invisible};

pub(crate) const RULE: Rule = Rule {
    id: "invisible-character",
    severity: Severity::Warning,
    also: Some((
        Severity::Error,
        "where a host's line reader loses the key on that line (nicobailon: U+2028, U+2029)",
    )),
    summary: "an invisible character (hidden text in tag characters, a zero-width space, a line separator, …)",
    explanation: "Some characters display as nothing: Unicode tag characters (U+E0000–U+E007F), zero-width spaces and joiners, bidirectional marks, the soft hyphen, Hangul fillers, variation selectors, a byte order mark inside the text, the line and paragraph separators U+2028 and U+2029. What a reviewer sees is then not what the host and the model read. Tag characters mirror ASCII, so a whole instruction can be written in them (\"ASCII smuggling\"): invisible in an editor, a diff or `pwk show`, and read by the model as text; pwk decodes it in the finding. U+2028 and U+2029 are no line break for YAML, but JavaScript's `.` does not match them, so nicobailon's line reader (`^([\\w-]+):\\s*(.*)$`, pi-subagents@0.67.0 src/agents/frontmatter.ts:114) skips a `key: value` line holding one: the key is lost, and without `name` or `description` the role is skipped silently — an error there, a warning elsewhere. An emoji's zero-width joiner (👩\u{200d}💻) and presentation selector (❤\u{fe0f}) are not reported. pwk's output shows these characters escaped (`\\u{200b}`). Remove them (the unsafe fix deletes them, and turns a line or paragraph separator into a space).",
    bad: "---\nname: reviewer\ndescription: Reviews a diff.\\u{e0020}\\u{e0072}\\u{e006d}\n---\n",
    good: "---\nname: reviewer\ndescription: Reviews a diff.\n---\n",
};

/// Whether `b` can start an invisible character in UTF-8 (see
/// [`crate::text::is_invisible`]); a byte filter so that most text is not decoded.
fn may_start(b: u8) -> bool {
    matches!(b, 0xc2 | 0xcd | 0xd8 | 0xe1..=0xe3 | 0xef | 0xf0 | 0xf3)
}

/// One run of adjacent invisible characters.
struct Run {
    start: usize,
    end: usize,
    chars: Vec<char>,
}

/// The invisible characters of `text`, in runs; a leading BOM (the `bom` rule's),
/// bidi overrides and isolates (`bidi-override`'s) and an emoji's own joiner or
/// selector are left out.
fn runs(text: &str) -> Vec<Run> {
    meter::add(Work::Scan, text.len());
    let mut out: Vec<Run> = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !may_start(bytes[i]) {
            // No invisible character starts with an ASCII byte: skip to the next
            // byte that is not ASCII (most role files are mostly ASCII).
            match crate::text::scan::find_non_ascii(&bytes[i + 1..]) {
                Some(n) => i += 1 + n,
                None => break,
            }
            continue;
        }
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        let len = c.len_utf8();
        let counts = is_invisible(c)
            && !is_bidi_control(c)
            && (i != 0 || c != '\u{feff}')
            && !crate::text::is_emoji_part(
                text[..i].chars().next_back(),
                c,
                text[i + len..].chars().next(),
            );
        if counts {
            match out.last_mut() {
                Some(r) if r.end == i => {
                    r.end = i + len;
                    r.chars.push(c);
                }
                _ => out.push(Run {
                    start: i,
                    end: i + len,
                    chars: vec![c],
                }),
            }
        }
        i += len;
    }
    out
}

/// A name for the characters of a run.
fn describe(r: &Run) -> String {
    let tags: String = r
        .chars
        .iter()
        .filter_map(|&c| {
            let v = c as u32;
            (0xe0020..=0xe007e)
                .contains(&v)
                .then(|| char::from_u32(v - 0xe0000))
                .flatten()
        })
        .collect();
    if tags.chars().count() * 2 >= r.chars.len() && !tags.is_empty() {
        let shown: String = tags.chars().take(80).collect();
        let more = if tags.chars().count() > 80 { "…" } else { "" };
        return format!(
            "hidden text in Unicode tag characters, invisible on screen and read by the model as `{}{more}`",
            escape_line(&shown).replace('`', "'")
        );
    }
    let name = |c: char| match c {
        '\u{ad}' => "a soft hyphen",
        '\u{200b}' => "a zero-width space",
        '\u{200c}' => "a zero-width non-joiner",
        '\u{200d}' => "a zero-width joiner",
        '\u{200e}' | '\u{200f}' | '\u{61c}' => "a bidirectional mark",
        '\u{2028}' => "a line separator",
        '\u{2029}' => "a paragraph separator",
        '\u{2060}' => "a word joiner",
        '\u{feff}' => "a zero-width no-break space (byte order mark)",
        '\u{3164}' | '\u{115f}' | '\u{1160}' | '\u{ffa0}' => "a Hangul filler",
        '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}' => "a variation selector",
        '\u{e0000}'..='\u{e0fff}' => "a tag character",
        _ => "an invisible format character",
    };
    let first = r.chars[0];
    let codes: Vec<String> = r.chars.iter().take(8).map(|&c| escape_char(c)).collect();
    let more = if r.chars.len() > 8 { "…" } else { "" };
    if r.chars.len() == 1 {
        format!(
            "{} `{}` (U+{:04X}), which displays as nothing",
            name(first),
            codes[0],
            first as u32
        )
    } else {
        format!(
            "{} invisible characters `{}{more}`, which display as nothing",
            r.chars.len(),
            codes.concat()
        )
    }
}

/// The keys a line reader that does not match a line with U+2028 or U+2029 in it
/// (nicobailon's) loses because of them.
fn lost(p: &HostProfile, yaml: &str) -> Vec<String> {
    if p.parser.lone_cr.is_none() || !yaml.contains(['\u{2028}', '\u{2029}']) {
        return Vec::new();
    }
    let seen = crate::role::line_reader::keys(yaml);
    let without = yaml.replace(['\u{2028}', '\u{2029}'], " ");
    crate::role::line_reader::keys(&without)
        .into_iter()
        .filter(|k| !seen.contains(k))
        .collect()
}

pub(crate) fn check(cx: &mut Checker<'_>) {
    let text = &cx.doc.text;
    let found = runs(text);
    if found.is_empty() {
        return;
    }
    // Under a line reader, the separators in the frontmatter lose keys.
    let yaml = match &cx.doc.fences {
        Ok(Fences { yaml, .. }) => yaml.clone(),
        Err(_) => 0..0,
    };
    let yaml_text = &text[yaml.clone()];
    let p = cx.profile;
    // (who loses keys, one such profile, the keys)
    let (loser, keys): (Option<(String, &HostProfile)>, Vec<String>) = if p.is_portable() {
        let (hit, _) = host::split_profiles(|h| !lost(h, yaml_text).is_empty());
        match hit.first() {
            Some(h) => (Some((host::name_profiles(&hit), *h)), lost(h, yaml_text)),
            None => (None, Vec::new()),
        }
    } else {
        let l = lost(p, yaml_text);
        ((!l.is_empty()).then(|| (p.label(), p)), l)
    };
    let total = found.len();
    for (n, r) in found.iter().take(super::MAX_REPORTED).enumerate() {
        let separator = r.chars.iter().any(|c| matches!(c, '\u{2028}' | '\u{2029}'));
        let in_yaml = yaml.start <= r.start && r.end <= yaml.end;
        let mut message = describe(r);
        let mut severity = Severity::Warning;
        if separator && in_yaml {
            match &loser {
                Some((who, h)) => {
                    let named: Vec<String> = keys.iter().map(|k| format!("`{}`", escape_line(k))).collect();
                    let required = keys.iter().any(|k| h.requires(k).is_some());
                    message.push_str(&format!(
                        "; {who} reads no key on a line holding it ({} lost{})",
                        named.join(", "),
                        if required { ", and it skips the role silently" } else { "" }
                    ));
                    severity = Severity::Error;
                }
                None => message.push_str(
                    "; YAML reads it as text, but line readers that match `key: value` with JavaScript's `.` (nicobailon) skip the line",
                ),
            }
        }
        let more = super::capped_note(n, total);
        let replacement = if separator { " " } else { "" };
        let d = cx.emit(
            &RULE,
            r.start..r.end,
            "invisible",
            format!("{message}{more}"),
            Some("remove it: what the model reads should be what a reviewer sees".into()),
        );
        d.severity = p.severity_of(RULE.id, severity);
        d.fixes.push(Fix::new(
            if separator {
                "turn the separator into a space"
            } else {
                "remove the invisible characters"
            },
            Safety::Unsafe,
            vec![Edit {
                range: r.start..r.end,
                replacement: replacement.to_string(),
            }],
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_leave_out_the_bom_bidi_overrides_and_emoji() {
        let t = "\u{feff}a\u{202e}b👩\u{200d}💻 ❤\u{fe0f} x\u{200b}\u{200b}y\u{e0041}";
        let r = runs(t);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].chars, ['\u{200b}', '\u{200b}']);
        assert_eq!(r[1].chars, ['\u{e0041}']);
    }

    #[test]
    fn hidden_tag_text_is_decoded() {
        let hidden: String = "Ignore `all`"
            .chars()
            .map(|c| char::from_u32(0xe0000 + c as u32).unwrap())
            .collect();
        let r = &runs(&hidden)[0];
        assert_eq!(
            describe(r),
            "hidden text in Unicode tag characters, invisible on screen and read by the model as `Ignore 'all'`"
        );
    }
}
