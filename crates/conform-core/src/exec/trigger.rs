//! A run's trigger once it is armed: the stdout lines read are counted until line
//! N, then the signal is sent or stdout closed, and what became of it is recorded.

use super::capture::Pipe;
use super::process::Process;
use super::{Trigger, TriggerAction, TriggerOutcome};
use crate::lines;

/// The trigger of one run, while it waits for its line.
pub(super) struct Armed {
    trigger: Option<Trigger>,
    /// Stdout lines read so far, counted while a trigger is pending.
    lines: lines::Counter,
    due: bool,
}

impl Armed {
    pub(super) fn new(trigger: Option<Trigger>) -> Armed {
        Armed {
            trigger,
            lines: lines::Counter::default(),
            due: trigger.is_some(),
        }
    }

    /// Whether a trigger still waits for its line: only then are lines counted.
    pub(super) fn is_due(&self) -> bool {
        self.due
    }

    /// Counts the lines of stdout just read.
    pub(super) fn feed(&mut self, chunk: &[u8]) {
        self.lines.feed(chunk);
    }

    /// Fires the trigger if its line has been read: the signal goes to the tool's
    /// process if it is still alive, or the kit's end of stdout is closed. Returns
    /// what became of it when it fired now.
    pub(super) fn maybe_fire(
        &mut self,
        stdout: &mut Pipe,
        process: &mut Process,
    ) -> Option<TriggerOutcome> {
        let trigger = self.trigger?;
        // At EOF an unterminated last line is a line too, as a line reader sees it.
        let lines = if stdout.is_open() {
            self.lines.complete()
        } else {
            self.lines.total_at_eof()
        };
        if !self.due || lines < trigger.after_lines {
            return None;
        }
        self.due = false;
        let exited = process.has_exited();
        let delivered = match trigger.action {
            TriggerAction::Signal(signal) => !exited && process.signal(signal),
            TriggerAction::CloseStdout => {
                stdout.abandon();
                !exited
            }
        };
        Some(if delivered {
            TriggerOutcome::Fired
        } else {
            TriggerOutcome::AfterExit
        })
    }
}
