//! `stdin_payload_bounded`: a safe command whose manifest declares a stdin
//! `max_bytes` refuses one byte more with exit 2 and an error envelope, and given
//! half of it, written while its stdout is drained, ends in time (REQ-F-054).

use std::fmt::Write as _;

use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::exec::StdinMode;
use crate::plan::{capped_stdin_commands, RunKind};

pub(super) const STDIN_PAYLOAD_BOUNDED: CheckSpec = CheckSpec {
    id: CheckId::StdinPayloadBounded,
    name: "stdin_payload_bounded",
    title: "A command with a stdin max_bytes refuses max_bytes + 1 with exit 2 and an error envelope, and ends in time on half of it",
    level: 3,
    failure_modes: &[61],
    requirements: &["REQ-F-054"],
    extension: true,
    reads: &[RunKind::PayloadOver, RunKind::PayloadHalf, RunKind::Manifest],
    judge: Judge::Alone(judge),
};

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::StdinPayloadBounded);
    let capped = ctx.manifest_as_read().map(capped_stdin_commands);
    let runs = ctx.runs_of(&[RunKind::PayloadOver, RunKind::PayloadHalf]);
    if runs.is_empty() {
        outcome.skip(match capped {
            None => "no manifest to read stdin caps from",
            Some(_) => "no safe manifest command declares a stdin max_bytes",
        });
        return outcome;
    }
    let capped = capped.unwrap_or_default();
    for run in &runs {
        let bytes = match run.record.stdin {
            StdinMode::Payload(bytes) => bytes,
            _ => 0,
        };
        let cap = cap_of(run, &capped).map_or_else(|| "its".to_string(), |cap| cap.to_string());
        let over = run.planned.role.kind == RunKind::PayloadOver;
        if !outcome.completed(run) {
            if let Some(last) = outcome.failures.last_mut() {
                let _ = if over {
                    write!(
                        last.detail,
                        "; given {bytes} bytes on stdin, one more than its max_bytes \
                         {cap}, it neither refused nor ended (REQ-F-054)"
                    )
                } else {
                    write!(
                        last.detail,
                        "; given {bytes} bytes on stdin, half its max_bytes {cap}, while \
                         conform drained its stdout: a tool that writes before it has \
                         read its input, or waits for more, deadlocks an agent's pipe \
                         (REQ-F-054)"
                    )
                };
            }
            continue;
        }
        if !over {
            continue;
        }
        let refusal = match run.record.exit_code() {
            Some(2) => ctx.error_object(run).err(),
            _ => Some(format!("{}, expected exit 2", run.describe_exit())),
        };
        if let Some(why) = refusal {
            outcome.fail(
                run,
                format!(
                    "given {bytes} bytes on stdin, one more than its max_bytes {cap}, it \
                     was not refused: {why}; refuse an oversized payload with exit 2 and an \
                     error envelope that points to --input-file (REQ-F-054)"
                ),
            );
        }
    }
    outcome
}

/// The declared cap of the command a payload run ran: the capped command whose
/// path ends its argv.
fn cap_of(run: &Judged<'_>, capped: &[(String, u64)]) -> Option<u64> {
    capped
        .iter()
        .find(|(key, _)| {
            let words: Vec<&str> = key.split('.').collect();
            run.record
                .argv
                .ends_with(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
        })
        .map(|(_, cap)| *cap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, manifest_envelope, write};
    use crate::checks::Status;
    use crate::exec::{Exit, RunRecord};
    use crate::plan::PlannedRun;

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "manifest": ["manifest"],
        "probes": [ { "name": "list", "argv": ["list"], "kind": "read" } ]
    }"#;

    const REFUSED: &str = r#"{"ok":false,"data":null,"error":{"code":"STDIN_TOO_LARGE","message":"too large","retryable":false},"warnings":[],"meta":{"exit_code":2,"duration_ms":0,"schema_version":"1.0"}}"#;

    fn capped_manifest() -> String {
        manifest_envelope(serde_json::json!({
            "spec.validate": { "danger_level": "safe", "stdin": { "mode": "buffered", "max_bytes": 100 } },
            "spec.apply": { "danger_level": "destructive", "stdin": { "mode": "buffered", "max_bytes": 100 } }
        }))
    }

    /// As the pool completes the payload runs: the first slot's pair is made, the
    /// others not.
    fn made(run: &PlannedRun) -> bool {
        !run.label.contains("capped command") || run.label.ends_with("capped command 1)")
    }

    fn fill(over_exit: i32, over_stdout: &'static str) -> impl Fn(&PlannedRun, &mut RunRecord) {
        move |run, record| {
            if run.role.kind == RunKind::Manifest {
                write(record, &capped_manifest());
                return;
            }
            record
                .argv
                .extend(["spec".to_string(), "validate".to_string()]);
            if run.role.kind == RunKind::PayloadOver {
                record.stdin = StdinMode::Payload(101);
                record.exit = Exit::Code(over_exit);
                write(record, over_stdout);
            } else {
                record.stdin = StdinMode::Payload(50);
            }
        }
    }

    #[test]
    fn an_oversized_payload_refused_with_an_envelope_passes_and_one_taken_fails() {
        let outcome = crate::checks::skips::judged_unless(
            PROFILE,
            CheckId::StdinPayloadBounded,
            made,
            fill(2, REFUSED),
        );
        assert_passed(&outcome, 2);
        let outcome = crate::checks::skips::judged_unless(
            PROFILE,
            CheckId::StdinPayloadBounded,
            made,
            fill(0, r#"{"ok":true}"#),
        );
        assert_eq!(outcome.status(), Status::Fail);
        let details: Vec<&str> = outcome.failures.iter().map(|f| f.detail.as_str()).collect();
        assert_eq!(
            details,
            [
                "given 101 bytes on stdin, one more than its max_bytes 100, it was not \
              refused: exited 0, expected exit 2; refuse an oversized payload with exit 2 \
              and an error envelope that points to --input-file (REQ-F-054)"
            ]
        );
    }

    #[test]
    fn only_safe_commands_with_a_cap_are_run() {
        let manifest = crate::manifest::data_of(capped_manifest().as_bytes()).expect("data");
        assert_eq!(
            capped_stdin_commands(&manifest),
            [("spec.validate".to_string(), 100)]
        );
    }

    #[test]
    fn without_a_capped_command_it_skips() {
        let outcome = crate::checks::skips::judged_unless(
            PROFILE,
            CheckId::StdinPayloadBounded,
            |run| run.role.kind == RunKind::Manifest,
            |_, record| write(record, &manifest_envelope(serde_json::json!({}))),
        );
        assert_eq!(outcome.status(), Status::Skip);
        assert_eq!(
            outcome.skipped_reason.as_deref(),
            Some("no safe manifest command declares a stdin max_bytes")
        );
    }
}
