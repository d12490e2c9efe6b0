//! Minimal terminal styling for the human renderers: bold, dim and three colors.

use std::io::IsTerminal;

/// Whether to color human output written to stdout: only on a terminal, and never
/// under NO_COLOR, CI, GITHUB_ACTIONS, JENKINS_URL or TERM=dumb (REQ-F-008, which
/// conform follows as an agent-ready CLI itself).
pub fn color_enabled() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    std::io::stdout().is_terminal()
        && !["NO_COLOR", "CI", "GITHUB_ACTIONS", "JENKINS_URL"]
            .iter()
            .any(|v| set(v))
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

#[derive(Debug, Clone, Copy)]
pub struct Style {
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
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }
    pub fn red(self, text: &str) -> String {
        self.paint("31", text)
    }
    pub fn green(self, text: &str) -> String {
        self.paint("32", text)
    }
    pub fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
}
