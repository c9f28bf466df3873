//! `pwk smoke`: lint + resolution + the exact launch, and `--run` through the runner.

use std::path::PathBuf;

use serde_json::Value;

use crate::delegate_e2e::{FAST_FAIL, Gen, World, pi_bin};
use crate::support::fake_llm::Reply;
use crate::support::{TestEnv, run};

const ROLE: &str = "---\nname: probe-role\ndescription: Answers smoke tests for pwk's own tests.\ntools: read, grep\nthinking: low\nmax_turns: 3\nmodel: mock/mock-model\n---\n# Probe role\n\nYou are the probe role. Say SMOKE-BODY-MARKER when asked who you are.\n";

/// A stand-in pi that records its argv, its stdin and its system-prompt file, then
/// prints a minimal successful pi event stream.
fn recording_pi(env: &TestEnv) -> (PathBuf, PathBuf) {
    let rec = env.path("rec");
    std::fs::create_dir_all(&rec).unwrap();
    let script = format!(
        r#"#!/bin/sh
rec='{rec}'
: > "$rec/argv"
prev=
for a in "$@"; do
  printf '%s\n' "$a" >> "$rec/argv"
  if [ "$prev" = "--system-prompt" ]; then cp "$a" "$rec/system-prompt"; fi
  prev=$a
done
cat > "$rec/stdin"
printf '%s\n' '{{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}}'
printf '%s\n' '{{"type":"agent_start"}}'
printf '%s\n' '{{"type":"turn_start"}}'
printf '%s\n' '{{"type":"message_end","message":{{"role":"assistant","content":[{{"type":"text","text":"probe-role: read, grep"}}],"provider":"mock","model":"mock-model","usage":{{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"stop","timestamp":0}}}}'
printf '%s\n' '{{"type":"agent_end","messages":[]}}'
"#,
        rec = rec.display()
    );
    let bin = env.executable("bin/recording-pi", script);
    (bin, rec)
}

#[test]
fn printed_launch_is_what_the_runner_launches() {
    let env = TestEnv::new();
    env.write(".agents/agents/probe-role.md", ROLE);
    let (bin, rec) = recording_pi(&env);

    let plan =
        run(env
            .pwk()
            .env("PWK_PI_BIN", &bin)
            .args(["smoke", "probe-role", "--format", "json"]));
    assert_eq!(plan.code, 0, "{}\n{}", plan.stdout, plan.stderr);
    let plan: Value = serde_json::from_str(&plan.stdout).unwrap();
    // Without --run nothing is launched; asking `pi --list-models` (the model check)
    // is the only call allowed.
    assert!(
        std::fs::read_to_string(rec.join("argv")).map_or(true, |a| a == "--list-models\n"),
        "smoke without --run launched something"
    );
    assert_eq!(plan["lint"]["errors"], 0);
    assert_eq!(plan["source"], "project");
    assert_eq!(plan["launch"]["prompt_transport"], "stdin");
    let planned: Vec<String> = plan["launch"]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();

    let out = run(env.pwk().env("PWK_PI_BIN", &bin).args([
        "smoke",
        "probe-role",
        "--run",
        "--format",
        "json",
    ]));
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let result: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(result["run"]["status"], "completed", "{result:#}");

    // What the stand-in pi actually received, argument by argument.
    let launched: Vec<String> = std::fs::read_to_string(rec.join("argv"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        launched.len(),
        planned.len(),
        "planned {planned:?}\nlaunched {launched:?}"
    );
    for (i, (p, l)) in planned.iter().zip(&launched).enumerate() {
        if p == "<system-prompt temp file>" {
            assert_eq!(planned[i - 1], "--system-prompt");
            continue; // the temp file's path is chosen at launch
        }
        assert_eq!(p, l, "argument {i} differs");
    }
    for flag in [
        "--mode",
        "json",
        "--tools",
        "read,grep",
        "--thinking",
        "low",
        "--provider",
        "mock",
        "--model",
        "mock-model",
    ] {
        assert!(
            launched.iter().any(|a| a == flag),
            "{flag} not launched: {launched:?}"
        );
    }
    // The prompt went on stdin, and the role body was the system prompt.
    let stdin = std::fs::read_to_string(rec.join("stdin")).unwrap();
    assert_eq!(stdin, result["prompt"].as_str().unwrap());
    let system = std::fs::read_to_string(rec.join("system-prompt")).unwrap();
    assert!(system.contains("SMOKE-BODY-MARKER"), "{system}");
}

#[test]
fn lint_errors_and_shadowing_are_reported() {
    let env = TestEnv::new();
    // A project copy of a canonical role with a misspelt key shadows the package one.
    env.write(
        ".agents/agents/pwk-smell-reviewer.md",
        "---\nname: pwk-smell-reviewer\ndescription: local copy\ntols: read, grep\n---\nBody.\n",
    );
    let out = run(env.pwk().args(["smoke", "pwk-smell-reviewer"]));
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("unknown-key"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("shadows  builtin:pwk-smell-reviewer.md (package)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("Nothing was launched"),
        "{}",
        out.stdout
    );
}

#[test]
fn unknown_role_is_exit_2_with_a_suggestion() {
    let env = TestEnv::new();
    let out = run(env.pwk().args(["smoke", "pwk-spec-reviwer"]));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("did you mean `pwk-spec-reviewer`"),
        "{}",
        out.stderr
    );
}

#[test]
fn missing_pi_is_said_not_hidden() {
    let env = TestEnv::new();
    let out = run(env
        .pwk()
        .env("PWK_PI_BIN", env.path("no-such-pi"))
        .args(["smoke", "pwk-recon-scout"]));
    assert_eq!(
        out.code, 0,
        "planning without pi is still a smoke test of the definition"
    );
    assert!(out.stdout.contains("cannot be planned"), "{}", out.stdout);
    let out = run(env.pwk().env("PWK_PI_BIN", env.path("no-such-pi")).args([
        "smoke",
        "pwk-recon-scout",
        "--run",
    ]));
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("PiNotFound") || out.stdout.contains("PI_NOT_FOUND"),
        "{}",
        out.stdout
    );
}

fn smoke_run_on_real_pi(generation: Gen, pi: PathBuf) {
    let w = World::new(
        generation,
        pi,
        vec![],
        Reply::text("probe-role: read, grep"),
        FAST_FAIL,
    );
    w.env.write("work/.agents/agents/probe-role.md", ROLE);
    let out = run(w.pwk().current_dir(&w.work).args([
        "smoke",
        "probe-role",
        "--run",
        "--format",
        "json",
    ]));
    assert_eq!(
        out.code, 0,
        "{generation:?}: {}\n{}",
        out.stdout, out.stderr
    );
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["run"]["status"], "completed");
    assert_eq!(
        v["run"]["final_text"].as_str().unwrap().trim(),
        "probe-role: read, grep"
    );
    // The model saw the role body as its system prompt, only the role's tools, and
    // the smoke prompt as the user message.
    let reqs = w.llm.requests();
    assert_eq!(reqs.len(), 1, "{generation:?}: one model call");
    let body = &reqs[0];
    assert_eq!(body["model"], "mock-model");
    let system: String = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system" || m["role"] == "developer")
        .map(|m| m["content"].to_string())
        .collect();
    assert!(
        system.contains("SMOKE-BODY-MARKER"),
        "{generation:?}: {system}"
    );
    let mut tools: Vec<String> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    tools.sort();
    assert_eq!(tools, ["grep", "read"], "{generation:?}");
    assert!(w.llm.user_texts()[0].contains("smoke test of your role definition"));
}

#[test]
fn smoke_run_real_pi073() {
    if let Some(pi) = pi_bin(Gen::Pi073) {
        smoke_run_on_real_pi(Gen::Pi073, pi);
    }
}

#[test]
fn smoke_run_real_pi16() {
    if let Some(pi) = pi_bin(Gen::Pi16) {
        smoke_run_on_real_pi(Gen::Pi16, pi);
    }
}
