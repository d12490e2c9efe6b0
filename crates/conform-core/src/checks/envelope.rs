//! `json_envelope`, `exit_code_contract` and `stdout_no_ansi`: judged together over
//! the same runs (each probe's stdin-closed run and its first preview).

use serde_json::Value;

use super::evidence::quoted;
use super::{schemas, CheckId, CheckSpec, Context, Judged, Outcome};
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
    judge: |ctx| judge(ctx).json,
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
    judge: |ctx| judge(ctx).exit_codes,
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
    judge: |ctx| judge(ctx).ansi,
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

/// Position of the first ANSI CSI sequence (`ESC [ params letter`), as the reference
/// kit matches them.
pub(super) fn find_ansi(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == 0x1b && bytes[i + 1] == b'[' {
            let mut j = i + 2;
            while j < bytes.len()
                && (bytes[j].is_ascii_digit() || bytes[j] == b';' || bytes[j] == b'?')
            {
                j += 1;
            }
            if j < bytes.len() && bytes[j].is_ascii_alphabetic() {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

/// stdout as exactly one JSON object that validates as a ResponseEnvelope. Checks
/// read it through [`Context::envelope`](super::Context::envelope), which parses once.
pub(super) fn parse(run: &Judged<'_>) -> Result<Value, String> {
    let out = &run.record.stdout;
    if out.truncated {
        return Err(format!(
            "stdout exceeded the {} capture cap ({} bytes written); an envelope that large is not one an agent can read (raise --capture-limit if it is intended)",
            human_bytes(run.planned.spec.capture_limit as u64),
            out.total_bytes
        ));
    }
    let text = match std::str::from_utf8(&out.bytes) {
        Ok(text) => text,
        Err(e) => {
            return Err(format!(
                "stdout is not valid UTF-8 (invalid byte at offset {}), so it is not JSON",
                e.valid_up_to()
            ))
        }
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        let hint = if run.record.stderr.total_bytes > 0 {
            " (the tool wrote only to stderr)"
        } else {
            ""
        };
        return Err(format!("stdout is empty{hint}; a non-TTY stdout must carry a JSON envelope without any flag (REQ-F-003)"));
    }
    let document: Value = serde_json::from_str(trimmed).map_err(|e| {
        let start: String = trimmed.chars().take(60).collect();
        format!(
            "stdout is not a single JSON document ({e}); it starts {}: JSON must be on by default when stdout is not a terminal (REQ-F-003)",
            quoted(&start)
        )
    })?;
    if !document.is_object() {
        return Err(format!(
            "stdout is JSON but not an object ({}); a ResponseEnvelope is an object",
            kind(&document)
        ));
    }
    let errors = schemas::envelope_errors(&document);
    if !errors.is_empty() {
        return Err(format!(
            "stdout is not a valid ResponseEnvelope: {}",
            schemas::summarize(&errors)
        ));
    }
    Ok(document)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(super) fn human_bytes(n: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    const KIB: u64 = 1024;
    if n >= MIB && n % MIB == 0 {
        format!("{} MiB", n / MIB)
    } else if n >= KIB && n % KIB == 0 {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n}-byte")
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
