//! Hostile tools: each must yield a clear verdict, the kit ending it at its limit,
//! with conform's memory bounded by the capture cap. That the limit was kept is read
//! from the report (timed out, killed by the kit at the limit, a pipe held and by
//! whom), which no load changes; the time conform took is bounded only where a hang
//! would show nowhere else, and then by minutes.

use std::time::Duration;

use serde_json::json;

use crate::support::{
    conform_reported, hostile, interrupt_conform_run, temp_profile, EnvRemoveAll, DEVELOPER_ENV,
    HANG,
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
fn a_run_at_its_limit_says_what_it_was_blocked_on() {
    // Closed, it reads EOF and exits; open, it blocks reading the pipe.
    let run = run_hostile("read_stdin.sh", 3.0, "no_hang_stdin_open", &[]);
    assert_eq!(run.status("no_hang_stdin_open"), "fail");
    let details = run.details("no_hang_stdin_open");
    assert!(
        details.starts_with("no exit within the 3s limit; the kit killed its process group")
            && details.ends_with("; still running: blocked reading stdin before printing anything"),
        "{details}"
    );
    let failure = &run.reported("no_hang_stdin_open")["failures"][0];
    assert_eq!(
        failure["waiting_on"],
        json!({
            "kind": "stdin",
            "detail": "blocked reading stdin before printing anything"
        }),
        "{failure:#}"
    );
    let errors = crate::support::schema_errors(
        include_str!("../../../conform-core/schemas/json-report.schema.json"),
        &run.report,
    );
    assert!(errors.is_empty(), "{errors:#?}");
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
    // conform did not leave the sleeping grandchild behind.
    assert_eq!(
        killed_pids(failure),
        printed.into_iter().collect::<Vec<_>>()
    );
}

#[test]
#[allow(clippy::zombie_processes)] // the memory measurement reaps conform with wait4
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
    // ru_maxrss (KiB on Linux) of one conform run and what it waited for, read from
    // its own wait4: other tests' processes in this binary (a 64 MiB writer among
    // them) do not count. Buffering the output would cost a gigabyte.
    let (_dir, profile) = temp_profile(&hostile("gigabyte.sh"), ROOMY, read_probe());
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_conform"))
        .arg("run")
        .arg(&profile)
        .args(["--only", "json_envelope", "--capture-limit", "1M"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("conform starts");
    let pid = i32::try_from(child.id()).expect("pid fits");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be overwritten.
    let mut usage: nix::libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, with valid out pointers.
    let waited = unsafe { nix::libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4 on conform");
    assert!(
        usage.ru_maxrss < 256 * 1024,
        "conform and its tool peaked at {} KiB",
        usage.ru_maxrss
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
    // The grandchild (it printed nothing: its pid went to no FIFO) was killed.
    let killed = &failure["orphans_killed"];
    assert!(
        killed.as_array().is_some_and(|k| k.len() == 1)
            && killed[0]["cmdline"]
                .as_str()
                .is_some_and(|c| c.starts_with("sleep")),
        "{failure:#}"
    );
}

/// The pids a failure's `orphans_killed` lists.
fn killed_pids(failure: &serde_json::Value) -> Vec<i64> {
    failure["orphans_killed"]
        .as_array()
        .map(|killed| killed.iter().filter_map(|k| k["pid"].as_i64()).collect())
        .unwrap_or_default()
}

/// Live processes whose environment holds `NAME=value`: `(pid, command line)`.
fn processes_with_env(name: &str, value: &str) -> Vec<(String, String)> {
    let wanted = format!("{name}={value}");
    let Ok(proc) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    proc.filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter(|entry| {
            std::fs::read(entry.path().join("environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|var| var == wanted.as_bytes()))
        })
        .map(|entry| {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            (
                entry.file_name().to_string_lossy().into_owned(),
                String::from_utf8_lossy(&cmdline).replace('\0', " "),
            )
        })
        .collect()
}

#[cfg(target_os = "linux")]
#[test]
fn no_process_a_tool_leaves_behind_outlives_conform() {
    // Every process of this test's tool carries it, inherited from conform.
    let marker = format!(
        "{}-{:?}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)
    );
    let (_dir, profile) = temp_profile(&hostile("leaves_orphans.sh"), 5.0, read_probe());
    let report_dir = tempfile::tempdir().expect("temp dir");
    let report = report_dir.path().join("report.json");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["run".as_ref(), profile.as_os_str()])
        .args(["--only", "pipes_closed_on_exit", "--json-report"])
        .arg(&report)
        .env_remove_all(DEVELOPER_ENV)
        .env("CONFORM_TEST_MARKER", &marker)
        .output()
        .expect("conform runs");
    // conform has exited (and was reaped): nothing of the tool may be alive.
    let alive = processes_with_env("CONFORM_TEST_MARKER", &marker);
    for (pid, _) in &alive {
        if let Ok(pid) = pid.parse() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
    assert_eq!(alive, Vec::<(String, String)>::new(), "outlived conform");
    assert_eq!(output.status.code(), Some(4));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("report written")).expect("JSON");
    let errors = crate::support::schema_errors(
        include_str!("../../../conform-core/schemas/json-report.schema.json"),
        &report,
    );
    assert_eq!(errors, Vec::<String>::new(), "{report:#}");
    let check = &report["results"][0]["checks"]
        .as_array()
        .and_then(|checks| checks.iter().find(|c| c["id"] == "pipes_closed_on_exit"))
        .cloned()
        .unwrap_or_default();
    let failures = check["failures"].as_array().cloned().unwrap_or_default();
    assert!(!failures.is_empty(), "{report:#}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    for failure in &failures {
        let printed: Vec<i64> = failure["stdout_excerpt"]
            .as_str()
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|pid| pid.parse().ok())
            .collect();
        let [helper, daemon] = printed[..] else {
            panic!("the tool printed no pids: {failure:#}");
        };
        // The helper held the run's pipes: killed at the run's end, with its child,
        // and named in the evidence and the detail.
        let killed = killed_pids(failure);
        assert_eq!(killed.len(), 2, "{failure:#}");
        assert!(killed.contains(&helper), "{failure:#}");
        assert!(
            failure["orphans_killed"]
                .as_array()
                .is_some_and(|k| k.iter().all(|o| o["cmdline"] == "sleep 600")),
            "{failure:#}"
        );
        let detail = failure["detail"].as_str().unwrap_or_default();
        let (_, killed_named) = detail
            .split_once("conform then killed what it left running: ")
            .unwrap_or_else(|| panic!("the detail names no kill: {detail}"));
        assert!(
            killed_named.contains(&format!("pid {helper} (sleep 600)")),
            "{detail}"
        );
        // The daemon closed them: no run can claim it, so it went once the runs
        // were over, named on stderr.
        assert!(!killed.contains(&daemon), "{failure:#}");
        // Named once per command line, with every pid: the daemon's among the
        // pids of its own command line, not anywhere on stderr.
        let sleeps = stderr
            .lines()
            .find(|line| line.starts_with("conform: killed"))
            .and_then(|line| line.split_once("sleep 600 ("))
            .and_then(|(_, rest)| rest.split_once(')'))
            .map_or("", |(pids, _)| pids);
        assert!(
            sleeps
                .split(|c: char| !c.is_ascii_digit())
                .any(|pid| pid == daemon.to_string()),
            "{stderr}"
        );
    }
    assert!(stderr.contains("conform: killed"), "{stderr}");
}

#[test]
fn democlis_helper_holding_stdout_is_killed_after_its_run() {
    let run = conform_reported([
        "run",
        "conformance/profiles/bad/helper-holds-stdout.json",
        "--only",
        "pipes_closed_on_exit",
    ]);
    assert_eq!(run.status("pipes_closed_on_exit"), "fail");
    let failure = &run.reported("pipes_closed_on_exit")["failures"][0];
    let killed = &failure["orphans_killed"];
    assert_eq!(
        killed,
        &json!([{ "pid": failure["held_by"][0]["pid"], "cmdline": "sleep 2" }]),
        "{failure:#}"
    );
    assert!(
        run.details("pipes_closed_on_exit")
            .contains("conform then killed what it left running: pid "),
        "{}",
        run.details("pipes_closed_on_exit")
    );
}
