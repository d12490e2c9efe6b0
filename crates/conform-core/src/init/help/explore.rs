//! `conform check` without a manifest: exploration is a conformance run. The whole
//! command tree is read from the help texts (groups descended into, to
//! [`MAX_DEPTH`] words), and every command whose name is not destructive becomes a
//! read probe, whatever its exploration run showed: a command that prompts, opens a
//! browser, hangs or goes for the network is judged by the checks that read such
//! runs, not dropped. Only what cannot be a read probe is left out, each with why: a
//! required argument, a destructive name (without `--allow-destructive`), a
//! mutating name when the hermetic conditions do not hold, and a command that left
//! files in its HOME or working directory (it mutates).
//!
//! Every help call of a level, and every exploration run, is made at once; the
//! result depends only on what the runs showed, in sorted order, so the same tool
//! gives the same profile every time.

use serde_json::{json, Value};

use super::classify::{classify, Class};
use super::commands::{add, full_list_argv, subcommands, usage_subcommands, HelpEntry};
use super::usage::{program_name, requires_argument, usage_forms};
use super::words::is_name;
use crate::init::tool::{Explored, Tool};
use crate::init::{probe, Body, Census, Failure, Warning, UNKNOWN_FLAG};

/// How deep the command tree is read: `tool a b c`.
pub(crate) const MAX_DEPTH: usize = 3;

/// What exploration may do.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    /// The hermetic conditions that do not hold, in words: a command whose name
    /// says it mutates runs only when there is none.
    pub mutating_gaps: Vec<String>,
    /// Destructive commands are probed (refusal, then their preview flag).
    pub allow_destructive: bool,
}

/// A command found, by its words after the program.
#[derive(Debug, Clone)]
struct Found {
    path: Vec<String>,
    class: Class,
    requires_argument: bool,
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
    let root = tool.help(&[], name).map_err(|why| {
        Failure::tool(
            "NO_HELP",
            format!("no help text to read: {why}"),
            "check that the tool prints help for --help or -h, or write the profile by hand (`conform schema profile`)",
        )
    })?;
    let program = program_name(&root, name);
    let program = program.as_str();
    let mut body = Body::default();
    let mut entries = root_entries(tool, &root, program, &mut body);
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    body.lists_subcommands = !entries.is_empty();

    let mut census = Census::default();
    let mut candidates: Vec<Vec<String>> = Vec::new();
    let mut destructive: Vec<(Vec<String>, String)> = Vec::new();
    let mut level: Vec<Found> = entries
        .iter()
        .map(|entry| found(Vec::new(), entry))
        .collect();
    for depth in 1..=MAX_DEPTH {
        let mut asked: Vec<Found> = Vec::new();
        for command in level {
            if command.class == Class::Framework {
                continue;
            }
            census.found.push(command.shown());
            if let Some(reason) = left_out_unasked(&command, settings) {
                census.left_out(&command.shown(), reason);
                continue;
            }
            asked.push(command);
        }
        let paths: Vec<Vec<String>> = asked.iter().map(|c| c.path.clone()).collect();
        let texts = tool.helps(&paths, program);
        let mut next: Vec<Found> = Vec::new();
        for (command, text) in asked.into_iter().zip(texts) {
            let shown = command.shown();
            let last = command.path.last().map_or("", String::as_str);
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
                Err(_) => {
                    candidates.push(command.path);
                    continue;
                }
            };
            let mut subs: Vec<HelpEntry> = Vec::new();
            let mut words: Vec<&str> = vec![program];
            words.extend(command.path.iter().map(String::as_str));
            for sub in subcommands(&text, &words)
                .into_iter()
                .chain(usage_subcommands(&text, last, program))
                .chain(prefixed_entries(&text, last))
            {
                if sub.name != last && classify(&sub.name) != Class::Framework {
                    add(&mut subs, sub);
                }
            }
            subs.sort_by(|a, b| a.name.cmp(&b.name));
            let required = requires_argument(&text, last, program);
            if command.class == Class::Destructive {
                match (required, preview_flag(&text)) {
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
            if needs_subcommand(required, &subs) || names_a_command_slot(&text, last, program) {
                // A group: its subcommands are the commands, never the bare group.
                if depth == MAX_DEPTH {
                    census.left_out(
                        &shown,
                        format!("a group below {MAX_DEPTH} words, which exploration does not read"),
                    );
                }
            } else {
                match required {
                    Some(false) => candidates.push(command.path.clone()),
                    Some(true) => census.left_out(
                        &shown,
                        "its usage line shows a required argument; add the probe by hand with a value",
                    ),
                    None => census.left_out(
                        &shown,
                        "its help has no usage line naming it, so required arguments cannot be ruled out",
                    ),
                }
            }
            if depth < MAX_DEPTH {
                next.extend(subs.iter().map(|sub| found(command.path.clone(), sub)));
            }
        }
        level = next;
    }

    let runs = tool.explore(&candidates);
    let mut finished = Vec::new();
    let mut unfinished = Vec::new();
    for (argv, run) in candidates.into_iter().zip(runs) {
        let shown = argv.join(" ");
        if let Some(error) = run.error {
            census.left_out(&shown, format!("it could not be run: {error}"));
            continue;
        }
        if !run.wrote.is_empty() {
            body.warnings.push(Warning::new(
                "CANDIDATE_MUTATES",
                format!(
                    "{shown}: not a read probe: its exploration run left files behind, so it mutates: {}",
                    run.wrote.join(", ")
                ),
                json!({ "command": shown, "files": run.wrote }),
            ));
            census.left_out(
                &shown,
                format!("it mutates: it left {}", run.wrote.join(", ")),
            );
            continue;
        }
        census.probed.push(shown.clone());
        if clean(&run) {
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

/// The commands the root help lists, with the full listing it points at.
fn root_entries(tool: &mut dyn Tool, root: &str, program: &str, body: &mut Body) -> Vec<HelpEntry> {
    let mut entries = subcommands(root, &[program]);
    if let Some(argv) = full_list_argv(root, program) {
        match tool.listing(&argv) {
            Ok(text) => {
                for entry in subcommands(&text, &[program]) {
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
    entries
}

fn found(parent: Vec<String>, entry: &HelpEntry) -> Found {
    // cargo lists its aliases as `r   alias: run`: an alias is what it stands for.
    let class = match entry.summary.strip_prefix("alias:") {
        Some(target) => classify(target.split_whitespace().next().unwrap_or(&entry.name)),
        None => classify(&entry.name),
    };
    let mut path = parent;
    path.push(entry.name.clone());
    Found {
        path,
        class,
        requires_argument: entry.requires_argument,
    }
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
    command
        .requires_argument
        .then(|| "its listing shows a required argument; add the probe by hand with a value".into())
}

/// Whether a command with these subcommands must be given one: its usage shows
/// a required argument, or no usage line names it. (The help parser's `group`
/// marker will say so directly; until then this reads the usage.)
fn needs_subcommand(required: Option<bool>, subs: &[HelpEntry]) -> bool {
    !subs.is_empty() && required != Some(false)
}

/// Entries a group's help lists with the group's name first (`deployments list
/// ...` under `Commands:`), which the listing parser reads only after the
/// program's name. (To be replaced by the help parser's own reading.)
fn prefixed_entries(help: &str, group: &str) -> Vec<HelpEntry> {
    let mut out = Vec::new();
    let mut in_commands = false;
    for line in help.lines() {
        let trimmed = line.trim();
        if !line.starts_with(char::is_whitespace) {
            in_commands = trimmed.to_ascii_lowercase().contains("command");
            continue;
        }
        let mut words = trimmed.split_whitespace();
        if !in_commands || words.next() != Some(group) {
            continue;
        }
        let Some(sub) = words.next() else { continue };
        if is_name(sub) {
            let rest: Vec<&str> = words.collect();
            out.push(HelpEntry {
                name: sub.to_string(),
                summary: rest.join(" "),
                requires_argument: rest.first().is_some_and(|w| w.starts_with('<')),
                path: vec![group.to_string(), sub.to_string()],
                group: false,
            });
        }
    }
    out
}

/// Whether a usage line puts a command slot right after `name`
/// (`Usage: democli deployments <command>`): a group that needs a subcommand.
/// (The help parser's `group` marker will say so; until then this reads it.)
fn names_a_command_slot(help: &str, name: &str, program: &str) -> bool {
    const SLOTS: &[&str] = &[
        "<command>",
        "<subcommand>",
        "<cmd>",
        "command",
        "subcommand",
    ];
    usage_forms(help, program).iter().any(|form| {
        let words: Vec<&str> = form.split_whitespace().collect();
        words
            .iter()
            .rposition(|w| *w == name)
            .and_then(|at| words.get(at + 1))
            .is_some_and(|next| SLOTS.contains(&next.to_ascii_lowercase().as_str()))
    })
}

/// The preview flag a destructive command's help names.
fn preview_flag(help: &str) -> Option<String> {
    const PREVIEW_FLAGS: &[&str] = &["--dry-run", "--dryrun", "--preview", "--what-if", "--plan"];
    PREVIEW_FLAGS
        .iter()
        .find(|flag| {
            help.split(|c: char| c.is_whitespace() || c == ',' || c == '=' || c == '[' || c == ']')
                .any(|word| word == **flag)
        })
        .map(|flag| flag.to_string())
}

/// The run ended by itself, exit 0, offline.
fn clean(run: &Explored) -> bool {
    run.finished && run.exit_code == Some(0) && !run.network
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preview_flags_are_found_as_whole_words() {
        assert_eq!(
            preview_flag("  -n, --dry-run   show what would go").as_deref(),
            Some("--dry-run")
        );
        assert_eq!(preview_flag("  --dry-run-only  x"), None);
        assert_eq!(preview_flag("nothing here"), None);
    }

    #[test]
    fn a_group_needs_a_subcommand_unless_its_usage_runs_it_bare() {
        let subs = vec![HelpEntry {
            name: "list".into(),
            summary: String::new(),
            requires_argument: false,
            path: vec!["list".into()],
            group: false,
        }];
        assert!(needs_subcommand(Some(true), &subs));
        assert!(needs_subcommand(None, &subs));
        assert!(!needs_subcommand(Some(false), &subs));
        assert!(!needs_subcommand(Some(true), &[]));
    }
}
