//! The `conform` command line: parse arguments, call the library, render, exit.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::{json, Value};

use std::collections::BTreeSet;

use conform::checks::{CheckId, CATALOG};
use conform::envelope::{envelope, ErrorDetail, ExitStatus};
use conform::plan::RunOptions;
use conform::render::run as render_run;
use conform::result::{run_profile, RunConfig};
use conform::render::style::{color_enabled, Style};
use conform::render::validate::{self as render_validate, ValidateReport};
use conform::{discover, profile};

/// Prove whether a command-line tool is safe and reliable for AI agents to call.
///
/// Piped, every command prints one JSON ResponseEnvelope on stdout; on a terminal it
/// prints a readable report. Exit codes: 0 success, 2 invalid profile or arguments
/// (nothing ran), 4 at least one conformance check failed.
#[derive(Debug, Parser)]
#[command(name = "conform", version, propagate_version = true)]
struct Cli {
    /// Output format: an envelope when stdout is not a terminal, text when it is.
    #[arg(long, global = true, value_enum, default_value_t = Format::Auto)]
    format: Format,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// JSON envelope when piped, text on a terminal.
    Auto,
    /// One JSON ResponseEnvelope.
    Json,
    /// Readable text.
    Text,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check profiles against the profile format without running anything.
    Validate {
        /// Profile files, or directories of *.json profiles.
        #[arg(required = true, value_name = "PROFILE")]
        profiles: Vec<PathBuf>,
    },
    /// Run every check of the catalog against the tools the profiles describe.
    Run {
        /// Profile files, or directories of *.json profiles.
        #[arg(required = true, value_name = "PROFILE")]
        profiles: Vec<PathBuf>,
        /// Report only these checks (repeat, or separate with commas); only the runs they need are made.
        #[arg(long, value_name = "CHECK", value_delimiter = ',', value_parser = check_names())]
        only: Vec<String>,
        /// Leave out these checks (repeat, or separate with commas).
        #[arg(long, value_name = "CHECK", value_delimiter = ',', value_parser = check_names())]
        skip: Vec<String>,
        /// Runs made at once [default: the number of CPUs].
        #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
        /// Bytes of stdout and of stderr kept per run (suffixes K, M, G); past it output is counted, not kept.
        #[arg(long, value_name = "BYTES", default_value = "16M", value_parser = parse_size)]
        capture_limit: usize,
    },
    /// List the checks: id, level, requirements, title.
    Checks,
    /// Print the JSON Schema of the profile format.
    Schema {
        /// Print the bare schema document instead of an envelope around it (for editors).
        #[arg(long)]
        raw: bool,
    },
}

fn main() -> ExitCode {
    let started = Instant::now();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(error, started),
    };
    let json_output = match cli.format {
        Format::Json => true,
        Format::Text => false,
        Format::Auto => !std::io::stdout().is_terminal(),
    };
    let style = Style {
        color: cli.format != Format::Json && color_enabled(),
    };
    let status = match cli.command {
        Command::Validate { profiles } => validate(&profiles, json_output, style, started),
        Command::Schema { raw } => schema(raw, json_output, started),
        Command::Checks => list_checks(json_output, style, started),
        Command::Run { profiles, only, skip, jobs, capture_limit } => {
            let mut checks: BTreeSet<CheckId> = if only.is_empty() {
                CheckId::all()
            } else {
                only.iter().filter_map(|n| CheckId::from_name(n)).collect()
            };
            for name in &skip {
                if let Some(id) = CheckId::from_name(name) {
                    checks.remove(&id);
                }
            }
            let jobs = jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                usize::from,
            );
            let config = RunConfig { checks, jobs, options: RunOptions { capture_limit } };
            run(&profiles, &config, json_output, style, started)
        }
    };
    ExitCode::from(status.code() as u8)
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Write to stdout; a closed pipe (`conform ... | head`) is not an error worth a panic.
fn emit(text: &str) -> ExitStatus {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => ExitStatus::Success,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitStatus::Success,
        Err(e) => {
            eprintln!("conform: cannot write to stdout: {e}");
            ExitStatus::GeneralError
        }
    }
}

fn emit_json(value: &Value) -> ExitStatus {
    match serde_json::to_string_pretty(value) {
        Ok(text) => emit(&(text + "\n")),
        Err(e) => {
            eprintln!("conform: cannot serialize the report: {e}");
            ExitStatus::GeneralError
        }
    }
}

/// Finish with `status`, unless writing the output itself failed.
fn finish(status: ExitStatus, written: ExitStatus) -> ExitStatus {
    if written == ExitStatus::Success {
        status
    } else {
        written
    }
}

/// Bad arguments exit 2 with an envelope when piped; `--help` and `--version` exit 0
/// and stay off stdout when it is not a terminal (REQ-F-048).
fn usage_error(error: clap::Error, started: Instant) -> ExitCode {
    use clap::error::ErrorKind;
    let piped = !std::io::stdout().is_terminal();
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let text = error.render().to_string();
            if piped {
                eprint!("{text}");
            } else {
                print!("{text}");
            }
            let code = if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand { 2 } else { 0 };
            ExitCode::from(code)
        }
        _ => {
            if piped {
                let message = error.render().to_string();
                let first = message.lines().next().unwrap_or("invalid arguments").trim_start_matches("error: ");
                let detail = ErrorDetail {
                    code: "USAGE_ERROR".into(),
                    message: first.to_string(),
                    retryable: false,
                    phase: Some("validation"),
                    fix_required: Some("Correct the arguments; see `conform --help`".into()),
                    context: Some(json!({ "usage": message.trim_end() })),
                };
                emit_json(&envelope(ExitStatus::InvalidInput, Value::Null, Some(detail), elapsed_ms(started)));
            } else {
                let _ = error.print();
            }
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
    let written = if json_output {
        let detail = ErrorDetail {
            code: "INVALID_PROFILE".into(),
            message: message.to_string(),
            retryable: false,
            phase: Some("validation"),
            fix_required: Some("Name profile files or a directory that contains *.json profiles".into()),
            context: None,
        };
        emit_json(&envelope(ExitStatus::InvalidInput, Value::Null, Some(detail), elapsed_ms(started)))
    } else {
        eprintln!("conform: {message}");
        ExitStatus::Success
    };
    finish(ExitStatus::InvalidInput, written)
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
        emit_json(&envelope(ExitStatus::Success, schema, None, elapsed_ms(started)))
    }
}

fn check_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(CATALOG.iter().map(|c| c.name))
}

/// `16M`, `512K`, `1G` or plain bytes.
fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let n: usize = digits.parse().map_err(|_| format!("{text:?} is not a size such as 16M or 1048576"))?;
    let factor: usize = match unit.to_ascii_uppercase().trim_end_matches("IB").trim_end_matches('B') {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return Err(format!("unknown size unit in {text:?}; use K, M or G")),
    };
    match n.checked_mul(factor) {
        Some(0) | None => Err(format!("{text:?} must be at least 1 byte and fit in memory")),
        Some(size) => Ok(size),
    }
}

fn run(args: &[PathBuf], config: &RunConfig, json_output: bool, style: Style, started: Instant) -> ExitStatus {
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
    let results: Vec<_> = report
        .outcomes
        .iter()
        .filter_map(|o| o.as_ref().ok())
        .map(|loaded| run_profile(loaded, config))
        .collect();
    let status = render_run::status(&results);
    let written = if json_output {
        emit_json(&render_run::to_envelope(&results, elapsed_ms(started)))
    } else {
        emit(&render_run::to_text(&results, style))
    };
    finish(status, written)
}

fn list_checks(json_output: bool, style: Style, started: Instant) -> ExitStatus {
    if json_output {
        let checks: Vec<Value> = CATALOG
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
        return emit_json(&envelope(ExitStatus::Success, json!({ "checks": checks }), None, elapsed_ms(started)));
    }
    let width = CATALOG.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for c in CATALOG {
        let extension = if c.extension { " [extension]" } else { "" };
        text.push_str(&format!(
            "{:width$}  level {}  {}{extension}\n{:width$}  {}\n",
            style.bold(c.name),
            c.level,
            c.requirements.join(", "),
            "",
            style.dim(c.title),
            width = width
        ));
    }
    emit(&text)
}
