//! The ConformanceResult: the reference kit's result document (levels, summary,
//! checks with runs_checked and failures), plus `extension: true` on conform's own
//! checks, which count in `summary` and the exit code but not in `levels`.

use std::collections::BTreeSet;
use std::time::Instant;

use serde::Serialize;

use crate::checks::{self, CheckId, Context, Evidence, Outcome, Status};
use crate::envelope::RESULT_SCHEMA_VERSION;
use crate::plan::{self, RunOptions};
use crate::profile::LoadedProfile;
use crate::{exec, schedule};

/// Level verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LevelStatus {
    Pass,
    Fail,
    Incomplete,
}

#[derive(Debug, Clone, Serialize)]
pub struct Levels {
    pub level_1: LevelStatus,
    pub level_2: LevelStatus,
    pub level_3: LevelStatus,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

/// One check in the result, in the reference kit's key order.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    pub id: &'static str,
    pub title: &'static str,
    pub status: Status,
    pub level: u8,
    pub failure_modes: Vec<String>,
    pub requirements: Vec<&'static str>,
    pub runs_checked: usize,
    pub failures: Vec<Evidence>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_reason: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub extension: bool,
}

impl From<Outcome> for CheckResult {
    fn from(outcome: Outcome) -> Self {
        let spec = outcome.id.spec();
        CheckResult {
            id: spec.name,
            title: spec.title,
            status: outcome.status(),
            level: spec.level,
            failure_modes: spec.failure_modes.iter().map(|n| format!("§{n}")).collect(),
            requirements: spec.requirements.to_vec(),
            runs_checked: outcome.runs_checked,
            failures: outcome.failures,
            skipped_reason: outcome.skipped_reason,
            extension: spec.extension,
        }
    }
}

/// The result of running one profile.
#[derive(Debug, Clone, Serialize)]
pub struct ConformanceResult {
    pub schema_version: &'static str,
    pub tool: String,
    /// The profile file, as given (conform's addition, for multi-profile runs).
    pub profile: String,
    pub levels: Levels,
    pub summary: Summary,
    pub checks: Vec<CheckResult>,
    /// How many runs were made and how long the whole profile took.
    pub runs: usize,
    pub duration_ms: u64,
}

impl ConformanceResult {
    pub fn failed(&self) -> bool {
        self.summary.failed > 0
    }
}

/// Level N passes when every reference check of level <= N passed; fails when any
/// failed; is incomplete when any was skipped.
fn level(checks: &[CheckResult], n: u8) -> LevelStatus {
    let relevant: Vec<&CheckResult> = checks
        .iter()
        .filter(|c| !c.extension && c.level <= n)
        .collect();
    if relevant.iter().any(|c| c.status == Status::Fail) {
        LevelStatus::Fail
    } else if relevant.iter().any(|c| c.status == Status::Skip) {
        LevelStatus::Incomplete
    } else {
        LevelStatus::Pass
    }
}

pub fn build(
    tool: &str,
    profile: String,
    checks: Vec<CheckResult>,
    runs: usize,
    duration_ms: u64,
) -> ConformanceResult {
    let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
    ConformanceResult {
        schema_version: RESULT_SCHEMA_VERSION,
        tool: tool.to_string(),
        profile,
        levels: Levels {
            level_1: level(&checks, 1),
            level_2: level(&checks, 2),
            level_3: level(&checks, 3),
        },
        summary: Summary {
            passed: count(Status::Pass),
            failed: count(Status::Fail),
            skipped: count(Status::Skip),
        },
        checks,
        runs,
        duration_ms,
    }
}

/// How to run a profile.
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub checks: BTreeSet<CheckId>,
    pub jobs: usize,
    pub options: RunOptions,
}

/// Plan, execute and judge one valid profile.
pub fn run_profile(loaded: &LoadedProfile, config: &RunConfig) -> ConformanceResult {
    let started = Instant::now();
    let plan = plan::plan(loaded, &config.checks, config.options);
    let records = schedule::execute(&plan, config.jobs, exec::run);
    let made = records.iter().filter(|r| r.is_some()).count();
    let ctx = Context::new(loaded, &plan, &records);
    let results = checks::judge(&ctx, &config.checks)
        .into_iter()
        .map(CheckResult::from)
        .collect();
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    build(
        &loaded.profile.tool,
        loaded.path.display().to_string(),
        results,
        made,
        duration_ms,
    )
}
