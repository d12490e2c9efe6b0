//! The secret checks, read from the canary runs: a canary secret planted in every
//! secret-like variable must never be printed, nor stored where others can read it.
//! `debug_no_secret_leak` judges the runs with a debug switch (REQ-F-051,
//! REQ-F-034); `secret_not_echoed` the plain ones (REQ-C-016). One leak fails one
//! check. A flag that takes a secret on the command line is
//! `secret_flags_have_alternative`'s.

use super::support::canaries::{describe, sightings};
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::plan::{RunKind, RunRole};
use crate::profile::ProbeKind;

pub(super) const DEBUG_NO_SECRET_LEAK: CheckSpec = CheckSpec {
    id: CheckId::DebugNoSecretLeak,
    name: "debug_no_secret_leak",
    title: "With a debug switch on, no canary secret shows on stdout, on stderr or in a file others can read",
    level: 1,
    failure_modes: &[42, 24],
    requirements: &["REQ-F-051", "REQ-F-034"],
    extension: true,
    reads: &[RunKind::DebugCanary, RunKind::Canary],
    judge: Judge::Alone(judge_debug),
};

pub(super) const SECRET_NOT_ECHOED: CheckSpec = CheckSpec {
    id: CheckId::SecretNotEchoed,
    name: "secret_not_echoed",
    title: "No canary secret is printed or stored readable by others",
    level: 2,
    failure_modes: &[24],
    requirements: &["REQ-C-016"],
    extension: true,
    reads: &[RunKind::Canary],
    judge: Judge::Alone(judge_plain),
};

fn judge_debug(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::DebugNoSecretLeak);
    if !ctx.profile.profile.has_probe(ProbeKind::Read) {
        outcome.skip("the profile has no read probe to run with a debug switch");
        return outcome;
    }
    let mut rejected: Vec<String> = Vec::new();
    for run in ctx.runs_of(&[RunKind::DebugCanary]) {
        if run.finished() && rejects_switch(ctx, &run) {
            rejected.push(format!("{} (exit 2)", switch_of(&run)));
            continue;
        }
        if !outcome.completed(&run) {
            continue;
        }
        let seen = sightings(&run);
        if !seen.is_empty() {
            outcome.fail_observed(
                &run,
                format!(
                    "with {} the tool showed the secrets it was given: {}; debug and \
                     verbose output must redact every secret value (REQ-F-051, REQ-F-034)",
                    switch_of(&run),
                    describe(&seen)
                ),
            );
        }
    }
    if !rejected.is_empty() {
        let note = format!(
            " (left out, as the tool rejects them: {})",
            rejected.join(", ")
        );
        for failure in &mut outcome.failures {
            failure.detail.push_str(&note);
        }
    }
    if outcome.runs_checked == 0 {
        outcome.skip(if rejected.is_empty() {
            "no debug run was made (the read probes' runs hung or were not made)".to_string()
        } else {
            format!(
                "the tool rejected every debug switch: {}",
                rejected.join(", ")
            )
        });
    }
    outcome
}

/// A debug switch the tool rejects: exit 2 where the probe's plain canary run
/// exited 0.
fn rejects_switch(ctx: &Context<'_>, run: &Judged<'_>) -> bool {
    let plain = run
        .planned
        .role
        .probe_index()
        .and_then(|probe| ctx.run(RunRole::probe(RunKind::Canary, probe)));
    run.record.exit_code() == Some(2)
        && plain.is_some_and(|plain| plain.record.exit_code() == Some(0))
}

/// The switch of a debug run, from its label (`list (canary secrets set, isolated,
/// DEBUG=1)`).
fn switch_of(run: &Judged<'_>) -> String {
    run.planned
        .label
        .rsplit_once(", ")
        .map(|(_, switch)| switch.trim_end_matches(')').to_string())
        .unwrap_or_else(|| run.planned.label.clone())
}

fn judge_plain(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::SecretNotEchoed);
    for run in ctx.runs_of(&[RunKind::Canary]) {
        if !outcome.completed(&run) {
            continue;
        }
        let seen = sightings(&run);
        if !seen.is_empty() {
            outcome.fail_observed(
                &run,
                format!(
                    "{} and showed the secrets it was given: {}; never print a secret, \
                     and store one only in a file of mode 0600 (REQ-C-016)",
                    run.describe_exit(),
                    describe(&seen)
                ),
            );
        }
    }
    if outcome.runs_checked == 0 {
        outcome.skip("no read or invalid probe to plant canary secrets in");
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canary;
    use crate::checks::skips::{details, judged_with, write};
    use crate::checks::Status;
    use crate::exec::{HoldingFile, RunRecord, SandboxReport};
    use crate::plan::PlannedRun;

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "probes": [
            { "name": "list", "argv": ["list"], "kind": "read" },
            { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" }
        ]
    }"#;

    fn clean(_: &PlannedRun, record: &mut RunRecord) {
        record.sandbox = Some(SandboxReport::default());
        write(record, r#"{"ok":true}"#);
    }

    #[test]
    fn a_token_printed_with_debug_on_fails_naming_the_variable_never_the_value() {
        let token = canary::value_for("T_TOKEN");
        let outcome = judged_with(PROFILE, CheckId::DebugNoSecretLeak, |run, record| {
            clean(run, record);
            if run.label.ends_with("LOG_LEVEL=debug)") {
                record.stderr.bytes = format!("debug: auth with {token}\n").into_bytes();
            }
        });
        assert_eq!(outcome.status(), Status::Fail);
        assert_eq!(
            details(&outcome),
            [
                "with LOG_LEVEL=debug the tool showed the secrets it was given: <canary \
              T_TOKEN> on stderr; debug and verbose output must redact every secret value \
              (REQ-F-051, REQ-F-034)"
            ]
        );
        assert!(!details(&outcome)[0].contains(&token));
    }

    #[test]
    fn part_of_a_canary_counts_and_a_canary_shaped_string_that_is_not_one_passes() {
        let key = canary::value_for("API_KEY");
        let tail = &key[key.len() - canary::SEEN_RUN..];
        let outcome = judged_with(PROFILE, CheckId::DebugNoSecretLeak, |run, record| {
            clean(run, record);
            record.stderr.bytes = b"debug: key conform-canary-AAAAAAAAAAAAAAAAAAAAAAAA\n".to_vec();
            if run.label.ends_with("DEBUG=1)") && !run.label.contains("PREFIX") {
                record.stdout.bytes = format!("key=****{tail}").into_bytes();
            }
        });
        assert_eq!(outcome.status(), Status::Fail);
        assert_eq!(outcome.failures.len(), 1, "{:?}", details(&outcome));
        assert!(details(&outcome)[0].contains("<canary API_KEY> on stdout"));

        let outcome = judged_with(PROFILE, CheckId::DebugNoSecretLeak, |run, record| {
            clean(run, record);
            record.stderr.bytes = b"token conform-canary-AAAAAAAAAAAAAAAAAAAAAAAA\n".to_vec();
        });
        assert_eq!(outcome.status(), Status::Pass, "{:?}", details(&outcome));
    }

    #[test]
    fn a_private_file_holding_a_canary_is_storage_and_a_shared_one_a_leak() {
        let holding = |mode| HoldingFile {
            path: "config/t/auth".into(),
            mode,
            needles: vec!["T_TOKEN".into()],
        };
        let with_file = |mode: u32| {
            move |run: &PlannedRun, record: &mut RunRecord| {
                clean(run, record);
                record.sandbox = Some(SandboxReport {
                    holding: vec![holding(mode)],
                    ..SandboxReport::default()
                });
            }
        };
        let outcome = judged_with(PROFILE, CheckId::SecretNotEchoed, with_file(0o600));
        assert_eq!(outcome.status(), Status::Pass, "{:?}", details(&outcome));
        let outcome = judged_with(PROFILE, CheckId::SecretNotEchoed, with_file(0o644));
        assert_eq!(outcome.status(), Status::Fail);
        assert!(
            details(&outcome)[0].contains("<canary T_TOKEN> in file config/t/auth (mode 0644)"),
            "{:?}",
            details(&outcome)
        );
        // The read and the invalid probe each have a canary run.
        assert_eq!(outcome.failures.len(), 2);
    }

    #[test]
    fn a_debug_switch_the_tool_rejects_is_left_out_and_named() {
        let token = canary::value_for("T_TOKEN");
        let outcome = judged_with(PROFILE, CheckId::DebugNoSecretLeak, |run, record| {
            clean(run, record);
            if run.label.contains("PREFIX_DEBUG") {
                record.exit = crate::exec::Exit::Code(2);
                record.stderr.bytes = format!("unknown variable, token {token}").into_bytes();
            }
            if run
                .label
                .ends_with("(canary secrets set, isolated, DEBUG=1)")
            {
                record.stderr.bytes = token.clone().into_bytes();
            }
        });
        let details = details(&outcome);
        assert_eq!(details.len(), 1, "{details:?}");
        assert!(
            details[0].ends_with("(left out, as the tool rejects them: PREFIX_DEBUG=1 (exit 2))"),
            "{details:?}"
        );
    }

    #[test]
    fn without_a_read_probe_the_debug_check_skips() {
        const NO_READ: &str = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "probes": [ { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" } ]
        }"#;
        let outcome = judged_with(NO_READ, CheckId::DebugNoSecretLeak, clean);
        assert_eq!(outcome.status(), Status::Skip);
        let outcome = judged_with(NO_READ, CheckId::SecretNotEchoed, clean);
        assert_eq!(
            outcome.status(),
            Status::Pass,
            "the invalid probe's canary run counts"
        );
    }
}
