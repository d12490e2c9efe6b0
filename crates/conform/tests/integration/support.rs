//! Shared helpers: run the real `conform` binary and read its envelope.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

/// What conform may take past the time a run of it needs before a test calls it a
/// hang: minutes, beyond what any load delays it by, so only a conform that does not
/// let go (of a tool, of a pipe, after a signal) reaches it. What a run did is
/// asserted from its report, never from how long it took.
pub const HANG: Duration = Duration::from_secs(120);

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn hostile(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile")
        .join(name)
}

/// Variables of a developer's shell that the broken CLIs act on in ordinary runs
/// (the pager and editor CLIs open `$PAGER` and `$EDITOR` when set; the device-code
/// CLI finds its login through an unset `XDG_CONFIG_HOME`) or that switch democli's
/// behaviour: cleared, so the results do not depend on who runs the tests.
pub const DEVELOPER_ENV: &[&str] = &[
    "PAGER",
    "GIT_PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "GIT_EDITOR",
    "BROWSER",
    "XDG_CONFIG_HOME",
    "DEMOCLI_DEFECT",
    "DEMOCLI_HOME",
];

/// `Command::env_remove` for several names.
pub trait EnvRemoveAll {
    fn env_remove_all(&mut self, names: &[&str]) -> &mut Self;
}

impl EnvRemoveAll for Command {
    fn env_remove_all(&mut self, names: &[&str]) -> &mut Self {
        for name in names {
            self.env_remove(name);
        }
        self
    }
}

/// The outcome of one `conform` invocation.
pub struct Conform {
    pub output: Output,
    pub elapsed: Duration,
    pub envelope: Value,
    /// The `--json-report` document, for [`conform_reported`]; null otherwise.
    pub report: Value,
}

impl Conform {
    pub fn code(&self) -> i32 {
        self.output.status.code().unwrap_or(-1)
    }

    /// The ConformanceResult (single profile).
    pub fn result(&self) -> &Value {
        &self.envelope["data"]
    }

    /// One check of the result, by id; panics with the whole envelope when absent.
    pub fn check(&self, id: &str) -> &Value {
        self.result()["checks"]
            .as_array()
            .and_then(|checks| checks.iter().find(|c| c["id"] == id))
            .unwrap_or_else(|| panic!("no check {id} in {:#}", self.envelope))
    }

    /// One check of the `--json-report` document (first profile), with its full
    /// evidence: env changes, byte counts, excerpts, held pipes.
    pub fn reported(&self, id: &str) -> &Value {
        self.report["results"][0]["checks"]
            .as_array()
            .and_then(|checks| checks.iter().find(|c| c["id"] == id))
            .unwrap_or_else(|| panic!("no check {id} in the report {:#}", self.report))
    }

    pub fn status(&self, id: &str) -> &str {
        self.check(id)["status"].as_str().unwrap_or("?")
    }

    /// Every failure detail of a check, joined, for `contains` assertions.
    pub fn details(&self, id: &str) -> String {
        self.check(id)["failures"]
            .as_array()
            .map(|f| {
                f.iter()
                    .filter_map(|x| x["detail"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    }

    /// Ids of the checks with this status.
    pub fn ids_with(&self, status: &str) -> Vec<String> {
        self.result()["checks"]
            .as_array()
            .map(|c| {
                c.iter()
                    .filter(|x| x["status"] == status)
                    .filter_map(|x| x["id"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Run `conform` with stdout piped (so it prints one envelope) and parse it.
pub fn conform<I, S>(args: I) -> Conform
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    conform_in(&repo_root(), args)
}

pub fn conform_in<I, S>(cwd: &Path, args: I) -> Conform
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(args)
        .current_dir(cwd)
        .env_remove_all(DEVELOPER_ENV)
        .output()
        .expect("conform binary runs");
    let elapsed = started.elapsed();
    let envelope = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "conform's stdout is not one JSON envelope ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    for result in conformance_results(&envelope) {
        let errors = published_result_errors(result);
        assert!(
            errors.is_empty(),
            "data does not validate against the published ConformanceResult: {errors:#?}\n{result:#}"
        );
    }
    Conform {
        output,
        elapsed,
        envelope,
        report: Value::Null,
    }
}

/// `conform ARGS --json-report FILE`, with the report read back.
pub fn conform_reported<I, S>(args: I) -> Conform
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("report.json");
    let mut args: Vec<std::ffi::OsString> =
        args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    args.push("--json-report".into());
    args.push(path.clone().into_os_string());
    let mut run = conform(args);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "no --json-report at {} ({e}): {:#}",
            path.display(),
            run.envelope
        )
    });
    run.report = serde_json::from_str(&text).expect("the report is JSON");
    run
}

/// The ConformanceResults in a `conform run` envelope: `data` for one profile, each
/// of `data.results` for several; none for other commands.
pub fn conformance_results(envelope: &Value) -> Vec<&Value> {
    let data = &envelope["data"];
    if data.get("checks").is_some() {
        vec![data]
    } else if let Some(results) = data.get("results").and_then(Value::as_array) {
        results.iter().collect()
    } else {
        Vec::new()
    }
}

/// Errors of `result` against conform's copy of the facts of the spec's published
/// `conformance-result.json` (empty when it validates).
pub fn published_result_errors(result: &Value) -> Vec<String> {
    schema_errors(
        include_str!("../../../conform-core/schemas/conformance-result.schema.json"),
        result,
    )
}

/// Errors of `instance` against the draft-07 `schema` text.
pub fn schema_errors(schema: &str, instance: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(schema).expect("schema is JSON");
    let validator = jsonschema::draft7::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Write a profile for `command` with `probes` into a fresh temporary directory.
pub fn temp_profile(command: &Path, timeout: f64, probes: Value) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("profile.json");
    let profile = serde_json::json!({
        "schema_version": "1.0",
        "tool": command.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        "command": [command],
        "timeout_seconds": timeout,
        "probes": probes,
    });
    std::fs::write(
        &path,
        serde_json::to_vec_pretty(&profile).expect("profile serializes"),
    )
    .expect("profile written");
    (dir, path)
}

/// What an interrupted `conform run` left: its exit status, its stdout, and the pid
/// of the tool it was running.
pub struct Interrupted {
    pub status: std::process::ExitStatus,
    pub stdout: String,
    pub tool_pid: i32,
}

/// The limit of the tool [`signal_conform_run`] runs, the longest a profile allows.
const SIGNALLED_TOOL_LIMIT: Duration = Duration::from_secs(120);

/// `conform run` on a tool that sleeps until its two-minute limit; once the tool is
/// running (it writes its pid), conform gets SIGINT. Waits on the tool's pid file,
/// never on a fixed sleep alone, and fails unless conform then exits within half
/// the tool's limit: a minute, which only a conform that waited for the limit takes.
pub fn interrupt_conform_run() -> Interrupted {
    signal_conform_run(nix::sys::signal::Signal::SIGINT)
}

/// [`interrupt_conform_run`] with another signal.
pub fn signal_conform_run(signal: nix::sys::signal::Signal) -> Interrupted {
    use std::io::Read;
    use std::process::Stdio;

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
    let text = serde_json::json!({
        "schema_version": "1.0", "tool": "sleeper", "command": ["./tool.sh"], "timeout_seconds": SIGNALLED_TOOL_LIMIT.as_secs(),
        "probes": [{ "name": "probe", "argv": [], "kind": "read" }]
    });
    std::fs::write(&profile, text.to_string()).expect("profile written");

    let started = Instant::now();
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
    // Read on a thread, so that a conform that fills its stdout cannot block.
    let mut out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut stdout = String::new();
        let _ = out.read_to_string(&mut stdout);
        stdout
    });
    let pid_file = dir.path().join("pid");
    let tool_pid = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
        {
            break pid;
        }
        if let Some(status) = child.try_wait().expect("wait") {
            panic!("conform ended ({status}) before the tool started");
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            panic!("conform did not start the tool within {HANG:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let conform_pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid fits"));
    nix::sys::signal::kill(conform_pid, signal).expect("signal sent");
    let bound = SIGNALLED_TOOL_LIMIT / 2;
    let status = wait_or_kill(&mut child, bound)
        .unwrap_or_else(|| panic!("conform did not stop within {bound:?} of {signal}"));
    let stdout = reader.join().expect("stdout read");
    Interrupted {
        status,
        stdout,
        tool_pid,
    }
}

/// Waits for `child` to exit; past `bound` kills it and returns `None`. Looks every
/// 10 ms: what ends the wait is the exit, `bound` only a hang.
pub fn wait_or_kill(
    child: &mut std::process::Child,
    bound: Duration,
) -> Option<std::process::ExitStatus> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return Some(status);
        }
        if started.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `PATH` with the conform under test first, for commands that call `conform`.
pub fn path_with_conform() -> std::ffi::OsString {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_conform"));
    let mut path = bin
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
        .into_os_string();
    if let Some(inherited) = std::env::var_os("PATH") {
        path.push(":");
        path.push(inherited);
    }
    path
}

/// A generated block of a docs page, between `begin` and `end`: equal to
/// `block`, or rewritten to it when `CONFORM_BLESS` is set.
pub fn generated_block(page: &Path, begin: &str, end: &str, block: &str, stale: &str) {
    let text = std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{page:?}: {e}"));
    let (Some(from), Some(to)) = (text.find(begin), text.find(end)) else {
        panic!("{page:?} lacks the {begin} ... {end} block");
    };
    if std::env::var_os("CONFORM_BLESS").is_some() {
        let updated = format!(
            "{}{begin}\n{block}{end}{}",
            &text[..from],
            &text[to + end.len()..]
        );
        std::fs::write(page, updated).unwrap_or_else(|e| panic!("{page:?}: {e}"));
    } else {
        assert_eq!(text[from + begin.len()..to].trim(), block.trim(), "{stale}");
    }
}
