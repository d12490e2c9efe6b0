//! Properties of profile validation: arbitrary JSON, mutations of the seed's
//! example, arbitrary bytes and edited profile text never make `validate_document`
//! or `parse` panic, every violation points somewhere in the document, and the
//! JSON Schema never rejects what the validator accepts (whatever the validator
//! alone rejects is a rule no schema can state).
//!
//! conform's integration tests (tests/integration/profile_validation.rs) run
//! `conform validate` and `conform schema` on the profile fixtures; these need the
//! validator itself. They read the same fixtures, in conform's tests/fixtures/profiles/.
//! Past failures proptest found are replayed from
//! proptest-regressions/profile/tests.txt.

use std::path::PathBuf;
use std::sync::LazyLock;

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{json, Map, Value};

use crate::profile::{self, Violation, PROFILE_SCHEMA};

/// conform's profile fixtures, which its `conform validate` tests run.
fn profiles_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conform/tests/fixtures/profiles"
    ))
}

fn valid_dir() -> PathBuf {
    profiles_dir().join("valid")
}

/// The seed's valid example (valid/seed_example.json) with a bare command, `sh`,
/// that resolves through PATH anywhere.
fn seed_profile() -> Value {
    let path = profiles_dir().join("seed.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn schema() -> Value {
    serde_json::from_str(PROFILE_SCHEMA).expect("the profile schema is JSON")
}

static SCHEMA: LazyLock<jsonschema::Validator> =
    LazyLock::new(|| jsonschema::draft7::new(&schema()).expect("the profile schema compiles"));

fn schema_errors(instance: &Value) -> Vec<String> {
    SCHEMA
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Arguments that trip (or nearly trip) the confirmation and format rules.
const FLAGS: &[&str] = &[
    "--yes",
    "-y",
    "--force",
    "--confirm",
    "--confirm-destructive",
    "--assume-yes",
    "--auto-approve",
    "--live",
    "--yes=true",
    "--yes=\n",
    "-f",
    "-f=x",
    "--json",
    "--json=\n",
    "--jsonpath",
    "--format",
    "--format=json",
    "--format=JSON",
    "--format=%H",
    "--output",
    "--output=yaml",
    "-o",
    "-ojson",
    "-oJSONL",
    "-o=json",
    "-output",
    "json",
    "jsonl",
    "plain",
    "YAML",
    "--dry-run",
    "--stream",
    "--forced",
    "-yes",
];

/// Other strings that trip rules: kinds, versions, commands, field names.
const INTERESTING: &[&str] = &[
    "read",
    "destructive",
    "invalid",
    "stream",
    "mutating",
    "INT",
    "TERM",
    "1.0",
    "2.0",
    "sh",
    "",
    "/",
    "~",
    "./x",
    "name",
    "argv",
    "kind",
    "dry_run_flag",
    "deadline_seconds",
    "signal",
    "after_lines",
    "timeout_seconds",
    "probes",
    "command",
    "argument_order",
    "global_flag",
    "value",
    "alternate_value",
    "positional",
    "é✓",
    "a/b~c",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1000.0f64..1000.0).prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        prop::sample::select(&[0.0, 0.5, 1.0, 2.0, 120.0, 120.5, 121.0, -0.0, 1e300][..])
            .prop_map(Value::from),
        "\\PC{0,16}".prop_map(Value::String),
        prop::sample::select(INTERESTING).prop_map(Value::from),
        prop::sample::select(FLAGS).prop_map(Value::from),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(INTERESTING).prop_map(str::to_string),
        "\\PC{0,8}",
    ]
}

/// Any JSON value, biased towards profile-like keys and strings.
fn arbitrary_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

#[derive(Debug, Clone)]
enum Token {
    Key(String),
    Index(usize),
}

/// Every value's path in `doc`, the root first.
fn paths(doc: &Value) -> Vec<Vec<Token>> {
    fn walk(value: &Value, path: &mut Vec<Token>, out: &mut Vec<Vec<Token>>) {
        out.push(path.clone());
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(Token::Index(i));
                    walk(item, path, out);
                    path.pop();
                }
            }
            Value::Object(members) => {
                for (k, v) in members {
                    path.push(Token::Key(k.clone()));
                    walk(v, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(doc, &mut Vec::new(), &mut out);
    out
}

fn at_mut<'a>(doc: &'a mut Value, path: &[Token]) -> &'a mut Value {
    path.iter().fold(doc, |value, token| match token {
        Token::Key(k) => &mut value[k.as_str()],
        Token::Index(i) => &mut value[*i],
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    /// Drop a member or element (the root becomes null).
    Remove(Index),
    /// Replace a value with an arbitrary one.
    Replace(Index, Value),
    /// Replace a string with a number.
    StringToNumber(Index, f64),
    /// Add a member to an object.
    InsertKey(Index, String, Value),
    /// Insert an interesting string into an array.
    InsertString(Index, Index, &'static str),
    /// Insert a flag into a probe's argv.
    InsertArgument(Index, Index, &'static str),
    /// Replace a string with an interesting one.
    SetString(Index, &'static str),
    /// Wrap a value in arrays and objects.
    Nest(Index, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::Remove),
        (any::<Index>(), arbitrary_json()).prop_map(|(i, v)| Mutation::Replace(i, v)),
        (
            any::<Index>(),
            prop::sample::select(&[0.0, 1.0, 2.0, 1.5, -3.0, 1e20][..])
        )
            .prop_map(|(i, n)| Mutation::StringToNumber(i, n)),
        (any::<Index>(), key(), leaf()).prop_map(|(i, k, v)| Mutation::InsertKey(i, k, v)),
        (
            any::<Index>(),
            any::<Index>(),
            prop::sample::select(INTERESTING)
        )
            .prop_map(|(i, j, s)| Mutation::InsertString(i, j, s)),
        (any::<Index>(), any::<Index>(), prop::sample::select(FLAGS))
            .prop_map(|(i, j, s)| Mutation::InsertArgument(i, j, s)),
        (
            any::<Index>(),
            prop::sample::select([FLAGS, INTERESTING].concat())
        )
            .prop_map(|(i, s)| Mutation::SetString(i, s)),
        (any::<Index>(), 1usize..160).prop_map(|(i, depth)| Mutation::Nest(i, depth)),
    ]
}

fn apply(doc: &mut Value, mutation: &Mutation) {
    let all = paths(doc);
    let pick = |index: &Index, filter: &dyn Fn(&Value) -> bool, doc: &Value| {
        let candidates: Vec<&Vec<Token>> = all
            .iter()
            .filter(|p| {
                let mut value = doc;
                for token in p.iter() {
                    value = match token {
                        Token::Key(k) => &value[k.as_str()],
                        Token::Index(i) => &value[*i],
                    };
                }
                filter(value)
            })
            .collect();
        (!candidates.is_empty()).then(|| candidates[index.index(candidates.len())].clone())
    };
    match mutation {
        Mutation::Remove(i) => {
            let path = all[i.index(all.len())].clone();
            match path.split_last() {
                None => *doc = Value::Null,
                Some((last, parent)) => match (at_mut(doc, parent), last) {
                    (Value::Object(members), Token::Key(k)) => {
                        members.remove(k);
                    }
                    (Value::Array(items), Token::Index(i)) => {
                        items.remove(*i);
                    }
                    _ => unreachable!("paths follow the document"),
                },
            }
        }
        Mutation::Replace(i, value) => {
            let path = all[i.index(all.len())].clone();
            *at_mut(doc, &path) = value.clone();
        }
        Mutation::StringToNumber(i, n) => {
            if let Some(path) = pick(i, &Value::is_string, doc) {
                *at_mut(doc, &path) = json!(n);
            }
        }
        Mutation::InsertKey(i, key, value) => {
            if let Some(path) = pick(i, &Value::is_object, doc) {
                if let Value::Object(members) = at_mut(doc, &path) {
                    members.insert(key.clone(), value.clone());
                }
            }
        }
        Mutation::InsertString(i, at, s) => {
            if let Some(path) = pick(i, &Value::is_array, doc) {
                if let Value::Array(items) = at_mut(doc, &path) {
                    items.insert(at.index(items.len() + 1), json!(s));
                }
            }
        }
        Mutation::InsertArgument(i, at, s) => {
            if let Some(Value::Array(probes)) = doc.get_mut("probes") {
                if !probes.is_empty() {
                    let probe = i.index(probes.len());
                    if let Some(Value::Array(argv)) = probes[probe].get_mut("argv") {
                        argv.insert(at.index(argv.len() + 1), json!(s));
                    }
                }
            }
        }
        Mutation::SetString(i, s) => {
            if let Some(path) = pick(i, &Value::is_string, doc) {
                *at_mut(doc, &path) = json!(s);
            }
        }
        Mutation::Nest(i, depth) => {
            let path = all[i.index(all.len())].clone();
            let target = at_mut(doc, &path);
            let mut value = target.take();
            for level in 0..*depth {
                value = if level % 2 == 0 {
                    json!([value])
                } else {
                    json!({ "probes": value })
                };
            }
            *target = value;
        }
    }
}

/// Violations the schema cannot express, recognised by their message.
const VALIDATOR_ONLY_MESSAGES: &[&str] = &[
    "duplicate probe name",
    "alternate_value must differ from value",
    "\"--format\" selects the",
    "\"--output\" selects the",
    "\"-o\" selects the",
    "is the profile's argument_order.global_flag",
    "argv already contains the dry_run_flag",
    "argument_order names a destructive command",
];

fn parent(pointer: &str) -> &str {
    pointer.rfind('/').map_or("", |cut| &pointer[..cut])
}

/// What must hold for any document, valid or not.
fn check_document(doc: &Value) -> Result<(), TestCaseError> {
    let violations = profile::validate_document(doc);
    for v in &violations {
        prop_assert!(
            v.pointer.is_empty() || v.pointer.starts_with('/'),
            "pointer {:?}",
            v.pointer
        );
        // The offending value exists, or (a missing member) its parent does.
        prop_assert!(
            doc.pointer(&v.pointer).is_some() || doc.pointer(parent(&v.pointer)).is_some(),
            "pointer {:?} leads nowhere in {doc}",
            v.pointer
        );
        prop_assert!(!v.message.is_empty() && !v.fix.is_empty());
    }
    // The schema never rejects what the validator accepts, and whatever the schema
    // accepts but the validator rejects is a rule the schema cannot state.
    let schema_errors = schema_errors(doc);
    if violations.is_empty() {
        prop_assert!(
            schema_errors.is_empty(),
            "validator accepts, schema rejects: {schema_errors:?}\n{doc}"
        );
    } else if schema_errors.is_empty() {
        for v in &violations {
            prop_assert!(
                VALIDATOR_ONLY_MESSAGES
                    .iter()
                    .any(|m| v.message.contains(m)),
                "schema accepts what the validator rejects: {} {}\n{doc}",
                v.pointer,
                v.message
            );
        }
    }
    Ok(())
}

/// What must hold for any text given to `parse`.
fn check_text(text: &str) -> Result<(), TestCaseError> {
    match profile::parse(text, &valid_dir()) {
        Ok((parsed, program)) => {
            let doc: Value = serde_json::from_str(text).expect("parse accepted it");
            prop_assert_eq!(profile::validate_document(&doc), Vec::<Violation>::new());
            prop_assert_eq!(&json!(parsed.tool), &doc["tool"]);
            prop_assert!(program.is_file());
        }
        Err(violations) => {
            prop_assert!(!violations.is_empty(), "an error lists its violations");
            // A document the validator accepts can only fail on its command, or on a
            // key the text gives twice (which the parsed document cannot show).
            if let Ok(doc) = serde_json::from_str::<Value>(text) {
                if profile::validate_document(&doc).is_empty() {
                    prop_assert!(
                        violations
                            .iter()
                            .all(|v| v.pointer == "/command/0"
                                || v.message.starts_with("duplicate key")),
                        "valid document rejected: {violations:?}"
                    );
                }
            }
            for v in &violations {
                prop_assert!(
                    v.pointer.is_empty() || v.pointer.starts_with('/'),
                    "pointer {:?}",
                    v.pointer
                );
                prop_assert!(
                    v.line.is_some_and(|l| l >= 1) && v.column.is_some_and(|c| c >= 1),
                    "violation without a location: {v:?}"
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_never_panics_and_is_judged_consistently(doc in arbitrary_json()) {
        check_document(&doc)?;
        check_text(&doc.to_string())?;
    }

    #[test]
    fn mutated_seed_profiles_never_panic_and_are_judged_consistently(
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let mut doc = seed_profile();
        for m in &mutations {
            apply(&mut doc, m);
        }
        check_document(&doc)?;
        check_text(&serde_json::to_string_pretty(&doc).unwrap())?;
    }

    #[test]
    fn arbitrary_bytes_never_panic_parse(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check_text(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn edited_profile_text_never_panics_parse(
        edits in prop::collection::vec((any::<Index>(), 0usize..4, "[\\[\\]{}\":,\\\\ \n0-9a-z]{0,3}"), 1..4),
    ) {
        let mut text = serde_json::to_string_pretty(&seed_profile()).unwrap();
        for (at, delete, insert) in &edits {
            let boundaries: Vec<usize> = text
                .char_indices()
                .map(|(i, _)| i)
                .chain([text.len()])
                .collect();
            let start = boundaries[at.index(boundaries.len())];
            let end = boundaries
                .iter()
                .copied()
                .find(|&b| b >= start + delete)
                .unwrap_or(text.len());
            text.replace_range(start..end, insert);
        }
        check_text(&text)?;
    }
}

#[test]
fn the_unmutated_seed_profile_parses() {
    let text = serde_json::to_string_pretty(&seed_profile()).unwrap();
    let (parsed, program) = profile::parse(&text, &valid_dir()).expect("the seed example is valid");
    assert_eq!(parsed.probes.len(), 5);
    assert_eq!(parsed.probes[4].after_lines, Some(2));
    assert!(program.ends_with("sh"));
}

/// A generated profile as large as a big CLI's: every probe is checked (a duplicate
/// name near the end is found and points at both probes), and its validation stays
/// linear in the number of probes (benchmark/validate.sh measures 100,000).
#[test]
fn a_profile_of_many_probes_is_judged_whole() {
    let count = 5_000;
    let mut probes: Vec<Value> = (0..count)
        .map(|i| json!({ "name": format!("probe {i}"), "argv": ["get", i.to_string()], "kind": "read" }))
        .collect();
    let doc = |probes: &[Value]| {
        json!({ "schema_version": "1.0", "tool": "big", "command": ["sh"],
                "timeout_seconds": 5, "probes": probes })
    };
    assert_eq!(profile::validate_document(&doc(&probes)), []);
    probes[count - 1]["name"] = json!("probe 17");
    let violations = profile::validate_document(&doc(&probes));
    let found: Vec<(&str, &str)> = violations
        .iter()
        .map(|v| (v.pointer.as_str(), v.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [(
            "/probes/4999/name",
            "duplicate probe name \"probe 17\" (already used by /probes/17)"
        )]
    );
}
