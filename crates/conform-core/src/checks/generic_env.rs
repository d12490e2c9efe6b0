//! `generic_env_ignored`: variables an agent sets for another tool (`DEBUG=1`,
//! `VERBOSE=1`, `LOG_LEVEL=debug`, `FORMAT=plain`, `OUTPUT=plain`) change nothing
//! in a tool that does not declare them: a tool reads its own prefixed names
//! (REQ-F-073, REQ-O-042). A name the manifest declares is left out, since
//! declaring it makes it discoverable.

use super::evidence::quoted;
use super::{support, CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::manifest;
use crate::plan::{RunKind, GENERIC_ENV};
use crate::profile::ProbeKind;

pub(super) const GENERIC_ENV_IGNORED: CheckSpec = CheckSpec {
    id: CheckId::GenericEnvIgnored,
    name: "generic_env_ignored",
    title: "DEBUG, VERBOSE, LOG_LEVEL, FORMAT and OUTPUT change nothing unless the manifest declares them",
    level: 2,
    failure_modes: &[2],
    requirements: &["REQ-F-073", "REQ-O-042"],
    extension: true,
    reads: &[
        RunKind::Closed,
        RunKind::Manifest,
        RunKind::GenericEnv,
        RunKind::GenericEnvEach,
    ],
    judge: Judge::Alone(judge),
};

/// Characters of an extra stderr line shown.
const SHOWN: usize = 120;

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::GenericEnvIgnored);
    if !ctx.profile.profile.has_probe(ProbeKind::Read) {
        outcome.skip("the profile has no read probe to run with the generic variables");
        return outcome;
    }
    let with_all = ctx.runs_of(&[RunKind::GenericEnv]);
    for run in &with_all {
        let (Some(probe), Some(baseline)) = (run.planned.role.probe_index(), ctx.baseline(run))
        else {
            continue; // no_hang_stdin_closed reports a baseline that hung
        };
        if !outcome.completed(run) {
            continue;
        }
        let changes = differences(ctx, &baseline, run);
        if changes.is_empty() {
            continue;
        }
        outcome.fail(
            run,
            format!(
                "with {} set: {}; {}; a tool reads only variables under its own prefix and \
                 names its manifest declares, so that a variable set for another tool \
                 cannot change it (REQ-F-073, REQ-O-042)",
                set_names(run).join(" "),
                changes.join("; "),
                culprits(ctx, &baseline, probe)
            ),
        );
    }
    if outcome.runs_checked == 0 && with_all.is_empty() && declares_them_all(ctx) {
        outcome.skip(format!(
            "the manifest declares every one of {}: none was left to set",
            GENERIC_ENV.map(|(name, _)| name).join(", ")
        ));
    }
    outcome
}

/// How `run` differs from `baseline`: its exit, its `data` (volatile keys dropped),
/// more stderr lines. Empty when it does not.
fn differences(ctx: &Context<'_>, baseline: &Judged<'_>, run: &Judged<'_>) -> Vec<String> {
    let mut found = Vec::new();
    if run.record.exit != baseline.record.exit {
        found.push(format!(
            "it {} but {} without them",
            run.describe_exit(),
            baseline.describe_exit()
        ));
    }
    if let Ok(base) = ctx.envelope(baseline) {
        match ctx.envelope(run) {
            Err(why) => found.push(format!(
                "stdout is an envelope without them but not with them: {why}"
            )),
            Ok(with) => {
                let data = support::data::stable_data_in;
                let (base, with) = (data(base), data(with));
                if base != with {
                    found.push(format!(
                        "data differs: {} (first value without them, second with them)",
                        support::data::first_difference(&base, &with, "data")
                    ));
                }
            }
        }
    }
    let (before, after) = (&baseline.record.stderr.bytes, &run.record.stderr.bytes);
    let (lines_before, lines_after) = (crate::lines::count(before), crate::lines::count(after));
    if lines_after > lines_before {
        let known: Vec<&[u8]> = crate::lines::split(before).collect();
        let extra = crate::lines::split(after)
            .find(|line| !known.contains(line))
            .map(|line| {
                let text: String = String::from_utf8_lossy(line).chars().take(SHOWN).collect();
                format!(", the first new one {}", quoted(&text))
            })
            .unwrap_or_default();
        found.push(format!(
            "stderr has {lines_after} lines, {lines_before} without them{extra}"
        ));
    }
    found
}

/// The generic variables the run set, as `NAME=value`.
fn set_names(run: &Judged<'_>) -> Vec<String> {
    run.record
        .env_changes
        .iter()
        .filter(|change| {
            GENERIC_ENV.iter().any(|(name, _)| {
                change
                    .strip_prefix(name)
                    .is_some_and(|v| v.starts_with('='))
            })
        })
        .cloned()
        .collect()
}

/// Which variables alone change the probe's outcome, from the runs with one set at
/// a time (made only once the run with all of them differed).
fn culprits(ctx: &Context<'_>, baseline: &Judged<'_>, probe: usize) -> String {
    let alone =
        ctx.runs(|role| role.kind == RunKind::GenericEnvEach && role.probe_index() == Some(probe));
    if alone.is_empty() {
        return "the runs with one variable at a time were not made, so no culprit is named"
            .to_string();
    }
    let named: Vec<String> = alone
        .iter()
        .filter_map(|run| {
            let variable = set_names(run).into_iter().next()?;
            if !run.finished() {
                Some(format!("{variable} (no exit within the limit)"))
            } else if differences(ctx, baseline, run).is_empty() {
                None
            } else {
                Some(variable)
            }
        })
        .collect();
    if named.is_empty() {
        "no variable changes it alone, only together".to_string()
    } else {
        format!("culprits, each alone: {}", named.join(", "))
    }
}

/// Whether the manifest declares every generic variable (then none is set).
fn declares_them_all(ctx: &Context<'_>) -> bool {
    let Some(manifest) = ctx.manifest_as_read() else {
        return false;
    };
    let declared = manifest::declared_env_names(manifest);
    GENERIC_ENV.iter().all(|(name, _)| declared.contains(*name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, judged, judged_unless, judged_with, write};
    use crate::checks::Status;
    use crate::exec::{Exit, RunRecord};
    use crate::plan::PlannedRun;

    const DATA: &str = r#"{"ok":true,"data":[{"id":"a","created_at":"x"}],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"schema_version":"1.0"}}"#;

    fn same(_: &PlannedRun, record: &mut RunRecord) {
        write(record, DATA);
        record.stderr.bytes = b"note: cached\n".to_vec();
    }

    /// The variable a per-variable run sets.
    fn alone(run: &PlannedRun) -> Option<&str> {
        (run.role.kind == RunKind::GenericEnvEach)
            .then(|| run.spec.env_set.first().map(|(name, _)| name.as_str()))
            .flatten()
    }

    #[test]
    fn the_same_exit_data_and_stderr_passes() {
        let outcome = judged(CheckId::GenericEnvIgnored, |run, record| {
            same(run, record);
            // Volatile keys and meta may change.
            if run.role.kind == RunKind::GenericEnv {
                write(
                    record,
                    &DATA.replace(r#""created_at":"x""#, r#""created_at":"y""#),
                );
            }
        });
        assert_passed(&outcome, 1);
    }

    #[test]
    fn debug_lines_on_stderr_fail_naming_the_culprit_and_the_extra_line() {
        let debug =
            |run: &PlannedRun| run.role.kind == RunKind::GenericEnv || alone(run) == Some("DEBUG");
        let outcome = judged(CheckId::GenericEnvIgnored, |run, record| {
            same(run, record);
            if debug(run) {
                record.stderr.bytes = b"note: cached\nDEBUG reading deployments.json\n".to_vec();
            }
        });
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        assert_eq!(outcome.failures.len(), 1);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.starts_with(
                "with DEBUG=1 VERBOSE=1 LOG_LEVEL=debug FORMAT=plain OUTPUT=plain set: \
                 stderr has 2 lines, 1 without them, the first new one \
                 \"DEBUG reading deployments.json\"; culprits, each alone: DEBUG=1;"
            ),
            "{detail}"
        );
    }

    #[test]
    fn a_changed_exit_or_data_fails_naming_both_values() {
        let outcome = judged(CheckId::GenericEnvIgnored, |run, record| {
            same(run, record);
            if run.role.kind == RunKind::GenericEnv || alone(run) == Some("FORMAT") {
                record.exit = Exit::Code(1);
                write(record, &DATA.replace(r#""id":"a""#, r#""id":"A""#));
            }
        });
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains("it exited 1 but exited 0 without them"),
            "{detail}"
        );
        assert!(
            detail.contains(r#"data differs: data[0].id is "a" then "A""#),
            "{detail}"
        );
        assert!(
            detail.contains("culprits, each alone: FORMAT=plain;"),
            "{detail}"
        );
    }

    #[test]
    fn prose_instead_of_an_envelope_fails_and_a_combination_is_said_so() {
        let outcome = judged(CheckId::GenericEnvIgnored, |run, record| {
            same(run, record);
            if run.role.kind == RunKind::GenericEnv {
                write(record, "id  env\na   staging\n");
            }
        });
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains("stdout is an envelope without them but not with them"),
            "{detail}"
        );
        assert!(
            detail.contains("no variable changes it alone, only together"),
            "{detail}"
        );
    }

    #[test]
    fn when_the_manifest_declares_them_all_no_run_is_made_and_it_skips() {
        const WITH_MANIFEST: &str = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "manifest": ["manifest"],
            "probes": [ { "name": "list", "argv": ["list"], "kind": "read" } ]
        }"#;
        const DECLARES_ALL: &str = r#"{"ok":true,"data":{"env_vars":[{"name":"DEBUG"},{"name":"VERBOSE"},{"name":"LOG_LEVEL"}],"flags":{"format":{"env_vars":[{"name":"T_FORMAT"},{"name":"FORMAT"}]}},"commands":{"list":{"flags":{"output":{"env_vars":[{"name":"OUTPUT"}]}}}}},"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"schema_version":"1.0"}}"#;
        let generic = |run: &PlannedRun| {
            matches!(run.role.kind, RunKind::GenericEnv | RunKind::GenericEnvEach)
        };
        let fill = |run: &PlannedRun, record: &mut RunRecord| {
            same(run, record);
            if run.role.kind == RunKind::Manifest {
                write(record, DECLARES_ALL);
            }
        };
        let outcome = judged_unless(
            WITH_MANIFEST,
            CheckId::GenericEnvIgnored,
            |run| !generic(run),
            fill,
        );
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
        assert_eq!(
            outcome.skipped_reason.as_deref(),
            Some("the manifest declares every one of DEBUG, VERBOSE, LOG_LEVEL, FORMAT, OUTPUT: none was left to set")
        );
        // With the run made (some name undeclared), it is judged.
        let outcome = judged_with(WITH_MANIFEST, CheckId::GenericEnvIgnored, fill);
        assert_passed(&outcome, 1);
    }

    #[test]
    fn without_a_read_probe_it_skips() {
        const NO_READ: &str = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "probes": [ { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" } ]
        }"#;
        let outcome = judged_with(NO_READ, CheckId::GenericEnvIgnored, same);
        assert_eq!(outcome.status(), Status::Skip);
        assert_eq!(
            outcome.skipped_reason.as_deref(),
            Some("the profile has no read probe to run with the generic variables")
        );
    }
}
