//! `conform checks --requirements`: every requirement of the spec, the same table as
//! docs/requirements.md, and the count the README quotes.

use std::process::Command;

use serde_json::Value;

use crate::support::{conform, repo_root};

/// The comment that ends the hand-written head of docs/requirements.md.
const GENERATED_BELOW: &str = "--test integration requirements -->\n\n";

fn text_output() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["--format", "text", "checks", "--requirements"])
        .output()
        .expect("conform runs");
    assert_eq!(output.status.code(), Some(0));
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[test]
fn every_requirement_id_of_the_spec_is_listed_with_its_checks_or_why_not() {
    let map = conform(["checks", "--requirements"]);
    assert_eq!(map.code(), 0, "{:#}", map.envelope);
    let rows = map.envelope["data"]["requirements"]
        .as_array()
        .expect("requirements");
    let ids: Vec<&str> = rows.iter().filter_map(|r| r["id"].as_str()).collect();
    // The spec numbers each tier from 1: C-001..030, F-001..078 (and F-079, added
    // later), O-001..050.
    let mut expected = Vec::new();
    for (tier, last) in [("C", 30), ("F", 79), ("O", 50)] {
        for n in 1..=last {
            expected.push(format!("REQ-{tier}-{n:03}"));
        }
    }
    assert_eq!(ids, expected);
    for row in rows {
        let checks = row["checks"].as_array().expect("checks");
        let why = &row["unjudged"];
        assert!(
            !checks.is_empty() || why["reason"].as_str().is_some_and(|r| !r.is_empty()),
            "{row:#}"
        );
        assert!(
            row["title"].as_str().is_some_and(|t| !t.is_empty()),
            "{row:#}"
        );
    }
    let json_ids: Vec<&str> = rows
        .iter()
        .find(|r| r["id"] == "REQ-F-002")
        .and_then(|r| r["checks"].as_array())
        .map(|c| c.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert!(json_ids.contains(&"invalid_input_exit_2"), "{json_ids:?}");
    assert_eq!(
        map.envelope["data"]["judged"].as_u64(),
        Some(
            rows.iter()
                .filter(|r| r["checks"] != serde_json::json!([]))
                .count() as u64
        )
    );
}

#[test]
fn docs_requirements_md_is_the_commands_output() {
    let path = repo_root().join("docs/requirements.md");
    let doc = std::fs::read_to_string(&path).expect("docs/requirements.md");
    let (head, table) = doc
        .split_once(GENERATED_BELOW)
        .expect("the generated-below comment");
    let output = text_output();
    if std::env::var_os("CONFORM_BLESS").is_some() {
        std::fs::write(&path, format!("{head}{GENERATED_BELOW}{output}")).expect("write");
        return;
    }
    assert_eq!(
        table, output,
        "docs/requirements.md differs from `conform checks --requirements`; run CONFORM_BLESS=1 cargo test -p agent-conform --test integration requirements"
    );
}

#[test]
fn the_readme_quotes_the_count() {
    let output = text_output();
    let headline = output.lines().next().expect("a headline");
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README");
    assert!(
        readme.contains(headline),
        "the README should say {headline:?} (docs/requirements.md has the table)"
    );
}
