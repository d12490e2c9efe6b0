//! `help_off_stdout`: `--help` exits 0 and keeps prose off a non-TTY stdout (empty
//! stdout or an envelope).

use super::support::output::streams_start;
use super::{CheckId, CheckSpec, Context, Judge, Outcome};
use crate::plan::{RunKind, RunRole};

pub(super) const HELP_OFF_STDOUT: CheckSpec = CheckSpec {
    id: CheckId::HelpOffStdout,
    name: "help_off_stdout",
    title: "--help keeps stdout free of prose and exits 0",
    level: 1,
    failure_modes: &[3],
    requirements: &["REQ-F-048"],
    extension: false,
    reads: &[RunKind::Help],
    judge: Judge::Alone(judge),
};

pub(super) fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::HelpOffStdout);
    let Some(run) = ctx.run(RunRole::command(RunKind::Help)) else {
        return outcome;
    };
    if !outcome.completed(&run) {
        return outcome;
    }
    match run.record.exit_code() {
        Some(0) => {
            let stdout = &run.record.stdout.bytes;
            if !stdout.iter().all(u8::is_ascii_whitespace) && ctx.envelope(&run).is_err() {
                outcome.fail(
                    &run,
                    format!(
                        "--help wrote {} bytes of prose to stdout although it is not a terminal; route help to stderr (REQ-F-048)",
                        run.record.stdout.total_bytes
                    ),
                );
            }
        }
        // What it printed shows why: a first-run prompt, a traceback, an error.
        _ => outcome.fail(
            &run,
            format!(
                "--help {}, expected exit 0; {}",
                run.describe_exit(),
                streams_start(&run)
            ),
        ),
    }
    outcome
}
