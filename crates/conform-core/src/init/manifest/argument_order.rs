//! `argument_order`: a global flag placed around a read command's local option.

use serde_json::{json, Map, Value};

use super::arguments::{example_value, examples, word};
use super::{is_boolean, Command};

/// Global flags that select the output format, for `argument_order`, best first.
const FORMAT_FLAGS: &[&str] = &["format", "output", "output-format"];

/// Alternates to `json` that render differently, best first.
const ALTERNATES: &[&str] = &[
    "plain", "text", "table", "human", "pretty", "yaml", "csv", "tsv",
];

/// `argument_order` from a global enum flag with two values and a read command's
/// local option whose value is known to be accepted (an example or an enum value).
pub(super) fn argument_order(
    root_flags: &Map<String, Value>,
    reads: &[Command],
) -> Result<Value, String> {
    let enum_values = |flag: &Value| -> Vec<String> {
        flag.get("enum_values")
            .and_then(Value::as_array)
            .map(|v| {
                v.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut candidates: Vec<&String> = root_flags.keys().collect();
    candidates.sort_by_key(|name| {
        (
            FORMAT_FLAGS
                .iter()
                .position(|f| f == name)
                .unwrap_or(FORMAT_FLAGS.len()),
            name.to_string(),
        )
    });
    let global = candidates
        .into_iter()
        .find(|name| enum_values(&root_flags[name.as_str()]).len() >= 2)
        .ok_or("the manifest declares no global enum flag with two values (such as format: json, plain)")?;
    let values = enum_values(&root_flags[global.as_str()]);
    let value = if values.iter().any(|v| v == "json") {
        "json".to_string()
    } else {
        values[0].clone()
    };
    let alternate = ALTERNATES
        .iter()
        .map(|a| a.to_string())
        .find(|a| *a != value && values.contains(a))
        .or_else(|| values.iter().find(|v| **v != value).cloned())
        .ok_or("the global flag has one distinct value")?;
    for command in reads {
        if let Some(local_args) = local_option(command, root_flags) {
            let mut order = Map::new();
            order.insert("command_path".into(), json!(command.path));
            order.insert("local_args".into(), json!(local_args));
            order.insert("global_flag".into(), json!(format!("--{global}")));
            order.insert("value".into(), json!(value));
            order.insert("alternate_value".into(), json!(alternate));
            return Ok(Value::Object(order));
        }
    }
    Err(format!(
        "no safe command without required arguments has a local option with a known value (from its examples, or a non-default enum value) to place --{global} around"
    ))
}

/// A local option that takes a value, and a value that changes the output: one from
/// the command's examples, else an enum value other than the default.
fn local_option(command: &Command, root_flags: &Map<String, Value>) -> Option<Vec<String>> {
    let examples = examples(command, root_flags);
    let mut names: Vec<&String> = command.flags.keys().collect();
    names.sort();
    for name in names {
        let flag = &command.flags[name];
        if is_boolean(flag)
            || root_flags.contains_key(name.as_str())
            || FORMAT_FLAGS.contains(&name.as_str())
        {
            continue;
        }
        let from_example = example_value(&examples, name);
        let default = flag.get("default").and_then(word);
        let from_enum = flag
            .get("enum_values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(word)
            .find(|v| Some(v) != default.as_ref());
        if let Some(value) = from_example.or(from_enum) {
            return Some(vec![format!("--{name}"), value]);
        }
    }
    None
}
