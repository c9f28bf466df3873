//! The layers of `src/`, as a test: every `crate::…` and `super::…` path in the
//! source is read (comments, strings and character literals blanked first), each
//! file is mapped to its top-level module and that module to a layer, and the test
//! fails on
//! - an import of a module in a higher layer than the importer's
//!   (`imports_point_down`),
//! - a circle between top-level modules (`no_circles_between_modules`),
//! - a circle between the files or folders of one module
//!   (`no_circles_inside_a_module`),
//!
//! naming each offending `file:line`. The order is the one drawn in
//! `docs/src/architecture.md` (`the_documented_layers_are_the_tested_ones` keeps the
//! two equal). A module may import any module in its own layer or below, as long
//! as no circle forms.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::support::repo_root;

/// The layers, top first. A module may import its own layer and the layers below.
/// A new top-level module must be placed here (and in `docs/src/architecture.md`).
pub const LAYERS: &[(&str, &[&str])] = &[
    // The crate root: the module list and the re-exports `main.rs` uses.
    ("entry", &["lib", "main"]),
    // The only code that sees clap types, `Context`, anyhow and exit codes.
    ("commands", &["commands"]),
    // What only the commands see: the clap types and the per-process context.
    ("edge", &["cli", "context"]),
    // The long-running front ends over the features.
    ("servers", &["lsp", "mcp"]),
    // Requests → role runs through `delegate`, roles mapped through `discover`.
    ("provider", &["provider", "verify"]),
    // The Project every front end takes: root, configuration, host, file set.
    ("project", &["project"]),
    // pwk.toml: read, merged, validated against the rule registry.
    ("config", &["config"]),
    // What pwk does with roles.
    ("features", &["lint", "discover", "convert", "install"]),
    // Running pi: requests, supervision, transports, results.
    ("delegate", &["delegate"]),
    // What a role is, what a host reads, how pi is run, how files are touched.
    ("base", &["host", "role", "pi", "fs", "roles"]),
    // Small helpers with no knowledge of roles or hosts.
    (
        "leaf",
        &[
            "severity", "display", "text", "env", "json", "suggest", "exit", "meter", "testing",
        ],
    ),
];

/// One `crate::`/`super::` path in the source.
#[derive(Debug, Clone)]
pub struct Reference {
    /// `src/…` relative path.
    pub file: String,
    pub line: usize,
    /// The module the path is written in (file module + inline `mod`s).
    pub from: Vec<String>,
    /// The deepest module (a file) the path names.
    pub to: Vec<String>,
}

impl Reference {
    fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// The module path of a file under `src/`: `lint/rules/mod.rs` → `[lint, rules]`,
/// `text.rs` → `[text]`, `lib.rs` → `[lib]`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().map(String::as_str) == Some("mod") {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read src dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Blank comments, string literals (plain, byte, raw) and character literals,
/// keeping every newline, so positions and line numbers stay.
pub fn blank_non_code(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if b[i..].starts_with(b"//") {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, i);
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if (c == b'r' || c == b'b')
            && (i == 0 || !ident(b[i - 1]))
            && raw_start(&b[i..]).is_some()
        {
            let (skip, hashes) = raw_start(&b[i..]).unwrap();
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let body = i + skip;
            let end = b[body..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |p| body + p + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            blank(&mut out, i, end);
            i = end;
        } else if c == b'\'' {
            // A character literal ('x', '\n', '\u{1F600}', 'é'), not a lifetime ('a).
            if b.get(i + 1) == Some(&b'\\') {
                let end = b[(i + 3).min(b.len())..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map_or(b.len(), |p| i + 3 + p + 1);
                blank(&mut out, i, end);
                i = end;
            } else if let Some(ch) = src[i + 1..].chars().next()
                && src[i + 1 + ch.len_utf8()..].starts_with('\'')
            {
                let end = i + 1 + ch.len_utf8() + 1;
                blank(&mut out, i, end);
                i = end;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    // Only ASCII bytes were replaced, and only inside literals or comments whose
    // multi-byte characters were all replaced whole, so this stays UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `r"`, `r#"`, `br"`, `b"`…: (length of the opener, number of `#`).
fn raw_start(b: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    if b.first() == Some(&b'b') {
        i += 1;
        if b.get(i) == Some(&b'"') {
            return Some((i + 1, 0));
        }
    }
    if b.get(i) != Some(&b'r') {
        return None;
    }
    i += 1;
    let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
    i += hashes;
    (b.get(i) == Some(&b'"')).then_some((i + 1, hashes))
}

/// Expand a use tree (`a::{b, c::{d as e, *}}`) into its paths, segments only
/// (`self`, `*` and `as` aliases dropped).
pub fn expand_tree(tree: &str) -> Vec<Vec<String>> {
    fn rec(prefix: &[String], s: &str, out: &mut Vec<Vec<String>>) {
        let s = s.trim();
        let segs = |t: &str| -> Vec<String> {
            t.split("::")
                .map(|x| x.split_whitespace().next().unwrap_or("").to_string())
                .filter(|x| !x.is_empty() && x != "self" && x != "*")
                .collect()
        };
        let Some(open) = s.find('{') else {
            let mut p = prefix.to_vec();
            p.extend(segs(s));
            out.push(p);
            return;
        };
        let mut head = prefix.to_vec();
        head.extend(segs(&s[..open]));
        let inner = &s[open + 1..s.rfind('}').unwrap_or(s.len())];
        let (mut depth, mut start) = (0i32, 0);
        for (k, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    if !inner[start..k].trim().is_empty() {
                        rec(&head, &inner[start..k], out);
                    }
                    start = k + 1;
                }
                _ => {}
            }
        }
        if !inner[start..].trim().is_empty() {
            rec(&head, &inner[start..], out);
        }
    }
    let mut out = Vec::new();
    rec(&[], tree, &mut out);
    out
}

/// Every `crate::`/`super::` path in one file's (blanked) text, as raw segment
/// lists from the root, with the line it starts on.
pub fn paths_in(text: &str, module: &[String]) -> Vec<(usize, Vec<String>)> {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let word_at = |i: usize| -> &str {
        let end = b[i..]
            .iter()
            .position(|&c| !ident(c))
            .map_or(b.len(), |p| i + p);
        &text[i..end]
    };
    let mut out = Vec::new();
    // Inline `mod name {`: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut line = 1;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => line += 1,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                while inline.last().is_some_and(|(_, d)| *d > depth) {
                    inline.pop();
                }
            }
            _ => {}
        }
        if !ident(c) || (i > 0 && (ident(b[i - 1]) || b[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let word = word_at(i);
        let after = i + word.len();
        if word == "mod" {
            // `mod name {` opens an inline module.
            let rest = &text[after..];
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|&c| c.is_ascii_alphanumeric() || c == '_')
                .collect();
            let tail = rest.trim_start()[name.len()..].trim_start();
            if !name.is_empty() && tail.starts_with('{') {
                inline.push((name, depth + 1));
            }
        }
        if (word == "crate" || word == "super") && text[after..].starts_with("::") {
            // The path tree: identifiers, `::`, and balanced braces (with
            // whitespace, commas, `as` and `*` inside them).
            let (mut j, mut d) = (i, 0i32);
            while j < b.len() {
                let ch = b[j];
                if ch == b'{' {
                    d += 1;
                } else if ch == b'}' {
                    if d == 0 {
                        break;
                    }
                    d -= 1;
                } else if d == 0 && !(ident(ch) || ch == b':') {
                    break;
                }
                j += 1;
            }
            let here: Vec<String> = module
                .iter()
                .cloned()
                .chain(inline.iter().map(|(n, _)| n.clone()))
                .collect();
            for segs in expand_tree(&text[i..j]) {
                let mut base = here.clone();
                let mut rest = segs.as_slice();
                if rest.first().map(String::as_str) == Some("crate") {
                    base.clear();
                    rest = &rest[1..];
                } else {
                    while rest.first().map(String::as_str) == Some("super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                }
                base.extend(rest.iter().cloned());
                out.push((line, base));
            }
            // Count the newlines inside a multi-line tree.
            line += text[i..j].matches('\n').count();
            i = j;
            continue;
        }
        i = after;
    }
    out
}

/// Every reference in `src/`, resolved to the deepest module file it names.
pub fn references(src: &Path) -> Vec<Reference> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(src).unwrap()))
        .collect();
    // `crate::Context` and the like: the root's `pub use module::Item`.
    let lib = blank_non_code(&std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs"));
    let mut root_items: BTreeMap<String, String> = BTreeMap::new();
    for stmt in lib.split(';') {
        let stmt = stmt.trim();
        if let Some(tree) = stmt.strip_prefix("pub use ") {
            for segs in expand_tree(tree) {
                if segs.len() >= 2 {
                    root_items.insert(segs.last().unwrap().clone(), segs[0].clone());
                }
            }
        }
    }
    let mut out = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(src).unwrap();
        let mut from = module_of(rel);
        if from == ["lib"] || from == ["main"] {
            from.clear();
        }
        let text = blank_non_code(&std::fs::read_to_string(f).expect("read source"));
        for (line, path) in paths_in(&text, &from) {
            let mut to: Vec<String> = Vec::new();
            for seg in &path {
                let mut next = to.clone();
                next.push(seg.clone());
                if modules.contains(&next) {
                    to = next;
                } else {
                    break;
                }
            }
            if to.is_empty() {
                match path.first().and_then(|s| root_items.get(s)) {
                    Some(m) => to.push(m.clone()),
                    None => continue,
                }
            }
            out.push(Reference {
                file: format!("src/{}", rel.display()),
                line,
                from: from.clone(),
                to,
            });
        }
    }
    out
}

/// The top-level modules: `src/<name>.rs` and `src/<name>/`.
fn rust_top_modules(src: &Path) -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .iter()
        .map(|f| module_of(f.strip_prefix(src).unwrap())[0].clone())
        .collect()
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, ms)| ms.contains(&module))
}

fn top(path: &[String]) -> &str {
    path.first().map_or("lib", String::as_str)
}

/// The references that go from a module to a module in a higher layer, and the
/// top-level modules that have no layer.
pub fn upward(refs: &[Reference]) -> (Vec<String>, BTreeSet<String>) {
    let mut bad = Vec::new();
    let mut unplaced = BTreeSet::new();
    for r in refs {
        let (from, to) = (top(&r.from), top(&r.to));
        if from == to {
            continue;
        }
        let (Some(lf), Some(lt)) = (layer_of(from), layer_of(to)) else {
            for m in [from, to] {
                if layer_of(m).is_none() {
                    unplaced.insert(m.to_string());
                }
            }
            continue;
        };
        if lt < lf {
            bad.push(format!(
                "{}: `{from}` ({}) imports `{to}` ({}), a higher layer",
                r.at(),
                LAYERS[lf].0,
                LAYERS[lt].0
            ));
        }
    }
    (bad, unplaced)
}

/// The strongly connected components with more than one node of a graph whose
/// edges carry the references that make them.
fn circles(edges: &BTreeMap<(String, String), Vec<String>>) -> Vec<Vec<String>> {
    let mut adj: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        adj.entry(a).or_default().push(b);
        adj.entry(b).or_default();
    }
    // Tarjan, iteratively.
    struct St<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
        next: usize,
    }
    fn visit<'a>(v: &'a str, adj: &BTreeMap<&'a str, Vec<&'a str>>, st: &mut St<'a>) {
        st.index.insert(v, st.next);
        st.low.insert(v, st.next);
        st.next += 1;
        st.stack.push(v);
        st.on.insert(v);
        for &w in &adj[v] {
            if !st.index.contains_key(w) {
                visit(w, adj, st);
                let lw = st.low[w];
                let lv = st.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if st.on.contains(w) {
                let iw = st.index[w];
                let lv = st.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if st.low[v] == st.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = st.stack.pop().unwrap();
                st.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                st.out.push(comp);
            }
        }
    }
    let mut st = St {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
        next: 0,
    };
    for &v in adj.keys() {
        if !st.index.contains_key(v) {
            visit(v, &adj, &mut st);
        }
    }
    st.out
}

/// Each circle, with every edge inside it and the lines that make the edge.
fn describe(circles: &[Vec<String>], edges: &BTreeMap<(String, String), Vec<String>>) -> String {
    let mut s = String::new();
    for c in circles {
        let _ = writeln!(s, "circle of {}: {}", c.len(), c.join(", "));
        for ((a, b), at) in edges {
            if c.contains(a) && c.contains(b) {
                let more = if at.len() > 4 {
                    format!(" (+{} more)", at.len() - 4)
                } else {
                    String::new()
                };
                let _ = writeln!(
                    s,
                    "  {a} -> {b}: {}{more}",
                    at[..at.len().min(4)].join(", ")
                );
            }
        }
    }
    s
}

fn push(edges: &mut BTreeMap<(String, String), Vec<String>>, key: (String, String), at: String) {
    let lines = edges.entry(key).or_default();
    if lines.last() != Some(&at) {
        lines.push(at);
    }
}

/// Edges between top-level modules (the crate root left out: it lists them all).
pub fn module_edges(refs: &[Reference]) -> BTreeMap<(String, String), Vec<String>> {
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for r in refs {
        if r.from.is_empty() {
            continue;
        }
        let (a, b) = (top(&r.from), top(&r.to));
        if a != b {
            push(&mut edges, (a.into(), b.into()), r.at());
        }
    }
    edges
}

/// Edges between the children (files or folders) of one module, at every depth:
/// `pi::children -> pi::process`, `lint::rules::bom -> lint::rules::crlf`. A
/// parent (`mod.rs`) and its own children are left out: a parent declares its
/// children and they use its types, by design.
pub fn sibling_edges(refs: &[Reference]) -> BTreeMap<(String, String), Vec<String>> {
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for r in refs {
        let Some(d) = r.from.iter().zip(&r.to).position(|(a, b)| a != b) else {
            continue;
        };
        if d >= 1 {
            let a = r.from[..=d].join("::");
            let b = r.to[..=d].join("::");
            push(&mut edges, (a, b), r.at());
        }
    }
    edges
}

fn src_refs() -> Vec<Reference> {
    let refs = references(&repo_root().join("src"));
    // The reader must see the crate: if it found nothing, every check below
    // would pass without looking.
    assert!(
        refs.len() > 1000,
        "only {} references read from src/",
        refs.len()
    );
    for (a, b) in [("commands", "lint"), ("lint", "role"), ("delegate", "pi")] {
        assert!(
            module_edges(&refs).contains_key(&(a.to_string(), b.to_string())),
            "the reader missed `{a}` -> `{b}`"
        );
    }
    refs
}

#[test]
fn imports_point_down() {
    let refs = src_refs();
    let (bad, unplaced) = upward(&refs);
    assert!(
        unplaced.is_empty(),
        "top-level modules with no layer: {unplaced:?}; place each in LAYERS \
         (tests/cli/layers.rs) and in docs/src/architecture.md"
    );
    let present: BTreeSet<String> = rust_top_modules(&repo_root().join("src"));
    let stale: Vec<&str> = LAYERS
        .iter()
        .flat_map(|(_, ms)| ms.iter().copied())
        .filter(|m| !present.contains(*m))
        .collect();
    assert!(
        stale.is_empty(),
        "LAYERS names modules src/ does not have: {stale:?}"
    );
    let arrows: BTreeSet<&str> = bad.iter().map(|l| l.split_once(": ").unwrap().1).collect();
    assert!(
        bad.is_empty(),
        "{} imports ({} module arrows) go up the layers \
         (tests/cli/layers.rs LAYERS, docs/src/architecture.md):\n{}",
        bad.len(),
        arrows.len(),
        bad.join("\n")
    );
}

/// The layer block of `docs/src/architecture.md`: one line per layer, its name then
/// its modules.
fn documented_layers() -> Vec<(String, Vec<String>)> {
    let doc = std::fs::read_to_string(repo_root().join("docs/src/architecture.md"))
        .expect("docs/src/architecture.md");
    let begin = "<!-- layers: checked by tests/cli/layers.rs -->";
    let start = doc
        .find(begin)
        .expect("the layers marker in architecture.md")
        + begin.len();
    let end = doc[start..]
        .find("<!-- end of layers -->")
        .expect("the end marker")
        + start;
    doc[start..end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("```"))
        .map(|l| {
            let mut words = l.split_whitespace().map(str::to_string);
            (words.next().unwrap(), words.collect())
        })
        .collect()
}

#[test]
fn the_documented_layers_are_the_tested_ones() {
    let tested: Vec<(String, Vec<String>)> = LAYERS
        .iter()
        .map(|(n, ms)| (n.to_string(), ms.iter().map(|m| m.to_string()).collect()))
        .collect();
    assert_eq!(
        documented_layers(),
        tested,
        "docs/src/architecture.md's layer block and LAYERS in tests/cli/layers.rs differ"
    );
}

#[test]
fn no_circles_between_modules() {
    let edges = module_edges(&src_refs());
    let found = circles(&edges);
    assert!(
        found.is_empty(),
        "{} circles between top-level modules:\n{}",
        found.len(),
        describe(&found, &edges)
    );
}

#[test]
fn no_circles_inside_a_module() {
    let edges = sibling_edges(&src_refs());
    let found = circles(&edges);
    assert!(
        found.is_empty(),
        "{} circles between the parts of a module:\n{}",
        found.len(),
        describe(&found, &edges)
    );
}

#[test]
fn the_reader_sees_paths_as_the_compiler_does() {
    let text = blank_non_code(
        "use crate::{a::{b, c::{self, D as E}}, f::*};\n\
         // crate::commented::out\n\
         /* crate::block /* nested */ crate::still */\n\
         let s = \"crate::in_string\"; let r = r#\"crate::raw \"quoted\"\"#;\n\
         let c = '\"'; let q = '\\''; fn f<'a>(x: &'a str) {}\n\
         mod tests {\n    use super::super::g::h;\n    fn t() { crate::i::j(); }\n}\n\
         let k = super::l::m;\n",
    );
    let module = vec!["x".to_string(), "y".to_string()];
    let got: Vec<(usize, String)> = paths_in(&text, &module)
        .into_iter()
        .map(|(l, p)| (l, p.join("::")))
        .collect();
    let want: Vec<(usize, String)> = [
        (1, "a::b"),
        (1, "a::c"),
        (1, "a::c::D"),
        (1, "f"),
        (7, "x::g::h"),
        (8, "i::j"),
        (10, "x::l::m"),
    ]
    .into_iter()
    .map(|(l, p)| (l, p.to_string()))
    .collect();
    assert_eq!(got, want);
}

#[test]
fn circles_are_found_and_named() {
    let mut edges = BTreeMap::new();
    for (a, b, at) in [
        ("a", "b", "src/a.rs:1"),
        ("b", "c", "src/b.rs:2"),
        ("c", "a", "src/c.rs:3"),
        ("c", "d", "src/c.rs:4"),
    ] {
        edges.insert((a.to_string(), b.to_string()), vec![at.to_string()]);
    }
    let found = circles(&edges);
    assert_eq!(found, vec![vec!["a".to_string(), "b".into(), "c".into()]]);
    let text = describe(&found, &edges);
    assert!(text.contains("c -> a: src/c.rs:3"), "{text}");
    assert!(!text.contains("src/c.rs:4"), "{text}");
}
