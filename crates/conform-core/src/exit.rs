//! Exit codes in one place: conform's own, and what a tool ended by a signal exits
//! with (128 + the signal number), which the signal checks expect.

use nix::sys::signal::Signal;

/// The process exit codes conform uses, from the spec's exit-code table (the same
/// codes the spec's reference kit uses, so CI scripts work unchanged).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// Every check that ran passed; the profile is valid.
    Success = 0,
    /// conform itself failed (could not write its report, ...).
    GeneralError = 1,
    /// ARG_ERROR: the profile is missing, unparseable or invalid, or bad arguments; nothing ran.
    InvalidInput = 2,
    /// PRECONDITION: at least one check failed (CONFORMANCE_CHECKS_FAILED).
    ChecksFailed = 4,
    /// conform was interrupted by SIGINT (128 + SIGINT).
    Cancelled = 130,
    /// conform was stopped by SIGTERM (128 + SIGTERM, REQ-F-013).
    Terminated = 143,
}

impl ExitStatus {
    /// Every exit code conform can return; its manifest declares exactly these.
    pub const ALL: [ExitStatus; 6] = [
        ExitStatus::Success,
        ExitStatus::GeneralError,
        ExitStatus::InvalidInput,
        ExitStatus::ChecksFailed,
        ExitStatus::Cancelled,
        ExitStatus::Terminated,
    ];

    /// The process exit code.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The spec's name for the code (its exit-code table; 130 is REQ-F-069's).
    pub fn name(self) -> &'static str {
        match self {
            ExitStatus::Success => "SUCCESS",
            ExitStatus::GeneralError => "GENERAL_ERROR",
            ExitStatus::InvalidInput => "ARG_ERROR",
            ExitStatus::ChecksFailed => "PRECONDITION",
            ExitStatus::Cancelled => "CANCELLED",
            ExitStatus::Terminated => "TERMINATED",
        }
    }

    /// When conform exits with the code, for its manifest (at most 120 characters).
    pub fn describe(self) -> &'static str {
        match self {
            ExitStatus::Success => "Every check that ran passed, or the profile is valid",
            ExitStatus::GeneralError => {
                "conform could not write its output or its --json-report file"
            }
            ExitStatus::InvalidInput => {
                "INVALID_PROFILE or USAGE_ERROR: a profile or the arguments are invalid; nothing ran"
            }
            ExitStatus::ChecksFailed => {
                "CONFORMANCE_CHECKS_FAILED: at least one check failed; data carries the full result"
            }
            ExitStatus::Cancelled => {
                "CANCELLED: SIGINT stopped the runs in progress and killed their process groups"
            }
            ExitStatus::Terminated => {
                "CANCELLED: SIGTERM stopped the runs in progress and killed their process groups"
            }
        }
    }

    /// Whether the identical call may succeed when repeated: only an interruption.
    pub fn retryable(self) -> bool {
        self.is_cancellation()
    }

    /// conform was interrupted (SIGINT) or stopped (SIGTERM).
    pub(crate) fn is_cancellation(self) -> bool {
        matches!(self, ExitStatus::Cancelled | ExitStatus::Terminated)
    }
}

/// The exit code the spec gives a tool that ends on `signal` (128 + its number):
/// 130 for SIGINT (REQ-F-069), 143 for SIGTERM (REQ-F-013).
pub(crate) fn signal_exit_code(signal: Signal) -> i32 {
    128 + signal as i32
}

/// The text `panic!` was given; other payloads (from `panic_any`) have none.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conform_exits_as_the_signals_it_gets_say() {
        assert_eq!(signal_exit_code(Signal::SIGINT), 130);
        assert_eq!(signal_exit_code(Signal::SIGTERM), 143);
        assert_eq!(
            ExitStatus::Cancelled.code(),
            signal_exit_code(Signal::SIGINT)
        );
        assert_eq!(
            ExitStatus::Terminated.code(),
            signal_exit_code(Signal::SIGTERM)
        );
    }
}
