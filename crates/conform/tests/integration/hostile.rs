//! Hostile tools: each must yield a clear verdict within its limit plus two seconds,
//! with conform's memory bounded by the capture cap.

use std::time::Duration;

use serde_json::json;

use crate::support::{
    conform_reported, hostile, interrupt_conform_run, kill_printed_pid, temp_profile,
};

const LIMIT: f64 = 1.0;

fn within_limit(elapsed: Duration, limit: f64) {
    assert!(
        elapsed < Duration::from_secs_f64(limit + 2.0),
        "conform took {elapsed:?}, more than the {limit}s limit plus two seconds"
    );
}

fn read_probe() -> serde_json::Value {
    json!([{ "name": "probe", "argv": [], "kind": "read" }])
}

/// Run `conform run --only CHECKS` on a read probe of a hostile fixture.
fn run_hostile(script: &str, limit: f64, only: &str, extra: &[&str]) -> crate::support::Conform {
    let (_dir, profile) = temp_profile(&hostile(script), limit, read_probe());
    let mut args = vec![
        "run".into(),
        profile.into_os_string(),
        "--only".into(),
        only.into(),
    ];
    args.extend(extra.iter().map(std::ffi::OsString::from));
    conform_reported(args)
}

#[test]
fn a_tool_that_never_exits_fails_no_hang_within_its_limit() {
    let run = run_hostile(
        "never_exits.sh",
        LIMIT,
        "no_hang_stdin_closed,no_hang_stdin_open",
        &[],
    );
    assert_eq!(run.code(), 4, "{:#}", run.envelope);
    assert_eq!(run.status("no_hang_stdin_closed"), "fail");
    assert!(
        run.details("no_hang_stdin_closed")
            .contains("no exit within the 1s limit"),
        "{}",
        run.details("no_hang_stdin_closed")
    );
    assert_eq!(
        run.check("no_hang_stdin_closed")["failures"][0]["timed_out"],
        true
    );
    // The report keeps the kit's kill apart from the tool's own ending.
    let kill = &run.reported("no_hang_stdin_closed")["failures"][0]["killed_by_kit"];
    assert_eq!(kill["at_limit"], true, "{:#}", run.report);
    assert!(
        kill["signal"]
            .as_str()
            .is_some_and(|s| s.starts_with("SIG")),
        "{kill:#}"
    );
    // The open run is not made after the closed one hit the limit, as in the reference.
    assert_eq!(run.check("no_hang_stdin_open")["runs_checked"], 0);
    within_limit(run.elapsed, LIMIT);
}

#[test]
fn a_tool_that_ignores_sigterm_is_killed_within_its_limit() {
    let run = run_hostile("ignores_term.sh", LIMIT, "no_hang_stdin_closed", &[]);
    assert_eq!(run.status("no_hang_stdin_closed"), "fail");
    assert!(run
        .details("no_hang_stdin_closed")
        .contains("killed its process group"));
    within_limit(run.elapsed, LIMIT);
}

#[test]
fn a_tool_that_closes_stdout_and_keeps_running_is_a_hang() {
    let run = run_hostile("closes_stdout.sh", LIMIT, "no_hang_stdin_closed", &[]);
    assert_eq!(run.status("no_hang_stdin_closed"), "fail");
    within_limit(run.elapsed, LIMIT);
}

#[test]
fn a_grandchild_holding_stdout_does_not_keep_the_kit_waiting() {
    let run = run_hostile("grandchild_escaped.sh", 5.0, "json_envelope", &[]);
    // The tool exited at once: judged, not a hang, and the held pipe is in the evidence.
    let failure = &run.reported("json_envelope")["failures"][0];
    assert_eq!(failure["timed_out"], false, "{:#}", run.report);
    assert_eq!(failure["exit_code"], 0);
    assert_eq!(failure["pipe_held_open"], true, "{failure:#}");
    // The holder is named: the grandchild whose pid the tool printed.
    let printed: Option<i64> = failure["stdout_excerpt"]
        .as_str()
        .and_then(|s| s.trim().parse().ok());
    assert!(
        failure["held_by"]
            .as_array()
            .is_some_and(|holders| holders.iter().any(|h| h["pid"].as_i64() == printed)),
        "{failure:#}"
    );
    assert!(
        run.elapsed < Duration::from_secs(3),
        "waited {:?} for a grandchild's pipe",
        run.elapsed
    );
    // Do not leave the sleeping grandchild behind.
    kill_printed_pid(failure);
}

#[test]
fn a_gigabyte_of_output_fails_json_envelope_naming_the_cap_with_bounded_memory() {
    let run = run_hostile(
        "gigabyte.sh",
        20.0,
        "json_envelope",
        &["--capture-limit", "1M"],
    );
    assert_eq!(run.status("json_envelope"), "fail");
    let details = run.details("json_envelope");
    assert!(details.contains("1 MiB capture cap"), "{details}");
    let failure = &run.reported("json_envelope")["failures"][0];
    assert_eq!(failure["stdout_bytes"], 1u64 << 30, "every byte is counted");
    assert!(
        failure["stdout_excerpt"]
            .as_str()
            .is_some_and(|e| e.len() < 8 * 1024),
        "excerpts stay bounded"
    );
    // ru_maxrss (KiB on Linux) of the largest waited-for child: conform itself, or
    // `head`, whichever is larger. Buffering the output would cost a gigabyte.
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    assert!(
        usage.max_rss() < 256 * 1024,
        "a child peaked at {} KiB",
        usage.max_rss()
    );
}

#[test]
fn invalid_utf8_on_stdout_is_not_json() {
    let run = run_hostile("invalid_utf8.sh", LIMIT, "json_envelope", &[]);
    assert_eq!(run.status("json_envelope"), "fail");
    assert!(
        run.details("json_envelope").contains("not valid UTF-8"),
        "{}",
        run.details("json_envelope")
    );
    // The excerpt is shown lossily, never as a broken document.
    assert!(
        run.reported("json_envelope")["failures"][0]["stdout_excerpt"]
            .as_str()
            .is_some_and(|e| e.contains("ok"))
    );
}

/// Whether a process is gone (or a zombie nobody has reaped yet).
fn dead(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn interrupting_conform_stops_the_tools_and_reports_cancelled() {
    let started = std::time::Instant::now();
    let run = interrupt_conform_run();
    let stdout = &run.stdout;
    assert_eq!(run.status.code(), Some(130), "{stdout}");
    let envelope: serde_json::Value = serde_json::from_str(stdout).expect("one envelope");
    assert_eq!(envelope["error"]["code"], "CANCELLED");
    assert_eq!(envelope["data"]["partial"], true);
    assert_eq!(envelope["meta"]["exit_code"], 130);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "conform took {:?} to stop",
        started.elapsed()
    );
    assert!(
        dead(run.tool_pid),
        "the tool (pid {}) outlived conform",
        run.tool_pid
    );
}

#[test]
fn a_stream_whose_stdout_a_grandchild_holds_fails_like_a_hang() {
    // The reference kit reads a stream to EOF, so a held pipe is a hang there too:
    // conform must not pass it.
    let (_dir, profile) = temp_profile(
        &hostile("grandchild_escaped.sh"),
        1.0,
        json!([{ "name": "stream", "argv": [], "kind": "stream" }]),
    );
    let run = conform_reported([
        "run".as_ref(),
        profile.as_os_str(),
        "--only".as_ref(),
        "stream_contract".as_ref(),
    ]);
    let details = run.details("stream_contract");
    assert!(
        details.contains("stdout stayed open until the 1s deadline"),
        "{details}"
    );
    within_limit(run.elapsed, LIMIT);
    let failure = &run.reported("stream_contract")["failures"][0];
    assert_eq!(failure["pipe_held_open"], true, "{failure:#}");
    kill_printed_pid(failure);
}
