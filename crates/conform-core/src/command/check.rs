//! `conform check -- TOOL`: judge a tool with no profile on disk. The profile is
//! built in memory exactly as `conform init` builds it (from the manifest when the
//! tool prints one, else from its help), then run and reported as `conform run`
//! does, with every report flag.
//!
//! Destructive probes run only with `--allow-destructive`: without it they are
//! left out of the run and listed, with the reason, so nobody meets a deletion
//! they did not ask for.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::output::{emit, report_error};
use super::run::{execute, prepare, Extra, How, RunRequest};
use super::Output;
use crate::envelope::ExitStatus;
use crate::init::{self, render_profile, write_atomic, Failure, Generated, Source};
use crate::profile::{self, LoadedProfile, Locations};

/// What `conform check` was asked to do.
#[derive(Debug, Clone)]
pub struct CheckRequest {
    /// TOOL and its leading arguments.
    pub tool: Vec<String>,
    /// Each run's limit while the profile is built, and its `timeout_seconds`.
    pub timeout_seconds: u64,
    /// Also write the inferred profile here (`--save`).
    pub save: Option<PathBuf>,
    /// Overwrite an existing `save` file.
    pub yes: bool,
    /// Run the destructive probes too (refusal and preview runs).
    pub allow_destructive: bool,
    /// How to run and report, as `conform run`; its `profiles` are ignored.
    pub run: RunRequest,
}

/// `conform check`: infer the profile, run it, report as `conform run` does, with
/// `meta.inferred` saying how the profile was made and showing it.
pub fn check(request: &CheckRequest, out: &Output) -> ExitStatus {
    let (output, selection, config) = match prepare(&request.run, out) {
        Ok(prepared) => prepared,
        Err(status) => return status,
    };
    let init_request = init::Request {
        tool: request.tool.clone(),
        source: Source::Auto,
        timeout_seconds: request.timeout_seconds,
        output: request.save.clone(),
        yes: request.yes,
        dry_run: false,
        cancel: request.run.cancel.clone(),
    };
    let inferred = match infer(&init_request, request.allow_destructive) {
        Ok(inferred) => inferred,
        Err(failure) => return failed(failure, request, out),
    };
    let Inferred {
        generated,
        loaded,
        not_run,
        saved,
    } = inferred;
    let warnings: Vec<Value> = generated.warnings.iter().map(|w| json!(w)).collect();
    for warning in &generated.warnings {
        eprintln!("conform check: warning: {}", warning.message);
    }
    if !out.json && !request.run.stream {
        let text = summary(&generated, &not_run, saved.as_deref());
        if emit(&text) != ExitStatus::Success {
            return ExitStatus::GeneralError;
        }
    }
    let mut how = How::new(output, &selection, &config, out);
    how.extra = Some(Extra {
        meta: vec![(
            "inferred",
            json!({
                "source": generated.source,
                "saved": saved.as_ref().map(|p| p.display().to_string()),
                "destructive_not_run": not_run,
                "profile": generated.profile,
            }),
        )],
        warnings,
    });
    execute(&request.run, &[&loaded], &how)
}

/// The inferred profile, what runs of it, and what does not.
pub(super) struct Inferred {
    pub(super) generated: Generated,
    /// The profile that runs: the inferred one less the destructive probes, unless
    /// they are allowed.
    pub(super) loaded: LoadedProfile,
    /// `{probe, argv, reason}` of each destructive probe left out.
    pub(super) not_run: Vec<Value>,
    saved: Option<PathBuf>,
}

pub(super) fn infer(request: &init::Request, allow_destructive: bool) -> Result<Inferred, Failure> {
    let overwrites = match &request.output {
        Some(path) => init::check_destination(path, request)?,
        None => false,
    };
    let generated = init::generate(request)?;
    if let Some(path) = &request.output {
        write_atomic(path, generated.text.as_bytes()).map_err(|message| {
            Failure::tool(
                "WRITE_FAILED",
                message,
                "make the --save directory writable, or choose another --save",
            )
        })?;
        let verb = if overwrites { "overwrote" } else { "wrote" };
        eprintln!("conform check: {verb} {}", path.display());
    }
    let (run, not_run) = if allow_destructive {
        (generated.profile.clone(), Vec::new())
    } else {
        without_destructive(&generated.profile)
    };
    if run["probes"].as_array().is_none_or(Vec::is_empty) {
        return Err(Failure::input(
            "NOTHING_TO_RUN",
            "every probe inferred for the tool is destructive, and destructive probes run only with --allow-destructive",
            "pass --allow-destructive to run them (without confirmation, then with their dry-run flag), or write a profile by hand",
        ));
    }
    Ok(Inferred {
        loaded: load(&run, &generated.dir, request)?,
        not_run,
        saved: request.output.clone(),
        generated,
    })
}

/// The profile document `run` as a loaded profile whose runs are made from `dir`.
fn load(run: &Value, dir: &Path, request: &init::Request) -> Result<LoadedProfile, Failure> {
    let text = render_profile(run);
    let (profile, program) = profile::parse(&text, dir).map_err(|violations| {
        Failure::tool(
            "GENERATED_PROFILE_INVALID",
            format!(
                "conform generated a profile its own validator rejects: {}",
                violations.first().map_or("", |v| v.message.as_str())
            ),
            "please report this to conform's maintainers",
        )
    })?;
    let name = request.tool.join(" ");
    Ok(LoadedProfile {
        path: PathBuf::from(format!("inferred:{name}")),
        dir: dir.to_path_buf(),
        profile,
        program,
        locations: Locations::scan(&text),
    })
}

/// The profile as run: without the destructive probes unless allowed; each one
/// left out is listed with why.
fn without_destructive(profile: &Value) -> (Value, Vec<Value>) {
    let mut run = profile.clone();
    let mut not_run = Vec::new();
    if let Some(probes) = run.get_mut("probes").and_then(Value::as_array_mut) {
        probes.retain(|probe| {
            let destructive = probe.get("kind").and_then(Value::as_str) == Some("destructive");
            if destructive {
                not_run.push(json!({
                    "probe": probe.get("name"),
                    "argv": probe.get("argv"),
                    "reason": "a destructive probe: conform check runs it (without confirmation, then with its dry-run flag) only with --allow-destructive",
                }));
            }
            !destructive
        });
    }
    (run, not_run)
}

/// The text shown before the report: how the profile was made, and its probes.
pub(super) fn summary(generated: &Generated, not_run: &[Value], saved: Option<&Path>) -> String {
    let probes = generated.profile["probes"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut text = format!(
        "Profile inferred from the tool's {} ({} probe{}){}:\n",
        if generated.source == "manifest" {
            "manifest"
        } else {
            "help text"
        },
        probes.len(),
        if probes.len() == 1 { "" } else { "s" },
        saved
            .map(|p| format!(", saved to {}", p.display()))
            .unwrap_or_default(),
    );
    for probe in probes {
        let argv: Vec<&str> = probe["argv"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let skipped = not_run.iter().any(|n| n["probe"] == probe["name"]);
        let signal = match probe["after_lines"].as_u64() {
            Some(lines) => format!(", SIGINT after {lines} lines"),
            None => String::new(),
        };
        text.push_str(&format!(
            "  {:<12} {}  [{}{signal}]{}\n",
            probe["kind"].as_str().unwrap_or("?"),
            probe["name"].as_str().unwrap_or("?"),
            argv.join(" "),
            if skipped {
                "  (not run: destructive; pass --allow-destructive)"
            } else {
                ""
            }
        ));
    }
    text.push('\n');
    text
}

/// No profile could be inferred: the error, as `conform init` reports it.
fn failed(mut failure: Failure, request: &CheckRequest, out: &Output) -> ExitStatus {
    if let Some(status) = request.run.cancel.exit_status() {
        failure.status = status;
    }
    for warning in &failure.warnings {
        eprintln!("conform check: warning: {}", warning.message);
    }
    let status = failure.status;
    let detail = super::failure_detail(failure);
    if !out.json {
        eprintln!("conform: {}", detail.message);
        eprintln!("fix: {}", detail.fix_required.as_deref().unwrap_or(""));
        return status;
    }
    report_error(status, detail, Value::Null, out.json, out.started)
}
