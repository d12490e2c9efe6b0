//! The wire-format schemas against their fixtures (the crate's
//! `tests/fixtures/schemas/`).
//!
//! Layout per format: `valid/` passes both layers; `invalid/` breaks one rule of the
//! base layer (the published schema's facts) and nothing else; `invalid-strict/`
//! breaks one strict rule only, so the published schema accepts it.
//! `expected-errors.json` says, per invalid fixture, the instance path every error
//! must sit at or under (`<root>` for the document itself, "" for anywhere), and a text at least one error must contain
//! (for a strict fixture: the rule's name).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::checks::schemas;
use serde_json::Value;

type Validate = fn(&Value) -> Vec<String>;

struct Format {
    dir: &'static str,
    base: Validate,
    strict: Validate,
    both: Validate,
}

const ENVELOPE: Format = Format {
    dir: "envelope",
    base: schemas::envelope_base_errors,
    strict: schemas::envelope_strict_errors,
    both: schemas::envelope_errors,
};

const MANIFEST: Format = Format {
    dir: "manifest",
    base: schemas::manifest_base_errors,
    strict: schemas::manifest_strict_errors,
    both: schemas::manifest_errors,
};

fn root(format: &Format) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/schemas")
        .join(format.dir)
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fixtures of one subdirectory, by name (file stem), sorted.
fn fixtures(format: &Format, sub: &str) -> Vec<(String, Value)> {
    let dir = root(format).join(sub);
    let mut out: Vec<(String, Value)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("fixture names are UTF-8")
                .to_string();
            (name, read_json(&path))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!out.is_empty(), "no fixtures in {}", dir.display());
    out
}

struct Expected {
    path: String,
    names: String,
}

fn expected(format: &Format, name: &str) -> Expected {
    let table = read_json(&root(format).join("expected-errors.json"));
    let entry = &table[name];
    let text = |key: &str| {
        entry[key]
            .as_str()
            .unwrap_or_else(|| panic!("expected-errors.json: {name}.{key} missing"))
            .to_string()
    };
    Expected {
        path: text("path"),
        names: text("names"),
    }
}

/// The instance path an error line starts with (`<root>` for the document itself).
fn error_path(error: &str) -> &str {
    error.split_once(": ").map_or(error, |(path, _)| path)
}

/// Whether an error's path is the expected one or below it; an empty expected path
/// is the whole document (a broken `meta.exit_code` also breaks `ok` and `error`).
fn at_or_under(path: &str, expected: &str) -> bool {
    if expected.is_empty() {
        return true;
    }
    path == expected || path.starts_with(&format!("{expected}/"))
}

/// What is wrong with `errors` as the failure of one rule: every error sits at or
/// under the expected path, and one names the expected text.
fn failure_problems(name: &str, errors: &[String], expected: &Expected) -> Vec<String> {
    if errors.is_empty() {
        return vec![format!("{name}: expected errors, got none")];
    }
    let mut problems: Vec<String> = errors
        .iter()
        .filter(|error| !at_or_under(error_path(error), &expected.path))
        .map(|error| format!("{name}: error outside {:?}: {error}", expected.path))
        .collect();
    if !errors.iter().any(|e| e.contains(&expected.names)) {
        problems.push(format!(
            "{name}: no error names {:?}: {errors:?}",
            expected.names
        ));
    }
    problems
}

fn no_errors(name: &str, layer: &str, errors: Vec<String>) -> Vec<String> {
    if errors.is_empty() {
        Vec::new()
    } else {
        vec![format!("{name}: {layer} layer should pass: {errors:?}")]
    }
}

/// Fails the test with every problem found, so one run shows them all.
fn assert_no_problems(problems: Vec<String>) {
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

fn valid_fixtures_pass_both_layers(format: &Format) {
    let mut problems = Vec::new();
    for (name, doc) in fixtures(format, "valid") {
        problems.extend(no_errors(&name, "base", (format.base)(&doc)));
        problems.extend(no_errors(&name, "strict", (format.strict)(&doc)));
        problems.extend(no_errors(&name, "combined", (format.both)(&doc)));
    }
    assert_no_problems(problems);
}

fn invalid_fixtures_break_one_base_rule(format: &Format) {
    let mut problems = Vec::new();
    for (name, doc) in fixtures(format, "invalid") {
        let base = (format.base)(&doc);
        problems.extend(failure_problems(&name, &base, &expected(format, &name)));
        // The strict layer leaves what the base reports to the base.
        problems.extend(no_errors(&name, "strict", (format.strict)(&doc)));
        if (format.both)(&doc) != base {
            problems.push(format!(
                "{name}: combined errors differ from the base layer's"
            ));
        }
    }
    assert_no_problems(problems);
}

fn strict_fixtures_pass_base_and_fail_strict(format: &Format) {
    let mut problems = Vec::new();
    for (name, doc) in fixtures(format, "invalid-strict") {
        problems.extend(no_errors(&name, "base", (format.base)(&doc)));
        let strict = (format.strict)(&doc);
        let expected = expected(format, &name);
        problems.extend(failure_problems(&name, &strict, &expected));
        let rule = format!("strict rule {}:", expected.names);
        if !strict.iter().all(|e| e.contains(&rule)) {
            problems.push(format!(
                "{name}: not every error names {rule:?}: {strict:?}"
            ));
        }
        if (format.both)(&doc) != strict {
            problems.push(format!(
                "{name}: combined errors differ from the strict layer's"
            ));
        }
    }
    assert_no_problems(problems);
}

/// expected-errors.json lists exactly the invalid fixtures, and every strict rule has
/// a fixture that breaks it.
fn expectations_match_fixtures(format: &Format, rules: &[schemas::StrictRule]) {
    let table = read_json(&root(format).join("expected-errors.json"));
    let listed: BTreeSet<String> = table
        .as_object()
        .expect("expected-errors.json is an object")
        .keys()
        .cloned()
        .collect();
    let strict: Vec<String> = fixtures(format, "invalid-strict")
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    let present: BTreeSet<String> = fixtures(format, "invalid")
        .into_iter()
        .map(|(name, _)| name)
        .chain(strict.iter().cloned())
        .collect();
    assert_eq!(listed, present, "expected-errors.json vs fixture files");

    let names: BTreeSet<&str> = rules.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names.len(), rules.len(), "strict rule names are unique");
    for rule in rules {
        assert!(
            !rule.name.is_empty() && !rule.source.is_empty() && !rule.statement.is_empty(),
            "strict rule without a name, source or statement: {rule:?}"
        );
        assert!(
            strict
                .iter()
                .any(|fixture| expected(format, fixture).names == rule.name),
            "strict rule {} has no invalid-strict fixture",
            rule.name
        );
    }
}

#[test]
fn envelope_valid_fixtures_pass_both_layers() {
    valid_fixtures_pass_both_layers(&ENVELOPE);
}

#[test]
fn envelope_invalid_fixtures_break_one_base_rule() {
    invalid_fixtures_break_one_base_rule(&ENVELOPE);
}

#[test]
fn envelope_strict_fixtures_pass_base_and_fail_strict() {
    strict_fixtures_pass_base_and_fail_strict(&ENVELOPE);
}

#[test]
fn envelope_expectations_cover_fixtures_and_rules() {
    let rules = schemas::envelope_strict_rules();
    assert_eq!(rules.len(), 3, "{rules:?}");
    expectations_match_fixtures(&ENVELOPE, &rules);
}

#[test]
fn manifest_valid_fixtures_pass_both_layers() {
    valid_fixtures_pass_both_layers(&MANIFEST);
}

#[test]
fn manifest_invalid_fixtures_break_one_base_rule() {
    invalid_fixtures_break_one_base_rule(&MANIFEST);
}

#[test]
fn manifest_strict_fixtures_pass_base_and_fail_strict() {
    strict_fixtures_pass_base_and_fail_strict(&MANIFEST);
}

#[test]
fn manifest_expectations_cover_fixtures_and_rules() {
    let rules = schemas::manifest_strict_rules();
    assert_eq!(rules.len(), 4, "{rules:?}");
    expectations_match_fixtures(&MANIFEST, &rules);
}

/// A field the prose names and the published schema lacks fails with a detail that
/// says so, one line per field, and other unknown fields keep the plain message.
#[test]
fn prose_only_fields_are_explained_one_by_one() {
    let (_, mut doc) = fixtures(&MANIFEST, "valid")
        .into_iter()
        .find(|(name, _)| name == "deploy-and-rollback")
        .expect("valid/deploy-and-rollback.json");
    let deploy = &mut doc["commands"]["deploy"];
    deploy["supports_streaming"] = Value::Bool(true);
    deploy["requires_confirmation"] = Value::Bool(true);
    deploy["reversible"] = Value::Bool(true);
    let errors = schemas::manifest_errors(&doc);
    assert_eq!(
        errors,
        vec![
            "/commands/deploy/supports_streaming: named by REQ-O-004's page, but the published \
             ManifestResponse schema (840af33) does not define it; remove it"
                .to_string(),
            "/commands/deploy/requires_confirmation: named by REQ-O-021's page, but the published \
             ManifestResponse schema (840af33) does not define it; remove it"
                .to_string(),
            "/commands/deploy: Additional properties are not allowed ('reversible' was unexpected)"
                .to_string(),
        ]
    );
}

/// The base files record the published commits they carry.
#[test]
fn base_schemas_pin_the_published_commits() {
    for text in [schemas::RESPONSE_ENVELOPE, schemas::MANIFEST_RESPONSE] {
        assert!(text.contains("840af3375a4ee8a252d39c3392603690af337d6f"));
    }
    assert!(schemas::MANIFEST_RESPONSE.contains("5d2c6eac18d74545aaaff1224c07ad083190a7bc"));
}
