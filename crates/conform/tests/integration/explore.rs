//! `conform check` explores: every command a probe that can be one, judged by the
//! checks; hermetic (no credential, no real network, nothing outside a scratch
//! area); the same profile run after run; probes that fit the tool.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{conform_in, EnvRemoveAll, DEVELOPER_ENV};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check")
}

/// The probe labels of a check's failures.
fn failed_probes(check: &Value) -> Vec<String> {
    check["failures"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["probe"].as_str().map(String::from))
        .collect()
}

/// The names of a profile's `probes` (or of `check_only_probes`).
fn probe_names(probes: &Value) -> Vec<String> {
    probes
        .as_array()
        .expect("probes")
        .iter()
        .filter_map(|p| p["name"].as_str().map(String::from))
        .collect()
}

/// `conform check ARGS -- ./TOOL` from the fixtures, with `env` added; the envelope.
fn check_with_env(args: &[&str], tool: &str, env: &[(&str, &str)]) -> (i32, Value, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .arg("check")
        .args(args)
        .arg("--")
        .arg(format!("./{tool}"))
        .current_dir(fixtures())
        .env_remove_all(DEVELOPER_ENV)
        .envs(env.iter().copied())
        .output()
        .expect("conform runs");
    let envelope: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not one envelope ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code().unwrap_or(-1), envelope, stderr)
}

#[test]
fn a_login_that_opens_a_browser_a_prompt_and_a_network_call_are_each_a_failed_check_naming_the_command(
) {
    let check = conform_in(&fixtures(), ["check", "--", "./agentcli"]);
    assert_eq!(check.code(), 4, "{:#}", check.envelope);
    let names = |id: &str| failed_probes(check.check(id));
    // `docs` opens it and then hangs, so only its plain run shows the opener.
    assert!(
        names("browser_not_launched").iter().any(|p| p == "docs"),
        "{:#}",
        check.check("browser_not_launched")
    );
    assert!(
        names("browser_not_launched")
            .iter()
            .any(|p| p.starts_with("login ")),
        "{:#}",
        check.check("browser_not_launched")
    );
    assert_eq!(
        names("no_hang_stdin_open"),
        ["chat", "config set"],
        "{:#}",
        check.check("no_hang_stdin_open")
    );
    assert_eq!(
        // `sync` waits on the black hole: network_timeout's finding, not a hang.
        names("no_hang_stdin_closed"),
        ["docs"],
        "{:#}",
        check.check("no_hang_stdin_closed")
    );
    // A required operand is made up, so the editor `edit NAME` opens is seen.
    let mut editors = names("editor_not_invoked");
    editors
        .iter_mut()
        .for_each(|p| *p = p.trim_end_matches(" (isolated)").to_string());
    editors.dedup();
    assert_eq!(
        editors,
        ["edit conform-probe"],
        "{:#}",
        check.check("editor_not_invoked")
    );
    // The commands that answer are probes too, whoami although it fails unsigned.
    let inferred = &check.envelope["meta"]["inferred"];
    let saved = probe_names(&inferred["profile"]["probes"]);
    for name in ["list", "status", "whoami", "config get"] {
        assert!(
            saved.iter().any(|p| p == name),
            "{name} not probed: {saved:?}"
        );
    }
    // What mutates, by its name or by the state it keeps in HOME, is judged here
    // and never in the profile a user would save and run anywhere.
    assert_eq!(
        probe_names(&inferred["check_only_probes"]),
        ["chat", "config set", "edit conform-probe", "login", "sync"],
        "{inferred:#}"
    );
    assert_eq!(
        inferred["commands"]["check_only"],
        serde_json::json!(["chat", "config set", "edit conform-probe", "login", "sync"])
    );
    let probes: Vec<String> = saved
        .into_iter()
        .chain(probe_names(&inferred["check_only_probes"]))
        .collect();
    // Groups are descended into, never probed bare.
    assert!(
        !probes.iter().any(|p| p == "config" || p == "cache"),
        "{probes:?}"
    );
    // A command that left files in its working directory is left out as
    // mutating, with the files.
    let left = inferred["commands"]["left_out"].to_string();
    assert!(
        left.contains("cache warm") && left.contains("cwd/.agentcli-cache/items"),
        "{left}"
    );
    assert!(
        left.contains("delete") && left.contains("--allow-destructive"),
        "{left}"
    );
    assert_eq!(inferred["commands"]["probed"], 10, "{inferred:#}");
    assert_eq!(inferred["hermetic"]["network"], "blackhole");
}

#[test]
fn a_command_the_manifest_declares_mutating_is_judged_under_check_and_never_saved() {
    let check = conform_in(&fixtures(), ["check", "--", "./manifestcli"]);
    let inferred = &check.envelope["meta"]["inferred"];
    assert_eq!(inferred["source"], "manifest", "{inferred:#}");
    // `items sync` opens a browser: seen, though the manifest calls it mutating.
    assert!(
        failed_probes(check.check("browser_not_launched"))
            .iter()
            .all(|p| p.starts_with("items sync")),
        "{:#}",
        check.check("browser_not_launched")
    );
    assert_eq!(
        check.check("browser_not_launched")["status"],
        "fail",
        "{:#}",
        check.check("browser_not_launched")
    );
    assert_eq!(
        probe_names(&inferred["check_only_probes"]),
        ["items sync"],
        "{inferred:#}"
    );
    assert_eq!(
        inferred["commands"]["check_only"],
        serde_json::json!(["items sync"])
    );
    let saved = probe_names(&inferred["profile"]["probes"]);
    assert!(
        saved.iter().any(|p| p == "items list") && !saved.iter().any(|p| p.contains("sync")),
        "{saved:?}"
    );
}

#[test]
fn the_same_tool_gives_the_same_profile_whatever_its_background_network_calls() {
    // agentcli starts a detached phone-home call on every run, which outlives it.
    let profiles: Vec<Value> = (0..3)
        .map(|_| {
            let (_, envelope, _) =
                check_with_env(&["--only", "no_hang_stdin_closed"], "agentcli", &[]);
            envelope["meta"]["inferred"]["profile"].clone()
        })
        .collect();
    assert!(profiles[0]["probes"].is_array(), "{:#}", profiles[0]);
    assert_eq!(profiles[0], profiles[1]);
    assert_eq!(profiles[1], profiles[2]);
}

#[test]
fn no_credential_and_no_real_network_address_reaches_any_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("runs.log");
    let log_text = log.display().to_string();
    let (code, envelope, stderr) = check_with_env(
        &[],
        "recorder",
        &[
            ("RECORDER_LOG", &log_text),
            ("GH_TOKEN", "ghp-value-never-shown"),
            ("AWS_SECRET_ACCESS_KEY", "aws-value-never-shown"),
            ("MYTOOL_PASSWORD", "pw-value-never-shown"),
            ("HTTPS_PROXY", "http://proxy.example:3128"),
            ("NO_PROXY", "*"),
        ],
    );
    assert_ne!(code, 1, "{envelope:#}");
    let runs = std::fs::read_to_string(&log).expect("the recorder ran");
    assert!(
        runs.lines().filter(|l| l.starts_with("ran ")).count() > 10,
        "{runs}"
    );
    let leaks: Vec<&str> = runs.lines().filter(|l| !l.starts_with("ran ")).collect();
    assert!(leaks.is_empty(), "{leaks:#?}");
    // The names unset are listed, their values never.
    let unset = envelope["meta"]["inferred"]["hermetic"]["unset"].to_string();
    for name in ["GH_TOKEN", "AWS_SECRET_ACCESS_KEY", "MYTOOL_PASSWORD"] {
        assert!(unset.contains(name), "{unset}");
    }
    let everything = envelope.to_string() + &stderr;
    assert!(
        !everything.contains("value-never-shown"),
        "a value was shown"
    );
}

#[test]
fn a_tool_without_subcommands_gets_no_made_up_command() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("args.log");
    let log_text = log.display().to_string();
    let (_, envelope, _) = check_with_env(&[], "plain", &[("RECORDER_LOG", &log_text)]);
    let args = std::fs::read_to_string(&log).expect("plain ran");
    assert!(!args.contains("conform-no-such-command"), "{args}");
    // The unknown-flag probe stays.
    assert!(args.contains("--conform-no-such-flag"), "{args}");
    let codes = envelope["warnings"].to_string();
    assert!(codes.contains("NO_SUBCOMMANDS"), "{codes}");
}

#[test]
fn a_subcommand_whose_help_is_a_manual_page_is_asked_with_dash_h_next() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("args.log");
    let log_text = log.display().to_string();
    let (_, envelope, _) = check_with_env(&[], "manpages", &[("RECORDER_LOG", &log_text)]);
    let args = std::fs::read_to_string(&log).expect("manpages ran");
    let calls = |line: &str| args.lines().filter(|l| *l == line).count();
    // `--help` once (a man page), then `-h`, which prints the usage.
    assert_eq!(calls("args show --help"), 1, "{args}");
    assert_eq!(calls("args show -h"), 1, "{args}");
    // `-h` says `show <item>`: it is probed with a made-up item, never saved.
    let check_only = &envelope["meta"]["inferred"]["commands"]["check_only"];
    assert_eq!(
        check_only,
        &serde_json::json!(["show conform-probe"]),
        "{check_only}"
    );
}

#[test]
fn a_tool_documented_by_its_help_word_is_read_from_its_manual_pages() {
    // helpword's `--help` only points at `helpword help`; every help is a manual
    // page in overstrike, as awscli's are.
    let check = conform_in(
        &fixtures(),
        ["check", "--only", "no_hang_stdin_open", "--", "./helpword"],
    );
    let inferred = &check.envelope["meta"]["inferred"];
    assert_eq!(inferred["commands"]["found"], 5, "{inferred:#}");
    assert_eq!(
        probe_names(&inferred["profile"]["probes"]),
        [
            "configure",
            "configure list",
            "identity get-caller-identity",
            "unknown flag on configure"
        ],
        "{inferred:#}"
    );
    // The synopsis' bare `--role-name <value>` is a required argument: the
    // command is surveyed with a made-up one, and never saved.
    assert_eq!(
        inferred["commands"]["check_only"],
        serde_json::json!(["identity assume-role conform-probe"]),
        "{inferred:#}"
    );
    // `configure` asks for a key and waits on an open stdin.
    assert_eq!(
        failed_probes(check.check("no_hang_stdin_open")),
        ["configure"],
        "{:#}",
        check.check("no_hang_stdin_open")
    );
}

#[test]
fn a_help_printed_beside_an_update_check_is_read_and_the_update_check_judged() {
    // updatecheck asks the proxy for registry.npmjs.org on every run, --help too.
    let check = conform_in(
        &fixtures(),
        ["check", "--only", "no_self_update", "--", "./updatecheck"],
    );
    assert_eq!(check.code(), 4, "{:#}", check.envelope);
    let probes: Vec<&str> = check.envelope["meta"]["inferred"]["profile"]["probes"]
        .as_array()
        .expect("probes: the help was read")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(
        probes.contains(&"list") && probes.contains(&"status"),
        "{probes:?}"
    );
    let failed = failed_probes(check.check("no_self_update"));
    assert!(failed.iter().any(|p| p.starts_with("list")), "{failed:?}");
    assert!(
        check
            .check("no_self_update")
            .to_string()
            .contains("registry.npmjs.org"),
        "{:#}",
        check.check("no_self_update")
    );
}

#[test]
fn a_help_that_prompts_in_a_fresh_home_is_judged_by_the_help_checks_not_an_error() {
    // firstrun's `--help` asks "Try it anyway? [y/N]" without its config file: a
    // traceback with stdin closed, a wait with stdin open.
    let check = conform_in(&fixtures(), ["check", "--", "./firstrun"]);
    assert_eq!(check.code(), 4, "{:#}", check.envelope);
    assert_eq!(
        check.envelope["error"]["code"], "CONFORMANCE_CHECKS_FAILED",
        "{:#}",
        check.envelope
    );
    let failed = check.ids_with("fail");
    for id in ["help_off_stdout", "help_version_pure", "no_hang_stdin_open"] {
        assert!(failed.iter().any(|f| f == id), "{id} passed: {failed:?}");
    }
    // The runs of the help call fail, each named, with the prompt shown.
    assert_eq!(failed_probes(check.check("help_off_stdout")), ["--help"]);
    assert!(
        check.details("help_off_stdout").contains("exited 1")
            && check
                .details("help_off_stdout")
                .contains("Try it anyway? [y/N]"),
        "{}",
        check.details("help_off_stdout")
    );
    assert_eq!(
        failed_probes(check.check("help_version_pure")),
        ["--help (isolated)"]
    );
    assert!(
        check.details("help_version_pure").contains("Traceback"),
        "{}",
        check.details("help_version_pure")
    );
    // With stdin open the prompt waits: the hang is the open help run's, not a probe's.
    assert_eq!(
        failed_probes(check.check("no_hang_stdin_open")),
        ["--help (stdin open)"],
        "{:#}",
        check.check("no_hang_stdin_open")
    );
    assert!(
        check.details("no_hang_stdin_open").contains("Welcome!"),
        "{}",
        check.details("no_hang_stdin_open")
    );
    // The unknown-flag probe runs, and answers as it should.
    assert_eq!(check.status("invalid_input_exit_2"), "pass");
    let inferred = &check.envelope["meta"]["inferred"];
    assert_eq!(
        probe_names(&inferred["profile"]["probes"]),
        ["unknown flag"],
        "{inferred:#}"
    );
    // The warning names the call, why, and what it printed.
    let warnings = check.envelope["warnings"].as_array().expect("warnings");
    let unread = warnings
        .iter()
        .find(|w| w["code"] == "HELP_UNREAD")
        .unwrap_or_else(|| panic!("no HELP_UNREAD in {warnings:#?}"));
    assert_eq!(
        unread["context"]["call"], "`./firstrun --help`",
        "{unread:#}"
    );
    assert_eq!(unread["context"]["unusable"], "prompted", "{unread:#}");
    let message = unread["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("./firstrun --help")
            && message.contains("Let's set things up. Try it anyway? [y/N]")
            && message.contains("EOFError"),
        "{message}"
    );
}

#[test]
fn a_tool_whose_help_prints_nothing_or_that_cannot_start_is_an_error_saying_what_to_fix() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write the script");
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("make it executable");
    };
    script("silent", "#!/bin/sh\nexit 0\n");
    script("broken", "#!/nonexistent/interpreter\n");

    let silent = conform_in(dir.path(), ["check", "--", "./silent"]);
    assert_eq!(silent.code(), 1, "{:#}", silent.envelope);
    let error = &silent.envelope["error"];
    assert_eq!(error["code"], "NO_HELP", "{error:#}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("printed nothing"), "{message}");
    let fix = error["fix_required"].as_str().unwrap_or_default();
    assert!(
        fix.contains("./silent --help") && fix.contains("Usage:"),
        "{fix}"
    );

    let broken = conform_in(dir.path(), ["check", "--", "./broken"]);
    assert_eq!(broken.code(), 1, "{:#}", broken.envelope);
    let error = &broken.envelope["error"];
    assert_eq!(error["code"], "TOOL_NOT_STARTED", "{error:#}");
    let fix = error["fix_required"].as_str().unwrap_or_default();
    assert!(fix.contains("interpreter"), "{fix}");
}

#[test]
fn check_timeout_accepts_what_a_profile_accepts() {
    let (code, envelope, _) = check_with_env(&["--timeout", "121"], "agentcli", &[]);
    assert_eq!(code, 2, "{envelope:#}");
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("args.log");
    let log_text = log.display().to_string();
    let (code, envelope, _) = check_with_env(
        &["--timeout", "120", "--only", "invalid_input_exit_2"],
        "plain",
        &[("RECORDER_LOG", &log_text)],
    );
    assert_eq!(code, 0, "{envelope:#}");
    assert_eq!(
        envelope["meta"]["inferred"]["profile"]["timeout_seconds"],
        120
    );
}

#[test]
fn reports_point_at_check_tool_or_into_the_saved_profile() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sarif = dir.path().join("out.sarif");
    let sarif_text = sarif.display().to_string();
    let uri = |path: &Path| -> Vec<String> {
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("sarif")).expect("JSON");
        doc["runs"][0]["results"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| {
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .map(String::from)
            })
            .collect()
    };
    check_with_env(&["--sarif", &sarif_text], "agentcli", &[]);
    let uris = uri(&sarif);
    assert!(!uris.is_empty());
    assert!(uris.iter().all(|u| u == "check:./agentcli"), "{uris:?}");

    let saved = dir.path().join("agentcli.json");
    let saved_text = saved.display().to_string();
    let (_, envelope, _) = check_with_env(
        &["--sarif", &sarif_text, "--save", &saved_text],
        "agentcli",
        &[],
    );
    let uris = uri(&sarif);
    assert!(!uris.is_empty());
    assert!(
        uris.iter().all(|u| u.ends_with("agentcli.json")),
        "{uris:?}"
    );
    // The saved profile holds no check-only probe, though the run judged them.
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).expect("saved")).expect("JSON");
    let names = probe_names(&saved["probes"]);
    assert!(names.iter().any(|n| n == "list"), "{names:?}");
    for name in ["chat", "config set", "edit conform-probe", "login", "sync"] {
        assert!(!names.iter().any(|n| n == name), "{name} saved: {names:?}");
    }
    let open = envelope["data"]["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["id"] == "no_hang_stdin_open")
        .expect("no_hang_stdin_open");
    assert_eq!(failed_probes(open), ["chat", "config set"], "{open:#}");
}

#[test]
fn waits_by_design_are_judged_for_what_they_are_not_as_hangs() {
    // waits: `remote` gives up on the network by itself after 8 s, `lint` reads
    // `--file -` by default, `server` and `ui` serve by name and summary, and
    // `explore` listens on a port without saying so.
    let check = conform_in(&fixtures(), ["check", "--", "./waits"]);
    assert_eq!(check.code(), 4, "{:#}", check.envelope);
    let inferred = &check.envelope["meta"]["inferred"];
    assert_eq!(
        probe_names(&inferred["profile"]["probes"]),
        ["lint", "list", "remote", "unknown flag on lint"],
        "{inferred:#}"
    );
    let left_out = inferred["commands"]["left_out"]
        .as_array()
        .expect("left out");
    for (command, why) in [
        ("explore", "its exploration run was still listening on port"),
        ("server", "its name is `server`"),
        ("ui", "its help says \"Start a local web UI\""),
    ] {
        let reason = left_out
            .iter()
            .find(|entry| entry["command"] == command)
            .and_then(|entry| entry["reason"].as_str())
            .unwrap_or_default();
        assert!(
            reason.starts_with("serves by design") && reason.contains(why),
            "{command}: {reason}"
        );
    }
    // `lint`'s wait on an open stdin was asked for; `remote` was let go on past
    // the limit and gave up within what an agent can wait.
    for id in [
        "no_hang_stdin_open",
        "no_hang_stdin_closed",
        "network_timeout",
    ] {
        assert_eq!(check.check(id)["status"], "pass", "{:#}", check.check(id));
    }
    assert_eq!(check.check("network_timeout")["runs_checked"], 1);
    // No other check fails `remote` for the wait its network call made: the
    // envelope checks fail it for the prose error it ends with, once it gave up.
    for failed in check.ids_with("fail") {
        let probes = failed_probes(check.check(&failed));
        assert!(
            ["json_envelope", "ci_terminal_json"].contains(&failed.as_str())
                || !probes.iter().any(|p| p.starts_with("remote")),
            "{failed}: {probes:?}"
        );
    }
    assert!(
        check.envelope["warnings"]
            .as_array()
            .is_some_and(|w| w.iter().any(|w| w["code"] == "READS_STDIN")),
        "{:#}",
        check.envelope["warnings"]
    );
}

#[test]
fn a_formatter_is_never_saved_and_the_saved_profile_leaves_a_project_unchanged() {
    // The user's project: a Python file the formatter would rewrite, and the
    // profile saved beside it, as `conform run` finds it.
    let project = tempfile::tempdir().expect("temp dir");
    let source = project.path().join("app.py");
    let original = "import os\nx=1   \n";
    std::fs::write(&source, original).expect("write app.py");
    let saved = project.path().join("conformance-profile.json");
    let saved_text = saved.display().to_string();
    let (_, envelope, stderr) = check_with_env(&["--save", &saved_text], "pyfmt", &[]);
    let inferred = &envelope["meta"]["inferred"];
    // `format` changed nothing in an empty directory; in the bait it rewrote
    // app.py, and its name says it formats. `tidy` is caught by its run alone.
    assert_eq!(
        probe_names(&inferred["check_only_probes"]),
        ["format", "tidy"],
        "{inferred:#}"
    );
    let reasons = &inferred["check_only_reasons"];
    let format = reasons["format"].as_str().unwrap_or_default();
    assert!(
        format.starts_with("changed 1 file in the bait project: app.py")
            && format.contains("its name says it formats"),
        "{reasons:#}"
    );
    assert_eq!(
        reasons["tidy"], "changed 1 file in the bait project: app.py",
        "{reasons:#}"
    );
    assert!(stderr.contains("tidy: probed only here"), "{stderr}");
    let profile: Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).expect("saved")).expect("JSON");
    let names = probe_names(&profile["probes"]);
    assert_eq!(names, ["rules", "unknown flag on rules"], "{profile:#}");
    assert_eq!(std::fs::read_to_string(&source).expect("app.py"), original);

    let run = conform_in(project.path(), ["run", &saved_text]);
    assert!(
        run.envelope["data"]["checks"].is_array(),
        "{:#}",
        run.envelope
    );
    assert_eq!(
        std::fs::read_to_string(&source).expect("app.py"),
        original,
        "conform run changed the project's source"
    );
}
