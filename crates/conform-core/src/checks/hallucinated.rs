//! `hallucinated_input_rejected`: the forms an agent makes up for a resource id
//! (`../P`, `..%2fP`, `%2e%2e%2fP`, `P?foo=bar`, `P#frag`) are usage errors, refused
//! in phase 1 with exit 2 before anything is looked up or written (REQ-F-045,
//! REQ-F-015).

use super::evidence::quoted;
use super::support::output;
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::plan::{OrderRun, RunKind, Subject, HALLUCINATED};

pub(super) const HALLUCINATED_INPUT_REJECTED: CheckSpec = CheckSpec {
    id: CheckId::HallucinatedInputRejected,
    name: "hallucinated_input_rejected",
    title: "A made-up resource id (../P, P?foo=bar, ...) exits 2 with an error envelope and writes no file",
    level: 3,
    failure_modes: &[35, 34, 14],
    requirements: &["REQ-F-045", "REQ-F-015"],
    extension: true,
    reads: &[RunKind::Hallucinated],
    judge: Judge::Alone(judge),
};

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::HallucinatedInputRejected);
    let Some(positional) = ctx
        .profile
        .profile
        .argument_order
        .as_ref()
        .and_then(|order| order.positional.as_ref())
    else {
        outcome.skip("argument_order has no positional to make resource ids up from");
        return outcome;
    };
    for run in ctx.declared_runs() {
        if !outcome.completed(&run) {
            continue;
        }
        let variant = quoted(&made_up(&run, positional));
        match run.record.exit_code() {
            Some(2) => {
                if let Err(why) = error_envelope(ctx, &run) {
                    outcome.fail(
                        &run,
                        format!(
                            "the made-up positional {variant} exited 2 but {why}; a \
                             refusal is an error envelope an agent can read (REQ-F-045)"
                        ),
                    );
                }
            }
            Some(5) => outcome.fail(
                &run,
                format!(
                    "the made-up positional {variant} exited 5 (not found): it was looked \
                     up, not rejected; refuse it in phase 1 with exit 2, before any lookup \
                     (REQ-F-045, REQ-F-015)"
                ),
            ),
            _ => outcome.fail(
                &run,
                format!(
                    "the made-up positional {variant} {}, expected exit 2: it is not a \
                     resource id the tool issued, so refuse it before acting on it \
                     (REQ-F-045)",
                    run.describe_exit()
                ),
            ),
        }
        if let Some(created) = output::files_created(&run) {
            outcome.fail(
                &run,
                format!(
                    "the made-up positional {variant} left files behind: created {created} \
                     in its fresh HOME/XDG/TMPDIR; reject it before touching anything \
                     (REQ-F-015)"
                ),
            );
        }
    }
    outcome
}

/// The made-up positional of a run: its form around the profile's positional.
fn made_up(run: &Judged<'_>, positional: &str) -> String {
    match run.planned.role.subject {
        Subject::Order(OrderRun::Hallucinated(form)) => match HALLUCINATED.get(form) {
            Some((before, after)) => format!("{before}{positional}{after}"),
            None => positional.to_string(),
        },
        _ => positional.to_string(),
    }
}

/// Ok when stdout is one envelope with an error object.
fn error_envelope(ctx: &Context<'_>, run: &Judged<'_>) -> Result<(), String> {
    ctx.error_object(run).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, details, judged_with, write};
    use crate::checks::Status;
    use crate::exec::{Exit, RunRecord, SandboxReport};
    use crate::plan::PlannedRun;

    const WITH_POSITIONAL: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "argument_order": { "command_path": ["list"], "local_args": ["--limit", "1"], "global_flag": "--format", "value": "json", "alternate_value": "plain", "positional": "staging" },
        "probes": [ { "name": "list", "argv": ["list"], "kind": "read" } ]
    }"#;

    /// An exit 2 with any error code.
    const REFUSED: &str = r#"{"ok":false,"data":null,"error":{"code":"INVALID_ARGUMENT","message":"not an environment","retryable":false},"warnings":[],"meta":{"exit_code":2,"duration_ms":0,"schema_version":"1.0"}}"#;

    fn refused(_: &PlannedRun, record: &mut RunRecord) {
        record.exit = Exit::Code(2);
        record.sandbox = Some(SandboxReport::default());
        write(record, REFUSED);
    }

    #[test]
    fn every_form_refused_with_exit_2_and_an_error_envelope_passes() {
        let outcome = judged_with(WITH_POSITIONAL, CheckId::HallucinatedInputRejected, refused);
        assert_passed(&outcome, HALLUCINATED.len());
    }

    #[test]
    fn a_made_up_id_taken_as_a_filter_fails_naming_the_variant() {
        // `list ../staging` as a substring match: exit 0 with an empty list.
        let outcome = judged_with(
            WITH_POSITIONAL,
            CheckId::HallucinatedInputRejected,
            |run, record| {
                refused(run, record);
                if run.label.contains("../staging") {
                    record.exit = Exit::Code(0);
                    write(record, r#"{"ok":true,"data":[],"error":null}"#);
                }
            },
        );
        assert_eq!(outcome.status(), Status::Fail);
        assert_eq!(
            details(&outcome),
            [
                "the made-up positional \"../staging\" exited 0, expected exit 2: it is not a \
              resource id the tool issued, so refuse it before acting on it (REQ-F-045)"
            ]
        );
    }

    #[test]
    fn exit_5_is_a_lookup_not_a_rejection() {
        let outcome = judged_with(
            WITH_POSITIONAL,
            CheckId::HallucinatedInputRejected,
            |run, record| {
                refused(run, record);
                if run.label.contains("staging?foo=bar") {
                    record.exit = Exit::Code(5);
                }
            },
        );
        let details = details(&outcome);
        assert_eq!(details.len(), 1, "{details:?}");
        assert!(
            details[0].contains(
                "\"staging?foo=bar\" exited 5 (not found): it was looked up, not rejected"
            ),
            "{}",
            details[0]
        );
    }

    #[test]
    fn files_left_behind_and_a_missing_envelope_fail() {
        let outcome = judged_with(
            WITH_POSITIONAL,
            CheckId::HallucinatedInputRejected,
            |run, record| {
                refused(run, record);
                if run.label.contains("%2e%2e%2fstaging") {
                    record.sandbox = Some(SandboxReport {
                        created: vec!["cache/t/".into()],
                        ..SandboxReport::default()
                    });
                }
                if run.label.contains("staging#frag") {
                    write(record, "error: bad id\n");
                }
            },
        );
        let details = details(&outcome);
        assert_eq!(details.len(), 2, "{details:?}");
        assert!(
            details.iter().any(|d| d.contains(
                "\"%2e%2e%2fstaging\" left files behind: created cache/t/ in its fresh HOME/XDG/TMPDIR"
            )),
            "{details:?}"
        );
        assert!(
            details.iter().any(
                |d| d.contains("\"staging#frag\" exited 2 but stdout is not an error envelope")
            ),
            "{details:?}"
        );
    }

    #[test]
    fn a_timed_out_run_fails() {
        let outcome = judged_with(
            WITH_POSITIONAL,
            CheckId::HallucinatedInputRejected,
            |run, record| {
                refused(run, record);
                if run.label.contains("..%2fstaging") {
                    record.timed_out = true;
                    record.exit = Exit::Unknown;
                }
            },
        );
        assert_eq!(outcome.status(), Status::Fail);
        assert_eq!(outcome.runs_checked, HALLUCINATED.len());
        assert!(details(&outcome)[0].contains("no exit within the 5s limit"));
    }

    #[test]
    fn without_a_positional_it_skips() {
        const NO_POSITIONAL: &str = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "argument_order": { "command_path": ["list"], "local_args": ["--limit", "1"], "global_flag": "--format", "value": "json", "alternate_value": "plain" },
            "probes": [ { "name": "list", "argv": ["list"], "kind": "read" } ]
        }"#;
        let outcome = judged_with(NO_POSITIONAL, CheckId::HallucinatedInputRejected, refused);
        assert_eq!(outcome.status(), Status::Skip);
        assert_eq!(
            outcome.skipped_reason.as_deref(),
            Some("argument_order has no positional to make resource ids up from")
        );
    }
}
