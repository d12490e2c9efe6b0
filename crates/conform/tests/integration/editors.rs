//! Editors and the profile schema: a profile cannot carry `$schema` (the format
//! forbids unknown keys), so `conform init --vscode` gives VS Code the schema through
//! the workspace's settings, and the refusal of `$schema` says so.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::{conform, conform_in, repo_root};

const ENTRY_URL: &str = "./.vscode/conformance-profile.schema.json";

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn printed_schema() -> Value {
    let schema = conform(["schema", "profile", "--raw"]);
    assert_eq!(schema.output.status.code(), Some(0));
    serde_json::from_slice(&schema.output.stdout).expect("the schema is JSON")
}

#[test]
fn init_vscode_writes_the_schema_and_a_settings_entry_that_names_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = conform_in(dir.path(), ["init", "--vscode"]);
    assert_eq!(run.output.status.code(), Some(0), "{}", run.envelope);
    assert_eq!(run.envelope["data"]["settings"], ".vscode/settings.json");
    assert_eq!(run.envelope["data"]["settings_existed"], false);
    assert_eq!(run.envelope["data"]["written"], true);

    let settings = read_json(&dir.path().join(".vscode/settings.json"));
    assert_eq!(
        settings,
        json!({ "json.schemas": [
            { "fileMatch": ["conformance-profile.json"], "url": ENTRY_URL }
        ] })
    );
    // The url, relative to the workspace root, names the file written: the schema
    // `conform schema profile` prints.
    let schema = read_json(&dir.path().join(ENTRY_URL));
    assert_eq!(schema, printed_schema());
}

#[test]
fn init_vscode_merges_into_existing_settings_and_keeps_their_keys() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".vscode")).expect("mkdir");
    let settings_path = dir.path().join(".vscode/settings.json");
    let before = json!({
        "editor.tabSize": 4,
        "json.schemas": [{ "fileMatch": ["tasks.yaml.json"], "url": "./schemas/tasks.json" }],
        "files.exclude": { "target": true }
    });
    std::fs::write(&settings_path, before.to_string()).expect("write settings");

    for _ in 0..2 {
        // A second run replaces its own entry rather than adding another.
        let run = conform_in(dir.path(), ["init", "--vscode"]);
        assert_eq!(run.output.status.code(), Some(0), "{}", run.envelope);
        assert_eq!(run.envelope["data"]["settings_existed"], true);
    }
    let after = read_json(&settings_path);
    let keys: Vec<&String> = after.as_object().expect("an object").keys().collect();
    assert_eq!(keys, ["editor.tabSize", "json.schemas", "files.exclude"]);
    assert_eq!(after["editor.tabSize"], 4);
    assert_eq!(after["files.exclude"], before["files.exclude"]);
    assert_eq!(
        after["json.schemas"],
        json!([
            { "fileMatch": ["tasks.yaml.json"], "url": "./schemas/tasks.json" },
            { "fileMatch": ["conformance-profile.json"], "url": ENTRY_URL }
        ])
    );
}

#[test]
fn init_vscode_refuses_settings_that_are_not_plain_json_and_leaves_them_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".vscode")).expect("mkdir");
    let settings_path = dir.path().join(".vscode/settings.json");
    // VS Code accepts comments here; a JSON parser does not.
    let text = "{\n  // two spaces\n  \"editor.tabSize\": 2\n}\n";
    std::fs::write(&settings_path, text).expect("write settings");

    let run = conform_in(dir.path(), ["init", "--vscode"]);
    assert_eq!(run.output.status.code(), Some(2), "{}", run.envelope);
    let error = &run.envelope["error"];
    assert_eq!(error["code"], "INVALID_SETTINGS");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains(".vscode/settings.json"), "{message}");
    assert!(message.contains("not valid JSON"), "{message}");
    // The fix gives the entry to add by hand.
    let fix = error["fix_required"].as_str().unwrap_or_default();
    assert!(fix.contains(ENTRY_URL), "{fix}");
    assert!(fix.contains("conform schema profile --raw"), "{fix}");
    assert_eq!(std::fs::read_to_string(&settings_path).expect("read"), text);
    assert!(!dir.path().join(ENTRY_URL).exists());
}

#[test]
fn init_vscode_with_dry_run_writes_nothing_and_a_tool_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = conform_in(dir.path(), ["init", "--vscode", "--dry-run"]);
    assert_eq!(run.output.status.code(), Some(0), "{}", run.envelope);
    assert_eq!(run.envelope["data"]["written"], false);
    assert!(!dir.path().join(".vscode").exists());

    let both = conform_in(dir.path(), ["init", "--vscode", "--", "./mytool"]);
    assert_eq!(both.output.status.code(), Some(2), "{}", both.envelope);
    assert_eq!(both.envelope["error"]["code"], "USAGE_ERROR");
    assert!(!dir.path().join(".vscode").exists());
}

#[test]
fn a_profile_with_schema_is_refused_with_the_way_to_give_editors_the_schema() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut profile = read_json(&repo_root().join("conformance/profiles/democli.json"));
    profile["command"] = json!(["sh"]);
    let mut with_schema = serde_json::Map::new();
    with_schema.insert("$schema".into(), json!("./conformance-profile.schema.json"));
    with_schema.extend(profile.as_object().expect("an object").clone());
    let path = dir.path().join("conformance-profile.json");
    std::fs::write(&path, Value::Object(with_schema).to_string()).expect("write");

    let run = conform(["validate".as_ref(), path.as_os_str()]);
    assert_eq!(run.output.status.code(), Some(2), "{}", run.envelope);
    let violations = run.envelope["error"]["context"]["violations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let pointers: Vec<&str> = violations
        .iter()
        .filter_map(|v| v["pointer"].as_str())
        .collect();
    assert_eq!(pointers, ["/$schema"], "{}", run.envelope);
    let fix = violations[0]["fix"].as_str().unwrap_or_default();
    assert!(fix.contains("conform init --vscode"), "{fix}");
    assert!(fix.contains("conform schema profile"), "{fix}");
}

#[test]
fn the_profile_schema_names_no_address_that_does_not_exist() {
    // An `$id` would be an address editors try to fetch; the schema is given as a
    // file instead.
    assert_eq!(printed_schema().get("$id"), None);
}
