//! The progress line on stderr while runs are going, for a person at a terminal:
//! runs made out of runs planned, the elapsed time, and the run last started. It
//! never writes to stdout, and it is cleared before the final report is printed.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// How often, at most, [`Phases`] prints a line of runs made off a terminal.
const LINE_EVERY: Duration = Duration::from_secs(10);

/// The phases of `conform check` as they go (help calls, exploration runs, then
/// the survey and depth runs), on stderr: a spinner line on a terminal; off one,
/// with `--progress`, a line when a phase begins and at most one line every
/// [`LINE_EVERY`] between. Clones share one display.
#[derive(Clone)]
pub(crate) struct Phases(Arc<Mutex<PhaseState>>);

impl std::fmt::Debug for Phases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Phases")
    }
}

struct PhaseState {
    /// The spinner, on a terminal, until cleared.
    bar: Option<ProgressBar>,
    /// Lines, off a terminal (`--progress`); on a terminal, nothing once the
    /// spinner is cleared.
    lines: bool,
    started: Instant,
    phase: String,
    /// Runs made in this phase, and how many it plans (when it says).
    made: usize,
    planned: Option<usize>,
    last_line: Instant,
}

impl Phases {
    /// On a terminal (and not in CI): a spinner line. Elsewhere, lines only when
    /// asked for (`--progress`); `None`: stderr stays quiet. `started` is
    /// conform's start.
    pub(crate) fn new(lines: bool, started: Instant) -> Option<Phases> {
        let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
        let terminal = std::io::stderr().is_terminal() && !ci;
        let bar = if terminal {
            let style =
                ProgressStyle::with_template("{spinner} [{elapsed_precise}] {prefix}  {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner());
            let bar =
                ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(style);
            bar.enable_steady_tick(Duration::from_millis(120));
            Some(bar)
        } else if lines {
            None
        } else {
            return None;
        };
        Some(Phases(Arc::new(Mutex::new(PhaseState {
            bar,
            lines: !terminal,
            started,
            phase: String::new(),
            made: 0,
            planned: None,
            last_line: Instant::now(),
        }))))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, PhaseState> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A phase begins: `name` (`help calls`) and what it does.
    pub(crate) fn phase(&self, name: &str, detail: &str) {
        let mut state = self.state();
        if state.phase != name {
            state.made = 0;
            state.planned = None;
        }
        state.phase = name.to_string();
        match &state.bar {
            Some(bar) => {
                bar.set_prefix(name.to_string());
                bar.set_message(detail.to_string());
            }
            None if state.lines => {
                let at = state.started.elapsed().as_secs();
                eprintln!("conform check: {at}s: {name}: {detail}");
                state.last_line = Instant::now();
            }
            None => {}
        }
    }

    /// `runs` more runs were made in this phase.
    pub(crate) fn runs_made(&self, runs: usize) {
        let mut state = self.state();
        state.made += runs;
        let made = match state.planned {
            Some(planned) => format!("{}/{planned} runs made", state.made),
            None => format!("{} runs made", state.made),
        };
        match &state.bar {
            Some(bar) => bar.set_message(made),
            None if state.lines && state.last_line.elapsed() >= LINE_EVERY => {
                let at = state.started.elapsed().as_secs();
                eprintln!("conform check: {at}s: {}: {made}", state.phase);
                state.last_line = Instant::now();
            }
            None => {}
        }
    }

    /// Off the terminal, before anything else is printed there, or before the
    /// run's own progress line takes over.
    pub(crate) fn clear(&self) {
        if let Some(bar) = self.state().bar.take() {
            bar.finish_and_clear();
        }
    }

    /// The phase's runs are planned: `runs` of them.
    fn planned(&self, runs: usize) {
        let mut state = self.state();
        state.planned = Some(runs);
        state.made = 0;
    }
}

impl Reporter for Phases {
    fn event(&mut self, event: &Event<'_>) {
        match event {
            Event::PlanReady { runs, .. } => self.planned(*runs),
            Event::RunFinished { .. } => self.runs_made(1),
            Event::ProfileDone { report, .. } => {
                let state = self.state();
                if state.lines {
                    let at = state.started.elapsed().as_secs();
                    eprintln!(
                        "conform check: {at}s: judged: {} passed, {} failed, {} skipped",
                        report.summary.passed, report.summary.failed, report.summary.skipped
                    );
                }
            }
            Event::RunStarted { .. } | Event::CheckJudged { .. } => {}
        }
    }
}
