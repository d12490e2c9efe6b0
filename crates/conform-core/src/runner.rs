//! Running profiles: plan each one, make every run of every profile in one pool on
//! the calling thread (the reactor's), and judge each profile on a thread of its
//! own as soon as its runs are all made, feeding the reporters from there. Judging
//! and report writing never run on the reactor's thread, so a slow judge or a slow
//! `--stream` reader cannot delay the read that should trigger a signal.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

use crate::checks::evidence::RunFacts;
use crate::checks::{self, CheckId, Context, Judged, Outcome, Status, CATALOG};
use crate::events::{Event, Reporter};
use crate::exec::{Cancel, Reactor, Session};
use crate::plan::Records;
use crate::plan::{self, Plan, RunIndex, RunOptions};
use crate::profile::LoadedProfile;
use crate::result::{verdicts, CheckReport, ProfileReport};
use crate::schedule::{self, Policy, Progress};

/// How to run profiles.
#[derive(Debug, Clone)]
pub(crate) struct RunConfig {
    pub jobs: usize,
    /// Make a run again alone when time decided it while the machine kept it from
    /// the CPU (on by default; `--no-rerun` turns it off).
    pub rerun_starved: bool,
    pub options: RunOptions,
    /// Start no further run once a check has failed (`--fail-fast`).
    pub fail_fast: bool,
    /// The suite's cancellation and scratch directory.
    pub session: Session,
    /// `conform check`'s run defaults, one per profile in the order given, each
    /// applied to every planned run of its profile; empty for profiles on disk.
    pub hermetic: Vec<crate::init::Hermetic>,
    /// Stopped by a signal or the budget, judge what was made (`conform check`):
    /// a check whose runs were all made is judged, the others skip. Otherwise an
    /// interrupted profile is not judged at all.
    pub judge_made: bool,
    /// `conform check --budget`: no run starts after the first instant, and the
    /// runs still going are stopped at the second.
    pub deadline: Option<(Instant, Instant)>,
}

impl RunConfig {
    /// `jobs` runs at once (default: the number of CPUs), stopped by `cancel`.
    pub(crate) fn new(jobs: Option<usize>, capture_limit: usize, cancel: &Cancel) -> RunConfig {
        RunConfig {
            jobs: jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            rerun_starved: true,
            options: RunOptions { capture_limit },
            fail_fast: false,
            session: Session::new(cancel.clone()),
            hermetic: Vec::new(),
            judge_made: false,
            deadline: None,
        }
    }
}

/// What [`run_profiles`] made of the profiles.
#[derive(Debug)]
pub(crate) struct RunOutcome {
    /// The profiles judged (or reported as not run), in the order given. Short of
    /// some when conform was interrupted: those are not judged on cut-off runs.
    pub reports: Vec<ProfileReport>,
    /// Why `--fail-fast` stopped scheduling, when it did.
    pub stopped: Option<String>,
}

/// The scheduler's stop flag and why it was raised, shared by [`FailFast`] (on the
/// judging thread) and the scheduler (on the reactor's).
#[derive(Debug, Default)]
struct Stop {
    flag: AtomicBool,
    reason: OnceLock<String>,
    /// The budget raised the flag.
    budget: AtomicBool,
}

/// `--fail-fast`: a reporter that, on the first failed check, raises the flag that
/// starts no further run.
struct FailFast<'a> {
    stop: &'a Stop,
    /// Each profile's file, as reports name it.
    profiles: Vec<String>,
}

impl Reporter for FailFast<'_> {
    fn event(&mut self, event: &Event<'_>) {
        let Event::CheckJudged { profile, check } = event else {
            return;
        };
        if check.check.status != Status::Fail || self.stop.reason.get().is_some() {
            return;
        }
        let profile = self.profiles.get(*profile).map_or("?", String::as_str);
        let _ = self.stop.reason.set(format!(
            "--fail-fast stopped after {} failed on {profile}",
            check.check.id
        ));
        self.stop.flag.store(true, Ordering::Relaxed);
    }
}

/// One profile to run, with the checks selected for it.
#[derive(Debug, Clone)]
pub(crate) struct ProfileRun<'a> {
    pub profile: &'a LoadedProfile,
    pub checks: BTreeSet<CheckId>,
}

/// What the reactor's thread tells the judging thread.
enum Message {
    Started {
        profile: usize,
        run: RunIndex,
    },
    Finished {
        profile: usize,
        run: Box<RunFacts>,
    },
    /// Every run of the profile has ended: its records, whether `--fail-fast` cut
    /// any of them, which runs a stop cut (not made, or killed), and its wall time.
    PlanDone {
        profile: usize,
        records: Records,
        cut: bool,
        cut_runs: Vec<bool>,
        elapsed: Duration,
    },
}

/// Plan every profile, make every run in one pool, and judge each profile as soon
/// as its runs are all made, telling `reporter` as things happen. The reports are
/// in the order given, whatever the scheduling.
pub(crate) fn run_profiles(
    runs: &[ProfileRun<'_>],
    config: &RunConfig,
    reporter: &mut (dyn Reporter + Send),
) -> RunOutcome {
    let plans: Vec<Plan> = runs
        .iter()
        .enumerate()
        .map(|(index, run)| {
            let hermetic = config.hermetic.get(index);
            let scope = hermetic.map(|h| h.scope.clone()).unwrap_or_default();
            let kinds = checks::reads(&run.checks);
            let mut plan = plan::plan_scoped(run.profile, &kinds, config.options, &scope);
            if let Some(hermetic) = hermetic {
                hermetic.apply(&mut plan);
            }
            plan
        })
        .collect();
    let stop = Stop::default();
    let (sender, receiver) = mpsc::channel();
    // When no reporter reads runs as they start and end (piped output, a library
    // suite), those events are not made: no run's facts, no message per run.
    // `--fail-fast` reads only judged checks.
    let run_events = reporter.wants_run_events();
    let (over, runs_over) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let judging =
            scope.spawn(|| judge_as_done(runs, &plans, config, &stop, reporter, receiver));
        if let Some((stop_at, kill_at)) = config.deadline {
            let (stop, cancel) = (&stop, config.session.cancel());
            scope.spawn(move || watch_budget(stop, cancel, stop_at, kill_at, runs_over));
        }
        make_runs(&plans, config, &stop, &sender, run_events);
        drop(over);
        // The judging thread ends once every message is read.
        drop(sender);
        judging
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// `--budget`'s clock: at `stop_at` no further run starts; at `kill_at` the runs
/// still going are stopped. Returns as soon as the runs are over (`over` hangs up).
fn watch_budget(
    stop: &Stop,
    cancel: &Cancel,
    stop_at: Instant,
    kill_at: Instant,
    over: mpsc::Receiver<()>,
) {
    let wait = |until: Instant| {
        matches!(
            over.recv_timeout(until.saturating_duration_since(Instant::now())),
            Err(mpsc::RecvTimeoutError::Timeout)
        )
    };
    if !wait(stop_at) {
        return;
    }
    stop.budget.store(true, Ordering::Relaxed);
    stop.flag.store(true, Ordering::Relaxed);
    if wait(kill_at) {
        cancel.expire();
    }
}

/// The reactor's side: makes every run and passes on what happened. A send fails
/// only when the judging thread is gone (it panicked); the runs still end.
fn make_runs(
    plans: &[Plan],
    config: &RunConfig,
    stop: &Stop,
    sender: &mpsc::Sender<Message>,
    run_events: bool,
) {
    let plan_refs: Vec<&Plan> = plans.iter().collect();
    let mut started: Vec<Option<Instant>> = vec![None; plans.len()];
    // Plans that lost runs to the stop flag: they are reported as not run.
    let mut cut = vec![false; plans.len()];
    // The runs a stop (the flag, a signal, the budget) left unmade or killed.
    let mut cut_runs: Vec<Vec<bool>> = plans.iter().map(|p| vec![false; p.runs.len()]).collect();
    let cancel = config.session.cancel();
    let halted = || stop.flag.load(Ordering::Relaxed) || cancel.is_cancelled();
    let mut executor = Reactor::new(&config.session);
    let policy = Policy {
        jobs: config.jobs,
        rerun_starved: config.rerun_starved,
        start_until: None,
        starts_anyway: 0,
    };
    schedule::execute(
        &plan_refs,
        policy,
        &stop.flag,
        &mut executor,
        |progress| match progress {
            Progress::Started((p, index)) => {
                started[p].get_or_insert_with(Instant::now);
                if run_events {
                    let _ = sender.send(Message::Started {
                        profile: p,
                        run: index,
                    });
                }
            }
            Progress::Finished((p, index), Some(record)) => {
                // Killed by a signal or the budget, not at its limit: not made.
                cut_runs[p][index] |= record.killed_by_kit.is_some_and(|kill| !kill.at_limit);
                if run_events {
                    let facts = RunFacts::of(&Judged {
                        index,
                        planned: &plans[p].runs[index],
                        record,
                    });
                    let _ = sender.send(Message::Finished {
                        profile: p,
                        run: Box::new(facts),
                    });
                }
            }
            Progress::Finished((p, index), None) => {
                cut[p] |= stop.flag.load(Ordering::Relaxed);
                cut_runs[p][index] |= halted();
            }
            Progress::PlanDone(p, records) => {
                let _ = sender.send(Message::PlanDone {
                    profile: p,
                    records,
                    cut: cut[p],
                    cut_runs: std::mem::take(&mut cut_runs[p]),
                    elapsed: started[p].map_or(Duration::ZERO, |at| at.elapsed()),
                });
            }
        },
    );
}

/// The judging thread: turns messages into events and judges each profile whose
/// runs are all made.
fn judge_as_done(
    runs: &[ProfileRun<'_>],
    plans: &[Plan],
    config: &RunConfig,
    stop: &Stop,
    reporter: &mut (dyn Reporter + Send),
    messages: mpsc::Receiver<Message>,
) -> RunOutcome {
    let mut fail_fast = config.fail_fast.then(|| FailFast {
        stop,
        profiles: runs
            .iter()
            .map(|r| r.profile.path.display().to_string())
            .collect(),
    });
    let mut tell = |event: &Event<'_>| {
        fail_fast.event(event);
        reporter.event(event);
    };
    tell(&Event::PlanReady {
        profiles: plans.len(),
        runs: plans.iter().map(|p| p.runs.len()).sum(),
    });
    let mut reports: Vec<Option<ProfileReport>> = vec![None; plans.len()];
    for message in messages {
        match message {
            Message::Started { profile, run } => tell(&Event::RunStarted {
                profile,
                run: &plans[profile].runs[run],
            }),
            Message::Finished { profile, run } => tell(&Event::RunFinished { profile, run: &run }),
            Message::PlanDone {
                profile: p,
                records,
                cut,
                cut_runs,
                elapsed,
            } => {
                let cancel = config.session.cancel();
                let stopped = cancel.is_cancelled() || stop.budget.load(Ordering::Relaxed);
                let report = if config.judge_made && stopped && cut_runs.contains(&true) {
                    let by = cancel.ended_by().unwrap_or("budget");
                    judge_made(&runs[p], &plans[p], records, &cut_runs, elapsed, by)
                } else if cancel.is_cancelled() {
                    // Interrupted: runs were killed or not made, so a verdict on
                    // them would be false. Such profiles are left out, not judged.
                    continue;
                } else {
                    match stop.reason.get().filter(|_| cut) {
                        Some(reason) => not_run(&runs[p], &plans[p], &records, elapsed, reason),
                        None => judge(&runs[p], &plans[p], &records, elapsed),
                    }
                };
                let mut report = report;
                if let Some((unsampled, why)) =
                    config.hermetic.get(p).and_then(|h| h.unsampled.as_ref())
                {
                    for check in &mut report.checks {
                        let id = check.check.id;
                        let skipped = check.check.status == Status::Skip
                            && !check
                                .check
                                .skipped_reason
                                .as_deref()
                                .unwrap_or("")
                                .starts_with("not run:");
                        if skipped && unsampled.iter().any(|c| c.spec().name == id) {
                            check.check.skipped_reason = Some(why.clone());
                        }
                    }
                }
                for check in &report.checks {
                    tell(&Event::CheckJudged { profile: p, check });
                }
                tell(&Event::ProfileDone {
                    profile: p,
                    report: &report,
                });
                reports[p] = Some(report);
            }
        }
    }
    RunOutcome {
        reports: reports.into_iter().flatten().collect(),
        stopped: stop.reason.get().cloned(),
    }
}

/// A profile whose runs `--fail-fast` cut short: every selected check skipped,
/// saying why, so no verdict rests on runs that were not made.
fn not_run(
    run: &ProfileRun<'_>,
    plan: &Plan,
    records: &Records,
    elapsed: Duration,
    reason: &str,
) -> ProfileReport {
    let ctx = Context::new(run.profile, plan, records);
    let outcomes = CATALOG
        .iter()
        .filter(|spec| run.checks.contains(&spec.id))
        .map(|spec| {
            let mut outcome = Outcome::new(spec.id);
            outcome.skip(format!("{NOT_RUN}{reason}"));
            outcome
        })
        .collect();
    report(run, &ctx, outcomes, elapsed)
}

/// How the skip of a check begins whose runs a stop (the fail-fast flag, the
/// budget, a signal) left unmade: the findings read it as no verdict.
pub(crate) const NOT_RUN: &str = "not run: ";

/// A profile a signal or the budget (`ended_by`) stopped before its runs were all
/// made: every check whose runs were all made (or left unmade by their plan) is
/// judged, the others skip saying what ended the run. A run killed by the stop
/// counts as not made.
fn judge_made(
    run: &ProfileRun<'_>,
    plan: &Plan,
    mut records: Records,
    cut_runs: &[bool],
    elapsed: Duration,
    ended_by: &str,
) -> ProfileReport {
    for (record, &cut) in records.iter_mut().zip(cut_runs) {
        if cut {
            *record = None;
        }
    }
    let reason = match ended_by {
        "budget" => format!("{NOT_RUN}the budget ended the run first"),
        signal => format!("{NOT_RUN}the signal ({signal}) ended the run first"),
    };
    let ctx = Context::new(run.profile, plan, &records);
    let outcomes = checks::judge(&ctx, &run.checks)
        .into_iter()
        .map(|outcome| {
            let reads = outcome.id.spec().reads;
            let lost = plan
                .runs
                .iter()
                .zip(cut_runs)
                .any(|(planned, &cut)| cut && reads.contains(&planned.role.kind));
            if lost {
                let mut skipped = Outcome::new(outcome.id);
                skipped.skip(reason.clone());
                skipped
            } else {
                outcome
            }
        })
        .collect();
    report(run, &ctx, outcomes, elapsed)
}

/// Judge one profile's made runs. Where runs were made again alone, the checks are
/// also judged on the first attempts, and a check whose verdict those would have
/// changed keeps that verdict as evidence (JUnit's flaky and rerun elements).
fn judge(run: &ProfileRun<'_>, plan: &Plan, records: &Records, elapsed: Duration) -> ProfileReport {
    let ctx = Context::new(run.profile, plan, records);
    let outcomes = checks::judge(&ctx, &run.checks);
    let mut report = report(run, &ctx, outcomes, elapsed);
    if records.iter().flatten().any(|r| r.first_attempt.is_some()) {
        let first: Records = records
            .iter()
            .map(|record| {
                record
                    .as_ref()
                    .map(|r| r.first_attempt.as_deref().unwrap_or(r).clone())
            })
            .collect();
        let ctx = Context::new(run.profile, plan, &first);
        for (check, outcome) in report
            .checks
            .iter_mut()
            .zip(checks::judge(&ctx, &run.checks))
        {
            let first = CheckReport::from(outcome).check;
            if first.status != check.check.status
                || first.failures.len() != check.check.failures.len()
            {
                check.first_attempt = Some(Box::new(first));
            }
        }
    }
    report
}

/// A profile's report: its checks' outcomes and every run made.
fn report(
    run: &ProfileRun<'_>,
    ctx: &Context<'_>,
    outcomes: Vec<Outcome>,
    elapsed: Duration,
) -> ProfileReport {
    let checks: Vec<CheckReport> = outcomes.into_iter().map(CheckReport::from).collect();
    let (levels, summary) = verdicts(&checks, &run.checks);
    ProfileReport {
        profile: run.profile.path.display().to_string(),
        tool: run.profile.profile.tool.clone(),
        levels,
        summary,
        checks,
        runs: ctx.all_runs().iter().map(RunFacts::of).collect(),
        duration_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
        commands: crate::result::Commands::of(&run.profile.profile),
    }
}
