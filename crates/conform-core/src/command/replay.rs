//! `conform replay REPORT.json RUN`: make one recorded run again and show what it
//! did beside what was recorded. The run is remade from its shell line
//! (`render::show::shell_line`): the same argv, the environment changes, stdin
//! closed or an open pipe nobody writes to, and for a sandboxed run fresh
//! directories and a sentinel stand-in, as the report's readers would paste it.
//!
//! RUN counts every profile's runs in the report's order from 0, as the text
//! report's `Reproduce:` lines do.
//!
//! As it was made: a run recorded at the black hole (its proxy variables set) is
//! made at a fresh one, in a network namespace of its own where the machine
//! allows (`exec/netns.rs`), its proxy variables pointed there and every host it
//! asks for recorded; a sandboxed run's directories are made under a temporary
//! directory of the replay's own, listed after the run (what the tool left there)
//! and removed with it.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::output::{emit, emit_json, finish, report_error};
use super::Output;
use crate::checks::evidence::{excerpt, signal_name, RunFacts, TerminalFacts};
use crate::envelope::{envelope, ErrorDetail, ExitStatus};
use crate::exec::{BlackHole, ProxyRequest, Recorder, PROXY_VARS};
use crate::render::report_file;
use crate::render::show;

/// What `conform replay` was asked for.
#[derive(Debug, Clone)]
pub struct ReplayRequest {
    /// A `--json-report` file.
    pub report: PathBuf,
    /// The run's number, counting every profile's runs in order from 0.
    pub run: usize,
    /// Stop the run after this long; `None`: the recorded duration plus a second,
    /// at least 5 s, so a run the kit stopped at its limit stops about as late.
    pub timeout: Option<Duration>,
}

/// Bytes of each stream kept; the rest is counted, as the kit does.
const KEPT_BYTES: usize = 64 * 1024;

/// What the run did this time.
struct Replayed {
    exit_code: Option<i32>,
    signal: Option<String>,
    timed_out: bool,
    duration_ms: u64,
    stdout: (u64, Vec<u8>),
    stderr: (u64, Vec<u8>),
    /// For a run at the black hole: how it was kept from the network, and what
    /// each connection asked for.
    black_hole: Option<(&'static str, Vec<ProxyRequest>)>,
    /// What the sandbox held after the run, the replay's own set-up left out.
    sandbox: Vec<String>,
}

/// Most paths shown of what a sandbox holds.
const SANDBOX_SHOWN: usize = 50;

/// `conform replay`: exit 0 once the run was made again, whatever the tool did; 2
/// when the report cannot be read or has no such run.
pub fn replay(request: &ReplayRequest, out: &Output) -> ExitStatus {
    let refuse = |message: String| {
        let detail = ErrorDetail::invalid_input(
            "INVALID_REPORT",
            message,
            "Give a file written by conform run or check --json-report, and a run number its text report names",
        );
        report_error(
            ExitStatus::InvalidInput,
            detail,
            Value::Null,
            out.json,
            out.started,
        )
    };
    let (profile, run) = match recorded_run(&request.report, request.run) {
        Ok(found) => found,
        Err(message) => return refuse(message),
    };
    let limit = request.timeout.unwrap_or_else(|| {
        Duration::from_millis(run.duration_ms.saturating_add(1000)).max(Duration::from_secs(5))
    });
    // At the black hole when it was: a fresh one, its proxy variables pointed
    // there. Proxies at port 0 (where every connection is refused) stay as they were.
    let at_black_hole = run.env.iter().any(|change| {
        change
            .split_once('=')
            .is_some_and(|(name, url)| PROXY_VARS.contains(&name) && !url.ends_with(":0"))
    });
    let hole = match at_black_hole.then(BlackHole::bind_best).transpose() {
        Ok(hole) => hole,
        Err(e) => return refuse(format!("cannot make a black hole for the run: {e}")),
    };
    let mut run = run;
    if let Some(hole) = &hole {
        let url = hole.url();
        for change in &mut run.env {
            if let Some((name, _)) = change.split_once('=') {
                if PROXY_VARS.contains(&name) {
                    *change = format!("{name}={url}");
                }
            }
        }
    }
    let line = show::shell_line(&run);
    // The shell line's `mktemp -d "${TMPDIR:-/tmp}/conform-sandbox.XXXXXX"` lands
    // here, and goes with it.
    let sandboxes = match tempfile::Builder::new().prefix("conform-replay.").tempdir() {
        Ok(dir) => dir,
        Err(e) => return refuse(format!("cannot make a temporary directory: {e}")),
    };
    // Runs of a profile are made from its directory; `conform check`'s from a
    // scratch directory, long gone, so from a fresh one.
    let scratch = tempfile::tempdir();
    let cwd = match Path::new(&profile).parent() {
        // A profile named without a directory is in the current one.
        Some(dir) if Path::new(&profile).is_file() && dir.as_os_str().is_empty() => {
            PathBuf::from(".")
        }
        Some(dir) if Path::new(&profile).is_file() => dir.to_path_buf(),
        _ => match &scratch {
            Ok(dir) => dir.path().to_path_buf(),
            Err(e) => return refuse(format!("cannot make a scratch directory: {e}")),
        },
    };
    let replayed = match make(&line, &run, &cwd, limit, hole, sandboxes.path()) {
        Ok(replayed) => replayed,
        Err(e) => return refuse(format!("cannot start sh for the run: {e}")),
    };
    let data = json!({
        "run": request.run,
        "profile": profile,
        "probe": run.probe,
        "argv": run.argv,
        "stdin": run.stdin,
        "shell_line": line,
        "recorded": {
            "exit_code": run.exit_code,
            "signal": run.signal,
            "timed_out": run.timed_out,
            "duration_ms": run.duration_ms,
            "stdout_bytes": run.stdout_bytes,
            "stderr_bytes": run.stderr_bytes,
            "stdout_excerpt": run.stdout_excerpt,
            "stderr_excerpt": run.stderr_excerpt,
        },
        "replayed": {
            "exit_code": replayed.exit_code,
            "signal": replayed.signal,
            "timed_out": replayed.timed_out,
            "duration_ms": replayed.duration_ms,
            "stdout_bytes": replayed.stdout.0,
            "stderr_bytes": replayed.stderr.0,
            "stdout_excerpt": excerpt(&replayed.stdout.1),
            "stderr_excerpt": excerpt(&replayed.stderr.1),
        },
        "same_exit": run.exit_code == replayed.exit_code && run.timed_out == replayed.timed_out,
        "black_hole": replayed.black_hole.as_ref().map(|(network, requests)| json!({
            "network": network,
            "connections": requests.len(),
            "requests": requests,
        })),
        "sandbox_created": replayed.sandbox,
    });
    let written = if out.json {
        emit_json(&envelope(ExitStatus::Success, data, None, out.elapsed_ms()))
    } else {
        emit(&text(request.run, &run, &replayed, limit))
    };
    finish(ExitStatus::Success, written)
}

/// The profile and the run numbered `n` in the report at `path`.
fn recorded_run(path: &Path, n: usize) -> Result<(String, RunFacts), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let document: Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    let report = report_file::read(&document)
        .map_err(|e| format!("{} is not a conform report: {e}", path.display()))?;
    let total: usize = report.results.iter().map(|r| r.runs.len()).sum();
    report
        .results
        .into_iter()
        .flat_map(|r| {
            let profile = r.profile;
            r.runs.into_iter().map(move |run| (profile.clone(), run))
        })
        .nth(n)
        .ok_or_else(|| {
            format!(
                "{} has {total} runs (0 to {}); there is no run {n}",
                path.display(),
                total.saturating_sub(1)
            )
        })
}

/// Run `line` in `sh` in its own process group, stdin as the run had it, both
/// outputs drained, at `hole` when it has one (in its namespace, if any), with
/// `TMPDIR` at `sandboxes`; the group is killed at `limit`.
fn make(
    line: &str,
    run: &RunFacts,
    cwd: &Path,
    limit: Duration,
    hole: Option<BlackHole>,
    sandboxes: &Path,
) -> std::io::Result<Replayed> {
    let started = Instant::now();
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(line)
        .env("TMPDIR", sandboxes)
        .current_dir(cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // On a pseudo-terminal when it was, of its size: what the tool writes there
    // is read as stdout. Else an open stdin is a pipe nobody writes to, held
    // until the run ends.
    let terminal = match run.terminal {
        Some(terminal) => Some(on_terminal(&mut command, terminal)?),
        None => {
            // A process group of its own, killed at the limit (a terminal run's
            // session is one too).
            command.process_group(0);
            command.stdin(if run.stdin == "open" {
                Stdio::piped()
            } else {
                Stdio::null()
            });
            None
        }
    };
    let network = hole.as_ref().map(|hole| {
        if hole.isolated() {
            "namespace"
        } else {
            "proxy variables only"
        }
    });
    let mut child = match hole.as_ref().and_then(BlackHole::namespace) {
        Some(namespace) => namespace.within(|| command.spawn())?,
        None => command.spawn()?,
    };
    // The child has its ends of the terminal; only the master stays here.
    drop(command);
    let mut recorder = hole.map(|hole| Recorder::new(hole, started));
    let held = child.stdin.take();
    let drain = |stream: Option<Box<dyn Read + Send>>| {
        thread::spawn(move || {
            let mut kept = Vec::new();
            let mut total = 0u64;
            if let Some(mut stream) = stream {
                let mut buf = [0u8; 64 * 1024];
                while let Ok(n) = stream.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    total += n as u64;
                    let room = KEPT_BYTES.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
            }
            (total, kept)
        })
    };
    let stdout = drain(match terminal {
        Some(master) => {
            Some(Box::new(TerminalReader(std::fs::File::from(master))) as Box<dyn Read + Send>)
        }
        None => child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    });
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let pgid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() >= limit {
            timed_out = true;
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
            break child.wait()?;
        }
        // The black hole answers DNS and takes connections as the run goes.
        if let Some(recorder) = &mut recorder {
            recorder.accept();
        }
        thread::sleep(Duration::from_millis(10));
    };
    // What the shell left behind goes with it, so the pipes reach EOF.
    let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    drop(held);
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok(Replayed {
        exit_code: if timed_out { None } else { status.code() },
        signal: if timed_out {
            None
        } else {
            status.signal().map(signal_name)
        },
        timed_out,
        duration_ms,
        stdout,
        stderr,
        black_hole: network.zip(recorder.map(Recorder::finish)),
        sandbox: created(sandboxes),
    })
}

/// Puts the run on a fresh pseudo-terminal of the recorded size, as the kit did
/// (`exec/spawn.rs`): stdin, stdout and stderr on it and it the controlling
/// terminal of a session of its own, or stdout alone in raw mode. Returns the
/// master, to read what the tool wrote.
fn on_terminal(
    command: &mut Command,
    terminal: TerminalFacts,
) -> std::io::Result<std::os::fd::OwnedFd> {
    use nix::pty::{openpty, Winsize};
    use nix::sys::termios::{self, SetArg};
    let size = Winsize {
        ws_row: terminal.rows,
        ws_col: terminal.cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = openpty(Some(&size), None).map_err(std::io::Error::from)?;
    for fd in [&pty.master, &pty.slave] {
        nix::fcntl::fcntl(
            fd,
            nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
        )
        .map_err(std::io::Error::from)?;
    }
    let controlling: i32 = if terminal.whole {
        command.stdin(Stdio::from(pty.slave.try_clone()?));
        command.stderr(Stdio::from(pty.slave.try_clone()?));
        0
    } else {
        let mut modes = termios::tcgetattr(&pty.slave).map_err(std::io::Error::from)?;
        termios::cfmakeraw(&mut modes);
        termios::tcsetattr(&pty.slave, SetArg::TCSANOW, &modes).map_err(std::io::Error::from)?;
        command.stdin(Stdio::null());
        1
    };
    command.stdout(Stdio::from(pty.slave));
    // SAFETY: setsid and ioctl are async-signal-safe and touch no memory of ours.
    unsafe {
        command.pre_exec(move || {
            if nix::libc::setsid() < 0
                || nix::libc::ioctl(controlling, nix::libc::TIOCSCTTY as _, 0) < 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok(pty.master)
}

/// A terminal's master: EIO once every slave end is closed is its end of file.
struct TerminalReader(std::fs::File);

impl Read for TerminalReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.0.read(buf) {
            Err(e) if e.raw_os_error() == Some(nix::libc::EIO) => Ok(0),
            other => other,
        }
    }
}

/// What the sandboxes under `root` hold, as paths in their sandbox: every file,
/// link and empty directory, less what the shell line made itself (the sentinel
/// and its links).
fn created(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(sandboxes) = std::fs::read_dir(root) else {
        return found;
    };
    for sandbox in sandboxes.flatten() {
        walk(&sandbox.path(), &sandbox.path(), &mut found);
    }
    found.sort();
    found.truncate(SANDBOX_SHOWN);
    found
}

fn walk(sandbox: &Path, dir: &Path, found: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path
            .strip_prefix(sandbox)
            .unwrap_or(&path)
            .display()
            .to_string();
        if show::is_sandbox_setup(&relative) {
            continue;
        }
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        if !is_dir {
            found.push(relative);
        } else if std::fs::read_dir(&path).is_ok_and(|mut inside| inside.next().is_none()) {
            // The line makes the variables' directories; an empty one it made
            // is not the tool's.
            if relative.contains('/') {
                found.push(format!("{relative}/"));
            }
        } else {
            walk(sandbox, &path, found);
        }
    }
}

/// How a run ended, in words.
fn ended(exit_code: Option<i32>, signal: Option<&str>, timed_out: bool) -> String {
    match (timed_out, exit_code, signal) {
        (true, _, _) => "no exit within the limit (process group killed)".into(),
        (false, Some(code), _) => format!("exit {code}"),
        (false, None, Some(signal)) => format!("killed by {signal}"),
        _ => "no exit status".into(),
    }
}

fn text(n: usize, run: &RunFacts, replayed: &Replayed, limit: Duration) -> String {
    let mut out = format!(
        "run {n}: {} (stdin {}, limit {} s)\n",
        show::visible(&run.probe),
        run.stdin,
        limit.as_secs()
    );
    out.push_str(&format!(
        "  recorded  {} · stdout {} bytes, stderr {} bytes · {} ms\n",
        ended(run.exit_code, run.signal.as_deref(), run.timed_out),
        run.stdout_bytes,
        run.stderr_bytes,
        run.duration_ms
    ));
    out.push_str(&format!(
        "  replayed  {} · stdout {} bytes, stderr {} bytes · {} ms\n",
        ended(
            replayed.exit_code,
            replayed.signal.as_deref(),
            replayed.timed_out
        ),
        replayed.stdout.0,
        replayed.stderr.0,
        replayed.duration_ms
    ));
    if let Some((network, requests)) = &replayed.black_hole {
        out.push_str(&format!(
            "  at a black hole ({network}): {} connection{}",
            requests.len(),
            if requests.len() == 1 { "" } else { "s" }
        ));
        let hosts: Vec<String> = requests
            .iter()
            .filter_map(|r| {
                r.host
                    .as_ref()
                    .map(|host| r.port.map_or(host.clone(), |port| format!("{host}:{port}")))
            })
            .collect();
        if !hosts.is_empty() {
            out.push_str(&format!(" to {}", hosts.join(", ")));
        }
        out.push('\n');
    }
    if !replayed.sandbox.is_empty() {
        out.push_str(&format!(
            "  the sandbox held after it: {}\n",
            replayed.sandbox.join(", ")
        ));
    }
    for (name, (_, bytes)) in [("stdout", &replayed.stdout), ("stderr", &replayed.stderr)] {
        let shown = String::from_utf8_lossy(bytes);
        for line in show::excerpt(&shown, 5, 100) {
            out.push_str(&format!("  {name} │ {line}\n"));
        }
    }
    out
}
