//! `conform replay` remakes a run as it was made: a run recorded at the black
//! hole waits at a fresh one (in a namespace where the machine allows), a
//! terminal run is made on a terminal of its size, and a sandboxed run's
//! directories are shown and removed with the replay.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::{EnvRemoveAll, DEVELOPER_ENV};

/// A tool whose `fetch` writes a file in its HOME, asks its proxy for
/// api.replay.example, waits 3 s for the answer and gives up (exit 1); it exits 7
/// when nothing listens where its proxy says; `list` prints in red on a terminal,
/// `NO_COLOR` or not. Anything else succeeds.
/// `--help` names both.
const TOOL: &str = r#"#!/usr/bin/env bash
case "$*" in
    --help) printf 'Usage: replaytool <COMMAND>\n\nCommands:\n  fetch  Show the remote state\n  list   List the items\n' ;;
    fetch)
        : > "$HOME/fetched"
        proxy=${HTTPS_PROXY#*://}
        proxy=${proxy%%/*}
        exec 3<>"/dev/tcp/${proxy%%:*}/${proxy##*:}" || exit 7
        printf 'CONNECT api.replay.example:443 HTTP/1.1\r\nHost: api.replay.example:443\r\n\r\n' >&3
        read -r -t 3 answer <&3
        exit 1 ;;
    list) if [ -t 1 ]; then printf '\033[31mred\033[0m\n'; else echo '[]'; fi ;;
    *) echo '{"ok":true,"data":[],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":1,"schema_version":"1.0"}}' ;;
esac
"#;

/// `conform ARGS` in `dir` with TMPDIR at `dir/tmp`: the envelope.
fn conform(args: &[&str], dir: &Path) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(args)
        .current_dir(dir)
        .env_remove_all(DEVELOPER_ENV)
        .env("TMPDIR", dir.join("tmp"))
        .output()
        .expect("conform runs");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not one envelope ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn recorded_runs_are_remade_at_the_black_hole_and_on_a_terminal_and_leave_nothing_behind() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tool = dir.path().join("replaytool");
    std::fs::write(&tool, TOOL).expect("tool");
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let report = dir.path().join("report.json");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).expect("tmp");
    let report_arg = report.display().to_string();
    conform(
        &[
            "check",
            "--only",
            "network_timeout",
            "--only",
            "tty_no_color",
            "--json-report",
            &report_arg,
            "--",
            "./replaytool",
        ],
        dir.path(),
    );
    let document: Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report")).expect("JSON");
    let runs = document["results"][0]["runs"]
        .as_array()
        .expect("the report's runs");
    let at_hole = runs
        .iter()
        .position(|run| run["probe"] == "fetch")
        .unwrap_or_else(|| panic!("no run of fetch in {document:#}"));
    let recorded = &runs[at_hole];
    assert_eq!(
        recorded["exit_code"], 1,
        "it gave up by itself: {recorded:#}"
    );
    assert!(
        recorded["env"].to_string().contains("HTTPS_PROXY="),
        "at the black hole, in a sandbox: {recorded:#}"
    );
    let replay = conform(&["replay", &report_arg, &at_hole.to_string()], dir.path());
    let data = &replay["data"];
    // The same wait: held at a black hole until it gave up, as recorded (at the
    // recorded port, long closed, it would exit 7 at once).
    assert_eq!(data["replayed"]["exit_code"], 1, "{data:#}");
    assert_eq!(data["same_exit"], true, "{data:#}");
    let hole = &data["black_hole"];
    assert_eq!(hole["network"], document["network"], "{data:#}");
    assert!(
        hole["requests"].to_string().contains("api.replay.example"),
        "{data:#}"
    );
    // What the tool wrote in its sandbox is shown, and the sandbox is gone.
    assert_eq!(
        data["sandbox_created"],
        serde_json::json!(["home/fetched"]),
        "{data:#}"
    );
    // A terminal run is made on a terminal again: the same colour.
    let on_terminal = runs
        .iter()
        .position(|run| run["probe"] == "list (terminal)")
        .unwrap_or_else(|| panic!("no terminal run of list in {document:#}"));
    let recorded = &runs[on_terminal];
    assert!(
        recorded["stdout_excerpt"]
            .as_str()
            .is_some_and(|out| out.contains("\u{1b}[31mred")),
        "{recorded:#}"
    );
    let replay = conform(
        &["replay", &report_arg, &on_terminal.to_string()],
        dir.path(),
    );
    let data = &replay["data"];
    assert_eq!(
        data["replayed"]["stdout_excerpt"], recorded["stdout_excerpt"],
        "{data:#}"
    );
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .expect("tmp")
        .flatten()
        .map(|entry| entry.file_name())
        .collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
}
