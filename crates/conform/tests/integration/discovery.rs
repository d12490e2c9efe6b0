//! `conform check` finds every command, whatever the help's layout (issue 53):
//! a cleo `--help` that is its `list` command's, a help inside a margin,
//! argparse's metavar, a click group listed only by its completion protocol, a
//! tool whose every command takes a file. What each hides behind the listing (a
//! prompt, colour, a wait) is a failed check naming the command; a help that
//! waits on the network is named in `network_timeout`; a deploy and an
//! autoupdate are never saved as reads.

use std::path::PathBuf;

use serde_json::Value;

use crate::support::{conform_in, Conform, EnvRemoveAll, DEVELOPER_ENV};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check")
}

/// The probe labels of a check's failures, each once.
fn failed_probes(check: &Value) -> Vec<String> {
    let mut probes: Vec<String> = check["failures"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["probe"].as_str().map(String::from))
        .collect();
    probes.dedup();
    probes
}

fn names(probes: &Value) -> Vec<String> {
    probes
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["name"].as_str().map(String::from))
        .collect()
}

/// `conform check -- ./TOOL` from the fixtures: every probe (saved and
/// check-only) by name, and the envelope.
fn checked(tool: &str) -> (Conform, Vec<String>) {
    let check = conform_in(&fixtures(), ["check", "--", &format!("./{tool}")]);
    assert_eq!(check.code(), 4, "{:#}", check.envelope);
    let inferred = &check.envelope["meta"]["inferred"];
    let mut probes = names(&inferred["profile"]["probes"]);
    probes.extend(names(&inferred["check_only_probes"]));
    (check, probes)
}

/// Each of `expected` is a probe, and `id` fails on `probe`.
fn finds(tool: &str, expected: &[&str], id: &str, probe: &str) -> Conform {
    let (check, probes) = checked(tool);
    for name in expected {
        assert!(
            probes.iter().any(|p| p == name),
            "{tool}: {name} not probed: {probes:?}"
        );
    }
    let failed = failed_probes(check.check(id));
    assert!(
        failed.iter().any(|p| p == probe),
        "{tool}: {id} does not fail on {probe}: {failed:?}"
    );
    let commands = &check.envelope["meta"]["inferred"]["commands"];
    assert!(commands["shortfall"].is_null(), "{tool}: {commands:#}");
    check
}

#[test]
fn a_cleo_help_that_is_its_list_commands_is_read_through_tool_list() {
    let check = finds(
        "cleolist",
        &["about", "show", "cache list", "init"],
        "no_hang_stdin_open",
        "init",
    );
    assert!(failed_probes(check.check("no_color_honored")).contains(&"show".to_string()));
    let commands = &check.envelope["meta"]["inferred"]["commands"];
    // `cache clear` is found under its namespace, and left out as destructive.
    assert!(
        commands["left_out"].to_string().contains("cache clear"),
        "{commands:#}"
    );
    let routes = check.envelope["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|w| w["code"] == "COMMAND_ROUTES")
        .map(|w| w["message"].to_string())
        .unwrap_or_default();
    assert!(routes.contains("cleolist list (6)"), "{routes}");

    // `conform init` reads the same listing, and runs `cache list` as two words.
    let dir = tempfile::tempdir().expect("temp dir");
    let written = dir.path().join("profile.json");
    let init = conform_in(
        &fixtures(),
        [
            "init",
            "--from-help",
            "--output",
            &written.display().to_string(),
            "--",
            "./cleolist",
        ],
    );
    assert_eq!(init.code(), 0, "{:#}", init.envelope);
    let profile: Value =
        serde_json::from_str(&std::fs::read_to_string(&written).expect("written")).expect("JSON");
    let saved = names(&profile["probes"]);
    assert!(
        saved.contains(&"cache list".to_string()) && !saved.contains(&"init".to_string()),
        "{saved:?}"
    );
}

#[test]
fn a_help_inside_a_margin_lists_its_commands() {
    let check = finds(
        "ormcli",
        &["generate", "studio", "version", "init"],
        "no_color_honored",
        "generate",
    );
    assert!(failed_probes(check.check("no_hang_stdin_open")).contains(&"init".to_string()));
    assert_eq!(check.envelope["meta"]["inferred"]["commands"]["named"], 4);
}

#[test]
fn argparse_s_command_metavar_is_never_a_command() {
    let (check, probes) = checked("argsub");
    assert!(
        !probes.iter().any(|p| p.starts_with("command")),
        "{probes:?}"
    );
    for name in ["status", "diff", "remote list"] {
        assert!(probes.iter().any(|p| p == name), "{name}: {probes:?}");
    }
    assert!(failed_probes(check.check("no_hang_stdin_open")).contains(&"status".to_string()));
    assert!(failed_probes(check.check("no_color_honored")).contains(&"diff".to_string()));
}

#[test]
fn a_click_group_its_help_does_not_list_is_found_by_its_completion() {
    finds(
        "clickhid",
        &["status", "db show"],
        "no_hang_stdin_open",
        "db show",
    );
}

#[test]
fn commands_that_all_take_a_file_are_surveyed_with_a_made_up_one() {
    let check = finds(
        "fileops",
        &["check conform-probe", "upload conform-probe"],
        "no_color_honored",
        "check conform-probe",
    );
    let saved = names(&check.envelope["meta"]["inferred"]["profile"]["probes"]);
    assert_eq!(saved, ["unknown flag"], "a made-up operand is never saved");
}

#[test]
fn a_publish_that_deploys_and_an_autoupdate_are_never_saved_and_are_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let saved = dir.path().join("profile.json");
    let saved_text = saved.display().to_string();
    let check = conform_in(
        &fixtures(),
        ["check", "--save", &saved_text, "--", "./deployer"],
    );
    let inferred = &check.envelope["meta"]["inferred"];
    assert_eq!(
        names(&inferred["check_only_probes"]),
        ["autoupdate", "publish fly", "publish heroku"],
        "{inferred:#}"
    );
    let reasons = &inferred["check_only_reasons"];
    assert!(
        reasons["publish heroku"]
            .as_str()
            .is_some_and(|why| why.contains("called heroku apps:create")),
        "{reasons:#}"
    );
    let stderr = String::from_utf8_lossy(&check.output.stderr);
    for name in ["autoupdate", "publish heroku", "publish fly"] {
        assert!(
            stderr.contains(&format!("{name}: probed only here")),
            "{stderr}"
        );
    }
    let profile: Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).expect("saved")).expect("JSON");
    assert_eq!(
        names(&profile["probes"]),
        ["list", "unknown flag on list"],
        "{profile:#}"
    );

    let written = dir.path().join("init.json");
    let init = conform_in(
        &fixtures(),
        [
            "init",
            "--from-help",
            "--output",
            &written.display().to_string(),
            "--",
            "./deployer",
        ],
    );
    assert_eq!(init.code(), 0, "{:#}", init.envelope);
    let profile: Value =
        serde_json::from_str(&std::fs::read_to_string(&written).expect("written")).expect("JSON");
    assert_eq!(names(&profile["probes"]), ["list", "unknown flag on list"]);
    let not_called = init.envelope["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|w| w["code"] == "COMMANDS_NOT_CALLED")
        .map(|w| w["context"]["commands"].clone());
    assert_eq!(
        not_called,
        Some(serde_json::json!(["autoupdate", "publish"])),
        "{:#}",
        init.envelope
    );
    let stderr = String::from_utf8_lossy(&init.output.stderr);
    assert!(stderr.contains("autoupdate, publish"), "{stderr}");
}

#[test]
fn a_help_whose_commands_are_not_found_says_so_first_and_plainly() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["check", "--format", "text", "--", "./opaque"])
        .current_dir(fixtures())
        .env_remove_all(DEVELOPER_ENV)
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(4));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout.lines().next(),
        Some("Commands: found 0 of about 4 commands the help lists: judged on the kit's own runs only"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no other route listed any: tried opaque help, opaque list"),
        "{stderr}"
    );
    let json = conform_in(&fixtures(), ["check", "--", "./opaque"]);
    let commands = &json.envelope["meta"]["inferred"]["commands"];
    assert_eq!(commands["named"], 4, "{commands:#}");
    assert_eq!(commands["found"], 0, "{commands:#}");
    assert_eq!(
        commands["shortfall"],
        "found 0 of about 4 commands the help lists: judged on the kit's own runs only"
    );
}

#[test]
fn a_help_that_waits_on_the_network_is_named_in_network_timeout() {
    let check = conform_in(
        &fixtures(),
        ["check", "--only", "network_timeout", "--", "./netwait"],
    );
    assert_eq!(check.code(), 4, "{:#}", check.envelope);
    let failed = failed_probes(check.check("network_timeout"));
    for kit in [
        "--help (isolated)",
        "--version (isolated)",
        "bare (isolated)",
    ] {
        assert!(failed.iter().any(|p| p == kit), "{kit}: {failed:?}");
    }
    assert!(
        check
            .details("network_timeout")
            .contains("it waited on releases.example.com:443"),
        "{}",
        check.details("network_timeout")
    );
}
