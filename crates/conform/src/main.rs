//! The `conform` command line: parse arguments, call the library, render, exit.

mod cli;

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use serde_json::{json, Value};

use cli::args::{Cli, Command, CompletionShell, Format, InitArgs, SchemaKind};
use cli::output::{elapsed_ms, emit, emit_json, emit_json_line, finish, report_error};
use conform::checks::{CheckId, CATALOG};
use conform::envelope::{envelope, ErrorDetail, ExitStatus};
use conform::events::Reporter;
use conform::exec::Session;
use conform::partition::Partition;
use conform::plan::RunOptions;
use conform::render::json_report as render_json_report;
use conform::render::progress::ProgressLine;
use conform::render::run as render_run;
use conform::render::stream::{self as render_stream, StreamReporter};
use conform::render::style::{color_enabled, Style};
use conform::render::validate::{self as render_validate, ValidateReport};
use conform::render::{self, files, Finished, ReportFormat, Sources};
use conform::result::{run_profiles, ProfileReport, ProfileRun, RunConfig, RunOutcome};
use conform::{discover, profile};

fn main() -> ExitCode {
    let started = Instant::now();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(message) = cli::args::conflicting_format(&args) {
        let error = clap::Error::raw(clap::error::ErrorKind::ArgumentConflict, message);
        return usage_error(
            error.with_cmd(&<Cli as clap::CommandFactory>::command()),
            started,
        );
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(error) => return usage_error(error, started),
    };
    let json_output = match cli.format {
        Format::Json => true,
        Format::Text => false,
        Format::Auto => auto_json(),
    };
    let style = Style {
        color: cli.format != Format::Json && color_enabled(),
    };
    let status = match cli.command {
        Command::Validate { profiles } => validate(&profiles, json_output, style, started),
        Command::Schema { which, raw } => schema(which, raw, json_output, started),
        Command::Checks { ids, level } => list_checks(&ids, level, json_output, style, started),
        Command::Manifest => emit_json(&envelope(
            ExitStatus::Success,
            cli::manifest::manifest(),
            None,
            elapsed_ms(started),
        )),
        Command::Init(args) => init(args, json_output, started),
        Command::Completions { shell } => completions(shell),
        Command::Run {
            profiles,
            only,
            skip,
            jobs,
            capture_limit,
            partition,
            stream,
            fail_fast,
            reports,
        } => {
            let (selection, mut config) = run_config(&only, &skip, partition, jobs, capture_limit);
            config.fail_fast = fail_fast;
            let output = if stream {
                RunOutput::Stream
            } else if json_output {
                RunOutput::Json
            } else {
                RunOutput::Text
            };
            // The session's scratch directory goes with `config`, also after a
            // Ctrl-C.
            run(
                &profiles,
                &selection,
                &config,
                &reports.requested(),
                output,
                style,
                started,
            )
        }
    };
    ExitCode::from(status.code() as u8)
}

/// REQ-F-003: JSON when stdout is not a terminal, or under CI or NO_COLOR.
fn auto_json() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    !std::io::stdout().is_terminal() || set("CI") || set("NO_COLOR")
}

/// Which checks `conform run` reports: those `--only`/`--skip` select, or the
/// `--partition` shard of them.
struct Selection {
    checks: BTreeSet<CheckId>,
    partition: Option<Partition>,
}

impl Selection {
    /// The checks of each of `profiles` profiles.
    fn per_profile(&self, profiles: usize) -> Vec<BTreeSet<CheckId>> {
        match self.partition {
            Some(partition) => partition.split(profiles, &self.checks),
            None => vec![self.checks.clone(); profiles],
        }
    }
}

/// The checks, parallelism and capture cap of `conform run`.
fn run_config(
    only: &[String],
    skip: &[String],
    partition: Option<Partition>,
    jobs: Option<u16>,
    capture_limit: usize,
) -> (Selection, RunConfig) {
    let mut checks: BTreeSet<CheckId> = if only.is_empty() {
        CheckId::all()
    } else {
        only.iter().flat_map(|n| selected_by(n)).collect()
    };
    for id in skip.iter().flat_map(|n| selected_by(n)) {
        checks.remove(&id);
    }
    let jobs = jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let config = RunConfig {
        jobs,
        options: RunOptions { capture_limit },
        fail_fast: false,
        session: Session::default(),
    };
    (Selection { checks, partition }, config)
}

/// The checks one `--only`/`--skip` value names: a check ID, or the group
/// `reference` (the reference kit's 14) or `extension` (conform's own).
fn selected_by(name: &str) -> Vec<CheckId> {
    let group = |extension: bool| {
        CATALOG
            .iter()
            .filter(|spec| spec.extension == extension)
            .map(|spec| spec.id)
            .collect()
    };
    match name {
        "reference" => group(false),
        "extension" => group(true),
        _ => CheckId::from_name(name).into_iter().collect(),
    }
}

/// Bad arguments exit 2 with an envelope when piped; `--help` and `--version` exit 0
/// and stay off stdout when it is not a terminal (REQ-F-048).
fn usage_error(error: clap::Error, started: Instant) -> ExitCode {
    use clap::error::ErrorKind;
    let piped = auto_json();
    match error.kind() {
        // Piped, the version is one envelope on stdout, where an agent reads it
        // (REQ-F-068).
        ErrorKind::DisplayVersion if piped => {
            let data = json!({ "name": "conform", "version": env!("CARGO_PKG_VERSION") });
            let status = emit_json(&envelope(
                ExitStatus::Success,
                data,
                None,
                elapsed_ms(started),
            ));
            ExitCode::from(status.code() as u8)
        }
        // Bare `conform` shows the help and succeeds (REQ-F-068): asking a tool what
        // it is must work. Piped, the help goes to stderr and stdout gets an envelope
        // that says so.
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand if piped => {
            eprint!("{}", error.render());
            let status = emit_json(&envelope(
                ExitStatus::Success,
                json!({ "help": "shown on stderr; see `conform --help`" }),
                None,
                elapsed_ms(started),
            ));
            ExitCode::from(status.code() as u8)
        }
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let text = error.render().to_string();
            if piped {
                eprint!("{text}");
            } else {
                print!("{text}");
            }
            ExitCode::SUCCESS
        }
        _ if piped => {
            let message = error.render().to_string();
            let first = message
                .lines()
                .next()
                .unwrap_or("invalid arguments")
                .trim_start_matches("error: ");
            let detail = ErrorDetail {
                context: Some(json!({ "usage": message.trim_end() })),
                ..ErrorDetail::invalid_input(
                    "USAGE_ERROR",
                    first,
                    "Correct the arguments; see `conform --help`",
                )
            };
            let status = report_error(ExitStatus::InvalidInput, detail, Value::Null, true, started);
            ExitCode::from(status.code() as u8)
        }
        _ => {
            let _ = error.print();
            ExitCode::from(ExitStatus::InvalidInput.code() as u8)
        }
    }
}

fn validate(args: &[PathBuf], json_output: bool, style: Style, started: Instant) -> ExitStatus {
    let paths = match discover::profile_paths(args) {
        Ok(paths) => paths,
        Err(message) => return bad_paths(&message, json_output, started),
    };
    let report = ValidateReport {
        outcomes: paths.iter().map(|p| profile::load(p)).collect(),
    };
    let status = report.status();
    let written = if json_output {
        emit_json(&render_validate::to_envelope(&report, elapsed_ms(started)))
    } else {
        emit(&render_validate::to_text(&report, style))
    };
    finish(status, written)
}

/// A directory named on the command line that holds no profile.
fn bad_paths(message: &str, json_output: bool, started: Instant) -> ExitStatus {
    report_error(
        ExitStatus::InvalidInput,
        bad_paths_detail(message),
        Value::Null,
        json_output,
        started,
    )
}

fn bad_paths_detail(message: &str) -> ErrorDetail {
    ErrorDetail::invalid_input(
        "INVALID_PROFILE",
        message,
        "Name profile files or a directory that contains *.json profiles",
    )
}

fn schema(which: SchemaKind, raw: bool, json_output: bool, started: Instant) -> ExitStatus {
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
    if raw || !json_output {
        emit_json(&schema)
    } else {
        emit_json(&envelope(
            ExitStatus::Success,
            schema,
            None,
            elapsed_ms(started),
        ))
    }
}

/// Where `conform run` reports: one envelope, text, or a stream of JSON lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunOutput {
    Text,
    Json,
    Stream,
}

impl RunOutput {
    /// Report an error that ends the run: as [`report_error`] does, or under
    /// `--stream` as the stream's terminal line, after `items` item lines.
    fn error(
        self,
        status: ExitStatus,
        detail: ErrorDetail,
        data: Value,
        items: u64,
        started: Instant,
    ) -> ExitStatus {
        match self {
            RunOutput::Stream => {
                let document = envelope(status, data, Some(detail), elapsed_ms(started));
                finish(
                    status,
                    emit_json_line(&render_stream::error_line(document, items)),
                )
            }
            _ => report_error(status, detail, data, self == RunOutput::Json, started),
        }
    }
}

fn run(
    args: &[PathBuf],
    selection: &Selection,
    config: &RunConfig,
    reports: &[(ReportFormat, PathBuf)],
    output: RunOutput,
    style: Style,
    started: Instant,
) -> ExitStatus {
    let paths = match discover::profile_paths(args) {
        Ok(paths) => paths,
        Err(message) => {
            let detail = bad_paths_detail(&message);
            return output.error(ExitStatus::InvalidInput, detail, Value::Null, 0, started);
        }
    };
    let destinations: Vec<(&str, &Path)> = reports
        .iter()
        .map(|(format, path)| (format.flag(), path.as_path()))
        .collect();
    if let Err(message) = files::check_destinations(&destinations) {
        let detail = bad_report_path_detail(message);
        return output.error(ExitStatus::InvalidInput, detail, Value::Null, 0, started);
    }
    // Every profile is validated before anything runs: one invalid profile means
    // nothing is run at all.
    let report = ValidateReport {
        outcomes: paths.iter().map(|p| profile::load(p)).collect(),
    };
    if report.status() != ExitStatus::Success {
        let document = render_validate::to_envelope(&report, elapsed_ms(started));
        let written = match output {
            RunOutput::Stream => emit_json_line(&render_stream::error_line(document, 0)),
            RunOutput::Json => emit_json(&document),
            RunOutput::Text => emit(&render_validate::to_text(&report, style)),
        };
        return finish(ExitStatus::InvalidInput, written);
    }
    let profiles: Vec<_> = report
        .outcomes
        .iter()
        .filter_map(|o| o.as_ref().ok())
        .collect();
    // Split before planning, so a shard makes only the runs its own checks need.
    let per_profile = selection.per_profile(profiles.len());
    cli::signals::cancel_on_interrupt(config.session.cancel());
    let runs: Vec<ProfileRun<'_>> = profiles
        .into_iter()
        .zip(per_profile)
        .map(|(profile, checks)| ProfileRun { profile, checks })
        .collect();
    let names = runs
        .iter()
        .map(|r| {
            let path = r.profile.path.display().to_string();
            (path, r.profile.profile.tool.clone())
        })
        .collect();
    let mut stream =
        (output == RunOutput::Stream).then(|| StreamReporter::new(std::io::stdout(), names));
    // A stream's reader is a program; the line would only clutter its terminal.
    let mut progress = (output != RunOutput::Stream)
        .then(ProgressLine::on_terminal)
        .flatten();
    let RunOutcome {
        reports: results,
        stopped,
    } = {
        let mut reporters: Vec<Box<dyn Reporter + '_>> =
            vec![Box::new(&mut stream), Box::new(&mut progress)];
        run_profiles(&runs, config, &mut reporters)
    };
    // Off the terminal before the report is printed there.
    drop(progress);
    let status = if config.session.cancel().is_cancelled() {
        cli::signals::cancelled_status()
    } else {
        render_run::status(&results)
    };
    let sources = Sources::of(report.outcomes.iter().filter_map(|o| o.as_ref().ok()));
    // The files first: when one cannot be written, the envelope says so.
    let cwd = std::env::current_dir().unwrap_or_default();
    let finished = Finished {
        results: &results,
        sources: &sources,
        selected: &selection.checks,
        status,
        duration_ms: elapsed_ms(started),
        cwd: &cwd,
    };
    let report_errors = render::write_reports(reports, &finished);
    if let Some(stream) = stream {
        return end_stream(stream, &results, status, stopped, report_errors, started);
    }
    if status.is_cancellation() {
        return cancelled(status, results.len(), output == RunOutput::Json, started);
    }
    let json_output = output == RunOutput::Json;
    if !report_errors.is_empty() {
        let message = report_errors.join("; ");
        return report_not_written(message, &results, &sources, json_output, style, started);
    }
    let written = if json_output {
        let mut document = render_run::to_envelope(&results, elapsed_ms(started));
        if let Some(reason) = &stopped {
            note_stopped(&mut document, reason);
        }
        emit_json(&document)
    } else {
        let mut text = render_run::to_text(&results, &sources, style);
        if let Some(reason) = &stopped {
            text.push_str(&format!(
                "\n{} {reason}; the profiles it cut short are reported with their checks skipped.\n",
                style.yellow("Stopped early:"),
            ));
        }
        emit(&text)
    };
    finish(status, written)
}

/// `--fail-fast` stopped the run: say so in `meta` (the result's `data` is the
/// reference kit's closed document) and in the error message.
fn note_stopped(document: &mut Value, reason: &str) {
    if let Some(meta) = document.get_mut("meta").and_then(Value::as_object_mut) {
        meta.insert("stopped_early".into(), json!(reason));
    }
    if let Some(message) = document.pointer_mut("/error/message") {
        if let Some(text) = message.as_str() {
            *message = json!(format!("{text}; {reason}"));
        }
    }
}

/// The terminal line of `--stream`: a summary only when the run ends with exit 0.
fn end_stream(
    stream: StreamReporter<std::io::Stdout>,
    results: &[ProfileReport],
    status: ExitStatus,
    stopped: Option<String>,
    report_errors: Vec<String>,
    started: Instant,
) -> ExitStatus {
    let items = stream.items_emitted();
    let (status, terminal) = if status.is_cancellation() {
        let (detail, data) = cancel_detail(results.len());
        let document = envelope(status, data, Some(detail), elapsed_ms(started));
        (status, render_stream::error_line(document, items))
    } else if !report_errors.is_empty() {
        let detail = report_not_written_detail(report_errors.join("; "));
        let data = json!({ "results": render_stream::profile_summaries(results) });
        let status = ExitStatus::GeneralError;
        let document = envelope(status, data, Some(detail), elapsed_ms(started));
        (status, render_stream::error_line(document, items))
    } else if let Some(mut detail) = render_run::checks_failed(results) {
        detail.fix_required = Some(
            "Fix each failing check: its item line carries the probe argv and evidence".into(),
        );
        let data = json!({ "results": render_stream::profile_summaries(results) });
        let mut document = envelope(status, data, Some(detail), elapsed_ms(started));
        if let Some(reason) = &stopped {
            note_stopped(&mut document, reason);
        }
        (status, render_stream::error_line(document, items))
    } else {
        let summary = render_stream::summary(results, items, elapsed_ms(started));
        (status, summary)
    };
    match stream.finish(&terminal) {
        Ok(()) => status,
        // The reader went away: nothing is left to tell it.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => status,
        Err(e) => {
            eprintln!("conform: cannot write to stdout: {e}");
            ExitStatus::GeneralError
        }
    }
}

/// A report flag names a place no file can be written: a usage error, before
/// anything runs.
fn bad_report_path_detail(message: String) -> ErrorDetail {
    ErrorDetail::invalid_input(
        "USAGE_ERROR",
        message,
        "Give each report flag its own writable file path in an existing directory",
    )
}

/// The runs were made but a report file could not be written: exit 1, with the
/// reference result still in `data` so nothing is lost.
fn report_not_written(
    message: String,
    results: &[ProfileReport],
    sources: &Sources,
    json_output: bool,
    style: Style,
    started: Instant,
) -> ExitStatus {
    let data = render_run::to_envelope(results, elapsed_ms(started))
        .get("data")
        .cloned()
        .unwrap_or(Value::Null);
    if !json_output {
        emit(&render_run::to_text(results, sources, style));
    }
    let detail = report_not_written_detail(message);
    report_error(ExitStatus::GeneralError, detail, data, json_output, started)
}

fn report_not_written_detail(message: String) -> ErrorDetail {
    ErrorDetail {
        code: "REPORT_NOT_WRITTEN".into(),
        message,
        retryable: false,
        phase: Some("cleanup"),
        fix_required: Some("Make the report paths writable and run again".into()),
        context: None,
    }
}

/// `conform completions SHELL`: the script itself, for the shell to source; an
/// envelope around it would break it, so it is printed raw even when piped.
fn completions(shell: CompletionShell) -> ExitStatus {
    let mut command = <Cli as clap::CommandFactory>::command();
    let mut script = Vec::new();
    clap_complete::generate(shell.generator(), &mut command, "conform", &mut script);
    emit(&String::from_utf8_lossy(&script))
}

fn list_checks(
    ids: &[String],
    level: Option<u8>,
    json_output: bool,
    style: Style,
    started: Instant,
) -> ExitStatus {
    let selected: Vec<_> = CATALOG
        .iter()
        .filter(|c| ids.is_empty() || ids.iter().any(|id| id == c.name))
        .filter(|c| level.is_none_or(|n| c.level <= n))
        .collect();
    if json_output {
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
        return emit_json(&envelope(
            ExitStatus::Success,
            json!({ "checks": checks }),
            None,
            elapsed_ms(started),
        ));
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

/// conform was interrupted (SIGINT or SIGTERM): the tools it ran were stopped; report
/// a cancellation, as REQ-F-069 asks of every agent-ready CLI, and exit 130 or 143.
fn cancelled(
    status: ExitStatus,
    profiles_done: usize,
    json_output: bool,
    started: Instant,
) -> ExitStatus {
    let (detail, data) = cancel_detail(profiles_done);
    report_error(status, detail, data, json_output, started)
}

/// The CANCELLED error and its `data` (what was done before the interruption).
fn cancel_detail(profiles_done: usize) -> (ErrorDetail, Value) {
    let detail = ErrorDetail {
        code: "CANCELLED".into(),
        message: "interrupted: the runs in progress were stopped and their process groups killed"
            .into(),
        retryable: true,
        phase: Some("execution"),
        fix_required: None,
        context: None,
    };
    let data = json!({ "partial": true, "profiles_completed": profiles_done });
    (detail, data)
}

/// `conform init`: generate a profile, then print it, preview it or write it. The
/// warnings (skipped commands and why) go to the envelope and to stderr.
fn init(args: InitArgs, json_output: bool, started: Instant) -> ExitStatus {
    use conform::init::{Request, Source};
    let source = match (args.from_help, args.manifest_file, args.manifest_args) {
        (true, _, _) => Source::Help,
        (false, Some(file), _) => Source::ManifestFile(file),
        (false, None, Some(text)) => {
            Source::Manifest(text.split_whitespace().map(str::to_string).collect())
        }
        (false, None, None) => Source::Manifest(vec!["manifest".into()]),
    };
    let request = Request {
        tool: args.tool,
        source,
        timeout_seconds: args.timeout,
        output: args.output,
        yes: args.yes,
        dry_run: args.dry_run,
        session: Session::default(),
    };
    // A Ctrl-C stops the tool run in progress (its own process group) too.
    cli::signals::cancel_on_interrupt(request.session.cancel());
    let outcome = conform::init::execute(&request);
    let warnings = match &outcome {
        Ok(outcome) => &outcome.warnings,
        Err(failure) => &failure.warnings,
    };
    for warning in warnings {
        eprintln!("conform init: warning: {}", warning.message);
    }
    let warnings = json!(warnings);
    match outcome {
        Ok(outcome) if json_output => {
            let mut document =
                envelope(ExitStatus::Success, outcome.data, None, elapsed_ms(started));
            document["warnings"] = warnings;
            emit_json(&document)
        }
        Ok(outcome) => emit(&outcome.text),
        Err(mut failure) => {
            // The engine knows it was cancelled, not by which signal.
            if failure.status.is_cancellation() {
                failure.status = cli::signals::cancelled_status();
            }
            let phase = if failure.status == ExitStatus::InvalidInput {
                "validation"
            } else {
                "execution"
            };
            let detail = ErrorDetail {
                code: failure.code.into(),
                message: failure.message,
                retryable: failure.status.retryable(),
                phase: Some(phase),
                fix_required: Some(failure.fix),
                context: failure.context.map(|c| *c),
            };
            if !json_output {
                eprintln!("conform: {}", detail.message);
                if let Some(fix) = &detail.fix_required {
                    eprintln!("fix: {fix}");
                }
                return failure.status;
            }
            let mut document = envelope(
                failure.status,
                Value::Null,
                Some(detail),
                elapsed_ms(started),
            );
            document["warnings"] = warnings;
            finish(failure.status, emit_json(&document))
        }
    }
}
