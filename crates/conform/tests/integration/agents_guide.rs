//! AGENTS.md, the guide for coding agents: every command in it runs, as written,
//! on a project whose tool is democli, and the envelope fields it teaches exist.

use std::process::Command;

use serde_json::Value;

use crate::support::{conform, path_with_conform, repo_root, EnvRemoveAll, DEVELOPER_ENV};

/// The lines of AGENTS.md's ```sh blocks, in order.
fn commands(guide: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    for line in guide.lines() {
        match line.trim() {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            command if in_sh && !command.is_empty() && !command.starts_with('#') => {
                out.push(command.to_string())
            }
            _ => {}
        }
    }
    out
}

/// A project directory whose `./target/release/mytool` is democli.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let release = dir.path().join("target/release");
    std::fs::create_dir_all(&release).expect("mkdir");
    let tool = release.join("mytool");
    let democli = repo_root().join("benchmark/harness/cli/good/democli");
    std::fs::write(
        &tool,
        format!("#!/bin/sh\nexec '{}' \"$@\"\n", democli.display()),
    )
    .expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

#[test]
fn every_command_of_the_guide_runs_as_written() {
    let guide = std::fs::read_to_string(repo_root().join("AGENTS.md")).expect("AGENTS.md");
    let commands = commands(&guide);
    assert!(commands.len() >= 5, "{commands:?}");
    assert!(
        commands.iter().any(|c| c.starts_with("conform check --")),
        "{commands:?}"
    );
    let project = project();
    for command in &commands {
        let output = Command::new("sh")
            .args(["-c", command])
            .current_dir(project.path())
            .env("PATH", path_with_conform())
            .env_remove_all(DEVELOPER_ENV)
            .output()
            .expect("sh runs");
        assert_eq!(
            output.status.code(),
            Some(0),
            "`{command}` failed:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert!(
        project.path().join("conformance-profile.json").is_file(),
        "the guide's init wrote no profile"
    );
}

#[test]
fn the_fields_the_guide_teaches_are_in_a_real_failing_envelope() {
    let guide = std::fs::read_to_string(repo_root().join("AGENTS.md")).expect("AGENTS.md");
    let check = conform(["check", "--", "benchmark/harness/cli/bad/help-on-stdout"]);
    assert_eq!(check.code(), 4, "{:#}", check.envelope);
    assert_eq!(check.envelope["error"]["code"], "CONFORMANCE_CHECKS_FAILED");
    assert!(check.envelope["meta"]["inferred"]["profile"].is_object());
    let network = check.envelope["meta"]["network"]
        .as_str()
        .unwrap_or_default();
    assert!(
        ["namespace", "proxy variables only"].contains(&network) && guide.contains(network),
        "meta.network is {network:?}, and the guide must say what it means"
    );
    let failing = check.result()["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["status"] == "fail")
        .expect("a failing check");
    for key in ["id", "level", "failure_modes", "requirements", "failures"] {
        assert!(!failing[key].is_null(), "no {key} in {failing:#}");
        assert!(
            guide.contains(&format!("\"{key}\"")),
            "the guide omits {key}"
        );
    }
    let failure: &Value = &failing["failures"][0];
    for key in ["probe", "argv", "stdin", "exit_code", "detail"] {
        assert!(!failure[key].is_null(), "no {key} in {failure:#}");
        assert!(
            guide.contains(&format!("\"{key}\"")),
            "the guide omits {key}"
        );
    }
}
