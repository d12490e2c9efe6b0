//! `conform check` without a manifest: exploration is a conformance run. The whole
//! command tree is read from the help texts (groups descended into, within
//! [`MAX_HELP_CALLS`] and [`MAX_DEPTH`] words), and every command whose name is not
//! destructive becomes a read probe (within [`MAX_PROBES`]), whatever its
//! exploration run showed: a command that prompts, opens a browser, hangs or goes
//! for the network is judged by the checks that read such runs, not dropped. A command that mutates (by its name, or by the state it wrote
//! in its fresh HOME) is a check-only probe: judged in `conform check`'s hermetic
//! runs, never saved. Only what cannot be run safely is left out, each with why: a
//! required argument, a destructive name (without `--allow-destructive`), a
//! mutating name when the hermetic conditions do not hold, and a command that left
//! files in its working directory.
//!
//! Every help call of a level, and every exploration run, is made at once; the
//! result depends only on what the runs showed, in sorted order, so the same tool
//! gives the same profile every time.

use serde_json::{json, Value};

use super::classify::{classify, classify_command, Class};
use super::commands::{add, HelpEntry};
use super::listing::{listing_argvs, read_listing};
use super::page::{lists_no_subcommands, read_page, HelpPage};
use super::usage::program_name;
use crate::explore::phases::{
    Budget, DEPTH_RUNS, DEPTH_SHARE, FIRST_CALLED_ENDINGS, MIN_DEPTH, WHO_AND_WHERE,
};
use crate::explore::MADE_UP_OPERAND;
use crate::init::tool::{Explored, Tool, Unread};
use crate::init::{probe, Body, Census, Failure, Warning, UNKNOWN_FLAG};
use std::time::Duration;

/// How deep the command tree is read at most: twilio's API commands are four to
/// six words deep (`api core calls recordings list`). The budgets below bound the
/// walk; this only ends a tree whose groups list each other.
pub(crate) const MAX_DEPTH: usize = 6;

/// How many help calls exploration makes in all. The largest trees read whole so
/// far (vercel's 435 commands, heroku's 359) stay within it; awscli's 437
/// services and their thousands of operations do not, and the commands past it
/// are left out, those an agent calls first read before the rest (see [`rank`]).
pub(crate) const MAX_HELP_CALLS: usize = 500;

/// How many commands exploration runs as probes. Each is run some fifteen ways by
/// the checks, and a tree generated from an API (twilio's hundreds of `api ...
/// list` and `fetch`) would otherwise cost hours of runs of a Node process that
/// show the same behaviour again. The largest trees probed whole so far (vercel's
/// 157, wrangler's 148) stay within it; past it, the same order as the help calls'
/// budget keeps the commands an agent calls first and one of each group.
pub(crate) const MAX_PROBES: usize = 200;

/// What exploration may do.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    /// The hermetic conditions that do not hold, in words: a command whose name
    /// says it mutates runs only when there is none.
    pub mutating_gaps: Vec<String>,
    /// Destructive commands are probed (refusal, then their preview flag).
    pub allow_destructive: bool,
    /// `conform check --budget`: help calls and exploration runs are made only
    /// while the measured cost says they fit.
    pub budget: Option<Budget>,
}

/// The runs a command costs once it is a candidate: its exploration run (the
/// survey's closed run) and its headless run (the survey's open run too):
/// `explore/survey.rs`.
const RUNS_PER_SURVEYED_COMMAND: u32 = 2;

/// The runs of no command a profile costs (`--help`, the kit's runs, the
/// made-up command and flag, metacharacters), about.
const SHARED_RUNS: u32 = 20;

/// How many more commands the budget lets exploration take on, each costing
/// `runs_each` runs of its own (its help call, if still to make) and the runs
/// of its survey, once the runs every profile makes, the first commands of the
/// depth sample ([`MIN_DEPTH`]) and the last runs' limit are set aside. `None`:
/// no budget, or nothing measured yet.
fn surveyable(tool: &dyn Tool, budget: Option<&Budget>, runs_each: u32) -> Option<usize> {
    let (budget, per_run) = (budget?, tool.per_run()?);
    let window = budget.runs_left();
    // Room for the first commands of the depth order (judged in depth whatever
    // the budget says), within a share of what is left: a tool whose every run
    // costs a second would otherwise explore nothing but them.
    let depth = (per_run * MIN_DEPTH as u32 * DEPTH_RUNS).min(window.mul_f64(DEPTH_SHARE));
    let set_aside = per_run * SHARED_RUNS + depth + tool.limit() + Duration::from_secs(2);
    let left = window.saturating_sub(set_aside);
    let each = per_run * (runs_each + RUNS_PER_SURVEYED_COMMAND);
    Some((left.as_secs_f64() / each.as_secs_f64()) as usize)
}

/// How many help calls of a level (`asked`, at `depth` words) the budget
/// affords: within its share for help calls; below the top level, no more than
/// the commands that could then be surveyed (`taken` are already candidates),
/// but one of each group. The top level is read whole within the share: it shows
/// the tree's groups.
fn readable(
    tool: &dyn Tool,
    budget: Option<&Budget>,
    taken: usize,
    depth: usize,
    asked: &[Found],
) -> Option<usize> {
    let per_run = tool.per_run()?;
    let by_share = (budget?.help_left().as_secs_f64() / per_run.as_secs_f64()) as usize;
    if depth == 1 {
        return Some(by_share.max(1));
    }
    let mut groups: Vec<&[String]> = asked
        .iter()
        .map(|found| &found.path[..found.path.len().saturating_sub(1)])
        .collect();
    groups.sort();
    groups.dedup();
    let by_survey = surveyable(tool, budget, 1)?.saturating_sub(taken);
    Some(by_share.min(by_survey.max(groups.len())).max(1))
}

/// A command found, by its words after the program.
#[derive(Debug, Clone)]
struct Found {
    path: Vec<String>,
    class: Class,
    requires_argument: bool,
    /// The listing says it is a group (oclif's topics, `kv store <command>`).
    group: bool,
    /// Why it serves by design (a server, a proxy, a watcher), when its name or
    /// summary says so.
    serves: Option<String>,
    /// Its name or summary says dangers live there ([`crate::explore::danger`]), and
    /// how soon it is taken: it is read and run first.
    danger: Option<u8>,
}

impl Found {
    fn shown(&self) -> String {
        self.path.join(" ")
    }
}

/// Probes for every command the help texts list.
pub(crate) fn explore(
    tool: &mut dyn Tool,
    name: &str,
    settings: &Settings,
) -> Result<Body, Failure> {
    let root = match tool.root_help(name) {
        Ok(root) => root,
        Err(unread) if unread.how.judgeable() => return Ok(without_help(&unread)),
        Err(unread) => return Err(super::no_help(&unread)),
    };
    let program = program_name(&root, name);
    let program = program.as_str();
    let mut body = Body::default();
    let (mut entries, named) = root_entries(tool, &root, program, &mut body);
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    // curl, jq and tar would read a made-up command as a URL, a filter or letters.
    body.lists_subcommands = !entries.is_empty() || !lists_no_subcommands(&root, program);

    let mut census = Census {
        named,
        has_commands: body.lists_subcommands,
        ..Census::default()
    };
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut destructive: Vec<(Vec<String>, String)> = Vec::new();
    // A complete listing and a group's help name the same command: once each.
    let mut seen: Vec<Vec<String>> = Vec::new();
    let mut level: Vec<Found> = entries.iter().map(|entry| found(&[], entry)).collect();
    let mut budget = MAX_HELP_CALLS;
    for depth in 1..=MAX_DEPTH {
        let mut asked: Vec<Found> = Vec::new();
        for command in level {
            if command.class == Class::Framework || seen.contains(&command.path) {
                continue;
            }
            seen.push(command.path.clone());
            census.found.push(command.shown());
            if let Some(reason) = left_out_unasked(&command, settings) {
                census.left_out(&command.shown(), reason);
                continue;
            }
            asked.push(command);
        }
        let afford = readable(
            tool,
            settings.budget.as_ref(),
            candidates.len(),
            depth,
            &asked,
        );
        let (cap, by_time) = match afford {
            Some(afford) if afford < budget => (afford, true),
            _ => (budget, false),
        };
        for command in within_budget(&mut asked, cap, |c| c) {
            let reason = match &settings.budget {
                Some(time) if by_time => format!(
                    "not surveyed: the budget ({}) left no time to read its help; the commands where dangers live (login, init, deploy, open), then those an agent calls first (whoami, status, config, list, get), and one of each group were read first",
                    time.shown()
                ),
                _ => format!("past exploration's budget of {MAX_HELP_CALLS} help calls, which reads the commands an agent calls first (whoami, status, config, list, get) before the rest"),
            };
            census.left_out(&command.shown(), reason);
        }
        budget -= asked.len();
        if asked.is_empty() {
            break;
        }
        tool.phase(
            "help calls",
            &format!(
                "{} commands found, reading the help of {} more",
                census.found.len(),
                asked.len()
            ),
        );
        let paths: Vec<Vec<String>> = asked.iter().map(|c| c.path.clone()).collect();
        // Read first what is read first when the clock cuts the reading short.
        let order = first_read_order(&asked, |c| c);
        let texts = helps_in_time(tool, settings.budget.as_ref(), &paths, &order, program);
        let mut next: Vec<Found> = Vec::new();
        for (command, text) in asked.into_iter().zip(texts) {
            let shown = command.shown();
            let last = command.path.last().map_or("", String::as_str);
            let Some(text) = text else {
                let time = settings
                    .budget
                    .as_ref()
                    .map_or(String::new(), Budget::shown);
                census.left_out(
                    &shown,
                    format!(
                        "not surveyed: the budget ({time}) left no time to read its help; the commands where dangers live (login, init, deploy, open), then those an agent calls first (whoami, status, config, list, get), and one of each group were read first"
                    ),
                );
                continue;
            };
            let text = match text {
                Ok(text) => text,
                // The help call ran the command, or failed: the exploration run
                // shows what it does, and the checks judge it. A destructive one
                // has no preview flag to run it with.
                Err(why) if command.class == Class::Destructive => {
                    census.left_out(
                        &shown,
                        format!("destructive, and its help gave no preview flag: {why}"),
                    );
                    continue;
                }
                Err(why) if command.group => {
                    census.left_out(
                        &shown,
                        format!("a group of commands, and its help gave nothing to read: {why}"),
                    );
                    continue;
                }
                Err(_) if command.serves.is_some() => {
                    let why = command.serves.as_deref().unwrap_or_default();
                    census.left_out(&shown, serves_by_design(why));
                    continue;
                }
                Err(_) => {
                    let operands = usize::from(command.requires_argument);
                    candidates.push(Candidate::new(command, operands));
                    continue;
                }
            };
            let mut words: Vec<&str> = vec![program];
            words.extend(command.path.iter().map(String::as_str));
            let page = read_page(&text, &words);
            let mut subs: Vec<HelpEntry> = Vec::new();
            for sub in page.entries.iter().cloned() {
                if sub.name != last && classify(&sub.name) != Class::Framework {
                    add(&mut subs, sub);
                }
            }
            subs.sort_by(|a, b| a.name.cmp(&b.name));
            // The listing's `get <id>` says so when the command's own help has no
            // usage line naming it.
            let required = page
                .requires_argument
                .or(command.requires_argument.then_some(true));
            if command.class == Class::Destructive {
                match (required, preview_flag(&page)) {
                    (Some(false), Some(flag)) => destructive.push((command.path, flag)),
                    (_, None) => census.left_out(
                        &shown,
                        "destructive, and its help names no preview flag (--dry-run)",
                    ),
                    (_, Some(_)) => census.left_out(
                        &shown,
                        "destructive, and its usage shows a required argument",
                    ),
                }
                continue;
            }
            if command.group || page.needs_subcommand {
                // A group: its subcommands are the commands, never the bare group.
                if depth == MAX_DEPTH {
                    census.left_out(
                        &shown,
                        format!("a group below {MAX_DEPTH} words, which exploration does not read"),
                    );
                } else if page.entries.is_empty() {
                    census.left_out(
                        &shown,
                        "a group that needs a subcommand, and its help lists none",
                    );
                }
            } else if let Some(why) = &command.serves {
                census.left_out(&shown, serves_by_design(why));
            } else {
                let stdin = super::serves::reads_stdin(&text);
                let with_stdin = |candidate: Candidate| Candidate {
                    stdin: stdin.clone(),
                    ..candidate
                };
                match (required, page.operands) {
                    (Some(false), _) => {
                        candidates.push(with_stdin(Candidate::new(command.clone(), 0)))
                    }
                    // `keys set NAME`: a made-up name shows whether it prompts,
                    // opens an editor or hangs, which a command is whatever value
                    // it is given.
                    (Some(true), Some(n @ 1..=MADE_UP_OPERANDS)) => {
                        candidates.push(with_stdin(Candidate::new(command.clone(), n)))
                    }
                    // A required option, a choice or a lowercase operand
                    // (argparse's `dist [dist ...]`): one made-up operand still
                    // shows the error path an agent meets first.
                    (Some(true), _) => {
                        candidates.push(with_stdin(Candidate::new(command.clone(), 1)))
                    }
                    (None, _) => census.left_out(
                        &shown,
                        "its help has no usage line naming it, so required arguments cannot be ruled out",
                    ),
                }
            }
            if depth < MAX_DEPTH {
                next.extend(subs.iter().map(|sub| found(&command.path, sub)));
            }
        }
        level = next;
    }

    let afford = surveyable(tool, settings.budget.as_ref(), 0).map(|n| n.max(MIN_DEPTH));
    let (cap, by_time) = match afford {
        Some(afford) if afford < MAX_PROBES => (afford, true),
        _ => (MAX_PROBES, false),
    };
    for candidate in within_budget(&mut candidates, cap, |c| &c.command) {
        let reason = match &settings.budget {
            Some(time) if by_time => format!(
                "not surveyed: the budget ({}) left no time for its runs; the commands where dangers live (login, init, deploy, open), then those an agent calls first, and one of each group were surveyed first",
                time.shown()
            ),
            _ => format!("past exploration's budget of {MAX_PROBES} probes, which runs the commands an agent calls first and one of each group before the rest"),
        };
        census.left_out(&candidate.argv.join(" "), reason);
    }
    let argvs: Vec<Vec<String>> = candidates.iter().map(|c| c.argv.clone()).collect();
    tool.phase(
        "exploration runs",
        &format!("one run of each of {} commands", argvs.len()),
    );
    let order = first_read_order(&candidates, |c| &c.command);
    let made = explore_in_time(tool, settings.budget.as_ref(), &argvs, &order);
    let mut runs = Vec::with_capacity(made.len());
    let mut kept = Vec::with_capacity(made.len());
    for (candidate, run) in candidates.into_iter().zip(made) {
        match run {
            Some(run) => {
                kept.push(candidate);
                runs.push(run);
            }
            None => {
                let time = settings
                    .budget
                    .as_ref()
                    .map_or(String::new(), Budget::shown);
                census.left_out(
                    &candidate.argv.join(" "),
                    format!(
                        "not surveyed: the budget ({time}) left no time for its runs; the commands where dangers live (login, init, deploy, open), then those an agent calls first, and one of each group were surveyed first"
                    ),
                );
            }
        }
    }
    let candidates = kept;
    let own = tool_state(&runs);
    if !own.is_empty() {
        for run in &mut runs {
            run.wrote.retain(|path| !is_tool_state(path, &own));
        }
        body.warnings.push(Warning::new(
            "TOOL_STATE",
            format!(
                "most commands' exploration runs wrote {}: the tool's own state (telemetry, settings), not counted as a command mutating",
                own.join(", ")
            ),
            json!({ "files": own }),
        ));
    }
    let mut finished = Vec::new();
    let mut unfinished = Vec::new();
    let mut check_only = Vec::new();
    for (
        Candidate {
            argv, only, stdin, ..
        },
        run,
    ) in candidates.into_iter().zip(runs)
    {
        let shown = argv.join(" ");
        if let Some(error) = run.error {
            census.left_out(&shown, format!("it could not be run: {error}"));
            continue;
        }
        if let Some(port) = run.listening {
            census.left_out(
                &shown,
                serves_by_design(&format!(
                    "its exploration run was still listening on port {port} at the limit"
                )),
            );
            continue;
        }
        if run.wrote.iter().any(|path| path.starts_with(CWD)) {
            body.warnings.push(Warning::new(
                "CANDIDATE_MUTATES",
                format!(
                    "{shown}: not a probe: its exploration run left files in its working directory, so it mutates: {}",
                    run.wrote.join(", ")
                ),
                json!({ "command": shown, "files": run.wrote }),
            ));
            let mut what = format!("it left {}", run.wrote.join(", "));
            if !run.bait.changed.is_empty() || !run.bait.deleted.is_empty() {
                what = format!("{what}; {}", run.bait.describe());
            }
            census.left_out(&shown, format!("it mutates: {what}"));
            continue;
        }
        census.probed.push(shown.clone());
        if let Some(why) = flagged(&run) {
            body.flagged.push((shown.clone(), why));
        }
        if let Some(line) = stdin {
            body.warnings.push(Warning::new(
                READS_STDIN,
                format!(
                    "{shown}: reads stdin by design (its help says \"{line}\"): a wait on an \
                     open stdin is what it was asked for, not a deadlock; with stdin closed it \
                     must still end by itself"
                ),
                json!({ "command": shown, "argv": argv, "help": line }),
            ));
        }
        // A command that mutates, by its name or by the state it wrote in its fresh
        // HOME, is judged in conform check's sandbox but never saved: a saved read
        // probe runs anywhere, with real credentials and the real HOME. Nor is a
        // made-up operand.
        if only != CheckOnly::No
            || !run.wrote.is_empty()
            || !run.bait.is_empty()
            || !run.external.is_empty()
        {
            let why = match only {
                // It shells out to a deploy tool or an installer: saved, it would
                // run that with the user's credentials.
                _ if !run.external.is_empty() => format!(
                    "its exploration run called {} (the sandbox's sentinel refused)",
                    run.external.join(", then ")
                ),
                // A formatter: what a saved probe would do to the user's project.
                _ if !run.bait.is_empty() => match crate::init::saving::never_saved(&argv) {
                    Some(name) => format!("{}; and {name}", run.bait.describe()),
                    None => run.bait.describe(),
                },
                _ if !run.wrote.is_empty() => {
                    format!("it writes its state in HOME ({})", run.wrote.join(", "))
                }
                CheckOnly::MadeUpOperand => {
                    format!("its required operand is made up ({MADE_UP_OPERAND})")
                }
                _ => crate::init::saving::never_saved(&argv)
                    .unwrap_or_else(|| "its name says it mutates".to_string()),
            };
            body.warnings
                .push(Warning::check_only(&shown, &why, &run.wrote));
            check_only.push(argv);
        } else if clean(&run) {
            finished.push(argv);
        } else {
            unfinished.push(argv);
        }
    }
    // Probes whose run ended cleanly first: the made-up flag goes on the first read
    // probe, and a baseline that hung would make that run hang too.
    let first = finished.first().cloned();
    for argv in finished.into_iter().chain(unfinished) {
        body.probes
            .push(Value::Object(probe(&argv.join(" "), &argv, "read")));
    }
    check_only.sort();
    for argv in check_only {
        let shown = argv.join(" ");
        body.check_only
            .push(Value::Object(probe(&shown, &argv, "read")));
        census.check_only.push(shown);
    }
    for (argv, flag) in destructive {
        let mut entry = probe(&argv.join(" "), &argv, "destructive");
        entry.insert("dry_run_flag".into(), json!(flag));
        census.probed.push(argv.join(" "));
        body.probes.push(Value::Object(entry));
    }
    let unknown: Vec<String> = first
        .clone()
        .unwrap_or_default()
        .into_iter()
        .chain([UNKNOWN_FLAG.to_string()])
        .collect();
    let label = match &first {
        Some(argv) => format!("unknown flag on {}", argv.join(" ")),
        None => "unknown flag".to_string(),
    };
    body.probes
        .push(Value::Object(probe(&label, &unknown, "invalid")));
    if !body.lists_subcommands {
        body.warnings.push(Warning::new(
            "NO_SUBCOMMANDS",
            "the help lists no subcommands: only the unknown-flag probe runs, and no made-up command is tried",
            json!({}),
        ));
    }
    census.found.sort();
    census.probed.sort();
    census.left.sort_by(|a, b| a.command.cmp(&b.command));
    body.census = Some(census);
    Ok(body)
}

/// The profile of a tool whose help calls gave no help but showed what the checks
/// judge (a wait, a prompt, a crash, prose): the unknown-flag probe alone, no
/// made-up command, and a warning naming the call and what it printed. The checks
/// then judge the help call's own runs: `help_off_stdout`, `help_version_pure`,
/// and the hang checks on `--help` with stdin open.
fn without_help(unread: &Unread) -> Body {
    let argv = [UNKNOWN_FLAG.to_string()];
    Body {
        probes: vec![Value::Object(probe("unknown flag", &argv, "invalid"))],
        warnings: vec![Warning::help_unread(unread)],
        census: Some(Census::default()),
        lists_subcommands: false,
        help_unread: true,
        ..Body::default()
    }
}

/// The commands the root help lists, with those of every complete listing it
/// points at (oclif's `commands --json`, `help -a`, `--list`, `--help-all`),
/// and of the other routes when that is fewer than it names
/// ([`super::routes`]); then how many it names, about.
fn root_entries(
    tool: &mut dyn Tool,
    root: &str,
    program: &str,
    body: &mut Body,
) -> (Vec<HelpEntry>, usize) {
    let mut entries = read_page(root, &[program]).entries;
    for argv in listing_argvs(root, program) {
        match tool.listing(&argv) {
            Ok(text) => {
                for entry in read_listing(&text, program) {
                    add(&mut entries, entry);
                }
            }
            Err(why) => body.warnings.push(Warning::new(
                "COMMAND_LIST_UNREAD",
                format!("the help points at `{program} {}` for every command, which gave nothing to read: {why}", argv.join(" ")),
                json!({ "argv": argv, "reason": why }),
            )),
        }
    }
    let named = super::routes::named(root);
    if super::routes::wanted(root, entries.len(), named) {
        super::routes::follow(tool, program, named, &mut entries, body);
    }
    let named = named.max(entries.len());
    (entries, named)
}

/// A command found under `parent`; the entry's own `path` is the argv to run
/// (oclif's `apps:create` names the whole path).
fn found(parent: &[String], entry: &HelpEntry) -> Found {
    let path: Vec<String> = if entry.path.is_empty() {
        parent.iter().cloned().chain([entry.name.clone()]).collect()
    } else {
        entry.path.clone()
    };
    let class = classify_command(&path, &entry.summary);
    Found {
        danger: crate::explore::danger::danger(&path, &entry.summary),
        path,
        class,
        requires_argument: entry.requires_argument,
        group: entry.group,
        serves: super::serves::serves(&entry.name, &entry.summary),
    }
}

/// Keeps in `asked` the `budget` commands taken first, in their order, and
/// returns the others: by [`rank`], then one command of each group before a
/// second of any, then in listed order. `command` is what each item is of.
fn within_budget<T>(asked: &mut Vec<T>, budget: usize, command: impl Fn(&T) -> &Found) -> Vec<T> {
    if asked.len() <= budget {
        return Vec::new();
    }
    let order = first_read_order(asked, command);
    let mut kept = vec![false; asked.len()];
    for &at in &order[..budget] {
        kept[at] = true;
    }
    let mut left = Vec::new();
    for (command, kept) in std::mem::take(asked).into_iter().zip(kept) {
        if kept {
            asked.push(command);
        } else {
            left.push(command);
        }
    }
    left
}

/// The indices of `asked` in the order a budget takes them: by [`rank`], then
/// one command of each group before a second of any, then in listed order.
fn first_read_order<T>(asked: &[T], command: impl Fn(&T) -> &Found) -> Vec<usize> {
    // (rank, how many of that rank its group had before it, listed order)
    let mut seen: std::collections::HashMap<(&[String], u8), usize> = Default::default();
    let mut keys: Vec<(u8, usize, usize)> = Vec::with_capacity(asked.len());
    for (at, item) in asked.iter().enumerate() {
        let command = command(item);
        let last = command.path.last().map_or("", String::as_str);
        let rank = rank(last, command.class, command.danger);
        let parent = &command.path[..command.path.len().saturating_sub(1)];
        let before = seen.entry((parent, rank)).or_default();
        keys.push((rank, *before, at));
        *before += 1;
    }
    let mut order: Vec<usize> = (0..asked.len()).collect();
    order.sort_by_key(|&at| keys[at]);
    order
}

/// The exploration run of each of `argvs`, started in `order` in one pool under
/// a budget: no run starts once exploration's share of it is spent (but the
/// first few), so that the survey keeps its time; a run that waits holds no
/// job slot, and none waits for a batch's slowest. In the order of `argvs`;
/// `None`: not made.
fn explore_in_time(
    tool: &mut dyn Tool,
    budget: Option<&Budget>,
    argvs: &[Vec<String>],
    order: &[usize],
) -> Vec<Option<Explored>> {
    let Some(budget) = budget else {
        return tool.explore(argvs).into_iter().map(Some).collect();
    };
    in_order(argvs, order, |ordered| {
        tool.explore_until(ordered, Some(budget.explore_until()))
    })
}

/// The help of each of `paths`, the calls started in `order` in one pool under a
/// budget: once the help calls' share of it is spent no further call starts
/// (but the first few), and those not read are `None`. How many calls
/// [`readable`] allowed was estimated from the first calls; a tool whose calls
/// slow down (workers it leaves running, a loaded machine) is held to the clock
/// all the same.
fn helps_in_time(
    tool: &mut dyn Tool,
    budget: Option<&Budget>,
    paths: &[Vec<String>],
    order: &[usize],
    program: &str,
) -> Vec<Option<Result<String, String>>> {
    let Some(budget) = budget else {
        return tool.helps(paths, program).into_iter().map(Some).collect();
    };
    in_order(paths, order, |ordered| {
        tool.helps_until(ordered, program, Some(budget.help_until()))
    })
}

/// `make` on `items` taken in `order` (the pool starts them in that order), each
/// result back in its item's place.
fn in_order<T>(
    items: &[Vec<String>],
    order: &[usize],
    make: impl FnOnce(&[Vec<String>]) -> Vec<Option<T>>,
) -> Vec<Option<T>> {
    let ordered: Vec<Vec<String>> = order.iter().map(|&i| items[i].clone()).collect();
    let mut out: Vec<Option<T>> = items.iter().map(|_| None).collect();
    for (&i, result) in order.iter().zip(make(&ordered)) {
        out[i] = result;
    }
    out
}

/// How early exploration reads and runs a command when it cannot take them all:
/// those whose names or help say dangers live there (login, init, deploy, open,
/// upgrade, shell: [`crate::explore::danger`]), then the commands an agent calls
/// first (whoami, status, config; awscli's `get-caller-identity`), then reads,
/// groups and the rest, then those that change state, and the destructive ones
/// last (they run only with `--allow-destructive`).
fn rank(name: &str, class: Class, danger: Option<u8>) -> u8 {
    let lower = name.to_ascii_lowercase();
    let agent_first = WHO_AND_WHERE.contains(&lower.as_str())
        || FIRST_CALLED_ENDINGS.iter().any(|who| lower.ends_with(who));
    const AFTER_DANGERS: u8 = 4;
    match (class, danger) {
        (Class::Destructive, _) => AFTER_DANGERS + 4,
        (_, Some(tier)) => tier.min(AFTER_DANGERS - 1),
        (Class::Read | Class::Other, None) if agent_first => AFTER_DANGERS,
        (Class::Read, None) => AFTER_DANGERS + 1,
        (Class::Other | Class::Framework, None) => AFTER_DANGERS + 2,
        (Class::Mutating, None) => AFTER_DANGERS + 3,
    }
}

/// The warning code of a probe whose help says it reads stdin (`conform check`
/// then reads its waits on an open stdin as asked for).
pub(crate) const READS_STDIN: &str = "READS_STDIN";

/// The census's reason for a command left out because it serves.
fn serves_by_design(why: &str) -> String {
    format!(
        "serves by design ({why}): it waits for clients until stopped, which is what it \
         is for and no hang, so it is not probed as a read"
    )
}

/// Why a command is left out before its help is asked for, if it is.
fn left_out_unasked(command: &Found, settings: &Settings) -> Option<String> {
    match command.class {
        Class::Destructive if !settings.allow_destructive => {
            return Some(
                "destructive: it runs only with --allow-destructive (without confirmation, expecting a refusal, then with its preview flag)".into(),
            )
        }
        Class::Mutating if !settings.mutating_gaps.is_empty() => {
            return Some(format!(
                "its name says it mutates, and {}",
                settings.mutating_gaps.join("; ")
            ))
        }
        _ => {}
    }
    // A required operand is no reason: the command is surveyed with a made-up one.
    None
}

/// The preview flag a destructive command's help lists among its options.
fn preview_flag(page: &HelpPage) -> Option<String> {
    const PREVIEW_FLAGS: &[&str] = &["--dry-run", "--dryrun", "--preview", "--what-if", "--plan"];
    PREVIEW_FLAGS
        .iter()
        .find(|flag| page.flag(flag).is_some())
        .map(|flag| flag.to_string())
}

/// How many required operands a command may need and still get made-up ones.
const MADE_UP_OPERANDS: usize = 2;

/// A command to make an exploration run of, and a probe of when it may be one.
struct Candidate {
    command: Found,
    /// The command's path, then [`MADE_UP_OPERAND`] for each operand it needs.
    argv: Vec<String>,
    only: CheckOnly,
    /// The line of its help that says it reads stdin, if one does.
    stdin: Option<String>,
}

impl Candidate {
    /// `command` given `operands` made-up operands: check-only when there are any,
    /// or when its name says it mutates.
    fn new(command: Found, operands: usize) -> Candidate {
        let only = if operands > 0 {
            CheckOnly::MadeUpOperand
        } else {
            CheckOnly::by_name(command.class)
        };
        let argv = command
            .path
            .iter()
            .cloned()
            .chain(std::iter::repeat_n(MADE_UP_OPERAND.to_string(), operands))
            .collect();
        Candidate {
            command,
            argv,
            only,
            stdin: None,
        }
    }
}

/// Why a candidate is probed only under `conform check`, never saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CheckOnly {
    No,
    /// Its name says it mutates.
    MutatingName,
    /// Its required operands are [`MADE_UP_OPERAND`].
    MadeUpOperand,
}

impl CheckOnly {
    fn by_name(class: Class) -> CheckOnly {
        if class == Class::Mutating {
            CheckOnly::MutatingName
        } else {
            CheckOnly::No
        }
    }
}

/// Where an exploration run's working directory is in [`Explored::wrote`].
const CWD: &str = "cwd/";

/// The files more than half of the exploration runs wrote, and the directories
/// more than half of them wrote a file of their own in, when there are three or
/// more runs:
/// vercel writes its telemetry ids and settings on every command, wrangler a log
/// named by the time (`config/.wrangler/logs/wrangler-<time>.log`), so they say
/// nothing of what one command does. A directory is never a sandbox root
/// (`home/`, `cwd/`): a file in one is a command's own.
fn tool_state(runs: &[Explored]) -> Vec<String> {
    if runs.len() < 3 {
        return Vec::new();
    }
    let most = |count: usize| 2 * count > runs.len();
    let mut paths: Vec<&str> = runs
        .iter()
        .flat_map(|run| run.wrote.iter().map(String::as_str))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let mut own: Vec<String> = paths
        .iter()
        .filter(|path| {
            most(
                runs.iter()
                    .filter(|run| run.wrote.iter().any(|p| p == *path))
                    .count(),
            )
        })
        .map(|path| path.to_string())
        .collect();
    let mut dirs: Vec<&str> = paths.iter().filter_map(|path| directory_of(path)).collect();
    dirs.sort_unstable();
    dirs.dedup();
    let files = own.clone();
    for dir in dirs {
        // A file of its own in it: not one most runs wrote (telemetry.json).
        let in_it = |run: &&Explored| {
            run.wrote
                .iter()
                .any(|p| directory_of(p) == Some(dir) && !files.contains(p))
        };
        if dir.matches('/').count() > 1 && most(runs.iter().filter(in_it).count()) {
            own.push(dir.to_string());
        }
    }
    own.sort();
    own.dedup();
    own
}

/// Whether `path` is the tool's state: one of `own`, or in one of its directories.
fn is_tool_state(path: &str, own: &[String]) -> bool {
    own.iter()
        .any(|own| own == path || (own.ends_with('/') && directory_of(path) == Some(own)))
}

/// The directory `path` is in, with its trailing slash (`config/.t/logs/` of
/// `config/.t/logs/a.log` and of `config/.t/logs/old/`).
fn directory_of(path: &str) -> Option<&str> {
    let at = path.trim_end_matches('/').rfind('/')?;
    Some(&path[..=at])
}

/// What an exploration run showed that is worth judging the command in depth
/// for, in words; `None` when it ended cleanly.
fn flagged(run: &Explored) -> Option<String> {
    if !run.finished {
        Some("its exploration run hit its limit".into())
    } else if run.network {
        Some("its exploration run went for the network".into())
    } else if !run.wrote.is_empty() {
        Some(format!(
            "its exploration run wrote {}",
            run.wrote.join(", ")
        ))
    } else {
        match run.exit_code {
            Some(0) => None,
            Some(code) => Some(format!("its exploration run exited {code}")),
            None => Some("its exploration run was killed by a signal".into()),
        }
    }
}

/// The run ended by itself, exit 0, offline.
fn clean(run: &Explored) -> bool {
    run.finished && run.exit_code == Some(0) && !run.network
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::init::tool::{Measured, Trial, Unusable};

    /// A tool of canned help texts whose every exploration run exits 0.
    #[derive(Default)]
    struct Canned {
        help: HashMap<String, String>,
        listings: HashMap<String, String>,
        asked: Vec<String>,
    }

    impl Canned {
        fn with(help: &[(&str, &str)]) -> Canned {
            Canned {
                help: help
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                ..Canned::default()
            }
        }
    }

    impl Tool for Canned {
        fn help(&mut self, args: &[String], _: &str) -> Result<String, String> {
            let key = args.join(" ");
            self.asked.push(key.clone());
            self.help
                .get(&key)
                .cloned()
                .ok_or_else(|| format!("no help for {key:?}"))
        }

        fn listing(&mut self, args: &[String]) -> Result<String, String> {
            let key = args.join(" ");
            self.listings
                .get(&key)
                .cloned()
                .ok_or_else(|| format!("no listing for {key:?}"))
        }

        fn try_read(&mut self, _: &[String]) -> Trial {
            Trial::Passed
        }

        fn measure(&mut self, _: &[String]) -> Measured {
            Measured::Failed
        }
    }

    /// [`Canned`]'s help, with each exploration run as `run` makes it.
    struct Exploring<F>(Canned, F);

    impl<F: Fn(&[String]) -> Explored> Tool for Exploring<F> {
        fn help(&mut self, args: &[String], program: &str) -> Result<String, String> {
            self.0.help(args, program)
        }
        fn listing(&mut self, args: &[String]) -> Result<String, String> {
            self.0.listing(args)
        }
        fn try_read(&mut self, argv: &[String]) -> Trial {
            self.0.try_read(argv)
        }
        fn measure(&mut self, argv: &[String]) -> Measured {
            self.0.measure(argv)
        }
        fn explore(&mut self, argvs: &[Vec<String>]) -> Vec<Explored> {
            argvs.iter().map(|argv| (self.1)(argv)).collect()
        }
    }

    fn probes(body: &Body, kind: &str) -> Vec<String> {
        body.probes
            .iter()
            .filter(|p| p["kind"] == kind)
            .map(|p| p["name"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    fn left_out<'a>(body: &'a Body, command: &str) -> Option<&'a str> {
        let census = body.census.as_ref()?;
        census
            .left
            .iter()
            .find(|l| l.command == command)
            .map(|l| l.reason.as_str())
    }

    #[test]
    fn a_group_that_needs_a_subcommand_is_descended_into_never_probed_bare() {
        let mut tool = Canned::with(&[
            ("", "Usage: cargo [OPTIONS] [COMMAND]\n\nCommands:\n    nextest     Run tests with nextest\n"),
            ("nextest", "Usage: cargo nextest [OPTIONS] <COMMAND>\n\nCommands:\n  list         List tests\n  show-config  Show configuration\n"),
            ("nextest list", "Usage: cargo nextest list [OPTIONS] [FILTERS]...\n"),
            ("nextest show-config", include_str!("fixtures/clap-nextest-show-config.txt")),
            ("nextest show-config version", "Usage: cargo nextest show-config version [OPTIONS]\n"),
            ("nextest show-config test-groups", "Usage: cargo nextest show-config test-groups [OPTIONS]\n"),
        ]);
        let body = explore(&mut tool, "cargo", &Settings::default()).expect("explored");
        assert_eq!(
            probes(&body, "read"),
            [
                "nextest list",
                "nextest show-config test-groups",
                "nextest show-config version"
            ]
        );
        assert!(body.lists_subcommands);
    }

    #[test]
    fn oclif_ids_from_commands_json_are_run_as_listed_and_classified_by_their_verb() {
        let mut tool = Canned::with(&[
            ("", include_str!("fixtures/oclif-herd.txt")),
            ("apps", include_str!("fixtures/oclif-herd-apps.txt")),
            ("config", include_str!("fixtures/oclif-herd-config.txt")),
            ("apps:favorites", "list favorited apps\n\nUSAGE\n  $ herd apps:favorites\n\nCOMMANDS\n  apps:favorites:add  favorites an app\n"),
            ("apps:favorites:add", "USAGE\n  $ herd apps:favorites:add\n"),
            ("apps:info", "USAGE\n  $ herd apps:info [-a <value>] [-j]\n"),
            ("apps:create", "USAGE\n  $ herd apps:create [NAME]\n"),
            ("commands", "USAGE\n  $ herd commands [--json]\n"),
            ("login", "USAGE\n  $ herd login\n"),
            ("status", "USAGE\n  $ herd status\n"),
        ]);
        tool.listings.insert(
            "commands --json".into(),
            include_str!("fixtures/oclif-herd-commands.json").into(),
        );
        let settings = Settings {
            mutating_gaps: vec!["the network is not at the black hole".into()],
            allow_destructive: false,
            budget: None,
        };
        let body = explore(&mut tool, "herd", &settings).expect("explored");
        assert_eq!(
            probes(&body, "read"),
            ["apps", "apps:favorites", "apps:info", "commands", "status"]
        );
        // `apps:destroy` is destructive by its last segment, `apps:create` mutating.
        assert!(left_out(&body, "apps:destroy").is_some_and(|r| r.starts_with("destructive")));
        assert!(left_out(&body, "apps:create").is_some_and(|r| r.contains("mutates")));
        // Its listing shows a required argument: surveyed with a made-up one.
        assert!(left_out(&body, "config:get").is_none());
        assert!(body
            .check_only
            .iter()
            .any(|p| p["name"] == "config:get conform-probe"));
        // The topic is read for its commands, never run bare; each id is asked once.
        assert!(left_out(&body, "config").is_none());
        assert!(!probes(&body, "read").contains(&"config".to_string()));
        assert_eq!(tool.asked.iter().filter(|a| *a == "apps:info").count(), 1);
        assert!(!tool.asked.iter().any(|a| a == "debug:internals"));
    }

    #[test]
    fn a_tool_whose_help_lists_no_subcommands_gets_no_unknown_command_probe() {
        let mut tool = Canned::with(&[("", include_str!("fixtures/curl.txt"))]);
        let body = explore(&mut tool, "curl", &Settings::default()).expect("explored");
        assert!(!body.lists_subcommands);
        assert_eq!(probes(&body, "invalid"), ["unknown flag"]);
        let mut tool = Canned::with(&[("", "Usage: t <command>\n")]);
        let body = explore(&mut tool, "t", &Settings::default()).expect("explored");
        assert!(
            body.lists_subcommands,
            "a command slot says it has commands"
        );
    }

    #[test]
    fn servers_are_left_out_by_their_summary_or_by_the_port_their_run_listened_on() {
        let root = "Usage: t <COMMAND>\n\nCommands:\n  \
            explore  Look around the deployments\n  \
            list     List the servers\n  \
            server   Run the language server\n  \
            ui       Start a local web UI\n";
        // `explore` says nothing of serving: only its run shows it.
        let listens = |argv: &[String]| Explored {
            exit_code: Some(0),
            finished: argv != ["explore"],
            listening: (argv == ["explore"]).then_some(8001),
            ..Explored::default()
        };
        let mut tool = Exploring(
            Canned::with(&[
                ("", root),
                ("explore", "Usage: t explore\n"),
                ("list", "Usage: t list\n"),
                ("server", "Usage: t server\n"),
                ("ui", "Usage: t ui\n"),
            ]),
            listens,
        );
        let body = explore(&mut tool, "t", &Settings::default()).expect("explored");
        assert_eq!(probes(&body, "read"), ["list"]);
        for (command, why) in [
            ("server", "its name is `server`"),
            ("ui", "its help says \"Start a local web UI\""),
            ("explore", "still listening on port 8001"),
        ] {
            let reason = left_out(&body, command).unwrap_or_default();
            assert!(
                reason.starts_with("serves by design") && reason.contains(why),
                "{command}: {reason}"
            );
        }
    }

    #[test]
    fn a_command_that_changed_the_bait_or_says_it_formats_is_never_saved() {
        let root = "Usage: t <COMMAND>\n\nCommands:\n  \
            check   Check the sources\n  \
            fmt     Format the sources\n  \
            list    List the rules\n  \
            tidy    Tidy the sources\n";
        // `tidy` says nothing of writing: only its run shows it. `fmt` changed
        // nothing (an empty project), and its name keeps it out all the same.
        let runs = |argv: &[String]| Explored {
            exit_code: Some(0),
            bait: crate::init::bait::Changes {
                changed: if argv == ["tidy"] {
                    vec!["README.md".into(), "app.py".into()]
                } else {
                    Vec::new()
                },
                ..Default::default()
            },
            ..Explored::default()
        };
        let mut tool = Exploring(
            Canned::with(&[
                ("", root),
                ("check", "Usage: t check\n"),
                ("fmt", "Usage: t fmt\n"),
                ("list", "Usage: t list\n"),
                ("tidy", "Usage: t tidy\n"),
            ]),
            runs,
        );
        let body = explore(&mut tool, "t", &Settings::default()).expect("explored");
        assert_eq!(probes(&body, "read"), ["check", "list"]);
        let reasons = crate::init::saving::check_only_reasons(&body.warnings);
        assert_eq!(
            reasons["tidy"],
            "changed 2 files in the bait project: README.md, app.py"
        );
        assert!(
            reasons["fmt"]
                .as_str()
                .is_some_and(|why| why.starts_with("its name says it formats (`fmt`)")),
            "{reasons:?}"
        );
    }

    #[test]
    fn files_most_commands_write_are_the_tools_state_not_a_mutation() {
        // Every command writes the telemetry id and a log named by its time (here
        // by the command); `link` also its project file, `chat` its history in HOME.
        let writes = |argv: &[String]| {
            let mut wrote = vec![
                "config/t/".to_string(),
                "config/t/logs/".to_string(),
                format!("config/t/logs/t-{}.log", argv.join("-")),
                "data/t/telemetry.json".to_string(),
            ];
            if argv == ["link"] {
                wrote.push("cwd/.t/project.json".into());
            }
            if argv == ["chat"] {
                wrote.push("data/t/history.db".into());
            }
            Explored {
                exit_code: Some(0),
                wrote,
                ..Explored::default()
            }
        };
        let names = ["chat", "deploy", "link", "list", "status", "whoami"];
        let usages: Vec<(&str, String)> = names
            .iter()
            .map(|name| (*name, format!("Usage: t {name} [OPTIONS]\n")))
            .collect();
        let root = format!(
            "Usage: t <COMMAND>\n\nCommands:\n{}",
            names
                .map(|name| format!("  {name:<8} Does {name}\n"))
                .concat()
        );
        let mut help = vec![("", root.as_str())];
        help.extend(usages.iter().map(|(name, text)| (*name, text.as_str())));
        let mut tool = Exploring(Canned::with(&help), writes);
        let body = explore(&mut tool, "t", &Settings::default()).expect("explored");
        assert_eq!(probes(&body, "read"), ["list", "status", "whoami"]);
        assert!(left_out(&body, "link")
            .is_some_and(|r| r.contains("cwd/.t/project.json") && !r.contains("telemetry")));
        let state = body.warnings.iter().find(|w| w.code == "TOOL_STATE");
        assert_eq!(
            state.map(|w| &w.context["files"]),
            Some(&json!([
                "config/t/",
                "config/t/logs/",
                "data/t/telemetry.json"
            ])),
            "{state:?}"
        );
        // What mutates only in its fresh HOME, or by its name, is judged under
        // check and never saved; the made-up flag goes on a saved read probe.
        let check_only: Vec<&str> = body
            .check_only
            .iter()
            .filter_map(|p| p["name"].as_str())
            .collect();
        assert_eq!(check_only, ["chat", "deploy"]);
        let census = body.census.as_ref().expect("a census");
        assert_eq!(census.check_only, ["chat", "deploy"]);
        assert!(census.probed.contains(&"chat".to_string()));
        assert_eq!(probes(&body, "invalid"), ["unknown flag on list"]);
        assert!(body.warnings.iter().any(|w| w.code == "CHECK_ONLY_PROBE"
            && w.message.contains("chat")
            && w.message.contains("data/t/history.db")));
    }

    #[test]
    fn an_api_tree_is_read_four_words_deep_and_probed_within_the_budget() {
        // twilio's shape: `api SERVICE RESOURCE ACTION`, every group needing a
        // subcommand; 3 x 30 resources x 3 actions is 270 commands to probe.
        let mut help = vec![(
            String::new(),
            "Usage: t <command>\n\nCommands:\n  api  Every API\n".to_string(),
        )];
        let group = |path: &str, subs: &[String]| {
            let mut text = format!("Usage: t {path} <command>\n\nCommands:\n");
            for sub in subs {
                text.push_str(&format!("  {sub}  the {sub}\n"));
            }
            (path.to_string(), text)
        };
        let services: Vec<String> = (1..=3).map(|n| format!("svc{n}")).collect();
        let resources: Vec<String> = (1..=30).map(|n| format!("res{n:02}")).collect();
        let actions: Vec<String> = ["create", "get", "list"].map(String::from).to_vec();
        help.push(group("api", &services));
        for service in &services {
            help.push(group(&format!("api {service}"), &resources));
            for resource in &resources {
                help.push(group(&format!("api {service} {resource}"), &actions));
                for action in &actions {
                    let path = format!("api {service} {resource} {action}");
                    help.push((path.clone(), format!("Usage: t {path} [options]\n")));
                }
            }
        }
        let help: Vec<(&str, &str)> = help.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let mut tool = Canned::with(&help);
        let body = explore(&mut tool, "t", &Settings::default()).expect("explored");
        let census = body.census.as_ref().expect("a census");
        // Every read of the deepest level is probed; the budget keeps 20 of the 90
        // commands whose names say they mutate, one per resource in listed order.
        let reads = probes(&body, "read");
        assert_eq!(reads.len(), 180, "{reads:?}");
        assert!(reads.contains(&"api svc3 res30 list".to_string()));
        assert!(reads.contains(&"api svc3 res30 get".to_string()));
        assert_eq!(body.check_only.len(), 20);
        assert_eq!(census.probed.len(), MAX_PROBES);
        let past: Vec<&str> = census
            .left
            .iter()
            .filter(|l| {
                l.reason
                    .starts_with("past exploration's budget of 200 probes")
            })
            .map(|l| l.command.as_str())
            .collect();
        assert_eq!(past.len(), 70, "{past:?}");
        assert!(past.iter().all(|c| c.ends_with(" create")), "{past:?}");
        assert!(!past.contains(&"api svc1 res01 create"));
        assert!(left_out(&body, "api svc1 res01").is_none());
    }

    #[test]
    fn a_required_operand_is_made_up_and_the_probe_is_never_saved() {
        let mut tool = Canned::with(&[
            (
                "",
                "Usage: t <COMMAND>\n\nCommands:\n  get   Get one\n  list  List\n  pick  Pick\n",
            ),
            ("get", "Usage: t get [OPTIONS] NAME\n"),
            ("list", "Usage: t list [OPTIONS]\n"),
            ("pick", "Usage: t pick --from <LIST>\n"),
        ]);
        let body = explore(&mut tool, "t", &Settings::default()).expect("explored");
        assert_eq!(probes(&body, "read"), ["list"]);
        let check_only: Vec<&str> = body
            .check_only
            .iter()
            .filter_map(|p| p["name"].as_str())
            .collect();
        // A required option too: the made-up operand shows its error path.
        assert_eq!(check_only, ["get conform-probe", "pick conform-probe"]);
        assert!(left_out(&body, "pick").is_none());
    }

    #[test]
    fn past_the_budget_the_commands_an_agent_calls_first_are_read_first() {
        let command = |path: &[&str]| Found {
            danger: crate::explore::danger::danger(
                &path.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
                "",
            ),
            path: path.iter().map(|w| w.to_string()).collect(),
            class: classify(path.last().copied().unwrap_or("")),
            requires_argument: false,
            group: false,
            serves: None,
        };
        let mut asked = vec![
            command(&["compute", "create-instance"]),
            command(&["compute", "describe-instances"]),
            command(&["compute", "list-images"]),
            command(&["identity", "assume-role"]),
            command(&["identity", "update-identity-center"]),
            command(&["identity", "get-caller-identity"]),
            command(&["storage", "list-buckets"]),
            command(&["storage", "get-bucket"]),
        ];
        let left = within_budget(&mut asked, 4, |c| c);
        let shown = |commands: &[Found]| commands.iter().map(Found::shown).collect::<Vec<_>>();
        // The whoami of the tool first (not a command that changes an identity),
        // then one read of each service before a second read of any; what is kept
        // stays in listed order.
        assert_eq!(
            shown(&asked),
            [
                "compute describe-instances",
                "compute list-images",
                "identity get-caller-identity",
                "storage list-buckets"
            ]
        );
        assert_eq!(
            shown(&left),
            [
                "compute create-instance",
                "identity assume-role",
                "identity update-identity-center",
                "storage get-bucket"
            ]
        );
        let mut few = vec![command(&["compute", "create-instance"])];
        assert!(within_budget(&mut few, 4, |c| c).is_empty());
        assert_eq!(few.len(), 1);
    }

    #[test]
    fn preview_flags_are_found_among_the_options() {
        let page = read_page(
            "Usage: t delete [OPTIONS]\n\nOptions:\n  -n, --dry-run   show what would go\n",
            &["t", "delete"],
        );
        assert_eq!(preview_flag(&page).as_deref(), Some("--dry-run"));
        let page = read_page("Options:\n  --dry-run-only  x\n", &["t", "delete"]);
        assert_eq!(preview_flag(&page), None);
    }

    /// A tool whose root help gave none, as `unread` says.
    struct Unhelpful(Unread);

    impl Tool for Unhelpful {
        fn help(&mut self, _: &[String], _: &str) -> Result<String, String> {
            Err(self.0.reason.clone())
        }

        fn root_help(&mut self, _: &str) -> Result<String, Unread> {
            Err(self.0.clone())
        }

        fn listing(&mut self, _: &[String]) -> Result<String, String> {
            Err("no listing".into())
        }

        fn try_read(&mut self, _: &[String]) -> Trial {
            Trial::Passed
        }

        fn measure(&mut self, _: &[String]) -> Measured {
            Measured::Failed
        }
    }

    fn unread(how: Unusable, printed: &str) -> Unread {
        Unread {
            reason: "`t --help` exited 1 without a usage line".into(),
            call: "`t --help`".into(),
            printed: printed.into(),
            how,
        }
    }

    #[test]
    fn a_help_that_prompts_leaves_the_unknown_flag_probe_and_a_warning_showing_the_prompt() {
        let mut tool = Unhelpful(unread(Unusable::Prompted, "Try it anyway? [y/N]"));
        let body = explore(&mut tool, "t", &Settings::default()).expect("explored");
        assert!(body.help_unread);
        assert!(!body.lists_subcommands);
        let argvs: Vec<&Value> = body.probes.iter().map(|p| &p["argv"]).collect();
        assert_eq!(argvs, [&json!([UNKNOWN_FLAG])]);
        let codes: Vec<&str> = body.warnings.iter().map(|w| w.code).collect();
        assert_eq!(codes, ["HELP_UNREAD"]);
        assert!(
            body.warnings[0].message.contains("Try it anyway? [y/N]"),
            "{}",
            body.warnings[0].message
        );
    }

    #[test]
    fn a_help_that_prints_nothing_or_cannot_start_is_no_profile() {
        for how in [Unusable::Silent, Unusable::NotStarted] {
            let mut tool = Unhelpful(unread(how, ""));
            let failure = explore(&mut tool, "t", &Settings::default()).expect_err("no help");
            assert_eq!(failure.status, crate::envelope::ExitStatus::GeneralError);
        }
    }
}
