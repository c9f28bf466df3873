//! `name-mismatch`: `name` differs from the file name.

use crate::host::{self, HostProfile, IdentityBy};
use crate::lint::Severity;
use crate::lint::fix::{Fix, Safety};
use crate::lint::rule::Checker;
use crate::lint::rules::Rule;
use crate::role::Node;

pub(crate) const RULE: Rule = Rule {
    id: "name-mismatch",
    severity: Severity::Error,
    also: Some((
        Severity::Warning,
        "when the host calls the role by its `name` (or, under the portable profile, when hosts differ) and a call by the file stem still finds it elsewhere",
    )),
    summary: "`name` differs from the file name",
    explanation: "Hosts disagree on a role's identity: tintinweb before 0.17 uses the file name (it never reads `name`); tintinweb 0.17+, nicobailon and herdr use `name`. When they differ the role answers to different names per host, and tintinweb runs an unknown name as a general-purpose child with all seven tools (read, bash, edit, write, grep, find, ls), silently. Make `name` equal the file name without `.md`. An error for a host that identifies roles by file name (tintinweb 0.14: `name` is never read); a warning for hosts that call roles by `name` (tintinweb 0.18, nicobailon, herdr) and for the portable profile.",
    bad: "pwk-smell-reviewer.md:\n---\nname: pwk-smell-checker\n---\n",
    good: "pwk-smell-reviewer.md:\n---\nname: pwk-smell-reviewer\n---\n",
};

pub(crate) fn check(cx: &mut Checker<'_>, tree: &Node) {
    let Some(node) = tree.get("name") else { return };
    let (Some(name), Some(stem)) = (node.as_str(), cx.doc.stem()) else {
        return;
    };
    if name == stem || cx.profile.identity.name_is_label {
        return;
    }
    // The file's own name (`--stdin-filename /etc/passwd` is `passwd`, not `passwd.md`).
    let file = cx.doc.path.file_name().map_or_else(
        || format!("{stem}.md"),
        |f| f.to_string_lossy().into_owned(),
    );
    let p = cx.profile;
    let unknown = |p: &HostProfile| p.identity.on_unknown.unwrap_or("finds no role");
    let (message, severity) = if p.is_portable() {
        let (by_stem, by_name) = host::split_profiles(|h| h.identity.by == IdentityBy::Stem);
        let m = match by_stem.first() {
            None => {
                format!("`name` is `{name}` but the file is `{file}`; hosts call the role `{name}`")
            }
            Some(first) => format!(
                "`name` is `{name}` but the file is `{file}`: {} call it `{stem}`, {} call it `{name}`; on {} a call by `{name}` {}",
                host::name_profiles(&by_stem),
                host::name_profiles(&by_name),
                first.label(),
                unknown(first)
            ),
        };
        (m, Severity::Warning)
    } else {
        match p.identity.by {
            IdentityBy::Stem => (
                format!(
                    "{} identifies this role as `{stem}` (its file name) and never reads `name`; calling it `{name}` {}",
                    p.label(),
                    unknown(p)
                ),
                Severity::Error,
            ),
            IdentityBy::Name | IdentityBy::NameThenStem => (
                format!(
                    "{} calls this role `{name}`, not `{stem}` (its file name); calling it `{stem}` {}",
                    p.label(),
                    unknown(p)
                ),
                Severity::Warning,
            ),
        }
    };
    let d = cx.emit(
        &RULE,
        node.span.clone(),
        format!("file is `{file}`"),
        message,
        Some(if super::name_not_slug::is_slug(name) {
            format!("rename the file to `{name}.md`, or set `name: {stem}`")
        } else {
            format!("set `name: {stem}`")
        }),
    );
    d.severity = p.severity_of(RULE.id, severity);
    // Which of the two names is right is the author's call: a guess.
    if super::name_not_slug::is_slug(stem) && super::invalid_value::plain_safe(stem) {
        d.fixes.push(Fix::replace(
            format!("set `name: {stem}` (the file name)"),
            Safety::Unsafe,
            node.span.clone(),
            stem,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::host::HostId;
    use crate::role::RoleDoc;

    /// N36: the message names the file as it is, whatever its extension (a file
    /// given by `--stdin-filename /etc/passwd` is not `passwd.md`).
    #[test]
    fn the_file_is_named_as_it_is() {
        for (path, shown) in [
            ("/etc/passwd", "`passwd`"),
            ("a/b.md", "`b.md`"),
            ("x.MD", "`x.MD`"),
            ("r.txt", "`r.txt`"),
        ] {
            let doc = RoleDoc::parse(path, b"---\nname: other\ndescription: d\n---\nB\n");
            let found: Vec<String> = crate::lint::check_doc(&doc, HostId::Pwk.newest())
                .into_iter()
                .filter(|d| d.rule == super::RULE.id)
                .map(|d| d.message)
                .collect();
            assert_eq!(found.len(), 1, "{path}: {found:?}");
            assert!(
                found[0].contains(&format!("the file is {shown}")),
                "{path}: {found:?}"
            );
        }
    }
}
