//! The result of running one profile, in two shapes:
//!
//! - [`ProfileReport`], conform's full record: every check with its full evidence,
//!   every run made, the profile file and timings. Reporters and `--json-report`
//!   read it.
//! - [`ConformanceResult`], the reference kit's result document, derived from the
//!   report: exactly what the published `conformance-result.json` allows (closed at
//!   every level), so a consumer of the reference kit's output reads conform's.
//!
//! Extension checks are reported beside the 14 and count in `summary` and the exit
//! code, but not in `levels`, so a level verdict means what the reference kit means.

use std::cell::OnceCell;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::checks::evidence::{Failure, RunFacts};
use crate::checks::{self, CheckId, Context, Evidence, Judged, Outcome, Status, CATALOG};
use crate::envelope::RESULT_SCHEMA_VERSION;
use crate::events::{Event, Reporter};
use crate::exec::{Cancel, Reactor, Session};
use crate::plan::{self, Plan, RunOptions};
use crate::profile::LoadedProfile;
use crate::schedule::{self, Progress, Records};

/// Level verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum LevelStatus {
    Pass,
    Fail,
    Incomplete,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Levels {
    pub level_1: LevelStatus,
    pub level_2: LevelStatus,
    pub level_3: LevelStatus,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

/// One check as the published ConformanceResult has it, in the reference kit's key
/// order; `F` is the failure entry: conform's full [`Evidence`] in reports, the
/// reference kit's [`Failure`] in the published document.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Check<F> {
    pub id: &'static str,
    pub title: &'static str,
    pub status: Status,
    pub level: u8,
    pub failure_modes: Vec<String>,
    pub requirements: Vec<&'static str>,
    pub runs_checked: usize,
    pub failures: Vec<F>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_reason: Option<String>,
}

/// One check with its full evidence.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CheckReport {
    #[serde(flatten)]
    pub check: Check<Evidence>,
    /// conform's own check, not one of the reference kit's 14.
    pub extension: bool,
}

/// A check of the published document.
pub(crate) type ReferenceCheck = Check<Failure>;

impl From<Outcome> for CheckReport {
    fn from(outcome: Outcome) -> Self {
        let spec = outcome.id.spec();
        CheckReport {
            check: Check {
                id: spec.name,
                title: spec.title,
                status: outcome.status(),
                level: spec.level,
                failure_modes: spec.failure_modes.iter().map(|n| format!("§{n}")).collect(),
                requirements: spec.requirements.to_vec(),
                runs_checked: outcome.runs_checked,
                failures: outcome.failures,
                skipped_reason: outcome.skipped_reason,
            },
            extension: spec.extension,
        }
    }
}

impl CheckReport {
    /// This check as the published ConformanceResult has it.
    pub(crate) fn reference(&self) -> ReferenceCheck {
        let c = &self.check;
        Check {
            id: c.id,
            title: c.title,
            status: c.status,
            level: c.level,
            failure_modes: c.failure_modes.clone(),
            requirements: c.requirements.clone(),
            runs_checked: c.runs_checked,
            failures: c.failures.iter().map(Evidence::reference).collect(),
            skipped_reason: c.skipped_reason.clone(),
        }
    }
}

/// conform's full result of one profile.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ProfileReport {
    /// The profile file, as given.
    pub profile: String,
    pub tool: String,
    pub levels: Levels,
    pub summary: Summary,
    pub checks: Vec<CheckReport>,
    /// Every run made, in plan order.
    pub runs: Vec<RunFacts>,
    pub duration_ms: u64,
}

impl ProfileReport {
    pub(crate) fn failed(&self) -> bool {
        self.summary.failed > 0
    }

    /// The IDs of the extension checks reported.
    pub(crate) fn extension_checks(&self) -> Vec<&'static str> {
        self.checks
            .iter()
            .filter(|c| c.extension)
            .map(|c| c.check.id)
            .collect()
    }

    /// The reference kit's result document for this profile.
    pub(crate) fn conformance_result(&self) -> ConformanceResult {
        ConformanceResult {
            schema_version: RESULT_SCHEMA_VERSION,
            tool: self.tool.clone(),
            levels: self.levels.clone(),
            summary: self.summary,
            checks: self.checks.iter().map(CheckReport::reference).collect(),
        }
    }
}

/// The published ConformanceResult: nothing but its five keys.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ConformanceResult {
    pub schema_version: &'static str,
    pub tool: String,
    pub levels: Levels,
    pub summary: Summary,
    pub checks: Vec<ReferenceCheck>,
}

/// Level N is `fail` when a reference check of level <= N failed, `incomplete` when
/// one was skipped or left out of the selection, else `pass`. Counting the checks
/// left out keeps `--only` from certifying a level nobody checked.
fn level(checks: &[CheckReport], selected: &BTreeSet<CheckId>, n: u8) -> LevelStatus {
    let relevant: Vec<&Check<Evidence>> = checks
        .iter()
        .filter(|c| !c.extension && c.check.level <= n)
        .map(|c| &c.check)
        .collect();
    let left_out = CATALOG
        .iter()
        .any(|spec| !spec.extension && spec.level <= n && !selected.contains(&spec.id));
    if relevant.iter().any(|c| c.status == Status::Fail) {
        LevelStatus::Fail
    } else if left_out || relevant.iter().any(|c| c.status == Status::Skip) {
        LevelStatus::Incomplete
    } else {
        LevelStatus::Pass
    }
}

/// The levels and summary over `checks`, the checks judged out of `selected`.
pub(crate) fn verdicts(checks: &[CheckReport], selected: &BTreeSet<CheckId>) -> (Levels, Summary) {
    let count = |s: Status| checks.iter().filter(|c| c.check.status == s).count();
    (
        Levels {
            level_1: level(checks, selected, 1),
            level_2: level(checks, selected, 2),
            level_3: level(checks, selected, 3),
        },
        Summary {
            passed: count(Status::Pass),
            failed: count(Status::Fail),
            skipped: count(Status::Skip),
        },
    )
}

/// How to run profiles.
#[derive(Debug, Clone)]
pub(crate) struct RunConfig {
    pub jobs: usize,
    pub options: RunOptions,
    /// Start no further run once a check has failed (`--fail-fast`).
    pub fail_fast: bool,
    /// The suite's cancellation and scratch directory.
    pub session: Session,
}

impl RunConfig {
    /// `jobs` runs at once (default: the number of CPUs), stopped by `cancel`.
    pub(crate) fn new(jobs: Option<usize>, capture_limit: usize, cancel: &Cancel) -> RunConfig {
        RunConfig {
            jobs: jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            options: RunOptions { capture_limit },
            fail_fast: false,
            session: Session::new(cancel.clone()),
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

/// The scheduler's stop flag and why it was raised, shared by [`FailFast`] and
/// the loop that judges profiles.
#[derive(Debug, Default)]
struct Stop {
    flag: AtomicBool,
    reason: OnceCell<String>,
}

/// `--fail-fast`: raises the stop flag on the first failed check, so the scheduler
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

/// Plan every profile, make every run in one pool, and judge each profile as soon
/// as its runs are all made, telling `reporter` as things happen. The reports are
/// in the order given, whatever the scheduling.
pub(crate) fn run_profiles(
    runs: &[ProfileRun<'_>],
    config: &RunConfig,
    reporter: &mut dyn Reporter,
) -> RunOutcome {
    let plans: Vec<Plan> = runs
        .iter()
        .map(|run| plan::plan(run.profile, &run.checks, config.options))
        .collect();
    let plan_refs: Vec<&Plan> = plans.iter().collect();
    let stop = Stop::default();
    let mut fail_fast = config.fail_fast.then(|| FailFast {
        stop: &stop,
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
    let mut started: Vec<Option<Instant>> = vec![None; plans.len()];
    // Plans that lost runs to the stop flag: they are reported as not run.
    let mut cut = vec![false; plans.len()];
    let mut reports: Vec<Option<ProfileReport>> = vec![None; plans.len()];
    let mut executor = Reactor::new(&config.session);
    schedule::execute(
        &plan_refs,
        config.jobs,
        &stop.flag,
        &mut executor,
        |progress| match progress {
            Progress::Started((p, index)) => {
                started[p].get_or_insert_with(Instant::now);
                tell(&Event::RunStarted {
                    profile: p,
                    run: &plans[p].runs[index],
                });
            }
            Progress::Finished((p, index), Some(record)) => {
                let judged = Judged {
                    index,
                    planned: &plans[p].runs[index],
                    record,
                };
                tell(&Event::RunFinished {
                    profile: p,
                    run: &RunFacts::of(&judged),
                });
            }
            Progress::Finished((p, _), None) => {
                cut[p] |= stop.flag.load(Ordering::Relaxed);
            }
            Progress::PlanDone(p, records) => {
                // Interrupted: runs were killed or not made, so a verdict on them
                // would be false. Such profiles are left out, not judged.
                if config.session.cancel().is_cancelled() {
                    return;
                }
                let elapsed = started[p].map_or(Duration::ZERO, |at| at.elapsed());
                let report = match stop.reason.get().filter(|_| cut[p]) {
                    Some(reason) => not_run(&runs[p], &plans[p], records, elapsed, reason),
                    None => judge(&runs[p], &plans[p], records, elapsed),
                };
                for check in &report.checks {
                    tell(&Event::CheckJudged { profile: p, check });
                }
                tell(&Event::ProfileDone {
                    profile: p,
                    report: &report,
                });
                reports[p] = Some(report);
            }
        },
    );
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
            outcome.skip(format!("not run: {reason}"));
            outcome
        })
        .collect();
    report(run, &ctx, outcomes, elapsed)
}

/// Judge one profile's made runs.
fn judge(run: &ProfileRun<'_>, plan: &Plan, records: &Records, elapsed: Duration) -> ProfileReport {
    let ctx = Context::new(run.profile, plan, records);
    let outcomes = checks::judge(&ctx, &run.checks);
    report(run, &ctx, outcomes, elapsed)
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
    }
}
