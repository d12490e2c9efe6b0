//! What one run asks of the CPU: whether its tool is using it (an idle tool frees
//! its job slot) and how long the tool, and the kit reading it, waited for one.
//! The samples are `cpu.rs`'s, read from `/proc`; this keeps one run's account.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::cpu;
use super::CpuWait;

/// One run's CPU account, from its start to its record.
pub(super) struct Demand {
    /// The group's CPU ticks at the last sample.
    cpu_ticks: Option<u64>,
    /// Set while the tool has been blocked (in a sleep or a read) at every sample
    /// since this one, the first that found it so: an idle tool frees its job slot.
    idle_since: Option<Instant>,
    next_sample: Instant,
    /// Each of the tool's threads' run delay at the last sample.
    thread_waits: HashMap<i32, u64>,
    /// The reactor thread's run delay when the run started.
    kit_wait_at_start: Option<Duration>,
    /// The longest stretch the reactor spent on other work (judging, planning,
    /// other runs' output) instead of watching this run's pipes.
    kit_away: Duration,
    cpu_wait: CpuWait,
    /// The command names seen in the tool's group, each once, in order of first sight.
    processes_seen: Vec<String>,
}

/// Distinct command names kept per run: a tool that starts hundreds of helpers
/// still gives a bounded record.
const PROCESSES_KEPT: usize = 32;

impl Demand {
    /// The account of a tool spawned at `started`, when the kit's reactor had
    /// waited `kit_wait` for a CPU so far.
    pub(super) fn new(started: Instant, kit_wait: Option<Duration>) -> Demand {
        Demand {
            // A new process group: the tool has used no CPU yet.
            cpu_ticks: Some(0),
            idle_since: None,
            next_sample: started + cpu::FIRST_SAMPLE,
            thread_waits: HashMap::new(),
            kit_wait_at_start: kit_wait,
            kit_away: Duration::ZERO,
            cpu_wait: CpuWait::default(),
            processes_seen: Vec::new(),
        }
    }

    /// Whether the tool was blocked, not using CPU, between the last two samples.
    pub(super) fn idle(&self) -> bool {
        self.idle_since.is_some()
    }

    /// How long the tool has been blocked, sample after sample, as of `now`.
    pub(super) fn idle_for(&self, now: Instant) -> Duration {
        self.idle_since
            .map_or(Duration::ZERO, |since| now.saturating_duration_since(since))
    }

    /// When the tool's CPU use is next due to be sampled.
    pub(super) fn next_sample(&self) -> Instant {
        self.next_sample
    }

    /// Puts a due sample off until `until` (the reactor's next pass over `/proc`).
    pub(super) fn defer_sample(&mut self, until: Instant) {
        self.next_sample = self.next_sample.max(until);
    }

    /// A CPU sample of the tool's group (`None`: it could not be read, so the tool
    /// counts as busy).
    pub(super) fn sample(&mut self, sample: Option<&cpu::GroupSample>, now: Instant) {
        let idle = match (self.cpu_ticks, sample) {
            (Some(before), Some(sample)) => {
                let waited = cpu::wait_growth(&self.thread_waits, &sample.waits);
                self.add_wait(&sample.waits);
                cpu::idle(before, sample, waited)
            }
            _ => false,
        };
        self.idle_since = if idle {
            Some(self.idle_since.unwrap_or(now))
        } else {
            None
        };
        for name in sample.iter().flat_map(|s| &s.names) {
            if self.processes_seen.len() < PROCESSES_KEPT && !self.processes_seen.contains(name) {
                self.processes_seen.push(name.clone());
            }
        }
        self.cpu_ticks = sample.map(|s| s.ticks);
        self.next_sample = now + cpu::SAMPLE_EVERY;
    }

    /// Another run started while this one was going.
    pub(super) fn note_in_flight(&mut self, runs: usize) {
        self.cpu_wait.in_flight = self.cpu_wait.in_flight.max(runs);
    }

    /// The reactor was away from `poll` for `away` while this run was going. The
    /// longest stretch counts, not their sum: a line is read late by the stretch
    /// it arrived in, and a loaded machine makes many short ones.
    pub(super) fn note_kit_away(&mut self, away: Duration) {
        self.kit_away = self.kit_away.max(away);
    }

    /// Adds how much longer the tool's most delayed thread waited for a CPU since the
    /// last look.
    pub(super) fn add_wait(&mut self, waits: &HashMap<i32, u64>) {
        self.cpu_wait.tool += cpu::wait_growth(&self.thread_waits, waits);
        for (&tid, &wait) in waits {
            self.thread_waits.insert(tid, wait);
        }
    }

    /// The command names seen in the tool's group over the run (taken once).
    pub(super) fn take_processes_seen(&mut self) -> Vec<String> {
        std::mem::take(&mut self.processes_seen)
    }

    /// The waits of the whole run, once it is over, the kit's reactor having waited
    /// `kit_wait` for a CPU by now.
    pub(super) fn finish(&mut self, kit_wait: Option<Duration>) -> CpuWait {
        if let (Some(start), Some(now)) = (self.kit_wait_at_start, kit_wait) {
            self.cpu_wait.kit = now.saturating_sub(start);
        }
        // Whichever kept the kit from the run the longer: its waits for a CPU in
        // all, or its longest stretch away from `poll` (which a wait may be part
        // of, so the two are not added).
        self.cpu_wait.kit = self.cpu_wait.kit.max(self.kit_away);
        self.cpu_wait
    }
}
