//! Help whose usage line is marked by a glyph instead of `Usage:`, rewritten into
//! the plain layout the readers know. One rule for the layout family, whatever
//! the tool: the help may come after a banner and notices, writes its usage as a
//! glyph then the program (`▲ tool env command`), indents every heading by a
//! margin (`  Commands:`), groups the root's commands under titles (`Basic`,
//! `Advanced`), lists aliases as `ls | list`, bare words as required arguments
//! (`add  name [environment]  Add ...`) and options as `-F,  --format`. (vercel's
//! CLI writes its help so.)

/// Whether `c` can mark a usage line: a symbol outside ASCII (`▲`, `›`, `◆`).
fn is_mark(c: char) -> bool {
    !c.is_ascii() && !c.is_alphanumeric()
}

/// `help` in the plain layout when its usage is marked, else `None`: a `Usage:`
/// line where the marked line was (the text before it dropped), headings at the margin
/// moved flush left, group titles dropped, each entry as `list|ls <arg>  Summary`
/// and each option as `-F, --format`.
pub(super) fn plain(help: &str) -> Option<String> {
    let lines: Vec<&str> = help.lines().collect();
    let at = lines
        .iter()
        .position(|line| usage_after_mark(line).is_some())?;
    let margin = super::words::indent(lines[at]);
    let mut out = format!("Usage: {}\n", usage(usage_after_mark(lines[at])?));
    let mut in_commands = false;
    let mut entry_indent: Option<usize> = None;
    for line in &lines[at + 1..] {
        let trimmed = line.trim();
        let depth = super::words::indent(line);
        if trimmed.is_empty() {
            out.push('\n');
            continue;
        }
        if depth <= margin && trimmed.ends_with(':') {
            in_commands = trimmed.to_ascii_lowercase().contains("command");
            entry_indent = None;
            out.push_str(trimmed);
        } else if in_commands && is_title(trimmed) {
            continue;
        } else if in_commands && entry_indent.is_none_or(|first| depth == first) {
            entry_indent = Some(depth);
            out.push_str(&line[..depth]);
            out.push_str(&entry(trimmed));
        } else if let Some(option) = option(trimmed) {
            out.push_str(&line[..depth]);
            out.push_str(&option);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    Some(out)
}

/// What follows the mark when it names a program in lower case (`tool env
/// command`); a banner's `◭  Tool is a toolkit` names none.
fn usage_after_mark(line: &str) -> Option<&str> {
    let trimmed = line.trim();
    let mark = trimmed.chars().next().filter(|c| is_mark(*c))?;
    let rest = trimmed[mark.len_utf8()..].trim_start();
    let word = rest.split_whitespace().next()?;
    let program = super::words::is_name(word) && !word.chars().any(|c| c.is_ascii_uppercase());
    program.then_some(rest)
}

/// The usage with a bare `command` as the placeholder it is.
fn usage(rest: &str) -> String {
    rest.split(' ')
        .map(|word| if word == "command" { "<command>" } else { word })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A group title of the root's listing: `Basic`, `Advanced`.
fn is_title(trimmed: &str) -> bool {
    !trimmed.contains(' ') && trimmed.starts_with(|c: char| c.is_ascii_uppercase())
}

/// `ls | list   [app]   Lists deployments` as `list|ls [app]  Lists deployments`:
/// the longest name first (the others are its short aliases), bare argument
/// words in angle brackets. The columns are parted by two spaces or more; a line
/// with two columns after the names is arguments then summary, with one only a
/// summary (`build   Build the project`).
fn entry(trimmed: &str) -> String {
    let (first, mut rest) = split_word(trimmed);
    let mut names = vec![first];
    while let Some(after) = rest.strip_prefix("| ") {
        let (name, tail) = split_word(after.trim_start());
        names.push(name);
        rest = tail;
    }
    names.sort_by_key(|name| std::cmp::Reverse(name.len()));
    let (arguments, summary) = match rest.find("  ") {
        Some(gap) => (rest[..gap].trim(), rest[gap..].trim()),
        None => ("", rest),
    };
    let arguments: Vec<String> = super::words::tokens(arguments)
        .into_iter()
        .map(|word| {
            if super::words::is_name(&word) {
                format!("<{word}>")
            } else {
                word
            }
        })
        .collect();
    let mut out = names.join("|");
    for word in arguments {
        out.push(' ');
        out.push_str(&word);
    }
    if !summary.is_empty() {
        out.push_str("  ");
        out.push_str(summary);
    }
    out
}

/// The first word and what follows it, leading spaces dropped.
fn split_word(text: &str) -> (&str, &str) {
    match text.find(' ') {
        Some(at) => (&text[..at], text[at..].trim_start()),
        None => (text, ""),
    }
}

/// `-F,  --format <FORMAT>  Specify` with the names joined by one space, so the
/// gap before the summary is the only wide one.
fn option(trimmed: &str) -> Option<String> {
    let mut chars = trimmed.chars();
    let short = chars.next() == Some('-')
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.next() == Some(',');
    if !short {
        return None;
    }
    let rest = trimmed[3..].trim_start();
    rest.starts_with("--")
        .then(|| format!("{}, {rest}", &trimmed[..2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_glyph_marks_a_usage_that_names_a_program_and_a_banner_is_none() {
        let help = "Tool CLI 1.0\n\n  \u{25c6} tool [options] <command>\n\n  Commands:\n\n    Basic\n\n      ls | list   [app]   Lists apps\n";
        let text = plain(help).expect("a marked usage");
        assert!(
            text.starts_with("Usage: tool [options] <command>\n"),
            "{text}"
        );
        assert!(text.contains("      list|ls [app]  Lists apps"), "{text}");
        assert!(!text.contains("Basic"), "{text}");
        assert_eq!(
            plain("\u{25ed}  Tool is a database toolkit\n\n  Usage\n"),
            None
        );
    }
}
