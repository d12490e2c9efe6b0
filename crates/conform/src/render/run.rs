//! Rendering the result of `conform run`: one envelope (piped) or a readable report.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use super::style::Style;
use crate::checks::{Evidence, Status, CATALOG};
use crate::envelope::{envelope_with_meta, ErrorDetail, ExitStatus};
use crate::result::{LevelStatus, ProfileReport};

pub fn status(results: &[ProfileReport]) -> ExitStatus {
    if results.iter().any(ProfileReport::failed) {
        ExitStatus::ChecksFailed
    } else {
        ExitStatus::Success
    }
}

/// One profile: `data` is its ConformanceResult, exactly the reference kit's
/// document; several: `data.results` holds one per profile, in the order given.
/// conform's extras go in `meta`, which the spec leaves open: `profile` and `runs`
/// (or `profiles`, one entry each) and `extension_checks`.
pub fn to_envelope(results: &[ProfileReport], duration_ms: u64) -> Value {
    let status = status(results);
    let mut meta = Map::new();
    let data = match results {
        [one] => {
            meta.insert("profile".into(), json!(one.profile));
            meta.insert("runs".into(), json!(one.runs.len()));
            serde_json::to_value(one.conformance_result())
        }
        many => {
            let profiles: Vec<Value> = many
                .iter()
                .map(|r| json!({ "profile": r.profile, "runs": r.runs.len() }))
                .collect();
            meta.insert("profiles".into(), json!(profiles));
            let all: Vec<_> = many.iter().map(ProfileReport::conformance_result).collect();
            serde_json::to_value(all).map(|all| json!({ "results": all }))
        }
    }
    .unwrap_or(Value::Null);
    let extension: BTreeSet<&str> = results
        .iter()
        .flat_map(ProfileReport::extension_checks)
        .collect();
    let extension: Vec<&str> = CATALOG
        .iter()
        .map(|spec| spec.name)
        .filter(|name| extension.contains(name))
        .collect();
    meta.insert("extension_checks".into(), json!(extension));
    let error = (status == ExitStatus::ChecksFailed).then(|| {
        let failed: usize = results.iter().map(|r| r.summary.failed).sum();
        let total: usize = results.iter().map(|r| r.checks.len()).sum();
        let ids: Vec<String> = results
            .iter()
            .flat_map(|r| r.checks.iter().map(|c| &c.check).filter(|c| c.status == Status::Fail).map(|c| c.id.to_string()))
            .collect();
        ErrorDetail {
            code: "CONFORMANCE_CHECKS_FAILED".into(),
            message: format!("{failed} of {total} checks failed: {}", ids.join(", ")),
            retryable: false,
            phase: None,
            fix_required: Some(
                "Fix each failing check listed in data.checks; failures carry the probe argv and evidence".into(),
            ),
            context: None,
        }
    });
    envelope_with_meta(status, data, error, duration_ms, meta)
}

fn level_word(status: LevelStatus, style: Style) -> String {
    match status {
        LevelStatus::Pass => style.green("pass"),
        LevelStatus::Fail => style.red("fail"),
        LevelStatus::Incomplete => style.yellow("incomplete"),
    }
}

pub fn to_text(results: &[ProfileReport], style: Style) -> String {
    let mut out = String::new();
    for result in results {
        out.push_str(&format!(
            "{} {} ({} runs, {:.1} s)\n",
            style.bold(&result.tool),
            style.dim(&result.profile),
            result.runs.len(),
            result.duration_ms as f64 / 1000.0
        ));
        out.push_str(&format!(
            "  level 1 {}   level 2 {}   level 3 {}\n\n",
            level_word(result.levels.level_1, style),
            level_word(result.levels.level_2, style),
            level_word(result.levels.level_3, style)
        ));
        let width = result
            .checks
            .iter()
            .map(|c| c.check.id.len())
            .max()
            .unwrap_or(0);
        for report in &result.checks {
            let check = &report.check;
            let mark = match check.status {
                Status::Pass => style.green("PASS"),
                Status::Fail => style.red("FAIL"),
                Status::Skip => style.yellow("SKIP"),
            };
            let extension = if report.extension { " [extension]" } else { "" };
            let tail = match &check.skipped_reason {
                Some(reason) => reason.clone(),
                None => format!(
                    "{} ({} run{})",
                    check.title,
                    check.runs_checked,
                    if check.runs_checked == 1 { "" } else { "s" }
                ),
            };
            out.push_str(&format!(
                "  {mark} {:width$}  {}{extension}\n",
                check.id,
                style.dim(&tail)
            ));
            for failure in &check.failures {
                out.push_str(&failure_text(failure, style));
            }
        }
        out.push_str(&format!(
            "\n  {} passed, {} failed, {} skipped\n\n",
            result.summary.passed, result.summary.failed, result.summary.skipped
        ));
    }
    out
}

fn failure_text(failure: &Evidence, style: Style) -> String {
    let f = &failure.run;
    let mut out = format!(
        "       {} {}\n",
        style.bold(&format!("{}:", f.probe)),
        failure.detail
    );
    let ended = match (&f.exit_code, &f.signal, f.timed_out) {
        (_, _, true) => "timed out".to_string(),
        (Some(code), _, _) => format!("exit {code}"),
        (None, Some(signal), _) => format!("killed by {signal}"),
        _ => "no exit status".to_string(),
    };
    out.push_str(&format!(
        "         {} {} (stdin {}{}) -> {ended} in {} ms\n",
        style.dim("ran"),
        shell_words(&f.argv),
        f.stdin,
        if f.env.is_empty() {
            String::new()
        } else {
            format!(", env {}", f.env.join(" "))
        },
        f.duration_ms
    ));
    for (name, bytes, excerpt) in [
        ("stdout", f.stdout_bytes, &f.stdout_excerpt),
        ("stderr", f.stderr_bytes, &f.stderr_excerpt),
    ] {
        if bytes > 0 {
            let first: String = excerpt.lines().take(3).collect::<Vec<_>>().join(" | ");
            let first: String = first.chars().take(160).collect();
            out.push_str(&format!(
                "         {} ({bytes} bytes): {}\n",
                style.dim(name),
                first.escape_debug()
            ));
        }
    }
    if f.pipe_held_open {
        out.push_str("         a process the tool started held its output open after it exited\n");
    }
    out
}

/// argv as a shell would need it typed, for copy and paste.
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
