//! Human and JSON output of `pwk list` and `pwk show`.

use std::path::Path;

use serde::Serialize;

use super::runtime::{LinkStatus, Runtime};
use super::{Discovery, Host, HostId, Layer, ResolvedRole, RoleFile, Shadowed};
use crate::text::{escape_block, escape_line};

/// Human output is laid out for this many columns when stdout is not a terminal.
pub(crate) const WIDTH: usize = 100;

/// ANSI styling, off unless colour is allowed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    pub color: bool,
    /// Columns to lay human output out in.
    pub width: usize,
}

impl Style {
    fn paint(self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    pub(crate) fn bold(self, s: &str) -> String {
        self.paint("1", s)
    }
    pub(crate) fn red(self, s: &str) -> String {
        self.paint("31", s)
    }
    pub(crate) fn yellow(self, s: &str) -> String {
        self.paint("33", s)
    }
    pub(crate) fn dim(self, s: &str) -> String {
        self.paint("2", s)
    }
}

/// One row of `pwk list`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ListRow {
    /// The host this row is as seen by (each host resolves its own roles).
    pub host: HostId,
    pub name: String,
    pub description: Option<String>,
    pub source: Layer,
    pub path: String,
    pub shadows: Vec<Shadowed>,
    pub hidden: bool,
    /// The host loads this file and it is the effective definition of `name`.
    pub visible: bool,
    /// The file cannot be loaded (unreadable, unparseable, or missing what the host needs).
    pub broken: bool,
    /// The file's first problem.
    pub error: Option<String>,
    /// What the user should know about this file under the host.
    pub host_notes: Vec<String>,
}

/// The rows of `pwk list`, sorted by name (the effective definition first).
pub(crate) fn list_rows(d: &Discovery, all: bool) -> Vec<ListRow> {
    let mut rows: Vec<(usize, ListRow)> = Vec::new();
    let by_path: std::collections::HashMap<&super::RolePath, &RoleFile> =
        d.files.iter().map(|f| (&f.path, f)).collect();
    for r in &d.roles {
        if r.hidden && !all {
            continue;
        }
        let f = by_path.get(&r.path);
        rows.push((
            d.source(r.source).rank,
            ListRow {
                host: d.host.host,
                name: r.name.clone(),
                description: r.role.description.clone(),
                source: r.layer,
                path: r.path.display(&d.cwd),
                shadows: r.shadows.clone(),
                hidden: r.hidden,
                visible: true,
                broken: false,
                error: f.and_then(|f| f.problem.clone()),
                host_notes: r.notes.clone(),
            },
        ));
    }
    for f in &d.files {
        let source = d.source(f.source);
        let winner = d.find(&f.identity).filter(|r| r.path == f.path).is_some();
        if winner || (f.hidden && f.loadable && !all) {
            continue;
        }
        let mut notes = Vec::new();
        if !f.loadable {
            notes.push(broken_note(d.host, f));
        } else if source.read_by_host {
            // A loadable file the host reads that did not win: it is in a winner's shadows.
            continue;
        } else if f.layer == Layer::Package && d.find(&f.identity).is_some() {
            // A built-in role the host cannot see, but an installed copy it can: nothing to say.
            continue;
        }
        if let Some(why) = &source.unread_reason {
            notes.push(format!("not visible to {}: {why}", d.host.as_str()));
        }
        rows.push((
            source.rank,
            ListRow {
                host: d.host.host,
                name: f.identity.clone(),
                description: f.role.as_ref().and_then(|r| r.description.clone()),
                source: f.layer,
                path: f.path.display(&d.cwd),
                shadows: Vec::new(),
                hidden: f.hidden,
                visible: false,
                broken: !f.loadable,
                error: f.problem.clone(),
                host_notes: notes,
            },
        ));
    }
    rows.sort_by(|(ra, a), (rb, b)| {
        a.name
            .cmp(&b.name)
            .then_with(|| b.visible.cmp(&a.visible))
            .then_with(|| rb.cmp(ra))
            .then_with(|| a.path.cmp(&b.path))
    });
    rows.into_iter().map(|(_, r)| r).collect()
}

fn broken_note(host: Host, f: &RoleFile) -> String {
    match (&f.doc, &f.role) {
        (Some(_), Some(_)) => format!("{} skips this file", host.as_str()),
        _ => "hosts skip this file".to_string(),
    }
}

/// The JSON document of `pwk list`.
#[derive(Serialize)]
pub(crate) struct ListJson<'a> {
    pub version: u32,
    /// The project's host (the first of `hosts`).
    pub host: Host,
    /// The profile, with its version (`tintinweb@0.18`), and why it was chosen.
    pub profile: String,
    pub profile_choice: &'a str,
    pub project_root: String,
    /// Every host's rows, each tagged with its host, the project's host first.
    pub roles: Vec<&'a ListRow>,
    /// Every host's directories, each tagged with its host.
    pub searched: Vec<SearchedJson>,
    pub notes: Vec<&'a str>,
    /// The hosts listed: each with its profile, why, and its own notes.
    pub hosts: Vec<HostJson<'a>>,
}

/// One host `pwk list` lists roles for.
#[derive(Serialize)]
pub(crate) struct HostJson<'a> {
    pub host: Host,
    pub profile: String,
    pub profile_choice: &'a str,
    pub notes: &'a [String],
}

#[derive(Serialize)]
pub(crate) struct SearchedJson {
    pub host: HostId,
    pub source: Layer,
    pub path: String,
    pub recursive: bool,
    pub read_by_host: bool,
    pub exists: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

pub(crate) fn searched(d: &Discovery) -> Vec<SearchedJson> {
    d.sources
        .iter()
        .map(|s| SearchedJson {
            host: d.host.host,
            source: s.layer,
            path: s.display(&d.cwd),
            recursive: s.recursive,
            read_by_host: s.read_by_host,
            exists: s.exists,
            error: s.error.clone(),
        })
        .collect()
}

pub(crate) fn root_display(d: &Discovery) -> String {
    if d.project_root == d.cwd {
        ".".to_string()
    } else {
        d.project_root.display().to_string()
    }
}

/// Truncate to `width` characters, ending in `…` when cut.
fn truncate(s: &str, width: usize) -> String {
    let s = escape_line(s);
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() <= width {
        return s;
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out = out.trim_end().to_string();
    out.push('…');
    out
}

/// Word-wrap `text` to `width`, the first line after `first`, the rest indented by `indent`.
///
/// Every human field goes through here or [`truncate`]: `text` (file contents, paths,
/// pi's configuration) is escaped, so no control character reaches the terminal.
fn wrap(first: &str, text: &str, indent: usize, width: usize) -> String {
    let text = escape_line(text);
    let mut out = String::from(first);
    let mut col = first.chars().count();
    let start = col;
    for word in text.split_whitespace() {
        let w = word.chars().count();
        if col > start && col + 1 + w > width {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            col = indent;
        } else if col > start {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += w;
    }
    out
}

/// `pwk list` for people: one section per host (`views`, the project's host
/// first, with each host's rows), then the project root and, with several hosts,
/// which ones were listed.
pub(crate) fn list_human(
    views: &[Discovery],
    rows: &[Vec<ListRow>],
    all: bool,
    style: Style,
) -> String {
    let several = views.len() > 1;
    let mut out = String::new();
    for (i, (d, rows)) in views.iter().zip(rows).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&list_section(
            d,
            rows,
            all,
            several && i > 0,
            several,
            style,
        ));
    }
    let Some(first) = views.first() else {
        return out;
    };
    if several {
        out.push('\n');
    }
    out.push_str(&root_line(first));
    if several {
        let hosts: Vec<String> = views.iter().map(|d| d.host.label()).collect();
        out.push_str(&wrap(
            "",
            &format!(
                "Listed for {} hosts: {} (each reads its own directories; `--host H` lists one).",
                views.len(),
                hosts.join(", ")
            ),
            0,
            style.width,
        ));
        out.push('\n');
    }
    out
}

/// One host's part of `pwk list`: its header (always when several hosts are
/// listed), table, summary, notes and searched directories. `secondary`: another
/// host than the project's, whose note on pwk's built-in roles is left out (the
/// project's host section says it).
fn list_section(
    d: &Discovery,
    rows: &[ListRow],
    all: bool,
    secondary: bool,
    header: bool,
    style: Style,
) -> String {
    let width = style.width;
    let mut out = String::new();
    // Built-in roles a host cannot see are summed up in one note, not listed one by one.
    let (builtin_unseen, rows): (Vec<&ListRow>, Vec<&ListRow>) = rows
        .iter()
        .partition(|r| !r.visible && !r.broken && r.source == Layer::Package);
    let hidden_marker = " (hidden)";
    let name_w = rows
        .iter()
        .map(|r| r.name.chars().count() + if r.hidden { hidden_marker.len() } else { 0 })
        .max()
        .unwrap_or(4)
        .clamp(4, 34);
    let src_w = 7;
    let indent = name_w + 2 + src_w + 2;
    let desc_w = width.saturating_sub(indent).max(20);
    if header || d.host.host != HostId::Pwk {
        out.push_str(&style.bold(&format!(
            "As {} sees them (identity: {}).",
            d.host.label(),
            d.host.identity.by.describe()
        )));
        out.push_str("\n\n");
    }
    if rows.is_empty() {
        out.push_str("No roles found.\n");
    } else {
        out.push_str(&style.bold(&format!(
            "{:<name_w$}  {:<src_w$}  DESCRIPTION",
            "NAME", "SOURCE"
        )));
        out.push('\n');
    }
    let pad = " ".repeat(indent);
    for r in rows.iter().copied() {
        let mut name = escape_line(&r.name).into_owned();
        if r.hidden {
            name.push_str(hidden_marker);
        }
        let desc = match &r.description {
            Some(desc) => truncate(desc, desc_w),
            None => "-".to_string(),
        };
        out.push_str(&format!(
            "{name:<name_w$}  {:<src_w$}  {desc}\n",
            r.source.as_str()
        ));
        out.push_str(&format!("{pad}{}\n", style.dim(&escape_line(&r.path))));
        if !r.shadows.is_empty() {
            let list: Vec<String> = r
                .shadows
                .iter()
                .map(|s| format!("{} ({})", s.path, s.source.as_str()))
                .collect();
            out.push_str(&wrap(
                &format!("{pad}shadows "),
                &list.join(", "),
                indent + 8,
                width,
            ));
            out.push('\n');
        }
        if r.broken {
            let problem = r.error.as_deref().unwrap_or("cannot be loaded");
            out.push_str(&style.red(&wrap(&format!("{pad}broken: "), problem, indent + 8, width)));
            out.push('\n');
        } else if let Some(problem) = &r.error {
            out.push_str(&style.red(&wrap(
                &format!("{pad}problem: "),
                problem,
                indent + 9,
                width,
            )));
            out.push('\n');
        }
        for note in &r.host_notes {
            if r.broken && (note.ends_with("skip this file") || note.ends_with("skips this file")) {
                continue;
            }
            out.push_str(&style.yellow(&wrap(&format!("{pad}note: "), note, indent + 6, width)));
            out.push('\n');
        }
    }
    // Summary.
    let visible: Vec<&ListRow> = rows.iter().copied().filter(|r| r.visible).collect();
    let count = |l: Layer| visible.iter().filter(|r| r.source == l).count();
    let mut summary = format!(
        "{} {}: {} project, {} global, {} package.",
        visible.len(),
        if visible.len() == 1 { "role" } else { "roles" },
        count(Layer::Project),
        count(Layer::Global),
        count(Layer::Package)
    );
    let hidden_count = d.roles.iter().filter(|r| r.hidden).count();
    if hidden_count > 0 && !all {
        summary.push_str(&format!(
            " {hidden_count} hidden {} not shown (--all lists {}).",
            if hidden_count == 1 {
                "adapter"
            } else {
                "adapters"
            },
            if hidden_count == 1 { "it" } else { "them" },
        ));
    }
    let broken = d.files.iter().filter(|f| !f.loadable).count();
    if broken > 0 {
        summary.push_str(&format!(
            " {broken} broken {}.",
            if broken == 1 { "file" } else { "files" }
        ));
    }
    let invisible = rows.iter().filter(|r| !r.visible && !r.broken).count();
    if invisible > 0 {
        summary.push_str(&format!(
            " {invisible} installed {} not visible to {}.",
            if invisible == 1 { "file" } else { "files" },
            d.host.as_str()
        ));
    }
    out.push('\n');
    out.push_str(&wrap("", &summary, 0, width));
    out.push('\n');
    if !builtin_unseen.is_empty() && !secondary {
        let names: Vec<&str> = builtin_unseen.iter().map(|r| r.name.as_str()).collect();
        let why = d
            .sources
            .iter()
            .find(|s| s.layer == Layer::Package)
            .and_then(|s| s.unread_reason.as_deref())
            .unwrap_or("built into pwk only");
        let text = format!(
            "not installed for {}: {}; {why}.",
            d.host.as_str(),
            names.join(", ")
        );
        out.push_str(&style.yellow(&wrap("note: ", &text, 6, width)));
        out.push('\n');
    }
    for note in &d.notes {
        out.push_str(&style.yellow(&wrap("note: ", note, 6, width)));
        out.push('\n');
    }
    out.push_str(&searched_human(d));
    out
}

fn searched_human(d: &Discovery) -> String {
    let mut out = String::from("\nSearched, lowest priority first:\n");
    // A host with its own CLI never reads pwk's built-in roles: not listed there.
    for s in d
        .sources
        .iter()
        .filter(|s| s.read_by_host || d.host.host.is_pi())
    {
        let state = if s.error.is_some() {
            format!("({})", s.error.as_deref().unwrap_or_default())
        } else if !s.exists {
            "(not found)".to_string()
        } else {
            String::new()
        };
        let read = if s.read_by_host {
            ""
        } else {
            " [not read by host]"
        };
        let line = format!(
            "  {:<7}  {}{read} {}",
            s.layer.as_str(),
            escape_line(&s.display(&d.cwd)),
            escape_line(&state)
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `Project root: . (it has .git).`
fn root_line(d: &Discovery) -> String {
    let marker = match d.root_marker {
        Some(m) => format!("it has {m}"),
        None => "no .git, .agents or .pi above it".to_string(),
    };
    format!(
        "Project root: {} ({marker}).\n",
        escape_line(&root_display(d))
    )
}

/// Another host that reads a role by the same name (`pwk show` describes the
/// project's host's first, and names these).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AlsoRead {
    pub host: HostId,
    pub profile: String,
    pub source: Layer,
    pub path: String,
}

impl AlsoRead {
    /// The other definitions among `found` (all but the first), as shown from `cwd`.
    pub(crate) fn others(found: &[(&Discovery, &ResolvedRole)], cwd: &Path) -> Vec<AlsoRead> {
        found
            .iter()
            .skip(1)
            .map(|(d, r)| AlsoRead {
                host: d.host.host,
                profile: d.host.label(),
                source: r.layer,
                path: r.path.display(cwd),
            })
            .collect()
    }
}

/// The JSON document of `pwk show`.
#[derive(Serialize)]
pub(crate) struct ShowJson<'a> {
    pub version: u32,
    pub host: Host,
    /// The profile, with its version (`tintinweb@0.18`), and why it was chosen.
    pub profile: String,
    pub profile_choice: &'a str,
    /// Other hosts that read a role by this name (`--host H` shows it there).
    pub also_read_by: &'a [AlsoRead],
    pub name: &'a str,
    pub description: Option<&'a str>,
    pub source: Layer,
    pub path: String,
    pub shadows: &'a [Shadowed],
    pub hidden: bool,
    pub host_notes: &'a [String],
    /// The first problem the reader found, if any.
    pub error: Option<String>,
    pub frontmatter: serde_json::Value,
    /// The frontmatter exactly as written (comments included).
    pub frontmatter_text: &'a str,
    pub body: &'a str,
    pub runtime: &'a Runtime,
    /// How `pwk review` / `pwk recon` run it, for the provider contract's roles
    /// (a value the command layer supplies; discover does not know the provider).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_run: Option<serde_json::Value>,
}

pub(crate) fn frontmatter_text(role: &ResolvedRole) -> &str {
    match &role.doc.fences {
        Ok(f) => &role.doc.text[f.yaml.clone()],
        Err(_) => "",
    }
}

/// `pwk show` for people.
pub(crate) fn show_human(
    d: &Discovery,
    r: &ResolvedRole,
    rt: &Runtime,
    also: &[AlsoRead],
    style: Style,
) -> String {
    let width = style.width;
    let cwd: &Path = &d.cwd;
    let mut out = String::new();
    let field = |out: &mut String, label: &str, value: &str| field(out, label, value, width);
    out.push_str(&style.bold(&escape_line(&r.name)));
    if d.host.host != HostId::Pwk {
        out.push_str(&format!("  (as {} sees it)", d.host.as_str()));
    }
    out.push('\n');
    field(&mut out, "profile", &d.host_choice);
    for (i, a) in also.iter().enumerate() {
        field(
            &mut out,
            if i == 0 { "other hosts" } else { "" },
            &format!(
                "{} from {} ({}; `pwk show {} --host {}`)",
                a.profile,
                a.path,
                a.source.as_str(),
                r.name,
                a.host
            ),
        );
    }
    field(&mut out, "source", r.layer.as_str());
    field(&mut out, "path", &r.path.display(cwd));
    if r.shadows.is_empty() {
        field(&mut out, "shadows", "nothing");
    } else {
        for (i, s) in r.shadows.iter().enumerate() {
            let label = if i == 0 { "shadows" } else { "" };
            field(
                &mut out,
                label,
                &format!("{} ({})", s.path, s.source.as_str()),
            );
        }
    }
    field(
        &mut out,
        "hidden",
        if r.hidden {
            "yes (disable-model-invocation: true)"
        } else {
            "no"
        },
    );
    if let Some(desc) = &r.role.description {
        field(&mut out, "description", desc);
    }
    if let Some(problem) = super::first_problem(&r.doc, d.host) {
        out.push_str(&style.red(&wrap("  problem: ", &problem, 11, width)));
        out.push('\n');
    }
    for note in &r.notes {
        out.push_str(&style.yellow(&wrap("  note: ", note, 8, width)));
        out.push('\n');
    }

    out.push('\n');
    out.push_str(&runtime_human(d, rt, style));
    out.push('\n');
    out.push_str(&style.bold("Frontmatter"));
    out.push('\n');
    out.push_str("---\n");
    let fm = escape_block(frontmatter_text(r));
    out.push_str(&fm);
    if !fm.is_empty() && !fm.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("---\n\n");
    out.push_str(&style.bold("Body"));
    out.push('\n');
    let body = escape_block(r.doc.body());
    out.push_str(&body);
    if !body.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// One `  label       value` line of `pwk show`, wrapped to `width`.
fn field(out: &mut String, label: &str, value: &str, width: usize) {
    const LABEL_W: usize = 12;
    out.push_str(&wrap(
        &format!("  {label:<LABEL_W$}"),
        value,
        LABEL_W + 2,
        width,
    ));
    out.push('\n');
}

/// The `Runtime (HOST)` section of `pwk show` (also `pwk smoke` of a role a host
/// with its own CLI runs): where the child runs, its tools, reasoning, turn limit,
/// model chain, and the configuration files read.
pub(crate) fn runtime_human(d: &Discovery, rt: &Runtime, style: Style) -> String {
    let width = style.width;
    let mut out = String::new();
    let field = |out: &mut String, label: &str, value: &str| field(out, label, value, width);
    out.push_str(&style.bold(&format!("Runtime ({})", d.host.as_str())));
    out.push('\n');
    field(
        &mut out,
        "runs on",
        &match rt.kind {
            "pi" => "pi".to_string(),
            "host-cli" => format!("{} itself", d.host.label()),
            _ => "an external CLI".to_string(),
        },
    );
    if let Some(why) = &rt.disabled {
        field(
            &mut out,
            "disabled",
            &format!(
                "{} does not run this role: {}",
                d.host.label(),
                escape_line(why)
            ),
        );
    }
    if let Some(cli) = &rt.cli {
        field(&mut out, "cli", &cli.cli);
        field(
            &mut out,
            "cli-model",
            cli.cli_model.as_deref().unwrap_or("(not set)"),
        );
    }
    // A tool the child may not use on every call carries its limit in the list
    // itself (`Bash [read-only calls]`): it is no full grant.
    let tools = if rt.tools.effective.is_empty() {
        "none".to_string()
    } else {
        rt.tools
            .granted()
            .map(|(t, limit)| match limit {
                Some(calls) => format!("{t} [{calls}]"),
                None => t.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    field(&mut out, "tools", &format!("{tools} ({})", rt.tools.note));
    if let Some(m) = &rt.tools.mcp {
        let via = if m.via.is_empty() {
            "no allow-list".to_string()
        } else {
            m.via.join(", ")
        };
        let reach = if m.every_tool {
            "every configured MCP tool"
        } else {
            "the MCP tools named"
        };
        field(
            &mut out,
            "mcp",
            &format!("{reach} on pi {} (via {via})", m.pi),
        );
    }
    if let Some(deny) = &rt.tools.deny_tools {
        field(&mut out, "deny-tools", &deny.join(", "));
    }
    if let Some(open) = &rt.tools.open {
        field(&mut out, "also", open);
    }
    for l in &rt.tools.limits {
        field(
            &mut out,
            "limit",
            &format!("{}: {} ({})", l.tool, l.calls, l.why),
        );
    }
    for i in &rt.tools.settings_ignored {
        // Whole (up to a bound): its spaces may be why it names no tool.
        let rule = crate::text::clip(&i.rule);
        field(
            &mut out,
            "ignored",
            &format!(
                "`{rule}` in `{}` of {}: denies nothing; {}",
                i.key, i.file, i.why
            ),
        );
    }
    let thinking = rt.thinking.value.clone().unwrap_or_else(|| "-".to_string());
    field(
        &mut out,
        "thinking",
        &format!("{thinking} ({})", rt.thinking.note),
    );
    let turns = rt
        .max_turns
        .value
        .map(|n| n.to_string())
        .unwrap_or_else(|| "-".to_string());
    field(
        &mut out,
        "max_turns",
        &format!("{turns} ({})", rt.max_turns.note),
    );
    let model = rt.model.effective.clone().unwrap_or_else(|| match rt.kind {
        "host-cli" => format!("{}'s default", d.host.as_str()),
        _ => "pi's default".to_string(),
    });
    field(
        &mut out,
        "model",
        &format!("{model} (decided by: {})", link_label(rt.model.decided_by)),
    );
    for (i, link) in rt.model.chain.iter().enumerate() {
        let what = match &link.value {
            Some(v) => format!("{v}, from {}", link.from),
            None => link.from.clone(),
        };
        let first = format!(
            "    {}. {:<18}{:<13}",
            i + 1,
            link_label(link.link),
            link.status.as_str()
        );
        let hang = first.chars().count();
        let line = wrap(&first, &what, hang, width);
        out.push_str(&if link.status == LinkStatus::Decides {
            style.bold(&line)
        } else {
            line
        });
        out.push('\n');
        if let Some(note) = &link.note {
            out.push_str(&wrap(&" ".repeat(hang), note, hang, width));
            out.push('\n');
        }
    }
    for note in &rt.model.notes {
        out.push_str(&style.dim(&wrap("    note: ", note, 10, width)));
        out.push('\n');
    }
    if !rt.config_files.is_empty() {
        out.push_str("  config files:\n");
        for c in &rt.config_files {
            out.push_str(&wrap(
                &format!("    {}: ", escape_line(&c.path)),
                &format!("{} ({})", c.status, c.purpose),
                6,
                width,
            ));
            out.push('\n');
        }
    }
    for set in &rt.settings {
        let value = set.value.to_string();
        field(
            &mut out,
            "setting",
            &format!(
                "`{}` = {} in {}: {}",
                escape_line(&set.key),
                escape_line(&truncate(&value, 80)),
                escape_line(&set.file),
                set.note
            ),
        );
    }
    for u in &rt.settings_unread {
        field(&mut out, "unread", u);
    }
    out
}

fn link_label(link: &str) -> &str {
    match link {
        "invocation" => "invocation",
        "frontmatter" => "frontmatter",
        "per-agent-config" => "per-agent config",
        "global-config" => "global config",
        "parent-default" => "parent/default",
        other => other,
    }
}

/// The rows of `pwk list` for each host's view ([`list_rows`]).
pub(crate) fn list_views(views: &[Discovery], all: bool) -> Vec<Vec<ListRow>> {
    views.iter().map(|d| list_rows(d, all)).collect()
}

/// The JSON document of `pwk list` (also `pwk mcp`'s `list_roles`): every host's
/// view (`views`, the project's host first, with its rows).
pub(crate) fn list_doc(views: &[Discovery], rows: &[Vec<ListRow>]) -> serde_json::Value {
    let Some(first) = views.first() else {
        return serde_json::Value::Null;
    };
    serde_json::to_value(ListJson {
        version: 1,
        host: first.host,
        profile: first.host.label(),
        profile_choice: &first.host_choice,
        project_root: first.project_root.display().to_string(),
        roles: rows.iter().flatten().collect(),
        searched: views.iter().flat_map(searched).collect(),
        notes: views
            .iter()
            .flat_map(|d| d.notes.iter().map(String::as_str))
            .collect(),
        hosts: views
            .iter()
            .map(|d| HostJson {
                host: d.host,
                profile: d.host.label(),
                profile_choice: &d.host_choice,
                notes: &d.notes,
            })
            .collect(),
    })
    .unwrap_or_default()
}

/// What `role` runs with (model, tools, thinking), as `pwk show` resolves it.
pub(crate) fn runtime_of(
    d: &Discovery,
    role: &crate::discover::ResolvedRole,
    explicit_model: Option<&str>,
    env: &crate::env::Env,
    cwd: &std::path::Path,
) -> crate::discover::runtime::Runtime {
    let agent_dir = env.agent_dir();
    let inputs = crate::discover::runtime::RuntimeInputs {
        host: d.host,
        explicit_model,
        agent_dir: agent_dir.as_deref(),
        cwd,
        root: Some(&d.project_root),
        home: env.home.as_deref(),
        host_vars: Some(&env.host_vars),
    };
    crate::discover::runtime::resolve_runtime(role, &inputs)
}

/// The JSON document of `pwk show` (also `pwk mcp`'s `show_role`); `provider_run`
/// is how `pwk review`/`recon` run the role, when it is one of the contract's.
pub(crate) fn show_doc(
    d: &Discovery,
    role: &crate::discover::ResolvedRole,
    rt: &crate::discover::runtime::Runtime,
    also: &[AlsoRead],
    cwd: &std::path::Path,
    provider_run: Option<serde_json::Value>,
) -> serde_json::Value {
    serde_json::to_value(ShowJson {
        version: 1,
        host: d.host,
        profile: d.host.label(),
        profile_choice: &d.host_choice,
        also_read_by: also,
        name: &role.name,
        description: role.role.description.as_deref(),
        source: role.layer,
        path: role.path.display(cwd),
        shadows: &role.shadows,
        hidden: role.hidden,
        host_notes: &role.notes,
        error: crate::discover::first_problem(&role.doc, d.host),
        frontmatter: role.doc.mapping().map(|m| m.to_json()).unwrap_or_default(),
        frontmatter_text: frontmatter_text(role),
        body: role.doc.body(),
        runtime: rt,
        provider_run,
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_and_wraps() {
        assert_eq!(truncate("abc def", 10), "abc def");
        assert_eq!(truncate("abcdefghijkl", 6), "abcde…");
        assert_eq!(wrap("> ", "aa bb cc", 2, 7), "> aa bb\n  cc");
    }
}
