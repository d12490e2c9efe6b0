//! Process execution: spawn a tool the way every conformance run is made and record
//! what it did, without ever hanging on it.
//!
//! Every run is spawned without a shell in a new process group, with signal
//! dispositions and the signal mask reset, its stdout and stderr drained concurrently
//! up to a byte cap, and a hard limit after which the whole group is killed.

use std::path::PathBuf;
use std::time::Duration;

/// Default per-stream capture cap: 16 MiB.
pub const DEFAULT_CAPTURE_LIMIT: usize = 16 * 1024 * 1024;

/// Variables that by themselves switch a tool into plain or JSON mode; removed from
/// every run's environment so a pass proves the tool detected the pipe.
pub const SCRUBBED_ENV: &[&str] = &[
    "NO_COLOR",
    "CI",
    "GITHUB_ACTIONS",
    "JENKINS_URL",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
];

/// What the tool's stdin is connected to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdinMode {
    /// `/dev/null`: the tool reads EOF at once.
    Closed,
    /// A pipe the kit holds open and never writes: a tool that reads stdin blocks.
    Open,
}

impl StdinMode {
    pub fn as_str(self) -> &'static str {
        match self {
            StdinMode::Closed => "closed",
            StdinMode::Open => "open",
        }
    }
}

/// Send SIGINT to the tool's process (not its group) as soon as `after_lines`
/// stdout lines have been read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupt {
    pub after_lines: u64,
}

/// Everything needed to make one run.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Resolved executable.
    pub program: PathBuf,
    /// Arguments after the program (the profile's command prefix tail + the probe's argv).
    pub args: Vec<String>,
    /// Working directory: the profile's directory.
    pub cwd: PathBuf,
    /// Variables set on top of the scrubbed inherited environment (after
    /// `TERM=xterm-256color`), e.g. `NO_COLOR=1`.
    pub env_set: Vec<(String, String)>,
    pub stdin: StdinMode,
    /// Hard limit for the run: at it the whole process group is killed.
    pub limit: Duration,
    /// Per-stream byte cap; bytes past it are drained and counted, not kept.
    pub capture_limit: usize,
    /// Stream mode: read until EOF of stdout or the limit, instead of judging the
    /// run once the main process exits.
    pub stream: bool,
    /// Stream probes with `signal`: SIGINT after N lines.
    pub interrupt: Option<Interrupt>,
}

/// Bytes captured from one output stream.
#[derive(Debug, Clone, Default)]
pub struct Captured {
    /// The first `capture_limit` bytes.
    pub bytes: Vec<u8>,
    /// Every byte the tool wrote, kept or not.
    pub total_bytes: u64,
    /// `total_bytes > bytes.len()`.
    pub truncated: bool,
}

/// How the main process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Exited with this code.
    Code(i32),
    /// Killed by this signal number (not by the kit at the limit: see `timed_out`).
    Signal(i32),
    /// Never observed ending (killed by the kit at the limit, or spawn failed).
    Unknown,
}

/// What one run did: the evidence every check reads.
#[derive(Debug, Clone)]
pub struct RunRecord {
    /// Program + args as spawned (lossy strings for display).
    pub argv: Vec<String>,
    pub stdin: StdinMode,
    /// Environment changes relative to the kit's own environment, as `NAME=value`
    /// for set variables and `-NAME` for removed ones (only those actually present).
    pub env_changes: Vec<String>,
    pub exit: Exit,
    /// The run hit its limit and the kit killed the process group.
    pub timed_out: bool,
    pub duration: Duration,
    pub stdout: Captured,
    pub stderr: Captured,
    /// Stream runs with an interrupt: whether SIGINT was sent (the Nth line arrived
    /// while the process was alive).
    pub signal_sent: bool,
    /// After the main process exited, something (an escaped grandchild) held stdout
    /// or stderr open past the grace period; the kit stopped waiting.
    pub pipe_held_open: bool,
    /// The tool could not be started at all (spawn error text).
    pub spawn_error: Option<String>,
}

impl RunRecord {
    /// Exit code, if the process exited normally.
    pub fn exit_code(&self) -> Option<i32> {
        match self.exit {
            Exit::Code(c) => Some(c),
            _ => None,
        }
    }
}
