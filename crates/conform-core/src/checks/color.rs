//! `no_color_honored`: with `NO_COLOR=1`, no ANSI escape on stdout or stderr.

use super::support::output::find_ansi;
use super::{CheckId, CheckSpec, Context, Judge, Outcome};
use crate::plan::RunKind;

pub(super) const NO_COLOR_HONORED: CheckSpec = CheckSpec {
    id: CheckId::NoColorHonored,
    name: "no_color_honored",
    title: "NO_COLOR=1 removes ANSI from stdout and stderr",
    level: 1,
    failure_modes: &[8],
    requirements: &["REQ-F-008"],
    extension: false,
    reads: &[RunKind::NoColor],
    judge: Judge::Alone(judge),
};

pub(super) fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::NoColorHonored);
    for run in ctx.declared_runs() {
        if !outcome.completed(&run) {
            continue;
        }
        let streams = [
            ("stdout", &run.record.stdout.bytes),
            ("stderr", &run.record.stderr.bytes),
        ];
        let colored: Vec<String> = streams
            .iter()
            .filter_map(|(name, bytes)| find_ansi(bytes).map(|at| format!("{name} at byte {at}")))
            .collect();
        if !colored.is_empty() {
            outcome.fail(
                &run,
                format!("ANSI escape sequences with NO_COLOR=1 set: {} (REQ-F-008: NO_COLOR disables color on both streams)", colored.join(", ")),
            );
        }
    }
    outcome
}
