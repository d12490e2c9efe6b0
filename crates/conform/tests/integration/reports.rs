//! Report files and the text report: snapshots of every renderer on fixed results,
//! the JUnit and SARIF files read back as their consumers read them, and report
//! paths that cannot be written refused before anything runs.

use std::path::{Path, PathBuf};

use serde_json::Value;

use conform::checks::evidence::RunFacts;
use conform::checks::{CheckId, Evidence, Status};
use conform::envelope::ExitStatus;
use conform::profile::Locations;
use conform::render::style::Style;
use conform::render::{self, badge, junit, markdown, run, sarif, Finished, ReportFormat, Sources};
use conform::result::{verdicts, Check, CheckReport, ProfileReport};

use crate::support::{conform, repo_root, schema_errors};

/// The fixture profile the fixed results come from, as a path relative to the
/// repository root (where the tests run conform).
const FIXTURE: &str = "crates/conform/tests/fixtures/sarif/profile.json";
const SARIF_SCHEMA: &str = include_str!("../fixtures/sarif/sarif-2.1.0-subset.schema.json");

fn facts(probe: &str, pointer: &str, argv: &[&str]) -> RunFacts {
    RunFacts {
        probe: probe.into(),
        pointer: pointer.into(),
        argv: std::iter::once("./fixturecli")
            .chain(argv.iter().copied())
            .map(String::from)
            .collect(),
        stdin: "closed",
        exit_code: Some(0),
        duration_ms: 12,
        env: vec!["TERM=xterm-256color".into()],
        ..Default::default()
    }
}

fn check(
    id: CheckId,
    runs_checked: usize,
    failures: Vec<Evidence>,
    skipped: Option<&str>,
) -> CheckReport {
    let spec = id.spec();
    let status = match (&failures[..], skipped) {
        (_, Some(_)) => Status::Skip,
        ([], None) => Status::Pass,
        _ => Status::Fail,
    };
    CheckReport {
        check: Check {
            id: spec.name,
            title: spec.title,
            status,
            level: spec.level,
            failure_modes: spec.failure_modes.iter().map(|n| format!("§{n}")).collect(),
            requirements: spec.requirements.to_vec(),
            runs_checked,
            failures,
            skipped_reason: skipped.map(String::from),
        },
        extension: spec.extension,
    }
}

fn report(
    profile: &str,
    tool: &str,
    checks: Vec<CheckReport>,
    runs: Vec<RunFacts>,
) -> ProfileReport {
    let selected = CheckId::all();
    let (levels, summary) = verdicts(&checks, &selected);
    ProfileReport {
        profile: profile.into(),
        tool: tool.into(),
        levels,
        summary,
        checks,
        runs,
        duration_ms: 1234,
    }
}

/// Two profiles with fixed timings: one passing every check, one whose ANSI-colored
/// output fails two checks on two runs (one cause each), whose open-stdin run hangs,
/// whose `--help` is killed by a signal, with a skipped check and Markdown syntax in
/// a detail.
fn fixed_results() -> Vec<ProfileReport> {
    let mut list = facts("list", "/probes/0", &["list"]);
    list.stdout_bytes = 31;
    list.stdout_excerpt = "{\u{1b}[34m\"ok\"\u{1b}[0m: true}\nsecond line\n".into();
    let mut delete = facts(
        "delete all --dry-run",
        "/probes/1",
        &["delete", "--all", "--dry-run"],
    );
    delete.stdout_bytes = 12;
    delete.stdout_excerpt = "\u{1b}[1m{}\u{1b}[0m".into();
    let mut open = facts("delete all", "/probes/1", &["delete", "--all"]);
    open.stdin = "open";
    open.exit_code = None;
    open.timed_out = true;
    open.duration_ms = 5000;
    open.env = vec!["-CI".into(), "TERM=xterm-256color".into()];
    open.stderr_bytes = 22;
    open.stderr_excerpt = "Really delete? [y/N] ".into();
    let mut help = facts("--help", "/command", &["--help"]);
    help.exit_code = None;
    help.signal = Some("SIGSEGV".into());
    let not_json = |run: &RunFacts, start: &str| {
        Evidence {
        run: run.clone(),
        detail: format!(
            "stdout is not a single JSON document (key must be a string at line 1 column 2); it starts {start:?}: JSON must be on by default when stdout is not a terminal (REQ-F-003)"
        ),
    }
    };
    let failing = vec![
        check(CheckId::NoHangStdinClosed, 2, vec![], None),
        check(
            CheckId::NoHangStdinOpen,
            2,
            vec![Evidence {
                run: open.clone(),
                detail: "no exit within the 5s limit; the kit killed its process group".into(),
            }],
            None,
        ),
        check(
            CheckId::JsonEnvelope,
            2,
            vec![
                not_json(&list, "{\u{1b}[34m\"ok\""),
                not_json(&delete, "\u{1b}[1m{}"),
            ],
            None,
        ),
        check(
            CheckId::HelpOffStdout,
            1,
            vec![Evidence {
                run: help.clone(),
                detail: "--help was killed by SIGSEGV; expected exit 0 with `usage | help` on stderr <only>".into(),
            }],
            None,
        ),
        check(
            CheckId::ProfileConsistency,
            0,
            vec![],
            Some("the tool gave no valid manifest (manifest_valid reports why)"),
        ),
    ];
    let passing = vec![
        check(CheckId::NoHangStdinClosed, 2, vec![], None),
        check(CheckId::JsonEnvelope, 2, vec![], None),
    ];
    vec![
        report(
            "conformance/profiles/democli.json",
            "democli",
            passing,
            vec![facts("list", "/probes/0", &["list"])],
        ),
        report(
            FIXTURE,
            "fixturecli",
            failing,
            vec![list, delete, open, help],
        ),
    ]
}

fn fixture_sources() -> Sources {
    let text = std::fs::read_to_string(repo_root().join(FIXTURE)).expect("fixture profile");
    let mut sources = Sources::default();
    sources.insert(FIXTURE, Locations::scan(&text));
    sources
}

#[test]
fn text_report_snapshot() {
    let text = run::to_text(&fixed_results(), &fixture_sources(), Style { color: false });
    insta::assert_snapshot!("text", text);
}

#[test]
fn junit_report_snapshot() {
    let xml = junit::to_xml(&fixed_results(), &fixture_sources()).expect("serializes");
    insta::assert_snapshot!("junit", xml);
}

#[test]
fn sarif_report_snapshot() {
    let json =
        sarif::to_json(&fixed_results(), &fixture_sources(), &repo_root()).expect("serializes");
    insta::assert_snapshot!("sarif", json);
}

#[test]
fn markdown_report_snapshot() {
    insta::assert_snapshot!(
        "markdown",
        markdown::to_markdown(&fixed_results(), &fixture_sources())
    );
}

#[test]
fn badge_snapshots() {
    let results = fixed_results();
    insta::assert_snapshot!("badge_failing", badge::to_svg(&results));
    insta::assert_snapshot!("badge_level_3", badge::to_svg(&results[..1]));
}

#[test]
fn the_badge_names_the_highest_level_every_profile_passes() {
    use conform::result::LevelStatus::{Fail, Incomplete, Pass};
    let mut results = fixed_results();
    let mut with = |l1, l2, l3| {
        let r = &mut results[0];
        r.levels.level_1 = l1;
        r.levels.level_2 = l2;
        r.levels.level_3 = l3;
        badge::verdict(&results[..1])
    };
    assert_eq!(with(Pass, Pass, Pass), ("level 3".into(), "#4c1"));
    assert_eq!(with(Pass, Fail, Fail), ("level 1".into(), "#e05d44"));
    assert_eq!(with(Pass, Pass, Incomplete), ("level 2".into(), "#dfb317"));
    assert_eq!(with(Fail, Fail, Fail), ("failing".into(), "#e05d44"));
    assert_eq!(
        with(Incomplete, Incomplete, Incomplete),
        ("incomplete".into(), "#9f9f9f")
    );
}

#[test]
fn the_text_report_shows_control_bytes_as_pictures_never_as_rust_escapes() {
    let text = run::to_text(&fixed_results(), &fixture_sources(), Style { color: false });
    for escaped in [r"\u{1b}", r#"\""#, "\u{1b}"] {
        assert!(!text.contains(escaped), "{escaped} in:\n{text}");
    }
    assert!(
        text.contains(r#"it starts "{␛[34m"ok"": JSON must"#),
        "{text}"
    );
    assert!(text.contains(r#"stdout │ {␛[34m"ok"␛[0m: true}"#), "{text}");
    assert!(
        text.contains("$ env -u CI TERM=xterm-256color ./fixturecli delete --all\n"),
        "an open stdin has no redirect: {text}"
    );
    assert!(text.contains("stdin: an open pipe"), "{text}");
    assert!(
        text.contains("$ TERM=xterm-256color ./fixturecli list </dev/null"),
        "{text}"
    );
    assert!(text.contains("killed by SIGSEGV"), "{text}");
    // Two runs with the same defect print its detail once.
    assert_eq!(
        text.matches("stdout is not a single JSON document").count(),
        1,
        "{text}"
    );
    assert!(text.contains("seen in 2 runs:"), "{text}");
}

#[test]
fn the_junit_file_parses_with_a_testcase_per_check_named_profile_and_check() {
    let results = fixed_results();
    let xml = junit::to_xml(&results, &fixture_sources()).expect("serializes");
    let parsed = quick_junit::Report::deserialize_from_str(&xml).expect("JUnit parses");
    assert_eq!(parsed.test_suites.len(), 2);
    for (suite, result) in parsed.test_suites.iter().zip(&results) {
        assert_eq!(suite.test_cases.len(), result.checks.len());
        assert_eq!(suite.failures, result.summary.failed);
        assert_eq!(suite.time, Some(std::time::Duration::from_millis(1234)));
    }
    let suite = &parsed.test_suites[1];
    assert_eq!(suite.name.as_str(), "profile");
    let names: Vec<&str> = suite.test_cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "profile :: no_hang_stdin_closed",
            "profile :: no_hang_stdin_open",
            "profile :: json_envelope",
            "profile :: help_off_stdout",
            "profile :: profile_consistency"
        ]
    );
    match &suite.test_cases[2].status {
        quick_junit::TestCaseStatus::NonSuccess {
            message,
            description,
            ..
        } => {
            let message = message.as_ref().map(|m| m.as_str()).unwrap_or_default();
            assert!(
                message.starts_with("stdout is not a single JSON document"),
                "{message}"
            );
            let description = description.as_ref().map(|d| d.as_str()).unwrap_or_default();
            assert!(
                description.contains("$ TERM=xterm-256color ./fixturecli list </dev/null"),
                "{description}"
            );
            assert!(description.contains("exit 0"), "{description}");
        }
        other => panic!("json_envelope is not a failure: {other:?}"),
    }
    match &suite.test_cases[4].status {
        quick_junit::TestCaseStatus::Skipped { message, .. } => assert_eq!(
            message.as_ref().map(|m| m.as_str()),
            Some("the tool gave no valid manifest (manifest_valid reports why)")
        ),
        other => panic!("profile_consistency is not skipped: {other:?}"),
    }
}

/// (startLine, startColumn) of every SARIF result, with its rule.
fn regions(sarif: &Value) -> Vec<(String, u64, u64)> {
    sarif["runs"][0]["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let region = &r["locations"][0]["physicalLocation"]["region"];
            (
                r["ruleId"].as_str().unwrap_or_default().to_string(),
                region["startLine"].as_u64().unwrap_or(0),
                region["startColumn"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn the_sarif_log_validates_and_points_at_the_probes_in_the_profile() {
    let json =
        sarif::to_json(&fixed_results(), &fixture_sources(), &repo_root()).expect("serializes");
    let log: Value = serde_json::from_str(&json).expect("SARIF is JSON");
    assert_eq!(schema_errors(SARIF_SCHEMA, &log), Vec::<String>::new());
    let run = &log["runs"][0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), conform::checks::CATALOG.len());
    assert_eq!(rules[2]["id"], "json_envelope");
    assert_eq!(rules[2]["properties"]["tags"][0], "REQ-F-003");
    // The fixture profile: line 8 holds probe 0, line 9 opens probe 1, line 4 is
    // `command`; a result per failing run.
    assert_eq!(
        regions(&log),
        [
            ("no_hang_stdin_open".to_string(), 9, 5),
            ("json_envelope".to_string(), 8, 5),
            ("json_envelope".to_string(), 9, 5),
            ("help_off_stdout".to_string(), 4, 3),
        ]
    );
    let uri = &run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    assert_eq!(uri, FIXTURE);
    let text = std::fs::read_to_string(repo_root().join(FIXTURE)).expect("fixture");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[7][4..].starts_with("{ \"name\": \"list\""),
        "{}",
        lines[7]
    );
    assert!(lines[3][2..].starts_with("\"command\""), "{}", lines[3]);
}

#[test]
fn a_broken_cli_gets_every_report_file_and_a_readable_text_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |name: &str| dir.path().join(name);
    let profile = "conformance/profiles/bad/ansi-when-piped.json";
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_conform"))
        .current_dir(repo_root())
        .args(["run", profile, "--format", "text", "--junit"])
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
    assert!(
        text.contains("Summary: 1 profile, 1 with failing checks"),
        "{text}"
    );

    let xml = std::fs::read_to_string(path("junit.xml")).expect("JUnit written");
    let junit = quick_junit::Report::deserialize_from_str(&xml).expect("JUnit parses");
    assert_eq!(junit.test_suites[0].name.as_str(), "ansi-when-piped");
    assert_eq!(
        junit.test_suites[0].test_cases.len(),
        conform::checks::CATALOG.len()
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
        svg.contains("agent-ready: failing") && svg.contains("#e05d44"),
        "{svg}"
    );
}

/// Run conform with one report flag on `path`; it must refuse before running.
fn refused(flag: &str, path: &Path) -> crate::support::Conform {
    let run = conform([
        "run".as_ref(),
        "conformance/profiles/democli.json".as_ref(),
        flag.as_ref(),
        path.as_os_str(),
    ]);
    assert_eq!(run.code(), 2, "{:#}", run.envelope);
    assert_eq!(
        run.envelope["error"]["code"], "USAGE_ERROR",
        "{:#}",
        run.envelope
    );
    assert!(
        run.elapsed < std::time::Duration::from_secs(5),
        "refused before running anything"
    );
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

#[test]
fn reports_are_rendered_for_every_format_from_one_finished_run() {
    let results = fixed_results();
    let sources = fixture_sources();
    let selected = CheckId::all();
    let finished = Finished {
        results: &results,
        sources: &sources,
        selected: &selected,
        status: ExitStatus::ChecksFailed,
        duration_ms: 1,
        cwd: &repo_root(),
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let reports: Vec<(ReportFormat, PathBuf)> = [
        (ReportFormat::Json, "r.json"),
        (ReportFormat::Junit, "r.xml"),
        (ReportFormat::Sarif, "r.sarif"),
        (ReportFormat::Markdown, "r.md"),
        (ReportFormat::Badge, "r.svg"),
    ]
    .into_iter()
    .map(|(f, name)| (f, dir.path().join(name)))
    .collect();
    assert_eq!(
        render::write_reports(&reports, &finished),
        Vec::<String>::new()
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).expect("read"))
            .expect("JSON report");
    assert_eq!(report["results"][1]["runs"][0]["pointer"], "/probes/0");
    assert_eq!(report["exit_code"], 4);
}
