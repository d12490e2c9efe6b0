//! The subcommands a help text lists or spells out in its usage lines.

use super::text::unbox;
use super::usage::{usage_forms, usage_rest};
use super::words::{has_required_placeholder, indent, is_name, is_placeholder, tokens};

/// A subcommand listed in a help text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct HelpEntry {
    pub name: String,
    pub summary: String,
    /// The listing itself shows a required argument (commander: `get <id>`).
    pub requires_argument: bool,
}

/// What a section of a help text lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Commands,
    /// argparse's `positional arguments:`, where subparsers appear as `{a,b}`.
    Positionals,
    /// Options, examples, usage, prose: never commands.
    Other,
}

/// The section a flush-left header starts, or `None` when the line is not one.
/// Headers end with `:` (`Commands:`, `Available Commands:`, `SUBCOMMANDS:`, git's
/// "These are common Git commands used in various situations:"), or are short
/// titles naming commands (`git help -a`'s "Main Porcelain Commands").
fn header(trimmed: &str) -> Option<Section> {
    let lower = trimmed.to_ascii_lowercase();
    let kind = if lower.contains("example") || lower.contains("option") || lower.contains("flag") {
        Section::Other
    } else if lower.contains("positional") {
        Section::Positionals
    } else if lower.contains("command") {
        Section::Commands
    } else {
        Section::Other
    };
    if lower.ends_with(':') {
        return Some(kind);
    }
    let words: Vec<&str> = lower.split_whitespace().collect();
    let title = words.len() <= 6
        && words.contains(&"commands")
        && !lower.contains(['\'', '"', '`', '.', ','])
        && !lower.starts_with("usage");
    title.then_some(kind)
}

/// The subcommands a help text lists: the entries of its command sections, and
/// argparse's `{a,b,c}` in its positional arguments. `path` is the program's name
/// and the command whose help this is: yargs lists `neonctl projects list`.
/// Usage lines, examples and option lists are never read as commands.
pub(super) fn subcommands(help: &str, path: &[&str]) -> Vec<HelpEntry> {
    let help = unbox(help);
    let mut out: Vec<HelpEntry> = Vec::new();
    let mut section = Section::Other;
    let mut entry_indent: Option<usize> = None;
    for line in help.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if usage_rest(trimmed).is_some() {
            section = Section::Other;
            continue;
        }
        let depth = indent(line);
        if depth == 0 {
            // yargs (neonctl): entries flush left, each starting with the program.
            let prefixed = path
                .first()
                .is_some_and(|tool| trimmed.starts_with(&format!("{tool} ")));
            if section == Section::Commands && prefixed {
                if let Some(entry) = parse_entry(trimmed, path) {
                    entry_indent = Some(0);
                    add(&mut out, entry);
                    continue;
                }
            }
            if let Some(kind) = header(trimmed) {
                section = kind;
                entry_indent = None;
            }
            // Any other flush-left line is a group title (git) or prose: the
            // section goes on.
            continue;
        }
        if section == Section::Other {
            continue;
        }
        // argparse: subparsers as a `{list,get,delete}` positional.
        if let Some(inner) = trimmed.strip_prefix('{').and_then(|t| t.split('}').next()) {
            for name in inner.split(',').map(str::trim).filter(|n| is_name(n)) {
                add(
                    &mut out,
                    HelpEntry {
                        name: name.to_string(),
                        summary: String::new(),
                        requires_argument: false,
                    },
                );
            }
            continue;
        }
        // Other positionals are arguments, not commands.
        if section == Section::Positionals {
            continue;
        }
        // Wrapped descriptions are indented deeper than the entries.
        match entry_indent {
            Some(first) if depth > first => continue,
            None if section == Section::Commands => entry_indent = Some(depth),
            _ => {}
        }
        if let Some(entry) = parse_entry(trimmed, path) {
            add(&mut out, entry);
        }
    }
    out
}

pub(super) fn add(out: &mut Vec<HelpEntry>, entry: HelpEntry) {
    match out.iter_mut().find(|e| e.name == entry.name) {
        // argparse lists each choice again under the `{...}` line.
        Some(seen) if seen.summary.is_empty() => seen.summary = entry.summary,
        Some(_) => {}
        None => out.push(entry),
    }
}

/// `build, b    Compile`, `get <id>   Show one`, `list [options]  List`, and yargs'
/// `neonctl projects list   List projects` (the path first). A line whose name is
/// followed by anything but aliases and placeholders (prose, an option, an example's
/// value) is not an entry.
fn parse_entry(trimmed: &str, path: &[&str]) -> Option<HelpEntry> {
    let mut text = trimmed;
    for word in path {
        match text.strip_prefix(word) {
            Some(rest) if rest.starts_with(' ') => text = rest.trim_start(),
            _ => break,
        }
    }
    let (left, summary) = match text.find("  ").or_else(|| text.find('\t')) {
        Some(at) => (&text[..at], text[at..].trim()),
        None => (text, ""),
    };
    let words = tokens(left);
    let (first, rest) = words.split_first()?;
    let name = first.trim_end_matches(',');
    if !is_name(name) {
        return None;
    }
    // `build, b`: aliases follow a comma.
    let mut alias_next = first.ends_with(',');
    let mut arguments = Vec::new();
    for word in rest {
        if alias_next && is_name(word.trim_end_matches(',')) {
            alias_next = word.ends_with(',');
            continue;
        }
        alias_next = false;
        if !is_placeholder(word) {
            return None;
        }
        arguments.push(word.as_str());
    }
    Some(HelpEntry {
        name: name.to_string(),
        summary: summary.to_string(),
        requires_argument: has_required_placeholder(&arguments.join(" ")),
    })
}

/// Subcommands a usage line spells out after `name`: `git config list [<opts>]`,
/// `pip config [<file-option>] get command.option` (required argument).
pub(super) fn usage_subcommands(help: &str, name: &str, tool: &str) -> Vec<HelpEntry> {
    let mut out: Vec<HelpEntry> = Vec::new();
    for form in usage_forms(help, tool) {
        let words = tokens(&form);
        let Some(at) = words.iter().rposition(|w| w == name) else {
            continue;
        };
        let mut rest = words[at + 1..]
            .iter()
            .skip_while(|w| w.starts_with('[') || w.starts_with('-'));
        let Some(sub) = rest.next() else {
            continue;
        };
        if !is_name(sub) || sub.chars().any(|c| c.is_ascii_uppercase()) {
            continue;
        }
        let rest: Vec<&str> = rest.map(String::as_str).collect();
        add(
            &mut out,
            HelpEntry {
                name: sub.clone(),
                summary: String::new(),
                requires_argument: has_required_placeholder(&rest.join(" ")),
            },
        );
    }
    out
}

/// The arguments that list every command, when the root help names them: git's
/// "'git help -a' ... list available subcommands", cargo's "See all commands with
/// --list".
pub(super) fn full_list_argv(help: &str, tool: &str) -> Option<Vec<String>> {
    for line in help.lines() {
        let lower = line.to_ascii_lowercase();
        if !(lower.contains("command") && lower.contains("list")) {
            continue;
        }
        // A quoted invocation of the tool: 'git help -a'.
        for quoted in line.split(['\'', '`', '"']).skip(1).step_by(2) {
            let words: Vec<&str> = quoted.split_whitespace().collect();
            if words.first() == Some(&tool) && words.len() > 1 && !quoted.contains(['<', '[']) {
                return Some(words[1..].iter().map(|w| w.to_string()).collect());
            }
        }
        // A lone flag: "See all commands with --list".
        if lower.contains("all commands") {
            if let Some(flag) = line
                .split_whitespace()
                .map(|w| w.trim_end_matches(['.', ',']))
                .find(|w| w.starts_with("--") && is_name(&w[2..]))
            {
                return Some(vec![flag.to_string()]);
            }
        }
    }
    None
}
