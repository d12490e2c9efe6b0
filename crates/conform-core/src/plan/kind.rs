//! The kinds of run, declared once. A check names the kinds it reads; the planner
//! alone turns kinds into runs; a judge sees exactly the runs of the kinds it named.
//! A run made from a probe with nothing but its environment, stdin, output or
//! sandbox changed is one [`Shape`] value here, with no planner code of its own.

use crate::exec::{Network, Output, Sandbox, StdinMode, OPENERS, SENTINEL_VARS};
use crate::profile::ProbeKind;

/// A kind of run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum RunKind {
    /// Each read, invalid and destructive probe with stdin closed (a destructive
    /// probe's refusal run): the gate of the probe's other runs.
    Closed,
    /// The same with stdin an open pipe.
    Open,
    /// The same with `NO_COLOR=1`.
    NoColor,
    /// Each destructive probe with its `dry_run_flag`.
    Preview,
    /// The preview again, after the first.
    SecondPreview,
    /// The tool with `--help`.
    Help,
    /// Each read probe's command path (its words before the first option) with
    /// `--help`, once per path; the root `--help` is [`RunKind::Help`].
    CommandHelp,
    /// The profile's `manifest` argv.
    Manifest,
    /// The argument-order placements.
    ArgumentOrder,
    /// Each stream probe, interrupted as its profile entry says.
    Stream,
    /// Each read, invalid and destructive probe in a fresh sandbox.
    Isolated,
    /// Each read probe on a pseudo-terminal.
    Terminal,
    /// `--version`, `--help` and the bare command, each in a fresh sandbox.
    KitIsolated,
    /// `command` + a made-up command word.
    UnknownCommand,
    /// The first read probe + a made-up flag.
    UnknownFlag,
    /// Each read probe under a German locale.
    Locale,
    /// Each stream probe with `signal`, SIGTERM in its place.
    Sigterm,
    /// Each stream probe, the kit closing stdout after the first line.
    StdoutClosed,
    /// The bare command in a fresh sandbox with stdin an open pipe: a tool that
    /// opens a REPL when stdin is not at EOF waits here.
    BareOpen,
    /// Each read probe with `CI=true`, stdout alone on an 80x24 terminal.
    CiTerminal,
    /// Each read probe with `COLUMNS=40`.
    Narrow,
    /// The argument-order run `G value C L` with `COLUMNS=40`, stdout alone on a
    /// 40x24 terminal.
    NarrowTerminal,
    /// Each read probe whose baseline wrote 2048 bytes or more, with the output cap
    /// variables at half that (derived).
    SizeCap,
    /// Each read probe in a fresh sandbox with stdin open and the manifest's secret
    /// and token variables unset (derived).
    Headless,
    /// `C P'` for each made-up form P' of the argument-order positional
    /// (`../P`, `P?foo=bar`, ...), each in a fresh sandbox.
    Hallucinated,
    /// Each read probe whose command declares `limit`, with `--limit 1` (derived).
    PageLimit,
    /// Each read probe whose baseline gave a next cursor, with it (derived).
    PageNext,
    /// Each read probe whose command declares `cursor`, with a cursor no tool
    /// issued (derived).
    PageBadCursor,
    /// Each read probe whose command takes `--timeout`, with one unit of it and
    /// every proxy variable at a black hole (derived).
    TimeoutBlackHole,
    /// Each read probe with `DEBUG`, `VERBOSE`, `LOG_LEVEL`, `FORMAT` and `OUTPUT`
    /// set, less the names the manifest declares (derived).
    GenericEnv,
    /// Each of those variables alone, made only when the run with all of them
    /// differed from the baseline, to name the culprits (derived).
    GenericEnvEach,
    /// Each read probe with every proxy variable at a black hole that records what
    /// each connection asks for.
    BlackHole,
    /// Each read probe in a fresh sandbox (installer sentinels on `PATH`), with
    /// `CI=true` and every proxy variable at a black hole.
    SelfUpdate,
    /// Each read and invalid probe in a fresh sandbox with a canary secret in every
    /// secret-like variable (derived: the manifest names some).
    Canary,
    /// The read probes' canary runs, once per debug switch: `DEBUG=1`,
    /// `LOG_LEVEL=debug`, `PREFIX_DEBUG=1`, and `--verbose` and `--debug` where the
    /// manifest or `--help` lists them (derived).
    DebugCanary,
    /// `C V` for each value V with shell metacharacters ([`METACHARACTERS`]), each
    /// in a fresh sandbox.
    Metachar,
    /// Each safe manifest command that declares a stdin `max_bytes`, given one
    /// byte more than that on stdin (derived).
    PayloadOver,
    /// The same given half of it, stdout drained meanwhile (derived).
    PayloadHalf,
}

impl RunKind {
    /// Every kind: the planner must make each (a test holds it to that).
    pub(crate) const ALL: [RunKind; 38] = [
        RunKind::Closed,
        RunKind::Open,
        RunKind::NoColor,
        RunKind::Preview,
        RunKind::SecondPreview,
        RunKind::Help,
        RunKind::CommandHelp,
        RunKind::Manifest,
        RunKind::ArgumentOrder,
        RunKind::Stream,
        RunKind::Isolated,
        RunKind::Terminal,
        RunKind::KitIsolated,
        RunKind::UnknownCommand,
        RunKind::UnknownFlag,
        RunKind::Locale,
        RunKind::Sigterm,
        RunKind::StdoutClosed,
        RunKind::BareOpen,
        RunKind::CiTerminal,
        RunKind::Narrow,
        RunKind::NarrowTerminal,
        RunKind::SizeCap,
        RunKind::Headless,
        RunKind::Hallucinated,
        RunKind::PageLimit,
        RunKind::PageNext,
        RunKind::PageBadCursor,
        RunKind::TimeoutBlackHole,
        RunKind::GenericEnv,
        RunKind::GenericEnvEach,
        RunKind::BlackHole,
        RunKind::SelfUpdate,
        RunKind::Canary,
        RunKind::DebugCanary,
        RunKind::Metachar,
        RunKind::PayloadOver,
        RunKind::PayloadHalf,
    ];

    /// Whether its output is on pipes (every kind but the terminal runs).
    /// Whether this kind's check compares the run's data with its baseline's. A
    /// baseline cut at the capture cap has no data to compare (`json_envelope`
    /// fails it for the cap), so the pool does not make these runs from it; the
    /// runs that judge time, exit codes or bytes are still made.
    pub(crate) const fn compares_data(self) -> bool {
        matches!(
            self,
            RunKind::Locale
                | RunKind::CiTerminal
                | RunKind::Narrow
                | RunKind::SizeCap
                | RunKind::GenericEnv
                | RunKind::GenericEnvEach
                | RunKind::PageLimit
                | RunKind::PageNext
                | RunKind::PageBadCursor
        )
    }

    pub(crate) const fn on_pipes(self) -> bool {
        !matches!(
            self,
            RunKind::Terminal | RunKind::CiTerminal | RunKind::NarrowTerminal
        )
    }

    /// Every kind whose output is on pipes: for checks that judge every such run.
    pub(crate) const ON_PIPES: [RunKind; 35] = {
        let mut kinds = [RunKind::Closed; 35];
        let (mut from, mut to) = (0, 0);
        while from < RunKind::ALL.len() {
            if RunKind::ALL[from].on_pipes() {
                kinds[to] = RunKind::ALL[from];
                to += 1;
            }
            from += 1;
        }
        kinds
    };

    /// The kinds that must be made for this one to be: a probe's runs are gated on
    /// its stdin-closed run, and the second preview follows the first.
    /// A derived kind reads the manifest run too, and the run with every generic
    /// variable set precedes the runs with one.
    pub(crate) fn brings(self) -> &'static [RunKind] {
        match self {
            RunKind::SecondPreview => &[RunKind::Preview, RunKind::Closed],
            RunKind::Open
            | RunKind::NoColor
            | RunKind::Preview
            | RunKind::Isolated
            | RunKind::Terminal
            | RunKind::Locale
            | RunKind::CiTerminal
            | RunKind::Narrow
            | RunKind::SizeCap
            | RunKind::BlackHole
            | RunKind::SelfUpdate => &[RunKind::Closed],
            RunKind::Headless
            | RunKind::Canary
            | RunKind::PageLimit
            | RunKind::PageNext
            | RunKind::PageBadCursor
            | RunKind::TimeoutBlackHole
            | RunKind::GenericEnv => &[RunKind::Closed, RunKind::Manifest],
            RunKind::GenericEnvEach => &[RunKind::Closed, RunKind::Manifest, RunKind::GenericEnv],
            // A flag switch is made only where `--help` or the manifest lists it;
            // a rejected switch is told by the plain canary run.
            RunKind::DebugCanary => &[
                RunKind::Closed,
                RunKind::Manifest,
                RunKind::Help,
                RunKind::Canary,
            ],
            RunKind::PayloadOver | RunKind::PayloadHalf => &[RunKind::Manifest],
            _ => &[],
        }
    }

    /// For a kind that is a probe's stdin-closed run with some things changed, what
    /// changes; `None` for the kinds the planner builds otherwise.
    pub(crate) fn shape(self) -> Option<Shape> {
        const BASE: Shape = Shape {
            applies_to: &[ProbeKind::Read, ProbeKind::Invalid, ProbeKind::Destructive],
            label: None,
            stdin: StdinMode::Closed,
            env_set: &[],
            env_remove: &[],
            flags: &[],
            per_prefix: None,
            output: Output::Pipes,
            sandbox: None,
            network: Network::Inherited,
        };
        Some(match self {
            RunKind::Closed => BASE,
            RunKind::Open => Shape {
                stdin: StdinMode::Open,
                ..BASE
            },
            RunKind::Locale => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("LC_ALL=de_DE.UTF-8"),
                env_set: &[("LC_ALL", GERMAN_LOCALE), ("LANG", GERMAN_LOCALE)],
                ..BASE
            },
            RunKind::NoColor => Shape {
                env_set: &[("NO_COLOR", "1")],
                ..BASE
            },
            // A destructive probe's argv as given: without confirmation, never its
            // preview; no display to open a window on.
            RunKind::Isolated => Shape {
                label: Some("isolated"),
                env_remove: &DISPLAY_VARS,
                sandbox: Some(Sandbox::isolated),
                ..BASE
            },
            RunKind::Terminal => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("terminal"),
                env_set: &[("NO_COLOR", "1")],
                // The terminal is held open and never written: stdin "open".
                stdin: StdinMode::Open,
                output: TERMINAL,
                sandbox: Some(terminal_sandbox),
                ..BASE
            },
            RunKind::CiTerminal => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("CI=true, stdout on an 80x24 terminal"),
                env_set: &[("CI", "true")],
                output: CI_TERMINAL,
                sandbox: Some(terminal_sandbox),
                ..BASE
            },
            RunKind::Narrow => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("COLUMNS=40"),
                env_set: &[NARROW],
                ..BASE
            },
            RunKind::SizeCap => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("output capped at half its size"),
                per_prefix: Some("MAX_OUTPUT_BYTES"),
                ..BASE
            },
            RunKind::Headless => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("headless: isolated, stdin open, secrets unset"),
                stdin: StdinMode::Open,
                env_remove: &DISPLAY_VARS,
                sandbox: Some(Sandbox::isolated),
                ..BASE
            },
            RunKind::PageLimit => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("--limit 1"),
                flags: &[("--limit", "1")],
                ..BASE
            },
            RunKind::PageNext => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("--cursor from meta.pagination.next_cursor"),
                ..BASE
            },
            RunKind::PageBadCursor => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("--cursor !conform-not-a-cursor!"),
                flags: &[("--cursor", super::derive::BAD_CURSOR)],
                ..BASE
            },
            RunKind::TimeoutBlackHole => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("--timeout, proxies at a black hole"),
                network: Network::BlackHole,
                ..BASE
            },
            RunKind::GenericEnv => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("DEBUG=1 VERBOSE=1 LOG_LEVEL=debug FORMAT=plain OUTPUT=plain"),
                env_set: &super::derive::GENERIC_ENV,
                ..BASE
            },
            RunKind::BlackHole => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("proxies at a black hole"),
                network: Network::BlackHole,
                ..BASE
            },
            RunKind::SelfUpdate => Shape {
                applies_to: &[ProbeKind::Read],
                label: Some("isolated, CI=true, proxies at a black hole"),
                env_set: &[("CI", "true")],
                env_remove: &DISPLAY_VARS,
                sandbox: Some(Sandbox::isolated),
                network: Network::BlackHole,
                ..BASE
            },
            RunKind::Canary => Shape {
                applies_to: &[ProbeKind::Read, ProbeKind::Invalid],
                label: Some("canary secrets set, isolated"),
                env_remove: &DISPLAY_VARS,
                sandbox: Some(Sandbox::isolated),
                ..BASE
            },
            _ => return None,
        })
    }
}

/// How a kind of run differs from its probe's stdin-closed run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    /// The probe kinds it is made for.
    pub applies_to: &'static [ProbeKind],
    /// Added to the probe's name in the run's label, in parentheses.
    pub label: Option<&'static str>,
    pub stdin: StdinMode,
    pub env_set: &'static [(&'static str, &'static str)],
    pub env_remove: &'static [&'static str],
    /// Flags and their values, added last (a flag already in argv gets its value
    /// replaced).
    pub flags: &'static [(&'static str, &'static str)],
    /// A variable set under `TOOL_` and under every prefix of the tool's own
    /// names (REQ-F-073: `TOOL_X` is the spec's placeholder), its value left to
    /// the derivation.
    pub per_prefix: Option<&'static str>,
    pub output: Output,
    pub sandbox: Option<fn() -> Sandbox>,
    pub network: Network,
}

/// Pagers a tool may start by name, without reading `$PAGER` (cargo-nextest runs
/// `less`): on a terminal run the sentinel answers to each, first on `PATH`.
pub(crate) const PAGER_PROGRAMS: [&str; 4] = ["less", "more", "most", "pg"];

/// What the sentinel stands in for on a terminal run: the openers and the pagers.
const TERMINAL_SHIMS: [&str; OPENERS.len() + PAGER_PROGRAMS.len()] = {
    let mut all = [""; OPENERS.len() + PAGER_PROGRAMS.len()];
    let mut i = 0;
    while i < all.len() {
        all[i] = if i < OPENERS.len() {
            OPENERS[i]
        } else {
            PAGER_PROGRAMS[i - OPENERS.len()]
        };
        i += 1;
    }
    all
};

/// Every terminal run's sandbox: in the tool's usual directories (what a terminal
/// changes is judged, not a fresh HOME), but with the sentinel in place of every
/// pager, editor and browser, so that no real pager starts on the terminal and
/// writes into the user's HOME (`less` keeps `~/.lesshst`).
pub(crate) fn terminal_sandbox() -> Sandbox {
    Sandbox {
        sentinel_vars: SENTINEL_VARS,
        shims: &TERMINAL_SHIMS,
        // No fresh directories, as for the pagers alone.
        ..Sandbox::pagers()
    }
}

/// The size of the terminal run's pseudo-terminal.
pub(crate) const TERMINAL: Output = Output::Terminal { cols: 80, rows: 24 };

/// The terminal `ci_terminal_json` gives stdout.
pub(crate) const CI_TERMINAL: Output = Output::StdoutTerminal { cols: 80, rows: 24 };

/// The width `width_invariant` sets, and its terminal.
pub(crate) const NARROW: (&str, &str) = ("COLUMNS", "40");
pub(crate) const NARROW_TERMINAL: Output = Output::StdoutTerminal { cols: 40, rows: 24 };

/// Variables removed in an isolated run, so that no graphical program can open.
pub(crate) const DISPLAY_VARS: [&str; 2] = ["DISPLAY", "WAYLAND_DISPLAY"];

/// The locale `locale_invariant` runs read probes under: one whose decimal
/// separator is a comma, whether or not the machine has it installed.
pub(crate) const GERMAN_LOCALE: &str = "de_DE.UTF-8";

/// Why a run is made: its kind, and what it was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RunRole {
    pub kind: RunKind,
    pub subject: Subject,
}

/// What a run was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subject {
    /// The probe at this index of the profile.
    Probe(usize),
    /// One argument-order run.
    Order(OrderRun),
    /// A kit-made run in a sandbox.
    Kit(KitRun),
    /// The profile's command itself (`--help`, the manifest, a made-up command).
    Command,
}

impl RunRole {
    pub(crate) fn probe(kind: RunKind, probe: usize) -> RunRole {
        RunRole {
            kind,
            subject: Subject::Probe(probe),
        }
    }

    pub(crate) fn command(kind: RunKind) -> RunRole {
        RunRole {
            kind,
            subject: Subject::Command,
        }
    }

    /// The probe the run was made from, if any.
    pub(crate) fn probe_index(&self) -> Option<usize> {
        match self.subject {
            Subject::Probe(probe) => Some(probe),
            _ => None,
        }
    }

    /// JSON pointer of the profile entry the run comes from (`/probes/3`,
    /// `/argument_order`, `/manifest`, `/command` for `--help`), so that reports can
    /// point into the file.
    pub(crate) fn pointer(&self) -> String {
        match (self.subject, self.kind) {
            (Subject::Probe(probe), _) => format!("/probes/{probe}"),
            (Subject::Order(_), _) => "/argument_order".into(),
            (_, RunKind::Manifest) => "/manifest".into(),
            (Subject::Kit(_) | Subject::Command, _) => "/command".into(),
        }
    }
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
    /// `C P'`, P' the positional made up as [`HALLUCINATED`] says.
    Hallucinated(usize),
    /// `C V`, V the metacharacter value of this index.
    Metachar(usize),
}

/// The made-up forms of a resource id an agent might pass (REQ-F-045): before and
/// after the positional.
pub(crate) const HALLUCINATED: [(&str, &str); 5] = [
    ("../", ""),
    ("..%2f", ""),
    ("%2e%2e%2f", ""),
    ("", "?foo=bar"),
    ("", "#frag"),
];

/// The values `shell_metachar_inert` passes, each with `{F}` for the absolute path
/// of the file a shell would create: `conform-injected-<n>` (n from 1) in the run's
/// TMPDIR.
pub(crate) const METACHARACTERS: [&str; 7] = [
    "$(touch {F})",
    "`touch {F}`",
    ";touch {F}",
    "|touch {F}",
    "&&touch {F}",
    ";touch$IFS{F}",
    "a\ntouch {F}",
];

/// What every file a metacharacter value would create is called, before its number.
pub(crate) const INJECTED: &str = "conform-injected-";

/// The `index`th metacharacter value, naming its file in the sandbox's TMPDIR (the
/// executor puts the real path in for the mark).
pub(crate) fn metachar_value(index: usize) -> Option<String> {
    let value = METACHARACTERS.get(index)?;
    let file = format!("{}tmp/{INJECTED}{}", crate::exec::SANDBOX_MARK, index + 1);
    Some(value.replace("{F}", &file))
}

impl OrderRun {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            OrderRun::Placement { placement, .. } => placement.describe(),
            OrderRun::Conflict => "conflicting",
            OrderRun::LocalAfterPositional => "local option after the positional",
            OrderRun::LocalBeforePositional => "local option before the positional",
            OrderRun::PositionalOnly => "positional without the local option",
            OrderRun::Hallucinated(_) => "made-up positional",
            OrderRun::Metachar(_) => "shell metacharacters",
        }
    }
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
