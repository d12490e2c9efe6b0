//! What init reports besides a profile: warnings, and the failure that stops it.

use serde::Serialize;
use serde_json::{json, Value};

use super::tool::Unread;
use crate::envelope::ExitStatus;

/// A non-fatal diagnostic, shaped as the spec's WarningDetail.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Warning {
    /// `^[A-Z][A-Z0-9_]+$`, e.g. `COMMAND_SKIPPED`.
    pub code: &'static str,
    pub message: String,
    pub context: Value,
}

impl Warning {
    pub(super) fn new(code: &'static str, message: impl Into<String>, context: Value) -> Self {
        Warning {
            code,
            message: message.into(),
            context,
        }
    }

    /// A command init writes no probe for, and why.
    pub(super) fn skipped(command: &str, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Warning::new(
            "COMMAND_SKIPPED",
            format!("{command}: no probe written: {reason}"),
            json!({ "command": command, "reason": reason }),
        )
    }

    /// A probe judged under `conform check` and never saved, with why, and the
    /// files its run wrote in its fresh HOME.
    pub(super) fn check_only(command: &str, why: &str, files: &[String]) -> Self {
        Warning::new(
            "CHECK_ONLY_PROBE",
            format!(
                "{command}: probed only here, in fresh sandboxes at the black hole, and left out of a saved profile: {why}"
            ),
            json!({ "command": command, "reason": why, "files": files }),
        )
    }

    /// A candidate read probe left out because its trial failed.
    pub(super) fn dropped(command: &str, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Warning::new(
            "CANDIDATE_DROPPED",
            format!("{command}: no probe written: {reason}"),
            json!({ "command": command, "reason": reason }),
        )
    }

    /// A command whose help call gave no help: it is not probed.
    pub(super) fn help_dropped(command: &str, reason: &str) -> Self {
        Warning::new(
            "HELP_DROPPED",
            format!("{command}: no probe written: {reason}"),
            json!({ "command": command, "reason": reason }),
        )
    }

    /// The tool's help calls gave no help, and exploration went on without it.
    pub(super) fn help_unread(unread: &Unread) -> Self {
        let Unread {
            reason,
            call,
            printed,
            how,
        } = unread;
        let shown = if printed.is_empty() {
            "nothing".to_string()
        } else {
            format!("{printed:?}")
        };
        Warning::new(
            "HELP_UNREAD",
            format!(
                "no help to read: {reason}. It printed {shown}. Only the unknown-flag probe runs, and no command is found; the checks judge the help call itself (help_off_stdout, help_version_pure, no_hang_stdin_open on `--help` with stdin open)"
            ),
            json!({
                "call": call,
                "reason": reason,
                "printed": printed,
                "unusable": how.word(),
            }),
        )
    }

    /// A command whose name reads as deleting: never called, never written.
    pub(super) fn destructive(command: &str) -> Self {
        Warning::new(
            "DESTRUCTIVE_CANDIDATE",
            format!("{command} looks destructive: add it by hand as a destructive probe with its dry-run flag (\"dry_run_flag\"), with arguments that point at a sandbox"),
            json!({ "command": command }),
        )
    }
}

/// Why init wrote nothing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Failure {
    /// 2 for bad input (arguments, manifest, refusal), 1 for a tool or I/O failure.
    pub status: ExitStatus,
    pub code: &'static str,
    pub message: String,
    pub fix: String,
    /// Boxed: a failure travels in every `Result` here and is rarely built.
    pub context: Option<Box<Value>>,
    /// Found before the failure; still worth showing.
    pub warnings: Vec<Warning>,
}

impl Failure {
    pub(super) fn new(
        status: ExitStatus,
        code: &'static str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Failure {
            status,
            code,
            message: message.into(),
            fix: fix.into(),
            context: None,
            warnings: Vec::new(),
        }
    }

    pub(crate) fn input(
        code: &'static str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Failure::new(ExitStatus::InvalidInput, code, message, fix)
    }

    pub(crate) fn tool(
        code: &'static str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Failure::new(ExitStatus::GeneralError, code, message, fix)
    }
}
