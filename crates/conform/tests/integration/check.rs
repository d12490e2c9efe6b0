//! `conform check -- TOOL`: a profile inferred in memory, run and reported as
//! `conform run` does; destructive probes only when allowed; `--save`.

use std::path::PathBuf;

use serde_json::Value;

use crate::support::{conform, conform_in, repo_root};

fn democli() -> PathBuf {
    repo_root().join("benchmark/harness/cli/good/democli")
}

/// What `conform check`'s wider exploration finds in democli that its hand-written
/// profile does not judge, as (check, probe) pairs: nothing. `releases` goes for the
/// network, and at check's black hole (which never answers) it gives up after its
/// default one-second timeout with a retryable TIMEOUT envelope, as an agent needs.
const FOUND_BY_EXPLORATION: &[(&str, &str)] = &[];

/// The checks that failed on something other than [`FOUND_BY_EXPLORATION`].
fn unexpected_failures(check: &crate::support::Conform) -> Vec<String> {
    check
        .ids_with("fail")
        .into_iter()
        .filter(|id| {
            let failures = check.check(id)["failures"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            failures.is_empty()
                || failures.iter().any(|f| {
                    let probe = f["probe"].as_str().unwrap_or("");
                    !FOUND_BY_EXPLORATION
                        .iter()
                        .any(|(found, command)| found == id && probe.starts_with(command))
                })
        })
        .collect()
}

/// Exit 4 on exactly what exploration finds (0 when it finds nothing), and nothing
/// else failed.
fn only_exploration_findings(check: &crate::support::Conform) {
    let expected = if FOUND_BY_EXPLORATION.is_empty() {
        0
    } else {
        4
    };
    assert_eq!(check.code(), expected, "{:#}", check.envelope);
    assert!(
        unexpected_failures(check).is_empty(),
        "{:#}",
        check.envelope
    );
    for (id, _) in FOUND_BY_EXPLORATION {
        assert_eq!(check.status(id), "fail", "{id}: {:#}", check.envelope);
    }
}

fn warning_codes(envelope: &Value) -> Vec<String> {
    envelope["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w["code"].as_str().map(String::from))
        .collect()
}

#[test]
fn democli_passes_with_its_destructive_probe_listed_as_not_run() {
    let tool = democli();
    let check = conform(["check".as_ref(), "--".as_ref(), tool.as_os_str()]);
    only_exploration_findings(&check);
    let inferred = &check.envelope["meta"]["inferred"];
    assert_eq!(inferred["source"], "manifest", "{inferred:#}");
    assert_eq!(inferred["profile"]["tool"], "democli");
    let not_run = inferred["destructive_not_run"].as_array().expect("list");
    assert_eq!(not_run.len(), 1, "{inferred:#}");
    assert_eq!(not_run[0]["probe"], "deployments delete");
    assert!(
        not_run[0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("--allow-destructive")),
        "{inferred:#}"
    );
    // The destructive checks had nothing to run; the probe stays in the profile shown.
    assert_eq!(check.status("dry_run_preview"), "skip");
    assert_eq!(check.status("destructive_refuses_unconfirmed"), "skip");
    let kinds = inferred["profile"]["probes"].to_string();
    assert!(kinds.contains("\"destructive\""), "{kinds}");
    assert!(
        unexpected_failures(&check).is_empty(),
        "{:#}",
        check.envelope
    );

    let allowed = conform([
        "check".as_ref(),
        "--allow-destructive".as_ref(),
        "--".as_ref(),
        tool.as_os_str(),
    ]);
    only_exploration_findings(&allowed);
    assert_eq!(allowed.status("dry_run_preview"), "pass");
    assert_eq!(allowed.status("destructive_refuses_unconfirmed"), "pass");
    // With the destructive probe allowed, nothing is left out: level 1 passes.
    assert_eq!(allowed.result()["levels"]["level_1"], "pass");
}

#[test]
fn save_writes_the_profile_it_used_and_overwrites_only_with_yes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("democli.json");
    std::fs::write(&path, "keep me\n").expect("write");
    let tool = democli();
    let args = |extra: &[&str]| {
        let mut args: Vec<std::ffi::OsString> =
            vec!["check".into(), "--save".into(), path.clone().into()];
        args.extend(extra.iter().map(Into::into));
        args.extend(["--".into(), tool.clone().into()]);
        args
    };
    let refused = conform(args(&[]));
    assert_eq!(refused.code(), 2, "{:#}", refused.envelope);
    assert_eq!(refused.envelope["error"]["code"], "CONFIRMATION_REQUIRED");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "keep me\n");

    let saved = conform(args(&["--yes"]));
    only_exploration_findings(&saved);
    let inferred = &saved.envelope["meta"]["inferred"];
    assert_eq!(inferred["saved"], path.display().to_string());
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
    assert_eq!(written, inferred["profile"]);
    // The saved profile runs as it is, from anywhere.
    let run = conform(["run".as_ref(), path.as_os_str()]);
    assert_eq!(run.code(), 0, "{:#}", run.envelope);
}

#[test]
fn a_tool_without_a_manifest_is_inferred_from_its_help() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/init/help");
    let check = conform_in(&dir, ["check", "--", "./clap"]);
    let inferred = &check.envelope["meta"]["inferred"];
    assert_eq!(inferred["source"], "help", "{:#}", check.envelope);
    assert!(
        warning_codes(&check.envelope).contains(&"NO_MANIFEST".to_string()),
        "{:#}",
        check.envelope
    );
    let probes = inferred["profile"]["probes"].to_string();
    assert!(probes.contains(r#"["list"]"#), "{probes}");
    // Its candidates answered: the hang checks pass on every probe chosen.
    assert_eq!(check.status("no_hang_stdin_closed"), "pass");
    assert_eq!(check.status("no_hang_stdin_open"), "pass");
}

#[test]
fn report_flags_work_as_in_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let junit = dir.path().join("junit.xml");
    let tool = democli();
    let check = conform([
        "check".as_ref(),
        "--only".as_ref(),
        "reference".as_ref(),
        "--junit".as_ref(),
        junit.as_os_str(),
        "--".as_ref(),
        tool.as_os_str(),
    ]);
    only_exploration_findings(&check);
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    assert!(xml.contains("json_envelope"), "{xml}");
    // --only applies: the extension checks were left out.
    let reported = check.result()["checks"].to_string();
    assert!(!reported.contains("pager_not_invoked"), "{reported}");
}
