//! What a help call that gave no help printed instead: a prompt, a crash, or
//! something else, and the start of it for a message.

/// How many characters of a help call's output a message shows.
const SHOWN_CHARS: usize = 240;

/// Words of a question that waits for an answer: `[y/N]`, `(yes/no)`, `Press
/// Enter`.
const PROMPT_WORDS: &[&str] = &[
    "[y/n]",
    "(y/n)",
    "[yes/no]",
    "(yes/no)",
    "press enter",
    "press return",
    "press any key",
    "hit enter",
];

/// What a crash prints: Python's traceback and its end-of-input error, a Rust
/// panic, a Node stack, a Java exception, a Go panic.
const CRASH_WORDS: &[&str] = &[
    "traceback (most recent call last)",
    "eoferror",
    "panicked at",
    "unhandled promise rejection",
    "uncaught exception",
    "exception in thread",
    "goroutine 1 [",
];

/// Whether `text` ends on, or holds, a question that waits for an answer: a
/// `[y/N]`, or a last line ending in `?` or `:` (`Enter your API key: `).
pub(in crate::init) fn looks_like_prompt(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    if PROMPT_WORDS.iter().any(|word| lower.contains(word)) {
        return true;
    }
    lower
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .is_some_and(|line| line.trim_end().ends_with(['?', ':']))
}

/// Whether `text` shows a crash: a traceback, a panic, an uncaught exception.
pub(in crate::init) fn looks_like_crash(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    CRASH_WORDS.iter().any(|word| lower.contains(word))
}

/// The start of `text` on one line: its non-blank lines trimmed and joined with
/// ` / `, at most [`SHOWN_CHARS`] characters, `...` where it was cut.
pub(in crate::init) fn one_line(text: &str) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" / ");
    if joined.chars().count() <= SHOWN_CHARS {
        return joined;
    }
    let mut cut: String = joined.chars().take(SHOWN_CHARS).collect();
    cut.push_str("...");
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_run_question_is_a_prompt_and_a_usage_is_not() {
        assert!(looks_like_prompt(
            "Welcome! Let's set things up. Try it anyway? [y/N] "
        ));
        assert!(looks_like_prompt("Enter your API key: "));
        assert!(!looks_like_prompt(
            "Usage: tool [OPTIONS]\n\nOptions:\n  -h, --help  Print help\n"
        ));
    }

    #[test]
    fn a_python_traceback_is_a_crash() {
        let text = "Traceback (most recent call last):\n  File \"cli.py\", line 3, in <module>\nEOFError: EOF when reading a line\n";
        assert!(looks_like_crash(text));
        assert!(!looks_like_crash("error: unknown flag --help\n"));
    }

    #[test]
    fn the_output_shown_is_one_bounded_line() {
        assert_eq!(
            one_line("  Welcome!\n\n  Try it? [y/N] "),
            "Welcome! / Try it? [y/N]"
        );
        let long = "x".repeat(1000);
        let shown = one_line(&long);
        assert_eq!(shown.chars().count(), SHOWN_CHARS + 3);
        assert!(shown.ends_with("..."));
    }
}
