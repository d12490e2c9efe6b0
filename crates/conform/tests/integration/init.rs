//! `conform init`: profiles generated from manifests and help texts, the overwrite
//! refusal, and the errors a new user meets.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{conform, conform_in, repo_root};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/init")
}

fn democli() -> PathBuf {
    repo_root().join("benchmark/harness/cli/good/democli")
}

/// conform's stdout and exit code for `args` run in `cwd`, with text output so the
/// profile is printed as it would be written.
fn text_output(cwd: &Path, args: &[&str]) -> (String, String, i32) {
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["--format", "text"])
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("conform runs");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code().unwrap_or(-1),
    )
}

fn warning_codes(envelope: &Value) -> Vec<(String, String)> {
    envelope["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .map(|w| {
                    (
                        w["code"].as_str().unwrap_or("").to_string(),
                        w["message"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_profile_generated_for_democli_passes_conform_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("democli.json");
    let tool = democli();
    let init = conform([
        "init".as_ref(),
        "--output".as_ref(),
        path.as_os_str(),
        "--".as_ref(),
        tool.as_os_str(),
    ]);
    assert_eq!(init.code(), 0, "{:#}", init.envelope);
    assert_eq!(init.envelope["data"]["written"], true);
    let text = std::fs::read_to_string(&path).expect("profile written");
    let profile: Value = serde_json::from_str(&text).expect("profile is JSON");
    assert_eq!(profile["timeout_seconds"], 5);
    assert_eq!(profile["manifest"], serde_json::json!(["manifest"]));
    let kinds: Vec<&str> = profile["probes"]
        .as_array()
        .expect("probes")
        .iter()
        .filter_map(|p| p["kind"].as_str())
        .collect();
    for kind in ["read", "destructive", "stream", "invalid"] {
        assert!(kinds.contains(&kind), "no {kind} probe in {text}");
    }
    assert!(
        !text.contains("--yes") && !text.contains("--format json"),
        "{text}"
    );
    assert_eq!(
        profile["command"][0].as_str().map(|c| c.contains('/')),
        Some(true),
        "a path stays a path: {text}"
    );

    let run = conform(["run".as_ref(), path.as_os_str()]);
    assert_eq!(run.code(), 0, "{:#}", run.envelope);
    for level in ["level_1", "level_2", "level_3"] {
        assert_eq!(run.result()["levels"][level], "pass", "{:#}", run.envelope);
    }
}

#[test]
fn hand_written_manifests_give_the_expected_profiles() {
    let dir = fixtures();
    for name in [
        "mutating",
        "required-without-examples",
        "no-streaming",
        "no-destructive",
        "stdin-and-twins",
    ] {
        let manifest = format!("manifests/{name}.json");
        let (stdout, stderr, code) = text_output(
            &dir,
            &["init", "--manifest-file", &manifest, "--", "./tool"],
        );
        assert_eq!(code, 0, "{name}: {stderr}");
        let expected = std::fs::read_to_string(dir.join(format!("manifests/{name}.expected.json")))
            .expect("expected profile");
        assert_eq!(
            stdout, expected,
            "{name}: the profile changed; stderr:\n{stderr}"
        );
    }
}

#[test]
fn mutating_commands_and_unfillable_flags_are_skipped_with_a_warning() {
    let init = conform_in(
        &fixtures(),
        [
            "init",
            "--manifest-file",
            "manifests/mutating.json",
            "--",
            "./tool",
        ],
    );
    assert_eq!(init.code(), 0, "{:#}", init.envelope);
    let warnings = warning_codes(&init.envelope);
    for command in ["items create", "items update"] {
        assert!(
            warnings.iter().any(|(code, m)| code == "COMMAND_SKIPPED"
                && m.starts_with(command)
                && m.contains("mutating")),
            "{command} not reported: {warnings:?}"
        );
    }
    let text = init.envelope["data"].to_string();
    assert!(
        !text.contains("create") && !text.contains("--yes"),
        "{text}"
    );

    let init = conform_in(
        &fixtures(),
        [
            "init",
            "--manifest-file",
            "manifests/required-without-examples.json",
            "--",
            "./tool",
        ],
    );
    let warnings = warning_codes(&init.envelope);
    assert!(
        warnings
            .iter()
            .any(|(_, m)| m.starts_with("purge") && m.contains("--older-than")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|(_, m)| m.starts_with("report") && m.contains("--since")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|(_, m)| m.starts_with("clean") && m.contains("dry-run")),
        "{warnings:?}"
    );
    for (code, _) in &warnings {
        assert!(
            code.len() > 1 && code.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
            "{code}"
        );
    }
}

#[test]
fn commands_that_read_stdin_are_not_probed_and_twin_flags_are_filled_positionally() {
    let init = conform_in(
        &fixtures(),
        [
            "init",
            "--manifest-file",
            "manifests/stdin-and-twins.json",
            "--",
            "./tool",
        ],
    );
    assert_eq!(init.code(), 0, "{:#}", init.envelope);
    let warnings = warning_codes(&init.envelope);
    for (command, why) in [
        ("exec", "declares stdin input (mode buffered)"),
        (
            "apply",
            "\"cat plan.json | tool apply\" gives it input on stdin",
        ),
    ] {
        assert!(
            warnings.iter().any(|(code, m)| code == "COMMAND_SKIPPED"
                && m.starts_with(&format!("{command}:"))
                && m.contains(why)),
            "{command} not reported: {warnings:?}"
        );
    }
    // `name` is a required flag and a positional; the example gives it positionally.
    let probes = init.envelope["data"]["probes"].to_string();
    assert!(
        probes.contains(r#"["items","show","it-1"]"#)
            && probes.contains(r#"["items","delete","it-1"]"#)
            && !probes.contains("--name"),
        "{probes}"
    );
}

#[test]
fn from_help_reads_each_framework_style() {
    let dir = fixtures().join("help");
    for (tool, destructive) in [
        ("clap", "delete"),
        ("cobra", "remove"),
        ("click", "drop"),
        ("argparse", "purge"),
        ("commander", "rm"),
    ] {
        let program = format!("./{tool}");
        let (stdout, stderr, code) = text_output(&dir, &["init", "--from-help", "--", &program]);
        assert_eq!(code, 0, "{tool}: {stderr}");
        let expected = std::fs::read_to_string(dir.join(format!("{tool}.expected.json")))
            .expect("expected profile");
        assert_eq!(
            stdout, expected,
            "{tool}: the profile changed; stderr:\n{stderr}"
        );
        assert!(
            stderr.contains(&format!("{destructive} looks destructive")),
            "{tool}: {stderr}"
        );
        assert!(
            !stdout.contains(&format!("\"{destructive}\"")),
            "{tool}: {stdout}"
        );
    }
}

#[test]
fn from_help_reads_yargs_typer_and_git_layouts_and_tries_each_candidate() {
    let dir = fixtures().join("help");
    // (tool, what stderr must say about the candidates left out)
    let cases: [(&str, &[&str]); 3] = [
        (
            "yargs",
            &[
                "get-skill: no probe written: `./yargs get-skill --help` went for the network",
                "me: no probe written: its trial run went for the network",
                "projects get: no probe written: its usage shows a required argument",
                "they change state or reach out: checkout, init",
                // Wrapped description lines ("ant", "mmands") are not commands.
                "say nothing of side effects: auth;",
            ],
        ),
        (
            "typer",
            &[
                "status: no probe written: its trial run did not finish within 3 s with stdin open",
                "whoami: no probe written: its trial run (stdin closed, a fresh HOME, offline) exited 4",
                "they change state or reach out: login",
            ],
        ),
        (
            "gitlike",
            &[
                "status: no probe written: its trial run (stdin closed, a fresh HOME, offline) exited 128",
                "show: no probe written: its usage line shows a required argument",
                "config get: no probe written: its usage shows a required argument",
            ],
        ),
    ];
    for (tool, said) in cases {
        let program = format!("./{tool}");
        let (stdout, stderr, code) = text_output(
            &dir,
            &["init", "--timeout", "3", "--from-help", "--", &program],
        );
        assert_eq!(code, 0, "{tool}: {stderr}");
        let expected = std::fs::read_to_string(dir.join(format!("{tool}.expected.json")))
            .expect("expected profile");
        assert_eq!(
            stdout, expected,
            "{tool}: the profile changed; stderr:\n{stderr}"
        );
        for words in said {
            assert!(stderr.contains(words), "{tool}: no {words:?} in\n{stderr}");
        }
    }
}

/// git's read probes pass the hang checks wherever the profile lives: `status`
/// fails outside a repository, so its trial leaves it out there.
#[test]
fn git_gets_two_read_probes_that_pass_the_hang_checks_from_any_directory() {
    let outside = tempfile::tempdir().expect("temp dir");
    for dir in [outside.path().to_path_buf(), repo_root()] {
        let scratch = tempfile::tempdir_in(&dir).expect("profile dir");
        let path = scratch.path().join("git.json");
        let init = conform_in(
            &dir,
            [
                "init".as_ref(),
                "--from-help".as_ref(),
                "--output".as_ref(),
                path.as_os_str(),
                "--".as_ref(),
                "git".as_ref(),
            ],
        );
        assert_eq!(init.code(), 0, "{}: {:#}", dir.display(), init.envelope);
        let profile = &init.envelope["data"]["profile"];
        let reads: Vec<String> = profile["probes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["kind"] == "read")
            .filter_map(|p| p["name"].as_str().map(String::from))
            .collect();
        assert!(reads.len() >= 2, "{}: {reads:?}", dir.display());
        let run = conform([
            "run".as_ref(),
            "--only".as_ref(),
            "no_hang_stdin_closed,no_hang_stdin_open".as_ref(),
            path.as_os_str(),
        ]);
        assert_eq!(
            run.status("no_hang_stdin_closed"),
            "pass",
            "{:#}",
            run.envelope
        );
        assert_eq!(
            run.status("no_hang_stdin_open"),
            "pass",
            "{:#}",
            run.envelope
        );
    }
}

#[test]
fn overwriting_needs_yes_and_dry_run_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("profile.json");
    std::fs::write(&path, "keep me\n").expect("write");
    let tool = democli();
    let args = |extra: &[&str]| {
        let mut args: Vec<std::ffi::OsString> =
            vec!["init".into(), "--output".into(), path.clone().into()];
        args.extend(extra.iter().map(Into::into));
        args.extend(["--".into(), tool.clone().into()]);
        args
    };

    let refused = conform(args(&[]));
    assert_eq!(refused.code(), 2, "{:#}", refused.envelope);
    let error = &refused.envelope["error"];
    assert_eq!(error["code"], "CONFIRMATION_REQUIRED");
    assert!(
        error["fix_required"]
            .as_str()
            .is_some_and(|f| f.contains("--yes")),
        "{error:#}"
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "keep me\n");

    let preview = conform(args(&["--dry-run"]));
    assert_eq!(preview.code(), 0, "{:#}", preview.envelope);
    assert_eq!(preview.envelope["data"]["written"], false);
    assert_eq!(preview.envelope["data"]["would_overwrite"], true);
    assert_eq!(preview.envelope["data"]["profile"]["tool"], "democli");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "keep me\n");

    let confirmed = conform(args(&["--yes"]));
    assert_eq!(confirmed.code(), 0, "{:#}", confirmed.envelope);
    assert_eq!(confirmed.envelope["data"]["overwrote"], true);
    let written = std::fs::read_to_string(&path).expect("read");
    assert_eq!(
        serde_json::from_str::<Value>(&written).expect("JSON"),
        confirmed.envelope["data"]["profile"]
    );
}

#[test]
fn an_invalid_manifest_is_an_error_naming_what_is_wrong() {
    let init = conform_in(
        &fixtures(),
        [
            "init",
            "--manifest-file",
            "manifests/invalid.json",
            "--",
            "./tool",
        ],
    );
    assert_eq!(init.code(), 2, "{:#}", init.envelope);
    assert_eq!(init.envelope["error"]["code"], "INVALID_MANIFEST");
    let message = init.envelope["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("/commands/list") && message.contains("danger_level"),
        "{message}"
    );
}

#[test]
fn a_tool_that_hangs_is_a_timeout_error() {
    let started = Instant::now();
    let init = conform_in(&fixtures(), ["init", "--timeout", "1", "--", "./hang"]);
    // The fixture sleeps 60 s: only an init that waited for it, rather than stopping
    // it at the timeout, takes that long, however loaded the machine.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}: init waited for the tool",
        started.elapsed()
    );
    assert_eq!(init.code(), 1, "{:#}", init.envelope);
    assert_eq!(init.envelope["error"]["code"], "TOOL_TIMEOUT");
    let message = init.envelope["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("did not finish within 1 s"), "{message}");
}

#[test]
fn the_same_manifest_gives_the_same_bytes() {
    let dir = fixtures();
    let args = [
        "init",
        "--manifest-file",
        "manifests/no-streaming.json",
        "--",
        "./tool",
    ];
    let first = text_output(&dir, &args);
    let second = text_output(&dir, &args);
    assert_eq!(first.0, second.0);
    assert_eq!(first.2, 0, "{}", first.1);
}
