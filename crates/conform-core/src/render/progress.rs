//! The progress line on stderr while runs are going, for a person at a terminal:
//! runs made out of runs planned, the elapsed time, and the run last started. It
//! never writes to stdout, and it is cleared before the final report is printed.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::show;
use crate::events::{Event, Reporter};

const TEMPLATE: &str =
    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs  {prefix}  {wide_msg}";

pub(crate) struct ProgressLine {
    bar: ProgressBar,
    profiles: usize,
    profiles_done: usize,
}

impl ProgressLine {
    /// A line on stderr when a person watches it: stderr is a terminal and this is
    /// not a CI job (whose log would keep every redraw). `None` otherwise.
    pub(crate) fn on_terminal() -> Option<ProgressLine> {
        let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
        (std::io::stderr().is_terminal() && !ci)
            .then(|| ProgressLine::new(ProgressDrawTarget::stderr()))
    }

    /// A line drawn to `target` (a hidden one in tests).
    pub(crate) fn new(target: ProgressDrawTarget) -> ProgressLine {
        let style = ProgressStyle::with_template(TEMPLATE)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(0), target).with_style(style);
        // Redrawn on a timer too, so the clock moves while a slow tool runs.
        bar.enable_steady_tick(Duration::from_millis(120));
        ProgressLine {
            bar,
            profiles: 0,
            profiles_done: 0,
        }
    }

    /// Removes the line from the terminal, before anything else is printed there.
    pub(crate) fn clear(&self) {
        self.bar.finish_and_clear();
    }

    fn show_profiles(&self) {
        self.bar
            .set_prefix(format!("{}/{} profiles", self.profiles_done, self.profiles));
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.clear();
    }
}

impl Reporter for ProgressLine {
    fn event(&mut self, event: &Event<'_>) {
        match event {
            Event::PlanReady { profiles, runs } => {
                self.profiles = *profiles;
                self.bar.set_length(*runs as u64);
                self.show_profiles();
            }
            Event::RunStarted { run, .. } => self.bar.set_message(show::visible(&run.label)),
            Event::RunFinished { .. } => self.bar.inc(1),
            Event::ProfileDone { .. } => {
                self.profiles_done += 1;
                self.show_profiles();
            }
            Event::CheckJudged { .. } => {}
        }
    }
}
