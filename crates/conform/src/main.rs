//! The `conform` command line: parse arguments, call the library, render, exit.

mod cli;

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use serde_json::{json, Value};

use cli::args::{Cli, Command, Format};
use cli::output::{elapsed_ms, emit, emit_json, finish, report_error};
use conform::checks::{CheckId, CATALOG};
use conform::envelope::{envelope, ErrorDetail, ExitStatus};
use conform::plan::RunOptions;
use conform::render::run as render_run;
use conform::render::style::{color_enabled, Style};
use conform::render::validate::{self as render_validate, ValidateReport};
use conform::result::{run_profile, RunConfig};
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
        Command::Schema { raw } => schema(raw, json_output, started),
        Command::Checks { ids, level } => list_checks(&ids, level, json_output, style, started),
        Command::Manifest => emit_json(&envelope(
            ExitStatus::Success,
            cli::manifest::manifest(),
            None,
            elapsed_ms(started),
        )),
        Command::Run {
            profiles,
            only,
            skip,
            jobs,
            capture_limit,
        } => {
            let config = run_config(&only, &skip, jobs, capture_limit);
            run(&profiles, &config, json_output, style, started)
        }
    };
    ExitCode::from(status.code() as u8)
}

/// REQ-F-003: JSON when stdout is not a terminal, or under CI or NO_COLOR.
fn auto_json() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    !std::io::stdout().is_terminal() || set("CI") || set("NO_COLOR")
}

/// The checks, parallelism and capture cap of `conform run`.
fn run_config(
    only: &[String],
    skip: &[String],
    jobs: Option<u16>,
    capture_limit: usize,
) -> RunConfig {
    let mut checks: BTreeSet<CheckId> = if only.is_empty() {
        CheckId::all()
    } else {
        only.iter().filter_map(|n| CheckId::from_name(n)).collect()
    };
    for id in skip.iter().filter_map(|n| CheckId::from_name(n)) {
        checks.remove(&id);
    }
    let jobs = jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    RunConfig {
        checks,
        jobs,
        options: RunOptions { capture_limit },
    }
}

/// Bad arguments exit 2 with an envelope when piped; `--help` and `--version` exit 0
/// and stay off stdout when it is not a terminal (REQ-F-048).
fn usage_error(error: clap::Error, started: Instant) -> ExitCode {
    use clap::error::ErrorKind;
    let piped = auto_json();
    match error.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let text = error.render().to_string();
            if piped {
                eprint!("{text}");
            } else {
                print!("{text}");
            }
            let code = if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                2
            } else {
                0
            };
            ExitCode::from(code)
        }
        _ if piped => {
            let message = error.render().to_string();
            let first = message
                .lines()
                .next()
                .unwrap_or("invalid arguments")
                .trim_start_matches("error: ");
            let detail = ErrorDetail {
                code: "USAGE_ERROR".into(),
                message: first.to_string(),
                retryable: false,
                phase: Some("validation"),
                fix_required: Some("Correct the arguments; see `conform --help`".into()),
                context: Some(json!({ "usage": message.trim_end() })),
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
    let detail = ErrorDetail {
        code: "INVALID_PROFILE".into(),
        message: message.to_string(),
        retryable: false,
        phase: Some("validation"),
        fix_required: Some(
            "Name profile files or a directory that contains *.json profiles".into(),
        ),
        context: None,
    };
    report_error(
        ExitStatus::InvalidInput,
        detail,
        Value::Null,
        json_output,
        started,
    )
}

fn schema(raw: bool, json_output: bool, started: Instant) -> ExitStatus {
    let schema: Value = match serde_json::from_str(profile::PROFILE_SCHEMA) {
        Ok(schema) => schema,
        Err(e) => {
            eprintln!("conform: the embedded profile schema is not JSON: {e}");
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

fn run(
    args: &[PathBuf],
    config: &RunConfig,
    json_output: bool,
    style: Style,
    started: Instant,
) -> ExitStatus {
    let paths = match discover::profile_paths(args) {
        Ok(paths) => paths,
        Err(message) => return bad_paths(&message, json_output, started),
    };
    // Every profile is validated before anything runs: one invalid profile means
    // nothing is run at all.
    let report = ValidateReport {
        outcomes: paths.iter().map(|p| profile::load(p)).collect(),
    };
    if report.status() != ExitStatus::Success {
        let written = if json_output {
            emit_json(&render_validate::to_envelope(&report, elapsed_ms(started)))
        } else {
            emit(&render_validate::to_text(&report, style))
        };
        return finish(ExitStatus::InvalidInput, written);
    }
    cli::signals::cancel_on_interrupt();
    let mut results = Vec::new();
    for loaded in report.outcomes.iter().filter_map(|o| o.as_ref().ok()) {
        if conform::exec::cancel_requested() {
            break;
        }
        results.push(run_profile(loaded, config));
    }
    if conform::exec::cancel_requested() {
        return cancelled(results.len(), json_output, started);
    }
    let status = render_run::status(&results);
    let written = if json_output {
        emit_json(&render_run::to_envelope(&results, elapsed_ms(started)))
    } else {
        emit(&render_run::to_text(&results, style))
    };
    finish(status, written)
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
/// a cancellation, as REQ-F-069 asks of every agent-ready CLI, and exit 130.
fn cancelled(profiles_done: usize, json_output: bool, started: Instant) -> ExitStatus {
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
    report_error(ExitStatus::Cancelled, detail, data, json_output, started)
}
