//! `output_schema_valid` on synthetic records: a manifest run and read probes'
//! baselines, each written as a test says.

use serde_json::{json, Value};

use crate::checks::skips::{assert_passed, assert_skipped, judged, judged_with, write};
use crate::checks::{CheckId, Outcome, Status};
use crate::plan::RunKind;

/// A profile with a manifest command, one read probe naming the `list` command and
/// one invalid probe.
const PROFILE: &str = r#"{
    "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
    "manifest": ["manifest"],
    "probes": [
        { "name": "list", "argv": ["list"], "kind": "read" },
        { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" }
    ]
}"#;

/// An item schema with a pattern and a format, so that both are seen to be checked.
fn item_schema() -> Value {
    json!({
        "type": "object",
        "required": ["id"],
        "properties": {
            "id": { "type": "string", "pattern": "^dep-[0-9]+$" },
            "created_at": { "type": "string", "format": "date-time" }
        }
    })
}

/// `data` in a success envelope.
fn envelope(data: &Value) -> String {
    json!({
        "ok": true, "data": data, "error": null, "warnings": [],
        "meta": { "exit_code": 0, "duration_ms": 0, "schema_version": "1.0" }
    })
    .to_string()
}

/// A valid ManifestResponse whose `list` command declares `output_schema` (none when
/// it is None).
fn manifest(output_schema: Option<Value>) -> Value {
    let mut list = json!({
        "description": "List deployments",
        "danger_level": "safe",
        "required_scopes": [],
        "flags": {},
        "exit_codes": {
            "0": { "name": "SUCCESS", "description": "Listed", "retryable": false, "side_effects": "none" }
        }
    });
    if let Some(schema) = output_schema {
        list["output_schema"] = schema;
    }
    json!({
        "schema_version": "3.0",
        "framework_version": "1.0.0",
        "etag": "sha256:a3f9c1",
        "commands": { "list": list }
    })
}

/// The check over [`PROFILE`]: the manifest run prints `manifest`, the read probe's
/// baseline prints `data` in an envelope.
fn judge(manifest: &Value, data: &Value) -> Outcome {
    let (manifest, data) = (envelope(manifest), envelope(data));
    judged_with(
        PROFILE,
        CheckId::OutputSchemaValid,
        |run, record| match run.role.kind {
            RunKind::Manifest => write(record, &manifest),
            _ => write(record, &data),
        },
    )
}

fn only_detail(outcome: &Outcome) -> &str {
    assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
    assert_eq!(outcome.failures.len(), 1, "{outcome:#?}");
    assert_eq!(outcome.runs_checked, 1, "{outcome:#?}");
    &outcome.failures[0].detail
}

#[test]
fn data_that_matches_its_declared_schema_passes() {
    let schema = json!({ "type": "array", "items": item_schema() });
    let data = json!([{ "id": "dep-001", "created_at": "2024-05-01T12:00:00Z" }]);
    assert_passed(&judge(&manifest(Some(schema)), &data), 1);
}

#[test]
fn extra_keys_the_schema_leaves_open_pass() {
    // The guard: additionalProperties is not stated, so any other key is allowed.
    let schema = json!({ "type": "array", "items": item_schema() });
    let data = json!([{ "id": "dep-001", "region": "eu-west-1", "labels": { "team": 7 } }]);
    assert_passed(&judge(&manifest(Some(schema)), &data), 1);
}

#[test]
fn a_local_ref_is_followed() {
    let schema = json!({
        "definitions": { "item": item_schema() },
        "type": "array",
        "items": { "$ref": "#/definitions/item" },
        "examples": [{ "$ref": "https://example.com/an-example-not-a-reference" }]
    });
    assert_passed(
        &judge(&manifest(Some(schema.clone())), &json!([{ "id": "dep-1" }])),
        1,
    );
    let outcome = judge(&manifest(Some(schema)), &json!([{ "id": "x" }]));
    assert!(only_detail(&outcome).contains(r#""/0/id" of data"#));
}

#[test]
fn a_missing_output_schema_fails_naming_the_command() {
    let outcome = judge(&manifest(None), &json!([]));
    let detail = only_detail(&outcome);
    assert!(
        detail.starts_with("command list declares no output_schema"),
        "{detail}"
    );
    assert!(detail.contains("REQ-C-015"), "{detail}");
}

#[test]
fn a_schema_that_does_not_compile_fails_with_the_compile_error() {
    let schema = json!({ "type": "array", "items": { "type": "objec" } });
    let outcome = judge(&manifest(Some(schema)), &json!([]));
    let detail = only_detail(&outcome);
    assert!(
        detail.starts_with(
            "the output_schema of command list does not compile as draft-07: at /items: "
        ),
        "{detail}"
    );
    assert!(detail.contains(r#"{"type":"objec"}"#), "{detail}");
}

#[test]
fn a_non_local_ref_fails_and_is_never_fetched() {
    for reference in [
        "https://example.com/deployments.json",
        "items.json#/definitions/item",
        "file:///etc/passwd",
    ] {
        let schema = json!({ "type": "array", "items": { "$ref": reference } });
        let outcome = judge(&manifest(Some(schema)), &json!([]));
        let detail = only_detail(&outcome);
        assert!(
            detail.contains(&format!(
                "its $ref \"{reference}\" points outside the schema"
            )),
            "{detail}"
        );
    }
    // Hidden where the pre-scan does not look (a property named `default`), the
    // offline compiler still refuses it.
    let schema = json!({
        "type": "object",
        "properties": { "default": { "$ref": "https://example.com/x.json" } }
    });
    let outcome = judge(&manifest(Some(schema)), &json!({}));
    let detail = only_detail(&outcome);
    assert!(
        detail.starts_with("the output_schema of command list does not compile as draft-07"),
        "{detail}"
    );
}

#[test]
fn data_the_schema_rejects_fails_naming_the_first_error_pointer() {
    // The broken democli's defect: the schema says object, data is an array.
    let schema = item_schema();
    let outcome = judge(&manifest(Some(schema)), &json!([{ "id": "dep-001" }]));
    let detail = only_detail(&outcome);
    assert!(
        detail.starts_with(
            "data does not validate against the output_schema of command list: first error at the root of data: "
        ),
        "{detail}"
    );
    assert!(detail.contains(r#"is not of type "object""#), "{detail}");

    // Formats are checked as json_envelope checks them; the rest are counted.
    let schema = json!({ "type": "array", "items": item_schema() });
    let data = json!([
        { "id": "dep-001", "created_at": "yesterday" },
        { "id": "nope" },
        { "id": 3 }
    ]);
    let outcome = judge(&manifest(Some(schema)), &data);
    let detail = only_detail(&outcome);
    assert!(
        detail.contains(
            r#"first error at "/0/created_at" of data: "yesterday" is not a "date-time""#
        ),
        "{detail}"
    );
    assert!(detail.contains("(2 more errors)"), "{detail}");
}

#[test]
fn a_long_error_message_is_cut() {
    let schema = json!({ "type": "object" });
    let data = json!(vec!["x".repeat(100); 50]);
    let outcome = judge(&manifest(Some(schema)), &data);
    let detail = only_detail(&outcome);
    assert!(detail.len() < 600, "{detail}");
    assert!(detail.contains("...; the manifest promises"), "{detail}");
}

#[test]
fn data_is_judged_only_on_success() {
    // A schema the data breaks, on a baseline that exited 1: the declaration is
    // judged, the data is not.
    let (listing, data) = (
        envelope(&manifest(Some(item_schema()))),
        envelope(&json!([])),
    );
    let outcome = judged_with(
        PROFILE,
        CheckId::OutputSchemaValid,
        |run, record| match run.role.kind {
            RunKind::Manifest => write(record, &listing),
            _ => {
                record.exit = crate::exec::Exit::Code(1);
                write(record, &data);
            }
        },
    );
    assert_passed(&outcome, 1);
}

#[test]
fn skips_without_a_manifest_or_a_read_probe() {
    let outcome = judged(CheckId::OutputSchemaValid, |_, _| {});
    assert_skipped(&outcome, "profile declares no manifest command");

    let no_read = PROFILE.replace(
        r#"{ "name": "list", "argv": ["list"], "kind": "read" },"#,
        "",
    );
    let listing = envelope(&manifest(Some(item_schema())));
    let outcome = judged_with(&no_read, CheckId::OutputSchemaValid, |run, record| {
        if run.role.kind == RunKind::Manifest {
            write(record, &listing);
        }
    });
    assert_skipped(&outcome, "the profile has no read probe");

    // A manifest that is not valid: manifest_valid reports it.
    let outcome = judged_with(PROFILE, CheckId::OutputSchemaValid, |_, record| {
        write(record, &envelope(&json!({ "commands": {} })));
    });
    assert_skipped(&outcome, "the tool gave no valid manifest");
}
