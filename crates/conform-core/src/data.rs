//! Comparing `data` between two runs: volatile keys dropped, the first difference
//! named by its path. The checks judge with it, and the planner decides with it
//! whether a run differed enough to be followed up.

use serde_json::Value;

/// Keys that legitimately change between two identical previews.
fn volatile(key: &str) -> bool {
    key.ends_with("_at") || matches!(key, "timestamp" | "request_id" | "trace_id" | "duration_ms")
}

/// `value` without volatile keys, at any depth.
pub(crate) fn stable_data(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| !volatile(k))
                .map(|(k, v)| (k, stable_data(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(stable_data).collect()),
        Value::String(text) => Value::String(without_sandbox_paths(text)),
        other => other,
    }
}

/// `text` with each run's own sandbox directory (`/tmp/conform-PID-XXXX/run-N`)
/// written `<sandbox>`: a path into a run's fresh HOME differs from run to run by
/// construction, and is not the tool's doing.
fn without_sandbox_paths(text: String) -> String {
    if !text.contains("/run-") {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("/conform-") {
        let after = &rest[at + 1..];
        let dir_end = after.find('/').unwrap_or(after.len());
        let run = &after[dir_end..];
        let digits = run
            .strip_prefix("/run-")
            .map_or(0, |r| r.bytes().take_while(u8::is_ascii_digit).count());
        if digits == 0 {
            out.push_str(&rest[..at + 1]);
            rest = &rest[at + 1..];
            continue;
        }
        // The start of the path: back to the whitespace or quote before it.
        let start = rest[..at]
            .rfind(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == '=')
            .map_or(0, |i| i + 1);
        out.push_str(&rest[..start]);
        out.push_str("<sandbox>");
        rest = &after[dir_end + "/run-".len() + digits..];
    }
    out.push_str(rest);
    out
}

/// An envelope's `data` without volatile keys (null when it has none): what two
/// runs are compared by.
pub(crate) fn stable_data_in(envelope: &Value) -> Value {
    stable_data(envelope.get("data").cloned().unwrap_or(Value::Null))
}

/// A run's stdout as comparable data ([`stable_data_in`]), or `None` when stdout
/// is not JSON.
pub(crate) fn stable_data_of(stdout: &[u8]) -> Option<Value> {
    let envelope: Value = serde_json::from_slice(stdout).ok()?;
    Some(stable_data_in(&envelope))
}

/// Where two JSON values first differ, as a path, for the failure detail.
pub(crate) fn first_difference(a: &Value, b: &Value, path: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) if w == v => {}
                    Some(w) => return first_difference(v, w, &format!("{path}.{k}")),
                    None => return format!("{path}.{k} is missing the second time"),
                }
            }
            match y.keys().find(|k| !x.contains_key(*k)) {
                Some(k) => format!("{path}.{k} appears only the second time"),
                None => format!("{path} differs"),
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() != y.len() => {
            format!("{path} has {} items, then {}", x.len(), y.len())
        }
        (Value::Array(x), Value::Array(y)) => x
            .iter()
            .zip(y)
            .enumerate()
            .find(|(_, (v, w))| v != w)
            .map_or_else(
                || format!("{path} differs"),
                |(i, (v, w))| first_difference(v, w, &format!("{path}[{i}]")),
            ),
        _ => format!("{path} is {} then {}", short(a), short(b)),
    }
}

fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 {
        format!("{}...", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

/// The items of a list response's `data`: the array itself, or the one
/// array-valued key of an object (`{"deployments": [...]}`); `None` when there is
/// no single array to count.
pub(crate) fn items(data: &Value) -> Option<&Vec<Value>> {
    match data {
        Value::Array(items) => Some(items),
        Value::Object(map) => {
            let mut arrays = map.values().filter_map(Value::as_array);
            match (arrays.next(), arrays.next()) {
                (Some(items), None) => Some(items),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod sandbox_path_tests {
    use super::*;

    #[test]
    fn a_runs_sandbox_directory_is_not_a_difference() {
        assert_eq!(
            without_sandbox_paths("/tmp/conform-18801-EKoFIs/run-12/data/x.json".into()),
            "<sandbox>/data/x.json"
        );
        assert_eq!(
            without_sandbox_paths(
                "at /tmp/conform-1-a/run-3/home and /tmp/conform-1-a/run-45".into()
            ),
            "at <sandbox>/home and <sandbox>"
        );
        assert_eq!(
            without_sandbox_paths("/srv/conform-tools/run-me".into()),
            "/srv/conform-tools/run-me"
        );
    }
}
