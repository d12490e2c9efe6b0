//! `json_envelope`, `exit_code_contract` and `stdout_no_ansi`: judged together over
//! the same runs (each probe's stdin-closed run and its first preview).

use serde_json::Value;

use super::support::output::find_ansi;

use super::{CheckId, CheckSpec, Context, Family, Judge, Judged, Outcome};
use crate::exec::Exit;
use crate::plan::RunKind;

pub(super) const JSON_ENVELOPE: CheckSpec = CheckSpec {
    id: CheckId::JsonEnvelope,
    name: "json_envelope",
    title: "Non-TTY stdout is exactly one valid ResponseEnvelope without flags",
    level: 1,
    failure_modes: &[2, 3, 18],
    requirements: &["REQ-F-003", "REQ-F-004", "REQ-F-006", "REQ-C-013"],
    extension: false,
    reads: &[RunKind::Closed, RunKind::Preview],
    judge: Judge::Family(&FAMILY),
};

pub(super) const EXIT_CODE_CONTRACT: CheckSpec = CheckSpec {
    id: CheckId::ExitCodeContract,
    name: "exit_code_contract",
    title: "Exit codes come from the table and match meta.exit_code",
    level: 1,
    failure_modes: &[1],
    requirements: &["REQ-F-001"],
    extension: false,
    reads: &[RunKind::Closed, RunKind::Preview],
    judge: Judge::Family(&FAMILY),
};

pub(super) const STDOUT_NO_ANSI: CheckSpec = CheckSpec {
    id: CheckId::StdoutNoAnsi,
    name: "stdout_no_ansi",
    title: "No ANSI escape sequences on stdout in a non-TTY",
    level: 1,
    failure_modes: &[8],
    requirements: &["REQ-F-007"],
    extension: false,
    reads: &[RunKind::Closed, RunKind::Preview],
    judge: Judge::Family(&FAMILY),
};

/// The three are judged in one pass over the same runs.
static FAMILY: Family = Family {
    name: "envelope",
    judge: |ctx| {
        let out = judge(ctx);
        vec![out.json, out.exit_codes, out.ansi]
    },
};

pub(super) struct EnvelopeOutcomes {
    pub json: Outcome,
    pub exit_codes: Outcome,
    pub ansi: Outcome,
}

/// Exit codes the spec's table allows: 0-13 named, 79-125 command-specific, and the
/// signal codes 130 (SIGINT) and 143 (SIGTERM).
pub(super) fn exit_code_allowed(code: i32) -> bool {
    matches!(code, 0..=13 | 79..=125 | 130 | 143)
}

/// Why an exit code is outside the table, in the spec's terms.
pub(super) fn exit_code_problem(code: i32) -> String {
    let range = match code {
        14..=63 => "14-63 are reserved for framework extensions",
        64..=78 => "64-78 are the POSIX sysexits range, reserved",
        126..=255 => "126-255 are reserved for the shell",
        _ => "it is not an exit status",
    };
    format!("exited {code}, outside the exit-code table (0-13, 79-125, 130, 143): {range}")
}

pub(super) fn judge(ctx: &Context<'_>) -> EnvelopeOutcomes {
    let mut out = EnvelopeOutcomes {
        json: Outcome::new(CheckId::JsonEnvelope),
        exit_codes: Outcome::new(CheckId::ExitCodeContract),
        ansi: Outcome::new(CheckId::StdoutNoAnsi),
    };
    let runs = ctx.declared_runs();
    for run in runs {
        if !run.finished() {
            // Reported by the hang checks or dry_run_preview; not judged here.
            continue;
        }
        judge_run(&mut out, &run, ctx.envelope(&run));
    }
    out
}

fn judge_run(out: &mut EnvelopeOutcomes, run: &Judged<'_>, parsed: &Result<Value, String>) {
    out.json.runs_checked += 1;
    let envelope = match parsed {
        Ok(envelope) => Some(envelope),
        Err(reason) => {
            out.json.fail(run, reason.clone());
            None
        }
    };

    out.exit_codes.runs_checked += 1;
    match run.record.exit {
        Exit::Code(code) if !exit_code_allowed(code) => {
            out.exit_codes.fail(run, exit_code_problem(code))
        }
        Exit::Code(code) => {
            if let Some(declared) = envelope.and_then(|e| e.pointer("/meta/exit_code")) {
                if declared.as_i64() != Some(i64::from(code)) {
                    out.exit_codes.fail(
                        run,
                        format!("meta.exit_code is {declared} but the process exited {code}; agents branch on both, so they must agree"),
                    );
                }
            }
        }
        Exit::Signal(n) => out.exit_codes.fail(
            run,
            format!(
                "killed by {} instead of exiting with a code from the table",
                super::evidence::signal_name(n)
            ),
        ),
        Exit::Unknown => out
            .exit_codes
            .fail(run, "the process's exit status was never observed"),
    }

    out.ansi.runs_checked += 1;
    if let Some(at) = find_ansi(&run.record.stdout.bytes) {
        out.ansi.fail(
            run,
            format!("stdout contains an ANSI escape sequence at byte {at} although it is not a terminal; color and cursor codes corrupt JSON (REQ-F-007)"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_detection() {
        assert_eq!(find_ansi(b"plain"), None);
        assert_eq!(find_ansi(b"ab\x1b[31mred"), Some(2));
        assert_eq!(find_ansi(b"\x1b[?25l"), Some(0));
        assert_eq!(find_ansi(b"\x1b["), None);
    }

    #[test]
    fn table() {
        assert!(exit_code_allowed(0) && exit_code_allowed(13) && exit_code_allowed(130));
        assert!(!exit_code_allowed(14) && !exit_code_allowed(64) && !exit_code_allowed(126));
    }
}
