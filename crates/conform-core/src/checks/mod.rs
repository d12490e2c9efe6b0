//! The check catalog and the judging of runs. One module per check family; each
//! reads the runs it needs from the shared records (its [`Context`], `context.rs`)
//! and reports an [`Outcome`]; `judge.rs` judges the selected checks.

mod agent_env;
mod argument_order;
mod ci_terminal;
mod color;
mod context;
mod contracts;
mod destructive;
mod envelope;
mod generic_env;
mod hallucinated;
mod hang;
pub(crate) mod headless;
mod help;
mod injection;
mod invalid;
pub(crate) mod judge;
mod line_endings;
mod manifest;
mod network_timeout;
mod output_schema;
mod pagination;
mod profile_consistency;
mod repl;
mod secret_flags;
mod secrets;
mod self_update;
mod signals;
mod size_cap;
mod stdin_payload;
mod stream;
mod timeout;
mod versions;
mod width;

pub(crate) mod evidence;
pub(crate) mod schemas;
#[cfg(test)]
mod skips;
mod support;

use std::collections::BTreeSet;

use serde::Serialize;

use crate::exec::{Exit, RunError, RunErrorKind, RunRecord};
use crate::plan::{PlannedRun, RunIndex, RunKind};

pub(crate) use context::Context;
pub(crate) use evidence::Evidence;
pub(crate) use judge::judge;

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
    BareNoRepl => repl::BARE_NO_REPL,
    LfLineEndings => line_endings::LF_LINE_ENDINGS,
    MetaVersions => versions::META_VERSIONS,
    OutputSchemaValid => output_schema::OUTPUT_SCHEMA_VALID,
    CiTerminalJson => ci_terminal::CI_TERMINAL_JSON,
    WidthInvariant => width::WIDTH_INVARIANT,
    OutputSizeCap => size_cap::OUTPUT_SIZE_CAP,
    PaginationContract => pagination::PAGINATION_CONTRACT,
    TimeoutFlag => timeout::TIMEOUT_FLAG,
    HeadlessAuth => headless::HEADLESS_AUTH,
    HallucinatedInputRejected => hallucinated::HALLUCINATED_INPUT_REJECTED,
    GenericEnvIgnored => generic_env::GENERIC_ENV_IGNORED,
    DebugNoSecretLeak => secrets::DEBUG_NO_SECRET_LEAK,
    SecretNotEchoed => secrets::SECRET_NOT_ECHOED,
    SecretFlagsHaveAlternative => secret_flags::SECRET_FLAGS_HAVE_ALTERNATIVE,
    ShellMetacharInert => injection::SHELL_METACHAR_INERT,
    NetworkTimeout => network_timeout::NETWORK_TIMEOUT,
    NoSelfUpdate => self_update::NO_SELF_UPDATE,
    StdinPayloadBounded => stdin_payload::STDIN_PAYLOAD_BOUNDED,
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
    /// Runs at their limit that [`Outcome::completed`] left uncounted because the
    /// wait was another check's subject (`support::waits`), each in words.
    pub left_to_others: Vec<String>,
    /// Facts a run showed that fail nothing but that the findings' rubrics read
    /// (a secret flag beside its environment variable is §24's row 1).
    pub notes: Vec<Evidence>,
}

impl Outcome {
    pub(crate) fn new(id: CheckId) -> Self {
        Outcome {
            id,
            runs_checked: 0,
            failures: Vec::new(),
            skipped_reason: None,
            left_to_others: Vec::new(),
            notes: Vec::new(),
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

    /// Fails the run on something it was seen doing, which stands even when the
    /// machine starved the run (see [`Evidence::observed`]).
    pub(crate) fn fail_observed(&mut self, run: &Judged<'_>, detail: impl Into<String>) {
        self.failures.push(Evidence {
            observed: true,
            ..Evidence::of(run, detail.into())
        });
    }

    /// Record what `run` showed without failing the check, for the findings.
    pub(crate) fn note(&mut self, run: &Judged<'_>, detail: impl Into<String>) {
        self.notes.push(Evidence::of(run, detail.into()));
    }

    pub(crate) fn skip(&mut self, reason: impl Into<String>) {
        self.skipped_reason = Some(reason.into());
    }

    /// Count a run; a run that hit its limit or never started fails this check and is
    /// not judged further (returns false).
    ///
    /// Under `conform check`, a run whose wait at the limit is another check's
    /// subject is neither counted nor failed (returns false), and is named.
    pub(crate) fn completed(&mut self, run: &Judged<'_>) -> bool {
        if let Some(why) = support::waits::not_ours(run) {
            self.left_to_others.push(format!(
                "{} (stdin {}) was {why}",
                evidence::quoted(&run.planned.label),
                run.record.stdin.as_str()
            ));
            return false;
        }
        self.runs_checked += 1;
        if let Some(error) = &run.record.error {
            self.fail(run, error_detail(error));
            return false;
        }
        if run.record.timed_out {
            self.failures.push(Evidence {
                still_running: run.record.still_running(),
                ..Evidence::of(
                    run,
                    format!(
                        "no exit within the {}s limit; the kit killed its process group",
                        run.record.limit.as_secs_f64()
                    ),
                )
            });
            return false;
        }
        true
    }

    /// Ends the detail of each failure [`Outcome::completed`] made at a run's limit
    /// with what the run was still doing ("; still running: blocked reading stdin
    /// after printing `Name:`"): last, so what a check added after the limit's
    /// words stays next to them.
    pub(crate) fn add_still_running(&mut self) {
        for failure in &mut self.failures {
            if let Some(waiting) = failure.still_running.take() {
                failure.detail.push_str("; still running: ");
                failure.detail.push_str(&waiting);
            }
        }
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
    /// in `requirements/*.md` of cli-agent-spec); REQ-F-068, REQ-F-071, REQ-F-073
    /// and REQ-F-077 name a "silent assumption" instead.
    const REQUIREMENT_SOURCES: &[(&str, &[u16])] = &[
        ("REQ-C-001", &[1]),
        ("REQ-C-002", &[23]),
        ("REQ-C-004", &[23]),
        ("REQ-C-006", &[14]),
        ("REQ-C-012", &[11]),
        ("REQ-C-013", &[18]),
        ("REQ-C-014", &[19]),
        ("REQ-C-015", &[21]),
        ("REQ-C-016", &[24]),
        ("REQ-C-021", &[45]),
        ("REQ-F-001", &[1]),
        ("REQ-F-002", &[1, 14]),
        ("REQ-F-003", &[2]),
        ("REQ-F-005", &[2]),
        ("REQ-F-008", &[8]),
        ("REQ-F-010", &[10]),
        ("REQ-F-013", &[16]),
        ("REQ-F-014", &[16]),
        ("REQ-F-011", &[11]),
        ("REQ-F-012", &[11]),
        ("REQ-F-029", &[32]),
        ("REQ-F-050", &[41]),
        ("REQ-F-077", &[]),
        ("REQ-F-015", &[14]),
        ("REQ-F-018", &[5]),
        ("REQ-F-019", &[5]),
        ("REQ-F-022", &[22]),
        ("REQ-F-023", &[22, 32]),
        ("REQ-F-030", &[17]),
        ("REQ-F-034", &[24]),
        ("REQ-F-044", &[34]),
        ("REQ-F-045", &[35]),
        ("REQ-F-046", &[10]),
        ("REQ-F-047", &[37]),
        ("REQ-F-051", &[42]),
        ("REQ-F-052", &[43]),
        ("REQ-F-054", &[61]),
        ("REQ-F-055", &[62]),
        ("REQ-F-056", &[63]),
        ("REQ-F-057", &[64]),
        ("REQ-F-063", &[53]),
        ("REQ-F-068", &[]),
        ("REQ-F-072", &[]),
        ("REQ-F-071", &[]),
        ("REQ-O-003", &[5]),
        ("REQ-F-073", &[]),
        ("REQ-O-042", &[2]),
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
}
