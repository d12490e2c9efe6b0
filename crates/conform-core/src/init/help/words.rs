//! Words of a help line: indentation, names, placeholders and bracketed groups.

pub(super) fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

pub(super) fn is_name(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// `<id>`, `[options]`, `{a,b}`, `NAME`, `ARGS...`, `...`, `|`.
pub(super) fn is_placeholder(word: &str) -> bool {
    word.starts_with(['<', '[', '{', '('])
        || matches!(word, "..." | "|")
        || (word.chars().any(|c| c.is_ascii_uppercase())
            && word
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "_-.".contains(c)))
}

/// Whitespace-separated words, a bracketed group (`[--editor <path>]`) kept as one.
pub(super) fn tokens(text: &str) -> Vec<String> {
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
pub(super) fn has_required_placeholder(text: &str) -> bool {
    !outside_brackets(text)
        .split_whitespace()
        .all(|w| w == "..." || w == "--" || w == "|")
}

/// How many operands the usage words `text` require, when each required word is a
/// bare placeholder a made-up value can fill: `NAME`, `<ID>`, `<paths>...`. `None`
/// when one is an option (`--name <X>`), a choice (`{a,b}`, `a|b`) or a literal.
pub(super) fn required_operands(text: &str) -> Option<usize> {
    let mut count = 0;
    for word in outside_brackets(text).split_whitespace() {
        if matches!(word, "..." | "--") {
            continue;
        }
        let inner = match word.strip_prefix('<') {
            Some(rest) => rest.trim_end_matches("...").strip_suffix('>')?,
            None => {
                let bare = word.trim_end_matches("...");
                // A bare placeholder is written in capitals: `NAME`, `TEMPLATE_ID`.
                if bare.chars().any(|c| c.is_ascii_lowercase()) {
                    return None;
                }
                bare
            }
        };
        let plain = !inner.is_empty()
            && inner
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' '))
            && !inner.starts_with('-');
        if !plain {
            return None;
        }
        count += 1;
    }
    Some(count)
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

/// A command as a listing names it: a name, or oclif's `topic:command` id
/// (`apps:favorites:add`), each segment a name.
pub(super) fn is_command_name(word: &str) -> bool {
    word.split(':').all(is_name)
}

/// Whether a usage word stands for a subcommand, and if so whether it is required:
/// `<COMMAND>` (clap), `COMMAND` (click, Typer), `<command>` (yargs, gh),
/// `[command]` (cobra, commander), `SUBCOMMAND` (kubectl), `<subcommand>`, and
/// oclif's `config:COMMAND`. `None` for any other word.
pub(super) fn command_placeholder(word: &str) -> Option<bool> {
    // oclif names a topic's commands `topic:COMMAND`.
    let word = match word.rsplit_once(':') {
        Some((topic, rest)) if is_command_name(topic) => rest,
        _ => word,
    };
    let (inner, required) = if let Some(inner) = word.strip_prefix('[') {
        (inner.strip_suffix(']')?, false)
    } else if let Some(inner) = word.strip_prefix('<') {
        (inner.strip_suffix('>')?, true)
    } else {
        (word, true)
    };
    let inner = inner.trim_end_matches("...");
    let lower = inner.to_ascii_lowercase();
    let names_a_command = matches!(
        lower.as_str(),
        "command" | "commands" | "subcommand" | "sub-command" | "cmd"
    );
    // A bare word counts only in capitals (`COMMAND`): `tool command` is a name.
    let bare_ok = word.starts_with(['[', '<']) || !inner.chars().any(|c| c.is_ascii_lowercase());
    (names_a_command && bare_ok).then_some(required)
}
