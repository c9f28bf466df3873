//! What pwk says about untrusted input, as classes (attacks N32–N34, N36 of the
//! turn-4 attack pass): each test generates the variants of one message's attack
//! — every refusal a convert write meets, every line ending × target host, every
//! way to repeat a `--model-map`, every `exclude` that leaves nothing, every way a
//! configuration is a symbolic link, every place a configuration's own text is
//! echoed at every length, every non-finite budget value, every depth of `..` in a
//! `baseline` — with the variants that must stay quiet next to those that fire.

use std::os::unix::fs::symlink;
use std::path::Path;

use serde_json::Value;

use crate::support::TestEnv;

const CLAUDE_ROLE: &str =
    "---\nname: a\ndescription: Reviews.\ntools: Read, Grep\n---\nBody.\nMore.\n";

fn run(env: &TestEnv, args: &[&str]) -> (i32, String, String) {
    let out = env.pwk().args(args).output().expect("run pwk");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A project (`.git`) with `.claude/agents/<name>.md` for each name.
fn claude_project(names: &[&str]) -> TestEnv {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git")).unwrap();
    for n in names {
        env.write(
            &format!(".claude/agents/{n}.md"),
            CLAUDE_ROLE.replace("name: a", &format!("name: {n}")),
        );
    }
    env
}

/// How the target of a convert write is obstructed.
#[derive(Debug, Clone, Copy)]
enum Obstacle {
    None,
    /// A symbolic link to a file outside the project.
    Symlink,
    /// A symbolic link to nothing.
    Dangling,
    /// A hard link to a file outside `--out`.
    HardLink,
    /// A different file (no `--force`).
    Different,
    /// A directory where the file would go.
    Directory,
}

fn obstruct(env: &TestEnv, target: &Path, o: Obstacle) {
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    let outside = env.path("outside.md");
    std::fs::write(&outside, "outside\n").unwrap();
    match o {
        Obstacle::None => {}
        Obstacle::Symlink => symlink(&outside, target).unwrap(),
        Obstacle::Dangling => symlink(env.path("nowhere.md"), target).unwrap(),
        Obstacle::HardLink => std::fs::hard_link(&outside, target).unwrap(),
        Obstacle::Different => std::fs::write(target, "---\nname: other\n---\n").unwrap(),
        Obstacle::Directory => std::fs::create_dir_all(target).unwrap(),
    }
}

/// N32: a convert run whose write is refused never sums up as converted and
/// written: every obstacle × (alone, or next to a file that is written), in the
/// human summary and the JSON `summary.not_written`; with no obstacle the summary
/// stays the plain one.
#[test]
fn a_refused_convert_write_is_never_summed_up_as_written() {
    use Obstacle::*;
    let mut cases = 0;
    for o in [None, Symlink, Dangling, HardLink, Different, Directory] {
        for with_clean_neighbour in [false, true] {
            let names: &[&str] = if with_clean_neighbour {
                &["a", "b"]
            } else {
                &["a"]
            };
            for format in ["human", "json"] {
                cases += 1;
                let env = claude_project(names);
                obstruct(&env, &env.path(".pi/agents/a.md"), o);
                let mut args = vec!["convert", "--from", "claude-code", "--to", "tintinweb"];
                args.extend(["--out", ".pi/agents", "--format", format, ".claude/agents"]);
                let (code, out, err) = run(&env, &args);
                let refused = !matches!(o, None);
                let what = format!("{o:?} neighbour={with_clean_neighbour} {format}");
                assert_eq!(code != 0, refused, "{what}: exit {code}\n{out}{err}");
                if format == "json" {
                    let doc: Value = serde_json::from_str(&out)
                        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}):\n{out}{err}"));
                    assert_eq!(
                        doc["summary"]["not_written"],
                        u64::from(refused),
                        "{what}: {}",
                        doc["summary"]
                    );
                    continue;
                }
                let summary = out
                    .lines()
                    .find(|l| l.contains("converted to tintinweb"))
                    .unwrap_or_else(|| panic!("{what}: no summary line:\n{out}{err}"));
                assert_eq!(
                    summary.contains("NOT WRITTEN"),
                    refused,
                    "{what}: {summary}"
                );
                if refused && with_clean_neighbour {
                    assert!(
                        summary.contains("2 files converted")
                            && summary.contains("1 of them NOT WRITTEN"),
                        "{what}: {summary}"
                    );
                }
            }
        }
    }
    assert_eq!(cases, 24);
}

/// N32: the converted file keeps the source's line ending, whatever the target
/// host and whether it is written `--in-place` or `--out`: a CRLF file is CRLF
/// throughout (frontmatter, fence, body), an LF file has no `\r` at all.
#[test]
fn convert_keeps_the_line_ending_of_the_source() {
    let targets = [
        "tintinweb",
        "nicobailon",
        "herdr",
        "opencode",
        "gemini",
        "copilot",
        "pi-example",
    ];
    let sources = [
        CLAUDE_ROLE.to_string(),
        // A comment kept with its key, a quoted value, an empty body line.
        "---\nname: a\ndescription: \"Reviews: code\" # why\ntools: Read\nmaxTurns: 5\n---\n\nBody.\n"
            .to_string(),
    ];
    let mut written = 0;
    let mut cases = 0;
    for to in targets {
        for (i, src) in sources.iter().enumerate() {
            for crlf in [false, true] {
                for in_place in [false, true] {
                    cases += 1;
                    let env = claude_project(&[]);
                    let text = if crlf {
                        src.replace('\n', "\r\n")
                    } else {
                        src.clone()
                    };
                    env.write(".claude/agents/a.md", &text);
                    let mut args = vec!["convert", "--from", "claude-code", "--to", to];
                    if in_place {
                        args.push("--in-place");
                    } else {
                        args.extend(["--out", "out"]);
                    }
                    args.push(".claude/agents/a.md");
                    let (_, out, err) = run(&env, &args);
                    let what = format!("to {to}, source {i}, crlf={crlf}, in_place={in_place}");
                    let written_to = if in_place {
                        env.path(".claude/agents/a.md")
                    } else {
                        env.path("out/a.md")
                    };
                    let Ok(got) = std::fs::read(&written_to) else {
                        continue;
                    };
                    if got == text.as_bytes() {
                        continue; // not converted in place (refused): nothing to check
                    }
                    written += 1;
                    let lf = got.iter().filter(|b| **b == b'\n').count();
                    let crlfs = got.windows(2).filter(|w| w == b"\r\n").count();
                    let cr = got.iter().filter(|b| **b == b'\r').count();
                    if crlf {
                        assert_eq!(
                            (crlfs, cr),
                            (lf, lf),
                            "{what}: mixed line endings:\n{:?}\n{out}{err}",
                            String::from_utf8_lossy(&got)
                        );
                    } else {
                        assert_eq!(
                            cr,
                            0,
                            "{what}: a \\r in an LF file:\n{:?}",
                            String::from_utf8_lossy(&got)
                        );
                    }
                }
            }
        }
    }
    assert_eq!(cases, 56);
    assert!(
        written >= 40,
        "only {written} of {cases} variants were written"
    );
}

/// N32: a model mapped twice to different names is an error naming both (exit 2,
/// nothing written), however the flags are spelled and ordered; the same pair
/// twice, or different models, are fine.
#[test]
fn a_model_mapped_twice_is_an_error_not_the_last_one() {
    let cases: &[(&[&str], bool)] = &[
        (&["sonnet=a/x", "sonnet=a/y"], true),
        (&["sonnet=a/x", "opus=b/z", "sonnet=a/y"], true),
        (&["sonnet=a/x", " sonnet = a/y "], true),
        (&["sonnet=a/y", "sonnet=a/x"], true),
        (&["sonnet=a/x", "sonnet=a/x"], false),
        (&["sonnet=a/x", "opus=a/x"], false),
        (&["sonnet=a/x"], false),
    ];
    for (maps, fires) in cases {
        let env = claude_project(&[]);
        env.write(
            ".claude/agents/a.md",
            "---\nname: a\ndescription: d\nmodel: sonnet\ntools: Read\n---\nBody.\n",
        );
        let mut args = vec![
            "convert",
            "--from",
            "claude-code",
            "--to",
            "tintinweb",
            "--out",
            "out",
        ];
        for m in *maps {
            args.extend(["--model-map", m]);
        }
        args.push(".claude/agents/a.md");
        let (code, out, err) = run(&env, &args);
        let what = format!("{maps:?}: exit {code}\n{out}{err}");
        if *fires {
            assert_eq!(code, 2, "{what}");
            assert!(
                err.contains("given twice") && err.contains("a/x") && err.contains("a/y"),
                "{what}"
            );
            assert!(!env.path("out/a.md").exists(), "{what}");
        } else {
            assert!(code != 2, "{what}");
            assert!(env.read("out/a.md").contains("model: a/x"), "{what}");
        }
    }
}

/// N33: an `exclude` that leaves out every file a bare `pwk lint` (or a named
/// directory) would lint says so, names where it is written, and does not send
/// the user to `--recursive`; an `exclude` that leaves something keeps the lint.
#[test]
fn an_exclude_that_leaves_nothing_says_it_did() {
    let all = [
        "**",
        "*.md",
        "**/*.md",
        "/.pi/",
        ".pi/**",
        "a.md",
        ".pi/agents/a.md",
        "a.*",
    ];
    let some = ["b.md", "other/**", "*.txt", "/a.md"];
    let mut cases = 0;
    for (glob, fires) in all
        .iter()
        .map(|g| (g, true))
        .chain(some.iter().map(|g| (g, false)))
    {
        for args in [&["lint"][..], &["lint", ".pi/agents"][..]] {
            cases += 1;
            let env = claude_project(&[]);
            env.write(
                ".pi/agents/a.md",
                "---\nname: a\ndescription: d\ntools: read\n---\nBody.\n",
            );
            env.write(
                "pwk.toml",
                format!("host = \"tintinweb\"\nexclude = [\"{glob}\"]\n"),
            );
            let (code, out, err) = run(&env, args);
            let what = format!("exclude {glob:?}, {args:?}: exit {code}\n{out}{err}");
            if fires {
                assert_eq!(code, 2, "{what}");
                assert!(
                    err.contains("`exclude`") && err.contains("pwk.toml:2"),
                    "{what}"
                );
                assert!(!err.contains("--recursive"), "{what}");
            } else {
                assert_eq!(code, 0, "{what}");
            }
        }
    }
    assert_eq!(cases, 24);
}

/// N33: a configuration that is a symbolic link — the project's `pwk.toml` or
/// `.pwk.toml`, an `extend` target, to a file or to nothing — is refused with the
/// two ways to name the real file; a regular file is read.
#[test]
fn a_symlinked_configuration_says_how_to_name_the_file() {
    let mut cases = 0;
    for name in ["pwk.toml", ".pwk.toml"] {
        for how in ["file", "dangling", "extend", "regular"] {
            cases += 1;
            let env = claude_project(&[]);
            env.write(
                ".pi/agents/a.md",
                "---\nname: a\ndescription: d\ntools: read\n---\nBody.\n",
            );
            env.write("real/base.toml", "host = \"tintinweb\"\n");
            match how {
                "file" => symlink(env.path("real/base.toml"), env.path(name)).unwrap(),
                "dangling" => symlink(env.path("real/none.toml"), env.path(name)).unwrap(),
                "extend" => {
                    symlink(env.path("real/base.toml"), env.path("real/link.toml")).unwrap();
                    env.write(name, "extend = \"real/link.toml\"\n");
                }
                _ => {
                    env.write(name, "host = \"tintinweb\"\n");
                }
            }
            let (code, out, err) = run(&env, &["lint", ".pi/agents/a.md"]);
            let what = format!("{name} {how}: exit {code}\n{out}{err}");
            if how == "regular" {
                assert_eq!(code, 0, "{what}");
                continue;
            }
            assert_eq!(code, 2, "{what}");
            if how != "dangling" {
                assert!(
                    err.contains("symbolic link") && err.contains("--config"),
                    "{what}"
                );
            }
        }
    }
    assert_eq!(cases, 8);
}

/// N33: a configuration's own text echoed in a message (an invalid glob in
/// `exclude`, `paths` or an override's `files`, an unknown key at the top, in
/// `[rules]`'s neighbours or in `[delegate] budget`, an unknown host) is shown
/// whole when short and clipped, with its length, when long: every place × every
/// length, the message always under 1 KB of the text.
#[test]
fn a_configurations_long_text_is_clipped_in_messages() {
    type Place = (&'static str, fn(&str) -> String);
    let places: &[Place] = &[
        ("exclude glob", |t| format!("exclude = [\"{t}[\"]\n")),
        ("paths glob", |t| format!("paths = [\"{t}[\"]\n")),
        ("override glob", |t| {
            format!("[[overrides]]\nfiles = [\"{t}[\"]\nrules = {{ crlf = \"off\" }}\n")
        }),
        ("top key", |t| format!("{t} = 1\n")),
        ("budget key", |t| {
            format!("[delegate]\nbudget = {{ {t} = 1 }}\n")
        }),
        ("host", |t| format!("host = \"{t}\"\n")),
    ];
    let mut cases = 0;
    for (place, toml) in places {
        for len in [8usize, 79, 81, 500, 6000] {
            cases += 1;
            let text: String = "q".repeat(len);
            let env = claude_project(&[]);
            env.write(
                ".pi/agents/a.md",
                "---\nname: a\ndescription: d\ntools: read\n---\nBody.\n",
            );
            env.write("pwk.toml", toml(&text));
            let (code, out, err) = run(&env, &["lint", ".pi/agents/a.md"]);
            let what = format!(
                "{place} × {len}: exit {code}\n{out}{}",
                &err[..err.len().min(400)]
            );
            assert_eq!(code, 2, "{what}");
            assert!(
                err.len() < text.len().min(80) + 1024,
                "{what}: {} bytes",
                err.len()
            );
            if len <= 80 {
                assert!(err.contains(&text), "{what}: the text is not shown whole");
            } else {
                assert!(
                    err.contains(&format!("({len} characters)"))
                        || err.contains(&format!("({} characters)", len + 1)),
                    "{what}: the clipped text does not say its length"
                );
            }
        }
    }
    assert_eq!(cases, 30);
}

/// N34: a `[delegate] budget` value that is NaN or infinite (every TOML spelling)
/// is refused by its own name, never as `null`, for every budget key; finite
/// positive values are taken.
#[test]
fn a_non_finite_budget_value_is_named_as_written() {
    let keys = ["max_cost_usd", "max_tokens", "max_wall_seconds"];
    let bad = [
        ("nan", "nan"),
        ("+nan", "nan"),
        ("-nan", "nan"),
        ("inf", "inf"),
        ("+inf", "inf"),
        ("-inf", "-inf"),
    ];
    let mut cases = 0;
    for key in keys {
        for (value, word) in bad {
            cases += 1;
            let env = claude_project(&[]);
            env.write(
                "pwk.toml",
                format!("[delegate]\nbudget = {{ {key} = {value} }}\n"),
            );
            let (code, out, err) = run(&env, &["config"]);
            let what = format!("{key} = {value}: exit {code}\n{out}{err}");
            assert_eq!(code, 2, "{what}");
            assert!(
                err.contains(&format!("not {word}")) && !err.contains("null"),
                "{what}"
            );
        }
        let env = claude_project(&[]);
        let ok = if key == "max_cost_usd" { "1.5" } else { "60" };
        env.write(
            "pwk.toml",
            format!("[delegate]\nbudget = {{ {key} = {ok} }}\n"),
        );
        let (code, out, err) = run(&env, &["config"]);
        assert_eq!(code, 0, "{key} = {ok}: {out}{err}");
    }
    assert_eq!(cases, 18);
}

/// N36: a `baseline` path with `..` at any depth (and `.`, and an absolute path
/// through `..`) is shown resolved, never as `/../etc/shadow`-like text, and
/// `--write-baseline` writes nothing outside the project.
#[test]
fn a_baseline_path_is_shown_resolved_at_every_depth() {
    let mut cases = 0;
    for depth in 1..=10 {
        for tail in ["etc/shadow", "./x/../y.json", "x.json"] {
            cases += 1;
            let env = claude_project(&[]);
            env.write(
                ".pi/agents/a.md",
                "---\nname: a\ndescription: d\ntools: read\n---\nBody.\n",
            );
            let value = format!("{}{tail}", "../".repeat(depth));
            env.write("pwk.toml", format!("baseline = \"{value}\"\n"));
            let (code, out, err) = run(&env, &["lint", "--write-baseline", ".pi/agents/a.md"]);
            let what = format!("baseline = {value:?}: exit {code}\n{out}{err}");
            assert_eq!(code, 2, "{what}");
            for bad in ["/../", "/./"] {
                assert!(!err.contains(bad), "{what}: unresolved `{bad}`");
            }
            let (_, config, _) = run(&env, &["config"]);
            let line = config
                .lines()
                .find(|l| l.starts_with("baseline"))
                .unwrap_or_default();
            assert!(
                !line.contains("/../") && !line.contains("/./"),
                "{what}\n{line}"
            );
        }
    }
    assert_eq!(cases, 30);
}
