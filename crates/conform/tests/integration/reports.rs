//! Report files and the text report of a real run: every report file of a broken
//! CLI read back as its consumers read it, and report paths that cannot be written
//! refused before anything runs. The renderers on fixed results, with their
//! snapshots, are conform-core's to test (src/render/tests.rs).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{conform, repo_root, schema_errors, temp_profile};

const SARIF_SCHEMA: &str = include_str!("../fixtures/sarif/sarif-2.1.0-subset.schema.json");

#[test]
fn a_broken_cli_gets_every_report_file_and_a_readable_text_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |name: &str| dir.path().join(name);
    let profile = "conformance/profiles/bad/ansi-when-piped.json";
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_conform"))
        .current_dir(repo_root())
        .args(["run", profile, "--format", "text", "--verbose", "--junit"])
        .arg(path("junit.xml"))
        .arg("--sarif")
        .arg(path("conform.sarif"))
        .arg("--markdown")
        .arg(path("summary.md"))
        .arg("--badge")
        .arg(path("badge.svg"))
        .env("NO_COLOR", "1")
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(4));
    let text = String::from_utf8(output.stdout).expect("UTF-8 text");
    assert!(
        !text.contains(r"\u{1b}") && !text.contains(r#"\""#) && !text.contains('\u{1b}'),
        "{text}"
    );
    assert!(text.contains("␛[34m"), "{text}");
    let summary_line = summary_without_network(&text);
    assert!(
        summary_line.ends_with(" checks failed"),
        "{summary_line}\n{text}"
    );

    let xml = std::fs::read_to_string(path("junit.xml")).expect("JUnit written");
    let junit = quick_junit::Report::deserialize_from_str(&xml).expect("JUnit parses");
    assert_eq!(junit.test_suites[0].name.as_str(), "ansi-when-piped");
    assert_eq!(
        junit.test_suites[0].test_cases.len(),
        conform_core::command::check_ids().count()
    );

    let sarif: Value = serde_json::from_str(
        &std::fs::read_to_string(path("conform.sarif")).expect("SARIF written"),
    )
    .expect("SARIF is JSON");
    assert_eq!(schema_errors(SARIF_SCHEMA, &sarif), Vec::<String>::new());
    let profile_text = std::fs::read_to_string(repo_root().join(profile)).expect("profile");
    let lines: Vec<&str> = profile_text.lines().collect();
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for result in results {
        assert_eq!(
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            profile
        );
        let region = &result["locations"][0]["physicalLocation"]["region"];
        let line = lines[region["startLine"].as_u64().expect("line") as usize - 1];
        let at: String = line
            .chars()
            .skip(region["startColumn"].as_u64().expect("column") as usize - 1)
            .collect();
        // Each region starts at the entry: a probe object or a top-level key.
        assert!(
            at.starts_with('{') || at.starts_with('"'),
            "{result:#}: {line}"
        );
    }

    let summary = std::fs::read_to_string(path("summary.md")).expect("Markdown written");
    assert!(
        summary.contains("<details><summary>❌ <code>json_envelope</code>"),
        "{summary}"
    );
    let svg = std::fs::read_to_string(path("badge.svg")).expect("badge written");
    assert!(
        svg.contains(" failing checks</title>") && svg.contains("#e05d44"),
        "{svg}"
    );
}

/// broken-pipe-panics fails only an extension check, so every level passes (levels
/// count only the reference kit's checks) while conform exits 4: the badge is not
/// green and counts the failure, and the summaries say so in their first line.
#[test]
fn a_failing_run_with_passing_levels_gets_no_green_badge_and_says_it_failed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |name: &str| dir.path().join(name);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_conform"))
        .current_dir(repo_root())
        .args([
            "run",
            "conformance/profiles/bad/broken-pipe-panics.json",
            "--format",
            "text",
            "--markdown",
        ])
        .arg(path("summary.md"))
        .arg("--badge")
        .arg(path("badge.svg"))
        .env("NO_COLOR", "1")
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(4));
    let text = String::from_utf8(output.stdout).expect("UTF-8 text");
    assert!(
        text.contains("level 1 pass  level 2 pass  level 3 pass  1 check failed, "),
        "{text}"
    );
    let summary_line = summary_without_network(&text);
    assert_eq!(summary_line, "Summary: 1 check failed", "{text}");

    let svg = std::fs::read_to_string(path("badge.svg")).expect("badge written");
    assert!(
        svg.contains("<title>agent-ready: 1 failing check</title>"),
        "{svg}"
    );
    assert!(svg.contains("#e05d44") && !svg.contains("#4c1"), "{svg}");

    let markdown = std::fs::read_to_string(path("summary.md")).expect("Markdown written");
    assert_eq!(
        markdown.lines().next(),
        Some("## ❌ conform: 1 check failed"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| ✅ pass | ✅ pass | ✅ pass |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("Levels count only the reference kit's 14 checks"),
        "{markdown}"
    );
    assert!(
        markdown.contains("<code>sigpipe_quiet</code>"),
        "{markdown}"
    );
}

/// Run conform with one report flag on `path`; it must refuse before running: the
/// profile's tool leaves a file behind whenever it runs, and none is there.
fn refused(flag: &str, path: &Path) -> crate::support::Conform {
    let tool_dir = tempfile::tempdir().expect("temp dir");
    let ran = tool_dir.path().join("ran");
    let tool = tool_dir.path().join("tool.sh");
    std::fs::write(
        &tool,
        format!("#!/bin/sh\n: >> '{}'\necho '{{}}'\n", ran.display()),
    )
    .expect("tool written");
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let probes = serde_json::json!([{ "name": "probe", "argv": [], "kind": "read" }]);
    let (_profile_dir, profile) = temp_profile(&tool, 60.0, probes);
    let run = conform([
        "run".as_ref(),
        profile.as_os_str(),
        flag.as_ref(),
        path.as_os_str(),
    ]);
    assert_eq!(run.code(), 2, "{:#}", run.envelope);
    assert_eq!(
        run.envelope["error"]["code"], "USAGE_ERROR",
        "{:#}",
        run.envelope
    );
    assert!(!ran.exists(), "the tool ran before {flag} was refused");
    run
}

#[test]
fn report_paths_that_cannot_be_written_are_refused_before_anything_runs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let missing: PathBuf = dir.path().join("no-such-dir/junit.xml");
    let run = refused("--junit", &missing);
    let message = run.envelope["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.starts_with("--junit") && message.contains("does not exist"),
        "{message}"
    );
    assert!(!missing.exists());

    let run = refused("--sarif", dir.path());
    let message = run.envelope["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("is a directory"), "{message}");

    let read_only = dir.path().join("badge.svg");
    std::fs::write(&read_only, "old badge").expect("write");
    std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let run = refused("--badge", &read_only);
    let message = run.envelope["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("read-only"), "{message}");
    assert_eq!(
        std::fs::read_to_string(&read_only).expect("read"),
        "old badge"
    );

    // Nothing half-written: the directory holds only the read-only file.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, ["badge.svg"]);
}

/// usage-error-exit-64's invalid probe exits 64: one run failing exit_code_contract,
/// invalid_input_exit_2 and exit_codes_declared, shown once under its cause in the
/// text report and linked by a `cause` id in `--json-report`.
#[test]
fn one_run_failing_several_checks_is_grouped_under_its_cause() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report_path = dir.path().join("report.json");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_conform"))
        .current_dir(repo_root())
        .args([
            "run",
            "conformance/profiles/bad/usage-error-exit-64.json",
            "--only",
            "exit_code_contract,invalid_input_exit_2,exit_codes_declared,unknown_command_exit_2",
            "--format",
            "text",
            "--verbose",
            "--json-report",
        ])
        .arg(&report_path)
        .env("NO_COLOR", "1")
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(4));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains(
            "CAUSE 1 one run fails 3 checks: exit_code_contract, invalid_input_exit_2, \
             exit_codes_declared\n    exit_code_contract: exited 64, outside the exit-code table"
        ),
        "{text}"
    );
    assert_eq!(text.matches("see cause 1 above").count(), 3, "{text}");
    // unknown_command_exit_2 failed on other runs: no cause, shown in its section.
    assert!(!text.contains("CAUSE 2"), "{text}");

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).expect("report written"))
            .expect("report is JSON");
    let schema = include_str!("../../../conform-core/schemas/json-report.schema.json");
    assert_eq!(schema_errors(schema, &report), Vec::<String>::new());
    let result = &report["results"][0];
    let causes = result["causes"].as_array().expect("causes");
    assert_eq!(causes.len(), 1, "{causes:#?}");
    assert_eq!(causes[0]["id"], "cause-1");
    assert_eq!(causes[0]["exit_code"], 64);
    let linked: Vec<&str> = result["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|check| {
            check["failures"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|f| f["cause"] == "cause-1")
        })
        .filter_map(|check| check["id"].as_str())
        .collect();
    assert_eq!(
        linked,
        [
            "exit_code_contract",
            "invalid_input_exit_2",
            "exit_codes_declared"
        ]
    );
}

/// The summary line less the isolation its runs at the black hole had, which it
/// always names (`(network: namespace)` where the machine allows one).
fn summary_without_network(text: &str) -> &str {
    let line = text
        .lines()
        .find(|line| line.starts_with("Summary: "))
        .unwrap_or_default();
    let (summary, network) = line
        .split_once(" (network: ")
        .unwrap_or_else(|| panic!("the summary names no network isolation: {line}"));
    assert!(network.ends_with(')'), "{line}");
    summary
}
