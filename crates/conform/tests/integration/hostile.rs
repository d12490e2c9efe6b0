//! Hostile tools: each must yield a clear verdict, the kit ending it at its limit,
//! with conform's memory bounded by the capture cap. That the limit was kept is read
//! from the report (timed out, killed by the kit at the limit, a pipe held and by
//! whom), which no load changes; the time conform took is bounded only where a hang
//! would show nowhere else, and then by minutes.

use std::time::Duration;

use serde_json::json;

use crate::support::{
    conform_reported, hostile, interrupt_conform_run, kill_printed_pid, temp_profile, HANG,
};

/// The limit of a tool that never ends by itself: the kit must end it.
const LIMIT: f64 = 1.0;

/// The limit of a tool that ends by itself: so far above what it needs that no load
/// makes it time out.
const ROOMY: f64 = 60.0;

/// How long the grandchild fixtures' background child sleeps holding stdout: a
/// conform that waited for that pipe would take at least this long.
const GRANDCHILD_SLEEP: Duration = Duration::from_secs(60);

/// Fails when conform took longer than a run made twice (the second time alone,
/// after a starved first) at `limit`, plus [`HANG`]: what only a conform that does
/// not let go of a tool takes.
fn not_hung(elapsed: Duration, limit: f64) {
    let bound = Duration::from_secs_f64(limit * 2.0) + HANG;
    assert!(
        elapsed < bound,
        "conform took {elapsed:?} with a {limit}s limit: it hung"
    );
}

/// The first failure of `check` in the report: timed out, and ended by the kit at
/// its limit with `signal`, or with SIGTERM or SIGKILL when `signal` is `None`.
fn assert_killed_at_limit(run: &crate::support::Conform, check: &str, signal: Option<&str>) {
    let failure = &run.reported(check)["failures"][0];
    assert_eq!(failure["timed_out"], true, "{failure:#}");
    let kill = &failure["killed_by_kit"];
    assert_eq!(kill["at_limit"], true, "{failure:#}");
    let sent = kill["signal"].as_str().unwrap_or_default();
    match signal {
        Some(signal) => assert_eq!(sent, signal, "{failure:#}"),
        None => assert!(["SIGTERM", "SIGKILL"].contains(&sent), "{failure:#}"),
    }
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
    assert_killed_at_limit(&run, "no_hang_stdin_closed", None);
    // The open run is not made after the closed one hit the limit, as in the reference.
    assert_eq!(run.check("no_hang_stdin_open")["runs_checked"], 0);
    not_hung(run.elapsed, LIMIT);
}

#[test]
fn a_tool_that_ignores_sigterm_is_killed_within_its_limit() {
    let run = run_hostile("ignores_term.sh", LIMIT, "no_hang_stdin_closed", &[]);
    assert_eq!(run.status("no_hang_stdin_closed"), "fail");
    assert!(run
        .details("no_hang_stdin_closed")
        .contains("killed its process group"));
    // SIGTERM was not enough: the kit's SIGKILL after the grace ended it.
    assert_killed_at_limit(&run, "no_hang_stdin_closed", Some("SIGKILL"));
    not_hung(run.elapsed, LIMIT);
}

#[test]
fn a_tool_that_closes_stdout_and_keeps_running_is_a_hang() {
    let run = run_hostile("closes_stdout.sh", LIMIT, "no_hang_stdin_closed", &[]);
    assert_eq!(run.status("no_hang_stdin_closed"), "fail");
    assert_killed_at_limit(&run, "no_hang_stdin_closed", None);
    not_hung(run.elapsed, LIMIT);
}

#[test]
fn a_grandchild_holding_stdout_does_not_keep_the_kit_waiting() {
    let run = run_hostile("grandchild_escaped.sh", ROOMY, "json_envelope", &[]);
    // The tool exited at once: judged, not a hang, and the held pipe is in the evidence.
    let failure = &run.reported("json_envelope")["failures"][0];
    assert_eq!(failure["timed_out"], false, "{:#}", run.report);
    assert!(failure.get("killed_by_kit").is_none(), "{failure:#}");
    assert_eq!(failure["exit_code"], 0);
    // Given up on while still held: a conform that waited for the pipe would have
    // seen it close when the grandchild's sleep ended, and taken that long.
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
        run.elapsed < GRANDCHILD_SLEEP,
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
        ROOMY,
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
    let run = run_hostile("invalid_utf8.sh", ROOMY, "json_envelope", &[]);
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
    // Fails unless conform exits well before the tool's limit (see the helper).
    let run = interrupt_conform_run();
    let stdout = &run.stdout;
    assert_eq!(run.status.code(), Some(130), "{stdout}");
    let envelope: serde_json::Value = serde_json::from_str(stdout).expect("one envelope");
    assert_eq!(envelope["error"]["code"], "CANCELLED");
    assert_eq!(envelope["data"]["partial"], true);
    assert_eq!(envelope["meta"]["exit_code"], 130);
    assert!(
        dead(run.tool_pid),
        "the tool (pid {}) outlived conform",
        run.tool_pid
    );
}

#[test]
fn a_stream_whose_stdout_a_grandchild_holds_fails_like_a_hang() {
    // The reference kit reads a stream to EOF, so a held pipe is a hang there too:
    // conform must not pass it. The deadline leaves the tool a thousand times what it
    // needs to exit, and comes well before the grandchild lets go of stdout.
    let (_dir, profile) = temp_profile(
        &hostile("grandchild_escaped.sh"),
        5.0,
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
        details.contains("stdout stayed open until the 5s deadline"),
        "{details}"
    );
    not_hung(run.elapsed, 5.0);
    let failure = &run.reported("stream_contract")["failures"][0];
    assert_eq!(failure["pipe_held_open"], true, "{failure:#}");
    kill_printed_pid(failure);
}
