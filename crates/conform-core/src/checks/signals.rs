//! Extension checks on how a tool ends: `pipes_closed_on_exit` (nothing it started
//! keeps its output open), `sigterm_handled` (SIGTERM mid-stream cancels cleanly)
//! and `sigpipe_quiet` (a reader that goes away is not an error).

use serde_json::Value;

use super::evidence::quoted;
use super::stream::{parse_stream, ParsedStream};
use super::{evidence, CheckId, CheckSpec, Context, Judged, Outcome, Variant};
use crate::exec::{Exit, KitKill, Signal};
use crate::plan::RunRole;
use crate::profile::ProbeKind;

pub(super) const PIPES_CLOSED_ON_EXIT: CheckSpec = CheckSpec {
    id: CheckId::PipesClosedOnExit,
    name: "pipes_closed_on_exit",
    title: "stdout and stderr reach EOF once the tool has exited: nothing it started holds them",
    level: 1,
    failure_modes: &[],
    requirements: &["REQ-F-071", "REQ-F-030"],
    extension: true,
    reads: Variant::ON_PIPES,
    judge: pipes_closed,
};

pub(super) const SIGTERM_HANDLED: CheckSpec = CheckSpec {
    id: CheckId::SigtermHandled,
    name: "sigterm_handled",
    title: "SIGTERM mid-stream ends the stream on a CANCELLED error envelope and exit 143",
    level: 3,
    failure_modes: &[],
    requirements: &["REQ-F-013"],
    extension: true,
    reads: &[Variant::Sigterm],
    judge: sigterm,
};

pub(super) const SIGPIPE_QUIET: CheckSpec = CheckSpec {
    id: CheckId::SigpipeQuiet,
    name: "sigpipe_quiet",
    title: "A stream whose reader closes stdout exits 0 without a broken-pipe error",
    level: 3,
    failure_modes: &[],
    requirements: &["REQ-F-014"],
    extension: true,
    reads: &[Variant::StdoutClosed],
    judge: sigpipe,
};

/// What a tool must not print when its reader goes away.
const BROKEN_PIPE_WORDS: &[&str] = &[
    "Broken pipe",
    "BrokenPipe",
    "EPIPE",
    "Traceback",
    "panicked",
];

fn pipes_closed(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::PipesClosedOnExit);
    for run in ctx.runs(|_| true) {
        if !run.finished() {
            continue; // the hang checks report it
        }
        outcome.runs_checked += 1;
        if !run.record.pipe_held_open {
            continue;
        }
        let holders: Vec<String> = run
            .record
            .held_by
            .iter()
            .map(|holder| process(holder.pid, &holder.cmdline))
            .collect();
        let held = if holders.is_empty() {
            "by a process /proc does not show to the kit".to_string()
        } else {
            format!("by {}", holders.join(", "))
        };
        let when = if run.planned.spec.stream {
            format!(
                "until the {}s deadline",
                run.planned.spec.limit.as_secs_f64()
            )
        } else {
            "past the grace after the kit killed what was left of its process group".to_string()
        };
        let killed: Vec<String> = run
            .record
            .orphans_killed
            .iter()
            .map(|orphan| process(orphan.pid, &orphan.cmdline))
            .collect();
        let after = if killed.is_empty() {
            String::new()
        } else {
            format!(
                "; conform then killed what it left running: {}",
                killed.join(", ")
            )
        };
        outcome.fail(
            &run,
            format!(
                "the tool {} but its output pipe stayed open {when}, held {held}: a process that left the group keeps a reader waiting for EOF (REQ-F-071){after}",
                run.describe_exit()
            ),
        );
    }
    outcome
}

/// A process as a detail names it: `pid 12 (sleep 60)`, or `pid 12`.
fn process(pid: i32, cmdline: &str) -> String {
    match cmdline {
        "" => format!("pid {pid}"),
        cmdline => format!("pid {pid} ({cmdline})"),
    }
}

fn sigterm(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::SigtermHandled);
    let probes = &ctx.profile.profile.probes;
    if !probes.iter().any(|p| p.after_lines.is_some()) {
        outcome.skip("profile declares no stream probe with signal");
        return outcome;
    }
    for run in ctx.runs(|r| matches!(r, RunRole::Sigterm { .. })) {
        let after_lines = run.planned.spec.trigger.map_or(0, |t| t.after_lines);
        judge_sigterm(&mut outcome, &run, after_lines);
    }
    outcome
}

fn judge_sigterm(outcome: &mut Outcome, run: &Judged<'_>, after_lines: u64) {
    outcome.runs_checked += 1;
    let record = run.record;
    if let Some(error) = &record.error {
        outcome.fail(run, super::error_detail(error));
        return;
    }
    let deadline = run.planned.spec.limit.as_secs_f64();
    let parsed = parse_stream(&record.stdout.bytes);
    if !record.trigger_fired {
        let detail = if record.trigger_after_exit {
            format!(
                "the tool had already exited when line {after_lines} was read ({} lines in all), so SIGTERM never reached it",
                parsed.lines
            )
        } else {
            format!(
                "the stream gave {} of {after_lines} lines before it ended or hit the {deadline}s deadline; SIGTERM never sent: lower after_lines",
                parsed.lines
            )
        };
        outcome.fail(run, detail);
        return;
    }
    if let Some(kill) = record.killed_by_kit {
        outcome.fail(run, ignored(kill, deadline));
        return;
    }
    if record.pipe_held_open {
        outcome.fail(
            run,
            format!("the tool {} after SIGTERM but its stdout stayed open until the {deadline}s deadline", run.describe_exit()),
        );
        return;
    }
    if record.exit_code() != Some(143) {
        outcome.fail(
            run,
            format!(
                "{} after SIGTERM, expected 143 (128 + SIGTERM, REQ-F-013)",
                run.describe_exit()
            ),
        );
    }
    if let Some(problem) = cancel_line_problem(&parsed) {
        outcome.fail(run, problem);
    }
}

/// Why a tool that got SIGTERM was still there for the kit to kill.
fn ignored(kill: KitKill, deadline: f64) -> String {
    let ended = match kill.exit {
        Exit::Code(code) => format!("then exited {code} on the kit's SIGTERM"),
        Exit::Signal(n) => format!("the kit's {} ended it", evidence::signal_name(n)),
        Exit::Unknown => format!("the kit sent {}", kill.signal.as_str()),
    };
    format!("still running at the {deadline}s deadline after SIGTERM: it ignored the signal, and {ended}")
}

/// What is wrong with the stream's last line as a SIGTERM cancellation, if anything.
fn cancel_line_problem(parsed: &ParsedStream) -> Option<String> {
    let expected = "expected an error envelope with error.code CANCELLED and meta.exit_code 143";
    let Some(terminal) = parsed.terminal() else {
        return Some(format!("no terminal line after SIGTERM; {expected}"));
    };
    if parsed.is_summary() {
        return Some(format!(
            "the stream ended on its summary line after SIGTERM, as if complete; {expected}"
        ));
    }
    let code = terminal.pointer("/error/code");
    let declared = terminal.pointer("/meta/exit_code");
    if code != Some(&Value::from("CANCELLED")) || declared != Some(&Value::from(143)) {
        let show = |v: Option<&Value>| v.map_or_else(|| "missing".into(), Value::to_string);
        return Some(format!(
            "the last line has error.code {} and meta.exit_code {}; {expected}",
            show(code),
            show(declared)
        ));
    }
    None
}

fn sigpipe(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::SigpipeQuiet);
    if !ctx
        .profile
        .profile
        .probes
        .iter()
        .any(|p| p.kind == ProbeKind::Stream)
    {
        outcome.skip("profile declares no stream probe");
        return outcome;
    }
    for run in ctx.runs(|r| matches!(r, RunRole::StdoutClosed { .. })) {
        judge_sigpipe(&mut outcome, &run);
    }
    outcome
}

fn judge_sigpipe(outcome: &mut Outcome, run: &Judged<'_>) {
    outcome.runs_checked += 1;
    let record = run.record;
    if let Some(error) = &record.error {
        outcome.fail(run, super::error_detail(error));
        return;
    }
    let deadline = run.planned.spec.limit.as_secs_f64();
    if !record.trigger_fired {
        outcome.fail(
            run,
            "the stream wrote no complete line, so the kit never closed stdout; stream_contract says why",
        );
        return;
    }
    // Either way the evidence says when the close came: a tool that wrote
    // everything and exited before the first line was read is not tested further.
    let when = if record.trigger_after_exit {
        "the kit closed stdout after the tool had exited"
    } else {
        "the kit closed stdout after the first line while the tool ran"
    };
    if record.killed_by_kit.is_some() {
        outcome.fail(
            run,
            format!("{when}; the tool was still running at the {deadline}s deadline and the kit killed it"),
        );
        return;
    }
    match record.exit {
        Exit::Code(0) => {}
        Exit::Signal(n) if n == Signal::SIGPIPE as i32 => outcome.fail(
            run,
            format!("{when}; it was killed by SIGPIPE: a shell reports 141 and `set -o pipefail` pipelines break (REQ-F-014)"),
        ),
        _ => outcome.fail(
            run,
            format!("{when}; it {}, expected 0: a reader that stops early is not an error (REQ-F-014)", run.describe_exit()),
        ),
    }
    let stderr = String::from_utf8_lossy(&record.stderr.bytes);
    if let Some(word) = BROKEN_PIPE_WORDS.iter().find(|word| stderr.contains(*word)) {
        outcome.fail(
            run,
            format!(
                "{when}; its stderr says {}: a closed pipe is the reader's choice, not an error to report (REQ-F-014)",
                quoted(word)
            ),
        );
    }
}
