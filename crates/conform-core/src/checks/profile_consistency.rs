//! `profile_consistency` (extension): the profile's probes agree with the tool's own
//! manifest. Catches the seed's "marking a mutating command as read": read probes run
//! several times, so a read probe that names a destructive command acts repeatedly.

use serde_json::{Map, Value};

use super::evidence::quoted;
use super::support::manifest_view;
use super::{CheckId, CheckSpec, Context, Judge, Outcome};
use crate::plan::{RunKind, RunRole};
use crate::profile::{Probe, ProbeKind};

pub(super) const PROFILE_CONSISTENCY: CheckSpec = CheckSpec {
    id: CheckId::ProfileConsistency,
    name: "profile_consistency",
    title: "Probes name manifest commands whose danger level and streaming match the probe kind",
    level: 3,
    failure_modes: &[23, 52, 5, 76],
    requirements: &["REQ-C-002", "REQ-C-004", "REQ-O-004"],
    extension: true,
    reads: &[RunKind::Manifest],
    judge: Judge::Alone(judge),
};

/// Judged on the manifest `manifest_valid` accepted (validated again: it is cheap,
/// and keeps each check's judge standalone).
fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::ProfileConsistency);
    let manifest = match manifest_view::for_checks(ctx) {
        Ok(manifest) => manifest,
        Err(reason) => {
            outcome.skip(reason);
            return outcome;
        }
    };
    let Some(run) = ctx.run(RunRole::command(RunKind::Manifest)) else {
        outcome.skip("the manifest run was not made");
        return outcome;
    };
    let empty = Map::new();
    let commands = manifest
        .get("commands")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let root_flags = manifest
        .get("flags")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let compared: Vec<&Probe> = ctx
        .profile
        .profile
        .probes
        .iter()
        .filter(|probe| probe.kind != ProbeKind::Invalid)
        .collect();
    if compared.is_empty() {
        outcome.skip(
            "the profile has no read, destructive or stream probe to compare with the manifest",
        );
        return outcome;
    }
    outcome.runs_checked += 1;
    for probe in compared {
        if let Err(detail) = consistent(probe, commands, root_flags) {
            outcome.fail(
                &run,
                format!(
                    "probe {} ({}): {detail}",
                    quoted(&probe.name),
                    probe.kind.as_str()
                ),
            );
        }
    }
    outcome
}

/// The manifest command a probe names: the longest prefix of its non-option
/// arguments that is a command path (`deployments.list`).
fn named_command<'m>(
    probe: &Probe,
    commands: &'m Map<String, Value>,
) -> Option<(String, &'m Value)> {
    manifest_view::command_of(&probe.argv, commands)
}

fn consistent(
    probe: &Probe,
    commands: &Map<String, Value>,
    root_flags: &Map<String, Value>,
) -> Result<(), String> {
    let Some((path, entry)) = named_command(probe, commands) else {
        return Err(format!(
            "argv {} names no command of the manifest (commands: {})",
            serde_json::json!(probe.argv),
            commands
                .keys()
                .take(12)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    };
    let danger = entry
        .get("danger_level")
        .and_then(Value::as_str)
        .unwrap_or("missing");
    let flags = entry.get("flags").and_then(Value::as_object);
    let has_flag = |name: &str| {
        let bare = name.trim_start_matches('-');
        flags.is_some_and(|f| f.contains_key(bare)) || root_flags.contains_key(bare)
    };
    match probe.kind {
        ProbeKind::Read | ProbeKind::Stream if danger != "safe" => Err(format!(
            "names {path}, whose danger_level is {danger}; {} probes run several times and must name safe commands",
            probe.kind.as_str()
        )),
        ProbeKind::Destructive if danger != "destructive" => Err(format!(
            "names {path}, whose danger_level is {danger}, not destructive: the manifest and the profile disagree on what deletes"
        )),
        ProbeKind::Destructive => match &probe.dry_run_flag {
            Some(flag) if !has_flag(flag) => Err(format!(
                "names {path}, whose flags do not include its dry_run_flag {flag} (REQ-C-004: destructive commands declare their preview flag)"
            )),
            _ => Ok(()),
        },
        ProbeKind::Stream => {
            let streaming = entry.get("streaming_default") == Some(&Value::Bool(true)) || has_flag("stream");
            if streaming {
                Ok(())
            } else {
                Err(format!("names {path}, which declares neither streaming_default nor a stream flag (REQ-O-004)"))
            }
        }
        _ => Ok(()),
    }
}
