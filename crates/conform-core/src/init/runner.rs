//! Every run init makes of the tool, through [`crate::exec::run`], so the time
//! limit, the process-group kill and cancellation apply as in `conform run`.
//!
//! Runs that only look (help calls, the command list, the manifest) and the trial
//! of each candidate read probe are made as a probe candidate's: in a fresh
//! sandbox (HOME, XDG directories, TMPDIR, sentinels for editors and browsers),
//! stdin closed, `DISPLAY` unset, and the proxy variables pointing at a black hole
//! that never answers, so a command that ignores `--help` and goes for the network
//! is caught there. Every run is made from the directory the profile is for, as
//! every run of `conform run` is.

use std::cell::Cell;
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use serde_json::Value;

use super::tool::{Measured, Tool, Trial};
use super::{help, manifest, Failure};
use crate::exec::{
    self, BlackHole, Cancel, RunError, RunErrorKind, RunRecord, RunSpec, Sandbox, Session,
    StdinMode, OPENERS,
};

/// Sentinels of a help call: editors and browsers. Pagers get `cat` instead, so a
/// tool that pages its help still prints it.
const HELP_SENTINELS: &[&str] = &["EDITOR", "VISUAL", "GIT_EDITOR", "BROWSER"];

/// Variables removed from every look and trial: no display to open a window on.
const HEADLESS: &[&str] = &["DISPLAY", "WAYLAND_DISPLAY"];

/// Toolchain managers that find their toolchains under HOME (rustup's `cargo`
/// proxy, pyenv's shims), and the directory each defaults to there. A fresh HOME
/// would leave the tool itself unable to start, so these keep pointing at the real
/// ones: the sandbox is there to catch what the tool writes, not to break it.
const TOOLCHAIN_HOMES: &[(&str, &str)] = &[
    ("RUSTUP_HOME", ".rustup"),
    ("CARGO_HOME", ".cargo"),
    ("PYENV_ROOT", ".pyenv"),
    ("ASDF_DATA_DIR", ".asdf"),
    ("VOLTA_HOME", ".volta"),
    ("NVM_DIR", ".nvm"),
];

/// The toolchain variables to set in a fresh HOME: those unset here whose default
/// directory exists under the real HOME.
fn toolchain_homes() -> Vec<(String, String)> {
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
        return Vec::new();
    };
    TOOLCHAIN_HOMES
        .iter()
        .filter(|(name, _)| std::env::var_os(name).is_none())
        .map(|(name, dir)| (name, home.join(dir)))
        .filter(|(_, dir)| dir.is_dir())
        .map(|(name, dir)| (name.to_string(), dir.to_string_lossy().into_owned()))
        .collect()
}

/// Runs the tool from the profile's directory, within the limit.
pub(super) struct Runner {
    pub program: PathBuf,
    /// The tool's leading arguments (`-m json.tool`).
    pub args: Vec<String>,
    pub cwd: PathBuf,
    pub limit: Duration,
    /// The tool as the user typed it, for messages.
    pub shown: String,
    pub session: Session,
    pub hole: BlackHole,
    /// `--help` opened a manual page once: ask `-h` first from then on (git).
    pub short_first: Cell<bool>,
}

/// How a run of [`Runner::run`] is made.
#[derive(Clone, Copy)]
enum Mode {
    /// As `conform run` makes a stream run: no sandbox, no black hole.
    AsRun { stream: bool },
    /// A help call or list: sandbox with pagers set to `cat`, black hole.
    Look,
    /// A trial: the isolated sandbox of `conform run`, black hole.
    Trial(StdinMode),
}

impl Runner {
    /// A runner whose black hole is bound.
    pub(super) fn new(
        program: PathBuf,
        args: Vec<String>,
        cwd: PathBuf,
        limit: Duration,
        shown: String,
        session: Session,
    ) -> Result<Runner, Failure> {
        let hole = BlackHole::bind().map_err(|e| {
            Failure::tool(
                "IO_ERROR",
                format!("cannot open the local listener that stands in for the network: {e}"),
                "check that conform may listen on 127.0.0.1",
            )
        })?;
        Ok(Runner {
            program,
            args,
            cwd,
            limit,
            shown,
            session,
            hole,
            short_first: Cell::new(false),
        })
    }

    fn run(&self, argv: &[String], mode: Mode) -> RunRecord {
        let mut env_set = Vec::new();
        let mut env_remove = Vec::new();
        let (stdin, stream, sandbox) = match mode {
            Mode::AsRun { stream } => (StdinMode::Closed, stream, None),
            Mode::Look => {
                // Help must never wait on a pager: `git status --help` opens a man
                // page through one.
                for (name, value) in [
                    ("PAGER", "cat"),
                    ("GIT_PAGER", "cat"),
                    ("MANPAGER", "cat"),
                    ("MAN_KEEP_FORMATTING", ""),
                ] {
                    env_set.push((name.to_string(), value.to_string()));
                }
                let sandbox = Sandbox {
                    fresh_dirs: true,
                    sentinel_vars: HELP_SENTINELS,
                    shims: OPENERS,
                    needles: Vec::new(),
                };
                (StdinMode::Closed, false, Some(sandbox))
            }
            Mode::Trial(stdin) => (stdin, false, Some(Sandbox::isolated())),
        };
        if sandbox.is_some() {
            env_set.extend(toolchain_homes());
            env_set.extend(self.hole.env_set());
            env_remove.extend(BlackHole::env_remove());
            env_remove.extend(HEADLESS.iter().map(|name| name.to_string()));
        }
        let spec = RunSpec {
            program: self.program.clone(),
            args: self.args.iter().chain(argv).cloned().collect(),
            cwd: self.cwd.clone(),
            env_set,
            env_remove,
            stdin,
            limit: self.limit,
            capture_limit: exec::DEFAULT_CAPTURE_LIMIT,
            stream,
            trigger: None,
            output: exec::Output::Pipes,
            sandbox,
            // init holds one black hole for all its runs and watches it itself.
            network: exec::Network::Inherited,
        };
        // After a Ctrl-C nothing more is started: init is on its way out.
        if self.session.cancel.is_cancelled() {
            let mut record = RunRecord::new(&spec);
            record.error = Some(RunError {
                kind: RunErrorKind::Internal,
                message: "interrupted before the run started".into(),
            });
            return record;
        }
        match mode {
            Mode::AsRun { .. } => exec::run(&spec, &self.session),
            Mode::Look | Mode::Trial(_) => self.run_watched(&spec),
        }
    }

    /// Runs `spec`, stopping it the moment anything connects to the black hole: a
    /// tool waiting on an answer that never comes would otherwise hold the run
    /// until its limit. A watcher thread polls the listener, the user's cancel and
    /// a pipe closed when the run is over.
    fn run_watched(&self, spec: &RunSpec) -> RunRecord {
        let stop = Cancel::new();
        let session = Session {
            cancel: stop.clone(),
            scratch: Arc::clone(&self.session.scratch),
        };
        let Ok((done, over)) = nix::unistd::pipe() else {
            return exec::run(spec, &self.session);
        };
        // A connection left over from an earlier run (a straggler of its group) is
        // not this run's.
        self.hole.take_connections();
        std::thread::scope(|scope| {
            let (hole, user) = (&self.hole, self.session.cancel());
            scope.spawn(move || watch(hole, user, &stop, done));
            let record = exec::run(spec, &session);
            // EOF on the watcher's end: it returns.
            drop(over);
            record
        })
    }

    /// `TOOL args` shown as typed.
    fn shown(&self, argv: &[String]) -> String {
        if argv.is_empty() {
            format!("`{}`", self.shown)
        } else {
            format!("`{} {}`", self.shown, argv.join(" "))
        }
    }

    /// The manifest `args` print: `TOOL manifest` when init was told the tool has
    /// one. Every way it can fail is an error that says so.
    pub(super) fn manifest(&self, args: &[String]) -> Result<Value, Failure> {
        let shown = self.shown(args);
        let record = self.run(args, Mode::Look);
        let network = self.hole.take_connections() > 0;
        if let Some(error) = &record.error {
            return Err(Failure::tool(
                "TOOL_FAILED",
                error.message.clone(),
                "check that the tool runs",
            ));
        }
        if record.timed_out {
            let offline = if network {
                "; it connected to the network, which conform stands in for with a listener that never answers"
            } else {
                ""
            };
            return Err(Failure::tool(
                "TOOL_TIMEOUT",
                format!("{shown} did not finish within {} s (stdin closed){offline}; its process group was killed", self.limit.as_secs()),
                "check that the tool prints its manifest without waiting for input or the network; raise --timeout (at most 5), or save the manifest and pass --manifest-file",
            ));
        }
        if record.exit_code() != Some(0) {
            let mut failure = Failure::tool(
                "MANIFEST_FAILED",
                format!(
                    "{shown} exited {}{}",
                    describe_exit(&record),
                    excerpt(&record.stderr.bytes)
                ),
                "if the tool has no manifest command, use --from-help; else set its arguments with --manifest-args",
            );
            failure.context = Some(Box::new(serde_json::json!({ "argv": record.argv })));
            return Err(failure);
        }
        let stdout = String::from_utf8_lossy(&record.stdout.bytes);
        manifest::parse_manifest(&stdout, &format!("the output of {shown}"))
    }

    /// Whether the tool has a manifest at `args`: the manifest when it prints one
    /// (valid or not: `manifest_valid` judges it), else why not.
    pub(super) fn find_manifest(&self, args: &[String]) -> Result<Value, String> {
        let shown = self.shown(args);
        let record = self.run(args, Mode::Look);
        if let Some(error) = &record.error {
            return Err(error.message.clone());
        }
        if self.hole.take_connections() > 0 {
            return Err(format!("{shown} connected to the network"));
        }
        if record.timed_out {
            return Err(format!(
                "{shown} did not finish within {} s",
                self.limit.as_secs()
            ));
        }
        if record.exit_code() != Some(0) {
            return Err(format!(
                "{shown} exited {}{}",
                describe_exit(&record),
                excerpt(&record.stderr.bytes)
            ));
        }
        // A manifest in colour is still the tool's manifest (manifest_valid fails it).
        let doc: Value = serde_json::from_slice(&record.stdout.bytes)
            .or_else(|_| serde_json::from_str(&help::clean(&record.stdout.bytes)))
            .map_err(|_| format!("{shown} printed no JSON"))?;
        let is_envelope = doc.get("ok").is_some_and(Value::is_boolean) && doc.get("data").is_some();
        let data = if is_envelope {
            doc["data"].clone()
        } else {
            doc
        };
        if data.get("commands").is_some_and(Value::is_object) {
            Ok(data)
        } else {
            Err(format!("{shown} printed JSON without a commands map"))
        }
    }

    /// `args` then `--help` (or `-h`): the help text, or why there is none. A call
    /// that ran the command instead (no usage line, the network, the limit) is not
    /// repeated with `-h`.
    fn help_text(&self, args: &[String], program: &str) -> Result<String, String> {
        let flags = if self.short_first.get() {
            ["-h", "--help"]
        } else {
            ["--help", "-h"]
        };
        let mut why = String::new();
        for flag in flags {
            let argv: Vec<String> = args.iter().cloned().chain([flag.to_string()]).collect();
            let shown = self.shown(&argv);
            let record = self.run(&argv, Mode::Look);
            if let Some(error) = &record.error {
                return Err(error.message.clone());
            }
            if self.hole.take_connections() > 0 {
                return Err(format!(
                    "{shown} went for the network (it connected to the proxy conform set), so it ran the command instead of printing help"
                ));
            }
            if record.timed_out {
                return Err(format!(
                    "{shown} did not finish within {} s, so it may have run the command",
                    self.limit.as_secs()
                ));
            }
            // Help on stdout or stderr, whichever reads as help once colour is gone.
            let outputs = [
                help::clean(&record.stdout.bytes),
                help::clean(&record.stderr.bytes),
            ];
            let text = outputs
                .iter()
                .find(|t| help::looks_like_help(t, program))
                .or_else(|| outputs.iter().find(|t| !t.trim().is_empty()))
                .cloned()
                .unwrap_or_default();
            // git opens a manual page for `--help`, or fails where `man` is missing:
            // `-h` prints its usage.
            let lower = text.to_ascii_lowercase();
            if help::is_man_page(&text)
                || lower.contains("man viewer")
                || lower.contains("manual entry")
            {
                self.short_first.set(flag == "--help");
                why = format!("{shown} opened a manual page");
                continue;
            }
            if help::looks_like_help(&text, program) {
                return Ok(text);
            }
            let flag_refused = record.exit_code() != Some(0)
                && lower.contains(flag)
                && [
                    "unknown",
                    "unrecognized",
                    "unexpected",
                    "invalid",
                    "no such",
                ]
                .iter()
                .any(|word| lower.contains(word));
            if flag_refused {
                why = format!("{shown} refused the flag");
                continue;
            }
            return Err(if record.exit_code() == Some(0) {
                format!("{shown} printed no usage line, so it may have run the command")
            } else {
                format!(
                    "{shown} exited {} without a usage line, so it may have run the command",
                    describe_exit(&record)
                )
            });
        }
        Err(why)
    }

    fn trial(&self, argv: &[String]) -> Trial {
        for stdin in [StdinMode::Closed, StdinMode::Open] {
            let record = self.run(argv, Mode::Trial(stdin));
            if let Some(error) = &record.error {
                return Trial::failed(error.message.clone());
            }
            if self.hole.take_connections() > 0 {
                return Trial::Failed {
                    reason: "its trial run went for the network (it connected to the proxy conform set), so its verdicts would depend on the network".into(),
                    network: true,
                };
            }
            if record.timed_out {
                return Trial::failed(match stdin {
                    StdinMode::Closed => format!(
                        "its trial run did not finish within {} s with stdin closed",
                        self.limit.as_secs()
                    ),
                    StdinMode::Open | StdinMode::Payload(_) => format!(
                        "its trial run did not finish within {} s with stdin open: it waits for input",
                        self.limit.as_secs()
                    ),
                });
            }
            // The open run only shows whether the command waits for input.
            if stdin == StdinMode::Closed && record.exit_code() != Some(0) {
                return Trial::failed(format!(
                    "its trial run (stdin closed, a fresh HOME, offline) exited {}{}",
                    describe_exit(&record),
                    excerpt(&record.stderr.bytes)
                ));
            }
        }
        Trial::Passed
    }
}

impl Tool for Runner {
    fn help(&mut self, args: &[String], program: &str) -> Result<String, String> {
        self.help_text(args, program)
    }

    fn listing(&mut self, args: &[String]) -> Result<String, String> {
        let shown = self.shown(args);
        let record = self.run(args, Mode::Look);
        if let Some(error) = &record.error {
            return Err(error.message.clone());
        }
        if self.hole.take_connections() > 0 {
            return Err(format!("{shown} went for the network"));
        }
        if record.timed_out || record.exit_code() != Some(0) {
            return Err(format!("{shown} exited {}", describe_exit(&record)));
        }
        Ok(help::clean(&record.stdout.bytes))
    }

    fn try_read(&mut self, argv: &[String]) -> Trial {
        self.trial(argv)
    }

    fn measure(&mut self, argv: &[String]) -> Measured {
        let record = self.run(argv, Mode::AsRun { stream: true });
        if record.error.is_some() {
            return Measured::Failed;
        }
        let lines = crate::lines::count(&record.stdout.bytes);
        if record.timed_out {
            Measured::TimedOut { lines }
        } else {
            Measured::Finished { lines }
        }
    }
}

/// Stops a watched run (`stop`) when something connects to `hole` or the user
/// cancels; returns when `done` reaches EOF, the run being over.
fn watch(hole: &BlackHole, user: &Cancel, stop: &Cancel, done: OwnedFd) {
    loop {
        let mut fds = vec![
            PollFd::new(done.as_fd(), PollFlags::POLLIN),
            PollFd::new(hole.fd(), PollFlags::POLLIN),
        ];
        if let Some(wake) = user.wake_fd() {
            fds.push(PollFd::new(wake, PollFlags::POLLIN));
        }
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) => {}
            Err(Errno::EINTR) => continue,
            // Without the watcher the run still ends at its limit.
            Err(_) => return,
        }
        let ready = |fd: &PollFd<'_>| fd.revents().is_some_and(|r| !r.is_empty());
        if ready(&fds[0]) {
            return;
        }
        if fds[1..].iter().any(ready) {
            stop.cancel();
            return;
        }
    }
}

/// How a run ended, for a message.
fn describe_exit(record: &RunRecord) -> String {
    if record.timed_out {
        return "only when killed at the limit".into();
    }
    match record.exit {
        exec::Exit::Code(code) => code.to_string(),
        exec::Exit::Signal(signal) => format!("on signal {signal}"),
        exec::Exit::Unknown => "without an exit status".into(),
    }
}

/// The first line of stderr, for an error message.
fn excerpt(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    match text.lines().find(|l| !l.trim().is_empty()) {
        Some(line) => format!(": {}", line.trim().chars().take(200).collect::<String>()),
        None => String::new(),
    }
}
