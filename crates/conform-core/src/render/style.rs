//! Minimal terminal styling for the human renderers: bold, dim and three colors.

use std::ffi::OsString;
use std::io::IsTerminal;

/// Whether to color human output written to stdout (REQ-F-008, which conform follows
/// as an agent-ready CLI itself), from the process environment.
pub(crate) fn color_enabled() -> bool {
    color_choice(
        |name| std::env::var_os(name),
        std::io::stdout().is_terminal(),
    )
}

/// The color decision, in order: `NO_COLOR` (non-empty) turns color off whatever
/// else is set; `CLICOLOR_FORCE` (non-empty, not `0`) turns it on even off a
/// terminal; otherwise color needs a terminal, `CLICOLOR` not `0`, `TERM` not
/// `dumb`, and none of `CI`, `GITHUB_ACTIONS`, `JENKINS_URL` (CI logs are read raw).
pub(crate) fn color_choice(var: impl Fn(&str) -> Option<OsString>, terminal: bool) -> bool {
    let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
    let is = |name: &str, value: &str| var(name).is_some_and(|v| v == value);
    if set("NO_COLOR") {
        return false;
    }
    if set("CLICOLOR_FORCE") && !is("CLICOLOR_FORCE", "0") {
        return true;
    }
    terminal
        && !is("CLICOLOR", "0")
        && !is("TERM", "dumb")
        && !["CI", "GITHUB_ACTIONS", "JENKINS_URL"]
            .iter()
            .any(|v| set(v))
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    pub color: bool,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    pub(crate) fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }
    pub(crate) fn red(self, text: &str) -> String {
        self.paint("31", text)
    }
    pub(crate) fn green(self, text: &str) -> String {
        self.paint("32", text)
    }
    pub(crate) fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }
    pub(crate) fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(vars: &[(&str, &str)], terminal: bool) -> bool {
        color_choice(
            |name| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| OsString::from(v))
            },
            terminal,
        )
    }

    #[test]
    fn no_color_wins_then_clicolor_force_then_the_terminal_rules() {
        assert!(choice(&[], true));
        assert!(!choice(&[], false));
        assert!(!choice(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")], true));
        assert!(choice(&[("NO_COLOR", ""), ("CLICOLOR_FORCE", "1")], false));
        assert!(!choice(&[("CLICOLOR_FORCE", "0")], false));
        assert!(!choice(&[("CLICOLOR", "0")], true));
        assert!(choice(&[("CLICOLOR", "1")], true));
        assert!(!choice(&[("TERM", "dumb")], true));
        assert!(!choice(&[("CI", "true")], true));
        assert!(choice(&[("CI", "true"), ("CLICOLOR_FORCE", "1")], false));
    }
}
