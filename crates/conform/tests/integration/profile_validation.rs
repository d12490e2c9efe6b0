//! `conform validate` and `conform schema` against the profile fixtures
//! (tests/fixtures/profiles/): every valid profile is accepted, every rule of the
//! profile format rejects its fixture with the expected pointer and message, and the
//! hand-written JSON Schema agrees with the validator wherever a schema can state the
//! rule. That arbitrary or mutated documents never make validation panic is
//! conform-core's to test (src/profile/tests.rs), on the validator itself.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use assert_cmd::cargo::cargo_bin_cmd;
use serde::Deserialize;
use serde_json::{json, Value};

/// The profile format's JSON Schema, the file conform-core embeds and `conform
/// schema` prints.
const PROFILE_SCHEMA: &str =
    include_str!("../../../conform-core/schemas/conformance-profile.schema.json");

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

fn profiles_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/profiles")
}

fn valid_dir() -> PathBuf {
    profiles_dir().join("valid")
}

fn invalid_dir() -> PathBuf {
    profiles_dir().join("invalid")
}

/// The `*.json` files directly in `dir`, in name order, without `expected.json`.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension() == Some(OsStr::new("json")))
        .filter(|p| p.file_name() != Some(OsStr::new("expected.json")))
        .collect();
    files.sort();
    files
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .and_then(OsStr::to_str)
        .expect("fixture names are UTF-8")
        .to_string()
}

/// One entry of `invalid/expected.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    /// A violation must have exactly this pointer...
    pointer: String,
    /// ...and a message containing this.
    message_contains: String,
    /// Whether the JSON Schema rejects the fixture too; false marks validator-only rules.
    schema_rejects: bool,
    /// How many violations the fixture has in all.
    #[serde(default = "one")]
    violations: usize,
    /// The violation's fix contains this.
    #[serde(default)]
    fix_contains: Option<String>,
    #[serde(default)]
    line: Option<usize>,
    #[serde(default)]
    column: Option<usize>,
}

fn one() -> usize {
    1
}

fn expected() -> BTreeMap<String, Expected> {
    let path = invalid_dir().join("expected.json");
    let text = std::fs::read_to_string(&path).expect("invalid/expected.json is readable");
    serde_json::from_str(&text).expect("invalid/expected.json parses")
}

/// The fixtures whose rule no JSON Schema can state: the rule relates two values
/// (unique names, alternate_value != value, a flag followed by its value, the
/// profile's own global flag, argv containing dry_run_flag, argument_order against the
/// destructive probes), needs the file system (command resolution), or is about the
/// text rather than the parsed document (duplicate keys, not JSON at all).
const VALIDATOR_ONLY: &[&str] = &[
    "alternate_value_equals_value",
    "argument_order_local_args_dry_run_flag",
    "command_format_json",
    "command_is_directory",
    "command_not_executable",
    "command_not_found_relative",
    "command_not_on_path",
    "destructive_argv_contains_dry_run_flag",
    "duplicate_key_kind",
    "duplicate_key_probes",
    "duplicate_probe_names",
    "empty_file",
    "format_format_json_in_invalid",
    "format_global_flag",
    "format_output_yaml_in_destructive",
    "format_short_o_json",
    "malformed_json",
    "not_utf8",
];

/// The seed's valid example (valid/seed_example.json) with a bare command, `sh`,
/// that resolves through PATH anywhere; conform-core's property tests mutate it.
fn seed_profile() -> Value {
    let path = profiles_dir().join("seed.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// ---------------------------------------------------------------------------
// Running conform
// ---------------------------------------------------------------------------

struct Output {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Output {
    /// stdout as the one JSON document conform prints when piped.
    fn envelope(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not one JSON document ({e})\nstdout:\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// Run conform with stdout piped (so not a terminal) and colors off.
fn conform_in<I, S>(cwd: &Path, args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let output = cargo_bin_cmd!("conform")
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .expect("conform starts");
    Output {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn conform<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    conform_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

fn validate(path: &Path) -> Output {
    conform([OsStr::new("validate"), path.as_os_str()])
}

/// Asserts the envelope of an invalid profile and returns its violations.
fn invalid_envelope(output: &Output, what: &str) -> Vec<Value> {
    assert_eq!(
        output.code,
        Some(2),
        "{what}: exit code\nstdout:\n{}",
        output.stdout
    );
    let envelope = output.envelope();
    assert_eq!(envelope["ok"], false, "{what}: ok");
    assert_eq!(envelope["data"], Value::Null, "{what}: data");
    assert_eq!(envelope["error"]["code"], "INVALID_PROFILE", "{what}: code");
    assert_eq!(envelope["error"]["phase"], "validation", "{what}: phase");
    assert_eq!(envelope["error"]["retryable"], false, "{what}: retryable");
    assert_eq!(envelope["meta"]["exit_code"], 2, "{what}: meta.exit_code");
    envelope["error"]["context"]["violations"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: error.context.violations is an array: {envelope:#}"))
        .clone()
}

// ---------------------------------------------------------------------------
// Valid profiles
// ---------------------------------------------------------------------------

#[test]
fn every_valid_fixture_exits_0_with_an_ok_envelope() {
    let files = json_files(&valid_dir());
    assert!(files.len() >= 10, "valid fixtures: {files:?}");
    for file in &files {
        let output = validate(file);
        let what = file.display();
        assert_eq!(output.code, Some(0), "{what}\nstdout:\n{}", output.stdout);
        let envelope = output.envelope();
        assert_eq!(envelope["ok"], true, "{what}");
        assert_eq!(envelope["error"], Value::Null, "{what}");
        assert_eq!(envelope["meta"]["exit_code"], 0, "{what}");
        assert_eq!(envelope["warnings"], json!([]), "{what}");

        let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let profiles = envelope["data"]["profiles"]
            .as_array()
            .expect("data.profiles");
        assert_eq!(profiles.len(), 1, "{what}");
        let entry = &profiles[0];
        assert_eq!(entry["valid"], true, "{what}");
        assert_eq!(entry["profile"], file.display().to_string(), "{what}");
        assert_eq!(entry["tool"], doc["tool"], "{what}");
        assert_eq!(
            entry["probes"],
            doc["probes"].as_array().unwrap().len(),
            "{what}"
        );
        let program = Path::new(entry["program"].as_str().expect("program"));
        assert!(
            program.is_absolute() && program.is_file(),
            "{what}: program {program:?}"
        );
    }
}

#[test]
fn a_relative_command_resolves_against_the_profile_directory_not_the_working_directory() {
    // From profiles/, "../bin/fake-tool" would be tests/fixtures/bin/fake-tool, which
    // does not exist; from the profile's directory (valid/) it is profiles/bin/fake-tool.
    let cwd = profiles_dir();
    assert!(!cwd.join("../bin/fake-tool").exists());
    let output = conform_in(&cwd, ["validate", "valid/relative_command.json"]);
    assert_eq!(output.code, Some(0), "stdout:\n{}", output.stdout);
    let envelope = output.envelope();
    let expected = std::fs::canonicalize(cwd.join("bin/fake-tool")).unwrap();
    assert_eq!(
        envelope["data"]["profiles"][0]["program"],
        expected.display().to_string()
    );
}

#[test]
fn a_profile_copied_elsewhere_with_its_tool_still_validates() {
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join("tools/mytool");
    std::fs::create_dir_all(tool.parent().unwrap()).unwrap();
    std::fs::write(&tool, "#!/bin/sh\nexit 0\n").unwrap();
    let profile = dir.path().join("conformance-profile.json");
    let mut doc = seed_profile();
    doc["command"] = json!(["./tools/mytool"]);
    std::fs::write(&profile, doc.to_string()).unwrap();

    // Not executable yet: refused with the chmod fix.
    let violations = invalid_envelope(&validate(&profile), "no exec bit");
    assert_eq!(violations.len(), 1, "{violations:#?}");
    assert_eq!(violations[0]["pointer"], "/command/0");
    assert!(violations[0]["fix"].as_str().unwrap().contains("chmod +x"));

    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let output = validate(&profile);
    assert_eq!(output.code, Some(0), "stdout:\n{}", output.stdout);
    assert_eq!(
        output.envelope()["data"]["profiles"][0]["probes"],
        5,
        "the seed example has five probes"
    );
}

#[test]
fn a_bare_command_found_through_a_relative_path_entry_runs_from_the_profile_directory() {
    // Runs happen in the profile's directory (profiles/), where neither "tools" nor
    // the working directory finds the tool: the program must be resolved at load.
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let tool = root.join("tools/mytool");
    let log = root.join("ran.log");
    std::fs::create_dir_all(root.join("tools")).unwrap();
    std::fs::create_dir_all(root.join("profiles")).unwrap();
    std::fs::write(
        &tool,
        format!("#!/bin/sh\necho \"$@\" >> '{}'\nexit 0\n", log.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let profile = root.join("profiles/p.json");
    let doc = json!({
        "schema_version": "1.0", "tool": "mytool", "command": ["mytool"], "timeout_seconds": 5,
        "probes": [{ "name": "list", "argv": ["list"], "kind": "read" }]
    });
    std::fs::write(&profile, doc.to_string()).unwrap();

    let inherited = std::env::var_os("PATH").unwrap_or_default();
    // "tools" from the root, and an empty entry (the working directory) from tools/.
    for (cwd, entry) in [(root.clone(), "tools"), (root.join("tools"), "")] {
        let path = std::env::join_paths(
            std::iter::once(PathBuf::from(entry)).chain(std::env::split_paths(&inherited)),
        )
        .unwrap();
        let conform_with_path = |args: &[&OsStr]| {
            let output = cargo_bin_cmd!("conform")
                .args(args)
                .current_dir(&cwd)
                .env("PATH", &path)
                .env("NO_COLOR", "1")
                .output()
                .expect("conform starts");
            Output {
                code: output.status.code(),
                stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            }
        };
        let what = format!("PATH entry {entry:?} from {}", cwd.display());

        let output = conform_with_path(&[OsStr::new("validate"), profile.as_os_str()]);
        assert_eq!(output.code, Some(0), "{what}\n{}", output.stdout);
        assert_eq!(
            output.envelope()["data"]["profiles"][0]["program"],
            tool.display().to_string(),
            "{what}: the absolute path the runs use"
        );

        let _ = std::fs::remove_file(&log);
        let output = conform_with_path(&[
            OsStr::new("run"),
            profile.as_os_str(),
            OsStr::new("--only"),
            OsStr::new("no_hang_stdin_closed"),
        ]);
        assert_eq!(
            output.code,
            Some(0),
            "{what}\nstdout:\n{}\nstderr:\n{}",
            output.stdout,
            output.stderr
        );
        let ran = std::fs::read_to_string(&log).unwrap_or_default();
        assert_eq!(
            ran, "list\n",
            "{what}: the tool ran once, with the probe's argv"
        );
    }
}

#[test]
fn the_committed_democli_profile_validates() {
    // The seed's valid example, verbatim; its command is the reference CLI's launcher.
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/profiles/democli.json");
    let output = validate(&path);
    assert_eq!(
        output.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        output.stdout,
        output.stderr
    );
    let entry = &output.envelope()["data"]["profiles"][0];
    assert_eq!(entry["tool"], "democli");
    assert_eq!(entry["probes"], 5);
    assert!(entry["program"]
        .as_str()
        .unwrap()
        .ends_with("benchmark/harness/cli/good/democli"));
}

// ---------------------------------------------------------------------------
// Invalid profiles
// ---------------------------------------------------------------------------

#[test]
fn every_invalid_fixture_has_an_expectation_and_every_expectation_a_fixture() {
    let fixtures: Vec<String> = json_files(&invalid_dir()).iter().map(|p| stem(p)).collect();
    let expected: Vec<String> = expected().into_keys().collect();
    assert_eq!(fixtures, expected);
    assert!(fixtures.len() >= 60, "{} invalid fixtures", fixtures.len());
}

#[test]
fn every_invalid_fixture_exits_2_with_its_violation() {
    let expected = expected();
    for (name, want) in &expected {
        let file = invalid_dir().join(format!("{name}.json"));
        let output = validate(&file);
        let violations = invalid_envelope(&output, name);
        let shown = serde_json::to_string_pretty(&violations).unwrap();
        assert_eq!(
            violations.len(),
            want.violations,
            "{name}: violation count\n{shown}"
        );
        let found = violations
            .iter()
            .find(|v| {
                v["pointer"] == want.pointer.as_str()
                    && v["message"]
                        .as_str()
                        .is_some_and(|m| m.contains(&want.message_contains))
            })
            .unwrap_or_else(|| {
                panic!(
                    "{name}: no violation at {:?} containing {:?}\n{shown}",
                    want.pointer, want.message_contains
                )
            });
        if let Some(fix) = &want.fix_contains {
            assert!(
                found["fix"].as_str().unwrap().contains(fix.as_str()),
                "{name}: fix {:?} lacks {fix:?}",
                found["fix"]
            );
        }
        if let Some(line) = want.line {
            assert_eq!(found["line"], line, "{name}: line\n{shown}");
        }
        if let Some(column) = want.column {
            assert_eq!(found["column"], column, "{name}: column\n{shown}");
        }
        for v in &violations {
            assert_eq!(v["profile"], file.display().to_string(), "{name}");
            assert!(
                v["fix"].as_str().is_some_and(|f| !f.is_empty()),
                "{name}: every violation says how to fix it\n{shown}"
            );
            let pointer = v["pointer"].as_str().expect("pointer is a string");
            assert!(
                pointer.is_empty() || pointer.starts_with('/'),
                "{name}: {pointer:?}"
            );
            // Every file that is UTF-8 gets a location for every violation.
            if name != "not_utf8" {
                assert!(
                    v["line"].as_u64().is_some_and(|l| l >= 1)
                        && v["column"].as_u64().is_some_and(|c| c >= 1),
                    "{name}: violation without a location\n{shown}"
                );
            }
        }
    }
}

#[test]
fn a_profile_with_several_violations_reports_all_of_them_in_document_order() {
    let file = invalid_dir().join("several_violations.json");
    let output = validate(&file);
    let violations = invalid_envelope(&output, "several_violations");
    let pointers: Vec<&str> = violations
        .iter()
        .map(|v| v["pointer"].as_str().unwrap())
        .collect();
    assert_eq!(
        pointers,
        [
            "/schema_version",
            "/command/0",
            "/timeout_seconds",
            "/argument_order/alternate_value",
            "/probes/0/argv/2",
            "/probes/0/signal",
            "/probes/1/dry_run_flag",
            "/probes/1/name",
            "/probes/1/argv/2",
            "/probes/2/signal",
            "/probes/2/after_lines",
            "/probes/2/dry_run_flag",
            "/probes/3/kind",
            "/probes/3/timeout",
        ]
    );
    let lines: Vec<u64> = violations
        .iter()
        .map(|v| v["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [2, 4, 5, 6, 8, 8, 9, 9, 9, 10, 10, 10, 11, 11]);
    let message = output.envelope()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.starts_with("14 profile violations:") && message.ends_with("(and 13 more)"),
        "{message}"
    );
}

#[test]
fn violations_of_several_profiles_are_all_reported_each_naming_its_profile() {
    let first = invalid_dir().join("duplicate_probe_names.json");
    let second = invalid_dir().join("unknown_root_field_typo.json");
    let valid = valid_dir().join("minimal.json");
    let output = conform([
        OsStr::new("validate"),
        first.as_os_str(),
        valid.as_os_str(),
        second.as_os_str(),
    ]);
    let violations = invalid_envelope(&output, "three profiles");
    let profiles: Vec<&str> = violations
        .iter()
        .map(|v| v["profile"].as_str().unwrap())
        .collect();
    let first = first.display().to_string();
    let second = second.display().to_string();
    assert_eq!(profiles, [first.as_str(), second.as_str(), second.as_str()]);
}

#[test]
fn malformed_json_reports_the_line_and_column_of_the_syntax_error() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // A missing comma between two members: the second key is unexpected.
        (
            "{\n  \"schema_version\": \"1.0\"\n  \"tool\": \"x\"\n}\n",
            3,
            3,
        ),
        // An unterminated array: the file ends inside it.
        ("{\n  \"command\": [\"sh\",\n", 3, 1),
        // A bare word where a value belongs.
        ("{\"tool\": democli}", 1, 10),
    ];
    for (i, (text, line, column)) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("case{i}.json"));
        std::fs::write(&path, text).unwrap();
        let violations = invalid_envelope(&validate(&path), text);
        assert_eq!(violations.len(), 1, "{text:?}: {violations:#?}");
        let v = &violations[0];
        assert_eq!(v["pointer"], "", "{text:?}");
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .starts_with("the profile is not valid JSON"),
            "{text:?}: {v}"
        );
        assert_eq!(
            (&v["line"], &v["column"]),
            (&json!(line), &json!(column)),
            "{text:?}: {v}"
        );
    }
}

#[test]
fn violations_point_at_the_line_and_column_of_the_offending_value() {
    // Members are located at their key; array elements at their first character.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    let text = concat!(
        "{\n",
        "  \"schema_version\": \"1.0\",\n",
        "  \"tool\": \"t\",\n",
        "  \"command\": [\"sh\"],\n",
        "  \"timeout_seconds\": 5,\n",
        "  \"probes\": [\n",
        "    {\n",
        "      \"name\": \"list\",\n",
        "      \"argv\": [\"list\",\n",
        "               \"--yes\"],\n",
        "      \"kind\": \"read\"\n",
        "    }\n",
        "  ]\n",
        "}\n",
    );
    std::fs::write(&path, text).unwrap();
    let violations = invalid_envelope(&validate(&path), "located");
    assert_eq!(violations.len(), 1, "{violations:#?}");
    assert_eq!(violations[0]["pointer"], "/probes/0/argv/1");
    assert_eq!(
        (&violations[0]["line"], &violations[0]["column"]),
        (&json!(10), &json!(16))
    );
}

#[test]
fn an_unreadable_profile_is_invalid_and_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    let violations = invalid_envelope(&validate(&missing), "missing file");
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0]["pointer"], "");
    assert!(violations[0]["message"]
        .as_str()
        .unwrap()
        .contains(&missing.display().to_string()));
}

// ---------------------------------------------------------------------------
// Directories
// ---------------------------------------------------------------------------

#[test]
fn validating_a_directory_validates_every_json_file_in_it() {
    let output = conform([OsStr::new("validate"), valid_dir().as_os_str()]);
    assert_eq!(output.code, Some(0), "stdout:\n{}", output.stdout);
    let envelope = output.envelope();
    let reported: Vec<String> = envelope["data"]["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["valid"], true);
            stem(Path::new(p["profile"].as_str().unwrap()))
        })
        .collect();
    let on_disk: Vec<String> = json_files(&valid_dir()).iter().map(|p| stem(p)).collect();
    assert_eq!(reported, on_disk);
}

#[test]
fn one_invalid_profile_in_a_directory_fails_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        valid_dir().join("minimal.json"),
        dir.path().join("a-valid.json"),
    )
    .unwrap();
    std::fs::copy(
        invalid_dir().join("kind_mutating.json"),
        dir.path().join("b-invalid.json"),
    )
    .unwrap();
    // Not *.json: ignored, although it is not a profile.
    std::fs::write(dir.path().join("README.md"), "# profiles\n").unwrap();
    std::fs::create_dir(dir.path().join("nested.json")).unwrap();

    let violations = invalid_envelope(
        &conform([OsStr::new("validate"), dir.path().as_os_str()]),
        "mixed directory",
    );
    assert_eq!(violations.len(), 1, "{violations:#?}");
    assert!(violations[0]["profile"]
        .as_str()
        .unwrap()
        .ends_with("b-invalid.json"));
    assert_eq!(violations[0]["pointer"], "/probes/0/kind");
}

#[test]
fn a_directory_without_profiles_is_an_invalid_profile_error() {
    let dir = tempfile::tempdir().unwrap();
    let output = conform([OsStr::new("validate"), dir.path().as_os_str()]);
    assert_eq!(output.code, Some(2));
    let envelope = output.envelope();
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["error"]["code"], "INVALID_PROFILE");
    assert_eq!(envelope["error"]["phase"], "validation");
    assert_eq!(envelope["meta"]["exit_code"], 2);
    assert!(envelope["error"]["message"]
        .as_str()
        .unwrap()
        .contains("contains no *.json profile"));
}

// ---------------------------------------------------------------------------
// Text output
// ---------------------------------------------------------------------------

#[test]
fn text_output_names_file_line_column_and_pointer() {
    let file = invalid_dir().join("seed_destructive_without_dry_run_flag.json");
    let output = conform([
        OsStr::new("validate"),
        OsStr::new("--format"),
        OsStr::new("text"),
        file.as_os_str(),
    ]);
    assert_eq!(output.code, Some(2));
    let text = &output.stdout;
    let location = format!("{}:7:5: /probes/0/dry_run_flag: ", file.display());
    assert!(
        text.contains(&format!(
            "error {location}dry_run_flag is required when kind is destructive"
        )),
        "{text}"
    );
    assert!(
        text.contains("  fix: name the flag that turns the command into a preview"),
        "{text}"
    );
    assert!(text.contains("1 violation; nothing was run"), "{text}");
    assert!(
        !text.contains('\x1b'),
        "no colors when not a terminal: {text:?}"
    );
    assert!(
        serde_json::from_str::<Value>(text).is_err(),
        "text, not JSON"
    );
}

#[test]
fn text_output_of_a_treaty_argument_order_says_what_the_seed_says_and_what_to_use() {
    let file = invalid_dir().join("treaty_argument_order_on_destructive_command.json");
    let output = conform([
        OsStr::new("validate"),
        OsStr::new("--format=text"),
        file.as_os_str(),
    ]);
    assert_eq!(output.code, Some(2));
    let text = &output.stdout;
    let location = format!("{}:8:5: /argument_order/command_path: ", file.display());
    assert!(
        text.contains(&format!(
            "error {location}argument_order names a destructive command"
        )),
        "{text}"
    );
    assert!(
        text.contains("\"Path of a side-effect-free command\""),
        "{text}"
    );
    assert!(
        text.contains(
            "  fix: remove argument_order to skip the argument_order check (no read probe gives an option to use), or point it at a read command such as \"command_path\": [\"items\", \"list\"] from read probe \"items list\""
        ),
        "{text}"
    );
    assert!(
        text.contains("This rule is conform's own, stricter than the reference kit, which runs this profile as it is: see the table of differences from the reference kit in conform's docs/differences.md, row \"common mistakes\""),
        "{text}"
    );
    assert!(text.contains("2 violations; nothing was run"), "{text}");
}

#[test]
fn text_output_of_malformed_json_and_of_a_valid_profile() {
    let malformed = invalid_dir().join("malformed_json.json");
    let output = conform([
        OsStr::new("validate"),
        OsStr::new("--format=text"),
        malformed.as_os_str(),
    ]);
    assert_eq!(output.code, Some(2));
    assert!(
        output.stdout.contains(&format!(
            "{}:8:3: the profile is not valid JSON",
            malformed.display()
        )),
        "{}",
        output.stdout
    );

    let valid = valid_dir().join("minimal.json");
    let output = conform([
        OsStr::new("validate"),
        OsStr::new("--format"),
        OsStr::new("text"),
        valid.as_os_str(),
    ]);
    assert_eq!(output.code, Some(0));
    assert!(
        output
            .stdout
            .starts_with(&format!("ok {}: valid (1 probe, runs ", valid.display())),
        "{}",
        output.stdout
    );
}

// ---------------------------------------------------------------------------
// Every constraint of the published profile schema
// ---------------------------------------------------------------------------

/// Every constraint of the spec's published `schemas/conformance-profile.json`
/// (cli-agent-spec.github.io at 840af33), the file the reference kit loads: the
/// keyword there, the keyword of conform's schema that states it and its value (as
/// JSON), the fixture that breaks it alone, and where `conform validate` reports it.
#[rustfmt::skip]
const PUBLISHED_CONSTRAINTS: &[(&str, &str, &str, &str, &str)] = &[
    ("/type", "/type", r#""object""#, "root_not_object", ""),
    ("/required", "/required", r#"["schema_version", "tool", "command", "timeout_seconds", "probes"]"#, "missing_probes", "/probes"),
    ("/additionalProperties", "/additionalProperties", "false", "unknown_root_field_typo", "/timeout_second"),
    ("schema_version/type", "/properties/schema_version/const", r#""1.0""#, "schema_version_number", "/schema_version"),
    ("schema_version/enum", "/properties/schema_version/const", r#""1.0""#, "schema_version_2", "/schema_version"),
    ("tool/type", "/properties/tool/type", r#""string""#, "tool_not_string", "/tool"),
    ("tool/minLength", "/properties/tool/minLength", "1", "tool_empty", "/tool"),
    ("command/type", "/properties/command/type", r#""array""#, "command_not_array", "/command"),
    ("command/minItems", "/properties/command/minItems", "1", "command_empty", "/command"),
    ("command/items/type", "/properties/command/items/0/type", r#""string""#, "command_program_not_string", "/command/0"),
    ("command/items/type", "/properties/command/additionalItems/type", r#""string""#, "command_element_not_string", "/command/1"),
    ("command/items/minLength", "/properties/command/items/0/minLength", "1", "command_empty_string", "/command/0"),
    ("command/items/minLength", "/properties/command/additionalItems/minLength", "1", "command_argument_empty", "/command/1"),
    ("timeout_seconds/type", "/properties/timeout_seconds/type", r#""number""#, "timeout_string", "/timeout_seconds"),
    ("timeout_seconds/exclusiveMinimum", "/properties/timeout_seconds/exclusiveMinimum", "0", "timeout_zero", "/timeout_seconds"),
    ("timeout_seconds/maximum", "/properties/timeout_seconds/maximum", "120", "timeout_121", "/timeout_seconds"),
    ("manifest/type", "/definitions/arguments/type", r#""array""#, "manifest_not_array", "/manifest"),
    ("manifest/items/type", "/definitions/arguments/items/type", r#""string""#, "manifest_element_not_string", "/manifest/1"),
    ("ArgumentOrder/type", "/definitions/ArgumentOrder/type", r#""object""#, "argument_order_not_object", "/argument_order"),
    ("ArgumentOrder/required", "/definitions/ArgumentOrder/required", r#"["command_path", "local_args", "global_flag", "value", "alternate_value"]"#, "missing_alternate_value", "/argument_order/alternate_value"),
    ("ArgumentOrder/additionalProperties", "/definitions/ArgumentOrder/additionalProperties", "false", "unknown_argument_order_field", "/argument_order/positionnal"),
    ("command_path/type", "/definitions/ArgumentOrder/properties/command_path/type", r#""array""#, "argument_order_command_path_not_array", "/argument_order/command_path"),
    ("command_path/minItems", "/definitions/ArgumentOrder/properties/command_path/minItems", "1", "argument_order_command_path_empty", "/argument_order/command_path"),
    ("command_path/items/type", "/definitions/ArgumentOrder/properties/command_path/items/type", r#""string""#, "argument_order_command_path_element_not_string", "/argument_order/command_path/1"),
    ("command_path/items/minLength", "/definitions/ArgumentOrder/properties/command_path/items/minLength", "1", "argument_order_command_path_element_empty", "/argument_order/command_path/1"),
    ("local_args/type", "/definitions/ArgumentOrder/properties/local_args/type", r#""array""#, "argument_order_local_args_not_array", "/argument_order/local_args"),
    ("local_args/minItems", "/definitions/ArgumentOrder/properties/local_args/minItems", "2", "argument_order_local_args_one_item", "/argument_order/local_args"),
    ("local_args/items/type", "/definitions/ArgumentOrder/properties/local_args/items/type", r#""string""#, "argument_order_local_args_element_not_string", "/argument_order/local_args/1"),
    ("global_flag/type", "/definitions/ArgumentOrder/properties/global_flag/type", r#""string""#, "argument_order_global_flag_not_string", "/argument_order/global_flag"),
    ("global_flag/pattern", "/definitions/ArgumentOrder/properties/global_flag/pattern", r#""^--[a-z][a-z0-9-]*$""#, "argument_order_global_flag_with_value", "/argument_order/global_flag"),
    ("value/type", "/definitions/ArgumentOrder/properties/value/type", r#""string""#, "argument_order_value_not_string", "/argument_order/value"),
    ("value/minLength", "/definitions/ArgumentOrder/properties/value/minLength", "1", "argument_order_value_empty", "/argument_order/value"),
    ("alternate_value/type", "/definitions/ArgumentOrder/properties/alternate_value/type", r#""string""#, "argument_order_alternate_value_not_string", "/argument_order/alternate_value"),
    ("alternate_value/minLength", "/definitions/ArgumentOrder/properties/alternate_value/minLength", "1", "argument_order_alternate_value_empty", "/argument_order/alternate_value"),
    ("positional/type", "/definitions/ArgumentOrder/properties/positional/type", r#""string""#, "argument_order_positional_not_string", "/argument_order/positional"),
    ("positional/minLength", "/definitions/ArgumentOrder/properties/positional/minLength", "1", "argument_order_positional_empty", "/argument_order/positional"),
    ("positional/pattern", "/definitions/ArgumentOrder/properties/positional/pattern", r#""^[^-]""#, "argument_order_positional_option", "/argument_order/positional"),
    ("probes/type", "/properties/probes/type", r#""array""#, "probes_not_array", "/probes"),
    ("probes/minItems", "/properties/probes/minItems", "1", "probes_empty", "/probes"),
    ("Probe/type", "/definitions/Probe/type", r#""object""#, "probe_not_object", "/probes/0"),
    ("Probe/required", "/definitions/Probe/required", r#"["name", "argv", "kind"]"#, "missing_probe_kind", "/probes/0/kind"),
    ("Probe/additionalProperties", "/definitions/Probe/additionalProperties", "false", "unknown_probe_field", "/probes/0/dryrun_flag"),
    ("name/type", "/definitions/Probe/properties/name/type", r#""string""#, "name_not_string", "/probes/0/name"),
    ("name/minLength", "/definitions/Probe/properties/name/minLength", "1", "probe_name_empty", "/probes/0/name"),
    ("argv/type", "/definitions/arguments/type", r#""array""#, "argv_not_array", "/probes/0/argv"),
    ("argv/items/type", "/definitions/arguments/items/type", r#""string""#, "argv_element_not_string", "/probes/0/argv/1"),
    ("kind/type and kind/enum", "/definitions/Probe/properties/kind/enum", r#"["read", "destructive", "invalid", "stream"]"#, "kind_mutating", "/probes/0/kind"),
    ("dry_run_flag/type", "/definitions/Probe/properties/dry_run_flag/type", r#""string""#, "dry_run_flag_not_string", "/probes/0/dry_run_flag"),
    ("dry_run_flag/pattern", "/definitions/Probe/properties/dry_run_flag/pattern", r#""^--?[a-z][a-z0-9-]*$""#, "dry_run_flag_with_value", "/probes/0/dry_run_flag"),
    ("deadline_seconds/type", "/definitions/limitSeconds/type", r#""number""#, "deadline_seconds_string", "/probes/0/deadline_seconds"),
    ("deadline_seconds/exclusiveMinimum", "/definitions/limitSeconds/exclusiveMinimum", "0", "deadline_seconds_zero", "/probes/0/deadline_seconds"),
    ("deadline_seconds/maximum", "/definitions/limitSeconds/maximum", "120", "deadline_seconds_too_large", "/probes/0/deadline_seconds"),
    ("signal/type and signal/enum", "/definitions/Probe/properties/signal/const", r#""INT""#, "signal_term", "/probes/0/signal"),
    ("after_lines/type", "/definitions/Probe/properties/after_lines/type", r#""integer""#, "after_lines_fractional", "/probes/0/after_lines"),
    ("after_lines/minimum", "/definitions/Probe/properties/after_lines/minimum", "1", "after_lines_zero", "/probes/0/after_lines"),
    ("Probe/dependencies/signal", "/definitions/Probe/allOf/1/then/dependencies/signal", r#"["after_lines"]"#, "seed_signal_without_after_lines", "/probes/0/after_lines"),
    ("Probe/dependencies/after_lines", "/definitions/Probe/allOf/1/then/dependencies/after_lines", r#"["signal"]"#, "after_lines_without_signal", "/probes/0/signal"),
    ("Probe/allOf/0: destructive needs dry_run_flag", "/definitions/Probe/allOf/0/then/required", r#"["dry_run_flag"]"#, "seed_destructive_without_dry_run_flag", "/probes/0/dry_run_flag"),
    ("Probe/allOf/1/then: no dry_run_flag on stream", "/definitions/Probe/allOf/1/then/not/required", r#"["dry_run_flag"]"#, "dry_run_flag_on_stream_probe", "/probes/0/dry_run_flag"),
    ("Probe/allOf/1/else: deadline_seconds on stream only", "/definitions/Probe/allOf/1/else/allOf/0/not/required", r#"["deadline_seconds"]"#, "deadline_seconds_on_read_probe", "/probes/0/deadline_seconds"),
    ("Probe/allOf/1/else: signal on stream only", "/definitions/Probe/allOf/1/else/allOf/1/not/required", r#"["signal"]"#, "signal_on_read_probe", "/probes/0/signal"),
    ("Probe/allOf/1/else: after_lines on stream only", "/definitions/Probe/allOf/1/else/allOf/2/not/required", r#"["after_lines"]"#, "after_lines_on_invalid_probe", "/probes/0/after_lines"),
];

#[test]
fn every_constraint_of_the_published_profile_schema_is_carried_and_rejects_its_fixture() {
    let schema = schema();
    let expected = expected();
    for &(published, conform_at, value, fixture, pointer) in PUBLISHED_CONSTRAINTS {
        let what = format!("{published} ({fixture})");
        let value: Value = serde_json::from_str(value).expect("the table's values are JSON");
        assert_eq!(
            schema.pointer(conform_at),
            Some(&value),
            "{what}: conform's schema at {conform_at}"
        );
        let want = expected
            .get(fixture)
            .unwrap_or_else(|| panic!("{what}: no expectation in invalid/expected.json"));
        assert_eq!(want.pointer, pointer, "{what}: expected.json's pointer");
        assert!(want.schema_rejects, "{what}: a schema rule");

        let file = invalid_dir().join(format!("{fixture}.json"));
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        // The schema reports the value itself, or (a missing member) its parent.
        let parent = pointer.rsplit_once('/').map_or("", |(p, _)| p);
        let errors: Vec<String> = SCHEMA
            .iter_errors(&doc)
            .map(|e| e.instance_path().to_string())
            .collect();
        assert!(
            errors.iter().any(|at| at == pointer || at == parent),
            "{what}: conform's schema reports {errors:?}"
        );
        let violations = invalid_envelope(&validate(&file), fixture);
        assert!(
            violations.iter().any(|v| v["pointer"] == pointer),
            "{what}: conform validate reports {violations:#?}"
        );
    }
}

#[test]
fn an_empty_probe_list_is_refused_by_run_as_by_the_reference_kit() {
    let file = invalid_dir().join("probes_empty.json");
    let output = conform([OsStr::new("run"), file.as_os_str()]);
    let violations = invalid_envelope(&output, "run probes_empty");
    assert_eq!(violations.len(), 1, "{violations:#?}");
    assert_eq!(violations[0]["pointer"], "/probes");
    assert!(
        violations[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("probes is empty")),
        "{violations:#?}"
    );
}

// ---------------------------------------------------------------------------
// Fixes a tool can apply
// ---------------------------------------------------------------------------

/// The distinct JSON Patch operations of these violations, in their order:
/// violations with one cause carry the same operations.
fn patch_of(violations: &[Value]) -> Vec<Value> {
    let mut operations: Vec<Value> = Vec::new();
    for op in violations.iter().flat_map(|v| {
        v["patch"]
            .as_array()
            .unwrap_or_else(|| panic!("a violation without a patch: {v:#}"))
            .iter()
    }) {
        if !operations.contains(op) {
            operations.push(op.clone());
        }
    }
    operations
}

/// Apply JSON Patch (RFC 6902) replace and remove operations, as a tool would.
fn apply_patch(doc: &mut Value, operations: &[Value]) {
    for op in operations {
        let path = op["path"].as_str().expect("an operation has a path");
        match op["op"].as_str() {
            Some("replace") => {
                let target = doc.pointer_mut(path);
                let target = target.unwrap_or_else(|| panic!("replace: {path} leads nowhere"));
                *target = op["value"].clone();
            }
            Some("remove") => {
                let (parent, key) = path.rsplit_once('/').expect("remove names a member");
                let key = key.replace("~1", "/").replace("~0", "~");
                let removed = doc
                    .pointer_mut(parent)
                    .and_then(Value::as_object_mut)
                    .and_then(|members| members.remove(&key));
                assert!(removed.is_some(), "remove: {path} leads nowhere");
            }
            other => panic!("unexpected operation {other:?} in {op}"),
        }
    }
}

/// `conform validate` on `doc` written as `invalid/<name>.json` of a copy of the
/// fixtures' layout, so that a relative command (`../bin/fake-tool`) still resolves.
fn validate_patched(name: &str, doc: &Value) -> Output {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    std::fs::copy(
        profiles_dir().join("bin/fake-tool"),
        dir.path().join("bin/fake-tool"),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("invalid")).unwrap();
    let file = dir.path().join("invalid").join(format!("{name}.json"));
    std::fs::write(&file, serde_json::to_string_pretty(doc).unwrap()).unwrap();
    validate(&file)
}

fn fixture(name: &str) -> Value {
    let file = invalid_dir().join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap()
}

#[test]
fn the_fixes_for_a_profile_treaty_generated_each_alone_and_all_together_make_it_valid() {
    let name = "treaty_generated_profile";
    let violations = invalid_envelope(&validate(&invalid_dir().join(format!("{name}.json"))), name);
    assert_eq!(violations.len(), 2, "{violations:#?}");
    for v in &violations {
        let fix = v["fix"].as_str().unwrap();
        // The option the read probe gives, named in every fix.
        assert!(
            fix.contains("\"command_path\": [\"items\", \"list\"] and \"local_args\": [\"--env\", \"staging\"]"),
            "{fix}"
        );
        assert_eq!(v["stricter_than_reference"], true, "{v:#}");
        let message = v["message"].as_str().unwrap();
        assert!(
            message.ends_with("This rule is conform's own, stricter than the reference kit, which runs this profile as it is: see the table of differences from the reference kit in conform's docs/differences.md, row \"common mistakes\""),
            "{message}"
        );
    }
    // Removing "--confirm-destructive" alone would leave argument_order on the
    // destructive command: its fix says so and carries the whole repair.
    assert!(violations[1]["fix"].as_str().unwrap().starts_with(
        "removing \"--confirm-destructive\" alone leaves argument_order on a destructive command; "
    ));

    let alone: Vec<&[Value]> = violations.chunks(1).collect();
    for (i, subset) in alone.into_iter().chain([&violations[..]]).enumerate() {
        let mut doc = fixture(name);
        apply_patch(&mut doc, &patch_of(subset));
        assert_eq!(
            doc["argument_order"],
            json!({
                "command_path": ["items", "list"], "local_args": ["--env", "staging"],
                "global_flag": "--format", "value": "json", "alternate_value": "plain"
            }),
            "fix set {i}"
        );
        let output = validate_patched(name, &doc);
        assert_eq!(output.code, Some(0), "fix set {i}: {}", output.stdout);
    }
}

#[test]
fn every_fixture_whose_violations_all_carry_a_patch_is_valid_once_patched() {
    let mut patched = Vec::new();
    for (name, _) in expected() {
        let file = invalid_dir().join(format!("{name}.json"));
        let output = validate(&file);
        let Ok(envelope) = serde_json::from_str::<Value>(&output.stdout) else {
            continue;
        };
        let Some(violations) = envelope["error"]["context"]["violations"].as_array() else {
            continue;
        };
        if violations.is_empty() || violations.iter().any(|v| v.get("patch").is_none()) {
            continue;
        }
        let mut doc = fixture(&name);
        apply_patch(&mut doc, &patch_of(violations));
        let output = validate_patched(&name, &doc);
        assert_eq!(
            output.code,
            Some(0),
            "{name} patched:\n{doc:#}\n{}",
            output.stdout
        );
        patched.push(name);
    }
    for name in [
        "treaty_generated_profile",
        "treaty_argument_order_on_destructive_command",
        "treaty_live_in_destructive_probe",
        "confirmation_in_argument_order",
        "confirmation_yes",
        "command_confirmation_yes",
    ] {
        assert!(
            patched.iter().any(|p| p == name),
            "{name} is not among {patched:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// conform schema
// ---------------------------------------------------------------------------

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

#[test]
fn schema_raw_prints_the_draft_07_schema() {
    let output = conform(["schema", "--raw"]);
    assert_eq!(output.code, Some(0));
    let printed = output.envelope();
    assert_eq!(printed, schema());
    assert_eq!(
        printed["$schema"],
        "http://json-schema.org/draft-07/schema#"
    );
    assert!(
        jsonschema::draft7::meta::is_valid(&printed),
        "a valid draft-07 schema"
    );
    assert_eq!(printed["title"], "ConformanceProfile");
}

#[test]
fn schema_piped_prints_an_envelope_around_the_schema() {
    let output = conform(["schema"]);
    assert_eq!(output.code, Some(0));
    let envelope = output.envelope();
    assert_eq!(envelope["ok"], true);
    assert_eq!(envelope["error"], Value::Null);
    assert_eq!(envelope["meta"]["exit_code"], 0);
    assert_eq!(envelope["data"], schema());
}

// ---------------------------------------------------------------------------
// The schema agrees with the validator
// ---------------------------------------------------------------------------

#[test]
fn the_schema_accepts_every_valid_fixture() {
    for file in json_files(&valid_dir()) {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(
            schema_errors(&doc),
            Vec::<String>::new(),
            "{}",
            file.display()
        );
    }
    assert_eq!(schema_errors(&seed_profile()), Vec::<String>::new());
}

#[test]
fn the_schema_rejects_exactly_the_fixtures_marked_schema_rejects() {
    let mut validator_only = Vec::new();
    for (name, want) in expected() {
        let bytes = std::fs::read(invalid_dir().join(format!("{name}.json"))).unwrap();
        let doc = std::str::from_utf8(&bytes)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(text).ok());
        let Some(doc) = doc else {
            assert!(
                !want.schema_rejects,
                "{name} is not JSON: no schema can judge it"
            );
            validator_only.push(name);
            continue;
        };
        let errors = schema_errors(&doc);
        assert_eq!(
            !errors.is_empty(),
            want.schema_rejects,
            "{name}: schema errors {errors:?}"
        );
        if !want.schema_rejects {
            validator_only.push(name);
        }
    }
    assert_eq!(validator_only, VALIDATOR_ONLY);
}
