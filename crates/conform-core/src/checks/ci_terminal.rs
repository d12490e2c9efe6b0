//! `ci_terminal_json`: with `CI=true`, a read probe whose stdout is a terminal still
//! writes one JSON envelope and exits as on pipes, so an agent running under a CI
//! runner's pseudo-terminal gets JSON, not a table (REQ-F-003, REQ-F-008).

use super::evidence::quoted;
use super::support::output::{self, JsonRule};
use super::support::terminal::SetAside;
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::plan::RunKind;
use crate::profile::ProbeKind;

pub(super) const CI_TERMINAL_JSON: CheckSpec = CheckSpec {
    id: CheckId::CiTerminalJson,
    name: "ci_terminal_json",
    title: "With CI=true and stdout a terminal, a read probe exits as on pipes and writes one JSON envelope",
    level: 1,
    failure_modes: &[2, 8],
    requirements: &["REQ-F-003", "REQ-F-008"],
    extension: true,
    reads: &[RunKind::Closed, RunKind::CiTerminal],
    judge: Judge::Alone(judge),
};

/// Bytes of stdout quoted in a failure.
const SHOWN: usize = 200;

const ESC: u8 = 0x1b;

/// Why stdout had to be JSON although it was a terminal.
const UNDER_CI: JsonRule = JsonRule {
    when_empty:
        "with CI set, stdout must carry a JSON envelope even when it is a terminal (REQ-F-003)",
    when_not_json: "with CI set, JSON is the default even when stdout is a terminal (REQ-F-003)",
};

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::CiTerminalJson);
    let mut set_aside = SetAside::default();
    for run in ctx.probe_runs(RunKind::CiTerminal, ProbeKind::Read) {
        let Some(baseline) = ctx.baseline(&run) else {
            continue; // no_hang_stdin_closed reports a baseline that hung
        };
        // A hang on the terminal, or a pager's bytes, say nothing of the format.
        if set_aside.set_aside(&run, "") {
            continue;
        }
        if !outcome.completed(&run) {
            continue;
        }
        let problems = problems(&run, &baseline);
        if !problems.is_empty() {
            outcome.fail(
                &run,
                format!(
                    "{}; stdout starts {} (first {SHOWN} bytes). With CI=true a tool \
                     writes one JSON envelope, without colour, even when stdout is a \
                     terminal (REQ-F-003, REQ-F-008)",
                    problems.join("; "),
                    first_bytes(&run.record.stdout.bytes)
                ),
            );
        }
    }
    if let (0, Some(reason)) = (outcome.runs_checked, set_aside.reason()) {
        outcome.skip(reason);
    } else if outcome.runs_checked == 0 {
        outcome.skip(if ctx.profile.profile.has_probe(ProbeKind::Read) {
            "no read probe's stdin-closed run ended in time, so none ran on a terminal \
             (no_hang_stdin_closed reports it)"
        } else {
            "no read probe in the profile"
        });
    }
    outcome
}

/// What is wrong with the terminal run, in the order an author would fix it.
fn problems(run: &Judged<'_>, baseline: &Judged<'_>) -> Vec<String> {
    let mut problems = Vec::new();
    if run.record.exit != baseline.record.exit {
        problems.push(format!(
            "{} with CI=true on a terminal but {} on pipes without CI",
            run.describe_exit(),
            baseline.describe_exit()
        ));
    }
    let stdout = &run.record.stdout.bytes;
    if let Some(at) = stdout.iter().position(|&b| b == ESC) {
        problems.push(format!(
            "an ESC byte at offset {at} of stdout: colour or cursor codes, which CI turns off"
        ));
    } else if let Err(why) = output::parse_as(run, stdout, &UNDER_CI) {
        problems.push(why);
    }
    problems
}

fn first_bytes(bytes: &[u8]) -> String {
    quoted(&String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, assert_skipped, judged, write};
    use crate::checks::Status;
    use crate::exec::Exit;

    const ENVELOPE: &str = r#"{"ok":true,"data":[{"id":"a"}],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"schema_version":"1.0"}}"#;
    const ERROR_ENVELOPE: &str = r#"{"ok":false,"data":null,"error":{"code":"NOT_FOUND","message":"no such thing","retryable":false},"warnings":[],"meta":{"exit_code":5,"duration_ms":0,"schema_version":"1.0"}}"#;

    fn on_terminal(run: &crate::plan::PlannedRun) -> bool {
        run.role.kind == RunKind::CiTerminal
    }

    #[test]
    fn indented_json_on_the_terminal_passes() {
        let pretty = "{\n  \"ok\": true,\n  \"data\": [{\"id\": \"a\"}],\n  \"error\": null,\n  \
                      \"warnings\": [],\n  \"meta\": {\"exit_code\": 0, \"duration_ms\": 0, \
                      \"schema_version\": \"1.0\"}\n}\n";
        let outcome = judged(CheckId::CiTerminalJson, |run, record| {
            write(record, if on_terminal(run) { pretty } else { ENVELOPE });
        });
        assert_passed(&outcome, 1);
    }

    #[test]
    fn an_error_envelope_with_the_baselines_exit_passes() {
        let outcome = judged(CheckId::CiTerminalJson, |_, record| {
            record.exit = Exit::Code(5);
            write(record, ERROR_ENVELOPE);
        });
        assert_passed(&outcome, 1);
    }

    #[test]
    fn a_table_on_the_terminal_fails_with_its_first_bytes() {
        let outcome = judged(CheckId::CiTerminalJson, |run, record| {
            if on_terminal(run) {
                write(record, "ID   ENV\nd-1  staging\n");
            } else {
                write(record, ENVELOPE);
            }
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.starts_with("stdout is not a single JSON document"),
            "{detail}"
        );
        assert!(
            detail.contains("with CI set, JSON is the default even when stdout is a terminal"),
            "{detail}"
        );
        assert!(
            detail.contains(r#"stdout starts "ID   ENV\nd-1  staging\n" (first 200 bytes)"#),
            "{detail}"
        );
    }

    #[test]
    fn colour_fails_naming_the_esc_byte_and_only_200_bytes_are_shown() {
        let outcome = judged(CheckId::CiTerminalJson, |run, record| {
            if on_terminal(run) {
                write(record, &format!("\u{1b}[32m{}\u{1b}[0m", "x".repeat(300)));
            } else {
                write(record, ENVELOPE);
            }
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains("an ESC byte at offset 0 of stdout"),
            "{detail}"
        );
        let shown = format!(r#"stdout starts "\u001b[32m{}" (first"#, "x".repeat(195));
        assert!(detail.contains(&shown), "{detail}");
    }

    #[test]
    fn an_exit_unlike_the_baselines_fails_naming_both() {
        let outcome = judged(CheckId::CiTerminalJson, |run, record| {
            if on_terminal(run) {
                record.exit = Exit::Code(1);
            }
            write(record, ENVELOPE);
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.starts_with(
                "exited 1 with CI=true on a terminal but exited 0 on pipes without CI; \
                 stdout starts"
            ),
            "{detail}"
        );
    }

    #[test]
    fn prose_on_stderr_and_nothing_on_stdout_fails_even_as_a_failure() {
        let outcome = judged(CheckId::CiTerminalJson, |_, record| {
            record.exit = Exit::Code(1);
            record.stderr.bytes = b"error: no such thing\n".to_vec();
            record.stderr.total_bytes = 21;
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains("stdout is empty (the tool wrote only to stderr); with CI set"),
            "{detail}"
        );
    }

    #[test]
    fn a_run_that_hit_the_limit_on_the_terminal_skips_naming_the_hang() {
        let outcome = judged(CheckId::CiTerminalJson, |run, record| {
            write(record, ENVELOPE);
            if on_terminal(run) {
                record.timed_out = true;
                record.exit = Exit::Unknown;
            }
        });
        assert_skipped(
            &outcome,
            "not judged: \"list (CI=true, stdout on an 80x24 terminal)\" hit the 5s limit \
             on the terminal, though the same call ended in time on pipes",
        );
    }

    #[test]
    fn a_run_whose_output_a_pager_took_skips_naming_the_pager() {
        let outcome = judged(CheckId::CiTerminalJson, |run, record| {
            write(record, ENVELOPE);
            if on_terminal(run) {
                // less on the terminal: the alternate screen, keypad mode, the text.
                write(record, "\u{1b}[?1049h\u{1b}[?1h\u{1b}=ID  ENV\n");
            }
        });
        assert_skipped(
            &outcome,
            "not judged: \"list (CI=true, stdout on an 80x24 terminal)\" paged its output \
             (stdout on the terminal holds a pager's start-up sequence at byte 0 (switch to \
             the alternate screen))",
        );
    }
}
