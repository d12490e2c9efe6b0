//! Arguments for a probe: from the command's examples, defaults and enum values.

use serde_json::{Map, Value};

use super::shell::split_words;
use super::{is_boolean, Command};
use crate::profile::CONFIRMATION_FLAGS;

/// An example invocation split into its arguments after the command path.
#[derive(Debug, Default)]
pub(super) struct ExampleArgs {
    /// `--name value` and `--name=value` (value `None` for a switch).
    pub(super) flags: Vec<(String, Option<String>)>,
    positionals: Vec<String>,
}

/// The value the first example that gives `--name` a value gives it.
pub(super) fn example_value(examples: &[ExampleArgs], name: &str) -> Option<String> {
    examples.iter().find_map(|e| {
        e.flags
            .iter()
            .find(|(n, v)| n == name && v.is_some())
            .and_then(|(_, v)| v.clone())
    })
}

/// The arguments of every example of `command` that names its path.
pub(super) fn examples(command: &Command, root_flags: &Map<String, Value>) -> Vec<ExampleArgs> {
    let Some(list) = command.entry.get("examples").and_then(Value::as_array) else {
        return Vec::new();
    };
    let takes_value = |name: &str| match command.flag(name).or(root_flags.get(name)) {
        Some(flag) => !is_boolean(flag),
        None => false,
    };
    let mut out = Vec::new();
    for example in list {
        let Some(line) = example.get("command").and_then(Value::as_str) else {
            continue;
        };
        let words = split_words(line);
        let n = command.path.len();
        let Some(start) =
            (0..=words.len().saturating_sub(n)).find(|&i| words[i..].starts_with(&command.path))
        else {
            continue;
        };
        let mut args = ExampleArgs::default();
        let mut rest = words[start + n..].iter();
        while let Some(word) = rest.next() {
            if let Some(long) = word.strip_prefix("--") {
                match long.split_once('=') {
                    Some((name, value)) => args.flags.push((name.into(), Some(value.into()))),
                    None if takes_value(long) => {
                        args.flags.push((long.into(), rest.next().cloned()))
                    }
                    None => args.flags.push((long.into(), None)),
                }
            } else if word.starts_with('-') && word.len() > 1 {
                // A short option: its value cannot be told apart from a positional.
                continue;
            } else {
                args.positionals.push(word.clone());
            }
        }
        out.push(args);
    }
    out
}

/// `dry-run`, `dry_run` and `DRY_RUN` name the same thing.
fn same_name(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.to_ascii_lowercase().replace('-', "_");
    norm(a) == norm(b)
}

/// A scalar as an argv word.
pub(super) fn word(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The required flags and positionals of `command`, filled from its examples, else
/// a default, else the first enum value; `Err` names what cannot be filled.
pub(super) fn required_args(
    command: &Command,
    root_flags: &Map<String, Value>,
) -> Result<Vec<String>, String> {
    let examples = examples(command, root_flags);
    let mut positionals = Vec::new();
    let declared: Vec<&Value> = command
        .entry
        .get("positionals")
        .and_then(Value::as_array)
        .map(|p| p.iter().collect())
        .unwrap_or_default();
    // A positional that is also a required flag (`name` both ways, as the treaty
    // framework lists it) is required too; the examples give it positionally.
    fn twin<'v>(command: &Command, positional: &'v Value) -> Option<&'v str> {
        let name = positional.get("name").and_then(Value::as_str)?;
        let flag = command.flags.get(name).or_else(|| {
            command
                .flags
                .iter()
                .find(|(flag, _)| same_name(flag, name))
                .map(|(_, v)| v)
        })?;
        (flag.get("required").and_then(Value::as_bool) == Some(true)).then_some(name)
    }
    // The flags given as their positional twin.
    let mut as_positional: Vec<String> = Vec::new();
    for (index, positional) in declared.iter().enumerate() {
        let required = positional.get("required").and_then(Value::as_bool) == Some(true);
        let twin = twin(command, positional);
        if !required && twin.is_none() {
            continue;
        }
        // Positionals after a missing optional one cannot be placed.
        if positionals.len() < index {
            break;
        }
        if let Some(name) = twin {
            let given_as_flag = examples.iter().any(|e| {
                e.flags
                    .iter()
                    .any(|(n, v)| same_name(n, name) && v.is_some())
            });
            let given_as_positional = examples.iter().any(|e| e.positionals.len() > index);
            if !required && (given_as_flag || !given_as_positional) {
                continue;
            }
            as_positional.push(name.to_string());
        }
        let name = positional
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("?");
        let value = examples
            .iter()
            .find_map(|e| e.positionals.get(index).cloned())
            .or_else(|| {
                positional
                    .get("enum_values")
                    .and_then(|v| v.get(0))
                    .and_then(word)
            });
        match value {
            Some(value) => positionals.push(value),
            None => {
                return Err(format!(
                    "required positional <{name}> has no value in the command's examples and no enum value"
                ))
            }
        }
    }
    let mut names: Vec<&String> = command.flags.keys().collect();
    names.sort();
    let mut flags = Vec::new();
    for name in names {
        let flag = &command.flags[name];
        if flag.get("required").and_then(Value::as_bool) != Some(true) {
            continue;
        }
        if as_positional.iter().any(|p| same_name(p, name)) {
            continue;
        }
        if CONFIRMATION_FLAGS.contains(&format!("--{name}").as_str()) {
            return Err(format!(
                "required flag --{name} is a confirmation flag, which a profile never passes"
            ));
        }
        if is_boolean(flag) {
            flags.push(format!("--{name}"));
            continue;
        }
        let from_example = example_value(&examples, name);
        let value = from_example
            .or_else(|| flag.get("default").and_then(word))
            .or_else(|| {
                flag.get("enum_values")
                    .and_then(|v| v.get(0))
                    .and_then(word)
            });
        match value {
            Some(value) => {
                flags.push(format!("--{name}"));
                flags.push(value);
            }
            None => {
                return Err(format!(
                    "required flag --{name} has no value in the command's examples, no default and no enum value"
                ))
            }
        }
    }
    positionals.extend(flags);
    Ok(positionals)
}
