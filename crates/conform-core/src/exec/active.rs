//! One started run as a non-blocking state machine. The reactor tells it what
//! happened (a pipe is readable, the process may have exited, time passed, conform
//! was cancelled); it reacts at once and says when it next needs attention.

use std::fs::File;
use std::io::{ErrorKind, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

use super::blackhole::{BlackHole, Recorder};
use super::capture::Pipe;
use super::cpu;
use super::demand::Demand;
use super::orphans;
use super::process::Process;
use super::sandbox;
use super::session::Scratch;
use super::trigger::Armed;
use super::waiting::{self, WaitingOn};
use super::{
    holders, json_payload, spawn, Exit, KitKill, Network, RunError, RunErrorKind, RunRecord,
    RunSpec, StdinMode,
};

/// Between SIGTERM and SIGKILL at the limit: long enough for a tool to flush a
/// cancellation message, short enough to keep a hung run's cost near its limit.
const TERM_GRACE: Duration = Duration::from_millis(300);
/// After the group is killed: how long to wait for EOF on the pipes and for the
/// reap. Only a process outside the group (setsid) can hold a pipe past this.
pub(super) const EOF_GRACE: Duration = Duration::from_millis(250);
/// A tool blocked this long, sample after sample, is parked: it counts toward a
/// second cap of runs in flight, not the first ([`crate::schedule`]). Ten samples,
/// a second: a tool that waits a little (a short sleep, a quick lookup) is back
/// before it, while one that reads an open stdin or waits on a connection that is
/// never answered stays blocked until its limit.
pub(crate) const PARKED_AFTER: Duration = cpu::SAMPLE_EVERY.saturating_mul(10);
/// Limits are clamped to this, so that adding one to the clock cannot overflow.
const LONGEST_LIMIT: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// Where a run is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The tool's process is alive and within its limit.
    Running,
    /// The limit passed (or conform was cancelled): SIGTERM went to the group;
    /// output is still read until the process exits or the grace ends.
    TermGrace {
        until: Instant,
    },
    /// A stream whose process exited: stdout is read to EOF or the deadline.
    Draining,
    /// The process has exited or is being killed: SIGKILL went to what is left of
    /// the group; waiting for the reap and for EOF on the pipes.
    Finishing {
        until: Instant,
    },
    Done,
}

/// Which of a run's fds the reactor polls, and what each is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    Stdout,
    Stderr,
    Exit,
    /// The run's black hole, with a connection waiting to be taken.
    Listener,
    /// A connection to the black hole whose request head is still arriving.
    Peer(usize),
    /// A payload's stdin, while bytes are left to write.
    Stdin,
}

pub(super) struct Active {
    spec: RunSpec,
    record: RunRecord,
    started: Instant,
    deadline: Instant,
    phase: Phase,
    process: Process,
    /// Held, never written, until the run is over: a tool that reads stdin blocks
    /// rather than seeing EOF. `None` for a closed stdin. For a payload, written
    /// as the pipe drains and dropped (closed) once it is all in.
    stdin: Option<File>,
    /// A payload's bytes not yet written (`StdinMode::Payload`).
    payload: Option<Payload>,
    /// For a terminal run, the terminal's master side (everything the tool wrote).
    stdout: Pipe,
    stderr: Pipe,
    /// The run's sandbox, reported and removed when the record is taken.
    sandbox: Option<sandbox::Made>,
    /// The run's black-hole proxy and what its clients asked for, closed when the
    /// record is taken.
    hole: Option<Recorder>,
    /// The trigger, waiting for its line of stdout.
    trigger: Armed,
    /// When the kit hit the limit (or was cancelled) and began killing the group.
    killed_at: Option<Instant>,
    /// What the kit did to stop the tool; its `exit` is filled in at the end.
    kill: Option<KitKill>,
    /// Whether the tool uses the CPU, and how long it waited for one.
    demand: Demand,
    /// The inode of the tool's stdin pipe, when it is one: what a read of stdin
    /// blocks on.
    stdin_pipe: Option<u64>,
    /// Whether stderr (rather than stdout) is where the tool last wrote: the last
    /// line a tool printed before it blocked is read from there.
    stderr_last: bool,
}

impl Active {
    /// Spawns the tool; a run that cannot start is a finished record at once.
    /// `kit_wait` is how long the reactor has waited for a CPU so far.
    pub(super) fn start(
        spec: &RunSpec,
        scratch: &Scratch,
        kit_wait: Option<Duration>,
    ) -> Result<Active, Box<RunRecord>> {
        // A black-hole run's proxy variables name the port of a listener of its
        // own, so they are known only now; the record shows them like any other.
        let (hole, with_proxy);
        let spec = match spec.network {
            Network::Inherited => {
                hole = None;
                spec
            }
            Network::BlackHole => match BlackHole::bind_best() {
                Ok(bound) => {
                    let mut changed = spec.clone();
                    changed.env_set.extend(bound.env_set());
                    changed.env_remove.extend(BlackHole::env_remove());
                    hole = Some(bound);
                    with_proxy = changed;
                    &with_proxy
                }
                Err(err) => {
                    let mut record = RunRecord::new(spec);
                    record.error = Some(RunError {
                        kind: RunErrorKind::Internal,
                        message: format!("conform could not make the run's black hole: {err}"),
                    });
                    return Err(Box::new(record));
                }
            },
        };
        let mut record = RunRecord::new(spec);
        record.proxy_connections = hole.as_ref().map(|_| 0);
        let made = match spec
            .sandbox
            .as_ref()
            .map(|sandbox| sandbox::make(sandbox, scratch))
            .transpose()
        {
            Ok(made) => made,
            Err(err) => {
                record.error = Some(RunError {
                    kind: RunErrorKind::Internal,
                    message: format!("conform could not make the run's sandbox: {err}"),
                });
                return Err(Box::new(record));
            }
        };
        let extra_env = made.as_ref().map_or(&[][..], |made| &made.env[..]);
        if let Some(made) = &made {
            record.env_changes.extend(made.described.iter().cloned());
        }
        // An argument naming the sandbox (`<sandbox>/tmp/...`) gets its real path;
        // the record keeps the mark, as it does for the environment.
        let resolved;
        let to_spawn = match made.as_ref().and_then(|made| made.resolve_args(&spec.args)) {
            Some(args) => {
                resolved = RunSpec {
                    args,
                    ..spec.clone()
                };
                &resolved
            }
            None => spec,
        };
        // Into the black hole's namespace, when it has one, or the shared one the
        // spec names: a child is made in the namespace of the thread that spawns it.
        let namespace = hole
            .as_ref()
            .and_then(BlackHole::namespace)
            .or(spec.namespace.as_deref());
        let spawn_here = || match namespace {
            Some(namespace) => namespace.within(|| spawn::spawn(to_spawn, extra_env)),
            None => spawn::spawn(to_spawn, extra_env),
        };
        let spawned = match orphans::spawning(spawn_here, |s| s.pid) {
            Ok(spawned) => spawned,
            Err(err) => {
                record.error = Some(RunError {
                    kind: RunErrorKind::Spawn,
                    message: spawn::describe_error(spec, &err),
                });
                // Nothing ran in it; dropping it removes it.
                drop(made);
                return Err(Box::new(record));
            }
        };
        // The limit counts from the spawn: making the sandbox is the kit's time.
        let started = Instant::now();
        let stdout = spawned.terminal.or(spawned.stdout);
        let pid = spawned.pid;
        let stdin = spawned.stdin.map(File::from);
        let stdin_pipe = stdin
            .as_ref()
            .and_then(|pipe| holders::pipe_inode(pipe.as_fd()));
        let payload = match (spec.stdin, &stdin) {
            (StdinMode::Payload(len), Some(pipe)) => Some(Payload::new(pipe, len)),
            _ => None,
        };
        let mut active = Active {
            spec: spec.clone(),
            record,
            started,
            deadline: started + spec.limit.min(LONGEST_LIMIT),
            phase: Phase::Running,
            process: Process::new(pid),
            stdin,
            payload,
            stdout: Pipe::new(stdout, spec.capture_limit),
            stderr: Pipe::new(spawned.stderr, spec.capture_limit),
            sandbox: made,
            hole: hole.map(|hole| Recorder::new(hole, started)),
            trigger: Armed::new(spec.trigger),
            killed_at: None,
            kill: None,
            demand: Demand::new(started, kit_wait),
            stdin_pipe,
            stderr_last: false,
        };
        // `after_lines: 0` is due before any output.
        active.maybe_trigger();
        active.write_payload();
        Ok(active)
    }

    /// Whether the tool holds a job slot: alive, not being killed, and using CPU.
    /// A run that only waits (an idle tool, a grace, a held pipe) does not.
    pub(super) fn busy(&self) -> bool {
        self.phase == Phase::Running && !self.demand.idle()
    }

    /// Whether the tool has been blocked for [`PARKED_AFTER`] or more as of `now`: a
    /// read of an open stdin, a connection that is never answered. Such a run
    /// waits for its limit, not for a CPU.
    pub(super) fn parked(&self, now: Instant) -> bool {
        self.phase == Phase::Running && self.demand.idle_for(now) >= PARKED_AFTER
    }

    /// Whether the tool's CPU use is due to be sampled.
    pub(super) fn sample_due(&self, now: Instant) -> bool {
        self.phase == Phase::Running && now >= self.demand.next_sample()
    }

    /// Puts a due sample off until `until` (the reactor's next pass over `/proc`).
    pub(super) fn defer_sample(&mut self, until: Instant) {
        self.demand.defer_sample(until);
    }

    /// The tool's process group, for CPU samples.
    pub(super) fn group(&self) -> i32 {
        self.process.pid().as_raw()
    }

    /// A CPU sample of the tool's group (`None`: it could not be read, so the tool
    /// counts as busy).
    pub(super) fn sample(&mut self, sample: Option<&cpu::GroupSample>, now: Instant) {
        self.demand.sample(sample, now);
    }

    /// Another run started while this one was going.
    pub(super) fn note_in_flight(&mut self, runs: usize) {
        self.demand.note_in_flight(runs);
    }

    /// The reactor was away from `poll` from `since` until `now`, on other work,
    /// not watching this run's pipes (counted from the run's start if later).
    pub(super) fn note_kit_away(&mut self, since: Instant, now: Instant) {
        let away = now.saturating_duration_since(since.max(self.started));
        self.demand.note_kit_away(away);
    }

    pub(super) fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// The fds to poll now.
    pub(super) fn sources(&self) -> impl Iterator<Item = (Source, BorrowedFd<'_>)> {
        let network = self.hole.iter().flat_map(|hole| {
            hole.sources().map(|(peer, fd)| match peer {
                Some(index) => (Source::Peer(index), fd),
                None => (Source::Listener, fd),
            })
        });
        [
            self.stdout.fd().map(|fd| (Source::Stdout, fd)),
            self.stderr.fd().map(|fd| (Source::Stderr, fd)),
            self.process.exit_fd().map(|fd| (Source::Exit, fd)),
            self.payload
                .as_ref()
                .and(self.stdin.as_ref())
                .map(|pipe| (Source::Stdin, pipe.as_fd())),
        ]
        .into_iter()
        .flatten()
        .chain(network)
    }

    /// Whether the exit can only be noticed by asking (no pidfd): the reactor then
    /// caps its wait.
    pub(super) fn needs_polling(&self) -> bool {
        self.process.needs_polling()
    }

    /// When this run next needs attention even if nothing happens.
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        match self.phase {
            Phase::Running => Some(self.deadline.min(self.demand.next_sample())),
            Phase::Draining => Some(self.deadline),
            Phase::TermGrace { until } | Phase::Finishing { until } => Some(until),
            Phase::Done => None,
        }
    }

    /// A source was reported ready (data, EOF, an error, or the exit).
    pub(super) fn on_ready(&mut self, source: Source, buf: &mut [u8]) {
        match source {
            Source::Stdout => {
                let n = self.stdout.read_into(buf);
                if n > 0 {
                    self.stderr_last = false;
                }
                // Lines matter only for a pending trigger; counting is skipped
                // otherwise, so a flood costs no per-byte work.
                if self.trigger.is_due() {
                    if let Some(chunk) = buf.get(..n) {
                        self.trigger.feed(chunk);
                    }
                    // Straight after the read that completed line N: a tool whose
                    // bookkeeping lags its output is caught.
                    self.maybe_trigger();
                }
            }
            Source::Stderr => {
                if self.stderr.read_into(buf) > 0 {
                    self.stderr_last = true;
                }
            }
            Source::Exit => {}
            Source::Listener => {
                if let Some(hole) = &mut self.hole {
                    hole.accept();
                }
            }
            Source::Peer(index) => {
                if let Some(hole) = &mut self.hole {
                    hole.read(index);
                }
            }
            Source::Stdin => self.write_payload(),
        }
        self.advance(Instant::now());
    }

    /// Time passed, or the run is polled for its exit (no pidfd).
    pub(super) fn on_tick(&mut self, now: Instant) {
        self.advance(now);
    }

    /// conform was interrupted: stop the tool as at the limit, and stop waiting for
    /// a stream's held stdout.
    pub(super) fn cancel(&mut self, now: Instant) {
        match self.phase {
            Phase::Running => self.time_out(now, None),
            Phase::Draining => self.finish(now),
            Phase::TermGrace { .. } | Phase::Finishing { .. } | Phase::Done => {}
        }
        self.advance(now);
    }

    /// Something went wrong inside conform while driving this run: kill the group
    /// and end it with an internal error.
    pub(super) fn abort(&mut self, message: String) {
        self.process.signal_group(Signal::SIGKILL);
        self.stdout.abandon();
        self.stderr.abandon();
        self.process.reap_in_background();
        self.record.error = Some(RunError {
            kind: RunErrorKind::Internal,
            message,
        });
        self.phase = Phase::Done;
    }

    /// Kills the tool's group if the run is still going: its reactor is being
    /// dropped (a panic unwinding, or a caller that stopped waiting), and no tool
    /// may outlive the kit that started it.
    pub(super) fn abandon(&mut self) {
        if self.phase != Phase::Done {
            self.process.signal_group(Signal::SIGKILL);
            self.process.reap_in_background();
            self.phase = Phase::Done;
        }
    }

    /// The record, once done.
    pub(super) fn into_record(mut self, kit_wait: Option<Duration>) -> RunRecord {
        drop(self.stdin.take());
        // Orphans of this run or earlier ones that ended are conform's to reap.
        orphans::reap_ended();
        self.record.timed_out = self.killed_at.is_some();
        self.record.exit = match self.process.status() {
            Some(exit) if !self.record.timed_out => exit,
            _ => Exit::Unknown,
        };
        let ended = self
            .killed_at
            .or(self.process.exited_at())
            .unwrap_or_else(Instant::now);
        self.record.duration = ended.saturating_duration_since(self.started);
        self.record.cpu_wait = self.demand.finish(kit_wait);
        self.record.processes_seen = self.demand.take_processes_seen();
        self.record.killed_by_kit = self.kill.map(|kill| KitKill {
            exit: self.process.status().unwrap_or(Exit::Unknown),
            ..kill
        });
        self.record.stdout = std::mem::take(&mut self.stdout.captured);
        self.record.stderr = std::mem::take(&mut self.stderr.captured);
        // Every way a run ends (exit, limit, cancel, abort) comes through here, after
        // the group was killed: nothing of the tool writes into the sandbox any more.
        let group = self.group();
        self.record.sandbox = self.sandbox.take().map(|made| made.finish(group));
        if let Some(hole) = self.hole.take() {
            let requests = hole.finish();
            self.record.proxy_connections = Some(requests.len());
            self.record.proxy_requests = requests;
        }
        self.record
    }

    /// Moves through the phases as far as what has happened allows.
    fn advance(&mut self, now: Instant) {
        loop {
            let before = self.phase;
            match self.phase {
                Phase::Running => {
                    if self.process.has_exited() {
                        // A run is judged once its process exits; a stream once its
                        // stdout has also ended (the reference kit reads streams to
                        // EOF).
                        if self.spec.stream && self.stdout.is_open() {
                            self.phase = Phase::Draining;
                        } else {
                            self.finish(now);
                        }
                    } else if now >= self.deadline {
                        let waiting = self.waiting_on();
                        match self.patience_left(&waiting) {
                            Some(until) => {
                                self.record.held_at_hole = Some(now - self.started);
                                self.deadline = until;
                            }
                            None => self.time_out(now, Some(waiting)),
                        }
                    }
                }
                Phase::TermGrace { until } => {
                    if (self.process.has_exited() && self.pipes_closed()) || now >= until {
                        self.finish(now);
                    }
                }
                Phase::Draining => {
                    if !self.stdout.is_open() {
                        self.finish(now);
                    } else if now >= self.deadline {
                        if !self.stdout.drain() {
                            // A stream whose process exited but whose stdout
                            // something still held at the deadline.
                            self.record.pipe_held_open = true;
                            self.record.held_by = self.holders();
                        }
                        self.finish(now);
                    }
                }
                Phase::Finishing { until } => {
                    let reaped = self.process.has_exited() && self.process.try_reap();
                    if reaped && self.pipes_closed() {
                        self.phase = Phase::Done;
                    } else if now >= until {
                        if !self.drain_pipes() {
                            self.record.pipe_held_open = true;
                            self.record.held_by = self.holders();
                            self.record.orphans_killed = self.end_orphans();
                            self.stdout.abandon();
                            self.stderr.abandon();
                        }
                        self.process.reap_in_background();
                        self.phase = Phase::Done;
                    }
                }
                Phase::Done => {}
            }
            if self.phase == before {
                return;
            }
        }
    }

    /// The new deadline of a run at its limit that is waiting on its black hole and
    /// has patience left (`RunSpec::patience`), once only.
    fn patience_left(&self, waiting: &WaitingOn) -> Option<Instant> {
        let patience = self.spec.patience?;
        let until = self.started + patience.min(LONGEST_LIMIT);
        (self.record.held_at_hole.is_none()
            && *waiting == WaitingOn::BlackHole
            && until > self.deadline)
            .then_some(until)
    }

    /// At the limit (with what the tool was blocked on, read before the SIGTERM so
    /// that it is not how it dies) or on cancel: SIGTERM to the group, then a short
    /// grace in which output is still read.
    fn time_out(&mut self, now: Instant, waiting: Option<WaitingOn>) {
        let at_limit = waiting.is_some();
        if at_limit {
            self.record.waiting_on = waiting;
        }
        self.killed_at = Some(now);
        self.kill = Some(KitKill {
            at_limit,
            signal: Signal::SIGTERM,
            exit: Exit::Unknown,
        });
        self.process.signal_group(Signal::SIGTERM);
        // A stopped process cannot act on SIGTERM until continued.
        self.process.signal_group(Signal::SIGCONT);
        self.phase = Phase::TermGrace {
            until: now + TERM_GRACE,
        };
    }

    /// What the tool's processes are blocked on now (`waiting.rs`), with the last
    /// line it printed when that is a read of stdin or a terminal.
    fn waiting_on(&self) -> WaitingOn {
        let waiting = waiting::read(waiting::Run {
            group: self.group(),
            stdin_pipe: self.stdin_pipe,
            black_hole: self.hole.as_ref().map(Recorder::port),
            isolated: self.hole.as_ref().is_some_and(Recorder::isolated),
        });
        match waiting {
            WaitingOn::Stdin { terminal, .. } => {
                let (last, other) = if self.stderr_last {
                    (&self.stderr, &self.stdout)
                } else {
                    (&self.stdout, &self.stderr)
                };
                WaitingOn::Stdin {
                    terminal,
                    after: waiting::last_line(&last.captured.bytes)
                        .or_else(|| waiting::last_line(&other.captured.bytes)),
                }
            }
            other => other,
        }
    }

    /// Kills what is left of the group and gives the pipes a short grace to reach
    /// EOF. The main process is unreaped here (its exit was observed with
    /// WNOWAIT, or it is still dying), so its pid, the group id, cannot have been
    /// reused by anyone else.
    fn finish(&mut self, now: Instant) {
        if self.spec.trigger.is_some() && self.process.has_exited() {
            // The main process is an unreaped zombie: its run delay can still be
            // read, which a run too short to be sampled needs when a late line N
            // may decide it (other runs pay no /proc read for it).
            let waits = cpu::process_waits(self.process.pid().as_raw());
            self.demand.add_wait(&waits);
        }
        // Still alive after the kit's SIGTERM grace: it is the SIGKILL that ends it.
        if self.kill.is_some() && !self.process.has_exited() {
            if let Some(kill) = &mut self.kill {
                kill.signal = Signal::SIGKILL;
            }
        }
        self.process.signal_group(Signal::SIGKILL);
        self.phase = Phase::Finishing {
            until: now + EOF_GRACE,
        };
    }

    /// The processes (other than the kit) that hold the pipes the kit still has
    /// open, read before the kit lets go of its ends.
    fn holders(&self) -> Vec<holders::PipeHolder> {
        let mut found: Vec<holders::PipeHolder> = [self.stdout.inode(), self.stderr.inode()]
            .into_iter()
            .flatten()
            .flat_map(holders::holders)
            .collect();
        found.sort_by_key(|holder| holder.pid);
        found.dedup_by_key(|holder| holder.pid);
        found
    }

    /// Kills the holders of the pipes, which left the group, with the trees they
    /// belong to, while the kit still has its ends open (`orphans.rs`).
    fn end_orphans(&self) -> Vec<orphans::Orphan> {
        let inodes: Vec<u64> = [self.stdout.inode(), self.stderr.inode()]
            .into_iter()
            .flatten()
            .collect();
        orphans::end_holders(&self.record.held_by, self.process.pid(), &inodes)
    }

    /// Reads both pipes to EOF where it is already there; whether both are closed.
    fn drain_pipes(&mut self) -> bool {
        let stdout = self.stdout.drain();
        let stderr = self.stderr.drain();
        stdout && stderr
    }

    fn pipes_closed(&self) -> bool {
        !self.stdout.is_open() && !self.stderr.is_open()
    }

    /// Writes what the pipe takes of the payload now; once it is all in, or the
    /// tool closed its end, stdin is closed so the tool sees EOF.
    fn write_payload(&mut self) {
        let (Some(payload), Some(pipe)) = (&mut self.payload, &mut self.stdin) else {
            return;
        };
        if payload.write(pipe) {
            self.payload = None;
            self.stdin = None;
        }
    }

    /// Fires the trigger if its line has been read (`trigger.rs`).
    fn maybe_trigger(&mut self) {
        if let Some(outcome) = self.trigger.maybe_fire(&mut self.stdout, &mut self.process) {
            self.record.trigger = outcome;
        }
    }
}

/// The bytes a payload run has left to write on the tool's stdin.
struct Payload {
    bytes: Vec<u8>,
    written: usize,
}

impl Payload {
    /// The payload of `len` bytes for `pipe`, made non-blocking so that a tool that
    /// reads slowly (or not at all) never stalls the reactor.
    fn new(pipe: &File, len: usize) -> Payload {
        use nix::fcntl::{fcntl, FcntlArg, OFlag};
        let flags = fcntl(pipe, FcntlArg::F_GETFL).map(OFlag::from_bits_truncate);
        if let Ok(flags) = flags {
            // Left blocking, a write could stall every run: then nothing is written
            // and the pipe is closed at once (`write` sees the error).
            let _ = fcntl(pipe, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK));
        }
        let nonblocking = flags.is_ok();
        Payload {
            bytes: if nonblocking {
                json_payload(len)
            } else {
                Vec::new()
            },
            written: 0,
        }
    }

    /// Writes until the pipe is full; `true` when there is nothing more to write
    /// (all written, or the tool closed its end).
    fn write(&mut self, pipe: &mut File) -> bool {
        while let Some(rest) = self
            .bytes
            .get(self.written..)
            .filter(|rest| !rest.is_empty())
        {
            match pipe.write(rest) {
                Ok(0) => return true,
                Ok(n) => self.written += n,
                Err(err) if err.kind() == ErrorKind::WouldBlock => return false,
                Err(err) if err.kind() == ErrorKind::Interrupted => {}
                // EPIPE: the tool stopped reading; what it took is what it got.
                Err(_) => return true,
            }
        }
        true
    }
}
