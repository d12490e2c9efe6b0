//! `invalid_input_exit_2`: every invalid probe exits exactly 2 (REQ-F-002: 2 means
//! "validation failed, nothing happened").

use super::{CheckId, CheckSpec, Context, Judge, Outcome};
use crate::plan::RunKind;
use crate::profile::ProbeKind;

pub(super) const INVALID_INPUT_EXIT_2: CheckSpec = CheckSpec {
    id: CheckId::InvalidInputExit2,
    name: "invalid_input_exit_2",
    title: "Invalid input exits 2 before side effects",
    level: 1,
    failure_modes: &[14, 1],
    requirements: &["REQ-F-002"],
    extension: false,
    reads: &[RunKind::Closed],
    judge: Judge::Alone(judge),
};

pub(super) fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::InvalidInputExit2);
    if !ctx.profile.profile.has_probe(ProbeKind::Invalid) {
        outcome.skip("profile declares no invalid probe");
        return outcome;
    }
    let runs = ctx.probe_runs(RunKind::Closed, ProbeKind::Invalid);
    for run in runs {
        if !run.finished() {
            continue; // no_hang_stdin_closed reports it
        }
        outcome.runs_checked += 1;
        let code = run.record.exit_code();
        if code != Some(2) {
            let why = match code {
                Some(0) => "; it accepted the invalid input as if it were valid".to_string(),
                Some(1) => {
                    "; agents need 2 to know the input was rejected before anything happened"
                        .to_string()
                }
                _ => String::new(),
            };
            outcome.fail(
                &run,
                format!("{} for invalid input, expected 2{why}", run.describe_exit()),
            );
        }
    }
    outcome
}
