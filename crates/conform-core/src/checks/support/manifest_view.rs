//! The tool's manifest as the checks read it: validated once, and the command a
//! probe's argv names.

use serde_json::Value;

use crate::checks::{schemas, Context, Judged};
use crate::manifest;
use crate::plan::{RunKind, RunRole};
use crate::profile::{Probe, ProbeKind};

/// The manifest run's `data`, when the run exited 0 with a valid envelope whose data
/// is a valid ManifestResponse.
pub(crate) fn manifest_data<'c>(
    ctx: &'c Context<'_>,
    run: &Judged<'_>,
) -> Result<&'c Value, String> {
    let envelope = ctx.envelope(run).as_ref().map_err(Clone::clone)?;
    if run.record.exit_code() != Some(0) {
        return Err(format!(
            "the manifest command {}, expected 0",
            run.describe_exit()
        ));
    }
    let data = envelope.get("data").unwrap_or(&Value::Null);
    // Validated once for every check that reads the manifest.
    let verdict = ctx.manifest_verdict.get_or_init(|| {
        let errors = schemas::manifest_errors(data);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "data is not a valid ManifestResponse: {}",
                schemas::summarize(&errors)
            ))
        }
    });
    verdict.clone().map(|()| data)
}

/// The tool's manifest for the checks that read it, validated as `manifest_valid`
/// judges it, or why those checks skip.
pub(crate) fn for_checks<'c>(ctx: &'c Context<'_>) -> Result<&'c Value, &'static str> {
    if ctx.profile.profile.manifest.is_none() {
        return Err("profile declares no manifest command");
    }
    const NO_MANIFEST: &str = "the tool gave no valid manifest (manifest_valid reports why)";
    let run = ctx
        .run(RunRole::command(RunKind::Manifest))
        .filter(Judged::finished)
        .ok_or(NO_MANIFEST)?;
    manifest_data(ctx, &run).map_err(|_| NO_MANIFEST)
}

pub(crate) use crate::manifest::command_of;

/// Each read probe that names a command of `manifest`: its index, the probe, and the
/// command's path and entry. A probe the manifest lacks is left out:
/// `profile_consistency` reports it.
pub(crate) fn read_commands<'c>(
    ctx: &'c Context<'_>,
    manifest: &'c Value,
) -> impl Iterator<Item = (usize, &'c Probe, String, &'c Value)> {
    ctx.profile
        .profile
        .probes
        .iter()
        .enumerate()
        .filter(|(_, probe)| probe.kind == ProbeKind::Read)
        .filter_map(move |(index, probe)| {
            let (path, command) = manifest::command_for(manifest, &probe.argv)?;
            Some((index, probe, path, command))
        })
}
