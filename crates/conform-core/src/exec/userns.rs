//! The user namespace that lets an unprivileged conform make network namespaces.
//!
//! Without CAP_SYS_ADMIN a network namespace needs a user namespace that owns it,
//! and the kernel gives one only to a process without threads. So conform enters
//! one at start-up, before any thread ([`enter`]), with its own uid and gid mapped
//! to themselves: its tools see the user they run as, never root, and lose every
//! capability at exec. Nothing else changes for a run: the same files, the same
//! network, until a run's thread steps into a network namespace (`netns.rs`).
//!
//! A thread of a user namespace cannot step back into the host's network
//! namespace (that one belongs to the host's user namespace), so in this mode a
//! network namespace is made and entered on a thread of its own that ends there.
//!
//! Where the kernel refuses, [`Refusal`] names the cause it can tell (AppArmor's
//! restriction, a sysctl that turns user namespaces off, not Linux) and the
//! one-line fix for it.

use std::sync::OnceLock;

/// Set to act as if the kernel refused unprivileged user namespaces, for the cause
/// named: `apparmor`, `max_user_namespaces`, `unprivileged_userns_clone`, or
/// anything else for a refusal the machine does not explain. Privileged or not.
pub(crate) const NO_USERNS_VAR: &str = "CONFORM_TEST_NO_USERNS";

/// Where this process stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UserNamespace {
    /// Privileged already (CAP_SYS_ADMIN): network namespaces are made as they are.
    NotNeeded,
    /// Entered at start-up: network namespaces are made on threads of their own.
    Entered,
    /// No user namespace, and so no network namespace without privilege.
    Refused(Refusal),
}

/// Why no namespace could be made, and how to allow one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) cause: String,
    pub(crate) remedy: String,
}

impl Refusal {
    fn apparmor() -> Refusal {
        Refusal {
            cause: "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)".into(),
            remedy: "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile that allows userns for conform's binary (docs/ci.md)".into(),
        }
    }

    fn max_user_namespaces() -> Refusal {
        Refusal {
            cause: "user namespaces are turned off (user.max_user_namespaces=0)".into(),
            remedy: "sudo sysctl -w user.max_user_namespaces=10000".into(),
        }
    }

    fn unprivileged_userns_clone() -> Refusal {
        Refusal {
            cause:
                "unprivileged user namespaces are turned off (kernel.unprivileged_userns_clone=0)"
                    .into(),
            remedy: "sudo sysctl -w kernel.unprivileged_userns_clone=1".into(),
        }
    }

    /// A refusal no sysctl explains: a container's seccomp filter, most often.
    fn unexplained(error: &std::io::Error) -> Refusal {
        Refusal {
            cause: format!("the kernel refused a user namespace: {error}"),
            remedy: "run conform as root, or, in a container, allow user namespaces (docker run --security-opt seccomp=unconfined)".into(),
        }
    }

    /// Where namespaces do not exist.
    #[cfg(not(target_os = "linux"))]
    fn not_linux() -> Refusal {
        Refusal {
            cause: format!(
                "network namespaces are Linux's, and this is {}",
                std::env::consts::OS
            ),
            remedy:
                "run conform on Linux (a VM or a container) to hold every tool at the black hole"
                    .into(),
        }
    }

    /// The refusal the test switch names.
    fn simulated(which: &str) -> Refusal {
        let mut refusal = match which {
            "apparmor" => Refusal::apparmor(),
            "max_user_namespaces" => Refusal::max_user_namespaces(),
            "unprivileged_userns_clone" => Refusal::unprivileged_userns_clone(),
            _ => Refusal::unexplained(&std::io::Error::from_raw_os_error(1)),
        };
        refusal
            .cause
            .push_str(&format!(" [{NO_USERNS_VAR} is set]"));
        refusal
    }
}

static STATE: OnceLock<UserNamespace> = OnceLock::new();

/// Enters a user namespace when this process needs one and the kernel allows it.
/// Call it first thing, before any thread starts: later, it is refused.
pub(crate) fn enter() {
    STATE.get_or_init(|| match simulated() {
        Some(refusal) => UserNamespace::Refused(refusal),
        None => sys::enter(),
    });
}

/// Where this process stands; for a process that never called [`enter`] (a
/// library's test), privileged or refused.
pub(crate) fn state() -> &'static UserNamespace {
    STATE.get_or_init(|| match simulated() {
        Some(refusal) => UserNamespace::Refused(refusal),
        None if sys::privileged() => UserNamespace::NotNeeded,
        None => UserNamespace::Refused(Refusal {
            cause: "conform did not enter a user namespace before its threads started".into(),
            remedy: "run conform as root".into(),
        }),
    })
}

fn simulated() -> Option<Refusal> {
    std::env::var(NO_USERNS_VAR)
        .ok()
        .filter(|which| !which.is_empty())
        .map(|which| Refusal::simulated(&which))
}

/// Reads why the kernel refused: the sysctls that turn unprivileged user
/// namespaces off, in the order they are checked by the kernel, else the error.
#[cfg(target_os = "linux")]
pub(crate) fn diagnose(error: &std::io::Error) -> Refusal {
    let sysctl = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/{name}"))
            .ok()
            .and_then(|value| value.trim().parse::<u64>().ok())
    };
    if sysctl("user/max_user_namespaces") == Some(0) {
        Refusal::max_user_namespaces()
    } else if sysctl("kernel/unprivileged_userns_clone") == Some(0) {
        Refusal::unprivileged_userns_clone()
    } else if sysctl("kernel/apparmor_restrict_unprivileged_userns") == Some(1) {
        Refusal::apparmor()
    } else {
        Refusal::unexplained(error)
    }
}

/// Where namespaces do not exist, whatever the error.
#[cfg(not(target_os = "linux"))]
pub(crate) fn diagnose(_: &std::io::Error) -> Refusal {
    Refusal::not_linux()
}

#[cfg(not(target_os = "linux"))]
mod sys {
    use super::{Refusal, UserNamespace};

    pub(super) fn enter() -> UserNamespace {
        UserNamespace::Refused(Refusal::not_linux())
    }

    pub(super) fn privileged() -> bool {
        false
    }
}

#[cfg(target_os = "linux")]
mod sys {
    use std::fs::File;
    use std::io::{self, Read, Write};
    use std::os::fd::OwnedFd;

    use nix::sched::{unshare, CloneFlags};
    use nix::sys::wait::{waitpid, WaitStatus};
    use nix::unistd::{fork, getegid, geteuid, pipe, ForkResult};

    use super::{diagnose, UserNamespace};

    /// CAP_SYS_ADMIN's bit in the capability sets.
    const CAP_SYS_ADMIN: u32 = 21;

    pub(super) fn enter() -> UserNamespace {
        if privileged() {
            return UserNamespace::NotNeeded;
        }
        // Tried first in a child, the whole way to a network namespace set up: where
        // the kernel gives a user namespace without capabilities (AppArmor's
        // restriction), conform itself stays where it is.
        if let Err(error) = trial() {
            return UserNamespace::Refused(diagnose(&error));
        }
        match become_own_user() {
            Ok(()) => UserNamespace::Entered,
            Err(error) => UserNamespace::Refused(diagnose(&error)),
        }
    }

    /// Whether the effective capabilities hold CAP_SYS_ADMIN.
    pub(super) fn privileged() -> bool {
        let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
            return geteuid().is_root();
        };
        status
            .lines()
            .find_map(|line| line.strip_prefix("CapEff:"))
            .and_then(|caps| u64::from_str_radix(caps.trim(), 16).ok())
            .is_some_and(|caps| caps & (1 << CAP_SYS_ADMIN) != 0)
    }

    /// A user namespace with this process's uid and gid mapped to themselves.
    fn become_own_user() -> io::Result<()> {
        let (uid, gid) = (geteuid(), getegid());
        unshare(CloneFlags::CLONE_NEWUSER).map_err(io::Error::from)?;
        // Before a gid map may be written by an unprivileged process; absent on
        // kernels older than 3.19, which need nothing.
        match std::fs::write("/proc/self/setgroups", "deny") {
            Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error),
            _ => {}
        }
        std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))?;
        std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))
    }

    /// In a child: a user namespace, then a network namespace set up as a run's
    /// is. The child's errno comes back over a pipe (0: it all worked).
    fn trial() -> io::Result<()> {
        let (read, write) = pipe().map_err(io::Error::from)?;
        // SAFETY: called before conform starts any thread (`enter`'s contract), so
        // the child is a full copy and may run any code.
        match unsafe { fork() }.map_err(io::Error::from)? {
            ForkResult::Child => {
                drop(read);
                let code = become_own_user()
                    .and_then(|()| unshare(CloneFlags::CLONE_NEWNET).map_err(io::Error::from))
                    .and_then(|()| super::super::netns::set_up())
                    .map_or_else(|error| error.raw_os_error().unwrap_or(libc_eperm()), |()| 0);
                let _ = File::from(write).write_all(&code.to_ne_bytes());
                // SAFETY: ends the child without running the parent's exit handlers.
                unsafe { nix::libc::_exit(0) }
            }
            ForkResult::Parent { child } => {
                drop(write);
                let code = read_code(read);
                loop {
                    match waitpid(child, None) {
                        Err(nix::errno::Errno::EINTR) => continue,
                        Ok(WaitStatus::StillAlive) => continue,
                        _ => break,
                    }
                }
                match code {
                    Some(0) => Ok(()),
                    Some(errno) => Err(io::Error::from_raw_os_error(errno)),
                    None => Err(io::Error::other("the trial child said nothing")),
                }
            }
        }
    }

    fn libc_eperm() -> i32 {
        nix::libc::EPERM
    }

    fn read_code(read: OwnedFd) -> Option<i32> {
        let mut bytes = [0u8; 4];
        File::from(read).read_exact(&mut bytes).ok()?;
        Some(i32::from_ne_bytes(bytes))
    }
}
