//! Extension checks on how a tool ends: `pipes_closed_on_exit` (nothing it started
//! keeps its output open), `sigterm_handled` (SIGTERM mid-stream cancels cleanly)
//! and `sigpipe_quiet` (a reader that goes away is not an error).

use serde_json::Value;

use super::evidence::quoted;
use super::support::stream_format::lines;
use super::{evidence, CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::exec::{Exit, KitKill, Signal, TriggerOutcome};
use crate::exit::signal_exit_code;
use crate::plan::RunKind;
use crate::profile::ProbeKind;

pub(super) const PIPES_CLOSED_ON_EXIT: CheckSpec = CheckSpec {
    id: CheckId::PipesClosedOnExit,
    name: "pipes_closed_on_exit",
    title: "stdout and stderr reach EOF once the tool has exited: nothing it started holds them",
    level: 1,
    failure_modes: &[17],
    requirements: &["REQ-F-071", "REQ-F-030"],
    extension: true,
    reads: &RunKind::ON_PIPES,
    judge: Judge::Alone(pipes_closed),
};

pub(super) const SIGTERM_HANDLED: CheckSpec = CheckSpec {
    id: CheckId::SigtermHandled,
    name: "sigterm_handled",
    title: "SIGTERM mid-stream ends the stream on a CANCELLED error envelope and exit 143",
    level: 3,
    failure_modes: &[16],
    requirements: &["REQ-F-013"],
    extension: true,
    reads: &[RunKind::Sigterm],
    judge: Judge::Alone(sigterm),
};

pub(super) const SIGPIPE_QUIET: CheckSpec = CheckSpec {
    id: CheckId::SigpipeQuiet,
    name: "sigpipe_quiet",
    title: "A stream whose reader closes stdout exits 0 without a broken-pipe error",
    level: 3,
    failure_modes: &[16],
    requirements: &["REQ-F-014"],
    extension: true,
    reads: &[RunKind::StdoutClosed],
    judge: Judge::Alone(sigpipe),
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
            format!("until the {}s deadline", run.record.limit.as_secs_f64())
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
    if !probes.iter().any(|p| p.interrupt().is_some()) {
        outcome.skip("profile declares no stream probe with signal");
        return outcome;
    }
    for run in ctx.declared_runs() {
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
    let deadline = run.record.limit.as_secs_f64();
    let line_count = lines(&record.stdout.bytes).count();
    if record.trigger != TriggerOutcome::Fired {
        let detail = if record.trigger == TriggerOutcome::AfterExit {
            format!(
                "the tool had already exited when line {after_lines} was read ({line_count} lines in all), so SIGTERM never reached it"
            )
        } else {
            format!(
                "the stream gave {line_count} of {after_lines} lines before it ended or hit the {deadline}s deadline; SIGTERM never sent: lower after_lines"
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
    let expected = signal_exit_code(Signal::SIGTERM);
    if record.exit_code() != Some(expected) {
        outcome.fail(
            run,
            format!(
                "{} after SIGTERM, expected {expected} (128 + SIGTERM, REQ-F-013)",
                run.describe_exit()
            ),
        );
    }
    if let Some(problem) = cancel_line_problem(&record.stdout.bytes) {
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
/// The last line itself, not the first terminal-looking one: a stream whose every
/// line is an envelope (`"ok": true, "error": null`) ends correctly when its last
/// line does; `stream_contract` judges the lines before it.
fn cancel_line_problem(stdout: &[u8]) -> Option<String> {
    let expected = "expected an error envelope with error.code CANCELLED and meta.exit_code 143";
    let Some(last) = lines(stdout).last() else {
        return Some(format!("stdout was empty after SIGTERM; {expected}"));
    };
    let line = match serde_json::from_slice::<Value>(last) {
        Ok(line) if line.is_object() => line,
        _ => {
            let start = String::from_utf8_lossy(last);
            let start: String = start.chars().take(60).collect();
            return Some(format!(
                "the last line after SIGTERM is not a JSON object: {}; {expected}",
                quoted(&start)
            ));
        }
    };
    if line.get("_summary") == Some(&Value::Bool(true)) {
        return Some(format!(
            "the stream ended on its summary line after SIGTERM, as if complete; {expected}"
        ));
    }
    let code = line.pointer("/error/code");
    let declared = line.pointer("/meta/exit_code");
    let terminated = signal_exit_code(Signal::SIGTERM);
    if code != Some(&Value::from("CANCELLED")) || declared != Some(&Value::from(terminated)) {
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
    if !ctx.profile.profile.has_probe(ProbeKind::Stream) {
        outcome.skip("profile declares no stream probe");
        return outcome;
    }
    // A tool that wrote its whole stream and exited before the kit closed stdout
    // is judged too, the evidence saying when the close came: whether it exits
    // first is a race a quiet machine loses either way, and a verdict must not
    // depend on it.
    for run in ctx.declared_runs() {
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
    let deadline = run.record.limit.as_secs_f64();
    if record.trigger == TriggerOutcome::NotReached {
        outcome.fail(
            run,
            "the stream wrote no complete line, so the kit never closed stdout; stream_contract says why",
        );
        return;
    }
    let when = if record.trigger == TriggerOutcome::AfterExit {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One stream line as the spec's Python framework writes it: a full envelope.
    fn envelope_line(ok: bool, error: &str, exit_code: u8) -> String {
        format!(
            r#"{{"ok":{ok},"data":{{"partial":true}},"error":{error},"warnings":[],"meta":{{"exit_code":{exit_code}}}}}"#
        )
    }

    #[test]
    fn the_last_line_is_judged_on_a_stream_of_envelopes() {
        let item = envelope_line(true, "null", 0);
        let cancelled = envelope_line(
            false,
            r#"{"code":"CANCELLED","message":"cancelled","retryable":false}"#,
            143,
        );
        let good = format!("{item}\n{item}\n{cancelled}\n");
        assert_eq!(cancel_line_problem(good.as_bytes()), None);
        // A last line without a newline is still the last line.
        assert_eq!(
            cancel_line_problem(format!("{item}\n{cancelled}").as_bytes()),
            None
        );

        // Cut off after an item: the first line's null error is not what is judged.
        let cut = format!("{item}\n{item}\n");
        let problem = cancel_line_problem(cut.as_bytes()).expect("a problem");
        assert!(
            problem.starts_with("the last line has error.code missing and meta.exit_code 0"),
            "{problem}"
        );
        let wrong_code = envelope_line(false, r#"{"code":"INTERRUPTED"}"#, 143);
        let problem =
            cancel_line_problem(format!("{item}\n{wrong_code}\n").as_bytes()).expect("a problem");
        assert!(problem.contains(r#"error.code "INTERRUPTED""#), "{problem}");
    }

    #[test]
    fn a_summary_prose_or_nothing_last_is_not_a_cancellation() {
        let summary = cancel_line_problem(b"{\"_seq\":1}\n{\"_summary\":true}\n");
        assert!(summary.is_some_and(|p| p.contains("summary line")));
        let prose = cancel_line_problem(b"{\"_seq\":1}\nTerminated\n");
        assert!(prose.is_some_and(|p| p.contains(r#"not a JSON object: "Terminated""#)));
        let blank = cancel_line_problem(b"{\"_seq\":1}\n\n");
        assert!(blank.is_some_and(|p| p.contains("not a JSON object")));
        let empty = cancel_line_problem(b"");
        assert!(empty.is_some_and(|p| p.contains("stdout was empty")));
    }
}
