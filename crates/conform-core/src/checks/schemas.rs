//! The JSON Schemas conform validates tool output against, embedded and compiled
//! once per process.
//!
//! Two layers per wire format. The base layer carries the facts of the spec's
//! published schema files, the ones the reference kit loads, so conform never passes
//! what the reference kit fails. The strict layer adds the rules the spec's prose
//! states and the published files omit. A document is valid only when both layers
//! accept it; `schemas/README.md` lists what each layer holds and why.

use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

/// Base layer: the published ResponseEnvelope's facts.
pub(crate) const RESPONSE_ENVELOPE: &str =
    include_str!("../../schemas/response-envelope.schema.json");
/// Base layer: the published ManifestResponse's facts (ExitCodeEntry bundled).
pub(crate) const MANIFEST_RESPONSE: &str =
    include_str!("../../schemas/manifest-response.schema.json");
/// Strict layer over RESPONSE_ENVELOPE.
pub(crate) const RESPONSE_ENVELOPE_STRICT: &str =
    include_str!("../../schemas/response-envelope.strict.schema.json");
/// Strict layer over MANIFEST_RESPONSE.
pub(crate) const MANIFEST_RESPONSE_STRICT: &str =
    include_str!("../../schemas/manifest-response.strict.schema.json");

/// The published ManifestResponse commit, as failure details cite it.
const PUBLISHED_MANIFEST_COMMIT: &str = "840af33";

/// CommandEntry fields that spec pages name but the published ManifestResponse does
/// not define, so its closed CommandEntry rejects them. Each with the page naming it,
/// so a failure tells the tool's author where the field came from.
const PROSE_ONLY_COMMAND_FIELDS: &[(&str, &str)] = &[
    ("supports_streaming", "REQ-O-004"),
    ("requires_confirmation", "REQ-O-021"),
    ("interruption", "REQ-C-033"),
    ("requires_person", "REQ-C-036"),
];

/// One named rule of a strict layer: an entry of the strict schema's root `allOf`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StrictRule {
    /// The rule's name (`x-rule`), e.g. `exit-code-key-range`.
    pub name: String,
    /// The spec page that states it (`x-source`).
    pub source: String,
    /// What it demands, in a sentence (`x-statement`).
    pub statement: String,
}

/// A compiled layer and, for a strict layer, its rules by `allOf` index.
struct Layer {
    validator: Validator,
    rules: Vec<StrictRule>,
}

type Compiled = Result<Layer, String>;

/// How conform compiles every schema, its own and the ones a tool declares: draft-07,
/// with formats (date-time, ...) checked, as the reference kit checks them.
fn draft7_options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::draft7::options().should_validate_formats(true)
}

/// Keywords whose values are instances, not schemas: a `$ref` key inside one is data.
const DATA_KEYWORDS: &[&str] = &["enum", "const", "default", "examples"];

/// A schema the tool declares (a command's `output_schema`), compiled as draft-07 with
/// the envelope's format checking. Only references inside the document (`#...`) are
/// followed and nothing is ever fetched: a `$ref` to anything else is refused by name
/// before compiling, and the compiler is offline besides.
pub(crate) fn compile_declared(schema: &Value) -> Result<Validator, String> {
    if let Some(reference) = non_local_ref(schema) {
        return Err(format!(
            "its $ref {} points outside the schema; only local references (\"#...\") are \
             followed, and conform fetches nothing",
            Value::from(reference)
        ));
    }
    draft7_options().offline().build(schema).map_err(|e| {
        let at = e.instance_path().to_string();
        if at.is_empty() {
            e.to_string()
        } else {
            format!("at {at}: {e}")
        }
    })
}

/// The first `$ref` of a schema that does not point inside it.
fn non_local_ref(schema: &Value) -> Option<&str> {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                if !reference.starts_with('#') {
                    return Some(reference);
                }
            }
            map.iter()
                .filter(|(key, _)| !DATA_KEYWORDS.contains(&key.as_str()))
                .find_map(|(_, value)| non_local_ref(value))
        }
        Value::Array(items) => items.iter().find_map(non_local_ref),
        _ => None,
    }
}

fn compile(text: &str) -> Compiled {
    let schema: Value =
        serde_json::from_str(text).map_err(|e| format!("embedded schema is not JSON: {e}"))?;
    let validator = draft7_options()
        .build(&schema)
        .map_err(|e| format!("embedded schema does not compile: {e}"))?;
    Ok(Layer {
        validator,
        rules: strict_rules(&schema),
    })
}

/// The named rules of a strict schema's root `allOf` (empty for a base schema).
fn strict_rules(schema: &Value) -> Vec<StrictRule> {
    let text = |rule: &Value, key: &str| {
        rule.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    schema
        .get("allOf")
        .and_then(Value::as_array)
        .map(|rules| {
            rules
                .iter()
                .map(|rule| StrictRule {
                    name: text(rule, "x-rule"),
                    source: text(rule, "x-source"),
                    statement: text(rule, "x-statement"),
                })
                .collect()
        })
        .unwrap_or_default()
}

macro_rules! layer {
    ($name:ident, $text:expr) => {
        fn $name() -> &'static Compiled {
            static LAYER: OnceLock<Compiled> = OnceLock::new();
            LAYER.get_or_init(|| compile($text))
        }
    };
}

layer!(envelope_base, RESPONSE_ENVELOPE);
layer!(envelope_strict, RESPONSE_ENVELOPE_STRICT);
layer!(manifest_base, MANIFEST_RESPONSE);
layer!(manifest_strict, MANIFEST_RESPONSE_STRICT);

/// At most this many schema errors are quoted in a failure detail.
const QUOTED_ERRORS: usize = 3;

fn instance_path(error: &ValidationError<'_>) -> String {
    let path = error.instance_path().to_string();
    if path.is_empty() {
        "<root>".to_string()
    } else {
        path
    }
}

fn base_errors(layer: &Compiled, instance: &Value) -> Vec<String> {
    match layer {
        Ok(layer) => layer
            .validator
            .iter_errors(instance)
            .map(|e| format!("{}: {e}", instance_path(&e)))
            .collect(),
        Err(e) => vec![e.clone()],
    }
}

/// Strict-layer errors, each naming the rule it breaks and the page stating it.
fn strict_errors(layer: &Compiled, instance: &Value) -> Vec<String> {
    let layer = match layer {
        Ok(layer) => layer,
        Err(e) => return vec![e.clone()],
    };
    layer
        .validator
        .iter_errors(instance)
        .map(|e| {
            let path = instance_path(&e);
            match rule_of(&e, &layer.rules) {
                Some(rule) => format!(
                    "{path}: {e}; strict rule {}: {} (stated by {}; the published schema omits it)",
                    rule.name, rule.statement, rule.source
                ),
                None => format!("{path}: {e}"),
            }
        })
        .collect()
}

/// The strict rule an error comes from: the root `allOf` entry its evaluation path
/// starts in.
fn rule_of<'r>(error: &ValidationError<'_>, rules: &'r [StrictRule]) -> Option<&'r StrictRule> {
    let mut segments = error.evaluation_path().iter();
    match (segments.next(), segments.next()) {
        (Some(LocationSegment::Property(keyword)), Some(LocationSegment::Index(index)))
            if keyword == "allOf" =>
        {
            rules.get(index)
        }
        _ => None,
    }
}

/// Base-layer errors of a ManifestResponse. A prose-only CommandEntry field gets a
/// detail of its own saying where the field comes from, instead of the validator's
/// bare "Additional properties are not allowed".
fn manifest_base_errors_explained(instance: &Value) -> Vec<String> {
    let layer = match manifest_base() {
        Ok(layer) => layer,
        Err(e) => return vec![e.clone()],
    };
    let mut out = Vec::new();
    for error in layer.validator.iter_errors(instance) {
        let path = instance_path(&error);
        match (error.kind(), is_command_entry(&error)) {
            (ValidationErrorKind::AdditionalProperties { unexpected }, true) => {
                let mut unknown = Vec::new();
                for field in unexpected {
                    match PROSE_ONLY_COMMAND_FIELDS.iter().find(|(f, _)| f == field) {
                        Some((_, page)) => out.push(format!(
                            "{path}/{field}: named by {page}'s page, but the published \
                             ManifestResponse schema ({PUBLISHED_MANIFEST_COMMIT}) does not \
                             define it; remove it"
                        )),
                        None => unknown.push(format!("'{field}'")),
                    }
                }
                // The rest keep the validator's own wording.
                let verb = if unknown.len() == 1 { "was" } else { "were" };
                if !unknown.is_empty() {
                    out.push(format!(
                        "{path}: Additional properties are not allowed ({} {verb} unexpected)",
                        unknown.join(", ")
                    ));
                }
            }
            _ => out.push(format!("{path}: {error}")),
        }
    }
    out
}

/// Whether an error's instance is a CommandEntry, `/commands/<path>`.
fn is_command_entry(error: &ValidationError<'_>) -> bool {
    let mut segments = error.instance_path().iter();
    matches!(
        (segments.next(), segments.next(), segments.next()),
        (Some(LocationSegment::Property(top)), Some(LocationSegment::Property(_)), None)
            if top == "commands"
    )
}

/// Base-layer errors of `instance` as a ResponseEnvelope: the published schema's verdict.
pub(crate) fn envelope_base_errors(instance: &Value) -> Vec<String> {
    base_errors(envelope_base(), instance)
}

/// Strict-layer errors of `instance` as a ResponseEnvelope.
pub(crate) fn envelope_strict_errors(instance: &Value) -> Vec<String> {
    strict_errors(envelope_strict(), instance)
}

/// Schema errors of `instance` as a ResponseEnvelope, both layers (empty when valid).
pub(crate) fn envelope_errors(instance: &Value) -> Vec<String> {
    let mut errors = envelope_base_errors(instance);
    errors.extend(envelope_strict_errors(instance));
    errors
}

/// Base-layer errors of `instance` as a ManifestResponse: the published schema's verdict.
pub(crate) fn manifest_base_errors(instance: &Value) -> Vec<String> {
    manifest_base_errors_explained(instance)
}

/// Strict-layer errors of `instance` as a ManifestResponse.
pub(crate) fn manifest_strict_errors(instance: &Value) -> Vec<String> {
    strict_errors(manifest_strict(), instance)
}

/// Schema errors of `instance` as a ManifestResponse, both layers (empty when valid).
pub(crate) fn manifest_errors(instance: &Value) -> Vec<String> {
    let mut errors = manifest_base_errors(instance);
    errors.extend(manifest_strict_errors(instance));
    errors
}

/// The named rules of the envelope's strict layer.
#[cfg(test)]
pub(crate) fn envelope_strict_rules() -> Vec<StrictRule> {
    envelope_strict()
        .as_ref()
        .map(|l| l.rules.clone())
        .unwrap_or_default()
}

/// The named rules of the manifest's strict layer.
#[cfg(test)]
pub(crate) fn manifest_strict_rules() -> Vec<StrictRule> {
    manifest_strict()
        .as_ref()
        .map(|l| l.rules.clone())
        .unwrap_or_default()
}

/// The first few errors joined for a detail line, with a count of the rest.
pub(crate) fn summarize(errors: &[String]) -> String {
    let mut text = errors
        .iter()
        .take(QUOTED_ERRORS)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if errors.len() > QUOTED_ERRORS {
        text.push_str(&format!("; and {} more", errors.len() - QUOTED_ERRORS));
    }
    text
}

#[cfg(test)]
mod tests;
