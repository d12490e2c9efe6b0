//! conform's own output: one ResponseEnvelope per invocation, as the CLI Agent Spec
//! asks of every agent-ready tool (conform passes its own profile).

use serde::Serialize;
use serde_json::{Map, Value};

/// Version of conform's envelope and result documents.
pub(crate) const RESULT_SCHEMA_VERSION: &str = "1.0";

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
    /// conform was interrupted by SIGINT (128 + SIGINT).
    Cancelled = 130,
    /// conform was stopped by SIGTERM (128 + SIGTERM, REQ-F-013).
    Terminated = 143,
}

impl ExitStatus {
    /// Every exit code conform can return; its manifest declares exactly these.
    pub const ALL: [ExitStatus; 6] = [
        ExitStatus::Success,
        ExitStatus::GeneralError,
        ExitStatus::InvalidInput,
        ExitStatus::ChecksFailed,
        ExitStatus::Cancelled,
        ExitStatus::Terminated,
    ];

    /// The process exit code.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The spec's name for the code (its exit-code table; 130 is REQ-F-069's).
    pub fn name(self) -> &'static str {
        match self {
            ExitStatus::Success => "SUCCESS",
            ExitStatus::GeneralError => "GENERAL_ERROR",
            ExitStatus::InvalidInput => "ARG_ERROR",
            ExitStatus::ChecksFailed => "PRECONDITION",
            ExitStatus::Cancelled => "CANCELLED",
            ExitStatus::Terminated => "TERMINATED",
        }
    }

    /// When conform exits with the code, for its manifest (at most 120 characters).
    pub fn describe(self) -> &'static str {
        match self {
            ExitStatus::Success => "Every check that ran passed, or the profile is valid",
            ExitStatus::GeneralError => {
                "conform could not write its output or its --json-report file"
            }
            ExitStatus::InvalidInput => {
                "INVALID_PROFILE or USAGE_ERROR: a profile or the arguments are invalid; nothing ran"
            }
            ExitStatus::ChecksFailed => {
                "CONFORMANCE_CHECKS_FAILED: at least one check failed; data carries the full result"
            }
            ExitStatus::Cancelled => {
                "CANCELLED: SIGINT stopped the runs in progress and killed their process groups"
            }
            ExitStatus::Terminated => {
                "CANCELLED: SIGTERM stopped the runs in progress and killed their process groups"
            }
        }
    }

    /// Whether the identical call may succeed when repeated: only an interruption.
    pub fn retryable(self) -> bool {
        self.is_cancellation()
    }

    /// conform was interrupted (SIGINT) or stopped (SIGTERM).
    pub(crate) fn is_cancellation(self) -> bool {
        matches!(self, ExitStatus::Cancelled | ExitStatus::Terminated)
    }
}

/// An `ErrorDetail` of the spec.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ErrorDetail {
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

impl ErrorDetail {
    /// A mistake in what the caller gave, found before anything ran: not retryable
    /// as is, with the fix to make.
    pub(crate) fn invalid_input(
        code: &str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        ErrorDetail {
            code: code.into(),
            message: message.into(),
            retryable: false,
            phase: Some("validation"),
            fix_required: Some(fix.into()),
            context: None,
        }
    }
}

/// Build the envelope: `ok` is derived from the exit code, never set separately.
pub(crate) fn envelope(
    status: ExitStatus,
    data: Value,
    error: Option<ErrorDetail>,
    duration_ms: u64,
) -> Value {
    envelope_with_meta(status, data, error, duration_ms, Map::new())
}

/// [`envelope`] with extra `meta` keys (the spec leaves `meta` open), such as
/// `conform run`'s `profile`, `runs` and `extension_checks`.
pub(crate) fn envelope_with_meta(
    status: ExitStatus,
    data: Value,
    error: Option<ErrorDetail>,
    duration_ms: u64,
    extra: Map<String, Value>,
) -> Value {
    let mut meta = Map::new();
    meta.insert("exit_code".into(), status.code().into());
    meta.insert("duration_ms".into(), duration_ms.into());
    meta.insert("schema_version".into(), RESULT_SCHEMA_VERSION.into());
    meta.extend(extra);
    serde_json::json!({
        "ok": status == ExitStatus::Success,
        "data": data,
        "error": error,
        "warnings": [],
        "meta": meta,
    })
}
