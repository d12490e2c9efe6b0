//! docs/real-tools.md's table of `conform check` on real CLIs is generated, not
//! written: `scripts/real-tools.sh` runs each CLI and writes its summary to
//! docs/real-tools/results/, and the table is rendered here from those summaries
//! and the hand-checked verdicts in docs/real-tools/verdicts.json. The test fails
//! when the page differs from the rendering, when a failed check has no verdict,
//! and when a verdict names a check that no longer fails. `CONFORM_BLESS=1`
//! rewrites the page (the script does).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::support::{generated_block, repo_root};

const BEGIN: &str = "<!-- real-tools:begin -->";
const END: &str = "<!-- real-tools:end -->";

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect()
}

/// Every result in docs/real-tools/results, in the order of tools.txt.
fn results(docs: &Path) -> Vec<Value> {
    let order = std::fs::read_to_string(docs.join("real-tools/tools.txt")).expect("tools.txt");
    order
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| line.split_whitespace().next())
        .map(|name| read_json(&docs.join(format!("real-tools/results/{name}.json"))))
        .collect()
}

fn render(results: &[Value], verdicts: &Value) -> (String, Vec<String>) {
    let mut problems = Vec::new();
    let mut out = String::from(
        "| tool | package | commands found | run | surveyed | judged in depth | left out | checks failed | of them conform's fault | wall time (load) | CPU used |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut details = String::new();
    for result in results {
        let name = result["name"].as_str().unwrap_or("?");
        let failed = strings(&result["failed"]);
        let judged = verdicts[name]["checks"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut conform_fault = 0;
        for id in &failed {
            match judged.get(id).and_then(|v| v["defect"].as_str()) {
                Some("tool") => {}
                Some("conform") => conform_fault += 1,
                Some(other) => problems.push(format!("{name}: {id}: defect {other:?} is neither tool nor conform")),
                None => problems.push(format!("{name}: {id} failed and docs/real-tools/verdicts.json has no verdict for it: try it by hand and say whose defect it is")),
            }
        }
        for id in judged.keys() {
            if !failed.contains(id) {
                problems.push(format!(
                    "{name}: verdicts.json judges {id}, which no longer fails: take it out"
                ));
            }
        }
        let why: Vec<String> = result["left_out_why"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(why, n)| format!("{n} {why}"))
            .collect();
        let left_out = match result["left_out"].as_u64().unwrap_or(0) {
            0 => "0".to_string(),
            n => format!("{n} ({})", why.join(", ")),
        };
        let load = result["load"][1]
            .as_f64()
            .map_or(String::new(), |load| format!(" ({load:.1})"));
        let count = |key: &str| {
            result[key]
                .as_u64()
                .map_or("-".to_string(), |n| n.to_string())
        };
        let run = match result["check_only"].as_u64() {
            Some(only) if only > 0 => format!("{} ({only} check only)", count("probed")),
            _ => count("probed"),
        };
        // Rows made before the budget (issue 44) have no survey: "-".
        let surveyed = match result["not_surveyed"].as_u64() {
            Some(n) if n > 0 => format!("{} ({n} not: the budget)", count("surveyed")),
            _ => count("surveyed"),
        };
        let budget = result["budget"]
            .as_str()
            .map_or(String::new(), |b| format!(" of {b}"));
        // The CPU conform and its runs used, over what the cores had meanwhile
        // (rows made before it was measured: "-").
        let cpu = match (
            result["cpu_s"].as_f64(),
            result["cores"].as_f64(),
            result["wall_s"].as_f64(),
        ) {
            (Some(cpu), Some(cores), Some(wall)) if wall > 0.0 => {
                format!("{cpu:.0} s ({:.0}%)", 100.0 * cpu / (cores * wall))
            }
            _ => "-".to_string(),
        };
        out.push_str(&format!(
            "| {name} | `{}` | {} | {run} | {surveyed} | {} | {left_out} | {} | {conform_fault} | {} s{budget}{load} | {cpu} |\n",
            result["package"].as_str().unwrap_or("?"),
            count("found"),
            count("in_depth"),
            failed.len(),
            result["wall_s"],
        ));
        details.push_str(&format!("\n### {name}\n\n"));
        if let Some(build) = result["conform_build"].as_str() {
            details.push_str(&format!("Made with conform {build}.\n\n"));
        }
        // A run with failed checks ends with an error envelope too; only one that
        // judged nothing stopped before judging.
        let judged_any = result["passed"].as_u64().unwrap_or(0) > 0 || !failed.is_empty();
        if let (Some(error), false) = (result["error"].as_str(), judged_any) {
            details.push_str(&format!(
                "conform check stopped before judging: {error}\n\n"
            ));
        }
        if let Some(by_hand) = verdicts[name]["by_hand"].as_str() {
            details.push_str(&format!("{by_hand}\n\n"));
        }
        if failed.is_empty() {
            details.push_str("No check failed.\n");
        }
        for id in &failed {
            let verdict = &judged.get(id).cloned().unwrap_or(Value::Null);
            let whose = match verdict["defect"].as_str() {
                Some("conform") => "conform's defect",
                _ => "the tool's defect",
            };
            details.push_str(&format!(
                "- `{id}`, {whose}: {}\n",
                verdict["why"].as_str().unwrap_or("?")
            ));
        }
    }
    for name in verdicts
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, _)| name)
    {
        if !results.iter().any(|r| r["name"] == name.as_str()) {
            problems.push(format!("verdicts.json judges {name}, which has no result"));
        }
    }
    out.push_str(&details);
    (out, problems)
}

#[test]
fn real_tools_table_is_rendered_from_the_results_and_every_failure_has_a_verdict() {
    let docs = repo_root().join("docs");
    let results = results(&docs);
    assert!(
        results.len() >= 10,
        "docs/real-tools has {} results, expected 10 or more",
        results.len()
    );
    let verdicts = read_json(&docs.join("real-tools/verdicts.json"));
    let (block, problems) = render(&results, &verdicts);
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    generated_block(
        &docs.join("real-tools.md"),
        BEGIN,
        END,
        &block,
        "docs/real-tools.md is stale: run scripts/real-tools.sh, or this test with CONFORM_BLESS=1",
    );
}

/// The verdicts file names each tool once, with a verdict per check.
#[test]
fn verdicts_are_whose_defect_and_why() {
    let verdicts = read_json(&repo_root().join("docs/real-tools/verdicts.json"));
    let tools = verdicts
        .as_object()
        .expect("verdicts.json is an object of tools");
    let mut seen = BTreeMap::new();
    for (name, tool) in tools {
        for (id, verdict) in tool["checks"].as_object().into_iter().flatten() {
            assert!(
                verdict["why"].as_str().is_some_and(|why| why.len() > 20),
                "{name}: {id}: a verdict says why, in a sentence"
            );
            seen.insert(format!("{name}/{id}"), ());
        }
    }
    assert!(!seen.is_empty(), "verdicts.json judges nothing");
}
