//! Which running tools are idle: a tool blocked on a read, a sleep or a lock uses no
//! CPU, so it need not hold one of the `--jobs` slots while it waits for its limit.
//! Linux only (from `/proc`); elsewhere no run is ever idle, which is merely slower.

use std::collections::HashMap;
use std::io::Read;
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
/// Linux) and a tool counts as idle.
const IDLE_TICKS: u64 = 1;

/// CPU time (user + system, in clock ticks) used so far by every process in each
/// process group, read from `/proc`. Empty where `/proc` cannot be read. Each
/// process costs one open and one read: this runs every 100 ms while a tool runs
/// long, so it stays cheap.
pub(super) fn ticks_by_group() -> HashMap<i32, u64> {
    let mut groups = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return groups;
    };
    // A stat line is well under 1 KiB; the fields read come before any that grow.
    let mut buf = [0u8; 1024];
    let mut path = std::path::PathBuf::from("/proc");
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.as_encoded_bytes().iter().all(u8::is_ascii_digit) {
            continue;
        }
        path.push(&name);
        path.push("stat");
        let read = std::fs::File::open(&path).and_then(|mut file| file.read(&mut buf));
        path.pop();
        path.pop();
        let Ok(n) = read else { continue };
        // A command name need not be UTF-8; the fields after it are.
        if let Some((group, ticks)) = parse_stat(&String::from_utf8_lossy(&buf[..n])) {
            *groups.entry(group).or_insert(0) += ticks;
        }
    }
    groups
}

/// The process group and CPU ticks of one `/proc/PID/stat` line. The command name
/// (field 2) may hold spaces and parentheses, so fields are counted after its last
/// `)`: state, ppid, pgrp, ..., utime and stime are the 1st, 3rd, 12th and 13th.
fn parse_stat(stat: &str) -> Option<(i32, u64)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let group = fields.get(2)?.parse().ok()?;
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((group, utime + stime))
}

/// Whether a group that used `before` ticks and now `after` was idle in between.
pub(super) fn idle(before: u64, after: u64) -> bool {
    after.saturating_sub(before) <= IDLE_TICKS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_command_name() {
        let line =
            "4242 (a (weird) name) S 1 4240 4240 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 5 0 0";
        assert_eq!(parse_stat(line), Some((4240, 10)));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn this_process_shows_up_in_its_group() {
        let group = nix::unistd::getpgrp().as_raw();
        assert!(ticks_by_group().contains_key(&group));
    }
}
