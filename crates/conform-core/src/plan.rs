//! Planning: the runs each check needs, made once each and shared between checks.
//!
//! A plan is a list of runs with dependencies. A probe's stdin-closed run comes first;
//! its other runs wait for it and are not made when it hit the limit (as in the
//! reference kit). A second preview waits for the first (a preview that acts must be
//! seen to change state), and argument-order runs wait for every destructive run, so
//! that a tool that deletes without confirmation does so before the runs that compare
//! data between placements, whatever `--jobs` is.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::checks::{CheckId, Variant};
use crate::exec::{Output, RunSpec, Sandbox, Signal, StdinMode, Trigger, TriggerAction};
use crate::profile::{ArgumentOrder, LoadedProfile, Probe, ProbeKind};

/// Index of a run in [`Plan::runs`].
pub(crate) type RunIndex = usize;

/// Why a run is made: which checks read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RunRole {
    /// A probe's stdin-closed run (for a destructive probe, also its refusal run).
    Closed { probe: usize },
    /// A probe's stdin-open run.
    Open { probe: usize },
    /// A probe's stdin-closed run with `NO_COLOR=1`.
    NoColor { probe: usize },
    /// A destructive probe with its `dry_run_flag` appended: first or second time.
    Preview { probe: usize, second: bool },
    /// The tool with `--help`.
    Help,
    /// The profile's `manifest` argv.
    Manifest,
    /// One argument-order run.
    Order(OrderRun),
    /// A stream probe's single run.
    Stream { probe: usize },
    /// A read, invalid or destructive probe in a fresh sandbox (HOME, XDG, TMPDIR,
    /// sentinels for pagers, editors and browsers), stdin closed.
    Isolated { probe: usize },
    /// A read probe on a pseudo-terminal with `NO_COLOR=1` and the pager sentinels.
    Terminal { probe: usize },
    /// `--version`, `--help` or the bare command, each in a fresh sandbox.
    KitIsolated(KitRun),
    /// `command` + a made-up command word: must be rejected with exit 2.
    UnknownCommand,
    /// The first read probe's argv + a made-up flag: must be rejected with exit 2.
    UnknownFlag { probe: usize },
    /// A read probe with `LC_ALL` and `LANG` set to a German locale.
    Locale { probe: usize },
    /// A stream probe with `signal` again, SIGTERM in place of SIGINT.
    Sigterm { probe: usize },
    /// A stream probe again, the kit closing its end of stdout after the first line.
    StdoutClosed { probe: usize },
}

/// The runs the kit makes without a probe, in a sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum KitRun {
    Version,
    Help,
    Bare,
}

impl KitRun {
    pub(crate) const ALL: [KitRun; 3] = [KitRun::Version, KitRun::Help, KitRun::Bare];

    /// The arguments after the profile's command.
    pub(crate) fn argv(self) -> &'static [&'static str] {
        match self {
            KitRun::Version => &["--version"],
            KitRun::Help => &["--help"],
            KitRun::Bare => &[],
        }
    }

    /// `--version`, `--help`, `bare`: the start of the run's label.
    pub(crate) fn name(self) -> &'static str {
        match self {
            KitRun::Version => "--version",
            KitRun::Help => "--help",
            KitRun::Bare => "bare",
        }
    }
}

/// The size of the terminal run's pseudo-terminal.
pub(crate) const TERMINAL: Output = Output::Terminal { cols: 80, rows: 24 };

/// Variables removed in an isolated run, so that no graphical program can open.
const DISPLAY_VARS: [&str; 2] = ["DISPLAY", "WAYLAND_DISPLAY"];

/// The argument-order runs (G = global flag, C = command path, L = local args).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum OrderRun {
    /// Placement of `G v` with the value (`alternate` false) or the alternate value.
    Placement {
        placement: Placement,
        alternate: bool,
    },
    /// `G value C L G alternate_value`: must exit 2.
    Conflict,
    /// `C P L`.
    LocalAfterPositional,
    /// `C L P`.
    LocalBeforePositional,
    /// `C P`.
    PositionalOnly,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Placement {
    /// `G v C L`
    BeforePath,
    /// `C G v L`
    BetweenPathAndLocal,
    /// `C L G v`
    AfterLocal,
}

impl Placement {
    pub(crate) const ALL: [Placement; 3] = [
        Placement::BeforePath,
        Placement::BetweenPathAndLocal,
        Placement::AfterLocal,
    ];

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Placement::BeforePath => "before the command path",
            Placement::BetweenPathAndLocal => "between path and local option",
            Placement::AfterLocal => "after the local option",
        }
    }
}

impl RunRole {
    /// JSON pointer of the profile entry the run comes from (`/probes/3`,
    /// `/argument_order`, `/manifest`, `/command` for `--help`), so that reports can
    /// point into the file. Derived from the role rather than stored, so that every
    /// place that builds a `PlannedRun` stays as it is.
    pub(crate) fn pointer(&self) -> String {
        match self {
            RunRole::Closed { probe }
            | RunRole::Open { probe }
            | RunRole::NoColor { probe }
            | RunRole::Preview { probe, .. }
            | RunRole::Stream { probe }
            | RunRole::Isolated { probe }
            | RunRole::Terminal { probe }
            | RunRole::UnknownFlag { probe }
            | RunRole::Locale { probe }
            | RunRole::Sigterm { probe }
            | RunRole::StdoutClosed { probe } => format!("/probes/{probe}"),
            RunRole::Help | RunRole::KitIsolated(_) | RunRole::UnknownCommand => "/command".into(),
            RunRole::Manifest => "/manifest".into(),
            RunRole::Order(_) => "/argument_order".into(),
        }
    }
}

impl OrderRun {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            OrderRun::Placement { placement, .. } => placement.describe(),
            OrderRun::Conflict => "conflicting",
            OrderRun::LocalAfterPositional => "local option after the positional",
            OrderRun::LocalBeforePositional => "local option before the positional",
            OrderRun::PositionalOnly => "positional without the local option",
        }
    }
}

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

/// Which run roles the selected checks need.
#[derive(Debug, Clone, Copy, Default)]
struct Needs {
    closed: bool,
    open: bool,
    no_color: bool,
    preview: bool,
    second_preview: bool,
    help: bool,
    manifest: bool,
    order: bool,
    stream: bool,
    isolated: bool,
    terminal: bool,
    kit_isolated: bool,
    unknown_command: bool,
    unknown_flag: bool,
    locale: bool,
    sigterm: bool,
    stdout_closed: bool,
}

impl Needs {
    /// The variants the selected checks declare. A probe's other runs are gated on
    /// its stdin-closed run, so they bring it along.
    fn of(checks: &BTreeSet<CheckId>) -> Needs {
        let mut n = Needs::default();
        for variant in checks.iter().flat_map(|check| check.spec().reads) {
            match variant {
                Variant::Closed => n.closed = true,
                Variant::Open => n.open = true,
                Variant::NoColor => n.no_color = true,
                Variant::Preview => n.preview = true,
                Variant::SecondPreview => {
                    n.preview = true;
                    n.second_preview = true;
                }
                Variant::Help => n.help = true,
                Variant::Manifest => n.manifest = true,
                Variant::ArgumentOrder => n.order = true,
                Variant::Stream => n.stream = true,
                Variant::Isolated => n.isolated = true,
                Variant::Terminal => n.terminal = true,
                Variant::KitIsolated => n.kit_isolated = true,
                Variant::UnknownCommand => n.unknown_command = true,
                Variant::UnknownFlag => n.unknown_flag = true,
                Variant::Locale => n.locale = true,
                Variant::Sigterm => n.sigterm = true,
                Variant::StdoutClosed => n.stdout_closed = true,
            }
        }
        n.closed |= n.open || n.no_color || n.preview || n.isolated || n.terminal || n.locale;
        n
    }
}

/// Plan the runs the selected checks need.
pub(crate) fn plan(
    loaded: &LoadedProfile,
    checks: &BTreeSet<CheckId>,
    options: RunOptions,
) -> Plan {
    let needs = Needs::of(checks);
    let mut planner = Planner {
        loaded,
        options,
        runs: Vec::new(),
    };
    let mut destructive_runs = Vec::new();
    for (index, probe) in loaded.profile.probes.iter().enumerate() {
        match probe.kind {
            ProbeKind::Stream => planner.stream(index, probe, needs),
            _ if needs.closed => {
                let runs = planner.probe(index, probe, needs);
                if probe.kind == ProbeKind::Destructive {
                    destructive_runs.extend(runs);
                }
            }
            _ => {}
        }
    }
    planner.unknown(needs);
    if needs.help {
        let spec = planner.spec(vec!["--help".into()]);
        planner.add("--help".into(), RunRole::Help, spec, vec![], None);
    }
    if let (true, Some(manifest)) = (needs.manifest, &loaded.profile.manifest) {
        let spec = planner.spec(manifest.clone());
        planner.add("manifest".into(), RunRole::Manifest, spec, vec![], None);
    }
    if let (true, Some(order)) = (needs.order, &loaded.profile.argument_order) {
        planner.argument_order(order, &destructive_runs);
    }
    if needs.kit_isolated {
        for kit in KitRun::ALL {
            let argv = kit.argv().iter().map(|a| a.to_string()).collect();
            let spec = planner.isolated(argv);
            let label = format!("{} (isolated)", kit.name());
            planner.add(label, RunRole::KitIsolated(kit), spec, vec![], None);
        }
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
        }
    }

    /// A stdin-closed run in a fresh sandbox, with no display to open a window on.
    fn isolated(&self, argv: Vec<String>) -> RunSpec {
        RunSpec {
            env_remove: DISPLAY_VARS.iter().map(|v| v.to_string()).collect(),
            sandbox: Some(Sandbox::isolated()),
            ..self.spec(argv)
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
        });
        self.runs.len() - 1
    }

    /// A stream probe's runs: as the profile says, then the variants the extension
    /// checks read (each an independent run of the same argv and deadline).
    fn stream(&mut self, index: usize, probe: &Probe, needs: Needs) {
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
        let signal_after = |signal| {
            probe.after_lines.map(|after_lines| Trigger {
                after_lines,
                action: TriggerAction::Signal(signal),
            })
        };
        if needs.stream {
            // The profile format has one signal, INT.
            let spec = stream_spec(self, signal_after(Signal::SIGINT));
            self.add(
                stream_label(probe),
                RunRole::Stream { probe: index },
                spec,
                vec![],
                None,
            );
        }
        if let (true, Some(n)) = (needs.sigterm, probe.after_lines) {
            let spec = stream_spec(self, signal_after(Signal::SIGTERM));
            self.add(
                format!("{} (SIGTERM after {n} line{})", probe.name, plural(n)),
                RunRole::Sigterm { probe: index },
                spec,
                vec![],
                None,
            );
        }
        if needs.stdout_closed {
            let close = Trigger {
                after_lines: 1,
                action: TriggerAction::CloseStdout,
            };
            let spec = stream_spec(self, Some(close));
            self.add(
                format!("{} (stdout closed after 1 line)", probe.name),
                RunRole::StdoutClosed { probe: index },
                spec,
                vec![],
                None,
            );
        }
    }

    /// The kit-made runs with a made-up command word and a made-up flag.
    fn unknown(&mut self, needs: Needs) {
        let profile = &self.loaded.profile;
        if needs.unknown_command {
            let spec = self.spec(vec![UNKNOWN_COMMAND.into()]);
            self.add(
                "unknown command".into(),
                RunRole::UnknownCommand,
                spec,
                vec![],
                None,
            );
        }
        let first_read = profile
            .probes
            .iter()
            .enumerate()
            .find(|(_, probe)| probe.kind == ProbeKind::Read);
        if let (true, Some((index, probe))) = (needs.unknown_flag, first_read) {
            let argv = probe
                .argv
                .iter()
                .cloned()
                .chain([UNKNOWN_FLAG.to_string()])
                .collect();
            let spec = self.spec(argv);
            self.add(
                format!("unknown flag on {}", probe.name),
                RunRole::UnknownFlag { probe: index },
                spec,
                vec![],
                None,
            );
        }
    }

    /// A read, invalid or destructive probe: its stdin-closed run, then the runs that
    /// wait for it. Returns every run planned for the probe.
    fn probe(&mut self, index: usize, probe: &Probe, needs: Needs) -> Vec<RunIndex> {
        let name = &probe.name;
        let closed_spec = self.spec(probe.argv.clone());
        let closed = self.add(
            name.clone(),
            RunRole::Closed { probe: index },
            closed_spec,
            vec![],
            None,
        );
        let mut planned = vec![closed];
        if needs.open {
            let spec = RunSpec {
                stdin: StdinMode::Open,
                ..self.spec(probe.argv.clone())
            };
            planned.push(self.add(
                name.clone(),
                RunRole::Open { probe: index },
                spec,
                vec![closed],
                Some(closed),
            ));
        }
        if needs.locale && probe.kind == ProbeKind::Read {
            let spec = RunSpec {
                env_set: vec![
                    ("LC_ALL".into(), GERMAN_LOCALE.into()),
                    ("LANG".into(), GERMAN_LOCALE.into()),
                ],
                ..self.spec(probe.argv.clone())
            };
            planned.push(self.add(
                format!("{name} (LC_ALL={GERMAN_LOCALE})"),
                RunRole::Locale { probe: index },
                spec,
                vec![closed],
                Some(closed),
            ));
        }
        if needs.no_color {
            let spec = RunSpec {
                env_set: vec![("NO_COLOR".into(), "1".into())],
                ..self.spec(probe.argv.clone())
            };
            planned.push(self.add(
                name.clone(),
                RunRole::NoColor { probe: index },
                spec,
                vec![closed],
                Some(closed),
            ));
        }
        let preview_flag = probe
            .dry_run_flag
            .as_ref()
            .filter(|_| probe.kind == ProbeKind::Destructive);
        if let (true, Some(flag)) = (needs.preview, preview_flag) {
            let argv: Vec<String> = probe.argv.iter().cloned().chain([flag.clone()]).collect();
            let label = format!("{name} {flag}");
            let role = RunRole::Preview {
                probe: index,
                second: false,
            };
            let spec = self.spec(argv.clone());
            let first = self.add(label.clone(), role, spec, vec![closed], Some(closed));
            planned.push(first);
            if needs.second_preview {
                let role = RunRole::Preview {
                    probe: index,
                    second: true,
                };
                let spec = self.spec(argv);
                // After the first: a preview that acts must be seen to change state.
                planned.push(self.add(
                    format!("{label} (second preview)"),
                    role,
                    spec,
                    vec![first],
                    Some(closed),
                ));
            }
        }
        if needs.isolated {
            // A destructive probe's argv as given: without confirmation, never its
            // preview.
            let spec = self.isolated(probe.argv.clone());
            planned.push(self.add(
                format!("{name} (isolated)"),
                RunRole::Isolated { probe: index },
                spec,
                vec![closed],
                Some(closed),
            ));
        }
        if needs.terminal && probe.kind == ProbeKind::Read {
            let spec = RunSpec {
                env_set: vec![("NO_COLOR".into(), "1".into())],
                // The terminal is held open and never written: stdin "open".
                stdin: StdinMode::Open,
                output: TERMINAL,
                sandbox: Some(Sandbox::pagers()),
                ..self.spec(probe.argv.clone())
            };
            planned.push(self.add(
                format!("{name} (terminal)"),
                RunRole::Terminal { probe: index },
                spec,
                vec![closed],
                Some(closed),
            ));
        }
        planned
    }

    /// The argument-order runs (G = global flag, v = value, C = command path,
    /// L = local args, P = positional), each waiting for every destructive run.
    fn argument_order(&mut self, order: &ArgumentOrder, destructive_runs: &[RunIndex]) {
        let (g, c, l) = (&order.global_flag, &order.command_path, &order.local_args);
        let add = |planner: &mut Self, label: String, kind: OrderRun, argv: Vec<String>| {
            let spec = planner.spec(argv);
            planner.add(
                label,
                RunRole::Order(kind),
                spec,
                destructive_runs.to_vec(),
                None,
            );
        };
        for alternate in [false, true] {
            let v = if alternate {
                &order.alternate_value
            } else {
                &order.value
            };
            let gv = [g.clone(), v.clone()];
            for placement in Placement::ALL {
                let argv = match placement {
                    Placement::BeforePath => [&gv[..], c, l].concat(),
                    Placement::BetweenPathAndLocal => [c, &gv[..], l].concat(),
                    Placement::AfterLocal => [c, l, &gv[..]].concat(),
                };
                let label = format!("argument_order {g} {v} {}", placement.describe());
                add(
                    self,
                    label,
                    OrderRun::Placement {
                        placement,
                        alternate,
                    },
                    argv,
                );
            }
        }
        let conflict = [
            &[g.clone(), order.value.clone()][..],
            c,
            l,
            &[g.clone(), order.alternate_value.clone()],
        ]
        .concat();
        add(
            self,
            format!("argument_order conflicting {g}"),
            OrderRun::Conflict,
            conflict,
        );
        if let Some(p) = &order.positional {
            let p = [p.clone()];
            for (kind, argv) in [
                (OrderRun::LocalAfterPositional, [c, &p[..], l].concat()),
                (OrderRun::LocalBeforePositional, [c, l, &p[..]].concat()),
                (OrderRun::PositionalOnly, [c, &p[..]].concat()),
            ] {
                add(
                    self,
                    format!("argument_order {}", kind.describe()),
                    kind,
                    argv,
                );
            }
        }
    }
}

pub(crate) fn stream_label(probe: &Probe) -> String {
    match probe.after_lines {
        Some(n) => format!("{} (SIGINT after {n} line{})", probe.name, plural(n)),
        None => probe.name.clone(),
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The command word no tool has: `unknown_command_exit_2` runs `command` + it.
pub(crate) const UNKNOWN_COMMAND: &str = "conform-no-such-command";
/// The flag no tool has, appended to the first read probe's argv.
pub(crate) const UNKNOWN_FLAG: &str = "--conform-no-such-flag";
/// The locale `locale_invariant` runs read probes under: one whose decimal
/// separator is a comma, whether or not the machine has it installed.
pub(crate) const GERMAN_LOCALE: &str = "de_DE.UTF-8";

#[cfg(test)]
mod tests {
    use super::*;
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
                matches!(
                    r.role,
                    RunRole::Closed { probe: 1 }
                        | RunRole::Open { probe: 1 }
                        | RunRole::NoColor { probe: 1 }
                        | RunRole::Preview { probe: 1, .. }
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
            match run.role {
                RunRole::Preview { .. } => assert_eq!(tail, ["delete", "x", "--dry-run"]),
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
        let closed = index(RunRole::Closed { probe: 1 });
        let first = index(RunRole::Preview {
            probe: 1,
            second: false,
        });
        let second = index(RunRole::Preview {
            probe: 1,
            second: true,
        });
        assert_eq!(plan.runs[first].gate, Some(closed));
        assert_eq!(
            plan.runs[second].after,
            vec![first],
            "the second preview sees what the first did"
        );
        let conflict = index(RunRole::Order(OrderRun::Conflict));
        for destructive in [closed, first, second] {
            assert!(plan.runs[conflict].after.contains(&destructive));
        }
        let stream = &plan.runs[index(RunRole::Stream { probe: 2 })];
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
            at(RunRole::Closed { probe: 1 }),
            pointed("/probes/1", (7, 13))
        );
        assert_eq!(
            at(RunRole::Stream { probe: 2 }),
            pointed("/probes/2", (8, 13))
        );
        assert_eq!(at(RunRole::Help), pointed("/command", (2, 47)));
        assert_eq!(at(RunRole::Manifest), pointed("/manifest", (3, 9)));
        assert_eq!(
            at(RunRole::Order(OrderRun::Conflict)),
            pointed("/argument_order", (4, 9))
        );
    }

    #[test]
    fn only_the_runs_the_selected_checks_need_are_planned() {
        let p = loaded(PROFILE);
        let only: BTreeSet<CheckId> = [CheckId::ManifestValid].into_iter().collect();
        let plan = plan(&p, &only, options());
        assert_eq!(plan.runs.len(), 1);
        assert_eq!(plan.runs[0].role, RunRole::Manifest);
        let order: BTreeSet<CheckId> = [CheckId::ArgumentOrder].into_iter().collect();
        // 3 placements x 2 values, the conflict, 3 positional runs.
        assert_eq!(super::plan(&p, &order, options()).runs.len(), 10);
    }
}
