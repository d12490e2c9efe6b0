//! democli end to end: the binary is run the way an agent (or conform) runs it, with
//! stdout and stderr as pipes and `DEMOCLI_HOME` in a fresh temporary directory.
//! Signal tests wait on lines and exits, never on sleeps.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command as StdCommand, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin_cmd;
use assert_cmd::Command;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::{json, Value};
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_democli");
/// Bound for a whole run: minutes, beyond what any load delays democli by, so only
/// a democli that hangs reaches it.
const LIMIT: Duration = Duration::from_secs(120);

/// Variables that change democli's output mode or behavior; cleared in every test so
/// the developer's shell cannot leak into the results.
const CLEARED: &[&str] = &[
    "NO_COLOR",
    "CI",
    "GITHUB_ACTIONS",
    "JENKINS_URL",
    "FORCE_COLOR",
    "DEMOCLI_DEFECT",
    "DEMOCLI_HOME",
    // Read only under defects: the wrapping, debug and device-code ones.
    "COLUMNS",
    "DEBUG",
    "DEMOCLI_TOKEN",
    "XDG_CONFIG_HOME",
    "DEMOCLI_MAX_OUTPUT_BYTES",
    // A test never reaches a real proxy: only the ones it sets itself.
    "https_proxy",
    "HTTPS_PROXY",
    "http_proxy",
    "HTTP_PROXY",
    "all_proxy",
    "ALL_PROXY",
    "no_proxy",
    "NO_PROXY",
];

struct Sandbox {
    home: TempDir,
}

impl Sandbox {
    fn new() -> Self {
        Self {
            home: tempfile::tempdir().expect("temporary DEMOCLI_HOME"),
        }
    }

    fn data_file(&self) -> PathBuf {
        self.home.path().join("deployments.json")
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = cargo_bin_cmd!("democli");
        for name in CLEARED {
            cmd.env_remove(name);
        }
        cmd.env("DEMOCLI_HOME", self.home.path())
            .env("TERM", "xterm-256color")
            .args(args)
            .timeout(LIMIT);
        cmd
    }

    fn with_defect(&self, defect: &str, args: &[&str]) -> Command {
        let mut cmd = self.cmd(args);
        cmd.env("DEMOCLI_DEFECT", defect);
        cmd
    }

    /// Run and return (exit code, stdout, stderr).
    fn run(&self, args: &[&str]) -> Run {
        Run::from(self.cmd(args))
    }

    fn std_cmd(&self, args: &[&str]) -> StdCommand {
        let mut cmd = StdCommand::new(BIN);
        for name in CLEARED {
            cmd.env_remove(name);
        }
        cmd.env("DEMOCLI_HOME", self.home.path())
            .env("TERM", "xterm-256color")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn from(mut cmd: Command) -> Run {
        let output = cmd.output().expect("democli runs");
        Run {
            code: output.status.code().expect("an exit code, not a signal"),
            stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
            stderr: String::from_utf8(output.stderr).expect("UTF-8 stderr"),
        }
    }

    /// stdout as exactly one envelope, checked against the invariants of the spec's
    /// ResponseEnvelope and against the process exit code.
    fn envelope(&self) -> Value {
        let lines: Vec<&str> = self.stdout.lines().collect();
        assert_eq!(lines.len(), 1, "one line on stdout: {:?}", self.stdout);
        let envelope: Value = serde_json::from_str(lines[0]).expect("stdout is JSON");
        let keys: Vec<&str> = envelope
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["ok", "data", "error", "warnings", "meta"]);
        assert_eq!(envelope["meta"]["exit_code"], json!(self.code));
        assert!(envelope["meta"]["duration_ms"].is_u64());
        assert_eq!(envelope["ok"], json!(self.code == 0));
        assert_eq!(envelope["error"].is_null(), self.code == 0);
        assert!(envelope["warnings"].is_array());
        if self.code != 0 {
            let code = envelope["error"]["code"].as_str().expect("error.code");
            assert!(code
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'));
            assert!(envelope["error"]["message"].is_string());
        }
        assert!(!self.stdout.contains('\x1b'), "no ANSI on a pipe");
        envelope
    }
}

fn ids(data: &Value) -> Vec<String> {
    data.as_array()
        .expect("a list")
        .iter()
        .map(|d| d["id"].as_str().expect("an id").to_owned())
        .collect()
}

// --- envelope and exit codes ------------------------------------------------

#[test]
fn list_is_an_envelope_with_pagination() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["deployments", "list"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stderr, "",
        "nothing on stderr for a success off a terminal"
    );
    let envelope = run.envelope();
    assert_eq!(envelope["data"].as_array().map(Vec::len), Some(5));
    assert_eq!(
        envelope["meta"]["pagination"],
        json!({"total": 20, "returned": 5, "truncated": true, "has_more": true, "next_cursor": "cGFnZTI="})
    );
    assert!(
        !sandbox.data_file().exists(),
        "a read never writes the data file"
    );
}

#[test]
fn cursor_pages_through_an_environment() {
    let sandbox = Sandbox::new();
    let first = sandbox.run(&["deployments", "list", "staging"]).envelope();
    let cursor = first["meta"]["pagination"]["next_cursor"]
        .as_str()
        .expect("a next page");
    let second = sandbox
        .run(&["deployments", "list", "staging", "--cursor", cursor])
        .envelope();
    assert_eq!(ids(&first["data"]).len(), 5);
    assert_eq!(ids(&second["data"]).len(), 3);
    assert_eq!(second["meta"]["pagination"]["next_cursor"], Value::Null);
    let all = sandbox
        .run(&["deployments", "list", "staging", "--limit", "100"])
        .envelope();
    let mut paged = ids(&first["data"]);
    paged.extend(ids(&second["data"]));
    assert_eq!(paged, ids(&all["data"]));
}

#[test]
fn input_errors_exit_2_in_the_validation_phase() {
    let sandbox = Sandbox::new();
    for (args, code) in [
        (
            &["deployments", "list", "--no-such-flag"][..],
            "UNKNOWN_FLAG",
        ),
        (
            &["deployments", "list", "--cursor", "bm9wZQ=="],
            "INVALID_CURSOR",
        ),
        (&["deployments", "list", "--limit", "many"], "INVALID_VALUE"),
        (&["deployments", "list", "Staging"], "INVALID_ARGUMENT"),
        (&["deployments", "get"], "MISSING_ARGUMENT"),
        (&["deployments", "delete"], "MISSING_FLAG"),
        (
            &["deployments", "delete", "--filter", "zone=eu"],
            "INVALID_FILTER",
        ),
        (&["deployments"], "MISSING_COMMAND"),
        (&["launch"], "UNKNOWN_COMMAND"),
        (&["events", "--follow", "--no-stream"], "CONFLICTING_FLAGS"),
        (&["--format", "yaml", "health"], "INVALID_VALUE"),
    ] {
        let run = sandbox.run(args);
        assert_eq!(run.code, 2, "{args:?}");
        let envelope = run.envelope();
        assert_eq!(envelope["error"]["code"], code, "{args:?}");
        assert_eq!(envelope["error"]["phase"], "validation", "{args:?}");
        assert!(run.stderr.contains("democli: error:"), "prose on stderr");
    }
}

#[test]
fn the_bare_command_shows_the_root_help_and_succeeds() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&[]);
    assert_eq!(run.code, 0, "REQ-F-068");
    assert!(run.stderr.contains("deployments"), "{}", run.stderr);
    assert_eq!(run.envelope()["ok"], true);
}

#[test]
fn unknown_deployment_is_not_found() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["deployments", "get", "dep-999"]);
    assert_eq!(run.code, 5);
    assert_eq!(run.envelope()["error"]["code"], "NOT_FOUND");
    let found = sandbox.run(&["deployments", "get", "dep-007"]);
    assert_eq!(found.code, 0);
    assert_eq!(found.envelope()["data"]["env"], "dev");
}

#[test]
fn corrupt_data_file_is_a_general_error_not_a_crash() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.data_file(), "{ half a file").expect("write");
    let run = sandbox.run(&["deployments", "list"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.envelope()["error"]["code"], "STORE_CORRUPT");
}

// --- argument order (REQ-F-067, REQ-F-079) -----------------------------------

#[test]
fn global_format_works_in_every_position() {
    let sandbox = Sandbox::new();
    let placements = |value: &str| -> Vec<Vec<String>> {
        let inline = format!("--format={value}");
        [
            vec![
                "--format",
                value,
                "deployments",
                "list",
                "--cursor",
                "cGFnZTI=",
            ],
            vec![
                "deployments",
                "list",
                "--format",
                value,
                "--cursor",
                "cGFnZTI=",
            ],
            vec![
                "deployments",
                "list",
                "--cursor",
                "cGFnZTI=",
                "--format",
                value,
            ],
            vec!["deployments", "list", "--cursor=cGFnZTI=", inline.as_str()],
        ]
        .iter()
        .map(|args| args.iter().map(|arg| (*arg).to_owned()).collect())
        .collect()
    };
    let run_all = |value: &str| -> Vec<Run> {
        placements(value)
            .iter()
            .map(|args| {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                sandbox.run(&args)
            })
            .collect()
    };
    let json_runs = run_all("json");
    let plain_runs = run_all("plain");
    let reference = json_runs[0].envelope()["data"].clone();
    for (json_run, plain_run) in json_runs.iter().zip(&plain_runs) {
        assert_eq!(json_run.code, 0);
        assert_eq!(json_run.envelope()["data"], reference);
        assert_eq!(plain_run.code, 0);
        assert_eq!(plain_run.stdout, plain_runs[0].stdout);
        assert_ne!(plain_run.stdout, json_run.stdout);
        assert!(!plain_run.stdout.contains('\x1b'), "no ANSI on a pipe");
    }
    assert!(plain_runs[0].stdout.starts_with("ID "));
}

#[test]
fn conflicting_repeated_flag_exits_2_and_identical_repeat_is_fine() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&[
        "--format",
        "json",
        "deployments",
        "list",
        "--cursor",
        "cGFnZTI=",
        "--format",
        "plain",
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(run.envelope()["error"]["code"], "DUPLICATE_FLAG");
    let same = sandbox.run(&["--format", "json", "health", "--format", "json"]);
    assert_eq!(same.code, 0);
}

#[test]
fn option_after_positional_is_parsed_as_an_option() {
    let sandbox = Sandbox::new();
    let after = sandbox.run(&["deployments", "list", "staging", "--cursor", "cGFnZTI="]);
    let before = sandbox.run(&["deployments", "list", "--cursor", "cGFnZTI=", "staging"]);
    let alone = sandbox.run(&["deployments", "list", "staging"]);
    assert_eq!(after.envelope()["data"], before.envelope()["data"]);
    assert_ne!(after.envelope()["data"], alone.envelope()["data"]);
}

// --- help (REQ-F-048) ----------------------------------------------------------

#[test]
fn help_goes_to_stderr_with_a_json_stub_on_stdout() {
    let sandbox = Sandbox::new();
    for args in [
        &["--help"][..],
        &["deployments", "list", "--help"],
        &["deployments", "-h", "delete"],
        // Help wins over an input error anywhere on the line.
        &["deployments", "list", "--no-such-flag", "--help"],
    ] {
        let run = sandbox.run(args);
        assert_eq!(run.code, 0, "{args:?}");
        assert!(run.stderr.contains("Usage: democli"), "{args:?}");
        let envelope = run.envelope();
        assert_eq!(envelope["meta"]["help"], true);
        assert_eq!(envelope["data"], Value::Null);
    }
    let plain = sandbox.run(&["--format", "plain", "events", "--help"]);
    assert_eq!(plain.stdout, "");
    assert!(plain.stderr.contains("streaming_default"));
}

// --- destructive commands (REQ-C-004, REQ-C-005, REQ-O-021) --------------------

#[test]
fn delete_refuses_previews_and_deletes_only_when_confirmed() {
    let sandbox = Sandbox::new();
    let delete = ["deployments", "delete", "--filter", "env=staging"];

    let refused = sandbox.run(&delete);
    assert_eq!(refused.code, 2);
    let error = refused.envelope()["error"].clone();
    assert_eq!(error["code"], "CONFIRMATION_REQUIRED");
    assert_eq!(error["context"]["would_affect"]["count"], 8);

    let preview_args = [&delete[..], &["--dry-run"]].concat();
    let first = sandbox.run(&preview_args);
    let second = sandbox.run(&preview_args);
    assert_eq!(first.code, 0);
    let first = first.envelope();
    assert_eq!(
        first["data"],
        second.envelope()["data"],
        "previews are stable"
    );
    assert_eq!(first["data"]["effect"], "would_delete");
    assert_eq!(first["data"]["would_affect"]["count"], 8);
    assert_eq!(first["meta"]["dry_run"], true);
    // --dry-run wins over --yes.
    let both = sandbox.run(&[&preview_args[..], &["--yes"]].concat());
    assert_eq!(both.envelope()["data"]["effect"], "would_delete");
    assert!(
        !sandbox.data_file().exists(),
        "neither refusal nor preview wrote"
    );

    let deleted = sandbox.run(&[&delete[..], &["--yes"]].concat());
    assert_eq!(deleted.code, 0);
    let deleted = deleted.envelope();
    assert_eq!(deleted["data"]["effect"], "deleted");
    assert_eq!(deleted["data"]["count"], 8);
    assert_eq!(deleted["meta"]["confirmed"], true);
    assert!(sandbox.data_file().exists());

    let staging = sandbox.run(&["deployments", "list", "staging"]).envelope();
    assert_eq!(staging["data"], json!([]));
    let all = sandbox
        .run(&["deployments", "list", "--limit", "100"])
        .envelope();
    assert_eq!(all["meta"]["pagination"]["total"], 12);

    let again = sandbox.run(&[&delete[..], &["--confirm-destructive"]].concat());
    assert_eq!(again.envelope()["data"]["effect"], "noop");

    let events = sandbox.run(&["events", "--no-stream"]).envelope();
    let deletions = events["data"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "deployment.deleted")
        .count();
    assert_eq!(deletions, 8);
}

// --- streams (REQ-O-004, REQ-F-069) -------------------------------------------

/// Every stdout line of a finished stream, parsed.
fn stream_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("every stream line is JSON"))
        .collect()
}

#[test]
fn stream_numbers_items_and_ends_on_one_summary() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["deployments", "list", "--stream"]);
    assert_eq!(run.code, 0);
    let lines = stream_lines(&run.stdout);
    let (summary, items) = lines.split_last().expect("lines");
    assert_eq!(items.len(), 20);
    for (index, item) in items.iter().enumerate() {
        assert_eq!(item["_seq"], json!(index + 1));
        assert!(item.get("_summary").is_none());
    }
    assert_eq!(summary["_summary"], true);
    assert_eq!(summary["_count"], 20);
    assert!(summary.get("_seq").is_none());
    assert_eq!(summary["pagination"]["has_more"], false);

    let limited = sandbox.run(&["deployments", "list", "staging", "--stream", "--limit", "3"]);
    let lines = stream_lines(&limited.stdout);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[3]["pagination"]["next_cursor"], "cGFnZTI=");
}

#[test]
fn events_stream_by_default_and_buffer_with_no_stream() {
    let sandbox = Sandbox::new();
    let streamed = sandbox.run(&["events"]);
    assert_eq!(streamed.code, 0);
    let lines = stream_lines(&streamed.stdout);
    assert_eq!(lines.len(), 21);
    assert_eq!(lines[20]["_summary"], true);
    let buffered = sandbox.run(&["events", "--no-stream"]);
    assert_eq!(
        buffered.envelope()["data"].as_array().map(Vec::len),
        Some(20)
    );
}

/// A running stream whose stdout is read line by line.
struct Live {
    child: Child,
    lines: std::io::Lines<BufReader<ChildStdout>>,
}

impl Live {
    fn spawn(mut cmd: StdCommand) -> Live {
        let mut child = cmd.spawn().expect("spawn");
        let stdout = child.stdout.take().expect("stdout pipe");
        Live {
            child,
            lines: BufReader::new(stdout).lines(),
        }
    }

    fn line(&mut self) -> Option<Value> {
        self.lines
            .next()
            .map(|line| serde_json::from_str(&line.expect("read")).expect("a JSON line"))
    }

    fn interrupt(&self) {
        let pid = i32::try_from(self.child.id()).expect("pid fits");
        kill(Pid::from_raw(pid), Signal::SIGINT).expect("send SIGINT");
    }

    /// Read what is left, then wait for the exit.
    fn finish(mut self) -> (Vec<Value>, ExitStatus) {
        let rest: Vec<Value> = std::iter::from_fn(|| self.line()).collect();
        (rest, wait_bounded(&mut self.child))
    }
}

/// Wait for `child` to exit; kill it and fail past `LIMIT` instead of hanging the suite.
fn wait_bounded(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + LIMIT;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("democli did not exit within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn sigint_ends_a_stream_on_one_cancellation_line_with_exit_130() {
    let sandbox = Sandbox::new();
    let mut live = Live::spawn(sandbox.std_cmd(&["deployments", "list", "--stream"]));
    let first = live.line().expect("line 1");
    let second = live.line().expect("line 2");
    assert_eq!(
        (first["_seq"].clone(), second["_seq"].clone()),
        (json!(1), json!(2))
    );
    live.interrupt();
    let (rest, status) = live.finish();
    assert_eq!(status.code(), Some(130));
    let (terminal, items) = rest.split_last().expect("a terminal line");
    assert!(items.iter().all(|item| item.get("_seq").is_some()));
    let last_seq = items
        .last()
        .map_or(2, |item| item["_seq"].as_u64().expect("seq"));
    assert_eq!(terminal["ok"], false);
    assert_eq!(terminal["error"]["code"], "CANCELLED");
    assert_eq!(terminal["data"]["partial"], true);
    assert_eq!(terminal["meta"]["exit_code"], 130);
    assert_eq!(terminal["meta"]["items_emitted"], last_seq);
}

#[test]
fn follow_runs_until_sigint() {
    let sandbox = Sandbox::new();
    let mut live = Live::spawn(sandbox.std_cmd(&["events", "--follow"]));
    assert_eq!(live.line().expect("an event")["_seq"], 1);
    live.interrupt();
    let (rest, status) = live.finish();
    assert_eq!(status.code(), Some(130));
    assert_eq!(rest.last().expect("terminal")["error"]["code"], "CANCELLED");
}

#[test]
fn broken_pipe_ends_a_stream_quietly() {
    let sandbox = Sandbox::new();
    let mut live = Live::spawn(sandbox.std_cmd(&["deployments", "list", "--stream"]));
    assert!(live.line().is_some());
    let Live { mut child, lines } = live;
    drop(lines); // the reader goes away, like `| head -1`
    let status = wait_bounded(&mut child);
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        std::io::Read::read_to_string(&mut pipe, &mut stderr).expect("stderr");
    }
    assert_eq!(status.code(), Some(0));
    assert_eq!(stderr, "");
}

#[test]
fn an_open_silent_stdin_is_never_read() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.std_cmd(&["deployments", "list"]);
    cmd.stdin(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let _held_open = child.stdin.take();
    let status = wait_bounded(&mut child);
    assert_eq!(status.code(), Some(0));
}

// --- manifest (REQ-O-041) -----------------------------------------------------

#[test]
fn manifest_describes_every_command_with_a_stable_etag() {
    let sandbox = Sandbox::new();
    let first = sandbox.run(&["manifest"]).envelope();
    let second = sandbox.run(&["manifest"]).envelope();
    let manifest = &first["data"];
    assert_eq!(manifest["etag"], second["data"]["etag"]);
    assert!(manifest["schema_version"]
        .as_str()
        .is_some_and(|v| v.starts_with("3.")));
    assert_eq!(
        manifest["flags"]["format"]["enum_values"],
        json!(["json", "plain"])
    );
    let commands = manifest["commands"].as_object().expect("commands");
    for key in [
        "deployments",
        "deployments.list",
        "deployments.get",
        "deployments.delete",
        "events",
        "health",
        "manifest",
    ] {
        let entry = &commands[key];
        for field in [
            "description",
            "danger_level",
            "required_scopes",
            "flags",
            "exit_codes",
        ] {
            assert!(entry.get(field).is_some(), "{key}.{field}");
        }
        for (code, exit) in entry["exit_codes"].as_object().expect("exit codes") {
            assert!(code.parse::<u8>().is_ok());
            if exit["retryable"] == true {
                assert_eq!(exit["side_effects"], "none");
            }
        }
    }
    assert_eq!(
        commands["deployments.delete"]["danger_level"],
        "destructive"
    );
    assert!(commands["deployments.delete"]["flags"]["dry-run"].is_object());
    assert_eq!(commands["deployments.list"]["danger_level"], "safe");
    assert!(commands["deployments.list"]["flags"]["stream"].is_object());
    assert_eq!(
        commands["deployments.list"]["positionals"][0]["name"],
        "env"
    );
    assert_eq!(commands["events"]["streaming_default"], true);

    let etag = manifest["etag"].as_str().expect("etag");
    let cached = sandbox.run(&["manifest", "--etag", etag]).envelope();
    assert_eq!(cached["data"], Value::Null);
    assert_eq!(cached["meta"]["not_modified"], true);
}

// --- defect switches -------------------------------------------------------------

#[test]
fn unknown_defect_name_is_an_input_error() {
    let sandbox = Sandbox::new();
    let run = Run::from(sandbox.with_defect("no-such-defect", &["health"]));
    assert_eq!(run.code, 2);
    assert_eq!(run.envelope()["error"]["code"], "INVALID_DEFECT");
}

#[test]
fn defect_exit_codes() {
    let sandbox = Sandbox::new();
    let unknown = ["deployments", "list", "--no-such-flag"];

    let exit_1 = Run::from(sandbox.with_defect("unknown-flag-exit-1", &unknown));
    assert_eq!(exit_1.code, 1);
    assert_eq!(exit_1.envelope()["meta"]["exit_code"], 1);

    let exit_64 = Run::from(sandbox.with_defect("usage-error-exit-64", &unknown));
    assert_eq!(exit_64.code, 64);

    let mismatch = Run::from(sandbox.with_defect("envelope-exit-code-mismatch", &unknown));
    assert_eq!(mismatch.code, 2);
    let envelope: Value = serde_json::from_str(mismatch.stdout.trim()).expect("JSON");
    assert_eq!(envelope["meta"]["exit_code"], 1);
}

#[test]
fn defect_output_shapes() {
    let sandbox = Sandbox::new();
    let plain = Run::from(sandbox.with_defect("json-needs-format-flag", &["deployments", "list"]));
    assert!(plain.stdout.starts_with("ID "));

    let missing = Run::from(sandbox.with_defect("envelope-missing-warnings", &["health"]));
    let envelope: Value = serde_json::from_str(missing.stdout.trim()).expect("JSON");
    assert!(envelope.get("warnings").is_none());

    let ansi = Run::from(sandbox.with_defect("ansi-when-piped", &["health"]));
    assert!(ansi.stdout.contains("\x1b["));
    let mut ansi_no_color = sandbox.with_defect("ansi-when-piped", &["health"]);
    ansi_no_color.env("NO_COLOR", "1");
    assert!(!Run::from(ansi_no_color).stdout.contains('\x1b'));

    let mut stderr_color = sandbox.with_defect(
        "stderr-color-ignores-no-color",
        &["deployments", "get", "x"],
    );
    stderr_color.env("NO_COLOR", "1");
    assert!(Run::from(stderr_color).stderr.contains("\x1b["));

    let help = Run::from(sandbox.with_defect("help-on-stdout", &["--help"]));
    assert!(help.stdout.starts_with("democli - "));
}

#[test]
fn validate_refuses_a_payload_over_its_cap_unless_the_defect_reads_it_all() {
    let sandbox = Sandbox::new();
    let payload = format!(r#"{{"pad":"{}"}}"#, "x".repeat(65536));
    let mut cmd = sandbox.cmd(&["deployments", "validate"]);
    cmd.write_stdin(payload.clone());
    let refused = Run::from(cmd);
    assert_eq!(refused.code, 2);
    assert_eq!(refused.envelope()["error"]["code"], "STDIN_TOO_LARGE");
    let mut cmd = sandbox.with_defect("stdin-unbounded", &["deployments", "validate"]);
    cmd.write_stdin(payload);
    let taken = Run::from(cmd);
    assert_eq!(taken.code, 0, "{}", taken.stderr);
    assert_eq!(taken.envelope()["data"]["keys"], json!(["pad"]));
}

#[test]
fn defect_reads_stdin_takes_ids_from_a_pipe() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.with_defect("reads-stdin", &["deployments", "list"]);
    cmd.write_stdin("dep-002\ndep-009\n");
    let run = Run::from(cmd);
    assert_eq!(ids(&run.envelope()["data"]), ["dep-002", "dep-009"]);
}

#[test]
fn defect_destructive_behaviors() {
    let sandbox = Sandbox::new();
    let delete = ["deployments", "delete", "--filter", "env=dev"];
    let deleted = Run::from(sandbox.with_defect("deletes-unconfirmed", &delete));
    assert_eq!(deleted.code, 0);
    assert_eq!(deleted.envelope()["data"]["effect"], "deleted");

    let mut prompted = sandbox.with_defect("prompts-before-delete", &delete);
    prompted.write_stdin("n\n");
    let prompted = Run::from(prompted);
    assert_eq!(prompted.code, 1);
    assert!(prompted.stderr.contains("[y/N]"));

    let preview = [
        "deployments",
        "delete",
        "--filter",
        "env=staging",
        "--dry-run",
    ];
    let revisions: Vec<Value> = (0..2)
        .map(|_| {
            Run::from(sandbox.with_defect("dry-run-writes", &preview)).envelope()["data"]
                ["revision"]
                .clone()
        })
        .collect();
    assert_ne!(revisions[0], revisions[1], "each preview wrote the file");

    let nonzero = Run::from(sandbox.with_defect("dry-run-exits-nonzero", &preview));
    assert_eq!(nonzero.code, 1);
    assert_eq!(nonzero.envelope()["data"]["effect"], "would_delete");

    let manifest = Run::from(sandbox.with_defect("delete-declared-safe", &["manifest"]));
    assert_eq!(
        manifest.envelope()["data"]["commands"]["deployments.delete"]["danger_level"],
        "safe"
    );
}

#[test]
fn defect_argument_order() {
    let sandbox = Sandbox::new();
    let late_format = Run::from(sandbox.with_defect(
        "global-flag-before-command-only",
        &["deployments", "list", "--format", "json"],
    ));
    assert_eq!(late_format.code, 2);

    let last_wins = Run::from(sandbox.with_defect(
        "duplicate-flag-last-wins",
        &["--format", "json", "health", "--format", "plain"],
    ));
    assert_eq!(last_wins.code, 0);
    assert!(last_wins.stdout.starts_with("ok "));

    let swallowed = Run::from(sandbox.with_defect(
        "option-after-positional-ignored",
        &["deployments", "list", "staging", "--cursor", "cGFnZTI="],
    ));
    let alone = sandbox.run(&["deployments", "list", "staging"]);
    assert_eq!(swallowed.envelope()["data"], alone.envelope()["data"]);
}

#[test]
fn defect_data_and_metadata_of_a_list() {
    let sandbox = Sandbox::new();
    let list = ["deployments", "list"];
    let mut narrow = sandbox.with_defect("wraps-data-at-columns", &list);
    narrow.env("COLUMNS", "40");
    assert_eq!(Run::from(narrow).envelope()["data"][0]["id"], "dep-00\n1");
    let wide = Run::from(sandbox.with_defect("wraps-data-at-columns", &list));
    assert_eq!(wide.envelope()["data"][0]["id"], "dep-001");

    let page = Run::from(sandbox.with_defect("pagination-returned-total", &list)).envelope();
    assert_eq!(ids(&page["data"]).len(), 5);
    assert_eq!(page["meta"]["pagination"]["returned"], 20);

    let mut debug = sandbox.with_defect("debug-env-on-stderr", &list);
    debug.env("DEBUG", "1");
    assert!(Run::from(debug).stderr.contains("democli: debug: "));
    let quiet = Run::from(sandbox.with_defect("debug-env-on-stderr", &list));
    assert_eq!(quiet.stderr, "");

    let looked_up = Run::from(sandbox.with_defect(
        "env-substring-match",
        &["deployments", "list", "../staging"],
    ));
    assert_eq!(looked_up.code, 0);
    assert_eq!(looked_up.envelope()["data"], json!([]));

    let manifest = Run::from(sandbox.with_defect("output-schema-says-object", &["manifest"]));
    let commands = &manifest.envelope()["data"]["commands"];
    assert_eq!(
        commands["deployments.list"]["output_schema"]["type"],
        "object"
    );
}

/// An agent's sandbox: fresh, empty HOME and config directory, no token.
fn headless(sandbox: &Sandbox, dirs: &TempDir, args: &[&str]) -> StdCommand {
    let mut cmd = sandbox.std_cmd(args);
    cmd.env("DEMOCLI_DEFECT", "waits-for-device-code")
        .env("HOME", dirs.path())
        .env("XDG_CONFIG_HOME", dirs.path().join(".config"));
    cmd
}

#[test]
fn defect_device_code_waits_only_on_an_open_silent_pipe() {
    let sandbox = Sandbox::new();
    let dirs = tempfile::tempdir().expect("HOME");
    let list = ["deployments", "list"];

    let mut waiting = headless(&sandbox, &dirs, &list);
    waiting.stdin(Stdio::piped());
    let mut child = waiting.spawn().expect("spawn");
    let stdin = child.stdin.take();
    let mut stderr = child.stderr.take().expect("stderr pipe");
    let mut said = Vec::new();
    let mut chunk = [0u8; 256];
    while !String::from_utf8_lossy(&said).contains("paste the code") {
        let read = std::io::Read::read(&mut stderr, &mut chunk).expect("stderr");
        assert!(read > 0, "no prompt: {}", String::from_utf8_lossy(&said));
        said.extend_from_slice(&chunk[..read]);
    }
    drop(stdin); // EOF: nobody pastes a code
    let status = wait_bounded(&mut child);
    assert_eq!(status.code(), Some(8));
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().expect("stdout"), &mut stdout)
        .expect("stdout");
    let error: Value = serde_json::from_str(stdout.trim()).expect("an envelope");
    assert_eq!(error["error"]["code"], "UNAUTHENTICATED");
    assert!(error["error"]["fix_required"]
        .as_str()
        .is_some_and(|fix| fix.contains("DEMOCLI_TOKEN")));

    // A closed stdin, a token or a login file: no wait.
    let closed = headless(&sandbox, &dirs, &list).output().expect("run");
    assert_eq!(closed.status.code(), Some(0));
    let mut token = headless(&sandbox, &dirs, &list);
    token.env("DEMOCLI_TOKEN", "t").stdin(Stdio::piped());
    let mut child = token.spawn().expect("spawn");
    let _held_open = child.stdin.take();
    assert_eq!(wait_bounded(&mut child).code(), Some(0));

    let manifest = Run::from(sandbox.with_defect("waits-for-device-code", &["manifest"]));
    assert_eq!(
        manifest.envelope()["data"]["secret_env_vars"],
        json!(["DEMOCLI_TOKEN"])
    );
}

/// The launcher gives ordinary runs the login of the person running the kit.
#[test]
fn device_code_launcher_is_logged_in_outside_a_sandbox() {
    let sandbox = Sandbox::new();
    let path = repo_root().join("benchmark/harness/cli/bad/waits-for-device-code");
    let mut cmd = launcher(&path, &sandbox, &["deployments", "list"]);
    cmd.stdin(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let _held_open = child.stdin.take();
    assert_eq!(wait_bounded(&mut child).code(), Some(0));
}

#[test]
fn defect_stream_framing() {
    let sandbox = Sandbox::new();
    let gap = Run::from(sandbox.with_defect(
        "stream-seq-gap",
        &["deployments", "list", "staging", "--stream"],
    ));
    let seqs: Vec<Value> = stream_lines(&gap.stdout)
        .iter()
        .filter_map(|line| line.get("_seq").cloned())
        .collect();
    assert_eq!(seqs[..3], [json!(1), json!(2), json!(4)]);

    let no_summary =
        Run::from(sandbox.with_defect("stream-no-summary", &["deployments", "list", "--stream"]));
    let lines = stream_lines(&no_summary.stdout);
    assert_eq!(lines.len(), 20);
    assert!(lines.iter().all(|line| line.get("_summary").is_none()));
}

#[test]
fn defect_sigint_exit_1() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.std_cmd(&["deployments", "list", "--stream"]);
    cmd.env("DEMOCLI_DEFECT", "sigint-exit-1");
    let mut live = Live::spawn(cmd);
    live.line().expect("line 1");
    live.interrupt();
    let (rest, status) = live.finish();
    assert_eq!(status.code(), Some(1));
    assert_eq!(rest.last().expect("terminal")["error"]["code"], "CANCELLED");
}

#[test]
fn defect_sigint_no_cancel_line() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.std_cmd(&["deployments", "list", "--stream"]);
    cmd.env("DEMOCLI_DEFECT", "sigint-no-cancel-line");
    let mut live = Live::spawn(cmd);
    live.line().expect("line 1");
    live.interrupt();
    let (rest, status) = live.finish();
    assert_eq!(status.code(), Some(130));
    assert!(rest.iter().all(|line| line.get("error").is_none()));
}

// --- launchers and the broken-CLI corpus ----------------------------------------------

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The target directory this test binary's democli was built into, so the launcher
/// finds the same build whatever CARGO_TARGET_DIR the developer uses.
fn target_dir() -> PathBuf {
    Path::new(BIN)
        .parent()
        .and_then(Path::parent)
        .expect("<target>/<profile>/democli")
        .to_path_buf()
}

fn launcher(path: &Path, sandbox: &Sandbox, args: &[&str]) -> StdCommand {
    let mut cmd = StdCommand::new(path);
    for name in CLEARED {
        cmd.env_remove(name);
    }
    cmd.env("CARGO_TARGET_DIR", target_dir())
        .env("DEMOCLI_HOME", sandbox.home.path())
        .current_dir(std::env::temp_dir())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

#[test]
fn good_launcher_execs_democli_so_signals_reach_it() {
    let sandbox = Sandbox::new();
    let good = repo_root().join("benchmark/harness/cli/good/democli");
    let mut live = Live::spawn(launcher(&good, &sandbox, &["events", "--follow"]));
    live.line().expect("an event");
    // The launcher's pid is democli's pid: the signal goes straight to democli.
    live.interrupt();
    let (rest, status) = live.finish();
    assert_eq!(status.code(), Some(130));
    assert_eq!(rest.last().expect("terminal")["error"]["code"], "CANCELLED");
}

#[test]
fn good_launcher_explains_a_missing_build() {
    let sandbox = Sandbox::new();
    let good = repo_root().join("benchmark/harness/cli/good/democli");
    let empty = tempfile::tempdir().expect("tempdir");
    let mut cmd = launcher(&good, &sandbox, &["health"]);
    cmd.env("CARGO_TARGET_DIR", empty.path());
    let output = cmd.output().expect("run");
    assert_eq!(output.status.code(), Some(69));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cargo build --release"));
}

const CHECKS: &[&str] = &[
    "no_hang_stdin_closed",
    "no_hang_stdin_open",
    "json_envelope",
    "exit_code_contract",
    "stdout_no_ansi",
    "no_color_honored",
    "help_off_stdout",
    "invalid_input_exit_2",
    "dry_run_preview",
    "destructive_refuses_unconfirmed",
    "manifest_valid",
    "argument_order",
    "stream_contract",
    "stream_sigint",
    "profile_consistency",
    "dry_run_stable",
    "pager_not_invoked",
    "editor_not_invoked",
    "browser_not_launched",
    "tty_no_color",
    "help_version_pure",
    "invalid_input_no_side_effects",
    "unknown_command_exit_2",
    "locale_invariant",
    "pipes_closed_on_exit",
    "error_detail",
    "exit_codes_declared",
    "sigterm_handled",
    "sigpipe_quiet",
    "bare_no_repl",
    "lf_line_endings",
    "meta_versions",
    "ci_terminal_json",
    "width_invariant",
    "pagination_contract",
    "generic_env_ignored",
    "output_schema_valid",
    "headless_auth",
    "hallucinated_input_rejected",
    "output_size_cap",
    "timeout_flag",
    "network_timeout",
    "no_self_update",
    "debug_no_secret_leak",
    "secret_not_echoed",
    "secret_flags_have_alternative",
    "shell_metachar_inert",
    "stdin_payload_bounded",
];

#[test]
fn every_broken_cli_has_a_profile_and_expected_failures() {
    let root = repo_root();
    let bad = root.join("benchmark/harness/cli/bad");
    let profiles = root.join("conformance/profiles/bad");
    // A broken CLI's profile is one of democli's own, the seed or the full one, with
    // its launcher as the command.
    let good_profiles: Vec<Value> = ["democli.json", "democli-full.json"]
        .iter()
        .map(|file| {
            serde_json::from_str(
                &std::fs::read_to_string(root.join("conformance/profiles").join(file))
                    .expect("read"),
            )
            .expect("JSON")
        })
        .collect();
    let mut covered = std::collections::BTreeSet::new();
    let mut count = 0;
    for entry in std::fs::read_dir(&bad).expect("bad launchers") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("UTF-8 name")
            .to_owned();
        count += 1;

        let script = std::fs::read_to_string(&path).expect("launcher");
        assert!(script.starts_with("#!/bin/sh\n"), "{name}");
        assert!(
            script.contains(&format!("DEMOCLI_DEFECT={name}\n")),
            "{name}"
        );
        assert!(script.contains("exec "), "{name}");
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).expect("metadata").permissions(),
        );
        assert!(mode & 0o111 != 0, "{name} is executable");

        let profile: Value = serde_json::from_str(
            &std::fs::read_to_string(profiles.join(format!("{name}.json"))).expect("profile"),
        )
        .expect("JSON");
        let command = json!([format!("../../../benchmark/harness/cli/bad/{name}")]);
        assert!(
            good_profiles.iter().any(|good| {
                let mut same = good.clone();
                same["command"] = command.clone();
                profile == same
            }),
            "{name}: one of democli's profiles but for its command"
        );

        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(profiles.join(format!("expected/{name}.json")))
                .expect("expected"),
        )
        .expect("JSON");
        assert!(expected["defect"]
            .as_str()
            .is_some_and(|d| !d.contains('\n')));
        let fails = expected["fail"].as_array().expect("fail list");
        // A broken CLI either fails something or names what it must not fail: a cause
        // that looks like a defect but is another check's subject.
        let must_not_fail = expected["must_not_fail"]
            .as_array()
            .map_or(0, |list| list.len());
        assert!(
            !fails.is_empty() || must_not_fail > 0,
            "{name} fails something or names what it must not fail"
        );
        for check in expected["must_not_fail"].as_array().into_iter().flatten() {
            let check = check.as_str().expect("check id");
            assert!(CHECKS.contains(&check), "{name}: {check}");
        }
        for check in fails {
            let check = check.as_str().expect("check id");
            assert!(CHECKS.contains(&check), "{name}: {check}");
            covered.insert(check.to_owned());
        }

        // The launcher really switches the binary into its defect: the name is known.
        let sandbox = Sandbox::new();
        let mut cmd = sandbox.std_cmd(&["health"]);
        cmd.env("DEMOCLI_DEFECT", &name);
        let output = cmd.output().expect("run");
        assert_ne!(output.status.code(), Some(2), "{name} is a known defect");
    }
    assert!(count >= CHECKS.len());
    let missing: Vec<&&str> = CHECKS.iter().filter(|c| !covered.contains(**c)).collect();
    assert!(
        missing.is_empty(),
        "checks no broken CLI fails: {missing:?}"
    );
}

#[test]
fn deleting_defect_launcher_uses_a_fresh_data_directory() {
    let root = repo_root();
    let launcher_path = root.join("benchmark/harness/cli/bad/deletes-unconfirmed");
    let tmp = tempfile::tempdir().expect("TMPDIR");
    let fake_home = tempfile::tempdir().expect("HOME");
    let run = |args: &[&str]| {
        let mut cmd = StdCommand::new(&launcher_path);
        for name in CLEARED {
            cmd.env_remove(name);
        }
        cmd.env("CARGO_TARGET_DIR", target_dir())
            .env("TMPDIR", tmp.path())
            .env("HOME", fake_home.path())
            .env_remove("XDG_DATA_HOME")
            .args(args)
            .stdin(Stdio::null());
        cmd.output().expect("run").status.code()
    };
    let entries = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .expect("readable")
            .map(|entry| entry.expect("entry").path())
            .collect()
    };

    // A run that cannot reach `deployments delete` needs no private directory.
    assert_eq!(run(&["deployments", "list"]), Some(0));
    assert!(entries(tmp.path()).is_empty());

    assert_eq!(
        run(&["deployments", "delete", "--filter", "env=staging"]),
        Some(0),
        "the defect deletes unconfirmed"
    );
    let homes = entries(tmp.path());
    assert_eq!(homes.len(), 1);
    assert!(homes[0].join("deployments.json").exists());
    assert!(
        entries(fake_home.path()).is_empty(),
        "the user's data directory is untouched"
    );
}

#[test]
fn stdin_is_never_a_prompt_when_deleting() {
    // The reference CLI refuses instead of asking, whatever stdin holds.
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd(&["deployments", "delete", "--filter", "env=dev"]);
    cmd.write_stdin("yes\n");
    let run = Run::from(cmd);
    assert_eq!(run.code, 2);
    assert!(!sandbox.data_file().exists());
}

// --- network I/O and --timeout (REQ-C-012, REQ-F-012) -----------------------------

const PROXY_VARS: [&str; 6] = [
    "https_proxy",
    "HTTPS_PROXY",
    "http_proxy",
    "HTTP_PROXY",
    "all_proxy",
    "ALL_PROXY",
];

/// A proxy on 127.0.0.1 that accepts connections and answers each with `reply`, or
/// never answers when `reply` is `None`. It hands every request line it reads to the
/// test, and holds the connections open until dropped.
struct FakeProxy {
    url: String,
    requests: std::sync::mpsc::Receiver<String>,
}

impl FakeProxy {
    fn start(reply: Option<&'static str>) -> FakeProxy {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a local port");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let (sender, requests) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for mut stream in listener.incoming().map_while(Result::ok) {
                let mut line = Vec::new();
                let mut byte = [0u8; 1];
                while stream.read(&mut byte).is_ok_and(|n| n == 1) && byte[0] != b'\n' {
                    line.push(byte[0]);
                }
                if sender
                    .send(String::from_utf8_lossy(&line).trim_end().to_owned())
                    .is_err()
                {
                    return;
                }
                if let Some(reply) = reply {
                    let _ = stream.write_all(reply.as_bytes());
                }
                held.push(stream);
            }
        });
        FakeProxy { url, requests }
    }

    /// The first line of the next request the proxy received.
    fn request(&self) -> String {
        self.requests
            .recv_timeout(LIMIT)
            .expect("democli connected to the proxy")
    }
}

fn releases(sandbox: &Sandbox, env: &[(&str, &str)], args: &[&str]) -> Run {
    let mut cmd = sandbox.cmd(&["releases"]);
    cmd.args(args);
    for (name, value) in env {
        cmd.env(name, value);
    }
    Run::from(cmd)
}

#[test]
fn releases_answers_offline_without_a_proxy() {
    let sandbox = Sandbox::new();
    let run = releases(&sandbox, &[], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let envelope = run.envelope();
    assert_eq!(envelope["data"]["source"], "local");
    assert_eq!(envelope["warnings"], json!([]));
    let services: Vec<&str> = envelope["data"]["releases"]
        .as_array()
        .expect("releases")
        .iter()
        .filter_map(|r| r["service"].as_str())
        .collect();
    assert_eq!(services, ["api", "billing", "web", "worker"]);
}

#[test]
fn a_silent_proxy_ends_releases_with_exit_10_timeout_after_the_timeout() {
    let proxy = FakeProxy::start(None);
    let sandbox = Sandbox::new();
    let every: Vec<(&str, &str)> = PROXY_VARS
        .iter()
        .map(|name| (*name, proxy.url.as_str()))
        .collect();
    let run = releases(&sandbox, &every, &["--timeout", "1s"]);
    assert_eq!(
        proxy.request(),
        "CONNECT registry.democli.invalid:443 HTTP/1.1"
    );
    assert_eq!(run.code, 10, "{}", run.stderr);
    let envelope = run.envelope();
    assert_eq!(envelope["error"]["code"], "TIMEOUT");
    assert_eq!(envelope["error"]["retryable"], true);
    assert!(
        envelope["meta"]["duration_ms"].as_u64() >= Some(1000),
        "it waited the whole second: {envelope}"
    );
    // Declared as the manifest says: retryable, nothing changed.
    let manifest = sandbox.run(&["manifest"]).envelope();
    let declared = &manifest["data"]["commands"]["releases"];
    assert_eq!(declared["has_network_io"], true);
    assert_eq!(declared["flags"]["timeout"]["default"], "1s");
    assert_eq!(declared["exit_codes"]["10"]["name"], "TIMEOUT");
    assert_eq!(declared["exit_codes"]["10"]["retryable"], true);
    assert_eq!(declared["exit_codes"]["10"]["side_effects"], "none");
}

#[test]
fn without_a_timeout_flag_a_silent_proxy_ends_releases_at_the_default_timeout() {
    let proxy = FakeProxy::start(None);
    let sandbox = Sandbox::new();
    let run = releases(&sandbox, &[("HTTPS_PROXY", &proxy.url)], &[]);
    assert!(proxy.request().starts_with("CONNECT "));
    // The default (1s) ends the wait, well inside the 5 s an agent's harness allows.
    assert_eq!(run.code, 10, "{}", run.stderr);
    let envelope = run.envelope();
    assert_eq!(envelope["error"]["code"], "TIMEOUT");
    assert_eq!(envelope["error"]["retryable"], true);
    assert_eq!(envelope["error"]["context"]["timeout_ms"], 1000);
}

#[test]
fn defect_update_notice_in_ci_names_a_newer_version_on_stderr_but_not_for_version() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd(&["deployments", "list"]);
    cmd.env("DEMOCLI_DEFECT", "update-notice-in-ci")
        .env("CI", "true");
    let run = Run::from(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("a new version 9.9.9 is available"),
        "{}",
        run.stderr
    );
    let mut cmd = sandbox.cmd(&["--version"]);
    cmd.env("DEMOCLI_DEFECT", "update-notice-in-ci");
    let run = Run::from(cmd);
    assert!(!run.stderr.contains("9.9.9"), "{}", run.stderr);
}

#[test]
fn each_proxy_variable_is_honoured_alone() {
    let proxy = FakeProxy::start(None);
    let sandbox = Sandbox::new();
    for name in PROXY_VARS {
        let run = releases(&sandbox, &[(name, &proxy.url)], &["--timeout", "200ms"]);
        assert!(proxy.request().starts_with("CONNECT "), "{name}");
        assert_eq!(run.code, 10, "{name}: {}", run.stderr);
        assert_eq!(run.envelope()["error"]["code"], "TIMEOUT", "{name}");
    }
}

#[test]
fn no_proxy_exempts_the_registry() {
    let proxy = FakeProxy::start(None);
    let sandbox = Sandbox::new();
    for exempt in [
        "*",
        ".invalid",
        "registry.democli.invalid",
        "democli.invalid",
    ] {
        for name in ["NO_PROXY", "no_proxy"] {
            // Were the proxy used, the silent one would end this in TIMEOUT.
            let run = releases(
                &sandbox,
                &[("HTTPS_PROXY", &proxy.url), (name, exempt)],
                &["--timeout", "200ms"],
            );
            assert_eq!(run.code, 0, "{name}={exempt}: {}", run.stderr);
            assert_eq!(run.envelope()["data"]["source"], "local");
        }
    }
}

#[test]
fn a_proxy_that_answers_or_refuses_leaves_a_warning_and_the_local_answer() {
    let sandbox = Sandbox::new();
    let answering = FakeProxy::start(Some(
        "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n",
    ));
    let run = releases(&sandbox, &[("HTTPS_PROXY", &answering.url)], &[]);
    assert_eq!(
        answering.request(),
        "CONNECT registry.democli.invalid:443 HTTP/1.1"
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let envelope = run.envelope();
    assert_eq!(envelope["data"]["source"], "local");
    assert_eq!(envelope["warnings"][0]["code"], "REGISTRY_UNAVAILABLE");
    let message = envelope["warnings"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("502 Bad Gateway"), "{message}");

    // A port nothing listens on any more: the connection is refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port");
    let run = releases(
        &sandbox,
        &[("HTTPS_PROXY", &format!("http://{closed}"))],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.envelope()["warnings"][0]["code"],
        "REGISTRY_UNAVAILABLE"
    );
}

#[test]
fn an_unusable_proxy_or_timeout_is_refused() {
    let sandbox = Sandbox::new();
    for value in [
        "socks5://127.0.0.1:1080",
        "https://127.0.0.1:1",
        "http://:8080",
    ] {
        let run = releases(&sandbox, &[("ALL_PROXY", value)], &[]);
        assert_eq!(run.code, 4, "{value}");
        assert_eq!(run.envelope()["error"]["code"], "INVALID_PROXY", "{value}");
    }
    for value in ["1.5s", "-1", "1h", "soon"] {
        let run = releases(&sandbox, &[], &["--timeout", value]);
        assert_eq!(run.code, 2, "{value}");
        assert_eq!(run.envelope()["error"]["code"], "INVALID_VALUE", "{value}");
    }
}

// --- output size cap (REQ-F-052) ---------------------------------------------------

fn capped(sandbox: &Sandbox, name: &str, bytes: usize, args: &[&str]) -> Run {
    let mut cmd = sandbox.cmd(args);
    cmd.env(name, bytes.to_string());
    Run::from(cmd)
}

/// `run` exited 0 within `cap` bytes, keeping the first items (some, not all 20) of
/// `whole`'s list: its envelope.
fn assert_first_items_within(run: &Run, whole: &Value, cap: usize) -> Value {
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.len() <= cap,
        "{} bytes over {cap}",
        run.stdout.len()
    );
    let cut = run.envelope();
    let kept = cut["data"].as_array().expect("a list").len();
    assert!(kept > 0 && kept < 20, "{kept}");
    assert_eq!(
        cut["data"].as_array().map(Vec::as_slice),
        whole["data"].as_array().map(|all| &all[..kept])
    );
    cut
}

#[test]
fn max_output_bytes_drops_list_items_from_the_end() {
    let sandbox = Sandbox::new();
    let args = ["events", "--no-stream"];
    let full = sandbox.run(&args);
    let whole = full.envelope();
    let cap = full.stdout.len() / 2;
    let run = capped(&sandbox, "DEMOCLI_MAX_OUTPUT_BYTES", cap, &args);
    let cut = assert_first_items_within(&run, &whole, cap);
    let kept = cut["data"].as_array().map_or(0, Vec::len);
    let meta = &cut["meta"];
    assert_eq!(meta["truncated"], true);
    assert!(meta["truncation_hint"]
        .as_str()
        .is_some_and(|hint| !hint.is_empty()));
    assert_eq!(meta["returned_count"], kept);
    assert_eq!(meta["total_count"], 20);
    assert_eq!(meta["pagination"]["returned"], kept);

    // Only the prefixed name counts: an unprefixed one may be meant for another tool.
    for name in ["TOOL_MAX_OUTPUT_BYTES", "MAX_OUTPUT_BYTES"] {
        let run = capped(&sandbox, name, cap, &args);
        assert_eq!(run.envelope()["data"], whole["data"], "{name}");
    }
}

#[test]
fn a_cut_page_hands_out_a_cursor_for_exactly_the_rest() {
    let sandbox = Sandbox::new();
    let all = sandbox
        .run(&["deployments", "list", "--limit", "20"])
        .envelope();
    let first = sandbox.run(&["deployments", "list", "--limit", "10"]);
    let run = capped(
        &sandbox,
        "DEMOCLI_MAX_OUTPUT_BYTES",
        first.stdout.len() / 2,
        &["deployments", "list", "--limit", "10"],
    );
    let cut = run.envelope();
    let kept = ids(&cut["data"]);
    let pagination = &cut["meta"]["pagination"];
    assert_eq!(pagination["has_more"], true);
    assert_eq!(pagination["returned"], kept.len());
    let cursor = pagination["next_cursor"].as_str().expect("a cursor");
    let hint = cut["meta"]["truncation_hint"].as_str().unwrap_or_default();
    assert!(hint.contains(cursor), "{hint}");
    let rest = sandbox
        .run(&["deployments", "list", "--limit", "20", "--cursor", cursor])
        .envelope();
    let mut joined = kept;
    joined.extend(ids(&rest["data"]));
    assert_eq!(joined, ids(&all["data"]));
}

#[test]
fn defect_truncates_silently_cuts_the_list_without_saying_so() {
    let sandbox = Sandbox::new();
    let args = ["events", "--no-stream"];
    let full = sandbox.run(&args);
    let whole = full.envelope();
    let cap = full.stdout.len() / 2;
    let mut cmd = sandbox.with_defect("truncates-silently", &args);
    cmd.env("DEMOCLI_MAX_OUTPUT_BYTES", cap.to_string());
    let run = Run::from(cmd);
    let cut = assert_first_items_within(&run, &whole, cap);
    // Items are gone, and nothing in meta says so.
    let meta = cut["meta"].as_object().expect("meta");
    for indicator in [
        "truncated",
        "truncation_hint",
        "returned_count",
        "total_count",
    ] {
        assert!(!meta.contains_key(indicator), "{indicator}: {meta:?}");
    }
}

#[test]
fn defect_timeout_ignored_behind_proxy_waits_past_the_timeout() {
    let proxy = FakeProxy::start(None);
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.std_cmd(&["releases", "--timeout", "1s"]);
    cmd.env("DEMOCLI_DEFECT", "timeout-ignored-behind-proxy")
        .env("HTTPS_PROXY", &proxy.url);
    let started = Instant::now();
    let mut child = cmd.spawn().expect("spawn");
    assert_eq!(
        proxy.request(),
        "CONNECT registry.democli.invalid:443 HTTP/1.1"
    );
    // Showing that an exit does not come needs time to pass: the reference exits 10
    // at its 1 s timeout, and conform allows 2 s more.
    let past_the_timeout = Duration::from_secs(3);
    std::thread::sleep(past_the_timeout.saturating_sub(started.elapsed()));
    let still_running = child.try_wait().expect("wait").is_none();
    let pid = i32::try_from(child.id()).expect("pid fits");
    kill(Pid::from_raw(pid), Signal::SIGINT).expect("send SIGINT");
    let status = wait_bounded(&mut child);
    assert!(still_running, "it exited ({status}) within its timeout");
    assert_eq!(status.code(), Some(130));
    let mut stdout = String::new();
    if let Some(mut pipe) = child.stdout.take() {
        std::io::Read::read_to_string(&mut pipe, &mut stdout).expect("stdout");
    }
    let envelope: Value = serde_json::from_str(stdout.trim_end()).expect("an envelope");
    assert_eq!(envelope["error"]["code"], "CANCELLED");
}

#[test]
fn a_bad_max_output_bytes_is_an_input_error() {
    let sandbox = Sandbox::new();
    for value in ["0", "-5", "lots"] {
        let mut cmd = sandbox.cmd(&["deployments", "list"]);
        cmd.env("DEMOCLI_MAX_OUTPUT_BYTES", value);
        let run = Run::from(cmd);
        assert_eq!(run.code, 2, "{value}");
        assert_eq!(
            run.envelope()["error"]["code"],
            "INVALID_ENV_VAR",
            "{value}"
        );
    }
}

// --- resource IDs validated before use (REQ-F-045, REQ-F-015) --------------------------

#[test]
fn hallucinated_resource_ids_exit_2_before_anything_is_read() {
    let sandbox = Sandbox::new();
    for args in [
        &["deployments", "list", "../staging"][..],
        &["deployments", "list", "..%2fstaging"],
        &["deployments", "list", "%2e%2e%2fstaging"],
        &["deployments", "list", "staging?foo=bar"],
        &["deployments", "list", "staging#frag"],
        &["deployments", "get", "../dep-001"],
        &["deployments", "get", "dep-001#x"],
    ] {
        let run = sandbox.run(args);
        assert_eq!(run.code, 2, "{args:?}: a lookup would exit 5");
        let envelope = run.envelope();
        assert_eq!(envelope["error"]["code"], "INVALID_ARGUMENT", "{args:?}");
        assert_eq!(envelope["error"]["phase"], "validation", "{args:?}");
    }
    let left: Vec<_> = std::fs::read_dir(sandbox.home.path())
        .expect("the data directory")
        .collect();
    assert!(left.is_empty(), "nothing written: {left:?}");
    let manifest = sandbox.run(&["manifest"]).envelope();
    let env = &manifest["data"]["commands"]["deployments.list"]["positionals"][0];
    assert_eq!(env["type"], "enum");
    assert_eq!(env["enum_values"], json!(["dev", "production", "staging"]));
}

// --- output_schema (REQ-C-015) -------------------------------------------------------

/// Every `$ref` in `schema`, at any depth.
fn refs(schema: &Value, found: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => found.push(target.clone()),
                    _ => refs(value, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, found)),
        _ => {}
    }
}

#[test]
fn every_command_declares_an_output_schema_its_data_validates_against() {
    let sandbox = Sandbox::new();
    let manifest = sandbox.run(&["manifest"]).envelope();
    let commands = manifest["data"]["commands"].as_object().expect("commands");
    let validators: std::collections::BTreeMap<&str, jsonschema::Validator> = commands
        .iter()
        .map(|(key, entry)| {
            let schema = &entry["output_schema"];
            assert_eq!(
                schema["$schema"], "http://json-schema.org/draft-07/schema#",
                "{key}"
            );
            let mut found = Vec::new();
            refs(schema, &mut found);
            assert!(
                found.iter().all(|r| r.starts_with("#/")),
                "{key}: only local $ref: {found:?}"
            );
            let validator = jsonschema::draft7::options()
                .should_validate_formats(true)
                .build(schema)
                .unwrap_or_else(|error| panic!("{key}: {error}"));
            (key.as_str(), validator)
        })
        .collect();
    let etag = manifest["data"]["etag"]
        .as_str()
        .expect("an etag")
        .to_owned();
    let runs: &[(&str, &[&str])] = &[
        ("deployments", &["deployments", "--help"]),
        ("deployments.list", &["deployments", "list", "staging"]),
        ("deployments.get", &["deployments", "get", "dep-007"]),
        (
            "deployments.delete",
            &["deployments", "delete", "--filter", "env=dev", "--dry-run"],
        ),
        (
            "deployments.delete",
            &["deployments", "delete", "--filter", "env=dev", "--yes"],
        ),
        ("events", &["events", "--no-stream"]),
        ("deployments.validate", &["deployments", "validate"]),
        ("health", &["health"]),
        ("manifest", &["manifest"]),
        ("manifest", &["manifest", "--etag", &etag]),
        ("releases", &["releases"]),
    ];
    let mut seen: Vec<&str> = Vec::new();
    for (key, args) in runs {
        let run = if *key == "deployments.validate" {
            let mut cmd = sandbox.cmd(args);
            cmd.write_stdin(r#"{"service":"api","version":"1.4.0"}"#);
            Run::from(cmd)
        } else {
            sandbox.run(args)
        };
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        let data = &run.envelope()["data"];
        let validator = validators
            .get(key)
            .unwrap_or_else(|| panic!("{key} is declared"));
        let errors: Vec<String> = validator
            .iter_errors(data)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{args:?}: {errors:?}");
        seen.push(key);
    }
    seen.dedup();
    assert_eq!(seen.len(), commands.len(), "every command was run");
    // A schema that tells something apart: the list's schema refuses one deployment.
    let list = validators.get("deployments.list").expect("declared");
    assert!(!list.is_valid(&json!({ "id": "dep-001" })));
}

// --- the agent's environment never changes the answer (REQ-F-056, REQ-F-073) ------------

#[test]
fn generic_variables_change_nothing() {
    let sandbox = Sandbox::new();
    for args in [
        &["deployments", "list"][..],
        &["releases"],
        &["events", "--no-stream"],
    ] {
        let plain = sandbox.run(args);
        let mut cmd = sandbox.cmd(args);
        for (name, value) in [
            ("COLUMNS", "40"),
            ("LINES", "5"),
            ("DEBUG", "1"),
            ("VERBOSE", "1"),
            ("LOG_LEVEL", "debug"),
            ("FORMAT", "plain"),
            ("OUTPUT", "plain"),
        ] {
            cmd.env(name, value);
        }
        let varied = Run::from(cmd);
        assert_eq!(varied.code, plain.code, "{args:?}");
        assert_eq!(varied.stderr, plain.stderr, "{args:?}");
        assert_eq!(
            varied.envelope()["data"],
            plain.envelope()["data"],
            "{args:?}"
        );
    }
}
