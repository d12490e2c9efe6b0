//! `conform init --vscode`: give VS Code the profile schema through the workspace's
//! settings. A profile cannot name its schema itself: `$schema` is not a field of
//! the profile format, whose published schema forbids unknown keys.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::envelope::{ErrorDetail, ExitStatus};
use crate::profile::PROFILE_SCHEMA;

/// Where VS Code reads a workspace's settings, from the workspace root.
pub(crate) const SETTINGS: &str = ".vscode/settings.json";
/// The profile schema, written beside the settings that point at it.
pub(crate) const SCHEMA: &str = ".vscode/conformance-profile.schema.json";
/// The profile file name the README and `conform init --output` use.
const FILE_MATCH: &str = "conformance-profile.json";

/// Why nothing (or not all) was written: the exit status and the envelope's error.
pub(crate) type Failure = Box<(ExitStatus, ErrorDetail)>;

/// What `--vscode` wrote (or, with `--dry-run`, would write).
#[derive(Debug)]
pub(crate) struct Written {
    pub settings: PathBuf,
    pub schema: PathBuf,
    /// Whether settings.json was there before (its keys are kept).
    pub settings_existed: bool,
    pub written: bool,
}

impl Written {
    pub(crate) fn data(&self) -> Value {
        json!({
            "settings": self.settings.display().to_string(),
            "schema": self.schema.display().to_string(),
            "entry": entry(),
            "settings_existed": self.settings_existed,
            "written": self.written,
        })
    }

    pub(crate) fn text(&self) -> String {
        let verb = if self.written { "wrote" } else { "would write" };
        let settings = if self.settings_existed {
            "its other settings kept"
        } else {
            "a new file"
        };
        format!(
            "{verb} {schema}, and in {settings_path} ({settings}) the json.schemas entry that gives it to every {FILE_MATCH}\n",
            schema = self.schema.display(),
            settings_path = self.settings.display(),
        )
    }
}

/// The json.schemas entry: profiles named conformance-profile.json, anywhere in
/// the workspace, are checked against the schema file (a path from the root).
fn entry() -> Value {
    json!({ "fileMatch": [FILE_MATCH], "url": format!("./{SCHEMA}") })
}

/// Write the schema file and merge the entry into the settings of the workspace
/// rooted at `root`; with `dry_run`, only say what would be written.
pub(crate) fn write(root: &Path, dry_run: bool) -> Result<Written, Failure> {
    // Paths as the user reads them: `.vscode/settings.json`, not `./.vscode/...`.
    let at = |file: &str| {
        if root == Path::new(".") {
            PathBuf::from(file)
        } else {
            root.join(file)
        }
    };
    let settings_path = at(SETTINGS);
    let schema_path = at(SCHEMA);
    let existing = match std::fs::read_to_string(&settings_path) {
        Ok(text) => Some(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => {
            return Err(cannot_write(
                &settings_path,
                &format!("cannot read it: {error}"),
            ))
        }
    };
    let settings = merge(existing.as_deref()).map_err(|why| refuse(&settings_path, &why))?;
    let written = Written {
        settings: settings_path,
        schema: schema_path,
        settings_existed: existing.is_some(),
        written: !dry_run,
    };
    if dry_run {
        return Ok(written);
    }
    let dir = at(".vscode");
    std::fs::create_dir_all(&dir)
        .map_err(|error| cannot_write(&dir, &format!("cannot create it: {error}")))?;
    replace(&written.schema, PROFILE_SCHEMA)?;
    let mut text = serde_json::to_string_pretty(&settings)
        .map_err(|error| cannot_write(&written.settings, &error.to_string()))?;
    text.push('\n');
    replace(&written.settings, &text)?;
    Ok(written)
}

/// The settings with the entry in json.schemas: an earlier entry for the same
/// schema file is replaced, every other key and entry kept in its place.
fn merge(existing: Option<&str>) -> Result<Value, String> {
    let mut settings = match existing {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(settings)) => settings,
            Ok(_) => return Err("it is JSON but not an object".into()),
            Err(error) => {
                return Err(format!(
                    "it is not valid JSON ({error}); VS Code also reads comments and trailing commas there, which conform cannot merge into without losing them"
                ))
            }
        },
    };
    let schemas = settings
        .entry("json.schemas")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Value::Array(schemas) = schemas else {
        return Err("its \"json.schemas\" is not an array".into());
    };
    let url = entry()["url"].clone();
    schemas.retain(|e| e.get("url") != Some(&url));
    schemas.push(entry());
    Ok(Value::Object(settings))
}

/// Write `text` to `path` whole or not at all, so a failure never leaves a
/// truncated settings.json.
fn replace(path: &Path, text: &str) -> Result<(), Failure> {
    crate::file::write_atomic(path, text.as_bytes()).map_err(|error| cannot_write(path, &error))
}

fn refuse(settings: &Path, why: &str) -> Failure {
    let detail = ErrorDetail::invalid_input(
        "INVALID_SETTINGS",
        format!(
            "conform init --vscode leaves {} as it is: {why}",
            settings.display()
        ),
        format!(
            "add this entry to its \"json.schemas\" array by hand: {}, and write the schema with `conform schema profile --raw > {SCHEMA}`; or make the file plain JSON and run `conform init --vscode` again",
            entry()
        ),
    );
    Box::new((ExitStatus::InvalidInput, detail))
}

fn cannot_write(path: &Path, why: &str) -> Failure {
    let detail = ErrorDetail {
        phase: Some("execution"),
        ..ErrorDetail::invalid_input(
            "WRITE_FAILED",
            format!(
                "conform init --vscode cannot write {}: {why}",
                path.display()
            ),
            "run it from the workspace root, in a directory you can write",
        )
    };
    Box::new((ExitStatus::GeneralError, detail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_other_keys_and_entries_and_replaces_its_own() {
        let existing = r#"{"editor.tabSize": 2, "json.schemas": [
            {"fileMatch": ["a.json"], "url": "./a.schema.json"},
            {"fileMatch": ["old.json"], "url": "./.vscode/conformance-profile.schema.json"}
        ], "files.eol": "\n"}"#;
        let merged = merge(Some(existing)).expect("merges");
        let keys: Vec<&String> = merged.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["editor.tabSize", "json.schemas", "files.eol"]);
        assert_eq!(
            merged["json.schemas"],
            json!([
                {"fileMatch": ["a.json"], "url": "./a.schema.json"},
                {"fileMatch": ["conformance-profile.json"], "url": "./.vscode/conformance-profile.schema.json"}
            ])
        );
        // Merging again changes nothing.
        let again = merge(Some(&merged.to_string())).expect("merges");
        assert_eq!(again, merged);
    }

    #[test]
    fn settings_that_cannot_be_merged_are_refused() {
        let comment = merge(Some("{ // tabs\n \"editor.tabSize\": 2 }")).expect_err("refused");
        assert!(comment.contains("not valid JSON"), "{comment}");
        let list = merge(Some("[1]")).expect_err("refused");
        assert!(list.contains("not an object"), "{list}");
        let schemas = merge(Some(r#"{"json.schemas": {}}"#)).expect_err("refused");
        assert!(schemas.contains("not an array"), "{schemas}");
    }
}
