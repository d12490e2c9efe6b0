//! `conform check --allow-destructive` on every broken CLI and democli, in one
//! `--tools` call: no check fails that the hand-written profile does not fail, but
//! for what the wider exploration finds ([`WIDER`]); every defect the hand-written
//! profile shows is seen, but for [`UNSEEN`]. The table in docs/zero-config.md is
//! rendered from the same lists and checked here, so it cannot go stale
//! (`CONFORM_BLESS=1` rewrites it).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::support::{conform, generated_block, repo_root};

/// What check finds beyond the hand-written profile: (broken CLI, check, why).
const WIDER: &[(&str, &str, &str)] = &[
    (
        "error-without-retryable",
        "network_timeout",
        "`releases` at the black hole gives up with an error that lacks `retryable`: the same defect",
    ),
    (
        "error-without-retryable",
        "timeout_flag",
        "`releases --timeout 1s` at the black hole gives up with an error that lacks `retryable`: the same defect",
    ),
    (
        "stderr-color-ignores-no-color",
        "tty_no_color",
        "`releases` on a terminal colours its stderr error despite NO_COLOR: the same defect",
    ),
    (
        "waits-for-device-code",
        "no_hang_stdin_open",
        "every check run has a fresh config directory, so no run finds the committed login and each waits for the device code",
    ),
];

/// Defects the hand-written profile shows and check does not: (broken CLI, check,
/// why). Each such check must not pass where it is marked `skip`.
const UNSEEN: &[(&str, &str, &str)] = &[
    ("ansi-when-piped", "hallucinated_input_rejected", NO_POSITIONAL),
    ("delete-declared-safe", "profile_consistency", "its manifest calls its delete safe, so check's probe agrees with the manifest"),
    ("dry-run-writes", "dry_run_stable", "every check run has a fresh HOME, so the second preview cannot see the store the first rewrote"),
    ("env-substring-match", "hallucinated_input_rejected", NO_POSITIONAL),
    ("envelope-missing-warnings", "hallucinated_input_rejected", NO_POSITIONAL),
    ("invalid-writes-cache", "hallucinated_input_rejected", NO_POSITIONAL),
    ("json-needs-format-flag", "argument_order", FROM_HELP),
    ("json-needs-format-flag", "dry_run_preview", FROM_HELP),
    ("json-needs-format-flag", "hallucinated_input_rejected", FROM_HELP),
    ("json-needs-format-flag", "manifest_valid", FROM_HELP),
    ("option-after-positional-ignored", "argument_order", NO_POSITIONAL),
    ("truncates-silently", "output_size_cap", "check's probes write less than the 2 KiB a cap is tested at"),
    ("usage-error-exit-64", "hallucinated_input_rejected", NO_POSITIONAL),
];

const NO_POSITIONAL: &str =
    "init writes no `argument_order.positional`: the manifest gives no value for one";
const FROM_HELP: &str = "its manifest is no JSON without `--format json`, so the profile comes from `--help`: no manifest, argument order or destructive probe";
/// Broken CLIs whose defect shows only when the machine gives their baseline the
/// CPU it needs: their expected checks fail, or skip, and never pass. The 64 MiB
/// writer's baseline can be starved twice on a loaded machine, and the checks that
/// read it, or the runs gated on it, then skip.
const LOAD_BOUND: &[&str] = &["huge-envelope"];

const BEGIN: &str = "<!-- broken-clis:begin -->";
const END: &str = "<!-- broken-clis:end -->";

fn expected_failures(name: &str) -> BTreeSet<String> {
    let path = repo_root().join(format!("conformance/profiles/bad/expected/{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let expected: Value = serde_json::from_str(&text).expect("expected file is JSON");
    expected["fail"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect()
}

fn listed<'a>(list: &'a [(&str, &str, &str)], name: &str) -> BTreeMap<&'a str, &'a str> {
    list.iter()
        .filter(|(cli, _, _)| *cli == name)
        .map(|(_, check, why)| (*check, *why))
        .collect()
}

fn ticks<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    let ids: Vec<String> = ids.into_iter().map(|id| format!("`{id}`")).collect();
    if ids.is_empty() {
        "nothing".into()
    } else {
        ids.join(", ")
    }
}

/// The table's block, from the lists: what check fails on each broken CLI, and
/// how that compares with its hand-written profile.
fn table(names: &[String], sources: &BTreeMap<String, String>) -> String {
    let mut out = String::from(
        "| broken CLI | profile from | `conform check --allow-destructive` fails | beside the hand-written profile |\n|---|---|---|---|\n",
    );
    for name in names {
        let expected = expected_failures(name);
        let wider = listed(WIDER, name);
        let unseen = listed(UNSEEN, name);
        let fails: BTreeSet<&str> = expected
            .iter()
            .map(String::as_str)
            .filter(|id| !unseen.contains_key(id))
            .chain(wider.keys().copied())
            .collect();
        let mut compared = Vec::new();
        if !wider.is_empty() {
            compared.push(format!("also {}", ticks(wider.keys().copied())));
        }
        if !unseen.is_empty() {
            compared.push(format!("not {}", ticks(unseen.keys().copied())));
        }
        let compared = if compared.is_empty() {
            "the same".to_string()
        } else {
            compared.join("; ")
        };
        let source = sources.get(name).map_or("?", String::as_str);
        out.push_str(&format!(
            "| `{name}` | {source} | {} | {compared} |\n",
            ticks(fails.iter().copied())
        ));
    }
    out.push_str("\nWhy they differ:\n\n");
    // One line per reason, in the lists' order.
    let mut reasons: Vec<(&str, Vec<String>)> = Vec::new();
    let said = WIDER
        .iter()
        .map(|(cli, check, why)| (*why, format!("`{cli}` also fails `{check}`")))
        .chain(
            UNSEEN
                .iter()
                .map(|(cli, check, why)| (*why, format!("`{cli}` does not fail `{check}`"))),
        );
    for (why, what) in said {
        match reasons.iter_mut().find(|(known, _)| *known == why) {
            Some((_, all)) => all.push(what),
            None => reasons.push((why, vec![what])),
        }
    }
    for (why, what) in reasons {
        out.push_str(&format!("- {}: {why}.\n", what.join(", ")));
    }
    out
}

#[test]
fn every_broken_cli_fails_under_check_only_what_its_hand_written_profile_fails() {
    let bad = repo_root().join("benchmark/harness/cli/bad");
    let mut names: Vec<String> = std::fs::read_dir(&bad)
        .expect("bad/")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    let dir = tempfile::tempdir().expect("temp dir");
    let tools = dir.path().join("tools.txt");
    let mut rows: Vec<String> = names
        .iter()
        .map(|name| format!("benchmark/harness/cli/bad/{name}"))
        .collect();
    rows.push("benchmark/harness/cli/good/democli".into());
    std::fs::write(&tools, rows.join("\n") + "\n").expect("write tools");
    let tools_arg = tools.display().to_string();
    let check = conform([
        "check",
        "--allow-destructive",
        "--tools",
        tools_arg.as_str(),
    ]);

    let results = check.envelope["data"]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(results.len(), rows.len(), "{:#}", check.envelope);
    let mut sources = BTreeMap::new();
    for described in check.envelope["meta"]["inferred"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let row = described["tool"][0].as_str().unwrap_or("");
        let name = row.rsplit('/').next().unwrap_or(row).to_string();
        let source = described["source"].as_str().unwrap_or("?").to_string();
        sources.insert(name, source);
    }

    let mut problems = Vec::new();
    for (row, result) in rows.iter().zip(&results) {
        let name = row.rsplit('/').next().unwrap_or(row);
        let status: BTreeMap<&str, &str> = result["checks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| Some((c["id"].as_str()?, c["status"].as_str()?)))
            .collect();
        let skipped_starved = |id: &str| {
            result["checks"].as_array().into_iter().flatten().any(|c| {
                c["id"] == id
                    && c["skipped_reason"]
                        .as_str()
                        .is_some_and(|r| r.contains("never gave this run the CPU"))
            })
        };
        let expected = if name == "democli" {
            BTreeSet::new()
        } else {
            expected_failures(name)
        };
        let wider = listed(WIDER, name);
        let unseen = listed(UNSEEN, name);
        for (id, state) in &status {
            if *state == "fail" && !expected.contains(*id) && !wider.contains_key(id) {
                problems.push(format!(
                    "{name}: {id} failed beyond its hand-written profile"
                ));
            }
        }
        for id in &expected {
            let state = status.get(id.as_str()).copied().unwrap_or("absent");
            let seen = state == "fail";
            if unseen.contains_key(id.as_str()) {
                if seen {
                    problems.push(format!(
                        "{name}: {id} is listed as unseen but failed: take it out of UNSEEN"
                    ));
                }
            } else if LOAD_BOUND.contains(&name) {
                if state == "pass" {
                    problems.push(format!(
                        "{name}: {id} passed: it may skip on a loaded machine, never pass"
                    ));
                }
            } else if !seen && !skipped_starved(id) {
                problems.push(format!("{name}: the defect went unseen: {id} is {state}"));
            }
        }
        for id in wider.keys() {
            if status.get(id) != Some(&"fail") && !skipped_starved(id) {
                problems.push(format!("{name}: {id} is listed in WIDER but did not fail"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    generated_block(
        &repo_root().join("docs/zero-config.md"),
        BEGIN,
        END,
        &table(&names, &sources),
        "docs/zero-config.md's broken-CLI table is stale: rerun this test with CONFORM_BLESS=1",
    );
}
