//! `conform init`: write a starting profile for a tool, from its manifest (the seed's
//! "Agent interpretation") or, for tools without one, from its `--help` text.
//!
//! No clap here: the binary turns its arguments into a [`Request`] and renders the
//! [`Outcome`] or [`Failure`]. Every tool run goes through [`crate::exec::run`], so
//! the time limit, the process-group kill and cancellation apply as in `conform run`.
//!
//! The profile is built as JSON, printed in the committed profiles' layout (one probe
//! per line), then validated by the profile validator itself: a probe the validator
//! rejects (a confirmation or format flag copied from an example) is dropped with a
//! warning, so init never writes a profile `conform run` would refuse.

mod help;
mod manifest;
mod paths;
mod render;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::envelope::ExitStatus;
use crate::exec::{self, Cancel, RunRecord, RunSpec, Session, StdinMode};
use crate::profile;

pub(crate) use crate::file::write_atomic;
pub(crate) use render::render_profile;

/// The unknown flag of the invalid probe: long and specific, so no tool accepts it.
pub(crate) const UNKNOWN_FLAG: &str = "--conform-no-such-flag";

/// The longest `--timeout` init accepts: the seed wants `timeout_seconds` 5 or less.
pub const MAX_TIMEOUT_SECONDS: u64 = 5;

/// Where the tool's description comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Run the tool with these arguments (`manifest` by default).
    Manifest(Vec<String>),
    /// A saved manifest: a bare ManifestResponse or an envelope around one.
    ManifestFile(PathBuf),
    /// No manifest: read `--help` and each likely subcommand's `--help`.
    Help,
}

/// What `conform init` was asked to do.
#[derive(Debug, Clone)]
pub struct Request {
    /// TOOL and its leading arguments: the profile's `command`, as given.
    pub tool: Vec<String>,
    /// Where the description of the tool comes from.
    pub source: Source,
    /// Each tool run's limit and the profile's `timeout_seconds`.
    pub timeout_seconds: u64,
    /// Write the profile here; print it when absent.
    pub output: Option<PathBuf>,
    /// Overwrite an existing `output`.
    pub yes: bool,
    /// Show what would be written; write nothing.
    pub dry_run: bool,
    /// Stops the tool run in progress.
    pub cancel: Cancel,
}

/// A non-fatal diagnostic, shaped as the spec's WarningDetail.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Warning {
    /// `^[A-Z][A-Z0-9_]+$`, e.g. `COMMAND_SKIPPED`.
    pub code: &'static str,
    pub message: String,
    pub context: Value,
}

impl Warning {
    fn new(code: &'static str, message: impl Into<String>, context: Value) -> Self {
        Warning {
            code,
            message: message.into(),
            context,
        }
    }

    /// A command init writes no probe for, and why.
    fn skipped(command: &str, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Warning::new(
            "COMMAND_SKIPPED",
            format!("{command}: no probe written: {reason}"),
            json!({ "command": command, "reason": reason }),
        )
    }
}

/// Why init wrote nothing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Failure {
    /// 2 for bad input (arguments, manifest, refusal), 1 for a tool or I/O failure.
    pub status: ExitStatus,
    pub code: &'static str,
    pub message: String,
    pub fix: String,
    /// Boxed: a failure travels in every `Result` here and is rarely built.
    pub context: Option<Box<Value>>,
    /// Found before the failure; still worth showing.
    pub warnings: Vec<Warning>,
}

impl Failure {
    fn new(
        status: ExitStatus,
        code: &'static str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Failure {
            status,
            code,
            message: message.into(),
            fix: fix.into(),
            context: None,
            warnings: Vec::new(),
        }
    }

    fn input(code: &'static str, message: impl Into<String>, fix: impl Into<String>) -> Self {
        Failure::new(ExitStatus::InvalidInput, code, message, fix)
    }

    fn tool(code: &'static str, message: impl Into<String>, fix: impl Into<String>) -> Self {
        Failure::new(ExitStatus::GeneralError, code, message, fix)
    }
}

/// A generated profile.
#[derive(Debug, Clone)]
pub(crate) struct Generated {
    /// The profile document.
    pub profile: Value,
    /// Its bytes as written: the same manifest always gives the same text.
    pub text: String,
    pub warnings: Vec<Warning>,
}

/// What init did: the envelope's `data`, the text for a terminal, the warnings.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub data: Value,
    pub text: String,
    pub warnings: Vec<Warning>,
}

/// Generate the profile and write it (or print it, or preview the write).
pub(crate) fn execute(request: &Request) -> Result<Outcome, Failure> {
    let overwrites = match &request.output {
        Some(path) => check_destination(path, request)?,
        None => false,
    };
    let generated = generate(request)?;
    let Some(path) = &request.output else {
        return Ok(Outcome {
            data: generated.profile,
            text: generated.text,
            warnings: generated.warnings,
        });
    };
    let shown = path.display().to_string();
    let probes = generated.profile["probes"].as_array().map_or(0, Vec::len);
    if request.dry_run {
        let note = if overwrites {
            format!("would overwrite {shown} with:\n")
        } else {
            format!("would write {shown}:\n")
        };
        return Ok(Outcome {
            data: json!({
                "path": shown,
                "written": false,
                "would_overwrite": overwrites,
                "profile": generated.profile,
            }),
            text: note + &generated.text,
            warnings: generated.warnings,
        });
    }
    if let Err(message) = write_atomic(path, generated.text.as_bytes()) {
        let mut failure = Failure::tool(
            "WRITE_FAILED",
            message,
            "make the --output directory writable, or choose another --output",
        );
        failure.warnings = generated.warnings;
        return Err(failure);
    }
    let verb = if overwrites { "overwrote" } else { "wrote" };
    Ok(Outcome {
        data: json!({
            "path": shown,
            "written": true,
            "overwrote": overwrites,
            "probes": probes,
            "profile": generated.profile,
        }),
        text: format!(
            "{verb} {shown}: {probes} probe{}; check it with `conform validate {shown}`, then `conform run {shown}`\n",
            if probes == 1 { "" } else { "s" }
        ),
        warnings: generated.warnings,
    })
}

/// Whether writing `path` overwrites a file; refuses the overwrite unless confirmed
/// or previewed. Checked before the tool runs: a refusal has no side effects.
fn check_destination(path: &Path, request: &Request) -> Result<bool, Failure> {
    let shown = path.display();
    if path.is_dir() {
        return Err(Failure::input(
            "USAGE_ERROR",
            format!("--output {shown} is a directory"),
            "give --output a file path, such as conformance-profile.json",
        ));
    }
    let dir = paths::parent(path);
    if !dir.is_dir() {
        return Err(Failure::input(
            "USAGE_ERROR",
            format!(
                "--output {shown}: directory {} does not exist",
                dir.display()
            ),
            "create the directory first, or choose another --output",
        ));
    }
    let exists = path.exists();
    if exists && !request.yes && !request.dry_run {
        let mut failure = Failure::input(
            "CONFIRMATION_REQUIRED",
            format!("{shown} already exists; writing the profile would overwrite it, and init does that only with --yes"),
            format!("pass --yes to overwrite {shown}, --dry-run to see what would be written, or choose another --output"),
        );
        failure.context = Some(Box::new(
            json!({ "path": shown.to_string(), "confirm_flag": "--yes" }),
        ));
        return Err(failure);
    }
    Ok(exists)
}

/// Build and validate the profile without writing anything.
pub(crate) fn generate(request: &Request) -> Result<Generated, Failure> {
    let Some(tool) = request.tool.first() else {
        return Err(Failure::input(
            "USAGE_ERROR",
            "no tool given",
            "name the tool after --: conform init -- ./mytool",
        ));
    };
    let cwd = std::env::current_dir().map_err(|e| {
        Failure::tool(
            "IO_ERROR",
            format!("cannot read the working directory: {e}"),
            "run conform from an existing directory",
        )
    })?;
    // Runs happen where `conform run` will make them: the profile's directory.
    let dir = match &request.output {
        Some(path) => paths::absolute(&cwd, paths::parent(path)),
        None => cwd.clone(),
    };
    let program = profile::resolve_program(tool, &cwd).map_err(|v| {
        Failure::input(
            "TOOL_NOT_FOUND",
            v.message.replace("profile directory", "working directory"),
            "name an executable: a path such as ./target/release/mytool, or a command on PATH",
        )
    })?;
    let mut command = request.tool.clone();
    if tool.contains('/') {
        command[0] = paths::relative_command(&paths::absolute(&cwd, Path::new(tool)), &dir);
    }
    let runner = Runner {
        program,
        args: request.tool[1..].to_vec(),
        cwd: dir.clone(),
        limit: Duration::from_secs(request.timeout_seconds),
        shown: request.tool.join(" "),
        session: Session::new(request.cancel.clone()),
    };
    let mut doc = Map::new();
    doc.insert("schema_version".into(), json!("1.0"));
    doc.insert("tool".into(), json!(paths::tool_name(tool)));
    doc.insert("command".into(), json!(command));
    doc.insert("timeout_seconds".into(), json!(request.timeout_seconds));
    let body = match &request.source {
        Source::Manifest(args) => {
            let data = runner.manifest(args)?;
            let mut body = manifest::profile_from(&data, &mut |argv| runner.measure(argv));
            body.manifest = Some(args.clone());
            body
        }
        Source::ManifestFile(path) => {
            let data = read_manifest_file(path)?;
            manifest::profile_from(&data, &mut |argv| runner.measure(argv))
        }
        Source::Help => help::profile_from(&mut |args| runner.help(args))?,
    };
    if request.cancel.is_cancelled() {
        return Err(Failure::new(
            ExitStatus::Cancelled,
            "CANCELLED",
            "interrupted: the tool run in progress was stopped and its process group killed",
            "run conform init again",
        ));
    }
    let mut warnings = body.warnings;
    if let Some(args) = &body.manifest {
        doc.insert("manifest".into(), json!(args));
    }
    if let Some(order) = body.argument_order {
        doc.insert("argument_order".into(), order);
    }
    doc.insert("probes".into(), Value::Array(body.probes));
    let profile = validated(Value::Object(doc), &dir, &mut warnings)?;
    let text = render_profile(&profile);
    Ok(Generated {
        profile,
        text,
        warnings,
    })
}

/// Run the profile validator; drop what it rejects in a probe or in
/// `argument_order` (with a warning), fail on anything else.
fn validated(mut doc: Value, dir: &Path, warnings: &mut Vec<Warning>) -> Result<Value, Failure> {
    // Two rounds: dropping a probe renumbers the rest, so validate again.
    for _ in 0..2 {
        let violations = match profile::parse(&render_profile(&doc), dir) {
            Ok(_) => return Ok(doc),
            Err(violations) => violations,
        };
        let mut dropped: Vec<usize> = Vec::new();
        let mut drop_order = false;
        let mut other = Vec::new();
        for v in &violations {
            let mut parts = v.pointer.split('/').skip(1);
            match (
                parts.next(),
                parts.next().and_then(|i| i.parse::<usize>().ok()),
            ) {
                (Some("probes"), Some(index)) => {
                    if !dropped.contains(&index) {
                        let name = doc["probes"][index]["name"]
                            .as_str()
                            .unwrap_or("")
                            .to_string();
                        warnings.push(Warning::new(
                            "PROBE_DROPPED",
                            format!("probe {name:?} left out: {}", v.message),
                            json!({ "probe": name, "violation": v.message }),
                        ));
                        dropped.push(index);
                    }
                }
                (Some("argument_order"), _) => {
                    if !drop_order {
                        warnings.push(Warning::new(
                            "ARGUMENT_ORDER_SKIPPED",
                            format!("argument_order left out: {}", v.message),
                            json!({ "violation": v.message }),
                        ));
                    }
                    drop_order = true;
                }
                _ => other.push(v),
            }
        }
        if !other.is_empty() {
            let detail: Vec<String> = other
                .iter()
                .map(|v| {
                    format!(
                        "{}: {}",
                        if v.pointer.is_empty() {
                            "<root>"
                        } else {
                            &v.pointer
                        },
                        v.message
                    )
                })
                .collect();
            return Err(Failure::input(
                "NOTHING_TO_PROBE",
                format!("the generated profile is not valid: {}", detail.join("; ")),
                "write the profile by hand from `conform schema profile`, or give the tool a manifest that declares safe or destructive commands",
            ));
        }
        if let Some(obj) = doc.as_object_mut() {
            if drop_order {
                obj.remove("argument_order");
            }
            if let Some(Value::Array(probes)) = obj.get_mut("probes") {
                let mut index = 0;
                probes.retain(|_| {
                    let keep = !dropped.contains(&index);
                    index += 1;
                    keep
                });
            }
        }
    }
    match profile::parse(&render_profile(&doc), dir) {
        Ok(_) => Ok(doc),
        Err(violations) => Err(Failure::tool(
            "GENERATED_PROFILE_INVALID",
            format!(
                "conform generated a profile its own validator rejects: {}",
                violations.first().map_or("", |v| v.message.as_str())
            ),
            "please report this to conform's maintainers with the manifest",
        )),
    }
}

/// The profile's parts that depend on the source.
#[derive(Debug, Default)]
struct Body {
    manifest: Option<Vec<String>>,
    argument_order: Option<Value>,
    probes: Vec<Value>,
    warnings: Vec<Warning>,
}

/// One probe as the profile writes it, keys in the format's order.
fn probe(name: &str, argv: &[String], kind: &str) -> Map<String, Value> {
    let mut p = Map::new();
    p.insert("name".into(), json!(name));
    p.insert("argv".into(), json!(argv));
    p.insert("kind".into(), json!(kind));
    p
}

/// What one run of a stream showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Measured {
    /// Ended by itself after printing this many lines.
    Finished { lines: u64 },
    /// Still streaming at the limit, after this many lines.
    TimedOut { lines: u64 },
    /// Could not be run.
    Failed,
}

/// Runs the tool the way `conform run` will: from the profile's directory, stdin
/// closed, within the limit.
struct Runner {
    program: PathBuf,
    /// The tool's leading arguments (`-m json.tool`).
    args: Vec<String>,
    cwd: PathBuf,
    limit: Duration,
    /// The tool as the user typed it, for messages.
    shown: String,
    session: Session,
}

impl Runner {
    fn run(&self, argv: &[String], stream: bool, env_set: Vec<(String, String)>) -> RunRecord {
        exec::run(
            &RunSpec {
                program: self.program.clone(),
                args: self.args.iter().chain(argv).cloned().collect(),
                cwd: self.cwd.clone(),
                env_set,
                stdin: StdinMode::Closed,
                limit: self.limit,
                capture_limit: exec::DEFAULT_CAPTURE_LIMIT,
                stream,
                trigger: None,
                output: crate::exec::Output::Pipes,
                sandbox: None,
                env_remove: Vec::new(),
            },
            &self.session,
        )
    }

    fn manifest(&self, args: &[String]) -> Result<Value, Failure> {
        let shown = format!("{} {}", self.shown, args.join(" "));
        let record = self.run(args, false, Vec::new());
        if let Some(error) = &record.error {
            return Err(Failure::tool(
                "TOOL_FAILED",
                error.message.clone(),
                "check that the tool runs",
            ));
        }
        if record.timed_out {
            return Err(Failure::tool(
                "TOOL_TIMEOUT",
                format!("`{shown}` did not finish within {} s (stdin closed); its process group was killed", self.limit.as_secs()),
                "check that the tool prints its manifest without waiting for input; raise --timeout (at most 5), or save the manifest and pass --manifest-file",
            ));
        }
        if record.exit_code() != Some(0) {
            let mut failure = Failure::tool(
                "MANIFEST_FAILED",
                format!(
                    "`{shown}` exited {}{}",
                    describe_exit(&record),
                    excerpt(&record.stderr.bytes)
                ),
                "if the tool has no manifest command, use --from-help; else set its arguments with --manifest-args",
            );
            failure.context = Some(Box::new(json!({ "argv": record.argv })));
            return Err(failure);
        }
        let stdout = String::from_utf8_lossy(&record.stdout.bytes);
        manifest::parse_manifest(&stdout, &format!("the output of `{shown}`"))
    }

    fn measure(&self, argv: &[String]) -> Measured {
        let record = self.run(argv, true, Vec::new());
        if record.error.is_some() {
            return Measured::Failed;
        }
        let lines = crate::lines::count(&record.stdout.bytes);
        if record.timed_out {
            Measured::TimedOut { lines }
        } else {
            Measured::Finished { lines }
        }
    }

    /// `args` then `--help`, else `-h`: the help text, or why there is none.
    fn help(&self, args: &[String]) -> Result<String, String> {
        // Help must never wait on a pager or a terminal: `git status --help` opens
        // a man page, and stdin is closed anyway.
        let env: Vec<(String, String)> = [
            ("PAGER", "cat"),
            ("GIT_PAGER", "cat"),
            ("MANPAGER", "cat"),
            ("MAN_KEEP_FORMATTING", ""),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let mut why = String::new();
        for flag in ["--help", "-h"] {
            let argv: Vec<String> = args.iter().cloned().chain([flag.to_string()]).collect();
            let record = self.run(&argv, false, env.clone());
            let shown = format!("`{} {}`", self.shown, argv.join(" "));
            if let Some(error) = &record.error {
                return Err(error.message.clone());
            }
            if record.timed_out {
                why = format!("{shown} did not finish within {} s", self.limit.as_secs());
                continue;
            }
            let text = help::clean(
                if record.stdout.bytes.iter().any(|b| !b.is_ascii_whitespace()) {
                    &record.stdout.bytes
                } else {
                    &record.stderr.bytes
                },
            );
            if help::is_man_page(&text) {
                why = format!("{shown} opened a manual page");
                continue;
            }
            let usable =
                record.exit_code() == Some(0) || text.to_ascii_lowercase().contains("usage");
            if usable && !text.trim().is_empty() {
                return Ok(text);
            }
            why = format!(
                "{shown} exited {} without help text",
                describe_exit(&record)
            );
        }
        Err(why)
    }
}

fn describe_exit(record: &RunRecord) -> String {
    match record.exit {
        exec::Exit::Code(code) => code.to_string(),
        exec::Exit::Signal(signal) => format!("on signal {signal}"),
        exec::Exit::Unknown => "without an exit status".into(),
    }
}

/// The first line of stderr, for an error message.
fn excerpt(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    match text.lines().find(|l| !l.trim().is_empty()) {
        Some(line) => format!(": {}", line.trim().chars().take(200).collect::<String>()),
        None => String::new(),
    }
}

fn read_manifest_file(path: &Path) -> Result<Value, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Failure::input(
            "USAGE_ERROR",
            format!("cannot read --manifest-file {}: {e}", path.display()),
            "give --manifest-file a saved manifest, such as the output of `mytool manifest > manifest.json`",
        )
    })?;
    manifest::parse_manifest(&text, &path.display().to_string())
}
