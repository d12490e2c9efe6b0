//! What the machine can hold: how crowded its CPUs are now, and how many runs its
//! memory and file descriptors bound. The pool starts runs while CPUs are free;
//! runs that wait (at the black hole, in a sleep, on a read) take none, so the
//! count in flight is bounded by what each run keeps (a process and its memory, a
//! few pipes), and a tool whose processes pile up (workers left running, each
//! wanting a CPU) shows as a crowded machine, not as a count of runs (Linux only;
//! elsewhere the machine never reads as crowded and the bound is the fallback).

use std::time::{Duration, Instant};

/// What one run in flight is taken to keep in memory: a Node CLI waiting on the
/// network holds about 130 MB.
const MEMORY_PER_RUN: u64 = 256 * 1024 * 1024;

/// File descriptors one run in flight keeps open in conform: stdin, stdout and
/// stderr pipes, a pidfd, a pty, a black hole's listeners, room to spare.
const FDS_PER_RUN: u64 = 16;

/// Runnable tasks per CPU past which the machine is crowded: a run started then
/// would wait for a CPU, and so would the runs already going.
const CROWDED_PER_CPU: usize = 2;

/// How often the load is read at most.
const READ_EVERY: Duration = Duration::from_millis(50);

/// How many runs may be in flight at once: what the memory available and the
/// open-file limit hold, and never fewer than `floor`.
pub(crate) fn runs_it_holds(floor: usize) -> usize {
    let by_memory = memory_available().map(|bytes| bytes / MEMORY_PER_RUN);
    let by_files = open_files_limit().map(|files| files / FDS_PER_RUN);
    let held = match (by_memory, by_files) {
        (Some(a), Some(b)) => a.min(b),
        (Some(n), None) | (None, Some(n)) => n,
        (None, None) => return floor,
    };
    usize::try_from(held).unwrap_or(usize::MAX).max(floor)
}

/// The machine's runnable load, read at most every [`READ_EVERY`].
#[derive(Debug, Default)]
pub(crate) struct Load {
    read: std::cell::Cell<Option<(Instant, bool)>>,
}

impl Load {
    /// Whether more tasks want a CPU than [`CROWDED_PER_CPU`] per CPU.
    pub(crate) fn crowded(&self) -> bool {
        let now = Instant::now();
        if let Some((at, crowded)) = self.read.get() {
            if now.saturating_duration_since(at) < READ_EVERY {
                return crowded;
            }
        }
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let crowded = runnable().is_some_and(|running| running > CROWDED_PER_CPU * cpus);
        self.read.set(Some((now, crowded)));
        crowded
    }
}

/// Tasks runnable now, machine-wide (`/proc/loadavg`'s `R/T`), this one included.
fn runnable() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let field = text.split_whitespace().nth(3)?;
    field.split('/').next()?.parse().ok()
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text
        .lines()
        .find(|line| line.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The soft limit on open files.
fn open_files_limit() -> Option<u64> {
    nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .ok()
        .map(|(soft, _)| soft)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_holds_at_least_the_floor_and_reads_its_load() {
        assert!(runs_it_holds(8) >= 8);
        if cfg!(target_os = "linux") {
            assert!(runnable().is_some_and(|n| n >= 1));
            assert!(memory_available().is_some());
        }
        // A second look within the interval is the first one's answer.
        let load = Load::default();
        assert_eq!(load.crowded(), load.crowded());
    }
}
