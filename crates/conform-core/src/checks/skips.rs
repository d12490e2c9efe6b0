//! A check that judged nothing is `skip`, with the reason, never a pass: each
//! extension check whose runs can be made without what it judges (an error
//! envelope, data to compare, output on the terminal, a reader closing on a running
//! tool, a sentinel log, a probe to compare) is judged here on synthetic records
//! without it, and then with it, which counts.

use std::collections::BTreeSet;

use super::{judge, CheckId, Context, Outcome, Status};
use crate::exec::{Exit, RunRecord, SandboxReport};
use crate::plan::Records;
use crate::plan::{self, PlannedRun, RunKind, RunOptions};
use crate::profile::{self, LoadedProfile};

/// democli's error envelope for an unknown flag.
const ERROR_ENVELOPE: &str = r#"{"ok":false,"data":null,"error":{"code":"UNKNOWN_FLAG","message":"unknown flag","retryable":false},"warnings":[],"meta":{"exit_code":2,"duration_ms":0,"schema_version":"1.0"}}"#;
/// A success envelope: `"error": null` is not an error envelope.
const DATA_ENVELOPE: &str = r#"{"ok":true,"data":[{"id":"a"}],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"schema_version":"1.0"}}"#;

const PROFILE: &str = r#"{
    "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
    "probes": [
        { "name": "list", "argv": ["list"], "kind": "read" },
        { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" },
        { "name": "watch", "argv": ["watch"], "kind": "stream", "signal": "INT", "after_lines": 2 }
    ]
}"#;

/// `id` judged alone over the runs the planner makes for it from [`PROFILE`], each
/// made as `fill` says (it starts as an exit 0 with nothing written).
pub(super) fn judged(id: CheckId, fill: impl Fn(&PlannedRun, &mut RunRecord)) -> Outcome {
    let (outcome, runs) = judged_with_runs(PROFILE, id, |_| true, fill);
    assert!(runs > 0, "{id:?} makes runs");
    outcome
}

/// The same over the runs the planner makes from the profile `text` (which may be
/// none).
pub(super) fn judged_on(
    text: &str,
    id: CheckId,
    fill: impl Fn(&PlannedRun, &mut RunRecord),
) -> Outcome {
    judged_with_runs(text, id, |_| true, fill).0
}

/// The same with the planned runs `made` refuses left unmade, as a derived run
/// that was not needed is.
pub(super) fn judged_unless(
    text: &str,
    id: CheckId,
    made: impl Fn(&PlannedRun) -> bool,
    fill: impl Fn(&PlannedRun, &mut RunRecord),
) -> Outcome {
    judged_with_runs(text, id, made, fill).0
}

/// The outcome and how many runs were planned.
fn judged_with_runs(
    text: &str,
    id: CheckId,
    made: impl Fn(&PlannedRun) -> bool,
    fill: impl Fn(&PlannedRun, &mut RunRecord),
) -> (Outcome, usize) {
    let dir = std::env::temp_dir();
    let (profile, program) = profile::parse(text, &dir).expect("valid profile");
    let loaded = LoadedProfile {
        path: dir.join("p.json"),
        dir,
        profile,
        program,
        locations: profile::Locations::scan(text),
    };
    let selected = BTreeSet::from([id]);
    let plan = plan::plan(
        &loaded,
        &super::reads(&selected),
        RunOptions {
            capture_limit: 1 << 20,
        },
    );
    let records: Records = plan
        .runs
        .iter()
        .map(|run| {
            if !made(run) {
                return None;
            }
            let mut record = RunRecord::new(&run.spec);
            record.exit = Exit::Code(0);
            fill(run, &mut record);
            Some(record)
        })
        .collect();
    let ctx = Context::new(&loaded, &plan, &records);
    (judge(&ctx, &selected).remove(0), records.len())
}

pub(super) fn write(record: &mut RunRecord, stdout: &str) {
    record.stdout.bytes = stdout.as_bytes().to_vec();
    record.stdout.total_bytes = stdout.len() as u64;
}

fn assert_skipped(outcome: &Outcome, reason: &str) {
    assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
    assert_eq!(outcome.runs_checked, 0, "{outcome:#?}");
    let said = outcome.skipped_reason.as_deref().unwrap_or_default();
    assert!(said.starts_with(reason), "{said}");
}

pub(super) fn assert_passed(outcome: &Outcome, runs: usize) {
    assert_eq!(outcome.status(), Status::Pass, "{outcome:#?}");
    assert_eq!(outcome.runs_checked, runs, "{outcome:#?}");
}

#[test]
fn error_detail_skips_when_no_error_envelope_was_seen() {
    // Success envelopes, prose, a stream of items: no error envelope anywhere.
    let outcome = judged(CheckId::ErrorDetail, |run, record| match run.role.kind {
        RunKind::Closed if run.role.probe_index() == Some(1) => {
            record.exit = Exit::Code(2);
            write(record, "error: unknown flag --nope\n");
        }
        RunKind::Stream | RunKind::Sigterm => {
            write(record, "{\"_seq\":1}\n{\"_summary\":true}\n");
        }
        _ => write(record, DATA_ENVELOPE),
    });
    assert_skipped(&outcome, "no error envelope was seen");

    let outcome = judged(CheckId::ErrorDetail, |run, record| match run.role.kind {
        RunKind::Closed if run.role.probe_index() == Some(1) => {
            record.exit = Exit::Code(2);
            write(record, ERROR_ENVELOPE);
        }
        _ => write(record, DATA_ENVELOPE),
    });
    assert_passed(&outcome, 1);
}

#[test]
fn locale_invariant_skips_when_no_baseline_gave_data_to_compare() {
    let outcome = judged(CheckId::LocaleInvariant, |_, record| {
        write(record, "id  env\na   staging\n");
    });
    assert_skipped(&outcome, "no data to compare");

    let outcome = judged(CheckId::LocaleInvariant, |_, record| {
        write(record, DATA_ENVELOPE);
    });
    assert_passed(&outcome, 1);
    // A different exit is judged without data.
    let outcome = judged(CheckId::LocaleInvariant, |run, record| {
        if run.role.kind == RunKind::Locale {
            record.exit = Exit::Code(1);
        }
    });
    assert_eq!(outcome.status(), Status::Fail);
    assert_eq!(outcome.runs_checked, 1);
}

#[test]
fn tty_no_color_skips_when_nothing_was_written_to_the_terminal() {
    let outcome = judged(CheckId::TtyNoColor, |_, _| {});
    assert_skipped(&outcome, "no terminal run wrote anything");

    let outcome = judged(CheckId::TtyNoColor, |_, record| {
        write(record, "id  env\r\na   staging\r\n");
    });
    assert_passed(&outcome, 1);
}

#[test]
fn the_sentinel_checks_skip_without_a_sandbox_report() {
    for id in [
        CheckId::PagerNotInvoked,
        CheckId::EditorNotInvoked,
        CheckId::BrowserNotLaunched,
    ] {
        let outcome = judged(id, |_, _| {});
        assert_skipped(&outcome, "no run left a sandbox report");

        let outcome = judged(id, |_, record| {
            record.sandbox = Some(SandboxReport::default());
        });
        assert_eq!(outcome.status(), Status::Pass, "{id:?}");
        assert!(outcome.runs_checked > 0, "{id:?}");
    }
}
