//! The isolated and terminal runs against hostile tools: a tool that waits for
//! keyboard input on its terminal ends at the limit and is reported, and sandboxes
//! leave nothing behind, also when conform is interrupted.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{conform_reported, hostile, temp_profile, wait_or_kill, HANG};

/// Entries in `dir`: conform's temp directories, when `dir` is its TMPDIR.
fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("temp dir readable")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_tool_waiting_for_keyboard_input_on_its_terminal_ends_at_the_limit_and_is_reported() {
    let probes = json!([{ "name": "probe", "argv": [], "kind": "read" }]);
    let (_dir, profile) = temp_profile(&hostile("waits_for_keyboard.sh"), 1.0, probes);
    let run = conform_reported([
        "run".as_ref(),
        profile.as_os_str(),
        "--only".as_ref(),
        "tty_no_color".as_ref(),
    ]);
    // tty_no_color judges colour, not time: the hang on the terminal (the tool ends
    // in time on pipes) is the reason it skips, not a colour failure.
    assert_eq!(run.code(), 0, "{:#}", run.envelope);
    assert_eq!(run.status("tty_no_color"), "skip");
    let reason = run.check("tty_no_color")["skipped_reason"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        reason.contains("\"probe (terminal)\" hit the 1s limit on the terminal"),
        "{reason}"
    );
    assert!(reason.contains("waited for keyboard input"), "{reason}");
    // Ended by the kit at the limit, which the report says; the time conform took
    // is bounded only against a hang.
    let terminal = run.report["results"][0]["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["probe"] == "probe (terminal)")
        .unwrap_or_else(|| panic!("no terminal run: {:#}", run.report));
    assert_eq!(terminal["timed_out"], true, "{terminal:#}");
    assert_eq!(terminal["killed_by_kit"]["at_limit"], true, "{terminal:#}");
    assert!(
        run.elapsed < HANG,
        "conform took {:?}: it hung",
        run.elapsed
    );
}

#[test]
fn sandboxes_leave_nothing_behind() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let child = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["run", "conformance/profiles/bad/invalid-writes-cache.json"])
        .current_dir(crate::support::repo_root())
        .env("TMPDIR", tmp.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("conform starts");
    let prefix = format!("conform-{}-", child.id());
    let output = child.wait_with_output().expect("conform runs");
    // The tool wrote a cache file into its sandbox, and the check saw it.
    assert_eq!(output.status.code(), Some(4));
    assert_eq!(entries(tmp.path()), Vec::<String>::new());
    // Where TMPDIR is no tmpfs, the sandboxes went to one: nothing of this conform
    // is left there either.
    for root in [
        "/dev/shm".into(),
        std::env::var("XDG_RUNTIME_DIR").unwrap_or_default(),
    ] {
        let root = Path::new(&root);
        if root.is_dir() {
            let left: Vec<String> = entries(root)
                .into_iter()
                .filter(|name| name.starts_with(&prefix))
                .collect();
            assert!(left.is_empty(), "{left:?} left in {}", root.display());
        }
    }
}

#[test]
fn interrupting_conform_removes_its_sandboxes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).expect("kit temp dir");
    let fifo = dir.path().join("ready");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("fifo");
    let probes = json!([{ "name": "probe", "argv": [], "kind": "read" }]);
    let (_profile_dir, profile) = temp_profile(&hostile("sandboxed_sleeper.sh"), 60.0, probes);
    let mut child = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args([
            "run".as_ref(),
            profile.as_os_str(),
            "--only".as_ref(),
            "help_version_pure".as_ref(),
        ])
        .env("TMPDIR", &tmp)
        .env("CONFORM_TEST_FIFO", &fifo)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("conform starts");
    // Opening the FIFO waits for the tool to write its sandbox HOME: an event, not a
    // sleep. A thread, so that a tool that never starts fails the test.
    let (sender, receiver) = mpsc::channel();
    let reader = fifo.clone();
    std::thread::spawn(move || {
        let mut line = String::new();
        if let Ok(file) = std::fs::File::open(&reader) {
            let _ = BufReader::new(file).read_line(&mut line);
        }
        let _ = sender.send(line);
    });
    let started = Instant::now();
    let home = loop {
        match receiver.recv_timeout(Duration::from_millis(10)) {
            Ok(line) => break line,
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the FIFO reader failed"),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(status) = child.try_wait().expect("wait") {
                    panic!("conform ended ({status}) before the tool started in its sandbox");
                }
                if started.elapsed() > HANG {
                    let _ = child.kill();
                    panic!("the tool did not start in its sandbox within {HANG:?}");
                }
            }
        }
    };
    let home = Path::new(home.trim());
    // The kit's scratch directory: under TMPDIR, or on a tmpfs when TMPDIR is not one.
    let prefix = format!("conform-{}-", child.id());
    let scratch = home
        .ancestors()
        .find(|dir| {
            dir.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(&prefix))
        })
        .unwrap_or_else(|| panic!("{home:?} is in the kit's scratch directory"))
        .to_path_buf();
    assert!(home.is_dir(), "{home:?} exists while the tool runs");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid fits"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT sent");
    let status = wait_or_kill(&mut child, HANG)
        .unwrap_or_else(|| panic!("conform did not stop within {HANG:?} of SIGINT"));
    assert_eq!(status.code(), Some(130));
    assert!(!home.exists(), "{home:?} removed");
    assert!(!scratch.exists(), "{scratch:?} removed");
    assert_eq!(entries(&tmp), Vec::<String>::new());
}

/// `conform run PROFILE --only CHECK --json-report` with exactly `env` as its
/// environment (plus PATH); the report read back.
fn run_in_env(profile: &Path, check: &str, env: &[(&str, &Path)]) -> serde_json::Value {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    let mut command = Command::new(env!("CARGO_BIN_EXE_conform"));
    command
        .args(["run".as_ref(), profile.as_os_str()])
        .args(["--only", check, "--json-report"])
        .arg(&report)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("conform runs");
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| {
        panic!(
            "no report ({e}); stdout: {}; stderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    serde_json::from_str(&text).expect("the report is JSON")
}

/// The report's run labelled `probe`.
fn run_labelled<'a>(report: &'a serde_json::Value, probe: &str) -> &'a serde_json::Value {
    report["results"][0]["runs"]
        .as_array()
        .and_then(|runs| runs.iter().find(|run| run["probe"] == probe))
        .unwrap_or_else(|| panic!("no run {probe:?} in {report:#}"))
}

#[test]
fn an_isolated_run_keeps_the_toolchain_locations_and_a_fresh_home() {
    let home = tempfile::tempdir().expect("home");
    for dir in [".rustup", ".cargo", ".pyenv"] {
        std::fs::create_dir(home.path().join(dir)).expect("mkdir");
    }
    let jdk = tempfile::tempdir().expect("jdk");
    let probes = json!([{ "name": "probe", "argv": [], "kind": "read" }]);
    let (_dir, profile) = temp_profile(&hostile("print_env.sh"), 10.0, probes);
    let report = run_in_env(
        &profile,
        "help_version_pure",
        &[("HOME", home.path()), ("JAVA_HOME", jdk.path())],
    );
    let run = run_labelled(&report, "--version (isolated)");
    let printed = run["stdout_excerpt"].as_str().unwrap_or_default();
    let has = |line: String| printed.lines().any(|l| l == line);
    let real = |dir: &str| home.path().join(dir).display().to_string();
    // Unset in conform's environment: set to where the tool would have found them.
    for (name, dir) in [
        ("RUSTUP_HOME", ".rustup"),
        ("CARGO_HOME", ".cargo"),
        ("PYENV_ROOT", ".pyenv"),
    ] {
        assert!(has(format!("{name}={}", real(dir))), "{name}: {printed}");
        let change = format!("{name}={}", real(dir));
        assert!(
            run["env"]
                .as_array()
                .is_some_and(|env| env.contains(&change.into())),
            "{name} is not in the run's env evidence: {run:#}"
        );
    }
    // Set in conform's environment: passed through as it is.
    assert!(
        has(format!("JAVA_HOME={}", jdk.path().display())),
        "{printed}"
    );
    // No ~/.volta, no VOLTA_HOME.
    assert!(!printed.contains("VOLTA_HOME="), "{printed}");
    // The tool's HOME is still a fresh one, not the real HOME.
    let tool_home = printed
        .lines()
        .find_map(|line| line.strip_prefix("HOME="))
        .unwrap_or_else(|| panic!("no HOME in {printed}"));
    assert_ne!(Path::new(tool_home), home.path());
    assert!(tool_home.ends_with("/home"), "{tool_home}");
}

/// rustup's `cargo` proxy, run isolated as the issue found it failing ("rustup
/// could not choose a version"). Only where rustup is installed in its default
/// place; elsewhere there is nothing to run.
#[test]
fn rustups_cargo_proxy_passes_help_version_pure_in_isolated_runs() {
    let Some(home) = std::env::var_os("HOME").map(std::path::PathBuf::from) else {
        return;
    };
    let proxy = home.join(".cargo/bin/cargo");
    if !home.join(".rustup").is_dir() || !proxy.is_file() {
        eprintln!("no rustup in {}: nothing to check", home.display());
        return;
    }
    let probes = json!([{ "name": "version", "argv": ["--version"], "kind": "read" }]);
    // By name through PATH: the proxy is a link to rustup that acts on the name it
    // was called by, and a path in `command` is resolved to the link's target.
    let (_dir, profile) = temp_profile(Path::new("cargo"), 30.0, probes);
    let path = std::env::join_paths([
        proxy.parent().unwrap_or(&home),
        Path::new("/usr/bin"),
        Path::new("/bin"),
    ])
    .expect("PATH");
    // Neither RUSTUP_HOME, CARGO_HOME nor RUSTUP_TOOLCHAIN (which cargo sets for
    // the tests it runs): the proxy finds its toolchain from HOME alone.
    let report = run_in_env(
        &profile,
        "help_version_pure",
        &[("HOME", &home), ("PATH", Path::new(&path))],
    );
    let check = report["results"][0]["checks"]
        .as_array()
        .and_then(|checks| checks.iter().find(|c| c["id"] == "help_version_pure"))
        .unwrap_or_else(|| panic!("no help_version_pure in {report:#}"));
    assert_eq!(check["status"], "pass", "{check:#}");
    let version = run_labelled(&report, "--version (isolated)");
    assert!(
        version["stdout_excerpt"]
            .as_str()
            .is_some_and(|out| out.starts_with("cargo ")),
        "{version:#}"
    );
}
