//! What the kit counts as a confirmation flag or a format flag, and how a flag is
//! matched in an argument list.

/// Flags that confirm a destructive action. The kit never deletes on purpose, so a
/// profile that contains one is rejected wherever the kit would pass it to the tool.
pub(crate) const CONFIRMATION_FLAGS: &[&str] = &[
    "--yes",
    "-y",
    "--force",
    "--confirm",
    "--confirm-destructive",
    "--assume-yes",
    "--auto-approve",
    "--live",
];

/// `-f` is `--force` for many tools but `--file` for others: refused in destructive probes only.
const DESTRUCTIVE_ONLY_CONFIRMATION_FLAGS: &[&str] = &["-f"];

/// Values of `--format`/`--output`/`-o` that select an output format.
const FORMAT_NAMES: &[&str] = &[
    "json",
    "jsonl",
    "ndjson",
    "json-lines",
    "jsonlines",
    "plain",
    "text",
    "txt",
    "tsv",
    "csv",
    "yaml",
    "yml",
    "table",
    "human",
    "pretty",
    "raw",
    "markdown",
    "md",
    "xml",
];

/// `arg` is `flag` or `flag=...`.
pub(super) fn is_flag(arg: &str, flag: &str) -> bool {
    !flag.is_empty()
        && (arg == flag
            || arg
                .strip_prefix(flag)
                .is_some_and(|rest| rest.starts_with('=')))
}

pub(super) fn is_confirmation_flag(arg: &str, destructive: bool) -> bool {
    CONFIRMATION_FLAGS.iter().any(|f| is_flag(arg, f))
        || (destructive && DESTRUCTIVE_ONLY_CONFIRMATION_FLAGS.contains(&arg))
}

/// The format name selected by `--format X`, `--output X`, `-o X`, `--format=X`,
/// `--output=X` or `-oX` at this argument, if any.
pub(super) fn format_value<'a>(arg: &'a str, next: Option<&'a str>) -> Option<&'a str> {
    let value = match arg {
        "--format" | "--output" | "-o" => next?,
        _ => arg
            .strip_prefix("--format=")
            .or_else(|| arg.strip_prefix("--output="))
            .or_else(|| {
                arg.strip_prefix("-o")
                    .filter(|v| !v.is_empty() && !v.starts_with('='))
            })?,
    };
    FORMAT_NAMES
        .iter()
        .any(|f| f.eq_ignore_ascii_case(value))
        .then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_values() {
        assert_eq!(format_value("--format", Some("JSON")), Some("JSON"));
        assert_eq!(format_value("-ojson", None), Some("json"));
        assert_eq!(format_value("--output", Some("out.txt")), None);
        assert_eq!(format_value("-o", None), None);
        assert_eq!(format_value("--format=JSON", None), Some("JSON"));
        assert_eq!(format_value("-o=json", None), None);
        assert_eq!(format_value("--formats", Some("json")), None);
    }

    #[test]
    fn confirmation_flags_match_whole_flags_and_their_values() {
        assert!(is_confirmation_flag("--yes", false));
        assert!(is_confirmation_flag("--yes=true", false));
        assert!(!is_confirmation_flag("--yesterday", false));
        assert!(!is_confirmation_flag("--force-color", true));
        assert!(is_confirmation_flag("-f", true));
        assert!(!is_confirmation_flag("-f", false));
        assert!(!is_confirmation_flag("-f=x", true));
    }
}
