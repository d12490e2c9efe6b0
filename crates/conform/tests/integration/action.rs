//! The GitHub Action's script (scripts/action.sh), run step by step as action.yml
//! runs it, in a fake runner environment: GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
//! GITHUB_PATH, RUNNER_TEMP, RUNNER_OS and RUNNER_ARCH, all in a temporary directory.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{repo_root, schema_errors};

const SARIF_SCHEMA: &str = include_str!("../fixtures/sarif/sarif-2.1.0-subset.schema.json");

/// One fake runner: its files, shared by the steps of one job.
struct Runner {
    dir: tempfile::TempDir,
}

/// What one step left: its output, and the runner's files after it.
struct Step {
    output: Output,
    outputs: String,
    summary: String,
}

impl Step {
    fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    /// The value of step output NAME, as `NAME=VALUE` lines of GITHUB_OUTPUT.
    fn output(&self, name: &str) -> Option<&str> {
        let prefix = format!("{name}=");
        self.outputs.lines().find_map(|l| l.strip_prefix(&prefix))
    }

    fn json(&self, name: &str) -> Value {
        let path = self
            .output(name)
            .unwrap_or_else(|| panic!("no output {name}"));
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    }
}

impl Runner {
    fn new() -> Runner {
        let dir = tempfile::tempdir().expect("temp dir");
        // The runner creates these; earlier steps may have written to the summary.
        std::fs::create_dir(dir.path().join("temp")).expect("RUNNER_TEMP");
        std::fs::write(dir.path().join("summary.md"), "earlier step\n").expect("summary");
        Runner { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The directory the cache restores and install fills.
    fn bin_dir(&self) -> PathBuf {
        self.path("temp/conform-action/bin")
    }

    /// Run `action.sh STEP` with the runner's environment and `env`; the output file
    /// is fresh for each step, as on GitHub.
    fn step(&self, step: &str, env: &[(&str, &str)]) -> Step {
        let outputs = self.path("output");
        std::fs::write(&outputs, "").expect("output");
        let mut command = Command::new("bash");
        command
            .arg(repo_root().join("scripts/action.sh"))
            .arg(step)
            .current_dir(repo_root())
            .env("GITHUB_OUTPUT", &outputs)
            .env("GITHUB_STEP_SUMMARY", self.path("summary.md"))
            .env("GITHUB_PATH", self.path("path"))
            .env("RUNNER_TEMP", self.path("temp"))
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("CI", "true")
            // A miss copies the binary cargo built for these tests; never cargo install.
            .env("CONFORM_INSTALL_FROM", env!("CARGO_BIN_EXE_conform"))
            // Never the host's AppArmor: a test says when it is restricted.
            .env("CONFORM_USERNS_RESTRICTION", "/nonexistent")
            .env_remove("CONFORM_BIN");
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.output().expect("bash runs the script");
        let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
        Step {
            outputs: read(&outputs),
            summary: read(&self.path("summary.md")),
            output,
        }
    }

    /// A job whose binary is in place (the cache hit), then `run` with `env`.
    fn run(&self, env: &[(&str, &str)]) -> Step {
        let install = self.step("install", &[]);
        assert_eq!(install.code(), Some(0), "{}", install.stdout());
        let mut env = env.to_vec();
        let sarif = self.path("conform.sarif");
        let sarif = sarif.to_str().expect("UTF-8 path");
        if !env.iter().any(|(name, _)| *name == "INPUT_SARIF") {
            env.push(("INPUT_SARIF", sarif));
        }
        self.step("run", &env)
    }
}

fn democli_launcher() -> String {
    repo_root()
        .join("benchmark/harness/cli/good/democli")
        .display()
        .to_string()
}

#[test]
fn the_cache_key_names_the_version_os_and_architecture_and_is_stable() {
    let runner = Runner::new();
    let first = runner.step("key", &[]);
    assert_eq!(first.code(), Some(0), "{}", first.stdout());
    let key = first.output("cache-key").expect("a cache key").to_string();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        key.starts_with(&format!("conform-{version}-Linux-X64-")),
        "{key}"
    );
    assert_eq!(
        first.output("bin-dir"),
        runner.bin_dir().to_str(),
        "{}",
        first.outputs
    );
    let again = runner.step("key", &[]);
    assert_eq!(again.output("cache-key"), Some(key.as_str()));
    let arm = runner.step("key", &[("RUNNER_ARCH", "ARM64")]);
    assert_ne!(arm.output("cache-key"), Some(key.as_str()));
}

#[test]
fn a_cache_miss_installs_conform_and_puts_it_on_path() {
    let runner = Runner::new();
    let install = runner.step("install", &[]);
    assert_eq!(install.code(), Some(0), "{}", install.stdout());
    assert_eq!(
        install.output("cache-hit"),
        Some("false"),
        "{}",
        install.outputs
    );
    assert!(runner.bin_dir().join("conform").is_file());
    let path = std::fs::read_to_string(runner.path("path")).expect("GITHUB_PATH written");
    assert_eq!(path.trim_end(), runner.bin_dir().to_str().expect("UTF-8"));
}

#[test]
fn a_cache_hit_builds_nothing() {
    let runner = Runner::new();
    // What actions/cache restores: the binary in its directory.
    std::fs::create_dir_all(runner.bin_dir()).expect("bin dir");
    std::fs::copy(
        env!("CARGO_BIN_EXE_conform"),
        runner.bin_dir().join("conform"),
    )
    .expect("copy conform");
    // An install would fail: there is nothing to copy, and no cargo on PATH.
    let install = runner.step(
        "install",
        &[
            ("CONFORM_INSTALL_FROM", "/nonexistent/conform"),
            ("PATH", "/usr/bin:/bin"),
        ],
    );
    assert_eq!(install.code(), Some(0), "{}", install.stdout());
    assert_eq!(
        install.output("cache-hit"),
        Some("true"),
        "{}",
        install.outputs
    );
    assert!(
        install.stdout().contains("nothing to build"),
        "{}",
        install.stdout()
    );
}

#[test]
fn a_passing_run_logs_text_and_writes_the_report_files_and_outputs() {
    let runner = Runner::new();
    // A profile whose path holds a space, given quoted, and arguments one per line.
    let dir = runner.path("my profiles");
    std::fs::create_dir(&dir).expect("profile dir");
    let mut profile: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("conformance/profiles/democli.json"))
            .expect("democli profile"),
    )
    .expect("JSON");
    profile["command"] = serde_json::json!([democli_launcher()]);
    let path = dir.join("democli.json");
    std::fs::write(&path, profile.to_string()).expect("write profile");
    let profiles = format!("'{}'", path.display());
    let junit = runner.path("conform.xml");
    let run = runner.run(&[
        ("INPUT_PROFILES", &profiles),
        ("INPUT_ARGS", "--only help_off_stdout\n--jobs 2"),
        ("INPUT_JUNIT", junit.to_str().expect("UTF-8")),
    ]);
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    // The job log has the text report, not a JSON envelope.
    let log = run.stdout();
    assert!(!log.trim_start().starts_with('{'), "{log}");
    assert!(log.contains("help_off_stdout"), "{log}");
    assert!(run.summary.starts_with("earlier step\n"), "{}", run.summary);
    assert!(run.summary.contains("democli"), "{}", run.summary);
    assert_eq!(run.output("exit-code"), Some("0"), "{}", run.outputs);
    assert_eq!(run.json("sarif")["version"], "2.1.0");
    let report = run.json("json-report");
    assert_eq!(report["exit_code"], 0);
    assert_eq!(
        report["selected_checks"],
        serde_json::json!(["help_off_stdout"])
    );
    assert!(run.output("markdown").is_some(), "{}", run.outputs);
    assert_eq!(run.output("junit"), junit.to_str());
    assert!(junit.is_file());
}

#[test]
fn a_partition_runs_only_its_shard() {
    let runner = Runner::new();
    let shard = |k: &str| {
        let run = runner.run(&[
            ("INPUT_PROFILES", "conformance/profiles/democli.json"),
            ("INPUT_ARGS", "--only help_off_stdout,json_envelope"),
            ("INPUT_PARTITION", k),
        ]);
        assert_eq!(run.code(), Some(0), "{}", run.stdout());
        let report = run.json("json-report");
        let checks: Vec<String> = report["results"][0]["checks"]
            .as_array()
            .map(|c| c.iter().map(|c| c["id"].to_string()).collect())
            .unwrap_or_default();
        checks
    };
    let first = shard("1/2");
    let second = shard("2/2");
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(second.len(), 1, "{second:?}");
    assert_ne!(first, second);
}

#[test]
fn check_mode_runs_conform_check_on_a_tool_command_line() {
    let runner = Runner::new();
    let run = runner.run(&[
        ("INPUT_CHECK", &democli_launcher()),
        ("INPUT_ARGS", "--only help_off_stdout"),
    ]);
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert!(run.stdout().contains("help_off_stdout"), "{}", run.stdout());
    let report = run.json("json-report");
    assert_eq!(report["exit_code"], 0);
    // The job summary says how the runs at the black hole were kept there.
    let network = report["network"].as_str().expect("the report's network");
    assert!(
        run.summary
            .contains(&format!("Network isolation: **{network}**")),
        "{}",
        run.summary
    );
}

#[test]
fn failed_checks_fail_the_step_with_exit_4() {
    let runner = Runner::new();
    let run = runner.run(&[
        (
            "INPUT_PROFILES",
            "conformance/profiles/bad/help-on-stdout.json",
        ),
        ("INPUT_ARGS", "--only help_off_stdout"),
    ]);
    assert_eq!(run.code(), Some(4));
    let stdout = run.stdout();
    assert!(
        stdout.contains("::error::conform: at least one conformance check failed"),
        "{stdout}"
    );
    assert!(run.summary.contains("help_off_stdout"), "{}", run.summary);
    assert_eq!(run.output("exit-code"), Some("4"), "{}", run.outputs);
    let sarif = run.json("sarif");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "help_off_stdout");
}

#[test]
fn an_invalid_profile_still_writes_sarif_that_names_the_error() {
    let runner = Runner::new();
    let profile = runner.path("conformance-profile.json");
    std::fs::write(&profile, "{\"schema_version\": \"1.0\"}\n").expect("profile");
    let run = runner.run(&[("INPUT_PROFILES", profile.to_str().expect("UTF-8"))]);
    assert_eq!(run.code(), Some(2), "{}", run.stdout());
    assert_eq!(run.output("exit-code"), Some("2"), "{}", run.outputs);
    assert_eq!(run.summary, "earlier step\n");
    let sarif = run.json("sarif");
    assert_eq!(schema_errors(SARIF_SCHEMA, &sarif), Vec::<String>::new());
    let results = sarif["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let pointers: Vec<&str> = results
        .iter()
        .filter_map(|r| r["properties"]["pointer"].as_str())
        .collect();
    assert!(pointers.contains(&"/tool"), "{pointers:?}");
    assert!(results.iter().all(|r| r["ruleId"] == "invalid_profile"));
    let text = results[0]["message"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("missing the required field"), "{text}");
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        1
    );

    // A profile path that does not exist: one result naming it.
    let missing = runner.run(&[("INPUT_PROFILES", "no-such-profile.json")]);
    assert_eq!(missing.code(), Some(2));
    let sarif = missing.json("sarif");
    let text = sarif["runs"][0]["results"][0]["message"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(text.contains("no-such-profile.json"), "{text}");
}

#[test]
fn inputs_that_cannot_be_used_fail_with_exit_2_before_conform_runs() {
    let runner = Runner::new();
    let both = runner.run(&[
        ("INPUT_PROFILES", "conformance/profiles/democli.json"),
        ("INPUT_CHECK", "./mytool"),
    ]);
    assert_eq!(both.code(), Some(2));
    assert!(both.stdout().contains("not both"), "{}", both.stdout());
    let neither = runner.run(&[]);
    assert_eq!(neither.code(), Some(2));
    assert!(
        neither.stdout().contains("name profile files"),
        "{}",
        neither.stdout()
    );
    let quote = runner.run(&[("INPUT_PROFILES", "'unclosed.json")]);
    assert_eq!(quote.code(), Some(2));
    assert!(
        quote.stdout().contains("close each quote"),
        "{}",
        quote.stdout()
    );
    assert_eq!(quote.output("exit-code"), None, "{}", quote.outputs);
}

#[test]
fn where_apparmor_restricts_user_namespaces_install_allows_them_to_conform_alone() {
    let runner = Runner::new();
    let restricted = runner.path("restrict");
    std::fs::write(&restricted, "1\n").expect("sysctl stand-in");
    let restricted = restricted.to_str().expect("UTF-8 path");
    // No parser: the step warns that the runs will have the proxy variables alone.
    let install = runner.step(
        "install",
        &[
            ("CONFORM_USERNS_RESTRICTION", restricted),
            ("CONFORM_APPARMOR_PARSER", "/nonexistent/apparmor_parser"),
        ],
    );
    assert_eq!(install.code(), Some(0), "{}", install.stdout());
    assert!(
        install
            .stdout()
            .contains("::warning::conform: AppArmor restricts user namespaces here")
            && install.stdout().contains("proxy variables only"),
        "{}",
        install.stdout()
    );
    // A parser: the profile names the cached binary alone, and is loaded.
    let profiles = runner.path("apparmor.d");
    std::fs::create_dir(&profiles).expect("profile dir");
    let log = runner.path("parser.log");
    let parser = runner.path("apparmor_parser");
    std::fs::write(
        &parser,
        format!("#!/bin/sh\necho \"$@\" >> '{}'\n", log.display()),
    )
    .expect("parser stand-in");
    std::fs::set_permissions(&parser, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let install = runner.step(
        "install",
        &[
            ("CONFORM_USERNS_RESTRICTION", restricted),
            (
                "CONFORM_APPARMOR_PARSER",
                parser.to_str().expect("UTF-8 path"),
            ),
            (
                "CONFORM_APPARMOR_DIR",
                profiles.to_str().expect("UTF-8 path"),
            ),
        ],
    );
    assert_eq!(install.code(), Some(0), "{}", install.stdout());
    let profile = profiles.join("conform-action");
    let text = std::fs::read_to_string(&profile).expect("the profile written");
    let binary = runner.bin_dir().join("conform");
    assert!(
        text.contains(&format!(
            "profile conform-action \"{}\" flags=(unconfined) {{\n  userns,\n}}",
            binary.display()
        )),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(&log)
            .expect("the parser ran")
            .trim(),
        format!("-r {}", profile.display())
    );
    assert!(
        install.stdout().contains("allows user namespaces to"),
        "{}",
        install.stdout()
    );
}
