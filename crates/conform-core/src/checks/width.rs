//! `width_invariant`: a narrow terminal width (`COLUMNS=40`, and a 40-column
//! terminal for the argument-order run) changes neither the exit nor the JSON
//! `data`, so no string is wrapped or cut at the width of a terminal the agent does
//! not look at (REQ-F-056).

use serde_json::Value;

use super::support::data::{first_difference, stable_data_in};
use super::support::output::{self, JsonRule};
use super::support::terminal::SetAside;
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::plan::{OrderRun, Placement, RunKind, RunRole, Subject};
use crate::profile::ProbeKind;

pub(super) const WIDTH_INVARIANT: CheckSpec = CheckSpec {
    id: CheckId::WidthInvariant,
    name: "width_invariant",
    title: "With COLUMNS=40, and on a 40-column terminal, a read probe exits as without it and gives equal data",
    level: 1,
    failure_modes: &[63],
    requirements: &["REQ-F-056"],
    extension: true,
    reads: &[
        RunKind::Closed,
        RunKind::Narrow,
        RunKind::NarrowTerminal,
        RunKind::ArgumentOrder,
    ],
    judge: Judge::Alone(judge),
};

/// The width the narrow runs set, as their details say it.
const WIDTH: &str = "COLUMNS=40";

/// The piped run the terminal run is compared with: the same arguments,
/// `G value C L`.
const SAME_PLACEMENT: OrderRun = OrderRun::Placement {
    placement: Placement::BeforePath,
    alternate: false,
};

/// Why the terminal run had to write an envelope: its arguments gave one on a pipe.
const AS_PIPED: JsonRule = JsonRule {
    when_empty: "the same arguments gave an envelope on a pipe, so the width of a \
                 terminal must not take it away (REQ-F-056)",
    when_not_json: "the same arguments gave an envelope on a pipe, so the width of a \
                    terminal must not change it (REQ-F-056)",
};

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::WidthInvariant);
    let mut set_aside = SetAside::default();
    for run in ctx.probe_runs(RunKind::Narrow, ProbeKind::Read) {
        narrow(ctx, &mut outcome, &run);
    }
    for run in ctx.runs_of(&[RunKind::NarrowTerminal]) {
        narrow_terminal(ctx, &mut outcome, &mut set_aside, &run);
    }
    if let (0, Some(reason)) = (outcome.runs_checked, set_aside.reason()) {
        outcome.skip(reason);
    } else if outcome.runs_checked == 0 {
        outcome.skip(if ctx.profile.profile.has_probe(ProbeKind::Read) {
            "no data to compare: no read probe's stdin-closed run ended with an envelope, \
             nor did the argument_order run (json_envelope, argument_order and the hang \
             checks report why)"
        } else {
            "no read probe in the profile, and no argument_order run gave an envelope to \
             compare a terminal run with"
        });
    }
    outcome
}

/// A read probe with `COLUMNS=40` against its stdin-closed run. It counts once its
/// exit differed or its data was compared.
fn narrow(ctx: &Context<'_>, outcome: &mut Outcome, run: &Judged<'_>) {
    let Some(baseline) = ctx.baseline(run) else {
        return; // no_hang_stdin_closed reports a baseline that hung
    };
    if !run.finished() {
        outcome.completed(run); // counts it, failing it
        return;
    }
    if run.record.exit != baseline.record.exit {
        outcome.runs_checked += 1;
        outcome.fail(
            run,
            format!(
                "{} with {WIDTH} but {} without it: the terminal width changed the outcome \
                 (REQ-F-056)",
                run.describe_exit(),
                baseline.describe_exit()
            ),
        );
        return;
    }
    let Ok(base) = ctx.envelope(&baseline) else {
        return; // no data to compare; json_envelope reports the baseline
    };
    outcome.runs_checked += 1;
    match ctx.envelope(run) {
        Err(why) => outcome.fail(
            run,
            format!("stdout is an envelope without {WIDTH} but not with it: {why}"),
        ),
        Ok(narrowed) => {
            if let Some(at) = data_difference(base, narrowed) {
                outcome.fail(
                    run,
                    format!(
                        "data differs at width 40 ({WIDTH}): {at} (first without {WIDTH}, \
                         second with it); JSON is never wrapped or cut at the terminal \
                         width (REQ-F-056)"
                    ),
                );
            }
        }
    }
}

/// The argument-order run `G value C L` with `COLUMNS=40` and stdout on a 40x24
/// terminal, against the same arguments on pipes. Colour is judged elsewhere, so
/// SGR sequences are removed first; a hang on the terminal or a pager's bytes are
/// set aside, not judged.
fn narrow_terminal(
    ctx: &Context<'_>,
    outcome: &mut Outcome,
    set_aside: &mut SetAside,
    run: &Judged<'_>,
) {
    let Some(piped) = ctx.run(RunRole {
        kind: RunKind::ArgumentOrder,
        subject: Subject::Order(SAME_PLACEMENT),
    }) else {
        return;
    };
    if !piped.finished() {
        return; // argument_order reports it
    }
    let Ok(base) = ctx.envelope(&piped) else {
        return; // no data to compare; argument_order reports it
    };
    if set_aside.set_aside(run, "") {
        return;
    }
    if !outcome.completed(run) {
        return;
    }
    let exits = if run.record.exit == piped.record.exit {
        String::new()
    } else {
        format!(
            " (it {}, the piped run {})",
            run.describe_exit(),
            piped.describe_exit()
        )
    };
    let stdout = without_sgr(&run.record.stdout.bytes);
    match output::parse_as(run, &stdout, &AS_PIPED) {
        Err(why) => outcome.fail(
            run,
            format!(
                "stdout on a 40-column terminal with {WIDTH}, SGR sequences removed, is not one \
                 envelope{exits}: {why}"
            ),
        ),
        Ok(narrowed) => {
            if let Some(at) = data_difference(base, &narrowed) {
                outcome.fail(
                    run,
                    format!(
                        "data differs at width 40 on a terminal ({WIDTH}){exits}: {at} (first \
                         on a pipe, second on the terminal); JSON is never wrapped or cut at \
                         the terminal width (REQ-F-056)"
                    ),
                );
            }
        }
    }
}

/// Where `data` first differs between two envelopes, volatile keys dropped.
fn data_difference(base: &Value, other: &Value) -> Option<String> {
    let data = stable_data_in;
    let (base, other) = (data(base), data(other));
    (base != other).then(|| first_difference(&base, &other, "data"))
}

/// `bytes` without SGR sequences (`ESC [ params m`); any other escape is kept.
fn without_sgr(bytes: &[u8]) -> Vec<u8> {
    let mut kept = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0x1b && bytes.get(i + 1) == Some(&b'[') {
            let params = bytes[i + 2..]
                .iter()
                .take_while(|b| b.is_ascii_digit() || matches!(b, b';' | b':'))
                .count();
            let end = i + 2 + params;
            if bytes.get(end) == Some(&b'm') {
                i = end + 1;
                continue;
            }
        }
        kept.push(bytes[i]);
        i += 1;
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, assert_skipped, judged_unless, judged_with, write};
    use crate::checks::Status;
    use crate::exec::Exit;
    use crate::plan::PlannedRun;

    /// A read probe and an argument_order entry: both parts of the check.
    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "argument_order": { "command_path": ["list"], "local_args": ["--env", "staging"], "global_flag": "--format", "value": "json", "alternate_value": "plain" },
        "probes": [ { "name": "list", "argv": ["list"], "kind": "read" } ]
    }"#;

    fn envelope(note: &str) -> String {
        format!(
            r#"{{"ok":true,"data":[{{"id":"d-1","note":{note:?},"created_at":"2024"}}],"error":null,"warnings":[],"meta":{{"exit_code":0,"duration_ms":0,"schema_version":"1.0"}}}}"#
        )
    }

    const LONG: &str = "a note long enough to be wrapped at forty columns of a terminal";

    fn judged(fill: impl Fn(&PlannedRun, &mut crate::exec::RunRecord)) -> Outcome {
        judged_with(PROFILE, CheckId::WidthInvariant, fill)
    }

    #[test]
    fn removes_sgr_sequences_only() {
        assert_eq!(without_sgr(b"\x1b[1;32m{}\x1b[0m\x1b[m"), b"{}");
        assert_eq!(without_sgr(b"a\x1b[38:5:2mb"), b"ab");
        assert_eq!(without_sgr(b"\x1b[2J{}"), b"\x1b[2J{}");
        assert_eq!(without_sgr(b"{}\x1b["), b"{}\x1b[");
    }

    #[test]
    fn equal_data_passes_with_colour_on_the_terminal_and_help_wrapped_on_stderr() {
        let outcome = judged(|run, record| {
            if run.role.kind == RunKind::NarrowTerminal {
                write(record, &format!("\u{1b}[1m{}\u{1b}[0m\n", envelope(LONG)));
            } else {
                write(record, &envelope(LONG));
            }
            if run.role.kind == RunKind::Narrow {
                record.stderr.bytes = b"Usage: t list\n  [--env\n  ENV]\n".to_vec();
            }
        });
        assert_passed(&outcome, 2);
    }

    #[test]
    fn data_wrapped_at_columns_fails_naming_the_width_the_path_and_both_values() {
        let wrapped = "a note long enough to be wrapped at forty\ncolumns of a terminal";
        let outcome = judged(|run, record| match run.role.kind {
            RunKind::Narrow | RunKind::NarrowTerminal => write(record, &envelope(wrapped)),
            _ => write(record, &envelope(LONG)),
        });
        assert_eq!(outcome.status(), Status::Fail);
        assert_eq!(outcome.failures.len(), 2, "{outcome:#?}");
        let piped = &outcome.failures[0].detail;
        assert!(
            piped.starts_with(
                "data differs at width 40 (COLUMNS=40): data[0].note is \"a note long"
            ),
            "{piped}"
        );
        assert!(
            piped.contains(r#"then "a note long enough to be wrapped at forty\ncolumns"#),
            "{piped}"
        );
        assert!(
            piped.contains("first without COLUMNS=40, second with it"),
            "{piped}"
        );
        let terminal = &outcome.failures[1].detail;
        assert!(
            terminal.starts_with(
                "data differs at width 40 on a terminal (COLUMNS=40): data[0].note is"
            ),
            "{terminal}"
        );
        assert!(
            terminal.contains("first on a pipe, second on the terminal"),
            "{terminal}"
        );
    }

    #[test]
    fn volatile_keys_are_not_compared() {
        let outcome = judged(|run, record| {
            let at = if run.role.kind == RunKind::Closed {
                "x"
            } else {
                "yy"
            };
            write(record, &envelope(LONG).replace("2024", at));
        });
        assert_passed(&outcome, 2);
    }

    #[test]
    fn an_exit_unlike_the_baselines_fails() {
        let outcome = judged(|run, record| {
            write(record, &envelope(LONG));
            if run.role.kind == RunKind::Narrow {
                record.exit = Exit::Code(1);
            }
        });
        assert_eq!(outcome.status(), Status::Fail);
        assert_eq!(
            outcome.failures[0].detail,
            "exited 1 with COLUMNS=40 but exited 0 without it: the terminal width changed \
             the outcome (REQ-F-056)"
        );
    }

    #[test]
    fn a_terminal_run_that_hit_the_limit_is_set_aside() {
        let hung = |run: &PlannedRun, record: &mut crate::exec::RunRecord| {
            write(record, &envelope(LONG));
            if run.role.kind == RunKind::NarrowTerminal {
                record.timed_out = true;
                record.exit = Exit::Unknown;
            }
        };
        // The piped half still judges: a pass, the hang not counted.
        assert_passed(&judged(hung), 1);
        // Alone, the check skips with the hang as its reason.
        let outcome = judged_unless(
            PROFILE,
            CheckId::WidthInvariant,
            |run| run.role.kind != RunKind::Narrow,
            hung,
        );
        assert_skipped(
            &outcome,
            "not judged: \"argument_order --format json before the command path (COLUMNS=40, \
             stdout on a 40x24 terminal)\" hit the 5s limit on the terminal",
        );
    }

    #[test]
    fn a_table_on_the_terminal_fails_as_no_envelope() {
        let outcome = judged(|run, record| {
            if run.role.kind == RunKind::NarrowTerminal {
                record.exit = Exit::Code(1);
                write(record, "ID   NOTE\nd-1  a note\n");
            } else {
                write(record, &envelope(LONG));
            }
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains(
                "SGR sequences removed, is not one envelope (it exited 1, the piped run \
                 exited 0): stdout is not a single JSON document"
            ),
            "{detail}"
        );
    }
}
