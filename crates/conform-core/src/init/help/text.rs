//! Help text made plain: colour, overstrike and drawn boxes taken out.

/// Help text as UTF-8 without colour codes or man-style overstrike.
pub(in crate::init) fn clean(bytes: &[u8]) -> String {
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
pub(in crate::init) fn is_man_page(text: &str) -> bool {
    let headers = text
        .lines()
        .filter(|l| matches!(l.trim_end(), "NAME" | "SYNOPSIS" | "DESCRIPTION"))
        .count();
    headers >= 2
}

/// Help text in the layout the readers know: boxes drawn by rich and neonctl
/// turned into sections ([`unbox`]), a usage marked by a glyph rewritten
/// ([`super::marked::plain`]), a margin taken out ([`super::margin::plain`]).
pub(super) fn plain(help: &str) -> String {
    let help = unbox(help);
    let help = super::marked::plain(&help).unwrap_or(help);
    super::margin::plain(&help).unwrap_or(help)
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
