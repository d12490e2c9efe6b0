//! `shell_metachar_inert`: a value with shell metacharacters, right after the
//! command path, is data or a usage error, never shell code: no run may create the
//! file its value names (REQ-F-044).

use super::evidence::quoted;
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::plan::{RunKind, RunRole, INJECTED, METACHARACTERS};

pub(super) const SHELL_METACHAR_INERT: CheckSpec = CheckSpec {
    id: CheckId::ShellMetacharInert,
    name: "shell_metachar_inert",
    title: "A value with shell metacharacters runs no shell code: exit 0 as data, or exit 2 with an error envelope",
    level: 1,
    failure_modes: &[34],
    requirements: &["REQ-F-044"],
    extension: true,
    reads: &[RunKind::Metachar, RunKind::Closed],
    judge: Judge::Alone(judge),
};

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::ShellMetacharInert);
    let runs = ctx.runs_of(&[RunKind::Metachar]);
    if runs.is_empty() {
        outcome
            .skip("no command path to put the values after: no argument_order and no read probe");
        return outcome;
    }
    // Runs that hung as the command hangs without a value (hf waits on its update
    // check whatever it is given): that hang is no_hang_stdin_closed's.
    let mut hung = 0;
    for run in &runs {
        let value = value_of(run);
        if run.record.timed_out && hangs_alone(ctx, run) {
            hung += 1;
            continue;
        }
        if !outcome.completed(run) {
            continue;
        }
        let created = injected_files(run);
        if !created.is_empty() {
            outcome.fail_observed(
                run,
                format!(
                    "the value {value} ran as shell code: it created {} in the run's \
                     sandbox ({}); pass arguments to programs as an argv array, never \
                     through a shell (REQ-F-044)",
                    created.join(", "),
                    run.describe_exit()
                ),
            );
            continue;
        }
        let exit = run.record.exit_code();
        // The command failed as it fails without the value (modal's `shell` without
        // a token): that exit is the command's, which the other checks judge.
        if exit.is_some_and(|code| code != 0) && exit == exit_alone(ctx, run) {
            continue;
        }
        match exit {
            Some(0) => {}
            Some(2) => {
                if let Err(why) = ctx.error_object(run) {
                    outcome.fail(
                        run,
                        format!(
                            "the value {value} exited 2 but {why}; a refusal is an error \
                             envelope an agent can read (REQ-F-044)"
                        ),
                    );
                }
            }
            _ => outcome.fail(
                run,
                format!(
                    "the value {value} {}: treat it as data (exit 0) or refuse it with \
                     exit 2 and an error envelope (REQ-F-044)",
                    run.describe_exit()
                ),
            ),
        }
    }
    // A value that reached a shell with a changed directory may create its file
    // beside the profile instead.
    let beside: Vec<String> = std::fs::read_dir(&ctx.profile.dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(INJECTED))
        .collect();
    if let (false, Some(first)) = (beside.is_empty(), runs.first()) {
        outcome.fail_observed(
            first,
            format!(
                "{} exists in the working directory after the metacharacter runs: a value \
                 ran as shell code (REQ-F-044)",
                beside.join(", ")
            ),
        );
    }
    if hung == runs.len() && outcome.failures.is_empty() {
        outcome.skip(
            "every value's run hit the limit, as the command does without a value: \
             no_hang_stdin_closed fails that hang, and no value was judged",
        );
    }
    outcome
}

/// The exit of the command path run alone, when the run was made from a probe that
/// is just that path: its stdin-closed run, finished.
fn exit_alone(ctx: &Context<'_>, run: &Judged<'_>) -> Option<i32> {
    let probe = ctx
        .profile
        .profile
        .probes
        .get(run.planned.role.probe_index()?)?;
    if probe.argv.iter().any(|arg| arg.starts_with('-')) {
        return None;
    }
    ctx.baseline(run)?.record.exit_code()
}

/// Whether the stdin-closed run of the probe `run` was made from hit its limit too
/// ([`Context::baseline`] is only ever a finished one).
fn hangs_alone(ctx: &Context<'_>, run: &Judged<'_>) -> bool {
    run.planned
        .role
        .probe_index()
        .and_then(|probe| ctx.run(RunRole::probe(RunKind::Closed, probe)))
        .is_some_and(|alone| alone.record.timed_out)
}

/// The run's value as the check lists it (`F` for the file it names), quoted.
fn value_of(run: &Judged<'_>) -> String {
    let n = run
        .record
        .argv
        .last()
        .and_then(|arg| arg.rsplit(INJECTED).next())
        .and_then(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<usize>().ok()
        });
    match n.and_then(|n| METACHARACTERS.get(n.wrapping_sub(1))) {
        Some(value) => quoted(&value.replace("{F}", "F")),
        None => quoted(run.record.argv.last().map_or("", String::as_str)),
    }
}

/// The files named `conform-injected-*` the run left in its sandbox.
fn injected_files(run: &Judged<'_>) -> Vec<String> {
    run.record
        .sandbox
        .iter()
        .flat_map(|report| &report.created)
        .filter(|path| {
            path.trim_end_matches('/')
                .rsplit('/')
                .next()
                .is_some_and(|name| name.starts_with(INJECTED))
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, details, judged_with, write};
    use crate::checks::Status;
    use crate::exec::{Exit, RunRecord, SandboxReport};
    use crate::plan::PlannedRun;

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "argument_order": { "command_path": ["list"], "local_args": ["--limit", "1"], "global_flag": "--format", "value": "json", "alternate_value": "plain" },
        "probes": [ { "name": "list", "argv": ["list", "--all"], "kind": "read" } ]
    }"#;

    const REFUSED: &str = r#"{"ok":false,"data":null,"error":{"code":"INVALID_ARGUMENT","message":"bad","retryable":false},"warnings":[],"meta":{"exit_code":2,"duration_ms":0,"schema_version":"1.0"}}"#;

    fn refused(_: &PlannedRun, record: &mut RunRecord) {
        record.exit = Exit::Code(2);
        record.sandbox = Some(SandboxReport::default());
        write(record, REFUSED);
    }

    #[test]
    fn each_value_follows_the_command_path_alone_and_names_its_own_file() {
        let outcome = judged_with(PROFILE, CheckId::ShellMetacharInert, |run, record| {
            refused(run, record);
            if !run.label.starts_with("shell metacharacters") {
                return;
            }
            let args = &run.spec.args;
            assert_eq!(args.len(), 2, "{args:?}");
            assert_eq!(args[0], "list");
            assert!(
                args[1].contains("<sandbox>/tmp/conform-injected-"),
                "{args:?}"
            );
        });
        assert_passed(&outcome, METACHARACTERS.len());
    }

    #[test]
    fn a_created_file_fails_whatever_the_exit_and_data_echoed_back_passes() {
        let outcome = judged_with(PROFILE, CheckId::ShellMetacharInert, |run, record| {
            refused(run, record);
            if run.label.contains(";touch$IFS") {
                record.exit = Exit::Code(2);
                record.sandbox = Some(SandboxReport {
                    created: vec!["tmp/conform-injected-6".into()],
                    ..SandboxReport::default()
                });
            }
            if run.label.contains("$(touch F)") {
                // The value echoed back as data: no file, exit 0.
                record.exit = Exit::Code(0);
                let echoed = serde_json::json!({"ok": true, "data": {"env": run.spec.args[1]}});
                write(record, &echoed.to_string());
            }
        });
        assert_eq!(outcome.status(), Status::Fail);
        assert_eq!(
            details(&outcome),
            ["the value \";touch$IFSF\" ran as shell code: it created \
              tmp/conform-injected-6 in the run's sandbox (exited 2); pass arguments to \
              programs as an argv array, never through a shell (REQ-F-044)"]
        );
    }

    #[test]
    fn an_exit_other_than_0_or_2_fails_and_2_needs_an_envelope() {
        let outcome = judged_with(PROFILE, CheckId::ShellMetacharInert, |run, record| {
            refused(run, record);
            if run.label.contains("|touch F") {
                record.exit = Exit::Code(127);
            }
            if run.label.contains("&&touch F") {
                write(record, "sh: syntax error\n");
            }
        });
        let details = details(&outcome);
        assert_eq!(details.len(), 2, "{details:?}");
        assert!(
            details[0].contains("\"|touch F\" exited 127: treat it as data"),
            "{details:?}"
        );
        assert!(details[1].contains("\"&&touch F\" exited 2 but stdout is not an error envelope"));
    }

    #[test]
    fn a_command_that_fails_as_it_fails_without_the_value_is_not_judged_on_its_exit() {
        // modal's `shell` exits 1 without a token, whatever follows it.
        const PLAIN: &str = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "probes": [ { "name": "shell", "argv": ["shell"], "kind": "read" } ]
        }"#;
        let no_token = |run: &PlannedRun, record: &mut RunRecord| {
            record.exit = Exit::Code(1);
            record.sandbox = Some(SandboxReport::default());
            write(record, "Error: Token missing\n");
            if run.label.contains("|touch F") {
                record.exit = Exit::Code(127);
            }
        };
        let outcome = judged_with(PLAIN, CheckId::ShellMetacharInert, no_token);
        let details = details(&outcome);
        assert_eq!(details.len(), 1, "{details:?}");
        assert!(
            details[0].contains("\"|touch F\" exited 127"),
            "{details:?}"
        );
    }

    #[test]
    fn runs_that_hang_as_the_command_hangs_without_a_value_are_not_judged() {
        const PLAIN: &str = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "probes": [ { "name": "env", "argv": ["env"], "kind": "read" } ]
        }"#;
        let outcome = judged_with(PLAIN, CheckId::ShellMetacharInert, |_, record| {
            record.timed_out = true;
            record.exit = Exit::Signal(9);
            record.sandbox = Some(SandboxReport::default());
        });
        assert_eq!(outcome.status(), Status::Skip);
        let reason = outcome.skipped_reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains("as the command does without a value"),
            "{reason}"
        );
    }

    #[test]
    fn without_argument_order_the_first_read_probe_gives_the_command_path() {
        const NO_ORDER: &str = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "probes": [ { "name": "list", "argv": ["deployments", "list", "--all"], "kind": "read" } ]
        }"#;
        let outcome = judged_with(NO_ORDER, CheckId::ShellMetacharInert, |run, record| {
            refused(run, record);
            if !run.label.starts_with("shell metacharacters") {
                return;
            }
            assert_eq!(run.spec.args[..2], ["deployments", "list"]);
            assert_eq!(run.spec.args.len(), 3);
        });
        assert_passed(&outcome, METACHARACTERS.len());
    }

    #[test]
    fn without_a_command_path_it_skips() {
        const NOTHING: &str = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "probes": [ { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" } ]
        }"#;
        let outcome = judged_with(NOTHING, CheckId::ShellMetacharInert, refused);
        assert_eq!(outcome.status(), Status::Skip);
    }
}
