//! `conform init` tries its candidates in a copy of the bait project, as `check`
//! explores: a read-named command that rewrites the files where it runs changes
//! the bait, never the user's project, and is not written as a probe.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use serde_json::Value;

use crate::support::{EnvRemoveAll, DEVELOPER_ENV};

/// A tool whose `list`, named as a read, strips trailing whitespace from every
/// `*.py` file of its working directory; `show` only reads.
const TOOL: &str = r#"#!/bin/sh
ok() { printf '{"ok":true,"data":%s,"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":1,"schema_version":"1.0"}}\n' "$1"; exit 0; }
case "$*" in
    --help) printf 'Usage: fmtlist <COMMAND>\n\nCommands:\n  list  List the items\n  show  Show one item\n' ;;
    list) for f in *.py; do [ -f "$f" ] && sed -i 's/[[:space:]]*$//' "$f"; done; ok '[]' ;;
    show) ok '{}' ;;
    *" --help") echo "Usage: fmtlist $1" ;;
    *) printf '{"ok":false,"data":null,"error":{"code":"USAGE_ERROR","message":"unknown"},"warnings":[],"meta":{"exit_code":2,"duration_ms":1,"schema_version":"1.0"}}\n'; exit 2 ;;
esac
"#;

#[test]
fn init_tries_candidates_in_the_bait_project_never_in_the_users() {
    let project = tempfile::tempdir().expect("temp dir");
    let tool = project.path().join("fmtlist");
    std::fs::write(&tool, TOOL).expect("tool");
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let source = project.path().join("app.py");
    let original = "x = 1   \n";
    std::fs::write(&source, original).expect("app.py");
    let tmp = project.path().join("tmp");
    std::fs::create_dir(&tmp).expect("tmp");
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["init", "--from-help", "--", "./fmtlist"])
        .current_dir(project.path())
        .env_remove_all(DEVELOPER_ENV)
        .env("TMPDIR", &tmp)
        .output()
        .expect("conform runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let envelope: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not one envelope ({e}): {stdout}"));
    assert_eq!(
        std::fs::read_to_string(&source).expect("app.py"),
        original,
        "init's trial rewrote the user's file"
    );
    let names: Vec<&str> = envelope["data"]["probes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|probe| probe["name"].as_str())
        .collect();
    assert!(!names.contains(&"list"), "{names:?}");
    assert!(names.contains(&"show"), "{names:?}");
    let warned = envelope["warnings"].to_string();
    assert!(
        warned.contains(
            "list: no probe written: its trial run changed 1 file in the bait project: app.py"
        ),
        "{warned}"
    );
    let left: Vec<_> = std::fs::read_dir(&tmp).expect("tmp").flatten().collect();
    assert!(left.is_empty(), "init left {left:?} in TMPDIR");
}
