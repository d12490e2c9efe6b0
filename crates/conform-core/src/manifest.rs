//! Reading a tool's ManifestResponse `data`: the command an argv names, the flags it
//! takes and the environment variables it declares. The planner reads it to shape
//! runs derived from the manifest run, the checks to judge; neither validates here
//! (`manifest_valid` does, once).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// The manifest run's `data` as written, if its stdout is a JSON object with an
/// object `data`; whether it is a valid ManifestResponse is not asked here.
pub(crate) fn data_of(stdout: &[u8]) -> Option<Value> {
    let envelope: Value = serde_json::from_slice(stdout).ok()?;
    let data = envelope.get("data")?;
    data.is_object().then(|| data.clone())
}

/// The manifest command an argv names: the longest prefix of its non-option
/// arguments that is a command path (`deployments.list`).
pub(crate) fn command_of<'m>(
    argv: &[String],
    commands: &'m Map<String, Value>,
) -> Option<(String, &'m Value)> {
    let words: Vec<&str> = argv
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    (1..=words.len()).rev().find_map(|n| {
        let path = words[..n].join(".");
        commands.get(&path).map(|entry| (path, entry))
    })
}

/// The command `argv` names in `manifest` (its `data`).
pub(crate) fn command_for<'m>(manifest: &'m Value, argv: &[String]) -> Option<(String, &'m Value)> {
    let commands = manifest.get("commands")?.as_object()?;
    command_of(argv, commands)
}

/// A flag the command declares itself.
pub(crate) fn local_flag<'m>(command: &'m Value, name: &str) -> Option<&'m Value> {
    command.get("flags")?.get(name)
}

/// A flag the command takes: its own, else the root's.
pub(crate) fn flag<'m>(manifest: &'m Value, command: &'m Value, name: &str) -> Option<&'m Value> {
    local_flag(command, name).or_else(|| manifest.get("flags")?.get(name))
}

/// The variables a run of `command` gets its secrets and tokens from: the root
/// `secret_env_vars` and the command's `secret_env_vars` and `token_env_vars`.
pub(crate) fn secret_names(manifest: &Value, command: Option<&Value>) -> Vec<String> {
    let mut names = strings(manifest.get("secret_env_vars"));
    if let Some(command) = command {
        for field in ["secret_env_vars", "token_env_vars"] {
            for name in strings(command.get(field)) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    names
}

/// Every variable name the manifest declares anywhere: the root `env_vars` and
/// `secret_env_vars`, and every command's and flag's variables.
pub(crate) fn declared_env_names(manifest: &Value) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = BTreeSet::new();
    names.extend(entry_names(manifest.get("env_vars")));
    names.extend(strings(manifest.get("secret_env_vars")));
    let flag_names = |flags: Option<&Value>| -> Vec<String> {
        flags
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|flags| flags.values())
            .flat_map(|flag| entry_names(flag.get("env_vars")))
            .collect()
    };
    names.extend(flag_names(manifest.get("flags")));
    for command in manifest
        .get("commands")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|commands| commands.values())
    {
        names.extend(strings(command.get("secret_env_vars")));
        names.extend(strings(command.get("token_env_vars")));
        names.extend(entry_names(command.get("env_vars")));
        names.extend(flag_names(command.get("flags")));
    }
    names
}

/// First words of variable names that belong to everything, not to one tool: a
/// manifest that declares `XDG_DATA_HOME` and `XDG_CONFIG_HOME` has no `XDG` prefix.
const SHARED_PREFIXES: [&str; 8] = ["XDG", "HTTP", "HTTPS", "ALL", "NO", "LC", "SSL", "FORCE"];

/// The prefixes a tool's own variables show in its manifest: the first word
/// (before `_`) of upper-case names, where two names or more share it
/// (`DEMOCLI_HOME` and `DEMOCLI_MAX_OUTPUT_BYTES` give `DEMOCLI`). They matter where
/// the tool's file name is not its name, as a wrapper's or a renamed binary's.
pub(crate) fn env_prefixes(manifest: &Value) -> Vec<String> {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for name in declared_env_names(manifest) {
        let Some((first, _)) = name.split_once('_') else {
            continue;
        };
        let upper = first.len() >= 2
            && first
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
        if upper && !SHARED_PREFIXES.contains(&first) {
            *counts.entry(first.to_string()).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .filter(|(_, count)| *count >= 2)
        .map(|(prefix, _)| prefix)
        .collect()
}

/// The strings of an array of names.
fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// The `name`s of an array of EnvVarEntry objects (a bare string counts too).
fn entry_names(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.get("name").unwrap_or(entry).as_str())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn manifest() -> Value {
        json!({
            "flags": { "timeout": { "type": "string", "default": "30s" },
                       "format": { "type": "enum", "env_vars": [{ "name": "TOOL_FORMAT" }] } },
            "env_vars": [{ "name": "TOOL_HOME", "description": "d" }],
            "secret_env_vars": ["TOOL_API_KEY"],
            "commands": {
                "deployments.list": {
                    "flags": { "limit": { "type": "integer", "default": 5 } },
                    "secret_env_vars": ["TOOL_DB_PASSWORD"],
                    "token_env_vars": ["TOOL_TOKEN"]
                },
                "deployments": {}
            }
        })
    }

    #[test]
    fn the_longest_command_path_an_argv_names_is_its_command() {
        let m = manifest();
        let argv: Vec<String> = ["deployments", "list", "--limit", "1"]
            .map(String::from)
            .into();
        let (path, command) = command_for(&m, &argv).expect("named");
        assert_eq!(path, "deployments.list");
        assert!(local_flag(command, "limit").is_some());
        assert!(local_flag(command, "timeout").is_none());
        assert!(
            flag(&m, command, "timeout").is_some(),
            "a root flag is taken"
        );
    }

    #[test]
    fn prefixes_are_first_words_two_names_share_and_not_shared_ones() {
        assert_eq!(env_prefixes(&manifest()), vec!["TOOL".to_string()]);
        let shared = json!({ "env_vars": [
            { "name": "XDG_DATA_HOME" }, { "name": "XDG_CONFIG_HOME" },
            { "name": "https_proxy" }, { "name": "ONE_NAME" }
        ] });
        assert!(env_prefixes(&shared).is_empty());
    }

    #[test]
    fn secrets_are_the_root_ones_and_the_commands() {
        let m = manifest();
        let command = &m["commands"]["deployments.list"];
        assert_eq!(
            secret_names(&m, Some(command)),
            ["TOOL_API_KEY", "TOOL_DB_PASSWORD", "TOOL_TOKEN"]
        );
        let declared = declared_env_names(&m);
        for name in ["TOOL_HOME", "TOOL_API_KEY", "TOOL_FORMAT", "TOOL_TOKEN"] {
            assert!(declared.contains(name), "{name} in {declared:?}");
        }
    }

    #[test]
    fn data_is_read_only_from_an_object() {
        assert!(data_of(br#"{"data":{"commands":{}}}"#).is_some());
        assert!(data_of(br#"{"data":[1]}"#).is_none());
        assert!(data_of(b"not json").is_none());
    }
}
