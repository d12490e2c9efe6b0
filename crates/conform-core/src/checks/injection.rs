//! `shell_metachar_inert`: a value with shell metacharacters, right after the
//! command path, never reaches a shell: no run may create the file its value names,
//! nor hand it to another program (REQ-F-044). How the tool then exits, and whether
//! it says so in an envelope, is the exit and envelope checks' subject.

use super::evidence::{quoted, sentinel_call};
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::plan::{RunKind, INJECTED, METACHARACTERS};

pub(super) const SHELL_METACHAR_INERT: CheckSpec = CheckSpec {
    id: CheckId::ShellMetacharInert,
    name: "shell_metachar_inert",
    title: "A value with shell metacharacters runs no shell code: it creates no file and starts no program",
    level: 1,
    failure_modes: &[34],
    requirements: &["REQ-F-044"],
    extension: true,
    reads: &[RunKind::Metachar],
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
    // Runs that hit the limit: the wait is the hang checks', but a file the value
    // made before it is still evidence.
    let mut hung = 0;
    for run in &runs {
        let value = value_of(run);
        if run.record.error.is_some() {
            outcome.completed(run);
            continue;
        }
        if run.record.timed_out {
            hung += 1;
        } else {
            outcome.runs_checked += 1;
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
                    ended(run)
                ),
            );
            continue;
        }
        if let Some(call) = injected_call(run) {
            outcome.fail_observed(
                run,
                format!(
                    "the value {value} reached another program: the kit's sentinel was \
                     called as {call} ({}); pass arguments to programs as an argv array, \
                     never through a shell (REQ-F-044)",
                    ended(run)
                ),
            );
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
    if outcome.runs_checked == 0 && hung > 0 && outcome.failures.is_empty() {
        outcome.skip(
            "every value's run hit the limit and none created its file: \
             no_hang_stdin_closed judges such waits, and no value was seen used as data",
        );
    }
    outcome
}

/// How the run ended, for a detail: its exit, or that the kit stopped it.
fn ended(run: &Judged<'_>) -> String {
    if run.record.timed_out {
        "then it hit the limit".to_string()
    } else {
        run.describe_exit()
    }
}

/// The first sentinel call of the run whose arguments name the value's file: the
/// value was handed to another program.
fn injected_call(run: &Judged<'_>) -> Option<String> {
    run.record
        .sandbox
        .iter()
        .flat_map(|report| &report.sentinel_calls)
        .find(|call| call.argv.iter().any(|arg| arg.contains(INJECTED)))
        .map(sentinel_call)
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
    fn an_exit_or_a_missing_envelope_is_not_this_checks() {
        // `check '$(touch F)'` on a linter: "E902 No such file", exit 1; no file made.
        let outcome = judged_with(PROFILE, CheckId::ShellMetacharInert, |run, record| {
            refused(run, record);
            if run.label.contains("|touch F") {
                record.exit = Exit::Code(127);
            }
            if run.label.contains("&&touch F") {
                write(record, "sh: syntax error\n");
            }
            if run.label.contains("$(touch F)") {
                record.exit = Exit::Code(1);
                write(record, "E902 No such file or directory\n");
            }
        });
        assert_passed(&outcome, METACHARACTERS.len());
    }

    #[test]
    fn a_value_handed_to_another_program_fails_naming_the_call() {
        let outcome = judged_with(PROFILE, CheckId::ShellMetacharInert, |run, record| {
            refused(run, record);
            if run.label.contains("`touch F`") {
                record.sandbox = Some(SandboxReport {
                    sentinel_calls: vec![crate::exec::SentinelCall {
                        name: "BROWSER".into(),
                        argv: vec!["<sandbox>/tmp/conform-injected-2".into()],
                    }],
                    ..SandboxReport::default()
                });
            }
        });
        let details = details(&outcome);
        assert_eq!(details.len(), 1, "{details:?}");
        assert!(
            details[0].starts_with(
                "the value \"`touch F`\" reached another program: the kit's sentinel was called as BROWSER"
            ),
            "{details:?}"
        );
    }

    #[test]
    fn runs_that_hang_are_not_judged_unless_they_made_the_file() {
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
        assert!(reason.contains("none created its file"), "{reason}");
        let outcome = judged_with(PLAIN, CheckId::ShellMetacharInert, |run, record| {
            record.timed_out = true;
            record.exit = Exit::Signal(9);
            record.sandbox = Some(SandboxReport::default());
            if run.label.contains(";touch F") {
                record.sandbox = Some(SandboxReport {
                    created: vec!["tmp/conform-injected-3".into()],
                    ..SandboxReport::default()
                });
            }
        });
        assert_eq!(outcome.status(), Status::Fail);
        assert!(details(&outcome)[0].contains("(then it hit the limit)"));
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
