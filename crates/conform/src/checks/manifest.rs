//! `manifest_valid`: the manifest argv exits 0 with an envelope whose `data` is a
//! ManifestResponse (REQ-O-041). Stricter than the reference, which ignores the exit code.

use serde_json::Value;

use super::envelope::parse;
use super::help::describe_exit;
use super::{schemas, CheckId, Context, Judged, Outcome};
use crate::plan::RunRole;

pub fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::ManifestValid);
    if ctx.profile.profile.manifest.is_none() {
        outcome.skip("profile declares no manifest command");
        return outcome;
    }
    let Some(run) = ctx.run(&RunRole::Manifest) else {
        return outcome;
    };
    if !outcome.completed(&run) {
        return outcome;
    }
    if let Err(detail) = manifest_data(&run) {
        outcome.fail(&run, detail);
    }
    outcome
}

/// The manifest run's `data`, when the run exited 0 with a valid envelope whose data
/// is a valid ManifestResponse.
pub fn manifest_data(run: &Judged<'_>) -> Result<Value, String> {
    let envelope = parse(run)?;
    let code = run.record.exit_code();
    if code != Some(0) {
        return Err(format!(
            "the manifest command {}, expected 0",
            describe_exit(code, run)
        ));
    }
    let data = envelope.get("data").cloned().unwrap_or(Value::Null);
    let errors = schemas::manifest_errors(&data);
    if errors.is_empty() {
        Ok(data)
    } else {
        Err(format!(
            "data is not a valid ManifestResponse: {}",
            schemas::summarize(&errors)
        ))
    }
}
