//! Evidence: what a run did, bounded so that a report stays readable and small
//! whatever the tool printed.
//!
//! Two shapes: [`Failure`] is the reference kit's evidence entry, exactly the seven
//! fields the published ConformanceResult allows; [`Evidence`] is conform's full
//! record of a failing run ([`RunFacts`] plus the detail), for reporters and
//! `--json-report`.

use serde::Serialize;

use super::Judged;
use crate::exec::{Exit, Output, ProxyRequest, SandboxReport, TriggerAction, TriggerOutcome};

/// Bytes of stdout/stderr quoted in evidence.
pub(crate) const EXCERPT_BYTES: usize = 2048;

/// `text` as a JSON string literal, for quoting a tool's output or a name in a
/// failure detail: the escapes (`\"`, `\n`, `\u001b`) are the ones every reader of
/// a JSON report already decodes.
pub(crate) fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// A sentinel call as a detail shows it: the name it was called by, then each
/// argument quoted (`xdg-open "https://example.com"`).
pub(crate) fn sentinel_call(call: &crate::exec::SentinelCall) -> String {
    std::iter::once(call.name.clone())
        .chain(call.argv.iter().map(|arg| quoted(arg)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Everything conform records about one made run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct RunFacts {
    /// The run's label: the probe's name first, or `--help`, `manifest`, ...
    pub probe: String,
    /// JSON pointer of the profile entry the run comes from (`/probes/3`,
    /// `/argument_order`, `/manifest`, `/command`); `LoadedProfile::locations` turns
    /// it into a line and column.
    pub pointer: String,
    pub argv: Vec<String>,
    pub stdin: &'static str,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub duration_ms: u64,
    /// Signal that ended the process, when it did not exit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// Environment changes relative to the kit's: `NAME=value` set, `-NAME` removed.
    pub env: Vec<String>,
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    pub stdout_excerpt: String,
    pub stderr_excerpt: String,
    /// After the tool exited, something it started held its output open; the kit
    /// stopped waiting.
    pub pipe_held_open: bool,
    /// The run could not be made as planned (the program did not start, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// For a run in a sandbox: what the sentinel logged and what files appeared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxReport>,
    /// The kit ended the tool (at its limit, or conform was cancelled), kept apart
    /// from how the tool itself ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub killed_by_kit: Option<KitKillFacts>,
    /// The processes that still held stdout or stderr when the kit gave up on it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held_by: Vec<HolderFacts>,
    /// The processes the tool left behind that conform then killed (the holders and
    /// their trees), when it adopts orphans.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub orphans_killed: Vec<HolderFacts>,
    /// For a run with a trigger after N lines: whether it fired, and whether line N
    /// came only after the tool had exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<TriggerFacts>,
    /// For a run whose proxies pointed at a black hole: the connections it took
    /// (the tool went for the network that often).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_connections: Option<usize>,
    /// What each of those connections asked for: host, port, path when visible.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub proxy_requests: Vec<ProxyRequest>,
    /// Whether the run had the CPU it asked for.
    pub cpu_wait: CpuWaitFacts,
    /// The first attempt, when the run was made again alone because time decided
    /// it while the machine kept it from the CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_attempt: Option<Box<RunFacts>>,
    /// The second attempt was starved too: inconclusive, and no check's verdict
    /// rests on it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub starved_again: bool,
    /// For a run the kit stopped at its limit: what its processes were blocked on
    /// right before the kit's SIGTERM.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_on: Option<WaitingFacts>,
    /// When it reached its limit waiting on the black hole and was let go on to see
    /// whether it gives up by itself: how long it had run then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_at_hole_ms: Option<u64>,
    /// For a run on a pseudo-terminal: its size, and what was on it (`conform
    /// replay` makes it on one again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal: Option<TerminalFacts>,
}

/// A run's pseudo-terminal: its size, and whether stdin and stderr were on it too
/// (`whole`) or stdout alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct TerminalFacts {
    pub cols: u16,
    pub rows: u16,
    pub whole: bool,
}

impl TerminalFacts {
    fn of(output: Output) -> Option<TerminalFacts> {
        match output {
            Output::Pipes => None,
            Output::Terminal { cols, rows } => Some(TerminalFacts {
                cols,
                rows,
                whole: true,
            }),
            Output::StdoutTerminal { cols, rows } => Some(TerminalFacts {
                cols,
                rows,
                whole: false,
            }),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct CpuWaitFacts {
    pub tool_ms: u64,
    pub kit_ms: u64,
    pub in_flight: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct KitKillFacts {
    pub at_limit: bool,
    /// The last signal the kit needed: SIGTERM, or SIGKILL when the tool outlived
    /// the grace after SIGTERM.
    pub signal: String,
    /// How the tool then ended: its exit code, or the signal that killed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_signal: Option<String>,
}

/// A process: a pipe's holder, or an orphan conform killed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct HolderFacts {
    pub pid: i32,
    pub cmdline: String,
}

/// What a run was blocked on at its limit: `kind` for machines (`stdin`,
/// `terminal`, `black_hole`, `network`, `socket`, `listening`, `child`, `busy`,
/// `nothing`, `unknown`), `detail` in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct WaitingFacts {
    pub kind: String,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TriggerFacts {
    pub fired: bool,
    pub after_exit: bool,
}

impl RunFacts {
    pub(crate) fn of(run: &Judged<'_>) -> RunFacts {
        let r = run.record;
        let millis = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        RunFacts {
            probe: run.planned.label.clone(),
            pointer: run.planned.role.pointer(),
            argv: r.argv.clone(),
            stdin: r.stdin.as_str(),
            exit_code: r.exit_code(),
            timed_out: r.timed_out,
            duration_ms: millis(r.duration),
            signal: match r.exit {
                Exit::Signal(n) => Some(signal_name(n)),
                _ => None,
            },
            env: r.env_changes.clone(),
            stdout_bytes: r.stdout.total_bytes,
            stderr_bytes: r.stderr.total_bytes,
            stdout_excerpt: excerpt(&r.stdout.bytes),
            stderr_excerpt: excerpt(&r.stderr.bytes),
            pipe_held_open: r.pipe_held_open,
            error: r.error.as_ref().map(|e| e.message.clone()),
            sandbox: r.sandbox.clone(),
            killed_by_kit: r.killed_by_kit.map(|kill| KitKillFacts {
                at_limit: kill.at_limit,
                signal: kill.signal.as_str().to_string(),
                exit_code: match kill.exit {
                    Exit::Code(code) => Some(code),
                    _ => None,
                },
                exit_signal: match kill.exit {
                    Exit::Signal(n) => Some(signal_name(n)),
                    _ => None,
                },
            }),
            held_by: r
                .held_by
                .iter()
                .map(|h| HolderFacts {
                    pid: h.pid,
                    cmdline: h.cmdline.clone(),
                })
                .collect(),
            trigger: run.planned.spec.trigger.map(|trigger| TriggerFacts {
                // A close still happens after the exit; a signal is not sent.
                fired: match r.trigger {
                    TriggerOutcome::Fired => true,
                    TriggerOutcome::AfterExit => trigger.action == TriggerAction::CloseStdout,
                    TriggerOutcome::NotReached => false,
                },
                after_exit: r.trigger == TriggerOutcome::AfterExit,
            }),
            proxy_connections: r.proxy_connections,
            proxy_requests: r.proxy_requests.clone(),
            cpu_wait: CpuWaitFacts {
                tool_ms: millis(r.cpu_wait.tool),
                kit_ms: millis(r.cpu_wait.kit),
                in_flight: r.cpu_wait.in_flight,
            },
            first_attempt: r.first_attempt.as_deref().map(|first| {
                Box::new(RunFacts::of(&Judged {
                    record: first,
                    ..*run
                }))
            }),
            starved_again: r.starved_again,
            waiting_on: r.waiting_on.as_ref().map(|waiting| WaitingFacts {
                kind: waiting.kind().to_string(),
                detail: waiting.describe(&r.proxy_requests),
            }),
            held_at_hole_ms: r.held_at_hole.map(millis),
            terminal: TerminalFacts::of(run.planned.spec.output),
            orphans_killed: r
                .orphans_killed
                .iter()
                .map(|o| HolderFacts {
                    pid: o.pid,
                    cmdline: o.cmdline.clone(),
                })
                .collect(),
        }
    }
}

/// A failing run: its facts and why it failed the check.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Evidence {
    #[serde(flatten)]
    pub run: RunFacts,
    pub detail: String,
    /// The failure rests on something the run was seen doing (a sentinel called,
    /// a file created, a secret printed), not on what it failed to do in time: a
    /// starved CPU cannot have caused it, so it stands when the run was starved.
    #[serde(skip)]
    pub observed: bool,
    /// For a failure `Outcome::completed` made of a run stopped at its limit: what
    /// the run was still doing, added to the end of the detail once the check is
    /// judged, after anything the check itself added to it.
    #[serde(skip)]
    pub still_running: Option<String>,
}

impl Evidence {
    pub(crate) fn of(run: &Judged<'_>, detail: String) -> Evidence {
        Evidence {
            run: RunFacts::of(run),
            detail,
            observed: false,
            still_running: None,
        }
    }

    /// The reference kit's evidence entry for this failure.
    pub(crate) fn reference(&self) -> Failure {
        Failure {
            probe: self.run.probe.clone(),
            argv: self.run.argv.clone(),
            stdin: self.run.stdin,
            exit_code: self.run.exit_code,
            timed_out: self.run.timed_out,
            duration_ms: self.run.duration_ms,
            detail: self.detail.clone(),
        }
    }
}

/// One failure as the published ConformanceResult has it (a closed object: these
/// seven fields, in the reference kit's order, and nothing else).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Failure {
    pub probe: String,
    pub argv: Vec<String>,
    pub stdin: &'static str,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub duration_ms: u64,
    pub detail: String,
}

/// The start of `bytes`, decoded lossily, with a marker when cut.
pub(crate) fn excerpt(bytes: &[u8]) -> String {
    if bytes.len() <= EXCERPT_BYTES {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut text = String::from_utf8_lossy(&bytes[..EXCERPT_BYTES]).into_owned();
    text.push_str(&format!("... [{} more bytes]", bytes.len() - EXCERPT_BYTES));
    text
}

/// `SIGSEGV` for 11, and so on.
pub(crate) fn signal_name(n: i32) -> String {
    nix::sys::signal::Signal::try_from(n)
        .map_or_else(|_| format!("signal {n}"), |s| s.as_str().to_string())
}
