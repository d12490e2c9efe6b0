//! `deployments list | get | delete`.

use std::io::{self, IsTerminal, Read};

use serde_json::{json, Map, Value};

use super::{Ctx, Outcome, Reply, Resume};
use crate::codec;
use crate::defect::{Defect, Faults};
use crate::error::{CliError, Failure, Status};
use crate::output::{self, table, Format};
use crate::parse::Parsed;
use crate::signals;
use crate::spec::{DEFAULT_LIMIT, FILTER_PATTERN};
use crate::store::{self, Deployment, Store};
use crate::stream::{Stream, ITEM_DELAY};

const COLUMNS: [&str; 6] = ["ID", "ENV", "SERVICE", "VERSION", "STATUS", "CREATED_AT"];
const STATUS_COLUMN: usize = 4;

pub fn list(args: &Parsed, ctx: &Ctx) -> Result<Outcome, Failure> {
    // Validate everything before reading any state (REQ-F-015).
    // The parser already refused anything but a known environment (REQ-F-045),
    // unless the env-substring-match defect let it through.
    let substring = ctx.ui.faults.on(Defect::EnvSubstringMatch);
    let env = args.positional(0);
    let limit = args.int("limit");
    let page_size = usize::try_from(limit.unwrap_or(DEFAULT_LIMIT)).unwrap_or(usize::MAX);
    let start = args
        .text("cursor")
        .map(|cursor| decode_cursor(cursor, page_size))
        .transpose()?
        .unwrap_or(0);
    let streaming = args.switch("stream");

    let store = Store::load(&store::home()?)?;
    let ids_from_stdin = if ctx.ui.faults.on(Defect::ReadsStdin) {
        read_ids_from_stdin()?
    } else {
        Vec::new()
    };
    let matching: Vec<&Deployment> = store
        .data
        .deployments
        .iter()
        .filter(|d| env.is_none_or(|env| d.env == env || (substring && d.env.contains(env))))
        .filter(|d| ids_from_stdin.is_empty() || ids_from_stdin.contains(&d.id))
        .collect();

    let total = matching.len();
    let start = start.min(total);
    // A stream without --limit runs to the end; everything else is one page.
    let end = if streaming && limit.is_none() {
        total
    } else {
        start.saturating_add(page_size).min(total)
    };
    let items = &matching[start..end];
    let pagination = pagination(
        total,
        items.len(),
        end < total,
        next_cursor(start, end, page_size),
    );

    if streaming {
        return stream_items(items, pagination, ctx).map(Outcome::Streamed);
    }
    if ctx.ui.faults.on(Defect::HangOnList) {
        hang()?;
    }
    if ctx.ui.faults.on(Defect::HelperHoldsStdout) {
        spawn_stdout_holder();
    }

    let paint = ctx.ui.stdout_paint();
    let mut plain = if items.is_empty() {
        match env {
            Some(env) => format!("No deployments in {env} on this page.\n"),
            None => "No deployments on this page.\n".to_owned(),
        }
    } else {
        table(&COLUMNS, &rows(items), paint, STATUS_COLUMN)
    };
    plain.push_str(&paint.dim(&footer(&pagination)));
    plain.push('\n');

    let mut meta = Map::new();
    let mut pagination = pagination;
    if ctx.ui.faults.on(Defect::PaginationReturnedTotal) {
        pagination["returned"] = json!(total);
    }
    meta.insert("pagination".into(), pagination);
    let mut data = json!(items);
    if ctx.ui.faults.on(Defect::LocaleDecimalComma) && german_locale() {
        decimal_comma_versions(&mut data);
    }
    if ctx.ui.faults.on(Defect::WrapsDataAtColumns) {
        wrap_to_columns(&mut data);
    }
    if ctx.ui.faults.on(Defect::HugeEnvelope) {
        if let Some(first) = data.get_mut(0) {
            first["notes"] = json!("x".repeat(HUGE_NOTES));
        }
    }
    Ok(Outcome::Reply(Box::new(Reply {
        data,
        meta,
        plain,
        committed: false,
        resume: Some(Resume {
            start,
            cursor: offset_cursor,
        }),
        ..Reply::default()
    })))
}

/// Defect: the bytes of notes the first listed item carries (64 MiB).
const HUGE_NOTES: usize = 64 << 20;

/// Defect: a helper in its own process group (so a kit's group kill misses it)
/// inherits stdout and keeps it open for two seconds after democli exits, then
/// exits by itself.
fn spawn_stdout_holder() {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    // Best effort: without the helper the defect just does not show.
    let _ = Command::new("sleep")
        .arg("2")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
}

/// Whether the locale variables name German (`LC_ALL` first, as C does).
fn german_locale() -> bool {
    ["LC_ALL", "LC_NUMERIC", "LANG"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|value| !value.is_empty()))
        .is_some_and(|locale| locale.starts_with("de"))
}

/// Defect: version numbers written with the locale's decimal comma ("1,4,0").
fn decimal_comma_versions(data: &mut Value) {
    for item in data.as_array_mut().into_iter().flatten() {
        if let Some(Value::String(version)) = item.get_mut("version") {
            *version = version.replace('.', ",");
        }
    }
}

/// Defect: each string of every item broken with newlines into lines of its table
/// column's share of `$COLUMNS`, when that is set to a width.
fn wrap_to_columns(data: &mut Value) {
    let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|value| value.trim().parse::<usize>().ok())
        .filter(|columns| *columns > 0)
    else {
        return;
    };
    let share = (columns / COLUMNS.len()).max(1);
    let items = data.as_array_mut().into_iter().flatten();
    for field in items
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
    {
        if let Value::String(text) = field {
            let chars: Vec<char> = text.chars().collect();
            *text = chars
                .chunks(share)
                .map(|line| line.iter().collect::<String>())
                .collect::<Vec<_>>()
                .join("\n");
        }
    }
}

pub fn get(args: &Parsed, _ctx: &Ctx) -> Result<Outcome, Failure> {
    let id = args.positional(0).ok_or_else(|| {
        CliError::usage(
            "MISSING_ARGUMENT",
            "'deployments get' needs the argument ID",
        )
    })?;
    let store = Store::load(&store::home()?)?;
    let Some(deployment) = store.data.deployments.iter().find(|d| d.id == id) else {
        return Err(CliError::execution(
            Status::NotFound,
            "NOT_FOUND",
            format!("no deployment has the ID {id}"),
        )
        .suggest("democli deployments list")
        .context(json!({ "id": id }))
        .into());
    };
    let plain = format!(
        "id          {}\nenv         {}\nservice     {}\nversion     {}\nstatus      {}\ncreated_at  {}\n",
        deployment.id,
        deployment.env,
        deployment.service,
        deployment.version,
        deployment.status,
        deployment.created_at
    );
    Ok(Outcome::Reply(Box::new(Reply {
        data: json!(deployment),
        meta: Map::new(),
        plain,
        committed: false,
        ..Reply::default()
    })))
}

pub fn delete(args: &Parsed, ctx: &Ctx) -> Result<Outcome, Failure> {
    let faults = ctx.ui.faults;
    let raw_filter = args
        .text("filter")
        .ok_or_else(|| CliError::usage("MISSING_FLAG", "'deployments delete' needs --filter"))?;
    let filter = Filter::parse(raw_filter)?;
    let dry_run = args.switch("dry-run");
    let confirmed = args.switch("yes") || args.switch("confirm-destructive");

    let mut store = Store::load(&store::home()?)?;
    let matched: Vec<Deployment> = store
        .data
        .deployments
        .iter()
        .filter(|d| filter.matches(d))
        .cloned()
        .collect();
    let ids: Vec<&str> = matched.iter().map(|d| d.id.as_str()).collect();

    if dry_run {
        if faults.on(Defect::DryRunWrites) {
            store.save()?;
        }
        let data = json!({
            "effect": "would_delete",
            "filter": filter.to_json(),
            "would_affect": {
                "count": matched.len(),
                "ids": ids,
                "deployments": matched,
                "reversible": false,
            },
            "revision": store.data.revision,
        });
        if faults.on(Defect::DryRunExitsNonzero) {
            return Err(CliError::execution(
                Status::GeneralError,
                "DRY_RUN_NOT_APPLIED",
                "dry run: nothing was deleted",
            )
            .data(data)
            .into());
        }
        let paint = ctx.ui.stdout_paint();
        let mut plain = format!(
            "Would delete {} deployments matching {raw_filter} (dry run: nothing changed)\n",
            matched.len()
        );
        if !matched.is_empty() {
            let refs: Vec<&Deployment> = matched.iter().collect();
            plain.push_str(&table(&COLUMNS, &rows(&refs), paint, STATUS_COLUMN));
        }
        let mut meta = Map::new();
        meta.insert("dry_run".into(), json!(true));
        return Ok(Outcome::Reply(Box::new(Reply {
            data,
            meta,
            plain,
            committed: false,
            ..Reply::default()
        })));
    }

    if !confirmed {
        unconfirmed(faults, &ids, raw_filter)?;
    }

    let effect = if matched.is_empty() {
        "noop"
    } else {
        let now = codec::now_rfc3339();
        store.data.deployments.retain(|d| !filter.matches(d));
        for deployment in &matched {
            let number = store.data.events.len() + 1;
            store
                .data
                .events
                .push(store::event(number, "deployment.deleted", deployment, &now));
        }
        // Last chance to honor a signal: after the rename the deletion has happened.
        if let Some(signal) = signals::received() {
            return Err(CliError::interrupted(signal).into());
        }
        store.save()?;
        "deleted"
    };
    let data = json!({
        "effect": effect,
        "filter": filter.to_json(),
        "deleted": ids,
        "count": matched.len(),
        "revision": store.data.revision,
    });
    let plain = if matched.is_empty() {
        format!("Nothing to delete: no deployment matches {raw_filter}\n")
    } else {
        format!(
            "Deleted {} deployments matching {raw_filter}: {}\n",
            matched.len(),
            ids.join(", ")
        )
    };
    let mut meta = Map::new();
    meta.insert("confirmed".into(), json!(true));
    Ok(Outcome::Reply(Box::new(Reply {
        data,
        meta,
        plain,
        committed: !matched.is_empty(),
        ..Reply::default()
    })))
}

/// A deletion without `--yes`: the reference CLI refuses and shows what would go
/// (REQ-C-005, REQ-O-021); two defects go ahead, or ask on stdin, instead.
fn unconfirmed(faults: Faults, ids: &[&str], filter: &str) -> Result<(), CliError> {
    if faults.on(Defect::DeletesUnconfirmed) {
        return Ok(());
    }
    if faults.on(Defect::PromptsBeforeDelete) {
        return if prompt(ids.len(), filter) {
            Ok(())
        } else {
            Err(CliError::execution(
                Status::GeneralError,
                "ABORTED",
                "deletion not confirmed at the prompt; nothing was deleted",
            ))
        };
    }
    Err(CliError::usage(
        "CONFIRMATION_REQUIRED",
        format!(
            "refusing to delete {} deployments matching {filter} without --yes",
            ids.len()
        ),
    )
    .fix("Pass --yes to delete them, or --dry-run to preview the deletion")
    .suggest(format!(
        "democli deployments delete --filter {filter} --dry-run"
    ))
    .context(json!({
        "danger_level": "destructive",
        "would_affect": { "count": ids.len(), "ids": ids },
    })))
}

fn stream_items(items: &[&Deployment], pagination: Value, ctx: &Ctx) -> Result<u8, Failure> {
    // --stream asks for JSON lines (REQ-O-004); only an explicit --format plain
    // turns them into text lines.
    let format = ctx.ui.explicit.unwrap_or(Format::Json);
    let mut stream = Stream::new(&ctx.ui, format, ctx.command.key, ctx.started);
    for deployment in items {
        if let Some(signal) = signals::received() {
            return Ok(stream.cancel(signal)?);
        }
        stream.item(&json!(deployment), &line(deployment))?;
        if let Some(signal) = signals::pause(ITEM_DELAY) {
            return Ok(stream.cancel(signal)?);
        }
    }
    let mut summary = Map::new();
    summary.insert("pagination".into(), pagination);
    Ok(stream.finish(summary)?)
}

/// The hang-on-list defect: block forever, as a tool stuck on a lock or a socket does.
fn hang() -> Result<(), CliError> {
    loop {
        if let Some(signal) = signals::pause(std::time::Duration::from_secs(1)) {
            return Err(CliError::interrupted(signal));
        }
    }
}

/// The reads-stdin defect: take deployment IDs from a non-terminal stdin, which blocks
/// for as long as the caller keeps the pipe open.
fn read_ids_from_stdin() -> Result<Vec<String>, CliError> {
    let stdin = io::stdin();
    if stdin.is_terminal() {
        return Ok(Vec::new());
    }
    let mut text = String::new();
    stdin.lock().read_to_string(&mut text).map_err(|error| {
        CliError::execution(
            Status::GeneralError,
            "STDIN_UNREADABLE",
            format!("cannot read stdin: {error}"),
        )
    })?;
    Ok(text.split_whitespace().map(str::to_owned).collect())
}

/// The prompts-before-delete defect: ask on stderr, read the answer from stdin even
/// when stdin is not a terminal. EOF or an unreadable stdin is a "no".
fn prompt(count: usize, filter: &str) -> bool {
    output::write_stderr(&format!(
        "Delete {count} deployments matching {filter}? [y/N] "
    ));
    let mut answer = String::new();
    io::stdin().read_line(&mut answer).is_ok()
        && matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// Cursors are base64 of `page<N>` (page N at the current `--limit`) or `from<K>` (from
/// the K-th item, counting from 0): stateless, so any position can be addressed directly.
/// Returns the index of the first item.
fn decode_cursor(cursor: &str, page_size: usize) -> Result<usize, CliError> {
    let number = |text: &str, prefix: &str| {
        text.strip_prefix(prefix)
            .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|digits| digits.parse::<usize>().ok())
    };
    codec::base64_decode(cursor)
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| match number(&text, "page") {
            Some(page) if page >= 1 => Some((page - 1).saturating_mul(page_size)),
            Some(_) => None,
            None => number(&text, "from"),
        })
        .ok_or_else(|| {
            CliError::usage(
                "INVALID_CURSOR",
                format!("--cursor {cursor} is not a valid cursor"),
            )
            .fix("Pass meta.pagination.next_cursor from a previous page, or omit --cursor")
            .context(json!({ "flag": "--cursor", "value": cursor }))
        })
}

fn page_cursor(page: usize) -> String {
    codec::base64_encode(format!("page{page}").as_bytes())
}

fn offset_cursor(start: usize) -> String {
    codec::base64_encode(format!("from{start}").as_bytes())
}

/// The cursor of what follows `start..end`: the next page while pages stay aligned, the
/// exact position otherwise.
fn next_cursor(start: usize, end: usize, page_size: usize) -> String {
    if page_size > 0 && start.is_multiple_of(page_size) {
        page_cursor(start / page_size + 2)
    } else {
        offset_cursor(end)
    }
}

fn pagination(total: usize, returned: usize, has_more: bool, next: String) -> Value {
    json!({
        "total": total,
        "returned": returned,
        "truncated": has_more,
        "has_more": has_more,
        "next_cursor": has_more.then_some(next),
    })
}

fn footer(pagination: &Value) -> String {
    let mut text = format!(
        "{} of {} deployments",
        pagination["returned"], pagination["total"]
    );
    if let Some(next) = pagination["next_cursor"].as_str() {
        text.push_str(&format!("; next page: --cursor {next}"));
    }
    text
}

fn rows(items: &[&Deployment]) -> Vec<Vec<String>> {
    items
        .iter()
        .map(|d| {
            vec![
                d.id.clone(),
                d.env.clone(),
                d.service.clone(),
                d.version.clone(),
                d.status.clone(),
                d.created_at.clone(),
            ]
        })
        .collect()
}

/// One deployment as a plain stream line.
fn line(d: &Deployment) -> String {
    format!(
        "{:8} {:11} {:8} {:13} {:12} {}",
        d.id, d.env, d.service, d.version, d.status, d.created_at
    )
}

/// `--filter KEY=VALUE[,KEY=VALUE]`: every term must match.
struct Filter {
    terms: Vec<(String, String)>,
}

impl Filter {
    fn parse(raw: &str) -> Result<Filter, CliError> {
        let invalid = |reason: String| {
            CliError::usage("INVALID_FILTER", format!("--filter {raw}: {reason}"))
                .fix("Pass KEY=VALUE terms over env, service and status, separated by commas")
                .suggest("--filter env=staging,status=failed")
                .context(json!({ "flag": "--filter", "value": raw, "pattern": FILTER_PATTERN }))
        };
        let mut terms: Vec<(String, String)> = Vec::new();
        for term in raw.split(',') {
            let Some((key, value)) = term.split_once('=') else {
                return Err(invalid(format!("'{term}' is not KEY=VALUE")));
            };
            if !matches!(key, "env" | "service" | "status") {
                return Err(invalid(format!(
                    "unknown key '{key}' (use env, service or status)"
                )));
            }
            let value_ok = !value.is_empty()
                && value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
            if !value_ok {
                return Err(invalid(format!("'{value}' is not a valid value for {key}")));
            }
            if terms.iter().any(|(seen, _)| seen == key) {
                return Err(invalid(format!("'{key}' is given twice")));
            }
            terms.push((key.to_owned(), value.to_owned()));
        }
        Ok(Filter { terms })
    }

    fn matches(&self, deployment: &Deployment) -> bool {
        self.terms.iter().all(|(key, value)| {
            let field = match key.as_str() {
                "env" => &deployment.env,
                "service" => &deployment.service,
                _ => &deployment.status,
            };
            field == value
        })
    }

    fn to_json(&self) -> Value {
        let map: Map<String, Value> = self
            .terms
            .iter()
            .map(|(key, value)| (key.clone(), json!(value)))
            .collect();
        Value::Object(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Paint;

    #[test]
    fn cursor_round_trips_and_rejects_garbage() {
        assert_eq!(decode_cursor("cGFnZTI=", 5).ok(), Some(5));
        assert_eq!(page_cursor(2), "cGFnZTI=");
        assert_eq!(decode_cursor(&offset_cursor(7), 5).ok(), Some(7));
        assert_eq!(next_cursor(5, 10, 5), page_cursor(3));
        assert_eq!(next_cursor(7, 12, 5), offset_cursor(12));
        for bad in ["", "page2", "cGFnZTA=", "cGFnZQ==", "!!!!", "ZnJvbQ=="] {
            assert!(decode_cursor(bad, 5).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn filter_grammar() {
        let filter = Filter::parse("env=staging,status=failed").ok();
        assert_eq!(filter.map(|f| f.terms.len()), Some(2));
        for bad in [
            "env",
            "env=",
            "zone=eu",
            "env=a,env=b",
            "env=a b",
            "env=staging,",
        ] {
            assert!(Filter::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn paint_off_keeps_plain_text() {
        assert_eq!(Paint(false).status("failed"), "failed");
    }
}
