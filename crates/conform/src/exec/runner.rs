//! The run loop: one thread per run, polling the tool's stdout and stderr with
//! short timeouts and checking the main process between polls.

use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::Signal;
use nix::unistd::Pid;

use super::capture::Pipe;
use super::process::Process;
use super::{spawn, Exit, RunError, RunErrorKind, RunRecord, RunSpec};

/// Longest single poll: bounds how late an exit without output is noticed (and so
/// the precision of `duration`), at a negligible cost in wakeups.
const TICK: Duration = Duration::from_millis(5);
/// Between SIGTERM and SIGKILL at the limit: long enough for a tool to flush a
/// cancellation message, short enough to keep a hung run's cost near its limit.
const TERM_GRACE: Duration = Duration::from_millis(300);
/// After the group is killed: how long to wait for EOF on the pipes and for the
/// reap. Only a process outside the group (setsid) can hold a pipe past this.
const EOF_GRACE: Duration = Duration::from_millis(250);
/// One read's worth: a full pipe buffer on Linux.
const READ_CHUNK: usize = 64 * 1024;
/// Limits are clamped to this, so that adding one to the clock cannot overflow.
const LONGEST_LIMIT: Duration = Duration::from_secs(365 * 24 * 60 * 60);

pub(super) fn run(spec: &RunSpec) -> RunRecord {
    let mut record = RunRecord::new(spec);
    let start = Instant::now();
    let mut child = match spawn::spawn(spec) {
        Ok(child) => child,
        Err(err) => {
            record.error = Some(RunError {
                kind: RunErrorKind::Spawn,
                message: spawn::describe_error(spec, &err),
            });
            record.duration = start.elapsed();
            return record;
        }
    };
    // Held, never written, until the run is over: a tool that reads stdin blocks
    // rather than seeing EOF. `None` for a closed stdin.
    let stdin = child.stdin.take();
    // Kernel pids fit in pid_t; std hands the value out as u32.
    let pid = Pid::from_raw(child.id() as nix::libc::pid_t);

    let mut running = Running {
        spec,
        process: Process::new(pid),
        deadline: start + spec.limit.min(LONGEST_LIMIT),
        stdout: Pipe::new(child.stdout.take().map(OwnedFd::from), spec.capture_limit),
        stderr: Pipe::new(child.stderr.take().map(OwnedFd::from), spec.capture_limit),
        buf: vec![0; READ_CHUNK],
        lines: 0,
        interrupt_due: spec.interrupt.is_some(),
        signal_sent: false,
        killed_at: None,
        pipe_held_open: false,
    };
    running.drive();
    drop(stdin);

    record.timed_out = running.killed_at.is_some();
    record.exit = match running.process.status() {
        Some(exit) if !record.timed_out => exit,
        _ => Exit::Unknown,
    };
    let ended = running
        .killed_at
        .or(running.process.exited_at())
        .unwrap_or_else(Instant::now);
    record.duration = ended.saturating_duration_since(start);
    record.signal_sent = running.signal_sent;
    record.pipe_held_open = running.pipe_held_open;
    record.stdout = running.stdout.captured;
    record.stderr = running.stderr.captured;
    record
}

/// A spawned run in progress.
struct Running<'a> {
    spec: &'a RunSpec,
    process: Process,
    deadline: Instant,
    stdout: Pipe,
    stderr: Pipe,
    buf: Vec<u8>,
    /// Complete stdout lines read so far, counted while an interrupt is pending.
    lines: u64,
    /// An interrupt is configured and has not been tried yet (it is tried once).
    interrupt_due: bool,
    signal_sent: bool,
    /// When the kit hit the limit and began killing the group.
    killed_at: Option<Instant>,
    pipe_held_open: bool,
}

impl Running<'_> {
    fn drive(&mut self) {
        // `after_lines: 0` is due before any output.
        self.maybe_interrupt();
        loop {
            let exited = self.process.has_exited();
            // A run is judged once its process exits; a stream once its stdout has
            // also ended (the reference kit reads streams to EOF).
            if exited && (!self.spec.stream || !self.stdout.is_open()) {
                break;
            }
            if super::cancel_requested() {
                // conform itself was interrupted: stop the tool as at the limit. A
                // stream whose process has exited may still have its stdout held by
                // an escaped grandchild: `finish` kills the group and gives up on
                // the pipes after the EOF grace, rather than reading to the deadline.
                if !exited {
                    self.time_out();
                }
                break;
            }
            let now = Instant::now();
            if now >= self.deadline {
                if exited {
                    // A stream whose process exited but whose stdout something
                    // still held at the deadline.
                    self.pipe_held_open = true;
                } else {
                    self.time_out();
                }
                break;
            }
            self.pump(self.deadline - now);
        }
        self.finish();
    }

    /// At the limit: SIGTERM to the group, a short grace in which output is still
    /// read, then `finish` sends SIGKILL.
    fn time_out(&mut self) {
        let now = Instant::now();
        self.killed_at = Some(now);
        self.process.signal_group(Signal::SIGTERM);
        // A stopped process cannot act on SIGTERM until continued.
        self.process.signal_group(Signal::SIGCONT);
        let grace_end = now + TERM_GRACE;
        while !(self.process.has_exited() && self.pipes_closed()) {
            let now = Instant::now();
            if now >= grace_end {
                break;
            }
            self.pump(grace_end - now);
        }
    }

    /// Kills what is left of the group, reaps the main process and gives the pipes
    /// a short grace to reach EOF; then stops reading whatever still holds them.
    fn finish(&mut self) {
        // On Linux the main process is still unreaped here, so its pid (the group
        // id) cannot have been reused by anyone else.
        self.process.signal_group(Signal::SIGKILL);
        let grace_end = Instant::now() + EOF_GRACE;
        loop {
            let reaped = self.process.try_reap();
            if reaped && self.pipes_closed() {
                break;
            }
            let now = Instant::now();
            if now >= grace_end {
                break;
            }
            self.pump(grace_end - now);
        }
        if !self.pipes_closed() {
            self.pipe_held_open = true;
            self.stdout.abandon();
            self.stderr.abandon();
        }
        self.process.reap_in_background();
    }

    fn pipes_closed(&self) -> bool {
        !self.stdout.is_open() && !self.stderr.is_open()
    }

    /// Waits up to `max_wait` (at most one tick) for output and reads one chunk
    /// from each pipe that has something (data or EOF). One chunk per pipe per
    /// call keeps a flood on one pipe from starving the other or the clock checks.
    fn pump(&mut self, max_wait: Duration) {
        let (stdout_ready, stderr_ready) = {
            let mut fds = Vec::with_capacity(2);
            let stdout_at = self.stdout.fd().map(|fd| {
                fds.push(PollFd::new(fd, PollFlags::POLLIN));
                fds.len() - 1
            });
            let stderr_at = self.stderr.fd().map(|fd| {
                fds.push(PollFd::new(fd, PollFlags::POLLIN));
                fds.len() - 1
            });
            let wait = max_wait.min(TICK);
            match poll(&mut fds, poll_timeout(wait)) {
                Ok(_) => {}
                // A signal handler elsewhere in the kit: the caller loops anyway.
                Err(Errno::EINTR) => return,
                Err(_) => {
                    // Not expected with valid fds; sleep so the caller's loop does
                    // not spin until the deadline.
                    std::thread::sleep(wait);
                    return;
                }
            }
            // Any event counts: POLLHUP and POLLERR are read as EOF or an error,
            // which closes the pipe.
            let ready = |at: Option<usize>| {
                at.and_then(|i| fds.get(i))
                    .and_then(PollFd::revents)
                    .is_some_and(|events| !events.is_empty())
            };
            (ready(stdout_at), ready(stderr_at))
        };
        if stdout_ready {
            let n = self.stdout.read_into(&mut self.buf);
            // Lines matter only for a pending interrupt; counting is skipped
            // otherwise, so a flood costs no per-byte work.
            if self.interrupt_due {
                if let Some(chunk) = self.buf.get(..n) {
                    self.lines += chunk.iter().filter(|&&byte| byte == b'\n').count() as u64;
                }
                // Straight after the read that completed line N: a tool whose
                // bookkeeping lags its output is caught.
                self.maybe_interrupt();
            }
        }
        if stderr_ready {
            self.stderr.read_into(&mut self.buf);
        }
    }

    fn maybe_interrupt(&mut self) {
        let Some(interrupt) = self.spec.interrupt else {
            return;
        };
        if self.interrupt_due && self.lines >= interrupt.after_lines {
            self.interrupt_due = false;
            self.signal_sent = self.process.interrupt();
        }
    }
}

/// `wait` as a poll timeout, rounded up to whole milliseconds so a sub-millisecond
/// remainder does not turn into a busy loop of zero-timeout polls.
fn poll_timeout(wait: Duration) -> PollTimeout {
    let millis = wait.as_micros().div_ceil(1000);
    PollTimeout::from(u16::try_from(millis).unwrap_or(u16::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_timeouts_round_up() {
        assert_eq!(i32::from(poll_timeout(Duration::ZERO)), 0);
        assert_eq!(i32::from(poll_timeout(Duration::from_micros(1))), 1);
        assert_eq!(i32::from(poll_timeout(Duration::from_millis(5))), 5);
        assert_eq!(i32::from(poll_timeout(Duration::from_secs(600))), 65535);
    }
}
