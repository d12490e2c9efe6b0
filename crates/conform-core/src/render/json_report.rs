//! `conform run --json-report PATH`: conform's full report as one JSON document, a
//! superset of the envelope's ConformanceResult with every run's evidence. Its
//! schema is `schemas/json-report.schema.json` (`conform schema report`).

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::show::causes;
use crate::checks::{CheckId, CATALOG};
use crate::envelope::{ExitStatus, RESULT_SCHEMA_VERSION};
use crate::result::ProfileReport;

/// The report document's JSON Schema.
pub(crate) const SCHEMA: &str = include_str!("../../schemas/json-report.schema.json");

/// The report of a `conform run` that exits with `status`.
pub(crate) fn document(
    results: &[ProfileReport],
    selected: &BTreeSet<CheckId>,
    status: ExitStatus,
    duration_ms: u64,
) -> Value {
    let selected: Vec<&str> = CATALOG
        .iter()
        .filter(|spec| selected.contains(&spec.id))
        .map(|spec| spec.name)
        .collect();
    json!({
        "schema_version": RESULT_SCHEMA_VERSION,
        "conform_version": env!("CARGO_PKG_VERSION"),
        "exit_code": status.code(),
        "cancelled": status.is_cancellation(),
        "duration_ms": duration_ms,
        "selected_checks": selected,
        "sandboxes": sandboxes(),
        "results": results.iter().map(with_causes).collect::<Vec<_>>(),
    })
}

/// A profile's report with its shared causes (`show::causes`): the list under
/// `causes`, and on each failure whose run is one of them, its `cause` id.
fn with_causes(result: &ProfileReport) -> Value {
    let causes = causes::causes(&result.checks);
    let mut value = serde_json::to_value(result).unwrap_or(Value::Null);
    let checks = value.get_mut("checks").and_then(Value::as_array_mut);
    for (report, check) in result.checks.iter().zip(checks.into_iter().flatten()) {
        let failures = check.get_mut("failures").and_then(Value::as_array_mut);
        for (failure, entry) in report
            .check
            .failures
            .iter()
            .zip(failures.into_iter().flatten())
        {
            if let (Some(cause), Some(entry)) = (
                causes::cause_of(&causes, &failure.run),
                entry.as_object_mut(),
            ) {
                entry.insert("cause".into(), json!(cause.id));
            }
        }
    }
    if let Some(object) = value.as_object_mut() {
        object.insert("causes".into(), json!(causes));
    }
    value
}

/// Where this conform made its sandboxes: a tmpfs, or a disk filesystem.
fn sandboxes() -> Value {
    let root = crate::exec::sandbox_root();
    json!({
        "dir": root.dir.display().to_string(),
        "filesystem": if root.tmpfs { "tmpfs" } else { "other" },
    })
}
