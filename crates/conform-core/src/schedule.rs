//! Executing plans: every run of every profile in one pool of `jobs` job slots,
//! each run started as soon as the runs it waits for have finished. Results are
//! stored by (plan, run), so the report's order never depends on the scheduling.
//!
//! A job slot is held only while a tool's process is alive, within its limit and
//! working ([`Executor::busy`]): a tool blocked in a sleep or a read, or a run that
//! only waits (a grace, a held pipe) frees its slot for the next run. So the CPUs,
//! not the clock, pace the pool: a run waiting at the black hole costs wall time,
//! not a slot. What bounds the runs in flight is what each keeps (a process and
//! its memory, a few pipes): [`Executor::holds`], from the memory available and
//! the open-file limit, never fewer than [`IN_FLIGHT_PER_JOB`] per job. A run
//! whose tool has stayed blocked for a second (`PARKED_AFTER` in the executor) is
//! parked ([`Executor::parked`]): it waits for its limit, not for a CPU. Runs not
//! parked beyond one per job start only while the machine is not crowded
//! ([`Executor::crowded`]: more runnable tasks than twice its CPUs), so a tool
//! whose processes pile up (workers left running, each wanting a CPU) holds the
//! pool back by the load it makes, not by a fixed count.
//!
//! A run whose outcome time decided (it hit its limit, its line N came after the
//! exit, a pipe was held past the grace) while the machine kept it from the CPU
//! for a meaningful share of its time ([`starved`]) is made again alone before
//! anything is judged on it: once no other run can start and the others have all
//! finished (so the pool drains once for every run made again, not once each). Its
//! second attempt stands, with the first kept as evidence, unless it was starved
//! too: then it is marked `starved_again`, and the checks that read it skip rather
//! than judge time the machine took. A tool blocked in a read or a sleep waits for
//! no CPU, so a real hang is made again only when conform itself was starved.

use std::cell::OnceCell;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::exec::{Reactor, RunError, RunErrorKind, RunRecord, RunSpec};
use crate::exit::panic_message;
use crate::plan::{Made, Plan, RunIndex};

/// Runs in flight at least, per job slot, whatever the machine says it holds.
pub(crate) const IN_FLIGHT_PER_JOB: usize = 8;

/// A run waited for a CPU at least this share of its time (1/STARVED_SHARE) before
/// time decided its outcome: it is made again alone. A tool that hit its limit
/// because the machine starved it waited for most of that limit (a CPU-bound tool
/// among twice as many runnable threads as CPUs waits about half its time); a tool
/// that really hangs, blocked in a read or a sleep, waits only while it starts:
/// measured at load 8 on 2 CPUs, at most about 14% of a 5 s limit for democli's
/// launcher and binary. A quarter lies between the two.
const STARVED_SHARE: u32 = 4;

/// A wait shorter than this never makes a run again, whatever its share: it is
/// within scheduling noise, and a very short run is cheap to judge as it is.
const STARVED_AT_LEAST: Duration = Duration::from_millis(20);

/// Output past which a tool may have blocked in `write` on a pipe or terminal that
/// the kit did not drain (a terminal's buffer is the smaller, at 4 KiB).
const BLOCKING_OUTPUT: u64 = 4096;

/// Whether `record`'s outcome was decided by time while it was kept from the CPU.
/// Whose wait counts depends on what time decided:
/// - at the limit, the tool's; and the kit's too when the tool wrote enough to
///   fill a pipe, since a reactor kept off the CPU leaves the pipe undrained and
///   the writer blocked in `write` until its limit;
/// - for a line N read after the exit, the kit's too: a late read decides it;
/// - for a pipe held past the grace, the tool's: the kit's look after the grace
///   drains whatever has arrived, so a late kit cannot make a closed pipe look held.
pub(crate) fn starved(record: &RunRecord) -> bool {
    let Some(window) = record
        .time_decided_over()
        .filter(|_| record.error.is_none())
    else {
        return false;
    };
    let wrote_a_buffer =
        record.stdout.total_bytes.max(record.stderr.total_bytes) >= BLOCKING_OUTPUT;
    let waited = if record.timed_out {
        if wrote_a_buffer {
            record.cpu_wait.longest()
        } else {
            record.cpu_wait.tool
        }
    } else if record.trigger == crate::exec::TriggerOutcome::AfterExit {
        record.cpu_wait.longest()
    } else {
        record.cpu_wait.tool
    };
    waited >= STARVED_AT_LEAST && waited >= window / STARVED_SHARE
}

pub(crate) use crate::plan::Records;

/// A run of the pool: (plan index, run index within that plan).
pub(crate) type RunKey = (usize, RunIndex);

/// What the scheduler tells its caller as it goes.
#[derive(Debug)]
pub(crate) enum Progress<'a> {
    /// A run was started.
    Started(RunKey),
    /// A run ended: its record, or `None` when it was not made.
    Finished(RunKey, Option<&'a RunRecord>),
    /// Every run of this plan has ended: its records, handed over.
    PlanDone(usize, Records),
}

/// What makes runs: the reactor, or a stand-in in tests.
pub(crate) trait Executor {
    fn start(&mut self, key: RunKey, spec: &RunSpec);
    /// Runs holding a job slot.
    fn busy(&self) -> usize;
    /// Runs started and not yet returned by [`Executor::wait`].
    fn in_flight(&self) -> usize;
    /// Runs in flight whose tool has stayed blocked for a second or more.
    fn parked(&self) -> usize {
        0
    }
    /// More tasks want a CPU than the machine has to give: no run beyond one per
    /// job starts, but those that will only wait.
    fn crowded(&self) -> bool {
        false
    }
    /// How many runs may be in flight at once, never fewer than `floor`.
    fn holds(&self, floor: usize) -> usize {
        floor
    }
    /// Blocks until something happens; returns the runs that finished (maybe none).
    fn wait(&mut self) -> Vec<(RunKey, RunRecord)>;
    /// The suite was cancelled: no further run is made.
    fn cancelled(&self) -> bool;
    /// Nothing is in flight and a run is to be made alone: end what earlier runs
    /// left running outside their process groups.
    fn clear_for_alone(&mut self) {}
}

impl Executor for Reactor<RunKey> {
    fn start(&mut self, key: RunKey, spec: &RunSpec) {
        Reactor::start(self, key, spec);
    }

    fn busy(&self) -> usize {
        Reactor::busy(self)
    }

    fn in_flight(&self) -> usize {
        Reactor::in_flight(self)
    }

    fn parked(&self) -> usize {
        Reactor::parked(self)
    }

    fn crowded(&self) -> bool {
        Reactor::crowded(self)
    }

    fn holds(&self, floor: usize) -> usize {
        crate::exec::runs_it_holds(floor)
    }

    fn wait(&mut self) -> Vec<(RunKey, RunRecord)> {
        Reactor::wait(self)
    }

    fn cancelled(&self) -> bool {
        Reactor::cancelled(self)
    }

    fn clear_for_alone(&mut self) {
        crate::exec::end_orphans_between_runs();
    }
}

/// Bookkeeping of the pool: what waits for what, and what is still to finish.
struct Pool<'p> {
    plans: &'p [&'p Plan],
    records: Vec<Records>,
    /// Unfinished prerequisites per run.
    waiting: Vec<Vec<usize>>,
    dependents: Vec<Vec<Vec<RunIndex>>>,
    /// Runs not yet ended, per plan.
    outstanding: Vec<usize>,
    ready: VecDeque<RunKey>,
    /// Ready runs whose record exists already ([`Made`]): handed over, not started.
    made: VecDeque<RunKey>,
    /// The specs of derived runs, completed when they became ready.
    derived: Vec<Vec<Option<RunSpec>>>,
    /// Each plan's manifest run's `data`, read once, when the first run derived
    /// from it became ready (it has finished by then).
    manifests: Vec<OnceCell<Option<Value>>>,
}

impl<'p> Pool<'p> {
    fn new(plans: &'p [&'p Plan]) -> Self {
        let mut waiting = Vec::new();
        let mut dependents = Vec::new();
        let mut ready = VecDeque::new();
        let mut made = VecDeque::new();
        for (p, plan) in plans.iter().enumerate() {
            let count = plan.runs.len();
            let mut plan_waiting = vec![0usize; count];
            let mut plan_dependents: Vec<Vec<RunIndex>> = vec![Vec::new(); count];
            for (index, planned) in plan.runs.iter().enumerate() {
                for &before in &planned.after {
                    plan_dependents[before].push(index);
                    plan_waiting[index] += 1;
                }
            }
            for index in (0..count).filter(|&i| plan_waiting[i] == 0) {
                match plan.runs[index].made {
                    Some(_) => made.push_back((p, index)),
                    None => ready.push_back((p, index)),
                }
            }
            waiting.push(plan_waiting);
            dependents.push(plan_dependents);
        }
        Pool {
            plans,
            records: plans
                .iter()
                .map(|plan| vec![None; plan.runs.len()])
                .collect(),
            waiting,
            dependents,
            outstanding: plans.iter().map(|plan| plan.runs.len()).collect(),
            ready,
            made,
            derived: plans
                .iter()
                .map(|plan| vec![None; plan.runs.len()])
                .collect(),
            manifests: vec![OnceCell::new(); plans.len()],
        }
    }

    fn done(&self) -> bool {
        self.outstanding.iter().all(|&n| n == 0)
    }

    /// A run that is not made: its gate run hit the limit, or it compares data
    /// with a gate whose stdout was cut at the capture cap.
    fn gated(&self, (p, index): RunKey) -> bool {
        let planned = &self.plans[p].runs[index];
        planned.gate.is_some_and(|gate| {
            self.records[p][gate].as_ref().is_none_or(|r| {
                r.timed_out || (planned.role.kind.compares_data() && r.stdout.truncated)
            })
        })
    }

    /// Completes a derived run's spec from the records it reads; `false` when the
    /// run is not needed. Every other run is ready as planned.
    fn derive(&mut self, (p, index): RunKey) -> bool {
        let planned = &self.plans[p].runs[index];
        let Some(derived) = &planned.derived else {
            return true;
        };
        let records = &self.records[p];
        let manifest = derived.manifest.and_then(|run| {
            self.manifests[p]
                .get_or_init(|| {
                    let record = records.get(run)?.as_ref()?;
                    crate::manifest::data_of(&record.stdout.bytes)
                })
                .as_ref()
        });
        let spec = derived.spec(&planned.spec, records, manifest);
        let needed = spec.is_some();
        self.derived[p][index] = spec;
        needed
    }

    /// Hands over the records of the ready runs that exist already ([`Made`]),
    /// without a job slot: a run made before the plan, or the same run as one of
    /// the plan that has finished; and so on for the runs that releases.
    fn settle_made(&mut self, on: &mut impl FnMut(Progress<'_>)) {
        while let Some(key) = self.made.pop_front() {
            let (p, index) = key;
            let record = match &self.plans[p].runs[index].made {
                _ if self.gated(key) => None,
                Some(Made::Before(record)) => Some(record.as_ref().clone()),
                Some(Made::SameAs(same)) => self.records[p].get(*same).cloned().flatten(),
                None => None,
            };
            self.finish(key, record, on);
        }
    }

    /// The spec a run is made with.
    fn spec(&self, (p, index): RunKey) -> &RunSpec {
        self.derived[p][index]
            .as_ref()
            .unwrap_or(&self.plans[p].runs[index].spec)
    }

    fn finish(
        &mut self,
        (p, index): RunKey,
        record: Option<RunRecord>,
        on: &mut impl FnMut(Progress<'_>),
    ) {
        self.records[p][index] = record;
        on(Progress::Finished(
            (p, index),
            self.records[p][index].as_ref(),
        ));
        self.outstanding[p] -= 1;
        for &next in &self.dependents[p][index] {
            self.waiting[p][next] -= 1;
            if self.waiting[p][next] == 0 {
                match self.plans[p].runs[next].made {
                    Some(_) => self.made.push_back((p, next)),
                    None => self.ready.push_back((p, next)),
                }
            }
        }
        if self.outstanding[p] == 0 {
            on(Progress::PlanDone(p, std::mem::take(&mut self.records[p])));
        }
    }
}

/// How runs are made: how many at once, and whether a starved run is made again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Policy {
    /// Job slots: tools working at once.
    pub jobs: usize,
    /// Make a run again alone when time decided it while it was kept from the CPU
    /// ([`starved`]); off: first attempts only.
    pub rerun_starved: bool,
    /// No run starts after this instant, but for the first [`Policy::starts_anyway`]
    /// (`conform check`'s help calls and exploration runs hold to their share of
    /// the budget run by run, not batch by batch).
    pub start_until: Option<std::time::Instant>,
    /// Runs started whatever the time: something is always read.
    pub starts_anyway: usize,
}

/// Makes every run of every plan with `executor`, at most `policy.jobs` tools
/// working at once, telling `on` as runs start and end; each plan's records are
/// handed over with [`Progress::PlanDone`].
///
/// Once `stop` is set (`--fail-fast`, from inside `on`), no further run is started:
/// the runs in progress finish, the rest end as not made.
pub(crate) fn execute(
    plans: &[&Plan],
    policy: Policy,
    stop: &AtomicBool,
    executor: &mut impl Executor,
    mut on: impl FnMut(Progress<'_>),
) {
    let jobs = policy.jobs.max(1);
    let holds = executor.holds(jobs.saturating_mul(IN_FLIGHT_PER_JOB));
    let mut pool = Pool::new(plans);
    for (p, plan) in plans.iter().enumerate() {
        if plan.runs.is_empty() {
            on(Progress::PlanDone(p, Vec::new()));
        }
    }
    // First attempts to make again alone, and the one being made again now.
    let mut starved_runs: VecDeque<(RunKey, RunRecord)> = VecDeque::new();
    let mut again: Option<(RunKey, RunRecord)> = None;
    let mut started = 0usize;
    while !pool.done() {
        let late = policy.start_until.is_some_and(|until| {
            started >= policy.starts_anyway && std::time::Instant::now() >= until
        });
        let halted = executor.cancelled() || stop.load(Ordering::Relaxed) || late;
        pool.settle_made(&mut on);
        if halted {
            // Nothing more is made: a starved run keeps its first attempt.
            for (key, first) in starved_runs.drain(..) {
                pool.finish(key, Some(first), &mut on);
            }
        }
        if again.is_some() || (pool.ready.is_empty() && !starved_runs.is_empty()) {
            // Alone, once nothing else can start and everything else has finished,
            // one at a time: the pool drains once for all of them, not once each.
            if again.is_none() && executor.in_flight() == 0 {
                if let Some((key, first)) = starved_runs.pop_front() {
                    executor.clear_for_alone();
                    start(key, executor, &mut pool, &mut on);
                    again = Some((key, first));
                }
            }
        } else {
            while executor.busy() < jobs && room(executor, jobs, holds) {
                let Some(key) = pool.ready.pop_front() else {
                    break;
                };
                if halted || pool.gated(key) || !pool.derive(key) {
                    pool.finish(key, None, &mut on);
                    continue;
                }
                start(key, executor, &mut pool, &mut on);
                started += 1;
            }
        }
        if pool.done() {
            break;
        }
        if executor.in_flight() == 0
            && pool.ready.is_empty()
            && pool.made.is_empty()
            && starved_runs.is_empty()
        {
            // Nothing runs and nothing can start: only a dependency cycle, which
            // the planner never makes. Do not wait forever on it.
            break;
        }
        if !pool.made.is_empty() {
            // Released by runs just finished as not made: handed over first.
            continue;
        }
        for (key, mut record) in executor.wait() {
            if again.as_ref().is_some_and(|(k, _)| *k == key) {
                if let Some((_, first)) = again.take() {
                    // Starved again, alone: the machine, not the tool, decided both
                    // attempts, and no check may rest a verdict on either.
                    record.starved_again = starved(&record);
                    record.first_attempt = Some(Box::new(first));
                }
            } else if policy.rerun_starved && !executor.cancelled() && starved(&record) {
                starved_runs.push_back((key, record));
                continue;
            }
            pool.finish(key, Some(record), &mut on);
        }
    }
}

/// Whether another run may start: fewer than `holds` in flight, and of those not
/// parked, fewer than one per job or the machine not crowded.
fn room(executor: &impl Executor, jobs: usize, holds: usize) -> bool {
    let in_flight = executor.in_flight();
    let waking = in_flight.saturating_sub(executor.parked());
    in_flight < holds && (waking < jobs || !executor.crowded())
}

/// Starts one run; a panic while starting it becomes that run's error record: the
/// pool must not wait forever for a run that never started.
fn start(
    key: RunKey,
    executor: &mut impl Executor,
    pool: &mut Pool<'_>,
    on: &mut impl FnMut(Progress<'_>),
) {
    let spec = pool.spec(key).clone();
    match catch_unwind(AssertUnwindSafe(|| executor.start(key, &spec))) {
        Ok(()) => on(Progress::Started(key)),
        Err(payload) => {
            let record = RunRecord {
                error: Some(RunError {
                    kind: RunErrorKind::Internal,
                    message: format!(
                        "conform's run of this command panicked: {}",
                        panic_message(payload.as_ref())
                    ),
                }),
                ..RunRecord::new(&spec)
            };
            pool.finish(key, Some(record), on);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Exit, RunRecord, StdinMode};
    use crate::plan::{PlannedRun, RunKind, RunRole};
    use std::sync::Mutex;
    use std::time::Duration;

    /// Makes each run at once, with `run`, when started; hands the records out on
    /// the next wait, so at most `jobs` are "alive" at a time.
    struct Immediate<F> {
        run: F,
        started: Vec<(RunKey, RunRecord)>,
    }

    impl<F: FnMut(&RunSpec) -> RunRecord> Executor for Immediate<F> {
        fn start(&mut self, key: RunKey, spec: &RunSpec) {
            let record = (self.run)(spec);
            self.started.push((key, record));
        }
        fn busy(&self) -> usize {
            self.started.len()
        }
        fn in_flight(&self) -> usize {
            self.started.len()
        }
        fn wait(&mut self) -> Vec<(RunKey, RunRecord)> {
            std::mem::take(&mut self.started)
        }
        fn cancelled(&self) -> bool {
            false
        }
    }

    fn execute_one(plan: &Plan, jobs: usize, run: impl FnMut(&RunSpec) -> RunRecord) -> Records {
        let mut executor = Immediate {
            run,
            started: Vec::new(),
        };
        let mut records = Records::new();
        execute(
            &[plan],
            Policy {
                jobs,
                rerun_starved: true,
                start_until: None,
                starts_anyway: 0,
            },
            &AtomicBool::new(false),
            &mut executor,
            |progress| {
                if let Progress::PlanDone(_, done) = progress {
                    records = done;
                }
            },
        );
        records
    }

    fn planned(label: &str, after: Vec<RunIndex>, gate: Option<RunIndex>) -> PlannedRun {
        PlannedRun {
            label: label.to_string(),
            role: RunRole::command(RunKind::Help),
            spec: RunSpec {
                program: label.into(),
                args: vec![],
                cwd: ".".into(),
                env_set: vec![],
                env_remove: vec![],
                stdin: StdinMode::Closed,
                limit: Duration::from_secs(1),
                capture_limit: 1,
                stream: false,
                trigger: None,
                output: crate::exec::Output::Pipes,
                sandbox: None,
                network: crate::exec::Network::Inherited,
                patience: None,
                namespace: None,
            },
            after,
            gate,
            derived: None,
            stdin_by_design: None,
            made: None,
        }
    }

    #[test]
    fn a_run_made_already_is_handed_over_and_never_started() {
        let mut before = record(false);
        before.exit = Exit::Code(7);
        let mut plan = Plan {
            runs: vec![
                planned("explored", vec![], None),
                planned("headless", vec![0], Some(0)),
                planned("open", vec![0], Some(0)),
            ],
        };
        plan.runs[0].made = Some(Made::Before(Box::new(before)));
        plan.runs[2].made = Some(Made::SameAs(1));
        plan.runs[2].after.push(1);
        let mut started = Vec::new();
        let records = execute_one(&plan, 1, |spec| {
            started.push(spec.program.display().to_string());
            let mut made = record(false);
            made.exit = Exit::Code(3);
            made
        });
        assert_eq!(started, ["headless"]);
        let exits: Vec<Option<i32>> = records
            .iter()
            .map(|r| r.as_ref().and_then(RunRecord::exit_code))
            .collect();
        assert_eq!(exits, [Some(7), Some(3), Some(3)]);
    }

    #[test]
    fn no_run_starts_past_the_start_deadline_but_the_first_few() {
        let plan = Plan {
            runs: (0..5)
                .map(|i| planned(&format!("r{i}"), vec![], None))
                .collect(),
        };
        let mut executor = Immediate {
            run: |_: &RunSpec| record(false),
            started: Vec::new(),
        };
        let mut records = Records::new();
        execute(
            &[&plan],
            Policy {
                jobs: 1,
                rerun_starved: false,
                start_until: Some(std::time::Instant::now()),
                starts_anyway: 2,
            },
            &AtomicBool::new(false),
            &mut executor,
            |progress| {
                if let Progress::PlanDone(_, done) = progress {
                    records = done;
                }
            },
        );
        let made: Vec<bool> = records.iter().map(Option::is_some).collect();
        assert_eq!(made, [true, true, false, false, false]);
    }

    fn record(timed_out: bool) -> RunRecord {
        RunRecord {
            exit: if timed_out {
                Exit::Unknown
            } else {
                Exit::Code(0)
            },
            timed_out,
            ..RunRecord::new(&planned("tool", vec![], None).spec)
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
            let records = execute_one(&plan, jobs, |spec| {
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
    fn once_stop_is_set_no_run_starts_and_every_plan_still_ends() {
        let plan = Plan {
            runs: vec![
                planned("first", vec![], None),
                planned("second", vec![], None),
                planned("after first", vec![0], None),
            ],
        };
        let stop = AtomicBool::new(false);
        let mut executor = Immediate {
            run: |_: &RunSpec| record(false),
            started: Vec::new(),
        };
        let mut plans_done = 0;
        let mut records = Records::new();
        execute(
            &[&plan],
            Policy {
                jobs: 1,
                rerun_starved: true,
                start_until: None,
                starts_anyway: 0,
            },
            &stop,
            &mut executor,
            |progress| match progress {
                // As `--fail-fast` does on the first failed check.
                Progress::Started(_) => stop.store(true, Ordering::Relaxed),
                Progress::PlanDone(_, done) => {
                    plans_done += 1;
                    records = done;
                }
                Progress::Finished(..) => {}
            },
        );
        let made: Vec<bool> = records.iter().map(Option::is_some).collect();
        assert_eq!(made, [true, false, false], "the run in progress finishes");
        assert_eq!(plans_done, 1);
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
            let records = execute_one(&plan, jobs, |spec| {
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

    /// A run that hit its limit: starved (it waited `waited` for a CPU) or not.
    fn hung(spec: &RunSpec, waited: Duration) -> RunRecord {
        RunRecord {
            timed_out: true,
            duration: Duration::from_secs(5),
            cpu_wait: crate::exec::CpuWait {
                tool: waited,
                kit: Duration::ZERO,
                in_flight: 3,
            },
            ..RunRecord::new(spec)
        }
    }

    /// Makes each run as `run` says given how many times it was made before, and
    /// notes how many other runs were in flight when each started.
    struct Counting<F> {
        run: F,
        started: Vec<(RunKey, RunRecord)>,
        attempts: std::collections::HashMap<String, usize>,
        /// (program, attempt, runs already in flight when it started)
        log: Vec<(String, usize, usize)>,
    }

    impl<F: FnMut(&RunSpec, usize) -> RunRecord> Executor for Counting<F> {
        fn start(&mut self, key: RunKey, spec: &RunSpec) {
            let name = spec.program.display().to_string();
            let attempt = self.attempts.entry(name.clone()).or_insert(0);
            *attempt += 1;
            self.log.push((name, *attempt, self.started.len()));
            let record = (self.run)(spec, *attempt);
            self.started.push((key, record));
        }
        fn busy(&self) -> usize {
            self.started.len()
        }
        fn in_flight(&self) -> usize {
            self.started.len()
        }
        fn wait(&mut self) -> Vec<(RunKey, RunRecord)> {
            // One at a time, so that runs are still in flight when the starved one
            // comes back.
            if self.started.is_empty() {
                Vec::new()
            } else {
                vec![self.started.remove(0)]
            }
        }
        fn cancelled(&self) -> bool {
            false
        }
        fn clear_for_alone(&mut self) {
            self.log.push((CLEARED.to_string(), 0, self.started.len()));
        }
    }

    /// The log's mark of [`Executor::clear_for_alone`].
    const CLEARED: &str = "(orphans ended)";

    fn counted(
        plan: &Plan,
        rerun_starved: bool,
        waited: Duration,
    ) -> (Records, Vec<(String, usize, usize)>) {
        counted_with(plan, rerun_starved, |spec, attempt| {
            if spec.program.as_os_str() == "slow" && attempt == 1 {
                hung(spec, waited)
            } else {
                record(false)
            }
        })
    }

    fn counted_with(
        plan: &Plan,
        rerun_starved: bool,
        run: impl FnMut(&RunSpec, usize) -> RunRecord,
    ) -> (Records, Vec<(String, usize, usize)>) {
        let mut executor = Counting {
            run,
            started: Vec::new(),
            attempts: Default::default(),
            log: Vec::new(),
        };
        let mut records = Records::new();
        execute(
            &[plan],
            Policy {
                jobs: 4,
                rerun_starved,
                start_until: None,
                starts_anyway: 0,
            },
            &AtomicBool::new(false),
            &mut executor,
            |progress| {
                if let Progress::PlanDone(_, done) = progress {
                    records = done;
                }
            },
        );
        (records, executor.log)
    }

    #[test]
    fn a_starved_run_that_hit_its_limit_is_made_again_alone_and_its_second_attempt_stands() {
        let plan = Plan {
            runs: vec![
                planned("slow", vec![], None),
                planned("a", vec![], None),
                planned("b", vec![], None),
                planned("c", vec![], None),
            ],
        };
        let (records, log) = counted(&plan, true, Duration::from_secs(3));
        let slow = records[0].as_ref().expect("made");
        assert!(!slow.timed_out, "the second attempt stands: {slow:?}");
        let first = slow
            .first_attempt
            .as_deref()
            .expect("the first attempt is kept");
        assert!(first.timed_out);
        let again = log
            .iter()
            .position(|(name, attempt, _)| name == "slow" && *attempt == 2)
            .expect("made again");
        assert_eq!(log[again].2, 0, "nothing else was in flight: {log:?}");
        // What earlier runs left running is ended first, so that it is alone.
        assert_eq!(
            log[again - 1],
            (CLEARED.to_string(), 0, 0),
            "orphans ended right before: {log:?}"
        );
        assert_eq!(log.len(), 6, "every other run made once: {log:?}");

        // First attempts only: the hang stands.
        let (records, log) = counted(&plan, false, Duration::from_secs(3));
        assert!(records[0]
            .as_ref()
            .is_some_and(|r| r.timed_out && r.first_attempt.is_none()));
        assert_eq!(log.len(), 4);
    }

    /// A tool blocked in `write` on a pipe the kit was too starved to drain: the
    /// tool waited for no CPU, the kit's reactor did. Made again alone; starved
    /// again, the second attempt is marked inconclusive, never judged as a hang.
    #[test]
    fn a_run_blocked_on_an_undrained_pipe_is_made_again_and_a_second_starved_attempt_is_marked() {
        let plan = Plan {
            runs: vec![planned("slow", vec![], None), planned("a", vec![], None)],
        };
        let blocked = |spec: &RunSpec| {
            let mut record = RunRecord {
                cpu_wait: crate::exec::CpuWait {
                    tool: Duration::ZERO,
                    kit: Duration::from_millis(4200),
                    in_flight: 8,
                },
                ..hung(spec, Duration::ZERO)
            };
            record.stdout.total_bytes = 16 << 20;
            record
        };
        for starved_twice in [false, true] {
            let (records, log) = counted_with(&plan, true, |spec, attempt| {
                if spec.program.as_os_str() == "slow" && (attempt == 1 || starved_twice) {
                    blocked(spec)
                } else {
                    record(false)
                }
            });
            let slow = records[0].as_ref().expect("made");
            assert!(slow.first_attempt.is_some(), "made again: {log:?}");
            assert_eq!(slow.timed_out, starved_twice);
            assert_eq!(slow.starved_again, starved_twice, "{slow:?}");
            assert_eq!(
                log.len(),
                4,
                "made again after the orphans were ended: {log:?}"
            );
        }
        // --no-rerun: the first attempt stands, as it was.
        let (records, _) = counted_with(&plan, false, |spec, _| blocked(spec));
        assert!(records[0]
            .as_ref()
            .is_some_and(|r| r.timed_out && !r.starved_again && r.first_attempt.is_none()));
    }

    #[test]
    fn a_hang_that_waited_for_no_cpu_is_never_made_again() {
        let plan = Plan {
            runs: vec![planned("slow", vec![], None), planned("a", vec![], None)],
        };
        // Blocked in a read or a sleep: no run delay, or too little to matter.
        for waited in [
            Duration::ZERO,
            Duration::from_millis(19),
            Duration::from_millis(1200),
        ] {
            let (records, log) = counted(&plan, true, waited);
            assert!(
                records[0]
                    .as_ref()
                    .is_some_and(|r| r.timed_out && r.first_attempt.is_none()),
                "waited {waited:?}"
            );
            assert_eq!(log.len(), 2, "waited {waited:?}: {log:?}");
        }
    }

    #[test]
    fn the_kits_own_wait_counts_where_a_late_kit_could_decide_the_outcome() {
        let spec = planned("tool", vec![], None).spec;
        let kit_waited = |record: RunRecord| RunRecord {
            cpu_wait: crate::exec::CpuWait {
                tool: Duration::ZERO,
                kit: Duration::from_millis(300),
                in_flight: 6,
            },
            duration: Duration::from_millis(600),
            ..record
        };
        let at_limit = kit_waited(RunRecord {
            timed_out: true,
            ..RunRecord::new(&spec)
        });
        assert!(
            !starved(&at_limit),
            "a tool that wrote less than a pipe holds could not block on it"
        );
        let mut writer = at_limit.clone();
        writer.stdout.total_bytes = 64 * 1024;
        assert!(
            starved(&writer),
            "a kit kept from the CPU left the pipe undrained and the writer blocked"
        );
        let held = kit_waited(RunRecord {
            pipe_held_open: true,
            ..RunRecord::new(&spec)
        });
        assert!(
            !starved(&held),
            "a late look after the grace still finds a closed pipe closed"
        );
        let late_line = kit_waited(RunRecord {
            trigger: crate::exec::TriggerOutcome::AfterExit,
            ..RunRecord::new(&spec)
        });
        assert!(starved(&late_line), "line N read late by a starved kit");
        let on_time = kit_waited(RunRecord::new(&spec));
        assert!(!starved(&on_time), "nothing time-decided: never made again");
    }

    /// A derived run is completed from the records it reads when it becomes ready:
    /// made with what they gave (the baseline's next cursor), or not made at all
    /// when they say it is not needed (no `limit` flag in the manifest).
    #[test]
    fn a_derived_run_gets_its_spec_from_earlier_records_or_is_not_made() {
        let text = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "manifest": ["manifest"],
            "probes": [{ "name": "list", "argv": ["list"], "kind": "read" }]
        }"#;
        let dir = std::env::temp_dir();
        let (profile, program) = crate::profile::parse(text, &dir).expect("valid profile");
        let loaded = crate::profile::LoadedProfile {
            path: dir.join("p.json"),
            dir,
            profile,
            program,
            locations: crate::profile::Locations::scan(text),
        };
        let selected =
            std::collections::BTreeSet::from([crate::checks::CheckId::PaginationContract]);
        let plan = crate::plan::plan(
            &loaded,
            &crate::checks::reads(&selected),
            crate::plan::RunOptions {
                capture_limit: 1024,
            },
        );
        // The manifest declares --cursor but no --limit; the first page has a next.
        let manifest =
            r#"{"ok":true,"data":{"commands":{"list":{"flags":{"cursor":{"type":"string"}}}}}}"#;
        let first_page = r#"{"ok":true,"data":[1],"meta":{"pagination":{"has_more":true,"next_cursor":"cGFnZTI="}}}"#;
        let records = execute_one(&plan, 2, |spec| {
            let mut record = record(false);
            record.argv = spec.args.clone();
            let stdout = match spec.args.as_slice() {
                [only] if only == "manifest" => manifest,
                [only] if only == "list" => first_page,
                _ => "",
            };
            record.stdout.bytes = stdout.as_bytes().to_vec();
            record
        });
        let made = |kind: RunKind| {
            let index = plan
                .runs
                .iter()
                .position(|run| run.role.kind == kind)
                .unwrap_or_else(|| panic!("{kind:?} is planned"));
            records[index].as_ref().map(|record| record.argv.clone())
        };
        assert_eq!(made(RunKind::PageLimit), None, "no limit flag: not made");
        assert_eq!(
            made(RunKind::PageNext),
            Some(vec![
                "list".to_string(),
                "--cursor".into(),
                "cGFnZTI=".into()
            ]),
            "the baseline's next cursor"
        );
        assert_eq!(
            made(RunKind::PageBadCursor),
            Some(vec![
                "list".to_string(),
                "--cursor".into(),
                crate::plan::BAD_CURSOR.into()
            ])
        );
    }

    /// Runs that start and block at once, every one of them parked (or none), on a
    /// machine crowded or not: each wait hands back only the oldest.
    struct Parking {
        parks: bool,
        crowded: bool,
        started: VecDeque<(RunKey, RunRecord)>,
        most_in_flight: usize,
    }

    impl Executor for Parking {
        fn start(&mut self, key: RunKey, _spec: &RunSpec) {
            self.started.push_back((key, record(false)));
            self.most_in_flight = self.most_in_flight.max(self.started.len());
        }
        fn busy(&self) -> usize {
            0
        }
        fn in_flight(&self) -> usize {
            self.started.len()
        }
        fn parked(&self) -> usize {
            if self.parks {
                self.started.len()
            } else {
                0
            }
        }
        fn crowded(&self) -> bool {
            self.crowded
        }
        fn holds(&self, floor: usize) -> usize {
            floor * 4
        }
        fn wait(&mut self) -> Vec<(RunKey, RunRecord)> {
            self.started.pop_front().into_iter().collect()
        }
        fn cancelled(&self) -> bool {
            false
        }
    }

    #[test]
    fn what_the_machine_holds_bounds_the_runs_in_flight_and_a_crowded_one_only_waiting_runs() {
        let plan = Plan {
            runs: (0..100)
                .map(|n| planned(&format!("r{n}"), vec![], None))
                .collect(),
        };
        let holds = IN_FLIGHT_PER_JOB * 4;
        for (parks, crowded, most) in [
            (false, false, holds),
            (true, false, holds),
            // Crowded: one per job that may want a CPU, as many that only wait.
            (false, true, 1),
            (true, true, holds),
        ] {
            let mut executor = Parking {
                parks,
                crowded,
                started: VecDeque::new(),
                most_in_flight: 0,
            };
            let mut made = 0;
            execute(
                &[&plan],
                Policy {
                    jobs: 1,
                    rerun_starved: false,
                    start_until: None,
                    starts_anyway: 0,
                },
                &AtomicBool::new(false),
                &mut executor,
                |progress| {
                    if let Progress::Finished(_, Some(_)) = progress {
                        made += 1;
                    }
                },
            );
            assert_eq!(
                made, 100,
                "every run made (parked: {parks}, crowded: {crowded})"
            );
            assert_eq!(
                executor.most_in_flight, most,
                "parked: {parks}, crowded: {crowded}"
            );
        }
    }
}
