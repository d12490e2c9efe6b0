//! `conform check`'s phases under `--budget`: exploration (help calls, then one
//! exploration run per command), the survey (every surveyed command run the ways
//! that show what differs from command to command, [`crate::plan::SURVEY`]) and
//! depth (every selected check on a sample of the commands).
//!
//! Every check of a family of commands shows what its framework does (colour,
//! width, locale, help, version, envelopes) as well on one command as on two
//! hundred; what differs per command is whether it prompts, waits, opens a browser,
//! editor or pager, goes for the network or writes state. So every command is
//! surveyed, and depth goes to the sample [`depth_order`] names: the commands agents
//! call first, one command of each group, and every command the survey flagged. The
//! sample depends only on the help texts and the exploration runs, so the same tool
//! gives the same sample.
//!
//! The budget is a planner input, not a timer that kills work: from the measured
//! cost of a run (the help calls give the first measurement), [`fit`] plans what
//! fits, survey first; what does not fit is never started and is listed with its
//! reason. When everything fits in depth, everything is judged in depth, as with
//! `--budget none`. Past the budget no run starts, and a little later the runs
//! still going are stopped; the checks whose runs were all made are judged.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A budget of wall time for one `conform check`, from conform's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    pub started: Instant,
    pub total: Duration,
}

/// The share of the budget the help calls may use.
const HELP_SHARE: f64 = 0.25;
/// The share of the budget by which exploration's runs must have started: the
/// survey and depth keep the rest.
const EXPLORE_SHARE: f64 = 0.55;
/// The share by which the planned runs should be made: the rest is for the runs
/// that end at their limit, judging and the report.
const RUNS_SHARE: f64 = 0.9;
/// Past the budget, runs still going are stopped at this share of it.
const KILL_SHARE: f64 = 1.12;
/// The shortest patience a budget gives a run held at the black hole: longer than
/// the 35 s `network_timeout` calls too long, so a tool that waits past it fails
/// the same under any budget.
const LEAST_PATIENCE: Duration = Duration::from_secs(40);

impl Budget {
    pub(crate) fn new(started: Instant, total: Duration) -> Budget {
        Budget { started, total }
    }

    fn until(&self, share: f64) -> Instant {
        self.started + self.total.mul_f64(share)
    }

    fn left(&self, share: f64) -> Duration {
        self.until(share).saturating_duration_since(Instant::now())
    }

    /// What is left for help calls.
    pub(crate) fn help_left(&self) -> Duration {
        self.left(HELP_SHARE)
    }

    /// No help call starts after this.
    pub(crate) fn help_until(&self) -> Instant {
        self.until(HELP_SHARE)
    }

    /// No exploration run starts after this.
    pub(crate) fn explore_until(&self) -> Instant {
        self.until(EXPLORE_SHARE)
    }

    /// What is left for the planned runs.
    pub(crate) fn runs_left(&self) -> Duration {
        self.left(RUNS_SHARE)
    }

    /// No run starts after this.
    pub(crate) fn stop_at(&self) -> Instant {
        self.until(1.0)
    }

    /// The runs still going are stopped at this instant.
    pub(crate) fn kill_at(&self) -> Instant {
        self.until(KILL_SHARE)
    }

    /// How long a run held at the black hole is let go on: a quarter of the
    /// budget, within [`LEAST_PATIENCE`] and the patience of `--budget none`.
    pub(crate) fn patience(&self) -> Duration {
        (self.total / 4).clamp(LEAST_PATIENCE, crate::exec::NETWORK_PATIENCE)
    }

    /// The budget in words: `2m`, `90s`.
    pub(crate) fn shown(&self) -> String {
        shown(self.total)
    }
}

/// A duration as `--budget` takes it: `2m`, `90s`, `1m30s`.
pub(crate) fn shown(duration: Duration) -> String {
    let secs = duration.as_secs();
    match (secs / 60, secs % 60) {
        (0, s) => format!("{s}s"),
        (m, 0) => format!("{m}m"),
        (m, s) => format!("{m}m{s}s"),
    }
}

/// The measured cost of runs, as the pool makes them: wall time per run, each
/// batch counted as if it had filled every job slot (one help call alone costs a
/// CPU's share, not the machine's).
#[derive(Debug, Clone, Default)]
pub(crate) struct Cost(Arc<Mutex<(Duration, u32)>>);

impl Cost {
    /// A batch of `runs` runs that took `wall`, made with `jobs` slots.
    pub(crate) fn add(&self, wall: Duration, runs: usize, jobs: usize) {
        let slots = u32::try_from(runs.max(jobs).max(1)).unwrap_or(u32::MAX);
        let mut total = self.0.lock().unwrap_or_else(|p| p.into_inner());
        total.0 += wall;
        total.1 = total.1.saturating_add(slots);
    }

    /// The wall time one more run costs the pool; `None` before any run.
    pub(crate) fn per_run(&self) -> Option<Duration> {
        let (wall, slots) = *self.0.lock().unwrap_or_else(|p| p.into_inner());
        (slots > 0).then(|| (wall / slots).max(MIN_RUN_COST))
    }
}

/// No run is planned as cheaper than this: a sandbox is made and removed for it.
const MIN_RUN_COST: Duration = Duration::from_millis(15);

/// Words of a command agents call first to learn who they are and where: the
/// first of [`FIRST_CALLED`], which exploration reads before any other read.
pub(crate) const WHO_AND_WHERE: &[&str] = &[
    "whoami",
    "me",
    "status",
    "version",
    "config",
    "configure",
    "auth",
];

/// Words of a command agents call first, to learn what is there (after
/// [`WHO_AND_WHERE`]).
const FIRST_CALLED: &[&str] = &["list", "ls", "get", "info", "show", "account", "user"];

/// Endings of a first-called command's name: `get-caller-identity`, `current-user`.
pub(crate) const FIRST_CALLED_ENDINGS: &[&str] = &["whoami", "caller-identity", "current-user"];

/// Whether agents call a command of this argv first.
fn first_called(argv: &[String]) -> bool {
    let Some(last) = command_words(argv).last() else {
        return false;
    };
    let word = last.rsplit(':').next().unwrap_or(last).to_ascii_lowercase();
    WHO_AND_WHERE.contains(&word.as_str())
        || FIRST_CALLED.contains(&word.as_str())
        || FIRST_CALLED_ENDINGS.iter().any(|e| word.ends_with(e))
}

/// The words of a command's path: before its first option or made-up operand.
fn command_words(argv: &[String]) -> &[String] {
    let words = argv
        .iter()
        .take_while(|arg| !arg.starts_with('-') && *arg != super::MADE_UP_OPERAND)
        .count();
    &argv[..words]
}

/// The group a command is in: its path but the last word, or for oclif's
/// `apps:info`, `apps`.
fn group_of(argv: &[String]) -> Vec<String> {
    let words = command_words(argv);
    match words {
        [only] => match only.rsplit_once(':') {
            Some((group, _)) => vec![group.to_string()],
            None => Vec::new(),
        },
        [group @ .., _] => group.to_vec(),
        [] => Vec::new(),
    }
}

/// Why a command is in the depth sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Why {
    /// Its name says dangers live there (login, init, deploy, open, upgrade).
    Dangerous,
    /// Agents call it first (whoami, status, config, list, get, ...).
    FirstCalled,
    /// The first command of its group.
    OfGroup,
    /// Its exploration run showed something (it hit its limit, went for the
    /// network, exited non-zero, wrote state): the reason.
    Flagged(String),
}

impl Why {
    pub(crate) fn said(&self) -> String {
        match self {
            Why::Dangerous => {
                "its name says dangers live there (it logs in, sets up, deploys, opens or updates)"
                    .into()
            }
            Why::FirstCalled => "agents call it first".into(),
            Why::OfGroup => "one command of its group".into(),
            Why::Flagged(why) => format!("the survey flagged it: {why}"),
        }
    }
}

/// A command to survey and maybe judge in depth: a probe of the profile.
#[derive(Debug, Clone)]
pub(crate) struct Command {
    pub argv: Vec<String>,
    /// What its exploration run showed, when it was worth a look.
    pub flagged: Option<String>,
}

/// The depth sample, in order: the commands whose names say dangers live there
/// (login, init, deploy, open: [`super::danger`]), then those agents call
/// first (shorter paths first, and one of each group before a second of any),
/// then the first command of each group not yet in it, then every command the
/// survey flagged, each in listed order. Indices into `commands`, each with why.
/// A pure function of the help texts and the exploration runs.
pub(crate) fn depth_order(commands: &[Command]) -> Vec<(usize, Why)> {
    let danger = |i: usize| super::danger::danger(command_words(&commands[i].argv), "");
    let dangerous = |i: usize| danger(i).is_some();
    // Authentication first, then setting up, then the rest: by tier, then listed.
    let mut risky: Vec<usize> = (0..commands.len()).filter(|&i| dangerous(i)).collect();
    risky.sort_by_key(|&i| (danger(i), i));
    let mut order: Vec<(usize, Why)> = risky.into_iter().map(|i| (i, Why::Dangerous)).collect();
    let mut first: Vec<usize> = (0..commands.len())
        .filter(|&i| !dangerous(i) && first_called(&commands[i].argv))
        .collect();
    // How many first-called commands of its group come before each.
    let mut before: Vec<usize> = vec![0; commands.len()];
    let mut seen: Vec<(Vec<String>, usize)> = Vec::new();
    for &i in &first {
        let group = group_of(&commands[i].argv);
        match seen.iter_mut().find(|(g, _)| *g == group) {
            Some((_, count)) => {
                before[i] = *count;
                *count += 1;
            }
            None => seen.push((group, 1)),
        }
    }
    first.sort_by_key(|&i| (command_words(&commands[i].argv).len(), before[i], i));
    order.extend(first.into_iter().map(|i| (i, Why::FirstCalled)));
    let mut groups: Vec<Vec<String>> = order
        .iter()
        .map(|(i, _)| group_of(&commands[*i].argv))
        .collect();
    for (i, command) in commands.iter().enumerate() {
        let group = group_of(&command.argv);
        if !groups.contains(&group) && !order.iter().any(|(o, _)| *o == i) {
            groups.push(group);
            order.push((i, Why::OfGroup));
        }
    }
    for (i, command) in commands.iter().enumerate() {
        if let Some(why) = &command.flagged {
            if !order.iter().any(|(o, _)| *o == i) {
                order.push((i, Why::Flagged(why.clone())));
            }
        }
    }
    order
}

/// The order in which commands are surveyed when not all can be: the depth
/// sample first, then the rest in listed order.
pub(crate) fn survey_order(commands: &[Command]) -> Vec<usize> {
    let mut order: Vec<usize> = depth_order(commands).into_iter().map(|(i, _)| i).collect();
    let rest: Vec<usize> = (0..commands.len()).filter(|i| !order.contains(i)).collect();
    order.extend(rest);
    order
}

/// The commands of the depth sample set aside for before the survey is planned:
/// a survey of every command with nothing judged in depth would leave most checks
/// unjudged.
pub(crate) const MIN_DEPTH: usize = 3;

/// At most this share of what is left for runs is set aside, while exploring, for
/// the first [`MIN_DEPTH`] commands of the depth order: they are judged in depth
/// whatever the budget says ([`fit`]), but a tool whose every run costs a second
/// must still get to explore more than them.
pub(crate) const DEPTH_SHARE: f64 = 0.3;

/// About how many runs beyond its survey a command judged in depth costs, every
/// check selected (the exploration's estimate; [`fit`] counts the real plan).
pub(crate) const DEPTH_RUNS: u32 = 25;

/// What a plan of the whole profile in depth costs, in runs.
#[derive(Debug, Clone, Default)]
pub(crate) struct Runs {
    /// Runs of no probe, or of a kind made once (`--help`, the kit's runs).
    pub shared: usize,
    /// Per probe: its survey runs.
    pub survey: Vec<usize>,
    /// Per probe: its runs beyond the survey's.
    pub depth: Vec<usize>,
}

/// What is planned, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Fit {
    /// Probes (indices) judged by their survey alone.
    pub survey_only: BTreeSet<usize>,
    /// Probes given no run: the survey did not fit.
    pub skipped: BTreeSet<usize>,
    /// Probes judged in depth, each with why (none: every probe, it all fitted).
    pub depth: Vec<(usize, Why)>,
    /// Every probe in depth: the whole plan fitted.
    pub whole: bool,
    /// The runs planned, and how long they were estimated to take.
    pub runs: usize,
    pub estimate: Duration,
}

/// How long `runs` runs take at `per_run` each, and the run that ends last at
/// its limit (`tail`).
fn estimate(runs: usize, per_run: Duration, tail: Duration) -> Duration {
    per_run * u32::try_from(runs).unwrap_or(u32::MAX) + tail
}

/// Plans what fits in `left`: every probe in depth when the whole plan does;
/// else every probe surveyed (or, when even that does not fit beside the first
/// [`MIN_DEPTH`] of the depth sample, those of [`survey_order`] that do) and the
/// depth sample as far as it fits. `tail` is what the last runs may take beyond
/// the pool's throughput (a limit, a patience).
pub(crate) fn fit(
    commands: &[Command],
    runs: &Runs,
    per_run: Duration,
    tail: Duration,
    left: Duration,
) -> Fit {
    let all = runs.shared + runs.survey.iter().sum::<usize>() + runs.depth.iter().sum::<usize>();
    if estimate(all, per_run, tail) <= left {
        return Fit {
            whole: true,
            runs: all,
            estimate: estimate(all, per_run, tail),
            ..Fit::default()
        };
    }
    let mut planned = runs.shared;
    let mut surveyed: BTreeSet<usize> = BTreeSet::new();
    let mut skipped: BTreeSet<usize> = BTreeSet::new();
    let order = depth_order(commands);
    // The first commands of the depth order are judged in depth whatever the
    // budget says: a survey of every command with nothing judged in depth would
    // leave most checks unjudged.
    let set_aside: usize = order
        .iter()
        .take(MIN_DEPTH)
        .map(|(index, _)| runs.depth.get(*index).copied().unwrap_or(0))
        .sum();
    let first: BTreeSet<usize> = order.iter().take(MIN_DEPTH).map(|(i, _)| *i).collect();
    for index in survey_order(commands) {
        let cost = runs.survey.get(index).copied().unwrap_or(0);
        if first.contains(&index) || estimate(planned + cost + set_aside, per_run, tail) <= left {
            planned += cost;
            surveyed.insert(index);
        } else {
            skipped.insert(index);
        }
    }
    let mut depth = Vec::new();
    for (index, why) in order {
        if !surveyed.contains(&index) {
            continue;
        }
        let cost = runs.depth.get(index).copied().unwrap_or(0);
        if first.contains(&index) || estimate(planned + cost, per_run, tail) <= left {
            planned += cost;
            depth.push((index, why));
        }
    }
    let survey_only = surveyed
        .iter()
        .copied()
        .filter(|index| !depth.iter().any(|(d, _)| d == index))
        .collect();
    Fit {
        survey_only,
        skipped,
        depth,
        whole: false,
        runs: planned,
        estimate: estimate(planned, per_run, tail),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(names: &[&str]) -> Vec<Command> {
        names
            .iter()
            .map(|name| Command {
                argv: name.split(' ').map(String::from).collect(),
                flagged: name
                    .contains("hang")
                    .then(|| "it hit its limit".to_string()),
            })
            .collect()
    }

    fn named(commands: &[Command], order: &[usize]) -> Vec<String> {
        order.iter().map(|&i| commands[i].argv.join(" ")).collect()
    }

    #[test]
    fn the_depth_sample_is_first_calls_then_one_per_group_then_what_the_survey_flagged() {
        let cmds = commands(&[
            "apps create",
            "apps info",
            "apps list",
            "domains add",
            "domains hang",
            "logs tail",
            "status",
            "whoami",
        ]);
        let order = depth_order(&cmds);
        let indices: Vec<usize> = order.iter().map(|(i, _)| *i).collect();
        assert_eq!(
            named(&cmds, &indices),
            [
                "status",
                "whoami",
                "apps info",
                "apps list",
                "domains add",
                "logs tail",
                "domains hang"
            ]
        );
        assert_eq!(order[3].1, Why::FirstCalled);
        assert_eq!(order[4].1, Why::OfGroup);
        assert!(matches!(order[6].1, Why::Flagged(_)));
        // The same help and survey give the same sample.
        assert_eq!(depth_order(&cmds), order);
        let survey = survey_order(&cmds);
        assert_eq!(named(&cmds, &survey[7..]), ["apps create"]);
    }

    #[test]
    fn oclif_ids_are_grouped_by_their_topic() {
        let cmds = commands(&["apps:create", "apps:destroy", "config:get", "config:set"]);
        let order = depth_order(&cmds);
        let indices: Vec<usize> = order.iter().map(|(i, _)| *i).collect();
        assert_eq!(named(&cmds, &indices), ["config:get", "apps:create"]);
    }

    #[test]
    fn what_fits_is_planned_survey_first() {
        let cmds = commands(&["a x", "a y", "b x", "b y", "list"]);
        let runs = Runs {
            shared: 10,
            survey: vec![4; 5],
            depth: vec![20; 5],
        };
        let per_run = Duration::from_millis(100);
        let tail = Duration::from_secs(5);
        // 10 + 20 + 100 runs: 13 s + 5 s.
        let whole = fit(&cmds, &runs, per_run, tail, Duration::from_secs(18));
        assert!(whole.whole && whole.depth.is_empty() && whole.survey_only.is_empty());
        // The survey (30 runs) and three in depth (60): 14 s.
        let some = fit(&cmds, &runs, per_run, tail, Duration::from_secs(14));
        assert!(!some.whole);
        assert!(some.skipped.is_empty());
        let depth: Vec<usize> = some.depth.iter().map(|(i, _)| *i).collect();
        assert_eq!(named(&cmds, &depth), ["list", "a x", "b x"]);
        assert_eq!(some.survey_only.len(), 2);
        // Not the whole survey beside what is kept for depth: the first three of
        // the depth order are surveyed and judged in depth whatever the budget
        // says, and the rest surveyed as far as it goes.
        let few = fit(&cmds, &runs, per_run, tail, Duration::from_secs(10));
        assert_eq!(
            named(&cmds, &few.skipped.iter().copied().collect::<Vec<_>>()),
            ["a y", "b y"]
        );
        let depth: Vec<usize> = few.depth.iter().map(|(i, _)| *i).collect();
        assert_eq!(named(&cmds, &depth), ["list", "a x", "b x"]);
        assert!(few.survey_only.is_empty());
        // Depth is never empty.
        let none = fit(&cmds, &runs, per_run, tail, Duration::ZERO);
        assert_eq!(none.skipped.len(), 2);
        assert_eq!(none.depth.len(), 3);
    }

    #[test]
    fn dangerous_commands_come_first_in_depth_and_survey() {
        let cmds = commands(&["apps list", "login", "status", "deploy", "apps info"]);
        let order: Vec<usize> = depth_order(&cmds).into_iter().map(|(i, _)| i).collect();
        assert_eq!(
            named(&cmds, &order),
            ["login", "deploy", "status", "apps list", "apps info"]
        );
        assert_eq!(depth_order(&cmds)[0].1, Why::Dangerous);
        let survey = survey_order(&cmds);
        assert_eq!(named(&cmds, &survey[..2]), ["login", "deploy"]);
    }

    #[test]
    fn costs_count_a_lone_run_as_one_slot_of_the_pool() {
        let cost = Cost::default();
        assert_eq!(cost.per_run(), None);
        cost.add(Duration::from_secs(1), 1, 2);
        assert_eq!(cost.per_run(), Some(Duration::from_millis(500)));
        cost.add(Duration::from_secs(3), 10, 2);
        assert_eq!(cost.per_run(), Some(Duration::from_secs(4) / 12));
    }

    #[test]
    fn budgets_are_shown_as_given() {
        assert_eq!(shown(Duration::from_secs(120)), "2m");
        assert_eq!(shown(Duration::from_secs(90)), "1m30s");
        assert_eq!(shown(Duration::from_secs(20)), "20s");
        let budget = Budget::new(Instant::now(), Duration::from_secs(120));
        assert_eq!(budget.patience(), Duration::from_secs(40));
        let long = Budget::new(Instant::now(), Duration::from_secs(3600));
        assert_eq!(long.patience(), crate::exec::NETWORK_PATIENCE);
    }
}
