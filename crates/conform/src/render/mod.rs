//! Renderers: the same reports as one ResponseEnvelope (piped, for agents and CI) or
//! as text for people (on a TTY).

pub mod json_report;
pub mod run;
pub mod style;
pub mod validate;
