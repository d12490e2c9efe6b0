//! conform's own output: one ResponseEnvelope per invocation, as the CLI Agent Spec
//! asks of every agent-ready tool (conform passes its own profile).

use serde::Serialize;
use serde_json::{Map, Value};

pub use crate::exit::ExitStatus;

/// Version of conform's envelope and result documents.
pub(crate) const RESULT_SCHEMA_VERSION: &str = "1.0";

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
    // The build that wrote it, as `--version` prints it (REQ-F-023).
    meta.insert("tool_version".into(), env!("CARGO_PKG_VERSION").into());
    meta.extend(extra);
    serde_json::json!({
        "ok": status == ExitStatus::Success,
        "data": data,
        "error": error,
        "warnings": [],
        "meta": meta,
    })
}
