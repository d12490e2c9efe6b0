//! The options a help text lists: `-h, --help`, `--color <WHEN>`, cobra's
//! `-o, --output string`, oclif's `-a, --app=<value>`, click's `--debug / --no-debug`.

use super::text::plain;

/// An option listed in a help text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct HelpFlag {
    /// `--dry-run` with its dashes as written (Go's one-dash `-chdir` too);
    /// `None` for a short-only option.
    pub long: Option<String>,
    /// `-n`, with its dash.
    pub short: Option<String>,
    /// Its listing shows a value after the name (`--color <WHEN>`, `--app=<value>`,
    /// `--output string`).
    pub takes_value: bool,
    /// The description on the option's line; empty when it starts on the next.
    pub summary: String,
}

/// Every option line of `help`, in order, once per long name (or short, for a
/// short-only option). A click pair `--debug / --no-debug` gives both names.
pub(super) fn flags(help: &str) -> Vec<HelpFlag> {
    let help = plain(help);
    let mut out: Vec<HelpFlag> = Vec::new();
    for line in help.lines() {
        let trimmed = line.trim();
        if !trimmed.starts_with('-') || trimmed.starts_with("---") {
            continue;
        }
        for flag in parse_flag_line(trimmed) {
            let seen = out.iter().any(|f| {
                (f.long.is_some() && f.long == flag.long)
                    || (f.long.is_none() && flag.long.is_none() && f.short == flag.short)
            });
            if !seen {
                out.push(flag);
            }
        }
    }
    out
}

/// One option line: its names, whether a value follows, its description.
fn parse_flag_line(trimmed: &str) -> Vec<HelpFlag> {
    let (left, summary) = match trimmed.find("  ").or_else(|| trimmed.find('\t')) {
        Some(at) => (&trimmed[..at], trimmed[at..].trim()),
        None => (trimmed, ""),
    };
    let mut longs: Vec<String> = Vec::new();
    let mut short = None;
    let mut takes_value = false;
    for word in left
        .split([' ', ','])
        .filter(|w| !w.is_empty() && *w != "/")
    {
        if let Some(name) = word.strip_prefix("--") {
            let (name, value) = split_value(name);
            if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                return Vec::new();
            }
            takes_value |= value;
            longs.push(format!("--{name}"));
        } else if let Some(name) = word.strip_prefix('-') {
            let (name, value) = split_value(name);
            if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                return Vec::new();
            }
            takes_value |= value;
            if name.chars().count() == 1 {
                short = Some(format!("-{name}"));
            } else {
                // Go's flag package and terraform: `-chdir=DIR`, one dash.
                longs.push(format!("-{name}"));
            }
        } else if is_boolean_mark(word) {
            // Typer prints a flag's type: `--json  <bool>`.
        } else {
            // `<WHEN>`, `string`, `FILE`, `[=false]`.
            takes_value = true;
        }
    }
    if longs.is_empty() {
        return short
            .map(|short| HelpFlag {
                long: None,
                short: Some(short),
                takes_value,
                summary: summary.to_string(),
            })
            .into_iter()
            .collect();
    }
    longs
        .into_iter()
        .map(|long| HelpFlag {
            long: Some(long),
            short: short.clone(),
            takes_value,
            summary: summary.to_string(),
        })
        .collect()
}

/// `app=<value>` → (`app`, true); `verbose...` → (`verbose`, false);
/// `occurrence[=NUMBER]` → (`occurrence`, true).
/// kubectl shows a boolean's default: `--watch=false:` takes no value.
fn split_value(name: &str) -> (&str, bool) {
    let name = name.trim_end_matches(':').trim_end_matches("...");
    match name.find(['=', '[', '<']) {
        Some(at) => {
            let boolean = matches!(&name[at..], "=false" | "=true");
            (&name[..at], !boolean)
        }
        None => (name, false),
    }
}

fn is_boolean_mark(word: &str) -> bool {
    matches!(word, "<bool>" | "<boolean>" | "[boolean]")
}
