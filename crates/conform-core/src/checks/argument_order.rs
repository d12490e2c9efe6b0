//! `argument_order` (REQ-F-067, REQ-F-079): a global option means the same before
//! the command path, between the path and a local option, and after it; a conflicting
//! repeat exits 2; with a positional, a local option after it is parsed as an option.
//!
//! Runs are made concurrently but judged in the reference kit's order, stopping where
//! it stops (the first run that hits the limit or fails to exit 0).

use std::collections::BTreeMap;

use serde_json::Value;

use super::evidence::quoted;
use super::support::data::first_difference;
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::plan::{OrderRun, Placement, RunKind, Subject};

pub(super) const ARGUMENT_ORDER: CheckSpec = CheckSpec {
    id: CheckId::ArgumentOrder,
    name: "argument_order",
    title: "A global option means the same before and after the command path; conflicting repeats exit 2",
    level: 3,
    failure_modes: &[69],
    requirements: &["REQ-F-067", "REQ-F-079"],
    extension: false,
    reads: &[RunKind::ArgumentOrder],
    judge: Judge::Alone(judge),
};

pub(super) fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::ArgumentOrder);
    let Some(order) = ctx.profile.profile.argument_order.as_ref() else {
        outcome.skip("profile declares no argument_order");
        return outcome;
    };
    let runs: BTreeMap<OrderRun, Judged<'_>> = ctx
        .declared_runs()
        .into_iter()
        .filter_map(|run| match run.planned.role.subject {
            Subject::Order(kind) => Some((kind, run)),
            _ => None,
        })
        .collect();
    let flag = &order.global_flag;
    let get = |kind: OrderRun| runs.get(&kind).copied();

    // Every placement, value then alternate, exits 0.
    for alternate in [false, true] {
        let value = if alternate {
            &order.alternate_value
        } else {
            &order.value
        };
        for placement in Placement::ALL {
            let Some(run) = get(OrderRun::Placement {
                placement,
                alternate,
            }) else {
                return outcome;
            };
            if !outcome.completed(&run) {
                return outcome;
            }
            let code = run.record.exit_code();
            if code != Some(0) {
                let hint = if placement == Placement::AfterLocal
                    || placement == Placement::BetweenPathAndLocal
                {
                    "; a global option must be accepted after the command path too (interspersed parsing, REQ-F-067)"
                } else {
                    ""
                };
                outcome.fail(
                    &run,
                    format!(
                        "{flag} {value} {} {}, expected 0{hint}",
                        placement.describe(),
                        run.describe_exit()
                    ),
                );
                return outcome;
            }
        }
    }

    let value_run = |p| {
        get(OrderRun::Placement {
            placement: p,
            alternate: false,
        })
    };
    let alternate_run = |p| {
        get(OrderRun::Placement {
            placement: p,
            alternate: true,
        })
    };
    // A run cut at the capture cap has no data to compare (json_envelope fails the
    // cap): its comparisons are not made, as the pool makes no run that compares
    // with a cut baseline, and the check skips naming it if nothing else failed.
    let mut cut: Vec<String> = Vec::new();
    let reference = value_run(Placement::AfterLocal)
        .filter(|r| !is_cut(&mut cut, r))
        .and_then(|r| ctx.envelope(&r).as_ref().ok());
    for placement in Placement::ALL {
        let (Some(run), Some(alternate)) = (value_run(placement), alternate_run(placement)) else {
            continue;
        };
        if is_cut(&mut cut, &run) | is_cut(&mut cut, &alternate) {
            continue;
        }
        match ctx.envelope(&run) {
            Err(reason) => outcome.fail(
                &run,
                format!("{flag} {} {}: {reason}", order.value, placement.describe()),
            ),
            Ok(envelope) => {
                if let Some(reference) = reference {
                    if envelope.get("data") != reference.get("data") {
                        outcome.fail(
                            &run,
                            format!(
                                "data differs from the run with {flag} {} after the local option ({}): the option's position changed the result",
                                order.value,
                                first_difference(reference.get("data").unwrap_or(&Value::Null), envelope.get("data").unwrap_or(&Value::Null), "data")
                            ),
                        );
                    }
                }
            }
        }
        if alternate.record.stdout.bytes == run.record.stdout.bytes {
            outcome.fail(
                &alternate,
                format!(
                    "{flag} {} {} printed the same stdout as {flag} {}: the value was ignored or overwritten by a default (REQ-F-079)",
                    order.alternate_value,
                    placement.describe(),
                    order.value
                ),
            );
        }
        if let Some(last) = alternate_run(Placement::AfterLocal).filter(|r| !is_cut(&mut cut, r)) {
            if alternate.record.stdout.bytes != last.record.stdout.bytes {
                outcome.fail(
                    &alternate,
                    format!(
                        "stdout differs from the run with {flag} {} after the local option: the option's position changed the output",
                        order.alternate_value
                    ),
                );
            }
        }
    }

    if let Some(conflict) = get(OrderRun::Conflict) {
        if outcome.completed(&conflict) {
            let code = conflict.record.exit_code();
            if code != Some(2) {
                let why = if code == Some(0) {
                    "; one value silently won, so an agent cannot tell which format it got"
                } else {
                    ""
                };
                outcome.fail(
                    &conflict,
                    format!(
                        "{flag} given twice with different values {}, expected 2{why}",
                        conflict.describe_exit()
                    ),
                );
            }
        }
    }

    if let Some(positional) = &order.positional {
        let local = order.local_args.join(" ");
        let mut data = Vec::new();
        for kind in [
            OrderRun::LocalAfterPositional,
            OrderRun::LocalBeforePositional,
            OrderRun::PositionalOnly,
        ] {
            let Some(run) = get(kind) else { return outcome };
            if !outcome.completed(&run) {
                return outcome;
            }
            if is_cut(&mut cut, &run) {
                return skip_cut(outcome, &cut);
            }
            let code = run.record.exit_code();
            match (code, ctx.envelope(&run)) {
                (Some(0), Ok(envelope)) => {
                    data.push((run, envelope.get("data").unwrap_or(&Value::Null)))
                }
                (_, parsed) => {
                    let reason = parsed
                        .clone()
                        .err()
                        .unwrap_or_else(|| "the envelope reports failure".to_string());
                    outcome.fail(&run, format!("{}, {reason}", run.describe_exit()));
                    return outcome;
                }
            }
        }
        if let [(after, after_data), (_, before_data), (_, alone_data)] = data.as_slice() {
            if after_data != before_data {
                outcome.fail(
                    after,
                    format!(
                        "{local} after {} gives different data than before it ({})",
                        quoted(positional),
                        first_difference(before_data, after_data, "data")
                    ),
                );
            }
            if after_data == alone_data {
                outcome.fail(
                    after,
                    format!(
                        "{local} after {} had no effect: it was read as a positional or ignored (REQ-F-067)",
                        quoted(positional)
                    ),
                );
            }
        }
    }
    if !cut.is_empty() {
        return skip_cut(outcome, &cut);
    }
    outcome
}

/// Whether `run`'s stdout was cut at the capture cap, noting its label in `cut`.
fn is_cut(cut: &mut Vec<String>, run: &Judged<'_>) -> bool {
    let truncated = run.record.stdout.truncated;
    if truncated && !cut.contains(&run.planned.label) {
        cut.push(run.planned.label.clone());
    }
    truncated
}

/// The outcome, skipped for the runs cut at the capture cap when nothing else
/// failed: what was compared passed, and what was cut was not compared.
fn skip_cut(mut outcome: Outcome, cut: &[String]) -> Outcome {
    if outcome.failures.is_empty() {
        outcome.skip(format!(
            "stdout of {} went past the capture cap: data cut there cannot be compared \
             (json_envelope fails the cap; raise --capture-limit to compare it)",
            cut.iter()
                .map(|label| quoted(label))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{judged_with, write};
    use crate::checks::Status;

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "argument_order": { "command_path": ["list"], "local_args": ["--limit", "1"], "global_flag": "--format", "value": "json", "alternate_value": "plain" },
        "probes": [ { "name": "list", "argv": ["list"], "kind": "read" } ]
    }"#;

    const DATA: &str = r#"{"ok":true,"data":[1],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"schema_version":"1.0"}}"#;

    #[test]
    fn runs_cut_at_the_capture_cap_are_not_compared_and_the_check_skips_naming_them() {
        let outcome = judged_with(PROFILE, CheckId::ArgumentOrder, |run, record| {
            if run.label.contains("plain") {
                write(record, "1\n");
            } else {
                write(record, DATA);
            }
            if run.label.contains("json before the command path") {
                // The first 16 MiB of a 64 MiB envelope: not a whole document.
                record.stdout.bytes.truncate(10);
                record.stdout.total_bytes = 67_109_769;
                record.stdout.truncated = true;
            }
            if run.label.contains("conflicting") {
                record.exit = crate::exec::Exit::Code(2);
            }
        });
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
        let reason = outcome.skipped_reason.as_deref().unwrap_or_default();
        assert!(
            reason.starts_with(
                "stdout of \"argument_order --format json before the command path\" went past the capture cap"
            ),
            "{reason}"
        );
        // Without the cut the same runs pass: the skip is the cut's alone.
        let outcome = judged_with(PROFILE, CheckId::ArgumentOrder, |run, record| {
            write(
                record,
                if run.label.contains("plain") {
                    "1\n"
                } else {
                    DATA
                },
            );
            if run.label.contains("conflicting") {
                record.exit = crate::exec::Exit::Code(2);
            }
        });
        assert_eq!(outcome.status(), Status::Pass, "{outcome:#?}");
    }
}
