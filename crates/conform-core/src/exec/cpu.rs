//! What a running tool asks of the CPU, read from `/proc` (Linux only; elsewhere no
//! run is ever idle and no wait is measured, which is merely slower and less
//! informative).
//!
//! Two uses. A job slot is given away only by a tool blocked in a sleep or a read:
//! one that is runnable but gets no CPU (a loaded machine) looks idle by CPU time
//! alone, and giving its slot to yet another run would feed the overload. And a
//! run's verdict may rest on time (a limit, a line read after the exit): the time
//! its processes spent runnable but waiting for a CPU (the scheduler's run delay,
//! `/proc/PID/task/TID/schedstat`) tells whether the tool had the CPU it asked for.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;
use std::time::Duration;

/// How often running tools are sampled, once they have run this long.
pub(super) const SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// The first sample of a tool, measured against the zero ticks a new process group
/// starts with: a tool that starts and then waits (a stream between lines, a read
/// of an open stdin) frees its slot after this long, not after two full periods.
pub(super) const FIRST_SAMPLE: Duration = Duration::from_millis(40);

/// At most one pass over `/proc` this often, however many tools are due: a pass
/// opens every process's stat file, and runs start by the dozen per second.
pub(super) const PASS_GAP: Duration = Duration::from_millis(20);

/// At most this much CPU time over one sample period (in clock ticks, 10 ms each on
/// Linux) and a tool may count as idle.
const IDLE_TICKS: u64 = 1;

/// Run delay that grows by less than this between samples (a fifth of the 100 ms
/// period) is a tool that was briefly runnable and then blocked, not one kept from
/// the CPU: a starved tool waits for most of the period. With 2 ms, tools that
/// start and block held their slots a period longer, and a directory of broken
/// CLIs took 15% longer.
const IDLE_WAIT: Duration = Duration::from_millis(20);

/// One look at a process group's threads.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct GroupSample {
    /// CPU time (user + system, in clock ticks) used so far by the group's
    /// processes, all their threads included.
    pub ticks: u64,
    /// Some thread is running, waiting for a CPU (`R`) or in an uninterruptible
    /// wait, mostly disk (`D`): the tool is working, not blocked on a read or sleep.
    pub runnable: bool,
    /// Each thread's total run delay so far, in nanoseconds, by thread id.
    pub waits: HashMap<i32, u64>,
    /// The command names (`comm`) of the group's processes, as `/proc` lists them.
    pub names: Vec<String>,
}

/// Samples every process group in `groups`, in one pass over `/proc`. A group with
/// no readable process is absent.
pub(super) fn sample_groups(groups: &HashSet<i32>) -> HashMap<i32, GroupSample> {
    let mut samples: HashMap<i32, GroupSample> = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return samples;
    };
    let mut buf = [0u8; 1024];
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.as_encoded_bytes().iter().all(u8::is_ascii_digit) {
            continue;
        }
        let dir = entry.path();
        let Some(line) = read_small(&dir.join("stat"), &mut buf) else {
            continue;
        };
        let Some(stat) = parse_stat(&line) else {
            continue;
        };
        if !groups.contains(&stat.group) {
            continue;
        }
        let sample = samples.entry(stat.group).or_default();
        sample.ticks += stat.ticks;
        if let Some(name) = command_name(&line) {
            sample.names.push(name.to_string());
        }
        add_threads(&dir, sample, &mut buf);
    }
    samples
}

/// The run delay of one process's threads now: its last look, taken while the
/// process is an unreaped zombie (the other threads are gone by then).
pub(super) fn process_waits(pid: i32) -> HashMap<i32, u64> {
    let mut sample = GroupSample::default();
    add_threads(
        &Path::new("/proc").join(pid.to_string()),
        &mut sample,
        &mut [0u8; 1024],
    );
    sample.waits
}

/// The calling thread's total run delay: how long conform's own reactor waited for
/// a CPU. `None` where it cannot be read.
pub(super) fn this_thread_wait() -> Option<Duration> {
    let text = read_small(Path::new("/proc/thread-self/schedstat"), &mut [0u8; 128])?;
    parse_schedstat(&text).map(Duration::from_nanos)
}

/// Adds a process's threads (state and run delay) to `sample`.
fn add_threads(process: &Path, sample: &mut GroupSample, buf: &mut [u8]) {
    let Ok(tasks) = std::fs::read_dir(process.join("task")) else {
        return;
    };
    for task in tasks.flatten() {
        let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok()) else {
            continue;
        };
        let dir = task.path();
        if let Some(stat) = read_small(&dir.join("stat"), buf).and_then(|s| parse_stat(&s)) {
            sample.runnable |= matches!(stat.state, 'R' | 'D');
        }
        if let Some(wait) =
            read_small(&dir.join("schedstat"), buf).and_then(|s| parse_schedstat(&s))
        {
            sample.waits.insert(tid, wait);
        }
    }
}

fn read_small(path: &Path, buf: &mut [u8]) -> Option<String> {
    let n = std::fs::File::open(path)
        .and_then(|mut file| file.read(buf))
        .ok()?;
    // A command name need not be UTF-8; the fields after it are.
    Some(String::from_utf8_lossy(buf.get(..n)?).into_owned())
}

/// The fields of `/proc/PID/stat` read here.
#[derive(Debug, PartialEq, Eq)]
struct Stat {
    state: char,
    group: i32,
    ticks: u64,
}

/// One `/proc/PID/stat` line. The command name (field 2) may hold spaces and
/// parentheses, so fields are counted after its last `)`: state, ppid, pgrp, ...,
/// utime and stime are the 1st, 3rd, 12th and 13th.
fn parse_stat(stat: &str) -> Option<Stat> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let group = fields.get(2)?.parse().ok()?;
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Stat {
        state,
        group,
        ticks: utime + stime,
    })
}

/// The command name of a `/proc/PID/stat` line: field 2, inside the parentheses
/// (the kernel's `comm`, at most 15 bytes of the program's name).
fn command_name(stat: &str) -> Option<&str> {
    stat.get(stat.find('(')? + 1..stat.rfind(')')?)
}

/// The run delay (second field, nanoseconds) of a `schedstat` line: time on the
/// CPU, time runnable but waiting for one, timeslices.
fn parse_schedstat(text: &str) -> Option<u64> {
    text.split_whitespace().nth(1)?.parse().ok()
}

/// How much longer the most delayed thread in `now` waited for a CPU than at
/// `before`: a thread not seen before counts from zero, since it was born in the
/// run. Threads that wait side by side delay the tool by the longest of their
/// waits, not their sum: a Node CLI's eleven threads summed to 1 s of a 5 s limit
/// alone on a quiet machine, its most delayed thread to 0.3 s.
pub(super) fn wait_growth(before: &HashMap<i32, u64>, now: &HashMap<i32, u64>) -> Duration {
    let nanos = now
        .iter()
        .map(|(tid, &wait)| wait.saturating_sub(before.get(tid).copied().unwrap_or(0)))
        .max()
        .unwrap_or(0);
    Duration::from_nanos(nanos)
}

/// Whether a tool gives its job slot away: blocked in a sleep or a read over the
/// whole period, not working and not kept waiting for a CPU.
pub(super) fn idle(ticks_before: u64, now: &GroupSample, waited: Duration) -> bool {
    now.ticks.saturating_sub(ticks_before) <= IDLE_TICKS && !now.runnable && waited < IDLE_WAIT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_command_name() {
        let line =
            "4242 (a (weird) name) S 1 4240 4240 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 5 0 0";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                state: 'S',
                group: 4240,
                ticks: 10
            })
        );
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(command_name(line), Some("a (weird) name"));
        assert_eq!(command_name("garbage"), None);
    }

    #[test]
    fn schedstat_gives_the_run_delay() {
        assert_eq!(parse_schedstat("123456 7890 12\n"), Some(7890));
        assert_eq!(parse_schedstat("123456"), None);
    }

    #[test]
    fn a_new_thread_counts_its_whole_wait_and_a_known_one_its_growth() {
        let before = HashMap::from([(1, 1_000_000), (2, 5_000_000)]);
        let now = HashMap::from([(1, 4_000_000), (3, 2_000_000)]);
        assert_eq!(wait_growth(&before, &now), Duration::from_millis(3));
        let now = HashMap::from([(1, 2_000_000), (3, 6_000_000)]);
        assert_eq!(wait_growth(&before, &now), Duration::from_millis(6));
        assert_eq!(wait_growth(&before, &HashMap::new()), Duration::ZERO);
    }

    #[test]
    fn threads_that_wait_side_by_side_count_their_longest_wait_not_their_sum() {
        let before: HashMap<i32, u64> = (1..=11).map(|tid| (tid, 0)).collect();
        let now: HashMap<i32, u64> = (1..=11).map(|tid| (tid, 90_000_000)).collect();
        assert_eq!(wait_growth(&before, &now), Duration::from_millis(90));
    }

    #[test]
    fn a_runnable_or_waiting_tool_is_never_idle() {
        let sleeping = GroupSample {
            ticks: 1,
            ..GroupSample::default()
        };
        assert!(idle(0, &sleeping, Duration::ZERO));
        let runnable = GroupSample {
            runnable: true,
            ..sleeping.clone()
        };
        assert!(!idle(0, &runnable, Duration::ZERO), "state R or D");
        assert!(
            !idle(0, &sleeping, Duration::from_millis(30)),
            "kept from the CPU since the last sample"
        );
        let worked = GroupSample {
            ticks: 5,
            ..GroupSample::default()
        };
        assert!(!idle(0, &worked, Duration::ZERO), "used CPU");
    }

    #[test]
    fn this_process_shows_up_in_its_group_as_runnable() {
        let group = nix::unistd::getpgrp().as_raw();
        let samples = sample_groups(&HashSet::from([group]));
        let sample = samples
            .get(&group)
            .expect("this process's group is sampled");
        // The thread reading /proc is running.
        assert!(sample.runnable);
        assert!(sample.waits.contains_key(&(std::process::id() as i32)));
        let own = std::fs::read_to_string("/proc/self/comm").expect("comm");
        assert!(
            sample.names.contains(&own.trim_end().to_string()),
            "{:?}",
            sample.names
        );
        assert!(this_thread_wait().is_some());
    }
}
