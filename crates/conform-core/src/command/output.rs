//! Writing to stdout without panicking on a closed pipe.

use std::io::Write;
use std::time::Instant;

use serde_json::Value;

use crate::envelope::{envelope, ErrorDetail, ExitStatus};

pub(crate) fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Write to stdout; a closed pipe (`conform ... | head`) is not an error worth a panic.
pub(crate) fn emit(text: &str) -> ExitStatus {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitStatus::Success,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitStatus::Success,
        Err(e) => {
            eprintln!("conform: cannot write to stdout: {e}");
            ExitStatus::GeneralError
        }
    }
}

/// One JSON document, pretty; within `CONFORM_MAX_OUTPUT_BYTES` when that is set.
pub(crate) fn emit_json(value: &Value) -> ExitStatus {
    let text = match super::cap::requested() {
        Some(cap) => super::cap::render(value, cap),
        None => serde_json::to_string_pretty(value).map(|text| text + "\n"),
    };
    match text {
        Ok(text) => emit(&text),
        Err(e) => {
            eprintln!("conform: cannot serialize the report: {e}");
            ExitStatus::GeneralError
        }
    }
}

/// One JSON document on one line: a line of a stream.
pub(crate) fn emit_json_line(value: &Value) -> ExitStatus {
    match serde_json::to_string(value) {
        Ok(text) => emit(&(text + "\n")),
        Err(e) => {
            eprintln!("conform: cannot serialize the report: {e}");
            ExitStatus::GeneralError
        }
    }
}

/// Finish with `status`, unless writing the output itself failed.
pub(crate) fn finish(status: ExitStatus, written: ExitStatus) -> ExitStatus {
    if written == ExitStatus::Success {
        status
    } else {
        written
    }
}

/// Report a failure the agent-ready way: one envelope on stdout when output is JSON,
/// else `conform: message` on stderr; either way the status is the exit code.
pub(crate) fn report_error(
    status: ExitStatus,
    detail: ErrorDetail,
    data: Value,
    json_output: bool,
    started: Instant,
) -> ExitStatus {
    let written = if json_output {
        emit_json(&envelope(status, data, Some(detail), elapsed_ms(started)))
    } else {
        eprintln!("conform: {}", detail.message);
        ExitStatus::Success
    };
    finish(status, written)
}
