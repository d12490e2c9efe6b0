//! Building and starting the tool's process: no shell, its own process group, the
//! scrubbed environment, and signal dispositions and mask reset in the child.

use std::ffi::OsString;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

use nix::fcntl::{fcntl, FcntlArg, FdFlag};
use nix::libc;
use nix::pty::{openpty, OpenptyResult, Winsize};
use nix::sys::termios::{self, SetArg};

use super::{Output, RunSpec, StdinMode, SCRUBBED_ENV};

/// The terminal type every run gets, so a tool that looks only at `TERM` (and not
/// at whether stdout is a TTY) is caught emitting color into the pipe.
const TERM_VALUE: &str = "xterm-256color";

/// Highest signal number to reset in the child. Linux has 64; numbers a platform
/// lacks just fail with EINVAL.
const MAX_SIGNAL: libc::c_int = 64;

/// A started tool, and the kit's side of its terminal for a terminal run.
pub(super) struct Spawned {
    pub(super) child: Child,
    pub(super) terminal: Option<OwnedFd>,
}

/// Starts the tool, with `extra_env` (a sandbox's variables) set last. Every fd std
/// creates for the pipes is close-on-exec, so the kit's ends (stdin's write end above
/// all) never leak into children that other threads spawn at the same moment.
pub(super) fn spawn(spec: &RunSpec, extra_env: &[(String, OsString)]) -> io::Result<Spawned> {
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args).current_dir(&spec.cwd);
    for name in SCRUBBED_ENV
        .iter()
        .copied()
        .chain(spec.env_remove.iter().map(String::as_str))
    {
        cmd.env_remove(name);
    }
    cmd.env("TERM", TERM_VALUE);
    for (name, value) in &spec.env_set {
        cmd.env(name, value);
    }
    for (name, value) in extra_env {
        cmd.env(name, value);
    }
    let terminal = match spec.output {
        Output::Pipes => {
            cmd.stdin(match spec.stdin {
                StdinMode::Closed => Stdio::null(),
                StdinMode::Open | StdinMode::Payload(_) => Stdio::piped(),
            });
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
            // A group of its own, so that the limit and the cleanup after exit reach
            // every process the tool started (that did not escape with setsid).
            cmd.process_group(0);
            // Without a pre_exec hook std uses posix_spawn (no fork of conform's
            // address space), which resets SIGPIPE itself but keeps the mask and
            // other ignored signals: the hook is needed only when there are some.
            if !signals_already_default() {
                // SAFETY: `reset_signals` runs between fork and exec, where only
                // async-signal-safe calls are allowed; it makes only sigemptyset,
                // sigaction and sigprocmask calls on stack data, allocates nothing
                // and takes no locks.
                unsafe {
                    cmd.pre_exec(reset_signals);
                }
            }
            None
        }
        Output::Terminal { cols, rows } => {
            let pty = open_terminal(cols, rows)?;
            cmd.stdin(Stdio::from(pty.slave.try_clone()?));
            cmd.stdout(Stdio::from(pty.slave.try_clone()?));
            cmd.stderr(Stdio::from(pty.slave));
            // SAFETY: as above, plus setsid and ioctl, both async-signal-safe system
            // calls on no shared state.
            unsafe {
                cmd.pre_exec(|| {
                    reset_signals()?;
                    become_session_of(0)
                });
            }
            Some(pty.master)
        }
        Output::StdoutTerminal { cols, rows } => {
            let pty = open_terminal(cols, rows)?;
            // Raw: the line discipline passes bytes through as written (no CR added
            // before LF), so what is read is exactly what the tool wrote.
            let mut modes = termios::tcgetattr(&pty.slave).map_err(io::Error::from)?;
            termios::cfmakeraw(&mut modes);
            termios::tcsetattr(&pty.slave, SetArg::TCSANOW, &modes).map_err(io::Error::from)?;
            cmd.stdin(Stdio::null());
            cmd.stdout(Stdio::from(pty.slave));
            cmd.stderr(Stdio::piped());
            // SAFETY: as for the terminal run.
            unsafe {
                cmd.pre_exec(|| {
                    reset_signals()?;
                    become_session_of(1)
                });
            }
            Some(pty.master)
        }
    };
    // The parent's copies of the slave go with `cmd`, so the kit reads EIO (EOF)
    // on the master once the tool's processes have all closed it.
    let child = cmd.spawn()?;
    Ok(Spawned { child, terminal })
}

/// A pseudo-terminal of this size, both ends close-on-exec.
fn open_terminal(cols: u16, rows: u16) -> io::Result<OpenptyResult> {
    let size = Winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = openpty(Some(&size), None).map_err(io::Error::from)?;
    // openpty cannot ask for close-on-exec; set it at once so neither end leaks
    // into other children. The child gets the slave through dup2, which clears the
    // flag on its copies.
    for fd in [&pty.master, &pty.slave] {
        fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).map_err(io::Error::from)?;
    }
    Ok(pty)
}

/// In the child of a terminal run: a session of its own (so also a process group of
/// its own, which the limit kills), with the pseudo-terminal on `fd` as its
/// controlling terminal. `/dev/tty` is then that terminal, never conform's.
fn become_session_of(fd: libc::c_int) -> io::Result<()> {
    // SAFETY: plain system calls, async-signal-safe (see the caller).
    unsafe {
        if libc::setsid() < 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::ioctl(fd, libc::TIOCSCTTY as _, 0) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// In the child: every catchable signal back to its default disposition and an
/// empty signal mask. Handlers are reset by exec anyway, but an ignored disposition
/// and the mask survive it: a kit started from a non-interactive shell with SIGINT
/// ignored, or the Rust runtime's ignored SIGPIPE, must not reach the tool.
pub(super) fn reset_signals() -> io::Result<()> {
    // SAFETY: plain libc calls on zero-initialised, stack-owned C structs; all three
    // functions are async-signal-safe (see the caller).
    unsafe {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut default.sa_mask);
        for signum in 1..=MAX_SIGNAL {
            if signum == libc::SIGKILL || signum == libc::SIGSTOP {
                continue;
            }
            if libc::sigaction(signum, &default, std::ptr::null_mut()) != 0 {
                // Not a signal here (nothing to reset), or one libc reserves for
                // itself and refuses to touch.
                #[cfg(target_os = "linux")]
                reset_reserved_signal(signum);
            }
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        if libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Whether a child would start with default dispositions and an empty mask
/// without [`reset_signals`]: this thread blocks nothing and no signal but SIGPIPE
/// (which std's spawn resets) is ignored. Asked at every spawn, since a library
/// caller may change either at any time; 64 queries cost far less than a fork.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
pub(super) fn signals_already_default() -> bool {
    // SAFETY: queries only: null new-action and new-mask pointers, stack-owned
    // outputs.
    unsafe {
        let mut mask: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut mask);
        if libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut mask) != 0 {
            return false;
        }
        for signum in 1..=MAX_SIGNAL {
            if libc::sigismember(&mask, signum) == 1 {
                return false;
            }
            if signum == libc::SIGPIPE || signum == libc::SIGKILL || signum == libc::SIGSTOP {
                continue;
            }
            // The raw call also answers for the signals glibc keeps to itself.
            let mut current = [0u64; 8];
            let queried = libc::syscall(
                libc::SYS_rt_sigaction,
                signum,
                std::ptr::null::<u64>(),
                current.as_mut_ptr(),
                std::mem::size_of::<u64>(),
            );
            // The handler is the kernel struct's first field on x86_64 and aarch64;
            // SIG_IGN is 1.
            if queried == 0 && current[0] == libc::SIG_IGN as u64 {
                return false;
            }
        }
    }
    true
}

/// Elsewhere the reset always runs (the raw query above reads the kernel's struct
/// as those two architectures lay it out).
#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
pub(super) fn signals_already_default() -> bool {
    false
}

/// glibc keeps signals 32 and 33 for itself and its `sigaction` refuses them, yet an
/// ignored disposition there is inherited through exec like any other (cargo starts
/// test binaries with 32 ignored). The raw system call resets it.
///
/// # Safety
///
/// Only between fork and exec: it changes a disposition behind libc's back.
#[cfg(target_os = "linux")]
unsafe fn reset_reserved_signal(signum: libc::c_int) {
    // The kernel's `struct sigaction` with every field zero is SIG_DFL, no flags, no
    // restorer, an empty mask, whatever the architecture's field order; the buffer
    // is larger than any architecture's struct.
    let default = [0u64; 8];
    // The kernel's sigset is 64 bits on the common architectures; where it is not
    // (MIPS), the call fails with EINVAL and the disposition stays as it was.
    let sigset_size = std::mem::size_of::<u64>();
    // SAFETY: the kernel reads at most its struct's size from `default` and writes
    // nothing (no old-action pointer).
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigaction,
            signum,
            default.as_ptr(),
            std::ptr::null_mut::<u64>(),
            sigset_size,
        );
    }
}

/// The run's environment changes relative to the kit's own environment, as
/// `-NAME` for scrubbed variables that were present and `NAME=value` for every
/// variable the run sets (always `TERM`, so the evidence reads the same everywhere).
pub(super) fn env_changes(spec: &RunSpec) -> Vec<String> {
    let set_by_spec = |name: &str| spec.env_set.iter().any(|(set, _)| set == name);
    let mut changes: Vec<String> = SCRUBBED_ENV
        .iter()
        .copied()
        .chain(spec.env_remove.iter().map(String::as_str))
        .filter(|name| std::env::var_os(name).is_some() && !set_by_spec(name))
        .map(|name| format!("-{name}"))
        .collect();
    if !set_by_spec("TERM") {
        changes.push(format!("TERM={TERM_VALUE}"));
    }
    changes.extend(
        spec.env_set
            .iter()
            .map(|(name, value)| format!("{name}={value}")),
    );
    changes
}

/// A spawn error as evidence: it names the program, and the working directory when
/// that is what is missing (the OS reports both as ENOENT).
pub(super) fn describe_error(spec: &RunSpec, err: &io::Error) -> String {
    if spec.cwd.is_dir() {
        format!("cannot run {}: {err}", spec.program.display())
    } else {
        format!(
            "cannot run {} in {}: {err} (the working directory is not a directory)",
            spec.program.display(),
            spec.cwd.display()
        )
    }
}
