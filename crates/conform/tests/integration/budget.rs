//! `conform check --budget`: every command surveyed, a sample judged in depth,
//! and an answer whatever ends the run (the budget, SIGTERM). The fixture
//! `slowcli` has fifty commands in groups whose every call sleeps, so that no
//! short budget fits them all. No assertion on time but a generous sanity bound:
//! what was planned and made is read from the envelope.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{conform, published_result_errors, repo_root, wait_or_kill, HANG};

fn slowcli() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check/slowcli")
}

/// slowcli's commands: eight groups of six, `status` and `whoami`.
const SLOWCLI_COMMANDS: usize = 50;

fn commands_in(meta: &Value, key: &str) -> usize {
    meta[key]["commands"].as_u64().unwrap_or(0) as usize
}

#[test]
fn a_short_budget_surveys_first_and_names_what_it_judged_in_depth() {
    let tool = slowcli();
    let check = conform([
        "check".as_ref(),
        "--budget".as_ref(),
        "20s".as_ref(),
        "--".as_ref(),
        tool.as_os_str(),
    ]);
    let meta = &check.envelope["meta"];
    assert!(matches!(check.code(), 0 | 4), "{:#}", check.envelope);
    assert!(check.elapsed < HANG, "{:?}", check.elapsed);
    assert_eq!(meta["budget"]["shown"], "20s", "{meta:#}");
    // Not everything fits: commands are left unsurveyed, or only a sample is
    // judged in depth, each saying why.
    let surveyed = commands_in(meta, "survey");
    let not_surveyed = meta["survey"]["not_surveyed"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(
        not_surveyed > 0 || meta["depth"]["all"] == false,
        "{meta:#}"
    );
    assert!(surveyed >= 1, "{meta:#}");
    assert!(surveyed + not_surveyed <= SLOWCLI_COMMANDS, "{meta:#}");
    assert!(commands_in(meta, "depth") <= surveyed, "{meta:#}");
    for judged in meta["depth"]["judged"].as_array().into_iter().flatten() {
        assert!(
            judged["why"].as_str().is_some_and(|w| !w.is_empty()),
            "{judged}"
        );
    }
    // The commands agents call first come before the rest.
    let probed = meta["inferred"]["profile"]["probes"].to_string();
    assert!(
        probed.contains("\"status\"") || probed.contains("\"whoami\""),
        "{probed}"
    );
    // What was judged is the reference result, extras in meta only.
    let errors = published_result_errors(check.result());
    assert!(errors.is_empty(), "{errors:?}");
    assert!(meta["runs"].as_u64().unwrap_or(0) > 0, "{meta:#}");
}

/// `conform check --progress` on slowcli with `args` before `--` and `env`, its
/// stdout read on a thread; the progress lines on stderr come through `progress`.
struct Checking {
    child: std::process::Child,
    stdout: std::thread::JoinHandle<String>,
    progress: std::sync::mpsc::Receiver<String>,
}

impl Checking {
    fn start(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Checking {
        let mut child = Command::new(env!("CARGO_BIN_EXE_conform"))
            .arg("check")
            .args(args)
            .args(["--progress", "--"])
            .arg(slowcli())
            .envs(env.iter().copied())
            .current_dir(repo_root())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("conform starts");
        let mut out = child.stdout.take().expect("stdout");
        let stdout = std::thread::spawn(move || {
            let mut stdout = String::new();
            let _ = out.read_to_string(&mut stdout);
            stdout
        });
        let (lines, progress) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        Checking {
            child,
            stdout,
            progress,
        }
    }

    /// Waits for a progress line holding `words`.
    fn wait_for(&self, words: &str) {
        let started = Instant::now();
        loop {
            let left = HANG.saturating_sub(started.elapsed());
            let line = self
                .progress
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no progress line said {words:?}"));
            if line.contains(words) {
                return;
            }
        }
    }

    /// SIGTERM, then the envelope conform printed, after checking it exited 143
    /// with the CANCELLED error and a result the published schema accepts.
    fn terminate(mut self) -> Value {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).expect("pid fits"));
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("signal sent");
        let status = wait_or_kill(&mut self.child, HANG).expect("conform stops after SIGTERM");
        let stdout = self.stdout.join().expect("stdout read");
        assert_eq!(status.code(), Some(143), "{stdout}");
        let envelope: Value = serde_json::from_str(&stdout).expect("one envelope");
        assert_eq!(envelope["error"]["code"], "CANCELLED", "{envelope:#}");
        assert_eq!(envelope["meta"]["ended_by"], "SIGTERM", "{envelope:#}");
        let checks = envelope["data"]["checks"].as_array().expect("checks");
        assert!(
            checks.iter().any(|c| c["skipped_reason"]
                .as_str()
                .is_some_and(|r| r.contains("SIGTERM"))),
            "{envelope:#}"
        );
        let errors = published_result_errors(&envelope["data"]);
        assert!(errors.is_empty(), "{errors:?}");
        envelope
    }
}

#[test]
fn sigterm_halfway_gives_the_judged_checks_partial_and_the_runs_made() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mark = dir.path().join("calls");
    let started = Instant::now();
    let mut checking =
        Checking::start(&["--budget", "none"], &[("SLOWCLI_MARK", mark.as_os_str())]);
    // The progress says when the survey and depth runs begin; the fixture's
    // calls file, how many of them were made since.
    checking.wait_for("survey and depth");
    let calls = || std::fs::read_to_string(&mark).map_or(0, |text| text.lines().count());
    let explored = calls();
    while calls() < explored + 60 {
        assert!(
            checking.child.try_wait().expect("wait").is_none(),
            "conform ended before the signal"
        );
        assert!(started.elapsed() < HANG, "no runs made");
        std::thread::sleep(Duration::from_millis(20));
    }
    let envelope = checking.terminate();
    let meta = &envelope["meta"];
    assert_eq!(meta["partial"], true, "{meta:#}");
    assert_eq!(meta["exit_code"], 143, "{meta:#}");
    assert!(meta["runs"].as_u64().unwrap_or(0) > 0, "{meta:#}");
    let checks = envelope["data"]["checks"].as_array().expect("checks");
    let judged = checks.iter().filter(|c| c["status"] != "skip").count();
    assert!(judged > 0, "{envelope:#}");
}

#[test]
fn sigterm_while_the_help_is_read_gives_the_checks_of_the_help_calls_made() {
    let checking = Checking::start(&[], &[("SLOWCLI_DELAY", "1".as_ref())]);
    // The root help has been read once the groups' help calls begin.
    checking.wait_for("reading the help of");
    let envelope = checking.terminate();
    assert!(
        envelope["error"]["fix_required"]
            .as_str()
            .is_some_and(|fix| fix.contains("conform check")),
        "{envelope:#}"
    );
    // The root help call is the kit's `--help` run: judged, not skipped.
    let checks = envelope["data"]["checks"].as_array().expect("checks");
    let help = checks
        .iter()
        .find(|c| c["id"] == "help_off_stdout")
        .expect("help_off_stdout reported");
    assert_eq!(help["status"], "pass", "{help:#}");
}

#[test]
fn a_budget_that_is_no_duration_is_a_usage_error() {
    let tool = slowcli();
    for bad in ["2x", "0s", "soon"] {
        let check = conform([
            "check".as_ref(),
            "--budget".as_ref(),
            bad.as_ref(),
            "--".as_ref(),
            tool.as_os_str(),
        ]);
        assert_eq!(check.code(), 2, "{bad}: {:#}", check.envelope);
        let message = check.envelope["error"]["message"].to_string();
        assert!(message.contains("--budget"), "{bad}: {message}");
    }
}

#[test]
fn democli_fits_its_default_budget_whole() {
    let tool = repo_root().join("benchmark/harness/cli/good/democli");
    let check = conform(["check".as_ref(), "--".as_ref(), tool.as_os_str()]);
    let meta = &check.envelope["meta"];
    assert_eq!(meta["budget"]["shown"], "2m", "{meta:#}");
    assert_eq!(meta["depth"]["all"], true, "{meta:#}");
    assert_eq!(
        commands_in(meta, "depth"),
        commands_in(meta, "survey"),
        "{meta:#}"
    );
    assert!(meta.get("partial").is_none(), "{meta:#}");
}
