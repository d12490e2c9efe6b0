//! `pagination_contract`: a list command (one that declares `limit` or `cursor`)
//! tells the truth in `meta.pagination`, keeps to a default page size, honours
//! `--limit`, moves on with `--cursor` and refuses a cursor it never issued, so an
//! agent can walk a result set without reading it whole (REQ-F-018, REQ-F-019,
//! REQ-O-003).

use serde_json::Value;

use super::evidence::quoted;
use super::support::{data, manifest_view};
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::manifest;
use crate::plan::{RunKind, RunRole, BAD_CURSOR};
use crate::profile::Probe;

pub(super) const PAGINATION_CONTRACT: CheckSpec = CheckSpec {
    id: CheckId::PaginationContract,
    name: "pagination_contract",
    title: "List commands give true meta.pagination, a default page, --limit, and a --cursor that moves on and is checked",
    level: 3,
    failure_modes: &[5],
    requirements: &["REQ-F-018", "REQ-F-019", "REQ-O-003"],
    extension: true,
    reads: &[
        RunKind::Closed,
        RunKind::Manifest,
        RunKind::PageLimit,
        RunKind::PageNext,
        RunKind::PageBadCursor,
    ],
    judge: Judge::Alone(judge),
};

/// The page size REQ-F-019 allows when the `limit` flag declares no default.
const DEFAULT_PAGE: u64 = 20;

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::PaginationContract);
    let manifest = match manifest_view::for_checks(ctx) {
        Ok(manifest) => manifest,
        Err(reason) => {
            outcome.skip(reason);
            return outcome;
        }
    };
    let mut lists = 0;
    for (index, probe, _, command) in manifest_view::read_commands(ctx, manifest) {
        let limit = manifest::local_flag(command, "limit");
        let cursor = manifest::local_flag(command, "cursor");
        if limit.is_none() && cursor.is_none() {
            continue;
        }
        lists += 1;
        // A baseline that did not finish is the hang checks' to report; the runs
        // derived from it were not made.
        let Some(baseline) = ctx
            .run(RunRole::probe(RunKind::Closed, index))
            .filter(Judged::finished)
        else {
            continue;
        };
        outcome.runs_checked += 1;
        judge_baseline(ctx, &mut outcome, &baseline, probe, limit);
        if limit.is_some() {
            if let Some(run) = ctx.run(RunRole::probe(RunKind::PageLimit, index)) {
                judge_limit_1(ctx, &mut outcome, &run);
            }
        }
        if cursor.is_some() {
            if let Some(run) = ctx.run(RunRole::probe(RunKind::PageNext, index)) {
                judge_next_page(ctx, &mut outcome, &run, &baseline);
            }
            if let Some(run) = ctx.run(RunRole::probe(RunKind::PageBadCursor, index)) {
                judge_bad_cursor(ctx, &mut outcome, &run);
            }
        }
    }
    if lists == 0 {
        outcome.skip(
            "no read probe names a command that declares a local limit or cursor flag: \
             there is no list command to page through",
        );
    } else if outcome.runs_checked == 0 {
        outcome.skip(
            "no list command's stdin-closed run finished (the hang checks report why), so \
             there was no page to read",
        );
    }
    outcome
}

/// The first page: `meta.pagination` present and true, a URL-safe cursor when
/// there is more, at most a default page of items.
fn judge_baseline(
    ctx: &Context<'_>,
    outcome: &mut Outcome,
    run: &Judged<'_>,
    probe: &Probe,
    limit: Option<&Value>,
) {
    let envelope = match ctx.envelope(run) {
        Ok(envelope) => envelope,
        Err(why) => {
            outcome.fail(
                run,
                format!(
                    "field meta.pagination: expected a pagination object, seen no envelope \
                     ({why}); every list response carries meta.pagination (REQ-F-018)"
                ),
            );
            return;
        }
    };
    let Some(pagination) = envelope
        .pointer("/meta/pagination")
        .filter(|p| p.is_object())
    else {
        let seen = envelope
            .pointer("/meta/pagination")
            .map_or_else(|| "none".to_string(), Value::to_string);
        outcome.fail(
            run,
            format!(
                "field meta.pagination: expected an object with total, returned, truncated, \
                 has_more and next_cursor, seen {seen}; every list response carries it, a \
                 complete set too (REQ-F-018)"
            ),
        );
        return;
    };
    let items = envelope.get("data").and_then(data::items);
    if let (Some(items), Some(returned)) = (items, pagination.get("returned")) {
        if returned.as_u64() != Some(items.len() as u64) {
            outcome.fail(
                run,
                format!(
                    "field meta.pagination.returned: expected {} (the items in data), seen \
                     {returned}; returned counts this page (REQ-F-018)",
                    items.len()
                ),
            );
        }
    }
    if pagination.get("has_more") == Some(&Value::Bool(true)) {
        let next = pagination.get("next_cursor").unwrap_or(&Value::Null);
        if !next.as_str().is_some_and(url_safe) {
            outcome.fail(
                run,
                format!(
                    "field meta.pagination.next_cursor: expected a URL-safe string \
                     (A-Za-z0-9-_.~=) with has_more true, seen cursor {next}; an agent passes \
                     it back as --cursor (REQ-F-018, REQ-O-003)"
                ),
            );
        }
    }
    if let Some(items) = items {
        let (bound, from) = page_bound(probe, limit);
        if items.len() as u64 > bound {
            outcome.fail(
                run,
                format!(
                    "field data: expected at most {bound} items ({from}), seen {}; a list \
                     returns one page unless asked for more (REQ-F-019)",
                    items.len()
                ),
            );
        }
    }
}

/// The most items a first page may hold, and why: the probe's own `--limit`, the
/// `limit` flag's declared default, else 20.
fn page_bound(probe: &Probe, limit: Option<&Value>) -> (u64, &'static str) {
    let given =
        probe
            .argv
            .iter()
            .enumerate()
            .find_map(|(at, arg)| match arg.strip_prefix("--limit") {
                Some("") => probe.argv.get(at + 1)?.parse().ok(),
                Some(rest) => rest.strip_prefix('=')?.parse().ok(),
                None => None,
            });
    if let Some(given) = given {
        return (given, "the probe's --limit");
    }
    match limit
        .and_then(|flag| flag.get("default"))
        .and_then(Value::as_u64)
    {
        Some(default) => (default, "the limit flag's declared default"),
        None => (
            DEFAULT_PAGE,
            "the default page without a declared limit default",
        ),
    }
}

/// A cursor an agent can pass on a command line and in a URL unescaped.
fn url_safe(cursor: &str) -> bool {
    !cursor.is_empty()
        && cursor
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.~=".contains(&b))
}

/// `--limit 1`: exit 0 with at most one item, and `returned` at most 1.
fn judge_limit_1(ctx: &Context<'_>, outcome: &mut Outcome, run: &Judged<'_>) {
    if !outcome.completed(run) {
        return;
    }
    let Some(envelope) = success(ctx, outcome, run, "--limit 1") else {
        return;
    };
    if let Some(items) = envelope.get("data").and_then(data::items) {
        if items.len() > 1 {
            outcome.fail(
                run,
                format!(
                    "field data: expected at most 1 item with --limit 1, seen {} (REQ-O-003)",
                    items.len()
                ),
            );
        }
    }
    let returned = envelope.pointer("/meta/pagination/returned");
    if returned.and_then(Value::as_u64).is_none_or(|n| n > 1) {
        let seen = returned.map_or_else(|| "none".to_string(), Value::to_string);
        outcome.fail(
            run,
            format!(
                "field meta.pagination.returned: expected at most 1 with --limit 1, seen \
                 {seen} (REQ-F-018)"
            ),
        );
    }
}

/// `--cursor <next_cursor>`: exit 0 with a page unlike the first.
fn judge_next_page(
    ctx: &Context<'_>,
    outcome: &mut Outcome,
    run: &Judged<'_>,
    baseline: &Judged<'_>,
) {
    if !outcome.completed(run) {
        return;
    }
    let cursor = cursor_of(&run.record.argv).unwrap_or_default();
    let Some(envelope) = success(ctx, outcome, run, &format!("--cursor {cursor}")) else {
        return;
    };
    let Ok(first) = ctx.envelope(baseline) else {
        return;
    };
    let page = data::stable_data_in;
    if page(envelope) == page(first) {
        outcome.fail(
            run,
            format!(
                "field data: expected the next page with cursor {}, seen the same data as \
                 the first page; next_cursor must lead on (REQ-F-018, REQ-O-003)",
                quoted(&cursor)
            ),
        );
    }
}

/// A cursor no tool issued: ends in time, non-zero, with an error envelope.
fn judge_bad_cursor(ctx: &Context<'_>, outcome: &mut Outcome, run: &Judged<'_>) {
    if !outcome.completed(run) {
        return;
    }
    let cursor = quoted(BAD_CURSOR);
    if run.record.exit_code() == Some(0) {
        outcome.fail(
            run,
            format!(
                "cursor {cursor}: expected a refusal (exit 2 with an error envelope), seen \
                 exit 0; an invalid cursor is an error, not a page (REQ-O-003)"
            ),
        );
        return;
    }
    if let Err(why) = ctx.error_object(run) {
        outcome.fail(
            run,
            format!(
                "cursor {cursor}: {} as expected, but with no error envelope on stdout \
                 ({why}); an invalid cursor gets a structured error (REQ-O-003)",
                run.describe_exit()
            ),
        );
    }
}

/// The envelope of a follow-up run that must succeed; its failure recorded when not.
fn success<'c>(
    ctx: &'c Context<'_>,
    outcome: &mut Outcome,
    run: &Judged<'_>,
    change: &str,
) -> Option<&'c Value> {
    if run.record.exit_code() != Some(0) {
        outcome.fail(
            run,
            format!(
                "with {change}: expected exit 0, seen it {} (REQ-O-003)",
                run.describe_exit()
            ),
        );
        return None;
    }
    match ctx.envelope(run) {
        Ok(envelope) => Some(envelope),
        Err(why) => {
            outcome.fail(
                run,
                format!("with {change}: expected one envelope, seen {why} (REQ-O-003)"),
            );
            None
        }
    }
}

/// The value after the last `--cursor` in a run's argv.
fn cursor_of(argv: &[String]) -> Option<String> {
    argv.iter().enumerate().rev().find_map(|(at, arg)| {
        if arg == "--cursor" {
            argv.get(at + 1).cloned()
        } else {
            arg.strip_prefix("--cursor=").map(str::to_string)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_passed, details, judged_in, manifest_envelope, write};
    use crate::checks::Status;
    use crate::exec::Exit;
    use crate::plan::PlannedRun;
    use serde_json::json;

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "manifest": ["manifest"],
        "probes": [
            { "name": "list", "argv": ["deployments", "list"], "kind": "read" },
            { "name": "bad", "argv": ["deployments", "list", "--nope"], "kind": "invalid" }
        ]
    }"#;

    fn list_command(flags: Value) -> Value {
        json!({"deployments.list": {
            "description": "List", "danger_level": "safe", "required_scopes": [],
            "flags": flags,
            "exit_codes": {"0": {"description": "ok", "retryable": false, "side_effects": "none"}}
        }})
    }

    fn paging_flags() -> Value {
        json!({
            "limit": {"type": "integer", "required": false, "description": "page size", "default": 2},
            "cursor": {"type": "string", "required": false, "description": "page token"}
        })
    }

    /// A page of `ids` with `pagination`.
    fn page(ids: &[&str], pagination: Value) -> String {
        let data: Vec<Value> = ids.iter().map(|id| json!({"id": id})).collect();
        json!({"ok": true, "data": data, "error": null, "warnings": [],
               "meta": {"exit_code": 0, "duration_ms": 0, "pagination": pagination}})
        .to_string()
    }

    fn pagination(returned: u64, next: Option<&str>) -> Value {
        json!({"total": 3, "returned": returned, "truncated": next.is_some(),
               "has_more": next.is_some(), "next_cursor": next})
    }

    const REFUSAL: &str = r#"{"ok":false,"data":null,"error":{"code":"INVALID_CURSOR","message":"bad cursor","retryable":false},"warnings":[],"meta":{"exit_code":2,"duration_ms":0}}"#;

    /// A tool that pages well, each run changed by `change` (which may say a run
    /// was not made by returning `false`).
    fn judged(
        flags: Value,
        change: impl Fn(&PlannedRun, &mut crate::exec::RunRecord) -> bool,
    ) -> Outcome {
        let manifest = manifest_envelope(list_command(flags));
        judged_in(PROFILE, CheckId::PaginationContract, |run, record| {
            match run.role.kind {
                RunKind::Manifest => write(record, &manifest),
                RunKind::Closed => {
                    write(record, &page(&["a", "b"], pagination(2, Some("cGFnZTI="))))
                }
                RunKind::PageLimit => write(record, &page(&["a"], pagination(1, Some("cGFnZTI=")))),
                RunKind::PageNext => {
                    record.argv = ["sh", "deployments", "list", "--cursor", "cGFnZTI="]
                        .map(String::from)
                        .to_vec();
                    write(record, &page(&["c"], pagination(1, None)));
                }
                RunKind::PageBadCursor => {
                    record.exit = Exit::Code(2);
                    write(record, REFUSAL);
                }
                _ => {}
            }
            change(run, record)
        })
    }

    #[test]
    fn a_list_that_pages_honestly_passes() {
        // The first page, --limit 1, the next page and the refused cursor.
        assert_passed(&judged(paging_flags(), |_, _| true), 4);
        // A complete set: no next page is made; data nested under one key.
        let outcome = judged(paging_flags(), |run, record| match run.role.kind {
            RunKind::PageNext => false,
            RunKind::Closed => {
                write(
                    record,
                    &page(&["a"], pagination(1, None)).replace(
                        r#""data":[{"id":"a"}]"#,
                        r#""data":{"deployments":[{"id":"a"}]}"#,
                    ),
                );
                true
            }
            _ => true,
        });
        assert_passed(&outcome, 3);
    }

    #[test]
    fn returned_holding_the_total_names_the_field_and_both_values() {
        let outcome = judged(paging_flags(), |run, record| {
            if run.role.kind == RunKind::Closed {
                write(record, &page(&["a", "b"], pagination(3, Some("cGFnZTI="))));
            }
            true
        });
        assert_eq!(details(&outcome).len(), 1, "{outcome:#?}");
        assert!(details(&outcome)[0]
            .starts_with("field meta.pagination.returned: expected 2 (the items in data), seen 3"));
    }

    #[test]
    fn each_broken_promise_fails_with_its_field() {
        let cases: [(RunKind, &str, &str); 5] = [
            (
                RunKind::Closed,
                r#"{"ok":true,"data":[],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0}}"#,
                "field meta.pagination: expected an object",
            ),
            (
                RunKind::Closed,
                r#"{"ok":true,"data":[{"id":"a"},{"id":"b"},{"id":"c"}],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"pagination":{"total":3,"returned":3,"truncated":false,"has_more":false,"next_cursor":null}}}"#,
                "field data: expected at most 2 items (the limit flag's declared default), seen 3",
            ),
            (
                RunKind::Closed,
                r#"{"ok":true,"data":[{"id":"a"},{"id":"b"}],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"pagination":{"total":3,"returned":2,"truncated":true,"has_more":true,"next_cursor":"a/b c"}}}"#,
                r#"field meta.pagination.next_cursor: expected a URL-safe string (A-Za-z0-9-_.~=) with has_more true, seen cursor "a/b c""#,
            ),
            (
                RunKind::PageLimit,
                r#"{"ok":true,"data":[{"id":"a"},{"id":"b"}],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"pagination":{"total":3,"returned":2,"truncated":true,"has_more":true,"next_cursor":"x"}}}"#,
                "field data: expected at most 1 item with --limit 1, seen 2",
            ),
            (
                RunKind::PageNext,
                r#"{"ok":true,"data":[{"id":"a"},{"id":"b"}],"error":null,"warnings":[],"meta":{"exit_code":0,"duration_ms":0,"pagination":{"total":3,"returned":2,"truncated":true,"has_more":true,"next_cursor":"cGFnZTI="}}}"#,
                r#"field data: expected the next page with cursor "cGFnZTI=", seen the same data"#,
            ),
        ];
        for (kind, stdout, words) in cases {
            let outcome = judged(paging_flags(), |run, record| {
                if run.role.kind == kind {
                    write(record, stdout);
                }
                true
            });
            assert_eq!(outcome.status(), Status::Fail, "{kind:?}: {outcome:#?}");
            assert!(
                details(&outcome).iter().any(|d| d.starts_with(words)),
                "{words:?} not in {:#?}",
                details(&outcome)
            );
        }
    }

    #[test]
    fn a_cursor_no_tool_issued_must_be_refused_with_an_error_envelope() {
        let outcome = judged(paging_flags(), |run, record| {
            if run.role.kind == RunKind::PageBadCursor {
                record.exit = Exit::Code(0);
                write(record, &page(&["a", "b"], pagination(2, None)));
            }
            true
        });
        assert!(details(&outcome)[0].starts_with(
            r#"cursor "!conform-not-a-cursor!": expected a refusal (exit 2 with an error envelope), seen exit 0"#
        ));
        let outcome = judged(paging_flags(), |run, record| {
            if run.role.kind == RunKind::PageBadCursor {
                record.exit = Exit::Code(1);
                write(record, "");
                record.stderr.bytes = b"Traceback: invalid cursor\n".to_vec();
            }
            true
        });
        assert!(details(&outcome)[0].starts_with(
            r#"cursor "!conform-not-a-cursor!": exited 1 as expected, but with no error envelope"#
        ));
        let outcome = judged(paging_flags(), |run, record| {
            if run.role.kind == RunKind::PageNext {
                record.exit = Exit::Code(2);
                write(record, REFUSAL);
            }
            true
        });
        assert!(details(&outcome)[0]
            .starts_with("with --cursor cGFnZTI=: expected exit 0, seen it exited 2"));
    }

    #[test]
    fn it_skips_without_a_manifest_or_a_list_command() {
        let outcome = judged(json!({}), |_, _| true);
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
        assert!(outcome
            .skipped_reason
            .as_deref()
            .is_some_and(|r| r.starts_with("no read probe names a command that declares")));
        let outcome = judged(paging_flags(), |run, record| {
            if run.role.kind == RunKind::Manifest {
                write(record, "not a manifest");
            }
            true
        });
        assert_eq!(outcome.status(), Status::Skip, "{outcome:#?}");
        assert!(outcome
            .skipped_reason
            .as_deref()
            .is_some_and(|r| r.starts_with("the tool gave no valid manifest")));
    }

    #[test]
    fn the_first_page_bound_is_the_probes_limit_the_declared_default_or_20() {
        let probe = |argv: &[&str]| Probe {
            argv: argv.iter().map(|a| a.to_string()).collect(),
            ..serde_json::from_value(json!({"name": "l", "argv": [], "kind": "read"}))
                .expect("a probe")
        };
        let flag = json!({"type": "integer", "default": 5});
        assert_eq!(page_bound(&probe(&["list"]), Some(&flag)).0, 5);
        assert_eq!(
            page_bound(&probe(&["list", "--limit", "50"]), Some(&flag)).0,
            50
        );
        assert_eq!(page_bound(&probe(&["list", "--limit=7"]), Some(&flag)).0, 7);
        assert_eq!(page_bound(&probe(&["list"]), None).0, 20);
        assert!(url_safe("cGFnZTI=") && url_safe("a-b_c.d~e"));
        assert!(!url_safe("") && !url_safe("a+b") && !url_safe("a/b"));
    }
}
