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

use std::collections::BTreeSet;

use serde::Serialize;

use crate::checks::evidence::{Failure, RunFacts};
use crate::checks::{CheckId, Evidence, Outcome, Status, CATALOG};
use crate::envelope::RESULT_SCHEMA_VERSION;

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
    /// The verdict the first attempts would have given, where runs this check
    /// reads were made again alone and that verdict differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_attempt: Option<Box<Check<Evidence>>>,
    /// What the check's runs showed without failing it, which the findings read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Evidence>,
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
            first_attempt: None,
            notes: outcome.notes,
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
    /// The tool's commands, which a finding's coverage counts.
    pub commands: Commands,
}

/// A tool's commands: how many were found, and which profile entries they are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Commands {
    /// The commands found: the profile's read and destructive probes; under
    /// `conform check`, at least as many as exploration counted.
    pub found: usize,
    /// The profile entries of the commands (`/probes/3`), whose runs make a
    /// command judged.
    pub pointers: Vec<String>,
}

impl Commands {
    /// The read and destructive probes of `profile`.
    pub(crate) fn of(profile: &crate::profile::Profile) -> Self {
        use crate::profile::ProbeKind;
        let pointers: Vec<String> = profile
            .probes
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.kind, ProbeKind::Read | ProbeKind::Destructive))
            .map(|(i, _)| format!("/probes/{i}"))
            .collect();
        Commands {
            found: pointers.len(),
            pointers,
        }
    }
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
