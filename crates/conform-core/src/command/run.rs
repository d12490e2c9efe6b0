//! `conform run`: every profile in one pool, reported as an envelope, text or a
//! stream of JSON lines, plus the report files asked for.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Value};

use super::output::{elapsed_ms, emit, emit_json, emit_json_line, finish, report_error};
use super::selection::{select, Selection};
use super::Output;
use crate::envelope::{envelope, ErrorDetail, ExitStatus};
use crate::events::Reporter;
use crate::exec::Cancel;
use crate::partition::Partition;
use crate::profile::{LoadedProfile, Violation};
use crate::render::json_report::{self, ProfileIdentity, RunIdentity};
use crate::render::progress::ProgressLine;
use crate::render::run as render_run;
use crate::render::stream::{self as render_stream, StreamReporter};
use crate::render::style::Style;
use crate::render::validate::{self as render_validate, ValidateReport};
use crate::render::{self, files, Finished, ReportFormat, Sources};
use crate::result::ProfileReport;
use crate::runner::{run_profiles, ProfileRun, RunConfig, RunOutcome};
use crate::{discover, profile};

/// What `conform run` was asked for.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// Profile files, or directories of `*.json` profiles.
    pub profiles: Vec<PathBuf>,
    /// Check IDs, or the groups `reference` and `extension`; empty: every check.
    pub only: Vec<String>,
    /// Check IDs or groups left out.
    pub skip: Vec<String>,
    /// Runs made at once; `None`: the number of CPUs.
    pub jobs: Option<usize>,
    /// Bytes of stdout and of stderr kept per run.
    pub capture_limit: usize,
    /// Only this shard of the (profile, check) pairs.
    pub partition: Option<Partition>,
    /// JSON lines instead of one envelope.
    pub stream: bool,
    /// Start no further run after the first failed check.
    pub fail_fast: bool,
    /// Keep every run's first attempt: never make a starved run again alone.
    pub no_rerun: bool,
    /// Report files to write.
    pub reports: Vec<(ReportFormat, PathBuf)>,
    /// Text: every check and failing run, not only the findings.
    pub verbose: bool,
    /// Stops the runs (a signal handler calls it).
    pub cancel: Cancel,
}

impl RunRequest {
    /// The checks, parallelism and capture cap; `Err` names a selector that is
    /// neither a check ID nor a group.
    pub(super) fn config(&self) -> Result<(Selection, RunConfig), String> {
        let checks = select(&self.only, &self.skip)?;
        let config = RunConfig {
            fail_fast: self.fail_fast,
            rerun_starved: !self.no_rerun,
            ..RunConfig::new(self.jobs, self.capture_limit, &self.cancel)
        };
        let selection = Selection {
            checks,
            partition: self.partition,
        };
        Ok((selection, config))
    }
}

/// Where `conform run` reports: one envelope, text, or a stream of JSON lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RunOutput {
    Text,
    Json,
    Stream,
}

impl RunOutput {
    /// Report an error that ends the run: as [`report_error`] does, or under
    /// `--stream` as the stream's terminal line, after `items` item lines.
    pub(super) fn error(
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

/// `conform run`: validate every profile, make the runs the selected checks need in
/// one pool, judge, write the report files, print the result.
pub fn run(request: &RunRequest, out: &Output) -> ExitStatus {
    let (output, selection, config) = match prepare(request, out) {
        Ok(prepared) => prepared,
        Err(status) => return status,
    };
    let style = out.style();
    let started = out.started;
    let paths = match discover::profile_paths(&request.profiles) {
        Ok(paths) => paths,
        Err(message) => {
            let detail = super::bad_paths_detail(&message);
            let named = request.profiles.first().map(|p| p.display().to_string());
            let reason =
                Violation::new("", message, detail.fix_required.clone().unwrap_or_default());
            write_sarif_of_nothing_run(request, &[(named.unwrap_or_default(), vec![reason])]);
            return output.error(ExitStatus::InvalidInput, detail, Value::Null, 0, started);
        }
    };
    // Every profile is validated before anything runs: one invalid profile means
    // nothing is run at all.
    let report = ValidateReport {
        outcomes: paths.iter().map(|p| profile::load(p)).collect(),
    };
    if report.status() != ExitStatus::Success {
        let errors: Vec<(String, Vec<Violation>)> = report
            .outcomes
            .iter()
            .filter_map(|o| o.as_ref().err())
            .map(|e| (e.path.display().to_string(), e.violations.clone()))
            .collect();
        write_sarif_of_nothing_run(request, &errors);
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
    let how = How::new(output, &selection, &config, out);
    execute(request, &profiles, &how)
}

/// A run that ran nothing still writes the `--sarif` file asked for, a result per
/// reason (each profile's violations, with where they are), so that the upload step
/// that follows in CI finds a file and code scanning shows why. The other report
/// files describe checks, of which there are none. `errors` pairs a profile path
/// (or the path or tool named) with what is wrong.
pub(super) fn write_sarif_of_nothing_run(
    request: &RunRequest,
    errors: &[(String, Vec<Violation>)],
) {
    let Some((_, path)) = request
        .reports
        .iter()
        .find(|(f, _)| *f == ReportFormat::Sarif)
    else {
        return;
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let errors: Vec<(&str, &[Violation])> = errors
        .iter()
        .map(|(profile, violations)| (profile.as_str(), violations.as_slice()))
        .collect();
    let written = render::sarif::invalid_profiles_json(&errors, &cwd)
        .and_then(|text| crate::file::write_atomic(path, text.as_bytes()));
    if let Err(error) = written {
        // The run fails already (exit 2); the missing file is worth a line.
        eprintln!("conform: --sarif: {error}");
    }
}

/// What comes before any run of `conform run` or `conform check`: the output, the
/// checks selected and the report files' places; `Err` is the exit status of the
/// usage error already reported.
pub(super) fn prepare(
    request: &RunRequest,
    out: &Output,
) -> Result<(RunOutput, Selection, RunConfig), ExitStatus> {
    let output = if request.stream {
        RunOutput::Stream
    } else if out.json {
        RunOutput::Json
    } else {
        RunOutput::Text
    };
    let started = out.started;
    // The binary's parser accepts only known names; another caller may not.
    let (selection, config) = match request.config() {
        Ok(config) => config,
        Err(name) => {
            let detail = ErrorDetail::invalid_input(
                "USAGE_ERROR",
                format!("unknown check \"{name}\" in --only or --skip"),
                "Name check IDs as `conform checks` lists them, or the groups reference and extension",
            );
            return Err(output.error(ExitStatus::InvalidInput, detail, Value::Null, 0, started));
        }
    };
    let destinations: Vec<(&str, &Path)> = request
        .reports
        .iter()
        .map(|(format, path)| (format.flag(), path.as_path()))
        .collect();
    if let Err(message) = files::check_destinations(&destinations) {
        let detail = bad_report_path_detail(message);
        return Err(output.error(ExitStatus::InvalidInput, detail, Value::Null, 0, started));
    }
    Ok((output, selection, config))
}

/// How [`execute`] makes and reports the runs.
pub(super) struct How<'a> {
    output: RunOutput,
    selection: &'a Selection,
    config: &'a RunConfig,
    /// Added to the envelope (JSON output): `meta.inferred` and the top-level
    /// `warnings` of `conform check`.
    pub(super) extra: Option<Extra>,
    /// `conform check`'s phases shown on stderr, the runs' among them.
    pub(super) phases: Option<crate::render::progress::Phases>,
    started: Instant,
    style: Style,
}

impl<'a> How<'a> {
    pub(super) fn new(
        output: RunOutput,
        selection: &'a Selection,
        config: &'a RunConfig,
        out: &Output,
    ) -> How<'a> {
        How {
            output,
            selection,
            config,
            extra: None,
            phases: None,
            started: out.started,
            style: out.style(),
        }
    }
}

/// What `conform check` adds to the envelope of its run.
pub(super) struct Extra {
    pub(super) meta: Vec<(&'static str, Value)>,
    pub(super) warnings: Vec<Value>,
}

/// Make the runs of `profiles` (valid, loaded), judge, write the report files,
/// print the result.
pub(super) fn execute(
    request: &RunRequest,
    profiles: &[&LoadedProfile],
    how: &How<'_>,
) -> ExitStatus {
    let How {
        output,
        selection,
        config,
        started,
        style,
        ..
    } = *how;
    let reports = &request.reports;
    // Split before planning, so a shard makes only the runs its own checks need.
    let per_profile = selection.per_profile(profiles.len());
    let runs: Vec<ProfileRun<'_>> = profiles
        .iter()
        .copied()
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
    let mut phases = how.phases.clone();
    let RunOutcome {
        reports: results,
        stopped,
    } = {
        let mut reporters: Vec<Box<dyn Reporter + Send + '_>> = vec![
            Box::new(&mut stream),
            Box::new(&mut progress),
            Box::new(&mut phases),
        ];
        run_profiles(&runs, config, &mut reporters)
    };
    // Off the terminal before the report is printed there.
    drop(progress);
    let results = with_commands_found(results, how.extra.as_ref());
    let cancel = config.session.cancel();
    // What stopped the runs, when `conform check` judged what was made.
    let partial = (config.judge_made && !results.is_empty())
        .then(|| cancel.ended_by())
        .flatten();
    let status = cancel
        .exit_status()
        .unwrap_or_else(|| render_run::status(&results));
    let sources = Sources::of(profiles.iter().copied());
    // The files first: when one cannot be written, the envelope says so.
    let cwd = std::env::current_dir().unwrap_or_default();
    let identities: Vec<ProfileIdentity> = runs
        .iter()
        .map(|r| ProfileIdentity::of(r.profile, &r.checks))
        .collect();
    let network = config.session.network_isolation();
    let finished = Finished {
        results: &results,
        sources: &sources,
        identity: RunIdentity {
            selected: &selection.checks,
            partition: selection.partition,
            profiles: &identities,
            sandboxes: Some(json_report::sandboxes()),
            network: network.map(crate::exec::Isolation::label),
        },
        status,
        duration_ms: elapsed_ms(started),
        cwd: &cwd,
    };
    let report_errors = render::write_reports(reports, &finished);
    if let Some(stream) = stream {
        return end_stream(stream, &results, status, stopped, report_errors, started);
    }
    if status.is_cancellation() && partial.is_none() {
        return cancelled(status, results.len(), output == RunOutput::Json, started);
    }
    let json_output = output == RunOutput::Json;
    if !report_errors.is_empty() {
        let message = report_errors.join("; ");
        return report_not_written(message, &results, &sources, json_output, style, started);
    }
    if let Some(crate::exec::Isolation::ProxyOnly { reason, remedy }) = network {
        // Why, once, beside the report's summary that says what it means.
        eprintln!("conform: warning: no network namespace for the runs at the black hole ({reason}): proxy variables only; to allow one: {remedy}");
    }
    let written = if json_output {
        let mut document = render_run::to_envelope(&results, elapsed_ms(started));
        if let Some(meta) = document.get_mut("meta").and_then(Value::as_object_mut) {
            if let Some(network) = network {
                network.insert_meta(meta);
            }
        }
        if let Some(reason) = &stopped {
            note_stopped(&mut document, reason);
        }
        if let Some(extra) = &how.extra {
            add_extra(&mut document, extra);
        }
        if let Some(by) = partial {
            note_partial(&mut document, by, status);
        }
        emit_json(&document)
    } else {
        let summary = network.map(|network| network.summary());
        let options = render_run::TextOptions {
            verbose: request.verbose,
            report: json_report_path(reports),
            network: summary.as_deref(),
        };
        let mut text = render_run::to_text_with(&results, &sources, style, &options);
        if let Some(by) = partial {
            text.push_str(&format!(
                "\n{} {}: the checks whose runs were all made are judged, the others skipped.\n",
                style.yellow("Partial:"),
                ended_in_words(by),
            ));
        }
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

/// The `--json-report` file asked for, which the text's reproductions name.
fn json_report_path(reports: &[(ReportFormat, PathBuf)]) -> Option<&Path> {
    reports
        .iter()
        .find(|(format, _)| *format == ReportFormat::Json)
        .map(|(_, path)| path.as_path())
}

/// Under `conform check`, the commands exploration found (`meta.inferred.commands
/// .found`), which a finding's coverage counts: its profile may probe fewer.
fn with_commands_found(
    mut results: Vec<ProfileReport>,
    extra: Option<&Extra>,
) -> Vec<ProfileReport> {
    // What the help names counts too: a tool whose commands discovery could not
    // find was not judged on them.
    let found = extra
        .and_then(|extra| extra.meta.iter().find(|(key, _)| *key == "inferred"))
        .map(|(_, inferred)| &inferred["commands"])
        .and_then(|commands| {
            let count = |key: &str| commands[key].as_u64().unwrap_or(0);
            usize::try_from(count("found").max(count("named"))).ok()
        });
    if let (Some(found), [one]) = (found, results.as_mut_slice()) {
        one.commands.found = one.commands.found.max(found);
    }
    results
}

/// `conform check`'s additions: members of `meta`, and the envelope's warnings.
fn add_extra(document: &mut Value, extra: &Extra) {
    if let Some(meta) = document.get_mut("meta").and_then(Value::as_object_mut) {
        for (key, value) in &extra.meta {
            meta.insert((*key).to_string(), value.clone());
        }
    }
    if let Some(warnings) = document.get_mut("warnings").and_then(Value::as_array_mut) {
        warnings.extend(extra.warnings.iter().cloned());
    }
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

/// What stopped the runs, in words.
fn ended_in_words(by: &str) -> String {
    match by {
        "budget" => "the budget ended the run".to_string(),
        signal => format!("{signal} ended the run"),
    }
}

/// `conform check` stopped by a signal or its budget (`by`) judged what was made:
/// `meta.partial` and `meta.ended_by` say so (`data` stays the closed result).
/// After a signal the exit code is 130 or 143 whatever the checks gave, and the
/// error says the run was cancelled.
fn note_partial(document: &mut Value, by: &str, status: ExitStatus) {
    if let Some(meta) = document.get_mut("meta").and_then(Value::as_object_mut) {
        meta.insert("partial".into(), json!(true));
        meta.insert("ended_by".into(), json!(by));
        meta.insert("exit_code".into(), json!(status.code()));
    }
    if status.is_cancellation() {
        let detail = ErrorDetail {
            code: "CANCELLED".into(),
            message: format!(
                "interrupted: {}; the checks whose runs were all made are judged in data, the others skipped",
                ended_in_words(by)
            ),
            retryable: true,
            phase: Some("execution"),
            fix_required: Some(
                "let conform check run to its end to judge the rest: --budget bounds its time (2m by default)".into(),
            ),
            context: None,
        };
        document["ok"] = json!(false);
        document["error"] = serde_json::to_value(detail).unwrap_or(Value::Null);
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
