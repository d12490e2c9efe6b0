//! Building and starting the tool's process: no shell, its own process group (a
//! session for a terminal run), the scrubbed environment, and every signal at its
//! default disposition with an empty mask in the child.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use nix::fcntl::{fcntl, FcntlArg, FdFlag};
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
use nix::libc;
use nix::pty::{openpty, OpenptyResult, Winsize};
use nix::sys::termios::{self, SetArg};
use nix::unistd::Pid;

use super::{RunSpec, SCRUBBED_ENV};

/// The terminal type every run gets, so a tool that looks only at `TERM` (and not
/// at whether stdout is a TTY) is caught emitting color into the pipe.
const TERM_VALUE: &str = "xterm-256color";

/// Highest signal number to reset in the child. Linux has 64; numbers a platform
/// lacks just fail with EINVAL.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
const MAX_SIGNAL: libc::c_int = 64;

/// A started tool: its pid (the leader of its own process group), the kit's ends of
/// its pipes, and the kit's side of its terminal for a terminal run.
pub(super) struct Spawned {
    pub(super) pid: Pid,
    /// The write end of an open stdin, held and never written.
    pub(super) stdin: Option<OwnedFd>,
    pub(super) stdout: Option<OwnedFd>,
    pub(super) stderr: Option<OwnedFd>,
    pub(super) terminal: Option<OwnedFd>,
}

/// Starts the tool, with `extra_env` (a sandbox's variables) set last. Every fd the
/// kit keeps is close-on-exec, so its ends (stdin's write end above all) never leak
/// into children that other threads spawn at the same moment.
pub(super) fn spawn(spec: &RunSpec, extra_env: &[(String, OsString)]) -> io::Result<Spawned> {
    let env = environment(spec, extra_env);
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        posix::spawn(spec, &env)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        forked::spawn(spec, &env)
    }
}

/// The tool's whole environment: the kit's, less the scrubbed variables and the
/// run's removals, with `TERM`, the run's variables and the sandbox's set, in that
/// order (a later one wins).
fn environment(spec: &RunSpec, extra_env: &[(String, OsString)]) -> BTreeMap<OsString, OsString> {
    let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
    for name in SCRUBBED_ENV
        .iter()
        .copied()
        .chain(spec.env_remove.iter().map(String::as_str))
    {
        env.remove(OsStr::new(name));
    }
    env.insert("TERM".into(), TERM_VALUE.into());
    for (name, value) in &spec.env_set {
        env.insert(name.into(), value.into());
    }
    for (name, value) in extra_env {
        env.insert(name.into(), value.clone());
    }
    env
}

/// The program to start: a name without a slash is looked up on the kit's own
/// `PATH`, never the run's (a sandbox puts sentinels first there, and the tool
/// under test must be the real one).
fn program_path(program: &Path) -> PathBuf {
    if program.as_os_str().as_bytes().contains(&b'/') {
        return program.to_path_buf();
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
        .unwrap_or_else(|| program.to_path_buf())
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Starting the tool with glibc's `posix_spawn`: the child is made with
/// `CLONE_VM | CLONE_VFORK`, so conform's page tables are never copied (a fork per
/// run cost a tenth of a directory run's CPU), and every signal disposition, the
/// mask, the process group or session, the working directory and the descriptors
/// are set by the spawn itself: no code of conform's runs in the child.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod posix {
    use std::collections::BTreeMap;
    use std::ffi::{CString, OsString};
    use std::io;
    use std::mem::MaybeUninit;
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;

    use nix::fcntl::OFlag;
    use nix::libc;
    use nix::unistd::Pid;

    use super::{open_terminal, program_path, raw_modes, Spawned};
    use crate::exec::{Output, RunSpec, StdinMode};

    /// `posix_spawn`'s attributes and file actions, destroyed when dropped.
    struct Request {
        attr: libc::posix_spawnattr_t,
        actions: libc::posix_spawn_file_actions_t,
    }

    impl Request {
        fn new() -> io::Result<Box<Request>> {
            let mut attr = MaybeUninit::uninit();
            let mut actions = MaybeUninit::uninit();
            // SAFETY: the init functions fill the objects they are given; each is
            // used only after its init succeeded and destroyed once (Drop).
            unsafe {
                check(libc::posix_spawnattr_init(attr.as_mut_ptr()))?;
                if let Err(err) = check(libc::posix_spawn_file_actions_init(actions.as_mut_ptr())) {
                    libc::posix_spawnattr_destroy(attr.as_mut_ptr());
                    return Err(err);
                }
                Ok(Box::new(Request {
                    attr: attr.assume_init(),
                    actions: actions.assume_init(),
                }))
            }
        }

        /// Every catchable signal at its default disposition and an empty mask in
        /// the child: an ignored SIGINT or SIGQUIT (a kit started from a
        /// non-interactive shell) and the Rust runtime's ignored SIGPIPE survive
        /// exec otherwise. `session`: a session of its own (a terminal run), else
        /// a process group of its own.
        fn attributes(&mut self, session: bool) -> io::Result<()> {
            // SAFETY: sigset_t operations on stack-owned sets, and attribute
            // setters on an initialised attribute object.
            unsafe {
                let mut all: libc::sigset_t = std::mem::zeroed();
                libc::sigfillset(&mut all);
                let mut none: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut none);
                check(libc::posix_spawnattr_setsigdefault(&mut self.attr, &all))?;
                check(libc::posix_spawnattr_setsigmask(&mut self.attr, &none))?;
                let mut flags = libc::POSIX_SPAWN_SETSIGDEF | libc::POSIX_SPAWN_SETSIGMASK;
                if session {
                    flags |= libc::c_int::from(libc::POSIX_SPAWN_SETSID);
                } else {
                    flags |= libc::POSIX_SPAWN_SETPGROUP;
                    check(libc::posix_spawnattr_setpgroup(&mut self.attr, 0))?;
                }
                // The flags fit a c_short, as the function takes them.
                check(libc::posix_spawnattr_setflags(
                    &mut self.attr,
                    flags as libc::c_short,
                ))
            }
        }

        fn dup2(&mut self, fd: &OwnedFd, to: libc::c_int) -> io::Result<()> {
            // SAFETY: an initialised actions object; the fd stays open until the
            // spawn returns (the caller owns it).
            check(unsafe {
                libc::posix_spawn_file_actions_adddup2(&mut self.actions, fd.as_raw_fd(), to)
            })
        }

        fn open(&mut self, to: libc::c_int, path: &CString, flags: OFlag) -> io::Result<()> {
            // SAFETY: an initialised actions object; glibc copies the path.
            check(unsafe {
                libc::posix_spawn_file_actions_addopen(
                    &mut self.actions,
                    to,
                    path.as_ptr(),
                    flags.bits(),
                    0,
                )
            })
        }

        fn chdir(&mut self, dir: &CString) -> io::Result<()> {
            // SAFETY: an initialised actions object; glibc copies the path.
            check(unsafe {
                libc::posix_spawn_file_actions_addchdir_np(&mut self.actions, dir.as_ptr())
            })
        }
    }

    impl Drop for Request {
        fn drop(&mut self) {
            // SAFETY: both were initialised in `new` and are destroyed only here.
            unsafe {
                libc::posix_spawn_file_actions_destroy(&mut self.actions);
                libc::posix_spawnattr_destroy(&mut self.attr);
            }
        }
    }

    fn check(rc: libc::c_int) -> io::Result<()> {
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::from_raw_os_error(rc))
        }
    }

    fn c_string(bytes: &[u8]) -> io::Result<CString> {
        CString::new(bytes).map_err(|_| {
            io::Error::new(io::ErrorKind::InvalidInput, "an argument holds a NUL byte")
        })
    }

    /// A pipe, both ends close-on-exec: the child gets its end through dup2,
    /// which clears the flag on the copy.
    fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
        nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(io::Error::from)
    }

    pub(super) fn spawn(spec: &RunSpec, env: &BTreeMap<OsString, OsString>) -> io::Result<Spawned> {
        let program = c_string(program_path(&spec.program).as_os_str().as_bytes())?;
        let mut argv = vec![c_string(spec.program.as_os_str().as_bytes())?];
        for arg in &spec.args {
            argv.push(c_string(arg.as_bytes())?);
        }
        let mut envp = Vec::with_capacity(env.len());
        for (name, value) in env {
            let mut entry = name.as_bytes().to_vec();
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            envp.push(c_string(&entry)?);
        }
        let cwd = c_string(spec.cwd.as_os_str().as_bytes())?;
        let dev_null = c_string(b"/dev/null")?;

        let mut request = Request::new()?;
        request.chdir(&cwd)?;
        // The child's ends, closed here once the spawn has returned.
        let mut child_ends: Vec<OwnedFd> = Vec::new();
        let mut spawned = Spawned {
            pid: Pid::from_raw(0),
            stdin: None,
            stdout: None,
            stderr: None,
            terminal: None,
        };
        match spec.output {
            Output::Pipes => {
                request.attributes(false)?;
                match spec.stdin {
                    StdinMode::Closed => request.open(0, &dev_null, OFlag::O_RDONLY)?,
                    StdinMode::Open | StdinMode::Payload(_) => {
                        let (read, write) = pipe()?;
                        request.dup2(&read, 0)?;
                        child_ends.push(read);
                        spawned.stdin = Some(write);
                    }
                }
                let (out_read, out_write) = pipe()?;
                let (err_read, err_write) = pipe()?;
                request.dup2(&out_write, 1)?;
                request.dup2(&err_write, 2)?;
                child_ends.extend([out_write, err_write]);
                spawned.stdout = Some(out_read);
                spawned.stderr = Some(err_read);
            }
            Output::Terminal { cols, rows } => {
                let pty = open_terminal(cols, rows)?;
                let slave = c_string(slave_name(&pty.master)?.as_bytes())?;
                request.attributes(true)?;
                // The first terminal a session leader opens without O_NOCTTY becomes
                // its controlling terminal: `/dev/tty` is then this one, never
                // conform's. openpty opened the kit's copy with O_NOCTTY.
                request.open(0, &slave, OFlag::O_RDWR)?;
                request.open(1, &slave, OFlag::O_RDWR)?;
                request.open(2, &slave, OFlag::O_RDWR)?;
                child_ends.push(pty.slave);
                spawned.terminal = Some(pty.master);
            }
            Output::StdoutTerminal { cols, rows } => {
                let pty = open_terminal(cols, rows)?;
                raw_modes(&pty.slave)?;
                let slave = c_string(slave_name(&pty.master)?.as_bytes())?;
                request.attributes(true)?;
                request.open(1, &slave, OFlag::O_RDWR)?;
                request.open(0, &dev_null, OFlag::O_RDONLY)?;
                let (err_read, err_write) = pipe()?;
                request.dup2(&err_write, 2)?;
                child_ends.extend([pty.slave, err_write]);
                spawned.stderr = Some(err_read);
                spawned.terminal = Some(pty.master);
            }
        }
        let mut pid: libc::pid_t = 0;
        let argv_p: Vec<*mut libc::c_char> = argv
            .iter()
            .map(|a| a.as_ptr().cast_mut())
            .chain(std::iter::once(std::ptr::null_mut()))
            .collect();
        let envp_p: Vec<*mut libc::c_char> = envp
            .iter()
            .map(|e| e.as_ptr().cast_mut())
            .chain(std::iter::once(std::ptr::null_mut()))
            .collect();
        // SAFETY: every pointer is valid for the call: the strings and arrays are
        // owned above and NUL-terminated, the request is initialised, and glibc
        // reports the child's exec failure as the return value.
        check(unsafe {
            libc::posix_spawn(
                &mut pid,
                program.as_ptr(),
                &request.actions,
                &request.attr,
                argv_p.as_ptr(),
                envp_p.as_ptr(),
            )
        })?;
        // The kit's copies of the child's ends go now, so the kit reads EOF (or EIO
        // on a terminal's master) once the tool's processes have all closed theirs.
        drop(child_ends);
        spawned.pid = Pid::from_raw(pid);
        Ok(spawned)
    }

    /// The path of the terminal whose master is `master`.
    fn slave_name(master: &OwnedFd) -> io::Result<OsString> {
        let mut buf = [0 as libc::c_char; 128];
        // SAFETY: ptsname_r writes at most `buf.len()` bytes, NUL-terminated.
        check(unsafe { libc::ptsname_r(master.as_raw_fd(), buf.as_mut_ptr(), buf.len()) })?;
        // SAFETY: NUL-terminated by ptsname_r on success.
        let name = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
        Ok(std::ffi::OsStr::from_bytes(name.to_bytes()).to_os_string())
    }
}

/// Elsewhere: std's spawn, with a hook that resets signals and makes the terminal
/// run's session in the child.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod forked {
    use std::collections::BTreeMap;
    use std::ffi::OsString;
    use std::io;
    use std::os::fd::OwnedFd;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    use nix::unistd::Pid;

    use super::{
        become_session_of, open_terminal, program_path, raw_modes, reset_signals, Spawned,
    };
    use crate::exec::{Output, RunSpec, StdinMode};

    pub(super) fn spawn(spec: &RunSpec, env: &BTreeMap<OsString, OsString>) -> io::Result<Spawned> {
        let mut cmd = Command::new(program_path(&spec.program));
        cmd.args(&spec.args)
            .current_dir(&spec.cwd)
            .env_clear()
            .envs(env);
        let mut terminal = None;
        match spec.output {
            Output::Pipes => {
                cmd.stdin(match spec.stdin {
                    StdinMode::Closed => Stdio::null(),
                    StdinMode::Open | StdinMode::Payload(_) => Stdio::piped(),
                });
                cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
                cmd.process_group(0);
                // SAFETY: `reset_signals` makes only async-signal-safe calls on
                // stack data.
                unsafe {
                    cmd.pre_exec(reset_signals);
                }
            }
            Output::Terminal { cols, rows } => {
                let pty = open_terminal(cols, rows)?;
                cmd.stdin(Stdio::from(pty.slave.try_clone()?));
                cmd.stdout(Stdio::from(pty.slave.try_clone()?));
                cmd.stderr(Stdio::from(pty.slave));
                // SAFETY: as above, plus setsid and ioctl.
                unsafe {
                    cmd.pre_exec(|| {
                        reset_signals()?;
                        become_session_of(0)
                    });
                }
                terminal = Some(pty.master);
            }
            Output::StdoutTerminal { cols, rows } => {
                let pty = open_terminal(cols, rows)?;
                raw_modes(&pty.slave)?;
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
                terminal = Some(pty.master);
            }
        }
        let mut child = cmd.spawn()?;
        // Kernel pids fit in pid_t; std hands the value out as u32.
        let pid = Pid::from_raw(child.id() as nix::libc::pid_t);
        Ok(Spawned {
            pid,
            stdin: child.stdin.take().map(OwnedFd::from),
            stdout: child.stdout.take().map(OwnedFd::from),
            stderr: child.stderr.take().map(OwnedFd::from),
            terminal,
        })
    }
}

/// Raw modes on a terminal: the line discipline passes bytes through as written
/// (no CR added before LF), so what is read is exactly what the tool wrote.
fn raw_modes(slave: &OwnedFd) -> io::Result<()> {
    let mut modes = termios::tcgetattr(slave).map_err(io::Error::from)?;
    termios::cfmakeraw(&mut modes);
    termios::tcsetattr(slave, SetArg::TCSANOW, &modes).map_err(io::Error::from)
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

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
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

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
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

/// glibc keeps signals 32 and 33 for itself and its `sigaction` refuses them, yet an
/// ignored disposition there is inherited through exec like any other (cargo starts
/// test binaries with 32 ignored). The raw system call resets it.
///
/// # Safety
///
/// Only between fork and exec: it changes a disposition behind libc's back.
#[cfg(all(target_os = "linux", not(target_env = "gnu")))]
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
