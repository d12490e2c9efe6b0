//! `output_size_cap`: a tool caps what it writes and says so when it cut, so that an
//! agent never pays for, or silently loses, an unbounded response (REQ-F-052). A
//! read probe whose baseline wrote 2048 bytes or more runs again with the cap
//! variables at half that size; it must fit and flag the cut in `meta`.

use serde_json::Value;

use super::support::data;
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::plan::RunKind;
use crate::profile::ProbeKind;

pub(super) const OUTPUT_SIZE_CAP: CheckSpec = CheckSpec {
    id: CheckId::OutputSizeCap,
    name: "output_size_cap",
    title: "Under TOOL_MAX_OUTPUT_BYTES a large response fits the cap and says it was truncated",
    level: 1,
    failure_modes: &[43],
    requirements: &["REQ-F-052"],
    extension: true,
    reads: &[
        RunKind::Closed,
        RunKind::SizeCap,
        RunKind::Manifest,
        RunKind::Help,
    ],
    judge: Judge::Alone(judge),
};

/// The spec's default cap: a baseline over it must already be truncated.
const DEFAULT_CAP: u64 = 1_048_576;

/// The suffix of every cap variable the planner sets (`TOOL_MAX_OUTPUT_BYTES`, ...).
const CAP_SUFFIX: &str = "_MAX_OUTPUT_BYTES";

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::OutputSizeCap);
    // The cap is judged only where the tool says it has one: a variable name made
    // up from the tool's name proves nothing when the tool never offered it.
    if !declares_cap(ctx) {
        outcome.skip(format!(
            "no output cap is declared: neither the manifest nor `--help` names a \
             *{CAP_SUFFIX} variable, so there is no cap to test (REQ-F-052)"
        ));
        return outcome;
    }
    for run in ctx.probe_runs(RunKind::SizeCap, ProbeKind::Read) {
        if !outcome.completed(&run) {
            continue;
        }
        // The cap is half the baseline's stdout, rounded down, as the planner set it.
        let Some(baseline_bytes) = ctx.baseline(&run).map(|b| b.record.stdout.total_bytes) else {
            continue;
        };
        let cap = baseline_bytes / 2;
        let problems = capped_problems(ctx, &run, cap);
        if !problems.is_empty() {
            outcome.fail(
                &run,
                format!(
                    "with {} set to {cap} (half the baseline's {baseline_bytes} bytes) {}: {}. \
                     Over the cap, a response keeps to it and says so: meta.truncated true, \
                     meta.truncation_hint, meta.returned_count and meta.total_count (REQ-F-052)",
                    cap_names(&run),
                    written(&run),
                    problems.join("; ")
                ),
            );
        }
    }
    for run in ctx.probe_runs(RunKind::Closed, ProbeKind::Read) {
        if !run.finished() || run.record.stdout.total_bytes <= DEFAULT_CAP {
            continue;
        }
        outcome.runs_checked += 1;
        let truncated = ctx
            .envelope(&run)
            .as_ref()
            .map(|envelope| envelope.pointer("/meta/truncated").cloned());
        let problem = match truncated {
            Ok(Some(Value::Bool(true))) => continue,
            Ok(Some(other)) => format!("meta.truncated is {other}"),
            Ok(None) => "meta.truncated is missing".to_string(),
            Err(why) => format!("meta.truncated could not be read: {why}"),
        };
        outcome.fail(
            &run,
            format!(
                "wrote {} bytes, over the default cap of {DEFAULT_CAP} bytes, and {problem}: \
                 a response over 1 MiB is cut to it and flagged (REQ-F-052)",
                run.record.stdout.total_bytes
            ),
        );
    }
    if outcome.runs_checked == 0 {
        outcome.skip(format!(
            "no baseline of {} bytes or more: no read probe's stdin-closed run wrote enough \
             to test a cap at half its size",
            crate::plan::SIZE_CAP_FROM
        ));
    }
    outcome
}

/// Whether the manifest or the tool's `--help` names a cap variable.
fn declares_cap(ctx: &Context<'_>) -> bool {
    fn names_cap(value: &Value) -> bool {
        match value {
            Value::String(text) => text.contains(CAP_SUFFIX),
            Value::Array(items) => items.iter().any(names_cap),
            Value::Object(fields) => fields
                .iter()
                .any(|(key, value)| key.contains(CAP_SUFFIX) || names_cap(value)),
            _ => false,
        }
    }
    if ctx.manifest_as_read().is_some_and(names_cap) {
        return true;
    }
    let suffix = CAP_SUFFIX.as_bytes();
    ctx.runs_of(&[RunKind::Help]).iter().any(|run| {
        [&run.record.stdout.bytes, &run.record.stderr.bytes]
            .iter()
            .any(|bytes| bytes.windows(suffix.len()).any(|w| w == suffix))
    })
}

/// What is wrong with a capped run: its exit, its size, and each missing indicator.
fn capped_problems(ctx: &Context<'_>, run: &Judged<'_>, cap: u64) -> Vec<String> {
    let mut problems = Vec::new();
    if run.record.exit_code() != Some(0) {
        problems.push(format!("it {}, expected 0", run.describe_exit()));
    }
    if run.record.stdout.total_bytes > cap {
        problems.push(format!(
            "{} bytes is over the cap",
            run.record.stdout.total_bytes
        ));
    }
    let envelope = match ctx.envelope(run) {
        Ok(envelope) => envelope,
        Err(why) => {
            problems.push(format!("no envelope to read meta from: {why}"));
            return problems;
        }
    };
    let meta = envelope.get("meta").unwrap_or(&Value::Null);
    let field = |name: &str| meta.get(name);
    match field("truncated") {
        Some(Value::Bool(true)) => {}
        Some(other) => problems.push(format!("missing indicator: meta.truncated is {other}")),
        None => problems.push("missing indicator: meta.truncated".into()),
    }
    match field("truncation_hint") {
        Some(Value::String(hint)) if !hint.trim().is_empty() => {}
        Some(other) => problems.push(format!(
            "missing indicator: meta.truncation_hint is {other}, expected the flags that \
             fetch the rest"
        )),
        None => problems.push("missing indicator: meta.truncation_hint".into()),
    }
    let items = envelope.get("data").and_then(data::items).map(Vec::len);
    match (field("returned_count"), items) {
        (Some(Value::Number(n)), Some(count)) if n.as_u64() == Some(count as u64) => {}
        (Some(Value::Number(n)), None) if n.is_u64() || n.is_i64() => {}
        (Some(Value::Number(n)), Some(count)) if n.is_u64() || n.is_i64() => problems.push(
            format!("meta.returned_count is {n}, but data holds {count} items"),
        ),
        (Some(other), _) => problems.push(format!(
            "missing indicator: meta.returned_count is {other}, expected an integer"
        )),
        (None, _) => problems.push("missing indicator: meta.returned_count".into()),
    }
    match field("total_count") {
        Some(Value::Null) => {}
        Some(Value::Number(n)) if n.is_u64() || n.is_i64() => {}
        Some(other) => problems.push(format!(
            "missing indicator: meta.total_count is {other}, expected an integer or null"
        )),
        None => problems.push("missing indicator: meta.total_count".into()),
    }
    problems
}

/// The cap variables the run set, as `A, B`.
fn cap_names(run: &Judged<'_>) -> String {
    let names: Vec<&str> = run
        .record
        .env_changes
        .iter()
        .filter_map(|change| change.split_once('=').map(|(name, _)| name))
        .filter(|name| name.ends_with(CAP_SUFFIX))
        .collect();
    if names.is_empty() {
        format!("the cap variables (*{CAP_SUFFIX})")
    } else {
        names.join(", ")
    }
}

/// "it wrote N bytes", for the detail.
fn written(run: &Judged<'_>) -> String {
    format!("it wrote {} bytes", run.record.stdout.total_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, judged_in, write};
    use crate::checks::Status;

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "democli", "command": ["sh"], "timeout_seconds": 5,
        "probes": [
            { "name": "list", "argv": ["list"], "kind": "read" },
            { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" }
        ]
    }"#;

    /// A list envelope of `n` items, padded to about `n * 100` bytes.
    fn listing(n: usize, meta: &str) -> String {
        let items: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"id":"dep-{i:03}","note":"{}"}}"#, "x".repeat(80)))
            .collect();
        format!(
            r#"{{"ok":true,"data":[{}],"error":null,"warnings":[],"meta":{{"exit_code":0,"duration_ms":0{meta}}}}}"#,
            items.join(",")
        )
    }

    const CUT: &str = r#","truncated":true,"truncation_hint":"--limit 5 --cursor abc","returned_count":5,"total_count":30"#;

    /// The baseline lists 30 items; the capped run gives `capped`, or is not made.
    fn judged(capped: Option<String>) -> Outcome {
        judged_in(PROFILE, CheckId::OutputSizeCap, |run, record| {
            match run.role.kind {
                RunKind::SizeCap => {
                    let Some(capped) = &capped else {
                        return false;
                    };
                    write(record, capped);
                    record.env_changes = vec![
                        "TOOL_MAX_OUTPUT_BYTES=1000".into(),
                        "DEMOCLI_MAX_OUTPUT_BYTES=1000".into(),
                    ];
                }
                RunKind::Help => write(record, HELP),
                _ => write(record, &listing(30, "")),
            }
            true
        })
    }

    /// A help that declares the cap variable.
    const HELP: &str =
        "Usage: democli list\n\nEnvironment:\n  DEMOCLI_MAX_OUTPUT_BYTES  byte budget\n";

    #[test]
    fn without_a_declared_cap_variable_it_skips_saying_so() {
        let outcome = judged_in(PROFILE, CheckId::OutputSizeCap, |run, record| {
            match run.role.kind {
                RunKind::Help => write(record, "Usage: democli list\n"),
                RunKind::SizeCap => write(record, &listing(30, "")),
                _ => write(record, &listing(30, "")),
            }
            true
        });
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
        assert_eq!(
            outcome.skipped_reason.as_deref(),
            Some("no output cap is declared: neither the manifest nor `--help` names a *_MAX_OUTPUT_BYTES variable, so there is no cap to test (REQ-F-052)")
        );
    }

    #[test]
    fn a_capped_response_that_fits_and_says_so_passes() {
        let outcome = judged(Some(listing(5, CUT)));
        assert_passed(&outcome, 1);
        // total_count may be null, and data may be an object holding the list.
        let nested = listing(5, CUT.replace("30", "null").as_str()).replacen(
            r#""data":["#,
            r#""data":{"deployments":["#,
            1,
        );
        let nested = nested.replacen(r#"],"error""#, r#"]},"error""#, 1);
        assert_passed(&judged(Some(nested)), 1);
    }

    #[test]
    fn the_guards_pass_a_tool_that_reads_only_its_prefixed_name_and_cuts_a_long_string() {
        // democli reads DEMOCLI_MAX_OUTPUT_BYTES, never TOOL_MAX_OUTPUT_BYTES: both are
        // set, so it is capped all the same. Its data here is one long string, cut:
        // no list to count, so returned_count is not compared with items.
        let cut = format!(
            r#"{{"ok":true,"data":{{"log":"{}"}},"error":null,"warnings":[],"meta":{{"exit_code":0,"duration_ms":0,"truncated":true,"truncation_hint":"read the log with --since","returned_count":1,"total_count":null}}}}"#,
            "x".repeat(400)
        );
        assert_passed(&judged(Some(cut)), 1);
    }

    #[test]
    fn a_silent_cut_names_the_cap_the_names_the_bytes_and_the_missing_indicator() {
        let outcome = judged(Some(listing(5, "")));
        assert_eq!(outcome.status(), Status::Fail, "{outcome:#?}");
        let detail = &outcome.failures[0].detail;
        let cap = listing(30, "").len() / 2;
        for words in [
            format!("with TOOL_MAX_OUTPUT_BYTES, DEMOCLI_MAX_OUTPUT_BYTES set to {cap}"),
            format!("it wrote {} bytes", listing(5, "").len()),
            "missing indicator: meta.truncated;".into(),
            "missing indicator: meta.truncation_hint".into(),
            "missing indicator: meta.returned_count".into(),
            "missing indicator: meta.total_count".into(),
        ] {
            assert!(detail.contains(&words), "{words:?} not in {detail}");
        }
    }

    #[test]
    fn ignoring_the_cap_or_miscounting_fails() {
        let outcome = judged(Some(listing(30, CUT)));
        let detail = &outcome.failures[0].detail;
        assert!(detail.contains("bytes is over the cap"), "{detail}");
        assert!(
            detail.contains("meta.returned_count is 5, but data holds 30 items"),
            "{detail}"
        );

        let mut failed = listing(5, CUT);
        failed = failed.replace(r#""exit_code":0"#, r#""exit_code":1"#);
        let outcome = judged_in(PROFILE, CheckId::OutputSizeCap, |run, record| {
            if run.role.kind == RunKind::Help {
                write(record, HELP);
            } else if run.role.kind == RunKind::SizeCap {
                write(record, &failed);
                record.exit = crate::exec::Exit::Code(1);
            } else {
                write(record, &listing(30, ""));
            }
            true
        });
        let detail = &outcome.failures[0].detail;
        assert!(detail.contains("it exited 1, expected 0"), "{detail}");
    }

    #[test]
    fn it_skips_without_a_large_baseline_and_judges_a_huge_one() {
        let outcome = judged_in(PROFILE, CheckId::OutputSizeCap, |run, record| {
            if run.role.kind == RunKind::SizeCap {
                return false; // not needed: the baseline was small
            }
            if run.role.kind == RunKind::Help {
                write(record, HELP);
                return true;
            }
            write(record, &listing(3, ""));
            true
        });
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
        assert!(outcome
            .skipped_reason
            .as_deref()
            .is_some_and(|r| r.starts_with("no baseline of 2048 bytes or more")));

        // Over 1 MiB without meta.truncated fails even where the capped run passed.
        let huge = listing(11_000, "");
        let outcome = judged_in(PROFILE, CheckId::OutputSizeCap, |run, record| {
            if run.role.kind == RunKind::Help {
                write(record, HELP);
            } else if run.role.kind == RunKind::SizeCap {
                write(record, &listing(5, CUT));
            } else {
                write(record, &huge);
            }
            true
        });
        assert_eq!(outcome.runs_checked, 2, "{outcome:#?}");
        assert_eq!(outcome.failures.len(), 1, "{outcome:#?}");
        let detail = &outcome.failures[0].detail;
        assert!(
            detail.contains("over the default cap of 1048576 bytes, and meta.truncated is missing"),
            "{detail}"
        );
    }
}
