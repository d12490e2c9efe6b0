//! The runner's typed events. The runner never prints: every output (the envelope,
//! the text report, the files, a progress line, a stream of results) is a
//! [`Reporter`] fed these events as they happen.

use crate::checks::evidence::RunFacts;
use crate::plan::PlannedRun;
use crate::result::{CheckReport, ProfileReport};

/// Something that happened during `conform run`. `profile` is the profile's index
/// in the order given. Events carry what a reporter may need; not every field has
/// a reader among today's reporters.
#[derive(Debug)]
#[allow(dead_code)]
pub(crate) enum Event<'a> {
    /// Every profile is planned: how many runs there are to make.
    PlanReady { profiles: usize, runs: usize },
    /// A run was started.
    RunStarted { profile: usize, run: &'a PlannedRun },
    /// A run ended, with what it did.
    RunFinished { profile: usize, run: &'a RunFacts },
    /// A check of a profile was judged (in catalog order, once the profile's runs
    /// are all made).
    CheckJudged {
        profile: usize,
        check: &'a CheckReport,
    },
    /// A profile is complete.
    ProfileDone {
        profile: usize,
        report: &'a ProfileReport,
    },
}

/// A consumer of events.
pub(crate) trait Reporter {
    fn event(&mut self, event: &Event<'_>);

    /// Whether it reads `RunStarted` and `RunFinished`: when no reporter does, the
    /// runner does not make them (a run's facts, a message to the judging thread).
    fn wants_run_events(&self) -> bool {
        true
    }
}

/// Reports nothing: for callers that only want the final reports.
pub(crate) struct Silent;

impl Reporter for Silent {
    fn event(&mut self, _: &Event<'_>) {}

    fn wants_run_events(&self) -> bool {
        false
    }
}

/// A reporter borrowed, so its owner can read it once the run is over.
impl<R: Reporter + ?Sized> Reporter for &mut R {
    fn event(&mut self, event: &Event<'_>) {
        (**self).event(event);
    }

    fn wants_run_events(&self) -> bool {
        (**self).wants_run_events()
    }
}

/// A reporter that may be switched off (by a flag, or off a terminal).
impl<R: Reporter> Reporter for Option<R> {
    fn event(&mut self, event: &Event<'_>) {
        if let Some(reporter) = self {
            reporter.event(event);
        }
    }

    fn wants_run_events(&self) -> bool {
        self.as_ref().is_some_and(Reporter::wants_run_events)
    }
}

/// Several reporters fed the same events, in order.
impl Reporter for Vec<Box<dyn Reporter + Send + '_>> {
    fn event(&mut self, event: &Event<'_>) {
        for reporter in self.iter_mut() {
            reporter.event(event);
        }
    }

    fn wants_run_events(&self) -> bool {
        self.iter().any(|reporter| reporter.wants_run_events())
    }
}
