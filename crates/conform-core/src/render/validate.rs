//! Rendering the result of `conform validate`.

use serde_json::{json, Value};

use super::style::Style;
use crate::envelope::{envelope, ErrorDetail, ExitStatus};
use crate::profile::{LoadedProfile, ProfileError};

/// The outcome of validating each named profile.
pub(crate) struct ValidateReport {
    pub outcomes: Vec<Result<LoadedProfile, ProfileError>>,
}

impl ValidateReport {
    pub(crate) fn status(&self) -> ExitStatus {
        if self.outcomes.iter().all(Result::is_ok) {
            ExitStatus::Success
        } else {
            ExitStatus::InvalidInput
        }
    }

    pub(crate) fn violation_count(&self) -> usize {
        self.outcomes
            .iter()
            .filter_map(|o| o.as_ref().err())
            .map(|e| e.violations.len())
            .sum()
    }
}

fn valid_entry(p: &LoadedProfile) -> Value {
    json!({
        "profile": p.path.display().to_string(),
        "valid": true,
        "tool": p.profile.tool,
        "program": p.program.display().to_string(),
        "probes": p.profile.probes.len(),
    })
}

/// Every violation of every invalid profile, flattened, each naming its profile.
pub(crate) fn violations_json(errors: &[&ProfileError]) -> Vec<Value> {
    errors
        .iter()
        .flat_map(|e| {
            e.violations.iter().map(move |v| {
                let mut entry = json!({ "profile": e.path.display().to_string() });
                if let (Some(obj), Ok(Value::Object(fields))) =
                    (entry.as_object_mut(), serde_json::to_value(v))
                {
                    obj.extend(fields);
                }
                entry
            })
        })
        .collect()
}

/// The `INVALID_PROFILE` error detail shared by `validate` and `run`.
pub(crate) fn invalid_profile_error(errors: &[&ProfileError]) -> ErrorDetail {
    let count: usize = errors.iter().map(|e| e.violations.len()).sum();
    let first = errors
        .iter()
        .flat_map(|e| e.violations.iter().map(move |v| (e, v)))
        .next()
        .map(|(e, v)| {
            let at = if v.pointer.is_empty() {
                String::new()
            } else {
                format!(" at {}", v.pointer)
            };
            format!(": {}{at}: {}", e.path.display(), v.message)
        })
        .unwrap_or_default();
    let more = if count > 1 {
        format!(" (and {} more)", count - 1)
    } else {
        String::new()
    };
    ErrorDetail {
        code: "INVALID_PROFILE".into(),
        message: format!(
            "{count} profile violation{}{first}{more}",
            if count == 1 { "" } else { "s" }
        ),
        retryable: false,
        phase: Some("validation"),
        fix_required: Some(
            "Correct each violation listed in error.context.violations; nothing was run".into(),
        ),
        context: Some(json!({ "violations": violations_json(errors) })),
    }
}

pub(crate) fn to_envelope(report: &ValidateReport, duration_ms: u64) -> Value {
    let status = report.status();
    let errors: Vec<&ProfileError> = report
        .outcomes
        .iter()
        .filter_map(|o| o.as_ref().err())
        .collect();
    if errors.is_empty() {
        let profiles: Vec<Value> = report
            .outcomes
            .iter()
            .filter_map(|o| o.as_ref().ok())
            .map(valid_entry)
            .collect();
        envelope(status, json!({ "profiles": profiles }), None, duration_ms)
    } else {
        envelope(
            status,
            Value::Null,
            Some(invalid_profile_error(&errors)),
            duration_ms,
        )
    }
}

/// Readable diagnostics, compiler style: `path:line:column: pointer: message` + fix.
pub(crate) fn to_text(report: &ValidateReport, style: Style) -> String {
    let mut out = String::new();
    for outcome in &report.outcomes {
        match outcome {
            Ok(p) => out.push_str(&format!(
                "{} {}: valid ({} probe{}, runs {})\n",
                style.green("ok"),
                p.path.display(),
                p.profile.probes.len(),
                if p.profile.probes.len() == 1 { "" } else { "s" },
                p.program.display()
            )),
            Err(e) => out.push_str(&violations_text(e, style)),
        }
    }
    let count = report.violation_count();
    if count > 0 {
        out.push_str(&format!(
            "\n{} {count} violation{}; nothing was run\n",
            style.red("invalid:"),
            if count == 1 { "" } else { "s" }
        ));
    }
    out
}

pub(crate) fn violations_text(e: &ProfileError, style: Style) -> String {
    let mut out = String::new();
    for v in &e.violations {
        let mut location = e.path.display().to_string();
        if let (Some(line), Some(column)) = (v.line, v.column) {
            location.push_str(&format!(":{line}:{column}"));
        }
        if !v.pointer.is_empty() {
            location.push_str(&format!(": {}", style.bold(&v.pointer)));
        }
        out.push_str(&format!(
            "{} {location}: {}\n",
            style.red("error"),
            v.message
        ));
        out.push_str(&format!("  {} {}\n", style.dim("fix:"), v.fix));
    }
    out
}
