//! `manifest_valid`: the manifest argv exits 0 with an envelope whose `data` is a
//! ManifestResponse (REQ-O-041). Stricter than the reference, which ignores the exit code.

use serde_json::Value;

use super::{schemas, CheckId, CheckSpec, Context, Judged, Outcome};
use crate::plan::{RunKind, RunRole};

pub(super) const MANIFEST_VALID: CheckSpec = CheckSpec {
    id: CheckId::ManifestValid,
    name: "manifest_valid",
    title: "tool manifest returns a valid ManifestResponse",
    level: 3,
    failure_modes: &[52, 21],
    requirements: &["REQ-O-041"],
    extension: false,
    reads: &[RunKind::Manifest],
    judge: |ctx| judge(ctx).0,
};

/// Judge `manifest_valid`; also return the manifest's `data` when it is valid, for
/// the checks that read it (profile_consistency), so it is validated once.
pub(super) fn judge<'c>(ctx: &'c Context<'_>) -> (Outcome, Option<&'c Value>) {
    let mut outcome = Outcome::new(CheckId::ManifestValid);
    if ctx.profile.profile.manifest.is_none() {
        outcome.skip("profile declares no manifest command");
        return (outcome, None);
    }
    let Some(run) = ctx.run(RunRole::command(RunKind::Manifest)) else {
        return (outcome, None);
    };
    if !outcome.completed(&run) {
        return (outcome, None);
    }
    match manifest_data(ctx, &run) {
        Ok(data) => (outcome, Some(data)),
        Err(detail) => {
            outcome.fail(&run, detail);
            (outcome, None)
        }
    }
}

/// The manifest run's `data`, when the run exited 0 with a valid envelope whose data
/// is a valid ManifestResponse.
fn manifest_data<'c>(ctx: &'c Context<'_>, run: &Judged<'_>) -> Result<&'c Value, String> {
    let envelope = ctx.envelope(run).as_ref().map_err(Clone::clone)?;
    if run.record.exit_code() != Some(0) {
        return Err(format!(
            "the manifest command {}, expected 0",
            run.describe_exit()
        ));
    }
    let data = envelope.get("data").unwrap_or(&Value::Null);
    let errors = schemas::manifest_errors(data);
    if errors.is_empty() {
        Ok(data)
    } else {
        Err(format!(
            "data is not a valid ManifestResponse: {}",
            schemas::summarize(&errors)
        ))
    }
}

/// The tool's manifest for the checks that read it, validated as `manifest_valid`
/// judges it, or why those checks skip.
pub(super) fn for_checks<'c>(ctx: &'c Context<'_>) -> Result<&'c Value, &'static str> {
    if ctx.profile.profile.manifest.is_none() {
        return Err("profile declares no manifest command");
    }
    judge(ctx)
        .1
        .ok_or("the tool gave no valid manifest (manifest_valid reports why)")
}
