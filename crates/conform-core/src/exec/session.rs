//! What the runs of one suite share, and nothing outside it does: a cancellation
//! and the scratch directory that holds their sandboxes. Two suites in one process
//! (two `cargo test` tests, say) never see each other's Ctrl-C or files; nothing
//! here is process-global.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use nix::fcntl::OFlag;

use super::farm::Farm;
use super::janitor::{Discard, Janitor};
use super::netns::Isolation;
use super::sandbox::remove_tree;
use crate::exit::ExitStatus;

/// What [`Cancel`] holds once the budget ended the suite: no exit code.
const BUDGET_ENDED: u8 = 1;

/// Shared by every reactor of a suite; cheap to clone.
#[derive(Debug, Clone, Default)]
pub(crate) struct Session {
    pub(crate) cancel: Cancel,
    pub(crate) scratch: Arc<Scratch>,
    /// Set once a run was put at the black hole: the report then says how.
    at_black_hole: Arc<AtomicBool>,
}

impl Session {
    pub(crate) fn new(cancel: Cancel) -> Session {
        Session {
            cancel,
            scratch: Arc::default(),
            at_black_hole: Arc::default(),
        }
    }

    /// The same session under another cancel: a run that may be stopped alone.
    pub(crate) fn with_cancel(&self, cancel: Cancel) -> Session {
        Session {
            cancel,
            ..self.clone()
        }
    }

    /// Notes that a run was put at the black hole.
    pub(crate) fn note_black_hole(&self) {
        self.at_black_hole.store(true, Ordering::Relaxed);
    }

    /// How the runs at the black hole were kept from the network, once there were
    /// any: what every report of them must say.
    pub(crate) fn network_isolation(&self) -> Option<&'static Isolation> {
        self.at_black_hole
            .load(Ordering::Relaxed)
            .then(super::netns::isolation)
    }

    pub(crate) fn cancel(&self) -> &Cancel {
        &self.cancel
    }
}

/// Stops a suite: every run in progress has its process group killed, as at the
/// limit, and no further run starts. Clones share one state.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<CancelState>);

#[derive(Debug)]
struct CancelState {
    /// 0 until cancelled, then the exit code the stop calls for (130 or 143).
    requested: AtomicU8,
    /// A pipe written once on cancel and never drained, so every reactor polling
    /// its read end wakes, now or later.
    wake: Option<(OwnedFd, OwnedFd)>,
}

impl Default for CancelState {
    fn default() -> Self {
        CancelState {
            requested: AtomicU8::new(0),
            wake: nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK).ok(),
        }
    }
}

impl Cancel {
    /// A cancel not yet requested.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Requests the stop, as a Ctrl-C does (exit 130). Async-signal-safe (an atomic
    /// store and one `write`), so a signal handler may call it.
    pub fn cancel(&self) {
        self.stop(ExitStatus::Cancelled);
    }

    /// Requests the stop, as SIGTERM does (exit 143). Async-signal-safe.
    pub fn terminate(&self) {
        self.stop(ExitStatus::Terminated);
    }

    /// Requests the stop because `conform check`'s budget ran out: the runs in
    /// progress are killed as on a signal, but the command exits as its judged
    /// checks say ([`Cancel::exit_status`] is `None`).
    pub fn expire(&self) {
        self.store(BUDGET_ENDED);
    }

    /// What stopped the suite: `"SIGINT"`, `"SIGTERM"` or `"budget"`; `None` while
    /// not stopped.
    pub fn ended_by(&self) -> Option<&'static str> {
        match self.0.requested.load(Ordering::SeqCst) {
            0 => None,
            BUDGET_ENDED => Some("budget"),
            143 => Some("SIGTERM"),
            _ => Some("SIGINT"),
        }
    }

    fn stop(&self, status: ExitStatus) {
        self.store(status.code() as u8);
    }

    fn store(&self, code: u8) {
        if self
            .0
            .requested
            .compare_exchange(0, code, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return;
        }
        if let Some((_, write)) = &self.0.wake {
            // SAFETY: write(2) is async-signal-safe; the fd is owned by this state,
            // which outlives the call. A full pipe only means a wake is pending.
            unsafe {
                nix::libc::write(write.as_raw_fd(), [1u8].as_ptr().cast(), 1);
            }
        }
    }

    /// Whether the stop was requested.
    pub fn is_cancelled(&self) -> bool {
        self.0.requested.load(Ordering::SeqCst) != 0
    }

    /// How a command that was stopped exits: 130, or 143 after [`Cancel::terminate`];
    /// `None` while not cancelled, and when the budget ended it.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        match self.0.requested.load(Ordering::SeqCst) {
            0 | BUDGET_ENDED => None,
            143 => Some(ExitStatus::Terminated),
            _ => Some(ExitStatus::Cancelled),
        }
    }

    /// Readable once cancelled; `None` when no pipe could be made (the reactor
    /// then notices the flag on its next event or deadline).
    pub(crate) fn wake_fd(&self) -> Option<BorrowedFd<'_>> {
        self.0.wake.as_ref().map(|(read, _)| read.as_fd())
    }
}

/// The suite's temp directory (`conform-<pid>-...`, under [`root`]), made on first
/// use: the shared sentinel farm in `shared/`, one `run-N` subdirectory per
/// sandbox, removed with whatever is left in it when the last clone of the session
/// goes.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    dir: Mutex<Option<PathBuf>>,
    next: Arc<AtomicU64>,
    farm: Mutex<Option<Arc<Farm>>>,
    janitor: Janitor,
}

impl Scratch {
    /// The scratch directory, made now if it is not there yet.
    fn parent(&self) -> io::Result<PathBuf> {
        let mut dir = self
            .dir
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(parent) = dir.as_ref() {
            return Ok(parent.clone());
        }
        let root = &root().dir;
        sweep_stale(root);
        let temp = std::env::temp_dir();
        if temp != *root {
            // Where kits before this one, or on another choice of root, left theirs.
            sweep_stale(&temp);
        }
        let made = tempfile::Builder::new()
            .prefix(&format!("conform-{}-", std::process::id()))
            .tempdir_in(root)?
            .keep();
        *dir = Some(made.clone());
        Ok(made)
    }

    /// A fresh path for one run's sandbox (not yet created).
    pub(crate) fn run_dir(&self) -> io::Result<PathBuf> {
        let parent = self.parent()?;
        Ok(parent.join(format!("run-{}", self.next.fetch_add(1, Ordering::Relaxed))))
    }

    /// A run's directory with its fresh HOME, XDG directories and TMPDIR in it,
    /// most often made ahead of time off the reactor's thread.
    pub(super) fn fresh_set(&self) -> io::Result<PathBuf> {
        let parent = self.parent()?;
        self.janitor.fresh_set(&parent, &self.next)
    }

    /// Where a finished sandbox goes to be removed, off the reactor's thread.
    pub(super) fn discard(&self) -> Discard {
        self.janitor.discard()
    }

    /// The session's shared sentinel and symlink farms, made on first use.
    pub(super) fn farm(&self) -> io::Result<Arc<Farm>> {
        let mut farm = self
            .farm
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(made) = farm.as_ref() {
            return Ok(Arc::clone(made));
        }
        let made = Arc::new(Farm::make(self.parent()?.join("shared"))?);
        *farm = Some(Arc::clone(&made));
        Ok(made)
    }
}

/// Where scratch directories go, chosen once per process: the system temp dir when
/// it is a tmpfs, else a roomy tmpfs (`/dev/shm`, `$XDG_RUNTIME_DIR`) when there is
/// one, else the temp dir. Sandboxes are many small directories made and removed by
/// the thousand; on a disk filesystem that is journal work for nothing.
pub(crate) fn root() -> &'static Root {
    static ROOT: std::sync::OnceLock<Root> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let temp = std::env::temp_dir();
        if is_roomy_tmpfs(&temp) {
            return Root {
                dir: temp,
                tmpfs: true,
            };
        }
        let candidates = [
            Some(PathBuf::from("/dev/shm")),
            std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from),
        ];
        candidates
            .into_iter()
            .flatten()
            .find(|dir| is_roomy_tmpfs(dir) && writable(dir))
            .map_or(
                Root {
                    dir: temp,
                    tmpfs: false,
                },
                |dir| Root { dir, tmpfs: true },
            )
    })
}

/// The directory sandboxes are made under, and whether it is a tmpfs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Root {
    pub dir: PathBuf,
    pub tmpfs: bool,
}

/// Space a tmpfs must have free to hold sandboxes: a tool's temp files land there.
const TMPFS_ROOM: u64 = 1 << 30;

#[cfg(target_os = "linux")]
// fsblkcnt_t and c_ulong are 32 bits on some targets.
#[allow(clippy::useless_conversion)]
fn is_roomy_tmpfs(dir: &Path) -> bool {
    use nix::sys::{statfs, statvfs};
    let tmpfs = statfs::statfs(dir).is_ok_and(|fs| fs.filesystem_type() == statfs::TMPFS_MAGIC);
    tmpfs
        && statvfs::statvfs(dir).is_ok_and(|fs| {
            u64::from(fs.blocks_available()).saturating_mul(u64::from(fs.fragment_size()))
                >= TMPFS_ROOM
        })
}

#[cfg(not(target_os = "linux"))]
fn is_roomy_tmpfs(_: &Path) -> bool {
    false
}

fn writable(dir: &Path) -> bool {
    use nix::unistd::{access, AccessFlags};
    dir.is_dir() && access(dir, AccessFlags::W_OK | AccessFlags::X_OK).is_ok()
}

/// Removes what killed kits left behind: `conform-<pid>-*` directories of this
/// user whose process is gone (a second Ctrl-C kills conform before its session
/// can clean up). A directory of a live process, or another user's, is left alone.
fn sweep_stale(temp: &Path) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    let me = nix::unistd::getuid().as_raw();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("conform-"))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<i32>().ok())
        else {
            continue;
        };
        // Not following links: only a real directory of ours is swept.
        let ours = entry.metadata().is_ok_and(|m| m.is_dir() && m.uid() == me);
        if ours && !alive(pid) {
            remove_tree(&entry.path());
        }
    }
}

/// Whether a process with this pid exists (EPERM: it does, another user's).
fn alive(pid: i32) -> bool {
    pid > 0
        && !matches!(
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
            Err(nix::errno::Errno::ESRCH)
        )
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Its removals first: nothing may write under the directory once it goes.
        self.janitor.stop();
        let dir = self
            .dir
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(path) = dir.take() {
            remove_tree(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancel_reaches_its_clones_only() {
        let one = Cancel::new();
        let clone = one.clone();
        let other = Cancel::new();
        clone.terminate();
        one.cancel();
        assert_eq!(
            one.exit_status(),
            Some(ExitStatus::Terminated),
            "the first stop wins"
        );
        assert!(!other.is_cancelled());
        assert_eq!(other.exit_status(), None);
    }

    #[test]
    fn a_budget_that_ends_stops_the_suite_with_no_exit_status_of_its_own() {
        let cancel = Cancel::new();
        assert_eq!(cancel.ended_by(), None);
        cancel.expire();
        assert!(cancel.is_cancelled());
        assert_eq!(cancel.exit_status(), None);
        assert_eq!(cancel.ended_by(), Some("budget"));
        let term = Cancel::new();
        term.terminate();
        assert_eq!(term.ended_by(), Some("SIGTERM"));
        let int = Cancel::new();
        int.cancel();
        assert_eq!(int.ended_by(), Some("SIGINT"));
    }

    #[test]
    fn the_scratch_directory_goes_with_the_last_session() {
        let session = Session::default();
        let run = session.scratch.run_dir().expect("scratch dir");
        let parent = run.parent().expect("parent").to_path_buf();
        std::fs::create_dir(&run).expect("run dir");
        let clone = session.clone();
        drop(session);
        assert!(parent.exists(), "a clone still holds it");
        drop(clone);
        assert!(!parent.exists(), "removed with the last clone");
    }

    #[test]
    fn sandboxes_go_on_a_tmpfs_when_the_machine_has_a_roomy_one() {
        let root = root();
        assert!(root.dir.is_dir(), "{root:?}");
        assert_eq!(root.tmpfs, is_roomy_tmpfs(&root.dir), "{root:?}");
        if is_roomy_tmpfs(Path::new("/dev/shm")) && writable(Path::new("/dev/shm")) {
            assert!(root.tmpfs, "{root:?}");
        }
        let scratch = Scratch::default();
        let run = scratch.run_dir().expect("scratch");
        assert!(run.starts_with(&root.dir), "{run:?} under {root:?}");
    }

    #[test]
    fn directories_of_dead_kits_are_swept_and_live_ones_kept() {
        let temp = tempfile::tempdir().expect("temp dir");
        // Beyond any pid_max: no such process.
        let dead = temp.path().join("conform-999999999-abc");
        let live = temp
            .path()
            .join(format!("conform-{}-def", std::process::id()));
        let unrelated = temp.path().join("conform-notes");
        for dir in [&dead, &live, &unrelated] {
            std::fs::create_dir_all(dir.join("run-0/home")).expect("mkdir");
        }
        sweep_stale(temp.path());
        assert!(!dead.exists(), "a dead kit's directory is removed");
        assert!(live.exists(), "a live kit's directory is kept");
        assert!(unrelated.exists(), "a name without a pid is kept");
    }
}
