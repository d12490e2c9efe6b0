//! The check catalog and the judging of runs. One module per check family; each
//! reads the runs it needs from the shared records and reports an [`Outcome`].

mod agent_env;
mod argument_order;
mod color;
mod contracts;
mod destructive;
mod envelope;
mod hang;
mod help;
mod invalid;
mod manifest;
mod profile_consistency;
mod signals;
mod stream;

pub(crate) mod evidence;
pub(crate) mod schemas;
#[cfg(test)]
mod skips;
mod support;

use std::cell::{OnceCell, RefCell};
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde::Serialize;
use serde_json::Value;

use crate::exec::{Exit, RunError, RunErrorKind, RunRecord};
use crate::plan::Records;
use crate::plan::{Plan, PlannedRun, RunIndex, RunKind, RunRole};
use crate::profile::{LoadedProfile, ProbeKind};

pub(crate) use evidence::Evidence;

/// The registry: every check conform knows, in catalog (and report) order, each
/// one line naming its module's spec. It generates [`CheckId`] and [`CATALOG`], so
/// adding a check is its module and one line here.
macro_rules! registry {
    ($($id:ident => $spec:path,)*) => {
        /// A check, by its place in the catalog.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub(crate) enum CheckId {
            $($id,)*
        }

        /// The catalog, in report order: the reference kit's 14 checks, then the
        /// extensions.
        pub(crate) const CATALOG: &[CheckSpec] = &[$($spec,)*];
    };
}

registry! {
    NoHangStdinClosed => hang::NO_HANG_STDIN_CLOSED,
    NoHangStdinOpen => hang::NO_HANG_STDIN_OPEN,
    JsonEnvelope => envelope::JSON_ENVELOPE,
    ExitCodeContract => envelope::EXIT_CODE_CONTRACT,
    StdoutNoAnsi => envelope::STDOUT_NO_ANSI,
    NoColorHonored => color::NO_COLOR_HONORED,
    HelpOffStdout => help::HELP_OFF_STDOUT,
    InvalidInputExit2 => invalid::INVALID_INPUT_EXIT_2,
    DryRunPreview => destructive::DRY_RUN_PREVIEW,
    DestructiveRefusesUnconfirmed => destructive::DESTRUCTIVE_REFUSES_UNCONFIRMED,
    ManifestValid => manifest::MANIFEST_VALID,
    ArgumentOrder => argument_order::ARGUMENT_ORDER,
    StreamContract => stream::STREAM_CONTRACT,
    StreamSigint => stream::STREAM_SIGINT,
    ProfileConsistency => profile_consistency::PROFILE_CONSISTENCY,
    DryRunStable => destructive::DRY_RUN_STABLE,
    PagerNotInvoked => agent_env::PAGER_NOT_INVOKED,
    EditorNotInvoked => agent_env::EDITOR_NOT_INVOKED,
    BrowserNotLaunched => agent_env::BROWSER_NOT_LAUNCHED,
    TtyNoColor => agent_env::TTY_NO_COLOR,
    HelpVersionPure => agent_env::HELP_VERSION_PURE,
    InvalidInputNoSideEffects => agent_env::INVALID_INPUT_NO_SIDE_EFFECTS,
    UnknownCommandExit2 => contracts::UNKNOWN_COMMAND_EXIT_2,
    LocaleInvariant => contracts::LOCALE_INVARIANT,
    PipesClosedOnExit => signals::PIPES_CLOSED_ON_EXIT,
    ErrorDetail => contracts::ERROR_DETAIL,
    ExitCodesDeclared => contracts::EXIT_CODES_DECLARED,
    SigtermHandled => signals::SIGTERM_HANDLED,
    SigpipeQuiet => signals::SIGPIPE_QUIET,
}

/// A check: what the catalog says about it, the run variants it reads (the planner
/// makes exactly the variants the selected checks declare) and its judge.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CheckSpec {
    pub id: CheckId,
    pub name: &'static str,
    pub title: &'static str,
    pub level: u8,
    pub failure_modes: &'static [u16],
    pub requirements: &'static [&'static str],
    /// conform's own check, not one of the reference kit's 14.
    pub extension: bool,
    /// The kinds of run it judges; it sees no others.
    pub reads: &'static [RunKind],
    pub judge: Judge,
}

/// How a check is judged.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Judge {
    /// On its own.
    Alone(fn(&Context<'_>) -> Outcome),
    /// In one pass with the other checks of its family, which judge the same runs
    /// together: the pass is made once and gives every member's outcome.
    Family(&'static Family),
}

/// Checks judged in one pass.
#[derive(Debug)]
pub(crate) struct Family {
    pub name: &'static str,
    /// The outcome of every member, selected or not.
    pub judge: fn(&Context<'_>) -> Vec<Outcome>,
}

/// The kinds of run the selected checks read: what the planner makes for them.
pub(crate) fn reads(selected: &BTreeSet<CheckId>) -> BTreeSet<RunKind> {
    selected
        .iter()
        .flat_map(|check| check.spec().reads)
        .copied()
        .collect()
}

impl CheckId {
    pub(crate) fn spec(self) -> &'static CheckSpec {
        // CATALOG lists every variant in declaration order.
        &CATALOG[self as usize]
    }

    pub(crate) fn from_name(name: &str) -> Option<CheckId> {
        CATALOG.iter().find(|s| s.name == name).map(|s| s.id)
    }

    pub(crate) fn all() -> BTreeSet<CheckId> {
        CATALOG.iter().map(|s| s.id).collect()
    }
}

/// A check's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Pass,
    Fail,
    Skip,
}

/// The judgement of one check: counts, failures with evidence, or why it was skipped.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub id: CheckId,
    pub runs_checked: usize,
    pub failures: Vec<Evidence>,
    pub skipped_reason: Option<String>,
}

impl Outcome {
    pub(crate) fn new(id: CheckId) -> Self {
        Outcome {
            id,
            runs_checked: 0,
            failures: Vec::new(),
            skipped_reason: None,
        }
    }

    pub(crate) fn status(&self) -> Status {
        if self.skipped_reason.is_some() {
            Status::Skip
        } else if self.failures.is_empty() {
            Status::Pass
        } else {
            Status::Fail
        }
    }

    pub(crate) fn fail(&mut self, run: &Judged<'_>, detail: impl Into<String>) {
        self.failures.push(Evidence::of(run, detail.into()));
    }

    pub(crate) fn skip(&mut self, reason: impl Into<String>) {
        self.skipped_reason = Some(reason.into());
    }

    /// Count a run; a run that hit its limit or never started fails this check and is
    /// not judged further (returns false).
    pub(crate) fn completed(&mut self, run: &Judged<'_>) -> bool {
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
pub(crate) struct Judged<'a> {
    pub index: RunIndex,
    pub planned: &'a PlannedRun,
    pub record: &'a RunRecord,
}

impl Judged<'_> {
    /// The tool exited on its own: it was started and did not hit the limit. Runs
    /// that did not are reported by the check that owns them (a hang check,
    /// `dry_run_preview`, ...), not judged again elsewhere.
    pub(crate) fn finished(&self) -> bool {
        !self.record.timed_out && self.record.error.is_none()
    }

    /// "exited 1", "was killed by SIGSEGV": how the run ended, for details.
    pub(crate) fn describe_exit(&self) -> String {
        match self.record.exit {
            Exit::Code(code) => format!("exited {code}"),
            Exit::Signal(n) => format!("was killed by {}", evidence::signal_name(n)),
            Exit::Unknown => "ended without an exit status".to_string(),
        }
    }
}

/// Everything the checks read.
pub(crate) struct Context<'a> {
    pub profile: &'a LoadedProfile,
    pub plan: &'a Plan,
    pub records: &'a Records,
    /// Each run's stdout parsed and validated as an envelope, at most once: several
    /// checks read the same runs.
    envelopes: Vec<OnceCell<Result<Value, String>>>,
    /// While a check (or a family) is judged: the kinds it declared, the only runs
    /// it sees.
    reads: RefCell<Option<Vec<RunKind>>>,
    /// The manifest's `data` validated as a ManifestResponse, once for every check
    /// that reads it.
    pub(super) manifest_verdict: OnceCell<Result<(), String>>,
}

impl<'a> Context<'a> {
    pub(crate) fn new(profile: &'a LoadedProfile, plan: &'a Plan, records: &'a Records) -> Self {
        Context {
            profile,
            plan,
            records,
            envelopes: vec![OnceCell::new(); records.len()],
            reads: RefCell::new(None),
            manifest_verdict: OnceCell::new(),
        }
    }

    /// Made runs with a role matching `select`, in plan order; while a check is
    /// judged, only of the kinds it declared.
    pub(crate) fn runs(&self, select: impl Fn(&RunRole) -> bool) -> Vec<Judged<'a>> {
        let reads = self.reads.borrow();
        self.all_runs()
            .into_iter()
            .filter(|run| {
                reads
                    .as_ref()
                    .is_none_or(|reads| reads.contains(&run.planned.role.kind))
            })
            .filter(|run| select(&run.planned.role))
            .collect()
    }

    /// Made runs of these kinds, in plan order.
    pub(crate) fn runs_of(&self, kinds: &[RunKind]) -> Vec<Judged<'a>> {
        self.runs(|role| kinds.contains(&role.kind))
    }

    /// Made runs of `kind` made from probes of `probe_kind`, in plan order.
    pub(crate) fn probe_runs(&self, kind: RunKind, probe_kind: ProbeKind) -> Vec<Judged<'a>> {
        let probes = &self.profile.profile.probes;
        self.runs(|role| {
            role.kind == kind
                && role
                    .probe_index()
                    .and_then(|p| probes.get(p))
                    .is_some_and(|p| p.kind == probe_kind)
        })
    }

    /// Every made run of the kinds the check being judged declared.
    pub(crate) fn declared_runs(&self) -> Vec<Judged<'a>> {
        self.runs(|_| true)
    }

    /// Every made run, in plan order, whatever is being judged.
    pub(crate) fn all_runs(&self) -> Vec<Judged<'a>> {
        self.plan
            .runs
            .iter()
            .zip(self.records.iter())
            .enumerate()
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
    pub(crate) fn run(&self, role: RunRole) -> Option<Judged<'a>> {
        self.runs(|r| *r == role).into_iter().next()
    }

    /// The run's stdout as exactly one valid ResponseEnvelope, or why it is not.
    pub(crate) fn envelope(&self, run: &Judged<'_>) -> &Result<Value, String> {
        self.envelopes[run.index].get_or_init(|| support::output::parse(run))
    }
}

/// Judge the selected checks over the records of a plan's runs, in catalog order.
/// Each check sees only the runs of the variants it declared, so one that reads a
/// run it did not declare finds nothing, rather than passing on runs that
/// `--only` would not make.
pub(crate) fn judge(ctx: &Context<'_>, selected: &BTreeSet<CheckId>) -> Vec<Outcome> {
    let specs: Vec<&CheckSpec> = CATALOG
        .iter()
        .filter(|spec| selected.contains(&spec.id))
        .collect();
    // Each family's outcomes, from its one pass.
    let mut families: Vec<(&str, Vec<Outcome>)> = Vec::new();
    let mut outcomes = Vec::new();
    for spec in &specs {
        let mut outcome = match spec.judge {
            Judge::Alone(judge) => guarded(ctx, spec.reads.to_vec(), || vec![judge(ctx)])
                .map(|mut one| one.remove(0))
                .unwrap_or_else(|why| panicked(spec.id, &why)),
            Judge::Family(family) => {
                if !families.iter().any(|(name, _)| *name == family.name) {
                    // The family sees what its selected members declared.
                    let mut reads: Vec<RunKind> = specs
                        .iter()
                        .filter(|s| matches!(s.judge, Judge::Family(f) if f.name == family.name))
                        .flat_map(|s| s.reads.iter().copied())
                        .collect();
                    reads.sort();
                    reads.dedup();
                    let judged = guarded(ctx, reads, || (family.judge)(ctx));
                    families.push((
                        family.name,
                        judged.unwrap_or_else(|why| {
                            // Every member reports the panic as its own.
                            CATALOG.iter().map(|s| panicked(s.id, &why)).collect()
                        }),
                    ));
                }
                families
                    .iter_mut()
                    .find(|(name, _)| *name == family.name)
                    .and_then(|(_, judged)| {
                        let at = judged.iter().position(|o| o.id == spec.id)?;
                        Some(judged.swap_remove(at))
                    })
                    .unwrap_or_else(|| panicked(spec.id, "its family gave no outcome for it"))
            }
        };
        if outcome.status() == Status::Pass && outcome.runs_checked == 0 {
            outcome.skip(nothing_judged(ctx));
        }
        outcomes.push(outcome);
    }
    outcomes
}

/// Runs a judge seeing only `reads`; a panic in it is returned as its message, so
/// that a bug in one judge costs its checks, not the others or the profile.
fn guarded(
    ctx: &Context<'_>,
    reads: Vec<RunKind>,
    judge: impl FnOnce() -> Vec<Outcome>,
) -> Result<Vec<Outcome>, String> {
    *ctx.reads.borrow_mut() = Some(reads);
    let judged = catch_unwind(AssertUnwindSafe(judge));
    *ctx.reads.borrow_mut() = None;
    judged.map_err(|payload| crate::exit::panic_message(payload.as_ref()).to_string())
}

/// The outcome of a check whose judge panicked: never a pass, never the tool's
/// failure.
fn panicked(id: CheckId, why: &str) -> Outcome {
    let mut outcome = Outcome::new(id);
    outcome.skip(format!(
        "conform could not judge this check: its judge panicked ({why}); this is a bug in conform, not in the tool"
    ));
    outcome
}

/// Why a check judged no run. A check that judged nothing is never a pass: its runs
/// were not made because the probe's stdin-closed run hit the limit, or they did not
/// finish, and the hang checks report those.
fn nothing_judged(ctx: &Context<'_>) -> String {
    let hung: Vec<String> = ctx
        .all_runs()
        .iter()
        .filter(|run| run.record.timed_out)
        .map(|run| {
            format!(
                "{} (stdin {}) hit the {}s limit",
                evidence::quoted(&run.planned.label),
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

    /// The reference kit's failure modes for its 14 checks (`conformance/run.py`'s
    /// CHECKS table), kept exactly for parity.
    const REFERENCE_FAILURE_MODES: &[(&str, &[u16])] = &[
        ("no_hang_stdin_closed", &[10, 11]),
        ("no_hang_stdin_open", &[50, 10]),
        ("json_envelope", &[2, 3, 18]),
        ("exit_code_contract", &[1]),
        ("stdout_no_ansi", &[8]),
        ("no_color_honored", &[8]),
        ("help_off_stdout", &[3]),
        ("invalid_input_exit_2", &[14, 1]),
        ("dry_run_preview", &[23]),
        ("destructive_refuses_unconfirmed", &[23, 10]),
        ("manifest_valid", &[52, 21]),
        ("argument_order", &[69]),
        ("stream_contract", &[5, 76]),
        ("stream_sigint", &[16]),
    ];

    /// The failure modes each requirement page names as its source (`**Source:**`
    /// in `requirements/*.md` of cli-agent-spec); REQ-F-068 and REQ-F-071 name a
    /// "silent assumption" instead.
    const REQUIREMENT_SOURCES: &[(&str, &[u16])] = &[
        ("REQ-C-001", &[1]),
        ("REQ-C-002", &[23]),
        ("REQ-C-004", &[23]),
        ("REQ-C-006", &[14]),
        ("REQ-C-013", &[18]),
        ("REQ-C-014", &[19]),
        ("REQ-F-001", &[1]),
        ("REQ-F-002", &[1, 14]),
        ("REQ-F-005", &[2]),
        ("REQ-F-008", &[8]),
        ("REQ-F-010", &[10]),
        ("REQ-F-013", &[16]),
        ("REQ-F-014", &[16]),
        ("REQ-F-015", &[14]),
        ("REQ-F-030", &[17]),
        ("REQ-F-046", &[10]),
        ("REQ-F-055", &[62]),
        ("REQ-F-057", &[64]),
        ("REQ-F-068", &[]),
        ("REQ-F-071", &[]),
        ("REQ-O-004", &[5]),
    ];

    #[test]
    fn the_reference_checks_keep_the_reference_kits_failure_modes() {
        let reference: Vec<&CheckSpec> = CATALOG.iter().filter(|s| !s.extension).collect();
        assert_eq!(reference.len(), REFERENCE_FAILURE_MODES.len());
        for (spec, (name, modes)) in reference.iter().zip(REFERENCE_FAILURE_MODES) {
            assert_eq!((spec.name, spec.failure_modes), (*name, *modes));
        }
    }

    #[test]
    fn an_extension_check_names_the_failure_modes_its_requirements_come_from() {
        for spec in CATALOG.iter().filter(|s| s.extension) {
            assert!(!spec.failure_modes.is_empty(), "{} names none", spec.name);
            for requirement in spec.requirements {
                let (_, sources) = REQUIREMENT_SOURCES
                    .iter()
                    .find(|(id, _)| id == requirement)
                    .unwrap_or_else(|| {
                        panic!("{requirement} of {} has no source listed", spec.name)
                    });
                for mode in *sources {
                    assert!(
                        spec.failure_modes.contains(mode),
                        "{} checks {requirement} (from §{mode}) but names {:?}",
                        spec.name,
                        spec.failure_modes
                    );
                }
            }
        }
    }

    /// A context over every run a four-probe profile makes with every check
    /// selected, each record as a run that made nothing.
    fn with_full_context(test: impl FnOnce(&Context<'_>, &Plan)) {
        let dir = std::env::temp_dir();
        let text = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh", "-c", "exit 0", "sh"], "timeout_seconds": 5,
            "manifest": ["manifest"],
            "argument_order": { "command_path": ["list"], "local_args": ["--limit", "1"], "global_flag": "--format", "value": "json", "alternate_value": "plain", "positional": "p" },
            "probes": [
                { "name": "list", "argv": ["list"], "kind": "read" },
                { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" },
                { "name": "rm", "argv": ["rm"], "kind": "destructive", "dry_run_flag": "--dry-run" },
                { "name": "watch", "argv": ["watch"], "kind": "stream", "signal": "INT", "after_lines": 2 }
            ]
        }"#;
        let (profile, program) = crate::profile::parse(text, &dir).expect("valid profile");
        let loaded = LoadedProfile {
            path: dir.join("p.json"),
            dir,
            profile,
            program,
            locations: crate::profile::Locations::scan(text),
        };
        let plan = crate::plan::plan(
            &loaded,
            &reads(&CheckId::all()),
            crate::plan::RunOptions { capture_limit: 1 },
        );
        let records: Records = plan
            .runs
            .iter()
            .map(|run| Some(RunRecord::new(&run.spec)))
            .collect();
        test(&Context::new(&loaded, &plan, &records), &plan);
    }

    #[test]
    fn a_panicking_judge_costs_its_own_check_and_leaves_the_view_as_it_was() {
        with_full_context(|ctx, _| {
            let judged = guarded(ctx, vec![RunKind::Closed], || panic!("boom"));
            assert_eq!(judged.map(|o| o.len()), Err("boom".to_string()));
            assert!(ctx.reads.borrow().is_none(), "the view is reset");
            let outcome = panicked(CheckId::JsonEnvelope, "boom");
            assert_eq!(outcome.status(), Status::Skip);
            let reason = outcome.skipped_reason.unwrap_or_default();
            assert!(reason.contains("its judge panicked (boom)"), "{reason}");
            assert!(
                reason.contains("a bug in conform, not in the tool"),
                "{reason}"
            );
        });
    }

    #[test]
    fn while_a_check_is_judged_it_sees_only_the_kinds_it_declared() {
        with_full_context(|ctx, plan| {
            for spec in CATALOG {
                assert!(!spec.reads.is_empty(), "{} reads nothing", spec.name);
                *ctx.reads.borrow_mut() = Some(spec.reads.to_vec());
                let seen = ctx.runs(|_| true);
                *ctx.reads.borrow_mut() = None;
                assert!(!seen.is_empty(), "{} sees no run", spec.name);
                for run in seen {
                    let kind = run.planned.role.kind;
                    assert!(spec.reads.contains(&kind), "{} saw {kind:?}", spec.name);
                }
            }
            assert_eq!(ctx.runs(|_| true).len(), plan.runs.len());
        });
    }
}
