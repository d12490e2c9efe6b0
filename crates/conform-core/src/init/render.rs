//! The profile's text, in the layout of the committed profiles: one member per line
//! at the top, one probe per line. Deterministic: keys keep their insertion order.

use serde_json::Value;

/// The whole profile, ending in a newline.
pub(crate) fn render_profile(profile: &Value) -> String {
    let Some(members) = profile.as_object() else {
        return inline(profile) + "\n";
    };
    let mut lines = Vec::new();
    for (key, value) in members {
        let key = inline(&Value::String(key.clone()));
        match value {
            Value::Array(items) if items.iter().all(Value::is_object) && !items.is_empty() => {
                let items: Vec<String> =
                    items.iter().map(|i| format!("    {}", inline(i))).collect();
                lines.push(format!("  {key}: [\n{}\n  ]", items.join(",\n")));
            }
            _ => lines.push(format!("  {key}: {}", inline(value))),
        }
    }
    format!("{{\n{}\n}}\n", lines.join(",\n"))
}

/// One value on one line: `{ "a": 1, "b": ["x", "y"] }`.
fn inline(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(members) if members.is_empty() => "{}".into(),
        Value::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{}: {}", inline(&Value::String(k.clone())), inline(v)))
                .collect();
            format!("{{ {} }}", members.join(", "))
        }
        // Scalars: serde_json's own escaping; it cannot fail on a Value.
        scalar => serde_json::to_string(scalar).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn layout_matches_the_committed_profiles() {
        let profile = json!({
            "tool": "t",
            "command": ["./t"],
            "probes": [{ "name": "a \"b\"", "argv": ["x"], "kind": "read" }]
        });
        assert_eq!(
            render_profile(&profile),
            "{\n  \"tool\": \"t\",\n  \"command\": [\"./t\"],\n  \"probes\": [\n    { \"name\": \"a \\\"b\\\"\", \"argv\": [\"x\"], \"kind\": \"read\" }\n  ]\n}\n"
        );
    }
}
