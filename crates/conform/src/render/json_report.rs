//! `conform run --json-report PATH`: conform's full report as one JSON document, a
//! superset of the envelope's ConformanceResult with every run's evidence. Its
//! schema is `schemas/json-report.schema.json` (`conform schema report`).

use std::collections::BTreeSet;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{json, Value};

use crate::checks::{CheckId, CATALOG};
use crate::envelope::{ExitStatus, RESULT_SCHEMA_VERSION};
use crate::result::ProfileReport;

/// The report document's JSON Schema.
pub const SCHEMA: &str = include_str!("../../schemas/json-report.schema.json");

/// The report of a `conform run` that exits with `status`.
pub fn document(
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
        "cancelled": status == ExitStatus::Cancelled,
        "duration_ms": duration_ms,
        "selected_checks": selected,
        "results": results,
    })
}

/// Where the report will go, checked before anything runs so that a typo does not
/// cost a whole run: the directory must exist.
pub fn check_destination(path: &Path) -> Result<(), String> {
    let dir = parent(path);
    if path.is_dir() {
        return Err(format!(
            "--json-report {} is a directory; name a file",
            path.display()
        ));
    }
    if !dir.is_dir() {
        return Err(format!(
            "--json-report {}: directory {} does not exist",
            path.display(),
            dir.display()
        ));
    }
    Ok(())
}

/// Write `document` to `path` whole or not at all: a temporary file beside it, then
/// a rename, so a reader never sees half a report.
pub fn write(path: &Path, document: &Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(document)
        .map_err(|e| format!("cannot serialize the report: {e}"))?;
    let dir = parent(path);
    // Readable like any file the user writes (a temporary file is 0600 by default).
    let mut file = tempfile::Builder::new()
        .prefix(".conform-report.")
        .permissions(std::fs::Permissions::from_mode(0o644))
        .tempfile_in(dir)
        .map_err(|e| format!("cannot create a file in {}: {e}", dir.display()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.write_all(b"\n"))
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    file.persist(path)
        .map_err(|e| format!("cannot write {}: {}", path.display(), e.error))?;
    Ok(())
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}
