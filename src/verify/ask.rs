//! Asking one installed host what it loaded: the embedded driver (`cli-hosts.mjs`),
//! run with Node under pwk's supervisor on a staged copy of the project.

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use super::Installed;

/// The driver, as shipped in the binary (tests/oracle/cli-hosts.mjs links to it: the
/// same file pwk's CI runs against the pinned hosts).
const CLI_DRIVER: &str = include_str!("cli-hosts.mjs");

/// The pi extensions' driver (tests/oracle/driver.mjs links to it): the extension's own
/// loader code, imported through pi 1.6's extension module resolution, per file.
const PI_DRIVER: &str = include_str!("pi-hosts.mjs");

/// One project as the pi extensions' driver reports it.
#[derive(Debug, Clone, Deserialize)]
struct PiDoc {
    #[serde(default)]
    refuses_start: Option<String>,
    files: Vec<PiFile>,
}

#[derive(Debug, Clone, Deserialize)]
struct PiFile {
    file: String,
    outcome: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    identity: Option<String>,
    #[serde(default)]
    tools: Option<Vec<String>>,
    #[serde(default)]
    model: Option<serde_json::Value>,
}

impl PiDoc {
    /// The same shape as the CLIs' answer: the loaded files as agents, the rest as
    /// messages naming their file; a file pi does not start over as `fatal`.
    fn into_host_doc(self, host: &str) -> HostDoc {
        let mut doc = HostDoc {
            host: host.to_string(),
            fatal: None,
            calls_fail: false,
            agents: Vec::new(),
            messages: Vec::new(),
            main_model: None,
        };
        for f in self.files {
            let message = f.message.unwrap_or_default();
            match f.outcome.as_str() {
                "loaded" => doc.agents.push(HostAgent {
                    name: f.identity.unwrap_or_default(),
                    id: None,
                    key: None,
                    description: None,
                    tools: f.tools,
                    tools_deferred: None,
                    model: f.model,
                    error: None,
                }),
                "refuses-start" | "fails-calls" => {
                    doc.calls_fail = f.outcome == "fails-calls";
                    doc.fatal = Some(format!("{}: {message}", f.file));
                }
                _ => doc.messages.push(format!("{}: {message}", f.file)),
            }
        }
        if doc.fatal.is_none() {
            doc.fatal = self.refuses_start;
        }
        doc
    }
}

/// The most the driver may print (its JSON answer and its stderr).
const MAX_OUTPUT: usize = 16 << 20;

/// What a host loaded from one project, as the driver reports it.
#[derive(Debug, Clone, Deserialize)]
pub struct HostDoc {
    pub host: String,
    /// The host refused to start because of the project's agent files (OpenCode's
    /// "Configuration is invalid"), with its text.
    pub fatal: Option<String>,
    /// `fatal` is no refusal to start: the host starts, and every call of its tool
    /// that reads the roles fails over that file (pi's example extension).
    #[serde(default)]
    pub calls_fail: bool,
    #[serde(default)]
    pub agents: Vec<HostAgent>,
    /// The host's own warnings and errors about agent files, verbatim.
    #[serde(default)]
    pub messages: Vec<String>,
    /// Claude Code: the main thread's model (what `inherit` runs on).
    #[serde(default)]
    pub main_model: Option<String>,
}

/// One custom agent the host loaded.
#[derive(Debug, Clone, Deserialize)]
pub struct HostAgent {
    pub name: String,
    /// Copilot: the file stem.
    #[serde(default)]
    pub id: Option<String>,
    /// OpenCode: the file stem it is keyed by.
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// What the child gets (`["*"]`: every tool of the main thread); `None`: not known.
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub tools_deferred: Option<Vec<String>>,
    #[serde(default)]
    pub model: Option<serde_json::Value>,
    /// The host listed it but refused to spawn it.
    #[serde(default)]
    pub error: Option<String>,
}

impl HostAgent {
    /// Whether the host knows this agent by `name` (its name, its id or its key).
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.id.as_deref() == Some(name) || self.key.as_deref() == Some(name)
    }

    /// The model as text (OpenCode reports `{providerID, modelID}`).
    pub fn model_text(&self) -> Option<String> {
        match self.model.as_ref()? {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Null => None,
            serde_json::Value::Object(o) => {
                let p = o
                    .get("providerID")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default();
                let m = o
                    .get("modelID")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default();
                Some(format!("{p}/{m}"))
            }
            v => Some(v.to_string()),
        }
    }
}

/// The driver's arguments for `inst` on `project` (`cache`: jiti's, for a pi
/// extension).
fn args(inst: &Installed, driver: &str, project: &str, cache: &str) -> Vec<String> {
    if inst.host.is_pi() {
        let version = inst.version.as_deref().unwrap_or("0.0.0");
        return vec![
            driver.to_string(),
            "--host".into(),
            format!("{}@{version}", inst.host),
            "--any-version".into(),
            "--package".into(),
            inst.program.display().to_string(),
            "--pi".into(),
            inst.pi.as_ref().map_or_else(
                || "<no pi 1.6 found>".to_string(),
                |p| p.display().to_string(),
            ),
            "--cache".into(),
            cache.to_string(),
            project.to_string(),
        ];
    }
    let mut a = vec![
        driver.to_string(),
        "--host".into(),
        inst.host.as_str().into(),
        "--bin".into(),
        inst.program.display().to_string(),
    ];
    if let Some(v) = &inst.version {
        a.push("--version".into());
        a.push(v.clone());
    }
    a.push(project.to_string());
    a
}

/// What `--dry-run` shows: the command pwk runs (the driver and project are scratch
/// paths made at run time).
pub fn command_line(node: Option<&Path>, inst: &Installed) -> Vec<String> {
    let mut c = vec![node.map_or_else(|| "node".to_string(), |n| n.display().to_string())];
    let driver = if inst.host.is_pi() {
        "<driver: pi-hosts.mjs>"
    } else {
        "<driver: cli-hosts.mjs>"
    };
    c.extend(args(
        inst,
        driver,
        "<staged copy of the project>",
        "<scratch>",
    ));
    c
}

/// Run the driver on `project` (a staged copy) and read its answer.
pub fn ask(
    node: &Path,
    inst: &Installed,
    project: &Path,
    limit: Duration,
    path: Option<&std::ffi::OsStr>,
) -> Result<HostDoc, String> {
    let scratch =
        super::Scratch::new("driver").map_err(|e| format!("no scratch directory: {e}"))?;
    if inst.host.is_pi() && inst.pi.is_none() {
        return Err(format!(
            "no pi 1.6 package (`@earendil-works/pi-coding-agent`) to load {} with: none beside it, and no `pi` on PATH",
            inst.host
        ));
    }
    let (name, text) = if inst.host.is_pi() {
        ("pi-hosts.mjs", PI_DRIVER)
    } else {
        ("cli-hosts.mjs", CLI_DRIVER)
    };
    if let Some(why) = node_too_old(node, inst) {
        return Err(why);
    }
    let driver = scratch.path().join(name);
    std::fs::write(&driver, text).map_err(|e| format!("could not write the driver: {e}"))?;
    for sub in ["home", "tmp", "jiti"] {
        std::fs::create_dir(scratch.path().join(sub)).map_err(|e| e.to_string())?;
    }
    let args = args(
        inst,
        &driver.display().to_string(),
        &project.display().to_string(),
        &scratch.path().join("jiti").display().to_string(),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // Nothing of the user's environment but PATH (the hosts look up git and the
    // like); the driver gives each host its own HOME and XDG directories.
    let mut env = vec![
        (
            "HOME".to_string(),
            scratch.path().join("home").display().to_string(),
        ),
        (
            "TMPDIR".to_string(),
            scratch.path().join("tmp").display().to_string(),
        ),
        ("LANG".to_string(), "C.UTF-8".to_string()),
        ("NO_COLOR".to_string(), "1".to_string()),
    ];
    if let Some(path) = path {
        env.push(("PATH".to_string(), path.to_string_lossy().into_owned()));
    }
    let captured = crate::pi::process::capture_whole_clean(
        node,
        &args,
        scratch.path(),
        &env,
        limit,
        MAX_OUTPUT,
    )
    .map_err(|e| format!("the host {e}"))?;
    if !captured.status.success() {
        return Err(format!(
            "the driver failed ({}): {}",
            captured.status,
            failure_line(&captured.text)
        ));
    }
    let text = captured.text;
    let doc = if inst.host.is_pi() {
        one_doc::<PiDoc>(&text)?.into_host_doc(inst.host.as_str())
    } else {
        one_doc::<HostDoc>(&text)?
    };
    Ok(relative(doc, project))
}

/// The driver's answer: a JSON array holding one document (one project asked).
fn one_doc<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut docs: Vec<T> = serde_json::Deserializer::from_str(text.trim_start())
        .into_iter::<Vec<T>>()
        .next()
        .ok_or("the driver printed nothing")?
        .map_err(|e| format!("the driver's answer is not what pwk reads: {e}"))?;
    if docs.len() != 1 {
        return Err(format!(
            "the driver answered {} documents for one project",
            docs.len()
        ));
    }
    Ok(docs.remove(0))
}

/// Why `node` cannot run the host `inst` names, when the package that runs in it
/// declares a least Node version (`engines.node`) that `node --version` is below:
/// pi 1.6, which loads the pi extensions, needs `>=22.19.0`. `None` when it can
/// run, or when either version cannot be read (the driver then says what it says).
fn node_too_old(node: &Path, inst: &Installed) -> Option<String> {
    let package = if inst.host.is_pi() {
        inst.pi.clone()?
    } else if inst.program.extension().is_some_and(|e| e == "js") {
        inst.program
            .ancestors()
            .skip(1)
            .take(4)
            .find(|d| d.join("package.json").is_file())?
            .to_path_buf()
    } else {
        return None;
    };
    let (least, wanted) = super::installed::node_required(&package)?;
    let said = crate::pi::process::capture_whole_clean(
        node,
        &["--version"],
        Path::new("/"),
        &[],
        Duration::from_secs(10),
        4096,
    )
    .ok()?
    .success()
    .ok()?;
    let have = super::installed::parse_node_version(said.trim())?;
    (have < least).then(|| {
        format!(
            "{} runs in Node {wanted} (`engines` in {}), and `{}` is {}.{}.{}: name a newer Node with --node PATH",
            inst.host,
            crate::text::escape_line(&package.join("package.json").display().to_string()),
            crate::text::escape_line(&node.display().to_string()),
            have.0,
            have.1,
            have.2
        )
    })
}

/// The line of a failed driver's output that says what went wrong: Node's
/// `SomethingError: …` line when there is one (an uncaught error prints the source
/// line and a stack around it), else the last line; clipped.
fn failure_line(text: &str) -> String {
    let is_error = |l: &&str| {
        l.split_once(": ").is_some_and(|(head, _)| {
            head.ends_with("Error") && head.chars().all(|c| c.is_ascii_alphanumeric())
        })
    };
    let line = text
        .lines()
        .map(str::trim)
        .find(is_error)
        .or_else(|| text.lines().map(str::trim).rev().find(|l| !l.is_empty()))
        .unwrap_or("");
    crate::text::escape_line(&crate::text::clip(line)).into_owned()
}

/// The host's messages with the scratch project's path left out (the files are named
/// as in the user's project).
fn relative(mut doc: HostDoc, project: &Path) -> HostDoc {
    let prefix = format!("{}/", project.display());
    for m in doc.messages.iter_mut().chain(doc.fatal.as_mut()) {
        *m = m.replace(&prefix, "");
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::failure_line;

    #[test]
    fn a_failed_driver_is_summed_up_by_its_error_line() {
        let node = "file:///tmp/x/pi-hosts.mjs:876\n})},State=class{gen;threads=[]}\n   ^\n\nSyntaxError: Invalid regular expression flags\n    at compileSourceTextModule (node:internal)\n    at async main (file:///tmp/x/pi-hosts.mjs:876:46)\n";
        assert_eq!(
            failure_line(node),
            "SyntaxError: Invalid regular expression flags"
        );
        assert_eq!(
            failure_line("Error: Cannot find module 'x'\n    at y\n"),
            "Error: Cannot find module 'x'"
        );
        assert_eq!(failure_line("something odd\nthe end\n\n"), "the end");
        let long = format!("TypeError: {}", "x".repeat(5000));
        assert!(failure_line(&long).chars().count() < 200);
        assert_eq!(
            failure_line("RangeError: bad \u{1b}[31m"),
            "RangeError: bad \\u{1b}[31m"
        );
    }
}
