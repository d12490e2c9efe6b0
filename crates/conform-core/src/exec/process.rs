//! The tool's main process: has it exited, and reaping it. Only ever our own pid:
//! never `waitpid(-1)` and no SIGCHLD handler, so concurrent runs on other threads
//! (and anything else in the kit that spawns) are never robbed of their children.
//!
//! On Linux the exit is observed with `waitid(WNOWAIT)`, which leaves the process a
//! zombie: while it is unreaped its pid cannot be reused, so the group kill that
//! follows the exit and a late SIGINT can never hit an unrelated process. Elsewhere
//! `waitpid(WNOHANG)` observes and reaps at once; the group id then stays reserved
//! only while some member lives, a narrow window that only matters if the pid is
//! reused within microseconds.
//!
//! libc is called directly because nix's `Signal` enum has no real-time signals: a
//! tool killed by one would turn nix's wait into an error after the reap.

use std::os::fd::{AsFd, BorrowedFd, FromRawFd, OwnedFd};
use std::time::Instant;

use nix::libc;
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;

use super::Exit;

pub(super) struct Process {
    pid: Pid,
    /// Readable once the process exits (Linux 5.3+); `None` where it cannot be had,
    /// and the reactor then falls back to a short wait.
    pidfd: Option<OwnedFd>,
    /// Set once the exit is observed (`Unknown` if the pid vanished under us).
    status: Option<Exit>,
    exited_at: Option<Instant>,
    reaped: bool,
}

impl Process {
    pub(super) fn new(pid: Pid) -> Process {
        Process {
            pid,
            pidfd: pidfd_open(pid),
            status: None,
            exited_at: None,
            reaped: false,
        }
    }

    pub(super) fn pid(&self) -> Pid {
        self.pid
    }

    /// The fd to poll for the exit, while the exit has not been observed; after
    /// it, a pidfd stays readable and would wake every poll.
    pub(super) fn exit_fd(&self) -> Option<BorrowedFd<'_>> {
        if self.status.is_some() {
            return None;
        }
        self.pidfd.as_ref().map(AsFd::as_fd)
    }

    /// Whether its exit can only be noticed by asking (no pidfd).
    pub(super) fn needs_polling(&self) -> bool {
        self.status.is_none() && self.pidfd.is_none()
    }

    /// How it ended, once observed.
    pub(super) fn status(&self) -> Option<Exit> {
        self.status
    }

    /// When the exit was first observed.
    pub(super) fn exited_at(&self) -> Option<Instant> {
        self.exited_at
    }

    /// Whether the process has exited; never blocks.
    pub(super) fn has_exited(&mut self) -> bool {
        if self.status.is_some() {
            return true;
        }
        match observe(self.pid) {
            Observed::Running => return false,
            Observed::Exited { exit, reaped } => {
                self.status = Some(exit);
                self.set_reaped(reaped);
            }
            Observed::Gone => {
                // ECHILD and the like: someone else reaped it (a kit that sets
                // SIGCHLD to SIG_IGN gets that from the kernel). Nothing to wait for.
                self.status = Some(Exit::Unknown);
                self.set_reaped(true);
            }
        }
        self.exited_at = Some(Instant::now());
        true
    }

    fn set_reaped(&mut self, reaped: bool) {
        self.reaped = reaped;
        if reaped {
            super::orphans::reaped(self.pid);
        }
    }

    /// Reaps the process if it has exited; never blocks. True once reaped.
    pub(super) fn try_reap(&mut self) -> bool {
        if !self.reaped {
            self.set_reaped(reap(self.pid));
        }
        self.reaped
    }

    /// Leaves a process that would not die even after SIGKILL (stuck in the kernel)
    /// to a detached thread, so it does not stay a zombie for the kit's lifetime.
    pub(super) fn reap_in_background(&self) {
        if self.reaped {
            return;
        }
        let pid = self.pid.as_raw();
        let reaper = std::thread::Builder::new()
            .name(format!("conform-reap-{pid}"))
            .spawn(move || {
                let mut status = 0;
                // SAFETY: waitpid on our own child with a valid out pointer.
                while unsafe { libc::waitpid(pid, &mut status, 0) } == -1
                    && nix::errno::Errno::last() == nix::errno::Errno::EINTR
                {}
                super::orphans::reaped(Pid::from_raw(pid));
            });
        // Without a thread the zombie stays until the kit exits: harmless.
        drop(reaper);
    }

    /// A signal to the main process only (not its group), if it has not exited.
    /// True if the signal was delivered.
    pub(super) fn signal(&mut self, signal: Signal) -> bool {
        if self.has_exited() {
            return false;
        }
        kill(self.pid, signal).is_ok()
    }

    /// A signal to the whole group. ESRCH (nothing left) is the normal outcome
    /// after the tool cleaned up after itself.
    pub(super) fn signal_group(&self, signal: Signal) {
        let _ = killpg(self.pid, signal);
    }
}

/// An fd readable once `pid` has exited; `None` where pidfds are not available.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(super) fn pidfd_open(pid: Pid) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid.as_raw(), 0) };
    let fd = libc::c_int::try_from(fd).ok().filter(|&fd| fd >= 0)?;
    // SAFETY: the kernel just gave us this fd; nothing else owns it.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(super) fn pidfd_open(_: Pid) -> Option<OwnedFd> {
    None
}

enum Observed {
    Running,
    Exited { exit: Exit, reaped: bool },
    Gone,
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn observe(pid: Pid) -> Observed {
    // SAFETY: siginfo_t is a plain C struct (all-zero is valid); waitid writes into
    // it and we read the fields the kernel sets for WEXITED.
    let (rc, child, code, status) = unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let rc = libc::waitid(
            libc::P_PID,
            pid.as_raw() as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        (rc, info.si_pid(), info.si_code, info.si_status())
    };
    if rc == -1 {
        return if nix::errno::Errno::last() == nix::errno::Errno::EINTR {
            Observed::Running
        } else {
            Observed::Gone
        };
    }
    // With WNOHANG and nothing to report, waitid leaves si_pid zero.
    if child == 0 {
        return Observed::Running;
    }
    let exit = match code {
        libc::CLD_EXITED => Exit::Code(status),
        libc::CLD_KILLED | libc::CLD_DUMPED => Exit::Signal(status),
        _ => return Observed::Running,
    };
    Observed::Exited {
        exit,
        reaped: false,
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn observe(pid: Pid) -> Observed {
    match waitpid_nohang(pid) {
        Waited::Running => Observed::Running,
        Waited::Status(status) => match decode(status) {
            Some(exit) => Observed::Exited { exit, reaped: true },
            None => Observed::Running,
        },
        Waited::Gone => Observed::Gone,
    }
}

/// True once the process is reaped (or cannot be: it is not our child any more).
fn reap(pid: Pid) -> bool {
    match waitpid_nohang(pid) {
        Waited::Running => false,
        Waited::Status(status) => decode(status).is_some(),
        Waited::Gone => true,
    }
}

enum Waited {
    Running,
    Status(libc::c_int),
    Gone,
}

fn waitpid_nohang(pid: Pid) -> Waited {
    let mut status = 0;
    // SAFETY: waitpid on our own child with a valid out pointer.
    let rc = unsafe { libc::waitpid(pid.as_raw(), &mut status, libc::WNOHANG) };
    match rc {
        0 => Waited::Running,
        -1 if nix::errno::Errno::last() == nix::errno::Errno::EINTR => Waited::Running,
        -1 => Waited::Gone,
        _ => Waited::Status(status),
    }
}

/// An exit or a death by signal; `None` for stop/continue reports, which we do not
/// ask for but would not mean the process ended.
fn decode(status: libc::c_int) -> Option<Exit> {
    if libc::WIFEXITED(status) {
        Some(Exit::Code(libc::WEXITSTATUS(status)))
    } else if libc::WIFSIGNALED(status) {
        Some(Exit::Signal(libc::WTERMSIG(status)))
    } else {
        None
    }
}
