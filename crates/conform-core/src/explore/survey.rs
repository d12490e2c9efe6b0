//! What `conform check`'s plan takes from exploration, so that the budget buys
//! sight and not the same run twice:
//!
//! - **The exploration run is the survey's stdin-closed run.** It was made stdin
//!   closed, in a fresh HOME, at the black hole, with the editor and browser
//!   sentinels: what the survey's closed run would show. A probe judged by its
//!   survey alone takes that record instead of a new run, unless a sentinel ran
//!   in it (its pager sentinel would have swallowed stdout) or it could not be run.
//!   A probe judged in depth makes its own: the depth checks compare its data with
//!   runs made from the scratch directory, not from the bait.
//! - **The headless run is the survey's stdin-open run.** Under `check` both are
//!   isolated, stdin an open pipe, credentials unset, at the black hole: a probe
//!   judged by its survey alone makes one and reads it twice.
//! - **Patience is spent once per host.** A run held at the black hole is let go
//!   on for the network patience to learn whether the tool gives up by itself. One
//!   run per host learns it: the first probe whose exploration run waited there
//!   (its closed run, made again with the whole patience). Every other probe whose
//!   exploration run waited only on hosts already measured ends at its own limit,
//!   and `network_timeout` judges it by the measured run.
//! - **A signal during the help calls still gives an answer.** The kit's own
//!   `--help` runs are help calls already made: they take those records.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::exec::{Output, RunRecord, StdinMode, WaitingOn};
use crate::plan::{Made, Plan, RunKind, Subject};

/// How many of its limits a run at the black hole lasts when it is not the run
/// that measures its host's wait.
pub(crate) const SHORT_PATIENCE: u32 = 2;

/// The hosts a run asked for and waited on (connections that carried a request).
fn hosts(record: &RunRecord) -> BTreeSet<String> {
    record
        .proxy_requests
        .iter()
        .filter(|request| !request.unsent)
        .map(|request| request.host.clone().unwrap_or_default())
        .collect()
}

/// Whether an exploration run was still waiting on the black hole at its limit.
fn held_at_hole(record: &RunRecord) -> bool {
    record.timed_out
        && (record.waiting_on == Some(WaitingOn::BlackHole) || !hosts(record).is_empty())
}

/// Whether an exploration record shows what the survey's closed run would.
fn stands_for_closed(record: &RunRecord) -> bool {
    record.error.is_none()
        && !record.starved_again
        && record
            .sandbox
            .as_ref()
            .is_none_or(|report| report.sentinel_calls.is_empty())
}

/// The exploration record of a run made with these arguments (after the program).
fn explored<'a>(
    explored: &'a [(Vec<String>, RunRecord)],
    args: &[String],
) -> Option<&'a RunRecord> {
    explored
        .iter()
        .find(|(made, _)| made.as_slice() == args)
        .map(|(_, record)| record)
}

/// Applies the rules above to `plan`: `explored` holds the exploration records by
/// arguments, `survey_only` the probes judged by their survey alone, `patience`
/// the whole patience a black-hole run is given.
pub(crate) fn take_from_exploration(
    plan: &mut Plan,
    explored_runs: &[(Vec<String>, RunRecord)],
    survey_only: &BTreeSet<usize>,
    patience: Duration,
) {
    let mut measured: BTreeSet<String> = BTreeSet::new();
    for index in 0..plan.runs.len() {
        let run = &plan.runs[index];
        let Some(probe) = run.role.probe_index() else {
            continue;
        };
        if run.role.kind != RunKind::Closed {
            continue;
        }
        let Some(record) = explored(explored_runs, &run.spec.args) else {
            continue;
        };
        let waited_on = hosts(record);
        let held = held_at_hole(record);
        // The first probe to wait on a host measures it, with the whole patience.
        let measures = held && !waited_on.is_subset(&measured);
        if held {
            measured.extend(waited_on);
        }
        let run = &mut plan.runs[index];
        if run.spec.patience.is_some() {
            run.spec.patience = Some(if measures {
                patience
            } else {
                run.spec.limit * SHORT_PATIENCE
            });
        }
        if survey_only.contains(&probe) && !measures && stands_for_closed(record) {
            run.made = Some(Made::Before(Box::new(record.clone())));
        }
    }
    // A survey-only probe's open run is its headless run.
    for index in 0..plan.runs.len() {
        let run = &plan.runs[index];
        let Some(probe) = run.role.probe_index() else {
            continue;
        };
        if run.role.kind != RunKind::Open || !survey_only.contains(&probe) {
            continue;
        }
        let headless = plan.runs.iter().position(|other| {
            other.role.kind == RunKind::Headless && other.role.probe_index() == Some(probe)
        });
        if let Some(headless) = headless {
            let run = &mut plan.runs[index];
            run.made = Some(Made::SameAs(headless));
            run.after.push(headless);
        }
    }
}

/// Whether a run of the survey costs nothing for a probe judged by its survey
/// alone: its closed run when exploration made it, its open run beside a
/// headless one.
pub(crate) fn free_in_survey(
    plan: &Plan,
    index: usize,
    explored_runs: &[(Vec<String>, RunRecord)],
) -> bool {
    let run = &plan.runs[index];
    match run.role.kind {
        RunKind::Closed => explored(explored_runs, &run.spec.args).is_some(),
        RunKind::Open => plan.runs.iter().any(|other| {
            other.role.kind == RunKind::Headless
                && other.role.probe_index() == run.role.probe_index()
        }),
        _ => false,
    }
}

/// The kit's own runs (`--help`, stdin closed, on pipes) that are help calls made
/// while exploring, when a signal ended exploration (`looked`): they take those
/// records, and the checks they feed are judged from them.
pub(crate) fn take_help_calls(plan: &mut Plan, looked: &[(Vec<String>, RunRecord)]) {
    for run in &mut plan.runs {
        // The kit's runs: of no probe (the root `--help`, the isolated ones).
        let kit = matches!(run.role.subject, Subject::Kit(_) | Subject::Command);
        if !kit || run.spec.stdin != StdinMode::Closed || run.spec.output != Output::Pipes {
            continue;
        }
        if let Some(record) = explored(looked, &run.spec.args) {
            run.made = Some(Made::Before(Box::new(record.clone())));
        }
    }
}
