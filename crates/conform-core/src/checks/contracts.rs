//! Extension checks on what a tool promises agents beyond one envelope:
//! `unknown_command_exit_2` (made-up words are usage errors), `locale_invariant`
//! (data does not follow the locale), `error_detail` (errors say whether a retry
//! helps) and `exit_codes_declared` (the manifest lists every exit code seen).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::support;
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::plan::{RunKind, GERMAN_LOCALE};

pub(super) const UNKNOWN_COMMAND_EXIT_2: CheckSpec = CheckSpec {
    id: CheckId::UnknownCommandExit2,
    name: "unknown_command_exit_2",
    title: "A made-up command or flag exits 2 with an error envelope on stdout",
    level: 1,
    failure_modes: &[14, 1],
    requirements: &["REQ-F-001", "REQ-F-002", "REQ-C-006"],
    extension: true,
    reads: &[RunKind::UnknownCommand, RunKind::UnknownFlag],
    judge: Judge::Alone(unknown_command),
};

pub(super) const LOCALE_INVARIANT: CheckSpec = CheckSpec {
    id: CheckId::LocaleInvariant,
    name: "locale_invariant",
    title: "A read probe under LC_ALL=de_DE.UTF-8 exits as without it and gives equal data",
    level: 1,
    failure_modes: &[2],
    requirements: &["REQ-F-005"],
    extension: true,
    reads: &[RunKind::Closed, RunKind::Locale],
    judge: Judge::Alone(locale),
};

pub(super) const ERROR_DETAIL: CheckSpec = CheckSpec {
    id: CheckId::ErrorDetail,
    name: "error_detail",
    title: "Every error envelope has a boolean error.retryable, false for exit 2",
    level: 2,
    failure_modes: &[18, 19],
    requirements: &["REQ-C-013", "REQ-C-014"],
    extension: true,
    reads: &[
        RunKind::Closed,
        RunKind::UnknownCommand,
        RunKind::UnknownFlag,
        RunKind::Stream,
        RunKind::Sigterm,
    ],
    judge: Judge::Alone(error_detail),
};

pub(super) const EXIT_CODES_DECLARED: CheckSpec = CheckSpec {
    id: CheckId::ExitCodesDeclared,
    name: "exit_codes_declared",
    title: "Every exit code a probe's runs return is declared in the manifest",
    level: 3,
    failure_modes: &[1],
    requirements: &["REQ-C-001", "REQ-F-001"],
    extension: true,
    reads: &[
        RunKind::Manifest,
        RunKind::Closed,
        RunKind::Open,
        RunKind::NoColor,
        RunKind::Preview,
        RunKind::SecondPreview,
        RunKind::Stream,
        RunKind::Sigterm,
    ],
    judge: Judge::Alone(exit_codes_declared),
};

fn unknown_command(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::UnknownCommandExit2);
    for run in ctx.declared_runs() {
        if !outcome.completed(&run) {
            continue;
        }
        let what = match run.planned.role.kind {
            RunKind::UnknownCommand => "a command that does not exist",
            _ => "a flag that does not exist",
        };
        let code = run.record.exit_code();
        if code != Some(2) {
            outcome.fail(
                &run,
                format!(
                    "{} for {what}, expected 2: agents need 2 to know the invocation was rejected before anything happened (REQ-F-002)",
                    run.describe_exit()
                ),
            );
            continue;
        }
        match ctx.envelope(&run) {
            Err(why) => outcome.fail(
                &run,
                format!("exited 2 for {what} but stdout is not an error envelope: {why}"),
            ),
            Ok(envelope) => {
                let ok = envelope.get("ok");
                let declared = envelope.pointer("/meta/exit_code");
                if ok != Some(&Value::Bool(false)) || declared != Some(&Value::from(2)) {
                    outcome.fail(
                        &run,
                        format!(
                            "exited 2 for {what} but its envelope has ok {} and meta.exit_code {}, expected false and 2",
                            show(ok),
                            show(declared)
                        ),
                    );
                }
            }
        }
    }
    outcome
}

fn locale(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::LocaleInvariant);
    // Finished locale runs; one counts once its exit differed or its data was compared.
    let mut looked_at = 0;
    for run in ctx.runs_of(&[RunKind::Locale]) {
        let Some(baseline) = ctx.baseline(&run) else {
            continue; // no_hang_stdin_closed reports a baseline that hung
        };
        if !run.finished() {
            outcome.completed(&run); // counts it, failing it
            continue;
        }
        looked_at += 1;
        if run.record.exit != baseline.record.exit {
            outcome.runs_checked += 1;
            outcome.fail(
                &run,
                format!(
                    "{} under LC_ALL={GERMAN_LOCALE} but {} without it: the locale changed the outcome",
                    run.describe_exit(),
                    baseline.describe_exit()
                ),
            );
            continue;
        }
        let Ok(base) = ctx.envelope(&baseline) else {
            continue; // no data to compare; json_envelope reports the baseline
        };
        outcome.runs_checked += 1;
        let localized = match ctx.envelope(&run) {
            Ok(localized) => localized,
            Err(why) => {
                outcome.fail(
                    &run,
                    format!(
                        "stdout is an envelope without LC_ALL={GERMAN_LOCALE} but not with it: {why}"
                    ),
                );
                continue;
            }
        };
        let data = support::data::stable_data_in;
        let (base, localized) = (data(base), data(localized));
        if base != localized {
            let at = support::data::first_difference(&base, &localized, "data");
            outcome.fail(
                &run,
                format!(
                    "data differs under LC_ALL={GERMAN_LOCALE}: {at} (first value without the locale, second with it); machine output must not follow the locale (REQ-F-005)"
                ),
            );
        }
    }
    if looked_at > 0 && outcome.runs_checked == 0 {
        outcome.skip(format!(
            "no data to compare: the read probes exited as without LC_ALL={GERMAN_LOCALE}, but none gave an envelope without it (json_envelope reports why)"
        ));
    }
    outcome
}

fn error_detail(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::ErrorDetail);
    let runs = ctx.declared_runs();
    let mut looked_at = 0;
    for run in runs {
        if !run.finished() {
            continue; // the hang and stream checks report it
        }
        looked_at += 1;
        let envelope = if run.planned.spec.stream {
            last_line_envelope(&run)
        } else {
            ctx.envelope(&run).as_ref().ok().cloned()
        };
        let Some(envelope) = envelope else { continue };
        let Some(error) = envelope.get("error").filter(|e| e.is_object()) else {
            continue;
        };
        // Only a run that printed an error envelope is judged: a tool that never
        // prints one has told an agent nothing about retrying, and must not pass.
        outcome.runs_checked += 1;
        let code = error.get("code").and_then(Value::as_str).unwrap_or("?");
        match error.get("retryable") {
            Some(Value::Bool(true)) if run.record.exit_code() == Some(2) => outcome.fail(
                &run,
                format!(
                    "error {code} exited 2 with error.retryable true; a usage error fails the same way on every retry, so it must be false (REQ-C-014)"
                ),
            ),
            Some(Value::Bool(_)) => {}
            Some(other) => outcome.fail(
                &run,
                format!("error {code} has error.retryable {other}, not a boolean (REQ-C-013)"),
            ),
            None => outcome.fail(
                &run,
                format!(
                    "error {code} has no error.retryable; an agent cannot tell whether retrying could help (REQ-C-013)"
                ),
            ),
        }
    }
    if looked_at > 0 && outcome.runs_checked == 0 {
        outcome.skip(
            "no error envelope was seen on stdout, in any run it reads (invalid input, refusals, unknown command and flag, stream endings): nothing said whether a retry could help",
        );
    }
    outcome
}

/// A stream's last non-blank line, when it is a JSON object.
fn last_line_envelope(run: &Judged<'_>) -> Option<Value> {
    let last = support::stream_format::lines(&run.record.stdout.bytes)
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .last()?;
    serde_json::from_slice::<Value>(last)
        .ok()
        .filter(Value::is_object)
}

fn exit_codes_declared(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::ExitCodesDeclared);
    let manifest = match support::manifest_view::for_checks(ctx) {
        Ok(manifest) => manifest,
        Err(reason) => {
            outcome.skip(reason);
            return outcome;
        }
    };
    let empty = Map::new();
    let commands = manifest
        .get("commands")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let root = keys(manifest.get("exit_codes"));
    let probes = &ctx.profile.profile.probes;
    // Every declared run made from a probe (the manifest run is read above).
    for run in ctx.declared_runs() {
        let Some(probe) = run.planned.role.probe_index() else {
            continue;
        };
        // A run that hit its limit or died by a signal has no exit code to declare.
        let (true, Some(code), Some(probe)) =
            (run.finished(), run.record.exit_code(), probes.get(probe))
        else {
            continue;
        };
        outcome.runs_checked += 1;
        let named = support::manifest_view::command_of(&probe.argv, commands);
        let declared = named
            .as_ref()
            .map(|(_, entry)| keys(entry.get("exit_codes")))
            .unwrap_or_default();
        let key = code.to_string();
        if declared.contains(&key) || root.contains(&key) {
            continue;
        }
        let whose = match &named {
            Some((path, _)) => format!(
                "neither {path}'s exit_codes ({}) nor the root exit_codes declare it",
                list(&declared)
            ),
            None => "the argv names no manifest command and the root exit_codes do not declare it"
                .to_string(),
        };
        outcome.fail(
            &run,
            format!("exited {code}, but {whose}; an agent reads the manifest to know what an exit code means (REQ-C-001)"),
        );
    }
    outcome
}

fn keys(exit_codes: Option<&Value>) -> BTreeSet<String> {
    exit_codes
        .and_then(Value::as_object)
        .map(|codes| codes.keys().cloned().collect())
        .unwrap_or_default()
}

fn list(keys: &BTreeSet<String>) -> String {
    if keys.is_empty() {
        return "none".into();
    }
    let mut codes: Vec<&String> = keys.iter().collect();
    codes.sort_by_key(|k| k.parse::<i64>().unwrap_or(i64::MAX));
    codes.into_iter().cloned().collect::<Vec<_>>().join(", ")
}

fn show(value: Option<&Value>) -> String {
    value.map_or_else(|| "missing".to_string(), Value::to_string)
}
