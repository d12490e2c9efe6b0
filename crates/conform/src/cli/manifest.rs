//! conform's own ManifestResponse, derived from the clap definitions so that it can
//! never drift from the real command line.

use clap::{Arg, ArgAction, Command, CommandFactory};
use serde_json::{json, Map, Value};

use conform_core::ExitStatus;

use super::args::Cli;

/// The manifest format version this follows.
const MANIFEST_SCHEMA_VERSION: &str = "3.20";

/// Every exit code conform can return, from the one list the binary exits with.
fn exit_codes() -> Value {
    let codes: Map<String, Value> = ExitStatus::ALL
        .iter()
        .map(|status| {
            let side_effects = if *status == ExitStatus::Success {
                "complete"
            } else {
                "none"
            };
            (
                status.code().to_string(),
                json!({
                    "name": status.name(),
                    "description": status.describe(),
                    "retryable": status.retryable(),
                    "side_effects": side_effects,
                }),
            )
        })
        .collect();
    Value::Object(codes)
}

/// `init` overwrites an existing profile file (with --yes; --dry-run previews).
/// `run` changes nothing of its own: the report files it writes are outputs the
/// caller names, as a read command's --output is, and a profile's probes are the
/// tool's commands, whose danger levels the tool's own manifest declares. So its
/// results can be streamed by a `stream` probe, which must name a safe command.
fn danger_level(name: &str) -> &'static str {
    match name {
        "init" => "destructive",
        _ => "safe",
    }
}

/// `completions` prints a shell script, never an envelope: its stdout is a protocol
/// channel (REQ-C-032).
fn stdout_protocol(name: &str) -> Option<&'static str> {
    match name {
        "completions" => Some("shell-completion"),
        _ => None,
    }
}

/// The JSON Schema of a command's `data` on success (REQ-C-015), or None for a
/// command whose stdout is never an envelope. Each names what every success holds;
/// objects stay open, so a field added later breaks no reader.
fn output_schema(name: &str) -> Option<Value> {
    let profile = json!({
        "type": "object",
        "required": ["schema_version", "tool", "command", "probes"],
        "properties": {
            "tool": { "type": "string" },
            "command": { "type": "array", "items": { "type": "string" } },
            "probes": { "type": "array", "items": { "type": "object" } }
        }
    });
    let schema = match name {
        "validate" => json!({
            "type": "object",
            "required": ["profiles"],
            "properties": { "profiles": { "type": "array", "items": {
                "type": "object",
                "required": ["profile", "valid"],
                "properties": {
                    "profile": { "type": "string" },
                    "valid": { "type": "boolean" },
                    "tool": { "type": "string" },
                    "program": { "type": "string" },
                    "probes": { "type": "integer", "minimum": 0 }
                }
            } } }
        }),
        // One profile gives its ConformanceResult, several a list of them.
        "run" | "check" | "merge" => json!({
            "definitions": { "result": {
                "type": "object",
                "required": ["schema_version", "tool", "levels", "summary", "checks"],
                "properties": {
                    "tool": { "type": "string" },
                    "levels": { "type": "object" },
                    "summary": { "type": "object" },
                    "checks": { "type": "array", "items": { "type": "object" } }
                }
            } },
            "anyOf": [
                { "$ref": "#/definitions/result" },
                {
                    "type": "object",
                    "required": ["results"],
                    "properties": { "results": {
                        "type": "array", "items": { "$ref": "#/definitions/result" }
                    } }
                }
            ]
        }),
        // The catalog, or with --requirements the requirement map.
        "checks" => json!({
            "type": "object",
            "anyOf": [
                { "required": ["checks"], "properties": { "checks": { "type": "array", "items": {
                    "type": "object",
                    "required": ["id", "title", "level", "requirements", "extension"],
                    "properties": {
                        "id": { "type": "string" },
                        "title": { "type": "string" },
                        "level": { "type": "integer", "minimum": 1, "maximum": 3 },
                        "requirements": { "type": "array", "items": { "type": "string" } },
                        "extension": { "type": "boolean" }
                    }
                } } } },
                { "required": ["judged", "total", "requirements"], "properties": {
                    "judged": { "type": "integer" },
                    "total": { "type": "integer" },
                    "requirements": { "type": "array", "items": { "type": "object" } }
                } }
            ]
        }),
        "manifest" => json!({
            "type": "object",
            "required": ["schema_version", "framework_version", "etag", "commands"],
            "properties": {
                "schema_version": { "type": "string" },
                "commands": { "type": "object", "additionalProperties": { "type": "object" } }
            }
        }),
        // Without --output the profile itself; with it, what was (or would be)
        // written; with --vscode, the editor files.
        "init" => json!({
            "type": "object",
            "definitions": { "profile": profile },
            "anyOf": [
                { "$ref": "#/definitions/profile" },
                {
                    "required": ["path", "written", "profile"],
                    "properties": {
                        "path": { "type": "string" },
                        "written": { "type": "boolean" },
                        "profile": { "$ref": "#/definitions/profile" }
                    }
                },
                {
                    "required": ["settings", "schema", "entry", "settings_existed", "written"],
                    "properties": {
                        "settings": { "type": "string" },
                        "schema": { "type": "string" },
                        "entry": { "type": "object" },
                        "settings_existed": { "type": "boolean" },
                        "written": { "type": "boolean" }
                    }
                }
            ]
        }),
        // One run made again, beside what the report recorded of it.
        "replay" => json!({
            "type": "object",
            "required": ["run", "probe", "argv", "recorded", "replayed", "same_exit"],
            "properties": {
                "run": { "type": "integer", "minimum": 0 },
                "probe": { "type": "string" },
                "argv": { "type": "array", "items": { "type": "string" } },
                "recorded": { "type": "object" },
                "replayed": { "type": "object" },
                "same_exit": { "type": "boolean" }
            }
        }),
        // A JSON Schema document: the profile format or the --json-report document.
        "schema" => json!({
            "type": "object",
            "required": ["$schema"],
            "properties": { "$schema": { "type": "string" } }
        }),
        _ => return None,
    };
    Some(schema)
}

fn flag_entry(arg: &Arg) -> Value {
    let takes_value = matches!(arg.get_action(), ArgAction::Set | ArgAction::Append);
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .map(|v| v.get_name().to_string())
        .collect();
    // Convention of cli/args.rs: integer options are named `N` (or `SECONDS`).
    let integer = arg
        .get_value_names()
        .is_some_and(|names| names.iter().any(|n| n == "N" || n == "SECONDS"));
    let kind = if !takes_value {
        "boolean"
    } else if matches!(arg.get_action(), ArgAction::Append) {
        "array"
    } else if !values.is_empty() {
        "enum"
    } else if integer {
        "integer"
    } else {
        "string"
    };
    let mut entry = Map::new();
    entry.insert("type".into(), json!(kind));
    entry.insert("required".into(), json!(arg.is_required_set()));
    entry.insert(
        "description".into(),
        json!(arg.get_help().map(|h| h.to_string()).unwrap_or_default()),
    );
    if kind == "enum" {
        entry.insert("enum_values".into(), json!(values));
    }
    if let Some(default) = arg.get_default_values().first() {
        entry.insert("default".into(), json!(default.to_string_lossy()));
    }
    if let Some(short) = arg.get_short() {
        entry.insert("short".into(), json!(short.to_string()));
    }
    Value::Object(entry)
}

fn is_builtin(arg: &Arg) -> bool {
    matches!(arg.get_id().as_str(), "help" | "version") || arg.is_global_set()
}

fn command_entry(command: &Command) -> Value {
    let mut flags = Map::new();
    let mut positionals = Vec::new();
    for arg in command.get_arguments().filter(|a| !is_builtin(a)) {
        match arg.get_long() {
            Some(long) => {
                flags.insert(long.to_string(), flag_entry(arg));
            }
            None => positionals.push(json!({
                "name": arg.get_id().as_str(),
                "type": "string",
                "required": arg.is_required_set(),
                "description": arg.get_help().map(|h| h.to_string()).unwrap_or_default(),
                "variadic": matches!(arg.get_action(), ArgAction::Append),
            })),
        }
    }
    let mut entry = json!({
        "description": command.get_about().map(|a| a.to_string()).unwrap_or_default(),
        "danger_level": danger_level(command.get_name()),
        "required_scopes": [],
        "flags": flags,
        "positionals": positionals,
        "exit_codes": exit_codes(),
    });
    if let Some(schema) = output_schema(command.get_name()) {
        entry["output_schema"] = schema;
    }
    if let Some(protocol) = stdout_protocol(command.get_name()) {
        entry["stdout"] = json!("protocol");
        entry["protocol"] = json!(protocol);
    }
    entry
}

/// The manifest document (the envelope's `data`).
pub fn manifest() -> Value {
    let cli = Cli::command();
    let mut commands = Map::new();
    for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
        commands.insert(sub.get_name().to_string(), command_entry(sub));
    }
    let mut root = Map::new();
    for arg in cli.get_arguments().filter(|a| a.is_global_set()) {
        if let Some(long) = arg.get_long() {
            root.insert(long.to_string(), flag_entry(arg));
        }
    }
    let mut document = json!({
        "schema_version": MANIFEST_SCHEMA_VERSION,
        "framework_version": env!("CARGO_PKG_VERSION"),
        "etag": "",
        "commands": commands,
        "flags": root,
        "env_vars": [{
            "name": "CONFORM_MAX_OUTPUT_BYTES",
            "description": "Most bytes an envelope on stdout may take: written on one line, the end of its list dropped to fit (meta.truncated, truncation_hint, returned_count, total_count); data that is no list is left out whole. Unset: no cap"
        }],
        "exit_codes": exit_codes(),
    });
    let etag = format!("fnv1a64:{:016x}", fnv1a(document.to_string().as_bytes()));
    document["etag"] = json!(etag);
    document
}

/// A stable content hash for the etag (the same manifest always hashes the same).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
