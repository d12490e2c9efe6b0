//! `--from-help`: a starting profile for a tool without a manifest, from the help
//! text of clap, cobra, click, argparse, commander, yargs, Typer (rich's boxes) and
//! git's own layout.
//!
//! Help text says nothing reliable about side effects, so only subcommands whose
//! names read as read-only become candidates, one level down too (`config list`,
//! `projects list`), and only when their usage shows no required argument. Every
//! candidate is then tried once (see [`super::runner`]) and left out when the trial
//! fails. Destructive-looking names are listed, never called: a destructive probe
//! needs a dry-run flag only the author can vouch for. Names that read as changing
//! state are not called either: a tool that ignores `--help` would act.

mod candidates;
mod classify;
mod commands;
mod explore;
mod flags;
mod listing;
mod man;
mod margin;
mod marked;
mod page;
mod routes;
mod serves;
mod text;
mod unread;
mod usage;
mod words;

use serde_json::{json, Value};

use super::tool::{Tool, Trial, Unread, Unusable};
use super::{probe, Body, Failure, Warning, UNKNOWN_FLAG};
use candidates::Found;
use commands::{add, full_list_argv, subcommands};
pub(crate) use explore::{explore, Settings, READS_STDIN};
pub(super) use man::{as_help as man_page_help, points_at_help_word};
pub(super) use text::{clean, is_man_page};
pub(super) use unread::{looks_like_crash, looks_like_prompt, one_line};
pub(super) use usage::looks_like_help;
use usage::program_name;

/// The tool's root help, or the failure that there is none to read.
fn root_help(tool: &mut dyn Tool, name: &str) -> Result<String, Failure> {
    tool.root_help(name).map_err(|unread| no_help(&unread))
}

/// The failure that the tool's help calls gave no help: it could not be started,
/// or (for `conform init`, which writes a profile from the help) nothing it
/// printed was help.
fn no_help(unread: &Unread) -> Failure {
    let Unread {
        reason,
        call,
        printed,
        how,
    } = unread;
    match how {
        Unusable::NotStarted => Failure::tool(
            "TOOL_NOT_STARTED",
            format!("the tool could not be started, so there is nothing to judge: {reason}"),
            "check that the tool is an executable file that runs here: its interpreter line (`#!`) names an interpreter on PATH, and it starts outside this shell",
        ),
        Unusable::Silent => Failure::tool(
            "NO_HELP",
            format!("no help text to read, and nothing else to judge: {reason}, in time, on stdout and stderr"),
            format!("make {call} print its usage (a line such as `Usage: TOOL [OPTIONS] <COMMAND>`) to stderr and exit 0, or write the profile by hand (`conform schema profile`)"),
        ),
        _ => Failure::tool(
            "NO_HELP",
            format!("no help text to read: {reason}; it printed {printed:?}"),
            format!("make {call} print its usage and exit 0 whatever the state of HOME and stdin, or write the profile by hand (`conform schema profile`); `conform check` judges such a tool without its help"),
        ),
    }
}

/// Probes from help texts, asking `tool` for them; `name` is the program's name.
pub(super) fn profile_from(tool: &mut dyn Tool, name: &str) -> Result<Body, Failure> {
    let root = root_help(tool, name)?;
    let name = program_name(&root, name);
    let name = name.as_str();
    let mut body = Body::default();
    let mut entries = subcommands(&root, &[name]);
    if let Some(argv) = full_list_argv(&root, name) {
        match tool.listing(&argv) {
            Ok(text) => {
                for entry in subcommands(&text, &[name]) {
                    add(&mut entries, entry);
                }
            }
            Err(why) => body.warnings.push(Warning::new(
                "COMMAND_LIST_UNREAD",
                format!("the help points at `{name} {}` for every command, which gave nothing to read: {why}", argv.join(" ")),
                json!({ "argv": argv, "reason": why }),
            )),
        }
    }
    let named = routes::named(&root);
    if routes::wanted(&root, entries.len(), named) {
        routes::follow(tool, name, named, &mut entries, &mut body);
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));

    let mut found = Found::default();
    for entry in &entries {
        found.command(tool, name, entry, &mut body);
    }
    found.report(&mut body);
    if entries.is_empty() {
        body.warnings.push(Warning::new(
            "NO_SUBCOMMANDS",
            "the help lists no subcommands: only the invalid probe is written; add read probes by hand",
            json!({}),
        ));
    }
    body.lists_subcommands = !entries.is_empty();
    for argv in found.candidates {
        let shown = argv.join(" ");
        match tool.try_read(&argv) {
            Trial::Passed => body
                .probes
                .push(Value::Object(probe(&shown, &argv, "read"))),
            Trial::Failed { reason, .. } => body.warnings.push(Warning::dropped(&shown, reason)),
        }
    }
    invalid_probe(&mut body);
    Ok(body)
}

/// The unknown flag on the first read probe, else on the tool itself.
fn invalid_probe(body: &mut Body) {
    let first: Vec<String> = body
        .probes
        .first()
        .and_then(|p| p.get("argv"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let argv: Vec<String> = first
        .iter()
        .cloned()
        .chain([UNKNOWN_FLAG.to_string()])
        .collect();
    let name = if first.is_empty() {
        "unknown flag".to_string()
    } else {
        format!("unknown flag on {}", first.join(" "))
    };
    body.probes
        .push(Value::Object(probe(&name, &argv, "invalid")));
}

#[cfg(test)]
mod tests;
