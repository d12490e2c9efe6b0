//! SIGINT and SIGTERM handling (REQ-F-069, REQ-F-013).
//!
//! The handler only records the signal; long-running loops poll [`received`] between
//! items and end with a cancellation line, so output is never torn mid-line.

use std::sync::atomic::{AtomicI32, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use nix::libc::c_int;
use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};

/// The first signal received, or 0.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signo: c_int) {
    // A second signal while the first is being handled ends the process at once,
    // with no second cancellation line (REQ-F-069: re-entrant safe).
    if RECEIVED.swap(signo, Ordering::SeqCst) != 0 {
        // SAFETY: `_exit` is async-signal-safe and takes no pointers.
        unsafe { nix::libc::_exit(128 + signo) }
    }
}

/// Install the handlers. Called first thing in `main`, before any command runs.
pub fn install() {
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        // SAFETY: the handler only touches an atomic and calls `_exit`, both
        // async-signal-safe, and no other code in this process installs handlers.
        // Failure leaves the default disposition, which still ends the process.
        let _ = unsafe { sigaction(signal, &action) };
    }
}

/// The signal that asked this process to stop, if any.
pub fn received() -> Option<Signal> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        signo => Signal::try_from(signo).ok(),
    }
}

/// Sleep for `total`, waking early when a signal arrives, so a cancelled stream ends
/// within a few milliseconds instead of after its delay.
pub fn pause(total: Duration) -> Option<Signal> {
    const SLICE: Duration = Duration::from_millis(5);
    let deadline = Instant::now() + total;
    loop {
        if let Some(signal) = received() {
            return Some(signal);
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        thread::sleep(SLICE.min(deadline - now));
    }
}
