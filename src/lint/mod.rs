//! `pwk lint`: rules, diagnostics and renderers.
//!
//! [`check_doc`] checks one parsed file (no I/O); [`lint_files`] reads and checks
//! the files of a plan (the Project's, `crate::project`) on every core, adds the
//! cross-file `duplicate-name` findings from one index, and returns everything
//! sorted by path and position.
//! Renderers under [`render`] turn the result into each output format.

pub(crate) mod baseline;
pub(crate) mod check;
pub(crate) mod diagnostic;
pub(crate) mod fix;
pub mod render;
pub(crate) mod rewrite;
pub(crate) mod rule;
pub(crate) mod rules;
pub(crate) mod suppress;
pub(crate) mod walk;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

pub use check::{check_doc, check_doc_full};
pub use diagnostic::{Diagnostic, Related, Severity};
pub use walk::{Collected, DEFAULT_DIRS, WalkError, collect_files, default_dirs};

use crate::fs::read::{ReadError, read_role_file};
use crate::host::HostProfile;
use crate::role::RoleDoc;
pub use rules::duplicate_name::NameSite;

/// The findings for one file.
#[derive(Debug, Clone)]
pub struct FileReport {
    pub path: PathBuf,
    /// Sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// The file's text, kept only when asked for and the file has findings
    /// (the human renderer shows source snippets).
    pub text: Option<String>,
    /// Findings hidden by a suppression or the baseline, with the reason.
    pub suppressed: Vec<suppress::Suppressed>,
}

/// A file pwk could not read at all (an I/O error, not a finding): exit 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadFailure {
    pub path: PathBuf,
    pub message: String,
}

/// A file left out because the host never reads it as a role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// The result of one lint run.
#[derive(Debug, Clone, Default)]
pub struct LintReport {
    /// One entry per linted file, sorted by path.
    pub files: Vec<FileReport>,
    pub failures: Vec<ReadFailure>,
    /// Files the host never reads as roles (e.g. nicobailon's `*.chain.md`).
    pub skipped: Vec<Skipped>,
    /// The host profile the files were linted for (`tintinweb@0.18`).
    pub host: String,
    /// How it was chosen, when `--host auto` decided.
    pub host_reason: Option<String>,
    /// Under the portable profile: each key only some hosts read, with how many
    /// files set it (the summary says so once).
    pub host_specific: std::collections::BTreeMap<&'static str, usize>,
    /// How `--host auto` decided the host of the run's files: one entry per decision
    /// (a project's settings, a host's directory, a file's keys), in the order made.
    pub decisions: Vec<HostDecision>,
}

/// One `--host auto` decision of a lint run, and how many files it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostDecision {
    /// The profile the files were linted for (`tintinweb@0.25`).
    pub profile: String,
    pub detection: crate::host::Detection,
    pub files: usize,
}

impl LintReport {
    /// Paths the walk could not look at: failures (exit 2), and `unreadable-file`
    /// findings so that every document counts them.
    /// Files whose extension is `md` in another case (`x.MD`) are no host's role
    /// files: said, so a role that never loads is not a silent gap (Claude Code
    /// 2.1.332 does not load `x.MD`: oracle case e30).
    pub fn skip_other_case(&mut self, paths: Vec<PathBuf>) {
        for path in paths {
            self.skipped.push(Skipped {
                path,
                reason: "not read as a role: hosts load only files ending in `.md` (lower case); rename it"
                    .to_string(),
            });
        }
    }

    pub fn add_walk_errors(&mut self, errors: Vec<WalkError>) {
        if errors.is_empty() {
            return;
        }
        let rule = &rules::unreadable_file::RULE;
        for e in errors {
            let path = e.path().to_path_buf();
            let what = match e {
                WalkError::NotFound(_) => "not linted: the path does not exist".to_string(),
                WalkError::Io { .. } => format!("not linted: cannot read it: {}", e.reason()),
            };
            self.files.push(FileReport {
                path: path.clone(),
                diagnostics: vec![Diagnostic::whole_file(
                    rule.id,
                    rule.severity,
                    path.clone(),
                    what,
                    Some("check the path, or make it readable, and run pwk lint again".into()),
                )],
                text: None,
                suppressed: Vec::new(),
            });
            self.failures.push(ReadFailure {
                path,
                message: e.reason(),
            });
        }
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.failures.sort_by(|a, b| a.path.cmp(&b.path));
    }

    /// Two runs' reports as one (files linted for different host profiles, by
    /// `[[overrides]]`): files sorted by path, the profiles named together.
    #[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
    pub fn merge(mut self, other: LintReport) -> LintReport {
        self.files.extend(other.files);
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.failures.extend(other.failures);
        self.skipped.extend(other.skipped);
        // Each profile named once (two groups may share one: a host's own directory
        // and its plugin's).
        for label in other.host.split(", ") {
            if !self.host.split(", ").any(|h| h == label) {
                self.host = format!("{}, {label}", self.host);
            }
        }
        for (k, n) in other.host_specific {
            *self.host_specific.entry(k).or_default() += n;
        }
        self.host_reason = match (self.host_reason, other.host_reason) {
            (Some(a), Some(b)) if a != b => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        };
        self.decisions.extend(other.decisions);
        self
    }

    /// Every finding, sorted by path, then position.
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.files.iter().flat_map(|f| f.diagnostics.iter())
    }

    /// (errors, warnings)
    pub fn counts(&self) -> (usize, usize) {
        let errors = self
            .diagnostics()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let total = self.diagnostics().count();
        (errors, total - errors)
    }

    /// Findings hidden by suppressions or the baseline.
    pub fn suppressed(&self) -> impl Iterator<Item = &suppress::Suppressed> {
        self.files.iter().flat_map(|f| f.suppressed.iter())
    }
}

/// What to lint and how.
#[derive(Debug, Clone)]
pub struct LintOptions {
    /// The host profile the files are linted for.
    pub host: &'static HostProfile,
    pub recursive: bool,
    /// Keep the text of files with findings (for source snippets).
    pub keep_text: bool,
    /// Paths in messages are shown relative to this directory when under it.
    pub cwd: Option<PathBuf>,
    /// Why this host profile, when it was detected (shown in the report).
    pub host_reason: Option<String>,
    /// The `--host auto` decision behind `host`, when it decided; when it is
    /// undecided ([`crate::host::Detection::undecided`]), each file's own keys may
    /// still name its host.
    pub detection: Option<crate::host::Detection>,
    /// Each file's settings (configuration levels, suppressions); `None`: defaults.
    pub settings: Option<SettingsSource>,
}

/// The profile a file is linted for: `profile`, or, under `--host auto` when nothing
/// but the file's own keys can name its host (`infer`), the host they name
/// ([`crate::host::infer_from_keys`]), else `profile` (the portable one).
#[derive(Debug, Clone, Copy)]
pub struct ProfileFor {
    pub profile: &'static HostProfile,
    pub infer: bool,
}

impl ProfileFor {
    /// Always `profile` (a host named by `--host` or the configuration).
    pub fn fixed(profile: &'static HostProfile) -> ProfileFor {
        ProfileFor {
            profile,
            infer: false,
        }
    }

    /// What a host choice means for one file.
    pub fn of(chosen: &crate::host::Chosen) -> ProfileFor {
        ProfileFor {
            profile: chosen.profile,
            infer: chosen
                .detection
                .as_ref()
                .is_some_and(crate::host::Detection::undecided),
        }
    }

    /// The profile for the parsed `doc`, and, when its own keys named the host, that
    /// host with the keys.
    pub fn resolve(
        &self,
        doc: &RoleDoc,
    ) -> (
        &'static HostProfile,
        Option<(crate::host::HostId, Vec<&'static str>)>,
    ) {
        if !self.infer {
            return (self.profile, None);
        }
        let Some(entries) = doc.mapping().and_then(|m| m.as_mapping()) else {
            return (self.profile, None);
        };
        let keys = entries.iter().map(|(k, _)| k.text.as_str());
        match crate::host::infer_from_keys(&doc.path, keys) {
            crate::host::KeyEvidence::One(host, keys) => (host.newest(), Some((host, keys))),
            _ => (self.profile, None),
        }
    }
}

/// Where [`LintOptions`] gets a file's [`FileSettings`] (e.g. its configuration).
#[derive(Clone)]
pub struct SettingsSource(pub std::sync::Arc<dyn Fn(&Path) -> FileSettings + Send + Sync>);

impl std::fmt::Debug for SettingsSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SettingsSource(..)")
    }
}

impl LintOptions {
    /// How each file of these options picks its profile.
    pub fn profile_for(&self) -> ProfileFor {
        ProfileFor {
            profile: self.host,
            infer: self
                .detection
                .as_ref()
                .is_some_and(crate::host::Detection::undecided),
        }
    }

    /// The settings of the file at `path`.
    pub fn settings_for(&self, path: &Path) -> FileSettings {
        self.settings
            .as_ref()
            .map(|f| (f.0)(path))
            .unwrap_or_default()
    }
}

/// What a configuration can say about one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleLevel {
    Error,
    Warn,
    Off,
}

impl RuleLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleLevel::Error => "error",
            RuleLevel::Warn => "warn",
            RuleLevel::Off => "off",
        }
    }
}

/// How one file is linted beyond its host profile: the configuration's rule
/// levels (see `crate::config`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileSettings {
    /// A level per rule id; rules not named keep the severity their check gives.
    pub levels: std::collections::BTreeMap<String, RuleLevel>,
    /// `--no-inline-suppressions`: `# pwk: ignore…` comments are not honoured (an
    /// audit run).
    pub no_inline_suppressions: bool,
    /// `--select` / `--extend-select`: rules reported even where the configuration
    /// turns them `off` (at their own severity); applied by `crate::project::Project::plan`.
    pub enable: std::collections::BTreeSet<String>,
    /// Where the skill directories are (`unknown-skill`); `None`: not known (text
    /// linted outside a project), and skill names are not checked. Shared: every
    /// file's settings start as a copy of the run's (no paths copied per file, and
    /// compared by identity first: `SkillPlaces` is `Eq`).
    pub skills: Option<std::sync::Arc<crate::host::skills::SkillPlaces>>,
    /// `--check-models`: what pi lists on this machine (`unresolved-model`).
    pub models: Option<Models>,
}

/// The models pi lists, shared by every file of a run (compared by identity).
#[derive(Debug, Clone)]
pub struct Models(pub std::sync::Arc<crate::pi::models::ModelScope>);

impl PartialEq for Models {
    fn eq(&self, other: &Models) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Models {}

impl FileSettings {
    /// Set each finding's severity from the levels; drop the rules set `off`.
    pub fn apply_levels(&self, diagnostics: &mut Vec<Diagnostic>) {
        if self.levels.is_empty() {
            return;
        }
        diagnostics.retain_mut(|d| self.relevel(d));
    }

    /// Set one finding's severity from the levels; `false` when its rule is off.
    pub fn relevel(&self, d: &mut Diagnostic) -> bool {
        match self.levels.get(d.rule) {
            Some(RuleLevel::Off) => false,
            Some(RuleLevel::Error) => {
                d.severity = Severity::Error;
                true
            }
            Some(RuleLevel::Warn) => {
                d.severity = Severity::Warning;
                true
            }
            None => true,
        }
    }
}

/// One file's findings: those reported, and those a suppression hides.
#[derive(Debug, Clone, Default)]
pub struct FileLint {
    pub diagnostics: Vec<Diagnostic>,
    pub suppressed: Vec<suppress::Suppressed>,
    /// Keys only some hosts read (under the portable profile).
    pub host_specific: crate::host::KeySet,
}

/// Lint one parsed file with its settings: the single-file findings (no
/// cross-file `duplicate-name`), inline suppressions applied, the
/// configuration's levels applied, sorted by position. The entry point for
/// callers that hold the text in memory (the language server, `--fix`).
pub fn lint_doc_full(
    doc: &RoleDoc,
    profile: &'static HostProfile,
    settings: &FileSettings,
) -> FileLint {
    let (mut diagnostics, host_specific) = check_doc_full(doc, profile);
    let extra = settings.skills.is_some() || settings.models.is_some();
    if let Some(places) = &settings.skills {
        diagnostics.extend(check::check_skills(doc, profile, places));
    }
    if let Some(m) = &settings.models {
        diagnostics.extend(check::check_models(doc, profile, &m.0));
    }
    if extra {
        diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
    let (mut diagnostics, mut suppressed) = if settings.no_inline_suppressions {
        (diagnostics, Vec::new())
    } else {
        suppress::apply(doc, profile, diagnostics)
    };
    settings.apply_levels(&mut diagnostics);
    suppressed.retain_mut(|s| settings.relevel(&mut s.diagnostic));
    FileLint {
        diagnostics,
        suppressed,
        host_specific,
    }
}

/// [`lint_doc_full`], the reported findings only.
pub fn lint_doc(
    doc: &RoleDoc,
    profile: &'static HostProfile,
    settings: &FileSettings,
) -> Vec<Diagnostic> {
    lint_doc_full(doc, profile, settings).diagnostics
}

/// [`lint_doc`] over text held in memory (an editor buffer); `path` names the
/// file (its stem is the role's identity for `name-mismatch`).
pub fn lint_text(
    path: &Path,
    text: &str,
    profile: &'static HostProfile,
    settings: &FileSettings,
) -> Vec<Diagnostic> {
    lint_doc(&RoleDoc::parse(path, text.as_bytes()), profile, settings)
}

/// Lint one file's text held in memory (an MCP client's text) as if it were the
/// file at `path`, as a report: [`check_bytes`] (the same checks, settings and size
/// cap as [`lint_files`] on one file).
pub fn lint_text_report(path: &Path, text: Vec<u8>, opts: &LintOptions) -> LintReport {
    let Checked {
        diagnostics,
        suppressed,
        doc,
        host_specific,
        inferred,
        ..
    } = check_bytes_for(path, text, opts.profile_for(), &opts.settings_for(path));
    let text = (opts.keep_text && !diagnostics.is_empty()).then_some(doc.text);
    let inferred: Vec<(PathBuf, crate::host::HostId, Vec<&'static str>)> = inferred
        .map(|(h, keys)| (path.to_path_buf(), h, keys))
        .into_iter()
        .collect();
    let (host, decisions) = decisions(opts, 1, &inferred);
    LintReport {
        files: vec![FileReport {
            path: path.to_path_buf(),
            diagnostics,
            text,
            suppressed,
        }],
        failures: Vec::new(),
        skipped: Vec::new(),
        host,
        host_reason: opts.host_reason.clone(),
        host_specific: host_specific.iter().map(|k| (k, 1)).collect(),
        decisions,
    }
}

/// The profiles a group's files were linted for (its own, then each host the
/// files' keys named), and its decisions: the group's detection for the files it
/// decided, and one per inferred host and directory (or file, when alone).
fn decisions(
    opts: &LintOptions,
    files: usize,
    inferred: &[(PathBuf, crate::host::HostId, Vec<&'static str>)],
) -> (String, Vec<HostDecision>) {
    let mut labels = Vec::new();
    let mut out = Vec::new();
    let rest = files - inferred.len();
    if rest > 0 || inferred.is_empty() {
        labels.push(opts.host.label());
        if let Some(d) = &opts.detection {
            out.push(HostDecision {
                profile: opts.host.label(),
                detection: d.clone(),
                files: rest,
            });
        }
    }
    // (host, directory) -> (files, keys in order first seen, the one file).
    let mut by: Vec<(crate::host::HostId, &Path, usize, Vec<&'static str>, &Path)> = Vec::new();
    for (file, host, keys) in inferred {
        let dir = crate::fs::dir_of(file);
        match by.iter_mut().find(|(h, d, ..)| h == host && *d == dir) {
            Some((_, _, n, ks, _)) => {
                *n += 1;
                for k in keys {
                    if !ks.contains(k) {
                        ks.push(k);
                    }
                }
            }
            None => by.push((*host, dir, 1, keys.clone(), file)),
        }
    }
    for (host, dir, n, keys, file) in by {
        let scope = if n == 1 { file } else { dir };
        let label = host.newest().label();
        if !labels.contains(&label) {
            labels.push(label.clone());
        }
        out.push(HostDecision {
            profile: label,
            detection: crate::host::Detection::from_keys(host, keys, scope.to_path_buf()),
            files: n,
        });
    }
    (labels.join(", "), out)
}

struct Outcome {
    report: FileReport,
    host_specific: crate::host::KeySet,
    name: Option<NameSite>,
    failure: Option<ReadFailure>,
    /// The host the file's own keys named (under `--host auto`, nothing else saying).
    inferred: Option<(crate::host::HostId, Vec<&'static str>)>,
}

/// Lint these files (already collected and sorted), in parallel.
pub fn lint_files(files: &[PathBuf], opts: &LintOptions) -> LintReport {
    let mut skipped = Vec::new();
    let kept: Vec<PathBuf> = files
        .iter()
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            match opts.host.excludes(&name) {
                Some(e) => {
                    skipped.push(Skipped {
                        path: p.to_path_buf(),
                        reason: e.note.to_string(),
                    });
                    false
                }
                None => true,
            }
        })
        .cloned()
        .collect();
    let files = kept.as_slice();
    let outcomes = run_parallel(files, |path| lint_one(path, opts));
    let mut files_out = Vec::with_capacity(outcomes.len());
    let mut failures = Vec::new();
    let mut names = Vec::with_capacity(outcomes.len());
    let mut host_specific = std::collections::BTreeMap::<&'static str, usize>::new();
    let mut inferred = Vec::new();
    for o in outcomes {
        for k in o.host_specific.iter() {
            *host_specific.entry(k).or_default() += 1;
        }
        if let Some((h, keys)) = o.inferred {
            inferred.push((o.report.path.clone(), h, keys));
        }
        failures.extend(o.failure);
        names.push(o.name);
        files_out.push(o.report);
    }
    // duplicate-name: one index over every file's name, built once.
    let paths: Vec<&Path> = files_out.iter().map(|f| f.path.as_path()).collect();
    let sites: Vec<Option<&NameSite>> = names.iter().map(Option::as_ref).collect();
    let dups = cross_file(&paths, &sites, opts.host, |p| match &opts.cwd {
        Some(cwd) => crate::display::display_path(cwd, p),
        None => p.display().to_string(),
    });
    let mut touched = Vec::new();
    for (i, mut d) in dups {
        // The file's configuration and suppressions apply to it as to the rest.
        let settings = opts.settings_for(&files_out[i].path);
        if !settings.relevel(&mut d) {
            continue;
        }
        if !settings.no_inline_suppressions
            && let Ok(bytes) = read_role_file(&files_out[i].path)
        {
            let doc = RoleDoc::from_bytes(&files_out[i].path, bytes);
            if let Some((kind, reason)) = suppress::suppression_for(&doc, opts.host, &d) {
                files_out[i].suppressed.push(suppress::Suppressed {
                    diagnostic: d,
                    kind,
                    reason,
                });
                touched.push(i);
                continue;
            }
        }
        files_out[i].diagnostics.push(d);
        touched.push(i);
    }
    for i in touched {
        let file = &mut files_out[i];
        file.diagnostics
            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        // The file had no findings of its own, so its text was not kept: read it
        // again for the snippet (rare: only files with a shared name).
        if opts.keep_text && file.text.is_none() {
            file.text = read_role_file(&file.path)
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned());
        }
    }
    let (host, decisions) = decisions(opts, files_out.len(), &inferred);
    LintReport {
        files: files_out,
        failures,
        skipped,
        host,
        host_reason: opts.host_reason.clone(),
        host_specific,
        decisions,
    }
}

/// Map `f` over `items` on every core, keeping the order.
fn run_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_ordered(items, || (), |_, item| f(item))
}

/// Map `f` over `items` on every core, keeping the order; each thread makes its own
/// `state` once (the human renderer's miette handlers). The one parallel map of a
/// lint run: linting files and rendering their findings.
pub(crate) fn map_ordered<T: Sync, S, R: Send>(
    items: &[T],
    state: impl Fn() -> S + Sync,
    f: impl Fn(&S, &T) -> R + Sync,
) -> Vec<R> {
    // No items, no state (the human renderer's handlers on a clean run).
    if items.is_empty() {
        return Vec::new();
    }
    let serial = |items: &[T]| {
        let s = state();
        items.iter().map(|i| f(&s, i)).collect::<Vec<R>>()
    };
    // A handful of files (a pre-commit run) is not worth a thread, nor asking for the
    // core count (it reads cgroup files).
    if items.len() < 16 {
        return serial(items);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = cores.min(items.len() / 8 + 1);
    if workers <= 1 {
        return serial(items);
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let s = state();
        let mut mine = Vec::new();
        loop {
            // Small batches keep both cores busy to the end.
            let start = next.fetch_add(16, Ordering::Relaxed);
            if start >= items.len() {
                break;
            }
            for (i, item) in items.iter().enumerate().skip(start).take(16) {
                mine.push((i, f(&s, item)));
            }
        }
        mine
    };
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    let parts: Vec<Vec<(usize, R)>> = std::thread::scope(|s| {
        // Deeply nested YAML (bounded by the 1 MiB cap) recurses in the parser, the
        // tree conversion and the validator: give workers a main-thread-sized stack.
        let handles: Vec<_> = (0..workers)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .stack_size(8 << 20)
                    .spawn_scoped(s, work)
                    .ok()
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a lint or render worker panicked"))
            .collect()
    });
    for (i, r) in parts.into_iter().flatten() {
        slots[i] = Some(r);
    }
    // Whatever no worker took (none could be started): do it here.
    if slots.iter().all(Option::is_some) {
        return slots.into_iter().flatten().collect();
    }
    let s = state();
    slots
        .into_iter()
        .zip(items)
        .map(|(slot, item)| slot.unwrap_or_else(|| f(&s, item)))
        .collect()
}

fn lint_one(path: &Path, opts: &LintOptions) -> Outcome {
    let profile = opts.host;
    let file_finding = |rule: &'static rules::Rule, message: String, help: &str| {
        let severity = profile.severity_of(rule.id, rule.severity);
        Diagnostic::whole_file(
            rule.id,
            severity,
            path.to_path_buf(),
            message,
            Some(help.to_string()),
        )
    };
    let report = |diagnostics, text| FileReport {
        path: path.to_path_buf(),
        diagnostics,
        text,
        suppressed: Vec::new(),
    };
    match read_role_file(path) {
        Ok(bytes) => {
            let Checked {
                diagnostics,
                suppressed,
                name,
                doc,
                host_specific,
                inferred,
            } = check_bytes_for(path, bytes, opts.profile_for(), &opts.settings_for(path));
            let text = (opts.keep_text && (!diagnostics.is_empty() || !suppressed.is_empty()))
                .then_some(doc.text);
            let mut r = report(diagnostics, text);
            r.suppressed = suppressed;
            Outcome {
                report: r,
                host_specific,
                name,
                failure: None,
                inferred,
            }
        }
        Err(err @ (ReadError::Symlink(_) | ReadError::NotRegular(_))) => {
            let d = file_finding(
                &rules::not_a_regular_file::RULE,
                format!("not linted: the path {err}"),
                "replace it with a regular file",
            );
            Outcome {
                report: report(vec![d], None),
                host_specific: Default::default(),
                name: None,
                failure: None,
                inferred: None,
            }
        }
        Err(err @ ReadError::TooLarge { .. }) => {
            let d = too_large(path, profile, &err);
            Outcome {
                report: report(vec![d], None),
                host_specific: Default::default(),
                name: None,
                failure: None,
                inferred: None,
            }
        }
        // Exit 2, and a finding too, so that every document counts it.
        Err(err) => Outcome {
            report: report(
                vec![file_finding(
                    &rules::unreadable_file::RULE,
                    format!("not linted: the file {err}"),
                    "make the file readable and run pwk lint again",
                )],
                None,
            ),
            host_specific: Default::default(),
            name: None,
            failure: Some(ReadFailure {
                path: path.to_path_buf(),
                message: err.to_string(),
            }),
            inferred: None,
        },
    }
}

/// One file's text, checked: its single-file findings, where it declares its name
/// (for the cross-file rules), and the parsed document.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// Findings an inline suppression hides.
    pub suppressed: Vec<suppress::Suppressed>,
    pub name: Option<NameSite>,
    pub doc: RoleDoc,
    /// Keys only some hosts read (under the portable profile).
    pub host_specific: crate::host::KeySet,
    /// The host the file's own keys named, with the keys (see [`ProfileFor`]).
    pub inferred: Option<(crate::host::HostId, Vec<&'static str>)>,
}

/// Check a file's bytes as `pwk lint` does once it has read them: the same rules,
/// the same size cap (a buffer over [`crate::fs::read::MAX_ROLE_FILE_BYTES`]
/// gets the `file-too-large` finding and nothing else). The language server calls
/// this on editor buffers; [`lint_files`] on files read from disk.
pub fn check_bytes(
    path: &Path,
    bytes: Vec<u8>,
    host: &'static HostProfile,
    settings: &FileSettings,
) -> Checked {
    check_bytes_for(path, bytes, ProfileFor::fixed(host), settings)
}

/// [`check_bytes`] for the profile `pick` gives the parsed file (its own keys may
/// name its host under `--host auto`).
pub fn check_bytes_for(
    path: &Path,
    bytes: Vec<u8>,
    pick: ProfileFor,
    settings: &FileSettings,
) -> Checked {
    let host = pick.profile;
    let len = bytes.len() as u64;
    if len > crate::fs::read::MAX_ROLE_FILE_BYTES {
        let d = too_large(
            path,
            host,
            &ReadError::TooLarge {
                size: len,
                kind: crate::fs::Kind::Role,
            },
        );
        return Checked {
            diagnostics: vec![d],
            suppressed: Vec::new(),
            name: None,
            doc: RoleDoc::parse(path, b""),
            host_specific: Default::default(),
            inferred: None,
        };
    }
    let doc = RoleDoc::from_bytes(path, bytes);
    let (host, inferred) = pick.resolve(&doc);
    let FileLint {
        diagnostics,
        suppressed,
        host_specific,
    } = lint_doc_full(&doc, host, settings);
    Checked {
        diagnostics,
        suppressed,
        name: name_site(&doc),
        doc,
        host_specific,
        inferred,
    }
}

/// The check of a buffer in a directory reached through a symbolic link (see
/// [`crate::fs::linked_dir`]): not linted, one `not-a-regular-file` finding
/// saying `why`, as `pwk lint` reports the directory.
pub fn not_linted_linked(path: &Path, host: &'static HostProfile, why: String) -> Checked {
    let rule = &rules::not_a_regular_file::RULE;
    Checked {
        diagnostics: vec![Diagnostic::whole_file(
            rule.id,
            host.severity_of(rule.id, rule.severity),
            path.to_path_buf(),
            format!("not linted: {why}"),
            Some("make the directory a real one inside the project".to_string()),
        )],
        suppressed: Vec::new(),
        name: None,
        doc: RoleDoc::parse(path, b""),
        host_specific: Default::default(),
        inferred: None,
    }
}

fn too_large(path: &Path, host: &'static HostProfile, err: &ReadError) -> Diagnostic {
    let rule = &rules::file_too_large::RULE;
    Diagnostic::whole_file(
        rule.id,
        host.severity_of(rule.id, rule.severity),
        path.to_path_buf(),
        format!("not linted: the file {err}"),
        Some("keep role files small; move reference material into a skill".to_string()),
    )
}

/// The cross-file findings (`duplicate-name`) over a set of files, with the host's
/// severities: `(index into paths, finding)`. `sites[i]` is where `paths[i]`
/// declares its name.
#[inline(never)] // off a clean file's path: docs/src/perf.md, step 30
pub fn cross_file(
    paths: &[&Path],
    sites: &[Option<&NameSite>],
    host: &'static HostProfile,
    show: impl Fn(&Path) -> String,
) -> Vec<(usize, Diagnostic)> {
    let rank = |i: usize| rules::shadowed_role::rank(host, paths[i]);
    let mut dups = rules::duplicate_name::check(paths, sites, rank, show);
    for (_, d) in &mut dups {
        d.severity = host.severity_of(d.rule, d.severity);
    }
    dups
}

/// Where a parsed file declares its `name` (for the cross-file rules).
pub fn name_site(doc: &RoleDoc) -> Option<NameSite> {
    let node = doc.mapping()?.get("name")?;
    let name = node.as_str()?.to_string();
    Some(NameSite {
        name,
        start: doc.position(node.span.start),
        end: doc.position(node.span.end),
        span: node.span.clone(),
    })
}
