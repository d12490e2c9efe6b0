//! The binary's layer: argument parsing, output, exit codes. Everything else is in
//! the library.

pub mod args;
pub mod manifest;
pub mod output;
pub mod signals;
