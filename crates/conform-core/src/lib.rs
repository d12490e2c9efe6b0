//! conform's engine: load a profile, run a command-line tool every way an AI agent
//! would, and judge it against the CLI Agent Spec.
//!
//! The data flow (docs/runs.md and the README's "Repository layout"):
//! profile -> `profile` (load, validate) -> `plan` (the runs each check needs)
//! -> `exec` (one record per run) -> `checks` (judge) -> `result` (conform's
//! report, and the reference kit's ConformanceResult derived from it) -> `render`
//! (envelope, text, report files).
//!
//! Two doors lead in, and nothing else is public:
//! - [`Suite`], for a CLI's own `cargo test`: load its profile, point it at the
//!   binary cargo built, assert that it passes;
//! - [`command`], the `conform` binary's commands without the argument parser.

#![warn(unreachable_pub, missing_docs)]

mod canary;
mod checks;
pub mod command;
mod data;
mod discover;
mod envelope;
mod events;
mod exec;
mod exit;
mod explore;
mod file;
mod findings;
mod init;
mod lines;
mod manifest;
mod partition;
mod plan;
mod profile;
mod render;
mod result;
mod runner;
mod schedule;
mod suite;

pub use envelope::ExitStatus;
pub use exec::Cancel;
pub use profile::{PatchOperation, Violation};
pub use suite::{Suite, SuiteError, SuiteReport};
