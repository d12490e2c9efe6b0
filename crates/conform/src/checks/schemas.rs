//! The JSON Schemas conform validates tool output against, embedded and compiled
//! once per process.

use std::sync::OnceLock;

use jsonschema::Validator;
use serde_json::Value;

pub const RESPONSE_ENVELOPE: &str = include_str!("../../schemas/response-envelope.schema.json");
pub const MANIFEST_RESPONSE: &str = include_str!("../../schemas/manifest-response.schema.json");

fn compile(text: &str) -> Result<Validator, String> {
    let schema: Value =
        serde_json::from_str(text).map_err(|e| format!("embedded schema is not JSON: {e}"))?;
    // Formats (date-time, ...) are checked, as the reference kit checks them.
    jsonschema::draft7::options()
        .should_validate_formats(true)
        .build(&schema)
        .map_err(|e| format!("embedded schema does not compile: {e}"))
}

fn envelope_validator() -> &'static Result<Validator, String> {
    static VALIDATOR: OnceLock<Result<Validator, String>> = OnceLock::new();
    VALIDATOR.get_or_init(|| compile(RESPONSE_ENVELOPE))
}

fn manifest_validator() -> &'static Result<Validator, String> {
    static VALIDATOR: OnceLock<Result<Validator, String>> = OnceLock::new();
    VALIDATOR.get_or_init(|| compile(MANIFEST_RESPONSE))
}

/// At most this many schema errors are quoted in a failure detail.
const QUOTED_ERRORS: usize = 3;

fn errors(validator: &Result<Validator, String>, instance: &Value) -> Vec<String> {
    match validator {
        Ok(v) => v
            .iter_errors(instance)
            .map(|e| {
                let path = e.instance_path().to_string();
                let path = if path.is_empty() {
                    "<root>".to_string()
                } else {
                    path
                };
                format!("{path}: {e}")
            })
            .collect(),
        Err(e) => vec![e.clone()],
    }
}

/// Schema errors of `instance` as a ResponseEnvelope (empty when valid).
pub fn envelope_errors(instance: &Value) -> Vec<String> {
    errors(envelope_validator(), instance)
}

/// Schema errors of `instance` as a ManifestResponse (empty when valid).
pub fn manifest_errors(instance: &Value) -> Vec<String> {
    errors(manifest_validator(), instance)
}

/// The first few errors joined for a detail line, with a count of the rest.
pub fn summarize(errors: &[String]) -> String {
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
