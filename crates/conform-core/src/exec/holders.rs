//! Who holds a pipe: when the kit gives up on a held stdout or stderr, the evidence
//! names the processes that still have it open, found by the pipe's inode in
//! `/proc/*/fd`. Best effort: processes of other users and other systems than Linux
//! yield nothing, and a holder may exit while it is being looked up.

use std::os::fd::BorrowedFd;

/// A process that has one of a run's output pipes open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PipeHolder {
    pub pid: i32,
    /// `/proc/PID/cmdline` with its arguments joined by spaces; empty when unreadable.
    pub cmdline: String,
}

/// The inode of the pipe behind `fd` (the kit's read end shares it with every
/// write end).
pub(super) fn pipe_inode(fd: BorrowedFd<'_>) -> Option<u64> {
    nix::sys::stat::fstat(fd).ok().map(|stat| stat.st_ino)
}

/// Every process but this one with an fd on the pipe `inode`, by pid.
pub(super) fn holders(inode: u64) -> Vec<PipeHolder> {
    let target = format!("pipe:[{inode}]");
    let own = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found: Vec<PipeHolder> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != own)
        .filter(|&pid| holds(pid, &target))
        .filter_map(|pid| {
            Some(PipeHolder {
                pid: i32::try_from(pid).ok()?,
                cmdline: cmdline(pid),
            })
        })
        .collect();
    found.sort_by_key(|holder| holder.pid);
    found
}

fn holds(pid: u32, target: &str) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok)
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|link| link.as_os_str() == target))
}

/// `/proc/PID/cmdline` with its arguments joined by spaces; empty when unreadable.
pub(super) fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| {
            bytes
                .split(|&b| b == 0)
                .filter(|arg| !arg.is_empty())
                .map(String::from_utf8_lossy)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;
    use std::process::{Command, Stdio};

    #[test]
    fn a_child_holding_a_pipe_is_found_by_pid_and_command_line() {
        use std::io::{BufRead, BufReader, Write};
        // `cat` echoing a line back is past its exec: until then, spawn may have
        // returned while /proc/PID/cmdline is still empty.
        let mut child = Command::new("cat")
            .arg("-u")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("cat runs");
        let mut stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        stdin.write_all(b"up\n").expect("cat reads");
        let mut lines = BufReader::new(stdout);
        let mut line = String::new();
        lines.read_line(&mut line).expect("cat echoes");
        assert_eq!(line, "up\n");
        let inode = pipe_inode(lines.get_ref().as_fd()).expect("fstat");
        let found = holders(inode);
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(
            found,
            vec![PipeHolder {
                pid: i32::try_from(child.id()).expect("pid"),
                cmdline: "cat -u".into()
            }]
        );
    }
}
