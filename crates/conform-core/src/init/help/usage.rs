//! Usage lines: the forms a help text gives, and what they say about arguments.

use super::text::plain;
use super::words::{has_required_placeholder, indent, is_name, tokens};

/// A usage line, `usage: ...` in any case and indentation.
pub(super) fn usage_rest(trimmed: &str) -> Option<&str> {
    let head = trimmed.get(..5)?;
    if !head.eq_ignore_ascii_case("usage") {
        return None;
    }
    let rest = &trimmed[5..];
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix(':').map(str::trim)
    }
}

/// The usage forms of a help text: `usage: ...` lines (with their wrapped
/// continuation), the lines under a bare `Usage:` (cobra, pip), `or: ...` lines
/// (git), and yargs' first line when it starts with the program's name.
pub(super) fn usage_forms(help: &str, tool: &str) -> Vec<String> {
    let help = plain(help);
    let lines: Vec<&str> = help.lines().collect();
    let mut forms = Vec::new();
    // yargs: `neon <command> [options]`, or `neon me` once the name is known.
    if let Some(first) = lines.iter().map(|l| l.trim()).find(|l| !l.is_empty()) {
        let lower = first.to_ascii_lowercase();
        let names_a_command = ["<command>", "[command]", "<sub-command>", "<subcommand>"]
            .iter()
            .any(|p| lower.contains(p));
        let word = first.split_whitespace().next().unwrap_or("");
        if is_name(word) && (word == tool || names_a_command) {
            forms.push(first.to_string());
        }
    }
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim();
        if let Some(rest) = usage_rest(trimmed) {
            let base = indent(line);
            let continues = |next: &str| {
                !next.trim().is_empty()
                    && indent(next) > base
                    && !next.trim_start().starts_with("or:")
            };
            if rest.is_empty() {
                // Each line under the header is a form of its own. pip parts its
                // forms with a blank line: a form after one starts with the tool.
                // A shell line names it too: `$ orm [command]`.
                let names_tool = |line: &str| {
                    let line = line.trim_start();
                    line.strip_prefix("$ ")
                        .map_or(line, str::trim_start)
                        .strip_prefix(tool)
                        .is_some_and(|r| r.starts_with(' '))
                };
                loop {
                    match lines.get(i + 1..i + 3) {
                        Some([next, ..]) if continues(next) => i += 1,
                        Some([blank, next])
                            if blank.trim().is_empty() && continues(next) && names_tool(next) =>
                        {
                            i += 2
                        }
                        _ => match lines.get(i + 1) {
                            Some(next) if continues(next) => i += 1,
                            _ => break,
                        },
                    }
                    forms.push(lines[i].trim().to_string());
                }
            } else {
                let mut form = rest.to_string();
                while i + 1 < lines.len() && continues(lines[i + 1]) {
                    i += 1;
                    form.push(' ');
                    form.push_str(lines[i].trim());
                }
                forms.push(form);
            }
        } else if let Some(or) = trimmed.strip_prefix("or:") {
            forms.push(or.trim().to_string());
        }
        i += 1;
    }
    // oclif writes its usage as a shell line: `$ herd apps:info [-a <value>]`.
    forms
        .into_iter()
        .map(|form| match form.strip_prefix("$ ") {
            Some(rest) => rest.trim_start().to_string(),
            None => form,
        })
        .collect()
}

/// Whether a help text reads as help: it has a usage line.
pub(in crate::init) fn looks_like_help(help: &str, tool: &str) -> bool {
    !usage_forms(help, tool).is_empty()
}

/// The program's name as its help writes it: the first word of the first usage
/// line (`neon` for neonctl, whose yargs takes it from the script's name).
pub(super) fn program_name(help: &str, fallback: &str) -> String {
    usage_forms(help, fallback)
        .first()
        .and_then(|form| form.split_whitespace().next())
        .map(|word| word.rsplit('/').next().unwrap_or(word).to_string())
        // cleo's `--help` may be its `list` command's (`Usage: list [options]`),
        // and its generic usage is `command [options] [arguments]`: neither word
        // is the program's.
        .filter(|word| is_name(word) && !matches!(word.as_str(), "list" | "help" | "command"))
        .unwrap_or_else(|| fallback.to_string())
}

/// Whether the usage line of `name`'s help shows a required argument after the
/// command name: `Usage: tool get <ID>` yes, `usage: git status [<options>]` no.
/// Any form without a required argument is enough. `None` when no usage line names
/// the command.
pub(super) fn requires_argument(help: &str, name: &str, tool: &str) -> Option<bool> {
    let verdicts: Vec<bool> = usage_forms(help, tool)
        .iter()
        .filter_map(|form| {
            let words = tokens(form);
            let at = words.iter().rposition(|w| w == name)?;
            Some(has_required_placeholder(&words[at + 1..].join(" ")))
        })
        .collect();
    if verdicts.is_empty() {
        None
    } else {
        Some(verdicts.iter().all(|&required| required))
    }
}
