//! The commands of the `conform` binary without its argument parser: each takes
//! plain values, writes its output to stdout (an envelope, text or JSON lines) and
//! returns the exit status. The binary turns its arguments into these calls, and
//! owns what is process-wide: the signal handlers and the exit.

mod cap;
mod check;
mod init;
mod isolation;
mod merge;
pub(crate) mod output;
mod replay;
mod requirements;
mod run;
mod selection;
mod tools;

use std::path::PathBuf;
use std::time::Instant;

use serde_json::{json, Value};

use crate::checks::CATALOG;
use crate::envelope::{envelope, ErrorDetail, ExitStatus};
use crate::render::json_report as render_json_report;
use crate::render::style::{color_enabled, Style};
use crate::render::validate::{self as render_validate, ValidateReport};
use crate::{discover, profile};
use output::{elapsed_ms, emit, emit_json, finish, report_error};

pub use self::check::{check, CheckRequest, MAX_CHECK_TIMEOUT_SECONDS};
pub use self::init::{init, init_vscode};
pub use self::isolation::require_namespace;
pub use self::merge::{merge, MergeRequest};
pub use self::replay::{replay, ReplayRequest};
pub use self::run::{run, RunRequest};
pub(crate) use self::selection::select;
pub use self::tools::{check_tools, ToolsRequest};
pub use crate::exec::{Orphan, DEFAULT_CAPTURE_LIMIT};
pub use crate::init::{Request as InitRequest, Source as InitSource, MAX_TIMEOUT_SECONDS};
pub use crate::partition::Partition;
pub use crate::render::ReportFormat;

/// Makes this process the child subreaper of conform's runs (Linux): a process a
/// tool starts outside its process group is re-parented here when its parent exits,
/// not to init, and a run kills those that still hold its output when it ends
/// (listed in its evidence as `orphans_killed`). Process-wide and for good: for a
/// process that starts nothing but conform's runs, as the `conform` binary; call
/// [`end_orphans`] once they are over. Fails where there are no subreapers.
pub fn adopt_orphans() -> std::io::Result<()> {
    crate::exec::adopt_orphans()
}

/// Where conform lacks the privilege to make network namespaces, enters a user
/// namespace (its own uid and gid mapped to themselves) so that it can: the runs at
/// the black hole then get a namespace each, as under root. Call it first, before
/// any thread starts (the kernel refuses it later); where refused, the reports say
/// why and how to allow it.
pub fn enter_user_namespace() {
    crate::exec::enter_user_namespace()
}

/// Kills every process still running below this one, the tools' orphans that no
/// run could claim (such as a daemon whose stdio is on `/dev/null`), and reaps
/// them; nothing unless [`adopt_orphans`] was called. Only once no run is in flight.
pub fn end_orphans() -> Vec<Orphan> {
    crate::exec::end_orphans()
}

/// How a command prints.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    /// One JSON envelope; else text for people.
    pub json: bool,
    /// Color in text (never in JSON).
    pub color: bool,
    /// When the command started, for `meta.duration_ms`.
    pub started: Instant,
}

impl Output {
    /// JSON or text as asked; color only in text, on a terminal that allows it
    /// (NO_COLOR, CLICOLOR, TERM=dumb).
    pub fn new(json: bool, started: Instant) -> Output {
        Output {
            json,
            color: !json && color_enabled(),
            started,
        }
    }

    fn style(&self) -> Style {
        Style { color: self.color }
    }

    fn elapsed_ms(&self) -> u64 {
        elapsed_ms(self.started)
    }
}

/// Which document `conform schema` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaKind {
    /// The profile format.
    Profile,
    /// The `--json-report` document.
    Report,
}

/// The names `--only` and `--skip` take: the groups, then every check ID.
pub fn selectors() -> impl Iterator<Item = &'static str> {
    selection::GROUPS.into_iter().chain(check_ids())
}

/// Every check ID, in catalog order.
pub fn check_ids() -> impl Iterator<Item = &'static str> {
    CATALOG.iter().map(|spec| spec.name)
}

/// Print `data` in a success envelope, whatever the format (`conform manifest`).
pub fn print_envelope(data: Value, out: &Output) -> ExitStatus {
    emit_json(&envelope(ExitStatus::Success, data, None, out.elapsed_ms()))
}

/// Print text as it is: help, a completion script.
pub fn print_text(text: &str) -> ExitStatus {
    emit(text)
}

/// Bad arguments: exit 2 with a USAGE_ERROR envelope, or the message on stderr.
/// `message` is the first line of `usage`, the parser's whole explanation.
pub fn usage_error(message: &str, usage: &str, out: &Output) -> ExitStatus {
    let detail = ErrorDetail {
        context: Some(json!({ "usage": usage })),
        ..ErrorDetail::invalid_input(
            "USAGE_ERROR",
            message,
            "Correct the arguments; see `conform --help`",
        )
    };
    report_error(
        ExitStatus::InvalidInput,
        detail,
        Value::Null,
        out.json,
        out.started,
    )
}

/// `conform validate`: load and validate every profile; run nothing.
pub fn validate(args: &[PathBuf], out: &Output) -> ExitStatus {
    let paths = match discover::profile_paths(args) {
        Ok(paths) => paths,
        Err(message) => {
            return report_error(
                ExitStatus::InvalidInput,
                bad_paths_detail(&message),
                Value::Null,
                out.json,
                out.started,
            )
        }
    };
    let report = ValidateReport {
        outcomes: paths.iter().map(|p| profile::load(p)).collect(),
    };
    let status = report.status();
    let written = if out.json {
        emit_json(&render_validate::to_envelope(&report, out.elapsed_ms()))
    } else {
        emit(&render_validate::to_text(&report, out.style()))
    };
    finish(status, written)
}

/// A directory named on the command line that holds no profile.
fn bad_paths_detail(message: &str) -> ErrorDetail {
    ErrorDetail::invalid_input(
        "INVALID_PROFILE",
        message,
        "Name profile files or a directory that contains *.json profiles",
    )
}

/// `conform schema`: a JSON Schema, bare or in an envelope.
pub fn schema(which: SchemaKind, raw: bool, out: &Output) -> ExitStatus {
    let text = match which {
        SchemaKind::Profile => profile::PROFILE_SCHEMA,
        SchemaKind::Report => render_json_report::SCHEMA,
    };
    let schema: Value = match serde_json::from_str(text) {
        Ok(schema) => schema,
        Err(e) => {
            eprintln!("conform: the embedded schema is not JSON: {e}");
            return ExitStatus::GeneralError;
        }
    };
    if raw || !out.json {
        emit_json(&schema)
    } else {
        print_envelope(schema, out)
    }
}

/// `conform checks --requirements`: every requirement of the spec with the checks
/// that judge it, or why none does.
pub fn requirements(out: &Output) -> ExitStatus {
    if out.json {
        print_envelope(requirements::to_json(), out)
    } else {
        emit(&requirements::to_markdown())
    }
}

/// `conform checks`: the catalog, or the checks named, or those of level <= N.
pub fn checks(ids: &[String], level: Option<u8>, out: &Output) -> ExitStatus {
    let style = out.style();
    let selected: Vec<_> = CATALOG
        .iter()
        .filter(|c| ids.is_empty() || ids.iter().any(|id| id == c.name))
        .filter(|c| level.is_none_or(|n| c.level <= n))
        .collect();
    if out.json {
        let checks: Vec<Value> = selected
            .iter()
            .map(|c| {
                json!({
                    "id": c.name,
                    "title": c.title,
                    "level": c.level,
                    "failure_modes": c.failure_modes.iter().map(|n| format!("§{n}")).collect::<Vec<_>>(),
                    "requirements": c.requirements,
                    "extension": c.extension,
                })
            })
            .collect();
        return print_envelope(json!({ "checks": checks }), out);
    }
    let width = selected.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for c in &selected {
        let extension = if c.extension { " [extension]" } else { "" };
        text.push_str(&format!(
            "{}  level {}  {}{extension}\n{:width$}  {}\n",
            style.bold(&format!("{:width$}", c.name)),
            c.level,
            c.requirements.join(", "),
            "",
            style.dim(c.title),
        ));
    }
    emit(&text)
}

/// An init or check failure as the envelope's error: a bad argument or profile is a
/// validation error, anything the tool did an execution error.
fn failure_detail(failure: crate::init::Failure) -> ErrorDetail {
    let phase = if failure.status == ExitStatus::InvalidInput {
        "validation"
    } else {
        "execution"
    };
    ErrorDetail {
        code: failure.code.into(),
        message: failure.message,
        retryable: failure.status.retryable(),
        phase: Some(phase),
        fix_required: Some(failure.fix),
        context: failure.context.map(|c| *c),
    }
}
