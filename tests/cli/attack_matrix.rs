//! The attack matrix: every attack class × every front end that reads or writes
//! files, through the real binary. A new front end is one new row in
//! [`FRONT_ENDS`]; a new attack is one new row in [`ATTACKS`], and every cell of
//! it is checked.
//!
//! Each cell stages a project (a fixable role in `.agents/agents/` and one in
//! `.pi/agents/`, a `ci/` directory) next to an *outside* directory holding the
//! targets of every planted link (fixable roles too, so a write through a link
//! would show), applies one attack, runs one front end, and asserts:
//! - nothing outside the project was written or changed (a full no-follow
//!   snapshot of the outside directory: names, types, bytes, link targets, mtimes);
//! - the run ended within [`LIMIT`] (no hang on a FIFO) and did not crash (no
//!   panic, no signal);
//! - no raw control character reached stdout or stderr (they are escaped);
//! - when the attack hits what the front end touches ([`FrontEnd::dirs`],
//!   [`FrontEnd::files`]), the output names it (a finding or a clear error).
//!

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::TestEnv;
use crate::support::front_ends::{Ran, bounded, mcp_answered, mcp_session};
use crate::support::lsp_client::{LspClient, file_uri};

/// How long one front end may take on one attack before the cell is a hang.
const LIMIT: Duration = Duration::from_secs(20);

/// A role with a safe fix (`max_turns: "20"` → `20`): a front end that writes
/// through a link would change its copy outside.
const FIXABLE: &str =
    "---\nname: r\ndescription: Reviews.\ntools: read\nmax_turns: \"20\"\n---\nBody.\n";

/// Where an attack sits, and what a front end touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// `.agents/agents/` (and `.agents`).
    Agents,
    /// `.pi/agents/` (and `.pi`): the `--out` of convert.
    Pi,
    /// `ci/`: a project subdirectory (the baseline's).
    Ci,
    /// The agents directories of the hosts with their own CLI ([`cli_host_dirs`]):
    /// where `new --host H` writes.
    Host,
    /// Host code where `pwk verify` finds it in the project: pi's example extension
    /// vendored in `.pi/extensions/subagent/`, a package `.pi/settings.json` lists
    /// installed in `.pi/npm/`, a pi package in `node_modules/`.
    HostCode,
}

/// Each host with its own CLI, from the registry: its name, the project agents
/// directory `new --host` writes in, the file name it gives `probe-role`, and
/// whether that directory is its own (`.agents/agents/`, which several hosts
/// read, is [`Slot::Agents`]'s, attacked there).
fn cli_host_dirs() -> Vec<(&'static str, &'static str, String, bool)> {
    pwk::host::ALL
        .into_iter()
        .filter(|h| !h.is_pi())
        .map(|h| {
            let dir = h.project_dirs().last().expect("a project directory");
            let suffix = match h.newest().discovery.suffix {
                "" => ".md",
                s => s,
            };
            let own = h.own_project_dirs().any(|d| d == dir);
            (h.as_str(), dir, format!("probe-role{suffix}"), own)
        })
        .collect()
}

/// Stage each CLI host's agents directory (with a role in it) and its copy outside
/// (`outside/host-<top>/agents/`, the target of the links the attacks plant), then
/// apply `attack` to each `(top, agents dir, target file)`.
fn each_cli_host(w: &World, attack: impl Fn(&str, &str, &str)) {
    for (_, dir, file, own) in cli_host_dirs() {
        if !own {
            continue;
        }
        let top = dir.split('/').next().unwrap();
        w.env.write(&format!("{dir}/r.md"), FIXABLE);
        let out = w.outside.join(format!("host-{top}/agents"));
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("r.md"), FIXABLE).unwrap();
        std::fs::write(out.join(&file), FIXABLE).unwrap();
        attack(top, dir, &format!("{dir}/{file}"));
    }
}

#[derive(Debug, Clone, Copy)]
enum Hits {
    /// A directory on the way (a symlinked component).
    Dir(Slot),
    /// What a file in the slot is (a symlinked file, a FIFO, an oversize baseline).
    File(Slot),
    /// What a role file in the slot says (duplicate keys, an oversize role).
    Content(Slot),
}

struct Attack {
    name: &'static str,
    hits: &'static [Hits],
    /// The output names the attack with one of these (case-insensitive).
    mentions: &'static [&'static str],
    stage: fn(&World),
    /// The planted file, for front ends given a file's text (the LSP).
    file: Option<&'static str>,
}

struct FrontEnd {
    name: &'static str,
    /// Directories it opens from the project root (a link there must be refused).
    dirs: &'static [Slot],
    /// Directories whose files it reads (a bad file there must be reported).
    files: &'static [Slot],
    /// Directories whose role files' findings it shows (`--diff` shows diffs, and
    /// the baseline hides the findings it records, by design).
    findings: &'static [Slot],
    run: fn(&World, &Attack) -> Ran,
}

struct World {
    env: TestEnv,
    _outside_tmp: tempfile::TempDir,
    outside: PathBuf,
}

impl World {
    fn new() -> World {
        let env = TestEnv::new();
        let outside_tmp = tempfile::Builder::new()
            .prefix("pwk-outside-")
            .tempdir()
            .unwrap();
        let outside = outside_tmp.path().to_path_buf();
        std::fs::create_dir(env.path(".git")).unwrap();
        env.write(".agents/agents/r.md", FIXABLE);
        env.write(".pi/agents/p.md", FIXABLE.replace("name: r", "name: p"));
        std::fs::create_dir(env.path("ci")).unwrap();
        // The targets of the links attacks plant: real directories and files.
        for d in [
            "dot-agents/agents",
            "agents",
            "dot-pi/agents",
            "pi-agents",
            "ci",
        ] {
            std::fs::create_dir_all(outside.join(d)).unwrap();
        }
        for f in [
            "victim.md",
            "dot-agents/agents/r.md",
            "agents/r.md",
            "dot-pi/agents/p.md",
            "pi-agents/p.md",
        ] {
            std::fs::write(outside.join(f), FIXABLE).unwrap();
        }
        World {
            env,
            _outside_tmp: outside_tmp,
            outside,
        }
    }

    /// Replace the project directory `rel` with a link to `outside/target`.
    fn link_dir(&self, rel: &str, target: &str) {
        std::fs::remove_dir_all(self.env.path(rel)).unwrap();
        symlink(self.outside.join(target), self.env.path(rel)).unwrap();
    }

    fn mkfifo(&self, rel: &str) {
        crate::support::process::mkfifo(&self.env.path(rel));
    }
}

/// Code that, when run, writes `outside/ran-NAME` (outside the project: the
/// snapshot of the outside directory shows it ran).
fn canary(w: &World, name: &str) -> String {
    format!(
        "import {{ writeFileSync as pwkCanary }} from \"node:fs\";\npwkCanary({:?}, \"ran\\n\");\nexport const VIRTUAL_MODULES = {{}};\n",
        w.outside.join(format!("ran-{name}")).display().to_string()
    )
}

/// Plant host code where `pwk verify` finds it in the project ([`Slot::HostCode`]),
/// each a canary.
fn plant_host_code(w: &World) {
    for f in ["index.ts", "agents.ts"] {
        w.env.write(
            &format!(".pi/extensions/subagent/{f}"),
            canary(w, "vendored"),
        );
    }
    let pi = "node_modules/@earendil-works/pi-coding-agent";
    w.env.write(
        &format!("{pi}/package.json"),
        r#"{"name":"@earendil-works/pi-coding-agent","version":"1.6.0","type":"module"}"#,
    );
    w.env.write(
        &format!("{pi}/dist/bundle/chunks/virtual-modules-pwk.js"),
        canary(w, "pi-package"),
    );
    w.env.write(
        ".pi/settings.json",
        r#"{"packages":["npm:@tintinweb/pi-subagents","npm:pi-subagents"]}"#,
    );
    for (name, loader) in [
        ("@tintinweb/pi-subagents", "custom-agents.ts"),
        ("pi-subagents", "agents/agents.ts"),
    ] {
        let dir = format!(".pi/npm/node_modules/{name}");
        w.env.write(
            &format!("{dir}/package.json"),
            format!(r#"{{"name":"{name}","version":"0.18.0","type":"module"}}"#),
        );
        w.env
            .write(&format!("{dir}/src/{loader}"), canary(w, "npm-package"));
    }
}

const ATTACKS: &[Attack] = &[
    Attack {
        name: "symlinked project subdirectory (ci)",
        hits: &[Hits::Dir(Slot::Ci)],
        mentions: &["symbolic link"],
        stage: |w| w.link_dir("ci", "ci"),
        file: None,
    },
    Attack {
        name: "symlinked .agents",
        hits: &[Hits::Dir(Slot::Agents)],
        mentions: &["symbolic link"],
        stage: |w| w.link_dir(".agents", "dot-agents"),
        file: None,
    },
    Attack {
        name: "symlinked .agents/agents",
        hits: &[Hits::Dir(Slot::Agents)],
        mentions: &["symbolic link"],
        stage: |w| w.link_dir(".agents/agents", "agents"),
        file: None,
    },
    Attack {
        name: "symlinked .pi",
        hits: &[Hits::Dir(Slot::Pi)],
        mentions: &["symbolic link"],
        stage: |w| w.link_dir(".pi", "dot-pi"),
        file: None,
    },
    Attack {
        name: "symlinked .pi/agents (convert's --out)",
        hits: &[Hits::Dir(Slot::Pi)],
        mentions: &["symbolic link"],
        stage: |w| w.link_dir(".pi/agents", "pi-agents"),
        file: None,
    },
    Attack {
        name: "symlinked role file",
        hits: &[Hits::File(Slot::Agents)],
        mentions: &["symbolic link"],
        stage: |w| {
            std::fs::remove_file(w.env.path(".agents/agents/r.md")).unwrap();
            symlink(
                w.outside.join("victim.md"),
                w.env.path(".agents/agents/r.md"),
            )
            .unwrap();
        },
        file: None,
    },
    Attack {
        name: "FIFO",
        hits: &[Hits::File(Slot::Agents), Hits::File(Slot::Ci)],
        mentions: &["fifo"],
        stage: |w| {
            w.mkfifo(".agents/agents/fifo.md");
            w.mkfifo("ci/pwk-baseline.json");
        },
        file: None,
    },
    Attack {
        name: "oversize input",
        hits: &[Hits::Content(Slot::Agents), Hits::File(Slot::Ci)],
        mentions: &["limit"],
        stage: |w| {
            // A baseline over its cap (sparse: nothing to read, the size says it).
            std::fs::File::create(w.env.path("ci/pwk-baseline.json"))
                .unwrap()
                .set_len(33 << 20)
                .unwrap();
            let mut big = String::from("---\nname: big\ndescription: d\ntools: read\n---\n");
            big.push_str(&"x".repeat(2 << 20));
            w.env.write(".agents/agents/big.md", big);
        },
        file: Some(".agents/agents/big.md"),
    },
    Attack {
        name: "duplicate keys",
        hits: &[Hits::Content(Slot::Agents)],
        mentions: &["duplicate", "twice"],
        stage: |w| {
            w.env.write(
                ".agents/agents/dup.md",
                "---\nname: dup\nname: other\ndescription: d\ntools: read\n---\nBody.\n",
            );
        },
        file: Some(".agents/agents/dup.md"),
    },
    Attack {
        name: "control characters",
        hits: &[Hits::Content(Slot::Agents)],
        mentions: &[],
        stage: |w| {
            w.env.write(
                ".agents/agents/evil\x1b[2J.md",
                "---\nname: evil\x1b[31m\ndescription: \"\\e]0;pwned\\a \\e[2J\"\ntools: read\x07\nmax_turns: \"20\"\n---\nBody \x1b[31mred\x1b[0m.\n",
            );
        },
        file: Some(".agents/agents/evil\x1b[2J.md"),
    },
    Attack {
        name: "symlinked CLI host directory (.claude, .github, … of each)",
        hits: &[Hits::Dir(Slot::Host)],
        mentions: &["symbolic link"],
        stage: |w| each_cli_host(w, |top, _, _| w.link_dir(top, &format!("host-{top}"))),
        file: None,
    },
    Attack {
        name: "symlinked CLI host agents directory (.claude/agents, …)",
        hits: &[Hits::Dir(Slot::Host)],
        mentions: &["symbolic link"],
        stage: |w| {
            each_cli_host(w, |top, dir, _| {
                w.link_dir(dir, &format!("host-{top}/agents"));
            })
        },
        file: None,
    },
    Attack {
        name: "symlinked target file of new --host H",
        hits: &[Hits::File(Slot::Host)],
        mentions: &["symbolic link", "already exists"],
        stage: |w| {
            each_cli_host(w, |_, _, target| {
                symlink(w.outside.join("victim.md"), w.env.path(target)).unwrap();
            })
        },
        file: None,
    },
    Attack {
        // A hard link: writing over the existing file would change the outside one.
        name: "existing target file of new --host H (hard-linked outside)",
        hits: &[Hits::File(Slot::Host)],
        mentions: &["already exists", "hard link"],
        stage: |w| {
            each_cli_host(w, |top, _, target| {
                let name = Path::new(target).file_name().unwrap();
                let outside = w.outside.join(format!("host-{top}/agents")).join(name);
                std::fs::hard_link(outside, w.env.path(target)).unwrap();
            })
        },
        file: None,
    },
    Attack {
        name: "FIFO at the target name of new --host H",
        hits: &[Hits::File(Slot::Host)],
        mentions: &["fifo", "already exists"],
        stage: |w| each_cli_host(w, |_, _, target| w.mkfifo(target)),
        file: None,
    },
    Attack {
        // A cloned repository's own code where pi (and `pwk verify`) finds host code:
        // run without the user's consent, it would write outside.
        name: "host code planted in the project (vendored example, .pi/npm package, node_modules pi)",
        hits: &[Hits::File(Slot::HostCode)],
        mentions: &["code in the project"],
        stage: plant_host_code,
        file: None,
    },
];

const FRONT_ENDS: &[FrontEnd] = &[
    FrontEnd {
        name: "lint",
        dirs: &[Slot::Agents, Slot::Pi],
        files: &[Slot::Agents, Slot::Pi],
        findings: &[Slot::Agents, Slot::Pi],
        run: |w, _| cli(w, &["lint"]),
    },
    FrontEnd {
        name: "lint --fix",
        dirs: &[Slot::Agents, Slot::Pi],
        files: &[Slot::Agents, Slot::Pi],
        findings: &[Slot::Agents, Slot::Pi],
        run: |w, _| cli(w, &["lint", "--fix"]),
    },
    FrontEnd {
        name: "lint --diff",
        dirs: &[Slot::Agents, Slot::Pi],
        files: &[Slot::Agents, Slot::Pi],
        findings: &[],
        run: |w, _| cli(w, &["lint", "--diff"]),
    },
    FrontEnd {
        name: "lint --write-baseline / --baseline",
        dirs: &[Slot::Agents, Slot::Pi, Slot::Ci],
        files: &[Slot::Ci],
        findings: &[],
        run: |w, _| {
            let b = "ci/pwk-baseline.json";
            cli(w, &["lint", "--write-baseline", "--baseline", b])
                .then(cli(w, &["lint", "--baseline", b]))
        },
    },
    FrontEnd {
        name: "convert --out .pi/agents",
        dirs: &[Slot::Pi],
        files: &[Slot::Agents],
        findings: &[Slot::Agents],
        run: |w, _| {
            cli(
                w,
                &[
                    "convert",
                    "--from",
                    "tintinweb",
                    "--to",
                    "nicobailon",
                    "--force",
                    "--out",
                    ".pi/agents",
                    ".agents/agents",
                ],
            )
        },
    },
    FrontEnd {
        name: "new",
        dirs: &[Slot::Agents],
        files: &[],
        findings: &[],
        run: |w, _| cli(w, &["new", "probe-role"]),
    },
    FrontEnd {
        // Every host with its own CLI, from the registry, one after another.
        name: "new --host H (each CLI host)",
        dirs: &[Slot::Host],
        files: &[Slot::Host],
        findings: &[],
        run: |w, attack| {
            let hits = attack
                .hits
                .iter()
                .any(|h| matches!(h, Hits::Dir(Slot::Host) | Hits::File(Slot::Host)));
            cli_host_dirs()
                .into_iter()
                .map(|(h, _, _, own)| {
                    let ran = new_for(w, h);
                    // Each host's own run names the attack, not just one of them.
                    let text = String::from_utf8_lossy(&ran.out).to_lowercase();
                    assert!(
                        !hits || !own || attack.mentions.iter().any(|m| text.contains(m)),
                        "new --host {h} does not name the attack (one of {:?}): {text}",
                        attack.mentions
                    );
                    ran
                })
                .reduce(Ran::then)
                .expect("a CLI host")
        },
    },
    FrontEnd {
        name: "setup",
        dirs: &[Slot::Agents],
        files: &[],
        findings: &[],
        run: |w, _| cli(w, &["setup"]),
    },
    FrontEnd {
        name: "list / show",
        dirs: &[Slot::Agents, Slot::Pi],
        files: &[Slot::Agents, Slot::Pi],
        findings: &[],
        run: |w, _| cli(w, &["list", "--all"]).then(cli(w, &["show", "r"])),
    },
    FrontEnd {
        // Given a file's text on stdin: opens no directory and reads no file (the
        // path names the project, host and configuration only).
        name: "lint - --stdin-filename",
        dirs: &[],
        files: &[],
        findings: &[Slot::Agents],
        run: stdin_lint,
    },
    FrontEnd {
        name: "lsp",
        dirs: &[Slot::Agents, Slot::Pi],
        files: &[],
        findings: &[Slot::Agents],
        run: lsp,
    },
    FrontEnd {
        // `pwk verify` reads the role files of each host's own directories (the CLI
        // hosts', and pi's `.agents/agents/` and `.pi/agents/` for tintinweb and pi's
        // example extension) through the bounded reader to stage them; `--dry-run`
        // lists what it would stage and why a file is not, and starts nothing. (A
        // hard-linked file in a CLI host's directory is read as it is, as lint reads
        // it: nothing is written.)
        name: "verify --dry-run",
        dirs: &[Slot::Agents, Slot::Pi, Slot::Host],
        files: &[Slot::Agents, Slot::Pi],
        findings: &[],
        run: |w, _| {
            let mut args = vec!["verify".to_string(), "--dry-run".to_string()];
            for (h, _) in pwk::verify::installed::VERIFIABLE {
                args.push("--host-bin".into());
                args.push(format!("{h}=/bin/true"));
            }
            for ext in [
                "tintinweb=/nonexistent/pi-subagents",
                "pi-example=/nonexistent/subagent",
            ] {
                args.push("--host-bin".into());
                args.push(ext.into());
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            cli(w, &args)
        },
    },
    FrontEnd {
        // `pwk verify` finding the pi extensions as pi does (no --host-bin), run for
        // real when Node is provisioned: no code in the project runs without
        // `--run-project-code`, and the output names what was not run.
        name: "verify (pi extensions found as pi finds them)",
        dirs: &[],
        files: &[Slot::HostCode],
        findings: &[],
        run: |w, _| {
            let node = crate::verify::hosts().map(|(_, node)| node);
            let mut cmd = w.env.pwk();
            cmd.env("PATH", "/nonexistent")
                .env("PI_CODING_AGENT_DIR", w.outside.join("no-agent-dir"))
                .args(["verify", "--only", "pi-example"])
                .args(["--only", "tintinweb", "--only", "nicobailon"]);
            match node {
                Some(node) => cmd.arg("--node").arg(node),
                None => cmd.arg("--dry-run"),
            };
            bounded(cmd, b"", LIMIT, &|_| false)
        },
    },
    FrontEnd {
        name: "mcp lint / list_roles / show_role",
        dirs: &[Slot::Agents, Slot::Pi],
        files: &[Slot::Agents, Slot::Pi],
        findings: &[Slot::Agents, Slot::Pi],
        run: mcp,
    },
];

/// Whether the front end must name the attack.
fn expects_message(attack: &Attack, fe: &FrontEnd) -> bool {
    attack.hits.iter().any(|h| match *h {
        Hits::Dir(s) => fe.dirs.contains(&s),
        Hits::File(s) => fe.files.contains(&s),
        Hits::Content(s) => fe.findings.contains(&s),
    })
}

/// `pwk new probe-role --host H`, then the same with hostile names (a path, a
/// control sequence, a name over the host's own limits): each refused or written
/// inside H's directory, and the output inert.
fn new_for(w: &World, host: &str) -> Ran {
    let mut ran = cli(w, &["new", "probe-role", "--host", host]);
    for name in [
        "../../outside-probe",
        "/tmp/pwk-abs-probe",
        "evil\x1b]0;pwned\x07\x1b[2J",
        "dots..",
        "-leading-dash",
    ] {
        ran = ran.then(cli(w, &["new", name, "--host", host]));
    }
    ran
}

/// Run `pwk ARGS` in the project, bounded.
fn cli(w: &World, args: &[&str]) -> Ran {
    let mut cmd = w.env.pwk();
    cmd.args(args);
    bounded(cmd, b"", LIMIT, &|_| false)
}

/// `pwk lsp` through the test client: open the planted file's text (or the
/// plain role), wait for its diagnostics, shut down.
/// The planted file's text (or a fixable role's, for attacks that plant no regular
/// file), as a front end given text instead of a path sees it.
fn planted_text(w: &World, attack: &Attack) -> (&'static str, Vec<u8>) {
    let rel = attack.file.unwrap_or(".agents/agents/r.md");
    let path = w.env.path(rel);
    let text = std::fs::symlink_metadata(&path)
        .ok()
        .filter(|m| m.is_file())
        .and_then(|_| std::fs::read(&path).ok())
        .unwrap_or_else(|| FIXABLE.as_bytes().to_vec());
    (rel, text)
}

/// `pwk lint -`: the planted file's bytes on stdin, named by `--stdin-filename`.
fn stdin_lint(w: &World, attack: &Attack) -> Ran {
    let (rel, text) = planted_text(w, attack);
    let mut cmd = w.env.pwk();
    cmd.args(["lint", "-", "--stdin-filename", rel]);
    // stdin closes once written: `lint -` reads to its end.
    bounded(cmd, &text, LIMIT, &|_| true)
}

fn lsp(w: &World, attack: &Attack) -> Ran {
    let start = Instant::now();
    let mut cmd = w.env.pwk();
    cmd.arg("lsp");
    let mut client = LspClient::start(cmd);
    client.initialize(&file_uri(w.env.root()));
    let (rel, text) = planted_text(w, attack);
    let text = String::from_utf8_lossy(&text).into_owned();
    let uri = file_uri(&w.env.path(rel));
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
    );
    let diags = client.diagnostics(&uri, 1);
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 2}}),
    );
    // Every other message too (the warnings the server shows the user).
    let messages = client.received();
    lsp_end(
        start,
        client,
        json!({"diagnostics": diags, "hover": hover, "messages": messages}),
    )
}

/// Shut the LSP client's server down: what it said (`seen`, then its stderr) as one
/// run, ended only if it ended within [`LIMIT`] of `start`.
fn lsp_end(start: Instant, client: LspClient, seen: serde_json::Value) -> Ran {
    use std::os::unix::process::ExitStatusExt;
    let (status, stderr) = client.shutdown();
    let mut out = serde_json::to_vec(&seen).unwrap();
    out.extend(stderr.into_bytes());
    Ran {
        code: (start.elapsed() < LIMIT).then(|| status.code()).flatten(),
        signal: status.signal(),
        out,
        killed: false,
    }
}

/// `pwk mcp` over a scripted JSON-RPC session on stdio: initialize, then the
/// `lint` tool on the project's directories and on the planted file.
fn mcp(w: &World, attack: &Attack) -> Ran {
    let mut cmd = w.env.pwk();
    cmd.arg("mcp");
    let paths: Vec<&str> = attack.file.into_iter().collect();
    let calls = [
        ("lint", json!({})),
        (
            "lint",
            if paths.is_empty() {
                json!({})
            } else {
                json!({"paths": paths})
            },
        ),
        ("list_roles", json!({"all": true})),
        ("show_role", json!({"name": "r"})),
    ];
    let input = mcp_session("attack-matrix", &calls);
    bounded(cmd, &input, LIMIT, &|out| mcp_answered(out, calls.len()))
}

/// Every file and directory below `dir`, without following links: type, bytes or
/// link target, mode and mtime.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let what = if m.file_type().is_symlink() {
                format!("link -> {}", std::fs::read_link(&p).unwrap().display())
            } else if m.is_dir() {
                todo.push(p.clone());
                "dir".to_string()
            } else if m.is_file() {
                format!("file {:?}", std::fs::read(&p).unwrap())
            } else {
                "other".to_string()
            };
            out.insert(
                p,
                format!(
                    "{what} mode {:o} mtime {}.{}",
                    m.mode(),
                    m.mtime(),
                    m.mtime_nsec()
                ),
            );
        }
    }
    out
}

/// The entries that differ between two [`snapshot`]s: (path, how it is shown —
/// its name, `(removed)` after one gone).
fn changed(
    before: &BTreeMap<PathBuf, String>,
    after: &BTreeMap<PathBuf, String>,
) -> Vec<(PathBuf, String)> {
    after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(v))
        .map(|(k, _)| (k.clone(), k.display().to_string()))
        .chain(
            before
                .keys()
                .filter(|k| !after.contains_key(*k))
                .map(|k| (k.clone(), format!("{} (removed)", k.display()))),
        )
        .collect()
}

fn cell(attack: &Attack, fe: &FrontEnd) -> Vec<String> {
    let w = World::new();
    (attack.stage)(&w);
    let before = snapshot(&w.outside);
    let ran = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (fe.run)(&w, attack)))
    {
        Ok(ran) => ran,
        Err(e) => {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            return vec![format!(
                "[{} × {}] the driver gave up (no answer in time?): {why}",
                attack.name, fe.name
            )];
        }
    };
    let text = String::from_utf8_lossy(&ran.out).into_owned();
    let mut failed = Vec::new();
    let mut fail = |why: String| failed.push(format!("[{} × {}] {why}", attack.name, fe.name));
    let changed: Vec<String> = changed(&before, &snapshot(&w.outside))
        .into_iter()
        .map(|(_, shown)| shown)
        .collect();
    if !changed.is_empty() {
        fail(format!("changed outside the project: {changed:?}"));
    }
    for why in ran.faults(LIMIT) {
        fail(why);
    }
    if expects_message(attack, fe) && !attack.mentions.is_empty() {
        let lower = text.to_lowercase();
        if !attack.mentions.iter().any(|m| lower.contains(m)) {
            fail(format!(
                "the output does not name the attack (one of {:?}): {text}",
                attack.mentions
            ));
        }
    }
    failed
}

#[test]
fn every_attack_against_every_front_end() {
    let cells: Vec<(&Attack, &FrontEnd)> = ATTACKS
        .iter()
        .flat_map(|a| FRONT_ENDS.iter().map(move |f| (a, f)))
        .collect();
    // A few cells at a time: each is a separate project and pwk process.
    let failures: Vec<String> = std::thread::scope(|s| {
        let chunks: Vec<_> = cells
            .chunks(cells.len().div_ceil(3))
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .flat_map(|(a, f)| cell(a, f))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        chunks.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} cells failed:\n{}",
        failures.len(),
        cells.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Confinement, as a class: every path pwk writes, whoever names it.
//
// A generated matrix: the position of what goes wrong in a named path
// ([`PATH_KINDS`]: absolute, `..` at the start, in the middle, at the end, a
// symbolic link at each directory position, a link as the final name, a dangling
// one, a hard link, a FIFO) × the slot that names it ([`SLOTS`]: a command-line
// flag or argument, a `pwk.toml` key, a request field, each on its front end).
// Every cell stages the path next to an outside directory and asserts:
// - outside the project nothing changes, except beneath the directory the user
//   named on the command line when the path plainly names it (a flag is the
//   user's choice; a key or a request field never reaches outside);
// - no crash, no hang, no raw control character;
// - a refusal says why: the key, "outside the project" and the configuration
//   file for a key naming a path outside; "symbolic link", "hard link", "fifo",
//   `..` for what the path is;
// - a plain path inside the project is written (the class is not vacuous).

/// Who names the path in a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// A command-line flag or argument (or the environment): the user's choice.
    Flag,
    /// A key of a configuration file.
    Key(&'static str),
    /// A field of a request (MCP, LSP); these front ends only read.
    Request,
}

/// What the named path is: a file of this name, or a directory pwk writes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Leaf {
    File(&'static str),
    Dir,
}

impl Leaf {
    fn name(self) -> &'static str {
        match self {
            Leaf::File(n) => n,
            Leaf::Dir => "outdir",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathKind {
    /// `ci/L`, a real path in the project.
    Inside,
    /// The same, absolute.
    InsideAbsolute,
    /// `<outside>/ci/L`.
    OutsideAbsolute,
    /// `../../<outside>/ci/L`: `..` at the start.
    DotDotStart,
    /// `ci/../../<outside>/ci/L`: `..` in the middle, leaving the project.
    DotDotMiddleOut,
    /// `ci/../ci/L`: `..` in the middle, staying in it.
    DotDotMiddleIn,
    /// `ci/L/..`: `..` at the end.
    DotDotEnd,
    /// `a/b/c/L` with the directory at position 1, 2 or 3 a link to the outside.
    LinkAt(usize),
    /// `ci/L` a link to `<outside>/ci/L`.
    LinkFinal,
    /// `ci/L` a link to a missing `<outside>/ci/new-L`.
    Dangling,
    /// `ci/L` a hard link to `<outside>/ci/hl-L`.
    HardLink,
    /// `ci/L` a FIFO.
    Fifo,
}

const PATH_KINDS: [PathKind; 14] = [
    PathKind::Inside,
    PathKind::InsideAbsolute,
    PathKind::OutsideAbsolute,
    PathKind::DotDotStart,
    PathKind::DotDotMiddleOut,
    PathKind::DotDotMiddleIn,
    PathKind::DotDotEnd,
    PathKind::LinkAt(1),
    PathKind::LinkAt(2),
    PathKind::LinkAt(3),
    PathKind::LinkFinal,
    PathKind::Dangling,
    PathKind::HardLink,
    PathKind::Fifo,
];

impl PathKind {
    fn outside(self) -> bool {
        matches!(
            self,
            PathKind::OutsideAbsolute | PathKind::DotDotStart | PathKind::DotDotMiddleOut
        )
    }
}

/// One way a front end takes a path.
struct PathSlot {
    name: &'static str,
    source: Source,
    leaf: Leaf,
    /// The named directory is itself the trust anchor (`setup --dir`, pi's agent
    /// directory): links at and above it are the user's layout, followed.
    named_is_anchor: bool,
    /// The front end writes: a plain path inside must be written.
    writes: bool,
    /// Staging the slot needs besides the path (a configuration naming it).
    stage: fn(&World, &str),
    run: fn(&World, &str) -> Ran,
}

const EMPTY_BASELINE: &str = "{\"version\":1,\"findings\":[]}\n";
const CLAUDE_ROLE: &str = "---\nname: src\ndescription: Reviews.\ntools: Read\n---\nBody.\n";

/// A role both `lint --fix` (`max_turns`) and a conversion from Claude Code
/// (`Read`) change.
const CLAUDE_FIXABLE: &str =
    "---\nname: x\ndescription: Reviews.\ntools: Read\nmax_turns: \"20\"\n---\nBody.\n";

fn leaf_content(name: &str) -> &'static str {
    if name.ends_with(".json") {
        EMPTY_BASELINE
    } else {
        CLAUDE_FIXABLE
    }
}

/// `pwk.toml` text setting `key` to the string `value` (in a list when `list`).
fn toml_key(key: &str, value: &str, list: bool) -> String {
    let v = serde_json::to_string(value).unwrap();
    if list {
        format!("{key} = [{v}]\n")
    } else {
        format!("{key} = {v}\n")
    }
}

/// `--config FILE` of the `--config` slot: next to what P names.
fn config_beside(w: &World, p: &str) -> PathBuf {
    let dir = Path::new(p).parent().unwrap_or(Path::new("."));
    w.env.root().join(dir).join("cfg.toml")
}

fn no_stage(_: &World, _: &str) {}

const SLOTS: &[PathSlot] = &[
    PathSlot {
        name: "lint --write-baseline --baseline P",
        source: Source::Flag,
        leaf: Leaf::File("x.json"),
        named_is_anchor: false,
        writes: true,
        stage: no_stage,
        run: |w, p| cli(w, &["lint", "--write-baseline", "--baseline", p]),
    },
    PathSlot {
        name: "lint --write-baseline, pwk.toml baseline = P",
        source: Source::Key("baseline"),
        leaf: Leaf::File("x.json"),
        named_is_anchor: false,
        writes: true,
        stage: |w, p| {
            w.env.write("pwk.toml", toml_key("baseline", p, false));
        },
        run: |w, _| cli(w, &["lint", "--write-baseline"]),
    },
    PathSlot {
        name: "lint --fix P",
        source: Source::Flag,
        leaf: Leaf::File("x.md"),
        named_is_anchor: false,
        writes: true,
        stage: no_stage,
        run: |w, p| cli(w, &["lint", "--fix", p]),
    },
    PathSlot {
        // A glob: it never selects outside its own directory, nor enters a link.
        name: "lint --fix, pwk.toml paths = [P]",
        source: Source::Key("paths"),
        leaf: Leaf::File("x.md"),
        named_is_anchor: false,
        writes: true,
        stage: |w, p| {
            w.env.write("pwk.toml", toml_key("paths", p, true));
        },
        run: |w, _| cli(w, &["lint", "--fix"]),
    },
    PathSlot {
        // The configuration sits where P is (`--config` is the user's choice; the
        // files its `paths` selects are the configuration's).
        name: "lint --fix --config <dir of P>/cfg.toml, paths = [L]",
        source: Source::Key("paths"),
        leaf: Leaf::File("x.md"),
        named_is_anchor: false,
        writes: true,
        stage: |w, p| {
            let _ = std::fs::write(config_beside(w, p), toml_key("paths", "x.md", true));
        },
        run: |w, p| {
            let config = config_beside(w, p).display().to_string();
            cli(w, &["lint", "--fix", "--config", &config])
        },
    },
    PathSlot {
        name: "convert --out P",
        source: Source::Flag,
        leaf: Leaf::Dir,
        named_is_anchor: false,
        writes: true,
        stage: |w, _| {
            w.env.write(".claude/agents/src.md", CLAUDE_ROLE);
        },
        run: |w, p| {
            cli(
                w,
                &[
                    "convert",
                    "--from",
                    "claude-code",
                    "--to",
                    "tintinweb",
                    "--out",
                    p,
                    ".claude/agents/src.md",
                ],
            )
        },
    },
    PathSlot {
        name: "convert --in-place P",
        source: Source::Flag,
        leaf: Leaf::File("x.md"),
        named_is_anchor: false,
        writes: true,
        stage: no_stage,
        run: |w, p| {
            cli(
                w,
                &[
                    "convert",
                    "--from",
                    "claude-code",
                    "--to",
                    "tintinweb",
                    "--in-place",
                    p,
                ],
            )
        },
    },
    PathSlot {
        name: "new --agents-dir P",
        source: Source::Flag,
        leaf: Leaf::Dir,
        named_is_anchor: false,
        writes: true,
        stage: no_stage,
        run: |w, p| cli(w, &["new", "probe-role", "--agents-dir", p]),
    },
    PathSlot {
        name: "setup --dir P",
        source: Source::Flag,
        leaf: Leaf::Dir,
        named_is_anchor: true,
        writes: true,
        stage: no_stage,
        run: |w, p| cli(w, &["setup", "--dir", p]),
    },
    PathSlot {
        name: "setup --global, PI_CODING_AGENT_DIR=P",
        source: Source::Flag,
        leaf: Leaf::Dir,
        named_is_anchor: true,
        writes: true,
        stage: no_stage,
        run: |w, p| {
            let mut cmd = w.env.pwk();
            cmd.args(["setup", "--global"])
                .env("PI_CODING_AGENT_DIR", w.env.root().join(p));
            bounded(cmd, b"", LIMIT, &|_| false)
        },
    },
    PathSlot {
        name: "mcp lint {paths: [P]}",
        source: Source::Request,
        leaf: Leaf::File("x.md"),
        named_is_anchor: false,
        writes: false,
        stage: no_stage,
        run: |w, p| {
            let mut cmd = w.env.pwk();
            cmd.arg("mcp");
            let calls = [("lint", json!({"paths": [p]}))];
            let input = mcp_session("attack-matrix", &calls);
            bounded(cmd, &input, LIMIT, &|out| mcp_answered(out, calls.len()))
        },
    },
    PathSlot {
        name: "lsp didOpen uri = P",
        source: Source::Request,
        leaf: Leaf::File("x.md"),
        named_is_anchor: false,
        writes: false,
        stage: no_stage,
        run: |w, p| {
            let start = Instant::now();
            let mut cmd = w.env.pwk();
            cmd.arg("lsp");
            let mut client = LspClient::start(cmd);
            client.initialize(&file_uri(w.env.root()));
            let uri = file_uri(&w.env.root().join(p));
            client.notify(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": FIXABLE}}),
            );
            // Answered after the didOpen is handled (a URI the server does not take,
            // `…/x.md/..`, gets no diagnostics).
            let hover = client.request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 2}}),
            );
            let messages = client.received();
            lsp_end(start, client, json!({"hover": hover, "messages": messages}))
        },
    },
];

/// Stage `kind` for a path ending in `leaf`; returns the path as named
/// (relative to the project root, or absolute).
fn stage_path(w: &World, kind: PathKind, leaf: Leaf) -> String {
    let root = w.env.root();
    let out = &w.outside;
    let ln = leaf.name();
    // The real thing at a place: the leaf's file (with content a write would
    // change), or its directory.
    let plant = |at: &Path| {
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        match leaf {
            Leaf::File(n) => std::fs::write(at, leaf_content(n)).unwrap(),
            Leaf::Dir => std::fs::create_dir_all(at).unwrap(),
        }
    };
    // Every outside place a link or a path may reach holds the leaf too.
    plant(&out.join("ci").join(ln));
    for t in ["la/b/c", "lb/c", "lc"] {
        plant(&out.join(t).join(ln));
    }
    let up = "../".repeat(root.components().count() - 1);
    let out_rel = out.strip_prefix("/").unwrap().display().to_string();
    let ci = root.join("ci").join(ln);
    match kind {
        PathKind::Inside => {
            plant(&ci);
            format!("ci/{ln}")
        }
        PathKind::InsideAbsolute => {
            plant(&ci);
            ci.display().to_string()
        }
        PathKind::DotDotMiddleIn => {
            plant(&ci);
            format!("ci/../ci/{ln}")
        }
        PathKind::DotDotEnd => {
            plant(&ci);
            format!("ci/{ln}/..")
        }
        PathKind::OutsideAbsolute => out.join("ci").join(ln).display().to_string(),
        PathKind::DotDotStart => format!("{up}{out_rel}/ci/{ln}"),
        PathKind::DotDotMiddleOut => format!("ci/../{up}{out_rel}/ci/{ln}"),
        PathKind::LinkAt(k) => {
            let (inside, target) = match k {
                1 => ("a", "la"),
                2 => ("a/b", "lb"),
                _ => ("a/b/c", "lc"),
            };
            std::fs::create_dir_all(root.join(inside).parent().unwrap()).unwrap();
            symlink(out.join(target), root.join(inside)).unwrap();
            format!("a/b/c/{ln}")
        }
        PathKind::LinkFinal => {
            symlink(out.join("ci").join(ln), &ci).unwrap();
            format!("ci/{ln}")
        }
        PathKind::Dangling => {
            symlink(out.join(format!("ci/new-{ln}")), &ci).unwrap();
            format!("ci/{ln}")
        }
        PathKind::HardLink => {
            match leaf {
                Leaf::File(n) => {
                    let target = out.join(format!("ci/hl-{ln}"));
                    std::fs::write(&target, leaf_content(n)).unwrap();
                    std::fs::hard_link(&target, &ci).unwrap();
                }
                // Directories have no hard links: a plain directory.
                Leaf::Dir => plant(&ci),
            }
            format!("ci/{ln}")
        }
        PathKind::Fifo => {
            w.mkfifo(&format!("ci/{ln}"));
            format!("ci/{ln}")
        }
    }
}

/// What the output must say when the cell is refused: all of `.0` (`true`) or
/// one of them (`false`).
fn path_refusal(kind: PathKind, slot: &PathSlot) -> Option<(Vec<&'static str>, bool)> {
    if slot.source == Source::Request || slot.named_is_anchor {
        return None;
    }
    let config_outside = slot.name.contains("--config");
    match slot.source {
        // A key naming a path outside: the key, what it is, and where it is set.
        Source::Key(k) if kind.outside() && (k == "baseline" || config_outside) => {
            return Some((vec![k, "outside the project", ".toml:"], true));
        }
        _ => {}
    }
    let file = matches!(slot.leaf, Leaf::File(_));
    let walked_glob = slot.source == Source::Key("paths") && !config_outside;
    match kind {
        PathKind::DotDotMiddleOut | PathKind::DotDotMiddleIn if slot.source == Source::Flag => {
            Some((vec!["`..`"], false))
        }
        // A glob's walk does not enter a linked directory: nothing is selected.
        PathKind::LinkAt(_) if walked_glob => None,
        PathKind::LinkAt(_) | PathKind::LinkFinal | PathKind::Dangling => {
            Some((vec!["symbolic link"], false))
        }
        PathKind::HardLink if file => Some((vec!["hard link"], false)),
        PathKind::Fifo => Some((vec!["fifo"], false)),
        _ => None,
    }
}

/// Where outside the project the cell may write: beneath what the user named,
/// when it plainly names a place there (or, for a named anchor, wherever it
/// resolves, links included).
fn allowed_outside(w: &World, kind: PathKind, slot: &PathSlot, p: &str) -> Option<PathBuf> {
    if slot.source != Source::Flag {
        return None;
    }
    let named = w.env.root().join(p);
    if slot.named_is_anchor {
        return std::fs::canonicalize(named).ok();
    }
    if !matches!(kind, PathKind::OutsideAbsolute | PathKind::DotDotStart) {
        return None;
    }
    let at = w.outside.join("ci");
    Some(match slot.leaf {
        Leaf::File(_) => at,
        Leaf::Dir => at.join(slot.leaf.name()),
    })
}

fn path_cell(kind: PathKind, slot: &PathSlot) -> Vec<String> {
    let w = World::new();
    let p = stage_path(&w, kind, slot.leaf);
    (slot.stage)(&w, &p);
    let before = snapshot(&w.outside);
    let ci_before = snapshot(&w.env.path("ci"));
    let ran = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (slot.run)(&w, &p))) {
        Ok(ran) => ran,
        Err(_) => return vec![format!("[{kind:?} × {}] the driver gave up", slot.name)],
    };
    let text = String::from_utf8_lossy(&ran.out).into_owned();
    let mut failed = Vec::new();
    let mut fail = |why: String| failed.push(format!("[{kind:?} × {}] P = {p}: {why}", slot.name));
    let allowed = allowed_outside(&w, kind, slot, &p);
    let changed: Vec<String> = changed(&before, &snapshot(&w.outside))
        .into_iter()
        .filter(|(k, _)| !allowed.as_ref().is_some_and(|a| k.starts_with(a)))
        .map(|(_, shown)| shown)
        .collect();
    if !changed.is_empty() {
        fail(format!(
            "WROTE OUTSIDE the project: {changed:?}; output: {text}"
        ));
    }
    for why in ran.faults(LIMIT) {
        fail(why);
    }
    if let Some((words, all)) = path_refusal(kind, slot) {
        let lower = text.to_lowercase();
        let said = |m: &&str| lower.contains(&m.to_lowercase());
        let ok = if all {
            words.iter().all(said)
        } else {
            words.iter().any(said)
        };
        if !ok {
            fail(format!(
                "the output does not say why ({} of {words:?}): {text}",
                if all { "all" } else { "one" }
            ));
        }
    }
    // (`paths` is a glob relative to its file: an absolute one names nothing.)
    let plain_inside = kind == PathKind::Inside
        || (kind == PathKind::InsideAbsolute && slot.source != Source::Key("paths"));
    if slot.writes
        && plain_inside
        && (!matches!(ran.code, Some(0) | Some(1)) || snapshot(&w.env.path("ci")) == ci_before)
    {
        fail(format!(
            "a plain path in the project was not written (exit {:?}): {text}",
            ran.code
        ));
    }
    failed
}

#[test]
fn every_named_write_path_is_confined() {
    let cells: Vec<(PathKind, &PathSlot)> = PATH_KINDS
        .iter()
        .flat_map(|&k| SLOTS.iter().map(move |s| (k, s)))
        .collect();
    assert_eq!(cells.len(), PATH_KINDS.len() * SLOTS.len());
    let failures: Vec<String> = std::thread::scope(|s| {
        let chunks: Vec<_> = cells
            .chunks(cells.len().div_ceil(3))
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .flat_map(|(k, slot)| path_cell(*k, slot))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        chunks.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} cells failed:\n{}",
        failures.len(),
        cells.len(),
        failures.join("\n")
    );
}
