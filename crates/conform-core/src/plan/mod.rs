//! Planning: the runs each check needs, made once each and shared between checks.
//!
//! A plan is a list of runs with dependencies. A probe's stdin-closed run comes first;
//! its other runs wait for it and are not made when it hit the limit (as in the
//! reference kit). A second preview waits for the first (a preview that acts must be
//! seen to change state), and argument-order runs wait for every destructive run, so
//! that a tool that deletes without confirmation does so before the runs that compare
//! data between placements, whatever `--jobs` is.
//!
//! What a kind of run is lives in [`kind`]; this module turns the kinds the selected
//! checks read into runs: a probe's runs in `probe.rs`, the argument-order runs in
//! `order.rs`.

mod derive;
mod injection;
mod kind;
mod order;
mod probe;

use std::collections::BTreeSet;
use std::time::Duration;

use crate::exec::{Output, RunSpec, StdinMode};
use crate::profile::{LoadedProfile, ProbeKind};

pub(crate) use derive::{
    capped_stdin_commands, duration_of, prefixes, timeout_value, Derived, BAD_CURSOR, GENERIC_ENV,
    SIZE_CAP_FROM, TIMEOUT_SLACK,
};
pub(crate) use kind::{
    KitRun, OrderRun, Placement, RunKind, RunRole, Subject, GERMAN_LOCALE, HALLUCINATED, INJECTED,
    METACHARACTERS, PAGER_PROGRAMS,
};
pub(crate) use probe::UNKNOWN_FLAG;

/// Index of a run in [`Plan::runs`].
pub(crate) type RunIndex = usize;

/// One run to make.
#[derive(Debug, Clone)]
pub(crate) struct PlannedRun {
    /// The label evidence shows (`probe` in the result).
    pub label: String,
    pub role: RunRole,
    pub spec: RunSpec,
    /// Runs that must finish first.
    pub after: Vec<RunIndex>,
    /// When this run hit its limit, the run is not made (the probe's closed run).
    pub gate: Option<RunIndex>,
    /// A run completed from earlier runs' records when it becomes ready.
    pub derived: Option<Derived>,
    /// For a run with stdin open, when the command's help says it reads stdin (the
    /// help's line, as `conform check` read it): a wait on that stdin is asked for.
    pub stdin_by_design: Option<String>,
    /// Its record exists already: the pool hands it over instead of making the run.
    pub made: Option<Made>,
}

/// A run whose record exists before the pool would make it: a run is data, and
/// the same run made twice shows nothing more.
#[derive(Debug, Clone)]
pub(crate) enum Made {
    /// Made before the plan, the same way (`conform check`'s exploration run of a
    /// command is the survey's stdin-closed run of its probe).
    Before(Box<crate::exec::RunRecord>),
    /// The same run as this plan's run at that index, which it waits for
    /// (`conform check`'s stdin-open run of a probe is its headless run).
    SameAs(RunIndex),
}

/// Every run for one profile.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub runs: Vec<PlannedRun>,
}

/// Options that shape every run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunOptions {
    pub capture_limit: usize,
}

/// What happened to each planned run, by plan index: `None` when it was not made
/// because its gate run hit the limit, or conform was cancelled first.
pub(crate) type Records = Vec<Option<crate::exec::RunRecord>>;

/// Which probes get which runs: every kind the checks read (depth), only the
/// survey's kinds, or none. Empty (the default): every probe in depth.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Scope {
    /// Probes (by index) given only the [`SURVEY`] kinds.
    pub survey_only: BTreeSet<usize>,
    /// Probes given no run at all: not surveyed.
    pub skipped: BTreeSet<usize>,
}

/// The kinds of run a probe gets in `conform check`'s survey: the runs that show
/// what differs from command to command (a wait on an open or closed stdin, a
/// prompt, a browser, editor or pager, a login asked for, the network, state
/// written in a fresh HOME); every run under check is made at the black hole with
/// the editor and browser sentinels. Under `check` the closed run is the
/// exploration run and the open run is the headless one (`explore/survey.rs`), so a
/// surveyed command costs its help call and two runs. The terminal run (colour
/// and a pager on a terminal, which no agent has) is depth's.
pub(crate) const SURVEY: [RunKind; 4] = [
    RunKind::Closed,
    RunKind::Open,
    RunKind::Headless,
    RunKind::BlackHole,
];

/// Plan the runs of `kinds` (the kinds the selected checks read) and of the kinds
/// those bring along.
#[cfg(test)]
pub(crate) fn plan(loaded: &LoadedProfile, kinds: &BTreeSet<RunKind>, options: RunOptions) -> Plan {
    plan_scoped(loaded, kinds, options, &Scope::default())
}

/// As [`plan`], each probe given the runs `scope` says.
pub(crate) fn plan_scoped(
    loaded: &LoadedProfile,
    kinds: &BTreeSet<RunKind>,
    options: RunOptions,
    scope: &Scope,
) -> Plan {
    let mut needs = kinds.clone();
    needs.extend(kinds.iter().flat_map(|k| k.brings()));
    // A survey-only probe's kinds: the survey's, and what they bring along.
    let mut survey: BTreeSet<RunKind> = needs
        .iter()
        .copied()
        .filter(|kind| SURVEY.contains(kind))
        .collect();
    survey.extend(survey.clone().iter().flat_map(|k| k.brings()));
    let needs_of = |index: usize| {
        if scope.survey_only.contains(&index) {
            &survey
        } else {
            &needs
        }
    };
    let mut planner = Planner {
        loaded,
        options,
        runs: Vec::new(),
    };
    let mut destructive_runs = Vec::new();
    let mut closed_runs = Vec::new();
    for (index, probe) in loaded.profile.probes.iter().enumerate() {
        if scope.skipped.contains(&index) {
            continue;
        }
        match probe.kind {
            // A stream has no survey of its own: its runs are few, and all its.
            ProbeKind::Stream => planner.stream(index, probe, &needs),
            _ if needs.contains(&RunKind::Closed) => {
                let runs = planner.probe(index, probe, needs_of(index));
                if let Some(&closed) = runs.first() {
                    closed_runs.push((index, probe, closed));
                }
                if probe.kind == ProbeKind::Destructive {
                    destructive_runs.extend(runs);
                }
            }
            _ => {}
        }
    }
    planner.unknown(&needs);
    let mut help_run = None;
    if needs.contains(&RunKind::Help) {
        let spec = planner.spec(vec!["--help".into()]);
        let role = RunRole::command(RunKind::Help);
        help_run = Some(planner.add("--help".into(), role, spec, vec![], None));
    }
    if needs.contains(&RunKind::CommandHelp) {
        planner.command_helps(scope);
    }
    let mut manifest_run = None;
    if let (true, Some(manifest)) = (needs.contains(&RunKind::Manifest), &loaded.profile.manifest) {
        let spec = planner.spec(manifest.clone());
        let role = RunRole::command(RunKind::Manifest);
        manifest_run = Some(planner.add("manifest".into(), role, spec, vec![], None));
    }
    if let Some(order) = &loaded.profile.argument_order {
        planner.argument_order(order, &needs, &destructive_runs);
    }
    if needs.contains(&RunKind::Metachar) {
        planner.metacharacters();
    }
    if let (true, Some(manifest)) = (
        needs.contains(&RunKind::PayloadOver) || needs.contains(&RunKind::PayloadHalf),
        manifest_run,
    ) {
        planner.payloads(manifest, &needs);
    }
    let earlier = probe::Earlier {
        manifest: manifest_run,
        help: help_run,
        argvs: loaded
            .profile
            .probes
            .iter()
            .map(|p| p.argv.clone())
            .collect(),
    };
    for (index, probe, closed) in closed_runs {
        planner.derived(index, probe, closed, earlier.clone(), needs_of(index));
    }
    if needs.contains(&RunKind::KitIsolated) {
        for kit in KitRun::ALL {
            let argv = kit.argv().iter().map(|a| a.to_string()).collect();
            let spec = planner.shaped(argv, RunKind::Isolated);
            let label = format!("{} (isolated)", kit.name());
            let role = RunRole {
                kind: RunKind::KitIsolated,
                subject: Subject::Kit(kit),
            };
            planner.add(label, role, spec, vec![], None);
        }
    }
    if needs.contains(&RunKind::BareOpen) {
        let spec = RunSpec {
            stdin: StdinMode::Open,
            ..planner.shaped(Vec::new(), RunKind::Isolated)
        };
        let label = format!("{} (isolated, stdin open)", KitRun::Bare.name());
        let role = RunRole {
            kind: RunKind::BareOpen,
            subject: Subject::Kit(KitRun::Bare),
        };
        planner.add(label, role, spec, vec![], None);
    }
    Plan { runs: planner.runs }
}

/// Builds the run list. Every run starts as a stdin-closed run of the profile's
/// command with the profile's limit; each kind of run changes what differs.
struct Planner<'p> {
    loaded: &'p LoadedProfile,
    options: RunOptions,
    runs: Vec<PlannedRun>,
}

impl Planner<'_> {
    fn spec(&self, argv: Vec<String>) -> RunSpec {
        let profile = &self.loaded.profile;
        RunSpec {
            program: self.loaded.program.clone(),
            args: profile
                .command
                .iter()
                .skip(1)
                .cloned()
                .chain(argv)
                .collect(),
            cwd: self.loaded.dir.clone(),
            env_set: Vec::new(),
            env_remove: Vec::new(),
            stdin: StdinMode::Closed,
            limit: Duration::from_secs_f64(profile.timeout_seconds),
            capture_limit: self.options.capture_limit,
            stream: false,
            trigger: None,
            output: Output::Pipes,
            sandbox: None,
            network: crate::exec::Network::Inherited,
            patience: None,
            namespace: None,
        }
    }

    /// `argv` run as `kind`'s [`kind::Shape`] says.
    fn shaped(&self, argv: Vec<String>, kind: RunKind) -> RunSpec {
        let mut base = self.spec(argv);
        let Some(shape) = kind.shape() else {
            return base;
        };
        for (flag, value) in shape.flags {
            derive::set_flag(&mut base.args, flag, value);
        }
        let mut env_set: Vec<(String, String)> = shape
            .env_set
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if let Some(name) = shape.per_prefix {
            let profile = &self.loaded.profile;
            let mut names = vec![format!("TOOL_{name}")];
            for prefix in prefixes(&profile.tool, &profile.command) {
                let full = format!("{prefix}_{name}");
                if !names.contains(&full) {
                    names.push(full);
                }
            }
            env_set.extend(names.into_iter().map(|full| (full, String::new())));
        }
        RunSpec {
            stdin: shape.stdin,
            env_set,
            env_remove: shape.env_remove.iter().map(|v| v.to_string()).collect(),
            output: shape.output,
            sandbox: shape.sandbox.map(|make| make()),
            network: shape.network,
            // The run network_timeout made to see the tool at the black hole is
            // let go on until it gives up by itself.
            patience: (kind == RunKind::BlackHole).then_some(crate::exec::NETWORK_PATIENCE),
            ..base
        }
    }

    fn add(
        &mut self,
        label: String,
        role: RunRole,
        spec: RunSpec,
        after: Vec<RunIndex>,
        gate: Option<RunIndex>,
    ) -> RunIndex {
        self.runs.push(PlannedRun {
            label,
            role,
            spec,
            after,
            gate,
            derived: None,
            stdin_by_design: None,
            made: None,
        });
        self.runs.len() - 1
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{self, CheckId};
    use crate::exec::{Signal, Trigger, TriggerAction};

    fn plan(p: &LoadedProfile, checks: &BTreeSet<CheckId>, options: RunOptions) -> Plan {
        super::plan(p, &checks::reads(checks), options)
    }
    use crate::profile::{parse, Locations, CONFIRMATION_FLAGS};

    fn loaded(text: &str) -> LoadedProfile {
        let dir = std::env::temp_dir();
        let (profile, program) = parse(text, &dir).expect("valid profile");
        LoadedProfile {
            path: dir.join("p.json"),
            dir,
            profile,
            program,
            locations: Locations::scan(text),
        }
    }

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh", "-c", "exit 0", "sh"], "timeout_seconds": 5,
        "manifest": ["manifest"],
        "argument_order": { "command_path": ["list"], "local_args": ["--limit", "1"], "global_flag": "--format", "value": "json", "alternate_value": "plain", "positional": "p" },
        "probes": [
            { "name": "read", "argv": ["list"], "kind": "read" },
            { "name": "delete", "argv": ["delete", "x"], "kind": "destructive", "dry_run_flag": "--dry-run" },
            { "name": "watch", "argv": ["watch"], "kind": "stream", "signal": "INT", "after_lines": 2 }
        ]
    }"#;

    fn order_role(run: OrderRun) -> RunRole {
        RunRole {
            kind: RunKind::ArgumentOrder,
            subject: Subject::Order(run),
        }
    }

    #[test]
    fn the_planner_makes_every_kind_of_run() {
        // A profile with every kind of probe, every check selected: a kind the
        // planner does not know would be missing here.
        let p = loaded(PROFILE);
        let plan = plan(&p, &CheckId::all(), options());
        for kind in RunKind::ALL {
            assert!(
                plan.runs.iter().any(|r| r.role.kind == kind),
                "no {kind:?} run planned"
            );
        }
        for kind in RunKind::ALL {
            let reads = CheckId::all()
                .into_iter()
                .any(|check| check.spec().reads.contains(&kind));
            assert!(reads, "no check reads {kind:?}");
        }
    }

    #[test]
    fn every_terminal_run_has_the_pager_editor_and_browser_sentinels() {
        let p = loaded(PROFILE);
        let plan = plan(&p, &CheckId::all(), options());
        let terminal: Vec<&PlannedRun> = plan
            .runs
            .iter()
            .filter(|r| !r.role.kind.on_pipes())
            .collect();
        assert_eq!(terminal.len(), 3, "terminal, CI-terminal, narrow terminal");
        for run in terminal {
            let sandbox = run.spec.sandbox.as_ref();
            assert!(
                sandbox.is_some_and(|s| !s.fresh_dirs
                    && ["PAGER", "GIT_PAGER", "EDITOR", "BROWSER"]
                        .iter()
                        .all(|v| s.sentinel_vars.contains(v))
                    && ["less", "more", "xdg-open"]
                        .iter()
                        .all(|n| s.shims.contains(n))),
                "{}: {sandbox:?}",
                run.label
            );
        }
    }

    #[test]
    fn headless_runs_unset_the_manifests_secrets_and_per_variable_runs_follow_a_difference() {
        let p = loaded(PROFILE);
        let plan = plan(&p, &CheckId::all(), options());
        let at = |role: RunRole| {
            plan.runs
                .iter()
                .position(|r| r.role == role)
                .expect("planned")
        };
        let envelope = |data: &str, ms: u32| {
            format!(r#"{{"ok":true,"data":{data},"error":null,"meta":{{"duration_ms":{ms}}}}}"#)
        };
        let record = |run: RunIndex, stdout: String| {
            let mut record = crate::exec::RunRecord::new(&plan.runs[run].spec);
            record.exit = crate::exec::Exit::Code(0);
            record.stdout.bytes = stdout.into_bytes();
            record
        };
        let mut records: Records = vec![None; plan.runs.len()];
        let manifest = at(RunRole::command(RunKind::Manifest));
        records[manifest] = Some(record(
            manifest,
            envelope(
                r#"{"secret_env_vars":["T_KEY"],"env_vars":[{"name":"DEBUG","description":"d"}],
                   "commands":{"list":{"token_env_vars":["T_TOKEN"]},"other":{"secret_env_vars":["T_OTHER"]}}}"#,
                0,
            ),
        ));
        let closed = at(RunRole::probe(RunKind::Closed, 0));
        records[closed] = Some(record(closed, envelope("[1]", 0)));
        let complete = |run: &PlannedRun, records: &Records| {
            let derived = run.derived.as_ref().expect("a derived run");
            let manifest = derived
                .manifest
                .and_then(|i| records[i].as_ref())
                .and_then(|record| crate::manifest::data_of(&record.stdout.bytes));
            derived.spec(&run.spec, records, manifest.as_ref())
        };

        // The headless run: the root secret and the command's token, not another
        // command's secret; isolated with stdin open.
        let headless = &plan.runs[at(RunRole::probe(RunKind::Headless, 0))];
        let spec = complete(headless, &records).expect("always made");
        for name in ["T_KEY", "T_TOKEN", "DISPLAY"] {
            assert!(
                spec.env_remove.iter().any(|n| n == name),
                "{name}: {spec:?}"
            );
        }
        assert!(!spec.env_remove.iter().any(|n| n == "T_OTHER"));
        assert!(
            headless.spec.env_remove.iter().all(|n| n != "T_KEY"),
            "only once derived"
        );
        assert_eq!(spec.stdin, StdinMode::Open);
        assert!(spec.sandbox.is_some_and(|s| s.fresh_dirs));

        // The run with every generic variable leaves out the declared DEBUG.
        let all = at(RunRole::probe(RunKind::GenericEnv, 0));
        let spec = complete(&plan.runs[all], &records).expect("made");
        let set: Vec<&str> = spec.env_set.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(set, ["VERBOSE", "LOG_LEVEL", "FORMAT", "OUTPUT"]);
        let mut with_all = crate::exec::RunRecord::new(&spec);
        with_all.exit = crate::exec::Exit::Code(0);
        // Only meta differs: no per-variable run.
        with_all.stdout.bytes = envelope("[1]", 7).into_bytes();
        records[all] = Some(with_all);
        let each: Vec<&PlannedRun> = plan
            .runs
            .iter()
            .filter(|r| r.role == RunRole::probe(RunKind::GenericEnvEach, 0))
            .collect();
        assert_eq!(each.len(), derive::GENERIC_ENV.len());
        assert!(each.iter().all(|run| complete(run, &records).is_none()));
        // A debug line on stderr: one run per variable that was set.
        if let Some(with_all) = records[all].as_mut() {
            with_all.stderr.bytes = b"debug: reading config\n".to_vec();
        }
        let made: Vec<String> = each
            .iter()
            .filter_map(|run| complete(run, &records))
            .map(|spec| spec.env_set[0].0.clone())
            .collect();
        assert_eq!(made, ["VERBOSE", "LOG_LEVEL", "FORMAT", "OUTPUT"]);
    }

    fn options() -> RunOptions {
        RunOptions {
            capture_limit: 1024,
        }
    }

    #[test]
    fn destructive_runs_are_the_argv_as_given_or_with_the_preview_flag_never_confirmed() {
        let p = loaded(PROFILE);
        let plan = plan(&p, &CheckId::all(), options());
        let prefix = ["-c", "exit 0", "sh"];
        let destructive: Vec<&PlannedRun> = plan
            .runs
            .iter()
            .filter(|r| {
                r.role.probe_index() == Some(1)
                    && matches!(
                        r.role.kind,
                        RunKind::Closed
                            | RunKind::Open
                            | RunKind::NoColor
                            | RunKind::Preview
                            | RunKind::SecondPreview
                    )
            })
            .collect();
        assert_eq!(
            destructive.len(),
            5,
            "closed, open, no-color and two previews"
        );
        for run in &plan.runs {
            assert!(
                run.spec
                    .args
                    .iter()
                    .all(|a| !CONFIRMATION_FLAGS.contains(&a.as_str())),
                "{:?}",
                run.spec.args
            );
            assert_eq!(
                &run.spec.args[..3],
                prefix,
                "the command prefix comes first"
            );
        }
        for run in destructive {
            let tail: Vec<&str> = run.spec.args[3..].iter().map(String::as_str).collect();
            match run.role.kind {
                RunKind::Preview | RunKind::SecondPreview => {
                    assert_eq!(tail, ["delete", "x", "--dry-run"])
                }
                _ => assert_eq!(tail, ["delete", "x"]),
            }
        }
    }

    #[test]
    fn follow_up_runs_wait_for_their_gate_and_order_runs_wait_for_destructive_runs() {
        let p = loaded(PROFILE);
        let plan = plan(&p, &CheckId::all(), options());
        let index = |role: RunRole| {
            plan.runs
                .iter()
                .position(|r| r.role == role)
                .expect("planned")
        };
        let closed = index(RunRole::probe(RunKind::Closed, 1));
        let first = index(RunRole::probe(RunKind::Preview, 1));
        let second = index(RunRole::probe(RunKind::SecondPreview, 1));
        assert_eq!(plan.runs[first].gate, Some(closed));
        assert_eq!(
            plan.runs[second].after,
            vec![first],
            "the second preview sees what the first did"
        );
        let conflict = index(order_role(OrderRun::Conflict));
        for destructive in [closed, first, second] {
            assert!(plan.runs[conflict].after.contains(&destructive));
        }
        let stream = &plan.runs[index(RunRole::probe(RunKind::Stream, 2))];
        assert!(stream.spec.stream);
        assert_eq!(
            stream.spec.trigger,
            Some(Trigger {
                after_lines: 2,
                action: TriggerAction::Signal(Signal::SIGINT)
            })
        );
        assert_eq!(stream.label, "watch (SIGINT after 2 lines)");
    }

    #[test]
    fn every_run_points_at_the_profile_entry_it_comes_from() {
        let p = loaded(PROFILE);
        let plan = plan(&p, &CheckId::all(), options());
        let at = |role: RunRole| {
            let run = plan.runs.iter().find(|r| r.role == role).expect("planned");
            let pointer = run.role.pointer();
            let at = p.locations.locate(&pointer);
            (pointer, at)
        };
        let pointed = |pointer: &str, at: (usize, usize)| (pointer.to_string(), Some(at));
        assert_eq!(
            at(RunRole::probe(RunKind::Closed, 1)),
            pointed("/probes/1", (7, 13))
        );
        assert_eq!(
            at(RunRole::probe(RunKind::Stream, 2)),
            pointed("/probes/2", (8, 13))
        );
        assert_eq!(
            at(RunRole::command(RunKind::Help)),
            pointed("/command", (2, 47))
        );
        assert_eq!(
            at(RunRole::command(RunKind::Manifest)),
            pointed("/manifest", (3, 9))
        );
        assert_eq!(
            at(order_role(OrderRun::Conflict)),
            pointed("/argument_order", (4, 9))
        );
    }

    #[test]
    fn a_survey_only_probe_gets_the_survey_runs_and_a_skipped_one_none() {
        let p = loaded(PROFILE);
        let kinds = checks::reads(&CheckId::all());
        let scope = Scope {
            survey_only: [0].into_iter().collect(),
            skipped: [1].into_iter().collect(),
        };
        let scoped = plan_scoped(&p, &kinds, options(), &scope);
        let of = |probe: usize| -> BTreeSet<RunKind> {
            scoped
                .runs
                .iter()
                .filter(|r| r.role.probe_index() == Some(probe))
                .map(|r| r.role.kind)
                .collect()
        };
        // The made-up flag goes on the first read probe whatever its scope.
        let expected: BTreeSet<RunKind> =
            SURVEY.into_iter().chain([RunKind::UnknownFlag]).collect();
        assert_eq!(of(0), expected);
        assert!(of(1).is_empty(), "{:?}", of(1));
        // A stream has no survey: its runs are all its own.
        let whole = plan(&p, &CheckId::all(), options());
        let streams = |plan: &Plan| {
            plan.runs
                .iter()
                .filter(|r| r.role.probe_index() == Some(2))
                .count()
        };
        assert_eq!(streams(&scoped), streams(&whole));
        // The profile-wide runs stay.
        assert!(scoped.runs.iter().any(|r| r.role.kind == RunKind::Help));
    }

    #[test]
    fn only_the_runs_the_selected_checks_need_are_planned() {
        let p = loaded(PROFILE);
        let only: BTreeSet<CheckId> = [CheckId::ManifestValid].into_iter().collect();
        let planned = plan(&p, &only, options());
        assert_eq!(planned.runs.len(), 1);
        assert_eq!(planned.runs[0].role, RunRole::command(RunKind::Manifest));
        let order: BTreeSet<CheckId> = [CheckId::ArgumentOrder].into_iter().collect();
        // 3 placements x 2 values, the conflict, 3 positional runs.
        assert_eq!(plan(&p, &order, options()).runs.len(), 10);
    }
}
