//! conform run --stream, --fail-fast and completions. conform's stream is judged by
//! conform's own stream_contract and stream_sigint (`parse_stream` and the terminal
//! rules): a profile whose stream probes run `conform run --stream`.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::support::{conform, repo_root};

/// A profile for the conform binary under test whose probes stream `conform run
/// --stream ARGS...`, with paths made absolute so the profile can live anywhere.
fn stream_probes_of_conform(probes: Value) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("conform-stream.json");
    let profile = json!({
        "schema_version": "1.0",
        "tool": "conform",
        "command": [env!("CARGO_BIN_EXE_conform")],
        "timeout_seconds": 20,
        "probes": probes,
    });
    std::fs::write(&path, profile.to_string()).expect("profile written");
    (dir, path)
}

fn profile(rel: &str) -> String {
    repo_root().join(rel).display().to_string()
}

fn lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn a_passing_stream_ends_on_its_summary_and_a_failing_one_on_an_error_envelope() {
    let passing = profile("conformance/profiles/stream");
    let failing = profile("conformance/profiles/bad/help-on-stdout.json");
    let (_dir, path) = stream_probes_of_conform(json!([
        { "name": "passing", "argv": ["run", passing, "--stream"], "kind": "stream" },
        { "name": "failing", "argv": ["run", failing, "--stream"], "kind": "stream" },
    ]));
    let run = conform([
        "run".as_ref(),
        path.as_os_str(),
        "--only".as_ref(),
        "stream_contract".as_ref(),
    ]);
    assert_eq!(
        run.status("stream_contract"),
        "pass",
        "{}",
        run.details("stream_contract")
    );
    assert_eq!(run.check("stream_contract")["runs_checked"], 2);

    // The same streams read directly: the ending each outcome has.
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["run", &passing, "--stream"])
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(0));
    let passed = lines(&output.stdout);
    let last = passed.last().expect("a terminal line");
    assert_eq!(last["_summary"], true);
    let catalog = conform_core::command::check_ids().count();
    assert_eq!(
        last["_count"],
        2 * catalog,
        "every check of each of 2 profiles"
    );
    assert_eq!(passed[0]["_seq"], 1);
    // Lines come as each profile is judged: which of the two finishes first is the
    // machine's to decide (the quick one has a read probe's dozen runs, the slow one
    // a stream's one second), so only its being one of them is asserted.
    let first = passed[0]["profile"].as_str().unwrap_or_default();
    assert!(
        ["/1-quick.json", "/2-slow.json"]
            .iter()
            .any(|file| first == passing.clone() + file),
        "{first}"
    );
    assert_eq!(passed[0]["check"]["id"], "no_hang_stdin_closed");

    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["run", &failing, "--stream"])
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(4));
    let failed = lines(&output.stdout);
    let last = failed.last().expect("a terminal line");
    assert_eq!(last["ok"], false);
    assert_eq!(last["error"]["code"], "CONFORMANCE_CHECKS_FAILED");
    assert_eq!(last["meta"]["exit_code"], 4);
    assert_eq!(
        last["meta"]["items_emitted"],
        conform_core::command::check_ids().count()
    );
}

#[test]
fn sigint_mid_stream_ends_it_on_a_cancelled_line_judged_by_stream_sigint() {
    let inner = profile("conformance/profiles/stream");
    let (_dir, path) = stream_probes_of_conform(json!([
        { "name": "interrupted", "argv": ["run", inner, "--stream"], "kind": "stream", "signal": "INT", "after_lines": 4 },
    ]));
    let run = conform([
        "run".as_ref(),
        path.as_os_str(),
        "--only".as_ref(),
        "stream_sigint".as_ref(),
    ]);
    assert_eq!(
        run.status("stream_sigint"),
        "pass",
        "{}",
        run.details("stream_sigint")
    );
}

#[test]
fn sigint_after_the_first_lines_gives_partial_results_and_exit_130() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["run", &profile("conformance/profiles/stream"), "--stream"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("conform starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    // Wait on a line, never on a clock: the first profile is judged while the
    // second's one-second stream still runs.
    let mut first = String::new();
    stdout.read_line(&mut first).expect("a first line");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid fits"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT sent");
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("the rest");
    let status = child.wait().expect("conform exits");
    assert_eq!(status.code(), Some(130));
    let all = lines(format!("{first}{rest}").as_bytes());
    let last = all.last().expect("a terminal line");
    assert_eq!(last["error"]["code"], "CANCELLED");
    assert_eq!(last["data"]["partial"], true);
    assert_eq!(last["meta"]["exit_code"], 130);
    let items = all.len() as u64 - 1;
    assert_eq!(last["meta"]["items_emitted"], items);
    assert_eq!(
        items,
        conform_core::command::check_ids().count() as u64,
        "the first profile only: the second is not judged on killed runs"
    );
}

#[test]
fn fail_fast_stops_after_the_first_failed_check_and_says_so() {
    let bad = repo_root().join("conformance/profiles/bad");
    let run = conform([
        "run".as_ref(),
        bad.as_os_str(),
        "--fail-fast".as_ref(),
        "-j".as_ref(),
        "1".as_ref(),
    ]);
    assert_eq!(run.code(), 4, "{:#}", run.envelope);
    let reason = run.envelope["meta"]["stopped_early"]
        .as_str()
        .unwrap_or_else(|| panic!("no meta.stopped_early: {:#}", run.envelope));
    assert!(reason.starts_with("--fail-fast stopped after "), "{reason}");
    let message = run.envelope["error"]["message"].as_str().unwrap_or("");
    assert!(message.ends_with(reason), "{message}");
    let results = run.envelope["data"]["results"].as_array().expect("results");
    assert!(results[0]["summary"]["failed"].as_u64() > Some(0));
    // Profiles whose runs were cut short have every check skipped, saying why; the
    // last profile's runs come last in the pool, so none of them was started.
    let not_run = |result: &Value| {
        result["checks"].as_array().is_some_and(|checks| {
            checks.iter().all(|c| {
                c["status"] == "skip" && c["skipped_reason"] == format!("not run: {reason}")
            })
        })
    };
    assert!(not_run(results.last().expect("profiles")), "{results:#?}");
    assert!(results.iter().filter(|r| not_run(r)).count() >= results.len() / 2);

    let text = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["--format", "text", "run", "--fail-fast", "-j", "1"])
        .arg(&bad)
        .output()
        .expect("conform runs");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains(&format!("Stopped early: {reason}")), "{text}");
}

#[test]
fn completions_print_a_raw_script_for_each_shell_even_when_piped() {
    for (shell, marker) in [
        ("bash", "complete -F _conform"),
        ("zsh", "#compdef conform"),
        ("fish", "complete -c conform"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_conform"))
            .args(["completions", shell])
            .output()
            .expect("conform runs");
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = String::from_utf8_lossy(&output.stdout);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(
            script.contains("fail-fast"),
            "{shell}: the run flags complete"
        );
        assert!(
            serde_json::from_str::<Value>(&script).is_err(),
            "not an envelope"
        );
    }
    let manifest = conform(["manifest"]);
    let entry = &manifest.envelope["data"]["commands"]["completions"];
    assert_eq!(entry["stdout"], "protocol");
    assert_eq!(entry["protocol"], "shell-completion");
}

/// The progress line never reaches stdout, and is not drawn at all off a terminal.
#[test]
fn piped_output_has_no_progress_line() {
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args([
            "run",
            &profile("conformance/profiles/democli.json"),
            "--only",
            "help_off_stdout",
        ])
        .output()
        .expect("conform runs");
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let envelope: Value = serde_json::from_slice(&output.stdout).expect("one envelope");
    assert_eq!(envelope["ok"], true);
}
