//! Every route to the command list. When the root help lists fewer commands than
//! it names, or none where it speaks of commands, the routes CLI frameworks offer
//! are tried in a fixed order, each a run like any other (stdin closed, offline,
//! a fresh HOME), until the commands found reach what the help names:
//! `TOOL help`, `TOOL list`, `TOOL commands` and `TOOL commands --json`,
//! then the completion protocols (click's `_TOOL_COMPLETE`, cobra's
//! `__complete`, yargs' `--get-yargs-completions`), then `--help-all`.

use serde_json::json;

use super::commands::{add, HelpEntry};
use super::listing::read_listing;
use super::words::{command_placeholder, indent, is_command_name, tokens};
use crate::init::tool::Tool;
use crate::init::{Body, Warning};

/// How a route's output is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// A help listing, or a JSON array of commands (oclif's `commands --json`).
    Listing,
    /// click's `zsh_complete`: `type`, `value`, `help` on three lines each.
    Click,
    /// cobra's `__complete`: `name<TAB>summary` lines, then `:DIRECTIVE`.
    Cobra,
    /// yargs: `name` or `name:summary` lines.
    Yargs,
}

/// One route: the arguments after the program, the variables it is run with.
struct Route {
    args: Vec<String>,
    env: Vec<(String, String)>,
    reader: Reader,
}

/// The routes, in the order they are tried. `program` is the program's name as
/// its help writes it (click names its completion variable after it).
fn routes(program: &str) -> Vec<Route> {
    let plain = |args: &[&str], reader: Reader| Route {
        args: args.iter().map(|a| a.to_string()).collect(),
        env: Vec::new(),
        reader,
    };
    let click_var = format!(
        "_{}_COMPLETE",
        program.replace('-', "_").to_ascii_uppercase()
    );
    vec![
        plain(&["help"], Reader::Listing),
        plain(&["list"], Reader::Listing),
        plain(&["commands"], Reader::Listing),
        plain(&["commands", "--json"], Reader::Listing),
        Route {
            args: Vec::new(),
            env: vec![
                (click_var, "zsh_complete".into()),
                ("COMP_WORDS".into(), format!("{program} ")),
                ("COMP_CWORD".into(), "1".into()),
            ],
            reader: Reader::Click,
        },
        plain(&["__complete", ""], Reader::Cobra),
        plain(&["--get-yargs-completions", program, ""], Reader::Yargs),
        plain(&["--help-all"], Reader::Listing),
    ]
}

/// How many commands the help names, about: the entries of its sections on
/// commands (a name, a column gap, a summary), each once, and argparse's
/// `{a,b,c}` choices; a metavar (`command`, `<command>`) is never one.
pub(super) fn named(help: &str) -> usize {
    let text = super::text::plain(help);
    let mut names: Vec<String> = Vec::new();
    let mut heading: Option<usize> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let depth = indent(line);
        if let Some(inner) = trimmed.strip_prefix('{').and_then(|t| t.split('}').next()) {
            let choices = inner
                .split(',')
                .map(str::trim)
                .filter(|n| is_command_name(n));
            names.extend(choices.map(str::to_string));
            continue;
        }
        let lower = trimmed.to_ascii_lowercase();
        let entry = trimmed.contains("  ") || trimmed.contains('\t');
        if !entry {
            let titled = lower.contains("command") && lower.split_whitespace().count() <= 4;
            heading = match heading {
                _ if titled && !lower.starts_with("usage") => Some(depth),
                Some(at) if depth <= at => None,
                kept => kept,
            };
            continue;
        }
        let Some(at) = heading else { continue };
        if depth < at {
            heading = None;
            continue;
        }
        let left = trimmed.split("  ").next().unwrap_or("").trim();
        let left = left.strip_prefix("$ ").unwrap_or(left);
        let words = tokens(left);
        let Some(first) = words.first() else { continue };
        let name = first.trim_end_matches([',', ':']);
        let name = name.split('|').next().unwrap_or(name);
        if command_placeholder(name).is_some() || !is_command_name(name) || name == "command" {
            continue;
        }
        // cleo's `cache clear`: both words name the command.
        let key = match words.get(1) {
            Some(second) if is_command_name(second) => format!("{name} {second}"),
            _ => name.to_string(),
        };
        names.push(key);
    }
    names.sort();
    names.dedup();
    names.len()
}

/// Whether the routes are worth trying: fewer commands found than the help
/// names, or none where the help speaks of commands (a command slot in its
/// usage, the word anywhere).
pub(super) fn wanted(help: &str, found: usize, named: usize) -> bool {
    found < named || (found == 0 && help.to_ascii_lowercase().contains("command"))
}

/// Tries the routes in order, adding what each lists to `entries`, until the
/// commands found reach what the help names (one at least); a warning says which
/// routes gave commands, and that none did when none did.
pub(super) fn follow(
    tool: &mut dyn Tool,
    program: &str,
    named: usize,
    entries: &mut Vec<HelpEntry>,
    body: &mut Body,
) {
    let mut tried: Vec<String> = Vec::new();
    let mut gave: Vec<String> = Vec::new();
    for route in routes(program) {
        if entries.len() >= named.max(1) {
            break;
        }
        let shown = shown(program, &route);
        tried.push(shown.clone());
        let Ok(text) = tool.listing_with(&route.args, &route.env) else {
            continue;
        };
        let listed = read(&text, program, route.reader);
        let before = entries.len();
        for entry in listed {
            if !matches!(entry.name.as_str(), "help" | "completion" | "__complete") {
                add(entries, entry);
            }
        }
        if entries.len() > before {
            gave.push(format!("{shown} ({})", entries.len() - before));
        }
    }
    if tried.is_empty() {
        return;
    }
    let named_words = if named > 0 {
        format!("fewer commands than it names (about {named})")
    } else {
        "no command".to_string()
    };
    let message = if gave.is_empty() {
        format!(
            "the help lists {named_words}, and no other route listed any: tried {}",
            tried.join(", ")
        )
    } else {
        format!(
            "the help lists {named_words}; found more through {}",
            gave.join(", ")
        )
    };
    body.warnings.push(Warning::new(
        "COMMAND_ROUTES",
        message,
        json!({ "named": named, "tried": tried, "gave": gave }),
    ));
}

/// A route as typed: `_T_COMPLETE=zsh_complete t`, `t __complete ''`.
fn shown(program: &str, route: &Route) -> String {
    let env: Vec<String> = route
        .env
        .iter()
        .map(|(k, v)| format!("{k}={v:?}"))
        .collect();
    let args: Vec<String> = route
        .args
        .iter()
        .map(|a| {
            if a.is_empty() {
                "''".to_string()
            } else {
                a.clone()
            }
        })
        .collect();
    [env, vec![program.to_string()], args].concat().join(" ")
}

/// The commands a route printed, as its reader reads them.
fn read(text: &str, program: &str, reader: Reader) -> Vec<HelpEntry> {
    let pairs: Vec<(String, String)> = match reader {
        Reader::Listing => return read_listing(text, program),
        Reader::Click => {
            let lines: Vec<&str> = text.lines().collect();
            lines
                .chunks(3)
                .filter(|item| item.len() == 3 && item[0] == "plain")
                .map(|item| {
                    (
                        item[1].to_string(),
                        item[2].trim_start_matches('_').to_string(),
                    )
                })
                .collect()
        }
        Reader::Cobra => text
            .lines()
            .take_while(|line| !line.starts_with(':'))
            .map(|line| match line.split_once('\t') {
                Some((name, summary)) => (name.to_string(), summary.to_string()),
                None => (line.to_string(), String::new()),
            })
            .collect(),
        Reader::Yargs => text
            .lines()
            .map(|line| match line.split_once(':') {
                Some((name, summary)) => (name.to_string(), summary.to_string()),
                None => (line.to_string(), String::new()),
            })
            .collect(),
    };
    let mut out: Vec<HelpEntry> = Vec::new();
    for (name, summary) in pairs {
        let name = name.trim();
        if !is_command_name(name) || name.contains(':') {
            continue;
        }
        add(
            &mut out,
            HelpEntry {
                name: name.to_string(),
                summary: summary.trim().to_string(),
                requires_argument: false,
                path: vec![name.to_string()],
                group: false,
            },
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_completion_protocol_is_read_for_its_names() {
        let names = |text: &str, reader: Reader| -> Vec<String> {
            read(text, "t", reader)
                .into_iter()
                .map(|e| e.name)
                .collect()
        };
        assert_eq!(
            names("plain\nstatus\nShow status\nplain\ndb\n_\n", Reader::Click),
            ["status", "db"]
        );
        assert_eq!(
            names(
                "list\tList things\nget\tGet one\n:4\nCompletion ended with directive\n",
                Reader::Cobra
            ),
            ["list", "get"]
        );
        assert_eq!(
            names("list:List things\n--help\nget\n", Reader::Yargs),
            ["list", "get"]
        );
    }

    #[test]
    fn the_commands_a_help_names_are_counted_and_a_metavar_is_not_one() {
        let argparse = "usage: dv [-h] command ...\n\nAvailable Commands:\n  command     Use `dv command --help`\n    init      Initialise\n    add       Track files\n    push      Upload\n";
        assert_eq!(named(argparse), 3);
        let cleo = "Available commands:\n  about     Shows information\n  add       Adds a dependency\n\n cache\n  cache clear   Clears a cache\n  cache list    Lists caches\n";
        assert_eq!(named(cleo), 4);
        assert_eq!(
            named("usage: t [-h] {a,b,c} ...\n\npositional arguments:\n  {a,b,c}\n"),
            3
        );
        assert_eq!(
            named("Usage: curl [options...] <url>\n -d, --data <data>   HTTP POST data\n"),
            0
        );
    }
}
