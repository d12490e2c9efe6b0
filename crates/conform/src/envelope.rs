//! conform's own output: one ResponseEnvelope per invocation, as the CLI Agent Spec
//! asks of every agent-ready tool (conform passes its own profile).

use serde::Serialize;
use serde_json::Value;

/// Version of conform's envelope and result documents.
pub const RESULT_SCHEMA_VERSION: &str = "1.0";

/// The process exit codes conform uses, from the spec's exit-code table (the same
/// codes the spec's reference kit uses, so CI scripts work unchanged).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// Every check that ran passed; the profile is valid.
    Success = 0,
    /// conform itself failed (could not write its report, ...).
    GeneralError = 1,
    /// ARG_ERROR: the profile is missing, unparseable or invalid, or bad arguments; nothing ran.
    InvalidInput = 2,
    /// PRECONDITION: at least one check failed (CONFORMANCE_CHECKS_FAILED).
    ChecksFailed = 4,
    /// conform was interrupted by SIGINT or SIGTERM (128 + SIGINT).
    Cancelled = 130,
}

impl ExitStatus {
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The worse of two statuses, for runs over several profiles: an invalid
    /// profile outranks failed checks, which outrank success.
    pub fn worst(self, other: ExitStatus) -> ExitStatus {
        fn rank(s: ExitStatus) -> u8 {
            match s {
                ExitStatus::Success => 0,
                ExitStatus::ChecksFailed => 1,
                ExitStatus::InvalidInput => 2,
                ExitStatus::GeneralError => 3,
                ExitStatus::Cancelled => 4,
            }
        }
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

/// An `ErrorDetail` of the spec.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
    pub retryable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix_required: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
}

/// Build the envelope: `ok` is derived from the exit code, never set separately.
pub fn envelope(
    status: ExitStatus,
    data: Value,
    error: Option<ErrorDetail>,
    duration_ms: u64,
) -> Value {
    serde_json::json!({
        "ok": status == ExitStatus::Success,
        "data": data,
        "error": error,
        "warnings": [],
        "meta": {
            "exit_code": status.code(),
            "duration_ms": duration_ms,
            "schema_version": RESULT_SCHEMA_VERSION,
        },
    })
}
