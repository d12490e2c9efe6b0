//! The reactor: drives every active run on one thread with a single `poll` over
//! their pipes and pidfds and a wake pipe, timed out by the earliest deadline.

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use super::active::{Active, Source};
use super::cpu;
use super::{Network, RunRecord, RunSpec, Session};

/// The wait between looks at a process whose exit cannot be polled (no pidfd).
const FALLBACK_WAIT: Duration = Duration::from_millis(5);
/// One read's worth: a full pipe buffer on Linux.
const READ_CHUNK: usize = 64 * 1024;
/// How stale the reactor's own run delay may be: well under the 20 ms below which
/// no wait makes a run again.
const KIT_WAIT_EVERY: Duration = Duration::from_millis(5);

/// Runs in progress, keyed by whatever the caller uses to tell them apart.
pub(crate) struct Reactor<K> {
    active: Vec<(K, Active)>,
    /// Records ready to hand out: runs that could not start, or just finished.
    finished: Vec<(K, RunRecord)>,
    /// Its cancel wakes the poll at once; its scratch directory holds sandboxes.
    session: Session,
    cancelled: bool,
    buf: Vec<u8>,
    /// When `/proc` was last read for CPU samples.
    last_pass: Option<Instant>,
    /// This thread's run delay, and when it was read.
    kit_wait: Option<(Instant, Option<Duration>)>,
    /// When `poll` last returned: the time until the next call is spent away from
    /// the runs' pipes.
    polled_at: Option<Instant>,
    /// The machine's runnable load.
    load: super::machine::Load,
}

/// A stretch away from `poll` shorter than this is the reactor's own work on the
/// events of one pass, not time kept from the runs.
const AWAY_AT_LEAST: Duration = Duration::from_millis(5);

impl<K> Reactor<K> {
    pub(crate) fn new(session: &Session) -> Self {
        Reactor {
            active: Vec::new(),
            finished: Vec::new(),
            session: session.clone(),
            cancelled: false,
            last_pass: None,
            kit_wait: None,
            polled_at: None,
            load: Default::default(),
            buf: vec![0; READ_CHUNK],
        }
    }

    /// Starts a run now. A run that cannot start is a finished record handed out by
    /// the next [`Reactor::wait`].
    pub(crate) fn start(&mut self, key: K, spec: &RunSpec) {
        let kit_wait = self.kit_wait(Instant::now());
        if spec.network == Network::BlackHole || spec.namespace.is_some() {
            self.session.note_black_hole();
        }
        match Active::start(spec, &self.session.scratch, kit_wait) {
            Ok(mut active) => {
                if self.cancelled || self.session.cancel.is_cancelled() {
                    active.cancel(Instant::now());
                }
                self.active.push((key, active));
                let runs = self.active.len();
                for (_, active) in &mut self.active {
                    active.note_in_flight(runs);
                }
            }
            Err(record) => self.finished.push((key, *record)),
        }
    }

    /// How long this thread (the reactor's) has waited for a CPU so far, read at
    /// most every [`KIT_WAIT_EVERY`]: runs start and end by the hundred per second,
    /// and the reading only has to be finer than the waits it is compared with.
    fn kit_wait(&mut self, now: Instant) -> Option<Duration> {
        match self.kit_wait {
            Some((read_at, wait)) if now.saturating_duration_since(read_at) < KIT_WAIT_EVERY => {
                wait
            }
            _ => {
                let wait = cpu::this_thread_wait();
                self.kit_wait = Some((now, wait));
                wait
            }
        }
    }

    /// Runs whose tool is alive, not being killed and using CPU: each holds a job
    /// slot. Runs that only wait (an idle tool, a grace, a held pipe) hold none.
    pub(crate) fn busy(&self) -> usize {
        self.active.iter().filter(|(_, a)| a.busy()).count()
    }

    /// Runs whose tool has been blocked for [`super::active::PARKED_AFTER`] or more:
    /// in flight, but waiting for their limit rather than for a CPU.
    pub(crate) fn parked(&self) -> usize {
        let now = Instant::now();
        self.active.iter().filter(|(_, a)| a.parked(now)).count()
    }

    /// Whether more tasks want a CPU than the machine has to give.
    pub(crate) fn crowded(&self) -> bool {
        self.load.crowded()
    }

    /// Whether the session was cancelled.
    pub(crate) fn cancelled(&self) -> bool {
        self.cancelled || self.session.cancel.is_cancelled()
    }

    /// Runs started and not yet handed out.
    pub(crate) fn in_flight(&self) -> usize {
        self.active.len() + self.finished.len()
    }

    /// Waits until something happens (output, an exit, a deadline, a cancel), reacts,
    /// and returns the runs that finished, possibly none. Returns at once when a
    /// record is ready or nothing is in flight.
    pub(crate) fn wait(&mut self) -> Vec<(K, RunRecord)> {
        if self.finished.is_empty() && !self.active.is_empty() {
            self.poll_once();
        }
        let mut index = 0;
        while index < self.active.len() {
            if self.active[index].1.is_done() {
                let (key, active) = self.active.swap_remove(index);
                let kit_wait = self.kit_wait(Instant::now());
                self.finished.push((key, active.into_record(kit_wait)));
            } else {
                index += 1;
            }
        }
        std::mem::take(&mut self.finished)
    }

    fn poll_once(&mut self) {
        let now = Instant::now();
        if let Some(since) = self.polled_at {
            if now.saturating_duration_since(since) >= AWAY_AT_LEAST {
                for (_, active) in &mut self.active {
                    active.note_kit_away(since, now);
                }
            }
        }
        let mut timeout = self
            .active
            .iter()
            .filter_map(|(_, a)| a.next_deadline())
            .min()
            .map(|deadline| deadline.saturating_duration_since(now));
        if self.active.iter().any(|(_, a)| a.needs_polling()) {
            timeout = Some(timeout.map_or(FALLBACK_WAIT, |t| t.min(FALLBACK_WAIT)));
        }
        // Which run and source each polled fd belongs to; the wake pipe is last.
        let mut owners: Vec<(usize, Source)> = Vec::new();
        let ready: Vec<(usize, Source)> = {
            let mut fds: Vec<PollFd<'_>> = Vec::new();
            for (index, (_, active)) in self.active.iter().enumerate() {
                for (source, fd) in active.sources() {
                    owners.push((index, source));
                    // A payload's stdin waits to be writable; output to be read.
                    let events = match source {
                        Source::Stdin => PollFlags::POLLOUT,
                        _ => PollFlags::POLLIN,
                    };
                    fds.push(PollFd::new(fd, events));
                }
            }
            // Once cancelled, the wake pipe stays readable: stop polling it.
            if let Some(wake) = self.session.cancel.wake_fd().filter(|_| !self.cancelled) {
                fds.push(PollFd::new(wake, PollFlags::POLLIN));
            }
            match poll(&mut fds, poll_timeout(timeout)) {
                // EINTR: a signal handler ran (a cancel writes the wake pipe too).
                Ok(_) | Err(Errno::EINTR) => {}
                Err(_) => {
                    // Not expected with valid fds; wait a little so the caller's
                    // loop does not spin until the deadline.
                    std::thread::sleep(FALLBACK_WAIT);
                }
            }
            // Any event counts: POLLHUP and POLLERR are read as EOF or an error,
            // which closes the pipe.
            fds.iter()
                .take(owners.len())
                .zip(&owners)
                .filter(|(fd, _)| fd.revents().is_some_and(|events| !events.is_empty()))
                .map(|(_, owner)| *owner)
                .collect()
        };
        self.polled_at = Some(Instant::now());
        for (index, source) in ready {
            let buf = &mut self.buf;
            if let Some((_, active)) = self.active.get_mut(index) {
                guarded(active, |a| a.on_ready(source, buf));
            }
        }
        let now = Instant::now();
        self.sample_cpu(now);
        let cancel = !self.cancelled && self.session.cancel.is_cancelled();
        self.cancelled |= cancel;
        for (_, active) in &mut self.active {
            if cancel {
                guarded(active, |a| a.cancel(now));
            }
            guarded(active, |a| a.on_tick(now));
        }
    }

    /// Samples the CPU demand of every tool that has run long enough, in one pass
    /// over `/proc`, so blocked tools free their job slots and each run knows how
    /// long it waited for a CPU.
    fn sample_cpu(&mut self, now: Instant) {
        if !self.active.iter().any(|(_, a)| a.sample_due(now)) {
            return;
        }
        if let Some(next) = self.last_pass.map(|last| last + cpu::PASS_GAP) {
            if now < next {
                for (_, active) in &mut self.active {
                    if active.sample_due(now) {
                        active.defer_sample(next);
                    }
                }
                return;
            }
        }
        self.last_pass = Some(now);
        let due: HashSet<i32> = self
            .active
            .iter()
            .filter(|(_, a)| a.sample_due(now))
            .map(|(_, a)| a.group())
            .collect();
        let samples = cpu::sample_groups(&due);
        for (_, active) in &mut self.active {
            if active.sample_due(now) {
                let group = active.group();
                active.sample(samples.get(&group), now);
            }
        }
    }
}

impl<K> Drop for Reactor<K> {
    fn drop(&mut self) {
        for (_, active) in &mut self.active {
            active.abandon();
        }
    }
}

/// Reacts to an event; a panic while doing so ends that run with an internal
/// error (its group killed) and leaves every other run going.
fn guarded(active: &mut Active, react: impl FnOnce(&mut Active)) {
    if let Err(panic) = catch_unwind(AssertUnwindSafe(|| react(active))) {
        active.abort(panicked(&panic));
    }
}

fn panicked(payload: &Box<dyn std::any::Any + Send>) -> String {
    format!(
        "conform's run of this command panicked: {}",
        crate::exit::panic_message(payload.as_ref())
    )
}

/// `wait` as a poll timeout (none: wait for an fd), rounded up to whole
/// milliseconds so a sub-millisecond remainder does not turn into a busy loop of
/// zero-timeout polls.
fn poll_timeout(wait: Option<Duration>) -> PollTimeout {
    match wait {
        None => PollTimeout::NONE,
        Some(wait) => {
            let millis = wait.as_micros().div_ceil(1000);
            PollTimeout::try_from(i32::try_from(millis).unwrap_or(i32::MAX))
                .unwrap_or(PollTimeout::MAX)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_timeouts_round_up() {
        assert_eq!(i32::from(poll_timeout(Some(Duration::ZERO))), 0);
        assert_eq!(i32::from(poll_timeout(Some(Duration::from_micros(1)))), 1);
        assert_eq!(i32::from(poll_timeout(Some(Duration::from_millis(5)))), 5);
        assert_eq!(
            i32::from(poll_timeout(Some(Duration::from_secs(600)))),
            600_000
        );
        assert_eq!(i32::from(poll_timeout(None)), -1);
    }
}
