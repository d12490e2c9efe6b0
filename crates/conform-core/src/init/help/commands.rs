//! The subcommands a help text lists or spells out in its usage lines.

use super::text::plain;
use super::usage::{usage_forms, usage_rest};
use super::words::{
    command_placeholder, has_required_placeholder, indent, is_command_name, is_name,
    is_placeholder, tokens,
};

/// A subcommand listed in a help text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct HelpEntry {
    /// The word that runs it, as listed: `list`, or oclif's `apps:create`.
    pub name: String,
    /// Its one-line description; empty when the listing gives none.
    pub summary: String,
    /// The listing itself shows a required argument (commander: `get <id>`). A
    /// subcommand placeholder (`kv store <command>`) is not one: it makes `group`.
    pub requires_argument: bool,
    /// The words after the program that run it: `["projects", "list"]` from
    /// `subcommands(help, &["neonctl", "projects"])`, `["apps:create"]` for oclif,
    /// whose ids spell the whole path. Empty only for entries built by hand.
    pub path: Vec<String>,
    /// Listed as a group of commands rather than a command: oclif's `TOPICS` (a
    /// topic also listed under `COMMANDS` is not), a subcommand placeholder in the
    /// listing (`kv store <command>`), a topic implied by `commands --json` ids.
    /// Descend into it, never probe it bare. `false` only says the listing does not
    /// tell: [`super::page::read_page`] on the entry's own help decides.
    pub group: bool,
}

/// What a section of a help text lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Commands,
    /// oclif's `TOPICS`: groups of `topic:command` commands.
    Topics,
    /// argparse's `positional arguments:`, where subparsers appear as `{a,b}`.
    Positionals,
    /// Options, examples, usage, prose: never commands.
    Other,
}

/// The section a flush-left header starts, or `None` when the line is not one.
/// Headers end with `:` (`Commands:`, `Available Commands:`, `SUBCOMMANDS:`, git's
/// "These are common Git commands used in various situations:"), are in capitals
/// (gh's `CORE COMMANDS`, oclif's `TOPICS`, `FLAGS`), or are short titles naming
/// commands (`git help -a`'s "Main Porcelain Commands"). Any other line that
/// starts with a capital is a title of something else or prose, and ends the
/// section (`git help -a`'s "User-facing repository, command and file
/// interfaces" lists guides); git's group titles are in lower case and do not.
fn header(trimmed: &str) -> Option<Section> {
    let lower = trimmed.to_ascii_lowercase();
    let kind = if lower.contains("example")
        || lower.contains("option")
        || lower.contains("flag")
        || lower.contains("help topic")
    {
        Section::Other
    } else if lower.contains("positional") {
        Section::Positionals
    } else if lower.contains("command") {
        Section::Commands
    } else if lower.trim_end_matches(':') == "topics" {
        Section::Topics
    } else {
        Section::Other
    };
    if lower.ends_with(':') {
        return Some(kind);
    }
    let capitals = trimmed.chars().any(|c| c.is_ascii_uppercase())
        && !trimmed.chars().any(|c| c.is_ascii_lowercase());
    if capitals {
        return Some(kind);
    }
    let words: Vec<&str> = lower.split_whitespace().collect();
    let title = words.len() <= 6
        && words.contains(&"commands")
        && !lower.contains(['\'', '"', '`', '.', ','])
        && !lower.starts_with("usage");
    if title {
        return Some(kind);
    }
    trimmed
        .starts_with(|c: char| c.is_ascii_uppercase())
        .then_some(Section::Other)
}

/// A short flush-left title ending in `:` that names a topic, not a list of
/// something else: `Compute:`, `Storage:`, `Observability:`.
fn is_panel_title(trimmed: &str) -> bool {
    trimmed.strip_suffix(':').is_some_and(names_a_topic)
}

/// A short title in capitals that names a topic (wrangler's `ACCOUNT`,
/// `STORAGE & DATABASES` after its `COMMANDS`), not `GLOBAL FLAGS` or `LEARN MORE`.
fn is_capital_title(trimmed: &str) -> bool {
    !trimmed.chars().any(|c| c.is_ascii_lowercase()) && names_a_topic(trimmed.trim_end_matches(':'))
}

fn names_a_topic(title: &str) -> bool {
    const NOT_COMMANDS: &[&str] = &[
        "argument",
        "option",
        "flag",
        "example",
        "usage",
        "environment",
        "variable",
        "note",
        "see",
        "learn",
        "documentation",
        "alias",
        "default",
        "exit",
        "output",
        "help",
        "description",
        "version",
        "feedback",
    ];
    let lower = title.to_ascii_lowercase();
    title.split_whitespace().count() <= 3
        && title
            .chars()
            .all(|c| c.is_alphanumeric() || c == ' ' || c == '-' || c == '&')
        && !NOT_COMMANDS.iter().any(|word| lower.contains(word))
}

/// The subcommands a help text lists: the entries of its command sections
/// (oclif's topics too, as groups), argparse's `{a,b,c}` and the list under it,
/// and npm's comma-separated `All commands:` block. `path` is the program's name
/// and the command whose help this is: yargs lists `neonctl projects list`.
/// Usage lines, examples and option lists are never read as commands.
pub(super) fn subcommands(help: &str, path: &[&str]) -> Vec<HelpEntry> {
    let help = plain(help);
    let mut out: Vec<HelpEntry> = Vec::new();
    let mut aliases: Vec<String> = Vec::new();
    let mut section = Section::Other;
    let mut entry_indent: Option<usize> = None;
    // argparse: the depth of the `{a,b}` line, whose choices are listed under it.
    let mut choices_at: Option<usize> = None;
    // npm: the last comma-separated line ended with a comma, so the next goes on.
    let mut list_goes_on = false;
    // A commands section came before: later short titles may name more groups.
    let mut commands_seen = false;
    // cleo: the namespace whose title (` cache`) came last in this section.
    let mut namespace: Option<String> = None;
    let lines: Vec<&str> = help.lines().collect();
    for (at, line) in lines.iter().enumerate() {
        let line = *line;
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
                if let Some((entry, also)) = parse_entry(trimmed, path) {
                    entry_indent = Some(0);
                    aliases.extend(also);
                    add(&mut out, entry);
                    continue;
                }
            }
            if let Some(kind) = header(trimmed) {
                // click's and Typer's panels after `Commands:` title groups of
                // commands by topic (modal's `Compute:`, `Storage:`), as
                // wrangler's capital titles do after its `COMMANDS`.
                section = if kind == Section::Other
                    && commands_seen
                    && (is_panel_title(trimmed) || is_capital_title(trimmed))
                {
                    Section::Commands
                } else {
                    kind
                };
                commands_seen |= section == Section::Commands;
                entry_indent = None;
                namespace = None;
                choices_at = None;
                list_goes_on = false;
            }
            // Any other flush-left line is a group title (git) or prose: the
            // section goes on.
            continue;
        }
        if section == Section::Other {
            continue;
        }
        // netlify writes each entry as a shell line: `$ env:list   Lists ...`.
        let trimmed = trimmed.strip_prefix("$ ").map_or(trimmed, str::trim_start);
        // argparse: subparsers as a `{list,get,delete}` positional, or under a
        // metavar such as `COMMAND`.
        if let Some(inner) = trimmed.strip_prefix('{').and_then(|t| t.split('}').next()) {
            for name in inner.split(',').map(str::trim).filter(|n| is_name(n)) {
                add(&mut out, listed(name, "", path));
            }
            choices_at = Some(depth);
            continue;
        }
        if section == Section::Positionals {
            if command_placeholder(trimmed).is_some() {
                choices_at = Some(depth);
            } else if choices_at.is_some_and(|at| depth == at + 2) {
                if let Some((entry, also)) = parse_entry(trimmed, path) {
                    aliases.extend(also);
                    add(&mut out, entry);
                }
            }
            // Other positionals are arguments, not commands.
            continue;
        }
        let entry_depth = entry_indent.is_none_or(|first| depth <= first);
        if let Some(names) = comma_list(trimmed, list_goes_on).filter(|_| entry_depth) {
            list_goes_on = trimmed.ends_with(',');
            entry_indent.get_or_insert(depth);
            for name in names {
                add(&mut out, listed(name, "", path));
            }
            continue;
        }
        list_goes_on = false;
        // argparse's metavar over its choices (`command   Use ...`, the commands
        // indented under it): a slot, never a command.
        if is_metavar_line(trimmed, depth, lines.get(at + 1..).unwrap_or_default()) {
            entry_indent = None;
            namespace = None;
            continue;
        }
        // cleo: a namespace's title (` cache`), less indented than the entries,
        // then its commands as `cache clear   Clears a cache`.
        if entry_indent.is_some_and(|first| depth < first) && is_name(trimmed) {
            namespace = Some(trimmed.to_string());
            continue;
        }
        // Wrapped descriptions are indented deeper than the entries.
        match entry_indent {
            Some(first) if depth > first => continue,
            None => entry_indent = Some(depth),
            _ => {}
        }
        if let Some((mut entry, also)) = parse_entry(trimmed, path) {
            entry.group |= section == Section::Topics;
            aliases.extend(also);
            add(&mut out, entry);
        } else if let Some(entry) = namespaced(trimmed, namespace.as_deref(), path) {
            add(&mut out, entry);
        }
    }
    // argparse lists `list (ls)` and puts `ls` among the choices too.
    out.retain(|e| !(e.summary.is_empty() && aliases.contains(&e.name)));
    out
}

/// A metavar line over the commands: its first word a command slot (argparse's
/// `command`, `COMMAND`, `<command>`), and the next line an entry indented deeper,
/// before where the slot's own description starts.
fn is_metavar_line(trimmed: &str, depth: usize, after: &[&str]) -> bool {
    let word = trimmed.split_whitespace().next().unwrap_or("");
    let slot = command_placeholder(word).is_some()
        || matches!(word, "command" | "commands" | "subcommand" | "cmd");
    let column = depth + trimmed.find("  ").map_or(trimmed.len(), |gap| gap + 2);
    let next = after.iter().find(|line| !line.trim().is_empty());
    slot && next.is_some_and(|next| {
        let (at, first) = (indent(next), next.split_whitespace().next().unwrap_or(""));
        at > depth && at < column && is_command_name(first)
    })
}

/// cleo's `cache clear   Clears a cache` under its namespace's title `cache`:
/// the entry `cache clear`, run as those two words.
fn namespaced(trimmed: &str, namespace: Option<&str>, path: &[&str]) -> Option<HelpEntry> {
    let namespace = namespace?;
    trimmed.strip_prefix(namespace)?.strip_prefix(' ')?;
    let under: Vec<&str> = path.iter().copied().chain([namespace]).collect();
    let (mut entry, _) = parse_entry(trimmed, &under)?;
    entry.name = format!("{namespace} {}", entry.name);
    Some(entry)
}

/// An entry named `name` in the help of `path` (program first).
fn listed(name: &str, summary: &str, path: &[&str]) -> HelpEntry {
    // oclif's ids name the whole path already.
    let words: Vec<String> = if name.contains(':') {
        vec![name.to_string()]
    } else {
        path.iter()
            .skip(1)
            .map(|w| w.to_string())
            .chain([name.to_string()])
            .collect()
    };
    HelpEntry {
        name: name.to_string(),
        summary: summary.to_string(),
        requires_argument: false,
        path: words,
        group: false,
    }
}

/// npm's `access, adduser, audit, bugs,` block: names and commas only, three or
/// more on a line, or any number when the line before ended with a comma or this
/// one does. cargo's `build, b    Compile` is an entry with an alias, not a list.
fn comma_list(trimmed: &str, goes_on: bool) -> Option<Vec<&str>> {
    if !trimmed.contains(',') || trimmed.contains("  ") || trimmed.contains('\t') {
        return None;
    }
    let names: Vec<&str> = trimmed
        .trim_end_matches(',')
        .split(',')
        .map(str::trim)
        .collect();
    if !names.iter().all(|n| is_command_name(n)) {
        return None;
    }
    (names.len() >= 3 || goes_on || trimmed.ends_with(',')).then_some(names)
}

/// Adds `entry` unless listed already; a second listing fills in what the first
/// left out (argparse lists each choice again under the `{...}` line, oclif a
/// topic again as a command).
pub(super) fn add(out: &mut Vec<HelpEntry>, entry: HelpEntry) {
    match out.iter_mut().find(|e| e.name == entry.name) {
        Some(seen) => {
            if seen.summary.is_empty() {
                seen.summary = entry.summary;
            }
            if seen.path.is_empty() {
                seen.path = entry.path;
            }
            // A topic that is a command too runs bare.
            seen.group &= entry.group;
            seen.requires_argument |= entry.requires_argument;
        }
        None => out.push(entry),
    }
}

/// `build, b    Compile`, `get <id>   Show one`, `list [options]  List`, gh's
/// `auth:   Authenticate`, commander's `deploy|d [target]`, argparse's
/// `list (ls)`, oclif's `apps:create`, and yargs' `neonctl projects list   List
/// projects` (the path first). A line whose name is followed by anything but
/// aliases and placeholders (prose, an option, an example's value) is not an
/// entry. The aliases come back beside the entry.
fn parse_entry(trimmed: &str, path: &[&str]) -> Option<(HelpEntry, Vec<String>)> {
    let mut text = trimmed;
    let (program, group) = path.split_first().map_or(("", &[][..]), |(p, g)| (*p, g));
    if let Some(rest) = text.strip_prefix(program).filter(|r| r.starts_with(' ')) {
        text = rest.trim_start();
    }
    // Without the program too (`deployments list  List`): a word of the path
    // followed by one space goes on to the entry; by a column gap, it is the entry.
    for word in group {
        match text.strip_prefix(word) {
            Some(rest) if rest.starts_with(' ') && !rest.starts_with("  ") => {
                text = rest.trim_start()
            }
            _ => break,
        }
    }
    let (left, summary) = match text.find("  ").or_else(|| text.find('\t')) {
        Some(at) => (&text[..at], text[at..].trim()),
        None => (text, ""),
    };
    let words = tokens(left);
    let (first, rest) = words.split_first()?;
    let mut aliases = Vec::new();
    // gh: `auth:`; commander: `deploy|d`; cargo: `build, b`.
    let head = first.trim_end_matches(',');
    let head = head.strip_suffix(':').unwrap_or(head);
    let mut names = head.split('|');
    let name = names.next().unwrap_or(head);
    if !is_command_name(name) {
        return None;
    }
    aliases.extend(names.filter(|n| is_name(n)).map(str::to_string));
    let mut alias_next = first.ends_with(',');
    let mut arguments = Vec::new();
    let mut group = false;
    for word in rest {
        if alias_next && is_name(word.trim_end_matches(',')) {
            alias_next = word.ends_with(',');
            aliases.push(word.trim_end_matches(',').to_string());
            continue;
        }
        alias_next = false;
        // argparse: `list (ls, l)`.
        if let Some(inner) = word.strip_prefix('(').and_then(|w| w.strip_suffix(')')) {
            let names: Vec<&str> = inner.split(',').map(str::trim).collect();
            if names.iter().all(|n| is_name(n)) {
                aliases.extend(names.iter().map(|n| n.to_string()));
                continue;
            }
        }
        // `kv store <command>`; commander's `help [command]` is no group.
        if let Some(required) = command_placeholder(word) {
            group |= required;
            continue;
        }
        if !is_placeholder(word) {
            return None;
        }
        arguments.push(word.as_str());
    }
    let mut entry = listed(name, summary, path);
    entry.requires_argument = has_required_placeholder(&arguments.join(" "));
    entry.group = group;
    Some((entry, aliases))
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
                path: vec![name.to_string(), sub.clone()],
                group: false,
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
        // kubectl's "Use "kubectl options" for a list of global command-line
        // options" lists options, not commands.
        if !(lower.contains("command") && lower.contains("list")) || lower.contains("option") {
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
