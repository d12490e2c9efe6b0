//! Help written inside a margin: every heading indented alike (`  Usage`,
//! `  Commands`, `  Flags`), the usage as a shell line under its heading
//! (`    $ orm [command]`), and command names aligned on the right of their
//! column. Rewritten into the plain layout the readers know: the headings flush
//! left, and the names aligned on the left. One rule for the layout, whatever
//! the tool (prisma's CLI writes its help so, and any meow or ink CLI may).

use super::usage::usage_rest;
use super::words::indent;

/// `help` with its margin taken out, when its usage heading and a heading that
/// names commands are indented alike; else `None`. Lines before the usage
/// heading (a banner, a tagline) are kept as they are.
pub(super) fn plain(help: &str) -> Option<String> {
    let lines: Vec<&str> = help.lines().collect();
    let at = lines
        .iter()
        .position(|line| usage_rest(line.trim()).is_some() && indent(line) > 0)?;
    let margin = indent(lines[at]);
    let commands_heading = lines[at + 1..].iter().any(|line| {
        indent(line) == margin
            && is_heading(line.trim())
            && line.to_ascii_lowercase().contains("command")
    });
    if !commands_heading {
        return None;
    }
    let mut out: Vec<String> = lines[..at].iter().map(|l| l.to_string()).collect();
    let body: Vec<&str> = lines[at..]
        .iter()
        .map(|line| &line[indent(line).min(margin)..])
        .collect();
    out.extend(left_aligned(&body));
    let mut text = out.join("\n");
    text.push('\n');
    Some(text)
}

/// A heading: a few words, the first capitalised, no column gap, no sentence.
fn is_heading(trimmed: &str) -> bool {
    trimmed.starts_with(|c: char| c.is_ascii_uppercase())
        && trimmed.split_whitespace().count() <= 4
        && !trimmed.contains("  ")
        && !trimmed.ends_with('.')
}

/// The lines with each block of entries whose names end in one column (and
/// start in several) moved to start in one: `      init   Set up` and
/// `  generate   Build` become `  init   Set up` and `  generate   Build`.
fn left_aligned(lines: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut block: Vec<&str> = Vec::new();
    let flush = |block: &mut Vec<&str>, out: &mut Vec<String>| {
        let ends: Vec<usize> = block.iter().map(|line| name_end(line)).collect();
        let starts: Vec<usize> = block.iter().map(|line| indent(line)).collect();
        let right_aligned = block.len() >= 2
            && ends.iter().all(|end| *end == ends[0])
            && starts.iter().any(|start| *start != starts[0]);
        for line in block.drain(..) {
            if right_aligned {
                out.push(format!("  {}", line.trim_start()));
            } else {
                out.push(line.to_string());
            }
        }
    };
    for line in lines {
        let entry = indent(line) > 0 && line.trim().contains("  ");
        if entry {
            block.push(line);
        } else {
            flush(&mut block, &mut out);
            out.push(line.to_string());
        }
    }
    flush(&mut block, &mut out);
    out
}

/// Where the first word of an indented line ends.
fn name_end(line: &str) -> usize {
    let start = indent(line);
    start + line[start..].find(' ').unwrap_or(line.len() - start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_help_inside_a_margin_is_read_flush_left_with_its_names_aligned_on_the_left() {
        let help = "Banner  An ORM\n\n  Usage\n\n    $ orm [command]\n\n  Commands\n\
                    \n        init   Set up\n    generate   Build the client\n          db   Manage\n\
                    \n  Flags\n\n    --help, -h   Show help\n";
        let text = plain(help).expect("a margin");
        assert!(text.contains("\nUsage\n\n  $ orm [command]\n"), "{text}");
        assert!(
            text.contains(
                "Commands\n\n  init   Set up\n  generate   Build the client\n  db   Manage\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("\nFlags\n\n  --help, -h   Show help"),
            "{text}"
        );
        assert_eq!(plain("Usage: t <COMMAND>\n\nCommands:\n  a  A\n"), None);
    }
}
