//! One help page read whole: the commands and options it lists, and what its
//! usage lines say of the command it documents.

use super::commands::{add, full_list_argv, subcommands, usage_subcommands, HelpEntry};
use super::flags::{flags, HelpFlag};
use super::usage::{looks_like_help, usage_forms};
use super::words::{command_placeholder, has_required_placeholder, required_operands, tokens};

/// What the help of one command (or of the program) says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct HelpPage {
    /// The subcommands it lists, then those only its usage lines spell out
    /// (`git config list`), each once, in the order of the text. Each entry's
    /// `path` is the full path after the program.
    pub entries: Vec<HelpEntry>,
    /// A group that needs a subcommand: every usage line naming the command goes
    /// on with a subcommand (`<COMMAND>` in clap, `COMMAND [ARGS]...` in click and
    /// Typer, `<command>` in yargs and gh, `SUBCOMMAND` in kubectl, `[command]` in
    /// cobra and commander when the page lists subcommands, `topic:COMMAND` in
    /// oclif, `{a,b}` in argparse, or a listed subcommand's name). Never probe it
    /// bare: descend into `entries`. `false` when a usage line runs it alone
    /// (`cargo [COMMAND]`, cobra's runnable `gh pr list [flags]`) or when no usage
    /// line names it.
    pub needs_subcommand: bool,
    /// Whether every usage line naming the command requires a positional
    /// argument after it (`show <ID>`, argparse's `show [-h] name`); a subcommand
    /// placeholder is not counted (see `needs_subcommand`). `None` when no usage
    /// line names the command, so required arguments cannot be ruled out.
    pub requires_argument: Option<bool>,
    /// How many operands the first usage line that requires one asks for, when
    /// they are all bare placeholders (`set NAME`, `show <ID>`) that a made-up
    /// value can fill; `None` when a required option or a choice is among them.
    pub operands: Option<usize>,
    /// The options it lists, in order.
    pub flags: Vec<HelpFlag>,
}

impl HelpPage {
    /// The listed option named `name`, given with its dashes (`--dry-run`, `-n`).
    pub(super) fn flag(&self, name: &str) -> Option<&HelpFlag> {
        self.flags
            .iter()
            .find(|f| f.long.as_deref() == Some(name) || f.short.as_deref() == Some(name))
    }
}

/// Reads the help text of the command at `path`: the program's name as the help
/// writes it (see `usage::program_name`), then the command's words as typed
/// (`["gh", "pr"]`, `["herd", "config"]`, `["cargo", "nextest", "show-config"]`;
/// oclif's `["herd", "apps:favorites"]`). `["tool"]` reads the root help.
/// `help` is the text as printed, after `text::clean`.
pub(super) fn read_page(help: &str, path: &[&str]) -> HelpPage {
    let program = path.first().copied().unwrap_or("");
    let name = path.last().copied().unwrap_or("");
    let mut entries = subcommands(help, path);
    // At the root, a usage line's words after the program are prose as often as
    // commands (`jq - commandline JSON processor`): only a command's usage is read.
    if path.len() > 1 {
        let parent: Vec<String> = path[1..].iter().map(|w| w.to_string()).collect();
        let spelled = usage_subcommands(help, name, program);
        // One usage line's word after the name is an operand as often as a
        // subcommand (argparse's `show [-h] name`); git and pip spell several.
        let spelled = if spelled.len() > 1 {
            spelled
        } else {
            Vec::new()
        };
        for mut sub in spelled {
            sub.path = parent.iter().cloned().chain([sub.name.clone()]).collect();
            add(&mut entries, sub);
        }
    }
    // oclif with spaced topics lists `api core list` and writes its usage as
    // `$ twilio api:core:list`: the usage line names the command either way.
    let joined = path.get(1..).unwrap_or_default().join(":");
    let forms: Vec<Form> = usage_forms(help, program)
        .iter()
        .filter_map(|form| read_form(form, name, &joined, &entries))
        .collect();
    let needs_subcommand = !forms.is_empty() && forms.iter().all(|f| f.needs_subcommand);
    let requires_argument = (!forms.is_empty()).then(|| forms.iter().all(|f| f.requires_argument));
    let operands = forms
        .iter()
        .find(|f| f.requires_argument)
        .and_then(|f| f.operands);
    HelpPage {
        entries,
        needs_subcommand,
        requires_argument,
        operands,
        flags: flags(help),
    }
}

/// Whether the root help lists no subcommands at all: it reads as help, lists no
/// command, points at no complete listing, and its usage lines show no
/// subcommand placeholder. curl (`Usage: curl [options...] <url>`), jq, tar and
/// grep are such tools: an unknown-command probe would run them on a made-up
/// operand (a URL, a filter, option letters), so leave it out for them. `program`
/// is the program's name as the help writes it.
pub(super) fn lists_no_subcommands(root: &str, program: &str) -> bool {
    if !looks_like_help(root, program) || !subcommands(root, &[program]).is_empty() {
        return false;
    }
    if full_list_argv(root, program).is_some() {
        return false;
    }
    !usage_forms(root, program)
        .iter()
        .flat_map(|form| tokens(form))
        .any(|word| command_placeholder(&word).is_some())
}

/// What one usage line says of the command `name`.
struct Form {
    needs_subcommand: bool,
    requires_argument: bool,
    /// The required operands, when each is a bare placeholder.
    operands: Option<usize>,
}

/// Reads a usage line that names the command, as `name` or as its whole path
/// `joined` with colons; `None` when it does not.
fn read_form(form: &str, name: &str, joined: &str, entries: &[HelpEntry]) -> Option<Form> {
    let words = tokens(form);
    let at = words
        .iter()
        .rposition(|w| w == name || w == joined || is_topic_placeholder(w, name))?;
    if is_topic_placeholder(&words[at], name) {
        // oclif: `$ herd config:COMMAND`.
        return Some(Form {
            needs_subcommand: true,
            requires_argument: false,
            operands: None,
        });
    }
    let lists = !entries.is_empty();
    let mut needs_subcommand = false;
    // cobra's and commander's optional `[command]`, which says "group" only when
    // no operand of the command's own follows it: firebase's `login [options]
    // [command] [auth_code]` runs bare, with or without its code.
    let mut optional_slot = false;
    let mut operand_after_slot = false;
    // A required operand before any subcommand: `tool get <ID>`.
    let mut operand_seen = false;
    let mut arguments: Vec<&str> = Vec::new();
    for word in &words[at + 1..] {
        if let Some(required) = command_placeholder(word) {
            // clap's optional `[COMMAND]` runs bare; cobra's and commander's
            // `[command]` is how a group without an action of its own reads.
            let lower_case = word.chars().any(|c| c.is_ascii_lowercase());
            needs_subcommand |= !operand_seen && required;
            optional_slot |= !operand_seen && !required && lists && lower_case;
            continue;
        }
        let optional = word.starts_with(['[', '-']) || matches!(word.as_str(), "..." | "|" | "--");
        if !optional && !operand_seen && names_an_entry(word, entries) {
            needs_subcommand = true;
            continue;
        }
        operand_after_slot |= optional_slot
            && !word.starts_with("[-")
            && !word.starts_with('-')
            && !matches!(word.as_str(), "..." | "|" | "--" | "[options]" | "[flags]");
        operand_seen |= !optional;
        arguments.push(word);
    }
    needs_subcommand |= optional_slot && !operand_after_slot;
    let arguments = arguments.join(" ");
    Some(Form {
        needs_subcommand,
        requires_argument: !needs_subcommand && has_required_placeholder(&arguments),
        operands: required_operands(&arguments),
    })
}

/// A listed subcommand's name (`git config list`), or argparse's `{dir,purge}`
/// holding listed ones.
fn names_an_entry(word: &str, entries: &[HelpEntry]) -> bool {
    let listed = |n: &str| entries.iter().any(|e| e.name == n);
    match word.strip_prefix('{').and_then(|w| w.strip_suffix('}')) {
        Some(inner) => inner.split(',').any(|n| listed(n.trim())),
        None => listed(word),
    }
}

/// oclif's `config:COMMAND` for the topic `config`.
fn is_topic_placeholder(word: &str, name: &str) -> bool {
    word.strip_prefix(name)
        .and_then(|rest| rest.strip_prefix(':'))
        .is_some_and(|rest| command_placeholder(rest).is_some())
}
