//! The reference CLI passes the seed's profile exactly as written, and conform passes
//! its own profile.

use std::process::Command;

use serde_json::Value;

use crate::support::{conform, repo_root, EnvRemoveAll, DEVELOPER_ENV};

#[test]
fn democli_passes_every_check_of_the_full_profile_and_skips_none() {
    // Run with HOME at an empty directory of the test's own: every run, sandboxed
    // or not (the terminal runs keep the tool's HOME), must leave it empty, so no
    // real pager or editor conform let start wrote into it (`less` keeps
    // `~/.lesshst`).
    let home = tempfile::tempdir().expect("temp HOME");
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["run", "conformance/profiles/democli-full.json"])
        .current_dir(repo_root())
        .env_remove_all(DEVELOPER_ENV)
        .env("HOME", home.path())
        .output()
        .expect("conform runs");
    let envelope: Value = serde_json::from_slice(&output.stdout).expect("one envelope");
    assert_eq!(output.status.code(), Some(0), "{envelope:#}");
    let left: Vec<_> = std::fs::read_dir(home.path())
        .expect("HOME is still there")
        .filter_map(Result::ok)
        .map(|entry| entry.file_name())
        .collect();
    assert!(left.is_empty(), "the runs wrote into HOME: {left:?}");
    let result = &envelope["data"];
    assert_eq!(result["summary"]["failed"], 0);
    assert_eq!(result["summary"]["skipped"], 0, "{:#}", result["checks"]);
    assert_eq!(
        result["checks"].as_array().map(Vec::len),
        Some(conform_core::command::check_ids().count())
    );
}

#[test]
fn democli_passes_every_check_of_the_seed_profile() {
    let run = conform(["run", "conformance/profiles/democli.json"]);
    assert_eq!(run.code(), 0, "{:#}", run.envelope);
    let result = run.result();
    for level in ["level_1", "level_2", "level_3"] {
        assert_eq!(
            result["levels"][level], "pass",
            "{level}: {:#}",
            run.envelope
        );
    }
    assert_eq!(result["summary"]["failed"], 0);
    // The seed has no probe that writes 2048 bytes or goes to the network:
    // democli-full.json has both (below).
    assert_eq!(
        run.ids_with("skip"),
        ["output_size_cap", "timeout_flag", "network_timeout"],
        "every other check has something to run: {:#}",
        result["checks"]
    );
    assert_eq!(
        result["checks"].as_array().map(Vec::len),
        Some(conform_core::command::check_ids().count())
    );
    // The signal and contract extensions among them.
    for id in [
        "unknown_command_exit_2",
        "locale_invariant",
        "pipes_closed_on_exit",
        "error_detail",
        "exit_codes_declared",
        "sigterm_handled",
        "sigpipe_quiet",
        "bare_no_repl",
        "lf_line_endings",
        "meta_versions",
        "ci_terminal_json",
        "width_invariant",
        "headless_auth",
        "hallucinated_input_rejected",
        "generic_env_ignored",
    ] {
        assert_eq!(run.status(id), "pass", "{id}");
    }
    assert_eq!(run.envelope["ok"], true);
    assert_eq!(run.envelope["meta"]["exit_code"], 0);
    // Every check that passed really judged runs: a pass with nothing checked
    // proves nothing.
    for check in result["checks"].as_array().into_iter().flatten() {
        if check["status"] == "pass" {
            assert!(check["runs_checked"].as_u64() > Some(0), "{check:#}");
        }
    }
}

#[test]
fn democli_passes_the_agent_environment_checks() {
    let run = conform([
        "run",
        "conformance/profiles/democli.json",
        "--only",
        "pager_not_invoked,editor_not_invoked,browser_not_launched,tty_no_color,help_version_pure,invalid_input_no_side_effects",
    ]);
    assert_eq!(run.code(), 0, "{:#}", run.envelope);
    let checks = run.result()["checks"].clone();
    let checked: Vec<(&str, u64)> = checks
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["status"] == "pass")
        .filter_map(|c| Some((c["id"].as_str()?, c["runs_checked"].as_u64()?)))
        .collect();
    // Isolated runs of 3 probes (+ the terminal, CI-terminal and narrow terminal
    // runs for pagers), one terminal run, the --version, --help and bare runs, the
    // one invalid probe.
    assert_eq!(
        checked,
        [
            ("pager_not_invoked", 6),
            ("editor_not_invoked", 3),
            ("browser_not_launched", 3),
            ("tty_no_color", 1),
            ("help_version_pure", 3),
            ("invalid_input_no_side_effects", 1),
        ],
        "{checks:#}"
    );
}

#[test]
fn the_seed_profile_behaves_the_same_from_any_working_directory() {
    let profile = repo_root().join("conformance/profiles/democli.json");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let run = crate::support::conform_in(
        elsewhere.path(),
        [
            "run".as_ref(),
            profile.as_os_str(),
            "--only".as_ref(),
            "json_envelope".as_ref(),
        ],
    );
    assert_eq!(run.code(), 0, "{:#}", run.envelope);
    assert_eq!(run.status("json_envelope"), "pass");
}

#[test]
fn conform_passes_its_own_profile() {
    let run = conform(["run", "conformance/profiles/conform.json"]);
    assert_eq!(run.code(), 0, "{:#}", run.envelope);
    assert_eq!(run.status("manifest_valid"), "pass");
    assert_eq!(run.status("argument_order"), "pass");
    assert_eq!(run.status("profile_consistency"), "pass");
    assert_eq!(run.status("destructive_refuses_unconfirmed"), "pass");
    assert_eq!(run.status("dry_run_preview"), "pass");
    let levels = &run.result()["levels"];
    assert_eq!(
        levels["level_1"], "pass",
        "init's destructive probe completes level 1"
    );
    assert_eq!(levels["level_2"], "pass");
    assert_eq!(
        levels["level_3"], "pass",
        "conform run --stream is probed, plain and interrupted by SIGINT"
    );
    assert_eq!(run.status("stream_contract"), "pass");
    assert_eq!(run.status("stream_sigint"), "pass");
}

#[test]
fn only_runs_the_checks_asked_for() {
    let run = conform([
        "run",
        "conformance/profiles/democli.json",
        "--only",
        "manifest_valid,help_off_stdout",
    ]);
    assert_eq!(run.code(), 0, "{:#}", run.envelope);
    let ids: Vec<&str> = run.result()["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(ids, ["help_off_stdout", "manifest_valid"]);
    assert_eq!(
        run.envelope["meta"]["runs"], 2,
        "only the help and manifest runs are made"
    );
}

#[test]
fn several_profiles_give_one_result_each_and_the_worst_exit_code() {
    let run = conform([
        "run",
        "conformance/profiles/democli.json",
        "conformance/profiles/bad/unknown-flag-exit-1.json",
        "--only",
        "invalid_input_exit_2",
    ]);
    assert_eq!(run.code(), 4);
    let results = run.envelope["data"]["results"]
        .as_array()
        .expect("data.results");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["checks"][0]["status"], "pass");
    assert_eq!(results[1]["checks"][0]["status"], "fail");
    assert_eq!(run.envelope["error"]["code"], "CONFORMANCE_CHECKS_FAILED");
}

#[test]
fn the_report_is_the_same_whatever_the_parallelism() {
    // Profiles that mix a hang, streams with SIGINT, destructive probes and
    // argument-order runs that wait for them, all in one pool.
    let profiles = [
        "conformance/profiles/democli.json",
        "conformance/profiles/bad/hang-on-list.json",
        "conformance/profiles/bad/sigint-exit-1.json",
        "conformance/profiles/bad/deletes-unconfirmed.json",
    ];
    let report = |jobs: &str| {
        let mut args = vec!["run"];
        args.extend(profiles);
        args.extend(["--jobs", jobs]);
        let run = conform(args);
        assert_eq!(run.code(), 4, "{:#}", run.envelope);
        let mut data = run.envelope["data"].clone();
        // Timings are the only thing allowed to differ; excerpts are not in data.
        for result in data["results"].as_array_mut().into_iter().flatten() {
            for check in result["checks"].as_array_mut().into_iter().flatten() {
                for failure in check["failures"].as_array_mut().into_iter().flatten() {
                    failure["duration_ms"] = serde_json::Value::Null;
                }
            }
        }
        serde_json::to_string_pretty(&data).expect("serializes")
    };
    let one = report("1");
    assert_eq!(one, report("2"), "--jobs 1 and --jobs 2");
    assert_eq!(one, report("16"), "--jobs 1 and --jobs 16");
}

/// `text` with each run of ASCII digits replaced by a single `#`.
fn numbers_as_hashes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_number = false;
    for c in text.chars() {
        let digit = c.is_ascii_digit();
        if !digit {
            out.push(c);
        } else if !in_number {
            out.push('#');
        }
        in_number = digit;
    }
    out
}

#[test]
fn each_check_alone_judges_exactly_what_it_judges_in_the_full_run() {
    // A check sees only the run variants it declared, and `--only` plans only those:
    // if a check needed a run it did not declare, it would differ here.
    let verdict = |check: &serde_json::Value| {
        let details: Vec<String> = check["failures"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| format!("{} | {}", f["probe"], f["detail"]))
            // A broken CLI's state (a revision counter, kept across runs and test runs)
            // moves on between runs, and can gain a digit: each number becomes one #.
            .map(|d| numbers_as_hashes(&d))
            .collect();
        format!(
            "{} {} {} {:?} {details:?}",
            check["id"], check["status"], check["runs_checked"], check["skipped_reason"]
        )
    };
    for profile in [
        "conformance/profiles/democli.json",
        "conformance/profiles/bad/dry-run-writes.json",
    ] {
        let full = conform(["run", profile]);
        let checks = full.result()["checks"].as_array().expect("checks").clone();
        assert_eq!(checks.len(), conform_core::command::check_ids().count());
        for check in &checks {
            let id = check["id"].as_str().expect("id");
            let alone = conform(["run", profile, "--only", id]);
            assert_eq!(
                verdict(alone.check(id)),
                verdict(check),
                "{profile}: {id} alone"
            );
        }
    }
}
