//! Findings first (issue 45): the text report of one tool opens with what an agent
//! meets, dangers before conventions, and stays short; nothing fails on democli
//! (each mode at 3, or at 2 where the spec's top row is not observable) in every
//! mode it is judged on; every broken CLI scores as the committed table says; and
//! `conform replay` remakes a recorded failing run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::{conform, repo_root, EnvRemoveAll, DEVELOPER_ENV};

/// The committed table of every broken CLI's findings below 3.
const TABLE: &str = "crates/conform/tests/fixtures/findings/broken-clis.tsv";

/// `conform check --format text --json-report FILE -- TOOL` from the repository
/// root: the text, the report and the exit code. First attempts stand
/// (`--no-rerun`): a prompt loop burns the CPU it is measured on, and on a busy
/// machine its second attempt would be set aside as starved.
fn check_text(tool: &Path, report: &Path) -> (String, Value, i32) {
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["check", "--no-rerun", "--format", "text", "--json-report"])
        .arg(report)
        .arg("--")
        .arg(tool)
        .current_dir(repo_root())
        .env_remove_all(DEVELOPER_ENV)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("conform runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let document = std::fs::read_to_string(report)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| {
            panic!(
                "no JSON report for {}:\n{text}\n{}",
                tool.display(),
                String::from_utf8_lossy(&output.stderr)
            )
        });
    (text, document, output.status.code().unwrap_or(-1))
}

/// The lines of a section of the text report: those after `heading` up to the
/// next line that does not start with two spaces.
fn section<'a>(text: &'a str, heading: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|line| !line.starts_with(heading))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .collect()
}

/// A finding of a tool nothing failed in: no command shows it, and it scores 3,
/// or below 3 only for a condition of the spec's table the runs did not show,
/// which it names.
fn assert_clean(finding: &Value) {
    assert_eq!(finding["commands"], serde_json::json!([]), "{finding:#}");
    assert!(finding["kind"].is_null(), "{finding:#}");
    if finding["score"] == 2 {
        assert!(finding["not_shown"].is_string(), "{finding:#}");
    } else {
        assert!(
            finding["score"] == 3 || finding["score"].is_null(),
            "{finding:#}"
        );
    }
}

fn findings(report: &Value) -> &Vec<Value> {
    report["results"][0]["findings"]
        .as_array()
        .expect("results[0].findings")
}

#[test]
fn check_opens_with_the_flooding_prompt_and_keeps_conventions_apart_in_80_lines() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check");
    let bad = repo_root().join("benchmark/harness/cli/bad");
    let tools = [
        (
            "democli",
            repo_root().join("benchmark/harness/cli/good/democli"),
        ),
        ("promptloop", fixtures.join("promptloop")),
        ("browser-on-read", bad.join("browser-on-read")),
        ("help-on-stdout", bad.join("help-on-stdout")),
    ];
    let reports: Vec<(&str, String, Value, i32)> = std::thread::scope(|scope| {
        let handles: Vec<_> = tools
            .iter()
            .map(|(name, tool)| {
                let report = dir.path().join(format!("{name}.json"));
                scope.spawn(move || {
                    let (text, document, code) = check_text(tool, &report);
                    (*name, text, document, code)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a check thread"))
            .collect()
    });
    for (name, text, _, _) in &reports {
        let lines = text.lines().count();
        assert!(lines <= 80, "{name}: {lines} lines\n{text}");
    }
    let by_name = |wanted: &str| {
        reports
            .iter()
            .find(|(name, ..)| *name == wanted)
            .expect("a report")
    };

    let (_, text, report, code) = by_name("democli");
    assert_eq!(*code, 0, "{text}");
    for finding in findings(report) {
        assert_clean(finding);
    }
    assert!(
        !text.contains("Dangers:") && !text.contains("Conventions:"),
        "{text}"
    );

    let (_, text, report, code) = by_name("promptloop");
    assert_eq!(*code, 4, "{text}");
    let dangers = section(text, "Dangers:");
    let first = dangers.first().copied().unwrap_or_default();
    for words in [
        "0/3 critical",
        "`login`",
        "stdin closed",
        "prompt loop",
        "of output in",
    ] {
        assert!(first.contains(words), "{words:?} not in {first:?}\n{text}");
    }
    let worst = &findings(report)[0];
    assert_eq!(worst["severity"], "critical", "{worst:#}");
    assert_eq!(worst["commands"][0]["command"], "login", "{worst:#}");

    let (_, text, _, _) = by_name("browser-on-read");
    let dangers = section(text, "Dangers:");
    assert!(
        dangers.iter().any(|l| l.contains("opened a browser")),
        "{text}"
    );

    let (_, text, report, code) = by_name("help-on-stdout");
    assert_eq!(*code, 4, "{text}");
    assert!(!text.contains("Dangers:"), "{text}");
    let conventions = section(text, "Conventions:");
    assert!(!conventions.is_empty(), "{text}");
    for line in &conventions {
        assert!(!line.contains("critical"), "{line}\n{text}");
    }
    // Its one failure is a high mode's; a critical mode below 3 is one whose
    // table's top row no run showed, with nothing failed.
    for finding in findings(report).iter().filter(|f| !f["kind"].is_null()) {
        assert_ne!(
            finding["severity"], "critical",
            "help-on-stdout: {finding:#}"
        );
    }
}

/// One line per broken CLI: its name, then each finding a failure placed below 3
/// as `§N=score`. A tool's failing findings (`meta.findings` of one profile), as a
/// row of the committed table lists them: `§3=1 §1=2`. A mode nothing failed in
/// is left out: its 2 (the table's top row not observable) or no score is the
/// same for every tool, and the unit tests of `findings` hold it.
pub(crate) fn low_scores(findings: &Value) -> String {
    findings
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| !f["kind"].is_null() && f["score"].as_u64().is_some_and(|s| s < 3))
        .map(|f| {
            format!(
                "{}={}",
                f["failure_mode"].as_str().unwrap_or_default(),
                f["score"]
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The committed table's row for the broken CLI `name`, as [`low_scores`] writes
/// it; `None` when the table has no row for it.
pub(crate) fn committed_row(name: &str) -> Option<String> {
    let table = std::fs::read_to_string(repo_root().join(TABLE)).unwrap_or_default();
    table.lines().find_map(|line| {
        let (tool, row) = line.split_once('\t')?;
        (tool == name).then(|| row.to_string())
    })
}

/// The table of a run over many profiles: a row per profile.
fn table(envelope: &Value) -> String {
    let mut out = String::new();
    for entry in envelope["meta"]["findings"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let profile = entry["profile"].as_str().unwrap_or_default();
        let name = Path::new(profile)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _ = writeln!(out, "{name}\t{}", low_scores(&entry["findings"]));
    }
    out
}

/// democli's findings all score 3, and the committed table has a row for every
/// broken CLI. Each broken CLI's test (`broken_clis`) compares its scores with its
/// row, from the run it makes anyway; `CONFORM_BLESS=1` remakes the table from one
/// run over them all.
#[test]
fn every_broken_cli_scores_as_the_committed_table_and_democli_scores_3() {
    let democli = conform(["run", "conformance/profiles/democli.json"]);
    assert_eq!(democli.code(), 0, "{:#}", democli.envelope);
    for finding in democli.envelope["meta"]["findings"]
        .as_array()
        .expect("meta.findings")
    {
        assert_clean(finding);
    }
    let path = repo_root().join(TABLE);
    if std::env::var_os("CONFORM_BLESS").is_some() {
        let run = conform(["run", "conformance/profiles/bad"]);
        assert_eq!(run.code(), 4);
        std::fs::write(&path, table(&run.envelope)).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    }
    let bad = repo_root().join("conformance/profiles/bad");
    let mut names: Vec<String> = std::fs::read_dir(&bad)
        .expect("the broken CLIs' profiles")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .filter_map(|path| path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    assert!(names.len() >= 60, "{names:?}");
    for name in names {
        assert!(
            committed_row(&name).is_some(),
            "{TABLE} has no row for {name}: rewrite it with CONFORM_BLESS=1"
        );
    }
}

#[test]
fn replay_remakes_a_recorded_failing_run_with_the_same_exit_and_first_bytes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args([
            "run",
            "conformance/profiles/bad/help-on-stdout.json",
            "--format",
            "text",
            "--json-report",
        ])
        .arg(&report)
        .current_dir(repo_root())
        .env_remove_all(DEVELOPER_ENV)
        .env("NO_COLOR", "1")
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(4));
    let text = String::from_utf8_lossy(&output.stdout);
    // The reproduction the text gives, as a reader would paste it.
    let line = section(&text, "Reproduce:")
        .first()
        .copied()
        .unwrap_or_else(|| panic!("no Reproduce line:\n{text}"));
    let run = line
        .split_whitespace()
        .last()
        .unwrap_or_default()
        .to_string();
    assert!(
        line.contains(&format!("conform replay {}", report.display())),
        "{line}"
    );
    let replay = conform([
        "replay".to_string(),
        report.display().to_string(),
        run.clone(),
    ]);
    assert_eq!(replay.code(), 0, "{:#}", replay.envelope);
    let data = &replay.envelope["data"];
    assert_eq!(data["probe"], "--help", "{data:#}");
    assert_eq!(data["recorded"]["exit_code"], data["replayed"]["exit_code"]);
    assert_eq!(data["same_exit"], true, "{data:#}");
    let first = |side: &str| {
        data[side]["stdout_excerpt"]
            .as_str()
            .unwrap_or_default()
            .chars()
            .take(200)
            .collect::<String>()
    };
    assert!(!first("recorded").is_empty(), "{data:#}");
    assert_eq!(first("recorded"), first("replayed"));
    // A run number past the end is refused, saying how many there are.
    let missing = conform([
        "replay".to_string(),
        report.display().to_string(),
        "99999".into(),
    ]);
    assert_eq!(missing.code(), 2);
    assert_eq!(missing.envelope["error"]["code"], "INVALID_REPORT");
}

/// A finding of `report` by its mode, `§24`.
fn finding<'a>(report: &'a Value, mode: &str) -> &'a Value {
    findings(report)
        .iter()
        .find(|f| f["failure_mode"] == mode)
        .unwrap_or_else(|| panic!("no finding {mode}: {:#?}", findings(report)))
}

/// The broken CLIs of issue 50, each scored by the row of the spec's table its
/// defect is: a secret flag beside its variable is §24's row 1; a `docs` command
/// opening the browser is §64's row 0, named as the command asks, and no §10
/// finding; a network wait given up after `--timeout` in words with exit 1 is
/// §11's row 1; an identifier used as given is §34's and §35's row 0.
#[test]
fn broken_clis_score_by_the_row_of_the_spec_s_table_their_defect_is() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check");
    let names = ["apikeyflag", "docsbrowser", "timeoutprose"];
    let reports: Vec<(&str, String, Value)> = std::thread::scope(|scope| {
        let handles: Vec<_> = names
            .iter()
            .map(|name| {
                let tool = fixtures.join(name);
                let report = dir.path().join(format!("{name}.json"));
                scope.spawn(move || {
                    let (text, document, _) = check_text(&tool, &report);
                    (*name, text, document)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a check thread"))
            .collect()
    });
    let by_name = |wanted: &str| {
        reports
            .iter()
            .find(|(name, ..)| *name == wanted)
            .expect("a report")
    };

    let (_, text, report) = by_name("apikeyflag");
    let secrets = finding(report, "§24");
    assert_eq!(secrets["score"], 1, "{secrets:#}\n{text}");
    assert!(
        secrets["row"]
            .as_str()
            .is_some_and(|row| row.starts_with("1: ") && row.contains("--api-key")),
        "{secrets:#}"
    );
    let flags = report["results"][0]["checks"]
        .as_array()
        .and_then(|checks| {
            checks
                .iter()
                .find(|c| c["id"] == "secret_flags_have_alternative")
        })
        .expect("secret_flags_have_alternative");
    assert_eq!(
        flags["status"], "pass",
        "REQ-C-016 keeps its verdict: {flags:#}"
    );

    let (_, text, report) = by_name("docsbrowser");
    let display = finding(report, "§64");
    assert_eq!(display["score"], 0, "{display:#}\n{text}");
    assert_eq!(display["commands"][0]["command"], "docs", "{display:#}");
    assert!(
        display["commands"][0]["did"]
            .as_str()
            .is_some_and(|did| did.starts_with("opened a browser, as `docs` asks")),
        "{display:#}"
    );
    let interactivity = finding(report, "§10");
    assert_eq!(
        interactivity["commands"],
        serde_json::json!([]),
        "{interactivity:#}"
    );

    let (_, text, report) = by_name("timeoutprose");
    let timeouts = finding(report, "§11");
    assert_eq!(timeouts["score"], 1, "{timeouts:#}\n{text}");
    assert!(
        timeouts["row"]
            .as_str()
            .is_some_and(|row| row.contains("exited 1") && row.contains("no error envelope")),
        "{timeouts:#}"
    );

    // An identifier used as given, from a profile whose argument_order names it.
    let run = conform([
        "run",
        "crates/conform/tests/fixtures/findings/traversal.json",
        "--only",
        "hallucinated_input_rejected",
    ]);
    assert_eq!(run.code(), 4, "{:#}", run.envelope);
    let envelope =
        serde_json::json!({ "results": [{ "findings": run.envelope["meta"]["findings"] }] });
    for mode in ["§34", "§35"] {
        let found = finding(&envelope, mode);
        assert_eq!(found["score"], 0, "{found:#}");
        assert!(
            found["commands"][0]["did"]
                .as_str()
                .is_some_and(|did| did.starts_with("used a made-up id as given")),
            "{found:#}"
        );
    }
}
