//! `no_hang_stdin_closed` and `no_hang_stdin_open`: the probes' own runs exit within
//! the limit, with stdin at EOF and with a pipe that never delivers a byte.

use super::support::output::streams_start;
use super::{CheckId, CheckSpec, Context, Judge, Outcome};
use crate::plan::RunKind;

pub(super) const NO_HANG_STDIN_CLOSED: CheckSpec = CheckSpec {
    id: CheckId::NoHangStdinClosed,
    name: "no_hang_stdin_closed",
    title: "Completes with stdin closed",
    level: 1,
    failure_modes: &[10, 11],
    requirements: &["REQ-F-009", "REQ-F-010"],
    extension: false,
    reads: &[RunKind::Closed],
    judge: Judge::Alone(judge_closed),
};

pub(super) const NO_HANG_STDIN_OPEN: CheckSpec = CheckSpec {
    id: CheckId::NoHangStdinOpen,
    name: "no_hang_stdin_open",
    title: "Completes with an open, silent stdin pipe",
    level: 1,
    failure_modes: &[50, 10],
    requirements: &["REQ-F-009"],
    extension: false,
    reads: &[RunKind::Open],
    judge: Judge::Alone(judge_open),
};

pub(super) fn judge_closed(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::NoHangStdinClosed);
    for run in ctx.declared_runs() {
        outcome.completed(&run);
    }
    outcome
}

pub(super) fn judge_open(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::NoHangStdinOpen);
    for run in ctx.declared_runs() {
        if !outcome.completed(&run) {
            if let Some(last) = outcome.failures.last_mut() {
                if run.record.timed_out {
                    last.detail.push_str(
                        " (stdin was an open pipe that never delivered a byte: the tool waited on it; \
                         never read stdin or prompt unless told to, REQ-F-009); ",
                    );
                    last.detail.push_str(&streams_start(&run));
                }
            }
        }
    }
    outcome
}
