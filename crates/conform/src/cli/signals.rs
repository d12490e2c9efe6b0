//! SIGINT and SIGTERM during `conform run`: stop the tools, do not orphan them.
//!
//! Tools run in process groups of their own, so a Ctrl-C at the terminal reaches
//! conform but not them; if conform died at once, a hung tool would run on forever.
//! The handler only cancels the command's session (an atomic store and a byte on
//! its wake pipe); `SA_RESETHAND` makes a second signal kill conform at once, as
//! users expect from a second Ctrl-C. Signals are process-wide, so this one static
//! lives here in the binary, not in the engine.

use std::sync::OnceLock;

use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};

use conform_core::Cancel;

/// What a signal cancels: the session of the one command conform runs.
static CANCEL: OnceLock<Cancel> = OnceLock::new();

/// Cancels the command: conform then exits 130 after SIGINT, 143 after SIGTERM
/// (REQ-F-013: 128 + the signal), with a CANCELLED envelope either way.
extern "C" fn on_signal(signal: nix::libc::c_int) {
    if let Some(cancel) = CANCEL.get() {
        if signal == Signal::SIGTERM as nix::libc::c_int {
            cancel.terminate();
        } else {
            cancel.cancel();
        }
    }
}

/// Install the handlers, which cancel `cancel`. Failure to install leaves the
/// default behaviour, which is still correct, only less tidy.
pub fn cancel_on_interrupt(cancel: &Cancel) {
    // conform runs one command per process: the first session is the one.
    let _ = CANCEL.set(cancel.clone());
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESETHAND | SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        // SAFETY: the handler only loads and stores atomics and writes a byte to a pipe,
        // which are async-signal-safe.
        let _ = unsafe { sigaction(signal, &action) };
    }
}
