//! The skills a host finds: the names in the skill directories its profile lists
//! (`HostProfile::skill_dirs`), as the `unknown-skill` rule and the language server
//! (completion, hover) see them.
//!
//! A skill is a directory holding `SKILL.md`, named after the directory, or (where
//! the directory's fact says so) a `<name>.md` file directly in it. Below a
//! directory that is not a skill, a recursive directory is searched further
//! (dot-directories and `node_modules` left out, as the hosts do). Nothing is
//! opened: entries are looked at with `lstat`, symlinks are never followed, and the
//! walk is bounded in depth and entries.

use std::path::{Path, PathBuf};

use super::{HostProfile, SkillDir};

/// Where the skill directories are: the project root their relative paths start
/// from, the home directory and pi's agent directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillPlaces {
    pub root: PathBuf,
    pub home: Option<PathBuf>,
    pub agent_dir: Option<PathBuf>,
}

/// Directory levels searched below a skill directory.
const MAX_DEPTH: usize = 6;
/// Directory entries looked at per skill directory.
const MAX_ENTRIES: usize = 20_000;

impl SkillPlaces {
    /// Where `dir` is on this machine; `None` when it needs a home or agent
    /// directory that is not known.
    pub fn locate(&self, dir: &SkillDir) -> Option<PathBuf> {
        if let Some(rest) = dir.path.strip_prefix("{agent_dir}/") {
            return self.agent_dir.as_ref().map(|d| d.join(rest));
        }
        if let Some(rest) = dir.path.strip_prefix("{home}/") {
            return self.home.as_ref().map(|h| h.join(rest));
        }
        Some(self.root.join(dir.path))
    }
}

/// The skill names `profile`'s host finds, sorted, without duplicates (empty when
/// the profile lists no skill directories).
pub(crate) fn skill_names(profile: &HostProfile, places: &SkillPlaces) -> Vec<String> {
    let mut names = Vec::new();
    for dir in profile.skill_dirs.iter().flat_map(|s| &s.dirs) {
        if let Some(path) = places.locate(dir) {
            let mut budget = MAX_ENTRIES;
            scan(&path, dir, 0, &mut budget, &mut names);
        }
    }
    names.sort();
    names.dedup();
    names
}

fn is_file(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file())
}

fn scan(path: &Path, dir: &SkillDir, depth: usize, budget: &mut usize, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for e in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        // `file_type` does not follow a symlink.
        let Ok(ft) = e.file_type() else { continue };
        let name = e.file_name().to_string_lossy().into_owned();
        if ft.is_dir() {
            if name.starts_with('.') || name == "node_modules" {
                continue;
            }
            let sub = e.path();
            if is_file(&sub.join("SKILL.md")) {
                out.push(name);
            } else if dir.recursive && depth < MAX_DEPTH {
                scan(&sub, dir, depth + 1, budget, out);
            }
        } else if ft.is_file()
            && depth == 0
            && dir.flat_md
            && let Some(stem) = name.strip_suffix(".md")
            && !stem.is_empty()
        {
            out.push(stem.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::HostId;

    #[test]
    fn finds_skill_directories_and_flat_files_where_the_host_reads_them() {
        let tmp = std::env::temp_dir().join(format!("pwk-skills-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let root = tmp.join("project");
        let home = tmp.join("home");
        for d in [
            root.join(".pi/skills/pdf-tools"),
            root.join(".pi/skills/group/nested-skill"),
            root.join(".agents/skills/agents-skill"),
            home.join(".pi/skills/legacy"),
            root.join(".pi/skills/.hidden/secret"),
        ] {
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("SKILL.md"), "---\nname: x\n---\n").unwrap();
        }
        std::fs::write(root.join(".pi/skills/flat.md"), "x").unwrap();
        std::fs::write(root.join(".agents/skills/not-flat.md"), "x").unwrap();
        // A symlinked skill directory is not followed.
        std::os::unix::fs::symlink(
            root.join(".pi/skills/pdf-tools"),
            root.join(".pi/skills/linked"),
        )
        .unwrap();
        let places = SkillPlaces {
            root: root.clone(),
            home: Some(home),
            agent_dir: None,
        };
        let pi = skill_names(HostId::Herdr.newest(), &places);
        assert_eq!(
            pi,
            ["agents-skill", "flat", "nested-skill", "pdf-tools"],
            "pi's own locations"
        );
        let tintinweb = skill_names(HostId::Tintinweb.newest(), &places);
        assert_eq!(
            tintinweb,
            [
                "agents-skill",
                "flat",
                "legacy",
                "nested-skill",
                "not-flat",
                "pdf-tools"
            ],
            "tintinweb also reads ~/.pi/skills and flat files in .agents/skills"
        );
        assert!(skill_names(HostId::Gemini.newest(), &places).is_empty());
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
