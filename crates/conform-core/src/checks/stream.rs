//! `stream_contract` and `stream_sigint` (REQ-O-004, REQ-F-069): a stream is JSON
//! object lines ending on exactly one terminal line (a summary or an error envelope)
//! that agrees with the exit code; SIGINT mid-stream ends it on a CANCELLED envelope
//! with `data.partial` true and exit 130.

use serde_json::Value;

use super::support;
use super::support::stream_format::{parse_stream, ParsedStream};
use super::{CheckId, CheckSpec, Context, Family, Judge, Judged, Outcome};
use crate::exec::{Signal, TriggerOutcome};
use crate::exit::signal_exit_code;
use crate::plan::RunKind;

pub(super) const STREAM_CONTRACT: CheckSpec = CheckSpec {
    id: CheckId::StreamContract,
    name: "stream_contract",
    title: "Every stream line is a JSON object and the stream ends on exactly one terminal line that matches the exit code",
    level: 3,
    failure_modes: &[5, 76],
    requirements: &["REQ-O-004"],
    extension: false,
    reads: &[RunKind::Stream],
    judge: Judge::Family(&FAMILY),
};

pub(super) const STREAM_SIGINT: CheckSpec = CheckSpec {
    id: CheckId::StreamSigint,
    name: "stream_sigint",
    title: "SIGINT mid-stream ends the stream on a CANCELLED error envelope with data.partial true and exit 130, as REQ-F-069 defines",
    level: 3,
    failure_modes: &[16],
    requirements: &["REQ-O-004", "REQ-F-069"],
    extension: false,
    reads: &[RunKind::Stream],
    judge: Judge::Family(&FAMILY),
};

/// The two are judged in one pass over each stream run, parsed once.
static FAMILY: Family = Family {
    name: "stream",
    judge: |ctx| {
        let out = judge(ctx);
        vec![out.contract, out.sigint]
    },
};

pub(super) struct StreamOutcomes {
    pub contract: Outcome,
    pub sigint: Outcome,
}

pub(super) fn judge(ctx: &Context<'_>) -> StreamOutcomes {
    let mut out = StreamOutcomes {
        contract: Outcome::new(CheckId::StreamContract),
        sigint: Outcome::new(CheckId::StreamSigint),
    };
    let probes = &ctx.profile.profile.probes;
    let streams: Vec<_> = probes
        .iter()
        .filter(|p| p.kind == crate::profile::ProbeKind::Stream)
        .collect();
    if streams.is_empty() {
        out.contract.skip("profile declares no stream probe");
    }
    if !streams.iter().any(|p| p.interrupt().is_some()) {
        out.sigint
            .skip("profile declares no stream probe with signal");
    }
    for run in ctx.declared_runs() {
        let Some(probe) = run.planned.role.probe_index() else {
            continue;
        };
        let deadline = run.planned.spec.limit.as_secs_f64();
        let parsed = parse_stream(&run.record.stdout.bytes);
        contract(&mut out.contract, &run, &parsed, deadline);
        if let Some((_, after_lines)) = probes[probe].interrupt() {
            sigint(&mut out.sigint, &run, &parsed, after_lines, deadline);
        }
    }
    out
}

fn contract(outcome: &mut Outcome, run: &Judged<'_>, parsed: &ParsedStream, deadline: f64) {
    outcome.runs_checked += 1;
    if let Some(error) = &run.record.error {
        outcome.fail(run, super::error_detail(error));
        return;
    }
    let stdout = &run.record.stdout;
    if stdout.truncated {
        outcome.fail(
            run,
            format!(
                "the stream wrote {} bytes, past the {} capture cap; the kit judged only what it kept",
                stdout.total_bytes,
                support::output::human_bytes(run.planned.spec.capture_limit as u64)
            ),
        );
    }
    for problem in &parsed.problems {
        outcome.fail(run, problem.clone());
    }
    if parsed.problem_count > parsed.problems.len() {
        outcome.fail(
            run,
            format!(
                "{} more stream lines break the contract",
                parsed.problem_count - parsed.problems.len()
            ),
        );
    }
    let code = run.record.exit_code();
    if run.record.timed_out {
        let seen = if parsed.terminal().is_some() {
            "its terminal line".to_string()
        } else {
            format!("{} lines and no terminal line", parsed.lines)
        };
        outcome.fail(run, format!("still running at the {deadline}s deadline after {seen}; the kit killed its process group"));
    } else if run.record.pipe_held_open {
        // The reference kit reads a stream to EOF and counts this as a hang too.
        outcome.fail(run, held_stdout(run, deadline));
    } else if parsed.terminal().is_none() {
        outcome.fail(
            run,
            format!(
                "stdout ended after {} lines without a terminal line (a \"_summary\": true line or an error envelope); an agent cannot tell a complete stream from a cut one",
                parsed.lines
            ),
        );
    } else if parsed.is_summary() {
        if code != Some(0) {
            outcome.fail(
                run,
                format!(
                    "the stream ended on its summary line but {}, expected 0",
                    run.describe_exit()
                ),
            );
        }
    } else if let Some(declared) = parsed.terminal().and_then(|t| t.pointer("/meta/exit_code")) {
        if code.map(i64::from) != declared.as_i64() {
            outcome.fail(
                run,
                format!("the terminal error envelope declares meta.exit_code {declared} but the process {}", run.describe_exit()),
            );
        }
    }
}

/// A stream whose process exited while something it started held stdout open to
/// the deadline: an agent reading to EOF waits just as long as for a hang.
fn held_stdout(run: &Judged<'_>, deadline: f64) -> String {
    format!(
        "the tool {} but its stdout stayed open until the {deadline}s deadline: a process it started held the pipe, so a reader waiting for EOF hangs",
        run.describe_exit()
    )
}

fn sigint(
    outcome: &mut Outcome,
    run: &Judged<'_>,
    parsed: &ParsedStream,
    after_lines: u64,
    deadline: f64,
) {
    outcome.runs_checked += 1;
    if let Some(error) = &run.record.error {
        outcome.fail(run, super::error_detail(error));
        return;
    }
    if run.record.trigger != TriggerOutcome::Fired {
        let detail = if run.record.trigger == TriggerOutcome::AfterExit {
            format!(
                "the tool had already exited when line {after_lines} was read ({} lines in all), so SIGINT never reached it: it wrote its stream at once at the end instead of line by line as produced (REQ-O-004), or the stream is too short for after_lines {after_lines}",
                parsed.lines
            )
        } else if run.record.timed_out {
            format!(
                "only {} of {after_lines} lines before the {deadline}s deadline; SIGINT never sent",
                parsed.lines
            )
        } else {
            format!(
                "the stream ended after {} lines, before after_lines {after_lines}; SIGINT never sent: lower after_lines",
                parsed.lines
            )
        };
        outcome.fail(run, detail);
        return;
    }
    if run.record.timed_out {
        outcome.fail(run, format!("no exit within the {deadline}s deadline after SIGINT; the kit killed its process group"));
        return;
    }
    if run.record.pipe_held_open {
        outcome.fail(run, held_stdout(run, deadline));
        return;
    }
    let code = run.record.exit_code();
    let expected = signal_exit_code(Signal::SIGINT);
    if code != Some(expected) {
        outcome.fail(
            run,
            format!(
                "{} after SIGINT, expected {expected} (128 + SIGINT, REQ-F-069)",
                run.describe_exit()
            ),
        );
    }
    match parsed.terminal() {
        None => outcome.fail(run, "no terminal line after SIGINT; expected an error envelope with error.code CANCELLED"),
        Some(_) if parsed.is_summary() => outcome.fail(
            run,
            "the stream ended on its summary line after SIGINT, as if complete; expected an error envelope with error.code CANCELLED",
        ),
        Some(terminal) => {
            let code = terminal.pointer("/error/code");
            if code.and_then(Value::as_str) != Some("CANCELLED") {
                outcome.fail(
                    run,
                    format!(
                        "the terminal error envelope after SIGINT has error.code {}, expected \"CANCELLED\"",
                        code.map_or_else(|| "missing".to_string(), Value::to_string)
                    ),
                );
            }
            if terminal.pointer("/data/partial") != Some(&Value::Bool(true)) {
                outcome.fail(
                    run,
                    format!(
                        "the terminal error envelope after SIGINT has data {}, expected data.partial true",
                        terminal.get("data").map_or_else(|| "missing".to_string(), Value::to_string)
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::support::stream_format::REPORTED_PROBLEMS;

    fn problems(text: &str) -> Vec<String> {
        parse_stream(text.as_bytes()).problems
    }

    #[test]
    fn numbered_stream_with_summary_passes() {
        let text =
            "{\"_seq\":1}\n{\"heartbeat\":true}\n{\"_seq\":2}\n{\"_summary\":true,\"_count\":2}\n";
        assert!(problems(text).is_empty(), "{:?}", problems(text));
    }

    #[test]
    fn gaps_and_counts_are_caught() {
        let p = problems("{\"_seq\":1}\n{\"_seq\":3}\n{\"_summary\":true,\"_count\":3}\n");
        assert!(p.iter().any(|m| m.contains("_seq 3, expected 2")), "{p:?}");
        assert!(p.iter().any(|m| m.contains("_count is 3")), "{p:?}");
    }

    #[test]
    fn unnumbered_stream_must_not_carry_seq() {
        let p = problems("{\"a\":1}\n{\"a\":2,\"_seq\":2}\n{\"_summary\":true}\n");
        assert!(p.iter().any(|m| m.contains("line 2 carries _seq")), "{p:?}");
    }

    #[test]
    fn prose_blank_and_trailing_lines_fail() {
        let p = problems("starting\n\n{\"_summary\":true}\n{\"x\":1}\n");
        assert_eq!(p.len(), 3, "{p:?}");
    }

    #[test]
    fn a_flood_of_bad_lines_keeps_a_few_and_counts_the_rest() {
        let mut text = "x\n".repeat(10);
        text.push_str("{\"_summary\":true}\n{}\n{}\n");
        let parsed = parse_stream(text.as_bytes());
        assert_eq!(parsed.lines, 13);
        assert_eq!(parsed.problems.len(), REPORTED_PROBLEMS);
        assert!(parsed.problems[0].starts_with("line 1 is not JSON"));
        // Ten prose lines and one report for the lines after the terminal one.
        assert_eq!(parsed.problem_count, 11);
        assert!(parsed.is_summary());
    }

    #[test]
    fn an_error_terminal_gives_the_last_seq() {
        let terminal = "{\"ok\":false,\"error\":{\"code\":\"X\"},\"meta\":{\"items_emitted\":1}}";
        let parsed =
            parse_stream(format!("{{\"_seq\":1}}\n{{\"_seq\":2}}\n{terminal}\n").as_bytes());
        assert!(!parsed.is_summary() && parsed.terminal().is_some());
        assert!(
            parsed
                .problems
                .iter()
                .any(|m| m.contains("items_emitted is 1 but the last _seq is 2")),
            "{:?}",
            parsed.problems
        );
    }

    /// A million-line numbered stream, judged as `stream_contract` judges a run.
    /// Linear judging takes about a second; anything quadratic in the lines would
    /// take many minutes, so the test run itself shows the difference.
    #[test]
    fn a_million_line_stream_is_judged_in_linear_time() {
        use crate::exec::{Captured, Exit, RunRecord, RunSpec, StdinMode};
        use crate::plan::PlannedRun;
        use std::fmt::Write;
        use std::time::Duration;

        const ITEMS: usize = 1_000_000;
        let mut text = String::with_capacity(ITEMS * 20);
        for seq in 1..=ITEMS {
            let _ = writeln!(text, "{{\"_seq\":{seq}}}");
        }
        let _ = writeln!(text, "{{\"_summary\":true,\"_count\":{ITEMS}}}");
        let bytes = text.into_bytes();
        let planned = PlannedRun {
            label: "stream".to_string(),
            role: crate::plan::RunRole::probe(RunKind::Stream, 0),
            spec: RunSpec {
                program: "tool".into(),
                args: vec![],
                cwd: ".".into(),
                env_set: vec![],
                stdin: StdinMode::Closed,
                limit: Duration::from_secs(10),
                capture_limit: crate::exec::DEFAULT_CAPTURE_LIMIT,
                stream: true,
                trigger: None,
                output: crate::exec::Output::Pipes,
                sandbox: None,
                network: crate::exec::Network::Inherited,
                patience: None,
                namespace: None,
                env_remove: Vec::new(),
            },
            after: vec![],
            gate: None,
            derived: None,
            stdin_by_design: None,
            made: None,
        };
        let record = RunRecord {
            exit: Exit::Code(0),
            stdout: Captured {
                total_bytes: bytes.len() as u64,
                bytes,
                truncated: false,
            },
            ..RunRecord::new(&planned.spec)
        };
        let run = Judged {
            index: 0,
            planned: &planned,
            record: &record,
        };
        let parsed = parse_stream(&run.record.stdout.bytes);
        assert_eq!(parsed.lines, ITEMS + 1);
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        let mut outcome = Outcome::new(CheckId::StreamContract);
        contract(&mut outcome, &run, &parsed, 10.0);
        assert_eq!(outcome.runs_checked, 1);
        assert!(outcome.failures.is_empty());
    }
}
