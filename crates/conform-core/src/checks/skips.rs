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

/// A profile without a read probe: nothing to run on a terminal or narrowed.
const NO_READ_PROBE: &str = r#"{
    "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
    "probes": [ { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" } ]
}"#;

/// `id` judged alone over the runs the planner makes for it from [`PROFILE`], each
/// made as `fill` says (it starts as an exit 0 with nothing written).
pub(super) fn judged(id: CheckId, fill: impl Fn(&PlannedRun, &mut RunRecord)) -> Outcome {
    judged_with(PROFILE, id, fill)
}

/// [`judged`] over the runs planned from `text`, a profile of the test's own (which
/// may plan none).
pub(super) fn judged_with(
    text: &str,
    id: CheckId,
    fill: impl Fn(&PlannedRun, &mut RunRecord),
) -> Outcome {
    judged_in(text, id, |run, record| {
        fill(run, record);
        true
    })
}

/// The same with the planned runs `made` refuses left unmade, as a derived run
/// that was not needed is.
pub(super) fn judged_unless(
    text: &str,
    id: CheckId,
    made: impl Fn(&PlannedRun) -> bool,
    fill: impl Fn(&PlannedRun, &mut RunRecord),
) -> Outcome {
    judged_in(text, id, |run, record| {
        made(run) && {
            fill(run, record);
            true
        }
    })
}

/// `id` judged alone over the runs the planner makes for it from `text`, each
/// made as `fill` says; a run `fill` returns `false` for was not made (a derived
/// run that was not needed).
pub(super) fn judged_in(
    text: &str,
    id: CheckId,
    fill: impl Fn(&PlannedRun, &mut RunRecord) -> bool,
) -> Outcome {
    judged_planned(text, id, |_| {}, fill)
}

/// [`judged_with`] with every run's network at a black hole, as `conform check`
/// makes every run.
pub(super) fn judged_at_black_hole(
    text: &str,
    id: CheckId,
    fill: impl Fn(&PlannedRun, &mut RunRecord),
) -> Outcome {
    judged_planned(
        text,
        id,
        |plan| {
            for run in &mut plan.runs {
                run.spec.network = crate::exec::Network::BlackHole;
            }
        },
        |run, record| {
            fill(run, record);
            true
        },
    )
}

/// [`judged_in`] over the plan as `adjust` changes it before the runs are made.
pub(super) fn judged_planned(
    text: &str,
    id: CheckId,
    adjust: impl Fn(&mut plan::Plan),
    fill: impl Fn(&PlannedRun, &mut RunRecord) -> bool,
) -> Outcome {
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
    let mut plan = plan::plan(
        &loaded,
        &super::reads(&selected),
        RunOptions {
            capture_limit: 1 << 20,
        },
    );
    adjust(&mut plan);
    let records: Records = plan
        .runs
        .iter()
        .map(|run| {
            let mut record = RunRecord::new(&run.spec);
            record.exit = Exit::Code(0);
            fill(run, &mut record).then_some(record)
        })
        .collect();
    let ctx = Context::new(&loaded, &plan, &records);
    judge(&ctx, &selected).remove(0)
}

/// A manifest command's stdout: a success envelope whose `data` is a valid
/// ManifestResponse with these `commands` and root `extra` keys (`flags`, ...).
pub(super) fn manifest_envelope(commands: serde_json::Value) -> String {
    manifest_envelope_with(commands, serde_json::json!({}))
}

pub(super) fn manifest_envelope_with(
    commands: serde_json::Value,
    extra: serde_json::Value,
) -> String {
    let mut data = serde_json::json!({
        "schema_version": "3.20",
        "framework_version": "0.1.0",
        "etag": "sha256:9b68d922db67bd9ce00575c389de85d6bce9faa8ff8ad79fd4b8b3b55a075b54",
        "commands": commands,
    });
    if let (Some(data), Some(extra)) = (data.as_object_mut(), extra.as_object()) {
        data.extend(extra.clone());
    }
    serde_json::json!({
        "ok": true, "data": data, "error": null, "warnings": [],
        "meta": {"exit_code": 0, "duration_ms": 0}
    })
    .to_string()
}

pub(super) fn write(record: &mut RunRecord, stdout: &str) {
    record.stdout.bytes = stdout.as_bytes().to_vec();
    record.stdout.total_bytes = stdout.len() as u64;
}

pub(super) fn assert_skipped(outcome: &Outcome, reason: &str) {
    assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
    assert_eq!(outcome.runs_checked, 0, "{outcome:#?}");
    let said = outcome.skipped_reason.as_deref().unwrap_or_default();
    assert!(said.starts_with(reason), "{said}");
}

/// Each failure's detail, in order.
pub(super) fn details(outcome: &Outcome) -> Vec<&str> {
    outcome.failures.iter().map(|f| f.detail.as_str()).collect()
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

#[test]
fn ci_terminal_json_skips_without_a_read_probe() {
    let outcome = judged_with(NO_READ_PROBE, CheckId::CiTerminalJson, |_, record| {
        write(record, ERROR_ENVELOPE);
    });
    assert_skipped(&outcome, "no read probe in the profile");

    let outcome = judged(CheckId::CiTerminalJson, |_, record| {
        write(record, DATA_ENVELOPE);
    });
    assert_passed(&outcome, 1);
}

#[test]
fn width_invariant_skips_without_a_read_probe_or_data_to_compare() {
    let outcome = judged_with(NO_READ_PROBE, CheckId::WidthInvariant, |_, record| {
        write(record, ERROR_ENVELOPE);
    });
    assert_skipped(&outcome, "no read probe in the profile");

    // Tables everywhere: the exits agree, but there is no data to compare.
    let outcome = judged(CheckId::WidthInvariant, |_, record| {
        write(record, "id  env\na   staging\n");
    });
    assert_skipped(&outcome, "no data to compare");

    let outcome = judged(CheckId::WidthInvariant, |_, record| {
        write(record, DATA_ENVELOPE);
    });
    assert_passed(&outcome, 1);
}

#[test]
fn network_timeout_skips_when_no_black_hole_run_reached_the_listener() {
    let outcome = judged(CheckId::NetworkTimeout, |_, record| {
        write(record, DATA_ENVELOPE);
    });
    assert_skipped(
        &outcome,
        "no read probe's black-hole run reached the listener",
    );

    let outcome = judged(CheckId::NetworkTimeout, |run, record| {
        if run.role.kind == RunKind::BlackHole {
            record.proxy_requests = vec![crate::exec::ProxyRequest {
                host: Some("registry.example".into()),
                port: Some(443),
                path: None,
                unsent: false,
                at: std::time::Duration::ZERO,
            }];
            record.exit = Exit::Code(10);
            write(
                record,
                &ERROR_ENVELOPE
                    .replace("UNKNOWN_FLAG", "TIMEOUT")
                    .replace("\"retryable\":false", "\"retryable\":true")
                    .replace("\"exit_code\":2", "\"exit_code\":10"),
            );
        }
    });
    assert_passed(&outcome, 1);
}

#[test]
fn no_self_update_skips_without_a_sandbox_report_or_a_ci_run() {
    let outcome = judged_with(NO_READ_PROBE, CheckId::NoSelfUpdate, |_, _| {});
    assert_skipped(&outcome, "no isolated run left a sandbox report");

    let outcome = judged_with(NO_READ_PROBE, CheckId::NoSelfUpdate, |_, record| {
        record.sandbox = Some(SandboxReport::default());
    });
    assert_eq!(outcome.status(), Status::Pass, "{outcome:#?}");
    assert!(outcome.runs_checked > 0, "{outcome:#?}");
}

#[test]
fn the_part_4_checks_skip_when_they_have_nothing_to_run() {
    let outcome = judged_with(NO_READ_PROBE, CheckId::DebugNoSecretLeak, |_, _| {});
    assert_skipped(
        &outcome,
        "the profile has no read probe to run with a debug switch",
    );
    let outcome = judged_with(NO_READ_PROBE, CheckId::ShellMetacharInert, |_, _| {});
    assert_skipped(
        &outcome,
        "no command path to put the values after: no argument_order and no read probe",
    );
    let outcome = judged(CheckId::StdinPayloadBounded, |_, _| {});
    assert_skipped(&outcome, "no manifest to read stdin caps from");
    const STREAM_ONLY: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "probes": [ { "name": "watch", "argv": ["watch"], "kind": "stream" } ]
    }"#;
    let outcome = judged_with(STREAM_ONLY, CheckId::SecretNotEchoed, |_, _| {});
    assert_skipped(
        &outcome,
        "no read or invalid probe to plant canary secrets in",
    );
}

#[test]
fn secret_flags_have_alternative_skips_when_no_help_or_manifest_was_read() {
    // Every help run printed nothing, and the profile has no manifest.
    let outcome = judged(CheckId::SecretFlagsHaveAlternative, |_, _| {});
    assert_skipped(
        &outcome,
        "no help text to read: `t --help`, `t list --help`",
    );

    let outcome = judged(CheckId::SecretFlagsHaveAlternative, |_, record| {
        record.stderr.bytes = b"Usage: t list [--limit N]\n".to_vec();
    });
    assert_passed(&outcome, 2);
}
