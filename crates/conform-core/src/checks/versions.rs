//! `meta_versions`: every envelope says which output contract it follows
//! (`meta.schema_version`, the same for every run of one argv) and which build wrote
//! it (`meta.tool_version`, the version `--version` prints), so an agent can tell a
//! changed contract from a changed tool (REQ-F-022, REQ-F-023).

use serde_json::Value;

use super::evidence::quoted;
use super::support::tool_version::{printed_version, without_v};
use super::{CheckId, CheckSpec, Context, Judge, Outcome};
use crate::plan::RunKind;

pub(super) const META_VERSIONS: CheckSpec = CheckSpec {
    id: CheckId::MetaVersions,
    name: "meta_versions",
    title: "Every envelope has meta.schema_version, constant per argv, and meta.tool_version equal to --version",
    level: 2,
    failure_modes: &[22, 32],
    requirements: &["REQ-F-022", "REQ-F-023"],
    extension: true,
    reads: &RunKind::ON_PIPES,
    judge: Judge::Alone(judge),
};

/// The first `meta.schema_version` seen for one argv, and the run it came from.
struct FirstSeen<'r> {
    args: &'r [String],
    schema_version: String,
    label: &'r str,
}

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::MetaVersions);
    let version = printed_version(ctx);
    let runs = ctx.declared_runs();
    let mut first: Vec<FirstSeen<'_>> = Vec::new();
    for run in &runs {
        // A stream's lines are not one envelope; a run that did not finish is
        // reported by the check that made it.
        if run.planned.spec.stream || !run.finished() {
            continue;
        }
        let Ok(envelope) = ctx.envelope(run) else {
            continue; // json_envelope and the others report what stdout is
        };
        outcome.runs_checked += 1;
        let label = run.planned.label.as_str();
        match meta_field(envelope, "schema_version") {
            None => outcome.fail(
                run,
                format!(
                    "meta.schema_version is missing in {label}: every response names the \
                     output contract it follows, so a consumer can notice when it changes \
                     (REQ-F-022)"
                ),
            ),
            Some(schema_version) => {
                let args = run.planned.spec.args.as_slice();
                match first.iter().find(|seen| seen.args == args) {
                    Some(seen) if seen.schema_version != schema_version => outcome.fail(
                        run,
                        format!(
                            "meta.schema_version is {schema_version} in {label} but {} in {}, \
                             a run of the same argv: one command's output contract does not \
                             change between calls (REQ-F-022)",
                            seen.schema_version,
                            quoted(seen.label)
                        ),
                    ),
                    Some(_) => {}
                    None => first.push(FirstSeen {
                        args,
                        schema_version,
                        label,
                    }),
                }
            }
        }
        match (meta_field(envelope, "tool_version"), &version) {
            (None, _) => outcome.fail(
                run,
                format!(
                    "meta.tool_version is missing in {label}: every response names the \
                     build that wrote it (REQ-F-023)"
                ),
            ),
            (Some(tool_version), Some((printed, from))) => {
                if without_v(&tool_version) != printed {
                    outcome.fail(
                        run,
                        format!(
                            "meta.tool_version is {tool_version} in {label} but {from} gives \
                             {}: the envelope must name the running build (REQ-F-023)",
                            quoted(printed)
                        ),
                    );
                }
            }
            (Some(_), None) => {} // --version gave none to compare with
        }
    }
    if outcome.runs_checked == 0 {
        outcome.skip(
            "no envelope: no finished run on pipes gave one valid envelope on stdout, so \
             there was no meta to read (json_envelope reports why)",
        );
    }
    outcome
}

/// A field of `meta`, as shown in a detail (a string quoted); `None` when missing
/// or null.
fn meta_field(envelope: &Value, name: &str) -> Option<String> {
    let value = envelope.get("meta")?.get(name)?;
    (!value.is_null()).then(|| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, judged, write};
    use crate::checks::Status;
    use crate::plan::{KitRun, RunRole, Subject};

    fn envelope(schema: &str, tool: &str) -> String {
        format!(
            r#"{{"ok":true,"data":[],"error":null,"warnings":[],"meta":{{"exit_code":0,"duration_ms":0,"schema_version":"{schema}","tool_version":"{tool}"}}}}"#
        )
    }

    fn is_version_run(run: &crate::plan::PlannedRun) -> bool {
        run.role.subject == Subject::Kit(KitRun::Version)
    }

    #[test]
    fn a_plain_version_line_is_read_by_its_last_word() {
        let outcome = judged(CheckId::MetaVersions, |run, record| {
            if is_version_run(run) {
                write(record, "democli 1.4.0\n");
            } else {
                write(record, &envelope("1.0", "1.4.0"));
            }
        });
        assert_eq!(outcome.status(), Status::Pass, "{outcome:#?}");
        assert!(outcome.runs_checked > 1);

        let outcome = judged(CheckId::MetaVersions, |run, record| {
            if is_version_run(run) {
                write(record, "democli v1.4.0\n");
            } else {
                write(record, &envelope("1.0", "1.3.0"));
            }
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains(
                r#"meta.tool_version is "1.3.0" in list but --version (isolated) gives "1.4.0""#
            ),
            "{detail}"
        );
    }

    #[test]
    fn schema_version_is_constant_per_argv_and_both_fields_are_required() {
        // The stdin-closed and stdin-open runs of "list" share an argv.
        let outcome = judged(CheckId::MetaVersions, |run, record| {
            let schema = if run.role == RunRole::probe(RunKind::Open, 0) {
                "1.1"
            } else {
                "1.0"
            };
            write(record, &envelope(schema, "1.4.0"));
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains(r#"meta.schema_version is "1.1" in list but "1.0" in "list""#),
            "{detail}"
        );

        let outcome = judged(CheckId::MetaVersions, |run, record| {
            if run.role == RunRole::probe(RunKind::Closed, 0) {
                write(
                    record,
                    r#"{"ok":true,"data":[],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0}}"#,
                );
            } else {
                write(record, &envelope("1.0", "1.4.0"));
            }
        });
        let details: Vec<&str> = outcome.failures.iter().map(|f| f.detail.as_str()).collect();
        assert_eq!(details.len(), 2, "{details:#?}");
        assert!(details[0].starts_with("meta.schema_version is missing in list"));
        assert!(details[1].starts_with("meta.tool_version is missing in list"));
    }

    #[test]
    fn without_an_envelope_it_skips_and_without_a_version_it_compares_nothing() {
        let outcome = judged(CheckId::MetaVersions, |_, record| {
            write(record, "id  env\n");
        });
        assert_eq!(outcome.status(), Status::Skip);
        assert!(outcome
            .skipped_reason
            .as_deref()
            .is_some_and(|r| r.starts_with("no envelope")));

        let outcome = judged(CheckId::MetaVersions, |run, record| {
            if is_version_run(run) {
                write(record, "version one\nbuilt today\n");
            } else {
                write(record, &envelope("1.0", "9.9.9"));
            }
        });
        assert!(outcome.runs_checked > 0);
        assert_passed(&outcome, outcome.runs_checked);

        // Coloured JSON is no envelope and no plain line: it names no version.
        let outcome = judged(CheckId::MetaVersions, |run, record| {
            if is_version_run(run) {
                write(record, "{\u{1b}[34m\"ok\"\u{1b}[0m:true}\n");
            } else {
                write(record, &envelope("1.0", "9.9.9"));
            }
        });
        assert_passed(&outcome, outcome.runs_checked);
        let outcome = judged(CheckId::MetaVersions, |run, record| {
            if is_version_run(run) {
                write(record, "tool version unknown\n");
            } else {
                write(record, &envelope("1.0", "9.9.9"));
            }
        });
        assert_passed(&outcome, outcome.runs_checked);
    }
}
