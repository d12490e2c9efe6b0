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

use serde_json::{json, Value};

use super::runner::{Tool, Trial};
use super::{probe, Body, Failure, Warning, UNKNOWN_FLAG};

/// Names that read as side-effect free.
const READ_VERBS: &[&str] = &[
    "list", "ls", "get", "show", "status", "info", "describe", "search", "version", "whoami", "me",
    "config", "view",
];

/// Names that read as deleting something.
const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete",
    "remove",
    "rm",
    "destroy",
    "drop",
    "purge",
    "uninstall",
    "prune",
    "wipe",
    "erase",
    "clean",
    "clear",
    "kill",
    "terminate",
    "revoke",
    "reset",
    "truncate",
];

/// Names that read as changing state, or as reaching out (network, browser): their
/// help is never asked for, since a command that ignores `--help` would act.
const MUTATING_VERBS: &[&str] = &[
    "add", "apply", "create", "new", "deploy", "publish", "push", "pull", "fetch", "clone",
    "install", "init", "login", "logout", "set", "update", "upgrade", "edit", "write", "commit",
    "merge", "rebase", "revert", "restore", "move", "mv", "rename", "run", "exec", "start", "stop",
    "restart", "serve", "send", "upload", "download", "import", "sync", "checkout", "switch",
    "link", "unlink", "open",
];

/// Framework commands that are not the tool's own.
const FRAMEWORK_COMMANDS: &[&str] = &["help", "completion", "completions"];

/// What a command's name says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Framework,
    Destructive,
    Mutating,
    Read,
    /// Nothing: maybe a group (`projects`) whose subcommands say more.
    Other,
}

fn classify(name: &str) -> Class {
    if FRAMEWORK_COMMANDS.contains(&name) {
        Class::Framework
    } else if matches_verb(name, DESTRUCTIVE_VERBS) {
        Class::Destructive
    } else if matches_verb(name, MUTATING_VERBS) {
        Class::Mutating
    } else if matches_verb(name, READ_VERBS) {
        Class::Read
    } else {
        Class::Other
    }
}

/// `name` is one of `verbs`, or starts with one and a separator (`show-branch`).
fn matches_verb(name: &str, verbs: &[&str]) -> bool {
    let name = name.to_ascii_lowercase();
    verbs.iter().any(|verb| {
        name == *verb
            || name
                .strip_prefix(verb)
                .is_some_and(|rest| rest.starts_with('-') || rest.starts_with('_'))
    })
}

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
            // Carriage returns of CRLF help.
            '\r' => {}
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

/// Box-drawing characters that draw borders and rules.
fn is_rule_char(c: char) -> bool {
    matches!(
        c,
        '─' | '━'
            | '═'
            | '╭'
            | '╮'
            | '╰'
            | '╯'
            | '┌'
            | '┐'
            | '└'
            | '┘'
            | '│'
            | '┃'
            | '║'
    )
}

/// Help text with drawn boxes turned into plain sections: rich (Typer) draws
/// `╭─ Commands ─╮` / `│ list  List │` / `╰───╯`, which becomes `Commands:` and
/// indented entries; neonctl's yargs layout puts each description on a line of its
/// own after `└───>`, which becomes an indented (wrapped) description.
fn unbox(help: &str) -> String {
    let mut out = String::with_capacity(help.len());
    for line in help.lines() {
        let trimmed = line.trim();
        let mut chars = trimmed.chars();
        match chars.next() {
            Some('╭' | '┌') => {
                let title: String = trimmed
                    .chars()
                    .filter(|c| !is_rule_char(*c))
                    .collect::<String>()
                    .trim()
                    .to_string();
                // Typer draws options, arguments and commands in panels; a panel
                // with a title of its own (`rich_help_panel`) holds commands.
                let lower = title.to_ascii_lowercase();
                if !title.is_empty() {
                    out.push_str(&title);
                    if !["option", "argument", "usage", "example", "command"]
                        .iter()
                        .any(|word| lower.contains(word))
                    {
                        out.push_str(" commands");
                    }
                    out.push(':');
                }
            }
            Some('│' | '┃' | '║') => {
                let inner = trimmed[trimmed.chars().next().map_or(0, char::len_utf8)..]
                    .trim_end()
                    .trim_end_matches(['│', '┃', '║'])
                    .trim_end();
                out.push_str("  ");
                out.push_str(inner);
            }
            Some('╰' | '└' | '┘' | '╯') => {
                // A bottom border ends a box; `└───>  text` is a description.
                let rest: String = trimmed.chars().skip_while(|c| is_rule_char(*c)).collect();
                if let Some(text) = rest.strip_prefix('>') {
                    out.push_str("        ");
                    out.push_str(text.trim());
                }
            }
            _ => out.push_str(line.trim_end()),
        }
        out.push('\n');
    }
    out
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_name(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
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

/// A usage line, `usage: ...` in any case and indentation.
fn usage_rest(trimmed: &str) -> Option<&str> {
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

fn add(out: &mut Vec<HelpEntry>, entry: HelpEntry) {
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

/// `<id>`, `[options]`, `{a,b}`, `NAME`, `ARGS...`, `...`, `|`.
fn is_placeholder(word: &str) -> bool {
    word.starts_with(['<', '[', '{', '('])
        || matches!(word, "..." | "|")
        || (word.chars().any(|c| c.is_ascii_uppercase())
            && word
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "_-.".contains(c)))
}

/// Whitespace-separated words, a bracketed group (`[--editor <path>]`) kept as one.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '[' | '{' | '<' | '(' => depth += 1,
            ']' | '}' | '>' | ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if c.is_whitespace() && depth == 0 {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
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

/// The usage forms of a help text: `usage: ...` lines (with their wrapped
/// continuation), the lines under a bare `Usage:` (cobra, pip), `or: ...` lines
/// (git), and yargs' first line when it starts with the program's name.
fn usage_forms(help: &str, tool: &str) -> Vec<String> {
    let help = unbox(help);
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
                // Each line under the header is a form of its own.
                while i + 1 < lines.len() && continues(lines[i + 1]) {
                    i += 1;
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
    forms
}

/// Whether a help text reads as help: it has a usage line.
pub(super) fn looks_like_help(help: &str, tool: &str) -> bool {
    !usage_forms(help, tool).is_empty()
}

/// The program's name as its help writes it: the first word of the first usage
/// line (`neon` for neonctl, whose yargs takes it from the script's name).
fn program_name(help: &str, fallback: &str) -> String {
    usage_forms(help, fallback)
        .first()
        .and_then(|form| form.split_whitespace().next())
        .map(|word| word.rsplit('/').next().unwrap_or(word).to_string())
        .filter(|word| is_name(word))
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

/// Subcommands a usage line spells out after `name`: `git config list [<opts>]`,
/// `pip config [<file-option>] get command.option` (required argument).
fn usage_subcommands(help: &str, name: &str, tool: &str) -> Vec<HelpEntry> {
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
fn full_list_argv(help: &str, tool: &str) -> Option<Vec<String>> {
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

/// Probes from help texts, asking `tool` for them; `name` is the program's name.
pub(super) fn profile_from(tool: &mut dyn Tool, name: &str) -> Result<Body, Failure> {
    let root = tool.help(&[], name).map_err(|why| {
        Failure::tool(
            "NO_HELP",
            format!("no help text to read: {why}"),
            "check that the tool prints help for --help or -h, or write the profile by hand (`conform schema profile`)",
        )
    })?;
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

/// What the walk over the commands found.
#[derive(Debug, Default)]
struct Found {
    /// Read probes to try, in order.
    candidates: Vec<Vec<String>>,
    /// Names whose help was not asked for: they read as changing state.
    mutating: Vec<String>,
    /// Names that say nothing of side effects and list no read subcommand.
    others: Vec<String>,
    /// Names that say nothing of side effects and gave no help, with why.
    unhelpful: Vec<(String, String)>,
}

impl Found {
    /// One command of the root listing: itself, and its read subcommands.
    fn command(&mut self, tool: &mut dyn Tool, program: &str, entry: &HelpEntry, body: &mut Body) {
        let name = &entry.name;
        // cargo lists its aliases as `r   alias: run`: an alias is what it stands for.
        let class = match entry.summary.strip_prefix("alias:") {
            Some(target) => classify(target.split_whitespace().next().unwrap_or(name)),
            None => classify(name),
        };
        match class {
            Class::Framework => return,
            Class::Destructive => {
                // Its help is not even run: a tool that ignores --help would delete.
                body.warnings.push(Warning::destructive(name));
                return;
            }
            Class::Mutating => {
                self.mutating.push(name.clone());
                return;
            }
            Class::Read | Class::Other => {}
        }
        let read = class == Class::Read;
        if entry.requires_argument {
            if read {
                body.warnings.push(Warning::skipped(
                    name,
                    "its listing shows a required argument",
                ));
            } else {
                self.others.push(name.clone());
            }
            return;
        }
        let text = match tool.help(std::slice::from_ref(name), program) {
            Ok(text) => text,
            Err(why) if read => {
                body.warnings.push(Warning::help_dropped(name, &why));
                return;
            }
            Err(why) => {
                self.unhelpful.push((name.clone(), why));
                return;
            }
        };
        let subs = self.subcommands(program, name, &text, body);
        if !read {
            if !subs {
                self.others.push(name.clone());
            }
            return;
        }
        match requires_argument(&text, name, program) {
            Some(false) => self.candidates.push(vec![name.clone()]),
            // A group such as `config`: its subcommands were the point.
            Some(true) if subs => {}
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

    /// The read subcommands of `name` (one level down), added as candidates; whether
    /// there were any.
    fn subcommands(&mut self, program: &str, name: &str, text: &str, body: &mut Body) -> bool {
        let listed = subcommands(text, &[program, name]);
        let spelled = usage_subcommands(text, name, program);
        let mut seen: Vec<&str> = Vec::new();
        for sub in listed.iter().chain(&spelled) {
            // Listed and spelled out in a usage line too: once is enough.
            if sub.name == name
                || classify(&sub.name) != Class::Read
                || seen.contains(&sub.name.as_str())
            {
                continue;
            }
            seen.push(&sub.name);
            let argv = vec![name.to_string(), sub.name.clone()];
            let shown = argv.join(" ");
            if sub.requires_argument {
                body.warnings.push(Warning::skipped(
                    &shown,
                    "its usage shows a required argument; add the probe by hand with a value",
                ));
                continue;
            }
            // A listing or usage line that shows no argument is taken at its word:
            // the trial, which runs the command as a help call that it ignored
            // would, leaves it out if it wants one.
            self.candidates.push(argv);
        }
        !seen.is_empty()
    }

    fn report(&self, body: &mut Body) {
        if !self.mutating.is_empty() {
            body.warnings.push(Warning::new(
                "COMMANDS_NOT_CALLED",
                format!(
                    "not probed, and their help not asked for, as their names say they change state or reach out: {}; a probe runs several times, so add one by hand only for a command you know to be side-effect free",
                    self.mutating.join(", ")
                ),
                json!({ "commands": self.mutating }),
            ));
        }
        if !self.unhelpful.is_empty() {
            let names: Vec<&str> = self.unhelpful.iter().map(|(n, _)| n.as_str()).collect();
            let reasons: serde_json::Map<String, Value> = self
                .unhelpful
                .iter()
                .map(|(n, why)| (n.clone(), json!(why)))
                .collect();
            body.warnings.push(Warning::new(
                "HELP_DROPPED",
                format!(
                    "not probed, as their help calls printed no usage line (the reasons are in this warning's context): {}",
                    names.join(", ")
                ),
                json!({ "commands": names, "reasons": reasons }),
            ));
        }
        if !self.others.is_empty() {
            body.warnings.push(Warning::new(
                "COMMANDS_NOT_CLASSIFIED",
                format!(
                    "not probed, as their names say nothing of side effects: {}; add read probes for the side-effect-free ones by hand",
                    self.others.join(", ")
                ),
                json!({ "commands": self.others }),
            ));
        }
    }
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
