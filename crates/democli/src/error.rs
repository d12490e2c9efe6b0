//! The one error type every command returns. It owns the exit code, so no handler
//! can pick a number that disagrees with the envelope it prints.

use std::io;

use nix::sys::signal::Signal;
use serde_json::{json, Map, Value};

use crate::defect::{Defect, Faults};

/// The exit codes democli emits, from the spec's table (REQ-F-001) plus the two
/// signal codes REQ-F-069 and REQ-F-013 sanction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Success,
    GeneralError,
    ArgError,
    Precondition,
    NotFound,
    /// Only the waits-for-device-code defect ends in it: no credentials.
    Unauthenticated,
    /// The wait for the network outlasted `--timeout` (REQ-C-012).
    Timeout,
    Interrupted,
    Terminated,
}

impl Status {
    pub fn code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::GeneralError => 1,
            Status::ArgError => 2,
            Status::Precondition => 4,
            Status::NotFound => 5,
            Status::Unauthenticated => 8,
            Status::Timeout => 10,
            Status::Interrupted => 130,
            Status::Terminated => 143,
        }
    }

    /// Constant name as the spec's `ExitCode` table spells it; the two signal codes
    /// have no row there, so they carry the name of the error they report.
    pub fn name(self) -> &'static str {
        match self {
            Status::Success => "SUCCESS",
            Status::GeneralError => "GENERAL_ERROR",
            Status::ArgError => "ARG_ERROR",
            Status::Precondition => "PRECONDITION",
            Status::NotFound => "NOT_FOUND",
            Status::Unauthenticated => "UNAUTHENTICATED",
            Status::Timeout => "TIMEOUT",
            Status::Interrupted => "CANCELLED",
            Status::Terminated => "TERMINATED",
        }
    }

    /// 128 + the signal number, for the two signals democli handles.
    pub fn for_signal(signal: Signal) -> Status {
        match signal {
            Signal::SIGTERM => Status::Terminated,
            _ => Status::Interrupted,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Nothing ran: zero side effects (REQ-F-002).
    Validation,
    Execution,
}

impl Phase {
    fn as_str(self) -> &'static str {
        match self {
            Phase::Validation => "validation",
            Phase::Execution => "execution",
        }
    }
}

/// A failure rendered as the envelope's `ErrorDetail`.
#[derive(Debug, Clone)]
pub struct CliError {
    pub status: Status,
    /// Stable `^[A-Z][A-Z0-9_]+$` identifier agents branch on.
    pub code: &'static str,
    pub message: String,
    pub phase: Phase,
    /// Boxed: most errors leave these empty, and a small error keeps `Result`s cheap.
    extra: Box<Extra>,
}

#[derive(Debug, Clone, Default)]
struct Extra {
    fix_required: Option<String>,
    suggestion: Option<String>,
    context: Option<Value>,
    /// Declared failure payload; `null` unless a command says otherwise.
    data: Value,
    /// The identical call may succeed later (a timeout); false for everything else.
    retryable: bool,
}

impl CliError {
    /// An input error: exit 2, phase validation, nothing happened.
    pub fn usage(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(Status::ArgError, code, message, Phase::Validation)
    }

    pub fn execution(status: Status, code: &'static str, message: impl Into<String>) -> Self {
        Self::new(status, code, message, Phase::Execution)
    }

    fn new(status: Status, code: &'static str, message: impl Into<String>, phase: Phase) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            phase,
            extra: Box::default(),
        }
    }

    /// A run stopped by SIGINT or SIGTERM before its result was written (REQ-F-069).
    pub fn interrupted(signal: Signal) -> Self {
        let name = signal.as_str();
        Self::execution(
            Status::for_signal(signal),
            "CANCELLED",
            format!("cancelled by {name} before the result was written; nothing changed"),
        )
        .context(json!({ "signal": name }))
    }

    pub fn fix(mut self, fix_required: impl Into<String>) -> Self {
        self.extra.fix_required = Some(fix_required.into());
        self
    }

    pub fn suggest(mut self, suggestion: impl Into<String>) -> Self {
        self.extra.suggestion = Some(suggestion.into());
        self
    }

    pub fn context(mut self, context: Value) -> Self {
        self.extra.context = Some(context);
        self
    }

    pub fn data(mut self, data: Value) -> Self {
        self.extra.data = data;
        self
    }

    /// Mark the failure as one the same call may get past by being repeated.
    pub fn retryable(mut self) -> Self {
        self.extra.retryable = true;
        self
    }

    pub fn fix_required(&self) -> Option<&str> {
        self.extra.fix_required.as_deref()
    }

    pub fn suggestion(&self) -> Option<&str> {
        self.extra.suggestion.as_deref()
    }

    /// The envelope's `data` for this failure.
    pub fn payload(&self) -> &Value {
        &self.extra.data
    }

    /// The `ErrorDetail` object as written, with the defect that drops
    /// `retryable` applied.
    pub fn detail_for(&self, faults: Faults) -> Value {
        let mut detail = self.detail();
        if faults.on(Defect::ErrorWithoutRetryable) {
            if let Value::Object(fields) = &mut detail {
                fields.remove("retryable");
            }
        }
        detail
    }

    /// The `ErrorDetail` object. Only a timeout is retryable unchanged; every other
    /// failure needs a changed input or environment first.
    pub fn detail(&self) -> Value {
        let mut detail = Map::new();
        detail.insert("code".into(), json!(self.code));
        detail.insert("message".into(), json!(self.message));
        detail.insert("retryable".into(), json!(self.extra.retryable));
        detail.insert("phase".into(), json!(self.phase.as_str()));
        if let Some(fix) = &self.extra.fix_required {
            detail.insert("fix_required".into(), json!(fix));
        }
        if let Some(suggestion) = &self.extra.suggestion {
            detail.insert("suggestion".into(), json!(suggestion));
        }
        if let Some(context) = &self.extra.context {
            detail.insert("context".into(), context.clone());
        }
        Value::Object(detail)
    }
}

/// What a command handler can fail with: a reportable error, or an I/O error on
/// stdout itself, which cannot be reported there.
#[derive(Debug)]
pub enum Failure {
    Cli(CliError),
    Io(io::Error),
}

impl From<CliError> for Failure {
    fn from(error: CliError) -> Self {
        Failure::Cli(error)
    }
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Io(error)
    }
}
