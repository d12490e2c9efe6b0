//! `conform check -- TOOL`: judge a tool with no profile on disk. The profile is
//! built in memory exactly as `conform init` builds it (from the manifest when the
//! tool prints one, else from its help), then run and reported as `conform run`
//! does, with every report flag.
//!
//! Destructive probes run only with `--allow-destructive`: without it they are
//! left out of the run and listed, with the reason, so nobody meets a deletion
//! they did not ask for.
//!
//! Hermetic by construction: every run, from the first help call on, is made in
//! the isolated sandbox, from a scratch working directory, with every
//! credential-looking variable unset and the network at a black hole (unless
//! `--network inherit`); see [`crate::init::Hermetic`]. Reports point into the
//! saved profile with `--save`, else at `check:TOOL`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use super::output::{emit, report_error};
use super::run::{execute, prepare, write_sarif_of_nothing_run, Extra, How, RunRequest};
use super::selection::Selection;
use super::Output;
use crate::envelope::ExitStatus;
use crate::exec::{Cancel, Network};
use crate::explore::danger;
use crate::explore::phases::{self, Budget, Command, Fit, Runs};
use crate::init::{
    self, render_profile, write_atomic, Census, Exploration, ExploreSettings, Failure, Generated,
    Hermetic, Source,
};
use crate::plan::{self, Scope, SURVEY};
use crate::profile::{self, LoadedProfile, Locations, ProbeKind, Violation};
use crate::render::progress::Phases;
use crate::runner::RunConfig;

/// The longest `--timeout` check accepts: what a profile accepts.
pub const MAX_CHECK_TIMEOUT_SECONDS: u64 = 120;

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
    /// `--network inherit`: runs reach the network the machine gives them, and
    /// commands whose names say they mutate are left out.
    pub inherit_network: bool,
    /// `--budget`: conform's whole wall time, exploration included; `None`
    /// (`--budget none`): every command explored and judged in depth.
    pub budget: Option<Duration>,
    /// `--progress`: off a terminal, a line on stderr per phase and at most one
    /// every 10 s between.
    pub progress: bool,
    /// How to run and report, as `conform run`; its `profiles` are ignored.
    pub run: RunRequest,
}

/// `conform check`: infer the profile, run it, report as `conform run` does, with
/// `meta.inferred` saying how the profile was made and showing it.
pub fn check(request: &CheckRequest, out: &Output) -> ExitStatus {
    let (output, selection, mut config) = match prepare(&request.run, out) {
        Ok(prepared) => prepared,
        Err(status) => return status,
    };
    // Every run is made from here, and the exploration runs from directories in it.
    let scratch = match scratch_dir("check") {
        Ok(dir) => dir,
        Err(failure) => return failed(failure, request, out),
    };
    let budget = request.budget.map(|total| Budget::new(out.started, total));
    // A stream's reader is a program: only the lines asked for.
    let phases = Phases::new(request.progress, out.started)
        .filter(|_| request.progress || !request.run.stream);
    if let Some(phases) = &phases {
        phases.phase("help calls", "reading the tool's manifest or help");
    }
    let settings = ToolSettings {
        timeout_seconds: request.timeout_seconds,
        allow_destructive: request.allow_destructive,
        inherit_network: request.inherit_network,
        cancel: &request.run.cancel,
        budget,
        progress: phases.clone(),
    };
    let mut tool = match infer_tool(
        &request.tool,
        request
            .save
            .as_ref()
            .map(|save| (save.clone(), request.yes)),
        &settings,
        scratch.path(),
    ) {
        Ok(tool) => tool,
        Err(failure) => {
            if let Some(phases) = &phases {
                phases.clear();
            }
            return failed(failure, request, out);
        }
    };
    let phased = survey_and_depth(&mut tool, &selection, &config, budget);
    let warnings: Vec<Value> = tool
        .inferred
        .generated
        .warnings
        .iter()
        .map(|w| json!(w))
        .collect();
    for warning in &tool.inferred.generated.warnings {
        eprintln!("conform check: warning: {}", warning.message);
    }
    if let Some(phases) = &phases {
        // The run's own progress line takes over on a terminal.
        phases.clear();
        phases.phase("survey and depth", &phased.progress_line());
    }
    if !out.json && !request.run.stream {
        let mut text = tool.summary() + &phased.summary();
        if !request.run.verbose {
            // Short: the headings alone (how the profile was made, the commands,
            // the sandbox, the budget); every probe and why is in --verbose.
            text = text
                .lines()
                .filter(|line| !line.starts_with("  "))
                .map(|line| format!("{line}\n"))
                .collect();
        }
        if emit(&text) != ExitStatus::Success {
            return ExitStatus::GeneralError;
        }
    }
    let inferred_meta = tool.meta();
    let HermeticTool {
        inferred, hermetic, ..
    } = tool;
    config.hermetic = vec![hermetic];
    config.judge_made = true;
    config.deadline = budget.map(|b| (b.stop_at(), b.kill_at()));
    let mut how = How::new(output, &selection, &config, out);
    how.phases = phases;
    how.extra = Some(Extra {
        meta: vec![
            ("inferred", inferred_meta),
            ("budget", phased.budget_meta()),
            ("survey", phased.survey_meta()),
            ("depth", phased.depth_meta()),
        ],
        warnings,
    });
    let status = execute(&request.run, &[&inferred.loaded], &how);
    drop(scratch);
    status
}

/// When no run was measured: what a run is taken to cost the pool.
const UNMEASURED_RUN: Duration = Duration::from_millis(500);

/// What the survey and depth phases were planned to be.
struct Phased {
    budget: Option<Budget>,
    fit: Fit,
    /// Every surveyed or skipped probe's name, by probe index.
    names: Vec<String>,
    /// The commands (read and destructive probes) by probe index.
    commands: Vec<usize>,
    /// The commands exploration found, and those it left unsurveyed for the
    /// budget.
    found: usize,
    not_surveyed: Vec<String>,
    per_run: Duration,
}

/// Plans the survey and depth of `tool`'s profile within `budget`: sets the
/// scope and patience of its runs, and lists what was not surveyed in its census.
fn survey_and_depth(
    tool: &mut HermeticTool,
    selection: &Selection,
    config: &RunConfig,
    budget: Option<Budget>,
) -> Phased {
    let loaded = &tool.inferred.loaded;
    let names: Vec<String> = loaded
        .profile
        .probes
        .iter()
        .map(|p| p.name.clone())
        .collect();
    // The commands: read and destructive probes. The made-up flag's probe and the
    // streams are each one probe, always in depth.
    let commands: Vec<usize> = loaded
        .profile
        .probes
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p.kind, ProbeKind::Read | ProbeKind::Destructive))
        .map(|(index, _)| index)
        .collect();
    let per_run = tool.inferred.generated.per_run.unwrap_or(UNMEASURED_RUN);
    let mut phased = Phased {
        budget,
        fit: Fit {
            whole: true,
            ..Fit::default()
        },
        names,
        commands: commands.clone(),
        found: tool.census.found.len(),
        not_surveyed: tool
            .census
            .left
            .iter()
            .filter(|left| left.reason.starts_with("not surveyed"))
            .map(|left| left.command.clone())
            .collect(),
        per_run,
    };
    let Some(budget) = budget else {
        return phased;
    };
    tool.hermetic.patience = budget.patience();
    let flagged = &tool.inferred.generated.flagged;
    let listed: Vec<Command> = commands
        .iter()
        .map(|&index| {
            let name = &phased.names[index];
            Command {
                argv: loaded.profile.probes[index].argv.clone(),
                flagged: flagged
                    .iter()
                    .find(|(flagged, _)| flagged == name)
                    .map(|(_, why)| why.clone()),
            }
        })
        .collect();
    // The whole plan, as it would be made, counted per command.
    let kinds = crate::checks::reads(&selection.checks);
    let mut whole = plan::plan_scoped(loaded, &kinds, config.options, &Scope::default());
    tool.hermetic.apply(&mut whole);
    let mut runs = Runs {
        shared: 0,
        survey: vec![0; listed.len()],
        depth: vec![0; listed.len()],
    };
    for (index, run) in whole.runs.iter().enumerate() {
        match run
            .role
            .probe_index()
            .and_then(|p| commands.iter().position(|&c| c == p))
        {
            // Taken from exploration or from another run when surveyed only; made
            // in depth.
            Some(at) if tool.hermetic.free_in_survey(&whole, index) => runs.depth[at] += 1,
            Some(at) if SURVEY.contains(&run.role.kind) => runs.survey[at] += 1,
            Some(at) if run.role.kind != plan::RunKind::UnknownFlag => runs.depth[at] += 1,
            _ => runs.shared += 1,
        }
    }
    // The last runs may end at their limit. The one run per host let go on at the
    // black hole for its patience (`explore/survey.rs`) waits beside the others and
    // holds no job slot: it lengthens no plan that lasts longer than it.
    let limit = Duration::from_secs_f64(loaded.profile.timeout_seconds);
    let tail = limit + Duration::from_secs(2);
    let fit = phases::fit(&listed, &runs, per_run, tail, budget.runs_left());
    let at = |list: &std::collections::BTreeSet<usize>| -> std::collections::BTreeSet<usize> {
        list.iter().map(|&i| commands[i]).collect()
    };
    tool.hermetic.scope = Scope {
        survey_only: at(&fit.survey_only),
        skipped: at(&fit.skipped),
    };
    // The checks whose own runs only depth makes, where no command in depth got
    // one: they skip for that, not for what their runs would have shown.
    let mut scoped = plan::plan_scoped(loaded, &kinds, config.options, &tool.hermetic.scope);
    tool.hermetic.apply(&mut scoped);
    let made = |plan: &plan::Plan, kinds: &[plan::RunKind]| {
        plan.runs.iter().any(|run| kinds.contains(&run.role.kind))
    };
    let unsampled: std::collections::BTreeSet<crate::checks::CheckId> = selection
        .checks
        .iter()
        .copied()
        .filter(|check| {
            let own: Vec<plan::RunKind> = check
                .spec()
                .reads
                .iter()
                .copied()
                .filter(|kind| !SURVEY.contains(kind))
                .collect();
            made(&whole, &own) && !made(&scoped, &own)
        })
        .collect();
    if !unsampled.is_empty() {
        tool.hermetic.unsampled = Some((
            unsampled,
            format!(
                "not judged: the runs it reads are made only in depth, and no command the budget ({}) let be judged in depth has them",
                budget.shown()
            ),
        ));
    }
    for &index in &fit.skipped {
        let name = &phased.names[commands[index]];
        tool.census.left_out(
            name,
            format!(
                "not surveyed: the budget ({}) left no time for its runs; the commands where dangers live (login, init, deploy, open), then those an agent calls first, and one of each group were surveyed first",
                budget.shown()
            ),
        );
        phased.not_surveyed.push(name.clone());
    }
    phased.fit = Fit {
        depth: fit
            .depth
            .into_iter()
            .map(|(i, why)| (commands[i], why))
            .collect(),
        survey_only: tool.hermetic.scope.survey_only.clone(),
        skipped: tool.hermetic.scope.skipped.clone(),
        ..fit
    };
    phased
}

impl Phased {
    fn surveyed(&self) -> usize {
        self.commands.len() - self.fit.skipped.len()
    }

    /// The commands judged in depth, each with why.
    fn depth(&self) -> Vec<(String, String)> {
        if self.fit.whole {
            return self
                .commands
                .iter()
                .map(|&i| {
                    let why = "every command surveyed fits in depth".to_string();
                    (self.names[i].clone(), why)
                })
                .collect();
        }
        self.fit
            .depth
            .iter()
            .map(|(i, why)| (self.names[*i].clone(), why.said()))
            .collect()
    }

    fn budget_meta(&self) -> Value {
        match &self.budget {
            None => json!({ "seconds": null, "shown": "none" }),
            Some(budget) => json!({
                "seconds": budget.total.as_secs(),
                "shown": budget.shown(),
                "run_cost_ms": u64::try_from(self.per_run.as_millis()).unwrap_or(u64::MAX),
                "runs_planned": self.fit.runs,
                "estimate_seconds": self.fit.estimate.as_secs(),
            }),
        }
    }

    fn survey_meta(&self) -> Value {
        json!({
            "commands": self.surveyed(),
            "not_surveyed": self.not_surveyed,
            "kinds": SURVEY.iter().map(|k| format!("{k:?}")).collect::<Vec<_>>(),
        })
    }

    fn depth_meta(&self) -> Value {
        let judged: Vec<Value> = self
            .depth()
            .into_iter()
            .map(|(command, why)| json!({ "command": command, "why": why }))
            .collect();
        json!({
            "commands": judged.len(),
            "all": self.fit.whole,
            "judged": judged,
        })
    }

    /// The phase's line in the progress shown.
    fn progress_line(&self) -> String {
        let budget = self.budget.map_or("none".to_string(), |b| b.shown());
        format!(
            "{} commands surveyed, {} judged in depth (budget {budget})",
            self.surveyed(),
            self.depth().len()
        )
    }

    /// The text shown before the report.
    fn summary(&self) -> String {
        let budget = self.budget.map_or("none".to_string(), |b| b.shown());
        let mut text = format!(
            "Survey and depth (budget {budget}): {} command{} surveyed, {} judged in depth",
            self.surveyed(),
            if self.surveyed() == 1 { "" } else { "s" },
            self.depth().len(),
        );
        if self.fit.whole {
            text.push_str(" (every command surveyed: it all fits)\n");
        } else {
            let depth = self.depth();
            let names: Vec<&str> = depth.iter().map(|(command, _)| command.as_str()).collect();
            text.push_str(&format!(": {}\n", names.join(", ")));
            for (command, why) in &depth {
                text.push_str(&format!("  in depth  {command}: {why}\n"));
            }
        }
        if !self.not_surveyed.is_empty() {
            text.push_str(&format!(
                "Not surveyed ({} of {} found, the budget left no time for them): {}\n",
                self.not_surveyed.len(),
                self.found,
                named_first(&self.not_surveyed, NOT_SURVEYED_SHOWN)
            ));
        }
        text.push('\n');
        text
    }
}

/// How many commands left unsurveyed the text names.
const NOT_SURVEYED_SHOWN: usize = 3;

/// `login, init, deploy and 81 more`: the commands whose names say dangers live
/// there first ([`danger`]), then the others, in their order.
fn named_first(commands: &[String], shown: usize) -> String {
    let words = |name: &String| name.split(' ').map(String::from).collect::<Vec<_>>();
    let mut ordered: Vec<&String> = commands
        .iter()
        .filter(|name| danger::dangerous(&words(name), ""))
        .collect();
    ordered.extend(
        commands
            .iter()
            .filter(|name| !danger::dangerous(&words(name), "")),
    );
    let named: Vec<&str> = ordered
        .iter()
        .take(shown)
        .map(|name| name.as_str())
        .collect();
    match ordered.len().saturating_sub(shown) {
        0 => named.join(", "),
        more => format!("{} and {more} more", named.join(", ")),
    }
}

/// What every tool of one `conform check` call is inferred and run with.
pub(super) struct ToolSettings<'a> {
    /// Each run's limit while the profile is built, and its `timeout_seconds`.
    pub timeout_seconds: u64,
    /// Run the destructive probes too (refusal and preview runs).
    pub allow_destructive: bool,
    /// `--network inherit`.
    pub inherit_network: bool,
    pub cancel: &'a Cancel,
    /// `conform check --budget` (`None` for `--tools`, and `--budget none`).
    pub budget: Option<Budget>,
    /// Where exploration's phases are shown.
    pub progress: Option<Phases>,
}

/// A tool made ready to run as `conform check -- TOOL` runs it: its profile
/// inferred hermetically, and the hermetic defaults its runs are made with.
pub(super) struct HermeticTool {
    pub inferred: Inferred,
    /// Applied to every planned run of the tool's profile.
    pub hermetic: Hermetic,
    /// What exploration found, ran and left out.
    pub census: Census,
}

impl HermeticTool {
    /// The text shown before the report.
    pub(super) fn summary(&self) -> String {
        summary(
            &self.inferred.generated,
            &self.inferred.not_run,
            self.inferred.saved.as_deref(),
            &self.census,
            &self.hermetic,
        )
    }

    /// `meta.inferred`: how the profile was made, with the profile itself.
    pub(super) fn meta(&self) -> Value {
        let Inferred {
            generated,
            not_run,
            saved,
            ..
        } = &self.inferred;
        let (census, hermetic) = (&self.census, &self.hermetic);
        json!({
            "source": generated.source,
            "saved": saved.as_ref().map(|p| p.display().to_string()),
            "destructive_not_run": not_run,
            "commands": {
                "named": census.named,
                "found": census.found.len(),
                "shortfall": census.shortfall(),
                "probed": census.probed.len(),
                "check_only": census.check_only,
                "left_out": census.left,
            },
            "hermetic": {
                "unset": hermetic.unset,
                "network": if hermetic.network == Network::BlackHole { "blackhole" } else { "inherit" },
                // Exploration is at the black hole whatever `--network` says; the
                // checks' runs are where `--network` puts them.
                "network_phases": {
                    "exploration": crate::exec::isolation().label(),
                    "checks": if hermetic.network == Network::BlackHole {
                        crate::exec::isolation().label()
                    } else {
                        "inherit"
                    },
                },
                "cwd": "a scratch directory, removed afterwards",
                "sandbox": "isolated: fresh HOME, XDG directories and TMPDIR, sentinels for pagers, editors and browsers",
            },
            "profile": generated.profile,
            "check_only_probes": generated.check_only,
            "check_only_reasons": init::check_only_reasons(&generated.warnings),
        })
    }
}

/// A fresh scratch directory for one `conform check` call (`what` names it), removed
/// when dropped.
pub(super) fn scratch_dir(what: &str) -> Result<tempfile::TempDir, Failure> {
    tempfile::Builder::new()
        .prefix(&format!("conform-{}-{what}-", std::process::id()))
        .tempdir()
        .map_err(|e| {
            Failure::tool(
                "IO_ERROR",
                format!("cannot make a scratch directory: {e}"),
                "check that the temporary directory is writable",
            )
        })
}

/// `tool`'s profile inferred as `conform check -- TOOL` infers it: explored and run
/// from directories made under `scratch` (`cwd` for the runs, `explore` for the
/// exploration), credentials unset, the network at a black hole unless inherited.
/// With `save` (a path and whether to overwrite it), the profile is also written there.
pub(super) fn infer_tool(
    tool: &[String],
    save: Option<(PathBuf, bool)>,
    settings: &ToolSettings<'_>,
    scratch: &Path,
) -> Result<HermeticTool, Failure> {
    let (runs_cwd, explore_cwd) = (scratch.join("cwd"), scratch.join("explore"));
    for dir in [&runs_cwd, &explore_cwd] {
        std::fs::create_dir_all(dir).map_err(|e| {
            Failure::tool(
                "IO_ERROR",
                format!("cannot make {}: {e}", dir.display()),
                "check that the temporary directory is writable",
            )
        })?;
    }
    let network = if settings.inherit_network {
        Network::Inherited
    } else {
        Network::BlackHole
    };
    let mut hermetic = Hermetic::new(std::env::vars_os(), &[], network, runs_cwd);
    let environment: Vec<(String, String)> = std::env::vars()
        .filter(|(name, _)| !hermetic.unset.contains(name))
        .collect();
    let exploration = Exploration {
        unset: hermetic.unset.clone(),
        scratch: explore_cwd,
        settings: ExploreSettings {
            mutating_gaps: hermetic.gaps(&environment),
            allow_destructive: settings.allow_destructive,
            budget: settings.budget,
        },
        progress: settings.progress.clone(),
    };
    let (output, yes) = match save {
        Some((path, yes)) => (Some(path), yes),
        None => (None, false),
    };
    let init_request = init::Request {
        tool: absolute_arguments(tool),
        source: Source::Auto,
        timeout_seconds: settings.timeout_seconds,
        output,
        yes,
        dry_run: false,
        cancel: settings.cancel.clone(),
    };
    let mut inferred = infer(&init_request, &exploration, settings.allow_destructive)?;
    let generated = &inferred.generated;
    hermetic.unset.extend(generated.secret_vars.iter().cloned());
    hermetic.unset.sort();
    hermetic.unset.dedup();
    hermetic.unknown_command = generated.lists_subcommands;
    hermetic.stdin_by_design = generated
        .warnings
        .iter()
        .filter(|warning| warning.code == init::READS_STDIN)
        .filter_map(|warning| {
            let argv = serde_json::from_value(warning.context["argv"].clone()).ok()?;
            let line = warning.context["help"].as_str()?.to_string();
            Some((argv, line))
        })
        .collect();
    if generated.help_unread {
        let command = &inferred.loaded.profile.command;
        let args = command
            .iter()
            .skip(1)
            .cloned()
            .chain(["--help".to_string()]);
        hermetic.open_help = Some(args.collect());
    }
    hermetic.explored = std::sync::Arc::new(std::mem::take(&mut inferred.generated.explored));
    hermetic.looked = std::sync::Arc::new(std::mem::take(&mut inferred.generated.looked));
    inferred.loaded.dir = hermetic.cwd.clone();
    let census = census(&inferred.generated, &inferred.not_run);
    Ok(HermeticTool {
        inferred,
        hermetic,
        census,
    })
}

/// The tool's leading arguments that name files here, made absolute: runs are
/// made from a scratch directory (`conform check -- node ./cli.js`).
fn absolute_arguments(tool: &[String]) -> Vec<String> {
    let Ok(cwd) = std::env::current_dir() else {
        return tool.to_vec();
    };
    tool.iter()
        .enumerate()
        .map(|(index, arg)| {
            let path = Path::new(arg);
            if index > 0 && !arg.starts_with('-') && path.is_relative() && cwd.join(path).exists() {
                cwd.join(path).display().to_string()
            } else {
                arg.clone()
            }
        })
        .collect()
}

/// What exploration found; for a manifest, its probes and the destructive ones
/// not run.
fn census(generated: &Generated, not_run: &[Value]) -> Census {
    if let Some(census) = &generated.census {
        return census.clone();
    }
    let mut census = Census::default();
    for probe in generated.profile["probes"].as_array().into_iter().flatten() {
        let name = probe["name"].as_str().unwrap_or("?").to_string();
        if probe["kind"] == "invalid" {
            continue;
        }
        census.found.push(name.clone());
        if not_run.iter().any(|n| n["probe"] == probe["name"]) {
            census.left_out(&name, "destructive: runs only with --allow-destructive");
        } else {
            census.probed.push(name);
        }
    }
    for probe in &generated.check_only {
        let name = probe["name"].as_str().unwrap_or("?").to_string();
        census.found.push(name.clone());
        census.probed.push(name.clone());
        census.check_only.push(name);
    }
    census
}

/// The inferred profile, what runs of it, and what does not.
pub(super) struct Inferred {
    pub generated: Generated,
    /// The profile that runs: the inferred one less the destructive probes, unless
    /// they are allowed.
    pub loaded: LoadedProfile,
    /// `{probe, argv, reason}` of each destructive probe left out.
    pub not_run: Vec<Value>,
    pub saved: Option<PathBuf>,
}

fn infer(
    request: &init::Request,
    exploration: &Exploration,
    allow_destructive: bool,
) -> Result<Inferred, Failure> {
    let overwrites = match &request.output {
        Some(path) => init::check_destination(path, request)?,
        None => false,
    };
    let mut generated = init::generate_with(request, Some(exploration))?;
    destructive_last(&mut generated);
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
    let (mut run, not_run) = if allow_destructive {
        (generated.profile.clone(), Vec::new())
    } else {
        without_destructive(&generated.profile)
    };
    // The probes the run shares with the saved file, at the same indices; the
    // check-only ones come after them and are located at no saved probe.
    let shared = run["probes"].as_array().map_or(0, Vec::len);
    if let Some(probes) = run["probes"].as_array_mut() {
        probes.extend(generated.check_only.iter().cloned());
    }
    if run["probes"].as_array().is_none_or(Vec::is_empty) {
        return Err(Failure::input(
            "NOTHING_TO_RUN",
            "every probe inferred for the tool is destructive, and destructive probes run only with --allow-destructive",
            "pass --allow-destructive to run them (without confirmation, then with their dry-run flag), or write a profile by hand",
        ));
    }
    let saved_text = request.output.as_ref().map(|_| generated.text.as_str());
    Ok(Inferred {
        loaded: load(
            &run,
            &generated.dir,
            request,
            saved_text.map(|text| (text, shared)),
        )?,
        not_run,
        saved: request.output.clone(),
        generated,
    })
}

/// The destructive probes moved to the end of the profile: leaving them out of the
/// run then keeps every other probe at its index in the saved file, where reports
/// point.
fn destructive_last(generated: &mut Generated) {
    let Some(probes) = generated.profile["probes"].as_array_mut() else {
        return;
    };
    let is_destructive = |p: &Value| p["kind"] == "destructive";
    if !probes.iter().any(is_destructive) {
        return;
    }
    let (destructive, other): (Vec<Value>, Vec<Value>) = probes.drain(..).partition(is_destructive);
    probes.extend(other);
    probes.extend(destructive);
    generated.text = render_profile(&generated.profile);
}

/// The profile document `run` as a loaded profile whose runs are made from `dir`;
/// reports point into `saved` (the saved profile's text, whose first probes are
/// the run's first ones, so many), else at `check:TOOL`.
fn load(
    run: &Value,
    dir: &Path,
    request: &init::Request,
    saved: Option<(&str, usize)>,
) -> Result<LoadedProfile, Failure> {
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
    let (path, locations) = match (&request.output, saved) {
        (Some(path), Some((saved, shared))) => (
            path.clone(),
            Locations::scan(saved).without_probes_from(shared),
        ),
        _ => (
            PathBuf::from(format!(
                "{}{}",
                profile::INFERRED_PATH_PREFIX,
                request.tool.join(" ")
            )),
            Locations::scan(&text),
        ),
    };
    Ok(LoadedProfile {
        path,
        dir: dir.to_path_buf(),
        profile,
        program,
        locations,
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
fn summary(
    generated: &Generated,
    not_run: &[Value],
    saved: Option<&Path>,
    census: &Census,
    hermetic: &Hermetic,
) -> String {
    let probes = generated.profile["probes"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    // Discovery fell short: said first, as plainly as a failure.
    let mut text = census
        .shortfall()
        .map(|short| format!("Commands: {short}\n"))
        .unwrap_or_default();
    text += &format!(
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
    // The help gave nothing to read: say so before the one probe it leaves.
    for warning in generated
        .warnings
        .iter()
        .filter(|w| w.code == "HELP_UNREAD")
    {
        text.push_str(&format!("  help unread  {}\n", warning.message));
    }
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
    for probe in &generated.check_only {
        text.push_str(&format!(
            "  {:<12} {}  (check only: it mutates, so it runs in fresh sandboxes and is never saved)\n",
            probe["kind"].as_str().unwrap_or("?"),
            probe["name"].as_str().unwrap_or("?"),
        ));
    }
    text.push_str(&format!(
        "Commands: {}{} found, {} run as probes ({} check only), {} left out\n",
        if census.named > 0 {
            format!("the help names about {}; ", census.named)
        } else {
            String::new()
        },
        census.found.len(),
        census.probed.len(),
        census.check_only.len(),
        census.left.len()
    ));
    for left in &census.left {
        text.push_str(&format!("  left out  {}: {}\n", left.command, left.reason));
    }
    text.push_str(&format!(
        "Hermetic: isolated sandbox, scratch working directory, network {}, {}\n",
        if hermetic.network == Network::BlackHole {
            format!("at a black hole ({})", crate::exec::isolation().label())
        } else {
            "inherited (--network inherit)".to_string()
        },
        if hermetic.unset.is_empty() {
            "no credential variable to unset".to_string()
        } else {
            format!("unset: {}", hermetic.unset.join(", "))
        }
    ));
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
    // Nothing ran: the --sarif file says why, located at the tool named.
    let reason = Violation::new("", failure.message.clone(), failure.fix.clone());
    let tool = request.tool.first().cloned().unwrap_or_default();
    write_sarif_of_nothing_run(&request.run, &[(tool, vec![reason])]);
    let detail = super::failure_detail(failure);
    if !out.json {
        eprintln!("conform: {}", detail.message);
        eprintln!("fix: {}", detail.fix_required.as_deref().unwrap_or(""));
        return status;
    }
    report_error(status, detail, Value::Null, out.json, out.started)
}
