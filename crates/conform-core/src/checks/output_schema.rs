//! `output_schema_valid`: every read probe's command declares the shape of its `data`
//! as a draft-07 `output_schema`, and the data it returns on success matches it
//! (REQ-C-015). An agent plans against the manifest; a schema the data breaks is
//! worse than none.

use std::collections::BTreeMap;

use jsonschema::Validator;
use serde_json::Value;

use super::evidence::quoted;
use super::schemas;
use super::support::manifest_view;
use super::{CheckId, CheckSpec, Context, Judge, Outcome};
use crate::plan::RunKind;
use crate::profile::ProbeKind;

pub(super) const OUTPUT_SCHEMA_VALID: CheckSpec = CheckSpec {
    id: CheckId::OutputSchemaValid,
    name: "output_schema_valid",
    title:
        "Every read probe's command declares a draft-07 output_schema its data validates against",
    level: 3,
    failure_modes: &[21],
    requirements: &["REQ-C-015"],
    extension: true,
    reads: &[RunKind::Manifest, RunKind::Closed],
    judge: Judge::Alone(judge),
};

/// Characters of a validator message quoted in a detail: its message can quote the
/// whole instance, which may be all of `data`.
const SHOWN: usize = 300;

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::OutputSchemaValid);
    let manifest = match manifest_view::for_checks(ctx) {
        Ok(manifest) => manifest,
        Err(reason) => {
            outcome.skip(reason);
            return outcome;
        }
    };
    let baselines = ctx.probe_runs(RunKind::Closed, ProbeKind::Read);
    if baselines.is_empty() {
        outcome.skip("the profile has no read probe whose command's output could be judged");
        return outcome;
    }
    let probes = &ctx.profile.profile.probes;
    // Each command's schema compiled once, however many probes name it.
    let mut compiled: BTreeMap<String, Result<Validator, String>> = BTreeMap::new();
    for run in baselines {
        let Some(probe) = run.planned.role.probe_index().and_then(|p| probes.get(p)) else {
            continue;
        };
        // The declaration is judged for every read probe; its data only on success.
        outcome.runs_checked += 1;
        let Some((path, entry)) = crate::manifest::command_for(manifest, &probe.argv) else {
            outcome.fail(
                &run,
                format!(
                    "argv {} names no command of the manifest, so no output_schema \
                     describes its data (REQ-C-015; profile_consistency reports the probe)",
                    serde_json::json!(probe.argv)
                ),
            );
            continue;
        };
        let Some(schema) = entry.get("output_schema") else {
            outcome.fail(
                &run,
                format!(
                    "command {path} declares no output_schema: REQ-C-015 requires every \
                     command to declare the JSON Schema of its data (the published \
                     CommandEntry leaves it optional, so manifest_valid passes)"
                ),
            );
            continue;
        };
        let validator = match compiled
            .entry(path.clone())
            .or_insert_with(|| schemas::compile_declared(schema))
        {
            Ok(validator) => validator,
            Err(why) => {
                outcome.fail(
                    &run,
                    format!(
                        "the output_schema of command {path} does not compile as draft-07: {}",
                        bounded(why)
                    ),
                );
                continue;
            }
        };
        if !run.finished() || run.record.exit_code() != Some(0) {
            continue; // the schema describes data on success; the hang checks report a hang
        }
        let Ok(envelope) = ctx.envelope(&run) else {
            continue; // json_envelope reports what stdout is
        };
        let data = envelope.get("data").unwrap_or(&Value::Null);
        let mut errors = validator.iter_errors(data);
        let Some(first) = errors.next() else {
            continue;
        };
        let pointer = first.instance_path().to_string();
        let at = if pointer.is_empty() {
            "the root of data".to_string()
        } else {
            format!("{} of data", quoted(&pointer))
        };
        let more = match errors.count() {
            0 => String::new(),
            n => format!(" ({n} more errors)"),
        };
        outcome.fail(
            &run,
            format!(
                "data does not validate against the output_schema of command {path}: first \
                 error at {at}: {}{more}; the manifest promises agents this shape (REQ-C-015)",
                bounded(&first.to_string())
            ),
        );
    }
    outcome
}

/// At most [`SHOWN`] characters of `text`, marked when cut.
fn bounded(text: &str) -> String {
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests;
