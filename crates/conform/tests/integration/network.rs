//! Network isolation: every run at the black hole is in a network namespace of its
//! own where the kernel allows one, so a tool that ignores the proxy variables
//! (Node's `fetch`) is held there too and what a tool serves stays off the host;
//! where it does not (forced here with `CONFORM_TEST_NO_NETNS`), the report says
//! the proxy variables alone were used.

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use serde_json::Value;

use crate::support::{conform_in, temp_profile, EnvRemoveAll, DEVELOPER_ENV, HANG};

const FALLBACK_SUMMARY: &str = "(network: proxy variables only: tools that ignore them were not held at the black hole (why: CONFORM_TEST_NO_NETNS is set; fix: unset CONFORM_TEST_NO_NETNS))";

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check")
}

/// `conform ARGS` from the fixtures with `env` added: exit code, stdout, stderr.
fn conform_with(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(args)
        .current_dir(fixtures())
        .env_remove_all(DEVELOPER_ENV)
        .envs(env.iter().copied())
        .output()
        .expect("conform runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Whether this machine gives runs a namespace, as the envelope says.
fn isolated(envelope: &Value) -> bool {
    match envelope["meta"]["network"].as_str() {
        Some("namespace") => true,
        Some("proxy variables only") => {
            eprintln!("skipped: no network namespace on this machine");
            false
        }
        other => panic!("meta.network is {other:?}: {:#}", envelope["meta"]),
    }
}

fn network_timeout(envelope: &Value) -> &Value {
    envelope["data"]["checks"]
        .as_array()
        .and_then(|checks| checks.iter().find(|c| c["id"] == "network_timeout"))
        .unwrap_or_else(|| panic!("no network_timeout in {envelope:#}"))
}

fn details(check: &Value) -> String {
    check["failures"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["detail"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_node_fetch_that_ignores_the_proxy_is_held_at_the_black_hole_under_check() {
    let check = conform_in(&fixtures(), ["check", "--", "./nodefetch"]);
    if !isolated(&check.envelope) {
        return;
    }
    let judged = check.check("network_timeout");
    assert_eq!(judged["status"], "fail", "{judged:#}");
    let detail = check.details("network_timeout");
    assert!(
        detail.contains("api.nodefetch.example"),
        "the host its ClientHello named: {detail}"
    );
}

#[test]
fn a_node_fetch_is_held_at_the_black_hole_under_a_hand_written_profile_too() {
    let tool = fixtures().join("nodefetch");
    let (_dir, profile) = temp_profile(
        &tool,
        5.0,
        serde_json::json!([{ "name": "status", "argv": ["status"], "kind": "read" }]),
    );
    let profile = profile.display().to_string();
    let (_, stdout, stderr) = conform_with(&["run", &profile, "--only", "network_timeout"], &[]);
    let envelope: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not one envelope ({e}): {stdout}\n{stderr}"));
    if !isolated(&envelope) {
        return;
    }
    let judged = network_timeout(&envelope);
    assert_eq!(judged["status"], "fail", "{judged:#}");
    assert!(
        details(judged).contains("api.nodefetch.example"),
        "{judged:#}"
    );
}

#[test]
fn without_a_namespace_every_report_says_the_proxy_variables_alone_were_used() {
    let no_netns = [("CONFORM_TEST_NO_NETNS", "1")];
    let (_, text, _) = conform_with(
        &["check", "--format", "text", "--", "./nodefetch"],
        &no_netns,
    );
    let summary = text
        .lines()
        .find(|line| line.starts_with("Summary:"))
        .unwrap_or_else(|| panic!("no summary line in {text}"));
    assert!(summary.ends_with(FALLBACK_SUMMARY), "{summary}");
    let (_, stdout, stderr) = conform_with(&["check", "--", "./nodefetch"], &no_netns);
    let envelope: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not one envelope ({e}): {stdout}\n{stderr}"));
    assert_eq!(
        envelope["meta"]["network"], "proxy variables only",
        "{:#}",
        envelope["meta"]
    );
    assert!(
        stderr.contains(
            "no network namespace for the runs at the black hole (CONFORM_TEST_NO_NETNS is set)"
        ),
        "the warning says why: {stderr}"
    );
    // Behind the proxy variables alone, undici went to DNS and failed at once:
    // nothing reached the black hole, the gap the namespace closes.
    let judged = network_timeout(&envelope);
    assert_eq!(judged["status"], "skip", "{judged:#}");
}

/// A port free on the host now.
fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free port")
}

/// Starts `conform check -- ./serving` (with `env`), waits until its `show`
/// listens, and says whether the host could connect to that port then, while
/// the run was alive; then the envelope.
fn serving_reachable(env: &[(&str, &str)], dir: &Path) -> (bool, Value) {
    let fifo = dir.join("listening");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    // Read and write: opening never blocks, and the fixture's non-blocking open
    // always finds a reader.
    let pipe = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .expect("open the fifo");
    let port = free_port();
    let port_text = port.to_string();
    let fifo_text = fifo.display().to_string();
    let child = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["check", "--", "./serving"])
        .current_dir(fixtures())
        .env_remove_all(DEVELOPER_ENV)
        .envs(env.iter().copied())
        .env("SERVING_PORT", &port_text)
        .env("SERVING_FIFO", &fifo_text)
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
    let envelope = serde_json::from_slice(&output.stdout).expect("one envelope");
    (reachable, envelope)
}

#[test]
fn what_a_probe_serves_is_not_reachable_from_the_host() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (reachable, envelope) = serving_reachable(&[], dir.path());
    if !isolated(&envelope) {
        return;
    }
    assert!(
        !reachable,
        "the probe's server answered on the host's loopback"
    );
    // Behind the proxy variables alone it does: the look above sees a leak.
    let dir = tempfile::tempdir().expect("temp dir");
    let (reachable, envelope) = serving_reachable(&[("CONFORM_TEST_NO_NETNS", "1")], dir.path());
    assert_eq!(envelope["meta"]["network"], "proxy variables only");
    assert!(reachable, "without a namespace the server is on the host");
}

#[test]
fn init_says_how_its_exploration_was_kept_from_the_network() {
    let (_, stdout, stderr) = conform_with(
        &["init", "--from-help", "--", "./serving"],
        &[("CONFORM_TEST_NO_NETNS", "1")],
    );
    let envelope: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not one envelope ({e}): {stdout}\n{stderr}"));
    assert_eq!(
        envelope["meta"]["network"], "proxy variables only",
        "{:#}",
        envelope["meta"]
    );
}
