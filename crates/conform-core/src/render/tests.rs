//! The renderers on fixed results: snapshots of every report (text, JUnit, SARIF,
//! Markdown, the badge), the JUnit and SARIF files read back as their consumers read
//! them, and every report file written from one finished run. conform's
//! integration tests (tests/integration/reports.rs) write the files from a real run.

use std::path::PathBuf;

use serde_json::Value;

use crate::checks::evidence::RunFacts;
use crate::checks::{CheckId, Evidence, Status, CATALOG};
use crate::envelope::ExitStatus;
use crate::profile::Locations;
use crate::render::style::Style;
use crate::render::{self, badge, junit, markdown, run, sarif, Finished, ReportFormat, Sources};
use crate::result::{verdicts, Check, CheckReport, ProfileReport};

/// The fixture profile the fixed results come from, in conform's tests, as a path
/// relative to the repository root (reports name it so).
const FIXTURE: &str = "crates/conform/tests/fixtures/sarif/profile.json";
/// The SARIF 2.1.0 subset the log must validate against, also in conform's tests.
const SARIF_SCHEMA: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../conform/tests/fixtures/sarif/sarif-2.1.0-subset.schema.json"
));

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Errors of `instance` against the draft-07 `schema` text, formats checked.
fn schema_errors(schema: &str, instance: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(schema).expect("schema is JSON");
    let validator = jsonschema::draft7::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

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

/// A check's report as a judge would give it: skipped when `skipped` says why,
/// else passed or failed by `failures`.
pub(crate) fn check(
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
        first_attempt: None,
        notes: Vec::new(),
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
        commands: Default::default(),
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
    // A run in a sandbox, failing one check in two ways.
    let mut isolated = facts("--help (isolated)", "/command", &["--help"]);
    isolated.exit_code = Some(1);
    isolated.env = [
        "-DISPLAY",
        "TERM=xterm-256color",
        "PAGER=<sandbox>/vars/PAGER",
        "EDITOR=<sandbox>/vars/EDITOR",
        "PATH=<sandbox>/bin:$PATH",
        "HOME=<sandbox>/home",
        "XDG_CONFIG_HOME=<sandbox>/config",
        "TMPDIR=<sandbox>/tmp",
    ]
    .map(String::from)
    .to_vec();
    let not_json = |run: &RunFacts, start: &str| {
        Evidence {
        run: run.clone(),
        detail: format!(
            "stdout is not a single JSON document (key must be a string at line 1 column 2); it starts {start:?}: JSON must be on by default when stdout is not a terminal (REQ-F-003)"
        ),
        observed: false,
        still_running: None,
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
                observed: false,
                still_running: None,
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
                observed: false,
                still_running: None,
            }],
            None,
        ),
        check(
            CheckId::ProfileConsistency,
            0,
            vec![],
            Some("the tool gave no valid manifest (manifest_valid reports why)"),
        ),
        check(
            CheckId::HelpVersionPure,
            3,
            vec![
                Evidence {
                    run: isolated.clone(),
                    detail: "--help (isolated) exited 1, expected exit 0: asking what a tool is must always work (REQ-F-068)".into(),
                    observed: false,
                    still_running: None,
                },
                Evidence {
                    run: isolated.clone(),
                    detail: "--help (isolated) created config/fixturecli/ in its fresh HOME/XDG/TMPDIR; help and version must not write anything (REQ-F-068)".into(),
                    observed: false,
                    still_running: None,
                },
            ],
            None,
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
            vec![list, delete, open, help, isolated],
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
    use crate::result::LevelStatus::{Incomplete, Pass};
    let mut results = fixed_results();
    let mut with = |l1, l2, l3| {
        let r = &mut results[0];
        r.levels.level_1 = l1;
        r.levels.level_2 = l2;
        r.levels.level_3 = l3;
        badge::verdict(&results[..1])
    };
    assert_eq!(with(Pass, Pass, Pass), ("level 3".into(), "#4c1"));
    assert_eq!(with(Pass, Pass, Incomplete), ("level 2".into(), "#dfb317"));
    assert_eq!(
        with(Incomplete, Incomplete, Incomplete),
        ("incomplete".into(), "#9f9f9f")
    );
}

/// conform exits 4 when a check failed, whatever the levels say (they count only the
/// reference kit's checks): the badge is then red and counts the failing checks.
#[test]
fn a_failing_check_makes_the_badge_red_and_counted_whatever_the_levels() {
    use crate::result::LevelStatus::{Fail, Pass};
    let mut results = fixed_results();
    let failing =
        |results: &[ProfileReport]| results.iter().map(|r| r.summary.failed).sum::<usize>();
    assert_eq!(failing(&results), 4);
    assert_eq!(
        badge::verdict(&results),
        ("4 failing checks".into(), "#e05d44")
    );
    // An extension check failed; every level passes.
    let extension = &mut results[0];
    extension.summary.failed = 1;
    assert_eq!(
        [
            extension.levels.level_1,
            extension.levels.level_2,
            extension.levels.level_3
        ],
        [Pass, Pass, Pass]
    );
    assert_eq!(
        badge::verdict(&results[..1]),
        ("1 failing check".into(), "#e05d44")
    );
    assert_eq!(run::status(&results[..1]), ExitStatus::ChecksFailed);
    assert!(!badge::to_svg(&results[..1]).contains("#4c1"));
    results[1].levels.level_1 = Fail;
    assert_eq!(badge::verdict(&results).0, "5 failing checks");
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
    // Two runs with the same defect print its detail once (and the findings quote
    // its first clause once).
    assert_eq!(
        text.matches("stdout is not a single JSON document").count(),
        2,
        "{text}"
    );
    assert!(text.contains("seen in 2 runs:"), "{text}");
    // A run that failed a check in two ways is shown once, under both causes.
    assert_eq!(text.matches("▸ --help (isolated)").count(), 1, "{text}");
    assert!(
        text.contains(
            "must always work (REQ-F-068)\n    --help (isolated) created config/fixturecli/"
        ),
        "{text}"
    );
    // Its shell line makes the sandbox again.
    assert!(
        text.contains(r#"$ (s=$(mktemp -d "${TMPDIR:-/tmp}/conform-sandbox.XXXXXX") && mkdir -p"#),
        "{text}"
    );
    assert!(
        text.contains(r#"HOME="$s/home" XDG_CONFIG_HOME="$s/config" TMPDIR="$s/tmp" ./fixturecli --help </dev/null)"#),
        "{text}"
    );
    assert!(!text.contains("<sandbox>"), "{text}");
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
            "profile :: profile_consistency",
            "profile :: help_version_pure"
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

#[test]
fn a_check_that_passed_only_when_made_again_is_flaky_in_junit_and_counted_in_meta() {
    let mut results = fixed_results();
    let profile = &mut results[1];
    // no_hang_stdin_closed passed on the runs made again; its first attempts failed.
    let failed_first = profile.checks[2].check.clone();
    profile.checks[0].first_attempt = Some(Box::new(Check {
        id: profile.checks[0].check.id,
        status: Status::Fail,
        ..failed_first
    }));
    let mut again = profile.runs[0].clone();
    again.first_attempt = Some(Box::new(profile.runs[0].clone()));
    profile.runs[0] = again;

    let xml = junit::to_xml(&results, &fixture_sources()).expect("serializes");
    assert!(xml.contains("<flakyFailure"), "{xml}");
    assert!(
        xml.contains("first attempt, made while the machine kept the tool from the CPU"),
        "{xml}"
    );
    let parsed = quick_junit::Report::deserialize_from_str(&xml).expect("JUnit parses");
    let case = &parsed.test_suites[1].test_cases[0];
    match &case.status {
        quick_junit::TestCaseStatus::Success { flaky_runs } => assert_eq!(flaky_runs.len(), 1),
        other => panic!("no_hang_stdin_closed is not a flaky pass: {other:?}"),
    }
    let envelope = run::to_envelope(&results, 0);
    assert_eq!(envelope["meta"]["reruns"], 1);
    let text = run::to_text(&results, &fixture_sources(), Style { color: false });
    assert!(text.contains("Made again alone:"), "{text}");
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
    assert_eq!(rules.len(), CATALOG.len());
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
            ("help_version_pure".to_string(), 4, 3),
            ("help_version_pure".to_string(), 4, 3),
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
fn reports_are_rendered_for_every_format_from_one_finished_run() {
    let results = fixed_results();
    let sources = fixture_sources();
    let selected = CheckId::all();
    let finished = Finished {
        results: &results,
        sources: &sources,
        identity: render::json_report::RunIdentity {
            selected: &selected,
            partition: None,
            profiles: &[],
            sandboxes: None,
            network: None,
        },
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

/// Every `href="#X"` of a page and whether an element has `id="X"`.
fn dangling_links(html: &str) -> Vec<String> {
    html.split("href=\"#")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|anchor| !html.contains(&format!("id=\"{anchor}\"")))
        .map(String::from)
        .collect()
}

fn html_of(results: &[ProfileReport], sources: &Sources) -> String {
    let selected = CheckId::all();
    let finished = Finished {
        results,
        sources,
        identity: render::json_report::RunIdentity {
            selected: &selected,
            partition: None,
            profiles: &[],
            sandboxes: None,
            network: None,
        },
        status: ExitStatus::ChecksFailed,
        duration_ms: 1,
        cwd: &repo_root(),
    };
    render::html::to_html(&finished)
}

#[test]
fn the_html_grid_links_every_cell_to_its_evidence_and_escapes_what_tools_wrote() {
    let mut results = fixed_results();
    results[1].tool = "<script>alert('x')</script>&".into();
    let html = html_of(&results, &fixture_sources());
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..80]);
    assert!(!html.contains("<script"), "no script, nor a tool's markup");
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "nothing fetched"
    );
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"));
    // One cell per row and check, each linked to an anchor on the page.
    let cells = html.matches("<td class=\"cell\">").count();
    assert_eq!(cells, 2 * CATALOG.len());
    assert_eq!(dangling_links(&html), Vec::<String>::new());
    assert!(html
        .contains("<a class=\"fail\" href=\"#r1-json_envelope\" title=\"json_envelope: fail\">"));
    assert!(html.contains("<a class=\"skip\" href=\"#r1-profile_consistency\""));
    assert!(html.contains("<a class=\"unsel\" href=\"#r0-stdout_no_ansi\""));
    assert!(html.contains("<li id=\"r0-stdout_no_ansi\"><b>stdout_no_ansi</b> not selected"));
    // The evidence: the failure's cause, where the probe is, its shell line, the
    // output with its escape bytes made visible.
    assert!(html.contains("<article class=\"fail\" id=\"r1-json_envelope\">"));
    assert!(html.contains("$ TERM=xterm-256color ./fixturecli list &lt;/dev/null"));
    assert!(
        html.contains(&format!("{FIXTURE}:8:5 /probes/0")),
        "located in the profile"
    );
    assert!(html.contains("stdout │ {␛[34m&quot;ok&quot;␛[0m: true}"));
    assert!(!html.contains('\u{1b}'), "no raw escape byte");
    assert!(
        html.contains("the tool gave no valid manifest"),
        "a skip's reason"
    );
    // Levels per row: democli's pass, fixturecli's fail.
    assert!(html.contains("<td class=\"lv\"><b class=\"pass\">pass</b></td>"));
    assert!(html.contains("<td class=\"lv\"><b class=\"fail\">fail</b></td>"));
}

#[test]
fn a_grid_of_fifty_tools_by_every_check_renders_every_cell() {
    let results: Vec<ProfileReport> = (0..50)
        .map(|n| {
            let checks = CATALOG
                .iter()
                .enumerate()
                .map(|(c, spec)| {
                    let run = facts("list", "/probes/0", &["list", &format!("--n={n}")]);
                    match (n + c) % 7 {
                        0 => check(
                            spec.id,
                            1,
                            vec![Evidence {
                                run,
                                detail: format!("failure {n}/{c} <b>"),
                                observed: false,
                                still_running: None,
                            }],
                            None,
                        ),
                        1 => check(spec.id, 0, vec![], Some("nothing to judge")),
                        _ => check(spec.id, 3, vec![], None),
                    }
                })
                .collect();
            report(
                &format!("profiles/tool-{n}.json"),
                &format!("tool-{n}"),
                checks,
                vec![],
            )
        })
        .collect();
    let html = html_of(&results, &Sources::default());
    assert_eq!(
        html.matches("<td class=\"cell\">").count(),
        50 * CATALOG.len()
    );
    assert_eq!(html.matches("<section class=\"row\"").count(), 50);
    assert_eq!(dangling_links(&html), Vec::<String>::new());
    assert!(html.contains("failure 49/"), "the last row's evidence");
    assert!(html.contains("&lt;b&gt;") && !html.contains("<b>\n"));
    // Sticky header and first column keep a large grid readable.
    assert!(html.contains("position: sticky; top: 0"));
    assert!(html.contains("position: sticky; left: 0"));
}

#[test]
fn a_json_report_read_back_writes_the_same_report() {
    use std::time::Duration;

    use crate::exec::{HoldingFile, ProxyRequest, SandboxReport, SentinelCall};
    use crate::render::json_report::{document, sandboxes, RunIdentity};
    use crate::render::report_file;

    let mut results = fixed_results();
    // What the evidence holds besides the fixed results: the black hole's requests,
    // a second starved attempt, the sentinel's calls and a file holding a needle.
    let mut run = results[1].checks[2].check.failures[0].run.clone();
    run.proxy_connections = Some(2);
    run.proxy_requests = vec![
        ProxyRequest {
            host: Some("api.example.com".into()),
            port: Some(443),
            path: None,
            unsent: false,
            at: Duration::from_millis(7),
        },
        // Closed before it sent a byte (netlify as it exits).
        ProxyRequest {
            host: None,
            port: None,
            path: None,
            unsent: true,
            at: Duration::from_millis(9),
        },
    ];
    run.starved_again = true;
    run.sandbox = Some(SandboxReport {
        sentinel_calls: vec![SentinelCall {
            name: "PAGER".into(),
            argv: vec!["<sandbox>/tmp/out".into()],
        }],
        created: vec!["config/fixturecli/".into()],
        created_more: 0,
        holding: vec![HoldingFile {
            path: "config/fixturecli/token".into(),
            mode: 0o600,
            needles: vec!["FIXTURE_TOKEN".into()],
        }],
    });
    results[1].checks[2].check.failures[0].run = run.clone();
    // The same run failing a second check: a cause the two share.
    results[1].checks[1].check.failures.push(Evidence {
        run: run.clone(),
        detail: "a second check's failure on the same run".into(),
        observed: false,
        still_running: None,
    });
    results[1].runs.push(run);
    let selected = CheckId::all();
    let written = document(
        &results,
        &RunIdentity {
            selected: &selected,
            partition: None,
            profiles: &[],
            sandboxes: Some(sandboxes()),
            network: Some("namespace"),
        },
        ExitStatus::ChecksFailed,
        1,
    );
    let errors = schema_errors(render::json_report::SCHEMA, &written);
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(
        written["results"][1]["causes"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "the run is the cause of two failures: {:#}",
        written["results"][1]
    );
    let read = report_file::read(&written).expect("the report reads back");
    let again = document(
        &read.results,
        &RunIdentity {
            selected: &read.selected,
            partition: read.partition,
            profiles: &read.profiles,
            sandboxes: read.sandboxes.clone(),
            network: read.network.as_deref(),
        },
        ExitStatus::ChecksFailed,
        read.duration_ms,
    );
    assert_eq!(again, written);
}
