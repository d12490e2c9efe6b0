//! Trust: conform's result is the reference kit's document, its extras stay out of
//! it, nothing unchecked is certified, and every exit code is declared.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::support::{
    conform, conform_reported, conformance_results, hostile, interrupt_conform_run,
    published_result_errors, schema_errors, signal_conform_run, temp_profile,
};

const DEMOCLI: &str = "conformance/profiles/democli.json";

#[test]
fn passing_failing_and_skipping_results_validate_against_the_published_schema() {
    let (_dir, hanging) = temp_profile(
        &hostile("never_exits.sh"),
        1.0,
        json!([{ "name": "list", "argv": [], "kind": "read" }]),
    );
    let run = conform([
        "run".as_ref(),
        DEMOCLI.as_ref(),
        "conformance/profiles/bad/unknown-flag-exit-1.json".as_ref(),
        hanging.as_os_str(),
    ]);
    let results = conformance_results(&run.envelope);
    assert_eq!(results.len(), 3, "{:#}", run.envelope);
    let statuses: BTreeSet<&str> = results
        .iter()
        .flat_map(|r| r["checks"].as_array().into_iter().flatten())
        .filter_map(|c| c["status"].as_str())
        .collect();
    assert_eq!(statuses, BTreeSet::from(["fail", "pass", "skip"]));
    for result in results {
        assert_eq!(published_result_errors(result), Vec::<String>::new());
    }
}

#[test]
fn the_published_schema_is_closed_so_an_extra_key_fails_it() {
    let run = conform(["run", DEMOCLI, "--only", "help_off_stdout"]);
    let mut result = run.result().clone();
    assert!(published_result_errors(&result).is_empty());
    result["runs"] = json!(1);
    assert!(!published_result_errors(&result).is_empty());
    let mut result = run.result().clone();
    result["checks"][0]["extension"] = json!(false);
    assert!(!published_result_errors(&result).is_empty());
}

/// The extension checks' IDs, in catalog order: `conform checks` lists the whole
/// catalog, each check marked extension or not.
fn extension_ids() -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .arg("checks")
        .output()
        .expect("conform checks runs");
    assert!(output.status.success(), "conform checks: {}", output.status);
    let envelope: Value = serde_json::from_slice(&output.stdout).expect("one JSON envelope");
    let checks = envelope["data"]["checks"].as_array().expect("data.checks");
    let ids: Vec<&str> = checks
        .iter()
        .map(|check| check["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        ids,
        conform_core::command::check_ids().collect::<Vec<_>>(),
        "conform checks lists the catalog"
    );
    checks
        .iter()
        .filter(|check| check["extension"] == true)
        .map(|check| check["id"].as_str().expect("id").to_string())
        .collect()
}

#[test]
fn conforms_extras_go_in_meta_not_in_data() {
    let run = conform(["run", DEMOCLI]);
    assert_eq!(run.code(), 0, "{:#}", run.envelope);
    let meta = &run.envelope["meta"];
    assert_eq!(meta["profile"], DEMOCLI);
    assert!(meta["runs"].as_u64().is_some_and(|n| n > 20), "{meta:#}");
    assert_eq!(meta["extension_checks"], json!(extension_ids()));
    let data = run.result().as_object().expect("data is an object");
    let keys: Vec<&str> = data.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["schema_version", "tool", "levels", "summary", "checks"]
    );
}

#[test]
fn the_json_report_holds_every_run_and_validates_against_its_schema() {
    let run = conform_reported(["run", DEMOCLI]);
    let schema = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["schema", "report", "--raw"])
        .output()
        .expect("conform schema runs");
    let schema = String::from_utf8(schema.stdout).expect("UTF-8 schema");
    assert_eq!(schema_errors(&schema, &run.report), Vec::<String>::new());
    let report = &run.report["results"][0];
    let runs = report["runs"].as_array().expect("runs");
    assert_eq!(
        Some(runs.len() as u64),
        run.envelope["meta"]["runs"].as_u64()
    );
    assert!(runs.iter().all(|r| r["env"]
        .as_array()
        .is_some_and(|env| env.contains(&json!("TERM=xterm-256color")))));
    assert!(runs.iter().any(|r| r["env"]
        .as_array()
        .is_some_and(|env| env.contains(&json!("NO_COLOR=1")))));
    assert_eq!(report["profile"], DEMOCLI);
    // Runs with a trigger say whether it fired.
    let sigint = runs
        .iter()
        .find(|r| {
            r["probe"]
                .as_str()
                .is_some_and(|p| p.contains("(SIGINT after"))
        })
        .expect("the SIGINT stream run");
    assert_eq!(sigint["trigger"]["fired"], true, "{sigint:#}");
    assert_eq!(run.report["exit_code"], 0);
    assert_eq!(
        run.report["selected_checks"].as_array().map(Vec::len),
        Some(conform_core::command::check_ids().count())
    );
}

fn hanging_profile() -> (tempfile::TempDir, std::path::PathBuf) {
    temp_profile(
        &hostile("never_exits.sh"),
        1.0,
        json!([{ "name": "list", "argv": [], "kind": "read" }]),
    )
}

#[test]
fn a_hanging_tool_is_never_certified_by_the_checks_that_read_its_gated_runs() {
    let (_dir, profile) = hanging_profile();
    for only in ["no_color_honored,no_hang_stdin_open", "json_envelope"] {
        let run = conform([
            "run".as_ref(),
            profile.as_os_str(),
            "--only".as_ref(),
            only.as_ref(),
        ]);
        assert_eq!(
            run.result()["summary"]["passed"],
            0,
            "{only}: {:#}",
            run.envelope
        );
        for id in only.split(',') {
            assert_eq!(run.status(id), "skip", "{only}: {:#}", run.envelope);
            let reason = run.check(id)["skipped_reason"].as_str().unwrap_or_default();
            assert!(
                reason.contains("\"list\"") && reason.contains("limit"),
                "{id}: the reason names the run that hung: {reason}"
            );
        }
        for level in ["level_1", "level_2", "level_3"] {
            assert_eq!(run.result()["levels"][level], "incomplete", "{only}");
        }
    }
}

#[test]
fn levels_left_out_by_the_selection_are_incomplete() {
    let run = conform([
        "run",
        DEMOCLI,
        "--only",
        "reference",
        "--skip",
        "stream_sigint",
    ]);
    assert_eq!(run.code(), 0, "{:#}", run.envelope);
    let levels = &run.result()["levels"];
    assert_eq!(levels["level_1"], "pass");
    assert_eq!(levels["level_2"], "pass");
    assert_eq!(levels["level_3"], "incomplete", "stream_sigint is level 3");
    assert_eq!(run.result()["checks"].as_array().map(Vec::len), Some(13));
    assert_eq!(run.envelope["meta"]["extension_checks"], json!([]));
}

#[test]
fn the_reference_and_extension_groups_select_their_checks() {
    let run = conform(["run", DEMOCLI, "--skip", "extension"]);
    assert_eq!(run.result()["checks"].as_array().map(Vec::len), Some(14));
    assert_eq!(run.result()["levels"]["level_3"], "pass");
    let run = conform(["run", DEMOCLI, "--only", "extension"]);
    let ids: Vec<&str> = run.result()["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(ids, extension_ids());
    assert_eq!(run.result()["levels"]["level_1"], "incomplete");
}

#[test]
fn bare_conform_piped_shows_the_help_and_succeeds() {
    // REQ-F-068, as conform's own help_version_pure check asks of every tool.
    let run = conform(Vec::<&str>::new());
    assert_eq!(run.code(), 0);
    assert_eq!(run.envelope["ok"], true);
    assert_eq!(run.envelope["meta"]["exit_code"], 0);
    let stderr = String::from_utf8_lossy(&run.output.stderr);
    assert!(
        stderr.contains("Usage:"),
        "the help goes to stderr: {stderr}"
    );
    let version = conform(["--version"]);
    assert_eq!(version.code(), 0);
    assert_eq!(
        version.envelope["data"]["version"],
        env!("CARGO_PKG_VERSION")
    );
}

#[test]
fn every_exit_code_conform_returns_is_declared_in_its_manifest() {
    let manifest = conform(["manifest"]);
    let declared: BTreeSet<i32> = manifest.envelope["data"]["exit_codes"]
        .as_object()
        .expect("root exit_codes")
        .keys()
        .filter_map(|k| k.parse().ok())
        .collect();
    for (name, entry) in manifest.envelope["data"]["commands"]
        .as_object()
        .expect("commands")
    {
        let keys: BTreeSet<i32> = entry["exit_codes"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, _)| k.parse().ok())
            .collect();
        assert!(keys.is_subset(&declared), "{name}: {keys:?}");
    }

    let code = |args: &[&str]| conform(args).code();
    let mut seen = BTreeSet::new();
    seen.insert(code(&["validate", DEMOCLI]));
    seen.insert(code(&["run", "--no-such-flag"]));
    seen.insert(code(&[
        "run",
        "conformance/profiles/bad/unknown-flag-exit-1.json",
        "--only",
        "invalid_input_exit_2",
    ]));
    // Exit 1: conform cannot write its output.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let status = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["checks"])
        .stdout(full)
        .stderr(Stdio::null())
        .status()
        .expect("conform runs");
    seen.extend(status.code());
    seen.extend(interrupt_conform_run().status.code());
    let stopped = signal_conform_run(nix::sys::signal::Signal::SIGTERM);
    assert!(
        stopped.stdout.contains("\"CANCELLED\""),
        "SIGTERM gives a CANCELLED envelope: {}",
        stopped.stdout
    );
    seen.extend(stopped.status.code());
    assert_eq!(
        seen, declared,
        "the exits conform gave, against its manifest"
    );
}

/// profile_consistency compares probes with the manifest; invalid probes are not
/// compared, so a profile of invalid probes gives it nothing to judge: skip, never a
/// pass on the manifest run alone.
#[test]
fn profile_consistency_skips_when_no_probe_can_be_compared_with_the_manifest() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("profile.json");
    let democli = crate::support::repo_root().join("benchmark/harness/cli/good/democli");
    let profile = json!({
        "schema_version": "1.0",
        "tool": "democli",
        "command": [democli],
        "timeout_seconds": 5,
        "manifest": ["manifest"],
        "probes": [{ "name": "unknown flag", "argv": ["deployments", "list", "--nope"], "kind": "invalid" }],
    });
    std::fs::write(&path, profile.to_string()).expect("profile written");
    let run = conform([
        "run".as_ref(),
        path.as_os_str(),
        "--only".as_ref(),
        "manifest_valid,profile_consistency".as_ref(),
    ]);
    assert_eq!(run.status("manifest_valid"), "pass", "{:#}", run.envelope);
    let check = run.check("profile_consistency");
    assert_eq!(check["status"], "skip", "{check:#}");
    assert_eq!(check["runs_checked"], 0);
    assert_eq!(
        check["skipped_reason"],
        "the profile has no read, destructive or stream probe to compare with the manifest"
    );
}
