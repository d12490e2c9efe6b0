//! Executing a plan: up to `jobs` runs at once, each started as soon as the runs it
//! waits for have finished. Results are stored by plan index, so the report's order
//! never depends on the scheduling.

use std::any::Any;
use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::{Condvar, Mutex};

use crate::exec::{RunError, RunErrorKind, RunRecord, RunSpec};
use crate::plan::{Plan, RunIndex};

/// What happened to each planned run, by plan index: `None` when it was not made
/// because its gate run hit the limit.
pub type Records = Vec<Option<RunRecord>>;

struct State {
    ready: VecDeque<RunIndex>,
    /// Unfinished prerequisites per run.
    waiting: Vec<usize>,
    /// Runs not yet finished (made or dropped).
    outstanding: usize,
    records: Records,
}

/// Make every run of `plan` with `run`, at most `jobs` at a time.
pub fn execute<F>(plan: &Plan, jobs: usize, run: F) -> Records
where
    F: Fn(&RunSpec) -> RunRecord + Sync,
{
    let count = plan.runs.len();
    let mut dependents: Vec<Vec<RunIndex>> = vec![Vec::new(); count];
    let mut waiting = vec![0usize; count];
    for (index, planned) in plan.runs.iter().enumerate() {
        for &before in &planned.after {
            dependents[before].push(index);
            waiting[index] += 1;
        }
    }
    let state = Mutex::new(State {
        ready: (0..count).filter(|&i| waiting[i] == 0).collect(),
        waiting,
        outstanding: count,
        records: vec![None; count],
    });
    let wake = Condvar::new();
    let workers = jobs.clamp(1, count.max(1));

    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let next = {
                    let mut guard = lock(&state);
                    loop {
                        if let Some(index) = guard.ready.pop_front() {
                            break Some(index);
                        }
                        if guard.outstanding == 0 {
                            break None;
                        }
                        guard = wake
                            .wait(guard)
                            .unwrap_or_else(|poisoned| poisoned.into_inner());
                    }
                };
                let Some(index) = next else { return };
                let gated_out = {
                    let guard = lock(&state);
                    plan.runs[index].gate.is_some_and(|gate| {
                        guard.records[gate].as_ref().is_none_or(|r| r.timed_out)
                    })
                };
                // After conform was interrupted, runs not yet started are skipped.
                let skip = gated_out || crate::exec::cancel_requested();
                let record = (!skip).then(|| make(&plan.runs[index].spec, &run));
                let mut guard = lock(&state);
                guard.records[index] = record;
                guard.outstanding -= 1;
                for &next in &dependents[index] {
                    guard.waiting[next] -= 1;
                    if guard.waiting[next] == 0 {
                        guard.ready.push_back(next);
                    }
                }
                drop(guard);
                wake.notify_all();
            });
        }
    });
    state
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .records
}

/// One run, a panic in it becoming that run's error record: a worker that died
/// would leave the others waiting forever for its run to finish.
fn make<F>(spec: &RunSpec, run: &F) -> RunRecord
where
    F: Fn(&RunSpec) -> RunRecord,
{
    // Unwind-safe enough: after a panic only its message is used, and the scheduler
    // reads nothing the run was in the middle of changing.
    match std::panic::catch_unwind(AssertUnwindSafe(|| run(spec))) {
        Ok(record) => record,
        Err(payload) => RunRecord {
            error: Some(RunError {
                kind: RunErrorKind::Internal,
                message: format!(
                    "conform's run of this command panicked: {}",
                    panic_message(payload.as_ref())
                ),
            }),
            ..RunRecord::new(spec)
        },
    }
}

/// The text `panic!` was given; other payloads (from `panic_any`) have none.
fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}

/// A worker that panicked while holding the lock leaves consistent state behind
/// (every update is a few plain assignments), so keep going rather than cascade.
fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Captured, Exit, RunRecord, StdinMode};
    use crate::plan::{PlannedRun, RunRole};
    use std::sync::Mutex;
    use std::time::Duration;

    fn planned(label: &str, after: Vec<RunIndex>, gate: Option<RunIndex>) -> PlannedRun {
        PlannedRun {
            label: label.to_string(),
            role: RunRole::Help,
            spec: RunSpec {
                program: label.into(),
                args: vec![],
                cwd: ".".into(),
                env_set: vec![],
                stdin: StdinMode::Closed,
                limit: Duration::from_secs(1),
                capture_limit: 1,
                stream: false,
                interrupt: None,
            },
            after,
            gate,
        }
    }

    fn record(timed_out: bool) -> RunRecord {
        RunRecord {
            argv: vec![],
            stdin: StdinMode::Closed,
            env_changes: vec![],
            exit: if timed_out {
                Exit::Unknown
            } else {
                Exit::Code(0)
            },
            timed_out,
            duration: Duration::ZERO,
            stdout: Captured::default(),
            stderr: Captured::default(),
            signal_sent: false,
            pipe_held_open: false,
            error: None,
        }
    }

    #[test]
    fn dependencies_order_runs_and_a_timed_out_gate_drops_its_followers() {
        // 0 times out and gates 1; 2 must follow 3; 3 is free.
        let plan = Plan {
            runs: vec![
                planned("hangs", vec![], None),
                planned("gated", vec![0], Some(0)),
                planned("after", vec![3], None),
                planned("first", vec![], None),
            ],
        };
        for jobs in [1, 2, 8] {
            let order = Mutex::new(Vec::new());
            let records = execute(&plan, jobs, |spec| {
                let name = spec.program.display().to_string();
                order.lock().expect("lock").push(name.clone());
                record(name == "hangs")
            });
            let order = order.into_inner().expect("lock");
            assert!(records[0].as_ref().is_some_and(|r| r.timed_out));
            assert!(
                records[1].is_none(),
                "a run gated by a timed-out run is not made"
            );
            assert!(records[2].is_some() && records[3].is_some());
            let pos = |n: &str| order.iter().position(|x| x == n);
            assert!(pos("first") < pos("after"), "jobs {jobs}: {order:?}");
            assert_eq!(order.len(), 3);
        }
    }

    #[test]
    fn a_panicking_run_becomes_its_error_record_and_the_rest_go_on() {
        // 1 panics; 2 waits for it; 0 and 3 are free.
        let plan = Plan {
            runs: vec![
                planned("fine", vec![], None),
                planned("panics", vec![], None),
                planned("after", vec![1], None),
                planned("also fine", vec![], None),
            ],
        };
        for jobs in [1, 2, 8] {
            let records = execute(&plan, jobs, |spec| {
                if spec.program.as_os_str() == "panics" {
                    panic!("boom at {}", spec.program.display());
                }
                record(false)
            });
            let failed = records[1].as_ref().expect("the panicking run has a record");
            let error = failed.error.as_ref().expect("an error record");
            assert_eq!(error.kind, RunErrorKind::Internal, "jobs {jobs}");
            assert_eq!(
                error.message,
                "conform's run of this command panicked: boom at panics"
            );
            assert_eq!(failed.argv, ["panics"]);
            for index in [0, 2, 3] {
                let made = records[index].as_ref().expect("made");
                assert!(made.error.is_none(), "jobs {jobs}: run {index}");
            }
        }
    }
}
