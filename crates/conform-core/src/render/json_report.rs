//! `conform run --json-report PATH`: conform's full report as one JSON document, a
//! superset of the envelope's ConformanceResult with every run's evidence. Its
//! schema is `schemas/json-report.schema.json` (`conform schema report`).

use std::collections::BTreeSet;

use serde_json::{json, Value};

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
        "results": results,
    })
}

/// Where this conform made its sandboxes: a tmpfs, or a disk filesystem.
fn sandboxes() -> Value {
    let root = crate::exec::sandbox_root();
    json!({
        "dir": root.dir.display().to_string(),
        "filesystem": if root.tmpfs { "tmpfs" } else { "other" },
    })
}
