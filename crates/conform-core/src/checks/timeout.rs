//! `timeout_flag`: a command that goes to the network takes `--timeout`, and keeps
//! to it when the network never answers, ending with an envelope an agent can read
//! (exit 10 TIMEOUT, retryable as declared), so that no call hangs an agent
//! (REQ-C-012, REQ-F-012). The slow network is a black-hole proxy: every proxy
//! variable points at a local listener that accepts and never answers.

use serde_json::Value;

use super::evidence::quoted;
use super::support::manifest_view;
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::exec::Exit;
use crate::manifest;
use crate::plan::{duration_of, timeout_value, RunKind, RunRole, TIMEOUT_SLACK};

pub(super) const TIMEOUT_FLAG: CheckSpec = CheckSpec {
    id: CheckId::TimeoutFlag,
    name: "timeout_flag",
    title: "Network commands take --timeout and keep to it against a proxy that never answers",
    level: 3,
    failure_modes: &[11],
    requirements: &["REQ-C-012", "REQ-F-012"],
    extension: true,
    reads: &[
        RunKind::Closed,
        RunKind::Manifest,
        RunKind::TimeoutBlackHole,
    ],
    judge: Judge::Alone(judge),
};

/// The exit code and `error.code` of a timeout (REQ-F-012).
const TIMEOUT_EXIT: i32 = 10;

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::TimeoutFlag);
    let manifest = match manifest_view::for_checks(ctx) {
        Ok(manifest) => manifest,
        Err(reason) => {
            outcome.skip(reason);
            return outcome;
        }
    };
    let mut judged = 0;
    for (index, _, path, command) in manifest_view::read_commands(ctx, manifest) {
        let network = command.get("has_network_io") == Some(&Value::Bool(true));
        let flag = manifest::flag(manifest, command, "timeout");
        match flag {
            None if network => {
                judged += 1;
                // Judged by the manifest alone: shown on the probe's baseline.
                let Some(run) = ctx
                    .run(RunRole::probe(RunKind::Closed, index))
                    .or_else(|| ctx.run(RunRole::command(RunKind::Manifest)))
                else {
                    continue;
                };
                outcome.runs_checked += 1;
                outcome.fail(
                    &run,
                    format!(
                        "{path} declares has_network_io true but takes no timeout flag (its \
                         own or the root's): a command that waits on the network takes \
                         --timeout, so an agent can bound the wait (REQ-C-012)"
                    ),
                );
            }
            None => {}
            Some(flag) => {
                judged += 1;
                if let Some(run) = ctx.run(RunRole::probe(RunKind::TimeoutBlackHole, index)) {
                    let declared = declared_retryable(manifest, command);
                    judge_black_hole(ctx, &mut outcome, &run, &timeout_value(flag), declared);
                }
            }
        }
    }
    if judged == 0 {
        outcome.skip(
            "no read probe names a command with has_network_io true or a timeout flag: \
             there is no network wait to bound",
        );
    } else if outcome.runs_checked == 0 {
        outcome.skip(
            "no black-hole run was made: the stdin-closed runs of the commands with a \
             timeout flag did not finish (the hang checks report why)",
        );
    }
    outcome
}

/// The run with `--timeout value` and every proxy at the black hole: it ends within
/// the value plus 2 s (the run's limit), never exits 2, and ends with an envelope.
fn judge_black_hole(
    ctx: &Context<'_>,
    outcome: &mut Outcome,
    run: &Judged<'_>,
    value: &str,
    declared: Option<bool>,
) {
    if run.record.error.is_some() {
        outcome.completed(run); // fails it with the reason
        return;
    }
    outcome.runs_checked += 1;
    let limit = duration_of(value) + TIMEOUT_SLACK;
    let elapsed = run.record.duration;
    let proxy = match run.record.proxy_connections {
        Some(1) => "; 1 connection reached the black-hole proxy".to_string(),
        Some(n) => format!("; {n} connections reached the black-hole proxy"),
        None => String::new(),
    };
    let head =
        format!("with --timeout {value} and every proxy at a listener that never answers, it");
    if run.record.timed_out {
        // The run's limit is V + 2 s (the planner sets it when it completes the run),
        // not the profile's timeout that `planned.spec` still holds.
        outcome.fail(
            run,
            format!(
                "{head} did not exit within V + 2 s = {:.1}s (elapsed {:.1}s){proxy}; the \
                 kit killed it. A network wait ends at the tool's own --timeout \
                 (REQ-C-012, REQ-F-012)",
                limit.as_secs_f64(),
                elapsed.as_secs_f64()
            ),
        );
        return;
    }
    if elapsed > limit {
        outcome.fail(
            run,
            format!(
                "{head} {} after {:.1}s, past V + 2 s = {:.1}s{proxy}: a network wait ends \
                 at the tool's own --timeout (REQ-C-012, REQ-F-012)",
                run.describe_exit(),
                elapsed.as_secs_f64(),
                limit.as_secs_f64()
            ),
        );
    }
    let ended = format!(
        "{head} {} after {:.1}s{proxy}",
        run.describe_exit(),
        elapsed.as_secs_f64()
    );
    let problem = match run.record.exit {
        Exit::Code(2) => Some(
            "exit 2 says --timeout was refused as invalid input, yet the manifest declares \
             it (REQ-C-012)"
                .to_string(),
        ),
        Exit::Code(0) => ctx
            .envelope(run)
            .as_ref()
            .err()
            .map(|why| format!("expected an envelope with exit 0, seen {why}")),
        Exit::Code(TIMEOUT_EXIT) => timeout_error(ctx, run, declared).err(),
        Exit::Code(_) => error_envelope(ctx, run)
            .err()
            .map(|why| format!("expected an error envelope with a non-zero exit, seen {why}")),
        Exit::Signal(_) | Exit::Unknown => Some(
            "expected an exit with an envelope: 0, 10 TIMEOUT, or another code with an \
             error envelope (REQ-F-012)"
                .to_string(),
        ),
    };
    if let Some(problem) = problem {
        outcome.fail(run, format!("{ended}: {problem}"));
    }
}

/// Exit 10 is a TIMEOUT: `error.code` TIMEOUT, `meta.exit_code` 10, `error.retryable`
/// as the effective `exit_codes["10"]` declares.
fn timeout_error(
    ctx: &Context<'_>,
    run: &Judged<'_>,
    declared: Option<bool>,
) -> Result<(), String> {
    let envelope = ctx
        .envelope(run)
        .as_ref()
        .map_err(|why| format!("exit 10 comes with a TIMEOUT envelope, seen {why} (REQ-F-012)"))?;
    let mut problems = Vec::new();
    let code = envelope.pointer("/error/code");
    if code.and_then(Value::as_str) != Some("TIMEOUT") {
        problems.push(format!(
            "code: expected error.code \"TIMEOUT\", seen {}",
            shown(code)
        ));
    }
    let exit_code = envelope.pointer("/meta/exit_code");
    if exit_code.and_then(Value::as_i64) != Some(i64::from(TIMEOUT_EXIT)) {
        problems.push(format!(
            "expected meta.exit_code 10, seen {}",
            shown(exit_code)
        ));
    }
    if let Some(declared) = declared {
        let retryable = envelope.pointer("/error/retryable");
        if retryable.and_then(Value::as_bool) != Some(declared) {
            problems.push(format!(
                "retryable: error.retryable is {} but exit_codes[\"10\"] declares {declared}",
                shown(retryable)
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{} (REQ-F-012)", problems.join("; ")))
    }
}

/// Ok when stdout is one envelope with an `error` object.
fn error_envelope(ctx: &Context<'_>, run: &Judged<'_>) -> Result<(), String> {
    let envelope = ctx.envelope(run).as_ref().map_err(Clone::clone)?;
    match envelope.get("error") {
        Some(error) if error.is_object() => Ok(()),
        other => Err(format!("error {}", shown(other))),
    }
}

/// `error.retryable` as the command's `exit_codes["10"]` declares it, else the
/// root's; `None` when neither declares exit 10.
fn declared_retryable(manifest: &Value, command: &Value) -> Option<bool> {
    let entry = |at: &Value| at.get("exit_codes")?.get("10").cloned();
    entry(command)
        .or_else(|| entry(manifest))?
        .get("retryable")?
        .as_bool()
}

/// A JSON value in a detail, `none` when missing.
fn shown(value: Option<&Value>) -> String {
    value.map_or_else(
        || "none".to_string(),
        |v| match v {
            Value::String(s) => quoted(s),
            other => other.to_string(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, judged_in, manifest_envelope_with, write};
    use crate::checks::Status;
    use crate::exec::RunRecord;
    use crate::plan::PlannedRun;
    use serde_json::json;
    use std::time::Duration;

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "manifest": ["manifest"],
        "probes": [
            { "name": "status", "argv": ["status"], "kind": "read" },
            { "name": "bad", "argv": ["status", "--nope"], "kind": "invalid" }
        ]
    }"#;

    fn exit_entry(retryable: bool) -> Value {
        json!({"description": "timed out", "retryable": retryable, "side_effects": "none"})
    }

    /// `status` with these fields (flags, has_network_io, exit_codes) and the root's
    /// `root` fields.
    fn manifest(command: Value, root: Value) -> String {
        let mut entry = json!({
            "description": "Status of the remote service", "danger_level": "safe",
            "required_scopes": [], "flags": {},
            "exit_codes": {"0": {"description": "ok", "retryable": false, "side_effects": "none"}}
        });
        if let (Some(entry), Some(command)) = (entry.as_object_mut(), command.as_object()) {
            entry.extend(command.clone());
        }
        manifest_envelope_with(json!({ "status": entry }), root)
    }

    fn timeout_flag() -> Value {
        json!({"flags": {"timeout": {"type": "string", "required": false, "description": "how long to wait", "default": "30s"}},
               "has_network_io": true,
               "exit_codes": {"0": {"description": "ok", "retryable": false, "side_effects": "none"}, "10": exit_entry(true)}})
    }

    const TIMEOUT_ENVELOPE: &str = r#"{"ok":false,"data":null,"error":{"code":"TIMEOUT","message":"no answer within 1s","retryable":true},"warnings":[],"meta":{"exit_code":10,"duration_ms":1000}}"#;

    /// The manifest as given; the black-hole run exits 10 with a TIMEOUT envelope
    /// after 1.2 s, changed by `change`.
    fn judged(manifest: String, change: impl Fn(&PlannedRun, &mut RunRecord) -> bool) -> Outcome {
        judged_in(PROFILE, CheckId::TimeoutFlag, |run, record| {
            match run.role.kind {
                RunKind::Manifest => write(record, &manifest),
                RunKind::TimeoutBlackHole => {
                    record.exit = Exit::Code(10);
                    record.duration = Duration::from_millis(1200);
                    record.proxy_connections = Some(1);
                    write(record, TIMEOUT_ENVELOPE);
                }
                _ => {}
            }
            change(run, record)
        })
    }

    fn detail(outcome: &Outcome) -> &str {
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        &outcome.failures[0].detail
    }

    #[test]
    fn a_timeout_kept_with_a_timeout_envelope_or_an_offline_error_passes() {
        let flagged = || manifest(timeout_flag(), json!({}));
        assert_passed(&judged(flagged(), |_, _| true), 1);
        // Ignores proxies and exits 12 offline, in time, with an error envelope.
        let outcome = judged(flagged(), |run, record| {
            if run.role.kind == RunKind::TimeoutBlackHole {
                record.exit = Exit::Code(12);
                record.proxy_connections = Some(0);
                write(
                    record,
                    &TIMEOUT_ENVELOPE
                        .replace("TIMEOUT", "NETWORK_UNAVAILABLE")
                        .replace(r#""exit_code":10"#, r#""exit_code":12"#),
                );
            }
            true
        });
        assert_passed(&outcome, 1);
        // A root --timeout counts too.
        let command = json!({"has_network_io": true});
        let root = json!({"flags": {"timeout": {"type": "integer", "required": false, "description": "seconds"}}});
        assert_passed(&judged(manifest(command, root), |_, _| true), 1);
    }

    #[test]
    fn waiting_on_the_proxy_past_the_timeout_names_v_elapsed_and_the_exit() {
        let outcome = judged(manifest(timeout_flag(), json!({})), |run, record| {
            if run.role.kind == RunKind::TimeoutBlackHole {
                record.exit = Exit::Code(10);
                record.duration = Duration::from_millis(4500);
            }
            true
        });
        assert_eq!(
            detail(&outcome),
            "with --timeout 1s and every proxy at a listener that never answers, it exited 10 \
             after 4.5s, past V + 2 s = 3.0s; 1 connection reached the black-hole proxy: a \
             network wait ends at the tool's own --timeout (REQ-C-012, REQ-F-012)"
        );
        let outcome = judged(manifest(timeout_flag(), json!({})), |run, record| {
            if run.role.kind == RunKind::TimeoutBlackHole {
                record.exit = Exit::Unknown;
                record.timed_out = true;
                record.duration = Duration::from_secs(3);
                write(record, "");
            }
            true
        });
        assert!(detail(&outcome).contains(
            "with --timeout 1s and every proxy at a listener that never answers, it did not \
             exit within V + 2 s = 3.0s (elapsed 3.0s); 1 connection reached the black-hole \
             proxy; the kit killed it"
        ));
    }

    #[test]
    fn exit_10_must_be_a_timeout_as_declared_and_exit_2_always_fails() {
        let cases: [(i32, &str, &str); 4] = [
            (
                10,
                &TIMEOUT_ENVELOPE.replace(r#""retryable":true"#, r#""retryable":false"#),
                r#"retryable: error.retryable is false but exit_codes["10"] declares true"#,
            ),
            (
                10,
                &TIMEOUT_ENVELOPE.replace(r#""code":"TIMEOUT""#, r#""code":"UNAVAILABLE""#),
                r#"code: expected error.code "TIMEOUT", seen "UNAVAILABLE""#,
            ),
            (
                2,
                &TIMEOUT_ENVELOPE.replace(r#""exit_code":10"#, r#""exit_code":2"#),
                "exited 2 after 1.2s; 1 connection reached the black-hole proxy: exit 2 says \
                 --timeout was refused",
            ),
            (
                1,
                "",
                "exited 1 after 1.2s; 1 connection reached the black-hole proxy: expected an \
                 error envelope with a non-zero exit, seen stdout is empty",
            ),
        ];
        for (code, stdout, words) in cases {
            let outcome = judged(manifest(timeout_flag(), json!({})), |run, record| {
                if run.role.kind == RunKind::TimeoutBlackHole {
                    record.exit = Exit::Code(code);
                    write(record, stdout);
                }
                true
            });
            assert!(
                detail(&outcome).contains(words),
                "{words:?} not in {}",
                detail(&outcome)
            );
        }
    }

    #[test]
    fn network_io_without_a_timeout_flag_fails_by_the_manifest_alone() {
        let outcome = judged(
            manifest(json!({"has_network_io": true}), json!({})),
            |_, _| true,
        );
        assert_eq!(outcome.runs_checked, 1);
        assert!(detail(&outcome)
            .starts_with("status declares has_network_io true but takes no timeout flag"));
        assert_eq!(outcome.failures[0].run.probe, "status");
    }

    #[test]
    fn it_skips_without_a_manifest_or_a_network_command() {
        let outcome = judged(manifest(json!({}), json!({})), |_, _| true);
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
        assert!(outcome
            .skipped_reason
            .as_deref()
            .is_some_and(|r| r.starts_with("no read probe names a command with has_network_io")));
        let outcome = judged("{}".into(), |_, _| true);
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
        assert!(outcome
            .skipped_reason
            .as_deref()
            .is_some_and(|r| r.starts_with("the tool gave no valid manifest")));
    }
}
