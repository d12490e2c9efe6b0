//! `democli manifest`: the whole registry as a ManifestResponse (REQ-O-041), in the
//! shape of the spec's published `schemas/manifest-response.json` (schema 3.x: global
//! options in the root `flags`, positionals per command, closed entries that hold
//! only the fields that schema defines).

use serde_json::{json, Map, Value};

use super::{Ctx, Outcome, Reply};
use crate::codec::sha256_hex;
use crate::defect::{Defect, Faults};
use crate::desktop::TOKEN_ENV;
use crate::error::{Failure, Status};
use crate::net::{NO_PROXY_VARS, PROXY_VARS};
use crate::output::TOOL_VERSION;
use crate::output_cap::MAX_OUTPUT_ENV;
use crate::parse::Parsed;
use crate::spec::{self, Accepts, Command, Danger, Fallback, Flag, Kind, COMMANDS, ENVIRONMENTS};
use crate::store::HOME_ENV;

/// ManifestResponse version followed: the newest 3.x minor published when this was
/// written. Fields used here date from 3.0 to 3.15 (`idempotent`); `error_codes` is
/// left out rather than listed partially.
pub const MANIFEST_SCHEMA_VERSION: &str = "3.20";

pub fn run(args: &Parsed, ctx: &Ctx) -> Result<Outcome, Failure> {
    let manifest = build(ctx.ui.faults);
    let etag = manifest["etag"].as_str().unwrap_or_default().to_owned();
    let mut meta = Map::new();
    if args.text("etag") == Some(etag.as_str()) {
        meta.insert("not_modified".into(), json!(true));
        return Ok(Outcome::Reply(Box::new(Reply {
            data: Value::Null,
            meta,
            plain: format!("Manifest unchanged (etag {etag})\n"),
            committed: false,
            ..Reply::default()
        })));
    }
    let plain = render(&manifest);
    Ok(Outcome::Reply(Box::new(Reply {
        data: manifest,
        meta,
        plain,
        committed: false,
        ..Reply::default()
    })))
}

/// Build the manifest from the registry; the etag hashes everything else in it.
pub fn build(faults: Faults) -> Value {
    let mut body = Map::new();
    body.insert("flags".into(), flags(spec::GLOBAL_FLAGS));
    body.insert("env_vars".into(), env_vars());
    if faults.on(Defect::WaitsForDeviceCode) {
        body.insert("secret_env_vars".into(), json!([TOKEN_ENV]));
    }
    let commands: Map<String, Value> = COMMANDS
        .iter()
        .map(|command| (command.key.to_owned(), entry(command, faults)))
        .collect();
    body.insert("commands".into(), Value::Object(commands));

    let mut hashed = Map::new();
    hashed.insert("schema_version".into(), json!(MANIFEST_SCHEMA_VERSION));
    hashed.insert("framework_version".into(), json!(TOOL_VERSION));
    hashed.extend(body.clone());
    let etag = format!(
        "sha256:{}",
        sha256_hex(canonical(&Value::Object(hashed)).to_string().as_bytes())
    );

    let mut manifest = Map::new();
    manifest.insert("schema_version".into(), json!(MANIFEST_SCHEMA_VERSION));
    manifest.insert("framework_version".into(), json!(TOOL_VERSION));
    manifest.insert("etag".into(), json!(etag));
    manifest.extend(body);
    Value::Object(manifest)
}

fn entry(command: &Command, faults: Faults) -> Value {
    let danger = if faults.on(Defect::DeleteDeclaredSafe) && command.key == "deployments.delete" {
        Danger::Safe
    } else {
        command.danger
    };
    let mut entry = Map::new();
    entry.insert("description".into(), json!(command.description));
    entry.insert("danger_level".into(), json!(danger.as_str()));
    if !faults.on(Defect::ManifestMissingScopes) {
        entry.insert("required_scopes".into(), json!([]));
    }
    entry.insert("flags".into(), flags(command.flags));
    if command.key == "deployments.validate" {
        entry.insert(
            "stdin".into(),
            json!({ "mode": "buffered", "max_bytes": spec::VALIDATE_MAX_BYTES }),
        );
    }
    if !command.positionals.is_empty() {
        let positionals: Vec<Value> = command
            .positionals
            .iter()
            .map(|p| match p.accepts {
                // An enum positional lists its values; a pattern has no field of its
                // own in PositionalEntry, so the description states it.
                Accepts::OneOf(values) => json!({
                    "name": p.name,
                    "type": "enum",
                    "enum_values": values,
                    "required": p.required,
                    "description": p.description,
                }),
                Accepts::Pattern { .. } => json!({
                    "name": p.name,
                    "type": "string",
                    "required": p.required,
                    "description": p.description,
                }),
            })
            .collect();
        entry.insert("positionals".into(), Value::Array(positionals));
    }
    let omitted = |status: Status| {
        faults.on(Defect::ManifestOmitsExit130)
            && command.key == "deployments.list"
            && status == Status::Interrupted
    };
    let exit_codes: Map<String, Value> = command
        .exits
        .iter()
        .filter(|exit| !omitted(exit.status))
        .map(|exit| {
            let retryable = exit.retryable
                || (faults.on(Defect::ManifestRetryablePartial)
                    && exit.status == Status::Interrupted);
            (
                exit.status.code().to_string(),
                json!({
                    "name": exit.status.name(),
                    "description": exit.description,
                    "retryable": retryable,
                    "side_effects": exit.side_effects.as_str(),
                }),
            )
        })
        .collect();
    entry.insert("exit_codes".into(), Value::Object(exit_codes));
    let mut schema = output_schema(command);
    if faults.on(Defect::OutputSchemaSaysObject) && command.key == "deployments.list" {
        schema["type"] = json!("object");
    }
    entry.insert("output_schema".into(), schema);
    if command.network {
        entry.insert("has_network_io".into(), json!(true));
    }
    if !command.examples.is_empty() {
        let examples: Vec<Value> = command
            .examples
            .iter()
            .map(|e| json!({ "description": e.description, "command": e.command }))
            .collect();
        entry.insert("examples".into(), Value::Array(examples));
    }
    if command.is_group() {
        entry.insert("subcommands".into(), json!(command.subcommands));
    }
    // REQ-O-004: a command that streams by default says so. One that streams on
    // request shows it by its `stream` flag: the published CommandEntry is closed and
    // defines no `supports_streaming`, nor a `requires_confirmation` for REQ-O-021.
    if command.streaming_default {
        entry.insert("streaming_default".into(), json!(true));
    }
    if command.idempotent {
        entry.insert("idempotent".into(), json!(true));
    }
    if command.builtin {
        entry.insert("builtin".into(), json!(true));
    }
    Value::Object(entry)
}

fn flags(flags: &[Flag]) -> Value {
    let map: Map<String, Value> = flags
        .iter()
        .map(|flag| {
            let mut entry = Map::new();
            let kind = match flag.kind {
                Kind::Bool => "boolean",
                Kind::Text | Kind::Duration => "string",
                Kind::Int { .. } => "integer",
                Kind::Choice(_) => "enum",
            };
            entry.insert("type".into(), json!(kind));
            entry.insert("required".into(), json!(flag.required));
            entry.insert("description".into(), json!(flag.description));
            // An absent default is omitted, never null.
            match flag.default {
                Some(Fallback::Bool(value)) => entry.insert("default".into(), json!(value)),
                Some(Fallback::Int(value)) => entry.insert("default".into(), json!(value)),
                Some(Fallback::Text(value)) => entry.insert("default".into(), json!(value)),
                None => None,
            };
            if let Kind::Choice(values) = flag.kind {
                entry.insert("enum_values".into(), json!(values));
            }
            if let Some(short) = flag.short {
                entry.insert("short".into(), json!(short.to_string()));
            }
            if let Some(pattern) = flag.pattern {
                entry.insert("pattern".into(), json!(pattern));
            }
            (flag.name.to_owned(), Value::Object(entry))
        })
        .collect();
    Value::Object(map)
}

/// Root `env_vars`: every variable democli reads that backs no flag (REQ-F-073).
fn env_vars() -> Value {
    let mut vars = vec![
        json!({ "name": HOME_ENV, "description": "Directory holding deployments.json; defaults to $XDG_DATA_HOME/democli, else ~/.local/share/democli" }),
        json!({ "name": "XDG_DATA_HOME", "description": "Base of the default data directory when DEMOCLI_HOME is unset; DEMOCLI_HOME overrides it" }),
        json!({ "name": MAX_OUTPUT_ENV, "description": "Byte budget for one JSON envelope: list items are dropped from the end to fit, with meta.truncated, meta.truncation_hint, meta.returned_count and meta.total_count; streams are not cut" }),
    ];
    for name in PROXY_VARS {
        vars.push(json!({ "name": name, "description": "HTTP proxy for releases to reach the registry; the first set of https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY, http_proxy, HTTP_PROXY wins" }));
    }
    for name in NO_PROXY_VARS {
        vars.push(json!({ "name": name, "description": "Hosts or domains reached without the proxy (* for all); releases answers offline for them" }));
    }
    vars.push(json!({ "name": crate::defect::DEFECT_ENV, "description": "Test only: switches on one named defect for the broken-CLI corpus; leave unset" }));
    Value::Array(vars)
}

/// A draft-07 schema with local definitions, as `output_schema` carries it.
fn schema(body: Value) -> Value {
    let mut schema = Map::new();
    schema.insert(
        "$schema".into(),
        json!("http://json-schema.org/draft-07/schema#"),
    );
    if let Value::Object(body) = body {
        schema.extend(body);
    }
    schema.insert("definitions".into(), definitions());
    Value::Object(schema)
}

fn definitions() -> Value {
    json!({
        "deployment": {
            "type": "object",
            "required": ["id", "env", "service", "version", "status", "created_at"],
            "properties": {
                "id": { "type": "string", "pattern": spec::DEPLOYMENT_ID_PATTERN },
                "env": { "type": "string", "enum": ENVIRONMENTS },
                "service": { "type": "string" },
                "version": { "type": "string" },
                "status": { "type": "string", "enum": ["succeeded", "failed", "running", "rolled_back"] },
                "created_at": { "type": "string", "format": "date-time" },
            },
        },
        "event": {
            "type": "object",
            "required": ["id", "type", "deployment_id", "env", "service", "version", "occurred_at"],
            "properties": {
                "id": { "type": "string", "pattern": "^evt-[0-9]{4,}$" },
                "type": { "type": "string", "pattern": "^deployment\\.[a-z_]+$" },
                "deployment_id": { "type": "string", "pattern": spec::DEPLOYMENT_ID_PATTERN },
                "env": { "type": "string" },
                "service": { "type": "string" },
                "version": { "type": "string" },
                "occurred_at": { "type": "string", "format": "date-time" },
            },
        },
        "filter": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": false,
            "properties": {
                "env": { "type": "string" },
                "service": { "type": "string" },
                "status": { "type": "string" },
            },
        },
    })
}

/// The schema of `data` when `command` exits 0 (REQ-C-015).
fn output_schema(command: &Command) -> Value {
    let deployments = json!({ "type": "array", "items": { "$ref": "#/definitions/deployment" } });
    let body = match command.key {
        "deployments.list" => deployments,
        "deployments.get" => json!({ "$ref": "#/definitions/deployment" }),
        "deployments.validate" => json!({
            "type": "object",
            "required": ["valid", "bytes", "keys"],
            "properties": {
                "valid": { "const": true },
                "bytes": { "type": "integer", "minimum": 0 },
                "keys": { "type": "array", "items": { "type": "string" } },
            },
        }),
        "deployments.delete" => json!({
            "description": "A preview (effect would_delete, with --dry-run) or what was deleted",
            "type": "object",
            "required": ["effect", "filter", "revision"],
            "properties": {
                "effect": { "type": "string", "enum": ["would_delete", "deleted", "noop"] },
                "filter": { "$ref": "#/definitions/filter" },
                "revision": { "type": "integer", "minimum": 0 },
                "count": { "type": "integer", "minimum": 0 },
                "deleted": { "type": "array", "items": { "type": "string" } },
                "would_affect": {
                    "type": "object",
                    "required": ["count", "ids", "deployments", "reversible"],
                    "properties": {
                        "count": { "type": "integer", "minimum": 0 },
                        "ids": { "type": "array", "items": { "type": "string" } },
                        "deployments": deployments,
                        "reversible": { "type": "boolean" },
                    },
                },
            },
        }),
        "events" => json!({
            "description": "With --no-stream; a stream writes JSON lines instead",
            "type": "array",
            "items": { "$ref": "#/definitions/event" },
        }),
        "health" => json!({
            "type": "object",
            "required": ["status", "version", "store"],
            "properties": {
                "status": { "const": "ok" },
                "version": { "type": "string" },
                "store": {
                    "type": "object",
                    "required": ["path", "exists", "revision", "deployments", "events"],
                    "properties": {
                        "path": { "type": "string" },
                        "exists": { "type": "boolean" },
                        "revision": { "type": "integer", "minimum": 0 },
                        "deployments": { "type": "integer", "minimum": 0 },
                        "events": { "type": "integer", "minimum": 0 },
                    },
                },
            },
        }),
        "manifest" => json!({
            "description": "The ManifestResponse, or null when --etag matches (meta.not_modified)",
            "type": ["object", "null"],
            "required": ["schema_version", "framework_version", "etag", "commands"],
            "properties": {
                "schema_version": { "type": "string" },
                "framework_version": { "type": "string" },
                "etag": { "type": "string" },
                "commands": { "type": "object" },
            },
        }),
        "releases" => json!({
            "type": "object",
            "required": ["source", "registry", "releases"],
            "properties": {
                "source": { "description": "Where the answer came from", "enum": ["local", "registry"] },
                "registry": { "type": "string" },
                "releases": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["service", "version", "released_at", "deployment_id"],
                        "properties": {
                            "service": { "type": "string" },
                            "version": { "type": "string" },
                            "released_at": { "type": "string", "format": "date-time" },
                            "deployment_id": { "type": "string", "pattern": spec::DEPLOYMENT_ID_PATTERN },
                        },
                    },
                },
            },
        }),
        // A group runs nothing itself: only its --help succeeds, with data null.
        _ => json!({ "type": "null" }),
    };
    schema(body)
}

/// Object keys sorted at every depth, so the etag does not depend on insertion order.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key.clone(), canonical(value)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

fn render(manifest: &Value) -> String {
    let mut text = format!(
        "democli {} (manifest schema {}, etag {})\n\n",
        manifest["framework_version"].as_str().unwrap_or_default(),
        manifest["schema_version"].as_str().unwrap_or_default(),
        manifest["etag"].as_str().unwrap_or_default(),
    );
    for command in COMMANDS {
        let shown = format!("democli {}", command.display());
        text.push_str(&format!(
            "{shown:28} {:12} {}\n",
            command.danger.as_str(),
            command.description
        ));
    }
    text.push_str("\nUse --format json for the machine-readable manifest.\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etag_is_deterministic_and_tracks_content() {
        let a = build(Faults::default());
        let b = build(Faults::default());
        assert_eq!(a["etag"], b["etag"]);
        assert!(a["etag"].as_str().is_some_and(|e| e.starts_with("sha256:")));
    }

    #[test]
    fn canonical_sorts_nested_keys() {
        let value = json!({"b": 1, "a": {"d": 2, "c": [ {"f": 1, "e": 2} ]}});
        assert_eq!(
            canonical(&value).to_string(),
            r#"{"a":{"c":[{"e":2,"f":1}],"d":2},"b":1}"#
        );
    }

    #[test]
    fn probes_of_the_profile_are_consistent() {
        let manifest = build(Faults::default());
        let list = &manifest["commands"]["deployments.list"];
        assert_eq!(list["danger_level"], "safe");
        assert!(list["flags"]["stream"].is_object());
        let delete = &manifest["commands"]["deployments.delete"];
        assert_eq!(delete["danger_level"], "destructive");
        assert!(delete["flags"]["dry-run"].is_object());
        assert_eq!(manifest["commands"]["events"]["streaming_default"], true);
        assert!(list.get("streaming_default").is_none());
    }

    /// The published CommandEntry is closed: fields only the prose names would make
    /// the reference kit fail `manifest_valid`.
    #[test]
    fn commands_declare_no_prose_only_fields() {
        let manifest = build(Faults::default());
        let commands = manifest["commands"].as_object().expect("commands");
        for (key, entry) in commands {
            for field in [
                "supports_streaming",
                "requires_confirmation",
                "interruption",
                "requires_person",
            ] {
                assert!(entry.get(field).is_none(), "{key} declares {field}");
            }
        }
    }
}
