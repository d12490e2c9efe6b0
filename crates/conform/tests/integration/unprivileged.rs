//! The network namespace without root: conform run as an unprivileged user (tests
//! run as root in CI: they drop to `nobody` with `setpriv`) holds a Node `fetch`
//! at the black hole as root does, in a user namespace of its own; where user
//! namespaces are refused (simulated with `CONFORM_TEST_NO_USERNS`), every report
//! names the cause and the fix.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use serde_json::Value;
use tempfile::TempDir;

use crate::support::{EnvRemoveAll, DEVELOPER_ENV, HANG};

/// The uid and gid of `nobody`, whom a root test run becomes.
const NOBODY: u32 = 65534;

/// A place nobody can read and write: the fixture copied in (and conform's binary,
/// where nobody cannot reach it where it is), a HOME and a TMPDIR of nobody's own.
struct Stage {
    dir: TempDir,
    conform: PathBuf,
}

/// Whether every other user can run `path` where it is: every directory above it
/// searchable, the file readable and executable.
fn others_can_run(path: &Path) -> bool {
    let mode = |path: &Path| {
        std::fs::metadata(path)
            .map(|m| m.permissions().mode())
            .unwrap_or(0)
    };
    mode(path) & 0o005 == 0o005 && path.ancestors().skip(1).all(|dir| mode(dir) & 0o001 != 0)
}

impl Stage {
    fn new() -> Stage {
        let dir = tempfile::tempdir().expect("temp dir");
        let open = |path: &Path, mode: u32| {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod")
        };
        open(dir.path(), 0o755);
        let built = PathBuf::from(env!("CARGO_BIN_EXE_conform"));
        // A debug build is large: copied only where nobody could not run it.
        let conform = if others_can_run(&built) {
            built.clone()
        } else {
            dir.path().join("conform")
        };
        if built != conform {
            std::fs::copy(&built, &conform).expect("copy");
            open(&conform, 0o755);
        }
        for fixture in ["nodefetch", "serving"] {
            let to = dir.path().join(fixture);
            let from = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/check")
                .join(fixture);
            std::fs::copy(from, &to).expect("copy");
            open(&to, 0o755);
        }
        for own in ["home", "tmp", "work"] {
            let path = dir.path().join(own);
            std::fs::create_dir(&path).expect("mkdir");
            if nix::unistd::geteuid().is_root() {
                nix::unistd::chown(
                    &path,
                    Some(nix::unistd::Uid::from_raw(NOBODY)),
                    Some(nix::unistd::Gid::from_raw(NOBODY)),
                )
                .expect("chown");
            }
        }
        Stage { dir, conform }
    }

    /// `conform ARGS` in the stage as an unprivileged user (nobody, when the test
    /// runs as root; else the test's own user), with `env` added: exit code, stdout,
    /// stderr.
    fn conform(&self, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
        let output = self
            .unprivileged(self.conform.as_os_str())
            .args(args)
            .envs(env.iter().copied())
            .output()
            .expect("conform runs (setpriv, from util-linux, drops root to nobody)");
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// `program` as the unprivileged user, in the stage, with its HOME and TMPDIR.
    fn unprivileged(&self, program: &OsStr) -> Command {
        let stage = self.dir.path();
        let mut command = if nix::unistd::geteuid().is_root() {
            let mut command = Command::new("setpriv");
            command
                .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
                .arg(program);
            command
        } else {
            Command::new(program)
        };
        command
            .current_dir(stage)
            .env_remove_all(DEVELOPER_ENV)
            .env("HOME", stage.join("home"))
            .env("TMPDIR", stage.join("tmp"));
        command
    }

    /// Whether the host gives that user a user and network namespace, asked of
    /// util-linux's `unshare`, apart from conform.
    fn host_allows_namespaces(&self) -> bool {
        self.unprivileged(OsStr::new("unshare"))
            .args(["--user", "--map-current-user", "--net", "true"])
            .output()
            .is_ok_and(|output| output.status.success())
    }

    fn report(&self) -> PathBuf {
        self.dir.path().join("work/report.json")
    }
}

/// The text output's summary line.
fn summary(text: &str) -> &str {
    text.lines()
        .find(|line| line.starts_with("Summary:"))
        .unwrap_or_else(|| panic!("no summary line in {text}"))
}

#[test]
fn an_unprivileged_check_holds_a_node_fetch_at_the_black_hole_in_a_namespace() {
    let stage = Stage::new();
    let report = stage.report();
    let report_arg = report.display().to_string();
    let (code, text, stderr) = stage.conform(
        &[
            "check",
            "--format",
            "text",
            "--json-report",
            &report_arg,
            "--",
            "./nodefetch",
        ],
        &[],
    );
    let line = summary(&text);
    if !stage.host_allows_namespaces() {
        // The host refuses: say so loudly, with what conform made of it.
        eprintln!("SKIPPED: this host gives no user namespace to an unprivileged user (`unshare --user --net` fails): {line}");
        return;
    }
    assert_eq!(code, 4, "{text}\n{stderr}");
    assert!(line.ends_with("(network: namespace)"), "{line}");
    let document: Value =
        serde_json::from_slice(&std::fs::read(&report).expect("the JSON report")).expect("JSON");
    assert_eq!(document["network"], "namespace", "{}", document["network"]);
    let judged = document["results"][0]["checks"]
        .as_array()
        .and_then(|checks| checks.iter().find(|c| c["id"] == "network_timeout"))
        .unwrap_or_else(|| panic!("no network_timeout in {document:#}"));
    assert_eq!(judged["status"], "fail", "{judged:#}");
    // undici ignores the proxy variables: only the namespace's DNS and listeners
    // can have seen the host it asked for.
    let failure = &judged["failures"][0];
    assert!(
        failure["proxy_requests"]
            .to_string()
            .contains("api.nodefetch.example"),
        "{failure:#}"
    );
}

#[test]
fn where_user_namespaces_are_refused_every_report_says_why_and_how_to_allow_them() {
    let stage = Stage::new();
    let refused = [("CONFORM_TEST_NO_USERNS", "apparmor")];
    let cause = "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)";
    let remedy = "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0";
    let (_, text, stderr) = stage.conform(
        &["check", "--format", "text", "--", "./nodefetch"],
        &refused,
    );
    let line = summary(&text);
    assert!(
        line.contains("network: proxy variables only") && line.contains(cause),
        "{line}"
    );
    assert!(line.contains(remedy), "{line}");
    assert!(
        stderr.contains(remedy),
        "the warning says the fix: {stderr}"
    );
    let (_, stdout, stderr) = stage.conform(&["check", "--", "./nodefetch"], &refused);
    let envelope: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not one envelope ({e}): {stdout}\n{stderr}"));
    let meta = &envelope["meta"];
    assert_eq!(meta["network"], "proxy variables only", "{meta:#}");
    let fallback = &meta["network_fallback"];
    assert!(
        fallback["cause"]
            .as_str()
            .is_some_and(|c| c.starts_with(cause)),
        "{meta:#}"
    );
    assert!(
        fallback["remedy"]
            .as_str()
            .is_some_and(|r| r.starts_with(remedy)),
        "{meta:#}"
    );
}

#[test]
fn network_namespace_refuses_to_run_without_one_and_says_the_fix() {
    let stage = Stage::new();
    let refused = [("CONFORM_TEST_NO_USERNS", "max_user_namespaces")];
    let (code, stdout, stderr) = stage.conform(
        &["check", "--network", "namespace", "--", "./nodefetch"],
        &refused,
    );
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    let envelope: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not one envelope ({e}): {stdout}\n{stderr}"));
    let error = &envelope["error"];
    assert_eq!(error["code"], "NETWORK_NAMESPACE_UNAVAILABLE", "{error:#}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("user.max_user_namespaces=0") && m.contains("nothing ran")),
        "{error:#}"
    );
    assert_eq!(
        error["fix_required"], "sudo sysctl -w user.max_user_namespaces=10000",
        "{error:#}"
    );
    // Nothing ran: the sandbox's temporary directory is as it was made.
    let left = std::fs::read_dir(stage.dir.path().join("tmp"))
        .expect("tmp")
        .count();
    assert_eq!(left, 0, "something ran and left files behind");
}

#[test]
fn what_an_unprivileged_runs_probe_serves_is_not_reachable_from_the_host() {
    let stage = Stage::new();
    if !stage.host_allows_namespaces() {
        eprintln!("SKIPPED: this host gives no user namespace to an unprivileged user (`unshare --user --net` fails)");
        return;
    }
    // The fixture says on this FIFO when it listens; nobody must be able to open it.
    let fifo = stage.dir.path().join("listening");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    std::fs::set_permissions(&fifo, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    // Read and write: opening never blocks, and the fixture's non-blocking open
    // always finds a reader.
    let pipe = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .expect("open the fifo");
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free port");
    let child = stage
        .unprivileged(stage.conform.as_os_str())
        .args(["check", "--", "./serving"])
        .env("SERVING_PORT", port.to_string())
        .env("SERVING_FIFO", &fifo)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("conform starts");
    let (told, heard) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(pipe).read_line(&mut line);
        let _ = told.send(line);
    });
    let line = heard.recv_timeout(HANG).expect("the fixture listened");
    assert_eq!(line.trim(), format!("listening {port}"));
    // Right after it said so, while its run is alive (it serves until stopped).
    let reachable = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_ok();
    let output = child.wait_with_output().expect("conform ends");
    let envelope: Value = serde_json::from_slice(&output.stdout).expect("one envelope");
    assert_eq!(
        envelope["meta"]["network"], "namespace",
        "{:#}",
        envelope["meta"]
    );
    assert!(
        !reachable,
        "the probe's server answered on the host's loopback"
    );
}
