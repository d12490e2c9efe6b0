//! Processes a tool leaves behind. A process that leaves the tool's process group
//! (`setsid`, `setpgid`) escapes the group kill; once its parent exits, the kernel
//! re-parents it to the nearest child subreaper, or to init, where it outlives
//! conform (a CI job then leaves it running).
//!
//! When conform adopts orphans ([`adopt`]: the `conform` binary does, a `Suite`
//! may opt in; it is off by default because a subreaper is process-wide), this
//! process is that subreaper, and:
//!
//! - when a run ends with its output held past the grace after the group kill
//!   (`pipe_held_open`), every process that holds it is traced up to the child of
//!   conform it descends from; that child's whole tree is stopped with SIGSTOP,
//!   parents before children, until no member is left running and none appears;
//!   checked once more (a member of a stopped tree still holds one of the run's
//!   pipes); then killed, waited for and reaped. The record lists them.
//! - an orphan that ends by itself becomes this process's zombie: [`reap_ended`],
//!   called as runs end, reaps those outside this process's group (vercel's
//!   detached telemetry calls left 2,000 in one `conform check`, each holding a
//!   pid). The runs' main processes, which the executor leaves unreaped on purpose
//!   until their group is killed, are registered as they are spawned
//!   ([`spawning`]) and never touched; a child spawned by other code stays in
//!   conform's own process group, and is never touched either.
//! - [`end_all`], for a process that starts nothing but conform's runs, kills every
//!   process still below it once its runs are over: the orphans that could not be
//!   tied to a run because they closed its output (a daemon with its stdio on
//!   `/dev/null`), which no run of several in flight can claim with certainty.
//!
//! Stopping a tree first means none of its members can fork a process the kill
//! would miss, nor exit and free a pid for reuse before the kill. Only processes
//! traced to a run's pipes are touched while runs are in flight; never a run's main
//! process, never another child of this process; and a wait is only ever for a pid
//! conform killed, so no running tool's exit status is stolen.

use std::collections::{HashMap, HashSet};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nix::libc;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use super::holders::{self, PipeHolder};
use super::process::pidfd_open;

/// Set once this process is the child subreaper for conform's runs.
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// Rounds of SIGSTOP and a fresh look at `/proc` before a tree counts as stopped:
/// each round catches the children forked before their parent stopped.
const FREEZE_ROUNDS: usize = 32;
/// How long the kill waits for its processes to die (a process stuck in the kernel
/// may take longer; it is then left to die and stays a zombie until conform exits).
const DEATH_WAIT: Duration = Duration::from_millis(250);

/// A process a tool left behind, which conform killed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    /// Its pid when it was killed.
    pub pid: i32,
    /// `/proc/PID/cmdline`, arguments joined by spaces; empty when unreadable.
    pub cmdline: String,
}

/// The runs' main processes not yet reaped, and when ended orphans were last reaped.
static OWN: Mutex<Own> = Mutex::new(Own {
    mains: Vec::new(),
    reaped_at: None,
});

/// How often, at most, `/proc` is read for ended orphans.
const REAP_EVERY: Duration = Duration::from_secs(1);

struct Own {
    mains: Vec<i32>,
    reaped_at: Option<Instant>,
}

fn own() -> MutexGuard<'static, Own> {
    OWN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `spawn` (which starts a run's main process) and registers the pid it gives,
/// both under the lock [`reap_ended`] takes: a main process that exits at once is
/// never mistaken for an orphan.
pub(super) fn spawning<T>(
    spawn: impl FnOnce() -> io::Result<T>,
    pid: impl Fn(&T) -> Pid,
) -> io::Result<T> {
    if !adopting() {
        return spawn();
    }
    let mut own = own();
    let spawned = spawn()?;
    own.mains.push(pid(&spawned).as_raw());
    Ok(spawned)
}

/// The main process `pid` is reaped: its pid is no longer conform's to guard.
pub(super) fn reaped(pid: Pid) {
    if adopting() {
        own().mains.retain(|&main| main != pid.as_raw());
    }
}

/// Reaps the orphans that ended by themselves: zombie children of this process in
/// a process group other than its own that are no run's main process. At most once per
/// [`REAP_EVERY`]; nothing unless conform adopts orphans.
pub(super) fn reap_ended() {
    if !adopting() {
        return;
    }
    let mut own = own();
    if own.reaped_at.is_some_and(|at| at.elapsed() < REAP_EVERY) {
        return;
    }
    own.reaped_at = Some(Instant::now());
    // The lock is held through the scan: a run spawned meanwhile is registered
    // under it, so its main process is never taken for an orphan and reaped.
    let me = std::process::id() as i32;
    let group = nix::unistd::getpgrp().as_raw();
    let table = ProcTable::read();
    for entry in table.children(me) {
        if !entry.alive() && entry.group != group && !own.mains.contains(&entry.pid) {
            reap(entry.pid);
        }
    }
}

/// Makes this process the child subreaper (Linux), and conform's runs in it kill
/// the processes their tools leave behind (module docs). Process-wide, and it stays
/// on.
pub(crate) fn adopt() -> io::Result<()> {
    set_subreaper()?;
    ADOPTING.store(true, Ordering::SeqCst);
    Ok(())
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn set_subreaper() -> io::Result<()> {
    nix::sys::prctl::set_child_subreaper(true).map_err(io::Error::from)
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn set_subreaper() -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "only Linux has child subreapers",
    ))
}

/// Whether conform adopts orphans in this process.
pub(crate) fn adopting() -> bool {
    ADOPTING.load(Ordering::SeqCst)
}

/// At the end of a run whose pipes (`inodes`) the `holders` still held after the
/// group kill and its grace: kills the tree of each child of conform a holder
/// descends from, except the run's own `main` process. Nothing unless conform
/// adopts orphans.
pub(super) fn end_holders(holders: &[PipeHolder], main: Pid, inodes: &[u64]) -> Vec<Orphan> {
    if !adopting() || holders.is_empty() || inodes.is_empty() {
        return Vec::new();
    }
    let me = std::process::id() as i32;
    let table = ProcTable::read();
    let mut roots: Vec<i32> = holders
        .iter()
        .filter_map(|holder| table.child_of(me, holder.pid))
        .filter(|&root| root != main.as_raw())
        .collect();
    roots.sort_unstable();
    roots.dedup();
    let targets: Vec<String> = inodes
        .iter()
        .map(|inode| format!("pipe:[{inode}]"))
        .collect();
    let mut killed = Vec::new();
    for root in roots {
        killed.extend(end_tree(&[root], |members| {
            members.iter().any(|&pid| holds_any(pid, &targets))
        }));
    }
    killed.sort_by_key(|orphan| orphan.pid);
    killed
}

/// Orphans ended by [`end_between_runs`], kept for [`end_all`] to report.
static ENDED_EARLIER: Mutex<Vec<Orphan>> = Mutex::new(Vec::new());

fn ended_earlier() -> MutexGuard<'static, Vec<Orphan>> {
    ENDED_EARLIER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Kills the orphans of runs that are over, while no run is in flight, so that the
/// next run is alone on the machine: heroku leaves a telemetry worker and an
/// update check running after every call, and a run made again alone competed
/// with those of the runs before it for the CPU, counted as starved again, and its
/// checks skipped. Those killed are reported by [`end_all`].
pub(crate) fn end_between_runs() {
    let killed = end_now();
    ended_earlier().extend(killed);
}

/// Kills every process below this one and reaps its zombie children: for a process
/// that starts nothing but conform's runs, once they are all over (the `conform`
/// binary, before it exits). Returns them all, those [`end_between_runs`] killed
/// first. Nothing unless conform adopts orphans.
pub(crate) fn end_all() -> Vec<Orphan> {
    let mut killed = std::mem::take(&mut *ended_earlier());
    killed.extend(end_now());
    killed.sort_by_key(|orphan| orphan.pid);
    killed
}

/// Kills every process below this one now, and reaps the zombies among them.
fn end_now() -> Vec<Orphan> {
    if !adopting() {
        return Vec::new();
    }
    let me = std::process::id() as i32;
    let table = ProcTable::read();
    let (roots, ended): (Vec<&Entry>, Vec<&Entry>) =
        table.children(me).partition(|entry| entry.alive());
    // Orphans that ended by themselves wait for their parent, now this process.
    for entry in ended {
        reap(entry.pid);
    }
    if roots.is_empty() {
        return Vec::new();
    }
    let roots: Vec<i32> = roots.iter().map(|entry| entry.pid).collect();
    end_tree(&roots, |_| true)
}

/// Stops the trees under `roots`, and kills them if `confirm` holds for the
/// stopped members (else lets them run on). Returns what was killed.
fn end_tree(roots: &[i32], confirm: impl Fn(&[i32]) -> bool) -> Vec<Orphan> {
    let stopped = freeze(roots);
    if stopped.is_empty() {
        return Vec::new();
    }
    if !confirm(&stopped) {
        for &pid in &stopped {
            let _ = kill(Pid::from_raw(pid), Signal::SIGCONT);
        }
        return Vec::new();
    }
    // Stopped, each pid is pinned: its parent is stopped too (or is conform), so
    // nothing reaps it and its pid cannot be reused before the kill.
    let mut killed = Vec::new();
    let mut exits = Vec::new();
    for &pid in &stopped {
        let cmdline = u32::try_from(pid).map(holders::cmdline).unwrap_or_default();
        let exit = pidfd_open(Pid::from_raw(pid));
        if kill(Pid::from_raw(pid), Signal::SIGKILL).is_ok() {
            killed.push(Orphan { pid, cmdline });
            exits.extend(exit);
        }
    }
    wait_for_exits(&exits);
    // Each is conform's child by now: its parent died before it, or is conform.
    for orphan in &killed {
        reap(orphan.pid);
    }
    killed
}

/// SIGSTOPs `roots` and all their descendants, parents before children, until a
/// look at `/proc` finds every one stopped and none new. Returns the stopped pids.
fn freeze(roots: &[i32]) -> Vec<i32> {
    let mut stopped: Vec<i32> = Vec::new();
    let mut seen: HashSet<i32> = HashSet::new();
    for _ in 0..FREEZE_ROUNDS {
        let table = ProcTable::read();
        let members = table.trees(roots);
        let mut settled = true;
        for entry in &members {
            if seen.insert(entry.pid) {
                settled = false;
                if kill(Pid::from_raw(entry.pid), Signal::SIGSTOP).is_ok() {
                    stopped.push(entry.pid);
                }
            } else if !entry.stopped() && stopped.contains(&entry.pid) {
                // SIGSTOP sent, not yet acted on: it may still fork.
                settled = false;
            }
        }
        if settled {
            break;
        }
    }
    stopped
}

/// Whether `pid` has an fd open on one of `targets` (`pipe:[INODE]`).
fn holds_any(pid: i32, targets: &[String]) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok).any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|link| {
            targets
                .iter()
                .any(|target| link.as_os_str() == target.as_str())
        })
    })
}

/// Waits until each process behind `exits` (pidfds) has exited, or `DEATH_WAIT`.
fn wait_for_exits(exits: &[OwnedFd]) {
    let deadline = Instant::now() + DEATH_WAIT;
    let mut pending: Vec<&OwnedFd> = exits.iter().collect();
    while !pending.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        let millis = i32::try_from(left.as_millis().max(1)).unwrap_or(i32::MAX);
        let mut fds: Vec<PollFd<'_>> = pending
            .iter()
            .map(|fd| PollFd::new(fd.as_fd(), PollFlags::POLLIN))
            .collect();
        match poll(
            &mut fds,
            PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX),
        ) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return,
        }
        let exited: Vec<bool> = fds
            .iter()
            .map(|fd| fd.revents().is_some_and(|events| !events.is_empty()))
            .collect();
        pending = pending
            .into_iter()
            .zip(exited)
            .filter(|(_, exited)| !exited)
            .map(|(fd, _)| fd)
            .collect();
    }
}

/// Reaps `pid` if it is an exited child of this process; never blocks.
fn reap(pid: i32) {
    let mut status = 0;
    // SAFETY: waitpid on one pid, with a valid out pointer.
    while unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == -1
        && nix::errno::Errno::last() == nix::errno::Errno::EINTR
    {}
}

/// One process as `/proc/PID/stat` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    pid: i32,
    ppid: i32,
    /// The state letter: `R`, `S`, `D`, `T` (stopped), `Z` (zombie), ...
    state: u8,
    /// Its process group.
    group: i32,
}

impl Entry {
    /// Not a zombie, nor dead and about to vanish.
    fn alive(&self) -> bool {
        !matches!(self.state, b'Z' | b'X' | b'x')
    }

    fn stopped(&self) -> bool {
        matches!(self.state, b'T' | b't' | b'Z' | b'X' | b'x')
    }
}

/// Every process `/proc` shows, by pid; empty where it cannot be read.
struct ProcTable {
    entries: HashMap<i32, Entry>,
}

impl ProcTable {
    fn read() -> ProcTable {
        let mut entries = HashMap::new();
        if let Ok(dir) = std::fs::read_dir("/proc") {
            for entry in dir.flatten() {
                let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                    continue;
                };
                if let Some(parsed) = std::fs::read(entry.path().join("stat"))
                    .ok()
                    .and_then(|stat| parse_stat(pid, &stat))
                {
                    entries.insert(pid, parsed);
                }
            }
        }
        ProcTable { entries }
    }

    /// The processes whose parent is `parent`.
    fn children(&self, parent: i32) -> impl Iterator<Item = &Entry> {
        self.entries.values().filter(move |e| e.ppid == parent)
    }

    /// The child of `ancestor` that `pid` is or descends from, if any.
    fn child_of(&self, ancestor: i32, pid: i32) -> Option<i32> {
        let mut current = self.entries.get(&pid)?;
        // A parent chain is at most as long as the table: a longer one loops, as
        // one read while processes exit and pids are reused can.
        for _ in 0..self.entries.len() {
            if current.ppid == ancestor {
                return Some(current.pid);
            }
            current = self.entries.get(&current.ppid)?;
        }
        None
    }

    /// The live processes of the trees under `roots`, parents before children.
    fn trees(&self, roots: &[i32]) -> Vec<Entry> {
        let mut by_parent: HashMap<i32, Vec<&Entry>> = HashMap::new();
        for entry in self.entries.values() {
            by_parent.entry(entry.ppid).or_default().push(entry);
        }
        let mut order: Vec<Entry> = roots
            .iter()
            .filter_map(|pid| self.entries.get(pid))
            .filter(|entry| entry.alive())
            .copied()
            .collect();
        let mut seen: HashSet<i32> = order.iter().map(|entry| entry.pid).collect();
        let mut next = 0;
        while let Some(parent) = order.get(next).map(|entry| entry.pid) {
            next += 1;
            for child in by_parent.get(&parent).into_iter().flatten() {
                if child.alive() && seen.insert(child.pid) {
                    order.push(**child);
                }
            }
        }
        order
    }
}

/// The state and parent of one `/proc/PID/stat`. The command name (field 2) may hold
/// spaces and parentheses, so fields are counted after its last `)`.
fn parse_stat(pid: i32, stat: &[u8]) -> Option<Entry> {
    let close = stat.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(stat.get(close + 1..)?).ok()?;
    let mut fields = rest.split_ascii_whitespace();
    let state = *fields.next()?.as_bytes().first()?;
    let ppid = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some(Entry {
        pid,
        ppid,
        state,
        group,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        let entry = parse_stat(42, b"42 (a) b (c)) T 7 42 42 0 -1").expect("parses");
        assert_eq!(
            entry,
            Entry {
                pid: 42,
                ppid: 7,
                state: b'T',
                group: 42,
            }
        );
        assert!(entry.stopped() && entry.alive());
        assert_eq!(parse_stat(1, b"1 (x"), None);
        assert_eq!(parse_stat(1, b"1 (x) "), None);
        assert_eq!(parse_stat(1, b"1 (x) S 0"), None, "no group");
    }

    #[test]
    fn trees_list_parents_before_children_and_skip_zombies() {
        let entry = |pid, ppid, state| {
            (
                pid,
                Entry {
                    pid,
                    ppid,
                    state,
                    group: pid,
                },
            )
        };
        let table = ProcTable {
            entries: HashMap::from([
                entry(10, 1, b'S'),
                entry(11, 10, b'S'),
                entry(12, 11, b'R'),
                entry(13, 10, b'Z'),
                entry(20, 1, b'S'),
            ]),
        };
        let pids: Vec<i32> = table.trees(&[10]).iter().map(|e| e.pid).collect();
        assert_eq!(pids, [10, 11, 12]);
        assert_eq!(table.child_of(1, 12), Some(10));
        assert_eq!(table.child_of(10, 12), Some(11));
        assert_eq!(table.child_of(20, 12), None);
        // A loop (pids reused while the table was read) ends.
        let looped = ProcTable {
            entries: HashMap::from([entry(5, 6, b'S'), entry(6, 5, b'S')]),
        };
        assert_eq!(looped.child_of(1, 5), None);
    }
}
