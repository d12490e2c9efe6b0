//! Help written as manual pages, which a tool prints for its `help` word rather
//! than for `--help`: awscli's `aws help`, `aws sts help` and `aws sts
//! get-caller-identity help`. Such a page is rewritten into the layout the readers
//! know: its `SYNOPSIS` becomes one usage line, its `AVAILABLE COMMANDS` (or
//! `SERVICES`) bullets a commands section.

use super::commands::subcommands;
use super::text::is_man_page;
use super::words::is_command_name;

/// Whether a help that lists no command points at the `help` word for the rest:
/// awscli's `aws --help` prints a usage and "To see help text, you can run: aws
/// help". `program` is the program's name as the help writes it.
pub(in crate::init) fn points_at_help_word(help: &str, program: &str) -> bool {
    let word = format!("{program} help");
    help.lines().any(|line| line.trim() == word) && subcommands(help, &[program]).is_empty()
}

/// The manual page `page` (after `text::clean`) in help layout, or `None` when
/// it is not one. A page that lists commands and has no `SYNOPSIS` (awscli's
/// service pages), or one that is the name alone (`aws history`), gets the usage
/// `NAME <command>`: a group, whose commands are read and never the bare group.
pub(in crate::init) fn as_help(page: &str) -> Option<String> {
    if !is_man_page(page) {
        return None;
    }
    let mut out = String::with_capacity(page.len());
    let mut section = Part::Other;
    let mut synopsis: Vec<&str> = Vec::new();
    let mut name: Option<&str> = None;
    let mut usage_seen = false;
    let mut lists = false;
    for line in page.lines() {
        let trimmed = line.trim();
        if let Some(title) = section_title(line) {
            section = match title {
                "NAME" => Part::Name,
                "SYNOPSIS" => {
                    usage_seen = true;
                    synopsis.clear();
                    Part::Synopsis
                }
                _ if lists_commands(title) => {
                    lists = true;
                    out.push_str("Commands:\n");
                    Part::Commands
                }
                _ => {
                    out.push_str(title);
                    out.push('\n');
                    Part::Other
                }
            };
            continue;
        }
        match section {
            Part::Name => {
                if name.is_none() {
                    name = trimmed.split_whitespace().next();
                }
            }
            Part::Synopsis => {
                if !trimmed.is_empty() {
                    synopsis.push(trimmed);
                }
            }
            Part::Commands => {
                let bullet = trimmed.strip_prefix("o ").map(str::trim);
                if let Some(command) = bullet.filter(|c| is_command_name(c)) {
                    out.push_str("  ");
                    out.push_str(command);
                    out.push('\n');
                }
            }
            Part::Other => {
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
    }
    // The usage goes last: whether the page lists commands is known only then.
    // `SYNOPSIS history` alone over `AVAILABLE COMMANDS` names a group (awscli's
    // `aws history` exits 255, "too few arguments"), as a page without a synopsis
    // does.
    let usage = match synopsis.as_slice() {
        [] if !usage_seen && lists => name
            .filter(|n| is_command_name(n))
            .map(|n| format!("{n} <command>")),
        [alone] if lists && is_command_name(alone) => Some(format!("{alone} <command>")),
        [] => None,
        lines => Some(lines.join(" ")),
    };
    if let Some(usage) = usage {
        out.push_str("Usage:\n  ");
        out.push_str(&usage);
        out.push('\n');
    }
    Some(out)
}

/// The part of a manual page a line is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Name,
    Synopsis,
    Commands,
    Other,
}

/// A section title: flush left, in capitals (`SYNOPSIS`, `GLOBAL OPTIONS`).
fn section_title(line: &str) -> Option<&str> {
    let title = line.trim_end();
    let flush = !line.starts_with([' ', '\t']);
    let capitals = title.chars().any(|c| c.is_ascii_uppercase())
        && title
            .chars()
            .all(|c| c.is_ascii_uppercase() || c == ' ' || c == '-');
    (flush && capitals).then_some(title)
}

/// awscli's `AVAILABLE SERVICES`, `AVAILABLE COMMANDS` and `AVAILABLE
/// SUBCOMMANDS`.
fn lists_commands(title: &str) -> bool {
    title
        .strip_prefix("AVAILABLE ")
        .is_some_and(|what| matches!(what, "SERVICES" | "COMMANDS" | "SUBCOMMANDS"))
}
