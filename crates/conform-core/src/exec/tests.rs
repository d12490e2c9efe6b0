//! Tests of `exec`: every run made the way docs/runs.md says,
//! and hostile tools (the fixtures in conform's tests/fixtures/hostile/, which its
//! integration tests and the benchmark run too) that must never make the kit hang.
//! Tests wait on exits and lines, never on fixed sleeps. A loaded machine can delay
//! any run by seconds, so what a run did is asserted from its record (timed out,
//! killed by the kit at the limit, a pipe held and by whom, the trigger's outcome),
//! never from how long it took: the only upper bounds on time are [`HANG`] and
//! bounds tied to a fixture's own sleep, which only a kit that waited for the tool
//! reaches.
//!
//! They run in the crate's unit-test binary, in threads beside every other unit
//! test. The few that need process-wide state of their own (variables in the kit's
//! environment, ignored signal dispositions) get it in a process of their own: see
//! [`own_process`].

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::exec::{
    self, Exit, KitKill, RunErrorKind, RunRecord, RunSpec, Session, Signal, StdinMode, Trigger,
    TriggerAction, TriggerOutcome,
};

/// What a run may take past its limit before the test calls it a hang. The kit ends
/// every run within its limit plus about 0.6 s; two minutes more is beyond what any
/// load delays it by, so only a kit that does not let go of a tool reaches this.
const HANG: Duration = Duration::from_secs(120);

/// The limit of a run that must end by itself: so far above what the fixture needs
/// that no load makes it time out, so a `timed_out` there is the kit's fault.
const ROOMY: Duration = Duration::from_secs(60);

/// How long the grandchild fixtures' background child sleeps while it holds the
/// tool's stdout: a kit that waited for that pipe would take at least this long.
const GRANDCHILD_SLEEP: Duration = Duration::from_secs(60);

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conform/tests/fixtures/hostile"
    ))
    .join(name)
}

fn spec(name: &str) -> RunSpec {
    RunSpec {
        program: fixture(name),
        args: Vec::new(),
        cwd: PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        env_set: Vec::new(),
        stdin: StdinMode::Closed,
        limit: ROOMY,
        capture_limit: exec::DEFAULT_CAPTURE_LIMIT,
        stream: false,
        trigger: None,
        output: exec::Output::Pipes,
        sandbox: None,
        network: crate::exec::Network::Inherited,
        patience: None,
        namespace: None,
        env_remove: Vec::new(),
    }
}

/// Runs `spec`, asserting the record arrived before its limit plus [`HANG`].
fn run(spec: &RunSpec) -> (RunRecord, Duration) {
    let started = Instant::now();
    let record = exec::run(spec, &Session::default());
    let elapsed = started.elapsed();
    assert!(
        elapsed < spec.limit + HANG,
        "{:?} took {elapsed:?} with a limit of {:?}: the kit hung",
        spec.program,
        spec.limit
    );
    (record, elapsed)
}

/// Asserts the kit ended the tool at its limit: SIGTERM, or SIGKILL once the tool
/// outlived the grace after it.
fn assert_killed_at_limit(record: &RunRecord) {
    assert!(record.timed_out, "{record:?}");
    assert_eq!(record.exit, Exit::Unknown);
    assert!(
        record.killed_by_kit.is_some_and(|kill| kill.at_limit),
        "{:?}",
        record.killed_by_kit
    );
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Set, in the process [`in_own_process`] starts, to the name of the test it runs.
const OWN_PROCESS: &str = "CONFORM_EXEC_TEST_OWN_PROCESS";

/// For the body of an `#[ignore]`d test `name` that needs a process of its own:
/// whether this is that process. When it is not (`cargo test -- --include-ignored`
/// runs ignored tests in the shared process too), runs the test in one, fails
/// unless it passed there, and returns false: the body returns at once, having
/// proved what it proves without touching this process.
fn own_process(name: &str, env: &[(&str, &str)]) -> bool {
    if std::env::var_os(OWN_PROCESS).is_some_and(|running| running == name) {
        return true;
    }
    in_own_process(name, env);
    false
}

/// Runs the `#[ignore]`d test `name` of this module alone, in a new process of this
/// test binary with `env` added to its environment, and fails unless it ran and
/// passed. For a test that needs process-wide state of its own, which the tests in
/// this binary's other threads, and the processes they spawn, must not see.
fn in_own_process(name: &str, env: &[(&str, &str)]) {
    // libtest names a test by its path without the crate name.
    let module = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_, path)| path);
    let test = format!("{module}::{name}");
    let output = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            &test,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .envs(env.iter().copied())
        .env(OWN_PROCESS, name)
        .output()
        .expect("the test binary runs");
    let stdout = text(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{test} in a process of its own: {}\n{stdout}\n{}",
        output.status,
        text(&output.stderr)
    );
}

#[test]
fn records_exit_code_and_both_streams() {
    let spec = spec("exit_code.sh");
    let (record, _) = run(&spec);
    assert_eq!(record.exit, Exit::Code(3));
    assert_eq!(record.exit_code(), Some(3));
    assert!(!record.timed_out);
    assert!(record.error.is_none());
    assert_eq!(record.stdout.bytes, b"out\n");
    assert_eq!(record.stdout.total_bytes, 4);
    assert!(!record.stdout.truncated);
    // A megabyte of stderr before the last line: drained alongside stdout.
    assert_eq!(record.stderr.total_bytes, 1_000_004);
    assert!(record.stderr.bytes.ends_with(b"err\n"));
    assert!(!record.stderr.truncated);
    assert!(!record.pipe_held_open);
    assert_eq!(record.stdin, StdinMode::Closed);
    assert_eq!(record.argv, [fixture("exit_code.sh").display().to_string()]);
    assert!(record.killed_by_kit.is_none());
    // Measured up to its own exit, which came before the limit.
    assert!(record.duration > Duration::ZERO && record.duration < spec.limit);
}

#[test]
fn records_death_by_signal() {
    let (record, _) = run(&spec("kill_self.sh"));
    assert_eq!(
        record.exit,
        Exit::Signal(nix::sys::signal::Signal::SIGUSR1 as i32)
    );
    assert_eq!(record.exit_code(), None);
    assert!(!record.timed_out);
}

#[test]
fn passes_arguments_without_a_shell() {
    let mut spec = spec("lines.sh");
    spec.args = vec!["1".into()];
    spec.stream = true;
    let (record, _) = run(&spec);
    assert_eq!(record.exit, Exit::Code(0));
    assert_eq!(record.stdout.bytes, b"line 1\n");
    assert_eq!(
        record.argv,
        [fixture("lines.sh").display().to_string(), "1".to_string()]
    );
}

/// CI=true and NO_COLOR=1, as the environment of a kit run under CI has them: given
/// to a test that [`in_own_process`] runs, never set in this process.
const CI_ENVIRONMENT: &[(&str, &str)] = &[("CI", "true"), ("NO_COLOR", "1")];

/// Asserts the kit's own environment is [`CI_ENVIRONMENT`], as the outer test made it.
fn assert_kit_environment_like_ci() {
    for (name, value) in CI_ENVIRONMENT {
        assert_eq!(
            std::env::var(name).as_deref(),
            Ok(*value),
            "{name}: run this test through the test that runs it in a process of its own"
        );
    }
}

fn env_lines(record: &RunRecord) -> Vec<String> {
    text(&record.stdout.bytes)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn scrubs_the_environment_and_sets_term() {
    in_own_process(
        "scrubs_the_environment_and_sets_term_in_its_own_process",
        CI_ENVIRONMENT,
    );
}

#[test]
#[ignore = "run in a process of its own by scrubs_the_environment_and_sets_term"]
fn scrubs_the_environment_and_sets_term_in_its_own_process() {
    if !own_process(
        "scrubs_the_environment_and_sets_term_in_its_own_process",
        CI_ENVIRONMENT,
    ) {
        return;
    }
    assert_kit_environment_like_ci();
    let mut spec = spec("print_env.sh");
    spec.env_set = vec![("CONFORM_EXEC_TEST".into(), "hello world".into())];
    let (record, _) = run(&spec);
    assert_eq!(record.exit, Exit::Code(0));
    let env = env_lines(&record);
    assert!(
        env.iter().any(|line| line == "TERM=xterm-256color"),
        "{env:?}"
    );
    assert!(env
        .iter()
        .any(|line| line == "CONFORM_EXEC_TEST=hello world"));
    for scrubbed in exec::SCRUBBED_ENV {
        let prefix = format!("{scrubbed}=");
        assert!(
            !env.iter().any(|line| line.starts_with(&prefix)),
            "{scrubbed} reached the tool: {env:?}"
        );
    }
    // Inherited variables still arrive.
    assert!(env.iter().any(|line| line.starts_with("PATH=")));
    for change in [
        "-CI",
        "-NO_COLOR",
        "TERM=xterm-256color",
        "CONFORM_EXEC_TEST=hello world",
    ] {
        assert!(
            record.env_changes.iter().any(|c| c == change),
            "{change} missing from {:?}",
            record.env_changes
        );
    }
}

#[test]
fn env_set_overrides_the_scrub() {
    in_own_process(
        "env_set_overrides_the_scrub_in_its_own_process",
        CI_ENVIRONMENT,
    );
}

#[test]
#[ignore = "run in a process of its own by env_set_overrides_the_scrub"]
fn env_set_overrides_the_scrub_in_its_own_process() {
    if !own_process(
        "env_set_overrides_the_scrub_in_its_own_process",
        CI_ENVIRONMENT,
    ) {
        return;
    }
    assert_kit_environment_like_ci();
    let mut spec = spec("print_env.sh");
    spec.env_set = vec![("NO_COLOR".into(), "1".into())];
    let (record, _) = run(&spec);
    let env = env_lines(&record);
    assert!(env.iter().any(|line| line == "NO_COLOR=1"));
    assert!(!env.iter().any(|line| line.starts_with("CI=")));
    assert!(record.env_changes.iter().any(|c| c == "NO_COLOR=1"));
    assert!(!record.env_changes.iter().any(|c| c == "-NO_COLOR"));
}

#[test]
fn closed_stdin_reads_eof() {
    let (record, _) = run(&spec("read_stdin.sh"));
    assert_eq!(record.exit, Exit::Code(0));
    assert_eq!(record.stdout.bytes, b"eof\n");
}

#[test]
fn open_stdin_blocks_a_reader_until_the_limit() {
    let mut spec = spec("read_stdin.sh");
    spec.stdin = StdinMode::Open;
    spec.limit = Duration::from_secs(1);
    let (record, elapsed) = run(&spec);
    assert_killed_at_limit(&record);
    assert_eq!(record.stdin, StdinMode::Open);
    assert!(record.stdout.bytes.is_empty());
    assert!(elapsed >= spec.limit);
    assert!(record.duration >= spec.limit);
}

/// The kit's process ignores SIGINT and SIGQUIT (as when started from a
/// non-interactive shell), ignores SIGPIPE (the Rust runtime does) and this thread
/// blocks SIGUSR2: none of it may reach the tool.
#[cfg(target_os = "linux")]
#[test]
fn resets_signal_dispositions_and_mask_in_the_child() {
    in_own_process(
        "resets_signal_dispositions_and_mask_in_the_child_in_its_own_process",
        &[],
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "run in a process of its own by resets_signal_dispositions_and_mask_in_the_child"]
fn resets_signal_dispositions_and_mask_in_the_child_in_its_own_process() {
    use nix::sys::signal::{
        pthread_sigmask, sigaction, SaFlags, SigAction, SigHandler, SigSet, SigmaskHow, Signal,
    };

    if !own_process(
        "resets_signal_dispositions_and_mask_in_the_child_in_its_own_process",
        &[],
    ) {
        return;
    }

    let ignore = SigAction::new(SigHandler::SigIgn, SaFlags::empty(), SigSet::empty());
    let mut blocked = SigSet::empty();
    blocked.add(Signal::SIGUSR2);
    // SAFETY: installs SIG_IGN, no handler code. Process-wide: this test runs alone
    // in a process of its own. The previous dispositions are restored below.
    let previous = unsafe {
        [
            sigaction(Signal::SIGINT, &ignore),
            sigaction(Signal::SIGQUIT, &ignore),
        ]
    };
    pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&blocked), None).expect("block SIGUSR2");

    let (record, _) = run(&spec("signal_state.sh"));

    pthread_sigmask(SigmaskHow::SIG_UNBLOCK, Some(&blocked), None).expect("unblock SIGUSR2");
    for (signal, previous) in [Signal::SIGINT, Signal::SIGQUIT].into_iter().zip(previous) {
        let previous = previous.expect("read the previous disposition");
        // SAFETY: puts back what was there before.
        unsafe { sigaction(signal, &previous) }.expect("restore the disposition");
    }

    assert_eq!(record.exit, Exit::Code(0));
    assert_eq!(
        signal_masks(&record),
        (0, 0),
        "{}",
        text(&record.stdout.bytes)
    );
}

/// The tool's blocked and ignored signal masks, less glibc's own two: its
/// posix_spawn ignores signals 32 and 33 in every child it starts (they are
/// reserved to libc, SIGRTMIN is 34 there, and a program installs its own handlers
/// for them when it needs them); every other signal must be at its default.
fn signal_masks(record: &RunRecord) -> (u64, u64) {
    const GLIBC_INTERNAL: u64 = (1 << 31) | (1 << 32);
    let state = text(&record.stdout.bytes);
    let mask = |field: &str| {
        state
            .lines()
            .find_map(|line| line.strip_prefix(field))
            .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
            .unwrap_or_else(|| panic!("no {field} in {state:?}"))
    };
    (mask("SigBlk:"), mask("SigIgn:") & !GLIBC_INTERNAL)
}

#[test]
fn a_tool_that_never_exits_is_killed_at_the_limit() {
    let mut spec = spec("never_exits.sh");
    spec.limit = Duration::from_secs(1);
    let (record, elapsed) = run(&spec);
    assert!(record.timed_out);
    assert_eq!(record.exit, Exit::Unknown);
    assert_eq!(record.stdout.bytes, b"started\n");
    assert!(elapsed >= spec.limit);
    assert!(!record.pipe_held_open);
    // The kill is the kit's, kept apart from the tool's own (absent) exit: the
    // kit's SIGTERM at the limit ended it.
    assert_eq!(
        record.killed_by_kit,
        Some(KitKill {
            at_limit: true,
            signal: Signal::SIGTERM,
            exit: Exit::Signal(Signal::SIGTERM as i32),
        })
    );
}

#[test]
fn a_tool_that_ignores_sigterm_is_killed_after_the_grace() {
    let mut spec = spec("ignores_term.sh");
    spec.limit = Duration::from_secs(1);
    let (record, elapsed) = run(&spec);
    assert!(record.timed_out);
    assert_eq!(record.exit, Exit::Unknown);
    assert_eq!(record.stdout.bytes, b"started\n");
    assert!(elapsed >= spec.limit);
    assert!(!record.pipe_held_open);
    // The kill is the kit's, kept apart from the tool's own (absent) exit: it was
    // still running at the limit and only SIGKILL ended it.
    assert_eq!(
        record.killed_by_kit,
        Some(KitKill {
            at_limit: true,
            signal: Signal::SIGKILL,
            exit: Exit::Signal(Signal::SIGKILL as i32),
        })
    );
}

/// The pid a fixture printed on its first stdout line.
fn printed_pid(record: &RunRecord) -> i32 {
    let out = text(&record.stdout.bytes);
    out.lines()
        .next()
        .and_then(|line| line.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pid in stdout {out:?}"))
}

/// Waits until `pid` is gone or a zombie: killed, whether or not init has reaped it
/// yet. The kit may see the pipe close a moment before the process is a zombie, so
/// this looks again until [`HANG`], which only a process that was never killed
/// reaches.
#[cfg(target_os = "linux")]
fn wait_until_dead(pid: i32) -> bool {
    let deadline = Instant::now() + HANG;
    while Instant::now() < deadline {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            // The state follows the parenthesised command name.
            Ok(stat)
                if stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|s| s.trim_start().starts_with('Z')) =>
            {
                return true
            }
            Ok(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    false
}

#[test]
fn a_grandchild_in_the_group_holding_stdout_is_killed_when_the_tool_exits() {
    let (record, elapsed) = run(&spec("grandchild_in_group.sh"));
    assert_eq!(record.exit, Exit::Code(0));
    // Judged at the exit: not at the limit, and the pipe closed (the kit killed the
    // group) rather than being given up on.
    assert!(!record.timed_out);
    assert!(record.killed_by_kit.is_none());
    assert!(!record.pipe_held_open);
    // Only a kit that waited for the grandchild's pipe, rather than killing it, takes
    // the grandchild's whole sleep: no load does.
    assert!(elapsed < GRANDCHILD_SLEEP, "took {elapsed:?}");
    let pid = printed_pid(&record);
    #[cfg(target_os = "linux")]
    assert!(
        wait_until_dead(pid),
        "grandchild {pid} survived the group kill"
    );
    #[cfg(not(target_os = "linux"))]
    let _ = pid;
}

#[cfg(target_os = "linux")]
#[test]
fn a_grandchild_that_escaped_the_group_holding_stdout_is_recorded_not_waited_for() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;

    let (record, elapsed) = run(&spec("grandchild_escaped.sh"));
    let pid = printed_pid(&record);
    // Clean up the escaped sleep before asserting anything else.
    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);

    assert_eq!(record.exit, Exit::Code(0));
    assert!(!record.timed_out);
    assert!(record.killed_by_kit.is_none());
    // The kit let go of a pipe that was still held: a kit that waited for it would
    // have seen it close when the grandchild's sleep ended, and taken that long.
    assert!(record.pipe_held_open);
    assert!(elapsed < GRANDCHILD_SLEEP, "took {elapsed:?}");
    // The evidence names the holder, read from /proc before the kit let go.
    let holders: Vec<i32> = record.held_by.iter().map(|h| h.pid).collect();
    assert_eq!(holders, [pid], "{:?}", record.held_by);
    assert!(
        record.held_by[0].cmdline.contains("sleep"),
        "{:?}",
        record.held_by
    );
}

/// Ctrl-C must stop a run in every state, also a stream whose tool has exited while
/// an escaped grandchild holds stdout: the kit stops waiting after the EOF grace, not
/// at the stream's deadline. The cancel is this test's session's alone, so it runs
/// beside the other tests.
#[cfg(target_os = "linux")]
#[test]
fn cancel_stops_a_stream_whose_exited_tool_left_stdout_held() {
    use std::io::BufRead;
    use std::os::fd::AsFd;

    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use nix::sys::signal::{kill, Signal};
    use nix::sys::stat::Mode;
    use nix::unistd::{mkfifo, Pid};

    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("ready");
    mkfifo(&fifo, Mode::S_IRUSR | Mode::S_IWUSR).expect("fifo made");
    // Read and write, so opening it waits for no writer; a fixture that never writes
    // shows as a poll timeout below instead of a hang.
    let ready = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .expect("fifo opened");
    let mut spec = spec("grandchild_escaped_stream.sh");
    spec.stream = true;
    // Past the grandchild's sleep: a run that ignored the cancel would end when the
    // grandchild does, its pipe closed, not held.
    spec.limit = GRANDCHILD_SLEEP * 5;
    spec.env_set = vec![("CONFORM_TEST_FIFO".into(), fifo.display().to_string())];

    let session = Session::default();
    let (record, elapsed, grandchild) = std::thread::scope(|scope| {
        let running = scope.spawn(|| {
            let started = Instant::now();
            let record = exec::run(&spec, &session);
            (record, started.elapsed())
        });
        // The grandchild writes its pid once the tool has exited and the kit has
        // seen that exit.
        let mut fds = [PollFd::new(ready.as_fd(), PollFlags::POLLIN)];
        let events = poll(
            &mut fds,
            PollTimeout::try_from(HANG).expect("HANG fits a poll timeout"),
        )
        .expect("poll");
        assert_eq!(events, 1, "the grandchild never reported");
        let mut line = String::new();
        std::io::BufReader::new(&ready)
            .read_line(&mut line)
            .expect("pid read");
        let grandchild: i32 = line.trim().parse().expect("a pid");
        session.cancel().cancel();
        let (record, elapsed) = running.join().expect("the run returns");
        (record, elapsed, grandchild)
    });
    // Clean up the escaped sleep before asserting anything else.
    let _ = kill(Pid::from_raw(grandchild), Signal::SIGKILL);

    assert_eq!(record.exit, Exit::Code(0));
    assert!(!record.timed_out);
    // Given up on at the cancel, still held: not read on to the grandchild's end.
    assert!(record.pipe_held_open);
    assert!(
        elapsed < GRANDCHILD_SLEEP,
        "after the cancel the run still waited {elapsed:?} for the grandchild"
    );
    assert!(record.stdout.total_bytes > 128 * 1024);
}

#[test]
fn a_gigabyte_of_output_keeps_only_the_cap() {
    const CAP: usize = 1024 * 1024;
    let mut spec = spec("gigabyte.sh");
    spec.capture_limit = CAP;
    let (record, _) = run(&spec);
    assert_eq!(record.stdout.bytes.len(), CAP);
    assert!(record.stdout.bytes.iter().all(|&byte| byte == 0));
    assert!(record.stdout.truncated);
    assert!(record.stdout.total_bytes > CAP as u64);
    // Either it printed it all in time, or the limit stopped it.
    if record.timed_out {
        assert!(record.stdout.total_bytes <= 1 << 30);
    } else {
        assert_eq!(record.exit, Exit::Code(0));
        assert_eq!(record.stdout.total_bytes, 1 << 30);
    }
}

#[test]
fn output_is_kept_as_bytes() {
    let (record, _) = run(&spec("invalid_utf8.sh"));
    assert_eq!(record.exit, Exit::Code(0));
    assert_eq!(record.stdout.bytes, b"\xff\xfeok\x80\n");
}

#[test]
fn a_stdout_terminal_run_gets_stdout_alone_on_a_raw_terminal_of_its_size() {
    // fd 3 keeps the terminal for stty inside the command substitution, whose own
    // stdout is a pipe.
    let script = r#"
        [ -t 0 ] && i=tty || i=no
        [ -t 1 ] && o=tty || o=no
        [ -t 2 ] && e=tty || e=no
        exec 3>&1
        size=$(stty size <&3)
        printf 'stdin %s stdout %s stderr %s\nsize %s\n' "$i" "$o" "$e" "$size"
        printf 'on stderr\n' >&2
    "#;
    let mut spec = spec("exit_code.sh");
    spec.program = PathBuf::from("/bin/sh");
    spec.args = vec!["-c".into(), script.into()];
    spec.output = exec::Output::StdoutTerminal { cols: 33, rows: 7 };
    let (record, _) = run(&spec);
    assert_eq!(record.exit, Exit::Code(0), "{}", text(&record.stderr.bytes));
    // Exactly as written: LF stays LF, no CR added by the line discipline.
    assert_eq!(
        text(&record.stdout.bytes),
        "stdin no stdout tty stderr no\nsize 7 33\n"
    );
    assert_eq!(record.stderr.bytes, b"on stderr\n");
}

#[test]
fn a_tool_that_closes_stdout_and_keeps_running_is_killed_at_the_limit() {
    for stream in [false, true] {
        let mut spec = spec("closes_stdout.sh");
        spec.limit = Duration::from_secs(1);
        spec.stream = stream;
        let (record, elapsed) = run(&spec);
        assert_killed_at_limit(&record);
        assert_eq!(record.stdout.bytes, b"before\n", "stream: {stream}");
        assert!(elapsed >= spec.limit);
    }
}

#[test]
fn a_stream_is_interrupted_right_after_line_n() {
    let mut spec = spec("lines.sh");
    spec.stream = true;
    spec.trigger = Some(sigint_after(2));
    let (record, _) = run(&spec);
    let out = text(&record.stdout.bytes);
    assert_eq!(record.trigger, TriggerOutcome::Fired);
    assert_eq!(record.exit, Exit::Code(130), "stdout: {out:?}");
    assert!(!record.timed_out);
    assert!(out.starts_with("line 1\nline 2\n"), "{out:?}");
    assert!(out.ends_with("interrupted\n"), "{out:?}");
    // Well before the 20 lines it would print uninterrupted.
    assert!(out.lines().count() < 20, "{out:?}");
}

#[test]
fn a_stream_that_ends_before_line_n_is_not_interrupted() {
    let mut spec = spec("lines.sh");
    spec.args = vec!["2".into()];
    spec.stream = true;
    spec.trigger = Some(sigint_after(5));
    let (record, _) = run(&spec);
    assert_eq!(record.trigger, TriggerOutcome::NotReached);
    assert_eq!(record.exit, Exit::Code(0));
    assert_eq!(record.stdout.bytes, b"line 1\nline 2\n");
}

#[test]
fn a_stream_reads_stdout_to_eof_or_the_limit() {
    // The tool exits at once, but a grandchild in its group keeps stdout open: a
    // stream is read until the limit, and the grandchild is killed then. The limit
    // leaves the tool a thousand times what it needs to exit, however loaded.
    let mut spec = spec("grandchild_in_group.sh");
    spec.stream = true;
    spec.limit = Duration::from_secs(5);
    let (record, elapsed) = run(&spec);
    assert_eq!(record.exit, Exit::Code(0));
    assert!(!record.timed_out);
    assert!(record.killed_by_kit.is_none());
    assert!(record.pipe_held_open);
    assert!(elapsed >= spec.limit);
    assert!(record.duration < spec.limit);
}

/// The message of a record's spawn error.
fn spawn_error(record: &RunRecord) -> String {
    let error = record.error.as_ref().expect("spawn error");
    assert_eq!(error.kind, RunErrorKind::Spawn);
    error.message.clone()
}

#[test]
fn a_missing_program_is_a_spawn_error() {
    let mut spec = spec("no_such_tool.sh");
    spec.limit = Duration::from_secs(1);
    let (record, _) = run(&spec);
    let error = spawn_error(&record);
    assert!(error.contains("no_such_tool.sh"), "{error}");
    assert!(error.contains("No such file"), "{error}");
    assert_eq!(record.exit, Exit::Unknown);
    assert!(!record.timed_out);
    assert!(record.stdout.bytes.is_empty());
}

#[test]
fn a_file_that_is_not_executable_is_a_spawn_error() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tool.sh");
    std::fs::write(&path, "#!/bin/sh\necho hi\n").expect("write tool");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let mut spec = spec("unused");
    spec.program = path.clone();
    let (record, _) = run(&spec);
    let error = spawn_error(&record);
    assert!(error.contains(&path.display().to_string()), "{error}");
    assert!(error.contains("Permission denied"), "{error}");
}

#[test]
fn a_missing_working_directory_is_a_spawn_error_naming_it() {
    let mut spec = spec("exit_code.sh");
    spec.cwd = PathBuf::from("/nonexistent/conform-exec-test");
    let (record, _) = run(&spec);
    let error = spawn_error(&record);
    assert!(error.contains("/nonexistent/conform-exec-test"), "{error}");
}

#[test]
fn concurrent_runs_stay_independent() {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                scope.spawn(move || {
                    if i % 2 == 0 {
                        let (record, _) = run(&spec("exit_code.sh"));
                        assert_eq!(record.exit, Exit::Code(3));
                        assert_eq!(record.stdout.bytes, b"out\n");
                        assert_eq!(record.stderr.total_bytes, 1_000_004);
                    } else {
                        let mut spec = spec("read_stdin.sh");
                        spec.stdin = StdinMode::Open;
                        spec.limit = Duration::from_secs(1);
                        let (record, _) = run(&spec);
                        assert_killed_at_limit(&record);
                        assert!(record.stdout.bytes.is_empty());
                    }
                })
            })
            .collect();
        for handle in handles {
            assert!(handle.join().is_ok(), "a concurrent run failed");
        }
    });
}

fn sigint_after(after_lines: u64) -> Trigger {
    Trigger {
        after_lines,
        action: TriggerAction::Signal(Signal::SIGINT),
    }
}

/// The target directory this test binary was built in, once democli is built there
/// too. `cargo test -p agent-conform-core` alone builds no other package's binary, so
/// democli is built here when it is missing, with the same profile; where that
/// fails, the test fails saying which command to run.
fn democli_target_dir() -> &'static Path {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match BUILT.get_or_init(build_democli) {
        Ok(target) => target,
        Err(message) => panic!("{message}"),
    }
}

fn build_democli() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("no path to this test binary: {e}"))?;
    // <target dir>/<profile dir>/deps/<this test binary>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("{} is not in a cargo target directory", exe.display()))?;
    let target = profile_dir
        .parent()
        .ok_or_else(|| format!("{} is not in a cargo target directory", exe.display()))?;
    let binary = profile_dir.join("democli");
    if binary.is_file() {
        return Ok(target.to_path_buf());
    }
    let profile = match profile_dir.file_name().and_then(|name| name.to_str()) {
        Some("debug") | None => "dev",
        Some(name) => name,
    };
    let args = [
        "build",
        "-p",
        "democli",
        "--profile",
        profile,
        "--target-dir",
        &target.display().to_string(),
    ];
    let command = format!("cargo {}", args.join(" "));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .map_err(|e| {
            format!("democli is not built and cargo did not start ({e}): run `{command}`")
        })?;
    if !output.status.success() {
        return Err(format!(
            "democli is not built and `{command}` failed ({}); run it and fix what it says:\n{}",
            output.status,
            text(&output.stderr)
        ));
    }
    if !binary.is_file() {
        return Err(format!(
            "`{command}` did not make {}: build democli there (`{command}`) and run the tests again",
            binary.display()
        ));
    }
    Ok(target.to_path_buf())
}

/// democli's JSON-lines stream (`deployments list --stream`: 20 items, 50 ms
/// apart), through the launcher the profiles use, pointed at the build of
/// [`democli_target_dir`].
fn democli_stream(trigger: Trigger) -> RunSpec {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = democli_target_dir().display().to_string();
    RunSpec {
        program: root.join("benchmark/harness/cli/good/democli"),
        args: ["deployments", "list", "--stream"]
            .map(String::from)
            .to_vec(),
        cwd: root,
        env_set: vec![("CARGO_TARGET_DIR".into(), target)],
        stream: true,
        trigger: Some(trigger),
        ..spec("lines.sh")
    }
}

/// What the SIGTERM and SIGPIPE checks judge of one run.
fn signal_outcome(record: &RunRecord) -> String {
    let stdout = text(&record.stdout.bytes);
    let last = stdout.lines().last().unwrap_or_default();
    let cancelled = last.contains("\"CANCELLED\"");
    format!(
        "exit {:?}, trigger {:?}, killed {:?}, held {}, cancelled {cancelled}, stderr {:?}",
        record.exit,
        record.trigger,
        record.killed_by_kit,
        record.pipe_held_open,
        text(&record.stderr.bytes)
    )
}

/// `times` runs of `spec`, at most `jobs` at a time, each run's outcome.
fn outcomes(spec: &RunSpec, times: usize, jobs: usize) -> Vec<String> {
    let mut reactor = exec::Reactor::new(&Session::default());
    let mut started = 0;
    let mut outcomes = Vec::new();
    while outcomes.len() < times {
        while started < times && reactor.in_flight() < jobs {
            reactor.start(started, spec);
            started += 1;
        }
        for (_, record) in reactor.wait() {
            outcomes.push(signal_outcome(&record));
        }
    }
    outcomes
}

/// The SIGTERM and close-stdout runs wait on lines and exits, never on time: 50
/// repetitions give one outcome, one at a time or 16 at once.
#[test]
fn sigterm_and_closed_stdout_runs_give_the_same_outcome_every_time() {
    let sigterm = democli_stream(Trigger {
        after_lines: 2,
        action: TriggerAction::Signal(Signal::SIGTERM),
    });
    let closed = democli_stream(Trigger {
        after_lines: 1,
        action: TriggerAction::CloseStdout,
    });
    let handled =
        "exit Code(143), trigger Fired, killed None, held false, cancelled true, stderr \"\"";
    let quiet =
        "exit Code(0), trigger Fired, killed None, held false, cancelled false, stderr \"\"";
    for jobs in [1, 16] {
        for (spec, want) in [(&sigterm, handled), (&closed, quiet)] {
            let got = outcomes(spec, 50, jobs);
            let odd: Vec<&String> = got.iter().filter(|o| o.as_str() != want).collect();
            assert!(
                odd.is_empty(),
                "--jobs {jobs}: {} of 50 differ: {odd:?}",
                odd.len()
            );
        }
    }
}

/// A tool that waits (here: sleeps forever) frees its job slot long before its
/// limit; the run stays in flight until the limit ends it, or until its reactor is
/// dropped, which kills it. The limit is minutes: a starved tool keeps its slot
/// while it waits for a CPU, and no load keeps it starved that long.
#[cfg(target_os = "linux")]
#[test]
fn a_waiting_tool_frees_its_job_slot_and_dies_with_its_reactor() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pid_file = dir.path().join("pid");
    let mut spec = spec("never_exits.sh");
    spec.program = PathBuf::from("/bin/sh");
    spec.args = vec![
        "-c".into(),
        "echo $$ > \"$1\"; while :; do sleep 1; done".into(),
        "sh".into(),
        pid_file.display().to_string(),
    ];
    spec.limit = Duration::from_secs(300);
    let mut reactor = exec::Reactor::new(&Session::default());
    let started = Instant::now();
    reactor.start(0usize, &spec);
    assert_eq!(reactor.busy(), 1, "a new tool holds its slot");
    let mut freed = None;
    while freed.is_none() && started.elapsed() < spec.limit {
        let finished = reactor.wait();
        assert!(finished.is_empty(), "the run ended before it went idle");
        if reactor.busy() == 0 {
            freed = Some(started.elapsed());
        }
    }
    let freed = freed.expect("the sleeping tool never freed its slot");
    assert_eq!(reactor.in_flight(), 1, "still running, only idle");
    // Blocked sample after sample, it is parked: out of the first in-flight cap.
    let mut parked = None;
    while parked.is_none() && started.elapsed() < spec.limit {
        assert!(reactor.wait().is_empty(), "the run ended while idle");
        if reactor.parked() == 1 {
            parked = Some(started.elapsed());
        }
    }
    let parked = parked.expect("the sleeping tool was never parked");
    assert!(
        parked >= freed + Duration::from_millis(900),
        "parked after {parked:?}, freed after {freed:?}"
    );
    assert!(
        freed < spec.limit / 2,
        "freed only after {freed:?} of a {:?} limit",
        spec.limit
    );
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .expect("the tool wrote its pid before it went idle")
        .trim()
        .parse()
        .expect("a pid");

    drop(reactor);
    // Killed and reaped (by a background thread): the pid is gone. Only a tool that
    // was never killed is still there after HANG.
    let gone = Instant::now();
    while nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok() {
        assert!(gone.elapsed() < HANG, "the tool outlived its reactor");
        std::thread::yield_now();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn orphans_that_end_by_themselves_are_reaped_while_runs_go_on() {
    in_own_process(
        "orphans_that_end_by_themselves_are_reaped_while_runs_go_on_in_its_own_process",
        &[],
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "run in a process of its own by orphans_that_end_by_themselves_are_reaped_while_runs_go_on"]
fn orphans_that_end_by_themselves_are_reaped_while_runs_go_on_in_its_own_process() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pids = dir.path().join("orphans");
    let profile = dir.path().join("profile.json");
    let document = serde_json::json!({
        "schema_version": "1.0",
        "tool": "orphans",
        "command": [fixture("orphan_ends.sh"), pids],
        "timeout_seconds": 5,
        "probes": [{ "name": "probe", "argv": [], "kind": "read" }]
    });
    std::fs::write(&profile, document.to_string()).expect("profile written");
    let report = crate::Suite::load(&profile)
        .expect("profile loads")
        .only(["no_hang_stdin_closed", "json_envelope"])
        .adopt_orphans()
        .run()
        .expect("suite runs");
    // The runs' own exits were never taken from them.
    assert!(report.failed_checks().is_empty(), "{:#}", report.result());
    let me = std::process::id().to_string();
    let my_group = nix::unistd::getpgrp().as_raw().to_string();
    // Each orphan, once it has ended, is this process's zombie until reaped: the
    // one that left the tool's session, and the one the group kill caught.
    let children_of_mine = || -> Vec<String> {
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
            .filter_map(|stat| {
                let (head, rest) = stat.rsplit_once(')')?;
                let fields: Vec<&str> = rest.split_whitespace().collect();
                let ours = fields.get(1) == Some(&me.as_str())
                    && fields.get(2) != Some(&my_group.as_str());
                ours.then(|| head.split(' ').next().unwrap_or_default().to_string())
            })
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let written = std::fs::read_to_string(&pids).unwrap_or_default();
        let left = children_of_mine();
        if written.lines().count() >= 1 && left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "orphans never reaped: {left:?} of {written:?}"
        );
        super::orphans::reap_ended();
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The pid after "held by pid " in a pipes_closed_on_exit failure detail.
#[cfg(target_os = "linux")]
fn held_by_pid(detail: &str) -> i32 {
    detail
        .split_once("held by pid ")
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no holder in {detail:?}"))
}

/// A suite on `grandchild_escaped.sh`, judging only pipes_closed_on_exit: each
/// failure's detail (one per run).
#[cfg(target_os = "linux")]
fn escaped_grandchild_suite(adopt: bool) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let profile = dir.path().join("profile.json");
    let document = serde_json::json!({
        "schema_version": "1.0",
        "tool": "grandchild",
        "command": [fixture("grandchild_escaped.sh")],
        "timeout_seconds": 5,
        "probes": [{ "name": "probe", "argv": [], "kind": "read" }]
    });
    std::fs::write(&profile, document.to_string()).expect("profile written");
    let mut suite = crate::Suite::load(&profile)
        .expect("profile loads")
        .only(["pipes_closed_on_exit"]);
    if adopt {
        suite = suite.adopt_orphans();
    }
    let report = suite.run().expect("suite runs");
    assert_eq!(report.failed_checks(), ["pipes_closed_on_exit"]);
    let result = report.result();
    let details: Vec<String> = result["checks"]
        .as_array()
        .and_then(|checks| checks.iter().find(|c| c["id"] == "pipes_closed_on_exit"))
        .and_then(|check| check["failures"].as_array())
        .map(|failures| {
            failures
                .iter()
                .filter_map(|f| f["detail"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert!(!details.is_empty(), "no failure in {result:#}");
    details
}

#[cfg(target_os = "linux")]
#[test]
fn a_suite_kills_what_its_tool_left_holding_its_output_only_when_it_adopts_orphans() {
    in_own_process(
        "a_suite_kills_what_its_tool_left_holding_its_output_only_when_it_adopts_orphans_in_its_own_process",
        &[],
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "run in a process of its own by a_suite_kills_what_its_tool_left_holding_its_output_only_when_it_adopts_orphans"]
fn a_suite_kills_what_its_tool_left_holding_its_output_only_when_it_adopts_orphans_in_its_own_process(
) {
    use nix::sys::prctl::get_child_subreaper;
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;

    let is_alive = |pid: i32| std::path::Path::new(&format!("/proc/{pid}")).exists();
    // By default the library leaves the process as it is: the grandchildren go to
    // init and keep running.
    let details = escaped_grandchild_suite(false);
    let left: Vec<i32> = details.iter().map(|d| held_by_pid(d)).collect();
    let alive: Vec<bool> = left.iter().map(|&pid| is_alive(pid)).collect();
    for &pid in &left {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
    assert_eq!(get_child_subreaper(), Ok(false));
    for detail in &details {
        assert!(!detail.contains("conform then killed"), "{detail}");
    }
    assert!(
        alive.iter().all(|&a| a),
        "{left:?} killed without the opt-in"
    );

    // Opted in: each grandchild is killed and reaped when its run ends.
    let details = escaped_grandchild_suite(true);
    assert_eq!(get_child_subreaper(), Ok(true));
    for detail in &details {
        let holder = held_by_pid(detail);
        let alive = is_alive(holder);
        let _ = kill(Pid::from_raw(holder), Signal::SIGKILL);
        assert!(
            detail.contains(&format!(
                "conform then killed what it left running: pid {holder} (sleep 60)"
            )),
            "{detail}"
        );
        assert!(!alive, "pid {holder} outlived its run");
    }
}

/// Proxy settings the kit itself runs under: a black-hole run must replace or
/// drop every one of them.
const PROXIED_KIT: &[(&str, &str)] = &[
    ("HTTPS_PROXY", "http://proxy.invalid:3128"),
    ("http_proxy", "http://proxy.invalid:3128"),
    ("NO_PROXY", "127.0.0.1,localhost"),
    ("no_proxy", "*"),
];

#[test]
fn a_black_hole_run_sends_every_proxy_variable_to_one_local_port_and_counts_connections() {
    in_own_process(
        "a_black_hole_run_sends_every_proxy_variable_to_one_local_port_and_counts_connections_in_its_own_process",
        PROXIED_KIT,
    );
}

#[test]
#[ignore = "run in a process of its own by a_black_hole_run_sends_every_proxy_variable_to_one_local_port_and_counts_connections"]
fn a_black_hole_run_sends_every_proxy_variable_to_one_local_port_and_counts_connections_in_its_own_process(
) {
    if !own_process(
        "a_black_hole_run_sends_every_proxy_variable_to_one_local_port_and_counts_connections_in_its_own_process",
        PROXIED_KIT,
    ) {
        return;
    }
    // The tool prints its proxy variables, then connects once to HTTPS_PROXY's
    // port and leaves without waiting for an answer (none ever comes).
    let client = "import os, socket\n\
        port = int(os.environ['HTTPS_PROXY'].rsplit(':', 1)[1])\n\
        s = socket.create_connection(('127.0.0.1', port))\n\
        s.sendall(b'CONNECT example.com:443 HTTP/1.1\\r\\n\\r\\n')\n\
        s.close()\n\
        print('connected')\n";
    let mut spec = spec("print_env.sh");
    spec.program = PathBuf::from("/bin/sh");
    spec.args = vec![
        "-c".into(),
        "env | grep -i _proxy= | LC_ALL=C sort; python3 -c \"$1\"".into(),
        "sh".into(),
        client.into(),
    ];
    spec.network = exec::Network::BlackHole;
    let (record, _) = run(&spec);
    assert_eq!(record.exit, Exit::Code(0), "{}", text(&record.stderr.bytes));
    let lines = env_lines(&record);
    let proxies: Vec<(&str, &str)> = lines
        .iter()
        .filter_map(|line| line.split_once('='))
        .collect();
    let names: Vec<&str> = proxies.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        names,
        [
            "ALL_PROXY",
            "HTTPS_PROXY",
            "HTTP_PROXY",
            "all_proxy",
            "http_proxy",
            "https_proxy"
        ],
        "every proxy variable set, NO_PROXY and no_proxy unset: {lines:?}"
    );
    let url = proxies[0].1;
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("not a local port: {url}"));
    assert!(port > 0);
    assert!(
        proxies.iter().all(|(_, value)| *value == url),
        "one port for all: {lines:?}"
    );
    assert_eq!(lines.last().map(String::as_str), Some("connected"));
    assert_eq!(record.proxy_connections, Some(1));
    // What it asked the proxy for is recorded.
    let asked: Vec<(Option<&str>, Option<u16>)> = record
        .proxy_requests
        .iter()
        .map(|request| (request.host.as_deref(), request.port))
        .collect();
    assert_eq!(asked, [(Some("example.com"), Some(443))]);
    assert!(
        record.env_changes.iter().any(|c| c == "-NO_PROXY")
            && record
                .env_changes
                .iter()
                .any(|c| c == &format!("HTTPS_PROXY={url}")),
        "{:?}",
        record.env_changes
    );
}

#[test]
fn a_run_without_the_black_hole_has_no_proxy_count() {
    let (record, _) = run(&spec("print_env.sh"));
    assert_eq!(record.proxy_connections, None);
    assert!(record.proxy_requests.is_empty());
}

/// `sh -c script` as a run of its own.
fn shell(script: &str) -> RunSpec {
    RunSpec {
        program: PathBuf::from("/bin/sh"),
        args: vec!["-c".into(), script.into()],
        ..spec("unused")
    }
}

#[test]
fn a_payload_larger_than_a_pipe_reaches_the_tool_whole_while_its_output_is_drained() {
    // The tool echoes stdin to stdout: neither side can finish unless the kit
    // writes stdin and reads stdout at once.
    let payload = 3 * 65536 + 1;
    let (record, _) = run(&RunSpec {
        stdin: StdinMode::Payload(payload),
        ..shell("cat; echo done >&2")
    });
    assert_eq!(record.exit, Exit::Code(0), "{record:?}");
    assert!(!record.timed_out);
    assert_eq!(record.stdout.bytes, exec::json_payload(payload));
    assert_eq!(text(&record.stderr.bytes), "done\n");
    let object: serde_json::Value =
        serde_json::from_slice(&record.stdout.bytes).expect("one JSON object");
    assert!(object.is_object());
}

#[test]
fn a_tool_that_reads_none_of_its_payload_ends_the_run_without_a_hang() {
    let (record, _) = run(&RunSpec {
        stdin: StdinMode::Payload(1 << 20),
        ..shell("exec 0<&-; echo closed")
    });
    assert_eq!(record.exit, Exit::Code(0), "{record:?}");
    assert_eq!(text(&record.stdout.bytes), "closed\n");
}

#[test]
fn json_payloads_have_exactly_the_size_asked_for() {
    for len in [0, 1, 2, 5, 13, 14, 15, 4096] {
        let bytes = exec::json_payload(len);
        assert_eq!(bytes.len(), len);
        if len >= 2 {
            let value: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
            assert!(value.is_object(), "{len}");
        }
    }
}

#[test]
fn an_argument_naming_the_sandbox_gets_its_real_path_and_the_record_keeps_the_mark() {
    let spec = RunSpec {
        sandbox: Some(exec::Sandbox::isolated()),
        ..shell("touch \"$1\"; printf %s \"$1\"")
    };
    let spec = RunSpec {
        args: [&spec.args[..], &["sh".into(), "<sandbox>/tmp/made".into()]].concat(),
        ..spec
    };
    let (record, _) = run(&spec);
    assert_eq!(record.exit, Exit::Code(0), "{record:?}");
    assert_eq!(
        record.argv.last().map(String::as_str),
        Some("<sandbox>/tmp/made")
    );
    let written = text(&record.stdout.bytes);
    assert!(
        written.starts_with('/') && written.ends_with("/tmp/made"),
        "{written}"
    );
    let report = record.sandbox.expect("a sandbox report");
    assert_eq!(report.created, ["tmp/made"]);
}

#[test]
fn files_left_in_the_sandbox_that_hold_a_needle_are_reported_with_their_mode() {
    let needle = |name: &str, bytes: &str| exec::Needle {
        name: name.into(),
        bytes: bytes.as_bytes().to_vec(),
    };
    let spec = RunSpec {
        sandbox: Some(exec::Sandbox {
            needles: vec![needle("A", "alpha-secret"), needle("B", "beta-secret")],
            ..exec::Sandbox::isolated()
        }),
        ..shell(
            "umask 077; printf 'k=xalpha-secretx' > \"$HOME/private\"; \
             umask 022; printf 'beta-secret' > \"$XDG_CACHE_HOME/open\"; \
             printf 'nothing' > \"$TMPDIR/plain\"",
        )
    };
    let (record, _) = run(&spec);
    assert_eq!(record.exit, Exit::Code(0), "{record:?}");
    let report = record.sandbox.expect("a sandbox report");
    let holding: Vec<(&str, u32, Vec<&str>)> = report
        .holding
        .iter()
        .map(|file| {
            (
                file.path.as_str(),
                file.mode,
                file.needles.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        holding,
        [
            ("cache/open", 0o644, vec!["B"]),
            ("home/private", 0o600, vec!["A"])
        ]
    );
}

/// Runs `spec` until its limit at growing limits, until the tool got as far as the
/// wait under test before it (`ready`: it printed the line it prints right before
/// that wait), so that a machine slow to start it cannot make the test read an
/// earlier wait. The last attempt's record, whatever it shows.
fn at_limit_when(spec: &RunSpec, ready: impl Fn(&RunRecord) -> bool) -> RunRecord {
    let mut record = None;
    for limit in [2, 10, 40] {
        let (made, _) = run(&RunSpec {
            limit: Duration::from_secs(limit),
            ..spec.clone()
        });
        assert_killed_at_limit(&made);
        let done = ready(&made);
        record = Some(made);
        if done {
            break;
        }
    }
    record.expect("made at least once")
}

fn printed(line: &'static str) -> impl Fn(&RunRecord) -> bool {
    move |record| text(&record.stdout.bytes).lines().any(|l| l == line)
}

/// `python3 -c script` as a run of its own.
fn python(script: &str) -> RunSpec {
    RunSpec {
        program: PathBuf::from("python3"),
        args: vec!["-c".into(), script.into()],
        ..spec("unused")
    }
}

#[test]
fn a_read_of_an_open_stdin_is_named_with_the_prompt_printed_before_it() {
    let spec = RunSpec {
        stdin: StdinMode::Open,
        ..shell("echo Welcome; printf 'Display name []: ' >&2; read name")
    };
    let record = at_limit_when(&spec, |record| {
        text(&record.stderr.bytes).contains("Display name")
    });
    assert_eq!(
        record.waiting_on,
        Some(exec::WaitingOn::Stdin {
            terminal: false,
            after: Some("Display name []:".into())
        })
    );
    assert_eq!(
        record.still_running().as_deref(),
        Some("blocked reading stdin after printing `Display name []:`")
    );

    // `cat` on the pipe, having printed nothing.
    let spec = RunSpec {
        program: PathBuf::from("cat"),
        args: Vec::new(),
        ..spec.clone()
    };
    let record = at_limit_when(&spec, |_| true);
    assert_eq!(
        record.still_running().as_deref(),
        Some("blocked reading stdin before printing anything")
    );
}

#[test]
fn a_wait_on_a_child_names_the_child_and_a_sleep_names_nothing() {
    let record = at_limit_when(&shell("echo ready; sleep 600; echo done"), printed("ready"));
    assert_eq!(
        record.waiting_on,
        Some(exec::WaitingOn::Child {
            name: Some("sleep".into())
        }),
        "{:?}",
        record.processes_seen
    );
    // A closed stdin is /dev/null, never a wait on stdin.
    let record = at_limit_when(
        &python("import time\nprint('ready', flush=True)\ntime.sleep(600)"),
        printed("ready"),
    );
    assert_eq!(record.waiting_on, Some(exec::WaitingOn::Nothing));
    assert_eq!(
        record.still_running().as_deref(),
        Some("sleeping or polling with no stdin, network or child to name")
    );
}

#[test]
fn a_listening_socket_is_named_a_server_whether_accepted_polled_or_selected() {
    let listen = "import socket, select, selectors\n\
        s = socket.socket()\n\
        s.bind(('127.0.0.1', 0))\n\
        s.listen()\n\
        print(s.getsockname()[1])\n\
        print('ready', flush=True)\n";
    for wait in [
        "s.accept()",
        "p = select.poll()\np.register(s, select.POLLIN)\np.poll()",
        "sel = selectors.EpollSelector()\nsel.register(s, selectors.EVENT_READ)\nsel.select()",
        "select.select([s], [], [])",
    ] {
        let record = at_limit_when(&python(&format!("{listen}{wait}")), printed("ready"));
        let port: u16 = text(&record.stdout.bytes)
            .lines()
            .next()
            .and_then(|line| line.parse().ok())
            .unwrap_or_else(|| panic!("no port printed: {record:?}"));
        assert_eq!(
            record.waiting_on,
            Some(exec::WaitingOn::Listening { port }),
            "{wait}"
        );
        assert_eq!(
            record.still_running(),
            Some(format!("listening on port {port} (a server)"))
        );
    }
}

#[test]
fn a_connection_nobody_answers_is_named_by_its_address() {
    // Never accepted: the kernel completes the handshake, and no byte ever comes.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a local port");
    let address = listener.local_addr().expect("its address");
    let script = format!(
        "import socket\n\
         c = socket.create_connection(('127.0.0.1', {}))\n\
         print('ready', flush=True)\n\
         c.recv(1)",
        address.port()
    );
    let record = at_limit_when(&python(&script), printed("ready"));
    assert_eq!(
        record.waiting_on,
        Some(exec::WaitingOn::Network {
            remote: address,
            connecting: false
        })
    );
    assert_eq!(
        record.still_running(),
        Some(format!("waiting on a connection to {address}"))
    );
    drop(listener);
}

#[test]
fn a_connection_to_the_black_hole_is_named_by_the_host_asked_for() {
    let script = "import os, socket\n\
        port = int(os.environ['HTTPS_PROXY'].rsplit(':', 1)[1])\n\
        c = socket.create_connection(('127.0.0.1', port))\n\
        c.sendall(b'CONNECT api.example.com:443 HTTP/1.1\\r\\nHost: api.example.com:443\\r\\n\\r\\n')\n\
        print('ready', flush=True)\n\
        c.recv(1)";
    let spec = RunSpec {
        network: exec::Network::BlackHole,
        ..python(script)
    };
    let record = at_limit_when(&spec, printed("ready"));
    assert_eq!(record.waiting_on, Some(exec::WaitingOn::BlackHole));
    assert_eq!(
        record.still_running().as_deref(),
        Some("waiting on a connection to api.example.com:443 at the black hole")
    );
}

#[test]
fn in_a_namespace_a_direct_connection_by_name_is_held_and_named_by_its_server_name() {
    if *super::netns::isolation() != super::netns::Isolation::Namespace {
        eprintln!("skipped: no network namespace here");
        return;
    }
    // No proxy: resolved through the namespace's DNS responder, connected
    // straight to 443, a ClientHello naming its host sent, and an answer awaited.
    let hello = super::tls::tests::client_hello("api.direct.example");
    let script = format!(
        "import socket\n\
         c = socket.create_connection(('api.direct.example', 443))\n\
         c.sendall(bytes({hello:?}))\n\
         print('ready', flush=True)\n\
         c.recv(1)"
    );
    let spec = RunSpec {
        network: exec::Network::BlackHole,
        ..python(&script)
    };
    let record = at_limit_when(&spec, printed("ready"));
    assert_eq!(record.waiting_on, Some(exec::WaitingOn::BlackHole));
    let hosts: Vec<_> = record
        .proxy_requests
        .iter()
        .map(|r| (r.host.as_deref(), r.port))
        .collect();
    assert_eq!(
        hosts,
        [(Some("api.direct.example"), Some(443))],
        "{record:?}"
    );
}

#[test]
fn in_a_namespace_a_lookup_over_tcp_is_answered() {
    if *super::netns::isolation() != super::netns::Isolation::Namespace {
        eprintln!("skipped: no network namespace here");
        return;
    }
    // glibc's resolver asks over TCP with `use-vc`, as it does after a truncated
    // answer: both questions of getaddrinfo on one connection.
    let script = "import socket\n\
                  print(sorted({a[4][0] for a in socket.getaddrinfo('api.tcp.example', 443)}))";
    let mut spec = RunSpec {
        network: exec::Network::BlackHole,
        ..python(script)
    };
    spec.env_set = vec![("RES_OPTIONS".into(), "use-vc".into())];
    let (record, _) = run(&spec);
    assert_eq!(
        text(&record.stdout.bytes).trim(),
        "['127.0.0.1', '::1']",
        "{}",
        text(&record.stderr.bytes)
    );
    assert_eq!(record.exit, Exit::Code(0));
}

#[test]
fn a_run_that_exits_in_time_says_nothing_of_a_wait() {
    let (record, _) = run(&shell("echo hi"));
    assert_eq!(record.exit, Exit::Code(0));
    assert_eq!(record.waiting_on, None);
    assert_eq!(record.still_running(), None);
}

/// `python3` connecting to the run's black hole, then waiting `give_up_after`
/// seconds for an answer before it exits 3 (`None`: forever).
fn waits_at_the_black_hole(give_up_after: Option<u64>) -> RunSpec {
    let wait = give_up_after.map_or("None".to_string(), |secs| secs.to_string());
    let script = format!(
        "import os, socket, sys\n\
         port = int(os.environ['HTTPS_PROXY'].rsplit(':', 1)[1])\n\
         c = socket.create_connection(('127.0.0.1', port))\n\
         c.sendall(b'CONNECT api.example.com:443 HTTP/1.1\\r\\n\\r\\n')\n\
         print('ready', flush=True)\n\
         c.settimeout({wait})\n\
         try:\n    c.recv(1)\nexcept socket.timeout:\n    sys.exit(3)"
    );
    RunSpec {
        network: exec::Network::BlackHole,
        ..python(&script)
    }
}

/// At growing limits until the tool was at the black hole by its limit (a machine
/// slow to start python3 reaches it later): the last attempt's record.
fn held_at_the_black_hole(make: impl Fn(u64) -> RunSpec) -> RunRecord {
    let mut record = None;
    for limit in [1, 5, 20] {
        let (made, _) = run(&make(limit));
        let held = made.held_at_hole.is_some();
        record = Some(made);
        if held {
            break;
        }
    }
    record.expect("made at least once")
}

#[test]
fn a_run_waiting_at_the_black_hole_at_its_limit_is_let_go_on_until_it_gives_up() {
    let record = held_at_the_black_hole(|limit| RunSpec {
        limit: Duration::from_secs(limit),
        patience: Some(Duration::from_secs(limit * 10)),
        namespace: None,
        ..waits_at_the_black_hole(Some(limit * 2))
    });
    assert!(record.held_at_hole.is_some(), "{record:#?}");
    assert!(!record.timed_out, "{record:#?}");
    assert_eq!(record.exit, Exit::Code(3));
    assert_eq!(record.waiting_on, None);
    assert!(record.duration > record.limit, "{record:#?}");
}

#[test]
fn a_run_still_waiting_at_the_end_of_its_patience_is_killed_and_named() {
    let record = held_at_the_black_hole(|limit| RunSpec {
        limit: Duration::from_secs(limit),
        patience: Some(Duration::from_secs(limit * 2)),
        namespace: None,
        ..waits_at_the_black_hole(None)
    });
    assert!(record.held_at_hole.is_some(), "{record:#?}");
    assert_killed_at_limit(&record);
    assert_eq!(record.waiting_on, Some(exec::WaitingOn::BlackHole));
    assert!(record.duration >= record.limit * 2, "{record:#?}");
}

#[test]
fn a_run_at_its_limit_for_another_cause_gets_no_patience() {
    let spec = RunSpec {
        limit: Duration::from_secs(1),
        patience: Some(Duration::from_secs(60)),
        namespace: None,
        network: exec::Network::BlackHole,
        ..shell("sleep 30")
    };
    let (record, _) = run(&spec);
    assert_killed_at_limit(&record);
    assert_eq!(record.held_at_hole, None);
}
