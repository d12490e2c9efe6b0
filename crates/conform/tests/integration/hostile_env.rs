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
    assert_eq!(run.code(), 4, "{:#}", run.envelope);
    assert_eq!(run.status("tty_no_color"), "fail");
    let details = run.details("tty_no_color");
    assert!(details.contains("no exit within the 1s limit"), "{details}");
    assert!(details.contains("waited for keyboard input"), "{details}");
    assert_eq!(
        run.check("tty_no_color")["failures"][0]["probe"],
        "probe (terminal)"
    );
    // Ended by the kit at the limit, which the report says; the time conform took
    // is bounded only against a hang.
    let failure = &run.reported("tty_no_color")["failures"][0];
    assert_eq!(failure["timed_out"], true, "{failure:#}");
    assert_eq!(failure["killed_by_kit"]["at_limit"], true, "{failure:#}");
    assert!(
        run.elapsed < HANG,
        "conform took {:?}: it hung",
        run.elapsed
    );
}

#[test]
fn sandboxes_leave_nothing_behind() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["run", "conformance/profiles/bad/invalid-writes-cache.json"])
        .current_dir(crate::support::repo_root())
        .env("TMPDIR", tmp.path())
        .output()
        .expect("conform runs");
    // The tool wrote a cache file into its sandbox, and the check saw it.
    assert_eq!(output.status.code(), Some(4));
    assert_eq!(entries(tmp.path()), Vec::<String>::new());
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
    assert!(home.starts_with(&tmp), "{home:?} is in the kit's temp dir");
    assert!(home.is_dir(), "{home:?} exists while the tool runs");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid fits"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT sent");
    let status = wait_or_kill(&mut child, HANG)
        .unwrap_or_else(|| panic!("conform did not stop within {HANG:?} of SIGINT"));
    assert_eq!(status.code(), Some(130));
    assert!(!home.exists(), "{home:?} removed");
    assert_eq!(entries(&tmp), Vec::<String>::new());
}
