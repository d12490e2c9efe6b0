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

mod bait;
mod diagnostics;
mod help;
mod hermetic;
mod manifest;
mod paths;
mod render;
mod runner;
mod saving;
mod tool;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::envelope::ExitStatus;
use crate::exec::{Cancel, Session};
use crate::profile;
use runner::Runner;

pub(crate) use crate::file::write_atomic;
pub(crate) use diagnostics::{Failure, Warning};
pub(crate) use help::Settings as ExploreSettings;
pub(crate) use help::READS_STDIN;
pub(crate) use hermetic::Hermetic;
pub(crate) use render::render_profile;
pub(crate) use saving::check_only_reasons;

/// The flag no tool has, as `conform run` adds it.
pub(crate) use crate::plan::UNKNOWN_FLAG;

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
    /// `manifest` when the tool prints one, else `--help` (`conform check`).
    Auto,
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

/// How `conform check` explores: every look and run hermetic, every command a
/// probe that can be one.
#[derive(Debug, Clone, Default)]
pub(crate) struct Exploration {
    /// Variables removed from every run (the credential-looking ones).
    pub unset: Vec<String>,
    /// Where each exploration run gets a working directory of its own.
    pub scratch: std::path::PathBuf,
    pub settings: ExploreSettings,
    /// Where the phases and runs of exploration are shown (`--progress`, a terminal).
    pub progress: Option<crate::render::progress::Phases>,
}

/// What exploration found and did with it: the text summary and `meta.inferred`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub(crate) struct Census {
    /// Every command found, by its words after the program.
    pub found: Vec<String>,
    /// The commands that became probes.
    pub probed: Vec<String>,
    /// Those of them probed only under `conform check`, never saved: they mutate
    /// (by name, or by the state they write in HOME).
    pub check_only: Vec<String>,
    /// The commands left out, each with why.
    #[serde(rename = "left_out")]
    pub left: Vec<LeftOut>,
    /// How many commands the root help names, about (its command sections'
    /// entries, argparse's choices).
    pub named: usize,
    /// The help speaks of commands (a command slot, a listing, the word).
    pub has_commands: bool,
}

impl Census {
    /// What to say when discovery found fewer than a third of the commands the
    /// help names, or none where it speaks of commands: the verdicts then rest
    /// on the kit's own runs (`--help`, the made-up command and flag), not on the
    /// tool's commands.
    pub(crate) fn shortfall(&self) -> Option<String> {
        let found = self.found.len();
        let short = found * 3 < self.named || (found == 0 && self.has_commands);
        if !short {
            return None;
        }
        Some(if self.named > 0 {
            format!(
                "found {found} of about {} commands the help lists: judged on the kit's own runs only",
                self.named
            )
        } else {
            "found no command, though the help speaks of commands: judged on the kit's own runs only"
                .to_string()
        })
    }

    pub(crate) fn left_out(&mut self, command: &str, reason: impl Into<String>) {
        self.left.push(LeftOut {
            command: command.to_string(),
            reason: reason.into(),
        });
    }
}

/// A command that is not a probe, and why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct LeftOut {
    pub command: String,
    pub reason: String,
}

/// A generated profile.
#[derive(Debug, Clone)]
pub(crate) struct Generated {
    /// The profile document.
    pub profile: Value,
    /// Its bytes as written: the same manifest always gives the same text.
    pub text: String,
    pub warnings: Vec<Warning>,
    /// What it was built from: `manifest` or `help`.
    pub source: &'static str,
    /// The directory its runs are made from (where it is, or would be, saved).
    pub dir: PathBuf,
    /// What exploration found, when the profile came from exploring the help.
    pub census: Option<Census>,
    /// Whether the help lists subcommands (a manifest always has commands).
    pub lists_subcommands: bool,
    /// The manifest's secret and token variables.
    pub secret_vars: Vec<String>,
    /// Read probes made only in `conform check`'s hermetic runs, never saved: the
    /// commands that mutate.
    pub check_only: Vec<Value>,
    /// The help calls gave no help, but showed something to judge (a wait, a
    /// prompt, a crash): `--help` is run with stdin open too.
    pub help_unread: bool,
    /// Probes (by name) whose exploration run showed something worth a look in
    /// depth, each with what.
    pub flagged: Vec<(String, String)>,
    /// What one run cost the pool while the profile was built.
    pub per_run: Option<std::time::Duration>,
    /// Every exploration run made, by its arguments after the program.
    pub explored: Vec<(Vec<String>, crate::exec::RunRecord)>,
    /// When a signal ended the help calls: those made, by their arguments after
    /// the program (the kit's own `--help` run among them).
    pub looked: Vec<(Vec<String>, crate::exec::RunRecord)>,
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
pub(crate) fn check_destination(path: &Path, request: &Request) -> Result<bool, Failure> {
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
    generate_with(request, None)
}

/// As [`generate`], exploring the whole command tree hermetically when `explore`
/// says how (`conform check`).
pub(crate) fn generate_with(
    request: &Request,
    explore: Option<&Exploration>,
) -> Result<Generated, Failure> {
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
    let name = paths::tool_name(tool);
    let mut runner = Runner::new(
        program,
        request.tool[1..].to_vec(),
        dir.clone(),
        Duration::from_secs(request.timeout_seconds),
        request.tool.join(" "),
        Session::new(request.cancel.clone()),
    )?;
    if let Some(explore) = explore {
        runner.unset = explore.unset.clone();
        runner.scratch = Some(explore.scratch.clone());
        runner.cwd = explore.scratch.clone();
        runner.progress = explore.progress.clone();
    } else {
        // `conform init`'s trials, as `check`'s, run in a copy of the bait project,
        // never in the user's (where it cannot be made, from the profile's
        // directory, as before).
        runner.bait = tempfile::Builder::new()
            .prefix("conform-init-")
            .tempdir()
            .ok();
    }
    let mut doc = Map::new();
    doc.insert("schema_version".into(), json!("1.0"));
    doc.insert("tool".into(), json!(name));
    doc.insert("command".into(), json!(command));
    doc.insert("timeout_seconds".into(), json!(request.timeout_seconds));
    let built = match &request.source {
        Source::Manifest(args) => {
            let data = runner.manifest(args)?;
            let mut body = manifest::profile_from(&data, &mut runner, mutating(explore));
            body.manifest = Some(args.clone());
            Ok((body, "manifest"))
        }
        Source::ManifestFile(path) => {
            let data = read_manifest_file(path)?;
            Ok((
                manifest::profile_from(&data, &mut runner, mutating(explore)),
                "manifest",
            ))
        }
        Source::Help => help::profile_from(&mut runner, &name).map(|body| (body, "help")),
        Source::Auto => auto(&mut runner, &name, explore),
    };
    let interrupted = request.cancel.is_cancelled();
    let (mut body, source) =
        match built {
            // `conform check` answers all the same: the help calls made are runs,
            // and the checks they feed are judged from them.
            _ if interrupted && explore.is_some() => (Body::interrupted(), "help"),
            _ if interrupted => return Err(Failure::new(
                ExitStatus::Cancelled,
                "CANCELLED",
                "interrupted: the tool run in progress was stopped and its process group killed",
                "run conform init again",
            )),
            built => built?,
        };
    saving::keep_saved_reads_safe(&mut body, explore.is_some());
    let mut warnings = body.warnings;
    let (census, lists_subcommands, secret_vars, check_only, help_unread, flagged) = (
        body.census,
        body.lists_subcommands,
        body.secret_vars,
        body.check_only,
        body.help_unread,
        body.flagged,
    );
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
        source,
        dir,
        census,
        lists_subcommands,
        secret_vars,
        check_only,
        help_unread,
        flagged,
        per_run: runner.cost.per_run(),
        explored: runner.explored.take(),
        looked: if interrupted {
            runner.looked.take()
        } else {
            Vec::new()
        },
    })
}

/// Whether a manifest's mutating commands may be probed (check only, never
/// saved): only in `conform check`'s hermetic runs, when every condition holds.
/// `Err` says why not.
fn mutating(explore: Option<&Exploration>) -> Result<(), String> {
    match explore {
        None => Err("probes run several times and the kit cannot undo side effects".into()),
        Some(explore) if explore.settings.mutating_gaps.is_empty() => Ok(()),
        Some(explore) => Err(explore.settings.mutating_gaps.join("; ")),
    }
}

/// The manifest's profile when `TOOL manifest` prints one, else the help's.
fn auto(
    runner: &mut Runner,
    name: &str,
    explore: Option<&Exploration>,
) -> Result<(Body, &'static str), Failure> {
    let args = vec!["manifest".to_string()];
    match runner.find_manifest(&args) {
        Ok(data) => {
            let mut body = manifest::profile_from(&data, runner, mutating(explore));
            body.lists_subcommands = true;
            body.secret_vars = hermetic::declared_secrets(&data);
            let errors = crate::checks::schemas::manifest_errors(&data);
            if !errors.is_empty() {
                body.warnings.push(Warning::new(
                    "MANIFEST_INVALID",
                    format!(
                        "the manifest is not a valid ManifestResponse ({}); the profile is built from it all the same, and manifest_valid reports it",
                        crate::checks::schemas::summarize(&errors)
                    ),
                    json!({ "errors": errors }),
                ));
            }
            body.manifest = Some(args);
            Ok((body, "manifest"))
        }
        Err(why) => {
            let mut body = match explore {
                Some(explore) => help::explore(runner, name, &explore.settings)?,
                None => help::profile_from(runner, name)?,
            };
            body.warnings.insert(
                0,
                Warning::new(
                    "NO_MANIFEST",
                    format!("no manifest ({why}): the profile is built from the help text"),
                    json!({ "reason": why }),
                ),
            );
            Ok((body, "help"))
        }
    }
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
    /// What exploration found (`conform check` from the help).
    census: Option<Census>,
    lists_subcommands: bool,
    secret_vars: Vec<String>,
    /// Probes for `conform check` only (see [`Generated::check_only`]).
    check_only: Vec<Value>,
    /// See [`Generated::help_unread`].
    help_unread: bool,
    /// See [`Generated::flagged`].
    flagged: Vec<(String, String)>,
}

impl Body {
    /// The profile of a tool whose exploration a signal ended: the unknown-flag
    /// probe alone (no run of it is made), and a warning saying so. The help
    /// calls made are the kit's runs the checks judge ([`Generated::looked`]).
    fn interrupted() -> Body {
        let argv = [UNKNOWN_FLAG.to_string()];
        Body {
            probes: vec![Value::Object(probe("unknown flag", &argv, "invalid"))],
            warnings: vec![Warning::new(
                "EXPLORATION_INTERRUPTED",
                "a signal ended exploration while the help was being read: the checks judge the help calls made (`--help` among them), and every other check is skipped",
                json!({}),
            )],
            census: Some(Census::default()),
            ..Body::default()
        }
    }
}

/// One probe as the profile writes it, keys in the format's order.
fn probe(name: &str, argv: &[String], kind: &str) -> Map<String, Value> {
    let mut p = Map::new();
    p.insert("name".into(), json!(name));
    p.insert("argv".into(), json!(argv));
    p.insert("kind".into(), json!(kind));
    p
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
