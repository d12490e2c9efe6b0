//! The GitHub Action's script (scripts/action.sh), run as the Action runs it, with a
//! temporary step summary and output file and conform already built.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::repo_root;

struct ActionRun {
    output: Output,
    summary: String,
    outputs: String,
    sarif: Option<Value>,
}

fn run_action(profiles: &str, args: &str) -> ActionRun {
    let dir = tempfile::tempdir().expect("temp dir");
    let summary = dir.path().join("summary.md");
    let outputs = dir.path().join("output");
    let sarif = dir.path().join("conform.sarif");
    // The runner creates both files; other steps may have written to the summary.
    std::fs::write(&summary, "earlier step\n").expect("summary");
    std::fs::write(&outputs, "").expect("output");
    let output = Command::new("bash")
        .arg(repo_root().join("scripts/action.sh"))
        .current_dir(repo_root())
        .env("CONFORM_BIN", env!("CARGO_BIN_EXE_conform"))
        .env("INPUT_PROFILES", profiles)
        .env("INPUT_ARGS", args)
        .env("INPUT_SARIF", &sarif)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .env("CI", "true")
        .output()
        .expect("bash runs the script");
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    ActionRun {
        summary: read(&summary),
        outputs: read(&outputs),
        sarif: std::fs::read(&sarif)
            .ok()
            .map(|bytes| serde_json::from_slice(&bytes).expect("the SARIF file is JSON")),
        output,
    }
}

#[test]
fn a_passing_run_appends_the_summary_and_writes_sarif_and_outputs() {
    let run = run_action(
        "conformance/profiles/democli.json",
        "--only help_off_stdout",
    );
    assert_eq!(
        run.output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.output.stdout)
    );
    assert!(run.summary.starts_with("earlier step\n"), "{}", run.summary);
    assert!(run.summary.contains("democli"), "{}", run.summary);
    assert!(run.outputs.contains("exit-code=0\n"), "{}", run.outputs);
    assert!(run.outputs.contains("sarif="), "{}", run.outputs);
    let sarif = run.sarif.expect("a SARIF file");
    assert_eq!(sarif["version"], "2.1.0");
}

#[test]
fn failed_checks_fail_the_step_with_exit_4() {
    let run = run_action(
        "conformance/profiles/bad/help-on-stdout.json",
        "--only help_off_stdout",
    );
    assert_eq!(run.output.status.code(), Some(4));
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    assert!(
        stdout.contains("::error::conform: at least one conformance check failed"),
        "{stdout}"
    );
    assert!(run.summary.contains("help_off_stdout"), "{}", run.summary);
    assert!(run.outputs.contains("exit-code=4\n"), "{}", run.outputs);
    let sarif = run.sarif.expect("a SARIF file");
    assert!(sarif["runs"][0]["results"]
        .as_array()
        .is_some_and(|r| !r.is_empty()));
}

#[test]
fn an_invalid_profile_fails_the_step_with_exit_2_and_no_sarif() {
    let run = run_action("no-such-profile.json", "");
    assert_eq!(run.output.status.code(), Some(2));
    assert!(run.outputs.contains("exit-code=2\n"), "{}", run.outputs);
    assert!(!run.outputs.contains("sarif="), "{}", run.outputs);
    assert!(run.sarif.is_none());
    assert_eq!(run.summary, "earlier step\n");
}
