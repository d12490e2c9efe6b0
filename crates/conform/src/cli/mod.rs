//! The binary's layer: argument parsing, signals, exit codes. The commands
//! themselves are the engine's (`conform_core::command`).

pub mod args;
pub mod manifest;
pub mod signals;
