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
