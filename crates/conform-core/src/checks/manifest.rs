//! `manifest_valid`: the manifest argv exits 0 with an envelope whose `data` is a
//! ManifestResponse (REQ-O-041). Stricter than the reference, which ignores the exit code.

use serde_json::Value;

use super::support::manifest_view::manifest_data;
use super::{CheckId, CheckSpec, Context, Judge, Outcome};
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
    judge: Judge::Alone(|ctx| judge(ctx).0),
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
