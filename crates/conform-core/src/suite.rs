//! The facade for a CLI's own test suite:
//!
//! ```ignore
//! conform_core::Suite::load("conformance/profile.json")?
//!     .program(env!("CARGO_BIN_EXE_mytool"))
//!     .run()?
//!     .assert_pass();
//! ```
//!
//! A suite makes the same runs and verdicts as `conform run` on one profile, with
//! its own cancellation and scratch directory: suites in parallel tests of one
//! process never touch each other.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;

use crate::checks::{CheckId, Status};
use crate::command;
use crate::events::Silent;
use crate::exec::{Cancel, DEFAULT_CAPTURE_LIMIT};
use crate::profile::{self, LoadedProfile, Violation};
use crate::render::run as render_run;
use crate::render::style::Style;
use crate::render::Sources;
use crate::result::{LevelStatus, ProfileReport};
use crate::runner::{run_profiles, ProfileRun, RunConfig};

/// One profile, ready to run against a program.
#[derive(Debug, Clone)]
pub struct Suite {
    path: PathBuf,
    program: Option<PathBuf>,
    only: Vec<String>,
    skip: Vec<String>,
    jobs: Option<usize>,
    cancel: Cancel,
    adopt_orphans: bool,
}

/// Why a suite could not run: nothing was run.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SuiteError {
    /// The profile is missing, unreadable or invalid, or its program cannot run.
    #[error("{}", invalid_profile(path, violations))]
    InvalidProfile {
        /// The profile file, as given.
        path: PathBuf,
        /// Every violation, with its JSON pointer, line and fix.
        violations: Vec<Violation>,
    },
    /// `only` or `skip` named something that is neither a check ID nor a group.
    #[error("unknown check \"{name}\": use a check ID ({}) or a group (reference, extension)", command::check_ids().collect::<Vec<_>>().join(", "))]
    UnknownCheck {
        /// The name as given.
        name: String,
    },
    /// `only` and `skip` left no check to run.
    #[error("no check is selected: `only` and `skip` left none")]
    NothingSelected,
}

fn invalid_profile(path: &Path, violations: &[Violation]) -> String {
    let mut text = format!("{} is not a usable conformance profile:", path.display());
    for v in violations {
        let at = match (v.line, v.column) {
            (Some(line), Some(column)) => format!("line {line}, column {column}, "),
            _ => String::new(),
        };
        let pointer = if v.pointer.is_empty() {
            "the document"
        } else {
            &v.pointer
        };
        text.push_str(&format!(
            "\n  {at}{pointer}: {}\n    fix: {}",
            v.message, v.fix
        ));
    }
    text
}

impl Suite {
    /// Reads and validates the profile at `path` (relative paths from the current
    /// directory, which `cargo test` sets to the package's root). A `command`
    /// whose program does not exist yet is not an error here: [`Suite::program`]
    /// may replace it, and [`Suite::run`] checks the program it will run.
    pub fn load(path: impl AsRef<Path>) -> Result<Suite, SuiteError> {
        let path = path.as_ref().to_path_buf();
        if let Err(error) = profile::load(&path) {
            let only_program = error
                .violations
                .iter()
                .all(|v| v.pointer == profile::PROGRAM_POINTER);
            if !only_program {
                return Err(SuiteError::InvalidProfile {
                    path,
                    violations: error.violations,
                });
            }
        }
        Ok(Suite {
            path,
            program: None,
            only: Vec::new(),
            skip: Vec::new(),
            jobs: None,
            cancel: Cancel::new(),
            adopt_orphans: false,
        })
    }

    /// Runs this program in place of the profile's `command[0]` (its other
    /// elements are kept): `env!("CARGO_BIN_EXE_mytool")`, the binary cargo built
    /// for this test run.
    pub fn program(mut self, program: impl AsRef<Path>) -> Suite {
        let program = program.as_ref();
        self.program = Some(if program.is_absolute() {
            program.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(program)
        });
        self
    }

    /// Judges only these checks (IDs as `conform checks` lists them, or the
    /// groups `reference` and `extension`); only the runs they need are made.
    pub fn only<I, S>(mut self, checks: I) -> Suite
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.only.extend(checks.into_iter().map(Into::into));
        self
    }

    /// Leaves these checks (or groups) out.
    pub fn skip<I, S>(mut self, checks: I) -> Suite
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.skip.extend(checks.into_iter().map(Into::into));
        self
    }

    /// Runs made at once; the default is the number of CPUs.
    pub fn jobs(mut self, jobs: usize) -> Suite {
        self.jobs = Some(jobs.max(1));
        self
    }

    /// Kills what a tool leaves running: makes this process a child subreaper
    /// (Linux), so that a process the tool starts outside its process group is
    /// re-parented here rather than to init, and a run kills those that still hold
    /// its output when it ends, as `conform run` does. Off by default, because a
    /// subreaper is process-wide: it stays on after the suite, every suite in the
    /// process then does the same, and this process adopts the orphans of whatever
    /// else it starts (which conform leaves alone). Does nothing elsewhere.
    pub fn adopt_orphans(mut self) -> Suite {
        self.adopt_orphans = true;
        self
    }

    /// A handle that stops this suite's runs from another thread (their process
    /// groups are killed); [`Suite::run`] then returns a report with no verdicts.
    pub fn canceller(&self) -> Cancel {
        self.cancel.clone()
    }

    /// Makes every run the selected checks need and judges them.
    pub fn run(&self) -> Result<SuiteReport, SuiteError> {
        let checks = self.checks()?;
        if self.adopt_orphans {
            // Where there are no subreapers the orphans go to init, as without it.
            let _ = crate::exec::adopt_orphans();
        }
        let loaded = profile::load_with(&self.path, self.program.as_deref()).map_err(|error| {
            SuiteError::InvalidProfile {
                path: self.path.clone(),
                violations: error.violations,
            }
        })?;
        let config = RunConfig::new(self.jobs, DEFAULT_CAPTURE_LIMIT, &self.cancel);
        let started = Instant::now();
        let run = ProfileRun {
            profile: &loaded,
            checks: checks.clone(),
        };
        let outcome = run_profiles(std::slice::from_ref(&run), &config, &mut Silent);
        Ok(SuiteReport {
            report: outcome.reports.into_iter().next(),
            sources: Sources::of([&loaded]),
            profile: loaded,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        })
    }

    fn checks(&self) -> Result<BTreeSet<CheckId>, SuiteError> {
        let checks = command::select(&self.only, &self.skip)
            .map_err(|name| SuiteError::UnknownCheck { name })?;
        if checks.is_empty() {
            return Err(SuiteError::NothingSelected);
        }
        Ok(checks)
    }
}

/// What a suite found.
#[derive(Debug)]
pub struct SuiteReport {
    /// `None` when the suite was cancelled before its verdicts.
    report: Option<ProfileReport>,
    sources: Sources,
    profile: LoadedProfile,
    duration_ms: u64,
}

impl SuiteReport {
    /// Every selected check that judged something passed, and at least one did.
    pub fn passed(&self) -> bool {
        self.report
            .as_ref()
            .is_some_and(|r| r.summary.failed == 0 && r.summary.passed > 0)
    }

    /// The IDs of the checks that failed.
    pub fn failed_checks(&self) -> Vec<&'static str> {
        self.with_status(Status::Fail)
    }

    /// The IDs of the checks that were skipped (nothing to judge, or left out).
    pub fn skipped_checks(&self) -> Vec<&'static str> {
        self.with_status(Status::Skip)
    }

    fn with_status(&self, status: Status) -> Vec<&'static str> {
        self.report.as_ref().map_or_else(Vec::new, |r| {
            r.checks
                .iter()
                .filter(|c| c.check.status == status)
                .map(|c| c.check.id)
                .collect()
        })
    }

    /// Whether conformance level `level` (1 to 3) passed: every check of that
    /// level and below ran and passed.
    pub fn level_passed(&self, level: u8) -> bool {
        self.report.as_ref().is_some_and(|r| {
            let status = match level {
                1 => r.levels.level_1,
                2 => r.levels.level_2,
                3 => r.levels.level_3,
                _ => return false,
            };
            status == LevelStatus::Pass
        })
    }

    /// The report `conform run` prints on a terminal, without color.
    pub fn text(&self) -> String {
        match &self.report {
            Some(report) => render_run::to_text(
                std::slice::from_ref(report),
                &self.sources,
                Style { color: false },
            ),
            None => format!(
                "{}: cancelled before any check was judged\n",
                self.profile.path.display()
            ),
        }
    }

    /// The result as the spec's reference kit writes it: a ConformanceResult
    /// (null when cancelled).
    pub fn result(&self) -> Value {
        match &self.report {
            Some(report) => render_run::to_envelope(std::slice::from_ref(report), self.duration_ms)
                .get_mut("data")
                .map(Value::take)
                .unwrap_or(Value::Null),
            None => Value::Null,
        }
    }

    /// Panics, with the text report, unless every selected check that judged
    /// something passed. A suite that judged nothing (all skipped, or cancelled)
    /// does not pass either: a check that judged no run is never a pass.
    #[track_caller]
    pub fn assert_pass(&self) {
        if self.passed() {
            return;
        }
        let failed = self.failed_checks();
        let why = if !failed.is_empty() {
            format!(
                "{} conformance check{} failed: {}",
                failed.len(),
                if failed.len() == 1 { "" } else { "s" },
                failed.join(", ")
            )
        } else {
            "no check judged anything".to_string()
        };
        panic!(
            "{} does not pass {}: {why}\n\n{}",
            self.profile.profile.tool,
            self.profile.path.display(),
            self.text()
        );
    }

    /// Panics, with the text report, unless conformance level `level` passed.
    #[track_caller]
    pub fn assert_level(&self, level: u8) {
        if !self.level_passed(level) {
            panic!(
                "{} does not reach conformance level {level} on {}\n\n{}",
                self.profile.profile.tool,
                self.profile.path.display(),
                self.text()
            );
        }
    }
}

impl fmt::Display for SuiteReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}
