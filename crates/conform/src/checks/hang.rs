//! `no_hang_stdin_closed` and `no_hang_stdin_open`: the probes' own runs exit within
//! the limit, with stdin at EOF and with a pipe that never delivers a byte.

use super::{CheckId, Context, Outcome};
use crate::plan::RunRole;

pub fn judge_closed(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::NoHangStdinClosed);
    for run in ctx.runs(|r| matches!(r, RunRole::Closed { .. })) {
        outcome.completed(&run);
    }
    outcome
}

pub fn judge_open(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::NoHangStdinOpen);
    for run in ctx.runs(|r| matches!(r, RunRole::Open { .. })) {
        if !outcome.completed(&run) {
            if let Some(last) = outcome.failures.last_mut() {
                if run.record.timed_out {
                    last.detail.push_str(
                        " (stdin was an open pipe that never delivered a byte: the tool waited on it; \
                         never read stdin or prompt unless told to, REQ-F-009)",
                    );
                }
            }
        }
    }
    outcome
}
