//! Command handlers. Each takes the parsed command line and returns either a reply
//! for the caller to render (envelope or plain text) or the exit code of a stream it
//! already wrote.

mod deployments;
mod events;
mod health;
mod manifest;
mod releases;
mod validate;

use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::error::{CliError, Failure};
use crate::output::Ui;
use crate::parse::Parsed;
use crate::spec::{self, Command};

/// What every handler needs to know about this run.
pub struct Ctx {
    pub ui: Ui,
    pub started: Instant,
    pub command: &'static Command,
}

/// A successful single response: `data`, extra `meta` and `warnings` for the
/// envelope, and the plain-text rendering of the same result.
#[derive(Default)]
pub struct Reply {
    pub data: Value,
    pub meta: Map<String, Value>,
    pub warnings: Vec<Value>,
    pub plain: String,
    /// A change was committed: a signal that arrives now can no longer undo it, so
    /// the result is still reported.
    pub committed: bool,
    /// Where a page of `data` starts in the whole list, so that a reply cut to fit the
    /// output cap can hand out a cursor for the rest.
    pub resume: Option<Resume>,
}

/// The position of a reply's first item, and how to make a cursor for any position.
#[derive(Debug, Clone, Copy)]
pub struct Resume {
    pub start: usize,
    pub cursor: fn(usize) -> String,
}

pub enum Outcome {
    Reply(Box<Reply>),
    /// A stream already written to stdout, ending with this exit code.
    Streamed(u8),
}

pub fn dispatch(args: &Parsed, ctx: &Ctx) -> Result<Outcome, Failure> {
    match args.command.key {
        "deployments.list" => deployments::list(args, ctx),
        "deployments.get" => deployments::get(args, ctx),
        "deployments.delete" => deployments::delete(args, ctx),
        "deployments.validate" => validate::run(ctx),
        "events" => events::run(args, ctx),
        "health" => health::run(),
        "manifest" => manifest::run(args, ctx),
        "releases" => releases::run(args, ctx),
        _ => Err(missing_subcommand(args.command).into()),
    }
}

fn missing_subcommand(group: &Command) -> CliError {
    let known: Vec<String> = group
        .subcommands
        .iter()
        .filter_map(|key| spec::find(key))
        .map(Command::display)
        .collect();
    let shown = if group.path.is_empty() {
        "democli".to_owned()
    } else {
        format!("democli {}", group.display())
    };
    CliError::usage("MISSING_COMMAND", format!("'{shown}' needs a command"))
        .fix(format!("Use one of: {}", known.join(", ")))
        .suggest(format!("{shown} --help"))
        .context(json!({ "command": group.display(), "known": known }))
}
