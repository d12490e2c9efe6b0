//! Hostile tools: each must yield a clear verdict within its limit plus two seconds,
//! with conform's memory bounded by the capture cap.

use std::time::Duration;

use serde_json::json;

use crate::support::{conform_reported, hostile, temp_profile};

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
    assert!(
        run.elapsed < Duration::from_secs(3),
        "waited {:?} for a grandchild's pipe",
        run.elapsed
    );
    // Do not leave the sleeping grandchild behind.
    if let Some(pid) = failure["stdout_excerpt"]
        .as_str()
        .and_then(|s| s.trim().parse::<i32>().ok())
    {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
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
    use std::io::Read;
    use std::process::{Command, Stdio};

    let dir = tempfile::tempdir().expect("temp dir");
    let tool = dir.path().join("tool.sh");
    std::fs::write(
        &tool,
        "#!/bin/sh\necho $$ > pid\nwhile :; do sleep 1; done\n",
    )
    .expect("tool written");
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let profile = dir.path().join("profile.json");
    let text = json!({
        "schema_version": "1.0", "tool": "sleeper", "command": ["./tool.sh"], "timeout_seconds": 60,
        "probes": [{ "name": "probe", "argv": [], "kind": "read" }]
    });
    std::fs::write(&profile, text.to_string()).expect("profile written");

    let started = std::time::Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args([
            "run".as_ref(),
            profile.as_os_str(),
            "--only".as_ref(),
            "no_hang_stdin_closed".as_ref(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("conform starts");
    // Wait until the tool is running (it writes its pid), never on a fixed sleep alone.
    let pid_file = dir.path().join("pid");
    let pid = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
        {
            break pid;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the tool never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let conform_pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid fits"));
    nix::sys::signal::kill(conform_pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT sent");
    let status = child.wait().expect("conform exits");
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut stdout)
        .expect("stdout read");

    assert_eq!(status.code(), Some(130), "{stdout}");
    let envelope: serde_json::Value = serde_json::from_str(&stdout).expect("one envelope");
    assert_eq!(envelope["error"]["code"], "CANCELLED");
    assert_eq!(envelope["data"]["partial"], true);
    assert_eq!(envelope["meta"]["exit_code"], 130);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "conform took {:?} to stop",
        started.elapsed()
    );
    assert!(dead(pid), "the tool (pid {pid}) outlived conform");
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
    if let Some(pid) = failure["stdout_excerpt"]
        .as_str()
        .and_then(|s| s.trim().parse::<i32>().ok())
    {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}
