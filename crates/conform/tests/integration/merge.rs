//! `conform merge`: the shards of `--partition K/N` joined give the whole run's
//! envelope, exit code and report files; shards of different runs, missing or
//! repeated ones are refused with exit 2 and an error envelope.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{conform, repo_root, schema_errors};

/// Broken CLIs that finish quickly (none waits for its limit), failing checks of
/// every level between them.
const BROKEN: [&str; 6] = [
    "ansi-when-piped",
    "envelope-missing-warnings",
    "unknown-flag-exit-1",
    "unknown-command-exit-1",
    "usage-error-exit-64",
    "wraps-data-at-columns",
];

/// democli's profiles and broken CLIs.
fn profiles() -> Vec<String> {
    let mut profiles: Vec<String> = std::fs::read_dir(repo_root().join("conformance/profiles"))
        .expect("profiles directory")
        .filter_map(|entry| {
            entry
                .ok()
                .map(|e| e.file_name().to_string_lossy().into_owned())
        })
        .filter(|name| name.starts_with("democli") && name.ends_with(".json"))
        .map(|name| format!("conformance/profiles/{name}"))
        .collect();
    profiles.sort();
    assert!(profiles.len() >= 2, "democli's profiles: {profiles:?}");
    profiles.extend(BROKEN.map(|name| format!("conformance/profiles/bad/{name}.json")));
    profiles
}

/// Where `a` and `b` first differ, as a JSON pointer and the two values.
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|key| {
                first_difference(
                    x.get(key).unwrap_or(&Value::Null),
                    y.get(key).unwrap_or(&Value::Null),
                    &format!("{at}/{key}"),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(n, (x, y))| first_difference(x, y, &format!("{at}/{n}"))),
        _ if a == b => None,
        _ => Some(format!("{at}: {a} then {b}")),
    }
}

/// Checks that read every run on pipes: a shard makes only the runs its own checks
/// need, so these count (and judge) fewer runs there than in the whole run. What
/// they count is left out of the comparison; their verdicts are kept.
const READ_EVERY_RUN: [&str; 3] = ["pipes_closed_on_exit", "lf_line_endings", "meta_versions"];

/// `value` without what differs from run to run: timings, pids, the CPU waits and
/// reruns that come with them, the tools' output and its size (democli's
/// envelopes carry their own duration), the list of merged files, and the number of runs
/// made (a shard makes only those its checks need) with what the checks that read
/// every run counted of them.
fn stable(value: &Value) -> Value {
    const VARYING: [&str; 12] = [
        "duration_ms",
        "stdout_bytes",
        "stderr_bytes",
        "stdout_excerpt",
        "stderr_excerpt",
        "pid",
        "cpu_wait",
        "reruns",
        "merged",
        "first_attempt",
        "held_by",
        "runs",
    ];
    match value {
        Value::Object(map) => {
            let every_run = map
                .get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| READ_EVERY_RUN.contains(&id));
            Value::Object(
                map.iter()
                    .filter(|(key, _)| !VARYING.contains(&key.as_str()))
                    .filter(|(key, _)| !(every_run && *key == "runs_checked"))
                    .map(|(key, v)| (key.clone(), stable(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(stable).collect()),
        other => other.clone(),
    }
}

fn report_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The checks of every result of a JSON report, stable, in order.
fn report_checks(report: &Value) -> Vec<Value> {
    report["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| stable(&r["checks"]))
        .collect()
}

/// Run the profiles whole and in three shards (each with a JSON report), for the
/// merge tests; returns the temp dir, the whole run's envelope and the shard files.
fn whole_and_shards(
    profiles: &[String],
) -> (tempfile::TempDir, crate::support::Conform, Vec<PathBuf>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let whole_report = report_path(dir.path(), "whole.json");
    let whole = conform(
        ["run"]
            .into_iter()
            .chain(profiles.iter().map(String::as_str))
            .chain(["--json-report", whole_report.to_str().expect("utf-8 path")]),
    );
    assert_eq!(whole.code(), 4, "the broken CLIs fail checks");
    let shards: Vec<PathBuf> = (1..=3)
        .map(|k| {
            let path = report_path(dir.path(), &format!("shard{k}.json"));
            let spec = format!("{k}/3");
            let shard = conform(
                ["run"]
                    .into_iter()
                    .chain(profiles.iter().map(String::as_str))
                    .chain([
                        "--partition",
                        &spec,
                        "--json-report",
                        path.to_str().expect("utf-8"),
                    ]),
            );
            assert!(
                matches!(shard.code(), 0 | 4),
                "shard {k}: {:#}",
                shard.envelope
            );
            let report = read_json(&path);
            let errors = schema_errors(
                include_str!("../../../conform-core/schemas/json-report.schema.json"),
                &report,
            );
            assert!(errors.is_empty(), "shard {k}'s report: {errors:#?}");
            assert_eq!(report["partition"]["shard"], k);
            assert_eq!(report["partition"]["total"], 3);
            path
        })
        .collect();
    (dir, whole, shards)
}

fn args_of(paths: &[&Path]) -> Vec<String> {
    paths
        .iter()
        .map(|p| p.to_str().expect("utf-8 path").to_string())
        .collect()
}

#[test]
fn three_merged_shards_give_the_whole_runs_envelope_exit_code_and_reports() {
    let profiles = profiles();
    let (dir, whole, shards) = whole_and_shards(&profiles);
    let out = |name: &str| report_path(dir.path(), name);
    let mut args = vec!["merge".to_string()];
    // Given out of order: the merge puts each check back in its place.
    args.extend(args_of(&[&shards[2], &shards[0], &shards[1]]));
    for (flag, name) in [
        ("--json-report", "merged.json"),
        ("--junit", "merged.xml"),
        ("--sarif", "merged.sarif"),
        ("--markdown", "merged.md"),
        ("--badge", "merged.svg"),
        ("--html", "merged.html"),
    ] {
        args.push(flag.into());
        args.push(out(name).to_str().expect("utf-8").into());
    }
    let merged = conform(&args);
    assert_eq!(merged.code(), whole.code(), "{:#}", merged.envelope);
    assert_eq!(
        first_difference(&stable(&merged.envelope), &stable(&whole.envelope), ""),
        None,
        "the merged envelope is the whole run's, timings left out"
    );
    assert_eq!(
        merged.envelope["meta"]["merged"].as_array().map(Vec::len),
        Some(3)
    );

    let merged_report = read_json(&out("merged.json"));
    let whole_report = read_json(&report_path(dir.path(), "whole.json"));
    let errors = schema_errors(
        include_str!("../../../conform-core/schemas/json-report.schema.json"),
        &merged_report,
    );
    assert!(errors.is_empty(), "the merged report: {errors:#?}");
    assert_eq!(merged_report["partition"], Value::Null);
    assert_eq!(merged_report["exit_code"], whole_report["exit_code"]);
    assert_eq!(
        merged_report["selected_checks"],
        whole_report["selected_checks"]
    );
    assert_eq!(merged_report["profiles"], whole_report["profiles"]);
    assert_eq!(
        merged_report["sandboxes"], whole_report["sandboxes"],
        "the shards' sandboxes, made where the whole run made its own"
    );
    // Every check with its evidence, and the causes shared by several checks.
    let (m, w) = (report_checks(&merged_report), report_checks(&whole_report));
    assert_eq!(m.len(), w.len());
    for (n, (m, w)) in m.iter().zip(&w).enumerate() {
        assert_eq!(
            first_difference(m, w, ""),
            None,
            "result {n} ({}): checks differ",
            whole_report["results"][n]["profile"]
        );
        let causes = |report: &Value| stable(&report["results"][n]["causes"]);
        assert_eq!(
            first_difference(&causes(&merged_report), &causes(&whole_report), ""),
            None,
            "result {n} ({}): causes differ",
            whole_report["results"][n]["profile"]
        );
    }

    // The other report files are rendered from the same results as the whole run's.
    let markdown = std::fs::read_to_string(out("merged.md")).expect("markdown");
    assert!(markdown.contains("envelope-missing-warnings"), "{markdown}");
    let badge = std::fs::read_to_string(out("merged.svg")).expect("badge");
    assert!(badge.starts_with("<svg"), "{badge}");
    let junit = std::fs::read_to_string(out("merged.xml")).expect("junit");
    let failures = junit.matches("<failure").count();
    let failed: u64 = whole_report["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["summary"]["failed"].as_u64())
        .sum();
    assert_eq!(failures as u64, failed, "a JUnit failure per failed check");
    let sarif = read_json(&out("merged.sarif"));
    let located = sarif["runs"][0]["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"].is_u64())
        .count();
    assert!(
        located > 0,
        "SARIF results located in the profiles: {sarif:#}"
    );
    let html = std::fs::read_to_string(out("merged.html")).expect("html");
    assert!(
        html.contains("envelope-missing-warnings.json"),
        "the html names each profile"
    );
}

/// `conform merge ARGS`: exit 2 with an error envelope whose code and message are
/// returned.
fn refused(args: &[String]) -> (String, String) {
    let run = conform(std::iter::once("merge".to_string()).chain(args.iter().cloned()));
    assert_eq!(run.code(), 2, "{args:?}: {:#}", run.envelope);
    assert_eq!(run.envelope["ok"], false);
    (
        run.envelope["error"]["code"]
            .as_str()
            .unwrap_or("")
            .to_string(),
        run.envelope["error"]["message"]
            .as_str()
            .unwrap_or("")
            .to_string(),
    )
}

/// A shard's report with `change` made to it, written beside it.
fn changed(path: &Path, name: &str, change: impl FnOnce(&mut Value)) -> String {
    let mut report = read_json(path);
    change(&mut report);
    let to = path.with_file_name(name);
    std::fs::write(&to, serde_json::to_vec_pretty(&report).expect("serializes")).expect("written");
    to.to_str().expect("utf-8").to_string()
}

#[test]
fn shards_that_are_not_one_whole_run_are_refused() {
    // Two small profiles keep this quick; every refusal needs only the reports.
    let profiles: Vec<String> = [
        "conformance/profiles/democli.json",
        "conformance/profiles/bad/usage-error-exit-64.json",
    ]
    .map(String::from)
    .to_vec();
    let (dir, _, shards) = whole_and_shards(&profiles);
    let shard = |k: usize| shards[k - 1].to_str().expect("utf-8").to_string();

    // A shard left out: its pairs are missing, and the message says which shard.
    let (code, message) = refused(&[shard(1), shard(3)]);
    assert_eq!(code, "SHARDS_INCOMPLETE");
    assert!(
        message.contains("pairs are in no report") && message.contains("missing: shard 2/3"),
        "{message}"
    );

    // A shard given twice repeats its pairs.
    let (code, message) = refused(&[shard(1), shard(2), shard(2), shard(3)]);
    assert_eq!(code, "SHARDS_OVERLAP");
    assert!(message.contains("is in two reports"), "{message}");

    // Another partition count.
    let other_count = changed(&shards[0], "count.json", |r| {
        r["partition"]["total"] = 4.into()
    });
    let (code, message) = refused(&[other_count, shard(2), shard(3)]);
    assert_eq!(code, "SHARDS_MISMATCH");
    assert!(message.contains("different partition counts"), "{message}");

    // Another profile set: a profile that changed between the shards.
    let other_profile = changed(&shards[1], "profile.json", |r| {
        r["profiles"][0]["fingerprint"] = "0123456789abcdef".into()
    });
    let (code, message) = refused(&[shard(1), other_profile, shard(3)]);
    assert_eq!(code, "SHARDS_MISMATCH");
    assert!(
        message.contains("different profile sets") && message.contains("democli.json differs"),
        "{message}"
    );

    // Another conform.
    let other_version = changed(&shards[2], "version.json", |r| {
        r["conform_version"] = "0.0.1".into()
    });
    let (code, message) = refused(&[shard(1), shard(2), other_version]);
    assert_eq!(code, "SHARDS_MISMATCH");
    assert!(
        message.contains("different conform versions") && message.contains("0.0.1"),
        "{message}"
    );

    // An interrupted shard holds only part of its pairs.
    let cancelled = changed(&shards[0], "cancelled.json", |r| {
        r["cancelled"] = true.into()
    });
    let (code, message) = refused(&[cancelled, shard(2), shard(3)]);
    assert_eq!(code, "SHARDS_INCOMPLETE");
    assert!(message.contains("interrupted"), "{message}");

    // Not a report at all.
    let not_json = dir.path().join("not.json");
    std::fs::write(&not_json, "{ nope").expect("written");
    let (code, message) = refused(&[not_json.to_str().expect("utf-8").into()]);
    assert_eq!(code, "INVALID_REPORT");
    assert!(message.contains("is not JSON"), "{message}");
    let (code, message) = refused(&[dir
        .path()
        .join("absent.json")
        .to_str()
        .expect("utf-8")
        .into()]);
    assert_eq!(code, "INVALID_REPORT");
    assert!(message.contains("cannot read"), "{message}");
    let no_results = changed(&shards[0], "shape.json", |r| {
        r.as_object_mut().map(|o| o.remove("results"));
    });
    let (code, message) = refused(&[no_results]);
    assert_eq!(code, "INVALID_REPORT");
    assert!(message.contains("not a conform JSON report"), "{message}");
}
