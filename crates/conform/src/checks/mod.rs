//! The check catalog and the judging of runs. One module per check family; each
//! reads the runs it needs from the shared records and reports an [`Outcome`].

mod argument_order;
mod color;
mod destructive;
mod envelope;
mod hang;
mod help;
mod invalid;
mod manifest;
mod profile_consistency;
mod stream;

pub mod evidence;
pub mod schemas;

use std::cell::OnceCell;
use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

use crate::exec::{Exit, RunError, RunErrorKind, RunRecord};
use crate::plan::{Plan, PlannedRun, RunIndex, RunRole};
use crate::profile::LoadedProfile;
use crate::schedule::Records;

pub use evidence::Evidence;

/// Every check conform knows, in catalog (and report) order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CheckId {
    NoHangStdinClosed,
    NoHangStdinOpen,
    JsonEnvelope,
    ExitCodeContract,
    StdoutNoAnsi,
    NoColorHonored,
    HelpOffStdout,
    InvalidInputExit2,
    DryRunPreview,
    DestructiveRefusesUnconfirmed,
    ManifestValid,
    ArgumentOrder,
    StreamContract,
    StreamSigint,
    ProfileConsistency,
    DryRunStable,
}

/// What the catalog says about a check.
#[derive(Debug, Clone, Copy)]
pub struct CheckSpec {
    pub id: CheckId,
    pub name: &'static str,
    pub title: &'static str,
    pub level: u8,
    pub failure_modes: &'static [u16],
    pub requirements: &'static [&'static str],
    /// conform's own check, not one of the reference kit's 14.
    pub extension: bool,
}

const fn spec(
    id: CheckId,
    name: &'static str,
    title: &'static str,
    level: u8,
    failure_modes: &'static [u16],
    requirements: &'static [&'static str],
    extension: bool,
) -> CheckSpec {
    CheckSpec {
        id,
        name,
        title,
        level,
        failure_modes,
        requirements,
        extension,
    }
}

/// The catalog, in report order: the reference kit's 14 checks, then the extensions.
pub const CATALOG: &[CheckSpec] = &[
    spec(CheckId::NoHangStdinClosed, "no_hang_stdin_closed", "Completes with stdin closed", 1, &[10, 11], &["REQ-F-009", "REQ-F-010"], false),
    spec(CheckId::NoHangStdinOpen, "no_hang_stdin_open", "Completes with an open, silent stdin pipe", 1, &[50, 10], &["REQ-F-009"], false),
    spec(CheckId::JsonEnvelope, "json_envelope", "Non-TTY stdout is exactly one valid ResponseEnvelope without flags", 1, &[2, 3, 18], &["REQ-F-003", "REQ-F-004", "REQ-F-006", "REQ-C-013"], false),
    spec(CheckId::ExitCodeContract, "exit_code_contract", "Exit codes come from the table and match meta.exit_code", 1, &[1], &["REQ-F-001"], false),
    spec(CheckId::StdoutNoAnsi, "stdout_no_ansi", "No ANSI escape sequences on stdout in a non-TTY", 1, &[8], &["REQ-F-007"], false),
    spec(CheckId::NoColorHonored, "no_color_honored", "NO_COLOR=1 removes ANSI from stdout and stderr", 1, &[8], &["REQ-F-008"], false),
    spec(CheckId::HelpOffStdout, "help_off_stdout", "--help keeps stdout free of prose and exits 0", 1, &[3], &["REQ-F-048"], false),
    spec(CheckId::InvalidInputExit2, "invalid_input_exit_2", "Invalid input exits 2 before side effects", 1, &[14, 1], &["REQ-F-002"], false),
    spec(CheckId::DryRunPreview, "dry_run_preview", "Destructive commands preview with their dry-run flag", 1, &[23], &["REQ-C-004"], false),
    spec(CheckId::DestructiveRefusesUnconfirmed, "destructive_refuses_unconfirmed", "Destructive commands refuse with exit 2, before side effects, without confirmation", 2, &[23, 10], &["REQ-C-005", "REQ-O-021"], false),
    spec(CheckId::ManifestValid, "manifest_valid", "tool manifest returns a valid ManifestResponse", 3, &[52, 21], &["REQ-O-041"], false),
    spec(CheckId::ArgumentOrder, "argument_order", "A global option means the same before and after the command path; conflicting repeats exit 2", 3, &[69], &["REQ-F-067", "REQ-F-079"], false),
    spec(CheckId::StreamContract, "stream_contract", "Every stream line is a JSON object and the stream ends on exactly one terminal line that matches the exit code", 3, &[5, 76], &["REQ-O-004"], false),
    spec(CheckId::StreamSigint, "stream_sigint", "SIGINT mid-stream ends the stream on a CANCELLED error envelope with data.partial true and exit 130, as REQ-F-069 defines", 3, &[16], &["REQ-O-004", "REQ-F-069"], false),
    spec(CheckId::ProfileConsistency, "profile_consistency", "Probes name manifest commands whose danger level and streaming match the probe kind", 3, &[23, 52], &["REQ-C-002", "REQ-C-004", "REQ-O-004"], true),
    spec(CheckId::DryRunStable, "dry_run_stable", "A preview gives the same data twice: it changed nothing", 1, &[23], &["REQ-C-004"], true),
];

impl CheckId {
    pub fn spec(self) -> &'static CheckSpec {
        // CATALOG lists every variant in declaration order.
        &CATALOG[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn from_name(name: &str) -> Option<CheckId> {
        CATALOG.iter().find(|s| s.name == name).map(|s| s.id)
    }

    pub fn all() -> BTreeSet<CheckId> {
        CATALOG.iter().map(|s| s.id).collect()
    }
}

/// A check's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Skip,
}

/// The judgement of one check: counts, failures with evidence, or why it was skipped.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub id: CheckId,
    pub runs_checked: usize,
    pub failures: Vec<Evidence>,
    pub skipped_reason: Option<String>,
}

impl Outcome {
    pub fn new(id: CheckId) -> Self {
        Outcome {
            id,
            runs_checked: 0,
            failures: Vec::new(),
            skipped_reason: None,
        }
    }

    pub fn status(&self) -> Status {
        if self.skipped_reason.is_some() {
            Status::Skip
        } else if self.failures.is_empty() {
            Status::Pass
        } else {
            Status::Fail
        }
    }

    pub fn fail(&mut self, run: &Judged<'_>, detail: impl Into<String>) {
        self.failures.push(Evidence::of(run, detail.into()));
    }

    pub fn skip(&mut self, reason: impl Into<String>) {
        self.skipped_reason = Some(reason.into());
    }

    /// Count a run; a run that hit its limit or never started fails this check and is
    /// not judged further (returns false).
    pub fn completed(&mut self, run: &Judged<'_>) -> bool {
        self.runs_checked += 1;
        if let Some(error) = &run.record.error {
            self.fail(run, error_detail(error));
            return false;
        }
        if run.record.timed_out {
            self.fail(
                run,
                format!(
                    "no exit within the {}s limit; the kit killed its process group",
                    run.planned.spec.limit.as_secs_f64()
                ),
            );
            return false;
        }
        true
    }
}

/// The failure detail for a run with nothing of the tool to judge.
fn error_detail(error: &RunError) -> String {
    match error.kind {
        RunErrorKind::Spawn => format!("the tool could not be started: {}", error.message),
        RunErrorKind::Internal => format!(
            "{}; a bug in conform, not a verdict on the tool",
            error.message
        ),
    }
}

/// A made run with its plan entry.
#[derive(Debug, Clone, Copy)]
pub struct Judged<'a> {
    pub index: RunIndex,
    pub planned: &'a PlannedRun,
    pub record: &'a RunRecord,
}

impl Judged<'_> {
    /// The tool exited on its own: it was started and did not hit the limit. Runs
    /// that did not are reported by the check that owns them (a hang check,
    /// `dry_run_preview`, ...), not judged again elsewhere.
    pub fn finished(&self) -> bool {
        !self.record.timed_out && self.record.error.is_none()
    }

    /// "exited 1", "was killed by SIGSEGV": how the run ended, for details.
    pub fn describe_exit(&self) -> String {
        match self.record.exit {
            Exit::Code(code) => format!("exited {code}"),
            Exit::Signal(n) => format!("was killed by {}", evidence::signal_name(n)),
            Exit::Unknown => "ended without an exit status".to_string(),
        }
    }
}

/// Everything the checks read.
pub struct Context<'a> {
    pub profile: &'a LoadedProfile,
    pub plan: &'a Plan,
    pub records: &'a Records,
    /// Each run's stdout parsed and validated as an envelope, at most once: several
    /// checks read the same runs.
    envelopes: Vec<OnceCell<Result<Value, String>>>,
}

impl<'a> Context<'a> {
    pub fn new(profile: &'a LoadedProfile, plan: &'a Plan, records: &'a Records) -> Self {
        Context {
            profile,
            plan,
            records,
            envelopes: vec![OnceCell::new(); records.len()],
        }
    }

    /// Made runs with a role matching `select`, in plan order.
    pub fn runs(&self, select: impl Fn(&RunRole) -> bool) -> Vec<Judged<'a>> {
        self.plan
            .runs
            .iter()
            .zip(self.records.iter())
            .enumerate()
            .filter(|(_, (planned, _))| select(&planned.role))
            .filter_map(|(index, (planned, record))| {
                record.as_ref().map(|record| Judged {
                    index,
                    planned,
                    record,
                })
            })
            .collect()
    }

    /// The one made run with exactly this role.
    pub fn run(&self, role: &RunRole) -> Option<Judged<'a>> {
        self.runs(|r| r == role).into_iter().next()
    }

    /// The run's stdout as exactly one valid ResponseEnvelope, or why it is not.
    pub fn envelope(&self, run: &Judged<'_>) -> &Result<Value, String> {
        self.envelopes[run.index].get_or_init(|| envelope::parse(run))
    }
}

/// Judge the selected checks over the records of a plan's runs, in catalog order.
pub fn judge(ctx: &Context<'_>, selected: &BTreeSet<CheckId>) -> Vec<Outcome> {
    let envelope = envelope::judge(ctx);
    let destructive = destructive::judge(ctx);
    let stream = stream::judge(ctx);
    let (manifest_valid, manifest) = manifest::judge(ctx);
    let all = [
        hang::judge_closed(ctx),
        hang::judge_open(ctx),
        envelope.json,
        envelope.exit_codes,
        envelope.ansi,
        color::judge(ctx),
        help::judge(ctx),
        invalid::judge(ctx),
        destructive.preview,
        destructive.refuses,
        manifest_valid,
        argument_order::judge(ctx),
        stream.contract,
        stream.sigint,
        profile_consistency::judge(ctx, manifest),
        destructive.stable,
    ];
    // Judging a check nothing was planned for costs nothing; filtering afterwards
    // keeps one list in catalog order.
    let mut outcomes: Vec<Outcome> = all
        .into_iter()
        .filter(|o| selected.contains(&o.id))
        .collect();
    for outcome in &mut outcomes {
        if outcome.status() == Status::Pass && outcome.runs_checked == 0 {
            outcome.skip(nothing_judged(ctx));
        }
    }
    outcomes.sort_by_key(|o| o.id);
    outcomes
}

/// Why a check judged no run. A check that judged nothing is never a pass: its runs
/// were not made because the probe's stdin-closed run hit the limit, or they did not
/// finish, and the hang checks report those.
fn nothing_judged(ctx: &Context<'_>) -> String {
    let hung: Vec<String> = ctx
        .runs(|_| true)
        .iter()
        .filter(|run| run.record.timed_out)
        .map(|run| {
            format!(
                "{:?} (stdin {}) hit the {}s limit",
                run.planned.label,
                run.record.stdin.as_str(),
                run.planned.spec.limit.as_secs_f64()
            )
        })
        .collect();
    if hung.is_empty() {
        "no run this check reads was made".to_string()
    } else {
        format!(
            "no run could be judged: {}; the runs that follow a hung run are not made",
            hung.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_lists_every_check_in_declaration_order() {
        for (index, spec) in CATALOG.iter().enumerate() {
            assert_eq!(spec.id as usize, index, "{}", spec.name);
            assert_eq!(CheckId::from_name(spec.name), Some(spec.id));
        }
        assert_eq!(CheckId::all().len(), CATALOG.len());
    }
}
