//! `bare_no_repl`: the bare command with stdin an open pipe that never reaches EOF
//! ends on its own, so an agent that calls a tool with no arguments is never left
//! facing an interactive session (REQ-F-047). Any exit code passes: the bare call's
//! exit policy (REQ-F-068) is `help_version_pure`'s.

use super::support::output::streams_start;
use super::{CheckId, CheckSpec, Context, Judge, Outcome};
use crate::plan::{KitRun, RunKind, RunRole, Subject};

pub(super) const BARE_NO_REPL: CheckSpec = CheckSpec {
    id: CheckId::BareNoRepl,
    name: "bare_no_repl",
    title: "The bare command with stdin open ends on its own: no interactive session (REPL)",
    level: 1,
    failure_modes: &[37, 10],
    requirements: &["REQ-F-047"],
    extension: true,
    reads: &[RunKind::BareOpen, RunKind::KitIsolated],
    judge: Judge::Alone(judge),
};

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::BareNoRepl);
    // The bare call with stdin closed: when it hangs too, the wait is no session
    // (hf's update check waits on the network before anything else).
    let closed = ctx.run(RunRole {
        kind: RunKind::KitIsolated,
        subject: Subject::Kit(KitRun::Bare),
    });
    for run in ctx.runs_of(&[RunKind::BareOpen]) {
        if run.record.error.is_some() {
            outcome.completed(&run); // fails it with the reason
            continue;
        }
        outcome.runs_checked += 1;
        // Ending on its own is all this check asks. Whether a bare call may exit 1
        // (REQ-F-068 says 0) is help_version_pure's to judge: it is no REPL.
        if run.record.timed_out {
            if closed.is_some_and(|closed| closed.record.timed_out) {
                outcome.skip(format!(
                    "the bare call hung with stdin closed as well, so its wait is not \
                     for input: help_version_pure fails that hang ({}; {})",
                    run.planned.label,
                    streams_start(&run)
                ));
                return outcome;
            }
            outcome.fail(
                &run,
                format!(
                    "{} timed out after {}s: with stdin a pipe that never reached EOF it \
                     kept waiting, as an interactive session (REPL) does; {}. Without a \
                     terminal, show help and exit 0, or exit 4 (REQ-F-047)",
                    run.planned.label,
                    run.record.limit.as_secs_f64(),
                    streams_start(&run)
                ),
            );
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, judged, write};
    use crate::checks::Status;
    use crate::exec::Exit;

    #[test]
    fn any_exit_in_time_passes_whatever_it_printed() {
        for code in [0, 1, 4] {
            let outcome = judged(CheckId::BareNoRepl, |_, record| {
                record.exit = Exit::Code(code);
                write(record, "interactive mode needs a terminal\n");
            });
            assert_passed(&outcome, 1);
        }
    }

    #[test]
    fn a_bare_call_that_hangs_with_stdin_closed_too_is_no_repl() {
        let outcome = judged(CheckId::BareNoRepl, |_, record| {
            record.timed_out = true;
            record.exit = Exit::Signal(9);
        });
        assert_eq!(outcome.status(), Status::Skip);
        let reason = outcome.skipped_reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains("hung with stdin closed as well"),
            "{reason}"
        );
    }

    #[test]
    fn a_run_that_waits_on_stdin_fails() {
        let outcome = judged(CheckId::BareNoRepl, |run, record| {
            if run.role.kind == RunKind::KitIsolated {
                return;
            }
            record.timed_out = true;
            record.exit = Exit::Signal(9);
            record.stderr.bytes = b"democli> ".to_vec();
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains("bare (isolated, stdin open) timed out after 5s"),
            "{detail}"
        );
        assert!(detail.contains(r#"stderr starts "democli> ""#), "{detail}");
    }
}
