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
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use serde_json::Value;

use super::tool::{Explored, Measured, Tool, Trial, Unread, Unusable};
use super::{help, manifest, Failure};
use crate::exec::{
    self, BlackHole, Cancel, Reactor, RunError, RunErrorKind, RunRecord, RunSpec, Sandbox, Session,
    StdinMode, OPENERS_AND_DEPLOYERS,
};
use crate::explore::phases::Cost;
use crate::plan::{Plan, PlannedRun, Records, RunKind, RunRole};
use crate::render::progress::Phases;
use crate::schedule::{self, starved, Policy, Progress};

/// How much longer the last attempt of a help call or trial starved twice may take.
const STARVED_LIMIT_FACTOR: u32 = 4;
/// The longest limit such an attempt gets: a profile's longest.
const MAX_STARVED_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

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
    /// The root help pointed at the `help` word and that gave a manual page:
    /// every help is asked as `ARGS help` (awscli).
    pub help_word: Cell<bool>,
    /// Variables removed from every look and trial (`conform check`: the
    /// credential-looking ones); empty for `conform init`.
    pub unset: Vec<String>,
    /// Where each exploration trial gets a working directory of its own
    /// (`conform check`); `None`: trials run from `cwd`.
    pub scratch: Option<PathBuf>,
    /// `conform init`'s trials run in a copy of the bait project here, never in
    /// the project init is run from; removed with the runner.
    pub bait: Option<tempfile::TempDir>,
    /// What the runs made so far cost the pool.
    pub cost: Cost,
    /// Every exploration run made, by its arguments after the program: the
    /// record is the stdin-closed run of the probe it becomes.
    pub explored: std::cell::RefCell<Vec<(Vec<String>, RunRecord)>>,
    /// Every help call made, by its arguments after the program.
    pub looked: std::cell::RefCell<Vec<(Vec<String>, RunRecord)>>,
    /// Where the runs made are shown.
    pub progress: Option<Phases>,
}

/// How a run of [`Runner::run`] is made.
#[derive(Clone, Copy)]
enum Mode {
    /// As `conform run` makes a stream run: no sandbox, no black hole.
    AsRun { stream: bool },
    /// A help call or list: sandbox with pagers set to `cat`, black hole.
    Look,
    /// A help call made again after it went for the network: as `Look`, but every
    /// proxy variable at a port that refuses at once, so a tool that phones home
    /// before printing its help (an update check) fails that call fast and prints.
    LookRefused,
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
        let hole = BlackHole::bind_best().map_err(|e| {
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
            help_word: Cell::new(false),
            unset: Vec::new(),
            scratch: None,
            bait: None,
            cost: Cost::default(),
            explored: Default::default(),
            looked: Default::default(),
            progress: None,
        })
    }

    fn run(&self, argv: &[String], mode: Mode) -> RunRecord {
        self.run_as(argv, mode, &[], None)
    }

    /// [`Runner::run`] with `env` set too (a completion protocol's variables).
    fn run_with(&self, argv: &[String], mode: Mode, env: &[(String, String)]) -> RunRecord {
        self.run_as(argv, mode, env, None)
    }

    /// [`Runner::run`], from `cwd` when given.
    fn run_in(&self, argv: &[String], mode: Mode, cwd: Option<&std::path::Path>) -> RunRecord {
        self.run_as(argv, mode, &[], cwd)
    }

    /// [`Runner::run`] with `env` set too, from `cwd` when given.
    fn run_as(
        &self,
        argv: &[String],
        mode: Mode,
        env: &[(String, String)],
        cwd: Option<&std::path::Path>,
    ) -> RunRecord {
        let mut spec = self.spec(argv, mode, false);
        spec.env_set.extend(env.iter().cloned());
        if let Some(cwd) = cwd {
            spec.cwd = cwd.to_path_buf();
        }
        // After a Ctrl-C nothing more is started: init is on its way out.
        if self.session.cancel.is_cancelled() {
            return interrupted(&spec);
        }
        let make = || {
            let started = std::time::Instant::now();
            let record = match mode {
                Mode::AsRun { .. } | Mode::LookRefused => exec::run(&spec, &self.session),
                Mode::Look | Mode::Trial(_) => self.run_watched(&spec),
            };
            self.made(started.elapsed(), 1);
            record
        };
        let record = make();
        // Starved at its limit: made once more (see `run_all`).
        if starved(&record) && !self.session.cancel.is_cancelled() {
            return make();
        }
        record
    }

    /// The run of `argv` as `mode` makes it; `own_hole`: with a black hole of its
    /// own (a run made beside others), else the runner's shared one.
    fn spec(&self, argv: &[String], mode: Mode, own_hole: bool) -> RunSpec {
        let mut env_set = Vec::new();
        let mut env_remove = Vec::new();
        let (stdin, stream, sandbox) = match mode {
            Mode::AsRun { stream } => (StdinMode::Closed, stream, None),
            Mode::Look | Mode::LookRefused => {
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
                    shims: &OPENERS_AND_DEPLOYERS,
                    needles: Vec::new(),
                };
                (StdinMode::Closed, false, Some(sandbox))
            }
            Mode::Trial(stdin) => (stdin, false, Some(Sandbox::isolated())),
        };
        let sandboxed = sandbox.is_some();
        if sandboxed {
            env_set.extend(toolchain_homes());
            if matches!(mode, Mode::LookRefused) {
                env_set.extend(BlackHole::refused_env());
                env_remove.extend(BlackHole::env_remove());
            } else if !own_hole {
                env_set.extend(self.hole.env_set());
                env_remove.extend(BlackHole::env_remove());
            }
            env_remove.extend(HEADLESS.iter().map(|name| name.to_string()));
            env_remove.extend(self.unset.iter().cloned());
        }
        RunSpec {
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
            // Alone, init holds one black hole for all its runs and watches it
            // itself; beside others, each run has its own, so that a connection
            // is blamed only on the run that made it.
            network: if own_hole && sandboxed && !matches!(mode, Mode::LookRefused) {
                exec::Network::BlackHole
            } else {
                exec::Network::Inherited
            },
            // A help call that waits on the network says nothing more by waiting.
            patience: None,
            // Where the shared black hole has a namespace, its runs are in it: a
            // tool that ignores the proxy variables meets it too, and what it
            // serves is out of the host's reach. A help call that must not wait
            // gets an empty one, where every connection is refused at once.
            namespace: match (sandboxed, own_hole, mode) {
                (true, _, Mode::LookRefused) => self
                    .hole
                    .shared_namespace()
                    .and_then(|_| exec::Namespace::new().ok().map(std::sync::Arc::new)),
                (true, false, _) => self.hole.shared_namespace(),
                _ => None,
            },
        }
    }

    /// Makes every run of `specs` in the pool `conform run` uses, under its rules:
    /// a job per CPU, held only while the tool uses it, at most
    /// what the machine holds in flight, and a run that hit
    /// its limit while the machine kept it from the CPU made again alone (a help
    /// call starved at its limit would otherwise read as one that ran the
    /// command). The records in the order of `specs`.
    fn run_all(&self, specs: &[RunSpec]) -> Vec<RunRecord> {
        self.run_all_until(specs, None)
            .into_iter()
            .zip(specs)
            .map(|(record, spec)| record.unwrap_or_else(|| interrupted(spec)))
            .collect()
    }

    /// As [`Runner::run_all`], with no run started after `until` but the first
    /// few (one per job slot): `None` for a run not made, for the time or a
    /// cancel. The pool stays full to the end: a run that waits (at the black
    /// hole, in a sleep) holds no job slot, and no batch waits for its slowest.
    fn run_all_until(&self, specs: &[RunSpec], until: Option<Instant>) -> Vec<Option<RunRecord>> {
        if specs.is_empty() {
            return Vec::new();
        }
        let plan = Plan {
            runs: specs
                .iter()
                .map(|spec| PlannedRun {
                    label: String::new(),
                    role: RunRole::command(RunKind::Help),
                    spec: spec.clone(),
                    after: Vec::new(),
                    gate: None,
                    derived: None,
                    stdin_by_design: None,
                    made: None,
                })
                .collect(),
        };
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        let policy = Policy {
            jobs,
            rerun_starved: true,
            start_until: until,
            starts_anyway: jobs,
        };
        let mut records: Records = Vec::new();
        let mut reactor = Reactor::new(&self.session);
        // The user's Ctrl-C reaches the pool through the session's cancel.
        let stop = AtomicBool::new(false);
        let started = std::time::Instant::now();
        schedule::execute(&[&plan], policy, &stop, &mut reactor, |progress| {
            if let Progress::PlanDone(_, done) = progress {
                records = done;
            }
        });
        records.resize(specs.len(), None);
        self.made(started.elapsed(), records.iter().flatten().count());
        records
            .into_iter()
            .zip(specs)
            .map(|(record, spec)| match record {
                // Starved on both attempts: on a machine this loaded the limit
                // decided nothing, so the call is made once more, alone, with a
                // longer one (a Node CLI's --help can take 5 s at load 12 on 2
                // CPUs). What the profile holds must not depend on the load.
                Some(record) if record.starved_again && !self.session.cancel.is_cancelled() => {
                    let mut longer = spec.clone();
                    longer.limit = (spec.limit * STARVED_LIMIT_FACTOR).min(MAX_STARVED_LIMIT);
                    Some(exec::run(&longer, &self.session))
                }
                record => record,
            })
            .collect()
    }

    /// Runs `spec`, stopping it the moment anything connects to the black hole: a
    /// tool waiting on an answer that never comes would otherwise hold the run
    /// until its limit. A watcher thread polls the listener, the user's cancel and
    /// a pipe closed when the run is over.
    fn run_watched(&self, spec: &RunSpec) -> RunRecord {
        let stop = Cancel::new();
        let session = self.session.with_cancel(stop.clone());
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

    /// A lone run (or a batch of `runs`) took `wall`: counted toward the cost of a
    /// run, and shown.
    fn made(&self, wall: Duration, runs: usize) {
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.cost.add(wall, runs, jobs);
        if let Some(progress) = &self.progress {
            progress.runs_made(runs);
        }
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
        // The root help runs no command: a connection it makes is the tool's own
        // start-up (oclif's update check in heroku and twilio), so the call is not
        // stopped at it, or the help would be lost.
        if args.is_empty() {
            return self.root_help_text(program).map_err(|unread| unread.reason);
        }
        let mut why = String::new();
        for &flag in self.help_flags() {
            let argv = with_flag(args, flag);
            let record = self.run(&argv, Mode::Look);
            let network = self.hole.take_connections() > 0;
            if network && printed_help(&record, program).is_none() {
                let again = self.run(&argv, Mode::LookRefused);
                if let Some(text) = offline_help(&again, program) {
                    return Ok(text);
                }
            }
            match self.read_help(&record, network, &argv, flag, program) {
                HelpStep::Done(result) => return result.map_err(|unread| unread.reason),
                HelpStep::Next(unread) => why = unread.reason,
            }
        }
        Err(why)
    }

    /// The tool's own help, or what its help calls showed instead. The root help
    /// runs no command: a connection it makes is the tool's own start-up (oclif's
    /// update check in heroku and twilio), so the call is not stopped at it, or
    /// the help would be lost.
    fn root_help_text(&self, program: &str) -> Result<String, Unread> {
        let root = self
            .help_calls(&[Vec::new()], program)
            .pop()
            .unwrap_or_else(|| Err(self.unread_without_run("no help call was made")));
        match root {
            Ok(text) if help::points_at_help_word(&text, program) => {
                Ok(self.word_help(program).unwrap_or(text))
            }
            root => root,
        }
    }

    /// An [`Unread`] for a help call that was never made.
    fn unread_without_run(&self, reason: &str) -> Unread {
        Unread {
            reason: reason.to_string(),
            call: self.shown(&["--help".to_string()]),
            printed: String::new(),
            how: Unusable::NotStarted,
        }
    }

    /// The root help asked with the `help` word, which its `--help` pointed at;
    /// when that gives a manual page, every later help is asked so.
    fn word_help(&self, program: &str) -> Option<String> {
        self.help_word.set(true);
        let text = self
            .help_texts(&[Vec::new()], program)
            .pop()
            .and_then(Result::ok);
        if text.is_none() {
            self.help_word.set(false);
        }
        text
    }

    /// `--help` then `-h`, or `-h` first once `--help` opened a manual page; only
    /// the `help` word once the root help was read from it.
    fn help_flags(&self) -> &'static [&'static str] {
        if self.help_word.get() {
            &["help"]
        } else if self.short_first.get() {
            &["-h", "--help"]
        } else {
            &["--help", "-h"]
        }
    }

    /// The help of each of `paths`, the calls made at once: `--help`, then `-h`
    /// where `--help` was refused or opened a manual page.
    pub(super) fn help_texts(
        &self,
        paths: &[Vec<String>],
        program: &str,
    ) -> Vec<Result<String, String>> {
        self.help_calls(paths, program)
            .into_iter()
            .map(|result| result.map_err(|unread| unread.reason))
            .collect()
    }

    /// As [`Runner::help_texts`], with what each call that gave no help showed.
    fn help_calls(&self, paths: &[Vec<String>], program: &str) -> Vec<Result<String, Unread>> {
        self.help_calls_until(paths, program, None)
            .into_iter()
            .map(|result| {
                result.unwrap_or_else(|| Err(self.unread_without_run("no help call was made")))
            })
            .collect()
    }

    /// As [`Runner::help_calls`], no call started after `until` (but the first
    /// few): `None` for a help not read.
    fn help_calls_until(
        &self,
        paths: &[Vec<String>],
        program: &str,
        until: Option<Instant>,
    ) -> Vec<Option<Result<String, Unread>>> {
        let mut results: Vec<Option<Result<String, Unread>>> = vec![None; paths.len()];
        let mut whys: Vec<Option<Unread>> = vec![None; paths.len()];
        let mut unmade = vec![false; paths.len()];
        // The order is read once: a man page in the first round sets
        // `short_first`, and the second round must then ask for the other flag,
        // not the same one again.
        for &flag in self.help_flags() {
            let pending: Vec<usize> = (0..paths.len())
                .filter(|&i| results[i].is_none() && !unmade[i])
                .collect();
            let argvs: Vec<Vec<String>> = pending
                .iter()
                .map(|&i| with_flag(&paths[i], flag))
                .collect();
            let specs: Vec<RunSpec> = argvs
                .iter()
                .map(|argv| self.spec(argv, Mode::Look, true))
                .collect();
            let made = self.run_all_until(&specs, until);
            // Every help call made and not cut by a signal: when a signal ends
            // exploration, the checks judge them (`Body::interrupted`).
            self.looked.borrow_mut().extend(
                made.iter()
                    .zip(&specs)
                    .filter_map(|(record, spec)| Some((spec.args.clone(), record.clone()?)))
                    .filter(|(_, record)| record.killed_by_kit.is_none_or(|kill| kill.at_limit)),
            );
            // A call not made (the time, a cancel) is no help to read, and no
            // reason to try the other flag.
            let mut records = Vec::with_capacity(made.len());
            for ((&i, spec), record) in pending.iter().zip(&specs).zip(made) {
                match record {
                    Some(record) => records.push(record),
                    None => {
                        unmade[i] = true;
                        records.push(interrupted(spec));
                    }
                }
            }
            // A call that went for the network and printed no help is made again
            // with the network refused: its help, when it prints one then, is the
            // help. One that printed its help anyway (twilio's update check runs
            // beside every call) is not made twice.
            let phoned: Vec<usize> = (0..records.len())
                .filter(|&n| {
                    records[n].proxy_connections.unwrap_or(0) > 0
                        && printed_help(&records[n], program).is_none()
                })
                .collect();
            let again_specs: Vec<RunSpec> = phoned
                .iter()
                .map(|&n| self.spec(&argvs[n], Mode::LookRefused, true))
                .collect();
            let again = self.run_all(&again_specs);
            for (&n, record) in phoned.iter().zip(&again) {
                if let Some(text) = offline_help(record, program) {
                    results[pending[n]] = Some(Ok(text));
                }
            }
            for ((&i, argv), record) in pending.iter().zip(&argvs).zip(&records) {
                if results[i].is_some() || unmade[i] {
                    continue;
                }
                let network = record.proxy_connections.unwrap_or(0) > 0;
                match self.read_help(record, network, argv, flag, program) {
                    // A call that printed nothing after one that printed something
                    // (a refused `--help`, then a silent `-h`): the one that printed
                    // says more.
                    HelpStep::Done(Err(unread))
                        if unread.how == Unusable::Silent && whys[i].is_some() =>
                    {
                        results[i] = whys[i].take().map(Err);
                    }
                    HelpStep::Done(result) => results[i] = Some(result),
                    HelpStep::Next(why) => whys[i] = Some(why),
                }
            }
        }
        results
            .into_iter()
            .zip(whys)
            .zip(unmade)
            .map(|((result, why), unmade)| match (result, why) {
                (Some(result), _) => Some(result),
                (None, Some(why)) => Some(Err(why)),
                (None, None) if unmade => None,
                (None, None) => Some(Err(self.unread_without_run("no help call was made"))),
            })
            .collect()
    }

    /// What one help call (`argv`, ending in `flag`) showed: the help, why there is
    /// none, or why to try the other flag. A call that ran the command instead
    /// (no usage line, the network, the limit) is not repeated.
    fn read_help(
        &self,
        record: &RunRecord,
        network: bool,
        argv: &[String],
        flag: &str,
        program: &str,
    ) -> HelpStep {
        let shown = self.shown(argv);
        let unread = |reason: String, how: Unusable| Unread {
            reason,
            call: shown.clone(),
            printed: printed(record),
            how,
        };
        if let Some(error) = &record.error {
            return HelpStep::Done(Err(unread(error.message.clone(), Unusable::NotStarted)));
        }
        // Stopped at its connection, or waiting on it at the limit.
        if network && record.timed_out {
            return HelpStep::Done(Err(unread(
                format!("{shown} went for the network (it connected to the proxy conform set), so it ran the command instead of printing help"),
                Unusable::Waited,
            )));
        }
        if record.timed_out {
            return HelpStep::Done(Err(unread(
                format!(
                    "{shown} did not finish within {} s, so it may have run the command or waited for input",
                    self.limit.as_secs()
                ),
                Unusable::Waited,
            )));
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
        let both = outputs.join("\n");
        // What it printed instead of help, as a verdict on the call.
        let (prompt, crash) = (
            help::looks_like_prompt(&both),
            help::looks_like_crash(&both),
        );
        let instead = if prompt {
            Unusable::Prompted
        } else if crash {
            Unusable::Crashed
        } else if both.trim().is_empty() && !network {
            Unusable::Silent
        } else {
            Unusable::NotHelp
        };
        // The `help` word prints the manual page that is the help (awscli).
        if flag == "help" {
            return HelpStep::Done(
                outputs
                    .iter()
                    .find_map(|t| help::man_page_help(t))
                    .filter(|t| help::looks_like_help(t, program))
                    .ok_or_else(|| {
                        unread(
                            format!("{shown} printed no manual page with a usage"),
                            instead,
                        )
                    }),
            );
        }
        // git opens a manual page for `--help`, or fails where `man` is missing:
        // `-h` prints its usage.
        let lower = text.to_ascii_lowercase();
        if help::is_man_page(&text)
            || lower.contains("man viewer")
            || lower.contains("manual entry")
        {
            self.short_first.set(flag == "--help");
            return HelpStep::Next(unread(
                format!("{shown} opened a manual page"),
                Unusable::NotHelp,
            ));
        }
        // A help printed in time is help, whatever else the run did: oclif's
        // update check (heroku, twilio) connects on every run, `--help` too, and
        // that is judged on the probes (`no_self_update`), not taken for the command.
        if help::looks_like_help(&text, program) {
            return HelpStep::Done(Ok(text));
        }
        if network {
            return HelpStep::Done(Err(unread(
                format!("{shown} went for the network (it connected to the proxy conform set) and printed no usage line, so it ran the command instead of printing help"),
                instead,
            )));
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
            return HelpStep::Next(unread(
                format!("{shown} refused the flag"),
                Unusable::NotHelp,
            ));
        }
        let what = match instead {
            Unusable::Prompted if crash => ": it asked a question instead (a first-run setup), and crashed on the closed stdin where an open one would be waited on",
            Unusable::Prompted => ": it asked a question instead, whose answer it waits for where stdin is open",
            Unusable::Crashed => ": it crashed (a traceback or a panic)",
            Unusable::Silent => ": it printed nothing",
            _ => ", so it may have run the command",
        };
        let reason = if record.exit_code() == Some(0) {
            format!("{shown} printed no usage line{what}")
        } else {
            format!(
                "{shown} exited {} without a usage line{what}",
                describe_exit(record)
            )
        };
        HelpStep::Done(Err(unread(reason, instead)))
    }

    /// One exploration run of each of `argvs` (stdin closed, isolated, a black
    /// hole and a working directory of its own), made at once: how it ended and
    /// what it left behind.
    pub(super) fn explore_all(&self, argvs: &[Vec<String>]) -> Vec<Explored> {
        self.explore_all_until(argvs, None)
            .into_iter()
            .map(|explored| {
                explored.unwrap_or_else(|| Explored {
                    error: Some("interrupted before the run started".into()),
                    ..Explored::default()
                })
            })
            .collect()
    }

    /// As [`Runner::explore_all`], no run started after `until` (but the first
    /// few): `None` for a command not run. Each record is kept
    /// ([`Runner::explored`]): it is the survey's stdin-closed run of the probe.
    pub(super) fn explore_all_until(
        &self,
        argvs: &[Vec<String>],
        until: Option<Instant>,
    ) -> Vec<Option<Explored>> {
        let mut specs = Vec::with_capacity(argvs.len());
        let mut dirs = Vec::with_capacity(argvs.len());
        for (index, argv) in argvs.iter().enumerate() {
            let mut spec = self.spec(argv, Mode::Trial(StdinMode::Closed), true);
            let dir = self
                .scratch
                .as_ref()
                .map(|root| root.join(format!("trial-{index}")));
            // Each directory holds the bait, a project a formatter would change.
            let mut before = None;
            if let (Some(root), Some(dir)) = (&self.scratch, &dir) {
                if std::fs::create_dir_all(dir).is_ok() {
                    spec.cwd = dir.clone();
                    before = super::bait::set(root, dir);
                }
            }
            specs.push(spec);
            dirs.push((dir, before));
        }
        let records = self.run_all_until(&specs, until);
        self.explored.borrow_mut().extend(
            records
                .iter()
                .zip(&specs)
                .filter_map(|(record, spec)| Some((spec.args.clone(), record.clone()?))),
        );
        records
            .iter()
            .zip(&dirs)
            .map(|(record, (dir, before))| {
                let record = record.as_ref()?;
                let created: Vec<&String> = record
                    .sandbox
                    .iter()
                    .flat_map(|report| &report.created)
                    .filter(|path| KEPT_STATE.iter().any(|dir| path.starts_with(dir)))
                    .filter(|path| !super::bait::own_state(path))
                    .collect();
                // An empty directory is where the tool would keep state, not state:
                // llm makes its config directory on every command.
                let mut wrote: Vec<String> = created
                    .iter()
                    .filter(|path| {
                        !path.ends_with('/')
                            || created.iter().any(|other| {
                                other.len() > path.len() && other.starts_with(path.as_str())
                            })
                    })
                    .map(|path| path.to_string())
                    .collect();
                let mut bait = super::bait::Changes::default();
                match (dir, before) {
                    (Some(dir), Some(before)) => {
                        bait = before.changes(&super::bait::Snapshot::take(dir));
                        let created = bait.created.iter().take(LEFT_SHOWN);
                        wrote.extend(created.map(|path| format!("cwd/{path}")));
                    }
                    (Some(dir), None) => {
                        let mut left = Vec::new();
                        list_tree(dir, dir, &mut left);
                        wrote.extend(left.into_iter().map(|path| format!("cwd/{path}")));
                    }
                    (None, _) => {}
                }
                Some(Explored {
                    error: record.error.as_ref().map(|e| e.message.clone()),
                    finished: !record.timed_out,
                    exit_code: record.exit_code(),
                    network: record.proxy_connections.unwrap_or(0) > 0,
                    listening: match record.waiting_on {
                        Some(exec::WaitingOn::Listening { port }) => Some(port),
                        _ => None,
                    },
                    wrote,
                    bait,
                    external: record
                        .sandbox
                        .iter()
                        .flat_map(|report| &report.sentinel_calls)
                        .filter(|call| {
                            let name = call.name.as_str();
                            exec::INSTALLERS.contains(&name) || exec::DEPLOYERS.contains(&name)
                        })
                        .map(|call| {
                            [call.name.clone()]
                                .into_iter()
                                .chain(call.argv.iter().cloned())
                                .collect::<Vec<_>>()
                                .join(" ")
                        })
                        .collect(),
                })
            })
            .collect()
    }

    fn trial(&self, argv: &[String]) -> Trial {
        // `conform init`: from a fresh copy of the bait project, whose changes
        // show a command that rewrites the files of where it runs.
        let bait = self.bait.as_ref().and_then(|root| {
            let dir = root.path().join("trial");
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).ok()?;
            super::bait::set(root.path(), &dir).map(|before| (dir, before))
        });
        for stdin in [StdinMode::Closed, StdinMode::Open] {
            let record = self.run_in(
                argv,
                Mode::Trial(stdin),
                bait.as_ref().map(|(dir, _)| dir.as_path()),
            );
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
        if let Some((dir, before)) = bait {
            let changes = before.changes(&super::bait::Snapshot::take(&dir));
            if !changes.is_empty() {
                return Trial::failed(format!("its trial run {}", changes.describe()));
            }
        }
        Trial::Passed
    }
}

impl Tool for Runner {
    fn help(&mut self, args: &[String], program: &str) -> Result<String, String> {
        self.help_text(args, program)
    }

    fn root_help(&mut self, program: &str) -> Result<String, Unread> {
        self.root_help_text(program)
    }

    fn listing(&mut self, args: &[String]) -> Result<String, String> {
        self.listing_with(args, &[])
    }

    fn listing_with(
        &mut self,
        args: &[String],
        env: &[(String, String)],
    ) -> Result<String, String> {
        let shown = self.shown(args);
        let record = self.run_with(args, Mode::Look, env);
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

    fn hermetic(&self) -> bool {
        self.scratch.is_some()
    }

    fn helps(&mut self, paths: &[Vec<String>], program: &str) -> Vec<Result<String, String>> {
        self.help_texts(paths, program)
    }

    fn explore(&mut self, argvs: &[Vec<String>]) -> Vec<Explored> {
        self.explore_all(argvs)
    }

    fn helps_until(
        &mut self,
        paths: &[Vec<String>],
        program: &str,
        until: Option<Instant>,
    ) -> Vec<Option<Result<String, String>>> {
        self.help_calls_until(paths, program, until)
            .into_iter()
            .map(|result| result.map(|text| text.map_err(|unread| unread.reason)))
            .collect()
    }

    fn explore_until(
        &mut self,
        argvs: &[Vec<String>],
        until: Option<Instant>,
    ) -> Vec<Option<Explored>> {
        self.explore_all_until(argvs, until)
    }

    fn per_run(&self) -> Option<Duration> {
        self.cost.per_run()
    }

    fn limit(&self) -> Duration {
        self.limit
    }

    fn phase(&mut self, name: &str, detail: &str) {
        if let Some(progress) = &self.progress {
            progress.phase(name, detail);
        }
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

/// The help a call printed in time, whatever else it did (as
/// [`Runner::read_help`] takes it): a call that printed one lost no help to a
/// connection it made.
fn printed_help(record: &RunRecord, program: &str) -> Option<String> {
    if record.error.is_some() || record.timed_out {
        return None;
    }
    [
        help::clean(&record.stdout.bytes),
        help::clean(&record.stderr.bytes),
    ]
    .into_iter()
    .find(|text| help::looks_like_help(text, program) && !help::is_man_page(text))
}

/// The help a call made with the network refused printed: it exited 0 in time
/// and its stdout or stderr reads as help.
fn offline_help(record: &RunRecord, program: &str) -> Option<String> {
    (record.exit_code() == Some(0))
        .then(|| printed_help(record, program))
        .flatten()
}

/// What a help call showed.
enum HelpStep {
    Done(Result<String, Unread>),
    /// No help with this flag, for this reason: try the other.
    Next(Unread),
}

/// The start of what a run printed, stdout then stderr, on one line.
fn printed(record: &RunRecord) -> String {
    let text = [
        help::clean(&record.stdout.bytes),
        help::clean(&record.stderr.bytes),
    ]
    .join("\n");
    help::one_line(&text)
}

/// `args` then `flag`.
fn with_flag(args: &[String], flag: &str) -> Vec<String> {
    args.iter().cloned().chain([flag.to_string()]).collect()
}

/// The sandbox directories whose new files are state a command kept (HOME and
/// the XDG config and data homes), as the sandbox report names them; caches, logs
/// and temporary files are not.
const KEPT_STATE: &[&str] = &["home/", "config/", "data/"];

/// Entries a run left in its working directory that are listed.
const LEFT_SHOWN: usize = 20;

/// Every entry under `dir`, relative to `root` (directories with a trailing
/// slash), sorted, without following symlinks; at most [`LEFT_SHOWN`].
fn list_tree(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if out.len() >= LEFT_SHOWN {
            return;
        }
        let path = entry.path();
        let relative = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            out.push(format!("{relative}/"));
            list_tree(root, &path, out);
        } else {
            out.push(relative);
        }
    }
}

/// The record of a run not started because the user cancelled.
fn interrupted(spec: &RunSpec) -> RunRecord {
    let mut record = RunRecord::new(spec);
    record.error = Some(RunError {
        kind: RunErrorKind::Internal,
        message: "interrupted before the run started".into(),
    });
    record
}

/// Stops a watched run (`stop`) when something connects to `hole` or the user
/// cancels; returns when `done` reaches EOF, the run being over.
fn watch(hole: &BlackHole, user: &Cancel, stop: &Cancel, done: OwnedFd) {
    loop {
        // `done`, then the DNS responder (answered, the run goes on), then what
        // stops the run: a listener, or the user's cancel.
        let mut fds = vec![PollFd::new(done.as_fd(), PollFlags::POLLIN)];
        let dns = hole.dns_fd();
        fds.extend(dns.map(|fd| PollFd::new(fd, PollFlags::POLLIN)));
        let stoppers = fds.len();
        fds.extend(
            hole.listener_fds()
                .into_iter()
                .map(|fd| PollFd::new(fd, PollFlags::POLLIN)),
        );
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
        if fds.first().is_some_and(ready) {
            return;
        }
        if fds
            .get(stoppers..)
            .is_some_and(|rest| rest.iter().any(ready))
        {
            stop.cancel();
            return;
        }
        if fds
            .get(1..stoppers)
            .is_some_and(|dns| dns.iter().any(ready))
        {
            hole.answer_dns();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{self, RunSpec};

    fn call(stdout: &str, timed_out: bool) -> RunRecord {
        let spec = RunSpec {
            program: PathBuf::from("relay"),
            args: vec!["--help".into()],
            cwd: PathBuf::from("."),
            env_set: Vec::new(),
            stdin: StdinMode::Closed,
            limit: Duration::from_secs(5),
            capture_limit: exec::DEFAULT_CAPTURE_LIMIT,
            stream: false,
            trigger: None,
            output: exec::Output::Pipes,
            sandbox: None,
            network: exec::Network::Inherited,
            patience: None,
            namespace: None,
            env_remove: Vec::new(),
        };
        let mut record = RunRecord::new(&spec);
        record.stdout.bytes = stdout.as_bytes().to_vec();
        record.timed_out = timed_out;
        record.proxy_connections = Some(1);
        record
    }

    #[test]
    fn a_help_call_that_phoned_home_is_made_again_only_when_it_printed_no_help() {
        let help = "Send messages\n\nUSAGE\n  $ relay messages list [-o json]\n";
        // twilio: its update check connects beside a help printed in time.
        assert!(printed_help(&call(help, false), "relay").is_some());
        // Held at its connection until the limit, or nothing that reads as help.
        assert!(printed_help(&call(help, true), "relay").is_none());
        assert!(printed_help(&call("Checking for updates...\n", false), "relay").is_none());
    }
}
