//! What the runs of one suite share, and nothing outside it does: a cancellation
//! and the scratch directory that holds their sandboxes. Two suites in one process
//! (two `cargo test` tests, say) never see each other's Ctrl-C or files; nothing
//! here is process-global.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use nix::fcntl::OFlag;

use super::sandbox::remove_tree;
use crate::exit::ExitStatus;

/// Shared by every reactor of a suite; cheap to clone.
#[derive(Debug, Clone, Default)]
pub(crate) struct Session {
    pub(crate) cancel: Cancel,
    pub(crate) scratch: Arc<Scratch>,
}

impl Session {
    pub(crate) fn new(cancel: Cancel) -> Session {
        Session {
            cancel,
            scratch: Arc::default(),
        }
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

    fn stop(&self, status: ExitStatus) {
        let code = status.code() as u8;
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
    /// `None` while not cancelled.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        match self.0.requested.load(Ordering::SeqCst) {
            0 => None,
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

/// The suite's temp directory (`conform-<pid>-...`), made on first use, one
/// `run-N` subdirectory per sandbox, removed with whatever is left in it when the
/// last clone of the session goes.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    dir: Mutex<Option<PathBuf>>,
    next: AtomicU64,
}

impl Scratch {
    /// A fresh path for one run's sandbox (not yet created).
    pub(crate) fn run_dir(&self) -> io::Result<PathBuf> {
        let mut dir = self
            .dir
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let parent = match dir.as_ref() {
            Some(parent) => parent.clone(),
            None => {
                sweep_stale(&std::env::temp_dir());
                let made = tempfile::Builder::new()
                    .prefix(&format!("conform-{}-", std::process::id()))
                    .tempdir()?
                    .keep();
                *dir = Some(made.clone());
                made
            }
        };
        Ok(parent.join(format!("run-{}", self.next.fetch_add(1, Ordering::Relaxed))))
    }
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
