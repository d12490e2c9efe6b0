//! `DEMOCLI_MAX_OUTPUT_BYTES` (REQ-F-052): an agent reads output into a finite context,
//! so it can hold a single envelope to a byte budget. List items are dropped from the
//! end until the envelope fits, and `meta` says so: `truncated`, a `truncation_hint`
//! saying how to get the rest, `returned_count` and `total_count`. A result without a
//! list (one deployment, the manifest, ...) is written whole; streams are unaffected.
//! Only the prefixed name is read: an unprefixed variable could be meant for any tool.

use serde_json::{json, Value};

use crate::commands::Resume;
use crate::defect::{Defect, Faults};
use crate::error::CliError;

pub const MAX_OUTPUT_ENV: &str = "DEMOCLI_MAX_OUTPUT_BYTES";

/// The byte budget, when one is set; anything but a positive integer is refused.
pub fn from_env() -> Result<Option<usize>, CliError> {
    let Some(raw) = std::env::var_os(MAX_OUTPUT_ENV).filter(|raw| !raw.is_empty()) else {
        return Ok(None);
    };
    let text = raw.to_string_lossy();
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|bytes| *bytes > 0)
        .map(Some)
        .ok_or_else(|| {
            CliError::usage(
                "INVALID_ENV_VAR",
                format!("{MAX_OUTPUT_ENV}={text} is not a positive number of bytes"),
            )
            .fix(format!(
                "Set {MAX_OUTPUT_ENV} to a positive integer, or unset it for no limit"
            ))
            .context(json!({ "variable": MAX_OUTPUT_ENV, "value": text }))
        })
}

/// The bytes `envelope` takes on stdout, its newline included.
fn size(envelope: &Value) -> usize {
    envelope.to_string().len() + 1
}

/// Cut the list in `envelope`'s `data` so the envelope fits in `cap` bytes, if it does
/// not already. When even an empty list does not fit, the list is emptied anyway.
pub fn fit(envelope: &mut Value, cap: usize, resume: Option<Resume>, faults: Faults) {
    if size(envelope) <= cap {
        return;
    }
    let Some(key) = list_key(&envelope["data"]) else {
        return;
    };
    let items = match list_mut(envelope, key.as_deref()) {
        Some(list) => std::mem::take(list),
        None => return,
    };
    let total = items.len();
    let total_count = envelope["meta"]["pagination"]["total"]
        .as_u64()
        .map_or(json!(total), |total| json!(total));
    let original = envelope.clone();
    let cut = |kept: usize| {
        let mut cut = original.clone();
        if let Some(list) = list_mut(&mut cut, key.as_deref()) {
            *list = items[..kept].to_vec();
        }
        if !faults.on(Defect::TruncatesSilently) {
            mark(&mut cut, cap, kept, total, &total_count, resume);
        }
        cut
    };
    // The size grows with the items kept: find the most that fit.
    let (mut fits, mut too_many) = (0, total + 1);
    while too_many - fits > 1 {
        let middle = fits + (too_many - fits) / 2;
        if size(&cut(middle)) <= cap {
            fits = middle;
        } else {
            too_many = middle;
        }
    }
    *envelope = cut(fits.min(total));
}

/// Where the list is: `data` itself (`None`), or `data`'s only array-valued key.
fn list_key(data: &Value) -> Option<Option<String>> {
    match data {
        Value::Array(_) => Some(None),
        Value::Object(fields) => {
            let mut arrays = fields.iter().filter(|(_, value)| value.is_array());
            match (arrays.next(), arrays.next()) {
                (Some((key, _)), None) => Some(Some(key.clone())),
                _ => None,
            }
        }
        _ => None,
    }
}

fn list_mut<'a>(envelope: &'a mut Value, key: Option<&str>) -> Option<&'a mut Vec<Value>> {
    let data = &mut envelope["data"];
    match key {
        None => data.as_array_mut(),
        Some(key) => data.get_mut(key).and_then(Value::as_array_mut),
    }
}

fn mark(
    envelope: &mut Value,
    cap: usize,
    kept: usize,
    total: usize,
    total_count: &Value,
    resume: Option<Resume>,
) {
    let next = resume.map(|resume| (resume.cursor)(resume.start + kept));
    let rest = match &next {
        Some(cursor) => format!("pass --cursor {cursor} for the rest, or a smaller --limit"),
        None => format!("raise or unset {MAX_OUTPUT_ENV} for the rest"),
    };
    let hint = format!("{kept} of {total} items fit in {MAX_OUTPUT_ENV}={cap} bytes; {rest}");
    let Some(meta) = envelope.get_mut("meta").and_then(Value::as_object_mut) else {
        return;
    };
    meta.insert("truncated".into(), json!(true));
    meta.insert("truncation_hint".into(), json!(hint));
    meta.insert("returned_count".into(), json!(kept));
    meta.insert("total_count".into(), total_count.clone());
    if let Some(pagination) = meta.get_mut("pagination").and_then(Value::as_object_mut) {
        pagination.insert("returned".into(), json!(kept));
        pagination.insert("truncated".into(), json!(true));
        if let Some(cursor) = next.filter(|_| kept < total) {
            pagination.insert("has_more".into(), json!(true));
            pagination.insert("next_cursor".into(), json!(cursor));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(items: usize) -> Value {
        let data: Vec<Value> = (0..items)
            .map(|i| json!({ "id": i, "pad": "x".repeat(50) }))
            .collect();
        json!({ "ok": true, "data": data, "error": null, "warnings": [], "meta": { "exit_code": 0 } })
    }

    #[test]
    fn drops_items_from_the_end_until_it_fits() {
        let mut value = envelope(20);
        let cap = size(&value) / 2;
        fit(&mut value, cap, None, Faults::default());
        assert!(size(&value) <= cap);
        let kept = value["data"].as_array().map_or(0, Vec::len);
        assert!(kept > 0 && kept < 20);
        assert_eq!(value["data"][0]["id"], 0);
        assert_eq!(value["meta"]["returned_count"], kept);
        assert_eq!(value["meta"]["total_count"], 20);
        assert_eq!(value["meta"]["truncated"], true);
        assert!(value["meta"]["truncation_hint"]
            .as_str()
            .is_some_and(|h| h.contains(MAX_OUTPUT_ENV)));
    }

    #[test]
    fn what_fits_is_left_alone() {
        let mut value = envelope(3);
        let before = value.clone();
        let cap = size(&value);
        fit(&mut value, cap, None, Faults::default());
        assert_eq!(value, before);
    }

    #[test]
    fn a_list_under_one_key_is_cut_and_a_tiny_cap_empties_it() {
        let mut value =
            json!({ "ok": true, "data": { "source": "local", "releases": [1, 2, 3] }, "meta": {} });
        fit(&mut value, 10, None, Faults::default());
        assert_eq!(value["data"]["releases"], json!([]));
        assert_eq!(value["meta"]["returned_count"], 0);
    }
}
