//! `bare_no_repl`: the bare command with stdin an open pipe that never reaches EOF
//! ends on its own, so an agent that calls a tool with no arguments is never left
//! facing an interactive session (REQ-F-047).

use serde_json::Value;

use super::evidence::quoted;
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::plan::RunKind;

pub(super) const BARE_NO_REPL: CheckSpec = CheckSpec {
    id: CheckId::BareNoRepl,
    name: "bare_no_repl",
    title: "The bare command with stdin open ends: exit 0, or exit 4 with an error envelope",
    level: 1,
    failure_modes: &[37, 10],
    requirements: &["REQ-F-047"],
    extension: true,
    reads: &[RunKind::BareOpen],
    judge: Judge::Alone(judge),
};

/// Bytes of each stream quoted in a failure: enough to show a prompt.
const SHOWN: usize = 120;

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::BareNoRepl);
    for run in ctx.declared_runs() {
        if run.record.error.is_some() {
            outcome.completed(&run); // fails it with the reason
            continue;
        }
        outcome.runs_checked += 1;
        let label = &run.planned.label;
        if run.record.timed_out {
            outcome.fail(
                &run,
                format!(
                    "{label} timed out after {}s: with stdin a pipe that never reached EOF it \
                     kept waiting, as an interactive session (REPL) does; {}. Without a \
                     terminal, show help and exit 0, or exit 4 (REQ-F-047)",
                    run.record.limit.as_secs_f64(),
                    excerpts(&run)
                ),
            );
            continue;
        }
        match run.record.exit_code() {
            Some(0) => {}
            Some(4) => {
                if let Err(why) = exit_4_envelope(ctx, &run) {
                    outcome.fail(
                        &run,
                        format!(
                            "{label} exited 4 but {why}; exit 4 in place of a REPL comes with \
                             an error envelope on stdout (REQ-F-047); {}",
                            excerpts(&run)
                        ),
                    );
                }
            }
            _ => outcome.fail(
                &run,
                format!(
                    "{label} {}, expected exit 0, or exit 4 with an error envelope \
                     (REQ-F-047); {}",
                    run.describe_exit(),
                    excerpts(&run)
                ),
            ),
        }
    }
    outcome
}

/// Ok when stdout is one error envelope whose `meta.exit_code` is 4.
fn exit_4_envelope(ctx: &Context<'_>, run: &Judged<'_>) -> Result<(), String> {
    ctx.error_object(run)?;
    let envelope = ctx.envelope(run).as_ref().map_err(Clone::clone)?;
    match envelope.pointer("/meta/exit_code") {
        Some(code) if code == &Value::from(4) => Ok(()),
        code => Err(format!(
            "its envelope says meta.exit_code {}",
            code.map_or_else(|| "(missing)".to_string(), Value::to_string)
        )),
    }
}

/// `stdout starts "democli> ", stderr is empty`: what the run wrote, briefly.
fn excerpts(run: &Judged<'_>) -> String {
    let show = |name: &str, bytes: &[u8]| {
        if bytes.is_empty() {
            format!("{name} is empty")
        } else {
            let start = String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]);
            format!("{name} starts {}", quoted(&start))
        }
    };
    format!(
        "{}, {}",
        show("stdout", &run.record.stdout.bytes),
        show("stderr", &run.record.stderr.bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, judged, write};
    use crate::checks::Status;
    use crate::exec::Exit;

    #[test]
    fn exit_4_with_a_repl_mode_prohibited_envelope_passes() {
        let outcome = judged(CheckId::BareNoRepl, |_, record| {
            record.exit = Exit::Code(4);
            write(
                record,
                r#"{"ok":false,"data":null,"error":{"code":"REPL_MODE_PROHIBITED","message":"stdin is not a TTY","retryable":false},"warnings":[],"meta":{"exit_code":4,"duration_ms":0,"schema_version":"1.0"}}"#,
            );
        });
        assert_passed(&outcome, 1);
    }

    #[test]
    fn a_run_that_waits_on_stdin_or_exits_otherwise_fails() {
        let outcome = judged(CheckId::BareNoRepl, |_, record| {
            record.timed_out = true;
            record.exit = Exit::Signal(9);
            record.stderr.bytes = b"democli> ".to_vec();
        });
        assert_eq!(outcome.status(), Status::Fail);
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains("bare (isolated, stdin open) timed out after 5s"),
            "{detail}"
        );
        assert!(detail.contains(r#"stderr starts "democli> ""#), "{detail}");

        let outcome = judged(CheckId::BareNoRepl, |_, record| {
            record.exit = Exit::Code(4);
            write(record, "interactive mode needs a terminal\n");
        });
        assert_eq!(outcome.status(), Status::Fail);
        assert!(outcome.failures[0]
            .detail
            .contains("exited 4 but stdout is not an error envelope"));

        let outcome = judged(CheckId::BareNoRepl, |_, record| {
            record.exit = Exit::Code(1);
        });
        assert!(outcome.failures[0]
            .detail
            .contains("exited 1, expected exit 0"));
    }
}
