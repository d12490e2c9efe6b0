//! A probe's runs: a read, invalid or destructive probe's stdin-closed run and the
//! runs gated on it, a stream probe's runs, and the kit's made-up command and flag.

use std::collections::BTreeSet;
use std::time::Duration;

use super::derive::{self, Derived};
use super::kind::{RunKind, RunRole};
use super::{plural, Planner, RunIndex};

/// The profile-wide runs and facts a probe's derived runs may read.
#[derive(Debug, Clone)]
pub(super) struct Earlier {
    pub manifest: Option<RunIndex>,
    /// The `--help` run, when planned.
    pub help: Option<RunIndex>,
    /// Every probe's argv.
    pub argvs: Vec<Vec<String>>,
}
use crate::exec::{RunSpec, Signal, Trigger, TriggerAction};
use crate::profile::{Probe, ProbeKind};

/// The command word no tool has: `unknown_command_exit_2` runs `command` + it.
const UNKNOWN_COMMAND: &str = "conform-no-such-command";
/// The flag no tool has, appended to the first read probe's argv.
pub(crate) const UNKNOWN_FLAG: &str = "--conform-no-such-flag";
/// The flag a command's help run adds after its path.
const HELP: &str = "--help";

/// The kinds made from a read, invalid or destructive probe, in the order they are
/// planned (and reported): the stdin-closed run first, the others gated on it.
const PROBE_KINDS: [RunKind; 12] = [
    RunKind::Closed,
    RunKind::Open,
    RunKind::Locale,
    RunKind::NoColor,
    RunKind::Preview,
    RunKind::SecondPreview,
    RunKind::Isolated,
    RunKind::Terminal,
    RunKind::CiTerminal,
    RunKind::Narrow,
    RunKind::BlackHole,
    RunKind::SelfUpdate,
];

/// The kinds derived from a probe's earlier runs and the manifest run, planned
/// after both (`derive.rs`), in this order.
const DERIVED_KINDS: [RunKind; 10] = [
    RunKind::SizeCap,
    RunKind::Headless,
    RunKind::PageLimit,
    RunKind::PageNext,
    RunKind::PageBadCursor,
    RunKind::TimeoutBlackHole,
    RunKind::GenericEnv,
    RunKind::GenericEnvEach,
    RunKind::Canary,
    RunKind::DebugCanary,
];

/// The switches of the debug runs, each added to a canary run: variables, or a
/// flag added last (made only where the tool lists it). `PREFIX_DEBUG` is set
/// under every prefix of the tool's names.
const DEBUG_SWITCHES: [DebugSwitch; 5] = [
    DebugSwitch::Env("DEBUG", "1"),
    DebugSwitch::Env("LOG_LEVEL", "debug"),
    DebugSwitch::PerPrefix("DEBUG", "1"),
    DebugSwitch::Flag(derive::DEBUG_FLAGS[0]),
    DebugSwitch::Flag(derive::DEBUG_FLAGS[1]),
];

#[derive(Debug, Clone, Copy)]
enum DebugSwitch {
    Env(&'static str, &'static str),
    PerPrefix(&'static str, &'static str),
    Flag(&'static str),
}

/// The derived kinds that read the manifest alone decides: without a manifest
/// command in the profile they are never made.
const NEED_A_MANIFEST: [RunKind; 4] = [
    RunKind::PageLimit,
    RunKind::PageNext,
    RunKind::PageBadCursor,
    RunKind::TimeoutBlackHole,
];

/// A changed run's label: the probe's name and, in parentheses, what changed.
fn shaped_label(probe: &Probe, change: Option<&str>) -> String {
    match change {
        Some(change) => format!("{} ({change})", probe.name),
        None => probe.name.clone(),
    }
}

/// The label of a stream probe's run as its profile entry makes it.
fn stream_label(probe: &Probe) -> String {
    match probe.interrupt() {
        Some((signal, n)) => format!(
            "{} ({} after {n} line{})",
            probe.name,
            signal.as_str(),
            plural(n)
        ),
        None => probe.name.clone(),
    }
}

impl Planner<'_> {
    /// A read, invalid or destructive probe: its stdin-closed run, then the runs that
    /// wait for it. Returns every run planned for the probe.
    pub(super) fn probe(
        &mut self,
        index: usize,
        probe: &Probe,
        needs: &BTreeSet<RunKind>,
    ) -> Vec<RunIndex> {
        let mut planned: Vec<RunIndex> = Vec::new();
        let mut closed = None;
        let mut first_preview = None;
        for kind in PROBE_KINDS.into_iter().filter(|kind| needs.contains(kind)) {
            let role = RunRole::probe(kind, index);
            // Every kind but the closed run waits for it and is gated on it.
            let (after, gate) = match closed {
                Some(closed) => (vec![closed], Some(closed)),
                None => (vec![], None),
            };
            let run = match kind {
                RunKind::Preview | RunKind::SecondPreview => {
                    let Some(flag) = probe
                        .dry_run_flag
                        .as_ref()
                        .filter(|_| probe.kind == ProbeKind::Destructive)
                    else {
                        continue;
                    };
                    let argv: Vec<String> =
                        probe.argv.iter().cloned().chain([flag.clone()]).collect();
                    let label = format!("{} {flag}", probe.name);
                    let spec = self.spec(argv);
                    match (kind, first_preview) {
                        (RunKind::Preview, _) => {
                            let run = self.add(label, role, spec, after, gate);
                            first_preview = Some(run);
                            run
                        }
                        // After the first: a preview that acts must be seen to
                        // change state.
                        (_, Some(first)) => self.add(
                            format!("{label} (second preview)"),
                            role,
                            spec,
                            vec![first],
                            gate,
                        ),
                        (_, None) => continue,
                    }
                }
                _ => {
                    let Some(shape) = kind.shape() else {
                        continue;
                    };
                    if !shape.applies_to.contains(&probe.kind) {
                        continue;
                    }
                    let label = shaped_label(probe, shape.label);
                    let spec = self.shaped(probe.argv.clone(), kind);
                    let run = self.add(label, role, spec, after, gate);
                    if kind == RunKind::Closed {
                        closed = Some(run);
                    }
                    run
                }
            };
            planned.push(run);
        }
        planned
    }

    /// A probe's derived runs, once its stdin-closed run (`closed`) and the manifest
    /// run are planned: each waits for both and is gated on the closed run.
    pub(super) fn derived(
        &mut self,
        index: usize,
        probe: &Probe,
        closed: RunIndex,
        earlier: Earlier,
        needs: &BTreeSet<RunKind>,
    ) {
        let manifest = earlier.manifest;
        let mut all_generic = None;
        for kind in DERIVED_KINDS
            .into_iter()
            .filter(|kind| needs.contains(kind))
        {
            let (Some(shape), Some(make)) = (kind.shape(), derive::make_for(kind)) else {
                // GenericEnvEach: one run per variable, below.
                if kind == RunKind::GenericEnvEach {
                    if let Some(all) = all_generic {
                        self.each_generic(index, probe, closed, manifest, all);
                    }
                }
                if kind == RunKind::DebugCanary && probe.kind == ProbeKind::Read {
                    self.debug_canaries(index, probe, closed, &earlier);
                }
                continue;
            };
            if !shape.applies_to.contains(&probe.kind)
                || (manifest.is_none() && NEED_A_MANIFEST.contains(&kind))
            {
                continue;
            }
            let label = shaped_label(probe, shape.label);
            let mut spec = self.shaped(probe.argv.clone(), kind);
            let mut derived = Derived::of(&probe.argv, closed, manifest, make);
            if kind == RunKind::Canary {
                spec.env_set.extend(self.canary_env());
                derived.others = earlier.argvs.clone();
            }
            let run = self.add_derived(label, RunRole::probe(kind, index), spec, derived);
            if kind == RunKind::GenericEnv {
                all_generic = Some(run);
            }
        }
    }

    /// One run per generic variable, each made only when the run with all of them
    /// (`all`) differed from the baseline.
    fn each_generic(
        &mut self,
        index: usize,
        probe: &Probe,
        closed: RunIndex,
        manifest: Option<RunIndex>,
        all: RunIndex,
    ) {
        let Some(make) = derive::make_for(RunKind::GenericEnvEach) else {
            return;
        };
        for (name, value) in derive::GENERIC_ENV {
            let spec = RunSpec {
                env_set: vec![(name.to_string(), value.to_string())],
                ..self.spec(probe.argv.clone())
            };
            self.add_derived(
                format!("{} ({name}={value} alone)", probe.name),
                RunRole::probe(RunKind::GenericEnvEach, index),
                spec,
                Derived {
                    earlier: Some(all),
                    ..Derived::of(&probe.argv, closed, manifest, make)
                },
            );
        }
    }

    /// The canaries every canary run starts with: `PREFIX_TOKEN`, `PREFIX_API_KEY`
    /// and `PREFIX_SECRET` for every prefix of the tool's names, and the generic
    /// `API_KEY` and `TOKEN` (the manifest's names are added when it is read).
    fn canary_env(&self) -> Vec<(String, String)> {
        let profile = &self.loaded.profile;
        let mut names: Vec<String> = Vec::new();
        for prefix in derive::prefixes(&profile.tool, &profile.command) {
            for suffix in derive::CANARY_SUFFIXES {
                names.push(format!("{prefix}_{suffix}"));
            }
        }
        names.extend(["API_KEY".to_string(), "TOKEN".to_string()]);
        names.dedup();
        names
            .into_iter()
            .map(|name| {
                let value = crate::canary::value_for(&name);
                (name, value)
            })
            .collect()
    }

    /// A read probe's canary run once per debug switch, each completed as a canary
    /// run is; a flag only where `--help` or the manifest lists it.
    fn debug_canaries(&mut self, index: usize, probe: &Probe, closed: RunIndex, earlier: &Earlier) {
        let Some(make) = derive::make_for(RunKind::DebugCanary) else {
            return;
        };
        let profile = &self.loaded.profile;
        let prefixes = derive::prefixes(&profile.tool, &profile.command);
        for switch in DEBUG_SWITCHES {
            let mut spec = self.shaped(probe.argv.clone(), RunKind::Canary);
            spec.env_set.extend(self.canary_env());
            let change = match switch {
                DebugSwitch::Env(name, value) => {
                    spec.env_set.push((name.to_string(), value.to_string()));
                    format!("{name}={value}")
                }
                DebugSwitch::PerPrefix(name, value) => {
                    for prefix in &prefixes {
                        spec.env_set
                            .push((format!("{prefix}_{name}"), value.to_string()));
                    }
                    format!("PREFIX_{name}={value}")
                }
                DebugSwitch::Flag(flag) => {
                    spec.args.push(flag.to_string());
                    flag.to_string()
                }
            };
            self.add_derived(
                format!("{} (canary secrets set, isolated, {change})", probe.name),
                RunRole::probe(RunKind::DebugCanary, index),
                spec,
                Derived {
                    earlier: earlier.help,
                    others: earlier.argvs.clone(),
                    ..Derived::of(&probe.argv, closed, earlier.manifest, make)
                },
            );
        }
    }

    /// Adds a derived run: after every run it reads, gated on the probe's closed run
    /// (its baseline).
    fn add_derived(
        &mut self,
        label: String,
        role: RunRole,
        spec: RunSpec,
        derived: Derived,
    ) -> RunIndex {
        let after: Vec<RunIndex> = [Some(derived.baseline), derived.manifest, derived.earlier]
            .into_iter()
            .flatten()
            .collect();
        let run = self.add(label, role, spec, after, Some(derived.baseline));
        self.runs[run].derived = Some(derived);
        run
    }

    /// A stream probe's runs: as the profile says, then the variants the extension
    /// checks read (each an independent run of the same argv and deadline).
    pub(super) fn stream(&mut self, index: usize, probe: &Probe, needs: &BTreeSet<RunKind>) {
        let stream_spec = |planner: &Self, trigger: Option<Trigger>| {
            let base = planner.spec(probe.argv.clone());
            RunSpec {
                limit: probe
                    .deadline_seconds
                    .map_or(base.limit, Duration::from_secs_f64),
                stream: true,
                trigger,
                ..base
            }
        };
        let interrupt = probe.interrupt();
        let signal_after = |signal| Trigger {
            after_lines: interrupt.map_or(0, |(_, n)| n),
            action: TriggerAction::Signal(signal),
        };
        if needs.contains(&RunKind::Stream) {
            let trigger = interrupt.map(|(signal, _)| signal_after(signal));
            let spec = stream_spec(self, trigger);
            let role = RunRole::probe(RunKind::Stream, index);
            self.add(stream_label(probe), role, spec, vec![], None);
        }
        if let (true, Some((_, n))) = (needs.contains(&RunKind::Sigterm), interrupt) {
            let spec = stream_spec(self, Some(signal_after(Signal::SIGTERM)));
            self.add(
                format!("{} (SIGTERM after {n} line{})", probe.name, plural(n)),
                RunRole::probe(RunKind::Sigterm, index),
                spec,
                vec![],
                None,
            );
        }
        if needs.contains(&RunKind::StdoutClosed) {
            let close = Trigger {
                after_lines: 1,
                action: TriggerAction::CloseStdout,
            };
            let spec = stream_spec(self, Some(close));
            self.add(
                format!("{} (stdout closed after 1 line)", probe.name),
                RunRole::probe(RunKind::StdoutClosed, index),
                spec,
                vec![],
                None,
            );
        }
    }

    /// Each read probe's command path with `--help`, stdin closed, once per path:
    /// the words of its argv before the first option. A probe whose argv starts
    /// with an option has no path of its own; its help is the root `--help` run.
    /// A probe `scope` judges by its survey alone gets none.
    pub(super) fn command_helps(&mut self, scope: &super::Scope) {
        let loaded = self.loaded;
        let mut seen: Vec<&[String]> = Vec::new();
        for (index, probe) in loaded.profile.probes.iter().enumerate() {
            let surveyed_only =
                scope.survey_only.contains(&index) || scope.skipped.contains(&index);
            if probe.kind != ProbeKind::Read || surveyed_only {
                continue;
            }
            let words = probe
                .argv
                .iter()
                .take_while(|arg| !arg.starts_with('-'))
                .count();
            let path = &probe.argv[..words];
            if path.is_empty() || seen.contains(&path) {
                continue;
            }
            seen.push(path);
            let argv: Vec<String> = path.iter().cloned().chain([HELP.to_string()]).collect();
            let label = format!("{} {HELP}", path.join(" "));
            let spec = self.spec(argv);
            let role = RunRole::probe(RunKind::CommandHelp, index);
            self.add(label, role, spec, vec![], None);
        }
    }

    /// The kit-made runs with a made-up command word and a made-up flag.
    pub(super) fn unknown(&mut self, needs: &BTreeSet<RunKind>) {
        let profile = &self.loaded.profile;
        if needs.contains(&RunKind::UnknownCommand) {
            let spec = self.spec(vec![UNKNOWN_COMMAND.into()]);
            let role = RunRole::command(RunKind::UnknownCommand);
            self.add("unknown command".into(), role, spec, vec![], None);
        }
        let first_read = profile
            .probes
            .iter()
            .enumerate()
            .find(|(_, probe)| probe.kind == ProbeKind::Read);
        if let (true, Some((index, probe))) = (needs.contains(&RunKind::UnknownFlag), first_read) {
            let argv = probe
                .argv
                .iter()
                .cloned()
                .chain([UNKNOWN_FLAG.to_string()])
                .collect();
            let spec = self.spec(argv);
            self.add(
                format!("unknown flag on {}", probe.name),
                RunRole::probe(RunKind::UnknownFlag, index),
                spec,
                vec![],
                None,
            );
        }
    }
}
