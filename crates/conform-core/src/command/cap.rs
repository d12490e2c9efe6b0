//! REQ-F-052: an agent can bound what conform prints. With
//! `CONFORM_MAX_OUTPUT_BYTES` set, an envelope is written on one line and, when it
//! would still be longer, items are dropped from the end of its list (`data`, or
//! `data`'s only array-valued key) until it fits; data that is no list is left out
//! whole. `meta` then says so: `truncated`, `truncation_hint`, `returned_count`,
//! `total_count`.

use serde_json::{json, Value};

/// The variable an agent sets to cap conform's output, in bytes.
pub(crate) const MAX_OUTPUT_ENV: &str = "CONFORM_MAX_OUTPUT_BYTES";

/// The cap asked for in the environment, if any (a value that is not a number is
/// ignored, as an unset one).
pub(crate) fn requested() -> Option<usize> {
    std::env::var(MAX_OUTPUT_ENV).ok()?.trim().parse().ok()
}

/// `envelope` as text of at most `cap` bytes with its newline, where it can be
/// made that short; a value that is not an envelope is written as it is.
pub(crate) fn render(envelope: &Value, cap: usize) -> Result<String, serde_json::Error> {
    let line = |value: &Value| serde_json::to_string(value).map(|text| text + "\n");
    let whole = line(envelope)?;
    if whole.len() <= cap || envelope.get("meta").is_none() {
        return Ok(whole);
    }
    let data = envelope.get("data").cloned().unwrap_or(Value::Null);
    let left_out = || {
        let hint = format!(
            "data was {} bytes, over {MAX_OUTPUT_ENV}={cap}; unset or raise it to get it",
            whole.len()
        );
        line(&with_items(envelope, Value::Null, &hint, 0, None))
    };
    let Some((key, items)) = list_of(&data) else {
        return left_out();
    };
    let total = items.len();
    let hint = format!(
        "{MAX_OUTPUT_ENV}={cap} kept the first items of {total}; unset or raise it, or ask for fewer (such as one check ID), to get the rest"
    );
    let cut = |kept: usize| {
        let list = Value::Array(items[..kept].to_vec());
        let data = match key {
            Some(key) => {
                let mut data = data.clone();
                data[key] = list;
                data
            }
            None => list,
        };
        with_items(envelope, data, &hint, kept, Some(total))
    };
    if line(&cut(0))?.len() > cap {
        // Even without its items the rest is too long: the list is not the bulk.
        return left_out();
    }
    // The most items that fit: the text grows with each item kept.
    let (mut fits, mut over) = (0, total);
    while fits + 1 < over {
        let middle = (fits + over) / 2;
        if line(&cut(middle))?.len() <= cap {
            fits = middle;
        } else {
            over = middle;
        }
    }
    line(&cut(fits))
}

/// The list a `data` holds: itself, or its only array-valued key.
fn list_of(data: &Value) -> Option<(Option<&str>, &Vec<Value>)> {
    if let Value::Array(items) = data {
        return Some((None, items));
    }
    let object = data.as_object()?;
    let mut arrays = object.iter().filter(|(_, value)| value.is_array());
    match (arrays.next(), arrays.next()) {
        (Some((key, Value::Array(items))), None) => Some((Some(key.as_str()), items)),
        _ => None,
    }
}

fn with_items(
    envelope: &Value,
    data: Value,
    hint: &str,
    returned: usize,
    total: Option<usize>,
) -> Value {
    let mut out = envelope.clone();
    out["data"] = data;
    if let Some(meta) = out.get_mut("meta").and_then(Value::as_object_mut) {
        meta.insert("truncated".into(), json!(true));
        meta.insert("truncation_hint".into(), json!(hint));
        meta.insert("returned_count".into(), json!(returned));
        meta.insert("total_count".into(), json!(total));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(data: Value) -> Value {
        json!({ "ok": true, "data": data, "error": null, "warnings": [], "meta": { "exit_code": 0 } })
    }

    #[test]
    fn a_list_keeps_as_many_items_as_fit_and_says_so() {
        let items: Vec<Value> = (0..100)
            .map(|i| json!({ "id": format!("check-{i}") }))
            .collect();
        let full = envelope(json!({ "checks": items }));
        let whole = serde_json::to_string(&full).expect("json").len();
        let cap = whole / 2;
        let text = render(&full, cap).expect("render");
        assert!(text.len() <= cap, "{} > {cap}", text.len());
        let out: Value = serde_json::from_str(&text).expect("one envelope");
        let kept = out["data"]["checks"].as_array().expect("list").len();
        assert!(kept > 0 && kept < 100);
        assert_eq!(out["meta"]["truncated"], true);
        assert_eq!(out["meta"]["returned_count"], kept);
        assert_eq!(out["meta"]["total_count"], 100);
        assert!(out["meta"]["truncation_hint"]
            .as_str()
            .is_some_and(|h| h.contains(MAX_OUTPUT_ENV)));
    }

    #[test]
    fn data_whose_list_is_not_its_bulk_is_left_out_whole() {
        let full = envelope(json!({ "required": ["a"], "properties": { "a": "x".repeat(500) } }));
        let out: Value = serde_json::from_str(&render(&full, 300).expect("render")).expect("json");
        assert_eq!(out["data"], Value::Null);
        assert_eq!(out["meta"]["truncated"], true);
    }

    #[test]
    fn data_that_is_no_list_is_left_out_whole() {
        let full = envelope(json!({ "a": "x".repeat(500), "b": 1 }));
        let out: Value = serde_json::from_str(&render(&full, 300).expect("render")).expect("json");
        assert_eq!(out["data"], Value::Null);
        assert_eq!(out["meta"]["returned_count"], 0);
        assert_eq!(out["meta"]["total_count"], Value::Null);
    }

    #[test]
    fn what_fits_is_written_whole_on_one_line() {
        let full = envelope(json!([1, 2, 3]));
        let text = render(&full, 10_000).expect("render");
        assert_eq!(text.lines().count(), 1);
        assert!(!text.contains("truncated"));
        let schema = json!({ "type": "object", "properties": {} });
        assert_eq!(
            render(&schema, 5).expect("render").trim_end(),
            schema.to_string()
        );
    }
}
