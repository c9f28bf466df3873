//! Every command shown in the README and the book (`docs/src/`) runs, and prints what the
//! page says it prints (trycmd-style, with a small in-repo runner).
//!
//! A ```` ```console ```` block is a transcript run in a fresh temporary project:
//! - `$ cat PATH` followed by lines *defines* the file PATH (relative to the project
//!   root) with those lines: the reader sees the file, the test writes it (trailing
//!   empty lines dropped). When a `pwk` step has written or changed PATH since, the
//!   lines are instead *checked* against the file (`--fix`, `--write-baseline`);
//! - `$ pwk ARGS…` runs the built binary (arguments split like a shell would, with
//!   quotes; no pipes, redirects or variables) and the lines that follow are its
//!   stdout and stderr as they interleave; a last line `exit N` is the exit status
//!   (without it, 0). A ` # …` after the arguments is a comment.
//! - Any other command is an error: show it in a ```` ```sh ```` block instead.
//!
//! A block whose fence says ```` ```console fixture=DIR ```` starts from a copy of
//! `fixtures/DIR/`. The environment is pinned: `HOME` (and so pi's agent dir) is an
//! empty directory inside the project, no `PWK_*`/`PI_*` variables or `COLUMNS`, `NO_COLOR=1`,
//! and `PWK_PI_BIN` names a file that does not exist, so no command can start pi.
//! The project's path is shown as `[ROOT]`.
//!
//! Only commands that run offline and fast belong there. After a behaviour change:
//! `PWK_WRITE_DOCS=1 cargo test --test cli docs_commands` rewrites the expected
//! output in place (review the diff before committing).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{TestEnv, repo_root};

/// One `$ …` line of a block and what follows it.
struct Step {
    /// 0-based line of the `$` line in the page.
    line: usize,
    argv: Vec<String>,
    /// The lines after the `$` line, up to the next `$` line or the closing fence.
    body: Vec<String>,
}

struct Block {
    fixture: Option<String>,
    steps: Vec<Step>,
}

/// The pages whose console blocks are run: README.md and every page of the book.
fn pages() -> Vec<PathBuf> {
    let root = repo_root();
    let mut out = vec![root.join("README.md")];
    let mut stack = vec![root.join("docs/src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read docs/src") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Split a command line into words: whitespace separates, `'…'` and `"…"` quote
/// (a `\` escapes the next character inside `"…"` and outside quotes), an unquoted
/// `#` after whitespace starts a comment.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '#' if !in_word => break,
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err("unterminated '".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => cur.extend(chars.next()),
                        Some(c) => cur.push(c),
                        None => return Err("unterminated \"".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.extend(chars.next());
            }
            '|' | '>' | '<' | ';' | '&' | '$' | '`' | '*' | '?' => {
                return Err(format!("`{c}` needs a shell; the runner has none"));
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// The console blocks of one page.
fn parse(text: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let Some(info) = line.strip_prefix("```console") else {
            i += 1;
            continue;
        };
        let fixture = info
            .split_whitespace()
            .find_map(|w| w.strip_prefix("fixture="))
            .map(str::to_string);
        let mut steps: Vec<Step> = Vec::new();
        i += 1;
        loop {
            let Some(&line) = lines.get(i) else {
                return Err(format!("line {}: unterminated console block", i + 1));
            };
            if line.starts_with("```") {
                break;
            }
            if let Some(cmd) = line.strip_prefix("$ ") {
                let argv = split_words(cmd).map_err(|e| format!("line {}: {e}", i + 1))?;
                steps.push(Step {
                    line: i,
                    argv,
                    body: Vec::new(),
                });
            } else if let Some(step) = steps.last_mut() {
                step.body.push(line.to_string());
            } else {
                return Err(format!(
                    "line {}: a console block starts with a `$ ` line",
                    i + 1
                ));
            }
            i += 1;
        }
        blocks.push(Block { fixture, steps });
        i += 1;
    }
    Ok(blocks)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create fixture dir");
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.expect("dir entry");
        let dest = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy fixture file");
        }
    }
}

/// Run `pwk` in `env` with stdout and stderr on one pipe (so they interleave as on a
/// terminal), stdin closed, at most 60 s.
fn run_pwk(env: &TestEnv, args: &[String]) -> (String, i32) {
    use std::io::Read;
    let (mut reader, writer) = std::io::pipe().expect("pipe");
    let mut cmd = env.pwk();
    cmd.args(args)
        .env("PWK_PI_BIN", env.path("no-pi-here"))
        // Help text is wrapped to the terminal (none here) or to `COLUMNS`.
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .stdout(writer.try_clone().expect("clone pipe"))
        .stderr(writer);
    let mut child = cmd.spawn().expect("spawn pwk");
    drop(cmd);
    let collect = std::thread::spawn(move || {
        let mut out = Vec::new();
        reader.read_to_end(&mut out).expect("read output");
        out
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("`pwk {}` ran for more than 60 s", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = collect.join().expect("reader thread");
    (
        String::from_utf8_lossy(&out).into_owned(),
        status.code().unwrap_or(-1),
    )
}

/// `out` as the page shows it: the project's path as `[ROOT]`, no trailing
/// whitespace on a line, no trailing empty lines.
fn normalise(out: &str, env: &TestEnv) -> Vec<String> {
    let mut text = out.to_string();
    let root = env.root();
    let mut roots = vec![root.display().to_string()];
    if let Ok(real) = root.canonicalize() {
        roots.push(real.display().to_string());
    }
    roots.sort_by_key(|r| std::cmp::Reverse(r.len()));
    for r in roots {
        text = text.replace(&r, "[ROOT]");
    }
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// The expected lines and exit status a step's body states.
fn expected(body: &[String]) -> (Vec<String>, i32) {
    let mut lines: Vec<String> = body.iter().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let code = lines
        .last()
        .and_then(|l| l.strip_prefix("exit "))
        .and_then(|n| n.parse::<i32>().ok());
    match code {
        Some(code) => {
            lines.pop();
            (lines, code)
        }
        None => (lines, 0),
    }
}

/// Runs one page's blocks; returns the failures and, for the rewrite mode, the page
/// with every step's output replaced by what the command printed.
fn check_page(path: &Path, text: &str) -> (Vec<String>, String) {
    let rel = path
        .strip_prefix(repo_root())
        .unwrap_or(path)
        .display()
        .to_string();
    let blocks = match parse(text) {
        Ok(b) => b,
        Err(e) => return (vec![format!("{rel}: {e}")], text.to_string()),
    };
    let mut failures = Vec::new();
    // (first body line, body length, replacement) per pwk step, in page order.
    let mut edits: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for block in &blocks {
        let env = TestEnv::new();
        // What each `$ cat` step wrote, to tell a file the page defines from one pwk wrote.
        let mut defined: std::collections::HashMap<String, String> = Default::default();
        if let Some(fixture) = &block.fixture {
            copy_dir(&repo_root().join("fixtures").join(fixture), env.root());
        }
        for step in &block.steps {
            let at = format!("{rel}:{}", step.line + 1);
            match step.argv.first().map(String::as_str) {
                Some("cat") if step.argv.len() == 2 => {
                    let rel = &step.argv[1];
                    let on_disk = std::fs::read_to_string(env.path(rel)).ok();
                    let pwk_wrote_it = on_disk.is_some() && on_disk != defined.get(rel).cloned();
                    if pwk_wrote_it {
                        // A file a `pwk` step wrote or changed: the page shows it.
                        let actual = normalise(on_disk.as_deref().unwrap_or(""), &env);
                        let (want, _) = expected(&step.body);
                        let mut want = want;
                        if want.last().is_some_and(|l| l.starts_with("exit ")) {
                            want.pop();
                        }
                        if actual != want {
                            let diff = similar::TextDiff::from_lines(
                                format!("{}\n", want.join("\n")),
                                format!("{}\n", actual.join("\n")),
                            )
                            .unified_diff()
                            .header("the page", "the file pwk wrote")
                            .to_string();
                            failures.push(format!("{at}: `cat {rel}`\n{diff}"));
                        }
                        edits.push((step.line + 1, step.body.len(), actual));
                    } else {
                        let mut content = step.body.join("\n");
                        while content.ends_with('\n') {
                            content.pop();
                        }
                        content.push('\n');
                        env.write(rel, &content);
                        defined.insert(rel.clone(), content);
                    }
                }
                Some("pwk") => {
                    let (out, code) = run_pwk(&env, &step.argv[1..]);
                    let actual = normalise(&out, &env);
                    let (want, want_code) = expected(&step.body);
                    let mut replacement = actual.clone();
                    if code != 0 {
                        replacement.push(format!("exit {code}"));
                    }
                    if actual != want || code != want_code {
                        let diff = similar::TextDiff::from_lines(
                            format!("{}\nexit {want_code}\n", want.join("\n")),
                            format!("{}\nexit {code}\n", actual.join("\n")),
                        )
                        .unified_diff()
                        .header("the page", "pwk printed")
                        .to_string();
                        failures.push(format!("{at}: `{}`\n{diff}", step.argv.join(" ")));
                    }
                    edits.push((step.line + 1, step.body.len(), replacement));
                }
                _ => failures.push(format!(
                    "{at}: `{}` is neither `pwk …` nor `cat FILE`: a console block runs \
                     only those (use a ```sh block for commands that are not run)",
                    step.argv.join(" ")
                )),
            }
        }
    }
    // Rewrite from the end so earlier line numbers stay valid.
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for (start, len, replacement) in edits.into_iter().rev() {
        // Keep a step's trailing blank lines (they separate it from the next `$`).
        let body = &lines[start..start + len];
        let blanks = body
            .iter()
            .rev()
            .take_while(|l| l.trim().is_empty())
            .count();
        let mut new = replacement;
        new.extend(std::iter::repeat_n(String::new(), blanks.min(len)));
        lines.splice(start..start + len, new);
    }
    let mut rewritten = lines.join("\n");
    if text.ends_with('\n') {
        rewritten.push('\n');
    }
    (failures, rewritten)
}

#[test]
fn every_console_block_in_readme_and_book_prints_what_it_shows() {
    let write = std::env::var_os("PWK_WRITE_DOCS").is_some();
    let mut failures = Vec::new();
    let mut steps = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("read page");
        if !text.contains("```console") {
            continue;
        }
        steps += parse(&text).map_or(0, |b| b.iter().map(|b| b.steps.len()).sum());
        let (fails, rewritten) = check_page(&page, &text);
        if write && rewritten != text {
            std::fs::write(&page, rewritten).expect("rewrite page");
        } else {
            failures.extend(fails);
        }
    }
    assert!(
        steps >= 10,
        "only {steps} console steps found in README and docs/src"
    );
    assert!(
        failures.is_empty(),
        "{} console step(s) in the docs do not match pwk; after checking that pwk is right, \
         run `PWK_WRITE_DOCS=1 cargo test --test cli docs_commands`:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_runner_splits_like_a_shell_and_refuses_what_needs_one() {
    assert_eq!(
        split_words(r#"pwk recon --topic "session persistence" --x 'a b' c\ d  # why"#).unwrap(),
        [
            "pwk",
            "recon",
            "--topic",
            "session persistence",
            "--x",
            "a b",
            "c d"
        ]
    );
    assert!(split_words("pwk lint > out.txt").is_err());
    assert!(split_words("pwk lint | head").is_err());
    assert!(split_words("pwk show $NAME").is_err());
    let page = "text\n```console\n$ cat a.md\nhello\n$ pwk --version\npwk 0.1.0\nexit 1\n```\n";
    let blocks = parse(page).unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].steps.len(), 2);
    assert_eq!(blocks[0].steps[1].line, 4);
    assert_eq!(
        expected(&blocks[0].steps[1].body),
        (vec!["pwk 0.1.0".to_string()], 1)
    );
    assert!(parse("```console\nno dollar\n```\n").is_err());
    assert!(parse("```console\n$ pwk lint\n").is_err());
}

/// The rewrite mode replaces a stale transcript with what pwk prints, and a page that
/// is current comes back unchanged.
#[test]
fn the_rewrite_mode_refreshes_a_stale_transcript() {
    let page = "# t\n\n```console\n$ pwk rules no-such-rule-xyz\nstale text\n\n$ pwk --version\nold\n```\nafter\n";
    let (fails, rewritten) = check_page(Path::new("page.md"), page);
    assert_eq!(fails.len(), 2, "{fails:?}");
    let (fails, again) = check_page(Path::new("page.md"), &rewritten);
    assert!(fails.is_empty(), "{fails:?}\n{rewritten}");
    assert_eq!(again, rewritten);
    assert!(rewritten.contains("exit 2"), "{rewritten}");
    assert!(
        rewritten.contains(&format!("pwk {}", env!("CARGO_PKG_VERSION"))),
        "{rewritten}"
    );
    assert!(rewritten.ends_with("```\nafter\n"), "{rewritten}");
}
