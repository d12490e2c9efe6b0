//! Process execution: spawn a tool the way every conformance run is made and record
//! what it did, without ever hanging on it.
//!
//! Every run is spawned without a shell in a new process group, with signal
//! dispositions and the signal mask reset, its stdout and stderr drained concurrently
//! up to a byte cap, and a hard limit after which the whole group is killed.
//!
//! Design: a run is data ([`RunSpec`]) and, once started, a non-blocking state
//! machine (`active.rs`: running, TERM grace, stream drain, finishing), which holds
//! its trigger (`trigger.rs`) and its CPU account (`demand.rs`). One
//! [`Reactor`] drives every active run on the calling thread: a single `poll` over
//! each run's stdout and stderr pipes, a pidfd per process (readable when it exits)
//! and a wake pipe for cancellation, with the earliest deadline as its timeout.
//! Nothing ticks and nothing sleeps: an exit, a line, a deadline or a Ctrl-C is
//! handled the moment it happens. Ordering rules stay plain code because one thread
//! sees every event in order: SIGINT right after the read that completes line N but
//! only while the process is alive, the group kill after the exit while the pid is
//! still reserved (the exit is observed with `waitid(WNOWAIT)`, so the zombie keeps
//! the pid and group id until the reap), and giving up on a pipe that an escaped
//! grandchild holds, which is just closing our end.
//!
//! Where `pidfd_open` is not available (Linux before 5.3, other systems, or a
//! seccomp filter that refuses it) a run falls back to a short wait: the poll
//! timeout is capped at 5 ms while such a run is alive, and the exit is observed by a
//! non-blocking wait on its own pid. A SIGCHLD self-pipe was the alternative; it
//! needs a process-wide handler, which would disturb anything else in the process
//! that spawns and waits (a test harness using conform as a library).
//!
//! Timing: at the limit SIGTERM goes to the group, then after a 300 ms grace (during
//! which output is still read) SIGKILL. Once the main process has exited (or been
//! killed) the rest of the group gets SIGKILL and the pipes get 250 ms to reach EOF.
//! A run therefore ends within its limit plus about 0.6 s, whatever the tool does.
//! What still holds the pipes then has left the group; where conform adopts orphans
//! it is killed too (`orphans.rs`).

mod active;
mod blackhole;
mod capture;
mod cpu;
mod demand;
mod dns;
mod farm;
mod holders;
mod janitor;
mod machine;
mod netns;
mod orphans;
mod process;
mod reactor;
mod sandbox;
mod session;
mod spawn;
#[cfg(test)]
mod tests;
mod tls;
mod toolchain;
mod trigger;
mod userns;
mod waiting;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub(crate) use blackhole::{BlackHole, ProxyRequest, Recorder, PROXY_VARS};
pub(crate) use farm::LOG_VAR as SENTINEL_LOG_VAR;
pub(crate) use holders::PipeHolder;
pub(crate) use machine::runs_it_holds;
pub(crate) use netns::{isolation, Isolation, Namespace};
pub(crate) use nix::sys::signal::Signal;
pub use orphans::Orphan;
pub(crate) use orphans::{
    adopt as adopt_orphans, end_all as end_orphans, end_between_runs as end_orphans_between_runs,
};
pub(crate) use reactor::Reactor;
pub(crate) use sandbox::{HoldingFile, SentinelCall};
pub(crate) use sandbox::{
    Needle, Sandbox, SandboxReport, DEPLOYERS, EDITOR_AND_BROWSER_VARS, EDITOR_VARS, INSTALLERS,
    OPENERS, OPENERS_AND_DEPLOYERS, PAGER_VARS, SANDBOX_MARK, SENTINEL_VARS,
};
pub(crate) use session::root as sandbox_root;
pub use session::Cancel;
pub(crate) use session::Session;
pub(crate) use userns::enter as enter_user_namespace;
pub(crate) use waiting::WaitingOn;

/// Makes one run as described in the module docs and records what the tool did.
/// Never panics and never outlasts `spec.limit` by more than about a second; a
/// program that cannot be started yields a record with `error` set.
pub(crate) fn run(spec: &RunSpec, session: &Session) -> RunRecord {
    let mut reactor = Reactor::new(session);
    reactor.start(0usize, spec);
    loop {
        if let Some((_, record)) = reactor.wait().into_iter().next() {
            return record;
        }
    }
}

/// Default per-stream capture cap: 16 MiB.
pub const DEFAULT_CAPTURE_LIMIT: usize = 16 * 1024 * 1024;

/// Variables that by themselves switch a tool into plain or JSON mode; removed from
/// every run's environment so a pass proves the tool detected the pipe.
pub(crate) const SCRUBBED_ENV: &[&str] = &[
    "NO_COLOR",
    "CI",
    "GITHUB_ACTIONS",
    "JENKINS_URL",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    // Width and the generic switches a tool must not read unprefixed (REQ-F-056,
    // REQ-F-073): gone from every run, so no baseline carries what a variant sets.
    "COLUMNS",
    "LINES",
    "DEBUG",
    "VERBOSE",
    "LOG_LEVEL",
    "FORMAT",
    "OUTPUT",
];

/// What the tool's stdin is connected to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StdinMode {
    /// `/dev/null`: the tool reads EOF at once.
    Closed,
    /// A pipe the kit holds open and never writes: a tool that reads stdin blocks.
    Open,
    /// A pipe the kit writes one JSON object of exactly this many bytes into
    /// ([`json_payload`]), as fast as the tool reads it and while its output is
    /// drained, then closes.
    Payload(usize),
}

impl StdinMode {
    /// As the result documents name it, which know only `closed` and `open`: a
    /// payload is written on a pipe, so it is `open`; the check that makes such a
    /// run says how many bytes went in.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            StdinMode::Closed => "closed",
            StdinMode::Open | StdinMode::Payload(_) => "open",
        }
    }
}

/// One JSON object of exactly `len` bytes (`{"payload":"xx...x"}`; under 14 bytes,
/// braces around spaces; under 2, spaces): what a tool declaring a stdin cap is
/// fed.
pub(crate) fn json_payload(len: usize) -> Vec<u8> {
    const HEAD: &[u8] = br#"{"payload":""#;
    const TAIL: &[u8] = br#""}"#;
    if len >= HEAD.len() + TAIL.len() {
        let mut bytes = Vec::with_capacity(len);
        bytes.extend_from_slice(HEAD);
        bytes.resize(len - TAIL.len(), b'x');
        bytes.extend_from_slice(TAIL);
        bytes
    } else if len >= 2 {
        let mut bytes = vec![b' '; len];
        bytes[0] = b'{';
        bytes[len - 1] = b'}';
        bytes
    } else {
        vec![b' '; len]
    }
}

/// Something the kit does once `after_lines` complete stdout lines have been read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Trigger {
    pub after_lines: u64,
    pub action: TriggerAction,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TriggerAction {
    /// Send this signal to the tool's process (not its group), if it is still alive.
    Signal(Signal),
    /// Close the kit's end of stdout (the tool's next write gets EPIPE or SIGPIPE),
    /// then keep waiting for the exit.
    CloseStdout,
}

/// Where the tool's output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// stdout and stderr on pipes of their own.
    Pipes,
    /// stdin, stdout and stderr on a pseudo-terminal of this size, the tool's
    /// controlling terminal in a session of its own; what it writes is read as
    /// stdout. The kit never writes to it, so `stdin` is ignored: a tool that waits
    /// for keyboard input waits until the limit.
    Terminal { cols: u16, rows: u16 },
    /// Only stdout on a pseudo-terminal of this size, in raw mode (no LF to CRLF
    /// translation, so it holds exactly the bytes the tool wrote); stdin is
    /// `/dev/null` whatever `stdin` says, stderr a pipe.
    StdoutTerminal { cols: u16, rows: u16 },
}

/// What the tool's network traffic meets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Network {
    /// Whatever the machine gives it.
    Inherited,
    /// Every proxy variable points at a listener made for this run alone, which
    /// accepts and never answers (`blackhole.rs`); the bypass variables are unset.
    /// The listener lives exactly as long as the run.
    BlackHole,
}

/// Everything needed to make one run.
#[derive(Debug, Clone)]
pub(crate) struct RunSpec {
    /// Resolved executable.
    pub program: PathBuf,
    /// Arguments after the program (the profile's command prefix tail + the probe's argv).
    pub args: Vec<String>,
    /// Working directory: the profile's directory.
    pub cwd: PathBuf,
    /// Variables set on top of the scrubbed inherited environment (after
    /// `TERM=xterm-256color`), e.g. `NO_COLOR=1`.
    pub env_set: Vec<(String, String)>,
    /// Variables removed besides the scrubbed ones, e.g. `DISPLAY`.
    pub env_remove: Vec<String>,
    pub stdin: StdinMode,
    /// Hard limit for the run: at it the whole process group is killed.
    pub limit: Duration,
    /// Per-stream byte cap; bytes past it are drained and counted, not kept.
    pub capture_limit: usize,
    /// Stream mode: read until EOF of stdout or the limit, instead of judging the
    /// run once the main process exits.
    pub stream: bool,
    /// After N stdout lines: a signal, or closing stdout.
    pub trigger: Option<Trigger>,
    /// Pipes, or a pseudo-terminal.
    pub output: Output,
    /// A sandbox made for the run and removed after it.
    pub sandbox: Option<Sandbox>,
    pub network: Network,
    /// How long a run found waiting on its black hole at `limit` is let go on
    /// (`None`: it is stopped at the limit like any other): a tool that gives up on
    /// an unanswered call by itself shows when, which `network_timeout` judges.
    pub patience: Option<Duration>,
    /// Spawned in this network namespace, a shared black hole's (exploration's),
    /// when the run has no black hole of its own.
    pub namespace: Option<Arc<Namespace>>,
}

/// How long a run held at the black hole is let go on past its limit, in all: long
/// enough to see a client's own timeout and retries end (30 s three times is common).
pub(crate) const NETWORK_PATIENCE: Duration = Duration::from_secs(120);

/// Bytes captured from one output stream.
#[derive(Debug, Clone, Default)]
pub(crate) struct Captured {
    /// The first `capture_limit` bytes.
    pub bytes: Vec<u8>,
    /// Every byte the tool wrote, kept or not.
    pub total_bytes: u64,
    /// `total_bytes > bytes.len()`.
    pub truncated: bool,
}

/// How the main process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// Exited with this code.
    Code(i32),
    /// Killed by this signal number (not by the kit at the limit: see `timed_out`).
    Signal(i32),
    /// Never observed ending (killed by the kit at the limit, or spawn failed).
    Unknown,
}

/// What one run did: the evidence every check reads.
#[derive(Debug, Clone)]
pub(crate) struct RunRecord {
    /// Program + args as spawned (lossy strings for display).
    pub argv: Vec<String>,
    pub stdin: StdinMode,
    /// Environment changes relative to the kit's own environment, as `NAME=value`
    /// for set variables and `-NAME` for removed ones (only those actually present).
    pub env_changes: Vec<String>,
    pub exit: Exit,
    /// The run's limit as it was made (a derived run's may differ from its plan's).
    pub limit: Duration,
    /// The run hit its limit and the kit killed the process group.
    pub timed_out: bool,
    pub duration: Duration,
    pub stdout: Captured,
    pub stderr: Captured,
    /// What became of the run's trigger, if it had one.
    pub trigger: TriggerOutcome,
    /// After the main process exited, something (an escaped grandchild) held stdout
    /// or stderr open past the grace period; the kit stopped waiting. For a stream,
    /// also set when its process exited but stdout was still open at the limit.
    pub pipe_held_open: bool,
    /// The run did not get as far as the tool doing anything to judge.
    pub error: Option<RunError>,
    /// What happened in the run's sandbox, when it had one.
    pub sandbox: Option<SandboxReport>,
    /// The kit killed the tool (at its limit, or because conform was cancelled),
    /// kept apart from `exit`, which stays the tool's own ending (`Unknown` then,
    /// as the reference checks read it).
    pub killed_by_kit: Option<KitKill>,
    /// When the kit gave up on a held stdout or stderr: the processes that still
    /// held it, where `/proc` shows them.
    pub held_by: Vec<PipeHolder>,
    /// How long the tool, and the kit reading it, waited for a CPU.
    pub cpu_wait: CpuWait,
    /// When time decided this run while the machine kept the tool from the CPU,
    /// the run was made again alone and this record is the second attempt: the
    /// first is kept here, for the evidence.
    pub first_attempt: Option<Box<RunRecord>>,
    /// The second attempt was starved as the first was: time decided both while the
    /// machine kept the tool or the kit from the CPU, so the run is inconclusive.
    pub starved_again: bool,
    /// The processes the tool left behind that conform then killed: the holders and
    /// the trees they belong to, when conform adopts orphans (`orphans.rs`).
    pub orphans_killed: Vec<Orphan>,
    /// Connections the run's black-hole proxy took (`None`: it had none): how
    /// often the tool went for the network.
    pub proxy_connections: Option<usize>,
    /// What each of those connections asked for, in the order they came.
    pub proxy_requests: Vec<ProxyRequest>,
    /// The command names (`comm`) of the processes seen in the tool's group by the
    /// CPU samples (every 100 ms, so a process that lived shorter may be missed),
    /// each once, at most 32: a pager the tool started shows here.
    pub processes_seen: Vec<String>,
    /// For a run the kit stopped at its limit: what its processes were blocked on
    /// right before the kit's SIGTERM (`waiting.rs`).
    pub waiting_on: Option<WaitingOn>,
    /// When the run reached its limit waiting on the black hole and was let go on
    /// for its patience: how long it had run then.
    pub held_at_hole: Option<Duration>,
}

/// What became of a trigger after N lines: read by every check, never recomputed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum TriggerOutcome {
    /// No trigger, or stdout ended (or the limit came) before line N.
    #[default]
    NotReached,
    /// Line N was read while the tool ran: the signal was delivered, or stdout was
    /// closed.
    Fired,
    /// Line N was read only after the tool's process had exited: a signal is not
    /// sent (a close still happens, to no effect).
    AfterExit,
}

/// Whether a run had the CPU it asked for: where time decided a verdict, this says
/// whether the time was the tool's or the machine's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CpuWait {
    /// Time the tool spent runnable but waiting for a CPU: at each look at
    /// `/proc`, the most delayed thread's growth in the scheduler's run delay
    /// (zero where it cannot be read).
    pub tool: Duration,
    /// Time conform's own reactor thread was kept from the run while it was going:
    /// its wait for a CPU, or, when longer, the longest stretch it spent on other
    /// work away from `poll` (judging another profile, say). A late read of line N is the
    /// kit's delay, not the tool's.
    pub kit: Duration,
    /// The most runs this conform had in flight at once while this one was going.
    pub in_flight: usize,
}

impl CpuWait {
    /// The longer of the two waits: what kept the run from being timed fairly.
    pub(crate) fn longest(&self) -> Duration {
        self.tool.max(self.kit)
    }
}

/// How the kit ended a tool that was still running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KitKill {
    /// At the run's limit (false: conform was cancelled).
    pub at_limit: bool,
    /// The last signal the kit needed: SIGTERM when the process ended in the grace
    /// that follows it, SIGKILL when it was still alive after.
    pub signal: Signal,
    /// How the process then ended: an exit code if it handled SIGTERM and exited
    /// in the grace, else the signal that killed it.
    pub exit: Exit,
}

/// Why a run has nothing of the tool to judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunError {
    pub kind: RunErrorKind,
    /// For the evidence, e.g. "cannot run ./tool: No such file or directory".
    pub message: String,
}

/// Whose failure a [`RunError`] is: the words a check reports depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunErrorKind {
    /// The tool could not be started.
    Spawn,
    /// conform itself failed while making the run: a bug in the kit, not the tool.
    Internal,
}

impl RunRecord {
    /// The record of `spec` before anything happened: what was asked for, no exit.
    pub(crate) fn new(spec: &RunSpec) -> RunRecord {
        RunRecord {
            argv: std::iter::once(spec.program.to_string_lossy().into_owned())
                .chain(spec.args.iter().cloned())
                .collect(),
            stdin: spec.stdin,
            env_changes: spawn::env_changes(spec),
            exit: Exit::Unknown,
            limit: spec.limit,
            timed_out: false,
            duration: Duration::ZERO,
            stdout: Captured::default(),
            stderr: Captured::default(),
            trigger: TriggerOutcome::NotReached,
            pipe_held_open: false,
            error: None,
            sandbox: None,
            killed_by_kit: None,
            held_by: Vec::new(),
            cpu_wait: CpuWait::default(),
            first_attempt: None,
            starved_again: false,
            orphans_killed: Vec::new(),
            proxy_connections: None,
            proxy_requests: Vec::new(),
            processes_seen: Vec::new(),
            waiting_on: None,
            held_at_hole: None,
        }
    }

    /// What the run was still doing when the kit stopped it at its limit, in
    /// words ("blocked reading stdin after printing `Name:`"); `None` when it did
    /// not hit its limit or nothing of it could be read.
    pub(crate) fn still_running(&self) -> Option<String> {
        match self.waiting_on.as_ref()? {
            WaitingOn::Unknown => None,
            waiting => Some(waiting.describe(&self.proxy_requests)),
        }
    }

    /// Whether time, rather than the tool alone, decided how this run ended, and
    /// over how long: it hit its limit (its duration), its line N came after the
    /// exit (the run up to it), or a pipe was still held when the grace after the
    /// exit ran out (the run and that grace). Such an outcome is trusted only when
    /// the tool had the CPU it asked for.
    pub(crate) fn time_decided_over(&self) -> Option<Duration> {
        if self.timed_out || self.trigger == TriggerOutcome::AfterExit {
            Some(self.duration)
        } else if self.pipe_held_open {
            Some(self.duration + active::EOF_GRACE)
        } else {
            None
        }
    }

    /// Exit code, if the process exited normally.
    pub(crate) fn exit_code(&self) -> Option<i32> {
        match self.exit {
            Exit::Code(c) => Some(c),
            _ => None,
        }
    }
}
