//! SIGINT and SIGTERM during `conform run`: stop the tools, do not orphan them.
//!
//! Tools run in process groups of their own, so a Ctrl-C at the terminal reaches
//! conform but not them; if conform died at once, a hung tool would run on forever.
//! The handler only sets a flag that the run loops poll; `SA_RESETHAND` makes a
//! second signal kill conform at once, as users expect from a second Ctrl-C.

use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};

extern "C" fn on_signal(_: nix::libc::c_int) {
    conform::exec::request_cancel();
}

/// Install the handlers. Failure to install leaves the default behaviour, which is
/// still correct, only less tidy.
pub fn cancel_on_interrupt() {
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESETHAND | SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        let _ = unsafe { sigaction(signal, &action) };
    }
}
