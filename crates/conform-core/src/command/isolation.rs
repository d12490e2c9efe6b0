//! `--network namespace`: the black hole, and nothing less. For a user who would
//! rather fail than let a tool that ignores the proxy variables reach the network.

use serde_json::{json, Value};

use super::output::report_error;
use super::Output;
use crate::envelope::{ErrorDetail, ExitStatus};
use crate::exec::{isolation, Isolation};

/// The error code of a refusal to run without a namespace.
const NO_NAMESPACE: &str = "NETWORK_NAMESPACE_UNAVAILABLE";

/// `None` where this process gives its black-hole runs a network namespace; else
/// the error, reported (exit 1, nothing ran), naming the cause and the fix.
pub fn require_namespace(out: &Output) -> Option<ExitStatus> {
    let Isolation::ProxyOnly { reason, remedy } = isolation() else {
        return None;
    };
    let detail = ErrorDetail {
        code: NO_NAMESPACE.into(),
        message: format!(
            "--network namespace: no network namespace can be made here ({reason}); nothing ran. To allow one: {remedy}"
        ),
        retryable: false,
        phase: Some("preflight"),
        fix_required: Some(remedy.clone()),
        context: Some(json!({ "cause": reason, "remedy": remedy })),
    };
    Some(report_error(
        ExitStatus::GeneralError,
        detail,
        Value::Null,
        out.json,
        out.started,
    ))
}
