//! conform: a conformance kit that proves whether a command-line tool is safe and
//! reliable for AI agents to call.
//!
//! The data flow (the README's "How runs are made" and "Repository layout"):
//! profile -> [`profile`] (load, validate) -> [`plan`] (the runs each check needs)
//! -> [`exec`] (one [`exec::RunRecord`] per run) -> [`checks`] (judge)
//! -> [`result`] (conform's report, and the reference kit's ConformanceResult derived
//! from it) -> [`render`] (envelope, text, `--json-report`).

pub mod checks;
pub mod discover;
pub mod envelope;
pub mod events;
pub mod exec;
pub mod file;
pub mod init;
pub mod partition;
pub mod plan;
pub mod profile;
pub mod render;
pub mod result;
pub mod schedule;
