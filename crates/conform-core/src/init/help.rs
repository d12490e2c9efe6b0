//! `--from-help`: a starting profile for a tool without a manifest, from the help
//! text of clap, cobra, click, argparse and commander (and git's own layout).
//!
//! Help text says nothing reliable about side effects, so only subcommands whose
//! names read as read-only get probes, and only when their usage line shows no
//! required argument. Destructive-looking ones are listed, never written: a
//! destructive probe needs a dry-run flag only the author can vouch for.

use serde_json::{json, Value};

use super::{probe, Body, Failure, Warning, UNKNOWN_FLAG};

/// Names that read as side-effect free.
const READ_VERBS: &[&str] = &[
    "list", "ls", "get", "show", "status", "info", "describe", "search", "version",
];

/// Names that read as deleting something.
const DESTRUCTIVE_VERBS: &[&str] = &["delete", "remove", "rm", "destroy", "drop", "purge"];

/// Framework commands that are not the tool's own.
const FRAMEWORK_COMMANDS: &[&str] = &["help", "completion", "completions"];

/// A subcommand listed in a help text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct HelpEntry {
    pub name: String,
    pub summary: String,
    /// The listing itself shows a required argument (commander: `get <id>`).
    pub requires_argument: bool,
}

/// Help text as UTF-8 without colour codes or man-style overstrike.
pub(super) fn clean(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // CSI: ESC [ parameters final-byte.
            '\u{1b}' => {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
            }
            // Overstrike (`x\bx` bold, `_\bx` underline): keep the last character.
            '\u{8}' => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// A man page rather than help: `git status --help` opens one.
pub(super) fn is_man_page(text: &str) -> bool {
    let headers = text
        .lines()
        .filter(|l| matches!(l.trim_end(), "NAME" | "SYNOPSIS" | "DESCRIPTION"))
        .count();
    headers >= 2
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_name(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The subcommands a help text lists: entries of a section whose header names
/// commands (`Commands:`, `Available Commands:`, `SUBCOMMANDS:`, git's "These are
/// common Git commands ...:"), and argparse's `{a,b,c}` choice line.
pub(super) fn subcommands(help: &str) -> Vec<HelpEntry> {
    let mut out: Vec<HelpEntry> = Vec::new();
    let mut in_section = false;
    let mut entry_indent: Option<usize> = None;
    for line in help.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let lower = trimmed.to_ascii_lowercase();
        if indent(line) == 0 {
            if lower.ends_with(':') {
                in_section = lower.contains("command");
                entry_indent = None;
            } else if lower.starts_with("usage") {
                in_section = false;
            }
            // Any other flush-left line is a group title (git) or prose: the
            // section goes on.
            continue;
        }
        // argparse: `{list,get,delete}` as a positional, anywhere.
        if let Some(inner) = trimmed.strip_prefix('{').and_then(|t| t.split('}').next()) {
            for name in inner.split(',').map(str::trim).filter(|n| is_name(n)) {
                if !out.iter().any(|e| e.name == name) {
                    out.push(HelpEntry {
                        name: name.to_string(),
                        summary: String::new(),
                        requires_argument: false,
                    });
                }
            }
            continue;
        }
        if !in_section {
            continue;
        }
        // Wrapped descriptions are indented deeper than the entries.
        let depth = indent(line);
        match entry_indent {
            Some(first) if depth > first => continue,
            None => entry_indent = Some(depth),
            _ => {}
        }
        if let Some(entry) = parse_entry(trimmed) {
            match out.iter_mut().find(|e| e.name == entry.name) {
                // argparse lists each choice again under the `{...}` line.
                Some(seen) if seen.summary.is_empty() => seen.summary = entry.summary,
                Some(_) => {}
                None => out.push(entry),
            }
        }
    }
    out
}

/// `build, b    Compile`, `get <id>   Show one`, `list [options]  List`.
fn parse_entry(trimmed: &str) -> Option<HelpEntry> {
    let (left, summary) = match trimmed.find("  ").or_else(|| trimmed.find('\t')) {
        Some(at) => (&trimmed[..at], trimmed[at..].trim()),
        None => (trimmed, ""),
    };
    let name = left.split([' ', ',']).next()?;
    if !is_name(name) {
        return None;
    }
    Some(HelpEntry {
        name: name.to_string(),
        summary: summary.to_string(),
        requires_argument: has_required_placeholder(&left[name.len()..]),
    })
}

/// Whether anything outside `[...]` remains: `<id>`, `ID`, `{a,b}`.
fn has_required_placeholder(text: &str) -> bool {
    !outside_brackets(text)
        .split_whitespace()
        .all(|w| w == "..." || w == "--" || w == "|")
}

/// `text` without its `[...]` groups (nested ones too).
fn outside_brackets(text: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Whether the usage line of `name`'s help shows a required argument after the
/// command name: `Usage: tool get <ID>` yes, `usage: git status [<options>]` no.
/// Alternative forms (`or: ...`, git's) count when they name the command; any form
/// without a required argument is enough. `None` when no usage line names it.
pub(super) fn requires_argument(help: &str, name: &str) -> Option<bool> {
    let mut forms = Vec::new();
    let mut lines = help.lines().map(str::trim).filter(|l| !l.is_empty());
    while let Some(line) = lines.next() {
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("usage:") {
            let rest = line[6..].trim();
            // cobra: `Usage:` alone, the usage on the next line.
            if rest.is_empty() {
                forms.extend(lines.next().map(str::to_string));
            } else {
                forms.push(rest.to_string());
            }
        } else if let Some(or) = line.strip_prefix("or:") {
            forms.push(or.trim().to_string());
        }
    }
    let verdicts: Vec<bool> = forms
        .iter()
        .filter_map(|form| {
            let words: Vec<&str> = form.split_whitespace().collect();
            let at = words.iter().rposition(|w| *w == name)?;
            Some(has_required_placeholder(&words[at + 1..].join(" ")))
        })
        .collect();
    if verdicts.is_empty() {
        None
    } else {
        Some(verdicts.iter().all(|&required| required))
    }
}

fn matches_verb(name: &str, verbs: &[&str]) -> bool {
    verbs.iter().any(|verb| {
        name == *verb
            || name
                .strip_prefix(verb)
                .is_some_and(|rest| rest.starts_with('-') || rest.starts_with('_'))
    })
}

/// Probes from help texts. `help` returns the help of the tool followed by the
/// given arguments (`[]` for the tool itself).
pub(super) fn profile_from(
    help: &mut dyn FnMut(&[String]) -> Result<String, String>,
) -> Result<Body, Failure> {
    let root = help(&[]).map_err(|why| {
        Failure::tool(
            "NO_HELP",
            format!("no help text to read: {why}"),
            "check that the tool prints help for --help or -h, or write the profile by hand (`conform schema profile`)",
        )
    })?;
    let mut entries = subcommands(&root);
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let mut body = Body::default();
    let mut others = Vec::new();
    for entry in &entries {
        let name = &entry.name;
        if FRAMEWORK_COMMANDS.contains(&name.as_str()) {
            continue;
        }
        if matches_verb(name, DESTRUCTIVE_VERBS) {
            // Its help is not even run: a tool that ignores --help would delete.
            body.warnings.push(Warning::new(
                "DESTRUCTIVE_CANDIDATE",
                format!("{name} looks destructive: add it by hand as a destructive probe with its dry-run flag (\"dry_run_flag\"), with arguments that point at a sandbox"),
                json!({ "command": name }),
            ));
            continue;
        }
        if !matches_verb(name, READ_VERBS) {
            others.push(name.clone());
            continue;
        }
        if entry.requires_argument {
            body.warnings.push(Warning::skipped(
                name,
                "its listing shows a required argument",
            ));
            continue;
        }
        let text = match help(std::slice::from_ref(name)) {
            Ok(text) => text,
            Err(why) => {
                body.warnings
                    .push(Warning::skipped(name, format!("no help text: {why}")));
                continue;
            }
        };
        match requires_argument(&text, name) {
            Some(false) => {
                let argv = vec![name.clone()];
                body.probes.push(Value::Object(probe(name, &argv, "read")));
            }
            Some(true) => body.warnings.push(Warning::skipped(
                name,
                "its usage line shows a required argument; add the probe by hand with a value",
            )),
            None => body.warnings.push(Warning::skipped(
                name,
                "its help has no usage line naming it, so required arguments cannot be ruled out",
            )),
        }
    }
    if !others.is_empty() {
        body.warnings.push(Warning::new(
            "COMMANDS_NOT_CLASSIFIED",
            format!(
                "not probed, as their names say nothing of side effects: {}; add read probes for the side-effect-free ones by hand",
                others.join(", ")
            ),
            json!({ "commands": others }),
        ));
    }
    if entries.is_empty() {
        body.warnings.push(Warning::new(
            "NO_SUBCOMMANDS",
            "the help lists no subcommands: only the invalid probe is written; add read probes by hand",
            json!({}),
        ));
    }
    // The unknown flag on the first read probe, else on the tool itself.
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
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(help: &str) -> Vec<String> {
        subcommands(help).into_iter().map(|e| e.name).collect()
    }

    #[test]
    fn clap_and_cargo_sections() {
        let help = "Usage: t [OPTIONS] <COMMAND>\n\nCommands:\n  list  List things\n          wrapped line\n  help  Print help\n\nOptions:\n  -h, --help  Print help\n";
        assert_eq!(names(help), ["list", "help"]);
        let cargo =
            "Commands:\n    build, b    Compile\n    ...         See all commands with --list\n";
        assert_eq!(names(cargo), ["build"]);
    }

    #[test]
    fn git_groups_stay_in_the_section() {
        let help = "usage: git [-v]\n\nThese are common Git commands used in various situations:\n\nstart a working area (see also: git help tutorial)\n   clone     Clone\n\nexamine the history\n   status    Show\n\n'git help -a' lists more.\n";
        assert_eq!(names(help), ["clone", "status"]);
    }

    #[test]
    fn argparse_choices() {
        let help = "usage: t [-h] {list,get} ...\n\npositional arguments:\n  {list,get}\n    list      List\n    get       Get one\n\noptions:\n  --format {json,plain}  Format\n";
        assert_eq!(names(help), ["list", "get"]);
    }

    #[test]
    fn commander_placeholders() {
        let entries = subcommands("Commands:\n  get <id>        Get\n  list [options]  List\n");
        assert!(entries[0].requires_argument);
        assert!(!entries[1].requires_argument);
    }

    #[test]
    fn usage_lines() {
        assert_eq!(
            requires_argument(
                "usage: git status [<options>] [--] [<pathspec>...]\n",
                "status"
            ),
            Some(false)
        );
        assert_eq!(
            requires_argument("Usage: t get [OPTIONS] <ID>\n", "get"),
            Some(true)
        );
        assert_eq!(
            requires_argument("Usage:\n  t list [flags]\n", "list"),
            Some(false)
        );
        assert_eq!(
            requires_argument("usage: t get [-h] id\n", "get"),
            Some(true)
        );
        assert_eq!(requires_argument("no usage here\n", "get"), None);
        let git_show = "usage: git log [<options>] [<revision-range>]\n   or: git show [<options>] <object>...\n";
        assert_eq!(requires_argument(git_show, "show"), Some(true));
    }

    #[test]
    fn overstrike_and_colour_are_removed() {
        assert_eq!(
            clean(b"N\x08NA\x08AM\x08ME\x08E \x1b[1mbold\x1b[0m"),
            "NAME bold"
        );
    }
}
